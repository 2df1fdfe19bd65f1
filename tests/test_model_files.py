"""Model files (chapter 18): round trips, hostile files, models imported from XGBoost/LightGBM."""

from __future__ import annotations

import copy
import json
import signal
import time

import numpy as np
import pandas as pd
import pytest

import mltrees
from mltrees.datasets import load_heart_disease, load_penguins
from mltrees.ensemble.logitboost import LogitBoostClassifier
from mltrees.io import (
    ModelFormatError,
    from_json,
    import_lightgbm,
    import_xgboost,
    load_model,
    save_model,
    to_json,
    validate_tree,
    xgboost_threshold,
)


@pytest.fixture(scope="module")
def penguins():
    X, y = load_penguins(return_X_y=True)
    numeric = X.select_dtypes("number")
    filled = numeric.fillna(numeric.median())
    return {
        "X": X,  # categorical columns and missing values
        "numeric": numeric,  # missing values
        "filled": filled,
        "y": y,
        "binary": (y == "Adelie").to_numpy(),
        "mass": filled["body_mass_g"].to_numpy(),
        "X_mass": X.drop(columns="body_mass_g"),
        # CatBoost's statistics need a category for every row: NaN becomes one.
        "X_known": X.assign(sex=X["sex"].astype(object).where(X["sex"].notna(), "unknown")),
    }


# (estimator, input key, target key): every estimator, with the options that
# change what a fitted model holds (categorical features, missing-value
# methods, histograms, multiclass, subsampling).
CASES = [
    (lambda: mltrees.ID3Classifier(missing="c45"), "categorical", "y"),
    (lambda: mltrees.C45Classifier(), "X", "y"),
    (lambda: mltrees.C45Classifier(max_bins=16, pruning=None), "X", "y"),
    (lambda: mltrees.CARTClassifier(missing="default_direction", max_depth=4), "X", "y"),
    (lambda: mltrees.CARTClassifier(missing="c45", class_weight={"Adelie": 2.0}), "X", "y"),
    (lambda: mltrees.CARTRegressor(missing="c45", ccp_alpha=1e3), "X_mass", "mass"),
    (lambda: mltrees.CARTRegressor(criterion="absolute_error", max_depth=3), "filled", "mass"),
    (lambda: mltrees.RuleSetClassifier(), "X", "y"),
    (lambda: mltrees.BaggingClassifier(n_estimators=3, random_state=0), "filled", "y"),
    (lambda: mltrees.BaggingRegressor(n_estimators=3, random_state=0), "filled", "mass"),
    (
        lambda: mltrees.RandomForestClassifier(n_estimators=4, random_state=0, missing="c45"),
        "X",
        "y",
    ),
    (
        lambda: mltrees.RandomForestClassifier(
            n_estimators=4, random_state=0, max_bins=32, missing="default_direction"
        ),
        "X",
        "y",
    ),
    (
        lambda: mltrees.RandomForestRegressor(
            n_estimators=4, random_state=0, missing="default_direction"
        ),
        "X_mass",
        "mass",
    ),
    (lambda: mltrees.AdaBoostClassifier(n_estimators=5, random_state=0), "filled", "y"),
    (
        lambda: mltrees.AdaBoostClassifier(n_estimators=5, algorithm="real", random_state=0),
        "filled",
        "binary",
    ),
    (lambda: LogitBoostClassifier(n_estimators=5), "filled", "binary"),
    (lambda: mltrees.GradientBoostingClassifier(n_estimators=5), "filled", "y"),
    (
        lambda: mltrees.GradientBoostingClassifier(
            n_estimators=5, max_bins=32, subsample=0.7, random_state=0
        ),
        "filled",
        "binary",
    ),
    (lambda: mltrees.GradientBoostingRegressor(n_estimators=5, loss="huber"), "filled", "mass"),
    (lambda: mltrees.XGBoostClassifier(n_estimators=5), "numeric", "y"),
    (lambda: mltrees.XGBoostClassifier(n_estimators=5, tree_method="exact"), "numeric", "binary"),
    (lambda: mltrees.XGBoostRegressor(n_estimators=5, max_depth=3), "numeric_mass", "mass"),
    (lambda: mltrees.LightGBMClassifier(n_estimators=5, min_child_samples=5), "numeric", "y"),
    (
        lambda: mltrees.LightGBMClassifier(
            n_estimators=5, data_sample_strategy="goss", learning_rate=0.5, random_state=0
        ),
        "numeric",
        "binary",
    ),
    (lambda: mltrees.LightGBMRegressor(n_estimators=5, num_leaves=8), "numeric_mass", "mass"),
    (lambda: mltrees.ObliviousBoostingClassifier(n_estimators=4, depth=3), "numeric", "y"),
    (
        lambda: mltrees.ObliviousBoostingClassifier(
            n_estimators=4, depth=2, boosting_type="Ordered", random_state=0
        ),
        "X_known",
        "binary",
    ),
    (
        lambda: mltrees.ObliviousBoostingRegressor(n_estimators=4, depth=3, one_hot_max_size=3),
        "X_known",
        "mass",
    ),
    (lambda: mltrees.ObliqueTreeClassifier(max_depth=3, random_state=0), "filled", "y"),
    (lambda: mltrees.CARTClassifier(missing="surrogate", max_depth=4), "numeric", "y"),
    (
        lambda: mltrees.ObliqueTreeRegressor(max_depth=3, splitter="least_squares"),
        "filled",
        "mass",
    ),
]


