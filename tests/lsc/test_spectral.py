"""The spectral radius's rank-one gradient (rnnbook.lsc.spectral) against finite differences, against
autograd through ``torch.linalg.eigvals`` (the gradient it replaces), at conjugate pairs, at zero, by
its fallback, and the pre-training trajectories it gives against those of the old gradient."""

import pytest
import torch

from rnnbook.lsc import models, pretrain, spectral
from rnnbook.lsc.spectral import spectral_radius


def eigvals_radius(M):
    """The gradient it replaces: autograd through every eigenvalue."""
    return torch.linalg.eigvals(M).abs().amax(-1)


def grad(f, M):
    A = M.detach().clone().requires_grad_(True)
    (g,) = torch.autograd.grad(f(A).sum(), A)
    return g


def test_gradient_matches_finite_differences():
    g = torch.Generator().manual_seed(0)
    for _ in range(3):
        M = torch.randn(6, 6, generator=g, dtype=torch.float64)
        G = grad(spectral_radius, M)
        E = torch.randn(6, 6, generator=g, dtype=torch.float64)
        h = 1e-6
        fd = (spectral_radius(M + h * E) - spectral_radius(M - h * E)) / (2 * h)
        assert abs(float((G * E).sum()) - float(fd)) < 1e-6


@pytest.mark.parametrize("dtype,tol", [(torch.float64, 1e-10), (torch.float32, 1e-4)])
def test_gradient_equals_autograd_through_eigvals(dtype, tol):
    M = torch.randn(40, 12, 12, generator=torch.Generator().manual_seed(1)) / 3
    M = M.to(dtype)
    assert torch.equal(spectral_radius(M), eigvals_radius(M))
    G, G0 = grad(spectral_radius, M), grad(eigvals_radius, M)
    assert float((G - G0).abs().max()) <= tol * float(G0.abs().max())


def test_conjugate_pair_zero_and_diagonal():
    R = torch.tensor([[[0.0, 2.0], [-2.0, 0.0]]], dtype=torch.float64)  # +-2i: a pair
    assert torch.allclose(grad(spectral_radius, R), grad(eigvals_radius, R), atol=1e-12)
    Z = torch.zeros(1, 3, 3, dtype=torch.float64)
    assert torch.equal(grad(spectral_radius, Z), torch.zeros_like(Z))
    D = torch.diag(torch.tensor([0.5, -0.3, 0.2], dtype=torch.float64))[None]
    expected = torch.zeros_like(D)
    expected[0, 0, 0] = 1.0
    assert torch.allclose(grad(spectral_radius, D), expected, atol=1e-12)


def test_fallback_from_the_full_decomposition_agrees():
    A = torch.randn(10, 7, 7, generator=torch.Generator().manual_seed(2)).double()
    lam = torch.linalg.eigvals(A)
    top = lam.gather(-1, lam.abs().argmax(-1, keepdim=True)).squeeze(-1)
    u, v, ok = spectral._top_vectors(A, top)
    assert bool(ok.all())
    assert torch.allclose(
        spectral._rank_one(top, u, v), spectral._from_eig(A), atol=1e-10
    )


def test_pretraining_trajectory_equals_the_eigvals_gradient(monkeypatch):
    """Five steps of a float64 GRU and LSTM: the same radii, history and parameters with the
    rank-one gradient as with autograd through eigvals (to rounding)."""
    g = torch.Generator().manual_seed(3)
    x = (torch.rand(3, 6, 4, generator=g) < 0.4).double()
    cfg = pretrain.LSCConfig(target=1.0, max_steps=5, min_steps=5, n_times=2)

    def run():
        out = {}
        for kind in ("gru", "lstm"):
            net = models.make_rnn(kind, 2, 4, 6, 2, seed=0).double()
            rep = pretrain.lsc_pretrain_(net, x, config=cfg, seed=1)
            out[kind] = (rep, [p.detach().clone() for p in net.parameters()])
        return out

    new = run()
    monkeypatch.setattr(spectral._Radius, "apply", eigvals_radius)
    old = run()
    for kind in new:
        (r, ps), (r0, ps0) = new[kind], old[kind]
        assert r.steps == r0.steps == 5
        for key in ("loss", "mean_radius", "std"):
            assert torch.allclose(
                torch.tensor(r.history[key]), torch.tensor(r0.history[key]), atol=1e-9
            ), (kind, key)
        for p, q in zip(ps, ps0):
            assert torch.allclose(p, q, atol=1e-8), kind
