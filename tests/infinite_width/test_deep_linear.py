"""The μP network of Secs. 2.1-2.2 against torch.autograd, the printed (2.5) and closed forms."""

import numpy as np
import pytest
import torch

from rnnbook.infinite_width import deep_linear


def test_gradients_and_gd_against_autograd(data):
    """The chain-rule gradients of Sec. 2.1 and the GD with learning rates τm, τ, τ/m."""
    m, tau, steps = 7, 0.3, 5
    net = deep_linear.init_mup(m, data.d, 1, seed=5)
    X, y = torch.tensor(data.X), torch.tensor(data.y)
    U, W, V = net.U[0].clone(), net.W[0].clone(), net.V[0].clone()
    M, b = data.torch_moments()
    xi = deep_linear.predictor(net) @ M - b
    gU, gW, gV = deep_linear.gradients(net, xi)
    Ua, Wa, Va = (p.clone().requires_grad_(True) for p in (U, W, V))
    deep_linear.risk(Ua, Wa, Va, X, y).backward()
    for mine, auto in ((gU[0], Ua.grad), (gW[0], Wa.grad), (gV[0], Va.grad)):
        torch.testing.assert_close(mine, auto, rtol=1e-12, atol=1e-14)
    traj = deep_linear.train(net, data, tau, steps)
    lams = []
    for k in range(steps + 1):
        Ua, Wa, Va = (p.detach().requires_grad_(True) for p in (U, W, V))
        lams.append((Ua.T @ Wa.T @ Va).detach().numpy())
        if k == steps:
            break
        F = deep_linear.risk(Ua, Wa, Va, X, y)
        gu, gw, gv = torch.autograd.grad(F, (Ua, Wa, Va))
        U, W, V = U - tau * m * gu, W - tau * gw, V - tau / m * gv
    np.testing.assert_allclose(traj.lam[:, 0], np.array(lams), rtol=1e-10, atol=1e-13)
    torch.testing.assert_close(net.U[0], U)
    torch.testing.assert_close(net.V[0], V)


def test_scale_free_variables_follow_2_5(data):
    m, tau = 9, 0.2
    net = deep_linear.init_mup(m, data.d, 2, seed=1)
    deep_linear.train(net, data, tau, 3)
    Ut, Wt, Vt = (t.clone() for t in deep_linear.scale_free(net))
    M, b = data.torch_moments()
    xi = deep_linear.predictor(net) @ M - b
    H = net.Z / m**0.5 + Wt / m
    lam_sf = torch.einsum("rjd,rij,ri->rd", Ut, H, Vt) / m
    torch.testing.assert_close(lam_sf, deep_linear.predictor(net))
    deep_linear.train(net, data, tau, 1)
    U1, W1, V1 = deep_linear.scale_free(net)
    torch.testing.assert_close(U1, Ut - tau * torch.einsum("rij,ri,rd->rjd", H, Vt, xi))
    torch.testing.assert_close(
        W1, Wt - tau * torch.einsum("ri,rd,rjd->rij", Vt, xi, Ut)
    )
    torch.testing.assert_close(V1, Vt - tau * torch.einsum("rij,rjd,rd->ri", H, Ut, xi))


def test_predictor_at_init_has_variance_d_over_m():
    """E ‖λ^m(0)‖² = d/m exactly (λ = U^T Z^T V~ / m^(3/2)); Monte Carlo with a 4-sigma band."""
    m, d, R = 12, 3, 3000
    lam = deep_linear.predictor(deep_linear.init_mup(m, d, R, seed=7, keep_init=False))
    q = (lam.numpy() ** 2).sum(1) * m / d
    assert abs(q.mean() - 1) < 4 * q.std(ddof=1) / np.sqrt(R)


@pytest.mark.parametrize("dist", deep_linear.DISTRIBUTIONS)
def test_init_distributions_have_unit_variance(dist):
    g = torch.Generator().manual_seed(0)
    z = deep_linear.unit_variance((200000,), dist, g).numpy()
    assert abs(z.mean()) < 0.01 and abs(z.var() - 1) < 0.01


def test_layer_kernels_tend_to_identity():
    net = deep_linear.init_mup(1500, 3, 1, seed=0, keep_init=False)
    for K in deep_linear.layer_kernels(net):
        np.testing.assert_allclose(K[0].numpy(), np.eye(3), atol=0.15)


def test_chunked_training_equals_one_batch(data):
    a = deep_linear.init_mup(24, data.d, 5, seed=4)
    b = a.clone()
    ta = deep_linear.train(a, data, 0.1, 7, every=3, snapshot_at=(2,), chunk_bytes=None)
    tb = deep_linear.train(
        b, data, 0.1, 7, every=3, snapshot_at=(2,), chunk_bytes=2 * 24 * 24 * 8
    )
    np.testing.assert_allclose(tb.lam, ta.lam, rtol=1e-13, atol=1e-15)
    np.testing.assert_allclose(tb.v_msq, ta.v_msq, rtol=1e-13)
    torch.testing.assert_close(b.W, a.W)
    torch.testing.assert_close(tb.snapshots[2].U, ta.snapshots[2].U)


def test_device_and_bad_arguments():
    assert deep_linear.device(gpu=False) == "cpu"
    assert deep_linear.device(gpu=True) in ("cpu", "cuda")
    with pytest.raises(ValueError, match="distribution"):
        deep_linear.init_mup(4, 2, 1, seed=0, dist="cauchy")
    with pytest.raises(ValueError, match="keep_init"):
        deep_linear.scale_free(deep_linear.init_mup(4, 2, 1, seed=0, keep_init=False))
