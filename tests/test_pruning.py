"""Pruning (chapter 5): cost complexity against scikit-learn, C4.5's error bound,
Zhou's watermelon walk-through, reduced-error pruning and the compacted trees."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from sklearn import datasets, tree
from sklearn.model_selection import train_test_split

from mltrees.datasets import load_car_evaluation, load_watermelon
from mltrees.tree import (
    C45Classifier,
    CARTClassifier,
    CARTRegressor,
    ID3Classifier,
    export_text,
    plot_tree,
    to_dot,
)
from mltrees.tree._tree import LEAF
from mltrees.tree.pruning import (
    added_errors,
    cost_complexity_path,
    pessimistic_errors,
    prune_pessimistic,
    prune_reduced_error,
    prune_validation_pre,
)

# ---------------------------------------------------------------------------
# CART's cost-complexity path against scikit-learn
# ---------------------------------------------------------------------------

CASES = [
    ("iris", "gini"),
    ("iris", "entropy"),
    ("wine", "gini"),
    ("wine", "entropy"),
    ("breast_cancer", "gini"),
    ("breast_cancer", "entropy"),
    ("diabetes", "squared_error"),
]


def _data(name, split):
    X, y = getattr(datasets, f"load_{name}")(return_X_y=True)
    # float32-representable values: sklearn thresholds float32 copies of X.
    X = X.astype(np.float32).astype(np.float64)
    if not split:
        return X, y, X, y
    X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3, random_state=0)
    return X_train, y_train, X_test, y_test


def _same_tree(sk, ours, X_test) -> bool:
    """Same nodes up to numbering ((impurity, weight, value) multisets) and the same
    partition of held-out data (equal splits, not just equal training partitions)."""
    a, b = sk.tree_, ours.tree_
    same_partition = np.array_equal(_partition(sk.apply(X_test)), _partition(ours.apply(X_test)))
    same_values = np.allclose(sk.predict(X_test), ours.predict(X_test), rtol=1e-12, atol=0)
    if not (same_partition and same_values):
        return False
    if a.node_count != b.node_count or a.n_leaves != b.n_leaves:
        return False

    def key(t):
        values = np.round(t.value.reshape(t.node_count, -1), 9)
        return sorted(
            zip(
                np.round(t.impurity, 9), t.weighted_n_node_samples, map(tuple, values), strict=False
            )
        )

    key_a, key_b = key(a), key(b)
    return key_a == key_b


def _partition(nodes):
    """Relabel node ids by first occurrence: equal for equal partitions."""
    _, first, inverse = np.unique(nodes, return_index=True, return_inverse=True)
    return np.argsort(np.argsort(first))[inverse]


def _matching_sklearn(name, criterion, X, y, ours, X_test):
    """sklearn's tree for the first seed (of 32) that grows our unpruned tree, or None.

    sklearn visits features in a random order per node and keeps the first of
    equal splits, so its full tree depends on random_state (see
    tests/test_tree_vs_sklearn.py); only a tree with the same nodes has the
    same path.
    """
    Tree = tree.DecisionTreeRegressor if name == "diabetes" else tree.DecisionTreeClassifier
    for seed in range(32):
        sk = Tree(criterion=criterion, random_state=seed, **_LIMITS[name]).fit(X, y)
        if _same_tree(sk, ours, X_test):
            return sk, seed
    return None, None


# diabetes has integer targets: fully grown, many two-sample nodes tie in
# variance and sklearn's seeds pair them differently; five samples a leaf avoid that.
_LIMITS = {"iris": {}, "wine": {}, "breast_cancer": {}, "diabetes": {"min_samples_leaf": 5}}


def _ours(name, criterion, **params):
    if name == "diabetes":
        return CARTRegressor(criterion=criterion, **_LIMITS[name], **params)
    return CARTClassifier(criterion=criterion, **params)


@pytest.mark.parametrize("split", [False, True], ids=["all", "train"])
@pytest.mark.parametrize(("name", "criterion"), CASES)
def test_cost_complexity_path_equals_sklearn(name, criterion, split):
    X, y, X_test, _ = _data(name, split)
    ours = _ours(name, criterion).fit(X, y)
    sk, _ = _matching_sklearn(name, criterion, X, y, ours, X_test)
    if sk is None:
        pytest.skip("no seed of sklearn grows the same unpruned tree (ties)")
    theirs = sk.cost_complexity_pruning_path(X, y)
    path = ours.cost_complexity_pruning_path(X, y)
    # One node per step: alphas may repeat, entry for entry as in sklearn.
    assert path.ccp_alphas.size == theirs.ccp_alphas.size
    np.testing.assert_allclose(path.ccp_alphas, theirs.ccp_alphas, rtol=1e-9, atol=1e-15)
    np.testing.assert_allclose(path.impurities, theirs.impurities, rtol=1e-9, atol=1e-15)


@pytest.mark.parametrize("split", [False, True], ids=["all", "train"])
@pytest.mark.parametrize(("name", "criterion"), CASES)
def test_ccp_alpha_predictions_equal_sklearn(name, criterion, split):
    X, y, X_test, _ = _data(name, split)
    full = _ours(name, criterion).fit(X, y)
    sk, seed = _matching_sklearn(name, criterion, X, y, full, X_test)
    if sk is None:
        pytest.skip("no seed of sklearn grows the same unpruned tree (ties)")
    # Midway between consecutive distinct alphas of the path, so that no node's
    # effective alpha is within rounding noise of ccp_alpha (where the two
    # libraries' last bits decide); alphas that differ by rounding noise only
    # are one group.
    alphas = np.unique(sk.cost_complexity_pruning_path(X, y).ccp_alphas)
    alphas = alphas[np.append(True, ~np.isclose(alphas[1:], alphas[:-1], rtol=1e-9, atol=0))]
    midpoints = (alphas[:-1] + alphas[1:]) / 2
    Tree = type(sk)
    for alpha in midpoints[:: max(1, midpoints.size // 12)]:
        theirs = Tree(criterion=criterion, random_state=seed, ccp_alpha=alpha, **_LIMITS[name])
        theirs.fit(X, y)
        ours = _ours(name, criterion, ccp_alpha=alpha).fit(X, y)
        assert ours.get_n_leaves() == theirs.get_n_leaves(), alpha
        np.testing.assert_allclose(ours.predict(X_test), theirs.predict(X_test), rtol=1e-12)


@pytest.mark.parametrize(("name", "criterion"), CASES)
def test_every_data_set_is_compared(name, criterion):
    """The comparisons above skip a split only where sklearn's seeds all break a
    tie differently; for every data set at least one split is compared."""
    compared = []
    for split in (False, True):
        X, y, X_test, _ = _data(name, split)
        ours = _ours(name, criterion).fit(X, y)
        compared.append(_matching_sklearn(name, criterion, X, y, ours, X_test)[0] is not None)
    assert any(compared)


def test_weakest_link_by_hand():
    """A tree small enough to prune by hand, g(t) = (R(t) - R(T_t)) / (|T_t| - 1).

    x = 0..5 with classes 0 0 1 0 1 1 and Gini (W = 6). The root splits at 1.5
    (tied with 3.5; the first threshold wins) into the pure {0, 1} and A = {2..5}
    (R(A) = 4/6 * 3/8 = 1/4); A splits at 3.5 into B = {2, 3} (R(B) = 2/6 * 1/2
    = 1/6) and the pure {4, 5}; B splits into pure leaves. So g(B) = 1/6,
    g(A) = 1/4 / 2 = 1/8 and g(root) = 1/2 / 3 = 1/6: A goes first, at 1/8,
    taking B with it (total impurity 1/4); then g(root) = (1/2 - 1/4) / 1 = 1/4.
    """
    X = np.arange(6.0)[:, None]
    y = np.array([0, 0, 1, 0, 1, 1])
    model = CARTClassifier().fit(X, y)
    assert model.get_n_leaves() == 4
    alphas, impurities, _ = cost_complexity_path(model.tree_)
    np.testing.assert_allclose(alphas, [0, 1 / 8, 1 / 4])
    np.testing.assert_allclose(impurities, [0, 1 / 4, 1 / 2])
    sk = tree.DecisionTreeClassifier(random_state=0).cost_complexity_pruning_path(X, y)
    np.testing.assert_allclose(sk.ccp_alphas, alphas)
    assert CARTClassifier(ccp_alpha=1 / 8).fit(X, y).get_n_leaves() == 2


# ---------------------------------------------------------------------------
# Compaction: pruned trees are valid flat trees
# ---------------------------------------------------------------------------


def _walk(tree, values):
    """Reference prediction: one sample at a time, following first_child/threshold/routes."""
    out = []
    for row in values:
        node = 0
        while tree.feature[node] != LEAF:
            x = row[tree.feature[node]]
            if tree.kind[node] == 1:
                slot = tree.route_table[tree.route_offset[node] + int(x)]
                if slot < 0:
                    break
            else:
                slot = int(x > tree.threshold[node])
            node = tree.first_child[node] + slot
        out.append(node)
    return np.array(out)


def _check_layout(t):
    assert t.parent[0] == -1
    for i in np.flatnonzero(t.feature != LEAF):
        children = np.arange(t.first_child[i], t.first_child[i] + t.n_children[i])
        assert (t.parent[children] == i).all()
        assert (t.depth[children] == t.depth[i] + 1).all()
    assert (t.parent[1:] < np.arange(1, t.node_count)).all()
    # every non-root node is somebody's child exactly once
    kids = np.concatenate(
        [np.arange(f, f + n) for f, n in zip(t.first_child, t.n_children, strict=False) if n > 0]
        or [[]]
    )
    np.testing.assert_array_equal(np.sort(kids), np.arange(1, t.node_count))


@pytest.mark.parametrize("seed", range(5))
def test_collapse_gives_a_valid_tree_that_predicts_like_a_walk(seed):
    car = load_car_evaluation()
    X, y = car.data, car.target
    model = C45Classifier(pruning=None, min_cases=1).fit(X, y)
    rng = np.random.default_rng(seed)
    internal = np.flatnonzero(model.tree_.feature != LEAF)[1:]
    cut = rng.choice(internal, size=5, replace=False)
    pruned = model.tree_.collapse(cut)
    _check_layout(pruned)
    assert pruned.node_count < model.tree_.node_count
    values = model._values(X)
    # The reference walk on the unpruned tree, stopped at a cut node, ends where
    # the pruned tree's apply ends (same value).
    np.testing.assert_array_equal(
        pruned.value[pruned.apply(values)], pruned.value[_walk(pruned, values)]
    )
    full_nodes = model.tree_.apply(values, return_path=True)
    _, samples, nodes = full_nodes
    stopped = np.zeros(len(X), dtype=int) - 1
    is_cut = np.isin(nodes, cut)
    first_cut = {}
    for s, n in zip(samples[is_cut], nodes[is_cut], strict=False):
        first_cut.setdefault(s, n)
    expected = model.tree_.apply(values)
    for s, n in first_cut.items():
        stopped[s] = n
    expected_value = np.where(
        (stopped >= 0)[:, None],
        model.tree_.value[np.maximum(stopped, 0)],
        model.tree_.value[expected],
    )
    np.testing.assert_allclose(pruned.value[pruned.apply(values)], expected_value)


def test_pruned_estimators_export_and_plot():
    X, y, _, _ = _data("breast_cancer", True)
    model = CARTClassifier(ccp_alpha=0.01).fit(X, y)
    full = CARTClassifier().fit(X, y)
    assert model.get_n_leaves() < full.get_n_leaves()
    _check_layout(model.tree_)
    assert export_text(model).count("class:") == model.get_n_leaves()
    assert "->" in to_dot(model)
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots()
    plot_tree(model, ax=ax)
    plt.close(fig)
    assert model.decision_path(X).shape == (len(X), model.tree_.node_count)


# ---------------------------------------------------------------------------
# C4.5's pessimistic error estimate
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("n", [1, 2, 6, 9, 16, 100])
def test_zero_errors_is_the_exact_binomial_bound(n):
    """With e = 0, U solves P(no error in n) = (1 - U)^n = CF: the one-sided
    Clopper-Pearson upper limit, computed here by scipy's beta quantile."""
    upper = stats.beta.ppf(0.75, 1, n)  # Clopper-Pearson upper limit for 0 errors
    assert added_errors(n, 0, 0.25) == pytest.approx(n * upper, rel=1e-9)


