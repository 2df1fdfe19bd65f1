"""Differential tests: mltrees' LightGBM against the ``lightgbm`` package (4.7).

Every parameter that ``LightGBMClassifier`` and ``LightGBMRegressor``
document as matching is drawn together with a table from the shared
generator (zeros, negative values, mostly-zero, few-valued, constant and
duplicated columns, NaN in training, prediction or both, whole-NaN columns,
categorical codes with negative and unseen values, weights with zeros).
The oracle: raw scores equal to ``TOLERANCE`` (relative to ``max(1, |score|)``)
on the training rows and on held-out rows.

LightGBM is run deterministically (``deterministic=True``, one thread,
row-wise histograms, ``seed=0``). Drawing rows or features at random
(bagging, ``colsample_bytree``) uses each library's own generator and is
not drawn; GOSS is drawn only for the rounds before it starts sampling
(the first ``1 / learning_rate``), where both libraries see every row.
"""

from __future__ import annotations

from datetime import timedelta

import numpy as np
import pytest
from _reference_models import LIGHTGBM_DETERMINISTIC, lightgbm_raw, relative_gap
from hypothesis import given, settings
from hypothesis import strategies as st

from mltrees import LightGBMClassifier, LightGBMRegressor

from .conftest import PROFILE
from .report import Tally
from .strategies import COLUMN_KINDS_WITH_CATEGORIES, Recipe, Table, recipes

lightgbm = pytest.importorskip("lightgbm")

TOLERANCE = 1e-9
"""Raw scores agree to this, relative to ``max(1, |score|)``; sums are taken in
LightGBM's order, so they agree to about 1e-15 unless a split differs."""


@st.composite
def lightgbm_params(draw, task: str) -> dict:
    """The documented parameters, drawn together."""
    params = {
        "n_estimators": draw(st.integers(1, 12)),
        "num_leaves": draw(st.sampled_from([2, 3, 7, 15, 31, 63])),
        "max_depth": draw(st.sampled_from([-1, -1, 1, 2, 3, 5])),
        "learning_rate": draw(st.sampled_from([0.05, 0.1, 0.3, 1.0])),
        "min_child_samples": draw(st.sampled_from([0, 1, 3, 5, 20])),
        "min_child_weight": draw(st.sampled_from([0.0, 1e-3, 0.5, 3.0])),
        "min_split_gain": draw(st.sampled_from([0.0, 0.0, 0.1, 2.0])),
        "reg_lambda": draw(st.sampled_from([0.0, 0.0, 0.7, 5.0])),
        "reg_alpha": draw(st.sampled_from([0.0, 0.0, 0.2, 3.0])),
        "max_delta_step": draw(st.sampled_from([0.0, 0.0, 0.3, 2.0])),
        "max_bin": draw(st.sampled_from([3, 7, 15, 63, 255])),
        "min_data_in_bin": draw(st.sampled_from([1, 3, 5])),
        "enable_bundle": draw(st.booleans()),
        # cat_smooth = 0 is not drawn: lightgbm then sorts the categories of a
        # leaf by G / 𝓗, NaN for the categories absent from the leaf, and the
        # order its std::stable_sort leaves NaN keys in is not reproduced.
        "cat_smooth": draw(st.sampled_from([0.5, 1.0, 10.0])),
        "cat_l2": draw(st.sampled_from([0.0, 1.0, 10.0])),
        "max_cat_threshold": draw(st.sampled_from([1, 4, 32])),
        "max_cat_to_onehot": draw(st.sampled_from([1, 4, 16])),
        "min_data_per_group": draw(st.sampled_from([1, 10, 100])),
    }
    if draw(st.booleans()) and params["learning_rate"] < 1.0:
        # GOSS samples from round int(1 / learning_rate) on, with LightGBM's own
        # generator: only the rounds before are compared.
        params["data_sample_strategy"] = "goss"
        params["n_estimators"] = min(params["n_estimators"], int(1.0 / params["learning_rate"]))
    return params


LARGE_KINDS = ("mostly_zero", "binary", "few", "integer0", "category", "continuous", "duplicate")
"""Column kinds of the large tables: sparse and few-valued columns, which LightGBM bundles."""


@st.composite
def cases(draw, task: str, large: bool = False):
    n_classes = draw(st.integers(3, 4)) if task == "multiclass" else 2
    recipe = draw(
        recipes(
            task=task,
            min_rows=10_000 if large else 20,
            max_rows=40_000 if large else 1500,
            max_columns=10 if large else 7,
            kinds=LARGE_KINDS if large else COLUMN_KINDS_WITH_CATEGORIES,
            n_classes=n_classes,
        )
    )
    params = draw(lightgbm_params(task))
    if large:  # a few small trees: the tables are what is large
        params["n_estimators"] = min(params["n_estimators"], 4)
        params["num_leaves"] = min(params["num_leaves"], 15)
    extras = {
        "init_score": draw(st.booleans()),
        "early_stopping": draw(st.sampled_from([None, None, 1, 3])),
    }
    return recipe, params, extras


