"""LogitBoost as Newton's method on the binomial log-likelihood (chapter 11).

The expected values come from the log-likelihood itself (finite differences,
a scalar optimiser, per-leaf sums written out with pandas), never from the
code under test.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy.optimize import minimize_scalar
from sklearn.datasets import load_breast_cancer, make_classification
from sklearn.metrics import log_loss

from mltrees.ensemble.logitboost import LogitBoostClassifier, logitboost_working_response


def _log_likelihood(y, score):
    """Binomial log-likelihood with p = 1 / (1 + exp(-2F))."""
    p = 1.0 / (1.0 + np.exp(-2.0 * score))
    return np.sum(y * np.log(p) + (1 - y) * np.log(1 - p))


def test_working_response_is_a_newton_step_in_the_score():
    """For a constant update F + f/2, the weighted mean of z is the Newton step of the
    log-likelihood in f, from its first and second derivatives (finite differences)."""
    rng = np.random.default_rng(0)
    y = (rng.random(50) < 0.4).astype(float)
    score = rng.normal(scale=0.5, size=50)
    z, w = logitboost_working_response(y, score, z_max=np.inf)

    def ll(f):
        return _log_likelihood(y, score + 0.5 * f)

    h = 1e-4
    first = (ll(h) - ll(-h)) / (2 * h)
    second = (ll(h) - 2 * ll(0.0) + ll(-h)) / h**2
    assert np.sum(w * z) / np.sum(w) == pytest.approx(-first / second, rel=1e-6)


def test_quadratic_expansion_is_the_weighted_least_squares_objective():
    """ll(F + f/2) = ll(F) + sum((y - p) f) - 1/2 sum(p (1 - p) f^2) + O(f^3), and the
    quadratic equals const - 1/2 sum w (z - f)^2: both sides differ by a constant."""
    rng = np.random.default_rng(1)
    y = (rng.random(30) < 0.5).astype(float)
    score = rng.normal(scale=0.3, size=30)
    z, w = logitboost_working_response(y, score, z_max=np.inf)
    gaps = []
    for _ in range(5):
        f = rng.normal(scale=1e-3, size=30)
        change = _log_likelihood(y, score + 0.5 * f) - _log_likelihood(y, score)
        gaps.append(change + 0.5 * np.sum(w * (z - f) ** 2))
    assert np.ptp(gaps) < 1e-8


def test_one_round_with_stumps_takes_the_leafwise_newton_step():
    """After one round, twice the score change on each leaf is
    sum(y - p) / sum p (1 - p) over the leaf, with p = 1/2."""
    X, y = load_breast_cancer(return_X_y=True)
    model = LogitBoostClassifier(n_estimators=1, z_max=np.inf).fit(X, y)
    leaf = model.estimators_[0].apply(X)
    frame = pd.DataFrame({"leaf": leaf, "numerator": y - 0.5, "denominator": 0.25})
    sums = frame.groupby("leaf").sum()
    expected = (sums["numerator"] / sums["denominator"]).reindex(leaf).to_numpy()
    np.testing.assert_allclose(2 * model.decision_function(X), expected, rtol=1e-10)


def test_rounds_of_a_constant_converge_to_the_maximum_likelihood():
    """With depth-1 trees on a constant feature every round is one Newton step on a
    constant; the score converges to half the log-odds of the class-1 share."""
    y = np.array([1] * 30 + [0] * 70)
    X = np.zeros((100, 1))
    model = LogitBoostClassifier(n_estimators=8).fit(X, y)
    best = minimize_scalar(lambda c: -_log_likelihood(y, np.full(100, c))).x
    assert model.decision_function(X[:1])[0] == pytest.approx(best, abs=1e-7)
    assert best == pytest.approx(0.5 * np.log(0.3 / 0.7), abs=1e-6)


def test_integer_weights_equal_repeated_rows():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(40, 3))
    y = (X[:, 0] + rng.normal(size=40) > 0).astype(int)
    counts = rng.integers(1, 4, 40)
    weighted = LogitBoostClassifier(n_estimators=5).fit(X, y, sample_weight=counts)
    repeated = LogitBoostClassifier(n_estimators=5).fit(
        np.repeat(X, counts, axis=0), np.repeat(y, counts)
    )
    np.testing.assert_allclose(weighted.decision_function(X), repeated.decision_function(X))


def test_labels_are_returned_in_the_callers_classes():
    X = np.array([[0.0], [1.0], [2.0], [3.0]])
    y = np.array(["no", "no", "yes", "yes"])
    model = LogitBoostClassifier(n_estimators=3).fit(X, y)
    assert list(model.predict(X)) == ["no", "no", "yes", "yes"]
    assert (model.predict_proba(X)[:, 1] > 0.5).tolist() == [False, False, True, True]


def test_z_is_clipped():
    z, w = logitboost_working_response(np.array([1.0, 0.0]), np.array([-5.0, 5.0]), z_max=3.0)
    assert z.tolist() == [3.0, -3.0]
    assert (w > 0).all()


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"n_estimators": 0}, "n_estimators must be an int >= 1"),
        ({"max_depth": 0}, "max_depth must be an int >= 1"),
        ({"z_max": 0.0}, "z_max must be a positive float"),
    ],
)
def test_bad_parameters_are_named(params, message):
    X, y = np.zeros((4, 1)), np.array([0, 1, 0, 1])
    with pytest.raises(ValueError, match=message):
        LogitBoostClassifier(**params).fit(X, y)


def test_more_than_two_classes_is_refused():
    with pytest.raises(ValueError, match="exactly 2 classes"):
        LogitBoostClassifier().fit(np.zeros((3, 1)), np.array([0, 1, 2]))


def test_working_response_checks_its_input():
    with pytest.raises(ValueError, match="0/1 labels"):
        logitboost_working_response(np.array([2.0]), np.array([0.0]))
    with pytest.raises(ValueError, match="same length"):
        logitboost_working_response(np.array([1.0]), np.array([0.0, 1.0]))


def test_verbose_prints_the_training_log_loss_and_is_silent_by_default(capsys):
    X, y = make_classification(n_samples=120, random_state=0)
    LogitBoostClassifier(n_estimators=4).fit(X, y)
    assert capsys.readouterr() == ("", "")
    model = LogitBoostClassifier(n_estimators=4, verbose=2).fit(X, y)
    captured = capsys.readouterr()
    assert captured.err == ""
    lines = captured.out.splitlines()
    assert [line.split()[2] for line in lines] == ["2/4", "4/4"]
    printed = float(lines[-1].split()[5])
    assert abs(printed - log_loss(y, model.predict_proba(X))) < 1e-5
