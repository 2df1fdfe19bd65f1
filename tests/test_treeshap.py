"""TreeSHAP (chapter 17) against the definition and against the ``shap`` and ``xgboost`` packages.

* Shapley values by enumeration reproduce hand-computed games and the axioms.
* The path weights of the polynomial equal the sum over subsets they replace.
* ``tree_shap`` equals the brute-force Shapley values (2^p coalitions, with the
  path-dependent or the interventional value) on small models of every type,
  and its values add up to the model's own output (local accuracy).
* It equals ``shap.TreeExplainer`` on a scikit-learn tree grown identically
  (1e-6), on our forests handed to shap as custom trees, and XGBoost's own
  ``pred_contribs`` on identically grown XGBoost models (float32 precision).
"""

from __future__ import annotations

import sys
from itertools import combinations
from math import factorial
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st
from sklearn.datasets import load_diabetes

import mltrees
from mltrees.inspection import (
    brute_force_shap,
    path_dependent_value,
    path_weights,
    path_weights_integral,
    shapley_values,
    tree_shap,
    view_of,
)

shap = pytest.importorskip("shap")
xgb = pytest.importorskip("xgboost")

sys.path.insert(0, str(Path(__file__).parent))
from test_xgboost import _data, _with_nan, _xgb_margin  # noqa: E402

# ----------------------------------------------------------------------------
# Shapley values from their definition
# ----------------------------------------------------------------------------


def test_majority_game_splits_the_value_equally():
    # v(S) = 1 when at least two of three players agree: symmetric, so 1/3 each.
    phi = shapley_values(lambda s: float(s.sum() >= 2), 3)
    np.testing.assert_allclose(phi, [1 / 3, 1 / 3, 1 / 3])


def test_glove_game_by_hand():
    # Player 0 holds a left glove, players 1 and 2 a right glove each; a pair is
    # worth 1. Orderings where 0 completes a pair: 4 of 6 -> phi_0 = 2/3, 1/6 each.
    phi = shapley_values(lambda s: float(s[0] and (s[1] or s[2])), 3)
    np.testing.assert_allclose(phi, [2 / 3, 1 / 6, 1 / 6])


@given(st.integers(0, 2**32 - 1))
def test_axioms_on_random_games(seed):
    rng = np.random.default_rng(seed)
    p = 4
    table = rng.normal(size=1 << p)
    table2 = rng.normal(size=1 << p)
    table[0] = 0.0
    # Player 3 is a dummy in game 1: adding it changes nothing.
    index = lambda s: int((s[:3] * (1 << np.arange(3))).sum())  # noqa: E731
    v1 = lambda s: table[index(s)]  # noqa: E731
    v2 = lambda s: table2[int((s * (1 << np.arange(p))).sum())]  # noqa: E731
    phi1, phi2 = shapley_values(v1, p), shapley_values(v2, p)
    assert phi1.sum() == pytest.approx(v1(np.ones(p, bool)) - v1(np.zeros(p, bool)))
    assert phi1[3] == pytest.approx(0.0, abs=1e-12)
    both = shapley_values(lambda s: v1(s) + v2(s), p)
    np.testing.assert_allclose(both, phi1 + phi2, atol=1e-12)


@given(st.integers(0, 2**32 - 1), st.integers(1, 6))
def test_path_weights_equal_the_sum_over_subsets(seed, L):
    rng = np.random.default_rng(seed)
    z = rng.uniform(0, 1, L)
    o = rng.choice([0.0, 1.0, 0.3], L)
    z[rng.random(L) < 0.2] = 0.0
    W = path_weights(z, o)
    W_integral = path_weights_integral(z, o)
    for i in range(L):
        others = [j for j in range(L) if j != i]
        expected = 0.0
        for k in range(L):
            for S in combinations(others, k):
                rest = [j for j in others if j not in S]
                expected += (
                    factorial(k)
                    * factorial(L - 1 - k)
                    / factorial(L)
                    * np.prod(o[list(S)])
                    * np.prod(z[rest])
                )
        if o[i] == 0 and z[i] == 0:
            expected = 0.0
        assert W[i] == pytest.approx(expected, rel=1e-9, abs=1e-12)
        if not (o[i] == 0 and z[i] == 0):
            assert W_integral[i] == pytest.approx(expected, rel=1e-9, abs=1e-12)


