"""Node impurities as pure functions of class distributions (chapters 1 and 3).

Like :mod:`mltrees.information`, every function takes a batch of class
distributions (or weighted class counts) over the last axis and returns one
value per distribution, so the impurities of all candidate splits of a node
are computed in one call. Entropy itself lives in :mod:`mltrees.information`.
"""

from __future__ import annotations

import numbers

import numpy as np

from mltrees._validation import check_distribution, check_labels, check_sample_weight
from mltrees.information import entropy, mutual_information

__all__ = [
    "best_bipartition",
    "c45_min_split",
    "gain_ratio",
    "gini",
    "gini_index",
    "information_gain",
    "intrinsic_value",
    "m_estimate",
    "mdl_correction",
    "misclassification_error",
    "select_by_gain_ratio",
]


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


def _branch_table(table, counts):
    """Validate a (..., n_branches, n_classes) table and return joint probabilities."""
    return check_distribution(table, "table", event_ndim=2, counts=counts)


def information_gain(table, base: float = 2, *, counts: bool | None = None):
    r"""Information gain of a split, from its branch-by-class table.

    Implements :eq:`eq-information-gain` (chapter 3),
    :math:`\mathrm{Gain}(D, a) = H(D) - \sum_k \frac{\lvert D_k \rvert}{\lvert D \rvert} H(D_k)`:
    the empirical mutual information between the branch and the class.

    Parameters
    ----------
    table : array_like, shape (..., n_branches, n_classes)
        Counts (or probabilities) of each class in each branch.
    base : float, default 2
        Logarithm base.
    counts : bool or None, default None
        As in :func:`mltrees.information.entropy`.

    Returns
    -------
    float or ndarray of shape (...)
        The gain in bits (for base 2).
    """
    return mutual_information(_branch_table(table, counts), base, counts=False)


def intrinsic_value(table, base: float = 2, *, counts: bool | None = None):
    r"""Intrinsic value of a split: the entropy of its branch proportions.

    Implements :eq:`eq-intrinsic-value` (chapter 3),
    :math:`\mathrm{IV}(a) = -\sum_k w_k \lg w_k` with branch shares
    :math:`w_k = \lvert D_k \rvert / \lvert D \rvert`.

    Parameters
    ----------
    table : array_like, shape (..., n_branches, n_classes)
        Counts (or probabilities) of each class in each branch.
    base : float, default 2
        Logarithm base.
    counts : bool or None, default None
        As in :func:`mltrees.information.entropy`.

    Returns
    -------
    float or ndarray of shape (...)
        The intrinsic value.
    """
    return entropy(_branch_table(table, counts).sum(axis=-1), base, counts=False)


def gain_ratio(table, *, counts: bool | None = None):
    r"""Gain ratio of a split: information gain divided by intrinsic value.

    Implements :eq:`eq-gain-ratio` (chapter 3),
    :math:`\mathrm{GainRatio}(D, a) = \mathrm{Gain}(D, a) / \mathrm{IV}(a)`.
    A split that sends every sample down one branch has gain 0 and
    intrinsic value 0; its gain ratio is defined as 0 (it separates nothing).

    Parameters
    ----------
    table : array_like, shape (..., n_branches, n_classes)
        Counts (or probabilities) of each class in each branch.
    counts : bool or None, default None
        As in :func:`mltrees.information.entropy`.

    Returns
    -------
    float or ndarray of shape (...)
        The gain ratio (the base cancels).
    """
    prob = _branch_table(table, counts)
    gain = np.asarray(mutual_information(prob, counts=False))
    value = np.asarray(entropy(prob.sum(axis=-1), counts=False))
    ratio = np.divide(gain, value, out=np.zeros_like(gain), where=value > 1e-15)
    return _finish(ratio)


