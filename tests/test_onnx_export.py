"""ONNX export (mltrees.io.to_onnx) against onnxruntime, for every kind of tree model.

The truth is the model's own output (``predict_proba``, ``decision_function``,
margins: the inspection view's ``output``), never the exporter. Raw scores must
agree to 1e-12 of the sum of the absolute terms (base score and one leaf per
tree) for double graphs, and within the float32 rounding of that sum for float
graphs (XGBoost, oblivious boosting); a single row routed to another leaf
would differ by a whole leaf value. Data: the package's tables with their
missing values and categories, plus unseen, negative, fractional and missing
category codes.
"""

from __future__ import annotations

import json

import numpy as np
import onnx
import onnxruntime as ort
import pandas as pd
import pytest
from sklearn.tree import DecisionTreeClassifier as SkDecisionTree

import mltrees
from mltrees.datasets import load_heart_disease, load_penguins, load_titanic
from mltrees.inspection import view_of
from mltrees.io import OnnxExportError, onnx_input, to_onnx
from mltrees.io import onnx_export as export

EPS32 = 2.0**-24  # float32's unit roundoff


def _session(proto) -> ort.InferenceSession:
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    options.log_severity_level = 3
    return ort.InferenceSession(
        proto.SerializeToString(), options, providers=["CPUExecutionProvider"]
    )


def _run(model, values) -> dict:
    session = _session(to_onnx(model))
    names = [o.name for o in session.get_outputs()]
    return dict(zip(names, session.run(None, {"X": values}), strict=True))


def _abs_terms(view, values) -> np.ndarray:
    """Per row and output: |base| + sum over trees of |the leaf value the row adds|."""
    total = np.tile(np.abs(view.base), (values.shape[0], 1))
    for tree, table, columns in zip(view.trees, view.tables, view.columns, strict=True):
        nodes = tree.apply(values)
        total[:, np.asarray(columns)] += np.abs(table[nodes])
    return total


def _tolerance(model, values) -> np.ndarray:
    view = export._plan(model).view
    terms = _abs_terms(view, np.asarray(values, dtype=np.float64))
    if export._plan(model).dtype == np.float64:
        return 1e-12 * terms
    return (len(view.trees) + 2) * EPS32 * terms


def _check_model(model, X, *, reference=None):
    """raw_score, probabilities and labels (or the prediction) of the graph = the model's."""
    values = onnx_input(model, X)
    out = _run(model, values)
    view = view_of(model) if reference is None else reference
    raw = view.output(X)
    tol = _tolerance(model, values)
    assert out["raw_score"].shape == raw.shape
    assert (np.abs(out["raw_score"] - raw) <= tol).all(), np.abs(out["raw_score"] - raw).max()
    slack = 0.25 * tol.max() + (1e-15 if values.dtype == np.float64 else 8 * EPS32)
    if hasattr(model, "predict_proba") and "probabilities" in out:
        proba = model.predict_proba(X)
        np.testing.assert_allclose(out["probabilities"], proba, rtol=0, atol=slack)
        # Labels agree wherever the two best classes are not tied within rounding.
        top = np.sort(proba, axis=1)
        clear = top[:, -1] - (top[:, -2] if proba.shape[1] > 1 else 0) > 2 * slack
        assert clear.mean() > 0.9
        np.testing.assert_array_equal(out["label"][clear], model.predict(X)[clear])
    elif "prediction" in out:
        expected = model.predict(X)
        bound = np.abs(expected) * (1e-12 if values.dtype == np.float64 else 64 * EPS32)
        assert (np.abs(out["prediction"] - expected) <= bound + slack).all()
    return out


# ---------------------------------------------------------------------------- data
@pytest.fixture(scope="module")
def penguins():
    X, y = load_penguins(return_X_y=True)
    return X, y.to_numpy()


@pytest.fixture(scope="module")
def titanic():
    X, y = load_titanic(return_X_y=True)
    return X, y.to_numpy()