# ----------------------------------------------------------------------------
# tree_shap == brute force, local accuracy, on every model type
# ----------------------------------------------------------------------------

RNG = np.random.default_rng(0)
X_NUM = RNG.normal(size=(300, 5))
Y_REG = X_NUM[:, 0] + 2 * (X_NUM[:, 1] > 0) + X_NUM[:, 2] * X_NUM[:, 3]
Y_BIN = (Y_REG > 0.5).astype(int)
Y_3 = np.digitize(Y_REG, [0.0, 1.5])
X_NAN = X_NUM.copy()
X_NAN[RNG.random(X_NAN.shape) < 0.2] = np.nan
X_CAT = pd.DataFrame(
    {
        "a": pd.Categorical(RNG.choice(list("xyz"), 300)),
        "b": pd.Categorical(RNG.choice(list("pq"), 300)),
        "c": pd.Categorical(RNG.choice(list("uvw"), 300)),
    }
)
Y_CAT = ((X_CAT.a == "x") ^ (X_CAT.b == "p")).to_numpy().astype(int)

CART_2 = mltrees.CARTClassifier(max_depth=2)
MODELS = {
    "cart-regressor": (lambda: mltrees.CARTRegressor(max_depth=4), X_NUM, Y_REG),
    "cart-classifier": (lambda: mltrees.CARTClassifier(max_depth=4), X_NUM, Y_3),
    "c45-missing": (lambda: mltrees.C45Classifier(), X_NAN, Y_3),
    "id3-categories": (lambda: mltrees.ID3Classifier(), X_CAT, Y_CAT),
    "cart-categories": (lambda: mltrees.CARTClassifier(max_depth=3), X_CAT, Y_CAT),
    "forest-regressor": (
        lambda: mltrees.RandomForestRegressor(n_estimators=4, max_depth=5, random_state=0),
        X_NUM,
        Y_REG,
    ),
    "forest-classifier": (
        lambda: mltrees.RandomForestClassifier(n_estimators=4, max_depth=5, random_state=0),
        X_NUM,
        Y_3,
    ),
    "bagging-feature-subsets": (
        lambda: mltrees.BaggingRegressor(n_estimators=4, max_features=3, random_state=0),
        X_NUM,
        Y_REG,
    ),
    "bagging-c45-missing": (
        lambda: mltrees.BaggingClassifier(mltrees.C45Classifier(), n_estimators=3, random_state=0),
        X_NAN,
        Y_BIN,
    ),
    "adaboost-samme": (
        lambda: mltrees.AdaBoostClassifier(CART_2, n_estimators=5),
        X_NUM,
        Y_BIN,
    ),
    "adaboost-samme-3": (
        lambda: mltrees.AdaBoostClassifier(CART_2, n_estimators=5),
        X_NUM,
        Y_3,
    ),
    "adaboost-real": (
        lambda: mltrees.AdaBoostClassifier(CART_2, n_estimators=5, algorithm="real"),
        X_NUM,
        Y_3,
    ),
    "gb-exact": (
        lambda: mltrees.GradientBoostingRegressor(n_estimators=5, max_depth=3),
        X_NUM,
        Y_REG,
    ),
    "gb-hist-subsample": (
        lambda: mltrees.GradientBoostingRegressor(
            n_estimators=5, max_depth=3, max_bins=32, subsample=0.7, random_state=0
        ),
        X_NUM,
        Y_REG,
    ),
    "gb-binary": (
        lambda: mltrees.GradientBoostingClassifier(n_estimators=5, max_depth=3),
        X_NUM,
        Y_BIN,
    ),
    "gb-multiclass": (
        lambda: mltrees.GradientBoostingClassifier(n_estimators=4, max_depth=3),
        X_NUM,
        Y_3,
    ),
    # NaN at the defaults: learned default directions (chapter 6).
    "gb-missing": (
        lambda: mltrees.GradientBoostingClassifier(n_estimators=5, max_depth=3),
        X_NAN,
        Y_BIN,
    ),
    "gb-hist-missing": (
        lambda: mltrees.GradientBoostingRegressor(n_estimators=5, max_depth=3, max_bins=32),
        X_NAN,
        Y_REG,
    ),
    "cart-missing-default": (lambda: mltrees.CARTClassifier(max_depth=4), X_NAN, Y_3),
    "forest-missing-default": (
        lambda: mltrees.RandomForestRegressor(n_estimators=4, max_depth=5, random_state=0),
        X_NAN,
        Y_REG,
    ),
    "adaboost-missing-default": (
        lambda: mltrees.AdaBoostClassifier(n_estimators=5),
        X_NAN,
        Y_BIN,
    ),
    "xgb-regressor-missing": (
        lambda: mltrees.XGBoostRegressor(n_estimators=5, max_depth=3),
        X_NAN,
        Y_REG,
    ),
    "xgb-binary": (
        lambda: mltrees.XGBoostClassifier(n_estimators=5, max_depth=3),
        X_NUM,
        Y_BIN,
    ),
    "xgb-multiclass-exact": (
        lambda: mltrees.XGBoostClassifier(n_estimators=4, max_depth=3, tree_method="exact"),
        X_NUM,
        Y_3,
    ),
    "oblivious-regressor-missing": (
        lambda: mltrees.ObliviousBoostingRegressor(n_estimators=4, depth=3),
        X_NAN,
        Y_REG,
    ),
    "oblivious-multiclass": (
        lambda: mltrees.ObliviousBoostingClassifier(n_estimators=3, depth=3),
        X_NUM,
        Y_3,
    ),
    # Statistics and one-hot columns are tests on the category: the trees'
    # categorical nodes, so values are per original feature.
    "oblivious-categories": (
        lambda: mltrees.ObliviousBoostingClassifier(
            n_estimators=4, depth=3, one_hot_max_size=2, random_state=0
        ),
        X_CAT,
        Y_CAT,
    ),
}
# Models whose vote is taken after mixing a split row's branches (not a sum
# over leaves) or rows split by C4.5: no interventional values for them.
NO_INTERVENTIONAL = {"c45-missing", "bagging-c45-missing"}


