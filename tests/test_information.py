"""Example-based tests for ``mltrees.information`` (chapter 1).

Every expected number is worked out by hand in the test (closed forms with
``math.log2``), taken from a published example, or computed by an independent
library (scipy, scikit-learn). None is copied from the code under test.
"""

import math
from collections import Counter

import numpy as np
import pytest
import scipy.stats
from sklearn.metrics import mutual_info_score
from sklearn.metrics.cluster import contingency_matrix

from mltrees import (
    conditional_entropy,
    contingency_table,
    empirical_entropy,
    entropy,
    joint_entropy,
    kl_divergence,
    mutual_information,
)

LOG2_3 = math.log2(3)


def _h_bits(*counts):
    """Entropy in bits of a list of counts, by the textbook formula (independent of mltrees)."""
    total = sum(counts)
    return -sum(c / total * math.log2(c / total) for c in counts if c)


# ---------------------------------------------------------------------------
# Hand-computed values
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("p", "expected"),
    [
        ([0.5, 0.5], 1.0),
        ([0.25, 0.25, 0.25, 0.25], 2.0),
        ([0.5, 0.25, 0.25], 1.5),  # 1/2*1 + 2 * 1/4*2
        ([1.0, 0.0, 0.0], 0.0),
        ([1 / 3, 2 / 3], LOG2_3 - 2 / 3),  # 1/3 log 3 + 2/3 log 3/2
        ([1 / 8] * 8, 3.0),
    ],
)
def test_entropy_hand_values(p, expected):
    assert entropy(p) == pytest.approx(expected, abs=1e-12)


def test_entropy_bases_hand_values():
    assert entropy([0.5, 0.5], base=math.e) == pytest.approx(math.log(2), abs=1e-15)
    assert entropy([0.1] * 10, base=10) == pytest.approx(1.0, abs=1e-12)
    assert entropy([0.25] * 4, base=4) == pytest.approx(1.0, abs=1e-12)
    # The default base is 2 (bits).
    assert entropy([0.25] * 4) == pytest.approx(2.0, abs=1e-12)


def test_entropy_integer_input_is_counts_by_default():
    # [1, 1, 2] are counts -> probabilities [1/4, 1/4, 1/2] -> 1.5 bits.
    assert entropy([1, 1, 2]) == pytest.approx(1.5, abs=1e-12)
    assert entropy([1.0, 1.0, 2.0], counts=True) == pytest.approx(1.5, abs=1e-12)
    assert entropy(np.array([True, True])) == pytest.approx(1.0, abs=1e-12)


def test_joint_entropy_hand_values():
    assert joint_entropy([[0.25, 0.25], [0.25, 0.25]]) == pytest.approx(2.0, abs=1e-12)
    assert joint_entropy([[0.5, 0.0], [0.25, 0.25]]) == pytest.approx(1.5, abs=1e-12)
    assert joint_entropy([[1, 0], [0, 1]]) == pytest.approx(1.0, abs=1e-12)


# The table used for the asymmetry examples; rows are X, columns are Y:
#   p(x0, y0) = 1/2, p(x0, y1) = 0, p(x1, y0) = 1/4, p(x1, y1) = 1/4.
# H(Y|X) = p(x0) H(1, 0) + p(x1) H(1/2, 1/2) = 1/2 * 0 + 1/2 * 1 = 1/2.
# H(X|Y) = p(y0) H(2/3, 1/3) + p(y1) H(0, 1) = 3/4 (log2 3 - 2/3) = 3/4 log2 3 - 1/2.
# H(X) = 1, H(Y) = H(3/4, 1/4) = 2 - 3/4 log2 3, H(X, Y) = 3/2.
# I(X; Y) = H(Y) - H(Y|X) = 3/2 - 3/4 log2 3.
ASYM = np.array([[0.5, 0.0], [0.25, 0.25]])
H_Y_GIVEN_X = 0.5
H_X_GIVEN_Y = 0.75 * LOG2_3 - 0.5
I_XY = 1.5 - 0.75 * LOG2_3


def test_conditional_entropy_is_asymmetric_hand_example():
    assert conditional_entropy(ASYM) == pytest.approx(H_Y_GIVEN_X, abs=1e-12)
    assert conditional_entropy(ASYM.T) == pytest.approx(H_X_GIVEN_Y, abs=1e-12)
    assert abs(H_Y_GIVEN_X - H_X_GIVEN_Y) > 0.1


