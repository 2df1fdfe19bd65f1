r"""Information theory for discrete distributions, and differential entropy (chapter 1).

Every function works on a *batch* of distributions at once: the last axis (or
the last two axes, for joint tables ``p[x, y]``) holds the outcomes, and any
leading axes index independent distributions. Entries may be probabilities or
counts (see the ``counts`` argument); the convention :math:`0 \log 0 = 0`
holds throughout.

Results for a single distribution are Python floats, so they print cleanly;
a batch gives an ndarray with the batch shape.
"""

from __future__ import annotations

import numpy as np

from mltrees._validation import (
    _as_numeric_array,
    check_base,
    check_distribution,
    check_labels,
    check_sample_weight,
)

__all__ = [
    "conditional_entropy",
    "contingency_table",
    "differential_entropy",
    "empirical_entropy",
    "entropy",
    "joint_entropy",
    "kl_divergence",
    "mutual_information",
]


def _xlogx_ratio(p: np.ndarray, *denominators: np.ndarray) -> np.ndarray:
    """Elementwise ``p * ln(p / (d1 * d2 * ...))`` with ``0 * ln(0 / d) = 0``.

    Each denominator must be > 0 where p > 0. Dividing by one factor at a time
    keeps the ratio finite when the product of the factors would underflow
    (marginals below 1e-154 in a mutual information, for example).
    """
    # Where p = 0 the ratio stays 1, so the term is 0 * log 1 = 0 without warnings.
    positive = p > 0
    ratio = np.ones_like(p)
    np.divide(p, denominators[0], out=ratio, where=positive)
    for denominator in denominators[1:]:
        np.divide(ratio, denominator, out=ratio, where=positive)
    return p * np.log(ratio)


def _xlogx(p: np.ndarray) -> np.ndarray:
    """Elementwise ``p * ln(p)`` with ``0 * ln(0) = 0``."""
    logs = np.zeros_like(p)
    np.log(p, out=logs, where=p > 0)
    return np.multiply(p, logs, out=logs)


def _finish(values: np.ndarray, base: float) -> float | np.ndarray:
    """Convert nats to the requested base; return a float for a single distribution."""
    values = values / np.log(base) + 0.0  # + 0.0 turns -0.0 into 0.0
    if values.ndim == 0:
        return float(values)
    return values


def entropy(p, base: float = 2, *, counts: bool | None = None) -> float | np.ndarray:
    r"""Shannon entropy of a discrete distribution.

    Implements :eq:`eq-entropy` (chapter 1),
    :math:`H(X) = -\sum_x p(x) \log p(x)`, with :math:`0 \log 0 = 0`.

    Parameters
    ----------
    p : array_like, shape (..., n)
        Probabilities (or counts) over the last axis; leading axes are a batch.
    base : float, default 2
        Logarithm base: 2 gives bits, ``math.e`` gives nats.
    counts : bool or None, default None
        ``True`` normalises the entries (counts or weights); ``False`` requires
        probabilities that sum to 1; ``None`` treats integer arrays as counts
        and float arrays as probabilities.

    Returns
    -------
    float or ndarray of shape (...)
        The entropy, between 0 and :math:`\log n` (Lemma 1).

    Raises
    ------
    ValueError
        For empty input, NaN, inf, negative entries or probabilities that do
        not sum to 1.

    Examples
    --------
    >>> entropy([0.5, 0.5])
    1.0
    >>> round(entropy([9, 5]), 4)  # Quinlan's weather table: 9 play, 5 don't
    0.9403
    """
    base = check_base(base)
    prob = check_distribution(p, "p", event_ndim=1, counts=counts)
    return _finish(-_xlogx(prob).sum(axis=-1), base)


