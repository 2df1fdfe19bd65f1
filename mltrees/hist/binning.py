"""Binning for the second-order histogram learner (chapter 13).

Every feature is cut once into at most ``max_bin`` bins, and the learner
only ever sees the bin codes. Bin ``b`` of feature ``j`` holds the values
``cuts[j][b-1] <= x < cuts[j][b]`` (``cuts[j][-1]`` is larger than every
training value), so a split "bins ``0 .. b`` to the left" is the test
``x < cuts[j][b]``, XGBoost's test (Chen & Guestrin 2016). A missing value
(NaN) gets the code ``missing_code``, one past the largest bin of any
feature, so that histograms of all features share one stride.

The cut points of a feature are XGBoost's (:mod:`mltrees.hist.xgboost.cuts`):

* all its distinct training values but the smallest when there are at most
  ``max_bin`` of them: every value then has its own bin, and a split on bins
  is a split on values (which is why XGBoost's ``hist`` trees equal ``exact``
  ones on such features);
* otherwise about ``max_bin`` weighted quantiles (:eq:`eq-xgb-rank`) chosen
  by XGBoost's quantile sketch, rule for rule, so that they are the
  ``xgboost`` package's cut points bit for bit.

:func:`weighted_quantile_cuts` gives the exact weighted quantiles the sketch
approximates.
Values are compared in float32, as XGBoost stores its data.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

import numpy as np

from mltrees._search import count_below
from mltrees.hist.xgboost.cuts import xgboost_cuts

__all__ = [
    "BinnedData",
    "fit_cuts",
    "sorted_weighted_quantile_cuts",
    "summary_cuts",
    "weighted_quantile_cuts",
]


def _upper_sentinel(largest: np.float32) -> np.float32:
    """The upper bound of the last bin: ``max + (|max| + 1e-5)`` in double, as XGBoost writes it."""
    largest = float(largest)
    return np.float32(largest + (abs(largest) + float(np.float32(1e-5))))


def weighted_quantile_cuts(values: np.ndarray, weights: np.ndarray, n_bins: int) -> np.ndarray:
    """Cut points at the weighted quantiles ``k / n_bins`` of finite ``values``.

    Implements the rank function :eq:`eq-xgb-rank` exactly (the data are
    sorted once): the cut ``k`` is the smallest value ``z`` with
    ``r(z) = sum(w[x < z]) / sum(w) >= k / n_bins`` among the distinct values,
    so every bin holds about ``1 / n_bins`` of the weight, and a value
    heavier than that gets a bin of its own. Returns the sorted distinct cuts,
    the smallest value excluded (it needs no cut below it).

    Parameters
    ----------
    values : ndarray of float32, shape (n,)
        Finite values of one feature.
    weights : ndarray of float, shape (n,)
        Non-negative weights (sample weights, or hessians for XGBoost's ``approx``).
    n_bins : int
        The number of bins wanted.
    """
    order = np.argsort(values, kind="stable")
    return sorted_weighted_quantile_cuts(values[order], weights[order], n_bins)


def sorted_weighted_quantile_cuts(
    sorted_values: np.ndarray, sorted_weights: np.ndarray, n_bins: int
) -> np.ndarray:
    """:func:`weighted_quantile_cuts` of values already sorted (with their weights).

    XGBoost's ``approx`` proposes new cuts every round from new hessians, on
    the same values: sorting each feature once per fit leaves one cumulative
    sum per feature and round.
    """
    first = np.flatnonzero(np.r_[True, sorted_values[1:] != sorted_values[:-1]])
    distinct = sorted_values[first]
    weight_before = np.concatenate([[0.0], np.cumsum(sorted_weights)])[first]
    total = float(np.sum(sorted_weights))
    if total <= 0:
        return distinct[1:]
    targets = total * np.arange(1, n_bins) / n_bins
    # The first distinct value whose weight-before reaches each target.
    index = np.searchsorted(weight_before, targets, side="left")
    index = np.unique(index[(index > 0) & (index < distinct.size)])
    return distinct[index]


def fit_cuts(values: np.ndarray, max_bin: int, weights: np.ndarray | None = None) -> np.ndarray:
    """The cut points of one feature, the upper sentinel included: XGBoost's ``hist`` cuts.

    :func:`~mltrees.hist.xgboost.cuts.xgboost_cuts` without the lower bound.

    Parameters
    ----------
    values : ndarray of float32, shape (n,)
        One feature's training values, in row order (the sketch depends on
        it beyond a few thousand values); NaN means missing and is ignored.
    max_bin : int
        At most this many bins.
    weights : ndarray, optional
        Sample weights (None: unit weights).
    """
    return xgboost_cuts(values, max_bin, weights)[0]


def summary_cuts(summary, max_bin: int, exact: bool) -> np.ndarray:
    """The cut points of one feature from a weighted quantile summary, sentinel included.

    The summary (:class:`~mltrees.hist.xgboost.quantile_summary.WeightedQuantileSummary`) is
    what workers holding parts of the data merge (:eq:`eq-xgb-sketch-merge`).
    When it is ``exact`` (no part was pruned) and keeps at most ``max_bin``
    values, they are all the distinct values and the cuts are
    :func:`fit_cuts`'s. Otherwise the cuts are the values the query function
    returns at the weighted ranks ``k / max_bin`` (:eq:`eq-xgb-rank`), each
    within ε of its target rank for an ε-approximate summary.
    """
    if summary.size == 0:
        return np.array([np.float32(1.0)], dtype=np.float32)
    values = summary.values
    if exact and summary.size <= max_bin:
        inner = values[1:]
    else:
        picked = np.unique(summary.query(summary.total_weight * np.arange(1, max_bin) / max_bin))
        inner = picked[picked > values[0]]
    sentinel = _upper_sentinel(np.float32(values[-1]))
    return np.concatenate([inner.astype(np.float32), [sentinel]]).astype(np.float32)


@dataclass
class BinnedData:
    """Bin codes of a data set and the cut points that made them.

    Attributes
    ----------
    codes : ndarray of uint8 or uint16, shape (n_features, n_rows)
        Feature-major: one feature's codes are contiguous, which is what a
        per-feature histogram reads.
    cuts : list of ndarray of float32
        ``cuts[j][b]`` is the (exclusive) upper bound of bin ``b`` of feature ``j``.
    minimum : ndarray of float32, shape (n_features,)
        The smallest training value of each feature (lower bound of bin 0).
    missing_code : int
        The code of a missing value; also ``stride - 1``.
    edges : list of ndarray of float64, optional
        Bins made elsewhere (the tree engine's :func:`~mltrees.tree._data.bin_features`):
        ``x <= edges[j][b]`` exactly when the code is at most ``b``. Trees
        then take these thresholds instead of the float32 cuts.
    """

    codes: np.ndarray
    cuts: list
    minimum: np.ndarray
    missing_code: int
    edges: list | None = None
    _tables: dict = field(default_factory=dict, init=False, repr=False, compare=False)

    @property
    def stride(self) -> int:
        """Codes per feature in a histogram: every bin and the missing bin."""
        return self.missing_code + 1

    @property
    def n_features(self) -> int:
        """Number of features."""
        return self.codes.shape[0]

    @property
    def n_rows(self) -> int:
        """Number of rows."""
        return self.codes.shape[1]

    @property
    def n_bins(self) -> np.ndarray:
        """Number of (non-missing) bins of each feature."""
        return np.array([c.size for c in self.cuts], dtype=np.intp)

    @classmethod
    def fit(
        cls,
        X: np.ndarray,
        max_bin: int,
        weights=None,
        cuts=None,
        n_threads: int = 1,
        minimum=None,
        sketch=xgboost_cuts,
    ) -> BinnedData:
        """Cut every column of float32 ``X`` (or reuse ``cuts``) and encode it.

        ``sketch(column, max_bin, weights)`` gives a column's cuts and lower
        bound (XGBoost's ``hist`` sketch by default). ``minimum`` (one float32
        per feature) is the threshold of a split that sends only missing
        values left; None: the sketch's lower bound, or each feature's smallest
        value when ``cuts`` are given.
        """
        columns = np.ascontiguousarray(X.T, dtype=np.float32)
        # One thread: no pool (its hand-offs cost more than small columns).
        pool = ThreadPoolExecutor(n_threads) if n_threads > 1 else None
        each = map if pool is None else pool.map
        try:
            if cuts is None:
                found = list(each(lambda col: sketch(col, max_bin, weights), columns))
                cuts = [cut for cut, _ in found]
                if minimum is None:
                    minimum = [low for _, low in found]
            missing_code = max((c.size for c in cuts), default=1)
            dtype = np.uint8 if missing_code < 256 else np.uint16
            codes = np.empty(columns.shape, dtype=dtype)

            def encode_column(j):
                codes[j] = encode(columns[j], cuts[j], missing_code)

            list(each(encode_column, range(len(cuts))))
        finally:
            if pool is not None:
                pool.shutdown()
        if minimum is None:
            minimum = [np.nanmin(c) if not np.isnan(c).all() else 0.0 for c in columns]
        minimum = np.asarray(minimum, dtype=np.float32)
        return cls(codes=codes, cuts=list(cuts), minimum=minimum, missing_code=missing_code)

    @classmethod
    def from_codes(cls, codes: np.ndarray, edges: list) -> BinnedData:
        """Wrap codes binned by the tree engine (row-major).

        Missing values must hold the largest code of any feature plus one,
        this class's ``missing_code``.
        """
        n_codes = [len(e) + 1 for e in edges]
        missing_code = max(n_codes, default=1)
        dtype = np.uint8 if missing_code < 256 else np.uint16
        columns = np.ascontiguousarray(codes.T, dtype=dtype)
        cuts = [np.full(k, np.nan, dtype=np.float32) for k in n_codes]  # sizes only
        minimum = np.zeros(len(edges), dtype=np.float32)
        return cls(columns, cuts, minimum, missing_code, edges=[np.asarray(e) for e in edges])

    def threshold(self, feature: int, split_bin: int) -> np.float32:
        """The float32 ``t`` of the test ``x < t`` that sends bins ``0 .. split_bin`` left.

        ``split_bin = -1`` (only missing values to the left) gives the
        smallest training value, as XGBoost writes such a split.
        """
        if split_bin < 0:
            return self.minimum[feature]
        return self.cuts[feature][split_bin]

    def split_thresholds(
        self, feature: np.ndarray, split_bin: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`threshold` of many splits, and the float64 threshold of ``x <= t`` trees.

        Returns the float32 cuts ``c`` of XGBoost's tests ``x < c`` and the
        thresholds of the equivalent tests ``x <= t``: ``t`` is the float64
        just below ``c``, which on float32 data sends the same values left.
        With :attr:`edges` (bins made by the tree engine) the cuts are NaN
        and ``t`` is the edge of bin ``split_bin``, or infinity after the last
        bin (every number left, missing values right).
        """
        feature = np.asarray(feature, dtype=np.intp)
        split_bin = np.asarray(split_bin, dtype=np.intp)
        if self.edges is not None:
            sizes, table = self._table("edges", self.edges, np.float64)
            at = np.where(split_bin < 0, sizes[feature] + split_bin, split_bin)
            return np.full(feature.size, np.nan, dtype=np.float32), table[feature, at]
        _, table = self._table("cuts", self.cuts, np.float32)
        cut = table[feature, np.maximum(split_bin, 0)]
        cut = np.where(split_bin < 0, self.minimum[feature], cut).astype(np.float32)
        return cut, np.nextafter(cut.astype(np.float64), -np.inf)

    def _table(self, name: str, rows: list, dtype) -> tuple[np.ndarray, np.ndarray]:
        """``rows`` (one array per feature) padded with infinity into one table, kept."""
        if name not in self._tables:
            sizes = np.array([len(row) for row in rows], dtype=np.intp)
            table = np.full((len(rows), int(sizes.max(initial=0)) + 1), np.inf, dtype=dtype)
            for j, row in enumerate(rows):  # once per data set, not per split
                table[j, : sizes[j]] = row
            self._tables[name] = (sizes, table)
        return self._tables[name]


def encode(values: np.ndarray, cuts: np.ndarray, missing_code: int) -> np.ndarray:
    """Bin codes of float32 ``values``: the number of cuts ``<= x``; NaN gets ``missing_code``.

    The package's one value → bin search (:func:`mltrees._search.count_below`),
    in float32 as XGBoost compares.
    """
    inner = np.asarray(cuts[:-1], dtype=np.float32)  # above the sentinel: still the last bin
    code = count_below(inner, values, inclusive=True)
    code = code.astype(np.uint8 if missing_code < 256 else np.uint16)
    code[np.isnan(values)] = missing_code
    return code
