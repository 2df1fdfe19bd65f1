"""``StackedTrees``, the multi-tree walk of forests, bagging and boosting, against single trees.

The reference is computed tree by tree with ``Tree.apply`` (the single-tree
walk, independent code): output column ``outputs[t] + c`` receives
``values[t][apply_t(X), c]``, added in tree order. The stack promises exactly
that order of additions per row, whatever its blocks, groups and threads, so
every comparison is exact. Most node values are *scrambled* (random numbers
of magnitudes 1e-8 .. 1e8), so that any other order of additions, or a pair
that ends in a wrong node, changes the result.

Cases: forests (exact and histogram splits, 3 classes and regression),
boosting-style scalar values routed to output columns, trees of very
different depths in one group (pairs finish early and are set aside),
categorical nodes (binary subsets and multiway), missing values (learned
default directions, C4.5 nodes, trees without a method), an internal node
with threshold +inf, block boundaries, 1 and 0 rows, 1 and 2 threads. Most
run for three groupings (one group, one tree per group, a few trees per
group) and both walks (float thresholds, threshold codes). The codes are
also checked by brute force: every value takes the same branch at every
node as with the float comparison.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import make_classification, make_regression

from mltrees import (
    AdaBoostClassifier,
    C45Classifier,
    CARTClassifier,
    CARTRegressor,
    GradientBoostingClassifier,
    RandomForestClassifier,
    RandomForestRegressor,
)
from mltrees.ensemble import _walk
from mltrees.ensemble._common import StackedTrees, prediction_values
from mltrees.ensemble._tree_average import node_tables, stored_codes
from mltrees.tree._tree import CATEGORICAL_NODE, MISSING_ALL_BRANCHES


def reference(trees, values, X, outputs=None, n_outputs=None):
    """Tree by tree: ``total[:, outputs[t] + c] += values[t][apply_t(X), c]`` in tree order."""
    width = values[0].shape[1]
    outputs = np.zeros(len(trees), dtype=int) if outputs is None else np.asarray(outputs)
    n_outputs = int(outputs.max()) + width if n_outputs is None else n_outputs
    total = np.zeros((X.shape[0], n_outputs))
    for tree, value, first in zip(trees, values, outputs, strict=True):
        total[:, first : first + width] += value[tree.apply(X, n_threads=1)]
    return total


def scrambled(trees, width, seed=0):
    """Random node values spread over 16 orders of magnitude: sums depend on their order."""
    rng = np.random.default_rng(seed)
    return [
        rng.standard_normal((t.node_count, width)) * 10.0 ** rng.integers(-8, 9, (t.node_count, 1))
        for t in trees
    ]


GROUPINGS = ["one group", "one tree per group", "few trees per group"]


@pytest.fixture(params=[(g, w) for g in GROUPINGS for w in ("floats", "codes")], ids=str)
def make_stack(request, monkeypatch):
    """``StackedTrees`` grouped and walked as the parameter says; results must not change.

    Grouping: the default node budget puts these small trees in one group; a
    budget of one node gives one tree per group; three times the median tree
    size a few. Walk: on floats, or on threshold codes wherever a group's
    trees allow it (numeric nodes; with missing-value routes, on blocks
    without NaN), whatever the cost rule would choose.
    """
    grouping, walk = request.param
    monkeypatch.setattr(_walk, "CODES_PAY", 0.0 if walk == "codes" else np.inf)

    def build(trees, *args):
        sizes = [tree.node_count for tree in trees]
        budget = {"one tree per group": 1, "few trees per group": 3 * int(np.median(sizes))}
        if grouping in budget:
            monkeypatch.setattr(_walk, "NODES_PER_GROUP", budget[grouping])
        stacked = StackedTrees(trees, *args)
        per_group = [group.n_trees for group in stacked.groups]
        if grouping == "one group":
            assert len(per_group) == 1
        elif grouping == "one tree per group":
            assert max(per_group) == 1
        else:
            assert len(per_group) > 1
            assert max(per_group) > 1
        # Which groups walk on codes: exactly those whose trees all allow it.
        outputs = args[1] if len(args) > 1 else np.zeros(len(trees))
        order = iter(np.argsort(outputs, kind="stable"))
        numeric = [not (tree.kind == CATEGORICAL_NODE).any() for tree in trees]
        members = [[next(order) for _ in range(group.n_trees)] for group in stacked.groups]
        expected = [walk == "codes" and all(numeric[i] for i in group) for group in members]
        assert [group.coded for group in stacked.groups] == expected
        return stacked

    return build


@pytest.mark.parametrize("max_bins", [None, 32])
def test_forest_classifier_three_classes(max_bins, make_stack):
    X, y = make_classification(700, 6, n_informative=4, n_redundant=0, n_classes=3, random_state=0)
    forest = RandomForestClassifier(n_estimators=12, max_bins=max_bins, random_state=0)
    forest.fit(X[:500], y[:500])
    X_test = X[500:]
    trees = [member.tree_ for member in forest.estimators_]
    for values in ([t.value for t in trees], scrambled(trees, 3)):
        stack = make_stack(trees, values)
        expected = reference(trees, values, X_test)
        np.testing.assert_array_equal(stack.predict(X_test, block_rows=37), expected)
        np.testing.assert_array_equal(stack.predict(X_test, n_threads=2), expected)
    # The estimator: the average of its trees' class fractions, summed in member order.
    expected = reference(trees, [t.value for t in trees], X_test) / len(trees)
    np.testing.assert_array_equal(forest.predict_proba(X_test), expected)


@pytest.mark.parametrize("max_bins", [None, 16])
def test_forest_regressor(max_bins, make_stack):
    X, y = make_regression(600, 5, noise=5.0, random_state=1)
    forest = RandomForestRegressor(n_estimators=10, max_bins=max_bins, random_state=1)
    forest.fit(X[:400], y[:400])
    X_test = X[400:]
    trees = [member.tree_ for member in forest.estimators_]
    values = scrambled(trees, 1, seed=1)
    stack = make_stack(trees, values)
    np.testing.assert_array_equal(
        stack.predict(X_test, block_rows=64), reference(trees, values, X_test)
    )
    expected = reference(trees, [t.value for t in trees], X_test)[:, 0] / len(trees)
    np.testing.assert_array_equal(forest.predict(X_test), expected)


def test_scalar_values_routed_to_output_columns(make_stack):
    """Boosting's layout: one value per node, each tree adding to the column ``outputs[t]``.

    The columns are in no particular order (the stack regroups trees by
    column), and column 3 receives no tree: it stays 0.
    """
    X, y = make_regression(500, 4, random_state=2)
    forest = RandomForestRegressor(n_estimators=15, max_depth=6, random_state=2).fit(X, y)
    trees = [member.tree_ for member in forest.estimators_]
    values = scrambled(trees, 1, seed=2)
    outputs = np.random.default_rng(2).integers(0, 3, len(trees))
    stack = make_stack(trees, values, outputs, 4)
    predicted = stack.predict(X, block_rows=50)
    np.testing.assert_array_equal(predicted, reference(trees, values, X, outputs, 4))
    assert (predicted[:, 3] == 0).all()


def test_gradient_boosting_uses_the_stack():
    """Three classes: one tree per class and round, each adding to its class's score."""
    X, y = make_classification(400, 5, n_informative=3, n_redundant=0, n_classes=3, random_state=3)
    model = GradientBoostingClassifier(n_estimators=8, max_depth=3, random_state=0).fit(X, y)
    trees = [tree for stage in model._trees for tree in stage]
    values = [model.learning_rate * t.value for t in trees]
    outputs = np.tile(np.arange(3), model.n_estimators_)
    expected = reference(trees, values, X, outputs) + model.init_
    np.testing.assert_array_equal(model.decision_function(X), expected)


