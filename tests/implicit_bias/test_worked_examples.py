"""Every worked example Emami et al. print, rebuilt from the paper's own definitions and compared
entry by entry with the printed values (issue 52, item 15): the Toeplitz matrix (18) and the
diagonal D(rho) (19) of the NTK (17) at a small size, and the Vandermonde construction of App.
B.1, Eqs. (33)-(35)."""

import numpy as np
import torch

from rnnbook.implicit_bias import conv_models, linear_rnn, ntk


def test_eq18_toeplitz_as_printed_for_t_3():
    """(18) prints T(x) = [[x_0, x_1, ..., x_{T-1}], [0, x_0, ..., x_{T-2}], ..., [0, ..., x_0]];
    typed for T = 3, n_x = 1 and x = (2, 3, 5)."""
    printed = torch.tensor([[2.0, 3.0, 5.0], [0.0, 2.0, 3.0], [0.0, 0.0, 2.0]])
    x = torch.tensor([[2.0], [3.0], [5.0]])
    assert torch.equal(ntk.toeplitz(x), printed)


def test_eq17_the_printed_matrices_give_the_ntk_of_the_scaled_convolution():
    """(17) with the printed (18) and (19): K(x, x') = T(x)^T D(rho) T(x') (x I_{n_y}) is the NTK
    of y_t = sum_{j <= t} sqrt(rho_j) theta_j x_{t-j} (8), entry by entry (T = 3, n_x = 2)."""
    x = torch.tensor([[1.0, -2.0], [0.5, 3.0], [2.0, 1.0]], dtype=torch.float64)
    xp = torch.tensor([[-1.0, 1.0], [4.0, 0.0], [1.5, -0.5]], dtype=torch.float64)
    rho = torch.tensor([1.0, 0.5, 0.25], dtype=torch.float64)

    def toeplitz_printed(s):  # block (j, t) = x_{t-j} for t >= j, as (18) prints it
        T, n_x = s.shape
        out = torch.zeros(T * n_x, T, dtype=s.dtype)
        for j in range(T):
            for t in range(j, T):
                out[j * n_x : (j + 1) * n_x, t] = s[t - j]
        return out

    D = torch.diag(torch.repeat_interleave(rho, 2))  # (19): diag(rho_0 I, rho_1 I, ...)
    printed = toeplitz_printed(x).T @ D @ toeplitz_printed(xp)
    theta = {"theta": torch.randn(3, 1, 2, dtype=torch.float64)}

    def f(p, X):
        return conv_models.scaled_conv_forward(p["theta"], X, rho)

    K = ntk.empirical_ntk(f, theta, x[None], xp[None])[0, :, 0, 0, :, 0]
    assert torch.allclose(K, printed, atol=1e-12)


def test_app_b1_vandermonde_construction_eqs_33_to_35():
    """(33)-(35): W = diag(lambda), F = 1_T give C W^t F = sum_k C_k lambda_k^t, so the impulse
    response is C V with V_kt = lambda_k^t, and C = L V^{-1} realises any L (T = 4); the
    package's ``conv_models.vandermonde_realization`` builds exactly these W, F and C."""
    lam = np.array([0.9, -0.5, 0.3, -0.1])
    L = np.array([1.0, -2.0, 0.5, 3.0])
    V = np.vander(lam, 4, increasing=True)
    C = np.linalg.solve(V.T, L)
    W, F = np.diag(lam), np.ones(4)
    got = [C @ np.linalg.matrix_power(W, t) @ F for t in range(4)]
    assert np.allclose(got, [sum(C * lam**t) for t in range(4)])
    assert np.allclose(got, C @ V) and np.allclose(got, L)
    # the package's construction is this one, with Eq. (1)'s 1/sqrt(n) undone (n = 4)
    p = conv_models.vandermonde_realization(torch.tensor(L)[:, None, None], lambdas=lam)
    assert np.allclose(p["W"].numpy(), 2 * W) and np.allclose(p["F"].numpy()[:, 0], F)
    assert np.allclose(p["C"].numpy()[0], 2 * C)
    response = linear_rnn.impulse_response(p, 4)[:, 0, 0].numpy()
    np.testing.assert_allclose(response, L, atol=1e-10)
