"""The stacked walk: predictions of many trees at once (chapters 9-12).

:class:`StackedTrees` predicts with many trees at once (forests, bagging,
AdaBoost, gradient boosting): per row and output, the sum over trees of the
value of the node the row ends in. The walk takes one NumPy step per tree
level, for many (tree, row) pairs at once:

- *Groups.* Consecutive trees are concatenated into groups of at most
  ``NODES_PER_GROUP`` nodes (all of many small trees, a handful of fully
  grown ones): all trees at once would make every node lookup a cache
  miss, one tree at a time would pay Python's per-call cost per tree.
- *Tree-major pairs.* A block of ``n`` rows and a group of ``G`` trees give
  ``G * n`` pairs, pair ``t * n + r``: a tree's pairs read the rows in
  increasing order, and its results are the contiguous slice
  ``t * n : (t + 1) * n``, added to the sums tree after tree.
- *One step per level:* ``node = child + (x[row, feature] > threshold)``,
  with child id and feature packed in one int64. Categorical nodes and
  missing values are routed as :meth:`Tree.apply` routes them.
- *Leaf detection for free.* Leaves loop onto themselves with a threshold
  that no value exceeds and that marks them (NaN; on codes, the largest
  code), so the threshold gathered for the step also tells which pairs
  are done.
- *Compaction.* From the group's shallowest leaf on, once more than a
  quarter of the pairs are done, their end nodes are recorded and the
  others kept with integer gathers: fully grown trees have leaves at very
  different depths, and carrying finished pairs costs a full step each.
- *Codes.* Groups of numeric trees compare small integer codes (a
  value's rank among all thresholds of its feature) instead of floats
  when that pays: the same branches, a smaller working set
  (:class:`_Thresholds`). A code cannot say "missing", so groups with
  missing-value routes walk on codes only blocks of rows without NaN,
  and on floats the others. In histogram mode the code is the value's
  bin, and each tree's split codes are stored when the ensemble is
  fitted, so nothing has to be built per prediction.
- *Threads* walk blocks of rows in parallel (NumPy releases the GIL in
  its loops). Every row's sum runs over the trees in their order, so
  neither threads nor blocks change a bit of the result.
"""

from __future__ import annotations

import itertools

import numpy as np

from mltrees._threads import map_blocks
from mltrees.tree._data import NUMERIC, all_finite
from mltrees.tree._tree import (
    CATEGORICAL_NODE,
    LEAF,
    MISSING_NONE,
    Tree,
    available_cores,
    category_step,
)

__all__ = ["StackedTrees", "threads_for_rows"]


# Tuning of the walk, measured with a forest of 50 fully grown trees (~14.5k
# nodes each, depths up to ~31, 28 features) on a 2-core EPYC (1 MiB L2 per
# core). A group's walked node arrays take 9 to 16 bytes per node (packed
# child/feature, and a threshold or code), so 2**17 nodes (9 such trees) is
# 1.1 to 2 MiB: 4 to 18 trees per group ran within noise, fewer meant more
# rows per block and so more data to gather from, more meant node arrays
# missing the cache. 2**17 (tree, row) pairs per block (1 MiB per per-level
# temporary) beat 2**16 by 10 % on one thread and 15 % on two (fewer, longer
# NumPy calls: less Python overhead and less time holding the GIL) and
# 2**18 by 5-10 % (cache).
NODES_PER_GROUP = 1 << 17
PAIRS_PER_BLOCK = 1 << 17
# Set finished pairs aside once more than this share of them is done, testing
# every CHECK_EVERY levels from the group's shallowest leaf on (every level,
# or 10 % / 40 %, ran within noise; the old 85 % / every 4 levels was slower).
COMPACT_DONE, CHECK_EVERY = 0.25, 2
# Walk on threshold codes (see _Thresholds) when the expected node visits per
# row are at least CODES_PAY times the encoding's table probes per row, and
# the search table stays small. Codes saved ~35 % of the walk of the forest
# above (visits/probes 3.7; net of encoding ~15 %), 4 % with depth-16 trees
# (3.2), and lost 5-20 % on smaller trees (depth 6 to 12 forests, gradient
# boosting with depth-3 trees: ratios 1.5 to 2.6), whose nodes stay in cache.
CODES_PAY = 3.0
MIN_ROWS_PER_THREAD = 2048
MAX_SEARCH_TABLE = 1 << 20
# Building the code tables costs about 60 ns per node of the coded trees and
# the codes save about 1 ns per (row, node visit) on the forest above: when
# the number of rows to predict is known, codes are used only if the rows'
# expected visits are at least CODES_BUILD_COST times the trees' nodes (20k
# rows for that forest's 720k nodes: not worth it; 200k rows: 20 % faster).
CODES_BUILD_COST = 64


