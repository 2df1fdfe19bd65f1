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

Rows are never moved: a level's histograms are ``np.bincount`` over the key
``(part, node, code)`` per feature, all rows at every level. CatBoost does
the same by default (no subtraction trick), and the order of every sum,
like that of the score terms (:func:`level_scores`), decides which of two
candidates that are equal in exact arithmetic wins.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from mltrees.hist.catboost.leaves import leaf_values, online_tail_steps
from mltrees.hist.grower import GrowerBase, GrownTree

__all__ = [
    "GrownObliviousTree",
    "ObliviousGrower",
    "ObliviousTree",
    "OrderedEntries",
    "doubling_blocks",
    "grow_oblivious",
    "leaf_index",
    "level_scores",
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
    calculators), so that candidates whose scores are equal in exact
    arithmetic (splits that change nothing, duplicate columns) tie or not as
    they do there: a child's sums are the left bins added one by one and
    the node's total minus the same bins one by one (each side summed
    directly for columns of two bins, which CatBoost packs); ``avg = S · (1 / (W +
    λ))``, 0 for a child without weight; the terms are added node after
    node (outputs, then nodes, per block), the right child before the left
    for L2 and the pair first for Cosine, whose denominator starts at 1e-100.
    """
    n_bins = body_W.shape[-1]
    if n_bins < 2:
        return np.full((body_W.shape[0], 0), -np.inf)
    K, F, n_rows, _ = np.shape(body_S)
    n_nodes = n_rows // n_groups
    lam = np.broadcast_to(np.asarray(lam, dtype=np.float64), (n_groups,))

    def sides(hist):
        """(left, right) sums of each candidate, as CatBoost's bucket loop forms them."""
        if n_bins == 2:  # binary columns: CatBoost's packs sum each side directly
            return hist[..., :1], hist[..., 1:]
        left = np.cumsum(hist, axis=-1)
        total = left[..., -1:]
        removed = np.concatenate([total, hist[..., :-1]], axis=-1)
        right = np.subtract.accumulate(removed, axis=-1)[..., 1:]
        return left[..., :-1], right

    def average(S, W, g):
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(W > 0, S * (1.0 / (W + lam[g])), 0.0)

    bW = sides(body_W)
    tW = bW if tail_W is body_W else sides(tail_W)
    cosine = score_function == "Cosine"
    numerator = np.zeros((F, n_bins - 1))
    denominator = np.full((F, n_bins - 1), 1e-100)
    for g in range(n_groups):
        nodes = slice(g * n_nodes, (g + 1) * n_nodes)
        for k in range(K):
            bS = sides(body_S[k][:, nodes])
            tS = bS if tail_S is body_S else sides(tail_S[k][:, nodes])
            avg = [average(bS[i], bW[i][:, nodes], g) for i in (0, 1)]
            dp = [avg[i] * tS[i] for i in (0, 1)]
            if cosine:
                pair_dp = dp[0] + dp[1]
                pair_d2 = (avg[0] * avg[0]) * tW[0][:, nodes] + (avg[1] * avg[1]) * tW[1][:, nodes]
                for j in range(n_nodes):  # node after node, as CatBoost adds them
                    numerator += pair_dp[:, j]
                    denominator += pair_d2[:, j]
            else:
                for j in range(n_nodes):
                    numerator += dp[1][:, j]
                    numerator += dp[0][:, j]
    score = numerator / np.sqrt(denominator) if cosine else numerator
    valid = np.arange(n_bins - 1)[None, :] < np.asarray(n_borders)[:, None]
    return np.where(valid, score, -np.inf)


