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
    seed=0,
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


def made_up(grid, ppl, spread=0.0):
    """Seed s has perplexity ``ppl * (1 + spread * s)`` at every checkpoint."""
    out = {}
    for d in grid.depths:
        for s in range(grid.seeds):
            for c in lru_ptb.CONDS:
                for cl in (False, True):
                    v = ppl[(d, c, cl)] * (1 + spread * s)
                    at = [(k, v) for k in grid.checkpoints()]
                    out[(d, s, c, cl)] = {
                        "test": {"ppl": v},
                        "best_test_at": at,
                        "steps": 1,  # early stopping ended it before the cap
                        "diverged": False,
                    }
    return out


def test_comparisons_by_hand():
    g = lru_ptb.Grid(**{**BASE, "seeds": 3})
    base = {"default": 100.0, "rho=1": 200.0, "rho=0.5": 90.0, "rhobar=0.5": 95.0}
    ppl = {
        (d, c, cl): v for d in (1, 2) for c, v in base.items() for cl in (False, True)
    }
    ppl[(2, "rho=1", True)] = 50.0  # rho=1 best at depth 2 with clipping
    ppl[(1, "default", True)] = 120.0  # clipping changes the default by 20%
    v = lru_ptb.Runs(g, made_up(g, ppl, spread=0.01), 150.0).comparisons()
    # a common factor per seed cancels in every log-ratio: the intervals are points
    assert (v["n_settings"], v["n_one_worst"], v["n_one_not_worst"]) == (4, 3, 1)
    assert (v["n_half_beats_one"], v["n_one_beats_half"]) == (3, 1)
    assert (v["n_best_half"], v["n_best_other"]) == (3, 1)
    assert (v["n_clip"], v["n_clip_within"], v["n_clip_outside"]) == (4, 3, 1)
    assert v["ppl_default_max"] == pytest.approx(120 * 1.01)
    assert v["ppl_default_min"] == pytest.approx(100 * 1.01)
    assert v["untrained_arms"] == "L=1 rho=1, L=1 clip rho=1, L=2 rho=1"
    assert v["unigram"] == 150.0 and v["n_seeds"] == 3 and "seeds" not in v
    assert v["clip_text"].startswith("L=1 default: +20.0% [+20.0%, +20.0%]")
    assert "L=2 clip: default 101, rho=1 50" in v["mean_ppl"]


def test_runs_that_hit_the_step_cap_are_counted_per_seed():
    """A run that reached the step cap without early stopping has not finished training; a
    diverged run ended (it is data); both counted per seed over every run of the grid."""
    g = lru_ptb.Grid(**{**BASE, "seeds": 2})
    ppl = {(d, c, cl): 100.0 for d in (1, 2) for c in lru_ptb.CONDS for cl in (0, 1)}
    res = made_up(g, {(d, c, bool(cl)): v for (d, c, cl), v in ppl.items()})
    res[(1, 0, "rho=1", False)]["steps"] = g.steps  # capped
    res[(2, 1, "default", True)].update(steps=g.steps, diverged=True)  # ended
    res[(2, 1, "rho=0.5", True)]["steps"] = g.steps  # capped
    v = lru_ptb.Runs(g, res, 150.0).comparisons()
    assert v["capped_runs"] == [1, 1] and v["runs_per_seed"] == 16
    assert v["default_ppl"]["L=2 clip"] == [100.0, 100.0]


