"""Oblique (multivariate) decision trees: tests of the form w^T x <= t (chapter 8).

Three node learners share one growth loop:

* ``"oc1"`` -- Murthy, Kasif & Salzberg's OC1: start from the best
  axis-parallel split, improve one coefficient at a time by the closed-form
  search of :eq:`eq-oc1-u`, escape local minima by random perturbations
  (:eq:`eq-oc1-random`) and restart from random hyperplanes;
* ``"least_squares"`` -- the direction of a weighted least-squares fit of the
  target (for two classes Fisher's discriminant direction, :eq:`eq-ls-lda`);
* ``"perceptron"`` -- Gallant's pocket perceptron, run in batch epochs.

For every direction the threshold is a one-dimensional CART search over the
projected values (:eq:`eq-oblique-threshold`), which is the closed-form
coefficient search applied to the constant term. Every search sorts the
node's rows once and counts classes with cumulative sums: no loop over rows.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass
from typing import ClassVar

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
from sklearn.utils.validation import check_is_fitted

from mltrees._input_checks import validate_numbers
from mltrees._midpoint import midpoint
from mltrees._validation import (
    check_bool,
    check_int,
    check_sample_weight,
    class_codes,
    real_targets,
)
from mltrees.tree._data import check_target
from mltrees.tree._tree import LEAF, NUMERIC_NODE, Tree
from mltrees.tree.pruning import prune_cost_complexity

__all__ = [
    "ObliqueTree",
    "ObliqueTreeClassifier",
    "ObliqueTreeRegressor",
    "best_coefficient_step",
    "best_threshold",
    "least_squares_direction",
    "oc1_split",
    "pocket_perceptron",
]

_MAX_CYCLES = 50  # coordinate cycles per local search; OC1 stops far earlier in practice
# Without standardisation the search projects raw values on random directions:
# beyond this size a projection over many features can overflow.
_LARGEST_UNSCALED = 2.0**500


# ---------------------------------------------------------------------------
# Storage and prediction
# ---------------------------------------------------------------------------


@dataclass
class ObliqueTree(Tree):
    """A flat-array tree whose internal nodes test ``coef[i] @ x <= threshold[i]``.

    ``coef`` has shape (n_nodes, n_features) and holds the weights of each
    internal node in the units of the input (zeros at leaves); ``feature``
    holds the index of the largest ``|coef|`` of a node (a hint for
    readers, not used to route). Pruning (``collapse``) works unchanged,
    since ``coef`` is a per-node array.
    """

    coef: np.ndarray | None = None

    _LEAF_FILL: ClassVar[dict] = {**Tree._LEAF_FILL, "coef": 0.0}

    def apply(self, values: np.ndarray, **_) -> np.ndarray:
        """Leaf reached by each row: one projection per row and level.

        Implements :eq:`eq-oblique-test`: a row at an internal node ``i``
        goes to the first child when ``coef[i] @ x <= threshold[i]``. The
        loop runs over depth; each step is one gather and one row-wise dot
        product for all rows still walking.
        """
        values = np.asarray(values, dtype=np.float64)
        node = np.zeros(values.shape[0], dtype=np.intp)
        walking = np.arange(values.shape[0])
        for _ in range(self.max_depth):
            at = node[walking]
            inner = self.feature[at] != LEAF
            walking, at = walking[inner], at[inner]
            if walking.size == 0:
                break
            projection = np.einsum("ij,ij->i", values[walking], self.coef[at])
            node[walking] = self.first_child[at] + (projection > self.threshold[at])
        return node


# ---------------------------------------------------------------------------
# Split costs from sufficient statistics
# ---------------------------------------------------------------------------


def _cost(stats: np.ndarray, criterion: str) -> np.ndarray:
    """Weighted impurity W * I of groups of rows from their summed statistics.

    ``stats[..., :-1]`` are the criterion's statistics (weighted class counts
    c_k, or (Σw, Σwy, Σwy²) for squared error); the last column counts rows.
    Written without forming proportions: W * Gini = W - Σ c_k² / W and
    W * H = W lg W - Σ c_k lg c_k (:eq:`eq-oc1-cost`).
    """
    s = stats[..., :-1]
    if criterion == "squared_error":
        w = s[..., 0]
        return np.maximum(s[..., 2] - s[..., 1] ** 2 / np.where(w > 0, w, 1.0), 0.0)
    total = s.sum(axis=-1)
    if criterion == "gini":
        return total - np.einsum("...k,...k->...", s, s) / np.where(total > 0, total, 1.0)
    logs = np.zeros_like(s)
    np.log2(s, out=logs, where=s > 0)
    log_total = np.zeros_like(total)
    np.log2(total, out=log_total, where=total > 0)
    return np.maximum(total * log_total - np.einsum("...k,...k->...", s, logs), 0.0)


def _partition_cost(stats, right, criterion: str, min_samples_leaf: int, total=None) -> float:
    """Cost W_L Q(D_L) + W_R Q(D_R) of one partition; inf if a side is too small."""
    total = stats.sum(axis=0) if total is None else total
    r = right.astype(np.float64) @ stats
    pair = np.stack([total - r, r])
    if pair[:, -1].min() < min_samples_leaf:
        return np.inf
    return float(_cost(pair, criterion).sum())


def best_coefficient_step(
    V,
    D,
    stats,
    criterion: str = "gini",
    min_samples_leaf: int = 1,
    *,
    current=None,
    total=None,
    bounds=False,
):
    """The best change beta of one coefficient of a hyperplane, in closed form.

    Implements :eq:`eq-oc1-u` and :eq:`eq-oc1-cost`. Row ``i`` lies on the
    positive side of the hyperplane when ``V_i > 0``; changing one
    coefficient (or moving along a direction) by ``beta`` turns ``V_i``
    into ``V_i + beta * D_i``. For ``D_i != 0`` the row changes side exactly
    at ``U_i = -V_i / D_i``, so the cost is constant between consecutive
    sorted ``U_i``: one sort and a cumulative sum of the statistics give the
    cost of every interval, and the midpoint of the best one is returned.

    Parameters
    ----------
    V : ndarray (n,)
        Current signed values ``a^T x~_i`` of the rows (``x~ = (x, 1)``).
    D : ndarray (n,)
        Derivative of ``V_i`` with respect to the change: ``x_ij`` for
        coefficient ``j``, 1 for the constant, ``b_i = u^T x~_i`` for a direction ``u``.
    stats : ndarray (n, k + 1)
        Per-row statistics of the criterion and, last, a column of ones.
    criterion : {"gini", "entropy", "squared_error"}
    min_samples_leaf : int
        Candidates leaving fewer rows on a side cost inf.
    current, total : optional
        The cost of the current partition and ``stats.sum(axis=0)``, when the
        caller knows them (saves two passes over the rows).
    bounds : bool, default False
        Also return the rows whose ``U_i`` bound the chosen interval.

    Returns
    -------
    beta : float
        The change (0 if no interval beats the current position).
    cost : float
        ``W_L Q(D_L) + W_R Q(D_R)`` after the change (inf if no valid split).
    rows : tuple of two ints or None
        With ``bounds``: the rows with the largest ``U_i`` below ``beta`` and
        the smallest above it (None when ``beta`` is outside every ``U_i``
        or 0).
    """
    total = stats.sum(axis=0) if total is None else total
    if current is None:
        current = _partition_cost(stats, V > 0, criterion, min_samples_leaf, total)
    moves = D != 0
    if moves.all():
        U, s, d, fixed, moving = -V / D, stats, D, 0.0, total
    else:
        if not moves.any():
            return (0.0, current, None) if bounds else (0.0, current)
        # Rows with D_i = 0 keep their side whatever beta is.
        still = ~moves
        fixed = (still & (V > 0)).astype(np.float64) @ stats
        moving = total - still.astype(np.float64) @ stats
        U, s, d = -V[moves] / D[moves], stats[moves], D[moves]
    # Any sort will do: rows with equal U_i change side together, and cuts
    # are only scored between distinct values.
    order = np.argsort(U)
    U = U[order]
    # Candidate c puts beta between U[c-1] and U[c]: rows with D > 0 and
    # U < beta are on the positive side, and so are rows with D < 0 and
    # U > beta. With sign_i = ±1 both are one cumulative sum:
    # right(c) = fixed + (falling total) + Σ_{i<c} sign_i s_i.
    signed = s[order]
    signed *= np.where(d > 0, 1.0, -1.0)[order, None]
    cum = np.empty((U.size + 1, s.shape[1]))
    cum[0] = 0.0
    np.cumsum(signed, axis=0, out=cum[1:])
    right = cum + (fixed + (moving - cum[-1]) / 2.0)
    left = total - right
    cost = _cost(left, criterion) + _cost(right, criterion)
    m = U.size
    distinct = np.ones(m + 1, dtype=bool)
    distinct[1:-1] = U[1:] > U[:-1]
    small = np.minimum(left[:, -1], right[:, -1]) < min_samples_leaf - 0.5
    cost = np.where(distinct & ~small, cost, np.inf)
    best = int(np.argmin(cost))
    if not cost[best] < current:
        return (0.0, current, None) if bounds else (0.0, current)
    if best in (0, m):
        gap = max(1.0, float(U[-1] - U[0]))
        beta = float(U[0] - gap) if best == 0 else float(U[-1] + gap)
        return (beta, float(cost[best]), None) if bounds else (beta, float(cost[best]))
    beta = float(midpoint(U[best - 1], U[best]))
    if not bounds:
        return beta, float(cost[best])
    moving_rows = np.flatnonzero(moves)
    rows = (int(moving_rows[order[best - 1]]), int(moving_rows[order[best]]))
    return beta, float(cost[best]), rows


def best_threshold(z, stats, criterion: str = "gini", min_samples_leaf: int = 1):
    """CART's best threshold t of the test ``z <= t`` over projected values ``z``.

    Implements :eq:`eq-oblique-threshold`: the special case of
    :func:`best_coefficient_step` for the constant term (``D_j = 1``) started
    at ``V = z``, so the candidates are the midpoints between consecutive
    distinct values of ``z``. Returns ``(t, cost)``; ``t`` is NaN if no split
    leaves ``min_samples_leaf`` rows on both sides.
    """
    z = np.asarray(z, dtype=np.float64)
    # Start below every value: all rows on the positive side, so any valid
    # split beats the start and the search always returns one if it exists.
    # Only the order of z matters to the search, so it runs on the dense ranks
    # 1, 2, ... (a shift z - min + 1 would merge values closer than its
    # rounding and overflow beyond ±8.99e307); the threshold is then the
    # midpoint of the two values either side of the chosen interval.
    order = np.argsort(z, kind="stable")
    rank = np.empty(z.size)
    if z.size:
        rank[order] = np.cumsum(np.r_[True, z[order][1:] != z[order][:-1]])
    _, cost, rows = best_coefficient_step(
        rank, np.ones_like(z), stats, criterion, min_samples_leaf, bounds=True
    )
    if not np.isfinite(cost) or rows is None:
        return np.nan, np.inf
    high, low = z[rows[0]], z[rows[1]]  # U = -(z - lowest + 1) sorts z downwards
    return float(midpoint(low, high)), cost


# ---------------------------------------------------------------------------
# Node learners
# ---------------------------------------------------------------------------


def _hyperplane(Xa, a, stats, criterion, min_samples_leaf, total):
    V = Xa @ a
    return V, _partition_cost(stats, V > 0, criterion, min_samples_leaf, total)


def _local_search(Xa, a, stats, criterion, rng, n_perturbations, min_samples_leaf):
    """OC1's hill climbing from hyperplane ``a``: coordinates in sequence, then random jumps."""
    total = stats.sum(axis=0)
    V, cost = _hyperplane(Xa, a, stats, criterion, min_samples_leaf, total)
    tolerance = 1e-12 * max(1.0, float(stats[:, :-1].sum()))
    for _ in range(_MAX_CYCLES):
        improved = False
        for m in range(Xa.shape[1]):  # a_1, ..., a_d, then the constant (OC1's "Seq")
            delta, _ = best_coefficient_step(
                V, Xa[:, m], stats, criterion, min_samples_leaf, current=cost, total=total
            )
            if delta == 0.0:
                continue
            trial = a.copy()
            trial[m] += delta
            V_new, new = _hyperplane(Xa, trial, stats, criterion, min_samples_leaf, total)
            if new < cost - tolerance:  # recomputed, not trusted from the search
                a, V, cost, improved = trial, V_new, new, True
        if improved:
            continue
        for _ in range(n_perturbations):  # a local minimum: try random directions r
            r = rng.standard_normal(Xa.shape[1])
            delta, _ = best_coefficient_step(
                V, Xa @ r, stats, criterion, min_samples_leaf, current=cost, total=total
            )
            if delta == 0.0:
                continue
            trial = a + delta * r
            V_new, new = _hyperplane(Xa, trial, stats, criterion, min_samples_leaf, total)
            if new < cost - tolerance:
                a, V, cost, improved = trial, V_new, new, True
                break
        if not improved:
            break
    return a, cost


