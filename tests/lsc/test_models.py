"""The networks of App. H: closed-form transition derivatives, default initializations (with the
LRU's ring initialization against its analytic law at growing width), the surrogate spike and
the layer-major forward pass."""

import math

import numpy as np
import pytest
import torch

from rnnbook.lsc import models, pretrain


def test_simple_rnn_transition_closed_form():
    """For h' = a(W_rec h + W_in u + b): dh'/dh = diag(a'(z)) W_rec and dh'/du = diag(a'(z)) W_in."""
    g = torch.Generator().manual_seed(3)
    cell = models.SimpleRNNCell(4, 6, "sigmoid", g)
    h, u = torch.randn(3, 6, generator=g), torch.randn(3, 4, generator=g)
    z = h @ cell.W_rec.T + u @ cell.W_in.T + cell.b
    d = torch.sigmoid(z) * (1 - torch.sigmoid(z))
    assert torch.allclose(
        pretrain.batched_jacobian(cell.step, h, u),
        d[:, :, None] * cell.W_rec[None],
        atol=1e-6,
    )
    assert torch.allclose(
        pretrain.batched_jacobian(cell.step, h, u, argnum=1),
        d[:, :, None] * cell.W_in[None],
        atol=1e-6,
    )


@torch.no_grad()  # the checks read parameters as numbers; no graph is wanted
def test_default_initializations():
    g = torch.Generator().manual_seed(0)
    Q = models.orthogonal(50, g)
    assert torch.allclose(Q @ Q.T, torch.eye(50), atol=1e-5)
    W = models.glorot_uniform(200, 300, g)
    assert (
        float(W.abs().max()) <= math.sqrt(6 / 500)
        and abs(float(W.var()) - 2 / 500) < 2e-4
    )
    alif = models.ALIFCell(10, 300, g, "plus")
    assert float(alif.beta.min()) > 0 and abs(float(alif.beta.mean()) - 1.8) < 0.15
    assert abs(float(alif.tau_th.std()) - 300 / 7) < 8
    alif_pm = models.ALIFCell(10, 3000, g, "pm")
    assert (
        float(alif_pm.beta.min()) < 0 < float(alif_pm.beta.max())
        and abs(float(alif_pm.beta.std()) - 0.18) < 0.02
    )
    lru = models.LRUCell(64, 2000, g)
    r = lru.radius()
    assert (
        0.5 <= float(r.min())
        and float(r.max()) <= 1
        and abs(float(r.mean()) - 0.75) < 0.02
    )
    assert torch.allclose(torch.exp(lru.gamma_log), torch.sqrt(1 - r**2), atol=1e-5)
    assert 0 <= float(lru.theta.min()) and float(lru.theta.max()) <= math.pi / 10


def test_surrogate_spike():
    v = torch.tensor([-2.0, -0.1, 0.3, 1.0], requires_grad=True)
    x = models.spike(v)
    assert torch.equal(x.detach(), torch.tensor([0.0, 0.0, 1.0, 1.0]))
    (g,) = torch.autograd.grad(x.sum(), v)
    assert torch.allclose(g, 0.5 / (1 + v.detach().abs()) ** 2)


@pytest.mark.parametrize("form", models.ALIF_THRESHOLDS)
def test_alif_threshold_step(form):
    """A spike raises the threshold by (1 - alpha) (b + beta) in the authors' code, by b + beta
    in Eq. (49) as printed; without a spike it relaxes towards b_theta resp. b / (1 - alpha)."""
    g = torch.Generator().manual_seed(1)
    cell = models.ALIFCell(3, 4, g, "plus", threshold=form)
    th = torch.tensor([[0.5, 0.5, 0.2, 0.2]])
    y = torch.tensor([[1.0, 0.0, 1.0, 0.0]])  # neurons 0 and 2 spike
    state = torch.cat([y, th], -1)
    new = cell.rec(state, torch.zeros(1, 4)).detach()[0, 4:]
    a = torch.exp(-1 / cell.tau_th.detach())
    drive = cell.b_th.detach() + cell.beta.detach() * torch.tensor([1.0, 0, 1, 0])
    scale = (1 - a) if form == "code" else torch.ones(4)
    assert torch.allclose(new, a * th[0] + scale * drive, atol=1e-6)


