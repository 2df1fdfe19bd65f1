"""Candidate splits of every frontier node at once (chapter 3).

The growth engine hands this module the samples of all nodes at the current
depth (the *frontier*). For one feature at a time it sums the sufficient
statistics of each (node, code) cell -- a ``bincount`` when the cells are few
(histogram mode, categories), a sort otherwise (exact mode) -- and scores
every candidate split of every node in one pass:

* **ordered** candidates (numeric thresholds, and CART's category subsets
  once categories are ordered by their target statistic): a segment-wise
  cumulative sum gives the left child's statistics at every cut;
* **multiway** candidates (ID3 and C4.5 on a categorical feature): one child
  per category.

No loop over samples or nodes: loops run over features only. This module
holds the entry point, :func:`find_splits`; the parts live in files named
after them:

* :mod:`mltrees.tree._statistics` -- the nodes' sufficient statistics;
* :mod:`mltrees.tree._split_rules` -- the configuration and the result;
* :mod:`mltrees.tree._cuts` -- cell aggregation, ordered and multiway
  scoring, the choice of feature;
* :mod:`mltrees.tree._split_missing` -- scoring on the known rows (C4.5's
  missing values); XGBoost's default direction is scored in ``_cuts``;
* :mod:`mltrees.tree._split_c45` -- C4.5 release 8's cuts and choice;
* :mod:`mltrees.tree._split_drawn` -- random-forest levels, where every node
  drew a few features (``max_features``): all (node, drawn feature)
  segments of a level in one pass, no loop over features.
"""

from __future__ import annotations

import numpy as np

from mltrees.criteria import (  # noqa: F401  (re-exported for their importers)
    SMALL,
    TIE_TOLERANCE,
)
from mltrees.tree._cuts import (  # noqa: F401  (re-exported for their importers)
    DENSE_CELLS_MAX,
    DENSE_CELLS_PER_ROW,
    NEG_INF,
    _best_ordered_cut,
    _cell_statistics,
    _cut_deviation,
    _intrinsic_value,
    _left_weight,
    _multiway,
    _run_prefix_sums,
    _safe_threshold,
    _segments,
    _select,
    _subset_routes,
    _valid_cuts,
    filled,
    tie_tolerance,
)
from mltrees.tree._data import (
    CATEGORICAL,
    FeatureSpec,
)
from mltrees.tree._split_batched import (
    batched_features,
    numeric_thresholds,
    score_features_together,
)
from mltrees.tree._split_c45 import (  # noqa: F401  (re-exported for their importers)
    C45_AVERAGE_SLACK,
    C45_VALUE_GAP,
    _release8_cuts,
    _select_release8,
    c45_split_point,
)
from mltrees.tree._split_drawn import (  # noqa: F401  (re-exported for their importers)
    DRAWN_PAIRS_PER_CHUNK,
    _drawn_features_apply,
    _find_splits_drawn_features,
    _rows_by_feature,
)
from mltrees.tree._split_missing import (
    _set_missing_aside,
    _unknown_outcome,
)
from mltrees.tree._split_rules import (
    FrontierSplits,
    SplitRules,
)
from mltrees.tree._statistics import (  # noqa: F401  (re-exported for their importers)
    AbsoluteErrorStatistics,
    ClassificationStatistics,
    RegressionStatistics,
    _RegressionColumns,
    _xlog2x,
)

# A level is scored on several threads from this many (row, feature) pairs on:
# below it, thread hand-offs cost more than the features' work.
PARALLEL_CELLS = 1 << 18

__all__ = [
    "AbsoluteErrorStatistics",
    "ClassificationStatistics",
    "FrontierSplits",
    "RegressionStatistics",
    "SplitRules",
    "find_splits",
]