def _axis_parallel(X, stats, criterion, min_samples_leaf):
    """Best split ``x_j <= t`` over all features, as the hyperplane a = (e_j, -t)."""
    p = X.shape[1]
    best_a, best_cost = None, np.inf
    for j in range(p):
        t, cost = best_threshold(X[:, j], stats, criterion, min_samples_leaf)
        if cost < best_cost:
            best_a = np.zeros(p + 1)
            best_a[j], best_a[p] = 1.0, -t
            best_cost = cost
    return best_a, best_cost


def oc1_split(
    X,
    stats,
    criterion: str = "gini",
    *,
    rng=None,
    n_restarts: int = 2,
    n_perturbations: int = 5,
    min_samples_leaf: int = 1,
):
    """OC1's search for one oblique split :cite:p:`murthy1994`.

    Starts from the best axis-parallel split, improves it by
    :func:`best_coefficient_step` on each coefficient in turn (the closed
    form :eq:`eq-oc1-u`), and at a local minimum tries ``n_perturbations``
    random directions (:eq:`eq-oc1-random`); then repeats the whole search
    from ``n_restarts`` random hyperplanes and keeps the best.

    Parameters
    ----------
    X : ndarray (n, p)
        The node's rows (standardised by the estimator unless told otherwise).
    stats : ndarray (n, k + 1)
        Per-row statistics and a column of ones (see :func:`best_coefficient_step`).

    Returns
    -------
    a : ndarray (p + 1,) or None
        The hyperplane: rows with ``a[:p] @ x + a[p] > 0`` go right. None if
        no split leaves ``min_samples_leaf`` rows on both sides.
    cost : float
        ``W_L Q(D_L) + W_R Q(D_R)`` of the split.
    """
    rng = np.random.default_rng(rng)
    X = np.asarray(X, dtype=np.float64)
    # Column-major: the coordinate steps read one column at a time.
    Xa = np.asfortranarray(np.column_stack([X, np.ones(X.shape[0])]))
    best_a, best_cost = _axis_parallel(X, stats, criterion, min_samples_leaf)
    if best_a is None:
        return None, np.inf
    best_a, best_cost = _local_search(
        Xa, best_a, stats, criterion, rng, n_perturbations, min_samples_leaf
    )
    for _ in range(n_restarts):
        a = np.append(rng.standard_normal(X.shape[1]), 0.0)
        t, cost = best_threshold(X @ a[:-1], stats, criterion, min_samples_leaf)
        if not np.isfinite(cost):
            continue
        a[-1] = -t
        a, cost = _local_search(Xa, a, stats, criterion, rng, n_perturbations, min_samples_leaf)
        if cost < best_cost:
            best_a, best_cost = a, cost
    return best_a, best_cost


