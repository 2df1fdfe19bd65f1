"""Pieces shared by the boosting estimators (chapters 11-12).

* :func:`node_of_codes` finds the leaf of every *training* row from its
  integer codes, without going back to the raw values: a numeric split
  ``x <= threshold`` is the code test ``code <= split_code``.
* :class:`StackedTrees` predicts with many trees at once: all trees'
  flat arrays are concatenated and every (row, tree) pair steps down one
  level per iteration, so the Python loop runs over depth, not over trees.
* :func:`prediction_values` checks and encodes prediction input the way the
  single trees do.
"""

from __future__ import annotations

import numbers
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pandas as pd
from sklearn.utils.validation import check_is_fitted, validate_data

from mltrees.tree._data import NUMERIC, all_finite, as_table, encode_features
from mltrees.tree._tree import CATEGORICAL_NODE, Tree, available_cores

__all__ = [
    "StackedTrees",
    "check_fraction",
    "check_positive_int",
    "node_of_codes",
    "prediction_values",
    "raw_importances",
    "take_rows",
]


def check_positive_int(value, name: str, low: int = 1, allow_none: bool = False):
    if value is None and allow_none:
        return
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < low:
        expected = f"an int >= {low}" + (" or None" if allow_none else "")
        raise ValueError(f"{name} must be {expected}, got {value!r}")


def check_fraction(value, name: str, *, low_open=True, high_closed=True, low=0.0, high=1.0):
    ok = isinstance(value, numbers.Real) and not isinstance(value, bool) and np.isfinite(value)
    if ok:
        ok = (value > low if low_open else value >= low) and (
            value <= high if high_closed else value < high
        )
    if not ok:
        left = "(" if low_open else "["
        right = "]" if high_closed else ")"
        raise ValueError(f"{name} must be a float in {left}{low}, {high}{right}, got {value!r}")


