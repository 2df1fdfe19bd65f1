r"""XGBoost's CPU quantile sketch, rule for rule: the cuts of ``hist`` and ``approx`` (chapter 13).

:mod:`mltrees.hist.xgboost.quantile_summary` builds the weighted quantile summaries of the
paper's appendix; this module follows, operation by operation and in
float32, the summary XGBoost 3.2 builds on the CPU for ``tree_method="hist"``
(``src/common/quantile.h``: ``WQSummary``, ``QuantileSketchTemplate``;
``src/common/quantile.cc``: ``HostSketchContainer``, ``AllReduce``,
``MakeCuts``, ``AddCutPoint``), so that the cuts of a feature are XGBoost's
bit for bit. The rules, for a column of ``m`` non-missing values and
``max_bin`` bins:

* ``n_bins = min(max_bin, m)``, ``eps = 1 / (8 n_bins)``, and the summary
  size ``limit = min(m, ceil(L / eps) + 1)`` with the smallest ``L`` such that
  ``2^L limit >= m`` (``LimitSizeLevel``): at 256 bins, 2049 for up to 4098
  values, 4097 up to 16388, 14337 for a million (``xgboost_limit_size``).
* Rows are read in order; a run of equal consecutive values is one entry,
  rows of weight 0 are skipped. Every ``2 limit`` entries are sorted into an
  exact summary (``MakeSummary``: ranks ``r^-``, ``r^+`` and weights ``ω``
  summed in float32), which climbs levels like a binary counter: it is
  pruned to ``limit`` values (``SetPrune``) and merged (``SetCombine``) with
  the summary waiting at the level, until a merge fits in ``limit``
  (``PushTemp``). The last entries and the levels are then merged and pruned
  into one summary (``GetSummary``).
* That summary is pruned to ``min(m, 8 max_bin)`` values, then to
  ``min(m, 8 max_bin, max_bin) + 1`` (``AllReduce``, ``MakeCuts``); its values
  after the first, at most ``n_bins - 1`` of them, increasing, are the cuts
  (``AddCutPoint``), followed by the upper sentinel ``v + (|v| + 1e-5)`` of
  the largest value ``v``. The lower bound is ``v₀ - |v₀| - 1e-5`` of the
  smallest.

Up to ``2 limit`` non-missing values (one block: 8194 at 256 bins) nothing is
pruned before the last steps, which keep every value when there are at most
``max_bin + 1`` distinct ones, and with unit weights the cuts do not depend
on the row order; beyond, the float32 prunes can (no randomness). With unit
weights they do not when the column has at most ``limit`` distinct values and
at most 2**24 rows: a prune of at most ``limit`` entries keeps them all and the
merges of exact summaries are exact while the float32 ranks are exact
integers. With sample weights, or more rows, the float32 rank sums depend
on the order of the additions, so that exactness is not guaranteed. Prune
keeps, for ``k = 1 .. s - 2``, the entry whose
rank interval is nearest ``r_k = k (r^-_{last} - r^+_{first}) / (s - 1) +
r^+_{first}`` (the query function of Definition A.5 on the summary's ranks),
with the first and last entries.

The sorted, hessian-weighted sketch of ``approx`` (``SortedSketchContainer``)
is :func:`xgboost_approx_cuts`; the row-order rules above are
:func:`xgboost_cuts`, which ``approx`` also uses, weighted by hessian times
sample weight, when the hessian is constant.

Scope: one batch of rows on one machine, as ``xgboost.DMatrix`` and
``QuantileDMatrix`` build it on the CPU. Several batches (iterators,
external memory), distributed training (summaries merged across workers)
and GPU sketching are other rules. The one
approximation: where several equal values of one block carry weights other
than 1, their float32 weight sum is added here by increasing weight, while
XGBoost adds them in the order its ``std::sort`` leaves them (unspecified),
which can move a rank by a few units in the last place and, rarely, a cut
to a neighbouring value.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

__all__ = ["XGBoostSummary", "xgboost_approx_cuts", "xgboost_cuts", "xgboost_limit_size"]

F32 = np.float32
SKETCH_FACTOR = 8  # WQSketch::kFactor: the sketch keeps 8 entries per bin
_CUT_GAP = F32(1e-5)  # the 1e-5f of the sentinels
_SHORT_SEGMENT = 32  # segments up to this length are summed position by position


@dataclass(frozen=True)
class XGBoostSummary:
    r"""A ``WQSummary<float, float>``: values and float32 rank bounds.

    ``rmin``, ``rmax`` and ``wmin`` are :math:`\tilde r^-`, :math:`\tilde r^+`
    and :math:`\tilde\omega` of
    :class:`~mltrees.hist.xgboost.quantile_summary.WeightedQuantileSummary`, in
    float32 as XGBoost keeps them.
    """

    value: np.ndarray
    rmin: np.ndarray
    rmax: np.ndarray
    wmin: np.ndarray

    @property
    def size(self) -> int:
        """Number of entries."""
        return int(self.value.size)

    @classmethod
    def empty(cls) -> XGBoostSummary:
        """No entry."""
        return cls(*(np.empty(0, dtype=F32) for _ in range(4)))

    @classmethod
    def exact(cls, values: np.ndarray, weights: np.ndarray) -> XGBoostSummary:
        """``Queue::MakeSummary`` of one block: see :func:`_block_summaries`."""
        return _block_summaries(values, weights, max(values.size, 1))[0]

    def take(self, index: np.ndarray) -> XGBoostSummary:
        """The entries at ``index``."""
        return XGBoostSummary(
            self.value[index], self.rmin[index], self.rmax[index], self.wmin[index]
        )

    def prune(self, maxsize: int) -> XGBoostSummary:
        """``WQSummary::SetPrune``: at most ``maxsize`` entries, the first and the last kept.

        For ``k = 1 .. maxsize - 2`` the target ``d = k range / n + begin``
        (``begin = r^+`` of the first entry, ``range = r^-`` of the last minus
        it, ``n = maxsize - 1``; float32) picks entry ``i`` with
        ``r^-_i + r^+_i <= 2d < r^-_{i+1} + r^+_{i+1}``, or ``i + 1`` when
        ``2d >= r^-_i + ω_i + r^+_{i+1} - ω_{i+1}``; the scan stops when ``i``
        reaches the last entry.
        """
        size = self.size
        if size <= maxsize:
            return self
        begin = self.rmax[0]
        span = F32(self.rmin[-1] - begin)
        n = maxsize - 1
        k = np.arange(1, n, dtype=F32)
        dx2 = F32(2.0) * ((k * span) / F32(n) + begin)
        mid2 = self.rmax + self.rmin  # 2 x the middle of each rank interval
        # The scan's i only moves forward: past every entry j >= 2 with mid2[j] <= 2d.
        i = 1 + _count_at_most(mid2[2:], dx2)
        stop = np.searchsorted(i, size - 1, side="left")  # i reaching the last entry ends it
        i, dx2 = i[:stop], dx2[:stop]
        rmin_next = self.rmin + self.wmin
        rmax_prev = self.rmax - self.wmin
        chosen = np.where(dx2 < rmin_next[i] + rmax_prev[i + 1], i, i + 1)
        if chosen.size:
            chosen = chosen[np.concatenate(([True], chosen[1:] != chosen[:-1]))]
        keep = np.concatenate(([0], chosen))
        if keep[-1] != size - 1:
            keep = np.append(keep, size - 1)
        return self.take(keep)

    def combine(self, other: XGBoostSummary) -> XGBoostSummary:
        """``WQSummary::SetCombine``: the summary of both data sets, then ``FixError``.

        An entry of one summary whose value the other lacks adds the other's
        ``r^- + ω`` of its last smaller entry (0 if none) to its ``r^-`` and the
        other's ``r^+ - ω`` of its first larger entry (its last ``r^+`` if
        none) to its ``r^+``; equal values add their bounds. ``FixError``
        then makes ``r^-`` and ``r^+`` non-decreasing and ``r^+ >= r^- + ω``.
        """
        if self.size == 0:
            return other
        if other.size == 0:
            return self
        a, b = self, other
        # Two sorted runs of distinct values: a stable sort merges them, a's copy of a
        # value shared with b first.
        order = np.argsort(np.concatenate((a.value, b.value)), kind="stable")
        from_a = order < a.size
        index = np.where(from_a, order, order - a.size)
        value = np.concatenate((a.value, b.value))[order]
        # How many entries of the other summary come before each merged position.
        a_before = np.cumsum(from_a) - from_a
        b_before = np.cumsum(~from_a) - ~from_a
        paired = np.zeros(order.size, dtype=bool)
        paired[:-1] = value[1:] == value[:-1]  # an a entry followed by b's equal value
        partner = np.flatnonzero(paired)

        def bounds(s, t, mine, others_before):
            # Entries of s merged with t, at positions `mine`: t's neighbours extend them.
            j, before = index[mine], others_before[mine]
            t_next = t.rmin + t.wmin
            t_prev = t.rmax - t.wmin
            low = np.where(before > 0, t_next[np.maximum(before - 1, 0)], F32(0.0))
            high = np.where(before < t.size, t_prev[np.minimum(before, t.size - 1)], t.rmax[-1])
            return s.rmin[j] + low, s.rmax[j] + high, s.wmin[j]

        rmin = np.empty(order.size, dtype=F32)
        rmax = np.empty(order.size, dtype=F32)
        wmin = np.empty(order.size, dtype=F32)
        for s, t, mine, others_before in (
            (a, b, from_a, b_before),
            (b, a, ~from_a, a_before),
        ):
            rmin[mine], rmax[mine], wmin[mine] = bounds(s, t, mine, others_before)
        if partner.size:  # equal values: their bounds add up
            ia, ib = index[partner], index[partner + 1]
            rmin[partner] = a.rmin[ia] + b.rmin[ib]
            rmax[partner] = a.rmax[ia] + b.rmax[ib]
            wmin[partner] = a.wmin[ia] + b.wmin[ib]
            keep = np.ones(order.size, dtype=bool)
            keep[partner + 1] = False
            value, rmin, rmax, wmin = value[keep], rmin[keep], rmax[keep], wmin[keep]
        rmin = np.maximum.accumulate(rmin)
        rmax = np.maximum.accumulate(np.maximum(rmax, rmin + wmin))
        return XGBoostSummary(value, rmin, rmax, wmin)


def _count_at_most(sorted_values: np.ndarray, needles: np.ndarray) -> np.ndarray:
    """For increasing ``needles``: how many of ``sorted_values`` are <= each (a merge)."""
    merged = np.argsort(np.concatenate((sorted_values, needles)), kind="stable")
    is_value = merged < sorted_values.size
    return np.cumsum(is_value)[~is_value]


def _ordered_bits(values: np.ndarray) -> np.ndarray:
    """Unsigned integers that order as the float32 ``values`` (-0.0 as 0.0)."""
    bits = (values + F32(0.0)).view(np.uint32)
    return np.where(bits >> 31 == 1, ~bits, bits | np.uint32(1 << 31))


def _from_ordered_bits(keys: np.ndarray) -> np.ndarray:
    """The float32 values of :func:`_ordered_bits`."""
    bits = np.where(keys >> 31 == 1, keys ^ np.uint32(1 << 31), ~keys).astype(np.uint32)
    return bits.view(F32)


def _block_summaries(values: np.ndarray, weights: np.ndarray, capacity: int) -> list:
    """``Queue::MakeSummary`` of every block of ``capacity`` entries, all at once.

    A block is sorted; equal values become one entry whose weight ``ω`` is
    their float32 sum, added one by one (by increasing weight here: XGBoost's
    ``std::sort`` leaves equal values in an unspecified order, the one
    approximation of this module), ``r^+`` is the float32 running sum of
    the ``ω`` and ``r^-`` the previous one. The blocks are sorted together as
    rows of one array of 64-bit keys (the value's ordered bits, then the
    weight's bits).
    """
    n_blocks = -(-values.size // capacity)
    padding = n_blocks * capacity - values.size
    key = _ordered_bits(values).astype(np.uint64) << np.uint64(32)
    key |= weights.astype(F32).view(np.uint32).astype(np.uint64)
    if padding:
        key = np.concatenate((key, np.full(padding, np.iinfo(np.uint64).max, np.uint64)))
    key = key.reshape(n_blocks, capacity)
    key.sort(axis=1)
    sizes = np.full(n_blocks, capacity)
    sizes[-1] -= padding
    high = (key >> np.uint64(32)).astype(np.uint32)
    w = (key & np.uint64(0xFFFFFFFF)).astype(np.uint32).view(F32)
    inside = np.arange(capacity)[None, :] < sizes[:, None]
    new = np.ones(key.shape, dtype=bool)
    new[:, 1:] = high[:, 1:] != high[:, :-1]
    new &= inside
    starts = np.flatnonzero(new.ravel())
    flat_w = np.where(inside, w, F32(0.0)).ravel()
    omega = _sequential_sums(flat_w, starts)  # MakeSummary's float32 w += ..., in sort order
    # The entries of each block side by side, padded with zeros: running sums by row.
    counts = new.sum(axis=1)
    rank = np.arange(starts.size) - np.repeat(np.cumsum(counts) - counts, counts)
    row = np.repeat(np.arange(n_blocks), counts)
    omega2d = np.zeros((n_blocks, int(counts.max())), dtype=F32)
    omega2d[row, rank] = omega
    rmax2d = np.cumsum(omega2d, axis=1, dtype=F32)
    rmax = rmax2d[row, rank]
    rmin = np.where(rank > 0, rmax2d[row, np.maximum(rank - 1, 0)], F32(0.0))
    value = _from_ordered_bits(high.ravel()[starts])
    bounds = np.cumsum(counts)
    return [
        XGBoostSummary(value[a:b], rmin[a:b], rmax[a:b], omega[a:b])
        for a, b in zip(bounds - counts, bounds, strict=True)
    ]


def xgboost_limit_size(n_values: int, max_bin: int) -> int:
    """The size ``limit`` of ``hist``'s summaries, XGBoost 3.2's ``LimitSizeLevel``.

    ``limit = min(n, ceil(L / eps) + 1)`` for the smallest ``L >= 1`` with
    ``2^L limit >= n``, where ``eps = 1 / (8 min(max_bin, n))`` (in float64 as
    XGBoost). Blocks of ``2 limit`` entries are summarised exactly; the
    prunes (:eq:`eq-xgb-sketch-prune`) keep ``limit`` entries.

    Parameters
    ----------
    n_values : int
        The column's number of non-missing values (at least 0).
    max_bin : int
        XGBoost's ``max_bin`` (at least 1).

    Returns
    -------
    int
        ``limit``: at 256 bins, ``n`` below 2049 values, 2049 up to 4098,
        4097 up to 16388, 14337 for a million.
    """
    if isinstance(n_values, bool) or not isinstance(n_values, (int, np.integer)) or n_values < 0:
        raise ValueError(f"n_values must be a non-negative integer, got {n_values!r}")
    if isinstance(max_bin, bool) or not isinstance(max_bin, (int, np.integer)) or max_bin < 1:
        raise ValueError(f"max_bin must be a positive integer, got {max_bin!r}")
    n_bins = max(min(max_bin, n_values), 1)
    return _limit_size(n_values, 1.0 / float(F32(n_bins) * F32(SKETCH_FACTOR)))


def _limit_size(n_values: int, eps: float) -> int:
    """``LimitSizeLevel``: the smallest level L with 2^L min(n, ceil(L / eps) + 1) >= n."""
    level = 1
    while True:
        limit = min(n_values, math.ceil(level / eps) + 1)
        if (1 << level) * limit >= n_values:
            return limit
        level += 1


def _wxq_prune(src: XGBoostSummary, maxsize: int) -> XGBoostSummary:
    """``WXQSummary::SetPrune``: keep every heavy entry, then space the rest evenly.

    An entry is heavy when its weight exceeds ``chunk = 2 range / (maxsize - 2)``
    (``r^- + ω > r^+ - ω + chunk``); the others are chosen between the heavy
    ones as :meth:`XGBoostSummary.prune` chooses, over the range left once the
    heavy entries' weights are taken out. float32 throughout; a loop over the
    summary's entries (a few hundred at most).
    """
    size = src.size
    if size <= maxsize:
        return src
    rmin, rmax, wmin = (a.tolist() for a in (src.rmin, src.rmax, src.wmin))
    f = F32
    begin = f(rmax[0])
    n = maxsize - 2
    span = f(f(rmin[-1]) - begin)
    if span == 0 or maxsize <= 2:
        return src.take(np.array([0, size - 1]))
    span = max(span, f(1e-3))
    chunk = f(f(2) * span / f(n))
    next_low = [f(f(a) + f(b)) for a, b in zip(rmin, wmin, strict=True)]  # RMinNext
    prev_high = [f(f(a) - f(b)) for a, b in zip(rmax, wmin, strict=True)]  # RMaxPrev
    mids = [f(f(a) + f(b)) for a, b in zip(rmax, rmin, strict=True)]

    def heavy(i):
        return next_low[i] > f(prev_high[i] + chunk)

    rest, n_heavy, block = f(0), 0, 0
    for i in range(1, size - 1):
        if heavy(i):
            if block != i - 1:
                rest = f(rest + f(prev_high[i] - next_low[block]))
            block, n_heavy = i, n_heavy + 1
    if block != size - 2:
        rest = f(rest + f(prev_high[size - 1] - next_low[block]))
    keep, n = [0], n - n_heavy
    block, k, last = 0, 1, 0
    for end in range(1, size):
        if end == size - 1 or heavy(end):
            if block != end - 1:
                i = block
                top = f(prev_high[end] * f(2))
                while k < n:
                    dx2 = f(f(2) * f(f(f(k) * rest) / f(n) + begin))
                    if dx2 >= top:
                        break
                    while i < end and dx2 >= mids[i + 1]:
                        i += 1
                    if i == end:
                        break
                    pick = i if dx2 < f(next_low[i] + prev_high[i + 1]) else i + 1
                    if pick != last:
                        keep.append(pick)
                        last = pick
                    k += 1
            if last != end:
                keep.append(end)
                last = end
            block = end
            begin = f(begin + f(next_low[block] - prev_high[block]))
    return src.take(np.array(keep))


def _push_temp(levels: list, temp: XGBoostSummary, limit: int) -> None:
    """``PushTemp``: carry a block's summary up the levels, as a binary counter."""
    level = 1
    while True:
        while len(levels) <= level:
            levels.append(None)
        if levels[level] is None:
            levels[level] = temp.prune(limit)
            return
        temp = temp.prune(limit).combine(levels[level])
        if temp.size > limit:
            levels[level] = None
            level += 1
        else:
            levels[level] = temp
            return


def _sequential_sums(weights: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """float32 sums of the segments beginning at ``starts``, each added left to right.

    ``Queue::Push`` and ``MakeSummary`` add weights one by one in float32
    (``w += ...``). Short segments are added position by position, vectorised
    over the segments; each long one by a float32 ``cumsum`` (sequential).
    """
    weights = np.asarray(weights, dtype=F32)
    if starts.size == weights.size:
        return weights
    lengths = np.diff(np.append(starts, weights.size))
    sums = weights[starts].copy()
    short = lengths <= _SHORT_SEGMENT
    for k in range(1, int(lengths[short].max(initial=1))):
        longer = short & (lengths > k)
        sums[longer] += weights[starts[longer] + k]
    for i in np.flatnonzero(~short):
        sums[i] = np.cumsum(weights[starts[i] : starts[i] + lengths[i]], dtype=F32)[-1]
    return sums


def _final_summary(values: np.ndarray, weights: np.ndarray, limit: int) -> XGBoostSummary:
    """``Push`` of every row, then ``GetSummary``."""
    if values.size == 0:
        return XGBoostSummary.empty()
    # Runs of equal consecutive values are one queue entry each.
    run_starts = np.flatnonzero(np.concatenate(([True], values[1:] != values[:-1])))
    run_values = values[run_starts]
    run_weights = _sequential_sums(weights, run_starts)
    capacity = 2 * limit
    # The queue is summarised when full and a new value arrives: the last block stays.
    blocks = _block_summaries(run_values, run_weights, capacity)
    levels: list = []
    for block in blocks[:-1]:
        _push_temp(levels, block, limit)
    out = blocks[-1]
    if not levels:
        return out.prune(limit)
    merged = out.prune(limit)
    for summary in levels[1:]:
        if summary is None:
            continue
        merged = summary if merged.size == 0 else merged.combine(summary).prune(limit)
    return merged


def xgboost_cuts(values, max_bin: int, weights=None) -> tuple[np.ndarray, np.float32]:
    """XGBoost 3.2's ``hist`` cuts of one feature, and its lower bound.

    Parameters
    ----------
    values : ndarray, shape (n,)
        The feature's training values in row order (cast to float32); NaN
        is missing.
    max_bin : int
        XGBoost's ``max_bin`` (at least 2).
    weights : ndarray, shape (n,), optional
        Sample weights (cast to float32); rows of weight 0 count in the
        column's size but not in the summary. None: unit weights.

    Returns
    -------
    cuts : ndarray of float32
        The bins' exclusive upper bounds, the upper sentinel last (at least
        one entry): ``HistogramCuts::Values()`` of the feature.
    minimum : float32
        ``HistogramCuts::MinValues()``: ``v₀ - |v₀| - 1e-5`` of the smallest
        summarised value ``v₀`` (``1e-5`` for a feature without values).
    """
    values = np.asarray(values, dtype=F32)
    known = ~np.isnan(values)
    n_values = int(np.count_nonzero(known))
    if n_values == 0:
        minimum = _CUT_GAP
        return np.array([F32(minimum + (abs(minimum) + _CUT_GAP))], dtype=F32), minimum
    w = np.ones(values.size, dtype=F32) if weights is None else np.asarray(weights).astype(F32)
    pushed = known & (w != 0)
    limit = xgboost_limit_size(n_values, max_bin)
    summary = _final_summary(values[pushed], w[pushed], limit)
    n_cuts = min(n_values, max_bin * SKETCH_FACTOR)  # AllReduce's intermediate size
    summary = summary.prune(n_cuts)
    n_bins = min(n_cuts, max_bin)
    summary = summary.prune(n_bins + 1)
    if summary.size:
        smallest = summary.value[0]
        minimum = F32(float(smallest) - abs(float(smallest)) - float(_CUT_GAP))
        inner = summary.value[1 : min(summary.size, n_bins)]
        # AddCutPoint keeps a value only above the previous one (they are increasing).
        largest = summary.value[-1]
    else:  # every value has weight 0: XGBoost reads an empty summary as 0
        minimum = F32(-_CUT_GAP)
        inner = np.empty(0, dtype=F32)
        largest = minimum
    sentinel = F32(float(largest) + (abs(float(largest)) + float(_CUT_GAP)))
    return np.concatenate([inner, [sentinel]]).astype(F32), minimum


def xgboost_approx_cuts(values, max_bin: int, weights) -> tuple[np.ndarray, np.float32]:
    """XGBoost 3.2's ``approx`` cuts of one feature, and its lower bound.

    ``approx`` sketches each sorted column (``SortedSketchContainer``,
    ``SortedQuantile`` in ``src/common/quantile.h``): with ``S`` the column's
    total weight and ``R_j`` the running weight through its ``j``-th distinct
    value (float64 sums in value order), the smallest value is kept, then
    greedily, for ``k = 1, 2, ...``, the first later value whose ``R_j``
    reaches the float32 goal ``k S / max_bin``, at most ``max_bin`` of them,
    and the largest value last. On one batch no prune follows, and the cuts
    are that summary's values after the first (at most ``min(n, max_bin) - 1``),
    with the sentinels of :func:`xgboost_cuts`. Values of weight 0 count as values.

    Parameters
    ----------
    values : ndarray, shape (n,)
        The feature's training values (cast to float32); NaN is missing.
    max_bin : int
        XGBoost's ``max_bin``.
    weights : ndarray, shape (n,)
        The sketch's weights: XGBoost passes each row's hessian (which
        already carries the sample weight) times the sample weight.
    """
    values = np.asarray(values, dtype=F32)
    known = ~np.isnan(values)
    n_values = int(np.count_nonzero(known))
    if n_values == 0:
        minimum = _CUT_GAP
        return np.array([F32(minimum + (abs(minimum) + _CUT_GAP))], dtype=F32), minimum
    order = np.argsort(values[known], kind="stable")
    v = values[known][order]
    w = np.asarray(weights)[known][order].astype(F32).astype(np.float64)
    running = np.cumsum(w)  # float64, in value order, as SortedQuantile adds them
    total = float(running[-1])
    ends = np.flatnonzero(np.concatenate((v[1:] != v[:-1], [True])))
    distinct, through = v[ends], running[ends]
    m = distinct.size
    k = np.arange(1, max_bin)
    goal = (k * total / max_bin).astype(F32).astype(np.float64)
    first_reaching = np.searchsorted(through[: m - 1], goal, side="left")
    # The k-th kept value is the first after the previous one that reaches goal k.
    kept = np.concatenate(([0], k + np.maximum.accumulate(np.maximum(first_reaching - k, 0))))
    kept = kept[kept <= m - 2]
    kept = np.append(kept, m - 1)
    before = np.concatenate(([0.0], through[:-1]))
    omega = np.diff(np.concatenate(([0.0], through)))
    summary = XGBoostSummary(
        distinct[kept],
        before[kept].astype(F32),
        through[kept].astype(F32),
        omega[kept].astype(F32),
    )
    # PushTemp puts the summary at level 1, pruned (WXQSummary) to the sketch's size for
    # eps = 2 / max_bin; the later prunes keep it whole.
    limit = _limit_size(n_values, 2.0 / max_bin)
    summary = _wxq_prune(summary, limit).value
    n_bins = min(n_values, max_bin * SKETCH_FACTOR, max_bin)
    smallest = summary[0]
    minimum = F32(float(smallest) - abs(float(smallest)) - float(_CUT_GAP))
    inner = summary[1 : min(summary.size, n_bins)]
    largest = summary[-1]
    sentinel = F32(float(largest) + (abs(float(largest)) + float(_CUT_GAP)))
    return np.concatenate([inner, [sentinel]]).astype(F32), minimum
