"""The power analysis of the training claims (rnnbook.book.power, rnnbook.stats): spreads read
back off a ledger interval, power against Monte Carlo, the seeds a claim needs written into
its claims file."""

from __future__ import annotations

import numpy as np
import pytest
import yaml

from rnnbook import stats
from rnnbook.book import claims, power


def test_the_spread_is_read_back_off_a_t_interval():
    x = np.random.default_rng(0).normal(0.3, 0.12, 8)
    iv = stats.seed_interval(x)
    e = {"name": "a", "estimate": iv.mean, "lo": iv.lo, "hi": iv.hi, "n": 8}
    assert power.effect_spread(e, 8)["spread"] == pytest.approx(x.std(ddof=1), rel=1e-2)
    pooled = {"name": "b", "interval": "wilson", "n": 48}
    assert power.effect_spread(pooled, 4) == {"trials_per_seed": 12.0}


@pytest.mark.parametrize("kind", ["mean", "wilson"])
def test_power_agrees_with_monte_carlo(kind):
    rng = np.random.default_rng(1)
    n, reps = 6, 3000
    if kind == "mean":
        want = stats.power_to_reproduce("mean", "above", 0.3, 0.1, 0.0, n, spread=0.2)
        x = rng.normal(0.3, 0.2, (reps, n))
        got = [stats.seed_interval(r).lo > 0.1 for r in x]
    else:
        want = stats.power_to_reproduce(
            "wilson", "above", 0.7, 0.55, 0.5, n, trials_per_seed=10
        )
        k = rng.binomial(n * 10, 0.7, reps)
        got = [stats.wilson_interval(int(j), n * 10).lo > 0.55 for j in k]
    assert np.mean(got) == pytest.approx(want, abs=0.03)


CLAIM = """paper: lsc
claims:
  - id: lsc.t.gain
    source: Fig. 1
    statement: It helps.
    tolerance: one effect (book/verdicts.md), above 0.05
    constants: {margin: 0.05}
    rule:
      effects:
        - name: gain
          effect: gain
          direction: above
          smallest: margin
          paper: 0.1
          spread: 0.5
    trained: {rule: ref > 0.2}
    power:
      seeds: 999
      spread_from: old
"""


def test_apply_writes_the_spread_and_the_seeds_it_needs(tmp_path):
    path = tmp_path / "c.claims.yaml"
    path.write_text(CLAIM)
    d = claims.load(path)["lsc.t.gain"]
    x = np.random.default_rng(2).normal(0.1, 0.04, 5)
    iv = stats.seed_interval(x)
    record = {
        "seeds": 5,
        "effects": [
            {"name": "gain", "estimate": iv.mean, "lo": iv.lo, "hi": iv.hi, "n": 5}
        ],
    }
    changed = power.apply(path, d, record, "book ledger, seed 0")
    assert len(changed) == 2
    raw = yaml.safe_load(path.read_text())["claims"][0]
    assert raw["rule"]["effects"][0]["spread"] == pytest.approx(x.std(ddof=1), rel=0.01)
    new = claims.load(path)["lsc.t.gain"]
    n = new.power["seeds"]
    assert claims.claim_power(new, n) >= stats.POWER > claims.claim_power(new, n - 1)
    assert new.power["spread_from"] == "book ledger, seed 0"
