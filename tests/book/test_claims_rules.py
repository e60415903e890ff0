"""Every training rule under the verdict design of book/verdicts.md, fed synthetic measurements.

For each declared training claim (a claim with a ``trained`` gate) the measurements are replaced
by synthetic data for each of its effects (``rnnbook.book.claims._decide_effects`` with
``measure``): the paper's effect, a true null, an effect short of the paper's size, a reversed
effect, tied seeds, an effect on its line and one untrained arm. Each scenario must give the
verdict the design says; a significant contrary effect is never reproduced or partly reproduced.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from rnnbook.book import claims

ROOT = Path(__file__).resolve().parents[2]
DECLARED = claims.all_declared(ROOT)
TRAINING = {k: d for k, d in DECLARED.items() if d.trained is not None}
N_SEEDS = 400
N_TRIALS = 4000


def test_every_training_claim_uses_the_design():
    assert len(TRAINING) == 28
    for d in TRAINING.values():
        assert d.effects, f"{d.id}: a training claim declares its rule as effects"
        assert d.history, f"{d.id}: its rule was changed after a run; keep the history"


def _const(d, expr, key=None):
    """``over``, ``smallest`` and ``no_effect`` read only constants (declared, not measured)."""
    return claims.evaluate(expr, {**d.constants, "profile": "book", "key": key})


def _keys(d, e):
    """The keys of an effect; an ``over`` that reads a measured list (the settings of a grid
    the reader may change) gets four synthetic settings, as at the book's profile."""
    if "over" not in e:
        return [None]
    try:
        return _const(d, e["over"])
    except claims.ClaimError:
        return ["s1", "s2", "s3", "s4"]


def _effects(d):
    out = []
    for e in d.effects:
        keys = _keys(d, e)
        for key in keys:
            out.append(
                (e, key, _const(d, e["smallest"], key), _const(d, e["no_effect"], key))
            )
    return out


def _targets(e, S, N):
    """The true effect of each scenario for one effect, on the statistic's own scale."""
    d = max(abs(S - N), 0.05) / 2
    if e["direction"] == "within":
        return {
            "paper": N,
            "null": N,
            "short": N + 2 * S,
            "reversed": N + 2 * S,
            "line": N + S,
        }
    sign = 1 if e["direction"] == "above" else -1
    paper, reversed_ = S + sign * d, N - sign * d
    short = (S + N) / 2 if S != N else reversed_
    if e["interval"] in ("wilson", "exact", "sign"):
        paper = min(max(paper, (S + (1 if sign > 0 else 0)) / 2), 0.99)
        reversed_ = min(max(reversed_, 0.01), 0.99)
        short = min(max(short, 0.01), 0.99)
    return {"paper": paper, "null": N, "short": short, "reversed": reversed_, "line": S}


def _data(e, theta, S, N, tie=False):
    rng = np.random.default_rng(0)
    kind = e["interval"]
    if kind in ("wilson", "exact"):
        return [round(theta * N_TRIALS), N_TRIALS]
    if kind == "sign":
        k = round(theta * N_TRIALS)
        return [N + 1.0] * k + [N - 1.0] * (N_TRIALS - k)
    if tie:
        return [theta] * 5
    sd = max(abs(S - N), 0.05) / 40
    x = theta + sd * rng.standard_normal(N_SEEDS)
    return x - x.mean() + theta


def _decide(d, scenario, left_out=(), tie=False, override=None, gate=True):
    table = {}
    for i, (e, key, S, N) in enumerate(_effects(d)):
        name = (e["name"], key)
        sc = override.get(i, scenario) if override else scenario
        theta = _targets(e, S, N)[sc]
        table[name] = (_data(e, theta, S, N, tie), i not in left_out)

    def measure(e, key):
        return table[(e["name"], key)]

    names = {**d.constants, "profile": "book"}
    return claims._decide_effects(
        d, names, measure, lambda e: _keys(d, e), gate_passed=gate
    )


IDS = sorted(TRAINING)