@pytest.mark.parametrize(("n", "e"), [(16, 1), (50, 5), (200, 20), (1000, 37)])
def test_normal_approximation_is_close_to_the_exact_bound(n, e):
    """For e >= 1 J48 uses the normal approximation with continuity correction;
    it stays within 4% of the exact (Clopper-Pearson) bound."""
    exact = stats.beta.ppf(0.75, e + 1, n - e) * n
    approx = e + added_errors(n, e, 0.25)
    assert approx == pytest.approx(exact, rel=0.04)


def test_quinlan_1993_congressional_voting_example():
    """Quinlan (1993, section 4.2): leaves with (N, E) = (6, 0), (9, 0), (1, 0) give
    predicted errors 6 x 0.206, 9 x 0.143 and 1 x 0.750, together 3.273; the node as
    a leaf, (16, 1), gives 16 x 0.157 = 2.512, so the subtree is replaced.

    Quinlan's numbers are exact binomial bounds; J48's normal approximation gives
    2.476 for (16, 1); the decision is the same."""
    leaves = pessimistic_errors([[6, 0], [9, 0], [1, 0]], 0.25)
    np.testing.assert_allclose(leaves, [6 * 0.206, 9 * 0.143, 1 * 0.750], atol=6e-3)
    assert leaves.sum() == pytest.approx(3.273, abs=5e-3)
    node = float(pessimistic_errors([15, 1], 0.25))
    assert node == pytest.approx(16 * 0.157, abs=0.05)
    assert node < leaves.sum()


