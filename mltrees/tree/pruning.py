r"""Pruning a grown tree (chapter 5).

Four methods, all of which return a new, compacted :class:`~mltrees.tree.Tree`
(or a pruned copy of an estimator) and leave their input untouched:

* :func:`cost_complexity_path` and :func:`prune_cost_complexity` -- CART's
  weakest-link pruning of :math:`C_\alpha(T) = C(T) + \alpha |T|`, with
  scikit-learn's semantics (one node per step, so α values can repeat);
  :func:`optimal_subtree` minimises the same cost directly, bottom-up;
* :func:`prune_pessimistic` -- C4.5's pessimistic error pruning with an upper
  confidence bound, as Weka's J48 does it (collapse, subtree replacement and
  subtree raising);
* :func:`prune_reduced_error` -- Quinlan's reduced-error pruning on a
  validation set;
* :func:`prune_validation_pre` -- the validation-based pre-pruning of Zhou
  (2016, section 4.3.1), computed on the grown tree.

Work is done per depth level with numpy where the method allows it (cost
complexity, reduced error, pessimistic pruning without raising). The weakest-
link path is inherently sequential -- one entry per pruned node -- and so is
subtree raising, which re-routes training data through a moved subtree.
"""

from __future__ import annotations

import copy
import heapq
import math
import numbers
from statistics import NormalDist

import numpy as np

from mltrees.criteria import class_impurity
from mltrees.tree._tree import CATEGORICAL_NODE, LEAF, Tree, category_slot

__all__ = [
    "added_errors",
    "cost_complexity_path",
    "optimal_subtree",
    "pessimistic_errors",
    "prune_collapse",
    "prune_cost_complexity",
    "prune_pessimistic",
    "prune_reduced_error",
    "prune_validation_pre",
]

SMALL = 1e-6  # weka.core.Utils.SMALL: J48's tolerance in every comparison
ALPHA_TIE = 1e-12  # relative: effective alphas this close are ties (rounding noise)


# ---------------------------------------------------------------------------
# Helpers on the flat tree
# ---------------------------------------------------------------------------


def _children(tree: Tree) -> tuple[np.ndarray, np.ndarray]:
    """Ids of all non-root nodes and of their parents."""
    child = np.flatnonzero(tree.parent >= 0)
    return child, tree.parent[child]


def _sum_to_parents(tree: Tree, per_node: np.ndarray, where: np.ndarray | None = None):
    """Sum of ``per_node`` over each node's children, for all nodes at once."""
    child, parent = _children(tree)
    out = np.zeros_like(per_node, dtype=np.float64)
    values = per_node[child] if where is None else np.where(where[child], per_node[child], 0)
    np.add.at(out, parent, values)
    return out


def _bottom_up(tree: Tree, leaf_value: np.ndarray, combine) -> np.ndarray:
    """Evaluate ``combine(node_ids, children_sum)`` level by level from the deepest.

    ``result[leaf] = leaf_value[leaf]``; an internal node gets
    ``combine(ids, sum of its children's results)``. Loops over depth only.
    """
    result = np.asarray(leaf_value, dtype=np.float64).copy()
    child, parent = _children(tree)
    internal = ~tree.is_leaf
    for depth in range(tree.max_depth - 1, -1, -1):
        at = np.flatnonzero(internal & (tree.depth == depth))
        if at.size == 0:
            continue
        sums = np.zeros(tree.node_count)
        below = tree.depth[child] == depth + 1
        np.add.at(sums, parent[below], result[child[below]])
        result[at] = combine(at, sums[at])
    return result


def _topmost(tree: Tree, mask: np.ndarray) -> np.ndarray:
    """``mask`` restricted to nodes without a masked ancestor (the cuts that matter)."""
    covered = np.zeros(tree.node_count, dtype=bool)
    child, parent = _children(tree)
    for _ in range(tree.max_depth):
        covered[child] = covered[parent] | mask[parent]
    return mask & ~covered


