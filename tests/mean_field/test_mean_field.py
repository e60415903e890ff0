"""The mean-field part against independent computations: adaptive quadrature, finite differences, the full
2x2 maps against the reduced cosine maps, explicit weight draws against the Gram-matrix sampler, free
probability closed forms, and hand-written recurrences for the batched networks."""

import numpy as np
import pytest
import sympy as sp
import torch
from scipy import integrate

from rnnbook import datasets
from rnnbook.mean_field import jacobian_spectrum as js
from rnnbook.mean_field import language_model as lm
from rnnbook.mean_field import theory as mf
from rnnbook.mean_field import derivations as mfd
from rnnbook.mean_field import minimal_rnn
from rnnbook.book import pipeline
from rnnbook.mean_field import trainability as tr
from rnnbook.mean_field import vanilla_rnn
from rnnbook.book.params import ParameterError

from tests.conftest import ROOT


# ------------------------------------------------------------------------------------------- quadrature
def test_gauss1_and_gauss2_against_adaptive_quadrature():
    pdf = lambda z: np.exp(-z * z / 2) / np.sqrt(2 * np.pi)  # noqa: E731
    for mean, var in ((0.0, 0.3), (1.5, 4.0), (-2.0, 15.0)):
        ref = integrate.quad(
            lambda z: mf.sigmoid(mean + np.sqrt(var) * z) ** 2 * pdf(z),
            -12,
            12,
            limit=200,
        )[0]
        assert (
            abs(float(mf.gauss1(lambda u: mf.sigmoid(u) ** 2, mean, var)) - ref) < 1e-9
        )
    mean, var, c = 0.7, 6.0, 0.6
    f = lambda z2, z1: (
        np.tanh(mean + np.sqrt(var) * z1)  # noqa: E731
        * np.tanh(mean + np.sqrt(var) * (c * z1 + np.sqrt(1 - c * c) * z2))
        * pdf(z1)
        * pdf(z2)
    )
    ref = integrate.dblquad(f, -9, 9, -9, 9, epsabs=1e-10)[0]
    assert abs(float(mf.gauss2(np.tanh, np.tanh, mean, var, c, n=200)) - ref) < 1e-7
    assert (
        abs(float(mf.gauss2(np.tanh, np.tanh, mean, var, c)) - ref) < 1e-5
    )  # the default nodes


def test_gauss_broadcasts_over_grids():
    out = mf.gauss2(
        mf.sigmoid,
        mf.sigmoid,
        np.array([0.0, 1.0])[:, None],
        np.array([1.0, 2.0, 3.0]),
        0.5,
    )
    assert out.shape == (2, 3)
    assert (
        abs(out[0, 1] - float(mf.gauss2(mf.sigmoid, mf.sigmoid, 0.0, 2.0, 0.5))) < 1e-14
    )


# ----------------------------------------------------------------------------------------- vanilla maps
def test_vanilla_map_diagonal_and_fixed_point():
    hp = mf.HP(np.array([0.8, 1.5]), 0.5, 0.0, 1.0, 0.1)
    qs = mf.vanilla_qstar(hp)
    np.testing.assert_allclose(mf.vanilla_q_map(qs, hp), qs, rtol=1e-10)
    q11, q12, q22 = mf.vanilla_covariance_map(qs, 0.3 * qs, qs, 0.2, hp)
    np.testing.assert_allclose(q11, qs, rtol=1e-10)
    np.testing.assert_allclose(q12 / q11, mf.vanilla_c_map(0.3, 0.2, hp, qs), rtol=1e-9)


def test_vanilla_chi_is_the_slope_of_the_cosine_map():
    hp = mf.HP(1.3, 0.4, 0.2, 1.0, 0.2)
    qs = mf.vanilla_qstar(hp)
    for c in (0.1, 0.5, 0.8):
        fd = (
            mf.vanilla_c_map(c + 1e-5, 0.3, hp, qs)
            - mf.vanilla_c_map(c - 1e-5, 0.3, hp, qs)
        ) / 2e-5
        assert abs(float(mf.vanilla_chi(c, hp, qs)) - float(fd)) < 1e-5


def test_vanilla_critical_gives_chi1_one():
    sw2, sv2 = mf.vanilla_critical(np.array([0.1, 0.5, 1.0]), 1.0)
    hp = mf.HP(np.sqrt(sw2), np.sqrt(sv2), 0.0, 1.0)
    np.testing.assert_allclose(mf.vanilla_qstar(hp), [0.1, 0.5, 1.0], rtol=1e-8)
    np.testing.assert_allclose(mf.vanilla_chi1(hp), 1.0, atol=1e-9)