# Printed by Weka 3.6.14's weka.classifiers.trees.j48.Stats.addErrs(N, e, CF),
# the pessimistic bound J48 prunes with, called from a five-line Java class
# (javac -cp /usr/share/java/weka.jar; CF is a Java float there, hence rel=1e-6
# for CF = 0.1 and 0.05). Fractional e (C4.5's weights) below one error is interpolated.
WEKA_ADD_ERRS = [
    (10, 0.4, 0.25, 1.341721220627051),
    (3, 0.4, 0.25, 1.083795190557727),
    (50, 0.9, 0.05, 3.876758279982196),
    (1, 0, 0.25, 0.75),
    (16, 1, 0.25, 1.4757146318372634),
    (7, 1, 0.25, 1.3420158198106202),
    (20, 4.5, 0.1, 3.295111352075148),
    (3, 2.6, 0.5, 0.3999999999999999),
    (100, 37, 0.25, 3.8150583504395073),
    (6, 0, 0.25, 1.2377968440954012),
]


@pytest.mark.parametrize(("n", "e", "cf", "weka"), WEKA_ADD_ERRS)
def test_added_errors_equal_j48s(n, e, cf, weka):
    assert added_errors(n, e, cf) == pytest.approx(weka, rel=1e-6)


def _pessimistic_by_recursion(tree, node, cf):
    """Reference: J48's prune() without raising, recursively on node objects."""
    counts = tree.value[node] * tree.weighted_n_node_samples[node]
    leaf_errors = float(pessimistic_errors(counts, cf))
    if tree.feature[node] == LEAF:
        return leaf_errors, 1
    children = range(tree.first_child[node], tree.first_child[node] + tree.n_children[node])
    results = [_pessimistic_by_recursion(tree, c, cf) for c in children]
    subtree = sum(r[0] for r in results)
    if leaf_errors <= subtree + 0.1 + 1e-6:
        return leaf_errors, 1
    return subtree, sum(r[1] for r in results)