def _take(array: np.ndarray, index: np.ndarray) -> np.ndarray:
    """``array[index]`` for indices known to be in range.

    ``mode="clip"`` skips NumPy's bounds check (and its error path): the
    gathers of the walk ran 15-25 % faster. Every index is built in range.
    """
    return array.take(index, mode="clip")  # the method: no dispatch through np.take


def _numeric(tree: Tree) -> bool:
    """Numeric nodes only: the tree can be walked on threshold codes.

    Missing-value routes do not prevent it: a block of rows without NaN
    never takes them, and a block with NaN walks on floats (:meth:`_TreeGroup.walk`).
    """
    return not (tree.kind == CATEGORICAL_NODE).any()


def _visits_per_row(tree: Tree) -> float:
    """Expected nodes a row passes below the root: the training-weighted mean leaf depth.

    Computed as ``sum over internal nodes of w_i / w_root``: a row steps once
    below every internal node on its path, and the chance that a training
    row passes node ``i`` is ``w_i / w_root`` (children share their parent's
    weight). Two vectorized passes: cheaper than gathering the leaves' depths.
    """
    weight = tree.weighted_n_node_samples
    if weight[0] <= 0:
        return float(tree.max_depth)
    return float((weight * (tree.feature != LEAF)).sum() / weight[0])


