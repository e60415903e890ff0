"""The implicit-bias part's models, training loops and experiments against independent computations:
explicit sums, autograd through the recursion (1) on the raw data, brute-force R^2, np.histogram."""

import numpy as np
import pytest
import torch

from rnnbook.implicit_bias import conv_models as cm
from rnnbook.implicit_bias import decoding
from rnnbook.implicit_bias import delay_sweep
from rnnbook.implicit_bias import fmri_standin
from rnnbook.implicit_bias import gd_training as gt
from rnnbook.implicit_bias import init_statistics
from rnnbook.implicit_bias import kernel_regime as kr
from rnnbook.implicit_bias import linear_rnn
from rnnbook.implicit_bias import s1_macaque
from rnnbook.implicit_bias import stability
from rnnbook.implicit_bias import teacher_tasks
from rnnbook.implicit_bias import scale_factors as sf

D = torch.float64


def rand(*shape, seed=0):
    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed), dtype=D)


# --- the convolutional models (5), (8) and Proposition 2.1 ---------------------------------------


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


# --- sufficient statistics and gradients ----------------------------------------------------------


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


# --- Theorem 4.1 and the kernel regime ------------------------------------------------------------


def test_bound_62_holds_for_the_scaled_convolution_on_random_problems():
    """Monte Carlo search for a violation of ||L_j^l - L_j^0|| <= B_2 rho_j lr l at lr < B_1."""
    rng = np.random.default_rng(0)
    worst, norms = 0.0, []
    for _ in range(25):
        T, N = 8, int(rng.integers(1, 5))
        st = gt.lag_stats(
            torch.tensor(rng.standard_normal((N, T, 1))),
            torch.tensor(rng.standard_normal((N, T, 1))),
        )
        nu = float(rng.uniform(0.1, 0.9))
        rho = torch.tensor(sf.rho(T, nu, 1.0, 1.0))
        L0 = (
            torch.tensor(rng.standard_normal((T, 1, 1)))
            * torch.tensor(nu) ** (torch.arange(T, dtype=D) / 2)[:, None, None]
        )
        c = kr.theorem41_constants(st, L0, rho, 1.0, 1.0, lr=0.0)
        lr = 0.99 * c.B1
        traj = gt.train_conv(L0, rho, st, lr, 400)
        worst = max(worst, float(kr.drift_ratio(traj, rho, lr, c.B2).max()))
        norms.append(
            kr.theorem41_constants(st, L0, rho, 1.0, 1.0, lr).proof_matrix_norm
        )
    assert worst <= 1 + 1e-9
    assert (
        max(norms) > 1
    )  # the proof's ||I - lr A^T A D|| <= 1 fails, although the bound holds


def test_wide_rnn_follows_its_scaled_convolution():
    task = teacher_tasks.teacher_task(
        n_teacher=4,
        n_x=1,
        n_y=1,
        T=6,
        n_train=20,
        n_test=20,
        nu_W=0.3,
        nu_F=1.0,
        nu_C=1.0,
        snr_db=20.0,
        seed=3,
    )
    st = gt.lag_stats(task.X_train, task.Y_train)
    gaps = []
    for n in (8, 256):
        r = kr.train_pair(
            st,
            {},
            n=n,
            nu_W=0.3,
            nu_F=1.0,
            nu_C=1.0,
            lr=0.02,
            steps=60,
            seed=1,
            batch=3,
        )
        gaps.append(
            float(kr.relative_gap(r.rnn.losses["train"], r.conv.losses["train"]).mean())
        )
    assert gaps[1] < gaps[0] / 2


def test_loglog_slope_of_an_exact_power_law():
    ns = np.array([10.0, 100.0, 1000.0])
    s, se = kr.loglog_slope(ns, np.stack([3 * ns**-0.5] * 2, 1))
    assert abs(s + 0.5) < 1e-12 and se < 1e-9


# --- Sec. 2 and Theorem 3.3(a) ----------------------------------------------------------------------


def test_spectral_radius_of_a_known_matrix_and_the_circular_law():
    assert stability.scaled_spectral_radius(
        np.diag([3.0, -4.0, 1.0, 0.0])
    ) == pytest.approx(2.0)
    r = stability.spectral_radii([200], [0.3], seeds=2, seed=0)
    assert abs(r.mean() / np.sqrt(0.3) - 1) < 0.1 and r.mean() / 0.3 > 1.5


def test_initial_impulse_response_variance_monte_carlo():
    L = init_statistics.sample_impulse_responses(
        256, 2, 2, 4, 0.3, 1.0, 1.0, draws=300, seed=0
    )
    s = init_statistics.summarize(L, 0.3, 1.0, 1.0)
    assert np.all(np.abs(s.var_ratio - 1) < 4 * s.var_ratio_se)
    exact = torch.randn(
        2000, 4, 1, 1, generator=torch.Generator().manual_seed(1), dtype=D
    ).numpy()
    exact *= np.sqrt(0.3 ** np.arange(4))[None, :, None, None]
    g = init_statistics.summarize(exact, 0.3, 1.0, 1.0)
    assert (
        np.all(np.abs(g.var_ratio - 1) < 4 * g.var_ratio_se)
        and g.ks_pvalue.min() > 1e-3
    )


# --- tasks, data and the Table 1 protocol -----------------------------------------------------------


