"""Missing values in the tree engine (chapter 6).

Expected numbers come from Zhou's worked example on watermelon 2.0alpha
(published gains, 2016, section 4.4.2), from an independent pure-Python
computation of equations 15-19 of the source notes (Quinlan's fractional
weights), from brute force over every split and direction (XGBoost's
sparsity-aware search) and from XGBoost itself, never from the code under test.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest
from _worked_examples import ZHOU_GAINS  # Zhou (2016), section 4.4.2
from sklearn.base import clone

from mltrees.datasets import load_watermelon
from mltrees.tree import C45Classifier, CARTClassifier, CARTRegressor, ID3Classifier
from mltrees.tree._data import bin_features
from mltrees.tree._split import ClassificationStatistics, SplitRules, find_splits
from mltrees.tree._tree import LEAF, MISSING_ALL_BRANCHES, NUMERIC_NODE


def _melons():
    return load_watermelon("2.0alpha", lang="zh", return_X_y=True)


def _root_gain(X, y, j):
    """The engine's eq-c45-gain of feature ``j`` at the root (only ``j`` allowed)."""
    codes, specs = bin_features(X, allow_nan=True)
    y_codes = np.unique(np.asarray(y), return_inverse=True)[1]
    stats = ClassificationStatistics(y_codes, np.ones(len(y)), int(y_codes.max()) + 1, "entropy")
    rows, node = np.arange(len(y)), np.zeros(len(y), dtype=np.intp)
    mask = np.zeros((1, X.shape[1]), dtype=bool)
    mask[0, j] = True
    found = find_splits(
        codes,
        specs,
        rows,
        node,
        1,
        stats,
        stats.aggregate(node, 1, rows),
        SplitRules(multiway_categorical=True, selection="gain", missing="c45"),
        mask,
    )
    return float(found.gain[0])


def _entropy(weights_by_class):
    total = sum(weights_by_class)
    return -sum(w / total * math.log2(w / total) for w in weights_by_class if w > 0)


def _hand_gain(column, labels, weights):
    """Equations 15-19 written out in plain Python (Zhou's and Quinlan's definitions)."""
    known = [i for i, v in enumerate(column) if v is not None]
    total = sum(weights)
    known_weight = sum(weights[i] for i in known)
    rho = known_weight / total  # eq. 17
    classes = sorted(set(labels))

    def ent(rows):  # eqs. 15-16 on the rows given
        return _entropy([sum(weights[i] for i in rows if labels[i] == c) for c in classes])

    gain = ent(known)
    for value in sorted({column[i] for i in known}):
        part = [i for i in known if column[i] == value]
        r = sum(weights[i] for i in part) / known_weight  # eq. 18
        gain -= r * ent(part)
    return rho * gain  # eq. 19


def _table():
    X, y = _melons()
    columns = {name: [None if pd.isna(v) else str(v) for v in X[name].astype(object)] for name in X}
    return X, y, columns, [str(v) for v in y]


# ---------------------------------------------------------------------------
# Zhou's worked example: watermelon 2.0alpha
# ---------------------------------------------------------------------------


def test_watermelon_2_0alpha_has_13_missing_cells():
    X, _ = _melons()
    assert int(X.isna().sum().sum()) == 13


@pytest.mark.parametrize("name", list(ZHOU_GAINS))
def test_zhou_4_4_watermelon_2_0alpha_root_gain_published(name):
    X, y = _melons()
    gain = _root_gain(X, y, list(X.columns).index(name))
    assert gain == pytest.approx(ZHOU_GAINS[name], abs=1.5e-3)


@pytest.mark.parametrize("name", list(ZHOU_GAINS))
def test_zhou_4_4_watermelon_2_0alpha_root_gain_by_hand(name):
    X, y, columns, labels = _table()
    expected = _hand_gain(columns[name], labels, [1.0] * len(labels))
    assert _root_gain(X, y, list(X.columns).index(name)) == pytest.approx(expected, abs=1e-12)


