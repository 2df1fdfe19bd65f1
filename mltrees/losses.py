"""Loss functions for boosting, with gradient, hessian and leaf values (chapters 11-12).

Every boosting algorithm of the book is the same loop (chapter 12): start
from the best constant, compute the loss's gradient at the current raw
predictions, grow a tree on it, and set each leaf to the value that lowers
the loss most. So a loss here is an object that knows

* ``value``: the loss of every sample (``__call__`` gives the weighted mean);
* ``gradient`` and ``hessian``: first and second derivatives with respect to
  the raw prediction ``F`` (the Newton engine of chapters 13-14 needs both);
* ``init``: the optimal constant ``arg min_c sum_i w_i L(y_i, c)``;
* ``leaf_values``: per leaf, the value ``gamma`` that minimises (exactly or
  by one Newton step) ``sum_{i in leaf} w_i L(y_i, F_i + gamma)``.

All methods are vectorized over samples; the per-leaf rules use one
``bincount`` (sums) or one sort (medians) over all leaves at once.
Classification losses take ``y`` as class codes ``0..K-1`` and work on raw
scores: log-odds (binomial), one score per class (multinomial), or the
additive score ``F`` of AdaBoost with ``y`` coded as ``-1/+1`` internally
(exponential).
"""

from __future__ import annotations

import numpy as np

from mltrees._typing import ArrayLike

__all__ = [
    "AbsoluteError",
    "BinomialLogLoss",
    "ExponentialLoss",
    "HuberLoss",
    "Loss",
    "MultinomialLogLoss",
    "PoissonLoss",
    "SquaredError",
    "get_loss",
    "newton_step",
    "weighted_quantile_by_group",
]

_TINY = 1e-150  # a denominator below this is treated as zero (no Newton step)


def _weights(sample_weight, n: int) -> np.ndarray:
    if sample_weight is None:
        return np.ones(n)
    return np.asarray(sample_weight, dtype=np.float64)


def _expit(raw: np.ndarray) -> np.ndarray:
    # exp of a negative number only: no overflow warning for large |raw|.
    e = np.exp(-np.abs(raw))
    return np.where(raw >= 0, 1.0 / (1.0 + e), e / (1.0 + e))


def _log1pexp(raw: np.ndarray) -> np.ndarray:
    """``log(1 + exp(raw))`` without overflow."""
    return np.maximum(raw, 0.0) + np.log1p(np.exp(-np.abs(raw)))


def _softmax(raw: np.ndarray) -> np.ndarray:
    shifted = raw - raw.max(axis=1, keepdims=True)
    e = np.exp(shifted)
    return e / e.sum(axis=1, keepdims=True)


def newton_step(gradient, hessian, leaf, n_nodes: int, sample_weight=None, l2: float = 0.0):
    r"""One Newton step per leaf: ``-sum w g / (sum w h + l2)``.

    Implements :eq:`eq-ch12-newton` (chapter 12): the minimiser of the
    second-order Taylor expansion of the loss of a leaf in its value.

    Parameters
    ----------
    gradient, hessian : ndarray of shape (n_samples,)
        Derivatives of the loss at the current raw predictions.
    leaf : ndarray of int, shape (n_samples,)
        The node each sample falls in.
    n_nodes : int
        Number of nodes (the length of the result).
    sample_weight : ndarray, optional
        Sample weights.
    l2 : float
        L2 penalty on the leaf value (0 in chapter 12; XGBoost's lambda).

    Returns
    -------
    ndarray of shape (n_nodes,)
        The step of every node; 0 where the summed hessian is zero.
    """
    w = _weights(sample_weight, len(gradient))
    g = np.bincount(leaf, weights=w * gradient, minlength=n_nodes)
    h = np.bincount(leaf, weights=w * hessian, minlength=n_nodes) + l2
    safe = np.abs(h) > _TINY
    return np.where(safe, -g / np.where(safe, h, 1.0), 0.0)