@pytest.mark.parametrize("cf", [0.05, 0.25, 0.5])
def test_pessimistic_without_raising_matches_a_recursion(cf):
    car = load_car_evaluation()
    model = C45Classifier(pruning=None, min_cases=1).fit(car.data, car.target)
    pruned = prune_pessimistic(model.tree_, cf, collapse=False)
    _, n_leaves = _pessimistic_by_recursion(model.tree_, 0, cf)
    assert pruned.n_leaves == n_leaves
    _check_layout(pruned)


def test_smaller_confidence_prunes_more():
    car = load_car_evaluation()
    sizes = [
        C45Classifier(confidence=cf).fit(car.data, car.target).get_n_leaves()
        for cf in (0.5, 0.25, 0.1, 0.01)
    ]
    assert sizes == sorted(sizes, reverse=True)
    assert sizes[0] > sizes[-1]


def test_c45_pruning_none_is_the_grown_tree():
    car = load_car_evaluation()
    grown = C45Classifier(pruning=None).fit(car.data, car.target)
    pruned = C45Classifier().fit(car.data, car.target)
    assert pruned.get_n_leaves() < grown.get_n_leaves()


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"pruning": "rep"}, "pruning must be"),
        ({"confidence": 0.0}, "confidence must be"),
        ({"confidence": 0.7}, "confidence must be"),
        ({"min_cases": 0}, "min_cases must be"),
        ({"selection": "gini"}, "selection must be"),
        ({"selection": ["c45"]}, "selection must be"),
        ({"release": "5"}, r"release must be '8' .* or '1993' .*, got '5'"),
        ({"release": 8}, r"release must be '8' .* or '1993' .*, got 8"),
        ({"release": None}, "release must be"),
    ],
)
def test_bad_c45_parameters(params, message):
    X = pd.DataFrame({"a": ["x", "y", "x", "y"]})
    with pytest.raises(ValueError, match=message):
        C45Classifier(**params).fit(X, [0, 1, 0, 1])


