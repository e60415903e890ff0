"""The landing page (issue 51): verdicts quoted in sentences are held to the verdict they were
written for, and each paper's one line of counts, records and seed checks."""

from __future__ import annotations

import pytest

from rnnbook.book import landing_sphinx, ledger_sphinx

from . import test_ledger_sphinx as t
from .test_ledger_sphinx import CLAIMS, build


def claim(cid, verdict, profile="book"):
    return {"id": cid, "paper": "lsc", "verdict": verdict, "profile": profile}


#: one decided effect, as a record or the ledger keeps it
EFFECT = {
    "name": "growth",
    "estimate": 0.23,
    "lo": 0.06,
    "hi": 0.4,
    "smallest": 0.0,
    "direction": "above",
}


def test_a_sentence_is_held_to_the_verdict_it_was_written_for():
    c = claim("lsc.a", "not-reproduced")
    assert ledger_sphinx.expected_verdict_problem(c, "not-reproduced") is None
    problem = ledger_sphinx.expected_verdict_problem(c, "reproduced")
    assert "written for reproduced" in problem and "gives not-reproduced" in problem
    assert "is not a verdict" in ledger_sphinx.expected_verdict_problem(c, "holds")
    # a smaller profile decides fewer claims: not held to the book's verdicts
    smoke = claim("lsc.a", "inconclusive", "smoke")
    assert ledger_sphinx.expected_verdict_problem(smoke, "not-reproduced") is None


def test_a_changed_verdict_under_a_sentence_fails_the_build(tmp_path, monkeypatch):
    book = [{**c, "profile": "book"} for c in CLAIMS]
    monkeypatch.setattr(t, "CLAIMS", book)
    ok = "# P\n\nLemma 2 fails ({claim}`lsc.a=not-reproduced`).\n"
    proc, out = build(tmp_path / "ok", ok)
    assert proc.returncode == 0, proc.stderr
    assert "sd-badge" in (out / "book" / "page.html").read_text()
    bad = "# P\n\nLemma 2 holds ({claim}`lsc.a=reproduced`).\n"
    proc, _ = build(tmp_path / "bad", bad)
    assert proc.returncode != 0 and "rewrite the sentence" in proc.stderr


def test_the_line_of_counts_names_verdicts_records_and_seeds():
    claims = [
        claim("lsc.a", "reproduced"),
        claim("lsc.b", "not-reproduced"),
        claim("lsc.c", "inconclusive"),
    ]
    record = {
        "kind": "cpu",
        "stale": False,
        "claims": [{"id": "lsc.c", "verdict": "reproduced", "seeds": 40}],
    }
    seeds = {0: {"lsc.c": "inconclusive"}, 4: {"lsc.c": "inconclusive"}}
    text = landing_sphinx.counts_text(claims, seeds, [record])
    assert text.startswith(
        "3 claims checked: 1 reproduced, 1 not reproduced, 1 inconclusive."
    )
    assert "Records at scale exist for 1 of its training claims" in text
    assert "decides 1 of them" in text
    assert "master seed 4, 1 of 1 training verdicts" in text


def test_the_directive_links_the_scorecard(tmp_path):
    conf = 'extensions.append("rnnbook.book.landing_sphinx")\n'
    proc, out = build(tmp_path, "# P\n\n```{paper-counts} lsc\n```\n", conf)
    assert proc.returncode == 0, proc.stderr
    text = (out / "book" / "page.html").read_text()
    assert "2 claims checked" in text
    assert 'href="../book/scorecard.html#scorecard-paper-lsc"' in text


def test_the_line_counts_the_verdicts_that_count(monkeypatch):
    """A claim whose confirmatory record is decided is counted with that verdict, as the
    scorecard counts it, not with the book run's."""
    claims = {
        "lsc.a": {**claim("lsc.a", "inconclusive"), "trained": {"ok": True}},
        "lsc.b": claim("lsc.b", "reproduced"),
    }

    def counting(app, mine):
        return [
            {**c, "verdict": "not-reproduced"} if c.get("trained") else c for c in mine
        ]

    monkeypatch.setattr(ledger_sphinx, "records_counting", counting)
    monkeypatch.setattr(ledger_sphinx, "_seed_records", lambda app: None)
    monkeypatch.setattr(ledger_sphinx, "_loaded", lambda app: [])
    text = landing_sphinx.paper_line(None, claims, "lsc")
    assert text.startswith("2 claims checked: 1 reproduced, 1 not reproduced.")


