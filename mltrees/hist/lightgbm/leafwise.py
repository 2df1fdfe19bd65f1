"""Leaf-wise (best-first) growth on gradient histograms: LightGBM's policy (chapter 14).

A depth-wise grower (:class:`~mltrees.hist.grower.DepthwiseGrower`) splits
every node of a level. :class:`LeafwiseGrower` keeps the best split of every
current leaf and always splits the leaf whose split gains most, until the
tree has ``num_leaves`` leaves or no split gains anything (Shi 2007; Ke et
al. 2017). With the same number of leaves it reaches lower training loss,
and it needs ``max_depth`` or ``min_child_samples`` to stay out of long thin
branches.

LightGBM's bookkeeping, which decides the order and so the tree:

* a split leaf keeps its id for its left child; the right child gets the
  next id. The leaf to split is the one of largest gain, ties going to the
  lower feature, then to the lower leaf id;
* only the child with fewer rows gets a histogram built from its rows; the
  other is the parent's minus it (the subtraction trick);
* a leaf at ``max_depth`` is not split, nor are two children that both
  hold fewer than ``2 min_child_samples`` rows;
* a feature without a valid cut in a leaf is not tried in its descendants.

Every leaf's rows are a contiguous segment of ``order``, so splitting one
is a partition of its segment, and the tree comes back with the leaf of
every row, as from the depth-wise grower (the same ``grow`` / ``close``
contract). ``grow_many`` grows a multiclass round's trees in lock-step, so
that one split search serves the new leaves of every class: on small data a
split costs mostly the fixed cost of its NumPy calls, not their arithmetic.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from dataclasses import replace as dataclass_replace

import numpy as np

from mltrees.hist.binning import BinnedData
from mltrees.hist.candidates import SplitCandidates
from mltrees.hist.grower import (
    GrowerBase,
    GrownTree,
    binary_tree,
    leaf_of_segments,
    partition_segment,
)
from mltrees.hist.histogram import children_histograms, leaf_histogram
from mltrees.hist.lightgbm.bundling import (
    bundle_codes,
    bundled_stride,
    find_bundles,
    most_frequent_bins,
    unbundle_map,
)
from mltrees.hist.lightgbm.categorical import CategoricalParams, find_categorical_splits
from mltrees.hist.lightgbm.splitting import (
    EPSILON,
    LeafwiseParams,
    find_leaf_splits,
    leaf_gain,
    leaf_output,
)
from mltrees.tree._tree import CATEGORICAL_NODE, LEAF, NUMERIC_NODE

__all__ = ["LeafwiseGrower", "route_binned"]

NARROW_BINS = 16  # features with at most this many bins are scanned in their own block
# ... unless padding them to the wide features' bins adds at most this many
# cells to a scan: a scan of a few thousand cells costs about one more scan's
# fixed cost (some thirty NumPy passes), so small data is scanned in one block.
PADDING_CELLS = 4096


def route_binned(tree_arrays: dict, data: BinnedData, rows: np.ndarray) -> np.ndarray:
    """The node each of ``rows`` reaches, walking the bin codes (a loop over depth only)."""
    feature, split_bin = tree_arrays["feature"], tree_arrays["split_bin"]
    default_left, first_child = tree_arrays["default_left"], tree_arrays["first_child"]
    left_table = tree_arrays.get("left_table")  # (n_nodes, stride): categorical left sets
    node = np.zeros(rows.size, dtype=np.intp)
    walking = np.flatnonzero(feature[node] != LEAF)
    stride = data.n_rows
    flat = data.codes.reshape(-1)
    while walking.size:
        at = node.take(walking)
        code = flat.take(feature.take(at) * stride + rows.take(walking)).astype(np.intp)
        left = np.where(code == data.missing_code, default_left[at], code <= split_bin.take(at))
        if left_table is not None:
            categorical = split_bin[at] < 0
            left = np.where(categorical, left_table[at, np.minimum(code, data.stride - 1)], left)
        reached = first_child.take(at) + ~left
        node[walking] = reached
        walking = np.compress(feature.take(reached) != LEAF, walking)  # faster than a mask
    return node


@dataclass
class LeafwiseGrower(GrowerBase):
    """LightGBM's leaf-wise growth on binned data.

    Parameters
    ----------
    data : BinnedData
        Bin codes; ``data.edges[j][b]`` is the upper bound of bin ``b``.
    has_missing : ndarray of bool
        Features with a missing bin.
    most_frequent_bin : ndarray of int, optional
        LightGBM's most frequent bin of each feature. When it is bin 0,
        LightGBM keeps no entry for it (which changes its estimated counts,
        see :func:`~mltrees.hist.lightgbm.splitting.find_leaf_splits`);
        otherwise a built histogram's entry for it is recomputed as the
        node's total minus the other bins, as LightGBM's ``FixHistogram``.
    params : LeafwiseParams
    num_leaves : int
        At most this many leaves per tree.
    max_depth : int
        Leaves at this depth are not split (<= 0: no limit).
    learning_rate : float
        Multiplied into the leaf values (shrinkage).
    n_threads : int
    bundle : bool
        Exclusive feature bundling (:mod:`~mltrees.hist.lightgbm.bundling`).
    max_conflict_rate : float
        Rows on which bundled features may conflict, as a share (the
        paper's bundling, :func:`~mltrees.hist.lightgbm.bundling.find_bundles`).
    bundles : list of ndarray of int, optional
        The bundles to use, a partition of the features (LightGBM's, from
        :func:`~mltrees.hist.lightgbm.binning.lightgbm_feature_bundles`);
        ``max_conflict_rate`` is then not used.
    usable : ndarray of bool, optional
        The features that may be split; the others are never tried
        (LightGBM drops them from the data set).
    categorical : ndarray of bool, optional
        Categorical features: their codes are category bins (bin 0: missing
        and rare), split by :func:`~mltrees.hist.lightgbm.categorical.find_categorical_splits`.
    categorical_params : CategoricalParams
    """

    data: BinnedData
    has_missing: np.ndarray
    params: LeafwiseParams
    most_frequent_bin: np.ndarray | None = None
    num_leaves: int = 31
    max_depth: int = -1
    learning_rate: float = 0.1
    n_threads: int = 1
    bundle: bool = False
    max_conflict_rate: float = 0.0
    bundles: list | None = None
    usable: np.ndarray | None = None
    categorical: np.ndarray | None = None
    categorical_params: CategoricalParams = field(default_factory=CategoricalParams)
    timings: dict = field(default_factory=dict)

    def __post_init__(self):
        self._start_threads()
        self._bundles = None
        if self.bundle:
            self._bundle()
        self._fixed = None
        if self.most_frequent_bin is not None:
            self._fixed = np.flatnonzero(self.most_frequent_bin > 0)
        # The histograms' codes again, row by row: gathering a leaf's rows
        # then reads each row's codes together (leaf_histogram).
        codes = self.data.codes if self._bundles is None else self._bundles["codes"]
        self._row_major = np.ascontiguousarray(codes.T)
        self._n_bins = self.data.n_bins
        self._all_wide = bool(self._n_bins.min(initial=NARROW_BINS + 1) > NARROW_BINS)
        self._full_shape = (self.data.n_features, 2, self.data.stride)
        self._cells = self._histogram_cells()
        self._plans = {}  # scans of a set of features: what they read (_plan)

    def _histogram_cells(self) -> np.ndarray | None:
        """Flat positions of the cells a row can fill in a ``(feature, statistic, bin)`` histogram.

        A feature's codes are its bins ``0 .. n_bins - 1`` and the missing
        bin ``stride - 1``; the other cells of its row stay 0 in every
        histogram. Leaves that wait to be split keep only these cells
        (:meth:`_pack`): one-hot columns have two bins in a stride of 256,
        and 255 waiting leaves of 400 such columns held 420 MB in full.
        None when packing would save less than half.
        """
        stride = self.data.stride
        fills = np.arange(stride) < self._n_bins[:, None]
        fills[:, stride - 1] = True
        if 2 * np.count_nonzero(fills) > fills.size:
            return None
        return np.flatnonzero(np.repeat(fills[:, None, :], 2, axis=1))

    def _pack(self, hist: np.ndarray) -> np.ndarray:
        """A leaf's histogram as kept while the leaf waits: its fillable cells only."""
        return hist if self._cells is None else hist.reshape(-1).take(self._cells)

    def _unpack(self, kept: np.ndarray) -> np.ndarray:
        """The full histogram of a kept one (the same numbers, zeros elsewhere)."""
        if self._cells is None:
            return kept
        hist = np.zeros(self._full_shape)
        hist.reshape(-1)[self._cells] = kept
        return hist

    def _bundle(self):
        """Exclusive feature bundling: histograms on fewer columns, read back per feature.

        Only bundles of two or more features change anything; without any,
        the grower reads the original codes.
        """
        data = self.data
        # A merged feature's default bin is read as the node's total minus its
        # other bins: with LightGBM's most frequent bin as the default, that is
        # the one bin LightGBM itself fills that way (FixHistogram), or bin 0
        # that it never reads, so bundling changes no sum.
        if self.most_frequent_bin is not None:
            default = np.asarray(self.most_frequent_bin, dtype=np.intp)
        else:
            default = most_frequent_bins(data.codes, data.stride)
        if self.bundles is not None:
            bundles = [np.asarray(b, dtype=np.intp) for b in self.bundles]
        else:
            bundles = find_bundles(
                data.codes,
                default,
                self.max_conflict_rate,
                data.n_bins,
                data.stride,
                order="lightgbm",
            )
        if all(b.size == 1 for b in bundles):
            return
        codes, offsets = bundle_codes(data.codes, bundles, default, data.n_bins, data.stride)
        of_feature = np.empty(data.n_features, dtype=np.intp)
        for k, members in enumerate(bundles):
            of_feature[members] = k
        bundle_of, source, merged = unbundle_map(
            bundles, offsets, default, data.n_bins, data.stride
        )
        seen = None
        if any(
            b.size > 1 and ((data.codes[b] != default[b, None]).sum(axis=0) > 1).any()
            for b in bundles
        ):
            # In a conflicting row the bundle keeps one feature's value and the
            # others read their default bin there. Rows must be partitioned by
            # these codes, the ones the histograms saw (as LightGBM does), or a
            # child's histogram, got by subtraction, no longer sums its own rows.
            seen = data.codes.copy()
            width = int(bundled_stride(offsets))
            for f in np.flatnonzero(merged):  # over features, never rows
                inverse = np.full(width, default[f], dtype=data.codes.dtype)
                slots = source[f] >= 0
                inverse[source[f][slots]] = np.flatnonzero(slots)
                seen[f] = inverse[codes[bundle_of[f]]]
        # The unbundling map as flat lists: slot i of the features' histograms,
        # (slot_feature[i], slot_bin[i]), reads bundle bin slot_from[i]; the
        # slots of each merged feature, in bin order, are a column of
        # merged_slots (padded with the index of an extra zero).
        stride = bundled_stride(offsets)
        slot_feature, slot_bin = np.nonzero(source >= 0)
        slot_from = bundle_of[slot_feature] * stride + source[slot_feature, slot_bin]
        fix = np.flatnonzero(merged)
        n_slots = np.bincount(slot_feature, minlength=data.n_features)
        first = np.cumsum(n_slots) - n_slots
        column = np.full(data.n_features, -1, dtype=np.intp)
        column[fix] = np.arange(fix.size)
        rank = np.arange(slot_feature.size) - first[slot_feature]
        mine = column[slot_feature] >= 0
        merged_slots = np.full((int(n_slots[fix].max(initial=0)), fix.size), slot_feature.size)
        merged_slots[rank[mine], column[slot_feature[mine]]] = np.flatnonzero(mine)
        self._bundles = {
            "seen": seen,
            "slot_feature": slot_feature,
            "slot_bin": slot_bin,
            "slot_from": slot_from,
            "merged_slots": merged_slots,
            "codes": codes,
            "bundles": bundles,
            "default": default,
            "stride": bundled_stride(offsets),
            "of_feature": of_feature,
            "bundle_of": bundle_of,
            "source": source,
            "merged": np.flatnonzero(merged),
        }

    @property
    def _partition_codes(self) -> np.ndarray:
        """The codes rows are partitioned by: the bundles' view when they conflict."""
        if self._bundles is None or self._bundles["seen"] is None:
            return self.data.codes
        return self._bundles["seen"]

    @property
    def n_columns(self) -> int:
        """Columns the histograms are built on: those holding a feature that may be split.

        A bundle counts once; a feature outside any bundle counts alone. The
        features ``usable`` leaves out (LightGBM drops them from its data
        set) get no histogram, so a column of only such features is not
        counted.
        """
        usable = np.ones(self.data.n_features, dtype=bool) if self.usable is None else self.usable
        if self._bundles is None:
            return int(np.count_nonzero(usable))
        return int(np.unique(self._bundles["of_feature"][usable]).size)

    def _histogram(self, rows, statistics, features, totals):
        """The (G, 𝓗) histogram of ``rows`` (None: all rows, in order).

        Laid out ``(feature, statistic, bin)``.
        """
        return self._fix_most_frequent(self._build(rows, statistics, features), totals)

    def _fix_most_frequent(self, hist, totals):
        """LightGBM's ``FixHistogram`` on a built histogram of a node with sums ``totals``."""
        fixed = self._fixed
        if fixed is not None and fixed.size:
            # LightGBM's FixHistogram: the most frequent bin is the total minus
            # the other bins, subtracted one by one in bin order.
            # (subtract.reduce runs one subtraction after the other, in order)
            bins = self.most_frequent_bin[fixed]
            steps = np.empty((fixed.size, hist.shape[1], hist.shape[2] + 1))
            steps[:, :, 0] = totals
            steps[:, :, 1:] = hist if fixed.size == hist.shape[0] else hist[fixed]
            steps[np.arange(fixed.size), :, bins + 1] = 0.0  # x - 0.0 is x
            hist[fixed, :, bins] = np.subtract.reduce(steps, axis=2)
        return hist

    def _build(self, rows, statistics, features):
        b = self._bundles
        if b is None:
            built = leaf_histogram(
                self.data.codes,
                self.data.stride,
                rows,
                statistics,
                features,
                executor=self._executor,
                n_tasks=self.n_threads,
                row_major=self._row_major,
            )
            return built.transpose(0, 2, 1)  # its memory: (feature, statistic, bin)
        columns = np.unique(b["of_feature"][features])
        built = leaf_histogram(
            b["codes"],
            b["stride"],
            rows,
            statistics,
            columns,
            self._executor,
            self.n_threads,
            row_major=self._row_major,
        )
        # Each feature's bins are read from its bundle's (unbundle_histogram,
        # with the map computed once); a merged feature's default bin is the
        # node's total minus its other bins. Every row falls in one bin of
        # every bundle, so any built bundle sums to the node's total.
        totals = built[columns[0]].sum(axis=0)
        by_bundle = built.transpose(2, 0, 1).reshape(2, -1)
        values = np.zeros((2, b["slot_from"].size + 1))
        values[:, :-1] = by_bundle[:, b["slot_from"]]
        hist = np.zeros((self.data.n_features, 2, self.data.stride))
        hist[b["slot_feature"], :, b["slot_bin"]] = values[:, :-1].T
        # Summed over each merged feature's slots in bin order, one slot
        # after the other (the reduction runs along the outer axis).
        others = values[:, b["merged_slots"]].sum(axis=1)
        fix = b["merged"]
        hist[fix, :, b["default"][fix]] = totals - others.T
        return hist

    def grow(
        self,
        g: np.ndarray,
        h: np.ndarray,
        features: np.ndarray | None = None,
        rows: np.ndarray | None = None,
    ) -> GrownTree:
        """Grow one tree on gradients ``g`` and hessians ``h``.

        ``rows`` (sorted) are the rows in this tree's sample (bagging, GOSS);
        the others get their leaf by walking the grown tree.
        """
        return self.grow_many([(g, h, features, rows)])[0]

    def grow_many(self, jobs: list) -> list[GrownTree]:
        """Grow several independent trees in lock-step: one tree per ``(g, h, features, rows)``.

        A multiclass round grows one tree per class from the same rows; each
        tree splits one leaf at a time, as :meth:`grow`, but the split search
        of the new leaves of every tree runs as one scan (:meth:`_best` on all
        their histograms at once), so a round of ``K`` classes pays the fixed
        cost of a scan once per step instead of ``K`` times. A leaf's best
        split does not depend on the other leaves scanned with it, so every
        tree is the one :meth:`grow` would grow alone.
        """
        growths = [self._growth(*job) for job in jobs]
        grown: list = [None] * len(growths)
        pending = {}  # tree -> its leaves waiting for their best splits
        for i in range(len(growths)):
            self._advance(growths, i, None, pending, grown)
        while pending:
            clock = time.perf_counter()
            trees = list(pending)
            requests = [pending.pop(i) for i in trees]
            if len(requests) == 1:
                found = [self._best(*requests[0], True)]
            else:
                together = self._best(
                    *(np.concatenate(parts) for parts in zip(*requests, strict=True)), True
                )
                ends = np.cumsum([len(request[1]) for request in requests]).tolist()
                found = _split_candidates(together, ends)
            self._tick("splits", clock)
            for i, result in zip(trees, found, strict=True):
                self._advance(growths, i, result, pending, grown)
        return grown

    @staticmethod
    def _advance(growths, i, result, pending, grown) -> None:
        """Resume tree ``i`` with its leaves' best splits; keep its next request or its tree."""
        try:
            pending[i] = growths[i].send(result)
        except StopIteration as done:
            grown[i] = done.value

    def _growth(self, g, h, features, rows):
        """The growth of one tree, as a generator (see :meth:`grow_many`).

        It yields the ``(hist, totals, counts, mask)`` of leaves whose best
        splits it needs, is sent their :class:`SplitCandidates`, and returns
        the :class:`~mltrees.hist.grower.GrownTree`.
        """
        data, params = self.data, self.params
        n = data.n_rows
        n_features = data.n_features
        g = np.asarray(g, dtype=np.float64)
        h = np.asarray(h, dtype=np.float64)
        order = np.arange(n, dtype=np.intp) if rows is None else np.array(rows, dtype=np.intp)
        m = order.size
        used = self._used_features(features)
        statistics = (g, h)
        min_rows = 2 * params.min_child_samples
        codes = self._partition_codes

        clock = time.perf_counter()
        # Per leaf id, besides the table of _Leaves: the start of its rows in ``order``.
        start = [0]
        # Summed in row order, as LightGBM does: pure leaves' gains are float
        # noise, and the order of the sums decides which noise wins.
        root_totals = np.array([np.cumsum(g[order])[-1], np.cumsum(h[order])[-1]])
        root_rows = None if rows is None else order
        root_hist = self._histogram(root_rows, statistics, np.flatnonzero(used), root_totals)
        packed = self._pack(root_hist)
        self._tick("histograms", clock)
        found = yield root_hist[None], root_totals[None], np.array([m]), used[None]
        clock = time.perf_counter()
        del root_hist
        # A leaf's best split stays a row of its scan's arrays, (found, i),
        # read out field by field only when the leaf is split.
        leaves = _Leaves(
            m, root_totals, packed, found.splittable[0], (found, 0), self.num_leaves, n_features
        )
        count, depth, node_of, totals, hist = leaves.tables()
        splittable, best, gain_of, feature_of = leaves.choices()
        if m >= min_rows:
            gain_of[0], feature_of[0] = _gain(found, 0), found.feature[0]

        nodes = _root_nodes(totals[0], m, params.reg_lambda)
        n_leaves = 1
        while n_leaves < self.num_leaves:
            leaf = _next_leaf(gain_of, feature_of)
            if leaf is None:
                break
            split = _one(*best[leaf])
            f, b, dl = split.feature, split.split_bin, split.default_left
            s, c = start[leaf], count[leaf]
            segment = order[s : s + c]
            code = codes[f].take(segment)
            if b < 0:  # a categorical split: its set of bins goes left
                go_left = split.left_bins[code]
            else:
                go_left = code <= b
                if dl:
                    go_left |= code == data.missing_code
            n_left = int(np.count_nonzero(go_left))
            if n_left == 0 or n_left == c:
                # Only estimated counts and hessians guard a child, and with
                # min_child_weight = 0 a cut can leave one side empty, its gain
                # float noise (lightgbm stops there on its check left_count > 0).
                # An empty leaf would hold a value of noise: the leaf is not split.
                gain_of[leaf] = -np.inf
                best[leaf] = None
                continue
            n_leaves += 1
            partition_segment(order, s, c, go_left)
            clock = self._tick("partition", clock)

            child_depth = depth[leaf] + 1
            first = _split_node(nodes, node_of[leaf], split, n_left, c - n_left, child_depth)
            right, parent_hist = leaves.split(leaf, split, n_left, c - n_left, child_depth, first)
            start.append(s + n_left)  # the left child keeps the parent's start

            stop = (self.max_depth > 0 and child_depth >= self.max_depth) or (
                n_left < min_rows and c - n_left < min_rows
            )
            if stop:  # neither child will be split: no histograms needed
                for q in (leaf, right):
                    best[q] = None
                    hist[q] = None
                continue
            # Build the child with fewer rows; the other is the parent minus it.
            usable = splittable[leaf] & used
            small = leaf if n_left < c - n_left else right
            parent_hist = self._unpack(parent_hist)  # only when the children need it
            built = self._histogram(
                order[start[small] : start[small] + count[small]],
                statistics,
                np.flatnonzero(usable),
                totals[small],
            )
            pair = children_histograms(parent_hist[None], built[None], np.array([small == right]))
            hist[leaf], hist[right] = self._pack(pair[0]), self._pack(pair[1])
            self._tick("histograms", clock)
            found = yield (
                pair,
                np.stack([totals[leaf], totals[right]]),
                np.array([n_left, c - n_left]),
                np.stack([usable, usable]),
            )
            clock = time.perf_counter()
            for i, q in enumerate((leaf, right)):
                splittable[q] = found.splittable[i] & usable
                best[q] = (found, i)
                gain_of[q], feature_of[q] = _gain(found, i), found.feature[i]
        grown = self._assemble(nodes, order, start, count, node_of, rows)
        self._tick("partition", clock)
        return grown

    def _used_features(self, features) -> np.ndarray:
        """Mask of the features a tree may split on: ``features`` (None: all) among the usable."""
        n_features = self.data.n_features
        used = np.zeros(n_features, dtype=bool)
        used[np.arange(n_features) if features is None else np.asarray(features)] = True
        if self.usable is not None:
            used &= self.usable
        return used

    def grow_rows(self, rows, features: np.ndarray | None = None) -> GrownTree:
        """Grow one tree on a row store whose rows may live elsewhere (all rows, no sample).

        The choices of :meth:`grow` (the leaf to split, its best split, the
        subtraction trick, the stopping rules) made from sums the store
        returns; ``rows`` (:class:`~mltrees.hist.lightgbm.rows.LeafwiseRows`
        describes one partition's answers, :mod:`mltrees.dask.lightgbm` sums
        them over a cluster's partitions) answers:

        * ``rows.n_rows``; ``rows.root(features)``: the ``(Σg, Σh)`` of all
          rows and their built histogram ``(feature, statistic, bin)``;
        * ``rows.split(leaf, right, feature, split_bin, default_left,
          left_bins, build)``: split leaf ``leaf`` (the right child becomes
          leaf ``right``); returns the rows sent left and, if ``build`` is
          ``(side, features)``, the built histogram of that child (0 left,
          1 right), in the same request: the smaller child is guessed from
          the hessian sums, and asked again by ``rows.histogram(leaf,
          features)`` when the counts show the guess wrong;
        * ``rows.undo()``: forget the last split (a side was empty);
        * ``rows.leaf_of_row(node_of)``: every row's node, in the store's form.

        The grower's data is a header (its edges and bins; no rows needed).
        Bundling, bagging and GOSS are not available here.
        """
        data, params = self.data, self.params
        if self._bundles is not None:
            raise ValueError("grow_rows grows without feature bundles (bundle=False)")
        n_features = data.n_features
        m = int(rows.n_rows)
        used = self._used_features(features)
        min_rows = 2 * params.min_child_samples
        root_totals, built = rows.root(np.flatnonzero(used))
        root_totals = np.asarray(root_totals, dtype=np.float64)
        root_hist = self._fix_most_frequent(built, root_totals)
        packed = self._pack(root_hist)
        found = self._best(root_hist[None], root_totals[None], np.array([m]), used[None], True)
        del root_hist
        leaves = _Leaves(
            m, root_totals, packed, found.splittable[0], _one(found, 0), self.num_leaves, n_features
        )
        count, depth, node_of, totals, hist = leaves.tables()
        splittable, best, gain_of, feature_of = leaves.choices()
        if m >= min_rows:
            gain_of[0], feature_of[0] = best[0].gain, best[0].feature
        nodes = _root_nodes(totals[0], m, params.reg_lambda)
        n_leaves = 1
        while n_leaves < self.num_leaves:
            leaf = _next_leaf(gain_of, feature_of)
            if leaf is None:
                break
            split = best[leaf]
            f, b, dl = split.feature, split.split_bin, split.default_left
            c = count[leaf]
            right = len(count)
            child_depth = depth[leaf] + 1
            deep = self.max_depth > 0 and child_depth >= self.max_depth
            usable = splittable[leaf] & used
            columns = np.flatnonzero(usable)
            # The smaller child by the hessian sums (the counts come with the answer).
            guess = int(not split.left[1] < split.right[1])
            n_left, built = rows.split(
                leaf,
                right,
                f,
                b,
                dl,
                split.left_bins if b < 0 else None,
                None if deep else (guess, columns),
            )
            n_left = int(n_left)
            if n_left == 0 or n_left == c:  # as grow: an empty side, the leaf is not split
                rows.undo()
                gain_of[leaf] = -np.inf
                best[leaf] = SplitCandidates(gain=-np.inf, feature=n_features)
                continue
            n_leaves += 1
            first = _split_node(nodes, node_of[leaf], split, n_left, c - n_left, child_depth)
            _, parent_hist = leaves.split(leaf, split, n_left, c - n_left, child_depth, first)
            if deep or (n_left < min_rows and c - n_left < min_rows):
                for q in (leaf, right):
                    best[q] = SplitCandidates(gain=-np.inf, feature=n_features)
                    hist[q] = None
                continue
            small = leaf if n_left < c - n_left else right
            if int(small == right) != guess:
                built = rows.histogram(small, columns)
            built = self._fix_most_frequent(built, totals[small])
            parent_hist = self._unpack(parent_hist)
            pair = children_histograms(parent_hist[None], built[None], np.array([small == right]))
            hist[leaf], hist[right] = self._pack(pair[0]), self._pack(pair[1])
            found = self._best(
                pair,
                np.stack([totals[leaf], totals[right]]),
                np.array([n_left, c - n_left]),
                np.stack([usable, usable]),
                True,
            )
            for i, q in enumerate((leaf, right)):
                splittable[q] = found.splittable[i] & usable
                best[q] = _one(found, i)
                gain_of[q], feature_of[q] = best[q].gain, best[q].feature
        no_rows = np.zeros(len(count), dtype=np.intp)
        grown = self._assemble(nodes, np.zeros(0, dtype=np.intp), no_rows, no_rows, node_of, None)
        grown.leaf_of_row = rows.leaf_of_row(np.asarray(node_of, dtype=np.intp))
        return grown

    def _best(self, hist, totals, counts, mask, allowed):
        """Best splits of the given leaves, scanning only features some leaf may use.

        ``hist`` is laid out ``(leaf, feature, statistic, bin)``, so that the
        scans run along contiguous bins; the split finders see it as
        ``(leaf, feature, bin, statistic)``.

        Deep leaves of wide data can use few features (the others had no
        valid cut above them), and few bins: the scan is cut down to those
        features and to their largest number of bins, plus the missing bin.
        Numeric and categorical features are scanned by their own rules; the
        larger gain wins, ties going to the lower feature, as in LightGBM.
        """
        data = self.data
        n_leaves = hist.shape[0]
        usable = mask.any(axis=0)
        columns = np.flatnonzero(usable)
        if (
            self.categorical is None
            and allowed
            and columns.size
            and (self._all_wide or self._one_block(columns, n_leaves))
        ):
            # One scan of numeric features (most data): its result as it is.
            found = self._scan_numeric(hist, totals, counts, mask, columns)
            feature = columns[found.feature]
            splittable = found.splittable
            if columns.size < data.n_features:
                splittable = np.zeros((n_leaves, data.n_features), dtype=bool)
                splittable[:, columns] = found.splittable
            return SplitCandidates(
                gain=found.gain,
                feature=np.where(np.isfinite(found.gain), feature, data.n_features),
                split_bin=found.split_bin,
                default_left=found.default_left,
                left=found.left,
                right=found.right,
                splittable=splittable,
                child_l2=np.full(n_leaves, self.params.reg_lambda),
                out_H=found.out_H,
            )
        categorical = (
            np.zeros(data.n_features, dtype=bool) if self.categorical is None else self.categorical
        )
        best = SplitCandidates(
            gain=np.full(n_leaves, -np.inf),
            feature=np.full(n_leaves, data.n_features, dtype=np.intp),
            split_bin=np.zeros(n_leaves, dtype=np.intp),
            default_left=np.zeros(n_leaves, dtype=bool),
            left=np.zeros((n_leaves, 2)),
            right=np.zeros((n_leaves, 2)),
            splittable=np.zeros((n_leaves, data.n_features), dtype=bool),
            left_bins=np.zeros((n_leaves, data.stride), dtype=bool),
            child_l2=np.full(n_leaves, self.params.reg_lambda),
            out_H=np.zeros((n_leaves, 2)),
        )
        numeric = np.flatnonzero(usable & ~categorical)
        # Features of few bins (one-hot columns, flags) are scanned apart from
        # the wide ones, so that they do not pay for 255 cuts each.
        narrow = self._n_bins[numeric] <= NARROW_BINS
        blocks = (numeric[narrow], numeric[~narrow])
        if self._one_block(numeric, n_leaves):
            blocks = (numeric,)
        for columns in blocks:
            if not columns.size:
                continue
            found = self._scan_numeric(hist, totals, counts, mask, columns)
            feature = columns[found.feature]
            take = np.isfinite(found.gain) & (
                (found.gain > best.gain) | ((found.gain == best.gain) & (feature < best.feature))
            )
            best.gain = np.where(take, found.gain, best.gain)
            best.feature = np.where(take, feature, best.feature)
            best.split_bin = np.where(take, found.split_bin, best.split_bin)
            best.default_left = np.where(take, found.default_left, best.default_left)
            best.left = np.where(take[:, None], found.left, best.left)
            best.right = np.where(take[:, None], found.right, best.right)
            best.out_H = np.where(take[:, None], found.out_H, best.out_H)
            best.splittable[:, columns] = found.splittable
        columns = np.flatnonzero(usable & categorical)
        if columns.size:
            n_bins = self._n_bins[columns]
            width = int(n_bins.max())
            found = find_categorical_splits(
                hist[:, columns, :, :width].transpose(0, 1, 3, 2),
                totals,
                counts,
                n_bins,
                self.params,
                self.categorical_params,
                mask[:, columns],
            )
            best.splittable[:, columns] = found.splittable
            # Each feature's gain net of the shift (parent + min_split_gain), as
            # LightGBM compares them; the first best is the lowest feature.
            parent = leaf_gain(totals[:, 0], totals[:, 1] + 2 * EPSILON, self.params)
            net = found.gain - (parent + self.params.min_split_gain)[:, None]
            k = np.argmax(net, axis=1)
            leaf = np.arange(n_leaves)
            gain = net[leaf, k]
            feature = columns[k]
            take = np.isfinite(gain) & (
                (gain > best.gain) | ((gain == best.gain) & (feature < best.feature))
            )
            if take.any():
                sums = found.left_sums[leaf, k]
                left = np.column_stack([sums[:, 0], sums[:, 1] - EPSILON])
                right = np.column_stack(
                    [totals[:, 0] - sums[:, 0], totals[:, 1] + 2 * EPSILON - sums[:, 1] - EPSILON]
                )
                best.gain = np.where(take, gain, best.gain)
                best.feature = np.where(take, feature, best.feature)
                best.split_bin = np.where(take, -1, best.split_bin)
                best.default_left = np.where(take, False, best.default_left)
                best.left = np.where(take[:, None], left, best.left)
                best.right = np.where(take[:, None], right, best.right)
                out_H = np.column_stack([sums[:, 1], totals[:, 1] + 2 * EPSILON - sums[:, 1]])
                best.out_H = np.where(take[:, None], out_H, best.out_H)
                best.left_bins[take, :width] = found.left[leaf, k][take]
                best.child_l2 = np.where(take, found.l2[leaf, k], best.child_l2)
        if not allowed:
            best.gain[:] = -np.inf
        return best

    def _one_block(self, columns: np.ndarray, n_leaves: int) -> bool:
        """Whether the numeric features ``columns`` are scanned in one block, narrow ones padded.

        Every feature's gains are the same in either layout (padding bins are
        empty, and adding 0.0 changes no sum); only the cost differs.
        """
        return n_leaves * self._plan(columns).padding <= PADDING_CELLS

    def _plan(self, columns: np.ndarray) -> _ScanPlan:
        """What a scan of the numeric features ``columns`` reads, computed once per set of columns.

        A tree scans the same few sets of features over and over (all of
        them, mostly); on small data, working these out again at every split
        cost as much as a third of the scan.
        """
        key = columns.tobytes()
        plan = self._plans.get(key)
        if plan is None:
            data = self.data
            n_bins = self._n_bins[columns]
            width = int(n_bins.max(initial=0))
            narrow = n_bins <= NARROW_BINS
            padding = 0
            if narrow.any() and not narrow.all():
                padding = int(np.count_nonzero(narrow) * (width - n_bins[narrow].max()))
            first = None if self.most_frequent_bin is None else self.most_frequent_bin[columns] == 0
            plan = _ScanPlan(
                columns=None if columns.size == data.n_features else columns,
                n_bins=n_bins,
                bins=np.r_[0:width, data.stride - 1] if width + 1 < data.stride else None,
                has_missing=self.has_missing[columns],
                most_frequent_first=first,
                padding=padding,
            )
            self._plans[key] = plan
        return plan

    def _scan_numeric(self, hist, totals, counts, mask, columns):
        """:func:`find_leaf_splits` on the numeric features ``columns``, cut to their bins."""
        plan = self._plan(columns)
        sub = hist
        if plan.bins is not None:  # the value bins, then the missing bin
            sub = sub[..., plan.bins]
        if plan.columns is not None:
            sub = sub[:, plan.columns]
            mask = mask[:, plan.columns]
        return find_leaf_splits(
            sub.transpose(0, 1, 3, 2),
            totals,
            counts,
            plan.n_bins,
            plan.has_missing,
            self.params,
            mask,
            plan.most_frequent_first,
        )

    def _assemble(self, nodes, order, start, count, node_of, rows) -> GrownTree:
        data = self.data
        feature = np.array(nodes["feature"], dtype=np.intp)
        n_nodes = feature.size
        internal = feature != LEAF
        split_bin = np.array(nodes["split_bin"], dtype=np.intp)
        default_left = np.array(nodes["default_left"], dtype=bool)
        first_child = np.array(nodes["first_child"], dtype=np.intp)
        G = np.array(nodes["G"], dtype=np.float64)
        H = np.array(nodes["H"], dtype=np.float64)
        threshold = np.full(n_nodes, np.nan)
        missing_slot = np.full(n_nodes, -1, dtype=np.int8)
        kind = np.where(internal, NUMERIC_NODE, -1).astype(np.int8)
        n_categories = np.zeros(n_nodes, dtype=np.intp)
        route_offset = np.zeros(n_nodes, dtype=np.intp)
        routes = []
        left_table = None
        if nodes["left_bins"]:
            left_table = np.zeros((n_nodes, data.stride), dtype=bool)
        for node in np.flatnonzero(internal):  # per internal node, never per row
            j, b = int(feature[node]), int(split_bin[node])
            if b < 0:  # categorical: route bin codes, the left set to slot 0
                left_bins = nodes["left_bins"][node]
                left_table[node] = left_bins
                kind[node] = CATEGORICAL_NODE
                n_categories[node] = data.n_bins[j]
                route_offset[node] = sum(r.size for r in routes)
                routes.append(np.where(left_bins[: data.n_bins[j]], 0, 1))
                missing_slot[node] = 1
                continue
            edges = data.edges[j]
            threshold[node] = edges[b] if b < edges.size else np.inf
            if self.has_missing[j]:
                missing_slot[node] = 0 if default_left[node] else 1
            else:  # LightGBM reads a NaN as 0 for a feature without missing values
                missing_slot[node] = 0 if threshold[node] >= 0.0 else 1
        # A node's value takes the λ of the split that made it (λ + cat_l2
        # below a many-vs-many categorical split, as LightGBM).
        l2 = np.array(nodes["l2"], dtype=np.float64)
        # Values from the hessian sums LightGBM divides by (ε included).
        H_out = np.array(nodes["H_out"], dtype=np.float64)
        weight = leaf_output(G, H_out, self.params)
        other = l2 != self.params.reg_lambda
        if other.any():
            for value in np.unique(l2[other]):
                at = l2 == value
                weight[at] = leaf_output(
                    G[at], H_out[at], dataclass_replace(self.params, reg_lambda=float(value))
                )
        leaf_of_row = leaf_of_segments(order, start, count, node_of, data.n_rows)
        arrays = {
            "feature": feature,
            "split_bin": split_bin,
            "default_left": default_left,
            "first_child": first_child,
            "left_table": left_table,
        }
        if rows is not None and order.size < data.n_rows:
            outside = np.ones(data.n_rows, dtype=bool)
            outside[order] = False
            others = np.flatnonzero(outside)
            leaf_of_row[others] = route_binned(arrays, data, others)
        value = np.where(np.isfinite(weight), weight, 0.0) * self.learning_rate
        tree = binary_tree(
            feature=feature,
            kind=kind,
            threshold=threshold,
            first_child=first_child,
            route_offset=route_offset,
            route_table=np.concatenate(routes).astype(np.intp) if routes else None,
            n_categories=n_categories,
            value=value.reshape(-1, 1),
            impurity=_subtree_gain(nodes, H),
            n_node_samples=np.array(nodes["count"], dtype=np.intp),
            weighted_n_node_samples=H,
            depth=np.array(nodes["depth"], dtype=np.intp),
            parent=np.array(nodes["parent"], dtype=np.intp),
            missing_slot=missing_slot,
        )
        return GrownTree(
            tree=tree,
            leaf_of_row=leaf_of_row,
            split_value=np.full(n_nodes, np.nan, dtype=np.float32),
            gain=np.array(nodes["gain"], dtype=np.float64),
            weight=weight,
        )


@dataclass(frozen=True)
class _ScanPlan:
    """The features of a scan and what it reads of their histograms (:meth:`LeafwiseGrower._plan`).

    ``columns`` None: every feature. ``bins`` None: the whole stride; else
    the value bins of the widest feature, then the missing bin. ``padding``:
    the empty cells per leaf that padding the narrow features to the widest
    adds to a scan of all of them in one block.
    """

    columns: np.ndarray | None
    n_bins: np.ndarray
    bins: np.ndarray | None
    has_missing: np.ndarray
    most_frequent_first: np.ndarray | None
    padding: int


class _Leaves:
    """What the leaf-wise growth keeps per leaf id, and the split of a leaf in it.

    Per leaf id: row count, depth, node id, sums ``(G, H)``, packed
    histogram (feature, statistic, bin), usable features and best split;
    the gains and features of the best splits also as arrays, to pick the
    next leaf (:func:`_next_leaf`). :meth:`LeafwiseGrower.grow` and
    :meth:`LeafwiseGrower.grow_rows` read and write these lists in place.
    """

    def __init__(self, m, totals, hist, splittable, best, num_leaves: int, n_features: int):
        self.count, self.depth, self.node_of = [m], [0], [0]
        self.totals, self.hist = [totals], [hist]
        self.splittable, self.best = [splittable], [best]
        self.gain_of = np.full(num_leaves, -np.inf)
        self.feature_of = np.full(num_leaves, n_features, dtype=np.intp)
        self.n_features = n_features

    def tables(self) -> tuple:
        """``count, depth, node_of, totals, hist`` (the lists themselves)."""
        return self.count, self.depth, self.node_of, self.totals, self.hist

    def choices(self) -> tuple:
        """``splittable, best, gain_of, feature_of`` (the lists and arrays themselves)."""
        return self.splittable, self.best, self.gain_of, self.feature_of

    def split(self, leaf: int, split, n_left: int, n_right: int, depth: int, first: int):
        """Leaf ``leaf`` becomes the left child (node ``first``); the right child takes the next id.

        Neither child has a histogram or a best split yet. Returns the right
        child's leaf id and the parent's packed histogram.
        """
        right = len(self.count)
        self.count[leaf], self.depth[leaf], self.node_of[leaf] = n_left, depth, first
        self.count.append(n_right)
        self.depth.append(depth)
        self.node_of.append(first + 1)
        self.totals[leaf] = np.asarray(split.left, dtype=np.float64)
        self.totals.append(np.asarray(split.right, dtype=np.float64))
        parent_hist = self.hist[leaf]
        self.hist.append(None)
        self.splittable.append(None)
        self.best.append(None)
        self.gain_of[leaf] = self.gain_of[right] = -np.inf
        self.feature_of[leaf] = self.feature_of[right] = self.n_features
        return right, parent_hist


def _root_nodes(totals: np.ndarray, m: int, reg_lambda: float) -> dict:
    """The node table of a tree that is still one leaf: ``m`` rows, sums ``totals = (G, H)``.

    One list per field, node ids in the order the nodes are made (a split
    appends its two children, :func:`_split_node`); ``left_bins`` maps a
    categorical split's node to the set of bins it sends left.
    """
    return {
        "feature": [LEAF],
        "split_bin": [-1],
        "default_left": [False],
        "gain": [0.0],
        "G": [totals[0]],
        "H": [totals[1]],
        "H_out": [totals[1]],
        "count": [m],
        "depth": [0],
        "parent": [-1],
        "first_child": [0],
        "l2": [reg_lambda],
        "left_bins": {},
    }


def _split_node(nodes: dict, parent: int, split, n_left: int, n_right: int, depth: int) -> int:
    """Record ``split`` at leaf node ``parent`` and append its two children as leaves.

    Returns the left child's node id (the right child's is the next one).
    """
    first = len(nodes["feature"])
    nodes["feature"][parent] = split.feature
    nodes["split_bin"][parent] = split.split_bin
    nodes["default_left"][parent] = split.default_left
    nodes["gain"][parent] = split.gain
    nodes["first_child"][parent] = first
    if split.split_bin < 0:
        nodes["left_bins"][parent] = split.left_bins
    sides = ((n_left, split.left), (n_right, split.right))
    for side, (side_count, side_totals) in enumerate(sides):
        nodes["feature"].append(LEAF)
        nodes["split_bin"].append(-1)
        nodes["default_left"].append(False)
        nodes["gain"].append(0.0)
        nodes["G"].append(side_totals[0])
        nodes["H"].append(side_totals[1])
        out_H = split.out_H
        nodes["H_out"].append(side_totals[1] if out_H is None else out_H[side])
        nodes["count"].append(side_count)
        nodes["depth"].append(depth)
        nodes["parent"].append(parent)
        nodes["first_child"].append(0)
        nodes["l2"].append(split.child_l2)
    return first


def _next_leaf(gain_of: np.ndarray, feature_of: np.ndarray) -> int | None:
    """The leaf LightGBM splits next: the largest gain, ties to the lower feature, then leaf id.

    None when no leaf has a positive gain (-inf: no split anywhere).
    """
    largest = gain_of.max()
    if not largest > 0.0:
        return None
    top = np.flatnonzero(gain_of == largest)
    return int(top[np.argmin(feature_of[top])])


def _subtree_gain(nodes: dict, H: np.ndarray) -> np.ndarray:
    """Each node's "impurity": the split gains of its subtree, per unit of hessian.

    LightGBM's trees have no impurity, and the λ of a gain depends on the
    split (categorical splits add ``cat_l2``), so no per-node loss gives the
    gains. This choice does: with weights 𝓗, ``𝓗_t i_t - Σ_c 𝓗_c i_c`` is
    the gain of node ``t``, so impurity decreases (MDI, and
    :func:`mltrees.inspection.importance`) are LightGBM's split gains.
    Summed level by level from the deepest, never node by node.
    """
    gain = np.array(nodes["gain"], dtype=np.float64)
    parent = np.array(nodes["parent"], dtype=np.intp)
    depth = np.array(nodes["depth"], dtype=np.intp)
    below = gain.copy()
    for d in range(int(depth.max()), 0, -1):
        at = np.flatnonzero(depth == d)
        np.add.at(below, parent[at], below[at])
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(H > 0, below / np.where(H > 0, H, 1.0), 0.0)


def _split_candidates(found: SplitCandidates, ends: list[int]) -> list[SplitCandidates]:
    """``found`` cut into consecutive groups of nodes, ending at each of ``ends``."""
    fields = {
        name: values
        for name in SplitCandidates.__slots__
        if (values := getattr(found, name)) is not None
    }
    starts = [0, *ends[:-1]]
    return [
        SplitCandidates(**{name: values[a:b] for name, values in fields.items()})
        for a, b in zip(starts, ends, strict=True)
    ]


def _gain(found: SplitCandidates, i: int) -> float:
    """Leaf ``i``'s best gain; no split (a NaN gain included) is ``-inf``, as in :func:`_one`."""
    gain = found.gain[i]
    return gain if np.isfinite(gain) else -np.inf


def _one(found: SplitCandidates, i: int) -> SplitCandidates:
    """Leaf ``i``'s best split as plain values; no split (a NaN gain included) has gain ``-inf``."""
    split = found.take(i)
    if not np.isfinite(split.gain):
        split.gain = -np.inf
    return split
