"""SHAP interaction values (chapter 17) against their definition, ``shap`` and XGBoost.

* The Shapley interaction index by enumeration reproduces games worked by hand.
* The pairwise path weights of eq-shap-interaction-path equal the sums over
  subsets they replace.
* ``tree_shap_interactions`` equals the interaction index computed by
  enumerating all coalitions (path-dependent and interventional) on every
  model kind that ``tree_shap`` explains; its rows sum to the SHAP values.
* It equals ``shap.TreeExplainer(...).shap_interaction_values`` (shap 0.51) on
  every model kind, the trees handed to shap by ``to_shap_trees`` as shap's
  documented custom-tree dictionaries (categorical and multiway nodes
  rewritten as chains of threshold nodes on the same feature, which leaves
  the game unchanged; so SHAP values and E f must agree too), on an
  identically grown scikit-learn tree, and XGBoost's own ``pred_interactions``
  on identically grown XGBoost models.
* shap 0.51 has no interventional interaction values: it returns zeros.
* Saabas attributions add up and equal shap's ``approximate=True`` on every
  kind and XGBoost's ``approx_contribs`` on an identically grown model.
"""

from __future__ import annotations

import sys
from itertools import combinations
from math import factorial
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mltrees
from mltrees.inspection import (
    brute_force_shap,
    brute_force_shap_interactions,
    interaction_weights,
    saabas,
    shapley_interaction_values,
    shapley_values,
    to_shap_trees,
    tree_shap,
    tree_shap_interactions,
    view_of,
)
from mltrees.tree._tree import CATEGORICAL_NODE

shap = pytest.importorskip("shap")
xgb = pytest.importorskip("xgboost")

sys.path.insert(0, str(Path(__file__).parent))
from test_treeshap import MODELS, NO_INTERVENTIONAL, X_CAT, X_NUM, Y_3, Y_REG, _rows  # noqa: E402
from test_xgboost import _data, _with_nan, _xgb_margin  # noqa: E402

# ----------------------------------------------------------------------------
# The interaction index of a game
# ----------------------------------------------------------------------------


def test_unanimity_game_of_a_pair_is_all_interaction():
    # u(S) = 1 iff {0, 1} in S: neither player does anything alone.
    Phi = shapley_interaction_values(lambda s: float(s[0] and s[1]), 2)
    np.testing.assert_allclose(Phi, [[0.0, 0.5], [0.5, 0.0]], atol=1e-15)


def test_unanimity_game_of_three_players_by_hand():
    # Phi_ij = 1/2 * (Shapley value of i in w(S) = 1[{i, k} in S]) = 1/4;
    # the main effect is what is left of phi_i = 1/3: 1/3 - 2/4 = -1/6.
    Phi = shapley_interaction_values(lambda s: float(s.all()), 3)
    expected = np.full((3, 3), 0.25)
    np.fill_diagonal(expected, -1 / 6)
    np.testing.assert_allclose(Phi, expected, atol=1e-15)


def test_additive_game_has_no_interactions():
    a = np.array([1.0, -2.0, 0.5, 3.0])
    Phi = shapley_interaction_values(lambda s: float(a @ s), 4)
    np.testing.assert_allclose(Phi, np.diag(a), atol=1e-14)


@given(st.integers(0, 2**32 - 1))
@settings(max_examples=30, deadline=None)
def test_rows_sum_to_the_shapley_values_and_the_matrix_is_symmetric(seed):
    rng = np.random.default_rng(seed)
    table = rng.normal(size=16)
    game = lambda s: table[int((s * (1 << np.arange(4))).sum())]  # noqa: E731
    Phi = shapley_interaction_values(game, 4)
    np.testing.assert_allclose(Phi, Phi.T, atol=1e-12)
    np.testing.assert_allclose(Phi.sum(axis=1), shapley_values(game, 4), atol=1e-12)


