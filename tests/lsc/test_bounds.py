"""Theorems 1-3 and Fig. 1c (lsc_bounds) against explicit path enumeration, finite differences and autograd."""

import itertools
from math import comb

import numpy as np
import pytest
import torch

from rnnbook.lsc import gradient_paths as gp
from rnnbook.lsc import bounds as lb


def enumerate_products(W_rec, W_in, T, convention, s=0):
    """J^{t,L}_{t-dt,l} by listing every path of the graph explicitly and multiplying its matrices (no recursion
    shared with the module). Returns a dict (dt, l) -> matrix, for l = 1..L."""
    L = W_rec.shape[1] - 1
    n = W_rec.shape[-1]
    out = {}
    for dt in range(T + 1):
        for l in range(1, L + 1):
            dl = L - l
            total = torch.zeros(n, n, dtype=torch.float64)
            if convention == "eq1":
                n_edges, choices = dt, [("t", "d")] * dt
            else:
                n_edges, choices = dt + dl, [("t", "d")] * (dt + dl)
            for moves in itertools.product(*choices) if n_edges else [()]:
                if sum(m == "d" for m in moves) != dl:
                    continue
                if convention == "stacked" and sum(m == "t" for m in moves) != dt:
                    continue
                # walk from (t - dt, l) up to (t, L): each move multiplies on the left
                M = torch.eye(n, dtype=torch.float64)
                layer = l
                for mv in moves:
                    if mv == "t":
                        M = W_rec[s, layer] @ M
                    else:
                        layer += 1
                        M = W_in[s, layer] @ M
                total = total + M
            out[dt, l] = total
    return out


@pytest.mark.parametrize("convention", gp.CONVENTIONS)
def test_grid_jacobians_equal_explicit_path_sums(convention):
    g = torch.Generator().manual_seed(1)
    S, L, n, T = 2, 3, 3, 5
    Wr = lb.target_matrices(S, L, n, 0.9, "gaussian", g)
    Wi = lb.target_matrices(S, L, n, 0.6, "orthogonal", g)
    F = lb.grid_jacobians(Wr, Wi, T, convention)
    ref = enumerate_products(Wr, Wi, T, convention, s=1)
    for (dt, l), M in ref.items():
        torch.testing.assert_close(F[dt, l, 1], M, atol=1e-12, rtol=1e-12)


@pytest.mark.parametrize("convention", gp.CONVENTIONS)
def test_path_sums_count_paths(convention):
    T, L = 9, 4
    ones = torch.ones(1, L + 1, dtype=torch.float64)
    f = lb.path_sums(ones, ones, T, convention)
    for dt in range(T + 1):
        for l in range(1, L + 1):
            dl = L - l
            expected = comb(dt, dl) if convention == "eq1" else comb(dt + dl, dt)
            assert f[dt, l, 0] == expected
    # Lemma 2's quantity on each graph
    for T_ in (3, 9):
        assert float(lb.lemma2_average(f[:, 1, 0], T_)) == pytest.approx(
            (
                gp.eq1_total(T_, L - 1)
                if convention == "eq1"
                else gp.paper_total(T_, L - 1)
            )
            / T_
        )


@pytest.mark.parametrize("convention", gp.CONVENTIONS)
def test_bias_updates_autograd_vs_finite_differences_and_recursion(convention):
    g = torch.Generator().manual_seed(2)
    S, L, n, T = 3, 3, 4, 6
    Wr = lb.target_matrices(S, L, n, 1.0, "gaussian", g)
    Wi = lb.target_matrices(S, L, n, 0.5, "gaussian-norm", g)
    r = lb.unit_vectors(S, T, n, g)
    db = lb.bias_updates(Wr, Wi, r, convention)

    def loss(b):
        h = lb.deep_linear_rnn(
            torch.zeros(S, T + 1, n, dtype=torch.float64), Wr, Wi, b, convention
        )
        return float((r * h[:, :, -1]).sum() / T)

    b0 = torch.zeros(S, L + 1, n, dtype=torch.float64)
    eps = 1e-6
    for s, l, i in [(0, 1, 0), (2, 2, 3), (1, 3, 1)]:
        bp, bm = b0.clone(), b0.clone()
        bp[s, l, i] += eps
        bm[s, l, i] -= eps
        assert -(loss(bp) - loss(bm)) / (2 * eps) == pytest.approx(
            float(db[s, l, i]), abs=1e-7
        )
    U = lb.updates_from_jacobians(lb.iter_grid_jacobians(Wr, Wi, T, convention), r)
    torch.testing.assert_close(U[T - 1].permute(1, 0, 2), db, atol=1e-12, rtol=1e-12)


def test_target_matrices_have_the_target():
    g = torch.Generator().manual_seed(3)
    W = lb.target_matrices(4, 2, 6, 0.7, "orthogonal", g)[:, 1:]
    ev = torch.linalg.eigvals(W).abs()
    torch.testing.assert_close(ev, torch.full_like(ev, 0.7), atol=1e-12, rtol=0)
    torch.testing.assert_close(
        lb.spectral_norms(W), torch.full((4, 2), 0.7, dtype=torch.float64)
    )
    Wg = lb.target_matrices(4, 2, 6, 0.5, "gaussian", g)[:, 1:]
    torch.testing.assert_close(
        lb.spectral_radii(Wg), torch.full((4, 2), 0.5, dtype=torch.float64)
    )
    assert (lb.spectral_norms(Wg) > 0.5).all()
    Wn = lb.target_matrices(4, 2, 6, 0.5, "gaussian-norm", g)[:, 1:]
    torch.testing.assert_close(
        lb.spectral_norms(Wn), torch.full((4, 2), 0.5, dtype=torch.float64)
    )
    with pytest.raises(ValueError, match="ensemble"):
        lb.target_matrices(1, 1, 2, 1.0, "cauchy", g)


