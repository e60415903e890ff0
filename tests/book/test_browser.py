"""The rendered book in a real headless browser, with the network cut (ARCHITECTURE.md, *Chapters*).

Every page of the smoke build must load without JavaScript errors, have its math typeset by the bundled
MathJax (no raw ``\\(`` left), load every figure, and resolve every internal link. The browser is
Debian's ``chromium-headless-shell``, driven by Playwright's Python API; the set-up (``make test``)
installs it where it can. Where it cannot, the test says so and skips, except in CI, where it fails.
"""

from __future__ import annotations

import json
import os
import re
import shutil
from functools import lru_cache
from pathlib import Path
from urllib.parse import unquote, urlparse

import pytest

from rnnbook.book.ledger import row_id

CANDIDATES = ("chromium-headless-shell", "chromium", "chromium-browser")
SKIP_PAGES = {"genindex.html", "search.html", "py-modindex.html"}


def browser_path() -> str | None:
    if os.environ.get("RNNBOOK_CHROMIUM"):
        return os.environ["RNNBOOK_CHROMIUM"]
    return next((p for p in map(shutil.which, CANDIDATES) if p), None)


@pytest.fixture(scope="module")
def browser():
    exe = browser_path()
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        exe = None
    if exe is None:
        why = (
            "no headless Chromium (Debian's chromium-headless-shell) or no playwright: "
            "`make test` installs them where it runs as root"
        )
        if os.environ.get("CI") == "true":
            pytest.fail(why)
        pytest.skip(why)
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=exe)
        yield b
        b.close()


def pages(html: Path) -> list[Path]:
    return sorted(
        p
        for p in html.rglob("*.html")
        if "_static" not in p.parts
        and "_sources" not in p.parts
        and p.name not in SKIP_PAGES
    )


@lru_cache(maxsize=None)
def ids_of(path: Path) -> frozenset[str]:
    return frozenset(re.findall(r'\bid="([^"]+)"', path.read_text(errors="replace")))


MATH_LEFT = """() => {
  const body = document.querySelector('main') || document.body;
  const copy = body.cloneNode(true);
  copy.querySelectorAll('pre, code, script, style, mjx-container').forEach(e => e.remove());
  return copy.textContent;
}"""
IMAGES = """() => Array.from(document.images).filter(i => !(i.complete && i.naturalWidth > 0))
  .map(i => i.getAttribute('src'))"""
LINKS = "() => Array.from(document.querySelectorAll('a[href]')).map(a => a.getAttribute('href'))"


def offline_problems(page, path: Path) -> list[str]:
    """What is broken on a page opened offline (:func:`open_in`)."""
    problems = [f"JavaScript error: {e}" for e in page.errors]
    text = page.evaluate(MATH_LEFT)
    for raw in ("\\(", "\\[", "$$"):
        if raw in text:
            problems.append(f"math left untypeset: {raw!r} in the text")
    problems += [f"image does not load: {src}" for src in page.evaluate(IMAGES)]
    problems += [
        f"broken link: {h}" for h in page.evaluate(LINKS) if not link_ok(path, h)
    ]
    problems += [
        f"request outside the book: {u}" for u in page.outside if "mathjax" in u.lower()
    ]
    return problems


def redirect_of(path: Path) -> str | None:
    """index.html: a redirect stub to the first page (its target), else None."""
    found = re.search(
        r'http-equiv="refresh" content="0; url=([^"]+)"', path.read_text(), re.I
    )
    return found.group(1) if found else None


def link_ok(page: Path, href: str) -> bool:
    url = urlparse(href)
    if url.scheme in ("http", "https", "mailto", "javascript", "data") or url.netloc:
        return True
    target = page if not url.path else (page.parent / unquote(url.path)).resolve()
    if target.is_dir():
        target = target / "index.html"
    if not target.exists():
        return False
    return (
        not url.fragment
        or target.suffix != ".html"
        or unquote(url.fragment) in ids_of(target)
    )


def test_no_page_asks_a_cdn_for_mathjax(smoke_book):
    for path in pages(smoke_book / "html"):
        text = path.read_text(errors="replace")
        assert not re.search(r'src="https?://[^"]*mathjax', text, re.I), path


