"""Corollary 1 (initializations) against torch.func Jacobians, sample moments and exact orthogonality."""

import pytest
import torch

from rnnbook.lsc import initializations as ini


@pytest.mark.parametrize(
    "scheme,var",
    [
        ("glorot-normal", 1.0),
        ("glorot-uniform", 1.0),
        ("he-normal", 2.0),
        ("he-uniform", 2.0),
    ],
)
def test_init_variances(scheme, var):
    n = 64
    W = ini.init_weights((50,), n, scheme, torch.Generator().manual_seed(0))
    assert float(W.var()) == pytest.approx(var / n, rel=0.03)
    if scheme.endswith("uniform"):
        assert float(W.abs().max()) <= (3 * var / n) ** 0.5


def test_orthogonal_is_orthogonal():
    Q = ini.init_weights((5,), 7, "orthogonal", torch.Generator().manual_seed(1))
    torch.testing.assert_close(
        Q @ Q.transpose(-1, -2), torch.eye(7, dtype=torch.float64).expand(5, 7, 7)
    )
    r = ini.jacobian_radii(2, 1, 3, 9, "orthogonal", torch.Generator().manual_seed(2))
    torch.testing.assert_close(r, torch.ones_like(r))


@pytest.mark.parametrize("activation", ["linear", "relu"])
def test_layer_jacobians_equal_autograd(activation):
    g = torch.Generator().manual_seed(3)
    S, P, D, n = 2, 3, 4, 5
    W = ini.init_weights((S, D), n, "he-normal", g)
    y0 = torch.randn(S, P, n, dtype=torch.float64, generator=g)
    M = ini.layer_jacobians(W, y0, activation)
    act = torch.relu if activation == "relu" else (lambda v: v)
    for s in range(S):
        for p in range(P):
            y = y0[s, p]
            for l in range(D):
                J = torch.func.jacrev(lambda v: W[s, l] @ act(v))(y)
                torch.testing.assert_close(M[s, p, l], J)
                y = W[s, l] @ act(y)


def test_he_derivation():
    glorot, he = ini.he_derivation()
    assert glorot.proven and he.proven
    assert str(he.solution) == "2/n"
