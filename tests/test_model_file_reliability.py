"""Model files and importers under attack: the reproducers of the reliability review (issue 31).

Each test is one finding of the review, named after it: small files that asked
for gigabytes, corrupted fields that loaded and predicted NaN or crashed,
errors other than ModelFormatError, and the estimators that could not be saved.
"""

from __future__ import annotations

import copy
import json
import time
import tracemalloc

import numpy as np
import pytest

import mltrees
from mltrees.datasets import load_penguins
from mltrees.incremental import ID4Classifier
from mltrees.io import (
    ModelFormatError,
    from_json,
    import_lightgbm,
    import_xgboost,
    to_json,
)
from mltrees.io.format import CELLS_PER_BYTE, MIN_CELLS, Budget


@pytest.fixture(scope="module")
def penguins():
    X, y = load_penguins(return_X_y=True)
    order = np.random.default_rng(0).permutation(len(y))
    X, y = X.iloc[order].reset_index(drop=True), y.iloc[order].reset_index(drop=True)
    numeric = X.select_dtypes("number")
    return {
        "X": X,
        "y": y,
        "numeric": numeric,
        "filled": numeric.fillna(numeric.median()),
        "binary": (y == "Adelie").to_numpy(),
    }


def _document(model) -> dict:
    return json.loads(to_json(model))


def _refused(document, match=None):
    text = document if isinstance(document, str) else json.dumps(document)
    with pytest.raises(ModelFormatError, match=match):
        from_json(text)


def _peak(call):
    """Peak traced memory (bytes) and seconds of ``call()``, and its outcome."""
    tracemalloc.start()
    start = time.perf_counter()
    try:
        outcome = call()
    except ModelFormatError as error:
        outcome = error
    seconds = time.perf_counter() - start
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return outcome, peak, seconds


# ---------------------------------------------------------------- the budget


def test_budget_is_proportional_to_the_file_with_a_floor():
    assert Budget(10).limit == MIN_CELLS
    assert Budget(10**8).limit == CELLS_PER_BYTE * 10**8
    assert Budget(10, max_cells=5).limit == 5
    budget = Budget(1000)
    budget.spend(MIN_CELLS, "x")
    with pytest.raises(ModelFormatError, match="cells"):
        budget.spend(1, "here")
    with pytest.raises(ValueError, match="max_cells"):
        Budget(10, max_cells=0)


def test_a_tree_referenced_100000_times_is_refused_before_memory(penguins):
    """Review: a 1.57 MB file referencing one tree 100,000 times took 3.6 GB and 15 s."""
    model = mltrees.XGBoostRegressor(n_estimators=1, max_depth=8).fit(
        penguins["filled"].iloc[:, 1:], penguins["filled"].iloc[:, 0]
    )
    document = _document(model)
    trees = document["model"]["fitted"]["_trees"]
    table = _reference_number(document, trees[0][0])
    trees.extend([[{"ref": table}]] * 100_000)
    text = json.dumps(document)
    assert len(text) > 1_000_000
    outcome, peak, seconds = _peak(lambda: from_json(text))
    assert isinstance(outcome, ModelFormatError)
    assert "cells" in str(outcome)
    assert peak < 50 * len(text)  # the parsed JSON itself, nothing more
    assert seconds < 10


def _reference_number(document, target) -> int:
    """The {"ref": n} number the decoder gives the JSON object ``target``."""
    counter = 0
    found = None

    def walk(value):
        nonlocal counter, found
        if isinstance(value, list):
            for item in value:
                walk(item)
        elif isinstance(value, dict) and set(value) != {"ref"}:
            if "ndarray" in value:
                items = value["data"]
            elif "object" in value:
                items = value["state"].values()
            elif "estimator" in value:
                items = [*value["params"].values(), *value.get("fitted", {}).values()]
            else:
                for item in value.values():
                    walk(item)
                return
            for item in items:
                walk(item)
            if value is target:
                found = counter
            counter += 1

    walk(document["model"])
    return found


