"""Growing a tree level by level (chapter 2's divide and conquer, vectorized).

The recursion of chapter 2 -- split a node, then treat each child the same
way -- is carried out one *depth* at a time: every node of the current depth
(the frontier) is split in the same pass over the data, so the number of
Python-level iterations is the depth of the tree times the number of
features, never the number of nodes or samples. For trees without a leaf
budget this builds exactly the tree a depth-first recursion builds, because
each node's split depends only on its own samples. With a leaf budget
(``max_leaf_nodes``) the order of the splits matters, and
:func:`grow_tree_best_first` splits one leaf at a time, the best first
(chapter 11, :eq:`eq-ch11-best-first`).

The three stopping cases of chapter 2 appear as:

1. a pure node (impurity 0) is not split;
2. a node whose samples cannot be separated (no valid candidate, or no
   positive gain where the algorithm demands one) becomes a leaf with the
   node's own class distribution;
3. an empty branch of a multiway split becomes a leaf that takes its
   *parent's* distribution.

Missing values (chapter 6) follow ``rules.missing``. With a learned default
direction every row still belongs to exactly one node. With C4.5's method a
row whose tested value is missing goes into every child with a share of its
weight, so membership becomes a list of (row, node, weight factor) entries.
Only the rows that met a missing value are listed that way
(:class:`_FractionalEntries`); every other row keeps its one node in
``sample_node`` and costs nothing extra.
"""

from __future__ import annotations

import copy
import heapq
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np

from mltrees.tree._cuts import filled
from mltrees.tree._data import CATEGORICAL
from mltrees.tree._split import SMALL, FrontierSplits, SplitRules, find_splits
from mltrees.tree._surrogate import find_surrogates
from mltrees.tree._tree import (
    CATEGORICAL_NODE,
    LEAF,
    MISSING_ALL_BRANCHES,
    MISSING_NONE,
    NUMERIC_NODE,
    Tree,
)

__all__ = ["GrowthLimits", "grow_tree", "grow_tree_best_first", "grow_trees_together"]

PURE = 1e-14  # impurity at or below this counts as a pure node
# Levels of at most this many rows are routed with one gather of each row's
# code at its node's feature; larger ones feature by feature (contiguous reads).
ROUTE_GATHER_ROWS = 1 << 17
_SURROGATE_COLUMNS = (
    "surrogate_feature",
    "surrogate_threshold",
    "surrogate_low_slot",
    "surrogate_agreement",
)


@dataclass
class GrowthLimits:
    """Pre-pruning limits shared by every algorithm (chapter 5 discusses them)."""

    max_depth: int | None = None
    min_samples_split: int = 2
    min_impurity_decrease: float = 0.0
    max_features: int | None = None
    require_positive_gain: bool = False
    # A leaf budget: None grows level by level; an int grows best first
    # (scikit-learn's max_leaf_nodes, :func:`grow_tree_best_first`).
    max_leaf_nodes: int | None = None


class _NodeStore:
    """Per-level arrays of the growing tree, concatenated at the end."""

    def __init__(self):
        self.levels: list[dict[str, np.ndarray]] = []
        self.routes: dict[int, np.ndarray] = {}

    def add_level(self, **arrays):
        self.levels.append(arrays)

    def split_trees(self, n_trees: int, n_categories_of_feature: np.ndarray) -> list[Tree]:
        """The trees of :func:`grow_trees_together`: each tree's nodes, renumbered from 0.

        Levels hold the nodes ordered by tree, so a tree's nodes keep the
        order (level by level, parents' order) its own growth gives them.
        """
        arrays = {
            key: np.concatenate([level[key] for level in self.levels]) for key in self.levels[0]
        }
        tree_of = arrays.pop("tree")
        order = np.argsort(tree_of, kind="stable")
        bounds = np.searchsorted(tree_of[order], np.arange(n_trees + 1))
        local = np.empty(tree_of.size, dtype=np.intp)
        local[order] = np.arange(tree_of.size) - np.repeat(bounds[:-1], np.diff(bounds))
        trees = []
        for t in range(n_trees):
            ids = order[bounds[t] : bounds[t + 1]]
            one = {key: values[ids] for key, values in arrays.items()}
            for key in ("first_child", "parent"):
                linked = one[key] >= 0
                one[key][linked] = local[one[key][linked]]
            store = _NodeStore()
            store.add_level(**one)
            store.routes = {int(local[i]): r for i, r in self.routes.items() if tree_of[i] == t}
            trees.append(store.build(n_categories_of_feature))
        return trees

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
            missing_slot=cat("missing_slot"),
            # Levels without surrogate splits store none: the tree makes its zero-width columns.
            **{key: cat(key) for key in _SURROGATE_COLUMNS if key in self.levels[0]},
        )


