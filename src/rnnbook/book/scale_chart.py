"""From ``book`` to the records: one effect's interval at each scale, drawn as a small inline
SVG in the claim's box (ARCHITECTURE.md, *Records*), so that the trend from the build's run to
the runs sized to decide it can be seen beside its verdicts.

Each row is one run (the ``book`` ledger, then each record, smallest scale first): its 95%
interval as a bar and its estimate as a dot, coloured by the effect's decision; vertical
marks give no effect (solid), the claim's line (dashed) and the paper's effect (dotted).
The SVG scales with the page (a ``viewBox``) and draws its text in ``currentColor``, so it
reads in the light and the dark theme alike.
"""

from __future__ import annotations

import html
import math
from dataclasses import dataclass

from .reading import measured

#: colours of the decisions, mid-tones that read on a light and a dark page
COLOURS = {
    "reproduced": "#2e9d5b",
    "not-reproduced": "#d9534f",
    "inconclusive": "#c28f1b",
}
#: a narrow chart (in the units of its text): on a 400 px phone its text keeps about 10 px
WIDTH, LABEL, ROW = 420, 150, 24
#: the width of a character of the rows' labels (font 12, a little over its mean)
LABEL_CHAR = 7.0
#: the height of a row of mark names, and the width of one of their characters (font 11)
MARK_ROW, CHAR = 12, 6.2


@dataclass(frozen=True)
class Row:
    """One run of one effect: its label (scale and sizes), estimate, interval, decision."""

    label: str
    estimate: float
    lo: float
    hi: float
    decision: str


def _finite(*xs: float | None) -> list[float]:
    return [float(x) for x in xs if isinstance(x, (int, float)) and math.isfinite(x)]


def plain_math(text: str) -> str:
    """A label's ASCII math as plain Unicode (SVG text cannot hold typeset math):
    ``rho_t = 0.5`` -> ``ρₜ = 0.5``."""
    from .legible_sphinx import ascii_tex, tex_plain

    return "".join(tex_plain(t) if m else t for t, m in ascii_tex(text))


def _mark_labels(marks: list, x) -> tuple[list[str], int]:
    """The names of the vertical marks above the chart, each inside the chart and on the
    first row where it overlaps no other (marks at one value share a name: ``no effect and
    line 0``); the rows' total height."""
    merged: dict[str, list[str]] = {}
    for name, v, _ in marks:
        merged.setdefault(f"{v:.3g}", []).append(name)
    placed: list[list[tuple[float, float]]] = []
    out = []
    for value, names in merged.items():
        text = f"{' and '.join(names)} {value}"
        xv, w = x(float(value)), CHAR * len(text)
        left = min(max(xv - w / 2, 2), WIDTH - 2 - w)
        span = (left - 4, left + w + 4)
        row = next(
            (
                i
                for i, r in enumerate(placed)
                if all(b < span[0] or a > span[1] for a, b in r)
            ),
            len(placed),
        )
        if row == len(placed):
            placed.append([])
        placed[row].append(span)
        out.append(
            f'<text x="{left:.1f}" y="{11 + MARK_ROW * row}" font-size="11" '
            f'fill="currentColor">{html.escape(text)}</text>'
        )
    return out, MARK_ROW * max(len(placed), 1) + 10


def svg(
    title: str,
    rows: list[Row],
    null: float | None = None,
    line: float | None = None,
    paper: float | None = None,
) -> str:
    """The chart of one effect over ``rows``; an empty string when no row has a finite
    interval (nothing to draw)."""
    rows = [r for r in rows if len(_finite(r.estimate, r.lo, r.hi)) == 3]
    if not rows:
        return ""
    title = plain_math(title)
    xs = _finite(null, line, paper, *(v for r in rows for v in (r.lo, r.hi)))
    lo, hi = min(xs), max(xs)
    pad = (hi - lo) * 0.08 or 0.5
    lo, hi = lo - pad, hi + pad
    # the label column as wide as the longest label needs (and never most of the chart)
    label = min(
        max(LABEL, LABEL_CHAR * max(len(r.label) for r in rows) + 12), WIDTH / 2
    )
    plot = WIDTH - label - 10

    def x(v: float) -> float:
        return label + (v - lo) / (hi - lo) * plot

    marks = [
        (name, float(v), dash)
        for name, v, dash in (
            ("no effect", null, ""),
            ("line", line, "4 3"),
            ("paper", paper, "1 3"),
        )
        if _finite(v)
    ]
    labels, top = _mark_labels(marks, x)
    height = top + ROW * len(rows) + 8
    out = [
        f'<svg class="scale-chart" viewBox="0 0 {WIDTH} {height}" role="img" '
        f'aria-label="{html.escape(title)}" style="width:100%;max-width:{WIDTH}px">',
        f"<title>{html.escape(title)}</title>",
        *labels,
    ]
    for _, v, dash in marks:
        out.append(
            f'<line x1="{x(v):.1f}" x2="{x(v):.1f}" y1="{top - 6}" y2="{height - 4}" '
            f'stroke="currentColor" stroke-opacity="0.6" stroke-dasharray="{dash}"/>'
        )
    for i, r in enumerate(rows):
        y = top + ROW * i + ROW / 2
        colour = COLOURS.get(r.decision, "currentColor")
        out.append(
            f'<text x="{label - 8}" y="{y + 4:.1f}" font-size="12" text-anchor="end" '
            f'fill="currentColor">{html.escape(r.label)}</text>'
        )
        out.append(
            f'<line x1="{x(r.lo):.1f}" x2="{x(r.hi):.1f}" y1="{y:.1f}" y2="{y:.1f}" '
            f'stroke="{colour}" stroke-width="4" stroke-linecap="round"/>'
        )
        out.append(
            f'<circle cx="{x(r.estimate):.1f}" cy="{y:.1f}" r="4.5" fill="{colour}">'
            f"<title>{html.escape(r.label)}: {measured(r.estimate)} [{measured(r.lo)}, "
            f"{measured(r.hi)}],"
            f" {html.escape(r.decision)}</title></circle>"
        )
    out.append("</svg>")
    return "".join(out)