@pytest.mark.parametrize("alpha", [-0.1, float("nan"), "0.1"])
def test_bad_ccp_alpha(alpha):
    with pytest.raises(ValueError, match="ccp_alpha must be"):
        CARTClassifier(ccp_alpha=alpha).fit([[0.0], [1.0]], [0, 1])


# ---------------------------------------------------------------------------
# Zhou (2016), section 4.3: watermelon 2.0 with the book's train/validation split
# ---------------------------------------------------------------------------

TRAIN_IDS = [1, 2, 3, 6, 7, 10, 14, 15, 16, 17]
VALIDATION_IDS = [4, 5, 8, 9, 11, 12, 13]


@pytest.fixture(scope="module")
def zhou():
    """The split of Zhou's Table 4.2. Two ties are broken as the book does:
    navel and color have the same gain at the root (0.276) and the book takes
    navel, so navel is put first (mltrees takes the first column); and the book
    labels a leaf with equal class counts 'good', so the classes are named to
    sort 'good' first (mltrees takes the first class)."""
    melon = load_watermelon("2.0")
    X = melon.data[["navel"] + [c for c in melon.data.columns if c != "navel"]]
    y = melon.target.map({"yes": "good", "no": "not good"})
    model = ID3Classifier().fit(X.loc[TRAIN_IDS], y.loc[TRAIN_IDS])
    return model, X.loc[VALIDATION_IDS], y.loc[VALIDATION_IDS]


def _accuracy_if_leaf(model, nodes, X_val, y_val):
    pruned = model.tree_.collapse(list(nodes))
    predicted = model.classes_[np.argmax(pruned.value, axis=1)[pruned.apply(model._values(X_val))]]
    return float(np.mean(predicted == np.asarray(y_val)))


def _node(model, *path):
    """Node id reached by following branch labels from the root, e.g. ('slightly hollow',)."""
    t, names = model.tree_, model.feature_names_in_
    node = 0
    for category in path:
        spec = model._specs[t.feature[node]]
        code = list(spec.values).index(category)
        node = t.first_child[node] + t.route_table[t.route_offset[node] + code]
    del names
    return node


def test_zhou_figure_4_5_unpruned_tree(zhou):
    model, X_val, y_val = zhou
    text = export_text(model)
    assert text.startswith("|--- navel = hollow\n|   |--- color = green")
    assert model.get_n_leaves() == 11  # 3 + (1 + (1 + 3 + 1) + 1) + 1, empty branches included
    assert round(model.score(X_val, y_val), 3) == 0.429  # Zhou: 42.9%


