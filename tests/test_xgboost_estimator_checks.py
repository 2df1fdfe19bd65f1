"""scikit-learn's estimator checks for XGBoostRegressor and XGBoostClassifier (chapter 13).

The XGBoost estimators take numbers only (float32, NaN as missing), as the
xgboost package does without ``enable_categorical``, so they follow
scikit-learn's numeric conventions; expected failures are strict xfails.
"""

from __future__ import annotations

from _estimator_checks import INPUT_BY_DESIGN, run_check
from sklearn.utils.estimator_checks import parametrize_with_checks

from mltrees import XGBoostClassifier, XGBoostRegressor

ESTIMATORS = [
    XGBoostClassifier(n_estimators=15),
    XGBoostClassifier(n_estimators=15, tree_method="exact", max_depth=3),
    XGBoostClassifier(n_estimators=15, subsample=0.7, colsample_bynode=0.8, random_state=0),
    XGBoostRegressor(n_estimators=15),
    XGBoostRegressor(n_estimators=15, tree_method="approx", max_bin=16, reg_alpha=0.5),
]


def _expected(estimator) -> dict[str, str]:
    expected = {"check_complex_data": INPUT_BY_DESIGN["check_complex_data"]}
    if estimator.subsample < 1 or estimator.colsample_bynode < 1:
        expected["check_sample_weight_equivalence_on_dense_data"] = (
            "rows are drawn at random: weight 2 is not the same as a repeated row"
        )
    return expected


@parametrize_with_checks(ESTIMATORS, expected_failed_checks=_expected, xfail_strict=True)
def test_sklearn_estimator_checks(estimator, check):
    run_check(estimator, check, _expected(estimator))
