"""Weighted quantile sketch (Chen & Guestrin 2016, appendix A): merge, prune, query.

The summaries are compared with exact weighted ranks computed by brute force from
the data (values sorted, their weights accumulated with np.cumsum), and with the
appendix's definitions transcribed one value at a time (Definitions A.2-A.4),
independently of the vectorised module. Worked examples are computed by hand.
"""

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from mltrees.hist.xgboost.quantile_summary import (
    DEFAULT_BLOCK_SIZE,
    WeightedQuantileSummary,
    weighted_quantile_sketch,
)

# Rank sums of n float64 weights are off by at most about n * 1.1e-16 of the total.
REL_TOL = 1e-9


# ---------------------------------------------------------------------------- oracles
def true_ranks(x, w, y):
    """r-_D(y) = sum of weights of x < y and r+_D(y) = sum of weights of x <= y."""
    order = np.argsort(x, kind="stable")
    xs = x[order]
    cumulative = np.concatenate(([0.0], np.cumsum(w[order])))
    y = np.asarray(y, dtype=float)
    return (
        cumulative[np.searchsorted(xs, y, side="left")],
        cumulative[np.searchsorted(xs, y, side="right")],
    )


def extended(q, y):
    """Definition A.2, for one value y at a time: (r~-(y), r~+(y), w~(y))."""
    xs, w_total = list(q.values), q.total_weight
    if y < xs[0]:
        return 0.0, 0.0, 0.0
    if y > xs[-1]:
        return w_total, w_total, 0.0
    for j, xj in enumerate(xs):
        if xj == y:
            return q.rmin[j], q.rmax[j], q.wmin[j]
        if xj > y:
            return q.rmin[j - 1] + q.wmin[j - 1], q.rmax[j] - q.wmin[j], 0.0
    raise AssertionError("unreachable")


def definition_a3_error(q):
    """sup over y of r~+(y) - r~-(y) - w~(y), divided by w(D) (Definition A.3).

    The supremum is reached at a kept value or strictly between two of them
    (below x_1 and above x_k it is 0), so those points are enough.
    """
    xs = q.values
    probes = np.concatenate((xs, (xs[1:] + xs[:-1]) / 2, [xs[0] - 1.0, xs[-1] + 1.0]))
    worst = 0.0
    for y in probes:
        lo, hi, w = extended(q, y)
        worst = max(worst, hi - lo - w)
    return worst / q.total_weight


def assert_summary_of(q, x, w):
    """Q is a quantile summary of D = {(x_i, w_i)} in the sense of Definition A.1."""
    w_total = float(np.sum(w))
    tol = REL_TOL * max(w_total, 1.0)
    assert q.total_weight == pytest.approx(w_total, rel=1e-12, abs=1e-300)
    assert np.all(np.diff(q.values) > 0)
    assert np.isin(q.values, x).all()
    assert q.values[0] == x.min()
    assert q.values[-1] == x.max()
    r_minus, r_plus = true_ranks(x, w, q.values)
    omega = r_plus - r_minus
    # (15): the bounds bracket the true ranks ...
    assert np.all(q.rmin <= r_minus + tol)
    assert np.all(q.rmax >= r_plus - tol)
    assert np.all(q.wmin <= omega + tol)
    # ... and are exact at the smallest and the largest value.
    for j in (0, -1):
        assert q.rmin[j] == pytest.approx(r_minus[j], abs=tol)
        assert q.rmax[j] == pytest.approx(r_plus[j], abs=tol)
        assert q.wmin[j] == pytest.approx(omega[j], abs=tol)
    # (16): consecutive bounds are ordered.
    assert np.all(q.rmin[:-1] + q.wmin[:-1] <= q.rmin[1:] + tol)
    assert np.all(q.rmax[:-1] <= q.rmax[1:] - q.wmin[1:] + tol)


def assert_query_within(q, x, w, ranks, slack):
    """Every answer's rank interval [r-(x), r+(x)] is within slack of the asked rank."""
    answers = q.query(ranks)
    r_minus, r_plus = true_ranks(x, w, answers)
    miss = np.maximum(r_minus - ranks, ranks - r_plus)
    tol = REL_TOL * max(float(np.sum(w)), 1.0)
    assert np.all(miss <= slack + tol), float(miss.max())


def rank_grid(total, n=401):
    return total * np.linspace(0.0, 1.0, n)


