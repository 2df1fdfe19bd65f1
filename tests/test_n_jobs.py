"""``n_jobs`` follows scikit-learn's and joblib's convention in every estimator.

A positive int is that many threads, -1 all cores, -2 all but one (any
negative counts back from the cores, at least one); 0 and non-integers are
refused. None keeps each estimator's documented default (one thread for the
forests and bagging, as scikit-learn; every core for XGBoost and LightGBM,
as those libraries). The fitted model never depends on it.
"""

from __future__ import annotations

import inspect

import numpy as np
import pytest

import mltrees
from mltrees._threads import available_cores, threads_for_jobs


def _estimators_with_n_jobs():
    found = []
    for name in mltrees.__all__:
        obj = getattr(mltrees, name)
        if inspect.isclass(obj) and "n_jobs" in inspect.signature(obj.__init__).parameters:
            found.append(obj)
    return found


ESTIMATORS = _estimators_with_n_jobs()


def test_every_estimator_with_n_jobs_is_listed():
    names = {cls.__name__ for cls in ESTIMATORS}
    assert {
        "RandomForestClassifier",
        "RandomForestRegressor",
        "BaggingClassifier",
        "BaggingRegressor",
        "XGBoostClassifier",
        "XGBoostRegressor",
        "LightGBMClassifier",
        "LightGBMRegressor",
        "StackingClassifier",
        "StackingRegressor",
    } <= names


def _make(cls, n_jobs):
    params = {"n_jobs": n_jobs}
    if "estimators" in inspect.signature(cls.__init__).parameters:
        is_classifier = cls.__name__.endswith("Classifier")
        member = mltrees.CARTClassifier if is_classifier else mltrees.CARTRegressor
        params["estimators"] = [("a", member(max_depth=2)), ("b", member(max_depth=3))]
    if "n_estimators" in inspect.signature(cls.__init__).parameters:
        params["n_estimators"] = 4
    if "random_state" in inspect.signature(cls.__init__).parameters:
        params["random_state"] = 0
    return cls(**params)


def _data(cls):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(120, 4))
    y = X[:, 0] + X[:, 1] ** 2
    return X, (y > np.median(y)).astype(int) if cls.__name__.endswith("Classifier") else y


@pytest.mark.parametrize("cls", ESTIMATORS, ids=lambda cls: cls.__name__)
def test_negative_n_jobs_means_all_cores_and_changes_no_prediction(cls):
    X, y = _data(cls)
    expected = _make(cls, 1).fit(X, y).predict(X)
    for n_jobs in (-1, -2, -100):
        np.testing.assert_array_equal(_make(cls, n_jobs).fit(X, y).predict(X), expected)


@pytest.mark.parametrize("cls", ESTIMATORS, ids=lambda cls: cls.__name__)
@pytest.mark.parametrize("n_jobs", [0, 1.5, "all"])
def test_meaningless_n_jobs_is_refused(cls, n_jobs):
    X, y = _data(cls)
    with pytest.raises(ValueError, match="n_jobs"):
        _make(cls, n_jobs).fit(X, y)


def test_the_convention():
    cores = available_cores()
    assert threads_for_jobs(-1, none=1) == cores
    assert threads_for_jobs(-2, none=1) == max(1, cores - 1)
    assert threads_for_jobs(-cores - 5, none=1) == 1
    assert threads_for_jobs(3, none=1) == 3
    assert threads_for_jobs(None, none=7) == 7
    with pytest.raises(ValueError, match="non-zero int"):
        threads_for_jobs(True, none=1)
