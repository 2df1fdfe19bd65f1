"""A fitted tree as flat arrays, and vectorized prediction (chapter 2).

The storage follows scikit-learn's struct-of-arrays layout, extended so that
one format holds every tree of the book: binary threshold nodes (C4.5 and
CART on numbers), binary category-subset nodes (CART) and multiway nodes
(ID3 and C4.5 on categories). The children of a node are stored at
consecutive ids ``first_child[i] .. first_child[i] + n_children[i] - 1``, so
routing a sample means computing a *slot* and adding it.

Prediction moves all samples down one level per step with fancy indexing:
the loop runs over depth, never over samples or nodes. Rows are walked in
cache-sized blocks, on one thread per core, and samples that reached their
leaf are set aside every few steps.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, fields
from typing import ClassVar

import numpy as np

from mltrees._threads import available_cores, map_blocks

__all__ = ["LEAF", "Tree", "available_cores"]

LEAF = -1  # value of ``feature`` at a leaf
# Blocks of apply: one per thread up to APPLY_BLOCK_ROWS rows (each level of
# the walk is a handful of NumPy calls, and a thread pays for the interpreter
# lock at every call, so large blocks share two cores best); a thread only
# for every APPLY_ROWS_PER_THREAD rows.
APPLY_BLOCK_ROWS, APPLY_ROWS_PER_THREAD = 131072, 8192
# Set finished samples aside when fewer than this share of a block still walks;
# checked every COMPACT_EVERY levels, since each compaction costs a few passes.
COMPACT_BELOW, COMPACT_EVERY = 0.85, 4
NUMERIC_NODE, CATEGORICAL_NODE = 0, 1
# ``missing_slot`` of a node (chapter 6): where a sample whose tested value is
# missing (NaN) goes. A slot >= 0 is a learned default child (XGBoost);
# MISSING_ALL_BRANCHES sends it down every child with a share of its weight
# (C4.5); MISSING_NONE stops it at the node, like an unseen category.
MISSING_NONE, MISSING_ALL_BRANCHES = -1, -2


@dataclass
class Tree:
    """A fitted tree as flat arrays, one entry per node (chapter 2).

    Node 0 is the root. An internal node ``t`` tests feature ``feature[t]``
    (against ``threshold[t]`` for a number, by its category for ID3's
    multiway split) and sends a row to one of its children, nodes
    ``first_child[t]`` to ``first_child[t] + n_children[t] - 1``; a leaf has
    ``feature[t] == -1`` (``is_leaf[t]``). Every node, leaf or not, keeps
    what chapter 2 reads off a tree: ``value`` (the class fractions, or the
    mean, of the training rows that reach it), ``n_node_samples`` and
    ``weighted_n_node_samples`` (how many rows, and their weight),
    ``impurity``, ``depth`` and ``parent``. ``node_count`` is the number of
    nodes.

    A single tree estimator stores its tree as ``tree_``; the ensembles keep
    one per member or round, and the explainers (:mod:`mltrees.inspection`),
    exporters and model files (:mod:`mltrees.io`) read the same arrays.

    Attributes
    ----------
    feature : ndarray of int, shape (n_nodes,)
        Feature tested at each node; ``LEAF`` (-1) at leaves.
    kind : ndarray of int
        ``NUMERIC_NODE`` (0) or ``CATEGORICAL_NODE`` (1); -1 at leaves.
    threshold : ndarray of float
        Numeric nodes send ``x <= threshold`` to slot 0, the rest to slot 1.
    first_child, n_children : ndarray of int
        Children ids are ``first_child .. first_child + n_children - 1``.
    route_offset : ndarray of int
        Categorical nodes: ``route_table[route_offset + code]`` is the slot of
        category ``code``; -1 means the category never reached this node in
        training, and prediction stops here (see :meth:`apply`).
    route_table : ndarray of int
        The concatenated routing tables.
    n_categories : ndarray of int
        Number of category codes of the tested feature (categorical nodes).
    value : ndarray of float, shape (n_nodes, n_outputs)
        Class fractions (classification) or the mean (regression) of every
        node, internal nodes included.
    impurity, n_node_samples, weighted_n_node_samples, depth, parent : ndarray
        Per-node statistics. With C4.5's missing-value method (chapter 6) a
        row whose tested value is missing counts in every child, so
        ``n_node_samples`` counts (row, node) entries and
        ``weighted_n_node_samples`` sums their fractional weights.
    missing_slot : ndarray of int, optional
        Where a missing (NaN) tested value goes at each node: a child slot
        (learned default direction), ``MISSING_ALL_BRANCHES`` (-2, every
        branch, weighted by :meth:`branch_fraction`: C4.5) or ``MISSING_NONE``
        (-1: the sample stops at the node). Defaults to -1 everywhere. With
        CART's surrogate splits it is the majority child, taken when no
        surrogate applies.
    surrogate_feature : ndarray of int, shape (n_nodes, max_surrogates), optional
        CART's surrogate splits (chapter 6), best first: where a sample's
        tested value is missing, the first surrogate whose feature it knows
        routes it, else ``missing_slot`` (the majority child). -1 pads unused
        ranks and fills leaves. Width 0 when the tree has no surrogates.
    surrogate_threshold : ndarray of float, same shape
        Threshold of each surrogate: ``x <= threshold`` goes to
        ``surrogate_low_slot``, ``x > threshold`` to the other child.
    surrogate_low_slot : ndarray of int8, same shape
        Child slot (0 or 1) of the values at or below the surrogate threshold.
    surrogate_agreement : ndarray of float, same shape
        Agreement of each surrogate with the node's split on the training
        rows, :eq:`eq-surrogate-agreement` (NaN where unused).

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from mltrees import CARTClassifier
    >>> from mltrees.tree import Tree
    >>> X, y = load_iris(return_X_y=True)
    >>> tree = CARTClassifier(max_depth=1).fit(X, y).tree_
    >>> isinstance(tree, Tree), tree.node_count
    (True, 3)
    >>> int(tree.feature[0]), float(tree.threshold[0]), tree.is_leaf.tolist()
    (2, 2.45, [False, True, True])
    >>> tree.n_node_samples.tolist(), tree.parent.tolist(), tree.depth.tolist()
    ([150, 50, 100], [-1, 0, 0], [0, 1, 1])
    """

    feature: np.ndarray
    kind: np.ndarray
    threshold: np.ndarray
    first_child: np.ndarray
    n_children: np.ndarray
    route_offset: np.ndarray
    route_table: np.ndarray
    n_categories: np.ndarray
    value: np.ndarray
    impurity: np.ndarray
    n_node_samples: np.ndarray
    weighted_n_node_samples: np.ndarray
    depth: np.ndarray
    parent: np.ndarray
    missing_slot: np.ndarray | None = None
    surrogate_feature: np.ndarray | None = None
    surrogate_threshold: np.ndarray | None = None
    surrogate_low_slot: np.ndarray | None = None
    surrogate_agreement: np.ndarray | None = None

    # Fields that are not indexed by node (``collapse`` leaves them alone),
    # and what a node that becomes a leaf holds in the routing fields.
    _NON_NODE_FIELDS: ClassVar[set] = {"route_table"}
    _LEAF_FILL: ClassVar[dict] = {
        "feature": LEAF,
        "kind": -1,
        "threshold": np.nan,
        "n_children": 0,
        "route_offset": 0,
        "n_categories": 0,
        "missing_slot": MISSING_NONE,
        "surrogate_feature": LEAF,
        "surrogate_threshold": np.nan,
        "surrogate_low_slot": 0,
        "surrogate_agreement": np.nan,
    }

    def __post_init__(self):
        n_nodes = self.feature.shape[0]
        if self.missing_slot is None:
            self.missing_slot = np.full(n_nodes, MISSING_NONE, dtype=np.int8)
        if self.surrogate_feature is None:  # no surrogates: width 0
            self.surrogate_feature = np.full((n_nodes, 0), LEAF, dtype=np.intp)
        width = self.surrogate_feature.shape[1]
        if self.surrogate_threshold is None:
            self.surrogate_threshold = np.full((n_nodes, width), np.nan)
        if self.surrogate_low_slot is None:
            self.surrogate_low_slot = np.zeros((n_nodes, width), dtype=np.int8)
        if self.surrogate_agreement is None:
            self.surrogate_agreement = np.full((n_nodes, width), np.nan)

    @property
    def has_surrogates(self) -> bool:
        """Whether some node routes missing values by surrogate splits (chapter 6)."""
        return bool((self.surrogate_feature >= 0).any())

    def branch_fraction(self) -> np.ndarray:
        """Share of its parent's training weight that each node received (1 at the root).

        For a tree grown with C4.5's fractional weights this is the branch
        share r~_k of :eq:`eq-c45-r`: a child receives the known rows of its
        branch plus the share r~_k of the rows whose value is missing, i.e.
        r~_k of the parent's weight. Prediction sends a missing value down every branch with
        these shares (:eq:`eq-c45-predict`, chapter 6).
        """
        weight = self.weighted_n_node_samples
        fraction = np.ones(self.node_count)
        child = np.flatnonzero(self.parent >= 0)
        parent_weight = weight[self.parent[child]]
        fraction[child] = np.where(
            parent_weight > 0, weight[child] / np.where(parent_weight > 0, parent_weight, 1.0), 0.0
        )
        return fraction

    def apply_weighted(
        self,
        values: np.ndarray,
        *,
        n_threads: int | None = None,
        check_block: Callable | None = None,
    ):
        """Every node a sample ends in, with its weight: C4.5's prediction (chapter 6).

        A sample walks as in :meth:`apply`. When it meets a missing (NaN)
        value at a node whose ``missing_slot`` is ``MISSING_ALL_BRANCHES``, it
        goes down every branch, its weight multiplied by the branch's
        :meth:`branch_fraction`, and each part walks on (:eq:`eq-c45-predict`).
        A sample that meets no such node is routed exactly as by
        :meth:`apply`, with weight 1. Loops run over depth, never over samples.

        Returns
        -------
        sample, node, weight : ndarray
            One entry per (sample, end node); a sample's weights sum to 1.
        """
        values = np.ascontiguousarray(values, dtype=np.float64)
        nodes = self.apply(values, n_threads=n_threads, check_block=check_block)
        n_samples = values.shape[0]
        everyone = np.arange(n_samples)
        if not (self.missing_slot == MISSING_ALL_BRANCHES).any():
            return everyone, nodes, np.ones(n_samples)
        steps = self._step_tables()
        split = _split_entries(self, values, everyone, nodes)
        if not split.any():
            return everyone, nodes, np.ones(n_samples)
        fraction = self.branch_fraction()
        out = [(everyone[~split], nodes[~split], np.ones(n_samples - int(split.sum())))]
        sample, node, weight = everyone[split], nodes[split], np.ones(int(split.sum()))
        while sample.size:
            counts = self.n_children[node]
            first = np.cumsum(counts) - counts
            child = np.repeat(self.first_child[node] - first, counts) + np.arange(counts.sum())
            sample = np.repeat(sample, counts)
            weight = np.repeat(weight, counts) * fraction[child]
            keep = weight > 0  # an empty branch holds no share
            sample, weight = sample[keep], weight[keep]
            node = steps.descend(values[sample], start=child[keep])
            split = _split_entries(self, values, sample, node)
            out.append((sample[~split], node[~split], weight[~split]))
            sample, node, weight = sample[split], node[split], weight[split]
        return tuple(np.concatenate(parts) for parts in zip(*out, strict=True))

    def weighted_value(
        self,
        values: np.ndarray,
        *,
        n_threads: int | None = None,
        check_block: Callable | None = None,
    ):
        """Prediction of every sample: the weighted mix of its end nodes' values.

        Implements :eq:`eq-c45-predict` (chapter 6) with
        :meth:`apply_weighted`; a sample that meets no missing value gets
        its node's ``value`` unchanged.
        """
        sample, node, weight = self.apply_weighted(
            values, n_threads=n_threads, check_block=check_block
        )
        n_samples = np.shape(values)[0]
        if sample.size == n_samples:  # nobody was split: one node per sample
            out = np.empty((n_samples, self.value.shape[1]))
            out[sample] = self.value[node]
            return out
        out = np.empty((n_samples, self.value.shape[1]))
        for k in range(self.value.shape[1]):
            mixed = weight * self.value[node, k]
            out[:, k] = np.bincount(sample, weights=mixed, minlength=n_samples)
        return out

    @property
    def node_count(self) -> int:
        """Number of nodes."""
        return int(self.feature.shape[0])

    @property
    def is_leaf(self) -> np.ndarray:
        """Boolean mask of the leaves."""
        return self.feature == LEAF

    @property
    def max_depth(self) -> int:
        """Depth of the deepest node (the root has depth 0)."""
        return int(self.depth.max())

    @property
    def n_leaves(self) -> int:
        """Number of leaves."""
        return int(self.is_leaf.sum())

    def apply(
        self,
        values: np.ndarray,
        *,
        return_path: bool = False,
        n_threads: int | None = None,
        check_block: Callable | None = None,
    ) -> np.ndarray | tuple[np.ndarray, np.ndarray]:
        """Node reached by each sample; optionally every node on its path.

        Parameters
        ----------
        values : ndarray of shape (n_samples, n_features)
            Raw values for numeric features and category codes (-1: unseen)
            for categorical ones, as produced by ``encode_features``.
        return_path : bool
            Also return ``(sample, node)`` pairs of every node visited.
        n_threads : int or None
            Threads that walk blocks of rows in parallel (NumPy releases the
            GIL inside its gathers). None: one per available CPU core. The
            result does not depend on it.
        check_block : callable or None
            Called on each block of rows before it is walked, while the block
            is in cache (the estimators check finiteness here, saving a pass
            over the whole input); an exception it raises propagates.

        Returns
        -------
        ndarray of int
            The node each sample ends in: a leaf, or the internal node whose
            test met a category that never reached that node in training. That
            node's value is then the prediction -- the empty-branch rule of
            chapter 2: an unknown branch inherits its parent's distribution.
        """
        steps = self._step_tables()
        values = np.ascontiguousarray(values, dtype=np.float64)
        if return_path:
            if check_block is not None:
                check_block(values)
            return steps.descend(values, record_path=True)
        n_samples = values.shape[0]
        n_threads = available_cores() if n_threads is None else max(1, int(n_threads))
        rows, n_threads = apply_blocks(n_samples, n_threads)
        nodes = np.empty(n_samples, dtype=np.intp)

        def walk(start: int) -> None:
            block = values[start : start + rows]
            if check_block is not None:
                check_block(block)
            nodes[start : start + rows] = steps.descend(block)

        map_blocks(walk, range(0, n_samples, rows), n_threads)
        return nodes

    # Arrays the walk tables are derived from: the cache is rebuilt when one
    # of them is replaced (fitted trees' arrays are not written in place).
    _WALK_FIELDS: ClassVar[tuple] = (
        "feature",
        "threshold",
        "first_child",
        "depth",
        "kind",
        "missing_slot",
        "surrogate_feature",
    )

    _CACHES: ClassVar[tuple] = ("_walk_cache", "_argmax_cache")  # derived, never stored

    def _step_tables(self) -> _StepTables:
        """The walk's node tables, built once per tree (not once per ``apply``)."""
        key = tuple(getattr(self, name) for name in self._WALK_FIELDS)
        cached = self.__dict__.get("_walk_cache")
        if cached is None or any(a is not b for a, b in zip(cached[0], key, strict=True)):
            cached = (key, _StepTables(self))
            self.__dict__["_walk_cache"] = cached
        return cached[1]

    def node_argmax(self) -> np.ndarray:
        """Column of the largest ``value`` of each node (the first on ties), cached.

        A classifier's predicted class per node: looked up once per tree
        rather than once per ``predict`` call or per sample.
        """
        cached = self.__dict__.get("_argmax_cache")
        if cached is None or cached[0] is not self.value:
            cached = (self.value, np.argmax(self.value, axis=1))
            self.__dict__["_argmax_cache"] = cached
        return cached[1]

    def __getstate__(self):
        # Pickles carry the tree, not the caches derived from it.
        return {k: v for k, v in self.__dict__.items() if k not in self._CACHES}

    def node_gains(self) -> np.ndarray:
        """Weighted impurity decrease of every node, ``W_t i_t - sum_c W_c i_c`` (0 at leaves).

        The one computation behind every importance: the mean decrease in
        impurity (:meth:`compute_feature_importances`, :eq:`eq-mdi`) and the
        gains of :func:`mltrees.inspection.importance` (:eq:`eq-importance-gain`).
        """
        weighted = self.weighted_n_node_samples * self.impurity
        children = np.zeros(self.node_count)
        child = np.flatnonzero(self.parent >= 0)
        np.add.at(children, self.parent[child], weighted[child])
        return np.where(self.is_leaf, 0.0, weighted - children)

    def compute_feature_importances(self, n_features: int, normalize: bool = True) -> np.ndarray:
        """Mean decrease in impurity per feature, normalised to sum to 1.

        Each internal node adds its gain :meth:`node_gains`,
        ``W_t * impurity_t - sum_c W_c * impurity_c`` (weights ``W`` of the
        node and its children), to its feature. With
        ``normalize=False`` the sums are returned as they are, in units of
        weight times impurity (ensembles weigh their trees with them).
        """
        importances = np.zeros(n_features)
        internal = np.flatnonzero(~self.is_leaf)
        if internal.size == 0:
            return importances
        np.add.at(importances, self.feature[internal], self.node_gains()[internal])
        if not normalize:
            return importances
        total = importances.sum()
        return importances / total if total > 0 else importances

    # Index fields that fit in int32 for any tree an ensemble grows.
    _COMPACT_FIELDS: ClassVar[tuple] = (
        "feature",
        "first_child",
        "n_children",
        "route_offset",
        "n_categories",
        "n_node_samples",
        "depth",
        "parent",
    )

    def compact(self) -> Tree:
        """Store the integer arrays as int32 rather than int64, in place; returns the tree.

        A forest holds many trees; this cuts their memory by about a third.
        A field whose values do not fit in int32 keeps its type.
        """
        for name in self._COMPACT_FIELDS:
            array = getattr(self, name)
            if array.dtype.itemsize > 4 and (array.size == 0 or abs(array).max() < 2**31 - 1):
                setattr(self, name, array.astype(np.int32))
        return self

    def collapse(self, make_leaf) -> Tree:
        """A new tree in which the given internal nodes become leaves (pruning).

        The subtrees below those nodes are dropped and the remaining nodes are
        renumbered in their old order, so siblings stay consecutive and every
        parent still precedes its children. A new leaf keeps its own ``value``
        and statistics, which is what a pruned node predicts (chapter 5).

        Parameters
        ----------
        make_leaf : array_like of bool (n_nodes,) or of int
            Mask or ids of the nodes to turn into leaves; leaves are ignored.

        Returns
        -------
        Tree
        """
        n_nodes = self.node_count
        mask = np.asarray(make_leaf)
        if mask.dtype != bool:
            ids, mask = mask.astype(np.intp), np.zeros(n_nodes, dtype=bool)
            mask[ids] = True
        mask = mask & ~self.is_leaf
        # A node is dropped when an ancestor is collapsed; parents precede
        # children, so one pass per depth settles every node.
        dropped = np.zeros(n_nodes, dtype=bool)
        has_parent = np.flatnonzero(self.parent >= 0)
        for _ in range(self.max_depth):
            above = self.parent[has_parent]
            dropped[has_parent] = dropped[above] | mask[above]
        keep = np.flatnonzero(~dropped)
        new_id = np.cumsum(~dropped) - 1
        parent = self.parent[keep]
        parent = np.where(parent >= 0, new_id[np.maximum(parent, 0)], -1)
        leaf = mask[keep] | self.is_leaf[keep]
        first_child = np.where(leaf, -1, new_id[np.maximum(self.first_child[keep], 0)])
        return self.rebuild(
            keep, parent=parent, first_child=first_child, depth=self.depth[keep], make_leaf=leaf
        )

    def rebuild(self, old, *, parent, first_child, depth, make_leaf, **overrides) -> Tree:
        """A tree whose node ``i`` copies node ``old[i]`` of this one, with a new layout.

        The copy is generic: every field whose first dimension is ``n_nodes``
        is a per-node array and is gathered by ``old`` (so fields added for
        other purposes, e.g. missing-value routing, follow automatically);
        ``route_table`` is rebuilt for the categorical nodes that stay
        internal. ``parent``, ``first_child`` and ``depth`` give the new
        layout (children at consecutive ids, parents before children);
        ``make_leaf`` marks the nodes that are leaves in it; ``overrides``
        replace per-node arrays (e.g. new class distributions after subtree
        raising, chapter 5).
        """
        n_nodes = self.node_count
        old = np.asarray(old, dtype=np.intp)
        arrays = {}
        for item in fields(self):
            array = getattr(self, item.name)
            if item.name in self._NON_NODE_FIELDS or np.ndim(array) == 0:
                arrays[item.name] = array
            elif array.shape[0] == n_nodes:
                arrays[item.name] = array[old].copy()
            else:
                arrays[item.name] = array
        arrays["parent"] = np.asarray(parent, dtype=self.parent.dtype)
        arrays["first_child"] = np.asarray(first_child, dtype=self.first_child.dtype)
        arrays["depth"] = np.asarray(depth, dtype=self.depth.dtype)
        for name, array in overrides.items():
            arrays[name] = np.asarray(array, dtype=getattr(self, name).dtype)
        leaf = np.asarray(make_leaf, dtype=bool)
        for name, fill in self._LEAF_FILL.items():
            if name in arrays:
                arrays[name][leaf] = fill
        # Routing tables of the categorical nodes that are still internal.
        internal = arrays["feature"] != LEAF
        categorical = np.flatnonzero(internal & (arrays["kind"] == CATEGORICAL_NODE))
        sizes = arrays["n_categories"][categorical]
        starts = arrays["route_offset"][categorical]
        offsets = np.zeros(old.size, dtype=self.route_offset.dtype)
        offsets[categorical] = np.cumsum(sizes) - sizes
        take = np.repeat(starts - offsets[categorical], sizes) + np.arange(int(sizes.sum()))
        arrays["route_offset"] = offsets
        arrays["route_table"] = self.route_table[take.astype(np.intp)]
        return type(self)(**arrays)


