"""Best-first CART (``max_leaf_nodes``) against scikit-learn and against its own definition.

scikit-learn grows a tree with ``max_leaf_nodes`` best first: every node's
best split is searched when the node is created, and the leaf whose split has
the largest weighted impurity decrease ``N_t/N * (i(t) - N_L/N_t i(t_L) -
N_R/N_t i(t_R))`` is split next. Where scikit-learn's tree does not depend on
its random feature order (no ties between features: the same partition for
eight seeds), mltrees must grow the same tree: the same nodes in the same
order (scikit-learn numbers nodes as they are created, as mltrees does), the
same partition of the training rows and the same held-out predictions.
Where scikit-learn has ties the case is skipped, and a guard test makes sure
most cases are compared.
"""

from __future__ import annotations

import numpy as np
import pytest
from _estimator_checks import INPUT_BY_DESIGN, run_check
from sklearn import datasets, ensemble, tree
from sklearn.model_selection import train_test_split
from sklearn.utils.estimator_checks import parametrize_with_checks

from mltrees import AdaBoostClassifier, GradientBoostingClassifier, GradientBoostingRegressor
from mltrees.datasets import load_higgs, load_titanic
from mltrees.tree import CARTClassifier, CARTRegressor

LEAVES = [2, 4, 8, 16, 31]
SEEDS = range(8)
CLASSIFICATION = ["iris", "wine", "breast_cancer", "digits", "higgs"]
REGRESSION = ["diabetes", "higgs"]


def _load(name, regression=False):
    if name == "higgs":
        X, y = load_higgs(return_X_y=True)
        X = np.asarray(X, dtype=np.float64)[:1500]
        y = np.asarray(y)[:1500]
        if regression:  # predict the first feature (lepton pT) from the others
            X, y = X[:, 1:], X[:, 0]
    else:
        X, y = getattr(datasets, f"load_{name}")(return_X_y=True)
    # scikit-learn fits and predicts on float32 copies of X; float32-representable
    # data removes that difference (a test value never falls between the copies).
    X = X.astype(np.float32).astype(np.float64)
    return train_test_split(X, y, test_size=0.3, random_state=0)


def _same_partition(a, b) -> bool:
    """Whether two leaf labellings of the same rows define the same groups."""
    return len(set(zip(a.tolist(), b.tolist(), strict=True))) == len(set(a)) == len(set(b))


def _seed_invariant(make, X_train, y_train, sample_weight=None):
    """scikit-learn's tree if it partitions the rows alike for every seed, else None."""
    fitted = [make(seed).fit(X_train, y_train, sample_weight=sample_weight) for seed in SEEDS]
    leaves = [model.apply(X_train) for model in fitted]
    if all(_same_partition(leaves[0], other) for other in leaves[1:]):
        return fitted[0]
    return None


def _assert_same_tree(ours, sk, X_train, X_test) -> bool:
    """Assert that both trees hold the same rows at every node; return whether they
    also test the same features (then held-out rows fall alike too).

    Every node of one tree must hold exactly the training rows of a node of
    the other. Where matched nodes test the same feature, the thresholds
    agree up to scikit-learn's float32 midpoints. Where they test different
    features, both features separate the node's rows alike: the decreases
    are equal, a tie, which scikit-learn breaks by rounding or by its random
    feature order and mltrees by the lowest feature index.
    """
    assert ours.tree_.node_count == sk.tree_.node_count
    assert ours.get_n_leaves() == sk.get_n_leaves()
    ours_rows = ours.decision_path(X_train).toarray().astype(bool).T
    sk_rows = sk.decision_path(X_train).toarray().astype(bool).T
    where = {row.tobytes(): i for i, row in enumerate(ours_rows)}
    match = np.array([where.get(row.tobytes(), -1) for row in sk_rows])
    assert (match >= 0).all(), "a node of scikit-learn's tree holds rows no node of ours holds"
    internal = sk.tree_.feature >= 0
    np.testing.assert_array_equal(ours.tree_.feature[match] >= 0, internal)
    same = internal & (ours.tree_.feature[match] == sk.tree_.feature)
    # scikit-learn's threshold is a midpoint of float32 values computed in float64.
    np.testing.assert_allclose(
        ours.tree_.threshold[match][same], sk.tree_.threshold[same], rtol=1e-6
    )
    if same.sum() == internal.sum():
        assert _same_partition(ours.apply(X_test), sk.apply(X_test))
        return True
    return False


