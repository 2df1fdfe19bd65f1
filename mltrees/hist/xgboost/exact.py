"""Exact greedy split finding (Chen & Guestrin 2016, Algorithm 1), chapter 13.

Every distinct value of a feature within a node is a candidate cut: the
rows of the node are scanned in the order of the feature, and the gain
:eq:`eq-xgb-gain` of cutting between two consecutive distinct values comes
from running sums of ``g`` and ``h``. XGBoost's ``exact`` method.

Each feature is sorted once per fit. Within a tree, every feature's order
keeps the rows of each node of the level together, each node's rows by
increasing value (missing values last): after a level is split, a stable
partition (:class:`NodePartition`) regroups every feature's order by
child and drops the rows of nodes that stopped, so no level sorts. One
cumulative sum of ``g + i h`` over a feature's order then gives the
children's sums at every cut of every node. The unrounded gain
``G_L²/(𝓗_L+λ) + G_R²/(𝓗_R+λ)`` of every cut picks the few cuts of each
node within the float32 rounding error of the best, and only those get
XGBoost's float32 gain: the winner and its ties are the same as if every
cut had been rounded. The same scans XGBoost makes, in its order, decide ties:

* backward (always): from the largest value down; rows with a missing value
  go left (``default left``); the last candidate sends every known value right
  (skipped without missing values when ``min_child_weight`` rules out its empty
  left child);
* forward (only for features with missing values in the training data and
  two distinct known values, XGBoost's ``NeedForwardSearch``): from the
  smallest value up, missing values right; its last candidate sends every
  known value left.

A feature whose known values are all equal is still scanned when it has
missing values: its one candidate separates them from the known values
(threshold ``v - (|v| + 1e-6)``, missing values left).

The cut between values ``a < b`` is the float32 midpoint ``(a + b) * 0.5``
(``a`` if that rounds to ``b``, as XGBoost). ``gamma`` is not used during
growth: like XGBoost's ``prune`` updater, :class:`ExactGrower` collapses
afterwards, bottom-up, every split whose two children are leaves and whose
loss change is below ``gamma``.

Rows are routed without comparing values again: in its split feature's
order, a node's rows below the cut are a prefix of its segment, and its
missing values the tail (:meth:`ExactGrower._route`). A feature without
missing values and with rare ties (continuous measurements) carries only
its rows from level to level; the few values its cuts and tie checks need
are read from ``X``. Each feature's order carries its rows' ``g + i h``
too, gathered at the root and regrouped with the rows: taking them through
the regrouping's permutation, which reads memory almost in sequence, is
cheaper than gathering them anew at every level. The running sums are taken
by halving (:func:`_running_sums`), faster than ``np.cumsum``. A feature
with many ties (few distinct values) has few cuts: its gains, and its
running sums if the cuts are very few, are computed at the cuts alone.
With several cores on all but tiny data (``PROCESS_MIN_CELLS``), forked
worker processes each keep, regroup, scan and route a share of the
features (:mod:`~mltrees.hist.processes`).

The method is cut by concern: the sorted columns and their regrouping are
in :mod:`~mltrees.hist.xgboost.exact_columns`, the scan of the cuts and the choice
of the best in :mod:`~mltrees.hist.xgboost.exact_scan`, the worker processes and
their messages in :mod:`~mltrees.hist.xgboost.exact_workers`; this module holds the
grower: the level loop, the routing of rows, gamma pruning and the tree.
"""

from __future__ import annotations

import os
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

import numpy as np

from mltrees.hist.grower import GrowerBase, GrownTree, binary_tree, draw_features
from mltrees.hist.processes import ForkedWorkers, can_fork, forks_safely, shared_array
from mltrees.hist.xgboost.exact_columns import (  # noqa: F401 - names of this module before the split
    NodePartition,
    SortedColumns,
    _Level,
    _running_sums,
    _sums_through,
    _Workspace,
)
from mltrees.hist.xgboost.exact_scan import SPARSE_CUTS, SPARSE_SUMS, ExactScan  # noqa: F401
from mltrees.hist.xgboost.exact_workers import (
    Request,
    Route,
    Scan,
    TreeStart,
    WorkerLoop,
    _balanced_shares,
)
from mltrees.hist.xgboost.splitting import MIN_LOSS_CHANGE, SplitParams, leaf_weight, node_score
from mltrees.tree._tree import LEAF, MISSING_NONE

