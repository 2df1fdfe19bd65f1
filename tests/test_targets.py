"""One preparation of y: trees and ensembles reject bad targets in the same words.

``mltrees._validation`` promises one place and one wording for input checks;
these tests hold every estimator that prepares its target there to the
sentences it promises, so that a copy with its own wording cannot creep back.
"""

from __future__ import annotations

import numpy as np
import pytest

from mltrees import (
    AdaBoostClassifier,
    BaggingClassifier,
    BaggingRegressor,
    CARTClassifier,
    CARTRegressor,
    GradientBoostingClassifier,
    GradientBoostingRegressor,
    LightGBMClassifier,
    LightGBMRegressor,
    ObliqueTreeClassifier,
    ObliviousBoostingClassifier,
    ObliviousBoostingRegressor,
    RandomForestClassifier,
    RandomForestRegressor,
    StackingClassifier,
    StackingRegressor,
    XGBoostClassifier,
    XGBoostRegressor,
)
from mltrees.ensemble.logitboost import LogitBoostClassifier

N = 24
X = np.arange(2.0 * N).reshape(N, 2) % 7

REGRESSORS = [
    CARTRegressor(),
    BaggingRegressor(n_estimators=2),
    RandomForestRegressor(n_estimators=2),
    GradientBoostingRegressor(n_estimators=2),
    XGBoostRegressor(n_estimators=2),
    LightGBMRegressor(n_estimators=2),
    ObliviousBoostingRegressor(n_estimators=2),
    StackingRegressor([("tree", CARTRegressor(max_depth=2))], cv=2),
]
CLASSIFIERS = [
    CARTClassifier(),
    ObliqueTreeClassifier(),
    BaggingClassifier(n_estimators=2),
    RandomForestClassifier(n_estimators=2),
    AdaBoostClassifier(n_estimators=2),
    LogitBoostClassifier(n_estimators=2),
    GradientBoostingClassifier(n_estimators=2),
    XGBoostClassifier(n_estimators=2),
    LightGBMClassifier(n_estimators=2),
    ObliviousBoostingClassifier(n_estimators=2),
    StackingClassifier([("tree", CARTClassifier(max_depth=2))], cv=2),
]
NEEDS_TWO_CLASSES = [GradientBoostingClassifier, XGBoostClassifier]


def _name(estimator) -> str:
    return type(estimator).__name__


@pytest.mark.parametrize("estimator", REGRESSORS, ids=_name)
def test_regressors_reject_bad_targets_in_one_wording(estimator):
    y = np.linspace(0.0, 1.0, N)
    with pytest.raises(ValueError, match=r"^y contains NaN or inf$"):
        estimator.fit(X, np.where(y > 0.5, np.nan, y))
    with pytest.raises(ValueError, match=r"^y contains NaN or inf$"):
        estimator.fit(X, np.where(y > 0.5, -np.inf, y))
    with pytest.raises(ValueError, match=r"^y holds complex numbers; a regression model needs"):
        estimator.fit(X, y + 1j)
    with pytest.raises(ValueError, match=r"^y must be numeric for a regression model: "):
        estimator.fit(X, np.array(["a", "b"] * (N // 2), dtype=object))


@pytest.mark.parametrize("estimator", CLASSIFIERS, ids=_name)
def test_classifiers_reject_missing_labels_in_one_wording(estimator):
    y = np.array(["no", "yes"] * (N // 2), dtype=object)
    y[3] = None
    with pytest.raises(ValueError, match=r"^y contains missing values \(None or NaN\)$"):
        estimator.fit(X, y)
    with pytest.raises(ValueError, match=r"^y contains NaN$"):
        estimator.fit(X, np.where(np.arange(N) == 5, np.nan, np.arange(N) % 2))


@pytest.mark.parametrize("Estimator", NEEDS_TWO_CLASSES, ids=lambda c: c.__name__)
def test_boosting_needs_two_classes_of_positive_weight(Estimator):
    y = np.arange(N) % 2
    weight = (y == 0).astype(float)  # class 1 keeps no weight
    expected = f"y contains 1 class of positive weight, while {Estimator.__name__} needs at least 2"
    with pytest.raises(ValueError, match=f"^{expected}"):
        Estimator(n_estimators=2).fit(X, y, sample_weight=weight)
    with pytest.raises(ValueError, match=r"^y contains 1 class, while"):
        Estimator(n_estimators=2).fit(X, np.zeros(N))


@pytest.mark.parametrize("estimator", REGRESSORS + CLASSIFIERS, ids=_name)
def test_column_vector_y_warns_at_the_users_fit(estimator):
    from sklearn.exceptions import DataConversionWarning

    y = (np.arange(N) % 2).astype(float)
    with pytest.warns(DataConversionWarning, match="column-vector y") as record:
        estimator.fit(X, y[:, None])
    conversions = [w for w in record if issubclass(w.category, DataConversionWarning)]
    assert [w.filename for w in conversions] == [__file__]