#: every element of the article must fit the page, or scroll inside a box of its own
TOO_WIDE = """() => {
  const article = document.querySelector('article') || document.querySelector('main');
  if (!article) return [];
  const W = document.documentElement.clientWidth;
  const right = Math.min(W, article.getBoundingClientRect().right) + 2;
  const scrolls = (e) => ['auto', 'scroll'].includes(getComputedStyle(e).overflowX);
  const out = [];
  if (document.documentElement.scrollWidth > W + 1)
    out.push(`the page scrolls sideways: ${document.documentElement.scrollWidth} px > ${W} px`);
  const sel = 'mjx-container, img, table, pre, div.math, p, li, h1, h2, h3, dl, .admonition';
  for (const el of article.querySelectorAll(sel)) {
    const r = el.getBoundingClientRect();
    if (r.width === 0 || r.height === 0) continue;
    let p = el.parentElement, inBox = false;
    while (p && p !== article) { if (scrolls(p)) { inBox = true; break; } p = p.parentElement; }
    const what = el.tagName.toLowerCase() + (el.className ? '.' + String(el.className).split(' ')[0] : '');
    if (!inBox && r.right > right) {
      out.push(`${what} ${Math.round(r.width)} px wide ends at ${Math.round(r.right)} px > ${Math.round(right)} px: `
        + (el.textContent || el.getAttribute('src') || '').trim().slice(0, 60));
    } else if (!inBox && /^(H[123]|P|LI)$/.test(el.tagName) && !scrolls(el)
               && el.scrollWidth > el.clientWidth + 1) {
      // the box fits but its text runs out of it (a title that is one long name)
      out.push(`${what}'s text is ${el.scrollWidth} px wide in its ${el.clientWidth} px: `
        + el.textContent.trim().slice(0, 60));
    }
  }
  return out.slice(0, 5);
}"""

#: the chapters' figures as displayed: size, file and alt text
FIGURES = """() => Array.from(document.querySelectorAll('article .cell_output img')).map(i => ({
  src: i.getAttribute('src'), alt: i.getAttribute('alt') || '',
  shown: i.getBoundingClientRect().width, natural: i.naturalWidth}))"""


#: the page's own script (legible.js) has fitted its tables and formulas to the article's
#: present width, the sidebar done sliding
FITTED = """() => {
  const a = document.querySelector('.bd-article');
  return !a || (document.getAnimations().every(x => x.playState !== 'running')
    && a.dataset.rnnbookFitted === String(Math.round(a.clientWidth)));
}"""


def offline_tab(browser, width: int):
    """A browser tab with the network cut (a context of its own, offline: close it with
    ``page.context.close()``) in which :func:`open_in` opens pages one after another; what a
    page asked from outside the book (and did not get) in ``page.outside``, its JavaScript
    errors in ``page.errors``. (Offline rather than every request routed through Playwright:
    a quarter faster; one tab for many pages: a fifth faster than a context for each.)"""
    context = browser.new_context(
        offline=True,
        viewport={"width": width, "height": 900},
        reduced_motion="reduce",  # no sliding sidebar to wait for (legible.css)
    )
    page = context.new_page()
    page.errors, page.outside = [], []
    page.on("pageerror", lambda e: page.errors.append(e))
    page.on(
        "request",
        lambda r: (
            None
            if r.url.startswith(("file://", "data:", "about:"))
            else page.outside.append(r.url)
        ),
    )
    return page


def open_in(page, path: Path, width: int):
    """``path`` opened in the tab ``page`` at ``width`` px, its math typeset and fitted."""
    page.errors.clear()
    page.outside.clear()
    if page.viewport_size["width"] != width:
        page.goto("about:blank")
        page.set_viewport_size({"width": width, "height": 900})
    page.goto(path.as_uri(), wait_until="load")
    page.evaluate(
        "() => window.MathJax && MathJax.startup ? MathJax.startup.promise : null"
    )
    page.wait_for_function(FITTED, timeout=10_000)
    return page