def _rows(X, start, stop):
    return X.iloc[start:stop] if isinstance(X, pd.DataFrame) else X[start:stop]


@pytest.fixture(scope="module", params=sorted(MODELS))
def fitted(request):
    make, X, y = MODELS[request.param]
    return request.param, make().fit(X, y), X


def test_tree_shap_equals_brute_force_path_dependent(fitted):
    _, model, X = fitted
    rows = _rows(X, 0, 25)
    ours = tree_shap(model, rows)
    np.testing.assert_allclose(ours.values, brute_force_shap(model, rows), atol=1e-12)


def test_tree_shap_equals_brute_force_interventional(fitted):
    name, model, X = fitted
    if name in NO_INTERVENTIONAL:
        pytest.skip("rows routed down every branch have no interventional value")
    rows, background = _rows(X, 0, 12), _rows(X, 100, 120)
    ours = tree_shap(model, rows, background=background)
    expected = brute_force_shap(model, rows, background=background)
    np.testing.assert_allclose(ours.values, expected, atol=1e-12)
    # E f of the interventional game: the mean output over the background.
    mean = view_of(model).output(background).mean(axis=0)
    np.testing.assert_allclose(np.atleast_1d(ours.expected_value), mean, atol=1e-12)


def test_local_accuracy(fitted):
    _, model, X = fitted
    ours = tree_shap(model, X)
    output = view_of(model).output(X)
    np.testing.assert_allclose(ours.prediction.reshape(output.shape), output, atol=1e-10)


def test_the_missing_values_are_really_routed_down_every_branch():
    """The C4.5 cases above exercise the fractional path: some rows are split."""
    model = MODELS["c45-missing"][0]().fit(X_NAN, Y_3)
    sample, _, weight = model.tree_.apply_weighted(model._values(X_NAN[:25]))
    assert (weight < 1).any()
    assert np.unique(sample).size == 25


def test_unseen_category_stops_at_its_node_and_is_explained():
    model = mltrees.ID3Classifier().fit(X_CAT, Y_CAT)
    new = X_CAT.iloc[:5].copy()
    new["a"] = pd.Categorical(["new"] * 5)  # never seen: the row stops at the root
    ours = tree_shap(model, new)
    np.testing.assert_allclose(ours.prediction, model.predict_proba(new), atol=1e-12)
    np.testing.assert_allclose(ours.values, brute_force_shap(model, new), atol=1e-12)


