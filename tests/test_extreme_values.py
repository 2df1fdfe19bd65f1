"""Extreme feature values: every estimator fits a correct model or refuses clearly.

The data of the bad-input matrix (:mod:`test_bad_input_matrix`), with X
moved to the ends of the float range:

* ``huge``: scaled by a power of two to ``|x|`` up to 1.8e308;
* ``huge_float32``: scaled to float32's top, ``|x|`` up to 3.4e38;
* ``tiny``: scaled to about 1e-301 (normal floats);
* ``subnormal``: scaled to about 1e-322 (subnormal floats, a few bits each,
  many values equal);
* ``mixed_columns``: one column near 1e307, one subnormal, one unchanged, one
  near 1e-300;
* ``mixed_within``: every column mapped, in order, onto ``±10**(-300..300)``.

"Correct" depends on the model:

* ``RANK`` -- a tree on thresholds between sorted values depends only on the
  order of each column: the model must predict on its training rows exactly
  what it predicts after fitting the column ranks (signed, zero kept), taken
  of the values the estimator reads: float32 for XGBoost and CatBoost,
  LightGBM's zero band ``|x| <= 1e-35`` as 0, and C4.5's rule (Weka's J48)
  that values closer than 1e-5 are never cut apart;
* ``MEMBERS`` -- the same for ensembles whose trees see samples (bagging,
  forests, the folds of stacking, blending's holdout): every tree partitions
  its own rows as on the ranks (same features, layout, leaf values). Outputs
  on rows a tree did not see may differ: a threshold is a midpoint of values,
  and midpoints are not order-invariant;
* ``SCALE`` -- the oblique tree (linear tests, standardised columns) and the
  Hoeffding tree (Gaussian estimates) are not rank-based, but scaling a
  column by a power of two must give the same predictions (the values scaled
  back up are the reference, so subnormal rounding is part of the data);
* ``REFUSE`` -- a ValueError naming X: values the estimator cannot represent
  (beyond float32 for XGBoost/CatBoost, neighbouring values whose sum
  overflows for LightGBM, outside ``2**±480`` for the Hoeffding tree);
* ``FINITE`` -- accepted, with finite predictions, where neither order nor a
  power-of-two scaling defines the model (an oblique tree on a column
  spanning 600 decades).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from test_bad_input_matrix import ESTIMATORS, _data

from mltrees.tree._split_c45 import C45_VALUE_GAP

RANK, MEMBERS, SCALE, REFUSE, FINITE = "rank", "members", "scale", "refuse", "finite"
CASES = ("huge", "huge_float32", "tiny", "subnormal", "mixed_columns", "mixed_within")

# The view of X each estimator reads (see the module docstring), then the
# expectation per case; one line per estimator.
F32, LGB, J48, F64 = "float32", "lightgbm", "j48", "float64"
FLOAT32_ROW = (F32, {"huge": REFUSE, "mixed_columns": REFUSE, "mixed_within": REFUSE})
SAMPLED = (F64, dict.fromkeys(CASES, MEMBERS))
OBLIQUE = dict.fromkeys(CASES, SCALE) | {"mixed_columns": REFUSE, "mixed_within": FINITE}
EXPECTED = {
    "AdaBoostClassifier": (F64, {}),
    "BaggingClassifier": SAMPLED,
    "BaggingRegressor": SAMPLED,
    "BlendingClassifier": SAMPLED,
    "BlendingRegressor": SAMPLED,
    "C45Classifier": (J48, {}),
    "CARTClassifier": (F64, {}),
    "CARTRegressor": (F64, {}),
    "GradientBoostingClassifier": (F64, {}),
    "GradientBoostingRegressor": (F64, {}),
    "HoeffdingTreeClassifier": (F64, dict.fromkeys(CASES, REFUSE) | {"huge_float32": SCALE}),
    "ID3Classifier": (F64, {}),
    "ID5RClassifier": (F64, {}),
    "LightGBMClassifier": (LGB, {"huge": REFUSE}),
    "LightGBMRegressor": (LGB, {"huge": REFUSE}),
    # subnormal columns: the projections of a node's rows lose the bits that
    # separate them in the input's units, so the fit is refused (the
    # regressor at 239 nodes; the classifier once OC1's equal-cost moves
    # follow the paper's schedule and find an oblique test there)
    "ObliqueTreeClassifier": (F64, OBLIQUE | {"subnormal": REFUSE}),
    "ObliqueTreeRegressor": (F64, OBLIQUE | {"subnormal": REFUSE}),
    "ObliviousBoostingClassifier": FLOAT32_ROW,
    "ObliviousBoostingRegressor": FLOAT32_ROW,
    "RandomForestClassifier": SAMPLED,
    "RandomForestRegressor": SAMPLED,
    "RuleSetClassifier": (J48, {}),
    "StackingClassifier": SAMPLED,
    "StackingRegressor": SAMPLED,
    "XGBoostClassifier": FLOAT32_ROW,
    "XGBoostRegressor": FLOAT32_ROW,
    "DaskXGBoostClassifier": FLOAT32_ROW,
    "DaskXGBoostRegressor": FLOAT32_ROW,
    "DaskLightGBMClassifier": (LGB, {"huge": REFUSE}),
    "DaskLightGBMRegressor": (LGB, {"huge": REFUSE}),
    "DaskObliviousBoostingClassifier": FLOAT32_ROW,
    "DaskObliviousBoostingRegressor": FLOAT32_ROW,
    "DaskRandomForestClassifier": SAMPLED,
    "DaskRandomForestRegressor": SAMPLED,
}


def test_every_estimator_has_its_expectations():
    assert set(EXPECTED) == set(ESTIMATORS)


# --------------------------------------------------------------- the cases
def _to_top(X, top_exponent):
    """Power-of-two exponents per column that bring max |x| into [2**(e-1), 2**e)."""
    _, exponent = np.frexp(np.abs(X).max(axis=0))
    return top_exponent - exponent


def extreme(X, case):
    """``(X_case, shift)``: ``X_case = X * 2**shift`` per column, or shift None (not a scaling)."""
    if case == "huge":
        shift = _to_top(X, 1024)
    elif case == "huge_float32":
        shift = _to_top(X, 128)
    elif case == "tiny":
        shift = _to_top(X, -998)
    elif case == "subnormal":
        shift = _to_top(X, -1068)
    elif case == "mixed_columns":
        shift = _to_top(X, np.array([1020, -1068, 2, -995]))
    else:  # mixed_within: in order onto ±10**(-300..300); not a scaling
        size = np.abs(X) / np.abs(X).max(axis=0)
        return np.sign(X) * 10.0 ** (600 * size - 300), None
    return np.ldexp(X, shift), shift


def view(X, kind):
    """The values the estimator reads (see the module docstring)."""
    if kind == F32:
        return X.astype(np.float32).astype(np.float64)
    if kind == LGB:
        return np.where(np.abs(X) <= float(np.float32(1e-35)), 0.0, X)
    return X


def signed_ranks(X, kind=F64):
    """Each column's values replaced, in order, by ..., -2, -1, 0, 1, 2, ... (zero kept).

    For J48's view, neighbouring values closer than 1e-5 (on either side of
    zero too) share a rank: C4.5 never cuts between them.
    """
    out = np.zeros_like(X)
    for j in range(X.shape[1]):
        column = X[:, j]
        if kind == J48:
            values = np.unique(column)
            group = np.cumsum(np.r_[0, np.diff(values) > C45_VALUE_GAP])
            out[:, j] = group[np.searchsorted(values, column)]
            continue
        for sign in (1, -1):
            side = sign * column > 0
            values = np.unique(sign * column[side])
            out[side, j] = sign * (np.searchsorted(values, sign * column[side]) + 1)
    return out


def _trees(model) -> list:
    """The trees of a model, through nested ensembles (a Dask forest's one-tree forests)."""
    if hasattr(model, "tree_"):
        return [model.tree_]
    return [tree for member in model.estimators_ for tree in _trees(member)]


def _outputs(model, X):
    return model.predict_proba(X) if hasattr(model, "predict_proba") else model.predict(X)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # numpy's overflow warnings
@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("name", list(EXPECTED))
def test_extreme_values(name, case, request):
    row = ESTIMATORS[name]
    if row.dask:
        request.getfixturevalue("dask_client")
    kind, exceptions = EXPECTED[name]
    expected = exceptions.get(case, RANK)
    X, y = _data(row)
    X_case, shift = extreme(X, case)
    if expected == REFUSE:
        with pytest.raises(ValueError, match=r"\bX\b|column"):
            row.make().fit(X_case, y)
        return
    model = row.make().fit(X_case, y)
    outputs = _outputs(model, X_case)
    assert np.isfinite(np.asarray(outputs, dtype=float)).all()
    if expected == FINITE:
        return
    if expected == SCALE:
        assert shift is not None
        X_back = np.ldexp(X_case, -shift)  # exact: the rounded values scaled up
        reference = row.make().fit(X_back, y)
        np.testing.assert_array_equal(outputs, _outputs(reference, X_back))
        return
    ranks = signed_ranks(view(X_case, kind), kind)
    reference = row.make().fit(ranks, y)
    if expected == MEMBERS:
        trees, reference_trees = _trees(model), _trees(reference)
        assert len(trees) == len(reference_trees)
        for tree, other in zip(trees, reference_trees, strict=True):
            for field in ("feature", "first_child", "n_node_samples", "value"):
                np.testing.assert_array_equal(getattr(tree, field), getattr(other, field))
        return
    np.testing.assert_allclose(outputs, _outputs(reference, ranks), rtol=1e-12, atol=1e-12)


# --- Extreme parameters: a learning rate that overflows the raw scores --------


def _boosted_estimators():
    import inspect

    import mltrees

    found = []
    for name in mltrees.__all__:
        cls = getattr(mltrees, name)
        if (
            inspect.isclass(cls)
            and not issubclass(cls, BaseException)
            and "learning_rate" in inspect.signature(cls).parameters
        ):
            found.append(cls)
    return found


@pytest.mark.parametrize("estimator", _boosted_estimators(), ids=lambda c: c.__name__)
@pytest.mark.parametrize("learning_rate", [1e308, 1e30])
def test_huge_learning_rate_is_refused_or_predicts_finite_values(estimator, learning_rate):
    """Never NaN or inf predictions: a clear error naming learning_rate instead."""
    rng = np.random.default_rng(3)
    X = rng.normal(size=(120, 3))
    classifier = estimator.__name__.endswith("Classifier")
    y = (X[:, 0] > 0).astype(int) if classifier else 2.0 * X[:, 0]
    model = estimator(learning_rate=learning_rate, n_estimators=20)
    refusal = None
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            model.fit(X, y)
        except ValueError as error:
            refusal = str(error)
    if refusal is not None:
        assert "learning_rate" in refusal
    else:
        scores = model.predict_proba(X) if classifier else model.predict(X)
        assert np.all(np.isfinite(scores))


def test_learning_rate_overflow_is_refused_by_the_regressors():
    """Where the training scores overflow at 1e308, the fit is refused, not returned with NaN.

    (LightGBM's regressor stays finite here, near 1e308: a diverged but finite model is
    what the algorithm computes at that rate, and the test above allows it.)
    """
    import mltrees

    X = np.random.default_rng(4).normal(size=(100, 2))
    y = X[:, 0] + X[:, 1]
    for cls in (
        mltrees.GradientBoostingRegressor,
        mltrees.XGBoostRegressor,
        mltrees.ObliviousBoostingRegressor,
    ):
        model = cls(learning_rate=1e308, n_estimators=20)
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with pytest.raises(ValueError, match=r"learning_rate=1e\+308 makes the raw scores"):
                model.fit(X, y)


def test_score_bound_bounds_every_prediction():
    """StackedTrees.score_bound >= |sum of the trees| on any input; tight for one tree."""
    from mltrees.ensemble._walk import StackedTrees
    from mltrees.tree import CARTRegressor

    rng = np.random.default_rng(5)
    X = rng.normal(size=(300, 3))
    trees, values = [], []
    for k in range(4):
        y = rng.normal(size=300) * 10**k
        tree = CARTRegressor(max_depth=3, random_state=k).fit(X, y).tree_
        trees.append(tree)
        values.append(tree.value.reshape(tree.node_count, -1))
    stack = StackedTrees(trees, values)
    sums = stack.predict(rng.normal(size=(2000, 3)) * 5)
    assert np.all(np.abs(sums[:, 0]) <= stack.score_bound[0])
    # Every leaf of a fitted tree holds training rows, so one tree reaches its bound.
    single = StackedTrees(trees[-1:], values[-1:])
    assert np.abs(single.predict(X)).max() == single.score_bound[0]
