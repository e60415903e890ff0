"""The trainable-depth experiment of Fig. 2 (rnnbook.mean_field.trainable_depth)."""

import numpy as np
import pytest
import torch

from rnnbook.mean_field import trainable_depth as td
from rnnbook.mean_field.trainability import best_seed_mean


def test_sweeps_and_their_timescales():
    sweeps = td.fig2_sweeps()
    assert [s.kind for s in sweeps.values()] == ["vanilla"] + 3 * ["minimal"]
    tau = td.timescales(sweeps, 0.46)
    for name, s in sweeps.items():
        assert tau[name].shape == (len(s.xs),) and np.all(tau[name] > 0)
    # the vanilla timescale grows towards sigma_w = 1 (the critical point at sigma_v -> 0)
    van = tau["vanilla, $\\sigma_w$"]
    assert van[2] > van[0] and van[2] > van[-1]


def test_run_splits_the_batched_grid_by_sweep_and_weights():
    sweeps = {
        "v": td.Sweep(
            "vanilla", [(1.0, 0.025, 0.0), (0.5, 0.025, 0.0)], [1.0, 0.5], "x"
        ),
        "m": td.Sweep("minimal", [(6.88, 1.39, 0.0)], [0.0], "x"),
    }
    gen = torch.Generator().manual_seed(0)
    X, Y = (
        torch.randn(32, 16, generator=gen),
        torch.randint(0, 10, (32,), generator=gen),
    )
    steps = {"vanilla": 2, "minimal": 1}
    r = td.run(
        sweeps, [1, 2], X, Y, 4, 8, steps, 1e-3, 0, 1.0, n_seeds=3, n_checkpoints=2
    )
    assert set(r.acc) == {(n, w) for n in sweeps for w in td.WEIGHTS}
    # (checkpoints, depths, seeds, networks of the sweep)
    assert r.acc[("v", "tied")].shape == (2, 2, 3, 2)
    assert r.acc[("m", "untied")].shape == (1, 2, 3, 1)  # one step: one checkpoint
    assert r.steps == {"vanilla": [1, 2], "minimal": [1]}
    assert r.final_mean()[("v", "tied")].shape == (2, 2)
    # seeds differ (own weights and minibatches), so their accuracies are not all equal
    a = r.acc[("v", "untied")][-1]
    assert not np.allclose(a[:, 0], a[:, 1]) or not np.allclose(a[:, 1], a[:, 2])


def test_summary_and_values_on_a_grid_that_follows_tau():
    sweeps = {
        "v": td.Sweep("vanilla", [(1, 0, 0)] * 3, [1, 2, 3], "x"),
        "m": td.Sweep("minimal", [(1, 0, 0)] * 3, [1, 2, 3], "x"),
    }
    Ts = [2, 4, 8, 16]
    tau = {"v": np.array([1.0, 3.0, 9.0]), "m": np.array([2.0, 5.0, 20.0])}
    acc = {}
    for n in sweeps:
        ok = np.array(Ts)[:, None] <= tau[n][None, :]
        acc[(n, "untied")] = acc[(n, "tied")] = np.where(ok, 0.9, 0.1)
    res = td.summary(acc, tau, sweeps, Ts, 0.5)
    assert res[("vanilla", "untied")]["agreement_tau_rule"] == 1.0
    assert res[("minimal", "tied")]["fraction_trainable_at_T_max"] == round(1 / 3, 3)
    v = td.values(res)
    assert v["vanilla_tau"] == 1.0 and v["minimal_untied"] == round(1 / 3, 3)
    assert "vanilla,untied" in v["results"]
    assert td.table(res, 16).count("\n") == 1 + 4


def test_seed_values_on_seeds_that_follow_tau_or_not():
    sweeps = {
        "v": td.Sweep("vanilla", [(1, 0, 0)] * 3, [1, 2, 3], "x"),
        "m": td.Sweep("minimal", [(1, 0, 0)] * 3, [1, 2, 3], "x"),
    }
    Ts = [2, 4, 8, 16]
    tau = {"v": np.array([1.0, 3.0, 9.0]), "m": np.array([2.0, 5.0, 20.0])}
    acc = {}
    for n in (
        sweeps
    ):  # 2 checkpoints x 3 seeds: the minimalRNN follows tau, vanilla never trains
        ok = np.array(Ts)[:, None] <= tau[n][None, :]
        grid = np.where(ok, 0.9, 0.1) if n == "m" else np.full(ok.shape, 0.1)
        a = np.broadcast_to(grid[None, :, None, :], (2, 4, 3, 3)).copy()
        acc[(n, "untied")] = acc[(n, "tied")] = a
    r = td.Fig2Run(acc, {"vanilla": [5, 10], "minimal": [3, 6]})
    v = td.seed_values(r, tau, sweeps, Ts, 0.5)
    assert v["n_seeds"] == 3
    # the gate's values per network and seed; its best network's seed mean per model
    assert (
        len(v["best_acc"]["minimal"]) == 6 and "m, 3, tied" in v["best_acc"]["minimal"]
    )
    assert v["best_acc"]["minimal"]["m, 3, untied"] == [0.9] * 3
    best = {m: best_seed_mean(a) for m, a in v["best_acc"].items()}
    assert best == pytest.approx({"vanilla": 0.1, "minimal": 0.9})
    assert v["agree_iv"]["minimal"]["mean"] == 1.0
    # nothing trains: 'never' (T0 = 0) is right everywhere, the smallest k tau rule is not
    m = v["margin_iv"]["vanilla"]
    assert m["lo"] == m["hi"] == m["mean"] == -0.083 and m["n"] == 3
    assert v["margin_iv"]["minimal"]["lo"] > 0  # identical seeds: a zero-width interval
    assert v["diff_iv"]["untied"]["mean"] == 0.333  # fractions are rounded to 3 digits
    # what a rule reads holds one entry per seed, nothing over the seeds
    for name in ("agree", "margin", "diff"):
        for k, x in v[name].items():
            assert x == {"seeds": v[f"{name}_iv"][k]["seeds"]} and len(x["seeds"]) == 3
    lv = td.ledger_values(v)
    assert "n_seeds" not in lv and lv["trend"]["vanilla"][1].startswith("10: -0.083")
    panels = td.trend_panels(v)
    assert len(panels) == 2 and panels[0]["curves"]["minimal"][0] == [3, 6]


def test_thinned_sweeps_keep_both_ends_and_their_hyperparameters():
    full, thin = td.fig2_sweeps(), td.fig2_sweeps(points=2)
    for name, s in full.items():
        t = thin[name]
        assert t.xs == [s.xs[0], s.xs[-1]] and t.hps == [s.hps[0], s.hps[-1]]
    three = td.fig2_sweeps(points=3)["minimalRNN, $\\mu_b$ ($\\sigma_w=6.88$)"]
    assert three.xs == [-4.0, 2.0, 8.0]
    assert td.fig2_sweeps(points=50) == full
    with pytest.raises(ValueError, match="'points'"):
        td.fig2_sweeps(points=1)
