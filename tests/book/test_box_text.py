"""Claim boxes written for people (issue 42, item 2), on the rendered smoke book: outside
math and the folded rule code, no box shows Python literals, ASCII formulas, raw TeX or a
page named as a file instead of linked."""

import re
from html.parser import HTMLParser

from tests.book.test_browser import pages

_N = r"-?\d[\d.]*(?:e[-+]?\d+)?"
PROBLEMS = {
    "a Python list": re.compile(
        r"(?<![\d%)]\s)(?<![\d%)])\[\s*" + _N + r"\s*,\s*" + _N + r"\s*\]"
        r"|\[\s*" + _N + r"(?:\s*,\s*" + _N + r"){2,}\s*,?\s*(?:\.\.\.)?\]"
        r"|\[\s*'|\{\s*'"
    ),
    "a Python boolean": re.compile(r"\b(?:True|False)\b"),
    "nan": re.compile(r"\bnan\b"),
    "ASCII math": re.compile(
        r"sqrt\(|\w\^[\w({*]|\|[^|\s][^|]{0,40}\||_\{"
        r"|\b(?:alpha|beta|gamma|delta|lambda|mu|nu|rho|sigma|tau|chi|phi|theta)_\w"
    ),
    "raw TeX": re.compile(r"\\[a-zA-Z]{2,}"),
    "a page named, not linked": re.compile(r"\bbook/\w+\.md\b"),
    "a template field left unfilled": re.compile(r"\{[A-Za-z_]\w*(?:[:!][^{}]*)?\}"),
}


class BoxText(HTMLParser):
    """The text of every claim box of a page, without its math, code, links and the
    folded rule code (which may show code)."""

    VOID = ("br", "img", "hr", "input", "meta", "link", "wbr", "col")

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.boxes, self.depth, self.skip = [], 0, 0

    def handle_starttag(self, tag, attrs):
        if tag in self.VOID:
            return
        classes = (dict(attrs).get("class") or "").split()
        if not self.depth:
            if "claim-box" in classes:
                self.depth = 1
                self.boxes.append([])
            return
        self.depth += 1
        if self.skip or (
            tag in ("code", "pre", "a", "script", "style")
            or "math" in classes
            or "claim-code" in classes
        ):
            self.skip += 1

    def handle_endtag(self, tag):
        if not self.depth or tag in self.VOID:
            return
        self.depth -= 1
        if self.skip:
            self.skip -= 1

    def handle_data(self, data):
        if self.depth and not self.skip:
            self.boxes[-1].append(data)


def box_problems(text: str) -> list[str]:
    """What a box's text (outside math, code and links) shows that a reader should not
    see."""
    out = []
    for what, pattern in PROBLEMS.items():
        for m in pattern.finditer(text):
            out.append(
                f"{what} {m[0]!r} in ...{text[max(0, m.start() - 40) : m.end()]}"
            )
    return out


def test_box_problems_find_code_in_text():
    assert box_problems("depths [2, 4, 8] and x [0.1, 0.2]")
    assert not box_problems("gap 0.59 [0.41, 0.75] against a line of 0.54")
    assert box_problems("decays: True")
    assert box_problems("gap nan")
    assert box_problems("|lambda_k| ~ chi_{2k}/sqrt(2)")
    assert box_problems("rho_t = 0.5")
    assert box_problems(r"-\mathbb{E}[x]")
    assert box_problems("see book/verdicts.md")
    assert box_problems("{'tanh': 1}")
    assert box_problems("ended within {tol} of its target")
    assert box_problems("a growth of {growth_one:.3g}")
    assert not box_problems("the mean over seeds, with its Student-t interval")


def test_boxes_show_no_code_ascii_math_raw_tex_or_unlinked_pages(smoke_book):
    html = smoke_book / "html"
    problems, boxes = [], 0
    for path in pages(html):
        parser = BoxText()
        parser.feed(path.read_text(errors="replace"))
        boxes += len(parser.boxes)
        for box in parser.boxes:
            text = " ".join("".join(box).split())
            problems += [f"{path.relative_to(html)}: {p}" for p in box_problems(text)]
    assert boxes > 50, boxes
    assert not problems, f"{len(problems)} problem(s):\n" + "\n".join(problems[:25])
