"""Gradient-based one-side sampling: LightGBM's rules and the analysis of Ke et al. (2017)."""

from itertools import combinations

import numpy as np
import pytest

from mltrees.hist.lightgbm.goss import (
    estimated_variance_gain,
    gain_bias,
    goss_active,
    goss_error_bound,
    goss_sample,
    goss_select,
    sampled_sum_variance,
    variance_gain,
)

# --------------------------------------------------------------------------
# LightGBM's sampling rule


@pytest.mark.parametrize(
    ("n", "a", "b", "top_k", "other_k", "factor"),
    [
        (1000, 0.2, 0.1, 200, 100, 8.0),  # the notes' measurement: weight 400 + 8 x 200 rows
        (10, 0.25, 0.35, 2, 3, 8 / 3),  # int() truncates 2.5 and 3.5
        (7, 0.1, 0.5, 1, 3, 2.0),  # int(0.7) = 0 is raised to 1 top row
    ],
)
def test_counts_and_factor(n, a, b, top_k, other_k, factor):
    scores = np.random.default_rng(1).permutation(n).astype(float)  # distinct
    top, other, f = goss_select(scores, a, b, np.random.default_rng(0))
    assert top.size == top_k
    assert other.size == other_k
    assert f == pytest.approx(factor, rel=1e-15)
    assert np.intersect1d(top, other).size == 0
    assert np.all(np.diff(top) > 0)
    assert np.all(np.diff(other) > 0)


def test_no_row_drawn_when_other_k_rounds_to_zero():
    top, other, f = goss_select(np.arange(3.0), 0.1, 0.2, np.random.default_rng(0))
    assert top.tolist() == [2]  # max(1, int(0.3)) = 1 top row, the largest
    assert other.size == 0  # int(0.6) = 0
    assert f == 1.0


def test_factor_in_float32():
    _, _, f64 = goss_select(np.arange(1000.0), 0.2, 0.3, np.random.default_rng(0))
    _, _, f32 = goss_select(np.arange(1000.0), 0.2, 0.3, np.random.default_rng(0), float32=True)
    assert f64 == 800 / 300
    assert f32 == pytest.approx(800 / 300, rel=1e-7)
    assert f32 != f64
    assert np.float32(f32) == f32  # representable in float32


def test_ranking_by_abs_g_times_h():
    # |g| ranks row 1 first; |g h| ranks rows 3 and 0 first.
    g = np.array([2.0, -9.0, 0.5, -3.0, 0.1, 1.0, 0.2, 0.3, 0.4, 0.6])
    h = np.array([1.0, 0.01, 1.0, 1.0, 1.0, 0.1, 1.0, 1.0, 1.0, 1.0])
    # |g h| = [2, .09, .5, 3, .1, .1, .2, .3, .4, .6]; top_k = int(10 * 0.2) = 2
    top, _, _ = goss_select(np.abs(g * h), 0.2, 0.3, np.random.default_rng(0))
    assert top.tolist() == [0, 3]
    rows, gs, hs = goss_sample(g, h, 0.2, 0.3, np.random.default_rng(0))
    assert {0, 3} <= set(rows.tolist())
    assert gs[rows == 0][0] == 2.0  # top rows are not reweighted
    assert hs[rows == 3][0] == 1.0


def test_ties_at_the_threshold_are_all_kept():
    scores = np.array([5.0, 1.0, 5.0, 5.0, 0.5, 0.2, 0.1, 0.3])  # top_k = int(8 * .25) = 2
    top, other, f = goss_select(scores, 0.25, 0.25, np.random.default_rng(0))
    assert top.tolist() == [0, 2, 3]
    assert other.size == 2
    assert f == 3.0  # LightGBM keeps (n - top_k) / other_k = 6 / 2 with ties


def test_multiclass_ranks_by_sum_over_classes():
    # Row 0 has the largest single |g h| (4) but the smallest sum (4.0);
    # rows 1 and 2 sum to 4.5 and 5.1.
    g = np.array([[4.0, 0.0, 0.0], [1.5, 1.5, 1.5], [1.7, 1.7, 1.7], [1.0, 1.0, 1.9]])
    h = np.ones_like(g)
    rows, _, _ = goss_sample(g, h, 0.5, 0.25, np.random.default_rng(0))
    top, _, _ = goss_select(np.array([4.0, 4.5, 5.1, 3.9]), 0.5, 0.25, np.random.default_rng(0))
    assert top.tolist() == [1, 2]
    assert {1, 2} <= set(rows.tolist())
    assert rows.size == 3


