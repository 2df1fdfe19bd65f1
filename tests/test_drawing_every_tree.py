"""``export_text``, ``to_dot`` and ``plot_tree`` draw tree ``tree_index`` of every tree model.

Checked against independent facts: a forest's, bagging's or AdaBoost's tree
``i`` is the drawing of its member ``i``; the leaves drawn for boosting are
what each tree adds to the margin, so walking every drawn tree and adding the
leaves to the initial score gives the model's own raw output; the Hoeffding
tree's drawing routes rows as the model does; ID5R's drawing is the tree ID3
grows on the same examples (Utgoff's invariant).
"""

from __future__ import annotations

import matplotlib
import numpy as np
import pandas as pd
import pytest

import mltrees
from mltrees import export_text, plot_tree, to_dot
from mltrees.datasets import load_penguins
from mltrees.inspection import view_of
from mltrees.tree._drawable import drawable

matplotlib.use("Agg")


def _penguins():
    X, y = load_penguins(return_X_y=True)
    return X, np.asarray(y)


MEMBER_ENSEMBLES = {
    "forest": lambda: mltrees.RandomForestClassifier(n_estimators=3, max_depth=3, random_state=0),
    "forest-regressor": lambda: mltrees.RandomForestRegressor(
        n_estimators=3, max_depth=3, random_state=0
    ),
    "bagging": lambda: mltrees.BaggingClassifier(n_estimators=3, random_state=0),
    "bagging-feature-subsets": lambda: mltrees.BaggingClassifier(
        n_estimators=3, max_features=0.5, random_state=0
    ),
    "adaboost": lambda: mltrees.AdaBoostClassifier(n_estimators=4),
}


@pytest.mark.parametrize("name", sorted(MEMBER_ENSEMBLES))
def test_tree_i_of_a_forest_bagging_or_adaboost_is_member_i(name):
    X, y = _penguins()
    model = MEMBER_ENSEMBLES[name]()
    target = X["body_mass_g"].fillna(4000).to_numpy() if "regressor" in name else y
    model.fit(X.drop(columns="body_mass_g") if "regressor" in name else X, target)
    names = list(model.feature_names_in_)
    for i, member in enumerate(model.estimators_):
        expected = export_text(member, feature_names=names)
        assert export_text(model, tree_index=i) == expected
        assert to_dot(model, tree_index=i) == to_dot(member, feature_names=names)
    assert export_text(model, tree_index=-1) == export_text(
        model.estimators_[-1], feature_names=names
    )


BOOSTING = {
    "gradient-boosting": lambda: mltrees.GradientBoostingClassifier(n_estimators=3, max_depth=2),
    "gradient-boosting-regressor": lambda: mltrees.GradientBoostingRegressor(
        n_estimators=3, max_depth=2, max_bins=32
    ),
    "xgboost": lambda: mltrees.XGBoostClassifier(n_estimators=3, max_depth=2),
    "lightgbm": lambda: mltrees.LightGBMClassifier(
        n_estimators=3, num_leaves=4, min_child_samples=5
    ),
    "oblivious": lambda: mltrees.ObliviousBoostingClassifier(n_estimators=3, depth=2),
}


@pytest.mark.parametrize("name", sorted(BOOSTING))
def test_the_drawn_leaves_of_boosting_add_up_to_the_margin(name):
    X, y = _penguins()
    if "regressor" in name:
        X, y = X.drop(columns="body_mass_g"), X["body_mass_g"].fillna(4000).to_numpy()
    model = BOOSTING[name]().fit(X, y)
    view = view_of(model)  # its encoding of rows and its base score
    values = view.encode(X)
    total = np.tile(np.asarray(view.base, dtype=np.float64), (len(X), 1))
    n_trees = len(view.trees)
    for i in range(n_trees):
        drawn = drawable(model, i, "export_text")
        columns = view.columns[i]
        total[:, columns] += drawn.tree.value[drawn.tree.apply(values)][:, : columns.size]
        text = export_text(model, tree_index=i)
        assert "value:" in text
        assert "class:" not in text
        plot_tree(model, tree_index=i)
    np.testing.assert_allclose(total, view.output(X), rtol=1e-9, atol=1e-9)
    with pytest.raises(ValueError, match=f"has {n_trees} trees"):
        export_text(model, tree_index=n_trees)


