"""Code literals turned into words on the rendered page (issue 51): the measured texts the
paper rooms write ("binom(t, l)", "True", "1 steps", "<=") reach the boxes, the scorecard,
the part pages and the errata. They are written by code that records pin (a change there
voids a running record), so the page, not the record, words them: :func:`plain` on every
piece of prose at render time (:func:`rnnbook.book.ledger_sphinx.plain_page`), never inside
code, literals or math."""

from __future__ import annotations

import re

_BOOL = re.compile(r"(?<![\w`'\"])(True|False)(?![\w`'\"])")
_ONE = re.compile(r"(?<![\d.])1 (cell|seed|run|trial|step)s\b")
_CMP = {"<=": "≤", ">=": "≥", "!=": "≠"}
_OPEN = re.compile(r"\bbinom\(")
_BINOM = re.compile(
    r"\bbinom\(\s*([^(),]+(?:\([^()]*\))?[^(),]*),\s*([^()]+(?:\([^()]*\))?[^()]*)\)"
)


def plain(text: str) -> str:
    """``text`` with its code literals in words: ``True``/``False`` as yes/no, ``1 steps``
    as ``1 step``, ``<=`` as ``≤``, ``binom(a, b)`` as ``C(a, b)``."""
    text = _BINOM.sub(lambda m: f"C({m[1].strip()}, {m[2].strip()})", text)
    text = _OPEN.sub("C(", text)  # its arguments in another node (math, emphasis)
    text = _BOOL.sub(lambda m: "yes" if m[1] == "True" else "no", text)
    text = _ONE.sub(lambda m: f"1 {m[1]}", text)
    for a, b in _CMP.items():
        text = text.replace(a, b)
    return text


_TAG = re.compile(
    r"(<(?:code|pre|script|style|math)\b.*?</(?:code|pre|script|style|math)>"
    r"|<[^>]+>|\\\(.*?\\\)|\$[^$]*\$)",
    re.S,
)


def plain_html(html: str) -> str:
    """:func:`plain` on the text of an HTML fragment: tags, code, scripts and math
    (``\\(...\\)``, ``$...$``) as they are."""
    parts = _TAG.split(html)
    return "".join(p if i % 2 else plain(p) for i, p in enumerate(parts))
