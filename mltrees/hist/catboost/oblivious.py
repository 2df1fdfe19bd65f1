"""Oblivious (symmetric) trees grown from gradient histograms (chapter 15).

An oblivious tree of depth ``d`` asks the same question ``x_{f_i} > b_i``
of every node of level ``i``, so it is a list of ``d`` splits and ``2^d``
leaves, and the leaf of a row is the bit pattern
``Σ_i [x_{f_i} > b_i] 2^i`` (:eq:`eq-oblivious-leaf`). Growing one picks,
level by level, the split that scores best summed over *all* the level's
nodes; CatBoost (Prokhorenkova et al. 2018) scores with the gradients alone:

* ``S = Σ w (y - F)`` (the negative gradient times the weight) and
  ``W = Σ w`` of every child of every node, ``avg = S / (W + λ)``;
* ``"L2"``: ``Σ avg · S`` (:eq:`eq-catboost-l2-score`);
* ``"Cosine"``: ``Σ avg · S / sqrt(Σ avg² W)`` (:eq:`eq-catboost-cosine-score`),
  the cosine between the gradient vector and the tree's step.

Ordered boosting (:eq:`eq-ordered-score`) scores a split with the leaf
values of a *body* of earlier rows applied to the gradients of a *tail* of
later rows, over doubling blocks of the permutation; plain boosting is the
special case body = tail = all rows, so one scoring routine serves both.

Rows are never moved: a level's histograms sum all rows at every level,
keyed by ``(part, node, column, code)`` for all nodes and columns at once
(:class:`HistogramLayout`). CatBoost does the same by default (no
subtraction trick), and the order of every sum, like that of the score
terms (:func:`split_scores`), decides which of two candidates that are
equal in exact arithmetic wins: sums are added one term after the other,
never pairwise. A level is then a fixed number of NumPy calls whatever
the number of nodes and columns.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from mltrees.hist.catboost.leaves import leaf_steps, leaf_values, online_tail_steps
from mltrees.hist.grower import GrowerBase, GrownTree

__all__ = [
    "GrownObliviousTree",
    "HistogramLayout",
    "ObliviousGrower",
    "ObliviousTree",
    "OrderedEntries",
    "child_sums",
    "doubling_blocks",
    "grow_oblivious",
    "leaf_index",
    "level_scores",
    "split_scores",
]


@dataclass
class ObliviousTree:
    """One symmetric tree.

    Attributes
    ----------
    feature : ndarray of intp, shape (depth,)
        The split column of each level (float features first, then the
        categorical statistics columns of the model).
    border_index : ndarray of intp, shape (depth,)
        A row goes right at level ``i`` when its code exceeds ``border_index[i]``.
    value : ndarray of float64, shape (2**depth, n_outputs)
        Leaf values, learning rate included.
    weight : ndarray of float64, shape (2**depth,)
        ``Σ w`` of the training rows in each leaf.
    count : ndarray of int64, shape (2**depth,)
        Training rows in each leaf.
    gradient : ndarray of float64, shape (2**depth, n_outputs)
        ``S = Σ w (y - F)`` of each leaf in the round the tree was grown
        (the split gains of :func:`~mltrees.inspection.importance` come from it).
    """

    feature: np.ndarray
    border_index: np.ndarray
    value: np.ndarray
    weight: np.ndarray
    count: np.ndarray
    gradient: np.ndarray

    @property
    def depth(self) -> int:
        """Number of levels (splits)."""
        return len(self.feature)

    def bfs_leaf_order(self) -> np.ndarray:
        """The leaf index of each leaf of the equivalent binary tree, left to right.

        In the binary tree the first level's answer is the most significant
        bit of the path; in the leaf index it is the least significant
        (:eq:`eq-oblivious-leaf`), so the order is a bit reversal.
        """
        d = self.depth
        path = np.arange(1 << d)
        index = np.zeros_like(path)
        for i in range(d):
            index |= ((path >> (d - 1 - i)) & 1) << i
        return index


def leaf_index(codes: np.ndarray, feature, border_index, columns=None) -> np.ndarray:
    """The leaf of every row, ``Σ_r 𝕀(code_{j_r} > b_r) 2^r`` (:eq:`eq-oblivious-leaf`).

    Parameters
    ----------
    codes : ndarray of uint8, shape (n_columns, n_rows)
        Feature-major bin codes.
    feature, border_index : sequences of int
        The splits, root level first.
    columns : ndarray of intp, optional
        Only these rows (columns of ``codes``).
    """
    n = codes.shape[1] if columns is None else len(columns)
    leaf = np.zeros(n, dtype=np.intp)
    for i, (f, b) in enumerate(zip(feature, border_index, strict=True)):
        row = codes[f] if columns is None else codes[f, columns]
        leaf += (row > b).astype(np.intp) << i
    return leaf


def doubling_blocks(n: int) -> np.ndarray:
    """Ordered boosting's block ends ``b_0 < b_1 < … = n`` (:eq:`eq-ordered-blocks`).

    ``b_0 = 1`` for ``n <= 500``, else ``min(100, n // 50)``; then
    ``b_{k+1} = min(ceil(2 b_k), n)``. Block ``k`` has the body ``[0, b_k)``
    and the tail ``[b_k, b_{k+1})``; these are CatBoost 1.2's sizes.
    """
    b = 1 if n <= 500 else min(100, n // 50)
    ends = [max(b, 1)]
    while ends[-1] < n:
        ends.append(min(2 * ends[-1], n))
    return np.asarray(ends, dtype=np.intp)


def child_sums(hist: np.ndarray, left: np.ndarray) -> None:
    """The left and right child's sums of every border, as CatBoost's bucket loop forms them.

    ``hist`` has shape ``(..., 1 + n_bins)``: a free lead cell, then the
    bins. Border ``k`` sends bins ``<= k`` left; ``left[..., 1 + k]``
    receives ``h_0 + … + h_k`` (added one by one), and ``hist[..., 1 + k]``
    is overwritten with the right sum ``total - h_0 - … - h_k`` (subtracted
    one by one), the node's total being the left sum of all its bins.
    These are the sums of ``CalcScoresForLeaf``: computed otherwise
    (``total - left``, pairwise sums) they would round differently, and
    candidates equal in exact arithmetic would tie or not unlike CatBoost's.
    """
    np.add.accumulate(hist[..., 1:], axis=-1, out=left[..., 1:])
    hist[..., 0] = left[..., -1]
    np.subtract.accumulate(hist[..., :-1], axis=-1, out=hist[..., :-1])


def split_scores(
    body_S, body_W, tail_S, tail_W, lam, score_function: str, workspace=None
) -> np.ndarray:
    """Scores of candidate splits from their children's sums.

    ``body_S`` has shape ``(2, n_blocks, n_outputs, n_nodes, n_candidates)``
    (left child, then right) and ``body_W`` ``(2, n_blocks, 1, n_nodes,
    n_candidates)``; ``tail_S``, ``tail_W`` likewise (the same arrays in
    plain boosting); ``lam`` holds one λ per block. With ``avg = S_body ·
    (1 / (W_body + λ))``, 0 for a child without weight, the score is ``Σ avg
    · S_tail`` (``"L2"``, :eq:`eq-catboost-l2-score`) or that divided by
    ``sqrt(Σ avg² W_tail)`` (``"Cosine"``, :eq:`eq-catboost-cosine-score`).
    The sums run in CatBoost's order, one term after the other: block,
    output, node; the right child before the left for L2, the pair first
    for Cosine, whose denominator starts at 1e-100. Returns shape
    ``(n_candidates,)``.

    The terms are formed a few nodes at a time (``SCORE_CHUNK`` numbers),
    so that the temporaries stay small; ``workspace(shape)`` gives the
    arrays the terms are kept in (new ones by default).
    """
    _, G, K, N, C = np.shape(body_S)
    lam = np.asarray(lam, dtype=np.float64).reshape(1, -1, 1, 1, 1)
    cosine = score_function == "Cosine"
    # The terms in the order they are added: (block, output, node[, child]).
    shape = (2, G, K, N, C) if cosine else (G, K, N, 2, C)
    terms = np.empty(shape) if workspace is None else workspace(shape)
    step = max(1, SCORE_CHUNK // (2 * G * K * C))
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        if step >= N:
            _score_terms(terms, slice(None), body_S, body_W, tail_S, tail_W, lam, cosine)
        for first in range(0, N, step) if step < N else ():
            nodes = slice(first, first + step)
            chunk = (a[:, :, :, nodes] for a in (body_S, body_W, tail_S, tail_W))
            _score_terms(terms, nodes, *chunk, lam, cosine)
        if cosine:
            return _sum_in_order(terms[0], 0.0) / np.sqrt(_sum_in_order(terms[1], 1e-100))
    return _sum_in_order(terms, 0.0)


def _score_terms(terms, nodes, bS, bW, tS, tW, lam, cosine: bool) -> None:
    """The terms of :func:`split_scores` of some nodes, written to ``terms``."""
    avg = np.where(bW > 0, bS * (1.0 / (bW + lam)), 0.0)
    dp = avg * tS
    if cosine:
        np.add(dp[0], dp[1], out=terms[0, :, :, nodes])
        d2 = (avg * avg) * tW
        np.add(d2[0], d2[1], out=terms[1, :, :, nodes])
    else:
        terms[:, :, nodes, 0] = dp[1]
        terms[:, :, nodes, 1] = dp[0]


def _sum_in_order(terms: np.ndarray, start: float) -> np.ndarray:
    """``((start + t_0) + t_1) + …`` over every axis but the last, in C order.

    ``np.add.reduce`` over the leading axis of a C-contiguous array adds
    the rows one after the other (numpy sums pairwise only along the axis
    that is fastest in memory, which here is the kept one), at the speed
    of whole-row additions. A single column would make the reduced axis
    the fast one: that case is added row by row. ``terms`` is a fresh
    array: its first row is overwritten.
    """
    terms = np.ascontiguousarray(terms.reshape(-1, terms.shape[-1]))
    terms[0] += start
    if terms.shape[1] >= 2:
        return np.add.reduce(terms, axis=0)
    total = terms[0].copy()
    for term in terms[1:]:
        total += term
    return total


def level_scores(
    body_S,
    body_W,
    tail_S,
    tail_W,
    n_borders,
    lam,
    score_function: str,
    n_groups: int = 1,
) -> np.ndarray:
    """Scores of every candidate split ``(feature, border)`` of one level.

    The histograms have shape ``(n_outputs, n_features, n_nodes, n_bins)``
    for ``S`` and ``(n_features, n_nodes, n_bins)`` for ``W``; ``n_nodes``
    runs over the level's nodes and, in ordered boosting, over the blocks
    (``n_groups`` of them, block-major; ``lam`` then holds one λ per block).
    A split at border ``k`` sends codes ``<= k`` left. With
    ``avg = S_body / (W_body + λ)`` of each child, the score is
    ``Σ avg · S_tail`` (``"L2"``, :eq:`eq-catboost-l2-score`) or that divided
    by ``sqrt(Σ avg² W_tail)`` (``"Cosine"``, :eq:`eq-catboost-cosine-score`),
    summed over outputs, nodes and both children. Returns an array of
    shape ``(n_features, n_bins - 1)``, ``-inf`` past a feature's last border.

    The arithmetic is CatBoost's (``CalcScoresForLeaf`` and its score
    calculators, :func:`child_sums` and :func:`split_scores`), so that
    candidates whose scores are equal in exact arithmetic (splits that
    change nothing, duplicate columns) tie or not as they do there; columns
    of two bins, which CatBoost packs, sum each side directly.
    """
    n_bins = body_W.shape[-1]
    if n_bins < 2:
        return np.full((body_W.shape[0], 0), -np.inf)
    K, F, n_rows, _ = np.shape(body_S)
    n_nodes = n_rows // n_groups

    def sides(S, W):
        """(2, blocks, K + 1, nodes, F · (n_bins - 1)): each candidate's children."""
        hist = np.zeros((K + 1, F, n_rows, n_bins + 1))
        hist[:K, ..., 1:] = S
        hist[K, ..., 1:] = W
        if n_bins == 2:  # binary columns: CatBoost's packs sum each side directly
            pair = hist[None, ..., 1:2], hist[None, ..., 2:3]
        else:
            left = np.empty_like(hist)
            child_sums(hist, left)
            pair = left[None, ..., 1:n_bins], hist[None, ..., 1:n_bins]
        out = np.concatenate(pair).reshape(2, K + 1, F, n_groups, n_nodes, n_bins - 1)
        return out.transpose(0, 3, 1, 4, 2, 5).reshape(2, n_groups, K + 1, n_nodes, -1)

    body = sides(body_S, body_W)
    tail = body if tail_S is body_S and tail_W is body_W else sides(tail_S, tail_W)
    score = split_scores(
        body[:, :, :K],
        body[:, :, K : K + 1],
        tail[:, :, :K],
        tail[:, :, K : K + 1],
        lam,
        score_function,
    ).reshape(F, n_bins - 1)
    valid = np.arange(n_bins - 1)[None, :] < np.asarray(n_borders)[:, None]
    return np.where(valid, score, -np.inf)


