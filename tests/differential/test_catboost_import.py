"""mltrees.io.import_catboost against catboost: the same raw scores on drawn tables and parameters.

Tables from :mod:`differential.strategies` (ties, constant and duplicated
columns, missing values in training, prediction or both, weights with
zeros); parameters drawn together: depth 1-8, the three growing policies,
``nan_mode`` Min or Max (Forbidden where training has no missing value),
``border_count`` from 2 to 254, regression, binary and multiclass losses.
The imported model's ``decision_function`` must equal CatBoost's
``RawFormulaVal`` exactly (both sum the same float64 leaf values in the same
order) on the training rows, the held-out rows and rows placed on, just
above and just below every border.
"""

from __future__ import annotations

import json
import os
import tempfile

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from differential.conftest import PROFILE
from differential.strategies import tables

catboost = pytest.importorskip("catboost")

import mltrees  # noqa: E402  (after the skip: the reference library is optional)


def _border_rows(document, X):
    """Copies of the first row with one feature on, just above and just below each border."""
    rows = []
    for feature in document["features_info"].get("float_features", []):
        j = feature["flat_feature_index"]
        borders = np.asarray(feature["borders"], dtype=np.float32)
        if not borders.size:
            continue
        with np.errstate(over="ignore"):  # above the largest float32: inf, left out
            up = np.nextafter(borders, np.float32(np.inf)).astype(np.float64)
        borders = borders[np.isfinite(up)]
        middle = (borders.astype(np.float64) + up[np.isfinite(up)]) / 2
        for values in (
            borders.astype(np.float64),
            np.nextafter(borders.astype(np.float64), np.inf),
            middle,
            np.nextafter(middle, -np.inf),
            np.nextafter(middle, np.inf),
        ):
            block = np.tile(X[:1], (values.size, 1))
            block[:, j] = values
            rows.append(block)
    return np.vstack(rows) if rows else X[:1]


@st.composite
def _cases(draw):
    task = draw(st.sampled_from(["regression", "binary", "multiclass"]))
    n_classes = draw(st.integers(3, 4)) if task == "multiclass" else 2
    table = draw(tables(task=task, min_rows=30, max_rows=400, max_columns=6, n_classes=n_classes))
    policy = draw(st.sampled_from(["SymmetricTree", "Depthwise", "Lossguide"]))
    params = {
        "iterations": draw(st.integers(1, 12)),
        "depth": draw(st.integers(1, 8)),
        "grow_policy": policy,
        "border_count": draw(st.sampled_from([2, 5, 32, 254])),
        "learning_rate": draw(st.sampled_from([0.03, 0.3, 1.0])),
        "nan_mode": draw(st.sampled_from(["Min", "Max", "Forbidden"])),
        "random_seed": 0,
        "thread_count": 1,
        "verbose": 0,
        "allow_writing_files": False,
    }
    if policy == "Lossguide":
        params["max_leaves"] = draw(st.integers(2, 16))
    if np.isnan(table.X).any() and params["nan_mode"] == "Forbidden":
        params["nan_mode"] = "Min"
    if task == "regression":
        params["loss_function"] = draw(st.sampled_from(["RMSE", "MAE", "Quantile:alpha=0.3"]))
    elif task == "multiclass":
        params["loss_function"] = "MultiClass"
    return task, table, params


def _fit(task, table, params):
    cls = catboost.CatBoostRegressor if task == "regression" else catboost.CatBoostClassifier
    model = cls(**params)
    y = table.y if task == "regression" else table.y.astype(int)
    if (
        task != "regression"
        and np.unique(y[table.sample_weight > 0] if table.sample_weight is not None else y).size < 2
    ):
        return None
    try:
        model.fit(table.X, y, sample_weight=table.sample_weight)
    except catboost.CatBoostError:  # e.g. every feature constant: nothing to learn
        return None
    return model


@settings(parent=settings.get_profile(PROFILE))
@given(_cases())
def test_imported_raw_scores_equal_catboost(case):
    task, table, params = case
    model = _fit(task, table, params)
    if model is None:
        return
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "model.json")
        model.save_model(path, format="json")
        with open(path, encoding="utf-8") as handle:
            document = json.load(handle)
        imported = mltrees.import_catboost(path)
    X_test = table.X_test
    if params["nan_mode"] == "Forbidden":  # CatBoost refuses NaN for such a model only in fit
        X_test = np.nan_to_num(X_test)
    rows = np.vstack([table.X, X_test, _border_rows(document, table.X)])
    expected = model.predict(rows, prediction_type="RawFormulaVal")
    np.testing.assert_array_equal(imported.decision_function(rows), expected)
    # The model file of the imported model round-trips with the same scores.
    back = mltrees.from_json(mltrees.to_json(imported))
    np.testing.assert_array_equal(back.decision_function(rows), expected)
