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


def test_he_derivation_check_and_display():
    v = ini.he_derivation_check()
    assert v["proven"]
    assert v["steps"] == (
        "k=0: Var(w H^k) = sigma_w^2, solution 1/n; "
        "k=1: Var(w H^k) = sigma_w^2/2, solution 2/n"
    )
    assert r"\Rightarrow" in ini.he_derivation()[1].latex()


def test_corollary1_study_and_check():
    assert ini.networks_for(32, 8) == 8 and ini.networks_for(64, 8) == 2
    assert ini.networks_for(1024, 8) == 1
    g = torch.Generator().manual_seed(0)
    glorot = {"gaussian": {16: (1.08, 0.02), 32: (1.05, 0.01)}}
    c = ini.corollary1_study([16, 32], 3, 8, glorot, g)
    assert c.he[16].shape == (32, 3) and c.orth_err < 1e-10
    v = c.check(32, 0.02)
    assert v["at_width"].startswith(
        "Glorot gaussian: 1.0500 ± 0.0100, He normal (ReLU): "
    )
    assert not v["within"] and v["glorot_normal"] == 1.05
    # Glorot's deviation shrinks from 0.08 to 0.05; the trend needs He's too
    he = c.he_mean
    assert v["trend"] == (abs(he[32][0] - 1) < abs(he[16][0] - 1))
    assert c.check(32, 0.5)["within"]