def test_deep_paths_use_the_polynomial_on_rows():
    # Nine features and a fully grown tree: paths longer than the pattern tables.
    rng = np.random.default_rng(1)
    X = rng.normal(size=(400, 9))
    y = X.sum(axis=1) + X[:, 0] * X[:, 1]
    model = mltrees.CARTRegressor().fit(X, y)
    assert view_of(model).trees[0].max_depth > 9
    rows = X[:8]
    np.testing.assert_allclose(
        tree_shap(model, rows).values, brute_force_shap(model, rows), atol=1e-11
    )
    np.testing.assert_allclose(
        tree_shap(model, rows, background=X[:12]).values,
        brute_force_shap(model, rows, background=X[:12]),
        atol=1e-11,
    )


def test_expected_value_is_the_empty_coalition():
    model = MODELS["forest-regressor"][0]().fit(X_NUM, Y_REG)
    ours = tree_shap(model, X_NUM[:3])
    empty = path_dependent_value(model, X_NUM[:3], np.zeros(5, dtype=bool))
    np.testing.assert_allclose(empty[:, 0], ours.expected_value, atol=1e-12)


# ----------------------------------------------------------------------------
# Against the shap package
# ----------------------------------------------------------------------------


def _diabetes():
    X, y = load_diabetes(return_X_y=True)
    return X.astype(np.float32).astype(np.float64), y


def _assert_same_splits(theirs, ours):
    """The same tests (feature, threshold) in both trees, not only the same predictions.

    Two features can cut the training rows alike (a tie); predictions on those
    rows agree, but other rows, and the SHAP values, would not.
    """
    t = theirs.tree_
    inner = t.feature >= 0
    expected = sorted(zip(t.feature[inner], np.round(t.threshold[inner], 5), strict=True))
    o = ours.tree_
    mine = ~o.is_leaf
    got = sorted(zip(o.feature[mine], np.round(o.threshold[mine], 5), strict=True))
    assert [(int(f), float(v)) for f, v in got] == [(int(f), float(v)) for f, v in expected]


def test_equals_shap_on_an_identical_sklearn_regression_tree():
    from sklearn.tree import DecisionTreeRegressor

    X, y = _diabetes()
    theirs = DecisionTreeRegressor(max_depth=3, random_state=0).fit(X, y)
    ours = mltrees.CARTRegressor(max_depth=3).fit(X, y)
    _assert_same_splits(theirs, ours)
    expected = shap.TreeExplainer(theirs).shap_values(X)
    np.testing.assert_allclose(tree_shap(ours, X).values, expected, atol=1e-6)


def test_equals_shap_on_an_identical_sklearn_classification_tree():
    from sklearn.tree import DecisionTreeClassifier

    X, y = _diabetes()
    y = np.digitize(y, [100, 200])
    theirs = DecisionTreeClassifier(max_depth=3, random_state=0).fit(X, y)
    ours = mltrees.CARTClassifier(max_depth=3).fit(X, y)
    _assert_same_splits(theirs, ours)
    expected = shap.TreeExplainer(theirs).shap_values(X)  # (n, p, K) probabilities
    np.testing.assert_allclose(tree_shap(ours, X).values, expected, atol=1e-6)


def _shap_custom_trees(view):
    """Our binary numeric trees as shap's documented custom-tree dictionaries."""
    trees = []
    for tree, table in zip(view.trees, view.tables, strict=True):
        leaf = tree.is_leaf
        left = np.where(leaf, -1, tree.first_child).astype(np.int64)
        right = np.where(leaf, -1, tree.first_child + 1).astype(np.int64)
        trees.append(
            {
                "children_left": left,
                "children_right": right,
                "children_default": left,
                "features": np.where(leaf, -2, tree.feature).astype(np.int64),
                "thresholds": np.nan_to_num(tree.threshold).astype(np.float64),
                "values": np.asarray(table, dtype=np.float64),
                "node_sample_weight": tree.weighted_n_node_samples.astype(np.float64),
            }
        )
    return {"trees": trees, "base_offset": float(view.base[0])}


@pytest.mark.parametrize(
    "make",
    [
        lambda: mltrees.RandomForestRegressor(n_estimators=8, max_depth=8, random_state=0),
        lambda: mltrees.GradientBoostingRegressor(n_estimators=20, max_depth=4, max_bins=64),
    ],
    ids=["forest", "gradient-boosting-hist"],
)
def test_equals_shap_on_our_trees_given_as_custom_trees(make):
    X, y = _diabetes()
    model = make().fit(X, y)
    explainer = shap.TreeExplainer(_shap_custom_trees(view_of(model)))
    ours = tree_shap(model, X)
    np.testing.assert_allclose(ours.values, explainer.shap_values(X), atol=1e-6)
    assert ours.expected_value == pytest.approx(float(np.ravel(explainer.expected_value)[0]))