def _class_counts(tree: Tree) -> np.ndarray:
    """Weighted class counts of every node (``value`` holds fractions)."""
    return tree.value * tree.weighted_n_node_samples[:, None]


def _preorder(tree: Tree) -> np.ndarray:
    """Rank of each node in a depth-first, first-child-first walk (scikit-learn's ids)."""
    size = _bottom_up(tree, np.ones(tree.node_count), lambda ids, sums: 1.0 + sums).astype(np.intp)
    rank = np.zeros(tree.node_count, dtype=np.intp)
    child, parent = _children(tree)
    # Among siblings, the ones before a child come first: their subtree sizes.
    slot = child - tree.first_child[parent]
    order = np.lexsort((slot, parent))
    child, parent = child[order], parent[order]
    before = np.cumsum(size[child]) - size[child]
    start = np.searchsorted(parent, parent, side="left")
    before = before - before[start]
    for depth in range(1, tree.max_depth + 1):
        at = tree.depth[child] == depth
        rank[child[at]] = rank[parent[at]] + 1 + before[at]
    return rank


# ---------------------------------------------------------------------------
# CART: cost-complexity pruning
# ---------------------------------------------------------------------------


def cost_complexity_path(tree: Tree) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    r"""CART's weakest-link sequence, one pruned node per step (scikit-learn's semantics).

    Implements :eq:`eq-ccp-alpha-eff` (chapter 5): with
    :math:`R(t) = \frac{W_t}{W} I(t)` and :math:`R(T_t)` the sum of ``R`` over the
    leaves of the branch at ``t``, every step prunes the internal node with the
    smallest effective alpha :math:`(R(t) - R(T_t)) / (|\tilde T_t| - 1)`
    (ties: the node visited first depth-first, as scikit-learn numbers nodes).

    Parameters
    ----------
    tree : Tree
        A grown tree.

    Returns
    -------
    alphas : ndarray (n_internal + 1,)
        0 first, then the effective alpha of each pruning step.
    impurities : ndarray (n_internal + 1,)
        Total leaf impurity :math:`\sum_{leaves} R(t)` after each step.
    pruned : ndarray of int (n_internal,)
        The node pruned at each step.
    """
    weight = tree.weighted_n_node_samples
    r_node = weight / weight[0] * tree.impurity
    leaf = tree.is_leaf
    r_branch = _bottom_up(tree, np.where(leaf, r_node, 0.0), lambda ids, sums: sums)
    n_leaves = _bottom_up(tree, leaf.astype(np.float64), lambda ids, sums: sums)
    rank = _preorder(tree)
    gone = np.zeros(tree.node_count, dtype=bool)  # pruned, or inside a pruned branch
    internal = np.flatnonzero(~leaf)
    alphas0 = (r_node[internal] - r_branch[internal]) / (n_leaves[internal] - 1.0)
    heap = list(
        zip(
            alphas0.tolist(),
            rank[internal].tolist(),
            internal.tolist(),
            [0] * internal.size,
            strict=False,
        )
    )
    heapq.heapify(heap)
    # The sequential part works on Python lists: one step touches a handful of
    # nodes (the pruned one and its ancestors), where numpy's per-call cost dominates.
    r_node, r_branch, n_leaves = r_node.tolist(), r_branch.tolist(), n_leaves.tolist()
    rank, parent = rank.tolist(), tree.parent.tolist()
    version = [0] * tree.node_count
    alphas, impurities, pruned = [0.0], [r_branch[0]], []

    def live(entry):
        _, _, node, stamp = entry
        return stamp == version[node] and not gone[node]

    while heap:
        best = heapq.heappop(heap)
        if not live(best):
            continue
        # Entries within rounding noise of the smallest alpha are ties: the
        # node first in depth-first order wins, as in scikit-learn.
        held = []
        while heap and heap[0][0] <= best[0] + ALPHA_TIE * abs(best[0]) + 1e-300:
            other = heapq.heappop(heap)
            if not live(other):
                continue
            if other[1] < best[1]:
                best, other = other, best
            held.append(other)
        for entry in held:
            heapq.heappush(heap, entry)
        value, _, node, _ = best
        _mark_branch(tree, node, gone)
        r_diff = r_node[node] - r_branch[node]
        leaves_diff = n_leaves[node] - 1.0
        r_branch[node], n_leaves[node] = r_node[node], 1.0
        up = parent[node]
        while up >= 0:
            r_branch[up] += r_diff
            n_leaves[up] -= leaves_diff
            version[up] += 1
            g = (r_node[up] - r_branch[up]) / (n_leaves[up] - 1.0)
            heapq.heappush(heap, (g, rank[up], up, version[up]))
            up = parent[up]
        alphas.append(float(value))
        impurities.append(r_branch[0])
        pruned.append(node)
    return np.array(alphas), np.array(impurities), np.array(pruned, dtype=np.intp)


