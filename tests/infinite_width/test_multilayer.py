"""The finite-width multi-layer μP network (Sec. 6) against autograd and the three-layer network."""

import numpy as np
import pytest
import torch

from rnnbook.infinite_width import deep_linear, multilayer, multilayer_limit
from rnnbook.infinite_width.regression import gaussian_regression


def test_gd_step_is_gradient_descent_with_the_mup_learning_rates(data):
    """One step equals autograd's gradient of the risk with learning rates tau m, tau, tau, tau/m."""
    m, tau = 7, 0.1
    net = multilayer.init_multilayer(m, data.d, 2, 1, seed=4)
    U, W1, W2, V = (t[0].clone().requires_grad_() for t in (net.U, *net.Ws, net.V))
    X = torch.as_tensor(data.X)
    y = torch.as_tensor(data.y)
    risk = 0.5 * (((X @ U.T @ W1.T @ W2.T @ V) - y) ** 2).mean()
    gU, gW1, gW2, gV = torch.autograd.grad(risk, (U, W1, W2, V))
    M, b = data.torch_moments()
    multilayer.gd_step(net, M, b, tau)
    for new, old, g, lr in (
        (net.U, U, gU, tau * m),
        (net.Ws[0], W1, gW1, tau),
        (net.Ws[1], W2, gW2, tau),
        (net.V, V, gV, tau / m),
    ):
        torch.testing.assert_close(new[0], (old - lr * g).detach())


def test_one_middle_layer_is_the_three_layer_network(data):
    """L = 1 with the same seed reproduces deep_linear (same draws in the same order)."""
    ref = deep_linear.train(deep_linear.init_mup(12, data.d, 2, seed=5), data, 0.2, 6)
    lam = multilayer.train(
        multilayer.init_multilayer(12, data.d, 1, 2, seed=5), data, 0.2, 6
    )
    np.testing.assert_allclose(lam, ref.lam, atol=1e-13)


def test_width_study_converges_to_the_limit():
    """The error to the L = 2 limit shrinks with the width like m^(-1/2) (data of the chapter)."""
    data = gaussian_regression(10, 5, seed=0, x_std=10**-0.5)
    st = multilayer.width_study(data, 2, 0.2, 20, [32, 512], reps=6, seed=0, max_len=8)
    assert st.errors.shape == (2, 21, 6)
    ratio = st.errors[1].mean(1) / st.errors[0].mean(1)
    assert np.all(ratio < 0.4) and np.all(ratio > 0.15)  # 16x the width: 1/4 expected
    v = multilayer.rate_values(st)
    assert -0.7 < v["slope"] < -0.3 and len(v["means"]) == 2


def test_bad_arguments():
    with pytest.raises(ValueError):
        multilayer.init_multilayer(0, 2, 2, 1, 0)
    with pytest.raises(ValueError):
        multilayer_limit.path_basis(2, 0, 3)
