"""Sufficient statistics, gradients and training loops against brute force and autograd through the
recursion (1) on the raw data."""

import torch

from rnnbook.implicit_bias import conv_models as cm
from rnnbook.implicit_bias import gd_training as gt
from rnnbook.implicit_bias import linear_rnn

D = torch.float64


def rand(*shape, seed=0):
    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed), dtype=D)


def test_lag_stats_mse_and_gradient_against_brute_force():
    X, Y, L = (
        rand(7, 5, 3, seed=6),
        rand(7, 5, 2, seed=7),
        rand(5, 2, 3, seed=8).requires_grad_(True),
    )
    st = gt.lag_stats(X, Y)
    brute = ((cm.conv_forward(L, X) - Y) ** 2).mean()
    (g,) = torch.autograd.grad(brute, L)
    torch.testing.assert_close(gt.mse(L.detach(), st), brute.detach())
    torch.testing.assert_close(gt.mse_grad(L.detach(), st), g)


def test_rnn_adjoint_against_autograd_batched():
    p = linear_rnn.init_params(9, 3, 2, 0.5, 1.0, 1.0, seed=1, batch=3)
    G = rand(3, 6, 2, 3, seed=9)
    L, grads = gt.rnn_impulse_and_grad(p, G)
    q = {k: v.clone().requires_grad_(True) for k, v in p.items()}
    ref = torch.autograd.grad(
        (linear_rnn.impulse_response(q, 6) * G).sum(), list(q.values())
    )
    torch.testing.assert_close(L, linear_rnn.impulse_response(p, 6))
    for k, r in zip(q, ref):
        torch.testing.assert_close(grads[k], r)


def test_one_rnn_step_equals_autograd_through_the_recursion_on_raw_data():
    X, Y = rand(6, 5, 2, seed=10), rand(6, 5, 1, seed=11)
    p = linear_rnn.init_params(8, 2, 1, 0.3, 1.0, 1.0, seed=2)
    traj, p1 = gt.train_rnn(p, gt.lag_stats(X, Y), lr=0.1, steps=1)
    q = {k: v.clone().requires_grad_(True) for k, v in p.items()}
    loss = ((linear_rnn.forward(q, X) - Y) ** 2).mean()
    grads = torch.autograd.grad(loss, list(q.values()))
    for (k, v), g in zip(q.items(), grads):
        torch.testing.assert_close(p1[k], v.detach() - 0.1 * g)
    torch.testing.assert_close(traj.losses["train"][0], loss.detach())


def test_one_scaled_conv_step_equals_autograd_in_theta():
    X, Y = rand(6, 5, 2, seed=12), rand(6, 5, 1, seed=13)
    rho, L0 = torch.rand(5, dtype=D) + 0.1, rand(5, 1, 2, seed=14)
    traj = gt.train_conv(L0, rho, gt.lag_stats(X, Y), lr=0.2, steps=1)
    theta = cm.theta_from_impulse(L0, rho).requires_grad_(True)
    (g,) = torch.autograd.grad(
        ((cm.scaled_conv_forward(theta, X, rho) - Y) ** 2).mean(), theta
    )
    torch.testing.assert_close(
        traj.L[1], cm.scaled_impulse(theta.detach() - 0.2 * g, rho)
    )


def test_stacked_statistics_train_independent_problems():
    sts = [
        gt.lag_stats(rand(n, 4, 1, seed=n), rand(n, 4, 1, seed=n + 50)) for n in (3, 8)
    ]
    L0 = rand(2, 4, 1, 1, seed=15)
    both = gt.train_conv(L0, None, gt.stack_stats(sts), lr=0.1, steps=5)
    for b in range(2):
        one = gt.train_conv(L0[b], None, sts[b], lr=0.1, steps=5)
        torch.testing.assert_close(both.L[:, b], one.L)


def test_conv_arms_stacked_on_a_leading_axis_equal_separate_runs():
    """Scaled and unscaled arms (rho of shape (arms, 1, T)) on a batch of data sets train as one
    batch and give the same trajectories as separate runs."""
    X, Y = rand(3, 6, 5, 2, seed=20), rand(3, 6, 5, 1, seed=21)
    st = gt.lag_stats(X, Y)
    rho, L0 = torch.rand(5, dtype=D) + 0.1, rand(3, 5, 1, 2, seed=22)
    arms = torch.stack([rho, torch.ones_like(rho)])[:, None]
    both = gt.train_conv(torch.stack([L0, L0]), arms, st, 0.1, 7, {"test": st}, False)
    for a, r in enumerate((rho, None)):
        one = gt.train_conv(L0, r, st, 0.1, 7, {"test": st})
        torch.testing.assert_close(both.losses["test"][:, a], one.losses["test"])
        torch.testing.assert_close(both.L[-1, a], one.L[-1])
    assert both.L.shape[0] == 2  # keep_L=False: first and last only
    l = rand(4, 3, 1, 10, seed=23)
    R = rand(3, 10, 10, seed=24)
    torch.testing.assert_close(gt._times_R(l, R), l @ R)


def test_batched_rnn_training_equals_networks_trained_one_by_one():
    X, Y = rand(2, 6, 5, 2, seed=25), rand(2, 6, 5, 1, seed=26)
    st = gt.lag_stats(X, Y)
    p = linear_rnn.init_params(7, 2, 1, 0.3, 1.0, 1.0, seed=3, batch=2)
    traj, pT = gt.train_rnn(p, st, 0.05, 4, keep_L=False)
    for b in range(2):
        sb = gt.LagStats(st.R[b], st.Q[b], st.yy[b], st.M[b], st.lags, st.n_x, st.n_y)
        one, qT = gt.train_rnn({k: v[b] for k, v in p.items()}, sb, 0.05, 4)
        torch.testing.assert_close(traj.losses["train"][:, b], one.losses["train"])
        torch.testing.assert_close(traj.L[-1, b], one.L[-1])
        for k in qT:
            torch.testing.assert_close(pT[k][b], qT[k])
    assert traj.L.shape[0] == 2 and p["W"].data_ptr() != pT["W"].data_ptr()
