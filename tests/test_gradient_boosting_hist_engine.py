"""Gradient boosting's histogram mode runs on the second-order learner of chapter 13.

With ``g = w r``, ``h = w`` and CART's variance rule, :mod:`mltrees.hist`
must grow the trees the tree engine grows on the same bins, so switching
engines changed no prediction of chapter 12.
"""

from __future__ import annotations

from unittest import mock

import numpy as np
import pytest
from sklearn.datasets import load_diabetes, make_classification

from mltrees import GradientBoostingClassifier, GradientBoostingRegressor
from mltrees.ensemble.gradient_boosting import _BaseGradientBoosting
from mltrees.hist.grower import DepthwiseGrower


def _tree_engine_only():
    """Force the tree engine (mltrees.tree) for the histogram mode."""
    return mock.patch.object(_BaseGradientBoosting, "_hist_grower", return_value=None)


def _assert_same_trees(a, b):
    trees_a = [t for stage in a._trees for t in stage]
    trees_b = [t for stage in b._trees for t in stage]
    assert len(trees_a) == len(trees_b)
    for x, y in zip(trees_a, trees_b, strict=True):
        np.testing.assert_array_equal(x.feature, y.feature)
        np.testing.assert_array_equal(x.threshold, y.threshold)
        internal = x.feature >= 0
        np.testing.assert_array_equal(x.first_child[internal], y.first_child[internal])
        np.testing.assert_allclose(x.value, y.value, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        {"subsample": 0.7, "random_state": 1},
        {"min_samples_leaf": 20, "max_depth": 5},
        {"min_impurity_decrease": 0.002, "max_depth": 4},
        {"min_weight_fraction_leaf": 0.05, "max_depth": None},
    ],
    ids=lambda d: "-".join(d) or "default",
)
def test_classifier_grows_the_tree_engines_trees(kwargs):
    X, y = make_classification(n_samples=4000, n_features=10, random_state=0)
    w = np.random.default_rng(0).random(len(y)) + 0.5
    new = GradientBoostingClassifier(n_estimators=20, max_bins=255, **kwargs).fit(X, y, w)
    with _tree_engine_only():
        old = GradientBoostingClassifier(n_estimators=20, max_bins=255, **kwargs).fit(X, y, w)
    _assert_same_trees(new, old)
    np.testing.assert_allclose(new.decision_function(X), old.decision_function(X), atol=1e-12)


@pytest.mark.parametrize("loss", ["squared_error", "absolute_error", "huber"])
def test_regressor_grows_the_tree_engines_trees(loss):
    X, y = load_diabetes(return_X_y=True)
    new = GradientBoostingRegressor(loss=loss, n_estimators=20, max_bins=64).fit(X, y)
    with _tree_engine_only():
        old = GradientBoostingRegressor(loss=loss, n_estimators=20, max_bins=64).fit(X, y)
    _assert_same_trees(new, old)  # median and Huber leaves come from the row -> leaf map


def test_multiclass_grows_the_tree_engines_trees():
    X, y = make_classification(
        n_samples=3000, n_features=8, n_informative=5, n_classes=3, random_state=0
    )
    new = GradientBoostingClassifier(n_estimators=10, max_bins=255).fit(X, y)
    with _tree_engine_only():
        old = GradientBoostingClassifier(n_estimators=10, max_bins=255).fit(X, y)
    _assert_same_trees(new, old)


def test_histogram_mode_uses_the_histogram_learner():
    X, y = make_classification(n_samples=500, n_features=5, random_state=0)
    with mock.patch.object(
        DepthwiseGrower, "grow", autospec=True, side_effect=DepthwiseGrower.grow
    ) as grow:
        GradientBoostingClassifier(n_estimators=3, max_bins=32).fit(X, y)
    assert grow.call_count == 3
    with mock.patch.object(DepthwiseGrower, "grow", autospec=True) as grow:
        GradientBoostingClassifier(n_estimators=3).fit(X, y)  # exact mode: the tree engine
    assert grow.call_count == 0
