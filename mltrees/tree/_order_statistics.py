"""Weighted medians and absolute deviations of many ranges at once (chapter 3).

The absolute-error criterion scores a candidate split by
``sum_i w_i |y_i - median|`` on each side, and the median of a prefix cannot be
updated by a sum the way a mean can. A *wavelet matrix* over the ranks of
``y`` answers the question for any range ``[lo, hi)`` of a sequence in
``log2(n)`` vectorized steps, so every candidate of every node is scored in
one pass: no loop over samples, only over the bits of a rank.

Construction: at each bit of the rank (most significant first) the sequence is
stably partitioned into the elements whose bit is 0, then those whose bit is
1, and prefix sums of count, weight and weight * y of the 0-elements are kept.
A query descends the bits: while the 0-side of the range holds at least half
of the remaining weight the weighted median lies there; otherwise that side is
entirely below the median and is added to the "below" sums.
"""

from __future__ import annotations

import numpy as np

__all__ = ["RangeAbsoluteDeviation"]


class RangeAbsoluteDeviation:
    """Absolute deviation from the weighted median for ranges of a sequence.

    Parameters
    ----------
    y : ndarray of shape (n,)
        Values, in sequence order.
    w : ndarray of shape (n,)
        Positive weights.
    """

    def __init__(self, y: np.ndarray, w: np.ndarray):
        n = y.shape[0]
        by_value = np.argsort(y, kind="stable")
        rank = np.empty(n, dtype=np.int64)
        rank[by_value] = np.arange(n)
        self.value_of_rank = y[by_value]
        self.n_bits = max(1, int(n - 1).bit_length())
        self.zeros_count, self.zeros_weight, self.zeros_wy, self.n_zeros = [], [], [], []
        weighted_y = w * y
        self.prefix_weight = np.concatenate([[0.0], np.cumsum(w)])
        self.prefix_wy = np.concatenate([[0.0], np.cumsum(weighted_y)])
        for level in range(self.n_bits):
            bit = (rank >> (self.n_bits - 1 - level)) & 1
            is_zero = bit == 0
            self.zeros_count.append(np.concatenate([[0], np.cumsum(is_zero)]))
            self.zeros_weight.append(np.concatenate([[0.0], np.cumsum(np.where(is_zero, w, 0.0))]))
            self.zeros_wy.append(
                np.concatenate([[0.0], np.cumsum(np.where(is_zero, weighted_y, 0.0))])
            )
            self.n_zeros.append(int(is_zero.sum()))
            order = np.argsort(bit, kind="stable")  # zeros first, order kept
            rank, w, weighted_y = rank[order], w[order], weighted_y[order]

    def absolute_deviation(self, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
        """``sum w |y - m|`` over positions ``[lo, hi)``, ``m`` the weighted median.

        Empty ranges give 0. The weighted median is the smallest value at
        which the cumulative weight reaches half of the range's weight; any
        minimiser of the sum gives the same result.
        """
        lo = np.asarray(lo, dtype=np.int64).copy()
        hi = np.asarray(hi, dtype=np.int64).copy()
        total_w = self.prefix_weight[hi] - self.prefix_weight[lo]
        total_wy = self.prefix_wy[hi] - self.prefix_wy[lo]
        remaining = total_w / 2.0
        below_w = np.zeros(lo.shape)
        below_wy = np.zeros(lo.shape)
        rank = np.zeros(lo.shape, dtype=np.int64)
        for level in range(self.n_bits):
            count, weight, wy = (
                self.zeros_count[level],
                self.zeros_weight[level],
                self.zeros_wy[level],
            )
            zero_weight = weight[hi] - weight[lo]
            go_zero = zero_weight >= remaining
            # Not going to the 0-side: all its elements lie below the median.
            below_w += np.where(go_zero, 0.0, zero_weight)
            below_wy += np.where(go_zero, 0.0, wy[hi] - wy[lo])
            remaining = np.where(go_zero, remaining, remaining - zero_weight)
            zeros_lo, zeros_hi = count[lo], count[hi]
            n_zeros = self.n_zeros[level]
            lo = np.where(go_zero, zeros_lo, n_zeros + lo - zeros_lo)
            hi = np.where(go_zero, zeros_hi, n_zeros + hi - zeros_hi)
            rank = (rank << 1) | (~go_zero).astype(np.int64)
        median = self.value_of_rank[np.minimum(rank, self.value_of_rank.size - 1)]
        deviation = total_wy - 2.0 * below_wy - median * (total_w - 2.0 * below_w)
        return np.where(total_w > 0, np.maximum(deviation, 0.0), 0.0)
