"""LightGBM on the histogram engine (chapter 14): rules, and equality with the lightgbm package.

The cross-checks follow the measured rules of LightGBM 4.7: deterministic
single-threaded training, and strictly positive features (LightGBM cuts a
gap that contains 0 at ±1e-35, which mltrees reproduces, but positive data
keep the test about the learner). Raw scores are compared relative to
``max(1, |score|)`` with the issue's tolerance of 1e-6; they agree to about
1e-14 because every sum is taken in LightGBM's order.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from _reference_models import LIGHTGBM_DETERMINISTIC, lightgbm_raw
from sklearn.datasets import load_breast_cancer, load_diabetes, load_wine

from mltrees import LightGBMClassifier, LightGBMRegressor
from mltrees.datasets import load_covertype, load_higgs
from mltrees.hist.lightgbm.binning import ZERO_THRESHOLD, bin_upper_bounds
from mltrees.hist.lightgbm.categorical import (
    CategoricalParams,
    category_bins,
    encode_categories,
    find_categorical_splits,
)
from mltrees.hist.lightgbm.splitting import LeafwiseParams, find_leaf_splits, leaf_gain, leaf_output

lightgbm = pytest.importorskip("lightgbm")

DETERMINISTIC = {**LIGHTGBM_DETERMINISTIC, "min_data_in_bin": 1}
SMALL = {"n_estimators": 15, "num_leaves": 16, "min_child_samples": 5, "learning_rate": 0.3}


def _relative(a, b) -> float:
    return float(np.max(np.abs(a - b) / np.maximum(1.0, np.abs(b))))


def _pair(kind, **params):
    ours = (LightGBMRegressor if kind == "reg" else LightGBMClassifier)(
        min_data_in_bin=1, n_jobs=1, **params
    )
    theirs = (lightgbm.LGBMRegressor if kind == "reg" else lightgbm.LGBMClassifier)(
        **params, **DETERMINISTIC
    )
    return ours, theirs


def _higgs(n=3000, seed=0):
    X, y = load_higgs(return_X_y=True)
    rows = np.random.default_rng(seed).choice(len(y), size=n, replace=False)
    return np.asarray(X, dtype=float)[rows], np.asarray(y)[rows]


VARIATIONS = [
    {},
    {"num_leaves": 31, "min_child_samples": 10},
    {"max_depth": 3, "num_leaves": 8},
    {"reg_lambda": 1.5, "min_split_gain": 0.5},
    {"reg_alpha": 0.3, "min_child_weight": 0.5},
]


@pytest.mark.parametrize("extra", VARIATIONS, ids=lambda d: ",".join(d) or "defaults")
def test_regression_scores_equal_lightgbm_on_diabetes(extra):
    X, y = load_diabetes(return_X_y=True)
    X = X + 5.0
    ours, theirs = _pair("reg", **{**SMALL, **extra})
    ours.fit(X[:350], y[:350])
    theirs.fit(X[:350], y[:350])
    # training and held-out rows
    assert _relative(lightgbm_raw(ours, X), lightgbm_raw(theirs, X)) < 1e-6


@pytest.mark.parametrize("extra", VARIATIONS, ids=lambda d: ",".join(d) or "defaults")
def test_binary_scores_equal_lightgbm_on_breast_cancer(extra):
    X, y = load_breast_cancer(return_X_y=True)
    X = X + 5.0
    ours, theirs = _pair("clf", **{**SMALL, **extra})
    ours.fit(X[:450], y[:450])
    theirs.fit(X[:450], y[:450])
    assert _relative(lightgbm_raw(ours, X), lightgbm_raw(theirs, X)) < 1e-6


def test_binary_scores_equal_lightgbm_on_higgs_with_default_bins():
    """Real data with thousands of distinct values: LightGBM's greedy bins, min_data_in_bin=3."""
    X, y = _higgs()
    X = X - X.min(axis=0) + 1.0
    ours = LightGBMClassifier(n_estimators=20, num_leaves=31, n_jobs=1)
    theirs = lightgbm.LGBMClassifier(
        n_estimators=20, num_leaves=31, **{**DETERMINISTIC, "min_data_in_bin": 3}
    )
    ours.fit(X[:2000], y[:2000])
    theirs.fit(X[:2000], y[:2000])
    assert _relative(lightgbm_raw(ours, X), lightgbm_raw(theirs, X)) < 1e-6


def test_multiclass_scores_equal_lightgbm_on_wine_and_covertype():
    X, y = load_wine(return_X_y=True)
    ours, theirs = _pair("clf", **SMALL)
    ours.fit(X + 5.0, y)
    theirs.fit(X + 5.0, y)
    assert _relative(lightgbm_raw(ours, X + 5.0), lightgbm_raw(theirs, X + 5.0)) < 1e-6
    X, y = load_covertype(return_X_y=True)
    rows = np.random.default_rng(1).choice(len(y), size=3000, replace=False)
    X = np.asarray(X, dtype=float)[rows] + 1.0
    y = np.asarray(y)[rows]
    ours, theirs = _pair("clf", n_estimators=8, num_leaves=24, min_child_samples=10)
    ours.fit(X, y)
    theirs.fit(X, y)
    assert _relative(lightgbm_raw(ours, X), lightgbm_raw(theirs, X)) < 1e-6