def test_an_untrained_arm_counts_with_its_perplexity():
    """An arm that did not train (above the unigram model) is not dropped: it counts in every
    effect with its own perplexity, and a run without a finite one counts as the worst."""
    g = lru_ptb.Grid(**{**BASE, "seeds": 3, "depths": [1]})
    base = {"default": 100.0, "rho=1": 300.0, "rho=0.5": 90.0, "rhobar=0.5": 95.0}
    ppl = {(1, c, cl): v for c, v in base.items() for cl in (False, True)}
    res = made_up(g, ppl, spread=0.01)
    v = lru_ptb.Runs(g, res, 150.0).comparisons()
    assert v["untrained_arms"] == "L=1 rho=1, L=1 clip rho=1" and not v["all_arms_ok"]
    assert v["one_worst_seeds"]["L=1"] == pytest.approx([np.log(3)] * 3)
    assert v["half_one_seeds"]["L=1 clip"] == pytest.approx([np.log(0.3)] * 3)
    # seed 1 of the default never had a finite validation: it counts as the worst
    res[(1, 1, "default", False)].update(test=None, best_test_at=[(0, np.nan)])
    v = lru_ptb.Runs(g, res, 150.0).comparisons()
    assert v["one_worst_seeds"]["L=1"][1] == pytest.approx(0.0)  # rho=1 is tied worst
    assert v["ppl_default_min"] == pytest.approx(100 * 1.01)  # the clipped default
    P = {"a": np.array([np.nan, 2.0]), "b": np.array([5.0, np.inf])}
    got = lru_ptb.counted(P, vocab=3)
    assert got["a"].tolist() == [5.0, 2.0] and got["b"].tolist() == [5.0, 3.0]


def test_noisy_seeds_are_undecided():
    g = lru_ptb.Grid(**{**BASE, "seeds": 3, "depths": [1]})
    ppl = {(1, c, cl): 100.0 for c in lru_ptb.CONDS for cl in (False, True)}
    res = made_up(g, ppl)
    for s, f in enumerate((0.9, 1.1, 1.0)):  # rho=1 better, worse, equal
        for cl in (False, True):
            res[(1, s, "rho=1", cl)]["best_test_at"] = [(0, 100 * f), (2, 100 * f)]
    v = lru_ptb.Runs(g, res, 150.0).comparisons()
    assert v["n_half_beats_one"] == v["n_one_beats_half"] == 0
    m, lo, hi = lru_ptb.Runs(g, res, 150.0).intervals()[("half-one", 1, False)]
    assert lo[-1] < 0 < hi[-1] and m.shape == (3,)


def word_task(n=12, T=4, vocab=20):
    w = torch.randint(vocab, (n, T + 1), generator=torch.Generator().manual_seed(0))
    return tasks.SeqTask("ptb-standin", "lm", vocab, vocab, w, w[:4], w[:4], T)


def test_tiny_grid_runs_and_is_cached(tmp_path, monkeypatch):
    monkeypatch.setenv("RNNBOOK_BUILD_DIR", str(tmp_path))
    g = lru_ptb.Grid(**{**BASE, "depths": [1], "seeds": 2})
    runs = lru_ptb.run_grid(g, word_task())
    assert len(runs.results) == 16 and len(g.members()) == 16
    r = runs.results[(1, 1, "rho=0.5", True)]
    assert r["pretrain"]["steps"] == 1 and set(r["radii"]) == {"l1/time", "l1/depth"}
    # the clipped and unclipped runs start from the same pre-trained network
    assert r["radii"] == runs.results[(1, 1, "rho=0.5", False)]["radii"]
    assert runs.table().count("\n") == 10 and "criteria" in runs.pretrain_summary()
    assert runs.unigram > 1 and len(list(tmp_path.glob("lsc_runs/lru-*.json"))) == 1

    def fail(*a, **k):
        raise AssertionError("should have been read from the cache")

    monkeypatch.setattr(lru_ptb, "make_lru", fail)
    again = lru_ptb.run_grid(g, word_task())
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


def test_a_shard_runs_the_member_seeds_it_has_in_one_long_run():
    from rnnbook.lsc import deep_rnns
    from rnnbook.seeds import member_seed

    g = lru_ptb.Grid(**{**BASE, "seed": 7, "seeds": 2, "seed_start": 4})
    assert [g.member_seed(s) for s in range(2)] == [7004, 7005]
    assert g.key(g.depths[0])["seeds"] == [7004, 7005]
    assert lru_ptb.Grid(**{**BASE, "seed": 7}).member_seed(0) == 7000
    big = lru_ptb.Grid(**{**BASE, "seed": 7, "seed_start": 1000})
    assert big.member_seed(0) == member_seed(7, 1000) != 8000
    assert deep_rnns.Grid.__dataclass_fields__["seed_start"].default == 0
