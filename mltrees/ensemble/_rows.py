"""Rows, codes and targets of the ensembles (chapters 9-12).

* :func:`node_of_codes` finds the leaf of every *training* row from its
  integer codes, without going back to the raw values: a numeric split
  ``x <= threshold`` is the code test ``code <= split_code``.
* :func:`take_rows` and :func:`select_rows` draw the rows of a member's
  sample from codes or from ``X``.
* :func:`prediction_values` checks and encodes prediction input the way the
  single trees do (``y`` is prepared by :func:`mltrees._validation.class_codes`
  and :func:`mltrees._validation.real_targets`, shared with the trees).
* :func:`raw_importances` is a tree's impurity decrease per feature, in the
  scale ensembles add up.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from sklearn.utils.validation import check_is_fitted, validate_data

from mltrees.tree._data import NUMERIC, all_finite, as_table, encode_features
from mltrees.tree._tree import CATEGORICAL_NODE, Tree, category_step
from mltrees.tree.builder import TreeBuilder

__all__ = [
    "node_of_codes",
    "prediction_values",
    "raw_importances",
    "select_rows",
    "take_rows",
]


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
            step[at_cat] = category_step(
                code[at_cat],
                here,
                first_child[here],
                tree.n_categories,
                tree.route_offset,
                tree.route_table,
            )
        node = step
    return node


def raw_importances(tree: Tree, n_features: int) -> np.ndarray:
    """Unnormalised impurity decrease per feature, as a share of the root's weight."""
    decrease = tree.compute_feature_importances(n_features, normalize=False)
    return decrease / tree.weighted_n_node_samples[0] if tree.node_count > 1 else decrease


def prediction_values(estimator, X, attribute: str, *, allow_missing: bool = False):
    """Check a fitted ensemble's prediction input and encode it (numbers and category codes).

    Returns the encoded matrix and a per-block finiteness check for the walk.
    Infinity is always rejected; missing values (NaN, None) only when the
    ensemble's trees have no missing-value method (``allow_missing=False``).
    """
    check_is_fitted(estimator, attribute)
    members = getattr(estimator, "estimators_", None)
    member = members[0] if isinstance(members, list) and members else None
    fix = TreeBuilder(member).missing_fix if TreeBuilder.accepts(member) else "impute them"
    refusal = (
        f"this {type(estimator).__name__} was fitted with trees whose missing='error' "
        f"(refit: {fix})"
    )
    X = as_table(X)
    validate_data(estimator, X, reset=False, skip_check_array=True)
    specs = estimator._specs
    values = encode_features(X, specs)
    categorical = [j for j, spec in enumerate(specs) if spec.kind != NUMERIC]
    if categorical and not allow_missing:
        frame = X if isinstance(X, pd.DataFrame) else pd.DataFrame(X)
        for j in categorical:
            if pd.isna(frame.iloc[:, j]).any():
                raise ValueError(
                    f"X has missing values (NaN) in column {specs[j].name!r}; {refusal}"
                )
    numeric = [j for j, spec in enumerate(specs) if spec.kind == NUMERIC]

    def check(block):
        part = block if len(numeric) == len(specs) else block[:, numeric]
        if all_finite(part):
            return
        if np.isinf(part).any():
            raise ValueError("X contains inf")
        if allow_missing:
            return
        column = numeric[int(np.isnan(part).any(axis=0).argmax())]
        raise ValueError(f"X has missing values (NaN) in column {specs[column].name!r}; {refusal}")

    return values, check


def select_rows(X, rows):
    """Rows of an array or DataFrame."""
    return X.iloc[rows] if isinstance(X, pd.DataFrame) else X[rows]