@pytest.fixture(scope="module")
def heart():
    X, y = load_heart_disease(return_X_y=True)
    return X, y.to_numpy()


def _with_unseen(X: pd.DataFrame) -> pd.DataFrame:
    """X plus rows whose categorical cells are a category unseen in training."""
    extra = X.head(8).copy()
    for column in X.select_dtypes("category").columns:
        extra[column] = extra[column].cat.add_categories(["never seen"])
        extra.loc[extra.index[::2], column] = "never seen"
    out = pd.concat([X, extra], ignore_index=True)
    for column in X.select_dtypes("category").columns:  # concat widened the dtype
        out[column] = out[column].astype("category")
    return out


# ------------------------------------------------------------- every kind, double
def _tree_models():
    dd = {"missing": "default_direction"}
    return {
        "CART classifier": mltrees.CARTClassifier(max_depth=6, **dd),
        "CART classifier, surrogates": mltrees.CARTClassifier(missing="surrogate", max_depth=4),
        "CART classifier, entropy, histogram": mltrees.CARTClassifier(
            criterion="entropy", max_bins=16, **dd
        ),
        "random forest": mltrees.RandomForestClassifier(n_estimators=8, random_state=0, **dd),
        "bagging, soft": mltrees.BaggingClassifier(
            mltrees.CARTClassifier(max_depth=4, **dd), n_estimators=6, random_state=0
        ),
        "bagging, hard votes": mltrees.BaggingClassifier(
            mltrees.CARTClassifier(max_depth=4, **dd),
            n_estimators=6,
            voting="hard",
            random_state=0,
        ),
        "AdaBoost SAMME": mltrees.AdaBoostClassifier(
            mltrees.CARTClassifier(max_depth=2, **dd), n_estimators=8, random_state=0
        ),
        "AdaBoost real": mltrees.AdaBoostClassifier(
            mltrees.CARTClassifier(max_depth=2, **dd),
            n_estimators=8,
            algorithm="real",
            random_state=0,
        ),
        "gradient boosting": mltrees.GradientBoostingClassifier(n_estimators=8, max_depth=3),
        "gradient boosting, histogram": mltrees.GradientBoostingClassifier(
            n_estimators=8, max_bins=32
        ),
        "LightGBM": mltrees.LightGBMClassifier(n_estimators=8, min_child_samples=5),
    }


@pytest.mark.parametrize("name", list(_tree_models()))
@pytest.mark.parametrize("table", ["penguins", "titanic", "heart"])
def test_double_classifiers_equal_onnxruntime(name, table, request):
    X, y = request.getfixturevalue(table)
    model = _tree_models()[name].fit(X, y)
    assert onnx_input(model, X).dtype == np.float64
    # LightGBM reads category values, not labels: its unseen values are tested below.
    _check_model(model, X if name == "LightGBM" else _with_unseen(X))


def _regressors():
    dd = {"missing": "default_direction"}
    return {
        "CART regressor": mltrees.CARTRegressor(max_depth=6, **dd),
        "CART regressor, surrogates": mltrees.CARTRegressor(missing="surrogate", max_depth=3),
        "random forest": mltrees.RandomForestRegressor(n_estimators=6, random_state=0, **dd),
        "bagging": mltrees.BaggingRegressor(
            mltrees.CARTRegressor(max_depth=4, **dd), n_estimators=5, random_state=0
        ),
        "gradient boosting, huber": mltrees.GradientBoostingRegressor(n_estimators=8, loss="huber"),
        "LightGBM": mltrees.LightGBMRegressor(n_estimators=8, min_child_samples=5),
    }


@pytest.mark.parametrize("name", list(_regressors()))
def test_double_regressors_equal_onnxruntime(name, penguins):
    X, _ = penguins
    target = X["body_mass_g"].fillna(4200.0).to_numpy()
    features = X.drop(columns="body_mass_g")
    model = _regressors()[name].fit(features, target)
    _check_model(model, features if name == "LightGBM" else _with_unseen(features))


