"""LightGBM's bins: bounds between distinct values, zero in a bin of its own (chapter 14).

LightGBM (Ke et al. 2017) compares data in float64 and writes a split as
``x <= t``. The bins of a feature are given by their *upper bounds*: bin
``b`` holds ``bounds[b-1] < x <= bounds[b]``, and ``bounds[-1] = +inf``. Its
rules, read from ``BinMapper::FindBin`` and reproduced here:

* a bound between two neighbouring distinct values ``a < c`` is the float64
  just above their midpoint, ``nextafter((a + c) / 2, +inf)``;
* with at most ``max_bin`` distinct values, neighbours are merged until a bin
  holds ``min_data_in_bin`` rows; with more, bins of about equal counts are
  formed, a value holding a bin's share of the rows on its own keeping its
  own bin (LightGBM's greedy pass, here in vectorised form);
* zero always has a bin of its own, ``(-1e-35, 1e-35]``: negative and
  positive values are binned separately, with bounds ``-1e-35`` and
  ``1e-35`` around zero, so a gap that contains 0 is cut at ``±1e-35``, not
  at its midpoint;
* a feature with a missing value (NaN) in training gets one more bin for
  it, the last (LightGBM's ``missing_type = NaN``); a feature without one
  has no missing bin, and at prediction a NaN is read as 0 (``None``).

Bins are found on at most ``subsample_for_bin`` rows, as LightGBM does.
"""

from __future__ import annotations

import bisect
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from mltrees._search import count_below
from mltrees.hist.binning import BinnedData
from mltrees.hist.lightgbm.bundling import lightgbm_bundles
from mltrees.hist.lightgbm.categorical import encode_categories

__all__ = [
    "ZERO_THRESHOLD",
    "bin_counts",
    "bin_upper_bounds",
    "encode_lightgbm_column",
    "fit_lightgbm_bins",
    "lightgbm_feature_bundles",
    "most_frequent_bins_of_counts",
    "used_features",
    "used_features_of_counts",
    "zero_bins",
]

ZERO_THRESHOLD = float(np.float32(1e-35))  # LightGBM's kZeroThreshold (a float literal)
SPARSE_THRESHOLD = 0.7  # LightGBM's kSparseThreshold


def _midpoint_bounds(values: np.ndarray, after: np.ndarray) -> np.ndarray:
    """``nextafter((v[i] + v[i+1]) / 2, +inf)`` for every ``i`` in ``after``."""
    return np.nextafter((values[after] + values[after + 1]) / 2.0, np.inf)


def _greedy_bounds(values: np.ndarray, counts: np.ndarray, max_bin: int, min_data_in_bin: int):
    """Bounds of at most ``max_bin`` bins over sorted distinct ``values`` with ``counts``.

    LightGBM's ``GreedyFindBin``: with few values every value is a bin
    (merged until bins hold ``min_data_in_bin`` rows); with many, equal-count
    bins in which a value heavy enough to fill a bin alone keeps its own.
    The last bound is ``+inf``.
    """
    n = values.size
    if n == 0:
        return np.array([np.inf])
    if n <= max_bin:
        if min_data_in_bin <= 1:
            inner = _midpoint_bounds(values, np.arange(n - 1))
        else:
            inner = _merged_bounds(values, counts, min_data_in_bin)
        return np.concatenate([np.unique(inner), [np.inf]])
    return _greedy_many(values, counts, max_bin, min_data_in_bin)


def _merged_bounds(values: np.ndarray, counts: np.ndarray, min_data_in_bin: int) -> np.ndarray:
    """Bounds between few distinct ``values``, each bin holding ``min_data_in_bin`` rows.

    LightGBM walks the values, adding each one's count to the open bin, and
    closes the bin after a value once it holds ``min_data_in_bin`` rows, at
    the midpoint to the next value, unless that bound is within one ulp of
    the last one (then the bin stays open). The loop here runs over bins:
    a binary search in the running counts finds where the open bin fills.
    """
    bounds = _midpoint_bounds(values, np.arange(values.size - 1))
    above = np.nextafter(bounds, np.inf).tolist()
    running = [0, *np.cumsum(counts).tolist()]  # Python ints: a scalar search is cheaper
    inner = []
    opened = 0  # the open bin starts at value ``opened``
    i = 0
    while True:
        # The first value from i on after which the open bin holds enough rows.
        full = bisect.bisect_left(running, running[opened] + min_data_in_bin) - 1
        i = max(i, full)
        if i > values.size - 2:
            break
        if not inner or bounds[i] > above[inner[-1]]:
            inner.append(i)
            opened = i + 1
        i += 1
    return bounds[inner]


