"""Absolute-error regression trees: weighted medians and exact L1 split scores."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn import datasets, tree
from sklearn.model_selection import train_test_split

from mltrees import CARTRegressor
from mltrees.tree._order_statistics import RangeAbsoluteDeviation


def _brute_deviation(y, w, lo, hi):
    """min over c of sum w |y - c|, by trying every sample value as c."""
    out = []
    for a, b in zip(lo, hi, strict=True):
        ys, ws = y[a:b], w[a:b]
        out.append(min((ws * np.abs(ys - c)).sum() for c in ys) if len(ys) else 0.0)
    return np.array(out)


@pytest.mark.parametrize("seed", range(40))
def test_range_absolute_deviation_matches_brute_force(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 50))
    y = rng.integers(0, 6, n).astype(float) if seed % 2 else rng.normal(size=n)
    w = rng.uniform(0.1, 3.0, n) if seed % 3 else np.ones(n)
    lo, hi = np.sort(rng.integers(0, n + 1, size=(2, 40)), axis=0)
    ranges = RangeAbsoluteDeviation(y, w)
    np.testing.assert_allclose(
        ranges.absolute_deviation(lo, hi), _brute_deviation(y, w, lo, hi), atol=1e-9
    )


def test_leaves_predict_the_weighted_median():
    rng = np.random.default_rng(0)
    X = rng.integers(0, 3, size=(300, 1)).astype(float)
    y = rng.exponential(size=300)
    w = rng.integers(1, 4, size=300).astype(float)
    model = CARTRegressor(criterion="absolute_error", max_depth=2).fit(X, y, sample_weight=w)
    leaves = model.apply(X)
    for leaf in np.unique(leaves):
        ys, ws = y[leaves == leaf], w[leaves == leaf]
        value = model.tree_.value[leaf, 0]
        best = min((ws * np.abs(ys - c)).sum() for c in ys)
        assert (ws * np.abs(ys - value)).sum() == pytest.approx(best, rel=1e-12)


def test_integer_weights_equal_repeated_rows():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(80, 3))
    y = X[:, 0] + rng.laplace(size=80)
    w = rng.integers(1, 4, size=80)
    weighted = CARTRegressor(criterion="absolute_error", max_depth=4).fit(X, y, sample_weight=w)
    repeat = np.repeat(np.arange(80), w)
    repeated = CARTRegressor(criterion="absolute_error", max_depth=4).fit(X[repeat], y[repeat])
    np.testing.assert_allclose(weighted.predict(X), repeated.predict(X))


@pytest.mark.parametrize("max_depth", [1, 2, 3, 4])
def test_absolute_error_matches_sklearn_on_diabetes(max_depth):
    X, y = datasets.load_diabetes(return_X_y=True)
    X = X.astype(np.float32).astype(np.float64)  # sklearn rounds X to float32
    X_train, X_test, y_train, _ = train_test_split(X, y, test_size=0.3, random_state=0)
    sk = tree.DecisionTreeRegressor(criterion="absolute_error", max_depth=max_depth)
    expected = sk.set_params(random_state=0).fit(X_train, y_train).predict(X_test)
    ours = CARTRegressor(criterion="absolute_error", max_depth=max_depth).fit(X_train, y_train)
    np.testing.assert_allclose(ours.predict(X_test), expected, rtol=1e-12)


def test_split_minimises_the_sum_of_absolute_deviations():
    rng = np.random.default_rng(3)
    x = rng.uniform(size=60)
    y = np.where(x > 0.6, 5.0, 0.0) + rng.laplace(size=60)
    model = CARTRegressor(criterion="absolute_error", max_depth=1).fit(x[:, None], y)
    order = np.argsort(x)
    xs, ys = x[order], y[order]
    scores = [
        np.abs(ys[:i] - np.median(ys[:i])).sum() + np.abs(ys[i:] - np.median(ys[i:])).sum()
        for i in range(1, 60)
    ]
    best = int(np.argmin(scores)) + 1
    assert model.tree_.threshold[0] == pytest.approx((xs[best - 1] + xs[best]) / 2)
