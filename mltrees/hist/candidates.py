"""The best split of every node: one record for every grower (chapters 13-15).

A grower's split search returns, for each node (or leaf) it scored, the
best split found: its gain, feature and where it cuts, which side missing
values take, and the children's gradient sums. XGBoost calls that record
``SplitEntry``, LightGBM ``SplitInfo``, scikit-learn ``SplitInfo``; here it
is :class:`SplitCandidates`, one array per field over the nodes, used by the
depth-wise, leaf-wise and exact growers alike. Fields a method does not
produce stay None: the histogram methods cut after a bin (``split_bin``),
the exact method at a value (``cut``), and LightGBM adds what its leaf
values and categorical splits need.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

import numpy as np

__all__ = ["SplitCandidates"]


@dataclass(slots=True)
class SplitCandidates:
    """The best split of each node; one entry per node in every array field.

    Attributes
    ----------
    gain : ndarray of float, shape (n_nodes,)
        The loss change of the split; ``-inf`` where there is none (the exact
        method: 0, the gain a split must beat).
    feature : ndarray of intp, shape (n_nodes,)
        The split's feature.
    split_bin : ndarray of intp, shape (n_nodes,), optional
        Histogram methods: bins ``0 .. split_bin`` go left; -1 sends only
        the missing values left (XGBoost), a negative bin marks a
        categorical split whose ``left_bins`` go left (LightGBM).
    default_left : ndarray of bool, shape (n_nodes,), optional
        Whether missing values go left.
    left, right : ndarray of float, shape (n_nodes, 2), optional
        ``(G, 𝓗)`` of the left and right child.
    splittable : ndarray of bool, shape (n_nodes, n_features), optional
        LightGBM: whether feature ``j`` had a valid cut in the node (kept
        for its descendants).
    left_bins : ndarray of bool, shape (n_nodes, stride), optional
        LightGBM: a categorical split's left set of bins.
    child_l2 : ndarray of float, shape (n_nodes,), optional
        LightGBM: λ of the children's values (``cat_l2`` after a categorical split).
    out_H : ndarray of float, shape (n_nodes, 2), optional
        LightGBM: the hessian sums its children take their values from, ε
        included (𝓗 + ε, rounded once), as its ``CalculateSplittedLeafOutput``.
    cut : ndarray of float32, shape (n_nodes,), optional
        The exact method: the cut ``c`` of the test ``x < c``.
    lead, missing : ndarray of intp, shape (n_nodes,), optional
        The exact method: in the order of the split's feature, the node's
        first ``lead`` rows go left, and its last ``missing`` rows (its
        missing values) too if ``default_left``.
    """

    gain: np.ndarray
    feature: np.ndarray
    split_bin: np.ndarray | None = None
    default_left: np.ndarray | None = None
    left: np.ndarray | None = None
    right: np.ndarray | None = None
    splittable: np.ndarray | None = None
    left_bins: np.ndarray | None = None
    child_l2: np.ndarray | None = None
    out_H: np.ndarray | None = None
    cut: np.ndarray | None = None
    lead: np.ndarray | None = None
    missing: np.ndarray | None = None

    # ------------------------------------------------------------ one node
    def take(self, i: int) -> SplitCandidates:
        """Node ``i``'s split as a record of plain values (numbers, or its rows of 2-D fields)."""

        def number(values, kind):
            return None if values is None else kind(values[i])

        def row(values):
            return None if values is None else values[i]

        # Field by field (not dataclasses.fields): the leaf-wise grower takes
        # one record per leaf it scores.
        return SplitCandidates(
            float(self.gain[i]),
            int(self.feature[i]),
            number(self.split_bin, int),
            number(self.default_left, bool),
            row(self.left),
            row(self.right),
            row(self.splittable),
            row(self.left_bins),
            number(self.child_l2, float),
            row(self.out_H),
            number(self.cut, float),
            number(self.lead, int),
            number(self.missing, int),
        )

    # ----------------------------------------------------- the exact method
    @classmethod
    def none_gaining(cls, n: int) -> SplitCandidates:
        """The exact method's start: no split in any of ``n`` nodes (feature -1, gain 0)."""
        return cls(
            gain=np.zeros(n, dtype=np.float32),  # a split must beat loss change 0
            feature=np.full(n, -1, dtype=np.intp),
            cut=np.zeros(n, dtype=np.float32),
            default_left=np.zeros(n, dtype=bool),
            left=np.zeros((n, 2)),
            lead=np.zeros(n, dtype=np.intp),
            missing=np.zeros(n, dtype=np.intp),
        )

    def n_left(self) -> np.ndarray:
        """The exact method: rows sent left by each node's split."""
        return self.lead + np.where(self.default_left, self.missing, 0)

    def merge(self, other: SplitCandidates) -> None:
        """Keep, node by node, the better of this and ``other``, found on other features.

        The better split gains more; of two that gain the same, the one on
        the lower feature wins, as in XGBoost's exact method.
        """
        better = (other.gain > self.gain) | (
            (other.gain == self.gain) & (other.feature < self.feature)
        )
        for f in fields(self):
            mine = getattr(self, f.name)
            if mine is not None:
                mine[better] = getattr(other, f.name)[better]