def _data(penguins, key):
    if key == "categorical":
        return penguins["X"][["island", "sex"]]
    if key == "numeric_mass":
        return penguins["numeric"].drop(columns="body_mass_g")
    return penguins[key]


def _bits(array):
    array = np.asarray(array)
    return array.view(np.uint64) if array.dtype == np.float64 else array


@pytest.mark.parametrize("case", range(len(CASES)))
def test_round_trip_predictions_identical(penguins, case):
    make, x_key, y_key = CASES[case]
    X, y = _data(penguins, x_key), penguins[y_key]
    model = make().fit(X, y)
    back = from_json(to_json(model))
    assert type(back) is type(model)
    assert back.get_params() == model.get_params() or repr(back) == repr(model)
    assert np.array_equal(back.predict(X), model.predict(X))
    for method in ("predict_proba", "decision_function"):
        if hasattr(model, method):
            try:
                expected = getattr(model, method)(X)
            except (AttributeError, NotImplementedError):
                continue
            assert np.array_equal(_bits(getattr(back, method)(X)), _bits(expected))
    # A second save of the loaded model writes the same file.
    assert to_json(back) == to_json(model)


def test_save_and_load_a_file(tmp_path, penguins):
    model = mltrees.C45Classifier().fit(penguins["X"], penguins["y"])
    path = tmp_path / "c45.json"
    save_model(model, path)
    document = json.loads(path.read_text(encoding="utf-8"))
    assert document["format"] == "mltrees-model"
    assert document["format_version"] == 1
    assert document["model"]["estimator"] == "C45Classifier"
    back = load_model(path)
    assert np.array_equal(back.predict_proba(penguins["X"]), model.predict_proba(penguins["X"]))
    with pytest.raises(ModelFormatError, match="max_bytes"):
        load_model(path, max_bytes=100)


def test_unfitted_estimator_round_trip():
    model = mltrees.AdaBoostClassifier(estimator=mltrees.CARTClassifier(max_depth=2))
    back = from_json(to_json(model))
    assert repr(back) == repr(model)
    assert not hasattr(back, "estimators_")


def test_foreign_member_cannot_be_saved(penguins):
    from sklearn.tree import DecisionTreeClassifier

    model = mltrees.AdaBoostClassifier(estimator=DecisionTreeClassifier(max_depth=1))
    with pytest.raises(ModelFormatError, match="sklearn"):
        to_json(model)


# ---------------------------------------------------------------- hostile files


def _document(model) -> dict:
    return json.loads(to_json(model))


@pytest.fixture(scope="module")
def small_tree(penguins):
    return mltrees.CARTClassifier(max_depth=3, missing="c45").fit(penguins["X"], penguins["y"])


def _tree_state(document):
    return document["model"]["fitted"]["tree_"]["state"]


def test_pickle_style_names_are_refused(small_tree):
    document = _document(small_tree)
    document["model"]["estimator"] = "os.system"
    with pytest.raises(ModelFormatError, match="not a registered estimator"):
        from_json(json.dumps(document))
    document = _document(small_tree)
    document["model"]["fitted"]["tree_"]["object"] = "subprocess.Popen"
    with pytest.raises(ModelFormatError, match="not a registered class"):
        from_json(json.dumps(document))