def test_c45_and_id3_multiway_splits_without_missing_method(penguins):
    X, y = penguins
    known = X.notna().all(axis=1).to_numpy()
    c45 = mltrees.C45Classifier(missing="error").fit(X[known], y[known])
    assert (c45.tree_.n_children > 2).any()  # a multiway split on a category
    _check_model(c45, _with_unseen(X[known]))
    categories = X[known].select_dtypes("category")
    id3 = mltrees.ID3Classifier(missing="error").fit(categories, y[known])
    _check_model(id3, _with_unseen(categories))


# -------------------------------------------------------------- every kind, float32
def _float_models():
    return {
        "XGBoost binary": (mltrees.XGBoostClassifier(n_estimators=10, max_depth=3), "binary"),
        "XGBoost multiclass": (mltrees.XGBoostClassifier(n_estimators=6, max_depth=3), "multi"),
        "XGBoost regression": (mltrees.XGBoostRegressor(n_estimators=10), "regression"),
        "XGBoost Poisson": (
            mltrees.XGBoostRegressor(n_estimators=10, objective="count:poisson"),
            "count",
        ),
        "oblivious binary": (
            mltrees.ObliviousBoostingClassifier(n_estimators=10, depth=3),
            "binary",
        ),
        "oblivious multiclass": (
            mltrees.ObliviousBoostingClassifier(n_estimators=6, depth=3),
            "multi",
        ),
        "oblivious regression": (
            mltrees.ObliviousBoostingRegressor(n_estimators=10, depth=4),
            "regression",
        ),
    }


def _float_data(model, task, penguins):
    X, y = penguins
    target = {
        "binary": y == "Adelie",
        "multi": y,
        "regression": X["body_mass_g"].fillna(4200.0).to_numpy(),
        "count": (X["year"] - 2006).to_numpy(),
    }[task]
    features = X.drop(columns=["body_mass_g", "year"]) if task in ("regression", "count") else X
    if isinstance(model, mltrees.XGBoostRegressor | mltrees.XGBoostClassifier):
        features = features.select_dtypes("number")
    else:  # CatBoost's statistics need every category known: missing sex is a category
        sex = features["sex"].cat.add_categories("unknown").fillna("unknown")
        features = features.assign(sex=sex.astype(str), island=features["island"].astype(str))
    return features, target


@pytest.mark.parametrize("name", list(_float_models()))
def test_float32_models_equal_onnxruntime(name, penguins):
    model, task = _float_models()[name]
    X, y = _float_data(model, task, penguins)
    model.fit(X, y)
    assert onnx_input(model, X).dtype == np.float32
    if "oblivious" in name:  # unseen text categories
        X = pd.concat([X, X.head(6).assign(island="Atlantis", sex="?")], ignore_index=True)
    _check_model(model, X)


def test_xgboost_splits_are_strict_float32_cuts(penguins):
    """BRANCH_LT with XGBoost's float32 cut: a value on the cut goes right, one below left."""
    X, y = penguins
    numbers = X.select_dtypes("number")
    model = mltrees.XGBoostClassifier(n_estimators=3, max_depth=2).fit(numbers, y == "Gentoo")
    attributes = export._ensemble_attributes(export._plan(model))
    internal = attributes["nodes_modes"] == export._LT
    assert internal.any()
    assert attributes["nodes_splits"].dtype == np.float32
    # Probe every threshold: the float32 cut itself and the float32 just below it.
    tree = model.trees_[0][0]
    node = 0
    f, s = int(tree.feature[node]), tree.threshold[node]
    cut = export._split_values([s], np.float32, "<")[0]
    probe = np.repeat(onnx_input(model, numbers.head(1)), 2, axis=0)
    probe[0, f] = np.float32(cut)
    probe[1, f] = np.nextafter(np.float32(cut), np.float32(-np.inf))
    out = _run(model, probe)
    expected = model.decision_function(pd.DataFrame(probe, columns=numbers.columns))
    np.testing.assert_allclose(out["raw_score"][:, 0], expected, rtol=1e-6, atol=1e-6)
    assert expected[0] != expected[1]  # the two probes do take different branches