def test_zhou_pre_pruning_walk_through(zhou):
    """Root: as a leaf ('good') 42.9%, split on navel 71.4% -> split. Navel = hollow:
    splitting on color drops to 57.1% -> no. Slightly hollow: splitting on root stays
    at 71.4% -> no. Flat is pure. Result: Figure 4.6, 71.4%."""
    model, X_val, y_val = zhou
    n = len(y_val)
    pre = prune_validation_pre(model, X_val, y_val)
    log = {node: (leaf, split, done) for node, _, leaf, split, done in pre.prepruning_log_}
    assert set(log) == {0, _node(model, "hollow"), _node(model, "slightly hollow")}
    # The root: validation errors as a leaf and with its children as leaves.
    leaf, split, done = log[0]
    assert (round(1 - leaf / n, 3), round(1 - split / n, 3), done) == (0.429, 0.714, True)
    # Below it, the whole tree's accuracy: the stump's 2 errors, with the node's
    # own errors as a leaf replaced by its errors when split.
    for path, accuracy in [("hollow", 0.571), ("slightly hollow", 0.714)]:
        leaf, split, done = log[_node(model, path)]
        assert (round(1 - (2 - leaf + split) / n, 3), done) == (accuracy, False)
    assert pre.get_n_leaves() == 3
    assert pre.get_depth() == 1
    assert round(pre.score(X_val, y_val), 3) == 0.714


def test_zhou_post_pruning_walk_through(zhou):
    """Bottom-up, replacing a subtree by a leaf only if validation accuracy rises:
    node 6 (texture) -> 57.1%, pruned; node 5 (color under slightly curled) -> still
    57.1%, kept; node 2 (color under hollow) -> 71.4%, pruned; nodes 3 and 1 -> 71.4%
    and 42.9%, kept. Result: Figure 4.7, 71.4%. Checked by brute force (collapse the
    node, predict, count), then against prune_reduced_error."""
    model, X_val, y_val = zhou
    node6 = _node(model, "slightly hollow", "slightly curled", "dark")
    node5 = _node(model, "slightly hollow", "slightly curled")
    node2 = _node(model, "hollow")
    node3 = _node(model, "slightly hollow")
    cut = []
    expected = [
        (node6, 0.571, True),
        (node5, 0.571, False),
        (node2, 0.714, True),
        (node3, 0.714, False),
        (0, 0.429, False),
    ]
    current = _accuracy_if_leaf(model, [], X_val, y_val)
    for node, accuracy, prune in expected:
        trial = _accuracy_if_leaf(model, [*cut, node], X_val, y_val)
        assert round(trial, 3) == accuracy
        assert (trial > current) == prune
        if prune:
            cut.append(node)
            current = trial
    post = prune_reduced_error(model, X_val, y_val, ties="keep")
    reference = model.tree_.collapse(cut)
    assert post.tree_.node_count == reference.node_count
    np.testing.assert_array_equal(post.tree_.feature, reference.feature)
    assert round(post.score(X_val, y_val), 3) == 0.714
    assert "navel = hollow\n|   |--- class: good" in export_text(post)


def test_reduced_error_pruning_prunes_ties_by_default(zhou):
    """Quinlan's rule prunes when the errors do not grow: node 5 goes too, then node 3."""
    model, X_val, y_val = zhou
    post = prune_reduced_error(model, X_val, y_val)
    assert post.get_n_leaves() == 3
    assert round(post.score(X_val, y_val), 3) == 0.714
    assert model.get_n_leaves() == 11  # the input is not modified


def test_reduced_error_never_increases_validation_error():
    X, y, X_val, y_val = _data("breast_cancer", True)
    for model in (CARTClassifier().fit(X, y), C45Classifier(pruning=None).fit(X, y)):
        post = prune_reduced_error(model, X_val, y_val)
        assert post.score(X_val, y_val) >= model.score(X_val, y_val)
        assert post.get_n_leaves() <= model.get_n_leaves()
    X, y, X_val, y_val = _data("diabetes", True)
    model = CARTRegressor().fit(X, y)
    post = prune_reduced_error(model, X_val, y_val)
    mse = lambda m: float(np.mean((m.predict(X_val) - y_val) ** 2))  # noqa: E731
    assert mse(post) <= mse(model)
    assert post.get_n_leaves() < model.get_n_leaves()


