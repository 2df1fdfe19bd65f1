"""Growing one tree from gradient histograms, level by level (chapter 13).

:class:`DepthwiseGrower` is XGBoost's depth-wise policy: every node of a
level is split at once if its best split gains enough, down to
``max_depth``. It keeps the rows *grouped by node*: ``order`` is a
permutation of the rows in which every node's rows are contiguous, so a
node is a ``(start, count)`` segment, splitting it is a stable partition of
its segment, and the rows of the smaller child are a slice to build a
histogram from (:mod:`mltrees.hist.histogram`; the larger child is the
parent minus the smaller). No loop runs over rows, and none over nodes
except to cut the level into segments.

A grown tree comes back with the leaf of every row
(:attr:`GrownTree.leaf_of_row`), so the boosting loop updates its training
predictions with one gather instead of walking the tree.

The contract a boosting loop relies on, and which policies honour it, is
described in :mod:`mltrees.hist` ("The histogram engine and the grower
contract"). A tree's structure and its leaf values may come from different
gradient sets: grow on one, then :func:`leaf_values` of the other over
``leaf_of_row``.
"""

from __future__ import annotations

import copy
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

import numpy as np

from mltrees.hist.binning import BinnedData
from mltrees.hist.histogram import build_histograms, children_histograms
from mltrees.hist.xgboost.splitting import (
    SplitParams,
    leaf_weight,
    local_proposals,
)
from mltrees.tree._tree import LEAF, MISSING_NONE, NUMERIC_NODE, Tree

__all__ = [
    "DepthwiseGrower",
    "GrowerBase",
    "GrownTree",
    "NodeRows",
    "binary_tree",
    "draw_features",
    "leaf_of_segments",
    "leaf_values",
    "partition_segment",
    "segment_positions",
    "stable_partition",
]

NODES_PER_LOOP = 64  # up to this many split nodes a level is partitioned node by node
ROWS_PER_LOOP = 1 << 16  # ... if they hold more rows than this


@dataclass
class GrownTree:
    """A tree fresh from a grower: what every growth policy's ``grow`` returns.

    The oblivious policy returns its own kind,
    :class:`~mltrees.hist.catboost.oblivious.GrownObliviousTree` (an
    :class:`~mltrees.hist.catboost.oblivious.ObliviousTree`, the leaf index of every
    row, one gain per level, no ``split_value``).

    Attributes
    ----------
    tree : Tree
        Flat-array tree; leaves hold ``learning_rate * w*``; numeric tests are
        ``x <= threshold`` with ``threshold`` the float64 just below the
        float32 cut, so that on float32 data they equal XGBoost's ``x < cut``.
    leaf_of_row : ndarray of intp, shape (n_rows,)
        The leaf (node id) each training row ends in.
    split_value : ndarray of float32, shape (n_nodes,), or None
        The cut ``c`` of XGBoost's test ``x < c`` (NaN at leaves).
    gain : ndarray of float, shape (n_nodes,)
        The loss change of each split (0 at leaves).
    weight : ndarray of float, shape (n_nodes,)
        The unscaled leaf weight ``w*`` of every node.
    """

    tree: Tree
    leaf_of_row: np.ndarray
    split_value: np.ndarray
    gain: np.ndarray
    weight: np.ndarray


