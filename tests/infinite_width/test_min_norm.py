"""Theorem 2.3: convergence of the flow to X⁺y, its rate, and the conservation law."""

import numpy as np
import pytest

from rnnbook.infinite_width import min_norm
from rnnbook.infinite_width.regression import gaussian_regression


@pytest.fixture(scope="module")
def run():
    return min_norm.converge(gaussian_regression(d=4, n=2, seed=5), 20, 5.0)


def test_converges_to_pinv_at_the_predicted_rate(run):
    assert run.final < 1e-9 and run.outside < 1e-10 and run.c_star > 0
    assert abs(run.rate_fit - run.rate_pred) < 0.1 * run.rate_pred
    assert run.balance == pytest.approx(4 - 1, abs=1e-6)  # Proposition 5.1: d - 1
    assert np.all(np.diff(run.sol.risk[run.sol.t > 0]) <= 1e-15)


def test_values_and_table(run):
    v = min_norm.values([run, run])
    assert v["final"] == [run.final] * 2 and v["rates"][0] == [
        run.rate_fit,
        run.rate_pred,
    ]
    assert v["outside_max"] == float(f"{run.outside:.1e}")
    assert min_norm.table([run]).count("\n") == 2
