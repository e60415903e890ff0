"""The mean-field maps of rnnbook.mean_field.theory against independent computations: adaptive
quadrature, finite differences, the full 2x2 maps against the reduced cosine maps."""

import numpy as np
import pytest
from scipy import integrate

from rnnbook.mean_field import theory


# ------------------------------------------------------------------------------------- quadrature
def test_gauss1_and_gauss2_against_adaptive_quadrature():
    def pdf(z):
        return np.exp(-z * z / 2) / np.sqrt(2 * np.pi)

    for mean, var in ((0.0, 0.3), (1.5, 4.0), (-2.0, 15.0)):
        ref = integrate.quad(
            lambda z: theory.sigmoid(mean + np.sqrt(var) * z) ** 2 * pdf(z),
            -12,
            12,
            limit=200,
        )[0]
        got = float(theory.gauss1(lambda u: theory.sigmoid(u) ** 2, mean, var))
        assert abs(got - ref) < 1e-9
    mean, var, c = 0.7, 6.0, 0.6

    def f(z2, z1):
        u2 = mean + np.sqrt(var) * (c * z1 + np.sqrt(1 - c * c) * z2)
        return np.tanh(mean + np.sqrt(var) * z1) * np.tanh(u2) * pdf(z1) * pdf(z2)

    ref = integrate.dblquad(f, -9, 9, -9, 9, epsabs=1e-10)[0]
    assert abs(float(theory.gauss2(np.tanh, np.tanh, mean, var, c, n=200)) - ref) < 1e-7
    assert abs(float(theory.gauss2(np.tanh, np.tanh, mean, var, c)) - ref) < 1e-5


def test_gauss_broadcasts_over_grids():
    s = theory.sigmoid
    out = theory.gauss2(
        s, s, np.array([0.0, 1.0])[:, None], np.array([1.0, 2.0, 3.0]), 0.5
    )
    assert out.shape == (2, 3)
    assert abs(out[0, 1] - float(theory.gauss2(s, s, 0.0, 2.0, 0.5))) < 1e-14


# ------------------------------------------------------------------------------------ vanilla maps
def test_vanilla_map_diagonal_and_fixed_point():
    hp = theory.HP(np.array([0.8, 1.5]), 0.5, 0.0, 1.0, 0.1)
    qs = theory.vanilla_qstar(hp)
    np.testing.assert_allclose(theory.vanilla_q_map(qs, hp), qs, rtol=1e-10)
    q11, q12, q22 = theory.vanilla_covariance_map(qs, 0.3 * qs, qs, 0.2, hp)
    np.testing.assert_allclose(q11, qs, rtol=1e-10)
    np.testing.assert_allclose(
        q12 / q11, theory.vanilla_c_map(0.3, 0.2, hp, qs), rtol=1e-9
    )


def test_vanilla_chi_is_the_slope_of_the_cosine_map():
    hp = theory.HP(1.3, 0.4, 0.2, 1.0, 0.2)
    qs = theory.vanilla_qstar(hp)
    for c in (0.1, 0.5, 0.8):
        fd = (
            theory.vanilla_c_map(c + 1e-5, 0.3, hp, qs)
            - theory.vanilla_c_map(c - 1e-5, 0.3, hp, qs)
        ) / 2e-5
        assert abs(float(theory.vanilla_chi(c, hp, qs)) - float(fd)) < 1e-5


def test_vanilla_critical_gives_chi1_one():
    sw2, sv2 = theory.vanilla_critical(np.array([0.1, 0.5, 1.0]), 1.0)
    hp = theory.HP(np.sqrt(sw2), np.sqrt(sv2), 0.0, 1.0)
    np.testing.assert_allclose(theory.vanilla_qstar(hp), [0.1, 0.5, 1.0], rtol=1e-8)
    np.testing.assert_allclose(theory.vanilla_chi1(hp), 1.0, atol=1e-9)


