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

No loop over samples or nodes: loops run over features only. Random-forest
levels, where every node drew a few features (``max_features``), need not
even loop over features: :func:`_find_splits_drawn_features` scores all
(node, drawn feature) segments of a level in one pass.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mltrees.criteria import (
    SMALL,
    c45_min_split,
    class_impurity,
    mdl_correction,
    squared_error_impurity,
)
from mltrees.tree._data import CATEGORICAL, FeatureSpec
from mltrees.tree._order_statistics import RangeAbsoluteDeviation

__all__ = [
    "AbsoluteErrorStatistics",
    "ClassificationStatistics",
    "FrontierSplits",
    "RegressionStatistics",
    "find_splits",
]

NEG_INF = -np.inf
TIE_TOLERANCE = 1e-10  # relative to the node's impurity: below it, gains are ties
# C4.5 release 8 compares numbers as Weka's J48 does: scores, weights and minimum
# sizes within SMALL (weka.core.Utils.SMALL, 1e-6) of each other are equal.
# Release 8: two numeric values closer than this are one value (no cut between them).
C45_VALUE_GAP = 1e-5
# Release 8: a feature is eligible when its gain is >= the average gain minus this.
C45_AVERAGE_SLACK = 1e-3
# (node, code) cells are counted densely while there are at most this many
# per row (and at most DENSE_CELLS_MAX): cheaper than sorting the rows' cells.
DENSE_CELLS_PER_ROW, DENSE_CELLS_MAX = 8, 1 << 22
# Random-forest levels are searched in chunks of at most this many (row, feature) pairs.
DRAWN_PAIRS_PER_CHUNK = 1 << 17


def _xlog2x(values: np.ndarray) -> np.ndarray:
    """Elementwise ``v lg v`` with ``0 lg 0 = 0``."""
    logs = np.zeros_like(values)
    np.log2(values, out=logs, where=values > 0)
    return values * logs


class ClassificationStatistics:
    """Sufficient statistics of a classification node: sample count and weighted class counts."""

    def __init__(self, y_codes: np.ndarray, weights: np.ndarray, n_classes: int, criterion: str):
        self.y = y_codes.astype(np.intp)
        self.w = weights
        self.n_classes = n_classes
        self.criterion = criterion

    def aggregate(self, group: np.ndarray, n_groups: int, rows: np.ndarray) -> np.ndarray:
        """Sum the statistics of ``rows`` by ``group``: shape (n_groups, 1 + n_classes)."""
        k = self.n_classes
        out = np.empty((n_groups, 1 + k), order="F")  # columns are read one at a time
        out[:, 0] = np.bincount(group, minlength=n_groups)
        cells = group * k + self.y[rows]
        class_weight = np.bincount(cells, weights=self.w[rows], minlength=n_groups * k)
        out[:, 1:] = class_weight.reshape(n_groups, k)
        return out

    @staticmethod
    def count(stats):
        return stats[..., 0]

    def take(self, index: np.ndarray, scale: np.ndarray) -> ClassificationStatistics:
        """Statistics of the rows ``index`` with their weights multiplied by ``scale``.

        The growth engine uses it for C4.5's fractional entries (chapter 6): a
        row whose tested value is missing is present in every child, with a
        share of its weight in each.
        """
        return ClassificationStatistics(
            self.y[index], self.w[index] * scale, self.n_classes, self.criterion
        )

    @staticmethod
    def weight(stats):
        return stats[..., 1:].sum(axis=-1)

    @staticmethod
    def weight_of_columns(columns):
        return sum(columns[1:])

    def impurity(self, stats):
        return class_impurity(stats[..., 1:], self.criterion)

    def weighted_impurity(self, columns: list[np.ndarray]) -> np.ndarray:
        """``W * impurity`` of many nodes given as columns (count, w_1, ..., w_k).

        Column-wise, without normalising: Gini ``W - sum_c w_c^2 / W`` and
        entropy ``W lg W - sum_c w_c lg w_c``, the forms that make scoring
        every candidate of a level cheap.
        """
        classes = columns[1:]
        total = sum(classes)
        if self.criterion == "gini":
            squares = sum(w * w for w in classes)
            return total - squares / np.where(total > 0, total, 1.0)
        return _xlog2x(total) - sum(_xlog2x(w) for w in classes)

    def value(self, stats):
        """Class fractions: the node's posterior distribution."""
        weights = stats[..., 1:]
        total = weights.sum(axis=-1, keepdims=True)
        return weights / np.where(total > 0, total, 1.0)

    def order_score(self, stats, parent_stats):
        """Key that orders categories for CART's subset split (Breiman's ordering).

        Two classes: the share of the second class, for which the ordering is
        provably optimal. More classes: the share of the parent's majority
        class, a heuristic (the optimal search is exponential).
        """
        fractions = self.value(stats)
        if self.n_classes == 2:
            return fractions[:, 1]
        majority = np.argmax(parent_stats[:, 1:], axis=1)
        return fractions[np.arange(len(fractions)), majority]