@pytest.mark.parametrize("algorithm", ["SAMME", "real"])
def test_adaboost_uses_the_stack(algorithm):
    """Each tree adds its K class scores once; the staged sums, tree by tree, end there."""
    X, y = make_classification(300, 5, n_informative=3, n_redundant=0, n_classes=3, random_state=5)
    model = AdaBoostClassifier(n_estimators=12, algorithm=algorithm, random_state=0).fit(X, y)
    *_, last = model._staged_scores(X)  # Tree.apply per member, added in member order
    np.testing.assert_array_equal(model._scores(X), last)


def test_trees_of_very_different_depths(make_stack):
    """A single leaf, a stump, a depth-3 tree and full trees, walked in one stack.

    The stump's pairs are done after one level while the full trees' go on
    for ~15 levels: the walk sets finished pairs aside several times.
    """
    X, y = make_regression(800, 6, noise=20.0, random_state=4)
    trees = [
        CARTRegressor().fit(X, np.ones(len(y))).tree_,  # a single leaf
        CARTRegressor(max_depth=1).fit(X, y).tree_,
        CARTRegressor().fit(X[::2], y[::2]).tree_,
        CARTRegressor(max_depth=3).fit(X, y).tree_,
        CARTRegressor(random_state=0, max_features=2).fit(X, y).tree_,
    ]
    assert [t.max_depth for t in trees][:2] == [0, 1]
    assert trees[-1].max_depth >= 12
    values = scrambled(trees, 2, seed=4)
    stack = make_stack(trees, values)
    expected = reference(trees, values, X)
    for rows in (1, 2, 3, 100, 799, 800, 5000):
        np.testing.assert_array_equal(stack.predict(X, block_rows=rows, n_threads=1), expected)


