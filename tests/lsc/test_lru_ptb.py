"""Table I and Fig. 4: the four comparisons by hand on made-up perplexities, a tiny grid that runs
and is read back from the run cache, and the default LRU's radii on a made-up corpus."""

import json

import numpy as np
import pytest
import torch

from rnnbook import datasets
from rnnbook.lsc import lru_ptb, tasks

torch.set_num_threads(1)  # tiny models: one thread is the fastest

BASE = dict(
    profile="smoke",
    seeds=1,
    depths=[1, 2],
    width=4,
    vocab=20,
    T=4,
    batch=4,
    n_train=8,
    n_val=4,
    n_test=4,
    steps=2,
    eval_every=1,
    lr=1e-2,
    clip=1.0,
    pre_steps=1,
    pre_batch=2,
)


def made_up(grid, ppl):
    return {
        (d, s, c, cl): {"test": {"ppl": ppl[(d, c, cl)] + s}}
        for d in grid.depths
        for s in range(grid.seeds)
        for c in lru_ptb.CONDS
        for cl in (False, True)
    }


def test_comparisons_by_hand():
    g = lru_ptb.Grid(**{**BASE, "seeds": 2})
    base = {"default": 100.0, "rho=1": 200.0, "rho=0.5": 90.0, "rhobar=0.5": 95.0}
    ppl = {
        (d, c, cl): v for d in (1, 2) for c, v in base.items() for cl in (False, True)
    }
    ppl[(2, "rho=1", True)] = 50.0  # rho=1 best at depth 2 with clipping
    ppl[(1, "default", True)] = 120.0  # clipping changes the default by 20%
    v = lru_ptb.Runs(g, made_up(g, ppl), {}).comparisons()
    assert (v["n_settings"], v["n_one_worst"], v["n_half_beats_one"]) == (4, 3, 3)
    assert v["n_best_half"] == 3 and v["patience"] == 2 and v["n_seeds"] == 2
    assert v["clip_changes"] == pytest.approx([120.5 / 100.5 - 1, 0, 0, 0])
    assert v["clip_text"].startswith("L=1 default: 19.9%")
    assert "L=2 clip: default 100, rho=1 50" in v["mean_ppl"]


def word_task(n=12, T=4, vocab=20):
    w = torch.randint(vocab, (n, T + 1), generator=torch.Generator().manual_seed(0))
    return tasks.SeqTask("ptb-standin", "lm", vocab, vocab, w, w[:4], w[:4], T)


def test_tiny_grid_runs_and_is_cached(tmp_path, monkeypatch):
    monkeypatch.setenv("RNNBOOK_BUILD_DIR", str(tmp_path))
    g = lru_ptb.Grid(**{**BASE, "depths": [1]})
    runs = lru_ptb.run_grid(g, word_task())
    assert len(runs.results) == 8 and set(runs.pre) == {
        (1, 0, c) for c in ("rho=1", "rho=0.5", "rhobar=0.5")
    }
    r = runs.results[(1, 0, "rho=0.5", True)]
    assert r["pretrain"]["steps"] == 1 and set(r["radii"]) == {"l1/time", "l1/depth"}
    assert runs.table().count("\n") == 10 and "converged" in runs.pretrain_summary()

    def fail(*a, **k):
        raise AssertionError("should have been read from the cache")

    monkeypatch.setattr(lru_ptb, "make_lru", fail)
    again = lru_ptb.run_grid(g, word_task())
    assert again.pre == {} and "cache" in again.pretrain_summary()
    assert all(
        json.dumps(again.results[k]) == json.dumps(runs.results[k], default=float)
        for k in runs.results
    )


def test_default_radius_on_a_small_corpus(monkeypatch):
    tokens = np.random.default_rng(0).integers(0, 30, 400)
    corpus = datasets.WordCorpus(
        tokens, tokens, tokens, tuple(map(str, range(30))), "x"
    )
    monkeypatch.setattr(tasks, "word_corpus", lambda vocab: corpus)
    res = lru_ptb.default_radius([1, 2], width=4, T=6, batch=3, n_times=2, seed=0)
    assert set(res.rows) == {(1, 0), (1, 1), (2, 0), (2, 1)}
    assert np.isnan(res.rows[(1, 0)]["depth_in"]) and res.table().count("\n") == 5
    v = res.values()
    assert v["every"] == pytest.approx(np.mean([r["every"] for r in res.rows.values()]))
    # the time transition of the LRU is Lambda: its radius is below 1
    assert all(0.5 <= r["time"] < 1 for r in res.rows.values())


def test_values_by_hand():
    rows = {
        (2, 0): dict(time=0.9, depth_1=2.0, depth_in=0.3, every=1.0, inner=0.5),
        (2, 1): dict(time=0.8, depth_1=2.0, depth_in=0.9, every=2.0, inner=0.6),
    }
    v = lru_ptb.DefaultRadius(rows).values()
    assert v == {"every": 1.5, "inner": pytest.approx(0.55), "time_gt_depth": False}