def test_mutual_information_hand_example():
    assert mutual_information(ASYM) == pytest.approx(I_XY, abs=1e-12)
    assert mutual_information(ASYM.T) == pytest.approx(I_XY, abs=1e-12)
    # I = H(X) - H(X|Y) = 1 - (3/4 log2 3 - 1/2): the same closed form.
    assert mutual_information(ASYM) == pytest.approx(1.0 - H_X_GIVEN_Y, abs=1e-12)


def test_mutual_information_extremes_hand_values():
    assert mutual_information([[0.5, 0.0], [0.0, 0.5]]) == pytest.approx(1.0, abs=1e-12)
    assert mutual_information([[0.25, 0.25], [0.25, 0.25]]) == pytest.approx(0.0, abs=1e-15)
    # Y a copy of a uniform variable over 4 values: I = H = 2 bits.
    assert mutual_information(np.eye(4, dtype=int)) == pytest.approx(2.0, abs=1e-12)
    assert mutual_information(np.eye(4) / 4, base=math.e) == pytest.approx(math.log(4))


def test_conditional_entropy_deterministic_and_independent():
    # Y a function of X: H(Y|X) = 0.
    assert conditional_entropy([[3, 0], [0, 5], [2, 0]]) == pytest.approx(0.0, abs=1e-15)
    # Independent: H(Y|X) = H(Y) = H(1/4, 3/4) = 2 - 3/4 log2 3.
    table = np.outer([0.5, 0.5], [0.25, 0.75])
    assert conditional_entropy(table) == pytest.approx(2 - 0.75 * LOG2_3, abs=1e-12)


def test_kl_divergence_is_asymmetric_hand_example():
    # KL(p||q) = 1/2 log2(2) + 1/2 log2(2/3) = 1 - 1/2 log2 3
    # KL(q||p) = 1/4 log2(1/2) + 3/4 log2(3/2) = 3/4 log2 3 - 1
    p, q = [0.5, 0.5], [0.25, 0.75]
    assert kl_divergence(p, q) == pytest.approx(1 - 0.5 * LOG2_3, abs=1e-12)
    assert kl_divergence(q, p) == pytest.approx(0.75 * LOG2_3 - 1, abs=1e-12)
    assert abs(kl_divergence(p, q) - kl_divergence(q, p)) > 0.01


def test_kl_divergence_support_cases():
    # q = 0 where p > 0: infinite.
    assert kl_divergence([0.5, 0.5], [1.0, 0.0]) == math.inf
    # p = 0 where q > 0 is fine: KL([1, 0] || [1/2, 1/2]) = log2 2 = 1.
    assert kl_divergence([1.0, 0.0], [0.5, 0.5]) == pytest.approx(1.0, abs=1e-12)
    assert kl_divergence([0.2, 0.8], [0.2, 0.8]) == 0.0


def test_kl_divergence_infinity_is_per_distribution_in_a_batch():
    p = np.array([[0.5, 0.5], [0.5, 0.5], [1.0, 0.0]])
    q = np.array([[1.0, 0.0], [0.5, 0.5], [0.5, 0.5]])
    got = kl_divergence(p, q)
    assert isinstance(got, np.ndarray)
    assert got.shape == (3,)
    assert got[0] == math.inf
    assert got[1] == pytest.approx(0.0, abs=1e-15)
    assert got[2] == pytest.approx(1.0, abs=1e-12)


def test_kl_divergence_counts():
    # [1, 1] and [1, 3] as counts are the hand example above.
    assert kl_divergence([1, 1], [1, 3]) == pytest.approx(1 - 0.5 * LOG2_3, abs=1e-12)
    assert kl_divergence([2.0, 2.0], [1.0, 3.0], counts=True) == pytest.approx(
        1 - 0.5 * LOG2_3, abs=1e-12
    )


# ---------------------------------------------------------------------------
# Return types and shapes
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "call",
    [
        lambda: entropy([0.3, 0.7]),
        lambda: entropy([3, 7]),
        lambda: joint_entropy([[0.1, 0.2], [0.3, 0.4]]),
        lambda: conditional_entropy([[0.1, 0.2], [0.3, 0.4]]),
        lambda: mutual_information([[0.1, 0.2], [0.3, 0.4]]),
        lambda: kl_divergence([0.3, 0.7], [0.5, 0.5]),
        lambda: empirical_entropy(["a", "b", "b"]),
        lambda: empirical_entropy(["a", "b", "b"], sample_weight=[1.0, 2.0, 0.5]),
    ],
)
def test_single_distribution_gives_python_float(call):
    assert type(call()) is float


