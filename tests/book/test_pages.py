"""The generated scorecard: counts under breakable headers, rows in the paper's order with the
statement, the paper's value, the measurement in full and a link to the box; each row an anchor."""

import json
import re
from html.parser import HTMLParser
from pathlib import Path

from rnnbook.book import pages
from rnnbook.book.claims import VERDICTS

FIELDS = {
    "paper": "lsc",
    "source": "Fig. 1",
    "statement": "s",
    "paper_value": 1.0,
    "measured": "m",
    "tolerance": "t",
    "profile": "smoke",
    "note": "",
    "chapter": "notebooks/lsc/x",
}


def test_scorecard_counts_every_verdict_under_a_breakable_header():
    claims = [dict(FIELDS, id=f"lsc.c{i}", verdict=v) for i, v in enumerate(VERDICTS)]
    table = (
        pages.scorecard(claims).split("## Verdicts per paper")[1].split("</table>")[0]
    )
    cells = re.findall(r"<th>([^<]*)</th>", table)
    assert [c.replace("\u00ad", "") for c in cells[1:-1]] == [
        v.replace("-", " ") for v in VERDICTS
    ]
    assert all(len(w.split("\u00ad")[0]) <= 7 for c in cells for w in c.split())
    lsc = re.search(
        r"<tr><td[^>]*><a href=\"#scorecard-paper-lsc\">lsc</a>.*</tr>", table
    )
    counts = re.findall(r">(\d+)</td>", lsc.group())
    assert counts == ["1"] * len(VERDICTS) + [str(len(VERDICTS))]


def test_scorecard_rows_read_in_the_papers_order_with_links_both_ways():
    long = "gap -0.001 [-0.099, 0.097] over 5 seeds; " + "x = 0.123456789, " * 20
    claims = [
        dict(FIELDS, id="lsc.fig10", source="Fig. 10", verdict="reproduced"),
        dict(FIELDS, id="lsc.figs2", source="Fig. S2", verdict="reproduced"),
        dict(FIELDS, id="lsc.fig2", source="Fig. 2", verdict="reproduced"),
        dict(FIELDS, id="lsc.lemma2", source="Lemma 2", verdict="not-reproduced"),
        dict(FIELDS, id="lsc.table1", source="Table I", verdict="reproduced"),
        dict(
            FIELDS,
            id="lsc.sec2",
            source="Sec. II-D",
            measured=long,
            verdict="reproduced",
        ),
    ]
    page = pages.scorecard(claims)
    rows = re.findall(r'<tr id="scorecard-([^"]+)" data-paper="lsc"', page)
    assert '<form class="scorecard-filter"' in page  # by paper and verdict, offline
    assert rows == [
        "lsc.sec2",
        "lsc.lemma2",
        "lsc.fig2",
        "lsc.fig10",
        "lsc.figs2",
        "lsc.table1",
    ]
    # the measurement in full (never cut), one line per part, long floats rounded
    assert (
        '<span class="value-part">gap -0.001 [-0.099, 0.097] over 5 seeds</span>'
        in page
    )
    assert page.count("x = 0.1235") == 20 and "0.123456789" not in page
    assert 'href="../notebooks/lsc/x.html#lsc.lemma2"' in page
    for label in ("claim", "paper", "measured", "verdict"):
        assert f'data-label="{label}"' in page  # cells keep their name when rows stack


def test_scorecard_typesets_the_papers_value():
    """A paper value's $...$ spans reach the scorecard as MathJax markup, the rest escaped;
    a plain value (a number) is written as before."""
    claims = [
        dict(
            FIELDS,
            id="lsc.eq1",
            verdict="reproduced",
            paper_value=r"$\binom{T}{l}$ paths, T < 10",
        ),
        dict(FIELDS, id="lsc.eq2", verdict="reproduced", paper_value=0.5),
    ]
    page = pages.scorecard(claims)
    math = r'<span class="math notranslate nohighlight">\(\binom{T}{l}\)</span>'
    assert f"{math} paths, T &lt; 10" in page
    assert "$" not in page.split("</table>", 1)[1]
    assert 'data-label="paper">0.5</td>' in page
    findings = pages.claims_table(claims, "book/errata", ("finding", "versus"))
    assert f"<em>paper:</em> {math} paths" in findings


def test_reason_is_the_notes_first_sentence():
    assert (
        pages.reason("Stand-in data (Austen). Width 64; more.")
        == "Stand-in data (Austen)."
    )
    assert (
        pages.reason("p = 0.05 at width 1.5e3 holds") == "p = 0.05 at width 1.5e3 holds"
    )
    assert len(pages.reason("word " * 100)) < 230


