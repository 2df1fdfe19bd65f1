"""A fitted tree as flat arrays, and vectorized prediction (chapter 2).

The storage follows scikit-learn's struct-of-arrays layout, extended so that
one format holds every tree of the book: binary threshold nodes (C4.5 and
CART on numbers), binary category-subset nodes (CART) and multiway nodes
(ID3 and C4.5 on categories). The children of a node are stored at
consecutive ids ``first_child[i] .. first_child[i] + n_children[i] - 1``, so
routing a sample means computing a *slot* and adding it.

Prediction moves all samples down one level per step with fancy indexing:
the loop runs over depth, never over samples or nodes.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["LEAF", "Tree"]

LEAF = -1  # value of ``feature`` at a leaf
APPLY_CHUNK = 16384  # rows per pass of apply: keeps the working set in cache
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

    def apply(self, values: np.ndarray, *, return_path: bool = False):
        """Node reached by each sample; optionally every node on its path.

        Parameters
        ----------
        values : ndarray of shape (n_samples, n_features)
            Raw values for numeric features and category codes (-1: unseen)
            for categorical ones, as produced by ``encode_features``.
        return_path : bool
            Also return ``(sample, node)`` pairs of every node visited.

        Returns
        -------
        ndarray of int
            The node each sample ends in: a leaf, or the internal node whose
            test met a category that never reached that node in training. That
            node's value is then the prediction -- the empty-branch rule of
            chapter 2: an unknown branch inherits its parent's distribution.
        """
        n_samples = values.shape[0]
        if not return_path and n_samples > APPLY_CHUNK:
            # Chunks small enough that the per-level arrays stay in cache.
            return np.concatenate(
                [
                    self.apply(values[start : start + APPLY_CHUNK])
                    for start in range(0, n_samples, APPLY_CHUNK)
                ]
            )
        n_features = values.shape[1]
        # Flat indices into the matrix: one 1-D gather per level, C or F order.
        if values.flags.c_contiguous:
            flat = values.ravel(order="C")
            row_base, column_step = np.arange(n_samples) * n_features, 1
        else:
            flat = np.asfortranarray(values).ravel(order="F")
            row_base, column_step = np.arange(n_samples), n_samples
        # Leaves loop onto themselves (feature 0, threshold +inf, slot 0), so all
        # samples take one step per level without compacting the active set.
        leaf = self.is_leaf
        feature = np.where(leaf, 0, self.feature)
        threshold = np.where(leaf, np.inf, self.threshold)
        first_child = np.where(leaf, np.arange(self.node_count), self.first_child)
        categorical_tree = bool((self.kind == CATEGORICAL_NODE).any())
        column_offset = feature * column_step
        node = np.zeros(n_samples, dtype=np.intp)
        path_samples, path_nodes = [np.arange(n_samples)], [node]
        for _ in range(self.max_depth):
            value = flat[row_base + column_offset[node]]
            step = first_child[node] + (value > threshold[node])
            if categorical_tree:
                categorical = np.flatnonzero(self.kind[node] == CATEGORICAL_NODE)
                at = node[categorical]
                codes = value[categorical].astype(np.intp)
                known = (codes >= 0) & (codes < self.n_categories[at])
                slot = self.route_table[np.where(known, self.route_offset[at] + codes, 0)]
                slot = np.where(known, slot, -1)
                # slot -1: the category never reached this node, stay here.
                step[categorical] = np.where(slot >= 0, first_child[at] + slot, at)
            if return_path:
                moved = np.flatnonzero(step != node)
                path_samples.append(moved)
                path_nodes.append(step[moved])
            node = step
        if return_path:
            return node, np.concatenate(path_samples), np.concatenate(path_nodes)
        return node

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
