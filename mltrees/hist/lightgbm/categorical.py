"""Categorical features in LightGBM: bins of categories and many-vs-many splits (chapter 14).

A categorical feature with ``k`` categories has ``2^(k-1) - 1`` binary
splits. For a second-order objective with λ = 0, sorting the categories by
``G / 𝓗`` and cutting the sorted list is optimal (Fisher 1958; Breiman et
al. 1984 prove the same for two classes, chapter 4), so ``k - 1`` cuts
suffice. LightGBM sorts by the smoothed ratio ``G / (𝓗 + cat_smooth)`` and
adds ``cat_l2`` to λ, where the order is only a heuristic, and adds rules
against over-fitting rare categories. Read from LightGBM 4's
``FindBestThresholdCategoricalInner`` and ``BinMapper::FindBin``:

* bins: bin 0 holds missing values, negative values and the rare categories
  left over; bins 1, 2, ... hold the categories by decreasing count (ties by
  value) until 99% of the rows are covered and the bins are used, a
  category rarer than ``min_data_in_bin`` ending the list;
* at most ``max_cat_to_onehot`` bins (bin 0 included): one category against
  the rest;
* otherwise the categories whose estimated count reaches ``cat_smooth`` are
  sorted by ``G / (𝓗 + cat_smooth)`` and scanned from both ends, at most
  ``min(max_cat_threshold, (k + 1) / 2)`` categories on the left, with
  ``λ + cat_l2`` in the gains and leaf values, and a new candidate only once
  ``min_data_per_group`` more rows have joined the left side.

Categories that go left form the split's set; every other value, missing
and unseen ones included, goes right.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mltrees.hist.lightgbm.splitting import EPSILON, LeafwiseParams, leaf_gain

__all__ = ["CategoricalParams", "category_bins", "encode_categories", "find_categorical_splits"]


@dataclass(frozen=True)
class CategoricalParams:
    """LightGBM's parameters of categorical splits (its names and defaults)."""

    cat_smooth: float = 10.0
    cat_l2: float = 10.0
    max_cat_threshold: int = 32
    max_cat_to_onehot: int = 4
    min_data_per_group: int = 100


def category_bins(values: np.ndarray, max_bin: int = 255, min_data_in_bin: int = 3) -> np.ndarray:
    """The categories that get their own bin, in bin order (bins 1, 2, ...).

    ``values`` are one feature's training values: non-negative integers,
    NaN or negative for missing. Categories by decreasing count (ties: the
    smaller value first), as long as 99% of the rows are not covered or
    bins are left; a category with fewer than ``min_data_in_bin`` rows ends
    the list (after the first two). The others share bin 0 with missing values.
    """
    known = values[~np.isnan(values) & (values >= 0)].astype(np.int64)
    missing = values.size - known.size
    categories, counts = np.unique(known, return_counts=True)
    if categories.size == 0:
        return categories
    order = np.argsort(-counts, kind="stable")  # by count, ties by value
    categories, counts = categories[order], counts[order]
    cut = np.floor((values.size - missing) * np.float32(0.99) + 0.5)
    max_bin = min(categories.size + (missing > 0), max_bin)
    used = np.concatenate([[0], np.cumsum(counts)])
    kept = 0
    for i in range(categories.size):  # over categories, at most max_bin steps past 99%
        if counts[i] < min_data_in_bin and i > 1:
            break
        if not (used[i] < cut or 1 + i < max_bin):
            break
        kept = i + 1
    return categories[:kept]


def encode_categories(values: np.ndarray, categories: np.ndarray) -> np.ndarray:
    """Bin codes of a categorical column: ``1 + position`` in ``categories``, else 0."""
    codes = np.zeros(values.size, dtype=np.intp)
    valid = ~np.isnan(values) & (values >= 0)
    if categories.size == 0 or not valid.any():
        return codes
    order = np.argsort(categories)
    ranked = categories[order]
    v = values[valid].astype(np.int64)
    where = np.minimum(np.searchsorted(ranked, v), ranked.size - 1)
    hit = ranked[where] == v
    codes[np.flatnonzero(valid)[hit]] = order[where[hit]] + 1
    return codes


