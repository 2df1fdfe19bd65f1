"""XGBoost (chapter 13): the regularised objective, the histogram learner, and the estimators.

Cross-checks against the ``xgboost`` package follow its measured rules
(float32 data and gradients, ``x < cut`` tests, ``gamma`` against the
un-halved gain during growth in ``hist``): on features with at most
``max_bin`` distinct values both learners see the same candidate cuts, so
trees and margins must agree to float32 rounding (rtol 1e-5).
"""

from __future__ import annotations

import numpy as np
import pytest
from _reference_models import xgboost_trees
from sklearn.datasets import load_breast_cancer, load_diabetes, load_digits, load_iris, load_wine

from mltrees import XGBoostClassifier, XGBoostRegressor
from mltrees.hist.binning import BinnedData, fit_cuts, weighted_quantile_cuts
from mltrees.hist.grower import DepthwiseGrower, leaf_values, segment_positions, stable_partition
from mltrees.hist.histogram import GROUPS_PER_PASS, build_histograms
from mltrees.hist.processes import can_fork
from mltrees.hist.xgboost import exact, exact_scan
from mltrees.hist.xgboost.exact import ExactGrower, NodePartition, SortedColumns
from mltrees.hist.xgboost.splitting import (
    SplitParams,
    find_best_splits,
    gain_given_weight,
    gain_table,
    leaf_weight,
    node_score,
    split_gain,
)

xgb = pytest.importorskip("xgboost")

RTOL = 1e-5
XGB_NAMES = {"reg_lambda": "lambda", "reg_alpha": "alpha", "learning_rate": "eta"}


def _few_values(X, digits=2):
    """Round every column to ``digits`` significant digits of its range: <= ~256 values each."""
    X = np.asarray(X, dtype=np.float64)
    out = np.empty_like(X)
    for j in range(X.shape[1]):
        spread = np.ptp(X[:, j]) or 1.0
        out[:, j] = np.round(X[:, j], digits - int(np.floor(np.log10(spread))))
    assert max(np.unique(c).size for c in out.T) <= 256
    return out


def _data(name):
    if name == "diabetes":
        X, y = load_diabetes(return_X_y=True)
        return _few_values(X), y
    if name == "breast_cancer":
        X, y = load_breast_cancer(return_X_y=True)
        return _few_values(X), y
    if name == "wine":
        X, y = load_wine(return_X_y=True)
        return _few_values(X), y
    if name == "iris":
        return load_iris(return_X_y=True)
    if name == "digits":
        X, y = load_digits(return_X_y=True)
        return X[:600], y[:600]
    raise KeyError(name)


def _xgb_margin(X, y, objective, rounds, params, X_eval=None, **extra):
    booster_params = {
        "objective": objective,
        "tree_method": "hist",
        "max_bin": 256,
        "nthread": 1,
        **{XGB_NAMES.get(k, k): v for k, v in params.items()},
        **extra,
    }
    booster = xgb.train(booster_params, xgb.DMatrix(X, label=y), num_boost_round=rounds)
    X_eval = X if X_eval is None else X_eval
    return booster, booster.predict(xgb.DMatrix(X_eval), output_margin=True)


def _with_nan(X, share, seed):
    X = X.copy()
    X[np.random.default_rng(seed).random(X.shape) < share] = np.nan
    return X


# ----------------------------------------------------------------------------
# The objective of one leaf: w* and the gain against brute force
# ----------------------------------------------------------------------------


def _objective(w, G, H, lam, alpha):
    """Second-order objective of a leaf of weight w: G w + (H + lam) w^2 / 2 + alpha |w|."""
    return G * w + 0.5 * (H + lam) * w * w + alpha * np.abs(w)


@pytest.mark.parametrize("alpha", [0.0, 0.7])
@pytest.mark.parametrize("lam", [0.0, 1.0, 5.0])
def test_leaf_weight_minimises_the_second_order_objective(lam, alpha):
    rng = np.random.default_rng(0)
    g = rng.normal(size=(200, 30))
    h = rng.random((200, 30)) + 0.05
    G, H = g.sum(axis=1), h.sum(axis=1)
    params = SplitParams(reg_lambda=lam, reg_alpha=alpha, float32=False)
    w = leaf_weight(G, H, params)
    grid = np.linspace(-3, 3, 120001)  # step 5e-5
    values = _objective(grid[None, :], G[:, None], H[:, None], lam, alpha)
    brute = grid[np.argmin(values, axis=1)]
    np.testing.assert_allclose(w, brute, atol=5e-5)
    # The score is twice the decrease from w = 0: -2 * objective(w*).
    np.testing.assert_allclose(
        node_score(G, H, params), -2 * _objective(w, G, H, lam, alpha), rtol=1e-12
    )
    if alpha == 0:
        np.testing.assert_allclose(node_score(G, H, params), G**2 / (H + lam), rtol=1e-12)


def test_max_delta_step_clips_the_weight_and_scores_the_clipped_weight():
    rng = np.random.default_rng(1)
    G = rng.normal(scale=20, size=500)
    H = rng.random(500) * 5 + 0.1
    params = SplitParams(reg_lambda=1.0, max_delta_step=0.8, float32=False)
    w = leaf_weight(G, H, params)
    assert np.all(np.abs(w) <= 0.8)
    grid = np.linspace(-0.8, 0.8, 16001)
    values = _objective(grid[None, :], G[:, None], H[:, None], 1.0, 0.0)
    np.testing.assert_allclose(w, grid[np.argmin(values, axis=1)], atol=1e-4)
    clipped = np.abs(-G / (H + 1.0)) > 0.8
    assert clipped.any()
    assert (~clipped).any()
    # -(2 G w + (H + lambda) w^2) at the clipped weight, not G^2 / (H + lambda).
    np.testing.assert_allclose(
        gain_given_weight(G, H, w, params), -(2 * G * w + (H + 1.0) * w * w), rtol=1e-12
    )
    assert np.all(node_score(G, H, params)[clipped] < (G**2 / (H + 1.0))[clipped])


def test_split_gain_is_the_decrease_of_the_objective_by_brute_force():
    rng = np.random.default_rng(2)
    g = rng.normal(size=60)
    h = rng.random(60) + 0.1
    lam = 2.0
    params = SplitParams(reg_lambda=lam, min_child_weight=0.0, float32=False)
    best_leaf = np.linspace(-5, 5, 200001)

    def min_objective(mask):
        values = _objective(best_leaf, g[mask].sum(), h[mask].sum(), lam, 0.0)
        return values.min()

    left = rng.random(60) < 0.4
    brute = 2 * (min_objective(np.ones(60, bool)) - min_objective(left) - min_objective(~left))
    gain = split_gain(
        g[left].sum(),
        h[left].sum(),
        g[~left].sum(),
        h[~left].sum(),
        node_score(g.sum(), h.sum(), params),
        params,
    )
    np.testing.assert_allclose(gain, brute, rtol=1e-6)