def test_honest_references_stay_within_the_budget(penguins):
    """Gradient boosting keeps every tree twice, a forest shares one binning: both load."""
    for model in (
        mltrees.GradientBoostingClassifier(n_estimators=30, max_depth=3),
        mltrees.RandomForestClassifier(n_estimators=30, random_state=0),
    ):
        model.fit(penguins["filled"], penguins["y"])
        text = to_json(model)
        # A budget of the honest file's own size suffices (no floor).
        back = from_json(text, max_cells=CELLS_PER_BYTE * len(text))
        np.testing.assert_array_equal(
            back.predict(penguins["filled"]), model.predict(penguins["filled"])
        )


def test_max_cells_refuses_or_allows(penguins):
    model = mltrees.CARTClassifier(max_depth=3).fit(penguins["filled"], penguins["y"])
    text = to_json(model)
    with pytest.raises(ModelFormatError, match="max_cells"):
        from_json(text, max_cells=10)
    from_json(text, max_cells=10**9)


def test_declared_number_of_classes_must_be_the_stored_classes(penguins):
    """Review: n_classes_ = 10**6 in an AdaBoost file took 1.37 GB at predict on 150 rows."""
    model = mltrees.AdaBoostClassifier(n_estimators=3, random_state=0).fit(
        penguins["filled"], penguins["y"]
    )
    for value in (10**6, 10**7, 2**62, 2):
        document = _document(model)
        document["model"]["fitted"]["n_classes_"] = value
        _refused(document, "n_classes_")


def test_declared_features_must_agree_with_the_binning(penguins):
    model = mltrees.LightGBMRegressor(n_estimators=3).fit(
        penguins["numeric"].iloc[:, 1:], penguins["filled"].iloc[:, 0]
    )
    document = _document(model)
    document["model"]["fitted"]["n_features_in_"] = 10**6
    _refused(document)


# ---------------------------------------------------------------- numbers on load


@pytest.mark.parametrize(
    ("make", "data", "field"),
    [
        (lambda: mltrees.XGBoostClassifier(n_estimators=2), "numeric", "base_margin_"),
        (lambda: mltrees.AdaBoostClassifier(n_estimators=3), "filled", "estimator_weights_"),
        (lambda: mltrees.GradientBoostingClassifier(n_estimators=2), "filled", "init_"),
        (lambda: mltrees.LightGBMClassifier(n_estimators=2), "numeric", "init_score_"),
        (lambda: mltrees.ObliviousBoostingClassifier(n_estimators=2), "filled", "init_score_"),
        (lambda: mltrees.RuleSetClassifier(), "filled", "class_distributions_"),
    ],
)
@pytest.mark.parametrize("bad", ["NaN", "Infinity", 1e308])
def test_non_finite_and_overflowing_fields_are_refused(penguins, make, data, field, bad):
    """Review: these fields loaded as NaN and the models predicted NaN (or class 0)."""
    model = make().fit(penguins[data], penguins["y"])
    document = _document(model)
    value = document["model"]["fitted"][field]
    if isinstance(value, dict):
        value["data"][0] = bad
    else:
        document["model"]["fitted"][field] = {"float": bad} if isinstance(bad, str) else bad
    _refused(document)


def test_c45_node_weights_must_be_finite_and_add_up(penguins):
    model = mltrees.C45Classifier().fit(penguins["X"], penguins["y"])
    for bad in ("Infinity", 1e308, 0.0):
        document = _document(model)
        document["model"]["fitted"]["tree_"]["state"]["weighted_n_node_samples"]["data"][0] = bad
        _refused(document)


def test_gradient_boosting_init_must_be_a_number(penguins):
    """Review: init_ = "NaN" as a plain string loaded, then UFuncTypeError at predict."""
    model = mltrees.GradientBoostingRegressor(n_estimators=2).fit(
        penguins["filled"].iloc[:, 1:], penguins["filled"].iloc[:, 0]
    )
    document = _document(model)
    document["model"]["fitted"]["init_"] = "NaN"
    _refused(document, "init_")


def test_learning_rate_that_overflows_the_raw_score_is_refused(penguins):
    model = mltrees.GradientBoostingRegressor(n_estimators=3).fit(
        penguins["filled"].iloc[:, 1:], penguins["filled"].iloc[:, 0]
    )
    document = _document(model)
    document["model"]["params"]["learning_rate"] = 1e308
    _refused(document, "raw score")


