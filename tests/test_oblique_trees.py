"""Oblique trees (chapter 8): OC1's closed-form step, the node learners and the estimators.

Expected values come from brute force (a grid over one coefficient), from
scikit-learn (the one-dimensional CART threshold, Fisher's discriminant) or
from the data's construction (a known hyperplane), never from the code under
test.
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from _estimator_checks import run_check
from sklearn.discriminant_analysis import LinearDiscriminantAnalysis
from sklearn.tree import DecisionTreeClassifier as SkTree
from sklearn.utils.estimator_checks import parametrize_with_checks

from mltrees import (
    CARTClassifier,
    ObliqueTreeClassifier,
    ObliqueTreeRegressor,
    entropy,
    export_text,
    gini,
    plot_tree,
    to_dot,
)
from mltrees.tree.oblique import (
    _cost,
    _StagnantMoves,
    best_coefficient_step,
    best_coefficient_steps,
    best_threshold,
    least_squares_direction,
    pocket_perceptron,
    staircase_error,
)


def _class_stats(y, n_classes, weights=None):
    w = np.ones(y.size) if weights is None else weights
    stats = np.zeros((y.size, n_classes + 1))
    stats[np.arange(y.size), y] = w
    stats[:, -1] = 1.0
    return stats


def _direct_cost(stats, right, criterion):
    """W_L I(L) + W_R I(R) from the book's impurity functions, one side at a time."""
    total = 0.0
    for side in (~right, right):
        counts = stats[side, :-1].sum(axis=0)
        if counts.sum() == 0:
            continue
        if criterion == "gini":
            total += counts.sum() * gini(counts, counts=True)
        elif criterion == "entropy":
            total += counts.sum() * entropy(counts, counts=True)
        else:  # squared error from (w, wy, wy^2): the weighted sum of squares about the mean
            w, wy, wy2 = counts
            total += wy2 - wy**2 / w
    return total


@pytest.mark.parametrize("criterion", ["gini", "entropy"])
def test_cost_matches_impurity_functions(criterion):
    rng = np.random.default_rng(1)
    counts = rng.integers(0, 20, size=(50, 3)).astype(float)
    stats = np.column_stack([counts, np.ones(50)])
    expected = [
        c.sum() * (gini(c, counts=True) if criterion == "gini" else entropy(c, counts=True))
        for c in counts
        if c.sum() > 0
    ]
    got = _cost(stats, criterion)[counts.sum(axis=1) > 0]
    np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("criterion", ["gini", "entropy", "squared_error"])
@pytest.mark.parametrize("seed", range(4))
def test_closed_form_step_equals_grid_search(criterion, seed):
    """The closed form of eq-oc1-u against a brute-force grid over the coefficient.

    V is a multiple of 1/4 and D is in {-2, -1, 0, 1, 2}, so every breakpoint
    U_j = -V_j / D_j is a multiple of 1/8: a grid of step 1/64 visits every
    interval between breakpoints. The search also keeps the current
    hyperplane (delta = 0), which may sit exactly on a breakpoint (V_j = 0
    puts row j on the non-positive side), so 0 joins the grid.
    """
    rng = np.random.default_rng(seed)
    n = 60
    V = rng.integers(-12, 13, n) / 4.0
    D = rng.choice([-2.0, -1.0, 0.0, 1.0, 2.0], n)
    if criterion == "squared_error":
        y = rng.normal(size=n)
        stats = np.column_stack([np.ones(n), y, y**2, np.ones(n)])
    else:
        stats = _class_stats(rng.integers(0, 3, n), 3)
    delta, cost = best_coefficient_step(V, D, stats, criterion)
    grid = np.append(np.arange(-8.0, 8.0, 1.0 / 64) + 1.0 / 128, 0.0)
    grid_costs = [_direct_cost(stats, V + g * D > 0, criterion) for g in grid]
    assert cost == pytest.approx(min(grid_costs), abs=1e-9)
    # The returned change really gives the returned cost.
    assert _direct_cost(stats, V + delta * D > 0, criterion) == pytest.approx(cost, abs=1e-9)


