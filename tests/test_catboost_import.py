"""CatBoost JSON models read into mltrees trees (chapter 18, issue 33).

The differential test (tests/differential/test_catboost_import.py) draws
tables and parameters; these tests fix the cases the chapter names and the
refusals the docs promise.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

import mltrees
from mltrees.datasets import load_penguins
from mltrees.io import ModelFormatError, catboost_threshold, import_catboost

catboost = pytest.importorskip("catboost")

COMMON = {"verbose": 0, "allow_writing_files": False, "thread_count": 1, "random_seed": 0}


@pytest.fixture(scope="module")
def penguins():
    X, y = load_penguins(return_X_y=True)
    numeric = X.select_dtypes("number")
    mass = numeric["body_mass_g"].to_numpy()
    known = ~np.isnan(mass)
    return {
        "X": numeric.drop(columns="body_mass_g").to_numpy(),  # with missing values
        "frame": numeric.drop(columns="body_mass_g"),
        "mass": mass,
        "known": known,
        "codes": np.asarray(y.cat.codes),
        "categorical": X,
    }


def _json(model, tmp_path) -> str:
    path = tmp_path / "model.json"
    model.save_model(str(path), format="json")
    return str(path)


CASES = {
    "regression, depth 6": (catboost.CatBoostRegressor, {"depth": 6}, "mass"),
    "regression, depth 1": (catboost.CatBoostRegressor, {"depth": 1}, "mass"),
    "regression, nan_mode Max": (
        catboost.CatBoostRegressor,
        {"depth": 3, "nan_mode": "Max"},
        "mass",
    ),
    "regression, Lossguide": (
        catboost.CatBoostRegressor,
        {"grow_policy": "Lossguide", "max_leaves": 12},
        "mass",
    ),
    "Poisson": (catboost.CatBoostRegressor, {"depth": 3, "loss_function": "Poisson"}, "mass_k"),
    "binary Logloss": (catboost.CatBoostClassifier, {"depth": 4}, "adelie"),
    "binary CrossEntropy": (
        catboost.CatBoostClassifier,
        {"depth": 4, "loss_function": "CrossEntropy"},
        "adelie",
    ),
    "multiclass": (
        catboost.CatBoostClassifier,
        {"depth": 5, "loss_function": "MultiClass"},
        "codes",
    ),
    "multiclass, Depthwise": (
        catboost.CatBoostClassifier,
        {"depth": 4, "grow_policy": "Depthwise", "loss_function": "MultiClass"},
        "codes",
    ),
}


@pytest.mark.parametrize("name", list(CASES))
def test_import_catboost_equals_library(penguins, tmp_path, name):
    cls, params, target = CASES[name]
    X, known = penguins["X"], penguins["known"]
    y = {
        "mass": penguins["mass"],
        "mass_k": penguins["mass"] / 1000,
        "adelie": (penguins["codes"] == 0).astype(int),
        "codes": penguins["codes"],
    }[target]
    model = cls(iterations=25, **params, **COMMON).fit(X[known], y[known])
    imported = import_catboost(_json(model, tmp_path))
    # Raw scores: the same float64 sums (X has missing values).
    raw = model.predict(X, prediction_type="RawFormulaVal")
    np.testing.assert_array_equal(imported.decision_function(X), raw)
    # predict: the library's probabilities (class 1 for Logloss) or predictions.
    if cls is catboost.CatBoostClassifier:
        expected = model.predict_proba(X)
        expected = expected[:, 1] if expected.shape[1] == 2 else expected
    else:
        expected = model.predict(X)
    np.testing.assert_allclose(imported.predict(X), expected, rtol=1e-12, atol=1e-15)


def test_import_catboost_reads_text_bytes_dict_and_names(penguins, tmp_path):
    model = catboost.CatBoostRegressor(iterations=5, depth=3, **COMMON)
    frame, known = penguins["frame"], penguins["known"]
    model.fit(frame[known], penguins["mass"][known])
    path = _json(model, tmp_path)
    with open(path, encoding="utf-8") as handle:
        text = handle.read()
    raw = model.predict(frame, prediction_type="RawFormulaVal")
    for source in (path, text, text.encode("utf-8"), json.loads(text)):
        imported = import_catboost(source)
        np.testing.assert_array_equal(imported.decision_function(frame.to_numpy()), raw)
    assert list(imported.feature_names_in_) == list(frame.columns)
    assert imported.source_ == "catboost"
    assert imported.objective_ == "RMSE"
    # The imported model is an mltrees model: it saves, explains and draws.
    back = mltrees.from_json(mltrees.to_json(imported))
    np.testing.assert_array_equal(back.decision_function(frame.to_numpy()), raw)
    assert "value:" in mltrees.export_text(imported.tree_estimator(0))


def test_catboost_threshold_is_float32_greater_than():
    """x <= s  <=>  float32(x) <= b: on the doubles around every rounding boundary."""
    rng = np.random.default_rng(0)
    largest = np.finfo(np.float32).max
    b = np.concatenate(
        [
            (rng.normal(size=3000) * 10.0 ** rng.integers(-35, 35, size=3000)).astype(np.float32),
            np.array([0.0, -0.0, 1e-45, -1e-45, 1.0, 0.1, largest, -largest], dtype=np.float32),
        ]
    )
    s = catboost_threshold(b)
    with np.errstate(over="ignore"):
        up = np.nextafter(b, np.float32(np.inf)).astype(np.float64)
    up = np.where(np.isinf(up), 2.0**128, up)
    middle = (b.astype(np.float64) + up) / 2
    for x in (
        middle,
        np.nextafter(middle, -np.inf),
        np.nextafter(middle, np.inf),
        b.astype(np.float64),
        np.nextafter(b.astype(np.float64), np.inf),
        np.full(b.size, 1e308),
    ):
        with np.errstate(over="ignore"):
            expected = x.astype(np.float32) <= b
        np.testing.assert_array_equal(x <= s, expected)


def test_values_on_the_borders_go_where_catboost_sends_them(tmp_path):
    rng = np.random.default_rng(1)
    X = rng.normal(size=(400, 3))
    y = X[:, 0] - X[:, 1] ** 2 + rng.normal(scale=0.1, size=400)
    model = catboost.CatBoostRegressor(iterations=20, depth=4, **COMMON).fit(X, y)
    path = _json(model, tmp_path)
    with open(path, encoding="utf-8") as handle:
        document = json.load(handle)
    rows = []
    for feature in document["features_info"]["float_features"]:
        borders = np.asarray(feature["borders"], dtype=np.float32).astype(np.float64)
        up = np.nextafter(borders.astype(np.float32), np.float32(np.inf)).astype(np.float64)
        middle = (borders + up) / 2  # double x with float32(x) on either side
        for values in (
            borders,
            middle,
            np.nextafter(middle, -np.inf),
            np.nextafter(middle, np.inf),
        ):
            block = np.tile(X[:1], (values.size, 1))
            block[:, feature["flat_feature_index"]] = values
            rows.append(block)
    rows = np.vstack(rows)
    rows[::4, 2] = np.nan
    imported = import_catboost(path)
    np.testing.assert_array_equal(
        imported.decision_function(rows), model.predict(rows, prediction_type="RawFormulaVal")
    )


def test_categorical_features_are_refused_clearly(penguins, tmp_path):
    """The docs promise: categorical features (hashing, CTR tables) are refused, not guessed."""
    X = penguins["categorical"].copy()
    for column in ("island", "sex"):
        X[column] = X[column].astype(object).where(X[column].notna(), "unknown").astype(str)
    known = penguins["known"]
    for one_hot in (255, 1):  # one-hot splits, then CTR statistics
        model = catboost.CatBoostRegressor(
            iterations=5, depth=3, one_hot_max_size=one_hot, **COMMON
        ).fit(X[known], penguins["mass"][known], cat_features=["island", "sex"])
        with pytest.raises(ModelFormatError, match="categorical"):
            import_catboost(_json(model, tmp_path))


@pytest.mark.parametrize(
    ("loss", "match"),
    [("MultiClassOneVsAll", "MultiClassOneVsAll"), ("MultiRMSE", "MultiRMSE")],
)
def test_unsupported_losses_are_refused(tmp_path, loss, match):
    rng = np.random.default_rng(2)
    X = rng.normal(size=(200, 3))
    if loss == "MultiRMSE":
        model = catboost.CatBoostRegressor(iterations=3, loss_function=loss, **COMMON)
        model.fit(X, np.column_stack([X[:, 0], X[:, 1]]))
    else:
        model = catboost.CatBoostClassifier(iterations=3, loss_function=loss, **COMMON)
        model.fit(X, (X[:, 0] > 0).astype(int) + (X[:, 1] > 0))
    with pytest.raises(ModelFormatError, match=match):
        import_catboost(_json(model, tmp_path))


def test_broken_catboost_files_raise_format_errors(penguins, tmp_path):
    X, known = penguins["X"], penguins["known"]
    model = catboost.CatBoostRegressor(iterations=3, depth=3, **COMMON)
    model.fit(X[known], penguins["mass"][known])
    with open(_json(model, tmp_path), encoding="utf-8") as handle:
        good = json.load(handle)

    def broken(edit):
        document = json.loads(json.dumps(good))
        edit(document)
        return document

    cases = [
        broken(lambda d: d["oblivious_trees"][0]["leaf_values"].pop()),
        broken(lambda d: d["oblivious_trees"][0]["splits"][0].update(float_feature_index=99)),
        broken(lambda d: d["oblivious_trees"][0]["splits"][0].update(border=1e300)),
        broken(lambda d: d["oblivious_trees"][0]["splits"][0].update(split_type="OnlineCtr")),
        broken(
            lambda d: d["oblivious_trees"][0].update(splits=d["oblivious_trees"][0]["splits"] * 9)
        ),
        broken(lambda d: d["features_info"]["float_features"][0].update(flat_feature_index=2**40)),
        broken(lambda d: d["features_info"]["float_features"][0].update(nan_value_treatment="?")),
        broken(lambda d: d.update(scale_and_bias=[float("inf"), [0.0]])),
        broken(lambda d: d.update(scale_and_bias=[1.0, [0.0] * 100_000])),
        broken(lambda d: d["model_info"]["params"]["loss_function"].update(type="Magic")),
        broken(lambda d: d.pop("features_info")),
    ]
    for document in cases:
        with pytest.raises(ModelFormatError):
            import_catboost(document)
    text = json.dumps(good)
    for damaged in (
        text[: len(text) // 2],
        text.encode("utf-8") + b"\xff",
        '{"a": ' + "[" * 50_000,
    ):
        with pytest.raises(ModelFormatError):
            import_catboost(damaged)


def test_tree_without_a_split_imports(tmp_path):
    """Found by the long differential profile: a whole-NaN column gives a tree of no split.

    CatBoost writes ``"splits": null`` for it; the importer read that as a
    malformed file. The imported model predicts CatBoost's raw scores.
    """
    X = np.full((30, 1), np.nan)
    y = np.r_[np.zeros(15), np.ones(15)]
    model = catboost.CatBoostClassifier(
        iterations=1, depth=1, border_count=2, learning_rate=0.03, nan_mode="Min",
        random_seed=0, thread_count=1, verbose=0, allow_writing_files=False,
    ).fit(X, y)  # fmt: skip
    path = tmp_path / "model.json"
    model.save_model(str(path), format="json")
    assert json.loads(path.read_text())["oblivious_trees"][0]["splits"] is None
    imported = import_catboost(path)
    np.testing.assert_allclose(
        imported.decision_function(X), model.predict(X, prediction_type="RawFormulaVal"), rtol=1e-12
    )
