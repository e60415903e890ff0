"""The Table 1 protocol: windows, splits, R^2 against brute-force predictions, the paired tests."""

from pathlib import Path

import numpy as np
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


def test_table1_summary_and_tables():
    r2 = np.zeros((2, 3, 3))
    r2[0] = [
        [0.5, 0.5, 0.3],
        [0.6, 0.6, 0.35],
        [0.55, 0.55, 0.32],
    ]  # limited: bias helps
    r2[1] = [
        [0.6, 0.6, 0.7],
        [0.62, 0.61, 0.75],
        [0.6, 0.58, 0.71],
    ]  # all: unscaled wins
    models, regimes = ("RNN", "scaled conv", "unscaled conv"), ("limited", "all")
    res = decoding.Table1Result(
        models, regimes, r2, None, None, {"limited": [9], "all": [90]}
    )
    s = res.summary()
    assert s["limited_half_holds"] and s["all_half_holds"]
    assert s["R2_mean"]["limited"]["RNN"] == 0.55 and s["wins_lim"] == 3
    assert s["d_all_sc"] == pytest.approx(np.mean([0.1, 0.14, 0.13]))
    assert s["n_limited"] == 9 and s["n_all"] == 90
    assert "**0.5500 ± 0.0500**" in res.r2_table()
    assert res.comparison_table().count("| yes |") == 4


def test_declared_paper_value_is_the_papers_table1():
    path = Path(__file__).parents[2] / "notebooks/implicit_bias/real_data.claims.yaml"
    (claim,) = yaml.safe_load(path.read_text())["claims"]
    assert claim["paper_value"] == decoding.PAPER_TABLE1
