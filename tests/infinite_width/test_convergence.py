"""Finite widths against the limit: the m^(-1/2) rate of (2.16) at growing width."""

import numpy as np
import pytest

from rnnbook.infinite_width import convergence, limit
from rnnbook.stats import power_law_fit


def test_finite_width_approaches_limit_monte_carlo(data):
    """E‖λ^m(k) − λ^∞(k)‖ falls with m like m^(-1/2) (Eq. 2.16): 16x the width, about 1/4 the
    error, at k = 0 and after K steps; the mean square of V~ tracks ‖B(k)‖² of the limit."""
    K, tau = 8, 0.1
    lim = limit.train(data, tau, K)
    sw = convergence.sweep(data, lim.lam, tau, K, [16, 256], 12, seed=0)
    for errs in (sw.err0, sw.errK):
        ratio = errs[1].mean() / errs[0].mean()
        assert 0.12 < ratio < 0.5, ratio
    assert sw.law is None and sw.v_pool is None
    runs = convergence.predictor_paths(data, tau, K, [512], 4, seed=1)
    np.testing.assert_allclose(runs[512].v_msq[-1].mean(), lim.b_sq[-1], rtol=0.1)


def test_sweep_with_moments(data):
    K, tau = 4, 0.1
    lim = limit.train(data, tau, K, keep=(K,))
    from rnnbook.infinite_width.weight_law import weight_moments

    mom = weight_moments(lim.states[K])
    sw = convergence.sweep(data, lim.lam, tau, K, [8, 16], 3, seed=5, moments=mom)
    assert set(sw.law) == {"U", "W", "V", "Wchange"}
    assert all(v.shape == (2, 3) and np.all(v > 0) for v in sw.law.values())
    assert sw.v_pool.shape == (3 * 16,)


def test_layer_kernels_approach_the_identity_at_the_mc_rate():
    """Each layer's kernel tends to I_d (its limit) as m grows: 16x the width, at most half the
    distance (Monte Carlo rate m^(-1/2))."""
    dist = convergence.layer_kernel_distances([20, 320], 3, 5, seed=0)
    assert dist.shape == (2, 3)
    assert np.all(dist[1] < 0.5 * dist[0])
    table = convergence.kernel_table([20, 320], dist)
    assert table.count("\n") == 3 and "| 320 |" in table


def test_sup_distance_and_path_values():
    class Run:
        lam = np.zeros((3, 2, 2))

    lim_lam = np.array([[0.0, 0.0], [3.0, 4.0], [0.0, 1.0]])
    sup = convergence.sup_distance({5: Run()}, lim_lam)
    assert sup == {5: 5.0}
    v = convergence.path_values(
        {5: 2.0, 10: 1.0}, np.array([1.0, 0]), np.array([0, 1.0])
    )
    assert v["pairs"] == [[2.0, 1.0]] and v["distances"] == {"5": 2.0, "10": 1.0}
    assert v["final"] == pytest.approx(np.sqrt(2)) and v["norm"] == 1.0


def test_fit_values_rounds_for_display_only():
    x = np.array([10, 40, 160])
    fit = power_law_fit(x, x[:, None] ** -0.5 * np.ones((3, 4)), seed=0)
    v = convergence.fit_values(fit, digits=2)
    assert v["slope"] == fit.slope and v["means"] == [round(m, 2) for m in fit.means]
    assert len(v["ci95"]) == 2
