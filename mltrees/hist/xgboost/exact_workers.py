"""Exact greedy's worker processes: what each serves, and the messages they exchange, chapter 13.

With several cores, :class:`~mltrees.hist.xgboost.exact.ExactGrower` hands shares
of the features to forked worker processes
(:class:`~mltrees.hist.processes.ForkedWorkers`); each keeps, regroups,
scans and routes its share, level by level (:meth:`WorkerLoop._serve`).
The messages are small typed records: a :class:`Request` carries the last
level's splits to route (:class:`Route`) and the next level to scan
(:class:`Scan`, with a :class:`TreeStart` at each tree's root); a worker
answers a scan with :class:`Found`. Large data (the rows' ``g + i h``, the
rows' sides at the last split) go through shared memory, not the pipes.
"""

from __future__ import annotations

import time
import traceback
from typing import NamedTuple

import numpy as np

from mltrees.hist.candidates import SplitCandidates
from mltrees.hist.xgboost.exact_columns import _Level

__all__ = ["Found", "Request", "Route", "Scan", "TreeStart", "WorkerLoop"]


class Route(NamedTuple):
    """A level's splits, for every process to route the rows of its own features.

    Per split node: its position in the level, its feature, and how its
    rows split in that feature's order: the first ``lead`` go left, and
    the last ``missing`` (the missing values) too if ``default_left``.
    """

    split_at: np.ndarray
    feature: np.ndarray
    lead: np.ndarray
    missing: np.ndarray
    default_left: np.ndarray


class TreeStart(NamedTuple):
    """What a worker learns at the root of every tree."""

    features: list  # the tree's features with a candidate split
    shift_exact_enough: bool  # λ may be added to the totals before the differences
    empty_child_invalid: bool  # the backward scan's empty-left end is never a valid cut
    shares: list  # every process's features, this tree
    compact: bool  # the rows' g + i h are shared as complex64


class Scan(NamedTuple):
    """A level to scan."""

    counts: np.ndarray  # rows of every node
    totals: np.ndarray  # (G, 𝓗) of every node
    partition: object  # NodePartition from the previous level, None at a root
    scanned: np.ndarray  # bool per feature: sampled for this level
    node_features: np.ndarray | None  # bool (node, feature): sampled per node, or None
    tree: TreeStart | None  # at a tree's root only


class Request(NamedTuple):
    """One message to every worker: route the last level's rows, then scan the next level."""

    route: Route | None  # None at a tree's root
    scan: Scan | None  # None after a tree's last level


class Found(NamedTuple):
    """A worker's answer to a scan: its share's best split of every node, and its seconds."""

    best: SplitCandidates
    seconds: float


GO = "go"  # after every worker has routed: the orders may be regrouped


def _balanced_shares(features, costs, n_shares) -> list:
    """Split ``features`` into ``n_shares`` lists of about equal total cost (largest first)."""
    shares, loads = [[] for _ in range(n_shares)], np.zeros(n_shares)
    for j, cost in sorted(zip(features.tolist(), costs.tolist(), strict=True), key=lambda f: -f[1]):
        k = int(np.argmin(loads))
        shares[k].append(j)
        loads[k] += cost
    return [sorted(share) for share in shares if share]


class WorkerLoop:
    """The worker side of :class:`~mltrees.hist.xgboost.exact.ExactGrower` (see the module)."""

    def _serve(self, connection, share):
        """A forked worker's loop: regroup and scan the features of ``share``, level by level.

        The worker holds the grower as it was at the fork (sorted columns,
        root orders) and keeps its own features' orders from level to
        level. ``share`` is ``(index, features)``; the worker's features
        for a tree are ``TreeStart.shares[index]``. Each message is a
        :class:`Request`. Its :class:`Route` (None at a root) gives the
        previous level's splits: the worker marks in shared memory the rows
        sent left by those on its features (:meth:`_route`), answers, and
        with other workers waits for the parent's go-ahead (:data:`GO`),
        since its orders are regrouped by every worker's routing. Its
        :class:`Scan` (None after a tree's last level) is the next level;
        the rows' ``g + i h`` are read from shared memory. The answer to a
        scan is :class:`Found`: the share's best split of every node
        (:meth:`_choose`), which the parent merges with the others', and the
        seconds it took.
        """
        self._executor, self._workers, self.n_threads = None, None, 1
        index = share[0]  # its features come with every tree
        by_feature, level = {}, None
        while (request := connection.recv()) is not None:
            try:
                route, scan = request.route, request.scan
                if route is not None:  # the previous level's splits on this share's features
                    self._route(by_feature, level, route, self._shared_go_left)
                    connection.send((True, []))
                    if scan is None:
                        continue
                    # The other workers' rows too must be routed before any order is regrouped.
                    if self._n_workers > 1 and connection.recv() is None:
                        return
                start = time.perf_counter()
                tree = scan.tree
                if tree is not None:
                    self._compact = tree.compact
                    self._shift_exact_enough = tree.shift_exact_enough
                    self._empty_child_invalid = tree.empty_child_invalid
                    self._own_share = set(tree.shares[index])
                    by_feature = self._share_orders(tree.features)
                level = _Level.of(scan.counts, scan.totals, self.params)
                partition = scan.partition
                go_left_row = None if partition is None else self._shared_go_left
                found = self._scan_share(by_feature, level, partition, go_left_row, scan.scanned)
                best = self._choose(found, level, scan.node_features)
                connection.send((True, [Found(best, time.perf_counter() - start)]))
            except Exception:
                connection.send((False, traceback.format_exc()))

    def _share_orders(self, features):
        """The root orders of this process's share of ``features``."""
        share = [j for j in features if j in self._own_share]
        return {j: (self._root_order[j], self._root_values[j], None) for j in share}

    def _rebalance(self):
        """Move a feature from the slowest process's share to the fastest's, if that helps.

        The shares are balanced by cost at the fork, but processes run at
        different speeds (a busier core, costlier features), and every level
        waits for the slowest. Between trees, when the smoothed seconds of
        the slowest process exceed the fastest's by more than one of its
        features takes, one of its features (one scanned once, if any) moves.
        The trees do not depend on the shares: ties go to the lower feature
        wherever it is scanned.
        """
        tree_load, self._tree_load = self._tree_load, np.zeros_like(self._tree_load)
        if not tree_load.any():
            return
        self._load = tree_load if self._load is None else 0.5 * (self._load + tree_load)
        slow, fast = int(np.argmax(self._load)), int(np.argmin(self._load))
        share = self._shares[slow]
        per_feature = self._load[slow] / len(share)
        if len(share) > 1 and self._load[slow] - self._load[fast] > per_feature:
            once = [j for j in share if not self.columns.has_missing[j]]
            moved = (once or share)[-1]
            share.remove(moved)
            self._shares[fast] = sorted([*self._shares[fast], moved])
            self._load[slow] -= per_feature  # as expected after the move
            self._load[fast] += per_feature
        self._own_share = set(self._shares[0])

    def _await_routing(self, scans=True) -> float:
        """Wait until every worker has routed its rows; returns the seconds waited.

        If the workers then ``scans`` a level, several of them wait for the
        go-ahead (each one's orders are regrouped by the others' routing).
        """
        start = time.perf_counter()
        self._workers.collect()
        if scans and len(self._workers) > 1:
            self._workers.submit(GO)
        return time.perf_counter() - start