@pytest.mark.parametrize("share", [0.05, 0.3])
def test_scores_with_missing_values_equal_lightgbm(share):
    """NaN in training (a missing bin, both scan directions) and NaN at prediction only."""
    rng = np.random.default_rng(7)
    X, y = load_breast_cancer(return_X_y=True)
    X = X + 5.0
    X[rng.random(X.shape) < share] = np.nan
    X[:, 3] = np.where(np.isnan(X[:, 3]), 7.0, X[:, 3])  # a feature without NaN in training
    ours, theirs = _pair("clf", **SMALL)
    ours.fit(X[:450], y[:450])
    theirs.fit(X[:450], y[:450])
    test = X[450:].copy()
    test[:, 3] = np.nan  # LightGBM reads it as 0 for a feature trained without NaN
    assert _relative(lightgbm_raw(ours, X), lightgbm_raw(theirs, X)) < 1e-6
    assert _relative(lightgbm_raw(ours, test), lightgbm_raw(theirs, test)) < 1e-6


def test_trees_equal_lightgbm_dump_model():
    X, y = load_breast_cancer(return_X_y=True)
    X = X + 5.0
    ours, theirs = _pair("clf", n_estimators=5, num_leaves=12, min_child_samples=8)
    ours.fit(X, y)
    theirs.fit(X, y)
    dumped = theirs.booster_.dump_model()["tree_info"]
    for tree, info in zip((stage[0] for stage in ours.trees_), dumped, strict=True):
        splits = []

        def walk(node, splits=splits):
            if "split_feature" in node:
                splits.append((node["split_feature"], node["threshold"]))
                walk(node["left_child"])
                walk(node["right_child"])

        walk(info["tree_structure"])

        ours_splits = []

        def ours_walk(i, out=ours_splits, tree=tree):
            if tree.feature[i] >= 0:
                out.append((int(tree.feature[i]), float(tree.threshold[i])))
                ours_walk(tree.first_child[i])
                ours_walk(tree.first_child[i] + 1)

        ours_walk(0)
        assert [f for f, _ in splits] == [f for f, _ in ours_splits]
        assert np.allclose([t for _, t in splits], [t for _, t in ours_splits], rtol=1e-15)
        assert tree.n_leaves == info["num_leaves"]


def test_leaf_output_minimises_the_objective_and_gain_is_its_decrease():
    rng = np.random.default_rng(0)
    G, H = rng.normal(size=20), rng.uniform(0.5, 3.0, size=20)
    params = LeafwiseParams(reg_lambda=0.7, reg_alpha=0.2)
    w = leaf_output(G, H, params)
    grid = np.linspace(-5, 5, 20001)[:, None]
    objective = G * grid + 0.5 * (H + 0.7) * grid**2 + 0.2 * np.abs(grid)
    assert np.allclose(w, grid[np.argmin(objective, axis=0), 0], atol=1e-3)
    # The worth is twice the decrease of the objective from w = 0.
    decrease = -(G * w + 0.5 * (H + 0.7) * w**2 + 0.2 * np.abs(w))
    assert np.allclose(leaf_gain(G, H, params), 2 * decrease)


def _one_leaf(g, h, codes, n_bins, params, has_missing=False):
    stride = n_bins + 1
    hist = np.zeros((1, 1, stride, 2))
    np.add.at(hist[0, 0, :, 0], codes, g)
    np.add.at(hist[0, 0, :, 1], codes, h)
    totals = np.array([[g.sum(), h.sum()]])
    return find_leaf_splits(
        hist, totals, np.array([g.size]), np.array([n_bins]), np.array([has_missing]), params
    )


def test_min_child_samples_is_checked_on_counts_estimated_from_hessians():
    """A child of 6 rows whose hessians are small is rejected: its estimate is below 5."""
    codes = np.array([0] * 6 + [1] * 14)
    h = np.where(codes == 0, 0.01, 0.5)
    g = np.where(codes == 0, -1.0, 1.0)
    params = LeafwiseParams(min_child_samples=5, min_child_weight=0.0)
    estimate = np.floor(0.06 * 20 / (h.sum()) + 0.5)
    assert estimate < 5  # the left child's estimated count
    assert not np.isfinite(_one_leaf(g, h, codes, 2, params).gain[0])
    # With unit hessians the estimate is the count, and the split is taken.
    assert np.isfinite(_one_leaf(g, np.ones(20), codes, 2, params).gain[0])


def test_reverse_scan_keeps_the_largest_threshold_at_ties():
    codes = np.array([0, 0, 3, 3])  # bins 1 and 2 are empty: cuts after 0, 1, 2 tie
    g = np.array([-1.0, -1.0, 1.0, 1.0])
    found = _one_leaf(g, np.ones(4), codes, 4, LeafwiseParams(min_child_samples=1))
    assert found.split_bin[0] == 2
    assert found.default_left[0]


def test_zero_gets_its_own_bin_and_bounds_are_next_after_midpoints():
    bounds, missing = bin_upper_bounds(np.array([-2.0, -1.0, 0.0, 0.0, 1.0, 3.0]), 255, 1)
    assert not missing
    assert bounds[0] == np.nextafter(-1.5, np.inf)
    assert -ZERO_THRESHOLD in bounds
    assert ZERO_THRESHOLD in bounds
    assert bounds[-2] == np.nextafter(2.0, np.inf)
    assert np.isinf(bounds[-1])
    _, missing = bin_upper_bounds(np.array([1.0, np.nan]), 255, 1)
    assert missing


