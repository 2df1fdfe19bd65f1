"""Estimators that mirror a library draw as that library does by default: reproducibly.

LightGBM, XGBoost and CatBoost use fixed default seeds, so a user who fits
the same model twice gets the same trees. Their mltrees counterparts read
``random_state=None`` the same way (scikit-learn's own estimators, and
mltrees' forests and gradient boosting, keep scikit-learn's convention:
None draws afresh).
"""

import numpy as np
import pytest

from mltrees import LightGBMClassifier, ObliviousBoostingClassifier, XGBoostClassifier


def _data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(3000, 5))
    y = (X[:, 0] + 0.5 * X[:, 1] + rng.normal(scale=0.5, size=3000) > 0).astype(int)
    return X, y


@pytest.mark.parametrize(
    "make",
    [
        # more rows than subsample_for_bin: the bin bounds come from a random sample
        lambda seed: LightGBMClassifier(n_estimators=5, subsample_for_bin=500, random_state=seed),
        lambda seed: LightGBMClassifier(
            n_estimators=5, subsample=0.5, subsample_freq=1, random_state=seed
        ),
        lambda seed: XGBoostClassifier(
            n_estimators=5, subsample=0.5, colsample_bytree=0.6, random_state=seed
        ),
        lambda seed: ObliviousBoostingClassifier(
            n_estimators=5, boosting_type="Ordered", random_state=seed
        ),
    ],
    ids=["lightgbm-bin-sample", "lightgbm-bagging", "xgboost-samples", "catboost-permutation"],
)
def test_default_random_state_gives_the_same_model_twice(make):
    X, y = _data()
    first = make(None).fit(X, y).predict_proba(X)
    second = make(None).fit(X, y).predict_proba(X)
    np.testing.assert_array_equal(first, second)
    # ... and the draws are real: another seed gives another model.
    other = make(12345).fit(X, y).predict_proba(X)
    assert not np.array_equal(first, other)