def test_miller_madow_gives_python_float():
    assert type(empirical_entropy(["a", "b", "b"], correction="miller-madow")) is float


@pytest.mark.parametrize(
    "call",
    [
        lambda: entropy([1, 0]),
        lambda: joint_entropy([[1, 0], [0, 0]]),
        lambda: conditional_entropy([[1, 0], [0, 1]]),
    ],
)
def test_zero_entropy_is_positive_zero(call):
    assert math.copysign(1.0, call()) == 1.0


def test_batch_gives_array_with_batch_shape():
    p = np.full((2, 3, 4), 0.25)
    assert entropy(p).shape == (2, 3)
    assert kl_divergence(p, p).shape == (2, 3)
    tables = np.full((5, 2, 2), 0.25)
    for f in (joint_entropy, conditional_entropy, mutual_information):
        got = f(tables)
        assert isinstance(got, np.ndarray)
        assert got.shape == (5,)
    np.testing.assert_allclose(joint_entropy(tables), 2.0)
    np.testing.assert_allclose(mutual_information(tables), 0.0, atol=1e-15)


def test_batch_entries_are_independent_distributions():
    p = np.array([[0.5, 0.5, 0.0, 0.0], [0.25, 0.25, 0.25, 0.25], [1.0, 0.0, 0.0, 0.0]])
    np.testing.assert_allclose(entropy(p), [1.0, 2.0, 0.0], atol=1e-12)
    counts = np.array([[[1, 1], [0, 0]], [[1, 0], [0, 1]]])  # each table normalised alone
    np.testing.assert_allclose(mutual_information(counts), [0.0, 1.0], atol=1e-12)


def test_probabilities_within_tolerance_are_accepted():
    assert entropy([0.5, 0.5 + 1e-10]) == pytest.approx(1.0, abs=1e-8)
    assert entropy([0.1] * 10) == pytest.approx(math.log2(10))  # sums to 0.9999999999999999
    # ... but the tolerance is tight: 1e-6 off is not rounding error.
    with pytest.raises(ValueError, match="sum to 1"):
        entropy([0.5, 0.5 + 1e-6])
    with pytest.raises(ValueError, match="sum to 1"):
        joint_entropy([[0.25, 0.25], [0.25, 0.25 - 1e-6]])


# ---------------------------------------------------------------------------
# Cross-checks against scipy and scikit-learn
# ---------------------------------------------------------------------------


def test_entropy_matches_scipy():
    rng = np.random.default_rng(1)
    p = rng.dirichlet(np.ones(7), size=(4, 3))
    p[0, 0, :3] = 0.0
    p /= p.sum(axis=-1, keepdims=True)
    np.testing.assert_allclose(entropy(p), scipy.stats.entropy(p, base=2, axis=-1), rtol=1e-12)
    np.testing.assert_allclose(entropy(p, base=math.e), scipy.stats.entropy(p, axis=-1), rtol=1e-12)


def test_kl_divergence_matches_scipy():
    rng = np.random.default_rng(2)
    p = rng.dirichlet(np.ones(5), size=10)
    q = rng.dirichlet(np.ones(5), size=10)
    q[0, 1] = 0.0  # one infinite divergence
    q /= q.sum(axis=-1, keepdims=True)
    expected = scipy.stats.entropy(p, q, base=2, axis=-1)
    assert expected[0] == math.inf
    np.testing.assert_allclose(kl_divergence(p, q), expected, rtol=1e-12)
    np.testing.assert_allclose(
        kl_divergence(p, q, base=math.e), scipy.stats.entropy(p, q, axis=-1), rtol=1e-12
    )


def test_joint_and_conditional_entropy_match_scipy():
    rng = np.random.default_rng(3)
    table = rng.dirichlet(np.ones(12)).reshape(3, 4)
    assert joint_entropy(table) == pytest.approx(scipy.stats.entropy(table.ravel(), base=2))
    # H(Y|X) = sum_x p(x) H(Y | X = x)
    px = table.sum(axis=1)
    expected = sum(px[i] * scipy.stats.entropy(table[i] / px[i], base=2) for i in range(3))
    assert conditional_entropy(table) == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize("seed", range(5))
