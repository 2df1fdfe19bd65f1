"""Formulas derived in chapter 13 (XGBoost) that tests/test_xgboost.py does not cover.

Each expected value is computed here by hand from the derivation (sums of
gradients and hessians, closed forms, numerical minimisation), never read
from the code under test.
"""

from __future__ import annotations

import itertools
import json

import numpy as np
import pytest
from scipy.optimize import minimize_scalar
from sklearn.datasets import load_breast_cancer

from mltrees import XGBoostClassifier, XGBoostRegressor
from mltrees.hist.binning import BinnedData
from mltrees.hist.grower import DepthwiseGrower
from mltrees.hist.xgboost.splitting import SplitParams, leaf_weight, node_score, split_gain


def _float32_rows(X):
    """Rows as the estimators compare them: float32 values (XGBoost's data type)."""
    return np.asarray(X, dtype=np.float32).astype(np.float64)


def _few_values(X, digits=2):
    X = np.asarray(X, dtype=np.float64)
    spread = np.ptp(X, axis=0)
    decimals = digits - np.floor(np.log10(np.where(spread > 0, spread, 1.0))).astype(int)
    return np.column_stack([np.round(X[:, j], decimals[j]) for j in range(X.shape[1])])


def test_the_hessian_of_round_m_is_taken_at_the_previous_model():
    """eq-xgb-taylor: tree 2's leaves are -eta G / (H + lambda) with g, h at F_1, not at F_2."""
    X, y = load_breast_cancer(return_X_y=True)
    X = _few_values(X)
    eta, lam = 0.3, 1.0
    model = XGBoostClassifier(
        n_estimators=2, max_depth=3, learning_rate=eta, reg_lambda=lam, base_score=0.5
    ).fit(X, y)
    F1, F2 = (np.log(p[:, 1] / p[:, 0]) for p in model.staged_predict_proba(X))
    tree = model._trees[1][0]
    leaf = tree.apply(_float32_rows(X))
    leaves = np.unique(leaf)
    p1, p2 = 1 / (1 + np.exp(-F1)), 1 / (1 + np.exp(-F2))
    G = np.bincount(leaf, weights=p1 - y)[leaves]
    H_previous = np.bincount(leaf, weights=p1 * (1 - p1))[leaves]
    H_new = np.bincount(leaf, weights=p2 * (1 - p2))[leaves]
    np.testing.assert_allclose(tree.value[leaves, 0], -eta * G / (H_previous + lam), atol=1e-6)
    assert np.max(np.abs(tree.value[leaves, 0] - (-eta * G / (H_new + lam)))) > 1e-3


def test_completed_square_has_a_plus_sign_and_gives_the_leaf_weight():
    """eq-xgb-sketch-weight: sum g f + h f^2 / 2 = sum h (f + g/h)^2 / 2 + const."""
    rng = np.random.default_rng(0)
    g, h, f = rng.normal(size=200), rng.random(200) + 0.1, rng.normal(size=200)
    const = -np.sum(g**2 / (2 * h))
    taylor = np.sum(g * f + 0.5 * h * f**2)
    assert taylor == pytest.approx(np.sum(0.5 * h * (f + g / h) ** 2) + const, rel=1e-12)
    assert taylor != pytest.approx(np.sum(0.5 * h * (f - g / h) ** 2) + const, rel=1e-3)
    # A leaf is a weighted least-squares fit of the targets -g/h with weights h (+ ridge).
    lam = 2.0
    params = SplitParams(reg_lambda=lam, float32=False)

    def weighted_squares(w):
        return np.sum(0.5 * h * (w + g / h) ** 2) + 0.5 * lam * w**2

    brute = minimize_scalar(
        weighted_squares, bounds=(-10, 10), method="bounded", options={"xatol": 1e-12}
    ).x
    assert float(leaf_weight(np.array([g.sum()]), np.array([h.sum()]), params)[0]) == (
        pytest.approx(brute, abs=1e-7)
    )


def test_two_class_softmax_with_doubled_hessian_is_the_logistic_newton_step():
    """eq-xgb-softmax-hessian: with h = 2 p (1 - p) the two class trees move F_1 - F_0 by -G/H."""
    rng = np.random.default_rng(1)
    X = rng.integers(0, 20, size=(600, 4)).astype(np.float32)
    F = 0.8 * rng.normal(size=600)  # log-odds = F_1 - F_0 with F_0 = 0
    p = 1 / (1 + np.exp(-F))
    y = (rng.random(600) < 1 / (1 + np.exp(-(X[:, 0] - 10) / 3))).astype(float)
    data = BinnedData.fit(X, 256)
    params = SplitParams(reg_lambda=0.0, min_child_weight=0.0, float32=False)

    def grow(g, h):
        grower = DepthwiseGrower(data, params, max_depth=3, learning_rate=1.0)
        return grower.grow(g, h)

    binary = grow(p - y, p * (1 - p))
    class_1 = grow(p - y, 2 * p * (1 - p))
    class_0 = grow((1 - p) - (1 - y), 2 * p * (1 - p))
    np.testing.assert_array_equal(class_1.tree.feature, binary.tree.feature)
    np.testing.assert_array_equal(class_0.tree.feature, binary.tree.feature)
    step = class_1.tree.value[class_1.leaf_of_row, 0] - class_0.tree.value[class_0.leaf_of_row, 0]
    # The binary Newton step of each row's leaf, by hand.
    leaf = binary.leaf_of_row
    G = np.bincount(leaf, weights=p - y)
    H = np.bincount(leaf, weights=p * (1 - p))
    np.testing.assert_allclose(step, -G[leaf] / H[leaf], rtol=1e-10)