# ---------------------------------------------------------------------------- data
def dataset(kind, n=2000, seed=0):
    """Random and adversarial weighted data sets."""
    rng = np.random.default_rng(seed)
    ones = np.ones(n)
    if kind == "random":
        return rng.normal(size=n), rng.uniform(0.0, 1.0, size=n)
    if kind == "sorted":
        return np.arange(n, dtype=float), rng.uniform(0.5, 1.5, size=n)
    if kind == "reverse_sorted":
        return np.arange(n, dtype=float)[::-1].copy(), ones
    if kind == "heavy_duplicates":
        return rng.integers(0, 5, size=n).astype(float), rng.integers(1, 4, size=n) * 1.0
    if kind == "one_huge_weight":
        w = ones.copy()
        w[n // 3] = 1e9
        return rng.normal(size=n), w
    if kind == "geometric_weights":
        # Sorted values whose weights fall by half every 50 rows: the head holds the mass.
        return np.arange(n, dtype=float), 0.5 ** (np.arange(n) / 50)
    if kind == "weights_over_18_decades":
        return rng.normal(size=n), 2.0 ** rng.integers(-30, 31, size=n)
    if kind == "all_equal":
        return np.full(n, 3.25), rng.uniform(0.1, 2.0, size=n)
    if kind == "half_zero_weights":
        w = rng.exponential(size=n)
        w[rng.random(n) < 0.5] = 0.0
        return rng.normal(size=n), w
    if kind == "hessians":
        # Logistic-loss hessians p(1-p): tiny where the model is confident.
        p = 1 / (1 + np.exp(-rng.normal(scale=4.0, size=n)))
        return rng.normal(size=n), p * (1 - p)
    raise ValueError(kind)


KINDS = [
    "random",
    "sorted",
    "reverse_sorted",
    "heavy_duplicates",
    "one_huge_weight",
    "geometric_weights",
    "weights_over_18_decades",
    "all_equal",
    "half_zero_weights",
    "hessians",
]


# ---------------------------------------------------------------------------- worked examples
def test_exact_summary_by_hand():
    # D = {(1,1), (2,2), (5,3), (2,1)}: distinct values 1, 2, 5 with weights 1, 3, 3.
    q = WeightedQuantileSummary.from_data([1.0, 2.0, 5.0, 2.0], [1.0, 2.0, 3.0, 1.0])
    np.testing.assert_array_equal(q.values, [1.0, 2.0, 5.0])
    np.testing.assert_array_equal(q.rmin, [0.0, 1.0, 4.0])
    np.testing.assert_array_equal(q.rmax, [1.0, 4.0, 7.0])
    np.testing.assert_array_equal(q.wmin, [1.0, 3.0, 3.0])
    assert q.total_weight == 7.0
    assert q.max_error() == 0.0


def test_merge_of_pruned_summary_by_hand():
    q1 = WeightedQuantileSummary.from_data([1.0, 2.0, 5.0, 2.0], [1.0, 2.0, 3.0, 1.0])
    q1p = q1.prune(1)  # b = 1 keeps the smallest and the largest value only
    np.testing.assert_array_equal(q1p.values, [1.0, 5.0])
    # Between 1 and 5, r-(y) >= 0 + 1 and r+(y) <= 7 - 3: the gap is 4 - 1 = 3 of 7.
    assert q1p.max_error() == pytest.approx(3 / 7)
    q2 = WeightedQuantileSummary.from_data([3.0, 5.0], [2.0, 1.0])
    m = q1p.merge(q2)
    # At 3 (kept by q2 only) q1p contributes its extension (1, 4, 0), q2 its exact (0, 2, 2);
    # at 5 both contribute their exact bounds (4, 7, 3) + (2, 3, 1).
    np.testing.assert_array_equal(m.values, [1.0, 3.0, 5.0])
    np.testing.assert_array_equal(m.rmin, [0.0, 1.0, 6.0])
    np.testing.assert_array_equal(m.rmax, [1.0, 6.0, 10.0])
    np.testing.assert_array_equal(m.wmin, [1.0, 2.0, 4.0])
    assert m.total_weight == 10.0
    # Worst: at 3, 6 - 1 - 2 = 3; between 1 and 3, (6 - 2) - (0 + 1) = 3: 3/10 <= max(3/7, 0).
    assert m.max_error() == pytest.approx(3 / 10)


def test_prune_and_query_by_hand():
    # Data {1:1, 2:3, 3:2, 5:4}, total 10: r- = 0, 1, 4, 6 and r+ = 1, 4, 6, 10.
    q = WeightedQuantileSummary.from_data([1, 2, 2, 2, 3, 3, 5, 5, 5, 5])
    # b = 2 asks for rank 5, whose only exact answer is 3 (r-(3) = 4 <= 5 <= 6 = r+(3)).
    np.testing.assert_array_equal(q.prune(2).values, [1.0, 3.0, 5.0])
    np.testing.assert_array_equal(
        q.query([0.0, 0.5, 2.5, 4.5, 5.0, 8.0, 10.0]), [1.0, 1.0, 2.0, 3.0, 3.0, 5.0, 5.0]
    )
    assert q.query(2.5) == 2.0
    assert isinstance(q.query(2.5), float)
    assert q.query(np.array([[0.5, 9.0]])).shape == (1, 2)
    np.testing.assert_array_equal(q.cut_points(2), [1.0, 3.0, 5.0])
    np.testing.assert_array_equal(q.cut_points(1), [1.0, 5.0])


# ---------------------------------------------------------------------------- exact summaries
@pytest.mark.parametrize("kind", KINDS)
def test_exact_summary_equals_brute_force(kind):
    x, w = dataset(kind)
    q = WeightedQuantileSummary.from_data(x, w)
    np.testing.assert_array_equal(q.values, np.unique(x))
    r_minus, r_plus = true_ranks(x, w, q.values)
    tol = REL_TOL * w.sum()
    np.testing.assert_allclose(q.rmin, r_minus, rtol=0, atol=tol)
    np.testing.assert_allclose(q.rmax, r_plus, rtol=0, atol=tol)
    np.testing.assert_allclose(q.wmin, r_plus - r_minus, rtol=0, atol=tol)
    assert q.max_error() <= REL_TOL


def test_integer_weights_equal_repeated_values():
    rng = np.random.default_rng(1)
    x = rng.integers(0, 30, size=300).astype(float)
    w = rng.integers(0, 4, size=300)
    weighted = WeightedQuantileSummary.from_data(x, w)
    repeated = WeightedQuantileSummary.from_data(np.repeat(x, w))
    kept = np.isin(weighted.values, repeated.values)  # values of weight 0 are extra
    for name in ("values", "rmin", "rmax", "wmin"):
        np.testing.assert_array_equal(getattr(weighted, name)[kept], getattr(repeated, name))
    assert weighted.total_weight == repeated.total_weight


def _interior_ranks(x, w, n, rng):
    """Random ranks at least 1e-6 of the total away from every cumulative weight."""
    total = w.sum()
    steps = np.cumsum(w[np.argsort(x)])
    d = rng.uniform(0, total, size=n)
    distance = np.abs(d[:, None] - np.concatenate(([0.0], steps))[None, :]).min(axis=1)
    return d[distance > 1e-6 * total]


@pytest.mark.parametrize("kind", KINDS)
def test_unpruned_summaries_return_exact_weighted_quantiles(kind):
    x, w = dataset(kind, n=1500, seed=2)
    rng = np.random.default_rng(3)
    exact = WeightedQuantileSummary.from_data(x, w)
    # Merges without pruning stay exact (Theorem A.1 with e1 = e2 = 0).
    parts = np.array_split(rng.permutation(x.size), 5)
    merged = WeightedQuantileSummary.empty()
    for part in parts:
        merged = merged.merge(WeightedQuantileSummary.from_data(x[part], w[part]))
    assert merged.max_error() <= REL_TOL
    d = _interior_ranks(x, w, 300, rng)
    assert d.size > 0
    expected = np.quantile(x, d / w.sum(), weights=w, method="inverted_cdf")
    np.testing.assert_array_equal(exact.query(d), expected)
    np.testing.assert_array_equal(merged.query(d), expected)
    assert_query_within(merged, x, w, rank_grid(w.sum()), slack=0.0)


def test_small_sketch_is_exact():
    # 50 rows, eps = 0.01: b >= 100 values per summary, so no prune removes anything.
    x, w = dataset("random", n=50, seed=4)
    s = weighted_quantile_sketch(x, w, 0.01, block_size=7)
    assert s.max_error() <= REL_TOL
    np.testing.assert_array_equal(s.values, np.unique(x))
    assert_query_within(s, x, w, rank_grid(w.sum()), slack=0.0)


# ---------------------------------------------------------------------------- Definition A.2-A.4
@pytest.mark.parametrize("kind", ["random", "heavy_duplicates", "half_zero_weights"])
def test_merge_is_definition_a4(kind):
    x, w = dataset(kind, n=600, seed=5)
    half = x.size // 2
    q1 = WeightedQuantileSummary.from_data(x[:half], w[:half]).prune(9)
    q2 = WeightedQuantileSummary.from_data(x[half:], w[half:]).prune(13)
    m = q1.merge(q2)
    np.testing.assert_array_equal(m.values, np.union1d(q1.values, q2.values))
    for j, y in enumerate(m.values):
        lo1, hi1, w1 = extended(q1, y)
        lo2, hi2, w2 = extended(q2, y)
        assert m.rmin[j] == pytest.approx(lo1 + lo2, rel=1e-12, abs=1e-12)
        assert m.rmax[j] == pytest.approx(hi1 + hi2, rel=1e-12, abs=1e-12)
        assert m.wmin[j] == pytest.approx(w1 + w2, rel=1e-12, abs=1e-12)
    assert m.total_weight == pytest.approx(q1.total_weight + q2.total_weight)
    # merge is symmetric
    m21 = q2.merge(q1)
    for name in ("values", "rmin", "rmax", "wmin"):
        np.testing.assert_array_equal(getattr(m, name), getattr(m21, name))


@pytest.mark.parametrize("kind", KINDS)
def test_max_error_is_definition_a3(kind):
    x, w = dataset(kind, n=800, seed=6)
    q = weighted_quantile_sketch(x, w, 0.2, block_size=64)
    assert q.max_error() == pytest.approx(definition_a3_error(q), rel=1e-9, abs=1e-12)
    merged = q.merge(WeightedQuantileSummary.from_data(x[:100] + 0.5, w[:100]).prune(4))
    assert merged.max_error() == pytest.approx(definition_a3_error(merged), rel=1e-9, abs=1e-12)


# ---------------------------------------------------------------------------- Theorems A.1, A.2
@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize(("b1", "b2"), [(4, 50), (16, 16), (200, 3)])
def test_merge_theorem(kind, b1, b2):
    x, w = dataset(kind, seed=7)
    rng = np.random.default_rng(8)
    in_first = rng.random(x.size) < 0.4
    x1, w1, x2, w2 = x[in_first], w[in_first], x[~in_first], w[~in_first]
    q1 = WeightedQuantileSummary.from_data(x1, w1).prune(b1)
    q2 = WeightedQuantileSummary.from_data(x2, w2).prune(b2)
    assert_summary_of(q1, x1, w1)
    assert_summary_of(q2, x2, w2)
    m = q1.merge(q2)
    assert_summary_of(m, x, w)
    assert len(m) <= len(q1) + len(q2)
    bound = max(q1.max_error(), q2.max_error())
    assert m.max_error() <= bound + REL_TOL
    assert definition_a3_error(m) <= bound + REL_TOL
    assert_query_within(m, x, w, rank_grid(w.sum()), slack=m.max_error() * w.sum() / 2)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("b", [1, 2, 5, 32, 300])
def test_prune_theorem(kind, b):
    x, w = dataset(kind, seed=9)
    # Start from a summary that already has an error: merged pruned halves.
    q = (
        WeightedQuantileSummary.from_data(x[::2], w[::2])
        .prune(400)
        .merge(WeightedQuantileSummary.from_data(x[1::2], w[1::2]).prune(250))
    )
    eps = q.max_error()
    p = q.prune(b)
    assert len(p) <= b + 1
    assert_summary_of(p, x, w)
    assert p.max_error() <= eps + 1 / b + REL_TOL
    # The kept values and their bounds come unchanged from q.
    kept = np.searchsorted(q.values, p.values)
    np.testing.assert_array_equal(q.values[kept], p.values)
    for name in ("rmin", "rmax", "wmin"):
        np.testing.assert_array_equal(getattr(q, name)[kept], getattr(p, name))
    assert_query_within(p, x, w, rank_grid(w.sum()), slack=p.max_error() * w.sum() / 2)


def test_prune_uses_the_weights():
    # Sorted values whose weights fall geometrically: pruning by position instead of
    # by rank would keep many values of negligible weight and lose the head.
    x, w = dataset("geometric_weights", n=3000)
    p = WeightedQuantileSummary.from_data(x, w).prune(20)
    assert p.max_error() <= 1 / 20 + REL_TOL
    assert_summary_of(p, x, w)
    # r(x)/W = 1 - 2^(-x/50): the 19 inner targets k/20 (within 1/40) lie below x = 266,
    # where evenly spaced positions would put only 2 of the 21 kept values.
    assert np.count_nonzero(p.values < 300) >= 19


def test_prune_is_a_no_op_when_small_enough():
    q = WeightedQuantileSummary.from_data([3.0, 1.0, 2.0])
    assert q.prune(2) is q
    assert len(q.prune(1)) == 2


def test_query_lemma_a3_on_pruned_summaries():
    x, w = dataset("hessians", n=5000, seed=10)
    q = WeightedQuantileSummary.from_data(x, w)
    for b in (3, 10, 64):  # prune, then merge the first seven rows once more
        q = q.prune(b).merge(WeightedQuantileSummary.from_data(x[:7], w[:7]))
    x_all = np.concatenate((x, np.tile(x[:7], 3)))
    w_all = np.concatenate((w, np.tile(w[:7], 3)))
    assert_summary_of(q, x_all, w_all)
    assert q.max_error() > 0
    slack = q.max_error() * w_all.sum() / 2
    assert_query_within(q, x_all, w_all, rank_grid(w_all.sum(), 2001), slack=slack)


# ---------------------------------------------------------------------------- the sketch
@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize(("eps", "block_size"), [(0.1, 1), (0.05, 7), (0.01, 64), (0.02, None)])
def test_sketch_guarantee(kind, eps, block_size):
    x, w = dataset(kind, n=1500, seed=11)
    s = weighted_quantile_sketch(x, w, eps, block_size=block_size)
    assert_summary_of(s, x, w)
    assert s.max_error() <= eps + REL_TOL
    n_blocks = math.ceil(x.size / (block_size or DEFAULT_BLOCK_SIZE))
    b = math.ceil((1 + math.ceil(math.log2(n_blocks))) / eps)
    assert len(s) <= b + 1
    w_total = w.sum()
    tol = REL_TOL * w_total
    for n_bins in (1, 4, round(1 / eps)):
        cuts = s.cut_points(n_bins)
        assert np.all(np.diff(cuts) > 0)
        assert len(cuts) <= n_bins + 1
        assert cuts[0] == x.min()
        assert cuts[-1] == x.max()
        targets = w_total * np.arange(n_bins + 1) / n_bins
        r_minus, r_plus = true_ranks(x, w, cuts)
        # miss[i, k]: distance from target k to the rank interval of cut i
        miss = np.maximum(r_minus[:, None] - targets[None, :], targets[None, :] - r_plus[:, None])
        miss = np.maximum(miss, 0.0)
        # every target rank is reached by a cut point, every cut point serves a target
        assert miss.min(axis=0).max() <= eps * w_total / 2 + tol
        assert miss.min(axis=1).max() <= eps * w_total / 2 + tol
        assert miss.min(axis=0).max() <= eps * w_total  # the brief's form: |r(x) - r| <= eps W


def test_sketch_size_follows_the_documented_b():
    # 20 blocks: P = 1 + ceil(log2 20) = 6 prunes, b = ceil(6 / 0.05) = 120. On continuous
    # data every prune keeps b + 1 distinct values (each slice of weight W/b holds ~80 rows).
    x = np.random.default_rng(16).normal(size=10_000)
    s = weighted_quantile_sketch(x, None, 0.05, block_size=500)
    assert len(s) == 121
    assert s.max_error() <= 0.05


def test_sketch_on_many_rows():
    rng = np.random.default_rng(12)
    n = 5 * 60_000  # 5 blocks of DEFAULT_BLOCK_SIZE: the odd one is folded in at the end
    x = np.round(rng.standard_t(3, size=n), 3)
    p = 1 / (1 + np.exp(-rng.normal(size=n)))
    w = p * (1 - p)
    eps = 1 / 1024
    s = weighted_quantile_sketch(x, w, eps)
    assert s.max_error() <= eps + REL_TOL
    assert len(s) <= math.ceil(4 / eps) + 1
    assert_query_within(s, x, w, rank_grid(w.sum(), 4097), slack=eps * w.sum() / 2)


def test_sketch_ignores_missing_values():
    x, w = dataset("random", n=700, seed=13)
    x_nan = x.copy()
    missing = np.random.default_rng(14).random(x.size) < 0.3
    x_nan[missing] = np.nan
    w_nan = w.copy()
    w_nan[missing] = 1e6  # their weight does not count either
    with_nan = weighted_quantile_sketch(x_nan, w_nan, 0.05, block_size=50)
    without = weighted_quantile_sketch(x[~missing], w[~missing], 0.05, block_size=50)
    for name in ("values", "rmin", "rmax", "wmin"):
        np.testing.assert_array_equal(getattr(with_nan, name), getattr(without, name))
    assert with_nan.total_weight == without.total_weight
    assert_summary_of(with_nan, x[~missing], w[~missing])


def test_unit_weights_by_default():
    x, _ = dataset("heavy_duplicates", n=500, seed=15)
    a = weighted_quantile_sketch(x, None, 0.1, block_size=30)
    b = weighted_quantile_sketch(x, np.ones(x.size), 0.1, block_size=30)
    for name in ("values", "rmin", "rmax", "wmin"):
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name))