def apply_blocks(n_samples: int, n_threads: int) -> tuple[int, int]:
    """Rows per block and threads for walking ``n_samples`` rows on up to ``n_threads``.

    Blocks are of equal size and their number a multiple of the threads, so
    that no thread is left with a short last block while another walks a full one.
    """
    n_threads = max(1, min(n_threads, n_samples // APPLY_ROWS_PER_THREAD))
    n_blocks = max(1, -(-n_samples // APPLY_BLOCK_ROWS))
    n_blocks = -(-n_blocks // n_threads) * n_threads
    return max(1, -(-n_samples // n_blocks)), n_threads


def _split_entries(tree: Tree, values: np.ndarray, sample: np.ndarray, node: np.ndarray):
    """Which entries stopped at a C4.5 node because their tested value is missing."""
    split = np.zeros(sample.size, dtype=bool)
    at = np.flatnonzero(tree.missing_slot[node] == MISSING_ALL_BRANCHES)
    if at.size:
        split[at] = np.isnan(values[sample[at], tree.feature[node[at]]])
    return split


class _StepTables:
    """The node arrays of one step of :eq:`eq-level-step`, ready for a walk.

    Leaves loop onto themselves (feature 0, threshold +inf, first child
    themselves), so a sample that reached its leaf stays there whatever the
    step computes, and all samples of a block can take every step together.
    """

    def __init__(self, tree: Tree):
        leaf = tree.is_leaf
        self.is_leaf = leaf
        self.feature = np.where(leaf, 0, tree.feature).astype(np.intp)
        self.threshold = np.where(leaf, np.inf, tree.threshold)
        self.first_child = np.where(leaf, np.arange(tree.node_count), tree.first_child)
        self.max_depth = tree.max_depth
        self.first_leaf_depth = int(tree.depth[leaf].min())
        self.tree = tree
        self.categorical = bool((tree.kind == CATEGORICAL_NODE).any())
        self.missing_slot = tree.missing_slot
        self.missing_routes = bool((tree.missing_slot != MISSING_NONE).any())
        self.surrogates = tree.has_surrogates

    def descend(self, values: np.ndarray, *, record_path: bool = False, start=None):
        """Walk a block of rows (C-contiguous) from the root (or ``start``) to their nodes."""
        n_samples, n_features = values.shape
        flat = values.ravel()  # one 1-D gather per level reads x[i, feature[node_i]]
        row_start = np.arange(0, n_samples * n_features, n_features)
        node = np.zeros(n_samples, dtype=np.intp) if start is None else start
        compacted = False  # once true, row_start holds the rows still walking
        ended = np.empty(n_samples, dtype=np.intp)
        path_samples, path_nodes = [np.arange(n_samples)], [node]
        for level in range(1, self.max_depth + 1):
            # np.take: the same gathers as indexing, with less overhead per call.
            value = flat.take(row_start + self.feature.take(node))
            step = self.first_child.take(node) + (value > self.threshold.take(node))
            if self.categorical:
                self._route_categories(node, value, step)
            if self.missing_routes:
                self._route_missing(node, value, step, flat, row_start)
            if record_path:
                moved = np.flatnonzero(step != node)
                path_samples.append(moved)
                path_nodes.append(step[moved])
            node = step
            if (
                record_path
                or level < self.first_leaf_depth
                or level == self.max_depth
                or (level - self.first_leaf_depth) % COMPACT_EVERY
            ):
                continue
            # Many samples sit in leaves by now: stop carrying them along.
            # Index arrays and take, not boolean masks: masks cost several
            # times more per element, and this runs on every block.
            in_leaf = self.is_leaf.take(node)
            if np.count_nonzero(in_leaf) > (1 - COMPACT_BELOW) * node.size:
                done, going = np.flatnonzero(in_leaf), np.flatnonzero(~in_leaf)
                ended[row_start.take(done) // n_features] = node.take(done)
                node, row_start = node.take(going), row_start.take(going)
                compacted = True
        if record_path:
            return node, np.concatenate(path_samples), np.concatenate(path_nodes)
        if not compacted:
            return node
        ended[row_start // n_features] = node
        return ended

    def _route_missing(self, node, value, step, flat, row_start) -> None:
        """Overwrite ``step`` for samples whose tested value is missing (chapter 6).

        At a node with surrogate splits the first surrogate whose value the
        sample knows sends it on; otherwise a learned default slot (or CART's
        majority child) sends it to that child; otherwise (C4.5's nodes,
        whose split :meth:`Tree.apply_weighted` handles, or nodes without a
        method) it stays at the node. Leaves have no slot, so a sample in a
        leaf stays there whatever its values.
        """
        missing = np.flatnonzero(np.isnan(value))
        if missing.size:
            at = node[missing]
            slot = self.missing_slot[at].astype(np.intp)
            if self.surrogates:
                self._surrogate_slots(at, slot, flat, row_start[missing])
            step[missing] = np.where(slot >= 0, self.first_child[at] + slot, at)

    def _surrogate_slots(self, at, slot, flat, row_start) -> None:
        """Overwrite ``slot`` where a surrogate of node ``at`` applies (Breiman's rule).

        Ranks are tried in order; a sample takes the first surrogate whose
        feature it knows. Unused ranks hold feature -1 and come last.
        """
        tree = self.tree
        pending = np.arange(at.size)
        for rank in range(tree.surrogate_feature.shape[1]):
            feature = tree.surrogate_feature[at[pending], rank]
            pending = pending[feature >= 0]
            if not pending.size:
                return
            here = at[pending]
            value = flat[row_start[pending] + tree.surrogate_feature[here, rank]]
            known = ~np.isnan(value)
            low_slot = tree.surrogate_low_slot[here[known], rank]
            low = value[known] <= tree.surrogate_threshold[here[known], rank]
            slot[pending[known]] = np.where(low, low_slot, 1 - low_slot)
            pending = pending[~known]

    def _route_categories(self, node: np.ndarray, value: np.ndarray, step: np.ndarray) -> None:
        """Overwrite ``step`` for samples at categorical nodes (routing tables)."""
        tree = self.tree
        categorical = np.flatnonzero(tree.kind[node] == CATEGORICAL_NODE)
        at = node[categorical]
        step[categorical] = category_step(
            value[categorical],
            at,
            self.first_child[at],
            tree.n_categories,
            tree.route_offset,
            tree.route_table,
        )


def category_slot(value, node, n_categories, route_offset, route_table) -> np.ndarray:
    """Child slot of samples at categorical nodes ``node`` whose category codes are ``value``.

    The slot is ``route_table[route_offset[node] + code]``; -1 for a code
    outside the node's table, a missing one (NaN or a negative code) or one
    whose slot is -1 (the category never reached this node in training).
    The one place categorical routing is read: :func:`category_step`, the
    walk on training codes and C4.5's raising pruner use it.
    """
    codes = np.where(value >= 0, value, -1).astype(np.intp)  # NaN -> -1
    known = (codes >= 0) & (codes < n_categories[node])
    slot = route_table[np.where(known, route_offset[node] + codes, 0)]
    return np.where(known, slot, -1)


def category_step(value, node, first, n_categories, route_offset, route_table) -> np.ndarray:
    """Next node of samples at categorical nodes ``node`` whose category codes are ``value``.

    The child is ``first + slot`` (:func:`category_slot`); a sample without a
    slot stays at ``node``. Used by :meth:`Tree.apply` and the ensembles'
    stacked walk.
    """
    slot = category_slot(value, node, n_categories, route_offset, route_table)
    return np.where(slot >= 0, first + slot, node)
