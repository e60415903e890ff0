"""The LSC module against independent computations: per-sample autograd, closed-form Jacobians, hand-computable
pre-training runs of scalar linear RNNs, and the models' default initializations."""

import math

import numpy as np
import pytest
import torch
from torch import nn

from rnnbook.lsc import pretrain as lsc
from rnnbook.lsc import models as lm


def test_spectral_radius_hand_cases():
    M = torch.tensor(
        [
            [[0.0, 2.0], [-2.0, 0.0]],
            [[0.5, 10.0], [0.0, -0.7]],
            [[3.0, 0.0], [0.0, 1.0]],
        ]
    )
    assert torch.allclose(
        lsc.spectral_radius(M), torch.tensor([2.0, 0.7, 3.0]), atol=1e-6
    )
    # a non-square matrix: padded with zeros = its leading square block; or its spectral norm
    A = torch.tensor([[[2.0, 0.0, 5.0], [0.0, -3.0, 5.0]]])
    assert torch.allclose(lsc.spectral_radius(A, "pad"), torch.tensor([3.0]))
    padded = torch.cat([A[0], torch.zeros(1, 3)], 0)
    assert abs(float(lsc.spectral_radius(padded[None])) - 3.0) < 1e-6
    assert torch.allclose(
        lsc.spectral_radius(A, "norm"), torch.linalg.svdvals(A[0])[:1], atol=1e-5
    )
    with pytest.raises(ValueError, match="nonsquare"):
        lsc.spectral_radius(A, "nope")


def test_radius_gradient_matches_finite_differences():
    torch.manual_seed(0)
    M = torch.randn(5, 5, dtype=torch.float64, requires_grad=True)
    (g,) = torch.autograd.grad(lsc.spectral_radius(M), M)
    E = torch.randn(5, 5, dtype=torch.float64)
    h = 1e-6
    fd = (
        lsc.spectral_radius(M.detach() + h * E)
        - lsc.spectral_radius(M.detach() - h * E)
    ) / (2 * h)
    assert abs(float((g * E).sum()) - float(fd)) < 1e-5


@pytest.mark.parametrize("mode", ["rev", "fwd"])
def test_batched_jacobian_equals_per_sample_autograd(mode):
    torch.manual_seed(1)
    cell = lm.GRUCell(6, 5, torch.Generator().manual_seed(0))
    h, u = torch.randn(7, 5), torch.randn(7, 6)
    J_b = lsc.batched_jacobian(cell.step, h, u, argnum=0, mode=mode)
    J_s = lsc.per_sample_jacobian(cell.step, h, u, argnum=0)
    assert J_b.shape == (7, 5, 5) and torch.allclose(J_b, J_s, atol=1e-6)
    J_b = lsc.batched_jacobian(cell.step, h, u, argnum=1, mode=mode)
    assert torch.allclose(
        J_b, lsc.per_sample_jacobian(cell.step, h, u, argnum=1), atol=1e-6
    )


def test_simple_rnn_transition_closed_form():
    """For h' = a(W_rec h + W_in u + b): dh'/dh = diag(a'(z)) W_rec and dh'/du = diag(a'(z)) W_in."""
    g = torch.Generator().manual_seed(3)
    cell = lm.SimpleRNNCell(4, 6, "sigmoid", g)
    h, u = torch.randn(3, 6, generator=g), torch.randn(3, 4, generator=g)
    z = h @ cell.W_rec.T + u @ cell.W_in.T + cell.b
    d = torch.sigmoid(z) * (1 - torch.sigmoid(z))
    assert torch.allclose(
        lsc.batched_jacobian(cell.step, h, u),
        d[:, :, None] * cell.W_rec[None],
        atol=1e-6,
    )
    assert torch.allclose(
        lsc.batched_jacobian(cell.step, h, u, argnum=1),
        d[:, :, None] * cell.W_in[None],
        atol=1e-6,
    )


def test_stacked_depth_transition_matches_autograd_of_the_network():
    """The depth M_k of layer 2 at (b, t) is d h_{t,2} / d h_{t,1} of the unrolled network, by autograd."""
    torch.manual_seed(0)
    model = lm.make_rnn("lstm", 2, 3, 4, 2, seed=5)
    x = torch.randn(2, 5, 3)
    trs = model.lsc_jacobians(x, n_times=None)
    depth2 = next(
        t for t in trs if t.layer == 2 and t.kind == "depth"
    ).M  # (B*T, 8, 8), order (b, t)
    time1 = next(t for t in trs if t.layer == 1 and t.kind == "time").M
    with torch.no_grad():
        _, tr = model(x, trace=True)
    b, t = 1, 3
    c1, c2 = model.cells
    h1, h2_prev, u1 = tr.H[0][b, t], tr.H[1][b, t - 1], tr.U[0][b, t]
    J = torch.autograd.functional.jacobian(
        lambda g: c2.step(h2_prev, c1.out(g, u1)), h1
    )
    assert torch.allclose(depth2[b * 5 + t], J, atol=1e-6)
    J1 = torch.autograd.functional.jacobian(
        lambda hp: c1.step(hp, u1), tr.H[0][b, t - 1]
    )
    assert torch.allclose(time1[b * 5 + t], J1, atol=1e-6)
    # at t = 0 the previous state is the initial (zero) state
    J0 = torch.autograd.functional.jacobian(
        lambda hp: c1.step(hp, tr.U[0][0, 0]), torch.zeros(8)
    )
    assert torch.allclose(time1[0], J0, atol=1e-6)