def test_min_child_weight_bounds_the_hessian_of_both_children():
    params = SplitParams(min_child_weight=3.0, float32=False)
    parent = node_score(1.0, 10.0, params)
    assert split_gain(5.0, 3.0, -4.0, 7.0, parent, params) > 0  # 3 >= 3: allowed
    assert split_gain(5.0, 2.9, -4.0, 7.1, parent, params) == -np.inf


# ----------------------------------------------------------------------------
# Stages of the learner
# ----------------------------------------------------------------------------


def test_subtraction_trick_equals_building_the_larger_child():
    rng = np.random.default_rng(3)
    X = rng.integers(0, 40, size=(3000, 6)).astype(np.float32)
    X[rng.random(X.shape) < 0.1] = np.nan
    data = BinnedData.fit(X, 32)
    g, h = rng.normal(size=3000), rng.random(3000)
    parent = build_histograms(data.codes, data.stride, (g, h))[0]
    left = np.flatnonzero(rng.random(3000) < 0.3)
    right = np.setdiff1d(np.arange(3000), left)
    order = np.concatenate([left, right])
    built_left, built_right = build_histograms(
        data.codes,
        data.stride,
        (g, h),
        order,
        np.array([0, left.size]),
        np.array([left.size, right.size]),
    )
    np.testing.assert_allclose(parent - built_left, built_right, atol=1e-10)
    # Many groups take the keyed single pass: same sums as slices.
    starts = np.arange(0, 3000, 100)
    counts = np.full(starts.size, 100)
    many = build_histograms(data.codes, data.stride, (g, h), order, starts, counts)
    assert starts.size > GROUPS_PER_PASS
    for q in (0, 7, 29):
        rows = order[starts[q] : starts[q] + 100]
        one = build_histograms(
            data.codes, data.stride, (g, h), rows, np.array([0]), np.array([100])
        )
        np.testing.assert_allclose(many[q], one[0], atol=1e-10)
    # And a histogram is the brute-force sum per bin.
    j, b = 2, 5
    in_bin = data.codes[j] == b
    np.testing.assert_allclose(parent[j, b], [g[in_bin].sum(), h[in_bin].sum()])


def test_stable_partition_keeps_each_side_in_order():
    rng = np.random.default_rng(4)
    order = rng.permutation(1000)
    starts = np.array([0, 100, 400, 950])
    counts = np.array([100, 250, 0, 50])
    positions, segment = segment_positions(starts, counts)
    go_left = rng.random(positions.size) < 0.5
    before = order.copy()
    n_left = stable_partition(order, starts, counts, go_left, positions, segment)
    for s, (start, count) in enumerate(zip(starts, counts, strict=True)):
        old = before[start : start + count]
        mask = go_left[segment == s]
        assert n_left[s] == mask.sum()
        np.testing.assert_array_equal(order[start : start + count], np.r_[old[mask], old[~mask]])
    untouched = np.setdiff1d(np.arange(1000), positions)
    np.testing.assert_array_equal(order[untouched], before[untouched])


def test_cuts_give_every_value_a_bin_up_to_max_bin_then_weighted_quantiles():
    values = np.array([3, 1, 2, 2, 5, np.nan], dtype=np.float32)
    cuts = fit_cuts(values, 256)
    np.testing.assert_array_equal(cuts[:-1], [2, 3, 5])  # all values but the smallest
    assert cuts[-1] > 5
    data = BinnedData.fit(values[:, None], 256)
    np.testing.assert_array_equal(data.codes[0], [2, 0, 1, 1, 3, data.missing_code])
    # Above max_bin: each bin holds about 1/max_bin of the weight.
    rng = np.random.default_rng(5)
    x = rng.normal(size=20000).astype(np.float32)
    w = rng.random(20000) * 3
    cuts = weighted_quantile_cuts(x, w, 10)
    shares = np.bincount(np.searchsorted(cuts, x, side="right"), weights=w) / w.sum()
    np.testing.assert_allclose(shares, 0.1, atol=0.002)


def test_best_split_prefers_lower_feature_then_earlier_cut_at_ties():
    # Features 0 and 1 are copies: equal gains, feature 0 must win.
    rng = np.random.default_rng(6)
    x = rng.integers(0, 10, 500).astype(np.float32)
    X = np.column_stack([x, x])
    data = BinnedData.fit(X, 256)
    g = np.where(x < 5, -1.0, 1.0)
    h = np.ones(500)
    hist = build_histograms(data.codes, data.stride, (g, h))
    best = find_best_splits(hist, np.array([[g.sum(), h.sum()]]), data.n_bins, SplitParams())
    assert best.feature[0] == 0
    assert best.split_bin[0] == 4  # bins 0..4 hold values 0..4


# ----------------------------------------------------------------------------
# Against the xgboost package
# ----------------------------------------------------------------------------

REGULARISATIONS = [
    {},
    {"reg_lambda": 0.0, "min_child_weight": 0.0},
    {"reg_lambda": 5.0, "reg_alpha": 2.0},
    {"gamma": 2000.0},
    {"min_child_weight": 20.0},
    {"max_delta_step": 5.0},
]


@pytest.mark.parametrize("extra", REGULARISATIONS, ids=lambda d: "-".join(d) or "default")
def test_regression_margins_equal_xgboost_hist_on_diabetes(extra):
    X, y = _data("diabetes")
    params = {"learning_rate": 0.3, "max_depth": 4, "base_score": 150.0, **extra}
    booster, expected = _xgb_margin(X, y, "reg:squarederror", 25, params)
    model = XGBoostRegressor(n_estimators=25, **params).fit(X, y)
    np.testing.assert_allclose(model.predict(X, output_margin=True), expected, rtol=RTOL, atol=1e-4)
    _assert_same_trees(booster, model, leaf_atol=1e-4)


@pytest.mark.parametrize(
    "extra",
    [{}, {"reg_alpha": 1.0, "gamma": 1.0}, {"reg_lambda": 0.1, "min_child_weight": 2.0}],
    ids=lambda d: "-".join(d) or "default",
)
@pytest.mark.parametrize("missing", [0.0, 0.2])
def test_logistic_margins_equal_xgboost_hist_on_breast_cancer(extra, missing):
    X, y = _data("breast_cancer")
    X = _with_nan(X, missing, seed=7)
    params = {"learning_rate": 0.3, "max_depth": 4, "base_score": 0.5, **extra}
    booster, expected = _xgb_margin(X, y, "binary:logistic", 25, params)
    model = XGBoostClassifier(n_estimators=25, **params).fit(X, y)
    np.testing.assert_allclose(model.decision_function(X), expected, rtol=RTOL, atol=1e-5)
    # With 20 % missing, tree 7 has a float32 tie: 'mean smoothness < 0.163' and
    # '< 0.326' (all known values left) both gain 0.86148834 at node 1, and the
    # libraries' summation orders pick different ones; a row with NaN goes right
    # under both, so margins agree. Thresholds are compared without missing values.
    _assert_same_trees(booster, model, cuts=missing == 0)
    # New rows with NaN follow the learned default directions in both.
    X_new = _with_nan(_data("breast_cancer")[0], 0.3, seed=8)
    np.testing.assert_allclose(
        model.decision_function(X_new),
        booster.predict(xgb.DMatrix(X_new), output_margin=True),
        rtol=RTOL,
        atol=1e-5,
    )


