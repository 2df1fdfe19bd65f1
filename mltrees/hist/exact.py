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
"""

from __future__ import annotations

import os
import threading
import time
import traceback
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from mltrees.hist.grower import GrownTree, draw_features
from mltrees.hist.processes import ForkedWorkers, can_fork, forks_safely, shared_array
from mltrees.hist.splitting import MIN_LOSS_CHANGE, SplitParams, leaf_weight, node_score, split_gain
from mltrees.tree._tree import LEAF, MISSING_NONE, NUMERIC_NODE, Tree

__all__ = ["ExactGrower", "NodePartition", "SortedColumns"]

_EPS32 = np.float32(1e-6)  # XGBoost's kRtEps, in the end-of-scan cuts
# Per-node operations of a scan run node by node on slices for levels of up to this many
# nodes, or of at least SLICED_MIN_POSITIONS positions without threads in the process;
# otherwise on arrays repeated per position. A call per node costs about a microsecond,
# an extra pass over the level about 1.5 ns per position; and with two threads every
# NumPy call on more than a few hundred elements hands the interpreter lock over,
# which costs more than that pass (100k rows, depth 6: 32 calls per scan at depth 5
# against 2; 2 threads about 10 % faster, 1 thread 10 % slower, hence the thread rule).
FEW_SEGMENTS = 2
SLICED_MIN_POSITIONS = 1 << 15
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
# A feature whose cuts (positions between two different values of a node) are at most
# this share of the level's positions has its gains computed at the cuts alone, gathered
# first; above, at every position, the ties masked (a gather costs about as much as the
# gain itself, so the share must be well below 1).
SPARSE_CUTS = 0.5
# When they are at most this share, the running sums are taken at the cuts alone (and at
# the ends of the nodes), from the sums of the runs of rows between them
# (np.add.reduceat), instead of at every position: 0.10 ms at 150k positions with
# few cuts, 0.23 ms at 5 %, against 0.32 ms for every position.
SPARSE_SUMS = 1 / 16
# A feature whose tied neighbours (equal consecutive sorted values) are at most this share
# of its values has its ties checked at the kept cuts only (a node of those is scanned
# again), instead of carrying its values through every level.
RARE_TIES = 0.01


@dataclass
class SortedColumns:
    """Every feature's known values in increasing order, with their rows.

    Attributes
    ----------
    rows, values : list of ndarray
        ``values[j]`` (float32, increasing) are the non-missing values of
        feature ``j`` and ``rows[j]`` the rows they come from (int32 below
        2**31 rows, which halves their memory; intp above).
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
    def fit(cls, X: np.ndarray, n_threads: int = 1) -> SortedColumns:
        """Sort every column of float32 ``X`` once (NaN are left out).

        The sorts run on ``n_threads`` threads (a sort releases the interpreter lock).
        """
        if isinstance(n_threads, bool) or not isinstance(n_threads, (int, np.integer)):
            raise TypeError(f"n_threads must be an integer, got {type(n_threads).__name__}")
        if n_threads < 1:
            raise ValueError(f"n_threads must be >= 1, got {n_threads}")

        columns = np.ascontiguousarray(X.T, dtype=np.float32)
        sort = _sorted_known if columns.shape[1] < 2**31 else _sorted_known_by_argsort
        if n_threads > 1 and columns.size:
            with ThreadPoolExecutor(n_threads) as executor:
                sorted_columns = list(executor.map(sort, columns))
        else:
            sorted_columns = [sort(column) for column in columns]
        rows = [known for known, _ in sorted_columns]
        values = [sorted_values for _, sorted_values in sorted_columns]
        has_missing = np.array([r.size < X.shape[0] for r in rows])
        constant = np.array([v.size == 0 or v[0] == v[-1] for v in values])
        return cls(rows, values, has_missing, constant, X.shape[0])

    @property
    def n_features(self) -> int:
        """Number of features."""
        return len(self.rows)

    @property
    def splittable(self) -> np.ndarray:
        """Features with a candidate split: two distinct known values, or one and missing values.

        A feature whose known values are all equal still separates its
        missing values from the others: XGBoost's backward scan ends with that
        candidate (``updater_colmaker.cc``, ``EnumerateSplit``).
        """
        has_known = np.array([v.size > 0 for v in self.values], dtype=bool)
        return ~self.constant | (has_known & self.has_missing)


