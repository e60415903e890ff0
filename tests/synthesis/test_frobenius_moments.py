import numpy as np
import pytest
import sympy as sp

from rnnbook.synthesis import frobenius_moments as fm


def test_low_orders_by_hand():
    n = fm.n
    assert fm.wick_polynomial(1) == n**2
    # E sum_{ik} (sum_j W_ij W_jk)^2 = n^3 nu^2 + 2 n nu^2 (the diagonal fourth moments 3 nu^2)
    assert sp.expand(fm.wick_polynomial(2) - (n**3 + 2 * n)) == 0


@pytest.mark.parametrize("k", [1, 2, 3, 4])
def test_leading_coefficient_is_one(k):
    poly = sp.Poly(fm.wick_polynomial(k), fm.n)
    assert poly.degree() == k + 1 and poly.LC() == 1


def test_number_of_pairings_at_n_equal_one():
    # at n = 1, ||W^k||^2 = w^(2k) and E w^(2k) = (2k-1)!! nu^k: the polynomial counts every pairing
    for k in range(1, 6):
        assert fm.wick_polynomial(k).subs(fm.n, 1) == sp.factorial2(2 * k - 1)


@pytest.mark.parametrize("width,k", [(3, 2), (3, 3), (5, 3), (6, 4)])
def test_exact_moment_against_monte_carlo(width, k):
    mean, se = fm.monte_carlo_gradient_moment(k, width, 0.8, 200000, seed=width + k)
    exact = fm.exact_gradient_moment(k, width, 0.8)
    assert abs(mean - exact) < 4.5 * se
    assert abs(mean - 0.8**k) > 4.5 * se  # the finite-n correction is real


def test_correction_vanishes_with_width():
    # Monte Carlo at growing width approaches nu^k, at the rate of the Wick factor
    devs = []
    for width in (4, 16, 64):
        mean, se = fm.monte_carlo_gradient_moment(3, width, 1.0, 4000, seed=width)
        devs.append(abs(mean - 1.0))
        assert abs(mean - fm.exact_gradient_moment(3, width, 1.0)) < 4.5 * se
    assert devs[-1] < devs[0]


def test_wick_check_keys_and_bad_k():
    out = fm.wick_check(4, 2, 0.9, 2000, 0)
    assert out["k_max"] == 2 and len(out["factors"]) == 2 and out["factors"][0] == 1.0
    with pytest.raises(ValueError):
        fm.wick_polynomial(9)
    assert np.isfinite(out["z_wick_max"])


def test_complex_ginibre_keeps_about_half_of_the_correction():
    """Complex Ginibre matrices have no W-W pairings, yet P_2 = n^3 + n: the 1/n^2 correction is
    not only the W-W pairings' (real: n^3 + 2n). Monte Carlo at n = 3 agrees with both."""
    n = fm.n
    assert fm.wick_polynomial(2, complex_entries=True) == n**3 + n
    assert fm.wick_polynomial(2) == n**3 + 2 * n
    for k in (
        2,
        3,
        4,
    ):  # the leading correction, coefficient of n^(k-1): about half survives
        real = sp.Poly(fm.wick_polynomial(k), n).coeff_monomial(n ** (k - 1))
        cplx = sp.Poly(fm.wick_polynomial(k, True), n).coeff_monomial(n ** (k - 1))
        assert 0.4 <= cplx / real <= 0.6
    rng = np.random.default_rng(0)
    S, w = 200000, 3
    W = (rng.standard_normal((S, w, w)) + 1j * rng.standard_normal((S, w, w))) / 2**0.5
    P = W
    for k in (1, 2, 3):
        x = np.sum(np.abs(P) ** 2, axis=(1, 2))
        exact = float(fm.wick_polynomial(k, True).subs(n, w))
        assert abs(x.mean() - exact) <= 4 * x.std(ddof=1) / S**0.5, k
        P = P @ W


def test_n_squared_correction_grows_faster_than_k_squared():
    """P_k(n)/n^(k+1) = 1 + c_k/n^2 + ...: c_k for complex entries is binom(k+2, 4) for
    k = 2..6, and the real c_k (every complex pairing is a real one) is at least that."""
    n = fm.n
    real = []
    for k in range(2, 7):
        real.append(sp.Poly(fm.wick_polynomial(k), n).coeff_monomial(n ** (k - 1)))
        cplx = sp.Poly(fm.wick_polynomial(k, complex_entries=True), n)
        assert cplx.coeff_monomial(n ** (k - 1)) == sp.binomial(k + 2, 4)
        assert real[-1] >= cplx.coeff_monomial(n ** (k - 1))
    assert real == [2, 10, 28, 62, 118]
    per_k2 = [c / k**2 for c, k in zip(real, range(2, 7))]
    assert per_k2 == sorted(per_k2)  # c_k / k^2 increases: not O(k^2)
