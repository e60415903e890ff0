"""The convolutional models (5), (8) and Proposition 2.1 against explicit sums and the recursion (1)."""

import numpy as np
import pytest
import torch

from rnnbook.implicit_bias import conv_models as cm
from rnnbook.implicit_bias import linear_rnn

D = torch.float64


def rand(*shape, seed=0):
    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed), dtype=D)


def test_conv_forward_is_the_explicit_sum():
    L, x = rand(5, 2, 3, seed=1), rand(4, 5, 3, seed=2)
    y = cm.conv_forward(L, x)
    for i in range(4):
        for t in range(5):
            ref = sum(L[j] @ x[i, t - j] for j in range(t + 1))
            torch.testing.assert_close(y[i, t], ref)


def test_scaled_conv_and_eq58_round_trip():
    L, x, rho = (
        rand(6, 1, 2, seed=3),
        rand(3, 6, 2, seed=4),
        torch.rand(6, dtype=D) + 0.1,
    )
    theta = cm.theta_from_impulse(L, rho)
    torch.testing.assert_close(cm.scaled_impulse(theta, rho), L)
    torch.testing.assert_close(
        cm.scaled_conv_forward(theta, x, rho), cm.conv_forward(L, x)
    )
    torch.testing.assert_close(
        cm.scaled_conv_forward(theta, x, rho)[:, :, 0],
        sum(
            rho[j].sqrt()
            * torch.einsum("b,ntb->nt", theta[j, 0], cm.lagged(x)[:, :, j])
            for j in range(6)
        ),
    )


@pytest.mark.parametrize("T,n_y,n_x", [(4, 1, 1), (6, 2, 3)])
def test_realizations_reproduce_the_filters(T, n_y, n_x):
    L = rand(T, n_y, n_x, seed=5)
    pv, pd = cm.vandermonde_realization(L), cm.delay_line_realization(L)
    assert pv["W"].shape[0] == T * n_x * n_y and pd["W"].shape[0] == T * n_x
    torch.testing.assert_close(
        linear_rnn.impulse_response(pv, T), L, rtol=1e-9, atol=1e-9
    )
    torch.testing.assert_close(linear_rnn.impulse_response(pd, T), L)
    lam = cm.vandermonde_nodes(T)
    assert len(np.unique(lam)) == T and np.all(lam != 0)
    with pytest.raises(ValueError, match="lambdas"):
        cm.vandermonde_realization(L, lambdas=np.zeros(T))


def test_vandermonde_condition_grows_with_T():
    c = [cm.vandermonde_condition(T) for T in (4, 8, 16)]
    assert c[0] < c[1] < c[2] and c[2] > 1e4


def test_rnn_and_its_impulse_response_give_the_same_outputs():
    g = torch.Generator().manual_seed(0)
    a = cm.impulse_response_check([3, 30], 2, 2, 4, 0.3, 1.0, 1.0, seed=0, g=g)
    assert a["max_diff"] < 1e-12 and a["widths"] == [3, 30] and a["inputs"] == 5


def test_realization_errors_follow_the_condition_number():
    g = torch.Generator().manual_seed(0)
    r = cm.realization_errors([2, 4, 6, 8, 10, 12], 1, 2, g)
    assert r.vandermonde.shape == r.delay_line.shape == r.cond.shape == (6,)
    assert r.delay_line.max() < 1e-12 and np.all(r.vandermonde < 1e3 * r.cond * 1e-16)
    s = r.summary()
    assert s["T"] == [2, 4, 6, 8, 10, 12] and s["T_max"] == 12 and s["T_ok"] == 12
    assert s["vandermonde_max_short"] == r.vandermonde[:5].max()