def least_squares_direction(X, z, sample_weight=None, ridge: float = 1e-8):
    """Direction w of the weighted least-squares fit ``z ~ w^T x + b``.

    Implements :eq:`eq-ls-direction`. With ``z = ±1`` for two classes the
    direction is Fisher's discriminant ``S_W^{-1} (mu_1 - mu_0)`` (:eq:`eq-ls-lda`).
    A ridge of ``ridge`` times each feature's weighted scatter keeps the
    system solvable when features are collinear within a node, without
    making w depend on the features' units.
    """
    X = np.asarray(X, dtype=np.float64)
    w = np.ones(X.shape[0]) if sample_weight is None else np.asarray(sample_weight, float)
    mean = w @ X / w.sum()
    Xc = X - mean
    A = (Xc * w[:, None]).T @ Xc
    # A ridge proportional to each feature's own scatter leaves w equivariant
    # under rescaling a feature (unlike a ridge proportional to the identity);
    # a constant feature (zero scatter) gets weight 0.
    diagonal = A.diagonal().copy()
    A[np.diag_indices_from(A)] += np.where(diagonal > 0, ridge * diagonal, 1.0)
    return np.linalg.solve(A, Xc.T @ (w * (z - w @ z / w.sum())))


def pocket_perceptron(X, z, sample_weight=None, max_epochs: int = 100):
    """Gallant's pocket perceptron, one batch update per epoch.

    Implements :eq:`eq-perceptron`: ``a <- a + sum_{j misclassified} w_j z_j x~_j / W``
    with ``z_j = ±1`` and ``x~ = (x, 1)``, keeping "in the pocket" the
    weights with the smallest weighted number of errors seen so far
    :cite:p:`gallant1990`. Returns the pocket hyperplane ``a`` (length p + 1).
    """
    X = np.asarray(X, dtype=np.float64)
    w = np.ones(X.shape[0]) if sample_weight is None else np.asarray(sample_weight, float)
    Xa = np.column_stack([X, np.ones(X.shape[0])])
    a = np.zeros(Xa.shape[1])
    pocket, fewest = a, np.inf
    for _ in range(max_epochs):
        wrong = z * (Xa @ a) <= 0
        errors = float(w[wrong].sum())
        if errors < fewest:
            pocket, fewest = a.copy(), errors
        if errors == 0:
            break
        a = a + (w * z * wrong) @ Xa / w.sum()
    return pocket