def test_sample_reweights_g_and_h_of_drawn_rows_only():
    rng = np.random.default_rng(3)
    g = rng.normal(size=500)
    h = rng.uniform(0.1, 1.0, size=500)
    rows, gs, hs = goss_sample(g, h, 0.2, 0.1, np.random.default_rng(7))
    assert rows.size == 150
    assert np.all(np.diff(rows) > 0)
    ratio_g, ratio_h = gs / g[rows], hs / h[rows]
    np.testing.assert_allclose(ratio_g, ratio_h, rtol=1e-12)
    assert np.sum(np.isclose(ratio_g, 1.0)) == 100
    assert np.sum(np.isclose(ratio_g, 400 / 50)) == 50
    # the 100 unweighted rows are the 100 largest |g h|
    largest = np.argsort(-np.abs(g * h))[:100]
    assert set(rows[np.isclose(ratio_g, 1.0)].tolist()) == set(largest.tolist())


def test_multiclass_sample_shapes_and_dtype():
    rng = np.random.default_rng(0)
    g = rng.normal(size=(200, 3)).astype(np.float32)
    h = rng.uniform(size=(200, 3)).astype(np.float32)
    rows, gs, hs = goss_sample(g, h, 0.1, 0.2, np.random.default_rng(0), float32=True)
    assert gs.shape == hs.shape == (rows.size, 3) == (60, 3)
    assert gs.dtype == np.float32


def test_deterministic_with_a_seeded_generator():
    g = np.random.default_rng(5).normal(size=300)
    h = np.ones(300)
    first = goss_sample(g, h, 0.1, 0.2, np.random.default_rng(42))
    second = goss_sample(g, h, 0.1, 0.2, np.random.default_rng(42))
    other = goss_sample(g, h, 0.1, 0.2, np.random.default_rng(43))
    for x, y in zip(first, second, strict=True):
        np.testing.assert_array_equal(x, y)
    assert not np.array_equal(first[0], other[0])


def test_drawn_rows_are_uniform_over_the_rest():
    n, a, b, draws = 40, 0.25, 0.25, 4000
    scores = np.arange(n, dtype=float)
    rng = np.random.default_rng(0)
    hits = np.zeros(n)
    for _ in range(draws):
        _, other, _ = goss_select(scores, a, b, rng)
        hits[other] += 1
    p = 10 / 30  # other_k / (n - top_k)
    assert np.all(hits[30:] == 0)  # the top 10 rows are never "drawn"
    se = np.sqrt(draws * p * (1 - p))
    assert np.max(np.abs(hits[:30] - draws * p)) < 4.5 * se


@pytest.mark.parametrize(
    ("learning_rate", "full_rounds"), [(0.25, 4), (0.3, 3), (0.1, 10), (1.0, 1), (2.0, 0)]
)
def test_first_rounds_are_not_sampled(learning_rate, full_rounds):
    active = [goss_active(i, learning_rate) for i in range(12)]
    assert active == [i >= full_rounds for i in range(12)]


# --------------------------------------------------------------------------
# The variance gain and its estimate


def test_variance_gain_by_hand():
    g = np.array([1.0, 2.0, 3.0, -4.0])
    x = np.array([1.0, 2.0, 3.0, 4.0])
    # d = 2.5: left sum 3 over 2 rows, right -1 over 2: (9/2 + 1/2) / 4
    # d = 0: only the right side, sum 2 over 4 rows: (4/4) / 4
    np.testing.assert_allclose(variance_gain(g, x, [2.5, 0.0, 4.0]), [1.25, 0.25, 0.25])


def test_estimate_from_the_full_sample_is_the_gain():
    rng = np.random.default_rng(0)
    g, x = rng.normal(size=50), rng.normal(size=50)
    d = np.linspace(-1, 1, 7)
    np.testing.assert_allclose(
        estimated_variance_gain(g, x, d, np.arange(50), 1.0), variance_gain(g, x, d)
    )
    # A hand case: rows 0 and 3 sampled, row 3 weighted 2.
    g = np.array([1.0, 2.0, 3.0, -4.0])
    x = np.array([1.0, 2.0, 3.0, 4.0])
    # left sum 1 over n_l = 2, right sum 2 * (-4) over n_r = 2: (1/2 + 64/2) / 4
    np.testing.assert_allclose(estimated_variance_gain(g, x, [2.5], [0, 3], [1.0, 2.0]), [8.125])


