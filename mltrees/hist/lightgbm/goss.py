"""Gradient-based one-side sampling (GOSS), chapter 14.

GOSS (Ke et al. 2017) grows a tree on a subsample of the rows: the rows
with the largest gradients are all kept, a uniform sample is drawn from the
others, and the drawn rows are reweighted so that gradient sums stay
unbiased (:eq:`eq-goss-unbiased`). This module holds

* LightGBM's sampling rule, :func:`goss_sample` (and the index-level
  :func:`goss_select`), and the rounds in which it applies, :func:`goss_active`;
* the quantities of the paper's analysis, vectorised over candidate
  thresholds ``θ``: the variance gain :func:`variance_gain`
  (:eq:`eq-goss-variance-gain`), its estimate from a weighted sample
  :func:`estimated_variance_gain` (:eq:`eq-goss-estimate`), the exact
  variance of a reweighted sum :func:`sampled_sum_variance`, the exact bias
  of the estimated gain :func:`gain_bias` (:eq:`eq-goss-bias`) and the error
  bound of Theorem 3.2, :func:`goss_error_bound` (:eq:`eq-goss-bound`).
"""

from __future__ import annotations

import numbers

import numpy as np

__all__ = [
    "estimated_variance_gain",
    "gain_bias",
    "goss_active",
    "goss_error_bound",
    "goss_sample",
    "goss_select",
    "sampled_sum_variance",
    "variance_gain",
]


def _check_rates(top_rate, other_rate) -> tuple[float, float]:
    for name, value in (("top_rate", top_rate), ("other_rate", other_rate)):
        if not isinstance(value, numbers.Real) or isinstance(value, bool):
            raise TypeError(f"{name} must be a real number, got {type(value).__name__}")
        if not 0.0 < float(value) < 1.0:
            raise ValueError(f"{name} must lie in the open interval (0, 1), got {value}")
    if float(top_rate) + float(other_rate) > 1.0:
        raise ValueError(f"top_rate + other_rate must be at most 1, got {top_rate} + {other_rate}")
    return float(top_rate), float(other_rate)


def _check_rng(rng) -> np.random.Generator:
    if not isinstance(rng, np.random.Generator):
        raise TypeError(
            f"rng must be a numpy.random.Generator (np.random.default_rng(seed)), "
            f"got {type(rng).__name__}"
        )
    return rng


def goss_active(iteration: int, learning_rate: float) -> bool:
    """Whether LightGBM samples by GOSS in boosting round ``iteration`` (0-based).

    LightGBM keeps all rows while ``iteration < int(1.0 / learning_rate)``
    (``goss.hpp``): the first trees start from the constant model, where
    the gradients carry little ranking information yet. ``int`` truncates,
    so ``learning_rate=0.3`` gives 3 full rounds and ``0.25`` gives 4.

    Parameters
    ----------
    iteration : int
        Boosting round, counted from 0.
    learning_rate : float
        Shrinkage, > 0.
    """
    if not isinstance(iteration, numbers.Integral) or isinstance(iteration, bool):
        raise TypeError(f"iteration must be an int, got {type(iteration).__name__}")
    if iteration < 0:
        raise ValueError(f"iteration must be >= 0, got {iteration}")
    if not isinstance(learning_rate, numbers.Real) or not learning_rate > 0:
        raise ValueError(f"learning_rate must be a positive number, got {learning_rate!r}")
    return int(iteration) >= int(1.0 / float(learning_rate))


