"""Generated pages of the book: the reproduction scorecard, the errata evidence and the status page.

They are written as MyST Markdown into ``_build/stage/book/_generated/`` and included by the
hand-written pages ``book/scorecard.md``, ``book/errata.md`` and ``book/status.md``.
"""

from __future__ import annotations

import html
import platform
import posixpath
import re
import subprocess
from collections import Counter
from datetime import datetime, timezone
from importlib import metadata
from pathlib import Path
from typing import Any, Iterable

from .legible_sphinx import ascii_math_html
from .ledger import PAPERS, VERDICTS, html_math, md_cell, row_id, value_html
from .lines import line_cell
from .reading import effect_finding, finding, prose_html, reason
from .reference import api, where

PAPER_TITLES = {
    "lsc": "Herranz-Celotti & Rouat, *Stabilizing RNN Gradients through Pre-training* (LSC)",
    "implicit-bias": "Emami et al., *Implicit Bias of Linear RNNs*",
    "mean-field": "Chen, Pennington & Schoenholz, *Dynamical Isometry and a Mean Field Theory of RNNs*",
    "infinite-width": "Chizat et al., *Infinite-width limit of deep linear neural networks*",
    "synthesis": "The book's own cross-paper claims (synthesis)",
}
BADGE = {
    "reproduced": "success",
    "partly-reproduced": "warning",
    "not-reproduced": "danger",
    "inconclusive": "info",
    "not-attempted": "secondary",
}
PACKAGES = (
    "torch",
    "numpy",
    "scipy",
    "sympy",
    "matplotlib",
    "jupyter-book",
    "sphinx",
    "myst-nb",
    "papermill",
    "jupytext",
    "nbclient",
    "ipykernel",
    "rnnbook",
)


def _cell(x: Any, width: int | None = None) -> str:
    return md_cell(x, width)


def badge(verdict: str) -> str:
    return f"{{bdg-{BADGE[verdict]}}}`{verdict}`"


def badge_html(verdict: str) -> str:
    """A verdict badge in raw HTML (sphinx-design's classes, as ``{bdg-...}`` renders it)."""
    c = BADGE[verdict]
    return (
        f'<span class="sd-sphinx-override sd-badge sd-bg-{c} sd-bg-text-{c}">'
        f"{verdict}</span>"
    )


def _chapter_link(c: dict) -> str:
    return f"{{doc}}`/{c['chapter']}`" if c.get("chapter") else "—"


def box_href(c: dict, from_doc: str) -> str:
    """The claim's box on its chapter page, relative to the page ``from_doc``."""
    if c.get("chapter") == from_doc:
        return f"#{c['id']}"
    rel = posixpath.relpath(c["chapter"], posixpath.dirname(from_doc) or ".")
    return f"{rel}.html#{c['id']}"


_KINDS = (
    ("sec", 0),
    ("lemma", 1),
    ("theorem", 1),
    ("thm", 1),
    ("corollary", 1),
    ("proposition", 1),
    ("prop", 1),
    ("eq", 2),
    ("alg", 3),
    ("fig", 4),
    ("table", 5),
    ("tab", 5),
    ("app", 6),
)
_ROMAN = {"i": 1, "ii": 2, "iii": 3, "iv": 4, "v": 5, "vi": 6, "vii": 7, "viii": 8}


def paper_order(source: str) -> tuple:
    """A key that sorts claims in the paper's order: sections, then lemmas and theorems,
    equations, algorithms, figures, tables, appendices; numbers naturally inside each kind
    (``Fig. 2`` before ``Fig. 10``, supplementary ``Fig. S2`` after the main figures)."""
    text = source.lower().removeprefix("synthesis, ")
    kind = next((r for k, r in _KINDS if text.startswith(k)), 7)
    rest = re.sub(r"^[a-z]+\.?\s*", "", text)
    supplementary = rest.startswith("s") and rest[1:2].isdigit()
    parts: list = []
    for tok in re.findall(
        r"\d+|[a-z]+", rest.removeprefix("s") if supplementary else rest
    ):
        if tok.isdigit():
            parts.append((0, int(tok), ""))
        elif tok in _ROMAN and not parts:
            parts.append((0, _ROMAN[tok], ""))
        else:
            parts.append((1, 0, tok))
    return (kind, supplementary, parts, source)


