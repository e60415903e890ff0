"""The Table 1 protocol: windows, splits, R^2 against brute-force predictions, the paired tests."""

from pathlib import Path

import numpy as np
from scipy import stats
import pytest
import torch
import yaml

from rnnbook.implicit_bias import conv_models as cm
from rnnbook.implicit_bias import decoding


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
    assert res.r2.shape == (1, 2, 3, 3) and res.lr_stability < 2
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
                assert res.r2[0, r, fold, k] == pytest.approx(r2, abs=1e-8)


def test_paired_test_direction():
    d, p = decoding.paired_one_sided(
        np.array([1.0, 1.2, 1.1, 1.3]), np.array([0.5, 0.6, 0.4, 0.55])
    )
    assert d > 0 and p < 0.01


def test_table1_summary_and_tables():
    r2 = np.zeros((2, 2, 3, 3))  # (seeds, regimes, folds, models)
    r2[0, 0] = [
        [0.5, 0.5, 0.3],
        [0.6, 0.6, 0.35],
        [0.55, 0.55, 0.32],
    ]  # limited: bias helps
    r2[0, 1] = [
        [0.6, 0.6, 0.7],
        [0.62, 0.61, 0.75],
        [0.6, 0.58, 0.71],
    ]  # all: unscaled wins
    r2[1] = r2[0] + [[0.01], [0.02], [0.0]]  # a second seed, shifted per fold
    models, regimes = ("RNN", "scaled conv", "unscaled conv"), ("limited", "all")
    res = decoding.Table1Result(
        models, regimes, r2, None, None, {"limited": [9], "all": [90]}
    )
    s = res.summary()
    assert s["R2_mean"]["limited"]["RNN"] == pytest.approx(0.555)
    assert s["wins_lim"] == 3 and s["n_seeds"] == 2
    assert s["d_all_sc"] == pytest.approx(np.mean([0.1, 0.14, 0.13]))
    assert s["n_limited"] == 9 and s["n_all"] == 90
    assert s["r2_best"] == pytest.approx(r2[:, 0, :, 0].mean())
    # the two-way interval by hand: over seeds of fold means, over folds of seed means
    D = r2[:, 1, :, 2] - r2[:, 1, :, 1]
    t1, t2 = stats.t.ppf(0.975, 1), stats.t.ppf(0.975, 2)
    seeds_lo = D.mean(1).mean() - t1 * D.mean(1).std(ddof=1) / np.sqrt(2)
    folds_lo = D.mean(0).mean() - t2 * D.mean(0).std(ddof=1) / np.sqrt(3)
    assert s["all_sc_lo"] == pytest.approx(min(seeds_lo, folds_lo))
    assert s["all_sc_lo"] > 0 and s["lim_sc_lo"] > 0
    sd = np.std([0.505, 0.61, 0.55], ddof=1)  # over folds of the seed means
    assert f"**0.5550 ± {sd:.4f}**" in res.r2_table()
    assert res.comparison_table().count("| yes |") == 4


def test_table1_seeds_and_trend():
    rng = np.random.default_rng(1)
    X = rng.standard_normal((240, 2))
    Y = np.convolve(X[:, 0], [0.5, 1.0], mode="full")[:240, None]
    kw = dict(T=5, folds=3, limited_fraction=0.2, n=6, nu_W=0.3, nu_F=1.0, nu_C=1.0)
    res = decoding.run_table1(X, Y, lr=0.05, steps=12, seed=0, seeds=2, **kw)
    assert res.r2.shape == (2, 2, 3, 3) and res.curves.shape == (2, 2, 3, 3, 13)
    # seeds differ only in the initialization: the data (and the test power) are shared
    assert not np.allclose(res.r2[0], res.r2[1])
    one = decoding.run_table1(X, Y, lr=0.05, steps=12, seed=0, seeds=1, **kw)
    assert one.r2.shape == (1, 2, 3, 3)
    tr = res.trend([0, 12])
    m, lo, hi = tr["all: unscaled > scaled"]
    assert m[1] == pytest.approx(res.summary()["d_all_sc"]) and lo[1] <= m[1] <= hi[1]
    # the RNN in float32 stays close to the float64 run
    f32 = decoding.run_table1(
        X, Y, lr=0.05, steps=12, seed=0, seeds=2, rnn_dtype=torch.float32, **kw
    )
    np.testing.assert_allclose(f32.r2, res.r2, atol=1e-4)


def test_declared_paper_value_is_the_papers_table1():
    path = Path(__file__).parents[2] / "notebooks/implicit_bias/real_data.claims.yaml"
    (claim,) = yaml.safe_load(path.read_text())["claims"]
    assert claim["paper_value"] == decoding.PAPER_TABLE1


def test_sub_blocks_cover_the_test_windows():
    assert decoding.sub_blocks(44, 11) == [
        slice(0, 11),
        slice(11, 22),
        slice(22, 33),
        slice(33, 44),
    ]
    # a short remainder joins the block before it, a long one is its own block
    assert decoding.sub_blocks(25, 11) == [slice(0, 11), slice(11, 25)]
    assert decoding.sub_blocks(29, 11)[-1] == slice(22, 29)


def test_block_r2_weighs_up_to_the_fold_r2_and_the_claim_reads_blocks():
    """The R^2 on the blocks of a test block, weighted by their SST, is the fold's R^2 (the
    blocks cover it); the claim's statistic is the per-block difference over the stand-in's
    own R^2, one value per block of the recording (folds x blocks), seeds averaged."""
    rng = np.random.default_rng(2)
    X = rng.standard_normal((600, 2))
    Y = np.convolve(X[:, 0], [0.5, 1.0], mode="full")[:600, None]
    Y = Y + 0.5 * rng.standard_normal((600, 1))
    kw = dict(T=5, folds=3, limited_fraction=0.2, n=6, nu_W=0.3, nu_F=1.0, nu_C=1.0)
    res = decoding.run_table1(
        X, Y, lr=0.05, steps=20, seed=0, seeds=2, block_windows=10, **kw
    )
    n_win = 200 // 5  # 40 test windows per fold: 4 blocks of 10
    assert res.block_r2.shape == (2, 2, 3, 4, 3)
    for fold in range(3):
        seg = decoding.split(600, 3, fold, 0.2)
        p = decoding.prepare(X, Y, seg["all"], seg["test"][0], 5, 10)
        w = np.array([sst for _, sst in p.blocks])
        assert w.sum() == pytest.approx(p.test_sst) and len(p.blocks) == n_win // 10
        fold_r2 = (res.block_r2[:, 1, fold] * w[None, :, None]).sum(1) / w.sum()
        np.testing.assert_allclose(fold_r2, res.r2[:, 1, fold], atol=1e-8)
    s = res.summary()
    assert s["n_blocks"] == 12 and len(s["block_rel"]["all_sc"]) == 12
    scale = res.r2.mean((0, 2))[1].max()
    d = (res.block_r2[:, 1, ..., 2] - res.block_r2[:, 1, ..., 1]).mean(0).ravel()
    np.testing.assert_allclose(s["block_rel"]["all_sc"], d / scale)
    assert s["r2_scale"]["all"] == pytest.approx(round(scale, 4))
