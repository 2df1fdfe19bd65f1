"""Exact greedy split finding (Chen & Guestrin 2016, Algorithm 1), chapter 13.

Every distinct value of a feature within a node is a candidate cut: the
rows of the node are scanned in the order of the feature, and the gain
:eq:`eq-xgb-gain` of cutting between two consecutive distinct values comes
from running sums of ``g`` and ``h``. XGBoost's ``exact`` method.

Each feature is sorted once per fit. At each level, the rows of the
feature's sorted order that belong to a node being split are regrouped by
node with a stable radix sort on the node's number (an 8- or 16-bit key),
so each node's rows stay sorted by value; one cumulative sum restarted at
every node then gives the left sums at every cut of every node. The same
scans XGBoost makes, in its order, decide ties:

* backward (always): from the largest value down; rows with a missing value
  go left (``default left``); the last candidate sends every known value right;
* forward (only for features with missing values in the training data):
  from the smallest value up, missing values right.

The cut between values ``a < b`` is the float32 midpoint ``(a + b) * 0.5``
(``a`` if that rounds to ``b``, as XGBoost). ``gamma`` is not used during
growth: like XGBoost's ``prune`` updater, :class:`ExactGrower` collapses
afterwards, bottom-up, every split whose two children are leaves and whose
loss change is below ``gamma``.
"""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

import numpy as np

from mltrees.hist.grower import GrownTree, draw_features
from mltrees.hist.splitting import MIN_LOSS_CHANGE, SplitParams, leaf_weight, node_score, split_gain
from mltrees.tree._tree import LEAF, MISSING_NONE, NUMERIC_NODE, Tree

__all__ = ["ExactGrower", "SortedColumns"]

_EPS32 = np.float32(1e-6)  # XGBoost's kRtEps, in the end-of-scan cuts


@dataclass
class SortedColumns:
    """Every feature's known values in increasing order, with their rows.

    Attributes
    ----------
    rows, values : list of ndarray
        ``values[j]`` (float32, increasing) are the non-missing values of
        feature ``j`` and ``rows[j]`` the rows they come from.
    has_missing : ndarray of bool, shape (n_features,)
        Features with a missing value somewhere in the training data.
    constant : ndarray of bool
        Features whose known values are all equal.
    """

    rows: list
    values: list
    has_missing: np.ndarray
    constant: np.ndarray
    n_rows: int

    @classmethod
    def fit(cls, X: np.ndarray) -> SortedColumns:
        """Sort every column of float32 ``X`` once (NaN are left out)."""
        rows, values = [], []
        for column in np.ascontiguousarray(X.T, dtype=np.float32):
            order = np.argsort(column, kind="stable")
            known = order[: np.count_nonzero(~np.isnan(column))]
            rows.append(known.astype(np.intp))
            values.append(column[known])
        has_missing = np.array([r.size < X.shape[0] for r in rows])
        constant = np.array([v.size == 0 or v[0] == v[-1] for v in values])
        return cls(rows, values, has_missing, constant, X.shape[0])

    @property
    def n_features(self) -> int:
        """Number of features."""
        return len(self.rows)


def _first_max_per_segment(gain, segment, n_segments, last: bool = False):
    """Per segment, the maximum of ``gain`` and where it first (or last) occurs.

    ``segment`` is non-decreasing (candidates come grouped by node), so the
    reductions run over contiguous runs (``reduceat``), not scattered updates.
    """
    best = np.full(n_segments, -np.inf, dtype=gain.dtype)
    where = np.full(n_segments, -1 if last else gain.size, dtype=np.intp)
    if gain.size == 0:
        return best, where
    starts = np.flatnonzero(np.r_[True, segment[1:] != segment[:-1]])
    present = segment[starts]
    run_best = np.maximum.reduceat(gain, starts)
    run = np.repeat(np.arange(starts.size), np.diff(np.r_[starts, gain.size]))
    hit = gain == run_best[run]
    index = np.arange(gain.size)
    if last:
        where[present] = np.maximum.reduceat(np.where(hit, index, -1), starts)
    else:
        where[present] = np.minimum.reduceat(np.where(hit, index, gain.size), starts)
    best[present] = run_best
    return best, where


