"""The Hoeffding tree (VFDT) of Domingos & Hulten, processed in batches with numpy.

A leaf keeps, per (feature, class), a Gaussian estimate of the feature's
values (weight, mean, sum of squared deviations, min, max) and the class
weights. Every ``grace_period`` of weight it tries to split: candidate
thresholds are evenly spaced between the feature's extremes, each scored by
the class weights the Gaussians put on either side, and the best feature wins
when its merit beats the runner-up by the Hoeffding bound
(:eq:`eq-hoeffding-bound`) or the bound has fallen below ``tau``
(:eq:`eq-vfdt-rule`). The decisions follow river's
``tree.HoeffdingTreeClassifier`` (itself after MOA), so that the same stream
gives the same tree.

A batch is cut, leaf by leaf, at the rows where a split attempt falls due: the
rows before a cut update the statistics together (one grouped reduction),
the leaves that are due attempt, and the rows after a cut of a leaf that split
are routed again. This is what learning one row at a time does, in a few
vectorized rounds per batch.

Memory is bounded as in VFDT and river: ``max_size`` caps the bytes of the
tree, and when the cap is reached the leaves of least promise (fewest rows
outside their majority class) are deactivated, keeping their class weights
but no Gaussian estimates, until the tree fits (:meth:`_enforce_size_limit`).
"""

from __future__ import annotations

import math
import numbers
from typing import ClassVar, Self

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.validation import check_is_fitted

from mltrees._frames import ColumnTypeError, is_categorical, numeric_values
from mltrees._typing import ArrayLike, MatrixLike
from mltrees._validation import check_labels, check_sample_weight
from mltrees.incremental._encoding import (
    as_table,
    check_columns,
    check_target,
    declare_classes,
    encode_labels,
    feature_names,
)

_HALF_LOG_2PI = 0.5 * math.log(2.0 * math.pi)
# The C library's erf, as river's norm_cdf calls it: scipy.special.erf differs in
# the last bit for about one value in six, and a split's children inherit
# class weights cdf * n. Called on a leaf's candidates only, at its attempts.
_erf = np.frompyfunc(math.erf, 1, 1)


def hoeffding_bound(value_range, delta, n):
    """The Hoeffding bound :eq:`eq-hoeffding-bound`: sqrt(R^2 ln(1/delta) / (2 n)).

    With probability at least ``1 - delta`` the mean of ``n`` independent
    variables with range ``value_range`` is within this distance of its
    expectation.

    Parameters
    ----------
    value_range : float or ndarray
        R, the range of the variables (``lg K`` bits for information gain
        over K classes; 1 for Gini).
    delta : float or ndarray
        The probability of a larger deviation, in (0, 1).
    n : float or ndarray
        Number (or weight) of observations, > 0.
    """
    value_range, delta, n = (np.asarray(v, dtype=np.float64) for v in (value_range, delta, n))
    return np.sqrt(value_range**2 * np.log(1.0 / delta) / (2.0 * n))


def tie_examples(value_range, delta, tau):
    """Examples after which the tie threshold forces a split: ``R^2 ln(1/delta) / (2 tau^2)``.

    Implements :eq:`eq-vfdt-tie-n`: the bound :eq:`eq-hoeffding-bound` falls
    below ``tau`` exactly when ``n`` exceeds this number, so a leaf whose two
    best attributes stay within the bound of each other splits on its current
    best once it has seen more examples (:eq:`eq-vfdt-rule`).
    """
    value_range, delta, tau = (np.asarray(v, dtype=np.float64) for v in (value_range, delta, tau))
    return value_range**2 * np.log(1.0 / delta) / (2.0 * tau**2)


def anytime_delta(delta, test):
    """Error probability of test ``test`` (1, 2, ...) so that all tests together keep ``delta``.

    Implements :eq:`eq-anytime-delta`: ``delta / (test (test + 1))``. Since
    ``1 / (l (l + 1)) = 1 / l - 1 / (l + 1)``, these probabilities sum to
    ``delta`` over every test a leaf may ever make, so by the union bound the
    chance that *any* of its tests errs stays below ``delta``, however long
    the leaf waits (a fixed ``delta`` per test gives no such guarantee).
    """
    delta, test = np.asarray(delta, dtype=np.float64), np.asarray(test, dtype=np.float64)
    if np.any(test < 1):
        raise ValueError(f"test must count from 1, got {test!r}")
    return delta / (test * (test + 1.0))


def _entropy_bits(weights: np.ndarray) -> np.ndarray:
    total = weights.sum(axis=-1)
    p = weights / np.where(total > 0, total, 1.0)[..., None]
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(p > 0, -p * np.log2(np.where(p > 0, p, 1.0)), 0.0)
    return terms.sum(axis=-1)


def _gini(weights: np.ndarray) -> np.ndarray:
    total = weights.sum(axis=-1)
    p = weights / np.where(total > 0, total, 1.0)[..., None]
    return 1.0 - (p**2).sum(axis=-1)


# The range of |x| accepted (besides 0): the Gaussian estimates sum weighted
# squared deviations, at most (2 * 2**480)**2 = 2**962 each, so sums over up to
# 2**62 of weight stay finite; below 2**-480 squares of values (and of their
# deviations) fall towards the subnormal range and underflow to zero, which
# silently changes the thresholds. river computes the same sums.
LARGEST_VALUE, SMALLEST_VALUE = 2.0**480, 2.0**-480


def _checked_values(values: np.ndarray, names=None) -> np.ndarray:
    finite = np.isfinite(values).all(axis=0)
    if not finite.all():
        j = int(np.argmax(~finite))
        name = names[j] if names is not None else str(j)
        raise ValueError(
            f"X contains NaN or inf in column {name!r}; the Hoeffding tree needs finite values "
            "(impute missing ones, e.g. with sklearn.impute.SimpleImputer)"
        )
    size = np.abs(values)
    largest = float(size.max(initial=0.0))
    smallest = float(np.where(size > 0, size, np.inf).min(initial=np.inf))
    if largest > LARGEST_VALUE or smallest < SMALLEST_VALUE:
        value = largest if largest > LARGEST_VALUE else smallest
        raise ValueError(
            f"X holds a value of magnitude {value:.6g}; the Hoeffding tree accepts 0 and "
            "2**-480 <= |x| <= 2**480 (about 3.2e-145 to 3.1e144), since its Gaussian "
            "estimates square deviations (overflow above, underflow to zero below). "
            "Rescale X (for example multiply or divide by a power of two)."
        )
    return values


def _gaussian_log_terms(n, m2):
    """Per (feature, class) estimate: -1 / (2 var) and the log normaliser of its density.

    Both are zero where the estimate has no variance (fewer than two
    observations, or all equal): river leaves such a feature out of the vote.
    """
    var = np.where(n > 1, m2 / np.where(n > 1, n - 1, 1), 0.0)
    usable = var > 0
    safe_var = np.where(usable, var, 1.0)
    scale = np.where(usable, -0.5 / safe_var, 0.0)
    offset = np.where(usable, -_HALF_LOG_2PI - 0.5 * np.log(safe_var), 0.0)
    return scale, offset