def test_bagging_and_feature_sampling_are_seeded():
    X, y = load_breast_cancer(return_X_y=True)
    kwargs = {"n_estimators": 10, "subsample": 0.6, "subsample_freq": 1, "colsample_bytree": 0.5}
    a = LightGBMClassifier(random_state=3, **kwargs).fit(X, y)
    b = LightGBMClassifier(random_state=3, **kwargs).fit(X, y)
    c = LightGBMClassifier(random_state=4, **kwargs).fit(X, y)
    assert np.array_equal(a.predict_proba(X), b.predict_proba(X))
    assert not np.array_equal(a.predict_proba(X), c.predict_proba(X))
    assert a.score(X, y) > 0.95


def test_training_stops_when_no_leaf_can_split_as_lightgbm():
    X = np.tile(np.arange(4.0) + 1, 10)[:, None]
    y = np.full(40, 2.5)  # nothing to learn: no split gains anything in round 1
    ours, theirs = _pair(
        "reg", n_estimators=50, num_leaves=4, min_child_samples=1, learning_rate=1.0
    )
    ours.fit(X, y)
    theirs.fit(X, y)
    assert ours.n_estimators_ == theirs.booster_.num_trees()
    assert _relative(ours.predict(X), theirs.predict(X)) < 1e-9


def test_early_stopping_keeps_the_best_round():
    X, y = _higgs(2000, seed=2)
    model = LightGBMClassifier(n_estimators=300, learning_rate=0.3, early_stopping_rounds=5)
    model.fit(X[:1500], y[:1500], eval_set=[(X[1500:], y[1500:])])
    history = model.evals_result_["valid_0"]["binary_logloss"]
    assert model.n_estimators_ < 300
    assert model.best_iteration_ == int(np.argmin(history))
    assert len(history) == model.best_iteration_ + 1 + 5
    staged = list(model.staged_predict_proba(X[1500:]))
    assert np.allclose(staged[model.best_iteration_], model.predict_proba(X[1500:]))


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"num_leaves": 1}, "num_leaves"),
        ({"learning_rate": 0}, "learning_rate"),
        ({"subsample": 1.5}, "subsample"),
        ({"max_depth": 2.5}, "max_depth"),
        ({"min_child_samples": -1}, "min_child_samples"),
        ({"max_bin": 1}, "max_bin"),
    ],
)
def test_bad_parameters_are_named(kwargs, match):
    X, y = load_breast_cancer(return_X_y=True)
    with pytest.raises(ValueError, match=match):
        LightGBMClassifier(**kwargs).fit(X, y)


def test_bad_input_is_refused_clearly():
    X, y = load_breast_cancer(return_X_y=True)
    with pytest.raises(ValueError, match="inf"):
        LightGBMClassifier(n_estimators=2).fit(np.where(X > 100, np.inf, X), y)
    with pytest.raises(ValueError, match="1 class"):
        LightGBMClassifier(n_estimators=2).fit(X, np.zeros(len(y)))
    model = LightGBMClassifier(n_estimators=2).fit(X, y)
    with pytest.raises(ValueError, match="features"):
        model.predict(X[:, :5])
    with pytest.raises(ValueError, match="eval_set"):
        LightGBMRegressor(early_stopping_rounds=3).fit(X, y)


def test_goss_equals_plain_boosting_for_the_first_rounds():
    """LightGBM samples nothing during the first int(1 / learning_rate) rounds."""
    X, y = _higgs(3000, seed=3)
    plain = LightGBMClassifier(n_estimators=8, learning_rate=0.25).fit(X, y)
    goss = LightGBMClassifier(
        n_estimators=8, learning_rate=0.25, data_sample_strategy="goss", random_state=0
    ).fit(X, y)
    staged_plain = list(plain.staged_predict_proba(X))
    staged_goss = list(goss.staged_predict_proba(X))
    for k in range(4):  # rounds 0..3
        assert np.array_equal(staged_plain[k], staged_goss[k])
    assert not np.allclose(staged_plain[7], staged_goss[7])


def test_goss_accuracy_is_within_noise_of_lightgbm_goss():
    """Both draw their random share with their own generator: compare means over seeds."""
    X, y = _higgs(7000, seed=4)
    train, test = slice(0, 5000), slice(5000, None)
    params = {"n_estimators": 60, "num_leaves": 31, "data_sample_strategy": "goss"}
    ours, theirs = [], []
    for seed in range(4):
        a = LightGBMClassifier(random_state=seed, **params).fit(X[train], y[train])
        b = lightgbm.LGBMClassifier(random_state=seed, verbose=-1, **params)
        b.fit(X[train], y[train])
        ours.append(a.score(X[test], y[test]))
        theirs.append(b.score(X[test], y[test]))
    # Standard error of a difference of two means of 4 accuracies on 2000 rows each.
    se = np.sqrt(np.var(ours, ddof=1) / 4 + np.var(theirs, ddof=1) / 4 + 2 * 0.25 / 2000)
    assert abs(np.mean(ours) - np.mean(theirs)) < 3 * se


def _one_hot_sparse(n=3000, groups=12, levels=8, seed=0):
    rng = np.random.default_rng(seed)
    codes = rng.integers(0, levels, size=(n, groups))
    X = np.zeros((n, groups * levels))
    X[np.arange(n)[:, None], codes + levels * np.arange(groups)] = 1.0
    logit = (codes[:, 0] % 3) - (codes[:, 1] == 2) + 0.5 * (codes[:, 2] > 4)
    y = (rng.random(n) < 1 / (1 + np.exp(-logit))).astype(int)
    return X, y