def in_paper_order(claims: list[dict]) -> list[dict]:
    return sorted(claims, key=lambda c: paper_order(c["source"]))


def _h(x: Any) -> str:
    """A value as escaped HTML text written for reading (dicts as ``key: value``, numbers
    rounded; :func:`rnnbook.book.ledger.value_html`), never cut; its ``$...$`` spans as
    the inline math MathJax typesets."""
    return re.sub(
        r"\$([^$<>]+)\$",
        r'<span class="math notranslate nohighlight">\\(\1\\)</span>',
        value_html(x),
    )


#: a tag of :func:`_h`'s HTML, and the tags that never close
_TAG = re.compile(r"<(/?)([a-zA-Z][\w-]*)[^>]*?(/?)>")
_VOID = {"br", "hr", "img", "wbr"}


def top_parts(text: str) -> list[str]:
    """:func:`_h`'s HTML cut into its top-level pieces (each element whole, the text
    between them as it is), so that ``"".join(top_parts(t)) == t``."""
    parts, depth, start = [], 0, 0
    for m in _TAG.finditer(text):
        if m.group(2).lower() in _VOID or m.group(3):
            continue
        if not m.group(1):
            if depth == 0 and m.start() > start:
                parts.append(text[start : m.start()])
                start = m.start()
            depth += 1
        elif depth > 0:
            depth -= 1
            if depth == 0:
                parts.append(text[start : m.end()])
                start = m.end()
    if start < len(text):
        parts.append(text[start:])
    return [p for p in parts if p.strip()] if depth == 0 else [text]


#: a long measurement shows at most this many parts, and this many characters of them
SHOWN_PARTS, SHOWN_CHARS = 3, 600


def _chars(piece: str) -> int:
    return len(html.unescape(re.sub(r"<[^>]+>", "", piece)))


def under_fold(text: str, summary: str) -> str:
    """``text`` one click away, under a line that says what it is."""
    return f'<details class="value-more"><summary>{summary}</summary>{text}</details>'


def folded(text: str) -> str:
    """A long measurement for a table cell: its first parts (the ``value-part`` lines of
    :func:`rnnbook.book.ledger.value_html`), at most :data:`SHOWN_PARTS` of them and
    :data:`SHOWN_CHARS` characters, then the rest under a fold that says how many there
    are. A short last line is never folded alone, nor a sentence between its pieces."""
    parts = top_parts(text)
    if not all(p.startswith('<span class="value-part">') for p in parts):
        return text
    shown, size = 0, 0
    while shown < min(SHOWN_PARTS, len(parts)):
        size += _chars(parts[shown])
        if size > SHOWN_CHARS:
            break
        shown += 1
    rest = parts[shown:]
    if not rest or (shown and len(rest) == 1 and _chars(rest[0]) <= 160):
        return text
    said = f"and {len(rest)} more" if shown else "the measured values"
    return "".join(parts[:shown]) + under_fold("".join(rest), said)


def measured_html(c: dict) -> str:
    """What was measured: for a claim decided by its confirmatory record, that record's
    effects in words, one per line, with the book's (exploratory) run folded under them;
    else the book's run, its first parts shown and the rest folded (:func:`folded`)."""
    seeds = f" ({c['seeds']} seeds)" if c.get("seeds") else ""
    book = _h(c.get("measured"))
    counting = c.get("counting") or {}
    if counting.get("kind") != "confirmatory" or not counting.get("effects"):
        return folded(book) + seeds
    found = "".join(
        f'<span class="value-part">{prose_html(effect_finding(e))}</span>'
        for e in counting["effects"]
    )
    return (
        f'<span class="value-part"><em>confirmatory record, {counting.get("seeds")} '
        f"seeds:</em></span>{found}"
        + under_fold(book + seeds, "the book\u2019s run (exploratory)")
    )


