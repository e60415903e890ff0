import numpy as np
import pytest
import torch

from rnnbook.implicit_bias import linear_rnn, ntk
from rnnbook.implicit_bias.scale_factors import rho
from rnnbook.synthesis import linear_diagnostics as ld


def test_ntk_diagonal_matches_autodiff():
    T = 5
    p = linear_rnn.init_params(7, 1, 1, 0.9, 1.2, 0.8, seed=3)
    x = torch.zeros(1, T, 1, dtype=torch.float64)
    x[0, 0, 0] = 1.0
    K = ntk.empirical_ntk(linear_rnn.forward, p, x).reshape(T, T)
    closed = ld.ntk_impulse_diagonal(p["W"][None], p["F"][None], p["C"][None], T)[0]
    assert torch.allclose(torch.diagonal(K), closed, rtol=1e-10, atol=1e-12)


def test_ntk_diagonal_converges_to_rho():
    T, errs = 4, []
    for n in (16, 256):
        p = linear_rnn.init_params(n, 1, 1, 0.8, 1.0, 1.0, seed=n, batch=40)
        th = ld.ntk_impulse_diagonal(p["W"], p["F"], p["C"], T).mean(0).numpy()
        errs.append(np.max(np.abs(th / rho(T, 0.8, 1.0, 1.0) - 1)))
    assert errs[1] < 0.1 and errs[1] < errs[0]


def test_hutchinson_is_unbiased():
    g = torch.Generator().manual_seed(0)
    J = torch.randn(1, 12, 12, generator=g, dtype=torch.float64) / 12**0.5
    exact = ld.frobenius_powers(J, 3)
    V = torch.randn(1, 12, 20000, generator=g, dtype=torch.float64)
    est = ld.frobenius_powers(J, 3, V)
    assert torch.allclose(est, exact, rtol=0.05)


def test_sweep_approaches_nu_with_width():
    nus = [0.6, 1.2]
    sw = ld.sweep(nus, [16, 128], seeds=4, T=5, seed=0)
    for q in ("chi1", "grad_decay", "radius2"):
        v = sw.values[q].mean(-1)
        assert v.shape == (2, 2)
        dev = np.abs(v / np.array(nus)[:, None] - 1)
        assert dev[:, 1].max() < 0.15
    pred = ld.rho_ratio_at(3, nus)
    assert np.max(np.abs(sw.values["rho_ratio"][:, 1].mean(-1) / pred - 1)) < 0.15


def test_rho_ratio_at_limit_and_bad_T():
    far, near = ld.rho_ratio_at(500, [0.7])[0], ld.rho_ratio_at(5, [0.7])[0]
    assert 0 < far - 0.7 < 0.01 and near - 0.7 > 0.1  # nu_W (1 + a/(aj + b)) -> nu_W
    with pytest.raises(ValueError):
        ld.sweep([0.5], [8], 2, 2, 0)