@pytest.mark.parametrize("seed", range(12))
def test_stagnant_step_moves_to_another_partition_of_the_same_cost(seed):
    """With an rng and no better interval, the step lands on another equal-cost partition.

    The data are those of the grid test (breakpoints on multiples of 1/8), so
    the grid lists the cost of every partition the coefficient can reach; the
    step's partition must be one of those tied with the current partition and
    differ from it, and without an rng the step stays put.
    """
    rng = np.random.default_rng(seed)
    n = 12
    D = rng.choice([-2.0, -1.0, 1.0, 2.0], n)
    stats = _class_stats(rng.integers(0, 2, n), 2)
    # Move V to the best reachable partition first: from there nothing improves.
    V = rng.integers(-12, 13, n) / 4.0
    delta, _ = best_coefficient_step(V, D, stats, "gini")
    V = V + delta * D
    U = -V / D  # multiples of 1/32 at worst: a 1/64 grid past both ends visits them all
    grid = np.arange(np.floor(U.min()) - 1, np.ceil(U.max()) + 1, 1.0 / 64) + 1.0 / 128
    current = _direct_cost(stats, V > 0, "gini")
    assert best_coefficient_step(V, D, stats, "gini")[0] == 0.0
    tied = [g for g in grid if abs(_direct_cost(stats, V + g * D > 0, "gini") - current) < 1e-9]
    others = [g for g in tied if not np.array_equal(V + g * D > 0, V > 0)]
    beta, cost = best_coefficient_step(
        V, D, stats, "gini", rng=np.random.default_rng(0), tolerance=1e-9
    )
    assert cost == pytest.approx(current, abs=1e-9)
    if not others:
        assert beta == 0.0
        return
    moved = V + beta * D > 0
    assert not np.array_equal(moved, V > 0)
    assert _direct_cost(stats, moved, "gini") == pytest.approx(current, abs=1e-9)


def test_some_stagnant_step_exists_on_a_plateau():
    """Small nodes with random labels often have several best partitions: the tie branch runs."""
    found = 0
    for seed in range(30):
        rng = np.random.default_rng(seed)
        V, D = rng.integers(-12, 13, 12) / 4.0, rng.choice([-2.0, -1.0, 1.0, 2.0], 12)
        stats = _class_stats(rng.integers(0, 2, 12), 2)
        V = V + best_coefficient_step(V, D, stats, "gini")[0] * D
        beta, _ = best_coefficient_step(V, D, stats, "gini", rng=rng, tolerance=1e-9)
        found += beta != 0.0
    assert found >= 4


class _Constant:
    """A stand-in for a Generator whose ``random(size)`` always returns ``u``."""

    def __init__(self, u):
        self.u = u

    def random(self, size):
        return np.full(size, self.u)


@pytest.mark.parametrize(("u", "taken"), [(0.0, 10), (0.55, 5), (0.95, 1), (0.999, 1)])
def test_stagnant_moves_follow_the_p_stag_schedule(u, taken):
    """P_move is 1, 0.9, ..., 0.1, then 0, lowered by each move taken (Murthy et al.):
    with uniform draw u, moves are taken while 1 - k / 10 > u, never more than 10
    in a row; a rejected proposal leaves P_move; an improvement (reset) makes
    them possible again."""
    schedule = _StagnantMoves(10, size=2)
    accepted = [
        bool(schedule.accept(_Constant(u), [0])[0]) for _ in range(15) if schedule.possible[0]
    ]
    assert accepted == [True] * taken + [False] * (len(accepted) - taken)
    assert schedule.possible[0] == (taken < 10)  # rejections do not use the schedule up
    assert schedule.p_move[0] == pytest.approx(1 - taken / 10)
    assert schedule.possible[1]  # each search has its own P_move
    assert schedule.p_move[1] == 1.0
    schedule.reset([0])
    assert schedule.possible[0]
    assert schedule.accept(_Constant(u), [0])[0]


