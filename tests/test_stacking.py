"""Stacking and blending (chapter 16).

The reference is scikit-learn: given the same folds, members and final
estimator, our level-1 features and predictions must equal its
``StackingClassifier`` / ``StackingRegressor`` bit for bit, and our
out-of-fold features must equal ``cross_val_predict`` run member by member.
The leakage tests use a fully grown tree, whose in-sample predictions are the
training targets themselves, so the expected in-sample weights follow by hand.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import sklearn.ensemble as sk_ensemble
from _estimator_checks import INPUT_BY_DESIGN, run_check
from sklearn.base import clone
from sklearn.linear_model import LinearRegression, LogisticRegression, RidgeCV
from sklearn.metrics import log_loss
from sklearn.model_selection import KFold, StratifiedKFold, cross_val_predict
from sklearn.svm import LinearSVC
from sklearn.utils.estimator_checks import parametrize_with_checks

import mltrees
from mltrees.datasets import load_higgs, load_penguins


@pytest.fixture(scope="module")
def higgs():
    X, y = load_higgs(return_X_y=True)
    return X.iloc[:300], y.iloc[:300]


def _members():
    return [
        ("cart", mltrees.CARTClassifier(max_depth=4)),
        ("gb", mltrees.GradientBoostingClassifier(n_estimators=4, max_depth=2)),
        ("ada", mltrees.AdaBoostClassifier(n_estimators=4)),
    ]


# -- equality with scikit-learn -------------------------------------------------------


@pytest.mark.parametrize(
    ("stack_method", "passthrough", "as_frame"),
    [("auto", False, True), ("predict_proba", True, True), ("predict", True, False)],
)
def test_binary_equals_sklearn(higgs, passthrough, stack_method, as_frame):
    X, y = higgs
    if not as_frame:
        X = X.to_numpy()
    cv = StratifiedKFold(4, shuffle=True, random_state=3)
    kw = {"cv": cv, "stack_method": stack_method, "passthrough": passthrough}
    ours = mltrees.StackingClassifier(_members(), LogisticRegression(), **kw).fit(X, y)
    ref = sk_ensemble.StackingClassifier(_members(), LogisticRegression(), **kw).fit(X, y)
    np.testing.assert_array_equal(ours.transform(X), ref.transform(X))
    np.testing.assert_array_equal(ours.final_estimator_.coef_, ref.final_estimator_.coef_)
    np.testing.assert_array_equal(ours.predict_proba(X), ref.predict_proba(X))
    np.testing.assert_array_equal(ours.predict(X), ref.predict(X))
    # Level-1 features built independently, member by member, on the same folds;
    # binary probabilities keep only the second column (sklearn drops the first).
    method = "predict_proba" if stack_method == "auto" else stack_method
    oof = []
    for _, est in _members():
        p = cross_val_predict(est, X, y.to_numpy(), cv=cv, method=method)
        # Higgs labels are 0 and 1, the codes the stack fits its members on.
        oof.append(p[:, 1:] if p.ndim == 2 else p[:, None])
    np.testing.assert_array_equal(ours.oof_predictions_, np.hstack(oof))
    assert ours.oof_predictions_.shape == (len(y), 3)
    assert list(ours.get_feature_names_out()[:3]) == list(ref.get_feature_names_out()[:3])


def test_decision_function_and_multiclass_equal_sklearn():
    X, y = load_penguins(return_X_y=True)
    X = X.select_dtypes("number")
    keep = X.notna().all(axis=1).to_numpy()
    X, y = X[keep], y[keep]
    members = [
        ("gb", mltrees.GradientBoostingClassifier(n_estimators=3, max_depth=2)),
        ("xgb", mltrees.XGBoostClassifier(n_estimators=3, max_depth=2)),
    ]
    folds = list(StratifiedKFold(3, shuffle=True, random_state=0).split(X, y))
    for method in ("decision_function", "predict_proba"):
        kw = {"cv": folds, "stack_method": method}
        final = LogisticRegression(max_iter=300)
        ours = mltrees.StackingClassifier(members, final, **kw).fit(X, y)
        ref = sk_ensemble.StackingClassifier(members, final, **kw).fit(X, y)
        k = len(np.unique(y))
        assert k > 2
        assert ours.oof_predictions_.shape == (len(y), 2 * k)
        np.testing.assert_array_equal(ours.transform(X), ref.transform(X))
        np.testing.assert_array_equal(ours.predict_proba(X), ref.predict_proba(X))
        np.testing.assert_array_equal(ours.predict(X), ref.predict(X))


@pytest.mark.parametrize("passthrough", [False, True])
def test_regressor_equals_sklearn(passthrough):
    X, _ = load_penguins(return_X_y=True)
    X = X.select_dtypes("number").dropna()
    y, X = X.pop("body_mass_g"), X
    members = [
        ("cart", mltrees.CARTRegressor(max_depth=3)),
        ("gb", mltrees.GradientBoostingRegressor(n_estimators=10, max_depth=2)),
        ("rf", mltrees.RandomForestRegressor(n_estimators=5, random_state=0)),
    ]
    cv = KFold(5, shuffle=True, random_state=1)
    ours = mltrees.StackingRegressor(members, RidgeCV(), cv=cv, passthrough=passthrough)
    ref = sk_ensemble.StackingRegressor(members, RidgeCV(), cv=cv, passthrough=passthrough)
    ours.fit(X, y)
    ref.fit(X, y)
    oof = np.column_stack([cross_val_predict(e, X, y, cv=cv) for _, e in members])
    np.testing.assert_array_equal(ours.oof_predictions_, oof)
    np.testing.assert_array_equal(ours.transform(X), ref.transform(X))
    np.testing.assert_array_equal(ours.predict(X), ref.predict(X))


def test_default_cv_is_five_unshuffled_folds_as_sklearn(higgs):
    X, y = higgs
    ours = mltrees.StackingClassifier(_members()[:2]).fit(X, y)
    ref = sk_ensemble.StackingClassifier(_members()[:2]).fit(X, y)
    assert len(ours.folds_) == 5
    np.testing.assert_array_equal(ours.predict_proba(X), ref.predict_proba(X))


# -- leakage: the memoriser -------------------------------------------------------------


def _noisy_regression(n, seed):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-2, 2, size=(n, 2))
    y = X[:, 0] + 0.5 * X[:, 1] + rng.normal(0, 1.0, n)  # noise sd 1: half the variance
    return X, y


def test_in_sample_stacking_trusts_the_memoriser_oof_does_not():
    X, y = _noisy_regression(400, 0)
    X_test, y_test = _noisy_regression(2000, 1)
    members = [
        ("memoriser", mltrees.CARTRegressor()),  # fully grown: one row per leaf
        ("smooth", mltrees.GradientBoostingRegressor(n_estimators=30, max_depth=2)),
    ]
    final = LinearRegression(positive=True)  # Breiman's non-negative combination
    n = len(y)
    in_sample = mltrees.StackingRegressor(members, final, cv=[(np.arange(n), np.arange(n))])
    in_sample.fit(X, y)
    # A fully grown tree on distinct x reproduces y, so w = (1, 0), b = 0 fits with
    # zero residual: the in-sample level-1 problem is solved by the memoriser alone.
    np.testing.assert_array_equal(in_sample.oof_predictions_[:, 0], y)
    np.testing.assert_allclose(in_sample.final_estimator_.coef_, [1.0, 0.0], atol=1e-8)
    oof = mltrees.StackingRegressor(members, final, cv=KFold(5, shuffle=True, random_state=0))
    oof.fit(X, y)
    w_mem, w_smooth = oof.final_estimator_.coef_
    assert w_smooth > 0.6, (w_mem, w_smooth)
    assert w_mem < 0.4, (w_mem, w_smooth)
    mse = [np.mean((m.predict(X_test) - y_test) ** 2) for m in (in_sample, oof)]
    assert mse[1] < 0.8 * mse[0], mse


def test_in_sample_classifier_weights_favour_the_fully_grown_tree(higgs):
    X, y = higgs
    X_test, y_test = load_higgs(return_X_y=True)
    X_test, y_test = X_test.iloc[3000:4500], y_test.iloc[3000:4500]
    members = [
        ("tree", mltrees.CARTClassifier()),
        ("gb", mltrees.GradientBoostingClassifier(n_estimators=30, max_depth=2)),
    ]
    n = len(y)
    leaky = mltrees.StackingClassifier(members, cv=[(np.arange(n), np.arange(n))]).fit(X, y)
    honest = mltrees.StackingClassifier(
        members, cv=StratifiedKFold(5, shuffle=True, random_state=0)
    ).fit(X, y)
    w_leaky = leaky.final_estimator_.coef_[0]
    w_honest = honest.final_estimator_.coef_[0]
    assert w_leaky[0] > w_leaky[1]  # the tree's in-sample probabilities are 0 or 1
    assert w_honest[0] < w_honest[1]
    assert log_loss(y_test, honest.predict_proba(X_test)) < log_loss(
        y_test, leaky.predict_proba(X_test)
    )


# -- blending -----------------------------------------------------------------------------


def test_blending_trains_final_on_holdout_with_unrefitted_members(higgs):
    X, y = higgs
    blend = mltrees.BlendingClassifier(_members(), holdout=0.3, random_state=0).fit(X, y)
    hold = blend.holdout_index_
    train = np.setdiff1d(np.arange(len(y)), hold)
    assert hold.size == 90
    codes = np.searchsorted(blend.classes_, y.to_numpy())
    assert abs(codes[hold].mean() - codes.mean()) < 0.01  # stratified
    columns = []
    for (_, est), fitted in zip(_members(), blend.estimators_, strict=True):
        alone = clone(est).fit(X.iloc[train], codes[train])
        np.testing.assert_array_equal(alone.predict_proba(X), fitted.predict_proba(X))
        columns.append(alone.predict_proba(X.iloc[hold])[:, 1])
    np.testing.assert_array_equal(blend.holdout_predictions_, np.column_stack(columns))
    final = LogisticRegression().fit(np.column_stack(columns), codes[hold])
    np.testing.assert_array_equal(blend.final_estimator_.coef_, final.coef_)


def test_blending_regressor_and_bad_holdout():
    X, y = _noisy_regression(200, 2)
    members = [("cart", mltrees.CARTRegressor(max_depth=3))]
    blend = mltrees.BlendingRegressor(members, holdout=0.25, random_state=1).fit(X, y)
    assert blend.holdout_predictions_.shape == (50, 1)
    assert blend.predict(X).shape == (200,)
    for bad in (0, 1, 1.5, True, "0.2"):
        with pytest.raises(ValueError, match="holdout must be a fraction"):
            mltrees.BlendingRegressor(members, holdout=bad).fit(X, y)


# -- parameters, clone, verbose ------------------------------------------------------


def test_nested_params_clone_and_sample_weight(higgs):
    X, y = higgs
    stack = mltrees.StackingClassifier(_members(), cv=3)
    params = stack.get_params()
    assert params["cart__max_depth"] == 4
    assert params["gb"] is stack.estimators[1][1]
    stack.set_params(cart__max_depth=2, ada=mltrees.AdaBoostClassifier(n_estimators=3))
    assert stack.estimators[0][1].max_depth == 2
    assert stack.estimators[2][1].n_estimators == 3
    copy = clone(stack)
    assert copy.get_params()["cart__max_depth"] == 2
    w = np.ones(len(y))
    w[:100] = 2.0
    a = mltrees.StackingClassifier(_members(), cv=3).fit(X, y, sample_weight=w)
    b = sk_ensemble.StackingClassifier(_members(), cv=3).fit(X, y, sample_weight=w)
    np.testing.assert_array_equal(a.predict_proba(X), b.predict_proba(X))


def test_verbose_is_silent_by_default(higgs, capsys):
    X, y = higgs
    mltrees.StackingClassifier(_members()[:1], cv=2).fit(X, y)
    assert capsys.readouterr() == ("", "")
    mltrees.StackingClassifier(_members()[:1], cv=2, verbose=1).fit(X, y)
    captured = capsys.readouterr()
    assert captured.err == ""
    err = captured.out
    assert "[StackingClassifier]" in err
    assert "final estimator fitted" in err
    assert "member 1/1 'cart': 2 fold fits and a refit" in err


# -- bad input ------------------------------------------------------------------------------


def test_bad_input_errors(higgs):
    X, y = higgs
    with pytest.raises(ValueError, match="estimators must be a non-empty list"):
        mltrees.StackingClassifier([]).fit(X, y)
    with pytest.raises(TypeError, match=r"\(str, estimator\) pairs"):
        mltrees.StackingClassifier([mltrees.CARTClassifier()]).fit(X, y)
    with pytest.raises(ValueError, match="names must be unique"):
        mltrees.StackingClassifier([("a", LogisticRegression())] * 2).fit(X, y)
    with pytest.raises(ValueError, match="'svm' \\(LinearSVC\\) has no predict_proba"):
        mltrees.StackingClassifier(
            [("svm", LinearSVC()), ("cart", mltrees.CARTClassifier())],
            stack_method="predict_proba",
        ).fit(X, y)
    with pytest.raises(ValueError, match="stack_method must be one of"):
        mltrees.StackingClassifier(_members(), stack_method="proba").fit(X, y)
    with pytest.raises(ValueError, match="final_estimator must be a classifier"):
        mltrees.StackingClassifier(_members(), final_estimator=RidgeCV()).fit(X, y)
    half = np.arange(len(y) // 2)
    with pytest.raises(ValueError, match="partition the rows"):
        mltrees.StackingClassifier(_members(), cv=[(half + len(half), half)]).fit(X, y)
    fitted = mltrees.StackingClassifier(_members()[:1], cv=2).fit(X.to_numpy(), y)
    with pytest.raises(ValueError, match="features"):
        fitted.predict(X.to_numpy()[:, :5])
    fitted = mltrees.StackingClassifier(_members()[:1], cv=2).fit(X, y)
    with pytest.raises(ValueError, match="feature names"):
        fitted.predict(X.rename(columns={X.columns[0]: "other"}))
    categorical = pd.DataFrame({"a": pd.Categorical(["u", "v"] * 50), "b": np.arange(100.0)})
    with pytest.raises(ValueError, match=r"passthrough=True .* numeric"):
        mltrees.StackingClassifier(
            [("cart", mltrees.CARTClassifier(max_depth=2))], cv=2, passthrough=True
        ).fit(categorical, np.arange(100) % 2)
    with pytest.raises(ValueError, match="one class"):
        mltrees.StackingClassifier(_members()).fit(X, np.zeros(len(y)))


# -- scikit-learn's estimator checks --------------------------------------------------


ESTIMATORS = [
    mltrees.StackingClassifier(
        [
            ("cart", mltrees.CARTClassifier(max_depth=3)),
            ("ada", mltrees.AdaBoostClassifier(n_estimators=5)),
        ],
        cv=3,
    ),
    mltrees.StackingRegressor(
        [
            ("cart", mltrees.CARTRegressor(max_depth=3)),
            ("gb", mltrees.GradientBoostingRegressor(n_estimators=5)),
        ],
        cv=3,
        passthrough=True,
    ),
    mltrees.BlendingClassifier(
        [("cart", mltrees.CARTClassifier(max_depth=3))], holdout=0.3, random_state=0
    ),
    mltrees.BlendingRegressor(
        [("cart", mltrees.CARTRegressor(max_depth=3))], holdout=0.3, random_state=0
    ),
]


def _expected(estimator) -> dict[str, str]:
    # X reaches the members as given, so the members' own input rules apply.
    expected = {"check_dtype_object": INPUT_BY_DESIGN["check_dtype_object"]}
    if isinstance(estimator, mltrees.BlendingClassifier | mltrees.BlendingRegressor):
        expected["check_sample_weight_equivalence_on_dense_data"] = (
            "the holdout is drawn among rows, so weight 2 is not the same as a repeated row"
        )
    return expected


@parametrize_with_checks(ESTIMATORS, expected_failed_checks=_expected, xfail_strict=True)
def test_sklearn_estimator_checks(estimator, check):
    run_check(estimator, check, _expected(estimator))


# -- averaging the fold models instead of refitting ---------------------------------


def test_fold_average_predicts_the_mean_of_the_fold_models(higgs):
    X, y = higgs
    folds = StratifiedKFold(4, shuffle=True, random_state=0)
    kept = mltrees.StackingClassifier(_members(), cv=folds, refit=False).fit(X, y)
    refitted = mltrees.StackingClassifier(_members(), cv=folds).fit(X, y)
    # same out-of-fold features, hence the same combiner
    np.testing.assert_array_equal(kept.oof_predictions_, refitted.oof_predictions_)
    np.testing.assert_array_equal(kept.final_estimator_.coef_, refitted.final_estimator_.coef_)
    by_hand = []
    for (_, est), average in zip(_members(), kept.estimators_, strict=True):
        assert isinstance(average, mltrees.ensemble.FoldAverage)
        assert len(average.estimators_) == 4
        fold_models = [
            clone(est).fit(X.iloc[train], y.iloc[train]) for train, _ in folds.split(X, y)
        ]
        mean = np.mean([m.predict_proba(X)[:, 1] for m in fold_models], axis=0)
        np.testing.assert_allclose(average.predict_proba(X)[:, 1], mean, atol=1e-12)
        by_hand.append(mean)
    np.testing.assert_allclose(kept.transform(X), np.column_stack(by_hand), atol=1e-12)
    assert not np.allclose(kept.transform(X), refitted.transform(X))


def test_fold_average_regressor_and_refused_labels(higgs):
    X, y = higgs
    members = [("a", mltrees.CARTRegressor(max_depth=2)), ("b", mltrees.CARTRegressor(max_depth=4))]
    kept = mltrees.StackingRegressor(members, cv=KFold(3), refit=False).fit(X, y.astype(float))
    manual = np.mean(
        [
            mltrees.CARTRegressor(max_depth=2).fit(X.iloc[tr], y.iloc[tr]).predict(X)
            for tr, _ in KFold(3).split(X)
        ],
        axis=0,
    )
    np.testing.assert_allclose(kept.transform(X)[:, 0], manual, atol=1e-12)
    with pytest.raises(ValueError, match="refit=False averages"):
        mltrees.StackingClassifier(_members(), stack_method="predict", refit=False).fit(X, y)
    with pytest.raises(ValueError, match="refit must be True or False"):
        mltrees.StackingClassifier(_members(), refit="no").fit(X, y)


def test_fold_average_fills_a_class_missing_from_a_fold():
    X = np.arange(30, dtype=float)[:, None]
    y = np.array([0] * 14 + [1] * 14 + [2] * 2)
    folds = [(np.arange(28), np.arange(28, 30)), (np.arange(2, 30), np.arange(2))]
    folds.append((np.r_[0:2, 28:30], np.arange(2, 28)))
    stack = mltrees.StackingClassifier(
        [("t", mltrees.CARTClassifier(max_depth=2))], cv=folds, refit=False
    ).fit(X, y)
    proba = stack.estimators_[0].predict_proba(X)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    assert proba.shape == (30, 3)


def test_blending_without_shuffle_holds_out_the_last_rows(higgs):
    X, y = higgs
    blend = mltrees.BlendingClassifier(_members(), holdout=0.25, shuffle=False).fit(X, y)
    np.testing.assert_array_equal(blend.holdout_index_, np.arange(225, 300))
    cart = clone(_members()[0][1]).fit(X.iloc[:225], y.iloc[:225])
    np.testing.assert_allclose(
        blend.holdout_predictions_[:, 0], cart.predict_proba(X.iloc[225:])[:, 1], atol=1e-12
    )
    with pytest.raises(ValueError, match="shuffle must be True or False"):
        mltrees.BlendingRegressor(_members(), shuffle=None).fit(X, y.astype(float))


def test_fold_averages_and_forward_holdouts_come_back_from_a_model_file(higgs, tmp_path):
    from mltrees.io import ModelFormatError, load_model, save_model

    X, y = higgs
    three = np.where(np.arange(len(y)) % 3 == 0, 2, y.to_numpy())  # three classes
    stacks = [
        (mltrees.StackingClassifier(_members(), cv=StratifiedKFold(3), refit=False), y),
        (mltrees.StackingClassifier(_members(), cv=StratifiedKFold(3), refit=False), three),
        (
            mltrees.StackingRegressor(
                [("cart", mltrees.CARTRegressor(max_depth=3))], cv=KFold(3), refit=False
            ),
            y.astype(float),
        ),
        (mltrees.BlendingClassifier(_members(), holdout=0.3, shuffle=False), y),
    ]
    for k, (stack, target) in enumerate(stacks):
        stack.fit(X, target)
        path = tmp_path / f"stack{k}.json"
        save_model(stack, path)
        back = load_model(path)
        np.testing.assert_array_equal(back.predict(X), stack.predict(X))
        assert back.get_params()["estimators"][0][0] == stack.get_params()["estimators"][0][0]
    # a file whose fold average declares the wrong number of classes is refused
    text = (tmp_path / "stack1.json").read_text()
    assert '"n_classes": 3' in text
    (tmp_path / "bad.json").write_text(text.replace('"n_classes": 3', '"n_classes": 2', 1))
    with pytest.raises(ModelFormatError, match="number of classes"):
        load_model(tmp_path / "bad.json")


def test_passthrough_missing_values_at_predict_refused_by_name():
    """Found by the long differential profile (20 continuous rows, NaN at predict only).

    With ``passthrough=True`` the final estimator receives X's columns; a
    final estimator that refuses NaN makes the stack refuse it too (its
    ``allow_nan`` tag is False), already in ``transform``, naming the column
    and the fix. scikit-learn's ``transform`` returns the NaN and its final
    estimator fails at ``predict``: the named exception ``passthrough NaN
    refused early`` of the differential test. Without passthrough both agree.
    """
    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(20, 2)), rng.normal(size=20)
    X_test = rng.normal(size=(6, 2))
    X_test[[1, 4], 1] = np.nan
    members = [("cart", mltrees.CARTRegressor(max_depth=2))]
    ours = mltrees.StackingRegressor(members, cv=2, passthrough=True).fit(X, y)
    theirs = sk_ensemble.StackingRegressor(members, cv=2, passthrough=True).fit(X, y)
    for method in ("transform", "predict"):
        with pytest.raises(ValueError, match=r"NaN\) in column '1'; passthrough=True hands"):
            getattr(ours, method)(X_test)
    assert np.isnan(theirs.transform(X_test)[[1, 4], -1]).all()
    with pytest.raises(ValueError, match="Input X contains NaN"):
        theirs.predict(X_test)
    plain = mltrees.StackingRegressor(members, cv=2).fit(X, y)
    np.testing.assert_array_equal(
        plain.predict(X_test),
        sk_ensemble.StackingRegressor(members, cv=2).fit(X, y).predict(X_test),
    )
