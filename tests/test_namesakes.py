"""Helpers with a namesake in scikit-learn, XGBoost or LightGBM take its signature.

``partial_dependence`` is scikit-learn's (estimator, X, features; a Bunch with
``grid_values``, ``average`` and ``individual``, two classes reduced to the
positive one), checked against scikit-learn itself; ``plot_importance`` is
XGBoost's and LightGBM's (the model first, ``importance_type``,
``max_num_features``); ``plot_tree``, ``export_text`` and ``to_dot`` take
LightGBM's ``tree_index`` (tests/test_drawing_every_tree.py), and ``plot_tree`` and
``to_dot`` scikit-learn's ``precision``.
"""

from __future__ import annotations

import inspect

import matplotlib
import numpy as np
import pytest
from sklearn.datasets import load_iris
from sklearn.inspection import partial_dependence as sk_partial_dependence

import mltrees
from mltrees.inspection import importance, partial_dependence, plot_importance

matplotlib.use("Agg")


@pytest.mark.parametrize("binary", [True, False])
@pytest.mark.parametrize("kind", ["average", "individual", "both"])
def test_partial_dependence_of_a_classifier_equals_scikit_learns(binary, kind):
    X, y = load_iris(return_X_y=True)
    if binary:
        y = (y == 1).astype(int)
    model = mltrees.RandomForestClassifier(n_estimators=5, random_state=0).fit(X, y)
    theirs = sk_partial_dependence(model, X, [3], grid_resolution=12, kind=kind, method="brute")
    ours = partial_dependence(model, X, [3], grid_resolution=12, kind=kind)
    assert set(ours) == set(theirs)
    np.testing.assert_allclose(ours["grid_values"][0], theirs["grid_values"][0])
    for key in ("average", "individual"):
        if key in theirs:
            assert ours[key].shape == theirs[key].shape
            np.testing.assert_allclose(ours[key], theirs[key], rtol=1e-12)


def test_partial_dependence_by_recursion_is_the_tree_traversal():
    X, y = load_iris(return_X_y=True)
    model = mltrees.GradientBoostingRegressor(n_estimators=5).fit(X, y.astype(float))
    grid = np.array([1.0, 3.0, 5.0])
    result = partial_dependence(model, X, 2, custom_values={2: grid}, method="recursion")
    expected = mltrees.inspection.tree_partial_dependence(model, X, 2, grid)
    np.testing.assert_allclose(result["average"][0], expected)


def test_the_signatures_follow_the_namesakes():
    ours = inspect.signature(partial_dependence).parameters
    theirs = inspect.signature(sk_partial_dependence).parameters
    assert list(ours)[:3] == list(theirs)[:3] == ["estimator", "X", "features"]
    for name in ("response_method", "percentiles", "grid_resolution", "custom_values", "kind"):
        assert ours[name].default == theirs[name].default, name
    xgb_like = inspect.signature(plot_importance).parameters
    assert list(xgb_like)[:2] == ["booster", "ax"]
    for name in ("height", "xlim", "ylim", "importance_type", "max_num_features", "grid"):
        assert name in xgb_like, name


def test_plot_importance_draws_the_models_importances():
    X, y = load_iris(return_X_y=True)
    model = mltrees.XGBoostClassifier(n_estimators=5, max_depth=2).fit(X, y)
    ax = plot_importance(model, importance_type="weight", max_num_features=2)
    widths = [patch.get_width() for patch in ax.patches]
    splits = importance(model, "split")
    np.testing.assert_allclose(sorted(widths), np.sort(splits)[-2:])
    labels = [tick.get_text() for tick in ax.get_yticklabels()]
    assert labels == [f"f{j}" for j in np.argsort(splits, kind="stable")[::-1][:2][::-1]]
    with pytest.raises(ValueError, match="importance_type"):
        plot_importance(model, importance_type="shap")


def test_plot_tree_and_to_dot_take_the_namesakes_precision():
    # scikit-learn's plot_tree and export_graphviz and LightGBM's plot_tree say
    # precision= for what mltrees calls decimals=.
    import matplotlib.pyplot as plt
    from sklearn.tree import export_graphviz, plot_tree

    for theirs, ours in ((plot_tree, mltrees.plot_tree), (export_graphviz, mltrees.to_dot)):
        assert "precision" in inspect.signature(theirs).parameters
        assert "precision" in inspect.signature(ours).parameters
    X, y = load_iris(return_X_y=True)
    tree = mltrees.CARTClassifier(max_depth=2).fit(X, y)
    assert mltrees.to_dot(tree, precision=1) == mltrees.to_dot(tree, decimals=1)
    assert mltrees.to_dot(tree, precision=1) != mltrees.to_dot(tree)
    texts = [
        [t.get_text() for t in mltrees.plot_tree(tree, **digits).texts]
        for digits in ({"precision": 1}, {"decimals": 1})
    ]
    plt.close("all")
    assert texts[0] == texts[1]
    with pytest.raises(ValueError, match="decimals or precision"):
        mltrees.to_dot(tree, decimals=2, precision=1)
    with pytest.raises(ValueError, match="precision"):
        mltrees.plot_tree(tree, precision=-1)