# ------------------------------------------------------------ categories and missing
def test_category_codes_route_as_the_trees_do(penguins):
    """Codes the graph may meet: unseen (-1), negative, too large, fractional, NaN."""
    X, y = penguins
    model = mltrees.CARTClassifier(missing="default_direction", max_depth=6).fit(X, y)
    view = view_of(model)
    values = onnx_input(model, X.head(40))
    island = list(X.columns).index("island")
    values[:, island] = np.resize([-1.0, -7.0, 3.0, 99.0, 1.5, -0.5, np.nan, 2.0], 40)
    out = _run(model, values)
    tree = view.trees[0]
    ends = tree.apply(values)  # Tree.apply: the model's own walk
    np.testing.assert_array_equal(out["raw_score"], view.tables[0][ends])
    # Codes the tree never saw stop at an island node: their value is an internal node's.
    assert (~tree.is_leaf[ends]).any()


def test_lightgbm_category_values_route_as_the_model_does(penguins):
    """LightGBM reads raw category values: negative, fractional, unseen and NaN go to bin 0."""
    X, y = penguins
    coded = X.copy()
    for column in ("island", "sex"):
        codes = coded[column].cat.codes
        coded[column] = codes.astype(float).where(codes >= 0)
    model = mltrees.LightGBMClassifier(
        n_estimators=10, min_child_samples=5, categorical_feature=[0, 5], min_data_per_group=5
    ).fit(coded, y)
    assert any(((t.kind == 1) & (t.feature == 0)).any() for stage in model.trees_ for t in stage)
    values = coded.to_numpy()
    probe = np.tile(values[:8], (1, 1))
    probe[:, 0] = [-1.0, -0.5, 2.7, 9.0, np.nan, 1.0, 1e10, -0.0]
    _check_model(model, pd.DataFrame(np.vstack([values, probe]), columns=coded.columns))


def test_oblivious_unseen_codes_are_unseen_categories(penguins):
    model, task = _float_models()["oblivious multiclass"]
    X, y = _float_data(model, task, penguins)
    model.fit(X, y)
    values = onnx_input(model, X.head(4))
    island = list(X.columns).index("island")
    unseen = onnx_input(model, X.head(4).assign(island="Atlantis"))
    for code in (-1.0, 99.0):
        values[:, island] = code
        np.testing.assert_array_equal(
            _run(model, values)["raw_score"], _run(model, unseen)["raw_score"]
        )


def test_rows_the_model_rejects_get_nan(penguins):
    """No missing-value method: NaN rows give NaN (the model raises), others are unchanged."""
    X, y = penguins
    known = X.notna().all(axis=1).to_numpy()
    model = mltrees.CARTClassifier(max_depth=4, missing="error").fit(X[known], y[known])
    values = onnx_input(model, X[known])
    bad = values.copy()
    bad[0, 1] = np.nan  # a number
    bad[1, 0] = np.nan  # a category
    bad[2, 2] = np.inf
    out = _run(model, bad)
    assert np.isnan(out["probabilities"][:3]).all()
    assert np.isnan(out["raw_score"][:3]).all()
    np.testing.assert_array_equal(out["probabilities"][3:], model.predict_proba(X[known])[3:])
    with pytest.raises(ValueError, match="missing values"):
        model.predict_proba(X)
    # XGBoost routes NaN and refuses infinity: only the infinite row is NaN.
    numbers = X.select_dtypes("number")
    xgb = mltrees.XGBoostRegressor(n_estimators=5).fit(numbers, y == "Adelie")
    probe = onnx_input(xgb, numbers.head(3))
    probe[0, 0], probe[1, 1] = np.nan, -np.inf
    raw = _run(xgb, probe)["raw_score"][:, 0]
    assert np.isfinite(raw[0])
    assert np.isnan(raw[1])
    assert np.isfinite(raw[2])


