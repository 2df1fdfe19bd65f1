"""One partition of the rows of a leaf-wise tree, as a row store answers (chapter on scale).

:meth:`~mltrees.hist.lightgbm.leafwise.LeafwiseGrower.grow_rows` grows LightGBM's
leaf-wise tree from sums over rows only: the root's totals and histogram,
then per split the rows sent left and the histogram of the smaller child.
Sums over disjoint sets of rows add up, so a partition of the rows answers
with the functions of this module and the partitions' answers are added
(:mod:`mltrees.dask.lightgbm`).

A partition keeps its rows as the one-machine grower does: every leaf a
segment of ``order``, split by a stable partition
(:func:`~mltrees.hist.grower.partition_segment`), so a leaf's rows are in
row order and its histogram is summed by the same
:func:`~mltrees.hist.histogram.leaf_histogram`. The functions never modify
their inputs (a split returns a new :class:`LeafwiseRows`), so a task that
runs twice gives the same answer.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mltrees.hist.grower import leaf_of_segments, partition_segment
from mltrees.hist.histogram import leaf_histogram

__all__ = ["LeafwisePart", "LeafwiseRows"]


@dataclass(frozen=True)
class LeafwisePart:
    """The fixed data of one partition: its bin codes, targets and weights.

    Attributes
    ----------
    codes : ndarray of uint8 or uint16, shape (n_features, n_rows)
        Feature-major codes against the global bins.
    row_major : ndarray, shape (n_rows, n_features)
        The same codes row by row (what :func:`~mltrees.hist.histogram.leaf_histogram` gathers).
    stride, missing_code : int
        Of the global bins.
    y : ndarray of float64
        Float32 labels or class codes.
    weight : ndarray of float64 or None
        Float32 weights; None when every weight of the data is 1.
    """

    codes: np.ndarray
    row_major: np.ndarray
    stride: int
    missing_code: int
    y: np.ndarray
    weight: np.ndarray | None

    @property
    def n_rows(self) -> int:
        """Rows of the partition."""
        return self.codes.shape[1]


@dataclass(frozen=True)
class LeafwiseRows:
    """A partition during the growth of one tree: its rows by leaf, and their ``g``, ``h``.

    Leaf ``i`` holds the rows ``order[start[i] : start[i] + count[i]]``.
    """

    part: LeafwisePart
    g: np.ndarray
    h: np.ndarray
    order: np.ndarray
    start: tuple
    count: tuple

    @classmethod
    def start_tree(cls, part: LeafwisePart, g, h) -> LeafwiseRows:
        """Every row in the root leaf."""
        n = part.n_rows
        return cls(part, g, h, np.arange(n, dtype=np.intp), (0,), (n,))

    def _built(self, rows, features) -> np.ndarray:
        part = self.part
        built = leaf_histogram(
            part.codes,
            part.stride,
            rows,
            (self.g, self.h),
            np.asarray(features, dtype=np.intp),
            row_major=part.row_major,
        )
        return np.ascontiguousarray(built.transpose(0, 2, 1))  # (feature, statistic, bin)

    def root(self, features) -> tuple:
        """``(Σg, Σh)`` of the rows (each summed in row order) and their histogram."""
        if self.part.n_rows == 0:
            totals = np.zeros(2)
        else:
            totals = np.array([np.cumsum(self.g)[-1], np.cumsum(self.h)[-1]])
        return totals, self._built(None, features)

    def histogram(self, leaf: int, features) -> np.ndarray:
        """The histogram of the rows of ``leaf``, in row order."""
        s, c = self.start[leaf], self.count[leaf]
        return self._built(self.order[s : s + c], features)

    def split(self, leaf, right, feature, split_bin, default_left, left_bins, build):
        """Split ``leaf`` (its right rows become leaf ``right``); the new rows and the answer.

        The answer is ``(rows sent left, histogram)``: the histogram of the
        child ``build = (side, features)`` names (0 left, 1 right), or an
        empty array when ``build`` is None.
        """
        s, c = self.start[leaf], self.count[leaf]
        order = self.order.copy()
        code = self.part.codes[feature].take(order[s : s + c])
        if split_bin < 0:  # a categorical split: its set of bins goes left
            go_left = np.asarray(left_bins)[code]
        else:
            go_left = code <= split_bin
            if default_left:
                go_left |= code == self.part.missing_code
        n_left = partition_segment(order, s, c, go_left)
        start, count = list(self.start), list(self.count)
        count[leaf] = n_left
        if right != len(start):
            raise ValueError(f"the right child must be leaf {len(start)}, got {right}")
        start.append(s + n_left)
        count.append(c - n_left)
        rows = LeafwiseRows(self.part, self.g, self.h, order, tuple(start), tuple(count))
        built = np.zeros(0)
        if build is not None:
            side, features = build
            built = rows.histogram(right if side else leaf, features)
        return rows, (np.int64(n_left), built)

    def leaf_of_row(self, node_of) -> np.ndarray:
        """The node of every row of the partition (``node_of[i]``: the node of leaf ``i``)."""
        return leaf_of_segments(self.order, self.start, self.count, node_of, self.part.n_rows)
