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

from datetime import timedelta

import numpy as np
import pandas as pd
import pytest
from _reference_models import catboost_raw, relative_gap
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
        # l2_leaf_reg = 0 is not drawn: leaf steps then divide by sums that can
        # be 0, and catboost itself stops on MultiClass Newton systems that are
        # not positive definite; see the README's scope.
        "l2_leaf_reg": draw(st.sampled_from([0.1, 0.5, 3.0, 10.0])),
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


def _positive_weights(table: Table):
    """The table's weights (zeros included)."""
    return table.sample_weight


def _catboost_params(params: dict, task: str) -> dict:
    """The drawn parameters under catboost's names, with the task's loss."""
    theirs = dict(params)
    theirs["iterations"] = theirs.pop("n_estimators")
    loss = {"regression": "RMSE", "binary": "Logloss", "multiclass": "MultiClass"}
    theirs["loss_function"] = loss[task]
    return theirs


def _fit_both(table: Table, params: dict, task: str):
    X, X_test, categorical = _frames(table)
    weights = _positive_weights(table)
    ours_kind = ObliviousBoostingRegressor if task == "regression" else ObliviousBoostingClassifier
    ours = ours_kind(has_time=True, cat_features=categorical, **params)
    theirs_params = _catboost_params(params, task)
    if task == "regression":
        theirs = catboost.CatBoostRegressor(**theirs_params, **FIXED)
    else:
        theirs = catboost.CatBoostClassifier(**theirs_params, **FIXED)
    theirs.fit(X, table.y, sample_weight=weights, cat_features=categorical)
    ours.fit(X, table.y, sample_weight=weights)  # after: catboost may refuse the data
    return ours, theirs, X, X_test


def check_equal(recipe: Recipe, params: dict, tally: Tally | None = None):
    """Fit both and compare raw scores on training and held-out rows."""
    table, task = recipe.build(), recipe.task
    if task != "regression" and np.unique(table.y).size < 2:
        # A target of one class: both refuse it.
        X, _, categorical = _frames(table)
        ours = ObliviousBoostingClassifier(has_time=True, cat_features=categorical, **params)
        with pytest.raises(ValueError, match="needs at least 2 classes"):
            ours.fit(X, table.y, sample_weight=_positive_weights(table))
        theirs = catboost.CatBoostClassifier(**_catboost_params(params, task), **FIXED)
        with pytest.raises(catboost.CatBoostError, match="only one unique value"):
            theirs.fit(X, table.y, sample_weight=_positive_weights(table), cat_features=categorical)
        if tally is not None:
            tally.count("both_refuse_one_class_target")
        return
    try:
        ours, theirs, X, X_test = _fit_both(table, params, task)
    except catboost.CatBoostError as error:
        # Every feature constant: catboost refuses the data; mltrees fits the
        # constant model the data support (the README's scope).
        if "All features are either constant or ignored" not in str(error):
            raise
        X, X_test, categorical = _frames(table)
        kind = ObliviousBoostingRegressor if task == "regression" else ObliviousBoostingClassifier
        ours = kind(has_time=True, cat_features=categorical, **params)
        n_float = len(table.kinds) - len(categorical)
        if n_float == 0:  # no column at all: single-category features only
            with pytest.raises(ValueError, match="no feature to split on"):
                ours.fit(X, table.y, sample_weight=_positive_weights(table))
        else:
            ours.fit(X, table.y, sample_weight=_positive_weights(table))
            for frame in (X, X_test):
                raw = np.asarray(catboost_raw(ours, frame))
                assert np.all(raw == raw[:1]), "a model of constant features must be constant"
        if tally is not None:
            tally.count("catboost_refuses_constant_features")
        return
    gap = max(
        relative_gap(catboost_raw(ours, frame), catboost_raw(theirs, frame))
        for frame in (X, X_test)
    )
    if gap > RTOL:
        exception = _exact_tie(table, params, task, ours, theirs)
        assert exception is not None, f"raw scores differ by {gap:.3g} (relative)"
        if tally is not None:
            tally.count(exception)
        return
    if tally is not None:
        tally.count("equal")


TIE_RTOL = 1e-12
"""Two candidate splits whose scores agree to this (relative) are tied in exact
arithmetic: same partition of the rows (duplicate or complementary columns,
splits that move no row), their scores differing by rounding only."""


def _catboost_splits(theirs, ours, X) -> list:
    """catboost's splits of every tree as mltrees' (column, border index), root level first."""
    import json
    import os
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "model.json")
        theirs.save_model(path, format="json")
        with open(path) as handle:
            model = json.load(handle)
    info = model["features_info"]
    flat = []  # catboost's binary features, in its split_index order
    for feature in info.get("float_features", []):
        flat += [("float", feature["feature_index"], b) for b in feature["borders"]]
    for feature in info.get("categorical_features", []):
        flat += [("one-hot", feature["flat_feature_index"], v) for v in feature.get("values", [])]
    for ctr in info.get("ctrs", []):
        flat += [("ctr", ctr, b) for b in ctr["borders"]]
    categorical = [j for j, name in enumerate(X.columns) if X[name].dtype.kind in "iu"]
    pool = catboost.Pool(X, cat_features=categorical)
    n_float = len(ours._borders)
    names = ours._cat_stats.names if ours._cat_stats is not None else []
    trees = []
    for m, tree in enumerate(model["oblivious_trees"]):
        described = theirs._get_tree_splits(m, pool)  # one-hot categories by name
        splits = []
        for level, split in enumerate(tree["splits"] or []):
            kind = split["split_type"]
            if kind == "FloatFeature":
                column = split["float_feature_index"]
                value = np.float32(split["border"])
                border = int(np.flatnonzero(ours._borders[column] == value)[0])
                splits.append((column, border))
            elif kind == "OnlineCtr":
                _, ctr, border = flat[split["split_index"]]
                j = categorical[ctr["elements"][0]["cat_feature_index"]]
                if ctr["ctr_type"] == "Counter":
                    name = f"Counter({j})"
                else:
                    prior = ctr["prior_numerator"]
                    target = ctr["target_border_idx"]
                    name = f"Borders({j}, target border {target}, prior={prior:g})"
                splits.append((n_float + names.index(name), round(border) - 1))
            else:
                feature, category = described[level].split(", value=")
                name = f"{int(feature.lstrip('x'))}={category}"
                splits.append((n_float + names.index(name), 0))
        trees.append(splits)
    return trees


