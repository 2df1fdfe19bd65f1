"""Tree.apply: blocks, threads and compaction must not change where samples end.

The reference is a plain per-sample walk over the stored arrays, written
independently of the vectorized step (eq-level-step) it checks.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from mltrees import C45Classifier, CARTClassifier, CARTRegressor
from mltrees.tree._tree import (
    APPLY_ROWS_PER_THREAD,
    CATEGORICAL_NODE,
    LEAF,
    apply_blocks,
    available_cores,
)


def walk_one(tree, row) -> int:
    """Follow the tests from the root for one encoded row."""
    node = 0
    while tree.feature[node] != LEAF:
        x = row[tree.feature[node]]
        if tree.kind[node] == CATEGORICAL_NODE:
            code = int(x)
            if not 0 <= code < tree.n_categories[node]:
                return node  # unseen category: the sample stops here
            slot = tree.route_table[tree.route_offset[node] + code]
            if slot < 0:
                return node
        else:
            slot = int(x > tree.threshold[node])
        node = tree.first_child[node] + slot
    return node


def mixed_data(n_samples, seed=0):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame(
        {
            "a": rng.normal(size=n_samples),
            "b": rng.integers(0, 50, size=n_samples).astype(float),
            "c": pd.Categorical(rng.choice(list("pqrstuvw"), size=n_samples)),
            "d": rng.normal(size=n_samples),
        }
    )
    noise = rng.random(n_samples) < 0.2
    signal = (X["a"] + (X["c"].isin(list("pqr"))) * 1.5 - X["b"] / 25) > 0
    return X, np.where(noise, ~signal, signal).astype(int)


@pytest.mark.parametrize(
    "make_model",
    [
        lambda: CARTClassifier(),  # full depth: many levels, compaction kicks in
        lambda: CARTClassifier(max_bins=16, min_samples_leaf=3),
        lambda: C45Classifier(),  # multiway category nodes
        lambda: CARTRegressor(max_depth=9),
    ],
    ids=["cart-full", "cart-hist", "c45", "cart-regressor"],
)
def test_apply_matches_a_per_sample_walk_for_any_thread_count(make_model):
    X, y = mixed_data(2 * APPLY_ROWS_PER_THREAD + 777)
    model = make_model().fit(X, y)
    # New data with categories never seen in training, so some samples stop early.
    X_new, _ = mixed_data(len(X), seed=1)
    X_new["c"] = X_new["c"].cat.add_categories(["zz"])
    X_new.loc[X_new.index[::97], "c"] = "zz"
    values = model._values(X_new)
    tree = model.tree_
    results = [tree.apply(values, n_threads=n) for n in (1, 2, 3)]
    for other in results[1:]:
        np.testing.assert_array_equal(results[0], other)
    rows = np.random.default_rng(2).choice(len(X_new), size=1500, replace=False)
    rows = np.union1d(rows, np.arange(0, len(X_new), 97)[:200])  # include the unseen ones
    expected = [walk_one(tree, values[i]) for i in rows]
    np.testing.assert_array_equal(results[0][rows], expected)
    # decision_path ends at the same nodes, and holds exactly the nodes of the walk
    path = model.decision_path(X_new.iloc[rows[:100]]).tocsr()
    for k, i in enumerate(rows[:100]):
        nodes = path[k].indices
        assert nodes[np.argmax(tree.depth[nodes])] == results[0][i]
        assert len(nodes) == tree.depth[results[0][i]] + 1


def test_unseen_categories_stop_at_internal_nodes_in_large_inputs():
    X, _ = mixed_data(2 * APPLY_ROWS_PER_THREAD + 5)
    X = X[["d", "c"]]
    y = X["c"].isin(list("pqr")).to_numpy().astype(int)
    model = C45Classifier(max_depth=3).fit(X, y)
    assert model.tree_.feature[0] == 1  # the test needs a categorical root
    X_new = X.copy()
    X_new["c"] = X_new["c"].cat.add_categories(["zz"])
    X_new.loc[X_new.index[-3:], "c"] = "zz"
    nodes = model.apply(X_new)
    assert (nodes[-3:] == 0).all()
    np.testing.assert_array_equal(nodes[:-3], model.apply(X.iloc[:-3]))


@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_non_finite_in_a_late_block_names_the_first_bad_column(bad):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(3 * APPLY_ROWS_PER_THREAD, 6))
    rows, _ = apply_blocks(len(X), available_cores())  # the blocks predict walks
    y = (X[:, 0] > 0).astype(int)
    model = CARTClassifier(max_depth=4, missing="error").fit(X, y)
    X_bad = X.copy()
    X_bad[-1, 2] = bad  # last block, column 2
    X_bad[rows - 1, 4] = bad  # an earlier block (the first one), column 4
    expected = "X contains inf" if np.isinf(bad) else "missing values \\(NaN\\) in column '2'"
    for method in (model.predict, model.apply, model.decision_path):
        with pytest.raises(ValueError, match=expected):
            method(X_bad)


def test_all_finite_sees_overflow_of_finite_numbers_as_finite():
    from mltrees.tree._data import all_finite

    huge = np.full((4, 3), np.finfo(float).max)  # the sum overflows to inf
    assert all_finite(huge)
    huge[2, 1] = np.nan
    assert not all_finite(huge)
    assert not all_finite(np.array([[1.0, -np.inf]]))