def line_html(c: dict, from_doc: str | None = None) -> str:
    """The *largest line cleared* cell (:func:`rnnbook.book.lines.line_cell`), one effect
    per line, of the run whose verdict the row shows: the confirmatory record's effects
    where it decides the claim, else the book's run's; long lists folded (:func:`folded`)."""
    counting = c.get("counting") or {}
    effects = c.get("effects") or []
    if counting.get("kind") == "confirmatory" and counting.get("effects"):
        effects = counting["effects"]
    cells = [line_cell({**c, "effects": [e]}, from_doc) for e in effects]
    cells = [x for x in cells if x != "—"]
    if len(cells) <= 1:
        return cells[0] if cells else "—"
    return folded("".join(f'<span class="value-part">{x}</span>' for x in cells))


def record_finding(c: dict, counting: dict) -> str:
    """What a claim's confirmatory record found (:func:`rnnbook.book.reading.finding` on
    its effects and gate, with the verdict that counts), in one sentence."""
    return finding(
        {
            **c,
            "verdict": counting.get("verdict", c.get("verdict")),
            "effects": counting.get("effects") or [],
            "trained": counting.get("trained"),
        }
    )


def why_text(c: dict) -> str:
    """Why a claim got its verdict, in one sentence: for a claim that does not fully
    hold, what failed or why it is undecided (:func:`rnnbook.book.reading.finding`,
    never the run's settings); else the note's first sentence. A claim decided by its
    confirmatory record gets that record's finding (its effects and gate), never the
    book run's, whose verdict the row does not show."""
    counting = c.get("counting") or {}
    if counting.get("kind") == "confirmatory" and counting.get("effects"):
        return record_finding(c, counting)
    if c.get("verdict") in ("not-reproduced", "partly-reproduced", "inconclusive"):
        return finding(c)
    return reason(c.get("note", ""))


def at_scale_html(c: dict) -> str:
    """Under a claim's ``book`` verdict, the verdict of its largest current record; nothing
    when that record is the confirmatory one whose verdict the row shows
    (:func:`kind_html` names it)."""
    rec = c.get("at_scale")
    if not rec or _is_counting(c):
        return ""
    return (
        f'<span class="claim-at-scale"><em>at scale ({html.escape(rec["kind"])}, '
        f"{rec['seeds']} seeds):</em> {badge_html(rec['verdict'])}</span>"
    )


def _is_counting(c: dict) -> bool:
    """Whether a claim's largest record at scale is the confirmatory record that decides it."""
    counting, rec = c.get("counting") or {}, c.get("at_scale") or {}
    path = counting.get("path")
    return (
        counting.get("kind") == "confirmatory"
        and path is not None
        and (rec.get("path") == path)
    )


def kind_html(c: dict) -> str:
    """Beside a training claim's verdict, which kind of verdict counts: exploratory
    (the book's run) or confirmatory (:func:`rnnbook.book.records.counting_verdict`),
    with the confirmatory record's scale and seeds where it is the claim's largest record
    at scale (:func:`at_scale_html` then says nothing)."""
    kind = (c.get("counting") or {}).get("kind")
    if not kind:
        return ""
    if _is_counting(c):
        rec = c["at_scale"]
        kind = f"confirmatory record ({rec['kind']}, {rec['seeds']} seeds)"
    return f'<span class="claim-kind">{html.escape(kind)}</span>'


def attach_records(claims: list[dict], root: Path | None) -> list[dict]:
    """Each claim with the verdict that counts (:func:`rnnbook.book.records.counting`)
    and ``at_scale``: its largest current record (gpu before cpu; a stale record is not
    counted), where it has one."""
    if root is None:
        return claims
    from . import records

    loaded = records.load(root)
    claims = records.counting(root, claims, loaded)
    by_claim = records.at_scale(root, loaded)
    out = []
    for c in claims:
        current = [
            r
            for r in by_claim.get(c["id"], [])
            if not r["record"]["stale"] and not r.get("rule_changed")
        ]
        if current:
            r = current[0]
            c = {
                **c,
                "at_scale": {
                    "verdict": r["verdict"],
                    "kind": r["record"]["kind"],
                    "seeds": r.get("seeds"),
                    "date": r["record"]["date"],
                    "path": r["record"].get("path"),
                },
            }
        out.append(c)
    return out