# ---------------------------------------------------------------------------
# Estimators
# ---------------------------------------------------------------------------


def _input_units(a, mean, scale, exponent):
    """The test ``a^T ((x - mean) / scale) + a_p > 0`` as ``coef^T x > t``, ``max |coef| = 1``.

    ``scale = scale_unit * 2**exponent`` per column. The direct formula is
    used wherever it is finite and normal (all ordinary data); for columns
    near the ends of the float range the same numbers are formed with the
    powers of two kept apart until the end.
    """
    with np.errstate(over="ignore", under="ignore", invalid="ignore", divide="ignore"):
        coef = a[:-1] / scale
        t = float(coef @ mean - a[-1])
        norm = np.abs(coef).max()
        if np.finfo(np.float64).tiny <= norm < np.inf and np.isfinite(t / norm):
            return coef / norm, t / norm
        unit = a[:-1] / np.ldexp(scale, -exponent)  # coefficients on the unit-scaled columns
        magnitude = np.log2(np.abs(np.where(unit != 0, unit, 1.0))) - exponent
        k = int(np.argmax(np.where(unit != 0, magnitude, -np.inf)))
        coef = np.ldexp(unit / abs(unit[k]), exponent[k] - exponent)
        t = float(coef @ mean - np.ldexp(a[-1] / abs(unit[k]), exponent[k]))
    return coef, t


