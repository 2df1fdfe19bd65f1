"""Tests for ``mltrees.tree.pruning.optimal_subtree`` (chapter 5, Lemma 1 and Theorem 2).

The reference is a brute-force enumeration of every pruned subtree, written
here without any pruning code of mltrees: for each price per leaf kappa the
smallest minimiser of R(T) + kappa |leaves| is found by listing all subtrees.
"""

import itertools

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer

from mltrees import CARTClassifier, CARTRegressor
from mltrees.tree.pruning import cost_complexity_path, optimal_subtree, prune_cost_complexity


def _node_risk(tree):
    return tree.weighted_n_node_samples / tree.weighted_n_node_samples[0] * tree.impurity


def _all_pruned_subtrees(tree):
    """(R, number of leaves, frozenset of split nodes) for every pruned subtree."""
    risk = _node_risk(tree)

    def below(node):
        options = [(risk[node], 1, frozenset())]
        if not tree.is_leaf[node]:
            first = tree.first_child[node]
            children = range(first, first + tree.n_children[node])
            for parts in itertools.product(*(below(c) for c in children)):
                options.append(
                    (
                        sum(p[0] for p in parts),
                        sum(p[1] for p in parts),
                        frozenset({node}).union(*(p[2] for p in parts)),
                    )
                )
        return options

    return below(0)


def _cost_and_leaves(tree, kappa):
    leaves = tree.is_leaf
    return _node_risk(tree)[leaves].sum() + kappa * leaves.sum(), int(leaves.sum())


def _small_trees():
    rng = np.random.default_rng(7)
    X = rng.normal(size=(300, 4))
    y_class = (X[:, 0] + 0.5 * X[:, 1] ** 2 + rng.normal(scale=0.8, size=300) > 0.5).astype(int)
    y_value = np.sin(2 * X[:, 0]) + X[:, 1] + rng.normal(scale=0.5, size=300)
    yield CARTClassifier(max_depth=4).fit(X, y_class).tree_
    yield CARTClassifier(criterion="entropy", max_depth=4).fit(X, y_class).tree_
    yield CARTRegressor(max_depth=3).fit(X, y_value).tree_


@pytest.mark.parametrize("tree", list(_small_trees()), ids=["gini", "entropy", "regression"])
def test_smallest_minimiser_against_brute_force(tree):
    everything = _all_pruned_subtrees(tree)
    assert len(everything) > 20
    breakpoints = np.unique(cost_complexity_path(tree)[0])
    kappas = np.unique(np.concatenate([np.linspace(0, 1.5 * breakpoints[-1], 60), breakpoints]))
    previous = None
    for kappa in kappas:
        costs = np.array([r + kappa * n for r, n, _ in everything])
        best = costs.min()
        minimisers = [
            s for (_, _, s), c in zip(everything, costs, strict=True) if c <= best + 1e-12
        ]
        smallest = min(minimisers, key=len)
        assert all(smallest <= other for other in minimisers)  # Theorem 2 (i)
        if previous is not None:
            assert smallest <= previous  # Theorem 2 (ii): nested
        previous = smallest
        cost, n_leaves = _cost_and_leaves(optimal_subtree(tree, kappa), kappa)
        assert cost == pytest.approx(best, abs=1e-12)
        assert n_leaves == len(smallest) + 1  # binary: splits + 1 leaves


def test_agrees_with_weakest_link_pruning_for_positive_kappa():
    X, y = load_breast_cancer(return_X_y=True)
    tree = CARTClassifier().fit(X, y).tree_
    path = cost_complexity_path(tree)
    breakpoints = np.unique(path[0])[1:]
    between = (breakpoints[:-1] + breakpoints[1:]) / 2
    sizes = []
    for kappa in np.sort(np.concatenate([breakpoints, between, [10 * breakpoints[-1]]])):
        direct = optimal_subtree(tree, kappa)
        weakest = prune_cost_complexity(tree, kappa, path)
        np.testing.assert_array_equal(direct.feature, weakest.feature)
        np.testing.assert_array_equal(direct.n_node_samples, weakest.n_node_samples)
        sizes.append(direct.n_leaves)
    assert sizes[-1] == 1  # beyond the last breakpoint only the root is left
    assert np.all(np.diff(sizes) <= 0)


def test_kappa_zero_drops_branches_that_do_not_lower_the_risk():
    # The split on x leaves both children with the parent's proportions (zero
    # gain): T(0) is the root alone, while the weakest-link path starts from the
    # grown tree at kappa = 0, as scikit-learn's does.
    X = np.array([[0.0], [1.0], [0.0], [1.0]])
    y = np.array([0, 0, 1, 1])
    tree = CARTClassifier(max_depth=1).fit(X, y).tree_
    assert tree.n_leaves == 2
    assert optimal_subtree(tree, 0.0).n_leaves == 1
    assert prune_cost_complexity(tree, 0.0).n_leaves == 2


def test_input_is_left_untouched():
    X, y = load_breast_cancer(return_X_y=True)
    tree = CARTClassifier(max_depth=5).fit(X, y).tree_
    before = tree.feature.copy()
    optimal_subtree(tree, 0.01)
    np.testing.assert_array_equal(tree.feature, before)


@pytest.mark.parametrize(
    ("kappa", "error", "match"),
    [
        (-0.1, ValueError, ">= 0"),
        (float("nan"), ValueError, "finite"),
        (float("inf"), ValueError, "finite"),
        ("0.1", TypeError, "real number"),
        (True, TypeError, "real number"),
    ],
)
def test_bad_kappa_is_named(kappa, error, match):
    tree = CARTClassifier(max_depth=2).fit([[0.0], [1.0], [2.0], [3.0]], [0, 0, 1, 1]).tree_
    with pytest.raises(error, match=match):
        optimal_subtree(tree, kappa)