# ---------------------------------------------------------------- a file that loads predicts


def test_rule_condition_feature_out_of_range_is_refused(penguins):
    model = mltrees.RuleSetClassifier().fit(penguins["X"], penguins["y"])
    document = _document(model)
    condition = document["model"]["fitted"]["rules_"][0]["state"]["conditions"][0]["state"]
    condition["feature"] = 7
    _refused(document, "features")


def test_surrogate_feature_out_of_range_is_refused(penguins):
    model = mltrees.CARTClassifier(missing="surrogate", max_depth=3).fit(
        penguins["numeric"], penguins["y"]
    )
    document = _document(model)
    state = document["model"]["fitted"]["tree_"]["state"]
    data = state["surrogate_feature"]["data"]
    data[data.index(max(data))] = 2**62
    _refused(document, "surrogate")


def test_imported_model_fields_are_checked_on_load(penguins):
    """Review: ImportedTreeModel's _check never ran on load (features, outputs, sigmoid)."""
    lgb = pytest.importorskip("lightgbm")
    X = penguins["numeric"].to_numpy()
    booster = lgb.train(
        {"objective": "binary", "verbose": -1, "num_leaves": 6},
        lgb.Dataset(X, label=penguins["binary"]),
        3,
    )
    document = _document(import_lightgbm(booster.model_to_string()))
    edits = [
        ("tree_output_", lambda f: f["tree_output_"]["data"].__setitem__(0, -1)),
        ("tree_output_", lambda f: f["tree_output_"]["data"].__setitem__(0, 10**6)),
        ("sigmoid_", lambda f: f.__setitem__("sigmoid_", "1.0")),
        ("n_codes_", lambda f: f["n_codes_"]["data"].__setitem__(0, 2**40)),
        (
            "feature",
            lambda f: _first_tree(f)["feature"]["data"].__setitem__(0, f["n_features_in_"]),
        ),
        ("n_features_in_", lambda f: f.__setitem__("n_features_in_", 10**6)),
        ("base_margin_", lambda f: f["base_margin_"]["data"].__setitem__(0, "NaN")),
    ]
    for name, edit in edits:
        damaged = copy.deepcopy(document)
        edit(damaged["model"]["fitted"])
        with pytest.raises(ModelFormatError, match=name):
            from_json(json.dumps(damaged))


def _first_tree(fitted):
    return fitted["trees_"][0]["state"]


def test_oblivious_categorical_index_is_checked(penguins):
    X = penguins["X"].assign(sex=penguins["X"]["sex"].astype(object).fillna("unknown"))
    model = mltrees.ObliviousBoostingClassifier(n_estimators=2, depth=2).fit(X, penguins["y"])
    document = _document(model)
    document["model"]["fitted"]["_cat"][0] = "island"
    _refused(document, "_cat")
    document = _document(model)
    document["model"]["fitted"]["_cat"][0] = 99
    _refused(document, "_cat")


def test_top_level_must_be_a_model():
    for value in (3, "x", [1, 2], None):
        _refused({"format": "mltrees-model", "format_version": 1, "model": value})


# ---------------------------------------------------------------- only ModelFormatError


def test_oversized_seed_is_a_format_error(penguins):
    """Review: a SeedSequence n_children_spawned >= 2**32 raised OverflowError."""
    model = mltrees.RandomForestClassifier(n_estimators=2, random_state=0).fit(
        penguins["filled"], penguins["y"]
    )
    document = _document(model)
    seed = document["model"]["fitted"]["_sampling"]["tuple"][0][0]["state"]
    seed["n_children_spawned"] = 2**62
    _refused(document, "SeedSequence")


@pytest.fixture(scope="module")
def xgboost_file(penguins):
    xgb = pytest.importorskip("xgboost")
    booster = xgb.train(
        {"objective": "binary:logistic", "max_depth": 3, "nthread": 1},
        xgb.DMatrix(penguins["numeric"].to_numpy(), label=penguins["binary"]),
        3,
    )
    return bytes(booster.save_raw("json"))


