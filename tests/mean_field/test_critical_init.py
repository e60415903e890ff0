"""Algorithm 1 across a grid of (q*, mu_b) (rnnbook.mean_field.critical_init)."""

import numpy as np
import pytest

from rnnbook.mean_field import critical_init, theory


def test_diag_slope_is_the_derivative_of_the_map():
    hp = theory.HP(3.0, 1.0, 1.0, 0.46)
    Q = 0.3
    h = 1e-7
    fd = (
        theory.minimal_diag_map(Q + h, hp)[0] - theory.minimal_diag_map(Q - h, hp)[0]
    ) / (2 * h)
    assert float(critical_init.diag_slope(Q, hp)) == pytest.approx(float(fd), rel=1e-5)


def test_survey_finds_unstable_fixed_points_that_run_away():
    s = critical_init.survey(np.geomspace(0.5, 32, 9), np.linspace(-2, 8, 11), 0.46)
    v = s.values()
    assert v["feasible"] > 0 and v["max_dev"] < 1e-9
    assert v["unstable"] > 0  # the band of three roots of Eq. (24)
    i, j = s.unstable_example()
    assert s.feasible[i, j] and not s.stable[i, j]
    hp = critical_init.example_hp(s, i, j)
    Q = s.alg.Qstar[i, j]
    up, down = (critical_init.runaway(Q * f, hp, steps=400) for f in (1.01, 0.99))
    q_star = hp.sw2 * Q + hp.sv2 * hp.R
    assert (
        abs(up[-1] - q_star) > 0.01 * q_star and abs(down[-1] - q_star) > 0.01 * q_star
    )