def verdict_line(claims: list[dict], from_doc: str) -> str:
    """A chapter's verdicts in one line (issue 51): per verdict its badge once, then each
    claim by the start of what it claims and its source, linked to its box."""
    from .reading import _cap

    groups = []
    for verdict in VERDICTS:
        links = []
        for c in (c for c in claims if c["verdict"] == verdict):
            text = " ".join(c["statement"].split())
            first = re.split(r"(?<=[a-z)$])\. (?=[A-Z])", text)[0].rstrip(".")
            source = re.sub(r"\s*\(.*\)$", "", str(c.get("source") or ""))
            name = prose_html(f"{_cap(first, 48)} ({source})")
            href = html.escape(box_href(c, from_doc)) if c.get("chapter") else ""
            links.append(f'<a href="{href}">{name}</a>' if href else name)
        if links:
            groups.append(
                f'<span class="verdict-group">{badge_html(verdict)} '
                + " · ".join(links)
                + "</span>"
            )
    return (
        '<p class="verdict-line"><strong>Verdicts</strong> (each links to its box): '
        + "; ".join(groups)
        + "</p>"
    )


def claims_table(
    claims: list[dict],
    from_doc: str,
    columns: tuple[str, ...],
    row_ids: bool = False,
    kind: str = "findings",
) -> str:
    """Claims as an HTML table that stacks into one card per claim on a narrow screen
    (``rnnbook.css``): each cell carries its column's name.

    Columns: ``source``, ``claim``, ``paper``, ``measured``, ``verdict``, ``reason``, ``box``,
    ``line`` (per effect, the largest line its interval clears against the claim's line:
    :mod:`.lines`), and two that combine them for a narrow page: ``finding`` (the claim and, under it, the
    reason) and ``versus`` (the paper's value and the measurement)."""
    heads = {
        "source": "where",
        "claim": "claim",
        "finding": "claim",
        "paper": "paper",
        "measured": "measured",
        "versus": "paper vs measured",
        "verdict": "verdict",
        "reason": "why",
        "box": "details",
        "line": "largest line cleared",
    }
    out = [
        f'<table class="claims-table {kind}">',
        "<thead><tr>"
        + "".join(f'<th class="col-{k}">{heads[k]}</th>' for k in columns)
        + "</tr></thead>",
        "<tbody>",
    ]
    for c in claims:
        href = html.escape(box_href(c, from_doc)) if c.get("chapter") else ""
        statement = html_math(c["statement"])
        linked = f'<a href="{href}">{statement}</a>' if href else statement
        ident = f'<code class="claim-id">{html.escape(c["id"])}</code>'
        measured = measured_html(c)
        why = why_text(c)
        paper = value_html(c.get("paper_value"), math=True)  # its $...$ typeset
        cells = {
            "source": _h(c["source"]),
            "claim": f"{statement} {ident}"
            if "box" in columns
            else f"{linked} {ident}",
            "finding": f"{linked} {ident}"
            + (
                f'<span class="claim-why">{prose_html(why, from_doc)}</span>'
                if why
                else ""
            ),
            "paper": paper,
            "measured": measured,
            "versus": f'<span class="claim-paper"><em>paper:</em> '
            f"{paper}</span>"
            f'<span class="claim-measured"><em>measured:</em> {measured}</span>',
            "verdict": badge_html(c["verdict"]) + kind_html(c) + at_scale_html(c),
            "reason": prose_html(why, from_doc) if why else "—",
            "box": f'<a href="{href}">box</a>' if href else "—",
            "line": line_html(c, from_doc),
        }
        rid = f' id="{html.escape(row_id(c["id"]))}"' if row_ids else ""
        rid += f' data-paper="{html.escape(c["paper"])}" data-verdict="{c["verdict"]}"'
        out.append(
            f"<tr{rid}>"
            + "".join(
                f'<td class="col-{k}{EMPTY if cells[k] == "—" else ""}" '
                f'data-label="{heads[k]}">{cells[k]}</td>'
                for k in columns
            )
            + "</tr>"
        )
    # the ASCII math that measured values carry from the code, typeset
    return ascii_math_html("\n".join(out + ["</tbody>", "</table>"]))


#: the class of a cell with nothing in it ("—"): a card leaves it out (static/rnnbook.css)
EMPTY = " empty"


# where a long word of a verdict may break in a column header (U+00AD, a soft hyphen)
SOFT_HYPHENATED = {
    "reproduced": "repro\u00adduced",
    "inconclusive": "incon\u00adclusive",
    "attempted": "attemp\u00adted",
}


