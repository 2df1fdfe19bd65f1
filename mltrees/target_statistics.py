"""Target statistics: numeric encodings of a categorical feature by its target.

A target statistic (TS) replaces the category of row ``i`` by an estimate of
``E[y | category]`` (Micci-Barreca, 2001). The estimators below differ only
in *which rows* feed the estimate of row ``i``:

=======================================  ===============================================
function                                 rows whose targets enter row ``i``'s statistic
=======================================  ===============================================
:func:`greedy_target_statistic`          every row of the category, row ``i`` included
:func:`holdout_target_statistic`         the rows outside the ``holdout`` part
:func:`leave_one_out_target_statistic`   every row of the category except ``i``
:func:`ordered_target_statistic`         the rows before ``i`` in a permutation (CatBoost)
:func:`target_statistic_table`           all training rows, applied to new data
=======================================  ===============================================

All of them shrink towards a prior ``p`` with weight ``a``:
``(sum of targets + a p) / (count + a)``. Chapter 15 of the book derives
why the first and the third leak the target and the fourth does not
(Prokhorenkova et al., 2018). :func:`ordered_boosting` applies the same
prefix rule to the leaf values of the supporting models of ordered
boosting.

Every function is vectorised: rows are stably sorted by category (and by
position in the permutation), and per-category sums are ``bincount`` or
segment-wise cumulative sums; there is no Python loop over rows.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass

import numpy as np
import pandas as pd

from mltrees._typing import ArrayLike

__all__ = [
    "OrderedBoostingResult",
    "TargetStatisticTable",
    "greedy_target_statistic",
    "holdout_target_statistic",
    "leave_one_out_target_statistic",
    "ordered_boosting",
    "ordered_prefix_sums",
    "ordered_statistic_mean_gap",
    "ordered_target_statistic",
    "stump_boosting_shift",
    "target_statistic_table",
]


def _check_categories(categories, name: str = "categories") -> np.ndarray:
    """Return a 1-D array of categories, refusing missing values."""
    if isinstance(categories, pd.Series | pd.Index | pd.Categorical):
        arr = np.asarray(categories.astype(object))
    elif isinstance(categories, np.ndarray):
        arr = categories
    elif isinstance(categories, list | tuple):
        # One object per row, through pandas: np.asarray would turn ["a", nan]
        # into the string "nan" and a list of tuples into a 2-D array.
        arr = pd.Series(list(categories), dtype=object).to_numpy()
    else:
        arr = np.asarray(categories)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be 1-D (one category per row), got shape {arr.shape}")
    if arr.size == 0:
        raise ValueError(f"{name} is empty; a target statistic needs at least one row")
    missing = pd.isna(arr)
    if missing.any():
        first = int(np.flatnonzero(missing)[0])
        raise ValueError(
            f"{name} holds {int(missing.sum())} missing value(s) (NaN or None), first at "
            f"row {first}; give missing values a category of their own before encoding"
        )
    return arr


def _factorize(categories: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Integer codes 0..V-1 of the categories, and the categories themselves."""
    # pd.factorize handles ints, strings and mixed objects alike (np.unique
    # cannot order a mix of str and int).
    codes, uniques = pd.factorize(categories, use_na_sentinel=True)
    return codes.astype(np.intp, copy=False), np.asarray(uniques, dtype=object)


def _check_target(target, n: int, name: str = "target") -> np.ndarray:
    arr = np.asarray(target)
    if arr.dtype.kind not in "biuf":
        raise TypeError(
            f"{name} must hold real numbers (bool, int or float), got dtype {arr.dtype}"
        )
    arr = arr.astype(np.float64, copy=False)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be 1-D, got shape {arr.shape}")
    if arr.shape[0] != n:
        raise ValueError(
            f"{name} has {arr.shape[0]} rows but categories has {n}; they must have the same length"
        )
    if not np.isfinite(arr).all():
        raise ValueError(f"{name} contains NaN or inf; every row needs a finite target")
    return arr


def _check_prior(prior, prior_weight) -> tuple[float, float]:
    if not isinstance(prior, numbers.Real) or isinstance(prior, bool) or not np.isfinite(prior):
        raise TypeError(f"prior must be a finite real number, got {prior!r}")
    if (
        not isinstance(prior_weight, numbers.Real)
        or isinstance(prior_weight, bool)
        or not np.isfinite(prior_weight)
        or prior_weight < 0
    ):
        raise ValueError(f"prior_weight must be a finite number >= 0, got {prior_weight!r}")
    return float(prior), float(prior_weight)