def test_xgboost_importer_raises_only_format_errors(xgboost_file):
    """Review: RecursionError, UnicodeDecodeError, MemoryError escaped import_xgboost."""
    text = xgboost_file.decode("utf-8")
    damaged = [
        b"\xff\xfe" + xgboost_file,  # invalid UTF-8
        text.replace('"learner"', '"learner": ' + "[" * 100_000 + "]" * 100_000 + ', "x"', 1),
        text.replace('"num_feature":"5"', '"num_feature":"1000000000"'),
        text.replace('"num_feature":"5"', '"num_feature":"1e12"'),
        text.replace('"num_class":"0"', '"num_class":"10000000000"'),
        text[: len(text) // 2],
        text.replace('"base_score":"', '"base_score":"1E400').replace("1E4005", "1E400"),
    ]
    for payload in damaged:
        with pytest.raises(ModelFormatError):
            import_xgboost(payload)


@pytest.mark.parametrize("value", ["inf", "-inf", "nan", "NaN", "1e999", "-0.5", "1.5"])
def test_xgboost_base_score_must_give_a_finite_margin(xgboost_file, value):
    """Review: base_score inf/nan imported and predicted inf/NaN; not a probability: refused."""
    document = json.loads(xgboost_file)
    document["learner"]["learner_model_param"]["base_score"] = value
    with pytest.raises(ModelFormatError, match="base_score"):
        import_xgboost(document)


@pytest.mark.parametrize("value", ["0", "1"])
def test_xgboost_base_score_0_or_1_is_clamped_as_xgboost_does(xgboost_file, value):
    """A probability of 0 or 1 (all-zero or all-one labels) is clamped to [1e-6, 1 - 1e-6].

    XGBoost's ProbToMargin clamps it (kRtEps) and predicts finite values; so does the
    import (it once predicted inf/NaN, then refused the file).
    """
    document = json.loads(xgboost_file)
    document["learner"]["learner_model_param"]["base_score"] = value
    model = import_xgboost(document)
    margin = np.ravel(model.base_margin_)
    assert np.all(np.isfinite(margin))
    assert np.all(np.abs(margin) < 14)
    assert np.all(np.sign(margin) == (1 if value == "1" else -1))


def test_xgboost_categorical_code_near_2_24_is_paid_before_allocation(penguins):
    """Review: a 41 KB file used 544 MB per categorical node (a table of 2**24 codes)."""
    xgb = pytest.importorskip("xgboost")
    booster = xgb.train(
        {"objective": "binary:logistic", "max_depth": 4, "nthread": 1},
        xgb.DMatrix(penguins["numeric"].to_numpy(), label=penguins["binary"]),
        20,
    )
    document = json.loads(bytes(booster.save_raw("json")))
    for tree in document["learner"]["gradient_booster"]["model"]["trees"][:8]:
        internal = [i for i, c in enumerate(tree["left_children"]) if c >= 0][:1]
        tree["split_type"] = [int(i in internal) for i in range(len(tree["left_children"]))]
        tree["categories_nodes"] = internal
        tree["categories_segments"] = [0]
        tree["categories_sizes"] = [1]
        tree["categories"] = [2**24 - 1]
    text = json.dumps(document)
    outcome, peak, seconds = _peak(lambda: import_xgboost(text))
    assert isinstance(outcome, ModelFormatError)
    assert "routing-table" in str(outcome)
    assert peak < 20 * 2**20 + 50 * len(text)
    assert seconds < 10


def test_lightgbm_extra_bitset_words_are_paid_before_allocation():
    """Review: 1,000,000 extra cat_threshold words (2 MB) hit MemoryError at 7.2 GB."""
    lgb = pytest.importorskip("lightgbm")
    rng = np.random.default_rng(0)
    X = np.column_stack([rng.integers(0, 20, 2000), rng.normal(size=2000)]).astype(float)
    y = (X[:, 0] % 3 == 0) + X[:, 1]
    booster = lgb.train(
        {"objective": "regression", "verbose": -1, "num_leaves": 8, "min_data_per_group": 5},
        lgb.Dataset(X, label=y, categorical_feature=[0]),
        25,
    )
    text = booster.model_to_string()
    extra = " " + " ".join(["4294967295"] * 1_000_000)
    lines = text.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("cat_threshold="))
    lines[at] += extra
    bounds = next(i for i in range(at, 0, -1) if lines[i].startswith("cat_boundaries="))
    values = lines[bounds].split("=")[1].split()
    values[-1] = str(int(values[-1]) + 1_000_000)
    lines[bounds] = "cat_boundaries=" + " ".join(values)
    damaged = "\n".join(lines) + "\n"
    outcome, peak, seconds = _peak(lambda: import_lightgbm(damaged))
    assert isinstance(outcome, ModelFormatError)
    assert peak < 50 * len(damaged)
    assert seconds < 20
    for key, value in (("max_feature_idx", "10000000000"), ("max_feature_idx", "1e12")):
        with pytest.raises(ModelFormatError):
            import_lightgbm(text.replace(f"\n{key}=", f"\n{key}={value}\n#", 1))


