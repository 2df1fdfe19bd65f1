"""AdaBoost (chapter 11): the derivation's identities, scikit-learn's SAMME, ESL 10.1.

The identities are checked from the outside: the test re-runs the weight
recursion of the book (:eq:`eq-ch11-weight-update` with alpha = 1/2
ln((1-eps)/eps)) on the fitted stumps and compares it with what the
estimator recorded, which it computed with SAMME's form of the update.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy.optimize import minimize_scalar
from sklearn import datasets
from sklearn.base import clone
from sklearn.ensemble import AdaBoostClassifier as SkAdaBoost
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.tree import DecisionTreeClassifier as SkTree

from mltrees import AdaBoostClassifier, C45Classifier, CARTClassifier
from mltrees.ensemble.adaboost import samme_alpha, samme_weight_update


def _binary(seed=0, n=300):
    X, y = datasets.make_classification(
        n_samples=n, n_features=5, n_informative=3, n_redundant=0, random_state=seed
    )
    return X.astype(np.float32).astype(np.float64), y


def test_alpha_formula_minimises_the_exponential_loss():
    rng = np.random.default_rng(0)
    for _ in range(20):
        n = 50
        y = rng.choice([-1.0, 1.0], size=n)
        h = np.where(rng.random(n) < 0.7, y, -y)  # a weak classifier, ~30% wrong
        w = rng.dirichlet(np.ones(n))
        eps = float(w[h != y].sum())
        brute = minimize_scalar(
            lambda a, y=y, h=h, w=w: np.sum(w * np.exp(-a * y * h)),
            bounds=(-10, 10),
            method="bounded",
            options={"xatol": 1e-12},
        ).x
        assert 0.5 * np.log((1 - eps) / eps) == pytest.approx(brute, abs=1e-6)
        # SAMME's vote for two classes is twice the book's alpha.
        assert samme_alpha(eps, 2) == pytest.approx(2 * brute, abs=2e-6)


def test_weight_update_identity_and_training_error_bound():
    X, y = _binary(1)
    model = AdaBoostClassifier(n_estimators=30).fit(X, y)
    s = 2.0 * y - 1.0
    w = np.full(len(y), 1.0 / len(y))
    score = np.zeros(len(y))
    bound = 1.0
    staged = list(model.staged_predict(X))
    for m, stump in enumerate(model.estimators_):
        h = 2.0 * stump.predict(X) - 1.0
        eps = float(w[h != s].sum())
        assert eps == pytest.approx(model.estimator_errors_[m], rel=1e-9, abs=1e-12)
        alpha = 0.5 * np.log((1 - eps) / eps)
        assert model.estimator_weights_[m] == pytest.approx(2 * alpha, rel=1e-9)
        unnormalised = w * np.exp(-alpha * s * h)
        z = unnormalised.sum()
        assert z == pytest.approx(2.0 * np.sqrt(eps * (1.0 - eps)), rel=1e-9)
        w = unnormalised / z
        score += alpha * h
        # The recursion unrolled: w_{m+1} = exp(-y F_m) / (n prod Z).
        bound *= z
        np.testing.assert_allclose(w, np.exp(-s * score) / (len(y) * bound), rtol=1e-8)
        # The training error never exceeds prod_m Z_m = prod 2 sqrt(eps (1 - eps)).
        train_error = float(np.mean(staged[m] != y))
        assert train_error <= bound + 1e-12
        assert np.array_equal(staged[m], np.where(score > 0, 1, 0))
    # SAMME's update in the package gives the same normalised weights.
    weights, z = samme_weight_update(np.full(4, 0.25), np.array([1, 0, 0, 0]), np.log(3.0))
    np.testing.assert_allclose(weights, [0.5, 1 / 6, 1 / 6, 1 / 6])
    assert z == pytest.approx(1.5)


def _sklearn_if_seed_invariant(X, y, n_estimators):
    """sklearn's SAMME model if its predictions do not depend on random_state (ties)."""
    models = [
        SkAdaBoost(SkTree(max_depth=1), n_estimators=n_estimators, random_state=s).fit(X, y)
        for s in range(4)
    ]
    first = models[0].predict(X)
    if all(np.array_equal(first, m.predict(X)) for m in models[1:]):
        return models[0]
    return None