def test_teacher_task_delay_and_snr():
    a = teacher_tasks.teacher_task(
        n_teacher=4,
        n_x=2,
        n_y=1,
        T=8,
        n_train=200,
        n_test=200,
        nu_W=0.3,
        nu_F=1.0,
        nu_C=1.0,
        snr_db=20.0,
        seed=4,
        delay=3,
    )
    b = teacher_tasks.teacher_task(
        n_teacher=4,
        n_x=2,
        n_y=1,
        T=8,
        n_train=200,
        n_test=200,
        nu_W=0.3,
        nu_F=1.0,
        nu_C=1.0,
        snr_db=20.0,
        seed=4,
        delay=0,
    )
    torch.testing.assert_close(a.L_true[3:], b.L_true[:5])
    assert torch.all(a.L_true[:3] == 0)
    clean = cm.conv_forward(a.L_true, a.X_train)
    assert float((a.Y_train - clean).var() / a.noise_var) == pytest.approx(1.0, abs=0.1)
    assert float((clean**2).mean() / a.noise_var) == pytest.approx(100.0, rel=0.2)
    with pytest.raises(ValueError, match="delay"):
        teacher_tasks.delayed(a.L_true, -1)


def test_delay_sweep_shapes_and_relative_error():
    r = delay_sweep.run_delay_sweep(
        delays=[0, 3],
        seeds=2,
        n=6,
        n_teacher=3,
        n_x=2,
        T=6,
        n_train=4,
        n_test=4,
        nu_W=0.3,
        nu_F=1.0,
        nu_C=1.0,
        snr_db=20.0,
        lr=0.05,
        steps=3,
        seed=0,
    )
    assert r.test_mse.shape == (4, 2, 2) and np.all(r.test_power > 0)
    np.testing.assert_allclose(r.relative_test_error, r.test_mse / r.test_power[None])


def test_windows_and_splits():
    X, Y = np.arange(20.0)[:, None], -np.arange(20.0)[:, None]
    wx, wy = decoding.windows(X, Y, 5, 1)
    assert (
        wx.shape == (16, 5, 1)
        and wx[3, :, 0].tolist() == [3, 4, 5, 6, 7]
        and wy[3, 0, 0] == -3
    )
    assert decoding.windows(X, Y, 5, 5)[0].shape == (4, 5, 1)
    sp = decoding.split(1000, 5, 4, 0.25)
    assert sp["test"] == [(800, 1000)] and sum(b - a for a, b in sp["limited"]) == 250
    assert all(b <= 800 for _, b in sp["all"]) and sp["limited"][0][0] == 0


def test_table1_r2_against_brute_force_predictions():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((300, 2))
    Y = np.convolve(X[:, 0], [0.5, 1.0, 0.3], mode="full")[
        :300, None
    ] + 0.3 * rng.standard_normal((300, 1))
    res = decoding.run_table1(
        X,
        Y,
        T=6,
        folds=3,
        limited_fraction=0.2,
        n=8,
        nu_W=0.3,
        nu_F=1.0,
        nu_C=1.0,
        lr=0.05,
        steps=30,
        seed=0,
    )
    assert res.r2.shape == (2, 3, 3) and res.lr_stability < 2
    for r, reg in enumerate(res.regimes):
        for fold in range(3):
            sp = decoding.split(300, 3, fold, 0.2)
            seg = sp[reg]
            Xtr, Ytr = (
                np.concatenate([X[a:b] for a, b in seg]),
                np.concatenate([Y[a:b] for a, b in seg]),
            )
            a, b = sp["test"][0]
            tx, ty = decoding.windows(
                (X[a:b] - Xtr.mean(0)) / Xtr.std(0),
                (Y[a:b] - Ytr.mean(0)) / Ytr.std(0),
                6,
                6,
            )
            for k in range(3):
                pred = cm.conv_forward(
                    torch.tensor(res.final_L[r, fold, k]), torch.tensor(tx)
                ).numpy()
                r2 = 1 - ((pred - ty) ** 2).sum() / ((ty - ty.mean()) ** 2).sum()
                assert res.r2[r, fold, k] == pytest.approx(r2, abs=1e-8)


def test_paired_test_direction():
    d, p = decoding.paired_one_sided(
        np.array([1.0, 1.2, 1.1, 1.3]), np.array([0.5, 0.6, 0.4, 0.55])
    )
    assert d > 0 and p < 0.01


def test_fmri_stand_in_loader():
    X, y = fmri_standin.load_event_related_fmri()
    assert X.shape == (3360, 6) and y.shape == (3360, 1)
    assert (
        np.all(X.sum(0) == 96)
        and set(np.unique(X)) == {0.0, 1.0}
        and X.sum(1).max() == 1
    )


def test_s1_loader_on_a_synthetic_file(tmp_path):
    from scipy import io

    rng = np.random.default_rng(0)
    spikes = np.empty((3, 1), dtype=object)
    for k in range(3):
        spikes[k, 0] = np.sort(rng.uniform(0, 10, 50 + 10 * k))[:, None]
    vel_times = np.arange(0, 10, 0.01)[:, None]
    vels = np.stack([np.sin(vel_times[:, 0]), np.cos(vel_times[:, 0])], 1)
    io.savemat(
        tmp_path / "s1.mat",
        {"spike_times": spikes, "vels": vels, "vel_times": vel_times},
    )
    counts, vel, dt = s1_macaque.load_s1(tmp_path / "s1.mat", dt=0.5)
    edges = np.arange(0, 10 + 0.5, 0.5)
    for k in range(3):
        np.testing.assert_array_equal(
            counts[:, k], np.histogram(spikes[k, 0].ravel(), edges)[0]
        )
    np.testing.assert_allclose(vel[0], vels[:50].mean(0))
    with pytest.raises(FileNotFoundError, match="not available offline"):
        s1_macaque.load_s1(tmp_path / "missing.mat")