class _Thresholds:
    """Numeric thresholds as small integer codes, from a sorted table per feature.

    With ``T_j`` a sorted set of distinct values of feature ``j`` that holds
    every threshold the trees test on ``j``, a value gets the code
    ``c(x) = #{t in T_j : t < x}``. For every threshold ``t`` in ``T_j``,
    ``x > t`` if and only if ``c(x) > c(t)``: if ``x > t`` then ``t``
    itself counts for ``x`` and not for ``t``; if ``x <= t`` every ``t' < x``
    is also ``< t``. A NaN gets code 0 and goes left, as ``NaN > t`` is
    False. So the trees can be walked on uint8/uint16 codes, exactly: the
    block of codes is 8 or 4 times smaller than the float block, and a node's
    code than its threshold, which keeps both in cache.

    Two sources of tables: the distinct thresholds of the trees themselves
    (:meth:`of_trees`), or the bin edges of histogram mode (:meth:`of_bins`):
    a histogram tree's thresholds are edges, the code of a value is its bin,
    and ``x > e_b`` iff ``c(x) > b`` (:eq:`eq-bin-code-walk`, chapter 10), so
    the table is known at fit time and each tree's split codes are stored
    with it (:meth:`split_codes_of`).

    The encoding is a branchless binary search, vectorized over the block:
    each of ``log2(width)`` steps compares every value with one table entry.

    Attributes
    ----------
    split_codes : list of ndarray or None
        (:meth:`of_trees` only) per tree, ``c(threshold)`` of every node;
        leaves get the largest code of the dtype, which no value's code
        reaches. A NaN threshold (``x > NaN`` is False for every ``x``) gets
        ``|T_j|``, which no value's code exceeds.
    """

    def __init__(self, tables):
        per_feature = np.array([len(table) for table in tables], dtype=np.intp)
        self.n_features = per_feature.size
        self.per_feature = per_feature
        self.used = np.flatnonzero(per_feature)
        count = int(per_feature.max(initial=0))
        # More entries than thresholds: a +inf pad keeps every count <= width - 1.
        self.width = 1 << count.bit_length()
        self.steps = count.bit_length()
        # The largest code marks leaves: every value's code and every split
        # code (at most ``count``, NaN thresholds included) stays below it.
        self.dtype = np.uint8 if count < 255 else np.uint16 if count < 65535 else None
        self.split_codes = None
        if not self.feasible:
            return
        self.table = np.full((self.used.size, self.width), np.inf)
        for row, j in enumerate(self.used):
            self.table[row, : per_feature[j]] = tables[j]
        self.table = self.table.reshape(-1)
        self.base = np.arange(self.used.size, dtype=np.intp) * self.width
        # Table row of each feature (features without thresholds: row 0, never read).
        self.row = np.zeros(per_feature.size, dtype=np.intp)
        self.row[self.used] = np.arange(self.used.size)

    @classmethod
    def of_trees(cls, trees) -> _Thresholds:
        """Tables of the trees' own distinct thresholds, and the trees' split codes."""
        feature = np.concatenate([tree.feature for tree in trees]).astype(np.intp)
        threshold = np.concatenate([tree.threshold for tree in trees]).astype(np.float64)
        known = np.flatnonzero((feature != LEAF) & ~np.isnan(threshold))
        # Thresholds grouped by feature (a stable radix sort for int16 keys),
        # then each feature's distinct values (value sorts, fast).
        key = feature[known]
        per_node = np.bincount(key, minlength=int(feature.max(initial=0)) + 1)
        key = key.astype(np.int16) if per_node.size <= 2**15 else key
        by_feature = threshold[known[np.argsort(key, kind="stable")]]
        parts = np.split(by_feature, np.cumsum(per_node)[:-1])
        thresholds = cls([np.unique(part) for part in parts])
        if thresholds.feasible:
            codes = thresholds._codes(feature, threshold)
            bounds = np.cumsum([tree.node_count for tree in trees])[:-1]
            thresholds.split_codes = np.split(codes, bounds)
        return thresholds

    @classmethod
    def of_bins(cls, specs) -> _Thresholds:
        """Tables of the bin edges of the histogram-mode numeric features (others empty).

        Walking on these codes implements :eq:`eq-bin-code-walk` (chapter 10).
        """
        empty = np.empty(0)
        return cls(
            [spec.values if spec.kind == NUMERIC and not spec.exact else empty for spec in specs]
        )

    @property
    def feasible(self) -> bool:
        """Codes fit in 16 bits and the search table is small."""
        return self.dtype is not None and self.used.size * self.width <= MAX_SEARCH_TABLE

    @property
    def work_per_row(self) -> int:
        """Table probes per row of the encoding."""
        return self.used.size * max(self.steps, 1)

    def _search(self, x: np.ndarray, base: np.ndarray) -> np.ndarray:
        """``#{t in T_j : t < x}`` for values ``x`` whose features' tables start at ``base``."""
        position = base.copy()
        index = np.empty_like(position)
        half = self.width >> 1
        while half:
            # Lower bound: count the entries below x, halving the range each step.
            np.add(position, half - 1, out=index)
            position += (_take(self.table, index) < x) * half
            half >>= 1
        position -= base
        return position

    def _codes(self, feature: np.ndarray, threshold: np.ndarray) -> np.ndarray:
        """Split codes of nodes: ``c(threshold)``, ``|T_j|`` for NaN, the leaf mark at leaves."""
        codes = np.full(feature.size, np.iinfo(self.dtype).max, dtype=self.dtype)
        internal = feature != LEAF
        known = np.flatnonzero(internal & ~np.isnan(threshold))
        codes[known] = self._search(threshold[known], self.base[self.row[feature[known]]])
        unknown = np.flatnonzero(internal & np.isnan(threshold))
        codes[unknown] = self.per_feature[feature[unknown]]
        return codes

    def split_codes_of(self, tree: Tree) -> np.ndarray | None:
        """The tree's split codes under these tables, or None if it cannot walk on them.

        It can if its nodes are numeric (missing-value routes are allowed:
        rows with NaN walk on floats), and every threshold is in its
        feature's table (``x > t`` iff ``c(x) > c(t)`` needs ``t`` in
        ``T_j``). A +inf threshold also qualifies: its code ``|T_j|`` lands
        on the +inf pad, and no code exceeds it.
        """
        if not self.feasible or not _numeric(tree):
            return None
        feature = tree.feature.astype(np.intp)
        threshold = tree.threshold.astype(np.float64)
        internal = feature != LEAF
        if (feature[internal] >= self.n_features).any():
            return None
        known = np.flatnonzero(internal & ~np.isnan(threshold))
        if (self.per_feature[feature[known]] == 0).any():
            return None
        codes = self._codes(feature, threshold)
        entry = self.base[self.row[feature[known]]] + codes[known].astype(np.intp)
        if not (_take(self.table, entry) == threshold[known]).all():
            return None
        return codes

    def encode(self, block: np.ndarray) -> np.ndarray:
        """Codes of a block of rows, shape ``block.shape`` (0 in columns without thresholds)."""
        every = self.used.size == block.shape[1]  # then used == 0 .. n_columns - 1
        # Column selection and scatter only when few columns have thresholds:
        # they cost about as much as the whole search.
        x = block if every else np.take(block, self.used, axis=1)
        position = self._search(x, np.broadcast_to(self.base, x.shape))
        if every:
            return position.astype(self.dtype)
        codes = np.zeros(block.shape, dtype=self.dtype)
        codes[:, self.used] = position
        return codes


