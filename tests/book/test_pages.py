"""The generated scorecard: one column per verdict, headers that can wrap inside long words."""

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
    table = pages.scorecard(claims).split("## Verdicts per paper")[1]
    header, _, lsc = table.strip().splitlines()[:3]
    cells = [c.strip() for c in header.strip("|").split("|")]
    assert [c.replace("\u00ad", "") for c in cells[1:-1]] == [
        v.replace("-", " ") for v in VERDICTS
    ]
    assert all(len(w.split("\u00ad")[0]) <= 7 for c in cells for w in c.split())
    assert lsc.replace(" ", "") == "|lsc|" + "1|" * len(VERDICTS) + f"{len(VERDICTS)}|"