def _heavy_tailed(n, rng):
    x = rng.uniform(size=n)
    g = rng.standard_t(1.5, size=n) + 2.0 * (x > 0.6)
    return g, x


def _goss_draws(g, x, d, a, b, draws, rng):
    scores = np.abs(g)
    est, left = [], []
    for _ in range(draws):
        top, other, f = goss_select(scores, a, b, rng)
        rows = np.concatenate([top, other])
        w = np.concatenate([np.ones(top.size), np.full(other.size, f)])
        est.append(estimated_variance_gain(g, x, d, rows, w))
        left.append([np.sum(w * g[rows] * (x[rows] <= t)) for t in d])
    return np.array(est), np.array(left), top, other.size


def test_reweighted_sums_are_unbiased():
    rng = np.random.default_rng(11)
    g, x = _heavy_tailed(300, rng)
    d = np.array([0.3, 0.6])
    _, left, _, _ = _goss_draws(g, x, d, 0.2, 0.1, 3000, rng)
    full = np.array([g[x <= t].sum() for t in d])
    se = left.std(axis=0, ddof=1) / np.sqrt(left.shape[0])
    assert np.all(np.abs(left.mean(axis=0) - full) < 4 * se)


def test_sum_variance_equals_enumeration():
    y = np.array([0.5, -1.0, 2.0, 0.0, 3.0, -0.5, 10.0])
    kept = np.array([False] * 6 + [True])  # the largest is kept
    m = 2
    pool = np.flatnonzero(~kept)
    totals = [10.0 + 6 / m * y[list(s)].sum() for s in combinations(pool, m)]
    assert sampled_sum_variance(y, kept, m) == pytest.approx(np.var(totals), rel=1e-12)
    assert np.mean(totals) == pytest.approx(y.sum(), rel=1e-12)


def test_gain_bias_equals_enumeration():
    # Exact expectation of the estimated gain over all C(6, 3) draws.
    g = np.array([4.0, -0.5, 1.0, 0.2, -1.5, 0.7, 2.5, -0.1])
    x = np.arange(8.0)
    d = np.array([1.5, 3.5, 5.5])
    kept = np.abs(g) >= 2.5  # rows 0 and 6
    pool = np.flatnonzero(~kept)
    m = 3
    estimates = [
        estimated_variance_gain(
            g, x, d, np.r_[np.flatnonzero(kept), s], np.r_[1.0, 1.0, [6 / m] * m]
        )
        for s in combinations(pool, m)
    ]
    exact = np.mean(estimates, axis=0) - variance_gain(g, x, d)
    np.testing.assert_allclose(gain_bias(g, x, d, kept, m), exact, rtol=1e-12)
    assert np.all(exact > 0)  # squaring an unbiased sum adds its variance


def test_gain_bias_by_simulation():
    rng = np.random.default_rng(2)
    g, x = _heavy_tailed(400, rng)
    d = np.array([0.2, 0.6])
    est, _, top, m = _goss_draws(g, x, d, 0.2, 0.1, 4000, rng)
    kept = np.zeros(g.size, dtype=bool)
    kept[top] = True
    bias = est.mean(axis=0) - variance_gain(g, x, d)
    se = est.std(axis=0, ddof=1) / np.sqrt(est.shape[0])
    assert np.all(np.abs(bias - gain_bias(g, x, d, kept, m)) < 4 * se)


def test_gain_bias_is_of_order_one_over_n():
    # For i.i.d. rows, (1-a)(1-a-b)/b (s_l^2/n_l + s_r^2/n_r) shrinks like 1/n.
    a, b = 0.2, 0.1
    scaled = []
    for n in (2000, 32000):
        rng = np.random.default_rng(0)
        x = rng.uniform(size=n)
        g = rng.normal(size=n) + (x > 0.5)
        top, other, _ = goss_select(np.abs(g), a, b, rng)
        kept = np.zeros(n, dtype=bool)
        kept[top] = True
        scaled.append(n * gain_bias(g, x, [0.5], kept, other.size)[0])
    assert scaled[1] == pytest.approx(scaled[0], rel=0.1)
    # the closed form of the chapter at n = 32000
    pool_left = (x <= 0.5) & ~kept
    s2 = np.var(np.where(pool_left, g, 0.0)[~kept], ddof=1)
    s2r = np.var(np.where(~pool_left, g, 0.0)[~kept], ddof=1)
    closed = (1 - a) * (1 - a - b) / b * (s2 / np.sum(x <= 0.5) + s2r / np.sum(x > 0.5))
    assert scaled[1] / n == pytest.approx(closed, rel=2e-3)


