"""Cell aggregation and candidate scoring of the split search (chapter 3).

The (node, code) cells of a feature are summed once (:func:`_cell_statistics`);
*ordered* candidates (numeric thresholds, CART's ordered category subsets) are
scored with segment-wise prefix sums (:func:`_best_ordered_cut`), *multiway*
ones (ID3, C4.5) one child per category (:func:`_multiway`), and
:func:`_select` picks each node's feature.
"""

from __future__ import annotations

import numpy as np

from mltrees.criteria import ROUNDING_TOLERANCE, SMALL, TIE_TOLERANCE, class_impurity
from mltrees.tree._data import FeatureSpec
from mltrees.tree._order_statistics import RangeAbsoluteDeviation

NEG_INF = -np.inf
# (node, code) cells are counted densely while there are at most this many
# per row (and at most DENSE_CELLS_MAX): cheaper than sorting the rows' cells.
DENSE_CELLS_PER_ROW, DENSE_CELLS_MAX = 8, 1 << 22


def filled(shape, value, dtype=np.float64) -> np.ndarray:
    """``np.full(shape, value, dtype)`` without its Python-level wrapper.

    The growth loop makes about ten such arrays per level; on small levels
    ``np.full``'s own overhead is a measurable part of the level's time.
    """
    out = np.empty(shape, dtype=dtype)
    out.fill(value)
    return out


def _cell_statistics(stats_model, node, code, n_nodes, n_codes, rows, counts=True):
    """Statistics per non-empty (node, code) cell, sorted by node then code.

    ``counts=False``: the cells' row counts are not needed (NaN), see
    :meth:`~mltrees.tree._statistics.ClassificationStatistics.aggregate`.
    """
    cell = node.astype(np.int64) * n_codes + code
    present, stats = _numbered_cell_statistics(stats_model, cell, n_nodes * n_codes, rows, counts)
    return (*np.divmod(present, n_codes), stats)


def _numbered_cell_statistics(stats_model, cell, n_cells, rows, counts=True):
    """Statistics per non-empty cell of ``cell`` (numbers below ``n_cells``), in cell order.

    Returns the cells present (ascending) and their statistics, each summed
    in row order.
    """
    extra = {} if counts else {"counts": False}
    if n_cells <= max(min(DENSE_CELLS_PER_ROW * rows.size, DENSE_CELLS_MAX), 1 << 16):
        # Dense: mark the non-empty cells and number them, so the statistics
        # are summed (in row order, as the sort path does) into a table no
        # larger than the number of rows.
        # A byte per cell marks the non-empty ones (a bincount would take 8).
        occupied = np.zeros(n_cells, dtype=bool)
        occupied[cell] = True
        present = occupied.nonzero()[0]
        del occupied
        compact = np.empty(n_cells, dtype=np.int32 if rows.size < 2**31 else np.intp)
        compact[present] = np.arange(present.size)
        return present, stats_model.aggregate(compact[cell], present.size, rows, **extra)
    unique_cells, inverse = _unique_with_inverse(cell)  # sparse: sort the cells
    return unique_cells, stats_model.aggregate(inverse, unique_cells.size, rows, **extra)


