r"""SHAP interaction values of tree models (chapter 17).

The Shapley interaction index of a pair of features :math:`i \ne j`
(Grabisch & Roubens 1999; Lundberg et al. 2020, :eq:`eq-shap-interaction`)
averages the second difference
:math:`v(S \cup \{i, j\}) - v(S \cup \{i\}) - v(S \cup \{j\}) + v(S)` over
the coalitions :math:`S` of the other features, and splits it evenly between
:math:`\Phi_{ij}` and :math:`\Phi_{ji}`; the main effect
:math:`\Phi_{ii} = \phi_i - \sum_{j \ne i} \Phi_{ij}` is what is left of the
SHAP value, so that every row of the matrix sums to the feature's SHAP value.

On the path to one leaf the game is a product over the path's distinct
features (:eq:`eq-shap-path-product`), and its second difference factors:
the interaction of two features of the path is the leaf value times
:math:`(o_i - z_i)(o_j - z_j) / 2` times an integral of the product of the
other factors, :eq:`eq-shap-interaction-path`. With a background sample
(interventional), one leaf and one background row give a game that is 1
exactly when a coalition holds the features only the row follows and none
that only the background row follows; its interaction index has a closed
form in the two counts, :eq:`eq-shap-interaction-interventional`.

The computation is vectorised over rows as TreeSHAP's is
(:mod:`mltrees.inspection.treeshap`): rows whose one fractions are 0 or 1
are grouped by the pattern of path features they follow, and the pattern's
matrix is computed once per leaf; rows split over several branches (C4.5's
missing values) use their own fractions.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import factorial

import numpy as np

from mltrees.inspection.treeshap import (
    SPLIT,
    _Paths,
    _refuse_split_rows,
    path_factors_at_nodes,
    tree_shap,
)
from mltrees.tree.view import view_of

__all__ = ["InteractionExplanation", "interaction_weights", "tree_shap_interactions"]

BLOCK_ENTRIES = 1 << 21  # (row, leaf, element, element) entries per block


@dataclass
class InteractionExplanation:
    """SHAP interaction values of a model on rows ``data``.

    Attributes
    ----------
    values : ndarray, shape (n, d, d) or (n, d, d, n_outputs)
        ``values[i, j, j2(, k)]``: the interaction of features ``j`` and
        ``j2`` (half of it each way: the matrix is symmetric) at row ``i``;
        the diagonal holds the main effects. One output column is reported
        as (n, d, d).
    expected_value : float or ndarray of shape (n_outputs,)
        ``E f``, as in :class:`~mltrees.inspection.Explanation`.
    data : ndarray (n, d)
        The rows as the trees read them.
    feature_names : list of str
    output_name : str

    Examples
    --------
    >>> from sklearn.datasets import load_diabetes
    >>> from mltrees import CARTRegressor
    >>> from mltrees.inspection import tree_shap, tree_shap_interactions
    >>> X, y = load_diabetes(return_X_y=True)
    >>> model = CARTRegressor(max_depth=3).fit(X, y)
    >>> explained = tree_shap_interactions(model, X[:5])
    >>> explained.values.shape
    (5, 10, 10)
    >>> phi = tree_shap(model, X[:5]).values  # each matrix's rows add up to the SHAP values
    >>> bool(abs(explained.shap_values - phi).max() < 1e-9)
    True
    """

    values: np.ndarray
    expected_value: float | np.ndarray
    data: np.ndarray
    feature_names: list
    output_name: str

    @property
    def shap_values(self) -> np.ndarray:
        """The SHAP values, the row sums of the matrices: shape (n, d[, n_outputs])."""
        return self.values.sum(axis=2)

    @property
    def main_effects(self) -> np.ndarray:
        """The diagonals ``Phi_jj``: shape (n, d[, n_outputs])."""
        d = self.values.shape[1]
        return self.values[:, np.arange(d), np.arange(d)]

    @property
    def prediction(self) -> np.ndarray:
        """``expected_value`` plus the sum of every matrix: the explained output."""
        return self.values.sum(axis=(1, 2)) + self.expected_value


# ------------------------------------------------------------------ one path
def interaction_weights(z: np.ndarray, o: np.ndarray) -> np.ndarray:
    r"""Pairwise path weights of :eq:`eq-shap-interaction-path` (chapter 17).

    For a path whose distinct features have zero fractions ``z`` and one
    fractions ``o``, returns for every pair :math:`i \ne j` the integral

    .. math:: \omega_{ij} = \int_0^1 \prod_{k \ne i, j} \bigl(z_k (1 - t) + o_k t\bigr)\, dt ,

    a polynomial of degree ``L - 2`` that Gauss-Legendre quadrature with
    ``L // 2`` nodes integrates exactly. The interaction of ``i`` and ``j``
    on the path is ``c * (o_i - z_i) * (o_j - z_j) * omega_ij / 2``. The
    diagonal is 0.

    Parameters
    ----------
    z, o : ndarray of shape (..., L)
        Broadcastable; fractions in [0, 1].

    Returns
    -------
    ndarray of shape (..., L, L)
    """
    L = np.broadcast_shapes(np.shape(z), np.shape(o))[-1]
    g, weights = path_factors_at_nodes(z, o, max(L // 2, 1))  # (..., Q, L), (Q,)
    # A factor vanishes inside (0, 1) only when z_k = o_k = 0, at every node
    # alike; the product over k != i, j is 0 unless all such factors are i or j.
    zero = g == 0
    safe = np.where(zero, 1.0, g)
    product = np.prod(safe, axis=-1)[..., None, None]
    n_zero = zero.sum(axis=-1)[..., None, None]
    others_zero = n_zero - zero[..., :, None] - zero[..., None, :]
    pair = product / (safe[..., :, None] * safe[..., None, :])
    pair = np.where(others_zero == 0, pair, 0.0)
    out = np.einsum("...qij,q->...ij", pair, weights)
    diagonal = np.arange(L)
    out[..., diagonal, diagonal] = 0.0
    return out


def _path_pairs(z: np.ndarray, o: np.ndarray) -> np.ndarray:
    """``(o_i - z_i)(o_j - z_j) omega_ij / 2`` for every pair, :eq:`eq-shap-interaction-path`."""
    delta = o - z
    return 0.5 * delta[..., :, None] * delta[..., None, :] * interaction_weights(z, o)


def _interventional_pairs(x_bits: np.ndarray, b_bits: np.ndarray) -> np.ndarray:
    """Interaction index of the game ``1[P_x subset S, S disjoint from P_b]``.

    Implements :eq:`eq-shap-interaction-interventional`. ``x_bits`` and
    ``b_bits`` (..., L) say which path features the row and the background
    row follow; a pair that neither follows entirely makes the leaf
    unreachable (0). Returns (..., L, L) with a zero diagonal.
    """
    L = x_bits.shape[-1]
    full = (x_bits | b_bits).all(axis=-1)
    in_x = x_bits & ~b_bits  # P_x: only the row follows
    in_b = b_bits & ~x_bits  # P_b: only the background row follows
    a = in_x.sum(axis=-1)
    c = in_b.sum(axis=-1)
    fact = np.array([factorial(k) for k in range(L + 1)], dtype=np.float64)
    total = fact[np.maximum(a + c - 1, 0)]
    both_x = fact[np.maximum(a - 2, 0)] * fact[c] / total
    mixed = -fact[np.maximum(a - 1, 0)] * fact[np.maximum(c - 1, 0)] / total
    both_b = fact[a] * fact[np.maximum(c - 2, 0)] / total
    xx = in_x[..., :, None] & in_x[..., None, :]
    bb = in_b[..., :, None] & in_b[..., None, :]
    xb = (in_x[..., :, None] & in_b[..., None, :]) | (in_b[..., :, None] & in_x[..., None, :])
    out = (
        np.where(xx, both_x[..., None, None], 0.0)
        + np.where(xb, mixed[..., None, None], 0.0)
        + np.where(bb, both_b[..., None, None], 0.0)
    )
    out = np.where(full[..., None, None], 0.5 * out, 0.0)
    diagonal = np.arange(L)
    out[..., diagonal, diagonal] = 0.0
    return out


# ---------------------------------------------------------------- the trees
def _scatter(out, rows, features, contrib, path, leaves):
    """``out[row, f_i, f_j, column] += contrib * leaf value`` for every (leaf, row, i, j).

    ``contrib`` has shape (n_leaves, n_rows, L, L); ``features`` (n_leaves, L).
    """
    n, d = out.shape[0], out.shape[1]
    values = path.table[path.leaves[leaves]]  # (n_leaves, m)
    cell = features[:, :, None] * d + features[:, None, :]  # (n_leaves, L, L)
    index = (rows[None, :, None, None] * (d * d) + cell[:, None, :, :]).ravel()
    for k, column in enumerate(path.columns):
        weighted = (contrib * values[:, k, None, None, None]).ravel()
        out[:, :, :, column] += np.bincount(index, weights=weighted, minlength=n * d * d).reshape(
            n, d, d
        )


class _Interactions:
    """Off-diagonal SHAP interaction values of all trees of a view."""

    def __init__(self, view, background=None):
        self.view = view
        self.paths = [
            _Paths(tree, np.asarray(table, dtype=np.float64), cols)
            for tree, table, cols in zip(view.trees, view.tables, view.columns, strict=True)
        ]
        self.background_masks = None
        if background is not None:
            background_t = np.ascontiguousarray(background.T)
            self.background_masks = []
            for path in self.paths:
                slot = path.slots(background_t)
                if (slot == SPLIT).any():
                    raise ValueError(
                        "background rows with missing values routed down every branch (C4.5) "
                        "cannot be used by interventional TreeSHAP; drop or impute them"
                    )
                self.background_masks.append(
                    path.full_mask[:, None] & ~path.fail_bits(slot).astype(np.int64)
                )

    def explain(self, values: np.ndarray) -> np.ndarray:
        n, d = values.shape
        out = np.zeros((n, d, d, self.view.n_outputs))
        width = max((int(p.length.max()) if p.length.size else 1 for p in self.paths), default=1)
        leaves = max((p.leaves.size for p in self.paths), default=1)
        block = int(np.clip(BLOCK_ENTRIES // max(1, leaves * width * width), 16, 4096))
        for start in range(0, n, block):
            stop = min(start + block, n)
            values_t = np.ascontiguousarray(values[start:stop].T)
            part = np.zeros((stop - start, d, d, self.view.n_outputs))
            rows = np.arange(stop - start)
            for t, path in enumerate(self.paths):
                self._tree(t, path, values_t, rows, part)
            out[start:stop] = part
        return out

    def _tree(self, t, path, values_t, rows, out):
        slot = path.slots(values_t)
        split_rows = (slot == SPLIT).any(axis=0)
        pairs = np.flatnonzero(path.length >= 2)  # a single feature has no partner
        if not pairs.size:
            return
        if split_rows.any():
            _refuse_split_rows(self.view, self.background_masks is not None)
            split = np.flatnonzero(split_rows)
            self._fractional(path, slot[:, split], pairs, rows[split], out)
            keep = np.flatnonzero(~split_rows)
            slot, rows = slot[:, keep], rows[keep]
            if not rows.size:
                return
        fail = path.fail_bits(slot).astype(np.int64)
        masks = path.full_mask[:, None] & ~fail  # (leaves, rows): features the row follows
        if self.background_masks is None:
            self._patterns(path, masks, pairs, rows, out)
        else:
            self._interventional(path, masks, self.background_masks[t], pairs, rows, out)

    @staticmethod
    def _patterns(path, masks, leaves, rows, out):
        """Path-dependent, 0/1 rows: one matrix per distinct (leaf, pattern)."""
        n_rows = masks.shape[1]
        for L in np.unique(path.length[leaves]):
            L = int(L)
            same = leaves[path.length[leaves] == L]
            step = max(1, BLOCK_ENTRIES // max(1, n_rows * L * L))
            for start in range(0, same.size, step):
                group = same[start : start + step]
                keys = (np.arange(group.size, dtype=np.int64)[:, None] << L) | masks[group]
                distinct, inverse = np.unique(keys.ravel(), return_inverse=True)
                leaf = distinct >> L
                bits = ((distinct[:, None] >> np.arange(L)) & 1).astype(np.float64)
                per_pattern = _path_pairs(path.leaf_z[group[leaf], :L], bits)
                contrib = per_pattern[inverse.ravel()].reshape(group.size, n_rows, L, L)
                _scatter(out, rows, path.leaf_features[group, :L], contrib, path, group)

    def _fractional(self, path, slot, leaves, rows, out):
        """Path-dependent, rows split over branches: the integral on their own fractions."""
        for L in np.unique(path.length[leaves]):
            L = int(L)
            same = leaves[path.length[leaves] == L]
            step = max(1, BLOCK_ENTRIES // max(1, rows.size * L * L * (L // 2 + 1)))
            for start in range(0, same.size, step):
                group = same[start : start + step]
                o = path.one_fractions(slot, group)[:, :, :L].transpose(1, 0, 2)
                z = path.leaf_z[group, :L][:, None, :]
                contrib = _path_pairs(z, o)  # (leaves, rows, L, L)
                _scatter(out, rows, path.leaf_features[group, :L], contrib, path, group)

    @staticmethod
    def _interventional(path, masks, background_masks, leaves, rows, out):
        """Interventional: every distinct (row pattern, background pattern) of each leaf."""
        n_rows = masks.shape[1]
        n_background = background_masks.shape[1]
        for leaf in leaves:
            L = int(path.length[leaf])
            shifts = np.arange(L)
            x_masks, x_inverse = np.unique(masks[leaf], return_inverse=True)
            b_masks, b_count = np.unique(background_masks[leaf], return_counts=True)
            x_bits = ((x_masks[:, None] >> shifts) & 1).astype(bool)
            b_bits = ((b_masks[:, None] >> shifts) & 1).astype(bool)
            pair = _interventional_pairs(x_bits[:, None, :], b_bits[None, :, :])
            per_pattern = np.einsum("xbij,b->xij", pair, b_count / n_background)
            contrib = per_pattern[x_inverse.ravel()].reshape(1, n_rows, L, L)
            features = path.leaf_features[[leaf], :L]
            _scatter(out, rows, features, contrib, path, np.array([leaf]))


def tree_shap_interactions(model, X, *, background=None) -> InteractionExplanation:
    r"""SHAP interaction values of a fitted mltrees tree model (chapter 17).

    Implements :eq:`eq-shap-interaction` for trees: the pairs by
    :eq:`eq-shap-interaction-path` on the path-dependent game
    (:eq:`eq-shap-path-value`; what ``shap.TreeExplainer(...).shap_interaction_values``
    computes) or, given ``background``, by
    :eq:`eq-shap-interaction-interventional` on the interventional game
    (:eq:`eq-shap-interventional`); the main effects are the SHAP values of
    :func:`~mltrees.inspection.tree_shap` minus the row's interactions, so
    every row of a matrix sums to the feature's SHAP value and every matrix
    to the output minus ``E f``.

    Every model that :func:`~mltrees.inspection.tree_shap` explains is
    explained, with the same outputs (class probabilities of averaging
    classifiers, margins of boosting).

    Parameters
    ----------
    model : fitted mltrees tree model, or a :class:`~mltrees.inspection.TreeModelView`
    X : array_like or DataFrame (n, d)
        Rows to explain, in the format the model was fitted on.
    background : array_like or DataFrame, optional
        Rows over which absent features are averaged (interventional). None:
        the trees' own covers (path-dependent).

    Returns
    -------
    InteractionExplanation
        ``values`` of shape (n, d, d), or (n, d, d, n_outputs) for several
        outputs.

    Notes
    -----
    The cost is that of TreeSHAP times the length of the paths: each leaf
    adds an ``L x L`` matrix per row pattern instead of ``L`` numbers.
    """
    view = view_of(model)
    values = view.encode(X)
    bg = None
    if background is not None:
        if len(background) == 0:
            raise ValueError("background must hold at least one row")
        bg = view.encode(background)
    phi = tree_shap(view, X, background=background)
    pairs = _Interactions(view, bg).explain(values)  # (n, d, d, m), zero diagonal
    shap_values = phi.values if phi.values.ndim == 3 else phi.values[:, :, None]
    d = values.shape[1]
    diagonal = np.arange(d)
    pairs[:, diagonal, diagonal] = shap_values - pairs.sum(axis=2)
    if view.squeeze:
        return InteractionExplanation(
            pairs[..., 0], phi.expected_value, values, view.feature_names, view.output_name
        )
    return InteractionExplanation(
        pairs, phi.expected_value, values, view.feature_names, view.output_name
    )