def test_logistic_with_max_delta_step_equals_xgboost_until_a_float32_tie():
    """With clipped weights, cuts of a feature often tie exactly in float32.

    Both libraries then take the first cut of the scan, but their sums of
    float32 gradients differ in the last bits (summation order), which can
    reorder tied cuts: on breast cancer with ``max_delta_step=0.5`` the trees
    are equal for 6 rounds and round 7's root picks ``worst area < 880``
    (mltrees) or ``< 890`` (xgboost), whose float32 gains are equal.
    """
    X, y = _data("breast_cancer")
    params = {"learning_rate": 0.3, "max_depth": 4, "base_score": 0.5, "max_delta_step": 0.5}
    _, expected = _xgb_margin(X, y, "binary:logistic", 6, params)
    model = XGBoostClassifier(n_estimators=6, **params).fit(X, y)
    np.testing.assert_allclose(model.decision_function(X), expected, rtol=RTOL, atol=1e-5)


@pytest.mark.parametrize("name", ["iris", "wine", "digits"])
def test_softmax_margins_equal_xgboost_hist(name):
    X, y = _data(name)
    K = len(np.unique(y))
    params = {"learning_rate": 0.3, "max_depth": 3, "base_score": 0.5}
    _, expected = _xgb_margin(X, y, "multi:softprob", 10, params, num_class=K)
    model = XGBoostClassifier(n_estimators=10, **params).fit(X, y)
    np.testing.assert_allclose(model.decision_function(X), expected, rtol=RTOL, atol=1e-5)


def test_poisson_margins_equal_xgboost_hist():
    X, _ = _data("diabetes")
    rng = np.random.default_rng(9)
    y = rng.poisson(np.exp(1 + 3 * X[:, 2] + 2 * X[:, 8]))
    params = {"learning_rate": 0.3, "max_depth": 3, "base_score": float(y.mean())}
    _, expected = _xgb_margin(X, y, "count:poisson", 20, params)
    model = XGBoostRegressor(objective="count:poisson", n_estimators=20, **params).fit(X, y)
    np.testing.assert_allclose(model.predict(X, output_margin=True), expected, rtol=RTOL, atol=1e-5)
    np.testing.assert_allclose(model.predict(X), np.exp(expected), rtol=1e-4)


def test_sample_weights_equal_xgboost_hist():
    X, y = _data("breast_cancer")
    w = np.random.default_rng(10).random(len(y)) * 2
    params = {"learning_rate": 0.3, "max_depth": 3, "base_score": 0.5}
    booster = xgb.train(
        {
            "objective": "binary:logistic",
            "tree_method": "hist",
            "nthread": 1,
            "eta": 0.3,
            "max_depth": 3,
            "base_score": 0.5,
        },
        xgb.DMatrix(X, label=y, weight=w),
        num_boost_round=15,
    )
    model = XGBoostClassifier(n_estimators=15, **params).fit(X, y, sample_weight=w)
    np.testing.assert_allclose(
        model.decision_function(X),
        booster.predict(xgb.DMatrix(X), output_margin=True),
        rtol=RTOL,
        atol=1e-5,
    )


def _assert_same_trees(booster, model, leaf_atol=1e-6, cuts=True):
    """Same shape, split features, thresholds, default directions and leaves, tree by tree.

    Leaves are compared to ``leaf_atol``: a leaf sums residuals that nearly
    cancel, so its relative error can exceed the margins' (diabetes margins
    are ~150 and agree to 1e-5 relative; its leaves to ~2e-6 absolute).
    """
    ours = [tree for stage in model._trees for tree in stage]
    theirs = xgboost_trees(booster)
    assert len(ours) == len(theirs)
    for tree, nodes in zip(ours, theirs, strict=True):
        assert tree.node_count == len(nodes)
        pairs = [(0, 0)]
        while pairs:
            i, j = pairs.pop()
            node = nodes[j]
            if "leaf" in node:
                assert tree.feature[i] == -1
                np.testing.assert_allclose(
                    tree.value[i, 0], node["leaf"], rtol=1e-5, atol=leaf_atol
                )
                continue
            assert tree.feature[i] == int(node["split"][1:])
            cut = np.nextafter(np.float64(tree.threshold[i]), np.inf)  # x <= t  <=>  x < cut
            assert not cuts or np.float32(cut) == np.float32(node["split_condition"])
            default_left = node["missing"] == node["yes"]
            assert tree.missing_slot[i] == (0 if default_left else 1)
            left, right = tree.first_child[i], tree.first_child[i] + 1
            pairs += [(left, node["yes"]), (right, node["no"])]


# ----------------------------------------------------------------------------
# The estimators as users meet them
# ----------------------------------------------------------------------------


def test_staged_predictions_end_at_the_prediction_and_margins_are_consistent():
    X, y = _data("wine")
    model = XGBoostClassifier(n_estimators=12, max_depth=2, random_state=0).fit(X, y)
    stages = list(model.staged_predict_proba(X))
    assert len(stages) == 12
    np.testing.assert_allclose(stages[-1], model.predict_proba(X), rtol=1e-12)
    margin = model.predict(X, output_margin=True)
    np.testing.assert_allclose(margin, model.decision_function(X))
    e = np.exp(margin - margin.max(axis=1, keepdims=True))
    np.testing.assert_allclose(model.predict_proba(X), e / e.sum(axis=1, keepdims=True))
    np.testing.assert_array_equal(model.predict(X), model.classes_[margin.argmax(axis=1)])


def test_early_stopping_keeps_the_best_round():
    X, y = _data("breast_cancer")
    X_train, y_train, X_val, y_val = X[:400], y[:400], X[400:], y[400:]
    model = XGBoostClassifier(
        n_estimators=300, learning_rate=0.5, max_depth=4, early_stopping_rounds=5
    ).fit(X_train, y_train, eval_set=[(X_val, y_val)])
    history = model.evals_result_["validation_0"]["logloss"]
    assert model.n_estimators_ < 300
    assert len(history) == model.n_estimators_
    assert model.best_iteration == int(np.argmin(history))
    assert model.n_estimators_ == model.best_iteration + 6
    # Predictions use the best round, as xgboost's scikit-learn interface does.
    best = model.predict_proba(X_val, iteration_range=(0, model.best_iteration + 1))
    np.testing.assert_allclose(model.predict_proba(X_val), best)
    p = best[:, 1]
    logloss = -np.mean(y_val * np.log(p) + (1 - y_val) * np.log(1 - p))
    assert logloss == pytest.approx(history[model.best_iteration], rel=1e-9)


