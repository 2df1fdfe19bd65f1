"""CatBoost's leaf values of oblivious trees (chapter 15).

A leaf's value is one Newton step ``(𝓗_j + λ I)⁻¹ S_j`` over its rows
(:eq:`eq-catboost-leaf`), or a gradient step ``S_j / (W_j + λ)``, rounded as
CatBoost rounds them: the softmax loss's full K×K Hessian solved by a
Cholesky factorisation in LAPACK's order (``dppsv``), λ raised to keep it
solvable. Ordered boosting also needs the steps of each block's body, and
with several outputs the running steps of the tail rows
(:func:`online_tail_steps`); for the logistic loss CatBoost moves the
blocks' approximations by a step passed through a fast float logarithm
(:func:`exp_approx_steps`).
"""

from __future__ import annotations

import numpy as np

__all__ = [
    "cholesky_solve",
    "exp_approx_steps",
    "fast_logf",
    "hessian_entries",
    "leaf_steps",
    "leaf_sums",
    "leaf_values",
    "newton_steps",
    "online_tail_steps",
    "running_sums",
]


def leaf_values(key, n_keys, S, curvature, lam, rows=None, gradient=False):
    """Newton (or gradient) steps ``(𝓗_j + λ I)⁻¹ S_j`` per leaf (:eq:`eq-catboost-leaf`).

    ``curvature`` is an (n, 1) array of per-row weights (``W`` for the
    gradient step, ``w p (1 - p)`` for Logloss's Newton step) or, for
    MultiClass Newton, ``(w, p)``: CatBoost then solves with the full
    K×K Hessian of the softmax loss. ``rows`` restricts the sums; ``lam``
    is a number or one per key. A leaf without weight gets 0. The
    gradient step is ``S · (1 / (W + λ))`` and the Newton step
    ``S / (𝓗 + λ)``, CatBoost's ``CalcAverage`` and ``CalcDeltaNewtonBody``
    (which round differently).
    """
    if rows is not None:
        key, S = key[rows], S[rows]
        curvature = (
            tuple(c[rows] for c in curvature) if isinstance(curvature, tuple) else curvature[rows]
        )
    return leaf_steps(*leaf_sums(key, n_keys, S, curvature), lam, gradient=gradient)


def leaf_sums(key, n_keys, S, curvature):
    """The sums a leaf's step needs: ``S_j`` and ``Σ curvature`` of every key, in row order.

    Returns ``(sums, h)`` with ``sums`` of shape (n_keys, K) and ``h`` the
    summed per-row curvature (n_keys,), or, for MultiClass Newton
    (``curvature = (w, p)``), ``(hessian, weight)``: the summed K×K Hessians
    and weights. Sums over disjoint sets of rows add up, so partitions of
    the rows on several machines each compute theirs
    (:mod:`mltrees.dask.oblivious`) and :func:`leaf_steps` takes the total.
    """
    K = S.shape[1]
    sums = np.stack([np.bincount(key, S[:, k], minlength=n_keys) for k in range(K)], axis=1)
    if not isinstance(curvature, tuple):
        return sums, np.bincount(key, curvature[:, 0], minlength=n_keys)
    w, p = curvature
    hessian = np.empty((n_keys, K, K))
    for a, b, per_row in hessian_entries(w, p):
        hessian[:, a, b] = hessian[:, b, a] = np.bincount(key, per_row, minlength=n_keys)
    return sums, (hessian, np.bincount(key, w, minlength=n_keys))


def leaf_steps(sums, curvature_sums, lam, gradient=False):
    """The steps of :func:`leaf_values` from :func:`leaf_sums` (:eq:`eq-catboost-leaf`)."""
    if not isinstance(curvature_sums, tuple):
        h = curvature_sums
        with np.errstate(divide="ignore", invalid="ignore"):  # a leaf without weight: 0
            inverse = (1.0 / (h + lam))[:, None]
            step = sums * inverse if gradient else sums / (h + lam)[:, None]
            return np.where(h[:, None] > 0, step, 0.0)
    hessian, weight = curvature_sums
    n_keys, K = sums.shape
    filled = weight > 0
    values = np.zeros((n_keys, K))
    values[filled] = newton_steps(
        hessian[filled], sums[filled], np.broadcast_to(lam, n_keys)[filled]
    )
    return values