def take_rows(codes: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """``codes[rows]`` in Fortran order (the engine reads codes column by column)."""
    out = np.empty((rows.size, codes.shape[1]), dtype=codes.dtype, order="F")
    for j in range(codes.shape[1]):
        out[:, j] = codes[:, j][rows]
    return out


def _split_codes(tree: Tree, specs) -> np.ndarray:
    """Per node, the largest code that goes left at a numeric node (-1 elsewhere).

    Exact mode: a training value ``v_c`` goes left iff ``v_c <= threshold``, i.e.
    ``c <= #{values <= threshold} - 1``. Histogram mode: bin ``c`` holds
    ``edges[c-1] < x <= edges[c]`` and the threshold is an edge ``edges[b]``,
    so the same formula gives ``b``.
    """
    split = np.full(tree.node_count, -1, dtype=np.int64)
    numeric = np.flatnonzero((tree.feature >= 0) & (tree.kind != CATEGORICAL_NODE))
    for j in np.unique(tree.feature[numeric]):
        at = numeric[tree.feature[numeric] == j]
        split[at] = np.searchsorted(specs[j].values, tree.threshold[at], side="right") - 1
    return split


def node_of_codes(tree: Tree, codes: np.ndarray, specs, rows: np.ndarray | None = None):
    """The node every training row (given by its codes) ends in.

    Equivalent to ``tree.apply`` on the raw training values (the tests check
    it), but reads the compact integer codes the tree was grown on.
    """
    n_samples = codes.shape[0]
    rows = np.arange(n_samples) if rows is None else rows
    leaf = tree.is_leaf
    feature = np.where(leaf, 0, tree.feature).astype(np.intp)
    split = np.where(leaf, np.iinfo(np.int64).max, _split_codes(tree, specs))
    first_child = np.where(leaf, np.arange(tree.node_count), tree.first_child)
    categorical = bool((tree.kind == CATEGORICAL_NODE).any())
    flat = codes.T.reshape(-1) if codes.flags["F_CONTIGUOUS"] else codes.T.copy().reshape(-1)
    node = np.zeros(rows.size, dtype=np.intp)
    for _ in range(tree.max_depth):
        code = flat[feature[node] * n_samples + rows].astype(np.int64)
        step = first_child[node] + (code > split[node])
        if categorical:
            at_cat = np.flatnonzero(tree.kind[node] == CATEGORICAL_NODE)
            here = node[at_cat]
            c = code[at_cat]
            known = (c >= 0) & (c < tree.n_categories[here])
            slot = tree.route_table[np.where(known, tree.route_offset[here] + c, 0)]
            slot = np.where(known, slot, -1)
            step[at_cat] = np.where(slot >= 0, first_child[here] + slot, here)
        node = step
    return node


def raw_importances(tree: Tree, n_features: int) -> np.ndarray:
    """Unnormalised impurity decrease per feature, as a share of the root's weight."""
    importances = np.zeros(n_features)
    internal = np.flatnonzero(~tree.is_leaf)
    if internal.size == 0:
        return importances
    weighted = tree.weighted_n_node_samples * tree.impurity
    children = np.zeros(tree.node_count)
    child_ids = np.flatnonzero(tree.parent >= 0)
    np.add.at(children, tree.parent[child_ids], weighted[child_ids])
    np.add.at(importances, tree.feature[internal], weighted[internal] - children[internal])
    return importances / tree.weighted_n_node_samples[0]


class StackedTrees:
    """Many trees walked together: one flat array set, one step per level.

    Parameters
    ----------
    trees : list of Tree
    values : list of ndarray of shape (n_nodes_t, n_columns)
        What each node of each tree contributes (already scaled).
    groups : ndarray of int, shape (n_trees,)
        Output column each tree adds to.
    n_outputs : int
        Number of output columns.
    """

    def __init__(self, trees, values, groups, n_outputs: int):
        sizes = np.array([t.node_count for t in trees], dtype=np.intp)
        offsets = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.intp)
        self.roots = offsets
        self.n_outputs = n_outputs
        self.groups = np.asarray(groups, dtype=np.intp)
        leaf = np.concatenate([t.is_leaf for t in trees])
        self.feature = np.where(leaf, 0, np.concatenate([t.feature for t in trees])).astype(np.intp)
        self.threshold = np.where(leaf, np.inf, np.concatenate([t.threshold for t in trees]))
        ids = np.arange(leaf.size)
        first = np.concatenate([t.first_child + o for t, o in zip(trees, offsets, strict=True)])
        self.first_child = np.where(leaf, ids, first)
        self.value = np.concatenate(values)
        self.max_depth = max(t.max_depth for t in trees)
        kinds = np.concatenate([t.kind for t in trees])
        self.categorical = bool((kinds == CATEGORICAL_NODE).any())
        if self.categorical:
            self.kind = kinds
            self.n_categories = np.concatenate([t.n_categories for t in trees])
            table_offsets = np.concatenate(
                [[0], np.cumsum([t.route_table.size for t in trees])[:-1]]
            ).astype(np.intp)
            self.route_offset = np.concatenate(
                [t.route_offset + o for t, o in zip(trees, table_offsets, strict=True)]
            )
            self.route_table = np.concatenate([t.route_table for t in trees])

    def _walk(self, block: np.ndarray) -> np.ndarray:
        n, p = block.shape
        flat = block.ravel()
        row_start = (np.arange(n, dtype=np.intp) * p)[:, None]
        node = np.broadcast_to(self.roots, (n, self.roots.size)).copy()
        for _ in range(self.max_depth):
            value = flat[row_start + self.feature[node]]
            step = self.first_child[node] + (value > self.threshold[node])
            if self.categorical:
                at = self.kind[node] == CATEGORICAL_NODE
                here = node[at]
                code = value[at].astype(np.intp)
                known = (code >= 0) & (code < self.n_categories[here])
                slot = self.route_table[np.where(known, self.route_offset[here] + code, 0)]
                slot = np.where(known, slot, -1)
                step[at] = np.where(slot >= 0, self.first_child[here] + slot, here)
            node = step
        return node

    def predict(self, values: np.ndarray, check_block=None) -> np.ndarray:
        """Sum of the trees' node values per output, shape (n_samples, n_outputs)."""
        values = np.ascontiguousarray(values, dtype=np.float64)
        n = values.shape[0]
        out = np.zeros((n, self.n_outputs))
        block_size = max(256, (1 << 18) // max(self.roots.size, 1))
        starts = range(0, n, block_size)

        def run(start):
            block = values[start : start + block_size]
            if check_block is not None:
                check_block(block)
            nodes = self._walk(block)
            contribution = self.value[nodes]  # (b, n_trees, n_columns)
            if self.n_outputs == 1:
                out[start : start + block_size, 0] = contribution.sum(axis=(1, 2))
            else:
                summed = np.zeros((block.shape[0], self.n_outputs))
                for k in range(self.n_outputs):
                    summed[:, k] = contribution[:, self.groups == k, 0].sum(axis=1)
                out[start : start + block_size] = summed

        threads = available_cores()
        if threads > 1 and len(starts) > 1:
            with ThreadPoolExecutor(max_workers=min(threads, len(starts))) as pool:
                list(pool.map(run, starts))
        else:
            for start in starts:
                run(start)
        return out


def prediction_values(estimator, X, attribute: str):
    """Check a fitted ensemble's prediction input and encode it (numbers and category codes).

    Returns the encoded matrix and a per-block finiteness check for the walk.
    """
    check_is_fitted(estimator, attribute)
    X = as_table(X)
    validate_data(estimator, X, reset=False, skip_check_array=True)
    specs = estimator._specs
    values = encode_features(X, specs)
    categorical = [j for j, spec in enumerate(specs) if spec.kind != NUMERIC]
    if categorical:
        frame = X if isinstance(X, pd.DataFrame) else pd.DataFrame(X)
        for j in categorical:
            if pd.isna(frame.iloc[:, j]).any():
                raise ValueError(
                    f"X has missing values (NaN) in column {specs[j].name!r}; this "
                    "estimator has no missing-value method"
                )
    numeric = [j for j, spec in enumerate(specs) if spec.kind == NUMERIC]

    def check(block):
        part = block if len(numeric) == len(specs) else block[:, numeric]
        if all_finite(part):
            return
        if np.isinf(part).any():
            raise ValueError("X contains inf")
        column = numeric[int(np.isnan(part).any(axis=0).argmax())]
        raise ValueError(
            f"X has missing values (NaN) in column {specs[column].name!r}; this "
            "estimator has no missing-value method"
        )

    return values, check


def class_codes(y):
    """Classes and codes of classification targets, with the trees' checks."""
    from sklearn.utils.multiclass import check_classification_targets

    if y.dtype.kind == "f" and not np.isfinite(y).all():
        raise ValueError(f"y contains {'NaN' if np.isnan(y).any() else 'inf'}")
    if y.dtype.kind == "O" and pd.isna(y).any():
        raise ValueError("y contains missing values (None or NaN)")
    check_classification_targets(y)
    return np.unique(y, return_inverse=True)


def real_targets(y):
    """Regression targets as float64, rejecting complex, non-numeric and non-finite values."""
    if y.dtype.kind == "c":
        raise ValueError("y holds complex numbers; a regression model needs real targets")
    try:
        y = y.astype(np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"y must be numeric for a regression model: {exc}") from exc
    if not np.isfinite(y).all():
        raise ValueError("y contains NaN or inf")
    return y


def select_rows(X, rows):
    """Rows of an array or DataFrame."""
    return X.iloc[rows] if isinstance(X, pd.DataFrame) else X[rows]
