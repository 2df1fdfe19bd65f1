"""Property-based tests: one per statement of chapter 1, on random distributions.

Distributions are drawn as non-negative weights of random shape (with leading
batch axes) and normalised; integer counts are used where a strict inequality
must be bounded away from rounding error.
"""

import math

import numpy as np
import pytest
import scipy.stats
from hypothesis import assume, given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from sklearn.metrics import mutual_info_score

from mltrees import (
    conditional_entropy,
    contingency_table,
    empirical_entropy,
    entropy,
    joint_entropy,
    kl_divergence,
    mutual_information,
)

BASES = [2, math.e, 10]
ATOL = 1e-10

# Positive weights span 300 orders of magnitude, so products of marginals that would
# underflow (below about 1e-154 each) are exercised; subnormals are left out because
# a ratio p / q with a subnormal q overflows in any float64 implementation.
weight_elements = st.one_of(st.just(0.0), st.floats(min_value=1e-300, max_value=1e3))
count_elements = st.integers(min_value=0, max_value=20)
batch_shapes = hnp.array_shapes(min_dims=0, max_dims=2, min_side=1, max_side=3)


def _fix_empty(w, event_ndim):
    """Give every all-zero distribution a unit mass on its first outcome."""
    axes = tuple(range(-event_ndim, 0))
    zero = w.sum(axis=axes) == 0
    index = (zero, *([0] * event_ndim))
    w[index] = 1
    return w


def _normalise(w, event_ndim):
    axes = tuple(range(-event_ndim, 0))
    return w / w.sum(axis=axes, keepdims=True)


@st.composite
def weights(draw, event_ndim=1, elements=weight_elements, dtype=np.float64, max_side=6):
    """Non-negative weights of shape batch + event; no distribution is all zero."""
    batch = draw(batch_shapes)
    event = draw(hnp.array_shapes(min_dims=event_ndim, max_dims=event_ndim, max_side=max_side))
    w = draw(hnp.arrays(dtype, batch + event, elements=elements))
    return _fix_empty(w, event_ndim)


@st.composite
def distributions(draw, event_ndim=1, **kwargs):
    return _normalise(draw(weights(event_ndim, **kwargs)), event_ndim)


def _loop(f, *arrays, event_ndim):
    """Apply ``f`` distribution by distribution with a plain Python loop."""
    batch = arrays[0].shape[: arrays[0].ndim - event_ndim]
    out = np.empty(batch)
    for idx in np.ndindex(*batch):
        out[idx] = f(*(a[idx] for a in arrays))
    return out


# ---------------------------------------------------------------------------
# Lemma 1: 0 <= H(X) <= log n, with equality cases
# ---------------------------------------------------------------------------


@given(p=distributions(), base=st.sampled_from(BASES))
def test_lemma1_entropy_bounds(p, base):
    h = np.asarray(entropy(p, base=base))
    n = p.shape[-1]
    assert (h >= 0).all()
    assert (h <= math.log(n, base) + ATOL).all()


@given(
    p=distributions(elements=st.one_of(st.just(0.0), st.floats(1e-3, 1.0))),
    base=st.sampled_from(BASES),
)
def test_lemma1_entropy_zero_iff_point_mass(p, base):
    h = np.asarray(entropy(p, base=base))
    point_mass = np.count_nonzero(p, axis=-1) == 1
    np.testing.assert_array_equal(h[point_mass], 0.0)
    assert (h[~point_mass] > 1e-6).all()


@given(
    batch=batch_shapes,
    n=st.integers(1, 30),
    hot=st.integers(0, 29),
    base=st.sampled_from(BASES),
)
def test_lemma1_one_hot_has_zero_entropy(batch, n, hot, base):
    p = np.zeros((*batch, n))
    p[..., hot % n] = 1.0
    np.testing.assert_array_equal(entropy(p, base=base), 0.0)
    np.testing.assert_array_equal(entropy(p.astype(int), base=base), 0.0)