class _RegressionColumns:
    """Column layout shared by the regression statistics: (count, Σw, ...)."""

    @staticmethod
    def count(stats):
        return stats[..., 0]

    @staticmethod
    def weight(stats):
        return stats[..., 1]

    @staticmethod
    def weight_of_columns(columns):
        return columns[1]

    def take(self, index: np.ndarray, scale: np.ndarray):
        """Statistics of the rows ``index`` with their weights multiplied by ``scale``."""
        return type(self)(self.y[index], self.w[index] * scale)


class RegressionStatistics(_RegressionColumns):
    """Sufficient statistics of a regression node: (count, Σw, Σwy, Σwy²)."""

    criterion = "squared_error"

    def __init__(self, y: np.ndarray, weights: np.ndarray):
        self.y = y
        self.w = weights
        self.wy = weights * y
        self.wy2 = weights * y * y

    def aggregate(self, group: np.ndarray, n_groups: int, rows: np.ndarray) -> np.ndarray:
        """Sum the statistics of ``rows`` by ``group``: shape (n_groups, 4)."""
        out = np.empty((n_groups, 4), order="F")  # columns are read one at a time
        out[:, 0] = np.bincount(group, minlength=n_groups)
        for c, values in enumerate((self.w, self.wy, self.wy2), start=1):
            out[:, c] = np.bincount(group, weights=values[rows], minlength=n_groups)
        return out

    def impurity(self, stats):
        return squared_error_impurity(stats[..., 1], stats[..., 2], stats[..., 3])

    def weighted_impurity(self, columns: list[np.ndarray]) -> np.ndarray:
        """``W * variance`` from columns (count, Σw, Σwy, Σwy²): ``Σwy² - (Σwy)² / Σw``."""
        _, w, wy, wy2 = columns
        return np.maximum(wy2 - wy * wy / np.where(w > 0, w, 1.0), 0.0)

    def value(self, stats):
        """The weighted mean: the constant that minimises squared error."""
        w = stats[..., 1:2]
        return stats[..., 2:3] / np.where(w > 0, w, 1.0)

    def order_score(self, stats, parent_stats):
        """Mean target of each category: Breiman's optimal ordering for regression."""
        return self.value(stats)[:, 0]


