"""The rendered book in a real headless browser, with the network cut (CONVENTIONS.md, *Chapters*).

Every page of the smoke build must load without JavaScript errors, have its math typeset by the bundled
MathJax (no raw ``\\(`` left), load every figure, and resolve every internal link. The browser is
Debian's ``chromium-headless-shell``, driven by Playwright's Python API; the set-up (``make test``)
installs it where it can. Where it cannot, the test says so and skips, except in CI, where it fails.
"""

from __future__ import annotations

import os
import re
import shutil
from functools import lru_cache
from pathlib import Path
from urllib.parse import unquote, urlparse

import pytest

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


def check_page(browser, path: Path) -> list[str]:
    """Open one page offline; return what is broken on it."""
    redirect = re.search(
        r'http-equiv="refresh" content="0; url=([^"]+)"', path.read_text(), re.I
    )
    if redirect:  # index.html: a redirect stub to the first page
        return (
            []
            if link_ok(path, redirect.group(1))
            else [f"broken redirect: {redirect[1]}"]
        )
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    problems, outside = [], []
    page.on("pageerror", lambda e: problems.append(f"JavaScript error: {e}"))

    def route(r):
        if r.request.url.startswith(("file://", "data:")):
            r.continue_()
        else:
            outside.append(r.request.url)
            r.abort()

    page.route("**/*", route)
    page.goto(path.as_uri(), wait_until="load")
    page.evaluate(
        "() => window.MathJax && MathJax.startup ? MathJax.startup.promise : null"
    )
    text = page.evaluate(MATH_LEFT)
    for raw in ("\\(", "\\[", "$$"):
        if raw in text:
            problems.append(f"math left untypeset: {raw!r} in the text")
    problems += [f"image does not load: {src}" for src in page.evaluate(IMAGES)]
    problems += [
        f"broken link: {h}" for h in page.evaluate(LINKS) if not link_ok(path, h)
    ]
    problems += [
        f"request outside the book: {u}" for u in outside if "mathjax" in u.lower()
    ]
    page.close()
    return problems


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


def test_every_page_works_offline(smoke_book, browser):
    html = smoke_book / "html"
    problems = {}
    for path in pages(html):
        found = check_page(browser, path)
        if found:
            problems[str(path.relative_to(html))] = found[:5]
    assert not problems, "\n".join(f"{k}: {v}" for k, v in problems.items())


def test_no_page_asks_a_cdn_for_mathjax(smoke_book):
    for path in pages(smoke_book / "html"):
        text = path.read_text(errors="replace")
        assert not re.search(r'src="https?://[^"]*mathjax', text, re.I), path