def binary_tree(
    *,
    feature: np.ndarray,
    threshold: np.ndarray,
    first_child: np.ndarray,
    value: np.ndarray,
    impurity: np.ndarray,
    n_node_samples: np.ndarray,
    weighted_n_node_samples: np.ndarray,
    depth: np.ndarray,
    parent: np.ndarray,
    missing_slot: np.ndarray,
    kind: np.ndarray | None = None,
    route_offset: np.ndarray | None = None,
    route_table: np.ndarray | None = None,
    n_categories: np.ndarray | None = None,
) -> Tree:
    """The :class:`~mltrees.tree._tree.Tree` of a grown binary tree, from its per-node arrays.

    The one place the growers of this package build a ``Tree``. Every
    internal node (``feature != LEAF``) has two children; without ``kind``,
    every split is numeric and no categories are routed (``route_offset``,
    ``route_table`` and ``n_categories`` empty), as in XGBoost's trees.
    ``value`` is given with its output axis, shape ``(n_nodes, n_outputs)``.
    """
    feature = np.asarray(feature)
    n_nodes = feature.size
    internal = feature != LEAF
    return Tree(
        feature=feature,
        kind=np.where(internal, NUMERIC_NODE, -1).astype(np.int8) if kind is None else kind,
        threshold=threshold,
        first_child=first_child,
        n_children=np.where(internal, 2, 0),
        route_offset=np.zeros(n_nodes, dtype=np.intp) if route_offset is None else route_offset,
        route_table=np.zeros(0, dtype=np.intp) if route_table is None else route_table,
        n_categories=np.zeros(n_nodes, dtype=np.intp) if n_categories is None else n_categories,
        value=value,
        impurity=impurity,
        n_node_samples=n_node_samples,
        weighted_n_node_samples=weighted_n_node_samples,
        depth=depth,
        parent=parent,
        missing_slot=missing_slot,
    )


def leaf_values(
    leaf_of_row: np.ndarray, g: np.ndarray, h: np.ndarray, n_nodes: int, params: SplitParams
) -> np.ndarray:
    """The optimal weight :eq:`eq-xgb-leaf-weight` of every node from any gradient set.

    Sums ``g`` and ``h`` over the rows of each leaf (``leaf_of_row`` of a
    :class:`GrownTree`); nodes without rows get 0.
    """
    G = np.bincount(leaf_of_row, weights=g, minlength=n_nodes)
    H = np.bincount(leaf_of_row, weights=h, minlength=n_nodes)
    return np.asarray(leaf_weight(G, H, params), dtype=np.float64)


def draw_features(rng: np.random.Generator, allowed: np.ndarray, share: float) -> np.ndarray:
    """A random subset of ``allowed`` features of size ``max(1, round(share * len))``.

    Column subsampling by tree, level or node (XGBoost's ``colsample_*``).
    """
    if share >= 1.0:
        return allowed
    k = max(1, round(share * allowed.size))
    return np.sort(rng.choice(allowed, size=k, replace=False))