@pytest.mark.parametrize("max_leaf_nodes", LEAVES)
@pytest.mark.parametrize("name", CLASSIFICATION)
def test_classifier_matches_sklearn(name, max_leaf_nodes):
    X_train, X_test, y_train, _ = _load(name)
    sk = _seed_invariant(
        lambda seed: tree.DecisionTreeClassifier(max_leaf_nodes=max_leaf_nodes, random_state=seed),
        X_train,
        y_train,
    )
    if sk is None:
        pytest.skip("scikit-learn's tree depends on its random feature order here (ties)")
    ours = CARTClassifier(max_leaf_nodes=max_leaf_nodes).fit(X_train, y_train)
    same_features = _assert_same_tree(ours, sk, X_train, X_test)
    X_check = X_test if same_features else X_train
    np.testing.assert_allclose(ours.predict_proba(X_check), sk.predict_proba(X_check), atol=1e-12)
    np.testing.assert_array_equal(ours.predict(X_check), sk.predict(X_check))


@pytest.mark.parametrize("max_leaf_nodes", LEAVES)
@pytest.mark.parametrize("name", REGRESSION)
def test_regressor_matches_sklearn(name, max_leaf_nodes):
    X_train, X_test, y_train, _ = _load(name, regression=True)
    sk = _seed_invariant(
        lambda seed: tree.DecisionTreeRegressor(max_leaf_nodes=max_leaf_nodes, random_state=seed),
        X_train,
        y_train,
    )
    if sk is None:
        pytest.skip("scikit-learn's tree depends on its random feature order here (ties)")
    ours = CARTRegressor(max_leaf_nodes=max_leaf_nodes).fit(X_train, y_train)
    same_features = _assert_same_tree(ours, sk, X_train, X_test)
    # Leaf means: sums of the same targets in another order, equal to rounding.
    X_check = X_test if same_features else X_train
    np.testing.assert_allclose(ours.predict(X_check), sk.predict(X_check), rtol=1e-12, atol=1e-9)


@pytest.mark.parametrize(
    "params",
    [
        {"criterion": "entropy", "max_leaf_nodes": 12},
        {"max_leaf_nodes": 20, "max_depth": 3},
        {"max_leaf_nodes": 20, "min_samples_leaf": 7},
        {"max_leaf_nodes": 30, "min_impurity_decrease": 0.004},
        {"max_leaf_nodes": 16, "min_samples_split": 40},
    ],
)
@pytest.mark.parametrize("weighted", [False, True])
def test_other_limits_match_sklearn(params, weighted):
    X_train, X_test, y_train, _ = _load("wine")
    weights = None
    if weighted:
        weights = np.random.default_rng(0).uniform(0.5, 2.0, size=y_train.size)
    sk = _seed_invariant(
        lambda seed: tree.DecisionTreeClassifier(random_state=seed, **params),
        X_train,
        y_train,
        weights,
    )
    if sk is None:
        pytest.skip("scikit-learn's tree depends on its random feature order here (ties)")
    ours = CARTClassifier(**params).fit(X_train, y_train, sample_weight=weights)
    _assert_same_tree(ours, sk, X_train, X_test)