def test_lightgbm_importer_raises_only_format_errors():
    lgb = pytest.importorskip("lightgbm")
    rng = np.random.default_rng(1)
    X = rng.normal(size=(300, 3))
    text = lgb.train(
        {"objective": "binary", "verbose": -1, "num_leaves": 4},
        lgb.Dataset(X, label=X[:, 0] > 0),
        3,
    ).model_to_string()
    for payload in (
        text.encode("utf-8")[:100] + b"\xff" + text.encode("utf-8")[100:],
        text.replace("objective=binary sigmoid:1", "objective=binary sigmoid:abc"),
        text.replace("objective=binary sigmoid:1", "objective=binary sigmoid:inf"),
        text.replace("objective=binary", "objective=who_knows"),
        text.replace("leaf_value=", "leaf_value=nan ", 1),
        text.replace("num_leaves=", "num_leaves=x", 1),
    ):
        with pytest.raises(ModelFormatError):
            import_lightgbm(payload)


# ---------------------------------------------------------------- every estimator saves


def _same_outputs(model, back, X):
    np.testing.assert_array_equal(back.predict(X), model.predict(X))
    if hasattr(model, "predict_proba"):
        a, b = model.predict_proba(X), back.predict_proba(X)
        np.testing.assert_array_equal(a.view(np.uint64), b.view(np.uint64))


def test_lightgbm_on_pandas_categories_saves(penguins):
    """Review: LightGBM fitted on category columns could not be saved (CategoricalDtype)."""
    model = mltrees.LightGBMClassifier(n_estimators=5).fit(penguins["X"], penguins["y"])
    text = to_json(model)
    back = from_json(text)
    _same_outputs(model, back, penguins["X"])
    assert to_json(back) == text
    assert back._pandas_categories["island"] == model._pandas_categories["island"]


def test_imported_model_loaded_from_a_file_saves_again(penguins):
    """Review: an ImportedTreeModel loaded from a file could not be saved (args/kwargs)."""
    lgb = pytest.importorskip("lightgbm")
    X = penguins["numeric"].to_numpy()
    booster = lgb.train(
        {"objective": "binary", "verbose": -1}, lgb.Dataset(X, label=penguins["binary"]), 3
    )
    text = to_json(import_lightgbm(booster.model_to_string()))
    back = from_json(text)
    assert to_json(back) == text
    np.testing.assert_array_equal(back.predict(X), booster.predict(X))


