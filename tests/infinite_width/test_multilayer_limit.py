"""The limit of Sec. 6 on path bases: counts, the shifts (6.8)-(6.9), L = 1 against (2.10), and L = 2
against wide networks (Monte Carlo) and the min-norm predictor."""

import numpy as np

from rnnbook.infinite_width import limit, multilayer
from rnnbook.infinite_width import multilayer_limit as ml
from rnnbook.infinite_width.regression import gaussian_regression


def test_path_counts():
    """L = 1: one path per length and start; L = 2: 2^(M/2) choices at the even positions."""
    b1 = ml.path_basis(3, 1, 6)
    assert sum(b1.sizes()) == 4 * 7  # 4 starts, lengths 0..6
    b2 = ml.path_basis(1, 2, 6)
    n_len = [sum(1 for ps in b2.paths for p in ps if len(p) == M + 2) for M in range(7)]
    # from vacuum 0 or vacuum 2 the only free positions are those at layers 0/2 after a 1
    assert n_len == [2, 2, 4, 4, 8, 8, 16]


def test_shifts_are_creation_plus_annihilation():
    b = ml.path_basis(1, 2, 4)
    S1 = ml.shift(b, 1)
    i0, i1 = b.index(0), b.index(1)
    col = S1[:, i0[(0, 0, 1, 0)]]  # the path 0 -> 1 -> 0
    assert col[i1[(0, 0, 1, 0, 1)]] == 1 and col[i1[(0, 0, 1)]] == 1 and col.sum() == 2
    assert S1[:, i0[(0, 0)]].sum() == 1  # a vacuum: creation only
    # the adjoint: Z^T/sqrt(m) maps layer-1 paths to layer 0 by appending 0 / removing 0 -> 1
    assert S1.T[i0[(1, 2, 1, 0)], i1[(1, 2, 1)]] == 1


def test_shift_moments_match_a_wide_gaussian_matrix():
    """<vac|(A_1^T A_1)^2|vac> = 2, the second moment of the Marchenko-Pastur law of ratio 1, as
    tr((Z^T Z)^2)/m for a sampled Z/sqrt(m) (Monte Carlo)."""
    b = ml.path_basis(1, 2, 6)
    S1 = ml.shift(b, 1)
    e = np.zeros(S1.shape[1])
    e[b.index(0)[(0, 0)]] = 1.0
    v = S1.T @ S1 @ e
    rng = np.random.default_rng(0)
    m = 1000
    Z = rng.standard_normal((m, m)) / np.sqrt(m)
    ZtZ = Z.T @ Z
    mc = np.sum(ZtZ * ZtZ) / m  # tr((Z^T Z)^2)/m
    assert abs(v @ v - 2.0) < 1e-12 and abs(mc - 2.0) < 0.1


def test_l1_is_the_three_layer_limit(data):
    assert ml.l1_check(data, 0.2, 15, max_len=18) < 1e-13
    ref = limit.train(data, 0.2, 15)
    np.testing.assert_allclose(ml.train(data, 1, 0.2, 15, 18).lam, ref.lam, atol=1e-13)


def test_l2_limit_is_the_mean_of_wide_networks(data):
    """At k = 5 the mean predictor of 8 networks of width 400 is within 3 SE of the limit."""
    lim = ml.train(data, 2, 0.1, 5, max_len=10).lam[-1]
    net = multilayer.init_multilayer(400, data.d, 2, 8, seed=2)
    lam = multilayer.train(net, data, 0.1, 5)[-1]
    se = lam.std(0, ddof=1) / np.sqrt(8)
    assert np.all(np.abs(lam.mean(0) - lim) <= 3 * se + 1e-3)


def test_truncation_and_min_norm(data):
    """Longer paths change less and less (conftest data), and the chapter's data needs few."""
    e4, e6 = (ml.truncation_check(data, 2, 0.1, 30, max_len=L)[0] for L in (4, 6))
    assert e6 < e4
    d10 = gaussian_regression(10, 5, seed=1, x_std=10**-0.5)
    err, s1, s2 = ml.truncation_check(d10, 2, 0.2, 100, max_len=8)
    assert err < 1e-8 and sum(s2) > sum(s1)
    run = ml.train(d10, 2, 0.2, 600, max_len=8)
    final, outside = ml.min_norm_check(d10, run)
    assert final < 1e-6 and outside < 1e-8
    assert run.risk[-1] < 1e-12 * run.risk[0]
