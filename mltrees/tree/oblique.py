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
from typing import ClassVar, Self

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
from sklearn.utils.validation import check_is_fitted

from mltrees._frames import numbers_only
from mltrees._input_checks import validate_numbers
from mltrees._midpoint import midpoint
from mltrees._typing import ArrayLike, MatrixLike
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
    "best_coefficient_steps",
    "best_threshold",
    "least_squares_direction",
    "oc1_split",
    "pocket_perceptron",
    "staircase_error",
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


def staircase_error(n_steps, centred: bool = False):
    """Share of the unit square misclassified by a staircase that replaces its diagonal.

    Implements :eq:`eq-staircase-error`. The classes are split by the
    diagonal ``x_2 = x_1``; an axis-parallel tree draws ``n_steps`` equal
    steps of width ``1 / n_steps``. A one-sided staircase (every step below
    the diagonal, touching it at the corners) leaves ``n_steps`` triangles
    of area ``1 / (2 n_steps**2)``: an error of ``1 / (2 n_steps)``. A
    centred one (each step crossing the diagonal at its middle) leaves
    ``2 n_steps`` triangles of area ``1 / (8 n_steps**2)``: ``1 / (4 n_steps)``.
    """
    n_steps = np.asarray(n_steps, dtype=np.float64)
    if np.any(n_steps < 1):
        raise ValueError(f"n_steps must be >= 1, got {n_steps!r}")
    return 1.0 / ((4.0 if centred else 2.0) * n_steps)


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


def _partition_costs(stats, right, criterion: str, min_samples_leaf: int, total=None):
    """Costs W_L Q(D_L) + W_R Q(D_R) of partitions; inf where a side is too small.

    ``right`` is a boolean array (n,) or (R, n), one partition per row; the
    result is a float or an (R,) array.
    """
    total = stats.sum(axis=0) if total is None else total
    r = np.asarray(right, dtype=np.float64) @ stats
    pair = np.stack([total - r, r])  # (2, [R,] k + 1)
    cost = _cost(pair, criterion).sum(axis=0)
    cost = np.where(pair[..., -1].min(axis=0) < min_samples_leaf, np.inf, cost)
    return float(cost) if np.ndim(cost) == 0 else cost


