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