# ----------------------------------------------------------------------------
# Against XGBoost, on identically grown models (float32)
# ----------------------------------------------------------------------------


def test_equals_xgboost_contributions_regression():
    X, y = _data("diabetes")
    params = {"learning_rate": 0.3, "max_depth": 4, "base_score": 150.0}
    booster, _ = _xgb_margin(X, y, "reg:squarederror", 25, params)
    model = mltrees.XGBoostRegressor(n_estimators=25, **params).fit(X, y)
    ours = tree_shap(model, X)
    contribs = booster.predict(xgb.DMatrix(X), pred_contribs=True)
    scale = np.abs(contribs).max()
    np.testing.assert_allclose(ours.values, contribs[:, :-1], atol=1e-6 * scale)
    assert ours.expected_value == pytest.approx(float(contribs[0, -1]), rel=1e-6)
    # shap's TreeExplainer on the booster returns XGBoost's own float32 values.
    np.testing.assert_allclose(
        ours.values, shap.TreeExplainer(booster).shap_values(X), atol=1e-6 * scale
    )


def test_equals_xgboost_contributions_logistic_with_missing_values():
    X, y = _data("breast_cancer")
    X = _with_nan(X, 0.2, seed=7)
    params = {"learning_rate": 0.3, "max_depth": 4, "base_score": 0.5}
    booster, _ = _xgb_margin(X, y, "binary:logistic", 25, params)
    model = mltrees.XGBoostClassifier(n_estimators=25, **params).fit(X, y)
    ours = tree_shap(model, X)
    contribs = booster.predict(xgb.DMatrix(X), pred_contribs=True)
    np.testing.assert_allclose(ours.values, contribs[:, :-1], atol=2e-6)
    assert ours.expected_value == pytest.approx(float(contribs[0, -1]), abs=1e-6)


def test_equals_xgboost_contributions_multiclass():
    X, y = _data("iris")
    params = {"learning_rate": 0.3, "max_depth": 3, "base_score": 0.5}
    booster, _ = _xgb_margin(X, y, "multi:softprob", 10, params, num_class=3)
    model = mltrees.XGBoostClassifier(n_estimators=10, **params).fit(X, y)
    np.testing.assert_allclose(
        model.decision_function(X),
        booster.predict(xgb.DMatrix(X), output_margin=True),
        rtol=1e-5,
        atol=1e-5,
    )
    ours = tree_shap(model, X)  # (n, p, K)
    contribs = booster.predict(xgb.DMatrix(X), pred_contribs=True)  # (n, K, p + 1)
    np.testing.assert_allclose(ours.values, contribs[:, :, :-1].transpose(0, 2, 1), atol=2e-6)


# ----------------------------------------------------------------------------
# Bad input
# ----------------------------------------------------------------------------


def test_rejects_models_it_cannot_explain():
    from sklearn.tree import DecisionTreeRegressor

    with pytest.raises(TypeError, match="model must be a fitted mltrees tree model"):
        tree_shap(DecisionTreeRegressor().fit(X_NUM, Y_REG), X_NUM)
    from sklearn.neighbors import KNeighborsRegressor

    bag = mltrees.BaggingRegressor(KNeighborsRegressor(), n_estimators=2).fit(X_NUM, Y_REG)
    with pytest.raises(TypeError, match="not mltrees trees"):
        tree_shap(bag, X_NUM)


def test_rejects_split_rows_where_they_have_no_tree_shap_value():
    c45 = mltrees.C45Classifier().fit(X_NAN, Y_BIN)
    with pytest.raises(ValueError, match="interventional"):
        tree_shap(c45, X_NAN[:20], background=X_NUM[:10])
    with pytest.raises(ValueError, match="background rows with missing values"):
        tree_shap(c45, X_NUM[:5], background=X_NAN[:20])
    ada = mltrees.AdaBoostClassifier(mltrees.C45Classifier(), n_estimators=3).fit(X_NAN, Y_BIN)
    with pytest.raises(ValueError, match="not a sum over leaves"):
        tree_shap(ada, X_NAN[:20])
    assert np.isfinite(tree_shap(ada, X_NUM[:5]).values).all()  # rows without NaN are fine


