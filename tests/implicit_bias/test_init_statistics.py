"""Theorem 3.3(a) and Eq. (24): the impulse response at initialization against its limit law."""

import numpy as np
import torch

from rnnbook.implicit_bias import init_statistics

D = torch.float64


def test_initial_impulse_response_variance_monte_carlo():
    L = init_statistics.sample_impulse_responses(
        256, 2, 2, 4, 0.3, 1.0, 1.0, draws=300, seed=0
    )
    s = init_statistics.summarize(L, 0.3, 1.0, 1.0)
    assert np.all(np.abs(s.var_ratio - 1) < 4 * s.var_ratio_se)
    exact = torch.randn(
        2000, 4, 1, 1, generator=torch.Generator().manual_seed(1), dtype=D
    ).numpy()
    exact *= np.sqrt(0.3 ** np.arange(4))[None, :, None, None]
    g = init_statistics.summarize(exact, 0.3, 1.0, 1.0)
    assert (
        np.all(np.abs(g.var_ratio - 1) < 4 * g.var_ratio_se)
        and g.ks_pvalue.min() > 1e-3
    )


def test_excess_kurtosis_vanishes_as_n_grows():
    """At finite n, L_0 = sum_i C_i F_i / sqrt(n) has excess kurtosis exactly 6/n; the Gaussian limit
    of Theorem 3.3(a) is approached as n grows."""
    mc = init_statistics.monte_carlo(
        [4, 16, 64],
        n_x=1,
        n_y=1,
        lags=2,
        nu_W=0.3,
        nu_F=1.0,
        nu_C=1.0,
        draws=4000,
        seed=0,
    )
    k0 = [mc.summaries[n].excess_kurtosis[0] for n in (4, 16, 64)]
    se = mc.summaries[4].kurtosis_se[0]
    assert k0[0] > k0[1] > k0[2] - 2 * se and abs(k0[0] - 6 / 4) < 4 * se
    s = mc.summary()
    assert s["n"] == 64 and s["widths"] == [4, 16, 64] and s["lags"] == 2
    assert s["kurtosis_smallest"] > s["kurtosis_largest"] and s["parts"]["variance"]
