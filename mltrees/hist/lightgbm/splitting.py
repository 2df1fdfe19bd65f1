"""LightGBM's split rule on gradient histograms (chapter 14).

The objective is the second-order one of chapter 13 without the per-leaf
penalty: a leaf with gradient sum ``G`` and hessian sum ``𝓗`` takes the
value ``w* = -T(G) / (𝓗 + λ)`` (:func:`leaf_output`, ``T`` the L1
soft-threshold) and is worth ``T(G)² / (𝓗 + λ)`` (:func:`leaf_gain`); a
split is worth its children's values minus the parent's. LightGBM's rules
(Ke et al. 2017, and its source, ``feature_histogram.hpp``), which decide
which split wins and so must be followed for equal trees:

* a cut is scanned from the highest bin down (*reverse* scan, missing values
  to the left); a feature with missing values is scanned again from the
  lowest bin up (missing values to the right), which wins only if strictly
  better. Within a scan the first best cut wins: on ties the largest
  threshold in the reverse scan; across features, the lower feature;
* ``min_child_samples`` is checked on *estimated* counts: a bin's count is
  ``round(𝓗_bin · n / 𝓗)``, since LightGBM keeps no counts in its histograms;
* a cut must gain more than ``min_split_gain`` over the parent;
* a feature without any valid cut in a leaf (``splittable`` of
  :class:`~mltrees.hist.candidates.SplitCandidates`) is not tried again in
  the leaf's descendants.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mltrees.hist.candidates import SplitCandidates
from mltrees.hist.xgboost.splitting import threshold_l1

__all__ = ["LeafwiseParams", "find_leaf_splits", "leaf_gain", "leaf_output"]

EPSILON = float(np.float32(1e-15))  # LightGBM's kEpsilon added to hessian sums


@dataclass(frozen=True)
class LeafwiseParams:
    """LightGBM's regularisation and leaf constraints.

    Parameters
    ----------
    reg_lambda : float
        λ (``lambda_l2``).
    reg_alpha : float
        λ₁ (``lambda_l1``), soft-thresholding of ``G``.
    min_child_samples : int
        Fewest (estimated) rows per child (``min_data_in_leaf``).
    min_child_weight : float
        Smallest hessian sum 𝓗 per child (``min_sum_hessian_in_leaf``).
    min_split_gain : float
        A split must gain more than this (``min_gain_to_split``).
    max_delta_step : float
        If positive, leaf values are clipped to ``±max_delta_step``.
    """

    reg_lambda: float = 0.0
    reg_alpha: float = 0.0
    min_child_samples: int = 20
    min_child_weight: float = 1e-3
    min_split_gain: float = 0.0
    max_delta_step: float = 0.0


def leaf_output(G, H, params: LeafwiseParams):
    """The leaf value ``w* = -T(G) / (𝓗 + λ)`` (:eq:`eq-xgb-leaf-weight` with γ = 0)."""
    w = -threshold_l1(G, params.reg_alpha) / (np.asarray(H, dtype=np.float64) + params.reg_lambda)
    if params.max_delta_step > 0:
        w = np.clip(w, -params.max_delta_step, params.max_delta_step)
    return w


def leaf_gain(G, H, params: LeafwiseParams):
    """A leaf's worth ``T(G)² / (𝓗 + λ)``; with clipping, ``-(2 T(G) w + (𝓗 + λ) w²)``."""
    G = threshold_l1(G, params.reg_alpha)
    H = np.asarray(H, dtype=np.float64) + params.reg_lambda
    if params.max_delta_step > 0:
        w = np.clip(-G / H, -params.max_delta_step, params.max_delta_step)
        return -(2.0 * G * w + H * w * w)
    return G * G / H


