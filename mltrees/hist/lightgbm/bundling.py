"""Exclusive feature bundling (EFB), chapter 14.

Many wide data sets are sparse: one-hot columns, counts, indicators. Two
features are *exclusive* when no row has a non-default bin in both, and
exclusive features can share one column without losing anything: the
column's code says which feature is non-default and in which bin
(Ke et al. 2017, Section 4). Histograms are then built on fewer columns,
and each original feature's histogram is read back from its bundle's.

* :func:`find_bundles`: the greedy bundling of Algorithm 3 of Ke et al.,
  features taken by decreasing degree in the conflict graph or by decreasing
  count of non-default rows, with a budget of conflicting rows per bundle;
* :func:`bundle_codes`: one column per bundle, features placed at bin
  offsets (:eq:`eq-efb-offset`);
* :func:`unbundle_histogram`: every feature's histogram from its bundle's,
  the default bin recovered as the node total minus the other bins
  (:eq:`eq-efb-default-bin`).

A *default* bin is a feature's most frequent bin (:func:`most_frequent_bins`),
the zero of a sparse feature; a row is *non-default* for a feature when its
code differs from it. The codes follow :class:`~mltrees.hist.binning.BinnedData`:
feature ``j`` has the bins ``0 .. n_bins[j] - 1`` and the missing code
``stride - 1``.

Layout of a bundle of two or more features: code 0 means "every feature of
the bundle is at its default bin". Feature ``f`` of the bundle owns the
codes ``offsets[k] .. offsets[k+1] - 1``, one per non-default value of the
feature, in increasing bin order, missing last (a missing slot exists only
if the feature has missing values). A bundle of one feature keeps the
feature's codes unchanged (its offsets are ``[0, stride]``), so a feature
that conflicts with every other costs nothing.
"""

from __future__ import annotations

import numbers

import numpy as np

__all__ = [
    "bundle_codes",
    "bundled_stride",
    "conflict_matrix",
    "find_bundles",
    "lightgbm_bundles",
    "most_frequent_bins",
    "unbundle_histogram",
    "unbundle_map",
]

ORDERS = ("count", "degree", "input", "lightgbm")
_GATHER_BUDGET = 1 << 22  # entries per conflict-count gather (bundles x rows)


def _check_codes(codes) -> np.ndarray:
    codes = np.asarray(codes)
    if codes.ndim != 2:
        raise ValueError(f"codes must have shape (n_features, n_rows), got shape {codes.shape}")
    if codes.dtype.kind not in "ui":
        raise TypeError(f"codes must be an integer array (uint8/uint16), got dtype {codes.dtype}")
    return codes


def _check_per_feature(value, name: str, n_features: int) -> np.ndarray:
    arr = np.asarray(value)
    if arr.shape != (n_features,) or arr.dtype.kind not in "ui":
        raise ValueError(
            f"{name} must be an integer array of shape ({n_features},), "
            f"got {arr.dtype} of shape {arr.shape}"
        )
    return arr.astype(np.intp)


def most_frequent_bins(codes, stride: int | None = None) -> np.ndarray:
    """The most frequent code of every feature (the smallest one on ties).

    Parameters
    ----------
    codes : ndarray of uint8 or uint16, shape (n_features, n_rows)
    stride : int, optional
        Codes per feature; ``codes.max() + 1`` if not given.

    Returns
    -------
    ndarray of intp, shape (n_features,)
    """
    codes = _check_codes(codes)
    stride = int(codes.max(initial=0)) + 1 if stride is None else int(stride)
    return np.array(
        [np.argmax(np.bincount(column, minlength=stride)) for column in codes], dtype=np.intp
    )