# ----------------------------------------------------------------------------------------- minimal maps
@pytest.mark.parametrize("sb", [0.0, 0.4])
def test_minimal_cosine_map_equals_the_full_2x2_maps(sb):
    """Eq. (8) (as derived) against one step of Eqs. (6)-(7) from a state at Q*."""
    hp = mf.HP(6.88, 1.39, np.array([-1.0, 2.0, 5.0]), 0.46, sb)
    Q, q = mf.minimal_fixed_point(hp)
    c_prev, S_prev, S = 0.4, 0.3, 0.8
    QC_prev2 = (
        q * c_prev - hp.sv2 * hp.R * S_prev - hp.sb2
    ) / hp.sw2  # state at t-2 giving c^{t-1}
    # step to t-1 (uses c^{t-1}), then to t (returns c^t)
    Q1, QC1, _, c1 = mf.minimal_step(Q, QC_prev2, S_prev, hp)
    np.testing.assert_allclose(c1, c_prev, rtol=1e-10)
    _, _, _, c2 = mf.minimal_step(Q1, QC1, S, hp)
    np.testing.assert_allclose(
        mf.minimal_c_map(c_prev, S_prev, S, hp, q), c2, atol=1e-10
    )
    printed = mf.minimal_c_map(c_prev, S_prev, S, hp, q, printed=True)
    assert np.allclose(printed, c2, atol=1e-10) == (sb == 0.0)


def test_minimal_fixed_point_solves_eq24_and_the_iteration():
    hp = mf.HP(np.array([2.0, 6.88]), 1.39, np.array([-2.0, 3.0]), 0.46)
    Q, q = mf.minimal_fixed_point(hp)
    np.testing.assert_allclose(mf.minimal_diag_map(Q, hp)[0], Q, rtol=1e-9)
    Qi = np.full(2, 0.46)
    for _ in range(2000):
        Qi, _ = mf.minimal_diag_map(Qi, hp)
    np.testing.assert_allclose(Qi, Q, rtol=1e-6)


def test_minimal_chi_derived_matches_slope_printed_only_without_bias_noise():
    for sb in (0.0, 0.5):
        hp = mf.HP(6.88, 1.39, np.array([0.0, 3.0]), 0.46, sb)
        q = mf.minimal_fixed_point(hp)[1]
        fd = (
            mf.minimal_c_map(0.5 + 1e-4, 0.3, 0.3, hp, q)
            - mf.minimal_c_map(0.5 - 1e-4, 0.3, 0.3, hp, q)
        ) / 2e-4
        assert np.abs(mf.minimal_chi(0.5, 0.3, hp, q) - fd).max() < 1e-4
        assert (
            np.abs(mf.minimal_chi(0.5, 0.3, hp, q, printed=True) - fd).max() < 1e-4
        ) == (sb == 0.0)


def test_chi_at_c_one_equals_chi1_of_eq13():
    hp = mf.HP(
        3.0, 1.0, np.array([-1.0, 6.0]), 0.46, 0.3
    )  # ordered: c* = 1 at Sigma = 1
    q = mf.minimal_fixed_point(hp)[1]
    np.testing.assert_allclose(
        mf.minimal_chi(1.0, 1.0, hp, q), mf.minimal_chi1(hp), atol=1e-6
    )


def test_algorithm1_gives_chi1_one_at_its_fixed_point():
    a = mf.algorithm1(np.array([4.0, 8.0, 16.0]), np.array([4.0, 2.0, 0.0]), 0.46)
    assert np.all(a.feasible)
    hp = a.hp()
    np.testing.assert_allclose(mf.minimal_diag_map(a.Qstar, hp)[0], a.Qstar, rtol=1e-10)
    np.testing.assert_allclose(
        a.Eu2 + a.sigma_w2 * (a.Qstar + 0.46) * a.Eup2, 1.0, atol=1e-12
    )


def test_timescale():
    np.testing.assert_allclose(
        mf.timescale([np.exp(-0.5), 1.0, 2.0]), [2.0, np.inf, np.inf]
    )


def test_bad_hyperparameters_are_named():
    with pytest.raises(ValueError, match="sigma_w"):
        mf.HP(-1.0, 1.0)
    with pytest.raises(ValueError, match="R"):
        mf.HP(1.0, 1.0, 0.0, np.nan)