def test_zhou_4_4_rho_and_branch_shares_of_texture():
    # Zhou: 15 melons have a known texture (rho = 15/17); among them clear 7,
    # slightly blurry 5, blurry 3, so melons 8 and 10 enter the three branches
    # with weights 7/15, 5/15 and 3/15.
    X, y = _melons()
    model = ID3Classifier(missing="c45").fit(X, y)
    tree = model.tree_
    assert model.feature_names_in_[tree.feature[0]] == "纹理"
    children = tree.first_child[0] + np.arange(tree.n_children[0])
    shares = {"清晰": 7 / 15, "稍糊": 5 / 15, "模糊": 3 / 15}
    categories = list(X["纹理"].cat.categories)
    for category, share in shares.items():
        child = children[tree.route_table[tree.route_offset[0] + categories.index(category)]]
        known = int((X["纹理"] == category).sum())
        np.testing.assert_allclose(tree.weighted_n_node_samples[child], known + 2 * share)
        assert tree.branch_fraction()[child] == pytest.approx(share, abs=1e-12)
    np.testing.assert_allclose(tree.branch_fraction()[children].sum(), 1.0)


def test_zhou_4_4_gains_inside_the_clear_branch_by_hand():
    # The second level of Zhou's tree: the node 纹理 = 清晰 holds melons with a
    # clear texture (weight 1) and melons 8 and 10 with weight 7/15.
    X, y, columns, labels = _table()
    model = ID3Classifier(missing="c45", max_depth=2).fit(X, y)
    tree = model.tree_
    categories = list(X["纹理"].cat.categories)
    child = tree.first_child[0] + tree.route_table[tree.route_offset[0] + categories.index("清晰")]
    rows = [i for i, v in enumerate(columns["纹理"]) if v in ("清晰", None)]
    weights = [1.0 if columns["纹理"][i] == "清晰" else 7 / 15 for i in rows]
    sub_labels = [labels[i] for i in rows]
    gains = {
        name: _hand_gain([columns[name][i] for i in rows], sub_labels, weights)
        for name in X.columns
        if name != "纹理"
    }
    best = max(gains, key=gains.get)
    assert model.feature_names_in_[tree.feature[child]] == best
    counts = [
        sum(w for w, lab in zip(weights, sub_labels, strict=True) if lab == c) for c in "否是"
    ]
    np.testing.assert_allclose(tree.weighted_n_node_samples[child], sum(weights), rtol=1e-12)
    np.testing.assert_allclose(tree.value[child], np.array(counts) / sum(counts), rtol=1e-12)


# ---------------------------------------------------------------------------
# Fit and predict are consistent
# ---------------------------------------------------------------------------


def _with_missing(seed=0, n=400, rate=0.2, categorical=True):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame(rng.normal(size=(n, 3)), columns=["a", "b", "c"])
    if categorical:
        X["d"] = pd.Categorical(rng.choice(["p", "q", "r", "s"], size=n))
    y = (X["a"] + X["b"] > 0).to_numpy().astype(int) ^ (rng.random(n) < 0.1)
    holes = rng.random(X.shape) < rate
    X = X.mask(holes)
    return X, y


def _walk(tree, x):
    """Independent walker: (node, weight) pairs a sample ends in (Quinlan 1993)."""
    out, stack = [], [(0, 1.0)]
    fraction = tree.weighted_n_node_samples
    while stack:
        node, weight = stack.pop()
        if tree.feature[node] == LEAF:
            out.append((node, weight))
            continue
        value = x[tree.feature[node]]
        first, n = tree.first_child[node], tree.n_children[node]
        if np.isnan(value):
            for child in range(first, first + n):
                share = fraction[child] / fraction[node]
                if share > 0:
                    stack.append((child, weight * share))
            continue
        if tree.kind[node] == NUMERIC_NODE:
            stack.append((first + int(value > tree.threshold[node]), weight))
        else:
            code = int(value)
            slot = tree.route_table[tree.route_offset[node] + code] if code >= 0 else -1
            if slot < 0:
                out.append((node, weight))
            else:
                stack.append((first + slot, weight))
    return out