def _category_totals(
    codes: np.ndarray, y: np.ndarray, n_categories: int
) -> tuple[np.ndarray, np.ndarray]:
    """Sum of the target and number of rows of every category (float64 both).

    The two numbers every smoothed statistic :eq:`eq-ts-greedy` is built from;
    shared by the greedy, holdout and leave-one-out statistics and the table.
    """
    sums = np.bincount(codes, weights=y, minlength=n_categories)
    counts = np.bincount(codes, minlength=n_categories).astype(np.float64)
    return sums, counts


def _ratio(sums: np.ndarray, counts: np.ndarray, prior: float, a: float) -> np.ndarray:
    denominator = counts + a
    with np.errstate(invalid="ignore", divide="ignore"):
        out = (sums + prior * a) / denominator
    # a = 0 and no row to average: nothing is known but the prior.
    return np.where(denominator > 0, out, prior)


def _check_order(order, n: int) -> np.ndarray:
    if order is None:
        return np.arange(n, dtype=np.intp)
    arr = np.asarray(order)
    if arr.dtype.kind not in "iu":
        raise TypeError(
            f"order must be an integer array (a permutation of row indices), got dtype {arr.dtype}"
        )
    if arr.shape != (n,):
        raise ValueError(f"order must have shape ({n},) like categories, got {arr.shape}")
    seen = np.zeros(n, dtype=bool)
    in_range = (arr >= 0) & (arr < n)
    seen[arr[in_range]] = True
    if not in_range.all() or not seen.all():
        raise ValueError(
            f"order must be a permutation of 0..{n - 1} (every row index exactly once)"
        )
    return arr.astype(np.intp, copy=False)


def greedy_target_statistic(categories, target, *, prior, prior_weight=1.0):
    """Greedy target statistic: the smoothed mean target of the row's category.

    Implements :eq:`eq-ts-greedy`: for row ``i`` with category ``c_i``,
    ``(sum_{j: c_j = c_i} y_j + a p) / (#{j: c_j = c_i} + a)``, the sum over
    *all* rows, row ``i`` included. This is the statistic that leaks the
    target (the row's own ``y_i`` is in it).

    Parameters
    ----------
    categories : array_like of shape (n,)
        One category per row: ints, strings or other hashable objects.
        Missing values (NaN, None) are refused.
    target : array_like of shape (n,)
        Real targets (for classification, the indicator of the class).
    prior : float
        The prior ``p`` the statistic shrinks towards.
    prior_weight : float, default 1.0
        The prior's weight ``a >= 0``, in pseudo-rows.

    Returns
    -------
    ndarray of float64, shape (n,)
    """
    cats = _check_categories(categories)
    y = _check_target(target, cats.shape[0])
    prior, a = _check_prior(prior, prior_weight)
    codes, uniques = _factorize(cats)
    sums, counts = _category_totals(codes, y, uniques.shape[0])
    return _ratio(sums[codes], counts[codes], prior, a)


def holdout_target_statistic(categories, target, holdout, *, prior, prior_weight=1.0):
    """Holdout target statistic: estimated on one part, used on the other.

    Implements :eq:`eq-ts-holdout`. The rows are split in two by the boolean
    mask ``holdout``: the statistic of every row is the smoothed mean target
    of its category over the rows **not** in ``holdout`` (the estimation
    part). A row in ``holdout`` therefore gets a statistic that does not use
    its own target; the model is then trained on the ``holdout`` rows only.
    Rows outside ``holdout`` get the greedy statistic of the estimation part,
    which contains their own target; they are returned for completeness and
    are normally discarded from training.

    Parameters
    ----------
    categories : array_like of shape (n,)
        One category per row (see :func:`greedy_target_statistic`).
    target : array_like of shape (n,)
        Real targets.
    holdout : array_like of bool, shape (n,)
        ``True`` for the rows that receive an unbiased statistic (and are
        trained on), ``False`` for the rows the statistic is estimated from.
    prior : float
        The prior ``p``.
    prior_weight : float, default 1.0
        The prior's weight ``a >= 0``.

    Returns
    -------
    ndarray of float64, shape (n,)
    """
    cats = _check_categories(categories)
    n = cats.shape[0]
    y = _check_target(target, n)
    prior, a = _check_prior(prior, prior_weight)
    mask = np.asarray(holdout)
    if mask.dtype != bool:
        raise TypeError(f"holdout must be a boolean mask, got dtype {mask.dtype}")
    if mask.shape != (n,):
        raise ValueError(f"holdout must have shape ({n},) like categories, got {mask.shape}")
    codes, uniques = _factorize(cats)
    estimate = ~mask
    sums, counts = _category_totals(codes[estimate], y[estimate], uniques.shape[0])
    return _ratio(sums[codes], counts[codes], prior, a)