__all__ = ["ExactGrower", "NodePartition", "SortedColumns"]

# With several cores, data of at least this many cells (rows x features) are scanned by
# forked worker processes (mltrees.hist.processes). A level's messages cost a fraction
# of a millisecond and the fork a few: 10 trees on 1000 x 28 cells took 203 ms with two
# processes against 292 ms with one, on 300 x 10 about even, on 100 x 4 67 ms against 49.
PROCESS_MIN_CELLS = 1 << 15
# Without processes (no fork, or other threads alive), threads scan data of at least
# this many rows: on fewer, each NumPy call is too short to pay for its hand-over of the
# interpreter lock, and two threads took longer than one (20 trees: 1.50 s against
# 0.86 s on 7000 x 28, 1.94 s against 1.55 s on 30k x 28; 1.18 s against 1.32 s on
# 100k x 8).
THREAD_MIN_ROWS = 1 << 16
# The worker processes and the grower poll their pipes this long before they block
# (mltrees.hist.processes): longer than a level's serial part, a few milliseconds.
SPIN_SECONDS = 0.02
# A feature whose tied neighbours (equal consecutive sorted values) are at most this share
# of its values has its ties checked at the kept cuts only (a node of those is scanned
# again), instead of carrying its values through every level.
RARE_TIES = 0.01


