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

import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np

__all__ = ["LEAF", "Tree", "available_cores"]

LEAF = -1  # value of ``feature`` at a leaf
APPLY_CHUNK = 16384  # rows per block of apply: keeps the working set in cache
# Set finished samples aside when fewer than this share of a block still walks;
# checked every COMPACT_EVERY levels, since each compaction costs a few passes.
COMPACT_BELOW, COMPACT_EVERY = 0.85, 4
NUMERIC_NODE, CATEGORICAL_NODE = 0, 1


@dataclass
class Tree:
    """Flat-array storage of a fitted tree.

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
        Per-node statistics.
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
        self, values: np.ndarray, *, return_path: bool = False, n_threads=None, check_block=None
    ):
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
        steps = _StepTables(self)
        values = np.ascontiguousarray(values, dtype=np.float64)
        if return_path:
            if check_block is not None:
                check_block(values)
            return steps.descend(values, record_path=True)
        n_samples = values.shape[0]
        # Blocks small enough that the per-level arrays stay in cache.
        starts = range(0, n_samples, APPLY_CHUNK)
        nodes = np.empty(n_samples, dtype=np.intp)

        def walk(start: int) -> None:
            block = values[start : start + APPLY_CHUNK]
            if check_block is not None:
                check_block(block)
            nodes[start : start + APPLY_CHUNK] = steps.descend(block)

        n_threads = available_cores() if n_threads is None else int(n_threads)
        if n_threads > 1 and len(starts) > 1:
            with ThreadPoolExecutor(max_workers=min(n_threads, len(starts))) as pool:
                list(pool.map(walk, starts))
        else:
            for start in starts:
                walk(start)
        return nodes

    def compute_feature_importances(self, n_features: int) -> np.ndarray:
        """Mean decrease in impurity per feature, normalised to sum to 1.

        Each internal node adds ``W_t * impurity_t - sum_c W_c * impurity_c``
        (weights ``W`` of the node and its children) to its feature.
        """
        importances = np.zeros(n_features)
        internal = np.flatnonzero(~self.is_leaf)
        if internal.size == 0:
            return importances
        weighted = self.weighted_n_node_samples * self.impurity
        children_sum = np.zeros(self.node_count)
        child_ids = np.flatnonzero(self.parent >= 0)
        np.add.at(children_sum, self.parent[child_ids], weighted[child_ids])
        decrease = weighted[internal] - children_sum[internal]
        np.add.at(importances, self.feature[internal], decrease)
        total = importances.sum()
        return importances / total if total > 0 else importances


def available_cores() -> int:
    """CPU cores this process may run on (its affinity mask where supported)."""
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return max(1, os.cpu_count() or 1)


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

    def descend(self, values: np.ndarray, *, record_path: bool = False):
        """Walk a block of rows (C-contiguous) from the root to their nodes."""
        n_samples, n_features = values.shape
        flat = values.ravel()  # one 1-D gather per level reads x[i, feature[node_i]]
        row_start = np.arange(0, n_samples * n_features, n_features)
        node = np.zeros(n_samples, dtype=np.intp)
        walking = None  # ids of the samples still walking, once some were set aside
        ended = np.empty(n_samples, dtype=np.intp)
        path_samples, path_nodes = [np.arange(n_samples)], [node]
        for level in range(1, self.max_depth + 1):
            value = flat[row_start + self.feature[node]]
            step = self.first_child[node] + (value > self.threshold[node])
            if self.categorical:
                self._route_categories(node, value, step)
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
            still = ~self.is_leaf[node]
            if np.count_nonzero(still) < COMPACT_BELOW * node.size:
                if walking is None:
                    walking = np.arange(n_samples)
                ended[walking[~still]] = node[~still]
                walking, node, row_start = walking[still], node[still], row_start[still]
        if record_path:
            return node, np.concatenate(path_samples), np.concatenate(path_nodes)
        if walking is None:
            return node
        ended[walking] = node
        return ended

    def _route_categories(self, node: np.ndarray, value: np.ndarray, step: np.ndarray) -> None:
        """Overwrite ``step`` for samples at categorical nodes (routing tables)."""
        tree = self.tree
        categorical = np.flatnonzero(tree.kind[node] == CATEGORICAL_NODE)
        at = node[categorical]
        codes = value[categorical].astype(np.intp)
        known = (codes >= 0) & (codes < tree.n_categories[at])
        slot = tree.route_table[np.where(known, tree.route_offset[at] + codes, 0)]
        slot = np.where(known, slot, -1)
        # slot -1: the category never reached this node, so the sample stays here.
        step[categorical] = np.where(slot >= 0, self.first_child[at] + slot, at)