def test_softmax_starting_scores_are_centred_log_class_shares():
    """The centred log class shares, as XGBoost 3.2 computes them.

    XGBoost takes ``log(share + 1e-6)`` in float32 (a guard against empty
    classes) and subtracts the float32 mean; the model starts from exactly
    those float32 numbers, within 1e-5 of the exact centred log shares.
    """
    X = np.arange(150, dtype=float).reshape(-1, 1)
    y = np.repeat([0, 1, 2], [100, 30, 20])
    model = XGBoostClassifier(n_estimators=1).fit(X, y)
    log_share = np.log(np.array([100, 30, 20]) / 150)
    np.testing.assert_allclose(model.base_margin_, log_share - log_share.mean(), atol=1e-5)
    guarded = np.log((np.array([100, 30, 20]) / 150).astype(np.float32) + np.float32(1e-6))
    guarded = guarded.astype(np.float32)
    mean = np.float32(0.0)
    for value in guarded / np.float32(3):
        mean = np.float32(mean + value)
    np.testing.assert_array_equal(model.base_margin_, guarded - mean)
    xgb = pytest.importorskip("xgboost")
    booster = xgb.train(
        {"objective": "multi:softprob", "num_class": 3, "nthread": 1}, xgb.DMatrix(X, label=y), 1
    )
    config = json.loads(booster.save_config())["learner"]["learner_model_param"]["base_score"]
    theirs = np.array(json.loads(config) if isinstance(config, str) else config, dtype=np.float32)
    np.testing.assert_array_equal(model.base_margin_.astype(np.float32), theirs)


def test_poisson_hessian_is_shifted_and_weights_clipped_by_max_delta_step():
    """eq-xgb-poisson: h = exp(F + delta) and |w| <= delta, delta = 0.7 by default."""
    x = np.repeat([0.0, 1.0], [150, 50]).reshape(-1, 1)
    y = np.where(x[:, 0] == 0, 0, 20).astype(float)
    base = float(y.mean())  # 5: the right leaf's Newton step 3 / e^delta is clipped at 0.7
    for delta, expected_delta in ((None, 0.7), (0.0, 0.0), (2.0, 2.0)):
        model = XGBoostRegressor(
            objective="count:poisson",
            n_estimators=1,
            max_depth=1,
            learning_rate=1.0,
            reg_lambda=0.0,
            min_child_weight=0.0,
            base_score=base,
            max_delta_step=delta,
        ).fit(x, y)
        tree = model._trees[0][0]
        leaf = tree.apply(x)
        mu = np.full(len(y), base)
        G = np.bincount(leaf, weights=mu - y, minlength=tree.node_count)
        H = np.bincount(leaf, weights=mu * np.exp(expected_delta), minlength=tree.node_count)
        leaves = np.unique(leaf)
        w = -G[leaves] / H[leaves]
        if expected_delta > 0:
            w = np.clip(w, -expected_delta, expected_delta)
        np.testing.assert_allclose(tree.value[leaves, 0], w, rtol=1e-6)
        if expected_delta == 0.7:
            assert tree.value[leaves, 0].max() == pytest.approx(0.7, rel=1e-6)


def test_gamma_is_compared_with_the_unhalved_gain():
    """XGBoost's gamma is compared with loss_chg (no 1/2): the paper's gamma is gamma / 2."""
    x = np.repeat([0.0, 1.0], [30, 50]).astype(np.float32).reshape(-1, 1)
    g = np.where(x[:, 0] == 0, -1.0, 0.5)
    h = np.ones_like(g)
    lam = 1.0
    G_L, G_R, H_L, H_R = -30.0, 25.0, 30.0, 50.0
    loss_chg = G_L**2 / (H_L + lam) + G_R**2 / (H_R + lam) - (G_L + G_R) ** 2 / (H_L + H_R + lam)
    data = BinnedData.fit(x, 256)
    for gamma, splits in ((0.999 * loss_chg, True), (1.001 * loss_chg, False)):
        params = SplitParams(reg_lambda=lam, gamma=gamma, float32=False)
        grown = DepthwiseGrower(data, params, max_depth=1).grow(g, h)
        assert (grown.tree.node_count == 3) is splits
        # The paper's rule with gamma_paper = gamma / 2 decides the same.
        assert (0.5 * loss_chg - gamma / 2 >= 0) is splits
    grown = DepthwiseGrower(data, SplitParams(reg_lambda=lam, float32=False), max_depth=1).grow(
        g, h
    )
    assert grown.gain[0] == pytest.approx(loss_chg, rel=1e-12)


