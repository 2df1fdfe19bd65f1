"""The value range of the library-equal estimators, checked against the libraries.

:mod:`mltrees._value_range` states where XGBoost, LightGBM and CatBoost break
near the ends of the float range; the estimators that promise their trees
refuse exactly those inputs. Each claim is checked here on the smallest data
that shows it: two values, twenty rows each, one split wanted.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import mltrees as M


def _pair(a, b):
    return np.array([[a], [b]] * 20), np.array([0.0, 1.0] * 20)


def _separates(prediction) -> bool:
    return bool(prediction[1] > prediction[0] + 0.1)


@pytest.mark.filterwarnings("ignore:overflow encountered in cast:RuntimeWarning")
@pytest.mark.parametrize(
    ("pair", "breaks"),
    [((-3e38, -2e38), True), ((2e38, 3e38), True), ((-1.6e38, -1e38), False)],
)
def test_xgboost_exact_midpoint_overflow(pair, breaks):
    xgboost = pytest.importorskip("xgboost")
    X, y = _pair(*pair)
    params = {"n_estimators": 1, "learning_rate": 1.0, "reg_lambda": 0.0, "base_score": 0.5}
    library = xgboost.XGBRegressor(tree_method="exact", min_child_weight=0, **params).fit(X, y)
    assert _separates(library.predict(X[:2])) is not breaks
    ours = M.XGBoostRegressor(tree_method="exact", min_child_weight=0, **params)
    if breaks:
        with pytest.raises(ValueError, match=r"X column 0 holds the neighbouring values"):
            ours.fit(X, y)
    else:
        np.testing.assert_allclose(ours.fit(X, y).predict(X[:2]), library.predict(X[:2]))
    # hist cuts at data values: no midpoint, nothing to overflow
    hist = M.XGBoostRegressor(min_child_weight=0, **params).fit(X, y)
    assert _separates(hist.predict(X[:2]))


@pytest.mark.parametrize(
    ("pair", "breaks"),
    [((8e307, 1e308), True), ((-1e308, -8e307), True), ((8e307, 8.9e307), False)],
)
def test_lightgbm_bin_bound_overflow(pair, breaks):
    lightgbm = pytest.importorskip("lightgbm")
    X, y = _pair(*pair)
    params = {"n_estimators": 5, "min_child_samples": 1, "min_data_in_bin": 1}
    library = lightgbm.LGBMRegressor(verbose=-1, **params).fit(X, y)
    assert _separates(library.predict(X[:2])) is not breaks
    ours = M.LightGBMRegressor(**params)
    if breaks:
        with pytest.raises(ValueError, match=r"X column 0 holds the neighbouring values"):
            ours.fit(X, y)
    else:
        np.testing.assert_allclose(ours.fit(X, y).predict(X[:2]), library.predict(X[:2]))


@pytest.mark.parametrize(("scale", "breaks"), [(1e300, True), (3.4e38, False)])
def test_catboost_float32_range(scale, breaks):
    catboost = pytest.importorskip("catboost")
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 3))
    y = (X[:, 0] + 0.5 * X[:, 1] > 0).astype(int)
    huge = X / np.abs(X).max() * scale
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        library = catboost.CatBoostClassifier(
            iterations=5, verbose=0, thread_count=1, allow_writing_files=False
        )
        accuracy = np.mean(library.fit(huge, y).predict(huge) == y)
    assert bool(accuracy < 0.6) is breaks  # a constant model predicts the majority class
    ours = M.ObliviousBoostingClassifier(n_estimators=5)
    if breaks:
        with pytest.raises(ValueError, match=r"beyond float32's largest value"):
            ours.fit(huge, y)
    else:
        assert np.mean(ours.fit(huge, y).predict(huge) == y) > 0.9