def test_method_shadowing_is_refused(small_tree):
    document = _document(small_tree)
    document["model"]["fitted"]["predict"] = 1
    with pytest.raises(ModelFormatError, match="replace a method"):
        from_json(json.dumps(document))
    document = _document(small_tree)
    document["model"]["fitted"]["__class__"] = 1
    with pytest.raises(ModelFormatError, match="identifier"):
        from_json(json.dumps(document))


def test_cycle_and_out_of_range_children_are_refused(small_tree):
    document = _document(small_tree)
    state = _tree_state(document)
    first = state["first_child"]["data"]
    internal = [i for i, f in enumerate(state["feature"]["data"]) if f >= 0]
    deep = internal[-1]
    first[deep] = 0  # back to the root: a cycle
    with pytest.raises(ModelFormatError, match=r"children ids|cycle|two nodes"):
        from_json(json.dumps(document))
    document = _document(small_tree)
    _tree_state(document)["first_child"]["data"][deep] = 10**6
    with pytest.raises(ModelFormatError, match="children ids"):
        from_json(json.dumps(document))
    document = _document(small_tree)
    state = _tree_state(document)
    state["first_child"]["data"][internal[1]] = state["first_child"]["data"][internal[0]]
    with pytest.raises(ModelFormatError, match=r"two nodes|reached"):
        from_json(json.dumps(document))


def test_lying_depth_and_feature_out_of_range_are_refused(small_tree):
    document = _document(small_tree)
    _tree_state(document)["depth"]["data"][-1] += 1
    with pytest.raises(ModelFormatError, match="depth and parent"):
        from_json(json.dumps(document))
    document = _document(small_tree)
    state = _tree_state(document)
    i = state["feature"]["data"].index(max(state["feature"]["data"]))
    state["feature"]["data"][i] = small_tree.n_features_in_
    with pytest.raises(ModelFormatError, match="feature"):
        from_json(json.dumps(document))


def test_non_standard_json_and_versions_are_refused(small_tree):
    text = to_json(small_tree)
    with pytest.raises(ModelFormatError, match="standard JSON"):
        from_json(text.replace('"NaN"', "NaN", 1))
    document = json.loads(text)
    document["format_version"] = 99
    with pytest.raises(ModelFormatError, match="upgrade mltrees"):
        from_json(json.dumps(document))
    with pytest.raises(ModelFormatError, match="not a JSON"):
        from_json(text[:-10])
    with pytest.raises(ModelFormatError, match="nested"):
        from_json(
            '{"format": "mltrees-model", "format_version": 1, "model": '
            + "[" * 100
            + "]" * 100
            + "}"
        )
    with pytest.raises(TypeError, match="text must be"):
        from_json(3)


def test_huge_sizes_are_refused_before_allocation(small_tree):
    document = _document(small_tree)
    _tree_state(document)["value"]["shape"] = [10**12, 3]
    start = time.perf_counter()
    with pytest.raises(ModelFormatError, match=r"shape|larger|cells"):
        from_json(json.dumps(document))
    assert time.perf_counter() - start < 5