def weighted_quantile_by_group(values, weights, group, n_groups: int, q: float = 0.5):
    """Weighted ``q``-quantile of ``values`` within every group, in one sort.

    The quantile is the smallest value whose cumulative weight reaches ``q``
    of the group's weight; when it reaches exactly ``q`` there (an even count
    of equal weights at the median, say), the midpoint with the next value is
    returned: ``numpy.median``, and ``numpy.quantile(method="averaged_inverted_cdf")``
    for unit weights. Groups without samples get 0.

    Parameters
    ----------
    values, weights : ndarray of shape (n,)
    group : ndarray of int, shape (n,)
    n_groups : int
    q : float in [0, 1]

    Returns
    -------
    ndarray of shape (n_groups,)
    """
    values = np.asarray(values, dtype=np.float64)
    weights = np.asarray(weights, dtype=np.float64)
    out = np.zeros(n_groups)
    if values.size == 0:
        return out
    order = np.lexsort((values, group))
    v, w, g = values[order], weights[order], group[order]
    total = np.bincount(g, weights=w, minlength=n_groups)
    count = np.bincount(g, minlength=n_groups)
    start = np.concatenate([[0], np.cumsum(count)[:-1]])
    cum = np.cumsum(w)
    before = np.where(start > 0, cum[np.maximum(start - 1, 0)], 0.0)
    target = before + q * total
    # Relative slack so that a cumulative weight equal to the target up to
    # rounding counts as reaching it.
    slack = 1e-12 * np.maximum(total, 1e-300)
    position = np.searchsorted(cum, target - slack, side="left")
    end = start + count - 1
    present = count > 0
    position = np.clip(position, start, np.maximum(end, start))
    quantile = v[np.minimum(position, v.size - 1)]
    exact = present & (np.abs(cum[np.minimum(position, v.size - 1)] - target) <= slack)
    following = np.minimum(position + 1, end)
    exact &= following > position
    quantile = np.where(exact, (quantile + v[np.minimum(following, v.size - 1)]) / 2.0, quantile)
    out[present] = quantile[present]
    return out


class Loss:
    """Base class: a differentiable loss of the raw prediction ``F``.

    Subclasses implement :meth:`value`, :meth:`gradient`, :meth:`hessian`,
    :meth:`init` and :meth:`leaf_values`. ``n_outputs`` is the number of raw
    scores per sample (1, or K for the multinomial loss).

    Examples
    --------
    >>> import numpy as np
    >>> from mltrees.losses import get_loss
    >>> loss = get_loss("squared_error")
    >>> y, raw = np.array([1.0, 3.0]), np.array([2.0, 2.0])
    >>> loss.gradient(y, raw).tolist(), loss.hessian(y, raw).tolist()
    ([1.0, -1.0], [1.0, 1.0])
    """

    n_outputs = 1
    is_classification = False

    def __call__(self, y, raw, sample_weight=None) -> float:
        """Weighted mean loss."""
        values = self.value(y, raw)
        return float(np.average(values, weights=_weights(sample_weight, len(values))))

    def value(self, y, raw):  # pragma: no cover - interface
        """The loss of every sample."""
        raise NotImplementedError

    def gradient(self, y, raw):  # pragma: no cover - interface
        """``dL/dF`` of every sample."""
        raise NotImplementedError

    def hessian(self, y, raw):  # pragma: no cover - interface
        """``d2L/dF2`` of every sample."""
        raise NotImplementedError

    def init(self, y, sample_weight=None):  # pragma: no cover - interface
        """The constant raw prediction with the smallest weighted loss (:eq:`eq-ch12-init`)."""
        raise NotImplementedError

    def leaf_values(self, y, raw, leaf, n_nodes, sample_weight=None):  # pragma: no cover
        """Per node, the value added to ``raw`` that lowers the loss of its samples most."""
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


