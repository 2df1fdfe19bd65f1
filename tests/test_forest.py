"""Random forests (chapter 10): against scikit-learn, against brute force, bad input.

* Accuracy and R² match scikit-learn's forests **within noise**: both are
  fitted on the same splits for 6 seeds and the paired differences must have
  a mean within 3 standard errors of 0 (their own seed-to-seed spread), plus
  one test sample's worth of accuracy. A systematic loss of a point or more
  fails; the random draws of two different generators do not.
* The out-of-bag accuracy tracks the test accuracy: averaged over seeds,
  within 3 binomial standard errors of the test accuracy.
* Without randomness (no bootstrap, all features at every node) every tree is
  the single CART tree; ``feature_importances_`` equals the mean of each
  tree's normalised impurity decrease computed node by node in the test.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from sklearn import ensemble
from sklearn.base import clone
from sklearn.datasets import load_breast_cancer, load_diabetes, load_wine
from sklearn.inspection import permutation_importance
from sklearn.model_selection import train_test_split

from mltrees.datasets import load_car_evaluation, load_covertype
from mltrees.ensemble import RandomForestClassifier, RandomForestRegressor
from mltrees.ensemble import bagging as bagging_module
from mltrees.tree import CARTClassifier, CARTRegressor
from mltrees.tree.pruning import prune_cost_complexity

SEEDS = range(6)


def _paired_within_noise(ours, theirs, floor):
    """Mean paired difference within 3 standard errors (plus ``floor``) of zero."""
    difference = np.asarray(ours) - np.asarray(theirs)
    standard_error = difference.std(ddof=1) / math.sqrt(difference.size)
    assert abs(difference.mean()) <= 3 * standard_error + floor, (
        f"mean difference {difference.mean():.4f}, standard error {standard_error:.4f}"
    )


@pytest.mark.parametrize("loader", [load_breast_cancer, load_wine])
@pytest.mark.parametrize("max_bins", [None, 64])
def test_classifier_accuracy_matches_sklearn(loader, max_bins):
    X, y = loader(return_X_y=True)
    ours, theirs = [], []
    for seed in SEEDS:
        X_train, X_test, y_train, y_test = train_test_split(
            X, y, test_size=0.3, random_state=seed, stratify=y
        )
        model = RandomForestClassifier(n_estimators=50, random_state=seed, max_bins=max_bins)
        reference = ensemble.RandomForestClassifier(n_estimators=50, random_state=seed)
        ours.append(model.fit(X_train, y_train).score(X_test, y_test))
        theirs.append(reference.fit(X_train, y_train).score(X_test, y_test))
    _paired_within_noise(ours, theirs, floor=1 / len(y_test))


@pytest.mark.parametrize("max_features", [1.0, 1 / 3])
def test_regressor_r2_matches_sklearn(max_features):
    X, y = load_diabetes(return_X_y=True)
    ours, theirs = [], []
    for seed in range(6):
        X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3, random_state=seed)
        params = {"n_estimators": 50, "random_state": seed, "max_features": max_features}
        ours.append(RandomForestRegressor(**params).fit(X_train, y_train).score(X_test, y_test))
        theirs.append(
            ensemble.RandomForestRegressor(**params).fit(X_train, y_train).score(X_test, y_test)
        )
    _paired_within_noise(ours, theirs, floor=0.01)


def test_oob_accuracy_tracks_test_accuracy():
    X, y = load_breast_cancer(return_X_y=True)
    oob, test = [], []
    for seed in range(5):
        X_train, X_test, y_train, y_test = train_test_split(
            X, y, test_size=0.5, random_state=seed, stratify=y
        )
        model = RandomForestClassifier(n_estimators=150, oob_score=True, random_state=seed)
        model.fit(X_train, y_train)
        oob.append(model.oob_score_)
        test.append(model.score(X_test, y_test))
    # Each test accuracy has binomial standard error sqrt(p(1-p)/n_test); the mean
    # of 5 has that divided by sqrt(5). The OOB estimate is itself noisy, so we
    # allow 3 standard errors of the difference of two such means.
    p = float(np.mean(test))
    se = math.sqrt(2 * p * (1 - p) / len(y_test) / 5)
    assert abs(np.mean(oob) - p) < 3 * se


def test_oob_r2_matches_sklearn_oob_r2():
    # On diabetes the OOB R² of a half split sits above the test R² for both
    # libraries (the halves differ), so the OOB estimate is compared with
    # scikit-learn's, paired by split.
    X, y = load_diabetes(return_X_y=True)
    ours, theirs = [], []
    for seed in range(5):
        X_train, _, y_train, _ = train_test_split(X, y, test_size=0.5, random_state=seed)
        params = {"n_estimators": 60, "oob_score": True, "random_state": seed}
        ours.append(RandomForestRegressor(**params).fit(X_train, y_train).oob_score_)
        theirs.append(ensemble.RandomForestRegressor(**params).fit(X_train, y_train).oob_score_)
    _paired_within_noise(ours, theirs, floor=0.01)


def test_no_randomness_gives_the_single_tree():
    X, y = load_breast_cancer(return_X_y=True)
    forest = RandomForestClassifier(n_estimators=3, bootstrap=False, max_features=None).fit(X, y)
    tree = CARTClassifier().fit(X, y)
    for member in forest.estimators_:
        np.testing.assert_array_equal(member.tree_.feature, tree.tree_.feature)
        np.testing.assert_array_equal(member.tree_.threshold, tree.tree_.threshold)
    np.testing.assert_array_equal(forest.predict_proba(X), tree.predict_proba(X))
    Xr, yr = load_diabetes(return_X_y=True)
    regression = RandomForestRegressor(n_estimators=2, bootstrap=False).fit(Xr, yr)
    np.testing.assert_allclose(regression.predict(Xr), CARTRegressor().fit(Xr, yr).predict(Xr))


@pytest.mark.parametrize(
    ("max_features", "expected"),
    [("sqrt", 5), ("log2", 4), (3, 3), (0.5, 15), (None, 30), (1.0, 30)],
)
def test_max_features_draws_per_node(max_features, expected):
    # Breast cancer has d = 30: floor(sqrt 30) = 5, floor(log2 30) = 4. In a
    # forest of stumps without bootstrap, each root picks the best of its drawn
    # features, so the overall best feature wins exactly when it is drawn:
    # with probability k / 30 per tree (binomial over 200 trees, 4 sigma).
    X, y = load_breast_cancer(return_X_y=True)
    forest = RandomForestClassifier(
        n_estimators=200, max_depth=1, bootstrap=False, max_features=max_features, random_state=0
    ).fit(X, y)
    roots = {member.tree_.feature[0] for member in forest.estimators_}
    best = CARTClassifier(max_depth=1).fit(X, y).tree_.feature[0]
    if expected == 30:
        assert roots == {best}
    else:
        share = np.mean([m.tree_.feature[0] == best for m in forest.estimators_])
        se = math.sqrt(expected / 30 * (1 - expected / 30) / 200)
        assert abs(share - expected / 30) < 4 * se
        assert len(roots) > 1


def test_feature_importances_are_mean_of_normalised_mdi():
    X, y = load_wine(return_X_y=True)
    forest = RandomForestClassifier(n_estimators=20, random_state=0).fit(X, y)
    per_tree = []
    for member in forest.estimators_:
        tree = member.tree_
        importance = np.zeros(X.shape[1])
        for node in range(tree.node_count):  # brute force, node by node
            if tree.feature[node] < 0:
                continue
            children = range(tree.first_child[node], tree.first_child[node] + tree.n_children[node])
            decrease = tree.weighted_n_node_samples[node] * tree.impurity[node] - sum(
                tree.weighted_n_node_samples[c] * tree.impurity[c] for c in children
            )
            importance[tree.feature[node]] += decrease
        per_tree.append(importance / importance.sum())
    expected = np.mean(per_tree, axis=0)
    np.testing.assert_allclose(forest.feature_importances_, expected / expected.sum())


def test_mdi_favours_a_random_id_column_permutation_does_not():
    # Strobl et al. (2007): impurity importance is biased towards features with
    # many split points. Two columns carry no information about y: a random
    # 0/1 flag and a random ID (all values distinct). Deep trees split on the
    # ID far more often, so its MDI is several times the flag's, while the
    # permutation importance of both is zero within its noise.
    X, y = load_diabetes(return_X_y=True)
    rng = np.random.default_rng(0)
    X = np.column_stack([X, rng.integers(0, 2, len(y)), rng.permutation(len(y))])
    X_train, X_test, y_train, y_test = train_test_split(X, y, random_state=0)
    forest = RandomForestRegressor(n_estimators=60, max_features=1 / 3, random_state=0)
    forest.fit(X_train, y_train)
    flag, identifier = forest.feature_importances_[-2:]
    assert identifier > 3 * flag
    result = permutation_importance(forest, X_test, y_test, n_repeats=10, random_state=0)
    for column in (-2, -1):
        assert abs(result.importances_mean[column]) < 3 * result.importances_std[column] + 0.01


def test_n_jobs_does_not_change_the_forest():
    X, y = load_diabetes(return_X_y=True)
    one = RandomForestRegressor(n_estimators=8, oob_score=True, random_state=2, n_jobs=1)
    two = clone(one).set_params(n_jobs=2)
    every = clone(one).set_params(n_jobs=-1)
    for model in (one, two, every):
        # 8 trees leave some samples in every bag: the forest says so
        with pytest.warns(UserWarning, match="no out-of-bag prediction"):
            model.fit(X, y)
    for model in (two, every):
        np.testing.assert_array_equal(model.predict(X), one.predict(X))
        np.testing.assert_array_equal(model.oob_prediction_, one.oob_prediction_)


def test_same_seed_same_forest_different_seed_different_forest():
    X, y = load_wine(return_X_y=True)
    a = RandomForestClassifier(n_estimators=5, random_state=1).fit(X, y)
    b = RandomForestClassifier(n_estimators=5, random_state=1).fit(X, y)
    c = RandomForestClassifier(n_estimators=5, random_state=2).fit(X, y)
    np.testing.assert_array_equal(a.predict_proba(X), b.predict_proba(X))
    assert not np.array_equal(a.predict_proba(X), c.predict_proba(X))


def test_binning_once_in_both_modes(monkeypatch):
    from mltrees.tree.builder import TreeBuilder

    calls = []
    original = TreeBuilder.bin

    def counting(self, *args, **kwargs):
        calls.append(self.estimator.max_bins)
        return original(self, *args, **kwargs)

    monkeypatch.setattr(TreeBuilder, "bin", counting)
    X, y = load_wine(return_X_y=True)
    RandomForestClassifier(n_estimators=6).fit(X, y)
    RandomForestClassifier(n_estimators=6, max_bins=16).fit(X, y)
    assert calls == [None, 16]


def test_rare_class_keeps_full_width_probabilities():
    X, y = load_wine(return_X_y=True)
    y = np.array([f"cultivar {v}" for v in y], dtype=object)
    y[0] = "rare"
    forest = RandomForestClassifier(n_estimators=30, random_state=0).fit(X, y)
    assert len(forest.classes_) == 4
    proba = forest.predict_proba(X)
    assert proba.shape == (len(y), 4)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    for member in forest.estimators_:
        assert member.tree_.value.shape[1] == 4


def test_balanced_subsample_balances_every_tree_of_a_categorical_table():
    # "balanced_subsample" weighs class k in a tree by n / (K n_k) with n_k its
    # count in that tree's bootstrap sample, so every class carries n / K of the
    # weight at each root: the root's class distribution is uniform. "balanced"
    # uses the counts of the whole table, so a bootstrap sample's root is only
    # nearly uniform. The car table has 4 classes, two of them rare (65 and 69
    # of 1728 rows).
    data = load_car_evaluation()
    X, y = data.data, np.asarray(data.target)
    n, k = len(y), 4
    params = {"n_estimators": 8, "max_features": None, "random_state": 0}
    forest = RandomForestClassifier(class_weight="balanced_subsample", **params).fit(X, y)
    balanced = RandomForestClassifier(class_weight="balanced", **params).fit(X, y)
    plain = RandomForestClassifier(**params).fit(X, y)
    for member, rows in zip(forest.estimators_, forest.estimators_samples_, strict=True):
        np.testing.assert_allclose(member.tree_.value[0], np.full(k, 1 / k), rtol=1e-12)
        assert member.tree_.weighted_n_node_samples[0] == pytest.approx(n)
        # The same weights as "balanced" computed on the sample written out.
        reference = CARTClassifier(class_weight="balanced", max_depth=1)
        reference.fit(X.iloc[rows], y[rows])
        np.testing.assert_allclose(reference.tree_.value[0], member.tree_.value[0], rtol=1e-12)
        # A rare class weighs as much as a frequent one at the first split too
        # (the same split; which side is "left" may differ for a subset split).
        first = member.tree_.first_child[0]
        children = member.tree_.value[first : first + member.tree_.n_children[0]]
        np.testing.assert_allclose(
            sorted(children.tolist()), sorted(reference.tree_.value[1:].tolist()), rtol=1e-9
        )
    roots = np.array([m.tree_.value[0] for m in balanced.estimators_])
    assert not np.allclose(roots, 1 / k, atol=1e-3)
    assert np.allclose(roots, 1 / k, atol=0.05)
    frequencies = np.unique(y, return_counts=True)[1] / n
    np.testing.assert_allclose(plain.estimators_[0].tree_.value[0], frequencies, atol=0.05)


def test_absolute_error_forest():
    X, y = load_diabetes(return_X_y=True)
    model = RandomForestRegressor(
        n_estimators=10, criterion="absolute_error", max_depth=4, random_state=0
    ).fit(X, y)
    assert model.score(X, y) > 0.4


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"max_features": "half"}, "max_features must be"),
        ({"max_features": 0}, "max_features must be"),
        ({"criterion": "mse"}, "criterion must be one of"),
        ({"max_depth": 0}, "max_depth must be"),
        ({"max_samples": -0.5}, "max_samples must be"),
        ({"bootstrap": "yes"}, "bootstrap must be True or False"),
        ({"ccp_alpha": -0.1}, "ccp_alpha must be"),
        ({"missing": "surrogate"}, "missing must be one of"),
    ],
)
def test_bad_parameters(params, message):
    X, y = load_wine(return_X_y=True)
    with pytest.raises(ValueError, match=message):
        RandomForestClassifier(**{"n_estimators": 2, **params}).fit(X, y)


def test_bad_prediction_input():
    X, y = load_wine(return_X_y=True)
    # missing="error": NaN is refused (the default routes it).
    model = RandomForestClassifier(n_estimators=3, random_state=0, missing="error").fit(X, y)
    bad = X.copy()
    bad[1, 4] = np.inf
    with pytest.raises(ValueError, match="inf"):
        model.predict(bad)
    bad[1, 4] = np.nan
    with pytest.raises(ValueError, match=r"missing values.*pass missing='default_direction'"):
        model.predict(bad)
    with pytest.raises(ValueError, match="features"):
        model.predict(X[:, :3])


# ------------------------------------------------ tree parameters: pruning, missing values


def test_ccp_alpha_prunes_every_tree():
    """Each tree is the fully grown tree of the same draws, pruned at alpha (eq-ccp-cost)."""
    X, y = load_breast_cancer(return_X_y=True)
    grown = RandomForestClassifier(n_estimators=5, random_state=3).fit(X, y)
    pruned = RandomForestClassifier(n_estimators=5, ccp_alpha=0.005, random_state=3).fit(X, y)
    for full, member in zip(grown.estimators_, pruned.estimators_, strict=True):
        expected = prune_cost_complexity(full.tree_, 0.005)
        assert member.tree_.node_count == expected.node_count < full.tree_.node_count
        np.testing.assert_array_equal(member.tree_.feature, expected.feature)
        np.testing.assert_array_equal(member.tree_.threshold, expected.threshold)
        np.testing.assert_array_equal(member.tree_.value, expected.value)


def _with_holes(X, fraction, seed):
    """A copy of X with a random ``fraction`` of its entries missing (NaN)."""
    rng = np.random.default_rng(seed)
    holes = X.astype(float)
    holes[rng.random(X.shape) < fraction] = np.nan
    return holes


@pytest.mark.parametrize("max_bins", [None, 32])
def test_default_direction_forest_is_the_mean_of_its_trees(max_bins):
    X, y = load_breast_cancer(return_X_y=True)
    X = _with_holes(X, 0.15, seed=1)
    forest = RandomForestClassifier(
        n_estimators=8, missing="default_direction", max_bins=max_bins, random_state=0
    )
    forest.fit(X[:400], y[:400])
    assert any((member.tree_.missing_slot >= 0).any() for member in forest.estimators_)
    total = np.zeros((len(X) - 400, 2))
    for member in forest.estimators_:  # each tree's own prediction, added in member order
        total += member.predict_proba(X[400:])
    np.testing.assert_array_equal(forest.predict_proba(X[400:]), total / len(forest.estimators_))
    regressor = RandomForestRegressor(n_estimators=4, missing="default_direction", random_state=0)
    regressor.fit(X[:400], y[:400])
    mean = np.mean([member.predict(X[400:]) for member in regressor.estimators_], axis=0)
    np.testing.assert_allclose(regressor.predict(X[400:]), mean, rtol=1e-12)


def test_c45_forest_mixes_each_tree_over_the_branches():
    """With missing="c45" a row that misses a tested value goes down every branch
    (eq-c45-predict); the forest averages its trees' own mixed predictions, out of
    bag too."""
    X, y = load_wine(return_X_y=True)
    X = _with_holes(X, 0.1, seed=2)
    forest = RandomForestClassifier(n_estimators=25, missing="c45", oob_score=True, random_state=0)
    forest.fit(X[::2], y[::2])
    X_test = X[1::2]
    assert np.isnan(X_test).any()
    expected = np.mean([member.predict_proba(X_test) for member in forest.estimators_], axis=0)
    np.testing.assert_allclose(forest.predict_proba(X_test), expected, rtol=1e-12, atol=1e-15)
    # Out of bag: each row averaged over the trees that did not draw it.
    total, seen = np.zeros((len(y[::2]), 3)), np.zeros(len(y[::2]))
    for member, rows in zip(forest.estimators_, forest.estimators_samples_, strict=True):
        out = np.setdiff1d(np.arange(len(y[::2])), rows)
        total[out] += member.predict_proba(X[::2][out])
        seen[out] += 1
    np.testing.assert_allclose(
        forest.oob_decision_function_, total / seen[:, None], rtol=1e-12, atol=1e-15
    )


def test_hard_votes_of_c45_members_follow_their_own_predictions():
    X, y = load_wine(return_X_y=True)
    X = _with_holes(X, 0.1, seed=3)
    member = CARTClassifier(missing="c45")
    model = bagging_module.BaggingClassifier(member, n_estimators=7, voting="hard", random_state=0)
    model.fit(X[::2], y[::2])
    votes = np.zeros((len(X[1::2]), 3))
    for fitted in model.estimators_:
        votes[np.arange(len(votes)), fitted.predict(X[1::2])] += 1
    np.testing.assert_array_equal(model.predict_proba(X[1::2]), votes / 7)


def test_missing_values_tags_and_errors():
    X, y = load_wine(return_X_y=True)
    holes = _with_holes(X, 0.05, seed=4)
    assert not RandomForestClassifier(missing="error").__sklearn_tags__().input_tags.allow_nan
    assert RandomForestClassifier().__sklearn_tags__().input_tags.allow_nan  # the default
    for method in ("c45", "default_direction"):
        assert RandomForestClassifier(missing=method).__sklearn_tags__().input_tags.allow_nan
    member = CARTClassifier(missing="default_direction")
    assert bagging_module.BaggingClassifier(member).__sklearn_tags__().input_tags.allow_nan
    with pytest.raises(ValueError, match="missing values"):
        RandomForestClassifier(n_estimators=2, missing="error").fit(holes, y)
    model = RandomForestClassifier(n_estimators=2, missing="default_direction", random_state=0)
    model.fit(holes, y)
    bad = holes.copy()
    bad[0, 3] = np.inf
    with pytest.raises(ValueError, match="inf"):
        model.predict(bad)
    with pytest.raises(ValueError, match="absolute_error"):
        RandomForestRegressor(missing="default_direction", criterion="absolute_error").fit(holes, y)


def test_missing_value_accuracy_matches_sklearn():
    """scikit-learn's forests learn where missing values go at each split, as
    missing="default_direction" does; on breast cancer with 20% of the entries
    missing the accuracies agree within noise over 6 seeds."""
    X, y = load_breast_cancer(return_X_y=True)
    ours, theirs = [], []
    for seed in SEEDS:
        X_holes = _with_holes(X, 0.2, seed=seed)
        X_train, X_test, y_train, y_test = train_test_split(
            X_holes, y, test_size=0.3, random_state=seed, stratify=y
        )
        params = {"n_estimators": 50, "random_state": seed}
        model = RandomForestClassifier(missing="default_direction", **params)
        ours.append(model.fit(X_train, y_train).score(X_test, y_test))
        reference = ensemble.RandomForestClassifier(**params)
        theirs.append(reference.fit(X_train, y_train).score(X_test, y_test))
    _paired_within_noise(ours, theirs, floor=1 / len(y_test))


# ------------------------------------------------------------------------ warm start


@pytest.mark.filterwarnings("ignore:.*no out-of-bag prediction")  # few trees: expected
@pytest.mark.parametrize("max_bins", [None, 32])
def test_warm_start_equals_one_fit(max_bins):
    """Adding trees keeps the fitted ones and gives them the seeds of one fit of all."""
    X, y = load_breast_cancer(return_X_y=True)
    params = {"oob_score": True, "max_bins": max_bins, "random_state": 0}
    warm = RandomForestClassifier(n_estimators=5, warm_start=True, **params).fit(X, y)
    first_trees = list(warm.estimators_)
    warm.set_params(n_estimators=9).fit(X, y)
    once = RandomForestClassifier(n_estimators=9, **params).fit(X, y)
    assert warm.estimators_[:5] == first_trees  # the same objects, not refitted
    for a, b in zip(warm.estimators_, once.estimators_, strict=True):
        np.testing.assert_array_equal(a.tree_.threshold, b.tree_.threshold)
    np.testing.assert_array_equal(warm.predict_proba(X), once.predict_proba(X))
    np.testing.assert_array_equal(warm.oob_decision_function_, once.oob_decision_function_)
    assert warm.oob_score_ == once.oob_score_
    for a, b in zip(warm.estimators_samples_, once.estimators_samples_, strict=True):
        np.testing.assert_array_equal(a, b)


def test_warm_start_refuses_other_data_and_fewer_trees():
    X, y = load_wine(return_X_y=True)
    forest = RandomForestRegressor(n_estimators=3, warm_start=True, random_state=0).fit(X, y)
    trees = list(forest.estimators_)
    with pytest.warns(UserWarning, match="fits no new member"):
        forest.fit(X, y)
    assert forest.estimators_ == trees
    forest.set_params(n_estimators=2)
    with pytest.raises(ValueError, match=r"n_estimators=2 must be >= len\(estimators_\)=3"):
        forest.fit(X, y)
    forest.set_params(n_estimators=5)
    with pytest.raises(ValueError, match="differ from it"):
        forest.fit(X * 2, y)  # other bins
    with pytest.raises(ValueError, match="differ from it"):
        forest.fit(X, y, sample_weight=np.r_[0.0, np.ones(len(y) - 1)])  # other rows
    with pytest.raises(ValueError, match="features"):
        forest.fit(X[:, :5], y)
    assert forest.estimators_ == trees  # nothing was changed by the refusals
    forest.set_params(warm_start=False).fit(X * 2, y)  # starting over is always allowed
    assert len(forest.estimators_) == 5
    with pytest.raises(ValueError, match="warm_start must be True or False"):
        RandomForestRegressor(warm_start="yes").fit(X, y)


# ------------------------------------------------------------- the walk kept from fit


def test_walk_is_built_at_fit_and_rebuilt_when_members_change(monkeypatch):
    """Prediction reuses the walk built by fit; other members or another voting get a
    walk of their own, and every answer stays the mean of the members' own outputs."""
    built = []

    from mltrees.ensemble import _tree_average  # where bagging and forests build the walk

    class Counting(_tree_average.StackedTrees):
        def __init__(self, *args, **kwargs):
            built.append(1)
            super().__init__(*args, **kwargs)

    monkeypatch.setattr(_tree_average, "StackedTrees", Counting)
    X, y = load_breast_cancer(return_X_y=True)
    forest = RandomForestClassifier(n_estimators=6, max_bins=32, random_state=0).fit(X, y)
    assert len(built) == 1
    mean = np.mean([m.predict_proba(X) for m in forest.estimators_], axis=0)
    np.testing.assert_allclose(forest.predict_proba(X), mean, rtol=1e-12)
    assert len(built) == 1  # the stored walk
    forest.estimators_ = forest.estimators_[:3]  # the first trees only
    mean = np.mean([m.predict_proba(X) for m in forest.estimators_], axis=0)
    np.testing.assert_allclose(forest.predict_proba(X), mean, rtol=1e-12)
    assert len(built) == 2
    shallow = CARTClassifier(max_depth=2)  # impure leaves: soft and hard votes differ
    bagging = bagging_module.BaggingClassifier(shallow, n_estimators=5, random_state=0).fit(X, y)
    soft = bagging.predict_proba(X)
    bagging.set_params(voting="hard")  # other node tables: one-hot votes
    votes = np.zeros((len(y), 2))
    for member in bagging.estimators_:
        votes[np.arange(len(y)), member.predict(X)] += 1
    np.testing.assert_array_equal(bagging.predict_proba(X), votes / 5)
    assert not np.array_equal(soft, votes / 5)


