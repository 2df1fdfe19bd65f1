"""Regression tests: the failures the CatBoost differential suite found, shrunk.

Each case is a table of the shared generator (or one built here) and a
parameter set on which mltrees once parted from ``catboost``; the comment
says what was wrong. ``check_equal`` accepts equal raw scores or a
documented exception that it detects itself (an exact tie).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from .strategies import Recipe
from .test_catboost import FIXED, check_equal

catboost = pytest.importorskip("catboost")

from mltrees import ObliviousBoostingRegressor  # noqa: E402

BASE = {
    "n_estimators": 1,
    "depth": 1,
    "learning_rate": 0.03,
    "l2_leaf_reg": 0.1,
    "boosting_type": "Plain",
    "border_count": 1,
    "one_hot_max_size": 1,
    "score_function": "L2",
    "leaf_estimation_method": "Newton",
}

CASES = {
    # A level that leaves a split redundant ends CatBoost's search: the first
    # redundant split is removed and no further level is grown.
    "redundant_split_ends_the_tree": (
        Recipe(
            seed=8388607,
            n_rows=29,
            kinds=("continuous", "continuous", "negative", "duplicate", "negative"),
            task="regression",
        ),
        {"depth": 5, "l2_leaf_reg": 0.5, "border_count": 32, "boost_from_average": False},
    ),
    # MultiClass ordered boosting steps the tail rows online (their own
    # derivatives included), unlike one output.
    "multiclass_ordered_tail_online": (
        Recipe(
            seed=0, n_rows=20, kinds=("continuous", "continuous"), task="multiclass", n_classes=3
        ),
        {"n_estimators": 3, "learning_rate": 0.3, "boosting_type": "Ordered"},
    ),
    "multiclass_ordered_cosine_gradient": (
        Recipe(
            seed=0, n_rows=200, kinds=("continuous", "continuous"), task="multiclass", n_classes=3
        ),
        {
            "n_estimators": 5,
            "depth": 2,
            "learning_rate": 0.1,
            "l2_leaf_reg": 3.0,
            "boosting_type": "Ordered",
            "border_count": 32,
            "score_function": "Cosine",
            "leaf_estimation_method": "Gradient",
        },
    ),
    # A one-hot feature of two categories has one candidate ("= the category
    # numbered 1"); unseen categories at prediction go with the other one.
    "two_category_one_hot": (
        Recipe(seed=164, n_rows=20, kinds=("category", "category"), task="multiclass", n_classes=3),
        {"depth": 3, "l2_leaf_reg": 10.0, "one_hot_max_size": 2},
    ),
    # The starting score with weights: float32 products, sums in row order.
    "weighted_starting_score": (
        Recipe(seed=6, n_rows=20, kinds=("integer0",), task="regression", weights=True),
        {"boost_from_average": True},
    ),
    # A categorical split that moves no row in ordered boosting.
    "ordered_category_no_op": (
        Recipe(seed=2, n_rows=20, kinds=("category",), task="regression"),
        {"boosting_type": "Ordered", "boost_from_average": False},
    ),
    # NaN's border is -FLT_MAX: a new value below the training minimum does
    # not go with NaN.
    "nan_border_below_minimum": (
        Recipe(
            seed=0,
            n_rows=44,
            kinds=("continuous",),
            nan_pattern="train",
            nan_rate=0.05,
            task="regression",
        ),
        {"boost_from_average": False},
    ),
    "multiclass_learning_rate_1": (
        Recipe(seed=0, n_rows=21, kinds=("integer1",), task="multiclass", n_classes=3),
        {"n_estimators": 3, "learning_rate": 1.0},
    ),
    # A whole-NaN column keeps a border no row passes.
    "whole_nan_column_ordered": (
        Recipe(
            seed=0,
            n_rows=20,
            kinds=("continuous", "integer0"),
            nan_pattern="whole_column",
            task="binary",
        ),
        {"boosting_type": "Ordered", "boost_from_average": False},
    ),
    # λ of each ordered block scaled by its own body: l2 · Σw(body) / rows(body).
    "weighted_ordered_blocks": (
        Recipe(
            seed=0,
            n_rows=128,
            kinds=("integer0", "continuous", "continuous", "integer0", "continuous"),
            nan_pattern="train",
            nan_rate=0.05,
            task="regression",
            weights=True,
        ),
        {"l2_leaf_reg": 0.5, "boosting_type": "Ordered", "boost_from_average": False},
    ),
    # Zero weights: a split separating only a row of weight 0 is kept (rows are
    # counted); two statistics columns with the same partition tie exactly.
    "zero_weights_tied_statistics": (
        Recipe(seed=1703, n_rows=20, kinds=("integer0", "category"), task="binary", weights=True),
        {"depth": 6, "l2_leaf_reg": 3.0, "border_count": 4, "boost_from_average": True},
    ),
    # The 20 training rows of a binary table all of one class: catboost refuses
    # the target, and so must mltrees (the test stopped on catboost's error).
    "one_class_target": (
        Recipe(seed=4294967295, n_rows=20, kinds=("few", "few", "few", "binary"), task="binary"),
        {"boost_from_average": False},
    ),
}


@pytest.mark.parametrize("name", list(CASES))
def test_shrunk_failure(name):
    recipe, params = CASES[name]
    check_equal(recipe, {**BASE, **params})


def _fit_both(X, y, **params):
    ours = ObliviousBoostingRegressor(has_time=True, **params).fit(X, y)
    theirs_params = dict(params)
    theirs_params["iterations"] = theirs_params.pop("n_estimators")
    theirs = catboost.CatBoostRegressor(loss_function="RMSE", **theirs_params, **FIXED)
    return ours, theirs.fit(X, y)


def test_binary_features_are_tried_after_the_others():
    """A binary column and a three-valued one with the same partition: CatBoost takes the latter.

    CatBoost packs binary features and tries them after the other float
    features; in exact arithmetic the two cuts tie.
    """
    rng = np.random.default_rng(1)
    for _ in range(5):
        wide = rng.integers(0, 3, 40).astype(float)
        X = np.c_[(wide > 0.5).astype(float), wide]
        y = rng.normal(size=40) + X[:, 0]
        ours, theirs = _fit_both(
            X,
            y,
            n_estimators=1,
            depth=1,
            learning_rate=0.1,
            score_function="L2",
            boost_from_average=False,
            border_count=254,
        )
        assert ours.trees_[0].feature.tolist() == [1]
        probe = np.array([[1.0, 0.0], [0.0, 1.0]])  # the two columns disagree
        np.testing.assert_allclose(ours.predict(probe), theirs.predict(probe), rtol=1e-12)


@pytest.mark.parametrize("first", ["a", "b"])
@pytest.mark.parametrize("n_a", [3, 17])
def test_two_category_one_hot_asks_about_the_rarer(first, n_a):
    """CatBoost numbers categories by first appearance, then swaps the most frequent to 0.

    Of a two-category one-hot feature only "= the category numbered 1" is a
    candidate: the rarer one, whichever comes first. An unseen category then
    goes with the more frequent one.
    """
    rng = np.random.default_rng(n_a)
    cats = np.array(["a"] * n_a + ["b"] * (20 - n_a))
    rng.shuffle(cats)
    k = int(np.flatnonzero(cats == first)[0])
    cats[[0, k]] = cats[[k, 0]]
    y = (cats == "a") * 1.0 + rng.normal(0.0, 0.1, 20)
    X = pd.DataFrame({"x": cats, "z": np.zeros(20)})
    params = {
        "n_estimators": 1,
        "depth": 1,
        "learning_rate": 0.1,
        "one_hot_max_size": 2,
        "l2_leaf_reg": 1.0,
        "score_function": "L2",
    }
    ours = ObliviousBoostingRegressor(
        has_time=True, cat_features=[0], boost_from_average=False, **params
    )
    ours.fit(X, y)
    theirs_params = dict(params)
    theirs_params["iterations"] = theirs_params.pop("n_estimators")
    theirs = catboost.CatBoostRegressor(
        loss_function="RMSE", cat_features=[0], boost_from_average=False, **theirs_params, **FIXED
    ).fit(X, y)
    probe = pd.DataFrame({"x": ["a", "b", "unseen"], "z": np.zeros(3)})
    np.testing.assert_allclose(ours.predict(probe), theirs.predict(probe), rtol=1e-12)


ORDERED_GRADIENT_WEIGHTED = {
    # 768 rows; tree 8's last level: border 22 (mltrees) against 19 (catboost).
    "768_rows": (
        Recipe(
            seed=11,
            n_rows=768,
            kinds=("constant", "duplicate", "constant", "integer1"),
            nan_pattern="train",
            nan_rate=0.3,
            task="binary",
            weights=True,
        ),
        {
            "n_estimators": 8,
            "depth": 5,
            "learning_rate": 0.1,
            "border_count": 32,
            "boost_from_average": True,
        },
    ),
    # 453 rows; tree 10's root: border 253 (mltrees) against 84 (catboost),
    # which scores 2.4e-4 lower in mltrees' arithmetic: no tie.
    "453_rows": (
        Recipe(
            seed=3701716271,
            n_rows=453,
            kinds=("duplicate", "constant", "constant", "duplicate"),
            nan_pattern="train",
            nan_rate=0.3,
            task="binary",
            weights=True,
        ),
        {
            "n_estimators": 10,
            "depth": 3,
            "learning_rate": 0.1,
            "l2_leaf_reg": 3.0,
            "border_count": 254,
            "one_hot_max_size": 4,
            "boost_from_average": False,
        },
    ),
    # 186 rows, Cosine; tree 8's last level: border 17 (mltrees) against 11.
    "186_rows": (
        Recipe(
            seed=1034,
            n_rows=186,
            kinds=("constant", "duplicate", "negative"),
            nan_pattern="train",
            nan_rate=0.3,
            task="binary",
            weights=True,
        ),
        {
            "n_estimators": 12,
            "depth": 2,
            "learning_rate": 0.3,
            "l2_leaf_reg": 10.0,
            "border_count": 32,
            "one_hot_max_size": 4,
            "score_function": "Cosine",
            "boost_from_average": False,
        },
    ),
    # 652 rows; tree 9's root: border 16 (mltrees) against 18, 2.7e-5 apart
    # in mltrees' arithmetic; unlike the others, no scaling of the ordered
    # steps' λ (×0.99 to ×1.3) makes mltrees pick catboost's split.
    "652_rows": (
        Recipe(
            seed=1281,
            n_rows=652,
            kinds=("constant", "negative"),
            nan_pattern="train",
            nan_rate=0.3,
            task="binary",
            weights=True,
        ),
        {
            "n_estimators": 12,
            "depth": 3,
            "learning_rate": 0.3,
            "l2_leaf_reg": 3.0,
            "border_count": 32,
            "one_hot_max_size": 4,
            "boost_from_average": True,
        },
    ),
}

# Measured on the 453- and 768-row cases (catboost 1.2.10, mltrees patched by hand):
# multiplying every block's λ in the ordered leaf steps by 1.003 (453 rows) or
# 1.001 (768 rows) reproduces catboost exactly (so does lowering every ordered
# step by 1e-4), ×0.99 and ×0.9 do not, and relative noise of 1e-3 on those
# steps changes nothing: the choice is close to a tie along λ, and catboost
# differs from us by something systematic and small, not by rounding. Ruled
# out by random draws that pass today (binary and regression, weighted,
# Ordered, Gradient) breaking under the rule: unscaled
# l2 in the steps, the whole data's Σw/n scale, Σw/(rows - 1), the next block's
# scale. These break the cases' earlier trees: the score's λ ×0.97 or ×1.03,
# counts in the steps' denominators, Hessians in the score's, learning folds
# without zero-weight rows. Zero weights give zero derivatives, so the
# FLT_EPSILON bucket skip changes nothing here; backtracking is off at one
# iteration; the Langevin temperature is 0.


@pytest.mark.xfail(
    strict=True,
    reason=(
        "open defect: Ordered boosting with Gradient leaves and weights; 2 of 200 draws "
        "of binary tables with constant columns holding NaN differ (Newton: 0 of the same "
        "200), yet the 453-row case keeps failing with its one continuous column alone, "
        "so those columns are not the cause; the trees before the first differing split "
        "are identical, so the ordered approximations of the blocks (invisible in the "
        "model's scores) are the suspect; found by the long profile"
    ),
)
@pytest.mark.parametrize("name", list(ORDERED_GRADIENT_WEIGHTED))
def test_ordered_gradient_weighted(name):
    recipe, params = ORDERED_GRADIENT_WEIGHTED[name]
    check_equal(
        recipe,
        {
            **BASE,
            **params,
            "boosting_type": "Ordered",
            "leaf_estimation_method": "Gradient",
        },
    )