def figure_problems(page, path: Path) -> list[str]:
    """A chapter's figures: text >= 10 px as displayed, an alt text that describes them."""
    from rnnbook import plotting

    out = []
    for f in page.evaluate(FIGURES):
        name = f["src"].rsplit("/", 1)[-1]
        if not f["alt"] or f["alt"] == f["src"] or f["alt"].endswith((".svg", ".png")):
            out.append(f"figure {name} has no alt text describing it")
        rec = plotting.recorded_legibility(
            (path.parent / unquote(f["src"])).read_bytes()
        )
        if rec is None:
            out.append(f"figure {name} was not drawn by the book's figure style")
            continue
        pt, px_per_pt = rec
        shown = pt * px_per_pt * f["shown"] / max(f["natural"], 1)
        if shown < plotting.MIN_TEXT_PX - 0.05:
            out.append(
                f"figure {name}: smallest text {shown:.1f} px as displayed "
                f"({f['shown']:.0f} px wide, drawn {f['natural']} px)"
            )
    return out


#: the pages are checked in this many shares, so that pytest-xdist spreads them over its workers
SHARES = 12
share = pytest.mark.parametrize(
    "share", range(SHARES), ids=lambda i: f"{i + 1}of{SHARES}"
)


def phone_figure_problems(page) -> list[str]:
    """At a phone's width each chapter figure is scaled down to fit the screen (all of it in
    view, its legends too: nothing scrolls sideways), with the hint that a tap enlarges it."""
    boxes = page.evaluate(
        """() => Array.from(document.querySelectorAll('article .cell_output img')).map(i => {
          const r = i.getBoundingClientRect(), h = i.parentElement.nextElementSibling;
          const hinted = h && h.classList.contains('rnnbook-figure-hint');
          return {src: i.getAttribute('src'), right: r.right, shown: r.width,
                  natural: i.naturalWidth, box: getComputedStyle(i.parentElement).overflowX,
                  hint: hinted ? getComputedStyle(h).display : null};
        })"""
    )
    width = page.viewport_size["width"]
    out = []
    for f in boxes:
        name = f["src"].rsplit("/", 1)[-1]
        if f["right"] > width + 1 or f["box"] in ("auto", "scroll"):
            out.append(
                f"figure {name} does not fit the screen: ends at {f['right']:.0f} px "
                f"> {width} px (its box scrolls: {f['box']})"
            )
        if f["natural"] > f["shown"] + 1 and f["hint"] != "block":
            out.append(f"figure {name} is shown smaller than drawn with no hint")
    return out


def widen(page, width: int) -> None:
    """The page's window widened to ``width`` px (as a reader widens the window or turns a
    tablet): laid out again once its sidebar has slid in, and fitted again by the page's own
    script (legible.js) at the article's new width."""
    page.set_viewport_size({"width": width, "height": 900})
    page.wait_for_function(FITTED, timeout=10_000)


@share
def test_every_page_works_offline_on_a_phone_and_a_laptop(smoke_book, browser, share):
    """Each page, opened with the network cut at a phone's 400 px, then widened to a laptop's
    1280 px. It loads with no JavaScript error, its math typeset by the bundled MathJax, every
    figure and internal link resolving. At both widths no element runs out of the page (long
    equations and tables scroll in their own box); on a chapter, on the laptop every figure's
    text is >= 10 px as displayed, with an alt text, and on the phone each figure is scaled
    down to fit the screen, a tap enlarging it. (One load per page: what the page fits when it
    opens is checked at the phone's width, where it matters; the laptop's checks see the same
    page laid out again.)"""
    html = smoke_book / "html"
    problems = {}
    tab = offline_tab(browser, 400)
    for path in pages(html)[share::SHARES]:
        name = str(path.relative_to(html))
        target = redirect_of(path)
        if target is not None:  # index.html: a redirect stub
            if not link_ok(path, target):
                problems[name] = [f"broken redirect: {target}"]
            continue
        page = open_in(tab, path, 400)
        chapter = "notebooks" in path.parts
        phone = page.evaluate(TOO_WIDE) + offline_problems(page, path)
        phone += phone_figure_problems(page) if chapter else []
        seen = len(page.errors)
        widen(page, 1280)
        laptop = page.evaluate(TOO_WIDE) + (
            figure_problems(page, path) if chapter else []
        )
        laptop += [f"JavaScript error once widened: {e}" for e in page.errors[seen:]]
        for width, found in ((400, phone), (1280, laptop)):
            if found:
                problems[f"{name} at {width} px"] = found[:5]
    tab.context.close()
    assert not problems, "\n".join(f"{k}: {v}" for k, v in problems.items())


