"""Gradient histograms: (Σg, Σh) per (node, feature, bin), chapter 13.

A split of a node is scored from the sums of the gradients ``g_i`` and
hessians ``h_i`` of its rows on each side (:eq:`eq-xgb-gain`), and every
cut of a feature between bins is a prefix of that feature's bins. So the
learner needs, per node and feature, the sums per bin: a histogram, one
``bincount`` per feature over the rows' bin codes.

The **subtraction trick**: the two children of a node partition its rows,
so their histograms add up to the parent's. Only the child with fewer rows
is built from its rows; the other is the parent's histogram minus it. Each
level then reads at most half of the rows of the level above.
"""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np

# SciPy's compiled sparse-times-dense kernel, y[key] += x[row] for several columns at
# once, or None when it is missing or fails its check of signature and summation order
# (mltrees._compat): then the bincount paths below, with the same sums.
from mltrees._compat import csc_matvecs

__all__ = ["build_histograms", "children_histograms", "leaf_histogram", "subtract"]


GROUPS_PER_PASS = 16  # above this many groups, one keyed pass per feature beats slices
SMALL_NODE = 1 << 15  # rows x features up to which one bincount covers all features
SMALL_ROWS = 1024  # or rows: with many features, per-feature calls cost more than the rows
THREADED_NODE = 1 << 17  # rows x features from which the features are split over threads
SCATTER_BLOCK_ROWS = 1 << 15  # rows per pass of the scatter path: its keys stay in cache
SCATTER_THREADED = 1 << 22  # rows x features from which the scatter path uses threads
# Rows x features up to which one bincount per statistic builds a whole level: as fast as a
# bincount per feature and group at the root, many times faster with many small groups;
# beyond, its keys (8 bytes a cell) leave the cache and the root takes twice as long.
KEYED_CELLS = 1 << 19


def build_histograms(
    codes: np.ndarray,
    stride: int,
    statistics: tuple[np.ndarray, ...],
    order: np.ndarray | None = None,
    starts: np.ndarray | None = None,
    counts: np.ndarray | None = None,
    features: np.ndarray | None = None,
    executor: ThreadPoolExecutor | None = None,
) -> np.ndarray:
    """Sum each statistic per (group, feature, bin).

    Implements the histograms behind :eq:`eq-xgb-gain`: entry ``[q, j, b, s]``
    is the sum of ``statistics[s]`` over the rows of group ``q`` whose
    feature ``j`` falls in bin ``b``.

    Parameters
    ----------
    codes : ndarray of uint8 or uint16, shape (n_features, n_rows)
        Feature-major bin codes (:class:`~mltrees.hist.binning.BinnedData`).
    stride : int
        Codes per feature (bins and the missing bin).
    statistics : tuple of ndarray of float64, shape (n_rows,)
        Per-row values to sum, e.g. ``(g, h)``; ``None`` counts rows.
    order, starts, counts : ndarray of intp, optional
        Group ``q`` is the rows ``order[starts[q] : starts[q] + counts[q]]``
        (the grower keeps every node's rows contiguous in ``order``). Without
        them there is one group: all rows.
    features : ndarray of intp, optional
        Features to build (all if None); the others stay zero.
    executor : ThreadPoolExecutor, optional
        Work is spread over its threads (``bincount`` releases the GIL for
        part of its work).

    Returns
    -------
    ndarray of float64, shape (n_groups, n_features, stride, len(statistics))
    """
    n_features = codes.shape[0]
    features = np.arange(n_features) if features is None else np.asarray(features)
    n_groups = 1 if order is None else len(starts)
    n_rows = codes.shape[1] if order is None else int(np.sum(counts))
    if n_rows * features.size <= KEYED_CELLS:
        return _keyed_histograms(codes, stride, statistics, order, starts, counts, features)
    hist = np.zeros((n_groups, n_features, len(statistics), stride))

    def sums(key, weights, out, minlength):
        for s, weight in enumerate(weights):
            out[s] = np.bincount(key, weights=weight, minlength=minlength)

    tasks = []
    if order is None:
        for j in features:
            tasks.append(lambda j=j: sums(codes[j], statistics, hist[0, j], stride))
    elif n_groups <= GROUPS_PER_PASS:
        slices = [order[starts[q] : starts[q] + counts[q]] for q in range(n_groups)]
        weights = [tuple(None if w is None else w[rows] for w in statistics) for rows in slices]

        def by_group(j):  # one task per feature: fewer hand-offs between threads
            for q, rows in enumerate(slices):
                sums(codes[j].take(rows), weights[q], hist[q, j], stride)

        tasks = [lambda j=j: by_group(j) for j in features]
    else:
        index = np.arange(counts.sum(), dtype=np.intp)
        group = np.repeat(np.arange(n_groups), counts)
        rows = order[index - (np.cumsum(counts) - counts)[group] + starts[group]]
        weights = tuple(None if w is None else w[rows] for w in statistics)
        offset = group * stride

        def keyed(j):
            out = np.empty((len(statistics), n_groups * stride))
            sums(offset + codes[j].take(rows), weights, out, n_groups * stride)
            hist[:, j] = out.reshape(len(statistics), n_groups, stride).transpose(1, 0, 2)

        tasks = [lambda j=j: keyed(j) for j in features]
    if executor is None or len(tasks) < 2:
        for task in tasks:
            task()
    else:
        list(executor.map(lambda task: task(), tasks))
    return hist.transpose(0, 1, 3, 2)  # (group, feature, bin, statistic)


