"""Every measured rate, decay and ratio of the synthesis diagnostics against networks whose value is
known in closed form, at several sequence lengths, to float precision."""

import numpy as np
import pytest
import torch

from rnnbook.mean_field import minimal_rnn
from rnnbook.synthesis import linear_diagnostics as ld
from rnnbook.synthesis import nonlinear_diagnostics as nd

D = torch.float64


def orthogonal(B: int, n: int, seed: int) -> torch.Tensor:
    g = torch.Generator().manual_seed(seed)
    return torch.linalg.qr(torch.randn(B, n, n, generator=g, dtype=D))[0]


@pytest.mark.parametrize("T", [3, 7, 12])
def test_linear_diagnostics_of_a_scaled_orthogonal_network(T):
    """J = W/sqrt(n) = s Q: r(J)^2 = ||J||_F^2/n = per-step decay of ||J^k||_F^2 = s^2 exactly,
    with or without Hutchinson probes (||J^k V||_F^2 = s^(2k) ||V||_F^2)."""
    n, s = 9, torch.tensor([0.6, 0.95, 1.3], dtype=D)
    W = n**0.5 * s[:, None, None] * orthogonal(3, n, 0)
    g = torch.Generator().manual_seed(1)
    F, C = torch.randn(3, n, 1, generator=g, dtype=D), torch.randn(3, 1, n, dtype=D)
    for probes in (None, torch.randn(3, n, 5, generator=g, dtype=D)):
        v = ld.measure(W, F, C, T, probes)
        for q in ("radius2", "chi1", "grad_decay"):
            torch.testing.assert_close(v[q], s**2, rtol=1e-12, atol=0)


@pytest.mark.parametrize("T", [3, 6, 11])
def test_ntk_ratio_of_a_diagonal_network(T):
    """W = sqrt(n) s I: a_k = s^k c, b_k = s^k f, so
    Theta_j = s^(2j) (|f|^2 + |c|^2)/n + j^2 s^(2j-2) |c|^2 |f|^2 / n^2 (the F, C and W terms)."""
    n = 5
    s = torch.tensor([0.7, 1.1], dtype=D)
    W = n**0.5 * s[:, None, None] * torch.eye(n, dtype=D)
    g = torch.Generator().manual_seed(2)
    F, C = torch.randn(2, n, 1, generator=g, dtype=D), torch.randn(2, 1, n, dtype=D)
    f2, c2 = (F**2).sum((1, 2)), (C**2).sum((1, 2))

    def theta(j):
        return s ** (2 * j) * (f2 + c2) / n + j**2 * s ** (2 * j - 2) * c2 * f2 / n**2

    th = ld.ntk_impulse_diagonal(W, F, C, T)
    exact = torch.stack([theta(j) for j in range(T)], -1)
    torch.testing.assert_close(th, exact, rtol=1e-12, atol=0)
    ratio = ld.measure(W, F, C, T)["rho_ratio"]
    torch.testing.assert_close(ratio, theta(T - 1) / theta(T - 2), rtol=1e-12, atol=0)


@pytest.mark.parametrize("T", [3, 8, 15])
def test_nonlinear_measure_on_scaled_orthogonal_jacobians(T):
    """J_t = s Q_t, B_t = v Q'_t (fresh orthogonal matrices per step): r(J_t)^2 = chi_1 = s^2 and
    the gradient and memory decays are s^2 per step, exactly (T - 1 factors between k = 1 and T)."""
    K, N = 2, 6
    s = torch.tensor([0.5, 1.2], dtype=D)
    J = s[:, None, None, None] * orthogonal(K * (T + 1), N, 3).reshape(K, T + 1, N, N)
    B = 0.7 * orthogonal(K * (T + 1), N, 4).reshape(K, T + 1, N, N)
    U = torch.randn(K, 4, N, generator=torch.Generator().manual_seed(5), dtype=D)
    v = nd.measure(J, B, U)
    for q in nd.QUANTITIES:
        torch.testing.assert_close(v[q], s**2, rtol=1e-12, atol=0)


@pytest.mark.parametrize("T", [4, 9])
def test_tanh_cell_at_rest_is_its_linear_network(T):
    """tanh RNN with zero bias, zero input and h_0 = 0 stays at h = 0, where tanh' = 1: its Jacobians
    are W and V, and with W = s Q every diagnostic of the cell is s^2."""
    K, N = 2, 7
    s = torch.tensor([0.8, 1.3], dtype=D)
    w = minimal_rnn.Weights(
        s[:, None, None] * orthogonal(K, N, 6),
        0.5 * orthogonal(K, N, 7),
        torch.zeros(K, N, dtype=D),
    )
    J, B = nd.jacobians("tanh", w, torch.zeros(K, 5 + T + 1, N, dtype=D), 5, T)
    U = torch.randn(K, 3, N, generator=torch.Generator().manual_seed(8), dtype=D)
    v = nd.measure(J, B, U)
    for q in nd.QUANTITIES:
        torch.testing.assert_close(v[q], s**2, rtol=1e-12, atol=0)


@pytest.mark.parametrize("T", [4, 10])
def test_minimal_cell_with_frozen_gates(T):
    """minimalRNN with W = V = 0 and bias mu_b: u = sigmoid(mu_b) at every unit and step,
    J_t = u I, B_t = (1 - u) I, so every diagnostic is sigmoid(mu_b)^2 whatever the inputs; the
    mean-field chi_1 (mu_1 + mu_2 of Eq. 13) is the same number."""
    K, N = 3, 5
    mu = torch.tensor([-1.0, 0.5, 2.0], dtype=D)
    zero = torch.zeros(K, N, N, dtype=D)
    w = minimal_rnn.Weights(zero, zero, mu[:, None].expand(K, N).clone())
    g = torch.Generator().manual_seed(9)
    x = torch.randn(K, 4 + T + 1, N, generator=g, dtype=D)
    J, B = nd.jacobians("minimal", w, x, 4, T)
    v = nd.measure(J, B, torch.randn(K, 3, N, generator=g, dtype=D))
    u2 = torch.sigmoid(mu) ** 2
    for q in nd.QUANTITIES:
        torch.testing.assert_close(v[q], u2, rtol=1e-12, atol=0)
    for m in mu.tolist():
        chi = nd.chi1_theory("minimal", [0.0], sigma_v2=0.0, mu_b=m, R=1.0)
        np.testing.assert_allclose(chi, 1 / (1 + np.exp(-m)) ** 2, rtol=1e-12)


def test_tanh_chi1_theory_of_the_quiet_network():
    """Without input and bias the tanh RNN's fixed point is q* = 0 for nu_W < 1, where
    chi_1 = nu_W E[tanh'(0)^2] = nu_W: the mean-field prediction equals the linear one."""
    nu = [0.3, 0.6, 0.9]
    chi = nd.chi1_theory("tanh", nu, sigma_v2=0.0, mu_b=0.0, R=1.0)
    np.testing.assert_allclose(chi, nu, rtol=1e-12)


def test_measure_needs_two_steps():
    J = torch.zeros(1, 2, 3, 3, dtype=D)
    with pytest.raises(ValueError, match="T = 1"):
        nd.measure(J, J, torch.ones(1, 1, 3, dtype=D))