@given(st.integers(0, 2**32 - 1), st.integers(2, 7))
@settings(max_examples=60, deadline=None)
def test_pair_weights_equal_the_sum_over_subsets(seed, L):
    rng = np.random.default_rng(seed)
    z = rng.uniform(0, 1, L)
    o = rng.choice([0.0, 1.0, 0.3], L)
    z[rng.random(L) < 0.3] = 0.0  # zero covers, with o = 0 some factors vanish
    W = interaction_weights(z, o)
    for i in range(L):
        for j in range(L):
            if i == j:
                assert W[i, j] == 0.0
                continue
            others = [k for k in range(L) if k not in (i, j)]
            expected = 0.0
            for size in range(L - 1):
                for S in combinations(others, size):
                    rest = [k for k in others if k not in S]
                    weight = factorial(size) * factorial(L - 2 - size) / factorial(L - 1)
                    expected += weight * np.prod(o[list(S)]) * np.prod(z[rest])
            assert W[i, j] == pytest.approx(expected, rel=1e-10, abs=1e-14)


# ----------------------------------------------------------------------------
# Against the definition, on every model kind
# ----------------------------------------------------------------------------


@pytest.fixture(scope="module", params=sorted(MODELS))
def fitted(request):
    make, X, y = MODELS[request.param]
    return request.param, make().fit(X, y), X


def test_equal_the_definition_path_dependent(fitted):
    _, model, X = fitted
    rows = _rows(X, 0, 15)
    ours = tree_shap_interactions(model, rows)
    np.testing.assert_allclose(ours.values, brute_force_shap_interactions(model, rows), atol=1e-12)


def test_equal_the_definition_interventional(fitted):
    name, model, X = fitted
    if name in NO_INTERVENTIONAL:
        pytest.skip("rows routed down every branch have no interventional value")
    rows, background = _rows(X, 0, 10), _rows(X, 100, 116)
    ours = tree_shap_interactions(model, rows, background=background)
    expected = brute_force_shap_interactions(model, rows, background=background)
    np.testing.assert_allclose(ours.values, expected, atol=1e-12)


def test_rows_sum_to_tree_shap_and_matrices_to_the_output(fitted):
    _, model, X = fitted
    rows = _rows(X, 0, 60)
    ours = tree_shap_interactions(model, rows)
    np.testing.assert_allclose(ours.shap_values, tree_shap(model, rows).values, atol=1e-12)
    output = view_of(model).output(rows)
    np.testing.assert_allclose(ours.prediction.reshape(output.shape), output, atol=1e-10)
    axes = (0, 2, 1, *range(3, ours.values.ndim))
    np.testing.assert_allclose(ours.values, ours.values.transpose(axes), atol=1e-12)


def test_long_paths_and_many_rows_in_blocks(monkeypatch):
    import mltrees.inspection.interactions as module

    monkeypatch.setattr(module, "BLOCK_ENTRIES", 1 << 10)  # many blocks of rows and leaves
    rng = np.random.default_rng(5)
    X = rng.normal(size=(300, 7))
    y = X.sum(axis=1) + X[:, 0] * X[:, 1]
    model = mltrees.CARTRegressor(min_samples_leaf=3).fit(X, y)
    rows = X[:40]
    ours = tree_shap_interactions(model, rows)
    np.testing.assert_allclose(ours.values, brute_force_shap_interactions(model, rows), atol=1e-11)
    ours = tree_shap_interactions(model, rows[:6], background=X[200:210])
    expected = brute_force_shap_interactions(model, rows[:6], background=X[200:210])
    np.testing.assert_allclose(ours.values, expected, atol=1e-11)


# ----------------------------------------------------------------------------
# Against shap 0.51, on every model kind
# ----------------------------------------------------------------------------


def _shap_interactions(model, rows):
    view = view_of(model)
    explainer = shap.TreeExplainer(to_shap_trees(view))
    values = view.encode(rows)
    return explainer, explainer.shap_interaction_values(values)


# C4.5's rows split over every branch have no equivalent in shap's trees.
NO_SHAP_FORM = {"c45-missing", "bagging-c45-missing"}


