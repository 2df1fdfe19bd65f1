"""Feature importances and partial dependence (chapter 17).

* Split counts, gains and covers equal XGBoost's ``get_score`` on identically
  grown models, and scikit-learn's MDI on an identical CART tree.
* The gain of a split is the drop of the squared error computed from the rows.
* Permutation importance is exactly 0 for a feature the model never reads.
* Partial dependence equals scikit-learn's (brute force), and the tree
  traversal equals scikit-learn's ``method="recursion"``.
* Accumulated local effects of an additive function are its own term, even
  with correlated features, and move rows only within their interval.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import load_diabetes

import mltrees
from mltrees.inspection import (
    accumulated_local_effects,
    ice_curves,
    importance,
    partial_dependence,
    permutation_importance,
    tree_partial_dependence,
)

xgb = pytest.importorskip("xgboost")
sys.path.insert(0, str(Path(__file__).parent))
from test_xgboost import _data, _xgb_margin  # noqa: E402

XGB_KINDS = {"weight": "split", "gain": "gain", "cover": "cover"}
XGB_KINDS.update({"total_gain": "total_gain", "total_cover": "total_cover"})


@pytest.mark.parametrize("xgb_kind", sorted(XGB_KINDS))
def test_importance_kinds_equal_xgboost_get_score(xgb_kind):
    X, y = _data("diabetes")
    params = {"learning_rate": 0.3, "max_depth": 4, "base_score": 150.0, "reg_lambda": 2.0}
    booster, _ = _xgb_margin(X, y, "reg:squarederror", 25, params)
    model = mltrees.XGBoostRegressor(n_estimators=25, **params).fit(X, y)
    scores = booster.get_score(importance_type=xgb_kind)
    expected = np.array([scores.get(f"f{j}", 0.0) for j in range(X.shape[1])])
    ours = importance(model, XGB_KINDS[xgb_kind])
    np.testing.assert_allclose(ours, expected, rtol=2e-5)


def test_gain_of_one_split_is_the_drop_of_squared_error():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 3))
    y = 3 * (X[:, 1] > 0.2) + rng.normal(size=200)
    model = mltrees.CARTRegressor(max_depth=1).fit(X, y)
    left = X[:, 1] <= model.tree_.threshold[0]
    sse = lambda v: ((v - v.mean()) ** 2).sum()  # noqa: E731
    drop = sse(y) - sse(y[left]) - sse(y[~left])
    np.testing.assert_allclose(importance(model, "total_gain"), [0.0, drop, 0.0], rtol=1e-10)
    np.testing.assert_array_equal(importance(model, "split"), [0, 1, 0])
    np.testing.assert_allclose(importance(model, "cover"), [0, 200, 0])


def test_normalised_total_gain_is_sklearn_mdi_on_an_identical_tree():
    from sklearn.tree import DecisionTreeRegressor

    X, y = load_diabetes(return_X_y=True)
    X = X.astype(np.float32).astype(np.float64)
    theirs = DecisionTreeRegressor(max_depth=3, random_state=0).fit(X, y)
    ours = mltrees.CARTRegressor(max_depth=3).fit(X, y)
    np.testing.assert_allclose(
        importance(ours, "total_gain", normalize=True), theirs.feature_importances_, atol=1e-12
    )


def test_importance_rejects_unknown_kinds():
    model = mltrees.CARTRegressor(max_depth=1).fit([[0.0], [1.0]], [0.0, 1.0])
    with pytest.raises(ValueError, match="kind must be one of"):
        importance(model, "weight")
    with pytest.raises(TypeError, match="normalize must be a bool"):
        importance(model, "gain", normalize="yes")


def test_permutation_importance_is_zero_for_an_unused_feature():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(300, 3))
    y = X[:, 0] + 0.1 * rng.normal(size=300)
    wide = mltrees.CARTRegressor(max_depth=3).fit(X, y)
    unused = np.flatnonzero(importance(wide, "split") == 0)
    assert unused.size  # the depth-3 tree never splits on some noise column
    result = permutation_importance(wide, X, y, n_repeats=3, random_state=0)
    np.testing.assert_array_equal(result["importances"][unused], 0.0)
    assert result["importances_mean"][0] > 0.5
    assert result["baseline"] == pytest.approx(wide.score(X, y))
    with pytest.raises(ValueError, match="n_repeats"):
        permutation_importance(wide, X, y, n_repeats=0)


def test_partial_dependence_equals_sklearn_brute_force():
    from sklearn.inspection import partial_dependence as sk_partial_dependence

    X, y = load_diabetes(return_X_y=True)
    model = mltrees.GradientBoostingRegressor(n_estimators=20, max_depth=3).fit(X, y)
    theirs = sk_partial_dependence(model, X, [2], grid_resolution=15, method="brute", kind="both")
    # scikit-learn's signature and result since 0.2.0 (CHANGELOG): the grid is its too.
    ours = partial_dependence(model, X, [2], grid_resolution=15, kind="both")
    grid = ours["grid_values"][0]
    np.testing.assert_allclose(grid, theirs["grid_values"][0], rtol=1e-12)
    _, curves = ice_curves(model.predict, X, 2, grid=grid)
    np.testing.assert_allclose(ours["average"], theirs["average"], rtol=1e-12)
    np.testing.assert_allclose(ours["individual"], theirs["individual"], rtol=1e-12)
    np.testing.assert_allclose(curves, theirs["individual"][0], rtol=1e-12)


@pytest.mark.parametrize("grid_resolution", [1, True, 2.5, "20"])
def test_a_grid_of_fewer_than_two_values_or_not_an_int_is_refused_by_name(grid_resolution):
    X = np.random.default_rng(0).normal(size=(30, 2))
    f = lambda Z: Z[:, 0]  # noqa: E731
    with pytest.raises(ValueError, match="grid_resolution must be an int >= 2"):
        ice_curves(f, X, 0, grid_resolution=grid_resolution)
    with pytest.raises(ValueError, match="grid_resolution must be an int >= 2"):
        partial_dependence(f, X, 0, grid_resolution=grid_resolution)


def test_partial_dependence_of_an_additive_function_is_its_own_term():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(100, 2))
    f = lambda Z: np.sin(Z[:, 0]) + Z[:, 1] ** 2  # noqa: E731
    result = partial_dependence(f, X, 0, custom_values={0: [-1.0, 0.0, 2.0]})
    grid, average = result["grid_values"][0], result["average"][0]
    np.testing.assert_allclose(average, np.sin(grid) + np.mean(X[:, 1] ** 2))


def test_tree_traversal_equals_sklearn_recursion_on_an_identical_tree():
    from sklearn.inspection import partial_dependence as sk_partial_dependence
    from sklearn.tree import DecisionTreeRegressor

    X, y = load_diabetes(return_X_y=True)
    X = X.astype(np.float32).astype(np.float64)
    theirs = DecisionTreeRegressor(max_depth=3, random_state=0).fit(X, y)
    ours = mltrees.CARTRegressor(max_depth=3).fit(X, y)
    expected = sk_partial_dependence(theirs, X, [8], grid_resolution=12, method="recursion")
    grid = expected["grid_values"][0]
    np.testing.assert_allclose(
        tree_partial_dependence(ours, X, 8, grid), expected["average"][0], rtol=1e-10
    )


# -- accumulated local effects ---------------------------------------------------------


def test_ale_of_an_additive_function_is_its_own_term_even_with_correlated_features():
    rng = np.random.default_rng(0)
    x1 = rng.normal(size=2000)
    X = np.column_stack([x1, 0.95 * x1 + 0.3 * rng.normal(size=2000)])

    def additive(A):
        A = np.asarray(A)
        return np.sin(2 * A[:, 0]) + A[:, 1] ** 3

    edges, ale = accumulated_local_effects(additive, X, 0, n_intervals=25)
    np.testing.assert_allclose(ale - ale[0], np.sin(2 * edges) - np.sin(2 * edges[0]), atol=1e-12)
    # centred: the mean over the rows of the value of their interval is 0
    interval = np.clip(np.searchsorted(edges, X[:, 0], side="left"), 1, edges.size - 1)
    assert abs(ale[interval].mean()) < 1e-12
    # the second feature's effect is its own term as well
    edges2, ale2 = accumulated_local_effects(additive, X, 1, n_intervals=25)
    np.testing.assert_allclose(ale2 - ale2[0], edges2**3 - edges2[0] ** 3, atol=1e-10)


def test_ale_moves_rows_only_within_their_interval():
    rng = np.random.default_rng(1)
    X = rng.uniform(0, 1, size=(500, 2))
    seen = []

    def record(A):
        seen.append(np.asarray(A).copy())
        return np.asarray(A)[:, 0] * np.asarray(A)[:, 1]

    edges, _ = accumulated_local_effects(record, X, 0, n_intervals=10)
    moved = seen[0][:, 0].reshape(2, -1)  # upper ends, then lower ends
    assert np.all(moved[0] >= X[:, 0] - 1e-12)
    assert np.all(moved[1] <= X[:, 0] + 1e-12)
    assert np.all(moved[0] - moved[1] <= np.diff(edges).max() + 1e-12)


def test_ale_with_a_frame_and_bad_input():
    rng = np.random.default_rng(2)
    frame = pd.DataFrame(rng.normal(size=(200, 2)), columns=["a", "b"])
    model = mltrees.GradientBoostingRegressor(n_estimators=10, max_depth=2).fit(
        frame, frame["a"] * 2 + frame["b"]
    )
    edges, ale = accumulated_local_effects(model.predict, frame, "a", n_intervals=8)
    assert edges.shape == ale.shape
    assert np.all(np.diff(edges) > 0)
    with pytest.raises(ValueError, match="n_intervals"):
        accumulated_local_effects(model.predict, frame, "a", n_intervals=0)
    with pytest.raises(ValueError, match="single value"):
        accumulated_local_effects(model.predict, frame.assign(a=1.0), "a")
    with pytest.raises(ValueError, match="missing values"):
        accumulated_local_effects(model.predict, frame.assign(a=np.nan), "a")


def test_oblivious_feature_importances_are_total_gain_to_the_bit():
    """CatBoost-style models sum their own gains (no call into inspection): the same numbers."""
    from mltrees import ObliviousBoostingClassifier
    from mltrees.inspection import importance as gain_importance

    rng = np.random.default_rng(3)
    X = rng.normal(size=(150, 4))
    y = (X[:, 0] + 0.5 * X[:, 2] > 0).astype(int)
    model = ObliviousBoostingClassifier(n_estimators=8, depth=3, random_state=0).fit(X, y)
    expected = gain_importance(model, kind="total_gain", normalize=True)
    assert np.array_equal(model.feature_importances_, expected)
    assert model.feature_importances_.sum() == pytest.approx(1.0)