@dataclass
class ExactGrower(GrowerBase, ExactScan, WorkerLoop):
    """Depth-wise growth with every distinct value a candidate (XGBoost's ``exact``)."""

    columns: SortedColumns
    X: np.ndarray  # float32, (n_rows, n_features): the values the cuts compare
    params: SplitParams
    max_depth: int = 6
    learning_rate: float = 0.3
    rng: np.random.Generator = field(default_factory=np.random.default_rng)
    colsample_bylevel: float = 1.0
    colsample_bynode: float = 1.0
    timings: dict = field(default_factory=dict)
    n_threads: int = 1

    def __post_init__(self):
        self._executor = self._workers = None
        self._scratch = _Workspace()
        cols = self.columns
        self._XT = np.ascontiguousarray(np.asarray(self.X, dtype=np.float32).T)
        # Every feature's rows by increasing value, its missing rows last: the root's order.
        index = np.int32 if cols.n_rows < 2**31 else np.intp  # half the bytes to move
        self._root_order = [
            (np.concatenate([rows, np.flatnonzero(np.isnan(column))]) if missing else rows).astype(
                index, copy=False
            )
            for rows, column, missing in zip(cols.rows, self._XT, cols.has_missing, strict=True)
        ]
        # Their values, which the scans compare to find ties and missing values. A feature
        # without missing values and with rare ties (continuous measurements) does not
        # carry them: its ties are checked only at the cuts kept, on values read from X.
        self._root_values = [
            np.concatenate([known, np.full(column.size - known.size, np.nan, np.float32)])
            if missing
            else (
                known
                if np.count_nonzero(known[1:] == known[:-1]) > RARE_TIES * known.size
                else None
            )
            for known, column, missing in zip(cols.values, self._XT, cols.has_missing, strict=True)
        ]
        p = self.params
        # The unrounded gain bounds the float32 one only for leaf weights -G / (𝓗 + λ).
        self._approximate = p.alpha == 0 and p.max_delta_step <= 0
        # Both children need 𝓗 > 0 and 𝓗 >= min_child_weight.
        self._min_h = p.mcw if p.mcw > 0 else np.nextafter(0.0, 1.0)
        if self.n_threads > 1:
            scanned = np.flatnonzero(cols.splittable)
            costs = 1 + cols.has_missing[scanned]  # two scans with missing values
            shares = _balanced_shares(scanned, costs, self.n_threads)
            cells = cols.n_rows * scanned.size
            processes = len(shares) > 1 and can_fork() and cells >= PROCESS_MIN_CELLS
            # Forked only from a process without other threads (mltrees.hist.processes).
            if processes and forks_safely():
                # This process scans the first share, a forked worker each other share;
                # the gradients and the routing of the rows reach them in shared memory.
                self._shares = shares
                self._own_share = set(shares[0])
                # Seconds each process spent scanning: this tree's, and smoothed over trees.
                self._tree_load, self._load = np.zeros(len(shares)), None
                self._shared_gh = shared_array(cols.n_rows, complex)
                self._shared_go_left = shared_array(cols.n_rows, bool)
                self._n_workers = len(shares) - 1
                # Poll between levels unless the processes outnumber the cores.
                spin = SPIN_SECONDS if self.n_threads <= len(os.sched_getaffinity(0)) else 0.0
                numbered = list(enumerate(shares))[1:]
                self._workers = ForkedWorkers(self._serve, numbered, spin=spin)
            elif len(shares) > 1 and cols.n_rows >= THREAD_MIN_ROWS:
                self._executor = ThreadPoolExecutor(self.n_threads)
            # Otherwise one thread, which is faster on such data.

    def close(self):
        """Stop the grower's threads or worker processes (the histogram grower's contract)."""
        super().close()
        if self._workers is not None:
            self._workers.close()
            self._workers = None

    def _route(self, by_feature, level, route, go_left_row):
        """Mark in ``go_left_row`` the rows sent left by the splits on features held here.

        ``route`` is a :class:`~mltrees.hist.xgboost.exact_workers.Route`,
        an entry per split node of ``level``; ``go_left_row`` is False
        beforehand. In the order of its split feature, a node's rows that go
        left are its first ``lead`` and, if ``default_left``, its last
        ``missing`` (the missing values): one scatter per node, no value
        compared again.
        """
        for q, j, lead, missing, to_left in zip(*(part.tolist() for part in route), strict=True):
            if j in by_feature:
                rows = by_feature[j][0][level.segments[q]]
                go_left_row[rows[:lead]] = True
                if to_left and missing:
                    go_left_row[rows[rows.size - missing :]] = True

    def _sample(self, allowed: np.ndarray, share: float) -> np.ndarray:
        return draw_features(self.rng, allowed, share)

    def grow(self, g: np.ndarray, h: np.ndarray, features: np.ndarray | None = None) -> GrownTree:
        """Grow one tree on gradients ``g`` and hessians ``h`` of every row."""
        params, cols = self.params, self.columns
        n = cols.n_rows
        g = np.asarray(g, dtype=np.float64)
        h = np.asarray(h, dtype=np.float64)
        gh = g + 1j * h
        # XGBoost's gradients are float32 values: gathered as complex64 they take half
        # the memory traffic, and are summed in float64 all the same.
        compact = gh.astype(np.complex64)
        self._compact = bool(np.array_equal(compact, gh))
        table = compact if self._compact else gh  # the gathers' table (in this process)
        # Adding λ to the totals before the differences moves 𝓗 + λ by at most
        # 1e-16 of the total hessian, which must stay far below λ.
        abs_h = np.abs(h).sum()
        self._shift_exact_enough = 0 < 1e8 * params.lam >= abs_h
        # Without missing values, the backward scan's end leaves the left child empty: its
        # 𝓗 is the difference of two float64 sums of the same rows, the node's total (its
        # ancestors' differences, each of cumulative sums of at most n terms) and this
        # scan's, so a rounding residue below (2 depth + 3) n eps Σ|h|; that cut is never
        # valid when min_child_weight exceeds this bound.
        residue = (2 * max(self.max_depth, 1) + 3) * n * np.finfo(float).eps * abs_h
        self._empty_child_invalid = bool(self._min_h > residue)
        tree_features = np.arange(cols.n_features) if features is None else np.asarray(features)
        # Every feature's order keeps the rows of each node of the level together,
        # by increasing value, missing values last: partitioned after each level.
        kept = [int(j) for j in np.sort(tree_features) if cols.splittable[j]]
        if self._workers is None:
            by_feature = {j: (self._root_order[j], self._root_values[j], None) for j in kept}
        else:  # this process's share; the workers hold the others
            self._rebalance()
            by_feature = self._share_orders(kept)
        node_of_row = np.zeros(n, dtype=np.intp)  # node id of every row (set as it stops)
        # The rows still growing, and the node of each among the level's nodes.
        active, level_of_active = slice(None), np.zeros(n, dtype=np.intp)
        level_ids = np.array([0])
        totals = np.array([[g.sum(), h.sum()]])
        counts = np.array([n])
        nodes = {  # per node id
            "parent": [-1],
            "depth": [0],
            "G": [totals[0, 0]],
            "H": [totals[0, 1]],
        }
        splits = {}  # node id -> (feature, cut, default_left, gain)
        partition = go_left_row = None
        # Where each row goes at the last split; the workers read it from shared memory.
        routing = np.zeros(n, dtype=bool) if self._workers is None else self._shared_go_left
        # Process mode: the last level's splits, which the workers have yet to route.
        route = moving = None
        clock = time.perf_counter()
        for depth in range(self.max_depth):
            n_level = level_ids.size
            level_features = self._sample(tree_features, self.colsample_bylevel)
            node_features = None
            if self.colsample_bynode < 1.0:
                node_features = np.zeros((n_level, cols.n_features), dtype=bool)
                for q in range(n_level):
                    node_features[q, self._sample(level_features, self.colsample_bynode)] = True
            scanned = np.zeros(cols.n_features, dtype=bool)
            scanned[level_features] = True

            if self._workers is not None:
                tree = None
                if depth == 0:
                    np.copyto(self._gh_table(self._shared_gh, self._compact), gh)
                    tree = TreeStart(
                        features=kept,
                        shift_exact_enough=self._shift_exact_enough,
                        empty_child_invalid=self._empty_child_invalid,
                        shares=self._shares,
                        compact=self._compact,
                    )
                scan = Scan(counts, totals, partition, scanned, node_features, tree)
                self._workers.submit(Request(route, scan))
                start = time.perf_counter()
                level = _Level.of(counts, totals, params)
                if route is not None:  # (waiting for the workers is not this process's load)
                    start += self._await_routing()
                found = self._scan_share(by_feature, level, partition, go_left_row, scanned)
                best = self._choose(found, level, node_features)
                self._tree_load[0] += time.perf_counter() - start
                if route is not None:  # while the workers likely still scan
                    level_of_active = self._children_positions(go_left_row, active, *moving)
                    route = None
                for k, found in enumerate(self._workers.collect(), 1):
                    best.merge(found.best)  # the best split of each share
                    self._tree_load[k] += found.seconds
            else:
                level = _Level.of(counts, totals, params)

                def task(j, state=(table, level, partition, go_left_row, scanned)):
                    return self._advance(j, by_feature, *state)

                results = self._executor.map(task, kept) if self._executor else map(task, kept)
                found = [(j, c) for j, c in zip(kept, results, strict=True) if c is not None]
                best = self._choose(found, level, node_features)
            clock = self._tick("splits", clock)
            split = best.gain > MIN_LOSS_CHANGE
            if not split.any():
                break
            split_at = np.flatnonzero(split)
            # The k-th split node's children are the next level's nodes 2k and 2k + 1.
            child_of = np.full(n_level, -1, dtype=np.intp)
            child_of[split_at] = 2 * np.arange(split_at.size)
            q = level_of_active
            if split_at.size < n_level:  # the rows of the nodes that stop leave
                stops = ~split[q]
                stopped = np.flatnonzero(stops) if isinstance(active, slice) else active[stops]
                node_of_row[stopped] = level_ids[q[stops]]
                active = np.flatnonzero(~stops) if isinstance(active, slice) else active[~stops]
                q = q[~stops]
            # Each process routes the rows of the nodes split on its features.
            go_left_row = routing
            go_left_row.fill(False)
            sides = (best.feature, best.lead, best.missing, best.default_left)
            route = Route(split_at, *(side[split_at] for side in sides))
            self._route(by_feature, level, route, go_left_row)
            if self._workers is None:
                level_of_active = self._children_positions(go_left_row, active, child_of, q)
                route = None
            else:  # sent with the next request, or after the tree's last level
                moving = (child_of, q)
            n_left = np.zeros(n_level, dtype=np.intp)
            n_left[split_at] = best.n_left()[split_at]
            partition = NodePartition.plan(counts, split, n_left)
            counts = partition.counts
            left_sums = best.left[split_at]
            totals = np.stack([left_sums, totals[split_at] - left_sums], axis=1).reshape(-1, 2)
            first_id = len(nodes["parent"])
            for node, at in zip(level_ids[split_at].tolist(), split_at.tolist(), strict=True):
                splits[node] = (
                    int(best.feature[at]),
                    best.cut[at],
                    bool(best.default_left[at]),
                    float(best.gain[at]),
                )
            nodes["parent"] += np.repeat(level_ids[split_at], 2).tolist()
            nodes["depth"] += [depth + 1] * totals.shape[0]
            nodes["G"] += totals[:, 0].tolist()
            nodes["H"] += totals[:, 1].tolist()
            level_ids = first_id + np.arange(totals.shape[0])
            clock = self._tick("partition", clock)
        if route is not None:  # the workers route the last level's rows
            self._workers.submit(Request(route, None))
            self._await_routing(scans=False)
            level_of_active = self._children_positions(go_left_row, active, *moving)
        node_of_row[active] = level_ids[level_of_active]
        node_counts = np.bincount(node_of_row, minlength=len(nodes["parent"]))
        return self._assemble(nodes, splits, node_of_row, node_counts)

    @staticmethod
    def _gh_table(gh, compact):
        """The shared table of the rows' ``g + i h``: complex64 when that holds them exactly.

        ``gh`` is the complex128 shared array; the complex64 table lives in
        the first half of its memory (written by the parent, read by the workers).
        """
        return gh.view(np.complex64)[: gh.size] if compact else gh

    @staticmethod
    def _children_positions(go_left_row, active, child_of, q):
        """The next level's node of every active row, from its node ``q`` and its side."""
        left = go_left_row if isinstance(active, slice) else go_left_row[active]
        positions = child_of.take(q)
        positions += ~left
        return positions

    def _assemble(self, nodes, splits, node_of_row, counts) -> GrownTree:
        params = self.params
        n_nodes = len(nodes["parent"])
        parent = np.array(nodes["parent"], dtype=np.intp)
        G, H = np.array(nodes["G"]), np.array(nodes["H"])
        # XGBoost's prune updater: collapse, bottom-up, splits of two leaves below gamma.
        gamma = params._f(params.gamma)
        children_of = {}
        for child, node in enumerate(nodes["parent"]):
            children_of.setdefault(node, []).append(child)
        alive = dict(splits)
        changed = gamma > 0
        while changed:
            changed = False
            for node, (_, _, _, gain) in list(alive.items()):
                if all(c not in alive for c in children_of[node]) and gain < gamma:
                    del alive[node]
                    changed = True
        # Renumber the kept nodes breadth first, children consecutive.
        keep_order = [0]
        first_child = {}
        i = 0
        while i < len(keep_order):
            node = keep_order[i]
            if node in alive:
                first_child[node] = len(keep_order)
                keep_order += children_of[node]
            i += 1
        new_id = {old: new for new, old in enumerate(keep_order)}
        m = len(keep_order)
        old = np.array(keep_order)
        feature = np.full(m, LEAF, dtype=np.intp)
        threshold = np.full(m, np.nan)
        split_value = np.full(m, np.nan, dtype=np.float32)
        missing_slot = np.full(m, MISSING_NONE, dtype=np.int8)
        gain = np.zeros(m)
        fc = np.zeros(m, dtype=np.intp)
        for node, (j, cut, default_left, loss) in alive.items():
            k = new_id[node]
            feature[k] = j
            split_value[k] = cut
            threshold[k] = np.nextafter(np.float64(np.float32(cut)), -np.inf)
            missing_slot[k] = 0 if default_left else 1
            gain[k] = loss
            fc[k] = first_child[node]
        # Rows of collapsed subtrees end in their kept ancestor.
        ancestor = np.arange(n_nodes)
        for node in range(n_nodes):  # ids grow with depth: parents are resolved first
            p = parent[node]
            if p >= 0 and (p not in alive or ancestor[p] != p):
                ancestor[node] = ancestor[p]
        to_new = np.full(n_nodes, -1, dtype=np.intp)
        to_new[old] = np.arange(m)
        leaf_of_row = to_new[ancestor[node_of_row]]
        weight = np.asarray(leaf_weight(G[old], H[old], params), dtype=np.float64)
        eta = params.round(self.learning_rate)
        value = np.asarray(params.round(params.round(weight) * eta), dtype=np.float64)
        score = node_score(G[old], H[old], params).astype(np.float64)
        impurity = np.where(H[old] > 0, -score / np.where(H[old] > 0, H[old], 1.0), 0.0)
        parent_new = np.array([new_id[parent[o]] if parent[o] >= 0 else -1 for o in keep_order])
        tree = binary_tree(
            feature=feature,
            threshold=threshold,
            first_child=fc,
            value=value.reshape(-1, 1),
            impurity=impurity,
            n_node_samples=np.bincount(leaf_of_row, minlength=m),
            weighted_n_node_samples=H[old],
            depth=np.array(nodes["depth"])[old],
            parent=parent_new,
            missing_slot=missing_slot,
        )
        return GrownTree(tree, leaf_of_row, split_value, gain, weight)
