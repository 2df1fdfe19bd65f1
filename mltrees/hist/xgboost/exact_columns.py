"""Exact greedy's sorted columns and their regrouping level by level, chapter 13.

Each feature is sorted once per fit (:class:`SortedColumns`). Within a
tree, every feature's order keeps the rows of each node of the level
together, each node's rows by increasing value (missing values last):
after a level is split, a stable partition (:class:`NodePartition`)
regroups every feature's order by child, so no level sorts. One cumulative
sum of ``g + i h`` over a feature's order (:func:`_running_sums`) then gives
the children's sums at every cut of every node (:class:`_Level` holds what
the scans of a level share). Used by :mod:`mltrees.hist.xgboost.exact`.
"""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from mltrees.hist.xgboost.splitting import node_score

__all__ = ["NodePartition", "SortedColumns"]


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
