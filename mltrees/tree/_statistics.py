"""Sufficient statistics of tree nodes (chapter 3).

A statistics model sums the statistics of rows by group (``aggregate``) and
scores them: class counts for classification, (count, sum w, sum wy, sum wy^2)
for squared error, samples for absolute error. The split search
(:mod:`mltrees.tree._split`) reads nodes and candidate children only through
these models.
"""

from __future__ import annotations

import numpy as np

from mltrees.criteria import class_impurity, squared_error_impurity


def _xlog2x(values: np.ndarray) -> np.ndarray:
    """Elementwise ``v lg v`` with ``0 lg 0 = 0``."""
    logs = np.zeros_like(values)
    np.log2(values, out=logs, where=values > 0)
    return values * logs


class ClassificationStatistics:
    """Sufficient statistics of a classification node: sample count and weighted class counts."""

    def __init__(self, y_codes: np.ndarray, weights: np.ndarray, n_classes: int, criterion: str):
        self.y = y_codes.astype(np.intp)
        self.w = weights
        self.n_classes = n_classes
        self.criterion = criterion
        # With unit weights the class weights are class counts: an integer
        # bincount, no weight gathered, and the row count is their sum.
        self._unit_weights = bool(np.all(weights == 1.0))
        # Columns whose sums are whole numbers (exact in any order): the row
        # count, and with unit weights every class count.
        self.whole_columns = frozenset(range(1 + n_classes) if self._unit_weights else (0,))
        self._labels_of = (None, None)  # (rows, y[rows]) of the last call

    def _labels(self, rows: np.ndarray) -> np.ndarray:
        """``y[rows]``, gathered once for all features of a level (same ``rows`` object)."""
        cached_rows, labels = self._labels_of
        if cached_rows is not rows:
            labels = self.y[rows]
            self._labels_of = (rows, labels)
        return labels

    def aggregate(
        self, group: np.ndarray, n_groups: int, rows: np.ndarray, counts: bool = True
    ) -> np.ndarray:
        """Sum the statistics of ``rows`` by ``group``: shape (n_groups, 1 + n_classes).

        ``counts=False``: the row counts (column 0) are NaN, for a search
        that does not read them (no ``min_samples_leaf``), one pass fewer.
        """
        k = self.n_classes
        out = np.empty((n_groups, 1 + k), order="F")  # columns are read one at a time
        cells = group * k + self._labels(rows)
        if self._unit_weights:
            class_weight = np.bincount(cells, minlength=n_groups * k).reshape(n_groups, k)
            out[:, 1:] = class_weight
            # Column by column: a row-wise sum over k short rows is a slow reduction.
            out[:, 0] = out[:, 1]
            for c in range(2, k + 1):
                out[:, 0] += out[:, c]
            return out
        out[:, 0] = np.bincount(group, minlength=n_groups) if counts else np.nan
        class_weight = np.bincount(cells, weights=self.w[rows], minlength=n_groups * k)
        out[:, 1:] = class_weight.reshape(n_groups, k)
        return out

    @staticmethod
    def count(stats):
        return stats[..., 0]

    def take(self, index: np.ndarray, scale: np.ndarray) -> ClassificationStatistics:
        """Statistics of the rows ``index`` with their weights multiplied by ``scale``.

        The growth engine uses it for C4.5's fractional entries (chapter 6): a
        row whose tested value is missing is present in every child, with a
        share of its weight in each.
        """
        return ClassificationStatistics(
            self.y[index], self.w[index] * scale, self.n_classes, self.criterion
        )

    @staticmethod
    def weight(stats):
        return stats[..., 1:].sum(axis=-1)

    @staticmethod
    def weight_of_columns(columns):
        return sum(columns[1:])

    def impurity(self, stats):
        return class_impurity(stats[..., 1:], self.criterion)

    def magnitude(self, stats):
        """Size of the terms an impurity is computed from (its rounding is relative to it).

        Gini: class shares, at most 1. Entropy: ``lg w_c - lg W`` from
        ``W lg W - Σ w_c lg w_c``, terms of size ``|lg W|``.
        """
        if self.criterion == "gini":
            return np.ones(stats.shape[:-1])
        return np.maximum(1.0, np.abs(np.log2(np.maximum(self.weight(stats), 1e-300))))

    def weighted_impurity(self, columns: list[np.ndarray]) -> np.ndarray:
        """``W * impurity`` of many nodes given as columns (count, w_1, ..., w_k).

        Column-wise, without normalising: Gini ``W - sum_c w_c^2 / W`` and
        entropy ``W lg W - sum_c w_c lg w_c``, the forms that make scoring
        every candidate of a level cheap.
        """
        classes = columns[1:]
        # In place, in the order of Python's sum(): the same floats, fewer arrays.
        total = classes[0].copy()
        for w in classes[1:]:
            total += w
        if self.criterion == "gini":
            squares = classes[0] * classes[0]
            for w in classes[1:]:
                squares += w * w
            squares /= np.where(total > 0, total, 1.0)
            return np.subtract(total, squares, out=squares)
        parts = _xlog2x(classes[0])
        for w in classes[1:]:
            parts += _xlog2x(w)
        return np.subtract(_xlog2x(total), parts, out=parts)

    def value(self, stats):
        """Class fractions: the node's posterior distribution."""
        weights = stats[..., 1:]
        total = weights.sum(axis=-1, keepdims=True)
        return weights / np.where(total > 0, total, 1.0)

    def order_score(self, stats, parent_stats):
        """Key that orders categories for CART's subset split (Breiman's ordering).

        Two classes: the share of the second class, for which the ordering is
        provably optimal. More classes: the share of the parent's majority
        class, a heuristic (the optimal search is exponential).
        """
        fractions = self.value(stats)
        if self.n_classes == 2:
            return fractions[:, 1]
        majority = np.argmax(parent_stats[:, 1:], axis=1)
        return fractions[np.arange(len(fractions)), majority]