def find_splits(
    codes: np.ndarray,
    specs: list[FeatureSpec],
    rows: np.ndarray,
    node: np.ndarray,
    n_nodes: int,
    stats_model,
    node_stats: np.ndarray,
    rules: SplitRules,
    feature_mask: np.ndarray | None = None,
    row_of: np.ndarray | None = None,
    executor=None,
    parent_impurity: np.ndarray | None = None,
) -> FrontierSplits:
    """Find the best split of every frontier node.

    Parameters
    ----------
    codes : ndarray (n_samples, n_features)
        Training codes from :func:`mltrees.tree._data.bin_features`.
    specs : list of FeatureSpec
        The features' specs.
    rows : ndarray of int
        The samples that belong to splittable frontier nodes.
    node : ndarray of int, same length as ``rows``
        Each row's frontier node, in ``0 .. n_nodes - 1``.
    n_nodes : int
        Number of frontier nodes.
    stats_model : ClassificationStatistics or RegressionStatistics
        How to sum and score statistics.
    node_stats : ndarray (n_nodes, width)
        The statistics of each frontier node.
    rules : SplitRules
        The algorithm's configuration.
    feature_mask : ndarray of bool (n_nodes, n_features), optional
        Features each node may use (``max_features``); all if None.
    row_of : ndarray of int, optional
        When ``rows`` index the entries of ``stats_model`` rather than the
        rows of ``codes`` (C4.5's fractional entries, chapter 6): the row of
        ``codes`` of every entry.
    executor : concurrent.futures.Executor, optional
        Scores the features of large levels in parallel.
    parent_impurity : ndarray (n_nodes,), optional
        ``stats_model.impurity(node_stats)``, when the caller has it.

    Returns
    -------
    FrontierSplits
    """
    n_features = len(specs)
    if _drawn_features_apply(specs, stats_model, rules, feature_mask, row_of):
        return _find_splits_drawn_features(
            codes, specs, rows, node, n_nodes, stats_model, node_stats, rules, feature_mask
        )
    if parent_impurity is None:
        parent_impurity = stats_model.impurity(node_stats)
    threaded = executor is not None and rows.size * n_features >= PARALLEL_CELLS
    together = np.zeros(0, dtype=np.intp)
    if not threaded:
        together = batched_features(specs, stats_model, rules, feature_mask, row_of)
    if together.size == n_features:
        # Every feature numeric and scored in one pass (CART and gradient
        # boosting on numbers): the level needs none of the per-feature
        # bookkeeping below, whose fixed costs dominate small levels.
        tolerance = tie_tolerance(stats_model, node_stats, parent_impurity)
        scored = score_features_together(
            codes, specs, together, rows, node, n_nodes, stats_model, node_stats,
            parent_impurity, rules, tolerance,
        )  # fmt: skip
        if scored is not None:
            return _numeric_splits(specs, together, tolerance, rules, *scored)
    gains = np.full((n_nodes, n_features), NEG_INF)
    ratios = np.full((n_nodes, n_features), NEG_INF)
    thresholds = np.full((n_nodes, n_features), np.nan)
    split_codes = np.full((n_nodes, n_features), -1, dtype=np.intp)
    subset_routes = {}
    default_direction = rules.missing == "default_direction"
    missing_left = np.ones((n_nodes, n_features), dtype=bool)
    has_missing = np.zeros((n_nodes, n_features), dtype=bool)
    level_code_rows = None if row_of is None else row_of[rows]
    by_feature = None if feature_mask is None else _rows_by_feature(rows, node, feature_mask)

    def score_feature(j: int) -> None:
        spec = specs[j]
        rows_j, node_j = rows, node
        if by_feature is not None:
            # Random forests: only the nodes that drew feature j need its
            # statistics, so the work per level shrinks with max_features.
            rows_j, node_j = by_feature(j)
            if rows_j.size == 0:
                return
        if row_of is None:
            code_rows = rows_j
        elif rows_j is rows:  # every node uses feature j: the rows mapped once per level
            code_rows = level_code_rows
        else:
            code_rows = row_of[rows_j]
        code = codes[:, j][code_rows].astype(np.intp)
        base_stats, base_impurity, missing_j = node_stats, parent_impurity, None
        entry_node = None
        if rules.missing != "error" and code.size and code.min() < 0:
            # Chapter 6: the feature is scored on the rows where it is known.
            if getattr(stats_model, "needs_samples", False):  # medians: per-sample work
                missing_j, rows_j, node_j, code = _set_missing_aside(
                    stats_model, rows_j, node_j, code, n_nodes
                )
                base_stats = stats_model.aggregate(node_j, n_nodes, rows_j)
            else:  # sums: one pass with "missing" as cell 0, known = all - missing
                entry_node, entry_code, entry_stats = _cell_statistics(
                    stats_model, node_j, code + 1, n_nodes, spec.n_codes + 1, rows_j
                )
                lost = entry_code == 0
                missing_j = np.zeros_like(node_stats)
                missing_j[entry_node[lost]] = entry_stats[lost]
                known = ~lost
                entry_node, entry_code = entry_node[known], entry_code[known] - 1
                entry_stats = entry_stats[known]
                base_stats = node_stats - missing_j
            has_missing[:, j] = stats_model.weight(missing_j) > 0
            if not default_direction:  # C4.5: the entropy of the known rows
                base_impurity = stats_model.impurity(base_stats)
        if entry_node is None:
            entry_node, entry_code, entry_stats = _cell_statistics(
                stats_model, node_j, code, n_nodes, spec.n_codes, rows_j
            )
        if spec.kind == CATEGORICAL and rules.multiway_categorical:
            gain_j, ratio_j = _multiway(
                stats_model,
                entry_node,
                entry_code,
                entry_stats,
                base_stats,
                spec.n_codes,
                base_impurity,
                rules,
            )
            if missing_j is not None:
                branch = np.zeros((n_nodes, spec.n_codes))
                branch[entry_node, entry_code] = stats_model.weight(entry_stats)
                gain_j, ratio_j = _unknown_outcome(gain_j, branch, stats_model.weight(missing_j))
            gains[:, j], ratios[:, j] = gain_j, ratio_j
            return
        entry_of_sample = None
        if getattr(stats_model, "needs_samples", False):
            keys = entry_node.astype(np.int64) * spec.n_codes + entry_code
            entry_of_sample = np.searchsorted(keys, node_j.astype(np.int64) * spec.n_codes + code)
        if spec.kind == CATEGORICAL:
            score = stats_model.order_score(entry_stats, base_stats[entry_node])
            order = np.lexsort((score, entry_node))
            entry_node, entry_code, entry_stats = (
                entry_node[order],
                entry_code[order],
                entry_stats[order],
            )
            if entry_of_sample is not None:
                position_of = np.empty_like(order)
                position_of[order] = np.arange(order.size)
                entry_of_sample = position_of[entry_of_sample]
        cut_deviation = None
        if entry_of_sample is not None:
            cut_deviation = _cut_deviation(stats_model, rows_j, entry_of_sample, entry_stats)
        if rules.release8 and spec.kind != CATEGORICAL:
            gain_j, ratios[:, j], best = _release8_cuts(
                stats_model,
                entry_node,
                entry_code,
                entry_stats,
                base_stats,
                node_stats,
                spec,
                rules,
            )
            found = (gain_j, best)
        else:
            found = _best_ordered_cut(
                stats_model,
                entry_node,
                entry_stats,
                base_stats,
                base_impurity,
                rules,
                cut_deviation,
                missing_j if default_direction else None,
            )
        gain_j, best = found[0], found[1]
        if len(found) == 3:
            missing_left[:, j] = found[2]
        has = best >= 0
        if rules.release8 and spec.kind != CATEGORICAL:
            pass  # _release8_cuts scored the known fraction and the ratio already
        elif missing_j is not None and not default_direction:
            left_weight = _left_weight(stats_model, entry_stats, entry_node, best, has)
            branch = np.zeros((n_nodes, 2))
            branch[has, 0] = left_weight
            branch[has, 1] = stats_model.weight(base_stats[has]) - left_weight
            gain_j, ratios[:, j] = _unknown_outcome(gain_j, branch, stats_model.weight(missing_j))
        elif rules.selection != "gain":
            left_weight = _left_weight(stats_model, entry_stats, entry_node, best, has)
            total_weight = stats_model.weight(base_stats[has])
            branch = np.column_stack([left_weight, total_weight - left_weight])
            ratios[has, j] = gain_j[has] / np.maximum(_intrinsic_value(branch), 1e-300)
        gains[:, j] = gain_j
        if spec.kind == CATEGORICAL:
            subset_routes[j] = _subset_routes(entry_node, entry_code, best, spec.n_codes, n_nodes)
        else:
            left_code = entry_code[best[has]]
            right_code = entry_code[np.minimum(best[has] + 1, entry_code.size - 1)]
            split_codes[has, j] = left_code
            # Known rows left, missing right (a cut after a node's last entry,
            # default direction only): every number goes left.
            between = np.ones(left_code.size, dtype=bool)
            if missing_j is not None and default_direction:
                between = ~np.append(entry_node[1:] != entry_node[:-1], True)[best[has]]
            threshold_j = np.full(left_code.size, np.inf)
            threshold_j[between] = _safe_threshold(spec, left_code[between], right_code[between])
            if rules.release8 and spec.exact:
                values = spec.values if rules.split_values is None else rules.split_values[j]
                threshold_j[between] = c45_split_point(values, threshold_j[between])
            thresholds[has, j] = threshold_j

    # Features are scored independently into their own columns, so large
    # levels are shared among threads (NumPy releases the GIL in its sorts,
    # sums and gathers); the result does not depend on the number of threads.
    remaining = range(n_features)
    if together.size:
        # Small levels: the numeric features in one pass, not one pass each.
        scored = score_features_together(
            codes, specs, together, rows, node, n_nodes, stats_model, node_stats,
            parent_impurity, rules,
        )  # fmt: skip
        if scored is not None:
            gains[:, together], split_codes[:, together], right_codes = scored
            thresholds[:, together] = numeric_thresholds(
                specs,
                together,
                np.tile(np.arange(together.size), n_nodes),
                split_codes[:, together].reshape(-1),
                right_codes.reshape(-1),
            ).reshape(n_nodes, together.size)
            scored_together = set(together.tolist())
            remaining = [j for j in range(n_features) if j not in scored_together]
    if threaded:
        list(executor.map(score_feature, remaining))
    else:
        for j in remaining:
            score_feature(int(j))
    if feature_mask is not None:
        gains[~feature_mask] = NEG_INF
        ratios[~feature_mask] = NEG_INF
    rows_idx = np.arange(n_nodes)
    if rules.release8 and rules.selection == "c45":
        chosen, found_feature = _select_release8(gains, ratios, rules.many_valued)
        best_gain = np.where(found_feature, gains[rows_idx, chosen], NEG_INF)
    else:
        tolerance = tie_tolerance(stats_model, node_stats, parent_impurity)
        chosen = _select(gains, ratios, rules.selection, tolerance)
        best_gain = gains[rows_idx, chosen]
    n_children = np.where(np.isfinite(best_gain), 2, 0)
    routes = {}
    categorical = [j for j, spec in enumerate(specs) if spec.kind == CATEGORICAL]
    # Numeric splits need no routes: only the chosen categorical features are visited.
    for j in np.intersect1d(chosen[np.isfinite(best_gain)], categorical) if categorical else ():
        spec = specs[j]
        at = np.flatnonzero((chosen == j) & np.isfinite(best_gain))
        if spec.kind == CATEGORICAL and rules.multiway_categorical:
            n_children[at] = spec.n_codes
            for i in at:
                routes[int(i)] = np.arange(spec.n_codes, dtype=np.intp)
        elif spec.kind == CATEGORICAL:
            for i in at:
                routes[int(i)] = subset_routes[j][i]
    missing_slot = None
    if default_direction:  # slot 0 = left, 1 = right; -1: nothing to learn from
        missing_slot = np.where(has_missing[rows_idx, chosen], 1, -1)
        missing_slot[missing_left[rows_idx, chosen] & (missing_slot == 1)] = 0
    return FrontierSplits(
        gain=best_gain,
        feature=chosen,
        threshold=thresholds[rows_idx, chosen],
        split_code=split_codes[rows_idx, chosen],
        n_children=n_children,
        routes=routes,
        missing_slot=missing_slot,
    )


def _numeric_splits(specs, features, tolerance, rules, gains, split_codes, right_codes):
    """:func:`find_splits`' choice when every feature was scored together.

    The largest gain wins, ties to the lowest feature (:func:`_select`); no
    feature had a missing value in the level, so a learned default direction
    has nothing to learn (-1), as the per-feature path finds. Thresholds are
    computed for the chosen features only. ``tolerance``: the nodes'
    :func:`tie_tolerance`.
    """
    chosen = _select(gains, None, "gain", tolerance)
    at = np.arange(chosen.size)
    best_gain = gains[at, chosen]
    split_code = split_codes[at, chosen]
    missing_slot = None
    if rules.missing == "default_direction":
        missing_slot = filled(chosen.size, -1, dtype=np.intp)
    return FrontierSplits(
        gain=best_gain,
        feature=chosen,
        threshold=numeric_thresholds(specs, features, chosen, split_code, right_codes[at, chosen]),
        split_code=split_code,
        n_children=np.isfinite(best_gain) * 2,  # 2 children, or none
        routes={},
        missing_slot=missing_slot,
    )
