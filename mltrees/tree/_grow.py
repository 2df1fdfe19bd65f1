"""Growing a tree level by level (chapter 2's divide and conquer, vectorized).

The recursion of chapter 2 -- split a node, then treat each child the same
way -- is carried out one *depth* at a time: every node of the current depth
(the frontier) is split in the same pass over the data, so the number of
Python-level iterations is the depth of the tree times the number of
features, never the number of nodes or samples. For trees without a leaf
budget this builds exactly the tree a depth-first recursion builds, because
each node's split depends only on its own samples.

The three stopping cases of chapter 2 appear as:

1. a pure node (impurity 0) is not split;
2. a node whose samples cannot be separated (no valid candidate, or no
   positive gain where the algorithm demands one) becomes a leaf with the
   node's own class distribution;
3. an empty branch of a multiway split becomes a leaf that takes its
   *parent's* distribution.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mltrees.tree._data import CATEGORICAL
from mltrees.tree._split import SplitRules, find_splits
from mltrees.tree._tree import CATEGORICAL_NODE, LEAF, NUMERIC_NODE, Tree

__all__ = ["GrowthLimits", "grow_tree"]

PURE = 1e-14  # impurity at or below this counts as a pure node


@dataclass
class GrowthLimits:
    """Pre-pruning limits shared by every algorithm (chapter 5 discusses them)."""

    max_depth: int | None = None
    min_samples_split: int = 2
    min_impurity_decrease: float = 0.0
    max_features: int | None = None
    require_positive_gain: bool = False


class _NodeStore:
    """Per-level arrays of the growing tree, concatenated at the end."""

    def __init__(self):
        self.levels: list[dict[str, np.ndarray]] = []
        self.routes: dict[int, np.ndarray] = {}

    def add_level(self, **arrays):
        self.levels.append(arrays)

    def build(self, n_categories_of_feature: np.ndarray) -> Tree:
        def cat(key):
            return np.concatenate([level[key] for level in self.levels])

        feature = cat("feature")
        n_nodes = feature.size
        kind = np.full(n_nodes, -1, dtype=np.int8)
        internal = feature != LEAF
        is_categorical = np.zeros(n_nodes, dtype=bool)
        is_categorical[internal] = n_categories_of_feature[feature[internal]] > 0
        kind[internal] = np.where(is_categorical[internal], CATEGORICAL_NODE, NUMERIC_NODE)
        route_offset = np.zeros(n_nodes, dtype=np.intp)
        n_categories = np.zeros(n_nodes, dtype=np.intp)
        tables, offset = [], 0
        for node_id in sorted(self.routes):
            table = self.routes[node_id]
            route_offset[node_id] = offset
            n_categories[node_id] = table.size
            tables.append(table)
            offset += table.size
        route_table = np.concatenate(tables) if tables else np.zeros(0, dtype=np.intp)
        return Tree(
            feature=feature,
            kind=kind,
            threshold=cat("threshold"),
            first_child=cat("first_child"),
            n_children=cat("n_children"),
            route_offset=route_offset,
            route_table=route_table,
            n_categories=n_categories,
            value=cat("value"),
            impurity=cat("impurity"),
            n_node_samples=cat("n_node_samples"),
            weighted_n_node_samples=cat("weighted_n_node_samples"),
            depth=cat("depth"),
            parent=cat("parent"),
        )


def grow_tree(codes, specs, stats_model, rules: SplitRules, limits: GrowthLimits, rng) -> Tree:
    """Grow one tree on binned training data.

    Parameters
    ----------
    codes : ndarray (n_samples, n_features)
        Codes from :func:`mltrees.tree._data.bin_features`.
    specs : list of FeatureSpec
        Per-feature specs.
    stats_model : ClassificationStatistics or RegressionStatistics
        Sufficient statistics, impurity and leaf value.
    rules : SplitRules
        Candidate generation and selection (the algorithm).
    limits : GrowthLimits
        Stopping rules.
    rng : numpy.random.Generator
        Draws the feature subsets when ``limits.max_features`` is set.

    Returns
    -------
    Tree
    """
    n_samples, n_features = codes.shape
    all_rows = np.arange(n_samples)
    sample_node = np.zeros(n_samples, dtype=np.intp)
    frontier_stats = stats_model.aggregate(np.zeros(n_samples, dtype=np.intp), 1, all_rows)
    frontier_value = stats_model.value(frontier_stats)
    frontier_parent = np.array([-1], dtype=np.intp)
    frontier_empty = np.zeros(1, dtype=bool)
    total_weight = float(stats_model.weight(frontier_stats)[0])
    store = _NodeStore()
    first_id, depth = 0, 0
    max_depth = np.inf if limits.max_depth is None else limits.max_depth
    n_categories_of_feature = np.array(
        [spec.n_codes if spec.kind == CATEGORICAL else 0 for spec in specs], dtype=np.intp
    )

    while True:
        n_frontier = frontier_stats.shape[0]
        impurity = stats_model.impurity(frontier_stats)
        count = stats_model.count(frontier_stats)
        splittable = (
            (count >= limits.min_samples_split)
            & (count >= 2 * rules.min_samples_leaf)
            & (impurity > PURE)
            & (depth < max_depth)
            & ~frontier_empty
        )
        feature = np.full(n_frontier, LEAF, dtype=np.intp)
        threshold = np.full(n_frontier, np.nan)
        first_child = np.full(n_frontier, -1, dtype=np.intp)
        n_children = np.zeros(n_frontier, dtype=np.intp)
        candidates = np.flatnonzero(splittable)
        next_stats = None
        if candidates.size:
            local = np.full(n_frontier, -1, dtype=np.intp)
            local[candidates] = np.arange(candidates.size)
            in_frontier = sample_node >= first_id
            rows = all_rows[in_frontier]
            node_local = local[sample_node[rows] - first_id]
            keep = node_local >= 0
            rows, node_local = rows[keep], node_local[keep]
            mask = _feature_mask(candidates.size, n_features, limits.max_features, rng)
            splits = find_splits(
                codes,
                specs,
                rows,
                node_local,
                candidates.size,
                stats_model,
                frontier_stats[candidates],
                rules,
                mask,
            )
            weight = stats_model.weight(frontier_stats[candidates])
            decrease = weight / total_weight * splits.gain
            split = np.isfinite(splits.gain) & (decrease + 1e-12 >= limits.min_impurity_decrease)
            if limits.require_positive_gain:
                split &= splits.gain > 1e-12
            chosen = candidates[split]
            if chosen.size:
                next_first = first_id + n_frontier
                offsets = np.cumsum(splits.n_children[split]) - splits.n_children[split]
                feature[chosen] = splits.feature[split]
                threshold[chosen] = splits.threshold[split]
                first_child[chosen] = next_first + offsets
                n_children[chosen] = splits.n_children[split]
                for local_id, node_id in zip(np.flatnonzero(split), chosen, strict=True):
                    if int(local_id) in splits.routes:
                        store.routes[first_id + int(node_id)] = splits.routes[int(local_id)]
                next_stats = _route_samples(
                    codes,
                    rows,
                    node_local,
                    split,
                    splits,
                    first_child[candidates],
                    store.routes,
                    first_id,
                    candidates,
                    sample_node,
                    stats_model,
                    int(n_children.sum()),
                    next_first,
                )
        store.add_level(
            feature=feature,
            threshold=threshold,
            first_child=first_child,
            n_children=n_children,
            value=frontier_value,
            impurity=impurity,
            n_node_samples=count.astype(np.intp),
            weighted_n_node_samples=stats_model.weight(frontier_stats),
            depth=np.full(n_frontier, depth, dtype=np.intp),
            parent=frontier_parent,
        )
        if next_stats is None:
            break
        # The next frontier: children in id order, each with its parent.
        parents = np.repeat(first_id + np.arange(n_frontier), n_children)
        child_parent_local = parents - first_id
        empty = stats_model.count(next_stats) == 0
        value = stats_model.value(next_stats)
        value[empty] = frontier_value[child_parent_local[empty]]  # empty branch: parent's
        first_id += n_frontier
        frontier_stats, frontier_value = next_stats, value
        frontier_parent, frontier_empty = parents, empty
        depth += 1
    return store.build(n_categories_of_feature)


def _feature_mask(n_nodes, n_features, max_features, rng):
    """Which features each node may use; None means all of them."""
    if max_features is None or max_features >= n_features:
        return None
    ranks = np.argsort(rng.random((n_nodes, n_features)), axis=1)
    mask = np.zeros((n_nodes, n_features), dtype=bool)
    np.put_along_axis(mask, ranks[:, :max_features], True, axis=1)
    return mask


def _route_samples(
    codes,
    rows,
    node_local,
    split,
    splits,
    first_child_of_candidate,
    routes,
    first_id,
    candidates,
    sample_node,
    stats_model,
    n_next,
    next_first,
):
    """Send the samples of split nodes to their children; return the children's statistics."""
    moving = split[node_local]
    rows, node_local = rows[moving], node_local[moving]
    feature = splits.feature[node_local]
    slot = np.empty(rows.size, dtype=np.intp)
    for j in np.unique(feature):
        mine = feature == j
        code = codes[:, j][rows[mine]].astype(np.intp)
        nodes = node_local[mine]
        split_code = splits.split_code[nodes]
        if (split_code >= 0).all():
            slot[mine] = code > split_code
        else:
            tables = np.stack([routes[first_id + int(candidates[i])] for i in np.unique(nodes)])
            which = np.searchsorted(np.unique(nodes), nodes)
            slot[mine] = tables[which, code]
    child = first_child_of_candidate[node_local] + slot
    sample_node[rows] = child
    return stats_model.aggregate(child - next_first, n_next, rows)