def test_no_stagnant_moves_when_switched_off():
    schedule = _StagnantMoves(0, size=3)
    assert not schedule.possible.any()


@pytest.mark.parametrize("criterion", ["gini", "entropy", "squared_error"])
def test_steps_of_several_hyperplanes_each_equal_a_grid_search(criterion):
    """The batched step: each hyperplane (row) gets its own grid minimum, zeros included."""
    rng = np.random.default_rng(5)
    R, n = 6, 50
    V = rng.integers(-12, 13, (R, n)) / 4.0
    D = rng.choice([-2.0, -1.0, 0.0, 1.0, 2.0], (R, n))
    D[0] = 0.0  # a hyperplane whose rows never move
    if criterion == "squared_error":
        y = rng.normal(size=n)
        stats = np.column_stack([np.ones(n), y, y**2, np.ones(n)])
    else:
        stats = _class_stats(rng.integers(0, 3, n), 3)
    beta, cost, _, _ = best_coefficient_steps(V, D, stats, criterion)
    grid = np.append(np.arange(-8.0, 8.0, 1.0 / 64) + 1.0 / 128, 0.0)
    for r in range(R):
        best = min(_direct_cost(stats, V[r] + g * D[r] > 0, criterion) for g in grid)
        assert cost[r] == pytest.approx(best, abs=1e-9)
        assert _direct_cost(stats, V[r] + beta[r] * D[r] > 0, criterion) == pytest.approx(
            cost[r], abs=1e-9
        )
    assert beta[0] == 0.0


@pytest.mark.parametrize("centred", [False, True])
def test_staircase_error_is_the_share_of_a_grid_on_the_wrong_side(centred):
    centres = (np.arange(1600) + 0.5) / 1600
    x1, x2 = np.meshgrid(centres, centres)
    for q in (1, 2, 3, 5, 8):
        stair = (np.floor(x1 * q) + (0.5 if centred else 0.0)) / q
        share = np.mean((x2 > x1) != (x2 > stair))
        assert share == pytest.approx(staircase_error(q, centred=centred), abs=2e-3)
    with pytest.raises(ValueError, match="n_steps must be >= 1"):
        staircase_error(0)


def test_step_respects_min_samples_leaf():
    rng = np.random.default_rng(0)
    V = rng.normal(size=40)
    D = rng.normal(size=40)
    stats = _class_stats((V > 1.5).astype(int), 2)  # a pure split would leave ~3 rows
    delta, _ = best_coefficient_step(V, D, stats, "gini", min_samples_leaf=10)
    right = V + delta * D > 0
    assert min(right.sum(), (~right).sum()) >= 10


def test_threshold_is_scikit_learns_one_dimensional_cart():
    rng = np.random.default_rng(3)
    z = rng.normal(size=300).round(2)  # ties included
    y = (z + rng.normal(scale=0.7, size=300) > 0.3).astype(int)
    t, _ = best_threshold(z, _class_stats(y, 2), "gini")
    reference = SkTree(max_depth=1).fit(z[:, None], y).tree_.threshold[0]
    assert t == pytest.approx(reference, abs=1e-9)


def test_least_squares_direction_is_fishers_discriminant():
    rng = np.random.default_rng(4)
    cov = np.array([[2.0, 0.8, 0.0], [0.8, 1.0, 0.3], [0.0, 0.3, 0.5]])
    X = np.vstack(
        [
            rng.multivariate_normal([0, 0, 0], cov, 400),
            rng.multivariate_normal([1, -0.5, 0.4], cov, 300),
        ]
    )
    y = np.repeat([0, 1], [400, 300])
    w = least_squares_direction(X, np.where(y == 1, 1.0, -1.0))
    lda = LinearDiscriminantAnalysis(solver="lsqr").fit(X, y).coef_[0]
    cosine = w @ lda / np.linalg.norm(w) / np.linalg.norm(lda)
    assert cosine == pytest.approx(1.0, abs=1e-9)


