"""mltrees models against onnxruntime running their ONNX export, on drawn tables and parameters.

The model kind, its parameters and the table (ties, constant and duplicated
columns, integer codes read as categories, NaN in training and/or prediction,
weights with zeros) are drawn together. onnxruntime's raw scores must equal the
model's own within 1e-12 of the sum of the absolute terms (double graphs) or
the float32 rounding of that sum (float graphs); classes must agree wherever
the two best probabilities are not tied within that rounding.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mltrees
from differential.conftest import PROFILE
from differential.strategies import tables
from mltrees.inspection import view_of
from mltrees.io import onnx_input, to_onnx

ort = pytest.importorskip("onnxruntime")

EPS32 = 2.0**-24
KINDS = ("cart", "forest", "gradient boosting", "xgboost", "lightgbm", "oblivious")


def _scores(model, X):
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    session = ort.InferenceSession(
        to_onnx(model).SerializeToString(), options, providers=["CPUExecutionProvider"]
    )
    names = [o.name for o in session.get_outputs()]
    return dict(zip(names, session.run(None, {"X": onnx_input(model, X)}), strict=True))


def _term_sizes(view, X):
    values = view.encode(X)
    sizes = np.tile(np.abs(view.base), (values.shape[0], 1))
    for tree, table, columns in zip(view.trees, view.tables, view.columns, strict=True):
        sizes[:, np.asarray(columns)] += np.abs(table[tree.apply(values)])
    return sizes


def _model(kind: str, depth: int, rounds: int, histogram: bool, categorical: list):
    dd = {"missing": "default_direction"}
    bins = {"max_bins": 16} if histogram else {}
    if kind == "cart":
        return mltrees.CARTClassifier(
            max_depth=depth, categorical_features=categorical, **bins, **dd
        )
    if kind == "forest":
        return mltrees.RandomForestClassifier(
            n_estimators=rounds, max_depth=depth, categorical_features=categorical,
            random_state=0, **bins, **dd,
        )  # fmt: skip
    if kind == "gradient boosting":
        return mltrees.GradientBoostingClassifier(
            n_estimators=rounds, max_depth=depth, categorical_features=categorical, **bins
        )
    if kind == "xgboost":
        return mltrees.XGBoostClassifier(n_estimators=rounds, max_depth=depth)
    if kind == "lightgbm":
        return mltrees.LightGBMClassifier(
            n_estimators=rounds, num_leaves=2**depth, min_child_samples=3,
            categorical_feature=categorical, min_data_per_group=5,
        )  # fmt: skip
    return mltrees.ObliviousBoostingClassifier(
        n_estimators=rounds, depth=depth, cat_features=categorical
    )


@settings(parent=settings.get_profile(PROFILE))
@given(
    table=st.sampled_from([2, 3]).flatmap(
        lambda k: tables(task="multiclass", min_rows=30, max_rows=300, max_columns=6, n_classes=k)
    ),
    kind=st.sampled_from(KINDS),
    depth=st.integers(1, 5),
    rounds=st.integers(1, 6),
    histogram=st.booleans(),
)
def test_onnxruntime_equals_the_model(table, kind, depth, rounds, histogram):
    X, X_test = table.X, table.X_test
    # Integer-coded columns without NaN can be categories (CatBoost's need a value).
    categorical = [
        j
        for j, k in enumerate(table.kinds)
        if k in ("integer0", "integer1")
        and not (np.isnan(X[:, j]).any() or np.isnan(X_test[:, j]).any())
    ]
    if kind == "oblivious":  # missing categories are an error there; numbers may be NaN
        X = pd.DataFrame(X)
        X_test = pd.DataFrame(X_test, columns=X.columns)
    model = _model(kind, depth, rounds, histogram, categorical)
    model.fit(X, table.y, sample_weight=table.sample_weight)
    data = np.vstack([np.asarray(X), np.asarray(X_test)])
    if kind == "oblivious":
        data = pd.DataFrame(data)
    out = _scores(model, data)
    view = view_of(model)
    raw = view.output(data)
    double = out["raw_score"].dtype == np.float64
    unit = 1e-12 if double else (len(view.trees) + 2) * EPS32
    bound = unit * _term_sizes(view, data)
    assert (np.abs(out["raw_score"] - raw) <= bound).all(), np.abs(out["raw_score"] - raw).max()
    proba = model.predict_proba(data)
    slack = 0.25 * bound.max() + (1e-15 if double else 8 * EPS32)
    np.testing.assert_allclose(out["probabilities"], proba, rtol=0, atol=slack)
    top = np.sort(proba, axis=1)
    clear = top[:, -1] - top[:, -2] > 2 * slack if proba.shape[1] > 1 else np.ones(len(proba), bool)
    np.testing.assert_array_equal(out["label"][clear], model.predict(data)[clear])
