"""Bad input and behaviour of ID3Classifier, C45Classifier, CARTClassifier and CARTRegressor.

The developers' rule: bad input gets a clear error (ValueError/TypeError
naming the argument and what was expected), never a silent wrong answer or a
corrupted model; a single class follows scikit-learn's convention. Every
``pytest.raises`` below therefore also matches the message.

Many of these tests were written as strict xfails documenting bugs; the bugs
were fixed and the markers removed, so each now guards against a regression.
"""

from __future__ import annotations

import pickle
import types
import warnings

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from sklearn.base import clone
from sklearn.exceptions import NotFittedError
from sklearn.tree import DecisionTreeClassifier

from mltrees.tree import C45Classifier, CARTClassifier, CARTRegressor, ID3Classifier
from mltrees.tree import _data as tree_data
from mltrees.tree._tree import CATEGORICAL_NODE, LEAF

ALL = [ID3Classifier, C45Classifier, CARTClassifier, CARTRegressor]
NUMERIC = [C45Classifier, CARTClassifier, CARTRegressor]  # can split numeric columns
CLASSIFIERS = [ID3Classifier, C45Classifier, CARTClassifier]
NUMERIC_CLASSIFIERS = [C45Classifier, CARTClassifier]


# ---------------------------------------------------------------------------
# Data


def _numeric_data(n: int = 40, seed: int = 0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 4))
    y = (X[:, 0] + 0.5 * X[:, 1] > 0).astype(int) + (X[:, 2] > 0.8)
    return X, y


def _categorical_data(n: int = 40, seed: int = 0):
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame(
        {
            "color": rng.choice(["red", "green", "blue"], n),
            "size": pd.Categorical(rng.choice(["S", "M", "L"], n)),
            "flag": rng.random(n) < 0.5,
        }
    )
    y = np.where((frame["color"] == "red") | (frame["flag"] & (frame["size"] == "S")), "yes", "no")
    flip = rng.random(n) < 0.15
    y[flip] = np.where(y[flip] == "yes", "no", "yes")
    return frame, y


def _data(Estimator, n: int = 40, seed: int = 0):
    """Training data that ``Estimator`` accepts: categories for ID3, numbers otherwise."""
    if Estimator is ID3Classifier:
        return _categorical_data(n, seed)
    X, y = _numeric_data(n, seed)
    if Estimator is CARTRegressor:
        y = 2.0 * X[:, 0] + X[:, 1] ** 2
    return X, y


def _rows(X, index):
    return X.iloc[index].reset_index(drop=True) if isinstance(X, pd.DataFrame) else X[index]


