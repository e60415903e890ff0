"""How much rides on a line, and a NaN that decides nothing (issue 49): each effect keeps the
largest line its interval clears; a line may say that its number is the book's, which is shown
and not decided on; a measured NaN that a rule reads makes the claim inconclusive."""

from __future__ import annotations

import math
import textwrap

import pytest

from rnnbook.book import claims


def _load(tmp_path, text: str) -> dict[str, claims.Declaration]:
    path = tmp_path / "c.claims.yaml"
    path.write_text(textwrap.dedent(text))
    return claims.load(path, "part/c")


THEORY = """
paper: lsc
claims:
  - id: lsc.rate
    source: Eq. (1)
    statement: The exponent is -1/2.
    constants: {rate: -0.5, tol: 0.25}
    rule:
      - reproduced: rate - tol <= slope - ci and slope + ci <= rate + tol
      - not-reproduced: slope + ci < rate - tol or slope - ci > rate + tol
      - otherwise: inconclusive
    measured: "{slope}"
"""


def test_a_measured_nan_that_a_rule_reads_is_inconclusive(tmp_path):
    d = _load(tmp_path, THEORY)["lsc.rate"]
    assert claims.decide(d, {"slope": -0.5, "ci": 0.1}, "book").verdict == "reproduced"
    assert (
        claims.decide(d, {"slope": 0.0, "ci": 0.1}, "book").verdict == "not-reproduced"
    )
    # wider than the band: the interval decides nothing
    assert claims.decide(d, {"slope": -1.247, "ci": 1.746}, "book").verdict == (
        "inconclusive"
    )
    got = claims.decide(d, {"slope": math.nan, "ci": 0.1}, "book")
    assert got.verdict == "inconclusive"
    assert got.note == claims.UNMEASURED
    assert "nan" not in got.note.lower()
    # a NaN inside a list the rule reads
    assert claims.not_a_number(d, {"slope": [0.1, math.nan], "ci": 0.1}) == ["slope"]


def test_a_nan_the_rule_does_not_read_decides_nothing_either_way(tmp_path):
    text = THEORY.replace('measured: "{slope}"', 'measured: "{slope} {extra}"')
    d = _load(tmp_path, text)["lsc.rate"]
    got = claims.decide(d, {"slope": -0.5, "ci": 0.1, "extra": math.nan}, "book")
    assert got.verdict == "reproduced"
    assert got.note == ""


def test_a_nan_that_would_read_as_a_verdict_is_inconclusive(tmp_path):
    """``not (x <= tol)`` is True for a NaN: without the engine's check it would decide."""
    text = """
    paper: lsc
    claims:
      - id: lsc.err
        source: Eq. (2)
        statement: The error is small.
        constants: {tol: 0.1}
        rule:
          - not-reproduced: not (err <= tol)
          - otherwise: reproduced
    """
    d = _load(tmp_path, text)["lsc.err"]
    assert claims.decide(d, {"err": 0.5}, "book").verdict == "not-reproduced"
    assert claims.decide(d, {"err": math.nan}, "book").verdict == "inconclusive"


@pytest.mark.parametrize(
    "direction, lo, hi, null, want",
    [
        ("above", 0.12, 0.4, 0.0, 0.12),
        ("above", -0.1, 0.4, 0.0, -0.1),
        ("below", -0.4, -0.3, 0.0, -0.3),
        ("within", -0.02, 0.05, 0.0, 0.05),
        ("within", 0.4, 0.58, 0.5, 0.1),
        ("above", math.nan, math.nan, 0.0, None),
        ("below", -math.inf, 0.2, 0.0, None),
    ],
)
def test_the_largest_line_an_interval_clears(direction, lo, hi, null, want):
    got = claims.clears(direction, lo, hi, null)
    assert got == pytest.approx(want) if want is not None else got is None


EFFECTS = """
paper: lsc
claims:
  - id: lsc.gain
    source: Fig. 1
    statement: Pre-training helps.
    constants: {line: 0.05}
    rule:
      effects:
        - name: gain
          effect: d_seeds
          direction: above
          smallest: line
          paper: 0.1
          line_source: book
        - name: gap
          effect: g_seeds
          direction: within
          smallest: line
    trained: ok
"""


def test_each_effect_keeps_the_line_it_clears_and_whose_line_it_is(tmp_path):
    d = _load(tmp_path, EFFECTS)["lsc.gain"]
    got = claims.decide(
        d,
        {"d_seeds": [0.1, 0.12, 0.08, 0.11], "g_seeds": [0.01, -0.01, 0.0], "ok": True},
        "book",
    )
    gain, gap = got.effects
    assert gain["clears"] == pytest.approx(gain["lo"])
    assert gain["line_source"] == "book"
    assert gap["clears"] == pytest.approx(max(abs(gap["lo"]), abs(gap["hi"])))
    assert gap["line_source"] is None
    one = claims.decide(d, {"d_seeds": [0.1], "g_seeds": [0.0], "ok": True}, "book")
    assert one.effects[0]["clears"] is None  # one seed: no finite interval