def _mark_branch(tree: Tree, node: int, gone: np.ndarray) -> None:
    """Mark ``node`` and its descendants (children have larger ids, level order)."""
    gone[node] = True
    frontier = np.array([node])
    while frontier.size:
        internal = frontier[tree.feature[frontier] != LEAF]
        if internal.size == 0:
            break
        frontier = np.concatenate(
            [
                np.arange(f, f + n)
                for f, n in zip(tree.first_child[internal], tree.n_children[internal], strict=False)
            ]
        )
        gone[frontier] = True


def prune_cost_complexity(tree: Tree, ccp_alpha: float, path=None) -> Tree:
    r"""The subtree :math:`T(\alpha)` of CART's cost-complexity pruning.

    Implements :eq:`eq-ccp-cost` (chapter 5). As in scikit-learn, the weakest
    link is pruned while its effective alpha is at most ``ccp_alpha``; nodes of
    the sequence of :func:`cost_complexity_path` up to that point become leaves.
    ``path``, the output of :func:`cost_complexity_path` for ``tree``, saves
    recomputing it when one tree is pruned at many alphas.
    """
    if ccp_alpha <= 0 or tree.n_leaves == 1:
        return tree
    alphas, _, pruned = cost_complexity_path(tree) if path is None else path
    steps = int(np.searchsorted(alphas[1:], ccp_alpha * (1 + ALPHA_TIE), side="right"))
    if steps == 0:
        return tree
    return tree.collapse(pruned[:steps])  # collapse drops what lies below a pruned node


def optimal_subtree(tree: Tree, ccp_alpha: float) -> Tree:
    r"""The smallest pruned subtree of least cost-complexity, by dynamic programming.

    Implements :eq:`eq-ccp-recursion` (chapter 5). With
    :math:`R(t) = \frac{W_t}{W} I(t)` and :math:`\kappa` = ``ccp_alpha``, the
    least cost :math:`m(t)` of a pruned subtree of the branch at ``t`` is
    :math:`R(t) + \kappa` at a leaf and
    :math:`\min\big(R(t) + \kappa, \sum_{c} m(c)\big)` over the children
    ``c`` of an internal node; a node becomes a leaf when the leaf costs no
    more than the best branch below it (ties: the smaller tree). This solves
    the minimisation of :eq:`eq-ccp-cost` directly, one depth level at a time,
    without the weakest-link sequence of :func:`cost_complexity_path`; by the
    theorem of chapter 5 both give the same tree for every ``ccp_alpha > 0``.
    At ``ccp_alpha = 0`` this returns :math:`T(0)`, which also drops the
    branches that do not lower :math:`R`, whereas :func:`prune_cost_complexity`
    returns the grown tree, as scikit-learn does.

    Parameters
    ----------
    tree : Tree
        A grown tree.
    ccp_alpha : float
        The cost-complexity parameter :math:`\kappa \ge 0`, the price of a leaf.

    Returns
    -------
    Tree
        The smallest minimiser :math:`T(\kappa)` of :math:`R(T) + \kappa |\tilde T|`.

    Raises
    ------
    TypeError
        If ``ccp_alpha`` is not a real number.
    ValueError
        If ``ccp_alpha`` is negative, NaN or infinite.
    """
    if isinstance(ccp_alpha, bool) or not isinstance(ccp_alpha, numbers.Real):
        raise TypeError(f"ccp_alpha must be a real number, got {ccp_alpha!r}")
    kappa = float(ccp_alpha)
    if not math.isfinite(kappa) or kappa < 0:
        raise ValueError(f"ccp_alpha must be a finite number >= 0, got {ccp_alpha!r}")
    weight = tree.weighted_n_node_samples
    leaf_cost = weight / weight[0] * tree.impurity + kappa
    collapse = np.zeros(tree.node_count, dtype=bool)

    def combine(ids, below):
        as_leaf = leaf_cost[ids]
        # Equal costs prefer the leaf (the smallest minimiser); the relative
        # tolerance keeps rounding in the sums from deciding such ties.
        cheaper = as_leaf <= below + ALPHA_TIE * np.maximum(np.abs(below), np.abs(as_leaf))
        collapse[ids] = cheaper
        return np.where(cheaper, as_leaf, below)

    _bottom_up(tree, leaf_cost, combine)
    cut = _topmost(tree, collapse)
    return tree.collapse(cut) if cut.any() else tree