# Numbers in one temporary of split_scores: small enough to stay in cache.
SCORE_CHUNK = 1 << 15
# Keys (column, row) per np.add.at call: all columns in one call on small
# data, a few at a time on large data (the keys of every column at once
# would take gigabytes at a million rows).
CHUNK_ENTRIES = 1 << 17


@dataclass
class HistogramLayout:
    """Where every (column, code) of a level's histograms lives; computed once per model.

    A level's histograms are one reused array ``(side, channel, block, part,
    node, cell)``: side 1 first holds each bin's sums, then the right child
    of every border, side 0 the left child (:func:`child_sums`); a channel
    is one output's ``S`` or ``W``; blocks and parts (body, tail) are
    ordered boosting's (one of each in plain boosting). Each column takes a
    lead cell and its bins; the columns are grouped by width (the padded bin
    count shared by a group, :func:`_width_groups`), so that the child sums
    of a group are one call over all its columns, nodes and channels.
    Columns of two bins (one border) need no sums: CatBoost sums their
    sides directly. Columns without a border are left out.

    Attributes
    ----------
    cell : ndarray of uint16 or int32, shape (n_scored, n_rows)
        The cell of every scored column's code: its lead cell + 1 + code.
    size : int
        Cells of one (channel, block, part, node).
    groups : list of (start, stop, width)
        Cell ranges of the column groups, and their widths.
    candidate_column, candidate_border, candidate_cell : ndarray of intp, shape (n_candidates,)
        Every (column, border), in the order candidates are tried (``order``,
        then borders upwards; of equal best scores the first wins), and the
        cell of its children's sums.
    """

    n_columns: int
    cell: np.ndarray
    size: int
    groups: list
    candidate_column: np.ndarray
    candidate_border: np.ndarray
    candidate_cell: np.ndarray
    _work: dict = field(default_factory=dict, repr=False)

    def workspace(self, name: str, shape, dtype=np.float64) -> np.ndarray:
        """A reused array of ``shape`` (contents undefined), one per ``name``.

        A level's arrays are megabytes on wide tables: allocated afresh at
        every level, each would cost its pages' first-touch faults, which
        took half the fit time.
        """
        view = self._work.get((name, shape))
        if view is None:
            size = math.prod(shape)
            flat = self._work.get(name)
            if flat is None or flat.size < size:
                # Views of the replaced array stay valid: they keep it alive.
                flat = self._work[name] = np.empty(size, dtype=dtype)
            view = self._work[(name, shape)] = flat[:size].reshape(shape)
        return view

    @classmethod
    def build(cls, codes: np.ndarray, n_borders, order=None) -> HistogramLayout:
        """The layout of ``codes`` (n_columns, n_rows) with ``n_borders`` borders per column."""
        n_borders = np.asarray(n_borders, dtype=np.intp)
        n_columns = len(n_borders)
        scored = np.flatnonzero(n_borders > 0)
        bins = n_borders[scored] + 1
        by_width = np.argsort(bins, kind="stable")
        scored, bins = scored[by_width], bins[by_width]
        width = np.empty_like(bins)
        groups = []
        start = 0
        for first, last in _width_groups(bins):
            w = int(bins[last - 1])
            width[first:last] = w
            stop = start + (last - first) * (w + 1)
            groups.append((start, stop, w))
            start = stop
        size = start
        lead = np.cumsum(np.r_[0, width + 1])[:-1].astype(np.intp)
        small = np.uint16 if size < np.iinfo(np.uint16).max else np.int32
        cell = codes[scored].astype(small) + (lead + 1).astype(small)[:, None]
        # Candidates in the order they are tried.
        rank = np.empty(n_columns, dtype=np.intp)
        rank[np.arange(n_columns) if order is None else np.asarray(order)] = np.arange(n_columns)
        tried = scored[np.argsort(rank[scored], kind="stable")]
        position = np.empty(n_columns, dtype=np.intp)
        position[scored] = np.arange(len(scored))
        column = np.repeat(tried, n_borders[tried])
        first_border = np.cumsum(n_borders[tried]) - n_borders[tried]
        border = np.arange(len(column)) - np.repeat(first_border, n_borders[tried])
        at = lead[position[column]] + 1 + border
        return cls(n_columns, cell.astype(small), size, groups, column, border, at)