def _categorical(table: Table) -> list[int]:
    return [j for j, kind in enumerate(table.kinds) if kind == "category"]


def _init_score(table: Table, task: str, n_classes: int) -> np.ndarray:
    rng = np.random.default_rng(table.seed % 2**32)
    shape = (len(table.y), n_classes) if task == "multiclass" else (len(table.y),)
    return rng.normal(0.0, 0.5, shape)


def _fit_both(table: Table, params: dict, extras: dict, task: str):
    categorical = _categorical(table)
    kind = LightGBMRegressor if task == "regression" else LightGBMClassifier
    theirs_kind = lightgbm.LGBMRegressor if task == "regression" else lightgbm.LGBMClassifier
    n_classes = int(np.unique(table.y).size)
    X, y, w = table.X, table.y, table.sample_weight
    fit = {"sample_weight": w}
    theirs_fit = {"sample_weight": w, "categorical_feature": categorical or "auto"}
    if extras["init_score"]:
        start = _init_score(table, task, n_classes)
        fit["init_score"] = start
        theirs_fit["init_score"] = start
    patience = extras["early_stopping"]
    ours_params = dict(params)
    if patience is not None:
        # The held-out rows (without NaN in the target) watch the training.
        ours_params["early_stopping_rounds"] = patience
        fit["eval_set"] = [(table.X_test, _eval_target(table))]
        theirs_fit["eval_X"] = (table.X_test,)
        theirs_fit["eval_y"] = (_eval_target(table),)
        theirs_fit["callbacks"] = [lightgbm.early_stopping(patience, verbose=False)]
    ours = kind(n_jobs=1, categorical_feature=categorical, **ours_params).fit(X, y, **fit)
    theirs = theirs_kind(**params, **LIGHTGBM_DETERMINISTIC).fit(X, y, **theirs_fit)
    return ours, theirs


def _eval_target(table: Table) -> np.ndarray:
    """Targets for the held-out rows: the training targets' pattern, recycled."""
    reps = -(-len(table.X_test) // len(table.y))
    return np.tile(table.y, reps)[: len(table.X_test)]


def check_equal(recipe: Recipe, params: dict, extras: dict, tally: Tally | None = None):
    """Fit both and compare raw scores on training and held-out rows."""
    table, task = recipe.build(), recipe.task
    if task != "regression" and np.unique(table.y).size < 2:
        # lightgbm fits a constant model to a target of one class; mltrees
        # refuses it, as scikit-learn's classifiers do.
        kind = LightGBMClassifier(n_jobs=1, categorical_feature=_categorical(table), **params)
        with pytest.raises(ValueError, match="needs at least 2 classes"):
            kind.fit(table.X, table.y, sample_weight=table.sample_weight)
        if tally is not None:
            tally.count("one_class_target_refused")
        return
    try:
        ours, theirs = _fit_both(table, params, extras, task)
    except lightgbm.basic.LightGBMError as error:
        # With min_child_weight = 0 nothing but estimated counts keeps a child
        # from being empty; lightgbm can choose such a cut (its gain is float
        # noise) and then stops on its own check. mltrees leaves that leaf unsplit.
        if params["min_child_weight"] == 0.0 and "_count) > (0)" in str(error):
            if tally is not None:
                tally.count("lightgbm_empty_child_check")
            return
        raise
    for X in (table.X, table.X_test):
        gap = relative_gap(lightgbm_raw(ours, X), lightgbm_raw(theirs, X))
        assert gap <= TOLERANCE, (
            f"raw scores differ by {gap:.3g} (relative); "
            f"trees {ours.n_estimators_} vs {theirs.booster_.num_trees()}"
        )
    if tally is not None:
        tally.count("equal")


# The quick profile caps each case (its tables are small: a case takes well
# under a second); the long profile lets large draws run.
CASE_TIME_CAP = timedelta(seconds=60) if PROFILE == "difftest-quick" else None
_SETTINGS = settings(parent=settings.get_profile(PROFILE), deadline=CASE_TIME_CAP)
_LARGE_SETTINGS = settings(
    parent=settings.get_profile(PROFILE),
    deadline=CASE_TIME_CAP,
    max_examples=max(2, settings.get_profile(PROFILE).max_examples // 10),
)


@pytest.mark.parametrize("task", ["regression", "binary", "multiclass"])
def test_raw_scores_equal_lightgbm(task, request):
    tally = Tally(request)

    @_SETTINGS
    @given(case=cases(task))
    def run(case):
        recipe, params, extras = case
        check_equal(recipe, params, extras, tally)

    run()


@pytest.mark.parametrize("task", ["regression", "binary"])
def test_raw_scores_equal_lightgbm_on_large_sparse_tables(task, request):
    """10,000 to 40,000 rows: LightGBM then lets bundled features share n // 10,000 rows."""
    tally = Tally(request)

    @_LARGE_SETTINGS
    @given(case=cases(task, large=True))
    def run(case):
        recipe, params, extras = case
        check_equal(recipe, params, extras, tally)

    run()