def _mixed_frame(n, seed):
    rng = np.random.default_rng(seed)
    colour = rng.choice(list("abcdefg"), n)
    x1, x2 = rng.normal(size=n), rng.normal(size=n)
    effect = {"a": 2.0, "b": -1.0, "c": 0.5, "d": 0.0, "e": 1.5, "f": -2.0, "g": 1.0}
    score = np.array([effect[c] for c in colour]) + x1 + 0.5 * rng.normal(size=n)
    y = np.digitize(score, [-0.5, 1.0])
    X = pd.DataFrame({"colour": pd.Categorical(colour), "x1": x1, "x2": x2})
    return X, y


def test_forest_with_a_categorical_column(make_stack):
    X, y = _mixed_frame(900, 5)
    forest = RandomForestClassifier(n_estimators=10, max_features=None, random_state=5)
    forest.fit(X[:600], y[:600])
    trees = [member.tree_ for member in forest.estimators_]
    assert any((t.kind == CATEGORICAL_NODE).any() for t in trees)
    values, _ = prediction_values(forest, X[600:], "estimators_")
    for node_values in ([t.value for t in trees], scrambled(trees, 3, seed=5)):
        stack = make_stack(trees, node_values)
        expected = reference(trees, node_values, values)
        np.testing.assert_array_equal(stack.predict(values, block_rows=41), expected)
    expected = reference(trees, [t.value for t in trees], values) / len(trees)
    np.testing.assert_array_equal(forest.predict_proba(X[600:]), expected)


def test_codes_without_a_route_stop_at_the_node(make_stack):
    """Codes -1 (unseen), beyond the table, or NaN stop a pair at the categorical node.

    Binary CART subsets and C4.5's multiway nodes, as ``Tree.apply`` routes them.
    """
    X, y = _mixed_frame(600, 6)
    cart = CARTClassifier(max_depth=6).fit(X, y)
    c45 = C45Classifier().fit(X, y)
    trees = [cart.tree_, c45.tree_, cart.tree_, c45.tree_]
    assert all((t.kind == CATEGORICAL_NODE).any() for t in trees)
    assert (c45.tree_.n_children > 2).any()  # a multiway node
    values = cart._values(X[:60]).copy()
    values[:15, 0] = -1
    values[15:30, 0] = 7
    values[30:45, 0] = np.nan
    node_values = scrambled(trees, 3, seed=6)
    stack = make_stack(trees, node_values)
    np.testing.assert_array_equal(
        stack.predict(values, block_rows=16), reference(trees, node_values, values)
    )
    # The test reaches its point: rows stop at internal nodes of both trees.
    for tree in trees[:2]:
        assert not tree.is_leaf[tree.apply(values[:45])].all()


def _missing_data(seed):
    X, y = make_classification(800, 5, n_informative=3, n_redundant=0, random_state=seed)
    rng = np.random.default_rng(seed)
    X_nan = X.copy()
    X_nan[rng.random(X.shape) < 0.2] = np.nan
    return X, X_nan, y


def test_missing_values_follow_each_tree(make_stack):
    """NaN: a learned default child, C4.5's stop, or left in a tree without a method."""
    X, X_nan, y = _missing_data(7)
    default = CARTClassifier(missing="default_direction").fit(X_nan, y).tree_
    c45 = C45Classifier(missing="c45").fit(X_nan, y).tree_
    plain = CARTClassifier(max_depth=5).fit(X, y).tree_  # no missing-value method
    assert (default.missing_slot >= 0).any()
    assert (c45.missing_slot == MISSING_ALL_BRANCHES).any()
    trees = [plain, default, c45, plain]
    values = scrambled(trees, 2, seed=7)
    expected = reference(trees, values, X_nan)
    for members in ([0], [1], [0, 1, 2, 3]):
        group, node_values = [trees[i] for i in members], [values[i] for i in members]
        stack = StackedTrees(group, node_values)
        np.testing.assert_array_equal(
            stack.predict(X_nan, block_rows=99), reference(group, node_values, X_nan)
        )
    stack = make_stack(trees, values)
    np.testing.assert_array_equal(stack.predict(X_nan, n_threads=2), expected)