class AbsoluteErrorStatistics(_RegressionColumns):
    """Statistics of a regression node under absolute error.

    Columns: (count, Σw, Σwy, Σw|y - m|, m) with ``m`` the weighted median,
    the constant that minimises absolute error. Unlike sums, a median cannot
    be combined from the medians of parts, so node columns are computed from
    the samples (a sort by node, then y), and candidate splits are scored with
    :class:`~mltrees.tree._order_statistics.RangeAbsoluteDeviation`.
    """

    criterion = "absolute_error"
    needs_samples = True

    def __init__(self, y: np.ndarray, weights: np.ndarray):
        self.y = y
        self.w = weights

    def aggregate(self, group: np.ndarray, n_groups: int, rows: np.ndarray) -> np.ndarray:
        """Per group: count, weight, weighted sum, absolute deviation, weighted median."""
        y, w = self.y[rows], self.w[rows]
        order = np.lexsort((y, group))
        y, w, group = y[order], w[order], group[order]
        count = np.bincount(group, minlength=n_groups).astype(np.float64)
        weight = np.bincount(group, weights=w, minlength=n_groups)
        weighted_y = np.bincount(group, weights=w * y, minlength=n_groups)
        cum_w = np.concatenate([[0.0], np.cumsum(w)])
        cum_wy = np.concatenate([[0.0], np.cumsum(w * y)])
        start = np.concatenate([[0], np.cumsum(count).astype(np.int64)[:-1]])
        present = count > 0
        # The median: the first sample of the group whose cumulative weight
        # reaches half of the group's weight.
        target = cum_w[start] + weight / 2.0
        position = np.searchsorted(cum_w[1:], target, side="left")
        position = np.clip(position, 0, max(y.size - 1, 0))
        median = np.where(present, y[position] if y.size else 0.0, 0.0)
        below_w = cum_w[position] - cum_w[start]
        below_wy = cum_wy[position] - cum_wy[start]
        deviation = weighted_y - 2.0 * below_wy - median * (weight - 2.0 * below_w)
        deviation = np.where(present, np.maximum(deviation, 0.0), 0.0)
        # When the weight splits exactly in half (an even number of equal
        # weights, say), every value between the two middle samples is a median;
        # predict their midpoint, as numpy.median and scikit-learn do. The
        # deviation above is the same for any of them.
        following = np.minimum(position + 1, max(y.size - 1, 0))
        in_group = following < start + count
        exact_half = np.isclose(cum_w[position + 1] - cum_w[start], weight / 2.0, rtol=1e-12)
        split_median = present & in_group & exact_half
        if y.size:
            median = np.where(split_median, (median + y[following]) / 2.0, median)
        return np.column_stack([count, weight, weighted_y, deviation, median])

    def impurity(self, stats):
        w = stats[..., 1]
        return stats[..., 3] / np.where(w > 0, w, 1.0)

    def value(self, stats):
        """The weighted median: the constant that minimises absolute error."""
        return stats[..., 4:5].copy()

    def order_score(self, stats, parent_stats):
        """Median target of each category (a heuristic order for subset splits)."""
        return stats[:, 4]


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


def _cell_statistics(stats_model, node, code, n_nodes, n_codes, rows):
    """Statistics per non-empty (node, code) cell, sorted by node then code."""
    n_cells = n_nodes * n_codes
    if n_cells <= max(min(DENSE_CELLS_PER_ROW * rows.size, DENSE_CELLS_MAX), 1 << 16):
        # Dense: mark the non-empty cells and number them, so the statistics
        # are summed (in row order, as the sort path does) into a table no
        # larger than the number of rows.
        cell = node * n_codes + code
        # A byte per cell marks the non-empty ones (a bincount would take 8).
        occupied = np.zeros(n_cells, dtype=bool)
        occupied[cell] = True
        present = np.flatnonzero(occupied)
        del occupied
        compact = np.empty(n_cells, dtype=np.int32 if rows.size < 2**31 else np.intp)
        compact[present] = np.arange(present.size)
        stats = stats_model.aggregate(compact[cell], present.size, rows)
        return present // n_codes, present % n_codes, stats
    cell = node.astype(np.int64) * n_codes + code  # sparse: sort the cells
    unique_cells, inverse = np.unique(cell, return_inverse=True)
    stats = stats_model.aggregate(inverse, unique_cells.size, rows)
    return unique_cells // n_codes, unique_cells % n_codes, stats


def _segments(entry_node):
    """Start index of each node's run of entries, and each entry's run number."""
    is_start = np.empty(entry_node.size, dtype=bool)
    is_start[0] = True
    np.not_equal(entry_node[1:], entry_node[:-1], out=is_start[1:])
    starts = np.flatnonzero(is_start)
    return starts, np.cumsum(is_start) - 1