def test_subsampling_is_seeded_and_changes_the_trees():
    X, y = _data("diabetes")
    kwargs = {
        "n_estimators": 10,
        "subsample": 0.5,
        "colsample_bytree": 0.5,
        "colsample_bynode": 0.5,
    }
    a = XGBoostRegressor(random_state=1, **kwargs).fit(X, y).predict(X)
    b = XGBoostRegressor(random_state=1, **kwargs).fit(X, y).predict(X)
    c = XGBoostRegressor(random_state=2, **kwargs).fit(X, y).predict(X)
    np.testing.assert_array_equal(a, b)
    assert not np.allclose(a, c)
    full = XGBoostRegressor(n_estimators=10).fit(X, y)
    assert np.mean((full.predict(X) - y) ** 2) < np.mean((a - y) ** 2)


def test_column_subsampling_uses_only_the_drawn_features():
    X, y = _data("diabetes")
    model = XGBoostRegressor(n_estimators=30, colsample_bytree=0.3, random_state=0).fit(X, y)
    for stage in model._trees:
        used = np.unique(stage[0].feature[stage[0].feature >= 0])
        assert used.size <= 3  # round(0.3 * 10)


def test_approx_proposals_are_weighted_by_hessians():
    """approx re-proposes the bins of every tree from hessian-weighted quantiles.

    As xgboost's approx: its sorted-column sketch with weights h_i w_i, anew
    for every tree, so the model equals xgboost's, tree for tree. (This test
    used to require approx's first tree to equal hist's, true of mltrees'
    earlier exact quantiles but not of XGBoost, whose two sketches differ:
    on this table their first trees differ at max_bin=8.)
    """
    from mltrees.hist.xgboost.cuts import xgboost_approx_cuts

    X, y = _data("breast_cancer")
    hist = XGBoostClassifier(n_estimators=5, max_bin=8).fit(X, y)
    approx = XGBoostClassifier(n_estimators=5, max_bin=8, tree_method="approx").fit(X, y)
    local = XGBoostClassifier(n_estimators=5, max_bin=8, tree_method="approx", sketch="local").fit(
        X, y
    )
    booster = xgb.train(
        {"objective": "binary:logistic", "tree_method": "approx", "max_bin": 8, "nthread": 1},
        xgb.DMatrix(X, label=y),
        num_boost_round=5,
    )
    _assert_same_trees(booster, approx)
    np.testing.assert_allclose(
        approx.decision_function(X),
        booster.predict(xgb.DMatrix(X), output_margin=True),
        rtol=RTOL,
        atol=1e-5,
    )
    # The weights are relative: the first round's equal hessians propose as unit weights.
    column = X[:, 0]
    ones, quarters = np.ones(len(column)), np.full(len(column), 0.25)
    for a, b in zip(
        xgboost_approx_cuts(column, 8, ones), xgboost_approx_cuts(column, 8, quarters), strict=True
    ):
        np.testing.assert_array_equal(a, b)
    assert not np.array_equal(
        hist.decision_function(X), approx.decision_function(X)
    )  # later rounds re-propose
    for model in (hist, approx, local):
        assert model.score(X, y) > 0.95


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"tree_method": "exactly"}, "tree_method"),
        ({"learning_rate": 0}, "learning_rate"),
        ({"subsample": 1.5}, "subsample"),
        ({"max_depth": -1}, "max_depth"),
        ({"reg_lambda": -1}, "reg_lambda"),
        ({"gamma": -0.1}, "gamma"),
        ({"sketch": "local"}, "sketch"),
        ({"max_bin": 1}, "max_bin"),
        ({"early_stopping_rounds": 3}, "eval_set"),
    ],
)
def test_bad_parameters_are_named(kwargs, match):
    X, y = _data("iris")
    with pytest.raises(ValueError, match=match):
        XGBoostClassifier(**kwargs).fit(X, y)


def test_bad_input_gets_clear_errors():
    X, y = _data("diabetes")
    with pytest.raises(ValueError, match=r"infinity|inf"):
        XGBoostRegressor().fit(np.where(X > 0.1, np.inf, X), y)
    with pytest.raises(ValueError, match=r"NaN|inf"):
        XGBoostRegressor().fit(X, np.where(y > 200, np.nan, y))
    with pytest.raises(ValueError, match=">= 0"):
        XGBoostRegressor(objective="count:poisson").fit(X, y - 200)
    with pytest.raises(ValueError, match="objective"):
        XGBoostRegressor(objective="reg:gamma").fit(X, y)
    with pytest.raises(ValueError, match="1 class"):
        XGBoostClassifier().fit(X[:20], np.zeros(20))
    model = XGBoostRegressor(n_estimators=2).fit(X, y)
    with pytest.raises(ValueError, match="features"):
        model.predict(X[:, :5])
    import pandas as pd

    # Category columns are accepted (ordinal codes, issue 32); dates are refused by name.
    frame = pd.DataFrame({"a": [1.0, 2.0, 3.0], "b": pd.date_range("2024-01-01", periods=3)})
    with pytest.raises(TypeError, match="'b'"):
        XGBoostRegressor().fit(frame, [1.0, 2.0, 3.0])


def test_deep_trees_equal_xgboost_on_both_partition_paths():
    """Levels with more than NODES_PER_LOOP split nodes are partitioned all at once."""
    from mltrees.hist.grower import NODES_PER_LOOP

    rng = np.random.default_rng(11)
    X = rng.integers(0, 60, size=(6000, 6)).astype(np.float64)
    X[rng.random(X.shape) < 0.05] = np.nan
    y = np.sin(np.nan_to_num(X[:, 0]) / 5) + np.nan_to_num(X[:, 1]) / 30 + rng.normal(size=6000)
    params = {"learning_rate": 0.3, "max_depth": 10, "base_score": 0.0, "min_child_weight": 2.0}
    booster, expected = _xgb_margin(X, y, "reg:squarederror", 4, params)
    model = XGBoostRegressor(n_estimators=4, **params).fit(X, y)
    widest = max(np.bincount(t.depth[t.feature >= 0]).max() for s in model._trees for t in s)
    assert widest > NODES_PER_LOOP
    np.testing.assert_allclose(model.predict(X, output_margin=True), expected, rtol=RTOL, atol=1e-5)
    _assert_same_trees(booster, model)


# ----------------------------------------------------------------------------
# Exact greedy (Algorithm 1) against xgboost's tree_method="exact"
# ----------------------------------------------------------------------------


def _xgb_exact(X, y, objective, rounds, params):
    booster_params = {
        "objective": objective,
        "tree_method": "exact",
        "nthread": 1,
        **{XGB_NAMES.get(k, k): v for k, v in params.items()},
    }
    booster = xgb.train(booster_params, xgb.DMatrix(X, label=y), num_boost_round=rounds)
    return booster, booster.predict(xgb.DMatrix(X), output_margin=True)


