"""Every numeric feature of a level scored in one pass (chapter 3).

The per-feature search of :func:`mltrees.tree._split.find_splits` costs a few
dozen NumPy calls per feature and level. On a few hundred rows those calls'
fixed costs, not the arithmetic, are the fit time: a 13-feature tree of
depth 11 makes 143 passes of ~30 calls. Here the level's (row, feature)
pairs are labelled with a *segment* ``node * g + slot`` (slot: the feature's
place among the ``g`` features scored together), and one aggregation and one
segment-wise cumulative sum score every cut of every (node, feature)
segment, as :mod:`mltrees.tree._split_drawn` does for a forest's drawn
features.

The statistics of every (node, feature, code) cell are summed in row order,
as the per-feature pass sums them, so the cells, the candidates and the
chosen splits are the same (the equality tests compare the trees).
"""

from __future__ import annotations

import numpy as np

from mltrees._midpoint import midpoint
from mltrees.tree._cuts import (
    DENSE_CELLS_MAX,
    DENSE_CELLS_PER_ROW,
    _best_ordered_cut,
    _numbered_cell_statistics,
    filled,
    tie_tolerance,
)
from mltrees.tree._data import CATEGORICAL
from mltrees.tree._statistics import ClassificationStatistics, RegressionStatistics

# (row, feature) pairs scored in one pass at most: a level with more rows is
# scored a few features at a time, so the pair arrays stay bounded (and a
# large level, where each NumPy call is long anyway, gains nothing from more).
BATCHED_PAIRS_MAX = 1 << 17
# ... and at most this many when the cells are sorted rather than counted
# (exact thresholds on many distinct values, deep levels): measured on HIGGS's
# 6,000 rows of 28 continuous features, one sort of all pairs made CART's fit
# 1.6x slower than a sort per feature.
SORTED_PAIRS_MAX = 1 << 14
# Cell statistics are summed in dense tables indexed by the cell (for unit-weight
# classes: by the (cell, class) pair) while a table has at most this many
# entries per (row, feature) pair, or this many in all.
CELL_TABLE_PER_PAIR, CELL_TABLE_MIN = 2, 1 << 15


def batched_features(specs, stats_model, rules, feature_mask, row_of) -> np.ndarray:
    """Features whose candidates :func:`score_features_together` can score; empty if none.

    Ordered numeric thresholds with additive statistics, scored by the largest
    gain (CART): no feature subsets, no fractional C4.5 entries, no release-8
    corrections. Categorical features keep the per-feature pass.
    """
    if (
        feature_mask is not None
        or row_of is not None
        or rules.selection != "gain"
        or rules.release8
        or rules.min_cases > 1
        or getattr(stats_model, "needs_samples", False)
    ):
        return np.zeros(0, dtype=np.intp)
    return np.array([j for j, spec in enumerate(specs) if spec.kind != CATEGORICAL], dtype=np.intp)