def test_mutual_information_matches_sklearn_on_labels(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 200))
    x = rng.integers(0, int(rng.integers(1, 6)), size=n)
    y = (x + rng.integers(0, int(rng.integers(1, 4)), size=n)) % 4  # dependent on x
    table, _, _ = contingency_table(x, y)
    expected_nats = mutual_info_score(x, y)
    assert mutual_information(table, base=math.e, counts=True) == pytest.approx(
        expected_nats, abs=1e-12
    )
    # mutual_info_score is in nats; bits = nats / ln 2.
    assert mutual_information(table, counts=True) == pytest.approx(
        expected_nats / math.log(2), abs=1e-12
    )
    assert mutual_info_score(None, None, contingency=table) == pytest.approx(
        mutual_information(table, base=math.e, counts=True), abs=1e-12
    )


def test_contingency_table_matches_sklearn():
    rng = np.random.default_rng(4)
    x = rng.choice(["a", "b", "c"], size=100)
    y = rng.integers(0, 4, size=100)
    table, xv, yv = contingency_table(x, y)
    np.testing.assert_array_equal(table, contingency_matrix(x, y))
    np.testing.assert_array_equal(xv, ["a", "b", "c"])
    np.testing.assert_array_equal(yv, [0, 1, 2, 3])


# ---------------------------------------------------------------------------
# Published worked example: Quinlan (1986), "Induction of decision trees", table 1
# ---------------------------------------------------------------------------

# outlook, temperature, humidity, windy, play
WEATHER = [
    ("sunny", "hot", "high", False, "no"),
    ("sunny", "hot", "high", True, "no"),
    ("overcast", "hot", "high", False, "yes"),
    ("rain", "mild", "high", False, "yes"),
    ("rain", "cool", "normal", False, "yes"),
    ("rain", "cool", "normal", True, "no"),
    ("overcast", "cool", "normal", True, "yes"),
    ("sunny", "mild", "high", False, "no"),
    ("sunny", "cool", "normal", False, "yes"),
    ("rain", "mild", "normal", False, "yes"),
    ("sunny", "mild", "normal", True, "yes"),
    ("overcast", "mild", "high", True, "yes"),
    ("overcast", "hot", "normal", False, "yes"),
    ("rain", "mild", "high", True, "no"),
]
PLAY = [row[-1] for row in WEATHER]
# By hand: H(9/14, 5/14) = -(9/14) log2(9/14) - (5/14) log2(5/14).
H_PLAY = -(9 / 14) * math.log2(9 / 14) - (5 / 14) * math.log2(5 / 14)


def test_quinlan_weather_play_entropy():
    assert round(H_PLAY, 3) == 0.940  # the published number, from the hand formula
    assert entropy([9, 5]) == pytest.approx(H_PLAY, abs=1e-12)
    assert round(entropy([9, 5]), 3) == 0.940
    assert empirical_entropy(PLAY) == pytest.approx(H_PLAY, abs=1e-12)


def test_quinlan_weather_outlook_gain():
    # Rows: sunny, overcast, rain; columns: yes, no.
    table = np.array([[2, 3], [4, 0], [3, 2]])
    # Gain = H(S) - sum_v |S_v|/|S| H(S_v), by hand.
    remainder = 5 / 14 * _h_bits(2, 3) + 4 / 14 * _h_bits(4, 0) + 5 / 14 * _h_bits(3, 2)
    exact = H_PLAY - remainder  # 0.24675
    assert mutual_information(table, counts=True) == pytest.approx(exact, abs=1e-12)
    assert conditional_entropy(table) == pytest.approx(remainder, abs=1e-12)
    # Quinlan prints 0.246: he rounds the intermediate entropies (0.940 - 0.694).
    # The exact value rounds to 0.247, so compare with the published one to 1e-3.
    assert abs(mutual_information(table) - 0.246) < 1e-3
    assert round(0.940 - round(remainder, 3), 3) == 0.246