class _TreeGroup:
    """A few consecutive trees of a stack, concatenated into one set of node arrays.

    Node ids are local to the group (tree ``t`` starts at ``roots[t]``).
    Child id and feature share one int64 (``child << shift | feature``): one
    gather fewer per level than two arrays. Leaves loop onto themselves and
    are marked:

    * on floats: ``float_cut`` holds the thresholds and leaves NaN (``x >
      NaN`` is False for every ``x``), so the threshold gathered for the
      step also tells which pairs are done. An internal node whose
      threshold is NaN, and a categorical node (routed by its table), get
      +inf instead, which every ``x`` also fails; a real +inf threshold
      (default direction "all known values left") is therefore never taken
      for a leaf.
    * on codes (``split_codes`` given, numeric trees, ``B``-bit codes): one
      int64 per node, ``code_step = ((child << B) + 2^B - 1 - c(t)) << shift
      | feature``. Every value's code is below ``2^B - 1``, so adding
      ``c(x)`` to the part above the feature carries into the child bits
      exactly when ``c(x) > c(t)``: one gather per level fewer than
      comparing with a gathered split code. Leaves get ``c(t) = 2^B - 1``
      (never a carry) and are marked in ``is_leaf``.

    A coded group with missing-value routes keeps both: blocks without NaN
    walk on codes, the others on floats.
    """

    def __init__(self, trees, values, outputs, shift: int, split_codes=None):
        sizes = np.array([tree.node_count for tree in trees], dtype=np.intp)
        self.roots = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.intp)
        n_nodes = int(sizes.sum())
        self.n_trees = len(trees)
        self.shift, self.mask = shift, (1 << shift) - 1
        if split_codes is not None:
            self.code_bits = 8 * split_codes[0].dtype.itemsize
            self.leaf_code = (1 << self.code_bits) - 1
            if n_nodes.bit_length() + self.code_bits + shift > 62:  # the step must fit an int64
                split_codes = None
        self.coded = split_codes is not None
        routed = [bool((tree.missing_slot != MISSING_NONE).any()) for tree in trees]
        self.missing = any(routed)
        walk_floats = self.missing or not self.coded
        # The node arrays are filled tree by tree, in place: this runs on
        # every prediction of a forest, and whole-group temporaries
        # (concatenate, then where) cost several times more.
        self.packed = np.empty(n_nodes, dtype=np.int64) if walk_floats else None
        self.float_cut = np.empty(n_nodes) if walk_floats else None
        if self.coded:
            self.code_step = np.empty(n_nodes, dtype=np.int64)
            self.is_leaf = np.empty(n_nodes, dtype=bool)
        width = values[0].shape[1]
        self.columns = [np.empty(n_nodes) for _ in range(width)]
        categorical = np.zeros(n_nodes, dtype=bool)
        first_leaf_depth, self.max_depth = np.iinfo(np.intp).max, 0
        for t, (tree, root) in enumerate(zip(trees, self.roots, strict=True)):
            part = slice(root, root + tree.node_count)
            leaf = tree.feature == LEAF
            packed = self.packed[part] if walk_floats else np.empty(tree.node_count, np.int64)
            packed[...] = tree.first_child
            packed += root
            # Leaves loop onto themselves: child += (own id - child) at leaves.
            # Arithmetic, not np.where or a masked copy: several times faster
            # on these half-leaf masks (no branches to mispredict).
            loop = np.arange(root, root + tree.node_count, dtype=np.int64) - packed
            loop *= leaf
            packed += loop
            if self.coded:
                # ((child << B) + 2^B - 1 - c(t)) << shift | feature: adding a
                # value's code c(x) < 2^B - 1 to the part above the feature
                # carries into the child bits exactly when c(x) > c(t)
                # (leaves: c(t) = 2^B - 1, never).
                step = self.code_step[part]
                np.left_shift(packed, self.code_bits, out=step)
                step += self.leaf_code
                step -= split_codes[t]
                step <<= shift
                step |= np.maximum(tree.feature, 0)
                self.is_leaf[part] = leaf
            packed <<= shift
            packed |= np.maximum(tree.feature, 0)
            if (tree.kind == CATEGORICAL_NODE).any():
                categorical[part] = tree.kind == CATEGORICAL_NODE
            if self.float_cut is not None:
                cut = self.float_cut[part]
                cut[...] = tree.threshold
                # NaN threshold or categorical node: +inf (no value goes right
                # by the comparison); leaves: NaN, the mark.
                np.copyto(cut, np.inf, where=np.isnan(cut) | categorical[part])
                np.copyto(cut, np.nan, where=leaf)
            for c, column in enumerate(self.columns):
                column[part] = values[t][:, c]
            # Shallowest leaf: internal nodes pushed out of the minimum, arithmetically.
            pushed = tree.depth + (~leaf) * np.int32(1 << 24)
            first_leaf_depth = min(first_leaf_depth, int(pushed.min()))
            self.max_depth = max(self.max_depth, tree.max_depth)
        self.first_leaf_depth = first_leaf_depth
        # Runs of consecutive trees that add to the same output columns.
        change = np.flatnonzero(np.diff(outputs)) + 1
        bounds = [0, *change.tolist(), len(trees)]
        self.runs = [(int(outputs[a]), a, b) for a, b in itertools.pairwise(bounds)]
        self.categorical = bool(categorical.any())
        if self.categorical:
            self.is_categorical = categorical
            self.n_categories = np.concatenate([t.n_categories for t in trees]).astype(np.intp)
            sizes = [t.route_table.size for t in trees]
            starts = np.cumsum([0, *sizes[:-1]])
            self.route_offset = np.concatenate(
                [t.route_offset.astype(np.intp) + s for t, s in zip(trees, starts, strict=True)]
            )
            self.route_table = np.concatenate([t.route_table for t in trees]).astype(np.intp)
        # Missing values, as Tree.apply treats them: in a tree with missing
        # routes a NaN follows its node's slot (stopping where there is none);
        # in a tree without, it fails ``x > threshold`` and goes left (slot 0)
        # at numeric nodes and stops at categorical ones. Leaves keep it.
        if self.missing:
            slots = [
                tree.missing_slot if r else np.where(tree.kind == CATEGORICAL_NODE, MISSING_NONE, 0)
                for tree, r in zip(trees, routed, strict=True)
            ]
            leaf = np.concatenate([tree.feature == LEAF for tree in trees])
            self.missing_slot = np.where(leaf, MISSING_NONE, np.concatenate(slots)).astype(np.intp)

    def on_codes(self, nan_free: bool) -> bool:
        """Whether a block walks on codes: coded, and no NaN to route (or no routes)."""
        return self.coded and (nan_free or not self.missing)

    def walk(
        self, values: np.ndarray, codes, row_start: np.ndarray, nan_free: bool = False
    ) -> np.ndarray:
        """End node of every (tree, row) pair of a block, tree-major (pair ``t * n + r``).

        ``values`` is the block row by row, ``codes`` its codes (or None when
        :meth:`on_codes` is False), ``row_start[r]`` the position of row ``r``
        in either. The end node is a leaf, or the internal node where the
        walk stopped (unseen category, missing value without a route), as in
        :meth:`Tree.apply`. ``nan_free``: the block holds no NaN, so no
        missing-value route can apply.
        """
        n_rows = row_start.size
        coded = self.on_codes(nan_free)
        routes = self.categorical or (self.missing and not nan_free)
        node = np.repeat(self.roots, n_rows)
        row_start = np.tile(row_start, self.n_trees)
        pair = ended = None  # pair ids still walking, once some were set aside
        cut = None
        for level in range(self.max_depth):
            if not coded:
                cut = _take(self.float_cut, node)
            level_after_leaf = level - self.first_leaf_depth
            if level_after_leaf >= 0 and level_after_leaf % CHECK_EVERY == 0:
                done = _take(self.is_leaf, node) if coded else np.isnan(cut)
                n_done = np.count_nonzero(done)
                if n_done == node.size:
                    break
                if n_done > COMPACT_DONE * node.size:
                    if pair is None:
                        pair = np.arange(node.size)
                        ended = np.empty(node.size, dtype=np.intp)
                    finished = np.flatnonzero(done)
                    ended[_take(pair, finished)] = _take(node, finished)
                    # Integer gathers: boolean-mask indexing was slower.
                    keep = np.flatnonzero(~done)
                    pair, node, row_start = (_take(a, keep) for a in (pair, node, row_start))
                    if not coded:
                        cut = _take(cut, keep)
            # In-place operations where possible: fewer temporaries in cache.
            if coded:
                # One gather of the fused step, one of the codes: the carry of
                # the addition is the comparison.
                step = _take(self.code_step, node)
                index = step & self.mask
                index += row_start
                step >>= self.shift
                step += _take(codes, index)
                step >>= self.code_bits
                node = step
                continue
            first = _take(self.packed, node)
            index = first & self.mask
            index += row_start
            value = _take(values, index)
            first >>= self.shift
            if not routes:
                first += value > cut
                node = first
                continue
            step = first + (value > cut)
            if self.categorical:
                self._route_categories(node, first, value, step)
            if self.missing and not nan_free:
                self._route_missing(node, first, value, step)
            node = step
        if pair is None:
            return node
        ended[pair] = node
        return ended

    def _route_categories(self, node, first, value, step) -> None:
        """Overwrite ``step`` at categorical nodes from their routing tables.

        As :meth:`Tree.apply` (:func:`category_step`): a code outside the
        table or whose slot is -1 (never seen at this node) stops the pair here.
        """
        at = np.flatnonzero(_take(self.is_categorical, node))
        if at.size == 0:
            return
        step[at] = category_step(
            value[at], node[at], first[at], self.n_categories, self.route_offset, self.route_table
        )

    def _route_missing(self, node, first, value, step) -> None:
        """Overwrite ``step`` where the tested value is NaN (``_StepTables._route_missing``)."""
        missing = np.flatnonzero(np.isnan(value))
        if missing.size:
            here = node[missing]
            slot = self.missing_slot[here]
            step[missing] = np.where(slot >= 0, first[missing] + slot, here)

    def add_values(self, acc: np.ndarray, ended: np.ndarray, n_rows: int) -> None:
        """Add every tree's end-node values to ``acc`` (n_outputs, n_rows), tree by tree.

        Per row and output the sum runs in tree order, ``((acc + v_0) + v_1) + ...``,
        whatever the blocks: ``np.add.reduce`` over the first axis of a
        C-ordered ``(1 + trees, n_rows)`` array adds its rows one after the
        other (NumPy sums pairwise only along a contiguous axis, which is the
        case for a single row, handled by the loop).
        """
        for output, first, stop in self.runs:
            pairs = ended[first * n_rows : stop * n_rows]
            for c, column in enumerate(self.columns):
                target = acc[output + c]
                if n_rows == 1 or stop - first == 1:
                    for t in range(stop - first):
                        target += _take(column, pairs[t * n_rows : (t + 1) * n_rows])
                    continue
                terms = np.empty((stop - first + 1, n_rows))
                terms[0] = target
                np.take(column, pairs, out=terms[1:].reshape(-1), mode="clip")
                np.add.reduce(terms, axis=0, out=target)