def test_pocket_perceptron_separates_separable_data():
    rng = np.random.default_rng(5)
    X = rng.uniform(-1, 1, (400, 3))
    margin = X @ np.array([1.0, -2.0, 0.5]) - 0.2
    keep = np.abs(margin) > 0.1  # a positive margin: the perceptron converges
    X, z = X[keep], np.where(margin[keep] > 0, 1.0, -1.0)
    a = pocket_perceptron(X, z, max_epochs=5000)
    assert np.all(z * (X @ a[:-1] + a[-1]) > 0)


def _angle_degrees(u, v):
    cosine = abs(u @ v) / np.linalg.norm(u) / np.linalg.norm(v)
    return float(np.degrees(np.arccos(min(cosine, 1.0))))


@pytest.mark.parametrize("seed", range(5))
def test_oc1_finds_one_true_hyperplane(seed):
    """One internal node, and its normal within 3 degrees of the truth.

    Why 3 degrees: every hyperplane that separates the sample is an equally
    good split, so the learned normal can only be pinned down to the wedge
    that contains no training point. With n rows spread over the cube, a
    wedge of angle theta around the true plane holds about n * theta / 4 rows
    here, so empty wedges are a few times 4 / n = 0.002 rad (0.1 degree) wide;
    3 degrees leaves room for that and for features of unequal spread, while
    an axis-parallel split (tens of degrees away) or a wrong direction fails.
    """
    rng = np.random.default_rng(seed)
    normal = np.array([1.0, -2.0, 0.5])
    X = rng.uniform(-1, 1, (2000, 3)) * np.array([1.0, 3.0, 10.0])  # unequal scales
    y = (X @ (normal / [1.0, 3.0, 10.0]) > 0.3).astype(int)
    model = ObliqueTreeClassifier(random_state=seed).fit(X, y)
    assert model.tree_.node_count == 3
    assert _angle_degrees(model.tree_.coef[0], normal / [1.0, 3.0, 10.0]) < 3.0


def test_oc1_regressor_finds_one_true_hyperplane():
    rng = np.random.default_rng(7)
    X = rng.uniform(-1, 1, (1500, 2))
    normal = np.array([2.0, 1.0])
    y = np.where(X @ normal > 0.5, 3.0, -1.0)
    model = ObliqueTreeRegressor(random_state=0).fit(X, y)
    assert model.tree_.node_count == 3
    assert _angle_degrees(model.tree_.coef[0], normal) < 3.0


def test_small_nodes_take_axis_parallel_splits():
    """OC1 3.0 searches oblique hyperplanes only at nodes of more than 2 d rows."""
    X, y = _rotated_problem(0, 400)
    model = ObliqueTreeClassifier(random_state=0).fit(X, y)
    tree = model.tree_
    internal = tree.feature >= 0
    oblique = (np.abs(tree.coef) > 0).sum(axis=1) > 1
    small = tree.n_node_samples <= 2 * X.shape[1]
    assert (internal & small).any()  # the check is not empty
    assert not (oblique & small).any()
    assert (oblique & internal & ~small).any()
    nowhere = ObliqueTreeClassifier(min_samples_oblique=10**9, random_state=0).fit(X, y).tree_
    assert ((np.abs(nowhere.coef) > 0).sum(axis=1) <= 1).all()


def test_an_axis_parallel_split_is_kept_unless_an_oblique_one_is_better():
    """A node whose best axis-parallel split is pure keeps it: no oblique test of equal cost."""
    rng = np.random.default_rng(0)
    X = rng.uniform(-1, 1, (300, 3))
    y = (X[:, 1] > 0.2).astype(int)
    model = ObliqueTreeClassifier(random_state=0).fit(X, y)
    assert model.tree_.node_count == 3
    coef = model.tree_.coef[0]
    assert np.count_nonzero(coef) == 1
    assert coef[1] != 0