def _keyed_histograms(codes, stride, statistics, order, starts, counts, features):
    """:func:`build_histograms` of few cells: one ``bincount`` per statistic for everything.

    The key of a (feature, row) entry is ``(group, feature, code)`` flattened,
    laid out feature by feature and, within a feature, in the order of the
    groups' rows: every bin receives its rows in that order, so the sums are
    those of a ``bincount`` per group and feature, bit for bit, in one call
    instead of ``groups x features`` calls.
    """
    n_features = codes.shape[0]
    n_groups = 1 if order is None else len(starts)
    if order is None:
        rows, group = None, 0
        block = codes if features.size == n_features else codes[features]
    else:
        # (ndarray methods, not numpy's functions: on small levels their
        # Python wrappers cost as much as the work.)
        counts = np.asarray(counts, dtype=np.intp)
        group = np.arange(n_groups).repeat(counts)
        shift = np.asarray(starts) - (counts.cumsum() - counts)  # position - index in the level
        rows = order.take(np.arange(group.size) + shift.take(group))
        block = codes if features.size == n_features else codes[features]
        block = block.take(rows, axis=1)  # (built features, rows)
    keys = (group * n_features + features[:, None]) * stride + block
    keys = keys.ravel()
    size = n_groups * n_features * stride
    hist = np.empty((size, len(statistics)))  # a bin's statistics side by side
    for s, weight in enumerate(statistics):
        if weight is not None:
            weight = weight if rows is None else weight.take(rows)
            weight = weight[None, :].repeat(block.shape[0], axis=0).ravel()
        hist[:, s] = np.bincount(keys, weights=weight, minlength=size)
    return hist.reshape(n_groups, n_features, stride, len(statistics))