@given(n=st.integers(1, 64), scale=st.integers(1, 1000), base=st.sampled_from(BASES))
def test_lemma1_uniform_attains_log_n(n, scale, base):
    assert entropy(np.full(n, scale), base=base) == pytest.approx(math.log(n, base), abs=ATOL)
    assert entropy(np.full(n, 1 / n), base=base) == pytest.approx(math.log(n, base), abs=ATOL)


@given(c=weights(elements=count_elements, dtype=np.int64, max_side=10), base=st.sampled_from(BASES))
def test_lemma1_log_n_only_for_uniform(c, base):
    h = np.asarray(entropy(c, base=base))
    n = c.shape[-1]
    uniform = (c == c[..., :1]).all(axis=-1)
    np.testing.assert_allclose(h[uniform], math.log(n, base), atol=ATOL)
    # Integer counts (total <= 200) that are not all equal stay a visible gap below log n.
    assert (h[~uniform] < math.log(n, base) - 1e-9).all()
    # The gap is exactly KL(p || uniform), computed here with scipy.
    p = c / c.sum(axis=-1, keepdims=True)
    gap = scipy.stats.entropy(p, np.full_like(p, 1 / n), base=base, axis=-1)
    np.testing.assert_allclose(math.log(n, base) - h, gap, atol=ATOL)


# ---------------------------------------------------------------------------
# Lemma 2: chain rule H(X, Y) = H(X) + H(Y | X) = H(Y) + H(X | Y)
# ---------------------------------------------------------------------------


@given(pxy=distributions(event_ndim=2), base=st.sampled_from(BASES))
def test_lemma2_chain_rule(pxy, base):
    h_xy = joint_entropy(pxy, base=base)
    h_x = entropy(pxy.sum(axis=-1), base=base, counts=True)
    h_y = entropy(pxy.sum(axis=-2), base=base, counts=True)
    pyx = np.swapaxes(pxy, -1, -2)
    np.testing.assert_allclose(h_xy, h_x + conditional_entropy(pxy, base=base), atol=ATOL)
    np.testing.assert_allclose(h_xy, h_y + conditional_entropy(pyx, base=base), atol=ATOL)
    np.testing.assert_allclose(joint_entropy(pyx, base=base), h_xy, atol=ATOL)


@given(pxy=distributions(event_ndim=2))
def test_lemma2_conditioning_reduces_entropy(pxy):
    h_y = entropy(pxy.sum(axis=-2), counts=True)
    h_y_given_x = np.asarray(conditional_entropy(pxy))
    assert (h_y_given_x >= 0).all()
    assert (h_y_given_x <= np.asarray(h_y) + ATOL).all()


# ---------------------------------------------------------------------------
# Corollary 3: I(X; Y) = H(X) - H(X|Y) = H(Y) - H(Y|X), symmetric
# ---------------------------------------------------------------------------


@given(pxy=distributions(event_ndim=2), base=st.sampled_from(BASES))
def test_corollary3_mutual_information_identities(pxy, base):
    pyx = np.swapaxes(pxy, -1, -2)
    mi = mutual_information(pxy, base=base)
    h_x = entropy(pxy.sum(axis=-1), base=base, counts=True)
    h_y = entropy(pxy.sum(axis=-2), base=base, counts=True)
    np.testing.assert_allclose(mi, mutual_information(pyx, base=base), atol=ATOL)
    np.testing.assert_allclose(mi, h_x - conditional_entropy(pyx, base=base), atol=ATOL)
    np.testing.assert_allclose(mi, h_y - conditional_entropy(pxy, base=base), atol=ATOL)
    # and I = H(X) + H(Y) - H(X, Y)
    np.testing.assert_allclose(mi, h_x + h_y - joint_entropy(pxy, base=base), atol=ATOL)