def _scan(left, right, valid, params: LeafwiseParams, threshold_gain):
    """Gains of candidate cuts from their (G, 𝓗, count) sides; invalid ones are ``-inf``.

    Also returns, per (leaf, feature), whether a cut that passed the count and
    hessian checks had a NaN gain (0 / 0: a side of hessian exactly 0, as
    ``min_child_weight = 0`` allows). LightGBM tests ``gain <= shift`` to reject
    a cut, which a NaN passes: the feature is then marked splittable (and kept
    for the descendants) though no cut of it is taken.
    """
    left_G, left_H, left_C = left
    right_G, right_H, right_C = right
    ok = valid & (left_C >= params.min_child_samples) & (right_C >= params.min_child_samples)
    ok &= (left_H >= params.min_child_weight) & (right_H >= params.min_child_weight)
    with np.errstate(divide="ignore", invalid="ignore"):
        gain = leaf_gain(left_G, left_H, params) + leaf_gain(right_G, right_H, params)
    nan_passed = (ok & np.isnan(gain)).any(axis=-1)
    ok &= gain > threshold_gain
    return np.where(ok, gain, -np.inf), nan_passed


def _running(values: np.ndarray, start: np.ndarray) -> np.ndarray:
    """Running sums along the bin axis, each statistic starting from ``start``."""
    shape = (*values.shape[:2], 1, values.shape[3])
    seeded = np.concatenate([np.broadcast_to(start, shape), values], axis=2)
    return np.cumsum(seeded, axis=2)[:, :, 1:, :]


def _plain_reverse_scan(hist, totals, counts, n_bins, params: LeafwiseParams, allowed):
    """:func:`find_leaf_splits` for features without missing values, λ₁ = 0 and no clipping.

    The same candidates, sums and tie rules as the general scan, in fewer
    array passes: in the reversed bin order the right side of cut ``t`` is a
    prefix, so one running sum gives every cut, and the first maximum of the
    prefix index is LightGBM's largest threshold. This is the scan of most
    leaves, and the leaf-wise grower runs one per split, so G and 𝓗 are
    scanned as separate arrays (contiguous along the bins when ``hist`` is
    laid out as ``(leaf, feature, statistic, bin)``).
    """
    n_leaves, n_features, width, _ = hist.shape
    k_max = width - 1  # cuts t = width - 2 .. 0 are prefixes k = 0 .. width - 2
    if k_max < 1:  # every feature holds one bin (all zero, say): no cut anywhere
        nothing = np.zeros(n_leaves, dtype=np.intp)
        return SplitCandidates(
            gain=np.full(n_leaves, -np.inf),
            feature=nothing,
            split_bin=nothing,
            default_left=np.ones(n_leaves, dtype=bool),
            left=np.zeros((n_leaves, 2)),
            right=np.zeros((n_leaves, 2)),
            splittable=np.zeros((n_leaves, n_features), dtype=bool),
        )
    # Bins width - 1 .. 1, top down: the right side of cut t = width - 2 - k.
    top_down_H = hist[:, :, :0:-1, 1]
    right_G = np.cumsum(hist[:, :, :0:-1, 0], axis=2)
    sum_G = totals[:, 0][:, None, None]
    sum_H = (totals[:, 1] + 2 * EPSILON)[:, None, None]
    n = counts.astype(np.float64)[:, None, None]
    right_C = top_down_H * (n / sum_H)
    right_C += 0.5
    np.floor(right_C, out=right_C)
    # Whole numbers: their running sum is exact in integers too, where
    # NumPy's cumsum runs several times faster than in floats.
    right_C = np.cumsum(right_C.astype(np.int64), axis=2)
    # LightGBM starts the right hessian at its epsilon: (ε + h_top) + h_next ...
    right_H = top_down_H.copy()
    right_H[:, :, 0] += EPSILON
    np.cumsum(right_H, axis=2, out=right_H)
    left_G = sum_G - right_G
    left_H = sum_H - right_H
    mcs, mcw = params.min_child_samples, params.min_child_weight
    ok = right_C >= mcs
    ok &= n - right_C >= mcs
    ok &= right_H >= mcw
    ok &= left_H >= mcw
    # Cut t exists for t <= n_bins - 2, i.e. prefix k >= width - n_bins.
    if (n_bins < width).any():
        ok &= np.arange(k_max)[None, None, :] >= (width - n_bins)[None, :, None]
    if not allowed.all():
        ok &= allowed[:, :, None]
    lam = params.reg_lambda
    with np.errstate(divide="ignore", invalid="ignore"):  # empty sides are masked by ok
        gain = left_G * left_G
        right = right_G * right_G
        if lam != 0.0:
            gain /= left_H + lam
            right /= right_H + lam
        else:  # x + 0.0 is x (the sums are positive): no pass needed
            gain /= left_H
            right /= right_H
        gain += right
        parent = sum_G * sum_G / (sum_H + lam)
    nan_passed = (ok & np.isnan(gain)).any(axis=2)  # see _scan
    shift = parent + params.min_split_gain
    ok &= gain > shift
    np.copyto(gain, -np.inf, where=~ok)
    # Per feature the first best of the reverse scan (the largest threshold);
    # across features the best gain net of the shift, ties to the lower feature.
    best_k = np.argmax(gain, axis=2)
    leaf, each = np.arange(n_leaves), np.arange(n_features)
    net = gain[leaf[:, None], each, best_k] - shift[:, :, 0]
    feature = np.argmax(net, axis=1)
    k = best_k[leaf, feature]
    best_gain = net[leaf, feature]
    found = np.isfinite(best_gain)
    lG, lH = left_G[leaf, feature, k], left_H[leaf, feature, k]
    # Both sides' (G, 𝓗) and the hessians of their values, as LightGBM's SplitInfo.
    sides = np.empty((3, n_leaves, 2))
    sides[0, :, 0], sides[0, :, 1] = lG, lH - EPSILON
    sides[1, :, 0], sides[1, :, 1] = totals[:, 0] - lG, sum_H[:, 0, 0] - lH - EPSILON
    sides[2, :, 0], sides[2, :, 1] = lH, sum_H[:, 0, 0] - lH
    return SplitCandidates(
        gain=np.where(found, best_gain, -np.inf),
        feature=feature.astype(np.intp),
        split_bin=(width - 2 - k).astype(np.intp),
        default_left=np.ones(n_leaves, dtype=bool),
        left=sides[0],
        right=sides[1],
        splittable=np.isfinite(gain.max(axis=2)) | nan_passed,
        out_H=sides[2],
    )


