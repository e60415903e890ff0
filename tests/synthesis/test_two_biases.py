import numpy as np
import pytest
from scipy.optimize import minimize

from rnnbook.synthesis import two_biases as tb


def test_kkt_derivation_matches_closed_form():
    assert tb.derive_weighted_min_norm(3, 1).matches


def test_weighted_min_norm_against_a_numerical_optimiser():
    rng = np.random.default_rng(0)
    X, y = rng.standard_normal((2, 5)), rng.standard_normal(2)
    h0, d = rng.standard_normal(5), rng.uniform(0.2, 2.0, 5)
    closed = tb.weighted_min_norm(X, y, h0, d)
    cons = {"type": "eq", "fun": lambda h: X @ h - y}
    res = minimize(lambda h: np.sum((h - h0) ** 2 / d), h0, constraints=cons, tol=1e-12)
    assert np.allclose(res.x, closed, atol=1e-5)
    # d = 1, h0 = 0: the pseudo-inverse
    assert np.allclose(
        tb.weighted_min_norm(X, y, np.zeros(5), np.ones(5)), np.linalg.pinv(X) @ y
    )


def test_kernel_gd_reaches_the_kernel_closed_form_and_the_limit_with_width():
    X, y, _ = tb.convolution_data(8, 4, seed=0)
    gd, lim = tb.width_sweep(X, y, [16, 128], nu_W=0.8, seeds=4, seed=0, steps=20000)
    assert gd.max() < 1e-6
    assert lim[1].mean() < 0.6 * lim[0].mean()


def test_deep_linear_limit_goes_to_pinv():
    X, y, h = tb.convolution_data(6, 3, seed=1)
    run = tb.deep_linear(X, y, h, trunc=30, t_end=10.0)
    assert run.final < 1e-8
    assert np.allclose(run.sol.lam[0], 0.0)


def test_data_and_tail():
    X, y, h = tb.convolution_data(5, 2, seed=0)
    assert X.shape == (2, 5) and np.allclose(X @ h, y)
    assert X[1, 1] == X[0, 0]  # Toeplitz: row i holds u_{i+J-1-j}
    assert tb.tail_mass(np.array([0.0, 1.0]), 1) == 1.0
    with pytest.raises(ValueError):
        tb.convolution_data(4, 4, 0)


def test_two_layer_velocity_leaves_the_row_space_from_a_zero_predictor():
    A, z = [[1, 1], [1, 1]], [1, -1]
    assert list(tb.sp.Matrix(A) * tb.sp.Matrix(z)) == [0, 0]
    v = tb.two_layer_velocity(A, z, [1, 0], 1)
    assert list(v) == [4, 2]  # second component: outside span(e_1)
    # a start whose A maps everything onto e_1 stays in span(e_1)
    assert list(tb.two_layer_velocity([[1, 0], [0, 0]], [1, 0], [1, 0], 2)) == [2, 0]