def _unique_with_inverse(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``np.unique(values, return_inverse=True)`` for a 1-D integer array.

    The same sort and the same result, without ``np.unique``'s generic
    preparation (flattening copy, masked-array and NaN checks), which
    measured several times slower on the cells of a forest's level.
    """
    order = values.argsort()
    ordered = values[order]
    is_new = np.empty(ordered.size, dtype=bool)
    is_new[:1] = True
    np.not_equal(ordered[1:], ordered[:-1], out=is_new[1:])
    inverse = np.empty(values.size, dtype=np.intp)
    inverse[order] = np.cumsum(is_new) - 1
    return ordered[is_new], inverse


def tie_tolerance(stats_model, node_stats, parent_impurity):
    """Per node: gains closer than this are ties, broken towards the first candidate.

    :data:`~mltrees.criteria.TIE_TOLERANCE` of the node's impurity plus
    :data:`~mltrees.criteria.ROUNDING_TOLERANCE` of the size of the sums it
    is computed from, so that rounding noise (which a rescaling of the
    weights changes) never decides between candidates that tie exactly.
    """
    return TIE_TOLERANCE * parent_impurity + ROUNDING_TOLERANCE * stats_model.magnitude(node_stats)


def _segments(entry_node):
    """Start index of each node's run of entries, and each entry's run number."""
    is_start = np.empty(entry_node.size, dtype=bool)
    is_start[0] = True
    np.not_equal(entry_node[1:], entry_node[:-1], out=is_start[1:])
    # Method calls: these run once per level, where numpy's wrappers cost more than the work.
    starts = is_start.nonzero()[0]
    run = is_start.cumsum()
    run -= 1
    return starts, run


def _best_ordered_cut(
    stats_model,
    entry_node,
    entry_stats,
    node_stats,
    parent_impurity,
    rules,
    cut_deviation=None,
    missing_stats=None,
    tolerance=None,
):
    """Score every cut between consecutive entries of a node; return the best per node.

    Returns the gain of each node's best cut (``-inf`` if none) and the index
    of the last entry on the left of that cut (-1 if none). Ties go to the
    first cut, i.e. the smallest threshold.

    With ``missing_stats`` (per node, the rows whose value is missing), the
    entries and ``node_stats`` cover the known rows only, every cut is scored
    twice -- missing rows on the right, then on the left -- and the better
    direction is kept (the learned default direction, :eq:`eq-default-direction`,
    chapter 6). The cut after a node's last entry is then a candidate too:
    known rows left, missing rows right. Ties follow scikit-learn's search
    order: every "missing right" cut comes before every "missing left" one,
    so "missing left" wins only if it is strictly (beyond rounding) better.
    A third array is returned: whether each node's best cut sends missing
    values left. ``tolerance``: :func:`tie_tolerance` of the nodes, when the
    caller has it.
    """
    n_nodes = node_stats.shape[0]
    best_gain = filled(n_nodes, NEG_INF)
    best_entry = filled(n_nodes, -1, dtype=np.intp)
    if entry_node.size < 2 and (missing_stats is None or entry_node.size == 0):
        if missing_stats is None:
            return best_gain, best_entry
        return best_gain, best_entry, np.ones(n_nodes, dtype=bool)
    starts, run = _segments(entry_node)
    # Column by column, so every array below is contiguous: left = prefix sums
    # within the node's run, right = node total - left.
    left, right = [], []
    # The count column (0) only serves min_samples_leaf: with a minimum of one
    # row, every cut inside a node's run leaves a row on each side.
    skip_count = rules.min_samples_leaf <= 1 and missing_stats is None
    whole = getattr(stats_model, "whole_columns", ())
    for c in range(entry_stats.shape[1]):
        if c == 0 and skip_count:
            left.append(None)
            right.append(None)
            continue
        prefix_sums = _whole_prefix_sums if c in whole else _run_prefix_sums
        left_c = prefix_sums(entry_stats[:, c], starts, run)
        left.append(left_c)
        right.append(node_stats[entry_node, c] - left_c)
    last_of_run = np.zeros(entry_node.size, dtype=bool)  # the next entry starts a run
    last_of_run[starts[1:] - 1] = True
    last_of_run[-1] = True
    w_total = stats_model.weight(node_stats)[entry_node]
    # Gains within rounding noise of the best are ties.
    if tolerance is None:
        tolerance = tie_tolerance(stats_model, node_stats, parent_impurity)
    tolerance = tolerance[entry_node]
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
            if not to_left:  # also "known rows left, missing rows right" (scikit-learn, XGBoost)
                anywhere = np.zeros_like(last_of_run)
                ok |= last_of_run & _valid_cuts(stats_model, side_l, side_r, anywhere, rules)
            children = stats_model.weighted_impurity(side_l) + stats_model.weighted_impurity(side_r)
            gain = parent_impurity[entry_node] - children / safe_total
            gain[~ok] = NEG_INF
            direction_gain.append(gain)
        gain_left, gain = direction_gain
        # scikit-learn's order: the "missing right" cuts are searched first and
        # keep the node unless a "missing left" cut is better beyond the tolerance.
        best_right = np.maximum.reduceat(gain, starts)[run]
        best_left = np.maximum.reduceat(gain_left, starts)[run]
        node_missing_left = best_left > best_right + tolerance
        cut_missing_left = node_missing_left
        gain = np.where(node_missing_left, gain_left, gain)
        valid = np.isfinite(gain)
    run_max = np.maximum.reduceat(gain, starts)
    position = np.arange(gain.size)
    # Ties: the first cut, i.e. the smallest threshold.
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


def _whole_prefix_sums(column: np.ndarray, starts: np.ndarray, run: np.ndarray) -> np.ndarray:
    """:func:`_run_prefix_sums` of whole numbers (counts): one plain cumulative sum.

    Every partial sum of whole numbers below ``2**53`` is exact, so the sum
    before each run can be subtracted without the rounding that
    :func:`_run_prefix_sums` guards against: the same floats, fewer calls.
    """
    cumulative = np.cumsum(column)
    return cumulative - (cumulative[starts] - column[starts])[run]


def _valid_cuts(stats_model, left, right, last_of_run, rules):
    """Cuts that leave both children big enough (a cut after a node's last entry is none)."""
    valid = ~last_of_run
    if left[0] is not None:  # counts are left out only where the check cannot fail
        valid &= (left[0] >= rules.min_samples_leaf) & (right[0] >= rules.min_samples_leaf)
    if rules.min_cases > 1:  # C4.5's MINOBJS counts weight, so fractional cases count too
        weight = stats_model.weight_of_columns
        valid &= (weight(left) >= rules.min_cases) & (weight(right) >= rules.min_cases)
    if rules.min_weight_leaf > 0:
        weight = stats_model.weight_of_columns
        valid &= (weight(left) >= rules.min_weight_leaf) & (weight(right) >= rules.min_weight_leaf)
    return valid


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
    """Threshold between two codes; in exact mode ``a <= t < b`` (see ``mltrees._midpoint``)."""
    return spec.threshold(left_code, right_code)


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