def test_most_comparisons_are_not_skipped():
    """Guard against a suite that passes by skipping: most cases must be tie-free."""
    compared, total = 0, 0
    for name in CLASSIFICATION:
        X_train, _, y_train, _ = _load(name)
        for k in LEAVES:
            make = lambda seed, k=k: tree.DecisionTreeClassifier(  # noqa: E731
                max_leaf_nodes=k, random_state=seed
            )
            compared += _seed_invariant(make, X_train, y_train) is not None
            total += 1
    assert compared >= 15, f"only {compared} of {total} cases are seed-invariant"  # 18 measured


def _weighted_decrease(X, y, rows, total_weight, criterion):
    """N_t/N times the best split's impurity decrease of the node holding ``rows``.

    Computed independently of best-first growth: a depth-1 tree (level-wise
    engine) on the node's rows alone.
    """
    stump = CARTClassifier(max_depth=1, criterion=criterion).fit(X[rows], y[rows])
    t = stump.tree_
    if t.node_count == 1:
        return -np.inf
    children = t.weighted_n_node_samples[1:] / t.weighted_n_node_samples[0]
    gain = t.impurity[0] - children @ t.impurity[1:]
    return rows.size / total_weight * gain


@pytest.mark.parametrize("criterion", ["gini", "entropy"])
def test_each_split_is_the_leaf_with_the_largest_weighted_decrease(criterion):
    """The tree with k + 1 leaves is the k-leaf tree plus the best split of its best leaf."""
    X, _, y, _ = _load("breast_cancer")  # ties are harmless here: splits are re-found
    total_impurity = []
    for k in range(2, 13):
        before = CARTClassifier(max_leaf_nodes=k, criterion=criterion).fit(X, y)
        after = CARTClassifier(max_leaf_nodes=k + 1, criterion=criterion).fit(X, y)
        leaf_before, leaf_after = before.apply(X), after.apply(X)
        # The new tree refines the old partition by splitting exactly one leaf.
        assert len(set(zip(leaf_before, leaf_after, strict=True))) == len(set(leaf_after))
        assert after.get_n_leaves() == k + 1
        decreases = {
            int(leaf): _weighted_decrease(
                X, y, np.flatnonzero(leaf_before == leaf), y.size, criterion
            )
            for leaf in np.unique(leaf_before)
        }
        split_leaf = next(
            int(leaf)
            for leaf in np.unique(leaf_before)
            if np.unique(leaf_after[leaf_before == leaf]).size == 2
        )
        assert decreases[split_leaf] == pytest.approx(max(decreases.values()), rel=1e-12)
        is_leaf = after.tree_.feature < 0
        impurity = after.tree_.impurity[is_leaf] @ after.tree_.weighted_n_node_samples[is_leaf]
        total_impurity.append(impurity / y.size)
        if len(total_impurity) > 1:
            assert total_impurity[-2] - total_impurity[-1] == pytest.approx(
                decreases[split_leaf], rel=1e-9
            )


def _titanic():
    bunch = load_titanic()
    return bunch.data, bunch.target


@pytest.mark.parametrize(
    "params",
    [
        {"missing": "default_direction"},
        {"missing": "surrogate"},
        {"missing": "default_direction", "max_bins": 16},
        {"missing": "surrogate", "min_samples_leaf": 5, "max_depth": 6},
    ],
)
def test_large_budget_gives_the_level_wise_tree_with_categories_and_nan(params):
    """With a budget above the full tree's leaves, every admissible split is made."""
    X, y = _titanic()
    full = CARTClassifier(**params).fit(X, y)
    best_first = CARTClassifier(max_leaf_nodes=full.get_n_leaves() + 3, **params).fit(X, y)
    assert best_first.get_n_leaves() == full.get_n_leaves()
    assert _same_partition(full.apply(X), best_first.apply(X))
    np.testing.assert_array_equal(full.predict_proba(X), best_first.predict_proba(X))
    small = CARTClassifier(max_leaf_nodes=7, **params).fit(X, y)
    assert small.get_n_leaves() == 7