def grow_tree(
    codes,
    specs,
    stats_model,
    rules: SplitRules,
    limits: GrowthLimits,
    rng,
    n_threads: int = 1,
    leaf_of_row: np.ndarray | None = None,
) -> Tree:
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
    n_threads : int
        Threads that score the features of large levels (ensembles, which
        grow their trees in parallel, pass 1). The tree does not depend on it.
    leaf_of_row : ndarray of intp (n_samples,), optional
        Filled with the leaf every row of ``codes`` ends in, which the growth
        knows without a walk down the tree (gradient boosting's update).
        Level-by-level growth only: left untouched by best-first growth.

    Returns
    -------
    Tree
    """
    if limits.max_leaf_nodes is not None:
        return grow_tree_best_first(codes, specs, stats_model, rules, limits, rng)
    if n_threads > 1:
        executor = _PoolOnDemand(n_threads)
        try:
            return _grow_levels(
                codes, specs, stats_model, rules, limits, rng, executor, leaf_of_row=leaf_of_row
            )
        finally:
            executor.shutdown()
    return _grow_levels(
        codes, specs, stats_model, rules, limits, rng, None, leaf_of_row=leaf_of_row
    )


def grow_trees_together(
    codes, specs, stats_model, rules: SplitRules, limits: GrowthLimits, root_of_row, rngs
) -> list[Tree]:
    """Grow several trees level by level together: one search per level serves them all.

    Tree ``t`` grows on the rows where ``root_of_row == t`` (the rows of
    ``codes`` and ``stats_model``, grouped by tree in ascending order) and
    draws its feature subsets from ``rngs[t]``. Every node's split depends
    only on its own rows, so a level of all the trees is searched as one
    frontier of (tree, node) nodes, and each tree is the one :func:`grow_tree`
    grows on its rows with its generator: the same draws in the same order,
    the same statistics summed in the same row order. A forest on small data
    then pays the fixed cost of the search's NumPy calls once per level, not
    once per level and tree. Level-by-level growth only (no ``max_leaf_nodes``),
    without C4.5's fractional entries.
    """
    root_of_row = np.asarray(root_of_row, dtype=np.intp)
    rngs = list(rngs)
    if getattr(rules, "missing", "error") == "default_direction" and codes.dtype.kind == "i":
        # A tree without a missing value searches as plain CART (_search_rules):
        # trees with and without one are grown in two groups, each as alone.
        with_missing = np.bincount(root_of_row[(codes < 0).any(axis=1)], minlength=len(rngs)) > 0
        if with_missing.any() and not with_missing.all():
            trees = [None] * len(rngs)
            for group in (np.flatnonzero(with_missing), np.flatnonzero(~with_missing)):
                local = np.full(len(rngs), -1, dtype=np.intp)
                local[group] = np.arange(group.size)
                index = np.flatnonzero(local[root_of_row] >= 0)
                grown = _grow_levels(
                    np.asfortranarray(codes[index]),
                    specs,
                    stats_model.take(index, np.ones(index.size)),
                    rules,
                    limits,
                    None,
                    None,
                    _Roots(local[root_of_row[index]], [rngs[t] for t in group]),
                )
                for t, tree in zip(group, grown, strict=True):
                    trees[t] = tree
            return trees
    roots = _Roots(root_of_row, rngs)
    return _grow_levels(codes, specs, stats_model, rules, limits, None, None, roots)


class _PoolOnDemand:
    """A thread pool started by its first ``map``.

    Small trees, whose levels never reach the threaded size, do not pay for
    starting and joining it.
    """

    def __init__(self, n_threads: int):
        self.n_threads, self.pool = n_threads, None

    def map(self, function, iterable):
        if self.pool is None:
            self.pool = ThreadPoolExecutor(self.n_threads)
        return self.pool.map(function, iterable)

    def shutdown(self) -> None:
        if self.pool is not None:
            self.pool.shutdown()


@dataclass
class _Roots:
    """The trees grown together: each row's tree and each tree's generator."""

    of_row: np.ndarray
    rngs: list


class _TreeDraws:
    """Uniform draws of the frontier's nodes, each from its own tree's generator.

    The frontier is ordered by tree, so stacking each tree's block in tree
    order gives every node the numbers its tree alone would have drawn.
    """

    def __init__(self, rngs, node_tree):
        self.rngs, self.node_tree = rngs, node_tree

    def random(self, shape):
        counts = np.bincount(self.node_tree, minlength=len(self.rngs))
        blocks = [self.rngs[t].random((int(c), shape[1])) for t, c in enumerate(counts) if c]
        return np.concatenate(blocks)


def _grow_levels(
    codes, specs, stats_model, rules, limits, rng, executor, roots=None, leaf_of_row=None
):
    """:func:`grow_tree`'s level-by-level loop; with ``roots``, several trees' (a list).

    ``leaf_of_row`` (one tree): filled with each row's final node, its leaf.
    """
    n_samples = codes.shape[0]
    all_rows = np.arange(n_samples)
    n_roots = 1 if roots is None else len(roots.rngs)
    sample_node = np.zeros(n_samples, dtype=np.intp) if roots is None else roots.of_row.copy()
    missing = getattr(rules, "missing", "error")
    search_rules = _search_rules(rules, codes)
    entries = None
    if missing == "c45" and codes.dtype.kind == "i" and (codes < 0).any():
        entries = _FractionalEntries(stats_model, n_samples)
    frontier_stats = stats_model.aggregate(sample_node.copy(), n_roots, all_rows)
    frontier_value = stats_model.value(frontier_stats)
    frontier_parent = np.full(n_roots, -1, dtype=np.intp)
    frontier_empty = np.zeros(n_roots, dtype=bool)
    frontier_tree = np.arange(n_roots)
    total_weight = stats_model.weight(frontier_stats)  # per tree
    store = _NodeStore()
    first_id, depth = 0, 0
    max_depth = np.inf if limits.max_depth is None else limits.max_depth
    n_categories_of_feature = np.array(
        [spec.n_codes if spec.kind == CATEGORICAL else 0 for spec in specs], dtype=np.intp
    )
    # CART's surrogate splits (chapter 6): up to this many per node, best first.
    n_surrogates = rules.max_surrogates if missing == "surrogate" else 0

    while True:
        n_frontier = frontier_stats.shape[0]
        impurity = stats_model.impurity(frontier_stats)
        count = stats_model.count(frontier_stats)
        node_weight = stats_model.weight(frontier_stats)
        cases = count if entries is None else entries.cases(count, first_id)
        splittable = _splittable(
            stats_model, frontier_stats, impurity, cases, depth < max_depth, rules, limits
        )
        splittable &= ~frontier_empty
        feature = filled(n_frontier, LEAF, dtype=np.intp)
        threshold = filled(n_frontier, np.nan)
        first_child = filled(n_frontier, -1, dtype=np.intp)
        n_children = np.zeros(n_frontier, dtype=np.intp)
        missing_slot = filled(n_frontier, MISSING_NONE, dtype=np.int8)  # a slot or MISSING_*
        surrogate = {}  # no surrogate splits: the tree's zero-width columns (Tree)
        if n_surrogates:
            surrogate = {
                "surrogate_feature": np.full((n_frontier, n_surrogates), LEAF, dtype=np.intp),
                "surrogate_threshold": np.full((n_frontier, n_surrogates), np.nan),
                "surrogate_low_slot": np.zeros((n_frontier, n_surrogates), dtype=np.int8),
                "surrogate_agreement": np.full((n_frontier, n_surrogates), np.nan),
            }
        candidates = splittable.nonzero()[0]
        next_stats = None
        if candidates.size:
            local = filled(n_frontier, -1, dtype=np.intp)
            local[candidates] = np.arange(candidates.size)
            in_frontier = sample_node >= first_id
            rows = all_rows[in_frontier]
            node_local = local[sample_node[rows] - first_id]
            if entries is not None and entries.size:
                # Fractional entries are numbered after the rows (see _FractionalEntries).
                rows = np.concatenate([rows, n_samples + np.arange(entries.size)])
                node_local = np.concatenate([node_local, local[entries.node - first_id]])
            keep = node_local >= 0
            rows, node_local = rows[keep], node_local[keep]
            splits = _find_drawn_splits(
                codes,
                specs,
                rows,
                node_local,
                candidates.size,
                stats_model if entries is None else entries.stats,
                frontier_stats[candidates],
                search_rules,
                limits.max_features,
                rng if roots is None else _TreeDraws(roots.rngs, frontier_tree[candidates]),
                None if entries is None else entries.row_of(),
                executor,
                impurity[candidates] if entries is None else None,
            )
            weight = node_weight[candidates]
            decrease = weight / total_weight[frontier_tree[candidates]] * splits.gain
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
                if splits.routes:  # categorical splits only: no loop over numeric ones
                    for local_id, node_id in zip(np.flatnonzero(split), chosen, strict=True):
                        if int(local_id) in splits.routes:
                            store.routes[first_id + int(node_id)] = splits.routes[int(local_id)]
                found = {}
                resolve = None
                if missing == "surrogate":
                    resolve = _surrogate_resolver(
                        codes, specs, splits.feature, stats_model.w, n_surrogates, found
                    )

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
                    entries,
                    resolve,
                )
                if missing == "surrogate":
                    result = found["surrogates"]
                    missing_slot[chosen] = result.majority_slot[split]
                    surrogate["surrogate_feature"][chosen] = result.feature[split]
                    surrogate["surrogate_threshold"][chosen] = result.threshold[split]
                    surrogate["surrogate_low_slot"][chosen] = result.low_slot[split]
                    surrogate["surrogate_agreement"][chosen] = result.agreement[split]
                elif missing == "c45":
                    missing_slot[chosen] = MISSING_ALL_BRANCHES
                elif missing == "default_direction":
                    missing_slot[chosen] = _default_slots(
                        None if splits.missing_slot is None else splits.missing_slot[split],
                        first_child[chosen] - next_first,
                        next_stats,
                        stats_model,
                    )
        store.add_level(
            feature=feature,
            threshold=threshold,
            first_child=first_child,
            n_children=n_children,
            value=frontier_value,
            impurity=impurity,
            n_node_samples=count.astype(np.intp),
            weighted_n_node_samples=node_weight,
            depth=filled(n_frontier, depth, dtype=np.intp),
            parent=frontier_parent,
            missing_slot=missing_slot,
            tree=frontier_tree,
            **surrogate,
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
        frontier_tree = np.repeat(frontier_tree, n_children)
        depth += 1
    if roots is None:
        if leaf_of_row is not None and entries is None:
            leaf_of_row[:] = sample_node  # a row's node only changes when it splits
        return store.build(n_categories_of_feature)
    return store.split_trees(n_roots, n_categories_of_feature)


def grow_tree_best_first(
    codes, specs, stats_model, rules: SplitRules, limits: GrowthLimits, rng
) -> Tree:
    """Grow one tree best first, until it has ``limits.max_leaf_nodes`` leaves.

    The best split of every node is searched when the node is created; the
    leaf whose split has the largest weighted impurity decrease

    ``N_t / N * (i(t) - N_L / N_t * i(t_L) - N_R / N_t * i(t_R))``

    (:eq:`eq-ch11-best-first`) is split next, until the tree holds
    ``max_leaf_nodes`` leaves or no leaf has an admissible split. This is
    scikit-learn's ``BestFirstTreeBuilder`` (``max_leaf_nodes``); equal
    decreases go to the node created first. Nodes are numbered in the order
    they are created, the children of a split next to each other.

    Which leaf is split next depends on every split before it, so the loop
    runs over the splits (at most ``max_leaf_nodes - 1``). Each split moves
    only its own node's rows, and the two new children are searched together
    in one :func:`~mltrees.tree._split.find_splits` call on those rows.

    Parameters and return value as :func:`grow_tree`. Binary splits only
    (CART); C4.5's fractional missing-value entries are not supported.
    """
    if rules.multiway_categorical:
        raise ValueError("best-first growth (max_leaf_nodes) needs binary splits (CART)")
    missing = getattr(rules, "missing", "error")
    if missing == "c45":
        raise ValueError(
            "max_leaf_nodes is not available with missing='c45'; use 'default_direction' "
            "or 'surrogate'"
        )
    search_rules = _search_rules(rules, codes)
    n_samples = codes.shape[0]
    n_surrogates = rules.max_surrogates if missing == "surrogate" else 0
    capacity = 2 * int(limits.max_leaf_nodes) - 1
    max_depth = np.inf if limits.max_depth is None else limits.max_depth
    all_rows = np.arange(n_samples)
    sample_node = np.zeros(n_samples, dtype=np.intp)
    root_stats = stats_model.aggregate(sample_node, 1, all_rows)
    total_weight = float(stats_model.weight(root_stats)[0])
    n_categories_of_feature = np.array(
        [spec.n_codes if spec.kind == CATEGORICAL else 0 for spec in specs], dtype=np.intp
    )
    node = {
        "feature": np.full(capacity, LEAF, dtype=np.intp),
        "threshold": np.full(capacity, np.nan),
        "first_child": np.full(capacity, -1, dtype=np.intp),
        "n_children": np.zeros(capacity, dtype=np.intp),
        "value": np.zeros((capacity, stats_model.value(root_stats).shape[1])),
        "impurity": np.zeros(capacity),
        "n_node_samples": np.zeros(capacity, dtype=np.intp),
        "weighted_n_node_samples": np.zeros(capacity),
        "depth": np.zeros(capacity, dtype=np.intp),
        "parent": np.full(capacity, -1, dtype=np.intp),
        "missing_slot": np.full(capacity, MISSING_NONE, dtype=np.int8),
        "surrogate_feature": np.full((capacity, n_surrogates), LEAF, dtype=np.intp),
        "surrogate_threshold": np.full((capacity, n_surrogates), np.nan),
        "surrogate_low_slot": np.zeros((capacity, n_surrogates), dtype=np.int8),
        "surrogate_agreement": np.full((capacity, n_surrogates), np.nan),
    }
    routes: dict[int, np.ndarray] = {}
    rows_of: dict[int, np.ndarray] = {}  # the rows of each leaf, until it is split
    pending: dict[int, tuple] = {}  # each open leaf's best split: (FrontierSplits, index)
    heap: list[tuple[float, int]] = []  # (-decrease, node id): the best leaf pops first

    def open_nodes(first, stats, rows, local, depth, parent):
        """Record new nodes ``first, first + 1, ...`` and search their best splits."""
        ids = first + np.arange(stats.shape[0])
        impurity = stats_model.impurity(stats)
        count = stats_model.count(stats)
        value = stats_model.value(stats)
        empty = count == 0
        if parent >= 0:
            value[empty] = node["value"][parent]  # empty branch: the parent's value
        node["value"][ids] = value
        node["impurity"][ids] = impurity
        node["n_node_samples"][ids] = count.astype(np.intp)
        node["weighted_n_node_samples"][ids] = stats_model.weight(stats)
        node["depth"][ids] = depth
        node["parent"][ids] = parent
        splittable = _splittable(
            stats_model, stats, impurity, count, depth < max_depth, rules, limits
        )
        splittable &= ~empty
        candidates = np.flatnonzero(splittable)
        if not candidates.size:
            return
        position = np.full(ids.size, -1, dtype=np.intp)
        position[candidates] = np.arange(candidates.size)
        node_local = position[local]
        keep = node_local >= 0
        splits = _find_drawn_splits(
            codes,
            specs,
            rows[keep],
            node_local[keep],
            candidates.size,
            stats_model,
            stats[candidates],
            search_rules,
            limits.max_features,
            rng,
        )
        # scikit-learn's improvement: the decrease weighted by the node's share.
        decrease = stats_model.weight(stats[candidates]) / total_weight * splits.gain
        admissible = np.isfinite(splits.gain) & (decrease + 1e-12 >= limits.min_impurity_decrease)
        if limits.require_positive_gain:
            admissible &= splits.gain > 1e-12
        for i in np.flatnonzero(admissible):
            node_id = int(ids[candidates[i]])
            pending[node_id] = (splits, int(i))
            heapq.heappush(heap, (-float(decrease[i]), node_id))
        for c in candidates[admissible]:
            rows_of[int(ids[c])] = rows[local == c]

    open_nodes(0, root_stats, all_rows, np.zeros(n_samples, dtype=np.intp), 0, -1)
    n_nodes, n_leaves = 1, 1
    while heap and n_leaves < limits.max_leaf_nodes:
        _, t = heapq.heappop(heap)
        splits, i = pending.pop(t)
        rows = rows_of.pop(t)
        one = _one_split(splits, i)
        k = int(one.n_children[0])
        first = n_nodes
        node["feature"][t] = one.feature[0]
        node["threshold"][t] = one.threshold[0]
        node["first_child"][t] = first
        node["n_children"][t] = k
        if 0 in one.routes:
            routes[t] = one.routes[0]
        found = {}
        resolve = None
        if missing == "surrogate":
            resolve = _surrogate_resolver(
                codes, specs, one.feature, stats_model.w, n_surrogates, found
            )

        child_stats = _route_samples(
            codes,
            rows,
            np.zeros(rows.size, dtype=np.intp),
            np.ones(1, dtype=bool),
            one,
            np.array([first], dtype=np.intp),
            routes,
            t,
            np.zeros(1, dtype=np.intp),
            sample_node,
            stats_model,
            k,
            first,
            None,
            resolve,
        )
        if missing == "surrogate":
            result = found["surrogates"]
            node["missing_slot"][t] = result.majority_slot[0]
            for name in ("feature", "threshold", "low_slot", "agreement"):
                node[f"surrogate_{name}"][t] = getattr(result, name)[0]
        elif missing == "default_direction":
            node["missing_slot"][t] = _default_slots(
                one.missing_slot, np.zeros(1, dtype=np.intp), child_stats, stats_model
            )[0]
        n_nodes += k
        n_leaves += k - 1
        open_nodes(first, child_stats, rows, sample_node[rows] - first, node["depth"][t] + 1, t)
    store = _NodeStore()
    store.add_level(**{name: array[:n_nodes] for name, array in node.items()})
    store.routes = routes
    return store.build(n_categories_of_feature)


def _one_split(splits: FrontierSplits, i: int) -> FrontierSplits:
    """The split of node ``i`` of a search, as a search of one node."""
    part = slice(i, i + 1)
    return FrontierSplits(
        gain=splits.gain[part],
        feature=splits.feature[part],
        threshold=splits.threshold[part],
        split_code=splits.split_code[part],
        n_children=splits.n_children[part],
        routes={0: splits.routes[i]} if i in splits.routes else {},
        missing_slot=None if splits.missing_slot is None else splits.missing_slot[part],
    )


def _surrogate_resolver(codes, specs, feature, weights, n_surrogates, found):
    """Routing of the rows a split cannot place, for both growth orders (chapter 6).

    Surrogates are searched on the rows the primary split places, then route
    the rows it cannot place; the surrogates found are left in
    ``found["surrogates"]`` for the tree's arrays.
    """

    def resolve(rows_moving, node_moving, slot):
        result = find_surrogates(
            codes,
            specs,
            rows_moving,
            node_moving,
            slot,
            feature,
            feature.size,
            weights,
            n_surrogates,
        )
        found["surrogates"] = result
        return result.route(codes, rows_moving, node_moving, slot)

    return resolve


def _splittable(stats_model, stats, impurity, cases, below_max_depth, rules, limits):
    """Which nodes may be split: chapter 2's stopping cases and the pre-pruning limits."""
    splittable = (
        (cases >= limits.min_samples_split)
        & (cases >= 2 * rules.min_samples_leaf)
        & (impurity > PURE)
        & below_max_depth
    )
    node_weight = stats_model.weight(stats)
    if rules.release8:
        # J48: a node lighter than 2 MINOBJS, or whose other classes weigh
        # no more than SMALL, is a leaf (within J48's tolerance SMALL).
        majority = stats[:, 1:].max(axis=1)
        splittable &= (node_weight >= 2 * rules.min_cases - SMALL) & (
            node_weight - majority > SMALL
        )
    elif rules.min_cases > 1:
        splittable &= node_weight >= 2 * rules.min_cases
    return splittable


def _find_drawn_splits(
    codes,
    specs,
    rows,
    node,
    n_nodes,
    stats_model,
    node_stats,
    rules,
    max_features,
    rng,
    row_of=None,
    executor=None,
    parent_impurity=None,
):
    """:func:`find_splits` with each node drawing ``max_features`` features (chapter 10).

    Every node orders the features at random and looks at the first
    ``max_features`` of them. If all of those are constant in the node, the
    node keeps going down its order to the first feature that is not, and
    splits on that one -- Breiman's forests as scikit-learn grows them: a node
    becomes a leaf because it is pure or cannot be split, never because its
    draw was unlucky. Without this rule, on data with many binary or discrete
    columns deep nodes stop early and the forest loses accuracy.
    """

    def search(rows, node, n_nodes, node_stats, mask, impurity=None):
        return find_splits(
            codes,
            specs,
            rows,
            node,
            n_nodes,
            stats_model,
            node_stats,
            rules,
            mask,
            row_of,
            executor,
            impurity,
        )

    n_features = codes.shape[1]
    if max_features is None or max_features >= n_features:
        return search(rows, node, n_nodes, node_stats, None, parent_impurity)
    order = np.argsort(rng.random((n_nodes, n_features)), axis=1)
    mask = np.zeros((n_nodes, n_features), dtype=bool)
    np.put_along_axis(mask, order[:, :max_features], True, axis=1)
    splits = search(rows, node, n_nodes, node_stats, mask, parent_impurity)
    failed = np.flatnonzero(~np.isfinite(splits.gain))
    if failed.size == 0:
        return splits
    # Which features are constant (at most one known value) in the failed nodes.
    local = np.full(n_nodes, -1, dtype=np.intp)
    local[failed] = np.arange(failed.size)
    in_failed = local[node] >= 0
    failed_rows, failed_node = rows[in_failed], local[node[in_failed]]
    by_node = np.argsort(failed_node, kind="stable")
    code_rows = failed_rows[by_node] if row_of is None else row_of[failed_rows[by_node]]
    block = codes[code_rows].astype(np.int64)
    starts = np.searchsorted(failed_node[by_node], np.arange(failed.size))
    present = starts < block.shape[0]
    largest = np.full((failed.size, n_features), -1, dtype=np.int64)
    smallest_known = np.full((failed.size, n_features), -1, dtype=np.int64)
    if present.any():
        at = starts[present]
        largest[present] = np.maximum.reduceat(block, at, axis=0)
        known = np.where(block < 0, np.iinfo(np.int64).max, block)
        smallest_known[present] = np.minimum.reduceat(known, at, axis=0)
    varies = (largest >= 0) & (largest > smallest_known)  # missing codes are negative
    # Redraw where every drawn feature is constant but some other one varies.
    varies_in_order = np.take_along_axis(varies, order[failed], axis=1)
    redraw = ~varies_in_order[:, :max_features].any(axis=1) & varies_in_order.any(axis=1)
    if not redraw.any():
        return splits
    again = failed[redraw]
    first_varying = order[again, np.argmax(varies_in_order[redraw], axis=1)]
    position = np.full(n_nodes, -1, dtype=np.intp)
    position[again] = np.arange(again.size)
    keep = position[node] >= 0
    one = np.zeros((again.size, n_features), dtype=bool)
    one[np.arange(again.size), first_varying] = True
    second = search(rows[keep], position[node[keep]], again.size, node_stats[again], one)
    return _merge_splits(splits, second, again)


def _merge_splits(splits: FrontierSplits, second: FrontierSplits, at: np.ndarray):
    """``splits`` with the nodes ``at`` replaced by ``second``'s results (in order)."""
    for name in ("gain", "feature", "threshold", "split_code", "n_children", "missing_slot"):
        target = getattr(splits, name)
        if target is not None:
            target[at] = getattr(second, name)
    if splits.routes:  # categorical splits only: no loop over numeric ones
        for local_id in at:
            splits.routes.pop(int(local_id), None)
    for i, route in second.routes.items():
        splits.routes[int(at[i])] = route
    return splits


def _search_rules(rules, codes: np.ndarray):
    """The rules the split search runs with on ``codes``.

    A learned default direction has nothing to learn from codes without a
    missing value (-1): the search is then plain CART's (no holes, no change,
    chapter 6), which lets random forests use their drawn-feature levels, and
    every node's default child is set afterwards by :func:`_default_slots`.
    """
    if getattr(rules, "missing", "error") != "default_direction":
        return rules
    if codes.dtype.kind == "i" and (codes < 0).any():
        return rules
    plain = copy.copy(rules)  # dataclasses.replace re-runs __init__: a cost per tree
    plain.missing = "error"
    return plain


def _default_slots(learned, first_child_local, next_stats, stats_model):
    """Default child of each new node for missing values (the learned default direction).

    Where the node's rows held missing values of the chosen feature the
    learned slot is kept; elsewhere nothing was learned and missing values go
    to the child with more training rows, counted without weights, ties to
    the right: scikit-learn's rule (``n_left > n_right`` in its splitter).
    ``learned`` None: nothing was learned anywhere.
    """
    count = stats_model.count(next_stats)
    larger = np.where(count[first_child_local] > count[first_child_local + 1], 0, 1)
    if learned is None:
        return larger
    return np.where(learned >= 0, learned, larger)


class _FractionalEntries:
    """C4.5's fractional memberships: rows present in several nodes (chapter 6).

    A row whose tested value was missing at some split is no longer in one
    node but in every child of that split, with its weight multiplied by the
    branch share r~_k (:eq:`eq-c45-r`). Such (row, node, factor) entries are
    kept here and numbered ``n_rows + i``, after the ordinary rows, so the
    statistics and split search treat them as extra rows: ``stats`` holds the
    statistics of all rows followed by the entries (weights times factors),
    and ``row_of()`` maps every number back to its row of ``codes``. The
    entries in nodes that became leaves are dropped; rows that never met a
    missing tested value are not listed at all.
    """

    def __init__(self, stats_model, n_rows: int):
        self.base, self.n_rows = stats_model, n_rows
        self.row = np.zeros(0, dtype=np.intp)
        self.node = np.zeros(0, dtype=np.intp)
        self.factor = np.zeros(0)
        self.stats = stats_model

    @property
    def size(self) -> int:
        return self.row.size

    def cases(self, count: np.ndarray, first_id: int) -> np.ndarray:
        """Number of cases of each frontier node, a fractional entry counting its factor.

        Quinlan counts cases this way; the stopping rules (min_samples_split,
        min_samples_leaf) compare it, so that slivers of rows -- a node of
        many tiny fractions -- are not split forever.
        """
        if not self.size:
            return count
        local = self.node - first_id
        n_entries = np.bincount(local, minlength=count.size)
        return count - n_entries + np.bincount(local, weights=self.factor, minlength=count.size)

    def row_of(self) -> np.ndarray | None:
        if not self.size:
            return None
        return np.concatenate([np.arange(self.n_rows), self.row])

    def route(self, rows, node_local, slot, child_local, child_parent, n_next, next_first, nodes):
        """Move the entries of split nodes to their children; return the children's statistics.

        ``slot`` is -1 where the tested value is missing: such an entry is
        replaced by one entry per child, its factor multiplied by the child's
        share of the node's known weight (:eq:`eq-c45-r`).
        """
        known = slot >= 0
        weight = self.stats.w[rows]
        known_child = child_local[known]
        child_weight = np.bincount(known_child, weights=weight[known], minlength=n_next)
        node_weight = np.bincount(child_parent, weights=child_weight, minlength=nodes.size)
        parent_weight = node_weight[child_parent]
        share = child_weight / np.where(parent_weight > 0, parent_weight, 1.0)
        # Entries whose value is missing: one copy per child of their node.
        lost = rows[~known]
        counts = nodes.n_children[node_local[~known]]
        start = np.cumsum(counts) - counts
        first = nodes.first_child_local[node_local[~known]]
        copy_child = np.repeat(first - start, counts) + np.arange(int(counts.sum()))
        is_entry = lost >= self.n_rows
        factor = np.ones(lost.size)
        factor[is_entry] = self.factor[lost[is_entry] - self.n_rows]
        real_row = lost.copy()
        real_row[is_entry] = self.row[lost[is_entry] - self.n_rows]
        copy_factor = np.repeat(factor, counts) * share[copy_child]
        copy_row = np.repeat(real_row, counts)
        nonzero = copy_factor > 0  # an empty branch gets no share
        # Rows that stay whole keep their single node; rows that were split leave it.
        known_rows = rows[known]
        whole = known_rows < self.n_rows
        nodes.sample_node[known_rows[whole]] = known_child[whole] + next_first
        nodes.sample_node[lost[~is_entry]] = -1
        moved = known_rows[~whole] - self.n_rows
        self.row = np.concatenate([self.row[moved], copy_row[nonzero]])
        self.node = np.concatenate([known_child[~whole], copy_child[nonzero]]) + next_first
        self.factor = np.concatenate([self.factor[moved], copy_factor[nonzero]])
        self.stats = self.base.take(
            np.concatenate([np.arange(self.n_rows), self.row]),
            np.concatenate([np.ones(self.n_rows), self.factor]),
        )
        members = np.concatenate([known_rows[whole], self.n_rows + np.arange(self.size)])
        group = np.concatenate([known_child[whole], self.node - next_first])
        return self.stats.aggregate(group, n_next, members)


class _SplitNodes:
    """What routing needs to know about the nodes being split (candidate-local ids)."""

    def __init__(self, n_children, first_child_local, sample_node):
        self.n_children = n_children
        self.first_child_local = first_child_local
        self.sample_node = sample_node
        self.size = n_children.size


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
    entries=None,
    resolve_missing=None,
):
    """Send the samples of split nodes to their children; return the children's statistics.

    A row whose tested value is missing (code -1, chapter 6) goes to the
    node's learned default child, or, with C4.5's method (``entries``), into
    every child with a share of its weight, or, with CART's surrogate splits,
    where ``resolve_missing(rows, node_local, slot)`` sends it.
    """
    moving = split[node_local]
    rows, node_local = rows[moving], node_local[moving]
    code_rows = rows
    if entries is not None and entries.size:
        code_rows = entries.row_of()[rows]
    signed = codes.dtype.kind == "i"
    feature = splits.feature[node_local]
    slot = np.empty(rows.size, dtype=np.intp)
    if rows.size <= ROUTE_GATHER_ROWS and (splits.split_code[split] >= 0).all():
        # Small levels of numeric splits: every row's code at its node's
        # feature in one gather, rather than a pass per feature.
        code = codes[code_rows, feature].astype(np.intp)
        slot[:] = code > splits.split_code[node_local]
        if signed:
            slot[code < 0] = -1  # missing
        features_used = ()
    else:
        # Group the rows by their node's feature with one stable sort, rather
        # than one pass over all rows per feature (deep levels use every feature).
        key = feature.astype(np.uint8) if codes.shape[1] <= 256 else feature  # radix sort
        order = np.argsort(key, kind="stable")
        bounds = np.concatenate([[0], np.cumsum(np.bincount(key, minlength=codes.shape[1]))])
        features_used = np.flatnonzero(bounds[1:] > bounds[:-1])
    for j in features_used:
        mine = order[bounds[j] : bounds[j + 1]]
        code = codes[:, j][code_rows[mine]].astype(np.intp)
        nodes = node_local[mine]
        split_code = splits.split_code[nodes]
        if (split_code >= 0).all():
            slot[mine] = code > split_code
        else:
            tables = np.stack([routes[first_id + int(candidates[i])] for i in np.unique(nodes)])
            which = np.searchsorted(np.unique(nodes), nodes)
            slot[mine] = tables[which, code]
        if signed:
            slot[mine[code < 0]] = -1  # missing
    if resolve_missing is not None:
        slot = resolve_missing(rows, node_local, slot)
    if entries is not None:
        child_local = first_child_of_candidate[node_local] + np.maximum(slot, 0) - next_first
        n_children = splits.n_children.copy()
        n_children[~split] = 0
        child_parent = np.repeat(np.arange(n_children.size), n_children)
        nodes = _SplitNodes(n_children, first_child_of_candidate - next_first, sample_node)
        return entries.route(
            rows, node_local, slot, child_local, child_parent, n_next, next_first, nodes
        )
    if signed:
        lost = np.flatnonzero(slot < 0)
        if lost.size:  # the learned default direction
            slot[lost] = np.maximum(splits.missing_slot[node_local[lost]], 0)
    child = first_child_of_candidate[node_local] + slot
    sample_node[rows] = child
    return stats_model.aggregate(child - next_first, n_next, rows)
