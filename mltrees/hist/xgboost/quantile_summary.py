r"""Weighted quantile sketch (Chen & Guestrin 2016, appendix; chapter on XGBoost).

XGBoost proposes the candidate splits of a feature at quantiles of the rank
function :eq:`eq-xgb-rank`, :math:`r(z) = \sum_{x_i < z} h_i / \sum_i h_i`,
in which every row counts with its hessian :math:`h_i`. On data too large to
sort at once the quantiles come from a *summary*
:math:`Q(D) = \{(x_j, \tilde r^-(x_j), \tilde r^+(x_j), \tilde\omega(x_j))\}`
that keeps a few values of the weighted multiset
:math:`D = \{(x_i, w_i)\}` with bounds on their ranks:

* :math:`r^-_D(y) = \sum_{x_i < y} w_i`, :math:`r^+_D(y) = \sum_{x_i \le y} w_i`,
  :math:`\omega_D(y) = \sum_{x_i = y} w_i` and :math:`\omega(D) = \sum_i w_i`
  (the appendix's rank functions; the chapter writes the summary
  :math:`\mathcal{S}(D)` and the weights :math:`W_D(y)`, :math:`W(D)`, since
  :math:`Q` is an impurity and :math:`W` a total weight in the book);
* Definition A.1: :math:`\tilde r^- \le r^-`, :math:`\tilde r^+ \ge r^+`,
  :math:`\tilde\omega \le \omega` at every kept value, with equality at the
  smallest and largest value of :math:`D`, and
  :math:`\tilde r^-(x_j) + \tilde\omega(x_j) \le \tilde r^-(x_{j+1})`,
  :math:`\tilde r^+(x_j) \le \tilde r^+(x_{j+1}) - \tilde\omega(x_{j+1})`;
* Definition A.2 extends the bounds to values between the kept ones;
* Definition A.3 and Lemma A.2: the summary is *ε-approximate* when
  :math:`\tilde r^+(x_j) - \tilde r^-(x_j) - \tilde\omega(x_j) \le \varepsilon\,\omega(D)`
  and :math:`\tilde r^+(x_{j+1}) - \tilde\omega(x_{j+1}) - \tilde r^-(x_j) - \tilde\omega(x_j)
  \le \varepsilon\,\omega(D)`.

Two operations build a small summary of any amount of data: *merge*
(:eq:`eq-xgb-sketch-merge`, Theorem A.1: errors ε1 and ε2 give max(ε1, ε2))
and *prune* to b + 1 values (:eq:`eq-xgb-sketch-prune`, Theorem A.2: the
error grows by 1/b). :func:`weighted_quantile_sketch` cuts the data into
blocks, summarises each block exactly, and merges and prunes level by level
as XGBoost's ``WQuantileSketch`` does.

In the arrays of :class:`WeightedQuantileSummary`, ``rmin``, ``rmax`` and
``wmin`` hold :math:`\tilde r^-`, :math:`\tilde r^+` and :math:`\tilde\omega`
(XGBoost's names).
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass

import numpy as np

from mltrees._validation import _as_numeric_array

__all__ = ["DEFAULT_BLOCK_SIZE", "WeightedQuantileSummary", "weighted_quantile_sketch"]

#: Rows summarised exactly at once by :func:`weighted_quantile_sketch` (one sort each).
DEFAULT_BLOCK_SIZE = 1 << 16

# Relative tolerance of query() for ranks just outside [0, total weight].
_RANK_SLACK = 1e-9


def _check_data(values, weights) -> tuple[np.ndarray, np.ndarray | None]:
    """Validate values and weights; drop the rows whose value is NaN (missing).

    Unit weights stay None, so that an exact summary can skip the weight gathers.
    """
    v = _as_numeric_array(values, "values").astype(np.float64, copy=False)
    if v.ndim != 1:
        raise ValueError(f"values must be one-dimensional, got an array of shape {v.shape}")
    w = None
    if weights is not None:
        w = _as_numeric_array(weights, "weights").astype(np.float64, copy=False)
        if w.shape != v.shape:
            raise ValueError(
                f"weights must have shape {v.shape} to match values, got an array of shape "
                f"{w.shape}"
            )
        if not np.isfinite(w).all():
            raise ValueError("weights contains NaN or inf; weights must be finite")
        if (w < 0).any():
            raise ValueError(
                f"weights has negative entries, e.g. {float(w[w < 0][0])!r}; "
                "weights must be >= 0 (XGBoost uses the hessians h_i)"
            )
    missing = np.isnan(v)
    if np.isinf(v).any():
        raise ValueError(
            "values contains inf; only NaN is accepted as a missing value, other values "
            "must be finite"
        )
    if missing.any():
        keep = ~missing
        return v[keep], (None if w is None else w[keep])
    return v, w


def _check_positive_int(value, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an integer >= 1, got {value!r}")
    if value < 1:
        raise ValueError(f"{name} must be an integer >= 1, got {value!r}")
    return int(value)


def _exact_summary(v: np.ndarray, w: np.ndarray | None) -> WeightedQuantileSummary:
    """Exact (0-approximate) summary of validated, NaN-free data (appendix A.2)."""
    if v.size == 0:
        return WeightedQuantileSummary.empty()
    if w is None:
        v = np.sort(v)
    else:
        order = np.argsort(v)
        v = v[order]
        w = w[order]
    starts = np.flatnonzero(np.concatenate(([True], v[1:] != v[:-1])))
    if w is None:
        omega = np.diff(np.append(starts, v.size)).astype(np.float64)
    else:
        omega = np.add.reduceat(w, starts)
    r_plus = np.cumsum(omega)
    # r- is r+ shifted by one value, so r-(x_{j+1}) == r+(x_j) holds exactly; the total is
    # the last r+ (not w.sum(), which rounds differently) so that r+(x_k) == w(D) exactly.
    r_minus = np.concatenate(([0.0], r_plus[:-1]))
    total = float(r_plus[-1])
    return WeightedQuantileSummary._trusted(v[starts], r_minus, r_plus, omega, total)


@dataclass(frozen=True, eq=False)
class WeightedQuantileSummary:
    r"""A weighted quantile summary :math:`Q(D)` (Definition A.1 of the appendix).

    Parameters
    ----------
    values : ndarray of float64, shape (k,)
        The kept values :math:`x_1 < \dots < x_k` of the data, the smallest and
        the largest among them.
    rmin : ndarray of float64, shape (k,)
        :math:`\tilde r^-(x_j) \le r^-_D(x_j)`, a lower bound on the weight of the
        data strictly below :math:`x_j`.
    rmax : ndarray of float64, shape (k,)
        :math:`\tilde r^+(x_j) \ge r^+_D(x_j)`, an upper bound on the weight of the
        data at or below :math:`x_j`.
    wmin : ndarray of float64, shape (k,)
        :math:`\tilde\omega(x_j) \le \omega_D(x_j)`, a lower bound on the weight at
        :math:`x_j`.
    total_weight : float
        :math:`\omega(D)`, the total weight of the data.

    Notes
    -----
    Build summaries with :meth:`from_data`, :meth:`merge`, :meth:`prune` or
    :func:`weighted_quantile_sketch`: they keep the invariants of Definition A.1
    (bounds exact at the smallest and largest value), on which the guarantees of
    :meth:`query` and :meth:`max_error` rest. The constructor checks shapes and
    order only. The arrays are read-only, so operations may share them.
    """

    values: np.ndarray
    rmin: np.ndarray
    rmax: np.ndarray
    wmin: np.ndarray
    total_weight: float

    def __post_init__(self):
        arrays = {}
        for name in ("values", "rmin", "rmax", "wmin"):
            arr = _as_numeric_array(getattr(self, name), name).astype(np.float64)
            if arr.ndim != 1:
                raise ValueError(f"{name} must be one-dimensional, got shape {arr.shape}")
            if not np.isfinite(arr).all():
                raise ValueError(f"{name} must be finite")
            arr.flags.writeable = False
            arrays[name] = arr
        k = arrays["values"].shape[0]
        for name, arr in arrays.items():
            if arr.shape[0] != k:
                raise ValueError(
                    f"{name} has {arr.shape[0]} entries but values has {k}; one per value"
                )
        if k > 1 and not (np.diff(arrays["values"]) > 0).all():
            raise ValueError("values must be strictly increasing")
        for name in ("rmin", "rmax", "wmin"):
            if k and arrays[name].min() < 0:
                raise ValueError(f"{name} must be >= 0 (a rank or a weight)")
        total = self.total_weight
        if isinstance(total, bool) or not isinstance(total, numbers.Real):
            raise TypeError(f"total_weight must be a real number, got {total!r}")
        total = float(total)
        if not math.isfinite(total) or total < 0:
            raise ValueError(f"total_weight must be finite and >= 0, got {total!r}")
        for name, arr in arrays.items():
            object.__setattr__(self, name, arr)
        object.__setattr__(self, "total_weight", total)

    # ------------------------------------------------------------------ construction
    @classmethod
    def _trusted(cls, values, rmin, rmax, wmin, total_weight) -> WeightedQuantileSummary:
        """Wrap float64 arrays made by an operation of this module, without checks."""
        obj = object.__new__(cls)
        for name, arr in zip(
            ("values", "rmin", "rmax", "wmin"), (values, rmin, rmax, wmin), strict=True
        ):
            arr.flags.writeable = False
            object.__setattr__(obj, name, arr)
        object.__setattr__(obj, "total_weight", float(total_weight))
        return obj

    @classmethod
    def empty(cls) -> WeightedQuantileSummary:
        """The summary of no data: the identity of :meth:`merge`."""
        return cls(*(np.empty(0) for _ in range(4)), 0.0)

    @classmethod
    def from_data(cls, values, weights=None) -> WeightedQuantileSummary:
        r"""Exact summary of a block of weighted data (appendix A.2).

        Sorts the values and combines equal ones, so that
        :math:`\tilde r^- = r^-_D`, :math:`\tilde r^+ = r^+_D` and
        :math:`\tilde\omega = \omega_D` at every distinct value: a 0-approximate
        summary (:math:`r^\pm_D` as in :eq:`eq-xgb-rank`, chapter on XGBoost).

        Parameters
        ----------
        values : array_like, shape (n,)
            Real values; NaN marks a missing value and is left out with its weight.
        weights : array_like, shape (n,), optional
            Non-negative finite weights (XGBoost's hessians :math:`h_i`); ones if None.

        Returns
        -------
        WeightedQuantileSummary
            One entry per distinct value; the empty summary if no value is left.

        Raises
        ------
        TypeError
            If values or weights are not real numbers.
        ValueError
            If values is not one-dimensional or holds ±inf, or weights has another
            shape, a negative, NaN or infinite entry.
        """
        return _exact_summary(*_check_data(values, weights))

    # ------------------------------------------------------------------ basics
    @property
    def size(self) -> int:
        """Number of kept values k."""
        return int(self.values.shape[0])

    def __len__(self) -> int:
        return self.size

    def __repr__(self) -> str:
        return (
            f"WeightedQuantileSummary(size={self.size}, total_weight={self.total_weight:.6g}, "
            f"max_error={self.max_error():.3g})"
        )

    def _extended(self, y: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        r"""Bounds :math:`\tilde r^-(y), \tilde r^+(y), \tilde\omega(y)` for any y (Def. A.2).

        Below :math:`x_1` both ranks are 0, above :math:`x_k` both are
        :math:`\omega(D)`; between :math:`x_j` and :math:`x_{j+1}` they are
        :math:`\tilde r^-(x_j) + \tilde\omega(x_j)` and
        :math:`\tilde r^+(x_{j+1}) - \tilde\omega(x_{j+1})`, with weight 0.
        """
        k = self.size
        pos = np.searchsorted(self.values, y, side="left")
        inside = pos < k
        found = np.zeros(y.shape, dtype=bool)
        found[inside] = self.values[pos[inside]] == y[inside]
        # Indexed by pos = number of kept values below y: entry pos of each table is the
        # bound for a y that falls just before kept value pos (pos == k: after all).
        below = np.concatenate(([0.0], self.rmin[:-1] + self.wmin[:-1], [self.total_weight]))
        above = np.concatenate(([0.0], self.rmax[1:] - self.wmin[1:], [self.total_weight]))
        lo = below[pos]
        hi = above[pos]
        w = np.zeros(y.shape)
        at = pos[found]
        lo[found] = self.rmin[at]
        hi[found] = self.rmax[at]
        w[found] = self.wmin[at]
        return lo, hi, w

    # ------------------------------------------------------------------ operations
    def merge(self, other: WeightedQuantileSummary) -> WeightedQuantileSummary:
        r"""Summary of the union of the two data sets (merge, Theorem A.1).

        Implements :eq:`eq-xgb-sketch-merge` (chapter on XGBoost): the kept values
        are the union of both, and at every such value y
        :math:`\tilde r^\pm_{D}(y) = \tilde r^\pm_{D_1}(y) + \tilde r^\pm_{D_2}(y)`,
        :math:`\tilde\omega_{D}(y) = \tilde\omega_{D_1}(y) + \tilde\omega_{D_2}(y)`,
        each summary's bounds extended to values it did not keep by Definition A.2.
        If the summaries are ε1- and ε2-approximate, the merge is
        max(ε1, ε2)-approximate: the absolute errors ε1·ω(D1) and ε2·ω(D2) add up,
        and so do the weights.

        Parameters
        ----------
        other : WeightedQuantileSummary

        Returns
        -------
        WeightedQuantileSummary
            At most ``len(self) + len(other)`` values; no error is added.
        """
        if not isinstance(other, WeightedQuantileSummary):
            raise TypeError(f"other must be a WeightedQuantileSummary, got {type(other).__name__}")
        if other.size == 0:
            return self
        if self.size == 0:
            return other
        # Two sorted runs: the stable sort (timsort) merges them in linear time.
        both = np.sort(np.concatenate((self.values, other.values)), kind="stable")
        union = both[np.concatenate(([True], both[1:] != both[:-1]))]
        lo1, hi1, w1 = self._extended(union)
        lo2, hi2, w2 = other._extended(union)
        return WeightedQuantileSummary._trusted(
            union, lo1 + lo2, hi1 + hi2, w1 + w2, self.total_weight + other.total_weight
        )

    def _query_index(self, d: np.ndarray) -> np.ndarray:
        r"""Index of :math:`g(Q, d)`, the appendix's query function (Definition A.5).

        With :math:`m_j = (\tilde r^-(x_j) + \tilde r^+(x_j))/2`: :math:`x_1` if
        :math:`d < m_1`, :math:`x_k` if :math:`d \ge m_k`; otherwise, for
        :math:`m_j \le d < m_{j+1}`, :math:`x_j` if
        :math:`2d < \tilde r^-(x_j) + \tilde\omega(x_j) + \tilde r^+(x_{j+1}) -
        \tilde\omega(x_{j+1})` and :math:`x_{j+1}` if not. Non-decreasing in d.
        """
        k = self.size
        j = np.searchsorted(self.rmin + self.rmax, 2.0 * d, side="right") - 1
        if k == 1:
            return np.zeros(d.shape, dtype=np.intp)
        jj = np.clip(j, 0, k - 2)
        threshold = (self.rmin[jj] + self.wmin[jj]) + (self.rmax[jj + 1] - self.wmin[jj + 1])
        pick = jj + (2.0 * d >= threshold)
        return np.where(j < 0, 0, np.where(j >= k - 1, k - 1, pick))

    def prune(self, b: int) -> WeightedQuantileSummary:
        r"""Keep at most b + 1 values (prune, Theorem A.2).

        Implements :eq:`eq-xgb-sketch-prune` (chapter on XGBoost): the kept values
        are :math:`g(Q, i\,\omega(D)/b)` for :math:`i = 0, \dots, b`, with their
        bounds unchanged, where g is the appendix's query function (see
        :meth:`query`). An ε-approximate summary becomes (ε + 1/b)-approximate.
        The smallest and largest value are always kept (they are
        :math:`g(Q, 0)` and :math:`g(Q, \omega(D))` whenever they carry weight),
        so Definition A.1 still holds when some weights are zero.

        Parameters
        ----------
        b : int
            At least 1.

        Returns
        -------
        WeightedQuantileSummary
            ``self`` if it has at most b + 1 values already (no error is added).
        """
        b = _check_positive_int(b, "b")
        if self.size <= b + 1:
            return self
        d = self.total_weight * (np.arange(1, b) / b)
        # g is non-decreasing in d; sort anyway in case rounding broke that (np.unique
        # would hash: several times slower here).
        keep = np.sort(np.concatenate(([0], self._query_index(d), [self.size - 1])))
        keep = keep[np.concatenate(([True], keep[1:] != keep[:-1]))]
        return WeightedQuantileSummary._trusted(
            self.values[keep],
            self.rmin[keep],
            self.rmax[keep],
            self.wmin[keep],
            self.total_weight,
        )

    # ------------------------------------------------------------------ answers
    def max_error(self) -> float:
        r"""The ε of this summary: the smallest ε for which it is ε-approximate.

        Computed from the summary alone by Lemma A.2 of the appendix:
        the largest of :math:`\tilde r^+(x_j) - \tilde r^-(x_j) - \tilde\omega(x_j)`
        and :math:`\tilde r^+(x_{j+1}) - \tilde\omega(x_{j+1}) - \tilde r^-(x_j) -
        \tilde\omega(x_j)`, divided by :math:`\omega(D)`. Theorem A.1
        (:eq:`eq-xgb-sketch-merge`) and Theorem A.2 (:eq:`eq-xgb-sketch-prune`)
        bound how merge and prune change it (chapter on XGBoost). 0.0 for an exact
        summary, an empty one, or data of total weight 0.

        Returns
        -------
        float
            ε ≥ 0 (tiny negative rounding is reported as 0).
        """
        if self.size == 0 or self.total_weight == 0:
            return 0.0
        worst = np.max(self.rmax - self.rmin - self.wmin)
        if self.size > 1:
            gaps = (self.rmax[1:] - self.wmin[1:]) - (self.rmin[:-1] + self.wmin[:-1])
            worst = max(worst, np.max(gaps))
        return max(float(worst), 0.0) / self.total_weight

    def query(self, rank):
        r"""A value of weighted rank close to ``rank``: the query function g(Q, d).

        Definition A.5 and Lemma A.3 of the appendix (chapter on XGBoost, ranks as
        in :eq:`eq-xgb-rank` before dividing by :math:`\sum h`): for an
        ε-approximate summary (ε = :meth:`max_error`) the returned value x satisfies
        :math:`\tilde r^+(x) - \tilde\omega(x) - \tfrac{\varepsilon}{2}\omega(D)
        \le d \le \tilde r^-(x) + \tilde\omega(x) + \tfrac{\varepsilon}{2}\omega(D)`,
        hence :math:`r^-_D(x) - \tfrac{\varepsilon}{2}\omega(D) \le d \le
        r^+_D(x) + \tfrac{\varepsilon}{2}\omega(D)`: the rank interval of x, the
        ranks its weight covers, is within εω(D)/2 of d. An exact summary
        (ε = 0) returns an exact weighted d-quantile.

        Parameters
        ----------
        rank : float or array_like of float
            Absolute weighted ranks d in [0, ω(D)] (a fraction q of the data is
            ``q * total_weight``); ranks outside by at most 1e-9·ω(D), the rounding
            of a total summed in another order, are clipped.

        Returns
        -------
        float or ndarray of float64
            One value per rank, with the shape of ``rank``.

        Raises
        ------
        ValueError
            If the summary is empty or a rank is NaN or outside [0, total_weight].
        """
        if self.size == 0:
            raise ValueError("cannot query an empty summary (no non-missing value was seen)")
        d = _as_numeric_array(rank, "rank").astype(np.float64)
        if np.isnan(d).any():
            raise ValueError("rank contains NaN")
        # A total summed in another order differs in the last bits: accept and clip that.
        slack = _RANK_SLACK * self.total_weight
        if d.size and (d.min() < -slack or d.max() > self.total_weight + slack):
            raise ValueError(
                f"rank must lie in [0, total_weight] = [0, {self.total_weight!r}], got values "
                f"from {float(d.min())!r} to {float(d.max())!r}"
            )
        d = np.clip(d, 0.0, self.total_weight)
        out = self.values[self._query_index(d.ravel())].reshape(d.shape)
        return float(out) if out.ndim == 0 else out

    def cut_points(self, n_bins: int) -> np.ndarray:
        r"""Candidate split values at the weighted ranks k·ω(D)/n_bins.

        The proposal of the approximate split finder (chapter on XGBoost,
        :eq:`eq-xgb-rank`): :math:`s_1 = \min x`, :math:`s_l = \max x` and between
        them :meth:`query` at :math:`k\,\omega(D)/n_{bins}` for
        :math:`k = 1, \dots, n_{bins} - 1`, duplicates removed. Consecutive
        candidates delimit intervals of weight about ω(D)/n_bins; each candidate's
        rank is within ε·ω(D)/2 of its target (ε = :meth:`max_error`).

        Parameters
        ----------
        n_bins : int
            Number of intervals, at least 1.

        Returns
        -------
        ndarray of float64
            Sorted, distinct, at most n_bins + 1 values; empty for an empty summary.
        """
        n_bins = _check_positive_int(n_bins, "n_bins")
        if self.size == 0:
            return np.empty(0)
        inner = self.total_weight * (np.arange(1, n_bins) / n_bins)
        picked = np.sort(self._query_index(inner))
        keep = np.concatenate(([0], picked, [self.size - 1]))
        keep = keep[np.concatenate(([True], keep[1:] != keep[:-1]))]
        return self.values[keep]


def weighted_quantile_sketch(values, weights, eps, block_size=None) -> WeightedQuantileSummary:
    r"""ε-approximate weighted quantile summary built by merging and pruning blocks.

    The data are cut into consecutive blocks of ``block_size`` rows; each block
    is summarised exactly (appendix A.2) and pruned to b + 1 values; the
    summaries are then merged (:eq:`eq-xgb-sketch-merge`) and pruned
    (:eq:`eq-xgb-sketch-prune`) level by level like a binary counter, at most
    one waiting summary per level, as in XGBoost's ``WQuantileSketch`` (chapter
    on XGBoost). A block's value goes through at most
    :math:`P = 1 + \lceil \log_2 n_{blocks} \rceil` prunes and merges keep the
    largest error (Theorem A.1), so with :math:`b = \lceil P/\varepsilon \rceil`
    Theorem A.2 bounds the error of the result by :math:`P/b \le \varepsilon`.

    Parameters
    ----------
    values : array_like, shape (n,)
        Real values; NaN marks a missing value and is ignored with its weight.
    weights : array_like, shape (n,) or None
        Non-negative finite weights (the hessians :math:`h_i` in XGBoost); None
        for unit weights.
    eps : float
        Target error ε in (0, 1]: every rank bound is within ε·ω(D).
    block_size : int, optional
        Rows summarised exactly at once; :data:`DEFAULT_BLOCK_SIZE` if None.
        The number of merges is about n / block_size.

    Returns
    -------
    WeightedQuantileSummary
        A summary with :meth:`~WeightedQuantileSummary.max_error` ≤ eps and at
        most b + 1 values; the empty summary if no value is left.

    Raises
    ------
    TypeError
        If an argument has the wrong type.
    ValueError
        If values holds ±inf or is not one-dimensional, weights has another
        shape or a negative, NaN or infinite entry, eps is outside (0, 1], or
        block_size < 1.
    """
    if isinstance(eps, bool) or not isinstance(eps, numbers.Real):
        raise TypeError(f"eps must be a real number in (0, 1], got {eps!r}")
    eps = float(eps)
    if not 0 < eps <= 1:  # also rejects NaN
        raise ValueError(f"eps must lie in (0, 1], got {eps!r}")
    block_size = (
        DEFAULT_BLOCK_SIZE if block_size is None else _check_positive_int(block_size, "block_size")
    )
    v, w = _check_data(values, weights)
    n = v.shape[0]
    if n == 0:
        return WeightedQuantileSummary.empty()
    n_blocks = -(-n // block_size)
    n_prunes = 1 + (n_blocks - 1).bit_length()  # 1 + ceil(log2(n_blocks))
    b = math.ceil(n_prunes / eps)
    while n_prunes / b > eps:  # guard against the rounding of n_prunes / eps
        b += 1
    # levels[l] holds a summary of 2**l blocks waiting for its partner, or None.
    levels: list[WeightedQuantileSummary | None] = []
    for start in range(0, n, block_size):
        stop = start + block_size
        carry = _exact_summary(v[start:stop], None if w is None else w[start:stop])
        carry = carry.prune(b)
        level = 0
        while level < len(levels) and levels[level] is not None:
            carry = levels[level].merge(carry).prune(b)
            levels[level] = None
            level += 1
        if level == len(levels):
            levels.append(carry)
        else:
            levels[level] = carry
    result = None
    for summary in levels:  # fold the leftovers, smallest first
        if summary is not None:
            result = summary if result is None else summary.merge(result).prune(b)
    return result