def test_equal_shap_interaction_values_on_every_model_kind(fitted):
    name, model, X = fitted
    if name in NO_SHAP_FORM:
        with pytest.raises(ValueError, match="rows_without_missing=True"):
            to_shap_trees(model)
        return
    rows = _rows(X, 0, 80)
    explainer, theirs = _shap_interactions(model, rows)
    ours = tree_shap_interactions(model, rows)
    assert theirs.shape == ours.values.shape
    np.testing.assert_allclose(ours.values, theirs, atol=1e-10)
    # the converted trees are the same model: same SHAP values and E f
    np.testing.assert_allclose(
        tree_shap(model, rows).values,
        explainer.shap_values(view_of(model).encode(rows)),
        atol=1e-10,
    )
    np.testing.assert_allclose(
        np.ravel(ours.expected_value), np.ravel(explainer.expected_value), atol=1e-10
    )


def test_id3_at_its_defaults_has_no_shap_form():
    # ID3's default sends a missing value down every branch (C4.5's rule).
    model = mltrees.ID3Classifier().fit(X_CAT, MODELS["id3-categories"][2])
    with pytest.raises(ValueError, match="rows_without_missing=True"):
        to_shap_trees(model)


def test_c45_on_rows_without_missing_values_equals_shap():
    model = mltrees.C45Classifier().fit(X_NUM, Y_3)
    rows = X_NUM[:80]
    explainer = shap.TreeExplainer(to_shap_trees(model, rows_without_missing=True))
    theirs = explainer.shap_interaction_values(rows)
    np.testing.assert_allclose(tree_shap_interactions(model, rows).values, theirs, atol=1e-10)


def test_the_chain_rewrite_is_exercised_by_categorical_and_multiway_nodes():
    for name in ("id3-categories", "cart-categories", "oblivious-categories"):
        make, X, y = MODELS[name]
        view = view_of(make().fit(X, y))
        assert any((t.kind == CATEGORICAL_NODE).any() for t in view.trees), name
    view = view_of(MODELS["id3-categories"][0]().fit(X_CAT, MODELS["id3-categories"][2]))
    assert max(int(t.n_children.max()) for t in view.trees) > 2  # multiway


def test_equal_shap_on_an_identically_grown_sklearn_tree():
    from sklearn.tree import DecisionTreeRegressor
    from test_treeshap import _assert_same_splits, _diabetes

    X, y = _diabetes()
    theirs = DecisionTreeRegressor(max_depth=3, random_state=0).fit(X, y)
    ours = mltrees.CARTRegressor(max_depth=3).fit(X, y)
    _assert_same_splits(theirs, ours)
    expected = shap.TreeExplainer(theirs).shap_interaction_values(X[:50])
    np.testing.assert_allclose(tree_shap_interactions(ours, X[:50]).values, expected, atol=1e-9)


@pytest.mark.parametrize("case", ["regression", "logistic-missing", "multiclass"])
def test_equal_xgboost_pred_interactions_on_identically_grown_models(case):
    if case == "regression":
        X, y = _data("diabetes")
        params = {"learning_rate": 0.3, "max_depth": 4, "base_score": 150.0}
        booster, _ = _xgb_margin(X, y, "reg:squarederror", 15, params)
        model = mltrees.XGBoostRegressor(n_estimators=15, **params).fit(X, y)
    elif case == "logistic-missing":
        X, y = _data("breast_cancer")
        X = _with_nan(X, 0.2, seed=3)[:, :8]
        params = {"learning_rate": 0.3, "max_depth": 3, "base_score": 0.5}
        booster, _ = _xgb_margin(X, y, "binary:logistic", 15, params)
        model = mltrees.XGBoostClassifier(n_estimators=15, **params).fit(X, y)
    else:
        X, y = _data("iris")
        params = {"learning_rate": 0.3, "max_depth": 3, "base_score": 0.5}
        booster, _ = _xgb_margin(X, y, "multi:softprob", 8, params, num_class=3)
        model = mltrees.XGBoostClassifier(n_estimators=8, **params).fit(X, y)
    rows = X[:60]
    theirs = booster.predict(xgb.DMatrix(rows), pred_interactions=True)
    ours = tree_shap_interactions(model, rows).values
    if theirs.ndim == 4:  # (n, K, d + 1, d + 1)
        theirs = theirs[:, :, :-1, :-1].transpose(0, 2, 3, 1)
    else:
        theirs = theirs[:, :-1, :-1]
    scale = max(1.0, float(np.abs(theirs).max()))
    np.testing.assert_allclose(ours, theirs, atol=2e-5 * scale)