@pytest.mark.parametrize("Estimator", [C45Classifier, CARTClassifier])
def test_prediction_is_the_weighted_mix_of_branch_distributions(Estimator):
    X, y = _with_missing()
    model = Estimator(missing="c45").fit(X, y)
    if Estimator is C45Classifier:
        model = Estimator(missing="c45", pruning=None).fit(X, y)
    X_new, _ = _with_missing(seed=1, n=150, rate=0.3)
    values = X_new.copy()
    values["d"] = X_new["d"].cat.codes.replace(-1, np.nan).astype(float)
    tree = model.tree_
    expected = np.array(
        [sum(w * tree.value[node] for node, w in _walk(tree, x)) for x in values.to_numpy(float)]
    )
    np.testing.assert_allclose(model.predict_proba(X_new), expected, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(model.predict_proba(X_new).sum(axis=1), 1.0, rtol=1e-12)


def test_rows_without_missing_values_route_as_with_one_path():
    X, y = _with_missing()
    model = CARTClassifier(missing="c45").fit(X, y)
    X_new, _ = _with_missing(seed=2, n=300, rate=0.0)
    values = X_new.copy()
    values["d"] = X_new["d"].cat.codes.astype(float)
    ends = [_walk(model.tree_, x) for x in values.to_numpy(float)]
    assert all(len(end) == 1 and end[0][1] == 1.0 for end in ends)
    np.testing.assert_array_equal(model.apply(X_new), [end[0][0] for end in ends])
    # bit for bit the node's class distribution
    np.testing.assert_array_equal(
        model.predict_proba(X_new), model.tree_.value[[end[0][0] for end in ends]]
    )


@pytest.mark.parametrize(
    "make",
    [
        lambda: CARTClassifier(missing="c45"),
        lambda: C45Classifier(missing="c45", pruning=None),
        lambda: CARTRegressor(missing="c45"),
        lambda: CARTRegressor(missing="c45", criterion="absolute_error", max_depth=4),
    ],
)
def test_training_weights_reach_the_leaves_as_prediction_routes_them(make):
    # Fit/predict consistency: routing the training rows with the prediction
    # walk, each leaf receives exactly the (fractional) weight it was grown with.
    X, y = _with_missing(seed=3)
    model = make().fit(X, y if not isinstance(make(), CARTRegressor) else X["a"].fillna(0) + y)
    values = X.copy()
    values["d"] = X["d"].cat.codes.replace(-1, np.nan).astype(float)
    sample, node, weight = model.tree_.apply_weighted(values.to_numpy(float))
    reached = np.bincount(node, weights=weight, minlength=model.tree_.node_count)
    leaves = model.tree_.feature == LEAF
    np.testing.assert_allclose(reached[leaves], model.tree_.weighted_n_node_samples[leaves])
    np.testing.assert_allclose(np.bincount(sample, weights=weight), 1.0)


def test_fractional_weights_sum_to_the_parent_weight():
    X, y = _with_missing(seed=4, rate=0.3)
    tree = CARTClassifier(missing="c45").fit(X, y, sample_weight=np.linspace(0.5, 2, len(y))).tree_
    internal = np.flatnonzero(tree.feature != LEAF)
    assert (tree.missing_slot[internal] == MISSING_ALL_BRANCHES).all()
    for node in internal:
        children = tree.first_child[node] + np.arange(tree.n_children[node])
        np.testing.assert_allclose(
            tree.weighted_n_node_samples[children].sum(), tree.weighted_n_node_samples[node]
        )
    np.testing.assert_allclose(tree.weighted_n_node_samples[0], np.linspace(0.5, 2, len(y)).sum())


def test_class_weighted_counts_of_a_split_by_hand():
    # One numeric feature, a single split: the leaves' class weights are the
    # known rows of each side plus the missing rows times r~_k.
    X = np.array([[1.0], [2.0], [3.0], [np.nan], [10.0], [11.0], [np.nan], [12.0]])
    y = np.array([0, 0, 0, 0, 1, 1, 1, 1])
    tree = CARTClassifier(missing="c45", max_depth=1).fit(X, y).tree_
    left, right = tree.first_child[0], tree.first_child[0] + 1
    assert 3.0 < tree.threshold[0] < 10.0
    np.testing.assert_allclose(tree.weighted_n_node_samples[[left, right]], [3 + 2 * 0.5] * 2)
    np.testing.assert_allclose(tree.value[left], [3.5 / 4, 0.5 / 4])
    np.testing.assert_allclose(tree.value[right], [0.5 / 4, 3.5 / 4])


@pytest.mark.parametrize(
    "make",
    [
        lambda m: CARTClassifier(missing=m),
        lambda m: CARTClassifier(missing=m, max_bins=16, max_depth=5),
        lambda m: CARTRegressor(missing=m),
        lambda m: C45Classifier(missing=m, pruning=None),
        lambda m: ID3Classifier(missing=m),
    ],
)
def test_without_missing_values_every_method_grows_the_same_tree(make):
    X, y = _with_missing(seed=5, rate=0.0)
    if isinstance(make("error"), ID3Classifier):
        X = X[["d"]].assign(e=pd.Categorical((X["a"] > 0).map({True: "u", False: "v"})))
    methods = make("error")._missing_methods
    trees = [make(m).fit(X, y).tree_ for m in methods]
    for tree in trees[1:]:
        for name in tree.__dataclass_fields__:
            # Where NaN would go (default slot, surrogate splits) differs by method.
            if name != "missing_slot" and not name.startswith("surrogate_"):
                np.testing.assert_array_equal(getattr(tree, name), getattr(trees[0], name), name)
    X_new, _ = _with_missing(seed=6, n=100, rate=0.0)
    if isinstance(make("error"), ID3Classifier):
        X_new = X_new[["d"]].assign(e=pd.Categorical((X_new["a"] > 0).map({True: "u", False: "v"})))
    predictions = [make(m).fit(X, y).predict(X_new) for m in methods]
    for p in predictions[1:]:
        np.testing.assert_array_equal(p, predictions[0])


def test_c45_model_trained_without_nan_accepts_nan_at_predict():
    X, y = _with_missing(seed=7, rate=0.0)
    model = C45Classifier().fit(X, y)  # default missing="c45"
    X_new = X.iloc[:20].copy()
    X_new.loc[X_new.index[:10], "a"] = np.nan
    proba = model.predict_proba(X_new)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    np.testing.assert_array_equal(proba[10:], model.predict_proba(X.iloc[10:20]))


# ---------------------------------------------------------------------------
# XGBoost's default direction
# ---------------------------------------------------------------------------


def _brute_force_stump(X, y):
    """Best (gain, feature, threshold, missing_left) of a squared-error stump, by enumeration."""
    n = len(y)
    best = (-np.inf, None, None, None)
    sse = ((y - y.mean()) ** 2).sum()
    for j in range(X.shape[1]):
        known = ~np.isnan(X[:, j])
        values = np.unique(X[known, j])
        for a, b in itertools.pairwise(values):
            for missing_left in (True, False):
                left = (known & (X[:, j] <= (a + b) / 2)) | (~known & missing_left)
                parts = [y[left], y[~left]]
                gain = (sse - sum(((p - p.mean()) ** 2).sum() for p in parts)) / n
                if gain > best[0] + 1e-12:
                    best = (gain, j, (a + b) / 2, missing_left)
    return best


@pytest.mark.parametrize("seed", range(8))
def test_default_direction_stump_against_brute_force(seed):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(30, 3))
    y = X[:, 0] + rng.normal(size=30)
    X[rng.random(X.shape) < 0.3] = np.nan
    y = y + 2.0 * np.isnan(X[:, 0])  # missingness carries information
    tree = CARTRegressor(missing="default_direction", max_depth=1).fit(X, y).tree_
    gain, feature, threshold, missing_left = _brute_force_stump(X, y)
    if tree.threshold[0] == np.inf:  # known rows left, missing right: not in the enumeration
        pytest.skip("the best stump separates known from missing values")
    assert tree.feature[0] == feature
    assert tree.threshold[0] == pytest.approx(threshold)
    assert tree.missing_slot[0] == (0 if missing_left else 1)
    np.testing.assert_allclose(tree.impurity[0] - _children_impurity(tree), gain, rtol=1e-9)