def _width_groups(bins: np.ndarray) -> list:
    """Contiguous runs of columns (sorted by bin count) that share a padded width.

    Each group costs a few NumPy calls per level, and each of its columns
    as many cells as the widest: the runs minimise ``CALL + Σ cells`` (in
    cells, ``CALL`` being a call's fixed cost), columns of two bins apart.
    """
    call_cost = 128
    n = len(bins)
    binary = int(np.searchsorted(bins, 2, side="right"))
    runs = [(0, binary)] if binary else []
    # Breaks only where the width changes.
    ends = [e for e in range(binary + 1, n + 1) if e == n or bins[e] != bins[e - 1]]
    best = {binary: (0.0, None)}
    for e in ends:
        options = [
            (cost + call_cost + (e - s) * int(bins[e - 1]), s) for s, (cost, _) in best.items()
        ]
        best[e] = min(options)
    groups = []
    e = n
    while e > binary:
        s = best[e][1]
        groups.append((s, e))
        e = s
    return runs + groups[::-1]


def _histograms(layout, slot_of_row, shape, weights) -> np.ndarray:
    """One level's left and right child sums of every border, shape ``(2, *shape, size)``.

    ``shape`` is ``(channels, blocks, parts, nodes)``, ``slot_of_row`` each
    row's ``(block, part) · nodes + node``, ``weights`` the entries' weights
    ``(channel pair, column · row)`` of the largest chunk of columns, two
    channels as the real and imaginary part of one complex number: a complex
    addition is the two additions, so one ``np.add.at`` (which, like
    ``np.bincount``, adds in input order) and one child-sum pass serve two
    channels. The keys serve every pair. The sums go to reused arrays.
    """
    return _child_histograms(layout, _bin_sums(layout, slot_of_row, shape, weights), shape)


