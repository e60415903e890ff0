"""The gradient flow (5.1) and the linear dynamics (2.17) against closed forms and numpy.linalg.pinv."""

import numpy as np
from scipy import integrate

from rnnbook.infinite_width import flow
from rnnbook.infinite_width.regression import gaussian_regression


def test_flow_converges_to_pinv_inside_the_row_space():
    """Theorem 2.3: the flow converges to X⁺ y and never leaves the row space of X."""
    data = gaussian_regression(d=6, n=3, seed=11)
    sol = flow.gradient_flow(data, np.linspace(0, 30, 61), N=30)
    lam_hat = np.linalg.pinv(data.X) @ data.y
    assert np.linalg.norm(lam_hat - data.lam_star) > 0.1  # the min-norm one is not λ*
    np.testing.assert_allclose(sol.lam[-1], lam_hat, atol=1e-7)
    kernel = np.linalg.svd(data.X)[2][data.n :]
    assert np.abs(sol.lam @ kernel.T).max() < 1e-10


def test_linear_flow_closed_form():
    data = gaussian_regression(d=5, n=3, seed=2)
    t = np.array([0.0, 0.3, 1.0, 4.0])
    sol = integrate.solve_ivp(
        lambda _t, lam: -2.0 * data.xi(lam),
        (0, 4),
        np.zeros(5),
        t_eval=t,
        rtol=1e-12,
        atol=1e-14,
    )
    np.testing.assert_allclose(flow.linear_flow(data, t, rate=2.0), sol.y.T, atol=1e-9)
    np.testing.assert_allclose(
        flow.linear_gd(data, 1e-4, 10000, rate=2.0)[-1], sol.y.T[2], atol=1e-4
    )


def test_flow_to_convergence_reaches_pinv_at_several_scales():
    data = gaussian_regression(d=4, n=2, seed=5)
    for s in (0.1, 1.0, 30.0):
        sol = flow.flow_to_convergence(
            data, 20, 5.0, scale=s, speed=1.0 if s <= 10 else 1 / s, tol=1e-8
        )
        np.testing.assert_allclose(
            sol.lam[-1], np.linalg.pinv(data.X) @ data.y, atol=1e-7
        )