def test_whose_line_it_is_is_shown_not_decided_on(tmp_path):
    with_source = _load(tmp_path, EFFECTS)["lsc.gain"]
    without = _load(tmp_path, EFFECTS.replace("line_source: book", ""))["lsc.gain"]
    assert claims.fingerprint(with_source) == claims.fingerprint(without)
    with pytest.raises(claims.ClaimError, match="line_source"):
        _load(tmp_path, EFFECTS.replace("line_source: book", "line_source: mine"))


def _effect(**kw):
    e = {
        "name": "gain",
        "estimate": 0.2,
        "lo": 0.12,
        "hi": 0.28,
        "n": 8,
        "direction": "above",
        "smallest": 0.05,
        "null": 0.0,
        "paper": 0.3,
        "decision": "reproduced",
        "in_setting": True,
    }
    return {**e, **kw}


def test_the_box_says_how_much_rides_on_the_line():
    from rnnbook.book import lines
    from rnnbook.book.ledger import effect_text

    e = _effect(line_source="book")  # a record from before 'clears': from its interval
    assert lines.line_words(e) == (
        "the data support an effect of at least 0.12; the paper reports 0.3; the book's "
        "line (its own number, not the paper's) is 0.05"
    )
    below = _effect(direction="below", smallest=0.1, paper=0.03, clears=0.18)
    assert lines.line_words(below).startswith(
        "the data support an effect of at most 0.18"
    )
    assert "the line is 0.1" in lines.line_words(below)
    within = _effect(direction="within", lo=-0.02, hi=0.05, smallest=0.1, paper=None)
    assert lines.line_words(within) == (
        "the data place the effect within ±0.05 of no effect (0); the paper gives no "
        "size; the line is ±0.1"
    )
    assert lines.line_words(_effect(lo=float("nan"))) is None
    assert lines.line_words(_effect(in_setting=False)) is None
    assert "How much rides on the line: the data support" in effect_text(e)
    assert "nan" not in effect_text(_effect(clears=None, lo=float("nan"))).lower()


def test_the_scorecard_has_the_largest_line_cleared_in_a_column():
    from rnnbook.book import pages

    claim = {
        "id": "lsc.a",
        "paper": "lsc",
        "source": "Fig. 1",
        "statement": "Pre-training helps.",
        "paper_value": None,
        "measured": "gain",
        "verdict": "reproduced",
        "effects": [
            _effect(line_source="book"),
            _effect(name="other", lo=float("nan")),
        ],
    }
    cols = ("verdict", "source", "claim", "paper", "measured", "line", "box")
    table = pages.claims_table([claim], "book/scorecard", cols, kind="scorecard")
    assert "largest line cleared" in table
    assert "gain: ≥ 0.12 <em>vs</em> 0.05 (book's)" in table
    assert "other:" not in table  # no finite interval: nothing cleared
    assert pages.claims_table([{**claim, "effects": None}], "x", cols).count("—") >= 1
    assert "largest line cleared" in pages.scorecard([claim])


def test_the_line_column_reads_the_run_whose_verdict_the_row_shows():
    """Where a confirmatory record decides a claim, the scorecard's line column gives that
    record's lines, one effect per line, not the (exploratory) book run's beside its
    verdict; a long list folds after its first lines."""
    from rnnbook.book import pages

    book = [_effect(name=f"cell {i}", lo=-0.4, hi=0.5) for i in range(6)]
    record = [_effect(name=f"cell {i}", lo=-0.16, hi=-0.09) for i in range(6)]
    claim = {
        "id": "lsc.a",
        "paper": "lsc",
        "source": "Fig. 2",
        "statement": "Pre-training helps.",
        "paper_value": None,
        "measured": "gain",
        "verdict": "not-reproduced",
        "effects": book,
        "counting": {"kind": "confirmatory", "seeds": 108, "effects": record},
    }
    cell = pages.line_html(claim, "book/scorecard")
    assert "≥ -0.16" in cell and "-0.4" not in cell
    assert cell.count('<span class="value-part">') == 6
    assert cell.index("cell 2:") < cell.index("<summary>and 3 more</summary>")
    alone = pages.line_html({**claim, "counting": None}, "book/scorecard")
    assert "≥ -0.4" in alone and "-0.16" not in alone


def test_a_records_line_says_the_largest_line_each_effect_clears():
    from rnnbook.book import ledger_sphinx

    got = ledger_sphinx._clears_html(_effect(line_source="book"))
    assert got == " (clears at least 0.12; the book&#x27;s line: 0.05)"
    within = _effect(direction="within", lo=-0.02, hi=0.05, smallest=0.1)
    assert ledger_sphinx._clears_html(within) == " (clears ±0.05; the line: ±0.1)"
    assert ledger_sphinx._clears_html(_effect(lo=float("nan"))) == ""