class StackedTrees:
    """Many trees that predict together: the sum of their node values per output.

    Used by the forests and bagging (chapters 9-10: the average is this sum
    divided by the number of trees), AdaBoost (chapter 11) and gradient
    boosting (chapter 12). Tree ``t`` adds column ``c`` of ``values[t]``
    (the value of the node a row ends in) to output column ``outputs[t] + c``.

    The walk (see the module docstring) goes over blocks of rows, and over
    groups of consecutive trees within a block: trees are grouped while
    their nodes number at most ``NODES_PER_GROUP`` (at least one tree per
    group), and a block holds ``PAIRS_PER_BLOCK // (largest group)`` rows.
    Groups of numeric trees compare threshold codes rather than floats when
    that pays (``CODES_PAY``), on every block if they have no missing-value
    routes, on blocks without NaN if they have.
    Neither the blocks, the groups, the codes nor the threads change the
    result: every row's sum runs over the trees in their order, and the
    codes take the same branches as the floats.

    Parameters
    ----------
    trees : list of Tree
    values : list of ndarray of shape (n_nodes_t, n_columns)
        What each node of each tree contributes (already scaled); the same
        number of columns for every tree.
    outputs : array_like of int, shape (n_trees,), optional
        First output column of each tree (default 0 for all: every tree adds
        to columns ``0 .. n_columns - 1``, as in a forest).
    n_outputs : int, optional
        Number of output columns (default: the largest ``outputs + n_columns``).
    n_rows : int, optional
        Rows the stack will predict, when built for a single call: threshold
        codes are then used only if that many rows repay building them
        (``CODES_BUILD_COST``).
    thresholds : _Thresholds, optional
        Code tables known in advance (the bin edges of histogram mode,
        :meth:`_Thresholds.of_bins`), with ``split_codes``: nothing is built
        from the trees, so ``CODES_BUILD_COST`` does not apply.
    split_codes : list of (ndarray or None), optional
        With ``thresholds``: per tree, its split codes under those tables
        (:meth:`_Thresholds.split_codes_of`), or None if it cannot walk on
        them.

    Attributes
    ----------
    score_bound : ndarray of shape (n_outputs,)
        Per output, the sum over trees of the largest ``|value|`` of a leaf:
        no row's sum can exceed it in magnitude (the data-free bound that
        :func:`~mltrees.ensemble._common.check_score_bound` tests).
    """

    def __init__(
        self,
        trees,
        values,
        outputs=None,
        n_outputs: int | None = None,
        *,
        n_rows=None,
        thresholds=None,
        split_codes=None,
    ):
        values = [
            np.asarray(v, dtype=np.float64).reshape(t.node_count, -1)
            for t, v in zip(trees, values, strict=True)
        ]
        widths = {v.shape[1] for v in values}
        if len(widths) > 1:
            raise ValueError(f"every tree needs the same number of value columns, got {widths}")
        width = widths.pop() if widths else 1
        outputs = np.zeros(len(trees), dtype=np.intp) if outputs is None else np.asarray(outputs)
        outputs = outputs.astype(np.intp).reshape(-1)
        if outputs.size != len(trees):
            raise ValueError(f"outputs has {outputs.size} entries for {len(trees)} trees")
        self.n_outputs = int(outputs.max(initial=-1) + width) if n_outputs is None else n_outputs
        if outputs.size and (outputs.min() < 0 or outputs.max() + width > self.n_outputs):
            raise ValueError(f"outputs + value columns must lie in [0, {self.n_outputs})")
        self.n_trees = len(trees)
        # |sum over trees| <= sum of each tree's largest |leaf value|, per output column.
        self.score_bound = np.zeros(self.n_outputs)
        for tree, v, first in zip(trees, values, outputs, strict=True):
            leaves = np.abs(v[tree.is_leaf])
            if leaves.size:
                self.score_bound[first : first + width] += leaves.max(axis=0)
        self.n_features_needed = 1 + max((int(t.feature.max(initial=0)) for t in trees), default=0)
        shift = (self.n_features_needed - 1).bit_length()
        # Trees adding to the same output column are walked next to each other
        # (gradient boosting interleaves one tree per class and round); the
        # stable sort keeps their order, so each column's sum keeps it too.
        order = np.argsort(outputs, kind="stable")
        members = []
        first = 0
        while first < order.size:
            stop, nodes = first + 1, trees[order[first]].node_count
            while stop < order.size and nodes + trees[order[stop]].node_count <= NODES_PER_GROUP:
                nodes += trees[order[stop]].node_count
                stop += 1
            members.append(order[first:stop])
            first = stop
        # Groups of numeric trees walk on threshold codes when the walk saves
        # more than the encoding of each block costs.
        if thresholds is not None:
            if split_codes is None or len(split_codes) != len(trees):
                raise ValueError("thresholds needs split_codes: one entry (or None) per tree")
            for tree, codes in zip(trees, split_codes, strict=True):
                if codes is not None and codes.shape != (tree.node_count,):
                    raise ValueError(
                        f"split codes of shape {codes.shape} for a tree of {tree.node_count} nodes"
                    )
            codable = [codes is not None for codes in split_codes]
        else:
            codable = [_numeric(tree) for tree in trees]
        coded = [all(codable[i] for i in group) for group in members]
        coded_ids = [i for group, c in zip(members, coded, strict=True) if c for i in group]
        coded_trees = [trees[i] for i in coded_ids]
        self.thresholds = None
        if coded_trees and thresholds is None and n_rows is not None:
            budget = CODES_BUILD_COST * sum(tree.node_count for tree in coded_trees)
            # max_depth bounds the visits and costs nothing: try it first.
            if n_rows * sum(tree.max_depth for tree in coded_trees) < budget or (
                n_rows * sum(_visits_per_row(tree) for tree in coded_trees) < budget
            ):
                coded_trees = []
        if coded_trees:
            if thresholds is None:
                thresholds = _Thresholds.of_trees(coded_trees)
                if thresholds.feasible:
                    split_codes = dict(zip(coded_ids, thresholds.split_codes, strict=True))
                    thresholds.split_codes = None  # kept in the groups only
            if thresholds.feasible and (
                sum(_visits_per_row(tree) for tree in coded_trees)
                >= CODES_PAY * thresholds.work_per_row
            ):
                self.thresholds = thresholds
        self.groups = []
        for group, c in zip(members, coded, strict=True):
            walk_codes = c and self.thresholds is not None
            self.groups.append(
                _TreeGroup(
                    [trees[i] for i in group],
                    [values[i] for i in group],
                    outputs[group],
                    shift,
                    [split_codes[i] for i in group] if walk_codes else None,
                )
            )
        largest = max((group.n_trees for group in self.groups), default=1)
        self.block_rows = max(1, PAIRS_PER_BLOCK // largest)

    def predict(
        self, values: np.ndarray, check_block=None, *, n_threads=None, block_rows=None
    ) -> np.ndarray:
        """Sum of the trees' node values per output, shape (n_samples, n_outputs).

        Parameters
        ----------
        values : ndarray of shape (n_samples, n_features)
            Encoded input (numbers and category codes, ``encode_features``).
        check_block : callable or None
            Called on every block of rows before it is walked (finiteness
            checks); an exception it raises propagates.
        n_threads : int or None
            Threads that walk blocks in parallel (NumPy releases the GIL in
            its gathers). None: one per available core, fewer for few rows
            (:func:`threads_for_rows`).
        block_rows : int or None
            Rows per block (default ``self.block_rows``); for tests.

        Returns
        -------
        ndarray of shape (n_samples, n_outputs)
        """
        values = np.ascontiguousarray(values, dtype=np.float64)
        if values.ndim != 2 or values.shape[1] < self.n_features_needed:
            raise ValueError(
                f"values must be 2-D with at least {self.n_features_needed} columns, "
                f"got shape {values.shape}"
            )
        n_samples, n_features = values.shape
        out = np.zeros((n_samples, self.n_outputs))
        n_threads = threads_for_rows(n_samples) if n_threads is None else max(1, int(n_threads))
        rows = self.block_rows if block_rows is None else int(block_rows)
        if n_threads > 1 and n_samples > 1:
            rows = min(rows, -(-n_samples // n_threads))  # at least one block per thread
        starts = range(0, n_samples, rows)

        def run(start: int) -> None:
            block = values[start : start + rows]
            if check_block is not None:
                check_block(block)
            n_rows = block.shape[0]
            flat = block.reshape(-1)  # one 1-D gather reads x[row, feature]
            row_start = np.arange(n_rows, dtype=np.intp) * n_features
            acc = np.zeros((self.n_outputs, n_rows))  # C order: one contiguous row per output
            # A block without NaN takes no missing-value route: one test fewer
            # per level, and groups with routes can walk on codes.
            nan_free = not any(group.missing for group in self.groups) or all_finite(block)
            codes = None
            if any(group.on_codes(nan_free) for group in self.groups):
                codes = self.thresholds.encode(block).reshape(-1)
            for group in self.groups:
                ended = group.walk(flat, codes, row_start, nan_free)
                group.add_values(acc, ended, n_rows)
            out[start : start + n_rows] = acc.T

        map_blocks(run, starts, n_threads)
        return out


def threads_for_rows(n_rows: int, n_threads: int | None = None) -> int:
    """Threads worth starting for ``n_rows`` rows: at most ``n_threads`` (default: the cores).

    A thread pays for itself from a few thousand rows on (``MIN_ROWS_PER_THREAD``
    each): below, the walk is many small NumPy calls that wait on each
    other for the interpreter lock. The forest above (50 trees, 724k nodes)
    predicted 2000 rows in 24.7 ms on one thread and 30.2 ms on two, 8000
    rows in 54.7 and 47.9 ms.
    """
    n_threads = available_cores() if n_threads is None else max(1, int(n_threads))
    return min(n_threads, max(1, n_rows // MIN_ROWS_PER_THREAD))