@pytest.mark.parametrize(
    "extra",
    [{}, {"gamma": 3000.0}, {"reg_alpha": 1.0, "max_delta_step": 3.0}, {"min_child_weight": 10.0}],
    ids=lambda d: "-".join(d) or "default",
)
def test_exact_margins_and_trees_equal_xgboost_exact_on_diabetes(extra):
    X, y = load_diabetes(return_X_y=True)  # continuous features: every value a candidate
    params = {"learning_rate": 0.3, "max_depth": 4, "base_score": 150.0, **extra}
    booster, expected = _xgb_exact(X, y, "reg:squarederror", 15, params)
    model = XGBoostRegressor(n_estimators=15, tree_method="exact", **params).fit(X, y)
    np.testing.assert_allclose(model.predict(X, output_margin=True), expected, rtol=RTOL, atol=1e-4)
    _assert_same_trees(booster, model, leaf_atol=1e-4)


@pytest.mark.parametrize("missing", [0.0, 0.2])
def test_exact_logistic_equals_xgboost_exact_on_breast_cancer(missing):
    X, y = load_breast_cancer(return_X_y=True)
    X = _with_nan(X, missing, seed=3)
    params = {"learning_rate": 0.3, "max_depth": 4, "base_score": 0.5}
    booster, expected = _xgb_exact(X, y, "binary:logistic", 15, params)
    model = XGBoostClassifier(n_estimators=15, tree_method="exact", **params).fit(X, y)
    np.testing.assert_allclose(model.decision_function(X), expected, rtol=RTOL, atol=1e-5)
    _assert_same_trees(booster, model)


def test_gamma_prunes_after_growth_in_exact_and_during_growth_in_hist():
    """An unbalanced XOR: the root split gains little, its children's splits a lot.

    Growing with gamma (hist) stops at the root; growing without it and then
    collapsing splits below gamma bottom-up (exact) keeps the XOR tree,
    since the root's children are not leaves.
    """
    X = np.repeat([[0, 0], [0, 1], [1, 0], [1, 1]], [30, 20, 25, 25], axis=0).astype(np.float64)
    y = np.logical_xor(X[:, 0], X[:, 1]).astype(np.float64) * 10
    # The root split on x0 gains 50**2/50 - 50**2/100 = 25 < gamma; its children ~1200.
    params = {"learning_rate": 1.0, "max_depth": 3, "gamma": 40.0, "base_score": 5.0}
    params["reg_lambda"] = 0.0
    exact = XGBoostRegressor(n_estimators=1, tree_method="exact", **params).fit(X, y)
    hist = XGBoostRegressor(n_estimators=1, tree_method="hist", **params).fit(X, y)
    assert exact._trees[0][0].node_count == 7
    assert hist._trees[0][0].node_count == 1
    np.testing.assert_allclose(exact.predict(X), y, atol=1e-5)
    for model, (booster, expected) in (
        (exact, _xgb_exact(X, y, "reg:squarederror", 1, params)),
        (hist, _xgb_margin(X, y, "reg:squarederror", 1, params)),
    ):
        np.testing.assert_allclose(model.predict(X), expected, atol=1e-5)
        assert model._trees[0][0].node_count == sum(len(t) for t in xgboost_trees(booster))


def test_exact_equals_xgboost_exact_on_ties_and_nodes_without_known_values(monkeypatch):
    """Few distinct values, missing values, deep trees: some nodes know no value of a feature.

    With so many ties the scans compute gains at the cuts alone, on levels
    restricted to them, where a node whose rows share one value has no cut.
    """
    restricted = []
    original = exact._Level.restricted

    def spy(level, positions):
        sub = original(level, positions)
        restricted.append((positions.size / level.counts.sum(), bool((sub.counts == 0).any())))
        return sub

    monkeypatch.setattr(exact._Level, "restricted", spy)
    sparse_sums = []  # running sums taken at the cuts alone
    original_sums = exact._sums_through

    def sums_spy(stats, positions):
        sparse_sums.append(positions.size)
        return original_sums(stats, positions)

    monkeypatch.setattr(exact_scan, "_sums_through", sums_spy)  # the scan's module
    rng = np.random.default_rng(23)
    X = _with_nan(rng.integers(0, 8, size=(3000, 6)).astype(np.float64), 0.1, seed=24)
    y = (np.nan_to_num(X[:, 0]) + rng.normal(size=3000) > 4).astype(np.float64)
    params = {"learning_rate": 0.3, "max_depth": 8, "base_score": 0.5, "reg_lambda": 0.01}
    booster, expected = _xgb_exact(X, y, "binary:logistic", 12, params)
    model = XGBoostClassifier(n_estimators=12, tree_method="exact", **params).fit(X, y)
    np.testing.assert_allclose(model.decision_function(X), expected, rtol=RTOL, atol=1e-5)
    _assert_same_trees(booster, model)
    shares, with_empty_nodes = np.array(restricted).T
    assert shares.max() <= exact.SPARSE_CUTS
    assert with_empty_nodes.any()
    assert shares.min() <= exact.SPARSE_SUMS
    assert sparse_sums


@pytest.mark.parametrize(
    "extra",
    [{}, {"reg_alpha": 1.0}, {"max_delta_step": 3.0}, {"min_child_weight": 20.0}],
    ids=["default", "alpha", "delta", "mcw"],
)
@pytest.mark.parametrize("objective", ["reg:squarederror", "binary:logistic"])
def test_exact_equals_xgboost_exact_on_distinct_values_and_rare_ties(objective, extra):
    """Continuous features without missing values, whose ties are rare.

    Their values are not carried from level to level: the few needed for
    the cuts are read from X, and a kept cut between tied values sends its
    node through a second pass. One feature has distinct values, two have
    rare ties (one pair in 125 rows), one has many ties (the other path).
    """
    rng = np.random.default_rng(27)
    n = 3000
    X = rng.normal(size=(n, 5)).astype(np.float32)
    X[:, 3] = rng.integers(0, 6, size=n)
    for j in (0, 1):  # copy the values of 24 rows onto 24 others
        X[rng.choice(n, 24, replace=False), j] = X[rng.choice(n, 24, replace=False), j]
    tied = [np.count_nonzero(np.diff(np.sort(X[:, j])) == 0) for j in range(5)]
    assert tied[2] == tied[4] == 0
    assert 0 < tied[0] <= 24
    assert 0 < tied[1] <= 24
    signal = X[:, 0] + X[:, 1] ** 2 - X[:, 3] / 3 + rng.normal(size=n)
    y = signal if objective.startswith("reg") else (signal > 1).astype(np.float64)
    params = {"learning_rate": 0.3, "max_depth": 6, "base_score": 0.5, **extra}
    booster, expected = _xgb_exact(X, y, objective, 10, params)
    estimator = XGBoostRegressor if objective.startswith("reg") else XGBoostClassifier
    model = estimator(n_estimators=10, tree_method="exact", **params).fit(X, y)
    np.testing.assert_allclose(model.predict(X, output_margin=True), expected, rtol=RTOL, atol=1e-5)
    _assert_same_trees(booster, model)


