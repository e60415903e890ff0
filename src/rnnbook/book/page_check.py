"""The rendered book checks its own pages (issue 51): what a reader would trip over.

``python -m rnnbook.book.page_check _build/html`` opens every page in a headless Chromium
(Playwright, the browser of the browser test), at a laptop's 1280 px with every fold closed,
and prints what fails:

* **warning text** on a page (a ``UserWarning`` that leaked from a cell);
* a **figure** shown too small to read (an image under 120 px tall: panels collapsed);
* a **table wider than its column** (its last column, the verdict, off the page or
  scrolled out of sight);
* a **code literal** in prose or a claim box: ``True``, ``seed(s)``, ``1 cells``,
  ``95% wilson``, ``binom(``, ``<=``, ``depth index -1``, a dictionary key such as
  ``m2_T1``;
* a chapter whose **verdict apparatus** (its verdict line, claim boxes and closing verdicts,
  folds closed) is more than a quarter of its height;
* on the landing page, a paper's sentences under "What the book found" (its line of counts
  left out) longer than 120 words.

:func:`check` returns the problems per page; :func:`apparatus_shares` each chapter's share
(``benchmarks/apparatus_share.py`` prints them). The smoke book's tests run the same checks.
"""

from __future__ import annotations

import argparse
import re
import shutil
import sys
from pathlib import Path

from .reference import is_code_page

WIDTH = 1280
APPARATUS_LIMIT = 0.25
MIN_FIGURE_PX = 120  # a figure shown lower than this has collapsed panels
LANDING_WORDS = 120  # a paper's plain sentences on the landing page, at most
SKIP = {"genindex.html", "search.html", "py-modindex.html"}
BROWSERS = ("chromium-headless-shell", "chromium", "chromium-browser")

#: what counts as verdict apparatus on a chapter: its one line of verdicts, the claim
#: boxes (their folds closed), the seed check and the closing "Verdicts" section
APPARATUS_SELECTOR = (
    ".verdict-line, div.findings, .claim-box, .seed-check, section#verdicts, "
    ".rules-history"
)

#: the height of a chapter's article and of its apparatus (outermost elements only)
APPARATUS_JS = """(sel) => {
  const a = document.querySelector('article.bd-article') || document.querySelector('article')
    || document.querySelector('main');
  if (!a) return null;
  document.querySelectorAll('details[open]').forEach(d => d.open = false);
  const all = Array.from(a.querySelectorAll(sel));
  const outer = all.filter(e => !all.some(o => o !== e && o.contains(e)));
  const h = (e) => e.getBoundingClientRect().height;
  return {total: h(a), apparatus: outer.reduce((s, e) => s + h(e), 0),
          parts: outer.length};
}"""

#: the visible text a reader reads as prose: paragraphs, list items, table cells, captions,
#: summaries (code, math and the code cells' inputs left out)
PROSE_JS = """() => {
  const a = document.querySelector('article') || document.querySelector('main');
  if (!a) return [];
  const copy = a.cloneNode(true);
  copy.querySelectorAll('pre, code, script, style, mjx-container, .math, .cell_input, '
    + '.highlight, .claim-code, svg, .rnnbook-scale, dl.py, .sig').forEach(e => e.remove());
  const out = [];
  copy.querySelectorAll('p, li, td, th, figcaption, summary, dd, h1, h2, h3, .admonition-title')
    .forEach(e => { const t = e.textContent.replace(/\\s+/g, ' ').trim(); if (t) out.push(t); });
  return out;
}"""

#: warning text anywhere on the page but inside the code a reader reads as code
WARNINGS_JS = """() => {
  const a = document.querySelector('article') || document.querySelector('main');
  if (!a) return [];
  const copy = a.cloneNode(true);
  copy.querySelectorAll('.cell_input, script, style').forEach(e => e.remove());
  const t = copy.textContent;
  const m = t.match(/[A-Za-z]*Warning:[^\\n]{0,80}/g);
  return m ? m : [];
}"""

#: an output shown as its Python ``repr`` (a display object with nothing to show in its
#: place, e.g. ``Markdown("")``), outside the code a reader reads as code
REPRS_JS = """() => {
  const a = document.querySelector('article') || document.querySelector('main');
  if (!a) return [];
  const copy = a.cloneNode(true);
  copy.querySelectorAll('.cell_input, script, style').forEach(e => e.remove());
  const m = copy.textContent.match(/<[A-Za-z_][\\w.]* object( at 0x[0-9a-f]+)?>/g);
  return m ? m : [];
}"""