def _best_ordered_cut(
    stats_model,
    entry_node,
    entry_stats,
    node_stats,
    parent_impurity,
    rules,
    cut_deviation=None,
    missing_stats=None,
):
    """Score every cut between consecutive entries of a node; return the best per node.

    Returns the gain of each node's best cut (``-inf`` if none) and the index
    of the last entry on the left of that cut (-1 if none). Ties go to the
    first cut, i.e. the smallest threshold.

    With ``missing_stats`` (per node, the rows whose value is missing), the
    entries and ``node_stats`` cover the known rows only, every cut is scored
    twice -- missing rows on the left, then on the right -- and the better
    direction is kept (XGBoost's sparsity-aware split finding,
    :eq:`eq-default-direction`, chapter 6; ties go left). The cut after a
    node's last entry is then a candidate too: known rows left, missing rows
    right. A third array is returned: whether each node's best cut sends
    missing values left.
    """
    n_nodes = node_stats.shape[0]
    best_gain = np.full(n_nodes, NEG_INF)
    best_entry = np.full(n_nodes, -1, dtype=np.intp)
    if entry_node.size < 2 and (missing_stats is None or entry_node.size == 0):
        if missing_stats is None:
            return best_gain, best_entry
        return best_gain, best_entry, np.ones(n_nodes, dtype=bool)
    starts, run = _segments(entry_node)
    # Column by column, so every array below is contiguous: left = prefix sums
    # within the node's run, right = node total - left.
    left, right = [], []
    for c in range(entry_stats.shape[1]):
        left_c = _run_prefix_sums(entry_stats[:, c], starts, run)
        left.append(left_c)
        right.append(node_stats[entry_node, c] - left_c)
    last_of_run = np.append(entry_node[1:] != entry_node[:-1], True)
    w_total = stats_model.weight(node_stats)[entry_node]
    if missing_stats is None:
        valid = _valid_cuts(stats_model, left, right, last_of_run, rules)
        if cut_deviation is None:
            children = stats_model.weighted_impurity(left) + stats_model.weighted_impurity(right)
        else:  # absolute error: from the samples, for the valid cuts only
            children = np.zeros(entry_node.size)
            children[valid] = cut_deviation(np.flatnonzero(valid), starts, run)
        gain = parent_impurity[entry_node] - children / np.where(w_total > 0, w_total, 1.0)
        gain[~valid] = NEG_INF
    else:
        if cut_deviation is not None:
            raise NotImplementedError("default directions need additive statistics")
        missing = [missing_stats[entry_node, c] for c in range(entry_stats.shape[1])]
        w_total = w_total + stats_model.weight(missing_stats)[entry_node]
        safe_total = np.where(w_total > 0, w_total, 1.0)
        direction_gain = []
        for to_left in (True, False):
            side_l = [a + m for a, m in zip(left, missing, strict=True)] if to_left else left
            side_r = right if to_left else [a + m for a, m in zip(right, missing, strict=True)]
            ok = _valid_cuts(stats_model, side_l, side_r, last_of_run, rules)
            if not to_left:  # also "known rows left, missing rows right", as XGBoost does
                anywhere = np.zeros_like(last_of_run)
                ok |= last_of_run & _valid_cuts(stats_model, side_l, side_r, anywhere, rules)
            children = stats_model.weighted_impurity(side_l) + stats_model.weighted_impurity(side_r)
            gain = parent_impurity[entry_node] - children / safe_total
            gain[~ok] = NEG_INF
            direction_gain.append(gain)
        cut_missing_left = direction_gain[0] >= direction_gain[1]
        gain = np.maximum(direction_gain[0], direction_gain[1])
        valid = np.isfinite(gain)
    run_max = np.maximum.reduceat(gain, starts)
    position = np.arange(gain.size)
    # Gains within rounding noise of the best are ties: take the first cut.
    tolerance = TIE_TOLERANCE * parent_impurity[entry_node]
    near_best = valid & (gain >= run_max[run] - tolerance)
    first_best = np.minimum.reduceat(np.where(near_best, position, gain.size), starts)
    found = first_best < gain.size
    nodes = entry_node[starts[found]]
    best_gain[nodes] = gain[first_best[found]]
    best_entry[nodes] = first_best[found]
    if missing_stats is not None:
        missing_left = np.ones(n_nodes, dtype=bool)
        missing_left[nodes] = cut_missing_left[first_best[found]]
        return best_gain, best_entry, missing_left
    return best_gain, best_entry