@pytest.mark.parametrize("min_child_weight", [1.0, 8.0])
def test_exact_scans_node_by_node_or_over_repeated_arrays_alike(monkeypatch, min_child_weight):
    """Per node on slices (one thread, large levels) or over per-position arrays (small
    levels, or threads): the same model. Small levels leave the cuts with a clearly light
    child out before choosing, large ones take again the nodes whose choice has one."""
    rng = np.random.default_rng(25)
    X = _with_nan(rng.normal(size=(2000, 5)), 0.05, seed=26)
    y = (np.nan_to_num(X[:, 0]) + X[:, 1] ** 2 + rng.normal(size=2000) > 1).astype(np.float64)
    params = {"tree_method": "exact", "n_estimators": 5, "max_depth": 5, "random_state": 0}
    params["min_child_weight"] = min_child_weight
    monkeypatch.setattr(exact, "PROCESS_MIN_CELLS", 1 << 62)
    arrays = XGBoostClassifier(n_jobs=1, **params).fit(X, y)  # 2000 positions: small levels
    monkeypatch.setattr(exact_scan, "SLICED_MIN_POSITIONS", 0)  # the scan's module
    slices = XGBoostClassifier(n_jobs=1, **params).fit(X, y)
    monkeypatch.setattr(exact, "THREAD_MIN_ROWS", 0)
    threads = XGBoostClassifier(n_jobs=2, **params).fit(X, y)
    assert max(tree.max_depth for stage in slices._trees for tree in stage) == 5
    for other in (arrays, threads):
        np.testing.assert_array_equal(slices.decision_function(X), other.decision_function(X))
        for a, b in zip(slices._trees, other._trees, strict=True):
            np.testing.assert_array_equal(a[0].threshold, b[0].threshold)


@pytest.mark.parametrize("n", [0, 1, 2, 8191, 8192, 8193, 40_000, 100_003])
def test_running_sums_by_halving_equal_a_cumulative_sum(n):
    """Pairs first, then running sums: exact where no sum rounds, rounding-close otherwise."""
    rng = np.random.default_rng(n)
    # A logistic loss's g + i h at probabilities on a grid of 2**-16: every g is a multiple
    # of 2**-16 and every h of 2**-32, below 1 in size, so every partial sum of 100k of them
    # fits in float64's 53 bits and no order of the additions rounds.
    p = rng.integers(0, 2**16, size=n) / 2**16
    g, h = p - (rng.random(n) < 0.5), p * (1 - p)
    exact_inputs = g + 1j * h
    values = exact_inputs.copy()
    exact._running_sums(values, np.empty(n, dtype=complex))
    np.testing.assert_array_equal(values, np.cumsum(exact_inputs))
    wide = rng.normal(size=n) * 10.0 ** rng.integers(-8, 8, size=n) + 1j * rng.random(n)
    values = wide.copy()
    exact._running_sums(values, np.empty(n, dtype=complex))
    scale = np.cumsum(np.abs(wide.real)) + np.cumsum(np.abs(wide.imag))
    assert np.all(np.abs(values - np.cumsum(wide)) <= 4 * n * np.finfo(float).eps * scale)


def test_sums_through_positions_equal_running_sums_there():
    """Sums of runs between positions, accumulated: the running sum at each (0 at -1)."""
    rng = np.random.default_rng(8)
    stats = (rng.normal(size=500) + 1j * rng.random(500)).astype(np.complex64)
    positions = np.concatenate([rng.integers(-1, 500, size=60), [-1, 0, 499, 499, 17]])
    expected = np.concatenate([[0], np.cumsum(stats.astype(complex))])[positions + 1]
    np.testing.assert_allclose(exact._sums_through(stats, positions), expected, rtol=1e-12)
    assert exact._sums_through(stats, np.array([-1, -1])).tolist() == [0, 0]


@pytest.mark.parametrize("seed", range(6))
def test_sorted_columns_order_known_values_as_a_stable_argsort(seed):
    """The packed-key sort orders by value, then row, as a stable argsort, on awkward floats."""
    rng = np.random.default_rng(seed)
    awkward = np.array(
        [-0.0, 0.0, 1.5, -2.25, np.inf, -np.inf, np.nan, 3e-40, -3e-40, 7.0, -7.0],
        dtype=np.float32,
    )
    n = int(rng.integers(1, 400))
    column = rng.choice(awkward, n) if seed % 2 else rng.normal(size=n).astype(np.float32)
    column[rng.random(n) < 0.1] = np.nan
    column[rng.random(n) < 0.05] = -np.float32(np.nan)  # a NaN with its sign bit set
    columns = SortedColumns.fit(column[:, None])
    order = np.argsort(column, kind="stable")[: np.count_nonzero(~np.isnan(column))]
    np.testing.assert_array_equal(columns.rows[0], order)
    assert columns.rows[0].dtype == np.int32
    np.testing.assert_array_equal(columns.values[0].view(np.uint32), column[order].view(np.uint32))
    assert columns.has_missing[0] == np.isnan(column).any()


@pytest.mark.parametrize("seed", range(4))
def test_node_partition_is_a_stable_sort_by_child(seed):
    rng = np.random.default_rng(seed)
    counts = rng.integers(1, 40, size=rng.integers(1, 9))
    split = rng.random(counts.size) < 0.7
    segment = np.repeat(np.arange(counts.size), counts)
    goes_left = (rng.random(segment.size) < 0.4) & split[segment]
    partition = NodePartition.plan(
        counts, split, np.bincount(segment[goes_left], minlength=counts.size)
    )
    kept = np.flatnonzero(split[segment])
    key = 2 * segment + ~goes_left
    expected = kept[np.argsort(key[kept], kind="stable")]
    np.testing.assert_array_equal(partition.permutation(goes_left), expected)
    sides = np.bincount(key, minlength=2 * counts.size).reshape(-1, 2)[split].ravel()
    np.testing.assert_array_equal(partition.counts, sides)


def test_node_partition_rejects_bad_input():
    with pytest.raises(ValueError, match="one length"):
        NodePartition.plan([3, 4], [True], [1, 2])
    with pytest.raises(TypeError, match="split must be a boolean array"):
        NodePartition.plan([3, 4], [1, 0], [1, 2])
    with pytest.raises(ValueError, match="n_left between 0 and counts"):
        NodePartition.plan([3, 4], [True, True], [4, 2])
    with pytest.raises(ValueError, match="counts must be >= 0"):
        NodePartition.plan([-1, 4], [False, True], [0, 2])
    partition = NodePartition.plan([3, 4], [True, False], [1, 0])
    with pytest.raises(ValueError, match="level's 7 positions"):
        partition.permutation(np.zeros(6, dtype=bool))
    with pytest.raises(ValueError, match="boolean array"):
        partition.permutation(np.zeros(7))