def _exact_tie(table: Table, params: dict, task: str, ours, theirs):
    """Why the models part, if it is a documented exception; None otherwise.

    mltrees is refitted with the score matrices of every level recorded. In
    the first tree that differs, catboost's sequence of chosen splits is
    rebuilt from its model: its splits as they are, or with one more split
    inserted that catboost removed as redundant before stopping (the
    inserted split must then be the first redundant one). At the first
    level where that sequence leaves mltrees' own, catboost's split must
    score within ``TIE_RTOL`` of mltrees' choice ("exact_tie"); or the two
    splits are the two categories of a one-hot feature of two equally
    frequent categories ("one_hot_hash_tie": catboost then asks about the
    category of larger string hash, which mltrees does not compute).
    """
    from mltrees.ensemble import catboost as ours_module
    from mltrees.hist.catboost.oblivious import _first_redundant_level, leaf_index

    X, _, _ = _frames(table)
    theirs_trees = _catboost_splits(theirs, ours, X)
    records: list[tuple] = []
    grow = ours_module.grow_oblivious

    def recording(codes, *args, **kwargs):
        trace: list = []
        out = grow(codes, *args, trace=trace, **kwargs)
        records.append((codes, trace, out))
        return out

    ours_module.grow_oblivious = recording
    try:
        type(ours)(**ours.get_params()).fit(X, table.y, sample_weight=_positive_weights(table))
    finally:
        ours_module.grow_oblivious = grow
    order = ours_module._candidate_order(ours._n_borders, len(ours._borders), ours._cat_stats)
    stats = ours._cat_stats
    n_float = len(ours._borders)

    def redundant_at(codes, splits):
        leaf = leaf_index(codes, [f for f, _ in splits], [b for _, b in splits])
        occupied = np.bincount(leaf, minlength=1 << len(splits)) > 0
        return _first_redundant_level(occupied)

    def hash_tie(split, other):
        if split[0] < n_float or other[0] < n_float:
            return False
        a, b = stats.names[split[0] - n_float], stats.names[other[0] - n_float]
        if "(" in a or "(" in b or a.split("=")[0] != b.split("=")[0]:
            return False
        c = stats.features.index(int(a.split("=")[0]))
        return len(stats.categories[c]) == 2 and stats.count[c][0] == stats.count[c][1]

    for (codes, trace, (feature, border, n_levels)), theirs_splits in zip(
        records, theirs_trees, strict=False
    ):
        mine = list(zip(feature[:n_levels].tolist(), border[:n_levels].tolist(), strict=True))
        theirs_splits = [tuple(split) for split in theirs_splits]
        if mine == theirs_splits:
            continue
        searched = []  # mltrees' split of each level, before any removal
        for scores in trace:
            f, b = divmod(int(np.argmax(scores[order])), scores.shape[1])
            searched.append((int(order[f]), b))
        # catboost's possible searches: its splits, or one removed split put back.
        hypotheses = [(theirs_splits, None)]
        hypotheses += [(theirs_splits, r) for r in range(len(theirs_splits) + 1)]
        for sequence, removed_at in hypotheses:
            length = len(sequence) + (removed_at is not None)
            for t in range(min(length, len(searched))):
                if removed_at is None or t < removed_at:
                    other = sequence[t]
                elif t > removed_at:
                    other = sequence[t - 1]
                else:  # the removed split: mltrees' own or a tied one, redundant there
                    full = [*sequence[:removed_at], searched[t], *sequence[removed_at:]]
                    other = searched[t] if redundant_at(codes, full) == removed_at else None
                if other == searched[t]:
                    continue
                scores = trace[t]
                best = scores[searched[t]]
                tolerance = TIE_RTOL * max(1.0, abs(best))
                if other is not None:
                    if hash_tie(searched[t], other):
                        return "one_hot_hash_tie"
                    if abs(scores[other] - best) <= tolerance:
                        return "exact_tie"
                    break
                for x in zip(*np.nonzero(np.abs(scores - best) <= tolerance), strict=True):
                    x = (int(x[0]), int(x[1]))
                    full = [*sequence[:removed_at], x, *sequence[removed_at:]]
                    if x != searched[t] and redundant_at(codes, full) == removed_at:
                        return "exact_tie"
                break
        return None
    return None


# The quick profile caps each case (its tables are small: a case takes well
# under a second); the long profile lets large draws run.
CASE_TIME_CAP = timedelta(seconds=60) if PROFILE == "difftest-quick" else None
_SETTINGS = settings(parent=settings.get_profile(PROFILE), deadline=CASE_TIME_CAP)


@pytest.mark.parametrize("task", ["regression", "binary", "multiclass"])
def test_raw_scores_equal_catboost(task, request):
    tally = Tally(request)

    @_SETTINGS
    @given(case=cases(task))
    def run(case):
        recipe, params = case
        check_equal(recipe, params, tally)

    run()