def _header(verdict: str) -> str:
    """A verdict as a column header: words split at spaces, long ones at a soft hyphen."""
    return " ".join(SOFT_HYPHENATED.get(w, w) for w in verdict.split("-"))


def counts_line(claims: list[dict]) -> str:
    counts = Counter(c["verdict"] for c in claims)
    return ", ".join(f"{counts[v]} {v}" for v in VERDICTS if counts[v])


def _raw(text: str) -> list[str]:
    return ["```{raw} html", text, "```", ""]


def scorecard(claims: list[dict]) -> str:
    counts = {
        p: Counter(c["verdict"] for c in claims if c["paper"] == p) for p in PAPERS
    }
    papers = [p for p in PAPERS if p != "synthesis" or counts[p]]
    # spaces, not hyphens, in the header, and soft hyphens inside its long words: the
    # columns wrap and the table fits a laptop's page
    rows = [
        '<table class="claims-table counts">',
        "<thead><tr><th>paper</th>"
        + "".join(f"<th>{_header(v)}</th>" for v in VERDICTS)
        + "<th>total</th></tr></thead>",
        "<tbody>",
    ]
    for p in papers:
        rows.append(
            f'<tr><td data-label="paper"><a href="#{_section_id(p)}">{p}</a></td>'
            + "".join(f'<td data-label="{v}">{counts[p][v]}</td>' for v in VERDICTS)
            + f'<td data-label="total">{sum(counts[p].values())}</td></tr>'
        )
    total = Counter(c["verdict"] for c in claims)
    rows.append(
        '<tr class="counts-all"><td data-label="paper">all</td>'
        + "".join(f'<td data-label="{v}">{total[v]}</td>' for v in VERDICTS)
        + f'<td data-label="total">{len(claims)}</td></tr>'
    )
    lines = _raw("\n".join(rows + ["</tbody>", "</table>"]))
    out = ["## Verdicts per paper", "", *lines, ""]
    scaled = [c["at_scale"] for c in claims if c.get("at_scale")]
    out += [
        (
            f"At scale: {len(scaled)} claim{'s' if len(scaled) != 1 else ''} "
            f"{'have' if len(scaled) != 1 else 'has'} a current record, decided on its own "
            f"data: {counts_line(scaled)}. Each is named under its row's verdict below: "
            "as the confirmatory record that gives the verdict, or as a record at scale "
            "beside the `book` run's verdict."
            if scaled
            else "At scale: no claim has a current record yet (see {doc}`verdicts`)."
        ),
        "",
    ]
    out += _raw(scorecard_filter(papers, claims))
    for p in papers:
        mine = in_paper_order([c for c in claims if c["paper"] == p])
        out += [f"({_section_id(p)})=", f"## {PAPER_TITLES[p]}", ""]
        if not mine:
            out += [
                "No claim of this paper is checked yet: its chapters are still to be written.",
                "",
            ]
            continue
        out += [f"{len(mine)} claims: {counts_line(mine)}.", ""]
        out += _raw(
            claims_table(
                mine,
                "book/scorecard",
                ("verdict", "source", "claim", "paper", "measured", "line", "box"),
                row_ids=True,
                kind="scorecard",
            )
        )
    return "\n".join(out)


def scorecard_filter(papers: list[str], claims: list[dict]) -> str:
    """The scorecard's filter by paper and verdict (``static/scorecard.js``, offline)."""
    paper_opts = "".join(
        f'<option value="{html.escape(p)}">{html.escape(p)}</option>' for p in papers
    )
    have = [v for v in VERDICTS if any(c["verdict"] == v for c in claims)]
    verdict_opts = "".join(f'<option value="{v}">{v}</option>' for v in have)
    return (
        '<form class="scorecard-filter" onsubmit="return false">'
        "<strong>Show</strong>"
        '<label>paper <select data-filter="paper"><option value="">every paper</option>'
        f"{paper_opts}</select></label>"
        '<label>verdict <select data-filter="verdict"><option value="">every verdict'
        f"</option>{verdict_opts}</select></label>"
        '<button type="reset">show all</button>'
        '<span class="scorecard-shown" aria-live="polite"></span></form>'
    )