def _bin_sums(layout, slot_of_row, shape, weights) -> np.ndarray:
    """The first half of :func:`_histograms`: ``pairs[1]`` of the workspace, each bin's sums.

    Sums over disjoint rows add up: a cluster's partitions each compute
    theirs and :func:`_child_histograms` takes the total (:mod:`mltrees.dask.oblivious`).
    """
    n_pairs = weights.shape[0]
    cells = math.prod(shape[1:]) * layout.size
    pairs = layout.workspace("pairs", (2, n_pairs, cells), np.complex128)
    pairs[1] = 0.0
    n_rows = slot_of_row.shape[0]
    base = slot_of_row * layout.size
    n_scored = layout.cell.shape[0]
    step = max(1, weights.shape[1] // max(n_rows, 1))  # columns per call
    for first in range(0, n_scored, step):
        keys = (layout.cell[first : first + step] + base).reshape(-1)
        for pair in range(n_pairs):
            np.add.at(pairs[1, pair], keys, weights[pair, : keys.size])
    return pairs


def _child_histograms(layout, pairs, shape) -> np.ndarray:
    """The second half of :func:`_histograms`: child sums from ``pairs[1]``, the bins' sums."""
    n_pairs = pairs.shape[1]
    cells = math.prod(shape[1:]) * layout.size
    rows = pairs.reshape(2, -1, layout.size)
    for start, stop, width in layout.groups:
        views = rows[..., start:stop].reshape(2, rows.shape[1], -1, width + 1)
        if width == 2:  # one border: each side is its bin (CatBoost's binary packs)
            views[0, ..., 1] = views[1, ..., 1]
            views[1, ..., 1] = views[1, ..., 2]
        else:
            child_sums(views[1], views[0])
    hist = layout.workspace("histograms", (2, n_pairs, 2, cells))
    hist[:, :, 0] = pairs.real
    hist[:, :, 1] = pairs.imag
    return hist.reshape(2, 2 * n_pairs, *shape[1:], layout.size)


def _entry_weights(layout, S, W) -> np.ndarray:
    """The entries' weights of :func:`_histograms`: channels ``S_1 … S_K, W`` paired as complex.

    ``(channel pair, column · row)`` for the largest chunk of columns; ``W``
    None counts rows.
    """
    K, n_rows = S.shape[1], S.shape[0]
    channels = np.zeros(((K + 2) // 2 * 2, n_rows))
    channels[:K] = S.T
    channels[K] = 1.0 if W is None else W
    pairs = np.empty((len(channels) // 2, n_rows), dtype=np.complex128)
    pairs.real = channels[0::2]
    pairs.imag = channels[1::2]
    step = max(1, CHUNK_ENTRIES // max(n_rows, 1))
    n_chunk = min(step, layout.cell.shape[0])
    return np.broadcast_to(pairs[:, None], (len(pairs), n_chunk, n_rows)).reshape(len(pairs), -1)


def grow_oblivious(
    codes: np.ndarray,
    n_borders: np.ndarray,
    depth: int,
    S: np.ndarray,
    W: np.ndarray,
    lam: float,
    score_function: str,
    *,
    part=None,
    features=None,
    layout=None,
    order=None,
    trace=None,
    gains=None,
):
    """Choose the ``depth`` splits of one oblivious tree.

    Parameters
    ----------
    codes : ndarray of uint8, shape (n_columns, n_rows)
        Feature-major bin codes of the training rows.
    n_borders : ndarray of int, shape (n_columns,)
        Borders (candidate splits) of every column.
    depth : int
    S : ndarray, shape (n_rows, n_outputs)
        ``w (y - F)``, the weighted negative gradients (plain boosting).
    W : ndarray of shape (n_rows,), or None
        The weights; None when they are all 1 (rows are then counted).
    lam : float or ndarray of float
        λ of ``avg = S / (W + λ)``, already scaled by ``Σw / n``; in ordered
        boosting one λ per block, scaled by the block's own body (CatBoost's
        ``l2 · BodySumWeight / BodyFinish``).
    score_function : {"L2", "Cosine"}
    part : ndarray of intp, shape (n_rows,), optional
        Ordered boosting (:eq:`eq-ordered-score`): the "rows" are then
        *entries*, one per (block, row of the block), ``part = 2·block +
        [row in the block's tail]``, and ``S`` comes from each block's own
        approximation; ``codes`` holds the entries' codes.
    features : ndarray of bool, optional
        Columns that may be split on (all by default).
    layout : HistogramLayout, optional
        :meth:`HistogramLayout.build` of ``codes``, ``n_borders`` and
        ``order``, computed once per model.
    order : ndarray of intp, optional
        The columns in the order candidates are tried: of equal best scores
        the first in this order wins (column index order by default).
    trace : list, optional
        If given, the score matrix ``(n_columns, max borders)`` of every level
        is appended to it (to examine a choice, e.g. an exact tie).
    gains : list, optional
        If given, the score of every kept level's split is appended to it.

    Returns
    -------
    feature, border_index : ndarray of intp, shape (depth,)
        The splits, root level first. The first ``n_levels`` are the tree;
        the others repeat the last of them (or, if none is left, the split
        that was removed), so that they change no row's leaf.
    n_levels : int
        Levels the tree keeps. As in CatBoost (``GreedyTensorSearchOblivious``),
        a level that leaves a split *redundant* (no two leaves that differ
        only in its answer both hold training rows: a border no row passes,
        a repeated split, one the other levels already make) ends the
        search: the first such split, root first, is removed and no further
        level is grown. The search ends as well when no column has a border.

    Notes
    -----
    Every level counts all rows, as CatBoost does by default (its
    subtraction trick needs ``sampling_frequency="PerTree"``): one
    ``np.add.at`` per channel over the keys (node, column, code) of all
    nodes and columns at once (:func:`_histograms`), the child sums of each
    width group, the scores of every cell (:func:`split_scores`) and one
    gather of the candidates' scores.
    """
    n_borders = np.asarray(n_borders)
    if layout is None:
        layout = HistogramLayout.build(codes, n_borders, order)
    unit = W is None
    K = S.shape[1]
    n_rows = S.shape[0]
    n_blocks = 1 if part is None else (int(part.max()) + 2) // 2
    n_parts = 1 if part is None else 2
    # The entries' weights (channel pair, column, row), channels S_1 … S_K, W
    # (and a zero one to make pairs); one chunk of columns' worth.
    weights = _entry_weights(layout, S, None if unit else W)
    allowed = None if features is None else np.asarray(features)[layout.candidate_column]
    terms = functools.partial(layout.workspace, "terms")
    node = np.zeros(n_rows, dtype=np.intp)
    chosen_f, chosen_b = [], []
    # Without any level and nothing removed (no column has a border), column 0,
    # border 0: a test no training row passes.
    removed = (0, 0)
    for level in range(depth):
        n_nodes = 1 << level
        # Each row's slot: (block, part) · nodes + node.
        slot = node if part is None else part * n_nodes + node
        if layout.candidate_column.size == 0:
            break  # no column has a border
        hist = _histograms(layout, slot, (K + 1, n_blocks, n_parts, n_nodes), weights)
        # Every cell is scored (lead cells and padding too: cheaper than
        # gathering the candidates first), then the candidates are read.
        # (side, block, channel, node, cell)
        body = hist[:, :, :, 0].transpose(0, 2, 1, 3, 4)
        tail = hist[:, :, :, n_parts - 1].transpose(0, 2, 1, 3, 4)
        scores = split_scores(
            body[:, :, :K],
            body[:, :, K : K + 1],
            tail[:, :, :K],
            tail[:, :, K : K + 1],
            lam,
            score_function,
            workspace=terms,
        ).take(layout.candidate_cell)
        if allowed is not None:
            scores = np.where(allowed, scores, -np.inf)
        if trace is not None:
            matrix = np.full((len(n_borders), max(1, int(n_borders.max(initial=0)))), -np.inf)
            matrix[layout.candidate_column, layout.candidate_border] = scores
            trace.append(matrix)
        # The first (column, border) of the best score wins, as in CatBoost.
        best = int(np.argmax(scores))
        if not np.isfinite(scores[best]):
            break
        f, b = int(layout.candidate_column[best]), int(layout.candidate_border[best])
        chosen_f.append(f)
        chosen_b.append(b)
        if gains is not None:
            gains.append(float(scores[best]))
        node = node + ((codes[f] > b).astype(np.intp) << level)
        occupied = np.bincount(node, minlength=2 << level) > 0
        redundant = None if occupied.all() else _first_redundant_level(occupied)
        if redundant is not None:
            removed = (chosen_f.pop(redundant), chosen_b.pop(redundant))
            if gains is not None:
                gains.pop(redundant)
            break
    n_levels = len(chosen_f)
    pad = (chosen_f[-1], chosen_b[-1]) if n_levels else removed
    feature = np.asarray(chosen_f + [pad[0]] * (depth - n_levels), dtype=np.intp)
    border = np.asarray(chosen_b + [pad[1]] * (depth - n_levels), dtype=np.intp)
    return feature, border, n_levels


def _first_redundant_level(occupied: np.ndarray):
    """The first level whose answer separates no two occupied leaves, or None.

    ``occupied[i]`` says whether leaf ``i`` (:eq:`eq-oblivious-leaf`) holds a
    training row; a level is redundant when flipping its bit never joins two
    occupied leaves (CatBoost's ``GetRedundantSplitIdx``).
    """
    joined = (occupied & occupied[_partners(occupied.size)]).any(axis=1)
    redundant = np.flatnonzero(~joined)
    return int(redundant[0]) if redundant.size else None


@functools.cache
def _partners(n_leaves: int) -> np.ndarray:
    """``partner[i, j]``: leaf ``j`` with the answer of level ``i`` flipped."""
    index = np.arange(n_leaves)
    return index ^ (1 << np.arange(n_leaves.bit_length() - 1))[:, None]


@dataclass
class GrownObliviousTree(GrownTree):
    """A :class:`~mltrees.hist.grower.GrownTree` of the oblivious policy.

    ``tree`` is an :class:`ObliviousTree`, ``leaf_of_row`` the leaf index
    :eq:`eq-oblivious-leaf` of every training row, ``split_value`` None (the
    tests are on bin codes), ``gain`` the score of each kept level's split,
    ``weight`` the unscaled leaf values, shape ``(2**depth, n_outputs)``.
    ``n_levels`` is the number of levels the tree keeps; the others only pad
    it to the model's depth.
    """

    n_levels: int = 0


@dataclass
class OrderedEntries:
    """Ordered boosting's entries: one per (block, row of that block's body or tail).

    Attributes
    ----------
    codes : ndarray, shape (n_columns, n_entries)
        The entries' bin codes.
    part : ndarray of intp, shape (n_entries,)
        ``2·block + [entry in the block's tail]`` (:eq:`eq-ordered-score`).
    weight : ndarray of float, shape (n_entries,)
    lam : ndarray of float, shape (n_blocks,)
        λ of each block, scaled by its own body.
    """

    codes: np.ndarray
    part: np.ndarray
    weight: np.ndarray
    lam: np.ndarray


@dataclass
class ObliviousGrower(GrowerBase):
    """CatBoost's oblivious policy, honouring the grower contract of :mod:`mltrees.hist`.

    ``grow(S, curvature) -> GrownObliviousTree``: the ``depth`` splits chosen
    level by level (:func:`grow_oblivious`, plain or ordered scores), the leaf
    of every training row, and the leaf values: one Newton or gradient step
    per leaf (:func:`~mltrees.hist.catboost.leaves.leaf_values`) times the
    learning rate.

    Parameters
    ----------
    codes : ndarray of uint8, shape (n_columns, n_rows)
        Feature-major bin codes of the training rows.
    n_borders : ndarray of int, shape (n_columns,)
    depth : int
    lam : float
        λ, scaled by ``Σw / n``.
    score_function : {"L2", "Cosine"}
    learning_rate : float
        Multiplied into the leaf values (CatBoost's float32 value).
    weight : ndarray of float, shape (n_rows,)
        The sample weights.
    gradient_step : bool
        Leaf values by a gradient step (``leaf_estimation_method="Gradient"``).
    order : ndarray of intp, optional
        The columns in the order candidates are tried (:func:`grow_oblivious`).
    ordered : OrderedEntries, optional
        Ordered boosting: the splits are scored on these entries.
    search : callable
        The level-by-level split search, :func:`grow_oblivious`.
    n_threads : int
    timings : dict
    """

    codes: np.ndarray
    n_borders: np.ndarray
    depth: int
    lam: float
    score_function: str
    learning_rate: float
    weight: np.ndarray
    gradient_step: bool = False
    order: np.ndarray | None = None
    ordered: OrderedEntries | None = None
    search: Callable = grow_oblivious
    n_threads: int = 1
    timings: dict = field(default_factory=dict)

    def __post_init__(self):
        self._start_threads()
        self._unit = bool((self.weight == 1.0).all())
        scored = self.codes if self.ordered is None else self.ordered.codes
        self._layout = HistogramLayout.build(scored, self.n_borders, self.order)

    def grow(self, S, curvature, features=None, scoring=None) -> GrownObliviousTree:
        """Grow one tree from the rows' ``S = w (y - F)`` (shape (n_rows, n_outputs)).

        ``curvature`` is what a leaf's step divides by: the rows' hessians
        for a Newton step (``(w, p)`` for MultiClass), their weights,
        shape (n_rows, 1), for a gradient step. ``features`` (the tree's
        columns, all if None) restricts the splits; in ordered boosting ``scoring`` is the
        entries' ``S``, from each block's own approximation.
        """
        if features is not None:  # the tree's columns, as a mask
            features = np.isin(np.arange(len(self.n_borders)), features)
        entries = self.ordered
        if entries is None:
            codes, W, lam, part = self.codes, self.weight, self.lam, None
            scoring = S
        else:
            codes, W, lam, part = entries.codes, entries.weight, entries.lam, entries.part
        gains = []
        feature, border, n_levels = self.search(
            codes,
            self.n_borders,
            int(self.depth),
            scoring,
            None if self._unit else W,
            lam,
            self.score_function,
            part=part,
            features=features,
            layout=self._layout,
            order=self.order,
            gains=gains,
        )
        leaf = leaf_index(self.codes, feature, border)
        n_leaves = 1 << int(self.depth)
        # The levels past n_levels only pad the tree to the model's depth
        # (CatBoost stopped there): a leaf takes the value of its first
        # n_levels answers, the leaf of CatBoost's shorter tree.
        mask = (1 << n_levels) - 1
        steps = leaf_values(
            leaf & mask, mask + 1, S, curvature, self.lam, gradient=self.gradient_step
        )
        value = self.learning_rate * steps
        kept = np.arange(n_leaves) & mask
        value = value[kept]
        K = S.shape[1]
        tree = ObliviousTree(
            feature,
            border,
            value,
            np.bincount(leaf, self.weight, minlength=n_leaves),
            np.bincount(leaf, minlength=n_leaves),
            np.stack([np.bincount(leaf, S[:, k], minlength=n_leaves) for k in range(K)], 1),
        )
        return GrownObliviousTree(
            tree=tree,
            leaf_of_row=leaf,
            split_value=None,
            gain=np.asarray(gains),
            weight=steps[kept],
            n_levels=n_levels,
        )

    def grow_rows(self, rows, features=None) -> GrownObliviousTree:
        """Grow one tree (plain boosting) on a row store whose rows may live elsewhere.

        ``rows`` answers sums over its rows (:class:`~mltrees.hist.catboost.rows.ObliviousRows`
        describes one partition's answers; :mod:`mltrees.dask.oblivious`
        sums them over the partitions of a cluster):

        * ``rows.level(split, level, leaves)``: apply ``split`` (the
          ``(column, border)`` chosen at ``level - 1``, None at the root),
          then return the row count of each of the ``2**level`` nodes, the
          sums of every bin of this level (:func:`_bin_sums`' ``pairs[1]``;
          none when ``leaves``) and, with ``leaves``, the leaf sums of
          :meth:`~mltrees.hist.catboost.rows.ObliviousRows.leaf_statistics`
          for the nodes as leaves: one request per level;
        * ``rows.n_outputs``: the outputs of ``S``;
        * ``rows.leaves(feature, border, n_levels)``: the leaf sums of a
          finished tree (only when a level was removed or none was found);
        * ``rows.leaf_of_row(feature, border)``: the leaf of every row, in the
          store's form.

        The choices are those of :meth:`grow` (:func:`grow_oblivious`: the
        same scores, candidate order, redundant-level rule and leaf steps),
        made from the summed statistics; ``features`` as in :meth:`grow`.
        """
        if self.ordered is not None:
            raise ValueError("grow_rows grows plain-boosting trees; ordered boosting needs grow")
        n_borders = np.asarray(self.n_borders)
        usable = n_borders
        if features is not None:
            usable = np.where(np.isin(np.arange(len(n_borders)), features), n_borders, 0)
        layout = self._layout
        allowed = None if features is None else (usable > 0)[layout.candidate_column]
        terms = functools.partial(layout.workspace, "terms")
        K = int(rows.n_outputs)
        depth = int(self.depth)
        chosen_f, chosen_b, gains = [], [], []
        removed, split, leaves = (0, 0), None, None
        for level in range(depth + 1):
            done = level == depth or layout.candidate_column.size == 0
            counts, sums, leaves = rows.level(split, level, done)
            if split is not None:
                redundant = _first_redundant_level(np.asarray(counts) > 0)
                if redundant is not None:
                    removed = (chosen_f.pop(redundant), chosen_b.pop(redundant))
                    gains.pop(redundant)
                    leaves = None
                    break
            if done:
                if level < depth:
                    leaves = None  # no column has a border
                break
            shape = (K + 1, 1, 1, 1 << level)
            pairs = layout.workspace("pairs", (2, *np.shape(sums)), np.complex128)
            pairs[1] = sums
            hist = _child_histograms(layout, pairs, shape)
            body = hist[:, :, :, 0].transpose(0, 2, 1, 3, 4)
            scores = split_scores(
                body[:, :, :K],
                body[:, :, K : K + 1],
                body[:, :, :K],
                body[:, :, K : K + 1],
                self.lam,
                self.score_function,
                workspace=terms,
            ).take(layout.candidate_cell)
            if allowed is not None:
                scores = np.where(allowed, scores, -np.inf)
            best = int(np.argmax(scores))  # the first of equal best scores, as in CatBoost
            if not np.isfinite(scores[best]):
                leaves = None
                break  # nothing to split on
            f, b = int(layout.candidate_column[best]), int(layout.candidate_border[best])
            chosen_f.append(f)
            chosen_b.append(b)
            gains.append(float(scores[best]))
            split = (f, b)
        n_levels = len(chosen_f)
        pad = (chosen_f[-1], chosen_b[-1]) if n_levels else removed
        feature = np.asarray(chosen_f + [pad[0]] * (depth - n_levels), dtype=np.intp)
        border = np.asarray(chosen_b + [pad[1]] * (depth - n_levels), dtype=np.intp)
        if leaves is None:
            leaves = rows.leaves(feature, border, n_levels)
        sums, curvature, weight, count, gradient = leaves
        n_leaves = 1 << depth
        mask = (1 << n_levels) - 1
        steps = leaf_steps(sums, curvature, self.lam, gradient=self.gradient_step)
        kept = np.arange(n_leaves) & mask
        tree = ObliviousTree(
            feature, border, (self.learning_rate * steps)[kept], weight, count, gradient
        )
        return GrownObliviousTree(
            tree=tree,
            leaf_of_row=rows.leaf_of_row(feature, border),
            split_value=None,
            gain=np.asarray(gains),
            weight=steps[kept],
            n_levels=n_levels,
        )

    def entry_steps(self, grown: GrownObliviousTree, S, curvature) -> np.ndarray:
        """Ordered boosting: every entry's step, from its block's body (:eq:`eq-ordered-score`).

        Each entry moves by its leaf's value computed over the body of its
        block (the earlier rows), without the learning rate. With several
        outputs a tail entry's step also counts the tail entries of its
        leaf up to itself (CatBoost's ``CalcApproxDeltaMulti``).
        """
        entries = self.ordered
        n_leaves = 1 << int(self.depth)
        mask = (1 << grown.n_levels) - 1
        entry_leaf = leaf_index(entries.codes, grown.tree.feature, grown.tree.border_index) & mask
        block = entries.part // 2
        body = (entries.part % 2) == 0
        key = block * n_leaves + entry_leaf
        n_keys = len(entries.lam) * n_leaves
        lam = np.repeat(entries.lam, n_leaves)
        step = leaf_values(key, n_keys, S, curvature, lam, rows=body, gradient=self.gradient_step)
        delta = step[key]
        if S.shape[1] > 1:  # CatBoost's MultiClass: tail rows step online
            delta[~body] = online_tail_steps(
                key, body, S, curvature, lam, gradient=self.gradient_step
            )
        return delta