def test_routed_trees_walk_on_codes_where_a_block_has_no_nan(monkeypatch):
    """Missing-value routes: blocks without NaN walk on codes, the others on floats."""
    monkeypatch.setattr(_walk, "CODES_PAY", 0.0)
    X, X_nan, y = _missing_data(11)
    trees = [
        CARTClassifier(missing="default_direction", max_depth=depth).fit(X_nan, y).tree_
        for depth in (3, 6, None)
    ]
    values = scrambled(trees, 2, seed=11)
    stack = StackedTrees(trees, values)
    (group,) = stack.groups
    assert group.coded
    assert group.missing
    X_test = np.vstack([X[:100], X_nan[:100]])  # blocks of 50: two clean, two with NaN
    assert np.isnan(X_nan[:50]).any()
    assert np.isnan(X_nan[50:100]).any()
    on_codes = []
    walk = _walk._TreeGroup.walk

    def spy(self, values, codes, row_start, nan_free=False):
        on_codes.append(self.on_codes(nan_free) and codes is not None)
        return walk(self, values, codes, row_start, nan_free)

    monkeypatch.setattr(_walk._TreeGroup, "walk", spy)
    predicted = stack.predict(X_test, block_rows=50, n_threads=1)
    np.testing.assert_array_equal(predicted, reference(trees, values, X_test))
    assert on_codes == [True, True, False, False]


def test_infinite_threshold_is_not_a_leaf(monkeypatch):
    """Default direction 'missing right, all known left': threshold +inf at an internal node.

    The node is deeper than the shallowest leaf, where the walk tests which
    pairs are done; pairs at it must go on to its children, on floats and on
    codes.
    """
    X, X_nan, y = _missing_data(8)
    tree = CARTClassifier(missing="default_direction").fit(X_nan, y).tree_
    first_leaf = tree.depth[tree.is_leaf].min()
    # Every internal node on the two levels below the shallowest leaf.
    chosen = ~tree.is_leaf & (tree.depth > first_leaf) & (tree.depth <= first_leaf + 2)
    assert chosen.sum() >= 4
    threshold, missing_slot = tree.threshold.copy(), tree.missing_slot.copy()
    threshold[chosen], missing_slot[chosen] = np.inf, 1  # known values left, NaN right
    tree = dataclasses.replace(tree, threshold=threshold, missing_slot=missing_slot)
    nodes = tree.apply(X_nan)
    assert (tree.depth[nodes] > first_leaf + 3).mean() > 0.3  # many rows go on below them
    values = scrambled([tree], 2, seed=8)
    expected = reference([tree], values, X_nan)
    np.testing.assert_array_equal(StackedTrees([tree], values).predict(X_nan), expected)
    monkeypatch.setattr(_walk, "CODES_PAY", 0.0)
    coded = StackedTrees([tree], values)
    assert coded.groups[0].coded
    assert (tree.depth[tree.apply(X)] > first_leaf + 3).mean() > 0.3
    np.testing.assert_array_equal(coded.predict(X), reference([tree], values, X))


@pytest.mark.parametrize("n_threads", [1, 2])
@pytest.mark.parametrize("block_rows", [1, 2, 7, 64, 1000])
def test_blocks_and_threads_do_not_change_the_sum(block_rows, n_threads, make_stack):
    X, y = make_regression(203, 5, random_state=9)
    forest = RandomForestRegressor(n_estimators=9, random_state=9).fit(X, y)
    trees = [member.tree_ for member in forest.estimators_]
    values = scrambled(trees, 2, seed=9)
    stack = make_stack(trees, values)
    predicted = stack.predict(X, n_threads=n_threads, block_rows=block_rows)
    np.testing.assert_array_equal(predicted, reference(trees, values, X))