def joint_entropy(pxy, base: float = 2, *, counts: bool | None = None) -> float | np.ndarray:
    r"""Joint entropy of two discrete variables from their joint table.

    Implements :eq:`eq-joint-entropy` (chapter 1),
    :math:`H(X, Y) = -\sum_x \sum_y p(x, y) \log p(x, y)`.

    Parameters
    ----------
    pxy : array_like, shape (..., n_x, n_y)
        Joint probabilities (or counts) ``pxy[..., x, y]``.
    base : float, default 2
        Logarithm base.
    counts : bool or None, default None
        As in :func:`entropy`; normalisation is over the last two axes.

    Returns
    -------
    float or ndarray of shape (...)
        The joint entropy.
    """
    base = check_base(base)
    prob = check_distribution(pxy, "pxy", event_ndim=2, counts=counts)
    return _finish(-_xlogx(prob).sum(axis=(-2, -1)), base)


def conditional_entropy(pxy, base: float = 2, *, counts: bool | None = None) -> float | np.ndarray:
    r"""Conditional entropy :math:`H(Y \mid X)` from the joint table ``pxy[x, y]``.

    Implements :eq:`eq-conditional-entropy` (chapter 1),
    :math:`H(Y \mid X) = -\sum_x \sum_y p(x, y) \log p(y \mid x)`.
    Rows index the conditioning variable :math:`X`; for :math:`H(X \mid Y)`
    pass the transposed table ``np.swapaxes(pxy, -1, -2)``.

    Parameters
    ----------
    pxy : array_like, shape (..., n_x, n_y)
        Joint probabilities (or counts).
    base : float, default 2
        Logarithm base.
    counts : bool or None, default None
        As in :func:`entropy`.

    Returns
    -------
    float or ndarray of shape (...)
        The conditional entropy of the column variable given the row variable.
    """
    base = check_base(base)
    prob = check_distribution(pxy, "pxy", event_ndim=2, counts=counts)
    px = prob.sum(axis=-1, keepdims=True)
    # p(y | x) = p(x, y) / p(x); rows with p(x) = 0 contribute nothing.
    return _finish(-_xlogx_ratio(prob, px).sum(axis=(-2, -1)), base)


def mutual_information(pxy, base: float = 2, *, counts: bool | None = None) -> float | np.ndarray:
    r"""Mutual information :math:`I(X; Y)` from the joint table ``pxy[x, y]``.

    Implements :eq:`eq-mutual-information` (chapter 1),
    :math:`I(X; Y) = \sum_x \sum_y p(x, y) \log \frac{p(x, y)}{p(x) p(y)}`.
    The sum is computed directly, not as a difference of entropies, so the
    identities of Corollaries 3 and 5 are genuine checks.

    Parameters
    ----------
    pxy : array_like, shape (..., n_x, n_y)
        Joint probabilities (or counts).
    base : float, default 2
        Logarithm base.
    counts : bool or None, default None
        As in :func:`entropy`.

    Returns
    -------
    float or ndarray of shape (...)
        The mutual information, which is non-negative (Corollary 5).
    """
    base = check_base(base)
    prob = check_distribution(pxy, "pxy", event_ndim=2, counts=counts)
    px, py = prob.sum(axis=-1, keepdims=True), prob.sum(axis=-2, keepdims=True)
    mi = _xlogx_ratio(prob, px, py).sum(axis=(-2, -1))
    # Rounding can leave -1e-17 for independent variables; I(X;Y) >= 0 exactly.
    return _finish(np.maximum(mi, 0.0), base)