# ---------------------------------------------------------------- imported models
def test_imported_lightgbm_zero_band_and_categories(penguins):
    lgb = pytest.importorskip("lightgbm")
    X, y = penguins
    coded = X.copy()
    for column in ("island", "sex"):
        codes = coded[column].cat.codes
        coded[column] = codes.astype(float).where(codes >= 0)
    rng = np.random.default_rng(0)
    coded["bill_depth_mm"] = np.where(rng.random(len(coded)) < 0.3, 0.0, coded["bill_depth_mm"])
    booster = lgb.train(
        {
            "objective": "multiclass",
            "num_class": 3,
            "num_leaves": 8,
            "min_data_in_leaf": 5,
            "min_data_per_group": 5,
            "cat_smooth": 1,
            "zero_as_missing": True,
            "verbose": -1,
            "num_threads": 1,
            "seed": 0,
        },
        lgb.Dataset(coded, label=pd.Categorical(y).codes, categorical_feature=["island", "sex"]),
        15,
    )
    model = mltrees.import_lightgbm(booster.model_to_string())
    depth = list(X.columns).index("bill_depth_mm")
    assert model.zero_as_missing_[depth]
    values = coded.to_numpy()
    probe = np.tile(values[:9], (2, 1))
    probe[:9, 0] = [-1.0, -0.5, 2.7, 9.0, np.nan, 1.0, 1e10, -1e10, -0.0]
    z = float(np.float32(1e-35))  # LightGBM's kZeroThreshold, a float
    probe[9:, depth] = [0.0, -0.0, 1e-36, -1e-36, z, -z, np.nextafter(-z, -1), 2e-35, np.nan]
    values = np.vstack([values, probe])
    out = _run(model, onnx_input(model, values))
    # LightGBM itself: its zero band is -z <= x <= z.
    np.testing.assert_allclose(out["prediction"], booster.predict(values), rtol=0, atol=1e-12)
    # The imported model, on every row, -z included (prediction's IsZero is closed).
    raw = model.decision_function(values)
    terms = _abs_terms(export._plan(model).view, values)
    assert (np.abs(out["raw_score"] - raw) <= 1e-12 * terms).all()
    np.testing.assert_allclose(model.predict(values), booster.predict(values), rtol=0, atol=1e-12)


def test_imported_xgboost_with_categories(penguins):
    xgb = pytest.importorskip("xgboost")
    X, y = penguins
    booster = xgb.train(
        {"objective": "binary:logistic", "max_depth": 3, "nthread": 1, "max_cat_to_onehot": 1},
        xgb.DMatrix(X, label=(y == "Adelie").astype(float), enable_categorical=True),
        15,
    )
    model = mltrees.import_xgboost(bytes(booster.save_raw("json")))
    assert model.categorical_.any()
    values = onnx_input(model, X).astype(np.float64)
    probe = np.tile(values[:6], (1, 1))
    probe[:, 0] = [-1.0, -0.5, 1.5, 7.0, np.nan, -0.0]
    values = np.vstack([values, probe]).astype(np.float32)
    out = _run(model, values)
    raw = model.decision_function(values.astype(np.float64))
    bound = (len(model.trees_) + 2) * EPS32 * _abs_terms(export._plan(model).view, values)
    assert (np.abs(out["raw_score"][:, 0] - raw) <= bound[:, 0]).all()