def test_a_sentence_on_a_confirmatory_record_is_held_to_that_records_verdict():
    c = claim("lsc.a", "inconclusive")  # the book's own run
    decided = {"kind": "confirmatory", "verdict": "not-reproduced", "why": "w"}
    problem = ledger_sphinx.expected_confirmatory_problem
    assert problem(c, "not-reproduced", decided) is None
    wrong = problem(c, "reproduced", decided)
    assert "record gives not-reproduced" in wrong and "rewrite" in wrong
    # the record not decided yet, stale or under an earlier rule: the book's run counts
    open_ = {"kind": "exploratory", "verdict": "inconclusive", "why": "stale"}
    assert "no decided confirmatory record" in problem(c, "inconclusive", open_)
    assert "is not a verdict" in problem(c, "holds", decided)
    # held at every profile: a record does not depend on it
    smoke = claim("lsc.a", "inconclusive", "smoke")
    assert problem(smoke, "reproduced", decided) is not None


def test_a_bare_badge_must_say_which_verdict_once_a_record_counts_another():
    c = claim("lsc.a", "inconclusive")  # the book's own run
    decided = {"kind": "confirmatory", "verdict": "not-reproduced", "why": "w"}
    wrong = ledger_sphinx.bare_badge_problem(c, decided)
    assert "shows the book run's inconclusive" in wrong
    assert "lsc.a=inconclusive" in wrong
    assert "lsc.a=not-reproduced (confirmatory)" in wrong
    same = {**decided, "verdict": "inconclusive"}  # the badge shows what counts
    assert ledger_sphinx.bare_badge_problem(c, same) is None
    open_ = {"kind": "exploratory", "verdict": "inconclusive", "why": "not yet"}
    assert ledger_sphinx.bare_badge_problem(c, open_) is None
    smoke = claim("lsc.a", "inconclusive", "smoke")  # a smaller run is not held to it
    assert ledger_sphinx.bare_badge_problem(smoke, decided) is None


def test_a_sentence_quotes_a_records_effect_and_names_a_wrong_quote():
    quote = ledger_sphinx.effect_quote
    e = {"name": "gap", "estimate": -0.128, "lo": -0.185, "hi": -0.074, "n": 100}
    got = quote("lsc.a", [{**e, "interval": "bootstrap"}], "effect")
    assert got == "-0.128 [-0.185, -0.0740] (95% bootstrap interval, n = 100)"
    two = [{**e, "interval": "mean"}, {**e, "estimate": 0.5, "interval": "wilson"}]
    assert "Student t interval" in quote("lsc.a", two, "effect.1")
    assert quote("lsc.a", two, "effect.2").startswith("0.500 [")
    for field, words in [
        ("effect", "quote one as effect.1 to effect.2"),
        ("effect.3", "has effects effect.1 to effect.2"),
        ("effect.x", "has effects effect.1 to effect.2"),
    ]:
        with pytest.raises(KeyError, match=words):
            quote("lsc.a", two, field)
    with pytest.raises(KeyError, match="no effects"):
        quote("lsc.a", [], "effect")
    assert "has no data" in quote("lsc.a", [{"name": "gap", "n": 0}], "effect")


def test_a_sentence_on_a_record_that_is_not_decided_fails_the_build(tmp_path):
    page = "# P\n\nA record found it ({claim}`lsc.a=not-reproduced (confirmatory)`).\n"
    proc, _ = build(tmp_path, page)
    assert proc.returncode != 0
    assert "no decided confirmatory record counts for it" in proc.stderr


def test_a_box_decided_by_its_record_leads_with_that_record():
    """The box's title and colour give the verdict that counts; its first line says what
    the record found; the finding written when the chapter ran is labelled the book's."""
    from docutils import nodes

    box = nodes.admonition(classes=["note", "claim-box"])
    box += nodes.title("", "Fig. 1c: inconclusive")
    found = nodes.paragraph()
    found += [nodes.strong("", "Found."), nodes.Text(" Undecided: it straddles.")]
    box += found
    row = nodes.paragraph("", "", nodes.strong("", "the finding in full"))
    box += nodes.container("", row)  # the fold
    effect = {**EFFECT, "decision": "reproduced", "n": 32}
    counting = {
        "kind": "confirmatory",
        "verdict": "reproduced",
        "seeds": 32,
        "effects": [effect],
        "trained": {"passed": True},
    }
    ledger_sphinx.lead_box(box, claim("lsc.a", "inconclusive"), counting)
    assert box[0].astext() == "Fig. 1c: reproduced (confirmatory)"
    assert box["classes"] == ["tip", "claim-box"]
    assert len(box) == 3  # the Found line is rewritten, not added to
    assert row.astext() == "the book run\u2019s finding in full"
    lead = box[1].astext()
    assert "confirmatory record</strong> (32 seeds)" in lead
    assert "Holds: growth is 0.230 [0.0600, 0.400], above its line of 0" in lead
    assert "own run (exploratory, described below): inconclusive." in lead
    # a finding too long for the box is cut, and still ends its sentence
    name = "the growth factor of the gradient from the far end of the sequence, number"
    named = [{**effect, "name": f"{name} {i}"} for i in range(3)]
    box = nodes.admonition(classes=["note", "claim-box"])
    box += nodes.title("", "Fig. 1c: inconclusive")
    box += nodes.paragraph("", "", nodes.strong("", "Found."))
    ledger_sphinx.lead_box(
        box, claim("lsc.a", "inconclusive"), {**counting, "effects": named}
    )
    assert "(each effect on the scorecard). <em>The book" in box[1].astext()
    assert "Undecided" not in lead