def test_pickled_forest_keeps_its_walk():
    import pickle

    X, y = load_wine(return_X_y=True)
    forest = RandomForestClassifier(n_estimators=4, max_bins=16, random_state=0).fit(X, y)
    copy = pickle.loads(pickle.dumps(forest))
    assert copy._stack_key == copy._walker_key()  # the unpickled trees are the walk's trees
    assert copy._stack_key != forest._walker_key()  # identity, not equality, of trees
    np.testing.assert_array_equal(copy.predict_proba(X), forest.predict_proba(X))


@pytest.mark.parametrize("forest", [RandomForestClassifier, RandomForestRegressor])
def test_auto_bins_are_exact_below_the_threshold_and_255_bins_from_it_on(forest, monkeypatch):
    from mltrees.ensemble import forest as forest_module

    X, y = load_breast_cancer(return_X_y=True)
    X = np.round(X, 1)  # fewer distinct values than rows, more than 16 bins in places

    def fitted(**params):
        return forest(n_estimators=4, random_state=0, **params).fit(X, y)

    def same(a, b):
        for tree_a, tree_b in zip(a.estimators_, b.estimators_, strict=True):
            np.testing.assert_array_equal(tree_a.tree_.threshold, tree_b.tree_.threshold)
        np.testing.assert_array_equal(a.predict(X), b.predict(X))

    assert forest().max_bins == "auto"
    small = fitted()  # 569 rows: exact thresholds, as max_bins=None
    assert {member.max_bins for member in small.estimators_} == {None}
    same(small, fitted(max_bins=None))
    # From AUTO_HISTOGRAM_ROWS rows on: the forest of max_bins=255, not the exact one.
    monkeypatch.setattr(forest_module, "AUTO_HISTOGRAM_ROWS", len(y))
    monkeypatch.setattr(forest_module, "AUTO_BINS", 16)
    large = fitted()
    assert {member.max_bins for member in large.estimators_} == {16}
    same(large, fitted(max_bins=16))
    exact = fitted(max_bins=None)
    assert not all(
        np.array_equal(a.tree_.threshold, b.tree_.threshold)
        for a, b in zip(large.estimators_, exact.estimators_, strict=True)
    )
    monkeypatch.setattr(forest_module, "AUTO_HISTOGRAM_ROWS", len(y) + 1)
    same(fitted(), exact)