def _histograms(codes, node, n_nodes, n_bins, S, W, columns=None, known_W=None):
    """``S`` (n_outputs, F, n_nodes, n_bins) and ``W`` (F, n_nodes, n_bins) sums.

    ``node`` is each row's node (already combined with its block and part
    in ordered boosting); ``columns`` restricts to some rows of ``codes``;
    ``known_W`` is a ``W`` histogram computed before (it is not recounted).
    """
    F = codes.shape[0]
    K = S.shape[1]
    size = n_nodes * n_bins
    hist_S = np.empty((K, F, size))
    hist_W = np.empty((F, size)) if known_W is None else known_W.reshape(F, size)
    # int32 keys: half the memory traffic of intp when building them.
    base = (node * n_bins).astype(np.int32)
    for f in range(F):
        row = codes[f] if columns is None else codes[f, columns]
        key = base + row
        if known_W is None:
            # Unit weights (W is None): counting is cheaper than summing ones.
            hist_W[f] = np.bincount(key, weights=W, minlength=size)
        for k in range(K):
            hist_S[k, f] = np.bincount(key, weights=S[:, k], minlength=size)
    return hist_S.reshape(K, F, n_nodes, n_bins), hist_W.reshape(F, n_nodes, n_bins)


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
    groups=None,
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
    groups : list, optional
        :func:`column_groups` of ``codes``, computed once per model. The root
        level's ``W`` histograms are the same for every tree of a model, so
        they are kept in the groups after the first tree.
    order : ndarray of intp, optional
        The columns in the order candidates are tried: of equal best scores
        the first in this order wins (column index order by default).
    trace : list, optional
        If given, the score matrix ``(n_columns, n_bins - 1)`` of every level
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
    """
    n_borders = np.asarray(n_borders)
    usable = n_borders if features is None else np.where(features, n_borders, 0)
    groups = column_groups(codes, n_borders) if groups is None else groups
    unit = W is None
    if unit:
        W = np.ones(len(S))
    n_parts = 1 if part is None else 2 * ((int(part.max()) + 2) // 2)
    node = np.zeros(len(W), dtype=np.intp)
    chosen_f, chosen_b = [], []
    # Without any level and nothing removed (no column has a border), column 0,
    # border 0: a test no training row passes.
    removed = (0, 0)
    widest = max(group[1] for group in groups) if groups else 2
    scores = np.full((len(n_borders), widest - 1), -np.inf)
    for level in range(depth):
        n_nodes = 1 << level
        key = node if part is None else part * n_nodes + node
        for g, (columns, width, group_codes, root_W) in enumerate(groups):
            # Every level counts all rows, as CatBoost does by default (its
            # subtraction trick needs sampling_frequency="PerTree"): the sums,
            # and so the exact ties between candidates, are then its own.
            known = root_W if level == 0 and root_W.size else None
            hist_S, hist_W = _histograms(
                group_codes,
                key,
                n_parts * n_nodes,
                width,
                S,
                None if unit else W,
                known_W=known,
            )
            if level == 0 and known is None:
                groups[g] = (columns, width, group_codes, hist_W)
            if part is None:
                group_scores = level_scores(
                    hist_S, hist_W, hist_S, hist_W, usable[columns], lam, score_function
                )
            else:
                K, F = hist_S.shape[0], hist_S.shape[1]
                by_S = hist_S.reshape(K, F, n_parts // 2, 2, n_nodes, width)
                by_W = hist_W.reshape(F, n_parts // 2, 2, n_nodes, width)
                group_scores = level_scores(
                    by_S[:, :, :, 0].reshape(K, F, -1, width),
                    by_W[:, :, 0].reshape(F, -1, width),
                    by_S[:, :, :, 1].reshape(K, F, -1, width),
                    by_W[:, :, 1].reshape(F, -1, width),
                    usable[columns],
                    lam,
                    score_function,
                    n_groups=n_parts // 2,
                )
            scores[columns, : width - 1] = group_scores
        if trace is not None:
            trace.append(scores.copy())
        # The first (column, border) of the best score wins, as in CatBoost.
        ranked = scores if order is None else scores[order]
        best = int(np.argmax(ranked))
        if not np.isfinite(ranked.flat[best]):
            break  # nothing to split on
        f, b = divmod(best, scores.shape[1])
        f = f if order is None else int(order[f])
        chosen_f.append(f)
        chosen_b.append(b)
        if gains is not None:
            gains.append(float(ranked.flat[best]))
        node = node + ((codes[f] > b).astype(np.intp) << level)
        redundant = _first_redundant_level(np.bincount(node, minlength=2 << level) > 0)
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
    index = np.arange(occupied.size)
    for level in range(occupied.size.bit_length() - 1):
        low = index[(index >> level) & 1 == 0]
        if not (occupied[low] & occupied[low | (1 << level)]).any():
            return level
    return None


def column_groups(codes: np.ndarray, n_borders: np.ndarray) -> list:
    """Columns grouped by histogram width (a power of two ≥ their bin count).

    A statistics column has 16 bins and a float feature up to 255: giving each
    group its own width keeps the histograms of narrow columns small. Returns
    ``(columns, width, codes of those columns, root W histogram)`` per group,
    the last empty until the first tree fills it.
    """
    n_borders = np.asarray(n_borders)
    width = np.maximum(2, 1 << np.ceil(np.log2(np.maximum(n_borders, 1) + 1)).astype(int))
    groups = []
    for w in np.unique(width):
        columns = np.flatnonzero(width == w)
        groups.append((columns, int(w), np.ascontiguousarray(codes[columns]), np.empty(0)))
    return groups


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
        # The root level's W histograms are kept in the groups after the first tree.
        self._groups = column_groups(scored, self.n_borders)

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
            groups=self._groups,
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