def find_leaf_splits(
    hist: np.ndarray,
    totals: np.ndarray,
    counts: np.ndarray,
    n_bins: np.ndarray,
    has_missing: np.ndarray,
    params: LeafwiseParams,
    feature_mask: np.ndarray | None = None,
    most_frequent_first: np.ndarray | None = None,
) -> SplitCandidates:
    """The best split of each leaf from its histograms, by LightGBM's rules.

    Parameters
    ----------
    hist : ndarray, shape (n_leaves, n_features, stride, 2)
        (G, 𝓗) per bin; the last slot of the stride is the missing bin.
    totals : ndarray, shape (n_leaves, 2)
        (G, 𝓗) of each leaf.
    counts : ndarray of int, shape (n_leaves,)
        Rows of each leaf.
    n_bins : ndarray of int, shape (n_features,)
        Value bins of each feature.
    has_missing : ndarray of bool, shape (n_features,)
        Features with a missing bin (missing values seen in training).
    params : LeafwiseParams
    feature_mask : ndarray of bool, shape (n_leaves, n_features), optional
        Features each leaf may split on.
    most_frequent_first : ndarray of bool, shape (n_features,), optional
        Features whose most frequent bin is bin 0. LightGBM keeps no
        histogram entry for that bin, so its forward scan counts the left
        side as the leaf's rows minus every other bin's estimate.
    """
    if not has_missing.any() and params.reg_alpha == 0 and params.max_delta_step <= 0:
        allowed = np.ones(hist.shape[:2], dtype=bool) if feature_mask is None else feature_mask
        return _plain_reverse_scan(hist[:, :, :-1], totals, counts, n_bins, params, allowed)
    n_leaves, n_features, stride, _ = hist.shape
    n_cuts = stride - 1
    leaf = np.arange(n_leaves)
    sum_G = totals[:, 0][:, None, None]
    sum_H = (totals[:, 1] + 2 * EPSILON)[:, None, None]
    n = counts.astype(np.float64)[:, None, None]
    with np.errstate(divide="ignore", invalid="ignore"):
        factor = np.where(sum_H > 0, n / sum_H, 0.0)
    parent = leaf_gain(sum_G, sum_H, params)
    threshold_gain = parent + params.min_split_gain
    values = hist[:, :, :n_cuts, :]
    bin_count = np.floor(values[..., 1] * factor + 0.5)
    cut = np.arange(n_cuts)[None, None, :]
    allowed = np.ones((n_leaves, n_features), dtype=bool)
    if feature_mask is not None:
        allowed &= feature_mask
    B = n_bins[None, :, None]

    # Reverse scan: bins above t to the right, t = B-2 .. 0; the missing bin
    # stays left. Sums accumulate from the top bin down, the hessians from
    # LightGBM's epsilon, in LightGBM's order (pure leaves' gains are float
    # noise, and the order of the additions decides which noise wins).
    right = _running(values[:, :, ::-1, :], np.array([0.0, EPSILON]))[:, :, ::-1, :]
    right = np.concatenate([right[:, :, 1:, :], np.zeros_like(right[:, :, :1, :])], axis=2)
    right[:, :, -1, 1] = EPSILON
    right_count = np.cumsum(bin_count[:, :, ::-1], axis=2)[:, :, ::-1]
    right_count = np.concatenate([right_count[:, :, 1:], np.zeros_like(right_count[:, :, :1])], 2)
    right_H = right[..., 1]
    reverse, nan_passed = _scan(
        (sum_G - right[..., 0], sum_H - right_H, n - right_count),
        (right[..., 0], right_H, right_count),
        (cut <= B - 2) & allowed[:, :, None],
        params,
        threshold_gain,
    )
    # The first best of a reverse scan is the largest threshold.
    flipped = reverse[:, :, ::-1]
    best_rev = n_cuts - 1 - np.argmax(flipped, axis=2)  # (n, F)
    gain_rev = np.take_along_axis(reverse, best_rev[:, :, None], axis=2)[:, :, 0]
    left_rev = sum_G[:, :, 0] - np.take_along_axis(right[..., 0], best_rev[:, :, None], 2)[..., 0]
    left_rev_H = sum_H[:, :, 0] - np.take_along_axis(right_H, best_rev[:, :, None], 2)[..., 0]
    # LightGBM keeps a feature's best as its gain net of the shift (parent +
    # min_split_gain); the forward scan replaces it only if strictly better
    # than that net gain plus the shift again (which need not round back).
    shift = threshold_gain[:, :, 0]
    best_gain, best_bin = gain_rev - shift, best_rev
    best_left_G, best_left_H = left_rev, left_rev_H
    default_left = np.ones((n_leaves, n_features), dtype=bool)
    splittable = np.isfinite(gain_rev) | nan_passed

    if has_missing.any():
        # Forward scan of features with a missing bin: bins 0..t left, missing
        # right, t = 0 .. B-1. t = B-1 separates the missing values alone; it
        # is also the one cut of a feature with a single value bin, which
        # LightGBM scans once, missing values to the right.
        prefix = _running(values, np.array([0.0, EPSILON]))
        prefix_count = np.cumsum(bin_count, axis=2)
        if most_frequent_first is not None and most_frequent_first.any():
            # Bin 0 is implicit: the left side starts as the leaf minus every
            # other bin (the missing bin too), then gains bins 1 .. t.
            first = most_frequent_first[None, :, None]
            missing_count = np.floor(hist[:, :, n_cuts, 1] * factor[:, :, 0] + 0.5)[:, :, None]
            prefix_count = np.where(first, n - right_count - missing_count, prefix_count)
            start = np.concatenate([sum_G, sum_H - EPSILON], axis=2)[:, :, None, :]
            start = np.broadcast_to(start, (n_leaves, n_features, 1, 2))
            steps = np.concatenate(
                [start, -values[:, :, 1:], -hist[:, :, n_cuts:, :], values[:, :, 1:]], axis=2
            )
            implicit = np.cumsum(steps, axis=2)[:, :, n_cuts : 2 * n_cuts, :]
            prefix = np.where(first[..., None], implicit, prefix)
        left_G, left_H = prefix[..., 0], prefix[..., 1]
        right_G, right_H = sum_G - left_G, sum_H - left_H
        single = has_missing & (n_bins == 1)
        if single.any():
            # One value bin and the missing bin: LightGBM scans this feature
            # once, from the top, the missing bin as an ordinary bin
            # (num_bin <= 2), so the right side is the missing bin summed from
            # ε and the left is the rest: the same cut, other roundings, which
            # decide exact ties (two features making the same partition).
            at = single[None, :]
            missing = hist[:, :, n_cuts, :]
            right_G = right_G.copy()
            right_H = right_H.copy()
            left_G = left_G.copy()
            left_H = left_H.copy()
            right_G[:, :, 0] = np.where(at, missing[..., 0], right_G[:, :, 0])
            right_H[:, :, 0] = np.where(at, EPSILON + missing[..., 1], right_H[:, :, 0])
            left_G[:, :, 0] = np.where(at, sum_G[:, :, 0] - missing[..., 0], left_G[:, :, 0])
            left_H[:, :, 0] = np.where(at, sum_H[:, :, 0] - right_H[:, :, 0], left_H[:, :, 0])
            prefix = np.stack([left_G, left_H], axis=-1)
            missing_count = np.floor(missing[..., 1] * factor[:, :, 0] + 0.5)
            prefix_count = prefix_count.copy()
            prefix_count[:, :, 0] = np.where(at, n[:, :, 0] - missing_count, prefix_count[:, :, 0])
        forward, nan_passed = _scan(
            (left_G, left_H, prefix_count),
            (right_G, right_H, n - prefix_count),
            (cut <= B - 1) & allowed[:, :, None] & has_missing[None, :, None],
            params,
            threshold_gain,
        )
        best_fwd = np.argmax(forward, axis=2)
        gain_fwd = np.take_along_axis(forward, best_fwd[:, :, None], axis=2)[:, :, 0]
        take = gain_fwd > best_gain + shift
        splittable |= np.isfinite(gain_fwd) | nan_passed
        best_gain = np.where(take, gain_fwd - shift, best_gain)
        best_bin = np.where(take, best_fwd, best_bin)
        best_left_G = np.where(
            take, np.take_along_axis(prefix[..., 0], best_fwd[:, :, None], 2)[..., 0], best_left_G
        )
        best_left_H = np.where(
            take, np.take_along_axis(left_H, best_fwd[:, :, None], 2)[..., 0], best_left_H
        )
        default_left = np.where(take, False, default_left)

    # Across features: the best net gain, ties to the lower feature (argmax: first).
    feature = np.argmax(best_gain, axis=1)
    gain = best_gain[leaf, feature]
    left_G = best_left_G[leaf, feature]
    left_H = best_left_H[leaf, feature]
    left = np.column_stack([left_G, left_H - EPSILON])
    right = np.column_stack([totals[:, 0] - left_G, sum_H[:, 0, 0] - left_H - EPSILON])
    out_H = np.column_stack([left_H, sum_H[:, 0, 0] - left_H])
    return SplitCandidates(
        gain=gain,
        feature=feature.astype(np.intp),
        split_bin=best_bin[leaf, feature].astype(np.intp),
        default_left=default_left[leaf, feature],
        left=left,
        right=right,
        splittable=splittable,
        out_H=out_H,
    )


def __getattr__(name: str):
    # LeafSplits was this module's record of the best splits; it is now the one record
    # of every grower, mltrees.hist.candidates.SplitCandidates.
    if name == "LeafSplits":
        import warnings

        warnings.warn(
            "mltrees.hist.lightgbm.splitting.LeafSplits is deprecated: use "
            "mltrees.hist.candidates.SplitCandidates",
            DeprecationWarning,
            stacklevel=2,
        )
        return SplitCandidates
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