def test_a_box_whose_record_runs_says_its_verdict_is_the_books_run():
    """While its confirmatory record runs, a box's verdict is the book's own run: its title
    says ``(exploratory)`` and its Found line says where the record stands; a decided or a
    void record leaves the box as it was."""
    from docutils import nodes

    def box():
        b = nodes.admonition(classes=["tip", "claim-box"])
        b += nodes.title("", "Fig. 2: reproduced")
        b += nodes.paragraph("", "", nodes.strong("", "Found."), nodes.Text(" Holds."))
        return b

    def entry(done, of=27, void=None, claim=None):
        st = {"done": list(range(done)), "of": of, "void": void}
        st |= {"complete": done == of, "started": "2026-12-02" if done else None}
        return {
            "state": st,
            "claim": claim,
            "chapter": "c",
            "name": "n",
            "record": None,
        }

    words = ledger_sphinx.pending_words([entry(12)])
    assert words == "so far 12 of 27 shards in, started 2026-12-02"
    b = box()
    ledger_sphinx.mark_pending(b, words)
    assert b[0].astext() == "Fig. 2: reproduced (exploratory)"
    said = "Holds. <em>This is the book\u2019s own run (exploratory); its confirmatory"
    assert f"{said} record has not decided yet (so far 12 of 27 shards" in b[1].astext()
    b = box()
    b[1][-1] = nodes.Text(" Holds: 0.194 (the rest in the fold below)")
    ledger_sphinx.mark_pending(b, words)
    assert "(the rest in the fold below). <em>This is" in b[1].astext()
    assert "not yet started" in ledger_sphinx.pending_words([entry(0)])
    assert "not yet decided" in ledger_sphinx.pending_words([entry(27)])
    decided, void = entry(2, 2, claim={"verdict": "reproduced"}), entry(1, void="code")
    assert ledger_sphinx.pending_words([decided, void]) is None
    assert "12 of 27" in ledger_sphinx.pending_words([void, entry(12)])


def _chapter_box(verdict: str, **fields) -> str:
    """The markdown of the box a chapter writes for a claim of this verdict."""
    from rnnbook.book.ledger import Claim

    return Claim(
        id="lsc.a",
        paper="lsc",
        source="Fig. 1",
        statement="s",
        paper_value=None,
        measured=None,
        tolerance=None,
        profile="smoke",
        verdict=verdict,
        **fields,
    )._repr_markdown_()


def test_the_box_colours_follow_the_ledgers():
    """:data:`ledger_sphinx.BOX_KINDS` colours a box as the chapter's own box would be
    coloured for that verdict (the ledger writes its class when the chapter runs)."""
    from rnnbook.book.claims import VERDICTS

    for v in VERDICTS:
        box = _chapter_box(v, note="why")
        assert f":class: {ledger_sphinx.BOX_KINDS[v]} claim-box" in box


def test_the_rows_renamed_as_the_book_runs_are_the_ledgers():
    """:data:`ledger_sphinx.BOOK_RUN_ROWS` names rows the chapter's own box writes: a row
    renamed in the ledger would otherwise keep its unlabelled name in a box that leads with
    its confirmatory record."""
    effect = {**EFFECT, "decision": "inconclusive", "n": 4}
    name = "the growth factor of the gradient from the far end of the sequence, number"
    named = [{**effect, "name": f"{name} {i}"} for i in range(4)]
    box = _chapter_box("inconclusive", effects=named)
    for row in ledger_sphinx.BOOK_RUN_ROWS:
        assert f"**{row}**" in box, row