@given(pxy=distributions(event_ndim=2))
def test_corollary3_conditional_entropy_gap_is_marginal_entropy_gap(pxy):
    # H(Y|X) - H(X|Y) = H(Y) - H(X): asymmetric exactly when the marginals' entropies differ.
    pyx = np.swapaxes(pxy, -1, -2)
    h_x = entropy(pxy.sum(axis=-1), counts=True)
    h_y = entropy(pxy.sum(axis=-2), counts=True)
    np.testing.assert_allclose(
        np.asarray(conditional_entropy(pxy)) - conditional_entropy(pyx), h_y - h_x, atol=ATOL
    )


# ---------------------------------------------------------------------------
# Lemma 4: KL(p || q) >= 0, = 0 iff p = q, inf outside the support
# ---------------------------------------------------------------------------


@st.composite
def distribution_pairs(draw, elements=weight_elements, dtype=np.float64):
    batch = draw(batch_shapes)
    n = draw(st.integers(1, 6))
    p = _fix_empty(draw(hnp.arrays(dtype, (*batch, n), elements=elements)), 1)
    q = _fix_empty(draw(hnp.arrays(dtype, (*batch, n), elements=elements)), 1)
    return p, q


@given(pq=distribution_pairs(), base=st.sampled_from(BASES))
def test_lemma4_kl_nonnegative_and_matches_scipy(pq, base):
    p, q = (_normalise(a, 1) for a in pq)
    kl = np.asarray(kl_divergence(p, q, base=base))
    assert (kl >= 0).all()
    expected = scipy.stats.entropy(p, q, base=base, axis=-1)
    np.testing.assert_allclose(kl, expected, rtol=1e-9, atol=ATOL)
    np.testing.assert_array_equal(np.isinf(kl), ((p > 0) & (q == 0)).any(axis=-1))


@given(pq=distribution_pairs(elements=count_elements, dtype=np.int64))
def test_lemma4_kl_zero_iff_equal(pq):
    c, d = pq
    p, q = _normalise(c, 1), _normalise(d, 1)
    assert np.all(np.asarray(kl_divergence(p, p)) == 0)
    kl = np.asarray(kl_divergence(c, d))
    equal = np.isclose(p, q, rtol=0, atol=1e-12).all(axis=-1)
    np.testing.assert_allclose(kl[equal], 0.0, atol=1e-12)
    # Distinct rational distributions with denominators <= 120: a visible positive gap.
    assert (kl[~equal] > 1e-9).all()


@given(pq=distribution_pairs(), data=st.data())
def test_lemma4_kl_infinite_when_q_misses_support(pq, data):
    p, q = pq
    n = p.shape[-1]
    assume(n > 1)
    j = data.draw(st.integers(0, n - 1))
    p[..., j] += 1.0  # p(j) > 0 everywhere
    q[..., j] = 0.0  # q(j) = 0 everywhere
    q[q.sum(axis=-1) == 0, (j + 1) % n] = 1.0  # keep q a distribution
    kl = np.asarray(kl_divergence(p, q, counts=True))
    assert np.isinf(kl).all()
    assert (kl > 0).all()
    # Swapping the roles is finite unless p also misses part of q's support.
    finite = ~((q > 0) & (p == 0)).any(axis=-1)
    assert np.isfinite(np.asarray(kl_divergence(q, p, counts=True))[finite]).all()


# ---------------------------------------------------------------------------
# Corollary 5: I(X; Y) = KL(p(x, y) || p(x) p(y)) >= 0, = 0 for independence
# ---------------------------------------------------------------------------


@given(pxy=distributions(event_ndim=2), base=st.sampled_from(BASES))
def test_corollary5_mi_is_kl_from_product(pxy, base):
    px = pxy.sum(axis=-1)
    py = pxy.sum(axis=-2)
    product = px[..., :, None] * py[..., None, :]
    # Written out as a table, p(x) p(y) can underflow to 0 where p(x, y) > 0, and KL
    # is then rightly inf; mutual_information never forms the product.
    assume(not ((pxy > 0) & (product == 0)).any())
    flat = (*pxy.shape[:-2], -1)
    kl = kl_divergence(pxy.reshape(flat), product.reshape(flat), base=base, counts=True)
    mi = np.asarray(mutual_information(pxy, base=base))
    np.testing.assert_allclose(mi, kl, atol=ATOL)
    assert (mi >= 0).all()