# ---------------------------------------------------------------------------- property tests
finite = st.floats(-1e6, 1e6, allow_nan=False, allow_infinity=False)
small_ints = st.integers(-5, 5).map(float)
weights = st.one_of(
    st.just(1.0),
    st.integers(0, 5).map(float),
    st.integers(-20, 20).map(lambda k: 2.0**k),
)


@st.composite
def weighted_data(draw, min_size=1, max_size=120):
    n = draw(st.integers(min_size, max_size))
    x = np.array(draw(st.lists(st.one_of(small_ints, finite), min_size=n, max_size=n)))
    w = np.array(draw(st.lists(weights, min_size=n, max_size=n)))
    if w.sum() == 0:
        w[0] = 1.0
    return x, w


@given(
    data=weighted_data(),
    eps=st.sampled_from([1.0, 0.5, 0.3, 0.1, 0.05]),
    block_size=st.integers(1, 40),
)
def test_sketch_property(data, eps, block_size):
    x, w = data
    s = weighted_quantile_sketch(x, w, eps, block_size=block_size)
    assert_summary_of(s, x, w)
    assert s.max_error() <= eps + REL_TOL
    assert s.max_error() == pytest.approx(definition_a3_error(s), rel=1e-9, abs=1e-12)
    assert_query_within(s, x, w, rank_grid(w.sum(), 101), slack=s.max_error() * w.sum() / 2)