class SquaredError(Loss):
    r"""Half squared error :math:`L = \tfrac12 (y - F)^2`.

    The gradient is ``F - y``, so the negative gradient is the residual and
    gradient boosting becomes the residual-fitting boosting tree of
    :eq:`eq-ch12-residual` (chapter 12). The best constant and the best leaf
    value are weighted means (:eq:`eq-ch12-leaf-squared`).

    Examples
    --------
    >>> import numpy as np
    >>> from mltrees.losses import SquaredError
    >>> y, raw = np.array([1.0, 3.0]), np.array([2.0, 2.0])
    >>> SquaredError().gradient(y, raw).tolist()  # raw - y
    [1.0, -1.0]
    >>> float(SquaredError().init(y))  # the mean
    2.0
    """

    def value(self, y, raw):
        """``(y - F)^2 / 2`` per sample."""
        return 0.5 * (np.asarray(y, dtype=np.float64) - raw) ** 2

    def gradient(self, y, raw):
        """``F - y``."""
        return raw - y

    def hessian(self, y, raw):
        """1 for every sample."""
        return np.ones_like(raw, dtype=np.float64)

    def init(self, y, sample_weight=None):
        """The weighted mean of ``y``."""
        return float(np.average(y, weights=_weights(sample_weight, len(y))))

    def leaf_values(self, y, raw, leaf, n_nodes, sample_weight=None):
        """Weighted mean residual per leaf (:eq:`eq-ch12-leaf-squared`, chapter 12)."""
        return newton_step(
            self.gradient(y, raw), self.hessian(y, raw), leaf, n_nodes, sample_weight
        )


class AbsoluteError(Loss):
    r"""Absolute error :math:`L = |y - F|`.

    The gradient is ``-sign(y - F)``; the tree is grown on signs, and each
    leaf is then set to the weighted median of its residuals, the exact
    minimiser (:eq:`eq-ch12-leaf-absolute`, chapter 12). The hessian is 0
    almost everywhere, so a Newton step is undefined: this loss needs its
    own leaf rule.

    Examples
    --------
    >>> import numpy as np
    >>> from mltrees.losses import AbsoluteError
    >>> y = np.array([1.0, 2.0, 10.0])
    >>> float(AbsoluteError().init(y))  # the median
    2.0
    >>> AbsoluteError().gradient(y, np.full(3, 3.0)).tolist()  # sign(raw - y)
    [1.0, 1.0, -1.0]
    """

    def value(self, y, raw):
        """``|y - F|`` per sample."""
        return np.abs(np.asarray(y, dtype=np.float64) - raw)

    def gradient(self, y, raw):
        """``-sign(y - F)`` (0 where ``y == F``)."""
        return -np.sign(y - raw)

    def hessian(self, y, raw):
        """0 almost everywhere (the loss is piecewise linear)."""
        return np.zeros_like(raw, dtype=np.float64)

    def init(self, y, sample_weight=None):
        """The weighted median of ``y``."""
        y = np.asarray(y, dtype=np.float64)
        return float(
            weighted_quantile_by_group(
                y, _weights(sample_weight, len(y)), np.zeros(len(y), dtype=np.intp), 1
            )[0]
        )

    def leaf_values(self, y, raw, leaf, n_nodes, sample_weight=None):
        """Weighted median of the residuals ``y - F`` per leaf (:eq:`eq-ch12-leaf-absolute`)."""
        return weighted_quantile_by_group(
            y - raw, _weights(sample_weight, len(y)), leaf, n_nodes, 0.5
        )