def _paths(value, prefix=()):
    """Every (path, leaf-or-container) of a JSON value."""
    yield prefix, value
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _paths(v, (*prefix, k))
    elif isinstance(value, list) and len(value) <= 64:
        for i, v in enumerate(value):
            yield from _paths(v, (*prefix, i))
    elif isinstance(value, list):  # long arrays: a few positions suffice
        for i in (0, 1, len(value) // 2, len(value) - 1):
            yield from _paths(value[i], (*prefix, i))


def _mutate(document, rng):
    document = copy.deepcopy(document)
    paths = [p for p, _ in _paths(document) if p]
    path = paths[rng.integers(len(paths))]
    parent = document
    for key in path[:-1]:
        parent = parent[key]
    key = path[-1]
    old = parent[key]
    choice = rng.integers(9)
    if choice == 0 and isinstance(parent, dict):
        del parent[key]
    elif choice == 1:
        parent[key] = [None, "x", 1.5, {}, [], True, {"ref": 0}, {"tuple": 3}][rng.integers(8)]
    elif choice == 2 and isinstance(old, (int, float)) and not isinstance(old, bool):
        parent[key] = [-old, old + 1, old - 1, 10**9, -(10**9), 2**70, 0.5, 1e308][rng.integers(8)]
    elif choice == 3 and isinstance(old, list) and old:
        old.pop(rng.integers(len(old)))
    elif choice == 4 and isinstance(old, list):
        old.append(old[0] if old else 0)
    elif choice == 5 and isinstance(old, list) and len(old) > 1:
        i, j = rng.integers(len(old), size=2)
        old[i], old[j] = old[j], old[i]
    elif choice == 6 and isinstance(old, str):
        parent[key] = ["float64", "object", "<U3", "Tree", "NaN", "", "int8"][rng.integers(7)]
    elif choice == 7:
        parent[key] = [10**12] if key == "shape" else [[[[old]]]]
    else:  # child links: any node id, including itself, 0 and out of range
        state = _find_tree_state(document)
        field = ["first_child", "n_children", "parent", "depth", "feature"][rng.integers(5)]
        array = state.get(field) if isinstance(state, dict) else None
        data = array.get("data") if isinstance(array, dict) else None
        if isinstance(data, list) and data:  # an earlier mutation may have broken it
            data[rng.integers(len(data))] = int(rng.integers(-3, len(data) + 3))
    return document


def _find_tree_state(document):
    for _, value in _paths(document):
        if isinstance(value, dict) and value.get("object") == "Tree":
            return value.get("state")
    return None


class _Timeout(Exception):
    pass


def _alarm(signum, frame):
    raise _Timeout


@pytest.mark.parametrize("seed", range(4))
def test_fuzzed_files_fail_only_with_model_format_error(penguins, small_tree, seed):
    rng = np.random.default_rng(seed)
    models = [
        small_tree,
        mltrees.RandomForestClassifier(n_estimators=2, max_depth=2, random_state=0).fit(
            penguins["filled"], penguins["y"]
        ),
        mltrees.XGBoostClassifier(n_estimators=2, max_depth=2).fit(
            penguins["numeric"], penguins["y"]
        ),
        mltrees.RuleSetClassifier().fit(penguins["X"], penguins["y"]),
    ]
    documents = [_document(m) for m in models]
    previous = signal.signal(signal.SIGALRM, _alarm)
    rejected = 0
    try:
        for trial in range(60):
            document = documents[trial % len(documents)]
            for _ in range(int(rng.integers(1, 4))):
                document = _mutate(document, rng)
            text = json.dumps(document)
            signal.alarm(10)  # a hang fails the test instead of blocking it
            try:
                from_json(text)
            except ModelFormatError:
                rejected += 1
            except _Timeout:
                pytest.fail(f"the loader hung on mutation {trial} (seed {seed})")
            finally:
                signal.alarm(0)
    finally:
        signal.signal(signal.SIGALRM, previous)
    assert rejected > 10  # the mutations do reach the checks


def test_validate_tree_accepts_fitted_trees(penguins):
    model = mltrees.C45Classifier().fit(penguins["X"], penguins["y"])
    validate_tree(model.tree_, n_features=7)
    with pytest.raises(ModelFormatError, match="feature"):
        validate_tree(model.tree_, n_features=1)


# ---------------------------------------------------------------- XGBoost


def test_xgboost_threshold_is_float32_less_than():
    """x <= s  <=>  float32(x) < t, on the doubles around every rounding boundary."""
    rng = np.random.default_rng(0)
    t = np.concatenate(
        [
            rng.normal(size=500).astype(np.float32),
            (rng.normal(size=200) * 1e30).astype(np.float32),
            np.array([0.0, -0.0, 1e-45, -1e-45, 1.0, 0.1, 3e38], dtype=np.float32),
        ]
    )
    s = xgboost_threshold(t)
    p = np.nextafter(t, np.float32(-np.inf)).astype(np.float64)
    m = (p + t.astype(np.float64)) / 2
    candidates = [m, np.nextafter(m, -np.inf), np.nextafter(m, np.inf), t.astype(np.float64), p]
    for x in candidates:
        with np.errstate(over="ignore"):
            expected = x.astype(np.float32) < t
        assert np.array_equal(x <= s, expected)


def _xgb_model(params, X, y, rounds=8):
    xgb = pytest.importorskip("xgboost")
    data = xgb.DMatrix(X, label=y)
    booster = xgb.train({"max_depth": 4, "seed": 0, "nthread": 1, **params}, data, rounds)
    return booster, data


XGB_OBJECTIVES = [
    ("reg:squarederror", {}, "mass"),
    ("binary:logistic", {}, "binary"),
    ("binary:logistic", {"base_score": 0.3}, "binary"),
    ("multi:softprob", {"num_class": 3}, "codes"),
    ("count:poisson", {}, "mass_k"),
]


@pytest.mark.parametrize(("objective", "extra", "target"), XGB_OBJECTIVES)
def test_import_xgboost_equals_library(penguins, objective, extra, target):
    X = penguins["numeric"].to_numpy()  # with its missing values
    y = {
        "mass": penguins["mass"],
        "mass_k": penguins["mass"] / 1000,
        "binary": penguins["binary"].astype(float),
        "codes": pd.Categorical(penguins["y"]).codes,
    }[target]
    if target.startswith("mass"):
        X = X[:, [0, 1, 2, 4]]
    booster, data = _xgb_model({"objective": objective, **extra}, X, y)
    model = import_xgboost(bytes(booster.save_raw("json")))
    margin = booster.predict(data, output_margin=True)
    np.testing.assert_allclose(
        model.decision_function(X), margin, rtol=2e-6, atol=2e-6 * np.abs(margin).max()
    )
    np.testing.assert_allclose(model.predict(X), booster.predict(data), rtol=2e-6, atol=1e-6)
    # Every row reaches the same leaf as in XGBoost (the split tests are exact).
    leaves = booster.predict(data, pred_leaf=True).reshape(X.shape[0], -1).astype(np.intp)
    ours = model.apply(X)
    trees = json.loads(booster.save_raw("json"))["learner"]["gradient_booster"]["model"]["trees"]
    for k, tree in enumerate(model.trees_):
        leaf_values = np.asarray(trees[k]["split_conditions"], dtype=np.float32)
        expected = leaf_values[leaves[:, k]]
        assert np.array_equal(tree.value[ours[:, k], 0].astype(np.float32), expected)


@pytest.mark.parametrize(
    ("objective", "base_score"),
    [
        ("binary:logistic", 0.3),
        ("binary:logistic", 0.125),
        ("count:poisson", 2.5),
        # where glibc's logf is not the correctly rounded log (the C library's is used)
        ("binary:logistic", 0.0100191664),
        ("count:poisson", 0.0100002354),
        # XGBoost clamps a probability to [1e-6, 1 - 1e-6] before the logit
        ("binary:logistic", 1e-7),
        ("binary:logistic", 0.9999995),
        ("binary:logistic", 0.0),
        ("binary:logistic", 1.0),
    ],
)
def test_import_xgboost_starts_from_xgboosts_own_margin(objective, base_score):
    """The imported base margin is the float32 margin XGBoost starts from (ProbToMargin).

    XGBoost's margin of a booster without trees is its starting margin; a
    one-tree model of the same base score imports with exactly that value.
    """
    xgb = pytest.importorskip("xgboost")
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 2))
    y = (X[:, 0] > 0).astype(float) if objective.startswith("binary") else np.exp(X[:, 0])
    data = xgb.DMatrix(X, label=y)
    params = {"objective": objective, "base_score": base_score, "nthread": 1, "max_depth": 1}
    start = xgb.train(params, data, 0).predict(data, output_margin=True)[0]
    model = import_xgboost(bytes(xgb.train(params, data, 1).save_raw("json")))
    assert np.float32(np.ravel(model.base_margin_)[0]) == start