#: the scorecard's verdict and measured cells as laid out: where they end, their width, and
#: whether a box that scrolls sideways holds them
SCORECARD = """() => {
  const scrolls = (e) => { for (let p = e.parentElement; p; p = p.parentElement)
    if (['auto', 'scroll'].includes(getComputedStyle(p).overflowX)) return true;
    return false; };
  const cells = (k) => Array.from(document.querySelectorAll('table.scorecard td.col-' + k));
  return {
    verdicts: cells('verdict').map(c => [c.getBoundingClientRect().right, scrolls(c)]),
    measured: cells('measured').filter(c => !c.classList.contains('empty'))
      .map(c => c.getBoundingClientRect().width),
    empty: Array.from(document.querySelectorAll('table.scorecard td.empty'))
      .map(c => [c.textContent.trim(), getComputedStyle(c).display]),
    rows: Array.from(document.querySelectorAll('table.scorecard tbody tr'))
      .map(r => [r.id, r.getBoundingClientRect().height]),
    page: document.documentElement.scrollWidth,
  };
}"""
#: where the row a box links back to lands: its verdict's box on the screen
LANDED = """() => {
  const row = document.querySelector(':target');
  const v = row && row.querySelector('td.col-verdict .sd-badge');
  if (!v) return null;
  const r = v.getBoundingClientRect();
  const header = document.querySelector('.bd-header-article');
  return [r.top, r.bottom, r.left, r.right, header ? header.getBoundingClientRect().bottom : 0];
}"""


#: the scorecard at a laptop's width (a table) and a small laptop's or tablet's (a card per
#: claim): the least width its measured cells get there
SCORECARD_ROOM = {1280: 150, 1024: 500}
#: the tallest a scorecard row may be, two screens of 900 px: a row taller than that
#: shows more than its answer unfolded (a superseded run, every line of a long measurement)
ROW_MOST = 1800