@pytest.mark.parametrize(
    "params",
    [
        {"reg_lambda": 1.0},
        {"reg_lambda": 1.0, "min_child_weight": 5.0},
        {"reg_lambda": 1e-9},
        {"reg_lambda": 0.0, "min_child_weight": 0.0},
    ],
    ids=["default", "heavy-children", "tiny-lambda", "no-lambda"],
)
def test_exact_rounds_only_near_best_cuts_and_grows_the_same_trees(params):
    """Scoring every cut in float32 instead of the cuts near the unrounded best changes nothing."""
    rng = np.random.default_rng(25)
    X = _with_nan(rng.integers(0, 12, size=(4000, 5)).astype(np.float32), 0.1, seed=26)
    X[:, 4] = rng.normal(size=4000)  # and one continuous feature
    p = rng.random(4000)  # margins of a logistic loss, labels that depend on x0 and x4
    y = np.nan_to_num(X[:, 0], nan=6) / 4 + X[:, 4] + rng.normal(size=4000) > 1.5
    g, h = p - y, p * (1 - p)
    columns, split_params = SortedColumns.fit(X), SplitParams(**params)
    grown = []
    for approximate in (True, False):
        grower = ExactGrower(columns, X, split_params, max_depth=7)
        grower._approximate = approximate
        grown.append(grower.grow(g, h))
    assert grown[0].tree.node_count > 40
    for field in ("feature", "threshold", "value", "missing_slot"):
        np.testing.assert_array_equal(getattr(grown[0].tree, field), getattr(grown[1].tree, field))
    np.testing.assert_array_equal(grown[0].leaf_of_row, grown[1].leaf_of_row)


def test_gain_table_holds_every_nodes_best_split():
    X, y = _data("breast_cancer")
    data = BinnedData.fit(X.astype(np.float32), 256)
    rng = np.random.default_rng(12)
    g, h = rng.normal(size=len(y)), rng.random(len(y)) + 0.1
    hist = build_histograms(data.codes, data.stride, (g, h))
    totals = np.array([[g.sum(), h.sum()]])
    params = SplitParams(reg_lambda=1.0)
    table = gain_table(hist, totals, data.n_bins, params)
    best = find_best_splits(hist, totals, data.n_bins, params)
    assert table.max() == best.gain[0]
    assert table[0, best.feature[0], best.split_bin[0]] == best.gain[0]


def test_leaf_values_of_another_gradient_set():
    """Structure from one gradient set, values from another (ordered boosting, chapter 15)."""
    X, y = _data("diabetes")
    data = BinnedData.fit(X.astype(np.float32), 256)
    params = SplitParams(reg_lambda=2.0, float32=False)
    rng = np.random.default_rng(13)
    g1, g2 = rng.normal(size=len(y)), rng.normal(size=len(y))
    h = np.ones(len(y))
    grown = DepthwiseGrower(data, params, max_depth=3, learning_rate=1.0).grow(g1, h)
    values = leaf_values(grown.leaf_of_row, g2, h, grown.tree.node_count, params)
    leaves = np.flatnonzero(grown.tree.feature < 0)
    for leaf in leaves:
        rows = grown.leaf_of_row == leaf
        assert values[leaf] == pytest.approx(-g2[rows].sum() / (rows.sum() + 2.0))
    np.testing.assert_allclose(
        leaf_values(grown.leaf_of_row, g1, h, grown.tree.node_count, params)[leaves],
        grown.tree.value[leaves, 0],
    )


def test_apply_gives_the_leaves_that_make_the_margin():
    X, y = _data("wine")
    model = XGBoostClassifier(n_estimators=5, max_depth=3).fit(X, y)
    leaves = model.apply(X)
    trees = [tree for stage in model.trees_ for tree in stage]
    assert leaves.shape == (len(X), len(trees)) == (len(X), 15)
    margin = np.tile(model.base_margin_, (len(X), 1))
    for t, tree in enumerate(trees):
        assert (tree.feature[leaves[:, t]] == -1).all()
        margin[:, t % 3] += tree.value[leaves[:, t], 0]
    np.testing.assert_allclose(margin, model.decision_function(X), rtol=1e-12)


@pytest.mark.parametrize("n", [0, 1, 2, 7, 8, 255, 256, 1000, 70_000])
def test_branch_free_search_equals_searchsorted(n):
    from mltrees.tree._data import count_below

    rng = np.random.default_rng(n)
    table = np.unique(rng.normal(size=n))
    x = np.concatenate([rng.normal(size=3000), table, [np.nan, np.inf, -np.inf]])
    expected = np.searchsorted(table, x, side="left")
    expected[np.isnan(x)] = 0
    np.testing.assert_array_equal(count_below(table, x), expected)


@pytest.mark.parametrize("mode", ["one thread", "threads", "processes"])
def test_exact_training_leaves_are_where_the_tree_sends_the_rows(mode, monkeypatch):
    """The grower routes rows by their position in the split feature's order.

    That must put every training row in the leaf the finished tree sends it
    to (x < cut, missing by the default), including where a cut's midpoint
    rounds onto a value: neighbouring float32 values with missing values,
    whose forward scan may then cut at the lower value itself.
    """
    rng = np.random.default_rng(31)
    n = 4000
    steps = np.float32(1.0) + np.arange(8, dtype=np.float32) * np.spacing(np.float32(1.0))
    X = np.column_stack(
        [
            rng.choice(steps, size=n),  # adjacent float32 values: midpoints round onto them
            rng.normal(size=n),
            rng.integers(0, 5, size=n),
        ]
    ).astype(np.float32)
    X[rng.random((n, 3)) < 0.1] = np.nan
    rank = np.searchsorted(steps, X[:, 0])
    y = np.nan_to_num(rank, nan=3) + np.nan_to_num(X[:, 1]) + rng.normal(size=n) > 3.5
    p = np.full(n, 0.5)
    g, h = p - y, p * (1 - p)
    columns = SortedColumns.fit(X)
    if mode == "threads":
        monkeypatch.setattr(exact, "PROCESS_MIN_CELLS", 1 << 62)
        monkeypatch.setattr(exact, "THREAD_MIN_ROWS", 0)
    elif mode == "processes":
        if not can_fork():
            pytest.skip("worker processes need Linux fork")
        monkeypatch.setattr(exact, "PROCESS_MIN_CELLS", 0)
        # Fork even beside idle threads other tests left (tests/test_exact_processes.py
        # checks when a fork is safe).
        monkeypatch.setattr(exact, "forks_safely", lambda: True)
        monkeypatch.setattr("mltrees.hist.processes.forks_safely", lambda: True)
    n_threads = 1 if mode == "one thread" else 2
    grower = ExactGrower(columns, X, SplitParams(reg_lambda=1.0), max_depth=6, n_threads=n_threads)
    assert (grower._executor is not None, grower._workers is not None) == (
        mode == "threads",
        mode == "processes",
    )
    try:
        grown = grower.grow(g, h)
    finally:
        grower.close()
    assert grown.tree.node_count > 30
    assert 0 in set(grown.tree.feature[grown.tree.feature >= 0].tolist())
    np.testing.assert_array_equal(grown.leaf_of_row, grown.tree.apply(X.astype(np.float64)))