def test_import_xgboost_model_of_all_zero_labels():
    """XGBoost stores base_score 0 for a target of zeros; the file imports and predicts as it."""
    xgb = pytest.importorskip("xgboost")
    X = np.random.default_rng(1).normal(size=(40, 2))
    data = xgb.DMatrix(X, label=np.zeros(40))
    booster = xgb.train({"objective": "binary:logistic", "nthread": 1, "max_depth": 1}, data, 2)
    stored = json.loads(booster.save_raw("json"))["learner"]["learner_model_param"]["base_score"]
    assert float(stored.strip("[]")) == 0.0  # the case: XGBoost stores a probability of 0
    model = import_xgboost(bytes(booster.save_raw("json")))
    np.testing.assert_allclose(model.predict(X), booster.predict(data), rtol=2e-6, atol=1e-9)


def test_import_xgboost_refuses_a_poisson_model_of_all_zero_counts():
    """XGBoost stores base_score 0 (margin -inf) for count:poisson on zeros: a clear refusal."""
    xgb = pytest.importorskip("xgboost")
    X = np.random.default_rng(2).normal(size=(40, 2))
    data = xgb.DMatrix(X, label=np.zeros(40))
    booster = xgb.train({"objective": "count:poisson", "nthread": 1, "max_depth": 1}, data, 2)
    with pytest.raises(ModelFormatError, match="all-zero counts"):
        import_xgboost(bytes(booster.save_raw("json")))


