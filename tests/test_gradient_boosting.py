"""Gradient boosting (chapter 12) against scikit-learn and against its own derivation.

Cross-check with scikit-learn's GradientBoosting* (1.9: the trees are always
grown with the squared error; ``criterion`` is deprecated and ignored). Two
differences matter (../shared/notes/reference-libraries.md):

* sklearn thresholds float32 copies of X. We give both libraries
  float32-representable data, so no value falls between the two thresholds.
* sklearn breaks ties between equally good splits by a random feature order;
  mltrees takes the lowest feature index. We therefore fit sklearn with four
  seeds and compare only when its predictions do not depend on the seed.

Then both libraries compute the same leaf values from the same rows, summed
in a different order: predictions agree to rounding. The tolerance
``rtol=1e-9`` allows for 100 rounds of rounding-level differences in the
leaf sums (each ~1e-16 relative) being fed back through the residuals, with
a wide margin; a single different split would change predictions by the
size of a leaf value (~1e-2 here), seven orders of magnitude above it.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn import datasets, ensemble
from sklearn.base import clone
from sklearn.model_selection import GridSearchCV, cross_val_score, train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from mltrees import CARTRegressor, GradientBoostingClassifier, GradientBoostingRegressor
from mltrees.ensemble._common import node_of_codes
from mltrees.tree._data import bin_features


def _float32(X):
    return np.asarray(X, dtype=np.float32).astype(np.float64)


def _seed_invariant(make, X, y, X_test, method):
    """sklearn's predictions if they agree (to rounding) for random_state 0..3, else None.

    A different split changes a prediction by a leaf value; visiting features in
    another order only changes the summation order (1e-14 relative, measured).
    """
    outputs = [getattr(make(seed).fit(X, y), method)(X_test) for seed in range(4)]
    if all(np.allclose(outputs[0], o, rtol=1e-12, atol=1e-12) for o in outputs[1:]):
        return outputs[0]
    return None


@pytest.mark.parametrize("rows", ["train", "test"])
@pytest.mark.parametrize("data", ["friedman1", "regression", "diabetes"])
@pytest.mark.parametrize("max_depth", [1, 3])
def test_regressor_matches_sklearn(data, max_depth, rows):
    # Squared error only: for absolute_error and huber sklearn takes the *lower*
    # weighted median (and the lower 90% quantile for Huber's delta) where mltrees
    # takes the midpoint of the two middle values, as numpy.median. Both minimise
    # the absolute loss, but the models differ; their leaf rules are checked
    # against brute-force minimisation in test_losses.py instead.
    if data == "friedman1":
        X, y = datasets.make_friedman1(400, n_features=6, noise=1.0, random_state=0)
    elif data == "regression":
        X, y = datasets.make_regression(400, 8, n_informative=5, noise=20, random_state=0)
    else:  # binary and discrete features: ties are common, the test may skip
        X, y = datasets.load_diabetes(return_X_y=True)
    X_train, X_test, y_train, _ = train_test_split(_float32(X), y, random_state=0)
    # On training rows, tied splits that cut the rows the same way (different
    # feature, same partition) give the same leaves, so depth-3 models agree
    # there even when they differ on new rows.
    X_test = X_train if rows == "train" else X_test
    expected = _seed_invariant(
        lambda seed: ensemble.GradientBoostingRegressor(
            n_estimators=100, max_depth=max_depth, random_state=seed
        ),
        X_train,
        y_train,
        X_test,
        "predict",
    )
    if expected is None:
        pytest.skip("sklearn's trees depend on its random feature order here (ties)")
    ours = GradientBoostingRegressor(n_estimators=100, max_depth=max_depth)
    ours.fit(X_train, y_train)
    np.testing.assert_allclose(ours.predict(X_test), expected, rtol=1e-9)


@pytest.mark.parametrize("rows", ["train", "test"])
@pytest.mark.parametrize("name", ["breast_cancer", "iris", "wine"])
@pytest.mark.parametrize("max_depth", [1, 2, 3])
def test_classifier_matches_sklearn(name, max_depth, rows):
    X, y = getattr(datasets, f"load_{name}")(return_X_y=True)
    X_train, X_test, y_train, _ = train_test_split(_float32(X), y, random_state=0, stratify=y)
    X_test = X_train if rows == "train" else X_test
    expected = _seed_invariant(
        lambda seed: ensemble.GradientBoostingClassifier(
            n_estimators=50, max_depth=max_depth, random_state=seed
        ),
        X_train,
        y_train,
        X_test,
        "predict_proba",
    )
    if expected is None:
        pytest.skip("sklearn's trees depend on its random feature order here (ties)")
    ours = GradientBoostingClassifier(n_estimators=50, max_depth=max_depth)
    ours.fit(X_train, y_train)
    np.testing.assert_allclose(ours.predict_proba(X_test), expected, rtol=1e-9, atol=1e-12)


def test_at_least_some_sklearn_comparisons_run():
    """Guard against every comparison above being skipped: a stump never ties here."""
    X, y = datasets.load_breast_cancer(return_X_y=True)
    X = _float32(X)
    reference = ensemble.GradientBoostingClassifier(n_estimators=30, max_depth=1).fit(X, y)
    ours = GradientBoostingClassifier(n_estimators=30, max_depth=1).fit(X, y)
    np.testing.assert_allclose(ours.predict_proba(X), reference.predict_proba(X), rtol=1e-9)


def test_squared_error_round_is_the_residual_tree():
    """Algorithm 8.3: each tree is a CART regression tree fitted to the residuals."""
    X, y = datasets.make_regression(200, 5, noise=10, random_state=1)
    model = GradientBoostingRegressor(n_estimators=3, learning_rate=0.5, max_depth=2).fit(X, y)
    residual = y - y.mean()
    for m in range(3):
        tree = CARTRegressor(max_depth=2).fit(X, residual)
        np.testing.assert_allclose(
            model.estimators_[m, 0].predict(X), tree.predict(X), rtol=1e-10, atol=1e-10
        )
        residual = residual - 0.5 * tree.predict(X)
    np.testing.assert_allclose(model.predict(X), y - residual, rtol=1e-10)


def test_squared_error_training_loss_never_increases():
    # With least-squares leaves h and 0 < nu <= 1, |r - nu h|^2 = |r|^2 - nu (2 - nu) |h|^2.
    X, y = datasets.make_regression(300, 6, noise=20, random_state=2)
    model = GradientBoostingRegressor(n_estimators=40, learning_rate=0.3).fit(X, y)
    assert np.all(np.diff(model.train_score_) <= 1e-9)
    assert model.train_score_[-1] == pytest.approx(0.5 * np.mean((y - model.predict(X)) ** 2))


def test_binomial_train_score_is_the_log_loss():
    X, y = datasets.load_breast_cancer(return_X_y=True)
    model = GradientBoostingClassifier(n_estimators=20).fit(X, y)
    p = model.predict_proba(X)[:, 1]
    log_loss = -np.mean(y * np.log(p) + (1 - y) * np.log(1 - p))
    assert model.train_score_[-1] == pytest.approx(log_loss, rel=1e-9)


@pytest.mark.parametrize("max_bins", [None, 16])
def test_leaf_membership_from_codes_equals_apply(max_bins):
    rng = np.random.default_rng(0)
    frame = pd.DataFrame(
        {
            "a": rng.normal(size=500),
            "b": pd.Categorical(rng.choice(list("pqrst"), size=500)),
            "c": rng.integers(0, 7, size=500).astype(float),
        }
    )
    y = frame["a"] * 2 + (frame["b"] == "q") * 3 + rng.normal(size=500)
    tree = CARTRegressor(max_depth=5, max_bins=max_bins).fit(frame, y)
    codes, specs = bin_features(frame, max_bins=max_bins)
    np.testing.assert_array_equal(node_of_codes(tree.tree_, codes, specs), tree.apply(frame))


def test_multinomial_grows_k_trees_per_round():
    X, y = datasets.load_iris(return_X_y=True)
    X = _float32(X)
    model = GradientBoostingClassifier(n_estimators=7).fit(X, y)
    assert model.estimators_.shape == (7, 3)
    # F_k = init_k + nu * sum over rounds of tree (m, k); p = softmax(F), from the
    # members themselves: a tree added to the wrong class, a missing learning
    # rate or a wrong normaliser changes these probabilities.
    scores = (
        model.init_
        + 0.1
        * np.array([[tree.predict(X) for tree in trees] for trees in model.estimators_])
        .sum(axis=0)
        .T
    )
    expected = np.exp(scores) / np.exp(scores).sum(axis=1, keepdims=True)
    np.testing.assert_allclose(model.predict_proba(X), expected, rtol=1e-12)
    # And the K trees of a round are those of scikit-learn (Friedman's K-class
    # leaf values, (K - 1)/K times a Newton step), when its trees do not depend
    # on its random feature order.
    reference = _seed_invariant(
        lambda seed: ensemble.GradientBoostingClassifier(n_estimators=7, random_state=seed),
        X,
        y,
        X,
        "predict_proba",
    )
    if reference is None:
        pytest.skip("sklearn's trees depend on its random feature order here (ties)")
    np.testing.assert_allclose(model.predict_proba(X), reference, rtol=1e-9, atol=1e-12)


def test_histogram_mode_is_close_to_exact():
    X, y = datasets.make_classification(3000, 10, n_informative=6, random_state=3)
    X_train, X_test, y_train, y_test = train_test_split(X, y, random_state=0)
    exact = GradientBoostingClassifier(n_estimators=60).fit(X_train, y_train)
    hist = GradientBoostingClassifier(n_estimators=60, max_bins=255).fit(X_train, y_train)
    assert abs(exact.score(X_test, y_test) - hist.score(X_test, y_test)) < 0.03


def test_subsample_is_seeded_and_records_oob_improvement():
    X, y = datasets.make_regression(400, 5, noise=10, random_state=4)
    a = GradientBoostingRegressor(subsample=0.5, random_state=0).fit(X, y)
    b = GradientBoostingRegressor(subsample=0.5, random_state=0).fit(X, y)
    c = GradientBoostingRegressor(subsample=0.5, random_state=1).fit(X, y)
    np.testing.assert_array_equal(a.predict(X), b.predict(X))
    assert not np.array_equal(a.predict(X), c.predict(X))
    assert a.oob_improvement_.shape == (100,)
    assert a.oob_improvement_[:10].mean() > 0  # early rounds improve out-of-bag loss
    assert not hasattr(GradientBoostingRegressor().fit(X, y), "oob_improvement_")


def test_early_stopping_stops_and_keeps_what_it_fitted():
    X, y = datasets.make_regression(500, 5, noise=60, random_state=5)
    model = GradientBoostingRegressor(
        n_estimators=2000, learning_rate=0.3, n_iter_no_change=5, random_state=0
    ).fit(X, y)
    assert 5 < model.n_estimators_ < 2000
    assert model.estimators_.shape[0] == model.n_estimators_ == len(model.train_score_)


def test_staged_predict_ends_at_predict():
    X, y = datasets.load_wine(return_X_y=True)
    model = GradientBoostingClassifier(n_estimators=10).fit(X, y)
    staged = list(model.staged_predict_proba(X))
    assert len(staged) == 10
    np.testing.assert_allclose(staged[-1], model.predict_proba(X), rtol=1e-12)
    np.testing.assert_array_equal(list(model.staged_predict(X))[-1], model.predict(X))
    reg = GradientBoostingRegressor(n_estimators=5).fit(X, y.astype(float))
    np.testing.assert_allclose(list(reg.staged_predict(X))[-1], reg.predict(X), rtol=1e-12)


def test_feature_importances_match_sklearn_for_stumps():
    X, y = datasets.load_breast_cancer(return_X_y=True)
    X = _float32(X)
    ours = GradientBoostingClassifier(n_estimators=20, max_depth=1).fit(X, y)
    reference = ensemble.GradientBoostingClassifier(n_estimators=20, max_depth=1).fit(X, y)
    np.testing.assert_allclose(ours.feature_importances_, reference.feature_importances_, atol=1e-9)


def test_verbose_prints_one_line_per_round_to_stdout(capsys):
    X, y = datasets.make_regression(100, 3, random_state=6)
    model = GradientBoostingRegressor(n_estimators=3, verbose=1).fit(X, y)
    captured = capsys.readouterr()
    assert captured.err == ""
    lines = captured.out.splitlines()
    assert [line.split()[2] for line in lines] == ["1/3", "2/3", "3/3"]
    assert float(lines[-1].split()[5]) == pytest.approx(model.train_score_[-1], rel=1e-5)


def test_sklearn_api_and_pandas():
    X, y = datasets.load_breast_cancer(return_X_y=True, as_frame=True)
    pipe = make_pipeline(StandardScaler(), GradientBoostingClassifier(n_estimators=10))
    assert pipe.fit(X, y).score(X, y) > 0.9
    search = GridSearchCV(GradientBoostingClassifier(n_estimators=5), {"max_depth": [1, 2]}, cv=2)
    search.fit(X, y)
    # Each candidate's score is that of a model built with the parameter in its
    # constructor (set_params must take effect), and the refitted best model has
    # trees of that depth.
    for depth, score in zip([1, 2], search.cv_results_["mean_test_score"], strict=True):
        direct = cross_val_score(
            GradientBoostingClassifier(n_estimators=5, max_depth=depth), X, y, cv=2
        )
        assert score == pytest.approx(direct.mean(), rel=1e-12)
    scores = search.cv_results_["mean_test_score"]
    assert scores[0] != scores[1]
    best = [1, 2][int(np.argmax(scores))]
    assert search.best_params_["max_depth"] == best
    assert max(t.get_depth() for t in search.best_estimator_.estimators_[:, 0]) == best
    model = clone(GradientBoostingClassifier(learning_rate=0.05)).fit(X, y)
    assert list(model.feature_names_in_) == list(X.columns)


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"loss": "exponential"}, "loss"),
        ({"learning_rate": 0}, "learning_rate"),
        ({"n_estimators": 0}, "n_estimators"),
        ({"subsample": 1.5}, "subsample"),
        ({"max_depth": 0}, "max_depth"),
        ({"validation_fraction": 1.0, "n_iter_no_change": 2}, "validation_fraction"),
        ({"max_bins": 1}, "max_bins"),
    ],
)
def test_bad_parameters(params, message):
    X, y = datasets.make_regression(50, 3, random_state=7)
    with pytest.raises(ValueError, match=message):
        GradientBoostingRegressor(**params).fit(X, y)


def test_bad_input():
    X, y = datasets.make_classification(60, 4, random_state=8)
    with pytest.raises(ValueError, match="class"):
        GradientBoostingClassifier().fit(X, np.zeros(60))
    # NaN is a missing value (tests/test_gradient_boosting_missing.py); inf is an error.
    with pytest.raises(ValueError, match="inf"):
        GradientBoostingClassifier().fit(np.where(X > 1, np.inf, X), y)
    with pytest.raises(ValueError, match="NaN or inf"):
        GradientBoostingRegressor().fit(X, np.where(y > 0, np.inf, 0.0))
    with pytest.raises(ValueError, match="negative"):
        GradientBoostingRegressor().fit(X, y, sample_weight=-np.ones(60))
    model = GradientBoostingClassifier(n_estimators=3).fit(X, y)
    with pytest.raises(ValueError, match="features"):
        model.predict(X[:, :2])
    with pytest.raises(ValueError, match="inf"):
        model.predict(np.where(X > 1, -np.inf, X))
    # A failed refit leaves the fitted model intact.
    before = model.predict_proba(X)
    with pytest.raises(ValueError, match="samples"):
        model.fit(X, y[:-1])
    np.testing.assert_array_equal(model.predict_proba(X), before)
