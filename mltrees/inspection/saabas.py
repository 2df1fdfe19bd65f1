r"""Saabas attributions: the changes of the expected output along a row's path (chapter 17).

Saabas's heuristic (the ``treeinterpreter`` package; XGBoost's
``approx_contribs``, shap's ``approximate=True``) credits each node of the
path a row follows with the change it makes to the tree's expected output,

.. math::

    \psi_j(x) = \sum_{t \in \mathrm{path}(x),\; j(t) = j}
    \bigl(E(\mathrm{child}_x(t)) - E(t)\bigr),

where :math:`E(t)` is the cover-weighted mean of the leaf values below node
:math:`t` (:eq:`eq-saabas`). The terms telescope, so the attributions add up
to the output minus the root's expectation, like SHAP values; but a
feature's credit depends on the depth at which the tree tests it, which is
why they are not consistent (chapter 17).
"""

from __future__ import annotations

import numpy as np

from mltrees.inspection.treeshap import SPLIT, Explanation, _Paths
from mltrees.tree.view import view_of

__all__ = ["saabas"]


def _node_expectations(path: _Paths) -> np.ndarray:
    """``E(t)`` of every node of the extended tree (leaves and virtual leaves included)."""
    expected = np.zeros_like(path.table)
    expected[path.leaves] = path.table[path.leaves]
    # From the deepest level up: a parent collects its children's cover shares
    # (a virtual leaf, where a row stops at an internal node, has share 0).
    for children, parents, *_rest in reversed(path.levels):
        np.add.at(expected, parents, path.fraction[children, None] * expected[children])
    return expected


def saabas(model, X) -> Explanation:
    r"""Saabas attributions of a fitted mltrees tree model, :eq:`eq-saabas` (chapter 17).

    For every tree, the change of the cover-weighted expected output
    :math:`E(t)` from each node of the row's path to the child the row
    takes is credited to the node's feature; the trees' credits are summed.
    The values add up to the explained output minus ``expected_value`` (the
    same ``E f`` as TreeSHAP's), and the same outputs are explained as by
    :func:`~mltrees.inspection.tree_shap`. XGBoost's
    ``predict(pred_contribs=True, approx_contribs=True)`` and shap's
    ``TreeExplainer(...).shap_values(X, approximate=True)`` compute the same
    attributions.

    Parameters
    ----------
    model : fitted mltrees tree model, or a :class:`~mltrees.inspection.TreeModelView`
    X : array_like or DataFrame (n, d)

    Returns
    -------
    Explanation

    Raises
    ------
    ValueError
        For rows whose missing values C4.5 sends down every branch: they
        follow no single path.
    """
    view = view_of(model)
    values = view.encode(X)
    n, d = values.shape
    m = view.n_outputs
    out = np.zeros((n, d, m))
    ev = np.array(view.base, dtype=np.float64)
    values_t = np.ascontiguousarray(values.T)
    rows = np.arange(n)
    for tree, table, columns in zip(view.trees, view.tables, view.columns, strict=True):
        path = _Paths(tree, np.asarray(table, dtype=np.float64), columns)
        expected = _node_expectations(path)
        ev[path.columns] += expected[0]
        if tree.node_count == 1:
            continue
        slot = path.slots(values_t)
        if (slot == SPLIT).any():
            raise ValueError(
                "rows with missing values routed down every branch (C4.5) follow no single "
                "path and have no Saabas attribution"
            )
        reached = path.fail_bits(slot) == 0  # (leaves, rows): exactly one leaf per row
        leaf_of_row = np.argmax(reached, axis=0)
        edges = path.edges[leaf_of_row]  # (rows, depth), root side first, -1 padding
        valid = edges >= 0
        child = np.where(valid, edges, 0)
        parent = path.parent[child]
        feature = np.where(valid, tree.feature[np.maximum(parent, 0)], 0).astype(np.intp)
        index = (rows[:, None] * d + feature)[valid]
        for k, column in enumerate(path.columns):
            change = (expected[child, k] - expected[np.maximum(parent, 0), k])[valid]
            out[:, :, column] += np.bincount(index, weights=change, minlength=n * d).reshape(n, d)
    if view.squeeze:
        return Explanation(out[:, :, 0], float(ev[0]), values, view.feature_names, view.output_name)
    return Explanation(out, ev, values, view.feature_names, view.output_name)
