import numpy as np
import pytest
import torch
from torch.func import jacrev

from rnnbook.mean_field import minimal_rnn
from rnnbook.synthesis import nonlinear_diagnostics as nd


@pytest.mark.parametrize("cell", nd.CELLS)
def test_jacobians_match_autodiff(cell):
    g = torch.Generator().manual_seed(1)
    N = 6
    w = minimal_rnn.draw_weights(N, 1.1, 0.7, 0.5, 0.0, 1, g)
    x = torch.randn(1, 4, N, generator=g, dtype=torch.float64)
    J, B = nd.jacobians(cell, w, x, burn=0, T=3)

    def step(h, xt):
        if cell == "tanh":
            return torch.tanh(h @ w.W[0].T + xt @ w.V[0].T + w.b[0])
        return minimal_rnn.cell(h[None, None], xt[None, None], w.W, w.V, w.b)[0][0, 0]

    h = torch.zeros(N, dtype=torch.float64)
    for t in range(4):
        assert torch.allclose(jacrev(step, 0)(h, x[0, t]), J[0, t], atol=1e-12)
        assert torch.allclose(jacrev(step, 1)(h, x[0, t]), B[0, t], atol=1e-12)
        h = step(h, x[0, t])


def test_tanh_decay_tracks_chi1_at_growing_width():
    devs = []
    for n in (16, 128):
        sw = nd.sweep("tanh", [0.8, 1.2], n, seeds=3, T=8, seed=0, sigma_v2=0.1)
        devs.append(
            np.max(np.abs(sw.values["grad_decay"].mean(-1) / sw.chi1_theory - 1))
        )
        chi = np.abs(sw.values["chi1"].mean(-1) / sw.chi1_theory - 1)
        assert chi.max() < 0.1
    assert devs[1] < 0.1


def test_minimal_chi1_measured_against_theory():
    sw = nd.sweep("minimal", [0.5, 1.0], 128, seeds=2, T=6, seed=0, mu_b=2.0)
    assert np.max(np.abs(sw.values["chi1"].mean(-1) / sw.chi1_theory - 1)) < 0.05


def test_bad_cell():
    with pytest.raises(ValueError):
        nd.chi1_theory("lstm", [1.0], 0.1, 0.0, 1.0)