# ------------------------------------------------------------------------------------------ derivations
def test_sympy_derivations():
    v = mfd.derive_vanilla_chi()
    assert v.matches_paper
    m = mfd.derive_minimal_chi()
    assert sp.simplify(m.eq9_difference + mfd.sb2 * mfd.Ap) == 0
    assert (
        sp.simplify(m.eq8_difference - mfd.sb2 * (1 - mfd.A(mfd.c_prev)) / mfd.q) == 0
    )
    assert sp.simplify(m.chi1_from_derived - m.eq13) == 0
    a = mfd.check_algorithm1()
    assert (
        a.chi1 == 1 and a.Q_fixed_point_residual == 0 and a.q_fixed_point_residual == 0
    )
    assert mfd.eq3_normalisation() == sp.Rational(1, 2)


def test_stein_lemma_on_polynomials():
    # E[z^2] = 1, E[z1^2 z2^2] = 1, E[z^4] = 3: integrands with no function left
    assert mfd.stein(mfd.z1**2) == 1
    assert mfd.stein(mfd.z1**2 * mfd.z2**2) == 1
    assert mfd.stein(mfd.z1**4) == 3


# ------------------------------------------------------------------------------------------ Monte Carlo
def test_gram_sampler_matches_explicit_untied_weights():
    """The O(N) sampler of untied pre-activations has the law of explicit fresh weight matrices."""
    hp = mf.HP(3.0, 1.0, 1.0, 0.46)
    Q = float(mf.minimal_fixed_point(hp)[0])
    Sig = [0.0, 0.0, 1.0, 1.0]
    a = minimal_rnn.simulate_pair(Sig, hp, N=48, K=300, tied=False, seed=1, Q0=Q)
    b = minimal_rnn.simulate_pair(
        Sig, hp, N=48, K=300, tied=False, seed=2, Q0=Q, exact_untied=True
    )
    for key in ("c", "q"):
        ma, mb = a[key].mean(1), b[key].mean(1)
        se = np.sqrt(a[key].var(1) / 300 + b[key].var(1) / 300)
        assert np.all(np.abs(ma - mb) <= 4.5 * se + 1e-12)
        np.testing.assert_allclose(a[key].std(1), b[key].std(1), rtol=0.25)


def test_untied_minimal_mc_follows_the_maps():
    hp = mf.HP(6.88, 1.39, np.array([-2.0, 3.0]), 0.46)
    Q = mf.minimal_fixed_point(hp)[0]
    Sig = np.where(np.arange(1, 21) < 10, 0.0, 1.0)
    th = mf.minimal_trajectory(Sig, hp)
    mc = minimal_rnn.simulate_pair(Sig, hp, N=512, K=24, tied=False, seed=3, Q0=Q)
    se = mc["c"].std(1, ddof=1) / np.sqrt(24)
    assert np.all(np.abs(mc["c"].mean(1) - th["c"]) <= 4 * se + 0.01)


def test_untied_vanilla_mc_follows_eq2():
    hp = mf.HP(np.array([0.8, 1.6]), 0.5, 0.0, 1.0)
    qs = mf.vanilla_qstar(hp)
    th = mf.vanilla_trajectory(np.zeros(10), hp, c0=0.9)
    mc = vanilla_rnn.simulate_pair(
        np.zeros(10), hp, N=512, K=24, tied=False, seed=4, q0=qs, c0=0.9
    )
    se = mc["c"].std(1, ddof=1) / np.sqrt(24)
    assert np.all(np.abs(mc["c"].mean(1) - th["c"]) <= 4 * se + 0.01)


def test_products_of_gaussian_matrices_have_the_fuss_catalan_variance():
    """Near-linear vanilla RNN (q* -> 0, sigma_w = 1): J = W_T ... W_1, whose JJ^T has m1 = 1, variance T."""
    hp = mf.HP(1.0, 0.0, 0.0, 1.0)
    r = js.jacobian_moments("vanilla", hp, N=200, T=4, K=3, seed=5, burn_in=2)
    np.testing.assert_allclose(r.m1.mean(0), 1.0, atol=0.08)
    np.testing.assert_allclose(r.variance.mean(0), np.arange(1, 5), rtol=0.15)
    ro = js.jacobian_moments(
        "vanilla", hp, N=100, T=3, K=2, seed=6, orthogonal=True, burn_in=2
    )
    assert np.all(ro.variance < 1e-6)  # orthogonal products: every singular value is 1


def test_one_step_spectrum_of_the_minimal_jacobian():
    ci = mf.algorithm1(4.0, 4.0, 0.46)
    r = js.jacobian_moments("minimal", ci.hp(), N=400, T=1, K=6, seed=7)
    chi1, var1 = mf.minimal_one_step_moments(ci.hp(), s1=-1.0)
    assert abs(r.m1.mean() - chi1) < 0.05
    assert (
        abs(r.variance.mean() - var1)
        < 3 * r.variance.std(ddof=1) / np.sqrt(6) + 0.2 * var1
    )


