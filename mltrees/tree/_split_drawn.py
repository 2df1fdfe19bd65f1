"""The random forest's split search: every node scores only the features it drew (chapter 10).

A level's (row, drawn feature) pairs are labelled with a segment, node x
drawn features + the feature's rank among them, and all segments are scored
in one pass, so the work per level grows with ``max_features``, not with
the number of features.
"""

from __future__ import annotations

import numpy as np

from mltrees.tree._cuts import (
    NEG_INF,
    _best_ordered_cut,
    _cell_statistics,
    _safe_threshold,
    _select,
    tie_tolerance,
)
from mltrees.tree._data import CATEGORICAL
from mltrees.tree._split_rules import FrontierSplits

# Random-forest levels are searched in chunks of at most this many (row, feature) pairs.
DRAWN_PAIRS_PER_CHUNK = 1 << 17


def _drawn_features_apply(specs, stats_model, rules, feature_mask, row_of) -> bool:
    """Whether a level can be searched by :func:`_find_splits_drawn_features`.

    That path covers what random forests grow: every node drew the same
    number of features (``max_features``), all features numeric, additive
    statistics, the largest gain wins, and no missing values to route.
    """
    if feature_mask is None or row_of is not None or feature_mask.size == 0:
        return False
    drawn = feature_mask.sum(axis=1)
    return (
        bool((drawn == drawn[0]).all())
        and int(drawn[0]) < feature_mask.shape[1]
        and rules.selection == "gain"
        and rules.min_cases <= 1
        and not rules.release8
        and rules.missing == "error"
        and not getattr(stats_model, "needs_samples", False)
        and all(spec.kind != CATEGORICAL for spec in specs)
    )


def _find_splits_drawn_features(
    codes, specs, rows, node, n_nodes, stats_model, node_stats, rules, feature_mask
) -> FrontierSplits:
    """:func:`find_splits` for nodes that each drew ``k`` numeric features.

    Instead of one pass per feature, every (row, drawn feature) pair of the
    level is a *segment* ``node * k + slot`` (slot: the feature's rank among
    the node's draws), and one aggregation and one segment-wise cumulative
    sum score every cut of every segment. The per-feature loop costs a few
    dozen NumPy calls per feature and level; with ``k`` of ``d`` features
    drawn, most of that work is for nodes that did not draw the feature, and
    the many small calls keep threads waiting on the interpreter lock.
    Gains, thresholds and the chosen feature are those of the per-feature
    search (the tests compare both).
    """
    n_samples, n_features = codes.shape
    k = int(feature_mask[0].sum())
    node_features = np.nonzero(feature_mask)[1].reshape(n_nodes, k)  # ascending per node
    n_codes = max(spec.n_codes for spec in specs)
    parent_impurity = stats_model.impurity(node_stats)
    if codes.flags["F_CONTIGUOUS"]:
        flat, row_offset, feature_stride = codes.T.reshape(-1), rows, n_samples
    else:
        flat = np.ascontiguousarray(codes).reshape(-1)
        row_offset, feature_stride = rows * n_features, 1
    segment_gain = np.full((n_nodes, k), NEG_INF)
    segment_left = np.zeros((n_nodes, k), dtype=np.intp)  # codes on both sides of the cut
    segment_right = np.zeros((n_nodes, k), dtype=np.intp)
    # The pair arrays are the level's largest: bound them by taking a few
    # slots at a time (all k at once unless the level holds many rows).
    width = max(1, min(k, DRAWN_PAIRS_PER_CHUNK // max(rows.size, 1)))
    for first in range(0, k, width):
        slots = np.arange(first, min(first + width, k))
        g = slots.size
        index = node_features[:, slots][node] * feature_stride + row_offset[:, None]
        pair_code = flat[index.reshape(-1)]
        del index
        pair_segment = (node[:, None] * g + np.arange(g)).reshape(-1)
        entry_segment, entry_code, entry_stats = _cell_statistics(
            stats_model,
            pair_segment,
            pair_code,
            n_nodes * g,
            n_codes,
            np.repeat(rows, g),
            counts=rules.min_samples_leaf > 1,  # the cuts' row counts serve only that limit
        )
        del pair_segment, pair_code
        segment_node = np.arange(n_nodes * g) // g
        gain, best = _best_ordered_cut(
            stats_model,
            entry_segment,
            entry_stats,
            node_stats[segment_node],
            parent_impurity[segment_node],
            rules,
        )
        found = best >= 0
        left, right = np.zeros(best.size, dtype=np.intp), np.zeros(best.size, dtype=np.intp)
        left[found] = entry_code[best[found]]
        # A valid cut is never after a run's last entry, so best + 1 is in the run.
        right[found] = entry_code[np.minimum(best[found] + 1, entry_code.size - 1)]
        segment_gain[:, slots] = gain.reshape(n_nodes, g)
        segment_left[:, slots] = left.reshape(n_nodes, g)
        segment_right[:, slots] = right.reshape(n_nodes, g)
    gains = np.full((n_nodes, n_features), NEG_INF)
    rows_idx = np.arange(n_nodes)
    gains[rows_idx[:, None], node_features] = segment_gain
    chosen = _select(gains, gains, "gain", tie_tolerance(stats_model, node_stats, parent_impurity))
    best_gain = gains[rows_idx, chosen]
    has = np.isfinite(best_gain)
    # Each node's chosen feature sits at one slot among the node's draws.
    slot = np.argmax(node_features == chosen[:, None], axis=1)
    left_code = segment_left[rows_idx, slot][has]
    right_code = segment_right[rows_idx, slot][has]
    thresholds = np.full(n_nodes, np.nan)
    split_codes = np.full(n_nodes, -1, dtype=np.intp)
    split_codes[has] = left_code
    threshold = np.empty(left_code.size)
    for j in np.unique(chosen[has]):
        at = chosen[has] == j
        threshold[at] = _safe_threshold(specs[j], left_code[at], right_code[at])
    thresholds[has] = threshold
    return FrontierSplits(
        gain=best_gain,
        feature=chosen,
        threshold=thresholds,
        split_code=split_codes,
        n_children=np.where(has, 2, 0),
        routes={},
    )


def _rows_by_feature(rows, node, feature_mask):
    """Group the (row, feature) pairs of a level by feature, for nodes that drew few features.

    Returns ``part(j)`` -> the rows (ascending, as ``rows``) whose node drew
    feature ``j``, and their nodes. One stable sort of ``rows * max_features``
    pairs replaces a pass over all rows per feature.
    """
    n_features = feature_mask.shape[1]
    drawn = feature_mask.sum(axis=1)
    if drawn.size == 0 or (drawn != drawn[0]).any():  # not a max_features draw: one mask each
        return lambda j: (rows[feature_mask[node, j]], node[feature_mask[node, j]])
    k = int(drawn[0])
    node_features = np.nonzero(feature_mask)[1].reshape(-1, k)
    dtype = np.uint8 if n_features <= 256 else np.intp  # radix sort for small keys
    pair_feature = node_features.astype(dtype)[node].ravel()
    order = np.argsort(pair_feature, kind="stable") // k  # the pair's row position
    bounds = np.concatenate([[0], np.cumsum(np.bincount(pair_feature, minlength=n_features))])
    rows_sorted, node_sorted = rows[order], node[order]

    def part(j):
        return rows_sorted[bounds[j] : bounds[j + 1]], node_sorted[bounds[j] : bounds[j + 1]]

    return part