@pytest.mark.parametrize("cid", IDS)
def test_rule_decides_both_ways(cid):
    d = TRAINING[cid]
    effects = _effects(d)
    k = len(effects)
    paper = _decide(d, "paper")
    assert paper.verdict == "reproduced", paper.measured
    rev = _decide(d, "reversed")
    assert rev.verdict == "not-reproduced", rev.measured
    # every effect that can go against the paper does (a share of seeds with no effect at 0,
    # e.g. 'a higher learning rate', can only fall short)
    assert all(
        x["contrary"]
        for x in rev.effects
        if not (x["interval"] in ("sign", "wilson", "exact") and x["null"] <= 0)
    )
    short = _decide(d, "short")
    assert short.verdict == "not-reproduced", short.measured
    line = _decide(d, "line")
    assert line.verdict == "inconclusive", line.measured
    null = _decide(d, "null")
    if all(e["direction"] != "within" and S != N for e, _, S, N in effects):
        assert null.verdict == "not-reproduced", null.measured  # decided 'no effect'
    assert null.verdict != "reproduced" or all(
        e["direction"] == "within" or S == N for e, _, S, N in effects
    )
    # one effect against the paper, all others as the paper says: never reproduced or partly
    # (a claim 'in most settings' is about the majority: one setting against it leaves it)
    for i in range(k):
        mixed = _decide(d, "paper", override={i: "reversed"})
        if d.combine == "most":
            want = "reproduced" if k - 1 >= k // 2 + 1 else "inconclusive"
            assert mixed.verdict == want, mixed.measured
        elif mixed.effects[i]["contrary"]:
            assert mixed.verdict == "not-reproduced", mixed.measured
        else:  # an effect that can only fall short (see above)
            assert mixed.verdict == "partly-reproduced", mixed.measured
    # ties: a zero-width interval decides nothing
    tied = _decide(d, "paper", tie=True)
    for x in tied.effects:
        if x["hi"] - x["lo"] <= 0:
            assert x["decision"] == "inconclusive"
    if all(e["interval"] in ("mean", "bootstrap") for e, *_ in effects):
        assert tied.verdict == "inconclusive"
    # a setting left out by its declared rule: not decided, the others decide the claim
    for i in range(k):
        out = _decide(d, "paper", left_out=(i,))
        assert out.effects[i]["decision"] == "left out"
        assert out.trained["passed"]
        assert out.verdict == ("reproduced" if k > 1 else "inconclusive")
    # the experiment's gate fails: nothing is decided
    assert _decide(d, "paper", gate=False).verdict == "inconclusive"
    assert paper.effects[0]["level"] == 0.95
    assert paper.effects[0]["level_k"] == pytest.approx(1 - 0.05 / k, abs=1e-5)


def test_no_interval_of_a_share_leaves_its_range():
    """Every effect with a declared range (each bootstrap must declare one) keeps its interval
    inside it at the book's four seeds, where the bootstrap is Student t."""
    bootstraps = [e for d in TRAINING.values() for e in d.effects]
    assert all("range" in e for e in bootstraps if e["interval"] == "bootstrap")
    ranged = [(d, e) for d in TRAINING.values() for e in d.effects if "range" in e]
    assert len(ranged) >= 4
    for d, target in ranged:
        lo, hi = _const(d, target["range"])
        for edge in (lo, hi):
            extreme = [edge, edge, edge, (lo + hi) / 2]

            def measure(e, key):
                if e is target:
                    return extreme, True
                S, N = _const(d, e["smallest"], key), _const(d, e["no_effect"], key)
                return _data(e, _targets(e, S, N)["paper"], S, N), True

            names = {**d.constants, "profile": "book"}
            got = claims._decide_effects(d, names, measure, lambda e: _keys(d, e))
            mine = [i for i, (e, *_) in enumerate(_effects(d)) if e is target]
            for x in [got.effects[i] for i in mine]:
                assert lo <= x["lo"] <= x["hi"] <= hi, (d.id, x)
                assert x["n"] == 4 and x["interval"].startswith("t")


