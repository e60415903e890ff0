"""A small Sphinx extension of the book's own: each page loads every script once.

sphinx-thebe adds its inline configuration script at every ``env-before-read-docs``, which jupyter-book
fires twice, so every page declared ``const THEBE_JS_URL`` twice: a JavaScript error on every page.
"""

from __future__ import annotations

from typing import Any


def _dedupe_scripts(app, pagename, templatename, context, doctree) -> None:
    seen, unique = set(), []
    for script in context.get("script_files", []):
        attrs = getattr(script, "attributes", {}) or {}
        key = (getattr(script, "filename", None) or "", attrs.get("body"))
        if key not in seen:
            seen.add(key)
            unique.append(script)
    context["script_files"] = unique


def setup(app) -> dict[str, Any]:
    app.connect("html-page-context", _dedupe_scripts, priority=900)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