def segment_positions(starts: np.ndarray, counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Positions ``start .. start + count - 1`` of every segment, and each one's segment."""
    counts = np.asarray(counts, dtype=np.intp)
    segment = np.arange(counts.size).repeat(counts)
    shift = starts - (counts.cumsum() - counts)  # position - index among the entries
    positions = np.arange(segment.size, dtype=np.intp) + shift.take(segment)
    return positions, segment


def stable_partition(
    order: np.ndarray, starts, counts, go_left: np.ndarray, positions, segment
) -> np.ndarray:
    """Reorder every segment of ``order``: its left rows first, each side in its old order.

    ``positions`` (increasing) and ``segment`` list the entries of the
    segments (:func:`segment_positions`). Sorting the key ``2 segment +
    goes_right`` stably puts every segment's left rows, then its right rows,
    in place, all segments at once; NumPy sorts 8- and 16-bit keys with a
    radix sort, in linear time. Returns the number of left rows of each segment.
    """
    n_segments = len(starts)
    dtype = np.uint8 if 2 * n_segments <= 256 else np.uint16 if 2 * n_segments <= 65536 else None
    key = 2 * segment + ~go_left if dtype is None else (2 * segment + ~go_left).astype(dtype)
    permutation = np.argsort(key, kind="stable")
    rows = order[positions]
    order[positions] = rows[permutation]
    sides = np.bincount(key, minlength=2 * n_segments)
    return sides[0::2].astype(np.intp)


def partition_segment(order: np.ndarray, start: int, count: int, go_left: np.ndarray) -> int:
    """Put the left rows of one segment of ``order`` first, each side in its old order.

    ``go_left`` tells, for each row of ``order[start : start + count]``,
    whether it goes to the left child. Two ``np.compress`` calls (a third of
    the time of boolean indexing on large segments); returns the number of
    left rows. :func:`stable_partition` does the same for many segments at
    once.
    """
    segment = order[start : start + count]
    left = np.compress(go_left, segment)
    np.compress(~go_left, segment, out=order[start + left.size : start + count])
    order[start : start + left.size] = left
    return left.size


def _segment_sums(values: np.ndarray, order: np.ndarray, starts, counts) -> np.ndarray:
    """Sum of ``values`` over the rows of every segment of ``order``.

    One gather in the order of ``order`` and one cumulative sum: a segment's
    sum is a difference of two running totals.
    """
    running = np.concatenate([[0.0], np.cumsum(values[order])])
    return running[starts + counts] - running[starts]


@dataclass(eq=False)
class NodeRows:
    """The rows of one data set grouped by the node they are in: a row store.

    ``order`` is a permutation of the rows in which the rows of every node
    of the frontier (the level being grown) are contiguous: node ``q`` is
    the segment ``order[starts[q] : starts[q] + counts[q]]``. A grower
    (:meth:`DepthwiseGrower.grow_rows`) asks the store for histograms of
    frontier nodes and tells it how the frontier splits; the store knows
    its rows and nothing of the split search. The same store runs on every
    partition of a distributed data set, whose histograms add up
    (:mod:`mltrees.dask`): everything it holds is a function of its rows,
    their statistics and the splits so far.

    Parameters
    ----------
    data : BinnedData
    g, h : ndarray of float, shape (n_rows,)
    count : ndarray of float, shape (n_rows,), optional
        With ``variance``: the third statistic (1 for rows in the sample).
    variance : bool
        Statistics for CART's variance rule ``(w r, w, count)`` instead of ``(g, h)``.
    features : ndarray of intp, optional
        The features histograms are built for (all if None).
    executor : ThreadPoolExecutor, optional
    """

    data: BinnedData
    g: np.ndarray
    h: np.ndarray
    count: np.ndarray | None = None
    variance: bool = False
    features: np.ndarray | None = None
    executor: ThreadPoolExecutor | None = None

    def __post_init__(self):
        n = self.data.n_rows
        g = np.asarray(self.g, dtype=np.float64)
        h = np.asarray(self.h, dtype=np.float64)
        self.statistics = (g, h)
        self._squares_of_row = None
        same_h = False
        if self.variance:
            count = np.ones(n) if self.count is None else np.asarray(self.count, dtype=np.float64)
            self.statistics = (g, h, count)
            with np.errstate(divide="ignore", invalid="ignore"):
                self._squares_of_row = np.where(h > 0, g * g / h, 0.0)  # w r² = (w r)² / w
            # Unit weights (h equal to the row counts): two sums per bin, not three.
            same_h = bool(np.array_equal(h, count))
        self._same_h = same_h
        self._summed = (g, self.statistics[2]) if same_h else self.statistics
        if same_h and bool(np.all(self.statistics[2] == 1.0)):
            self._summed = (g, None)  # every row counts once: a bincount without weights
        if self.features is None:
            self.features = np.arange(self.data.n_features)
        self.order = np.arange(n, dtype=np.intp)
        self.starts = np.zeros(1, dtype=np.intp)
        self.counts = np.array([n], dtype=np.intp)
        self._leaves = []  # (start, count, id) of the leaves: they tile 0 .. n - 1

    @property
    def n_rows(self) -> int:
        """Number of rows."""
        return self.data.n_rows

    def totals(self) -> np.ndarray:
        """Sums of the statistics over all rows, shape (1, n_statistics)."""
        return np.array([[s.sum() for s in self.statistics]])

    def squares(self) -> np.ndarray:
        """Σ w r² of every frontier node (CART's variance rule)."""
        return _segment_sums(self._squares_of_row, self.order, self.starts, self.counts)

    def histograms(self, nodes: np.ndarray | None = None) -> np.ndarray:
        """Histograms of the frontier ``nodes`` (all if None), shape (q, features, stride, s)."""
        segments = ()
        if nodes is not None:
            segments = (self.order, self.starts[nodes], self.counts[nodes])
        built = build_histograms(
            self.data.codes,
            self.data.stride,
            self._summed,
            *segments,
            executor=self.executor,
            features=self.features,
        )
        return built[..., [0, 1, 1]] if self._same_h else built

    def settle(self, ids: np.ndarray, keep: np.ndarray | None = None) -> None:
        """The frontier nodes (all, or those in ``keep``) become leaves with node ``ids``."""
        keep = np.arange(self.starts.size) if keep is None else keep
        self._leaves.append((self.starts[keep], self.counts[keep], ids[keep]))

    def split(self, ids, nodes, feature, split_bin, default_left, guess=None) -> np.ndarray:
        """Split the frontier ``nodes``; the others become leaves (node ``ids``).

        The new frontier is the (left, right) children of ``nodes``, in
        order. Returns the number of left rows of every split node.
        ``guess`` (whether each right child will be the smaller) is for
        stores that build histograms ahead; this one builds them when asked.
        """
        stays = np.ones(self.starts.size, dtype=bool)
        stays[nodes] = False
        self.settle(ids, np.flatnonzero(stays))
        starts, counts = self.starts[nodes], self.counts[nodes]
        n_left = self._partition(starts, counts, feature, split_bin, default_left)
        self.starts = np.column_stack([starts, starts + n_left]).reshape(-1)
        self.counts = np.column_stack([n_left, counts - n_left]).reshape(-1)
        return n_left

    def _partition(self, starts, counts, feature, split_bin, default_left):
        """Send every split node's rows to its children; returns the left counts.

        With few nodes of many rows, node by node on slices of ``order`` (a
        gather of one byte per row and two compressions); with many nodes, or
        few rows, all at once (:func:`stable_partition`), so that the loop
        never runs over many nodes, nor over nodes whose rows cost less than
        the loop's calls.
        """
        data, order = self.data, self.order
        if starts.size <= NODES_PER_LOOP and counts.sum() > ROWS_PER_LOOP:
            n_left = np.empty(starts.size, dtype=np.intp)
            for i, (start, count) in enumerate(zip(starts, counts, strict=True)):
                rows = order[start : start + count]
                code = data.codes[feature[i]].take(rows)
                go_left = code <= split_bin[i]  # a missing code is above every bin
                if default_left[i]:
                    go_left |= code == data.missing_code
                n_left[i] = partition_segment(order, start, count, go_left)
            return n_left
        positions, segment = segment_positions(starts, counts)
        rows = order[positions]
        code = data.codes.reshape(-1).take(feature[segment] * data.n_rows + rows)
        go_left = np.where(
            code == data.missing_code, default_left[segment], code <= split_bin[segment]
        )
        return stable_partition(order, starts, counts, go_left, positions, segment)

    def branch(self) -> NodeRows:
        """A copy to split on while this store stays as it is.

        Splitting changes the rows' order and the list of leaves in place:
        the copy has its own; the data and the statistics, only read, are
        shared. :mod:`mltrees.dask` advances a copy per task, so that a task
        run twice (a retry) starts from the same store.
        """
        new = copy.copy(self)
        new.order = self.order.copy()
        new._leaves = list(self._leaves)
        return new

    def leaf_of_row(self) -> np.ndarray:
        """The leaf (node id) of every row, once the tree is grown."""
        # The leaves' segments tile the positions: one pass gives every row its leaf.
        start, count, leaf = (np.concatenate(part) for part in zip(*self._leaves, strict=True))
        return leaf_of_segments(self.order, start, count, leaf, self.n_rows)


def leaf_of_segments(
    order: np.ndarray, start: np.ndarray, count: np.ndarray, leaf: np.ndarray, n_rows: int
) -> np.ndarray:
    """The leaf of every row, from leaves that are segments of ``order``.

    Leaf ``leaf[k]`` holds the rows ``order[start[k] : start[k] + count[k]]``,
    and the segments tile ``order``: sorted by start, one ``np.repeat`` gives
    every position its leaf. Rows outside ``order`` get no leaf (their
    entries are left uninitialised). Both the depth-wise and the leaf-wise
    growers keep every node's rows as such a segment.
    """
    start, count, leaf = np.asarray(start), np.asarray(count), np.asarray(leaf)
    by_start = np.argsort(start, kind="stable")
    leaf_of_row = np.empty(n_rows, dtype=np.intp)
    leaf_of_row[order] = np.repeat(leaf[by_start], count[by_start])
    return leaf_of_row


class GrowerBase:
    """What every grower of this package shares: its threads, their release, its timings.

    A grower (a dataclass) has the fields ``n_threads`` and ``timings`` (a
    dict of seconds per stage, which the boosting loop reads).
    :meth:`_start_threads` gives it a pool of ``n_threads`` threads (none
    for one); :meth:`close` stops them, and is the contract's ``close()``
    (see :mod:`mltrees.hist`). A grower holds threads and is not picklable.
    """

    _executor: ThreadPoolExecutor | None = None

    def _start_threads(self) -> None:
        self._executor = ThreadPoolExecutor(self.n_threads) if self.n_threads > 1 else None

    def close(self):
        """Stop the grower's threads."""
        if self._executor is not None:
            self._executor.shutdown()
            self._executor = None

    def __getstate__(self):  # pragma: no cover - growers are not meant to be pickled
        raise TypeError("a grower holds threads and is not picklable")

    def _tick(self, stage: str, since: float) -> float:
        """Add the time since ``since`` to ``timings[stage]``; return the time now."""
        now = time.perf_counter()
        self.timings[stage] = self.timings.get(stage, 0.0) + now - since
        return now


@dataclass
class DepthwiseGrower(GrowerBase):
    """XGBoost's depth-wise growth on binned data.

    Parameters
    ----------
    data : BinnedData
    params : SplitParams
    max_depth : int
    learning_rate : float
        η, multiplied into the leaf values (shrinkage).
    colsample_bylevel, colsample_bynode : float
        Shares of the tree's features each level, then each node, may use.
    rng : numpy.random.Generator
    n_threads : int
    local_proposals : int or None
        If set, every node may cut only at this many hessian-weighted
        quantiles of its own rows (Algorithm 2 with local proposals).
    """

    data: BinnedData
    params: SplitParams
    max_depth: int = 6
    learning_rate: float = 0.3
    colsample_bylevel: float = 1.0
    colsample_bynode: float = 1.0
    rng: np.random.Generator = field(default_factory=np.random.default_rng)
    n_threads: int = 1
    local_proposals: int | None = None
    timings: dict = field(default_factory=dict)  # seconds per stage, summed over trees

    def __post_init__(self):
        self._start_threads()

    def _eta(self) -> float:
        return float(np.float32(self.learning_rate)) if self.params.float32 else self.learning_rate

    def _scaled(self, w: np.ndarray) -> np.ndarray:
        return np.asarray(
            self.params.round(self.params.round(w) * self.params.round(self._eta())),
            dtype=np.float64,
        )

    def _sample(self, allowed: np.ndarray, share: float) -> np.ndarray:
        return draw_features(self.rng, allowed, share)

    def _feature_mask(self, n_nodes: int, tree_features: np.ndarray) -> np.ndarray | None:
        n_features = self.data.n_features
        if (
            tree_features.size == n_features
            and self.colsample_bylevel >= 1.0
            and self.colsample_bynode >= 1.0
        ):
            return None
        level = self._sample(tree_features, self.colsample_bylevel)
        mask = np.zeros((n_nodes, n_features), dtype=bool)
        for node in range(n_nodes):  # one draw per node, as XGBoost's column sampler
            mask[node, self._sample(level, self.colsample_bynode)] = True
        return mask

    def grow(
        self,
        g: np.ndarray,
        h: np.ndarray,
        features: np.ndarray | None = None,
        count: np.ndarray | None = None,
    ) -> GrownTree:
        """Grow one tree on gradients ``g`` and hessians ``h`` of every row.

        Rows left out of a subsample take part with ``g = h = 0`` (and
        ``count = 0``): they change no sum, and still get a leaf in
        ``leaf_of_row``. With a :class:`~mltrees.hist.xgboost.splitting.VarianceRule`
        (gradient boosting's CART trees) ``g = w r``, ``h = w`` and ``count``
        (1 for rows in the tree's sample) is a third statistic.
        """
        rows = NodeRows(
            self.data,
            g,
            h,
            count=count,
            variance=self.params.needs_squares,
            features=features,
            executor=self._executor,
        )
        return self.grow_rows(rows, features)

    def grow_rows(self, rows, features: np.ndarray | None = None) -> GrownTree:
        """Grow one tree on the rows of a row store, level by level.

        ``rows`` holds the rows' statistics grouped by node (a
        :class:`NodeRows` on one machine; :mod:`mltrees.dask` sums the
        stores of many partitions). The grower only sees what a split needs:
        the histograms of a level, the totals of the root and the row counts
        of the children.
        """
        params = self.params  # the split rule: SplitParams (XGBoost) or VarianceRule (CART)
        variance = params.needs_squares
        tree_features = (
            np.arange(self.data.n_features) if features is None else np.asarray(features)
        )
        n_bins = self.data.n_bins
        clock = time.perf_counter()
        hist = rows.histograms()
        clock = self._tick("histograms", clock)
        totals = rows.totals()
        counts = np.array([rows.n_rows], dtype=np.intp)
        parents = np.array([-1], dtype=np.intp)
        levels = []  # per level: its nodes' sums and, for the split ones, their splits
        next_id = 1
        for depth in range(self.max_depth + 1):
            n_nodes = counts.size
            ids = next_id - n_nodes + np.arange(n_nodes)
            squares = rows.squares() if variance else None
            split = np.zeros(n_nodes, dtype=bool)
            if depth < self.max_depth:
                mask = self._feature_mask(n_nodes, tree_features)
                cuts = None
                if self.local_proposals is not None:
                    cuts = local_proposals(hist, self.local_proposals)
                best, split = params.choose(hist, totals, squares, n_bins, mask, cuts)
                clock = self._tick("splits", clock)
            s = np.flatnonzero(split)
            level = _Level(parents, totals, counts, squares, s)
            levels.append(level)
            if s.size == 0:
                rows.settle(ids)
                break
            level.take_splits(best)
            next_id += 2 * s.size

            # The nodes that stay leaves leave the frontier; the split ones
            # are replaced by their (left, right) children, in order.
            # Which child has fewer rows, guessed from the hessian sums (exact
            # for unit hessians): a distributed store builds those histograms
            # in the same round trip as the partition.
            guess = level.right[:, 1] < level.left[:, 1]
            n_left = rows.split(ids, s, level.feature, level.split_bin, level.default_left, guess)
            n_right = counts[s] - n_left
            clock = self._tick("partition", clock)
            child_counts = np.column_stack([n_left, n_right]).reshape(-1)
            child_totals = np.stack([level.left, level.right], axis=1).reshape(-1, totals.shape[1])
            # Build the smaller child of each pair; the larger is parent - smaller.
            small_is_right = n_right < n_left
            built = rows.histograms(2 * np.arange(s.size) + small_is_right)
            hist = children_histograms(hist[s], built, small_is_right)
            clock = self._tick("histograms", clock)
            totals = child_totals
            counts = child_counts
            parents = np.repeat(ids[s], 2)
        grown = self._assemble(levels, rows.leaf_of_row())
        self._tick("partition", clock)  # the leaves' rows and the tree's arrays
        return grown

    def _assemble(self, levels, leaf_of_row) -> GrownTree:
        """The grown tree's arrays, from its levels (nodes numbered level by level)."""

        def cat(key):
            return np.concatenate([getattr(level, key) for level in levels])

        sizes = np.array([level.counts.size for level in levels])
        first_id = np.cumsum(sizes) - sizes
        n_nodes = int(sizes.sum())
        totals = cat("totals")
        G, H = totals[:, 0], totals[:, 1]
        squares = cat("squares") if self.params.needs_squares else np.zeros(n_nodes)
        depth = np.repeat(np.arange(len(levels)), sizes)
        split_levels = [k for k, level in enumerate(levels) if level.split.size]
        internal = np.concatenate(
            [first_id[k] + levels[k].split for k in split_levels] + [np.zeros(0, np.intp)]
        )

        def at_internal(key, fill, dtype):
            values = np.full(n_nodes, fill, dtype=dtype)
            if split_levels:
                values[internal] = np.concatenate([getattr(levels[k], key) for k in split_levels])
            return values

        feature = at_internal("feature", LEAF, np.intp)
        split_bin = at_internal("split_bin", -2, np.intp)
        default_left = at_internal("default_left", False, bool)
        gain = at_internal("gain", 0.0, np.float64)
        first_child = np.zeros(n_nodes, dtype=np.intp)
        first_child[internal] = 1 + 2 * np.arange(internal.size)  # children follow in order
        split_value, threshold = self.data.split_thresholds(feature[internal], split_bin[internal])
        split_value = _at(internal, split_value, n_nodes, np.float32)
        threshold = _at(internal, threshold, n_nodes, np.float64)
        weight = np.asarray(self.params.node_weights(totals, squares), dtype=np.float64)
        impurity = self.params.impurity(G, H, squares)
        is_internal = feature != LEAF
        missing_slot = np.where(is_internal, np.where(default_left, 0, 1), MISSING_NONE)
        tree = binary_tree(
            feature=feature,
            threshold=threshold,
            first_child=first_child,
            value=self._scaled(weight).reshape(-1, 1),
            impurity=impurity,
            n_node_samples=cat("counts"),
            weighted_n_node_samples=H,
            depth=depth,
            parent=cat("parents"),
            missing_slot=missing_slot.astype(np.int8),
        )
        return GrownTree(
            tree=tree,
            leaf_of_row=leaf_of_row,
            split_value=split_value,
            gain=gain,
            weight=weight,
        )


def _at(index: np.ndarray, values: np.ndarray, size: int, dtype) -> np.ndarray:
    """An array of ``size`` NaNs holding ``values`` at ``index``."""
    out = np.full(size, np.nan, dtype=dtype)
    out[index] = values
    return out


@dataclass(eq=False)
class _Level:
    """One level of a tree being grown: its nodes and the splits of those that split.

    ``parents``, ``totals`` (the sums ``(G, 𝓗, ...)`` of each node), ``counts``
    and ``squares`` (or None) cover every node of the level; ``split`` lists
    the nodes that split, and the other fields hold their splits, in that order.
    """

    parents: np.ndarray
    totals: np.ndarray
    counts: np.ndarray
    squares: np.ndarray | None
    split: np.ndarray
    feature: np.ndarray | None = None
    split_bin: np.ndarray | None = None
    default_left: np.ndarray | None = None
    gain: np.ndarray | None = None
    left: np.ndarray | None = None
    right: np.ndarray | None = None

    def take_splits(self, best) -> None:
        """Keep the splits of the split nodes from the level's best splits."""
        s = self.split
        self.feature, self.split_bin = best.feature[s], best.split_bin[s]
        self.default_left, self.gain = best.default_left[s], best.gain[s]
        self.left, self.right = best.left[s], best.right[s]