# ---------------------------------------------------------------------------
# C4.5: pessimistic error pruning
# ---------------------------------------------------------------------------


def added_errors(n, e, confidence: float = 0.25):
    r"""Errors to add to ``e`` observed errors among ``n`` cases (C4.5's ``addErrs``).

    Implements :eq:`eq-pessimistic-upper` (chapter 5): :math:`U_{CF}(e, N) N - e`,
    with :math:`U_{CF}` the upper limit of the one-sided confidence interval at
    level ``confidence`` of the binomial error rate, through the normal
    approximation with continuity correction :math:`f = (e + 0.5)/N`. Below one
    error C4.5 uses the exact bound for :math:`e = 0`,
    :math:`N (1 - CF^{1/N})`, interpolated linearly up to :math:`e = 1`; when
    :math:`e + 0.5 \ge N` it adds :math:`N - e`. These are Weka's ``Stats.addErrs``.

    Parameters
    ----------
    n, e : array_like
        Weighted number of cases and of errors (fractional weights allowed).
    confidence : float in (0, 0.5]
        C4.5's CF (default 0.25); smaller values prune more.

    Returns
    -------
    ndarray or float
    """
    n = np.asarray(n, dtype=np.float64)
    e = np.asarray(e, dtype=np.float64)
    z = NormalDist().inv_cdf(1.0 - confidence)
    safe_n = np.where(n > 0, n, 1.0)
    base = safe_n * (1.0 - confidence ** (1.0 / safe_n))

    def normal(errors):
        f = (errors + 0.5) / safe_n
        root = np.sqrt(np.maximum(f / safe_n - f * f / safe_n + z * z / (4 * safe_n * safe_n), 0))
        upper = (f + z * z / (2 * safe_n) + z * root) / (1 + z * z / safe_n)
        return np.where(
            errors + 0.5 >= safe_n, np.maximum(safe_n - errors, 0.0), upper * safe_n - errors
        )

    at_one = normal(np.ones_like(e))
    out = np.where(e < 1, base + e * (at_one - base), normal(np.maximum(e, 1.0)))
    out = np.where(n > 0, out, 0.0)
    return float(out) if out.ndim == 0 else out


def pessimistic_errors(class_counts, confidence: float = 0.25):
    """Estimated errors of leaves with these class counts: ``e + added_errors(N, e)``.

    Implements :eq:`eq-pessimistic-leaf` (chapter 5); ``e = N - max_c n_c``.
    """
    counts = np.asarray(class_counts, dtype=np.float64)
    n = counts.sum(axis=-1)
    e = n - counts.max(axis=-1)
    # J48 treats a total within 1e-6 of 0 as an empty node with no errors.
    return np.where(n > SMALL, e + added_errors(n, e, confidence), 0.0)


