"""The small-data paths grow the same trees as the paths they replace.

* CART's split search scores every numeric feature of a level in one pass
  (``mltrees.tree._split_batched``) instead of one pass per feature;
* random forests grow a batch of trees level by level together
  (``grow_trees_together``) instead of one tree after another.

Both claims are "the same trees, bit for bit": every array of every tree is
compared, on data with ties, constant and duplicated columns, weights,
categorical columns and missing values.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import mltrees.ensemble.bagging as bagging_module
import mltrees.tree._split as split_module
from mltrees import (
    CARTClassifier,
    CARTRegressor,
    RandomForestClassifier,
    RandomForestRegressor,
)
from mltrees.criteria import class_impurity

TREE_ARRAYS = (
    "feature",
    "kind",
    "threshold",
    "first_child",
    "n_children",
    "route_offset",
    "route_table",
    "n_categories",
    "value",
    "impurity",
    "n_node_samples",
    "weighted_n_node_samples",
    "depth",
    "parent",
    "missing_slot",
)


def _assert_same_tree(a, b):
    for name in TREE_ARRAYS:
        x, y = getattr(a, name), getattr(b, name)
        assert x.shape == y.shape, name
        assert np.array_equal(x, y, equal_nan=x.dtype.kind == "f"), name


def _data(seed, n=300, task="classification", categorical=False, holes=False):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 6)).round(1)  # rounding makes ties
    X[:, 3] = 1.0  # constant
    X[:, 4] = X[:, 0]  # duplicate: tied gains, the lower index wins
    X[:, 5] = rng.integers(0, 4, n)
    if holes:
        X[rng.random(X.shape) < 0.1] = np.nan
    frame = pd.DataFrame(X, columns=[f"x{j}" for j in range(6)])
    if categorical:
        frame["c"] = pd.Categorical(rng.choice(list("abcde"), n))
    signal = np.nan_to_num(X[:, 0]) + 0.5 * np.nan_to_num(X[:, 1])
    if task == "classification":
        y = (signal + rng.normal(scale=0.7, size=n) > 0).astype(int) + (X[:, 5] == 3)
    else:
        y = signal + rng.normal(scale=0.5, size=n)
    weights = rng.choice([0.5, 1.0, 2.0], n)
    return frame, y, weights


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("task", ["classification", "regression"])
@pytest.mark.parametrize(
    "params",
    [
        {},
        {"min_samples_leaf": 3, "max_depth": 5},
        {"criterion": "entropy", "max_bins": 16},
        {"min_weight_fraction_leaf": 0.02},
    ],
)
def test_cart_one_pass_equals_per_feature(monkeypatch, seed, task, params):
    if task == "regression":
        params = {k: v for k, v in params.items() if k != "criterion"}
    cls = CARTClassifier if task == "classification" else CARTRegressor
    X, y, w = _data(seed, task=task, categorical=seed % 2 == 1, holes=seed >= 2)
    grown = cls(missing="default_direction", **params).fit(X, y, sample_weight=w).tree_
    monkeypatch.setattr(split_module, "batched_features", lambda *a: np.zeros(0, np.intp))
    alone = cls(missing="default_direction", **params).fit(X, y, sample_weight=w).tree_
    _assert_same_tree(grown, alone)


@pytest.mark.filterwarnings("ignore:.*no out-of-bag prediction")
@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("task", ["classification", "regression"])
@pytest.mark.parametrize(
    "params",
    [
        {},
        {"max_features": 0.5, "bootstrap": False},
        {"max_depth": 4, "oob_score": True, "ccp_alpha": 0.002},
        {"min_samples_leaf": 3, "max_features": None, "max_bins": 8},
        {"class_weight": "balanced_subsample"},
        {"missing": "default_direction"},
    ],
)
def test_forest_grown_together_equals_one_by_one(monkeypatch, seed, task, params):
    if task == "regression":
        params = {k: v for k, v in params.items() if k != "class_weight"}
    cls = RandomForestClassifier if task == "classification" else RandomForestRegressor
    holes = params.get("missing") == "default_direction"
    X, y, w = _data(seed, task=task, categorical=seed == 1, holes=holes)
    # Small batches too: trees 0-3, 4-7, 8-11 grown together.
    together = cls(n_estimators=12, random_state=seed, **params).fit(X, y, sample_weight=w)
    monkeypatch.setattr(bagging_module, "TOGETHER_ROWS", 4 * len(X))
    batched = cls(n_estimators=12, random_state=seed, **params).fit(X, y, sample_weight=w)
    monkeypatch.setattr(bagging_module, "TOGETHER_ROWS", 0)  # one tree per batch: grown alone
    alone = cls(n_estimators=12, random_state=seed, **params).fit(X, y, sample_weight=w)
    for a, b, c in zip(together.estimators_, batched.estimators_, alone.estimators_, strict=True):
        _assert_same_tree(a.tree_, c.tree_)
        _assert_same_tree(b.tree_, c.tree_)
    if params.get("oob_score"):
        assert together.oob_score_ == alone.oob_score_


@pytest.mark.parametrize("task", ["classification", "regression"])
def test_forest_with_a_few_missing_values_grown_together_equals_one_by_one(monkeypatch, task):
    """Some bootstrap samples hold the one row with a missing value, some do not."""
    cls = RandomForestClassifier if task == "classification" else RandomForestRegressor
    X, y, w = _data(0, task=task)
    X.iloc[7, 1] = np.nan
    together = cls(n_estimators=12, random_state=0).fit(X, y, sample_weight=w)
    monkeypatch.setattr(bagging_module, "TOGETHER_ROWS", 0)
    alone = cls(n_estimators=12, random_state=0).fit(X, y, sample_weight=w)
    for a, b in zip(together.estimators_, alone.estimators_, strict=True):
        _assert_same_tree(a.tree_, b.tree_)


def test_class_impurity_does_not_depend_on_the_other_nodes():
    """A node's impurity is the same float computed alone or among others, in any layout."""
    rng = np.random.default_rng(0)
    for k in (2, 3, 4, 9, 20):
        weights = rng.integers(0, 500, (50, k)).astype(float)
        for criterion in ("gini", "entropy"):
            c_order = class_impurity(weights, criterion)
            f_order = class_impurity(np.asfortranarray(weights), criterion)
            alone = np.array([class_impurity(weights[i : i + 1], criterion)[0] for i in range(50)])
            assert np.array_equal(c_order, alone)
            assert np.array_equal(f_order, alone)