def test_import_xgboost_categorical_splits(penguins):
    xgb = pytest.importorskip("xgboost")
    X = penguins["X"]  # pandas categories and missing values
    codes = pd.Categorical(penguins["y"]).codes
    data = xgb.DMatrix(X, label=codes, enable_categorical=True)
    booster = xgb.train(
        {
            "objective": "multi:softprob",
            "num_class": 3,
            "max_depth": 3,
            "nthread": 1,
            "max_cat_to_onehot": 1,
        },
        data,
        10,
    )
    model = import_xgboost(bytes(booster.save_raw("json")))
    assert model.categorical_[0]
    assert any((tree.kind == 1).any() for tree in model.trees_)
    np.testing.assert_allclose(model.predict(X), booster.predict(data), rtol=2e-6, atol=1e-7)
    # Negative, fractional, unseen and missing codes, as XGBoost routes them.
    values = X.apply(
        lambda c: c.cat.codes.astype(float).where(c.cat.codes >= 0) if hasattr(c, "cat") else c
    ).to_numpy()
    probe = np.tile(values[:8], (2, 1))
    probe[:8, 0] = [-1, -0.5, 0.5, 1.7, 2, 3, 9, np.nan]
    probe[8:, 5] = [-2, 0, 1, 1.9, 2, 5, np.nan, -0.1]
    expected = booster.predict(
        xgb.DMatrix(
            probe,
            feature_names=booster.feature_names,
            feature_types=booster.feature_types,
            enable_categorical=True,
        )
    )
    np.testing.assert_allclose(model.predict(probe), expected, rtol=2e-6, atol=1e-7)


def test_import_xgboost_float32_threshold_matters():
    """A value just below t in double but equal to t in float32 goes right, as in XGBoost."""
    xgb = pytest.importorskip("xgboost")
    rng = np.random.default_rng(1)
    x = rng.normal(size=(200, 1))
    y = (x[:, 0] > 0.1).astype(float)
    booster = xgb.train(
        {"objective": "reg:squarederror", "max_depth": 1, "nthread": 1},
        xgb.DMatrix(x, label=y),
        1,
    )
    model = import_xgboost(bytes(booster.save_raw("json")))
    t = json.loads(booster.save_raw("json"))["learner"]["gradient_booster"]["model"]["trees"][0][
        "split_conditions"
    ][0]
    t = np.float32(t)
    below = np.nextafter(np.float64(t), -np.inf)  # x < t in double, float32(x) == t
    assert below < t
    assert np.float32(below) == t
    probe = np.array([[below], [np.nextafter(np.float64(t), np.inf)]])
    expected = booster.predict(xgb.DMatrix(probe))
    np.testing.assert_array_equal(model.predict(probe).astype(np.float32), expected)
    assert expected[0] == expected[1]  # both went right, although below < t


def test_import_xgboost_rejects_broken_files(penguins):
    booster, _ = _xgb_model(
        {"objective": "binary:logistic"},
        penguins["numeric"].to_numpy(),
        penguins["binary"].astype(float),
        rounds=2,
    )
    document = json.loads(booster.save_raw("json"))
    tree = document["learner"]["gradient_booster"]["model"]["trees"][0]
    tree["left_children"][0] = 0  # the root as its own child
    with pytest.raises(ModelFormatError):
        import_xgboost(document)
    with pytest.raises(ModelFormatError):
        import_xgboost({"learner": {}})
    # UBJSON, XGBoost's default format since 2.1, is named in the error with the way out
    with pytest.raises(ModelFormatError, match=r"UBJSON.*save_raw"):
        import_xgboost(bytes(booster.save_raw("ubj")))


def test_import_xgboost_refuses_vector_leaf_trees(penguins):
    # multi_strategy="multi_output_tree" grows one tree whose leaves hold one
    # value per class; its node arrays must not be read as scalar trees.
    booster, _ = _xgb_model(
        {
            "objective": "multi:softprob",
            "num_class": 3,
            "multi_strategy": "multi_output_tree",
            "tree_method": "hist",
        },
        penguins["numeric"].to_numpy(),
        pd.Categorical(penguins["y"]).codes.astype(float),
        rounds=2,
    )
    with pytest.raises(ModelFormatError, match=r"vector-leaf trees.*one_output_per_tree"):
        import_xgboost(bytes(booster.save_raw("json")))