COLLAPSE_SLACK = 1e-3  # C4.5 and J48: a subtree must save more than this many errors


def _collapse_mask(tree: Tree, counts: np.ndarray) -> np.ndarray:
    """C4.5's collapse: subtrees whose training errors are not below a leaf's."""
    leaf_errors = counts.sum(axis=1) - counts.max(axis=1)
    subtree = _bottom_up(tree, np.where(tree.is_leaf, leaf_errors, 0.0), lambda ids, s: s)
    return _topmost(tree, ~tree.is_leaf & (subtree >= leaf_errors - COLLAPSE_SLACK))


def prune_collapse(tree: Tree) -> Tree:
    """C4.5's collapse: every subtree that does not lower the training errors becomes a leaf.

    Implements :eq:`eq-c45-collapse` (chapter 4): a node becomes a leaf when
    the weighted training errors of its subtree's leaves are at least those
    of the node as a leaf minus 0.001. Such a subtree changes no prediction
    on the training data. C4.5 release 8 and Weka's J48 apply it to every
    grown tree, pruned (before pessimistic pruning) or not.

    Parameters
    ----------
    tree : Tree
        A grown classification tree.

    Returns
    -------
    Tree
    """
    return tree.collapse(_collapse_mask(tree, _class_counts(tree)))


def prune_pessimistic(
    tree: Tree,
    confidence: float = 0.25,
    *,
    collapse: bool = True,
    subtree_raising: bool = False,
    data=None,
    criterion: str = "entropy",
) -> Tree:
    """C4.5's pessimistic error pruning, as Weka's J48 does it.

    Implements :eq:`eq-pessimistic-leaf` and :eq:`eq-pessimistic-rule`
    (chapter 5). Bottom-up, a subtree is replaced by a leaf when the leaf's
    estimated errors are at most those of the subtree plus 0.1. With
    ``subtree_raising`` the largest branch may also replace its parent, and
    the parent's training cases are then re-routed through it.

    Parameters
    ----------
    tree : Tree
        A grown classification tree.
    confidence : float
        C4.5's CF.
    collapse : bool
        First turn into leaves the subtrees that do not lower the training
        errors (C4.5 and J48 always do this before pruning).
    subtree_raising : bool
        J48's default; needs ``data``.
    data : tuple (values, y_codes, weights), optional
        The training rows as encoded values (see ``encode_features``),
        class codes and weights; needed for subtree raising.
    criterion : str
        Impurity recomputed for nodes whose cases changed by raising.

    Returns
    -------
    Tree
    """
    counts = _class_counts(tree)
    if collapse:
        tree = tree.collapse(_collapse_mask(tree, counts))
        counts = _class_counts(tree)
    if subtree_raising:
        if data is None:
            raise ValueError("subtree raising re-routes training cases: pass data=")
        return _RaisingPruner(tree, confidence, data, criterion).run()
    leaf_errors = pessimistic_errors(counts, confidence)
    prune = np.zeros(tree.node_count, dtype=bool)

    def combine(ids, subtree):
        # Weka's Utils.smOrEq(errorsLeaf, errorsTree + 0.1).
        cut = leaf_errors[ids] - (subtree + 0.1) < SMALL
        prune[ids] = cut
        return np.where(cut, leaf_errors[ids], subtree)

    _bottom_up(tree, np.where(tree.is_leaf, leaf_errors, 0.0), combine)
    return tree.collapse(_topmost(tree, prune))


def _added_errors_scalar(n: float, e: float, cf: float, z: float) -> float:
    """:func:`added_errors` for one node, in plain floats (same formulas)."""
    if e < 1:
        base = n * (1.0 - cf ** (1.0 / n))
        return base if e == 0 else base + e * (_added_errors_scalar(n, 1.0, cf, z) - base)
    if e + 0.5 >= n:
        return max(n - e, 0.0)
    f = (e + 0.5) / n
    root = math.sqrt(max(f / n - f * f / n + z * z / (4 * n * n), 0.0))
    upper = (f + z * z / (2 * n) + z * root) / (1 + z * z / n)
    return upper * n - e


