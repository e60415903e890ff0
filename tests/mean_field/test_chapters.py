"""The mean-field chapters against their claims files: every declared claim is checked by the
chapter, and the non-training rules decide as declared (the training rules are tested on synthetic
measurements in tests/book/test_claims_rules.py)."""

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


def test_unknown_parameter_of_a_mean_field_chapter_is_named():
    ch = pipeline.find_chapter(ROOT, "mean_field/training")
    with pytest.raises(ParameterError, match="bogus"):
        pipeline.check_parameters(ch, {"bogus": 1})