def _naive_bayes_proba(x, class_w, present, mean, scale, log_norm):
    """Naive Bayes class probabilities (:eq:`eq-nb-leaf`) with river's conventions.

    Parameters
    ----------
    x : ndarray of shape (n_rows, n_features)
    class_w, present : ndarray of shape (n_rows, n_classes)
        Class weights and class keys of the statistics each row is predicted with.
    mean, scale : ndarray of shape (n_rows, n_features, n_classes)
        Gaussian means and ``-1 / (2 var)`` (:func:`_gaussian_log_terms`).
    log_norm : ndarray of shape (n_rows, n_classes)
        Sum over features of the log normalisers.

    Classes with weight get log prior + sum of Gaussian log densities; a class
    key with zero weight votes 0; classes absent from the statistics get 0.
    """
    total = class_w.sum(axis=1, keepdims=True)
    centred = x[:, :, None] - mean
    log_like = (centred**2 * scale).sum(axis=1) + log_norm
    positive = class_w > 0
    with np.errstate(divide="ignore"):
        prior = np.log(np.where(positive, class_w / np.where(total > 0, total, 1.0), 1.0))
    votes = np.where(positive, prior + log_like, 0.0)
    votes = np.where(present, votes, -np.inf)
    top = votes.max(axis=1, keepdims=True)
    top = np.where(np.isfinite(top), top, 0.0)
    expo = np.exp(votes - top)
    sums = expo.sum(axis=1, keepdims=True)
    return expo / np.where(sums > 0, sums, 1.0)


def _sum_in_key_order(class_w: np.ndarray, key_rank: np.ndarray) -> np.ndarray:
    """Row sums of ``class_w`` added in the order of ``key_rank`` (river's dictionary order).

    Float addition is not associative, so the order matters for three classes
    and more; classes without a key weigh 0 and change no sum.
    """
    order = np.argsort(key_rank, axis=1, kind="stable")
    picked = np.take_along_axis(class_w, order, axis=1)
    total = np.zeros(class_w.shape[0])
    for j in range(class_w.shape[1]):
        total = total + picked[:, j]
    return total


def _running_class_weights(base: np.ndarray, group: np.ndarray, y: np.ndarray, w: np.ndarray):
    """Each row's leaf's class weights once the row is added, as river's ``stats[y] += w``.

    ``base`` (n_groups, n_classes): the weights before the rows; rows come
    grouped by ``group``, in stream order. A class weight grows by sequential
    float additions (a cumulative sum seeded with its weight before, which
    ``np.add.at`` then reproduces), not by differences of a global cumulative
    sum. A loop over (group, class) pairs, not over rows.
    """
    n_rows, n_classes = y.size, base.shape[1]
    current = base[group]
    for k in range(n_classes):
        rows = np.flatnonzero(y == k)
        if rows.size == 0:
            continue
        groups = group[rows]
        heads = np.flatnonzero(np.r_[True, groups[1:] != groups[:-1]])
        sums = np.empty(rows.size)
        for a, b in zip(heads, np.r_[heads[1:], rows.size], strict=True):
            sums[a:b] = np.cumsum(np.r_[base[groups[a], k], w[rows[a:b]]])[1:]
        # each row takes the sum after the latest row of class k of its group
        latest = np.full(n_rows, -1)
        latest[rows] = np.arange(rows.size)
        latest = np.maximum.accumulate(latest)
        found = latest >= 0
        found[found] = groups[latest[found]] == group[found]
        current[found, k] = sums[latest[found]]
    return current


def _first_key(scores: np.ndarray, present: np.ndarray, rank: np.ndarray) -> np.ndarray:
    """Per row, the class of largest score among its keys, ties to the first key.

    Python's ``max(d, key=d.get)`` on river's dictionaries: the key met first
    wins a tie (keys in ``rank`` order; np.inf for none).
    """
    best = np.where(present, scores, -np.inf).max(axis=1, keepdims=True)
    tied = present & (scores == best)
    return np.argmin(np.where(tied, rank, np.inf), axis=1)