def online_tail_steps(key, body, S, curvature, lam, gradient):
    """Steps of the tail rows of ordered boosting with several outputs (MultiClass).

    CatBoost (``CalcApproxDeltaMulti``) gives each tail row, in order, the
    step of its leaf's sums over the block's body *plus the tail rows of
    that leaf up to and including itself*, where one output gives every
    tail row the body's step. ``key`` is each entry's (block, leaf),
    ``body`` marks body entries, ``lam`` is one λ per key. Returns the
    steps of the tail entries, in order.
    """
    tail = ~body
    n_keys = len(lam)
    K = S.shape[1]
    sums = np.stack([np.bincount(key[body], S[body, k], minlength=n_keys) for k in range(K)], 1)
    running_S = running_sums(sums, S[tail], key[tail])
    tail_lam = lam[key[tail]]
    if not isinstance(curvature, tuple):
        h = np.bincount(key[body], curvature[body, 0], minlength=n_keys)
        running_h = running_sums(h, curvature[tail, 0], key[tail])
        with np.errstate(divide="ignore", invalid="ignore"):
            inverse = (1.0 / (running_h + tail_lam))[:, None]
            step = running_S * inverse if gradient else running_S / (running_h + tail_lam)[:, None]
        return np.where(running_h[:, None] > 0, step, 0.0)
    w, p = curvature
    start = np.empty((n_keys, K, K))
    rows = np.empty((int(tail.sum()), K, K))
    for a, b, per_row in hessian_entries(w, p):
        start[:, a, b] = start[:, b, a] = np.bincount(key[body], per_row[body], minlength=n_keys)
        rows[:, a, b] = rows[:, b, a] = per_row[tail]
    running_H = running_sums(start, rows, key[tail])
    return newton_steps(running_H, running_S, tail_lam)


def newton_steps(hessian: np.ndarray, sums: np.ndarray, lam: np.ndarray) -> np.ndarray:
    """``(𝓗 + λ' I)⁻¹ S`` for each of a stack of K×K Hessians (CatBoost's ``SolveNewtonEquation``).

    λ in float32, raised to float32 ε times the largest diagonal entry, so
    that the softmax Hessian (singular) stays solvable at ``l2_leaf_reg = 0``.
    """
    K = hessian.shape[1]
    lam32 = np.float32(lam)
    diagonal = hessian[:, np.arange(K), np.arange(K)].max(axis=1).astype(np.float32)
    trace = np.maximum(lam32, diagonal)
    adjusted = np.maximum(lam32, trace * np.finfo(np.float32).eps).astype(np.float64)
    return cholesky_solve(hessian + adjusted[:, None, None] * np.eye(K), sums)


def hessian_entries(w, p):
    """``(a, b, 𝓗_ab per row)`` for ``a <= b``: the softmax loss's Hessian, weighted.

    CatBoost's second derivative is ``p_a (p_a - 1)`` or ``p_a p_b``, times
    ``w``; ``𝓗`` is minus it.
    """
    K = p.shape[1]
    for a in range(K):
        for b in range(a, K):
            der2 = p[:, a] * (p[:, a] - 1.0) if a == b else p[:, a] * p[:, b]
            yield a, b, -(der2 * w)