def goss_select(
    scores, top_rate: float, other_rate: float, rng: np.random.Generator, *, float32: bool = False
) -> tuple[np.ndarray, np.ndarray, float]:
    """LightGBM's GOSS selection from per-row importance scores.

    With ``n`` rows, ``top_k = max(1, int(n * top_rate))`` and
    ``other_k = int(n * other_rate)`` (``goss.hpp``). Every row whose score
    is at least the ``top_k``-th largest is kept (ties may keep more than
    ``top_k``); ``other_k`` of the remaining rows are drawn uniformly
    without replacement (all of them if fewer remain). The drawn rows get the
    factor ``(n - top_k) / other_k``, the inverse of their inclusion
    probability (:eq:`eq-goss-factor`), which is ``(1 - a) / b`` up to the
    rounding of ``top_k`` and ``other_k``.

    LightGBM applies this rule per block of rows, one block per thread;
    this function is its one-thread form. Its draw uses its own random
    generator, so the drawn rows cannot be reproduced, only their law.

    Parameters
    ----------
    scores : array_like of float, shape (n,)
        Non-negative importance of every row (LightGBM: ``|g h|`` summed over classes).
    top_rate, other_rate : float
        ``a`` and ``b`` in (0, 1), with ``a + b <= 1``.
    rng : numpy.random.Generator
    float32 : bool, default False
        Compute the factor in float32, as LightGBM does.

    Returns
    -------
    top_rows : ndarray of intp
        Sorted indices of the kept rows (the set ``A``).
    other_rows : ndarray of intp
        Sorted indices of the drawn rows (the set ``B``).
    factor : float
        The weight of the drawn rows; 1.0 when ``other_k == 0`` (nothing is drawn).
    """
    top_rate, other_rate = _check_rates(top_rate, other_rate)
    rng = _check_rng(rng)
    scores = np.asarray(scores)
    if scores.ndim != 1 or scores.size == 0:
        raise ValueError(f"scores must be a non-empty 1-D array, got shape {scores.shape}")
    if scores.dtype.kind not in "biuf" or not np.all(np.isfinite(scores)):
        raise ValueError("scores must hold finite real numbers")
    n = scores.size
    top_k = max(1, int(n * top_rate))
    other_k = int(n * other_rate)
    threshold = np.partition(scores, n - top_k)[n - top_k]  # the top_k-th largest
    is_top = scores >= threshold
    top_rows = np.flatnonzero(is_top)
    rest = np.flatnonzero(~is_top)
    drawn = rng.choice(rest, size=min(other_k, rest.size), replace=False)
    other_rows = np.sort(drawn).astype(np.intp, copy=False)
    if other_k == 0:
        factor = 1.0
    elif float32:
        factor = float(np.float32(n - top_k) / np.float32(other_k))
    else:
        factor = (n - top_k) / other_k
    return top_rows, other_rows, factor