@pytest.mark.parametrize(
    ("column", "expected_table", "published"),
    [
        # values sorted alphabetically; columns are ["no", "yes"]
        (0, [[0, 4], [2, 3], [3, 2]], 0.246),  # overcast, rain, sunny
        (1, [[1, 3], [2, 2], [2, 4]], 0.029),  # cool, hot, mild
        (2, [[4, 3], [1, 6]], 0.151),  # high, normal
        (3, [[2, 6], [3, 3]], 0.048),  # False, True
    ],
)
def test_quinlan_weather_all_gains_from_raw_labels(column, expected_table, published):
    attribute = [row[column] for row in WEATHER]
    table, _, play_values = contingency_table(attribute, PLAY)
    np.testing.assert_array_equal(play_values, ["no", "yes"])
    np.testing.assert_array_equal(table, expected_table)
    exact = H_PLAY - sum(sum(r) / 14 * _h_bits(*r) for r in expected_table)
    gain = mutual_information(table, counts=True)
    assert gain == pytest.approx(exact, abs=1e-12)
    assert abs(gain - published) < 1e-3
    assert mutual_info_score(attribute, PLAY) / math.log(2) == pytest.approx(gain, abs=1e-12)


# ---------------------------------------------------------------------------
# empirical_entropy
# ---------------------------------------------------------------------------


def test_empirical_entropy_equals_entropy_of_frequencies():
    rng = np.random.default_rng(5)
    y = rng.integers(0, 6, size=50)
    freq = np.array(list(Counter(y.tolist()).values()))
    assert empirical_entropy(y) == pytest.approx(scipy.stats.entropy(freq, base=2), abs=1e-12)
    assert empirical_entropy(y, base=math.e) == pytest.approx(scipy.stats.entropy(freq), abs=1e-12)


def test_empirical_entropy_string_labels():
    assert empirical_entropy(["cat", "dog", "cat", "dog"]) == pytest.approx(1.0, abs=1e-12)
    assert empirical_entropy(np.array(["a", "b", "c", "d"])) == pytest.approx(2.0, abs=1e-12)
    assert empirical_entropy(["only"] * 5) == pytest.approx(0.0, abs=1e-15)
    assert empirical_entropy([True, False, False, False]) == pytest.approx(
        2 - 0.75 * LOG2_3, abs=1e-12
    )


def test_empirical_entropy_sample_weight_equals_repeating_samples():
    y = np.array(["a", "b", "c", "a", "b"])
    w = np.array([3, 0, 2, 1, 4])
    expected = empirical_entropy(np.repeat(y, w))  # a x4, b x4, c x2
    assert expected == pytest.approx(_h_bits(4, 4, 2), abs=1e-12)
    assert empirical_entropy(y, sample_weight=w) == pytest.approx(expected, abs=1e-12)
    assert empirical_entropy(y, sample_weight=w.astype(float) / 7) == pytest.approx(
        expected, abs=1e-12
    )


@pytest.mark.parametrize("base", [2, math.e, 10])
def test_miller_madow_adds_k_minus_1_over_2n_nats(base):
    y = ["a"] * 5 + ["b"] * 3 + ["c"] * 2 + ["d"]  # K = 4 observed labels, N = 11
    plug_in = empirical_entropy(y, base=base)
    corrected = empirical_entropy(y, base=base, correction="miller-madow")
    assert (corrected - plug_in) * math.log(base) == pytest.approx(3 / 22, rel=1e-12)
    assert plug_in == pytest.approx(_h_bits(5, 3, 2, 1) / math.log2(base), rel=1e-12)


def test_miller_madow_single_label_adds_nothing():
    assert empirical_entropy([7, 7, 7], correction="miller-madow") == pytest.approx(0.0, abs=1e-15)


def test_plug_in_entropy_is_biased_low_and_miller_madow_helps():
    rng = np.random.default_rng(0)
    draws = [rng.integers(0, 8, size=20) for _ in range(2000)]
    plug_in = np.array([empirical_entropy(d) for d in draws])
    mm = np.array([empirical_entropy(d, correction="miller-madow") for d in draws])
    true_h = 3.0  # uniform over 8 outcomes
    se = plug_in.std(ddof=1) / math.sqrt(plug_in.size)
    assert true_h - plug_in.mean() > 3 * se
    assert abs(mm.mean() - true_h) < abs(plug_in.mean() - true_h)
    assert (plug_in <= true_h + 1e-12).all()  # no sample of 20 can exceed log2 8


def test_empirical_entropy_correction_with_sample_weight_raises():
    with pytest.raises(ValueError, match="sample_weight"):
        empirical_entropy([1, 2], sample_weight=[1, 1], correction="miller-madow")


@pytest.mark.parametrize("correction", ["miller_madow", "MM", "jackknife", 1])
def test_empirical_entropy_unknown_correction_raises(correction):
    with pytest.raises(ValueError, match="correction must be None or 'miller-madow'"):
        empirical_entropy([1, 2], correction=correction)