@pytest.mark.parametrize(
    "make",
    [
        lambda: mltrees.HoeffdingTreeClassifier(grace_period=30),
        lambda: mltrees.HoeffdingTreeClassifier(grace_period=20, leaf_prediction="mc"),
        lambda: mltrees.ID5RClassifier(),
        lambda: ID4Classifier(),
    ],
)
def test_incremental_trees_save_and_continue_identically(penguins, make):
    """A saved incremental tree learns the rest of the stream as the original does."""
    if "Hoeffding" in repr(make()):
        X, y = penguins["filled"], penguins["y"]
    else:
        known = penguins["X"]["sex"].notna().to_numpy()
        X = penguins["X"][["island", "sex"]][known].reset_index(drop=True)
        y = penguins["y"][known].reset_index(drop=True)
    half = len(y) // 2
    model = make().partial_fit(X[:half], y[:half], classes=np.unique(y))
    back = from_json(to_json(model))
    _same_outputs(model, back, X)
    assert to_json(back) == to_json(model)
    for part in (slice(half, half + 40), slice(half + 40, None)):
        model.partial_fit(X[part], y[part])
        back.partial_fit(X[part], y[part])
    _same_outputs(model, back, X)
    assert to_json(back) == to_json(model)


def test_incremental_tree_with_a_cycle_is_refused(penguins):
    model = mltrees.HoeffdingTreeClassifier(grace_period=10, delta=0.01)
    model.fit(penguins["filled"], penguins["y"])
    document = _document(model)
    fitted = document["model"]["fitted"]
    assert len(fitted["_left"]["data"]) > 1
    fitted["_left"]["data"][0] = 0  # the root as its own child
    _refused(document)


@pytest.mark.parametrize(
    "make",
    [
        lambda: mltrees.StackingClassifier(
            [
                ("tree", mltrees.CARTClassifier(max_depth=3)),
                ("forest", mltrees.RandomForestClassifier(n_estimators=3, random_state=0)),
            ]
        ),
        lambda: mltrees.StackingRegressor(
            [
                ("tree", mltrees.CARTRegressor(max_depth=3)),
                ("boost", mltrees.GradientBoostingRegressor(n_estimators=5)),
            ],
            passthrough=True,
        ),
        lambda: mltrees.BlendingClassifier(
            [
                ("tree", mltrees.CARTClassifier(max_depth=3)),
                ("xgb", mltrees.XGBoostClassifier(n_estimators=3)),
            ],
            random_state=0,
        ),
        lambda: mltrees.BlendingRegressor(
            [("tree", mltrees.CARTRegressor(max_depth=3))], random_state=1
        ),
    ],
)
def test_stacking_and_blending_save(penguins, make):
    model = make()
    if "Regressor" in type(model).__name__:
        X, y = penguins["filled"].iloc[:, 1:], penguins["filled"].iloc[:, 0]
    else:
        X, y = penguins["filled"], penguins["y"]
    model.fit(X, y)
    text = to_json(model)
    back = from_json(text)
    _same_outputs(model, back, X)
    np.testing.assert_array_equal(back.transform(X), model.transform(X))
    assert list(back.named_estimators_) == list(model.named_estimators_)
    assert to_json(back) == text


def test_stacking_with_a_foreign_member_is_refused_clearly(penguins):
    from sklearn.svm import SVC

    model = mltrees.StackingClassifier([("svm", SVC())]).fit(penguins["filled"], penguins["y"])
    with pytest.raises(ModelFormatError, match="SVC"):
        to_json(model)


def test_stacking_level1_width_must_feed_the_final_estimator(penguins):
    model = mltrees.StackingClassifier([("tree", mltrees.CARTClassifier(max_depth=2))]).fit(
        penguins["filled"], penguins["y"]
    )
    document = _document(model)
    document["model"]["fitted"]["_n_feature_outs"] = [5]
    _refused(document)
    document = _document(model)
    coef = document["model"]["fitted"]["final_estimator_"]["fitted"]["coef_"]
    coef["shape"] = [3, 2]
    coef["data"] = coef["data"][:6]
    _refused(document)


def test_every_registered_estimator_is_exported_and_saveable():
    """The docs say every fitted estimator saves: every estimator class of mltrees is registered."""
    from sklearn.base import BaseEstimator

    from mltrees.io.serialize import _ESTIMATORS, _ensure_registry

    _ensure_registry()
    registered = {entry.cls for entry in _ESTIMATORS.values()}
    public = {
        obj
        for name in mltrees.__all__
        if isinstance(obj := getattr(mltrees, name), type) and issubclass(obj, BaseEstimator)
    }
    missing = {cls.__name__ for cls in public - registered}
    assert missing == set(), missing