def test_shap_has_no_interventional_interaction_values(capfd):
    """shap 0.51 prints a message and returns zeros; chapter 17 says so."""
    from sklearn.tree import DecisionTreeRegressor

    model = DecisionTreeRegressor(max_depth=4, random_state=0).fit(X_NUM, Y_REG)
    explainer = shap.TreeExplainer(model, data=X_NUM[:50], feature_perturbation="interventional")
    theirs = explainer.shap_interaction_values(X_NUM[:5])
    assert "does not support interactions" in capfd.readouterr().err
    assert np.all(theirs == 0.0)
    ours = mltrees.CARTRegressor(max_depth=4).fit(X_NUM, Y_REG)
    values = tree_shap_interactions(ours, X_NUM[:5], background=X_NUM[:50]).values
    assert np.abs(values - np.diagonal(values, axis1=1, axis2=2)[:, :, None] * np.eye(5)).max() > 0


def _integer_rows(seed, n):
    draw = np.random.default_rng(seed)
    X = draw.integers(0, 40, size=(n, 4)).astype(float)
    return X, X[:, 0] * X[:, 1] / 40 + np.where(X[:, 2] > 20, 3.0, 0.0) + draw.normal(0, 1, n)


def test_single_precision_thresholds_make_shaps_interventional_kernel_exact_on_integer_data():
    # Integer data sit exactly on XGBoost's cuts (x < 11). shap 0.51's interventional kernel
    # compares in float32, where the largest double below 11 is 11 again; with the thresholds
    # lowered to float32 its values equal the exact ones to its single precision (chapter 17).
    X, y = _integer_rows(0, 400)
    model = mltrees.XGBoostRegressor(n_estimators=8, max_depth=3).fit(X, y)
    rows, background = X[:60], X[300:340]
    exact = tree_shap(model, rows, background=background)
    np.testing.assert_allclose(
        exact.values[:5], brute_force_shap(model, rows[:5], background=background), atol=1e-11
    )

    def interventional(custom):
        explainer = shap.TreeExplainer(
            custom, data=background, feature_perturbation="interventional"
        )
        return explainer.shap_values(rows, check_additivity=False)

    as_written = np.abs(interventional(to_shap_trees(model)) - exact.values).max()
    lowered = np.abs(
        interventional(to_shap_trees(model, single_precision=True)) - exact.values
    ).max()
    assert lowered < 1e-5 * np.abs(exact.values).max()
    # the precision of shap's kernel, not of the model, is the issue
    assert as_written > 100 * lowered


def test_single_precision_thresholds_are_float32_and_route_float32_data_as_before():
    X, y = _integer_rows(1, 300)
    model = mltrees.XGBoostRegressor(n_estimators=5, max_depth=3).fit(X, y)
    doubles = to_shap_trees(model)
    singles = to_shap_trees(model, single_precision=True)
    for a, b in zip(doubles["trees"], singles["trees"], strict=True):
        internal = a["children_left"] >= 0
        t, t32 = a["thresholds"][internal], b["thresholds"][internal]
        assert np.array_equal(t32, t32.astype(np.float32).astype(np.float64))
        assert (t32 <= t).all()
        assert (np.nextafter(t32.astype(np.float32), np.float32(np.inf)) > t).all()
    # shap's path-dependent values are unchanged on these (integer) rows
    values = [shap.TreeExplainer(d).shap_values(X[:50]) for d in (doubles, singles)]
    np.testing.assert_allclose(values[0], values[1], atol=1e-12)


# ----------------------------------------------------------------------------
# Bad input
# ----------------------------------------------------------------------------