def gini_index(table, *, counts: bool | None = None):
    r"""Gini index of a split: the branch-weighted Gini value.

    Implements :eq:`eq-gini-index` (chapter 3),
    :math:`\mathrm{GiniIndex}(D, a) = \sum_k w_k \mathrm{Gini}(D_k)` with branch
    shares :math:`w_k = \lvert D_k \rvert / \lvert D \rvert`.
    CART chooses the split that *minimises* it.

    Parameters
    ----------
    table : array_like, shape (..., n_branches, n_classes)
        Counts (or probabilities) of each class in each branch.
    counts : bool or None, default None
        As in :func:`mltrees.information.entropy`.

    Returns
    -------
    float or ndarray of shape (...)
        The Gini index.
    """
    prob = _branch_table(table, counts)
    branch = prob.sum(axis=-1)
    return _finish((branch * class_impurity(prob, "gini")).sum(axis=-1))


def select_by_gain_ratio(gains, ratios, impurity=None) -> int | np.ndarray:
    """C4.5's heuristic: the largest gain ratio among above-average gains.

    Implements the rule stated after :eq:`eq-gain-ratio` (chapter 3): the
    gain ratio favours attributes with few values, so C4.5 first keeps the
    candidates whose information gain is at least the average, then takes
    the largest gain ratio among them. Ties go to the first candidate, with
    the growth engine's relative tolerance (:data:`TIE_TOLERANCE`): a gain
    within ``TIE_TOLERANCE * impurity`` of the average counts as reaching
    it, and ratios within ``TIE_TOLERANCE`` times the best ratio are tied.

    Parameters
    ----------
    gains, ratios : array_like, shape (..., n_candidates)
        Information gain and gain ratio of each candidate attribute.
    impurity : float or array_like of shape (...), optional
        The node's entropy, the scale of its gains; defaults to the largest
        absolute gain (no gain exceeds the entropy).

    Returns
    -------
    int or ndarray of int, shape (...)
        Index of the chosen candidate.
    """
    gains = np.asarray(gains, dtype=np.float64)
    ratios = np.asarray(ratios, dtype=np.float64)
    if gains.shape != ratios.shape or gains.ndim == 0 or gains.shape[-1] == 0:
        raise ValueError(
            f"gains and ratios must have the same non-empty shape, got {gains.shape} and "
            f"{ratios.shape}"
        )
    if not (np.isfinite(gains).all() and np.isfinite(ratios).all()):
        raise ValueError("gains and ratios must be finite")
    if impurity is None:
        scale = np.abs(gains).max(axis=-1, keepdims=True)
    else:
        scale = np.abs(np.asarray(impurity, dtype=np.float64))[..., None]
    eligible = gains >= gains.mean(axis=-1, keepdims=True) - TIE_TOLERANCE * scale
    scores = np.where(eligible, ratios, -np.inf)
    best = scores.max(axis=-1, keepdims=True)
    chosen = np.argmax(scores >= best - TIE_TOLERANCE * np.abs(best), axis=-1)
    return int(chosen) if chosen.ndim == 0 else chosen


def best_bipartition(values, y, *, criterion: str = "entropy", sample_weight=None):
    r"""Best threshold for a continuous attribute, by bi-partition at midpoints.

    Implements :eq:`eq-bipartition-midpoints` and :eq:`eq-bipartition-gain`
    (chapter 3): the candidate thresholds are the midpoints
    :math:`t_i = (a^i + a^{i+1}) / 2` of consecutive distinct values, and the
    best one maximises the impurity decrease of the split
    :math:`a \le t` / :math:`a > t`. All candidates are scored in one pass
    with cumulative class counts.

    Parameters
    ----------
    values : array_like of shape (n_samples,)
        The attribute's values (finite floats).
    y : array_like of shape (n_samples,)
        Class labels.
    criterion : {"entropy", "gini"}, default "entropy"
        Information gain (bits) or Gini decrease.
    sample_weight : array_like of shape (n_samples,), optional
        Non-negative weights.

    Returns
    -------
    threshold : float
        The best midpoint (the smallest one among ties, gains within
        ``TIE_TOLERANCE`` times the node's impurity of the best, as the
        growth engine breaks them); NaN if the attribute takes a single value.
    gain : float
        Its impurity decrease; 0.0 if there is no candidate.
    """
    if criterion not in ("entropy", "gini"):
        raise ValueError(f"criterion must be 'entropy' or 'gini', got {criterion!r}")
    values = np.asarray(values, dtype=np.float64)
    labels = check_labels(y, "y")
    if values.ndim != 1 or values.shape != labels.shape:
        raise ValueError(
            f"values and y must be 1-D of the same length, got {values.shape} and {labels.shape}"
        )
    if not np.isfinite(values).all():
        raise ValueError("values contains NaN or inf")
    weight = check_sample_weight(sample_weight, values.shape[0])
    _, y_codes = np.unique(labels, return_inverse=True)
    distinct, value_codes = np.unique(values, return_inverse=True)
    if distinct.size < 2:
        return float("nan"), 0.0
    n_classes = int(y_codes.max()) + 1
    table = np.zeros((distinct.size, n_classes))
    np.add.at(table, (value_codes, y_codes), weight)
    left = np.cumsum(table, axis=0)[:-1]  # a <= t_i for each midpoint t_i
    right = table.sum(axis=0) - left
    total = table.sum()
    impurity = class_impurity(table.sum(axis=0), criterion)
    children = (
        left.sum(axis=1) * class_impurity(left, criterion)
        + right.sum(axis=1) * class_impurity(right, criterion)
    ) / total
    gains = impurity - children
    best = int(np.argmax(gains >= gains.max() - TIE_TOLERANCE * impurity))
    return float((distinct[best] + distinct[best + 1]) / 2), float(gains[best])