def test_auto_bins_constants_are_the_documented_ones():
    from mltrees.ensemble import forest as forest_module

    assert (forest_module.AUTO_HISTOGRAM_ROWS, forest_module.AUTO_BINS) == (50_000, 255)
    assert forest_module.resolve_max_bins("auto", 49_999) is None
    assert forest_module.resolve_max_bins("auto", 50_000) == 255
    assert forest_module.resolve_max_bins(32, 10) == 32
    with pytest.raises(ValueError, match="max_bins must be 'auto', an int >= 2 or None"):
        RandomForestClassifier(max_bins="many").fit(*load_wine(return_X_y=True))


@pytest.mark.parametrize(
    "params",
    [{}, {"max_leaf_nodes": 64}, {"max_bins": 16}, {"missing": "c45"}],
    ids=["level-wise", "best-first-cart", "histogram", "c45-missing"],
)
def test_a_node_whose_drawn_features_are_all_constant_draws_on(params):
    """scikit-learn's rule (chapter 10): a node whose ``max_features`` draws are all
    constant in it keeps drawing until a feature varies, so it stops only when
    it is pure or cannot be split. Nine constant columns and one informative
    column, one feature per node: without the rule most roots draw a constant
    column and the trees are single leaves."""
    rng = np.random.default_rng(0)
    x = rng.normal(size=300)
    X = np.column_stack([np.full((300, 9), 1.5), x])
    if params.get("missing") == "c45":
        X[rng.random(300) < 0.05, 9] = np.nan
    y = (np.sin(3 * x) > 0).astype(int)
    if "max_leaf_nodes" in params:  # forests have no leaf budget; CART draws the same way
        members = [
            CARTClassifier(max_features=1, random_state=seed, **params).fit(X, y)
            for seed in range(8)
        ]
    else:
        members = (
            RandomForestClassifier(
                n_estimators=8, max_features=1, bootstrap=False, random_state=0, **params
            )
            .fit(X, y)
            .estimators_
        )
    for member in members:
        internal = member.tree_.feature >= 0
        assert internal.sum() >= 5
        assert set(member.tree_.feature[internal]) == {9}


def test_forest_on_many_binary_columns_is_as_accurate_as_sklearns():
    """Covertype has 44 binary columns; most are constant in deep nodes. With the
    constant-draw rule of the previous test the forest matches scikit-learn's
    accuracy (it was 2-3 points below without it)."""
    X, y = load_covertype(return_X_y=True)
    X, y = np.asarray(X, dtype=float)[:12000], np.asarray(y)[:12000]
    ours, theirs = [], []
    for seed in (0, 1):
        kw = {"n_estimators": 15, "random_state": seed, "n_jobs": 2}
        ours.append(RandomForestClassifier(**kw).fit(X[::2], y[::2]).score(X[1::2], y[1::2]))
        reference = ensemble.RandomForestClassifier(**kw).fit(X[::2], y[::2])
        theirs.append(reference.score(X[1::2], y[1::2]))
    assert np.mean(ours) > np.mean(theirs) - 0.01