def leave_one_out_target_statistic(categories, target, *, prior, prior_weight=1.0):
    """Leave-one-out target statistic: the category's mean without the row itself.

    Implements :eq:`eq-ts-loo`:
    ``(sum_{j != i: c_j = c_i} y_j + a p) / (#{j != i: c_j = c_i} + a)``.
    Its leak: within a category the sum excludes ``y_i``, so the statistic
    is a decreasing function of the row's own target.

    Parameters
    ----------
    categories : array_like of shape (n,)
        One category per row.
    target : array_like of shape (n,)
        Real targets.
    prior : float
        The prior ``p``.
    prior_weight : float, default 1.0
        The prior's weight ``a >= 0``.

    Returns
    -------
    ndarray of float64, shape (n,)
    """
    cats = _check_categories(categories)
    y = _check_target(target, cats.shape[0])
    prior, a = _check_prior(prior, prior_weight)
    codes, uniques = _factorize(cats)
    sums, counts = _category_totals(codes, y, uniques.shape[0])
    return _ratio(sums[codes] - y, counts[codes] - 1.0, prior, a)


def ordered_prefix_sums(categories, target, *, order=None):
    """Sum and count of the earlier rows of each row's category (:eq:`eq-ordered-ts`).

    The numerator and denominator of the ordered statistic before the prior
    is added: with them, statistics with several priors cost one sort
    (CatBoost's Borders use three).

    Parameters
    ----------
    categories, target, order
        As for :func:`ordered_target_statistic`.

    Returns
    -------
    sums, counts : ndarray of float64, shape (n,)
        ``Σ_{j before i, c_j = c_i} y_j`` and ``#{j before i, c_j = c_i}``.
    """
    cats = _check_categories(categories)
    n = cats.shape[0]
    y = _check_target(target, n)
    perm = _check_order(order, n)
    codes, _ = _factorize(cats)
    return _prefix_sums_by_group(codes, y, perm)


def _prefix_sums_by_group(codes: np.ndarray, values: np.ndarray, order: np.ndarray):
    """Sum and count of the earlier rows of each row's group, in ``order``.

    Rows are visited in ``order`` and stably sorted by group, so each group is
    a contiguous run in permutation order; an exclusive cumulative sum within
    the run gives, for every row, the total over the rows before it.
    """
    n = codes.shape[0]
    by_group = order[np.argsort(codes[order], kind="stable")]
    v = values[by_group]
    g = codes[by_group]
    starts = np.ones(n, dtype=bool)
    starts[1:] = g[1:] != g[:-1]
    run_start = np.maximum.accumulate(np.where(starts, np.arange(n), 0))
    inclusive = np.cumsum(v)
    exclusive = inclusive - v
    before_sum = exclusive - exclusive[run_start]
    before_count = (np.arange(n) - run_start).astype(np.float64)
    sums = np.empty(n)
    counts = np.empty(n)
    sums[by_group] = before_sum
    counts[by_group] = before_count
    return sums, counts


def ordered_target_statistic(categories, target, *, prior, prior_weight=1.0, order=None):
    """Ordered target statistic: the category's mean over the earlier rows only.

    Implements :eq:`eq-ordered-ts` (Prokhorenkova et al., 2018): with the
    rows visited in the permutation ``order`` (``order[0]`` first),
    row ``i`` gets
    ``(sum_{j before i, c_j = c_i} y_j + a p) / (#{j before i, c_j = c_i} + a)``.
    The first row of a category gets the prior. With ``prior_weight=1`` and a
    class-indicator target this is CatBoost's ``Borders`` statistic
    ``(count_class + prior) / (count + 1)``.

    Parameters
    ----------
    categories : array_like of shape (n,)
        One category per row.
    target : array_like of shape (n,)
        Real targets.
    prior : float
        The prior ``p``.
    prior_weight : float, default 1.0
        The prior's weight ``a >= 0``.
    order : array_like of int, shape (n,), optional
        A permutation of ``0..n-1``: ``order[k]`` is the row visited k-th.
        ``None`` visits the rows in data order (CatBoost's ``has_time=True``).

    Returns
    -------
    ndarray of float64, shape (n,)
        The statistic of every row, in the original row order.
    """
    cats = _check_categories(categories)
    n = cats.shape[0]
    y = _check_target(target, n)
    prior, a = _check_prior(prior, prior_weight)
    perm = _check_order(order, n)
    codes, _ = _factorize(cats)
    sums, counts = _prefix_sums_by_group(codes, y, perm)
    return _ratio(sums, counts, prior, a)


