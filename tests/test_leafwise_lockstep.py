"""Leaf-wise growth of several trees in lock-step (``LeafwiseGrower.grow_many``).

A multiclass round grows its classes' trees together so that one split
search serves the new leaves of all of them; each tree must be, bit for bit,
the tree ``grow`` grows alone, whatever the other trees do (their features,
rows, depth, or no split at all).
"""

from __future__ import annotations

import numpy as np
import pytest

from mltrees.hist.lightgbm.binning import fit_lightgbm_bins
from mltrees.hist.lightgbm.categorical import category_bins
from mltrees.hist.lightgbm.leafwise import LeafwiseGrower
from mltrees.hist.lightgbm.splitting import LeafwiseParams

TREE_FIELDS = ("feature", "threshold", "first_child", "value", "impurity", "n_node_samples",
               "weighted_n_node_samples", "missing_slot", "kind", "route_table")  # fmt: skip


def _same(a, b) -> None:
    for name in TREE_FIELDS:
        x, y = getattr(a.tree, name), getattr(b.tree, name)
        assert (x is None) == (y is None), name
        if x is not None:
            np.testing.assert_array_equal(x, y, err_msg=name)
    for name in ("leaf_of_row", "gain", "weight"):
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name), err_msg=name)


def _data(rng, n, categorical):
    X = rng.normal(size=(n, 8))
    X[:, 1] = np.round(X[:, 1])  # few values: a narrow feature beside wide ones
    X[:, 2] = (X[:, 2] > 0.5).astype(float)
    X[rng.random(n) < 0.1, 3] = np.nan  # a feature with missing values
    categories = {}
    if categorical:
        X[:, 4] = rng.integers(0, 6, n)
        categories = {4: category_bins(X[:, 4])}
    data, has_missing, most_frequent = fit_lightgbm_bins(X, categories=categories)
    return X, data, has_missing, most_frequent, categories


# The class without trees has hessians 0: its one leaf's value is 0 / 0 until
# the estimator zeroes it, as LightGBM adds nothing for such a class.
@pytest.mark.filterwarnings("ignore:invalid value encountered in divide:RuntimeWarning")
@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("categorical", [False, True])
def test_trees_grown_together_are_the_trees_grown_alone(seed, categorical):
    rng = np.random.default_rng(seed)
    n = 400
    X, data, has_missing, most_frequent, categories = _data(rng, n, categorical)
    is_categorical = None
    if categorical:
        is_categorical = np.zeros(data.n_features, dtype=bool)
        is_categorical[list(categories)] = True
    params = LeafwiseParams(min_child_samples=int(rng.integers(3, 25)), reg_lambda=seed * 0.5)
    grower = LeafwiseGrower(
        data,
        has_missing,
        params,
        most_frequent_bin=most_frequent,
        num_leaves=int(rng.integers(4, 32)),
        max_depth=[-1, 3, 5, -1][seed],
        categorical=is_categorical,
    )
    rows = np.sort(rng.choice(n, n // 2, replace=False))
    jobs = [
        (rng.normal(size=n) + X[:, 0], rng.uniform(0.1, 1.0, n), None, None),
        (rng.normal(size=n) - X[:, 1], rng.uniform(0.1, 1.0, n), np.array([1, 3, 4, 6]), None),
        (np.zeros(n), np.zeros(n), np.zeros(0, int), None),  # a class without trees: one leaf
        (rng.normal(size=n) * (X[:, 2] + 1), rng.uniform(0.1, 1.0, n), None, rows),
    ]
    together = grower.grow_many(jobs)
    assert len(together) == len(jobs)
    assert together[0].tree.node_count > 3  # the trees do split
    for grown, job in zip(together, jobs, strict=True):
        _same(grown, grower.grow(*job))