def _children_impurity(tree):
    children = tree.first_child[0] + np.arange(2)
    w = tree.weighted_n_node_samples
    return (w[children] * tree.impurity[children]).sum() / w[0]


def test_default_direction_sends_missing_values_to_the_learned_child():
    rng = np.random.default_rng(0)
    x = rng.normal(size=200)
    y = (x > 0).astype(int)
    x[:40] = np.nan
    y[:40] = 1  # every missing value is a positive: it should join x > 0
    model = CARTClassifier(missing="default_direction", max_depth=1).fit(x[:, None], y)
    assert model.tree_.missing_slot[0] == 1
    assert (model.predict(np.full((5, 1), np.nan)) == 1).all()
    assert model.score(x[:, None], y) == 1.0


def test_default_direction_without_missing_training_values_goes_to_the_heavier_child():
    x = np.array([1.0, 2.0, 3.0, 10.0, 11.0, 12.0, 13.0, 14.0])
    y = np.array([0, 0, 0, 1, 1, 1, 1, 1])
    model = CARTClassifier(missing="default_direction", max_depth=1).fit(x[:, None], y)
    assert model.tree_.missing_slot[0] == 1
    assert model.predict([[np.nan]])[0] == 1


def test_default_direction_matches_xgboost_exact():
    # XGBoost is a test dependency (pyproject's test extras): a missing install
    # fails here rather than skipping the only cross-check of the direction.
    import xgboost as xgb

    rng = np.random.default_rng(1)
    for _ in range(4):
        X = rng.normal(size=(40, 3))
        y = 2 * X[:, 0] + rng.normal(size=40)
        X[rng.random(X.shape) < 0.25] = np.nan
        X = X.astype(np.float32).astype(np.float64)  # XGBoost works in float32
        for depth in (1, 2, 3):
            ours = CARTRegressor(missing="default_direction", max_depth=depth).fit(X, y)
            params = {
                "tree_method": "exact",
                "max_depth": depth,
                "eta": 1.0,
                "lambda": 0.0,
                "min_child_weight": 0.0,
                "base_score": 0.0,
                "objective": "reg:squarederror",
                "nthread": 1,
            }
            booster = xgb.train(params, xgb.DMatrix(X, y, missing=np.nan), 1)
            theirs = booster.predict(xgb.DMatrix(X, missing=np.nan))
            # Training rows only: for a "known left, missing right" split XGBoost
            # stores an artificial threshold, mltrees +inf (see chapter 6).
            np.testing.assert_allclose(ours.predict(X), theirs, atol=1e-5)