def kl_divergence(p, q, base: float = 2, *, counts: bool | None = None) -> float | np.ndarray:
    r"""Kullback-Leibler divergence :math:`\mathrm{KL}(p \,\|\, q)`.

    Implements :eq:`eq-kl-divergence` (chapter 1),
    :math:`\mathrm{KL}(p \,\|\, q) = \sum_x p(x) \log \frac{p(x)}{q(x)}`.

    Where :math:`q(x) = 0 < p(x)` the divergence is ``inf``: the sum has an
    infinite term, and that is its mathematical value. This holds for each
    distribution of a batch separately; it is never an error.

    Parameters
    ----------
    p, q : array_like, shape (..., n)
        Two batches of distributions of the same shape. Broadcasting is not
        applied: a shape mismatch is almost always a bug.
    base : float, default 2
        Logarithm base.
    counts : bool or None, default None
        As in :func:`entropy`, applied to ``p`` and ``q`` alike.

    Returns
    -------
    float or ndarray of shape (...)
        The divergence, non-negative and zero iff ``p == q`` (Lemma 4).

    Raises
    ------
    ValueError
        If the shapes differ, or for the invalid inputs listed in :func:`entropy`.
    """
    base = check_base(base)
    prob_p = check_distribution(p, "p", event_ndim=1, counts=counts)
    prob_q = check_distribution(q, "q", event_ndim=1, counts=counts)
    if prob_p.shape != prob_q.shape:
        raise ValueError(f"p and q must have the same shape, got {prob_p.shape} and {prob_q.shape}")
    outside_support = ((prob_p > 0) & (prob_q == 0)).any(axis=-1)
    kl = _xlogx_ratio(prob_p, np.where(prob_q > 0, prob_q, 1.0)).sum(axis=-1)
    kl = np.where(outside_support, np.inf, np.maximum(kl, 0.0))
    return _finish(kl, base)