def test_one_row_and_no_rows():
    X, y = make_regression(300, 4, random_state=10)
    forest = RandomForestRegressor(n_estimators=6, random_state=10).fit(X, y)
    trees = [member.tree_ for member in forest.estimators_]
    values = scrambled(trees, 3, seed=10)
    stack = StackedTrees(trees, values)
    np.testing.assert_array_equal(stack.predict(X[5:6]), reference(trees, values, X[5:6]))
    empty = stack.predict(np.empty((0, 4)))
    assert empty.shape == (0, 3)


def test_check_block_sees_every_block_before_the_walk():
    X, y = make_regression(100, 3, random_state=11)
    tree = CARTRegressor().fit(X, y).tree_
    stack = StackedTrees([tree], [tree.value])
    seen = []
    stack.predict(X, lambda block: seen.append(block.copy()), block_rows=30, n_threads=1)
    assert [len(block) for block in seen] == [30, 30, 30, 10]
    np.testing.assert_array_equal(np.concatenate(seen), X)

    def reject(block):
        raise ValueError("column 'x' has NaN")

    with pytest.raises(ValueError, match="column 'x'"):
        stack.predict(X, reject, n_threads=2)


def test_bad_stacks_are_rejected():
    X, y = make_regression(50, 3, random_state=12)
    tree = CARTRegressor(max_depth=2).fit(X, y).tree_
    with pytest.raises(ValueError, match="same number of value columns"):
        StackedTrees([tree, tree], [tree.value, np.hstack([tree.value, tree.value])])
    with pytest.raises(ValueError, match=r"lie in \[0, 1\)"):
        StackedTrees([tree], [tree.value], [1], 1)
    used = int(tree.feature.max()) + 1
    with pytest.raises(ValueError, match=f"at least {used} columns"):
        StackedTrees([tree], [tree.value]).predict(X[:, : used - 1])
    tables = _walk._Thresholds([np.linspace(-3, 3, 7)] * 3)
    with pytest.raises(ValueError, match="needs split_codes"):
        StackedTrees([tree], [tree.value], thresholds=tables)
    with pytest.raises(ValueError, match="needs split_codes"):
        StackedTrees([tree], [tree.value], thresholds=tables, split_codes=[None, None])
    with pytest.raises(ValueError, match=f"for a tree of {tree.node_count} nodes"):
        StackedTrees([tree], [tree.value], thresholds=tables, split_codes=[np.zeros(2, np.uint8)])


def _with_many_thresholds():
    """A full regression tree on one feature of 3000 distinct values: > 255 thresholds."""
    rng = np.random.default_rng(13)
    X = rng.normal(size=(3000, 2))
    y = np.sin(3 * X[:, 0]) + 0.1 * rng.normal(size=3000)
    return X, CARTRegressor().fit(X, y).tree_


def _distinct_thresholds(trees, j):
    """Independently: the sorted distinct finite-or-infinite thresholds of feature ``j``."""
    values = np.concatenate([t.threshold[(t.feature == j)] for t in trees])
    return np.unique(values[~np.isnan(values)])


def _with_threshold(tree, at, value):
    """A copy of ``tree`` whose ``at``-th internal node has the threshold ``value``."""
    threshold = tree.threshold.copy()
    threshold[np.flatnonzero(~tree.is_leaf)[at]] = value
    return dataclasses.replace(tree, threshold=threshold)