# ------------------------------------------------------------------------ refusals
def test_c45_fractional_missing_values_are_refused(penguins):
    X, y = penguins
    for model in (
        mltrees.C45Classifier(),
        mltrees.CARTClassifier(missing="c45", max_depth=3),
        mltrees.RandomForestClassifier(n_estimators=3, missing="c45", random_state=0),
    ):
        model.fit(X, y)
        with pytest.raises(OnnxExportError, match="fractional"):
            to_onnx(model)


def test_surrogate_expansion_beyond_the_limit_is_refused(penguins, monkeypatch):
    X, y = penguins
    model = mltrees.CARTClassifier(missing="surrogate", max_depth=5).fit(X, y)
    monkeypatch.setattr(export, "MAX_NODES", 100)
    with pytest.raises(OnnxExportError, match="surrogate"):
        to_onnx(model)


def test_what_is_no_tree_ensemble_is_refused(penguins):
    X, y = penguins
    numbers = X.select_dtypes("number").fillna(0.0)
    bagged = mltrees.BaggingClassifier(SkDecisionTree(max_depth=2), n_estimators=2).fit(numbers, y)
    with pytest.raises(OnnxExportError, match="not mltrees trees"):
        to_onnx(bagged)
    oblique = mltrees.ObliqueTreeClassifier(max_depth=2, random_state=0).fit(numbers, y)
    with pytest.raises(OnnxExportError, match="weighted sum"):
        to_onnx(oblique)
    with pytest.raises(TypeError, match="to_onnx exports"):
        to_onnx(mltrees.StackingClassifier([mltrees.CARTClassifier()]))
    with pytest.raises(TypeError, match="to_onnx exports"):
        to_onnx(SkDecisionTree())
    from sklearn.exceptions import NotFittedError

    with pytest.raises(NotFittedError):
        to_onnx(mltrees.CARTClassifier())


# ---------------------------------------------------------------------- the file
def test_file_is_valid_onnx_and_round_trips(penguins, tmp_path):
    X, y = penguins
    model = mltrees.LightGBMClassifier(n_estimators=5, min_child_samples=5).fit(X, y)
    path = tmp_path / "model.onnx"
    proto = to_onnx(model, path)
    loaded = onnx.load(path)
    onnx.checker.check_model(loaded, full_check=True)
    assert loaded.SerializeToString() == proto.SerializeToString()
    opsets = {o.domain: o.version for o in loaded.opset_import}
    assert opsets == {"": export.ONNX_OPSET, "ai.onnx.ml": export.ONNX_ML_OPSET}
    ops = [node.op_type for node in loaded.graph.node]
    assert ops.count("TreeEnsemble") == 1
    metadata = {p.key: p.value for p in loaded.metadata_props}
    assert json.loads(metadata["mltrees.feature_names"]) == list(X.columns)


def test_reference_implementation_agrees_on_thresholds_and_missing_values(penguins):
    """ONNX's own reference evaluator, an independent reader of the operator's spec.

    Without set membership: onnx 1.23's reference TreeEnsemble stops reading a
    set at a member equal to 0.0 (it tests the member's truth value).
    """
    from onnx.reference import ReferenceEvaluator

    X, y = penguins
    numbers = X.select_dtypes("number")
    for model in (
        mltrees.GradientBoostingClassifier(n_estimators=4, max_depth=3).fit(numbers, y),
        mltrees.XGBoostRegressor(n_estimators=4, max_depth=3).fit(numbers, y == "Adelie"),
    ):
        values = onnx_input(model, numbers.head(40))
        reference = ReferenceEvaluator(to_onnx(model)).run(["raw_score"], {"X": values})[0]
        np.testing.assert_array_equal(reference, _run(model, values)["raw_score"])


def test_a_tree_that_is_one_leaf(penguins):
    X = penguins[0].dropna()
    model = mltrees.CARTRegressor().fit(X, np.full(len(X), 2.5))
    assert model.tree_.node_count == 1
    out = _run(model, onnx_input(model, X))
    np.testing.assert_array_equal(out["prediction"], np.full(len(X), 2.5))
