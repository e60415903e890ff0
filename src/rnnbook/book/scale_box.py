"""The "scale and re-run" box at the top of every chapter, generated from its parameter spec.

It shows each parameter at the profile of this run beside the paper's value and their ratio (so a
reader sees at once that, say, a network was trained 300 steps where the paper trained 20,000),
the chapter's committed run time (``chapter_seconds.yaml``), the exact command that re-runs the
chapter at another scale, and links to download the executed notebook and the claim ledger.
"""

from __future__ import annotations

from html import escape as esc
import importlib.util
from functools import lru_cache
from pathlib import Path
from types import SimpleNamespace
from typing import Any, Mapping

import yaml

from .params import PROFILES, Param

SECONDS = Path(__file__).with_name("chapter_seconds.yaml")


@lru_cache(maxsize=None)
def committed_seconds() -> dict:
    try:
        return yaml.safe_load(SECONDS.read_text()) or {}
    except OSError:
        return {}


def run_seconds(chapter: str, profile: str) -> tuple[float, str] | None:
    """The committed run time of ``chapter`` at ``profile`` (else at ``book``) and that profile."""
    table = committed_seconds()
    for prof in (profile, "book"):
        secs = (table.get(prof) or {}).get(f"notebooks/{chapter}")
        if secs is not None:
            return float(secs), prof
    return None


def duration(seconds: float) -> str:
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


def _number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _fmt(v: Any) -> str:
    if isinstance(v, float):
        return f"{v:g}"
    if _number(v):
        return f"{v:,}"
    if isinstance(v, list):
        inner = ", ".join(f"{x:g}" if isinstance(x, float) else str(x) for x in v[:6])
        return f"[{inner}{', …' if len(v) > 6 else ''}]"
    return str(v)


def ratio(this: Any, paper: Any) -> str:
    """How this run's value compares with the paper's: ``1/64``, ``×2``, ``=`` or ``differs``."""
    if isinstance(this, list) and isinstance(paper, list):
        if this == paper:
            return "="
        sizes = all(
            isinstance(x, int) and not isinstance(x, bool) for x in this + paper
        )
        if sizes and max(paper) != 0:
            return "largest " + ratio(max(this), max(paper))
        return "differs"
    if not (_number(this) and _number(paper)):
        return "=" if this == paper else "differs"
    if this == paper:
        return "="
    if paper == 0 or this == 0:
        return "differs"
    r = this / paper
    if r < 1:
        inv = paper / this
        return f"1/{inv:.0f}" if inv >= 10 else f"1/{inv:.2g}"
    return f"×{r:.0f}" if r >= 10 else f"×{r:.2g}"


def rows(spec: Mapping[str, Param], P: SimpleNamespace) -> list[tuple[str, ...]]:
    """(name, this run, paper, ratio, what) per parameter that has a paper value."""
    out = []
    for name, p in spec.items():
        if name == "device" or not hasattr(p, "paper"):
            continue
        this, paper = getattr(P, name), p.preset("paper")
        out.append((name, _fmt(this), _fmt(paper), ratio(this, paper), p.allowed))
    return out


def _factor(row: tuple) -> float:
    """How many times smaller than the paper's (for the most-reduced parameters first)."""
    try:
        return -float(row[3].split("1/")[-1])
    except ValueError:
        return 0.0


def command(chapter: str, profile: str) -> str:
    return f'make chapter NB={chapter} ARGS="-p profile {profile}"'


def _links(chapter: str) -> list[str]:
    """Relative links from the chapter's page (``notebooks/<part>/<name>.html``)."""
    up = "../" * (chapter.count("/") + 1)
    links = [
        f'<a href="{up}_sources/notebooks/{chapter}.ipynb" download>'
        "the executed notebook (.ipynb)</a>"
    ]
    if importlib.util.find_spec("rnnbook.book.ledger_sphinx") is not None:
        links.append(
            f'<a href="{up}claims.json" download>the claim ledger of the book (JSON)</a>'
        )
    return links


def box(chapter: str, spec: Mapping[str, Param], P: SimpleNamespace) -> str:
    """The box as HTML: the scale of this run against the paper's, its time, how to re-run it."""
    table = rows(spec, P)
    smaller = sorted(
        (r for r in table if r[3].startswith(("1/", "largest 1/"))), key=_factor
    )
    timing = run_seconds(chapter, P.profile)
    when = (
        f"about {duration(timing[0])} at the <code>{timing[1]}</code> profile "
        "(committed timing, 2 CPU cores)"
        if timing
        else "no committed timing"
    )

    body = "".join(
        f"<tr><td title='{esc(what)}'><code>{esc(n)}</code></td><td>{esc(t)}</td>"
        f"<td>{esc(pv)}</td><td>{esc(r)}</td></tr>"
        for n, t, pv, r, what in table
    )
    others = [p for p in PROFILES if p not in (P.profile, "smoke")]
    cmds = "".join(f"<li><code>{esc(command(chapter, p))}</code></li>" for p in others)
    summary = f"Scale of this run: profile <code>{esc(P.profile)}</code>"
    if smaller:
        most = ", ".join(f"<code>{esc(r[0])}</code> {esc(r[3])}" for r in smaller[:3])
        summary += (
            f"; {len(smaller)} of {len(table)} parameters below the paper's "
            f"(most: {most} of the paper's); {when.split(' (')[0]}"
        )
    return (
        f'<details class="rnnbook-scale"><summary>{summary}</summary>'
        + (
            "<table><thead><tr><th>parameter</th><th>this run</th><th>paper</th>"
            f"<th>this / paper</th></tr></thead><tbody>{body}</tbody></table>"
            if table
            else ""
        )
        + f"<p>Run time: {when}.</p>"
        + "<p>Re-run it at another scale (the executed notebook and its claims land in "
        f"<code>_build/runs/{esc(chapter)}/</code>; add <code>-p NAME VALUE</code> to set "
        f"one parameter):</p><ul>{cmds}</ul>"
        + f"<p>Download: {'; '.join(_links(chapter))}.</p></details>"
    )


def html(chapter: str, spec: Mapping[str, Param], P: SimpleNamespace):
    """The box as an IPython HTML object (what :func:`rnnbook.book.chapter.start` displays)."""
    from IPython.display import HTML

    return HTML(box(chapter, spec, P))