class HuberLoss(Loss):
    r"""Huber's loss: quadratic for ``|y - F| <= delta``, linear beyond.

    :math:`L = \tfrac12 r^2` if :math:`|r| \le \delta`, else
    :math:`\delta(|r| - \delta/2)`, with :math:`r = y - F`. Gradient
    boosting sets ``delta`` every round to the ``alpha``-quantile of the
    absolute residuals (Friedman 2001); the leaf value is Friedman's one-step
    approximation :eq:`eq-ch12-leaf-huber` (chapter 12).

    Parameters
    ----------
    delta : float, default 1.0
        Where the quadratic part ends.

    Examples
    --------
    >>> import numpy as np
    >>> from mltrees.losses import HuberLoss
    >>> loss = HuberLoss(delta=1.0)
    >>> loss.gradient(np.array([0.0, 0.0]), np.array([0.5, 3.0])).tolist()  # clipped at delta
    [0.5, 1.0]
    """

    def __init__(self, delta: float = 1.0):
        if not np.isfinite(delta) or delta <= 0:
            raise ValueError(f"delta must be a positive finite float, got {delta!r}")
        self.delta = float(delta)

    @classmethod
    def from_quantile(cls, y, raw, alpha: float = 0.9, sample_weight=None) -> HuberLoss:
        """A Huber loss whose ``delta`` is the weighted ``alpha``-quantile of ``|y - F|``."""
        residual = np.abs(np.asarray(y, dtype=np.float64) - raw)
        delta = weighted_quantile_by_group(
            residual,
            _weights(sample_weight, len(residual)),
            np.zeros(len(residual), dtype=np.intp),
            1,
            alpha,
        )[0]
        return cls(max(float(delta), 1e-12))

    def value(self, y, raw):
        """Huber's loss per sample."""
        r = np.abs(np.asarray(y, dtype=np.float64) - raw)
        d = self.delta
        return np.where(r <= d, 0.5 * r * r, d * (r - 0.5 * d))

    def gradient(self, y, raw):
        """``-r`` inside the quadratic zone, ``-delta sign(r)`` outside."""
        r = np.asarray(y, dtype=np.float64) - raw
        return -np.clip(r, -self.delta, self.delta)

    def hessian(self, y, raw):
        """1 inside the quadratic zone, 0 outside."""
        r = np.abs(np.asarray(y, dtype=np.float64) - raw)
        return (r <= self.delta).astype(np.float64)

    def init(self, y, sample_weight=None):
        """The weighted median of ``y``, as Friedman (and scikit-learn) start."""
        return AbsoluteError().init(y, sample_weight)

    def leaf_values(self, y, raw, leaf, n_nodes, sample_weight=None):
        """Median residual plus the mean clipped deviation from it (:eq:`eq-ch12-leaf-huber`)."""
        w = _weights(sample_weight, len(y))
        r = np.asarray(y, dtype=np.float64) - raw
        median = weighted_quantile_by_group(r, w, leaf, n_nodes, 0.5)
        deviation = np.clip(r - median[leaf], -self.delta, self.delta)
        total = np.bincount(leaf, weights=w, minlength=n_nodes)
        mean = np.bincount(leaf, weights=w * deviation, minlength=n_nodes)
        return median + mean / np.where(total > 0, total, 1.0)

    def __repr__(self) -> str:
        return f"HuberLoss(delta={self.delta!r})"


class BinomialLogLoss(Loss):
    r"""Binomial log-loss (negative log-likelihood) on the log-odds ``F``.

    :math:`L = \log(1 + e^F) - yF` for :math:`y \in \{0, 1\}`, with
    :math:`p = 1/(1 + e^{-F})`: gradient ``p - y``, hessian ``p(1 - p)``.
    Leaves take one Newton step :eq:`eq-ch12-leaf-binomial` (chapter 12).

    Examples
    --------
    >>> import numpy as np
    >>> from mltrees.losses import BinomialLogLoss
    >>> loss = BinomialLogLoss()
    >>> y = np.array([0.0, 1.0, 1.0, 1.0])
    >>> round(float(loss.init(y)), 4)  # the log-odds of the positive share, log 3
    1.0986
    >>> loss.predict_proba(np.array([0.0])).tolist()
    [[0.5, 0.5]]
    """

    is_classification = True

    def value(self, y, raw):
        """``log(1 + e^F) - y F`` per sample."""
        return _log1pexp(raw) - y * raw

    def gradient(self, y, raw):
        """``p - y``."""
        return _expit(raw) - y

    def hessian(self, y, raw):
        """``p (1 - p)``."""
        p = _expit(raw)
        return p * (1.0 - p)

    def init(self, y, sample_weight=None):
        """Log-odds of the weighted share of class 1."""
        p = float(np.average(y, weights=_weights(sample_weight, len(y))))
        p = min(max(p, np.finfo(float).eps), 1.0 - np.finfo(float).eps)
        return float(np.log(p / (1.0 - p)))

    def predict_proba(self, raw: ArrayLike) -> np.ndarray:
        """Probabilities of classes 0 and 1, shape (n, 2)."""
        p = _expit(raw)
        return np.column_stack([1.0 - p, p])

    def leaf_values(self, y, raw, leaf, n_nodes, sample_weight=None):
        """Newton step ``sum w (y - p) / sum w p (1 - p)`` per leaf."""
        return newton_step(
            self.gradient(y, raw), self.hessian(y, raw), leaf, n_nodes, sample_weight
        )