@pytest.mark.parametrize("n", [4_098, 8_194, 8_195, 16_389])
def test_hist_cuts_depend_on_the_row_order_only_beyond_one_block(n):
    """Chapter 13: the summary size grows with the column (2049 only up to 4098
    values at 256 bins); a column that fits one block of ``2 limit`` entries
    (8194 values) has cuts independent of the row order, in XGBoost and here."""
    from mltrees.hist.xgboost.cuts import xgboost_cuts, xgboost_limit_size

    rng = np.random.default_rng(n)
    column = rng.normal(size=n).astype(np.float32)
    orders = (column, rng.permutation(column))
    theirs = []
    for values in orders:
        data = xgb.DMatrix(values[:, None], label=np.zeros(n), nthread=1)
        xgb.train({"tree_method": "hist", "max_bin": 256, "nthread": 1}, data, num_boost_round=1)
        theirs.append(data.get_quantile_cut()[1])  # the lower bound, then the cuts
    for values, expected in zip(orders, theirs, strict=True):
        cuts, minimum = xgboost_cuts(values, 256)
        np.testing.assert_array_equal(np.r_[minimum, cuts], expected)
    one_block = n <= 2 * xgboost_limit_size(n, 256)
    assert one_block == (n <= 8_194)
    assert np.array_equal(*theirs) == one_block


def test_limit_size_follows_limit_size_level_by_hand():
    """Chapter 13's ``limit_size`` values, worked by hand from ``LimitSizeLevel``
    (``limit = min(n, ceil(L / eps) + 1)``, smallest L with ``2^L limit >= n``,
    eps = 1/2048 at 256 bins): L = 1 gives min(n, 2049) while 2 * 2049 >= n,
    L = 2 gives 4097 while 4 * 4097 >= n, and a million needs L = 7 (14337)."""
    from mltrees.hist.xgboost.cuts import xgboost_limit_size

    expected = {1: 1, 1_000: 1_000, 2_048: 2_048, 2_049: 2_049, 4_098: 2_049, 4_099: 4_097}
    expected |= {16_388: 4_097, 16_389: 6_145, 10**6: 14_337}
    assert {n: xgboost_limit_size(n, 256) for n in expected} == expected
    # Fewer values than bins: eps = 1 / (8 n), so limit is n itself.
    assert xgboost_limit_size(100, 256) == 100
    for bad in (-1, 2.5, True, None):
        with pytest.raises(ValueError, match="n_values"):
            xgboost_limit_size(bad, 256)
    for bad in (0, 1.0, None):
        with pytest.raises(ValueError, match="max_bin"):
            xgboost_limit_size(1_000, bad)


@pytest.mark.parametrize(("n", "distinct"), [(20_000, 1_000), (50_000, 8_000)])
def test_hist_cuts_of_few_distinct_values_do_not_depend_on_the_row_order(n, distinct):
    """Chapter 13: beyond one block, a column with at most ``limit`` distinct
    values (8193 at 50,000 values) is still summarised exactly: its cuts are
    the same in every row order, in XGBoost and here."""
    from mltrees.hist.xgboost.cuts import xgboost_cuts, xgboost_limit_size

    assert n > 2 * xgboost_limit_size(n, 256)  # more than one block
    assert distinct <= xgboost_limit_size(n, 256)
    rng = np.random.default_rng(distinct)
    column = rng.integers(0, distinct, n).astype(np.float32)
    for values in (column, rng.permutation(column), rng.permutation(column)):
        data = xgb.DMatrix(values[:, None], label=np.zeros(n), nthread=1)
        xgb.train({"tree_method": "hist", "max_bin": 256, "nthread": 1}, data, num_boost_round=1)
        theirs = data.get_quantile_cut()[1]  # the lower bound, then the cuts
        cuts, minimum = xgboost_cuts(values, 256)
        np.testing.assert_array_equal(np.r_[minimum, cuts], theirs)
        np.testing.assert_array_equal(cuts, xgboost_cuts(column, 256)[0])


def test_approx_sorted_sketch_merges_rare_values_below_max_bin():
    """Chapter 13: fewer distinct values than ``max_bin`` do not give one bin
    per value under ``approx`` with a changing hessian: nine rare values, 9 of
    10,000 rows, never reach the sorted sketch's first goal S / 256 and share
    one bin; ``hist`` and ``approx`` with a constant hessian keep all ten."""
    from mltrees.hist.xgboost.cuts import xgboost_approx_cuts, xgboost_cuts

    rng = np.random.default_rng(13)
    values = rng.permutation(np.r_[np.arange(9), np.full(9_991, 10)].astype(np.float32))
    labels = (rng.random(values.size) < 0.5).astype(float)
    bins = {}
    for method, objective in (
        ("hist", "reg:squarederror"),
        ("approx", "reg:squarederror"),
        ("approx", "binary:logistic"),
    ):
        data = xgb.DMatrix(values[:, None], label=labels, nthread=1)
        params = {"objective": objective, "tree_method": method, "max_bin": 256, "nthread": 1}
        xgb.train(params, data, num_boost_round=1)
        theirs = data.get_quantile_cut()[1]
        if objective == "binary:logistic":
            cuts, minimum = xgboost_approx_cuts(values, 256, np.full(values.size, 0.2, np.float32))
        else:
            cuts, minimum = xgboost_cuts(values, 256)
        np.testing.assert_array_equal(np.r_[minimum, cuts], theirs)
        bins[method, objective] = cuts.size
    assert bins == {
        ("hist", "reg:squarederror"): 10,
        ("approx", "reg:squarederror"): 10,
        ("approx", "binary:logistic"): 2,
    }


def test_trees_lists_one_tree_per_output_and_round_and_is_a_copy():
    """``trees_`` is the public view of the fitted trees that chapter 13 reads."""
    from sklearn.exceptions import NotFittedError

    with pytest.raises(NotFittedError):
        _ = XGBoostRegressor().trees_
    X, y = _data("iris")
    model = XGBoostClassifier(n_estimators=4, max_depth=2).fit(X, y)
    trees = model.trees_
    assert len(trees) == model.n_estimators_ == 4
    assert all(len(stage) == 3 for stage in trees)
    before = model.decision_function(X)
    trees[0].clear()
    trees.clear()
    assert len(model.trees_) == 4
    assert all(len(stage) == 3 for stage in model.trees_)
    np.testing.assert_array_equal(model.decision_function(X), before)
