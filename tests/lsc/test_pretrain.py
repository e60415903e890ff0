"""The LSC pre-training against independent computations: per-sample autograd, closed-form
Jacobians, hand-computable pre-training runs of scalar linear RNNs, and the batched-vs-loop
comparison of ``benchmarks/lsc_radius.py``."""

import math

import numpy as np
import pytest
import torch
from torch import nn

from benchmarks.lsc_radius import (
    compare_with_loop,
    comparison_table,
    per_sample_jacobian,
)
from rnnbook.lsc import models, pretrain


def test_spectral_radius_hand_cases():
    M = torch.tensor(
        [
            [[0.0, 2.0], [-2.0, 0.0]],
            [[0.5, 10.0], [0.0, -0.7]],
            [[3.0, 0.0], [0.0, 1.0]],
        ]
    )
    assert torch.allclose(
        pretrain.spectral_radius(M), torch.tensor([2.0, 0.7, 3.0]), atol=1e-6
    )
    # a non-square matrix: padded with zeros = its leading square block; or its spectral norm
    A = torch.tensor([[[2.0, 0.0, 5.0], [0.0, -3.0, 5.0]]])
    assert torch.allclose(pretrain.spectral_radius(A, "pad"), torch.tensor([3.0]))
    padded = torch.cat([A[0], torch.zeros(1, 3)], 0)
    assert abs(float(pretrain.spectral_radius(padded[None])) - 3.0) < 1e-6
    assert torch.allclose(
        pretrain.spectral_radius(A, "norm"), torch.linalg.svdvals(A[0])[:1], atol=1e-5
    )
    with pytest.raises(ValueError, match="nonsquare"):
        pretrain.spectral_radius(A, "nope")


def test_radius_gradient_matches_finite_differences():
    torch.manual_seed(0)
    M = torch.randn(5, 5, dtype=torch.float64, requires_grad=True)
    (g,) = torch.autograd.grad(pretrain.spectral_radius(M), M)
    E = torch.randn(5, 5, dtype=torch.float64)
    h = 1e-6
    fd = (
        pretrain.spectral_radius(M.detach() + h * E)
        - pretrain.spectral_radius(M.detach() - h * E)
    ) / (2 * h)
    assert abs(float((g * E).sum()) - float(fd)) < 1e-5


@pytest.mark.parametrize("mode", ["rev", "fwd"])
def test_batched_jacobian_equals_per_sample_autograd(mode):
    torch.manual_seed(1)
    cell = models.GRUCell(6, 5, torch.Generator().manual_seed(0))
    h, u = torch.randn(7, 5), torch.randn(7, 6)
    J_b = pretrain.batched_jacobian(cell.step, h, u, argnum=0, mode=mode)
    J_s = per_sample_jacobian(cell.step, h, u, argnum=0)
    assert J_b.shape == (7, 5, 5) and torch.allclose(J_b, J_s, atol=1e-6)
    J_b = pretrain.batched_jacobian(cell.step, h, u, argnum=1, mode=mode)
    assert torch.allclose(
        J_b, per_sample_jacobian(cell.step, h, u, argnum=1), atol=1e-6
    )


def test_stacked_depth_transition_matches_autograd_of_the_network():
    """The depth M_k of layer 2 at (b, t) is d h_{t,2} / d h_{t,1} of the unrolled network, by autograd."""
    torch.manual_seed(0)
    model = models.make_rnn("lstm", 2, 3, 4, 2, seed=5)
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


class ScalarCell(pretrain.Cell):
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
    return pretrain.StackedRNN([ScalarCell(w, v) for _ in range(depth)], nn.Identity())


def const_batches():
    while True:
        yield torch.ones(2, 3, 1)


def test_multiplier_alone_follows_the_clipped_ratio():
    """With lr = 0 and no shuffling, each step multiplies w by clip(0.5/|w|, 0.85, 1.15) and v likewise."""
    net = scalar_net(0.2, 3.0)
    cfg = pretrain.LSCConfig(
        target=0.5, lr=0.0, weight_decay=0.0, shuffle="none", max_steps=40, n_times=None
    )
    rep = pretrain.lsc_pretrain_(net, const_batches(), config=cfg)
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
        if abs(d.mean()) <= 0.02 and stds[-1] < 0.2 and pretrain.ema(stds) < 0.2:
            break
        w, v = w * min(max(0.5 / w, 0.85), 1.15), v * min(max(0.5 / v, 0.85), 1.15)
    assert rep.steps == k


def test_budget_exhausted_is_reported():
    net = scalar_net(0.01, 0.01)
    cfg = pretrain.LSCConfig(
        target=1.0, lr=0.0, weight_decay=0.0, shuffle="none", max_steps=3, n_times=None
    )
    rep = pretrain.lsc_pretrain_(net, const_batches(), config=cfg)
    assert not rep.converged and rep.steps == 3
    assert "did NOT converge" in str(rep) and "step budget" in str(rep)
    assert rep.criteria["(i) |mean - target| <= 0.02"] is False