def best_coefficient_steps(
    V,
    D,
    stats,
    criterion: str = "gini",
    min_samples_leaf: int = 1,
    *,
    current=None,
    total=None,
    rng=None,
    tolerance: float = 0.0,
    stagnant=None,
):
    """The best change beta of one coefficient of several hyperplanes at once, in closed form.

    Implements :eq:`eq-oc1-u` and :eq:`eq-oc1-cost` for ``R`` hyperplanes
    together (OC1's restarts run side by side). Row ``i`` lies on the
    positive side of hyperplane ``r`` when ``V[r, i] > 0``; changing one
    coefficient (or moving along a direction) by ``beta[r]`` turns ``V[r, i]``
    into ``V[r, i] + beta[r] * D[r, i]``. Where ``D[r, i] != 0`` the row
    changes side exactly at ``U = -V / D``, so the cost is constant between
    consecutive sorted breakpoints: one sort per hyperplane and a cumulative
    sum of the rows' statistics, signed by the direction in which each row
    crosses, give the cost of every interval; the midpoint of the best one is
    returned.

    Parameters
    ----------
    V : ndarray (R, n)
        Current signed values ``a^T x~_i`` of the rows (``x~ = (x, 1)``).
    D : ndarray (R, n) or (n,)
        Derivative of ``V`` with respect to the change: the column ``x_j`` for
        coefficient ``j`` (shared by all hyperplanes), 1 for the constant,
        ``u^T x~_i`` for a direction ``u``.
    stats : ndarray (n, k + 1)
        Per-row statistics of the criterion and, last, a column of ones.
    criterion : {"gini", "entropy", "squared_error"}
    min_samples_leaf : int
        Intervals leaving fewer rows on a side cost inf.
    current, total : optional
        The costs of the current partitions (R,) and ``stats.sum(axis=0)``.
    rng : numpy Generator, optional
        With ``stagnant``: where no interval beats the current position by
        more than ``tolerance``, another interval of the same cost is drawn at
        random (OC1's *stagnant* move :cite:p:`murthy1994`).
    tolerance : float, default 0
        Costs within this distance of the current cost count as equal.
    stagnant : ndarray (R,) of bool, optional
        The hyperplanes for which a stagnant move may be proposed.

    Returns
    -------
    beta : ndarray (R,)
        The changes (0 where no interval beats, or for a stagnant move
        equals, the current position).
    cost : ndarray (R,)
        ``W_L Q(D_L) + W_R Q(D_R)`` after the change (inf where no valid split).
    order, best : ndarray
        The rows sorted by breakpoint, per hyperplane, and the chosen
        interval: it lies between the rows ``order[r, best - 1]`` and
        ``order[r, best]``.
    """
    V = np.atleast_2d(np.asarray(V, dtype=np.float64))
    R, n = V.shape
    D = np.broadcast_to(np.asarray(D, dtype=np.float64), V.shape)
    total = stats.sum(axis=0) if total is None else total
    if current is None:
        current = _partition_costs(stats, V > 0, criterion, min_samples_leaf, total)
    current = np.broadcast_to(np.asarray(current, dtype=np.float64), (R,))
    moves = D != 0
    n_moving = moves.sum(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        U = np.where(moves, -V / np.where(moves, D, 1.0), np.inf)  # rows that never move: last
    # Rows with D = 0 keep their side whatever beta is: a fixed part of the positive side.
    still = (~moves).astype(np.float64)
    fixed = (still * (V > 0)) @ stats
    moving = total - still @ stats
    # Any sort will do: rows with equal U change side together, and cuts are
    # only scored between distinct values.
    order = np.argsort(U, axis=1)
    U = np.take_along_axis(U, order, axis=1)
    # Candidate c puts beta between U[c-1] and U[c]: rows with D > 0 and
    # U < beta are on the positive side, and so are rows with D < 0 and
    # U > beta. With sign = ±1 (0 for rows that never move) both are one
    # cumulative sum: right(c) = fixed + (falling total) + sum_{q<c} sign_q s_q.
    sign = np.take_along_axis(np.sign(D), order, axis=1)
    cum = np.zeros((R, n + 1, stats.shape[1]))
    np.cumsum(stats[order] * sign[..., None], axis=1, out=cum[:, 1:])
    right = cum + (fixed + (moving - cum[:, -1]) / 2.0)[:, None, :]
    left = total - right
    cost = _cost(left, criterion) + _cost(right, criterion)  # (R, n + 1)
    candidate = np.arange(n + 1)
    valid = candidate <= n_moving[:, None]  # beyond the last moving row: nothing new
    valid[:, 1:-1] &= U[:, 1:] > U[:, :-1]
    valid &= np.minimum(left[..., -1], right[..., -1]) >= min_samples_leaf - 0.5
    cost = np.where(valid, cost, np.inf)
    best = np.argmin(cost, axis=1)
    rows = np.arange(R)
    take = cost[rows, best] < current - tolerance
    if rng is not None and stagnant is not None:
        # A stagnant move: another interval of the same cost. The intervals
        # next to beta = 0 are left out, since one of them is where we are.
        ask = ~take & np.asarray(stagnant, dtype=bool) & np.isfinite(current)
        if ask.any():
            tied = np.abs(cost[ask] - current[ask, None]) <= tolerance
            at = np.flatnonzero(ask)
            for side in ("left", "right"):
                zero = (U[ask] < 0).sum(axis=1) if side == "left" else (U[ask] <= 0).sum(axis=1)
                tied[np.arange(at.size), zero] = False
            count = tied.sum(axis=1)
            some = count > 0
            pick = np.floor(rng.random(int(some.sum())) * count[some]).astype(np.intp)
            chosen = np.argmax(np.cumsum(tied[some], axis=1) > pick[:, None], axis=1)
            best[at[some]] = chosen
            take[at[some]] = True
    last = np.maximum(n_moving - 1, 0)
    low, high = U[rows, np.maximum(best - 1, 0)], U[rows, np.minimum(best, last)]
    gap = np.maximum(1.0, U[rows, last] - U[:, 0])
    with np.errstate(invalid="ignore", over="ignore"):
        beta = np.where(
            best == 0, U[:, 0] - gap, np.where(best >= n_moving, U[rows, last] + gap, 0.0)
        )
        inside = (best > 0) & (best < n_moving)
        beta[inside] = midpoint(low[inside], high[inside])
    beta = np.where(take, beta, 0.0)
    return beta, np.where(take, cost[rows, best], current), order, best


def best_coefficient_step(
    V,
    D,
    stats,
    criterion: str = "gini",
    min_samples_leaf: int = 1,
    *,
    current=None,
    total=None,
    rng=None,
    tolerance: float = 0.0,
):
    """The best change beta of one coefficient of one hyperplane (:eq:`eq-oc1-u`).

    :func:`best_coefficient_steps` for a single hyperplane: ``V`` and ``D``
    are (n,) arrays; with ``rng`` a stagnant move may be returned. Returns
    ``(beta, cost)`` as floats; beta is 0 when nothing beats the current
    position.
    """
    beta, cost, _, _ = best_coefficient_steps(
        np.asarray(V, dtype=np.float64)[None],
        D,
        stats,
        criterion,
        min_samples_leaf,
        current=None if current is None else [current],
        total=total,
        rng=rng,
        tolerance=tolerance,
        stagnant=None if rng is None else [True],
    )
    return float(beta[0]), float(cost[0])


def best_threshold(z, stats, criterion: str = "gini", min_samples_leaf: int = 1):
    """CART's best threshold t of the test ``z <= t`` over projected values ``z``.

    Implements :eq:`eq-oblique-threshold`: the special case of
    :func:`best_coefficient_steps` for the constant term (``D = 1``) started
    below every value, so the candidates are the midpoints between
    consecutive distinct values of ``z``. Returns ``(t, cost)``; ``t`` is NaN
    if no split leaves ``min_samples_leaf`` rows on both sides.
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
    _, cost, sorted_rows, best = best_coefficient_steps(
        rank[None], np.ones_like(z), stats, criterion, min_samples_leaf
    )
    b = int(best[0])
    if not np.isfinite(cost[0]) or not 0 < b < z.size:
        return np.nan, np.inf
    # U = -rank sorts z downwards: the interval lies between a higher and a lower value
    high, low = z[sorted_rows[0, b - 1]], z[sorted_rows[0, b]]
    return float(midpoint(low, high)), float(cost[0])


# ---------------------------------------------------------------------------
# Node learners
# ---------------------------------------------------------------------------


def _random_vectors(rng, shape):
    """Random hyperplanes or directions: coefficients uniform on [-1, 1] (OC1 3.0's)."""
    return rng.uniform(-1.0, 1.0, shape)


class _StagnantMoves:
    """OC1's rule for moves that leave the cost unchanged :cite:p:`murthy1994`, per search.

    Such a move is taken with probability ``P_move``: 1 after every
    improvement, lower by ``1 / max_stagnant_moves`` after each equal-cost
    move taken, so at most ``max_stagnant_moves`` of them follow one another
    (Murthy et al.'s P_stag schedule, which lowers the probability with
    every stagnant move made; OC1 3.0's code takes them without a draw, up
    to 11 in a row: its counter is tested against
    ``MAX_NO_OF_STAGNANT_PERTURBATIONS = 10`` before it is incremented).
    With 0 no such move is taken.
    One probability is kept for each of ``size`` searches run side by side.
    """

    def __init__(self, max_stagnant_moves: int, size: int = 1):
        self.step = 1.0 / max_stagnant_moves if max_stagnant_moves > 0 else 0.0
        self.p_move = np.zeros(size)
        self.reset(np.arange(size))

    def reset(self, which):
        """After an improvement: P_move back to 1 (0 when stagnant moves are off)."""
        self.p_move[which] = 1.0 if self.step > 0 else 0.0

    @property
    def possible(self) -> np.ndarray:
        return self.p_move > 1e-9

    def accept(self, rng, which) -> np.ndarray:
        """Equal-cost proposals of searches ``which``: each taken with probability P_move.

        Only a move taken lowers P_move (a rejected proposal leaves it).
        """
        which = np.asarray(which, dtype=np.intp)
        taken = rng.random(which.size) < self.p_move[which]
        self.p_move[which[taken]] -= self.step
        return taken


def _local_searches(
    Xa, A, stats, criterion, rng, n_perturbations, min_samples_leaf, max_stagnant_moves=0
):
    """OC1's hill climbing from the hyperplanes ``A`` (one per row), side by side.

    Each search perturbs ``a_1, ..., a_d`` and then the constant in turn
    (OC1's sequential order; OC1 3.0's loop stops at ``a_d`` and moves the
    constant only by random jumps), each by the closed-form step
    :func:`best_coefficient_steps`, taken for all searches at once. A step
    that lowers the cost is taken; a step to another position of the same
    cost (a stagnant move) follows :class:`_StagnantMoves`. When a whole
    cycle moves nothing, up to ``n_perturbations`` random directions are
    tried (:eq:`eq-oc1-random`); the first that lowers the cost is taken and
    the cycles resume. All searches stop once one of them reaches a pure
    split. Returns the hyperplanes and their costs.
    """
    A = np.array(A, dtype=np.float64)
    n_searches, n_coef = A.shape
    total = stats.sum(axis=0)
    V = A @ Xa.T
    cost = _partition_costs(stats, V > 0, criterion, min_samples_leaf, total)
    tolerance = 1e-9 * max(1.0, float(stats[:, :-1].sum()))
    stagnant = _StagnantMoves(max_stagnant_moves, n_searches)
    running = np.ones(n_searches, dtype=bool)

    def move(which, trial, improved_only):
        """Recompute the trial hyperplanes' costs (not trusted from the search); keep good ones."""
        V_new = trial @ Xa.T
        new = _partition_costs(stats, V_new > 0, criterion, min_samples_leaf, total)
        improved = new < cost[which] - tolerance
        taken = improved.copy()
        if not improved_only:
            equal = ~improved & (new <= cost[which] + tolerance) & stagnant.possible[which]
            taken[equal] = stagnant.accept(rng, which[equal])
        keep = which[taken]
        A[keep], V[keep], cost[keep] = trial[taken], V_new[taken], new[taken]
        stagnant.reset(which[improved])
        return keep

    for _ in range(_MAX_CYCLES):
        moved = np.zeros(n_searches, dtype=bool)
        for m in range(n_coef):  # a_1, ..., a_d, then the constant (OC1's "Seq" order)
            which = np.flatnonzero(running)
            if which.size == 0 or (cost <= tolerance).any():
                break
            beta, _, _, _ = best_coefficient_steps(
                V[which],
                Xa[:, m],
                stats,
                criterion,
                min_samples_leaf,
                current=cost[which],
                total=total,
                rng=rng,
                tolerance=tolerance,
                stagnant=stagnant.possible[which],
            )
            step = beta != 0.0
            trial = A[which[step]].copy()
            trial[:, m] += beta[step]
            moved[move(which[step], trial, improved_only=False)] = True
        if (cost <= tolerance).any():
            break  # a pure split cannot be beaten (OC1 3.0 stops there too)
        stuck = running & ~moved
        for _ in range(n_perturbations):  # local minima: try random directions u
            which = np.flatnonzero(stuck)
            if which.size == 0:
                break
            u = _random_vectors(rng, (which.size, n_coef))
            beta, _, _, _ = best_coefficient_steps(
                V[which],
                u @ Xa.T,
                stats,
                criterion,
                min_samples_leaf,
                current=cost[which],
                total=total,
                tolerance=tolerance,
            )
            step = beta != 0.0
            jumped = move(which[step], A[which[step]] + beta[step, None] * u[step], True)
            moved[jumped] = True
            stuck[jumped] = False
        running &= moved
        if not running.any():
            break
    return A, cost


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


# Searches run side by side hold about this many floats of sorted statistics at a time.
_BATCH_FLOATS = 2**22


def oc1_split(
    X,
    stats,
    criterion: str = "gini",
    *,
    rng=None,
    n_restarts: int = 19,
    n_perturbations: int = 5,
    max_stagnant_moves: int = 10,
    min_samples_leaf: int = 1,
):
    """OC1's search for one oblique split :cite:p:`murthy1994`.

    Starts from the best axis-parallel split and improves it by
    :func:`best_coefficient_steps` on each coefficient in turn (the closed
    form :eq:`eq-oc1-u`), with up to ``max_stagnant_moves`` equal-cost
    moves in a row and, at a local minimum, up to ``n_perturbations``
    random directions (:eq:`eq-oc1-random`); the same search runs from
    ``n_restarts`` random hyperplanes, side by side, and the best result is
    kept. The defaults are OC1 3.0's: 20 searches in all
    (``no_of_restarts = 20`` counts the first), 5 random jumps, 10 stagnant
    moves. The oblique result replaces the axis-parallel split only if its
    cost is lower, as in OC1 3.0.

    Two choices differ from OC1 3.0's code: a random restart starts at the
    best threshold along its random direction (not at a random offset), and
    each step is exact for rows crossing in either direction
    (:eq:`eq-oc1-cost`).

    Parameters
    ----------
    X : ndarray (n, p)
        The node's rows (standardised by the estimator unless told otherwise).
    stats : ndarray (n, k + 1)
        Per-row statistics and a column of ones (see :func:`best_coefficient_steps`).

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
    n, p = X.shape
    Xa = np.column_stack([X, np.ones(n)])
    axis_a, axis_cost = _axis_parallel(X, stats, criterion, min_samples_leaf)
    if axis_a is None:
        return None, np.inf
    starts = [axis_a]
    for _ in range(n_restarts):  # a random direction, at its best threshold
        a = np.append(_random_vectors(rng, p), 0.0)
        t, cost = best_threshold(X @ a[:-1], stats, criterion, min_samples_leaf)
        if np.isfinite(cost):
            a[-1] = -t
            starts.append(a)
    starts = np.array(starts)
    group = max(1, _BATCH_FLOATS // max(1, n * stats.shape[1]))
    tolerance = 1e-9 * max(1.0, float(stats[:, :-1].sum()))
    search = (rng, n_perturbations, min_samples_leaf, max_stagnant_moves)
    best_a, best_cost = axis_a, np.inf
    for first in range(0, len(starts), group):
        A, costs = _local_searches(Xa, starts[first : first + group], stats, criterion, *search)
        k = int(np.argmin(costs))
        if costs[k] < best_cost:
            best_a, best_cost = A[k], float(costs[k])
        if best_cost <= tolerance:
            break  # a pure split cannot be beaten
    if not best_cost < axis_cost - tolerance:
        return axis_a, axis_cost  # no better than the axis-parallel split: keep it
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


def _clear_of_rows(Z, a, stats, criterion, min_samples_leaf):
    """``a``, or its direction with the best threshold if the hyperplane runs through a row.

    The local search can stop on a hyperplane that passes through a row
    (``|a @ z| ~ 1e-16``, within the rounding of the dot product), whose side
    is then decided by the order of a sum; neither the stored test nor the
    test in the input's units would keep it. Such a hyperplane keeps its
    direction and gets the best threshold on it, a midpoint between two
    distinct projections (:func:`best_threshold`), so every row is clear of it.
    """
    with np.errstate(over="ignore", under="ignore", invalid="ignore"):
        V = Z @ a[:-1] + a[-1]
        bound = 4 * (Z.shape[1] + 1) * np.finfo(np.float64).eps
        bound *= np.abs(Z) @ np.abs(a[:-1]) + abs(a[-1])
    if np.all(np.abs(V) > bound):
        return a
    t, _ = best_threshold(Z @ a[:-1], stats, criterion, min_samples_leaf)
    return np.append(a[:-1], -t)  # t NaN (no valid split): no row goes right, a leaf


def _checked_test(X, coef, t, right):
    """``(coef, t)``, rescaled or moved so that it keeps the search's partition in X's units.

    The tests are stored in the input's units. When a sum ``coef @ x`` of the
    node's rows overflows (several columns near the largest float), ``coef``
    and ``t`` are divided by the power of two just above the number of
    features, which leaves the test unchanged and every projection below the
    largest ``|x|``. The rows' projections are then
    computed as :meth:`ObliqueTree.apply` computes them; where ``t`` does not
    send every row where the search sent it (rounding near the ends of the
    float range), the midpoint of the largest projection on the left and the
    smallest on the right replaces it. When the projections do not separate
    the two sides at all (columns 1e600 apart in scale, subnormal products,
    sums beyond the largest float) the fit is refused rather than stored wrong.
    """

    def project(coef):
        with np.errstate(over="ignore", under="ignore", invalid="ignore"):
            return np.einsum("ij,ij->i", X, np.tile(coef, (X.shape[0], 1)))

    projection = project(coef)
    if not np.isfinite(projection).all() and np.isfinite(X).all():
        shift = -int(np.ceil(np.log2(max(X.shape[1], 2))))
        coef, t = np.ldexp(coef, shift), float(np.ldexp(t, shift))
        projection = project(coef)
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
        return coef, t
    return coef, float(midpoint(left.max(), right_side.min()))


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
        check_int(self.max_stagnant_moves, "max_stagnant_moves", 0)
        check_int(self.min_samples_oblique, "min_samples_oblique", 1, allow_none=True)
        check_int(self.max_epochs, "max_epochs", 1)
        _check_float(self.min_impurity_decrease, "min_impurity_decrease")
        _check_float(self.ccp_alpha, "ccp_alpha")
        check_bool(self.standardize, "standardize")

    def _validate_X_y(self, X, y, sample_weight):
        X = validate_numbers(self, self._numbers(X), what="numbers only", dtype=np.float64)
        y = check_target(self, y, X.shape[0], stacklevel=4)  # the user's fit, through fit
        weights = check_sample_weight(sample_weight, X.shape[0])
        return X, y, weights

    _classifier = False

    def _numbers(self, X):
        """Numbers only, with every value present; the refusals name the column."""
        return numbers_only(
            X,
            type(self).__name__,
            categories_advice="one-hot encode it (pd.get_dummies or sklearn's OneHotEncoder) "
            "or drop it; CARTClassifier and C45Classifier split categories",
            missing_advice="impute them (sklearn.impute.SimpleImputer), or use a tree with a "
            "missing-value method such as CARTClassifier",
        )

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
            a = _clear_of_rows(Z[rows], a, stats[rows], self._criterion, self.min_samples_leaf)
            values = Z[rows] @ a[:-1] + a[-1]
            n_right = int((values > 0).sum())
            if min(n_right, rows.size - n_right) < max(self.min_samples_leaf, 1):
                continue
            coef, t = _input_units(a, mean, scale, exponent)
            if coef[np.argmax(np.abs(coef))] < 0 and (values != 0).all():
                # the same split, printed with its largest weight (input units) positive
                a, values = -a, -values
                coef, t = _input_units(a, mean, scale, exponent)
            right = values > 0
            nodes["coef"][node], nodes["t"][node] = _checked_test(X[rows], coef, t, right)
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

    def apply(self, X: MatrixLike) -> np.ndarray:
        """Index of the leaf each row reaches."""
        check_is_fitted(self, "tree_")
        X = validate_numbers(
            self, self._numbers(X), what="numbers only", reset=False, dtype=np.float64
        )
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
            smallest = self.min_samples_oblique
            if Z.shape[0] < (2 * Z.shape[1] + 1 if smallest is None else smallest):
                return _axis_parallel(Z, stats, self._criterion, leaf)
            return oc1_split(
                Z,
                stats,
                self._criterion,
                rng=rng,
                n_restarts=self.n_restarts,
                n_perturbations=self.n_perturbations,
                max_stagnant_moves=self.max_stagnant_moves,
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

    def _rebuild_caches(self) -> None:
        """Model files: check a loaded fitted state as a whole, then rebuild the caches."""
        from mltrees.tree._model_file import _rebuild_oblique

        _rebuild_oblique(self)

    def _drawable_tree(self, tree_index):
        """Tree ``tree_index`` with its labels, as ``plot_tree`` and ``to_dot`` draw it."""
        from mltrees.tree._drawable import single_drawable

        return single_drawable(self, tree_index)

    def _onnx_plan(self):
        """Oblique trees cannot be written: ONNX's ``TreeEnsemble`` tests one feature per node."""
        from mltrees.io.onnx_export import OnnxExportError

        raise OnnxExportError(
            f"{type(self).__name__} tests a weighted sum of features at each node; ONNX's "
            "TreeEnsemble tests one feature per node"
        )


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
    n_restarts : int, default 19
        OC1: random hyperplanes searched from after the axis-parallel start;
        with it 20 searches in all, the default of OC1 3.0, Murthy et al.'s
        program (``no_of_restarts = 20`` counts the first search).
    n_perturbations : int, default 5
        OC1: random directions tried at each local minimum (the paper's J;
        OC1 3.0's ``max_no_of_random_perturbations = 5``).
    max_stagnant_moves : int, default 10
        OC1: equal-cost coefficient moves in a row. Such a move is taken with
        a probability that starts at 1 after each improvement and falls by
        ``1 / max_stagnant_moves`` with each such move taken (the paper's
        P_stag schedule; OC1 3.0 takes up to 11 without a draw,
        ``MAX_NO_OF_STAGNANT_PERTURBATIONS = 10``).
        0 takes strict improvements only.
    min_samples_oblique : int or None, default None
        OC1: a node searches oblique hyperplanes only if it holds at least
        this many rows; smaller nodes take the best axis-parallel split.
        None means ``2 d + 1`` for ``d`` features, OC1 3.0's rule (no oblique
        search at nodes of at most ``2 d`` rows, ``TOO_SMALL_FOR_OBLIQUE_SPLIT``).
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

    Examples
    --------
    >>> import numpy as np
    >>> from mltrees import ObliqueTreeClassifier
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(200, 2))
    >>> y = (X[:, 0] + X[:, 1] > 0).astype(int)  # a diagonal boundary
    >>> tree = ObliqueTreeClassifier(random_state=0).fit(X, y)
    >>> tree.get_depth(), tree.score(X, y)  # one oblique test is enough
    (1, 1.0)
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
        n_restarts=19,
        n_perturbations=5,
        max_stagnant_moves=10,
        min_samples_oblique=None,
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
        self.max_stagnant_moves = max_stagnant_moves
        self.min_samples_oblique = min_samples_oblique
        self.max_epochs = max_epochs
        self.standardize = standardize
        self.ccp_alpha = ccp_alpha
        self.random_state = random_state

    @property
    def _criterion(self) -> str:
        return "gini" if self.criterion == "gini" else "entropy"

    def fit(self, X: MatrixLike, y: ArrayLike, sample_weight: ArrayLike | None = None) -> Self:
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

    def predict_proba(self, X: MatrixLike) -> np.ndarray:
        """Class fractions of the leaf each row reaches."""
        leaves = self.apply(X)
        return self.tree_.value[leaves]

    def predict(self, X: MatrixLike) -> np.ndarray:
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

    Examples
    --------
    >>> import numpy as np
    >>> from mltrees import ObliqueTreeRegressor
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(300, 2))
    >>> y = np.where(X[:, 0] - X[:, 1] > 0, 1.0, -1.0)
    >>> tree = ObliqueTreeRegressor(random_state=0).fit(X, y)
    >>> tree.get_depth(), round(tree.score(X, y), 3)
    (1, 1.0)
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
        n_restarts=19,
        n_perturbations=5,
        max_stagnant_moves=10,
        min_samples_oblique=None,
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
        self.max_stagnant_moves = max_stagnant_moves
        self.min_samples_oblique = min_samples_oblique
        self.max_epochs = max_epochs
        self.standardize = standardize
        self.ccp_alpha = ccp_alpha
        self.random_state = random_state

    def fit(self, X: MatrixLike, y: ArrayLike, sample_weight: ArrayLike | None = None) -> Self:
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

    def predict(self, X: MatrixLike) -> np.ndarray:
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