class _Node:
    """A node of a tree under subtree raising: its test (an old node id) and its cases."""

    __slots__ = ("children", "counts", "rows", "test", "w")

    def __init__(self, test, children, rows, w, counts):
        self.test, self.children, self.rows, self.w, self.counts = test, children, rows, w, counts


class _RaisingPruner:
    """J48's ``C45PruneableClassifierTree.prune`` with subtree raising.

    Nodes are Python objects here because raising moves subtrees and re-routes
    cases; the cases of a node are ``(rows, weights)`` arrays and routing is
    vectorized over them. A case whose tested value is missing goes down every
    branch with the branch's share of the known weight, as in C4.5.
    """

    def __init__(self, tree: Tree, confidence, data, criterion):
        values, y, weights = data
        self.tree, self.cf, self.criterion = tree, confidence, criterion
        self.values = np.asarray(values, dtype=np.float64)
        self.y = np.asarray(y, dtype=np.intp)
        self.weights = np.asarray(weights, dtype=np.float64)
        self.n_classes = tree.value.shape[1]
        self.z = NormalDist().inv_cdf(1.0 - confidence)

    def run(self) -> Tree:
        rows = np.arange(self.y.size)
        root = self._build(0, rows, self.weights)
        self._prune(root)
        return self._to_tree(root)

    # -- cases -----------------------------------------------------------
    def _counts(self, rows, w):
        return np.bincount(self.y[rows], weights=w, minlength=self.n_classes)

    def _route(self, test, rows, w):
        """Split the cases of a node by the test of old node ``test``."""
        tree = self.tree
        n_children, first = int(tree.n_children[test]), int(tree.first_child[test])
        x = self.values[rows, tree.feature[test]]
        if tree.kind[test] == CATEGORICAL_NODE:
            at = np.full(rows.size, test, dtype=np.intp)
            slot = category_slot(x, at, tree.n_categories, tree.route_offset, tree.route_table)
        else:
            slot = np.where(np.isnan(x), -1, (x > tree.threshold[test]).astype(np.intp))
        known = slot >= 0
        share = np.bincount(slot[known], weights=w[known], minlength=n_children)
        total = share.sum()
        share = share / total if total > 0 else np.full(n_children, 1.0 / n_children)
        out = []
        for k in range(n_children):
            mine = slot == k
            lost = ~known
            out.append(
                (
                    first + k,
                    np.concatenate([rows[mine], rows[lost]]),
                    np.concatenate([w[mine], w[lost] * share[k]]),
                )
            )
        return out

    def _build(self, node, rows, w):
        counts = self._counts(rows, w)
        if self.tree.feature[node] == LEAF:
            return _Node(node, [], rows, w, counts)
        children = [self._build(c, r, cw) for c, r, cw in self._route(node, rows, w)]
        return _Node(node, children, rows, w, counts)

    def _redistribute(self, node, rows, w):
        """J48's ``newDistribution``: give a (raised) subtree new cases."""
        node.rows, node.w, node.counts = rows, w, self._counts(rows, w)
        if node.children:
            for child, (_, r, cw) in zip(
                node.children, self._route(node.test, rows, w), strict=False
            ):
                self._redistribute(child, r, cw)

    # -- errors ------------------------------------------------------------
    def _leaf_errors(self, counts):
        # Scalar arithmetic: this runs once per node and subtree visit.
        n = float(counts.sum())
        if n <= SMALL:
            return 0.0
        e = n - float(counts.max())
        return e + _added_errors_scalar(n, e, self.cf, self.z)

    def _tree_errors(self, node):
        if not node.children:
            return self._leaf_errors(node.counts)
        return sum(self._tree_errors(child) for child in node.children)

    def _branch_errors(self, node, rows, w):
        """Estimated errors of ``node``'s subtree if it received these cases."""
        if not node.children:
            return self._leaf_errors(self._counts(rows, w))
        return sum(
            self._branch_errors(child, r, cw)
            for child, (_, r, cw) in zip(
                node.children, self._route(node.test, rows, w), strict=False
            )
        )

    def _prune(self, node):
        if not node.children:
            return
        for child in node.children:
            self._prune(child)
        sizes = [float(child.counts.sum()) for child in node.children]
        largest = node.children[int(np.argmax(sizes))]
        errors_largest = self._branch_errors(largest, node.rows, node.w)
        errors_leaf = self._leaf_errors(node.counts)
        errors_tree = self._tree_errors(node)
        if (
            errors_leaf - (errors_tree + 0.1) < SMALL
            and errors_leaf - (errors_largest + 0.1) < SMALL
        ):
            node.children = []
            return
        if errors_largest - (errors_tree + 0.1) < SMALL:
            node.test, node.children = largest.test, largest.children
            self._redistribute(node, node.rows, node.w)
            self._prune(node)

    # -- back to flat arrays -----------------------------------------------
    def _to_tree(self, root) -> Tree:
        order, parents, depths = [root], [-1], [0]
        level, depth = [root], 0
        first_child, counts, n_rows = [], [], []
        while level:
            nxt = []
            for node in level:
                nxt.extend(node.children)
            level, depth = nxt, depth + 1
            start = len(order)
            for node in nxt:
                order.append(node)
                depths.append(depth)
            del start
        index = {id(node): i for i, node in enumerate(order)}
        parents = np.full(len(order), -1, dtype=np.intp)
        first_child = np.full(len(order), -1, dtype=np.intp)
        for i, node in enumerate(order):
            if node.children:
                ids = [index[id(child)] for child in node.children]
                first_child[i] = ids[0]
                parents[ids] = i
            counts.append(node.counts)
            n_rows.append(int(np.count_nonzero(node.w > 0)))
        old = np.array([node.test for node in order], dtype=np.intp)
        leaf = np.array([not node.children for node in order])
        counts = np.array(counts)
        total = counts.sum(axis=1)
        value = counts / np.where(total > 0, total, 1.0)[:, None]
        for i in range(1, len(order)):  # an empty node keeps its parent's distribution
            if total[i] <= 0:
                value[i] = value[parents[i]]
        return self.tree.rebuild(
            old,
            parent=parents,
            first_child=first_child,
            depth=np.array(depths, dtype=np.intp),
            make_leaf=leaf,
            value=value,
            weighted_n_node_samples=total,
            n_node_samples=np.array(n_rows, dtype=self.tree.n_node_samples.dtype),
            impurity=class_impurity(counts, self.criterion),
        )


