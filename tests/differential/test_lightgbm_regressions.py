"""Regression tests: the failures the LightGBM differential suite found, shrunk.

Each case is a table of the shared generator (or a table built here) and a
parameter set on which mltrees once parted from ``lightgbm``; the comment
says what was wrong. They run in every profile, as plain tests.
"""

from __future__ import annotations

import numpy as np
import pytest
from _reference_models import LIGHTGBM_DETERMINISTIC as DETERMINISTIC

from .strategies import Recipe
from .test_lightgbm import check_equal

lightgbm = pytest.importorskip("lightgbm")

from mltrees import LightGBMRegressor  # noqa: E402

BASE = {
    "n_estimators": 1,
    "num_leaves": 3,
    "max_depth": -1,
    "learning_rate": 0.05,
    "min_child_samples": 0,
    "min_child_weight": 0.0,
    "min_split_gain": 0.0,
    "reg_lambda": 0.0,
    "reg_alpha": 0.0,
    "max_delta_step": 0.0,
    "max_bin": 3,
    "min_data_in_bin": 1,
    "enable_bundle": False,
    "cat_smooth": 0.5,
    "cat_l2": 0.0,
    "max_cat_threshold": 1,
    "max_cat_to_onehot": 1,
    "min_data_per_group": 1,
}
NO_EXTRAS = {"init_score": False, "early_stopping": None}
INIT_SCORE = {"init_score": True, "early_stopping": None}

CASES = {
    # LightGBM's targets are float32: float64 labels left the scores 1e-9 apart.
    "categorical_float32_labels": (
        Recipe(seed=0, n_rows=20, kinds=("continuous", "category"), task="regression"),
        {},
        NO_EXTRAS,
    ),
    # Seven features, several with the same best gain: LightGBM compares each
    # feature's best cut net of the shift (parent gain + min_split_gain).
    "tied_features_net_of_shift": (
        Recipe(seed=0, n_rows=20, kinds=("continuous",) * 7, task="binary"),
        {"num_leaves": 15},
        NO_EXTRAS,
    ),
    # A cut of NaN gain (a side of hessian exactly 0 with min_child_weight = 0)
    # passes LightGBM's "gain <= shift" test: the feature stays splittable.
    "nan_gain_keeps_feature": (
        Recipe(
            seed=13089,
            n_rows=59,
            kinds=("integer0", "few", "constant"),
            nan_pattern="train",
            nan_rate=0.3,
            task="binary",
        ),
        {"num_leaves": 15, "min_child_samples": 3, "max_bin": 7},
        NO_EXTRAS,
    ),
    # Multiclass softmax gradients in LightGBM's order, bundling on.
    "multiclass_bundled": (
        Recipe(
            seed=4294967294, n_rows=663, kinds=("continuous",) * 4, task="multiclass", n_classes=3
        ),
        {"num_leaves": 2, "enable_bundle": True},
        NO_EXTRAS,
    ),
    # min_split_gain with learning rate 1: gains net of min_split_gain, forward
    # scan against the reverse one plus the shift.
    "min_split_gain_multiclass": (
        Recipe(
            seed=0,
            n_rows=168,
            kinds=("continuous", "integer0", "integer1", "binary", "continuous"),
            task="multiclass",
            n_classes=3,
        ),
        {
            "n_estimators": 2,
            "num_leaves": 15,
            "learning_rate": 1.0,
            "min_split_gain": 0.1,
            "max_bin": 7,
        },
        NO_EXTRAS,
    ),
    # init_score: summed in row order, |init| <= 1e-15 read as 0, no boost from average.
    "init_score_mostly_zero_multiclass": (
        Recipe(seed=83293, n_rows=21, kinds=("mostly_zero",), task="multiclass", n_classes=3),
        {"num_leaves": 2},
        INIT_SCORE,
    ),
    "init_score_l1": (
        Recipe(seed=1, n_rows=468, kinds=("continuous",) * 3, task="binary"),
        {"num_leaves": 7, "max_bin": 15, "reg_alpha": 3.0},
        INIT_SCORE,
    ),
    # Duplicated and mostly-zero columns with NaN: exact ties between features.
    "init_score_duplicates_mostly_zero": (
        Recipe(
            seed=142,
            n_rows=218,
            kinds=("continuous", "duplicate", "mostly_zero", "few", "mostly_zero"),
            nan_pattern="train",
            nan_rate=0.05,
            task="multiclass",
            n_classes=3,
        ),
        {
            "n_estimators": 4,
            "num_leaves": 7,
            "learning_rate": 0.1,
            "min_child_samples": 3,
            "reg_lambda": 5.0,
            "reg_alpha": 0.2,
            "max_bin": 7,
        },
        INIT_SCORE,
    ),
    # The training rows all of one class: lightgbm fits a constant model,
    # mltrees refuses the target with a message, as scikit-learn does.
    "one_class_target": (
        Recipe(seed=4294967295, n_rows=20, kinds=("few", "few", "few", "binary"), task="binary"),
        {},
        NO_EXTRAS,
    ),
}