def _section_id(paper: str) -> str:
    return f"scorecard-paper-{paper}"


def errata_evidence(claims: list[dict]) -> str:
    bad = [c for c in claims if c["verdict"] in ("not-reproduced", "partly-reproduced")]
    if not bad:
        return "Every claim checked in this build reproduced.\n"
    # folded: every row is also under its section above, as its findings table
    n = len(bad)
    out = _raw(
        '<details class="errata-all"><summary>Show the '
        f"{n} claim{'s' if n != 1 else ''} ({counts_line(bad)}), paper by paper"
        "</summary>"
    )
    for p in PAPERS:
        mine = in_paper_order([c for c in bad if c["paper"] == p])
        if mine:
            out += [f"**{PAPER_TITLES[p]}**", ""]
            out += _raw(
                claims_table(
                    mine,
                    "book/errata",
                    ("source", "finding", "versus", "verdict"),
                )
            )
    return "\n".join(out + _raw("</details>"))


def _version(name: str) -> str:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return "not installed"


def _git_commit(root: Path) -> str:
    try:
        out = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"],
            cwd=root,
            capture_output=True,
            text=True,
        )
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no"],
            cwd=root,
            capture_output=True,
            text=True,
        ).stdout.strip()
        return (out.stdout.strip() or "unknown") + (
            " (with uncommitted changes)" if dirty else ""
        )
    except OSError:
        return "unknown"


def _device_cell(root: Path | None, name: str) -> str:
    """The device a chapter recorded in its executed notebook (``rnnbook.book.chapter``)."""
    from .chapter import recorded_device

    rec = recorded_device((root or Path.cwd()) / "_build" / "stage" / f"{name}.ipynb")
    if rec is None:
        return "—"
    return (
        rec["device"] if rec["device"] == "cpu" else f"{rec['device']} ({rec['name']})"
    )


#: the budgets of ARCHITECTURE.md (*Profiles*), in wall-clock minutes for the whole book
BUDGET_MINUTES = {"smoke": 5, "book": 25, "gpu": 30}


def _minutes(seconds: float) -> str:
    return f"{seconds / 60:.1f} min" if seconds >= 60 else f"{seconds:.0f} s"


def budget_line(timings: dict) -> str:
    """The build's wall time against its profile's budget; with reused chapters, the wall time a
    full build would take is estimated (their times spread over the workers, at least the longest)."""
    profile, wall, jobs = timings["profile"], timings["wall_seconds"], timings["jobs"]
    chs = timings["chapters"].values()
    reused = sum(1 for t in chs if t.get("reused"))
    longest = max((t["seconds"] for t in chs), default=0.0)
    full = max(longest, sum(t["seconds"] for t in chs) / max(jobs, 1))
    budget = BUDGET_MINUTES.get(profile)
    if reused:
        text = (
            f"This build waited **{_minutes(wall)}** (wall clock) for the "
            f"{len(chs) - reused} chapter(s) that ran; {reused} were reused from earlier "
            f"builds. A full build on {jobs} worker(s) would take about **{_minutes(full)}**."
        )
        judged = full
    else:
        text = (
            f"This build executed every chapter in **{_minutes(wall)}** of wall-clock time "
            f"on {jobs} worker(s)."
        )
        judged = wall
    if budget is None:
        return text + f" The `{profile}` profile has no time budget."
    verdict = "within" if judged <= budget * 60 else "**over**"
    return (
        text + f" That is {verdict} the `{profile}` profile's budget of {budget} min."
    )