def _expected_inverse(m, frequency: float, a: float) -> np.ndarray:
    """E[1 / (B + a)] for B ~ Binomial(m, frequency), elementwise over m."""
    from scipy.stats import binom

    m = np.atleast_1d(np.asarray(m, dtype=np.int64))
    if a == 1.0:
        # C(M, j) / (j + 1) = C(M + 1, j + 1) / (M + 1) sums the series in closed form.
        return -np.expm1((m + 1) * np.log1p(-frequency)) / ((m + 1) * frequency)
    top = int(m.max())
    # Binomial mass beyond 12 standard deviations above the mean is below
    # 1e-30: truncating there keeps the table small for large n.
    j_max = min(top, int(np.ceil(top * frequency + 12 * np.sqrt(top * frequency) + 20)))
    j = np.arange(j_max + 1)
    pmf = binom.pmf(j[None, :], m[:, None], frequency)
    with np.errstate(divide="ignore"):
        inverse = np.where(j + a > 0, 1.0 / np.maximum(j + a, np.finfo(float).tiny), 0.0)
    return pmf @ inverse


def ordered_statistic_mean_gap(position, n, frequency, *, prior, target_mean, prior_weight=1.0):
    """How much an ordered statistic's mean differs between training and test rows.

    Implements :eq:`eq-ts-gap`. A category of frequency ``q`` and mean target
    ``mu``; rows drawn i.i.d. A training row at ``position`` k (1-based) in
    the permutation has ``m ~ Bin(k - 1, q)`` earlier rows of its category,
    a test row has ``N ~ Bin(n, q)`` training rows of its category, and

    ``E[x_train | c] - E[x_test | c] = a (p - mu) (E[1/(m + a)] - E[1/(N + a)])``.

    Both statistics are unbiased for their own shrunk mean; the training
    row is shrunk more towards the prior because it sees fewer rows. For
    ``a = 1``, ``E[1/(B + 1)] = (1 - (1 - q)^(M+1)) / ((M + 1) q)`` for
    ``B ~ Bin(M, q)`` (:eq:`eq-ts-gap-closed`); other weights sum the
    binomial series.

    Parameters
    ----------
    position : int or array_like of int
        1-based position(s) k of the training row in the permutation.
    n : int
        Number of training rows.
    frequency : float
        Probability ``q`` of the category, in (0, 1].
    prior : float
        The prior ``p``.
    target_mean : float
        ``mu = E[y | c]``.
    prior_weight : float, default 1.0
        The prior's weight ``a > 0``.

    Returns
    -------
    ndarray of float64
        The gap for each position.
    """
    prior, a = _check_prior(prior, prior_weight)
    if a <= 0:
        raise ValueError("prior_weight must be > 0 for the gap (with a = 0 there is no shrinkage)")
    if not 0 < frequency <= 1:
        raise ValueError(f"frequency must be in (0, 1], got {frequency!r}")
    k = np.atleast_1d(np.asarray(position))
    if k.dtype.kind not in "iu" or (k < 1).any() or (k > n).any():
        raise ValueError(f"position must hold integers in 1..n = 1..{n}")
    train = _expected_inverse(k - 1, frequency, a)
    test = _expected_inverse(np.array([n]), frequency, a)[0]
    return a * (prior - float(target_mean)) * (train - test)


def stump_boosting_shift(n, c2, x2):
    """Prediction shift of two boosted stumps fitted on the same rows (Theorem 1).

    Implements :eq:`eq-cb-theorem1` (Prokhorenkova et al., 2018): with two
    i.i.d. Bernoulli(1/2) features, the noiseless target
    ``y = c1 x1 + c2 x2``, learning rate 1, a first stump on ``x1`` and a
    second on ``x2``, both fitted on the same ``n`` rows,
    ``E F_2(x) - f*(x) = -c2 (x2 - 1/2) / (n - 1)``, up to ``O(2^-n)``
    (datasets with an empty leaf). Fitted on independent samples the
    shift is ``O(2^-n)`` only.

    Parameters
    ----------
    n : int
        Number of training rows, at least 2.
    c2 : float
        Coefficient of the second feature.
    x2 : int or array_like of {0, 1}
        Value of the second feature at the query point.

    Returns
    -------
    float or ndarray
    """
    if int(n) != n or n < 2:
        raise ValueError(f"n must be an integer >= 2, got {n!r}")
    return -float(c2) * (np.asarray(x2, dtype=float) - 0.5) / (n - 1)


