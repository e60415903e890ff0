"""The smoke book as a reader sees it: claim boxes, the scorecard and the findings tables show
measured values written for reading (no Python dicts, no long floats, no ASCII math) and
statements typeset as math; no executed chapter shows a warning."""

import json
import re
from html.parser import HTMLParser
from pathlib import Path

from tests.book.test_browser import pages

MATH = '<span class="math notranslate nohighlight">'
#: ASCII math a reader should see typeset: a Greek letter spelt out (alone or with a
#: subscript), a norm bar pair, a square root, a power
ASCII = re.compile(
    r"(?<![\w.\-/])(?:rho|sigma|lambda|chi|tau|nu|mu|kappa|Sigma|alpha|beta|eta|phi)"
    r"(?:_\w+)?(?!\w)|\|\||sqrt\(|(?<!\w)[A-Za-z]\^[\w+]"
)


class Claims(HTMLParser):
    """The text of every claim box and claims table of a page (``parts``), and of their
    measured values: a box's paper and measured items, a table's paper and measured cells
    (``values``)."""

    VOID = ("br", "img", "hr", "input", "meta", "link", "wbr")
    CELLS = ("col-measured", "col-paper", "col-versus")

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.parts, self.values, self.depth, self.open = [], [], 0, []
        self.prose = []  # a box's text outside math and code
        self.skip = None  # the depth of the math or code element being read

    def handle_starttag(self, tag, attrs):
        classes = (dict(attrs).get("class") or "").split()
        if tag in self.VOID:
            return
        if not self.depth and ("claim-box" in classes or "claims-table" in classes):
            self.depth = 1
            self.open = [[1, "part", []]]
            self.open_prose = []
            return
        if not self.depth:
            return
        self.depth += 1
        if self.skip is None and (tag in ("code", "pre") or "math" in classes):
            self.skip = self.depth
        if tag == "li" or (tag == "td" and set(classes) & set(self.CELLS)):
            self.open.append([self.depth, "item", []])

    def handle_endtag(self, tag):
        if not self.depth or tag in self.VOID:
            return
        while self.open and self.open[-1][0] == self.depth:
            _, kind, text = self.open.pop()
            text = "".join(text)
            if kind == "part":
                self.parts.append(text)
                self.prose.append("".join(self.open_prose))
            elif text.lstrip().startswith(("paper", "measured")) or tag == "td":
                self.values.append(text)
        if self.skip == self.depth:
            self.skip = None
        self.depth -= 1

    def handle_data(self, data):
        for entry in self.open:
            entry[2].append(data)
        if self.depth and self.skip is None:
            self.open_prose.append(data)


def claim_texts(path) -> tuple[list[str], list[str]]:
    parser = Claims()
    parser.feed(path.read_text(errors="replace"))
    return parser.parts, parser.values


def claim_prose(path) -> list[str]:
    """The text of each claim box and claims table outside its math and code."""
    parser = Claims()
    parser.feed(path.read_text(errors="replace"))
    return parser.prose


def test_boxes_and_tables_show_values_for_reading_and_statements_as_math(smoke_book):
    html = smoke_book / "html"
    problems, seen, values = [], 0, 0
    for path in pages(html):
        parts, measured = claim_texts(path)
        seen += len(parts)
        values += len(measured)
        for text in measured:  # a box's paper and measured items, a table's cells
            where = f"{path.relative_to(html)}: {text[:80]!r}"
            if re.search(r"[{\[]['\u2018\u201c\"]", text):
                problems.append(f"a Python dict or list: {where}")
            if (m := re.search(r"\d\.\d{7,}", text)) is not None:
                problems.append(f"a float with {len(m[0]) - 2} decimals: {where}")
        for text in parts:
            where = f"{path.relative_to(html)}: {text[:80]!r}"
            if (m := re.search(r"\$[^$\s][^$]*\$", text)) is not None:
                problems.append(f"raw TeX {m[0]!r}: {where}")
        for text in claim_prose(path):
            if (m := ASCII.search(text)) is not None:
                around = text[max(0, m.start() - 40) : m.end() + 40]
                problems.append(
                    f"ASCII math {m[0]!r}: {path.relative_to(html)}: {around!r}"
                )
    assert seen > 50 and values > 100 and not problems, "\n".join(problems[:10])
    claims = json.loads((smoke_book / "claims.json").read_text())
    with_math = [c for c in claims if "$" in c["statement"]]
    assert with_math
    scorecard = (html / "book" / "scorecard.html").read_text()
    assert scorecard.count(MATH) >= len(with_math)
    assert "mathjax/tex-chtml.js" in scorecard  # the page loads the bundled MathJax
    box = next(
        (
            p
            for c in with_math
            if (p := html / f"{c['chapter']}.html").exists()
            and f'id="{c["id"]}"' in p.read_text()
        ),
        None,
    )
    assert box is not None and MATH in box.read_text()


def output_texts(notebook: Path):
    """``(cell index, text)`` of every output of an executed notebook a reader sees: streams,
    text of any kind (plain, HTML, Markdown, LaTeX) and errors."""
    cells = json.loads(notebook.read_text())["cells"]
    for i, cell in enumerate(cells):
        for out in cell.get("outputs", []):
            kind = out["output_type"]
            if kind == "stream":
                yield i, "".join(out["text"])
            elif kind == "error":
                yield i, f"{out['ename']}: {out['evalue']}"
            else:
                for mime, data in out.get("data", {}).items():
                    if mime.startswith("text/"):
                        yield i, "".join(data)


def warnings_in(notebook: Path) -> list[str]:
    """Each output line of an executed notebook that shows a warning."""
    return [
        f"cell {i}: {line.strip()[:200]}"
        for i, text in output_texts(notebook)
        for line in text.splitlines()
        if "Warning" in line
    ]


def test_no_executed_chapter_shows_a_warning(smoke_book):
    """No warning text reaches a page (ARCHITECTURE.md, *Chapters*): no output of any executed
    chapter of the smoke book contains "Warning" (a warning is fixed where it arises, e.g. a
    figure whose layout collapsed, never silenced for the whole book)."""
    stage = smoke_book / "stage"
    chapters = sorted((stage / "notebooks").rglob("*.ipynb"))
    assert len(chapters) >= 20, chapters
    found = [f"{nb.relative_to(stage)} {w}" for nb in chapters for w in warnings_in(nb)]
    assert not found, "\n".join(found)


def test_a_planted_warning_is_found(tmp_path):
    nb = tmp_path / "c.ipynb"
    out = {
        "output_type": "stream",
        "name": "stderr",
        "text": ["x.py:1: User", "Warning: "],
    }
    ok = {"output_type": "display_data", "data": {"text/plain": ["fine"]}}
    nb.write_text(json.dumps({"cells": [{"outputs": [ok]}, {"outputs": [out]}]}))
    assert warnings_in(nb) == ["cell 1: x.py:1: UserWarning:"]


# Figures on a phone (scaled to the screen, a tap enlarges them): checked with the other 400 px
# checks, in tests/book/test_browser.py (phone_figure_problems), so that each page loads once.