def _run_prefix_sums(column: np.ndarray, starts: np.ndarray, run: np.ndarray) -> np.ndarray:
    """Prefix sums of ``column`` restarted at every run start, in one ``cumsum``.

    Each run's first value has the previous run's total subtracted, so the
    running sum falls back to about zero at every run start: rounding errors
    stay proportional to the run's own sums. (A plain cumulative sum minus
    the sum before the run carries an error proportional to everything
    summed before it, enough to break ties between the cuts of small, deep
    nodes at random.)
    """
    shifted = column.copy()
    if starts.size > 1:
        shifted[starts[1:]] -= np.add.reduceat(column, starts)[:-1]
    cumulative = np.cumsum(shifted)
    return cumulative - (cumulative[starts] - column[starts])[run]


def _valid_cuts(stats_model, left, right, last_of_run, rules):
    """Cuts that leave both children big enough (a cut after a node's last entry is none)."""
    valid = ~last_of_run
    valid &= (left[0] >= rules.min_samples_leaf) & (right[0] >= rules.min_samples_leaf)
    if rules.min_cases > 1:  # C4.5's MINOBJS counts weight, so fractional cases count too
        weight = stats_model.weight_of_columns
        valid &= (weight(left) >= rules.min_cases) & (weight(right) >= rules.min_cases)
    if rules.min_weight_leaf > 0:
        weight = stats_model.weight_of_columns
        valid &= (weight(left) >= rules.min_weight_leaf) & (weight(right) >= rules.min_weight_leaf)
    return valid


def c45_split_point(values: np.ndarray, midpoint: np.ndarray) -> np.ndarray:
    """C4.5's threshold: the largest training value that does not exceed the midpoint.

    ``values`` are the sorted distinct values of the feature in the whole
    training set. "Does not exceed" allows :data:`SMALL`, as Weka's J48 does,
    so that a value one rounding error above the computed midpoint
    (``(0.56 + 0.562) / 2`` is ``0.56099...``) is the split point ``0.561``.
    Every training case of the node goes to the same side as with the
    midpoint of :eq:`eq-bipartition-midpoints`: release 8 cuts only between values
    more than :data:`C45_VALUE_GAP` apart, so no value of the node lies
    between the two. Only new cases can be routed differently: those between
    the split point and the midpoint go right, as in Quinlan's C4.5 and J48
    (chapter 4).
    """
    return values[np.searchsorted(values, midpoint + SMALL, side="right") - 1]


