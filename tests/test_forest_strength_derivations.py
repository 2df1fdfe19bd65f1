"""Breiman's strength, correlation and bound (chapter 10, eq-forest-bound).

Expected values come from a hand computation, from the definitions evaluated
by plain loops over rows and pairs of members, and from the inequalities of
the derivation, never from the function under test.
"""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer

from mltrees import RandomForestClassifier
from mltrees.ensemble.margins import strength_correlation


def test_hand_computed_example():
    """Three members, four rows, two classes.

    Margins 1, 1/3, 1/3, -1/3: s = 1/3, var(mr) = 1/3 - 1/9 = 2/9. Members'
    (p1, p2) = (1/2, 1/2), (1/2, 1/2), (1, 0), so sd = 1, 1, 0, mean 2/3, and
    rho_bar = (2/9) / (4/9) = 1/2; bound = 1/2 * (8/9) / (1/9) = 4; error 1/4.
    """
    votes = np.array([[1, 0, 1, 0], [1, 1, 0, 0], [1, 0, 0, 1]])
    y = np.array([1, 0, 0, 1])
    result = strength_correlation(votes, y)
    assert result.strength == pytest.approx(1 / 3)
    assert result.margin_variance == pytest.approx(2 / 9)
    assert result.mean_sd == pytest.approx(2 / 3)
    assert result.correlation == pytest.approx(1 / 2)
    assert result.bound == pytest.approx(4.0)
    assert result.error == pytest.approx(1 / 4)
    assert result.n_rows == 4


def _by_definition(votes, y, n_classes):
    """s and rho_bar from the definitions: loops over rows, then over pairs of members."""
    n_members, n_rows = votes.shape
    margin, j_hat = np.empty(n_rows), np.empty(n_rows, dtype=int)
    for i in range(n_rows):
        share = [np.mean(votes[:, i] == k) for k in range(n_classes)]
        wrong = [k for k in range(n_classes) if k != y[i]]
        j_hat[i] = max(wrong, key=lambda k: (share[k], -k))
        margin[i] = share[y[i]] - share[j_hat[i]]
    raw = (votes == y).astype(float) - (votes == j_hat).astype(float)  # eq-forest-raw-margin
    mean = raw.mean(axis=1)
    sd = raw.std(axis=1)
    covariance_sum, sd_product_sum = 0.0, 0.0
    for t in range(n_members):  # every ordered pair, t == u included (Theta, Theta' i.i.d.)
        for u in range(n_members):
            covariance_sum += np.mean((raw[t] - mean[t]) * (raw[u] - mean[u]))
            sd_product_sum += sd[t] * sd[u]
    return margin.mean(), covariance_sum / sd_product_sum, margin


@pytest.mark.parametrize("n_classes", [2, 3, 5])
def test_correlation_is_the_weighted_mean_of_pairwise_correlations(n_classes):
    rng = np.random.default_rng(n_classes)
    y = rng.integers(0, n_classes, 60)
    right = rng.random((25, 60)) < 0.7
    votes = np.where(right, y, rng.integers(0, n_classes, (25, 60)))
    strength, rho_bar, margin = _by_definition(votes, y, n_classes)
    result = strength_correlation(votes, y, n_classes=n_classes)
    assert result.strength == pytest.approx(strength, abs=1e-12)
    assert result.correlation == pytest.approx(rho_bar, rel=1e-12)
    assert result.error == pytest.approx(np.mean(margin < 0))


@pytest.mark.parametrize("seed", range(20))
def test_the_chain_of_inequalities_holds_on_any_ensemble(seed):
    """PE <= var/s^2 (Chebyshev) <= rho_bar (1 - s^2)/s^2 for the empirical distribution."""
    rng = np.random.default_rng(seed)
    n_classes = int(rng.integers(2, 5))
    y = rng.integers(0, n_classes, 80)
    accuracy = rng.uniform(0.55, 0.95, size=(15, 1))
    votes = np.where(rng.random((15, 80)) < accuracy, y, rng.integers(0, n_classes, (15, 80)))
    result = strength_correlation(votes, y, n_classes=n_classes)
    assert result.strength > 0
    chebyshev = result.margin_variance / result.strength**2
    assert result.error <= chebyshev + 1e-12
    assert chebyshev <= result.bound + 1e-12


def test_mask_selects_the_votes_that_count():
    rng = np.random.default_rng(0)
    y = rng.integers(0, 3, 30)
    votes = rng.integers(0, 3, (9, 30))
    full = strength_correlation(votes, y, np.ones(votes.shape, dtype=bool))
    assert full == strength_correlation(votes, y)
    mask = rng.random(votes.shape) < 0.4
    mask[:, 0] = False  # row 0 is in every bag: it gets no vote and is left out
    result = strength_correlation(votes, y, mask)
    assert result.n_rows == 29
    # Row by row, the margin from the counted votes only.
    margins = []
    for i in range(1, 30):
        counted = votes[mask[:, i], i]
        share = np.bincount(counted, minlength=3) / counted.size
        margins.append(share[y[i]] - max(share[k] for k in range(3) if k != y[i]))
    assert result.strength == pytest.approx(np.mean(margins), abs=1e-12)


def test_a_random_forest_obeys_the_bound_on_held_out_rows():
    X, y = load_breast_cancer(return_X_y=True)
    forest = RandomForestClassifier(n_estimators=31, random_state=0).fit(X[::2], y[::2])
    votes = np.array([member.predict(X[1::2]) for member in forest.estimators_]).astype(int)
    result = strength_correlation(votes, y[1::2])
    # With an odd number of trees and two classes no margin is 0: PE is the test error.
    assert result.error == pytest.approx(np.mean(forest.predict(X[1::2]) != y[1::2]))
    assert result.error <= result.margin_variance / result.strength**2 <= result.bound
    assert 0 < result.correlation < 1


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"votes": np.zeros((2, 3)), "y": np.zeros(3, dtype=int)}, "votes must be a 2-d integer"),
        ({"votes": np.zeros((2, 3), dtype=int), "y": np.zeros(4, dtype=int)}, "y must be a 1-d"),
        (
            {"votes": np.full((2, 3), 5), "y": np.zeros(3, dtype=int), "n_classes": 3},
            "votes must hold",
        ),
        (
            {
                "votes": np.zeros((2, 3), dtype=int),
                "y": np.zeros(3, dtype=int),
                "mask": np.ones((3, 2), dtype=bool),
            },
            "mask must be a boolean",
        ),
        (
            {
                "votes": np.zeros((2, 3), dtype=int),
                "y": np.zeros(3, dtype=int),
                "mask": np.zeros((2, 3), dtype=bool),
            },
            "no row received a vote",
        ),
    ],
)
def test_bad_input_is_named(kwargs, message):
    with pytest.raises(ValueError, match=message):
        strength_correlation(**kwargs)


def test_n_classes_must_be_an_int():
    with pytest.raises(TypeError, match="n_classes must be an int"):
        strength_correlation(np.zeros((2, 3), dtype=int), np.zeros(3, dtype=int), n_classes=2.5)