#: tables wider than the column they stand in (scrolling inside a box of their own included)
WIDE_TABLES_JS = """() => {
  const a = document.querySelector('article.bd-article') || document.querySelector('article');
  if (!a) return [];
  const col = a.getBoundingClientRect();
  const out = [];
  for (const t of a.querySelectorAll('table')) {
    const r = t.getBoundingClientRect();
    if (r.width === 0) continue;
    if (r.right > col.right + 2 || t.scrollWidth > col.width + 2) {
      const first = (t.querySelector('th, td') || t).textContent.trim().slice(0, 40);
      out.push(`a table ${Math.round(Math.max(r.width, t.scrollWidth))} px wide in a `
        + `${Math.round(col.width)} px column (first cell: ${first})`);
    }
  }
  return out;
}"""

#: the landing page's words per paper: each section under "What the book found", its
#: heading and line of counts left out, a formula counted as one word
LANDING_JS = """() => {
  const found = document.querySelector('section#what-the-book-found');
  if (!found) return [];
  return Array.from(found.querySelectorAll(':scope > section')).map(sec => {
    const title = (sec.querySelector('h2, h3, h4') || sec).textContent.replace('#', '').trim();
    const copy = sec.cloneNode(true);
    copy.querySelectorAll('h2, h3, h4, .paper-counts, script, style').forEach(e => e.remove());
    copy.querySelectorAll('mjx-container, .math').forEach(e => e.replaceWith(' formula '));
    const t = copy.textContent.replace(/\\s+/g, ' ').trim();
    return {title: title, words: t ? t.split(' ').length : 0};
  });
}"""

#: figures as displayed: their height
FIGURES_JS = """() => Array.from(document.querySelectorAll('article .cell_output img'))
  .map(i => ({src: i.getAttribute('src'), h: i.getBoundingClientRect().height,
              natural: i.naturalHeight}))"""

#: code literals a reader should never meet in prose or a box, each with what to write
LITERALS = (
    (re.compile(r"(?<![\w`'\"])(?:True|False)(?![\w`'\"])"), "a Python boolean"),
    (re.compile(r"\bseed\(s\)|\bcell\(s\)|\brun\(s\)"), "a plural written '(s)'"),
    (
        re.compile(r"(?<![\d.])1 (?:cells|seeds|runs|trials|steps)\b"),
        "'1' with a plural",
    ),
    (re.compile(r"\b\d+% wilson\b"), "'wilson' in lower case"),
    (re.compile(r"\bdepth index -?\d"), "a position index for a depth"),
    (re.compile(r"\bbinom\("), "'binom(...)' as text"),
    (re.compile(r"<=|>=|!="), "an ASCII comparison"),
    (
        re.compile(
            r"(?<![\w./#-])[a-z][a-z0-9]*_[A-Za-z0-9]+(?:_[A-Za-z0-9]+)*(?![\w/(-]|\.\w)"
        ),
        "a code name (a dictionary key or variable)",
    ),
)


def literals(text: str) -> list[str]:
    """The code literals of one piece of prose, each with a few words around it."""
    out = []
    for pattern, what in LITERALS:
        for m in pattern.finditer(text):
            around = text[max(0, m.start() - 30) : m.end() + 30]
            out.append(f"{what}: {m[0]!r} in '…{around}…'")
    return out


def redirects(path: Path) -> bool:
    """A page that only sends the browser on (``index.html`` to the landing page)."""
    with open(path, "rb") as f:
        head = f.read(600).lower()
    return b'http-equiv="refresh"' in head


def pages(html: Path) -> list[Path]:
    return sorted(
        p
        for p in Path(html).rglob("*.html")
        if "_static" not in p.parts
        and "_sources" not in p.parts
        and "results" not in p.parts
        and p.name not in SKIP
        and not redirects(p)
    )


def is_chapter(html: Path, path: Path) -> bool:
    return path.relative_to(html).parts[0] == "notebooks"


def browser_path() -> str | None:
    import os

    if os.environ.get("RNNBOOK_CHROMIUM"):
        return os.environ["RNNBOOK_CHROMIUM"]
    return next((p for p in map(shutil.which, BROWSERS) if p), None)


class Tab:
    """One offline browser tab at ``width`` px, opening pages one after another."""

    def __init__(self, width: int = WIDTH, dark: bool = False):
        from playwright.sync_api import sync_playwright

        exe = browser_path()
        if exe is None:
            raise RuntimeError("no headless Chromium (chromium-headless-shell) found")
        self._p = sync_playwright().start()
        self._b = self._p.chromium.launch(executable_path=exe)
        self.context = self._b.new_context(
            offline=True,
            viewport={"width": width, "height": 900},
            reduced_motion="reduce",
            color_scheme="dark" if dark else "light",
        )
        self.page = self.context.new_page()

    def open(self, path: Path):
        for attempt in range(3):  # a page that navigates on load is opened again
            try:
                self.page.goto(Path(path).resolve().as_uri(), wait_until="load")
                self.page.evaluate(
                    "() => window.MathJax && MathJax.startup ? "
                    "MathJax.startup.promise : null"
                )
                self.page.wait_for_timeout(150)
                return self.page
            except Exception:
                if attempt == 2:
                    raise
                self.page.wait_for_timeout(500)
        return self.page

    def close(self) -> None:
        self.context.close()
        self._b.close()
        self._p.stop()


