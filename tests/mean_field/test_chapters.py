"""The mean-field chapters against their claims files: every declared claim is checked by the
chapter, and the declared rules decide as the chapters used to."""

import re
from pathlib import Path

import pytest
import yaml

from rnnbook.book import pipeline
from rnnbook.book.claims import evaluate
from rnnbook.book.params import ParameterError
from tests.conftest import ROOT

CHAPTERS = ("signal_propagation", "dynamical_isometry", "training")


def declared(chapter: str) -> dict:
    path = ROOT / "notebooks" / "mean_field" / f"{chapter}.claims.yaml"
    return {c["id"]: c for c in yaml.safe_load(path.read_text())["claims"]}


def verdict(claim: dict, **values) -> str:
    names = {**claim.get("constants", {}), **values, "profile": "smoke"}
    for entry in claim["rule"]:
        ((v, cond),) = entry.items()
        if v == "otherwise":
            return cond
        if evaluate(cond, names):
            return v
    raise AssertionError("no otherwise")


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_every_declared_claim_is_checked_by_its_chapter(chapter):
    source = Path(ROOT / "notebooks" / "mean_field" / f"{chapter}.py").read_text()
    checked = re.findall(r'ledger\.check\(\s*"([^"]+)"', source)
    assert sorted(checked) == sorted(declared(chapter))


def test_tied_vs_untied_rule():
    claim = declared("signal_propagation")["mean-field.fig1b.tied-vs-untied"]
    within, beyond = [[0.01, 0.001]], [[0.01, 0.001], [0.5, 0.001]]
    ok = [[0.8, within], [1.0, beyond], [1.2, beyond]]  # near-critical is not tested
    assert verdict(claim, settings=ok) == "reproduced"
    assert verdict(claim, settings=[[0.8, beyond], [1.2, beyond]]) == "not-reproduced"
    assert verdict(claim, settings=[[0.8, within], [1.2, within]]) == "not-reproduced"
    assert verdict(claim, settings=[[0.8, within]]) == "not-reproduced"


def test_isometry_rule():
    claim = declared("dynamical_isometry")["mean-field.eq12.minimal-isometry"]
    rows = [[0.1, 0.1, 1.0]]
    assert verdict(claim, decreasing=True, s1_rows=rows, m1=[1.1]) == "reproduced"
    assert (
        verdict(claim, decreasing=True, s1_rows=rows, m1=[1.3]) == "partly-reproduced"
    )
    bad = [[1.0, 0.1, 1.0]]
    assert verdict(claim, decreasing=False, s1_rows=bad, m1=[1.0]) == "not-reproduced"


def iv(lo, hi):
    return {"mean": (lo + hi) / 2, "lo": lo, "hi": hi, "n": 3}


def test_training_rules_decide_from_intervals():
    c = declared("training")
    crit = c["mean-field.fig3.critical-faster"]
    up, zero, wide = iv(0.02, 0.1), iv(-0.01, 0.01), iv(-0.1, 0.2)
    assert verdict(crit, d={"vanilla": up, "minimal": up}) == "reproduced"
    assert verdict(crit, d={"vanilla": up, "minimal": wide}) == "partly-reproduced"
    assert verdict(crit, d={"vanilla": zero, "minimal": iv(-0.2, -0.1)}) == (
        "not-reproduced"
    )
    assert verdict(crit, d={"vanilla": zero, "minimal": wide}) == "inconclusive"
    orth = c["mean-field.fig3.orthogonal"]
    assert verdict(orth, d={"vanilla": up, "minimal": zero}) == "reproduced"
    assert verdict(orth, d={"vanilla": up, "minimal": wide}) == "partly-reproduced"
    assert verdict(orth, d={"vanilla": zero, "minimal": zero}) == "partly-reproduced"
    big = iv(0.05, 0.1)  # the minimalRNN difference lies outside the no-effect band
    assert verdict(orth, d={"vanilla": zero, "minimal": big}) == "not-reproduced"
    assert verdict(orth, d={"vanilla": wide, "minimal": wide}) == "inconclusive"
    t1 = c["mean-field.table1.perplexity"]
    below = {"lstm_gru": iv(-5, -1), "gru_min": iv(-4, -2)}
    assert verdict(t1, gap=iv(0.0, 0.08), **below) == "reproduced"
    mixed = {"lstm_gru": iv(-5, 3), "gru_min": iv(-4, -2)}
    assert verdict(t1, gap=iv(0.0, 0.08), **mixed) == "partly-reproduced"
    assert verdict(t1, gap=iv(0.15, 0.3), **below) == "not-reproduced"
    assert verdict(t1, gap=iv(0.05, 0.15), **below) == "inconclusive"
    depth = c["mean-field.fig2.trainable-depth"]
    good, tie = {"mean": 0.9, "lo": 0.88, "hi": 0.92}, iv(0.0, 0.0)
    both = {"vanilla": good, "minimal": good}
    assert verdict(depth, margin={"vanilla": up, "minimal": up}, agree=both) == (
        "reproduced"
    )
    assert verdict(depth, margin={"vanilla": up, "minimal": tie}, agree=both) == (
        "partly-reproduced"
    )
    assert verdict(depth, margin={"vanilla": tie, "minimal": tie}, agree=both) == (
        "not-reproduced"
    )
    assert verdict(depth, margin={"vanilla": wide, "minimal": tie}, agree=both) == (
        "inconclusive"
    )
    wider = c["mean-field.fig2.gating-wider"]
    assert verdict(wider, diff={"untied": up, "tied": up}) == "reproduced"
    assert verdict(wider, diff={"untied": tie, "tied": tie}) == "not-reproduced"
    assert verdict(wider, diff={"untied": tie, "tied": wide}) == "inconclusive"


def test_training_gates():
    c = declared("training")
    for cid in ("fig2.trainable-depth", "fig2.gating-wider", "fig3.orthogonal"):
        gate = c[f"mean-field.{cid}"]["trained"]["rule"]
        assert evaluate(
            gate, {"best_acc": {"vanilla": 0.25, "minimal": 0.9}, "chance": 0.1}
        )
        assert not evaluate(
            gate, {"best_acc": {"vanilla": 0.15, "minimal": 0.9}, "chance": 0.1}
        )
    gate = c["mean-field.table1.perplexity"]["trained"]["rule"]
    ppl = {"LSTM": 120.0, "GRU": 125.0, "minimalRNN": 130.0}
    assert evaluate(gate, {"test_ppl": ppl, "unigram_ppl": 140.0})
    assert not evaluate(gate, {"test_ppl": ppl, "unigram_ppl": 128.0})


def test_unknown_parameter_of_a_mean_field_chapter_is_named():
    ch = pipeline.find_chapter(ROOT, "mean_field/training")
    with pytest.raises(ParameterError, match="bogus"):
        pipeline.check_parameters(ch, {"bogus": 1})