@dataclass
class CategoricalSplits:
    """The best categorical split of each (leaf, feature).

    ``left`` marks the bins that go left; ``l2`` is the λ of the children's
    values (λ + cat_l2 for many-vs-many splits, λ for one-vs-rest).
    """

    gain: np.ndarray  # (n_leaves, n_features); -inf where none
    left: np.ndarray  # (n_leaves, n_features, n_bins) bool
    left_sums: np.ndarray  # (n_leaves, n_features, 2): G, 𝓗 + ε of the left side
    l2: np.ndarray  # (n_leaves, n_features)
    splittable: np.ndarray  # (n_leaves, n_features)


def find_categorical_splits(
    hist: np.ndarray,
    totals: np.ndarray,
    counts: np.ndarray,
    n_bins: np.ndarray,
    params: LeafwiseParams,
    cat: CategoricalParams,
    allowed: np.ndarray,
) -> CategoricalSplits:
    """LightGBM's categorical split search on the histograms of categorical features.

    Parameters
    ----------
    hist : ndarray, shape (n_leaves, n_features, width, 2)
        (G, 𝓗) per bin; bin 0 holds missing values and rare categories.
    totals, counts : the leaves' (G, 𝓗) and row counts.
    n_bins : ndarray of int, shape (n_features,)
        Bins of each feature, bin 0 included.
    allowed : ndarray of bool, shape (n_leaves, n_features)
    """
    n_leaves, n_features, width, _ = hist.shape
    sum_G = totals[:, 0][:, None]
    sum_H = (totals[:, 1] + 2 * EPSILON)[:, None]
    n = counts.astype(np.float64)[:, None]
    with np.errstate(divide="ignore", invalid="ignore"):
        factor = np.where(sum_H > 0, n / sum_H, 0.0)
    threshold_gain = leaf_gain(sum_G, sum_H, params) + params.min_split_gain
    G, H = hist[..., 0], hist[..., 1]
    count = np.floor(H * factor[:, :, None] + 0.5)
    real = (np.arange(width)[None, None, :] >= 1) & (
        np.arange(width)[None, None, :] < n_bins[None, :, None]
    )
    gain = np.full((n_leaves, n_features), -np.inf)
    left = np.zeros((n_leaves, n_features, width), dtype=bool)
    left_sums = np.zeros((n_leaves, n_features, 2))
    l2 = np.full((n_leaves, n_features), params.reg_lambda)
    splittable = np.zeros((n_leaves, n_features), dtype=bool)
    mcs, mcw = params.min_child_samples, params.min_child_weight

    onehot = n_bins <= cat.max_cat_to_onehot
    if onehot.any():
        # One category against the rest: the first best bin wins.
        other_H = sum_H[:, :, None] - H - EPSILON
        ok = real & onehot[None, :, None] & allowed[:, :, None]
        ok &= (count >= mcs) & (mcw <= H) & (n[:, :, None] - count >= mcs) & (other_H >= mcw)
        with np.errstate(divide="ignore", invalid="ignore"):
            g = leaf_gain(sum_G[:, :, None] - G, other_H, params) + leaf_gain(
                G, H + EPSILON, params
            )
        # A NaN gain (0 / 0) passes LightGBM's "gain <= shift" test: splittable.
        splittable |= (ok & np.isnan(g)).any(axis=2)
        g = np.where(ok & (g > threshold_gain[:, :, None]), g, -np.inf)
        best = np.argmax(g, axis=2)
        best_gain = np.take_along_axis(g, best[:, :, None], 2)[:, :, 0]
        take = onehot[None, :] & np.isfinite(best_gain)
        splittable |= take
        gain = np.where(take, best_gain, gain)
        leaf_i, feat_i = np.nonzero(take)
        left[leaf_i, feat_i, best[leaf_i, feat_i]] = True
        pick = best[:, :, None]
        left_sums[..., 0] = np.where(take, np.take_along_axis(G, pick, 2)[:, :, 0], 0.0)
        left_sums[..., 1] = np.where(take, np.take_along_axis(H, pick, 2)[:, :, 0] + EPSILON, 0.0)

    many = ~onehot
    if many.any():
        lam = LeafwiseParams(
            reg_lambda=params.reg_lambda + cat.cat_l2,
            reg_alpha=params.reg_alpha,
            max_delta_step=params.max_delta_step,
        )
        usable = real & (count >= cat.cat_smooth) & many[None, :, None] & allowed[:, :, None]
        used = usable.sum(axis=2)  # (n_leaves, n_features)
        with np.errstate(divide="ignore", invalid="ignore"):  # empty bins, cat_smooth = 0
            ratio = np.where(usable, G / (H + cat.cat_smooth), np.inf)
        order = np.argsort(ratio, axis=2, kind="stable")  # usable bins first, by ratio
        max_num_cat = np.minimum(cat.max_cat_threshold, (used + 1) // 2)
        steps = int(np.minimum(max_num_cat, used).max(initial=0))
        for direction in (1, -1):
            if direction == 1:
                position = np.arange(steps)[None, None, :]
            else:
                position = used[:, :, None] - 1 - np.arange(steps)[None, None, :]
            in_range = np.arange(steps)[None, None, :] < np.minimum(max_num_cat, used)[:, :, None]
            position = np.clip(position, 0, width - 1)
            bins = np.take_along_axis(order, position, axis=2)  # (n_leaves, n_features, steps)
            sG = np.take_along_axis(G, bins, 2)
            sH = np.take_along_axis(H, bins, 2)
            sC = np.take_along_axis(count, bins, 2)
            left_G = np.zeros((n_leaves, n_features))
            left_H = np.full((n_leaves, n_features), EPSILON)
            left_C = np.zeros((n_leaves, n_features))
            group = np.zeros((n_leaves, n_features))
            alive = np.ones((n_leaves, n_features), dtype=bool)  # no "break" yet
            dir_gain = np.full((n_leaves, n_features), -np.inf)
            dir_k = np.zeros((n_leaves, n_features), dtype=np.intp)
            dir_sums = np.zeros((n_leaves, n_features, 2))
            for i in range(steps):  # over positions in the sorted list, never rows
                live = alive & in_range[:, :, i]
                left_G = np.where(live, left_G + sG[:, :, i], left_G)
                left_H = np.where(live, left_H + sH[:, :, i], left_H)
                left_C = np.where(live, left_C + sC[:, :, i], left_C)
                group = np.where(live, group + sC[:, :, i], group)
                enough_left = (left_C >= mcs) & (left_H >= mcw)
                right_C = n - left_C
                right_H = sum_H - left_H
                stop = (
                    live
                    & enough_left
                    & ((right_C < mcs) | (right_C < cat.min_data_per_group) | (right_H < mcw))
                )
                alive &= ~stop
                candidate = live & enough_left & ~stop & (group >= cat.min_data_per_group)
                group = np.where(candidate, 0.0, group)
                with np.errstate(divide="ignore", invalid="ignore"):
                    g = leaf_gain(left_G, left_H, lam) + leaf_gain(sum_G - left_G, right_H, lam)
                splittable |= candidate & np.isnan(g)  # passes "gain <= shift", as in LightGBM
                candidate &= g > threshold_gain
                splittable |= candidate
                better = candidate & (g > dir_gain)
                dir_gain = np.where(better, g, dir_gain)
                dir_k = np.where(better, i, dir_k)
                dir_sums[..., 0] = np.where(better, left_G, dir_sums[..., 0])
                dir_sums[..., 1] = np.where(better, left_H, dir_sums[..., 1])
            better = dir_gain > gain  # the first direction wins ties
            gain = np.where(better, dir_gain, gain)
            left_sums = np.where(better[..., None], dir_sums, left_sums)
            l2 = np.where(better, lam.reg_lambda, l2)
            chosen = (np.arange(steps)[None, None, :] <= dir_k[:, :, None]) & better[:, :, None]
            leaf_i, feat_i, step_i = np.nonzero(chosen)
            left[better] = False
            left[leaf_i, feat_i, bins[leaf_i, feat_i, step_i]] = True
    return CategoricalSplits(gain, left, left_sums, l2, splittable)
