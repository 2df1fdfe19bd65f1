"""TreeSHAP: exact Shapley values of tree models in polynomial time (chapter 17).

The value of a coalition ``S`` of features for a tree is the tree's output
with the features of ``S`` fixed to the row's values and the others
integrated out, either along the tree's own training covers
(*path-dependent*, :eq:`eq-shap-path-value`) or over a background sample
(*interventional*, :eq:`eq-shap-interventional`). On the path to one leaf
the value is a product over the distinct features of that path,
:eq:`eq-shap-path-product`, so the Shapley value of a feature on that path
depends only on two numbers per feature: the *one fraction* ``o`` (the
share of the row that follows the path's edges of that feature) and the
*zero fraction* ``z`` (the share of the training cover that does). The
path weights are the coefficients of ``prod_j (z_j + o_j t)``
(:eq:`eq-shap-polynomial`): EXTEND multiplies by one factor, UNWIND divides
one out (Lundberg, Erion & Lee 2018, Algorithm 2).

The weights are evaluated as the integral :eq:`eq-shap-path-integral` by
Gauss-Legendre quadrature (exact), one array operation for all elements;
:func:`path_weights` is the EXTEND/UNWIND form they are checked against.

Computation is vectorised over rows. When every ``o`` is 0 or 1 (no row is
split over several branches), the contribution of a leaf depends on the
row only through the pattern of followed features, a bit mask of at most
``2^L`` values: for short paths the weights of every pattern are computed
once per leaf (the "precomputed" variant of Yang 2021) and each row gathers
its own; long paths are computed once per distinct (leaf, pattern) of a
block of rows; fractional rows (C4.5's missing values) on their own
fractions.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import factorial

import numpy as np

from mltrees.tree._tree import (
    CATEGORICAL_NODE,
    MISSING_ALL_BRANCHES,
    MISSING_NONE,
    Tree,
)
from mltrees.tree.view import TreeModelView, view_of

__all__ = [
    "Explanation",
    "expected_value",
    "path_weights",
    "path_weights_integral",
    "tree_shap",
]

STOP, SPLIT = -1, -2  # a row ends at an internal node / is split over all branches
MAX_TABLE_LENGTH = 14  # longest path (distinct features) given a table of patterns
MAX_INTERVENTIONAL_TABLE = 9  # pattern pairs 4^L: tables up to L = 9
BLOCK_ELEMENTS = 1 << 20  # (row, column) entries per block of the row phase
TABLE_BUDGET = 1 << 24  # pattern-table entries of a whole ensemble (128 MB of float64)
DIRECT_ELEMENTS = 1 << 20  # (row, leaf, element) entries per call of the direct polynomial


@dataclass
class Explanation:
    """SHAP values of a model on rows ``data``.

    Attributes
    ----------
    values : ndarray, shape (n, p) or (n, p, n_outputs)
        ``values[i, j(, k)]``: the contribution of feature ``j`` to output
        ``k`` at row ``i``. One output column is reported as (n, p).
    expected_value : float or ndarray of shape (n_outputs,)
        ``E f``: the value of the empty coalition. Local accuracy
        (:eq:`eq-shap-local-accuracy`): ``values.sum(axis=1) + expected_value``
        is the explained output.
    data : ndarray (n, p)
        The rows as the trees read them (numbers, category codes, NaN).
    feature_names : list of str
    output_name : str
        Which output of the model is explained.

    Examples
    --------
    >>> from sklearn.datasets import load_diabetes
    >>> from mltrees import CARTRegressor
    >>> from mltrees.inspection import tree_shap
    >>> X, y = load_diabetes(return_X_y=True)
    >>> model = CARTRegressor(max_depth=3).fit(X, y)
    >>> explained = tree_shap(model, X[:5])
    >>> explained.values.shape
    (5, 10)
    >>> total = explained.values.sum(axis=1) + explained.expected_value  # local accuracy
    >>> bool(abs(total - model.predict(X[:5])).max() < 1e-9)
    True
    """

    values: np.ndarray
    expected_value: float | np.ndarray
    data: np.ndarray
    feature_names: list
    output_name: str

    @property
    def prediction(self) -> np.ndarray:
        """``expected_value + sum_j values[:, j]``: the output the values add up to."""
        return self.values.sum(axis=1) + self.expected_value


# ------------------------------------------------------------- the polynomial
def path_weights(z: np.ndarray, o: np.ndarray) -> np.ndarray:
    """Shapley weights of every element of a path, :eq:`eq-shap-path-weight` (chapter 17).

    For a path whose distinct features have zero fractions ``z`` and one
    fractions ``o``, the value of a coalition ``S`` is
    ``v * prod_{j in S} o_j * prod_{j not in S} z_j``; the Shapley value of
    element ``i`` is ``v * (o_i - z_i) * W_i`` with
    ``W_i = sum_k k! (L-1-k)! / L! * c^(i)_k``, where ``c^(i)_k`` are the
    coefficients of ``prod_{j != i} (z_j + o_j t)``. The product is built
    factor by factor (EXTEND), and factor ``i`` is divided out (UNWIND) in
    the numerically stable direction.

    Parameters
    ----------
    z, o : ndarray of shape (..., L)
        Broadcastable. Elements with ``z = o = 1`` are null players (used
        as padding): they change nobody's weight.

    Returns
    -------
    ndarray of shape (..., L)
        ``W_i``; multiply by ``v * (o_i - z_i)`` for the contribution.
    """
    z = np.asarray(z, dtype=np.float64)
    o = np.asarray(o, dtype=np.float64)
    z, o = np.broadcast_arrays(z, o)
    L = z.shape[-1]
    # EXTEND: coefficients of prod_j (z_j + o_j t), lowest degree first.
    c = np.zeros((*z.shape[:-1], L + 1))
    c[..., 0] = 1.0
    for j in range(L):
        zj, oj = z[..., j : j + 1], o[..., j : j + 1]
        shifted = c[..., : j + 1] * oj
        c[..., : j + 1] *= zj
        c[..., 1 : j + 2] += shifted
    shapley = np.array([factorial(k) * factorial(L - 1 - k) / factorial(L) for k in range(L)])
    # UNWIND, all elements at once: q = c / (z_i + o_i t). Dividing by the
    # larger of o_i and z_i keeps the recursion stable. Dividing by z_i runs
    # from the lowest coefficient up; on the reversed coefficients it is the
    # same backward recursion with o_i and z_i swapped, and the Shapley
    # weights k!(L-1-k)!/L! are symmetric, so one loop serves both cases.
    by_o = np.abs(o) >= np.abs(z)
    a = np.where(by_o, o, z)
    b = np.where(by_o, z, o)
    neither = a == 0  # o_i = z_i = 0: the element adds nothing
    a = np.where(neither, 1.0, a)
    C = np.where(by_o[..., None], c[..., None, :], c[..., None, ::-1])  # (..., L, L+1)
    q = np.empty((*z.shape, L))
    q[..., L - 1] = C[..., L] / a
    for k in range(L - 1, 0, -1):
        q[..., k - 1] = (C[..., k] - b * q[..., k]) / a
    W = np.where(neither, 0.0, q @ shapley)
    return W


def path_weights_integral(z: np.ndarray, o: np.ndarray) -> np.ndarray:
    """:func:`path_weights` as an integral, :eq:`eq-shap-path-integral` (chapter 17).

    ``k! (L-1-k)! / L!`` is the Beta integral of ``t^k (1-t)^(L-1-k)`` over
    [0, 1], so ``W_i`` is the integral of ``prod_{j != i} (z_j (1-t) + o_j t)``,
    a polynomial of degree ``L - 1``: Gauss-Legendre quadrature with
    ``L // 2 + 1`` nodes is exact. No recursion runs over the path, so all
    elements, leaves and rows are one array operation.
    """
    L = np.broadcast_shapes(np.shape(z), np.shape(o))[-1]
    g, weights = path_factors_at_nodes(z, o, L // 2 + 1)  # (..., Q, L), (Q,)
    product = np.prod(g, axis=-1, keepdims=True)
    # prod over j != i is the product divided by factor i; a factor 0 makes
    # the element's own term (o_i - z_i) zero, so its weight is set to 0.
    zero = g == 0
    others = product / np.where(zero, 1.0, g)
    others = np.where(zero, 0.0, others)
    return np.einsum("...qi,q->...i", others, weights)


def path_factors_at_nodes(
    z: np.ndarray, o: np.ndarray, n_nodes: int
) -> tuple[np.ndarray, np.ndarray]:
    """The factors ``z_k (1 - t) + o_k t`` of a path at Gauss-Legendre nodes on [0, 1].

    Shared by :func:`path_weights_integral` (:eq:`eq-shap-path-integral`) and
    the pairwise weights of :eq:`eq-shap-interaction-path`: both integrate a
    product of these factors over ``t`` in [0, 1] and differ only in which
    factors they leave out. ``n_nodes`` nodes integrate a polynomial of degree
    ``2 n_nodes - 1`` exactly.

    Returns
    -------
    factors : ndarray of shape (..., n_nodes, L)
        ``z`` and ``o`` broadcast together, evaluated at every node.
    weights : ndarray of shape (n_nodes,)
        The quadrature weights on [0, 1] (half those on [-1, 1]).
    """
    z = np.asarray(z, dtype=np.float64)
    o = np.asarray(o, dtype=np.float64)
    z, o = np.broadcast_arrays(z, o)
    nodes, weights = np.polynomial.legendre.leggauss(n_nodes)
    t = (nodes + 1.0) / 2.0
    factors = z[..., None, :] * (1.0 - t[:, None]) + o[..., None, :] * t[:, None]
    return factors, weights / 2.0


def _refuse_split_rows(view: TreeModelView, interventional: bool) -> None:
    """Refuse rows that C4.5 routes down every branch where TreeSHAP cannot explain them.

    Shared by :func:`tree_shap` and the interaction values: a fractional row
    has no interventional values, and a model that votes after mixing the
    branches (hard voting) is not a sum over leaves for such a row.
    """
    if interventional:
        raise ValueError(
            "rows with missing values routed down every branch (C4.5) have no "
            "interventional TreeSHAP values; use the path-dependent values"
        )
    if not view.mixes_linearly:
        raise ValueError(
            "this model votes after mixing the branches of a row with missing values "
            "(C4.5), so its output is not a sum over leaves and TreeSHAP does not apply "
            "to such rows"
        )


def _interventional_coefficients(L: int) -> np.ndarray:
    """Shapley values of the game ``1[P_x subset S, S disjoint from P_b]`` for every pattern pair.

    Implements :eq:`eq-shap-interventional-leaf`: a hybrid row (the row's
    values on ``S``, the background row's elsewhere) reaches the leaf iff
    ``S`` holds every feature only the row follows (``P_x``) and none that
    only the background row follows (``P_b``). Returns ``C[mz, mx, i]``.
    """
    masks = np.arange(1 << L)
    bits = (masks[:, None] >> np.arange(L)) & 1  # (2^L, L)
    full = (1 << L) - 1
    mz, mx = np.meshgrid(masks, masks, indexing="ij")
    valid = (mz | mx) == full
    in_a = (bits[mx] == 1) & (bits[mz] == 0)
    in_b = (bits[mz] == 1) & (bits[mx] == 0)
    a = in_a.sum(axis=-1)
    b = in_b.sum(axis=-1)
    fact = np.array([factorial(k) for k in range(L + 1)], dtype=np.float64)
    total = fact[a + b]
    w_a = fact[np.maximum(a - 1, 0)] * fact[b] / total
    w_b = -fact[a] * fact[np.maximum(b - 1, 0)] / total
    coef = np.where(in_a, w_a[..., None], 0.0) + np.where(in_b, w_b[..., None], 0.0)
    return np.where(valid[..., None], coef, 0.0)


# --------------------------------------------------------- one tree's paths
class _Paths:
    """The root-to-leaf paths of one tree, as distinct features with zero fractions.

    Internal nodes where a row can stop (a category unseen at the node, a
    missing value without a method) get a *virtual leaf* child holding the
    node's value, with cover 0, so that every prediction ends in a leaf.
    """

    def __init__(self, tree: Tree, table: np.ndarray, columns: np.ndarray):
        n = tree.node_count
        leaf = tree.is_leaf
        internal = np.flatnonzero(~leaf)
        self.tree = tree
        self.internal = internal
        self.missing_routes = bool((tree.missing_slot != MISSING_NONE).any())
        stops = (tree.kind[internal] == CATEGORICAL_NODE) | (
            self.missing_routes & (tree.missing_slot[internal] == MISSING_NONE)
        )
        stop_nodes = internal[stops]
        n_ext = n + stop_nodes.size
        parent = np.concatenate([tree.parent, stop_nodes]).astype(np.intp)
        has_parent = parent >= 0
        slot = np.full(n_ext, STOP, dtype=np.int64)
        real_child = np.flatnonzero(tree.parent >= 0)
        slot[real_child] = real_child - tree.first_child[tree.parent[real_child]]
        fraction = np.concatenate([tree.branch_fraction(), np.zeros(stop_nodes.size)])
        depth = np.concatenate([tree.depth, tree.depth[stop_nodes] + 1]).astype(np.intp)
        self.table = np.concatenate([table, table[stop_nodes]]).astype(np.float64)
        self.columns = np.asarray(columns, dtype=np.intp)
        is_leaf = np.concatenate([leaf, np.ones(stop_nodes.size, dtype=bool)])
        self.leaves = np.flatnonzero(is_leaf)
        # Column of each node's parent in the (row, internal node) slot matrix.
        column_of = np.full(n, -1, dtype=np.intp)
        column_of[internal] = np.arange(internal.size)
        self.parent_column = np.where(has_parent, column_of[np.maximum(parent, 0)], -1)
        self.slot, self.fraction, self.parent = slot, fraction, parent

        # Distinct features on the path to every node, in order of first
        # appearance from the root (so a prefix keeps its numbering).
        D = int(depth.max()) if n_ext else 0
        width = max(D, 1)
        feats = np.full((n_ext, width), -1, dtype=np.intp)
        zel = np.ones((n_ext, width))
        count = np.zeros(n_ext, dtype=np.intp)
        elem = np.zeros(n_ext, dtype=np.intp)
        self.levels = []
        node_feature = tree.feature.astype(np.intp)
        for d in range(1, D + 1):
            c = np.flatnonzero(depth == d)
            p = parent[c]
            f = node_feature[p]
            match = feats[p] == f[:, None]
            found = match.any(axis=1)
            idx = np.where(found, match.argmax(axis=1), count[p])
            feats[c] = feats[p]
            feats[c, idx] = f
            count[c] = count[p] + ~found
            zel[c] = zel[p]
            zel[c, idx] *= fraction[c]
            elem[c] = idx
            self.levels.append((c, p, self.parent_column[c], slot[c], idx))
        self.depth_max = D
        self.elem = elem
        lv = self.leaves
        self.length = count[lv]
        self.leaf_features = feats[lv]
        self.leaf_z = zel[lv]
        # Edges (non-root nodes) of every leaf's path, root first, padded with -1.
        edges = np.full((lv.size, width), -1, dtype=np.intp)
        cur = lv.copy()
        for _ in range(D):
            here = depth[cur]
            ok = here > 0
            edges[ok, here[ok] - 1] = cur[ok]
            cur = np.where(ok, parent[cur], cur)
        self.edges = edges
        self.full_mask = (np.int64(1) << self.length.astype(np.int64)) - 1
        self.n_ext = n_ext

    def expected(self) -> np.ndarray:
        """The path-dependent ``E f`` of this tree per table column (all features unknown)."""
        reach = np.prod(self.leaf_z, axis=1)
        return reach @ self.table[self.leaves]

    def slots(self, values_t: np.ndarray) -> np.ndarray:
        """Per (internal node, row): the child slot taken, ``STOP`` or ``SPLIT``.

        ``values_t`` holds the rows as columns (features x rows), so that every
        node's tests read one contiguous line.
        """
        tree, inner = self.tree, self.internal
        x = values_t[tree.feature[inner].astype(np.intp)]
        slot = (x > tree.threshold[inner][:, None]).astype(np.int8)
        categorical = np.flatnonzero(tree.kind[inner] == CATEGORICAL_NODE)
        if categorical.size:
            nodes = inner[categorical][:, None]
            xc = x[categorical]
            codes = np.nan_to_num(np.where(xc >= 0, xc, -1), nan=-1).astype(np.intp)
            known = (codes >= 0) & (codes < tree.n_categories[nodes])
            look = np.where(known, tree.route_offset[nodes] + codes, 0)
            routed = np.where(known, tree.route_table[look], -1)
            slot[categorical] = np.where(routed >= 0, routed, STOP)
        if self.missing_routes:
            nan = np.isnan(x)
            if nan.any():
                ms = tree.missing_slot[inner].astype(np.int8)
                fill = np.where(ms >= 0, ms, np.where(ms == MISSING_ALL_BRANCHES, SPLIT, STOP))
                slot = np.where(nan, fill[:, None], slot).astype(np.int8)
        return slot

    def fail_bits(self, slot: np.ndarray) -> np.ndarray:
        """Per (leaf, row): bit i set when the row leaves the path at an edge of element i.

        Computed level by level from the root: a node inherits its parent's
        bits and sets the bit of its own edge's element if the row does not
        take that edge.
        """
        dtype = np.int32 if self.depth_max < 31 else np.int64
        fail = np.zeros((self.n_ext, slot.shape[1]), dtype=dtype)
        for c, p, pcol, s, idx in self.levels:
            off = (slot[pcol] != s[:, None]).astype(dtype)
            fail[c] = fail[p] | (off << idx[:, None].astype(dtype))
        return fail[self.leaves]

    def one_fractions(self, slot: np.ndarray, leaves: np.ndarray) -> np.ndarray:
        """Per (row, leaf, element): the share of the row that follows the element's edges."""
        n_rows = slot.shape[1]
        width = max(self.edges.shape[1], 1)
        o_edge = np.ones((n_rows, self.n_ext + 1))  # last column: padding edges
        child = np.flatnonzero(self.parent >= 0)
        s = slot[self.parent_column[child]].T
        o_edge[:, child] = (s == self.slot[child]) + (s == SPLIT) * self.fraction[child]
        edges = self.edges[leaves]
        o = np.ones((n_rows, leaves.size, width + 1))
        rows = np.arange(leaves.size)
        for d in range(edges.shape[1]):
            e = edges[:, d]
            at = np.where(e >= 0, self.elem[np.maximum(e, 0)], width)
            o[:, rows, at] *= o_edge[:, np.where(e >= 0, e, self.n_ext)]
        return o[:, :, :width]


# ------------------------------------------------------------- the explainer
class _Plan:
    """How the row phase treats one tree: tables by element index, and the long paths.

    ``tables[i][k]`` holds, for every (tabled leaf, pattern) row, element
    ``i``'s weight times the leaf's value in output column ``k``; the leaves
    having an element ``i`` are sorted by that element's feature, so that a
    row's contributions to one feature are one contiguous segment to sum.
    """

    def __init__(self, path: _Paths, tab: np.ndarray, weights: list, direct: np.ndarray):
        self.tab, self.direct = tab, direct
        L = path.length[tab]
        sizes = np.int64(1) << L.astype(np.int64)
        self.row_offset = (np.cumsum(sizes) - sizes)[:, None]
        self.full = path.full_mask[tab][:, None]
        values = path.table[path.leaves[tab]]  # (n_tab, m)
        # The leaves' (2^L, L) weight blocks, one after the other.
        flat_w = np.concatenate([w.ravel() for w in weights]) if weights else np.zeros(0)
        block = sizes * L
        w_offset = np.cumsum(block) - block
        total = int(sizes.sum())
        self.elements = []
        for i in range(int(L.max()) if tab.size else 0):
            has = np.flatnonzero(i < L)
            feats = path.leaf_features[tab[has], i]
            order = np.argsort(feats, kind="stable")
            has, feats = has[order], feats[order]
            u, starts = np.unique(feats, return_index=True)
            counts = sizes[has]
            pattern = np.arange(int(counts.sum())) - np.repeat(np.cumsum(counts) - counts, counts)
            source = np.repeat(w_offset[has] + i, counts) + pattern * np.repeat(L[has], counts)
            target = np.repeat(self.row_offset[has, 0], counts) + pattern
            columns = []
            for k in range(values.shape[1]):
                flat = np.zeros(total)
                flat[target] = flat_w[source] * np.repeat(values[has, k], counts)
                columns.append(flat)
            self.elements.append((has, u, starts, columns))


class _Explainer:
    """TreeSHAP over all trees of a view, path-dependent or interventional."""

    def __init__(self, view: TreeModelView, n_rows: int, background=None):
        self.view = view
        self.paths = [
            _Paths(tree, np.asarray(table, dtype=np.float64), cols)
            for tree, table, cols in zip(view.trees, view.tables, view.columns, strict=True)
        ]
        self.interventional = background is not None
        if self.interventional:
            limit = MAX_INTERVENTIONAL_TABLE
            self.background_t = np.ascontiguousarray(background.T)
        else:
            # A table of 2^L patterns pays when it is much smaller than the
            # rows; otherwise the rows' distinct patterns are fewer (and cheaper).
            limit = int(np.clip(np.floor(np.log2(max(n_rows, 2))) - 3, 1, MAX_TABLE_LENGTH))
        self.limit = limit
        self._build()

    def _build(self):
        """Per leaf with 0 < L <= limit: the weights of all 2^L patterns (the row-free part)."""
        bg_masks = None
        if self.interventional:
            bg_masks = [self._background_masks(p) for p in self.paths]
        # Weights of every tabled leaf, computed in groups of equal length.
        # Short paths first: their tables are the cheapest; stop at the budget.
        items = [
            (t, j)
            for t, p in enumerate(self.paths)
            for j in np.flatnonzero((p.length > 0) & (p.length <= self.limit))
        ]
        sizes = np.array(
            [
                (1 << int(self.paths[t].length[j]))
                * int(self.paths[t].length[j])
                * self.paths[t].table.shape[1]
                for t, j in items
            ],
            dtype=np.int64,
        )
        order = np.argsort(sizes, kind="stable")
        fits = np.cumsum(sizes[order]) <= TABLE_BUDGET
        items = [items[g] for g in np.sort(order[fits])]
        tabled = [np.zeros(p.leaves.size, dtype=bool) for p in self.paths]
        for t, j in items:
            tabled[t][j] = True
        weights = {}
        lengths = np.array([self.paths[t].length[j] for t, j in items], dtype=np.intp)
        for L in np.unique(lengths):
            L = int(L)
            group = [items[g] for g in np.flatnonzero(lengths == L)]
            n_pat = 1 << L
            if self.interventional:
                P = (
                    np.stack([np.bincount(bg_masks[t][j], minlength=n_pat) for t, j in group])
                    / bg_masks[0].shape[1]
                )
                coef = _interventional_coefficients(L).reshape(n_pat, n_pat * L)
                w = (P @ coef).reshape(len(group), n_pat, L)
            else:
                z = np.stack([self.paths[t].leaf_z[j, :L] for t, j in group])
                o = ((np.arange(n_pat)[:, None] >> np.arange(L)) & 1).astype(np.float64)
                w = (o[None] - z[:, None]) * path_weights_integral(z[:, None, :], o[None])
            for g, key in enumerate(group):
                weights[key] = w[g]
        self.plans = []
        for t, path in enumerate(self.paths):
            tab = np.flatnonzero(tabled[t])
            direct = np.flatnonzero(~tabled[t] & (path.length > 0))
            self.plans.append(_Plan(path, tab, [weights[(t, j)] for j in tab], direct))
        ev = np.array(self.view.base, dtype=np.float64)
        for t, path in enumerate(self.paths):
            if self.interventional:
                reach = (bg_masks[t] == path.full_mask[:, None]).mean(axis=1)
            else:
                reach = np.prod(path.leaf_z, axis=1)
            np.add.at(ev, path.columns, reach @ path.table[path.leaves])
        self.expected_value = ev
        self._bg_masks = bg_masks

    def _background_masks(self, path: _Paths) -> np.ndarray:
        slot = path.slots(self.background_t)
        if (slot == SPLIT).any():
            raise ValueError(
                "background rows with missing values routed down every branch (C4.5) cannot be "
                "used by interventional TreeSHAP; drop or impute them"
            )
        return path.full_mask[:, None] & ~path.fail_bits(slot).astype(np.int64)

    def explain(self, values: np.ndarray) -> np.ndarray:
        n, p = values.shape
        m = self.view.n_outputs
        phi = np.zeros((n, p, m))
        width = max((path.n_ext for path in self.paths), default=1)
        block = int(np.clip(4 * BLOCK_ELEMENTS // width, 64, 1024))
        for s in range(0, n, block):
            part = values[s : s + block]
            values_t = np.ascontiguousarray(part.T)
            phi_t = np.zeros((p, m, part.shape[0]))
            extra = np.zeros((part.shape[0], p, m))
            for t, (path, plan) in enumerate(zip(self.paths, self.plans, strict=True)):
                self._tree_block(t, path, plan, values_t, phi_t, extra)
            phi[s : s + block] = phi_t.transpose(2, 0, 1) + extra
        return phi

    def _tree_block(self, t, path, plan, values_t, phi_t, extra):
        slot = path.slots(values_t)
        split_rows = (slot == SPLIT).any(axis=0)
        if split_rows.any():
            _refuse_split_rows(self.view, self.interventional)
            # Fractional rows: the polynomial on their own fractions, every leaf.
            split = np.flatnonzero(split_rows)
            nonzero = np.flatnonzero(path.length > 0)
            self._direct(path, slot[:, split], nonzero, extra, split)
            slot = slot.copy()
            slot[:, split] = -3  # follows nothing: these rows' table terms are removed below
        fail = path.fail_bits(slot) if plan.tab.size or plan.direct.size else None
        if plan.tab.size:
            rows = plan.row_offset + (plan.full & ~fail[plan.tab])
            for has, feats, starts, columns in plan.elements:
                at = rows[has]
                for k, out in enumerate(path.columns):
                    gathered = columns[k][at]
                    summed = np.add.reduceat(gathered, starts, axis=0)
                    if split_rows.any():
                        summed[:, split_rows] = 0.0
                    phi_t[feats, out] += summed
        if plan.direct.size:
            keep = np.flatnonzero(~split_rows)
            if self.interventional:
                self._direct(path, slot[:, keep], plan.direct, extra, keep)
            else:
                self._direct_patterns(path, fail[:, keep], plan.direct, extra, keep)

    def _direct_patterns(self, path: _Paths, fail, leaves, extra, rows):
        """Long paths, rows with 0/1 fractions: the polynomial once per distinct pattern.

        Deep in a tree most rows follow few of a path's features, so a
        leaf sees far fewer distinct patterns than rows.
        """
        fail = fail.astype(np.int64)
        n_rows = fail.shape[1]
        for L in np.unique(path.length[leaves]):
            L = int(L)
            same = leaves[path.length[leaves] == L]
            step = max(1, min(DIRECT_ELEMENTS // max(1, n_rows * L), 1 << max(0, 62 - L)))
            for start in range(0, same.size, step):
                group = same[start : start + step]
                masks = path.full_mask[group][:, None] & ~fail[group]
                keys = (np.arange(group.size, dtype=np.int64)[:, None] << L) | masks
                distinct, inverse = np.unique(keys.ravel(), return_inverse=True)
                which = distinct >> L
                bits = ((distinct[:, None] >> np.arange(L)) & 1).astype(np.float64)
                z = path.leaf_z[group[which], :L]
                per_pattern = (bits - z) * path_weights_integral(z, bits)  # (n_distinct, L)
                contrib = per_pattern[inverse].reshape(group.size, n_rows, L).transpose(1, 0, 2)
                self._add(path, contrib, path.leaf_features[group, :L], group, extra, rows)

    def _direct(self, path: _Paths, slot, leaves, extra, rows):
        """The polynomial on the rows' own one fractions (long paths, fractional rows)."""
        if self.interventional:
            self._direct_interventional(path, slot, leaves, extra, rows)
            return
        for L in np.unique(path.length[leaves]):
            L = int(L)
            same = leaves[path.length[leaves] == L]
            step = max(1, DIRECT_ELEMENTS // max(1, slot.shape[1] * L * L))
            for start in range(0, same.size, step):
                group = same[start : start + step]
                o = path.one_fractions(slot, group)[:, :, :L]
                z = path.leaf_z[group, :L][None, :, :]
                contrib = (o - z) * path_weights_integral(z, o)  # (rows, leaves, L)
                self._add(path, contrib, path.leaf_features[group, :L], group, extra, rows)

    def _direct_interventional(self, path, slot, leaves, extra, rows):
        """Long paths, interventional: the closed form over (row, background row) pairs."""
        t = self.paths.index(path)
        fail = path.fail_bits(slot).astype(np.int64)
        fact = np.array([factorial(k) for k in range(64)], dtype=np.float64)
        for leaf in leaves:
            L = int(path.length[leaf])
            full = path.full_mask[leaf]
            mx = full & ~fail[leaf]
            mz = self._bg_masks[t][leaf]
            bits = np.arange(L)
            x_bits = (mx[:, None] >> bits) & 1
            z_bits = (mz[:, None] >> bits) & 1
            valid = ((mx[:, None] | mz[None, :]) == full)[:, :, None]
            in_a = (x_bits[:, None, :] == 1) & (z_bits[None, :, :] == 0)
            in_b = (x_bits[:, None, :] == 0) & (z_bits[None, :, :] == 1)
            a = in_a.sum(axis=-1, keepdims=True)
            b = in_b.sum(axis=-1, keepdims=True)
            tot = fact[a + b]
            coef = np.where(in_a, fact[np.maximum(a - 1, 0)] * fact[b] / tot, 0.0) - np.where(
                in_b, fact[a] * fact[np.maximum(b - 1, 0)] / tot, 0.0
            )
            contrib = np.where(valid, coef, 0.0).mean(axis=1)[:, None, :]
            self._add(path, contrib, path.leaf_features[[leaf], :L], np.array([leaf]), extra, rows)

    @staticmethod
    def _add(path, contrib, feats, leaves, extra, rows):
        """``extra[rows, feature, column] += contrib * leaf value`` for every (leaf, element)."""
        values = path.table[path.leaves[leaves]]  # (n_leaves, m)
        n_rows, n_leaves, L = contrib.shape
        flat_feat = feats.ravel()
        for k, out in enumerate(path.columns):
            weighted = (contrib * values[None, :, k, None]).reshape(n_rows, n_leaves * L)
            summed = np.zeros((n_rows, extra.shape[1]))
            for j in np.unique(flat_feat):
                summed[:, j] = weighted[:, flat_feat == j].sum(axis=1)
            extra[rows, :, out] += summed


def tree_shap(model, X, *, background=None) -> Explanation:
    """SHAP values of a fitted mltrees tree model (TreeSHAP, chapter 17).

    Implements :eq:`eq-shap-path-weight` with the path-dependent value
    :eq:`eq-shap-path-value` (Lundberg, Erion & Lee 2018; Lundberg et al.
    2020) or, given ``background``, the interventional value
    :eq:`eq-shap-interventional`.

    Which output is explained, as the ``shap`` package does:

    * regressors (trees, forests, bagging, gradient boosting, XGBoost):
      the prediction, ``values`` of shape (n, p) (XGBoost: the margin,
      e.g. the log of the mean for Poisson);
    * trees, forests and bagging of classifiers, which average class
      probabilities: ``predict_proba``, shape (n, p, K);
    * boosting classifiers: the margin (``decision_function``), shape
      (n, p) for two classes (log-odds of ``classes_[1]``; AdaBoost's
      weighted vote difference) and (n, p, K) for more.

    Parameters
    ----------
    model : fitted mltrees tree model, or a :class:`TreeModelView`
        Oblique trees, whose nodes test several features at once, have no
        single feature per edge and are not supported.
    X : array_like or DataFrame (n, p)
        Rows to explain, in the format the model was fitted on.
    background : array_like or DataFrame, optional
        Rows over which absent features are averaged (interventional
        TreeSHAP). None: the trees' own covers (path-dependent).

    Returns
    -------
    Explanation
        ``values.sum(axis=1) + expected_value`` equals the explained output
        (local accuracy, :eq:`eq-shap-local-accuracy`).
    """
    view = view_of(model)
    values = view.encode(X)
    bg = None
    if background is not None:
        if len(background) == 0:
            raise ValueError("background must hold at least one row")
        bg = view.encode(background)
    explainer = _Explainer(view, values.shape[0], background=bg)
    phi = explainer.explain(values)
    ev = explainer.expected_value
    if view.squeeze:
        return Explanation(phi[:, :, 0], float(ev[0]), values, view.feature_names, view.output_name)
    return Explanation(phi, ev, values, view.feature_names, view.output_name)


def expected_value(model) -> float | np.ndarray:
    """The path-dependent ``E f`` of a tree model: cover-weighted mean of its leaf values."""
    view = view_of(model)
    ev = np.array(view.base, dtype=np.float64)
    for tree, table, cols in zip(view.trees, view.tables, view.columns, strict=True):
        np.add.at(ev, cols, _Paths(tree, np.asarray(table, dtype=np.float64), cols).expected())
    return float(ev[0]) if view.squeeze else ev
