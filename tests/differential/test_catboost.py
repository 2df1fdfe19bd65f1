"""Differential tests: mltrees' oblivious boosting against the ``catboost`` package (1.2).

Every parameter that ``ObliviousBoostingRegressor`` and
``ObliviousBoostingClassifier`` document as meaning what CatBoost's means is
drawn together (rounds, depth, learning rate, ``l2_leaf_reg``, Plain or
Ordered boosting, ``border_count``, ``one_hot_max_size``, the score
function, the leaf estimation method, ``boost_from_average``) with a table
from the shared generator (zeros, negative values, mostly-zero, few-valued,
constant and duplicated columns, NaN in training, prediction or both,
whole-NaN columns, categorical codes with negative and unseen values,
weights with zeros). The oracle: raw scores equal to ``RTOL`` (relative to
``max(1, |score|)``) on the training rows and on held-out rows.

CatBoost's randomness is switched off as the estimators document: the data
order is the permutation (``has_time=True``), no bootstrap, no noise on the
split scores (``random_strength=0``), no penalty on statistics
(``model_size_reg=0``), one leaf-estimation step, and no combinations of
categorical features (``max_ctr_complexity=1``: mltrees has none).
Categorical features cannot hold NaN in either library; a NaN drawn in one
becomes a category of its own, as mltrees' error message asks.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mltrees import ObliviousBoostingClassifier, ObliviousBoostingRegressor

from .conftest import PROFILE
from .report import Tally
from .strategies import COLUMN_KINDS_WITH_CATEGORIES, Recipe, Table, recipes

catboost = pytest.importorskip("catboost")

RTOL = 1e-9
"""Raw scores agree to this, relative to ``max(1, |score|)`` (the README's claim)."""

FIXED = {
    "bootstrap_type": "No",
    "random_strength": 0,
    "leaf_estimation_iterations": 1,
    "thread_count": 1,
    "random_seed": 0,
    "model_size_reg": 0,
    "has_time": True,
    "max_ctr_complexity": 1,
    "verbose": 0,
    "allow_writing_files": False,
}

MISSING_CATEGORY = -100
"""The category a NaN in a categorical column becomes."""


@st.composite
def catboost_params(draw, task: str) -> dict:
    params = {
        "n_estimators": draw(st.integers(1, 12)),
        "depth": draw(st.integers(1, 6)),
        "learning_rate": draw(st.sampled_from([0.03, 0.1, 0.3, 1.0])),
        "l2_leaf_reg": draw(st.sampled_from([0.0, 0.5, 3.0, 10.0])),
        "boosting_type": draw(st.sampled_from(["Plain", "Ordered"])),
        "border_count": draw(st.sampled_from([1, 4, 32, 254])),
        "one_hot_max_size": draw(st.sampled_from([1, 2, 4, 255])),
        "score_function": draw(st.sampled_from(["L2", "Cosine"])),
        "leaf_estimation_method": draw(st.sampled_from(["Newton", "Gradient"])),
    }
    if task != "multiclass":
        params["boost_from_average"] = draw(st.booleans())
    return params


@st.composite
def cases(draw, task: str):
    n_classes = draw(st.integers(3, 4)) if task == "multiclass" else 2
    recipe = draw(
        recipes(
            task=task,
            min_rows=20,
            max_rows=1200,
            max_columns=6,
            kinds=COLUMN_KINDS_WITH_CATEGORIES,
            n_classes=n_classes,
        )
    )
    return recipe, draw(catboost_params(task))


def _frames(table: Table):
    """Training and held-out frames: categorical columns as integer codes."""
    categorical = [j for j, kind in enumerate(table.kinds) if kind == "category"]
    frames = []
    for X in (table.X, table.X_test):
        frame = pd.DataFrame(X, columns=[f"x{j}" for j in range(X.shape[1])])
        for j in categorical:
            column = np.where(np.isnan(X[:, j]), MISSING_CATEGORY, X[:, j])
            frame[f"x{j}"] = column.astype(np.int64)
        frames.append(frame)
    return frames[0], frames[1], categorical


def _fit_both(table: Table, params: dict, task: str):
    X, X_test, categorical = _frames(table)
    ours_kind = ObliviousBoostingRegressor if task == "regression" else ObliviousBoostingClassifier
    ours = ours_kind(has_time=True, cat_features=categorical, **params)
    theirs_params = dict(params)
    theirs_params["iterations"] = theirs_params.pop("n_estimators")
    if task == "regression":
        theirs = catboost.CatBoostRegressor(loss_function="RMSE", **theirs_params, **FIXED)
    else:
        loss = "Logloss" if task == "binary" else "MultiClass"
        theirs = catboost.CatBoostClassifier(loss_function=loss, **theirs_params, **FIXED)
    theirs.fit(X, table.y, sample_weight=table.sample_weight, cat_features=categorical)
    ours.fit(X, table.y, sample_weight=table.sample_weight)  # after: catboost may refuse the data
    return ours, theirs, X, X_test


def _raw(model, X):
    if isinstance(model, ObliviousBoostingClassifier):
        return model.decision_function(X)
    if isinstance(model, ObliviousBoostingRegressor):
        return model.predict(X)
    return model.predict(X, prediction_type="RawFormulaVal")


def _relative(a, b) -> float:
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    return float(np.max(np.abs(a - b) / np.maximum(1.0, np.abs(b)), initial=0.0))


SINGULAR_NEWTON_RTOL = 1e-6
"""MultiClass, Newton, ``l2_leaf_reg = 0``: the softmax Hessian of a leaf is
singular, and CatBoost regularises it with ``float32 ε`` times its largest
diagonal entry (``TSymmetricHessian::SolveNewtonEquation``), which mltrees
does too. The step then amplifies every rounding difference about 10⁷-fold,
and CatBoost's softmax uses its own approximate ``FastExp``: the raw scores
agree to this tolerance only. Counted as ``singular_multiclass_newton``."""


def _singular_newton(task: str, params: dict) -> bool:
    return (
        task == "multiclass"
        and params["leaf_estimation_method"] == "Newton"
        and params["l2_leaf_reg"] == 0.0
    )


def check_equal(recipe: Recipe, params: dict, tally: Tally | None = None):
    """Fit both and compare raw scores on training and held-out rows."""
    table, task = recipe.build(), recipe.task
    try:
        ours, theirs, X, X_test = _fit_both(table, params, task)
    except catboost.CatBoostError as error:
        # Every feature constant: catboost refuses the data; so must mltrees.
        if "All features are either constant or ignored" not in str(error):
            raise
        X, _, categorical = _frames(table)
        kind = ObliviousBoostingRegressor if task == "regression" else ObliviousBoostingClassifier
        with pytest.raises(ValueError, match="every feature is constant"):
            kind(has_time=True, cat_features=categorical, **params).fit(X, table.y)
        if tally is not None:
            tally.count("both_refuse_constant_features")
        return
    singular = _singular_newton(task, params)
    tolerance = SINGULAR_NEWTON_RTOL if singular else RTOL
    for frame in (X, X_test):
        gap = _relative(_raw(ours, frame), _raw(theirs, frame))
        assert gap <= tolerance, f"raw scores differ by {gap:.3g} (relative)"
    if tally is not None:
        tally.count("singular_multiclass_newton" if singular else "equal")


_SETTINGS = settings(parent=settings.get_profile(PROFILE))


@pytest.mark.parametrize("task", ["regression", "binary", "multiclass"])
def test_raw_scores_equal_catboost(task, request):
    tally = Tally(request)

    @_SETTINGS
    @given(case=cases(task))
    def run(case):
        recipe, params = case
        check_equal(recipe, params, tally)

    run()