def _sorted_known_by_argsort(column: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The rows of ``column``'s known values by increasing value (ties by row), and the values."""
    order = np.argsort(column, kind="stable")
    known = order[: np.count_nonzero(~np.isnan(column))]
    return known.astype(np.intp, copy=False), column[known]


def _sorted_known(column: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """:func:`_sorted_known_by_argsort` for fewer than 2**31 rows, in half its time.

    Each known value's float32 bits are mapped to an unsigned integer that
    orders as the value does (negative values have their bits inverted,
    the others their sign bit set); that key in the high half of a 64-bit
    word and the row in the low half make every word distinct, so an
    unstable sort of the words orders by value, then by row, as a stable
    argsort does.
    """
    rows = np.flatnonzero(~np.isnan(column))
    known = column[rows]
    known += np.float32(0.0)  # -0.0 + 0.0 is +0.0: the two zeros tie, as they compare
    bits = known.view(np.uint32)
    key = np.where(bits >> 31 == 1, ~bits, bits | np.uint32(1 << 31)).astype(np.uint64)
    key <<= np.uint64(32)
    key |= rows.astype(np.uint64)
    key.sort()
    order = (key & np.uint64(0xFFFFFFFF)).astype(np.int32)  # half the memory of intp
    return order, column[order]


# A cut's float32 gain differs from its unrounded gain G_L²/(𝓗_L+λ) + G_R²/(𝓗_R+λ) - score
# by less than about 5e-7 of the children's and parent's scores (the float32 roundings of w²,
# of each score, of their sum and of the difference), and the unrounded gain computed in
# float32 from the float64 sums errs by less than 4e-7 of it: cuts further than twice this
# tolerance below their node's best can neither win nor tie, and are not rounded at all.
_RELATIVE_TOLERANCE = 2e-6
_ABSOLUTE_TOLERANCE = 1e-30  # float32 scores underflow below ~1e-38


@dataclass
class NodePartition:
    """How the rows of a level, grouped by node, are regrouped by child.

    The rows of a level are *segments*: node ``q`` holds ``counts[q]``
    consecutive positions. A split node's segment becomes two segments of
    the next level, its left rows then its right rows, each side in its old
    order (a stable partition); the rows of a node that does not split are
    dropped. The next level's segments are the children in the order of
    their parents. Since every node sends the same number of rows left in
    every feature's order, one table serves all features: the positions of
    a feature's left rows and of its right rows (two ``flatnonzero``) are
    read in runs, one run of consecutive entries per child. The result is a
    permutation that increases within each child, so the gathers through it
    read memory almost in sequence.

    Attributes
    ----------
    runs : list of (int, slice)
        Per child of the next level, in order: its side (0 left, 1 right)
        and where its rows stand among that side's rows.
    counts : ndarray of intp
        Rows of each segment of the next level.
    n_rows : int
        Positions of the level being split (the length ``goes_left`` must have).
    """

    runs: list
    counts: np.ndarray
    n_rows: int

    @classmethod
    def plan(cls, counts, split, n_left) -> NodePartition:
        """The partition of segments of ``counts`` rows, of which ``split`` ones split.

        ``n_left[q]`` rows of a split segment ``q`` go left (ignored where
        ``split`` is False).
        """
        counts, split, n_left = np.asarray(counts), np.asarray(split), np.asarray(n_left)
        if counts.ndim != 1 or split.shape != counts.shape or n_left.shape != counts.shape:
            raise ValueError(
                "counts, split and n_left must be 1-D arrays of one length (one entry per "
                f"node), got shapes {counts.shape}, {split.shape} and {n_left.shape}"
            )
        if split.dtype != bool:
            raise TypeError(f"split must be a boolean array, got dtype {split.dtype}")
        counts = counts.astype(np.intp)
        n_left = np.where(split, n_left.astype(np.intp), 0)
        if (counts < 0).any() or (n_left < 0).any() or (n_left > counts).any():
            raise ValueError(
                "counts must be >= 0 and n_left between 0 and counts on the split nodes"
            )
        n_right = counts - n_left  # every row of a node that stops counts as right
        lefts_before = np.cumsum(n_left) - n_left
        rights_before = np.cumsum(n_right) - n_right
        children = np.column_stack([n_left, n_right])[split].ravel()
        read_from = np.column_stack([lefts_before, rights_before])[split].ravel()
        runs = [
            (k % 2, slice(a, a + c))
            for k, (a, c) in enumerate(zip(read_from.tolist(), children.tolist(), strict=True))
        ]
        return cls(runs, children, int(counts.sum()))

    def permutation(self, goes_left: np.ndarray) -> np.ndarray:
        """Old position of every position of the next level.

        ``goes_left`` (bool, per position) must be False in the segments
        that do not split. ``order[permutation]`` equals ``order[kept][argsort(2
        segment + ~goes_left, stable)]`` over the positions ``kept`` of split segments.
        """
        goes_left = np.asarray(goes_left)
        if goes_left.dtype != bool or goes_left.shape != (self.n_rows,):
            raise ValueError(
                f"goes_left must be a boolean array of the level's {self.n_rows} positions, "
                f"got dtype {goes_left.dtype} and shape {goes_left.shape}"
            )
        sides = np.flatnonzero(goes_left), np.flatnonzero(~goes_left)
        return np.concatenate([sides[side][run] for side, run in self.runs])


@dataclass
class _Level:
    """What every feature's scan of one level shares."""

    starts: np.ndarray
    counts: np.ndarray
    totals: np.ndarray  # G + i 𝓗 of every node
    parent_score: np.ndarray
    node_g: np.ndarray  # G and 𝓗 + 2λ of every node
    node_h_shifted: np.ndarray
    segment_last: np.ndarray  # last position of every node
    total_g: np.ndarray  # per position: G and 𝓗 + 2λ of its node
    total_h_shifted: np.ndarray
    parent_size: np.ndarray  # |parent_score|
    segments: list  # slice of positions of every node

    @classmethod
    def of(cls, counts, totals, params):
        counts = np.asarray(counts, dtype=np.intp)
        return cls._laid_out(
            np.cumsum(counts) - counts,
            counts,
            totals[:, 0] + 1j * totals[:, 1],
            node_score(totals[:, 0], totals[:, 1], params),
            totals[:, 0],
            totals[:, 1] + 2 * params.lam,
        )

    @classmethod
    def _laid_out(cls, starts, counts, totals, parent_score, node_g, node_h_shifted):
        """The level whose node ``q`` holds ``counts[q]`` positions from ``starts[q]``."""
        return cls(
            starts,
            counts,
            totals,
            parent_score,
            node_g,
            node_h_shifted,
            starts + counts - 1,
            np.repeat(node_g, counts),
            np.repeat(node_h_shifted, counts),
            np.abs(parent_score).astype(np.float64),
            [slice(a, a + c) for a, c in zip(starts.tolist(), counts.tolist(), strict=True)],
        )

    def restricted(self, positions: np.ndarray) -> _Level:
        """The level seen at the sorted ``positions`` only, which become its positions.

        The nodes keep their order and statistics; a node without any of
        ``positions`` is empty (a feature with a single value in it has no
        cut there).
        """
        starts = np.searchsorted(positions, self.starts)
        counts = np.diff(np.append(starts, positions.size))
        return self._laid_out(
            starts, counts, self.totals, self.parent_score, self.node_g, self.node_h_shifted
        )

    @cached_property
    def node_ends(self) -> np.ndarray:
        """Per position: whether it is the last of its node (no cut after it). Read only."""
        ends = np.zeros(int(self.counts.sum()), dtype=bool)
        ends[self.segment_last] = True
        return ends

    @cached_property
    def total(self) -> np.ndarray:
        """Per position: its node's ``G + i 𝓗`` (only the exact fallback of a scan needs it)."""
        return self.per_position(self.totals)

    def per_position(self, per_node: np.ndarray) -> np.ndarray:
        """Every node's entry of ``per_node`` at each of its positions.

        ``np.repeat`` writes runs: four times faster than a ``take`` through a
        per-position node index, though its array is fresh.
        """
        return np.repeat(per_node, self.counts)


class _Workspace(threading.local):
    """Each thread's scratch arrays, kept from scan to scan.

    A fresh array of a million bytes comes from the system as untouched
    pages, and the first write to each page faults; reusing the same
    memory for the large temporaries of every scan saves those faults.
    """

    def __init__(self):
        self.arrays = {}

    def get(self, name: str, size: int, dtype) -> np.ndarray:
        """An uninitialised array of ``size`` entries, the same memory at every call."""
        array = self.arrays.get(name)
        if array is None or array.size < size or array.dtype != dtype:
            array = self.arrays[name] = np.empty(max(size, 1), dtype=dtype)
        return array[:size]


# _running_sums halves arrays of at least this many elements: a halving costs about
# four NumPy calls plus an elementwise pass over half the elements, and saves a
# quarter of the sequential additions (100k complex elements: np.cumsum 0.34 ms,
# 0.19 ms with four halvings; at 10k about even; at 1k twice slower).
PAIRING_MIN_SIZE = 8192


def _running_sums(values: np.ndarray, pair_sums: np.ndarray):
    """Replace ``values`` (1-D) by its running sums, as ``np.cumsum`` would.

    ``np.cumsum`` adds one element at a time, each addition waiting for the
    previous one (about 3.4 ns per complex element here), while an
    elementwise addition over an array runs several times faster. So the
    consecutive pairs are added elementwise and their running sums taken
    (halving again, down to ``PAIRING_MIN_SIZE`` elements); the running sum
    at every odd position is then its pair's, and at every even position
    the previous pair's plus its own value. Only the order of the additions
    differs from a sequential sum, and the rounding error bound is no
    larger (each running sum adds fewer rounded terms). ``pair_sums`` is
    scratch space as long as ``values`` (the halvings take half of it, a
    quarter, ...).
    """
    n = values.size
    half = n // 2
    if n < PAIRING_MIN_SIZE:
        np.cumsum(values, out=values)
        return
    pairs = pair_sums[:half]
    np.add(values[0 : 2 * half : 2], values[1 : 2 * half : 2], out=pairs)
    _running_sums(pairs, pair_sums[half:])
    np.add(values[2 : 2 * half : 2], pairs[:-1], out=values[2 : 2 * half : 2])
    values[1 : 2 * half : 2] = pairs
    if n % 2:
        values[n - 1] += pairs[-1]


def _sums_through(stats: np.ndarray, positions: np.ndarray) -> np.ndarray:
    """The running sums of ``stats`` through each of ``positions`` (0 at -1), in float64.

    The rows between consecutive positions are summed as runs (one
    ``np.add.reduceat``), then those sums accumulated.
    """
    where, inverse = np.unique(positions, return_inverse=True)
    sums = np.zeros(where.size, dtype=complex)
    inside = where >= 0
    ends = where[inside]
    if ends.size:
        firsts = np.concatenate([[0], ends[:-1] + 1])
        runs = np.add.reduceat(stats[: ends[-1] + 1], firsts, dtype=complex)
        sums[inside] = np.cumsum(runs)
    return sums[inverse]


def _prefix(running: np.ndarray, index: np.ndarray) -> np.ndarray:
    """``running[index]``, 0 where ``index`` is -1 (before the first position)."""
    return np.where(index >= 0, running[np.maximum(index, 0)], 0.0)


@dataclass
class ExactGrower:
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
        if self._executor is not None:
            self._executor.shutdown()
            self._executor = None
        if self._workers is not None:
            self._workers.close()
            self._workers = None

    def _serve(self, connection, share):
        """A forked worker's loop: regroup and scan the features of ``share``, level by level.

        The worker holds the grower as it was at the fork (sorted columns,
        root orders) and keeps its own features' orders from level to
        level. A request is :meth:`grow`'s ``(route, scan)``. ``route``
        (None at a root) gives the previous level's splits: the worker marks
        in shared memory the rows sent left by those on its features
        (:meth:`_route`), answers, and with other workers waits for the
        parent's go-ahead, since its orders are regrouped by every worker's
        routing. ``scan`` (None after a tree's last level) is ``(counts,
        totals, partition, scanned, node_features, tree)``, ``tree`` being
        ``(features, (shift_exact_enough, empty_child_invalid), shares,
        compact)`` at the root of every tree and None below (``share`` is
        ``(index, features)``, and the worker's features for a tree are
        ``shares[index]``); the rows'
        ``g + i h`` are read from shared memory. The answer to a scan is the
        share's best split of every node (:meth:`_choose`), which the parent
        merges with the others', and the seconds it took.
        """
        self._executor, self._workers, self.n_threads = None, None, 1
        index = share[0]  # its features come with every tree
        by_feature, level = {}, None
        while (request := connection.recv()) is not None:
            try:
                route, scan = request
                if route is not None:  # the previous level's splits on this share's features
                    self._route(by_feature, level, route, self._shared_go_left)
                    connection.send((True, []))
                    if scan is None:
                        continue
                    # The other workers' rows too must be routed before any order is regrouped.
                    if self._n_workers > 1 and connection.recv() is None:
                        return
                start = time.perf_counter()
                counts, totals, partition, scanned, node_features, tree = scan
                if tree is not None:
                    features, flags, shares, self._compact = tree
                    self._shift_exact_enough, self._empty_child_invalid = flags
                    self._own_share = set(shares[index])
                    by_feature = self._share_orders(features)
                level = _Level.of(counts, totals, self.params)
                go_left_row = None if partition is None else self._shared_go_left
                found = self._scan_share(by_feature, level, partition, go_left_row, scanned)
                best = self._choose(found, level, node_features)
                connection.send((True, [(best, time.perf_counter() - start)]))
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

    def _route(self, by_feature, level, route, go_left_row):
        """Mark in ``go_left_row`` the rows sent left by the splits on features held here.

        ``route`` is ``(split_at, feature, lead, missing, default_left)``,
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

    def _scan_share(self, by_feature, level, partition, go_left_row, scanned):
        """:meth:`_advance` every feature of ``by_feature`` in turn: ``[(j, candidates)]``."""
        found, gh = [], self._gh_table(self._shared_gh, self._compact)
        for j in sorted(by_feature):
            parts = self._advance(j, by_feature, gh, level, partition, go_left_row, scanned)
            if parts is not None:
                found.append((j, parts))
        return found

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
                    flags = (self._shift_exact_enough, self._empty_child_invalid)
                    tree = (kept, flags, self._shares, self._compact)
                scan = (counts, totals, partition, scanned, node_features, tree)
                self._workers.submit((route, scan))
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
                for k, (theirs, seconds) in enumerate(self._workers.collect(), 1):
                    best.merge(theirs)  # the best split of each share
                    self._tree_load[k] += seconds
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
            route = (split_at, *(side[split_at] for side in sides))
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
            self._workers.submit((route, None))
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

    def _await_routing(self, scans=True) -> float:
        """Wait until every worker has routed its rows; returns the seconds waited.

        If the workers then ``scans`` a level, several of them wait for the
        go-ahead (each one's orders are regrouped by the others' routing).
        """
        start = time.perf_counter()
        self._workers.collect()
        if scans and len(self._workers) > 1:
            self._workers.submit("go")
        return time.perf_counter() - start

    def _regroup(self, j, by_feature, partition, go_left_row):
        """Regroup feature ``j``'s order by the previous level's children (None)."""
        if partition is not None:
            rows, values, stats = by_feature[j]
            goes_left = self._scratch.get("goes_left", rows.size, bool)
            permutation = partition.permutation(go_left_row.take(rows, out=goes_left, mode="clip"))
            by_feature[j] = tuple(
                None if part is None else part.take(permutation) for part in (rows, values, stats)
            )

    def _advance(self, j, by_feature, gh, level, partition, go_left_row, scanned):
        """Regroup feature ``j``'s order; if the level samples ``j``, scan it.

        ``by_feature[j]`` is ``(rows, values, stats)``: the order's rows,
        their values (None for a feature with rare ties and no missing
        values) and their ``g + i h`` (None until the feature is first
        scanned in the tree, then gathered from ``gh``). Returns
        :meth:`_scan_feature`'s candidates, or None for a feature the level
        does not scan (its order is regrouped all the same).
        """
        self._regroup(j, by_feature, partition, go_left_row)
        if not scanned[j]:
            return None
        rows, values, stats = by_feature[j]
        if stats is None:  # gathered once per tree, then regrouped with the rows
            stats = gh.take(rows)
            by_feature[j] = (rows, values, stats)
        return self._scan_feature(j, rows, values, stats, level)

    def _scan_feature(self, j, rows, values, stats, level):
        """The cuts of feature ``j`` that may be best in a node of the level.

        ``rows`` are the level's rows, node by node, each node's by
        increasing value of the feature with its missing values last,
        ``values`` their values (None for a feature without missing values
        and with rare ties: its values are then read from ``X`` where
        needed), and ``stats`` the rows' ``g + i h``: one cumulative sum carries both
        statistics (complex addition adds the parts as two float64 sums
        would). Returns the candidates, scan by scan, as ``(position, left,
        right, cut, default_left, rank, lead, missing)``: the children's
        ``G + i 𝓗``, the cut, the candidate's place in XGBoost's order of
        scans (:meth:`_choose`), and how its node's rows split in this
        order: the first ``lead`` go left, and the ``missing`` last (the
        missing values) too if ``default_left``.
        """
        cols = self.columns
        starts, counts = level.starts, level.counts
        n_positions = rows.size
        if values is None:
            column = self._XT[j]
            values_at = lambda positions: column.take(rows.take(positions))  # noqa: E731
        else:
            values_at = values.take
        parts = []
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            # A cut after position p lies between two different known values of one node.
            if values is None:  # only between nodes; ties are checked at the kept cuts
                same = level.node_ends
            else:
                same = self._scratch.get("same", n_positions, bool)
                np.equal(values[1:], values[:-1], out=same[:-1])
                same[level.segment_last] = True
            known = counts
            if cols.has_missing[j]:
                missing = np.isnan(values)
                same[:-1] |= missing[1:]
                known = counts - np.add.reduceat(missing, starts, dtype=np.intp)
            last_known = starts + known - 1
            n_missing = counts - known
            # With many ties (few distinct values) the cuts are few: the scans then
            # compute gains at the cuts alone, on the level restricted to them.
            cut_positions = None if values is None else np.flatnonzero(~same)
            if cut_positions is not None and cut_positions.size > SPARSE_CUTS * n_positions:
                cut_positions = None
            # The running sums of g + i h where they are needed: at the cuts and before
            # and after each node's known values.
            if cut_positions is not None and cut_positions.size <= SPARSE_SUMS * n_positions:
                m = cut_positions.size
                sums = _sums_through(stats, np.concatenate([cut_positions, last_known, starts - 1]))
                k = m + starts.size
                scan_running, through, before = sums[:m], sums[m:k], sums[k:]
            else:
                running = self._scratch.get("running", n_positions, complex)
                np.copyto(running, stats)  # summed in float64 from complex64 too
                _running_sums(running, self._scratch.get("pair_sums", n_positions, complex))
                scan_running = running if cut_positions is None else running[cut_positions]
                through, before = _prefix(running, last_known), _prefix(running, starts - 1)
            scan_level, scan_same = level, same
            if cut_positions is not None:
                scan_level = level.restricted(cut_positions)
                scan_same = np.zeros(cut_positions.size, dtype=bool)
            # The ends of the scans (all known values on one side) need each node's known sums.
            ends = cols.has_missing[j] or not self._empty_child_invalid
            if ends:
                known_sums = through - before
                present = np.flatnonzero(known > 0)
            end = n_positions + 1  # ranks: forward cuts < forward end < backward cuts < ...
            # XGBoost skips the forward scan of a feature whose known values are all equal
            # (NeedForwardSearch): its only candidate is the backward scan's end.
            single_valued = bool(cols.constant[j])
            if cols.has_missing[j] and not single_valued:
                # Forward scan (ascending): left child = values <= lo, missing right.
                chosen, left, right = self._cuts(
                    scan_running, before, scan_level, scan_same, forward=True
                )
                if cut_positions is not None:
                    chosen = cut_positions[chosen]
                lo, hi = values_at(chosen), values_at(chosen + 1)
                midpoint = (lo + hi) * np.float32(0.5)
                cut = np.where(midpoint == hi, lo, midpoint)
                node = np.searchsorted(starts, chosen, side="right") - 1
                lead = chosen - starts[node] + 1
                # When the midpoint rounds onto a value the cut is lo itself, and x < lo sends
                # lo's rows right (as XGBoost does, though the scan counted them left).
                for i in np.flatnonzero(cut == lo).tolist():
                    below = values_at(np.arange(starts[node[i]], chosen[i] + 1))
                    lead[i] = np.searchsorted(below, lo[i], side="left")
                parts.append((chosen, left, right, cut, False, chosen, lead, n_missing[node]))
                # Forward end: every known value left, missing right.
                largest = values_at(last_known[present])
                end_cut = largest + (np.abs(largest) + _EPS32)
                left = known_sums[present]
                right = level.totals[present] - left
                parts.append(
                    (
                        starts[present],
                        left,
                        right,
                        end_cut,
                        False,
                        np.full(present.size, end),
                        known[present],
                        n_missing[present],
                    )
                )
            # Backward scan (descending): right child = values >= hi, missing left.
            if not single_valued:
                chosen, left, right = self._cuts(
                    scan_running,
                    through,
                    scan_level,
                    scan_same,
                    False,
                    values_at if values is None else None,
                )
                if cut_positions is not None:
                    chosen = cut_positions[chosen]
                lo, hi = values_at(chosen), values_at(chosen + 1)
                midpoint = (lo + hi) * np.float32(0.5)
                cut = np.where(midpoint == lo, hi, midpoint)
                node = np.searchsorted(starts, chosen, side="right") - 1
                lead = chosen - starts[node] + 1
                rank = 2 * end - chosen
                parts.append((chosen, left, right, cut, True, rank, lead, n_missing[node]))
            if not ends:
                return parts
            # Backward end: every known value right, missing left.
            smallest = values_at(starts[present])
            end_cut = smallest - (np.abs(smallest) + _EPS32)
            right = known_sums[present]
            left = level.totals[present] - right
            parts.append(
                (
                    starts[present],
                    left,
                    right,
                    end_cut,
                    True,
                    np.full(present.size, 3 * end),
                    np.zeros(present.size, dtype=np.intp),
                    n_missing[present],
                )
            )
        return parts

    @staticmethod
    def _children(running, anchor, level, forward):
        """Both children's ``G + i 𝓗`` at every cut of a scan.

        Forward, the left child is accumulated (``running - anchor``,
        ``anchor`` the sums before the node); backward, the right child is
        (``anchor - running``, ``anchor`` the node's sums through its last
        known value); the other child is the node's total minus it, as in
        XGBoost.
        """
        if forward:
            left = np.repeat(anchor, level.counts)
            np.subtract(running, left, out=left)
            return left, level.total - left
        right = np.repeat(anchor, level.counts)
        right -= running
        return level.total - right, right

    def _sliced(self, level, n_positions) -> bool:
        """Whether per-node operations run node by node on slices (see ``FEW_SEGMENTS``)."""
        return len(level.segments) <= FEW_SEGMENTS or (
            self._executor is None and n_positions >= SLICED_MIN_POSITIONS
        )

    def _fast_gain(self, running, anchor, level, forward, lam, excluded):
        """The unrounded gain of every cut in float32, and both children's ``𝓗 + λ``.

        The children's sums are taken in float64 (they cancel), as in
        :meth:`_children` but with ``λ`` added to the hessians; only the
        squares, quotients and the sum are rounded to float32, which halves
        the memory they stream through. ``-inf`` where ``excluded`` (a
        mask, or positions when they are few).
        """
        f32, n, scratch = np.float32, running.size, self._scratch
        accumulated = scratch.get("accumulated", n, complex)
        shifted = anchor + (-1j if forward else 1j) * lam
        if self._sliced(level, n):  # a scalar per node
            for q, segment in enumerate(level.segments):
                if forward:  # the left child: running - anchor
                    np.subtract(running[segment], shifted[q], out=accumulated[segment])
                else:  # the right child: anchor - running
                    np.subtract(shifted[q], running[segment], out=accumulated[segment])
        else:  # two calls for all the nodes, whose GIL hand-overs cost more than the pass
            accumulated[:] = level.per_position(shifted)
            if forward:
                np.subtract(running, accumulated, out=accumulated)
            else:
                np.subtract(accumulated, running, out=accumulated)
        score = np.square(accumulated.real, out=scratch.get("score", n, f32), casting="same_kind")
        h_this = scratch.get("h_this", n, f32)
        np.copyto(h_this, accumulated.imag, casting="same_kind")
        score /= h_this
        other = np.subtract(
            level.total_g, accumulated.real, out=scratch.get("other", n, f32), casting="same_kind"
        )
        other *= other
        h_other = np.subtract(
            level.total_h_shifted,
            accumulated.imag,
            out=scratch.get("h_other", n, f32),
            casting="same_kind",
        )
        other /= h_other
        score += other
        if excluded.dtype == bool:
            np.copyto(score, -np.inf, where=excluded)
        else:
            score[excluded] = -np.inf
        return (score, h_this, h_other) if forward else (score, h_other, h_this)

    def _cuts(self, running, anchor, level, same, forward, unchecked_ties=None):
        """The cuts of one scan that may be best in their node, and their children's sums.

        Each cut's unrounded gain ``G_L²/(𝓗_L+λ) + G_R²/(𝓗_R+λ)`` is
        computed; only the cuts within the rounding tolerance of their
        node's best are kept for the float32 gain (:meth:`_choose`). The
        children's weights are checked at the kept cuts: in a node where one
        is too light, the cuts whose children are clearly too light are left
        out and the node's best taken again (the other nodes keep theirs: none
        of their kept cuts is light); if that is not enough, every cut is
        checked exactly. ``same`` marks the cuts between equal values; when
        ``unchecked_ties`` (positions -> values) is given, it marks only the
        ends of the nodes, and a kept cut between tied values sends its node
        through the same second pass, with the node's ties (read then) left out too.
        """
        min_h, lam = self._min_h, self.params.lam
        if self._approximate and self._shift_exact_enough:
            excluded = same if unchecked_ties is None else level.segment_last
            score, h_l, h_r = self._fast_gain(running, anchor, level, forward, lam, excluded)
            # Children lighter than this for sure (the shifted sums err by far less).
            light = np.float32((min_h + lam) * (1 - 1e-5))
            if running.size < SLICED_MIN_POSITIONS:
                # On few positions, leaving those cuts out at once (a pass) is cheaper than
                # taking again, node by node, the nodes whose best cut has a light child.
                np.copyto(score, -np.inf, where=(h_l < light) | (h_r < light))
            chosen, nodes = self._near_best(score, level), None
            for attempt in range(2):
                if chosen is None:
                    break
                node = np.searchsorted(level.starts, chosen, side="right") - 1
                if forward:
                    left_sums = running[chosen] - anchor[node]
                    right_sums = level.totals[node] - left_sums
                else:
                    right_sums = anchor[node] - running[chosen]
                    left_sums = level.totals[node] - right_sums
                valid = (left_sums.imag >= min_h) & (right_sums.imag >= min_h)
                tied = ()
                if unchecked_ties is not None:
                    at_tie = unchecked_ties(chosen) == unchecked_ties(chosen + 1)
                    valid &= ~at_tie
                    tied = set(node[at_tie].tolist())  # nodes whose ties must be read
                if valid.all():
                    return chosen, left_sums, right_sums
                if attempt:
                    break
                again = np.zeros(level.counts.size, dtype=bool)
                again[node[~valid]] = True
                nodes = np.flatnonzero(again)
                for q in nodes.tolist():
                    segment = level.segments[q]
                    excluded = (h_l[segment] < light) | (h_r[segment] < light)
                    if q in tied:
                        values = unchecked_ties(np.arange(segment.start, segment.stop))
                        excluded[:-1] |= values[1:] == values[:-1]
                    np.copyto(score[segment], -np.inf, where=excluded)
                retaken = self._near_best(score, level, nodes)
                if retaken is not None:  # (in no particular order: ranks order the candidates)
                    chosen = np.concatenate([chosen[~again[node]], retaken])
                else:
                    chosen = None
        if unchecked_ties is not None:  # every tie, for the exact checks
            values = unchecked_ties(np.arange(running.size))
            same = same.copy()
            same[:-1] |= values[1:] == values[:-1]
        left, right = self._children(running, anchor, level, forward)
        excluded = same | (left.imag < min_h) | (right.imag < min_h)
        chosen = None
        if self._approximate:
            g_l, h_l, g_r, h_r = (
                left.real.copy(),
                left.imag + lam,
                right.real.copy(),
                right.imag + lam,
            )
            chosen = self._near_best(self._unrounded_gain(g_l, h_l, g_r, h_r, excluded), level)
        if chosen is None:
            chosen = np.flatnonzero(~excluded)
        return chosen, left[chosen], right[chosen]

    @staticmethod
    def _unrounded_gain(g_l, h_l, g_r, h_r, excluded):
        """``G_L²/(𝓗_L+λ) + G_R²/(𝓗_R+λ)`` from ``g_l, h_l = G_L, 𝓗_L+λ`` (and right).

        Overwrites ``g_l`` and ``g_r``; ``-inf`` where ``excluded``.
        """
        g_l *= g_l
        g_l /= h_l
        g_r *= g_r
        g_r /= h_r
        g_l += g_r
        np.copyto(g_l, -np.inf, where=excluded)
        return g_l

    def _near_best(self, score, level, nodes=None):
        """Cuts whose unrounded gain is within the rounding tolerance of their node's best.

        Over every node of the level, or only over ``nodes`` (few, node by
        node). None if a gain is not a number or infinite.
        """
        if nodes is not None:
            segments = [score[level.segments[q]] for q in nodes.tolist()]
            best = np.array([segment.max() for segment in segments])
        elif level.counts.all():
            best = np.maximum.reduceat(score, level.starts)
        else:  # a level restricted to a feature's cuts has empty nodes
            best = np.full(level.counts.size, -np.inf, dtype=score.dtype)
            nonempty = level.counts > 0
            if nonempty.any():
                best[nonempty] = np.maximum.reduceat(score, level.starts[nonempty])
        top = best.max()
        if np.isnan(top) or top == np.inf:
            return None
        # Nodes without a cut (best -inf) get a NaN floor, which no score reaches.
        best = best.astype(np.float64)
        size = level.parent_size if nodes is None else level.parent_size[nodes]
        floor = best - 2 * _RELATIVE_TOLERANCE * (best + size) - _ABSOLUTE_TOLERANCE
        # In the scores' precision, one step lower: the comparison runs in one dtype.
        rounded = np.nextafter(floor.astype(score.dtype), -np.inf)
        if nodes is not None:
            return np.concatenate(
                [
                    np.flatnonzero(segment >= low) + level.starts[q]
                    for q, segment, low in zip(nodes.tolist(), segments, rounded, strict=True)
                ]
            )
        near = self._scratch.get("near", score.size, bool)
        if self._sliced(level, score.size):  # a scalar per node, as in _fast_gain
            for segment, low in zip(level.segments, rounded.tolist(), strict=True):
                np.greater_equal(score[segment], low, out=near[segment])
        else:
            np.greater_equal(score, level.per_position(rounded), out=near)
        return np.flatnonzero(near)

    def _choose(self, found, level, node_features) -> _Best:
        """The best split of every node among the candidates of every feature.

        The float32 gains of all candidates of the level are computed at
        once. Ties go, as in XGBoost, to the lower feature, then to the
        earlier candidate in the order of its scans: forward cuts by
        increasing value, the forward end, backward cuts by decreasing
        value, the backward end. A split must gain more than 0.
        """
        best = _Best(level.counts.size)
        parts = [(j, *part) for j, scanned in found for part in scanned]
        if not parts:
            return best
        sizes = [part[1].size for part in parts]
        position = np.concatenate([part[1] for part in parts])
        node = np.searchsorted(level.starts, position, side="right") - 1
        left = np.concatenate([part[2] for part in parts])
        right = np.concatenate([part[3] for part in parts])
        cut = np.concatenate([part[4] for part in parts])
        default_left = np.repeat([part[5] for part in parts], sizes)
        rank = np.concatenate([part[6] for part in parts])
        lead = np.concatenate([part[7] for part in parts])
        missing = np.concatenate([part[8] for part in parts])
        feature = np.repeat([part[0] for part in parts], sizes)
        left_g, left_h, right_g, right_h = left.real, left.imag, right.real, right.imag
        parent = level.parent_score[node]
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            gain = split_gain(left_g, left_h, right_g, right_h, parent, self.params)
        valid = (left_h >= self._min_h) & (right_h >= self._min_h)
        if node_features is not None:
            valid &= node_features[node, feature]
        gain = np.where(valid, gain, -np.inf).astype(np.float32)
        top = np.full(best.gain.size, -np.inf, dtype=np.float32)
        np.maximum.at(top, node, gain)
        tied = np.flatnonzero((gain == top[node]) & (gain > 0))
        tied = tied[np.lexsort((rank[tied], feature[tied], node[tied]))]
        first = tied[np.r_[True, node[tied][1:] != node[tied][:-1]]] if tied.size else tied
        q = node[first]
        best.gain[q] = gain[first]
        best.feature[q] = feature[first]
        best.cut[q] = cut[first]
        best.default_left[q] = default_left[first]
        best.left[q] = np.column_stack([left_g[first], left_h[first]])
        best.lead[q] = lead[first]
        best.missing[q] = missing[first]
        return best

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


def _balanced_shares(features, costs, n_shares) -> list:
    """Split ``features`` into ``n_shares`` lists of about equal total cost (largest first)."""
    shares, loads = [[] for _ in range(n_shares)], np.zeros(n_shares)
    for j, cost in sorted(zip(features.tolist(), costs.tolist(), strict=True), key=lambda f: -f[1]):
        k = int(np.argmin(loads))
        shares[k].append(j)
        loads[k] += cost
    return [sorted(share) for share in shares if share]


class _Best:
    """The best split of every node of a level (feature -1 and gain 0 where none gains)."""

    def __init__(self, n: int):
        self.gain = np.zeros(n, dtype=np.float32)  # a split must beat loss change 0
        self.feature = np.full(n, -1, dtype=np.intp)
        self.cut = np.zeros(n, dtype=np.float32)
        self.default_left = np.zeros(n, dtype=bool)
        self.left = np.zeros((n, 2))
        # In the order of the feature: the node's first `lead` rows go left, and its
        # last `missing` rows (its missing values) too if default_left.
        self.lead = np.zeros(n, dtype=np.intp)
        self.missing = np.zeros(n, dtype=np.intp)

    def n_left(self) -> np.ndarray:
        """Rows sent left by each node's split."""
        return self.lead + np.where(self.default_left, self.missing, 0)

    def merge(self, other: _Best) -> None:
        """Keep, node by node, the better of this and ``other``, found on other features.

        The better split gains more; of two that gain the same, the one on
        the lower feature wins, as in :meth:`ExactGrower._choose`.
        """
        better = (other.gain > self.gain) | (
            (other.gain == self.gain) & (other.feature < self.feature)
        )
        for name in ("gain", "feature", "cut", "default_left", "left", "lead", "missing"):
            getattr(self, name)[better] = getattr(other, name)[better]