class ScalarCell(lsc.Cell):
    """h' = w h + v u: time radius |w|, depth radius |v| (hand-computable)."""

    input_params, recurrent_params = ("v",), ("w",)

    def __init__(self, w, v):
        super().__init__()
        self.state_size = 1
        self.w, self.v = (
            nn.Parameter(torch.tensor([[w]])),
            nn.Parameter(torch.tensor([[v]])),
        )

    def step(self, h, u):
        return h @ self.w.T + u @ self.v.T


def scalar_net(w=0.2, v=3.0, depth=2):
    return lsc.StackedRNN([ScalarCell(w, v) for _ in range(depth)], nn.Identity())


def const_batches():
    while True:
        yield torch.ones(2, 3, 1)


def test_multiplier_alone_follows_the_clipped_ratio():
    """With lr = 0 and no shuffling, each step multiplies w by clip(0.5/|w|, 0.85, 1.15) and v likewise."""
    net = scalar_net(0.2, 3.0)
    cfg = lsc.LSCConfig(
        target=0.5, lr=0.0, weight_decay=0.0, shuffle=False, max_steps=40, n_times=None
    )
    rep = lsc.pretrain(net, const_batches(), cfg)
    w, v = 0.2, 3.0
    for _ in range(rep.steps - 1):
        w *= min(max(0.5 / w, 0.85), 1.15)
        v *= min(max(0.5 / v, 0.85), 1.15)
    assert rep.converged
    assert (
        abs(float(net.cells[0].w.detach()) - w) < 1e-5
        and abs(float(net.cells[0].v.detach()) - v) < 1e-5
    )
    # the step count, by an independent simulation of the three criteria on the four radii (w, v per layer)
    w, v, stds, k = 0.2, 3.0, [], 0
    while True:
        k += 1
        d = np.array([w, v, w, v]) - 0.5
        stds.append(d.std(ddof=1))
        if abs(d.mean()) <= 0.02 and stds[-1] < 0.2 and lsc.ema(stds) < 0.2:
            break
        w, v = w * min(max(0.5 / w, 0.85), 1.15), v * min(max(0.5 / v, 0.85), 1.15)
    assert rep.steps == k


def test_budget_exhausted_is_reported():
    net = scalar_net(0.01, 0.01)
    cfg = lsc.LSCConfig(
        target=1.0, lr=0.0, weight_decay=0.0, shuffle=False, max_steps=3, n_times=None
    )
    rep = lsc.pretrain(net, const_batches(), cfg)
    assert not rep.converged and rep.steps == 3
    assert "did NOT converge" in str(rep) and "step budget" in str(rep)
    assert rep.criteria["(i) |mean - target| <= eps"] is False


def test_gradient_descent_alone_reaches_the_target():
    net = scalar_net(0.9, 0.9, depth=1)
    cfg = lsc.LSCConfig(
        target=0.5,
        lr=0.05,
        weight_decay=0.0,
        multiplier=False,
        shuffle=False,
        max_steps=300,
        n_times=None,
    )
    rep = lsc.pretrain(net, const_batches(), cfg)
    assert rep.converged and abs(float(net.cells[0].w.abs()) - 0.5) < 0.03


def test_unbalanced_targets():
    t = lsc.targets_for(0.5, unbalanced=True, T=100, L=3)
    assert math.isclose(t["time"], 100 / 103) and math.isclose(t["depth"], 3 / 103)
    assert math.isclose((t["time"] + t["depth"]) / 2, 0.5)
    assert lsc.targets_for(1.0) == {"time": 1.0, "depth": 1.0}
    with pytest.raises(ValueError, match="unbalanced"):
        lsc.targets_for(0.5, unbalanced=True)
    net = scalar_net(0.5, 0.5)
    cfg = lsc.LSCConfig(
        target=0.5,
        unbalanced=True,
        T=9,
        lr=0.0,
        weight_decay=0.0,
        shuffle=False,
        max_steps=60,
        n_times=None,
    )
    rep = lsc.pretrain(net, const_batches(), cfg)
    assert rep.converged
    assert (
        abs(float(net.cells[1].w) - 0.9 * 9 / 11 / 0.9) < 0.05
        and abs(float(net.cells[1].v) - 2 / 11) < 0.05
    )