# ------------------------------------------------------------------------------------------ the networks
def _manual_minimal(x, W, V, b, Wx, h0):
    h = h0.clone()
    for t in range(x.shape[0]):
        xt = torch.tanh(x[t] @ Wx.T)
        u = torch.sigmoid(h @ W.T + xt @ V.T + b)
        h = u * h + (1 - u) * xt
    return h


def test_grid_rnn_matches_a_hand_written_recurrence():
    specs = [
        tr.InitSpec(2.0, 1.0, 1.0, 0.0, tied=True, h0_var=0.3),
        tr.InitSpec(1.0, 0.5, -1.0, 0.0, tied=False),
    ]
    net = tr.GridRNN("minimal", specs, N=6, M=5, steps=4, seed=0)
    x = torch.randn(4, 3, 5)
    logits = net.forward(x)
    P = net.params
    h_tied = _manual_minimal(
        x,
        P["W_tied"][0],
        P["V_tied"][0],
        P["b_tied"][0],
        P["Wx"][0],
        net.h0[0].expand(3, 6),
    )
    torch.testing.assert_close(logits[0], h_tied @ P["C"][0] + P["d"][0])
    h = net.h0[1].expand(3, 6).clone()
    for t in range(4):  # untied: the step-t weights
        xt = torch.tanh(x[t] @ P["Wx"][1].T)
        u = torch.sigmoid(
            h @ P["W_untied"][0, t].T + xt @ P["V_untied"][0, t].T + P["b_untied"][0, t]
        )
        h = u * h + (1 - u) * xt
    torch.testing.assert_close(logits[1], h @ P["C"][1] + P["d"][1])
    van = tr.GridRNN("vanilla", [tr.InitSpec(1.0, 1.0)], N=4, M=5, steps=4, seed=1)
    hv = torch.zeros(3, 4)
    for t in range(4):
        hv = torch.tanh(
            hv @ van.params["W_tied"][0].T
            + x[t] @ van.params["V_tied"][0].T
            + van.params["b_tied"][0]
        )
    torch.testing.assert_close(
        van.forward(x)[0], hv @ van.params["C"][0] + van.params["d"][0]
    )


def test_boundary_and_rules():
    acc = np.array([[0.9, 0.9, 0.1], [0.8, 0.2, 0.1], [0.3, 0.1, 0.1]])
    np.testing.assert_array_equal(tr.depth_boundary(acc, [2, 4, 8], 0.5), [4, 2, 0])
    ag, k = tr.tau_rule_agreement(
        acc, [2, 4, 8], np.array([4.0, 2.0, 0.5]), 0.5, multiples=[1.0]
    )
    assert ag == 1.0 and k == 1.0
    ag0, _ = tr.constant_rule_agreement(acc, [2, 4, 8], 0.5)
    assert ag0 < 1.0


def test_spearman_against_scipy():
    from scipy.stats import spearmanr

    rng = np.random.default_rng(0)
    a, b = rng.integers(0, 4, 12), rng.normal(size=12)
    assert abs(tr.spearman(a, b) - spearmanr(a, b).statistic) < 1e-12
    assert np.isnan(tr.spearman(np.ones(3), [1, 2, 3]))


def test_language_model_parameter_counts_and_minimal_layer():
    for cell in lm.CELLS:
        model = lm.LanguageModel(cell, 50, 8, 12)
        assert sum(p.numel() for p in model.parameters()) == lm.total_parameters(
            cell, 50, 8, 12
        )
    target = lm.total_parameters("LSTM", 1000, 64, 96)
    for cell in lm.CELLS:
        n = lm.matched_hidden_size(cell, 1000, 64, target)
        assert abs(lm.total_parameters(cell, 1000, 64, n) - target) / target < 0.01
    layer = lm.MinimalRNNLayer(3, 4)
    x, h0 = torch.randn(5, 2, 3), torch.randn(1, 2, 4)
    y, hT = layer(x, h0)
    h = h0[0]
    for t in range(5):
        xt = torch.tanh(x[t] @ layer.Wx.weight.T)
        u = torch.sigmoid(h @ layer.W.weight.T + xt @ layer.V.weight.T + layer.V.bias)
        h = u * h + (1 - u) * xt
    torch.testing.assert_close(hT[0], h)
    torch.testing.assert_close(y[-1], h)


def test_corpus_subset_and_bad_novel():
    with pytest.raises(ValueError, match="names"):
        datasets.austen_novels(("ulysses",))


def test_unknown_parameter_of_a_mean_field_chapter_is_named():
    ch = pipeline.find_chapter(ROOT, "mean_field/training")
    with pytest.raises(ParameterError, match="bogus"):
        pipeline.check_parameters(ch, {"bogus": 1})