def _checked_threshold(X, coef, t, right) -> float:
    """``t``, or a threshold that keeps the search's partition of the node's rows in X's units.

    The tests are stored in the input's units. The rows' projections are
    computed as :meth:`ObliqueTree.apply` computes them; where ``t`` does not
    send every row where the search sent it (rounding near the ends of the
    float range), the midpoint of the largest projection on the left and the
    smallest on the right replaces it. When the projections do not separate
    the two sides at all (columns 1e600 apart in scale, subnormal products,
    sums beyond the largest float) the fit is refused rather than stored wrong.
    """
    with np.errstate(over="ignore", under="ignore", invalid="ignore"):
        projection = np.einsum("ij,ij->i", X, np.tile(coef, (X.shape[0], 1)))
    left, right_side = projection[~right], projection[right]
    if not (np.isfinite(projection).all() and left.max() < right_side.min()):
        size = np.abs(X)
        raise ValueError(
            "X holds values whose oblique tests cannot be written in its units (|x| from "
            f"{float(np.where(size > 0, size, np.inf).min()):.6g} to {float(size.max()):.6g}): "
            "the projections coef @ x of a node's rows overflow, or lose the precision that "
            "separates its two sides. Rescale X (for example bring each column to |x| near 1 "
            "by a power of two)."
        )
    if left.max() <= t < right_side.min():
        return t
    return float(midpoint(left.max(), right_side.min()))


def _check_float(value, name: str):
    if (
        isinstance(value, bool)
        or not isinstance(value, numbers.Real)
        or not np.isfinite(value)
        or value < 0
    ):
        raise ValueError(f"{name} must be a float >= 0, got {value!r}")