def test_shuffle_permutes_entries_within_gate_blocks():
    cell = lm.LSTMCell(3, 4, torch.Generator().manual_seed(0))
    before = [b.clone() for b in cell.W.data.chunk(4, 0)]
    lsc.shuffle_parameters(cell, torch.Generator().manual_seed(1))
    after = cell.W.data.chunk(4, 0)
    for b0, b1 in zip(before, after):
        assert torch.equal(
            torch.sort(b0.reshape(-1)).values, torch.sort(b1.reshape(-1)).values
        )
    assert not all(torch.equal(b0, b1) for b0, b1 in zip(before, after))


def test_ema():
    assert lsc.ema([1.0]) == 1.0
    a = 2 / 11
    assert math.isclose(lsc.ema([1.0, 0.0, 0.0], 10), (1 - a) ** 2)


def test_default_initializations():
    g = torch.Generator().manual_seed(0)
    Q = lm.orthogonal(50, g)
    assert torch.allclose(Q @ Q.T, torch.eye(50), atol=1e-5)
    W = lm.glorot_uniform(200, 300, g)
    assert (
        float(W.abs().max()) <= math.sqrt(6 / 500)
        and abs(float(W.var()) - 2 / 500) < 2e-4
    )
    alif = lm.ALIFCell(10, 300, g, "plus")
    assert float(alif.beta.min()) > 0 and abs(float(alif.beta.mean()) - 1.8) < 0.15
    assert abs(float(alif.tau_th.std()) - 300 / 7) < 8
    alif_pm = lm.ALIFCell(10, 3000, g, "pm")
    assert (
        float(alif_pm.beta.min()) < 0 < float(alif_pm.beta.max())
        and abs(float(alif_pm.beta.std()) - 0.18) < 0.02
    )
    lru = lm.LRUCell(64, 2000, g)
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
    x = lm.spike(v)
    assert torch.equal(x.detach(), torch.tensor([0.0, 0.0, 1.0, 1.0]))
    (g,) = torch.autograd.grad(x.sum(), v)
    assert torch.allclose(g, 0.5 / (1 + v.detach().abs()) ** 2)


def test_lru_time_transition_is_lambda():
    """For the LRU the time transition is Lambda itself (2x2 rotation-scaling blocks): radius max |lambda|."""
    model = lm.make_lru(2, 30, 8, seed=0)
    x = torch.randint(0, 30, (3, 6))
    rad = lsc.measure(model, x, n_times=None)
    for l, cell in enumerate(model.cells, 1):
        assert np.allclose(rad[(l, "time")], float(cell.radius().max()), atol=1e-5)


def test_ffn_transition_closed_form():
    f = lm.FFN(7, 5, 3, act="sin", seed=0)
    x = torch.randn(4, 7)
    trs = f.lsc_jacobians(x)
    hs = f.hidden(x)
    z = f.layers[1](hs[1])
    assert torch.allclose(
        trs[1].M, torch.cos(z)[:, :, None] * f.layers[1].weight[None], atol=1e-6
    )
    assert [t.layer for t in trs] == [1, 2, 3]


def test_pretrain_relu_rnn_converges_and_reports():
    g = torch.Generator().manual_seed(0)

    def batches():
        while True:
            yield (torch.rand(8, 10, 6, generator=g) < 0.3).float()

    model = lm.make_rnn("relu_rnn", 2, 6, 24, 3, seed=0)
    rep = lsc.pretrain(
        model, batches(), lsc.LSCConfig(target=0.5, max_steps=60, n_times=3), seed=0
    )
    assert rep.converged, str(rep)
    rad = lsc.measure(model, next(batches()), n_times=3)
    assert abs(np.mean(np.concatenate(list(rad.values()))) - 0.5) < 0.1


@pytest.mark.parametrize("kind", list(lm.RNN_KINDS) + ["lru"])
def test_layer_major_sequence_equals_stepping(kind):
    """StackedRNN runs layer by layer with the input maps batched over time; stepping time-major gives the same."""
    torch.manual_seed(0)
    if kind == "lru":
        model = lm.make_lru(3, 20, 6, seed=1).eval()
        x = torch.randint(0, 20, (2, 7))
    else:
        model = lm.make_rnn(kind, 3, 5, 6, 4, seed=1)
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


def test_cell_with_only_step_runs_in_a_stack():
    net = scalar_net(0.5, 2.0, depth=2)
    y = net(torch.ones(1, 3, 1))
    # h_1 = 2, 3, 3.5 ; h_2 = 4, 8, 11
    assert torch.allclose(y[0, :, 0], torch.tensor([4.0, 8.0, 11.0]))