def leaf_histogram(
    codes: np.ndarray,
    stride: int,
    rows: np.ndarray | None,
    statistics: tuple[np.ndarray, ...],
    features: np.ndarray,
    executor: ThreadPoolExecutor | None = None,
    n_tasks: int = 1,
    row_major: np.ndarray | None = None,
) -> np.ndarray:
    """(Σg, Σh) per (feature, bin) of one node's ``rows``: the leaf-wise grower's histogram.

    Every entry is summed in the order of ``rows``, whatever the path below,
    so the result does not depend on how the work is cut:

    * a node given by its ``rows``, with ``row_major``: one scatter pass of
      SciPy's sparse kernel per block of rows, for every statistic at once
      (:func:`_scatter_histogram`); the paths below serve the root (``rows``
      None) and a SciPy whose kernel is missing or fails the check in
      :mod:`mltrees._compat`;
    * a small node (``rows.size * features.size <= SMALL_NODE``, or at most
      ``SMALL_ROWS`` rows) is one
      ``bincount`` per statistic over the keys ``feature offset + code`` of
      all its features at once, read row by row from ``row_major``: a bin
      only receives its own feature's rows, in row order;
    * a larger one is a ``bincount`` per feature and statistic, the features
      split into ``n_tasks`` blocks (one per thread). Its rows are gathered
      once from ``row_major`` (a row's codes of all features sit together,
      where ``codes[j].take(rows)`` reads one scattered byte per feature),
      and not at all when ``rows`` is None (all rows, in order).

    Parameters
    ----------
    codes : ndarray of uint8 or uint16, shape (n_features, n_rows)
        Feature-major bin codes.
    stride : int
        Codes per feature (bins and the missing bin).
    rows : ndarray of intp, or None
        The node's rows; None: all rows, in order.
    statistics : tuple of ndarray of float64, shape (n_rows,)
        Per-row values to sum, e.g. ``(g, h)``.
    features : ndarray of intp
        Features to build; the others stay zero.
    executor : ThreadPoolExecutor, optional
    n_tasks : int
        Blocks of features for the executor's threads.
    row_major : ndarray, shape (n_rows, n_features), optional
        The same codes stored row by row (``codes.T`` made contiguous).

    Returns
    -------
    ndarray of float64, shape (n_features, stride, len(statistics))
        A view of an array laid out as ``(n_features, len(statistics), stride)``.
    """
    n_features = codes.shape[0]
    features = np.asarray(features)
    hist = np.zeros((n_features, len(statistics), stride))
    if csc_matvecs is not None and row_major is not None and rows is not None:
        _scatter_histogram(row_major, stride, rows, statistics, features, hist, executor, n_tasks)
        return hist.transpose(0, 2, 1)
    weights = list(statistics) if rows is None else [w[rows] for w in statistics]
    n_rows = codes.shape[1] if rows is None else rows.size
    size = n_rows * features.size
    if row_major is not None and rows is not None and (size <= SMALL_NODE or n_rows <= SMALL_ROWS):
        block = row_major.take(rows, axis=0)
        if features.size < n_features:
            block = block[:, features]
        keys = block.astype(np.intp)
        keys += np.arange(features.size) * stride
        keys = keys.reshape(-1)
        for s, w in enumerate(weights):
            sums = np.bincount(
                keys, weights=np.repeat(w, features.size), minlength=features.size * stride
            )
            hist[features, s] = sums.reshape(features.size, stride)
        return hist.transpose(0, 2, 1)
    if rows is None:
        column = codes.__getitem__
    elif row_major is not None:
        gathered = row_major.take(rows, axis=0)

        def column(j):
            return gathered[:, j]
    else:

        def column(j):
            return codes[j].take(rows)

    def block_of(part):
        for j in part:
            key = column(j).astype(np.intp)
            for s, w in enumerate(weights):
                hist[j, s] = np.bincount(key, weights=w, minlength=stride)

    threaded = executor is not None and n_tasks > 1 and size >= THREADED_NODE
    parts = [p for p in np.array_split(features, n_tasks if threaded else 1) if p.size]
    if len(parts) < 2:
        for part in parts:
            block_of(part)
    else:
        list(executor.map(block_of, parts))
    return hist.transpose(0, 2, 1)


_ones_lock = threading.Lock()
_ones = np.ones(0)


def _ones_view(n: int) -> np.ndarray:
    """``n`` ones, read-only, from one array kept between calls."""
    global _ones
    with _ones_lock:
        if _ones.size < n:
            _ones = np.ones(max(n, 2 * _ones.size))
            _ones.flags.writeable = False
        return _ones[:n]


