"""The smoke book as a reader sees it: claim boxes, the scorecard and the findings tables show
measured values written for reading (no Python dicts, no long floats) and statements typeset
as math; on a phone, figures keep the size they were drawn at, in a box that scrolls sideways."""

import json
import re
from html.parser import HTMLParser

from tests.book.test_browser import pages

MATH = '<span class="math notranslate nohighlight">'


class Claims(HTMLParser):
    """The text of every claim box and claims table of a page (``parts``), and of their
    measured values: a box's paper and measured items, a table's paper and measured cells
    (``values``)."""

    VOID = ("br", "img", "hr", "input", "meta", "link", "wbr")
    CELLS = ("col-measured", "col-paper", "col-versus")

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.parts, self.values, self.depth, self.open = [], [], 0, []

    def handle_starttag(self, tag, attrs):
        classes = (dict(attrs).get("class") or "").split()
        if tag in self.VOID:
            return
        if not self.depth and ("claim-box" in classes or "claims-table" in classes):
            self.depth = 1
            self.open = [[1, "part", []]]
            return
        if not self.depth:
            return
        self.depth += 1
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
            elif text.lstrip().startswith(("paper", "measured")) or tag == "td":
                self.values.append(text)
        self.depth -= 1

    def handle_data(self, data):
        for entry in self.open:
            entry[2].append(data)


def claim_texts(path) -> tuple[list[str], list[str]]:
    parser = Claims()
    parser.feed(path.read_text(errors="replace"))
    return parser.parts, parser.values


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


# Figures on a phone (drawn size, a box that scrolls): checked with the other 400 px checks,
# in tests/book/test_browser.py (phone_figure_problems), so that each page loads once.