class _RegressionColumns:
    """Column layout shared by the regression statistics: (count, Σw, ...)."""

    @staticmethod
    def count(stats):
        return stats[..., 0]

    @staticmethod
    def weight(stats):
        return stats[..., 1]

    @staticmethod
    def weight_of_columns(columns):
        return columns[1]

    def take(self, index: np.ndarray, scale: np.ndarray):
        """Statistics of the rows ``index`` with their weights multiplied by ``scale``."""
        return type(self)(self.y[index], self.w[index] * scale)


class RegressionStatistics(_RegressionColumns):
    """Sufficient statistics of a regression node: (count, Σw, Σwy, Σwy²)."""

    criterion = "squared_error"

    def __init__(self, y: np.ndarray, weights: np.ndarray):
        self.y = y
        self.w = weights
        self.wy = weights * y
        self.wy2 = weights * y * y
        # Unit weights (regression trees and gradient boosting at their
        # defaults): Σw is the row count, exact in float64 up to 2**53 rows.
        self._unit_weights = bool(np.all(weights == 1.0))
        # Columns whose sums are whole numbers (see ClassificationStatistics).
        self.whole_columns = frozenset((0, 1) if self._unit_weights else (0,))

    def aggregate(
        self, group: np.ndarray, n_groups: int, rows: np.ndarray, counts: bool = True
    ) -> np.ndarray:
        """Sum the statistics of ``rows`` by ``group``: shape (n_groups, 4).

        ``counts=False``: the row counts (column 0) are NaN (see
        :meth:`ClassificationStatistics.aggregate`).
        """
        out = np.empty((n_groups, 4), order="F")  # columns are read one at a time
        weighted = (self.wy, self.wy2)
        if self._unit_weights:
            out[:, 1] = np.bincount(group, minlength=n_groups)
            out[:, 0] = out[:, 1] if counts else np.nan
        else:
            out[:, 0] = np.bincount(group, minlength=n_groups) if counts else np.nan
            weighted = (self.w, *weighted)
        for c, values in enumerate(weighted, start=4 - len(weighted)):
            out[:, c] = np.bincount(group, weights=values[rows], minlength=n_groups)
        return out

    def impurity(self, stats):
        return squared_error_impurity(stats[..., 1], stats[..., 2], stats[..., 3])

    def magnitude(self, stats):
        """``Σwy² / Σw``: the variance is a difference of terms this large."""
        w = stats[..., 1]
        return stats[..., 3] / np.where(w > 0, w, 1.0)

    def weighted_impurity(self, columns: list[np.ndarray]) -> np.ndarray:
        """``W * variance`` from columns (count, Σw, Σwy, Σwy²): ``Σwy² - (Σwy)² / Σw``."""
        _, w, wy, wy2 = columns
        return np.maximum(wy2 - wy * wy / np.where(w > 0, w, 1.0), 0.0)

    def value(self, stats):
        """The weighted mean: the constant that minimises squared error."""
        w = stats[..., 1:2]
        return stats[..., 2:3] / np.where(w > 0, w, 1.0)

    def order_score(self, stats, parent_stats):
        """Mean target of each category: Breiman's optimal ordering for regression."""
        return self.value(stats)[:, 0]