def test_bad_input():
    model = mltrees.CARTRegressor(max_depth=2).fit(X_NUM, Y_REG)
    with pytest.raises(ValueError, match="background must hold at least one row"):
        tree_shap_interactions(model, X_NUM[:3], background=X_NUM[:0])
    with pytest.raises(TypeError, match="model must be a fitted mltrees tree model"):
        tree_shap_interactions(object(), X_NUM[:3])
    with pytest.raises(ValueError, match="n_players"):
        shapley_interaction_values(lambda s: 0.0, 0)
    with pytest.raises(TypeError, match="rows_without_missing must be True or False"):
        to_shap_trees(model, rows_without_missing="yes")
    with pytest.raises(TypeError, match="single_precision must be True or False"):
        to_shap_trees(model, single_precision=1)
    c45 = mltrees.C45Classifier().fit(MODELS["c45-missing"][1], MODELS["c45-missing"][2])
    with pytest.raises(ValueError, match="interventional"):
        tree_shap_interactions(c45, MODELS["c45-missing"][1][:20], background=X_NUM[:5])


def test_frame_input_and_names():
    frame = pd.DataFrame(X_NUM, columns=list("abcde"))
    model = mltrees.GradientBoostingRegressor(n_estimators=5, max_depth=3).fit(frame, Y_REG)
    ours = tree_shap_interactions(model, frame.iloc[:10])
    assert ours.feature_names == list("abcde")
    assert ours.values.shape == (10, 5, 5)
    assert ours.main_effects.shape == (10, 5)


# ----------------------------------------------------------------------------
# Saabas attributions (chapter 17's foil for consistency)
# ----------------------------------------------------------------------------


def test_saabas_adds_up_and_equals_shap_approximate_on_every_model_kind(fitted):
    name, model, X = fitted
    rows = _rows(X, 0, 60)
    if name in NO_SHAP_FORM:
        with pytest.raises(ValueError, match="no Saabas attribution"):
            saabas(model, rows)
        return
    ours = saabas(model, rows)
    output = view_of(model).output(rows)
    np.testing.assert_allclose(ours.prediction.reshape(output.shape), output, atol=1e-10)
    np.testing.assert_allclose(
        np.ravel(ours.expected_value), np.ravel(tree_shap(model, rows).expected_value), atol=1e-12
    )
    explainer = shap.TreeExplainer(to_shap_trees(model))
    theirs = explainer.shap_values(view_of(model).encode(rows), approximate=True)
    np.testing.assert_allclose(ours.values, theirs, atol=1e-10)


def test_saabas_equals_xgboost_approx_contribs_on_an_identically_grown_model():
    X, y = _data("breast_cancer")
    X = _with_nan(X, 0.1, seed=4)
    params = {"learning_rate": 0.3, "max_depth": 4, "base_score": 0.5}
    booster, _ = _xgb_margin(X, y, "binary:logistic", 20, params)
    model = mltrees.XGBoostClassifier(n_estimators=20, **params).fit(X, y)
    theirs = booster.predict(xgb.DMatrix(X), pred_contribs=True, approx_contribs=True)
    ours = saabas(model, X)
    np.testing.assert_allclose(ours.values, theirs[:, :-1], atol=2e-5)
    assert ours.expected_value == pytest.approx(float(theirs[0, -1]), abs=1e-5)


def test_dependence_plot_of_main_effects():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from mltrees.inspection import dependence_plot

    model = MODELS["gb-exact"][0]().fit(X_NUM, Y_REG)
    interactions = tree_shap_interactions(model, X_NUM[:40])
    fig, ax = plt.subplots()
    dependence_plot(interactions, 2, color_by=3, ax=ax)
    offsets = ax.collections[0].get_offsets()
    np.testing.assert_allclose(offsets[:, 1], interactions.main_effects[:, 2])
    assert ax.get_ylabel() == "SHAP main effect of x2"
    plt.close(fig)
    # One output of several: named by output=, refused without it.
    several = tree_shap_interactions(MODELS["gb-multiclass"][0]().fit(X_NUM, Y_3), X_NUM[:10])
    with pytest.raises(ValueError, match="output="):
        dependence_plot(several, 2)
    fig, ax = plt.subplots()
    dependence_plot(several, 2, output=1, ax=ax)
    offsets = ax.collections[0].get_offsets()
    np.testing.assert_allclose(offsets[:, 1], several.main_effects[:, 2, 1])
    plt.close(fig)
