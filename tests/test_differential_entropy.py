"""Tests for ``mltrees.information.differential_entropy`` (chapter 1).

Expected values are closed forms worked out by hand (uniform, Gaussian,
exponential) or come from scipy's own differential entropies; none is copied
from the code under test.
"""

import math

import numpy as np
import pytest
import scipy.stats

from mltrees.information import differential_entropy, entropy


def _grid(low, high, n):
    """Cell centres and width of ``n`` equal cells covering ``[low, high]``."""
    dx = (high - low) / n
    return low + dx * (np.arange(n) + 0.5), dx


def test_uniform_on_half_interval_is_minus_one_bit():
    # h(U[0, a]) = lg a by hand; a = 1/2 gives -1 bit: negative, unlike any H(X).
    x, dx = _grid(0.0, 0.5, 1000)
    assert differential_entropy(np.full_like(x, 2.0), dx) == pytest.approx(-1.0, abs=1e-12)


@pytest.mark.parametrize("a", [0.01, 0.3, 1.0, 7.5])
def test_uniform_width_a_gives_lg_a(a):
    x, dx = _grid(0.0, a, 400)
    assert differential_entropy(np.full_like(x, 1 / a), dx) == pytest.approx(
        math.log2(a), abs=1e-12
    )


@pytest.mark.parametrize("sigma", [0.05, 1.0, 20.0])
def test_gaussian_matches_closed_form_and_scipy(sigma):
    # h(N(0, sigma^2)) = 1/2 lg(2 pi e sigma^2), derived in the chapter by hand.
    x, dx = _grid(-12 * sigma, 12 * sigma, 24_000)
    f = scipy.stats.norm.pdf(x, scale=sigma)
    h = differential_entropy(f, dx)
    assert h == pytest.approx(0.5 * math.log2(2 * math.pi * math.e * sigma**2), abs=1e-9)
    assert h == pytest.approx(scipy.stats.norm(scale=sigma).entropy() / math.log(2), abs=1e-9)


def test_exponential_in_nats():
    # h(Exp(rate)) = 1 - ln(rate) nats.
    rate = 3.0
    x, dx = _grid(0.0, 40 / rate, 200_000)
    h = differential_entropy(scipy.stats.expon.pdf(x, scale=1 / rate), dx, base=math.e)
    assert h == pytest.approx(1 - math.log(rate), abs=1e-6)


def test_scaling_adds_lg_of_the_factor():
    # Y = aX has density f(y / a) / a, so h(aX) = h(X) + lg a: not invariant, unlike H.
    x, dx = _grid(0.0, 1.0, 2000)
    f = 6 * x * (1 - x)  # Beta(2, 2)
    a = 0.125
    h_x = differential_entropy(f, dx)
    # Exact up to the midpoint rule's mass error (1 - sum f dx ~ 1e-7) times lg a.
    assert differential_entropy(f / a, dx * a) == pytest.approx(h_x + math.log2(a), abs=1e-6)
    assert h_x == pytest.approx(scipy.stats.beta(2, 2).entropy() / math.log(2), abs=1e-5)


def test_quantised_entropy_plus_lg_width_equals_the_grid_value():
    # With bin probabilities P_i = f_i dx: H(P) = h - lg dx exactly (algebra).
    x, dx = _grid(-10.0, 10.0, 5000)
    f = scipy.stats.norm.pdf(x)
    f = f / (f.sum() * dx)
    assert entropy(f * dx) + math.log2(dx) == pytest.approx(differential_entropy(f, dx), abs=1e-10)


def test_batch_with_one_width_per_density():
    x, dx = _grid(0.0, 1.0, 100)
    densities = np.stack([np.ones_like(x), np.ones_like(x) * 0.5])
    widths = np.array([dx, 2 * dx])  # the second: uniform on [0, 2]
    result = differential_entropy(densities, widths)
    assert result.shape == (2,)
    np.testing.assert_allclose(result, [0.0, 1.0], atol=1e-12)


def test_zero_cells_add_nothing():
    x, dx = _grid(0.0, 2.0, 200)
    f = np.where(x < 0.5, 2.0, 0.0)  # uniform on [0, 1/2], zero elsewhere
    assert differential_entropy(f, dx) == pytest.approx(-1.0, abs=1e-12)


@pytest.mark.parametrize(
    ("density", "dx", "error", "match"),
    [
        ([0.5, -0.5, 2.0], 0.5, ValueError, "non-negative"),
        ([1.0, np.nan], 0.5, ValueError, "NaN or inf"),
        ([], 0.5, ValueError, "at least one cell"),
        ([1.0, 1.0], 0.0, ValueError, "dx must be positive"),
        ([1.0, 1.0], -0.5, ValueError, "dx must be positive"),
        ([1.0, 1.0], "0.5", TypeError, "dx must hold real numbers"),
        (["a", "b"], 0.5, TypeError, "density must hold real numbers"),
        ([1.0, 1.0], 0.25, ValueError, "must sum to 1"),
    ],
)
def test_bad_input_is_named(density, dx, error, match):
    with pytest.raises(error, match=match):
        differential_entropy(density, dx)


def test_width_shape_mismatch():
    with pytest.raises(ValueError, match="one width or one per density"):
        differential_entropy(np.ones((2, 4)) / 4, [1.0, 1.0, 1.0])