def test_alif_plus_as_printed_falls_silent():
    """With Tab. S1's beta = 1.8 and tau_theta = 100, Eq. (49) as printed silences ALIF+ within a
    few steps (each spike lifts its threshold by ~1.8); the authors' form keeps it firing."""
    for s in range(3):
        x = torch.rand(64, 30, 20, generator=torch.Generator().manual_seed(s)) < 0.3
        rate = {}
        for form in models.ALIF_THRESHOLDS:
            m = models.make_rnn("alif_plus", 2, 20, 32, 5, s, alif={"threshold": form})
            with torch.no_grad():
                _, tr = m(x.float(), trace=True)
            y, th = tr.H[-1].chunk(2, -1)
            rate[form] = float((y > th)[:, -10:].float().mean())
        assert rate["code"] > 0.2 and rate["printed"] < 0.01, rate


def test_alif_threshold_form_is_checked():
    with pytest.raises(ValueError, match="threshold"):
        models.ALIFCell(3, 4, torch.Generator(), "plus", threshold="lsnn")


def test_lru_time_transition_is_lambda():
    """For the LRU the time transition is Lambda itself (2x2 rotation-scaling blocks): radius max |lambda|."""
    model = models.make_lru(2, 30, 8, seed=0)
    x = torch.randint(0, 30, (3, 6))
    rad = pretrain.measure(model, x, n_times=None)
    for l, cell in enumerate(model.cells, 1):
        assert np.allclose(
            rad[(l, "time")], float(cell.radius().detach().max()), atol=1e-5
        )


def test_ffn_transition_closed_form():
    f = models.FFN(7, 5, 3, act="sin", seed=0)
    x = torch.randn(4, 7)
    trs = f.lsc_jacobians(x)
    hs = f.hidden(x)
    z = f.layers[1](hs[1])
    assert torch.allclose(
        trs[1].M, torch.cos(z)[:, :, None] * f.layers[1].weight[None], atol=1e-6
    )
    assert [t.layer for t in trs] == [1, 2, 3]


@pytest.mark.parametrize("kind", list(models.RNN_KINDS) + ["lru"])
def test_layer_major_sequence_equals_stepping(kind):
    """StackedRNN runs layer by layer with the input maps batched over time; stepping time-major gives the same."""
    torch.manual_seed(0)
    if kind == "lru":
        model = models.make_lru(3, 20, 6, seed=1).eval()
        x = torch.randint(0, 20, (2, 7))
    else:
        model = models.make_rnn(kind, 3, 5, 6, 4, seed=1)
        x = (torch.rand(2, 7, 5) < 0.5).float()
    y, tr = model(x, trace=True)
    u_seq = model.encode(x)
    hs = [c.initial_state(2) for c in model.cells]
    outs = []
    for t in range(7):
        u = u_seq[:, t]
        for l, c in enumerate(model.cells):
            hs[l] = c.step(hs[l], u)
            assert torch.allclose(hs[l], tr.H[l][:, t], atol=1e-5)
            u = c.out(hs[l], u)
        outs.append(u)
    assert torch.allclose(model.readout(torch.stack(outs, 1)), y, atol=1e-5)


def test_lru_time_radius_approaches_one_as_its_law_says():
    """The default LRU's time radius is max_j |lambda_j| with |lambda_j| ~ U[0.5, 1] (App. H), so
    E rho_time = 0.5 + 0.5 n / (n + 1) -> 1: the Monte Carlo mean over 200 draws meets the law
    within 4 standard errors, and its error (and 1 - rho_time) shrinks as the state grows."""
    errs, gaps = [], []
    for n_h in (4, 32, 256):
        g = torch.Generator().manual_seed(n_h)
        rho = np.array(
            [
                float(models.LRUCell(2, n_h, g).radius().detach().max())
                for _ in range(200)
            ]
        )
        law = 0.5 + 0.5 * n_h / (n_h + 1)
        assert abs(rho.mean() - law) <= 4 * rho.std() / np.sqrt(200) + 1e-4
        errs.append(abs(rho.mean() - law))
        gaps.append(1 - rho.mean())
    assert errs[-1] < errs[0] and gaps[0] > gaps[1] > gaps[2]