def score_features_together(
    codes,
    specs,
    features,
    rows,
    node,
    n_nodes,
    stats_model,
    node_stats,
    parent_impurity,
    rules,
    tolerance=None,
):
    """Best cut of every (node, feature) pair for the numeric ``features``.

    Returns ``(gain, split_code, right_code)``, each of shape
    ``(n_nodes, features.size)``: the gain of the pair's best cut (``-inf``
    if none), the last code on its left (-1 if none) and the first code on
    its right (see :func:`numeric_thresholds`); or None when a row of the
    level has a missing value (code -1), which the per-feature pass scores.
    ``tolerance``: the nodes' :func:`~mltrees.tree._cuts.tie_tolerance`.
    """
    if tolerance is None:
        tolerance = tie_tolerance(stats_model, node_stats, parent_impurity)
    n_total = features.size
    table = _feature_table(specs, features)
    gain = np.empty((n_nodes, n_total))
    split_code = np.empty((n_nodes, n_total), dtype=np.intp)
    right_code = np.empty((n_nodes, n_total), dtype=np.intp)
    # Feature-major blocks: codes are stored column by column.
    columns = codes.T
    width = max(1, min(n_total, BATCHED_PAIRS_MAX // max(rows.size, 1)))
    pairs = rows.size * n_total
    if n_nodes * table.n_cells > max(min(DENSE_CELLS_PER_ROW * pairs, DENSE_CELLS_MAX), 1 << 16):
        # Too many cells to count densely: the pairs are sorted, and one sort
        # of many pairs costs more per pair than several small ones.
        width = max(1, min(width, SORTED_PAIRS_MAX // max(rows.size, 1)))
    whole = n_total == codes.shape[1] and width == n_total
    for first in range(0, n_total, width):
        slots = slice(first, min(first + width, n_total))
        g = slots.stop - first
        if rows.size == codes.shape[0]:  # every row (rows are distinct): no gather
            block = columns if whole else columns[features[slots]]
        else:
            block = columns[:, rows] if whole else np.take(columns[features[slots]], rows, axis=1)
        if block.dtype.kind == "i" and block.size and block.min() < 0:
            return None
        # Cell = (node, feature, code), numbered node-major: entries come out
        # sorted by node, then feature, then code -- one run per segment.
        offset = table.code_offset[slots]
        n_cells = int(table.code_offset[slots.stop] - offset[0])
        cell = block + (offset - offset[0])[:, None]
        cell += node * n_cells
        counted = _dense_cell_statistics(
            stats_model, cell, n_nodes * n_cells, rows, rules.min_samples_leaf > 1
        )
        if counted is None:
            counted = _numbered_cell_statistics(
                stats_model,
                cell.reshape(-1),
                n_nodes * n_cells,
                _stacked(rows, g),
                counts=rules.min_samples_leaf > 1,  # the cuts' row counts serve only that limit
            )
        present, entry_stats = counted
        del block, cell
        entry_node, entry_cell = np.divmod(present, n_cells)
        entry_cell += offset[0]  # the code's place among all features' codes
        slot = table.slot_of_code[entry_cell] - first
        entry_code = table.code_of_code[entry_cell]
        entry_segment = entry_node * g + slot
        segment_node = np.repeat(np.arange(n_nodes), g)
        gain_c, best = _best_ordered_cut(
            stats_model,
            entry_segment,
            entry_stats,
            node_stats[segment_node],
            parent_impurity[segment_node],
            rules,
            tolerance=tolerance[segment_node],
        )
        found = best >= 0
        left = filled(best.size, -1, dtype=np.intp)
        right = filled(best.size, -1, dtype=np.intp)
        left[found] = entry_code[best[found]]
        # A valid cut is never after a run's last entry, so best + 1 is in the run.
        right[found] = entry_code[best[found] + 1]
        gain[:, slots] = gain_c.reshape(n_nodes, g)
        split_code[:, slots] = left.reshape(n_nodes, g)
        right_code[:, slots] = right.reshape(n_nodes, g)
    return gain, split_code, right_code


def numeric_thresholds(specs, features, feature_index, left, right):
    """The raw thresholds between codes ``left`` and ``right`` of ``features[feature_index]``.

    Elementwise: one pair's threshold does not depend on the others, so a
    caller asks only for the pairs it keeps.
    """
    out = filled(left.size, np.nan)
    found = left >= 0
    if found.any():
        out[found] = _thresholds(specs, features, feature_index[found], left[found], right[found])
    return out


def _dense_cell_statistics(stats_model, cell, n_cells, rows, counts):
    """Statistics of every non-empty cell from dense per-cell sums; None where not used.

    ``cell`` (features x rows, may be overwritten) numbers each (row,
    feature) pair's cell. The sums are ``bincount`` tables indexed by the
    cell itself, each cell's rows added in pair order -- the order
    :meth:`~mltrees.tree._statistics.ClassificationStatistics.aggregate`
    adds them in, so the statistics are the same floats -- without marking
    and numbering the cells first. With unit-weight classes one ``bincount``
    of (cell, class) pairs gives every count, the rows' classes broadcast
    over the features. Used for class counts and squared error, where the
    tables are at most :data:`CELL_TABLE_PER_PAIR` entries per pair (or
    :data:`CELL_TABLE_MIN` in all): a sparse table costs more to clear and
    scan than the pairs cost to number.
    """
    kind = type(stats_model)
    if kind is ClassificationStatistics and stats_model._unit_weights:
        k = stats_model.n_classes
        if n_cells * k > max(CELL_TABLE_PER_PAIR * cell.size, CELL_TABLE_MIN):
            return None
        cell *= k
        cell += stats_model.y[rows]
        table = np.bincount(cell.reshape(-1), minlength=n_cells * k).reshape(n_cells, k)
        total = table[:, 0].copy()  # class by class: a sum over short rows is a slow reduction
        for c in range(1, k):
            total += table[:, c]
        present = total.nonzero()[0]
        stats = np.empty((present.size, 1 + k), order="F")  # the layout aggregate returns
        stats[:, 1:] = table[present]
        stats[:, 0] = total[present]
        return present, stats
    if kind is not RegressionStatistics or n_cells > max(
        CELL_TABLE_PER_PAIR * cell.size, CELL_TABLE_MIN
    ):
        return None
    cell = cell.reshape(-1)
    n_rows = np.bincount(cell, minlength=n_cells)
    present = n_rows.nonzero()[0]
    stats = np.empty((present.size, 4), order="F")  # (count, Σw, Σwy, Σwy²)
    weighted = (stats_model.wy, stats_model.wy2)
    if stats_model._unit_weights:
        stats[:, 1] = n_rows[present]
        stats[:, 0] = stats[:, 1] if counts else np.nan
    else:
        stats[:, 0] = n_rows[present] if counts else np.nan
        weighted = (stats_model.w, *weighted)
    copies = cell.size // rows.size
    for c, values in enumerate(weighted, start=4 - len(weighted)):
        stats[:, c] = np.bincount(cell, weights=_stacked(values[rows], copies), minlength=n_cells)[
            present
        ]
    return present, stats


def _stacked(a: np.ndarray, copies: int) -> np.ndarray:
    """``np.tile(a, copies)`` for a 1-D array, without tile's Python-level overhead."""
    out = np.empty((copies, a.size), dtype=a.dtype)
    out[:] = a
    return out.reshape(-1)


def _thresholds(specs, features, feature_of, left, right):
    """``specs[features[f]].threshold(left, right)`` for many (f, left, right) at once."""
    table = _value_table(specs, features)
    if table is None:  # values of several dtypes: one feature at a time
        used = np.unique(feature_of)
        values = [specs[features[f]].values for f in used]
        out = np.empty(left.size, dtype=np.result_type(*values, np.float64))
        for f in used:
            at = feature_of == f
            out[at] = specs[features[f]].threshold(left[at], right[at])
        return out
    values, offset, exact, all_exact = table
    start = offset[feature_of]
    low = values[start + left]
    if all_exact:  # exact mode: every threshold is a midpoint
        return midpoint(low, values[start + right])
    out = low.copy()
    is_exact = exact[feature_of]
    if is_exact.any():
        out[is_exact] = midpoint(low[is_exact], values[start[is_exact] + right[is_exact]])
    return out


class _FeatureTable:
    """What the batched search reads of the features, built once per fit.

    ``code_offset``: where each feature's codes start among all features'
    codes (one more entry: the total); ``slot_of_code`` / ``code_of_code``:
    the feature place and the feature's own code of every such code;
    ``values``: see :func:`_value_table`.
    """

    def __init__(self, specs, features):
        n_codes = np.array([specs[j].n_codes for j in features], dtype=np.int64)
        self.code_offset = np.concatenate([[0], np.cumsum(n_codes)])
        self.n_cells = int(self.code_offset[-1])
        self.slot_of_code = np.repeat(np.arange(features.size), n_codes)
        self.code_of_code = np.arange(self.n_cells) - self.code_offset[self.slot_of_code]
        self.values = _build_value_table(specs, features)


# The table of the last features (the spec values held and compared by
# identity): every level of a fit, and every tree of an ensemble, asks for the
# same one. Only small tables are kept, so that no large fit's values outlive
# it; a large level does not notice the rebuild.
_last_table: tuple = (None, None, None)
CACHED_VALUES_MAX = 1 << 16


def _feature_table(specs, features) -> _FeatureTable:
    """The :class:`_FeatureTable` of ``features``, reused while the specs are the same."""
    global _last_table
    values = [specs[j].values for j in features]
    key = features.tobytes()  # cheaper to compare than np.array_equal, once per level
    cached_values, cached_key, table = _last_table
    if (
        cached_values is not None
        and cached_key == key
        and len(cached_values) == len(values)
        and all(a is b for a, b in zip(cached_values, values, strict=True))
    ):
        return table
    table = _FeatureTable(specs, features)
    small = sum(v.size for v in values) <= CACHED_VALUES_MAX
    _last_table = (values, key, table) if small else (None, None, None)
    return table


def _value_table(specs, features):
    """The features' values end to end, each feature's offset, which are exact.

    Returns ``(values, offset, exact, all_exact)``, or None when the values do
    not share a dtype.
    """
    return _feature_table(specs, features).values


def _build_value_table(specs, features):
    values = [specs[j].values for j in features]
    if len({v.dtype for v in values}) != 1:
        return None
    sizes = np.array([v.size for v in values], dtype=np.intp)
    exact = np.array([specs[j].exact for j in features], dtype=bool)
    return np.concatenate(values), np.cumsum(sizes) - sizes, exact, bool(exact.all())
