"""Node impurities as pure functions of class distributions (chapters 1 and 3).

Like :mod:`mltrees.information`, every function takes a batch of class
distributions (or weighted class counts) over the last axis and returns one
value per distribution, so the impurities of all candidate splits of a node
are computed in one call. Entropy itself lives in :mod:`mltrees.information`.
"""

from __future__ import annotations

import numpy as np

from mltrees._validation import check_distribution

__all__ = ["gini", "misclassification_error"]


def _finish(values: np.ndarray) -> float | np.ndarray:
    return float(values) if values.ndim == 0 else values


def gini(p, *, counts: bool | None = None) -> float | np.ndarray:
    r"""Gini value of a class distribution.

    Implements :eq:`eq-gini` (chapter 1),
    :math:`\mathrm{Gini}(p) = \sum_c p_c (1 - p_c) = 1 - \sum_c p_c^2`:
    the probability that two labels drawn independently from ``p`` differ.

    Parameters
    ----------
    p : array_like, shape (..., n_classes)
        Class probabilities (or counts) over the last axis.
    counts : bool or None, default None
        As in :func:`mltrees.information.entropy`.

    Returns
    -------
    float or ndarray of shape (...)
        Between 0 (a pure node) and :math:`1 - 1/n` (uniform classes).
    """
    prob = check_distribution(p, "p", event_ndim=1, counts=counts)
    return _finish(1.0 - np.square(prob).sum(axis=-1))


def misclassification_error(p, *, counts: bool | None = None) -> float | np.ndarray:
    r"""Misclassification error of a node that predicts its majority class.

    Implements :eq:`eq-misclassification` (chapter 1),
    :math:`E(p) = 1 - \max_c p_c`.

    Parameters
    ----------
    p : array_like, shape (..., n_classes)
        Class probabilities (or counts) over the last axis.
    counts : bool or None, default None
        As in :func:`mltrees.information.entropy`.

    Returns
    -------
    float or ndarray of shape (...)
        Between 0 and :math:`1 - 1/n`.
    """
    prob = check_distribution(p, "p", event_ndim=1, counts=counts)
    return _finish(1.0 - prob.max(axis=-1))


# ---------------------------------------------------------------------------
# Fast paths for the growth engine: no validation, rows with zero weight allowed.
# ---------------------------------------------------------------------------


def class_impurity(class_weights: np.ndarray, criterion: str) -> np.ndarray:
    """Impurity of many nodes from their weighted class counts, shape (..., n_classes).

    The engine's fast path for :eq:`eq-gini` and :eq:`eq-entropy`: inputs are
    trusted (non-negative), and a node with zero total weight has impurity 0.
    ``criterion`` is ``"gini"``, ``"entropy"`` (in bits) or ``"log_loss"`` (the same).
    """
    total = class_weights.sum(axis=-1, keepdims=True)
    p = class_weights / np.where(total > 0, total, 1.0)
    if criterion == "gini":
        return 1.0 - np.einsum("...k,...k->...", p, p)
    logs = np.zeros_like(p)
    np.log2(p, out=logs, where=p > 0)
    return -np.einsum("...k,...k->...", p, logs) + 0.0


def squared_error_impurity(
    sum_w: np.ndarray, sum_wy: np.ndarray, sum_wy2: np.ndarray
) -> np.ndarray:
    """Weighted variance of the targets in many nodes from (Σw, Σwy, Σwy²).

    The impurity that CART's regression tree minimises (chapter 3); a node of
    zero weight has impurity 0. Clipped at 0 against cancellation.
    """
    safe = np.where(sum_w > 0, sum_w, 1.0)
    mean = sum_wy / safe
    return np.maximum(sum_wy2 / safe - mean * mean, 0.0) * (sum_w > 0)