@pytest.mark.parametrize(
    "name", ["breast_cancer", "iris", "wine", "classification", "three_classes"]
)
def test_samme_stumps_reproduce_sklearn(name):
    if name == "classification":
        X, y = _binary(2, 400)
    elif name == "three_classes":
        X, y = datasets.make_classification(
            400, 6, n_informative=4, n_redundant=0, n_classes=3, random_state=3
        )
    else:
        X, y = getattr(datasets, f"load_{name}")(return_X_y=True)
    # sklearn thresholds float32 copies of X; float32-representable data remove that difference.
    X = X.astype(np.float32).astype(np.float64)
    reference = _sklearn_if_seed_invariant(X, y, 60)
    if reference is None:
        pytest.skip("sklearn's stumps depend on its random feature order here (ties)")
    ours = AdaBoostClassifier(n_estimators=60).fit(X, y)
    assert len(ours.estimators_) == len(reference.estimators_)
    np.testing.assert_allclose(
        ours.estimator_weights_, reference.estimator_weights_[: len(ours.estimators_)], rtol=1e-9
    )
    np.testing.assert_array_equal(ours.predict(X), reference.predict(X))
    np.testing.assert_allclose(ours.decision_function(X), reference.decision_function(X), atol=1e-9)
    np.testing.assert_allclose(ours.predict_proba(X), reference.predict_proba(X), atol=1e-9)