@dataclass
class ExactGrower:
    """Depth-wise growth with every distinct value a candidate (XGBoost's ``exact``)."""

    columns: SortedColumns
    X: np.ndarray  # float32, (n_rows, n_features): routing the rows after each split
    params: SplitParams
    max_depth: int = 6
    learning_rate: float = 0.3
    rng: np.random.Generator = field(default_factory=np.random.default_rng)
    colsample_bylevel: float = 1.0
    colsample_bynode: float = 1.0
    timings: dict = field(default_factory=dict)
    n_threads: int = 1

    def __post_init__(self):
        self._executor = ThreadPoolExecutor(self.n_threads) if self.n_threads > 1 else None

    def close(self):
        """Stop the grower's threads (same contract as the histogram grower)."""
        if self._executor is not None:
            self._executor.shutdown()
            self._executor = None

    def _sample(self, allowed: np.ndarray, share: float) -> np.ndarray:
        return draw_features(self.rng, allowed, share)

    def grow(self, g: np.ndarray, h: np.ndarray, features: np.ndarray | None = None) -> GrownTree:
        """Grow one tree on gradients ``g`` and hessians ``h`` of every row."""
        params, cols = self.params, self.columns
        n = cols.n_rows
        g = np.asarray(g, dtype=np.float64)
        h = np.asarray(h, dtype=np.float64)
        tree_features = np.arange(cols.n_features) if features is None else np.asarray(features)
        node_of_row = np.zeros(n, dtype=np.intp)  # node id of every row
        level_ids = np.array([0])
        totals = np.array([[g.sum(), h.sum()]])
        nodes = {  # per node id
            "parent": [-1],
            "depth": [0],
            "G": [totals[0, 0]],
            "H": [totals[0, 1]],
            "count": [n],
        }
        splits = {}  # node id -> (feature, cut, default_left, gain)
        clock = time.perf_counter()
        for depth in range(self.max_depth):
            n_level = level_ids.size
            local = np.full(len(nodes["parent"]), -1, dtype=np.intp)
            local[level_ids] = np.arange(n_level)
            row_local = local[node_of_row]
            parent_score = node_score(totals[:, 0], totals[:, 1], params)
            level_features = self._sample(tree_features, self.colsample_bylevel)
            node_features = None
            if self.colsample_bynode < 1.0:
                node_features = np.zeros((n_level, cols.n_features), dtype=bool)
                for q in range(n_level):
                    node_features[q, self._sample(level_features, self.colsample_bynode)] = True
            best = _Best(n_level)

            def scan(j, level=(row_local, n_level, g, h, totals, parent_score), mask=node_features):
                allowed = None if mask is None else mask[:, j]
                return self._scan_feature(j, *level, allowed)

            features = [j for j in level_features if not cols.constant[j]]
            scanned = self._executor.map(scan, features) if self._executor else map(scan, features)
            # Offered in feature order, as XGBoost merges: ties go to the lower feature.
            for j, offers in zip(features, scanned, strict=True):
                for offer in offers:
                    best.offer(*offer[:1], j, *offer[1:])
            clock = self._tick("splits", clock)
            split = best.gain > MIN_LOSS_CHANGE
            if not split.any():
                break
            new_ids = []
            go_left = np.zeros(n, dtype=bool)
            for q in np.flatnonzero(split):
                node = int(level_ids[q])
                j, cut, default_left = int(best.feature[q]), best.cut[q], bool(best.default_left[q])
                splits[node] = (j, cut, default_left, float(best.gain[q]))
                left_id = len(nodes["parent"])
                for _, sums in (
                    (left_id, best.left[q]),
                    (left_id + 1, totals[q] - best.left[q]),
                ):
                    nodes["parent"].append(node)
                    nodes["depth"].append(depth + 1)
                    nodes["G"].append(sums[0])
                    nodes["H"].append(sums[1])
                    nodes["count"].append(0)
                new_ids += [left_id, left_id + 1]
            # Route the rows of the split nodes: x < cut, or missing and default left.
            in_split = split[row_local] & (row_local >= 0)
            rows = np.flatnonzero(in_split)
            q_rows = row_local[rows]
            feature = best.feature[q_rows]
            x = self.X[rows, feature]
            cut = best.cut[q_rows]
            go_left = np.where(np.isnan(x), best.default_left[q_rows], x < cut)
            first_child = np.full(n_level, -1, dtype=np.intp)
            first_child[np.flatnonzero(split)] = np.array(new_ids[0::2])
            node_of_row[rows] = first_child[q_rows] + ~go_left
            level_ids = np.array(new_ids)
            totals = np.column_stack(
                [np.array(nodes["G"])[level_ids], np.array(nodes["H"])[level_ids]]
            )
            clock = self._tick("partition", clock)
        counts = np.bincount(node_of_row, minlength=len(nodes["parent"]))
        return self._assemble(nodes, splits, node_of_row, counts)

    def _scan_feature(self, j, row_local, n_level, g, h, totals, parent_score, allowed):
        """Score every cut of feature ``j`` in every node of the level.

        Returns the best candidate of each node for each of XGBoost's scans,
        in scan order, as ``(nodes, gain, cut, default_left, left sums)``.
        """
        cols, params = self.columns, self.params
        rows = cols.rows[j]
        q = row_local[rows]
        keep = q >= 0
        if allowed is not None:
            keep &= allowed[np.where(keep, q, 0)]
        rows, q, values = rows[keep], q[keep], cols.values[j][keep]
        if rows.size == 0:
            return []
        key = q.astype(np.uint8 if n_level <= 256 else np.uint16 if n_level <= 65536 else np.intp)
        permutation = np.argsort(key, kind="stable")  # by node, values still increasing
        rows, q, values = rows[permutation], q[permutation], values[permutation]
        gq, hq = g[rows], h[rows]
        counts = np.bincount(q, minlength=n_level)
        first = np.cumsum(counts) - counts
        # Inclusive running sums restarted at every node.
        run_g, run_h = np.cumsum(gq), np.cumsum(hq)
        base_g = np.where(counts > 0, run_g[first] - gq[first], 0.0)
        base_h = np.where(counts > 0, run_h[first] - hq[first], 0.0)
        incl_g, incl_h = run_g - base_g[q], run_h - base_h[q]
        known_g = np.bincount(q, weights=gq, minlength=n_level)
        known_h = np.bincount(q, weights=hq, minlength=n_level)
        parent = parent_score[q]
        mcw = params.mcw
        change = np.flatnonzero((q[1:] == q[:-1]) & (values[1:] != values[:-1]))  # cut before i+1
        lo, hi = values[change], values[change + 1]
        qc = q[change]
        midpoint = (lo + hi) * np.float32(0.5)
        candidates = []  # (order, gain, node, cut, default_left, left sums)
        # Backward scan: right child = values >= hi, left = the rest (missing included).
        right_g = known_g[qc] - incl_g[change]
        right_h = known_h[qc] - incl_h[change]
        left_g, left_h = totals[qc, 0] - right_g, totals[qc, 1] - right_h
        cut = np.where(midpoint == lo, hi, midpoint)
        ok = (left_h >= mcw) & (right_h >= mcw)
        gain = split_gain(left_g, left_h, right_g, right_h, parent[change], params)
        gain = np.where(ok, gain, -np.inf)
        candidates.append((1, gain, qc, cut, True, left_g, left_h, True))
        # Backward end: every known value right, missing left.
        present = np.flatnonzero(counts > 0)
        smallest = values[first[present]]
        end_cut = smallest - (np.abs(smallest) + _EPS32)
        left_g = totals[present, 0] - known_g[present]
        left_h = totals[present, 1] - known_h[present]
        ok = (known_h[present] >= mcw) & (left_h >= mcw)
        gain = split_gain(
            left_g, left_h, known_g[present], known_h[present], parent_score[present], params
        )
        candidates.append(
            (2, np.where(ok, gain, -np.inf), present, end_cut, True, left_g, left_h, False)
        )
        if cols.has_missing[j]:
            # Forward scan: left child = values <= lo, missing right.
            left_g, left_h = incl_g[change], incl_h[change]
            right_g, right_h = totals[qc, 0] - left_g, totals[qc, 1] - left_h
            cut = np.where(midpoint == hi, lo, midpoint)
            ok = (left_h >= mcw) & (right_h >= mcw)
            gain = split_gain(left_g, left_h, right_g, right_h, parent[change], params)
            candidates.insert(
                0, (-1, np.where(ok, gain, -np.inf), qc, cut, False, left_g, left_h, False)
            )
            largest = values[first[present] + counts[present] - 1]
            end_cut = largest + (np.abs(largest) + _EPS32)
            left_g, left_h = known_g[present], known_h[present]
            right_g = totals[present, 0] - left_g
            right_h = totals[present, 1] - left_h
            ok = (left_h >= mcw) & (right_h >= mcw)
            gain = split_gain(left_g, left_h, right_g, right_h, parent_score[present], params)
            candidates.insert(
                1, (0, np.where(ok, gain, -np.inf), present, end_cut, False, left_g, left_h, False)
            )
        # In scan order: forward cuts (ascending), forward end, backward cuts
        # (descending), backward end. Strictly better replaces, so the first wins.
        offers = []
        for _, gain, node, cut, default_left, left_g, left_h, descending in candidates:
            if gain.size == 0:
                continue
            seg_best, where = _first_max_per_segment(gain, node, n_level, last=descending)
            present = (
                np.flatnonzero(where >= 0) if descending else np.flatnonzero(where < gain.size)
            )
            chosen = where[present]
            offers.append(
                (
                    present,
                    seg_best[present],
                    cut[chosen],
                    default_left,
                    np.column_stack([left_g[chosen], left_h[chosen]]),
                )
            )
        return offers

    def _tick(self, stage: str, since: float) -> float:
        now = time.perf_counter()
        self.timings[stage] = self.timings.get(stage, 0.0) + now - since
        return now

    def _assemble(self, nodes, splits, node_of_row, counts) -> GrownTree:
        params = self.params
        n_nodes = len(nodes["parent"])
        parent = np.array(nodes["parent"], dtype=np.intp)
        G, H = np.array(nodes["G"]), np.array(nodes["H"])
        # XGBoost's prune updater: collapse, bottom-up, splits of two leaves below gamma.
        gamma = params._f(params.gamma)
        alive = dict(splits)
        changed = gamma > 0
        while changed:
            changed = False
            for node, (_, _, _, gain) in list(alive.items()):
                children = [c for c in range(n_nodes) if parent[c] == node]
                if all(c not in alive for c in children) and gain < gamma:
                    del alive[node]
                    changed = True
        # Renumber the kept nodes breadth first, children consecutive.
        keep_order = [0]
        first_child = {}
        i = 0
        while i < len(keep_order):
            node = keep_order[i]
            if node in alive:
                kids = [c for c in range(n_nodes) if parent[c] == node]
                first_child[node] = len(keep_order)
                keep_order += kids
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
        internal = feature != LEAF
        parent_new = np.array([new_id[parent[o]] if parent[o] >= 0 else -1 for o in keep_order])
        tree = Tree(
            feature=feature,
            kind=np.where(internal, NUMERIC_NODE, -1).astype(np.int8),
            threshold=threshold,
            first_child=fc,
            n_children=np.where(internal, 2, 0),
            route_offset=np.zeros(m, dtype=np.intp),
            route_table=np.zeros(0, dtype=np.intp),
            n_categories=np.zeros(m, dtype=np.intp),
            value=value.reshape(-1, 1),
            impurity=impurity,
            n_node_samples=np.bincount(leaf_of_row, minlength=m),
            weighted_n_node_samples=H[old],
            depth=np.array(nodes["depth"])[old],
            parent=parent_new,
            missing_slot=missing_slot,
        )
        return GrownTree(tree, leaf_of_row, split_value, gain, weight)


class _Best:
    """The best split found so far for every node of a level, in XGBoost's order."""

    def __init__(self, n: int):
        self.gain = np.zeros(n, dtype=np.float32)  # a split must beat loss change 0
        self.feature = np.full(n, -1, dtype=np.intp)
        self.cut = np.zeros(n, dtype=np.float32)
        self.default_left = np.zeros(n, dtype=bool)
        self.left = np.zeros((n, 2))

    def offer(self, nodes, feature, gain, cut, default_left, left):
        # Features arrive in increasing order: only a strictly better gain replaces.
        better = gain > self.gain[nodes]
        nodes = nodes[better]
        self.gain[nodes] = gain[better]
        self.feature[nodes] = feature
        self.cut[nodes] = cut[better]
        self.default_left[nodes] = default_left
        self.left[nodes] = left[better]