@pytest.mark.parametrize("name", list(CASES))
def test_shrunk_failure(name):
    recipe, params, extras = CASES[name]
    check_equal(recipe, {**BASE, **params}, extras)


def _nine_integer_columns(seed: int, offset: float):
    """The issue's table: 3,000 rows, columns of 6, 43, 5, 4, 5, 1, 2, 2, 2 codes.

    Codes are drawn with skewed frequencies and shifted by ``offset`` (1 for
    1-based codes); the target is linear in the first three columns.
    """
    rng = np.random.default_rng(seed)
    columns = []
    for n_codes in (6, 43, 5, 4, 5, 1, 2, 2, 2):
        p = rng.dirichlet(np.full(n_codes, 0.7))
        columns.append(rng.choice(n_codes, size=3000, p=p) + offset)
    X = np.column_stack(columns)
    y = X[:, 0] * rng.normal() + X[:, 1] * 0.1 * rng.normal() + X[:, 2] * rng.normal()
    return X, y + rng.normal(0.0, 2.0, 3000) + 30.0


@pytest.mark.parametrize("offset", [1.0, 0.0, -1.0])
def test_issue_nine_integer_columns(offset):
    """The issue's reproducer: raw scores equal after 15 trees.

    With 1-based codes (seed 4) the last two 2-valued columns share 23 rows
    of non-zero values, yet LightGBM 4.7 bundles them as exclusive: FindBin
    sorts each feature's sampled values in place and FixSampleIndices then
    pairs the j-th non-zero row with the j-th sorted value, so a feature whose
    most frequent bin is not the bin of zero "occupies" rows that are not its
    own. mltrees reproduces that rule; before, the scores parted after 3 trees
    (6-7 % after 15).
    """
    X, y = _nine_integer_columns(4, offset)
    params = {"n_estimators": 15, "num_leaves": 15, "learning_rate": 0.1, "min_data_in_bin": 1}
    ours = LightGBMRegressor(n_jobs=1, **params).fit(X, y)
    theirs = lightgbm.LGBMRegressor(**params, **DETERMINISTIC).fit(X, y)
    np.testing.assert_allclose(ours.predict(X), theirs.predict(X), rtol=1e-12, atol=1e-12)


def test_bundles_may_share_rows_on_large_tables():
    """30,000 rows of mostly exclusive sparse columns, each pair sharing 2 rows.

    LightGBM 4 bundles features whose conflicts stay within n // 10,000 rows
    (FastFeatureBundling); the paper's conflict rate bundled otherwise, and
    the scores parted by 14 %.
    """
    rng = np.random.default_rng(0)
    n, p = 30_000, 20
    X = np.zeros((n, p))
    X[np.arange(n), rng.integers(0, p, n)] = rng.integers(1, 5, n)
    for j in range(p):
        X[rng.choice(n, 2, replace=False), j] = 7.0
    y = X @ rng.normal(size=p) + rng.normal(size=n)
    ours = LightGBMRegressor(n_estimators=30, n_jobs=1).fit(X, y)
    theirs = lightgbm.LGBMRegressor(n_estimators=30, **DETERMINISTIC).fit(X, y)
    np.testing.assert_allclose(ours.predict(X), theirs.predict(X), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("nan_rate", [0.05, 0.3])
def test_max_bin_15_with_nan_on_54000_rows(nan_rate):
    """The issue's other region: 54,000 rows, max_bin 15, NaN in every column.

    Continuous, integer (negative codes included), mostly-zero and negative
    columns, so that the bins of 0, the most frequent bins and the NaN bin
    all occur with many distinct values per bin. Before LightGBM's float32
    labels were reproduced the scores parted by 1e-8 here.
    """
    rng = np.random.default_rng(0)
    n = 54_000
    X = np.column_stack(
        [
            rng.normal(1.0, 5.0, n),
            rng.integers(0, 30, n) - 5.0,
            np.where(rng.random(n) < 0.9, 0.0, rng.normal(0.0, 3.0, n)),
            -rng.exponential(3.0, n),
        ]
    )
    y = X[:, 0] * 0.3 + X[:, 1] * 0.1 + X[:, 2] + rng.normal(0.0, 1.0, n)
    X[rng.random(X.shape) < nan_rate] = np.nan
    params = {"n_estimators": 10, "num_leaves": 15, "max_bin": 15, "learning_rate": 0.1}
    ours = LightGBMRegressor(n_jobs=1, **params).fit(X, y)
    theirs = lightgbm.LGBMRegressor(**params, **DETERMINISTIC).fit(X, y)
    np.testing.assert_allclose(ours.predict(X), theirs.predict(X), rtol=1e-12, atol=1e-12)