def test_goss_has_lower_variance_than_uniform_on_heavy_tails():
    rng = np.random.default_rng(5)
    g, x = _heavy_tailed(500, rng)
    d = np.array([0.4, 0.6])
    goss, _, _, _ = _goss_draws(g, x, d, 0.1, 0.1, 2000, rng)
    uniform = []
    for _ in range(2000):
        rows = rng.choice(g.size, size=100, replace=False)  # the same 20 % of rows
        uniform.append(estimated_variance_gain(g, x, d, rows, 5.0))
    uniform = np.array(uniform)
    assert np.all(goss.var(axis=0) < 0.5 * uniform.var(axis=0))
    # and the exact variance of the left sum agrees
    y = np.where(x <= 0.6, g, 0.0)
    kept = np.abs(g) >= np.sort(np.abs(g))[-50]
    assert sampled_sum_variance(y, kept, 50) < sampled_sum_variance(y, np.zeros(500, bool), 100)


def test_theorem_3_2_bound_holds():
    rng = np.random.default_rng(8)
    g, x = _heavy_tailed(400, rng)
    d = np.array([0.3, 0.5, 0.7])
    est, _, _, _ = _goss_draws(g, x, d, 0.2, 0.1, 500, rng)
    bound = goss_error_bound(g, x, d, 0.2, 0.1, delta=0.1)
    assert np.all(np.mean(np.abs(est - variance_gain(g, x, d)) <= bound, axis=0) >= 0.9)
    assert np.isinf(goss_error_bound(g, x, [-1.0], 0.2, 0.1, 0.1)[0])


# --------------------------------------------------------------------------
# Bad input


@pytest.mark.parametrize(
    ("a", "b", "match"),
    [
        (0.0, 0.1, "top_rate"),
        (1.0, 0.1, "top_rate"),
        (0.2, 0.0, "other_rate"),
        (0.2, -0.1, "other_rate"),
        (0.6, 0.5, "at most 1"),
    ],
)
def test_bad_rates(a, b, match):
    with pytest.raises(ValueError, match=match):
        goss_sample(np.ones(10), np.ones(10), a, b, np.random.default_rng(0))


def test_bad_inputs():
    rng = np.random.default_rng(0)
    with pytest.raises(TypeError, match="top_rate"):
        goss_select(np.ones(5), "0.2", 0.1, rng)
    with pytest.raises(TypeError, match="rng"):
        goss_sample(np.ones(5), np.ones(5), 0.2, 0.1, 0)
    with pytest.raises(ValueError, match="same shape"):
        goss_sample(np.ones(5), np.ones(6), 0.2, 0.1, rng)
    with pytest.raises(ValueError, match=r"shape \(n,\) or \(n, K\)"):
        goss_sample(np.ones((2, 2, 2)), np.ones((2, 2, 2)), 0.2, 0.1, rng)
    with pytest.raises(ValueError, match="finite"):
        goss_sample(np.array([1.0, np.nan]), np.ones(2), 0.2, 0.1, rng)
    with pytest.raises(TypeError, match="g must hold real numbers"):
        goss_sample(np.array(["a", "b"]), np.ones(2), 0.2, 0.1, rng)
    with pytest.raises(ValueError, match="learning_rate"):
        goss_active(3, 0.0)
    with pytest.raises(ValueError, match="iteration"):
        goss_active(-1, 0.1)
    with pytest.raises(TypeError, match="iteration"):
        goss_active(1.5, 0.1)
    with pytest.raises(ValueError, match="x must have the shape"):
        variance_gain(np.ones(3), np.ones(4), [0.5])
    with pytest.raises(ValueError, match="rows must lie"):
        estimated_variance_gain(np.ones(3), np.ones(3), [0.5], [0, 3], 1.0)
    with pytest.raises(ValueError, match="n_drawn"):
        gain_bias(np.ones(3), np.arange(3.0), [0.5], np.zeros(3, bool), 4)
    with pytest.raises(ValueError, match="kept must be a boolean mask"):
        sampled_sum_variance(np.ones(3), [0, 1, 0], 1)
    with pytest.raises(ValueError, match="delta"):
        goss_error_bound(np.ones(3), np.arange(3.0), [0.5], 0.2, 0.1, 1.5)