def m_estimate(counts, prior, m: float) -> float | np.ndarray:
    r"""The m-estimate of class probabilities: counts smoothed towards a prior.

    Implements :eq:`eq-m-estimate` (chapter 2),
    :math:`\hat p_k = (n_k + m \pi_k) / (n + m)`, the posterior mean under a
    Dirichlet prior of strength :math:`m` centred on :math:`\pi`. An empty
    node (:math:`n = 0`) gets the prior -- the empty-branch rule, with the
    parent's distribution as :math:`\pi` -- and :math:`m 	o 0` gives the
    node's own frequencies. :math:`m = K` with a uniform prior is Laplace's
    rule of succession.

    Parameters
    ----------
    counts : array_like, shape (..., n_classes)
        Non-negative (weighted) class counts of one or many nodes.
    prior : array_like, shape (..., n_classes)
        Prior class probabilities, broadcast against ``counts``; each must sum to 1.
    m : float
        Prior strength, > 0.

    Returns
    -------
    float array of shape (..., n_classes)
        The smoothed class probabilities.
    """
    counts = np.asarray(counts, dtype=np.float64)
    if counts.ndim == 0 or counts.size == 0:
        raise ValueError(f"counts must have at least one class axis, got shape {counts.shape}")
    if not np.isfinite(counts).all() or (counts < 0).any():
        raise ValueError("counts must be finite and non-negative")
    prior = check_distribution(prior, "prior", event_ndim=1, counts=False)
    if prior.shape[-1] != counts.shape[-1]:
        raise ValueError(f"prior has {prior.shape[-1]} classes but counts have {counts.shape[-1]}")
    if isinstance(m, bool) or not isinstance(m, numbers.Real) or not np.isfinite(m) or m <= 0:
        raise ValueError(f"m must be a positive finite number, got {m!r}")
    total = counts.sum(axis=-1, keepdims=True)
    return (counts + m * prior) / (total + m)


# Scores within this fraction of the node's impurity (gains) or of the best
# score (ratios) of each other are ties, broken towards the first candidate:
# the growth engine and the functions below choose alike whatever the rounding.
TIE_TOLERANCE = 1e-10
# Gains are differences of sums: the growth engine also counts as ties gains
# within this fraction of the size of those sums (Σwy²/Σw for squared error),
# about 4500 units of rounding. Without it a nearly pure node, whose impurity
# is far below its sums' rounding (two rows with close targets), broke exact
# ties between features by rounding noise, which rescaling the weights moves.
ROUNDING_TOLERANCE = 1e-12
SMALL = 1e-6  # weka.core.Utils.SMALL: the tolerance of C4.5 release 8 as J48 computes it


