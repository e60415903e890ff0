"""NTKs: the block Toeplitz limit kernel against explicit sums, the autodiff NTK against finite
differences, the wide RNN's NTK against the limit kernel of Theorem 3.3(b) at growing width, and
Theorem 3.2 for the scaled convolution."""

import numpy as np
import torch

from rnnbook.implicit_bias import linear_rnn
from rnnbook.implicit_bias import ntk
from rnnbook.implicit_bias import scale_factors as sf


def test_toeplitz_and_limit_kernel_against_explicit_sums():
    T, nx = 5, 2
    x, xp = (
        torch.randn(T, nx, dtype=torch.float64),
        torch.randn(T, nx, dtype=torch.float64),
    )
    Tx = ntk.toeplitz(x)
    for lag in range(T):
        for t in range(T):
            expected = x[t - lag] if t >= lag else torch.zeros(nx, dtype=torch.float64)
            torch.testing.assert_close(Tx[lag * nx : (lag + 1) * nx, t], expected)
    rho = torch.rand(T, dtype=torch.float64)
    K = ntk.limit_kernel(x[None], xp[None], rho)[0, :, 0, :]
    for t in range(T):
        for s in range(T):
            ref = sum(rho[j] * x[t - j] @ xp[s - j] for j in range(min(t, s) + 1))
            assert abs(float(K[t, s] - ref)) < 1e-12


def test_empirical_ntk_against_finite_differences():
    p = linear_rnn.init_params(4, 2, 2, 0.4, 1.0, 1.0, seed=5)
    X = torch.randn(2, 3, 2, dtype=torch.float64)
    K = ntk.empirical_ntk(linear_rnn.forward, p, X)
    cols, h = [], 1e-6
    for name, v in p.items():
        for i in range(v.numel()):
            plus = {k: w.clone() for k, w in p.items()}
            minus = {k: w.clone() for k, w in p.items()}
            plus[name].view(-1)[i] += h
            minus[name].view(-1)[i] -= h
            cols.append(
                (
                    (linear_rnn.forward(plus, X) - linear_rnn.forward(minus, X))
                    / (2 * h)
                ).reshape(-1)
            )
    J = torch.stack(cols, 1)
    torch.testing.assert_close(
        K.reshape(J.shape[0], J.shape[0]), J @ J.T, rtol=1e-6, atol=1e-8
    )


def test_wide_ntk_of_an_impulse_reads_out_rho():
    """Theorem 3.3(b) at n = 1024: the NTK diagonal of an impulse is rho_t up to O(n^-1/2) fluctuations."""
    T = 6
    X = torch.zeros(1, T, 1, dtype=torch.float64)
    X[0, 0, 0] = 1.0
    rho = sf.rho(T, 0.3, 1.0, 1.0)
    diag = []
    for s in range(3):
        p = linear_rnn.init_params(1024, 1, 1, 0.3, 1.0, 1.0, seed=s)
        diag.append(
            torch.diagonal(
                ntk.empirical_ntk(linear_rnn.forward, p, X)[0, :, 0, 0, :, 0]
            ).numpy()
        )
    np.testing.assert_allclose(np.mean(diag, 0), rho, rtol=0.15)
    K_lim = ntk.limit_kernel(X, X, torch.tensor(rho))
    small = ntk.relative_error(
        ntk.empirical_ntk(
            linear_rnn.forward, linear_rnn.init_params(16, 1, 1, 0.3, 1, 1, seed=0), X
        ),
        K_lim,
    )
    big = ntk.relative_error(
        ntk.empirical_ntk(
            linear_rnn.forward, linear_rnn.init_params(1024, 1, 1, 0.3, 1, 1, seed=0), X
        ),
        K_lim,
    )
    assert big < small


def test_empirical_ntk_approaches_the_limit_kernel_as_n_grows():
    """Theorem 3.3(b): the mean relative error over seeds shrinks with n, about like n^(-1/2)."""
    res = ntk.convergence(
        [16, 64, 256],
        3,
        T=4,
        n_x=1,
        n_y=1,
        n_inputs=2,
        nu_W=0.3,
        nu_F=1.0,
        nu_C=1.0,
        seed=0,
    )
    mean = res.errors.mean(1)
    assert mean[0] > mean[1] > mean[2]
    assert -0.8 < res.fit.slope < -0.25
    np.testing.assert_allclose(res.rho, sf.rho(4, 0.3, 1.0, 1.0))
    s = res.summary()
    assert s["widths"] == [16, 64, 256] and s["n_max"] == 256 and s["n_seeds"] == 3
    assert s["slope"] == res.fit.slope and s["rho_readout_dev"] < 0.5


def test_scaled_conv_ntk_is_exact_for_any_rho():
    g = torch.Generator().manual_seed(0)
    check = ntk.scaled_conv_check(4, 2, 2, 0.3, 1.0, 1.0, g)
    assert set(check.errors) == {"rho of Eq. (21)", "random rho", "rho = 1 (unscaled)"}
    s = check.summary()
    assert s["max_error"] < 1e-12 and s["T"] == 4 and s["inputs"] == 3
    assert check.table().count("\n") == 4