def goss_sample(
    g, h, top_rate: float, other_rate: float, rng: np.random.Generator, *, float32: bool = False
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Draw LightGBM's GOSS sample and reweight its gradients and hessians.

    Rows are ranked by ``|g h|`` (summed over classes for multiclass
    gradients), as LightGBM does; Ke et al. rank by ``|g|``, the same order
    when every ``h`` is 1. See :func:`goss_select` for the counts and the
    draw. Both ``g`` and ``h`` of a drawn row are multiplied by the factor
    ``(n - top_k) / other_k`` (:eq:`eq-goss-factor`), so its histogram sums
    :eq:`eq-goss-estimate` are unbiased (:eq:`eq-goss-unbiased`).

    Parameters
    ----------
    g, h : array_like of float, shape (n,) or (n, K)
        Gradients and hessians of every row (one column per class).
    top_rate, other_rate : float
        ``a`` and ``b`` in (0, 1), ``a + b <= 1``.
    rng : numpy.random.Generator
    float32 : bool, default False
        Compute the factor in float32, as LightGBM does (pass float32
        gradients to rank them in float32 too).

    Returns
    -------
    rows : ndarray of intp, shape (m,)
        The sampled rows, sorted.
    g_sampled, h_sampled : ndarray, shape (m,) or (m, K)
        ``g[rows]`` and ``h[rows]``, the drawn ones multiplied by the factor.
        The per-row multiplier is ``1`` on rows of the top set and the
        factor elsewhere; :func:`goss_select` returns both sets separately.
    """
    g = np.asarray(g)
    h = np.asarray(h)
    for name, value in (("g", g), ("h", h)):
        if value.dtype.kind not in "biuf":
            raise TypeError(f"{name} must hold real numbers, got dtype {value.dtype}")
        if value.ndim not in (1, 2) or value.shape[0] == 0:
            raise ValueError(
                f"{name} must have shape (n,) or (n, K) with n > 0, got shape {value.shape}"
            )
    if g.shape != h.shape:
        raise ValueError(f"g and h must have the same shape, got {g.shape} and {h.shape}")
    score = np.abs(g * h)
    if score.ndim == 2:
        score = score.sum(axis=1)
    if not np.all(np.isfinite(score)):
        raise ValueError("g and h must be finite")
    top_rows, other_rows, factor = goss_select(score, top_rate, other_rate, rng, float32=float32)
    rows = np.concatenate([top_rows, other_rows])
    order = np.argsort(rows, kind="stable")
    rows = rows[order]
    dtype = np.result_type(g.dtype, h.dtype, np.float32)
    multiplier = np.concatenate(
        [np.ones(top_rows.size, dtype=dtype), np.full(other_rows.size, factor, dtype=dtype)]
    )[order]
    if g.ndim == 2:
        multiplier = multiplier[:, None]
    return rows, g[rows] * multiplier, h[rows] * multiplier


# --------------------------------------------------------------------------
# The analysis of Ke et al. (2017), Section 3.2.


def _check_split_inputs(g, x, thresholds):
    g = np.asarray(g, dtype=float)
    x = np.asarray(x, dtype=float)
    d = np.asarray(thresholds, dtype=float)
    if g.ndim != 1 or g.size == 0:
        raise ValueError(f"g must be a non-empty 1-D array, got shape {g.shape}")
    if x.shape != g.shape:
        raise ValueError(f"x must have the shape of g {g.shape}, got {x.shape}")
    if d.ndim != 1:
        raise ValueError(f"thresholds must be a 1-D array, got shape {d.shape}")
    if not (np.all(np.isfinite(g)) and np.all(np.isfinite(x)) and np.all(np.isfinite(d))):
        raise ValueError("g, x and thresholds must be finite")
    return g, x, d


def _prefix_at(x_sorted, values_sorted, d):
    """Sums of ``values`` over rows with ``x <= d``, and their counts, for every ``d``."""
    count = np.searchsorted(x_sorted, d, side="right")
    running = np.concatenate([np.zeros((1, *values_sorted.shape[1:])), np.cumsum(values_sorted, 0)])
    return running[count], count


def _side_terms(G_left, G_right, n_left, n_right, n):
    """``(G_l^2 / n_l + G_r^2 / n_r) / n``, an empty side contributing 0."""
    with np.errstate(divide="ignore", invalid="ignore"):
        left = np.where(n_left > 0, G_left**2 / np.maximum(n_left, 1), 0.0)
        right = np.where(n_right > 0, G_right**2 / np.maximum(n_right, 1), 0.0)
    return (left + right) / n


def variance_gain(g, x, thresholds) -> np.ndarray:
    """The variance gain ``V_j(θ)`` of Ke et al. (Definition 3.1) at every threshold.

    Implements :eq:`eq-goss-variance-gain`: with rows ``x <= θ`` to the
    left, ``V(θ) = (G_l(θ)^2 / n_l(θ) + G_r(θ)^2 / n_r(θ)) / n``. An empty
    side contributes 0.

    Parameters
    ----------
    g : array_like of float, shape (n,)
        Gradients of the node's rows.
    x : array_like of float, shape (n,)
        The feature's values.
    thresholds : array_like of float, shape (n_d,)

    Returns
    -------
    ndarray of float, shape (n_d,)
    """
    g, x, d = _check_split_inputs(g, x, thresholds)
    order = np.argsort(x, kind="stable")
    G_left, n_left = _prefix_at(x[order], g[order], d)
    G_total = g.sum()
    return _side_terms(G_left, G_total - G_left, n_left, g.size - n_left, g.size)


def estimated_variance_gain(g, x, thresholds, rows, weights) -> np.ndarray:
    """The estimate ``Ṽ_j(θ)`` of the variance gain from a weighted row sample.

    Implements :eq:`eq-goss-estimate`: the gradient sums of each side are
    taken over the sampled ``rows`` only, each row's ``g`` multiplied by its
    weight, while the counts ``n_l(θ)``, ``n_r(θ)`` and ``n`` stay those of
    all rows, as in the paper. GOSS weights are 1 on the top rows and
    ``(1 - a) / b`` on the drawn ones; uniform subsampling of ``m`` rows
    weights every row by ``n / m``.

    Parameters
    ----------
    g, x : array_like of float, shape (n,)
        Gradients and feature values of all rows of the node.
    thresholds : array_like of float, shape (n_d,)
    rows : array_like of int, shape (m,)
        The sampled rows (distinct).
    weights : float or array_like of float, shape (m,)
        The weight of each sampled row.

    Returns
    -------
    ndarray of float, shape (n_d,)
    """
    g, x, d = _check_split_inputs(g, x, thresholds)
    rows = np.asarray(rows)
    if rows.ndim != 1 or rows.dtype.kind not in "iu":
        raise ValueError(f"rows must be a 1-D array of row indices, got {rows.dtype} {rows.shape}")
    if rows.size and (rows.min() < 0 or rows.max() >= g.size):
        raise ValueError(f"rows must lie in [0, {g.size}), got values outside")
    weights = np.broadcast_to(np.asarray(weights, dtype=float), rows.shape)
    xs, gs = x[rows], g[rows] * weights
    order = np.argsort(xs, kind="stable")
    G_left, _ = _prefix_at(xs[order], gs[order], d)
    n_left = np.searchsorted(np.sort(x), d, side="right")
    return _side_terms(G_left, gs.sum() - G_left, n_left, g.size - n_left, g.size)


def sampled_sum_variance(y, kept, n_drawn: int) -> np.ndarray:
    """Exact variance of the reweighted sum ``Σ_A y + (N'/m) Σ_B y``.

    ``A`` (the rows where ``kept`` is true) is always in the sample; ``B``
    is ``m = n_drawn`` rows drawn uniformly without replacement from the
    ``N'`` other rows. The variance of a sample total under simple random
    sampling (Cochran 1977, Theorem 2.2) gives
    ``Var = N' (N' - m) / m · σ̂²``, with ``σ̂²`` the variance (divisor
    ``N' - 1``) of ``y`` over the ``N'`` rows: the term of
    :eq:`eq-goss-sum-variance`. The rows of ``A`` add nothing.

    Parameters
    ----------
    y : array_like of float, shape (n,) or (n, k)
        One column per sum (e.g. ``g`` times the indicator of a side).
    kept : array_like of bool, shape (n,)
    n_drawn : int
        ``m``, with ``1 <= m <= N'``.

    Returns
    -------
    ndarray of float, shape () or (k,)
    """
    y = np.asarray(y, dtype=float)
    kept = np.asarray(kept)
    if kept.dtype != bool or kept.shape != y.shape[:1]:
        raise ValueError(
            f"kept must be a boolean mask of shape {y.shape[:1]}, got {kept.dtype} {kept.shape}"
        )
    pool = y[~kept]
    N = pool.shape[0]
    if not isinstance(n_drawn, numbers.Integral) or not 1 <= n_drawn <= N:
        raise ValueError(f"n_drawn must be an int in [1, {N}] (rows not kept), got {n_drawn!r}")
    if N < 2:
        return np.zeros(y.shape[1:])
    s2 = pool.var(axis=0, ddof=1)
    return N * (N - n_drawn) / n_drawn * s2


def gain_bias(g, x, thresholds, kept, n_drawn: int) -> np.ndarray:
    """Exact bias ``E[Ṽ(θ)] - V(θ)`` of the estimated variance gain, every threshold.

    Implements :eq:`eq-goss-bias`. The reweighted side sums ``G~_l`` and
    ``G~_r`` are unbiased, so ``E[G~²] = G² + Var(G~)``, and
    ``E[Ṽ] - V = (Var(G~_l) / n_l + Var(G~_r) / n_r) / n`` with the variances
    of :func:`sampled_sum_variance`. Uniform subsampling is ``kept`` all
    false.

    Parameters
    ----------
    g, x : array_like of float, shape (n,)
    thresholds : array_like of float, shape (n_d,)
    kept : array_like of bool, shape (n,)
        The rows always in the sample (GOSS's top set ``A``).
    n_drawn : int
        Rows drawn uniformly from the others, reweighted by ``N' / n_drawn``.

    Returns
    -------
    ndarray of float, shape (n_d,)
    """
    g, x, d = _check_split_inputs(g, x, thresholds)
    kept = np.asarray(kept)
    if kept.dtype != bool or kept.shape != g.shape:
        raise ValueError(
            f"kept must be a boolean mask of shape {g.shape}, got {kept.dtype} {kept.shape}"
        )
    pool_g, pool_x = g[~kept], x[~kept]
    N = pool_g.size
    if not isinstance(n_drawn, numbers.Integral) or not 1 <= n_drawn <= N:
        raise ValueError(f"n_drawn must be an int in [1, {N}] (rows not kept), got {n_drawn!r}")
    order = np.argsort(pool_x, kind="stable")
    # y = g·1[left] over the pool: its sum and sum of squares per threshold.
    sums, _ = _prefix_at(pool_x[order], np.stack([pool_g[order], pool_g[order] ** 2], 1), d)
    total = np.array([pool_g.sum(), (pool_g**2).sum()])
    factor = N * (N - n_drawn) / n_drawn / max(N - 1, 1)
    var_left = factor * (sums[:, 1] - sums[:, 0] ** 2 / N)
    right = total - sums
    var_right = factor * (right[:, 1] - right[:, 0] ** 2 / N)
    n_left = np.searchsorted(np.sort(x), d, side="right")
    n_right = g.size - n_left
    left = np.where(n_left > 0, var_left / np.maximum(n_left, 1), 0.0)
    right_term = np.where(n_right > 0, var_right / np.maximum(n_right, 1), 0.0)
    return (left + right_term) / g.size


def goss_error_bound(g, x, thresholds, top_rate: float, other_rate: float, delta: float):
    """The right-hand side of Theorem 3.2 of Ke et al. (2017), every threshold.

    Implements :eq:`eq-goss-bound`: with probability at least ``1 - delta``,
    ``|Ṽ(θ) - V(θ)| <= C² ln(1/δ) max(1/n_l, 1/n_r) + 2 ḡ_max C sqrt(ln(1/δ) / n)``,
    where ``C = (1 - a) / sqrt(b) · max_{A^c} |g_i|`` and ``ḡ_max`` is the larger
    of the mean ``|g|`` of the two sides. ``A`` is the top
    ``max(1, int(a n))`` rows by ``|g|``, the paper's ranking.

    Returns
    -------
    ndarray of float, shape (n_d,)
        ``inf`` where a side is empty.
    """
    g, x, d = _check_split_inputs(g, x, thresholds)
    a, b = _check_rates(top_rate, other_rate)
    if not 0.0 < delta < 1.0:
        raise ValueError(f"delta must lie in (0, 1), got {delta}")
    n = g.size
    top_k = max(1, int(n * a))
    abs_g = np.abs(g)
    threshold = np.partition(abs_g, n - top_k)[n - top_k]
    rest = abs_g[abs_g < threshold]
    C = (1 - a) / np.sqrt(b) * (rest.max() if rest.size else 0.0)
    order = np.argsort(x, kind="stable")
    abs_left, n_left = _prefix_at(x[order], abs_g[order], d)
    n_right = n - n_left
    with np.errstate(divide="ignore", invalid="ignore"):
        mean_left = np.where(n_left > 0, abs_left / np.maximum(n_left, 1), 0.0)
        mean_right = np.where(n_right > 0, (abs_g.sum() - abs_left) / np.maximum(n_right, 1), 0.0)
        inv = np.where(
            (n_left > 0) & (n_right > 0), 1.0 / np.maximum(np.minimum(n_left, n_right), 1), np.inf
        )
    D = np.maximum(mean_left, mean_right)
    log = np.log(1.0 / delta)
    return C**2 * log * inv + 2 * D * C * np.sqrt(log / n)