# ---------------------------------------------------------------------------
# Bad input
# ---------------------------------------------------------------------------


def test_nan_without_a_method_names_the_column_and_the_fix():
    X, y = _with_missing()
    fix = r"pass missing='default_direction' \(or 'c45', 'surrogate'\)"
    with pytest.raises(ValueError, match=r"missing values \(NaN\) in column 'a'.*" + fix):
        CARTClassifier(missing="error").fit(X, y)
    model = CARTClassifier(missing="error").fit(
        X.fillna({"a": 0.0, "b": 0.0, "c": 0.0, "d": "p"}), y
    )
    with pytest.raises(ValueError, match=r"missing values \(NaN\) in column 'b'.*" + fix):
        model.predict(X.fillna({"a": 0.0, "d": "p"}))
    with pytest.raises(ValueError, match=r"in column 'd'.*pass missing='c45' to route them"):
        ID3Classifier(missing="error").fit(X[["d"]], y)


def test_absolute_error_learns_no_direction_but_routes_nan_at_predict():
    # Its medians are not sums: training NaN is refused with the fix named...
    X, y = _with_missing()
    target = X["a"].fillna(0).to_numpy() + y
    with pytest.raises(ValueError, match=r"column 'a'.*pass missing='c45' or missing='surrogate'"):
        CARTRegressor(criterion="absolute_error").fit(X, target)
    # ...and without training NaN every node sends NaN to its larger child.
    complete = X.fillna({"a": 0.0, "b": 0.0, "c": 0.0, "d": "p"})
    model = CARTRegressor(criterion="absolute_error", max_depth=3).fit(complete, target)
    tree = model.tree_
    internal = np.flatnonzero(tree.feature >= 0)
    left, right = tree.first_child[internal], tree.first_child[internal] + 1
    larger = np.where(tree.n_node_samples[left] > tree.n_node_samples[right], 0, 1)
    np.testing.assert_array_equal(tree.missing_slot[internal], larger)
    assert np.isfinite(model.predict(X)).all()