class MultinomialLogLoss(Loss):
    r"""Multinomial log-loss on K raw scores (softmax link).

    :math:`L = -\sum_k y_k \log p_k` with :math:`p = \mathrm{softmax}(F)`:
    gradient ``p_k - y_k`` and diagonal hessian ``p_k (1 - p_k)`` per class.
    Gradient boosting grows K trees per round, one per column; their leaves
    take Friedman's step :eq:`eq-ch12-leaf-multinomial` (chapter 12), a
    Newton step scaled by ``(K - 1) / K``.

    Parameters
    ----------
    n_classes : int
        K (at least 2).

    Examples
    --------
    >>> import numpy as np
    >>> from mltrees.losses import MultinomialLogLoss
    >>> loss = MultinomialLogLoss(n_classes=3)
    >>> loss.predict_proba(np.zeros((1, 3))).round(4).tolist()  # softmax of equal scores
    [[0.3333, 0.3333, 0.3333]]
    """

    is_classification = True

    def __init__(self, n_classes: int):
        if int(n_classes) < 2:
            raise ValueError(f"n_classes must be >= 2, got {n_classes!r}")
        self.n_classes = int(n_classes)
        self.n_outputs = self.n_classes

    def _onehot(self, y):
        y = np.asarray(y, dtype=np.intp)
        onehot = np.zeros((y.size, self.n_classes))
        onehot[np.arange(y.size), y] = 1.0
        return onehot

    def value(self, y, raw):
        """``logsumexp(F) - F_y`` per sample."""
        y = np.asarray(y, dtype=np.intp)
        top = raw.max(axis=1)
        lse = top + np.log(np.exp(raw - top[:, None]).sum(axis=1))
        return lse - raw[np.arange(y.size), y]

    def gradient(self, y, raw):
        """``p - onehot(y)``, shape (n, K)."""
        return _softmax(raw) - self._onehot(y)

    def hessian(self, y, raw):
        """Diagonal ``p_k (1 - p_k)``, shape (n, K)."""
        p = _softmax(raw)
        return p * (1.0 - p)

    def init(self, y, sample_weight=None):
        """``log`` of the weighted class shares (softmax inverts it), shape (K,)."""
        w = _weights(sample_weight, len(y))
        share = (
            np.bincount(np.asarray(y, dtype=np.intp), weights=w, minlength=self.n_classes) / w.sum()
        )
        share = np.clip(share, np.finfo(float).eps, 1.0)
        return np.log(share) - np.log(share).mean()

    def predict_proba(self, raw: ArrayLike) -> np.ndarray:
        """Softmax of the raw scores."""
        return _softmax(raw)

    def leaf_values(self, y, raw, leaf, n_nodes, sample_weight=None, *, column: int = 0):
        """Friedman's ``(K-1)/K`` Newton step for the tree of class ``column``."""
        p = _softmax(raw)[:, column]
        target = (np.asarray(y) == column).astype(np.float64)
        step = newton_step(p - target, p * (1.0 - p), leaf, n_nodes, sample_weight)
        return (self.n_classes - 1) / self.n_classes * step

    def __repr__(self) -> str:
        return f"MultinomialLogLoss(n_classes={self.n_classes})"