@given(
    first=weighted_data(),
    second=weighted_data(),
    b1=st.integers(1, 12),
    b2=st.integers(1, 12),
    b=st.integers(1, 12),
)
def test_merge_and_prune_properties(first, second, b1, b2, b):
    (x1, w1), (x2, w2) = first, second
    q1 = WeightedQuantileSummary.from_data(x1, w1).prune(b1)
    q2 = WeightedQuantileSummary.from_data(x2, w2).prune(b2)
    assert q1.max_error() <= 1 / b1 + REL_TOL
    m = q1.merge(q2)
    x, w = np.concatenate((x1, x2)), np.concatenate((w1, w2))
    assert_summary_of(m, x, w)
    assert m.max_error() <= max(q1.max_error(), q2.max_error()) + REL_TOL
    p = m.prune(b)
    assert len(p) <= b + 1
    assert_summary_of(p, x, w)
    assert p.max_error() <= m.max_error() + 1 / b + REL_TOL
    assert_query_within(p, x, w, rank_grid(w.sum(), 101), slack=p.max_error() * w.sum() / 2)


# ---------------------------------------------------------------------------- bad input, edge cases
def test_empty_input():
    for values in ([], [np.nan, np.nan]):
        s = weighted_quantile_sketch(values, None, 0.1)
        assert len(s) == 0
        assert s.total_weight == 0.0
        assert s.max_error() == 0.0
        assert s.cut_points(8).shape == (0,)
        with pytest.raises(ValueError, match="empty summary"):
            s.query(0.0)
    q = WeightedQuantileSummary.from_data([2.0, 1.0])
    empty = WeightedQuantileSummary.empty()
    assert q.merge(empty) is q
    assert empty.merge(q) is q
    assert len(WeightedQuantileSummary.from_data([])) == 0


