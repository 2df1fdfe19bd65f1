"""What a constant factor in ``sample_weight`` changes: rounding, and nothing else.

Members are given weights on one scale (average 1 per row for bagging and
the forests, the boosting distribution summing to the number of rows for
AdaBoost), so a member that reads weights as case counts -- C4.5's
``min_cases`` and pessimistic pruning, as in Weka's J48 -- sees the cases of
its own fit whatever the scale the user chose. The weights are random reals,
so no node sits exactly on a ``min_cases`` boundary where a rounding error
of the rescaling could tip it.

Exactly (the statement of the docstrings):

* a power of two as factor scales every weighted sum exactly: the model is
  bit for bit the same;
* any other factor rounds the rescaled weights, and so the sums, differently
  (7w / sum(7w) is not always w / sum(w) to the last bit): the trees are the
  same wherever candidate gains are not within the tie tolerance of each
  other (``mltrees.criteria.TIE_TOLERANCE`` of the impurity plus
  ``ROUNDING_TOLERANCE`` of the size of the sums; such ties go to the first
  candidate), and the predictions agree to 1e-12 relative.

The reliability report's case -- random forests on 300 x 6 normal data,
where bootstrap samples leave two-row nodes that every feature separates
equally -- used to break those exact ties by rounding noise: x7 moved
predictions by up to 1e-3.
"""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer, load_diabetes
from sklearn.linear_model import LogisticRegression
from sklearn.neighbors import KNeighborsClassifier
from sklearn.tree import DecisionTreeClassifier as SkTree

from mltrees import (
    AdaBoostClassifier,
    BaggingClassifier,
    BaggingRegressor,
    C45Classifier,
    CARTClassifier,
    CARTRegressor,
    GradientBoostingClassifier,
    GradientBoostingRegressor,
    RandomForestClassifier,
    RandomForestRegressor,
)

FACTORS = (1e-3, 7.0, 1e3)


def _classification():
    X, y = load_breast_cancer(return_X_y=True)
    rng = np.random.default_rng(0)
    rows = rng.choice(len(y), 300, replace=False)
    X = X[rows]
    # Standardised, so that the logistic member's solver converges tightly.
    X = (X - X.mean(axis=0)) / X.std(axis=0)
    return X, y[rows], rng.uniform(0.5, 2.0, rows.size)


def _regression():
    X, y = load_diabetes(return_X_y=True)
    rng = np.random.default_rng(1)
    return X[:300], y[:300], rng.uniform(0.5, 2.0, 300)


CLASSIFIERS = {
    "adaboost_stump": lambda: AdaBoostClassifier(n_estimators=20, random_state=0),
    "adaboost_c45": lambda: AdaBoostClassifier(C45Classifier(), n_estimators=8, random_state=0),
    "adaboost_real_c45_unpruned": lambda: AdaBoostClassifier(
        C45Classifier(pruning=None, min_cases=5), n_estimators=8, algorithm="real", random_state=0
    ),
    "adaboost_sklearn_tree": lambda: AdaBoostClassifier(
        SkTree(max_depth=2), n_estimators=10, random_state=0
    ),
    "bagging_cart": lambda: BaggingClassifier(n_estimators=8, random_state=0),
    "bagging_c45": lambda: BaggingClassifier(C45Classifier(), n_estimators=8, random_state=0),
    "bagging_c45_unpruned": lambda: BaggingClassifier(
        C45Classifier(pruning=None, min_cases=5), n_estimators=8, random_state=0
    ),
    # Generic members: one that weights rows (its penalty is relative to the
    # total weight) and one that cannot (rows are drawn in proportion to them).
    "bagging_logistic": lambda: BaggingClassifier(
        LogisticRegression(C=0.05, tol=1e-12, max_iter=10000), n_estimators=4, random_state=0
    ),
    "bagging_knn": lambda: BaggingClassifier(
        KNeighborsClassifier(), n_estimators=4, random_state=0
    ),
    "forest": lambda: RandomForestClassifier(n_estimators=10, random_state=0),
    "forest_balanced_subsample": lambda: RandomForestClassifier(
        n_estimators=10, class_weight="balanced_subsample", min_samples_leaf=3, random_state=0
    ),
    "forest_hist_c45_missing": lambda: RandomForestClassifier(
        n_estimators=10, max_bins=16, missing="c45", random_state=0
    ),
}

REGRESSORS = {
    "bagging_cart": lambda: BaggingRegressor(n_estimators=8, random_state=0),
    "forest": lambda: RandomForestRegressor(
        n_estimators=10, min_weight_fraction_leaf=0.01, random_state=0
    ),
}


def _same_classifier(make, X, y, w):
    reference = make().fit(X, y, sample_weight=w)
    for factor in FACTORS:
        scaled = make().fit(X, y, sample_weight=w * factor)
        np.testing.assert_array_equal(scaled.predict(X), reference.predict(X), err_msg=str(factor))
        np.testing.assert_allclose(
            scaled.predict_proba(X), reference.predict_proba(X), rtol=1e-7, atol=1e-9
        )


@pytest.mark.parametrize("name", sorted(CLASSIFIERS))
def test_classifier_ensembles_read_only_weight_ratios(name):
    X, y, w = _classification()
    _same_classifier(CLASSIFIERS[name], X, y, w)