# ---------------------------------------------------------------------------
# contingency_table
# ---------------------------------------------------------------------------


def test_contingency_table_hand_example():
    x = ["a", "b", "a", "c", "b", "a"]
    y = [1, 0, 1, 1, 0, 0]
    table, xv, yv = contingency_table(x, y)
    np.testing.assert_array_equal(xv, ["a", "b", "c"])
    np.testing.assert_array_equal(yv, [0, 1])
    # a: y = 1, 1, 0; b: y = 0, 0; c: y = 1
    np.testing.assert_array_equal(table, [[1, 2], [2, 0], [0, 1]])


def test_contingency_table_weighted_hand_example():
    x = ["a", "b", "a", "c", "b", "a"]
    y = [1, 0, 1, 1, 0, 0]
    w = [1, 2, 3, 4, 5, 6]
    table, _, _ = contingency_table(x, y, sample_weight=w)
    # a: (y=1, w=1), (y=1, w=3), (y=0, w=6); b: (0, 2), (0, 5); c: (1, 4)
    np.testing.assert_allclose(table, [[6, 4], [7, 0], [0, 4]])


def test_contingency_table_mismatched_lengths_raise():
    with pytest.raises(ValueError, match="x and y must have the same length"):
        contingency_table([1, 2, 3], [1, 2])


# ---------------------------------------------------------------------------
# Bad input
# ---------------------------------------------------------------------------

DIST_FUNCTIONS_1D = [
    pytest.param(entropy, id="entropy"),
    pytest.param(lambda p, **kw: kl_divergence(p, p, **kw), id="kl_divergence"),
]
DIST_FUNCTIONS_2D = [
    pytest.param(joint_entropy, id="joint_entropy"),
    pytest.param(conditional_entropy, id="conditional_entropy"),
    pytest.param(mutual_information, id="mutual_information"),
]


@pytest.mark.parametrize("f", DIST_FUNCTIONS_1D)
@pytest.mark.parametrize(
    ("value", "match"),
    [
        ([0.5, -0.5, 1.0], "negative entries"),
        ([2, -1], "negative entries"),
        ([0.5, np.nan], "contains NaN"),
        ([0.5, np.inf], "contains inf"),
        (np.zeros(0), r"is empty \(shape \(0,\)\)"),
        (np.zeros((3, 0)), r"is empty \(shape \(3, 0\)\)"),
        (0.5, r"must have at least 1 axis.*shape \(\)"),
        ([0.5, 0.6], "sum to 1.*counts=True"),
        ([0.2, 0.2], "sum to 1.*counts=True"),
        ([0, 0, 0], "all zero"),
        ([[1, 1], [0, 0]], "all zero"),
    ],
)
def test_bad_distribution_1d(f, value, match):
    with pytest.raises(ValueError, match=match):
        f(value)


def test_ragged_distribution_raises():
    with pytest.raises(ValueError, match="p must be a rectangular array of numbers"):
        entropy([[1, 2], [3]])
    with pytest.raises(ValueError, match="pxy must be a rectangular array of numbers"):
        mutual_information([[1, 2], [3]])


def test_kl_divergence_ragged_input_names_the_argument():
    with pytest.raises(ValueError, match="p must be a rectangular array of numbers"):
        kl_divergence([[1, 2], [3]], [[1, 2], [3]])


@pytest.mark.parametrize("f", DIST_FUNCTIONS_2D)
@pytest.mark.parametrize(
    ("value", "match"),
    [
        ([[0.5, -0.5], [0.5, 0.5]], "pxy has negative entries"),
        ([[0.5, np.nan], [0.25, 0.25]], "pxy contains NaN"),
        ([[0.5, np.inf], [0.25, 0.25]], "pxy contains inf"),
        ([0.5, 0.5], r"pxy must have at least 2 axes.*shape \(2,\)"),
        (np.zeros(0), "pxy must have at least 2 axes"),
        (1.0, "pxy must have at least 2 axes"),
        (np.zeros((3, 0)), "pxy is empty"),
        ([[0.5, 0.5], [0.5, 0.5]], "pxy must sum to 1.*counts=True"),
        ([[0, 0], [0, 0]], "pxy has a distribution whose entries are all zero"),
    ],
)
def test_bad_distribution_2d(f, value, match):
    with pytest.raises(ValueError, match=match):
        f(value)