def test_lightgbm_category_splits_are_named():
    X, y = _penguins()
    model = mltrees.LightGBMClassifier(n_estimators=2, num_leaves=4, min_child_samples=5)
    text = export_text(model.fit(X, y), tree_index=1)
    assert "island = Dream" in text or "island in {" in text


def test_the_hoeffding_tree_is_drawn_as_it_routes():
    X, y = _penguins()
    X = X.select_dtypes("number").drop(columns="year").dropna()
    y = y[X.index]
    model = mltrees.HoeffdingTreeClassifier(grace_period=20, leaf_prediction="mc").fit(X, y)
    drawn = drawable(model, 0, "plot_tree").tree
    assert drawn.node_count == model.n_nodes_ > 1
    proba = drawn.value[drawn.apply(X.to_numpy(dtype=np.float64))]
    np.testing.assert_allclose(proba, model.predict_proba(X), atol=1e-12)
    text = export_text(model)
    assert "flipper_length_mm" in text or "bill" in text
    assert to_dot(model).startswith("digraph Tree")
    plot_tree(model)


def test_id5r_is_drawn_as_the_tree_id3_grows():
    rng = np.random.default_rng(0)
    n = 200
    X = pd.DataFrame(
        {
            "a": rng.choice(["p", "q", "r"], n),
            "b": rng.choice(["u", "v"], n),
            "c": rng.choice(["x", "y", "z"], n),
        }
    )
    X.iloc[:18] = [[a, b, c] for a in "pqr" for b in "uv" for c in "xyz"]  # sorted first sight
    y = ((X["a"] == "p") ^ (X["b"] == "u")).to_numpy().astype(int)
    id5r = mltrees.ID5RClassifier().fit(X, y)
    id3 = mltrees.ID3Classifier().fit(X, y)
    assert export_text(id5r) == export_text(id3)
    assert to_dot(id5r) == to_dot(id3)
    plot_tree(id5r)


@pytest.mark.parametrize(
    ("model", "match"),
    [
        (mltrees.RuleSetClassifier(), "RuleSetClassifier"),
        (
            mltrees.BaggingClassifier(
                __import__("sklearn.neighbors").neighbors.KNeighborsClassifier(), n_estimators=2
            ),
            "not an mltrees tree",
        ),
    ],
)
def test_what_is_not_a_tree_is_refused(model, match):
    X, y = _penguins()
    X = X.select_dtypes("number").dropna()
    model.fit(X, y[X.index])
    with pytest.raises(TypeError, match=match):
        export_text(model)


def test_a_scikit_learn_tree_gets_the_scikit_learn_function_named():
    from sklearn.tree import DecisionTreeClassifier

    with pytest.raises(TypeError, match=r"sklearn\.tree\.export_graphviz"):
        to_dot(DecisionTreeClassifier().fit([[0], [1]], [0, 1]))


def test_tree_index_is_checked():
    X, y = _penguins()
    tree = mltrees.CARTClassifier(max_depth=2).fit(X, y)
    with pytest.raises(ValueError, match="one tree"):
        plot_tree(tree, tree_index=1)
    with pytest.raises(TypeError, match="tree_index must be an int"):
        export_text(tree, tree_index=0.0)


def test_tree_i_of_a_dask_forest_is_the_tree_of_member_i():
    pytest.importorskip("distributed")
    import dask.array as da
    from distributed import Client, LocalCluster

    from mltrees.dask import DaskRandomForestClassifier

    X, y = _penguins()
    X = X.select_dtypes("number").to_numpy()
    with (
        LocalCluster(n_workers=1, processes=False, dashboard_address=":0") as cluster,
        Client(cluster) as client,
    ):
        model = DaskRandomForestClassifier(n_estimators=3, max_depth=2, client=client)
        model.fit(da.from_array(X, chunks=120), da.from_array(y, chunks=120))
    for i, member in enumerate(model.estimators_):  # one-tree forests grown on the workers
        assert export_text(model, tree_index=i) == export_text(member.estimators_[0])