@pytest.mark.parametrize("name", sorted(REGRESSORS))
def test_regressor_ensembles_read_only_weight_ratios(name):
    X, y, w = _regression()
    reference = REGRESSORS[name]().fit(X, y, sample_weight=w)
    for factor in FACTORS:
        scaled = REGRESSORS[name]().fit(X, y, sample_weight=w * factor)
        np.testing.assert_allclose(scaled.predict(X), reference.predict(X), rtol=1e-7, atol=1e-9)


def test_gradient_boosting_classifier_reads_only_weight_ratios():
    X, y, w = _classification()
    _same_classifier(
        lambda: GradientBoostingClassifier(n_estimators=20, max_depth=3, random_state=0), X, y, w
    )


def test_gradient_boosting_regressor_reads_only_weight_ratios():
    X, y, w = _regression()
    make = lambda: GradientBoostingRegressor(n_estimators=20, max_depth=3, random_state=0)  # noqa: E731
    reference = make().fit(X, y, sample_weight=w)
    for factor in FACTORS:
        scaled = make().fit(X, y, sample_weight=w * factor)
        np.testing.assert_allclose(scaled.predict(X), reference.predict(X), rtol=1e-7, atol=1e-9)


def test_bagged_c45_member_sees_its_sample_as_cases():
    # With the weights of a bootstrap sample read as case counts, a C4.5 member
    # grows the tree C4.5 grows on that sample written out row by row, however
    # small the user's weights (sum 1 here: min_cases=2 would stop every split).
    X, y, _ = _classification()
    weights = np.full(len(y), 1.0 / len(y))
    model = BaggingClassifier(C45Classifier(), n_estimators=3, random_state=0).fit(
        X, y, sample_weight=weights
    )
    for member, rows in zip(model.estimators_, model.estimators_samples_, strict=True):
        alone = C45Classifier().fit(X[rows], y[rows])
        assert member.tree_.node_count == alone.tree_.node_count > 1
        np.testing.assert_allclose(member.predict_proba(X), alone.predict_proba(X), atol=1e-12)


# --------------------------------------------------- bit-identical or same trees
def _report_table(classification: bool):
    """The reliability report's invariance data: 300 x 6 normal X, weights in [0.5, 2]."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 6))
    y = X[:, 0] + 0.5 * X[:, 1] ** 2 + 0.1 * rng.normal(size=300)
    w = rng.uniform(0.5, 2.0, 300)
    return X, (y > np.median(y)).astype(int) if classification else y, w


SCALED = {
    "cart_classifier": (lambda: CARTClassifier(), True),
    "cart_regressor": (lambda: CARTRegressor(), False),
    "forest_classifier": (lambda: RandomForestClassifier(n_estimators=10, random_state=0), True),
    "forest_regressor": (lambda: RandomForestRegressor(n_estimators=10, random_state=0), False),
    "forest_regressor_sqrt": (
        lambda: RandomForestRegressor(n_estimators=10, max_features="sqrt", random_state=0),
        False,
    ),
    "bagging_classifier": (lambda: BaggingClassifier(n_estimators=10, random_state=0), True),
    "bagging_regressor": (lambda: BaggingRegressor(n_estimators=10, random_state=0), False),
    "adaboost": (lambda: AdaBoostClassifier(n_estimators=10, random_state=0), True),
    "gradient_boosting_classifier": (
        lambda: GradientBoostingClassifier(n_estimators=10, max_depth=3, random_state=0),
        True,
    ),
    "gradient_boosting_regressor": (
        lambda: GradientBoostingRegressor(n_estimators=10, max_depth=3, random_state=0),
        False,
    ),
}


def _trees(model):
    if hasattr(model, "tree_"):
        return [model.tree_]
    return [member.tree_ for member in np.ravel(model.estimators_)]


def _outputs(model, X):
    return model.predict_proba(X) if hasattr(model, "predict_proba") else model.predict(X)


@pytest.mark.parametrize("name", sorted(SCALED))
def test_power_of_two_factors_give_bit_identical_models(name):
    make, classification = SCALED[name]
    X, y, w = _report_table(classification)
    reference = make().fit(X, y, sample_weight=w)
    for factor in (2.0, 0.25, 2.0**-20, 2.0**30):
        scaled = make().fit(X, y, sample_weight=w * factor)
        np.testing.assert_array_equal(_outputs(scaled, X), _outputs(reference, X))
        for a, b in zip(_trees(scaled), _trees(reference), strict=True):
            np.testing.assert_array_equal(a.feature, b.feature)
            np.testing.assert_array_equal(a.threshold, b.threshold)
            np.testing.assert_array_equal(a.value, b.value)


@pytest.mark.parametrize("name", sorted(SCALED))
def test_other_factors_give_the_same_trees_and_outputs_to_1e_12(name):
    make, classification = SCALED[name]
    X, y, w = _report_table(classification)
    reference = make().fit(X, y, sample_weight=w)
    for factor in (7.0, 3.0, 0.1, 1e-3, 1e3):
        scaled = make().fit(X, y, sample_weight=w * factor)
        for a, b in zip(_trees(scaled), _trees(reference), strict=True):
            np.testing.assert_array_equal(a.feature, b.feature, err_msg=f"x{factor}")
            np.testing.assert_array_equal(a.threshold, b.threshold, err_msg=f"x{factor}")
        np.testing.assert_allclose(
            _outputs(scaled, X), _outputs(reference, X), rtol=1e-12, atol=1e-12
        )
