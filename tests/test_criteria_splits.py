"""Split criteria of chapter 3: identities, brute force, and the engine's choices."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest

from mltrees import CARTClassifier, CARTRegressor, gini
from mltrees.criteria import (
    best_bipartition,
    gain_ratio,
    gini_index,
    information_gain,
    intrinsic_value,
    m_estimate,
    select_by_gain_ratio,
)
from mltrees.information import entropy

rng = np.random.default_rng(0)


def test_gain_ratio_is_gain_over_intrinsic_value_batched():
    tables = rng.integers(0, 9, size=(500, 4, 3))
    tables[:, :, 0] += 1  # every branch non-empty
    expected = information_gain(tables) / intrinsic_value(tables)
    np.testing.assert_allclose(gain_ratio(tables), expected, rtol=1e-12)


def test_gini_index_is_weighted_gini_of_branches():
    tables = rng.integers(1, 9, size=(200, 3, 2)).astype(float)
    weights = tables.sum(axis=2) / tables.sum(axis=(1, 2))[:, None]
    expected = (weights * gini(tables, counts=True)).sum(axis=1)
    np.testing.assert_allclose(gini_index(tables, counts=True), expected, rtol=1e-12)


def test_single_branch_split_has_zero_gain_ratio():
    assert gain_ratio([[3, 5]]) == 0.0
    assert information_gain([[3, 5]]) == 0.0


def test_select_by_gain_ratio_prefers_above_average_gain():
    # Candidate 2 has the best ratio but a below-average gain, so C4.5 skips it.
    gains = [0.30, 0.25, 0.05]
    ratios = [0.20, 0.28, 0.90]
    assert select_by_gain_ratio(gains, ratios) == 1
    assert select_by_gain_ratio([[0.3, 0.1], [0.1, 0.3]], [[0.1, 0.9], [0.9, 0.1]]).tolist() == [
        0,
        1,
    ]


def test_best_bipartition_matches_brute_force():
    for _ in range(20):
        values = rng.integers(0, 12, 40).astype(float)
        y = rng.integers(0, 3, 40)
        threshold, gain = best_bipartition(values, y)
        distinct = np.unique(values)
        brute = [
            information_gain(pd.crosstab(values <= t, y).to_numpy())
            for t in (distinct[:-1] + distinct[1:]) / 2
        ]
        assert gain == pytest.approx(max(brute), abs=1e-12)
        assert threshold == pytest.approx(((distinct[:-1] + distinct[1:]) / 2)[np.argmax(brute)])


def test_best_bipartition_breaks_rounding_ties_as_the_engine_does():
    # Mirrored data (x -> -x with the classes swapped): the cuts at -t and t have
    # the same gain, up to rounding. Both the function and the tree take the
    # smaller threshold; an exact argmax takes the larger one on some seeds.
    for seed in range(120):
        rng = np.random.default_rng(seed)
        a = np.sort(rng.choice(np.arange(1, 50), size=6, replace=False)) / 7
        ya, w = rng.integers(0, 2, size=6), rng.uniform(0.1, 1, size=6)
        values = np.concatenate([-a[::-1], a])
        y = np.concatenate([1 - ya[::-1], ya])
        weight = np.concatenate([w[::-1], w])
        threshold, _ = best_bipartition(values, y, sample_weight=weight)
        tree = CARTClassifier(criterion="entropy", max_depth=1)
        tree.fit(values[:, None], y, sample_weight=weight)
        assert threshold == tree.tree_.threshold[0], seed


def test_select_by_gain_ratio_treats_rounding_noise_as_a_tie():
    from mltrees.tree._split import _select

    gains = np.array([[0.3, 0.1, 0.2 * (1 + 1e-14)]])  # the average is 0.2, reached by both
    ratios = np.array([[0.5, 0.9, 0.5 * (1 + 1e-13)]])
    assert select_by_gain_ratio(gains[0], ratios[0]) == 0  # not the later, noisier ratio
    assert select_by_gain_ratio(gains, ratios, impurity=[1.0]).tolist() == [0]
    assert _select(gains, ratios, "c45", np.array([1e-10])).tolist() == [0]
    # A third candidate just below the average by rounding is still eligible:
    gains = np.array([0.3, 0.1, 0.2 * (1 - 1e-14)])
    ratios = np.array([0.1, 0.9, 0.5])
    assert select_by_gain_ratio(gains, ratios) == 2
    assert _select(gains[None], ratios[None], "c45", np.array([1e-10])).tolist() == [2]


def test_best_bipartition_constant_attribute():
    threshold, gain = best_bipartition([1.0, 1.0, 1.0], [0, 1, 0])
    assert np.isnan(threshold)
    assert gain == 0.0


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: information_gain([3, 5]), "at least 2 axes"),
        (lambda: gain_ratio([[0.2, 0.2], [0.2, 0.2]]), "sum to 1"),
        (lambda: gini_index([[-1, 2], [3, 4]]), "negative"),
        (lambda: select_by_gain_ratio([0.1, 0.2], [0.1]), "same non-empty shape"),
        (lambda: select_by_gain_ratio([np.nan], [0.1]), "finite"),
        (lambda: best_bipartition([1.0, np.nan], [0, 1]), "NaN"),
        (lambda: best_bipartition([1.0, 2.0], [0, 1, 1]), "same length"),
        (lambda: best_bipartition([1.0, 2.0], [0, 1], criterion="bogus"), "criterion"),
    ],
)
def test_bad_input(call, match):
    with pytest.raises(ValueError, match=match):
        call()


# --- Breiman's theorem: category subsets ordered by class-1 share / mean --------------


def _all_subset_scores(table: np.ndarray) -> tuple[float, frozenset]:
    """Best two-way partition of the rows of a (categories, 2) count table, by brute force."""
    n_categories = table.shape[0]
    best = (np.inf, frozenset())
    for size in range(1, n_categories):
        for left in itertools.combinations(range(n_categories), size):
            mask = np.zeros(n_categories, bool)
            mask[list(left)] = True
            split = np.stack([table[mask].sum(axis=0), table[~mask].sum(axis=0)])
            score = gini_index(split)
            if score < best[0] - 1e-12:
                best = (score, frozenset(left))
    return best


@pytest.mark.parametrize("seed", range(8))
def test_breiman_ordering_finds_the_optimal_binary_class_subset(seed):
    """CART's depth-1 split on a categorical column equals the brute-force optimum."""
    local = np.random.default_rng(seed)
    n_categories = int(local.integers(3, 7))
    shares = local.uniform(0.05, 0.95, n_categories)
    category = local.integers(0, n_categories, 300)
    y = (local.random(300) < shares[category]).astype(int)
    X = pd.DataFrame({"c": pd.Categorical(category, categories=range(n_categories))})
    model = CARTClassifier(max_depth=1).fit(X, y)
    table = pd.crosstab(category, y).reindex(range(n_categories), fill_value=0).to_numpy()
    best_score, best_left = _all_subset_scores(table)
    routes = model.tree_.route_table[:n_categories]
    left = frozenset(np.flatnonzero(routes == 0).tolist())
    right = frozenset(np.flatnonzero(routes == 1).tolist())
    assert left in (best_left, frozenset(range(n_categories)) - best_left) or right in (
        best_left,
        frozenset(range(n_categories)) - best_left,
    )
    found = np.stack([table[sorted(left)].sum(axis=0), table[sorted(right)].sum(axis=0)])
    assert gini_index(found) == pytest.approx(best_score, abs=1e-12)