# ---------------------------------------------------------------------------
# Validation-set methods (operate on a fitted estimator)
# ---------------------------------------------------------------------------


def _validation_errors(estimator, X_val, y_val):
    """Per node: validation errors if the node were a leaf, and of cases stopping there.

    Classification counts misclassified cases (weights 1); regression sums
    squared errors. Returns ``(leaf_errors, stop_errors)``: the second part
    belongs to cases that end at an internal node (an unseen category).
    """
    tree = estimator.tree_
    ends, samples, nodes = estimator._apply(X_val, return_path=True)
    y_val = np.asarray(y_val)
    if y_val.shape[0] != ends.shape[0]:
        raise ValueError(f"X_val has {ends.shape[0]} samples but y_val has {y_val.shape[0]}")
    if hasattr(estimator, "classes_"):
        predicted = estimator.classes_[np.argmax(tree.value, axis=1)]
        wrong = (predicted[nodes] != y_val[samples]).astype(np.float64)
        stop = (predicted[ends] != y_val).astype(np.float64)
    else:
        y_val = y_val.astype(np.float64)
        wrong = (tree.value[nodes, 0] - y_val[samples]) ** 2
        stop = (tree.value[ends, 0] - y_val) ** 2
    leaf_errors = np.bincount(nodes, weights=wrong, minlength=tree.node_count)
    stopped = ~tree.is_leaf[ends]
    stop_errors = np.bincount(ends[stopped], weights=stop[stopped], minlength=tree.node_count)
    return leaf_errors, stop_errors