def test_unnormalised_floats_suggest_counts_true():
    with pytest.raises(ValueError, match="counts=True"):
        entropy([9.0, 5.0])
    assert entropy([9.0, 5.0], counts=True) == pytest.approx(H_PLAY, abs=1e-12)


@pytest.mark.parametrize(
    "call",
    [
        lambda: entropy(np.array([0, 1]), counts=False),
        lambda: entropy(np.array([False, True]), counts=False),
        lambda: joint_entropy(np.array([[0, 1], [0, 0]]), counts=False),
        lambda: kl_divergence([0, 1], [0, 1], counts=False),
    ],
)
def test_counts_false_accepts_integer_probabilities(call):
    assert call() == pytest.approx(0.0, abs=1e-15)


def test_counts_false_rejects_unnormalised_integers_with_clear_message():
    with pytest.raises(ValueError, match="sum to 1"):
        entropy([9, 5], counts=False)


@pytest.mark.filterwarnings("ignore:divide by zero:RuntimeWarning")
def test_mutual_information_with_tiny_entries_is_finite():
    table = np.array([[1.0, 1e-200], [1e-200, 1e-200]])  # sums to 1.0 in float64
    mi = mutual_information(table)
    bound = min(entropy(table.sum(axis=1)), entropy(table.sum(axis=0)))
    assert mi <= bound + 1e-12


def test_float16_probabilities_summing_to_two_are_rejected():
    p = np.full(64, 2 / 64, dtype=np.float16)
    with pytest.raises(ValueError, match="sum to 1"):
        entropy(p)


def test_kl_divergence_bad_input():
    with pytest.raises(ValueError, match=r"same shape.*\(2,\).*\(3,\)"):
        kl_divergence([0.5, 0.5], [0.2, 0.3, 0.5])
    with pytest.raises(ValueError, match="same shape"):
        kl_divergence(np.full((2, 2), 0.5), [0.5, 0.5])  # no broadcasting
    with pytest.raises(ValueError, match="q has negative entries"):
        kl_divergence([0.5, 0.5], [1.5, -0.5])
    with pytest.raises(ValueError, match="q contains NaN"):
        kl_divergence([0.5, 0.5], [np.nan, 0.5])
    with pytest.raises(ValueError, match="p must sum to 1"):
        kl_divergence([0.5, 0.6], [0.5, 0.5])
    with pytest.raises(TypeError, match="q must hold real numbers"):
        kl_divergence([0.5, 0.5], ["a", "b"])


@pytest.mark.parametrize(
    "f",
    [
        pytest.param(entropy, id="entropy"),
        pytest.param(lambda v: kl_divergence(v, v), id="kl_divergence"),
        pytest.param(lambda v: joint_entropy([v, v]), id="joint_entropy"),
        pytest.param(lambda v: conditional_entropy([v, v]), id="conditional_entropy"),
        pytest.param(lambda v: mutual_information([v, v]), id="mutual_information"),
    ],
)
@pytest.mark.parametrize(
    ("value", "dtype_text"),
    [
        (["0.5", "0.5"], "dtype <U3"),
        (np.array([0.5 + 0j, 0.5]), "complex128"),
        (np.array([0.5, 0.5], dtype=object), "object"),
        ([None, None], "object"),
    ],
)
def test_non_numeric_distribution_raises_type_error(f, value, dtype_text):
    with pytest.raises(TypeError, match=f"must hold real numbers.*{dtype_text}"):
        f(value)


@pytest.mark.parametrize("bad", [0, 1, 1.0, -2, math.nan, math.inf, -math.inf, np.float64(0.0)])
@pytest.mark.parametrize(
    "f",
    [
        lambda base: entropy([0.5, 0.5], base=base),
        lambda base: joint_entropy([[0.5, 0.5]], base=base),
        lambda base: conditional_entropy([[0.5, 0.5]], base=base),
        lambda base: mutual_information([[0.5, 0.5]], base=base),
        lambda base: kl_divergence([0.5, 0.5], [0.5, 0.5], base=base),
        lambda base: empirical_entropy([1, 2], base=base),
        lambda base: empirical_entropy([1, 2], base=base, correction="miller-madow"),
    ],
)
def test_invalid_base_value_raises(f, bad):
    with pytest.raises(ValueError, match="base must be positive, finite and different from 1"):
        f(bad)