@pytest.mark.parametrize("eta", [0.3, 1.0])
def test_first_order_prediction_overstates_the_decrease_by_one_over_one_minus_half_eta(eta):
    """Squared error, lambda = 0: the expansion is exact, and sum g f / actual = 1 / (1 - eta/2)."""
    rng = np.random.default_rng(2)
    X = rng.integers(0, 30, size=(500, 3)).astype(float)
    y = X[:, 0] - 2 * X[:, 1] + rng.normal(size=500)
    model = XGBoostRegressor(
        n_estimators=3,
        max_depth=3,
        learning_rate=eta,
        reg_lambda=0.0,
        min_child_weight=0.0,
        base_score=float(y.mean()),
    ).fit(X, y)
    margins = [np.full(len(y), y.mean()), *model.staged_predict(X)]
    for before, after in itertools.pairwise(margins):
        g, step = before - y, after - before
        actual = 0.5 * np.sum((y - after) ** 2) - 0.5 * np.sum((y - before) ** 2)
        assert np.sum(g * step + 0.5 * step**2) == pytest.approx(actual, rel=1e-9)
        assert np.sum(g * step) / actual == pytest.approx(1 / (1 - eta / 2), rel=1e-4)


def test_softmax_trees_use_twice_the_diagonal_hessian():
    """eq-xgb-softmax-hessian in the estimator: leaves -eta G_k / (2 sum p_k (1 - p_k) + lambda)."""
    rng = np.random.default_rng(3)
    X = rng.integers(0, 10, size=(300, 2)).astype(float)
    y = (X[:, 0] // 4).astype(int)  # classes 0, 1, 2
    eta, lam = 0.5, 1.0
    model = XGBoostClassifier(n_estimators=1, max_depth=2, learning_rate=eta, reg_lambda=lam).fit(
        X, y
    )
    e = np.exp(model.base_margin_ - model.base_margin_.max())
    p = e / e.sum()  # every row starts at the same probabilities
    for k, tree in enumerate(model._trees[0]):
        leaf = tree.apply(X)
        leaves = np.unique(leaf)
        G = np.bincount(leaf, weights=p[k] - (y == k))[leaves]
        H = np.bincount(leaf, minlength=tree.node_count)[leaves] * p[k] * (1 - p[k])
        np.testing.assert_allclose(tree.value[leaves, 0], -eta * G / (2 * H + lam), rtol=1e-5)


def test_split_bracket_negative_with_lambda_counter_example():
    """Chapter 13's counter-example: G_L = G_R = 10, H_L = H_R = 10, lambda = 1.

    By hand: 100/11 + 100/11 - 400/21 = 200/11 - 400/21 < 0, which is also the
    Cauchy-Schwarz bound -lambda G^2 / ((H + lambda)(H + 2 lambda)) with
    G = 20, H = 20, reached because the children's ratios are equal.
    """
    params = SplitParams(reg_lambda=1.0, min_child_weight=0.0, float32=False)
    G, H = np.array([10.0]), np.array([10.0])
    bracket = split_gain(G, H, G, H, node_score(2 * G, 2 * H, params), params)[0]
    assert bracket == pytest.approx(200 / 11 - 400 / 21, abs=1e-12)
    assert bracket == pytest.approx(-1.0 * 20**2 / (21 * 22), abs=1e-12)
    assert bracket < 0


@pytest.mark.parametrize("lam", [0.0, 0.5, 3.0])
def test_split_bracket_lower_bound(lam):
    """The bracket of eq-xgb-gain is at least -lambda G^2 / ((H + lambda)(H + 2 lambda))."""
    rng = np.random.default_rng(5)
    G_L, G_R = rng.normal(size=(2, 2000)) * 5
    H_L, H_R = rng.random((2, 2000)) * 5 + 0.01
    params = SplitParams(reg_lambda=lam, min_child_weight=0.0, float32=False)
    G, H = G_L + G_R, H_L + H_R
    bracket = split_gain(G_L, H_L, G_R, H_R, node_score(G, H, params), params)
    # by hand, without the code under test:
    by_hand = G_L**2 / (H_L + lam) + G_R**2 / (H_R + lam) - G**2 / (H + lam)
    np.testing.assert_allclose(bracket, by_hand, rtol=1e-9, atol=1e-9)
    bound = -lam * G**2 / ((H + lam) * (H + 2 * lam))
    assert np.all(by_hand >= bound - 1e-9)
    if lam == 0:
        assert np.all(by_hand >= -1e-9)
    else:
        assert np.any(by_hand < 0)
