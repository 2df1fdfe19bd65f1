"""Bad input: every public estimator against every bad input of the reliability review.

Each cell of the matrix has its expected outcome:

* ``Error(pattern)``: a ``ValueError`` or ``TypeError`` whose message names
  the argument (the regular expression ``pattern``), or ``NotFittedError``
  for a prediction before ``fit``;
* ``ACCEPT``: documented acceptance -- the fit succeeds and predicts valid
  outputs (finite, the right shape, labels among ``classes_``);
* ``SAME``: accepted, and the model predicts what it predicts on the
  unchanged data (values scaled by a power of two to ±1.7e308 for rank-based
  trees, rows of seen categories after an unseen one is added);
* ``SKIP``: not applicable (no such parameter, a regressor and 1000 classes).

The expectation of a cell follows from the estimator's line in
:data:`ESTIMATORS` (what it takes, which parameters it has) and the line's
``overrides`` for documented exceptions; a new estimator is one line. NaN in
``X`` follows :data:`NAN_AT_DEFAULTS`, in one place, since the defaults of
missing values are changing (CART, the forests, bagging and AdaBoost are to
accept NaN with scikit-learn's rule).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
import pytest
from sklearn.exceptions import NotFittedError

import mltrees as M
from mltrees import dask as D

ACCEPT, SAME, SKIP = "accept", "same", "skip"


@dataclass(frozen=True)
class Error:
    """A ValueError/TypeError whose message matches ``pattern`` (or NotFittedError)."""

    pattern: str
    kind: type = (ValueError, TypeError)


X_ERROR = Error(r"\bX\b|column|features?\b|sample\(s\)")
Y_ERROR = Error(r"\by\b")
WEIGHT_ERROR = Error(r"sample_weight")
NAMES_ERROR = Error(r"feature names|column")
NOT_FITTED = Error(r"fit", NotFittedError)


@dataclass(frozen=True)
class Row:
    """What an estimator takes; the expected outcome of every bad input follows from it."""

    make: Callable
    task: str  # "classifier" or "regressor"
    data: str = "numbers"  # "numbers", or "categories" (ID3, ID5R: 3-level codes)
    strings: str = "categories"  # X of strings: read as "categories", as "numbers", or "refuse"
    categories: str = "accept"  # pandas category columns: "accept" or "refuse"
    sample_weight: bool = True
    two_classes: bool = False  # refuses a single class (boosting losses)
    huge: str = SAME  # X scaled by a power of two to ±1.7e308: SAME or "refuse"
    duplicates: str = "refuse"  # duplicated column names: "refuse" or ACCEPT
    dask: bool = False
    tree_per_class: bool = False  # boosting that grows a tree per class and round
    overrides: dict = field(default_factory=dict)  # input -> expectation, documented exceptions


def _stack(kind, **kw):
    classifier = kind in (M.StackingClassifier, M.BlendingClassifier)
    return kind([("tree", M.CARTClassifier() if classifier else M.CARTRegressor())], **kw)


CLF, REG = "classifier", "regressor"
HOLDOUT, CV = Error(r"holdout"), Error(r"\bcv\b")
NUMBERS = {"strings": "numbers"}  # strings of digits are read as numbers
NUMBERS_ONLY = {"strings": "numbers", "categories": "refuse"}
FLOAT32 = {"strings": "numbers", "huge": "refuse"}  # features stored as float32
STREAM = {"strings": "refuse", "categories": "refuse", "huge": "refuse", "duplicates": ACCEPT}
DASK = {"strings": "refuse", "categories": "refuse", "dask": True}
SAMPLE_TOO_SMALL = {"one_row": Error(r"max_samples")}  # a Poisson sample of one row can be empty
NO_LIMIT = {"max_depth": ACCEPT}  # LightGBM's convention: max_depth <= 0 means no limit


def _n(estimator, n=5):
    return estimator.set_params(n_estimators=n)


# One entry per public estimator (mltrees.__all__ and mltrees.dask).
ESTIMATORS = {
    "AdaBoostClassifier": Row(lambda: _n(M.AdaBoostClassifier()), CLF),
    "BaggingClassifier": Row(lambda: _n(M.BaggingClassifier(random_state=0)), CLF),
    "BaggingRegressor": Row(lambda: _n(M.BaggingRegressor(random_state=0)), REG),
    "BlendingClassifier": Row(
        lambda: _stack(M.BlendingClassifier, random_state=0),
        CLF,
        two_classes=True,
        overrides={"classes_1000": HOLDOUT},
    ),
    "BlendingRegressor": Row(
        lambda: _stack(M.BlendingRegressor, random_state=0), REG, overrides={"one_row": HOLDOUT}
    ),
    "C45Classifier": Row(M.C45Classifier, CLF),
    "CARTClassifier": Row(M.CARTClassifier, CLF),
    "CARTRegressor": Row(M.CARTRegressor, REG),
    "GradientBoostingClassifier": Row(
        lambda: _n(M.GradientBoostingClassifier()), CLF, two_classes=True, tree_per_class=True
    ),
    "GradientBoostingRegressor": Row(lambda: _n(M.GradientBoostingRegressor()), REG),
    "HoeffdingTreeClassifier": Row(
        lambda: M.HoeffdingTreeClassifier(grace_period=20), CLF, **STREAM
    ),
    "ID3Classifier": Row(
        lambda: M.ID3Classifier(categorical_features=[0, 1, 2, 3]), CLF, data="categories"
    ),
    "ID5RClassifier": Row(
        M.ID5RClassifier, CLF, data="categories", sample_weight=False, duplicates=ACCEPT
    ),
    "LightGBMClassifier": Row(
        lambda: _n(M.LightGBMClassifier()),
        CLF,
        **NUMBERS,
        huge="refuse",
        two_classes=True,
        overrides=NO_LIMIT,
    ),
    "LightGBMRegressor": Row(
        lambda: _n(M.LightGBMRegressor()), REG, **NUMBERS, huge="refuse", overrides=NO_LIMIT
    ),
    "ObliqueTreeClassifier": Row(
        lambda: M.ObliqueTreeClassifier(random_state=0), CLF, **NUMBERS_ONLY
    ),
    "ObliqueTreeRegressor": Row(
        lambda: M.ObliqueTreeRegressor(random_state=0), REG, **NUMBERS_ONLY
    ),
    "ObliviousBoostingClassifier": Row(
        lambda: _n(M.ObliviousBoostingClassifier()),
        CLF,
        **FLOAT32,
        two_classes=True,
        tree_per_class=True,
    ),
    "ObliviousBoostingRegressor": Row(lambda: _n(M.ObliviousBoostingRegressor()), REG, **FLOAT32),
    "RandomForestClassifier": Row(lambda: _n(M.RandomForestClassifier(random_state=0)), CLF),
    "RandomForestRegressor": Row(lambda: _n(M.RandomForestRegressor(random_state=0)), REG),
    "RuleSetClassifier": Row(M.RuleSetClassifier, CLF),
    "StackingClassifier": Row(
        lambda: _stack(M.StackingClassifier), CLF, two_classes=True, overrides={"classes_1000": CV}
    ),
    "StackingRegressor": Row(lambda: _stack(M.StackingRegressor), REG, overrides={"one_row": CV}),
    # Category columns are read as the codes of their categories (issue 32).
    "XGBoostClassifier": Row(lambda: _n(M.XGBoostClassifier()), CLF, **FLOAT32, two_classes=True),
    "XGBoostRegressor": Row(lambda: _n(M.XGBoostRegressor()), REG, **FLOAT32),
    "DaskXGBoostClassifier": Row(
        lambda: _n(D.DaskXGBoostClassifier(), 2),
        CLF,
        **DASK,
        huge="refuse",
        two_classes=True,
        overrides={"classes_1000": SKIP},  # ~0.14 s per class and round: a benchmark's business
    ),
    "DaskXGBoostRegressor": Row(
        lambda: _n(D.DaskXGBoostRegressor(), 2), REG, **DASK, huge="refuse"
    ),
    "DaskLightGBMClassifier": Row(
        lambda: _n(D.DaskLightGBMClassifier(), 2),
        CLF,
        **DASK,
        huge="refuse",
        two_classes=True,
        tree_per_class=True,
        overrides={**NO_LIMIT, "classes_1000": SKIP},  # a tree per class and round
    ),
    "DaskLightGBMRegressor": Row(
        lambda: _n(D.DaskLightGBMRegressor(), 2), REG, **DASK, huge="refuse", overrides=NO_LIMIT
    ),
    "DaskObliviousBoostingClassifier": Row(
        lambda: _n(D.DaskObliviousBoostingClassifier(), 2),
        CLF,
        **DASK,
        huge="refuse",
        two_classes=True,
        tree_per_class=True,
        overrides={"classes_1000": SKIP},  # 1000 outputs per level's histograms
    ),
    "DaskObliviousBoostingRegressor": Row(
        lambda: _n(D.DaskObliviousBoostingRegressor(), 2), REG, **DASK, huge="refuse"
    ),
    "DaskRandomForestClassifier": Row(
        lambda: _n(D.DaskRandomForestClassifier(random_state=0), 3),
        CLF,
        **DASK,
        overrides=SAMPLE_TOO_SMALL,
    ),
    "DaskRandomForestRegressor": Row(
        lambda: _n(D.DaskRandomForestRegressor(random_state=0), 3),
        REG,
        **DASK,
        overrides=SAMPLE_TOO_SMALL,
    ),
}

# NaN in X at the defaults: True = accepted (the estimator has a missing-value
# method on by default), False = refused with an error naming X. Since 0.2.0
# (issue 32) CART and what is built on it (forests, bagging, AdaBoost,
# stacking and blending of CART members, the Dask forests) route NaN with
# scikit-learn's default-direction rule, and ID3 with C4.5's fractional weights.
NAN_AT_DEFAULTS = {
    "AdaBoostClassifier": True,
    "BaggingClassifier": True,
    "BaggingRegressor": True,
    "BlendingClassifier": True,
    "BlendingRegressor": True,
    "C45Classifier": True,
    "CARTClassifier": True,
    "CARTRegressor": True,
    "GradientBoostingClassifier": True,
    "GradientBoostingRegressor": True,
    "HoeffdingTreeClassifier": False,
    "ID3Classifier": True,
    "ID5RClassifier": False,
    "LightGBMClassifier": True,
    "LightGBMRegressor": True,
    "ObliqueTreeClassifier": False,
    "ObliqueTreeRegressor": False,
    "ObliviousBoostingClassifier": True,
    "ObliviousBoostingRegressor": True,
    "RandomForestClassifier": True,
    "RandomForestRegressor": True,
    "RuleSetClassifier": True,
    "StackingClassifier": True,
    "StackingRegressor": True,
    "XGBoostClassifier": True,
    "XGBoostRegressor": True,
    "DaskXGBoostClassifier": True,
    "DaskXGBoostRegressor": True,
    "DaskLightGBMClassifier": True,
    "DaskLightGBMRegressor": True,
    "DaskObliviousBoostingClassifier": True,
    "DaskObliviousBoostingRegressor": True,
    "DaskRandomForestClassifier": True,
    "DaskRandomForestRegressor": True,
}

# The parameters of columns 22-25, checked on every estimator that has them.
BAD_PARAMETERS = [
    ("n_estimators", -3),
    ("learning_rate", 0.0),
    ("max_depth", -5),
    ("depth", -5),
]
# Column 25, a string where a number is expected: the first of these it has.
NUMBER_PARAMETERS = ("n_estimators", "max_depth", "holdout", "cv", "grace_period", "confidence")


def test_every_public_estimator_is_in_the_matrix():
    public = {
        name
        for name in M.__all__ + D.__all__
        if isinstance(getattr(M, name, getattr(D, name, None)), type)
        and hasattr(getattr(M, name, getattr(D, name, None)), "fit")
    }
    aliases = {"DecisionTreeClassifier", "DecisionTreeRegressor"}  # the CART classes themselves
    assert M.DecisionTreeClassifier is M.CARTClassifier
    assert M.DecisionTreeRegressor is M.CARTRegressor
    assert public - aliases == set(ESTIMATORS)
    assert set(NAN_AT_DEFAULTS) == set(ESTIMATORS)


# ------------------------------------------------------------------- data
def _data(row: Row, n=120, seed=0):
    rng = np.random.default_rng(seed)
    if row.data == "categories":
        X = rng.integers(0, 3, size=(n, 4)).astype(float)
        y = (X[:, 0] + X[:, 1] > 2).astype(int)
        return X, y
    X = rng.normal(size=(n, 4))
    if row.task == "classifier":
        return X, (X[:, 0] + 0.5 * X[:, 1] > 0).astype(int)
    return X, 2 * X[:, 0] + X[:, 1] + 0.1 * rng.normal(size=n)


def _frame(X):
    return pd.DataFrame(X, columns=["a", "b", "c", "d"])


def _huge(X):
    """X times a power of two, its largest |x| in [2**1023, 2**1024): up to ±1.8e308."""
    _, exponent = np.frexp(np.abs(X).max())
    return np.ldexp(X, 1024 - exponent)


def _check_valid(model, row, X, prediction):
    assert len(prediction) == len(X)
    if row.task == "classifier":
        assert np.isin(prediction, model.classes_).all()
    else:
        assert np.isfinite(np.asarray(prediction, dtype=float)).all()


# ------------------------------------------------------------- the inputs
# Each input: (row) -> (expectation, run), run(make) fitting and predicting.
def _fit_predict(X, y, Xp=None, **fit_kw):
    def run(row):
        model = row.make().fit(X, y, **fit_kw)
        Xp_ = X if Xp is None else Xp
        prediction = model.predict(Xp_)
        _check_valid(model, row, Xp_, prediction)
        return model, prediction

    return run


def nan_fit(row, X, y):
    X = X.copy()
    X[3, 1] = np.nan
    accepted = NAN_AT_DEFAULTS[row_name(row)]
    return (ACCEPT if accepted else X_ERROR), _fit_predict(X, y)


def nan_predict(row, X, y):
    Xp = X[:5].copy()
    Xp[1, 2] = np.nan
    accepted = NAN_AT_DEFAULTS[row_name(row)]
    return (ACCEPT if accepted else X_ERROR), _fit_predict(X, y, Xp)


def inf_x(row, X, y):
    X = X.copy()
    X[3, 1] = np.inf
    return X_ERROR, _fit_predict(X, y)


def nan_y(row, X, y):
    y = y.astype(float)
    y[5] = np.nan
    return Y_ERROR, _fit_predict(X, y)


def empty_x(row, X, y):
    return X_ERROR, _fit_predict(X[:0], y[:0])


def no_features(row, X, y):
    return X_ERROR, _fit_predict(X[:, :0], y)


def one_row(row, X, y):
    if row.task == "classifier" and row.two_classes:
        return Y_ERROR, _fit_predict(X[:1], y[:1])
    return ACCEPT, _fit_predict(X[:1], y[:1], X[:5])


def y_length(row, X, y):
    return Y_ERROR, _fit_predict(X, y[:-1])


def three_d(row, X, y):
    return X_ERROR, _fit_predict(X.reshape(len(X), 2, 2), y)


def complex_x(row, X, y):
    return X_ERROR, _fit_predict(X + 1j * X, y)


def strings(row, X, y):
    words = np.where(X > 0, "green", "red").astype(object)
    return (ACCEPT if row.strings == "categories" else X_ERROR), _fit_predict(words, y)


def numeric_strings(row, X, y):
    text = X.astype(str).astype(object)
    return (X_ERROR if row.strings == "refuse" else ACCEPT), _fit_predict(text, y)


def single_class(row, X, y):
    y = np.zeros_like(y) if row.task == "classifier" else np.full(len(y), 3.0)
    if row.two_classes:
        return Y_ERROR, _fit_predict(X, y)
    return ACCEPT, _fit_predict(X, y)


def _weights(values):
    def case(row, X, y):
        if not row.sample_weight:
            return SKIP, None
        return WEIGHT_ERROR, _fit_predict(X, y, sample_weight=values(len(y)))

    return case


sw_negative = _weights(lambda n: np.r_[-1.0, np.ones(n - 1)])
sw_nan = _weights(lambda n: np.r_[np.nan, np.ones(n - 1)])
sw_length = _weights(lambda n: np.ones(n - 1))
sw_zero = _weights(np.zeros)


def n_features_predict(row, X, y):
    return X_ERROR, _fit_predict(X, y, X[:5, :3])


def renamed_columns(row, X, y):
    Xp = _frame(X[:5]).rename(columns={"a": "z"})
    return NAMES_ERROR, _fit_predict(_frame(X), y, Xp)


def permuted_columns(row, X, y):
    Xp = _frame(X[:5])[["d", "c", "b", "a"]]
    return NAMES_ERROR, _fit_predict(_frame(X), y, Xp)


def before_fit(row, X, y):
    def run(row):
        row.make().predict(X)

    return NOT_FITTED, run


def _parameter(name, value):
    def case(row, X, y):
        estimator = row.make()
        if name not in estimator.get_params():
            return SKIP, None
        expectation = row.overrides[name] if name in row.overrides else Error(rf"\b{name}\b")

        def run(row):
            model = row.make().set_params(**{name: value}).fit(X, y)
            _check_valid(model, row, X, model.predict(X))

        return expectation, run

    return case


n_estimators_negative = _parameter("n_estimators", -3)
learning_rate_zero = _parameter("learning_rate", 0.0)


def depth_negative(row, X, y):
    params = row.make().get_params()
    name = "max_depth" if "max_depth" in params else "depth"
    return _parameter(name, -5)(row, X, y)


def string_parameter(row, X, y):
    params = row.make().get_params()
    name = next((p for p in NUMBER_PARAMETERS if p in params), None)
    if name is None:
        return SKIP, None
    return _parameter(name, "ten")(row, X, y)


def unseen_category(row, X, y):
    rng = np.random.default_rng(1)
    if row.data == "categories":
        frame = pd.DataFrame(X.astype(int).astype(str), columns=list("abcd")).astype("category")
    else:
        frame = pd.DataFrame(X[:, :3], columns=["a", "b", "c"])
        frame["d"] = pd.Categorical(rng.choice(list("pqr"), len(X)))
    later = frame.copy()
    values = later["d"].astype(object)
    values.iloc[:3] = "new"
    later["d"] = pd.Categorical(values, categories=["r", "new", "q", "p", "0", "1", "2"])
    if row.categories == "refuse":
        return X_ERROR, _fit_predict(frame, y)

    def run(row):
        model = row.make().fit(frame, y)
        before, after = model.predict(frame), model.predict(later)
        _check_valid(model, row, later, after)
        np.testing.assert_array_equal(after[3:], before[3:])

    return ACCEPT, run


def huge(row, X, y):
    if row.data == "categories":
        return SKIP, None
    Xh = _huge(X)
    if row.huge == "refuse":
        return X_ERROR, _fit_predict(Xh, y)

    def run(row):
        scaled = row.make().fit(Xh, y).predict(Xh)
        plain = row.make().fit(X, y).predict(X)
        np.testing.assert_array_equal(scaled, plain)

    return SAME, run


def duplicated_names(row, X, y):
    frame = pd.DataFrame(X, columns=["a", "a", "b", "c"])
    return (ACCEPT if row.duplicates == ACCEPT else X_ERROR), _fit_predict(frame, y)


def boolean_y(row, X, y):
    return ACCEPT, _fit_predict(X, y.astype(bool) if row.task == "classifier" else y > 0)


def classes_1000(row, X, y):
    if row.task != "classifier":
        return SKIP, None
    # Gradient boosting grows a tree per class and round: ~15-30 ms each, so
    # 1000 classes take 15-30 s; 200 of them check the same code in make test.
    n_classes = 200 if row.tree_per_class else 1000
    rng = np.random.default_rng(2)
    shape = (2 * n_classes, 4 if row.data == "categories" else 2)
    X = (
        rng.integers(0, 3, size=shape).astype(float)
        if row.data == "categories"
        else rng.normal(size=shape)
    )
    y = np.arange(2 * n_classes) % n_classes

    def run(row):
        # Small models: the cell checks that 1000 classes are taken, not how fast.
        estimator = row.make()
        params = estimator.get_params()
        small = {"n_estimators": 1, "max_depth": 2, "depth": 2, "n_restarts": 0}
        estimator.set_params(**{k: v for k, v in small.items() if k in params})
        model = estimator.fit(X, y)
        _check_valid(model, row, X[:50], model.predict(X[:50]))

    return ACCEPT, run


INPUTS = {
    "nan_fit": nan_fit,
    "nan_predict": nan_predict,
    "inf": inf_x,
    "nan_y": nan_y,
    "empty_x": empty_x,
    "no_features": no_features,
    "one_row": one_row,
    "y_length": y_length,
    "three_d": three_d,
    "complex": complex_x,
    "strings": strings,
    "numeric_strings": numeric_strings,
    "single_class": single_class,
    "sw_negative": sw_negative,
    "sw_nan": sw_nan,
    "sw_length": sw_length,
    "sw_zero": sw_zero,
    "n_features_predict": n_features_predict,
    "renamed_columns": renamed_columns,
    "permuted_columns": permuted_columns,
    "before_fit": before_fit,
    "n_estimators": n_estimators_negative,
    "learning_rate": learning_rate_zero,
    "max_depth": depth_negative,
    "string_parameter": string_parameter,
    "unseen_category": unseen_category,
    "huge": huge,
    "duplicated_names": duplicated_names,
    "boolean_y": boolean_y,
    "classes_1000": classes_1000,
}


def row_name(row: Row) -> str:
    return next(name for name, r in ESTIMATORS.items() if r is row)


def expectation(name: str, input_name: str):
    row = ESTIMATORS[name]
    X, y = _data(row)
    expected, run = INPUTS[input_name](row, X, y)
    if input_name in row.overrides and expected is not SKIP:
        expected = row.overrides[input_name]
    return expected, run


def _run_cell(name, input_name, request):
    row = ESTIMATORS[name]
    expected, run = expectation(name, input_name)
    if expected is SKIP:
        pytest.skip("not applicable")
    if row.dask:
        request.getfixturevalue("dask_client")  # the default client of the session
    if isinstance(expected, Error):
        with pytest.raises(expected.kind) as caught:
            run(row)
        message = str(caught.value)
        assert re.search(expected.pattern, message), (
            f"{name} on {input_name}: {type(caught.value).__name__}({message!r}) "
            f"does not name {expected.pattern!r}"
        )
    else:
        run(row)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # numpy's overflow warnings at 1.7e308
@pytest.mark.filterwarnings("ignore::UserWarning")  # e.g. sklearn's "X has feature names"
@pytest.mark.parametrize("input_name", list(INPUTS))
@pytest.mark.parametrize("name", list(ESTIMATORS))
def test_bad_input(name, input_name, request):
    _run_cell(name, input_name, request)
