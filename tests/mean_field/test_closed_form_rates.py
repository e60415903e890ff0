"""The measured rates and decays of the mean-field diagnostics against cases known in closed form
(exact exponentials, linear networks), at several sequence lengths, to float precision."""

import numpy as np
import pytest

from rnnbook.mean_field import jacobian_spectrum as js
from rnnbook.mean_field import timescale_fit as tf
from rnnbook.mean_field.theory import HP, timescale, vanilla_spectrum_variance


@pytest.mark.parametrize("T", [8, 30, 120])
def test_decay_time_of_an_exponential(T):
    t = np.arange(1, T + 1)
    for tau in (0.7, 4.0, 25.0):
        assert tf.decay_time(t, 3.2 * np.exp(-t / tau)) == pytest.approx(tau, rel=1e-10)


@pytest.mark.parametrize("T", [20, 60])
def test_decay_to_zero_of_exact_exponentials(T):
    """c^t = exp(-t/tau) for theory and every network: the fitted tau is tau, its bootstrap SE 0."""
    t = np.arange(1, T + 1)
    taus = np.array([2.0, 5.0, 9.0])
    c = np.exp(-t[None] / taus[:, None])
    samples = np.repeat(c[:, None], 4, 1)
    fit, se = tf.decay_to_zero(c, samples, np.random.default_rng(0))
    np.testing.assert_allclose(fit, taus, rtol=1e-10)
    np.testing.assert_allclose(se, 0.0, atol=1e-10)


@pytest.mark.parametrize("T", [60, 150])
def test_window_fit_of_an_exact_approach(T):
    """c^t = c* + A exp(-t/tau): the window fit returns tau for the map and the Monte Carlo mean."""
    t = np.arange(1, T + 1)
    cstar, taus = np.array([0.3, 0.8]), np.array([6.0, 12.0])
    c = cstar[:, None] + 0.5 * np.exp(-t[None] / taus[:, None])
    samples = np.repeat(c[:, None], 3, 1)
    fits = tf.linear_window_fits(c, samples, cstar, taus, np.random.default_rng(0))
    assert [f.index for f in fits] == [0, 1]
    for f in fits:
        assert f.tau_map == pytest.approx(taus[f.index], rel=1e-8)
        assert f.tau_mc == pytest.approx(taus[f.index], rel=1e-8)
        assert f.amplitude == pytest.approx(0.5, rel=1e-8)


@pytest.mark.parametrize("T", [5, 40])
def test_geometric_rate(T):
    m1 = 2.5 * 0.83 ** np.arange(1, T + 1)
    assert js.GradientStudy.rate(m1) == pytest.approx(0.83, rel=1e-12)
    slope = js.loglinear_slope(np.arange(1, T + 1), m1)
    assert slope == pytest.approx(np.log(0.83), rel=1e-12)
    assert timescale(0.83) == pytest.approx(-1 / np.log(0.83), rel=1e-14)


@pytest.mark.parametrize("T", [4, 12])
@pytest.mark.parametrize("mu_b", [-0.5, 1.5])
def test_minimal_moments_with_frozen_gates(T, mu_b):
    """minimalRNN with sigma_w = sigma_v = sigma_b = 0: u = sigmoid(mu_b) everywhere and J_t = u I,
    so m_1(T) = u^(2T), m_2(T) = u^(4T), the spectral variance 0 and the rate u^2, exactly."""
    u2 = 1 / (1 + np.exp(-mu_b)) ** 2
    hp = HP(sigma_w=0.0, sigma_v=0.0, mu_b=mu_b, R=1.0)
    for tied in (False, True):
        r = js.jacobian_moments("minimal", hp, 6, T, 3, seed=1, tied=tied, burn_in=5)
        np.testing.assert_allclose(
            r.m1, np.broadcast_to(u2**r.T, r.m1.shape), rtol=1e-12
        )
        np.testing.assert_allclose(r.m2, u2 ** (2 * r.T) + 0 * r.m2, rtol=1e-12)
        np.testing.assert_allclose(r.variance, 0.0, atol=1e-14)
        assert js.GradientStudy.rate(r.m1.mean(0)) == pytest.approx(u2, rel=1e-12)


@pytest.mark.parametrize("T", [3, 10])
def test_vanilla_moments_of_a_quiet_orthogonal_network(T):
    """Vanilla RNN without input or bias, nu_W < 1: q* = 0, the state stays at 0 where tanh' = 1, so
    J = sigma_w^T Q_T ... Q_1 for orthogonal W: m_1 = sigma_w^(2T), variance 0, as the theory's
    T chi_1^(2T) (E phi'^4 / E phi'^2 ^2 - 1 - s_1) gives with s_1 = 0."""
    sw = 0.9
    hp = HP(sigma_w=sw, sigma_v=0.0, mu_b=0.0, R=1.0)
    for tied in (False, True):
        r = js.jacobian_moments(
            "vanilla", hp, 5, T, 2, seed=2, orthogonal=True, tied=tied, burn_in=3
        )
        np.testing.assert_allclose(r.m1, sw ** (2 * r.T) + 0 * r.m1, rtol=1e-12)
        np.testing.assert_allclose(r.variance, 0.0, atol=1e-14)
        assert js.GradientStudy.rate(r.m1.mean(0)) == pytest.approx(sw**2, rel=1e-12)
    np.testing.assert_allclose(vanilla_spectrum_variance(r.T, hp, 0.0), 0.0, atol=1e-12)