def test_norms_summing_to_one_keep_jacobians_bounded():
    g = torch.Generator().manual_seed(4)
    for convention in gp.CONVENTIONS:
        Wr = lb.target_matrices(3, 4, 5, 0.7, "gaussian-norm", g)
        Wi = lb.target_matrices(3, 4, 5, 0.3, "orthogonal", g)
        F = lb.grid_jacobians(Wr, Wi, 20, convention)
        assert float(lb.spectral_norms(F[:, 1:]).max()) <= 1 + 1e-12


def test_nonnormal_pair_radii_and_growth():
    Wr, Wi = lb.nonnormal_pair(0.5, 0.5, 2.0, L=6)
    assert torch.allclose(
        lb.spectral_radii(Wr[:, 1:]), torch.tensor(0.5, dtype=torch.float64)
    )
    assert torch.allclose(
        lb.spectral_radii(Wi[:, 1:]), torch.tensor(0.5, dtype=torch.float64)
    )
    BA = Wi[0, 1] @ Wr[0, 1]
    assert float(lb.spectral_radii(BA)) > 4
    F = lb.grid_jacobians(Wr, Wi, 30, "eq1")
    D = lb.lemma2_average(lb.spectral_norms(F[:, 1:, 0]), 30)
    assert float(D[0]) > 1e3 * float(
        D[-1]
    )  # deeper layers (l = 1) get far larger derivatives


@pytest.mark.parametrize("convention", gp.CONVENTIONS)
@pytest.mark.parametrize("rho", [0.5, 0.8, 1.0])
def test_pascal_closed_forms(convention, rho):
    T, L = 30, 4
    x = torch.randn(
        3, T, dtype=torch.float64, generator=torch.Generator().manual_seed(5)
    )
    y, g_sum, g_last = lb.pascal_outputs_and_gradients(x, L, rho, convention)
    # an independent Jacobian of the whole output sequence by torch.func.jacrev
    J = torch.func.jacrev(lambda s: gp.pascal_rnn(s, L, rho, convention)[:, -1])(x[0])
    np.testing.assert_allclose(
        g_sum[0].numpy(), J.sum(0).numpy(), rtol=1e-12, atol=1e-12
    )
    np.testing.assert_allclose(g_last[0].numpy(), J[-1].numpy(), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(
        g_sum[0].numpy(),
        lb.pascal_gradient_closed_form(T, L, rho, convention, "sum"),
        rtol=1e-12,
    )
    np.testing.assert_allclose(
        g_last[0].numpy(),
        lb.pascal_gradient_closed_form(T, L, rho, convention, "last"),
        rtol=1e-12,
    )
    assert torch.allclose(
        g_sum[0], g_sum[2]
    )  # linear network: the same derivative for every input


def test_pascal_rho1_binomials():
    T, L = 40, 5
    dt = T - np.arange(T)
    np.testing.assert_array_equal(
        lb.pascal_gradient_closed_form(T, L, 1.0, "stacked", "sum"),
        lb.fig1c_paper_curve(T, L),
    )
    np.testing.assert_array_equal(
        lb.pascal_gradient_closed_form(T, L, 1.0, "eq1", "sum"),
        [comb(int(d) - 1, L) for d in dt],
    )
    assert lb.pascal_gradient_closed_form(T, L, 0.5, "stacked", "sum").max() <= 1.0


def test_paper_bounds():
    assert lb.paper_bound_rho1(4, 2) == comb(8, 4) / 4
    assert lb.paper_bound_rho05(4) == sum(1 for t in range(5) for _ in range(t + 1)) / 4


def test_fig1c_runs_and_check():
    T, L = 50, 10
    f = lb.fig1c_runs(T, L, batch=3, std=2.0, seed=0)
    assert set(f.runs) == {(c, r) for c in ("stacked", "eq1") for r in (0.5, 1.0)}
    assert f.runs["eq1", 1.0]["y"].shape == (3, T) and f.closed_err < 1e-12
    v = f.check()
    assert (
        v["rel_stacked"] < 1e-12 and v["spread"] < 1e-9
    )  # linear: same for all inputs
    # Eq. (1) graph: binom(Delta t - 1, L), zero on the last L steps, C(T-1, L)/C(T+L-1, L) at t=0
    assert v["zero_tail"] == L
    assert v["ratio0"] == pytest.approx(comb(T - 1, L) / comb(T + L - 1, L))
    assert v["max05"] <= 1 + 1e-12 and v["far_ok"] and 0 < v["last05"] < 0.5
    assert lb.fig1c_runs(T, L, 3, 2.0, seed=0).runs["eq1", 0.5]["y"] == pytest.approx(
        f.runs["eq1", 0.5]["y"]
    )