@dataclass(frozen=True)
class TargetStatisticTable:
    """Per-category sums learnt on training rows, applied to new rows.

    Built by :func:`target_statistic_table`. :meth:`transform` implements
    :eq:`eq-ts-test`.

    Attributes
    ----------
    categories : ndarray of object, shape (V,)
        The categories seen in training, in order of first appearance.
    sums : ndarray of float64, shape (V,)
        Sum of the targets of each category.
    counts : ndarray of float64, shape (V,)
        Number of training rows of each category.
    prior : float
        The prior ``p``.
    prior_weight : float
        The prior's weight ``a``.

    Examples
    --------
    >>> from mltrees import target_statistic_table
    >>> table = target_statistic_table(["a", "a", "b"], [1.0, 0.0, 1.0], prior=0.5)
    >>> table.transform(["a", "b", "unseen"]).tolist()  # (sum + prior) / (count + 1)
    [0.5, 0.75, 0.5]
    """

    categories: np.ndarray
    sums: np.ndarray
    counts: np.ndarray
    prior: float
    prior_weight: float

    @property
    def statistics(self) -> np.ndarray:
        """The statistic of each training category, ``(sum + a p) / (count + a)``."""
        return _ratio(self.sums, self.counts, self.prior, self.prior_weight)

    def transform(self, categories: ArrayLike) -> np.ndarray:
        """Statistic of each new row; a category unseen in training gets the prior.

        Parameters
        ----------
        categories : array_like of shape (m,)
            Categories of the new rows (missing values are refused).

        Returns
        -------
        ndarray of float64, shape (m,)
        """
        cats = _check_categories(categories)
        position = pd.Index(self.categories).get_indexer(pd.Index(cats, dtype=object))
        known = position >= 0
        return np.where(known, self.statistics[np.where(known, position, 0)], self.prior)


def target_statistic_table(categories, target, *, prior, prior_weight=1.0):
    """Learn the per-category statistic on all training rows, for new data.

    Implements :eq:`eq-ts-test`: a new row of category ``c`` gets
    ``(sum_{j: c_j = c} y_j + a p) / (#{j: c_j = c} + a)`` over all training
    rows, and a category never seen in training gets the prior ``p`` (its
    sum and count are 0). This is how CatBoost encodes rows at prediction
    time, whatever permutation it used in training.

    Parameters
    ----------
    categories : array_like of shape (n,)
        Training categories.
    target : array_like of shape (n,)
        Training targets.
    prior : float
        The prior ``p``.
    prior_weight : float, default 1.0
        The prior's weight ``a >= 0``.

    Returns
    -------
    TargetStatisticTable
        Call its :meth:`~TargetStatisticTable.transform` on new categories.
    """
    cats = _check_categories(categories)
    y = _check_target(target, cats.shape[0])
    prior, a = _check_prior(prior, prior_weight)
    codes, uniques = _factorize(cats)
    sums, counts = _category_totals(codes, y, uniques.shape[0])
    return TargetStatisticTable(uniques, sums, counts, prior, a)


@dataclass(frozen=True)
class OrderedBoostingResult:
    """Output of :func:`ordered_boosting`.

    Attributes
    ----------
    train_prediction : ndarray of shape (n,)
        ``M_{sigma(i)-1}(x_i)``: the prediction for training row ``i`` of the
        supporting model that has seen only the rows before ``i``.
    leaf_values : list of ndarray
        For each round, the leaf values of the final model ``M_n`` (trained
        on all rows), indexed by leaf id.
    bias : float
        The starting value of every model.

    Examples
    --------
    >>> import numpy as np
    >>> from mltrees import ordered_boosting
    >>> leaves = [np.array([0, 0, 1, 1])]  # one round: rows 0-1 and rows 2-3 share a leaf
    >>> result = ordered_boosting(leaves, np.array([1.0, 3.0, 5.0, 7.0]), order=np.arange(4))
    >>> result.train_prediction.tolist()  # each row sees only the rows before it
    [0.0, 1.0, 0.0, 5.0]
    >>> result.leaf_values[0].tolist()
    [2.0, 6.0]
    """

    train_prediction: np.ndarray
    leaf_values: list
    bias: float

    def predict(self, leaves: list[ArrayLike]) -> np.ndarray:
        """Prediction of the final model for rows with the given leaf ids.

        Parameters
        ----------
        leaves : array_like of int, shape (n_rounds, m)
            Leaf id of each new row in each round's tree structure.
            A leaf never seen in training contributes 0.
        """
        leaves = np.asarray(leaves)
        if leaves.ndim != 2 or leaves.shape[0] != len(self.leaf_values):
            raise ValueError(
                f"leaves must have shape ({len(self.leaf_values)}, m), got {leaves.shape}"
            )
        out = np.full(leaves.shape[1], self.bias)
        for values, leaf in zip(self.leaf_values, leaves, strict=True):
            inside = (leaf >= 0) & (leaf < values.shape[0])
            out += np.where(inside, values[np.where(inside, leaf, 0)], 0.0)
        return out