@pytest.mark.parametrize("case", ["shared thresholds", "255 thresholds", "many thresholds"])
def test_codes_take_the_same_branch_as_the_values(case):
    """Brute force: ``x > t`` iff ``code(x) > code(t)`` for every value and every node.

    The values are every threshold, its floating-point neighbours, 0, -0, the
    infinities and NaN; the codes are also checked against ``np.searchsorted``.
    Cases: integer features whose ranges overlap, so that a threshold
    (k + 0.5) recurs across features, also where one feature's list ends and
    the next one's begins; exactly 255 distinct thresholds on one feature
    and a NaN threshold, one code more than uint8 allows next to the leaf
    mark; thousands (uint16). Copies of a tree add a NaN threshold (every
    value goes left) and a +inf one.
    """
    rng = np.random.default_rng(14)
    if case == "shared thresholds":
        X = rng.integers(0, 4, size=(500, 3)) + np.array([0, 2, 4])  # 0-3, 2-5, 4-7
        X = X.astype(float)
        y = X @ [1.0, -2.0, 0.5] + rng.normal(size=500)
        trees = [CARTRegressor(max_depth=7, random_state=s).fit(X, y).tree_ for s in range(3)]
        dtype = np.uint8
    elif case == "255 thresholds":
        X = np.arange(256.0)[:, None]
        trees = [CARTRegressor().fit(X, np.arange(256.0)).tree_]
        assert trees[0].n_leaves == 256
        dtype = np.uint16
    else:
        X, tree = _with_many_thresholds()
        trees = [tree]
        dtype = np.uint16
    trees.append(_with_threshold(trees[0], 3, np.nan))
    if case != "255 thresholds":  # +inf would be a 256th threshold
        trees.append(_with_threshold(trees[0], 10, np.inf))
    thresholds = _walk._Thresholds.of_trees(trees)
    assert thresholds.dtype == dtype
    finite = np.concatenate([t.threshold[~t.is_leaf] for t in trees])
    special = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1e300, -1e300])
    probes = np.concatenate(
        [finite, np.nextafter(finite, np.inf), np.nextafter(finite, -np.inf), special]
    )
    block = np.repeat(probes[:, None], X.shape[1], axis=1)
    codes = thresholds.encode(block).astype(np.int64)
    for j in range(X.shape[1]):
        expected = np.searchsorted(_distinct_thresholds(trees, j), probes, side="left")
        expected[np.isnan(probes)] = 0
        np.testing.assert_array_equal(codes[:, j], expected)
    leaf_mark = np.iinfo(thresholds.dtype).max
    for tree, split in zip(trees, thresholds.split_codes, strict=True):
        assert (split[tree.is_leaf] == leaf_mark).all()
        assert (split[~tree.is_leaf] < leaf_mark).all()  # no internal node looks like a leaf
        for node in np.flatnonzero(~tree.is_leaf):
            j = tree.feature[node]
            goes_right = probes > tree.threshold[node]
            np.testing.assert_array_equal(codes[:, j] > split[node], goes_right)


def test_many_thresholds_walk_on_uint16_codes(make_stack):
    X, tree = _with_many_thresholds()
    # Unusual thresholds too: NaN (every value fails ``x > NaN``: left) and +inf.
    trees = [tree, _with_threshold(tree, 5, np.nan), tree, _with_threshold(tree, 40, np.inf)]
    values = scrambled(trees, 1, seed=15)
    stack = make_stack(trees, values)
    if stack.thresholds is not None:
        assert stack.thresholds.dtype == np.uint16
    X_test = np.vstack([X[:500], [[np.nan, 0.0], [np.inf, -np.inf], [-np.inf, np.nan]]])
    np.testing.assert_array_equal(
        stack.predict(X_test, block_rows=97), reference(trees, values, X_test)
    )


@pytest.mark.parametrize("n_thresholds", [254, 255])
def test_the_largest_codes_carry_into_the_child(n_thresholds, monkeypatch):
    """The fused code step at the edge of its code width (uint8 up to 254 thresholds).

    A value above every threshold has the largest code a value can have;
    against the largest split code it must still go right, and a leaf's mark
    must still hold it.
    """
    monkeypatch.setattr(_walk, "CODES_PAY", 0.0)
    X, tree = _with_many_thresholds()
    distinct = _distinct_thresholds([tree], 0)
    kept = set(distinct[np.linspace(0, distinct.size - 1, n_thresholds).astype(int)].tolist())
    # Every threshold moves to the nearest kept one: a valid tree with at
    # most ``n_thresholds`` distinct thresholds per feature, exactly that
    # many on feature 0.
    table = np.array(sorted(kept))
    threshold = tree.threshold.copy()
    internal = ~tree.is_leaf
    threshold[internal] = table[np.abs(threshold[internal, None] - table).argmin(axis=1)]
    tree = dataclasses.replace(tree, threshold=threshold)
    values = scrambled([tree], 1, seed=21)
    stack = StackedTrees([tree], values)
    assert stack.groups[0].coded
    assert stack.groups[0].code_bits == (8 if n_thresholds < 255 else 16)
    X_test = np.vstack([X[:300], [[table[-1] + 1.0, 0.0], [table[-1], 0.0], [np.inf, np.inf]]])
    np.testing.assert_array_equal(stack.predict(X_test), reference([tree], values, X_test))