@pytest.mark.parametrize("bad", ["2", True, False, np.True_, None, 2 + 0j, [2]])
def test_invalid_base_type_raises(bad):
    with pytest.raises(TypeError, match="base must be a real number"):
        entropy([0.5, 0.5], base=bad)
    with pytest.raises(TypeError, match="base must be a real number"):
        mutual_information([[0.5, 0.5]], base=bad)


def test_valid_unusual_bases():
    assert entropy([0.5, 0.5], base=np.int64(2)) == pytest.approx(1.0)
    assert entropy([0.5, 0.5], base=np.float32(4)) == pytest.approx(0.5)


@pytest.mark.parametrize("bad", ["yes", 1, 0, 1.0, "True", [True]])
@pytest.mark.parametrize(
    "f",
    [
        lambda c: entropy([0.5, 0.5], counts=c),
        lambda c: joint_entropy([[0.5, 0.5]], counts=c),
        lambda c: conditional_entropy([[0.5, 0.5]], counts=c),
        lambda c: mutual_information([[0.5, 0.5]], counts=c),
        lambda c: kl_divergence([0.5, 0.5], [0.5, 0.5], counts=c),
    ],
)
def test_invalid_counts_argument_raises(f, bad):
    with pytest.raises(TypeError, match="counts must be True, False or None"):
        f(bad)


def test_numpy_bool_counts_argument_is_accepted():
    assert entropy([1.0, 3.0], counts=np.True_) == pytest.approx(_h_bits(1, 3))


LABEL_FUNCTIONS = [
    pytest.param(lambda v: empirical_entropy(v), id="empirical_entropy"),
    pytest.param(lambda v: contingency_table(v, list(range(len(v)))), id="contingency_x"),
    pytest.param(lambda v: contingency_table(list(range(len(v))), v), id="contingency_y"),
]


@pytest.mark.parametrize("f", LABEL_FUNCTIONS)
@pytest.mark.parametrize(
    ("labels", "match"),
    [
        ([1.0, np.nan, 2.0], "contains NaN"),
        (np.array([1.0, np.nan], dtype=np.float32), "contains NaN"),
        (["a", None, "b"], r"contains missing values \(None or NaN\)"),
        ([1, None], "missing values"),
        (np.array(["a", np.nan], dtype=object), "missing values"),
    ],
)
def test_missing_labels_raise(f, labels, match):
    with pytest.raises(ValueError, match=match):
        f(labels)


@pytest.mark.parametrize("f", LABEL_FUNCTIONS)
def test_nan_among_string_labels_raises(f):
    with pytest.raises(ValueError, match="NaN"):
        f(["a", float("nan"), "b"])


def test_bad_label_shapes_raise():
    with pytest.raises(ValueError, match=r"y must be one-dimensional.*\(2, 2\)"):
        empirical_entropy([[1, 2], [3, 4]])
    with pytest.raises(ValueError, match=r"y must be one-dimensional.*\(\)"):
        empirical_entropy(3)
    with pytest.raises(ValueError, match="x must be one-dimensional"):
        contingency_table([[1, 2]], [1, 2])
    with pytest.raises(ValueError, match="y must be one-dimensional"):
        contingency_table([1, 2], [[1, 2]])
    with pytest.raises(ValueError, match="y is empty"):
        empirical_entropy([])
    with pytest.raises(ValueError, match="x is empty"):
        contingency_table([], [])


@pytest.mark.parametrize(
    ("weight", "match", "exc"),
    [
        ([1.0, -1.0, 1.0], "sample_weight has negative entries", ValueError),
        ([1.0, 1.0], r"sample_weight must have shape \(3,\).*\(2,\)", ValueError),
        ([[1.0, 1.0, 1.0]], r"sample_weight must have shape \(3,\)", ValueError),
        ([1.0, np.nan, 1.0], "sample_weight contains NaN or inf", ValueError),
        ([1.0, np.inf, 1.0], "sample_weight contains NaN or inf", ValueError),
        ([0, 0, 0], "sample_weight sums to zero", ValueError),
        (["1", "1", "1"], "sample_weight must hold real numbers", TypeError),
    ],
)
@pytest.mark.parametrize(
    "f",
    [
        pytest.param(lambda w: empirical_entropy(["a", "b", "a"], sample_weight=w), id="empirical"),
        pytest.param(
            lambda w: contingency_table(["a", "b", "a"], [1, 1, 2], sample_weight=w),
            id="contingency",
        ),
    ],
)
def test_bad_sample_weight_raises(f, weight, match, exc):
    with pytest.raises(exc, match=match):
        f(weight)