def test_default_search_is_at_least_as_good_as_the_former_one_on_rotated_tables():
    """OC1 3.0's defaults (20 searches, stagnant moves) against 3 searches and strict moves.

    Paired over the ten folds of the rotated wine table: the defaults' mean
    accuracy is not lower by more than two standard errors of the paired
    difference (benchmarks/bench_oblique.py --rotated measures the gain).
    """
    from scipy.stats import ortho_group
    from sklearn.datasets import load_wine
    from sklearn.model_selection import StratifiedKFold

    X, y = load_wine(return_X_y=True)
    Z = (X - X.mean(axis=0)) / X.std(axis=0) @ ortho_group.rvs(X.shape[1], random_state=0)
    former = {"n_restarts": 2, "max_stagnant_moves": 0, "min_samples_oblique": 1}
    gaps = []
    folds = StratifiedKFold(10, shuffle=True, random_state=0).split(Z, y)
    for f, (train, test) in enumerate(folds):
        new = ObliqueTreeClassifier(min_samples_leaf=5, random_state=f).fit(Z[train], y[train])
        old = ObliqueTreeClassifier(min_samples_leaf=5, random_state=f, **former)
        old.fit(Z[train], y[train])
        gaps.append(new.score(Z[test], y[test]) - old.score(Z[test], y[test]))
    gaps = np.array(gaps)
    assert gaps.mean() >= -2 * max(gaps.std(ddof=1) / np.sqrt(gaps.size), 1e-3)


def _rotated_problem(seed, n):
    """Two classes split by a line at 30 degrees to the axes, 5% label noise."""
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1, 1, (n, 2))
    angle = np.radians(30)
    y = (X @ np.array([np.cos(angle), np.sin(angle)]) > 0.1).astype(int)
    flip = rng.random(n) < 0.05
    return X, np.where(flip, 1 - y, y)


@pytest.mark.parametrize("depth", [2, 4])
def test_oc1_beats_cart_of_the_same_depth_on_rotated_data(depth):
    wins, gaps = 0, []
    for seed in range(5):
        X, y = _rotated_problem(seed, 600)
        X_test, y_test = _rotated_problem(100 + seed, 4000)
        oc1 = ObliqueTreeClassifier(max_depth=depth, random_state=seed).fit(X, y)
        cart = CARTClassifier(max_depth=depth).fit(X, y)
        gap = oc1.score(X_test, y_test) - cart.score(X_test, y_test)
        wins += gap > 0
        gaps.append(gap)
    assert wins == 5
    assert np.mean(gaps) > 0.02


@pytest.mark.parametrize(
    "params",
    [
        {"n_restarts": 0, "n_perturbations": 0, "max_stagnant_moves": 0},
        {"splitter": "least_squares"},
    ],
    ids=["deterministic-oc1", "least-squares"],
)
def test_scale_free_learners_do_not_depend_on_feature_scales(params):
    """Deterministic OC1 (exact on each coordinate) and least squares need no standardising."""
    rng = np.random.default_rng(8)
    X = rng.normal(size=(500, 4)) @ rng.normal(size=(4, 4))
    y = (X[:, 0] - X[:, 1] + 0.5 * X[:, 2] + rng.normal(scale=0.5, size=500) > 0).astype(int)
    scales = np.array([1e-3, 1.0, 50.0, 1e4])
    a = ObliqueTreeClassifier(max_depth=3, standardize=False, **params).fit(X, y)
    b = ObliqueTreeClassifier(max_depth=3, standardize=False, **params).fit(X * scales, y)
    X_new = rng.normal(size=(2000, 4)) @ rng.normal(size=(4, 4))
    agree = np.mean(a.predict(X_new) == b.predict(X_new * scales))
    assert agree > 0.995


def test_perceptron_depends_on_feature_scales_unless_standardised():
    rng = np.random.default_rng(8)
    X = rng.normal(size=(500, 4)) @ rng.normal(size=(4, 4))
    y = (X[:, 0] - X[:, 1] + 0.5 * X[:, 2] + rng.normal(scale=0.5, size=500) > 0).astype(int)
    scales = np.array([1e-3, 1.0, 50.0, 1e4])
    X_new = rng.normal(size=(2000, 4)) @ rng.normal(size=(4, 4))
    raw = [
        ObliqueTreeClassifier(max_depth=3, splitter="perceptron", standardize=False).fit(Xs, y)
        for Xs in (X, X * scales)
    ]
    assert np.mean(raw[0].predict(X_new) != raw[1].predict(X_new * scales)) > 0.01


