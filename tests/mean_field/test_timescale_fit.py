"""tau measured from trajectories (rnnbook.mean_field.timescale_fit)."""

import numpy as np
import pytest

from rnnbook.mean_field import theory, timescale_fit as tf


def test_decay_time_recovers_an_exponential():
    t = np.arange(1, 20)
    assert tf.decay_time(t, 3 * np.exp(-t / 4.5)) == pytest.approx(4.5)


def test_bootstrap_se_is_zero_for_identical_networks():
    rng = np.random.default_rng(0)
    samples = np.tile(np.exp(-np.arange(1, 10) / 3.0), (6, 1))
    se = tf.bootstrap_se(lambda y: tf.decay_time(np.arange(1, 10), y), samples, rng)
    assert se == pytest.approx(0.0, abs=1e-9)


def test_decay_to_zero_on_exact_trajectories():
    t = np.arange(1, 16)
    c = np.stack([np.exp(-t / 2.0), np.exp(-t / 5.0)])
    samples = np.repeat(c[:, None, :], 4, axis=1)
    taus, ses = tf.decay_to_zero(c, samples, np.random.default_rng(0))
    np.testing.assert_allclose(taus, [2.0, 5.0], rtol=1e-6)
    np.testing.assert_allclose(ses, 0.0, atol=1e-6)


def test_vanilla_decay_values_and_table():
    hp = theory.HP(np.array([0.8, 1.2]), 0.5, 0.0, 1.0)
    c = theory.vanilla_trajectory(np.zeros(12), hp, c0=0.95)["c"]
    samples = np.repeat(c[:, None, :], 3, axis=1)
    values, table = tf.vanilla_decay(hp, c, samples, np.random.default_rng(0))
    assert len(values["tau_rows"]) == 2 and table.count("\n") == 3
    # the map's own decay is close to tau of Eq. (4) (10% for its curvature)
    for fit, tau, _ in values["tau_rows"]:
        assert abs(fit - tau) <= 0.1 * tau


def test_linear_window_fits_select_the_linear_regime():
    t = np.arange(1, 41)
    cstar, tau = np.array([1.0, 1.0]), np.array([6.0, 6.0])
    c = np.stack([1 - 0.5 * np.exp(-t / 6.0), 1 - 0.5 * np.exp(-t / 12.0)])
    samples = np.repeat(c[:, None, :], 3, axis=1)
    fits = tf.linear_window_fits(c, samples, cstar, tau, np.random.default_rng(0))
    assert [f.index for f in fits] == [0]  # the second decays at twice tau: excluded
    assert fits[0].tau_mc == pytest.approx(6.0) and fits[0].amplitude == pytest.approx(
        0.5
    )
    v = tf.window_values(fits, mu_b=[4.0, 6.0])
    assert v["n_fit"] == 1 and list(v["shown"]) == ["4"]
    assert "| 4 | 1.000 | 6.00 |" in tf.window_table(fits, [4.0, 6.0], cstar)
