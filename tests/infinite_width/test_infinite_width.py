"""The μP network and its infinite-width limit against independent computations: autograd, explicit loops,
Monte Carlo, closed forms and numpy.linalg.pinv."""

import numpy as np
import pytest
import torch
from scipy import integrate, stats

from rnnbook.infinite_width import deep_linear as dl
from rnnbook.infinite_width import limit as iw
from rnnbook.infinite_width import mup_symbolic as ms


@pytest.fixture(scope="module")
def data():
    return dl.gaussian_regression(d=4, n=3, seed=3, x_std=0.5)


# ------------------------------------------------------------------------------------- the limit model
def test_shift_matrix_entries_by_definition():
    for N, d in ((7, 1), (9, 3), (12, 10)):
        S = iw.shift_matrix(N, d)
        for i in range(1, N + 1):
            for j in range(1, N + 1):
                assert S[i - 1, j - 1] == (1.0 if (i + d == j or j + 1 == i) else 0.0)


@pytest.mark.parametrize("d", [1, 2, 3, 10])
def test_support_rows_closed_form_recursion_and_measured(d):
    rng = np.random.default_rng(d)
    n = max(1, d // 2)
    X = rng.standard_normal((n, d))
    data = dl.Regression(X=X, y=X @ rng.standard_normal(d), lam_star=np.zeros(d))
    K = 9
    tr = iw.train(data, 0.05, K, N=(d + 1) * K + d + 5, keep=tuple(range(K + 1)))
    for k in range(K + 1):
        a, b = iw.support_rows_recursion(d, k)
        assert a == iw.support_rows(d, k) and b <= a
        st = tr.states[k]
        rows_A = np.nonzero(np.abs(st.A).sum(1))[0].max() + 1
        rows_B = np.nonzero(st.B)[0].max() + 1
        assert (rows_A, rows_B) == (a, b)
        assert not np.any(st.G[a:, :]) and not np.any(st.G[:, a:])


@pytest.mark.parametrize("steps", [1, 2, 5, 12])
def test_truncation_beyond_support_is_exact(data, steps):
    N = iw.support_rows(data.d, steps)
    ref = iw.train(data, 0.3, steps, N=N)
    for extra in (1, 7, 40):
        big = iw.train(data, 0.3, steps, N=N + extra)
        np.testing.assert_allclose(big.lam, ref.lam, rtol=0, atol=1e-14)
        np.testing.assert_allclose(big.b_sq, ref.b_sq, rtol=0, atol=1e-14)
    small = iw.train(data, 0.3, steps, N=N - 1)
    assert np.abs(small.lam - ref.lam).max() > 0


def test_limit_updates_are_gradient_descent_on_the_energy(data):
    """(2.10) is GD on ℰ(A, G, B) of (2.11): compare with torch autograd on a random (non-initial) state."""
    N, d = 15, data.d
    rng = np.random.default_rng(0)
    st = iw.LimitState(
        rng.standard_normal((N, d)),
        rng.standard_normal((N, N)) * 0.1,
        rng.standard_normal(N),
    )
    S = iw.shift_matrix(N, d)
    lam = iw.predictor(st, S)
    gA, gG, gB = iw.energy_gradients(st, S, data.xi(lam))
    A, G, B = (torch.tensor(v, requires_grad=True) for v in (st.A, st.G, st.B))
    X, y = torch.tensor(data.X), torch.tensor(data.y)
    h = X @ (A.T @ (torch.tensor(S) + G).T @ B)
    E = 0.5 * torch.mean((h - y) ** 2)
    E.backward()
    for mine, auto in ((gA, A.grad), (gG, G.grad), (gB, B.grad)):
        np.testing.assert_allclose(mine, auto.numpy(), rtol=1e-12, atol=1e-13)


def test_scaled_model_is_gd_on_the_rescaled_initialization(data):
    """Predictor scale s with updates (2.10) at ξ(sλ) = plain GD, step τ s^(-1/3), on the network whose
    initialization (shift included) is multiplied by s^(1/3)."""
    s, tau, K = 0.2, 0.1, 6
    d = data.d
    N = iw.support_rows(d, K)
    ref = iw.train(data, tau, K, N=N, scale=s)
    c = s ** (1 / 3)
    S = c * iw.shift_matrix(N, d)
    st0 = iw.init_limit(N, d)
    A, G, B = c * st0.A, np.zeros((N, N)), c * st0.B
    lams = []
    for _ in range(K + 1):
        lam = A.T @ (S + G).T @ B
        lams.append(lam)
        xi = data.xi(lam)
        H = S + G
        A, G, B = (
            A - tau / c * np.outer(H.T @ B, xi),
            G - tau / c * np.outer(B, A @ xi),
            B - tau / c * H @ (A @ xi),
        )
    np.testing.assert_allclose(np.array(lams), ref.lam, rtol=1e-11, atol=1e-13)


def test_limit_kernel_at_init_sympy_and_numeric():
    k = ms.limit_kernel_at_init(2)
    assert all(M == __import__("sympy").eye(2) for M in k.per_layer.values())
    assert k.total == 3 * __import__("sympy").eye(2)
    d, N = 5, 30
    for K in iw.kernel(iw.init_limit(N, d), iw.shift_matrix(N, d)):
        np.testing.assert_array_equal(K, np.eye(d))


def test_min_norm_limit_matches_pinv():
    """Theorem 2.3: the gradient flow of the limit model converges to X⁺ y and never leaves the row space."""
    data = dl.gaussian_regression(d=6, n=3, seed=11)
    t = np.linspace(0, 30, 61)
    sol = iw.gradient_flow(data, t, N=30)
    lam_hat = np.linalg.pinv(data.X) @ data.y
    assert (
        np.linalg.norm(lam_hat - data.lam_star) > 0.1
    )  # underdetermined: the min-norm solution is not λ*
    np.testing.assert_allclose(sol.lam[-1], lam_hat, atol=1e-7)
    kernel = np.linalg.svd(data.X)[2][data.n :]
    assert np.abs(sol.lam @ kernel.T).max() < 1e-10
    # discrete GD (2.10) as well
    tr = iw.train(data, 0.05, 3000, N=60, every=100)
    np.testing.assert_allclose(tr.lam[-1], lam_hat, atol=1e-9)


def test_linear_flow_closed_form():
    data = dl.gaussian_regression(d=5, n=3, seed=2)
    t = np.array([0.0, 0.3, 1.0, 4.0])
    sol = integrate.solve_ivp(
        lambda _t, lam: -2.0 * data.xi(lam),
        (0, 4),
        np.zeros(5),
        t_eval=t,
        rtol=1e-12,
        atol=1e-14,
    )
    np.testing.assert_allclose(iw.linear_flow(data, t, rate=2.0), sol.y.T, atol=1e-9)
    np.testing.assert_allclose(
        iw.linear_gd(data, 1e-4, 10000, rate=2.0)[-1], sol.y.T[2], atol=1e-4
    )


# ------------------------------------------------------------------------------- the finite network
def test_gradients_and_gd_against_autograd(data):
    """The chain-rule gradients of Sec. 2.1 and the GD with learning rates τm, τ, τ/m vs torch.autograd."""
    m, tau, steps = 7, 0.3, 5
    net = dl.init_mup(m, data.d, 1, seed=5)
    X, y = torch.tensor(data.X), torch.tensor(data.y)
    U, W, V = net.U[0].clone(), net.W[0].clone(), net.V[0].clone()
    M, b = data.torch_moments()
    lam0 = dl.predictor(net)
    xi = lam0 @ M - b
    gU, gW, gV = dl.gradients(net, xi)
    Ua, Wa, Va = (p.clone().requires_grad_(True) for p in (U, W, V))
    dl.risk(Ua, Wa, Va, X, y).backward()
    for mine, auto in ((gU[0], Ua.grad), (gW[0], Wa.grad), (gV[0], Va.grad)):
        torch.testing.assert_close(mine, auto, rtol=1e-12, atol=1e-14)
    # several steps, autograd-driven, against train()
    traj = dl.train(net, data, tau, steps)
    lams = []
    for k in range(steps + 1):
        Ua, Wa, Va = (p.detach().requires_grad_(True) for p in (U, W, V))
        lams.append((Ua.T @ Wa.T @ Va).detach().numpy())
        if k == steps:
            break
        F = dl.risk(Ua, Wa, Va, X, y)
        gu, gw, gv = torch.autograd.grad(F, (Ua, Wa, Va))
        U, W, V = U - tau * m * gu, W - tau * gw, V - tau / m * gv
    np.testing.assert_allclose(traj.lam[:, 0], np.array(lams), rtol=1e-10, atol=1e-13)
    torch.testing.assert_close(net.U[0], U)
    torch.testing.assert_close(net.V[0], V)


def test_scale_free_variables_follow_2_5(data):
    m, tau = 9, 0.2
    net = dl.init_mup(m, data.d, 2, seed=1)
    dl.train(net, data, tau, 3)
    Ut, Wt, Vt = (t.clone() for t in dl.scale_free(net))
    M, b = data.torch_moments()
    xi = dl.predictor(net) @ M - b
    H = net.Z / m**0.5 + Wt / m
    lam_sf = torch.einsum("rjd,rij,ri->rd", Ut, H, Vt) / m
    torch.testing.assert_close(lam_sf, dl.predictor(net))
    dl.train(net, data, tau, 1)
    U1, W1, V1 = dl.scale_free(net)
    torch.testing.assert_close(U1, Ut - tau * torch.einsum("rij,ri,rd->rjd", H, Vt, xi))
    torch.testing.assert_close(
        W1, Wt - tau * torch.einsum("ri,rd,rjd->rij", Vt, xi, Ut)
    )
    torch.testing.assert_close(V1, Vt - tau * torch.einsum("rij,rjd,rd->ri", H, Ut, xi))


def test_scale_free_updates_sympy():
    r = ms.scale_free_updates(m=2, d=2)
    assert r.matches_paper and all(v == 1 for v in r.ratio.values())
    plain = ms.scale_free_updates(m=2, d=1, lr=(1, 1, 1))
    msym = __import__("sympy").Symbol("m", positive=True)
    assert not plain.matches_paper
    assert (plain.ratio["U"], plain.ratio["W"], plain.ratio["V"]) == (1 / msym, 1, msym)


def test_predictor_at_init_has_variance_d_over_m():
    """E ‖λ^m(0)‖² = d/m exactly (λ = U^T Z^T V~ / m^(3/2)); Monte Carlo with a 4-sigma band."""
    m, d, R = 12, 3, 3000
    lam = dl.predictor(dl.init_mup(m, d, R, seed=7, keep_init=False)).numpy()
    q = (lam**2).sum(1) * m / d
    assert abs(q.mean() - 1) < 4 * q.std(ddof=1) / np.sqrt(R)


@pytest.mark.parametrize("dist", dl.DISTRIBUTIONS)
def test_init_distributions_have_unit_variance(dist):
    z = dl.unit_variance((200000,), dist, torch.Generator().manual_seed(0)).numpy()
    assert abs(z.mean()) < 0.01 and abs(z.var() - 1) < 0.01


def test_layer_kernels_tend_to_identity():
    net = dl.init_mup(1500, 3, 1, seed=0, keep_init=False)
    for K in dl.layer_kernels(net):
        np.testing.assert_allclose(K[0].numpy(), np.eye(3), atol=0.15)


def test_finite_width_approaches_limit_monte_carlo(data):
    """E‖λ^m(k) − λ^∞(k)‖ falls with m like m^(-1/2) (Eq. 2.16): 16x the width, about 1/4 the error."""
    K, tau, R = 8, 0.1, 12
    lim = iw.train(data, tau, K)
    err = {}
    for m in (16, 256):
        tr = dl.train(dl.init_mup(m, data.d, R, seed=m, keep_init=False), data, tau, K)
        err[m] = np.linalg.norm(tr.lam[-1] - lim.lam[-1], axis=1).mean()
    ratio = err[256] / err[16]
    assert 0.12 < ratio < 0.5, ratio
    # the mean square of V~ tracks ‖B(k)‖² of the limit
    tr = dl.train(dl.init_mup(512, data.d, 4, seed=1, keep_init=False), data, tau, K)
    np.testing.assert_allclose(tr.v_msq[-1].mean(), lim.b_sq[-1], rtol=0.1)


def test_weights_moments_match_limit(data):
    K, tau, m = 6, 0.1, 400
    lim = iw.train(data, tau, K, keep=(K,))
    mom = iw.weight_moments(lim.states[K])
    net = dl.init_mup(m, data.d, 3, seed=2)
    dl.train(net, data, tau, K)
    Ut, Wt, Vt = dl.scale_free(net)
    np.testing.assert_allclose(
        (Ut.transpose(1, 2) @ Ut / m).mean(0).numpy(), mom["UtU"], atol=0.2
    )
    np.testing.assert_allclose(float((Wt**2).mean()), mom["w_sq"], rtol=0.15)
    np.testing.assert_allclose(float((Vt**2).mean()), mom["v_sq"], rtol=0.15)


@pytest.mark.parametrize("dist", ["uniform", "rademacher", "gaussian"])
def test_v_entry_law_by_sampling(dist):
    B = np.array([0.8, 0.5, -0.3, 0.1])
    law = iw.v_entry_law(B, dist)
    rng = np.random.default_rng(0)
    n = 20000
    x0 = dl.unit_variance((n,), dist, torch.Generator().manual_seed(1)).numpy()
    sample = B[0] * x0 + np.sqrt(np.sum(B[1:] ** 2)) * rng.standard_normal(n)
    assert stats.kstest(sample, law.cdf).pvalue > 1e-3
    xs = np.linspace(-4, 4, 2001)
    np.testing.assert_allclose(np.gradient(law.cdf(xs), xs), law.pdf(xs), atol=1e-4)


def test_bad_arguments():
    with pytest.raises(ValueError, match="distribution"):
        dl.init_mup(4, 2, 1, seed=0, dist="cauchy")
    with pytest.raises(ValueError, match="normalisation"):
        dl.Regression(
            X=np.ones((2, 2)), y=np.ones(2), lam_star=np.ones(2), normalisation="median"
        )
    with pytest.raises(ValueError, match="truncation"):
        iw.init_limit(3, 5)


def test_chunked_training_equals_one_batch(data):
    a = dl.init_mup(24, data.d, 5, seed=4)
    b = a.clone()
    ta = dl.train(a, data, 0.1, 7, every=3, snapshot_at=(2,), chunk_bytes=None)
    tb = dl.train(
        b, data, 0.1, 7, every=3, snapshot_at=(2,), chunk_bytes=2 * 24 * 24 * 8
    )
    np.testing.assert_allclose(tb.lam, ta.lam, rtol=1e-13, atol=1e-15)
    np.testing.assert_allclose(tb.v_msq, ta.v_msq, rtol=1e-13)
    torch.testing.assert_close(b.W, a.W)
    torch.testing.assert_close(tb.snapshots[2].U, ta.snapshots[2].U)


def test_path_distance_and_profile_closed_form():
    """Two parallel segments at distance 0.3, and a path against itself."""
    t = np.linspace(0, 1, 50)[:, None]
    P = np.hstack([t, 0 * t])
    Q = np.hstack([t, 0 * t + 0.3])
    assert abs(iw.path_distance(P, Q, 1e-3) - 0.3) < 1e-9
    assert iw.path_distance(P, P[::7], 1e-3) < 1e-3
    frac, dev = iw.deviation_profile(P, Q, 1e-3)
    assert frac[0] == 0 and frac[-1] == 1 and np.allclose(dev, 0.3)


def test_plateau_fraction_of_exponential_decay():
    t = np.linspace(0, 20, 200001)
    r = np.exp(-t)
    assert abs(iw.plateau_fraction(t, r) - np.log(1 / 0.9) / np.log(1e4)) < 1e-4
    with pytest.raises(ValueError, match="never falls"):
        iw.plateau_fraction(t[:10], r[:10])


def test_flow_to_convergence_reaches_pinv_at_several_scales():
    data = dl.gaussian_regression(d=4, n=2, seed=5)
    for s in (0.1, 1.0, 30.0):
        sol = iw.flow_to_convergence(
            data, 20, 5.0, scale=s, speed=1.0 if s <= 10 else 1 / s, tol=1e-8
        )
        np.testing.assert_allclose(
            sol.lam[-1], np.linalg.pinv(data.X) @ data.y, atol=1e-7
        )


def test_power_law_fit_recovers_exponent():
    from rnnbook.stats import power_law_fit

    rng = np.random.default_rng(0)
    x = np.array([10, 20, 40, 80, 160])
    S = 3.0 * x[:, None] ** -0.5 * np.exp(0.05 * rng.standard_normal((5, 40)))
    f = power_law_fit(x, S, seed=1)
    assert abs(f.slope + 0.5) < 0.03 and f.ci95[0] < f.slope < f.ci95[1]
    with pytest.raises(ValueError):
        power_law_fit(x, -S)
