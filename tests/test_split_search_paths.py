"""The random-forest split search (all drawn features at once) against brute force
and against the per-feature search it replaces for forests."""

from __future__ import annotations

import numpy as np
import pytest

import mltrees.tree._split as split_module
from mltrees import RandomForestClassifier, RandomForestRegressor
from mltrees.tree._data import bin_features
from mltrees.tree._split import (
    ClassificationStatistics,
    RegressionStatistics,
    SplitRules,
    find_splits,
)


def _level(seed, n_rows=400, n_features=7, n_nodes=9, k=3, max_bins=12, duplicate=True):
    """A random frontier: codes, node of each row, and k features drawn per node."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n_rows, n_features)).round(1)  # rounding makes equal values
    if duplicate:
        X[:, -1] = X[:, 0]  # an exact copy: tied gains, the lower index must win
    codes, specs = bin_features(X, max_bins=max_bins)
    node = rng.integers(0, n_nodes, n_rows)
    node[: n_nodes - 1] = np.arange(n_nodes - 1)  # the last node stays empty
    node[node == n_nodes - 1] = 0
    rows = np.arange(n_rows)
    mask = np.zeros((n_nodes, n_features), dtype=bool)
    for i in range(n_nodes):
        drawn = rng.choice(n_features - 1, k, replace=False)
        if duplicate and i % 2 == 0:  # half the nodes draw the copy with its original
            drawn = np.unique(np.append(drawn[drawn != 0][: k - 2], [0, n_features - 1]))
        mask[i, drawn] = True
    assert (mask.sum(axis=1) == k).all()
    return rng, codes, specs, rows, node, n_nodes, mask


def _brute_force_gain(stats_model, y, w, codes_j, rows_in_node, min_leaf):
    """Largest impurity decrease of the node over thresholds ``code <= c``, by loops."""

    def impurity(index):
        if isinstance(stats_model, ClassificationStatistics):
            weights = np.bincount(y[index], weights=w[index], minlength=stats_model.n_classes)
            p = weights / weights.sum()
            if stats_model.criterion == "gini":
                return 1.0 - (p * p).sum()
            p = p[p > 0]
            return -(p * np.log2(p)).sum()
        mean = np.average(y[index], weights=w[index])
        return np.average((y[index] - mean) ** 2, weights=w[index])

    total = w[rows_in_node].sum()
    parent = impurity(rows_in_node)
    best = -np.inf
    for c in np.unique(codes_j[rows_in_node])[:-1]:
        left = rows_in_node[codes_j[rows_in_node] <= c]
        right = rows_in_node[codes_j[rows_in_node] > c]
        if left.size < min_leaf or right.size < min_leaf:
            continue
        children = (w[left].sum() * impurity(left) + w[right].sum() * impurity(right)) / total
        best = max(best, parent - children)
    return best


def _search(codes, specs, rows, node, n_nodes, stats_model, rules, mask, *, per_feature):
    original = split_module._drawn_features_apply
    if per_feature:
        split_module._drawn_features_apply = lambda *args: False
    try:
        node_stats = stats_model.aggregate(node, n_nodes, rows)
        return find_splits(codes, specs, rows, node, n_nodes, stats_model, node_stats, rules, mask)
    finally:
        split_module._drawn_features_apply = original


def _models(rng, n_rows):
    y_class = rng.integers(0, 3, n_rows)
    weights = rng.integers(1, 4, n_rows).astype(float)  # bootstrap-like counts
    y_real = rng.normal(size=n_rows).round(2)
    return [
        ClassificationStatistics(y_class, weights, 3, "gini"),
        ClassificationStatistics(y_class, rng.uniform(0.2, 2.0, n_rows), 3, "entropy"),
        RegressionStatistics(y_real, weights),
    ]


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("max_bins", [6, 255, None])
@pytest.mark.parametrize("pairs_per_chunk", [1 << 19, 500])  # 500: one slot per chunk
def test_drawn_feature_search_equals_brute_force_and_the_per_feature_search(
    seed, max_bins, pairs_per_chunk, monkeypatch
):
    monkeypatch.setattr(split_module, "DRAWN_PAIRS_PER_CHUNK", pairs_per_chunk)
    rng, codes, specs, rows, node, n_nodes, mask = _level(seed, max_bins=max_bins)
    for stats_model in _models(rng, rows.size):
        for min_leaf in (1, 5):
            rules = SplitRules(
                multiway_categorical=False, selection="gain", min_samples_leaf=min_leaf
            )
            assert split_module._drawn_features_apply(specs, stats_model, rules, mask, None)
            fast = _search(
                codes, specs, rows, node, n_nodes, stats_model, rules, mask, per_feature=False
            )
            slow = _search(
                codes, specs, rows, node, n_nodes, stats_model, rules, mask, per_feature=True
            )
            np.testing.assert_array_equal(fast.feature, slow.feature)
            np.testing.assert_array_equal(fast.split_code, slow.split_code)
            np.testing.assert_array_equal(fast.threshold, slow.threshold)
            np.testing.assert_allclose(fast.gain, slow.gain, rtol=1e-12, atol=1e-15)
            np.testing.assert_array_equal(fast.n_children, slow.n_children)
            for i in range(n_nodes):
                in_node = rows[node == i]
                expected = (
                    max(
                        _brute_force_gain(
                            stats_model,
                            stats_model.y,
                            stats_model.w,
                            codes[:, j].astype(np.intp),
                            in_node,
                            min_leaf,
                        )
                        for j in np.flatnonzero(mask[i])
                    )
                    if in_node.size
                    else -np.inf
                )
                if np.isfinite(expected):
                    assert fast.gain[i] == pytest.approx(expected, rel=1e-9, abs=1e-12)
                    # The chosen feature and cut reach that gain.
                    j, c = fast.feature[i], fast.split_code[i]
                    assert mask[i, j]
                    left = in_node[codes[in_node, j] <= c]
                    assert 0 < left.size < in_node.size
                else:
                    assert fast.gain[i] == -np.inf
                    assert fast.n_children[i] == 0


def test_a_tied_copy_of_a_feature_never_wins_over_its_original():
    rng, codes, specs, rows, node, n_nodes, mask = _level(7, duplicate=True)
    stats_model = _models(rng, rows.size)[0]
    rules = SplitRules(multiway_categorical=False, selection="gain")
    fast = _search(codes, specs, rows, node, n_nodes, stats_model, rules, mask, per_feature=False)
    last = codes.shape[1] - 1
    assert not (fast.feature == last).any()


def test_the_search_path_does_not_change_the_forest():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(3000, 9))
    y_class = (X[:, 0] + X[:, 1] * X[:, 2] + rng.normal(scale=0.5, size=3000) > 0).astype(int)
    y_real = X[:, 0] * 2 - X[:, 3] ** 2 + rng.normal(scale=0.3, size=3000)
    for model, y in (
        (RandomForestClassifier(n_estimators=4, random_state=0, max_bins=64), y_class),
        (RandomForestClassifier(n_estimators=4, random_state=0, criterion="entropy"), y_class),
        (RandomForestRegressor(n_estimators=4, random_state=0, max_features=0.4), y_real),
    ):
        fast = model.fit(X, y).estimators_
        original = split_module._drawn_features_apply
        split_module._drawn_features_apply = lambda *args: False
        try:
            slow = type(model)(**model.get_params()).fit(X, y).estimators_
        finally:
            split_module._drawn_features_apply = original
        for a, b in zip(fast, slow, strict=True):
            np.testing.assert_array_equal(a.tree_.feature, b.tree_.feature)
            np.testing.assert_array_equal(a.tree_.threshold, b.tree_.threshold)
            np.testing.assert_array_equal(a.tree_.value, b.tree_.value)


@pytest.mark.parametrize("missing", ["error", "default_direction", "c45"])
def test_threads_score_features_without_changing_the_tree(monkeypatch, missing):
    """Large levels score their features on several threads; every array of the
    tree is the same as on one thread (features write their own columns)."""
    from mltrees import C45Classifier, CARTClassifier

    monkeypatch.setattr(split_module, "PARALLEL_CELLS", 1)  # every level in parallel
    rng = np.random.default_rng(0)
    X = rng.normal(size=(3000, 6)).round(2)
    y = (X[:, 0] + X[:, 1] * X[:, 2] > 0).astype(int) + (X[:, 3] > 1)
    if missing != "error":
        X[rng.random(X.shape) < 0.1] = np.nan
    model = C45Classifier() if missing == "c45" else CARTClassifier(missing=missing)
    data = model.fit(X, y)  # parameters checked; the tree below is regrown
    builder_inputs = model._bin(X)
    stats = ClassificationStatistics(y, np.ones(len(y)), 3, model._engine_criterion)
    trees = [
        data._grow(*builder_inputs, stats, float(len(y)), np.random.default_rng(1), n_threads=t)
        for t in (1, 2)
    ]
    assert trees[0].node_count > 50
    for name in ("feature", "threshold", "first_child", "value", "missing_slot"):
        np.testing.assert_array_equal(getattr(trees[0], name), getattr(trees[1], name))