def page_problems(page, html: Path, path: Path) -> tuple[list[str], float | None]:
    """What fails on one opened page, and (for a chapter) its apparatus share."""
    out = [f"warning text: {w}" for w in page.evaluate(WARNINGS_JS)]
    out += [f"an output shown as its repr: {r}" for r in page.evaluate(REPRS_JS)]
    out += page.evaluate(WIDE_TABLES_JS)
    for f in page.evaluate(FIGURES_JS):
        if not f["natural"]:
            out.append(f"a figure does not load: {f['src']}")
        elif 0 < f["h"] < MIN_FIGURE_PX:
            out.append(f"a figure shown {f['h']:.0f} px tall: {f['src']}")
    for sec in page.evaluate(LANDING_JS):
        if sec["words"] > LANDING_WORDS:
            out.append(
                f"the landing's sentences on {sec['title']} are {sec['words']} words "
                f"(at most {LANDING_WORDS})"
            )
    if not is_code_page(path.relative_to(html).as_posix()):
        for text in page.evaluate(PROSE_JS):
            out += literals(text)
    share = None
    if is_chapter(html, path):
        got = page.evaluate(APPARATUS_JS, APPARATUS_SELECTOR)
        if got and got["total"] > 0:
            share = got["apparatus"] / got["total"]
            if share > APPARATUS_LIMIT:
                out.append(
                    f"verdict apparatus {share:.0%} of the page's height "
                    f"(at most {APPARATUS_LIMIT:.0%})"
                )
    return list(dict.fromkeys(out)), share


def check(html: Path, only=None) -> tuple[dict[str, list[str]], dict[str, float]]:
    """Every page's problems (by page) and every chapter's apparatus share."""
    html = Path(html)
    tab = Tab(WIDTH)
    problems, shares = {}, {}
    try:
        for path in pages(html):
            name = str(path.relative_to(html))
            if only and not any(o in name for o in only):
                continue
            if 'http-equiv="refresh"' in path.read_text(errors="replace")[:2000]:
                continue  # a redirect stub
            try:
                found, share = page_problems(tab.open(path), html, path)
            except Exception as e:  # a page that cannot be opened is a problem too
                found, share = [f"could not be checked: {str(e)[:120]}"], None
            if found:
                problems[name] = found
            if share is not None:
                shares[name] = share
    finally:
        tab.close()
    return problems, shares


def apparatus_shares(html: Path, only=None) -> dict[str, float]:
    """Each chapter's verdict apparatus as a share of its height at 1280 px."""
    html = Path(html)
    tab = Tab(WIDTH)
    out = {}
    try:
        for path in pages(html):
            name = str(path.relative_to(html))
            if not is_chapter(html, path) or (
                only and not any(o in name for o in only)
            ):
                continue
            got = tab.open(path).evaluate(APPARATUS_JS, APPARATUS_SELECTOR)
            if got and got["total"] > 0:
                out[name] = got["apparatus"] / got["total"]
    finally:
        tab.close()
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m rnnbook.book.page_check")
    ap.add_argument("html", nargs="?", default="_build/html")
    ap.add_argument("--only", action="append", help="pages whose path contains this")
    ap.add_argument("--strict", action="store_true", help="exit 1 when a page fails")
    ap.add_argument("--most", type=int, default=8, help="problems shown per page")
    args = ap.parse_args(argv)
    if browser_path() is None:
        print("page check skipped: no headless Chromium (chromium-headless-shell)")
        return 0
    problems, shares = check(Path(args.html), args.only)
    print(f"page check of {args.html} at {WIDTH} px, folds closed:")
    for name, share in sorted(shares.items()):
        mark = "" if share <= APPARATUS_LIMIT else "  (over a quarter)"
        print(f"  apparatus {share:5.1%}  {name}{mark}")
    for name, found in problems.items():
        print(f"{name}: {len(found)} to fix")
        for p in found[: args.most]:
            print(f"  - {p}")
        if len(found) > args.most:
            print(f"  - ... and {len(found) - args.most} more")
    if not problems:
        print("every page passed")
    return 1 if problems and args.strict else 0


if __name__ == "__main__":
    sys.exit(main())
