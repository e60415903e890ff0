"""The values the rules and gates of the training chapter read are per seed (issue 50): a
record in shards keeps each shard's values and joins them (rnnbook.book.shard_plan.merge), so
the values of seeds 0-1 and 2-3 joined must be those of one run of seeds 0-3, and the declared
rules and gates must decide the union as they decide the one run (a seed mean or its maximum
computed inside one run could not be joined)."""

import json

import numpy as np
import pytest

from rnnbook.book import claims as C
from rnnbook.book import shard_plan
from rnnbook.book.shards import decide_claim
from rnnbook.mean_field import language_model as lm
from rnnbook.mean_field import trainable_depth as td
from rnnbook.mean_field import training_speed as ts
from rnnbook.mean_field.trainability import TrainResult, best_seed_mean
from tests.conftest import ROOT

DECLARED = C.load(C.claims_file("mean_field/training", ROOT), "mean_field/training")
#: how each value a rule or gate of the chapter reads joins over shards
MERGE = {
    "margin": "seeds",
    "agree": "seeds",
    "diff": "seeds",
    "best_acc": "seeds",
    "d": "seeds",
    "d_pair": "seeds",
    "min_gru_rel": "seeds",
    "min_lstm_rel": "seeds",
    "ref_ppl": "seeds",
    "unigram_ppl": "same",
}


def _joined_like_one_run(cid: str, parts: list[dict], whole: dict, seeds: list[int]):
    """Each value claim ``cid`` reads is declared per seed, the shards' values join to the one
    run's, and the declared rule decides both alike."""
    names = shard_plan.rule_names(DECLARED[cid])
    assert set(names) <= set(MERGE), names
    for part, n in zip(parts, seeds):
        for name in names:
            shard_plan.check_value(cid, name, MERGE[name], part[name], n)
    joined = {
        name: shard_plan.merge(cid, name, MERGE[name], [p[name] for p in parts])
        for name in names
    }
    assert json.dumps(joined, sort_keys=True) == json.dumps(
        {n: whole[n] for n in names}, sort_keys=True
    )
    # as a record decides: a display template the shards did not keep is left out
    a = decide_claim(DECLARED[cid], joined, "book")
    b = decide_claim(DECLARED[cid], {n: whole[n] for n in names}, "book")
    assert a.verdict == b.verdict and a.trained == b.trained
    assert [e["data"] for e in a.effects] == [e["data"] for e in b.effects]
    return b


def _fig2(acc_of_seed) -> td.Fig2Run:
    sweeps = {
        "v": td.Sweep("vanilla", [(1, 0, 0)] * 3, [1, 2, 3], "x"),
        "m": td.Sweep("minimal", [(1, 0, 0)] * 3, [1, 2, 3], "x"),
    }
    acc = {}
    for n in sweeps:
        for w in td.WEIGHTS:  # (checkpoints, depths, seeds, networks)
            acc[(n, w)] = np.stack([acc_of_seed(n, w, s) for s in range(4)], 2)
    return sweeps, td.Fig2Run(acc, {"vanilla": [5, 10], "minimal": [3, 6]})


def test_fig2_values_join_over_shards():
    rng = np.random.default_rng(0)
    Ts = [2, 4, 8, 16]
    tau = {"v": np.array([1.0, 3.0, 9.0]), "m": np.array([2.0, 5.0, 20.0])}
    sweeps, r = _fig2(lambda n, w, s: rng.uniform(0.05, 0.95, (2, 4, 3)))
    part = [
        td.Fig2Run({k: a[:, :, sl] for k, a in r.acc.items()}, r.steps)
        for sl in (slice(0, 2), slice(2, 4))
    ]
    vals = [td.ledger_values(td.seed_values(x, tau, sweeps, Ts, 0.5)) for x in part]
    whole = td.ledger_values(td.seed_values(r, tau, sweeps, Ts, 0.5))
    for cid in ("mean-field.fig2.trainable-depth", "mean-field.fig2.gating-wider"):
        dec = _joined_like_one_run(cid, vals, whole, [2, 2])
    # the gate reads the best network's seed mean at the smallest depth, per model
    best = {m: round(best_seed_mean(whole["best_acc"][m]), 3) for m in td.MODELS}
    mean = r.final_mean()
    assert best["vanilla"] == round(max(mean[("v", w)][0].max() for w in td.WEIGHTS), 3)
    assert dec.trained["value"] == best


def _curves(a: np.ndarray) -> dict:
    """(evaluations, seeds, 4) accuracies as the Fig. 3 run returns them, for both models."""
    r = TrainResult([5, 10, 15], a.reshape(3, -1), a.reshape(3, -1))
    return {"vanilla": r, "minimal": r}


def test_fig3_values_join_over_shards():
    a = np.random.default_rng(1).uniform(0.05, 0.9, (3, 4, 4))
    parts = [ts.seed_values(_curves(a[:, sl])) for sl in (slice(0, 2), slice(2, 4))]
    whole = ts.seed_values(_curves(a))
    for cid, claim in (
        ("mean-field.fig3.critical-faster", "critical"),
        ("mean-field.fig3.orthogonal", "orthogonal"),
    ):
        vals = [ts.ledger_values(p, claim) for p in parts]
        dec = _joined_like_one_run(cid, vals, ts.ledger_values(whole, claim), [2, 2])
    # the gate: the best initialization's seed-mean final accuracy
    assert dec.trained["value"]["vanilla"] == round(float(a[-1].mean(0).max()), 3)


def _lm(ppl: float) -> lm.LMResult:
    return lm.LMResult("cell", 4, 10, [(1, ppl)], ppl, ppl, 0.0, [(1, ppl)])


def test_table1_values_join_over_shards():
    ppl = {
        "LSTM": [95, 97, 99, 96],
        "GRU": [100, 98, 97, 103],
        "minimalRNN": [101, 99, 104, 98],
    }
    runs = {c: [_lm(float(x)) for x in v] for c, v in ppl.items()}
    parts = [
        lm.ledger_values(lm.seed_values({c: rs[sl] for c, rs in runs.items()}, 300.0))
        for sl in (slice(0, 2), slice(2, 4))
    ]
    whole = lm.ledger_values(lm.seed_values(runs, 300.0))
    dec = _joined_like_one_run("mean-field.table1.perplexity", parts, whole, [2, 2])
    gate = dec.trained["value"]["GRU and LSTM test ppl"]
    assert gate == {"GRU": pytest.approx(99.5), "LSTM": pytest.approx(96.8)}
    assert dec.trained["passed"]
