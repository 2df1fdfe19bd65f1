"""One partition of the rows of an oblivious tree, as a row store answers (chapter on scale).

:meth:`~mltrees.hist.catboost.oblivious.ObliviousGrower.grow_rows` grows an
oblivious tree from sums over rows only: per level, the row count of every
node and the ``(S, W)`` histograms of every (node, column, bin); at the
end, the sums of every leaf. Sums over disjoint sets of rows add up, so a
partition of the rows computes its own with the functions of this module
and the partitions' answers are added (:mod:`mltrees.dask.oblivious`).

Each partition sums its rows in row order with the same ``np.bincount``
calls as the one-machine grower (:func:`~mltrees.hist.catboost.oblivious._histograms`,
:func:`~mltrees.hist.catboost.leaves.leaf_sums`); a sum over several
partitions then differs from one machine's only by the order of the
additions (partial sums added), about one unit in the last place.

The functions never modify their inputs: the state of a partition at a
level (the node of each row) is a function of its rows and of the splits
chosen so far, so a task that runs twice gives the same answer.
"""

from __future__ import annotations

from dataclasses import dataclass
from dataclasses import replace as dataclass_replace

import numpy as np

from mltrees.hist.catboost.leaves import leaf_sums
from mltrees.hist.catboost.oblivious import HistogramLayout, _bin_sums, _entry_weights, leaf_index

__all__ = ["ObliviousPart", "ObliviousRows"]


@dataclass(frozen=True)
class ObliviousPart:
    """The fixed data of one partition: its codes, their histogram cells, targets and weights.

    Attributes
    ----------
    codes : ndarray of uint8, shape (n_columns, n_rows)
        Feature-major border codes (:func:`~mltrees.hist.catboost.borders.encode_borders`).
    layout : HistogramLayout
        :meth:`~mltrees.hist.catboost.oblivious.HistogramLayout.build` of the codes:
        the cell of every (column, code), laid out as on the driver.
    y : ndarray of float64, shape (n_rows,)
        Targets as the loss reads them (float32 labels, or class codes).
    weight : ndarray of float64, shape (n_rows,)
    """

    codes: np.ndarray
    layout: HistogramLayout
    y: np.ndarray
    weight: np.ndarray

    @classmethod
    def build(cls, codes, n_borders, y, weight) -> ObliviousPart:
        """The partition with the grower's histogram layout of its codes."""
        return cls(codes, HistogramLayout.build(codes, n_borders), y, weight)

    @property
    def n_rows(self) -> int:
        """Rows of the partition."""
        return self.codes.shape[1]


@dataclass(frozen=True)
class ObliviousRows:
    """A partition during the growth of one tree: its part, statistics and the node of each row.

    Attributes
    ----------
    part : ObliviousPart
    S : ndarray, shape (n_rows, n_outputs)
        ``w (y - F)`` of the round.
    curvature : ndarray of shape (n_rows, 1), or tuple ``(w, p)``
        What a leaf's step divides by
        (:meth:`~mltrees.hist.catboost.oblivious.ObliviousGrower.grow`).
    unit : bool
        Whether every weight of the whole data is 1 (``W`` histograms then count rows).
    node : ndarray of intp, shape (n_rows,)
    """

    part: ObliviousPart
    S: np.ndarray
    curvature: object
    unit: bool
    node: np.ndarray

    @classmethod
    def start(cls, part: ObliviousPart, statistics, unit: bool) -> ObliviousRows:
        """Every row at the root; ``statistics`` is ``(S, curvature)``."""
        S, curvature = statistics
        return cls(part, S, curvature, unit, np.zeros(part.n_rows, dtype=np.intp))

    def level(self, split, level: int, leaves: bool):
        """The rows after ``split`` (chosen at ``level - 1``), and this level's answer.

        The answer is ``(counts, bin sums, leaf sums or None)``: the rows of
        each of the ``2**level`` nodes, the sums of every (channel, node,
        cell) of :func:`~mltrees.hist.catboost.oblivious._bin_sums` (an empty array
        when ``leaves``: the level is the tree's last) and, with ``leaves``,
        :meth:`leaf_statistics` of the nodes as leaves.
        """
        node = self.node
        if split is not None:
            f, b = split
            node = node + ((self.part.codes[f] > b).astype(np.intp) << (level - 1))
        rows = dataclass_replace(self, node=node)
        n_nodes = 1 << level
        counts = np.bincount(node, minlength=n_nodes)
        sums = np.zeros(0, dtype=np.complex128)
        if not leaves:
            layout = self.part.layout
            W = None if self.unit else self.part.weight
            weights = _entry_weights(layout, self.S, W)
            shape = (self.S.shape[1] + 1, 1, 1, n_nodes)
            sums = _bin_sums(layout, node, shape, weights)[1].copy()  # off the reused workspace
        return rows, (counts, sums, rows.leaf_statistics(node, level, n_nodes) if leaves else None)

    def leaf_statistics(self, leaf: np.ndarray, n_levels: int, n_leaves: int) -> tuple:
        """What the leaf values and the tree's records need, summed over this partition.

        ``(sums, curvature sums, weight, count, gradient)``: the first two
        by leaf of the first ``n_levels`` levels (``leaf & mask``,
        :func:`~mltrees.hist.catboost.leaves.leaf_sums`), the last three
        (``Σ w``, rows, ``Σ S``) by leaf of all ``n_leaves``.
        """
        mask = (1 << n_levels) - 1
        S, w = self.S, self.part.weight
        sums, curvature = leaf_sums(leaf & mask, mask + 1, S, self.curvature)
        if mask + 1 == n_leaves:
            gradient = sums  # the same bincounts
        else:
            gradient = np.stack(
                [np.bincount(leaf, S[:, k], minlength=n_leaves) for k in range(S.shape[1])], 1
            )
        return (
            sums,
            curvature,
            np.bincount(leaf, w, minlength=n_leaves),
            np.bincount(leaf, minlength=n_leaves),
            gradient,
        )

    def leaves(self, feature, border, n_levels: int) -> tuple:
        """:meth:`leaf_statistics` of a finished tree, its leaves computed from the codes."""
        leaf = leaf_index(self.part.codes, feature, border)
        return self.leaf_statistics(leaf, n_levels, 1 << len(feature))

    def leaf_of_row(self, feature, border) -> np.ndarray:
        """The leaf of every row of the partition in the finished tree (:eq:`eq-oblivious-leaf`)."""
        return leaf_index(self.part.codes, feature, border)