def _greedy_many(values, counts, max_bin: int, min_data_in_bin: int) -> np.ndarray:
    """LightGBM's greedy bins over more distinct values than ``max_bin``.

    Bins of about ``mean`` rows, where a value holding at least ``mean`` rows
    is a bin of its own, and a bin closes early (at half its size) before
    such a value; ``mean`` is re-estimated from what is left after each
    bin. LightGBM walks the values one by one; here each step jumps to the
    next cut with a binary search, so the loop runs over bins, not values.
    """
    n = values.size
    total = int(counts.sum())
    if min_data_in_bin > 0:
        max_bin = max(1, min(max_bin, total // min_data_in_bin))
    big = counts >= total / max_bin
    rest_bins = max_bin - int(np.count_nonzero(big))
    rest = float(total - counts[big].sum())
    # Python lists: the loop reads single entries and searches them (bisect),
    # which costs a fraction of NumPy's per-call overhead.
    big_at = np.flatnonzero(big).tolist()
    cum = [0.0, *np.cumsum(counts, dtype=np.float64).tolist()]
    ordinary = [0, *np.cumsum(np.where(big, 0, counts)).tolist()]
    is_big = big.tolist()
    mean = rest / rest_bins if rest_bins > 0 else np.inf
    closing = []  # the last value of each closed bin
    i = 0
    while i < n - 1:
        # First j >= i closing the bin i..j: j heavy, or the bin full, or
        # the next value heavy and the bin at least half full.
        k = bisect.bisect_left(big_at, i)
        heavy = big_at[k] if k < len(big_at) else n
        full = bisect.bisect_left(cum, cum[i] + mean) - 1
        j = min(heavy, max(full, i))
        k = bisect.bisect_left(big_at, i + 1)
        before_heavy = big_at[k] - 1 if k < len(big_at) else n
        if before_heavy < j and cum[before_heavy + 1] - cum[i] >= max(1.0, mean * 0.5):
            j = before_heavy
        if j > n - 2:
            break
        closing.append(j)
        if len(closing) >= max_bin - 1:
            break
        rest -= float(ordinary[j + 1] - ordinary[i])
        if not is_big[j]:
            rest_bins -= 1
            mean = rest / rest_bins if rest_bins > 0 else np.inf
        i = j + 1
    if not closing:
        return np.array([np.inf])
    closing = np.array(closing)
    upper, lower = values[closing], values[closing + 1]
    inner = np.nextafter((upper + lower) / 2.0, np.inf)
    keep = np.concatenate([[True], inner[1:] > np.nextafter(inner[:-1], np.inf)])
    return np.concatenate([inner[keep], [np.inf]])


def _distinct_values(known: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Sorted distinct values and their counts, values one ulp apart counted as one.

    LightGBM's ``FindBin`` walks the sorted values and starts a new distinct
    value only when one exceeds the float64 just above the previous value
    (``CheckDoubleEqualOrdered``); a run of neighbours is one value, the
    largest of the run. ``0.1 + 0.2`` and ``0.3`` are one value there.
    """
    distinct, counts = np.unique(known, return_counts=True)
    if distinct.size < 2:
        return distinct, counts
    starts = np.concatenate([[True], distinct[1:] > np.nextafter(distinct[:-1], np.inf)])
    if starts.all():
        return distinct, counts
    run = np.cumsum(starts) - 1
    last = np.concatenate([np.flatnonzero(starts)[1:] - 1, [distinct.size - 1]])
    return distinct[last], np.bincount(run, weights=counts).astype(counts.dtype)


def bin_upper_bounds(
    values: np.ndarray, max_bin: int = 255, min_data_in_bin: int = 3
) -> tuple[np.ndarray, bool]:
    """The upper bounds of one feature's bins, and whether it has a missing bin.

    Implements LightGBM's ``FindBinWithZeroAsOneBin``: negative values get
    their share of the bins, zero one bin ``(-1e-35, 1e-35]``, positive
    values the rest. With missing values one bin is kept for them.

    Parameters
    ----------
    values : ndarray of float64
        One feature's training values (NaN: missing).
    max_bin : int
        At most this many bins, the missing bin included.
    min_data_in_bin : int
        Fewest rows per bin when neighbouring values are merged.

    Returns
    -------
    bounds : ndarray of float64
        Increasing; the last is ``+inf``. Value bins only.
    has_missing : bool
    """
    known = values[~np.isnan(values)]
    has_missing = known.size < values.size
    if has_missing:
        max_bin -= 1
    distinct, counts = _distinct_values(known)
    total = int(counts.sum())
    negative = distinct <= -ZERO_THRESHOLD
    positive = distinct > ZERO_THRESHOLD
    zeros = int(counts[~negative & ~positive].sum())
    bounds = []
    if negative.any() and max_bin > 1:
        share = int(counts[negative].sum() / max(total - zeros, 1) * (max_bin - 1))
        left = _greedy_bounds(distinct[negative], counts[negative], max(1, share), min_data_in_bin)
        left[-1] = -ZERO_THRESHOLD
        bounds.append(left)
    used = sum(b.size for b in bounds)
    if positive.any() and max_bin - 1 - used > 0:
        right = _greedy_bounds(
            distinct[positive], counts[positive], max_bin - 1 - used, min_data_in_bin
        )
        bounds.append(np.array([ZERO_THRESHOLD]))
        bounds.append(right)
    else:
        bounds.append(np.array([np.inf]))
    return np.concatenate(bounds), has_missing


def fit_lightgbm_bins(
    X: np.ndarray,
    max_bin: int = 255,
    min_data_in_bin: int = 3,
    subsample_for_bin: int = 200_000,
    rng: np.random.Generator | None = None,
    n_threads: int = 1,
    categories: dict | None = None,
) -> tuple[BinnedData, np.ndarray, np.ndarray]:
    """Bin every column of float64 ``X`` as LightGBM does.

    Returns the binned data (its ``edges`` are the bounds without ``+inf``,
    so ``x <= edges[j][b]`` exactly when the code is at most ``b``), which
    features have a missing bin, and each feature's most frequent bin
    (LightGBM's choice, see :func:`_most_frequent_bins`). Bounds are found on ``subsample_for_bin``
    rows drawn with ``rng`` when there are more. ``categories`` maps a
    categorical feature to its categories in bin order
    (:func:`~mltrees.hist.lightgbm.categorical.category_bins`): its codes are category
    bins, bin 0 for missing and rare values, and it has no edges.
    """
    categories = categories or {}
    n = X.shape[0]
    sample = X
    if n > subsample_for_bin:
        rng = np.random.default_rng(0) if rng is None else rng
        sample = X[np.sort(rng.choice(n, size=subsample_for_bin, replace=False))]
    with ThreadPoolExecutor(max(1, n_threads)) as pool:
        found = list(
            pool.map(
                lambda j: (
                    (np.array([np.inf] * (len(categories[j]) + 1)), False)
                    if j in categories
                    else bin_upper_bounds(sample[:, j], max_bin, min_data_in_bin)
                ),
                range(X.shape[1]),
            )
        )
        bounds = [b for b, _ in found]
        has_missing = np.array([m for _, m in found], dtype=bool)
        # A missing value met only outside the sample still needs its bin.
        if n > subsample_for_bin:
            has_missing |= np.isnan(X).any(axis=0)
        for j in categories:
            has_missing[j] = False
        missing_code = max(b.size for b in bounds) if bounds else 1
        dtype = np.uint8 if missing_code < 256 else np.uint16
        codes = np.empty((X.shape[1], n), dtype=dtype)

        def encode_column(j):
            column = np.ascontiguousarray(X[:, j])
            if j in categories:
                codes[j] = encode_categories(column, categories[j])
                return
            codes[j] = encode_lightgbm_column(column, bounds[j][:-1], missing_code, dtype)

        list(pool.map(encode_column, range(X.shape[1])))
    cuts = [np.full(b.size, np.nan, dtype=np.float32) for b in bounds]  # sizes only
    binned = BinnedData(
        codes=codes,
        cuts=cuts,
        minimum=np.zeros(X.shape[1], dtype=np.float32),
        missing_code=missing_code,
        edges=[b[:-1] for b in bounds],
    )
    return binned, has_missing, _most_frequent_bins(binned, categories)


def encode_lightgbm_column(column, edges, missing_code: int, dtype) -> np.ndarray:
    """Codes of one numeric column: bins ``x <= edges[b]`` counted, NaN in the missing bin."""
    code = count_below(edges, column).astype(dtype)
    code[np.isnan(column)] = missing_code
    return code


def bin_counts(binned: BinnedData) -> np.ndarray:
    """Rows in every (feature, code), shape (n_features, stride): what the rules below read.

    Counts of disjoint sets of rows add up: a cluster's partitions count
    theirs (:mod:`mltrees.dask.lightgbm`).
    """
    counts = np.zeros((binned.n_features, binned.stride), dtype=np.int64)
    for j in range(binned.n_features):  # one bincount per feature
        counts[j] = np.bincount(binned.codes[j], minlength=binned.stride)
    return counts


def _most_frequent_bins(binned: BinnedData, categories: dict) -> np.ndarray:
    """:func:`most_frequent_bins_of_counts` of all rows of ``binned``."""
    return most_frequent_bins_of_counts(
        bin_counts(binned), binned.n_rows, zero_bins(binned, categories)
    )


def most_frequent_bins_of_counts(counts: np.ndarray, n: int, zero: np.ndarray) -> np.ndarray:
    """Each feature's most frequent bin, as LightGBM decides it.

    The most frequent bin (the missing bin included) counts only if it holds
    at least 70% of the rows (``kSparseThreshold``); otherwise the bin of the
    value 0 stands in for it. LightGBM keeps no histogram entry for bin 0
    when it is that bin, and recomputes that bin's entry as the node's total
    minus the other bins otherwise, which decides float ties and how counts
    are estimated in a scan (:func:`~mltrees.hist.lightgbm.splitting.find_leaf_splits`).
    """
    most_frequent = np.zeros(counts.shape[0], dtype=np.intp)
    for j in range(counts.shape[0]):
        most = int(np.argmax(counts[j]))
        if most != zero[j] and counts[j, most] / n < SPARSE_THRESHOLD:
            most = zero[j]
        most_frequent[j] = most
    return most_frequent


def zero_bins(binned: BinnedData, categories: dict | None = None) -> np.ndarray:
    """The bin of the value 0 of every feature (LightGBM's ``default_bin``)."""
    categories = categories or {}
    zero = np.zeros(binned.n_features, dtype=np.intp)
    for j in range(binned.n_features):
        if j in categories:
            zero[j] = int(encode_categories(np.array([0.0]), categories[j])[0])
        else:
            zero[j] = int(np.searchsorted(binned.edges[j], 0.0, side="left"))
    return zero


def lightgbm_feature_bundles(
    X: np.ndarray,
    binned: BinnedData,
    most_frequent: np.ndarray,
    used: np.ndarray,
    categories: dict | None = None,
) -> list[np.ndarray]:
    """LightGBM 4's bundles of ``X``'s features, as a partition of all features.

    :func:`~mltrees.hist.lightgbm.bundling.lightgbm_bundles` on the rows LightGBM
    believes each feature occupies. A feature whose most frequent bin is the
    bin of 0 occupies its non-zero (``|x| > 1e-35``) and missing values, as
    LightGBM samples them. For any other feature LightGBM keeps the rows
    whose value is not in the most frequent bin (``FixSampleIndices``), but
    it reads the values from the sample after ``BinMapper::FindBin`` has
    rearranged them in place: the non-missing values moved to the front and
    sorted, the tail left as it was, while the row numbers keep their
    order. The ``j``-th non-zero row is taken with the ``j``-th value of
    that rearranged list (and if no row is found that way, the non-zero
    rows are kept), so the rows a feature "occupies" are not the rows of
    its values (and two features that do share rows can be bundled as
    exclusive, then lose the shared rows in training). Reproduced here,
    because the bundles decide LightGBM's model whenever such a bundle
    forms. Only LightGBM's single-valued groups of several features become
    bundles; the features of multi-valued groups, and those LightGBM does not
    use, stand alone (nothing of them is shared).
    """
    categories = categories or {}
    zero = zero_bins(binned, categories)
    n = binned.n_rows
    missing_code = binned.missing_code

    def code_of(f, values):
        if f in categories:
            return encode_categories(values, categories[f])
        code = count_below(binned.edges[f], values)
        return np.where(np.isnan(values), missing_code, code)

    def rows_of(f):
        column = X[:, f]
        nonzero_rows = np.flatnonzero((np.abs(column) > ZERO_THRESHOLD) | np.isnan(column))
        if most_frequent[f] == zero[f]:
            return nonzero_rows
        values = column[nonzero_rows]
        known = values[~np.isnan(values)]
        seen = values.copy()
        seen[: known.size] = np.sort(known)  # FindBin's in-place sort of the sample
        off = np.ones(n, dtype=bool)  # a zero is off the most frequent bin (not the bin of 0)
        off[nonzero_rows] = code_of(f, seen) != most_frequent[f]
        rows = np.flatnonzero(off)
        # An empty list means "nothing to fix" to LightGBM: the non-zero rows stay.
        return rows if rows.size else nonzero_rows

    nonzero = np.array(
        [np.count_nonzero((np.abs(c) > ZERO_THRESHOLD) | np.isnan(c)) for c in X.T], dtype=np.intp
    )
    groups, multi = lightgbm_bundles(rows_of, nonzero, used, n)
    shared = [g for g, m in zip(groups, multi, strict=True) if g.size > 1 and not m]
    alone = np.ones(binned.n_features, dtype=bool)
    for g in shared:
        alone[g] = False
    return shared + [np.array([f], dtype=np.intp) for f in np.flatnonzero(alone)]


def used_features(
    binned: BinnedData,
    has_missing: np.ndarray,
    min_data_in_leaf: int,
    categorical: np.ndarray | None = None,
) -> np.ndarray:
    """The features LightGBM trains on: not trivial and not filtered out before training.

    ``BinMapper::FindBin`` marks a feature *trivial* when it has one bin, and
    (``feature_pre_filter``, on by default) when no cut of its bins with
    the missing bin on the right leaves ``min_data_in_leaf`` rows on both
    sides (``NeedFilter``; a categorical feature of more than two bins is
    never filtered). LightGBM counts on its bin sample (at most
    ``subsample_for_bin`` rows, the minimum scaled to it); this function
    counts every row, the same up to ``subsample_for_bin`` rows. Such a
    feature is dropped from the data set: it is never split, even where the
    counts estimated from the hessians
    (:func:`~mltrees.hist.lightgbm.splitting.find_leaf_splits`) would allow
    it, and it takes no part in bundling.

    Returns a boolean mask over the features. ``has_missing`` marks the
    numeric features with a missing bin; ``categorical`` the categorical
    ones (their codes are category bins, bin 0 for missing and rare values).
    """
    return used_features_of_counts(
        bin_counts(binned),
        binned.n_bins,
        binned.missing_code,
        has_missing,
        min_data_in_leaf,
        categorical,
    )


def used_features_of_counts(
    counts, n_bins, missing_code, has_missing, min_data_in_leaf, categorical=None
) -> np.ndarray:
    """:func:`used_features` from the rows of every (feature, code) (:func:`bin_counts`)."""
    used = np.zeros(counts.shape[0], dtype=bool)
    total = int(counts[0].sum()) if counts.shape[0] else 0
    for j in range(counts.shape[0]):
        cnt_in_bin = counts[j, : int(n_bins[j])]
        if has_missing[j]:
            cnt_in_bin = np.append(cnt_in_bin, counts[j, missing_code])
        if cnt_in_bin.size <= 1:
            continue  # trivial: one bin
        if categorical is not None and categorical[j] and cnt_in_bin.size > 2:
            used[j] = True
            continue
        left = np.cumsum(cnt_in_bin[:-1])
        used[j] = bool(np.any((left >= min_data_in_leaf) & (total - left >= min_data_in_leaf)))
    return used
