"""Statistics over seeds (rnnbook.stats)."""

import numpy as np
import pytest

from rnnbook.stats import power_law_fit


def test_power_law_fit_recovers_exponent():
    rng = np.random.default_rng(0)
    x = np.array([10, 20, 40, 80, 160])
    S = 3.0 * x[:, None] ** -0.5 * np.exp(0.05 * rng.standard_normal((5, 40)))
    f = power_law_fit(x, S, seed=1)
    assert abs(f.slope + 0.5) < 0.03 and f.ci95[0] < f.slope < f.ci95[1]
    with pytest.raises(ValueError):
        power_law_fit(x, -S)


def test_seed_interval_covers_the_mean_95_percent_of_the_time():
    """Monte Carlo: over many draws of 4 seeds the t interval holds the true mean ~95% of the time."""
    from rnnbook.stats import seed_interval

    rng = np.random.default_rng(0)
    draws = rng.normal(1.0, 2.0, size=(4000, 4))
    mean, lo, hi = seed_interval(draws, axis=1)
    cover = np.mean((lo <= 1.0) & (1.0 <= hi))
    assert abs(cover - 0.95) < 0.015
    np.testing.assert_allclose(mean, draws.mean(1))
    one = seed_interval([0.3, 0.5, 0.4])
    assert one.lo < one.mean < one.hi and one.n == 3
    assert one.mean == pytest.approx(0.4)
    assert np.isinf(seed_interval([0.2]).hi)
    with pytest.raises(ValueError, match="level"):
        seed_interval([1.0, 2.0], level=1.5)
