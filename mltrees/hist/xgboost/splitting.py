"""The regularised objective of a tree, and its best splits from histograms (chapter 13).

With ``G`` and ``𝓗`` the sums of the gradients and hessians of a leaf's rows,
the second-order objective of giving the leaf the value ``w`` is
``G w + ½ (𝓗 + λ) w² + λ₁ |w|`` (:eq:`eq-xgb-leaf-objective`). Its minimiser
is the leaf weight :func:`leaf_weight` (:eq:`eq-xgb-leaf-weight`), with L1
soft-thresholding of ``G`` and XGBoost's ``max_delta_step`` clipping, and
twice the decrease it buys is the leaf's *score* :func:`gain_given_weight`
(:eq:`eq-xgb-structure-score`). The gain of a split is the children's scores
minus the parent's (:eq:`eq-xgb-gain`): XGBoost's ``loss_chg``, which is
twice the paper's ½[...] and is compared with ``gamma`` un-halved.

:func:`find_best_splits` scores every cut of every feature of many nodes at
once: prefix sums of the histograms give the left child's ``(G, 𝓗)`` at
every bin, and rows with a missing value are sent to each side in turn
(sparsity-aware split finding, Chen & Guestrin 2016, Algorithm 3), so the
split learns a default direction.

``SplitParams.float32`` chooses between two arithmetics:

* ``False``: the exact objective in float64, the book's derivation; with
  ``max_delta_step`` a clipped leaf's score includes the L1 term
  ``-2 λ₁ |w|``, as it must (and as XGBoost ≥ 3.4 computes it).
* ``True`` (the default): XGBoost 3.2's arithmetic and rules, so that trees
  equal the ``xgboost`` package's (3.2, the pinned reference) bit for bit where
  the data allow it: sums in float64, weights, scores and gains in float32
  (``src/tree/param.h`` ``CalcWeight``, ``CalcGainGivenWeight``;
  ``src/tree/split_evaluator.h`` ``CalcSplitGain``). Without
  ``max_delta_step`` a score is ``f32(T(G)²) / f32(𝓗 + λ)``, one float32
  division; with it, ``-(2 G w + (𝓗 + λ) w²)`` evaluated in float32 (``G`` and
  ``𝓗`` rounded first) **without** the L1 term, which enters only through
  ``w = clip(-T(G) / (𝓗 + λ), ±max_delta_step)``. A node lighter than
  ``min_child_weight`` has weight 0.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from mltrees.hist.candidates import SplitCandidates

__all__ = [
    "SplitParams",
    "find_best_splits",
    "gain_given_weight",
    "gain_table",
    "leaf_weight",
    "local_proposals",
    "node_score",
    "split_gain",
    "threshold_l1",
]

# XGBoost's kRtEps: a split must lower the objective by more than this.
MIN_LOSS_CHANGE = 1e-6
NODES_PER_CHUNK = 64  # bounds the (node, feature, bin) gain table of deep levels


@dataclass(frozen=True)
class SplitParams:
    """Regularisation and constraints of a split.

    Parameters
    ----------
    reg_lambda : float
        λ, the L2 penalty on leaf weights.
    reg_alpha : float
        λ₁, the L1 penalty on leaf weights (XGBoost's ``alpha``).
    gamma : float
        Minimum loss change (XGBoost's ``gamma`` = ``min_split_loss``,
        compared with the un-halved gain; the paper's γ is half of it).
    min_child_weight : float
        Minimum hessian sum 𝓗 of each child.
    max_delta_step : float
        If positive, every leaf weight is clipped to ``[-max_delta_step, max_delta_step]``.
    float32 : bool
        XGBoost 3.2's arithmetic and rules (see the module docstring); False:
        the exact objective in float64.
    """

    reg_lambda: float = 1.0
    reg_alpha: float = 0.0
    gamma: float = 0.0
    min_child_weight: float = 1.0
    max_delta_step: float = 0.0
    float32: bool = True

    def _f(self, value: float) -> float:
        return float(np.float32(value)) if self.float32 else float(value)

    @cached_property
    def lam(self) -> float:
        """λ as the arithmetic uses it."""
        return self._f(self.reg_lambda)

    @cached_property
    def alpha(self) -> float:
        """λ₁ as the arithmetic uses it."""
        return self._f(self.reg_alpha)

    @cached_property
    def delta(self) -> float:
        """max_delta_step as the arithmetic uses it."""
        return self._f(self.max_delta_step)

    @cached_property
    def mcw(self) -> float:
        """min_child_weight as the arithmetic uses it."""
        return self._f(self.min_child_weight)

    def round(self, values):
        """float32 rounding when the parameters ask for XGBoost's arithmetic."""
        return np.asarray(values, dtype=np.float32) if self.float32 else np.asarray(values)

    # The split rule as the depth-wise grower drives it (VarianceRule has the same four).
    needs_squares = False  # the rule reads no Σ w r² per node

    def node_weights(self, totals: np.ndarray, squares=None) -> np.ndarray:
        """Unscaled weight ``w*`` of every node from its ``(G, 𝓗)`` (:func:`leaf_weight`)."""
        return leaf_weight(totals[:, 0], totals[:, 1], self)

    def choose(self, hist, totals, squares, n_bins, feature_mask=None, cuts=None):
        """The best split of every node (:func:`find_best_splits`) and which ones to make."""
        best = find_best_splits(hist, totals, n_bins, self, feature_mask, cuts)
        return best, (best.gain > MIN_LOSS_CHANGE) & (best.gain >= self._f(self.gamma))

    def impurity(self, G: np.ndarray, H: np.ndarray, squares=None) -> np.ndarray:
        """``-score / 𝓗`` of every node (0 without hessian).

        For squared error (``h = 1``, ``λ = 0``) the variance up to a
        constant, so impurity decreases weighted by 𝓗 are the gains.
        """
        score = node_score(G, H, self).astype(np.float64)
        return np.where(H > 0, -score / np.where(H > 0, H, 1.0), 0.0)


def threshold_l1(G, alpha: float):
    """Soft-thresholding ``sign(G) max(|G| - λ₁, 0)`` (:eq:`eq-xgb-l1`)."""
    G = np.asarray(G, dtype=np.float64)
    if alpha == 0:
        return G
    return np.sign(G) * np.maximum(np.abs(G) - alpha, 0.0)


def leaf_weight(G, H, params: SplitParams):
    """The optimal leaf weight ``w* = -T(G) / (𝓗 + λ)`` (:eq:`eq-xgb-leaf-weight`).

    ``T`` is the L1 soft-threshold (:eq:`eq-xgb-l1`); with ``max_delta_step``
    the weight is clipped to ``±max_delta_step`` (:eq:`eq-xgb-max-delta-step`).
    A leaf without hessian (``𝓗 <= 0``) gets 0. Computed in float64; with
    ``params.float32`` rounded once, and 0 also for a leaf lighter than
    ``min_child_weight``, as XGBoost's ``CalcWeight`` (only a root can be:
    children must reach it).
    """
    G = np.asarray(G, dtype=np.float64)
    H = np.asarray(H, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        w = -threshold_l1(G, params.alpha) / (H + params.lam)
    if params.max_delta_step > 0:
        w = np.clip(w, -params.delta, params.delta)
    has_weight = (H > 0) & (params.mcw <= H) if params.float32 else H > 0
    return params.round(np.where(has_weight, w, 0.0))


def gain_given_weight(G, H, w, params: SplitParams):
    """Twice the objective decrease of a leaf of weight ``w`` (:eq:`eq-xgb-structure-score`).

    ``-(2 G w + (𝓗 + λ) w² + 2 λ₁ |w|)``: at ``w = w*`` (no clipping) it is
    ``T(G)² / (𝓗 + λ)``; with ``max_delta_step`` the clipped weight's value
    is used (:eq:`eq-xgb-max-delta-step`). 0 for a leaf without hessian.

    With ``params.float32``, XGBoost 3.2's arithmetic (``CalcGainGivenWeight``
    of ``split_evaluator.h`` and ``param.h``): without ``max_delta_step`` the
    score is ``f32(T(G)²) / f32(𝓗 + λ)`` in float32 and ``w`` is not used;
    with it, ``-(2 G w + (𝓗 + λ) w²)`` with every operation in float32 (``G``
    and ``𝓗`` rounded first) and no L1 term: XGBoost ≤ 3.3 lets ``λ₁`` act
    only through ``w``. (XGBoost 3.4 adds ``-2 λ₁ |w|``, the float64 rule.)
    """
    G = np.asarray(G, dtype=np.float64)
    H = np.asarray(H, dtype=np.float64)
    if not params.float32:
        w = np.asarray(w, dtype=np.float64)
        score = -(2.0 * G * w + (H + params.lam) * (w * w) + 2.0 * params.alpha * np.abs(w))
        return np.where(H > 0, score, 0.0)
    f32 = np.float32
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        if params.max_delta_step == 0:
            squared = np.square(threshold_l1(G, params.alpha)).astype(f32)
            score = squared / (H + params.lam).astype(f32)
        else:
            w = np.asarray(w, dtype=f32)
            score = -(f32(2.0) * G.astype(f32) * w + (H.astype(f32) + f32(params.lam)) * (w * w))
    return np.where(H > 0, score, f32(0.0)).astype(f32)


def node_score(G, H, params: SplitParams):
    """A leaf's score at its optimal weight: ``gain_given_weight(G, 𝓗, w*)``."""
    if params.float32 and params.max_delta_step == 0:
        # XGBoost's T(G)² / (𝓗 + λ) reads no weight: skip computing it.
        return gain_given_weight(G, H, None, params)
    with np.errstate(divide="ignore", invalid="ignore"):
        return gain_given_weight(G, H, leaf_weight(G, H, params), params)


def split_gain(GL, HL, GR, HR, parent_score, params: SplitParams):
    """XGBoost's ``loss_chg``: children's scores minus the parent's (:eq:`eq-xgb-gain`).

    ``-inf`` where a child has no hessian or less than ``min_child_weight``.
    The paper's gain is half of this, minus its γ.
    """
    HL = np.asarray(HL, dtype=np.float64)
    HR = np.asarray(HR, dtype=np.float64)
    if params.float32 and params.max_delta_step == 0:
        # gain_given_weight's score without its guard of 𝓗 > 0, which every
        # valid split meets (the others get -inf below).
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            children = _score_f32(GL, HL, params) + _score_f32(GR, HR, params)
    else:
        children = node_score(GL, HL, params) + node_score(GR, HR, params)
    gain = params.round(children - params.round(parent_score))
    mcw = params.mcw
    valid = (mcw <= HL) & (mcw <= HR)
    if not mcw > 0:  # else implied
        valid &= (HL > 0) & (HR > 0)
    return np.where(valid, gain, params.round(-np.inf))


def _score_f32(G, H, params: SplitParams) -> np.ndarray:
    """XGBoost's score ``f32(T(G)²) / f32(𝓗 + λ)``: :func:`gain_given_weight`, no clipping."""
    squared = np.square(threshold_l1(G, params.alpha)).astype(np.float32)
    return squared / (H + params.lam).astype(np.float32)


def local_proposals(hist: np.ndarray, n_proposals: int) -> np.ndarray:
    """Cuts at the hessian-weighted quantiles of each node's own rows (local proposals).

    Algorithm 2 of Chen & Guestrin with proposals made anew at every node:
    the node's rank function :eq:`eq-xgb-rank` is the cumulative hessian of
    its histogram, and the cut after bin ``b`` is proposed where it crosses
    one of ``k / n_proposals``. Returns the ``cut_mask`` of :func:`find_best_splits`.
    """
    H = hist[:, :, :-1, 1]
    cumulative = np.cumsum(H, axis=2)
    total = cumulative[:, :, -1:]
    bucket = np.floor(n_proposals * cumulative / np.where(total > 0, total, 1.0))
    previous = np.concatenate([np.zeros_like(bucket[:, :, :1]), bucket[:, :, :-1]], axis=2)
    return bucket > previous


def gain_table(hist: np.ndarray, totals: np.ndarray, n_bins: np.ndarray, params: SplitParams):
    """The gain of every cut of every feature of every node, missing values to the right.

    Shape (n_nodes, n_features, stride - 1); ``-inf`` where a cut is not
    allowed. Growth policies that choose one split for a whole level
    (CatBoost's oblivious trees, chapter 15) add these tables over the
    level's nodes instead of taking each node's best.
    """
    n_cuts = hist.shape[2] - 1
    prefix = np.cumsum(hist[:, :, :n_cuts, :2], axis=2)
    right = totals[:, None, None, :2] - prefix
    parent = node_score(totals[:, 0], totals[:, 1], params)[:, None, None]
    gain = split_gain(prefix[..., 0], prefix[..., 1], right[..., 0], right[..., 1], parent, params)
    allowed = np.arange(n_cuts)[None, None, :] < n_bins[None, :, None]
    return np.where(allowed, gain, params.round(-np.inf))


def find_best_splits(
    hist: np.ndarray,
    totals: np.ndarray,
    n_bins: np.ndarray,
    params: SplitParams,
    feature_mask: np.ndarray | None = None,
    cut_mask: np.ndarray | None = None,
) -> SplitCandidates:
    """The best split of every node from its histograms (Algorithms 2 and 3 of Chen & Guestrin).

    Candidates of a feature, in the order XGBoost scans them: missing values
    to the right at every cut from the lowest bin up, then (if the node has
    missing values for that feature) to the left from the highest cut
    down. The best gain wins; ties go to the lower feature, then to the
    earlier candidate.

    Parameters
    ----------
    hist : ndarray, shape (n_nodes, n_features, stride, 2)
        (G, 𝓗) per bin; the last bin of each feature's stride is missing values.
    totals : ndarray, shape (n_nodes, 2)
        (G, 𝓗) of each node's rows.
    n_bins : ndarray of int, shape (n_features,)
        Non-missing bins of each feature.
    params : SplitParams
    feature_mask : ndarray of bool, shape (n_nodes, n_features), optional
        The features each node may split on (column subsampling).
    cut_mask : ndarray of bool, shape (n_nodes, n_features, stride - 1), optional
        The cuts (after bin ``b``) each node may use: local proposals.
    """
    n_nodes = hist.shape[0]
    parts = [
        _best_of_chunk(
            hist[start : start + NODES_PER_CHUNK],
            totals[start : start + NODES_PER_CHUNK],
            n_bins,
            params,
            None if feature_mask is None else feature_mask[start : start + NODES_PER_CHUNK],
            None if cut_mask is None else cut_mask[start : start + NODES_PER_CHUNK],
        )
        for start in range(0, max(n_nodes, 1), NODES_PER_CHUNK)
    ]
    if len(parts) == 1:
        return SplitCandidates(*parts[0])
    return SplitCandidates(*(np.concatenate(arrays) for arrays in zip(*parts, strict=True)))


def _best_of_chunk(hist, totals, n_bins, params, feature_mask, cut_mask):
    n_nodes, n_features, stride, _ = hist.shape
    n_cuts = stride - 1  # cuts after bins 0 .. stride - 2
    neg = params.round(-np.inf)
    # (Σg, Σh) of a bin as one complex number: one comparison, one cumulative
    # sum for both (complex addition adds the parts apart, so the sums are
    # the float64 running sums bit for bit).
    sums = np.ascontiguousarray(hist[..., :2]).view(np.complex128)[..., 0]
    # The cuts to score, in (node, feature, bin) order: after a non-empty bin
    # (see _backward_candidates), or every cut with local proposals; cuts
    # past a feature's last bin repeat its last cut.
    bins = sums[:, :, :n_cuts]
    if cut_mask is None:
        scored = sums != 0  # the missing bins' entries are dropped below
    else:
        scored = np.zeros(sums.shape, dtype=bool)
        scored[:, :, :n_cuts] = np.arange(n_cuts) < n_bins[:, None]
    if feature_mask is not None:
        scored &= feature_mask[:, :, None]
    # One flat index: np.nonzero of a 3-D mask is several times slower.
    cell = scored.ravel().nonzero()[0]
    q, cell = np.divmod(cell, n_features * stride)
    j, b = np.divmod(cell, stride)
    if cut_mask is None:
        within = b < n_bins[j]
        q, j, b = q[within], j[within], b[within]
    prefix = bins.cumsum(axis=2)[q, j, b]  # left sums, missing values right
    G, H = prefix.real, prefix.imag
    total_G, total_H = totals[:, 0], totals[:, 1]
    parent_score = node_score(total_G, total_H, params)

    # Forward scan: bins 0 .. b left, missing right; the first maximum (lowest
    # feature, then lowest cut). A cut after an empty bin has the sums, so
    # the gain, of the cut before it, bit for bit: it cannot come first.
    gain = split_gain(G, H, total_G[q] - G, total_H[q] - H, parent_score[q], params)
    if cut_mask is not None:
        gain = np.where(cut_mask[q, j, b], gain, neg)
    best_gain, at = _best_per_node(gain, q, np.arange(q.size), n_nodes)
    # Without a valid cut: the first cut of feature 0, as a scan of every cut reports it.
    feature = np.zeros(n_nodes, dtype=np.intp)
    split_bin = np.zeros(n_nodes, dtype=np.intp)
    left = hist[:, 0, 0, :2].copy()
    found = best_gain > neg
    if found.any():
        k = at[found]
        feature[found], split_bin[found] = j[k], b[k]
        left[found] = np.column_stack([G[k], H[k]])
    default_left = np.zeros(n_nodes, dtype=bool)

    # Backward scan (only where missing values exist): bins 0 .. b and missing
    # left, scanned from the highest cut down: the lowest feature, then the highest cut.
    missing = sums[:, :, n_cuts]
    missing_G, missing_H = missing.real, missing.imag
    has_missing = missing != 0  # (n, F)
    if feature_mask is not None:
        has_missing &= feature_mask
    if has_missing.any():
        q_b, j_b, last, G_b, H_b = _backward_candidates(q, j, b, G, H, has_missing, n_bins)
        G_b += missing_G[q_b, j_b]
        H_b += missing_H[q_b, j_b]
        gain = split_gain(
            G_b, H_b, total_G[q_b] - G_b, total_H[q_b] - H_b, parent_score[q_b], params
        )
        if cut_mask is not None:  # the cut after bin ``last`` (-1: none, always allowed)
            allowed = np.concatenate([np.ones_like(cut_mask[:, :, :1]), cut_mask], axis=2)
            gain = np.where(allowed[q_b, j_b, last + 1], gain, neg)
        gain_b, at = _best_per_node(gain, q_b, j_b * stride - last, n_nodes)
        found = at >= 0
        at = np.where(found, at, 0)
        feature_b = np.where(found, j_b[at], 0)
        # XGBoost scans a feature forward, then backward: at equal gains the
        # lower feature wins, and within a feature the forward candidate.
        take = found & ((gain_b > best_gain) | ((gain_b == best_gain) & (feature_b < feature)))
        feature = np.where(take, feature_b, feature)
        split_bin = np.where(take, last[at], split_bin)
        left = np.where(take[:, None], np.column_stack([G_b[at], H_b[at]]), left)
        best_gain = np.where(take, gain_b, best_gain)
        default_left = take
    # A candidate must beat 0 (XGBoost starts from an empty split of loss 0).
    best_gain = np.where(best_gain > 0, best_gain, neg)
    return (
        best_gain,
        feature.astype(np.intp),
        split_bin.astype(np.intp),
        default_left,
        left,
        totals - left,
    )


def _best_per_node(gain: np.ndarray, node: np.ndarray, key: np.ndarray, n_nodes: int):
    """Each node's largest gain, and the index of the candidate of least ``key`` reaching it.

    ``key`` orders the candidates as a scan meets them. A node without
    candidates gets ``-inf`` and index -1; a NaN gain, as ``np.argmax``
    takes it, makes the node's maximum NaN (index -1).
    """
    maxima = np.full(n_nodes, -np.inf, dtype=gain.dtype)
    np.maximum.at(maxima, node, gain)
    best = (gain == maxima.take(node)).nonzero()[0]
    first = np.full(n_nodes, np.iinfo(np.intp).max)
    np.minimum.at(first, node[best], key[best])
    chosen = best[key[best] == first[node[best]]]
    at = np.full(n_nodes, -1, dtype=np.intp)
    at[node[chosen]] = chosen
    return maxima, at


def _backward_candidates(q, j, b, G, H, has_missing, n_bins):
    """The cuts of the backward scan, one per run of cuts with equal sums.

    The scored cuts (node ``q``, feature ``j``, after bin ``b``, left sums
    ``G``, ``H``) are those after a non-empty bin: the cuts after it up to the
    next non-empty bin send the same rows left, so they tie. Scanning down,
    XGBoost meets the highest of such a run first: the run's candidate is
    its ``last`` cut, the bin before the next scored one (the feature's last
    cut ``n_bins - 2`` after the last). Before the first scored cut, a run
    sends only the missing values left (sums 0 here). Only (node, feature)
    pairs with missing values take part. Returns ``(q, j, last, G, H)``.
    """
    n_features = has_missing.shape[1]
    keep = has_missing[q, j]
    q, j, b, G, H = q[keep], j[keep], b[keep], G[keep], H[keep]
    pair = q * n_features + j  # increasing
    same_pair = np.append(pair[1:] == pair[:-1], False)
    last = np.where(same_pair, np.append(b[1:], 0) - 1, n_bins[j] - 2)
    valid = last >= b  # the cut after a feature's last bin is not scanned backward
    # Nothing but the missing values left, up to the bin before the first scored cut.
    q_m, j_m = np.divmod(np.flatnonzero(has_missing), n_features)
    pair_m = q_m * n_features + j_m
    last_m = n_bins[j_m] - 2  # a pair without scored cuts: all its cuts tie
    if pair.size:
        first = np.minimum(np.searchsorted(pair, pair_m), pair.size - 1)
        last_m = np.where(pair[first] == pair_m, b[first] - 1, last_m)
    return (
        np.concatenate([q_m, q[valid]]),
        np.concatenate([j_m, j[valid]]),
        np.concatenate([last_m, last[valid]]),
        np.concatenate([np.zeros(q_m.size), G[valid]]),
        np.concatenate([np.zeros(q_m.size), H[valid]]),
    )


@dataclass(frozen=True)
class VarianceRule:
    """CART's squared-error split rule on histograms: gradient boosting's trees (chapter 12).

    A regression tree fitted to residuals ``r`` with weights ``w`` chooses
    the cut of largest weighted variance decrease, which with ``G = Σ w r``
    and ``𝓗 = Σ w`` is ``G_L²/𝓗_L + G_R²/𝓗_R - G²/𝓗`` over the node's weight:
    :eq:`eq-xgb-gain` with ``h = w`` and ``λ = 0``. The histograms carry a
    third column, the number of rows, for ``min_samples_leaf``. Ties follow
    the tree engine of :mod:`mltrees.tree`: within a feature the first cut
    whose gain is within ``TIE_TOLERANCE`` times the node's variance (times
    its weight) of the best, across features the first such feature; so the
    trees are those of :class:`~mltrees.CARTRegressor` on the same bins.

    Parameters
    ----------
    min_samples_split, min_samples_leaf : int
        Rows needed to split a node, and in each child.
    min_weight_leaf : float
        Weight needed in each child.
    min_impurity_decrease : float
        A split must lower the tree's weighted variance by this much, as a
        share of the total weight ``total_weight``.
    total_weight : float
        The weight of all training rows.
    """

    min_samples_split: int = 2
    min_samples_leaf: int = 1
    min_weight_leaf: float = 0.0
    min_impurity_decrease: float = 0.0
    total_weight: float = 1.0
    float32: bool = False  # the grower's rounding switch: never for this rule

    PURE = 1e-14  # node variance at or below this: a leaf (as the tree engine)
    TIE_TOLERANCE = 1e-10

    def round(self, values):
        """No rounding (float64 throughout)."""
        return np.asarray(values)

    needs_squares = True  # the variance of a node needs its Σ w r²

    def node_weights(self, totals: np.ndarray, squares=None) -> np.ndarray:
        """The weighted mean residual ``G / 𝓗`` of every node (0 without weight)."""
        return totals[:, 0] / np.where(totals[:, 1] > 0, totals[:, 1], 1.0)

    def choose(self, hist, totals, squares, n_bins, feature_mask=None, cuts=None):
        """The best split of every node (:meth:`find`) and which ones to make.

        ``cuts`` (XGBoost's local proposals) do not apply to this rule.
        """
        candidates = self.splittable(totals, squares, True)
        best = self.find(hist, totals, squares, n_bins, feature_mask)
        return best, candidates & self.accept(best)

    def impurity(self, G: np.ndarray, H: np.ndarray, squares=None) -> np.ndarray:
        """Weighted variance of every node (:meth:`variance`)."""
        return self.variance(np.column_stack([G, H, np.zeros_like(G)]), squares)

    def variance(self, totals: np.ndarray, squares: np.ndarray) -> np.ndarray:
        """Weighted variance of each node's residuals from (G, 𝓗, count) and Σ w r²."""
        H = np.where(totals[:, 1] > 0, totals[:, 1], 1.0)
        mean = totals[:, 0] / H
        return np.maximum(squares / H - mean * mean, 0.0)

    def splittable(self, totals, squares, depth_ok: bool) -> np.ndarray:
        """Nodes with enough rows and some variance left."""
        count = totals[:, 2]
        return (
            depth_ok
            & (count >= self.min_samples_split)
            & (count >= 2 * self.min_samples_leaf)
            & (self.variance(totals, squares) > self.PURE)
        )

    def find(self, hist, totals, squares, n_bins, feature_mask=None) -> SplitCandidates:
        """The best cut of every node, with the tree engine's tie rule.

        Missing values (the last bin of each stride) are scored on both sides
        of every cut, as the tree engine's ``missing="default_direction"``
        does (:eq:`eq-default-direction`, chapter 6), in scikit-learn's order:
        a feature sends missing values left only if its best "missing left"
        cut beats its best "missing right" cut beyond rounding. Where a node
        has no missing value of the chosen feature, future ones go to the
        child with more rows (ties: right).
        """
        n_nodes, n_features, stride, _ = hist.shape
        n_cuts = stride - 1
        prefix = np.cumsum(hist[:, :, :n_cuts, :], axis=2)
        missing = hist[:, :, n_cuts, :]  # (n, F, 3)
        has_missing = missing[..., 2] > 0
        total = totals[:, None, None, :]
        parent = totals[:, 0] ** 2 / np.where(totals[:, 1] > 0, totals[:, 1], 1.0)
        cut = np.arange(n_cuts)[None, None, :]
        within = cut < n_bins[None, :, None] - 1
        # "Every known value left, missing values right", the tree engine's cut
        # after a node's last value: the cut after a feature's last bin.
        within_right = within | (has_missing[:, :, None] & (cut == n_bins[None, :, None] - 1))
        if feature_mask is not None:
            within = within & feature_mask[:, :, None]
            within_right = within_right & feature_mask[:, :, None]

        def scored(left, within):
            right = total - left
            HL, HR = left[..., 1], right[..., 1]
            with np.errstate(divide="ignore", invalid="ignore"):
                children = left[..., 0] ** 2 / HL + right[..., 0] ** 2 / HR
            ok = (
                within
                & (left[..., 2] >= max(self.min_samples_leaf, 1))
                & (right[..., 2] >= max(self.min_samples_leaf, 1))
                & (self.min_weight_leaf <= HL)
                & (self.min_weight_leaf <= HR)
                & (HL > 0)
                & (HR > 0)
            )
            return np.where(ok, children - parent[:, None, None], -np.inf), ok

        gain, ok = scored(prefix, within_right)  # missing values right
        tolerance = self.TIE_TOLERANCE * self.variance(totals, squares) * totals[:, 1]
        to_left = np.zeros(gain.shape, dtype=bool)
        if has_missing.any():
            gain_left, ok_left = scored(prefix + missing[:, :, None, :], within)
            feature_left = has_missing & (
                gain_left.max(axis=2) > gain.max(axis=2) + tolerance[:, None]
            )
            to_left = np.broadcast_to(feature_left[:, :, None], gain.shape)
            gain = np.where(to_left, gain_left, gain)
            ok = np.where(to_left, ok_left, ok)
        # Within a feature: the first cut near its best.
        best_of_feature = gain.max(axis=2)
        near = gain >= best_of_feature[..., None] - tolerance[:, None, None]
        first = np.argmax(near & ok, axis=2)  # (n, F)
        node = np.arange(n_nodes)[:, None]
        feature_gain = np.where(
            np.isfinite(best_of_feature), gain[node, np.arange(n_features)[None, :], first], -np.inf
        )
        # Across features: the first near the best.
        top = feature_gain.max(axis=1)
        chosen = np.argmax(feature_gain >= (top - tolerance)[:, None], axis=1)
        rows = np.arange(n_nodes)
        split_bin = first[rows, chosen]
        best_gain = np.where(np.isfinite(top), feature_gain[rows, chosen], -np.inf)
        default_left = to_left[rows, chosen, split_bin]
        left = prefix[rows, chosen, split_bin] + np.where(
            default_left[:, None], missing[rows, chosen], 0.0
        )
        right = totals - left
        # Nothing to learn from: the child with more rows, ties right (the tree engine's rule).
        learned = has_missing[rows, chosen]
        default_left = np.where(learned, default_left, left[:, 2] > right[:, 2])
        return SplitCandidates(
            gain=best_gain,
            feature=chosen.astype(np.intp),
            split_bin=split_bin.astype(np.intp),
            default_left=default_left,
            left=left,
            right=right,
        )

    def accept(self, best: SplitCandidates) -> np.ndarray:
        """Finite gain, and a decrease of at least ``min_impurity_decrease``."""
        decrease = best.gain / self.total_weight
        return np.isfinite(best.gain) & (decrease + 1e-12 >= self.min_impurity_decrease)


def __getattr__(name: str):
    # BestSplits was this module's record of the best splits; it is now the one record
    # of every grower, mltrees.hist.candidates.SplitCandidates.
    if name == "BestSplits":
        import warnings

        warnings.warn(
            "mltrees.hist.xgboost.splitting.BestSplits is deprecated: use "
            "mltrees.hist.candidates.SplitCandidates",
            DeprecationWarning,
            stacklevel=2,
        )
        return SplitCandidates
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