class _BaseObliqueTree(BaseEstimator):
    _criteria: tuple[str, ...] = ()
    _splitters: tuple[str, ...] = ("oc1", "least_squares", "perceptron")

    def _validate_params(self):
        if not isinstance(self.splitter, str) or self.splitter not in self._splitters:
            extra = ""
            if self.splitter == "perceptron":
                extra = (
                    "; the perceptron separates two classes and has no regression "
                    "version, use 'oc1' or 'least_squares'"
                )
            raise ValueError(
                f"splitter must be one of {self._splitters} for {type(self).__name__}, "
                f"got {self.splitter!r}{extra}"
            )
        if self.criterion not in self._criteria:
            raise ValueError(f"criterion must be one of {self._criteria}, got {self.criterion!r}")
        check_int(self.max_depth, "max_depth", 1, allow_none=True)
        check_int(self.min_samples_split, "min_samples_split", 2)
        check_int(self.min_samples_leaf, "min_samples_leaf", 1)
        check_int(self.n_restarts, "n_restarts", 0)
        check_int(self.n_perturbations, "n_perturbations", 0)
        check_int(self.max_epochs, "max_epochs", 1)
        _check_float(self.min_impurity_decrease, "min_impurity_decrease")
        _check_float(self.ccp_alpha, "ccp_alpha")
        check_bool(self.standardize, "standardize")

    def _validate_X_y(self, X, y, sample_weight):
        X = validate_numbers(self, X, what="numbers only", dtype=np.float64)
        y = check_target(self, y, X.shape[0], stacklevel=4)  # the user's fit, through fit
        weights = check_sample_weight(sample_weight, X.shape[0])
        return X, y, weights

    _classifier = False

    def _grow(self, X, stats, node_cost, split_node) -> ObliqueTree:
        """Depth-first growth: children get consecutive ids when their parent splits."""
        n, p = X.shape
        if self.standardize:
            # Each column is first scaled by a power of two to |x| < 1: exact,
            # so Z is bit for bit what it would be without, and the squares
            # below cannot overflow for values up to the largest float.
            _, exponent = np.frexp(np.abs(X).max(axis=0, initial=0.0))
            X_unit = np.ldexp(X, -exponent)
            w = self._row_weight
            mean = w @ X_unit / w.sum()
            scale = np.sqrt(w @ (X_unit - mean) ** 2 / w.sum())
            scale = np.where(scale > 0, scale, 1.0)
            Z = (X_unit - mean) / scale
            mean, scale = np.ldexp(mean, exponent), np.ldexp(scale, exponent)  # raw columns
        else:
            largest = float(np.abs(X).max(initial=0.0))
            if largest > _LARGEST_UNSCALED:
                raise ValueError(
                    f"X holds values up to |x| = {largest:.6g}; with standardize=False the "
                    "hyperplanes are searched in the input's units, where projections of "
                    "values beyond 2**500 (about 3.3e150) can overflow. Use standardize=True "
                    "(the default, which handles every finite value) or rescale X."
                )
            mean, scale, exponent = np.zeros(p), np.ones(p), np.zeros(p, dtype=int)
            Z = X.copy()
        rng = np.random.default_rng(self.random_state)
        max_depth = np.inf if self.max_depth is None else self.max_depth
        nodes = {k: [] for k in ("parent", "depth", "first", "coef", "t", "stats")}

        def add(parent, depth, rows):
            nodes["parent"].append(parent)
            nodes["depth"].append(depth)
            nodes["first"].append(-1)
            nodes["coef"].append(None)
            nodes["t"].append(np.nan)
            nodes["stats"].append(stats[rows].sum(axis=0))
            return len(nodes["parent"]) - 1

        total = float(stats[:, :-1].sum()) if self._classifier else float(stats[:, 0].sum())
        stack = [(add(-1, 0, np.arange(n)), np.arange(n))]
        while stack:
            node, rows = stack.pop()
            s = nodes["stats"][node]
            cost = float(node_cost(s))
            if (
                nodes["depth"][node] >= max_depth
                or rows.size < self.min_samples_split
                or rows.size < 2 * self.min_samples_leaf
                or cost <= 1e-12 * max(total, 1.0)
            ):
                continue
            a, split_cost = split_node(Z[rows], stats[rows], rng)
            decrease = cost - split_cost
            if (
                a is None
                or not np.isfinite(split_cost)
                or decrease <= 1e-9 * cost
                or decrease / total < self.min_impurity_decrease
            ):
                continue
            right = Z[rows] @ a[:-1] + a[-1] > 0
            coef, t = _input_units(a, mean, scale, exponent)
            nodes["coef"][node] = coef
            nodes["t"][node] = _checked_threshold(X[rows], coef, t, right)
            left_id = add(node, nodes["depth"][node] + 1, rows[~right])
            add(node, nodes["depth"][node] + 1, rows[right])
            nodes["first"][node] = left_id
            stack.append((left_id + 1, rows[right]))
            stack.append((left_id, rows[~right]))
        return self._to_tree(nodes, p, node_cost)

    def _to_tree(self, nodes, p, node_cost) -> ObliqueTree:
        n_nodes = len(nodes["parent"])
        first = np.array(nodes["first"], dtype=np.intp)
        internal = first >= 0
        coef = np.zeros((n_nodes, p))
        for i in np.flatnonzero(internal):
            coef[i] = nodes["coef"][i]
        stats = np.array(nodes["stats"])
        weight = self._node_weight(stats)
        impurity = node_cost(stats) / np.where(weight > 0, weight, 1.0)
        return ObliqueTree(
            feature=np.where(internal, np.abs(coef).argmax(axis=1), LEAF).astype(np.intp),
            kind=np.where(internal, NUMERIC_NODE, -1).astype(np.intp),
            threshold=np.where(internal, np.array(nodes["t"]), np.nan),
            first_child=first,
            n_children=np.where(internal, 2, 0).astype(np.intp),
            route_offset=np.zeros(n_nodes, dtype=np.intp),
            route_table=np.zeros(0, dtype=np.intp),
            n_categories=np.zeros(n_nodes, dtype=np.intp),
            value=self._node_value(stats),
            impurity=impurity,
            n_node_samples=stats[:, -1].astype(np.intp),
            weighted_n_node_samples=weight,
            depth=np.array(nodes["depth"], dtype=np.intp),
            parent=np.array(nodes["parent"], dtype=np.intp),
            coef=coef,
        )

    def _finish_fit(self, tree):
        if self.ccp_alpha > 0:
            tree = prune_cost_complexity(tree, self.ccp_alpha)
        self.tree_ = tree
        return self

    def apply(self, X) -> np.ndarray:
        """Index of the leaf each row reaches."""
        check_is_fitted(self, "tree_")
        X = validate_numbers(self, X, what="numbers only", reset=False, dtype=np.float64)
        return self.tree_.apply(X)

    def get_depth(self) -> int:
        """Depth of the tree: the number of tests on the longest path."""
        check_is_fitted(self, "tree_")
        return self.tree_.max_depth

    def get_n_leaves(self) -> int:
        """Number of leaves."""
        check_is_fitted(self, "tree_")
        return self.tree_.n_leaves

    def _split_node(self, Z, stats, rng):
        """The configured node learner on one node's (standardised) rows."""
        leaf = self.min_samples_leaf
        if self.splitter == "oc1":
            return oc1_split(
                Z,
                stats,
                self._criterion,
                rng=rng,
                n_restarts=self.n_restarts,
                n_perturbations=self.n_perturbations,
                min_samples_leaf=leaf,
            )
        best_a, best_cost = None, np.inf
        for w in self._directions(Z, stats):
            if not np.all(np.isfinite(w)) or not np.any(w):
                continue
            t, cost = best_threshold(Z @ w, stats, self._criterion, leaf)
            if cost < best_cost:
                best_a, best_cost = np.append(w, -t), cost
        return best_a, best_cost