def _pruned_copy(estimator, tree: Tree):
    pruned = copy.deepcopy(estimator)
    pruned.tree_ = tree
    return pruned


def prune_reduced_error(estimator, X_val, y_val, *, ties: str = "prune"):
    """Quinlan's reduced-error pruning on a validation set.

    Implements :eq:`eq-rep-rule` (chapter 5): bottom-up, the subtree at a node
    becomes a leaf (predicting the node's training majority, or mean) when the
    validation errors of that leaf are not larger than those of the (already
    pruned) subtree. A node that no validation case reaches is pruned.

    Parameters
    ----------
    estimator : fitted tree estimator
        Any estimator of :mod:`mltrees.tree`; it is not modified.
    X_val, y_val : validation data
    ties : {"prune", "keep"}
        ``"prune"`` (Quinlan): prune when the errors are equal. ``"keep"``
        prunes only when the errors drop, as in Zhou's walk-through.

    Returns
    -------
    estimator
        A pruned copy.
    """
    if ties not in ("prune", "keep"):
        raise ValueError(f"ties must be 'prune' or 'keep', got {ties!r}")
    tree = estimator.tree_
    leaf_errors, stop_errors = _validation_errors(estimator, X_val, y_val)
    prune = np.zeros(tree.node_count, dtype=bool)

    def combine(ids, subtree):
        subtree = subtree + stop_errors[ids]
        leaf = leaf_errors[ids]
        cut = leaf <= subtree + 1e-12 if ties == "prune" else leaf < subtree - 1e-12
        prune[ids] = cut
        return np.where(cut, leaf, subtree)

    _bottom_up(tree, np.where(tree.is_leaf, leaf_errors, 0.0), combine)
    return _pruned_copy(estimator, tree.collapse(_topmost(tree, prune)))


def prune_validation_pre(estimator, X_val, y_val):
    """Validation-based pre-pruning (Zhou 2016, section 4.3.1), on a grown tree.

    Implements :eq:`eq-prepruning-rule` (chapter 5). Top-down, a node keeps its
    split only if the validation errors with its children as leaves are
    strictly smaller than with the node as a leaf. Because a split is chosen
    from the node's training cases alone, deciding on the grown tree gives the
    tree that growing with this check would give.

    Returns
    -------
    estimator
        A pruned copy; it has an attribute ``prepruning_log_`` with one row
        per decision: (node, depth, errors as a leaf, errors if split, split?).
    """
    tree = estimator.tree_
    leaf_errors, stop_errors = _validation_errors(estimator, X_val, y_val)
    split_errors = _sum_to_parents(tree, leaf_errors) + stop_errors
    refuse = ~tree.is_leaf & ~(split_errors < leaf_errors - 1e-12)
    cut = _topmost(tree, refuse)
    # The decisions actually taken: internal nodes not below a refused split.
    decided = ~tree.is_leaf & ~_covered(tree, cut)
    log = [
        (int(i), int(tree.depth[i]), float(leaf_errors[i]), float(split_errors[i]), not cut[i])
        for i in np.flatnonzero(decided)
    ]
    pruned = _pruned_copy(estimator, tree.collapse(cut))
    pruned.prepruning_log_ = log
    return pruned


def _covered(tree: Tree, mask: np.ndarray) -> np.ndarray:
    """Nodes with a masked strict ancestor."""
    covered = np.zeros(tree.node_count, dtype=bool)
    child, parent = _children(tree)
    for _ in range(tree.max_depth):
        covered[child] = covered[parent] | mask[parent]
    return covered
