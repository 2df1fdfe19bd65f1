"""Every public estimator fits, predicts, and comes back from a file with the same predictions.

One small, fast pass over the whole family, discovered from ``mltrees.__all__``
so that a new estimator cannot be left out: it is also the core of the test
run on the other supported Python versions (``make test-pythons``). The
detailed behaviour lives in each estimator's own test file.

Saving: pickle and the JSON model format (``save_model``) for every estimator.
A class added to ``NO_MODEL_FILE`` must be refused by ``save_model`` with a
ModelFormatError that names the class, before anything is written: never a
half-written file.
"""

from __future__ import annotations

import inspect
import pickle

import numpy as np
import pandas as pd
import pytest
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin, clone

import mltrees
from mltrees.io import ModelFormatError, load_model, save_model

SMALL = {
    "AdaBoostClassifier": {"n_estimators": 5, "random_state": 0},
    "BaggingClassifier": {"n_estimators": 3, "random_state": 0},
    "BaggingRegressor": {"n_estimators": 3, "random_state": 0},
    "BlendingClassifier": {"estimators": [("cart", mltrees.CARTClassifier(max_depth=3))]},
    "BlendingRegressor": {"estimators": [("cart", mltrees.CARTRegressor(max_depth=3))]},
    "C45Classifier": {},
    "CARTClassifier": {"max_depth": 4},
    "CARTRegressor": {"max_depth": 4},
    "GradientBoostingClassifier": {"n_estimators": 5},
    "GradientBoostingRegressor": {"n_estimators": 5},
    "HoeffdingTreeClassifier": {"grace_period": 20},
    "ID3Classifier": {},
    "ID5RClassifier": {},
    "LightGBMClassifier": {"n_estimators": 5, "min_child_samples": 5},
    "LightGBMRegressor": {"n_estimators": 5, "min_child_samples": 5},
    "ObliqueTreeClassifier": {"max_depth": 3, "random_state": 0},
    "ObliqueTreeRegressor": {"max_depth": 3, "random_state": 0},
    "ObliviousBoostingClassifier": {"n_estimators": 5, "depth": 3},
    "ObliviousBoostingRegressor": {"n_estimators": 5, "depth": 3},
    "RandomForestClassifier": {"n_estimators": 4, "random_state": 0},
    "RandomForestRegressor": {"n_estimators": 4, "random_state": 0},
    "RuleSetClassifier": {},
    "StackingClassifier": {"estimators": [("cart", mltrees.CARTClassifier(max_depth=3))], "cv": 3},
    "StackingRegressor": {"estimators": [("cart", mltrees.CARTRegressor(max_depth=3))], "cv": 3},
    "XGBoostClassifier": {"n_estimators": 5},
    "XGBoostRegressor": {"n_estimators": 5},
}
# Trees read from another library's model file, not fitted (tests/test_model_files.py).
NOT_FITTED = {"ImportedTreeModel"}
# Categorical features only: multiway splits on categories.
CATEGORICAL_ONLY = {"ID3Classifier", "ID5RClassifier"}
# Not in the JSON model format, saved with pickle only: none today.
NO_MODEL_FILE: set[str] = set()


def public_estimators() -> dict[str, type]:
    found = {}
    for name in mltrees.__all__:
        obj = getattr(mltrees, name)
        if inspect.isclass(obj) and issubclass(obj, BaseEstimator):
            found.setdefault(obj.__name__, obj)  # aliases (DecisionTreeClassifier) once
    return found


def test_every_public_estimator_is_in_the_table():
    assert set(public_estimators()) == set(SMALL) | NOT_FITTED


def _data(name: str, estimator):
    rng = np.random.default_rng(0)
    n = 240
    if name in CATEGORICAL_ONLY:
        X = pd.DataFrame(
            {
                "outlook": pd.Categorical(rng.choice(["sunny", "overcast", "rain"], n)),
                "windy": pd.Categorical(rng.choice(["yes", "no"], n)),
            }
        )
        y = np.where((X["outlook"] == "sunny") & (X["windy"] == "no"), "play", "stay")
        return X, y
    X = rng.normal(size=(n, 4))
    signal = X[:, 0] + 0.5 * X[:, 1] ** 2
    if isinstance(estimator, ClassifierMixin):
        return X, np.where(signal > np.median(signal), "yes", "no")
    return X, signal + 0.1 * rng.normal(size=n)


def _predictions(model, X) -> list[np.ndarray]:
    out = [np.asarray(model.predict(X))]
    if hasattr(model, "predict_proba"):
        out.append(np.asarray(model.predict_proba(X)))
    return out


@pytest.mark.parametrize("name", sorted(SMALL))
def test_fit_predict_save_load(name, tmp_path):
    cls = public_estimators()[name]
    model = cls(**SMALL[name])
    assert isinstance(model, ClassifierMixin | RegressorMixin)
    X, y = _data(name, model)
    fitted = clone(model).fit(X, y)
    predicted = _predictions(fitted, X)
    if isinstance(model, ClassifierMixin):
        assert set(predicted[0]) <= set(y)
        assert (predicted[0] == y).mean() > 0.7  # learned something from a clear signal
        np.testing.assert_allclose(predicted[1].sum(axis=1), 1.0)
    else:
        assert np.corrcoef(predicted[0], y)[0, 1] > 0.7
    for again, first in zip(
        _predictions(pickle.loads(pickle.dumps(fitted)), X), predicted, strict=True
    ):
        np.testing.assert_array_equal(again, first)
    path = tmp_path / "model.json"
    if name in NO_MODEL_FILE:
        with pytest.raises(ModelFormatError, match=name):
            save_model(fitted, path)
        assert not path.exists()
        return
    save_model(fitted, path)
    for again, first in zip(_predictions(load_model(path), X), predicted, strict=True):
        np.testing.assert_array_equal(again, first)