@pytest.mark.parametrize("cid", IDS)
def test_tolerance_text_states_the_rule(cid):
    """The tolerance text names every smallest effect the rule tests against, the number of
    effects' multiplicity level and the design's page."""
    d = TRAINING[cid]
    text = " ".join(str(d.tolerance).split())
    assert "book/verdicts.md" in text
    effects = _effects(d)
    measured_keys = any(
        "over" in e and _keys(d, e) == ["s1", "s2", "s3", "s4"] for e in d.effects
    )
    if d.combine == "most":  # 'in most settings': Holm's procedure across them
        assert "Holm" in text, text
    elif measured_keys:  # as many effects as the grid has settings: the level is stated
        assert "1 - 0.05/" in text, text
    elif len(effects) > 1:
        assert f"1 - 0.05/{len(effects)}" in text, text
    for e, key, S, _ in effects:
        shown = {f"{S:g}", f"{S:.2f}", f"{S:.3f}", f"{S:.0%}"}
        assert any(
            re.search(rf"(?<![\d.]){re.escape(s)}(?!\d)", text) for s in shown
        ), (
            f"{cid}: the tolerance does not state the smallest effect {S:g} of {e['name']}"
        )
        if d.combine is not None and d.combine != "most":
            assert f"at least {d.combine}" in text


def _write(tmp_path, rule, history=None):
    import yaml

    claim = {
        "id": "lsc.test.effect",
        "source": "Fig. 0",
        "statement": "A pre-training helps both models.",
        "tolerance": "two effects (book/verdicts.md) at level 1 - 0.05/2, above 0.01",
        "constants": {"margin": 0.01},
        "rule": rule,
        "trained": {"rule": "ref > 0.2", "value": "ref"},
        "measured": "gain {gain}",
    }
    if history is not None:
        claim["history"] = history
    p = tmp_path / "c.claims.yaml"
    p.write_text(yaml.safe_dump({"paper": "lsc", "claims": [claim]}))
    return claims.load(p)["lsc.test.effect"]


RULE = {
    "effects": [
        {
            "name": "{key}",
            "over": "['a', 'b']",
            "effect": "gain[key]",
            "direction": "above",
            "smallest": "margin",
            "setting": "acc[key] > 0.2",
        }
    ]
}


def test_effects_rule_is_applied_with_its_gates_and_recorded(tmp_path):
    hist = [{"date": "2026-11-26", "old_rule": "gain > 0", "why": "no size"}]
    d = _write(tmp_path, RULE, hist)
    assert d.history == tuple(hist) and "book/verdicts.md" in d.rule_text()
    up, down = [0.05, 0.06, 0.07, 0.05], [-0.05, -0.06, -0.07, -0.05]
    ok = {"acc": {"a": 0.9, "b": 0.9}, "ref": 0.9}
    dec = claims.decide(d, {"gain": {"a": up, "b": up}, **ok}, "book")
    assert dec.verdict == "reproduced" and dec.trained["passed"]
    assert [e["decision"] for e in dec.effects] == ["reproduced"] * 2
    assert dec.effects[0]["level"] == 0.95 and "Decided: a " in dec.measured
    assert dec.effects[0]["level_k"] == pytest.approx(0.975)
    dec = claims.decide(d, {"gain": {"a": up, "b": down}, **ok}, "book")
    assert dec.verdict == "not-reproduced" and dec.effects[1]["contrary"]
    # no arm of setting b can train: b is left out, a decides alone (at k = 1)
    out = {"acc": {"a": 0.9, "b": 0.1}, "ref": 0.9}
    dec = claims.decide(d, {"gain": {"a": up, "b": down}, **out}, "book")
    assert dec.verdict == "reproduced" and dec.trained["passed"]
    assert dec.effects[1]["decision"] == "left out" and not dec.effects[1]["contrary"]
    assert dec.effects[0]["level_k"] == 0.95
    # the experiment did not work (the reference arm did not train): nothing is decided
    dec = claims.decide(d, {"gain": {"a": up, "b": up}, **ok, "ref": 0.1}, "book")
    assert dec.verdict == "inconclusive" and not dec.trained["passed"]
    assert dec.trained["value"] == 0.1


@pytest.mark.parametrize(
    "bad, match",
    [
        ({"effects": [{**RULE["effects"][0], "interval": "z"}]}, "interval"),
        ({"effects": [{**RULE["effects"][0], "direction": "up"}]}, "direction"),
        ({"effects": [{**RULE["effects"][0], "null": 0}]}, "takes only"),
        ({"effects": [{"name": "x", "effect": "gain"}]}, "needs"),
        ({**RULE, "combine": "many"}, "combine"),
    ],
)
def test_a_bad_effects_rule_is_refused(tmp_path, bad, match):
    with pytest.raises(claims.ClaimError, match=match):
        _write(tmp_path, bad)