def test_codes_are_used_when_they_pay():
    """Deep trees on few features walk on codes; stumps on many features do not."""
    X, y = make_regression(3000, 4, random_state=16)
    deep = [CARTRegressor(random_state=s, max_features=3).fit(X, y).tree_ for s in range(20)]
    assert StackedTrees(deep, [t.value for t in deep]).thresholds is not None
    X_wide, y_wide = make_regression(300, 60, random_state=16)
    stumps = [CARTRegressor(max_depth=1).fit(X_wide[:, s:], y_wide).tree_ for s in range(50)]
    assert StackedTrees(stumps, [t.value for t in stumps]).thresholds is None


def test_codes_are_built_only_when_the_rows_repay_them(monkeypatch):
    monkeypatch.setattr(_walk, "CODES_PAY", 0.0)  # isolate the rule on the number of rows
    X, y = make_classification(n_samples=3000, n_features=8, random_state=5)
    forest = RandomForestClassifier(n_estimators=6, random_state=0).fit(X, y)
    trees = [member.tree_ for member in forest.estimators_]
    values = [tree.value for tree in trees]
    nodes = sum(tree.node_count for tree in trees)
    visits = sum(_walk._visits_per_row(tree) for tree in trees)
    enough = int(np.ceil(_walk.CODES_BUILD_COST * nodes / visits))
    unknown = StackedTrees(trees, values)
    few = StackedTrees(trees, values, n_rows=enough // 2)
    many = StackedTrees(trees, values, n_rows=enough)
    assert unknown.thresholds is not None  # rows unknown: the per-row rule alone
    assert few.thresholds is None
    assert many.thresholds is not None
    expected = reference(trees, values, X[:500])
    for stack in (unknown, few, many):
        np.testing.assert_array_equal(stack.predict(X[:500]), expected)


# ------------------------------------------------- codes stored at fit: the bin edges


def _edge_probes(edges):
    """Every edge, its floating-point neighbours, and the special values."""
    special = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1e300, -1e300])
    return np.concatenate(
        [edges, np.nextafter(edges, np.inf), np.nextafter(edges, -np.inf), special]
    )


@pytest.mark.parametrize("estimator", ["classifier", "regressor"])
def test_histogram_trees_walk_on_their_bin_codes(estimator):
    """In histogram mode every threshold is a bin edge, so a tree's split codes are
    fixed at fit: ``c(t)`` is the threshold's bin, and every value takes the same
    branch on codes as on floats (brute force around every edge)."""
    X, y = make_regression(900, 5, noise=3.0, random_state=17)
    if estimator == "classifier":
        y = (y > np.median(y)).astype(int)
        forest = RandomForestClassifier(n_estimators=6, max_bins=20, random_state=0)
    else:
        forest = RandomForestRegressor(n_estimators=6, max_bins=20, random_state=0)
    forest.fit(X, y)
    bins = _walk._Thresholds.of_bins(forest._specs)
    assert bins.dtype == np.uint8
    assert bins.width == 32  # 19 edges per feature
    probes = [_edge_probes(spec.values) for spec in forest._specs]
    size = max(p.size for p in probes)
    block = np.column_stack([np.resize(p, size) for p in probes])
    codes = bins.encode(block).astype(np.int64)
    for j, spec in enumerate(forest._specs):  # the bins of training (NaN: 0, goes left)
        expected = np.searchsorted(spec.values, block[:, j], side="left")
        expected[np.isnan(block[:, j])] = 0
        np.testing.assert_array_equal(codes[:, j], expected)
    for member in forest.estimators_:
        tree, split = member.tree_, member._split_codes
        np.testing.assert_array_equal(split, bins.split_codes_of(tree))
        assert (split[tree.is_leaf] == 255).all()
        for node in np.flatnonzero(~tree.is_leaf):
            j = tree.feature[node]
            assert forest._specs[j].values[split[node]] == tree.threshold[node]
            np.testing.assert_array_equal(
                codes[:, j] > split[node], block[:, j] > tree.threshold[node]
            )


