"""The landing page's one line per paper (issue 51): how many claims the book checked and
with which verdicts, what the records at scale decide, and how many training verdicts came out
the same at other master seeds, linked to the paper's section of the scorecard.

````{paper-counts} lsc```` renders that line from the build's ledger and the committed
records; the sentences written by a person around it quote verdicts with the ``{claim}`` role.
"""

from __future__ import annotations

import html
from collections import Counter
from typing import Any

from docutils import nodes
from sphinx.util.docutils import SphinxDirective

from . import ledger_sphinx, pages, reading
from .claims import PAPERS, VERDICTS


def _verdict_words(v: str) -> str:
    return v.replace("-", " ")


def records_decide(
    claims: list[dict], scale_records: list[dict] | None
) -> tuple[int, int]:
    """Of the paper's claims, how many have a record at scale that is not stale (and whose
    rule did not change without data to decide again), and how many of those the largest
    record decides either way."""
    mine = {c["id"] for c in claims}
    best: dict[str, tuple] = {}
    for r in scale_records or []:
        if r.get("stale") or r.get("kind") == "seeds":
            continue
        for rc in r.get("claims") or []:
            if rc.get("id") in mine and not rc.get("rule_changed"):
                size = (r.get("kind") == "gpu", rc.get("seeds") or 0)
                if rc["id"] not in best or size > best[rc["id"]][0]:
                    best[rc["id"]] = (size, rc.get("verdict"))
    decided = sum(v in ("reproduced", "not-reproduced") for _, v in best.values())
    return len(best), decided


def counts_text(
    claims: list[dict],
    seeds: dict | None = None,
    scale_records: list[dict] | None = None,
) -> str:
    """The line, as plain text: counts of verdicts, records at scale, seed agreement."""
    counts = Counter(c["verdict"] for c in claims)
    parts = [f"{counts[v]} {_verdict_words(v)}" for v in VERDICTS if counts[v]]
    out = f"{len(claims)} claims checked: " + ", ".join(parts) + "."
    n, decided = records_decide(claims, scale_records)
    if n:
        out += (
            f" Records at scale exist for {n} of its training claims; the largest decides "
            f"{decided} of them either way."
        )
    agree = reading.seed_agreement(claims, seeds)
    if agree:
        out += " " + agree
    return out


def paper_line(app, claims: dict, paper: str) -> str:
    """A paper's line of counts with the verdicts that count, as the scorecard counts them
    (a decided confirmatory record's verdict before the book run's;
    :func:`rnnbook.book.ledger_sphinx.records_counting`)."""
    mine = [c for c in claims.values() if c["paper"] == paper]
    if not mine:
        raise ValueError(f"the ledger records no claim of {paper!r}")
    try:
        mine = ledger_sphinx.records_counting(app, mine)
    except OSError as e:
        raise ValueError(str(e)) from None
    try:
        seeds = ledger_sphinx._seed_records(app)
        scale = [r for r in ledger_sphinx._loaded(app) if not r["stale"]]
    except (OSError, ValueError, KeyError):
        seeds, scale = None, None
    return counts_text(mine, seeds, scale)


class PaperCountsDirective(SphinxDirective):
    """````{paper-counts} <paper>````: the paper's one line of counts, linked to the
    scorecard."""

    required_arguments = 1

    def run(self):
        paper = self.arguments[0]
        if paper not in PAPERS:
            raise self.error(
                f"paper-counts: {paper!r} is not one of {', '.join(PAPERS)}"
            )
        app = self.env.app
        claims = ledger_sphinx.load_claims(app)
        self.env.note_dependency(str(ledger_sphinx.claims_path(app)))
        if claims is None:
            raise self.error(
                f"paper-counts: no ledger at {ledger_sphinx.claims_path(app)}"
            )
        try:
            text = paper_line(app, claims, paper)
        except ValueError as e:
            raise self.error(f"paper-counts: {e}") from None
        up = "../" * self.env.docname.count("/")
        href = f"{up}book/scorecard.html#{pages._section_id(paper)}"
        text = html.escape(text)
        raw = (
            f'<p class="paper-counts">{text} '
            f'<a href="{html.escape(href)}">Every claim on the scorecard</a>.</p>'
        )
        return [nodes.raw("", raw, format="html")]


def setup(app) -> dict[str, Any]:
    app.add_directive("paper-counts", PaperCountsDirective)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