@pytest.mark.parametrize("width", sorted(SCORECARD_ROOM))
def test_the_scorecard_shows_every_verdict_on_a_laptop(smoke_book, browser, width):
    """At 1280 px the scorecard's tables fit the page: no table scrolls sideways, every verdict
    is on the screen, the measured values have room (not one letter per line); a box's link
    back lands on a row whose verdict shows below the page's header. At 1024 px, where seven
    columns beside the sidebar left the measurements a few letters wide, each claim is a card
    whose measurements take the card's width. At both, no row is taller than two screens:
    what does not decide the row is folded."""
    html = smoke_book / "html"
    claims = json.loads((smoke_book / "claims.json").read_text())
    tab = offline_tab(browser, width)
    page = open_in(tab, html / "book" / "scorecard.html", width)
    found = page.evaluate(SCORECARD)
    assert len(found["verdicts"]) == len(claims)
    assert found["page"] <= width, found["page"]
    assert all(right <= width and not boxed for right, boxed in found["verdicts"])
    assert min(found["measured"]) >= SCORECARD_ROOM[width], min(found["measured"])
    # a cell with nothing in it: a line of the table, left out of a card
    shown = "table-cell" if width >= 1200 else "none"
    assert found["empty"] and all(e == ["—", shown] for e in found["empty"])
    tallest = max(found["rows"], key=lambda r: r[1])
    assert tallest[1] <= ROW_MOST, tallest
    for c in claims[:: max(1, len(claims) // 6)]:
        page.goto(f"{(html / 'book' / 'scorecard.html').as_uri()}#{row_id(c['id'])}")
        top, bottom, left, right, header = page.evaluate(LANDED)
        assert header <= top and bottom <= 900 and 0 <= left and right <= width, c["id"]
    tab.context.close()


#: on a phone, each scorecard card's verdict and box link: their tops, and the cards' empty
#: cells shown
PHONE_CARDS = """() => Array.from(document.querySelectorAll('table.scorecard tbody tr')).map(r => [
  r.querySelector('td.col-verdict').getBoundingClientRect().top,
  r.querySelector('td.col-box').getBoundingClientRect().top,
  Array.from(r.querySelectorAll('td.empty'))
    .filter(c => getComputedStyle(c).display !== 'none').length])"""


def test_a_scorecard_card_on_a_phone_is_its_answer(smoke_book, browser):
    """At 400 px each claim is a card: its link to the box on the verdict's line, and no
    line for a cell with nothing in it ("largest line cleared: —")."""
    tab = offline_tab(browser, 400)
    page = open_in(tab, smoke_book / "html" / "book" / "scorecard.html", 400)
    cards = page.evaluate(PHONE_CARDS)
    assert cards and all(abs(v - b) < 8 and shown == 0 for v, b, shown in cards)
    tab.context.close()


#: whole words (letters, at least four) of a claim table's cells that wrap inside themselves
#: ("Corollar" over "y"); words in code, formulas and soft-hyphenated headers left aside
SPLIT_WORDS = """() => {
  const out = [];
  for (const cell of document.querySelectorAll('table.claims-table td, table.claims-table th')) {
    const walk = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
    for (let n = walk.nextNode(); n; n = walk.nextNode()) {
      if (n.parentElement.closest('code, mjx-container')) continue;
      for (const m of n.data.matchAll(/(?<=^|\\s)[A-Za-z][A-Za-z+]{3,}(?=[.,:;)]*(\\s|$))/g)) {
        const r = document.createRange();
        r.setStart(n, m.index);
        r.setEnd(n, m.index + m[0].length);
        const tops = new Set(Array.from(r.getClientRects()).map(x => Math.round(x.top)));
        if (tops.size > 1) out.push(m[0]);
      }
    }
  }
  return out.slice(0, 5);
}"""


@pytest.mark.parametrize("width", (960, 1200, 1280))
def test_the_book_pages_fit_at_laptop_widths(smoke_book, browser, width):
    """The book's own pages (scorecard, errata, part pages, verdicts) at 960 px, the left
    sidebar beside the article, 1200 px, both sidebars and the article at its narrowest, and
    1280 px: nothing ends past the article and no claim table breaks a word inside itself
    (an auto-sized column squeezed below its longest word read "wh" over "ere" and
    "Corollar" over "y")."""
    html = smoke_book / "html"
    problems = {}
    tab = offline_tab(browser, width)
    for path in sorted((html / "book").glob("*.html")):
        page = open_in(tab, path, width)
        found = page.evaluate(TOO_WIDE) + [
            f"word broken inside: {w}" for w in page.evaluate(SPLIT_WORDS)
        ]
        if found:
            problems[path.name] = found
    tab.context.close()
    assert not problems, "\n".join(f"{k}: {v}" for k, v in problems.items())


def test_the_checks_find_planted_problems(browser, tmp_path):
    """A page with a JavaScript error, raw TeX, a missing image, a broken link, a paragraph
    wider than a phone and a title whose one long word runs out of it: each is reported."""
    page_file = tmp_path / "planted.html"
    page_file.write_text(
        "<html><body><article><p>\\(x^2\\)</p><img src='gone.png'>"
        "<a href='nowhere.html'>a</a><p style='width: 900px'>wide</p>"
        "<h1 style='font-size: 40px'>" + "rnnbook.lsc" * 6 + "</h1></article>"
        "<script>undefinedFunction()</script></body></html>"
    )
    tab = offline_tab(browser, 400)
    page = open_in(tab, page_file, 400)
    found = "\n".join(offline_problems(page, page_file) + page.evaluate(TOO_WIDE))
    tab.context.close()
    for what in ("JavaScript error", "untypeset", "gone.png", "nowhere.html", "900 px"):
        assert what in found, (what, found)
    for what in ("h1's text is", "rnnbook.lsc"):
        assert what in found, (what, found)
