"""scikit-learn's estimator checks for AdaBoostClassifier (SAMME and real).

Expected failures are strict xfails, each a deliberate design decision shared
with the single trees (see tests/test_tree_estimator_checks.py).
"""

from __future__ import annotations

from _estimator_checks import INPUT_BY_DESIGN, run_check
from sklearn.utils.estimator_checks import parametrize_with_checks

from mltrees import AdaBoostClassifier

ESTIMATORS = [
    AdaBoostClassifier(n_estimators=20),
    AdaBoostClassifier(n_estimators=20, algorithm="real"),
]

EXPECTED = INPUT_BY_DESIGN


def _expected(estimator) -> dict[str, str]:
    return dict(EXPECTED)


@parametrize_with_checks(ESTIMATORS, expected_failed_checks=_expected, xfail_strict=True)
def test_sklearn_estimator_checks(estimator, check):
    run_check(estimator, check, _expected(estimator))
