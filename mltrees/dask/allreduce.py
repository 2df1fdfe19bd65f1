r"""Histograms summed across the workers of a Dask cluster (chapter on scale).

Everything a split search needs is a sum over rows: the histograms
:math:`(\sum g, \sum h)` per (node, feature, bin) of :eq:`eq-xgb-gain`, and
the row counts of the children. Sums over the partitions of the rows add
up, so the histogram learner runs unchanged on a driver that sees only
the summed histograms (:eq:`eq-scale-allreduce`):

* :class:`DaskRows` is a row store for
  :meth:`~mltrees.hist.grower.DepthwiseGrower.grow_rows`: it keeps one
  :class:`~mltrees.hist.grower.NodeRows` per partition on the workers,
  runs every request on all of them and sums the answers with
  :func:`tree_sum`;
* :func:`merged_cuts` gives the global cut points: each partition
  summarises its columns (the weighted quantile sketch of
  :mod:`mltrees.hist.xgboost.quantile_summary`), the summaries are merged
  (:eq:`eq-xgb-sketch-merge`) and queried once.

Every task is a function of its inputs, which it does not modify: the
state of a partition (its row order, its leaves) at any level of any
tree is a function of the partition and of the splits chosen so far.
When a worker dies, Dask recomputes what it held from that lineage, and
the model is the same; when it cannot, the fit raises.
"""

from __future__ import annotations

import itertools
import math

import numpy as np

from mltrees.hist.binning import BinnedData, encode, summary_cuts
from mltrees.hist.xgboost.cuts import xgboost_cuts
from mltrees.hist.xgboost.quantile_summary import WeightedQuantileSummary

__all__ = ["DaskRows", "PartitionGroup", "WorkerLost", "exact_cuts", "merged_cuts", "tree_sum"]


def _add(a, b):
    """Sum of two partial results: arrays, or tuples of arrays added entrywise (None stays None)."""
    if a is None:
        return None
    if isinstance(a, tuple):
        return tuple(_add(x, y) for x, y in zip(a, b, strict=True))
    return a + b


def tree_sum(client, futures: list, combine=_add):
    """One future holding the sum of ``futures``, added pairwise level by level.

    A tree reduction: ``ceil(log2 p)`` rounds of additions, each on a
    worker that holds one of the two operands, so no machine receives more
    than ``log2 p`` partial sums (Dask has no all-reduce; the driver
    gathers the root).

    Implements the sum of :eq:`eq-scale-allreduce`.
    """
    futures = list(futures)
    if not futures:
        raise ValueError("tree_sum needs at least one future")
    while len(futures) > 1:
        paired = [
            client.submit(combine, futures[i], futures[i + 1], pure=False)
            for i in range(0, len(futures) - 1, 2)
        ]
        if len(futures) % 2:
            paired.append(futures[-1])
        futures = paired
    return futures[0]


# ---------------------------------------------------------------- pinned partitions
def payload_bytes(value) -> int:
    """Bytes of the arrays and numbers in ``value`` (nested tuples, lists, dicts)."""
    if isinstance(value, np.ndarray):
        return int(value.nbytes)
    if isinstance(value, (tuple, list)):
        return sum(payload_bytes(v) for v in value)
    if isinstance(value, dict):
        return sum(payload_bytes(v) for v in value.values())
    if isinstance(value, (int, float, np.generic)):
        return 8
    return 0


class WorkerLost(RuntimeError):
    """A worker holding partitions of a :class:`PartitionGroup` left the cluster.

    Their states lived in its memory: the call that found it gone raises
    this, naming the worker and its partitions. The Dask estimators catch
    it once and fit again from their input.

    Examples
    --------
    >>> from mltrees.dask import WorkerLost
    >>> issubclass(WorkerLost, RuntimeError)
    True
    """