@pytest.mark.parametrize("criterion", ["squared_error", "absolute_error"])
@pytest.mark.parametrize("max_bins", [None, 32])
def test_large_budget_gives_the_level_wise_regression_tree(criterion, max_bins):
    X_train, _, y_train, _ = _load("diabetes")
    params = {"criterion": criterion, "max_bins": max_bins, "min_samples_leaf": 10}
    full = CARTRegressor(**params).fit(X_train, y_train)
    best_first = CARTRegressor(max_leaf_nodes=full.get_n_leaves() + 1, **params)
    best_first.fit(X_train, y_train)
    assert _same_partition(full.apply(X_train), best_first.apply(X_train))
    np.testing.assert_allclose(full.predict(X_train), best_first.predict(X_train), rtol=1e-12)


def test_histogram_mode_equals_exact_when_every_value_has_a_bin():
    X_train, _, y_train, _ = _load("wine")
    exact = CARTClassifier(max_leaf_nodes=10).fit(X_train, y_train)
    hist = CARTClassifier(max_leaf_nodes=10, max_bins=256).fit(X_train, y_train)
    assert max(np.unique(X_train[:, j]).size for j in range(X_train.shape[1])) <= 256
    # The same partition of the training rows (the thresholds may sit elsewhere
    # between two training values, so held-out rows can differ).
    assert _same_partition(exact.apply(X_train), hist.apply(X_train))
    np.testing.assert_array_equal(exact.predict(X_train), hist.predict(X_train))


def test_cost_complexity_pruning_applies_after_best_first_growth():
    X_train, _, y_train, _ = _load("breast_cancer")
    grown = CARTClassifier(max_leaf_nodes=20).fit(X_train, y_train)
    pruned = CARTClassifier(max_leaf_nodes=20, ccp_alpha=0.01).fit(X_train, y_train)
    assert pruned.get_n_leaves() < grown.get_n_leaves()


def test_ensembles_grow_best_first_members():
    X_train, X_test, y_train, y_test = _load("breast_cancer")
    boosted = AdaBoostClassifier(CARTClassifier(max_leaf_nodes=3), n_estimators=20)
    boosted.fit(X_train, y_train)
    assert {member.get_n_leaves() for member in boosted.estimators_} == {3}
    assert boosted.score(X_test, y_test) > 0.9


def test_feature_draws_are_seeded_and_the_budget_holds():
    X_train, _, y_train, _ = _load("digits")
    params = {"max_leaf_nodes": 12, "max_features": "sqrt", "random_state": 3}
    first = CARTClassifier(**params).fit(X_train, y_train)
    again = CARTClassifier(**params).fit(X_train, y_train)
    other = CARTClassifier(**{**params, "random_state": 4}).fit(X_train, y_train)
    assert first.get_n_leaves() == 12
    np.testing.assert_array_equal(first.tree_.feature, again.tree_.feature)
    assert not np.array_equal(first.tree_.feature, other.tree_.feature)


def test_model_file_round_trip():
    from mltrees.io import from_json, to_json

    X_train, X_test, y_train, _ = _load("wine")
    model = CARTClassifier(max_leaf_nodes=9).fit(X_train, y_train)
    loaded = from_json(to_json(model))
    np.testing.assert_array_equal(loaded.predict_proba(X_test), model.predict_proba(X_test))


@pytest.mark.parametrize("value", [1, 0, -3, 2.5, True, "8"])
def test_bad_values_are_rejected(value):
    X, y = datasets.load_iris(return_X_y=True)
    with pytest.raises(ValueError, match=r"max_leaf_nodes must be an int >= 2 or None, got"):
        CARTClassifier(max_leaf_nodes=value).fit(X, y)
    with pytest.raises(ValueError, match=r"max_leaf_nodes must be an int >= 2 or None, got"):
        CARTRegressor(max_leaf_nodes=value).fit(X, y.astype(float))


def test_c45_missing_method_is_refused_with_a_budget():
    X, y = _titanic()
    with pytest.raises(ValueError, match="max_leaf_nodes is not available with missing='c45'"):
        CARTClassifier(max_leaf_nodes=8, missing="c45").fit(X, y)