def _scatter_histogram(row_major, stride, rows, statistics, features, hist, executor, n_tasks):
    """Every statistic of a node's histogram in one scatter pass per block of rows.

    The rows' codes, offset by feature (key ``k * stride + code`` for the
    ``k``-th built feature), are the column indices of a sparse matrix with
    one row per sample and a 1 in each of its features' bins; the histogram
    is that matrix transposed times the ``(n_rows, n_statistics)`` matrix of
    statistics. SciPy's kernel for it adds each row's statistics to its bins
    in row order, as ``bincount`` does, so the sums are the same bit for bit,
    but it reads each key once for all statistics and needs no 8-byte copy
    of the keys. Blocks of ``SCATTER_BLOCK_ROWS`` rows keep the keys in
    cache; they add into the same sums, in row order. Large nodes split their
    features over the threads.
    """
    n_rows, n_stats = rows.size, len(statistics)
    if n_rows == 0:
        return
    block = row_major.take(rows, axis=0)
    if features.size < row_major.shape[1]:
        block = block[:, features]
    weights = np.empty((n_rows, n_stats))
    for s, w in enumerate(statistics):
        np.take(w, rows, out=weights[:, s])
    threaded = executor is not None and n_tasks > 1 and n_rows * features.size >= SCATTER_THREADED
    parts = np.array_split(np.arange(features.size), n_tasks if threaded else 1)
    parts = [part for part in parts if part.size]
    per_block = min(n_rows, SCATTER_BLOCK_ROWS)

    def scatter(part: np.ndarray) -> None:
        width = part.size
        offsets = (np.arange(width) * stride).astype(np.int32)
        keys = np.empty((per_block, width), dtype=np.int32)
        starts = np.arange(0, per_block * width + 1, width, dtype=np.int32)
        ones = _ones_view(per_block * width)
        sums = np.zeros((width * stride, n_stats))
        codes = block if width == block.shape[1] else block[:, part]
        for first in range(0, n_rows, per_block):
            size = min(per_block, n_rows - first)
            np.add(codes[first : first + size], offsets, out=keys[:size])
            csc_matvecs(
                width * stride,
                size,
                n_stats,
                starts[: size + 1],
                keys[:size].reshape(-1),
                ones[: size * width],
                weights[first : first + size].reshape(-1),
                sums.reshape(-1),
            )
        hist[features[part]] = sums.reshape(width, stride, n_stats).transpose(0, 2, 1)

    if len(parts) < 2:
        for part in parts:
            scatter(part)
    else:
        list(executor.map(scatter, parts))


def subtract(parent: np.ndarray, child: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """The sibling's histogram: the parent's minus the built child's (into ``out`` if given).

    One subtraction per entry, so the result does not depend on how the
    work is laid out: every growth policy gets the same bits from it.
    """
    return np.subtract(parent, child, out=out)


def children_histograms(
    parents: np.ndarray, built: np.ndarray, small_is_right: np.ndarray
) -> np.ndarray:
    """Both children's histograms of split nodes, from the smaller child's: the subtraction trick.

    The depth-wise and the leaf-wise growers both build the histogram of
    the child with fewer rows of each split node and take the other as the
    parent's minus it (:func:`subtract`); this is where they do.

    Parameters
    ----------
    parents : ndarray, shape (n_pairs, ...)
        The split nodes' histograms.
    built : ndarray, shape (n_pairs, ...)
        The histogram of each node's smaller child.
    small_is_right : ndarray of bool, shape (n_pairs,)
        Whether the smaller child is the right one.

    Returns
    -------
    ndarray, shape (2 * n_pairs, ...)
        The children, left then right, pair after pair.
    """
    n_pairs, shape = parents.shape[0], parents.shape[1:]
    children = np.empty((n_pairs, 2, *shape), dtype=np.result_type(parents, built))
    small = np.asarray(small_is_right, dtype=np.intp).reshape(n_pairs)
    if n_pairs == 1:  # one pair (leaf-wise growth): in place, without a temporary
        side = int(small[0])
        children[0, side] = built[0]
        subtract(parents[0], children[0, side], out=children[0, 1 - side])
    else:
        pairs = np.arange(n_pairs)
        children[pairs, small] = built
        children[pairs, 1 - small] = subtract(parents, built)
    return children.reshape(2 * n_pairs, *shape)
