"""How much rides on a line (issue 49): for each effect of a claim, the largest line its 95%
interval clears, beside the paper's effect and the line the claim is decided on, and whose
number that line is (the paper's, or the book's own where the paper gives no size).

The engine keeps the number (``clears``, :func:`rnnbook.book.claims.clears`); a record
written before it did is given it here from its interval. The claim box says it in a
sentence (:func:`line_words`), the scorecard in a column (:func:`line_cell`).
"""

from __future__ import annotations

import html
import math
from typing import Any

from . import claims as _claims
from .reading import num, prose_html


def cleared(e: dict) -> float | None:
    """The largest line an effect's 95% interval clears; ``None`` without a finite one."""
    if "clears" in e:
        x = e["clears"]
        return float(x) if isinstance(x, (int, float)) and math.isfinite(x) else None
    try:
        lo, hi = float(e["lo"]), float(e["hi"])
        return _claims.clears(e["direction"], lo, hi, float(e.get("null") or 0))
    except (KeyError, TypeError, ValueError):
        return None


def _band(x: Any) -> str:
    return "±" + str(num(x) or "—").lstrip("-")


def line_words(e: dict) -> str | None:
    """``the data support an effect of at least 0.12; the paper reports 0.3; the book's
    line is 0.05``: what the interval clears (at most, for an effect below its line; the
    narrowest band, for a claim of no effect), the paper's effect and the line, with
    whose number it is. ``None`` for an effect left out or without a finite interval."""
    x = cleared(e)
    if x is None or not e.get("in_setting", True):
        return None
    d = e.get("direction")
    if d == "above":
        data = f"the data support an effect of at least {num(x)}"
    elif d == "below":
        data = f"the data support an effect of at most {num(x)}"
    else:
        null = num(e.get("null")) or "0"
        data = f"the data place the effect within {_band(x)} of no effect ({null})"
    paper = num(e.get("paper"))
    paper = f"the paper reports {paper}" if paper else "the paper gives no size"
    line = _band(e.get("smallest")) if d == "within" else num(e.get("smallest")) or "—"
    who = {
        "book": "the book's line (its own number, not the paper's) is",
        "paper": "the line, from the paper, is",
    }.get(e.get("line_source"), "the line is")
    return f"{data}; {paper}; {who} {line}"


_SIGN = {"above": "≥", "below": "≤"}


def line_cell(c: dict, from_doc: str | None = None) -> str:
    """A scorecard cell: per effect, the largest line its interval clears against the
    claim's line (marked where the line is the book's number); a dash without effects."""
    parts = []
    for e in c.get("effects") or []:
        x = cleared(e)
        if x is None or not e.get("in_setting", True):
            continue
        d = e.get("direction")
        got = _band(x) if d == "within" else f"{_SIGN.get(d, '')} {num(x)}"
        line = _band(e.get("smallest")) if d == "within" else num(e.get("smallest"))
        whose = " (book's)" if e.get("line_source") == "book" else ""
        name = prose_html(str(e.get("name", "")), from_doc)
        parts.append(
            f"{name}: {html.escape(got)} <em>vs</em> {html.escape(str(line))}{whose}"
        )
    return "; ".join(parts) if parts else "—"
