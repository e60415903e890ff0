"""A small Sphinx extension of the book's own.

* The package's docstrings are plain text with maths in it (``|lambda_k|``, ``|a / b - 1|``); in
  reStructuredText a pair of pipes is a substitution reference, an error under ``-W``. The API page
  shows them literally.
* sphinx-thebe adds its inline configuration script at every ``env-before-read-docs``, which
  jupyter-book fires twice, so every page declared ``const THEBE_JS_URL`` twice: a JavaScript error on
  every page. Each page now loads every script once.
* The scorecard's page leaves out the table of contents beside the article, so that its tables
  can take the page's width.
* Its ``env_version`` is the book room's sources (:func:`room_version`): Sphinx reads every page
  again when it changes, so that no page keeps what an older version of the room rendered.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path
from typing import Any

_PIPE = re.compile(r"(?<!\\)\|")


def _literal_pipes(app, what, name, obj, options, lines: list[str]) -> None:
    for i, line in enumerate(lines):
        lines[i] = _PIPE.sub(r"\\|", line)


def _dedupe_scripts(app, pagename, templatename, context, doctree) -> None:
    seen, unique = set(), []
    for script in context.get("script_files", []):
        attrs = getattr(script, "attributes", {}) or {}
        key = (getattr(script, "filename", None) or "", attrs.get("body"))
        if key not in seen:
            seen.add(key)
            unique.append(script)
    context["script_files"] = unique


def _wide_scorecard(app, pagename, templatename, context, doctree) -> None:
    """The scorecard's page has no table of contents beside it: its tables take the page's
    width, so that every verdict shows without scrolling sideways (``rnnbook.css``)."""
    if 'class="claims-table scorecard"' in context.get("body", ""):
        context["meta"] = {
            **(context.get("meta") or {}),
            "html_theme.sidebar_secondary.remove": True,
        }


def room_version(folder: Path = Path(__file__).parent) -> int:
    """The book room's modules (``folder``) as one number. Sphinx keeps each extension's
    ``env_version`` with its saved environment and reads every page again when it differs:
    without it, a changed transform (a fold, a word) reached only the pages whose own
    sources changed, and an incremental ``make book`` mixed old and new pages."""
    h = hashlib.sha256()
    for path in sorted(Path(folder).glob("*.py")):
        h.update(path.name.encode() + b"\0" + path.read_bytes())
    return int(h.hexdigest()[:8], 16)


def setup(app) -> dict[str, Any]:
    app.connect("autodoc-process-docstring", _literal_pipes)
    app.connect("html-page-context", _dedupe_scripts, priority=900)
    app.connect("html-page-context", _wide_scorecard)
    # plain-text titles for tabs, search and cross-references; figures' alt text
    app.setup_extension("rnnbook.book.legible_sphinx")
    # the landing page's line of counts per paper, linked to the scorecard
    app.setup_extension("rnnbook.book.landing_sphinx")
    return {
        "parallel_read_safe": True,
        "parallel_write_safe": True,
        "env_version": room_version(),
    }