def _release8_cuts(
    stats_model, entry_node, entry_code, entry_stats, known_stats, node_stats, spec, rules
):
    """C4.5 release 8's best cut of one numeric feature in every node.

    Quinlan (1996), as Weka's J48 implements it: a cut is admissible when it
    lies between two values more than :data:`C45_VALUE_GAP` apart and leaves
    at least :func:`mltrees.criteria.c45_min_split` of weight on each side
    (:eq:`eq-min-split`). The best admissible cut, by gain on the known rows
    times the known fraction (:eq:`eq-c45-gain`; the first cut within 1e-6 of
    the best), then loses ``lg(C) / W`` bits, ``C`` the number of admissible
    cuts and ``W`` the node's weight (:func:`mltrees.criteria.mdl_correction`,
    :eq:`eq-mdl-correction`). A feature whose corrected gain is not above
    1e-6 is no candidate (gain ``-inf``).

    Returns the corrected gain, the gain ratio (the split information counts
    the unknown values as a third outcome) and the last entry on the left of
    the best cut (-1 where there is none), each per node.
    """
    n_nodes = known_stats.shape[0]
    gain_out = np.full(n_nodes, NEG_INF)
    ratio_out = np.full(n_nodes, NEG_INF)
    best_entry = np.full(n_nodes, -1, dtype=np.intp)
    if entry_node.size < 2:
        return gain_out, ratio_out, best_entry
    starts, run = _segments(entry_node)
    left, right = [], []
    for c in range(entry_stats.shape[1]):
        left_c = _run_prefix_sums(entry_stats[:, c], starts, run)
        left.append(left_c)
        right.append(known_stats[entry_node, c] - left_c)
    position = np.arange(entry_node.size)
    following = np.minimum(position + 1, entry_node.size - 1)
    last_of_run = np.append(entry_node[1:] != entry_node[:-1], True)
    known_weight = stats_model.weight(known_stats)
    node_weight = stats_model.weight(node_stats)
    min_split = c45_min_split(known_weight, stats_model.n_classes, rules.min_cases)
    # J48 also wants 2 * min_split cases with a known value (counted, not weighed);
    # with weights of at most 1 the two sides' weights imply it, and larger
    # weights count as repeated cases here, so the weights decide alone.
    weight = stats_model.weight_of_columns
    lower = (min_split - SMALL)[entry_node]
    valid = ~last_of_run & (weight(left) >= lower) & (weight(right) >= lower)
    valid &= (left[0] >= rules.min_samples_leaf) & (right[0] >= rules.min_samples_leaf)
    if spec.exact:
        valid &= spec.values[entry_code] + C45_VALUE_GAP < spec.values[entry_code[following]]
    n_cuts = np.bincount(entry_node[valid], minlength=n_nodes)
    children = stats_model.weighted_impurity(left) + stats_model.weighted_impurity(right)
    safe_known = np.where(known_weight > 0, known_weight, 1.0)
    known_share = known_weight / np.where(node_weight > 0, node_weight, 1.0)
    parent = stats_model.impurity(known_stats)
    gain = (parent[entry_node] - children / safe_known[entry_node]) * known_share[entry_node]
    gain[~valid] = NEG_INF
    run_max = np.maximum.reduceat(gain, starts)
    near_best = valid & (gain >= run_max[run] - SMALL) & (gain > SMALL)
    first_best = np.minimum.reduceat(np.where(near_best, position, gain.size), starts)
    found = first_best < gain.size
    nodes, first = entry_node[starts[found]], first_best[found]
    corrected = gain[first] - mdl_correction(n_cuts[nodes], node_weight[nodes])
    left_weight = weight(left)[first]
    outcomes = np.column_stack(
        [left_weight, known_weight[nodes] - left_weight, node_weight[nodes] - known_weight[nodes]]
    )
    kept = corrected > SMALL
    nodes, first, corrected = nodes[kept], first[kept], corrected[kept]
    best_entry[nodes] = first
    gain_out[nodes] = corrected
    ratio_out[nodes] = corrected / np.maximum(_intrinsic_value(outcomes[kept]), 1e-300)
    return gain_out, ratio_out, best_entry


def _select_release8(gains, ratios, many_valued):
    """C4.5 release 8's choice of feature, as Weka's J48 makes it.

    Implements :eq:`eq-ch4-c45-rule` with release 8's details (chapter 4):
    the average gain runs over the *useful* features only (those with a
    candidate split, ``gains`` finite) and leaves out the ``many_valued``
    ones; a feature is eligible when its gain is at least the average minus
    :data:`C45_AVERAGE_SLACK`; features are visited in column order and one
    replaces the current choice only if its gain ratio is larger by more than
    :data:`SMALL` (starting from 0). Returns each node's feature and whether
    the node has one at all.
    """
    n_nodes, n_features = gains.shape
    useful = np.isfinite(gains)
    counted = useful if many_valued is None else useful & ~many_valued[None, :]
    n_counted = counted.sum(axis=1)
    average = np.where(counted, gains, 0.0).sum(axis=1) / np.maximum(n_counted, 1)
    eligible = useful & (gains >= average[:, None] - C45_AVERAGE_SLACK) & (n_counted > 0)[:, None]
    chosen = np.zeros(n_nodes, dtype=np.intp)
    best_ratio = np.zeros(n_nodes)
    found = np.zeros(n_nodes, dtype=bool)
    for j in range(n_features):
        better = eligible[:, j] & (ratios[:, j] > best_ratio + SMALL)
        chosen[better], best_ratio[better], found[better] = j, ratios[better, j], True
    return chosen, found


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


