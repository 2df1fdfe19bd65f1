"""Borders of CatBoost's float features (chapter 15).

CatBoost never sees a float feature's values, only which *borders* they
exceed: a split is the test ``x > border`` with ``x`` and ``border`` in
float32. The bin code of a value is the number of borders below it,
``code = #{k : x > border_k}``, so "``x > border_k``" is "``code > k``" and
the histogram learner works on uint8 codes.

The borders of a feature with at most ``border_count + 1`` distinct values
are all the midpoints ``a/2 + b/2`` of consecutive distinct values,
computed in float32 as CatBoost does (a midpoint in double rounds
differently about one time in five). With more distinct values CatBoost's
default ``GreedyLogSum`` picks ``border_count`` of them: it cuts the sorted
values greedily, each time splitting the bin whose cut most increases
``sum(log(bin weight))``, so that bins have nearly equal counts while a
heavy value keeps a bin of its own (:func:`greedy_log_sum_borders`).

Above 200,000 rows CatBoost chooses the borders on a random sample of
200,000 rows (measured with catboost 1.2: borders equal ours up to that
size, and share almost none with the full-data or first-rows choice above
it); here every row is used, so on larger data the borders, and then the
trees, equal CatBoost's only for features with at most ``border_count + 1``
distinct values.

Missing values (``nan_mode="Min"``, CatBoost's default) are smaller than
every number: they get code 0, and a border at the lowest float32
(``-3.4028235e38``, CatBoost's) lets a split separate them from the rest.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mltrees._midpoint import midpoint

__all__ = [
    "MaxHeap",
    "ObliviousBins",
    "encode_borders",
    "fit_borders",
    "greedy_log_sum_borders",
    "midpoint_borders",
]


def midpoint_borders(distinct: np.ndarray) -> np.ndarray:
    """All float32 midpoints ``a/2 + b/2`` of consecutive sorted distinct float32 values.

    CatBoost's formula: it cannot overflow (``(a + b) / 2`` does from
    ``2**127``), and it rounds as CatBoost does in the subnormal range.
    """
    distinct = distinct.astype(np.float32)
    return midpoint(distinct[:-1], distinct[1:], guard=False)


def greedy_log_sum_borders(sorted_values: np.ndarray, n_borders: int, *, heap=None) -> np.ndarray:
    """CatBoost's ``GreedyLogSum`` borders of one feature's sorted float32 values.

    The sorted values (duplicates kept) start as one bin. A bin of ``m``
    values is cut near its middle, before or after the run of values equal
    to its middle value, whichever gives the larger score
    ``log(l) + log(r) - log(l + r)`` (``l``, ``r``: the values on each side;
    the increase of ``Σ log(bin size)``); the bin with the largest score is
    cut next, until there are ``n_borders + 1`` bins or no bin can be cut.
    Borders are the float32 midpoints between the values either side of a cut.

    Parameters
    ----------
    sorted_values : ndarray of float32, shape (n,)
        One feature's finite training values, sorted ascending.
    n_borders : int
        Borders wanted (``border_count``).
    heap : optional
        A priority queue with ``push(score, item)`` / ``pop()`` and ``len``;
        by default :class:`MaxHeap`, whose order among equal scores is the
        one CatBoost's C++ priority queue follows.
    """
    values = sorted_values

    def score(start, stop, cut):
        if cut in (start, stop):
            return -np.inf
        return np.log(cut - start + 1e-8) + np.log(stop - cut + 1e-8) - np.log(stop - start + 1e-8)

    def best_cut(start, stop):
        middle = start + (stop - start) // 2
        lower = start + int(np.searchsorted(values[start:middle], values[middle], side="left"))
        upper = middle + int(np.searchsorted(values[middle:stop], values[middle], side="right"))
        low_score, high_score = score(start, stop, lower), score(start, stop, upper)
        return (low_score, lower) if low_score >= high_score else (high_score, upper)

    queue = MaxHeap() if heap is None else heap

    def push(start, stop):
        value, cut = best_cut(start, stop)
        queue.push(value, (start, stop, cut))

    push(0, len(values))
    while len(queue) <= n_borders:
        _value, (start, stop, cut) = queue.top()
        if cut in (start, stop):
            break
        queue.pop()
        push(start, cut)
        push(cut, stop)
    starts = np.sort([item[0] for _, item in queue.items() if item[0] > 0]).astype(np.intp)
    return midpoint(values[starts - 1], values[starts], guard=False).astype(np.float32)


class MaxHeap:
    """A binary max-heap in an array, with the sift rules of libc++'s ``priority_queue``.

    Which of two equal-scored bins is cut first decides borders when the
    budget runs out, so the order among ties is the one CatBoost's
    compiled priority queue gives: ``push`` sifts up while the parent is
    strictly smaller; ``pop`` moves the last element into the hole left by
    the top after sifting the hole down along larger children (Floyd's
    method), then sifts it up.
    """

    def __init__(self):
        self._keys: list = []
        self._items: list = []

    def __len__(self) -> int:
        return len(self._keys)

    def items(self):
        """(key, item) pairs in heap order."""
        return zip(self._keys, self._items, strict=True)

    def top(self):
        """The (key, item) of a largest key."""
        return self._keys[0], self._items[0]

    def push(self, key, item) -> None:
        """Add ``item`` with priority ``key``."""
        keys, items = self._keys, self._items
        keys.append(key)
        items.append(item)
        self._sift_up(len(keys) - 1)

    def _sift_up(self, hole: int) -> None:
        keys, items = self._keys, self._items
        key, item = keys[hole], items[hole]
        while hole > 0:
            parent = (hole - 1) // 2
            if not keys[parent] < key:
                break
            keys[hole], items[hole] = keys[parent], items[parent]
            hole = parent
        keys[hole], items[hole] = key, item

    def pop(self) -> None:
        """Remove the top."""
        keys, items = self._keys, self._items
        n = len(keys)
        if n == 1:
            keys.pop()
            items.pop()
            return
        # Floyd: walk the hole from the root to a leaf along the larger child.
        hole = 0
        while True:
            child = 2 * hole + 1
            if child >= n:
                break
            if child + 1 < n and keys[child] < keys[child + 1]:
                child += 1
            keys[hole], items[hole] = keys[child], items[child]
            hole = child
        last = n - 1
        if hole == last:
            keys.pop()
            items.pop()
            return
        keys[hole], items[hole] = keys[last], items[last]
        keys.pop()
        items.pop()
        self._sift_up(hole)


@dataclass
class ObliviousBins:
    """Float features cut at CatBoost's borders.

    Attributes
    ----------
    borders : list of ndarray of float32
        The borders of every feature, ascending (empty for a constant feature).
    codes : ndarray of uint8, shape (n_features, n_rows)
        ``#{k : x > borders[k]}`` for every training value, one row per
        feature (feature-major, so one feature's codes are contiguous).
    """

    borders: list
    codes: np.ndarray

    def encode(self, X32: np.ndarray) -> np.ndarray:
        """Codes of new float32 rows ``X32`` (NaN: code 0, below every border)."""
        return encode_borders(X32, self.borders)


def encode_borders(X32: np.ndarray, borders: list) -> np.ndarray:
    """Feature-major uint8 codes ``#{k : x > border_k}``; NaN counts no border."""
    codes = np.empty((X32.shape[1], X32.shape[0]), dtype=np.uint8)
    for j, b in enumerate(borders):
        column = X32[:, j]
        # searchsorted "left": the number of borders strictly below x, i.e. x > border.
        code = np.searchsorted(b, column, side="left")
        code[np.isnan(column)] = 0
        codes[j] = code
    return codes


def fit_borders(X32: np.ndarray, border_count: int) -> ObliviousBins:
    """CatBoost's borders of every float32 column, and the training codes.

    A column with NaN (``nan_mode="Min"``) gets one border fewer for its
    values and the border ``-3.4028235e38`` (the lowest float32) below them,
    so NaN is a bin of its own; a column of NaN only keeps that one border.
    """
    borders = []
    for j in range(X32.shape[1]):
        column = X32[:, j]
        missing = np.isnan(column)
        known = column[~missing]
        values = np.sort(known)  # one sort serves both border rules
        distinct = values[np.r_[True, values[1:] != values[:-1]]] if values.size else values
        budget = border_count - 1 if missing.any() else border_count
        if len(distinct) <= budget + 1:
            b = midpoint_borders(distinct)
        else:
            b = greedy_log_sum_borders(values, budget)
        if missing.any():
            # NaN is "below everything": CatBoost's border is the lowest float32,
            # -3.4028235e38, so that a new value below the training minimum
            # still goes with the values, not with NaN. A column of NaN keeps it:
            # a split that sends every training row the same way, which may win
            # a level and is then removed as redundant, as in CatBoost.
            below = np.finfo(np.float32).min
            b = np.concatenate(([below], b)).astype(np.float32)
        borders.append(b)
    return ObliviousBins(borders, encode_borders(X32, borders))