def conflict_matrix(codes, default_bins) -> np.ndarray:
    """Rows where both features are non-default, for every pair of features.

    The weighted conflict graph of Ke et al.: the diagonal holds each
    feature's count of non-default rows. Computed as one sparse product
    ``M Mᵀ`` of the boolean non-default mask ``M``.

    Returns
    -------
    ndarray of int64, shape (n_features, n_features)
    """
    from scipy import sparse

    codes = _check_codes(codes)
    default_bins = _check_per_feature(default_bins, "default_bins", codes.shape[0])
    feature, row = np.nonzero(codes != default_bins[:, None])
    shape = codes.shape
    mask = sparse.csr_matrix((np.ones(feature.size, dtype=np.int64), (feature, row)), shape=shape)
    return np.asarray((mask @ mask.T).toarray(), dtype=np.int64)


def _slots(codes, default_bins, n_bins, stride) -> np.ndarray:
    """Bundle codes each feature needs: its non-default values, missing included if present."""
    has_missing = np.any(codes == stride - 1, axis=1) & (n_bins <= stride - 1)
    return n_bins + has_missing - 1 + (default_bins == stride - 1) * (~has_missing)


def _greedy(nondefault, search, budget, slots, max_bins):
    """Algorithm 3 of Ke et al. over the features in ``search`` order (first fit)."""
    n_rows = nondefault.shape[1]
    n_bytes = (n_rows + 7) // 8
    marks = np.zeros((8, n_bytes), dtype=np.uint8)  # rows used by each bundle, bit-packed
    members: list[list[int]] = []
    conflicts: list[int] = []
    used: list[int] = []  # rows marked in each bundle
    width: list[int] = []  # codes of each bundle (code 0 included)
    for f in search:
        rows = np.flatnonzero(nondefault[f])
        byte, bit = rows >> 3, np.uint8(1) << (7 - (rows & 7)).astype(np.uint8)
        n_b = len(members)
        # Necessary conditions first: the bundle's rows plus the feature's
        # rows overlap in at least used + nnz - n rows; bins must fit.
        used_arr, conf_arr = np.array(used, dtype=np.int64), np.array(conflicts, dtype=np.int64)
        possible = used_arr + rows.size - n_rows <= budget - conf_arr
        if max_bins is not None:
            possible &= np.array(width, dtype=np.int64) + slots[f] <= max_bins
        candidates = np.flatnonzero(possible)
        chosen, chosen_count = -1, 0
        step = max(1, _GATHER_BUDGET // max(rows.size, 1))
        for start in range(0, candidates.size, step):
            block = candidates[start : start + step]
            hits = (marks[block[:, None], byte[None, :]] & bit) != 0  # (bundles, rows of f)
            counts = hits.sum(axis=1)
            fits = np.flatnonzero(conf_arr[block] + counts <= budget)
            if fits.size:
                chosen, chosen_count = int(block[fits[0]]), int(counts[fits[0]])
                break
        if chosen < 0:
            if n_b == marks.shape[0]:
                marks = np.concatenate([marks, np.zeros_like(marks)])
            chosen = n_b
            members.append([])
            conflicts.append(0)
            used.append(0)
            width.append(1)
        members[chosen].append(int(f))
        conflicts[chosen] += chosen_count
        used[chosen] += rows.size - chosen_count
        width[chosen] += int(slots[f])
        np.bitwise_or.at(marks[chosen], byte, bit)  # several rows may share a byte
    return [np.sort(np.array(m, dtype=np.intp)) for m in members]


def find_bundles(
    codes,
    default_bins,
    max_conflict_rate: float = 0.0,
    n_bins=None,
    stride: int | None = None,
    *,
    order: str = "count",
    max_bins_per_bundle: int | None = 256,
) -> list[np.ndarray]:
    """Greedy exclusive feature bundling (Ke et al. 2017, Algorithm 3).

    Features are visited in the chosen ``order``; each joins the first
    bundle (in order of creation) where the rows it shares with the
    bundle's features, added to the bundle's earlier conflicts, stay within
    the budget ``floor(max_conflict_rate * n_rows)``; otherwise it opens a
    new bundle. At ``max_conflict_rate=0`` the bundles are exclusive: a
    proper colouring of the conflict graph.

    Parameters
    ----------
    codes : ndarray of uint8 or uint16, shape (n_features, n_rows)
        Feature-major bin codes (:class:`~mltrees.hist.binning.BinnedData`).
    default_bins : ndarray of int, shape (n_features,)
        Each feature's default (most frequent) code.
    max_conflict_rate : float in [0, 1), default 0
        The budget of conflicting rows per bundle, as a share of the rows.
    n_bins : ndarray of int, shape (n_features,), optional
        Non-missing bins of each feature; needed for ``max_bins_per_bundle``.
    stride : int, optional
        Codes per feature (the missing code is ``stride - 1``); defaults to
        ``max(n_bins) + 1``, as in :class:`~mltrees.hist.binning.BinnedData`.
    order : {"count", "degree", "input", "lightgbm"}
        ``"degree"``: decreasing degree in the conflict graph (the paper's
        Algorithm 3); ``"count"``: decreasing count of non-default rows
        (the paper's cheaper ordering); ``"input"``: column order;
        ``"lightgbm"``: LightGBM's practice, both ``"input"`` and
        ``"count"``, keeping the one with fewer bundles. Ties keep column order.
    max_bins_per_bundle : int or None, default 256
        At most this many codes in a bundle column (code 0 included), so
        that 256 keeps bundled codes in uint8 (LightGBM caps bundles at 256
        bins on GPUs). Ignored when ``n_bins`` is not given.

    Returns
    -------
    list of ndarray of intp
        The features of each bundle, sorted; every feature in exactly one bundle.
    """
    codes = _check_codes(codes)
    n_features, n_rows = codes.shape
    default_bins = _check_per_feature(default_bins, "default_bins", n_features)
    if (
        not isinstance(max_conflict_rate, numbers.Real)
        or isinstance(max_conflict_rate, bool)
        or not 0.0 <= float(max_conflict_rate) < 1.0
    ):
        raise ValueError(f"max_conflict_rate must be a number in [0, 1), got {max_conflict_rate!r}")
    if order not in ORDERS:
        raise ValueError(f"order must be one of {ORDERS}, got {order!r}")
    if max_bins_per_bundle is not None and (
        not isinstance(max_bins_per_bundle, numbers.Integral) or max_bins_per_bundle < 2
    ):
        raise ValueError(
            f"max_bins_per_bundle must be an int >= 2 or None, got {max_bins_per_bundle!r}"
        )
    slots, max_bins = np.zeros(n_features, dtype=np.intp), None
    if n_bins is not None:
        n_bins = _check_per_feature(n_bins, "n_bins", n_features)
        stride = int(n_bins.max(initial=0)) + 1 if stride is None else int(stride)
        slots = _slots(codes, default_bins, n_bins, stride)
        max_bins = max_bins_per_bundle
    budget = int(float(max_conflict_rate) * n_rows)
    nondefault = codes != default_bins[:, None]
    count = nondefault.sum(axis=1)
    by_count = np.argsort(-count, kind="stable")
    if order == "degree":
        graph = conflict_matrix(codes, default_bins) > 0
        np.fill_diagonal(graph, False)
        search = np.argsort(-graph.sum(axis=1), kind="stable")
    elif order == "count":
        search = by_count
    else:
        search = np.arange(n_features)
    bundles = _greedy(nondefault, search, budget, slots, max_bins)
    if order == "lightgbm":
        other = _greedy(nondefault, by_count, budget, slots, max_bins)
        if len(other) < len(bundles):
            bundles = other
    return bundles


def _check_bundles(bundles, n_features: int) -> list[np.ndarray]:
    out = [np.asarray(b) for b in bundles]
    if any(b.ndim != 1 or b.size == 0 or b.dtype.kind not in "ui" for b in out):
        raise ValueError("bundles must be a list of non-empty 1-D integer arrays of features")
    flat = np.concatenate(out) if out else np.array([], dtype=np.intp)
    if flat.size != n_features or not np.array_equal(np.sort(flat), np.arange(n_features)):
        raise ValueError(
            f"bundles must hold every feature 0 .. {n_features - 1} exactly once, "
            f"got {flat.size} entries"
        )
    return [b.astype(np.intp) for b in out]


def bundle_codes(codes, bundles, default_bins, n_bins, stride: int | None = None):
    """Merge the features of every bundle into one column of codes.

    Implements :eq:`eq-efb-offset`: in a bundle of two or more features, a
    row's code is ``offset_j + u_j(b)``, where ``j`` is the feature whose
    bin ``b`` is not the default and ``u_j`` numbers the feature's
    non-default values from 0; a row at the default of every feature gets 0.
    If several features of the bundle are non-default in the row (a
    conflict), the feature listed last wins, as in LightGBM, which writes
    features in column order into the bundle (bundles from
    :func:`find_bundles` are sorted). A bundle of one feature keeps its codes.

    Parameters
    ----------
    codes : ndarray of uint8 or uint16, shape (n_features, n_rows)
    bundles : list of ndarray of int
    default_bins, n_bins : ndarray of int, shape (n_features,)
    stride : int, optional
        Codes per feature; defaults to ``max(n_bins) + 1``.

    Returns
    -------
    bundled : ndarray of uint8 or uint16, shape (n_bundles, n_rows)
    offsets : list of ndarray of intp
        ``offsets[k]`` has one entry per feature of bundle ``k`` and a final
        one: the codes of the ``i``-th feature are
        ``offsets[k][i] .. offsets[k][i+1] - 1``; ``offsets[k][-1]`` is the
        number of codes of the bundle. A one-feature bundle has ``[0, stride]``.
    """
    codes = _check_codes(codes)
    n_features, n_rows = codes.shape
    default_bins = _check_per_feature(default_bins, "default_bins", n_features)
    n_bins = _check_per_feature(n_bins, "n_bins", n_features)
    stride = int(n_bins.max(initial=0)) + 1 if stride is None else int(stride)
    bundles = _check_bundles(bundles, n_features)
    missing = stride - 1
    if np.any(n_bins < 1) or np.any(n_bins > missing):
        raise ValueError(f"n_bins must lie in [1, stride - 1 = {missing}]")
    bad = (codes >= n_bins[:, None]) & (codes != missing)
    if bad.any():
        raise ValueError(
            f"codes of feature {int(np.flatnonzero(bad.any(axis=1))[0])} exceed its n_bins "
            f"and are not the missing code {missing}"
        )
    if np.any((default_bins >= n_bins) & (default_bins != missing)) or np.any(default_bins < 0):
        raise ValueError("default_bins must be a bin of each feature or the missing code")
    slots = _slots(codes, default_bins, n_bins, stride)
    offsets = []
    for bundle in bundles:
        if bundle.size == 1:
            offsets.append(np.array([0, stride], dtype=np.intp))
        else:
            offsets.append(np.concatenate([[1], 1 + np.cumsum(slots[bundle])]).astype(np.intp))
    width = bundled_stride(offsets)
    if width > 65536:
        raise ValueError(f"a bundle needs {width} codes, more than uint16 holds")
    dtype = np.uint8 if width <= 256 else np.uint16
    out = np.zeros((len(bundles), n_rows), dtype=dtype)
    for k, (bundle, offset) in enumerate(zip(bundles, offsets, strict=True)):
        if bundle.size == 1:
            out[k] = codes[bundle[0]]
            continue
        for f, start in zip(bundle, offset[:-1], strict=True):
            row = np.flatnonzero(codes[f] != default_bins[f])
            value = np.minimum(codes[f, row], n_bins[f]).astype(np.intp)  # missing -> n_bins[f]
            default = min(default_bins[f], n_bins[f])
            out[k, row] = start + value - (value > default)
    return out, offsets


def bundled_stride(offsets) -> int:
    """Codes per bundle column: the histogram stride of bundled codes."""
    return int(max((int(o[-1]) for o in offsets), default=1))


def unbundle_histogram(bundle_hist, bundles, offsets, default_bins, n_bins, stride, totals):
    """Every feature's histogram from the histograms of its bundle.

    Bin ``b`` of feature ``j`` other than its default is the bundle's bin
    ``offset_j + u_j(b)``; the default bin is the node's total minus the
    feature's other bins (:eq:`eq-efb-default-bin`), since every row of the
    node falls in exactly one bin of ``j``. At ``max_conflict_rate=0`` the
    result equals the histograms built on the original codes (up to the
    rounding of that subtraction); with conflicts, a row lost by a feature
    is counted in its default bin. One-feature bundles are copied.

    Parameters
    ----------
    bundle_hist : ndarray, shape (n_groups, n_bundles, bundle_stride, n_stats)
        As :func:`~mltrees.hist.histogram.build_histograms` returns for the
        bundled codes; the group axis may be omitted.
    bundles, offsets : lists
        From :func:`find_bundles` and :func:`bundle_codes`.
    default_bins, n_bins : ndarray of int, shape (n_features,)
    stride : int
        Codes per original feature (bins and the missing bin).
    totals : ndarray, shape (n_groups, n_stats) (or (n_stats,) without the group axis)
        The sums of every statistic over each group's rows.

    Returns
    -------
    ndarray, shape (n_groups, n_features, stride, n_stats) (group axis as given)
    """
    hist = np.asarray(bundle_hist)
    squeeze = hist.ndim == 3
    if squeeze:
        hist = hist[None]
    if hist.ndim != 4:
        raise ValueError(
            "bundle_hist must have shape (n_groups, n_bundles, bundle_stride, n_stats), "
            f"got shape {np.shape(bundle_hist)}"
        )
    n_groups, n_bundles, width, n_stats = hist.shape
    totals = np.asarray(totals, dtype=hist.dtype)
    if totals.shape != (n_groups, n_stats)[squeeze:]:
        raise ValueError(
            f"totals must have shape {(n_groups, n_stats)[squeeze:]}, got {totals.shape}"
        )
    totals = totals.reshape(n_groups, n_stats)
    n_features = np.asarray(default_bins).shape[0]
    default_bins = _check_per_feature(default_bins, "default_bins", n_features)
    n_bins = _check_per_feature(n_bins, "n_bins", n_features)
    bundles = _check_bundles(bundles, n_features)
    if len(bundles) != n_bundles or len(offsets) != n_bundles:
        raise ValueError(
            f"bundle_hist has {n_bundles} bundles, but bundles has {len(bundles)} "
            f"and offsets {len(offsets)}"
        )
    if bundled_stride(offsets) > width:
        raise ValueError(
            f"bundle_hist has {width} codes per bundle, offsets need {bundled_stride(offsets)}"
        )
    stride = int(stride)
    bundle_of, source, merged = unbundle_map(bundles, offsets, default_bins, n_bins, stride)
    present = source >= 0
    out = np.where(
        present[None, :, :, None],
        hist[:, bundle_of[:, None], np.maximum(source, 0), :],
        0.0,
    )
    fix = np.flatnonzero(merged)
    if fix.size:
        rest = out[:, fix].sum(axis=2)  # (groups, features, stats); the default bin is 0 here
        out[:, fix, default_bins[fix], :] = totals[:, None, :] - rest
    return out[0] if squeeze else out


def unbundle_map(bundles, offsets, default_bins, n_bins, stride):
    """Each feature's bundle, the bundle code of each of its codes (-1: none), and if merged.

    Built for all features at once on a (features, codes) grid, so that
    reading back thousands of one-hot features costs no loop over features.
    """
    n_features = default_bins.size
    sizes = np.array([b.size for b in bundles], dtype=np.intp)
    features = np.concatenate(bundles)
    bundle_of = np.empty(n_features, dtype=np.intp)
    bundle_of[features] = np.repeat(np.arange(len(bundles)), sizes)
    offsets = [np.asarray(o, dtype=np.intp) for o in offsets]
    for k, (size, offset) in enumerate(zip(sizes, offsets, strict=True)):
        if size > 1 and offset.size != size + 1:
            raise ValueError(f"offsets[{k}] must have {size + 1} entries, got {offset.size}")
    merged = np.zeros(n_features, dtype=bool)
    merged[features] = np.repeat(sizes > 1, sizes)
    start = np.zeros(n_features, dtype=np.intp)
    width = np.zeros(n_features, dtype=np.intp)
    multi = [o for size, o in zip(sizes, offsets, strict=True) if size > 1]
    if multi:
        start[features[np.repeat(sizes > 1, sizes)]] = np.concatenate([o[:-1] for o in multi])
        width[features[np.repeat(sizes > 1, sizes)]] = np.concatenate([np.diff(o) for o in multi])
    code = np.arange(stride)[None, :]
    nb = n_bins[:, None]
    has_missing = (width == n_bins)[:, None]  # a slot for the missing code
    local = np.where(code < nb, code, np.where((code == stride - 1) & has_missing, nb, -1))
    default = np.minimum(default_bins, n_bins)[:, None]
    slot = start[:, None] + local - (local > default)
    source = np.where((local >= 0) & (local != default), slot, -1)
    source[~merged] = np.arange(stride)  # one-feature bundles keep their codes
    return bundle_of, source, merged


class LightGBMRandom:
    """LightGBM's random numbers (``include/LightGBM/utils/random.h``): a 32-bit LCG.

    ``x ← 214013 x + 2531011 (mod 2³²)``; 15-bit draws take bits 16-30,
    31-bit draws the low 31 bits. Used where LightGBM's choices are
    deterministic given its seed, so that mltrees makes the same ones.
    """

    def __init__(self, seed: int):
        self.x = int(seed) & 0xFFFFFFFF

    def _step(self) -> int:
        self.x = (214013 * self.x + 2531011) & 0xFFFFFFFF
        return self.x

    def next_int(self, low: int, high: int) -> int:
        """An integer in ``[low, high)`` (``NextInt``)."""
        return (self._step() & 0x7FFFFFFF) % (high - low) + low

    def next_float(self) -> float:
        """A float32 in ``[0, 1)`` (``NextFloat``)."""
        return float(np.float32((self._step() >> 16) & 0x7FFF) / np.float32(32768.0))

    def sample(self, n: int, k: int) -> list[int]:
        """``k`` of ``0 .. n - 1`` in increasing order (``Sample``)."""
        if k > n or k <= 0:
            return []
        if k == n:
            return list(range(n))
        if k > 1 and k > n / np.log2(k):
            out = []
            for i in range(n):
                if self.next_float() < (k - len(out)) / float(n - i):
                    out.append(i)
            return out
        chosen = set()
        for r in range(n - k, n):
            v = self.next_int(0, r + 1)
            chosen.add(r if v in chosen else v)
        return sorted(chosen)


def _lightgbm_find_groups(order, rows_of, n_sample, n_data):
    """LightGBM's ``FindGroups`` over the features in ``order`` (first fit, then a second round).

    ``rows_of(f)`` gives the sample rows where feature ``f`` is off its
    most frequent bin. Returns the groups (lists of features, in LightGBM's
    order) and whether each is a multi-value group.
    """
    search_max = 100
    budget = n_sample // 10000  # single_val_max_conflict_cnt
    rand = LightGBMRandom(n_data)
    n_bytes = (n_sample + 7) // 8
    marks = np.zeros((8, n_bytes), dtype=np.uint8)  # rows used by each group, bit-packed
    members: list[list[int]] = []
    total: list[int] = []  # non-default rows summed over the group's features
    used: list[int] = []  # rows marked in the group

    for f in order:
        rows = rows_of(f)
        count = int(rows.size)
        byte, bit = rows >> 3, np.uint8(1) << (7 - (rows & 7)).astype(np.uint8)
        totals = np.array(total, dtype=np.int64)
        available = np.flatnonzero(totals + count <= n_sample + budget)
        chosen, chosen_count = -1, 0
        if available.size:
            last = available.size - 1
            search = [int(available[-1])]
            search += [int(available[i]) for i in rand.sample(last, min(last, search_max - 1))]
            search = np.array(search, dtype=np.intp)
            rest = budget - totals[search] + np.array(used, dtype=np.int64)[search]
            step = max(1, _GATHER_BUDGET // max(count, 1))
            for start in range(0, search.size, step):  # the first group that fits, in order
                block = search[start : start + step]
                hits = np.count_nonzero(marks[block[:, None], byte[None, :]] & bit, axis=1)
                fits = np.flatnonzero((hits <= rest[start : start + step]) & (hits <= count // 2))
                if fits.size:
                    chosen, chosen_count = int(block[fits[0]]), int(hits[fits[0]])
                    break
        if chosen < 0:
            if len(members) == marks.shape[0]:
                marks = np.concatenate([marks, np.zeros_like(marks)])
            members.append([])
            total.append(0)
            used.append(0)
            chosen = len(members) - 1
        members[chosen].append(int(f))
        total[chosen] += count
        used[chosen] += count - chosen_count
        np.bitwise_or.at(marks[chosen], byte, bit)  # several rows may share a byte
    # Second round: the features of groups using few rows share one group,
    # single-valued if their conflicts fit the budget, else multi-valued.
    kept, multi, second = [], [], []
    for g, group in enumerate(members):
        if used[g] / n_sample >= 0.4:
            kept.append(group)
            multi.append(False)
        else:
            second.extend(group)
    if second:
        shared = np.zeros(n_bytes, dtype=np.uint8)
        is_multi, conflict_count = False, 0
        for f in second:
            if is_multi:
                break
            rows = rows_of(f)
            byte, bit = rows >> 3, np.uint8(1) << (7 - (rows & 7)).astype(np.uint8)
            c = int(np.count_nonzero(shared[byte] & bit))
            if c > budget - conflict_count:
                is_multi = True
                break
            conflict_count += c
            np.bitwise_or.at(shared, byte, bit)
        kept.append(list(second))
        multi.append(is_multi)
    return kept, multi


def lightgbm_bundles(rows_of, nonzero_count, used, n_sample: int, n_data: int | None = None):
    """LightGBM 4's exclusive feature bundling (``FastFeatureBundling``), group for group.

    LightGBM does not take a conflict rate: a group of features may share
    ``n // 10000`` conflicting rows of the bin sample (none below 10,000
    rows), and a feature may join a group only if it conflicts there on at
    most half of its own non-default rows. The greedy first-fit pass
    (the last group first, then up to 99 others drawn with LightGBM's
    :class:`LightGBMRandom` seeded with the row count) runs twice, in
    column order and by decreasing count of non-zero values, and the pass
    with fewer groups is kept. Groups whose rows are less than 40% used are
    then merged into one group, multi-valued (each feature stored on its
    own, nothing lost) if their conflicts exceed the budget.

    Parameters
    ----------
    rows_of : callable
        ``rows_of(f)``: the rows of the bin sample (sorted indices) where
        feature ``f`` is off its most frequent bin (for a feature whose most
        frequent bin is the bin of 0: its non-zero or missing values, as
        LightGBM samples them).
    nonzero_count : ndarray of int, shape (n_features,)
        Non-zero (or missing) values of each feature in the sample: the
        order of the second pass.
    used : ndarray of bool, shape (n_features,)
        The features LightGBM keeps (:func:`~mltrees.hist.lightgbm.binning.used_features`).
    n_sample : int
        Rows of the bin sample.
    n_data : int, optional
        Rows of the data set (the seed of the draws); ``n_sample`` if not given.

    Returns
    -------
    groups : list of ndarray of intp
        LightGBM's groups of the used features, each sorted.
    multi_valued : list of bool
        Whether each group is multi-valued; only a single-valued group of
        several features shares one column (and loses its conflicting rows).
    """
    n_data = n_sample if n_data is None else int(n_data)
    features = np.flatnonzero(np.asarray(used, dtype=bool))
    if features.size == 0:
        return [], []
    by_count = features[np.argsort(-np.asarray(nonzero_count)[features], kind="stable")]
    groups, multi = _lightgbm_find_groups(features, rows_of, n_sample, n_data)
    other, other_multi = _lightgbm_find_groups(by_count, rows_of, n_sample, n_data)
    if len(groups) > len(other):
        groups, multi = other, other_multi
    return [np.sort(np.array(g, dtype=np.intp)) for g in groups], multi