# ---------------------------------------------------------------- LightGBM


def _lgb(params, X, y, rounds=10, **dataset):
    lgb = pytest.importorskip("lightgbm")
    data = lgb.Dataset(X, label=y, **dataset)
    base = {"verbose": -1, "num_leaves": 8, "seed": 0, "num_threads": 1, "min_data_in_leaf": 5}
    return lgb.train({**base, **params}, data, rounds)


@pytest.mark.parametrize(
    ("objective", "extra"),
    [("regression", {}), ("binary", {}), ("multiclass", {"num_class": 3})],
)
def test_import_lightgbm_equals_library_with_missing_values(penguins, objective, extra):
    X = penguins["numeric"].to_numpy()  # NaN in training: missing type NaN
    y = {
        "regression": np.nan_to_num(X[:, 3]),
        "binary": penguins["binary"].astype(float),
        "multiclass": pd.Categorical(penguins["y"]).codes,
    }[objective]
    if objective == "regression":
        X = X[:, [0, 1, 2, 4]]
    booster = _lgb({"objective": objective, **extra}, X, y)
    model = import_lightgbm(booster.model_to_string())
    assert any(t.missing_slot.max() >= 0 for t in model.trees_)
    np.testing.assert_allclose(model.predict(X), booster.predict(X), rtol=1e-12, atol=1e-12)
    raw = booster.predict(X, raw_score=True)
    np.testing.assert_allclose(model.decision_function(X), raw, rtol=1e-12, atol=1e-12)
    leaves = booster.predict(X, pred_leaf=True)
    assert leaves.shape == model.apply(X).shape


def test_import_lightgbm_missing_type_none_and_zero():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(400, 3))
    X[rng.random(X.shape) < 0.3] = 0.0
    y = X[:, 0] - 2 * X[:, 1] + (X[:, 2] == 0) + rng.normal(scale=0.1, size=400)
    probe = X.copy()
    probe[rng.random(X.shape) < 0.2] = np.nan  # NaN at predict only: treated as 0
    probe[:5, 0] = [1e-36, -1e-36, 2e-35, -2e-35, 0.0]  # inside and outside the zero band
    z = float(np.float32(1e-35))  # LightGBM's kZeroThreshold; IsZero is |x| <= z (closed)
    probe[5:11, 0] = [z, -z, np.nextafter(z, 1), np.nextafter(-z, -1), np.nextafter(z, 0), -0.0]
    for zero_as_missing in (False, True):
        booster = _lgb({"objective": "regression", "zero_as_missing": zero_as_missing}, X, y)
        text = booster.model_to_string()
        model = import_lightgbm(text)
        assert model.zero_as_missing_.any() == zero_as_missing
        np.testing.assert_allclose(model.predict(probe), booster.predict(probe), rtol=1e-12)


