"""Power-law fits of finite-width deviations."""

import numpy as np

from rnnbook.implicit_bias import rates


def test_loglog_fit_of_an_exact_power_law():
    ns = np.array([10.0, 100.0, 1000.0])
    f = rates.loglog_fit(ns, np.stack([3 * ns**-0.5] * 2, 1))
    assert (
        abs(f.slope + 0.5) < 1e-12
        and f.se < 1e-9
        and abs(f.intercept - np.log(3)) < 1e-12
    )
    np.testing.assert_allclose(f(ns), 3 * ns**-0.5)
    assert f.ci95 == 1.96 * f.se


def test_loglog_fit_standard_error_of_noisy_data():
    rng = np.random.default_rng(0)
    ns = np.array([10.0, 40.0, 160.0, 640.0])
    values = ns[:, None] ** -0.5 * np.exp(0.1 * rng.standard_normal((4, 50)))
    f = rates.loglog_fit(ns, values)
    assert abs(f.slope + 0.5) < 3 * f.se and 0 < f.se < 0.05