def test_rejects_an_empty_background_and_unfitted_models():
    from sklearn.exceptions import NotFittedError

    model = mltrees.CARTRegressor(max_depth=2).fit(X_NUM, Y_REG)
    with pytest.raises(ValueError, match="background must hold at least one row"):
        tree_shap(model, X_NUM[:3], background=X_NUM[:0])
    with pytest.raises(NotFittedError):
        tree_shap(mltrees.CARTRegressor(), X_NUM)
    with pytest.raises(ValueError, match="n_players"):
        shapley_values(lambda s: 0.0, 0)


def test_gradient_boosting_with_categories_and_an_unseen_category():
    model = mltrees.GradientBoostingClassifier(n_estimators=5, max_depth=2).fit(X_CAT, Y_CAT)
    new = X_CAT.iloc[:6].copy()
    new["c"] = pd.Categorical(["unseen"] * 6)
    ours = tree_shap(model, new)
    np.testing.assert_allclose(ours.prediction, model.decision_function(new), atol=1e-12)
    np.testing.assert_allclose(ours.values, brute_force_shap(model, new), atol=1e-12)


def test_summary_and_dependence_plots_draw_every_row_in_the_order_of_mean_abs_shap():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from mltrees.inspection import dependence_plot, summary_plot

    model = MODELS["gb-exact"][0]().fit(X_NUM, Y_REG)
    explanation = tree_shap(model, X_NUM[:60])
    fig, ax = plt.subplots()
    summary_plot(explanation, ax=ax)
    points = [c for c in ax.collections if c.get_offsets().shape[0] == 60]
    assert len(points) == 5
    labels = [t.get_text() for t in ax.get_yticklabels()][::-1]  # top row first
    by_mean = np.argsort(np.abs(explanation.values).mean(axis=0))[::-1]
    assert labels == [explanation.feature_names[j] for j in by_mean]
    fig2, ax2 = plt.subplots()
    dependence_plot(explanation, 0, color_by=1, ax=ax2)
    offsets = ax2.collections[0].get_offsets()
    np.testing.assert_allclose(offsets[:, 0], X_NUM[:60, 0])
    np.testing.assert_allclose(offsets[:, 1], explanation.values[:, 0])
    plt.close(fig)
    plt.close(fig2)
    with pytest.raises(ValueError, match="output="):
        summary_plot(tree_shap(MODELS["gb-multiclass"][0]().fit(X_NUM, Y_3), X_NUM[:5]))


@pytest.mark.parametrize("budget", [0, None], ids=["no-tables", "tables"])
def test_long_paths_interventional_and_without_tables(monkeypatch, budget):
    import mltrees.inspection.treeshap as treeshap_module

    if budget is not None:
        monkeypatch.setattr(treeshap_module, "TABLE_BUDGET", budget)
    # Paths longer than this take the closed form over (row, background row) pairs.
    monkeypatch.setattr(treeshap_module, "MAX_INTERVENTIONAL_TABLE", 4)
    rng = np.random.default_rng(3)
    X = rng.normal(size=(250, 10))
    y = X.sum(axis=1) + X[:, 0] * X[:, 1]
    model = mltrees.CARTRegressor().fit(X, y)
    lengths = [
        len({model.tree_.feature[p] for p in _ancestors(model.tree_, leaf)})
        for leaf in np.flatnonzero(model.tree_.is_leaf)
    ]
    assert max(lengths) > 6  # longer than the smallest pattern tables
    rows, background = X[:3], X[100:106]
    np.testing.assert_allclose(
        tree_shap(model, rows).values, brute_force_shap(model, rows), atol=1e-10
    )
    np.testing.assert_allclose(
        tree_shap(model, rows, background=background).values,
        brute_force_shap(model, rows, background=background),
        atol=1e-10,
    )


def _ancestors(tree, node):
    out = []
    while tree.parent[node] >= 0:
        node = tree.parent[node]
        out.append(node)
    return out


def test_trees_that_never_split():
    model = mltrees.XGBoostRegressor(n_estimators=3, max_depth=3, gamma=1e9).fit(X_NUM, Y_REG)
    assert all(t.node_count == 1 for stage in model.trees_ for t in stage)
    ours = tree_shap(model, X_NUM[:5])
    np.testing.assert_array_equal(ours.values, 0.0)
    np.testing.assert_allclose(ours.prediction, model.predict(X_NUM[:5]))