def test_import_lightgbm_zero_band_is_closed():
    """LightGBM's IsZero (since 3.0) is -z <= x <= z, z = float32(1e-35): -z is missing too."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(400, 1))
    X[rng.random(400) < 0.3] = 0.0
    y = np.where(X[:, 0] == 0, 5.0, np.where(X[:, 0] < 0, 0.0, 1.0))  # zeros unlike negatives
    booster = _lgb({"objective": "regression", "zero_as_missing": True, "num_leaves": 4}, X, y, 3)
    z = float(np.float32(1e-35))
    probe = np.array([z, -z, np.nextafter(-z, -1), np.nextafter(z, 1), 0.0, -0.0, np.nan])[:, None]
    expected = booster.predict(probe)
    assert expected[1] == expected[0] != expected[2]  # -z is in the band, the double below is not
    imported = import_lightgbm(booster.model_to_string())
    np.testing.assert_array_equal(imported.predict(probe), expected)


def test_import_lightgbm_categorical_bitsets(penguins):
    X = penguins["X"].copy()
    for column in ("island", "sex"):
        codes = X[column].cat.codes
        X[column] = codes.astype(float).where(codes >= 0)
    y = pd.Categorical(penguins["y"]).codes
    booster = _lgb(
        {"objective": "multiclass", "num_class": 3, "min_data_per_group": 5, "cat_smooth": 1},
        X,
        y,
        categorical_feature=["island", "sex"],
    )
    text = booster.model_to_string()
    assert any(line.startswith("num_cat=") and line != "num_cat=0" for line in text.splitlines())
    model = import_lightgbm(text)
    assert model.categorical_[[0, 5]].all()
    values = X.to_numpy()
    np.testing.assert_allclose(model.predict(values), booster.predict(values), rtol=1e-12)
    # Unseen, negative, fractional and missing categories go where LightGBM sends them.
    probe = np.tile(values[:10], (2, 1))
    probe[:10, 0] = [-1, -0.5, 0.7, 2.9, 3, 7, 1e6, np.nan, 1, 2]
    probe[10:, 5] = [-3, 0.5, 1.5, 2, 40, np.nan, 0, 1, -0.2, 5]
    np.testing.assert_allclose(model.predict(probe), booster.predict(probe), rtol=1e-12)


def test_import_lightgbm_real_data(penguins):
    X, y = load_heart_disease(return_X_y=True)
    X = X.apply(
        lambda c: c.cat.codes.astype(float).where(c.cat.codes >= 0) if hasattr(c, "cat") else c
    )
    target = pd.Categorical(y).codes
    booster = _lgb({"objective": "binary"}, X.to_numpy(dtype=float), (target > 0).astype(float))
    model = import_lightgbm(booster.model_to_string())
    np.testing.assert_allclose(
        model.predict(X.to_numpy(dtype=float)), booster.predict(X.to_numpy(dtype=float)), rtol=1e-12
    )


def test_imported_model_round_trips_through_the_format(penguins):
    X = penguins["numeric"].to_numpy()
    booster = _lgb({"objective": "binary"}, X, penguins["binary"].astype(float))
    model = import_lightgbm(booster.model_to_string())
    back = from_json(to_json(model))
    assert np.array_equal(back.predict(X), model.predict(X))


def test_import_lightgbm_rejects_broken_files(penguins):
    X = penguins["numeric"].to_numpy()
    booster = _lgb({"objective": "binary"}, X, penguins["binary"].astype(float), rounds=2)
    text = booster.model_to_string()
    broken = text.replace("left_child=", "left_child=5 ", 1)
    with pytest.raises(ModelFormatError):
        import_lightgbm(broken)
    cyclic = text.replace("left_child=1", "left_child=0", 1)
    if cyclic != text:
        with pytest.raises(ModelFormatError):
            import_lightgbm(cyclic)


def test_loading_imports_no_module_named_in_the_file(small_tree):
    import sys

    document = _document(small_tree)
    document["model"]["fitted"]["tree_"]["object"] = "antigravity"
    sys.modules.pop("antigravity", None)
    with pytest.raises(ModelFormatError):
        from_json(json.dumps(document))
    assert "antigravity" not in sys.modules


def test_parameters_are_checked_as_fit_checks_them(small_tree):
    document = _document(small_tree)
    document["model"]["params"]["ccp_alpha"] = -1.0
    with pytest.raises(ModelFormatError, match="ccp_alpha"):
        from_json(json.dumps(document))
    document = _document(small_tree)
    del document["model"]["params"]["ccp_alpha"]  # a parameter newer than the file
    assert from_json(json.dumps(document)).ccp_alpha == 0.0


def test_fitted_classifier_needs_classes(small_tree):
    document = _document(small_tree)
    del document["model"]["fitted"]["classes_"]
    with pytest.raises(ModelFormatError, match="classes_"):
        from_json(json.dumps(document))


def test_tree_estimator_of_an_imported_tree(penguins):
    X = penguins["numeric"].to_numpy()
    booster = _lgb({"objective": "binary"}, X, penguins["binary"].astype(float), rounds=3)
    model = import_lightgbm(booster.model_to_string())
    leaves = booster.predict(X, pred_leaf=True)
    for k, tree in enumerate(model.trees_):
        member = model.tree_estimator(k)
        text = booster.model_to_string().split("\nTree=")[k + 1]
        leaf_value = np.array(
            [float(v) for v in text.split("\nleaf_value=")[1].split("\n")[0].split()]
        )
        frame = pd.DataFrame(X, columns=model.feature_names_in_)  # LightGBM's Column_j
        np.testing.assert_array_equal(member.predict(frame), leaf_value[leaves[:, k]])
        assert mltrees.export_text(member).count("value:") == tree.n_leaves


def test_a_registered_name_cannot_be_taken_by_another_class():
    from mltrees.io import register_object

    to_json(mltrees.CARTClassifier())  # the default registry is in place

    class Tree:  # same name as mltrees' Tree
        pass

    with pytest.raises(ValueError, match="already names"):
        register_object(Tree)