def fold(blocks: dict, n_partitions: int, combine=_add) -> dict:
    """Add partial sums along the fixed binary tree over the partition indices.

    The tree is :func:`tree_sum`'s: level ``l`` block ``k`` is the sum of
    partitions ``k 2^l .. (k + 1) 2^l - 1`` (those that exist), the sum of
    its two halves, left first; a block without a right half is its left
    half. ``blocks`` maps ``(level, k)`` to the sums at hand; every block
    whose halves are both at hand is formed, up the tree, and the blocks
    left are returned. A worker folds the partitions it holds, the driver
    folds the workers' answers: the total is the tree's, whichever worker
    held which partitions.
    """
    blocks = dict(blocks)
    level = 0
    while (1 << level) < n_partitions:
        size = 1 << level
        for key in sorted(k for k in blocks if k[0] == level):
            if key not in blocks or key[1] % 2:
                continue
            left, right = key, (level, key[1] + 1)
            if right in blocks:
                blocks[(level + 1, key[1] // 2)] = combine(blocks.pop(left), blocks.pop(right))
            elif (key[1] + 1) * size >= n_partitions:  # no right half exists
                blocks[(level + 1, key[1] // 2)] = blocks.pop(left)
        level += 1
    return blocks


class _Host:
    """A Dask actor: the states of the partitions that one worker holds.

    It runs every call on its partitions in the order of their indices. It
    answers ``{partition index: answer}``, or, for a sum, the blocks of the
    fixed reduction tree (:func:`fold`) that its partitions complete.
    """

    def __init__(self, indices, parts, make, args):
        self.states = {i: make(part, *args) for i, part in zip(indices, parts, strict=True)}

    def run(self, posted, function, args, combine=None, n_partitions=0):
        for f, a in posted:
            for i in sorted(self.states):
                f(self.states[i], *a)
        if function is None:
            return {}
        answers = {i: function(self.states[i], *args) for i in sorted(self.states)}
        if combine is None:
            return answers
        return fold({(0, i): a for i, a in answers.items()}, n_partitions, combine)


def _placement(holders: list, workers: list) -> dict:
    """Which worker keeps each partition: contiguous runs of partitions, one per worker.

    ``P`` partitions are cut into ``W`` runs of consecutive indices (the
    first ``P mod W`` one longer), so that all workers compute and each
    worker's partitions complete blocks of the reduction tree (:func:`fold`):
    a sum then brings one message per worker to the driver. Each run goes
    to the free worker that holds most of its partitions already (ties: the
    first by address); the others move once. Returns ``{worker: [indices]}``.
    """
    workers = list(workers) or sorted({h for held in holders for h in held})
    n_runs = min(len(workers), len(holders))
    bounds = np.linspace(0, len(holders), n_runs + 1).round().astype(int)
    runs = [list(range(a, b)) for a, b in itertools.pairwise(bounds)]
    free = list(workers)
    out: dict = {}

    # The runs with the most partitions in one place choose first.
    def held_by(run, w):
        return sum(w in holders[i] for i in run)

    order = sorted(range(n_runs), key=lambda r: -max(held_by(runs[r], w) for w in free))
    for r in order:
        worker = max(free, key=lambda w: (held_by(runs[r], w), -free.index(w)))
        free.remove(worker)
        out[worker] = runs[r]
    return out


class PartitionGroup:
    r"""Live objects, one per partition, held on the workers and called in about 2 ms.

    The all-reduce primitive of :mod:`mltrees.dask`. A grower that needs a
    sum over the partitions at every level (XGBoost) or every split
    (LightGBM) cannot afford a scheduler round trip for each: a task and its
    result cost about 10 ms on a two-worker ``LocalCluster``, and a chain of
    tasks (a tree reduction) one such hop per step. Here every worker
    holding partitions runs one Dask *actor* that keeps each partition's
    state (its binned rows, statistics, the nodes of its rows) in memory;
    the driver calls all actors at once, directly on their workers (the
    scheduler is not involved), and each answers for its partitions.

    ``state = make(part, *args)`` is built once per partition, on the
    worker holding ``part``. Then:

    * ``map(function, *args)``: ``function(state, *args)`` on every
      partition; the answers, in partition order (one round trip);
    * ``sum(function, *args, combine=...)``: the same answers added in
      partition order, :math:`((a_0 + a_1) + a_2) + \dots`
      (:eq:`eq-scale-allreduce`), the same sum whichever worker held which
      partition;
    * ``post(function, *args)``: no round trip; runs on every partition
      before the next ``map`` or ``sum`` (updates whose answer nobody
      waits for, such as adding a tree to the margins).

    Functions must be importable by the workers (defined at the top of a
    module) and may change the state in place. Every answer crosses the
    network to the driver: a reduction of messages of ``B`` bytes brings
    ``P × B`` bytes to the driver for ``P`` partitions, in one step.

    A worker that dies takes its partitions' states with it: the next call
    raises :class:`WorkerLost` (a ``RuntimeError``) naming it; the states
    are never rebuilt silently.

    Parameters
    ----------
    client : distributed.Client
    parts : list of Future
        The partitions, in their order; each state is built where its
        partition is held.
    make : callable
        ``make(part, *args)``, the state of one partition.
    *args
        Passed to ``make``.

    Attributes
    ----------
    round_trips : int
        Calls of :meth:`map` and :meth:`sum` so far.
    bytes_received, bytes_sent : int
        Array bytes of the answers received and of the arguments sent.

    Examples
    --------
    >>> import numpy as np
    >>> from distributed import Client
    >>> from mltrees.dask import PartitionGroup
    >>> client = Client(processes=False, dashboard_address=":0")
    >>> parts = client.scatter([np.arange(3.0), np.arange(10.0, 14.0)])
    >>> group = PartitionGroup(client, parts, np.asarray)
    >>> group.map(np.sum)  # one answer per partition, in partition order
    [np.float64(3.0), np.float64(46.0)]
    >>> float(group.sum(np.sum))
    49.0
    >>> group.close(); client.close()
    """

    def __init__(self, client, parts: list, make, *args):
        from distributed import wait

        parts = list(parts)
        if not parts:
            raise ValueError("PartitionGroup needs at least one partition")
        self.client = client
        self.n_partitions = len(parts)
        self.round_trips = 0
        self.bytes_received = 0
        self.bytes_sent = 0
        self._posted = []
        wait(parts)
        where = client.who_has(parts)
        by_worker = _placement(
            [sorted(where.get(part.key, ())) for part in parts],
            sorted(client.scheduler_info().get("workers", {})),
        )
        self._hosts = []
        for worker, indices in sorted(by_worker.items()):
            indices = sorted(indices)
            future = client.submit(
                _Host,
                indices,
                [parts[i] for i in indices],
                make,
                args,
                actor=True,
                workers=[worker],
                allow_other_workers=False,
                pure=False,
            )
            self._hosts.append((worker, indices, future))
        self._actors = [future.result() for _, _, future in self._hosts]

    def post(self, function, *args) -> None:
        """Run ``function(state, *args)`` on every partition before the next call (no wait)."""
        self._posted.append((function, args))

    def map(self, function, *args) -> list:
        """``function(state, *args)`` on every partition: the answers in partition order."""
        answers = self._call(function, args)
        self.round_trips += 1
        self.bytes_received += payload_bytes(list(answers.values()))
        return [answers[i] for i in range(self.n_partitions)]

    def sum(self, function, *args, combine=_add):
        """The answers of :meth:`map`, added along the fixed tree over partition indices.

        ``combine(a, b)`` adds two answers (arrays, or tuples of arrays,
        by default). Each worker adds what its partitions complete of the
        tree (:func:`fold`) and sends that; the driver adds the rest. The
        order of every addition is set by the partition indices alone.
        """
        answers = self._call(function, args, combine)
        self.round_trips += 1
        self.bytes_received += payload_bytes(list(answers.values()))
        (total,) = fold(answers, self.n_partitions, combine).values()
        return total

    def flush(self) -> None:
        """Run the posted functions now (and raise what they raise)."""
        if self._posted:
            self._call(None, ())

    def _call(self, function, args, combine=None) -> dict:
        posted, self._posted = self._posted, []
        self.bytes_sent += payload_bytes(args) * len(self._actors)
        calls = [
            actor.run(posted, function, args, combine, self.n_partitions) for actor in self._actors
        ]
        answers = {}
        for (worker, indices, _), call in zip(self._hosts, calls, strict=True):
            try:
                answers.update(call.result())
            except Exception as error:
                alive = set(self.client.scheduler_info().get("workers", {}))
                if worker not in alive or isinstance(error, OSError):
                    raise WorkerLost(
                        f"the worker {worker} holding partitions {indices} was lost "
                        f"mid-fit ({type(error).__name__}: {error}); their state cannot "
                        "be recovered: fit again"
                    ) from error
                raise
        return answers

    def close(self) -> None:
        """Release the actors (and the partitions' states they hold)."""
        self._actors, self._hosts = [], []


# ---------------------------------------------------------------- the row store
def _root(state, k: int, features):
    """Start tree ``k`` of the round on one partition: its root's histograms and totals."""
    state.rows = state.node_rows(k, features)
    return state.rows.histograms(), state.rows.totals()


def _histograms(state, nodes):
    return state.rows.histograms(nodes)


def _squares(state):
    return state.rows.squares()


def _settle(state, ids, keep):
    state.rows.settle(ids, keep)


def _split(state, ids, nodes, feature, split_bin, default_left, small):
    n_left = state.rows.split(ids, nodes, feature, split_bin, default_left)
    return n_left, (None if small is None else state.rows.histograms(small))


def _finish(state, k: int):
    state.leaves[k] = state.rows.leaf_of_row()
    state.rows = None


class DaskRows:
    """A row store whose rows live on the workers: a ``NodeRows`` per partition.

    :meth:`~mltrees.hist.grower.DepthwiseGrower.grow_rows` grows a tree
    on it exactly as on one machine: every histogram it asks for is the
    sum over the partitions in partition order (:eq:`eq-scale-allreduce`),
    and so are the totals and the row counts of the children. The
    partitions' stores are held by a :class:`PartitionGroup`, whose
    partition states give a fresh ``NodeRows`` for output ``k`` by
    ``state.node_rows(k, features)`` and keep each tree's leaf of every row
    in ``state.leaves[k]``.

    A tree of depth ``D`` costs ``D + 1`` round trips when every smaller
    child is guessed right: the root, then one per level, in which the
    partitions split their rows and build the histograms of the guessed
    smaller children of the next level (none after the last level, which
    the grower never searches). A wrong guess costs one more, for those
    children only. Settling leaves and the rows' leaves are posted, not
    waited for. ``round_trips`` counts them.

    Parameters
    ----------
    group : PartitionGroup
    k : int
        The output (column of the gradients) the tree is grown for.
    features : ndarray of intp or None
        Features histograms are built for.
    n_rows : int
        Rows of all partitions together.
    max_depth : int or None
        The grower's depth limit: the children of its last level need no histograms.

    Examples
    --------
    >>> from distributed import Client
    >>> from sklearn.datasets import load_diabetes
    >>> from mltrees.dask import DaskXGBoostRegressor
    >>> client = Client(processes=False, dashboard_address=":0")  # threads in this process
    >>> X, y = load_diabetes(return_X_y=True)
    >>> model = DaskXGBoostRegressor(n_estimators=2, max_depth=2, client=client, n_partitions=2)
    >>> model.fit(X, y).round_trips_  # per tree: the root and two levels
    6
    >>> client.close()
    """

    def __init__(self, group, k: int, features, n_rows: int, max_depth: int | None = None):
        self.group = group
        self.k = int(k)
        self.features = features
        self.n_rows = int(n_rows)
        self.max_depth = max_depth
        self.round_trips = 0
        self.wrong_guesses = 0
        self._depth = 0  # levels split so far
        self._totals = None
        self._ahead = None  # (nodes, summed histograms) built with the last split

    def _sum(self, function, *args):
        self.round_trips += 1
        return self.group.sum(function, *args)

    def histograms(self, nodes: np.ndarray | None = None) -> np.ndarray:
        """Summed histograms of frontier ``nodes`` (the root, with the totals, if None)."""
        if nodes is None:
            hist, self._totals = self._sum(_root, self.k, self.features)
            return hist
        nodes = np.asarray(nodes)
        if self._ahead is None:  # nothing built ahead
            return self._sum(_histograms, nodes)
        ahead_nodes, ahead = self._ahead
        if ahead is None:
            # Below the last level: the grower searches no split there and
            # reads these histograms nowhere; zeros broadcast in its subtraction.
            return np.zeros((nodes.size, 1, 1, 1))
        wrong = ahead_nodes != nodes
        if not wrong.any():
            return ahead
        # A wrong guess: build those children only, keep the others.
        self.wrong_guesses += int(np.count_nonzero(wrong))
        out = ahead.copy()
        out[wrong] = self._sum(_histograms, nodes[wrong])
        return out

    def totals(self) -> np.ndarray:
        """Summed statistics of all rows (fetched with the root's histograms)."""
        if self._totals is None:
            self.histograms()
        return self._totals

    def squares(self) -> np.ndarray:
        """Summed Σ w r² of the frontier nodes (CART's variance rule)."""
        return self._sum(_squares)

    def settle(self, ids, keep=None) -> None:
        """The frontier nodes become leaves on every partition (posted: no round trip)."""
        self.group.post(_settle, np.asarray(ids), keep)

    def split(self, ids, nodes, feature, split_bin, default_left, guess=None) -> np.ndarray:
        """Split the frontier ``nodes`` on every partition; returns the summed left counts.

        With ``guess`` (whether each right child is the smaller, from the
        hessian sums) the histograms of the guessed smaller children are
        built and summed in the same round trip; :meth:`histograms` returns
        them if the grower, knowing the counts, asks for those children.
        """
        self._depth += 1
        last = self.max_depth is not None and self._depth >= self.max_depth
        small = None
        if guess is not None and not last:
            small = 2 * np.arange(len(guess)) + np.asarray(guess, dtype=np.intp)
        n_left, hist = self._sum(
            _split,
            np.asarray(ids),
            np.asarray(nodes),
            np.asarray(feature),
            np.asarray(split_bin),
            np.asarray(default_left),
            small,
        )
        self._ahead = (small, hist) if small is not None or last else None
        return n_left

    def leaf_of_row(self) -> None:
        """Posted: each partition keeps the leaf of each of its rows in ``state.leaves[k]``."""
        self.group.post(_finish, self.k)


# ---------------------------------------------------------------- cut points
def _summaries(X: np.ndarray, w: np.ndarray, max_bin: int, b: int):
    """Per feature, the summary of one partition's column and whether it is exact.

    A column with at most ``max_bin`` distinct values keeps them all (an
    exact summary); a longer one is pruned to ``b + 1`` values, an error
    of ``1 / b`` (:eq:`eq-xgb-sketch-prune`).
    """
    out, exact = [], []
    if w is not None and np.all(w == 1.0):
        w = None  # unit weights: a sort instead of an argsort and two gathers
    columns = np.ascontiguousarray(X.T)
    for j in range(X.shape[1]):
        summary = WeightedQuantileSummary.from_data(columns[j], w)
        exact.append(summary.size <= max_bin)
        out.append(summary if exact[-1] else summary.prune(b))
    return out, np.array(exact)


def _merge(a, b):
    summaries = [x.merge(y) for x, y in zip(a[0], b[0], strict=True)]
    return summaries, a[1] & b[1]


def merged_cuts(client, parts: list, max_bin: int, eps: float):
    """Global cut points of every feature from the partitions' merged summaries.

    Each partition summarises its columns, weighted by its sample weights;
    the summaries are merged pairwise (:func:`tree_sum` with
    :eq:`eq-xgb-sketch-merge`, which adds no error) and the driver reads
    the cuts from the result (:func:`~mltrees.hist.binning.summary_cuts`).
    A pruned part has error at most ``1 / b <= eps``, hence so has the
    merge: every cut's weighted rank is within ``eps`` of its target
    ``k / max_bin``. Features with at most ``max_bin`` distinct values get
    one bin per value, the cuts one machine would use.

    Parameters
    ----------
    client : distributed.Client
    parts : list of Future
        Per partition, a tuple ``(X, y, w)`` with float32 ``X``.
    max_bin : int
    eps : float in (0, 1]

    Returns
    -------
    cuts : list of ndarray of float32
    minimum : ndarray of float32
        The smallest value of every feature (0 for a feature without any).
    summaries : list of WeightedQuantileSummary
        The merged summary of every feature.
    """
    if not 0 < eps <= 1:
        raise ValueError(f"sketch_eps must lie in (0, 1], got {eps!r}")
    b = math.ceil(1.0 / eps)
    summaries = [
        client.submit(lambda part, b=b: _summaries(part[0], part[2], max_bin, b), p, pure=False)
        for p in parts
    ]
    merged, exact = client.gather(tree_sum(client, summaries, _merge))
    cuts = [summary_cuts(s, max_bin, bool(e)) for s, e in zip(merged, exact, strict=True)]
    minimum = np.array(
        [np.float32(s.values[0]) if s.size else np.float32(0.0) for s in merged], dtype=np.float32
    )
    return cuts, minimum, merged


def _column_slice(part, first: int, stop: int, weighted: bool):
    """Columns ``first .. stop - 1`` of one partition, feature-major, and its weights."""
    X, _, w = part
    return np.ascontiguousarray(X[:, first:stop].T), (w if weighted else None)


def _block_cuts(max_bin: int, weighted: bool, *pieces):
    """XGBoost's cuts of a block of columns from their slices, in global row order."""
    columns = np.concatenate([piece[0] for piece in pieces], axis=1)
    w = np.concatenate([piece[1] for piece in pieces]) if weighted else None
    return [xgboost_cuts(column, max_bin, w) for column in columns]


def exact_cuts(client, parts: list, n_features: int, max_bin: int, unit_weights: bool):
    """One machine's cut points, computed on the cluster by a column shuffle.

    XGBoost's one-machine sketch reads each column in row order
    (:func:`~mltrees.hist.xgboost.cuts.xgboost_cuts`), and beyond a few
    thousand values its cuts depend on that order. So every column, in the
    global row order (partition after partition), is sent to one worker,
    which cuts it with the same rule: the cuts are those
    :class:`~mltrees.ensemble.xgboost.XGBoostClassifier` computes on the
    same rows, bit for bit, and the columns are cut in parallel, a block
    per worker. The shuffle moves ``n_rows × n_features × 4`` bytes (and the
    weights, once per block), once per fit; :func:`merged_cuts` moves only
    summaries, at the price of approximate cuts.

    Parameters
    ----------
    client : distributed.Client
    parts : list of Future
        Per partition, ``(X, y, w)`` with float32 ``X``, rows of weight 0 dropped
        (as one machine drops them).
    n_features : int
    max_bin : int
    unit_weights : bool
        Whether every weight is 1 (the sketch is then unweighted, as on one machine).

    Returns
    -------
    cuts : list of ndarray of float32
    minimum : ndarray of float32
        The sketch's lower bound of every feature (the threshold of a split
        that sends only missing values left).
    """
    workers = sorted(client.scheduler_info().get("workers", {})) or [None]
    n_blocks = min(n_features, len(workers))
    bounds = np.linspace(0, n_features, n_blocks + 1).round().astype(int)
    weighted = not unit_weights
    blocks = []
    for b, (first, stop) in enumerate(itertools.pairwise(bounds)):
        pieces = [
            client.submit(_column_slice, part, int(first), int(stop), weighted, pure=False)
            for part in parts
        ]
        where = None if workers[0] is None else [workers[b % len(workers)]]
        blocks.append(
            client.submit(
                _block_cuts,
                max_bin,
                weighted,
                *pieces,
                workers=where,
                allow_other_workers=True,
                pure=False,
            )
        )
    found = [cut for block in client.gather(blocks) for cut in block]
    cuts = [cut for cut, _ in found]
    minimum = np.array([low for _, low in found], dtype=np.float32)
    return cuts, minimum


def bin_partition(X: np.ndarray, cuts: list, minimum: np.ndarray) -> BinnedData:
    """Codes of one partition against global cut points (a worker task)."""
    missing_code = max((c.size for c in cuts), default=1)
    dtype = np.uint8 if missing_code < 256 else np.uint16
    codes = np.empty((X.shape[1], X.shape[0]), dtype=dtype)
    for j, cut in enumerate(cuts):
        codes[j] = encode(np.ascontiguousarray(X[:, j]), cut, missing_code)
    return BinnedData(codes=codes, cuts=list(cuts), minimum=minimum, missing_code=missing_code)


def header(cuts: list, minimum: np.ndarray) -> BinnedData:
    """A :class:`BinnedData` without rows: what the driver's grower needs to know of the bins."""
    empty = bin_partition(np.empty((0, len(cuts)), dtype=np.float32), cuts, minimum)
    return empty