def test_bundling_is_lossless_at_zero_conflict_rate():
    X, y = _one_hot_sparse()
    on = LightGBMClassifier(n_estimators=20, enable_bundle=True).fit(X, y)
    off = LightGBMClassifier(n_estimators=20, enable_bundle=False).fit(X, y)
    assert on.n_bundles_ < X.shape[1] / 4  # 12 groups of 8 exclusive columns
    assert off.n_bundles_ == X.shape[1]  # every one-hot column is usable here
    assert np.allclose(on.predict_proba(X), off.predict_proba(X), rtol=0, atol=1e-12)
    # The same split features everywhere, not only the same predictions.
    for a, b in zip(on.trees_, off.trees_, strict=True):
        assert np.array_equal(a[0].feature, b[0].feature)


def _lightgbm_layout(X, y, **params):
    """LightGBM's own data-set layout: (used features, [(features, multi-valued) per group]).

    Read from the binary file ``Dataset.save_binary`` writes (LightGBM 4,
    ``Dataset::SaveBinaryFile``): an 8-byte aligned token, the header (its
    size first; the number of used features is its second field), the
    metadata (its size first), then per feature group its size and the
    group, which starts with ``is_multi_val_`` and, 24 bytes on,
    ``num_feature_`` (``FeatureGroup::SerializeToBinary``, 8-byte aligned
    fields).
    """
    import struct
    import tempfile
    from pathlib import Path

    import lightgbm as lgb

    dataset = lgb.Dataset(X, y, params={"verbose": -1, **params}).construct()
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "layout.bin"
        dataset.save_binary(str(path))
        raw = path.read_bytes()
    token = b"______LightGBM_Binary_File_Token______\n"
    assert raw.startswith(token)
    pos = -(-len(token) // 8) * 8
    (header_size,) = struct.unpack_from("<Q", raw, pos)
    (n_used,) = struct.unpack_from("<i", raw, pos + 8 + 8)
    pos += 8 + header_size
    (metadata_size,) = struct.unpack_from("<Q", raw, pos)
    pos += 8 + metadata_size
    groups = []
    while pos < len(raw):
        (group_size,) = struct.unpack_from("<Q", raw, pos)
        (n_features,) = struct.unpack_from("<i", raw, pos + 8 + 24)
        groups.append((n_features, raw[pos + 8] != 0))
        pos += 8 + group_size
    assert sum(n for n, _ in groups) == n_used
    return n_used, groups


def test_n_bundles_counts_lightgbm_histogram_columns():
    """``n_bundles_`` against LightGBM's own layout, on one-hot Adult.

    4500 rows of 105 one-hot columns: LightGBM drops the features no cut of
    which leaves 20 rows on both sides, bundles others into single-valued
    groups and keeps one multi-valued group whose features mltrees stores as
    its own columns. Histograms are built on one column per single-valued
    group and one per feature of the multi-valued group; none for the
    dropped features.
    """
    from mltrees.datasets import load_adult

    X, y = load_adult(return_X_y=True)
    X = pd.get_dummies(X.iloc[:4500]).to_numpy(float)
    y = (np.asarray(y)[:4500] == ">50K").astype(int)
    n_used, groups = _lightgbm_layout(X, y, min_data_in_leaf=20)
    # The case covers both: dropped features and a multi-valued group.
    assert n_used < X.shape[1]
    assert any(multi for _, multi in groups)
    columns = sum(n if multi else 1 for n, multi in groups)
    on = LightGBMClassifier(n_estimators=1, min_child_samples=20).fit(X, y)
    off = LightGBMClassifier(n_estimators=1, min_child_samples=20, enable_bundle=False).fit(X, y)
    assert on.n_bundles_ == columns < n_used
    assert off.n_bundles_ == n_used


# ----------------------------------------------------------------- categorical


def _adult(n=4000):
    from mltrees.datasets import load_adult

    X, y = load_adult(return_X_y=True)
    X = pd.DataFrame(X).iloc[:n].copy()
    for c in X.columns:
        if pd.api.types.is_numeric_dtype(X[c]):
            X[c] = X[c].astype(float) + 1.0
    return X, np.asarray(y)[:n]


@pytest.mark.parametrize(
    "extra",
    [{}, {"cat_smooth": 1.0, "min_data_per_group": 10}, {"max_cat_to_onehot": 10}],
    ids=["defaults", "smooth1-group10", "onehot10"],
)
def test_categorical_scores_equal_lightgbm_on_adult(extra):
    """Seven unordered category columns (many-vs-many and one-vs-rest); `education` is ordered."""
    X, y = _adult()
    ours, theirs = _pair("clf", **{**SMALL, **extra})
    ours.fit(X.iloc[:3000], y[:3000])
    theirs.fit(X.iloc[:3000], y[:3000])
    assert _relative(lightgbm_raw(ours, X), lightgbm_raw(theirs, X)) < 1e-6


def test_categorical_codes_with_missing_negative_and_unseen_values_equal_lightgbm():
    rng = np.random.default_rng(5)
    n = 3000
    city = rng.integers(0, 30, size=n).astype(float)
    colour = rng.integers(0, 3, size=n).astype(float)
    x = rng.normal(size=n) + 3.0
    logit = np.sin(city) + (colour == 1) + 0.5 * x
    y = (rng.random(n) < 1 / (1 + np.exp(-logit))).astype(int)
    city[rng.random(n) < 0.05] = np.nan
    city[rng.random(n) < 0.02] = -1.0  # LightGBM reads a negative category as missing
    X = np.column_stack([city, colour, x])
    ours, theirs = _pair("clf", **SMALL)
    ours.set_params(categorical_feature=[0, 1])
    ours.fit(X, y)
    theirs.fit(X, y, categorical_feature=[0, 1])
    test = X[:200].copy()
    test[:50, 0] = 45.0  # a category never seen in training goes right
    test[50:60, 1] = np.nan
    assert _relative(lightgbm_raw(ours, X), lightgbm_raw(theirs, X)) < 1e-6
    assert _relative(lightgbm_raw(ours, test), lightgbm_raw(theirs, test)) < 1e-6


def _literal_categorical_scan(G, H, n_bins, sum_G, sum_H, n, lam, mcs, cat):
    """LightGBM's FindBestThresholdCategoricalInner read bin by bin: the reference."""
    eps = float(np.float32(1e-15))
    sum_H = sum_H + 2 * eps

    def worth(g, h, l2):
        return g * g / (h + l2)

    def round_int(v):
        return int(np.floor(v + 0.5))

    shift = worth(sum_G, sum_H, lam)
    factor = n / sum_H
    best, best_set = -np.inf, None
    if n_bins <= cat.max_cat_to_onehot:
        for t in range(1, n_bins):
            c = round_int(H[t] * factor)
            other_h = sum_H - H[t] - eps
            if c < mcs or n - c < mcs or H[t] < 1e-3 or other_h < 1e-3:
                continue
            gain = worth(sum_G - G[t], other_h, lam) + worth(G[t], H[t] + eps, lam)
            if gain > shift and gain > best:
                best, best_set = gain, [t]
        return best, best_set
    idx = [i for i in range(1, n_bins) if round_int(H[i] * factor) >= cat.cat_smooth]
    idx.sort(key=lambda i: G[i] / (H[i] + cat.cat_smooth))
    used, l2 = len(idx), lam + cat.cat_l2
    for order in (idx, idx[::-1]):
        group, lg, lh, lc = 0, 0.0, eps, 0
        for i in range(min(used, cat.max_cat_threshold, (used + 1) // 2)):
            t = order[i]
            c = round_int(H[t] * factor)
            lg, lh, lc, group = lg + G[t], lh + H[t], lc + c, group + c
            if lc < mcs or lh < 1e-3:
                continue
            if n - lc < mcs or n - lc < cat.min_data_per_group or sum_H - lh < 1e-3:
                break
            if group < cat.min_data_per_group:
                continue
            group = 0
            gain = worth(lg, lh, l2) + worth(sum_G - lg, sum_H - lh, l2)
            if gain > shift and gain > best:
                best, best_set = gain, sorted(order[: i + 1])
    return best, best_set


def test_categorical_scan_equals_a_literal_reading_of_lightgbm():
    rng = np.random.default_rng(0)
    for _ in range(200):
        n_bins, n = int(rng.integers(2, 20)), int(rng.integers(50, 3000))
        codes = rng.integers(0, n_bins, size=n)
        g = rng.normal(size=n) + 0.5 * (codes % 3 == 0)
        h = rng.uniform(0.05, 0.25, size=n)
        G, H = np.bincount(codes, g, n_bins), np.bincount(codes, h, n_bins)
        lam = float(rng.choice([0.0, 1.0]))
        mcs = int(rng.choice([5, 20]))
        cat = CategoricalParams(
            cat_smooth=float(rng.choice([1.0, 10.0])),
            max_cat_threshold=int(rng.choice([2, 32])),
            min_data_per_group=int(rng.choice([10, 100])),
        )
        totals = np.array([[np.cumsum(g)[-1], np.cumsum(h)[-1]]])
        expected, expected_set = _literal_categorical_scan(
            G, H, n_bins, totals[0, 0], totals[0, 1], n, lam, mcs, cat
        )
        found = find_categorical_splits(
            np.stack([G, H], -1)[None, None],
            totals,
            np.array([n]),
            np.array([n_bins]),
            LeafwiseParams(reg_lambda=lam, min_child_samples=mcs),
            cat,
            np.ones((1, 1), dtype=bool),
        )
        if np.isinf(expected):
            assert np.isinf(found.gain[0, 0])
        else:
            assert found.gain[0, 0] == pytest.approx(expected, rel=1e-12)
            assert np.flatnonzero(found.left[0, 0]).tolist() == expected_set


def test_sorting_by_gradient_ratio_finds_the_best_subset_without_regularisation():
    """Fisher (1958): with λ = 0 a prefix of the G/H order is the best of the 2^(k-1) - 1 splits."""
    from itertools import combinations

    rng = np.random.default_rng(1)
    for _ in range(30):
        k = int(rng.integers(3, 9))
        G, H = rng.normal(size=k), rng.uniform(0.5, 2.0, size=k)
        best = max(
            (G[list(s)].sum() ** 2 / H[list(s)].sum())
            + ((G.sum() - G[list(s)].sum()) ** 2 / (H.sum() - H[list(s)].sum()))
            for r in range(1, k)
            for s in combinations(range(k), r)
        )
        order = np.argsort(G / H)
        prefix = max(
            G[order[:r]].sum() ** 2 / H[order[:r]].sum()
            + (G.sum() - G[order[:r]].sum()) ** 2 / (H.sum() - H[order[:r]].sum())
            for r in range(1, k)
        )
        assert prefix == pytest.approx(best, rel=1e-12)


def _one_tree_per_bin(model, x):
    """One tree fitted to y = x, one row per leaf allowed: one prediction per bin of x."""
    model.set_params(
        n_estimators=1, learning_rate=1.0, num_leaves=512, min_child_samples=1, min_child_weight=0.0
    )
    return model.fit(x[:, None], x).predict(x[:, None])


@pytest.mark.parametrize(
    ("case", "x", "n_bins", "n_groups"),
    [
        # zero's empty bin leaves 254 bins for 255 positive values: two share a bin
        ("255 positive values", np.repeat(np.arange(1.0, 256.0), 10), 255, 254),
        # the negative side holds 1 % of the rows: floor(50 / 5050 * 254) = 2 bins for 10 values
        (
            "rare negative side",
            np.r_[np.repeat(-np.arange(1.0, 11.0), 5), np.repeat(np.arange(1.0, 101.0), 50)],
            103,
            102,
        ),
        # 2, 3 and 4 are rarer than min_data_in_bin = 3 and share a bin
        ("rare values", np.repeat([1.0, 2.0, 3.0, 4.0, 5.0], [40, 1, 1, 1, 40]), 4, 3),
    ],
)
def test_zero_bin_and_proportional_sides_group_values_as_lightgbm(case, x, n_bins, n_groups):
    from mltrees.hist.lightgbm.binning import fit_lightgbm_bins

    codes = fit_lightgbm_bins(x[:, None], max_bin=255)[0]
    library = lightgbm.Dataset(x[:, None], x, params={"verbose": -1}).construct()
    assert codes.n_bins[0] == library.feature_num_bin(0) == n_bins, case
    ours = _one_tree_per_bin(LightGBMRegressor(n_jobs=1), x)
    theirs = _one_tree_per_bin(lightgbm.LGBMRegressor(verbose=-1, n_jobs=1), x)
    np.testing.assert_allclose(ours, theirs, rtol=1e-6, atol=1e-6)
    assert len(np.unique(ours)) == n_groups, case


def test_missing_values_take_a_bin_so_254_values_share_253_bins_as_lightgbm():
    """With NaN present, max_bin - 1 = 254 bins minus the missing one: two of 254 values share."""
    values = np.repeat(np.arange(1.0, 255.0), 10)
    x = np.r_[values, np.full(10, np.nan)]
    y = np.nan_to_num(x, nan=0.0)
    library = lightgbm.Dataset(x[:, None], y, params={"verbose": -1}).construct()
    assert library.feature_num_bin(0) == 255  # 254 for the values (zero's included) + NaN's
    settings = {"n_estimators": 1, "learning_rate": 1.0, "num_leaves": 512, "min_child_samples": 1}
    ours = LightGBMRegressor(n_jobs=1, min_child_weight=0.0, **settings).fit(x[:, None], y)
    theirs = lightgbm.LGBMRegressor(verbose=-1, n_jobs=1, min_child_weight=0.0, **settings)
    theirs.fit(x[:, None], y)
    predicted = ours.predict(values[:, None])
    np.testing.assert_allclose(predicted, theirs.predict(values[:, None]), rtol=1e-6, atol=1e-6)
    assert len(np.unique(predicted)) == 253


@pytest.mark.parametrize(("n_missing", "kept"), [(0, [0, 1]), (2, [0, 1, 2])])
def test_rarest_category_has_no_bin_when_the_others_cover_99_percent(n_missing, kept):
    # 600, 300 and 5 rows: the first two cover 99.4 %; bins are capped at the number of
    # categories (plus one with missing values), so the third gets a bin only with NaN rows.
    values = np.r_[np.repeat([0.0, 1.0, 2.0], [600, 300, 5]), np.full(n_missing, np.nan)]
    ours = category_bins(values, max_bin=255, min_data_in_bin=3)
    library = lightgbm.Dataset(
        values[:, None], np.zeros(values.size), categorical_feature=[0], params={"verbose": -1}
    ).construct()
    assert ours.tolist() == kept
    assert 1 + ours.size == library.feature_num_bin(0)


def test_category_bins_keep_frequent_categories_and_pool_the_rare():
    values = np.array([5.0] * 50 + [2.0] * 30 + [9.0] * 30 + [7.0] * 2 + [np.nan] * 3 + [-4.0])
    categories = category_bins(values, max_bin=255, min_data_in_bin=3)
    assert categories.tolist() == [5, 2, 9]  # by count, ties by value; 7 is too rare
    codes = encode_categories(np.array([5.0, 9.0, 7.0, np.nan, -4.0, 11.0]), categories)
    assert codes.tolist() == [1, 3, 0, 0, 0, 0]


def test_bad_categorical_feature_is_refused():
    X, y = load_breast_cancer(return_X_y=True)
    with pytest.raises(ValueError, match="integer category codes"):
        LightGBMClassifier(n_estimators=2, categorical_feature=[0]).fit(X, y)
    with pytest.raises(ValueError, match="column index"):
        LightGBMClassifier(n_estimators=2, categorical_feature=[99]).fit(X, y)


def test_tree_shap_equals_lightgbm_pred_contrib_with_categories():
    """TreeSHAP on mltrees' LightGBM (row counts as covers) equals LightGBM's own contributions."""
    from mltrees.inspection import tree_shap

    X, y = _adult(3000)
    ours, theirs = _pair("clf", n_estimators=10, num_leaves=16, min_child_samples=5)
    ours.fit(X, y)
    theirs.fit(X, y)
    explained = tree_shap(ours, X.iloc[:300])
    contributions = theirs.predict(X.iloc[:300], pred_contrib=True)
    assert np.abs(explained.values - contributions[:, :-1]).max() < 1e-9
    assert np.abs(explained.expected_value - contributions[:, -1]).max() < 1e-9


def test_importances_equal_lightgbm_split_counts_and_gains():
    from mltrees.inspection import importance

    X, y = _adult(3000)
    ours, theirs = _pair("clf", n_estimators=10, num_leaves=16, min_child_samples=5)
    ours.fit(X, y)
    theirs.fit(X, y)
    booster = theirs.booster_
    assert np.array_equal(importance(ours, kind="split"), booster.feature_importance("split"))
    # lightgbm's estimator reloads its booster from the model text, which writes each
    # split gain with 6 significant digits: a few 1e-6 relative.
    gains = booster.feature_importance("gain")
    assert np.allclose(importance(ours, kind="total_gain"), gains, rtol=1e-5, atol=0)
    ours.set_params(importance_type="gain")
    assert np.allclose(ours.feature_importances_, gains, rtol=1e-5, atol=0)


def test_rows_follow_the_bundles_view_when_bundled_features_conflict():
    """With conflicts allowed, every leaf's value is -G/𝓗 of the rows that end in it.

    A conflicting row keeps one feature's value in its bundle, and the other
    features see their default bin there; the rows must be partitioned by that
    view, or histograms got by subtraction stop summing their own rows.
    """
    from mltrees.hist.lightgbm.binning import fit_lightgbm_bins
    from mltrees.hist.lightgbm.leafwise import LeafwiseGrower

    rng = np.random.default_rng(7)
    n, p = 2000, 60
    X = (rng.random((n, p)) < rng.uniform(0.01, 0.05, p)).astype(np.float64)
    data, has_missing, most_frequent = fit_lightgbm_bins(X)
    g, h = rng.normal(size=n) + 2 * X[:, 0] - X[:, 5], rng.uniform(0.5, 1.5, n)
    params = LeafwiseParams(min_child_samples=5)
    grower = LeafwiseGrower(
        data,
        has_missing,
        params,
        most_frequent_bin=most_frequent,
        num_leaves=16,
        bundle=True,
        max_conflict_rate=0.05,
    )
    assert grower.n_columns < p
    grown = grower.grow(g, h)
    leaves = np.unique(grown.leaf_of_row)
    assert leaves.size > 4
    G = np.bincount(grown.leaf_of_row, g, minlength=grown.weight.size)[leaves]
    H = np.bincount(grown.leaf_of_row, h, minlength=grown.weight.size)[leaves]
    np.testing.assert_allclose(grown.weight[leaves], -G / H, rtol=1e-9)


def test_categorical_scan_without_smoothing_is_silent_and_finds_fishers_prefix():
    """cat_smooth = 0 is allowed: an empty bin must not warn, and λ = 0 gives the best subset."""
    import warnings

    G = np.array([0.0, 3.0, -2.0, 1.0, -4.0, 0.5])
    H = np.array([0.0, 2.0, 3.0, 1.0, 2.0, 4.0])  # bin 0 (missing) is empty
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        found = find_categorical_splits(
            np.stack([G, H], -1)[None, None],
            np.array([[G.sum(), H.sum()]]),
            np.array([100]),
            np.array([G.size]),
            LeafwiseParams(min_child_samples=1, min_child_weight=0.0),
            CategoricalParams(
                cat_smooth=0.0, cat_l2=0.0, min_data_per_group=1, max_cat_to_onehot=1
            ),
            np.ones((1, 1), dtype=bool),
        )
    # by hand: categories 2 and 4 (G = -6, 𝓗 = 5) against the rest (G = 4.5, 𝓗 = 7)
    assert np.flatnonzero(found.left[0, 0]).tolist() == [2, 4]
    assert found.gain[0, 0] == pytest.approx(36 / 5 + 4.5**2 / 7, rel=1e-12)


def test_verbose_prints_the_watched_metric_every_verbose_rounds(capsys):
    X, y = load_breast_cancer(return_X_y=True)
    model = LightGBMClassifier(n_estimators=6, verbose=3)
    model.fit(X[:400], y[:400], eval_set=[(X[400:], y[400:])])
    captured = capsys.readouterr()
    assert captured.err == ""
    lines = captured.out.strip().splitlines()
    assert [line.split()[:3] for line in lines] == [
        ["[LightGBMClassifier]", "round", "3/6"],
        ["[LightGBMClassifier]", "round", "6/6"],
    ]
    history = model.evals_result_["valid_0"]["binary_logloss"]
    assert f"valid_0: {history[2]:.6g}" in lines[0]
    LightGBMClassifier(n_estimators=3).fit(X, y)  # silent by default
    assert capsys.readouterr() == ("", "")


@pytest.mark.parametrize("n_rows", [None, 0, 12, 300, 34_000])
@pytest.mark.parametrize("scatter", ["off", "default", "small blocks, threaded"])
def test_leaf_histogram_sums_every_bin_in_row_order_on_every_path(n_rows, scatter, monkeypatch):
    """All-rows, one-bincount (small node), gathered, threaded and scatter histograms: one result.

    Each path must sum a bin's rows in row order, so its entries equal a
    plain per-feature ``bincount`` bit for bit (equal trees need equal sums).
    The scatter path (SciPy's sparse kernel) is run with its defaults, and
    with blocks of 7 rows and threads from the first row, so that its
    blocks and its split of the features are both exercised.
    """
    from concurrent.futures import ThreadPoolExecutor

    from mltrees.hist import histogram
    from mltrees.hist.histogram import leaf_histogram

    if scatter == "off":
        monkeypatch.setattr(histogram, "csc_matvecs", None)
    elif scatter == "small blocks, threaded":
        monkeypatch.setattr(histogram, "SCATTER_BLOCK_ROWS", 7)
        monkeypatch.setattr(histogram, "SCATTER_THREADED", 1)

    rng = np.random.default_rng(3)
    n, stride = 40_000, 9
    codes = rng.integers(0, stride, size=(6, n)).astype(np.uint8)
    g = rng.normal(size=n) * 10.0 ** rng.integers(-6, 6, size=n)  # rounding shows any reorder
    h = rng.uniform(0.0, 1.0, n)
    rows = None if n_rows is None else np.sort(rng.choice(n, n_rows, replace=False))
    features = np.array([0, 2, 3, 5])
    taken = codes if rows is None else codes[:, rows]
    expected = np.zeros((6, stride, 2))
    for j in features:
        for s, w in enumerate((g, h)):
            expected[j, :, s] = np.bincount(
                taken[j], weights=w if rows is None else w[rows], minlength=stride
            )
    row_major = np.ascontiguousarray(codes.T)
    with ThreadPoolExecutor(2) as executor:
        for extra in ({}, {"row_major": row_major}, {"row_major": row_major, "n_tasks": 2}):
            tasks = extra.get("n_tasks", 1)
            extra = {k: v for k, v in extra.items() if k != "n_tasks"}
            got = leaf_histogram(codes, stride, rows, (g, h), features, executor, tasks, **extra)
            np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize("enable_bundle", [False, True])
def test_waiting_leaves_keep_only_the_fillable_histogram_cells(enable_bundle, monkeypatch):
    """One-hot columns have 2 bins in a stride of 256: waiting leaves keep only those cells.

    The model is the one grown with full histograms, bit for bit.
    """
    from mltrees.hist.lightgbm.leafwise import LeafwiseGrower

    rng = np.random.default_rng(31)
    levels = rng.integers(0, 6, size=(3000, 8))
    onehot = (levels[:, :, None] == np.arange(6)).reshape(3000, -1).astype(np.float64)
    numeric = rng.normal(size=(3000, 2))
    numeric[rng.random(3000) < 0.1, 1] = np.nan
    X = np.hstack([onehot, numeric])
    y = (onehot[:, 0] + onehot[:, 7] + numeric[:, 0] + rng.normal(size=3000) > 1.2).astype(int)
    params = {"n_estimators": 6, "num_leaves": 31, "enable_bundle": enable_bundle}
    cells, n_built = [], []
    histogram_cells, histogram = LeafwiseGrower._histogram_cells, LeafwiseGrower._histogram

    def spy_cells(self):
        cells.append(histogram_cells(self))
        return cells[-1]

    def spy_histogram(self, *args):
        built = histogram(self, *args)
        # Every cell a row filled survives packing: the missing bin, every value bin.
        np.testing.assert_array_equal(self._unpack(self._pack(built)), built)
        n_built.append(1)
        return built

    monkeypatch.setattr(LeafwiseGrower, "_histogram_cells", spy_cells)
    monkeypatch.setattr(LeafwiseGrower, "_histogram", spy_histogram)
    packed = LightGBMClassifier(**params).fit(X, y)
    assert cells[-1] is not None
    assert cells[-1].size < 0.1 * X.shape[1] * 2 * 256
    assert len(n_built) > 6 * 10
    monkeypatch.setattr(LeafwiseGrower, "_histogram_cells", lambda self: None)
    full = LightGBMClassifier(**params).fit(X, y)
    assert sum(t.node_count for stage in full._trees for t in stage) > 6 * 20
    np.testing.assert_array_equal(packed.decision_function(X), full.decision_function(X))
    for a, b in zip(packed._trees, full._trees, strict=True):
        np.testing.assert_array_equal(a[0].threshold, b[0].threshold)
        np.testing.assert_array_equal(a[0].value, b[0].value)


def test_unseen_pandas_category_at_predict_is_missing_without_a_warning():
    """A category not seen in fit goes where a missing value goes, as in LightGBM; pandas 3
    deprecates building a Categorical from values outside its categories, which predict
    must not do (that deprecation becomes an error in a future pandas)."""
    rng = np.random.default_rng(0)
    colour = pd.Categorical(rng.choice(["red", "green", "blue"], 300))
    X = pd.DataFrame({"colour": colour, "size": rng.normal(size=300)})
    y = (X["colour"] == "red").to_numpy() ^ (X["size"] > 1).to_numpy()
    model = LightGBMClassifier(n_estimators=10, min_child_samples=5).fit(X, y)
    shown = pd.DataFrame(
        {"colour": pd.Categorical(["red", "purple", None, "blue"]), "size": [0.0, 0.0, 0.0, 0.0]}
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        raw = model.decision_function(shown)
    assert raw[1] == raw[2]  # unseen = missing
    assert raw[0] != raw[3]  # the seen categories still split