def _cut_deviation(stats_model, rows, entry_of_sample, entry_stats):
    """Scorer of cuts under absolute error: sum of both children's deviations.

    The samples are laid out in entry order (node, then the feature's order),
    so every child of every candidate is a contiguous range of that sequence.
    """
    sequence = np.argsort(entry_of_sample, kind="stable")
    ranges = RangeAbsoluteDeviation(stats_model.y[rows][sequence], stats_model.w[rows][sequence])
    entry_end = np.cumsum(stats_model.count(entry_stats)).astype(np.int64)

    def score(cuts, starts, run):
        run_start = entry_end[starts] - stats_model.count(entry_stats[starts]).astype(np.int64)
        run_end = entry_end[np.append(starts[1:], entry_end.size) - 1]
        lo, end = run_start[run[cuts]], run_end[run[cuts]]
        middle = entry_end[cuts]
        return ranges.absolute_deviation(lo, middle) + ranges.absolute_deviation(middle, end)

    return score


def _intrinsic_value(child_weights: np.ndarray) -> np.ndarray:
    """Entropy of the branch proportions, (n_nodes, n_children) -> (n_nodes,)."""
    return class_impurity(child_weights, "entropy")


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

    Returns
    -------
    FrontierSplits
    """
    n_features = len(specs)
    if _drawn_features_apply(specs, stats_model, rules, feature_mask, row_of):
        return _find_splits_drawn_features(
            codes, specs, rows, node, n_nodes, stats_model, node_stats, rules, feature_mask
        )
    parent_impurity = stats_model.impurity(node_stats)
    gains = np.full((n_nodes, n_features), NEG_INF)
    ratios = np.full((n_nodes, n_features), NEG_INF)
    thresholds = np.full((n_nodes, n_features), np.nan)
    split_codes = np.full((n_nodes, n_features), -1, dtype=np.intp)
    subset_routes = {}
    default_direction = rules.missing == "default_direction"
    missing_left = np.ones((n_nodes, n_features), dtype=bool)
    has_missing = np.zeros((n_nodes, n_features), dtype=bool)
    level_code_rows = None
    by_feature = None if feature_mask is None else _rows_by_feature(rows, node, feature_mask)
    for j, spec in enumerate(specs):
        rows_j, node_j = rows, node
        if by_feature is not None:
            # Random forests: only the nodes that drew feature j need its
            # statistics, so the work per level shrinks with max_features.
            rows_j, node_j = by_feature(j)
            if rows_j.size == 0:
                continue
        if row_of is None:
            code_rows = rows_j
        elif rows_j is rows:  # every node uses feature j: map the rows once per level
            code_rows = level_code_rows if level_code_rows is not None else row_of[rows]
            level_code_rows = code_rows
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
            continue
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
    if feature_mask is not None:
        gains[~feature_mask] = NEG_INF
        ratios[~feature_mask] = NEG_INF
    rows_idx = np.arange(n_nodes)
    if rules.release8 and rules.selection == "c45":
        chosen, found_feature = _select_release8(gains, ratios, rules.many_valued)
        best_gain = np.where(found_feature, gains[rows_idx, chosen], NEG_INF)
    else:
        chosen = _select(gains, ratios, rules.selection, TIE_TOLERANCE * parent_impurity)
        best_gain = gains[rows_idx, chosen]
    n_children = np.where(np.isfinite(best_gain), 2, 0)
    routes = {}
    for j in np.unique(chosen[np.isfinite(best_gain)]):
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
            stats_model, pair_segment, pair_code, n_nodes * g, n_codes, np.repeat(rows, g)
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
    chosen = _select(gains, gains, "gain", TIE_TOLERANCE * parent_impurity)
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


def _left_weight(stats_model, entry_stats, entry_node, best, has):
    """Weight of the left child of each node's best cut."""
    starts, run = _segments(entry_node) if entry_node.size else (np.array([], int), None)
    weights = stats_model.weight(entry_stats)
    cumulative = np.cumsum(weights)
    out = np.zeros(has.sum())
    if not has.any():
        return out
    chosen = best[has]
    run_start = starts[run[chosen]]
    return cumulative[chosen] - cumulative[run_start] + weights[run_start]