class AbsoluteErrorStatistics(_RegressionColumns):
    """Statistics of a regression node under absolute error.

    Columns: (count, Σw, Σwy, Σw|y - m|, m) with ``m`` the weighted median,
    the constant that minimises absolute error. Unlike sums, a median cannot
    be combined from the medians of parts, so node columns are computed from
    the samples (a sort by node, then y), and candidate splits are scored with
    :class:`~mltrees.tree._order_statistics.RangeAbsoluteDeviation`.
    """

    criterion = "absolute_error"
    needs_samples = True

    def __init__(self, y: np.ndarray, weights: np.ndarray):
        self.y = y
        self.w = weights

    def aggregate(self, group: np.ndarray, n_groups: int, rows: np.ndarray) -> np.ndarray:
        """Per group: count, weight, weighted sum, absolute deviation, weighted median."""
        y, w = self.y[rows], self.w[rows]
        order = np.lexsort((y, group))
        y, w, group = y[order], w[order], group[order]
        count = np.bincount(group, minlength=n_groups).astype(np.float64)
        weight = np.bincount(group, weights=w, minlength=n_groups)
        weighted_y = np.bincount(group, weights=w * y, minlength=n_groups)
        cum_w = np.concatenate([[0.0], np.cumsum(w)])
        cum_wy = np.concatenate([[0.0], np.cumsum(w * y)])
        start = np.concatenate([[0], np.cumsum(count).astype(np.int64)[:-1]])
        present = count > 0
        # The median: the first sample of the group whose cumulative weight
        # reaches half of the group's weight.
        target = cum_w[start] + weight / 2.0
        position = np.searchsorted(cum_w[1:], target, side="left")
        position = np.clip(position, 0, max(y.size - 1, 0))
        median = np.where(present, y[position] if y.size else 0.0, 0.0)
        below_w = cum_w[position] - cum_w[start]
        below_wy = cum_wy[position] - cum_wy[start]
        deviation = weighted_y - 2.0 * below_wy - median * (weight - 2.0 * below_w)
        deviation = np.where(present, np.maximum(deviation, 0.0), 0.0)
        # When the weight splits exactly in half (an even number of equal
        # weights, say), every value between the two middle samples is a median;
        # predict their midpoint, as numpy.median and scikit-learn do. The
        # deviation above is the same for any of them.
        following = np.minimum(position + 1, max(y.size - 1, 0))
        in_group = following < start + count
        exact_half = np.isclose(cum_w[position + 1] - cum_w[start], weight / 2.0, rtol=1e-12)
        split_median = present & in_group & exact_half
        if y.size:
            median = np.where(split_median, (median + y[following]) / 2.0, median)
        return np.column_stack([count, weight, weighted_y, deviation, median])

    def impurity(self, stats):
        w = stats[..., 1]
        return stats[..., 3] / np.where(w > 0, w, 1.0)

    def magnitude(self, stats):
        """``|Σwy| / Σw + |median|``: the deviation is a difference of terms this large."""
        w = stats[..., 1]
        return np.abs(stats[..., 2]) / np.where(w > 0, w, 1.0) + np.abs(stats[..., 4])

    def value(self, stats):
        """The weighted median: the constant that minimises absolute error."""
        return stats[..., 4:5].copy()

    def order_score(self, stats, parent_stats):
        """Median target of each category (a heuristic order for subset splits)."""
        return stats[:, 4]