def _rank_new_keys(rank: np.ndarray, slot: np.ndarray, y: np.ndarray) -> None:
    """Give the classes first met in rows (slot, y) the next ranks of their slot, in row order.

    ``rank`` is (n_slots, n_classes) with np.inf for classes without a key;
    rows come grouped by slot, in stream order.
    """
    new = ~np.isfinite(rank[slot, y])
    if not new.any():
        return
    n_classes = rank.shape[1]
    cells, first = np.unique(slot[new] * n_classes + y[new], return_index=True)
    cells = cells[np.lexsort((first, cells // n_classes))]  # by slot, then first meeting
    s, k = cells // n_classes, cells % n_classes
    heads = np.flatnonzero(np.r_[True, s[1:] != s[:-1]])
    within = np.arange(s.size) - np.repeat(heads, np.diff(np.r_[heads, s.size]))
    last = np.where(np.isfinite(rank), rank, -1.0).max(axis=1)
    rank[s, k] = last[s] + 1 + within


def _welford_scan(n, mean, m2, x, w, segment_head, segment_size):
    """River's row-by-row update of weighted (count, mean, M2) summaries, along segments.

    Arrays of shape (n_elements, n_features); each segment is a head (the
    summary before its rows) followed by its rows, element ``i`` holding row
    ``x[i]`` of weight ``w[i]``. Element ``i`` becomes the summary after its
    row, with the arithmetic of river's ``stats.Var.update``::

        n += w;  mean_new = mean + (w / n) * (x - mean);  m2 += w * (x - mean) * (x - mean_new)

    in that order, so that the summaries equal river's to the last bit (a
    merge of batch summaries, Chan et al.'s, is exact in exact arithmetic but
    rounds differently; the children of a split inherit class weights cdf * n,
    and a grace period of such weights decides the row of the next attempt).
    A row of weight 0 leaves the summary as it is. The loop runs over the
    position within the segments (at most a leaf's rows of one class between
    two attempts, about ``grace_period``), each step vectorized over segments
    and features. Returns new arrays.
    """
    n, mean, m2 = n.copy(), mean.copy(), m2.copy()
    # Segments by decreasing size: those still running at a position are a prefix
    by_size = np.argsort(-segment_size, kind="stable")
    head, size = segment_head[by_size], segment_size[by_size]
    running = np.searchsorted(-size, -np.arange(int(size.max(initial=1))), side="left")
    zero_weights = bool((w[np.setdiff1d(np.arange(w.size), segment_head)] <= 0).any())
    for position in range(1, int(size.max(initial=1))):
        at = head[: running[position]] + position
        row_w, row_x = w[at][:, None], x[at]
        n_old, mean_old = n[at - 1], mean[at - 1]
        n_new = n_old + row_w
        with np.errstate(divide="ignore", invalid="ignore"):
            mean_new = mean_old + (row_w / n_new) * (row_x - mean_old)
        m2_new = m2[at - 1] + row_w * (row_x - mean_old) * (row_x - mean_new)
        if zero_weights:
            skip = row_w <= 0
            n_new = np.where(skip, n_old, n_new)
            mean_new = np.where(skip, mean_old, mean_new)
            m2_new = np.where(skip, m2[at - 1], m2_new)
        n[at], mean[at], m2[at] = n_new, mean_new, m2_new
    return n, mean, m2


class HoeffdingTreeClassifier(ClassifierMixin, BaseEstimator):
    """Domingos & Hulten's Hoeffding tree (VFDT) for numeric streams.

    Learns from a stream in batches (:meth:`partial_fit`) with the split
    rule of river's ``HoeffdingTreeClassifier``: every ``grace_period`` of
    weight a leaf compares its two best candidate splits and splits when the
    difference of their merits exceeds the Hoeffding bound
    :eq:`eq-hoeffding-bound`, or when the bound is below ``tau`` (a tie,
    :eq:`eq-vfdt-rule`). Numeric features only; each (leaf, feature, class)
    keeps a Gaussian estimator and ``n_split_points`` thresholds evenly spaced
    between the feature's extremes are tried.

    Parameters
    ----------
    grace_period : int, default 200
        Weight a leaf accumulates between split attempts (n_min).
    delta : float, default 1e-7
        Probability that the Hoeffding bound fails at one attempt.
    tau : float, default 0.05
        Tie threshold: split anyway once the bound is below it.
    leaf_prediction : {"mc", "nb", "nba"}, default "nba"
        Majority class, naive Bayes (Gaussian class-conditional densities,
        :eq:`eq-nb-leaf`), or naive Bayes adaptive (whichever of the two has
        been right more often on the leaf's training rows).
    split_criterion : {"info_gain", "gini"}, default "info_gain"
        Merit of a split: information gain in bits (R = lg K) or one minus
        the children's weighted Gini index (R = 1), as river.
    max_depth : int or None, default None
        A leaf at this depth stops growing.
    n_split_points : int, default 10
        Candidate thresholds per feature (river's ``GaussianSplitter(n_splits)``).
    min_branch_fraction : float, default 0.01
        A candidate is valid only if both sides hold more than this fraction.
    max_share_to_split : float, default 0.99
        A leaf whose majority class holds more than this share at an attempt
        does not split (the null split wins); as in river, whose memory
        management reactivates such a leaf at once (below its ``max_size``),
        it forgets its Gaussian estimates and attempts again later.
    nb_threshold : float, default 0
        Weight a leaf needs before naive Bayes predicts ("nb").
    max_size : float, default 100
        Largest size of the tree in MiB (river's ``max_size``), counted
        exactly as :attr:`memory_bytes_`. After every split, if the tree with
        all its leaves active would not fit, the leaves of least promise (the
        weight outside their majority class, river's ``calculate_promise``)
        are deactivated: they keep their class weights and predict their
        majority class, but drop their Gaussian estimates and stop growing,
        and they are reactivated (with fresh estimates) when they rank among
        the most promising again. ``inf`` switches the limit off.
    stop_mem_management : bool, default False
        Stop all growth when the limit is reached, instead of deactivating
        leaves (river's parameter of the same name; river 0.26 also stops at
        the first leaf that becomes inactive for another reason, a leaf at
        ``max_depth`` or one where the null split wins, which is not followed
        here).

    Attributes
    ----------
    classes_, n_features_in_, feature_names_in_
    n_samples_seen_ : float
        Weight seen so far.
    n_nodes_, n_leaves_, depth_ : int
    memory_bytes_ : int
        Bytes held by the tree's arrays. It grows with the number of leaves,
        never with the length of the stream, and ``max_size`` bounds it: at
        most ``max_size`` MiB after every split, or the bytes of one more
        split when even a tree of inactive leaves does not fit (the tree then
        stops growing).
    n_active_leaves_, n_inactive_leaves_ : int
        Leaves that keep Gaussian estimates and may split, and the others
        (deactivated by the memory limit, or at ``max_depth``).

    Notes
    -----
    An attempt falls due as in river: when the leaf's total weight (its class
    weights added in the order river's dictionary holds them) minus the total
    at its last attempt reaches ``grace_period``, both float sums. The
    Gaussian estimates follow river's row-by-row update to the last bit
    (:func:`_welford_scan`): a new leaf inherits fractional class weights from
    them, and its weight since the last attempt often lands within rounding of
    ``grace_period``, where a last-bit difference would move the attempt by a
    row. river's memory limits (``max_size``) are not implemented.

    Feature values must be 0 or finite with ``2**-480 <= |x| <= 2**480``
    (about 3.2e-145 to 3.1e144): the Gaussian estimates sum squared
    deviations, which overflow above and underflow to zero below (river's
    would too); other values are refused with a ValueError. Within that range
    the tree is the same after scaling X by a power of two with
    ``leaf_prediction="mc"``; naive Bayes leaves leave out features without
    variance, which makes their votes depend on the scale.

    river 0.26 measures the size of its Python objects (every
    ``memory_estimate_period`` rows) and this tree the bytes of its arrays,
    exactly, at every split; a river leaf takes several times the bytes of
    one here, so at the same ``max_size`` river deactivates leaves earlier.
    The trees are the same while neither reaches its limit. river's
    ``remove_poor_attrs`` (off by default) is not implemented: it saves
    memory only where statistics are stored per attribute, and here they are
    dense arrays.

    Examples
    --------
    >>> import numpy as np
    >>> from mltrees import HoeffdingTreeClassifier
    >>> rng = np.random.default_rng(0)
    >>> tree = HoeffdingTreeClassifier(grace_period=100)
    >>> for _ in range(20):  # a stream, 500 rows at a time
    ...     X = rng.normal(size=(500, 3))
    ...     _ = tree.partial_fit(X, (X[:, 0] > 0.5).astype(int), classes=[0, 1])
    ...
    >>> feature, threshold = tree.structure()[:2]
    >>> feature, round(threshold, 1)  # the root tests feature 0 near its true threshold, 0.5
    (0, 0.6)
    """

    def __init__(
        self,
        *,
        grace_period=200,
        delta=1e-7,
        tau=0.05,
        leaf_prediction="nba",
        split_criterion="info_gain",
        max_depth=None,
        n_split_points=10,
        min_branch_fraction=0.01,
        max_share_to_split=0.99,
        nb_threshold=0,
        max_size=100.0,
        stop_mem_management=False,
    ):
        self.grace_period = grace_period
        self.delta = delta
        self.tau = tau
        self.leaf_prediction = leaf_prediction
        self.split_criterion = split_criterion
        self.max_depth = max_depth
        self.n_split_points = n_split_points
        self.min_branch_fraction = min_branch_fraction
        self.max_share_to_split = max_share_to_split
        self.nb_threshold = nb_threshold
        self.max_size = max_size
        self.stop_mem_management = stop_mem_management

    # ------------------------------------------------------------ parameters
    def _check_params(self):
        def number(name, low, high, integer=False, open_low=True, open_high=False):
            value = getattr(self, name)
            kind = numbers.Integral if integer else numbers.Real
            if isinstance(value, bool) or not isinstance(value, kind):
                what = "an integer" if integer else "a real number"
                raise TypeError(f"{name} must be {what}, got {value!r}")
            below = value <= low if open_low else value < low
            above = value >= high if open_high else value > high
            if below or above or not np.isfinite(value):
                lo = "(" if open_low else "["
                hi = ")" if open_high else "]"
                raise ValueError(f"{name} must be in {lo}{low}, {high}{hi}, got {value!r}")

        number("grace_period", 0, np.inf, integer=True)
        number("delta", 0, 1, open_high=True)
        number("tau", 0, np.inf, open_low=False)
        number("n_split_points", 0, np.inf, integer=True)
        number("min_branch_fraction", 0, 1, open_low=False, open_high=True)
        number("max_share_to_split", 0, 1)
        number("nb_threshold", 0, np.inf, open_low=False)
        if not (isinstance(self.max_size, numbers.Real) and not isinstance(self.max_size, bool)):
            raise TypeError(f"max_size must be a real number (MiB), got {self.max_size!r}")
        if not self.max_size > 0:  # inf allowed: no limit
            raise ValueError(f"max_size must be > 0 MiB (or inf), got {self.max_size!r}")
        if not isinstance(self.stop_mem_management, bool | np.bool_):
            raise TypeError(
                f"stop_mem_management must be True or False, got {self.stop_mem_management!r}"
            )
        if self.max_depth is not None:
            number("max_depth", 0, np.inf, integer=True, open_low=False)
        if self.leaf_prediction not in ("mc", "nb", "nba"):
            raise ValueError(
                f"leaf_prediction must be 'mc', 'nb' or 'nba', got {self.leaf_prediction!r}"
            )
        if self.split_criterion not in ("info_gain", "gini"):
            raise ValueError(
                f"split_criterion must be 'info_gain' or 'gini', got {self.split_criterion!r}"
            )

    # ----------------------------------------------------------------- input
    def _numeric(self, X, *, first: bool) -> np.ndarray:
        if (
            not first
            and isinstance(X, np.ndarray)
            and X.ndim == 2
            and X.dtype.kind in "fiu"
            and X.shape[0] > 0
            and X.shape[1] == self.n_features_in_
            and not hasattr(self, "feature_names_in_")
        ):  # a plain numeric array: no table needed (the common case of a stream)
            return _checked_values(X.astype(np.float64, copy=False))
        table = as_table(X)
        if first:
            self.n_features_in_ = table.shape[1]
            names = feature_names(table)
            if names is not None:
                self.feature_names_in_ = names
        else:
            check_columns(self, table)
        values = np.empty(table.shape)
        for j in range(table.shape[1]):
            column, name = table.iloc[:, j], str(table.columns[j])
            # The package's one rule for columns (mltrees._frames): categories,
            # strings and bools are categorical; nullable and object numbers are numbers.
            if is_categorical(column, name):
                raise ColumnTypeError(
                    f"column {name!r} of X is not numeric ({column.dtype}); "
                    "HoeffdingTreeClassifier takes numeric features only (one-hot encode "
                    "categories, or use ID5RClassifier for categorical attributes)"
                )
            values[:, j] = numeric_values(column, name)
        return _checked_values(values, [str(c) for c in table.columns])

    # ----------------------------------------------------------------- state
    def _init_state(self):
        n_features, n_classes = self.n_features_in_, self.classes_.size
        self._feature = np.full(1, -1, dtype=np.intp)
        self._threshold = np.full(1, np.nan)
        self._left = np.full(1, -1, dtype=np.intp)
        self._right = np.full(1, -1, dtype=np.intp)
        self._depth = np.zeros(1, dtype=np.intp)
        self._slot = np.zeros(1, dtype=np.intp)  # a leaf's row in the leaf arrays
        self._free_slots = []
        self._class_w = np.zeros((1, n_classes))
        self._present = np.zeros((1, n_classes), dtype=bool)  # river's class keys of a leaf
        # The order of those keys (river's dictionaries keep insertion order), and
        # of the classes of the leaf's Gaussian estimators (a new leaf's keys come
        # in that order); np.inf where there is none.
        self._key_rank = np.full((1, n_classes), np.inf)
        self._estimator_rank = np.full((1, n_classes), np.inf)
        # river's ``last_split_attempt_at``: the leaf's total weight at its last
        # attempt (at its creation for a new leaf), a float sum of its class weights
        # in key order. An attempt is due when the total minus it reaches
        # grace_period; a split's fractional weights can leave that difference a
        # hair below grace_period, and the attempt then comes one row later.
        self._last_attempt = np.zeros(1)
        self._active = np.ones(1, dtype=bool)
        # An active leaf's row in the Gaussian arrays; -1 for an inactive leaf,
        # which keeps its class weights only (river drops its splitters).
        self._stats = np.zeros(1, dtype=np.intp)
        self._free_stats = []
        self._mc_right = np.zeros(1)
        self._nb_right = np.zeros(1)
        shape = (1, n_features, n_classes)
        self._g_n = np.zeros(shape)
        self._g_mean = np.zeros(shape)
        self._g_m2 = np.zeros(shape)
        self._g_min = np.full(shape, np.inf)
        self._g_max = np.full(shape, -np.inf)
        self._growth_allowed = True
        self.n_samples_seen_ = 0.0

    _NODE_ARRAYS = ("_feature", "_threshold", "_left", "_right", "_depth", "_slot")
    _SLOT_ARRAYS = (
        "_class_w",
        "_present",
        "_key_rank",
        "_estimator_rank",
        "_last_attempt",
        "_active",
        "_stats",
        "_mc_right",
        "_nb_right",
    )
    _STATS_ARRAYS = ("_g_n", "_g_mean", "_g_m2", "_g_min", "_g_max")
    _STATS_FILL: ClassVar[dict] = {
        "_g_n": 0.0,
        "_g_mean": 0.0,
        "_g_m2": 0.0,
        "_g_min": np.inf,
        "_g_max": -np.inf,
    }

    def _new_stats(self, k: int = 1) -> np.ndarray:
        """``k`` rows of empty Gaussian estimates: freed rows first, then new ones."""
        reused = [self._free_stats.pop() for _ in range(min(k, len(self._free_stats)))]
        extra = k - len(reused)
        start = self._g_n.shape[0]
        if extra:
            for name in self._STATS_ARRAYS:
                arr = getattr(self, name)
                fill = np.full((extra, *arr.shape[1:]), self._STATS_FILL[name])
                setattr(self, name, np.concatenate([arr, fill]))
        rows = np.array(reused + list(range(start, start + extra)), dtype=np.intp)
        for name in self._STATS_ARRAYS:
            getattr(self, name)[rows] = self._STATS_FILL[name]
        return rows

    def _deactivate(self, slots) -> None:
        """Leaves stop growing: they keep their class weights, their estimates are freed."""
        slots = np.asarray(slots, dtype=np.intp)
        rows = self._stats[slots]
        self._free_stats.extend(int(r) for r in rows[rows >= 0])
        self._stats[slots] = -1
        self._active[slots] = False

    def _activate(self, slots) -> None:
        """Leaves grow again, from fresh (empty) Gaussian estimates, as river's ``activate``."""
        slots = np.asarray(slots, dtype=np.intp)
        self._stats[slots] = self._new_stats(slots.size)
        self._active[slots] = True
        self._estimator_rank[slots] = np.inf  # new estimators: classes in a new order

    def _new_slot(self):
        if self._free_slots:
            s = self._free_slots.pop()
        else:
            s = self._class_w.shape[0]
            fill = {"_key_rank": np.inf, "_estimator_rank": np.inf}
            for name in self._SLOT_ARRAYS:
                arr = getattr(self, name)
                extra = np.full((1, *arr.shape[1:]), fill.get(name, 0), dtype=arr.dtype)
                setattr(self, name, np.concatenate([arr, extra]))
        self._class_w[s] = 0
        self._present[s] = False
        self._key_rank[s] = self._estimator_rank[s] = np.inf
        self._last_attempt[s] = 0
        self._mc_right[s] = self._nb_right[s] = 0
        self._activate([s])
        return s

    def _new_leaf(self, depth, class_w, present, key_rank):
        node = self._feature.size
        values = {"_feature": -1, "_threshold": np.nan, "_left": -1, "_right": -1}
        values["_depth"], values["_slot"] = depth, self._new_slot()
        for name in self._NODE_ARRAYS:
            arr = getattr(self, name)
            setattr(self, name, np.append(arr, np.asarray(values[name], dtype=arr.dtype)))
        s = self._slot[node]
        self._class_w[s], self._present[s] = class_w, present
        self._key_rank[s] = np.where(present, key_rank, np.inf)
        self._last_attempt[s] = _sum_in_key_order(class_w[None], self._key_rank[s][None])[0]
        return node

    # ------------------------------------------------------------ public API
    def fit(self, X: MatrixLike, y: ArrayLike, sample_weight: ArrayLike | None = None) -> Self:
        """Learn the stream (X, y) from scratch, in batches of 1,000 rows.

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features), numeric
        y : array_like of shape (n_samples,)
        sample_weight : array_like of shape (n_samples,), optional
        """
        for attr in ("classes_", "n_features_in_", "feature_names_in_"):
            if hasattr(self, attr):
                delattr(self, attr)
        table = as_table(X)  # an empty or malformed X is named before y is read
        labels = check_target(y)
        classes = np.unique(check_labels(labels, "y"))
        if len(labels) != table.shape[0]:
            raise ValueError(f"y has {len(labels)} labels but X has {table.shape[0]} samples")
        weights = check_sample_weight(sample_weight, table.shape[0])
        for start in range(0, table.shape[0], 1000):
            rows = slice(start, start + 1000)
            self.partial_fit(
                table.iloc[rows], labels[rows], classes=classes, sample_weight=weights[rows]
            )
        return self

    def partial_fit(
        self,
        X: MatrixLike,
        y: ArrayLike,
        classes: ArrayLike | None = None,
        sample_weight: ArrayLike | None = None,
    ) -> Self:
        """Learn one batch of the stream; the same tree as learning its rows one by one.

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features), numeric
        y : array_like of shape (n_samples,)
            Labels, each among ``classes``.
        classes : array_like, optional
            Every label of the stream; required on the first call.
        sample_weight : array_like of shape (n_samples,), optional
        """
        self._check_params()
        first = not hasattr(self, "classes_")
        if first:
            declared = declare_classes(y, classes)
        values = self._numeric(X, first=first)
        labels = encode_labels(y, declared if first else self.classes_, values.shape[0])
        weights = check_sample_weight(sample_weight, values.shape[0])
        if first:
            self.classes_ = declared
            self._init_state()
        self._learn_batch(values, labels, weights)
        return self

    # --------------------------------------------------------------- learning
    def _leaf_of(self, values, rows, start=None):
        node = np.zeros(rows.size, dtype=np.intp) if start is None else start.copy()
        while True:
            feature = self._feature[node]
            inner = np.flatnonzero(feature >= 0)
            if inner.size == 0:
                return node
            at = node[inner]
            go_left = values[rows[inner], feature[inner]] <= self._threshold[at]
            node[inner] = np.where(go_left, self._left[at], self._right[at])

    def _learn_batch(self, values, labels, weights):
        max_depth = np.inf if self.max_depth is None else self.max_depth
        pending = np.arange(values.shape[0])
        leaf = np.zeros(pending.size, dtype=np.intp)
        while pending.size:
            leaf = self._leaf_of(values, pending, leaf)
            order = np.argsort(leaf, kind="stable")  # rows grouped by leaf, in stream order
            pending, leaf = pending[order], leaf[order]
            w = weights[pending]
            starts = np.flatnonzero(np.r_[True, leaf[1:] != leaf[:-1]])
            group = np.repeat(np.arange(starts.size), np.diff(np.r_[starts, pending.size]))
            node = leaf[starts]
            slot = self._slot[node]
            seen = self._weight_seen(slot, group, labels[pending], w)
            since = seen - self._last_attempt[slot][group]
            # An attempt is due once seen - last >= grace_period; a leaf at
            # max_depth stops growing after its first row.
            at_limit = (self._depth[node] >= max_depth)[group]
            hit = ((since >= self.grace_period) | at_limit) & self._active[slot][group]
            hit &= self._growth_allowed
            first_hit = np.full(starts.size, pending.size)
            hit_rows = np.flatnonzero(hit)
            np.minimum.at(first_hit, group[hit_rows], hit_rows)
            learn = np.arange(pending.size) <= first_hit[group]
            due = np.flatnonzero(first_hit < pending.size)
            if due.size and self._limit_may_bind(due.size):
                # A split may now (de)activate other leaves: only the rows up to
                # the first due attempt in stream order are learned this round.
                first = pending[first_hit[due]].min()
                learn &= pending <= first
                due = due[pending[first_hit[due]] == first]
            self._learn_rows(values, labels, weights, pending[learn], slot[group[learn]])
            for g in due:
                self._attempt(int(node[g]), max_depth, seen[first_hit[g]])
            rest = ~learn
            pending, leaf = pending[rest], leaf[rest]
            back = np.argsort(pending, kind="stable")
            pending, leaf = pending[back], leaf[back]
        self.n_samples_seen_ += float(weights.sum())

    def _weight_seen(self, slot, group, y, w) -> np.ndarray:
        """The total weight river sees at each row's leaf once the row is learned.

        ``slot``: the leaves' statistics rows; ``group``, ``y``, ``w``: each
        row's leaf (an index into ``slot``; rows grouped by leaf, in stream
        order), class and weight. The total adds the class weights
        (:func:`_running_class_weights`) in the order of the leaf's keys, as
        ``sum(stats.values())``.
        """
        after = _running_class_weights(self._class_w[slot], group, y, w)
        return _sum_in_key_order(after, self._key_rank[slot][group])

    def _count_right_predictions(self, values, rows, slot, y, w, key_rank):
        """Add each row's weight to its leaf's right-counts of "mc" and "nb" ("nba").

        Learning one row at a time, a row is predicted with its leaf's
        statistics of the rows before it (river's ``LeafNaiveBayesAdaptive``).
        ``rows`` come grouped by leaf, in stream order, so these statistics are
        prefixes within the leaf: class weights by cumulative sums, Gaussian
        estimates by river's row-by-row update (:func:`_welford_scan`) over each
        (leaf, class) in turn.
        Only active leaves count. Returns the leaves' slots and their Gaussian
        estimates (count, mean, M2) after the rows, or None without active rows.
        """
        active = self._active[slot]
        rows, slot, y, w = rows[active], slot[active], y[active], w[active]
        if rows.size == 0:
            return None
        n_rows, n_classes = rows.size, self.classes_.size
        x = values[rows]
        leaf_first = np.flatnonzero(np.r_[True, slot[1:] != slot[:-1]])
        n_leaves = leaf_first.size
        leaf = np.repeat(np.arange(n_leaves), np.diff(np.r_[leaf_first, n_rows]))
        first = leaf_first[leaf]
        # Rows of each class before each row, within its leaf (exact integer counts)
        one_hot = np.zeros((n_rows, n_classes), dtype=np.intp)
        one_hot[np.arange(n_rows), y] = 1
        before = np.cumsum(one_hot, axis=0) - one_hot
        before -= before[first]
        # Class weights before each row: the running sums after the row before it
        after = _running_class_weights(self._class_w[slot[leaf_first]], leaf, y, w)
        class_w = np.where((np.arange(n_rows) == first)[:, None], self._class_w[slot], 0.0)
        later = np.flatnonzero(np.arange(n_rows) != first)
        class_w[later] = after[later - 1]
        present = self._present[slot] | (before > 0)
        rank = key_rank[slot]  # the keys' order, new keys of this batch included
        majority = _first_key(class_w, present, rank)
        no_keys = ~present.any(axis=1)
        np.add.at(self._mc_right, slot, w * ((majority == y) | no_keys))
        # Gaussian estimates: one segment per (leaf, class), its head the leaf's
        # estimate before this batch, then the rows of that class in stream order
        # (a row of weight 0 leaves the estimate as it is: an empty summary).
        segment_size = 1 + np.bincount(leaf * n_classes + y, minlength=n_leaves * n_classes)
        segment_head = np.r_[0, np.cumsum(segment_size)[:-1]]
        n_elements = segment_size.sum()
        leaf_stats = self._stats[slot[leaf_first]]
        n_features = x.shape[1]
        g_n = np.zeros((n_elements, n_features))
        g_mean = np.zeros((n_elements, n_features))
        g_m2 = np.zeros((n_elements, n_features))
        for array, state in ((g_n, self._g_n), (g_mean, self._g_mean), (g_m2, self._g_m2)):
            array[segment_head] = state[leaf_stats].transpose(0, 2, 1).reshape(-1, n_features)
        own = segment_head[leaf * n_classes + y] + 1 + before[np.arange(n_rows), y]
        element_x = np.zeros((n_elements, n_features))
        element_w = np.zeros(n_elements)
        element_x[own], element_w[own] = x, w
        g_n, g_mean, g_m2 = _welford_scan(
            g_n, g_mean, g_m2, element_x, element_w, segment_head, segment_size
        )
        # The estimate of class k before row i: its segment's head plus the rows
        # of class k before i
        at = segment_head[leaf[:, None] * n_classes + np.arange(n_classes)] + before
        scale, offset = _gaussian_log_terms(g_n, g_m2)  # per element, gathered below
        proba = _naive_bayes_proba(
            x,
            class_w,
            present,
            g_mean[at].transpose(0, 2, 1),
            scale[at].transpose(0, 2, 1),
            offset.sum(axis=1)[at],
        )
        has = class_w.sum(axis=1) > 0
        nb_choice = _first_key(proba, present, rank)
        np.add.at(self._nb_right, slot, w * (has & (nb_choice == y)))
        # The Gaussian estimates after the batch: each segment's last element
        last = segment_head + segment_size - 1
        shape = (n_leaves, n_classes, n_features)
        return leaf_stats, [g[last].reshape(shape).transpose(0, 2, 1) for g in (g_n, g_mean, g_m2)]

    def _learn_rows(self, values, labels, weights, rows, slot):
        """Add rows to their leaves' statistics: class weights, then the Gaussians row by row."""
        if rows.size == 0:
            return
        y, w = labels[rows], weights[rows]
        n_classes = self.classes_.size
        key_rank = self._key_rank.copy()
        _rank_new_keys(key_rank, slot, y)
        moments = None
        if self.leaf_prediction == "nba":
            moments = self._count_right_predictions(values, rows, slot, y, w, key_rank)
        np.add.at(self._class_w, (slot, y), w)
        self._present[slot, y] = True
        self._key_rank = key_rank
        active = self._active[slot]
        _rank_new_keys(self._estimator_rank, slot[active], y[active])
        keep = active & (w > 0)
        if not keep.any():
            return
        rows, slot, y, w = rows[keep], slot[keep], y[keep], w[keep]
        key = slot * n_classes + y
        order = np.argsort(key, kind="stable")
        key, x, w = key[order], values[rows[order]], w[order]
        starts = np.flatnonzero(np.r_[True, key[1:] != key[:-1]])
        cell = key[starts]
        s, k = self._stats[cell // n_classes], cell % n_classes
        size = np.diff(np.r_[starts, key.size])
        states = (self._g_n, self._g_mean, self._g_m2)
        if moments is not None:  # already updated row by row to count the right predictions
            leaf_stats, after = moments
            for state, value in zip(states, after, strict=True):
                state[leaf_stats] = value
        else:
            # One segment per (leaf, class): its summary so far, then its rows
            head = starts + np.arange(starts.size)
            element = np.arange(key.size) + np.repeat(np.arange(starts.size) + 1, size)
            n_elements, n_features = key.size + starts.size, x.shape[1]
            g = [np.zeros((n_elements, n_features)) for _ in range(3)]
            for array, state in zip(g, states, strict=True):
                array[head] = state[s, :, k]
            element_x = np.zeros((n_elements, n_features))
            element_w = np.zeros(n_elements)
            element_x[element], element_w[element] = x, w
            g = _welford_scan(*g, element_x, element_w, head, size + 1)
            for state, value in zip(states, g, strict=True):
                state[s, :, k] = value[head + size]
        self._g_min[s, :, k] = np.minimum(self._g_min[s, :, k], np.minimum.reduceat(x, starts))
        self._g_max[s, :, k] = np.maximum(self._g_max[s, :, k], np.maximum.reduceat(x, starts))

    def _candidates(self, s):
        """Merit of every (feature, threshold) candidate of leaf slot ``s``.

        The class weights on each side of a threshold come from the Gaussian
        estimates (:eq:`eq-gaussian-split`), as river's ``GaussianSplitter``.
        """
        class_w, s = self._class_w[s], self._stats[s]  # s: the leaf's Gaussian row
        n = self._g_n[s]  # (F, K)
        seen = n > 0
        low = np.where(seen, self._g_min[s], np.inf).min(axis=1)
        high = np.where(seen, self._g_max[s], -np.inf).max(axis=1)
        step = (high - low) / (self.n_split_points + 1.0)
        with np.errstate(invalid="ignore"):
            cut = low[:, None] + step[:, None] * np.arange(1, self.n_split_points + 1)
        valid = (low[:, None] < cut) & (cut < high[:, None])  # (F, S)
        var = np.where(n > 1, self._g_m2[s] / np.where(n > 1, n - 1, 1), 0.0)
        sigma = np.sqrt(np.maximum(var, 0.0))
        z = (cut[:, :, None] - self._g_mean[s][:, None, :]) / np.where(sigma > 0, sigma, 1)[
            :, None, :
        ]
        cdf = np.where(
            sigma[:, None, :] > 0, 0.5 * (1.0 + _erf(z / math.sqrt(2.0)).astype(np.float64)), 0.0
        )
        below = cut[:, :, None] < self._g_min[s][:, None, :]
        above = cut[:, :, None] >= self._g_max[s][:, None, :]
        left = np.where(below, 0.0, np.where(above, n[:, None, :], cdf * n[:, None, :]))
        right = np.where(below, n[:, None, :], np.where(above, 0.0, n[:, None, :] - left))
        wl, wr = left.sum(axis=2), right.sum(axis=2)
        total = wl + wr
        safe = np.where(total > 0, total, 1.0)
        big = (
            (wl / safe > self.min_branch_fraction).astype(int)
            + (wr / safe > self.min_branch_fraction)
        ) >= 2
        if self.split_criterion == "info_gain":
            merit = (
                _entropy_bits(class_w)
                - (wl * _entropy_bits(left) + wr * _entropy_bits(right)) / safe
            )
        else:
            merit = 1.0 - (wl * _gini(left) + wr * _gini(right)) / safe
        merit = np.where(valid & big & (total > 0), merit, -np.inf)
        # children's class keys, as river's dictionaries hold them
        left_keys = seen[:, None, :] & ~below
        right_keys = seen[:, None, :] & ~above
        return merit, cut, left, right, left_keys, right_keys

    def _attempt(self, node, max_depth, seen):
        """One split attempt at a due leaf (:eq:`eq-vfdt-rule`); ``seen``: its total weight."""
        s = self._slot[node]
        self._last_attempt[s] = seen
        class_w = self._class_w[s]
        total = class_w.sum()
        if self._depth[node] >= max_depth:
            self._deactivate([s])  # for good: never reactivated
            return
        if (class_w != 0).sum() < 2:
            return  # pure: nothing to split
        if class_w.max() > 0 and class_w.max() / total > self.max_share_to_split:
            self._null_split(s)
            return
        merit, cut, left, right, left_keys, right_keys = self._candidates(s)
        best_cut = np.argmax(merit, axis=1)  # first best threshold of each feature
        features = np.arange(merit.shape[0])
        feature_merit = merit[features, best_cut]
        # river sorts [null split, feature 0, 1, ...] stably by merit and takes the last two
        scores = np.r_[-np.inf, feature_merit]
        ranked = np.argsort(scores, kind="stable")
        best, second = ranked[-1], ranked[-2]
        if self.split_criterion == "info_gain":
            value_range = math.log2(max(int(self._present[s].sum()), 2))
        else:
            value_range = 1.0
        bound = float(hoeffding_bound(value_range, self.delta, total))
        with np.errstate(invalid="ignore"):
            wins = scores[best] - scores[second] > bound
        if not (wins or bound < self.tau):
            return
        if not np.isfinite(scores[best]):
            self._null_split(s)
            return
        j = best - 1
        c = best_cut[j]
        depth = self._depth[node] + 1
        # A new leaf's keys come in the order of the estimators' classes.
        order = self._estimator_rank[s].copy()
        self._deactivate([s])  # the leaf's rows go to its children
        self._slot[node] = -1
        self._free_slots.append(s)
        left_node = self._new_leaf(depth, left[j, c], left_keys[j, c], order)
        right_node = self._new_leaf(depth, right[j, c], right_keys[j, c], order)
        self._feature[node], self._threshold[node] = j, cut[j, c]
        self._left[node], self._right[node] = left_node, right_node
        self._enforce_size_limit()

    def _null_split(self, s):
        """The null split wins: river deactivates the leaf, then enforces the size limit.

        Below the limit that reactivates it at once, with empty estimates: the
        leaf keeps learning and may split later, from the rows after this one.
        """
        self._deactivate([s])
        self._enforce_size_limit()

    # ---------------------------------------------------------------- memory
    @property
    def _stats_row_bytes(self) -> int:
        return int(sum(getattr(self, n)[0].nbytes for n in self._STATS_ARRAYS))

    def _fixed_bytes(self) -> int:
        """Bytes of the node and leaf arrays: what the tree holds with no active leaf."""
        return int(sum(getattr(self, n).nbytes for n in self._NODE_ARRAYS + self._SLOT_ARRAYS))

    def _limit_may_bind(self, n_attempts: int) -> bool:
        """Whether ``n_attempts`` splits could make the size limit (de)activate leaves.

        Each split adds two nodes, a leaf row and a row of estimates. Inactive
        leaves below ``max_depth`` exist only because of the limit.
        """
        if not np.isfinite(self.max_size):
            return False
        leaves = self._feature < 0
        capped = (~self._active[self._slot[leaves]]) & (
            self._depth[leaves] < (np.inf if self.max_depth is None else self.max_depth)
        )
        per_split = (
            2 * sum(getattr(self, n).itemsize for n in self._NODE_ARRAYS)
            + sum(getattr(self, n)[0].nbytes for n in self._SLOT_ARRAYS)
            + self._stats_row_bytes
        )
        after = self.memory_bytes_ + n_attempts * per_split
        return bool(capped.any()) or after > self.max_size * 2**20

    def _enforce_size_limit(self) -> None:
        """VFDT's memory management, as river's ``_enforce_size_limit`` (after Kirkby 2007).

        With ``L`` leaves the tree holds the node and leaf arrays plus one row
        of Gaussian estimates per active leaf. The largest number ``m`` of
        active leaves that fits in ``max_size`` stays active: the ``m`` leaves
        of highest promise (weight outside the majority class, ties by node
        id), except those at ``max_depth``; the others are deactivated.
        Freed rows of estimates are given back, so the arrays hold exactly
        the active leaves' rows. Runs after every split, as in river.
        """
        limit = self.max_size * 2**20
        leaves = np.flatnonzero(self._feature < 0)
        slots = self._slot[leaves]
        row = self._stats_row_bytes
        fixed = self._fixed_bytes()
        if self.stop_mem_management and fixed + int(self._active[slots].sum()) * row > limit:
            self._growth_allowed = False  # instead of deactivating leaves
            return
        room = (limit - fixed) // row if np.isfinite(limit) else leaves.size
        max_active = int(np.clip(room, 0, leaves.size))
        class_w = self._class_w[slots]
        promise = class_w.sum(axis=1) - class_w.max(axis=1)
        order = np.argsort(promise, kind="stable")
        cutoff = leaves.size - max_active
        low, high = order[:cutoff], order[cutoff:]
        self._deactivate(slots[low][self._active[slots[low]]])
        depth_limit = np.inf if self.max_depth is None else self.max_depth
        revive = high[(~self._active[slots[high]]) & (self._depth[leaves[high]] < depth_limit)]
        self._activate(slots[revive])
        if self._free_stats:
            self._compact_stats()

    def _compact_stats(self) -> None:
        """Drop the freed rows of Gaussian estimates (renumbering the leaves' rows)."""
        used = self._stats >= 0
        keep = np.sort(self._stats[used])
        for name in self._STATS_ARRAYS:
            setattr(self, name, getattr(self, name)[keep])
        renumber = np.full(self._g_n.shape[0] + len(self._free_stats), -1, dtype=np.intp)
        renumber[keep] = np.arange(keep.size)
        self._stats[used] = renumber[self._stats[used]]
        self._free_stats = []

    # ------------------------------------------------------------ prediction
    def _naive_bayes(self, x, slot):
        """Naive Bayes class probabilities of rows ``x`` at leaf slots ``slot``."""
        # -1 / (2 var) and the log normalisers per leaf, not per row
        unique_slots, row_leaf = np.unique(slot, return_inverse=True)
        leaves = self._stats[unique_slots]  # active leaves only: their Gaussian rows
        scale, offset = _gaussian_log_terms(self._g_n[leaves], self._g_m2[leaves])
        return _naive_bayes_proba(
            x,
            self._class_w[slot],
            self._present[slot],
            self._g_mean[leaves][row_leaf],
            scale[row_leaf],
            offset.sum(axis=1)[row_leaf],
        )

    def _majority(self, slot):
        class_w = self._class_w[slot]
        total = class_w.sum(axis=1, keepdims=True)
        uniform = np.full_like(class_w, 1.0 / class_w.shape[1])
        return np.where(total > 0, class_w / np.where(total > 0, total, 1.0), uniform)

    def apply(self, X: MatrixLike) -> np.ndarray:
        """The leaf (node id) each sample reaches."""
        check_is_fitted(self, "classes_")
        values = self._numeric(X, first=False)
        return self._leaf_of(values, np.arange(values.shape[0]))

    def predict_proba(self, X: MatrixLike) -> np.ndarray:
        """Class probabilities of the leaf each sample reaches (``leaf_prediction``)."""
        check_is_fitted(self, "classes_")
        values = self._numeric(X, first=False)
        slot = self._slot[self._leaf_of(values, np.arange(values.shape[0]))]
        proba = self._majority(slot)
        if self.leaf_prediction == "mc":
            return proba
        use_nb = self._active[slot] & (self._class_w[slot].sum(axis=1) > 0)
        if self.leaf_prediction == "nb":
            use_nb &= self._class_w[slot].sum(axis=1) >= self.nb_threshold
        else:
            use_nb &= self._nb_right[slot] >= self._mc_right[slot]
        if use_nb.any():
            proba[use_nb] = self._naive_bayes(values[use_nb], slot[use_nb])
        return proba

    def predict(self, X: MatrixLike) -> np.ndarray:
        """The most probable class of each sample (ties: first class)."""
        proba = self.predict_proba(X)
        return self.classes_[np.argmax(proba, axis=1)]

    # --------------------------------------------------------------- reports
    def structure(self, node=0):
        """The tree as nested tuples ``(feature, threshold, left, right)``; a leaf is ``"leaf"``."""
        check_is_fitted(self, "classes_")
        if self._feature[node] < 0:
            return "leaf"
        return (
            int(self._feature[node]),
            float(self._threshold[node]),
            self.structure(int(self._left[node])),
            self.structure(int(self._right[node])),
        )

    @property
    def n_nodes_(self):
        """Number of nodes of the tree."""
        check_is_fitted(self, "classes_")
        return int(self._feature.size)

    @property
    def n_leaves_(self):
        """Number of leaves of the tree."""
        return int((self._feature < 0).sum())

    @property
    def depth_(self):
        """Depth of the deepest leaf."""
        return int(self._depth[self._feature < 0].max())

    @property
    def n_active_leaves_(self):
        """Leaves that keep Gaussian estimates and may split."""
        check_is_fitted(self, "classes_")
        return int(self._active[self._slot[self._feature < 0]].sum())

    @property
    def n_inactive_leaves_(self):
        """Leaves deactivated by the memory limit or at ``max_depth``."""
        return self.n_leaves_ - self.n_active_leaves_

    @property
    def memory_bytes_(self):
        """Bytes held by the tree's arrays (nodes, leaves, Gaussian estimates)."""
        check_is_fitted(self, "classes_")
        names = self._NODE_ARRAYS + self._SLOT_ARRAYS + self._STATS_ARRAYS
        return int(sum(getattr(self, name).nbytes for name in names))

    # Model files: NaN at leaves, +-inf when empty; a class without a key ranks +inf.
    _non_finite_attributes = ("_threshold", "_g_min", "_g_max", "_key_rank", "_estimator_rank")

    def _rebuild_caches(self) -> None:
        """Model files: check a loaded fitted state as a whole, then rebuild the caches."""
        from mltrees.incremental._model_file import _rebuild_hoeffding

        _rebuild_hoeffding(self)

    def _drawable_tree(self, tree_index):
        """The tree from its arrays; an internal node shows the class weights of its leaves."""
        from mltrees.tree._drawable import (
            Drawable,
            check_tree_index,
            class_distributions,
            class_impurity,
            class_names,
            feature_names,
            tree_from_nodes,
        )
        from mltrees.tree._tree import NUMERIC_NODE

        check_is_fitted(self, "classes_")
        check_tree_index(tree_index, 1, type(self).__name__)
        feature, left, right = self._feature, self._left, self._right
        n = feature.size
        counts = np.zeros((n, self.classes_.size))
        leaves = feature < 0
        counts[leaves] = self._class_w[self._slot[leaves]]
        for node in np.argsort(-self._depth):  # deepest first: children before parents
            if feature[node] >= 0:
                counts[node] = counts[left[node]] + counts[right[node]]
        children = [[int(left[k]), int(right[k])] if feature[k] >= 0 else [] for k in range(n)]
        criterion = "gini" if self.split_criterion == "gini" else "entropy"
        weight = counts.sum(axis=1)
        tree = tree_from_nodes(
            feature,
            self._threshold,
            np.full(n, NUMERIC_NODE),
            children,
            {},
            class_distributions(counts),
            weight,
            weight,
            class_impurity(counts, criterion),
        )
        return Drawable(
            tree=tree,
            specs=None,
            feature_names=feature_names(self),
            class_names=class_names(self),
            criterion=criterion,
            n_features=int(self.n_features_in_),
        )