@given(px=distributions(elements=weight_elements), data=st.data(), base=st.sampled_from(BASES))
def test_corollary5_independent_tables_have_zero_mi(px, data, base):
    ny = data.draw(st.integers(1, 6))
    py = data.draw(hnp.arrays(np.float64, (*px.shape[:-1], ny), elements=weight_elements))
    py = _normalise(_fix_empty(py, 1), 1)
    table = px[..., :, None] * py[..., None, :]
    np.testing.assert_allclose(mutual_information(table, base=base, counts=True), 0, atol=ATOL)


# ---------------------------------------------------------------------------
# Vectorisation: a batch equals a loop over its distributions
# ---------------------------------------------------------------------------

batch_3d = hnp.array_shapes(min_dims=3, max_dims=3, min_side=1, max_side=4)


@given(w=hnp.arrays(np.float64, batch_3d, elements=weight_elements))
def test_vectorised_entropy_and_kl_equal_loop(w):
    w = _fix_empty(w, 1)
    p = _normalise(w, 1)
    q = _normalise(w[..., ::-1] + 1.0, 1)
    got = entropy(p)
    assert isinstance(got, np.ndarray)
    assert got.shape == p.shape[:2]
    np.testing.assert_allclose(got, _loop(entropy, p, event_ndim=1), rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(
        kl_divergence(p, q), _loop(kl_divergence, p, q, event_ndim=1), rtol=1e-12, atol=1e-15
    )
    np.testing.assert_allclose(
        entropy(w, counts=True),
        _loop(lambda a: entropy(a, counts=True), w, event_ndim=1),
        rtol=1e-12,
        atol=1e-15,
    )
    for idx in np.ndindex(*p.shape[:2]):
        assert type(entropy(p[idx])) is float
        assert type(kl_divergence(p[idx], q[idx])) is float


@pytest.mark.parametrize("f", [joint_entropy, conditional_entropy, mutual_information])
@given(
    w=hnp.arrays(
        np.float64,
        hnp.array_shapes(min_dims=4, max_dims=4, min_side=1, max_side=4),
        elements=weight_elements,
    )
)
def test_vectorised_joint_functions_equal_loop(f, w):
    p = _normalise(_fix_empty(w, 2), 2)  # shape (a, b, n_x, n_y)
    got = f(p)
    assert isinstance(got, np.ndarray)
    assert got.shape == p.shape[:2]
    np.testing.assert_allclose(got, _loop(f, p, event_ndim=2), rtol=1e-12, atol=1e-15)
    assert type(f(p[0, 0])) is float


# ---------------------------------------------------------------------------
# counts=True is normalisation by hand, and is scale invariant
# ---------------------------------------------------------------------------


@given(w=weights(), scale=st.floats(1e-3, 1e3))
def test_counts_true_equals_normalising_by_hand(w, scale):
    p = _normalise(w, 1)
    np.testing.assert_allclose(entropy(w, counts=True), entropy(p), atol=ATOL)
    np.testing.assert_allclose(entropy(scale * w, counts=True), entropy(p), atol=ATOL)
    np.testing.assert_allclose(
        kl_divergence(w, w[..., ::-1] + 1, counts=True),
        kl_divergence(p, _normalise(w[..., ::-1] + 1, 1)),
        atol=ATOL,
    )


@pytest.mark.parametrize("f", [joint_entropy, conditional_entropy, mutual_information])
@given(c=weights(event_ndim=2, elements=count_elements, dtype=np.int64), k=st.integers(1, 50))
def test_integer_counts_normalised_and_scale_invariant(f, c, k):
    p = _normalise(c, 2)
    np.testing.assert_allclose(f(c), f(p), atol=ATOL)  # ints are counts by default
    np.testing.assert_allclose(f(k * c), f(c), atol=ATOL)
    np.testing.assert_allclose(f(c.astype(float), counts=True), f(p), atol=ATOL)


# ---------------------------------------------------------------------------
# Change of base: H_b = H_e / ln b
# ---------------------------------------------------------------------------


@given(
    p=distributions(),
    pxy=distributions(event_ndim=2),
    base=st.one_of(st.floats(1.1, 1e6), st.floats(1e-3, 0.9)),
)
def test_change_of_base(p, pxy, base):
    ln_b = math.log(base)
    np.testing.assert_allclose(entropy(p, base=base), entropy(p, base=math.e) / ln_b, atol=ATOL)
    np.testing.assert_allclose(
        entropy(p, base=base), np.asarray(entropy(p)) * math.log(2) / ln_b, atol=ATOL
    )
    for f in (joint_entropy, conditional_entropy, mutual_information):
        np.testing.assert_allclose(f(pxy, base=base), f(pxy, base=math.e) / ln_b, atol=ATOL)


# ---------------------------------------------------------------------------
# Labels: empirical estimates versus scipy and scikit-learn
# ---------------------------------------------------------------------------

labels = st.lists(st.integers(0, 5), min_size=1, max_size=60)


@given(data=st.data(), n_x=st.integers(1, 6), n_y=st.integers(1, 6))
def test_mutual_information_of_labels_matches_sklearn(data, n_x, n_y):
    n = data.draw(st.integers(1, 80))
    x = data.draw(st.lists(st.integers(0, n_x - 1), min_size=n, max_size=n))
    y = data.draw(st.lists(st.integers(0, n_y - 1), min_size=n, max_size=n))
    table, _, _ = contingency_table(x, y)
    assert table.sum() == n
    nats = mutual_info_score(x, y)  # scikit-learn reports nats
    assert mutual_information(table, base=math.e, counts=True) == pytest.approx(nats, abs=ATOL)
    assert mutual_information(table, counts=True) == pytest.approx(nats / math.log(2), abs=ATOL)
    assert mutual_info_score(None, None, contingency=table) == pytest.approx(nats, abs=ATOL)


@given(y=labels, base=st.sampled_from(BASES))
def test_empirical_entropy_matches_scipy_on_frequencies(y, base):
    _, freq = np.unique(y, return_counts=True)
    assert empirical_entropy(y, base=base) == pytest.approx(
        scipy.stats.entropy(freq, base=base), abs=ATOL
    )
    # Relabelling to strings changes nothing.
    assert empirical_entropy([f"label-{v}" for v in y], base=base) == pytest.approx(
        scipy.stats.entropy(freq, base=base), abs=ATOL
    )


@given(data=st.data())
def test_empirical_entropy_integer_weights_equal_repetition(data):
    y = data.draw(labels)
    w = data.draw(st.lists(st.integers(0, 5), min_size=len(y), max_size=len(y)))
    assume(sum(w) > 0)
    repeated = np.repeat(np.array(y), w)
    assert empirical_entropy(y, sample_weight=w) == pytest.approx(
        empirical_entropy(repeated), abs=ATOL
    )
    x = data.draw(st.lists(st.integers(0, 3), min_size=len(y), max_size=len(y)))
    weighted, xv, yv = contingency_table(x, y, sample_weight=w)
    plain, xv2, yv2 = contingency_table(np.repeat(np.array(x), w), repeated)
    # Values with zero total weight keep an all-zero row or column in the weighted table.
    rows = np.isin(xv, xv2)
    cols = np.isin(yv, yv2)
    np.testing.assert_array_equal(weighted[np.ix_(rows, cols)], plain)
    assert weighted[~rows].sum() == 0
    assert weighted[:, ~cols].sum() == 0


@given(y=labels, base=st.sampled_from(BASES))
def test_miller_madow_adds_exactly_k_minus_1_over_2n(y, base):
    k = len(set(y))
    n = len(y)
    diff = empirical_entropy(y, base=base, correction="miller-madow") - empirical_entropy(
        y, base=base
    )
    assert diff * math.log(base) == pytest.approx((k - 1) / (2 * n), abs=1e-12)