def _assert_same_tree(a, b, *, same_counts: bool = True):
    ta, tb = a.tree_, b.tree_
    np.testing.assert_array_equal(ta.feature, tb.feature)
    np.testing.assert_array_equal(ta.kind, tb.kind)
    np.testing.assert_array_equal(ta.threshold, tb.threshold)
    np.testing.assert_array_equal(ta.first_child, tb.first_child)
    np.testing.assert_array_equal(ta.n_children, tb.n_children)
    np.testing.assert_array_equal(ta.route_table, tb.route_table)
    np.testing.assert_allclose(ta.value, tb.value, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(ta.impurity, tb.impurity, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(ta.weighted_n_node_samples, tb.weighted_n_node_samples)
    if same_counts:
        np.testing.assert_array_equal(ta.n_node_samples, tb.n_node_samples)


# ---------------------------------------------------------------------------
# NaN and inf in X
# (missing="error": C45Classifier routes NaN by default, chapter 6;
# tests/test_missing_values.py covers that.)


@pytest.mark.parametrize("Estimator", NUMERIC)
@pytest.mark.parametrize(
    ("bad", "match"),
    [
        (np.nan, r"X has missing values \(NaN\) in column '1'"),
        (np.inf, r"X contains inf in column '1'"),
        (-np.inf, r"X contains inf in column '1'"),
    ],
)
def test_nan_inf_in_numeric_column_at_fit(Estimator, bad, match):
    X, y = _data(Estimator)
    X[3, 1] = bad
    with pytest.raises(ValueError, match=match):
        Estimator(missing="error").fit(X, y)


@pytest.mark.parametrize("Estimator", NUMERIC)
@pytest.mark.parametrize(
    ("bad", "match"),
    [
        (np.nan, r"X has missing values \(NaN\) in column '2'"),
        (np.inf, r"X contains inf"),
        (-np.inf, r"X contains inf"),
    ],
)
def test_nan_inf_in_numeric_column_at_predict(Estimator, bad, match):
    X, y = _data(Estimator)
    model = Estimator(missing="error").fit(X, y)
    X_new = X[:5].copy()
    X_new[1, 2] = bad
    with pytest.raises(ValueError, match=match):
        model.predict(X_new)


@pytest.mark.parametrize("Estimator", NUMERIC)
def test_inf_in_numeric_dataframe_column_at_predict(Estimator):
    X, y = _data(Estimator)
    frame = pd.DataFrame(X, columns=list("abcd"))
    model = Estimator().fit(frame, y)
    new = frame.iloc[:5].copy()
    new.loc[2, "c"] = np.inf
    with pytest.raises(ValueError, match=r"X contains inf in column 'c'"):
        model.predict(new)


@pytest.mark.parametrize("Estimator", CLASSIFIERS)
@pytest.mark.parametrize("missing", [None, np.nan])
def test_missing_value_in_categorical_column_at_fit(Estimator, missing):
    X, y = _categorical_data()
    X["color"] = X["color"].astype(object)
    X.loc[4, "color"] = missing
    with pytest.raises(ValueError, match=r"X has missing values \(NaN\) in column 'color'"):
        Estimator(missing="error").fit(X, y)


@pytest.mark.parametrize("Estimator", CLASSIFIERS)
@pytest.mark.parametrize("missing", [None, np.nan])
def test_missing_value_in_categorical_column_at_predict(Estimator, missing):
    X, y = _categorical_data()
    model = Estimator(missing="error").fit(X, y)
    new = X.iloc[:6].copy()
    new["color"] = new["color"].astype(object)
    new.loc[2, "color"] = missing
    with pytest.raises(ValueError, match=r"X has missing values \(NaN\) in column 'color'"):
        model.predict(new)


@pytest.mark.parametrize("Estimator", CLASSIFIERS)
def test_nan_in_float_column_marked_categorical_at_predict(Estimator):
    X = np.array([[0.0, 1.0], [1.0, 2.0], [0.0, 2.0], [1.0, 1.0], [2.0, 1.0], [2.0, 2.0]])
    y = np.array([0, 1, 0, 1, 1, 0])
    model = Estimator(categorical_features=[0, 1], missing="error").fit(X, y)
    X_new = X.copy()
    X_new[3, 1] = np.nan
    with pytest.raises(ValueError, match=r"X has missing values \(NaN\) in column '1'"):
        model.predict(X_new)


@pytest.mark.parametrize("Estimator", CLASSIFIERS)
def test_inf_in_float_column_marked_categorical_at_fit(Estimator):
    X = np.array([[0.0, 1.0], [1.0, 2.0], [0.0, 2.0], [1.0, 1.0], [np.inf, 1.0], [2.0, 2.0]])
    y = np.array([0, 1, 0, 1, 1, 0])
    with pytest.raises(ValueError, match="inf"):
        Estimator(categorical_features=[0, 1]).fit(X, y)


@pytest.mark.parametrize("Estimator", CLASSIFIERS)
def test_inf_in_float_column_marked_categorical_at_predict(Estimator):
    X = np.array([[0.0, 1.0], [1.0, 2.0], [0.0, 2.0], [1.0, 1.0], [2.0, 1.0], [2.0, 2.0]])
    y = np.array([0, 1, 0, 1, 1, 0])
    model = Estimator(categorical_features=[0, 1]).fit(X, y)
    X_new = X.copy()
    X_new[3, 0] = np.inf
    with pytest.raises(ValueError, match="inf"):
        model.predict(X_new)


class _NumpyWithDirtyEmpty(types.ModuleType):
    """numpy, except that ``empty`` returns memory that happens to hold inf.

    ``np.empty`` promises nothing about its contents; memory freed by an array
    that held inf really is handed out again (the same failure appears without
    this shim after ``del np.full((6, 2), np.inf)``).
    """

    def __getattr__(self, name):
        return getattr(np, name)

    @staticmethod
    def empty(shape, dtype=float, order="C", **kwargs):
        fill = np.inf if np.dtype(dtype).kind == "f" else 0
        return np.full(shape, fill, dtype=dtype, order=order)


@pytest.mark.parametrize("Estimator", NUMERIC)
def test_prediction_does_not_read_uninitialised_memory(Estimator, monkeypatch):
    # Regression test: encode_features used to run its inf check on np.empty before
    # filling it, so valid DataFrame input could fail with 'X contains inf'.
    X, y = _data(Estimator)
    frame = pd.DataFrame(X, columns=list("abcd"))
    model = Estimator().fit(frame, y)
    expected = model.predict(frame)
    monkeypatch.setattr(tree_data, "np", _NumpyWithDirtyEmpty("numpy"))
    np.testing.assert_array_equal(model.predict(frame), expected)


# ---------------------------------------------------------------------------
# y


@pytest.mark.parametrize("Estimator", ALL)
def test_nan_in_y(Estimator):
    X, y = _data(Estimator)
    y = y.astype(float) if Estimator is not ID3Classifier else y.astype(object)
    y[5] = np.nan
    match = "y contains NaN" if Estimator is not ID3Classifier else "y contains missing values"
    with pytest.raises(ValueError, match=match):
        Estimator().fit(X, y)


@pytest.mark.parametrize("Estimator", CLASSIFIERS)
def test_none_in_object_y(Estimator):
    X, y = _data(Estimator)
    y = np.asarray(y, dtype=object)
    y[0] = None
    with pytest.raises(ValueError, match="y contains missing values"):
        Estimator().fit(X, y)


def test_inf_in_y_regressor():
    X, y = _data(CARTRegressor)
    y[2] = np.inf
    with pytest.raises(ValueError, match="y contains NaN or inf"):
        CARTRegressor().fit(X, y)


@pytest.mark.parametrize("Estimator", NUMERIC_CLASSIFIERS)
def test_inf_in_y_classifier(Estimator):
    X, y = _data(Estimator)
    y = y.astype(float)
    y[2] = np.inf
    with pytest.raises(ValueError, match="inf"):
        Estimator().fit(X, y)


@pytest.mark.parametrize("Estimator", NUMERIC_CLASSIFIERS)
def test_continuous_y_classifier(Estimator):
    X, _ = _numeric_data()
    y = X[:, 0] * 1.37
    with pytest.raises(ValueError, match=r"continuous|Unknown label type"):
        Estimator().fit(X, y)


@pytest.mark.parametrize("Estimator", CLASSIFIERS)
def test_y_none_classifier(Estimator):
    X, _ = _data(Estimator)
    with pytest.raises(ValueError, match=r"requires y to be passed, but the target y is None"):
        Estimator().fit(X, None)


def test_y_none_regressor():
    X, _ = _data(CARTRegressor)
    with pytest.raises(ValueError, match=r"y .*None|y must be"):
        CARTRegressor().fit(X, None)


@pytest.mark.filterwarnings("ignore::numpy.exceptions.ComplexWarning")
def test_complex_y_regressor():
    X, y = _data(CARTRegressor)
    with pytest.raises((TypeError, ValueError), match="complex"):
        CARTRegressor().fit(X, y + 1j)


@pytest.mark.parametrize("Estimator", ALL)
def test_y_two_columns(Estimator):
    X, y = _data(Estimator)
    with pytest.raises(ValueError, match=r"y must be 1-dimensional, got shape \(40, 2\)"):
        Estimator().fit(X, np.column_stack([y, y]))


# ---------------------------------------------------------------------------
# Shapes


@pytest.mark.parametrize("Estimator", NUMERIC)
def test_one_dimensional_X(Estimator):
    X, y = _data(Estimator)
    with pytest.raises(ValueError, match=r"X must be 2-dimensional .*got shape \(40,\)"):
        Estimator().fit(X[:, 0], y)
    model = Estimator().fit(X, y)
    with pytest.raises(ValueError, match=r"X must be 2-dimensional .*got shape \(4,\)"):
        model.predict(X[0])


@pytest.mark.parametrize("Estimator", NUMERIC)
def test_three_dimensional_X(Estimator):
    X, y = _data(Estimator)
    with pytest.raises(ValueError, match=r"X must be 2-dimensional .*got shape \(40, 4, 1\)"):
        Estimator().fit(X[:, :, None], y)
    model = Estimator().fit(X, y)
    with pytest.raises(ValueError, match=r"X must be 2-dimensional .*got shape \(40, 4, 1\)"):
        model.predict(X[:, :, None])


@pytest.mark.parametrize("Estimator", ALL)
def test_empty_X_at_fit(Estimator):
    with pytest.raises(ValueError, match="X is empty"):
        Estimator().fit(np.empty((0, 3)), np.empty(0))


@pytest.mark.parametrize("Estimator", ALL)
def test_X_without_features(Estimator):
    with pytest.raises(ValueError, match=r"0 feature\(s\) \(shape=\(5, 0\)\)"):
        Estimator().fit(np.empty((5, 0)), np.arange(5) % 2)


@pytest.mark.parametrize("Estimator", NUMERIC)
def test_empty_X_at_predict(Estimator):
    X, y = _data(Estimator)
    model = Estimator().fit(X, y)
    with pytest.raises(ValueError, match="X is empty"):
        model.predict(X[:0])


@pytest.mark.parametrize("Estimator", ALL)
def test_X_y_length_mismatch(Estimator):
    X, y = _data(Estimator)
    with pytest.raises(ValueError, match="X has 40 samples but y has 39"):
        Estimator().fit(X, y[:-1])


@pytest.mark.filterwarnings("ignore:X does not have valid feature names:UserWarning")
@pytest.mark.parametrize("Estimator", ALL)
def test_predict_with_other_number_of_features(Estimator):
    X, y = _data(Estimator)
    model = Estimator().fit(X, y)
    narrower = np.asarray(X)[:, :2]
    expected = rf"X has 2 features, but {Estimator.__name__} is expecting {X.shape[1]} features"
    with pytest.raises(ValueError, match=expected):
        model.predict(narrower)


@pytest.mark.parametrize("Estimator", ALL)
def test_predict_with_other_column_names(Estimator):
    X, y = _data(Estimator)
    frame = X if isinstance(X, pd.DataFrame) else pd.DataFrame(X, columns=list("abcd"))
    model = Estimator().fit(frame, y)
    renamed = frame.rename(columns={frame.columns[1]: "other"})
    with pytest.raises(ValueError, match="feature names should match"):
        model.predict(renamed)
    reordered = frame[frame.columns[::-1]]
    with pytest.raises(ValueError, match="same order"):
        model.predict(reordered)


@pytest.mark.parametrize("Estimator", NUMERIC)
def test_sparse_X(Estimator):
    X, y = _data(Estimator)
    with pytest.raises(TypeError, match="X is a sparse matrix"):
        Estimator().fit(sp.csr_matrix(X), y)
    model = Estimator().fit(X, y)
    with pytest.raises(TypeError, match="X is a sparse matrix"):
        model.predict(sp.csr_matrix(X))


@pytest.mark.parametrize("Estimator", NUMERIC)
def test_complex_X(Estimator):
    X, y = _data(Estimator)
    with pytest.raises(TypeError, match="X holds complex numbers"):
        Estimator().fit(X + 1j, y)
    model = Estimator().fit(X, y)
    with pytest.raises(TypeError, match="X holds complex numbers"):
        model.predict(X + 0j)


@pytest.mark.parametrize("Estimator", CLASSIFIERS)
def test_unhashable_category(Estimator):
    X, y = _categorical_data()
    X["color"] = X["color"].astype(object)
    X.at[0, "color"] = {"not": "a category"}
    with pytest.raises(TypeError, match=r"X|column 'color'"):
        Estimator().fit(X, y)


# ---------------------------------------------------------------------------
# sample_weight and class_weight


@pytest.mark.parametrize("Estimator", ALL)
@pytest.mark.parametrize(
    ("weight", "match"),
    [
        ("negative", "sample_weight has negative entries"),
        ("nan", "sample_weight contains NaN or inf"),
        ("inf", "sample_weight contains NaN or inf"),
        ("short", r"sample_weight must have shape \(40,\) to match the samples, got \(39,\)"),
        ("zeros", "sample_weight sums to zero"),
    ],
)
def test_bad_sample_weight(Estimator, weight, match):
    X, y = _data(Estimator)
    w = np.ones(40)
    if weight == "negative":
        w[3] = -1.0
    elif weight == "nan":
        w[3] = np.nan
    elif weight == "inf":
        w[3] = np.inf
    elif weight == "short":
        w = w[:-1]
    else:
        w[:] = 0.0
    with pytest.raises(ValueError, match=match):
        Estimator().fit(X, y, sample_weight=w)


@pytest.mark.parametrize("Estimator", CLASSIFIERS)
def test_class_weight_with_unknown_class(Estimator):
    X, y = _data(Estimator)
    known = y[0]
    with pytest.raises(ValueError, match=r"class_weight names classes not in y: \['unknown'\]"):
        Estimator(class_weight={known: 2.0, "unknown": 1.0}).fit(X, y)


@pytest.mark.parametrize("Estimator", CLASSIFIERS)
@pytest.mark.parametrize(
    ("class_weight", "match"),
    [
        ("bogus", "class_weight must be None, 'balanced' or a dict"),
        (-1.0, "class_weight values must be >= 0"),
    ],
)
def test_bad_class_weight(Estimator, class_weight, match):
    X, y = _data(Estimator)
    if not isinstance(class_weight, str):
        class_weight = {y[0]: class_weight}
    with pytest.raises(ValueError, match=match):
        Estimator(class_weight=class_weight).fit(X, y)


@pytest.mark.parametrize("Estimator", CLASSIFIERS)
def test_class_weight_zeroing_every_sample(Estimator):
    X, y = _data(Estimator)
    with pytest.raises(ValueError, match="weight"):
        Estimator(class_weight=dict.fromkeys(np.unique(y), 0.0)).fit(X, y)


@pytest.mark.parametrize(
    "Estimator",
    [
        ID3Classifier,
        C45Classifier,
        CARTClassifier,
        CARTRegressor,
    ],
)
def test_integer_sample_weight_equals_repeated_rows(Estimator):
    X, y = _data(Estimator)
    w = np.random.default_rng(1).integers(1, 4, size=len(y))
    repeat = np.repeat(np.arange(len(y)), w)
    weighted = Estimator().fit(X, y, sample_weight=w)
    repeated = Estimator().fit(_rows(X, repeat), y[repeat])
    _assert_same_tree(weighted, repeated, same_counts=False)
    X_new, _ = _data(Estimator, n=25, seed=7)
    np.testing.assert_array_equal(weighted.predict(X_new), repeated.predict(X_new))
    if Estimator is not CARTRegressor:
        np.testing.assert_allclose(weighted.predict_proba(X_new), repeated.predict_proba(X_new))


def test_exact_ties_go_to_the_lowest_feature_index():
    # x and -x give the same partitions at every cut, so every split is an exact tie,
    # which _select documents as going to the lowest feature index.
    rng = np.random.default_rng(0)
    x = rng.normal(size=60)
    X = np.column_stack([x, -x])
    model = CARTRegressor().fit(X, rng.normal(size=60))
    internal = model.tree_.feature[model.tree_.feature >= 0]
    np.testing.assert_array_equal(internal, 0)


@pytest.mark.parametrize(
    "Estimator",
    # Three samples: C4.5's default MINOBJS 2 would allow no split at all; release
    # 1993 keeps the midpoint 2.0 (release 8 tests the data value 1.0).
    [lambda: C45Classifier(min_cases=1, pruning=None, release="1993"), CARTClassifier],
)
def test_zero_weight_sample_equals_removed_sample(Estimator):
    X = np.array([[0.0], [1.0], [2.0], [3.0]])
    y = np.array([0, 0, 1, 1])
    weighted = Estimator().fit(X, y, sample_weight=[1.0, 1.0, 0.0, 1.0])
    removed = Estimator().fit(X[[0, 1, 3]], y[[0, 1, 3]])
    assert removed.tree_.threshold[0] == 2.0
    np.testing.assert_array_equal(weighted.predict([[1.8]]), removed.predict([[1.8]]))


def test_zero_weight_branch_gets_a_distribution():
    X = pd.DataFrame({"c": ["a", "a", "b", "b", "z"]})
    y = np.array(["no", "yes", "yes", "yes", "no"])
    w = np.array([1.0, 1.0, 1.0, 1.0, 0.0])
    weighted = ID3Classifier().fit(X, y, sample_weight=w)
    removed = ID3Classifier().fit(X.iloc[:4], y[:4])
    # 'z' is unseen by `removed`: it stops at the root, distribution [1/4, 3/4].
    np.testing.assert_allclose(removed.predict_proba(X.iloc[[4]]), [[0.25, 0.75]])
    np.testing.assert_allclose(weighted.predict_proba(X.iloc[[4]]), [[0.25, 0.75]])


@pytest.mark.parametrize("Estimator", CLASSIFIERS)
def test_balanced_class_weight_equals_sample_weight(Estimator):
    X, y = _data(Estimator)
    classes, counts = np.unique(y, return_counts=True)
    per_class = len(y) / (len(classes) * counts)
    w = per_class[np.searchsorted(classes, y)]
    balanced = Estimator(class_weight="balanced").fit(X, y)
    weighted = Estimator().fit(X, y, sample_weight=w)
    _assert_same_tree(balanced, weighted)
    np.testing.assert_allclose(balanced.predict_proba(X), weighted.predict_proba(X))


@pytest.mark.parametrize("Estimator", CLASSIFIERS)
def test_dict_class_weight_times_sample_weight(Estimator):
    X, y = _data(Estimator)
    classes = np.unique(y)
    class_weight = {classes[0]: 3.0, classes[1]: 0.5}
    sw = np.linspace(0.5, 2.0, len(y))
    w = sw * np.array([class_weight.get(c, 1.0) for c in y])
    both = Estimator(class_weight=class_weight).fit(X, y, sample_weight=sw)
    weighted = Estimator().fit(X, y, sample_weight=w)
    _assert_same_tree(both, weighted)


# ---------------------------------------------------------------------------
# Hyper-parameters


BAD_PARAMS = [
    ("max_depth", 0, r"max_depth must be an int >= 1 or None, got 0"),
    ("max_depth", -1, r"max_depth must be an int >= 1 or None, got -1"),
    ("max_depth", 1.5, r"max_depth must be an int >= 1 or None, got 1.5"),
    ("min_samples_split", 1, r"min_samples_split must be an int >= 2, got 1"),
    ("min_samples_leaf", 0, r"min_samples_leaf must be an int >= 1, got 0"),
    ("min_impurity_decrease", -1, r"min_impurity_decrease must be a float >= 0, got -1"),
    ("max_features", "bogus", r"max_features must be None, 'sqrt', 'log2'.*got 'bogus'"),
    ("max_features", 0, r"max_features must be None, 'sqrt', 'log2'.*got 0"),
    ("max_features", 1.5, r"max_features must be None, 'sqrt', 'log2'.*got 1.5"),
    ("max_bins", 1, r"max_bins must be an int >= 2 or None, got 1"),
    ("criterion", "bogus", r"criterion must be one of \(.*\), got 'bogus'"),
]


@pytest.mark.parametrize("Estimator", ALL)
@pytest.mark.parametrize(("name", "value", "match"), BAD_PARAMS)
def test_invalid_hyper_parameter(Estimator, name, value, match):
    X, y = _data(Estimator)
    with pytest.raises(ValueError, match=match):
        Estimator(**{name: value}).fit(X, y)


@pytest.mark.parametrize("Estimator", ALL)
def test_max_features_larger_than_n_features(Estimator):
    X, y = _data(Estimator)
    with pytest.raises(ValueError, match=r"an int in \[1, n_features\].*got 10"):
        Estimator(max_features=10).fit(X, y)


@pytest.mark.parametrize("Estimator", ALL)
def test_nan_min_impurity_decrease(Estimator):
    X, y = _data(Estimator)
    with pytest.raises(ValueError, match="min_impurity_decrease"):
        Estimator(min_impurity_decrease=float("nan")).fit(X, y)


@pytest.mark.parametrize("Estimator", NUMERIC)
def test_bool_max_features(Estimator):
    X, y = _data(Estimator)
    with pytest.raises(ValueError, match="max_features"):
        Estimator(max_features=True).fit(X, y)


def test_id3_rejects_numeric_column_and_says_how_to_discretize():
    X, y = _categorical_data()
    X["weight"] = np.linspace(1.0, 9.0, len(y))
    with pytest.raises(ValueError, match=r"\['weight'\] are numeric") as info:
        ID3Classifier().fit(X, y)
    message = str(info.value)
    assert "Discretize" in message
    assert "pd.cut" in message
    assert "KBinsDiscretizer" in message
    assert "categorical_features=" in message


@pytest.mark.parametrize("Estimator", ALL)
@pytest.mark.parametrize(
    ("categorical_features", "match"),
    [
        ([7], "categorical_features entry 7 is not a column of X"),
        (["nope"], "categorical_features entry 'nope' is not a column of X"),
        ([True, False], "categorical_features as a mask must have"),
    ],
)
def test_bad_categorical_features(Estimator, categorical_features, match):
    X, y = _data(Estimator)
    with pytest.raises(ValueError, match=match):
        Estimator(categorical_features=categorical_features).fit(X, y)


# ---------------------------------------------------------------------------
# Unfitted and failed fits


@pytest.mark.parametrize("Estimator", ALL)
def test_unfitted_decision_path(Estimator):
    X, _ = _data(Estimator)
    with pytest.raises(NotFittedError, match="is not fitted yet"):
        Estimator().decision_path(X)


@pytest.mark.parametrize("Estimator", ALL)
def test_unfitted_depth_leaves_importances(Estimator):
    model = Estimator()
    with pytest.raises(NotFittedError, match="is not fitted yet"):
        model.get_depth()
    with pytest.raises(NotFittedError, match="is not fitted yet"):
        model.get_n_leaves()
    with pytest.raises(NotFittedError, match="is not fitted yet"):
        _ = model.feature_importances_


@pytest.mark.parametrize(
    ("Estimator", "method"),
    [(E, "predict") for E in ALL]
    + [(E, "apply") for E in ALL]
    + [(E, "predict_proba") for E in CLASSIFIERS],
)
def test_unfitted_predict_predict_proba_apply(Estimator, method):
    X, _ = _data(Estimator)
    with pytest.raises(NotFittedError, match="is not fitted yet"):
        getattr(Estimator(), method)(X)


@pytest.mark.parametrize("failure", ["sample_weight", "hyper_parameter"])
def test_failed_refit_does_not_corrupt_the_model(failure):
    X, y = _numeric_data()
    model = CARTClassifier().fit(X, y)
    expected = model.predict(X)
    other_y = np.array(["a", "b", "c", "d"])[np.arange(len(y)) % 4]
    if failure == "sample_weight":
        with pytest.raises(ValueError, match="sample_weight has negative entries"):
            model.fit(X, other_y, sample_weight=-np.ones(len(y)))
    else:
        model.set_params(max_depth=0)
        with pytest.raises(ValueError, match="max_depth"):
            model.fit(X, other_y)
    np.testing.assert_array_equal(model.predict(X), expected)


# ---------------------------------------------------------------------------
# Single class


@pytest.mark.parametrize("Estimator", CLASSIFIERS)
def test_single_class_follows_sklearn(Estimator):
    X, _ = _data(Estimator)
    y = np.full(len(X), "only")
    model = Estimator().fit(X, y)
    X_num, _ = _numeric_data()
    reference = DecisionTreeClassifier(random_state=0).fit(X_num, y)
    np.testing.assert_array_equal(model.classes_, reference.classes_)
    assert model.get_n_leaves() == reference.get_n_leaves() == 1
    assert model.get_depth() == reference.get_depth() == 0
    assert model.tree_.node_count == reference.tree_.node_count == 1
    proba = model.predict_proba(X)
    assert proba.shape == reference.predict_proba(X_num).shape == (len(X), 1)
    np.testing.assert_array_equal(proba, 1.0)
    np.testing.assert_array_equal(model.predict(X), y)


# ---------------------------------------------------------------------------
# Unseen categories


def _weather():
    """color decides the root; among red samples, size decides (M only occurs with green)."""
    rows = [
        ("red", "S", "yes"),
        ("red", "S", "yes"),
        ("red", "L", "no"),
        ("red", "L", "yes"),
        ("green", "S", "no"),
        ("green", "L", "no"),
        ("green", "M", "no"),
        ("blue", "S", "yes"),
        ("blue", "L", "yes"),
        ("blue", "S", "yes"),
    ]
    frame = pd.DataFrame([r[:2] for r in rows], columns=["color", "size"])
    return frame, np.array([r[2] for r in rows])


@pytest.mark.parametrize(
    "Estimator",
    # C4.5's defaults (MINOBJS 2, pessimistic pruning) would cut the red subtree, and
    # so would release 8's collapse (it does not lower the training errors).
    [ID3Classifier, lambda: C45Classifier(min_cases=1, pruning=None, release="1993")],
)
def test_unseen_category_stops_at_the_node_that_meets_it(Estimator):
    X, y = _weather()
    model = Estimator().fit(X, y)
    tree = model.tree_
    assert tree.feature[0] == 0  # color at the root
    red = tree.first_child[0] + 2  # categories in code order: blue, green, red
    assert tree.feature[red] == 1  # size within red
    np.testing.assert_array_equal(model.classes_, ["no", "yes"])
    new = pd.DataFrame(
        [("red", "XL"), ("purple", "S"), ("red", "M"), ("red", "S")], columns=["color", "size"]
    )
    proba = model.predict_proba(new)
    # (red, XL): XL never seen -> stops at the red node: 1 "no", 3 "yes" among red rows.
    # (purple, S): purple never seen -> stops at the root: 4 "no", 6 "yes".
    # (red, M): M was seen (with green) but not among red rows: the empty M branch is a
    #     leaf with its parent's (red's) distribution.
    # (red, S): the pure leaf.
    np.testing.assert_allclose(proba, [[1 / 4, 3 / 4], [4 / 10, 6 / 10], [1 / 4, 3 / 4], [0, 1]])
    nodes = model.apply(new)
    assert nodes[0] == red
    assert nodes[1] == 0
    assert tree.feature[nodes[2]] == LEAF
    assert tree.parent[nodes[2]] == red
    path = model.decision_path(new).toarray().astype(bool)
    np.testing.assert_array_equal(np.flatnonzero(path[0]), [0, red])
    np.testing.assert_array_equal(np.flatnonzero(path[1]), [0])


def test_cart_category_absent_from_a_node_stops_there():
    x = [1.0, 2.0, 3.0, 4.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0]
    c = ["a", "b", "a", "b", "b", "b", "b", "c", "c", "c"]
    y = [0, 1, 0, 1, 0, 0, 0, 0, 0, 0]
    X = pd.DataFrame({"x": x, "c": c})
    model = CARTClassifier().fit(X, y)
    tree = model.tree_
    assert tree.feature[0] == 0
    left = tree.first_child[0]
    assert tree.feature[left] == 1
    assert tree.kind[left] == CATEGORICAL_NODE
    # 'c' was seen in training, but no sample with x <= 7.5 had it: stop at `left`,
    # whose samples are two of each class.
    new = pd.DataFrame({"x": [2.5, 2.5, 12.0], "c": ["c", "a", "c"]})
    np.testing.assert_allclose(model.predict_proba(new), [[0.5, 0.5], [1, 0], [1, 0]])
    assert model.apply(new)[0] == left


def test_unseen_category_does_not_use_deprecated_pandas():
    X, y = _weather()
    model = ID3Classifier().fit(X, y)
    new = pd.DataFrame([("purple", "S")], columns=["color", "size"])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model.predict(new)


# ---------------------------------------------------------------------------
# Estimator protocol: refit, clone, params, pickle, feature names


@pytest.mark.parametrize("Estimator", ALL)
def test_refit_gives_the_same_tree(Estimator):
    X, y = _data(Estimator)
    X_other, y_other = _data(Estimator, n=30, seed=5)
    fresh = Estimator().fit(X, y)
    model = Estimator().fit(X, y)
    model.fit(X_other, y_other)
    model.fit(X, y)
    _assert_same_tree(model, fresh)
    np.testing.assert_array_equal(model.predict(X), fresh.predict(X))
    if hasattr(fresh, "classes_"):
        np.testing.assert_array_equal(model.classes_, fresh.classes_)


@pytest.mark.parametrize("Estimator", NUMERIC)
def test_refit_on_an_array_forgets_feature_names(Estimator):
    X, y = _data(Estimator)
    model = Estimator().fit(pd.DataFrame(X, columns=list("abcd")), y)
    np.testing.assert_array_equal(model.feature_names_in_, list("abcd"))
    model.fit(X[:, :3], y)
    assert not hasattr(model, "feature_names_in_")
    assert model.n_features_in_ == 3


@pytest.mark.parametrize("Estimator", ALL)
def test_clone_get_params_set_params(Estimator):
    params = {
        "max_depth": 3,
        "min_samples_split": 4,
        "min_samples_leaf": 2,
        "min_impurity_decrease": 0.01,
        "max_features": "sqrt",
        "random_state": 7,
        "max_bins": 32,
        "categorical_features": [0],
    }
    if Estimator is not CARTRegressor:
        params["class_weight"] = "balanced"
    model = Estimator(**params)
    assert {k: model.get_params()[k] for k in params} == params
    twin = clone(model)
    assert twin is not model
    assert twin.get_params() == model.get_params()
    other = Estimator()
    assert other.set_params(**params) is other
    assert other.get_params() == model.get_params()
    X, y = _data(Estimator)
    fitted = Estimator().fit(X, y)
    unfitted = clone(fitted)
    assert not hasattr(unfitted, "tree_")
    assert unfitted.get_params() == fitted.get_params()


@pytest.mark.parametrize("Estimator", ALL)
def test_pickle_round_trip(Estimator):
    X, y = _data(Estimator)
    model = Estimator(max_depth=4).fit(X, y)
    restored = pickle.loads(pickle.dumps(model))
    X_new, _ = _data(Estimator, n=25, seed=3)
    np.testing.assert_array_equal(restored.predict(X_new), model.predict(X_new))
    if Estimator is not CARTRegressor:
        np.testing.assert_array_equal(restored.predict_proba(X_new), model.predict_proba(X_new))
    _assert_same_tree(restored, model)


@pytest.mark.parametrize("Estimator", ALL)
def test_dataframe_sets_feature_names_in(Estimator):
    X, y = _data(Estimator)
    frame = X if isinstance(X, pd.DataFrame) else pd.DataFrame(X, columns=list("abcd"))
    model = Estimator().fit(frame, y)
    np.testing.assert_array_equal(model.feature_names_in_, np.asarray(frame.columns, dtype=object))
    assert model.n_features_in_ == frame.shape[1]
    array_model = Estimator().fit(frame.to_numpy(), y)
    assert not hasattr(array_model, "feature_names_in_")


# ---------------------------------------------------------------------------
# Categorical columns


def test_bool_columns_are_categorical():
    rng = np.random.default_rng(0)
    flags = rng.random((30, 2)) < 0.5
    y = np.where(flags[:, 0] ^ flags[:, 1], "odd", "even")
    for X in (flags, pd.DataFrame(flags, columns=["p", "q"])):
        id3 = ID3Classifier().fit(X, y)  # would raise if a column were numeric
        assert id3.tree_.kind[0] == CATEGORICAL_NODE
        np.testing.assert_array_equal(id3.predict(X), y)
        cart = CARTClassifier().fit(X, y)
        assert cart.tree_.kind[0] == CATEGORICAL_NODE


@pytest.mark.parametrize(
    "categorical_features",
    [["code"], [1], [-1], [False, True]],
    ids=["by-name", "by-index", "by-negative-index", "by-mask"],
)
def test_categorical_features_by_name_index_and_mask(categorical_features):
    # code 2 is class 1, codes 1 and 3 are class 0: no threshold separates them in one
    # split, a category subset does.
    code = np.array([1, 2, 3, 1, 2, 3, 1, 2, 3, 2])
    X = pd.DataFrame({"noise": np.linspace(0.0, 1.0, 10), "code": code})
    y = (code == 2).astype(int)
    numeric = CARTClassifier(max_depth=1).fit(X, y)
    assert numeric.tree_.kind[0] != CATEGORICAL_NODE
    assert (numeric.predict(X) != y).any()
    categorical = CARTClassifier(max_depth=1, categorical_features=categorical_features).fit(X, y)
    assert categorical.tree_.kind[0] == CATEGORICAL_NODE
    assert categorical.tree_.feature[0] == 1
    np.testing.assert_array_equal(categorical.predict(X), y)


@pytest.mark.parametrize("categorical_features", [["noise", "code"], [0, -1], [True, True]])
def test_id3_accepts_numeric_columns_marked_categorical(categorical_features):
    code = np.array([1, 2, 3, 1, 2, 3, 1, 2, 3, 2])
    X = pd.DataFrame({"noise": np.arange(10) % 2 * 1.5, "code": code})
    y = (code == 2).astype(int)
    with pytest.raises(ValueError, match=r"\['noise', 'code'\] are numeric"):
        ID3Classifier().fit(X, y)
    model = ID3Classifier(categorical_features=categorical_features).fit(X, y)
    assert model.tree_.feature[0] == 1
    np.testing.assert_array_equal(model.predict(X), y)


def test_categorical_features_on_an_array_by_index():
    code = np.array([1, 2, 3, 1, 2, 3, 1, 2, 3, 2], dtype=float)
    X = np.column_stack([np.linspace(0.0, 1.0, 10), code])
    y = (code == 2).astype(int)
    with pytest.raises(ValueError, match=r"\['0'\] are numeric"):
        ID3Classifier(categorical_features=[1]).fit(X, y)
    model = ID3Classifier(categorical_features=[0, 1]).fit(X, y)
    np.testing.assert_array_equal(model.predict(X), y)


# ---------------------------------------------------------------------------
# Randomness, importances, paths, depth


@pytest.mark.parametrize("Estimator", ALL)
def test_max_features_with_random_state(Estimator):
    X, y = _data(Estimator, n=80)
    trees = {}
    for seed in range(8):
        first = Estimator(max_features=1, random_state=seed).fit(X, y)
        second = Estimator(max_features=1, random_state=seed).fit(X, y)
        _assert_same_tree(first, second)
        trees[seed] = first.tree_
    roots = {int(t.feature[0]) for t in trees.values()}
    assert len(roots) > 1, "different seeds never drew a different root feature"


@pytest.mark.parametrize("Estimator", ALL)
def test_feature_importances(Estimator):
    X, y = _data(Estimator)
    if isinstance(X, pd.DataFrame):
        X = X.assign(constant="same")
    else:
        X = np.column_stack([X, np.full(len(X), 3.0)])
    model = Estimator(max_depth=3).fit(X, y)
    importances = model.feature_importances_
    assert importances.shape == (X.shape[1],)
    assert np.all(importances >= 0)
    np.testing.assert_allclose(importances.sum(), 1.0)
    used = np.unique(model.tree_.feature[model.tree_.feature >= 0])
    unused = np.setdiff1d(np.arange(X.shape[1]), used)
    assert X.shape[1] - 1 in unused  # the constant column
    np.testing.assert_array_equal(importances[unused], 0.0)


@pytest.mark.parametrize("Estimator", ALL)
def test_decision_path_contains_root_and_apply_node(Estimator):
    X, y = _data(Estimator)
    model = Estimator().fit(X, y)
    X_new, _ = _data(Estimator, n=25, seed=11)
    path = model.decision_path(X_new).tocsr()
    nodes = model.apply(X_new)
    tree = model.tree_
    assert path.shape == (25, tree.node_count)
    for i in range(25):
        visited = path.indices[path.indptr[i] : path.indptr[i + 1]]
        assert 0 in visited
        assert nodes[i] in visited
        # the visited nodes form the chain from the root to the apply node
        chain, node = [], nodes[i]
        while node >= 0:
            chain.append(node)
            node = tree.parent[node]
        assert sorted(visited.tolist()) == sorted(chain)


@pytest.mark.parametrize("Estimator", ALL)
@pytest.mark.parametrize("max_depth", [1, 2, None])
def test_depth_and_leaves_match_tree(Estimator, max_depth):
    X, y = _data(Estimator)
    model = Estimator(max_depth=max_depth).fit(X, y)
    tree = model.tree_
    leaves = tree.feature == LEAF
    assert model.get_n_leaves() == int(leaves.sum()) == tree.n_leaves
    assert model.get_depth() == int(tree.depth.max()) == int(tree.depth[leaves].max())
    if max_depth is not None:
        assert model.get_depth() <= max_depth
    # every node's depth is its parent's plus one
    children = np.flatnonzero(tree.parent >= 0)
    np.testing.assert_array_equal(tree.depth[children], tree.depth[tree.parent[children]] + 1)
    # leaves are exactly the nodes without children
    np.testing.assert_array_equal(leaves, tree.n_children == 0)
