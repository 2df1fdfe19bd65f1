"""Bagging (chapter 9): the bootstrap, out-of-bag estimates, members, bad input.

Expected values come from closed forms (the in-bag fraction and the variance
of the number of distinct rows in a bootstrap sample), from brute force (the
out-of-bag average recomputed member by member, a member refitted on its
bootstrap rows written out), or from the definition (n_jobs must not matter).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.datasets import load_breast_cancer, load_diabetes
from sklearn.linear_model import LinearRegression
from sklearn.model_selection import GridSearchCV, train_test_split
from sklearn.neighbors import KNeighborsClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from mltrees.datasets import load_car_evaluation
from mltrees.ensemble.bagging import BaggingClassifier, BaggingRegressor, bootstrap_counts
from mltrees.tree import C45Classifier, CARTClassifier, CARTRegressor, ID3Classifier


def _member_counts(random_state: int, n_estimators: int, n_samples: int, n_draws=None):
    """The bootstrap counts of every member, from the documented seeding scheme."""
    seeds = np.random.SeedSequence(random_state).spawn(n_estimators)
    draws = n_samples if n_draws is None else n_draws
    return [bootstrap_counts(np.random.default_rng(s), n_samples, draws) for s in seeds]


# ---------------------------------------------------------------------------
# The bootstrap: 63.2 % in the bag


@pytest.mark.parametrize(("n", "max_samples"), [(2, None), (40, None), (40, 10), (40, 0.25)])
def test_fitted_members_draw_the_in_bag_fraction_of_the_closed_form(n, max_samples):
    # Each of m draws misses a given row with probability 1 - 1/n, so the row is in
    # the bag with probability 1 - (1 - 1/n)^m (m = n by default: 0.75 for n = 2,
    # decreasing to 1 - 1/e = 0.632). Over B members the in-bag count of a row is
    # Binomial(B, p); the mean over the n rows has sd <= sqrt(p (1 - p) / B), and
    # 5 of them leave a false alarm below one run in a million.
    X = np.arange(n, dtype=float).reshape(-1, 1)
    y = np.arange(n) % 2
    B = 400
    model = BaggingClassifier(
        KNeighborsClassifier(n_neighbors=1),
        n_estimators=B,
        max_samples=max_samples,
        random_state=0,
    ).fit(X, y)
    m = n if max_samples is None else (max_samples if max_samples >= 1 else round(max_samples * n))
    p = 1 - (1 - 1 / n) ** m
    in_bag = np.zeros(n)
    for sample in model.estimators_samples_:
        assert sample.size == m  # m draws with replacement
        in_bag[np.unique(sample)] += 1
    assert abs(in_bag.mean() / B - p) < 5 * math.sqrt(p * (1 - p) / B)
    if n == 2:
        assert p == 0.75


def test_simulated_in_bag_fraction_matches_formula():
    # D = number of distinct rows in one bootstrap sample of size n. With
    # indicators I_i = [row i drawn], E[D] = n p and
    # Var(D) = n q + n(n-1) (1 - 2/n)^n - n^2 q^2,   q = (1 - 1/n)^n,
    # because P(rows i and j both missed) = (1 - 2/n)^n. The mean fraction over
    # B independent samples has standard deviation sqrt(Var D) / (n sqrt B);
    # we allow 4 of them (a false alarm about once in 16,000 runs).
    n, B = 500, 4000
    q = (1 - 1 / n) ** n
    variance = n * q + n * (n - 1) * (1 - 2 / n) ** n - n**2 * q**2
    rng = np.random.default_rng(0)
    fractions = np.array([np.count_nonzero(bootstrap_counts(rng, n, n)) / n for _ in range(B)])
    sigma = math.sqrt(variance) / (n * math.sqrt(B))
    assert abs(fractions.mean() - (1 - q)) < 4 * sigma
    # The spread of a single sample's fraction matches the closed-form variance too
    # (the sample standard deviation of 4000 draws is within 10 % of the truth).
    assert abs(fractions.std() / (math.sqrt(variance) / n) - 1) < 0.1


def test_bootstrap_counts_sum_to_draws():
    counts = bootstrap_counts(np.random.default_rng(1), 50, 80)
    assert counts.sum() == 80
    assert counts.shape == (50,)
    assert counts.min() >= 0


# ---------------------------------------------------------------------------
# Members and out-of-bag estimates, by brute force


def _cancer_split(seed=0):
    X, y = load_breast_cancer(return_X_y=True)
    return train_test_split(X, y, test_size=0.3, random_state=seed)


def test_member_equals_tree_on_repeated_rows():
    # A bootstrap count c is a weight c: the member is the tree grown on its
    # rows written out c times each (rows with c = 0 dropped).
    X_train, X_test, y_train, _ = _cancer_split()
    model = BaggingClassifier(n_estimators=3, random_state=7).fit(X_train, y_train)
    for counts, member in zip(_member_counts(7, 3, len(y_train)), model.estimators_, strict=True):
        rows = np.repeat(np.arange(len(y_train)), counts)
        reference = CARTClassifier().fit(X_train[rows], y_train[rows])
        assert reference.tree_.node_count == member.tree_.node_count
        np.testing.assert_array_equal(reference.predict_proba(X_test), member.predict_proba(X_test))


def test_oob_decision_function_by_brute_force():
    X_train, _, y_train, _ = _cancer_split()
    model = BaggingClassifier(n_estimators=25, oob_score=True, random_state=1).fit(X_train, y_train)
    total = np.zeros((len(y_train), 2))
    seen = np.zeros(len(y_train))
    for counts, member in zip(_member_counts(1, 25, len(y_train)), model.estimators_, strict=True):
        out = counts == 0
        total[out] += member.predict_proba(X_train[out])
        seen[out] += 1
    expected = total / seen[:, None]
    np.testing.assert_allclose(model.oob_decision_function_, expected, rtol=1e-12)
    covered = seen > 0  # rows in every bag have no OOB prediction and are left out
    accuracy = np.mean(model.classes_[expected[covered].argmax(axis=1)] == y_train[covered])
    assert model.oob_score_ == pytest.approx(accuracy)


def test_oob_prediction_regression_by_brute_force():
    X, y = load_diabetes(return_X_y=True)
    model = BaggingRegressor(n_estimators=30, oob_score=True, random_state=5).fit(X, y)
    total, seen = np.zeros(len(y)), np.zeros(len(y))
    for counts, member in zip(_member_counts(5, 30, len(y)), model.estimators_, strict=True):
        out = counts == 0
        total[out] += member.predict(X[out])
        seen[out] += 1
    expected = total / seen
    np.testing.assert_allclose(model.oob_prediction_, expected, rtol=1e-12)
    r2 = 1 - np.sum((y - expected) ** 2) / np.sum((y - y.mean()) ** 2)
    assert model.oob_score_ == pytest.approx(r2)


def test_too_few_members_leave_rows_without_oob_prediction():
    X_train, _, y_train, _ = _cancer_split()
    # With 2 members a row is in both bags with probability about 0.632^2 = 0.4.
    with pytest.warns(UserWarning, match="no out-of-bag prediction"):
        model = BaggingClassifier(n_estimators=2, oob_score=True, random_state=0).fit(
            X_train, y_train
        )
    assert np.isnan(model.oob_decision_function_).any()
    assert 0 < model.oob_score_ <= 1


def test_soft_and_hard_voting():
    X_train, X_test, y_train, _ = _cancer_split()
    soft = BaggingClassifier(CARTClassifier(max_depth=2), n_estimators=15, random_state=1).fit(
        X_train, y_train
    )
    hard = clone(soft).set_params(voting="hard").fit(X_train, y_train)
    votes = np.zeros((len(X_test), 2))
    probabilities = np.zeros((len(X_test), 2))
    for member in hard.estimators_:
        votes[np.arange(len(X_test)), member.predict(X_test)] += 1
        probabilities += member.predict_proba(X_test)
    np.testing.assert_allclose(hard.predict_proba(X_test), votes / 15)
    np.testing.assert_allclose(soft.predict_proba(X_test), probabilities / 15)


# ---------------------------------------------------------------------------
# Classes, members of any kind, binning once


def _rare_class_data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 3))
    y = np.where(X[:, 0] > 0, "b", "a").astype(object)
    y[0] = "rare"  # one row: many bootstrap samples miss it
    return X, y


@pytest.mark.parametrize("member", [None, KNeighborsClassifier(n_neighbors=3)])
def test_members_missing_a_class_still_give_full_width(member):
    X, y = _rare_class_data()
    model = BaggingClassifier(member, n_estimators=20, random_state=0).fit(X, y)
    assert list(model.classes_) == ["a", "b", "rare"]
    proba = model.predict_proba(X)
    assert proba.shape == (60, 3)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    # About (1 - 1/60)^60 = 36 % of the members never saw "rare": its probability
    # at its own row is the share of members that did (a tree that saw it isolates it).
    if member is None:
        saw = np.mean([c[0] > 0 for c in _member_counts(0, 20, 60)])
        assert 0 < saw < 1
        assert proba[0, 2] == pytest.approx(saw)


def test_binning_happens_once_per_fit(monkeypatch):
    from mltrees.tree.builder import TreeBuilder

    calls = []
    original = TreeBuilder.bin

    def counting(self, *args, **kwargs):
        calls.append(1)
        return original(self, *args, **kwargs)

    monkeypatch.setattr(TreeBuilder, "bin", counting)
    X_train, _, y_train, _ = _cancer_split()
    BaggingClassifier(n_estimators=7, random_state=0).fit(X_train, y_train)
    assert len(calls) == 1


def test_generic_members_stable_learners():
    X, y = load_diabetes(return_X_y=True)
    model = BaggingRegressor(LinearRegression(), n_estimators=10, random_state=0).fit(X, y)
    # Each member is a least-squares fit on its bootstrap rows (as weights).
    for counts, member in zip(_member_counts(0, 10, len(y)), model.estimators_, strict=True):
        rows = np.flatnonzero(counts)
        reference = LinearRegression().fit(X[rows], y[rows], sample_weight=counts[rows])
        np.testing.assert_allclose(member.coef_, reference.coef_, rtol=1e-8)
    assert model.predict(X).shape == (len(y),)


def test_feature_subsets_per_member():
    X_train, X_test, y_train, _ = _cancer_split()
    model = BaggingClassifier(n_estimators=8, max_features=0.25, random_state=0).fit(
        X_train, y_train
    )
    for member, features in zip(model.estimators_, model.estimators_features_, strict=True):
        assert features.size == int(0.25 * X_train.shape[1])
        used = set(member.tree_.feature[member.tree_.feature >= 0].tolist())
        assert used <= set(features.tolist())
    assert model.predict(X_test).shape == (len(X_test),)


def test_id3_member_on_categorical_table():
    # An ID3 member splits the car table's categories multiway; it is the ID3
    # tree grown on its bootstrap rows written out (every category occurs in
    # every sample of the 1728 rows, so both see the same categories).
    data = load_car_evaluation()
    X, y = data.data, np.asarray(data.target)
    model = BaggingClassifier(ID3Classifier(), n_estimators=3, random_state=0).fit(X, y)
    for counts, member in zip(_member_counts(0, 3, len(y)), model.estimators_, strict=True):
        assert isinstance(member, ID3Classifier)
        rows = np.repeat(np.arange(len(y)), counts)
        reference = ID3Classifier().fit(X.iloc[rows], y[rows])
        assert member.tree_.node_count == reference.tree_.node_count
        assert member.tree_.n_children.max() > 2  # multiway splits
        np.testing.assert_array_equal(member.predict_proba(X), reference.predict_proba(X))
    # ID3 refuses numeric columns, in the ensemble as alone.
    with pytest.raises(ValueError, match="categorical features only"):
        BaggingClassifier(ID3Classifier(), n_estimators=2).fit(*_cancer_split()[::2])


@pytest.mark.filterwarnings("ignore:.*no out-of-bag prediction")  # 6 members: expected
@pytest.mark.parametrize("member", [None, KNeighborsClassifier()])
def test_n_jobs_does_not_change_the_model(member):
    X_train, X_test, y_train, _ = _cancer_split()
    one = BaggingClassifier(member, n_estimators=6, oob_score=True, random_state=4, n_jobs=1)
    two = clone(one).set_params(n_jobs=2)
    one.fit(X_train, y_train)
    two.fit(X_train, y_train)
    np.testing.assert_array_equal(one.predict_proba(X_test), two.predict_proba(X_test))
    np.testing.assert_array_equal(one.oob_decision_function_, two.oob_decision_function_)


def test_sklearn_tools_work():
    X_train, X_test, y_train, y_test = _cancer_split()
    search = GridSearchCV(
        make_pipeline(StandardScaler(), BaggingClassifier(n_estimators=5, random_state=0)),
        {"baggingclassifier__max_samples": [0.5, 1.0]},
        cv=3,
    ).fit(X_train, y_train)
    assert search.score(X_test, y_test) > 0.85


# ---------------------------------------------------------------------------
# Bad input


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"n_estimators": 0}, "n_estimators must be an int >= 1"),
        ({"max_samples": 1.5}, "max_samples must be"),
        ({"max_samples": 0}, "max_samples as an int must be >= 1"),
        ({"max_features": 0.0}, "max_features must be an int"),
        ({"oob_score": True, "bootstrap": False}, "oob_score=True needs bootstrap=True"),
        ({"n_jobs": 0}, "n_jobs must be None or a non-zero int"),
        ({"verbose": -1}, "verbose must be an int >= 0"),
        ({"voting": "majority"}, "voting must be 'soft' or 'hard'"),
        ({"random_state": "seed"}, "random_state must be"),
    ],
)
def test_bad_parameters(params, message):
    X_train, _, y_train, _ = _cancer_split()
    with pytest.raises(ValueError, match=message):
        BaggingClassifier(**{"n_estimators": 3, **params}).fit(X_train, y_train)


def test_bad_input_is_reported_like_the_trees():
    X_train, X_test, y_train, _ = _cancer_split()
    # A member with missing="error" (the default member routes NaN).
    model = BaggingClassifier(CARTClassifier(missing="error"), n_estimators=3, random_state=0)
    bad = X_train.copy()
    bad[3, 2] = np.nan
    with pytest.raises(ValueError, match="missing values"):
        model.fit(bad, y_train)
    with pytest.raises(ValueError, match="samples but y has"):
        model.fit(X_train, y_train[:-1])
    with pytest.raises(ValueError, match="negative"):
        model.fit(X_train, y_train, sample_weight=-np.ones(len(y_train)))
    with pytest.raises(ValueError, match=r"continuous|Unknown label"):
        model.fit(X_train, X_train[:, 0])
    model.fit(X_train, y_train)
    expected = model.predict(X_test)
    with pytest.raises(ValueError, match="features"):
        model.predict(X_test[:, :5])
    # A failed refit leaves the fitted model as it was.
    with pytest.raises(ValueError, match="missing values"):
        model.fit(bad, y_train)
    np.testing.assert_array_equal(model.predict(X_test), expected)
    with pytest.raises(ValueError, match=r"regression|real targets|numeric"):
        BaggingRegressor(n_estimators=2).fit(X_train, np.array(["a"] * len(y_train)))


def test_member_type_is_checked():
    X_train, _, y_train, _ = _cancer_split()
    with pytest.raises(ValueError, match="needs a classifier"):
        BaggingClassifier(CARTRegressor(), n_estimators=2).fit(X_train, y_train)
    with pytest.raises(ValueError, match="estimator with fit"):
        BaggingClassifier("tree", n_estimators=2).fit(X_train, y_train)


def test_pandas_feature_names():
    X, y = load_breast_cancer(return_X_y=True, as_frame=True)
    model = BaggingClassifier(n_estimators=3, random_state=0).fit(X, y)
    assert list(model.feature_names_in_) == list(X.columns)
    for member in model.estimators_:
        assert list(member.feature_names_in_) == list(X.columns)
    with pytest.warns(UserWarning, match="feature names"):
        from_array = model.predict_proba(X.to_numpy())
    np.testing.assert_array_equal(from_array, model.predict_proba(X))
    # Columns are matched by name: the same table in another order is refused.
    with pytest.raises(ValueError, match="same order"):
        model.predict(X[X.columns[::-1]])


def test_verbose_progress_goes_to_stdout(capsys):
    X_train, _, y_train, _ = _cancer_split()
    BaggingClassifier(n_estimators=4, random_state=0, verbose=2).fit(X_train, y_train)
    captured = capsys.readouterr()
    assert captured.err == ""
    lines = captured.out.splitlines()
    assert [line.split()[:3] for line in lines] == [
        ["[BaggingClassifier]", "member", f"{i}/4"] for i in range(1, 5)
    ]
    # verbose=1: a line every tenth of the members (and at the last one)
    BaggingClassifier(n_estimators=20, random_state=0, verbose=1).fit(X_train, y_train)
    shown = [line.split()[2] for line in capsys.readouterr().out.splitlines()]
    assert shown == [f"{i}/20" for i in range(2, 21, 2)]
    BaggingClassifier(n_estimators=4, random_state=0).fit(X_train, y_train)
    assert capsys.readouterr() == ("", "")


def test_estimators_samples_are_the_bootstrap_draws():
    X_train, _, y_train, _ = _cancer_split()
    model = BaggingClassifier(n_estimators=4, random_state=9).fit(X_train, y_train)
    for counts, sample in zip(
        _member_counts(9, 4, len(y_train)), model.estimators_samples_, strict=True
    ):
        np.testing.assert_array_equal(np.bincount(sample, minlength=len(y_train)), counts)


@pytest.mark.parametrize("subtree_raising", [False, True])
def test_c45_member_is_pruned_as_its_own_fit_would_be(subtree_raising):
    """A C4.5 member is grown *and* pessimistically pruned, like C45Classifier.fit
    on its rows written out c times each (pruning counts a weight c as c rows)."""
    X_train, X_test, y_train, _ = _cancer_split(seed=3)
    member = C45Classifier(subtree_raising=subtree_raising)
    model = BaggingClassifier(member, n_estimators=3, random_state=2).fit(X_train, y_train)
    unpruned = BaggingClassifier(C45Classifier(pruning=None), n_estimators=3, random_state=2)
    unpruned.fit(X_train, y_train)
    counts = _member_counts(2, 3, len(y_train))
    members = zip(counts, model.estimators_, unpruned.estimators_, strict=True)
    for counts, fitted, grown in members:
        rows = np.repeat(np.arange(len(y_train)), counts)
        reference = clone(member).fit(X_train[rows], y_train[rows])
        # Unpruned C4.5 trees are collapsed already (release 8), so pruning may keep one.
        assert fitted.tree_.node_count == reference.tree_.node_count <= grown.tree_.node_count
        np.testing.assert_array_equal(fitted.predict_proba(X_test), reference.predict_proba(X_test))
    sizes = [m.tree_.node_count for m in (*model.estimators_, *unpruned.estimators_)]
    assert sum(sizes[:3]) < sum(sizes[3:])


@pytest.mark.filterwarnings("ignore:.*no out-of-bag prediction")  # few members: expected
@pytest.mark.parametrize("member", [None, KNeighborsClassifier()])
def test_warm_start_equals_one_fit(member):
    """Binned and generic members: the added ones are those of one fit of all."""
    X_train, X_test, y_train, _ = _cancer_split()
    params = {"oob_score": True, "max_features": 0.7, "random_state": 3}
    warm = BaggingClassifier(member, n_estimators=4, warm_start=True, **params)
    warm.fit(X_train, y_train)
    warm.set_params(n_estimators=7).fit(X_train, y_train)
    once = BaggingClassifier(member, n_estimators=7, **params).fit(X_train, y_train)
    np.testing.assert_array_equal(warm.predict_proba(X_test), once.predict_proba(X_test))
    np.testing.assert_array_equal(warm.oob_decision_function_, once.oob_decision_function_)
    for a, b in zip(warm.estimators_features_, once.estimators_features_, strict=True):
        np.testing.assert_array_equal(a, b)
    with pytest.raises(ValueError, match="differ from it"):  # other classes
        warm.set_params(n_estimators=8).fit(X_train, (y_train + 1) % 3)


def test_ensembles_use_the_builder_contract_only():
    """No ensemble module reads a private member of a tree estimator (issue: one contract)."""
    import re
    from pathlib import Path

    import mltrees.ensemble

    folder = Path(mltrees.ensemble.__file__).parent
    pattern = re.compile(r"\b(template|member|learner|weak|est|estimator_)\._[a-z]")
    offending = [
        f"{path.name}:{n}: {line.strip()}"
        for path in sorted(folder.glob("*.py"))
        for n, line in enumerate(path.read_text().splitlines(), 1)
        if pattern.search(line)
    ]
    assert offending == []


def test_tree_builder_refuses_estimators_that_are_not_mltrees_trees():
    from sklearn.linear_model import LogisticRegression

    from mltrees.tree.builder import TreeBuilder

    assert not TreeBuilder.accepts(LogisticRegression())
    with pytest.raises(TypeError, match="LogisticRegression"):
        TreeBuilder(LogisticRegression())
    with pytest.raises(ValueError, match="max_depth"):
        TreeBuilder(CARTClassifier(max_depth=-1))  # parameters are checked once, here
