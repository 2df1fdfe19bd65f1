"""Thresholds between neighbouring values over the whole float range.

Every threshold ``t`` that mltrees' own trees put between sorted neighbours
``a < b`` satisfies ``a <= t < b`` (``x <= t`` goes left), for all finite
floats: adjacent floats, subnormals, and values near ±1.7e308 where
``(a + b) / 2`` overflows (the reliability report's
``CARTClassifier().fit([[-1.6e308], [-1e308]], [0, 1])`` predicted ``[1, 1]``).
The rule is checked on the shared helper, then through every estimator that
computes such thresholds, on two-value data that only a correct threshold
separates.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mltrees as M
from mltrees._midpoint import midpoint
from mltrees.hist.catboost.borders import midpoint_borders
from mltrees.tree.oblique import best_threshold

LARGEST = float(np.finfo(np.float64).max)
TINY = 5e-324  # the smallest subnormal


def _sorted_pair(a: float, b: float):
    return (a, b) if a < b else (b, a)


adjacent = (
    st.floats(allow_nan=False, allow_infinity=False)
    .filter(lambda a: math.isfinite(math.nextafter(a, math.inf)))
    .map(lambda a: (a, math.nextafter(a, math.inf)))
)
subnormal = (
    st.tuples(st.integers(-(2**52), 2**52), st.integers(-(2**52), 2**52))
    .filter(lambda p: p[0] != p[1])
    .map(lambda p: _sorted_pair(p[0] * TINY, p[1] * TINY))
)
signs = st.sampled_from([(1, 1), (-1, -1), (-1, 1)])
huge = (
    st.tuples(st.floats(1e307, LARGEST), st.floats(1e307, LARGEST), signs)
    .filter(lambda p: p[0] != p[1] or p[2] == (-1, 1))
    .map(lambda p: _sorted_pair(p[2][0] * p[0], p[2][1] * p[1]))
)
finite = st.floats(allow_nan=False, allow_infinity=False)
anywhere = st.tuples(finite, finite).filter(lambda p: p[0] != p[1]).map(lambda p: _sorted_pair(*p))
pairs = st.one_of(adjacent, subnormal, huge, anywhere)

# Hand-picked pairs that broke, or nearly broke, a formula: the report's case,
# the ends of the range, adjacent floats either side of zero and at the top.
EDGE_PAIRS = [
    (-1.6e308, -1e308),
    (1e308, 1.6e308),
    (-LARGEST, LARGEST),
    (math.nextafter(LARGEST, 0), LARGEST),
    (-LARGEST, math.nextafter(-LARGEST, 0)),
    (0.0, TINY),
    (-TINY, 0.0),
    (TINY, 2 * TINY),
    (2 * TINY, 3 * TINY),
    (1.0, math.nextafter(1.0, 2)),
    (math.nextafter(1.0, 2), math.nextafter(math.nextafter(1.0, 2), 2)),
    (2.2250738585072014e-308 - TINY, 2.2250738585072014e-308),
]


def _assert_between(a, b, t):
    assert a <= t < b, (a, b, t)


@settings(max_examples=500)
@given(pairs)
def test_midpoint_lies_in_a_closed_open_gap(pair):
    a, b = pair
    t = float(midpoint(np.float64(a), np.float64(b)))
    _assert_between(a, b, t)
    # Where (a + b) / 2 is exact arithmetic on normal halves, the helper is
    # the correctly rounded midpoint, bit for bit (no tree changes on ordinary data).
    plain = (a + b) / 2
    normal = abs(a) >= 2 * 2.2250738585072014e-308 and abs(b) >= 2 * 2.2250738585072014e-308
    if math.isfinite(a + b) and normal and a <= plain < b:
        assert t == plain


@settings(max_examples=300)
@given(pairs)
def test_float32_midpoint(pair):
    with np.errstate(over="ignore"):
        a32, b32 = np.float32(pair[0]), np.float32(pair[1])
    if not (np.isfinite(a32) and np.isfinite(b32)) or a32 == b32:
        return
    a32, b32 = min(a32, b32), max(a32, b32)
    t = midpoint(a32, b32)
    assert t.dtype == np.float32
    _assert_between(a32, b32, t)
    # CatBoost's border is the unguarded a/2 + b/2 in float32, never infinite.
    border = midpoint_borders(np.array([a32, b32]))
    assert border.dtype == np.float32
    assert np.isfinite(border).all()
    assert border[0] == np.float32(0.5) * a32 + np.float32(0.5) * b32


@pytest.mark.parametrize("pair", EDGE_PAIRS)
def test_midpoint_edge_pairs(pair):
    _assert_between(*pair, float(midpoint(*pair)))


def _separating_estimators(huge_only: bool):
    estimators = [
        M.CARTClassifier(),
        M.CARTRegressor(),
        M.CARTClassifier(max_bins=16),
        M.CARTRegressor(missing="surrogate"),
        M.RandomForestClassifier(n_estimators=2, bootstrap=False, max_features=None),
        M.BaggingRegressor(n_estimators=2, bootstrap=False),
        M.GradientBoostingRegressor(n_estimators=1, learning_rate=1.0),
        M.GradientBoostingClassifier(n_estimators=1, learning_rate=1.0),
        M.AdaBoostClassifier(n_estimators=1),
    ]
    if huge_only:
        # C4.5 release 8 (Weka's J48) never cuts between values closer than
        # 1e-5 (chapter 4): only pairs far apart are its business.
        c45 = M.C45Classifier(min_cases=1)
        estimators += [c45, M.RuleSetClassifier(c45)]
    return estimators


def _assert_separated(estimator, a, b):
    X = np.array([[a], [b], [a], [b]])
    y = np.array([0, 1, 0, 1])
    model = estimator.fit(X, y)
    prediction = model.predict(X)
    if hasattr(model, "classes_"):
        np.testing.assert_array_equal(prediction, y, err_msg=f"{estimator!r} on {a!r}, {b!r}")
    else:
        assert prediction[1] > prediction[0], (estimator, a, b, prediction)
    tree = getattr(model, "tree_", None)
    if tree is not None and tree.node_count > 1:
        _assert_between(a, b, tree.threshold[0])


@pytest.mark.parametrize("pair", EDGE_PAIRS)
def test_estimators_separate_edge_pairs(pair):
    a, b = pair
    for estimator in _separating_estimators(huge_only=abs(b - a) > 1e-5):
        _assert_separated(estimator, a, b)


@settings(max_examples=25, deadline=None)
@given(st.one_of(adjacent, subnormal, huge))
def test_estimators_separate_any_pair(pair):
    a, b = pair
    for estimator in _separating_estimators(huge_only=abs(b - a) > 1e-5):
        _assert_separated(estimator, a, b)


@settings(max_examples=200, deadline=None)
@given(pairs)
def test_oblique_threshold_between_projections(pair):
    a, b = pair
    z = np.array([a, b, a, b])
    stats = np.array([[1.0, 0.0, 1.0], [0.0, 1.0, 1.0], [1.0, 0.0, 1.0], [0.0, 1.0, 1.0]])
    t, cost = best_threshold(z, stats, "gini")
    assert cost == 0.0
    _assert_between(a, b, t)
