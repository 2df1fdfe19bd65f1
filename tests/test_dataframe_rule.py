"""One rule for the columns of a DataFrame, in every estimator (mltrees._frames, README).

* ``category``, ``str`` (pandas 3's default for text), ``string``, ``object``
  columns of strings, ``bool`` and nullable ``boolean`` columns are
  categorical; ``None``, NaN and ``pd.NA`` are missing values;
* numbers, nullable ``Int64``/``Float64`` columns (``pd.NA`` missing) and
  ``object`` columns whose values are all numbers are numeric;
* estimators that split categories give the same model whatever the dtype a
  categorical column arrives in (checked against the same column as a pandas
  ``category``), and the same model for a numeric column as nullable
  integers, as an ``object`` column of numbers or as float64;
* estimators that split numbers only refuse categorical columns, naming them.

The package's own data at the defaults of all 14 classifier families: each
fits and predicts, or refuses with a message that names a column of the data.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.impute import SimpleImputer
from sklearn.model_selection import train_test_split

import mltrees
from mltrees._frames import ColumnTypeError, MixedColumnWarning
from mltrees.datasets import load_adult, load_penguins, load_titanic


def _table(n=240, seed=0):
    """Every kind of column, with holes; the same information as categories and floats."""
    rng = np.random.default_rng(seed)
    color = rng.choice(["red", "green", "blue"], n).astype(object)
    color[rng.random(n) < 0.1] = None
    flag = rng.random(n) < 0.5
    maybe = pd.array(np.where(rng.random(n) < 0.1, None, rng.random(n) < 0.4), dtype="boolean")
    count = pd.array(np.where(rng.random(n) < 0.1, None, rng.integers(0, 6, n)), dtype="Int64")
    size = rng.normal(size=n)
    y = ((size > 0) ^ (color == "red") ^ flag).astype(int)
    typed = pd.DataFrame(
        {
            "as_str": pd.Series(color, dtype="str"),
            "as_string": pd.Series(color, dtype="string"),
            "as_object": pd.Series(color, dtype=object),
            "flag": flag,
            "maybe": maybe,
            "count": count,
            "size_object": pd.Series(size, dtype=object),
            "size": size,
        }
    )
    # The reference: the categorical columns as pandas categories, numbers as float64.
    reference = pd.DataFrame(
        {
            "as_str": pd.Categorical(color),
            "as_string": pd.Categorical(color),
            "as_object": pd.Categorical(color),
            "flag": pd.Categorical(flag),
            "maybe": pd.Categorical(np.asarray(maybe, dtype=object)),
            "count": count.to_numpy(dtype=np.float64, na_value=np.nan),
            "size_object": size,
            "size": size,
        }
    )
    return typed, reference, y


CATEGORY_ESTIMATORS = [
    lambda: mltrees.CARTClassifier(max_depth=4),
    lambda: mltrees.C45Classifier(),
    lambda: mltrees.RandomForestClassifier(n_estimators=5, random_state=0),
    lambda: mltrees.BaggingClassifier(n_estimators=3, random_state=0),
    lambda: mltrees.AdaBoostClassifier(n_estimators=5),
    lambda: mltrees.GradientBoostingClassifier(n_estimators=5),
    lambda: mltrees.XGBoostClassifier(n_estimators=5),
    lambda: mltrees.LightGBMClassifier(n_estimators=5, min_child_samples=5),
    lambda: mltrees.ObliviousBoostingClassifier(n_estimators=5),
    lambda: mltrees.RuleSetClassifier(),
]


@pytest.mark.parametrize("make", CATEGORY_ESTIMATORS, ids=lambda make: type(make()).__name__)
def test_every_categorical_dtype_gives_the_model_of_a_category_column(make):
    typed, reference, y = _table()
    model = make().fit(typed, y)
    expected = make().fit(reference, y)
    test, test_reference, _ = _table(n=80, seed=1)
    np.testing.assert_array_equal(model.predict(test), expected.predict(test_reference))
    np.testing.assert_allclose(
        model.predict_proba(test), expected.predict_proba(test_reference), rtol=1e-12
    )


def test_id3_takes_every_categorical_dtype():
    typed, reference, y = _table()
    columns = ["as_str", "as_string", "as_object", "flag", "maybe"]
    model = mltrees.ID3Classifier().fit(typed[columns], y)
    expected = mltrees.ID3Classifier().fit(reference[columns], y)
    np.testing.assert_array_equal(
        model.predict(typed[columns]), expected.predict(reference[columns])
    )


@pytest.mark.parametrize(
    "make",
    [
        lambda: mltrees.ObliqueTreeClassifier(max_depth=3, random_state=0),
        lambda: mltrees.HoeffdingTreeClassifier(),
    ],
    ids=["ObliqueTreeClassifier", "HoeffdingTreeClassifier"],
)
@pytest.mark.parametrize("column", ["as_str", "as_string", "as_object", "flag", "maybe"])
def test_numeric_only_estimators_refuse_categories_by_name(make, column):
    typed, _, y = _table()
    X = typed[["size", column]].dropna()
    with pytest.raises(ColumnTypeError, match=f"column '{column}'"):
        make().fit(X, y[X.index])


@pytest.mark.parametrize(
    "make",
    [
        lambda: mltrees.ObliqueTreeClassifier(max_depth=3, random_state=0),
        lambda: mltrees.HoeffdingTreeClassifier(),
    ],
    ids=["ObliqueTreeClassifier", "HoeffdingTreeClassifier"],
)
def test_numeric_only_estimators_take_nullable_and_object_numbers(make):
    typed, reference, y = _table()
    keep = typed["count"].notna().to_numpy()
    columns = ["count", "size_object", "size"]
    model = make().fit(typed.loc[keep, columns], y[keep])
    expected = make().fit(reference.loc[keep, columns], y[keep])
    np.testing.assert_array_equal(
        model.predict(typed.loc[keep, columns]), expected.predict(reference.loc[keep, columns])
    )
    with pytest.raises(ValueError, match=r"column 'count'"):
        make().fit(typed[columns], y)


def test_object_numbers_after_most_frequent_imputation_stay_numbers():
    """SimpleImputer(strategy="most_frequent") returns object columns (the issue's fnlwgt)."""
    X, y = load_adult(return_X_y=True)
    X, y = X.iloc[:1500], y.iloc[:1500]
    imputer = SimpleImputer(strategy="most_frequent").set_output(transform="pandas")
    imputed = imputer.fit_transform(X)
    assert (imputed.dtypes.map(str) == "object").any()
    model = mltrees.CARTClassifier(max_depth=4).fit(imputed, y)
    numeric = {spec.name for spec in model._specs if spec.kind == 0}
    assert numeric == set(X.select_dtypes("number").columns)
    # The same tree as on the correctly typed, imputed frame.
    typed = imputed.astype(dict.fromkeys(numeric, float))
    reference = mltrees.CARTClassifier(max_depth=4).fit(typed, y)
    np.testing.assert_array_equal(model.predict(imputed), reference.predict(typed))


def test_a_column_mixing_numbers_and_text_warns_with_its_name():
    typed, _, y = _table()
    X = typed[["size"]].assign(mixed=pd.Series([1.5, "?"] * (len(typed) // 2), dtype=object))
    with pytest.warns(MixedColumnWarning, match="'mixed'.*pd.to_numeric"):
        mltrees.CARTClassifier(max_depth=2).fit(X, y)


def test_dates_are_refused_by_name():
    typed, _, y = _table()
    X = typed[["size"]].assign(when=pd.date_range("2024-01-01", periods=len(typed)))
    makers = (mltrees.CARTClassifier, mltrees.XGBoostClassifier, mltrees.LightGBMClassifier)
    for make in (*makers, mltrees.ID5RClassifier):
        with pytest.raises(TypeError, match="column 'when'"):
            make().fit(X, y)


NUMBER_ESTIMATORS = [
    *CATEGORY_ESTIMATORS,
    lambda: mltrees.ObliqueTreeClassifier(max_depth=2),
    lambda: mltrees.HoeffdingTreeClassifier(),
]


@pytest.mark.parametrize("make", NUMBER_ESTIMATORS, ids=lambda make: type(make()).__name__)
def test_infinity_is_refused_by_column_name(make):
    # scikit-learn's check says "Input X contains infinity" with no column;
    # every estimator names the column (a DataFrame's label, an array's position).
    typed, _, y = _table()
    X = pd.DataFrame({"size": typed["size"], "count": np.arange(len(y), dtype=np.float64)})
    X.loc[7, "count"] = -np.inf
    with pytest.raises(ValueError, match=r"inf.* column 'count'"):
        make().fit(X, y)
    with pytest.raises(ValueError, match=r"inf.* column '1'"):
        make().fit(X.to_numpy(), y)


def test_a_category_column_numeric_in_fit_is_refused_at_predict_by_name():
    typed, _, y = _table()
    for make in (mltrees.CARTClassifier, mltrees.XGBoostClassifier, mltrees.LightGBMClassifier):
        model = make().fit(typed[["size", "count"]], y)
        with pytest.raises(TypeError, match="'size'"):
            model.predict(typed[["size", "count"]].assign(size=typed["as_str"]))


@pytest.mark.parametrize(
    "make",
    [
        mltrees.CARTClassifier,
        mltrees.XGBoostClassifier,
        mltrees.LightGBMClassifier,
        mltrees.ObliviousBoostingClassifier,
    ],
    ids=lambda make: make.__name__,
)
def test_numbers_where_the_model_learned_text_categories_are_refused_by_name(make):
    # Every number would be an unseen category: a silent wrong prediction.
    typed, _, y = _table()
    X = typed[["size", "as_str"]].assign(grade=pd.Categorical(np.arange(len(y)) % 3))
    model = make().fit(X, y)
    codes = X["as_str"].astype("category").cat.codes.astype(np.float64)
    with pytest.raises(TypeError, match="'as_str' was categorical"):
        model.predict(X.assign(as_str=codes))
    # Categories that are numbers still take numbers, and the text its own dtype.
    expected = model.predict(X)
    np.testing.assert_array_equal(model.predict(X.assign(grade=np.arange(len(y)) % 3)), expected)
    np.testing.assert_array_equal(
        model.predict(X.assign(as_str=X["as_str"].astype(object))), expected
    )


def test_str_columns_are_categories_at_fit_and_at_predict_in_lightgbm():
    typed, reference, y = _table()
    model = mltrees.LightGBMClassifier(n_estimators=5, min_child_samples=5)
    model.fit(typed[["as_str", "size"]], y)
    # At predict the column may arrive as str or as category: the same codes.
    np.testing.assert_array_equal(
        model.predict(typed[["as_str", "size"]]), model.predict(reference[["as_str", "size"]])
    )


# ---------------------------------------------------------------------------
# The package's own data, at the defaults of the 14 classifier families
# ---------------------------------------------------------------------------

FAMILIES = {
    "ID3Classifier": "refuses numeric columns",
    "C45Classifier": "fits",
    "CARTClassifier": "fits",
    "RandomForestClassifier": "fits",
    "BaggingClassifier": "fits",
    "AdaBoostClassifier": "fits",
    "GradientBoostingClassifier": "fits",
    "XGBoostClassifier": "fits",
    "LightGBMClassifier": "fits",
    "ObliviousBoostingClassifier": "fits",
    "RuleSetClassifier": "fits",
    "ObliqueTreeClassifier": "refuses categories",
    "HoeffdingTreeClassifier": "refuses categories",
    "ID5RClassifier": "refuses missing values",
}


def _package_data(name):
    if name == "adult":
        X, y = load_adult(return_X_y=True)
        return X.iloc[:2000], y.iloc[:2000]
    return (load_titanic if name == "titanic" else load_penguins)(return_X_y=True)


@pytest.mark.parametrize("family", sorted(FAMILIES))
@pytest.mark.parametrize("data", ["adult", "titanic", "penguins"])
def test_the_package_data_at_the_defaults(family, data):
    X, y = _package_data(data)
    X_train, X_test, y_train, y_test = train_test_split(
        X, y, test_size=0.3, random_state=0, stratify=y
    )
    estimator = getattr(mltrees, family)()
    outcome = FAMILIES[family]
    if outcome == "fits":
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # no warning at the defaults on clean data
            predicted = estimator.fit(X_train, y_train).predict(X_test)
        assert set(np.unique(predicted)) <= set(np.unique(y_train))
        majority = pd.Series(np.asarray(y_test)).value_counts(normalize=True).iloc[0]
        assert (predicted == np.asarray(y_test)).mean() > majority - 0.05
        return
    error = {
        "refuses numeric columns": ValueError,
        "refuses categories": ColumnTypeError,
        "refuses missing values": ValueError,
    }[outcome]
    with pytest.raises(error) as raised:
        estimator.fit(X_train, y_train)
    message = str(raised.value)
    assert any(f"'{column}'" in message for column in X.columns), message
    if outcome == "refuses missing values":
        assert "missing values" in message
        assert "impute" in message
    elif outcome == "refuses categories":
        assert "one-hot encode" in message


def test_every_classifier_family_is_listed():
    classifiers = {
        name
        for name in mltrees.__all__
        if name.endswith("Classifier")
        and name not in ("DecisionTreeClassifier", "StackingClassifier", "BlendingClassifier")
    }
    assert classifiers == set(FAMILIES)
