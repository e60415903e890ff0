"""Theorem 5 (lower_bound): transitions, Lyapunov exponents, l-LSC scaling, path sums."""

import itertools
import math

import numpy as np
import pytest
import torch
from torch.func import jacrev

from rnnbook.lsc import lower_bound as lb


def test_tanh_transitions_match_autograd_and_log_det_formula():
    g = torch.Generator().manual_seed(0)
    n, gain = 4, 1.3
    W = torch.randn(n, n, dtype=torch.float64, generator=g) / 2
    x = torch.randn(3, 5, n, dtype=torch.float64, generator=g)
    M = lb.tanh_rnn_transitions(W, gain, x)
    h = torch.zeros(3, n, dtype=torch.float64)
    for t in range(5):
        ref = torch.stack(
            [
                jacrev(lambda hh: torch.tanh(gain * W @ hh + x[b, t]))(h[b])
                for b in range(3)
            ]
        )
        torch.testing.assert_close(M[:, t], ref)
        h_new = torch.tanh(h @ (gain * W).T + x[:, t])
        direct = (
            n * math.log(gain)
            + torch.linalg.slogdet(W)[1]
            + torch.log(1 - h_new**2).sum(-1)
        )
        torch.testing.assert_close(lb.log_abs_dets(W, gain, x)[:, t], direct)
        h = h_new


def test_lyapunov_exponents_of_constant_diagonal_and_their_sum():
    M = torch.diag(torch.tensor([2.0, 0.5, 1.0], dtype=torch.float64))
    M = M.expand(2, 7, 3, 3)
    torch.testing.assert_close(
        lb.lyapunov_exponents(M),
        torch.tensor([[math.log(2), 0.0, math.log(0.5)]] * 2, dtype=torch.float64),
    )
    g = torch.Generator().manual_seed(1)
    R = torch.randn(4, 30, 3, 3, dtype=torch.float64, generator=g)
    torch.testing.assert_close(
        lb.lyapunov_exponents(R).sum(-1), torch.linalg.slogdet(R)[1].mean(-1)
    )


def test_log_det_growth_statistics():
    logb = np.tile([1.0, -1.0], (5, 4))  # S_n = 1, 0, 1, 0, ...
    gr = lb.log_det_growth(logb, [1, 2, 8], 0.1)
    np.testing.assert_allclose(gr.median, [1.0, 0.0, 0.0])
    np.testing.assert_allclose(gr.iqr, 0.0)
    np.testing.assert_allclose(gr.frac_out, [1.0, 0.0, 0.0])
    np.testing.assert_allclose(gr.log_mean, [1.0, 0.0, 0.0], atol=1e-12)
    np.testing.assert_allclose(lb.autocorrelation(logb, [0, 1]), [1.0, -1.0])


@pytest.mark.parametrize("n", [1, 3, 6])
def test_gaussian_determinant_moments_against_monte_carlo(n):
    g = torch.Generator().manual_seed(n)
    G = torch.randn(200_000, n, n, dtype=torch.float64, generator=g)
    la = torch.linalg.slogdet(G)[1]
    assert abs(float(la.mean()) - lb.gaussian_log_det_mean(n)) < 0.02
    assert (
        abs(math.log(float(la.exp().mean())) - lb.gaussian_abs_det_log_mean(n)) < 0.03
    )
    if n == 1:  # E log|z| = (psi(1/2) + log 2)/2 = -(gamma + log 2)/2
        assert lb.gaussian_log_det_mean(1) == pytest.approx(
            -(0.5772156649 + math.log(2)) / 2
        )


def test_l_lsc_scaling_and_newman_exponents():
    g = torch.Generator().manual_seed(3)
    M = lb.l_lsc_gaussian(300, 150, 3, g)
    assert abs(float(torch.linalg.slogdet(M)[1].mean())) < 0.02
    c = math.exp(lb.gaussian_log_det_mean(3) / 3)
    newman = lb.newman_exponents(3, c)
    assert abs(newman.sum()) < 1e-12
    measured = lb.lyapunov_exponents(M).mean(0).numpy()
    np.testing.assert_allclose(measured, newman, atol=0.03)


def test_word_sums_against_enumeration():
    g = torch.Generator().manual_seed(4)
    A, B = torch.randn(2, 2, 3, 3, dtype=torch.float64, generator=g)
    J = lb.word_sums(A, B, 2, 3)
    for a, b in [(0, 0), (1, 0), (2, 1), (1, 3), (2, 3)]:
        ref = torch.zeros(2, 3, 3, dtype=torch.float64) + torch.eye(3) * (a + b == 0)
        for pos in itertools.combinations(range(a + b), a):
            P = torch.eye(3, dtype=torch.float64).expand(2, 3, 3)
            for i in range(a + b):
                P = P @ (A if i in pos else B)
            ref = ref + P if a + b else ref
        torch.testing.assert_close(J[a, b], ref)


def test_determinant_path_test_commuting_and_a_counterexample():
    g = torch.Generator().manual_seed(5)
    A, B = lb.commuting_psd(200, 3, g)
    t = lb.determinant_path_test("commuting", A, B, 3, 3)
    assert (t.violations, t.tested, t.negative) == (0, 200 * 9, 0)
    # A = diag(1, e), B = A turned by 45 degrees: A B + B A is indefinite
    e = 0.01
    A = torch.diag(torch.tensor([1.0, e], dtype=torch.float64))
    c = math.sqrt(0.5)
    R = torch.tensor([[c, -c], [c, c]], dtype=torch.float64)
    B = R @ A @ R.T
    assert float(torch.linalg.det(A @ B + B @ A)) < 0
    t = lb.determinant_path_test("pair", A[None], B[None], 1, 1)
    assert (t.violations, t.negative, t.tested) == (1, 1, 1)


def test_gain_scan_stays_below_the_l_lsc():
    g = torch.Generator().manual_seed(6)
    scan = lb.gain_scan(4, [0.5, 1.0, 2.0], [0.3], 10, 80, 20, g)
    best = scan.best()
    assert set(scan.means) == {"orthogonal", "Gaussian"}
    assert len(scan.means["orthogonal"][0.3]) == 3
    assert best["max_mean"] < 0 and best["best_gain"] in (0.5, 1.0, 2.0)
    assert scan.lyap_err < 1e-10