def test_standardised_search_does_not_depend_on_feature_scales():
    rng = np.random.default_rng(9)
    X = rng.normal(size=(500, 4)) @ rng.normal(size=(4, 4))
    y = (X[:, 0] - X[:, 1] + rng.normal(scale=0.5, size=500) > 0).astype(int)
    scales = np.array([1e-3, 1.0, 50.0, 1e4])
    a = ObliqueTreeClassifier(max_depth=3, splitter="perceptron").fit(X, y)
    b = ObliqueTreeClassifier(max_depth=3, splitter="perceptron").fit(X * scales, y)
    X_new = rng.normal(size=(2000, 4)) @ rng.normal(size=(4, 4))
    assert np.mean(a.predict(X_new) == b.predict(X_new * scales)) > 0.995


def test_a_hyperplane_through_a_row_gets_the_best_threshold_on_its_direction(monkeypatch):
    # The local search can stop on a hyperplane through a row (|V| ~ 1e-16 on
    # adult's six numeric columns, 24,420 rows): the row's side was then decided
    # by rounding, and the fit failed ("zero-size array" or "cannot be written in
    # its units"). Such a hyperplane keeps its direction and takes the best
    # threshold on it; here the direction is x_0, so the root must split the
    # rows as scikit-learn's stump on x_0 does.
    rng = np.random.default_rng(4)
    X = rng.normal(size=(200, 2))
    y = (X[:, 0] + rng.normal(scale=0.7, size=200) > 0.3).astype(int)

    def through_row_7(self, Z, stats, rng):
        a = np.array([1.0, 0.0, -Z[7, 0] * (1 + np.finfo(float).eps)])
        assert abs(Z[7, 0] + a[2]) < 1e-15  # the row lies on the hyperplane
        return a, 0.0

    monkeypatch.setattr(ObliqueTreeClassifier, "_split_node", through_row_7)
    tree = ObliqueTreeClassifier(max_depth=1).fit(X, y)
    stump = SkTree(max_depth=1).fit(X[:, :1], y)
    ours = tree.apply(X) == tree.apply(X).max()
    theirs = stump.apply(X[:, :1]) == stump.apply(X[:, :1]).max()
    assert tree.tree_.node_count == 3
    np.testing.assert_array_equal(ours, theirs)


def test_ccp_pruning_shrinks_the_tree():
    X, y = _rotated_problem(0, 800)
    sizes = [
        ObliqueTreeClassifier(ccp_alpha=alpha, random_state=0).fit(X, y).tree_.node_count
        for alpha in (0.0, 0.002, 0.01, 1.0)
    ]
    assert sizes == sorted(sizes, reverse=True)
    assert sizes[0] > sizes[2]
    assert sizes[-1] == 1


def test_export_text_prints_the_weighted_sum():
    X, y = _rotated_problem(1, 1000)
    y = (X @ np.array([1.0, 1.0]) > 0.5).astype(int)  # noiseless: one test a + b <= 0.5
    model = ObliqueTreeClassifier(random_state=0).fit(X, y)
    text = export_text(model, feature_names=["a", "b"], decimals=2)
    number = r"(-?[0-9.]+)"
    left = re.findall(rf"^\|--- {number}\*a \+ {number}\*b <= {number}$", text, re.M)
    right = re.findall(rf"^\|--- {number}\*a \+ {number}\*b >  {number}$", text, re.M)
    assert len(left) == len(right) == 1, text
    assert left == right
    np.testing.assert_allclose(np.array(left[0], dtype=float), [1.0, 1.0, 0.5], atol=0.03)