def ordered_boosting(
    leaves,
    target,
    *,
    learning_rate=1.0,
    l2_leaf_reg=0.0,
    order=None,
    bias=0.0,
    boosting_type="Ordered",
):
    """Idealised ordered boosting with one supporting model per prefix, for given trees.

    Implements Algorithm 1 of Prokhorenkova et al. (2018), :eq:`eq-ob-support`,
    for squared loss when each round's tree structure is given: supporting
    model ``M_k`` is trained on the first ``k`` rows of the permutation only,
    and the residual of row ``i`` is taken from ``M_{sigma(i)-1}``, the model
    that has not seen it. In round ``t`` with leaf ids ``leaves[t]``, the
    leaf value of ``M_k`` is the mean residual of its leaf among the first
    ``k`` rows, ``sum r / (count + lambda)``; the value needed for row ``i``
    is an ordered target statistic of the residuals grouped by leaf (prior 0,
    weight ``lambda``), so all ``n`` models cost one sorted pass per round.

    Parameters
    ----------
    leaves : array_like of int, shape (n_rounds, n)
        ``leaves[t, i]``: leaf id of row ``i`` in the tree of round ``t``.
    target : array_like of shape (n,)
        Real targets.
    learning_rate : float, default 1.0
        Step size applied to every tree.
    l2_leaf_reg : float, default 0.0
        ``lambda`` added to each leaf's count.
    order : array_like of int, shape (n,), optional
        The permutation sigma (``None``: data order).
    bias : float, default 0.0
        Starting value of every model.
    boosting_type : {"Ordered", "Plain"}, default "Ordered"
        ``"Plain"`` fits the same trees as ordinary gradient boosting: one
        model on all rows, whose own predictions give the residuals
        (``train_prediction`` is then ``F(x_i)``), for comparison.

    Returns
    -------
    OrderedBoostingResult
    """
    leaves = np.asarray(leaves)
    if leaves.dtype.kind not in "iu" or leaves.ndim != 2:
        raise ValueError("leaves must be a 2-D integer array of shape (n_rounds, n)")
    n = leaves.shape[1]
    y = _check_target(target, n)
    perm = _check_order(order, n)
    if not np.isfinite(learning_rate) or learning_rate <= 0:
        raise ValueError(f"learning_rate must be > 0, got {learning_rate!r}")
    if not np.isfinite(l2_leaf_reg) or l2_leaf_reg < 0:
        raise ValueError(f"l2_leaf_reg must be >= 0, got {l2_leaf_reg!r}")
    if (leaves < 0).any():
        raise ValueError("leaves must be non-negative leaf ids")
    if boosting_type not in ("Ordered", "Plain"):
        raise ValueError(f"boosting_type must be 'Ordered' or 'Plain', got {boosting_type!r}")
    train = np.full(n, float(bias))
    leaf_values = []
    for leaf in leaves:
        residual = y - train
        full_sums = np.bincount(leaf, weights=residual)
        full_counts = np.bincount(leaf, minlength=full_sums.shape[0]).astype(np.float64)
        values = learning_rate * _ratio(full_sums, full_counts, 0.0, float(l2_leaf_reg))
        leaf_values.append(values)
        if boosting_type == "Plain":
            train = train + values[leaf]
        else:
            sums, counts = _prefix_sums_by_group(leaf.astype(np.intp), residual, perm)
            train = train + learning_rate * _ratio(sums, counts, 0.0, float(l2_leaf_reg))
    return OrderedBoostingResult(train, leaf_values, float(bias))