def mdl_correction(n_thresholds, weight) -> float | np.ndarray:
    r"""The MDL correction of a numeric attribute's gain in C4.5 release 8, in bits per case.

    Implements :eq:`eq-mdl-correction` (chapter 4): naming which of
    :math:`C` candidate thresholds was chosen costs :math:`\lg C` bits for the
    whole node of weight :math:`W`, so :math:`\lg(C) / W` bits per case are
    subtracted from the gain of the best threshold :cite:p:`quinlan1996`.

    Parameters
    ----------
    n_thresholds : array_like of int >= 1
        The number :math:`C` of thresholds tried (release 8 counts the cuts
        that leave the minimum split size :func:`c45_min_split` on both sides).
    weight : array_like of float > 0
        The node's weight :math:`W` (its number of cases with unit weights),
        cases with a missing value included.

    Returns
    -------
    float or ndarray
    """
    n = np.asarray(n_thresholds, dtype=np.float64)
    w = np.asarray(weight, dtype=np.float64)
    if not np.isfinite(n).all() or (n < 1).any() or (n != np.floor(n)).any():
        raise ValueError(f"n_thresholds must be integers >= 1, got {n_thresholds!r}")
    if not np.isfinite(w).all() or (w <= 0).any():
        raise ValueError(f"weight must be finite and > 0, got {weight!r}")
    return _finish(np.log2(n) / w)


def c45_min_split(weight, n_classes: int, min_cases: float = 2) -> float | np.ndarray:
    r"""C4.5 release 8's minimum weight on each side of a numeric threshold.

    Implements :eq:`eq-min-split` (chapter 4):
    :math:`\min\big(25, \max(M, 0.1\,W/K)\big)` for a node of weight :math:`W`
    (its cases with a known value), :math:`K` classes and MINOBJS :math:`M`,
    with Weka's tolerance :data:`SMALL` at both bounds, as J48 computes it.

    Parameters
    ----------
    weight : array_like of float >= 0
        Weight of the node's cases whose value of the attribute is known.
    n_classes : int >= 1
        The number of classes of the problem.
    min_cases : float > 0, default 2
        C4.5's MINOBJS.

    Returns
    -------
    float or ndarray
    """
    w = np.asarray(weight, dtype=np.float64)
    if not np.isfinite(w).all() or (w < 0).any():
        raise ValueError(f"weight must be finite and >= 0, got {weight!r}")
    if isinstance(n_classes, bool) or not isinstance(n_classes, numbers.Integral) or n_classes < 1:
        raise ValueError(f"n_classes must be an int >= 1, got {n_classes!r}")
    if (
        isinstance(min_cases, bool)
        or not isinstance(min_cases, numbers.Real)
        or not np.isfinite(min_cases)
        or min_cases <= 0
    ):
        raise ValueError(f"min_cases must be a positive number, got {min_cases!r}")
    share = 0.1 * w / n_classes
    capped = np.where(share > 25 + SMALL, 25.0, share)
    return _finish(np.where(share <= min_cases + SMALL, float(min_cases), capped))


# ---------------------------------------------------------------------------
# Fast paths for the growth engine: no validation, rows with zero weight allowed.
# ---------------------------------------------------------------------------


def class_impurity(class_weights: np.ndarray, criterion: str) -> np.ndarray:
    """Impurity of many nodes from their weighted class counts, shape (..., n_classes).

    The engine's fast path for :eq:`eq-gini` and :eq:`eq-entropy`: inputs are
    trusted (non-negative), and a node with zero total weight has impurity 0.
    ``criterion`` is ``"gini"``, ``"entropy"`` (in bits) or ``"log_loss"`` (the same).
    """
    # Class by class, in class order: a node's impurity is then the same float
    # whether it is computed alone or with many other nodes (a reduction over
    # the last axis adds in an order that depends on the array's layout).
    columns = [class_weights[..., c] for c in range(class_weights.shape[-1])]
    total = columns[0].copy()
    for w in columns[1:]:
        total += w
    safe_total = np.where(total > 0, total, 1.0)
    terms = None
    for w in columns:
        p = w / safe_total
        if criterion == "gini":
            term = p * p
        else:
            term = np.zeros_like(p)
            np.log2(p, out=term, where=p > 0)
            term = term * p
        terms = term if terms is None else terms + term
    if criterion == "gini":
        return 1.0 - terms
    return -terms + 0.0


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