class ExponentialLoss(Loss):
    r"""AdaBoost's exponential loss :math:`L = e^{-\tilde y F}`, :math:`\tilde y = 2y - 1`.

    Implements :eq:`eq-ch11-exp-loss` (chapter 11). ``y`` holds class codes
    0/1. The optimal constant and the optimal leaf value have a closed form,
    half the log-ratio of the weights of the two classes
    (:eq:`eq-ch11-real-leaf`), which is also AdaBoost's coefficient
    :eq:`eq-ch11-alpha` when the leaf is "all samples a classifier calls +1".

    Examples
    --------
    >>> import numpy as np
    >>> from mltrees.losses import ExponentialLoss
    >>> loss = ExponentialLoss()
    >>> y = np.array([0.0, 1.0, 1.0, 1.0])
    >>> round(float(loss.init(y)), 4)  # half the log-odds, AdaBoost's scale
    0.5493
    """

    is_classification = True

    @staticmethod
    def _sign(y):
        return 2.0 * np.asarray(y, dtype=np.float64) - 1.0

    def value(self, y, raw):
        """``exp(-y~ F)`` per sample."""
        return np.exp(-self._sign(y) * raw)

    def gradient(self, y, raw):
        """``-y~ exp(-y~ F)``."""
        s = self._sign(y)
        return -s * np.exp(-s * raw)

    def hessian(self, y, raw):
        """``exp(-y~ F)`` (since ``y~^2 = 1``)."""
        return np.exp(-self._sign(y) * raw)

    def init(self, y, sample_weight=None):
        """``1/2 log(W+ / W-)``: the constant with the smallest exponential loss."""
        w = _weights(sample_weight, len(y))
        positive = float(w[np.asarray(y) == 1].sum())
        negative = float(w.sum()) - positive
        eps = np.finfo(float).eps * float(w.sum())
        return 0.5 * float(np.log(max(positive, eps) / max(negative, eps)))

    def leaf_values(self, y, raw, leaf, n_nodes, sample_weight=None):
        """``1/2 log(W+ / W-)`` per leaf with weights ``w e^{-y~ F}``: the exact minimiser."""
        w = _weights(sample_weight, len(y)) * np.exp(-self._sign(y) * raw)
        positive = np.bincount(leaf, weights=w * (np.asarray(y) == 1), minlength=n_nodes)
        total = np.bincount(leaf, weights=w, minlength=n_nodes)
        negative = total - positive
        eps = np.finfo(float).eps * np.maximum(total, 1e-300)
        value = 0.5 * np.log(np.maximum(positive, eps) / np.maximum(negative, eps))
        return np.where(total > 0, value, 0.0)

    def predict_proba(self, raw: ArrayLike) -> np.ndarray:
        """``P(y = 1) = 1 / (1 + e^{-2F})``: the population minimiser is half the log-odds."""
        p = _expit(2.0 * raw)
        return np.column_stack([1.0 - p, p])


class PoissonLoss(Loss):
    r"""Poisson deviance on the log-mean ``F`` (count data, ``y >= 0``).

    :math:`L = e^F - yF` (the negative log-likelihood up to a term in
    ``y`` alone), so the mean is :math:`\mu = e^F`: gradient ``mu - y``,
    hessian ``mu``. XGBoost's ``count:poisson`` takes the hessian at
    ``F + max_delta_step`` instead (chapter 13): ``mu`` can be tiny where
    ``y = 0``, and a Newton step ``-G / H`` would then be huge.

    Parameters
    ----------
    max_delta_step : float, default 0.0
        The shift of the hessian (0: the exact hessian).

    Examples
    --------
    >>> import numpy as np
    >>> from mltrees.losses import PoissonLoss
    >>> y = np.array([1.0, 2.0, 3.0])
    >>> round(float(PoissonLoss().init(y)), 4)  # log of the mean count
    0.6931
    """

    def __init__(self, max_delta_step: float = 0.0):
        self.max_delta_step = float(max_delta_step)

    def value(self, y, raw):
        """``exp(F) - y F`` per sample."""
        return np.exp(raw) - y * raw

    def gradient(self, y, raw):
        """``exp(F) - y``."""
        return np.exp(raw) - y

    def hessian(self, y, raw):
        """``exp(F + max_delta_step)``."""
        return np.exp(raw + self.max_delta_step)

    def init(self, y, sample_weight=None):
        """``log`` of the weighted mean of ``y``."""
        mean = float(np.average(y, weights=_weights(sample_weight, len(y))))
        return float(np.log(max(mean, np.finfo(float).tiny)))

    def leaf_values(self, y, raw, leaf, n_nodes, sample_weight=None):
        """One Newton step per leaf."""
        return newton_step(
            self.gradient(y, raw), self.hessian(y, raw), leaf, n_nodes, sample_weight
        )

    def __repr__(self) -> str:
        return f"PoissonLoss(max_delta_step={self.max_delta_step!r})"


def get_loss(name: str, n_classes: int | None = None, **options) -> Loss:
    """The loss object for a name used by the estimators' ``loss`` parameter."""
    if name == "squared_error":
        return SquaredError()
    if name == "absolute_error":
        return AbsoluteError()
    if name == "huber":
        return HuberLoss(**options)
    if name == "log_loss":
        if n_classes is None or n_classes <= 2:
            return BinomialLogLoss()
        return MultinomialLogLoss(n_classes)
    if name == "exponential":
        return ExponentialLoss()
    if name == "poisson":
        return PoissonLoss(**options)
    raise ValueError(f"unknown loss {name!r}")