def test_gradient_descent_alone_reaches_the_target():
    net = scalar_net(0.9, 0.9, depth=1)
    cfg = pretrain.LSCConfig(
        target=0.5,
        lr=0.05,
        weight_decay=0.0,
        multiplier=False,
        shuffle="none",
        max_steps=300,
        n_times=None,
    )
    rep = pretrain.lsc_pretrain_(net, const_batches(), config=cfg)
    assert rep.converged and abs(float(net.cells[0].w.detach().abs()) - 0.5) < 0.03


def test_unbalanced_targets():
    t = pretrain.targets_for(0.5, unbalanced=True, T=100, L=3)
    assert math.isclose(t["time"], 100 / 103) and math.isclose(t["depth"], 3 / 103)
    assert math.isclose((t["time"] + t["depth"]) / 2, 0.5)
    assert pretrain.targets_for(1.0) == {"time": 1.0, "depth": 1.0}
    with pytest.raises(ValueError, match="unbalanced"):
        pretrain.targets_for(0.5, unbalanced=True)
    net = scalar_net(0.5, 0.5)
    cfg = pretrain.LSCConfig(
        target=0.5,
        unbalanced=True,
        T=9,
        lr=0.0,
        weight_decay=0.0,
        shuffle="none",
        max_steps=60,
        n_times=None,
    )
    rep = pretrain.lsc_pretrain_(net, const_batches(), config=cfg)
    assert rep.converged
    assert (
        abs(float(net.cells[1].w.detach()) - 0.9 * 9 / 11 / 0.9) < 0.05
        and abs(float(net.cells[1].v.detach()) - 2 / 11) < 0.05
    )


def test_shuffle_permutes_entries_within_gate_blocks():
    cell = models.LSTMCell(3, 4, torch.Generator().manual_seed(0))
    before = [b.clone() for b in cell.W.data.chunk(4, 0)]
    pretrain.shuffle_(
        pretrain.shuffled_tensors(cell, "all"), torch.Generator().manual_seed(1)
    )
    after = cell.W.data.chunk(4, 0)
    for b0, b1 in zip(before, after):
        assert torch.equal(
            torch.sort(b0.reshape(-1)).values, torch.sort(b1.reshape(-1)).values
        )
    assert not all(torch.equal(b0, b1) for b0, b1 in zip(before, after))


def test_ema():
    assert pretrain.ema([1.0]) == 1.0
    a = 2 / 11
    assert math.isclose(pretrain.ema([1.0, 0.0, 0.0], 10), (1 - a) ** 2)


def test_pretrain_relu_rnn_converges_and_reports():
    g = torch.Generator().manual_seed(0)

    def batches():
        while True:
            yield (torch.rand(8, 10, 6, generator=g) < 0.3).float()

    model = models.make_rnn("relu_rnn", 2, 6, 24, 3, seed=0)
    rep = pretrain.lsc_pretrain_(
        model,
        batches(),
        config=pretrain.LSCConfig(target=0.5, max_steps=60, n_times=3, shuffle="all"),
        seed=0,
    )
    assert rep.converged, str(rep)
    rad = pretrain.measure(model, next(batches()), n_times=3)
    assert abs(np.mean(np.concatenate(list(rad.values()))) - 0.5) < 0.1


def test_cell_with_only_step_runs_in_a_stack():
    net = scalar_net(0.5, 2.0, depth=2)
    y = net(torch.ones(1, 3, 1))
    # h_1 = 2, 3, 3.5 ; h_2 = 4, 8, 11
    assert torch.allclose(y[0, :, 0], torch.tensor([4.0, 8.0, 11.0]))


@pytest.mark.parametrize("kind,depth", [("gru", 3), ("lstm", 2)])
def test_batched_radii_equal_the_per_sample_loop(kind, depth):
    """compare_with_loop: every layer's time and depth M_k, batched and by autograd loops."""
    net = models.make_rnn(kind, depth, 5, 4, 2, seed=0)
    x = (torch.rand(3, 6, 5, generator=torch.Generator().manual_seed(0)) < 0.4).float()
    b = compare_with_loop(net, x, n_times=2, repeat=1)
    assert b["jac_err"] < 1e-5 and b["radius_err"] < 1e-5
    assert b["n"] == 2 * depth * 3 * 2  # (time, depth) x layers x batch x n_times
    assert b["t_batched"] > 0 and b["t_loop"] > 0
    table = comparison_table({"GRU": b})
    assert table.count("\n") == 2 and table.splitlines()[-1].startswith(
        f"| GRU | {b['n']} |"
    )
