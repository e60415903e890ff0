"""The book's own page check (:mod:`rnnbook.book.page_check`, issue 51), which ``make book``
runs on the book it rendered: it finds planted problems, and the smoke book passes it."""

from __future__ import annotations

import pytest

from rnnbook.book import page_check, reference

PLANTED = """<html><body><div class="bd-main"><article class="bd-article" style="width: 700px">
<h1>X</h1>
<div class="verdict-line" style="height: 300px">Verdicts</div>
<p>Some prose, {filler}</p>
<div class="admonition claim-box" style="height: 200px"><p>Found. It holds: True, over
4 seed(s), 1 cells, a 95% wilson interval, depth index -1, binom(T, 2) and x <= 2 in
m2_T1.</p></div>
<div class="cell_output"><img src="{img}" style="height: 40px; width: 600px"></div>
<div class="cell_input"><pre>UserWarning: this code block is code</pre></div>
<div class="output stderr"><p>x.py:1: UserWarning: the panels have no room</p></div>
<table><tr><td style="min-width: 1200px">a wide table</td><td>verdict</td></tr></table>
</article></div></body></html>"""

PIXEL = (
    "data:image/svg+xml;utf8,<svg xmlns='http://www.w3.org/2000/svg' width='600' "
    "height='400'></svg>"
)


def has_browser() -> bool:
    try:
        import playwright  # noqa: F401
    except ImportError:
        return False
    return page_check.browser_path() is not None


needs_browser = pytest.mark.skipif(
    not has_browser(), reason="no headless Chromium (make test installs it)"
)


def test_literals_in_words():
    found = " ".join(
        page_check.literals(
            "True; 4 seed(s); 1 cells; 95% wilson; depth index -1; binom(a, b); "
            "x <= 1; m2_T1"
        )
    )
    for what in ("boolean", "(s)", "plural", "wilson", "position", "binom", "ASCII"):
        assert what in found, (what, found)
    assert "code name" in found
    fine = "Four seeds, one cell, a Wilson interval, the deepest depth, x ≤ 1 (Fig. 2)."
    assert page_check.literals(fine) == []


@needs_browser
def test_the_check_finds_planted_problems(tmp_path):
    path = tmp_path / "notebooks" / "x.html"
    path.parent.mkdir()
    path.write_text(PLANTED.format(filler="words " * 40, img=PIXEL))
    tab = page_check.Tab()
    try:
        found, share = page_check.page_problems(tab.open(path), tmp_path, path)
    finally:
        tab.close()
    text = "\n".join(found)
    assert "warning text: UserWarning: the panels have no room" in text
    assert "this code block" not in text  # code is code
    assert "a table" in text and "px wide in a 700 px column" in text
    assert "a figure shown 40 px tall" in text
    for literal in ("'True'", "'seed(s)'", "'1 cells'", "'m2_T1'", "'<='", "'binom('"):
        assert literal in text, (literal, text)
    assert share is not None and share > 0.25 and "verdict apparatus" in text


@needs_browser
def test_the_smoke_book_passes_the_page_check(smoke_book):
    """Every page of the smoke book passes the page check (issue 51), run once: what must
    never reach a page outside the code reference (warning text, a collapsed figure) is
    reported first, then any problem on any page (a literal, a table wider than the
    column, a chapter whose apparatus is above a quarter of its height)."""
    problems, shares = page_check.check(smoke_book / "html")
    assert shares, "no chapter measured"
    hard = ("warning text", "a figure")
    bad = [
        f"{page}: {p}"
        for page, found in problems.items()
        for p in found
        if p.startswith(hard) and not reference.is_code_page(page)
    ]
    assert not bad, "\n".join(bad[:30])
    lines = [f"{page}: {p}" for page, found in problems.items() for p in found[:3]]
    assert not problems, "\n".join(lines[:40])


def test_a_page_that_only_redirects_is_not_checked(tmp_path):
    """``index.html`` sends the browser to the landing page: nothing on it to read."""
    (tmp_path / "index.html").write_text(
        '<meta http-equiv="Refresh" content="0; url=book/intro.html" />\n'
    )
    (tmp_path / "book").mkdir()
    (tmp_path / "book" / "intro.html").write_text("<html><body>Hi</body></html>")
    assert page_check.pages(tmp_path) == [tmp_path / "book" / "intro.html"]


LANDING = """<html><body><article class="bd-article"><h1>Book</h1>
<section id="what-the-book-found"><h2>What the book found</h2>
<section id="a"><h3>Paper A</h3><p>{short}</p><p class="paper-counts">{counts}</p></section>
<section id="b"><h3>Paper B</h3><p>{long} <span class="math">x^2</span></p></section>
</section></article></body></html>"""


@needs_browser
def test_the_landing_holds_each_paper_to_120_words(tmp_path):
    path = tmp_path / "book" / "intro.html"
    path.parent.mkdir()
    words = dict(short="word " * 119, counts="count " * 80, long="word " * 120)
    path.write_text(LANDING.format(**words))
    tab = page_check.Tab()
    try:
        found, _ = page_check.page_problems(tab.open(path), tmp_path, path)
    finally:
        tab.close()
    landing = [f for f in found if f.startswith("the landing's")]
    # Paper A: 119 words, its line of counts left out; Paper B: 120 and a formula
    assert landing == ["the landing's sentences on Paper B are 121 words (at most 120)"]
