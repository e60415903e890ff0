"""The limit model (2.6)-(2.10): shift matrix, row support, truncation, GD on the energy."""

import numpy as np
import pytest
import torch

from rnnbook.infinite_width import limit
from rnnbook.infinite_width.regression import Regression, gaussian_regression


def test_shift_matrix_entries_by_definition():
    for N, d in ((7, 1), (9, 3), (12, 10)):
        S = limit.shift_matrix(N, d)
        for i in range(1, N + 1):
            for j in range(1, N + 1):
                assert S[i - 1, j - 1] == (1.0 if (i + d == j or j + 1 == i) else 0.0)


@pytest.mark.parametrize("d", [1, 2, 3, 10])
def test_support_rows_closed_form_recursion_and_measured(d):
    rng = np.random.default_rng(d)
    n = max(1, d // 2)
    X = rng.standard_normal((n, d))
    data = Regression(X=X, y=X @ rng.standard_normal(d), lam_star=np.zeros(d))
    K = 9
    tr = limit.train(data, 0.05, K, N=(d + 1) * K + d + 5, keep=tuple(range(K + 1)))
    for k in range(K + 1):
        a, b = limit.support_rows_recursion(d, k)
        assert a == limit.support_rows(d, k) and b <= a
        st = tr.states[k]
        rows_A = np.nonzero(np.abs(st.A).sum(1))[0].max() + 1
        rows_B = np.nonzero(st.B)[0].max() + 1
        assert (rows_A, rows_B) == (a, b)
        assert not np.any(st.G[a:, :]) and not np.any(st.G[:, a:])


@pytest.mark.parametrize("steps", [1, 2, 5, 12])
def test_truncation_beyond_support_is_exact(data, steps):
    N = limit.support_rows(data.d, steps)
    ref = limit.train(data, 0.3, steps, N=N)
    for extra in (1, 7, 40):
        big = limit.train(data, 0.3, steps, N=N + extra)
        np.testing.assert_allclose(big.lam, ref.lam, rtol=0, atol=1e-14)
        np.testing.assert_allclose(big.b_sq, ref.b_sq, rtol=0, atol=1e-14)
    small = limit.train(data, 0.3, steps, N=N - 1)
    assert np.abs(small.lam - ref.lam).max() > 0


def test_limit_updates_are_gradient_descent_on_the_energy(data):
    """(2.10) is GD on ℰ(A, G, B) of (2.11): torch autograd on a random (non-initial) state."""
    N, d = 15, data.d
    rng = np.random.default_rng(0)
    st = limit.LimitState(
        rng.standard_normal((N, d)),
        rng.standard_normal((N, N)) * 0.1,
        rng.standard_normal(N),
    )
    S = limit.shift_matrix(N, d)
    lam = limit.predictor(st, S)
    gA, gG, gB = limit.energy_gradients(st, S, data.xi(lam))
    A, G, B = (torch.tensor(v, requires_grad=True) for v in (st.A, st.G, st.B))
    X, y = torch.tensor(data.X), torch.tensor(data.y)
    h = X @ (A.T @ (torch.tensor(S) + G).T @ B)
    E = 0.5 * torch.mean((h - y) ** 2)
    E.backward()
    for mine, auto in ((gA, A.grad), (gG, G.grad), (gB, B.grad)):
        np.testing.assert_allclose(mine, auto.numpy(), rtol=1e-12, atol=1e-13)


def test_scaled_model_is_gd_on_the_rescaled_initialization(data):
    """Predictor scale s with updates (2.10) at ξ(sλ) = plain GD, step τ s^(-1/3), on the network
    whose initialization (shift included) is multiplied by s^(1/3)."""
    s, tau, K = 0.2, 0.1, 6
    d = data.d
    N = limit.support_rows(d, K)
    ref = limit.train(data, tau, K, N=N, scale=s)
    c = s ** (1 / 3)
    S = c * limit.shift_matrix(N, d)
    st0 = limit.init_limit(N, d)
    A, G, B = c * st0.A, np.zeros((N, N)), c * st0.B
    lams = []
    for _ in range(K + 1):
        lam = A.T @ (S + G).T @ B
        lams.append(lam)
        xi = data.xi(lam)
        H = S + G
        A, G, B = (
            A - tau / c * np.outer(H.T @ B, xi),
            G - tau / c * np.outer(B, A @ xi),
            B - tau / c * H @ (A @ xi),
        )
    np.testing.assert_allclose(np.array(lams), ref.lam, rtol=1e-11, atol=1e-13)


def test_kernel_at_init_is_three_identities():
    d, N = 5, 30
    for K in limit.kernel(limit.init_limit(N, d), limit.shift_matrix(N, d)):
        np.testing.assert_array_equal(K, np.eye(d))


def test_discrete_gd_reaches_pinv():
    data = gaussian_regression(d=6, n=3, seed=11)
    tr = limit.train(data, 0.05, 3000, N=60, every=100)
    np.testing.assert_allclose(tr.lam[-1], np.linalg.pinv(data.X) @ data.y, atol=1e-9)


def test_bad_arguments(data):
    with pytest.raises(ValueError, match="truncation"):
        limit.init_limit(3, 5)
    with pytest.raises(ValueError, match="positive"):
        limit.shift_matrix(0, 2)
    with pytest.raises(ValueError, match="bad value"):
        limit.train(data, -0.1, 3)
