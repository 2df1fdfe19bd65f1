"""What the split search is told and what it returns (chapter 3).

:class:`SplitRules` is an algorithm's configuration; :class:`FrontierSplits`
holds the best split of every frontier node.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass
class FrontierSplits:
    """The best split found for each frontier node (arrays of length n_frontier).

    ``gain`` is ``-inf`` where a node has no valid split. For a numeric split
    the left child takes ``code <= split_code``; for a categorical one,
    ``routes[node]`` maps each category code to a child slot (-1: the category
    was absent from the node, so prediction stops there).
    """

    gain: np.ndarray
    feature: np.ndarray
    threshold: np.ndarray
    split_code: np.ndarray
    n_children: np.ndarray
    routes: dict
    # Sparsity-aware splits (missing="default_direction"): the child slot that
    # missing values go to, -1 where the node had no missing value to learn from.
    missing_slot: np.ndarray | None = None


@dataclass
class SplitRules:
    """How candidates are generated and compared: the algorithm's configuration."""

    multiway_categorical: bool  # ID3/C4.5: one child per category; CART: a subset split
    # "gain" (ID3, CART), "gain_ratio" (the largest ratio) or "c45" (C4.5's
    # above-average-gain rule)
    selection: str
    min_samples_leaf: int = 1  # every non-empty child holds at least this many samples
    min_cases: int = 1  # C4.5's MINOBJS: at least two children hold this much weight
    min_weight_leaf: float = 0.0
    # Rows whose tested value is missing (code -1), chapter 6: "error" (binning
    # rejected them, none can occur), "c45" (gain on the known rows times the
    # known fraction, eq-c45-gain), "default_direction" (XGBoost's learned
    # direction, eq-default-direction) or "surrogate" (CART: scored as "c45",
    # routed by surrogate splits, eq-surrogate-agreement).
    missing: str = "error"
    max_surrogates: int = 0  # "surrogate": surrogate splits kept per node
    # C4.5 release 8 (Quinlan 1996; Weka's J48) instead of the 1993 book: numeric
    # gains lose lg(C)/W (eq-mdl-correction), numeric cuts keep the minimum split
    # size of eq-min-split on both sides, the average gain runs over the useful
    # features only, with J48's tolerances (classification statistics only).
    release8: bool = False
    # Release 8: per feature, whether it stays out of the average gain (a nominal
    # attribute with at least 0.3 n values, unless every attribute is one).
    many_valued: np.ndarray | None = None
    # Release 8: per feature, the sorted training values a threshold may take
    # (C4.5's split point is one of them); None for the others.
    split_values: list | None = None
