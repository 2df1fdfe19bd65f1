"""mltrees.losses against finite differences and brute-force minimisation.

Every derivative is checked against a central difference of ``value`` (or
of ``gradient``), and every optimal constant or leaf value against a
numerical minimisation of the (weighted) loss with scipy -- an independent
computation that shares no code with the closed forms under test.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy.optimize import minimize_scalar

from mltrees import losses

RNG = np.random.default_rng(0)
N = 40


def _regression_case(seed=0):
    rng = np.random.default_rng(seed)
    y = rng.normal(size=N) * 3 + rng.standard_t(2, size=N)
    raw = rng.normal(size=N)
    w = rng.uniform(0.2, 2.0, size=N)
    return y, raw, w


def _binary_case(seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, size=N).astype(np.float64)
    raw = rng.normal(size=N) * 2
    w = rng.uniform(0.2, 2.0, size=N)
    return y, raw, w


SMOOTH = [
    (losses.SquaredError(), _regression_case),
    (losses.HuberLoss(delta=1.5), _regression_case),
    (losses.AbsoluteError(), _regression_case),
    (losses.BinomialLogLoss(), _binary_case),
    (losses.ExponentialLoss(), _binary_case),
]


@pytest.mark.parametrize(("loss", "case"), SMOOTH, ids=lambda v: repr(v)[:20])
def test_gradient_is_the_derivative_of_the_value(loss, case):
    y, raw, _ = case()
    h = 1e-6
    numeric = (loss.value(y, raw + h) - loss.value(y, raw - h)) / (2 * h)
    # Away from kinks (|y - F| == delta or 0) the central difference is exact to O(h^2).
    np.testing.assert_allclose(loss.gradient(y, raw), numeric, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize(("loss", "case"), SMOOTH, ids=lambda v: repr(v)[:20])
def test_hessian_is_the_derivative_of_the_gradient(loss, case):
    y, raw, _ = case()
    h = 1e-6
    numeric = (loss.gradient(y, raw + h) - loss.gradient(y, raw - h)) / (2 * h)
    np.testing.assert_allclose(loss.hessian(y, raw), numeric, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize(("loss", "case"), SMOOTH, ids=lambda v: repr(v)[:20])
def test_init_minimises_the_weighted_loss(loss, case):
    y, _, w = case()

    def total(c):
        return np.sum(w * loss.value(y, np.full(N, c)))

    brute = minimize_scalar(total, bounds=(-20, 20), method="bounded", options={"xatol": 1e-10}).x
    c = float(loss.init(y, w))
    if isinstance(loss, losses.HuberLoss):
        # Friedman starts Huber boosting at the median, not at Huber's own minimiser.
        assert c == losses.AbsoluteError().init(y, w)
        return
    # The minimiser's loss: our constant must be at least as good (to 1e-8 relative).
    assert total(c) <= total(brute) * (1 + 1e-8) + 1e-12
    assert c == pytest.approx(brute, abs=1e-4)


def _leaves(n_nodes=4, seed=1):
    return np.random.default_rng(seed).integers(0, n_nodes, size=N)


EXACT_LEAF = [
    (losses.SquaredError(), _regression_case),
    (losses.AbsoluteError(), _regression_case),
    (losses.ExponentialLoss(), _binary_case),
]


@pytest.mark.parametrize(("loss", "case"), EXACT_LEAF, ids=lambda v: repr(v)[:20])
def test_exact_leaf_values_minimise_each_leaf(loss, case):
    y, raw, w = case()
    leaf = _leaves()
    values = loss.leaf_values(y, raw, leaf, 5, w)
    assert values[4] == 0.0  # a node without samples gets no update
    for j in range(4):
        at = leaf == j

        def total(g, at=at):
            return np.sum(w[at] * loss.value(y[at], raw[at] + g))

        brute = minimize_scalar(
            total, bounds=(-30, 30), method="bounded", options={"xatol": 1e-11}
        ).x
        assert total(values[j]) <= total(brute) * (1 + 1e-9) + 1e-12
        assert values[j] == pytest.approx(brute, abs=1e-4)


def _newton_by_differences(loss, y, raw, w, at, h=1e-4):
    """-L'(0) / L''(0) of a leaf's total loss, by central differences."""

    def total(g):
        return np.sum(w[at] * loss.value(y[at], raw[at] + g))

    first = (total(h) - total(-h)) / (2 * h)
    second = (total(h) - 2 * total(0.0) + total(-h)) / (h * h)
    return -first / second


def test_binomial_leaf_is_one_newton_step():
    loss = losses.BinomialLogLoss()
    y, raw, w = _binary_case()
    leaf = _leaves()
    values = loss.leaf_values(y, raw, leaf, 4, w)
    for j in range(4):
        expected = _newton_by_differences(loss, y, raw, w, leaf == j)
        assert values[j] == pytest.approx(expected, rel=1e-5)


def test_multinomial_matches_differences_and_friedman_step():
    k = 3
    loss = losses.MultinomialLogLoss(k)
    rng = np.random.default_rng(3)
    y = rng.integers(0, k, size=N)
    raw = rng.normal(size=(N, k))
    w = rng.uniform(0.5, 1.5, size=N)
    h = 1e-6
    for c in range(k):
        step = np.zeros((N, k))
        step[:, c] = h
        numeric = (loss.value(y, raw + step) - loss.value(y, raw - step)) / (2 * h)
        np.testing.assert_allclose(loss.gradient(y, raw)[:, c], numeric, rtol=1e-6, atol=1e-8)
        numeric_h = (loss.gradient(y, raw + step) - loss.gradient(y, raw - step))[:, c] / (2 * h)
        np.testing.assert_allclose(loss.hessian(y, raw)[:, c], numeric_h, rtol=1e-5, atol=1e-7)
    # The probabilities of softmax sum to 1, and the init reproduces the class shares.
    init = loss.init(y, w)
    share = np.bincount(y, weights=w, minlength=k) / w.sum()
    np.testing.assert_allclose(loss.predict_proba(init[None, :])[0], share, rtol=1e-12)
    # Leaf of class c: (K-1)/K times a Newton step on column c alone.
    leaf = _leaves()
    for c in range(k):
        values = loss.leaf_values(y, raw, leaf, 4, w, column=c)
        for j in range(4):
            at = leaf == j

            def total(g, at=at, c=c):
                shifted = raw[at].copy()
                shifted[:, c] += g
                return np.sum(w[at] * loss.value(y[at], shifted))

            hh = 1e-4
            first = (total(hh) - total(-hh)) / (2 * hh)
            second = (total(hh) - 2 * total(0.0) + total(-hh)) / hh**2
            assert values[j] == pytest.approx((k - 1) / k * (-first / second), rel=1e-5)


def test_huber_leaf_is_friedmans_step_and_exact_inside_the_quadratic_zone():
    loss = losses.HuberLoss(delta=1.0)
    y, raw, w = _regression_case()
    leaf = _leaves()
    values = loss.leaf_values(y, raw, leaf, 4, w)
    for j in range(4):
        at = leaf == j
        r = y[at] - raw[at]
        # Friedman (2001), eq. 24, written out by hand with a brute-force weighted median.
        grid = np.sort(r)
        costs = [np.sum(w[at] * np.abs(r - m)) for m in grid]
        median = grid[int(np.argmin(costs))]
        expected = median + np.sum(w[at] * np.clip(r - median, -1, 1)) / w[at].sum()
        assert values[j] == pytest.approx(expected, rel=1e-9)
    # When every residual is within delta of the leaf's value, the step is the exact minimiser.
    small = np.random.default_rng(5).uniform(-0.3, 0.3, size=N)
    values = loss.leaf_values(small, np.zeros(N), np.zeros(N, dtype=np.intp), 1)
    brute = minimize_scalar(
        lambda g: loss.value(small, np.full(N, g)).sum(),
        bounds=(-1, 1),
        method="bounded",
        options={"xatol": 1e-11},
    ).x
    assert values[0] == pytest.approx(brute, abs=1e-6)


def test_huber_delta_is_the_quantile_of_absolute_residuals():
    y = np.arange(1.0, 11.0)  # |y - 0| = 1..10
    loss = losses.HuberLoss.from_quantile(y, np.zeros(10), alpha=0.9)
    # The cumulative share reaches 0.9 exactly at 9, so the quantile is the midpoint
    # with the next value (numpy's "averaged_inverted_cdf"): 9.5.
    assert loss.delta == 9.5


def test_weighted_quantile_by_group_matches_numpy_median():
    rng = np.random.default_rng(7)
    values = rng.normal(size=200)
    group = rng.integers(0, 6, size=200)
    medians = losses.weighted_quantile_by_group(values, np.ones(200), group, 7)
    for j in range(6):
        assert medians[j] == pytest.approx(np.median(values[group == j]), abs=1e-14)
    assert medians[6] == 0.0
    for q in (0.1, 0.33, 0.5, 0.9):
        quantiles = losses.weighted_quantile_by_group(values, np.ones(200), group, 6, q)
        for j in range(6):
            expected = np.quantile(values[group == j], q, method="averaged_inverted_cdf")
            assert quantiles[j] == pytest.approx(expected, abs=1e-14)


def test_newton_step_with_l2():
    g = np.array([1.0, 2.0, -1.0])
    h = np.array([0.5, 0.5, 1.0])
    leaf = np.array([0, 0, 1])
    # Leaf 0: -(3) / (1 + 2) = -1; leaf 1: 1 / (1 + 2) = 1/3.
    np.testing.assert_allclose(losses.newton_step(g, h, leaf, 2, l2=2.0), [-1.0, 1 / 3])


def test_adaboost_alpha_is_the_exponential_leaf_value():
    # A classifier's "+1" region is a leaf: its optimal value under the exponential
    # loss is 1/2 ln((1 - eps)/eps), AdaBoost's alpha (chapter 11).
    y = np.array([1, 1, 1, 0])  # h = +1 everywhere: one mistake of weight 0.25
    value = losses.ExponentialLoss().leaf_values(y, np.zeros(4), np.zeros(4, dtype=np.intp), 1)
    assert value[0] == pytest.approx(0.5 * np.log(0.75 / 0.25))


def test_get_loss_names():
    assert isinstance(losses.get_loss("log_loss", n_classes=2), losses.BinomialLogLoss)
    assert isinstance(losses.get_loss("log_loss", n_classes=4), losses.MultinomialLogLoss)
    with pytest.raises(ValueError, match="unknown loss"):
        losses.get_loss("hinge")
    with pytest.raises(ValueError, match="delta"):
        losses.HuberLoss(delta=0)
