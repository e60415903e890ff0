"""The stability of the printed step of Fig. 2.1 under the loss normalisations."""

import numpy as np

from rnnbook.infinite_width import step_size


def test_population_risk_has_identity_moments():
    data = step_size.population(5, seed=0)
    np.testing.assert_allclose(data.M, np.eye(5), atol=1e-14)
    np.testing.assert_allclose(data.b, data.lam_star, atol=1e-14)


def test_outcomes_small_and_large_steps():
    data = step_size.setups(4, 2)[step_size.SCALED](1)
    assert step_size.outcome(data, 0.2, 2000, 40) == "converges"
    big = step_size.setups(4, 2)[step_size.PRINTED](1)
    assert step_size.outcome(big, 5.0, 50, 30) == "diverges"
    counts = step_size.outcomes(4, 2, 0.2, 30, 20, draws=2, seed=0)
    assert list(counts) == [
        step_size.PRINTED,
        "x ~ N(0, I), sum over n samples",
        "x ~ N(0, I), population risk",
        step_size.SCALED,
    ]
    assert all(sum(c.values()) == 2 for c in counts.values())
    assert step_size.table(counts, 4, 2, 0.2).count("\n") == 5


def test_finite_width_peak():
    data = step_size.setups(4, 2)[step_size.SCALED](1)
    assert 0 < step_size.finite_width_peak(data, 16, 0.1, 20, seed=0) < 100
    big = step_size.setups(4, 2)[step_size.PRINTED](1)
    assert step_size.finite_width_peak(big, 16, 50.0, 60, seed=0) == float("inf")