def test_zero_total_weight():
    s = weighted_quantile_sketch([3.0, 1.0, 2.0], [0.0, 0.0, 0.0], 0.5)
    assert s.total_weight == 0.0
    assert s.max_error() == 0.0
    np.testing.assert_array_equal(s.cut_points(4), [1.0, 3.0])


@pytest.mark.parametrize(
    ("values", "weights", "error", "match"),
    [
        ([1.0, 2.0], [1.0, -0.5], ValueError, "weights.*negative"),
        ([1.0, 2.0], [1.0, np.nan], ValueError, "weights.*NaN"),
        ([1.0, 2.0], [1.0, np.inf], ValueError, "weights.*inf"),
        ([1.0, 2.0], [1.0], ValueError, "weights must have shape"),
        ([1.0, np.inf], None, ValueError, "values contains inf"),
        ([-np.inf, 1.0], None, ValueError, "values contains inf"),
        ([[1.0, 2.0]], None, ValueError, "values must be one-dimensional"),
        (["a", "b"], None, TypeError, "values"),
        ([1.0, 2.0], ["a", "b"], TypeError, "weights"),
    ],
)
def test_bad_data(values, weights, error, match):
    with pytest.raises(error, match=match):
        weighted_quantile_sketch(values, weights, 0.1)
    with pytest.raises(error, match=match):
        WeightedQuantileSummary.from_data(values, weights)


