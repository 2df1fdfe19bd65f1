"""scikit-learn's estimator checks for RuleSetClassifier (C4.5Rules, chapter 7).

The rule set starts from Quinlan's unpruned C4.5 tree (the default) and from
a CART tree in histogram mode. Expected failures are strict xfails, each a
deliberate design decision shared with the single trees (see
tests/test_tree_estimator_checks.py).
"""

from __future__ import annotations

from _estimator_checks import INPUT_BY_DESIGN, run_check
from sklearn.utils.estimator_checks import parametrize_with_checks

from mltrees import CARTClassifier, RuleSetClassifier

ESTIMATORS = [
    RuleSetClassifier(),
    RuleSetClassifier(CARTClassifier(max_bins=16), confidence=0.1, drop_redundant=False),
]


def _expected(estimator) -> dict[str, str]:
    return dict(INPUT_BY_DESIGN)


@parametrize_with_checks(ESTIMATORS, expected_failed_checks=_expected, xfail_strict=True)
def test_sklearn_estimator_checks(estimator, check):
    run_check(estimator, check, _expected(estimator))