def test_breiman_ordering_is_optimal_for_regression():
    local = np.random.default_rng(42)
    n_categories = 6
    means = local.normal(size=n_categories)
    category = local.integers(0, n_categories, 400)
    y = means[category] + local.normal(scale=0.5, size=400)
    X = pd.DataFrame({"c": pd.Categorical(category)})
    model = CARTRegressor(max_depth=1).fit(X, y)
    sse = []
    for size in range(1, n_categories):
        for left in itertools.combinations(range(n_categories), size):
            mask = np.isin(category, left)
            sse.append(
                ((y[mask] - y[mask].mean()) ** 2).sum() + ((y[~mask] - y[~mask].mean()) ** 2).sum()
            )
    fitted = ((y - model.predict(X)) ** 2).sum()
    assert fitted == pytest.approx(min(sse), rel=1e-12)


def test_entropy_criterion_uses_bits():
    X = np.array([[0.0], [1.0], [2.0], [3.0]])
    y = np.array([0, 0, 1, 1])
    model = CARTClassifier(criterion="entropy").fit(X, y)
    assert model.tree_.impurity[0] == pytest.approx(entropy([2, 2]))


# --- The m-estimate of chapter 2 ----------------------------------------------------


def test_m_estimate_is_the_dirichlet_posterior_mean_by_simulation():
    """Posterior mean under Dirichlet(m * prior) with counts n: checked by sampling."""
    local = np.random.default_rng(11)
    counts, prior, m = np.array([3.0, 1.0, 0.0]), np.array([0.2, 0.5, 0.3]), 4.0
    draws = local.dirichlet(counts + m * prior, size=400_000)
    np.testing.assert_allclose(m_estimate(counts, prior, m), draws.mean(axis=0), atol=3e-3)


def test_m_estimate_limits_are_the_two_leaf_rules():
    counts = np.array([[2.0, 1.0], [0.0, 0.0]])
    parent = np.array([0.25, 0.75])
    smoothed = m_estimate(counts, parent, 1e-12)
    np.testing.assert_allclose(smoothed[0], [2 / 3, 1 / 3])  # a node: its frequencies
    np.testing.assert_allclose(m_estimate(counts, parent, 5.0)[1], parent)  # empty: prior


def test_m_estimate_with_uniform_prior_is_laplace():
    counts = np.array([7.0, 0.0, 3.0])
    expected = (counts + 1) / (counts.sum() + 3)
    np.testing.assert_allclose(m_estimate(counts, np.full(3, 1 / 3), 3.0), expected)


@pytest.mark.parametrize(
    ("counts", "prior", "m", "match"),
    [
        ([1.0, -1.0], [0.5, 0.5], 1.0, "non-negative"),
        ([1.0, 2.0], [0.5, 0.6], 1.0, "sum to 1"),
        ([1.0, 2.0], [0.2, 0.3, 0.5], 1.0, "classes"),
        ([1.0, 2.0], [0.5, 0.5], 0.0, "positive"),
        ([1.0, 2.0], [0.5, 0.5], float("nan"), "positive"),
        (3.0, [1.0], 1.0, "class axis"),
    ],
)
def test_m_estimate_bad_input(counts, prior, m, match):
    with pytest.raises(ValueError, match=match):
        m_estimate(counts, prior, m)
