"""The Fig. 3 claims read per-seed data (issue 50): a record run in shards of seeds joins
them and decides once, on the union, exactly as one run of all the seeds would; the gates
and the depth gaps read from the per-seed data are the statistics the chapter computed in
one run before."""

from dataclasses import replace
from pathlib import Path

import pytest

from rnnbook.book import claims
from rnnbook.book.shard_plan import check_value, merge, rule_names
from rnnbook.book.shards import decide_claim
from rnnbook.lsc import deep_rnns

from .test_deep_rnns import BASE, PERF, chapter_values, made_up

ROOT = Path(__file__).resolve().parents[2]
DECLARED = claims.load(ROOT / "notebooks/lsc/deep_rnns.claims.yaml")
#: how a slice of Fig. 3 in shards joins each value its claims' rules read
MERGE = {
    "n_pairs": "same",
    "n_alif_pairs": "same",
    "bars": "same",
    "half_one_counts": "counts",
    "half_none_counts": "counts",
    "half_none_seed_trials": "seeds",
    "alif_seed_trials": "seeds",
    "pre_diff_near": "seeds",
    "pre_diff_n": "seeds",
    "pre_alif_near": "seeds",
    "pre_alif_n": "seeds",
    "none_scores_diff": "seeds",
    "none_scores_alif": "seeds",
}
OLD_GATES = {
    "lsc.fig3.half-beats-one": "pre_diff_ok >= 0.5 and none_trained_diff > 0",
    "lsc.fig3.half-beats-none-deeper": "pre_diff_ok >= 0.5 and none_trained_diff > 0",
    "lsc.fig3.alif-deeper": "pre_alif_ok >= 0.5 and none_trained_alif > 0",
}
OLD_GAPS = {
    "half_none_seed_trials": "half_none_gap_seeds",
    "alif_seed_trials": "alif_gap_seeds",
}


values = chapter_values  # what the chapter passes to the Fig. 3 claims


def shard(runs, start, count):
    """The runs of members ``start .. start + count - 1``, as a shard would run them."""
    g = replace(runs.grid, seeds=count, seed_start=start)
    res = {
        (*k[:4], k[4] - start): r
        for k, r in runs.results.items()
        if start <= k[4] < start + count
    }
    return deep_rnns.Runs(g, runs.task_kinds, res, runs.bars)


def grid_runs(bar=0.35, seeds=6, dev=0.06, kinds=("relu_rnn", "alif_plus")):
    g = deep_rnns.Grid(**{**BASE, "seeds": seeds, "kinds": list(kinds)})
    perf = dict(PERF)  # the other two networks: as these two, a little apart
    for (k, d, c), v in PERF.items():
        perf[({"relu_rnn": "gru", "alif_plus": "alif_pm"}[k], d, c)] = v + 0.05 * d
    res = made_up(g, perf, spread=0.02)
    for (t, k, d, c, s), r in res.items():  # more ties and losses, and other radii
        r["pretrain"]["mean_dev"] = dev * ((3 * s + d) % 5)
        if (s + d) % 3 == 0 and c != "none":
            r["best_test_at"] = [(c_, 0.1) for c_, _ in r["best_test_at"]]
    return deep_rnns.Runs(g, {"sl-mnist": "classify"}, res, {"sl-mnist": bar})


CASES = [
    dict(bar=0.35),
    dict(bar=0.45, dev=0.02),
    dict(bar=0.9),  # no arm trains: every trial ties
    dict(bar=0.35, dev=0.2),  # most pre-trainings miss their target
    dict(bar=0.5, seeds=5, kinds=("relu_rnn", "gru", "alif_plus", "alif_pm")),
]


@pytest.mark.parametrize("case", CASES)
def test_the_per_seed_rules_are_the_old_statistics(case):
    """The gates read from per-seed data pass exactly where the old pooled gates passed,
    and the depth gaps are the per-seed gaps the run computed."""
    v = values(grid_runs(**case))
    for new, old in OLD_GAPS.items():
        d = next(d for d in DECLARED.values() if new in rule_names(d))
        (e,) = [e for e in d.effects if new in e["effect"]]
        assert claims.evaluate(e["effect"], v) == v[old]
    for cid, old in OLD_GATES.items():
        assert claims.evaluate(DECLARED[cid].trained, v) == claims.evaluate(old, v)


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("plan", [(2, 2, 2), (4, 2), (5, 1), (1, 1, 1, 1, 1, 1)])
def test_shards_join_to_the_run_of_all_seeds(case, plan):
    """Each claim decided on its values joined over shards (as the slice's ``merge``
    declares) is the claim decided on one run of all the seeds: same verdict, same gate,
    same intervals."""
    runs = grid_runs(**case)
    if sum(plan) != runs.grid.seeds:
        plan = (runs.grid.seeds - 1, 1)
    whole, parts, start = values(runs), [], 0
    for count in plan:
        parts.append(values(shard(runs, start, count)))
        start += count
    for cid in deep_rnns.CLAIMS:
        d = DECLARED[cid]
        names = rule_names(d)
        assert set(names) <= set(MERGE), (cid, set(names) - set(MERGE))
        for p, count in zip(parts, plan):
            for n in names:
                check_value(cid, n, MERGE[n], claims.plain(p[n]), count)
        joined = {
            n: merge(cid, n, MERGE[n], [claims.plain(p[n]) for p in parts])
            for n in names
        }
        # as a record in shards decides (its display texts read values it did not keep)
        one = decide_claim(d, {n: whole[n] for n in names}, "smoke")
        many = decide_claim(d, joined, "smoke")
        assert (many.verdict, many.trained) == (one.verdict, one.trained), cid
        for x, y in zip(many.effects, one.effects, strict=True):
            for k in ("estimate", "lo", "hi", "n", "data", "decision"):
                assert x[k] == pytest.approx(y[k], nan_ok=True), (cid, k)