def cholesky_solve(M: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``M⁻¹ b`` for symmetric positive definite ``M`` (leaves × K × K), as LAPACK's ``dppsv``.

    CatBoost solves its Newton steps with ``dppsv`` on the lower packed
    triangle: a Cholesky factor ``L`` column by column (``dpptrf``: the
    column scaled by ``1 / L_jj``, the trailing part updated by ``x xᵀ``),
    then ``L y = b`` and ``Lᵀ x = y`` (``dpptrs``). The same operations in the
    same order here, over all leaves at once (loops over K only), so that the
    ill-conditioned steps at ``l2_leaf_reg = 0`` round as CatBoost's do.
    """
    A = M.copy()
    K = A.shape[1]
    for j in range(K):
        A[:, j, j] = np.sqrt(A[:, j, j])
        if j + 1 < K:
            A[:, j + 1 :, j] *= (1.0 / A[:, j, j])[:, None]
            for c in range(j + 1, K):  # dspr: A[i, c] += x_i (-x_c), i >= c
                temp = -A[:, c, j]
                A[:, c:, c] = A[:, c:, c] + A[:, c:, j] * temp[:, None]
    x = b.copy()
    for j in range(K):  # L y = b
        x[:, j] = x[:, j] / A[:, j, j]
        for i in range(j + 1, K):
            x[:, i] = x[:, i] - x[:, j] * A[:, i, j]
    for j in range(K - 1, -1, -1):  # Lᵀ x = y
        temp = x[:, j]
        for i in range(K - 1, j, -1):
            temp = temp - A[:, i, j] * x[:, i]
        x[:, j] = temp / A[:, j, j]
    return x


def running_sums(start: np.ndarray, values: np.ndarray, group: np.ndarray) -> np.ndarray:
    """``start[g] + values`` of the rows of group ``g`` so far, each row included, added in order.

    Row ``i`` gets ``(((start[g_i] + v_j1) + v_j2) + …) + v_i`` over the
    earlier rows ``j`` of its group, rounded as that sequence of additions.
    The groups are padded to a power-of-two length and summed along the
    padded axis (``np.cumsum`` adds in order), one length at a time.
    """
    order = np.argsort(group, kind="stable")
    grouped = group[order]
    sizes = np.bincount(group, minlength=len(start))
    rank = np.arange(len(order)) - (np.cumsum(sizes) - sizes)[grouped]
    width = 1 << np.ceil(np.log2(np.maximum(sizes, 1))).astype(np.intp)
    out = np.empty(values.shape)
    for length in np.unique(width[sizes > 0]):
        members = np.flatnonzero((width == length) & (sizes > 0))
        slot = np.full(len(start), -1)
        slot[members] = np.arange(len(members))
        picked = slot[grouped] >= 0
        rows, at = slot[grouped[picked]], rank[picked]
        padded = np.zeros((len(members), length + 1, *values.shape[1:]))
        padded[:, 0] = start[members]
        padded[rows, at + 1] = values[order[picked]]
        out[order[picked]] = np.cumsum(padded, axis=1)[rows, at + 1]
    return out


def fast_logf(x) -> np.ndarray:
    """CatBoost's ``FastLogf``: a float32 approximation of ``ln x``, absolute error about 1e-4.

    Mineiro's ``fastlog``: the float's bits read as an integer give
    ``log2`` up to the mantissa's share, a rational term in the mantissa
    ``m ∈ [0.5, 1)`` corrects it, and ``ln 2`` converts the base. Every
    operation in float32 and in CatBoost's order, so the result is its bits.

    Raises ``ValueError`` unless every ``x`` is positive and finite: the bit
    trick returns a number for any float (``FastLogf(-1) ≈ 177``), which is
    no logarithm.
    """
    x = np.asarray(x, dtype=np.float32)
    if not (np.isfinite(x) & (x > 0)).all():
        raise ValueError("x must hold positive finite numbers, as ln x needs")
    return _fast_logf(x)


def _fast_logf(x: np.ndarray) -> np.ndarray:
    """:func:`fast_logf` without the check: CatBoost's bits for any float32, as it computes them."""
    bits = x.view(np.uint32)
    mantissa = ((bits & np.uint32(0x007FFFFF)) | np.uint32(0x3F000000)).view(np.float32)
    f32 = np.float32
    log2 = (
        bits.astype(np.float32) * f32(1.1920928955078125e-7)
        - f32(124.22551499)
        - f32(1.498030302) * mantissa
        - f32(1.72587999) / (f32(0.3520887068) + mantissa)
    )
    return f32(0.69314718) * log2


def exp_approx_steps(steps, learning_rate: float) -> np.ndarray:
    """How ordered boosting moves the blocks' approximations of Logloss: ``η · FastLogf(e^δ)``.

    CatBoost keeps the approximations of Logloss as ``exp(F)`` and applies
    the learning rate to a leaf's step ``δ`` multiplicatively, as
    ``exp(FastLogf(float32(e^δ)) · η)`` (``ApplyLearningRate`` of
    ``UpdateBodyTailApprox``), so in ``F`` a block's rows move by
    ``η · FastLogf(e^δ)`` (:func:`fast_logf`), not by ``η δ``. The
    difference is absolute, up to about ``learning_rate × 1.2e-4`` whatever
    the step (an empty leaf, ``δ = 0``, still moves by
    ``η · FastLogf(1) ≈ -1.7e-6 η``); it is invisible in the model's leaf
    values (plain arithmetic there) but decides close split scores in
    later rounds.
    """
    if not (np.isfinite(learning_rate) and learning_rate > 0):
        raise ValueError(f"learning_rate must be a positive finite number; got {learning_rate!r}")
    with np.errstate(over="ignore"):  # e^δ beyond float32 is inf, as in CatBoost
        grown = np.exp(np.asarray(steps, dtype=np.float64)).astype(np.float32)
    # CatBoost applies its FastLogf to whatever e^δ is (inf, or 0 after underflow)
    return _fast_logf(grown).astype(np.float64) * learning_rate