@pytest.mark.parametrize(
    ("estimator", "match"),
    [
        (
            CARTClassifier(missing="rpart"),
            "missing must be one of 'error', 'c45', 'default_direction', 'surrogate'",
        ),
        (ID3Classifier(missing="default_direction"), "missing must be one of 'error', 'c45' for"),
        (C45Classifier(missing=None), "missing must be one of 'error', 'c45' for C45"),
    ],
)
def test_bad_missing_parameter(estimator, match):
    X, y = _with_missing(rate=0.0)
    with pytest.raises(ValueError, match=match):
        estimator.fit(X, y)


@pytest.mark.parametrize("missing", ["c45", "default_direction"])
def test_inf_is_still_an_error(missing):
    X, y = _with_missing()
    X.loc[3, "a"] = np.inf
    with pytest.raises(ValueError, match="inf"):
        CARTClassifier(missing=missing).fit(X, y)
    model = CARTClassifier(missing=missing).fit(X.drop(index=3), np.delete(y, 3))
    with pytest.raises(ValueError, match="inf"):
        model.predict(X)


def test_defaults_and_tags():
    # Every tree takes NaN at its defaults (CHANGELOG 0.2.0: CART and ID3 refused it).
    assert C45Classifier().missing == "c45"
    assert ID3Classifier().missing == "c45"
    assert CARTClassifier().missing == "default_direction"
    assert CARTRegressor().missing == "default_direction"
    for estimator in (C45Classifier(), ID3Classifier(), CARTClassifier(), CARTRegressor()):
        assert estimator.__sklearn_tags__().input_tags.allow_nan
    assert not CARTClassifier(missing="error").__sklearn_tags__().input_tags.allow_nan
    assert clone(CARTRegressor(missing="c45")).missing == "c45"


def test_unseen_category_still_stops_at_the_node():
    X, y = _with_missing(seed=8)
    model = C45Classifier(pruning=None).fit(X, y)
    X_new = X.iloc[:30].copy()
    X_new["d"] = X_new["d"].cat.add_categories(["zz"])
    X_new.loc[X_new.index, "d"] = "zz"
    nodes = model.apply(X_new)
    tree = model.tree_
    d = list(X.columns).index("d")
    stopped = tree.feature[nodes] == d  # reached a test on d with an unknown category
    np.testing.assert_array_equal(model.predict_proba(X_new)[stopped], tree.value[nodes[stopped]])


@pytest.mark.parametrize("missing", ["c45", "default_direction"])
@pytest.mark.parametrize("max_bins", [None, 255, 4])
def test_histogram_and_exact_modes_fit_and_predict_with_nan(missing, max_bins):
    # A feature whose known values all fall in one bin can still separate its
    # known rows from its missing ones (default direction: threshold +inf).
    rng = np.random.default_rng(9)
    X = rng.normal(size=(600, 4))
    X[:, 3] = 1.0  # constant among the known rows
    X[rng.random(X.shape) < 0.2] = np.nan
    y = np.isnan(X[:, 3]).astype(int)  # the class is "x3 is missing"
    model = CARTClassifier(missing=missing, max_bins=max_bins, max_depth=6).fit(X, y)
    proba = model.predict_proba(X)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    if missing == "default_direction":
        assert model.tree_.feature[0] == 3
        assert model.tree_.threshold[0] == np.inf
        assert model.tree_.missing_slot[0] == 1
        assert model.score(X, y) == 1.0
    else:  # fractional weights cannot see missingness: x3 is never informative
        assert 3 not in model.tree_.feature