def test_reduced_error_checks_lengths():
    X, y, X_val, y_val = _data("iris", True)
    model = CARTClassifier().fit(X, y)
    with pytest.raises(ValueError, match="y_val"):
        prune_reduced_error(model, X_val, y_val[:-1])
    with pytest.raises(ValueError, match="ties"):
        prune_reduced_error(model, X_val, y_val, ties="maybe")


def test_subtree_raising_needs_data():
    model = CARTClassifier().fit(*_data("iris", False)[:2])
    with pytest.raises(ValueError, match="data="):
        prune_pessimistic(model.tree_, subtree_raising=True)


@pytest.mark.parametrize(("n", "e"), [(1, 0), (5, 0.3), (7, 1), (20, 4.5), (3, 2.6), (100, 37)])
def test_scalar_and_vector_error_bounds_agree(n, e):
    from statistics import NormalDist

    from mltrees.tree.pruning import _added_errors_scalar

    z = NormalDist().inv_cdf(0.75)
    assert _added_errors_scalar(float(n), float(e), 0.25, z) == pytest.approx(added_errors(n, e))


# ---------------------------------------------------------------------------
# Issue-3 leftovers: the public selection= rule and C4.5's min_cases
# ---------------------------------------------------------------------------


def _weather_with_marker():
    """Quinlan's weather table plus a column that singles out one 'no' day.

    The marker has a small gain (0.113 bits, below the average) but a tiny
    intrinsic value (0.371 bits), so its plain gain ratio (0.305) beats
    outlook's (0.156); C4.5's above-average rule excludes it.
    """
    from mltrees.datasets import load_weather

    weather = load_weather()
    X = weather.data.copy()
    y = np.asarray(weather.target)
    marker = np.zeros(len(y), dtype=bool)
    marker[np.flatnonzero(y == "no")[0]] = True
    X["marker"] = pd.Categorical(np.where(marker, "yes", "no"))
    return X, y


def test_selection_parameter_picks_the_documented_rule():
    from mltrees.criteria import gain_ratio, information_gain

    X, y = _weather_with_marker()
    gains = {c: information_gain(pd.crosstab(X[c], y)) for c in X.columns}
    ratios = {c: gain_ratio(pd.crosstab(X[c], y)) for c in X.columns}
    average = np.mean(list(gains.values()))
    assert gains["marker"] < average
    assert max(ratios, key=ratios.get) == "marker"
    above = [c for c in X.columns if gains[c] >= average]
    expected = {
        "gain": max(gains, key=gains.get),
        "gain_ratio": "marker",
        "c45": max(above, key=ratios.get),
    }
    assert expected["gain"] == expected["c45"] == "outlook"
    for selection, root in expected.items():
        for cls in (ID3Classifier, C45Classifier):
            params = {"selection": selection, "max_depth": 1}
            if cls is C45Classifier:
                params.update(pruning=None, min_cases=1)
            model = cls(**params).fit(X, y)
            assert model.feature_names_in_[model.tree_.feature[0]] == root, (cls, selection)


def test_min_cases_is_two_branches_not_every_leaf():
    """C4.5's MINOBJS: a multiway split is admissible when two branches hold
    min_cases cases, even if a third holds one; min_samples_leaf forbids that."""
    X = pd.DataFrame({"a": pd.Categorical(["p"] * 4 + ["q"] * 4 + ["r"])})
    y = np.array([0, 0, 0, 0, 1, 1, 1, 1, 0])
    c45 = C45Classifier(pruning=None).fit(X, y)  # min_cases=2 by default
    assert c45.tree_.n_children[0] == 3
    strict = C45Classifier(pruning=None, min_cases=1, min_samples_leaf=2).fit(X, y)
    assert strict.get_n_leaves() == 1
    # Fewer than 2 * min_cases cases: no split at all.
    small = C45Classifier(pruning=None).fit(X.iloc[[0, 4, 8]], y[[0, 4, 8]])
    assert small.get_n_leaves() == 1