# ------------------------------------------------------------------------------------ minimal maps
@pytest.mark.parametrize("sb", [0.0, 0.4])
def test_minimal_cosine_map_equals_the_full_2x2_maps(sb):
    """Eq. (8) (as derived) against one step of Eqs. (6)-(7) from a state at Q*."""
    hp = theory.HP(6.88, 1.39, np.array([-1.0, 2.0, 5.0]), 0.46, sb)
    Q, q = theory.minimal_fixed_point(hp)
    c_prev, S_prev, S = 0.4, 0.3, 0.8
    # the state at t-2 that gives c^{t-1}
    QC_prev2 = (q * c_prev - hp.sv2 * hp.R * S_prev - hp.sb2) / hp.sw2
    Q1, QC1, _, c1 = theory.minimal_step(Q, QC_prev2, S_prev, hp)
    np.testing.assert_allclose(c1, c_prev, rtol=1e-10)
    _, _, _, c2 = theory.minimal_step(Q1, QC1, S, hp)
    np.testing.assert_allclose(
        theory.minimal_c_map(c_prev, S_prev, S, hp, q), c2, atol=1e-10
    )
    printed = theory.minimal_c_map(c_prev, S_prev, S, hp, q, printed=True)
    assert np.allclose(printed, c2, atol=1e-10) == (sb == 0.0)


def test_minimal_fixed_point_solves_eq24_and_the_iteration():
    hp = theory.HP(np.array([2.0, 6.88]), 1.39, np.array([-2.0, 3.0]), 0.46)
    Q, q = theory.minimal_fixed_point(hp)
    np.testing.assert_allclose(theory.minimal_diag_map(Q, hp)[0], Q, rtol=1e-9)
    Qi = np.full(2, 0.46)
    for _ in range(2000):
        Qi, _ = theory.minimal_diag_map(Qi, hp)
    np.testing.assert_allclose(Qi, Q, rtol=1e-6)


def test_minimal_chi_derived_matches_slope_printed_only_without_bias_noise():
    for sb in (0.0, 0.5):
        hp = theory.HP(6.88, 1.39, np.array([0.0, 3.0]), 0.46, sb)
        q = theory.minimal_fixed_point(hp)[1]
        fd = (
            theory.minimal_c_map(0.5 + 1e-4, 0.3, 0.3, hp, q)
            - theory.minimal_c_map(0.5 - 1e-4, 0.3, 0.3, hp, q)
        ) / 2e-4
        assert np.abs(theory.minimal_chi(0.5, 0.3, hp, q) - fd).max() < 1e-4
        printed = theory.minimal_chi(0.5, 0.3, hp, q, printed=True)
        assert (np.abs(printed - fd).max() < 1e-4) == (sb == 0.0)


def test_chi_at_c_one_equals_chi1_of_eq13():
    hp = theory.HP(3.0, 1.0, np.array([-1.0, 6.0]), 0.46, 0.3)  # ordered: c* = 1
    q = theory.minimal_fixed_point(hp)[1]
    np.testing.assert_allclose(
        theory.minimal_chi(1.0, 1.0, hp, q), theory.minimal_chi1(hp), atol=1e-6
    )


def test_algorithm1_gives_chi1_one_at_its_fixed_point():
    a = theory.algorithm1(np.array([4.0, 8.0, 16.0]), np.array([4.0, 2.0, 0.0]), 0.46)
    assert np.all(a.feasible)
    hp = a.hp()
    np.testing.assert_allclose(
        theory.minimal_diag_map(a.Qstar, hp)[0], a.Qstar, rtol=1e-10
    )
    np.testing.assert_allclose(
        a.Eu2 + a.sigma_w2 * (a.Qstar + 0.46) * a.Eup2, 1.0, atol=1e-12
    )


def test_timescale():
    np.testing.assert_allclose(
        theory.timescale([np.exp(-0.5), 1.0, 2.0]), [2.0, np.inf, np.inf]
    )


def test_bad_hyperparameters_are_named():
    with pytest.raises(ValueError, match="sigma_w"):
        theory.HP(-1.0, 1.0)
    with pytest.raises(ValueError, match="R"):
        theory.HP(1.0, 1.0, 0.0, np.nan)