def test_history_needs_date_old_rule_and_why(tmp_path):
    with pytest.raises(claims.ClaimError, match="history"):
        _write(tmp_path, RULE, [{"date": "2026-11-26", "why": "no size"}])


@pytest.mark.parametrize("cid", IDS)
def test_a_record_decides_again_from_its_kept_data(cid):
    """What a recorded claim keeps per effect (its statistic, key and data) decides it again
    to the same verdict and intervals under the same rule (ARCHITECTURE.md, *Records*); a
    changed statistic or gate cannot be decided from it."""
    import dataclasses

    d = TRAINING[cid]
    for scenario in ("paper", "short", "reversed"):
        dec = _decide(d, scenario)
        claim = {"verdict": dec.verdict, "effects": dec.effects, "trained": dec.trained}
        again = claims.redecide(d, {**claim, "profile": "book", "measured": "m"})
        assert again.verdict == dec.verdict, scenario
        for x, y in zip(again.effects, dec.effects, strict=True):
            assert (x["name"], x["decision"]) == (y["name"], y["decision"])
            assert [x["lo"], x["hi"]] == pytest.approx([y["lo"], y["hi"]])
    e0 = {**d.effects[0], "effect": f"({d.effects[0]['effect']}) + 0"}
    assert (
        claims.redecide(dataclasses.replace(d, effects=(e0, *d.effects[1:])), claim)
        is None
    )
    assert claims.redecide(dataclasses.replace(d, trained="True"), claim) is None


def test_most_settings_by_holm(tmp_path):
    """'In most settings' (``combine: most``): reproduced when more than half of the
    settings are beyond their line after Holm's procedure, not reproduced when so many fall
    short that no majority is left, inconclusive between; one setting against the paper
    does not decide a claim about the majority."""
    rule = {
        "effects": [
            {
                "name": "{key}",
                "over": "['a', 'b', 'c', 'd', 'e']",
                "effect": "gain[key]",
                "direction": "above",
                "smallest": "0",
            }
        ],
        "combine": "most",
    }
    d = _write(tmp_path, rule)
    rng = np.random.default_rng(0)

    def run(means):
        gain = {
            k: list(m + 0.01 * rng.standard_normal(8)) for k, m in zip("abcde", means)
        }
        return claims.decide(d, {"gain": gain, "ref": 1.0}, "book")

    assert run([0.1, 0.1, 0.1, -0.1, 0.0]).verdict == "reproduced"  # 3 of 5 best
    assert run([0.1, 0.1, 0.0, 0.0, -0.1]).verdict == "inconclusive"  # 2 of 5
    assert run([0.1, 0.1, -0.1, -0.1, -0.1]).verdict == "not-reproduced"  # 3 short
    dec = run([0.1, 0.1, 0.1, -0.1, 0.0])
    assert all(x["holm"] for x in dec.effects)
    assert [x["decision"] for x in dec.effects][3] == "not-reproduced"
    assert "Holm" in d.rule_text()


def test_a_comparison_of_capped_runs_is_not_a_verdict():
    """The LRU's claims compare trained networks: with more than one run in twenty at the
    step cap the gate fails and the claim is inconclusive, whatever the effects say; with
    the runs finished the same data decide."""
    import dataclasses

    d = dataclasses.replace(DECLARED["lsc.fig4.half-beats-one"], measured=None, note="")
    rng = np.random.default_rng(1)
    settings = ["L=3", "L=3 clip", "L=6", "L=6 clip"]
    values = {
        "settings": settings,
        "unigram": 500.0,
        "runs_per_seed": 16,
        "default_ppl": {s: [200.0] * 8 for s in settings},
        "half_one_seeds": {
            s: list(-0.5 + 0.01 * rng.standard_normal(8)) for s in settings
        },
    }
    finished = claims.decide(d, {**values, "capped_runs": [0] * 7 + [1]}, "book")
    assert finished.trained["passed"] and finished.verdict == "reproduced"
    capped = claims.decide(d, {**values, "capped_runs": [16] * 8}, "book")
    assert not capped.trained["passed"] and capped.verdict == "inconclusive"