@pytest.mark.parametrize("max_leaf_nodes", [2, 4, 8])
@pytest.mark.parametrize("name", REGRESSION)
def test_gradient_boosting_regressor_matches_sklearn(name, max_leaf_nodes):
    """ESL's J-terminal-node trees: scikit-learn's GradientBoostingRegressor(max_leaf_nodes=J)."""
    X_train, X_test, y_train, _ = _load(name, regression=True)
    params = {"max_leaf_nodes": max_leaf_nodes, "max_depth": None, "n_estimators": 30}
    predictions = [
        ensemble.GradientBoostingRegressor(random_state=seed, **params)
        .fit(X_train, y_train)
        .predict(X_test)
        for seed in range(4)
    ]
    scale = np.abs(y_train).max()
    # Seeds that grow the same trees agree to rounding (sums in another order).
    if not all(
        np.allclose(predictions[0], other, rtol=0, atol=1e-12 * scale) for other in predictions[1:]
    ):
        pytest.skip("scikit-learn's trees depend on its random feature order here (ties)")
    ours = GradientBoostingRegressor(**params).fit(X_train, y_train)
    assert {tree.get_n_leaves() for tree in ours.estimators_[:, 0]} == {max_leaf_nodes}
    np.testing.assert_allclose(ours.predict(X_test), predictions[0], rtol=0, atol=1e-12 * scale)


@pytest.mark.parametrize("max_leaf_nodes", [4, 8])
def test_gradient_boosting_classifier_matches_sklearn(max_leaf_nodes):
    X_train, X_test, y_train, _ = _load("higgs")
    params = {"max_leaf_nodes": max_leaf_nodes, "max_depth": None, "n_estimators": 30}
    proba = [
        ensemble.GradientBoostingClassifier(random_state=seed, **params)
        .fit(X_train, y_train)
        .predict_proba(X_test)
        for seed in range(4)
    ]
    if not all(np.allclose(proba[0], other, rtol=0, atol=1e-12) for other in proba[1:]):
        pytest.skip("scikit-learn's trees depend on its random feature order here (ties)")
    ours = GradientBoostingClassifier(**params).fit(X_train, y_train)
    np.testing.assert_allclose(ours.predict_proba(X_test), proba[0], rtol=0, atol=1e-12)


def test_gradient_boosting_histogram_mode_grows_leaf_budgeted_trees():
    X_train, X_test, y_train, y_test = _load("higgs")
    model = GradientBoostingClassifier(max_leaf_nodes=6, max_depth=None, max_bins=64)
    model.set_params(n_estimators=20).fit(X_train, y_train)
    assert {tree.get_n_leaves() for tree in model.estimators_[:, 0]} == {6}
    assert model.score(X_test, y_test) > 0.6


@pytest.mark.parametrize("value", [1, 0, 2.5, "4"])
def test_gradient_boosting_rejects_bad_budgets(value):
    X, y = datasets.load_diabetes(return_X_y=True)
    with pytest.raises(ValueError, match=r"max_leaf_nodes must be an int >= 2 or None, got"):
        GradientBoostingRegressor(max_leaf_nodes=value).fit(X, y)


ESTIMATORS = [
    CARTClassifier(max_leaf_nodes=8),
    CARTClassifier(max_leaf_nodes=8, max_bins=16),
    CARTRegressor(max_leaf_nodes=8),
    GradientBoostingClassifier(n_estimators=10, max_leaf_nodes=5, max_depth=None),
    GradientBoostingRegressor(n_estimators=10, max_leaf_nodes=5, max_bins=16),
]


def _expected_failures(estimator) -> dict[str, str]:
    return dict(INPUT_BY_DESIGN)


@parametrize_with_checks(ESTIMATORS, expected_failed_checks=_expected_failures, xfail_strict=True)
def test_sklearn_estimator_checks(estimator, check):
    run_check(estimator, check, _expected_failures(estimator))