VOID = {
    "area",
    "base",
    "br",
    "col",
    "embed",
    "hr",
    "img",
    "input",
    "link",
    "meta",
    "source",
    "wbr",
}


class Anchors(HTMLParser):
    """The ancestors' classes and tags of every element with an id on a page."""

    def __init__(self) -> None:
        super().__init__()
        self.stack: list[tuple[str, str]] = []
        self.found: dict[str, list[tuple[str, str]]] = {}
        self.links: set[str] = set()

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "a" and a.get("href"):
            self.links.add(a["href"])
        if a.get("id"):
            self.found.setdefault(a["id"], list(self.stack))
        if tag not in VOID:
            self.stack.append((tag, a.get("class") or ""))

    def handle_endtag(self, tag):
        for i in range(len(self.stack) - 1, -1, -1):
            if self.stack[i][0] == tag:
                del self.stack[i:]
                break


def parse(path: Path) -> Anchors:
    p = Anchors()
    p.feed(path.read_text())
    return p


def test_every_claim_has_a_visible_anchored_box_linked_both_ways(smoke_book):
    """Each ledger claim has its box, with the claim id as its anchor, on its chapter's page,
    shown (not in a hidden or folded output), linking to its scorecard row, which links back."""
    claims = json.loads((smoke_book / "claims.json").read_text())
    html = smoke_book / "html"
    scorecard = parse(html / "book" / "scorecard.html")
    pages_ = {}
    missing = []
    for c in claims:
        page = pages_.setdefault(c["chapter"], parse(html / f"{c['chapter']}.html"))
        where = page.found.get(c["id"])
        boxed = where and any("claim-box" in cls.split() for _, cls in where)
        hidden = where and any(tag == "details" for tag, _ in where)  # folded
        if not boxed or hidden:
            missing.append(c["id"])
            continue
        assert f"../../book/scorecard.html#scorecard-{c['id']}" in page.links, c["id"]
        assert f"scorecard-{c['id']}" in scorecard.found, c["id"]
        assert f"../{c['chapter']}.html#{c['id']}" in scorecard.links, c["id"]
    assert not missing, f"{len(missing)} claim(s) without a visible box: {missing}"
    assert (html / "claims.json").exists() and "../claims.json" in scorecard.links


def test_status_tells_wall_from_cpu_time_and_checks_the_budget_on_wall_time():
    chapters = {
        "notebooks/a": {"seconds": 200.0, "cpu_seconds": 150.0},
        "notebooks/b": {"seconds": 100.0, "cpu_seconds": 90.0, "reused": "abc"},
    }
    t = {"profile": "smoke", "wall_seconds": 120.0, "jobs": 2, "chapters": chapters}
    line = pages.budget_line(t)
    # one chapter reused: the full build is estimated, 300 s of chapters on 2 workers
    assert "2.0 min" in line and "1 were reused" in line and "within" in line
    t["chapters"]["notebooks/b"].pop("reused")
    t["wall_seconds"] = 400.0
    assert "**over** the `smoke` profile's budget of 5 min" in pages.budget_line(t)
    page = pages.status(t, [], None)
    assert "| chapter | wall (s) | CPU (s) | device | this build |" in page
    assert "platform" not in page and "uncommitted" not in page


def test_a_confirmatory_verdict_shows_its_records_effects_before_the_books_run():
    """A claim decided by its confirmatory record says what that record measured, in
    words, and labels the book's own measurement beside it; a claim the book's run decides
    shows that run alone."""
    effect = {
        "name": "gap",
        "estimate": 0.2,
        "lo": 0.1,
        "hi": 0.3,
        "smallest": 0.05,
        "direction": "above",
        "decision": "reproduced",
        "n": 48,
    }
    counting = {"kind": "confirmatory", "seeds": 48, "effects": [effect]}
    decided = dict(FIELDS, id="lsc.a", verdict="reproduced", counting=counting)
    book = dict(FIELDS, id="lsc.b", verdict="inconclusive", measured="m2")
    html = pages.claims_table([decided, book], "book/scorecard", ("measured",))
    first, second = html.split("<tr", 3)[2:4]
    said = '48 seeds:</em></span><span class="value-part">gap is 0.200 [0.100, 0.300]'
    assert "confirmatory record, " + said in first
    assert "above its line of 0.05" in first
    # the book's run, which no longer decides, is folded under the record's effects
    assert first.index("gap is 0.2") < first.index("<details")
    assert "the book\u2019s run (exploratory)</summary>m" in first
    assert "confirmatory" not in second and ">m2<" in second