def _esl_10_1(seed, n_train=2000, n_test=10000):
    """ESL (Hastie et al. 2009) eq. 10.2: y = 1 iff sum of ten squared N(0,1) > 9.34."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n_train + n_test, 10))
    y = np.where((X**2).sum(axis=1) > 9.34, 1, -1)
    return X[:n_train], y[:n_train], X[n_train:], y[n_train:]


def test_esl_10_1_stump_error():
    # Published: 45.8%. One stump's test error on 10,000 rows has a sampling sd of
    # 0.5 points, and the stump itself varies with the training sample: seeds 0-5
    # gave 45.5-47.1% when this test was written, so a band of +-2 points.
    errors = []
    for seed in range(3):
        X, y, X_test, y_test = _esl_10_1(seed)
        stump = CARTClassifier(max_depth=1).fit(X, y)
        errors.append(np.mean(stump.predict(X_test) != y_test))
    assert 0.438 <= np.mean(errors) <= 0.478


def test_esl_10_1_real_adaboost_400_stumps():
    # Published 5.8% for boosted stumps after 400 rounds; Real AdaBoost is the
    # variant that reaches it (reference-libraries.md: 5.4-5.5%). Seeds 0-5 gave
    # 4.8-5.6% (sd 0.3 points), so each seed must lie in 5.8 +- 1.5 points and
    # the mean of three in 5.8 +- 1 point.
    errors = []
    for seed in range(3):
        X, y, X_test, y_test = _esl_10_1(seed)
        model = AdaBoostClassifier(n_estimators=400, algorithm="real").fit(X, y)
        errors.append(np.mean(model.predict(X_test) != y_test))
    assert all(0.043 <= e <= 0.073 for e in errors), errors
    assert 0.048 <= np.mean(errors) <= 0.068


def test_esl_10_1_discrete_samme_400_stumps():
    # Discrete AdaBoost (SAMME) stays far above 5.8% after 400 rounds: sklearn's
    # SAMME measured 10.9-12.3% over five seeds. Band 9-15% per seed.
    for seed in range(2):
        X, y, X_test, y_test = _esl_10_1(seed)
        model = AdaBoostClassifier(n_estimators=400).fit(X, y)
        error = np.mean(model.predict(X_test) != y_test)
        assert 0.09 <= error <= 0.15, error


def test_zero_error_stops_with_vote_one():
    X = np.array([[0.0], [1.0], [2.0], [3.0]])
    y = np.array([0, 0, 1, 1])
    model = AdaBoostClassifier(n_estimators=10).fit(X, y)
    assert len(model.estimators_) == 1
    assert model.estimator_weights_.tolist() == [1.0]
    assert model.estimator_errors_.tolist() == [0.0]
    np.testing.assert_array_equal(model.predict(X), y)
    reference = SkAdaBoost(SkTree(max_depth=1), n_estimators=10).fit(X, y)
    assert len(reference.estimators_) == 1


def test_worse_than_chance_is_an_error_in_the_first_round():
    # Identical rows with different labels: the best stump cannot beat 1 - 1/K.
    X = np.zeros((4, 1))
    y = np.array([0, 1, 0, 1])
    with pytest.raises(ValueError, match="no better than chance"):
        AdaBoostClassifier().fit(X, y)


def test_real_adaboost_binary_scores_are_half_log_odds():
    X, y = _binary(4)
    model = AdaBoostClassifier(n_estimators=1, algorithm="real").fit(X, y)
    stump = model.estimators_[0]
    p = stump.predict_proba(X)[:, 1]
    # For two classes the decision function is log(p1/p0) = 2 * (1/2 log-odds).
    np.testing.assert_allclose(model.decision_function(X), np.log(p / (1 - p)), rtol=1e-12)


def test_generic_weak_learner_gives_the_same_model():
    X, y = _binary(5)
    native = AdaBoostClassifier(n_estimators=20).fit(X, y)
    generic = AdaBoostClassifier(SkTree(max_depth=1), n_estimators=20).fit(X, y)
    np.testing.assert_array_equal(native.predict(X), generic.predict(X))
    np.testing.assert_allclose(native.estimator_weights_, generic.estimator_weights_, rtol=1e-9)


def test_staged_predict_ends_at_predict_and_importances():
    X, y = _binary(6)
    model = AdaBoostClassifier(n_estimators=15, algorithm="real").fit(X, y)
    staged = list(model.staged_predict_proba(X))
    assert len(staged) == len(model.estimators_)
    np.testing.assert_allclose(staged[-1], model.predict_proba(X), rtol=1e-12)
    assert model.feature_importances_.sum() == pytest.approx(1.0)


def test_sklearn_api():
    X, y = _binary(7)
    model = make_pipeline(StandardScaler(), AdaBoostClassifier(n_estimators=5))
    assert model.fit(X, y).score(X, y) > 0.7
    assert clone(AdaBoostClassifier(n_estimators=7)).get_params()["n_estimators"] == 7


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"algorithm": "SAMME.R"}, "algorithm"),
        ({"n_estimators": 0}, "n_estimators"),
        ({"learning_rate": 0.0}, "learning_rate"),
    ],
)
def test_bad_parameters(params, message):
    X, y = _binary(8)
    with pytest.raises(ValueError, match=message):
        AdaBoostClassifier(**params).fit(X, y)


def test_bad_input():
    X, y = _binary(9)
    stump = CARTClassifier(max_depth=1, missing="error")
    with pytest.raises(ValueError, match="NaN"):
        AdaBoostClassifier(stump).fit(np.where(X > 1, np.nan, X), y)
    with pytest.raises(ValueError, match="samples"):
        AdaBoostClassifier().fit(X, y[:-1])
    with pytest.raises(ValueError, match="negative"):
        AdaBoostClassifier().fit(X, y, sample_weight=-np.ones(len(y)))
    model = AdaBoostClassifier(n_estimators=3).fit(X, y)
    with pytest.raises(ValueError, match="features"):
        model.predict(X[:, :3])
    with pytest.raises(ValueError, match="inf"):
        model.predict(np.where(X > 1, np.inf, X))


def _breast_cancer_300():
    X, y = datasets.load_breast_cancer(return_X_y=True)
    return X[:300], y[:300]


def test_c45_weak_learner_is_the_tree_c45_grows_with_those_weights():
    # C4.5's min_cases reads weights as case counts (as J48 does). Each member
    # must be the tree C45Classifier grows from the round's distribution scaled
    # to sum to n: the first round's equal weights are the unweighted fit, the
    # second's follow from the book's update (eq-ch11-weight-update). With the
    # distribution summing to 1 every member was a single leaf (training
    # accuracy 0.51 here).
    X, y = _breast_cancer_300()
    model = AdaBoostClassifier(C45Classifier(), n_estimators=5, random_state=0).fit(X, y)
    first, second = model.estimators_[:2]
    alone = C45Classifier().fit(X, y)
    assert first.tree_.node_count == alone.tree_.node_count > 1
    np.testing.assert_array_equal(first.predict_proba(X), alone.predict_proba(X))
    wrong = first.predict(X) != y
    eps = wrong.mean()
    w = np.where(wrong, (1 - eps) / eps, 1.0)  # e^alpha on the misclassified rows
    w *= len(y) / w.sum()
    again = C45Classifier().fit(X, y, sample_weight=w)
    assert second.tree_.node_count == again.tree_.node_count
    np.testing.assert_allclose(second.predict_proba(X), again.predict_proba(X), atol=1e-12)
    assert model.score(X, y) > 0.95


def _with_nan(seed=0, rate=0.15):
    X, y = _breast_cancer_300()
    rng = np.random.default_rng(seed)
    X = X.copy()
    X[rng.random(X.shape) < rate] = np.nan
    return X, y


@pytest.mark.parametrize(
    "weak",
    [
        C45Classifier(),
        C45Classifier(pruning=None, max_depth=3),
        CARTClassifier(max_depth=2, missing="default_direction"),
        CARTClassifier(max_depth=2, missing="c45"),
    ],
    ids=["c45", "c45_depth3", "cart_default_direction", "cart_c45"],
)
@pytest.mark.parametrize("algorithm", ["SAMME", "real"])
def test_missing_values_pass_through_to_a_weak_learner_that_handles_them(weak, algorithm):
    X, y = _with_nan()
    model = AdaBoostClassifier(weak, n_estimators=6, algorithm=algorithm, random_state=0)
    assert model.__sklearn_tags__().input_tags.allow_nan
    model.fit(X, y)
    assert len(model.estimators_) > 1
    # The first member is the learner's own fit on the same rows (NaN included).
    alone = clone(weak).fit(X, y)
    np.testing.assert_allclose(model.estimators_[0].predict_proba(X), alone.predict_proba(X))
    # The ensemble's scores are the members' own predictions, voted: SAMME
    # adds alpha_m to the class a member predicts and -alpha_m to the other
    # (the decision is class 1's score minus class 0's, as in scikit-learn);
    # real adds log(p1 / p0) of the member's probabilities.
    X_new, _ = _with_nan(seed=1, rate=0.3)
    score = np.zeros(len(X_new))
    for member, vote in zip(model.estimators_, model.estimator_weights_, strict=True):
        if algorithm == "SAMME":
            score += 2 * vote * np.where(member.predict(X_new) == 1, 1.0, -1.0)
        else:
            p = np.clip(member.predict_proba(X_new), np.finfo(float).eps, None)
            score += np.log(p[:, 1] / p[:, 0])
    total = model.estimator_weights_.sum() if algorithm == "SAMME" else 1.0
    np.testing.assert_allclose(model.decision_function(X_new), score / total, atol=1e-9)
    np.testing.assert_array_equal(model.predict(X_new), np.where(score > 0, 1, 0))
    staged = list(model.staged_decision_function(X_new))
    np.testing.assert_allclose(staged[-1], model.decision_function(X_new), atol=1e-12)


def test_nan_is_refused_when_the_weak_learner_refuses_it():
    X, y = _with_nan()
    model = AdaBoostClassifier(CARTClassifier(max_depth=1, missing="error"))
    assert not model.__sklearn_tags__().input_tags.allow_nan
    with pytest.raises(ValueError, match="NaN"):
        model.fit(X, y)
    fitted = AdaBoostClassifier(model.estimator, n_estimators=3).fit(np.nan_to_num(X), y)
    with pytest.raises(ValueError, match="missing values"):
        fitted.predict(X)


def test_verbose_reports_rounds_on_stdout_and_is_silent_by_default(capsys):
    X, y = datasets.make_classification(n_samples=120, random_state=0)
    AdaBoostClassifier(n_estimators=4).fit(X, y)
    assert capsys.readouterr() == ("", "")
    AdaBoostClassifier(n_estimators=4, verbose=2).fit(X, y)
    captured = capsys.readouterr()
    assert captured.err == ""
    lines = captured.out.splitlines()
    assert [line.split()[2] for line in lines] == ["2/4", "4/4"]
    with pytest.raises(ValueError, match="verbose must be an int >= 0"):
        AdaBoostClassifier(verbose=-1).fit(X, y)
