"""Fig. 3's grid: the parameters it checks, the comparison rates by hand on made-up scores, and a
tiny grid on a toy spike task that runs and is read back from the run cache."""

import json
from dataclasses import replace

import numpy as np
import pytest

from rnnbook.lsc import deep_rnns, tasks

BASE = dict(
    profile="smoke",
    seeds=1,
    tasks=["sl-mnist"],
    kinds=["relu_rnn", "alif_plus"],
    depths=[1, 2],
    width=6,
    T_slmnist=4,
    side=7,
    T_shd=4,
    shd_channels=4,
    shd_rates=[160],
    shd_pitches=[50],
    T_ptb=4,
    vocab=20,
    n_train=8,
    n_val=4,
    n_test=4,
    steps=2,
    eval_every=1,
    lr_diff=[1e-2, 1e-3, 1e-3],
    lr_alif=[1e-3] * 3,
    pre_steps=1,
    pre_batch=2,
)


def test_grid_checks_and_derived_values():
    with pytest.raises(ValueError, match="lr_diff"):
        deep_rnns.Grid(**{**BASE, "lr_alif": [1e-3]})
    g = deep_rnns.Grid(**{**BASE, "width": 128})
    assert (g.net_width("gru"), g.net_width("lstm"), g.net_width("relu_rnn")) == (
        53,
        42,
        128,
    )
    assert g.patience == 2 and replace(g, profile="paper").patience == 10
    assert g.lr("sl-mnist", "gru") == 1e-2 and g.lr("sl-mnist", "alif_pm") == 1e-3
    assert deep_rnns.conditions("lstm") == ["none", 0.5, 1.0]
    assert deep_rnns.conditions("alif_pm") == ["none", 1.0]
    assert len(g.runs()) == 2 * (3 + 2)  # depths x (conditions of relu_rnn + of alif)


def made_up(grid, perf):
    return {
        key: {"test": {"acc": perf[key[1:4]]}, "pretrain": {"converged": key[3] == 0.5}}
        for key in grid.runs()
    }


def test_rates_by_hand():
    g = deep_rnns.Grid(**BASE)
    perf = {
        ("relu_rnn", 1, "none"): 0.5,
        ("relu_rnn", 1, 0.5): 0.4,
        ("relu_rnn", 1, 1.0): 0.3,
        ("relu_rnn", 2, "none"): 0.5,
        ("relu_rnn", 2, 0.5): 0.6,
        ("relu_rnn", 2, 1.0): 0.7,
        ("alif_plus", 1, "none"): 0.5,
        ("alif_plus", 1, 1.0): 0.4,
        ("alif_plus", 2, "none"): 0.5,
        ("alif_plus", 2, 1.0): 0.6,
    }
    runs = deep_rnns.Runs(g, {"sl-mnist": "classify"}, made_up(g, perf))
    v = runs.comparisons()
    assert v["half_one"] == [1.0, 0.0] and v["half_one_pooled"] == 0.5
    assert (v["half_none_shallow"], v["half_none_deep"]) == (0.0, 1.0)
    assert (v["alif_shallow"], v["alif_deep"]) == (0.0, 1.0)
    assert v["half_one_by_depth"] == "depth 1: 100% of 1; depth 2: 0% of 1"
    assert (v["conv_diff"], v["n_conv_diff"], v["conv_alif"], v["n_conv_alif"]) == (
        2,
        4,
        0,
        2,
    )
    assert v["n_seeds"] == 1 and v["width_gru"] == 2
    assert runs.table().count("\n") == 5 and "| 1/2 |" in runs.table()
    assert "| 2 | 0% | 100% | 100% |" in runs.rates_table()


def test_no_alif_gives_nan_rates():
    g = deep_rnns.Grid(**{**BASE, "kinds": ["gru"]})
    perf = {("gru", d, c): 0.5 for d in (1, 2) for c in deep_rnns.CONDITIONS}
    v = deep_rnns.Runs(g, {"sl-mnist": "classify"}, made_up(g, perf)).comparisons()
    assert v["n_alif_pairs"] == 0 and np.isnan(v["alif_deep"])


def toy_task():
    rng = np.random.default_rng(0)
    labels = rng.integers(0, 2, 8)
    times = [np.arange(4) for _ in labels]
    chans = [np.full(4, 2 * y) for y in labels]
    data = tasks.SpikeDataset(times, chans, labels, 4, 4, 2)
    return tasks.SeqTask("sl-mnist", "classify", 4, 2, data, data, data, 4)


def test_tiny_grid_runs_and_is_cached(tmp_path, monkeypatch):
    monkeypatch.setenv("RNNBOOK_BUILD_DIR", str(tmp_path))
    g = deep_rnns.Grid(**{**BASE, "depths": [2]})
    runs = deep_rnns.run_grid(g, {"sl-mnist": toy_task()})
    assert set(runs.results) == set(g.runs())
    assert runs.results[("sl-mnist", "relu_rnn", 2, "none", 0)]["pretrain"] is None
    assert runs.results[("sl-mnist", "alif_plus", 2, 1.0, 0)]["pretrain"]["steps"] == 1
    assert len(list(tmp_path.glob("lsc_runs/rnn-*.json"))) == len(g.runs())

    def fail(*a, **k):
        raise AssertionError("should have been read from the cache")

    monkeypatch.setattr(deep_rnns, "train_one", fail)
    again = deep_rnns.run_grid(g, {"sl-mnist": toy_task()})
    assert same(again.results, runs.results)


def same(a: dict, b: dict) -> bool:
    """The same runs, up to the JSON round trip of the cache (tuples become lists)."""
    return a.keys() == b.keys() and all(
        json.dumps(a[k], default=float) == json.dumps(b[k], default=float) for k in a
    )