_PARAMETERS = """
    splitter : {{{splitters}}}, default "oc1"
        How each node's hyperplane is learned: OC1's randomised coordinate
        search (:eq:`eq-oc1-u`){ls_joint} a least-squares direction
        (:eq:`eq-ls-direction`){perceptron}.
        The threshold of a direction is always CART's search over the projected
        values (:eq:`eq-oblique-threshold`).
    criterion : {criteria}
        Impurity minimised by every split.
    max_depth : int or None, default None
        Maximum number of tests on a path.
    min_samples_split : int, default 2
        A node with fewer rows is a leaf.
    min_samples_leaf : int, default 1
        Each child of a split keeps at least this many rows.
    min_impurity_decrease : float, default 0
        A split must lower the weighted impurity, divided by the total
        weight, by at least this much.
    n_restarts : int, default 2
        OC1: random hyperplanes searched from after the axis-parallel start
        (Murthy et al. use 20).
    n_perturbations : int, default 5
        OC1: random directions tried at each local minimum (their J).
    max_epochs : int, default 100
        Perceptron epochs (other splitters ignore it).
    standardize : bool, default True
        Search in standardised units (each feature centred and divided by its
        weighted standard deviation over the training rows), as Breiman et al.
        do for linear combinations. The stored tests are in the input's units
        either way. Without it OC1's random steps and the perceptron depend
        on the features' scales, and values beyond 2**500 are refused (their
        projections can overflow); with it every finite value is accepted, and
        scaling a column by a power of two gives the same tree in its units.
        Each stored test is checked to send the node's rows where the search
        sent them; a fit whose tests cannot separate them in the input's units
        (values near the ends of the float range combined in one test) is
        refused with a ValueError.
    ccp_alpha : float >= 0, default 0
        Cost-complexity pruning of the grown tree (:eq:`eq-ccp-cost`).
    random_state : int, Generator or None, default None
        Seeds OC1's restarts and perturbations.
"""


class ObliqueTreeClassifier(ClassifierMixin, _BaseObliqueTree):
    """Decision tree with oblique tests ``w^T x <= t`` (OC1, least squares or perceptron).

    Every internal node tests a linear combination of all features
    (:eq:`eq-oblique-test`), learned by OC1 :cite:p:`murthy1994`, by least
    squares or by the pocket perceptron :cite:p:`brodley1995,gallant1990`.
    Features must be numeric. Leaves predict class fractions.

    Parameters
    ----------
    {parameters}

    Attributes
    ----------
    tree_ : ObliqueTree
        The fitted tree; ``tree_.coef`` and ``tree_.threshold`` hold the tests.
    classes_, n_classes_, n_features_in_, feature_names_in_
        As in scikit-learn.
    """

    _criteria = ("gini", "entropy", "log_loss")
    _classifier = True

    def __init__(
        self,
        *,
        splitter="oc1",
        criterion="gini",
        max_depth=None,
        min_samples_split=2,
        min_samples_leaf=1,
        min_impurity_decrease=0.0,
        n_restarts=2,
        n_perturbations=5,
        max_epochs=100,
        standardize=True,
        ccp_alpha=0.0,
        random_state=None,
    ):
        self.splitter = splitter
        self.criterion = criterion
        self.max_depth = max_depth
        self.min_samples_split = min_samples_split
        self.min_samples_leaf = min_samples_leaf
        self.min_impurity_decrease = min_impurity_decrease
        self.n_restarts = n_restarts
        self.n_perturbations = n_perturbations
        self.max_epochs = max_epochs
        self.standardize = standardize
        self.ccp_alpha = ccp_alpha
        self.random_state = random_state

    @property
    def _criterion(self) -> str:
        return "gini" if self.criterion == "gini" else "entropy"

    def fit(self, X, y, sample_weight=None):
        """Grow the tree on numeric ``X`` and class labels ``y``; returns self."""
        self._validate_params()
        X, y, weights = self._validate_X_y(X, y, sample_weight)
        classes, codes = class_codes(y)
        stats = np.zeros((X.shape[0], classes.size + 1))
        stats[np.arange(X.shape[0]), codes] = weights
        stats[:, -1] = 1.0
        keep = weights > 0  # a row of weight 0 must not shape a split
        self._row_weight = weights[keep]
        self.classes_ = classes
        self.n_classes_ = classes.size
        tree = self._grow(
            X[keep], stats[keep], lambda s: _cost(s, self._criterion), self._split_node
        )
        del self._row_weight
        return self._finish_fit(tree)

    @staticmethod
    def _node_weight(stats):
        return stats[:, :-1].sum(axis=1)

    @staticmethod
    def _node_value(stats):
        w = stats[:, :-1]
        total = w.sum(axis=1, keepdims=True)
        return w / np.where(total > 0, total, 1.0)

    def _directions(self, Z, stats):
        """Candidate directions of the least-squares and perceptron learners, one per class."""
        weights = stats[:, :-1].sum(axis=1)
        present = np.flatnonzero(stats[:, :-1].sum(axis=0) > 0)
        # Two classes need one direction; more: each class against the rest.
        for k in present[:1] if present.size == 2 else present:
            z = np.where(stats[:, k] > 0, 1.0, -1.0)
            if self.splitter == "least_squares":
                yield least_squares_direction(Z, z, weights)
            else:
                yield pocket_perceptron(Z, z, weights, self.max_epochs)[:-1]

    def predict_proba(self, X) -> np.ndarray:
        """Class fractions of the leaf each row reaches."""
        leaves = self.apply(X)
        return self.tree_.value[leaves]

    def predict(self, X) -> np.ndarray:
        """Majority class of the leaf each row reaches."""
        proba = self.predict_proba(X)
        return self.classes_[np.argmax(proba, axis=1)]