def contingency_table(x, y, *, sample_weight=None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Count how often each pair of values of ``x`` and ``y`` occurs.

    The empirical joint table behind the plug-in estimates of chapter 1:
    ``mutual_information(table, counts=True)`` is the empirical mutual
    information, which chapter 3 calls information gain.

    Parameters
    ----------
    x, y : array_like of shape (n_samples,)
        Labels of any sortable type (numbers, strings, booleans). NaN and
        None are rejected.
    sample_weight : array_like of shape (n_samples,), optional
        Non-negative weights; the table then holds summed weights.

    Returns
    -------
    table : ndarray of shape (n_x_values, n_y_values)
        ``table[i, j]`` is the count of samples with ``x == x_values[i]`` and
        ``y == y_values[j]``: integers without weights (so every function of
        this module normalises it by default), summed weights otherwise.
    x_values, y_values : ndarray
        The sorted distinct values of ``x`` and ``y``.
    """
    x = check_labels(x, "x")
    y = check_labels(y, "y")
    if x.shape != y.shape:
        raise ValueError(f"x and y must have the same length, got {x.shape[0]} and {y.shape[0]}")
    weight = None if sample_weight is None else check_sample_weight(sample_weight, x.shape[0])
    x_values, x_codes = np.unique(x, return_inverse=True)
    y_values, y_codes = np.unique(y, return_inverse=True)
    n_y = y_values.shape[0]
    flat = np.bincount(x_codes * n_y + y_codes, weights=weight, minlength=x_values.shape[0] * n_y)
    return flat.reshape(x_values.shape[0], n_y), x_values, y_values


def empirical_entropy(
    y, base: float = 2, *, sample_weight=None, correction: str | None = None
) -> float:
    r"""Plug-in (maximum-likelihood) entropy of a sample of labels.

    Implements :eq:`eq-plugin-entropy` (chapter 1): the entropy of the
    observed frequencies :math:`\hat p_k = n_k / N`. It is biased low; with
    ``correction="miller-madow"`` the first-order bias
    :math:`(K - 1) / (2N)` nats of :eq:`eq-miller-madow` is added back,
    where :math:`K` is the number of distinct labels observed.

    Parameters
    ----------
    y : array_like of shape (n_samples,)
        Labels of any sortable type.
    base : float, default 2
        Logarithm base.
    sample_weight : array_like of shape (n_samples,), optional
        Non-negative weights; frequencies become weight shares.
    correction : {None, "miller-madow"}, default None
        Bias correction. Miller-Madow needs a sample size, so it cannot be
        combined with ``sample_weight``.

    Returns
    -------
    float
        The estimate.
    """
    if correction not in (None, "miller-madow"):
        raise ValueError(f"correction must be None or 'miller-madow', got {correction!r}")
    if correction is not None and sample_weight is not None:
        raise ValueError("correction='miller-madow' needs a sample size; drop sample_weight")
    y = check_labels(y, "y")
    weight = check_sample_weight(sample_weight, y.shape[0])
    _, codes = np.unique(y, return_inverse=True)
    frequencies = np.bincount(codes, weights=weight)
    estimate = entropy(frequencies, base, counts=True)
    if correction == "miller-madow":
        n_observed = int(np.count_nonzero(frequencies))
        estimate += (n_observed - 1) / (2 * y.shape[0]) / float(np.log(check_base(base)))
    return estimate


def differential_entropy(density, dx, base: float = 2) -> float | np.ndarray:
    r"""Differential entropy of a density tabulated on a grid of equal cells.

    Implements :eq:`eq-differential-entropy` (chapter 1),
    :math:`h(X) = -\int f(x) \log f(x) \, dx`, by the midpoint rule:
    ``density`` holds :math:`f` at the centres of cells of width ``dx`` that
    cover the support, and the integral becomes
    :math:`-\sum_i f_i \log f_i \, \Delta x` with :math:`0 \log 0 = 0`.
    Unlike the entropy of a discrete distribution, the result can be
    negative (a uniform density on :math:`[0, \frac12]` has :math:`h = -1`
    bit), which is why Lemma 1 does not carry over to densities.

    Parameters
    ----------
    density : array_like, shape (..., n_cells)
        Non-negative density values over the last axis; leading axes are a
        batch of densities.
    dx : float or array_like of shape (...)
        Width of a cell, positive; one value, or one per density of the batch.
    base : float, default 2
        Logarithm base: 2 gives bits, ``math.e`` gives nats.

    Returns
    -------
    float or ndarray of shape (...)
        The differential entropy.

    Raises
    ------
    TypeError
        If ``density`` or ``dx`` does not hold real numbers.
    ValueError
        For empty input, NaN, inf or negative density values, a width that
        is not positive and finite, or a density whose Riemann sum
        :math:`\sum_i f_i \Delta x` is not 1 within ``1e-3`` (a grid that
        misses part of the support, or values that are not a density).

    Examples
    --------
    >>> differential_entropy([2.0] * 50, dx=0.01)  # uniform on [0, 1/2]
    -1.0
    """
    base = check_base(base)
    f = _as_numeric_array(density, "density").astype(np.float64)
    if f.ndim == 0 or f.shape[-1] == 0:
        raise ValueError(
            f"density must have at least one cell on its last axis, got shape {f.shape}"
        )
    if not np.isfinite(f).all():
        raise ValueError("density contains NaN or inf; a density on a grid must be finite")
    if (f < 0).any():
        raise ValueError(f"density must be non-negative, got a minimum of {f.min():.3g}")
    width = _as_numeric_array(dx, "dx").astype(np.float64)
    if not np.isfinite(width).all() or (width <= 0).any():
        raise ValueError(f"dx must be positive and finite, got {dx!r}")
    try:
        width = np.broadcast_to(width, f.shape[:-1])
    except ValueError as exc:
        raise ValueError(
            f"dx must be one width or one per density (shape {f.shape[:-1]}),"
            f" got shape {width.shape}"
        ) from exc
    mass = f.sum(axis=-1) * width
    if (np.abs(mass - 1.0) > 1e-3).any():
        worst = float(np.max(np.abs(mass - 1.0)))
        raise ValueError(
            "density * dx must sum to 1 over the last axis, as a density on a grid that "
            f"covers its support does (largest deviation {worst:.3g})"
        )
    return _finish(-_xlogx(f).sum(axis=-1) * width, base)
