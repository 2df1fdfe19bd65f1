"""mltrees.tree.root_split_gains: the root gain of every feature, from the estimator's own search.

Expected values come from Zhou's published gains (2016, section 4.4.2), from
independent computations written out below (entropy and variance by hand,
brute force over every threshold) and from the tree ``fit`` grows, never from
the function under test.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from _worked_examples import ZHOU_GAINS  # Zhou (2016), section 4.4.2
from sklearn.linear_model import LinearRegression

from mltrees import C45Classifier, CARTClassifier, CARTRegressor, ID3Classifier
from mltrees.datasets import load_watermelon
from mltrees.tree import root_split_gains


def _entropy(labels):
    counts = pd.Series(labels).value_counts().to_numpy(dtype=float)
    p = counts / counts.sum()
    return -sum(q * math.log2(q) for q in p if q > 0)


def _zhou_gain(column, labels):
    """Zhou's eq. 4.12 on the rows where the attribute is known, in plain pandas."""
    known = column.notna()
    gain = _entropy(labels[known])
    for value in column[known].unique():
        part = known & (column == value)
        gain -= part.sum() / known.sum() * _entropy(labels[part])
    return known.mean() * gain


def test_zhou_4_4_watermelon_2_0alpha_published_and_by_hand():
    melons = load_watermelon("2.0alpha", lang="zh")
    X, y = melons.data, melons.target
    gains = root_split_gains(ID3Classifier(missing="c45"), X, y)
    assert list(X.columns) == list(ZHOU_GAINS)
    for j, name in enumerate(X.columns):
        assert gains[j] == pytest.approx(ZHOU_GAINS[name], abs=1.5e-3)
        assert gains[j] == pytest.approx(_zhou_gain(X[name], y), abs=1e-12)


def test_the_fitted_root_tests_the_feature_of_largest_gain():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 5))
    y = (X[:, 1] + 0.5 * X[:, 3] + rng.normal(scale=0.5, size=300) > 0).astype(int)
    gains = root_split_gains(CARTClassifier(), X, y)
    stump = CARTClassifier(max_depth=1).fit(X, y)
    assert stump.tree_.feature[0] == np.argmax(gains)
    # node_gains is W_t Q(t) - sum_c W_c Q(c): the weighted decrease
    assert gains.max() == pytest.approx(stump.tree_.node_gains()[0] / 300, rel=1e-12)


def test_regression_gain_is_the_variance_decrease_by_brute_force():
    rng = np.random.default_rng(1)
    x = rng.permutation(12).astype(float)
    target = rng.normal(size=12)
    best = -np.inf
    for cut in np.unique(x)[:-1]:
        left, right = target[x <= cut], target[x > cut]
        decrease = target.var() - (left.size * left.var() + right.size * right.var()) / 12
        best = max(best, decrease)
    gain = root_split_gains(CARTRegressor(), x[:, None], target)
    assert gain[0] == pytest.approx(best, rel=1e-12)


def test_integer_weights_are_repeated_rows():
    X = pd.DataFrame({"a": list("xxyyzz"), "b": list("uvuvuv")})
    y = np.array([0, 1, 1, 1, 0, 0])
    weights = np.array([1, 3, 2, 1, 1, 2])
    repeated = X.loc[X.index.repeat(weights)].reset_index(drop=True)
    expected = root_split_gains(ID3Classifier(), repeated, np.repeat(y, weights))
    weighted = root_split_gains(ID3Classifier(), X, y, sample_weight=weights)
    np.testing.assert_allclose(weighted, expected, rtol=1e-12)


def test_constant_column_has_no_split_and_the_estimator_stays_unfitted():
    X = np.column_stack([np.arange(10.0), np.ones(10)])
    y = np.r_[np.zeros(5), np.ones(5)]
    estimator = CARTClassifier()
    gains = root_split_gains(estimator, X, y)
    assert gains[0] == pytest.approx(0.5)  # Gini 0.5 at the root, two pure children
    assert gains[1] == -np.inf
    assert not hasattr(estimator, "tree_")


def test_refuses_what_is_not_an_mltrees_tree():
    with pytest.raises(TypeError, match="root_split_gains needs an mltrees tree estimator"):
        root_split_gains(LinearRegression(), np.zeros((3, 1)), np.zeros(3))


def _best_cut_gain(x, labels, smallest_side):
    """Largest information gain over the cuts of ``x`` leaving >= smallest_side rows a side.

    Also returns how many such cuts there are (every value of ``x`` distinct).
    """
    order = np.argsort(x)
    ordered, n = labels[order], x.size
    sides = range(math.ceil(smallest_side), n - math.ceil(smallest_side) + 1)
    gains = [
        _entropy(ordered) - r / n * _entropy(ordered[:r]) - (n - r) / n * _entropy(ordered[r:])
        for r in sides
    ]
    return max(gains), len(gains)


def test_c45_release_8_gain_is_mdl_corrected_and_not_positive_is_minus_inf():
    # Quinlan (1996): a numeric feature's gain loses lg(C) / W bits, C the cuts tried
    # (those leaving min(25, max(min_cases, 0.1 W / K)) rows on each side, eq-min-split);
    # a feature whose corrected gain is not positive is no candidate.
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 3))
    X[:, 2] = 1.0
    y = (X[:, 0] + 0.3 * rng.normal(size=200) > 0).astype(int)
    for j in (0, 1):  # release 8 merges values closer than 1e-5: here there are none
        assert np.diff(np.sort(X[:, j])).min() > 1e-5
    n, n_classes, min_cases = 200, 2, 2
    smallest_side = min(25, max(min_cases, 0.1 * n / n_classes))  # 10 rows
    gain_0, cuts_0 = _best_cut_gain(X[:, 0], y, smallest_side)
    gain_1, cuts_1 = _best_cut_gain(X[:, 1], y, smallest_side)
    assert cuts_0 == cuts_1 == 181
    assert gain_1 - math.log2(cuts_1) / n < 0  # noise: its corrected gain is negative

    gains = root_split_gains(C45Classifier(), X, y)
    assert gains[0] == pytest.approx(gain_0 - math.log2(cuts_0) / n, abs=1e-9)
    assert gains[1] == -np.inf
    assert gains[2] == -np.inf

    # The book's rules (release="1993"): plain gain, min_cases rows on each side.
    book = root_split_gains(C45Classifier(release="1993"), X, y)
    assert book[0] == pytest.approx(_best_cut_gain(X[:, 0], y, min_cases)[0], abs=1e-9)
    assert book[1] == pytest.approx(_best_cut_gain(X[:, 1], y, min_cases)[0], abs=1e-9)
    assert book[1] > 0
    assert book[2] == -np.inf
