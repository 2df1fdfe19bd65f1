"""Scoring a feature on the rows where it is known (C4.5's missing values, chapter 6).

The other missing-value method, XGBoost's learned default direction, scores
every cut twice inside :func:`mltrees.tree._cuts._best_ordered_cut`.
"""

from __future__ import annotations

import numpy as np

from mltrees.tree._cuts import NEG_INF, _intrinsic_value


def _set_missing_aside(stats_model, rows, node, code, n_nodes):
    """Split a feature's rows into known and missing (code -1) ones.

    Returns the per-node statistics of the missing rows and the known rows,
    their nodes and codes. Implements the first step of :eq:`eq-c45-gain`
    (chapter 6): a feature is judged on the rows where it is known.
    """
    known = code >= 0
    missing_stats = stats_model.aggregate(node[~known], n_nodes, rows[~known])
    return missing_stats, rows[known], node[known], code[known]


def _unknown_outcome(gain, branch_weight, missing_weight):
    """C4.5's gain and gain ratio when some rows of a node miss the feature (chapter 6).

    ``gain`` was computed on the known rows; it is multiplied by the known
    fraction rho (:eq:`eq-c45-gain`). The split information treats "unknown"
    as one more outcome, as Quinlan's C4.5 does: ``branch_weight`` holds the
    known weight of every branch (n_nodes, n_branches), ``missing_weight`` the
    weight of the rows that miss the feature.
    """
    known = branch_weight.sum(axis=1)
    total = known + missing_weight
    rho = known / np.where(total > 0, total, 1.0)
    finite = np.isfinite(gain)
    scaled = np.where(finite, np.where(finite, gain, 0.0) * rho, NEG_INF)
    split_info = _intrinsic_value(np.column_stack([branch_weight, missing_weight]))
    ratio = np.where(finite, scaled / np.maximum(split_info, 1e-300), NEG_INF)
    return scaled, ratio