def test_negative_weight_on_a_missing_value_is_still_rejected():
    with pytest.raises(ValueError, match="weights"):
        weighted_quantile_sketch([np.nan, 1.0], [-1.0, 1.0], 0.1)


@pytest.mark.parametrize(
    ("eps", "block_size", "error", "match"),
    [
        (0.0, None, ValueError, "eps"),
        (1.5, None, ValueError, "eps"),
        (-0.1, None, ValueError, "eps"),
        (np.nan, None, ValueError, "eps"),
        ("0.1", None, TypeError, "eps"),
        (True, None, TypeError, "eps"),
        (0.1, 0, ValueError, "block_size"),
        (0.1, 2.5, TypeError, "block_size"),
    ],
)
def test_bad_parameters(eps, block_size, error, match):
    with pytest.raises(error, match=match):
        weighted_quantile_sketch([1.0, 2.0], None, eps, block_size=block_size)


def test_bad_method_arguments():
    q = WeightedQuantileSummary.from_data([1.0, 2.0, 3.0], [1.0, 1.0, 2.0])
    with pytest.raises(ValueError, match="b must be an integer >= 1"):
        q.prune(0)
    with pytest.raises(TypeError, match="b must be an integer"):
        q.prune(2.0)
    with pytest.raises(ValueError, match="n_bins"):
        q.cut_points(0)
    with pytest.raises(ValueError, match=r"rank must lie in \[0, total_weight\]"):
        q.query([0.5, 4.5])
    with pytest.raises(ValueError, match="rank must lie"):
        q.query(-1e-6)
    assert q.query(4.0 + 1e-12) == 3.0  # the rounding of another summation order
    with pytest.raises(ValueError, match="rank contains NaN"):
        q.query(np.nan)
    with pytest.raises(TypeError, match="other must be a WeightedQuantileSummary"):
        q.merge([1.0, 2.0])


def test_constructor_checks_shapes_and_order():
    with pytest.raises(ValueError, match="strictly increasing"):
        WeightedQuantileSummary(np.array([2.0, 1.0]), np.zeros(2), np.ones(2), np.zeros(2), 1.0)
    with pytest.raises(ValueError, match="rmax has 1 entries"):
        WeightedQuantileSummary(np.array([1.0, 2.0]), np.zeros(2), np.ones(1), np.zeros(2), 1.0)
    with pytest.raises(ValueError, match="total_weight"):
        WeightedQuantileSummary(np.array([1.0]), np.zeros(1), np.ones(1), np.ones(1), -1.0)
    q = WeightedQuantileSummary.from_data([1.0, 2.0])
    with pytest.raises(ValueError, match="read-only"):
        q.rmin[0] = 5.0