def test_forest_predicts_with_its_stored_codes(monkeypatch):
    """The estimator hands its stored codes to the stack; the sums stay exact."""
    monkeypatch.setattr(_walk, "CODES_PAY", 0.0)
    X, y = make_classification(900, 6, n_informative=4, n_classes=3, random_state=18)
    forest = RandomForestClassifier(n_estimators=8, max_bins=24, random_state=0)
    forest.fit(X[:600], y[:600])
    trees = [member.tree_ for member in forest.estimators_]
    stored = stored_codes(forest, trees)
    stack = StackedTrees(trees, node_tables(forest), **stored)
    assert stack.thresholds is stored["thresholds"]
    assert all(group.coded for group in stack.groups)
    for group in stack.groups:  # the stored codes, not codes rebuilt from the trees
        assert group.code_bits == 8
    X_test = np.vstack([X[600:], [[np.nan] * 6, [np.inf] * 6, [-np.inf] * 6]])
    expected = reference(trees, [t.value for t in trees], X_test[:-3])
    np.testing.assert_array_equal(stack.predict(X_test[:-3], block_rows=41), expected)
    np.testing.assert_array_equal(forest.predict_proba(X_test[:-3]), expected / len(trees))
    # NaN goes left at every node, as ``x > threshold`` is False (no missing routes here).
    nan_row = X_test[-3:-2]
    np.testing.assert_array_equal(
        stack.predict(nan_row), reference(trees, [t.value for t in trees], nan_row)
    )


def test_exact_mode_stores_no_codes_and_missing_routes_do():
    X, y = make_regression(500, 4, random_state=19)
    exact = RandomForestRegressor(n_estimators=3, random_state=0).fit(X, y)
    assert all(member._split_codes is None for member in exact.estimators_)
    assert stored_codes(exact, [m.tree_ for m in exact.estimators_]) == {}
    # A histogram tree with learned default directions for NaN has codes:
    # blocks without NaN walk on them (a NaN has no code of its own).
    X_missing = X.copy()
    X_missing[::7, 0] = np.nan
    routed = CARTRegressor(max_bins=16, missing="default_direction").fit(X_missing, y)
    assert (routed.tree_.missing_slot != -1).any()
    bins = _walk._Thresholds.of_bins(routed._specs)
    unrouted = dataclasses.replace(routed.tree_, missing_slot=None)  # every slot: none
    np.testing.assert_array_equal(bins.split_codes_of(routed.tree_), bins.split_codes_of(unrouted))
    # A threshold that is not an edge: no codes.
    assert bins.split_codes_of(_with_threshold(unrouted, 0, 1e-3 + unrouted.threshold[0])) is None


def test_codes_of_foreign_or_replaced_trees_are_not_used(monkeypatch):
    """Codes count only for the bins and the tree they were computed for."""
    monkeypatch.setattr(_walk, "CODES_PAY", 0.0)
    X, y = make_regression(700, 4, noise=2.0, random_state=20)
    first = RandomForestRegressor(n_estimators=4, max_bins=16, random_state=0).fit(X, y)
    # Other bin edges: the same trees on data scaled by 10 split at edges 10x apart.
    second = RandomForestRegressor(n_estimators=4, max_bins=16, random_state=0).fit(X * 10, y)
    mixed = RandomForestRegressor(n_estimators=4, max_bins=16, random_state=0).fit(X, y)
    # Members of other forests: bins held by other objects (``first``, equal
    # edges) or other edges (``second``): both walk on floats.
    mixed.estimators_ = [first.estimators_[0], second.estimators_[1], *mixed.estimators_[2:]]
    bigger = max(first.estimators_, key=lambda m: m.tree_.node_count).tree_
    smaller = min(mixed.estimators_[2:], key=lambda m: m.tree_.node_count)
    assert bigger.node_count != smaller.tree_.node_count
    smaller.tree_ = bigger  # its stored codes were computed for another tree
    trees = [member.tree_ for member in mixed.estimators_]
    stored = stored_codes(mixed, trees)
    kept = [codes is not None for codes in stored["split_codes"]]
    assert kept == [False, False] + [m is not smaller for m in mixed.estimators_[2:]]
    X_test = np.vstack([X[:200], X[:200] * 10])
    expected = reference(trees, [t.value for t in trees], X_test)[:, 0] / len(trees)
    np.testing.assert_array_equal(mixed.predict(X_test), expected)


def test_threads_only_for_enough_rows():
    """One thread per MIN_ROWS_PER_THREAD rows, at most the cores (or the cap given)."""
    per_thread = _walk.MIN_ROWS_PER_THREAD
    assert _walk.threads_for_rows(1, 8) == 1
    assert _walk.threads_for_rows(2 * per_thread - 1, 8) == 1
    assert _walk.threads_for_rows(2 * per_thread, 8) == 2
    assert _walk.threads_for_rows(100 * per_thread, 3) == 3
    assert _walk.threads_for_rows(100 * per_thread) == _walk.available_cores()