def test_a_long_measurement_shows_its_first_parts_and_folds_the_rest():
    """A measurement of many parts shows its first three in the table and folds the rest
    under a line that says how many; a short one is shown whole; the pieces are whole
    elements, nested ones included, and put back together they are the cell."""
    text = "; ".join(f"cell {i}: the gap between the two arms is {i}" for i in range(7))
    row = dict(FIELDS, id="lsc.c", verdict="inconclusive", measured=text, seeds=4)
    cell = pages.claims_table([row], "book/scorecard", ("measured",))
    shown, rest = cell.split("<details", 1)
    assert "cell 2:" in shown and "cell 3:" not in shown
    assert "<summary>and 4 more</summary>" in rest and "cell 6:" in rest
    assert "(4 seeds)" in rest.split("</details>", 1)[1]
    short = dict(row, measured="; ".join(text.split("; ")[:4]))
    assert "<details" not in pages.claims_table([short], "book/x", ("measured",))
    # one long part (a dict of values) is folded whole, under a line that says what it is
    values = "{" + ", ".join(f"'setting {i}': {i}.5" for i in range(60)) + "}"
    cell = pages.claims_table([dict(row, measured=values)], "book/x", ("measured",))
    assert '<details class="value-more"><summary>the measured values</summary>' in cell
    assert "setting 59" in cell
    # a sentence with math in it is a run of pieces, never folded between them
    sentence = dict(row, measured=" ".join(f"$x_{i}$ and" for i in range(40)))
    assert "<details" not in pages.claims_table([sentence], "book/x", ("measured",))
    html = pages._h(" ".join(f"$x_{i}$ and" for i in range(8)))
    parts = pages.top_parts(html + " (4 seeds)")
    assert "".join(parts) == html + " (4 seeds)" and len(parts) == 16
    assert sum(p.startswith('<span class="math') for p in parts) == 8
    assert all(p.count("<span") == p.count("</span>") for p in parts)


def test_the_why_of_a_confirmatory_verdict_is_its_records_finding():
    """The *why* cell of a claim decided by its confirmatory record reads that record's
    effects and gate, not the book run's (whose gate may have failed)."""
    effect = {
        "name": "gap",
        "estimate": -0.13,
        "lo": -0.18,
        "hi": -0.07,
        "smallest": 0.1,
        "null": 0.0,
        "direction": "above",
        "decision": "not-reproduced",
        "contrary": True,
        "n": 100,
    }
    counting = {
        "kind": "confirmatory",
        "seeds": 100,
        "effects": [effect],
        "trained": {"passed": True, "rule": "x"},
    }
    book_gate = {"passed": False, "rule": "runs >= 1", "value": 0}
    c = dict(FIELDS, id="lsc.a", verdict="not-reproduced", trained=book_gate)
    assert "training gate" in pages.why_text(c)  # the book's run alone: its gate
    why = pages.why_text({**c, "counting": counting})
    assert (
        "gate" not in why
        and "gap goes against the paper: -0.130 [-0.180, -0.0700]" in why
    )
    up = {**effect, "estimate": 0.2, "lo": 0.12, "hi": 0.28, "contrary": False}
    held = {**counting, "effects": [{**up, "decision": "reproduced"}]}
    why = pages.why_text({**c, "verdict": "reproduced", "counting": held})
    assert why.startswith("Holds: gap is 0.200 [0.120, 0.280]")  # not the book's note


def test_the_errata_list_reads_the_verdict_that_counts(tmp_path, monkeypatch):
    """A claim that its confirmatory record decides as not reproduced is listed among the
    discrepancies though the book's run left it undecided; one the record decides as
    reproduced is not listed though the book's run did not reproduce it."""
    claims = [
        dict(FIELDS, id="lsc.undecided", verdict="inconclusive"),
        dict(FIELDS, id="lsc.failed", verdict="not-reproduced"),
    ]
    flipped = {"inconclusive": "not-reproduced", "not-reproduced": "reproduced"}

    def counting(claims, root):
        return [dict(c, verdict=flipped[c["verdict"]]) for c in claims]

    monkeypatch.setattr(pages, "attach_records", counting)
    monkeypatch.setattr(pages, "status", lambda *a: "")
    monkeypatch.setattr(pages, "where", lambda *a: "")
    monkeypatch.setattr(pages, "api", lambda: "")
    folder = tmp_path / "a" / "b" / "c" / "_generated"
    pages.write_generated(folder, claims, {}, [])
    errata = (folder / "errata_evidence.md").read_text()
    assert "lsc.undecided" in errata and "lsc.failed" not in errata
    # folded, its rows being under the sections above: one line until opened
    assert errata.startswith(
        '```{raw} html\n<details class="errata-all"><summary>Show the 1'
    )
    assert errata.rstrip().endswith("</details>\n```")
