"""The implicit-bias math against independent computations: recursion by iteration, finite differences,
explicit convolution sums, and the wide-network NTK."""

import numpy as np
import pytest
import sympy as sp
import torch

from rnnbook.implicit_bias import linear_rnn
from rnnbook.implicit_bias import ntk
from rnnbook.implicit_bias import scale_factors as sf


def test_derived_rho_equals_eq21_symbolically():
    d = sf.derive_rho()
    assert d.matches_paper
    assert (
        sp.simplify(d.tau_2 - (sf.j * sf.nu_F * sf.nu_W ** (sf.j - 1) + sf.nu_W**sf.j))
        == 0
    )


@pytest.mark.parametrize(
    "nW,nF,nC", [(0.3, 1.0, 1.0), (0.8, 0.5, 2.0), (1.4, 2.0, 0.3)]
)
def test_rho_against_iterated_recursion(nW, nF, nC):
    T = 12
    t1, t2, it = nF, 1.0, []
    for _ in range(T):  # iterate Eq. (48) numerically, independent of rsolve
        it.append(nC * t2 + t1)
        t1, t2 = nW * t1, nW * t2 + t1
    np.testing.assert_allclose(sf.rho(T, nW, nF, nC), it, rtol=1e-12)


def test_bound22_region_matches_direct_evaluation():
    thr = sp.lambdify((sf.nu_F, sf.nu_C), sf.derive_bound22().nu_W_threshold)
    rng = np.random.default_rng(1)
    for _ in range(300):
        nF, nC = rng.uniform(0.1, 3, 2)
        T = int(rng.integers(2, 30))
        nW = rng.uniform(0.05, 2.5)
        assert sf.bound22_holds(T, nW, nF, nC) == (nW <= thr(nF, nC))
    assert sf.bound22_holds(20, 0.99, 1, 1)


def test_bad_arguments_are_named():
    with pytest.raises(ValueError, match="nu_W"):
        linear_rnn.init_params(4, 1, 1, -0.3, 1, 1, seed=0)
    with pytest.raises(ValueError, match="n ="):
        linear_rnn.init_params(0, 1, 1, 0.3, 1, 1, seed=0)
    with pytest.raises(ValueError, match="T ="):
        sf.rho(0, 0.3, 1, 1)


def test_forward_is_the_convolution_with_the_impulse_response():
    p = linear_rnn.init_params(7, 3, 2, 0.5, 1.0, 1.0, seed=3)
    x = torch.randn(6, 3, dtype=torch.float64)
    L = linear_rnn.impulse_response(p, 6)
    y = torch.stack([sum(L[j] @ x[t - j] for j in range(t + 1)) for t in range(6)])
    torch.testing.assert_close(linear_rnn.forward(p, x), y)


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