def _safe_threshold(spec: FeatureSpec, left_code, right_code):
    """Threshold between two codes, never equal to the right value (rounding guard)."""
    threshold = spec.threshold(left_code, right_code)
    if spec.exact:
        right_value = spec.values[right_code]
        threshold = np.where(threshold >= right_value, spec.values[left_code], threshold)
    return threshold


def _subset_routes(entry_node, entry_code, best, n_codes, n_nodes):
    """Per node: category code -> child slot (0 left, 1 right, -1 absent from the node)."""
    routes = np.full((n_nodes, n_codes), -1, dtype=np.intp)
    if entry_node.size == 0:
        return routes
    cut = best[entry_node]
    position = np.arange(entry_node.size)
    slot = np.where(position <= cut, 0, 1)
    usable = cut[...] >= 0
    routes[entry_node[usable], entry_code[usable]] = slot[usable]
    return routes


def _multiway(
    stats_model, entry_node, entry_code, entry_stats, node_stats, n_codes, parent_impurity, rules
):
    """Gain and gain ratio of splitting each node into one child per category."""
    n_nodes, width = node_stats.shape
    table = np.zeros((n_nodes, n_codes, width))
    table[entry_node, entry_code] = entry_stats
    child_weight = stats_model.weight(table)
    child_count = stats_model.count(table)
    total = stats_model.weight(node_stats)
    safe_total = np.where(total > 0, total, 1.0)
    weighted = (child_weight * stats_model.impurity(table)).sum(axis=1) / safe_total
    gain = parent_impurity - weighted
    # At least two branches must hold min_cases samples (C4.5's MINOBJS rule),
    # and no non-empty branch fewer than min_samples_leaf.
    big_enough = child_count > 0
    if rules.release8:  # J48: weight >= MINOBJS within SMALL, also for MINOBJS = 1
        big_enough = child_weight >= rules.min_cases - SMALL
    elif rules.min_cases > 1:  # C4.5's MINOBJS counts weight, so fractional cases count too
        big_enough &= child_weight >= rules.min_cases
    big_enough = big_enough.sum(axis=1) >= 2
    big_enough &= ((child_count == 0) | (child_count >= rules.min_samples_leaf)).all(axis=1)
    gain = np.where(big_enough, gain, NEG_INF)
    ratio = np.where(big_enough, gain / np.maximum(_intrinsic_value(child_weight), 1e-300), NEG_INF)
    return gain, ratio


def _select(gains: np.ndarray, ratios: np.ndarray, selection: str, tolerance) -> np.ndarray:
    """The feature each node splits on.

    ``"gain"``: the largest gain. ``"gain_ratio"``: the largest gain ratio.
    ``"c45"``: C4.5's rule -- among
    features whose gain is at least the average gain of the node's candidate
    features, the largest gain ratio. Scores within ``tolerance`` (per node)
    of the best are ties, and ties go to the lowest feature index, so the
    choice never depends on rounding noise.
    """
    if selection == "gain":
        scores = gains
    elif selection == "gain_ratio":
        scores = np.where(np.isfinite(gains), ratios, NEG_INF)
        tolerance = TIE_TOLERANCE * np.abs(np.max(scores, axis=1, initial=0.0))
    else:
        finite = np.isfinite(gains)
        n_candidates = finite.sum(axis=1)
        average = np.where(finite, gains, 0.0).sum(axis=1) / np.maximum(n_candidates, 1)
        eligible = finite & (gains >= average[:, None] - tolerance[:, None])
        scores = np.where(eligible, ratios, NEG_INF)
        tolerance = TIE_TOLERANCE * np.abs(np.max(scores, axis=1, initial=0.0))
    best = np.max(scores, axis=1)
    return np.argmax(scores >= (best - tolerance)[:, None], axis=1)