def status(timings: dict, chapters: Iterable[Any], root: Path | None = None) -> str:
    """The build status page: per chapter wall and CPU time, the budget checked on wall time."""
    rows = [
        "| chapter | wall (s) | CPU (s) | device | this build |",
        "|---|---|---|---|---|",
    ]
    for ch in chapters:
        t = timings["chapters"].get(ch.name, {})
        secs = t.get("seconds")
        how = "reused" if t.get("reused") else "ran" if secs is not None else "—"
        cpu = f"{t['cpu_seconds']:.0f}" if t.get("cpu_seconds") else "—"
        dev = _device_cell(root, ch.name)
        rows.append(
            f"| {{doc}}`/{ch.name}` | {secs:.0f} | {cpu} | {dev} | {how} |"
            if secs is not None
            else f"| {{doc}}`/{ch.name}` | — | — | — | — |"
        )
    total = sum(v["seconds"] for v in timings["chapters"].values())
    cpu_total = sum(v.get("cpu_seconds") or 0 for v in timings["chapters"].values())
    out = [
        f"Built at the **{timings['profile']}** profile on "
        f"{datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC.",
        "",
        budget_line(timings),
        "",
        "## Time per chapter",
        "",
        "Two clocks: **wall** time is how long a chapter took from start to end (what a "
        "reader waits); **CPU** time is the processor time its kernel used (one thread per "
        "chapter, so it is at most the wall time; a chapter that waits for a busy machine has "
        "more wall than CPU time). Chapters run side by side, one per worker, so the book's "
        f"wall time is far less than the sum of the chapters' ({_minutes(total)} wall, "
        f"{_minutes(cpu_total)} CPU here). The budget is checked against the book's wall time.",
        "",
        *rows,
        "",
        "A chapter runs again only when its code, its claim declarations, the modules it "
        "imports, its parameters, `requirements.txt` or its data changed; otherwise its "
        "cached run is *reused* (with the times of that run) and only its prose is "
        "re-rendered (`python -m rnnbook build --force` runs every chapter).",
        "",
        "## Software",
        "",
        "The versions that computed this book (`requirements.txt` pins them):",
        "",
        "| package | version |",
        "|---|---|",
        f"| Python | {platform.python_version()} |",
        *[f"| {p} | {_version(p)} |" for p in PACKAGES],
        "",
    ]
    return "\n".join(out)


def write_generated(
    folder: Path, claims: list[dict], timings: dict, chapters: list[Any]
) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    root = folder.parents[3] if len(folder.parents) > 3 else None
    # the scorecard and the errata list read the verdict that counts: a confirmatory
    # record's, where one is decided, else the book's run's
    counted = attach_records(claims, root)
    (folder / "scorecard.md").write_text(scorecard(counted))
    (folder / "how_to_read.md").write_text(how_to_read())
    (folder / "errata_evidence.md").write_text(errata_evidence(counted))
    (folder / "status.md").write_text(status(timings, chapters, root))
    (folder / "where.md").write_text(where(chapters))
    (folder / "api.md").write_text(api())


def how_to_read() -> str:
    """The scorecard's "How to read" section, from the engine's own levels and gates."""
    from rnnbook.stats import POWER

    from .claims import ALPHA, LEVEL

    return f"""A verdict follows from the measurement: `reproduced` when the measured value agrees
with the paper within the stated tolerance, `partly-reproduced` when part of the claim holds,
`not-reproduced` when it does not (see {{doc}}`errata`), `inconclusive` when the scale this
profile affords cannot decide, and `not-attempted` with the reason in the note.

A claim on a training experiment is decided from its effects, each over several seeds
({{doc}}`verdicts`). An effect is reproduced when its {LEVEL:.0%} interval lies beyond the
smallest effect that counts as the paper's, and decided short of the paper, or against it, from
its interval at level 1 − {ALPHA:g}/k (k: the claim's effects); an interval that straddles its
line is `inconclusive`. The claim's gate asks only that the experiment works at all (its
reference arm or its set-up trained): when it fails the verdict is `inconclusive`, never a
verdict on the paper; a compared arm that did not train counts against that arm. Each claim
declares the seeds at which a paper that is exactly right would be reproduced with
probability {POWER:.0%}; the `book` profile runs fewer, so many training claims stay
`inconclusive` here. The box of each claim shows its finding, the paper against the
measurement and the decision, then its rule, its history, its seeds and its gate.

Each row shows the run whose verdict it gives. Where a claim's confirmatory record has
decided, *measured* lists that record's effects, one per line, and folds the book's own
exploratory run under them; elsewhere it shows the book's run, its first lines and the
rest one click away. *Largest line cleared* gives, for each effect of the same run, the
largest line its {LEVEL:.0%} interval clears (≥ for an effect claimed above its line, ≤
below, ± for a claim of no effect) against the line the claim is decided on, marked
*(book's)* where that line is the book's own number because the paper gives no size.
"""