class ObliqueTreeRegressor(RegressorMixin, _BaseObliqueTree):
    """Regression tree with oblique tests ``w^T x <= t`` (OC1 or least squares).

    Splits minimise the squared error; leaves predict the weighted mean.
    The perceptron splitter is for classification only.

    Parameters
    ----------
    {parameters}

    Attributes
    ----------
    tree_ : ObliqueTree
        The fitted tree; ``tree_.coef`` and ``tree_.threshold`` hold the tests.
    n_features_in_, feature_names_in_
        As in scikit-learn.
    """

    _criteria = ("squared_error",)
    _splitters = ("oc1", "least_squares")
    _criterion = "squared_error"

    def __init__(
        self,
        *,
        splitter="oc1",
        criterion="squared_error",
        max_depth=None,
        min_samples_split=2,
        min_samples_leaf=1,
        min_impurity_decrease=0.0,
        n_restarts=2,
        n_perturbations=5,
        max_epochs=100,
        standardize=True,
        ccp_alpha=0.0,
        random_state=None,
    ):
        self.splitter = splitter
        self.criterion = criterion
        self.max_depth = max_depth
        self.min_samples_split = min_samples_split
        self.min_samples_leaf = min_samples_leaf
        self.min_impurity_decrease = min_impurity_decrease
        self.n_restarts = n_restarts
        self.n_perturbations = n_perturbations
        self.max_epochs = max_epochs
        self.standardize = standardize
        self.ccp_alpha = ccp_alpha
        self.random_state = random_state

    def fit(self, X, y, sample_weight=None):
        """Grow the tree on numeric ``X`` and targets ``y``; returns self."""
        self._validate_params()
        X, y, weights = self._validate_X_y(X, y, sample_weight)
        y = real_targets(y)
        keep = weights > 0
        X, y, weights = X[keep], y[keep], weights[keep]
        # Centred targets keep Σwy² - (Σwy)²/Σw accurate.
        yc = y - weights @ y / weights.sum()
        stats = np.column_stack([weights, weights * yc, weights * yc**2, np.ones(y.size)])
        self._row_weight = weights
        self._y_mean = float(weights @ y / weights.sum())
        tree = self._grow(X, stats, lambda s: _cost(s, "squared_error"), self._split_node)
        del self._row_weight
        return self._finish_fit(tree)

    @staticmethod
    def _node_weight(stats):
        return stats[:, 0]

    def _node_value(self, stats):
        w = stats[:, 0]
        return (self._y_mean + stats[:, 1] / np.where(w > 0, w, 1.0))[:, None]

    def _directions(self, Z, stats):
        w = stats[:, 0]
        yield least_squares_direction(Z, stats[:, 1] / w, w)

    def predict(self, X) -> np.ndarray:
        """Mean target of the leaf each row reaches."""
        leaves = self.apply(X)
        return self.tree_.value[leaves, 0]


for _cls, _splitters, _criteria, _perceptron in (
    (
        ObliqueTreeClassifier,
        '"oc1", "least_squares", "perceptron"',
        '{"gini", "entropy", "log_loss"}, default "gini"',
        " or the pocket perceptron (:eq:`eq-perceptron`)",
    ),
    (
        ObliqueTreeRegressor,
        '"oc1", "least_squares"',
        '{"squared_error"}, default "squared_error"',
        "",
    ),
):
    _cls.__doc__ = _cls.__doc__.replace(
        "{parameters}",
        _PARAMETERS.format(
            splitters=_splitters,
            criteria=_criteria,
            perceptron=_perceptron,
            ls_joint="," if _perceptron else " or",
        ).strip(),
    )