def test_export_text_keeps_small_weights_on_large_units():
    rng = np.random.default_rng(6)
    X = rng.uniform(-1, 1, (1000, 2)) * np.array([1.0, 1000.0])
    y = (X[:, 0] + X[:, 1] / 1000 > 0).astype(int)  # weight 0.001 on the second feature
    text = export_text(ObliqueTreeClassifier(random_state=0).fit(X, y), decimals=2)
    weight = re.search(r"\+ ([0-9.e-]+)\*feature_1 <=", text)
    assert weight is not None, text
    assert float(weight.group(1)) == pytest.approx(0.001, rel=0.05)


def test_to_dot_labels_nodes_with_weighted_sums():
    X, y = _rotated_problem(3, 400)
    dot = to_dot(ObliqueTreeClassifier(max_depth=1, random_state=0).fit(X, y))
    assert re.search(r'0 \[label="-?[0-9.e-]+\*feature_0 [+-] [0-9.e-]+\*feature_1\\n', dot), dot


def test_plot_tree_draws_an_oblique_tree():
    import matplotlib

    matplotlib.use("Agg")
    X, y = _rotated_problem(2, 500)
    ax = plot_tree(ObliqueTreeClassifier(max_depth=2, random_state=0).fit(X, y))
    boxes = [t for t in ax.texts if t.get_bbox_patch() is not None]
    assert len(boxes) >= 3
    assert "*" in boxes[0].get_text()


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"splitter": "cart"}, "splitter must be one of"),
        ({"criterion": "squared_error"}, "criterion must be one of"),
        ({"max_depth": 0}, "max_depth must be an int >= 1"),
        ({"min_samples_leaf": 0}, "min_samples_leaf must be an int >= 1"),
        ({"n_restarts": -1}, "n_restarts must be an int >= 0"),
        ({"n_perturbations": 1.5}, "n_perturbations must be an int >= 0"),
        ({"max_stagnant_moves": -1}, "max_stagnant_moves must be an int >= 0"),
        ({"min_samples_oblique": 0}, "min_samples_oblique must be an int >= 1"),
        ({"ccp_alpha": -1.0}, "ccp_alpha must be a float >= 0"),
    ],
)
def test_bad_parameters_are_named(params, message):
    X, y = _rotated_problem(0, 50)
    with pytest.raises(ValueError, match=message):
        ObliqueTreeClassifier(**params).fit(X, y)


def test_perceptron_regressor_is_refused():
    X, y = _rotated_problem(0, 50)
    with pytest.raises(ValueError, match="perceptron separates two classes"):
        ObliqueTreeRegressor(splitter="perceptron").fit(X, y.astype(float))


def test_bad_data_is_refused():
    X, y = _rotated_problem(0, 50)
    with pytest.raises(TypeError, match="standardize must be True or False"):
        ObliqueTreeClassifier(standardize="yes").fit(X, y)
    X_nan = X.copy()
    X_nan[3, 1] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        ObliqueTreeClassifier().fit(X_nan, y)
    with pytest.raises(ValueError, match="could not convert"):
        ObliqueTreeClassifier().fit(np.array([["a", "b"]] * 50), y)
    with pytest.raises(ValueError, match="Unknown label type"):
        ObliqueTreeClassifier().fit(X, X[:, 0])
    model = ObliqueTreeClassifier(max_depth=2).fit(X, y)
    with pytest.raises(ValueError, match="features"):
        model.predict(X[:, :1])


ESTIMATORS = [
    ObliqueTreeClassifier(random_state=0),
    ObliqueTreeClassifier(splitter="least_squares"),
    ObliqueTreeClassifier(splitter="perceptron", criterion="entropy"),
    ObliqueTreeRegressor(random_state=0),
    ObliqueTreeRegressor(splitter="least_squares", ccp_alpha=0.01),
]


def _expected(estimator) -> dict[str, str]:
    return {}


@parametrize_with_checks(ESTIMATORS, expected_failed_checks=_expected, xfail_strict=True)
def test_sklearn_estimator_checks(estimator, check):
    run_check(estimator, check, {})
