"""Generated pages of the book: the reproduction scorecard, the errata evidence and the status page.

They are written as MyST Markdown into ``_build/stage/book/_generated/`` and included by the
hand-written pages ``book/scorecard.md``, ``book/errata.md`` and ``book/status.md``.
"""

from __future__ import annotations

import os
import platform
import subprocess
from collections import Counter
from datetime import datetime, timezone
from importlib import metadata
from pathlib import Path
from typing import Any, Iterable

from .ledger import PAPERS, VERDICTS, md_cell

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


def _cell(x: Any, width: int = 220) -> str:
    return md_cell(x, width)


def badge(verdict: str) -> str:
    return f"{{bdg-{BADGE[verdict]}}}`{verdict}`"


def _chapter_link(c: dict) -> str:
    return f"{{doc}}`/{c['chapter']}`" if c.get("chapter") else "—"


def _claim_link(c: dict) -> str:
    if not c.get("chapter"):
        return f"`{c['id']}`"
    return f"{{doc}}`{c['id']} </{c['chapter']}>`"


# where a long word of a verdict may break in a column header (U+00AD, a soft hyphen)
SOFT_HYPHENATED = {
    "reproduced": "repro\u00adduced",
    "inconclusive": "incon\u00adclusive",
    "attempted": "attemp\u00adted",
}


def _header(verdict: str) -> str:
    """A verdict as a column header: words split at spaces, long ones at a soft hyphen."""
    return " ".join(SOFT_HYPHENATED.get(w, w) for w in verdict.split("-"))


def scorecard(claims: list[dict]) -> str:
    counts = {
        p: Counter(c["verdict"] for c in claims if c["paper"] == p) for p in PAPERS
    }
    lines = [
        # spaces, not hyphens, in the header, and soft hyphens inside its long words: the
        # columns wrap and the table fits a laptop's page (on a phone it scrolls less)
        "| paper | " + " | ".join(map(_header, VERDICTS)) + " | total |",
        "|---" * (len(VERDICTS) + 2) + "|",
    ]
    papers = [p for p in PAPERS if p != "synthesis" or counts[p]]
    for p in papers:
        lines.append(
            f"| {p} | "
            + " | ".join(str(counts[p][v]) for v in VERDICTS)
            + f" | {sum(counts[p].values())} |"
        )
    total = Counter(c["verdict"] for c in claims)
    lines.append(
        "| **all** | "
        + " | ".join(f"**{total[v]}**" for v in VERDICTS)
        + f" | **{len(claims)}** |"
    )
    out = ["## Verdicts per paper", "", *lines, ""]
    for p in papers:
        mine = [c for c in claims if c["paper"] == p]
        out += [f"## {PAPER_TITLES[p]}", ""]
        if not mine:
            out += [
                "No claim of this paper is checked yet: its chapters are still to be written.",
                "",
            ]
            continue
        out += [
            "Each claim links to the chapter that computes it; the statement, the paper's",
            "value, the tolerance, the rule and the note are in the details below the table.",
            "",
            "| verdict | claim | source | measured |",
            "|---|---|---|---|",
        ]
        for c in mine:
            out.append(
                f"| {badge(c['verdict'])} | {_claim_link(c)} | {_cell(c['source'], 40)} "
                f"| {_cell(c['measured'], 70)} |"
            )
        out += ["", "Details:", ""]
        for c in mine:
            out += [
                f":::{{dropdown}} {c['id']}: {c['verdict']}",
                "",
                f"- **statement**: {_cell(c['statement'], 1000)}",
                f"- **computed in**: {_chapter_link(c)}",
                f"- **paper**: {_cell(c['paper_value'], 1000)}",
                f"- **measured** ({c['profile']} profile): {_cell(c['measured'], 2000)}",
                f"- **tolerance**: {_cell(c['tolerance'], 600)}",
                f"- **rule** (declared before the run): {_cell(c.get('rule') or None, 600)}",
                f"- **note**: {_cell(c['note'] or None, 2000)}",
                "",
                ":::",
                "",
            ]
        out.append("")
    return "\n".join(out)


def errata_evidence(claims: list[dict]) -> str:
    bad = [c for c in claims if c["verdict"] in ("not-reproduced", "partly-reproduced")]
    if not bad:
        return "Every claim checked so far reproduced.\n"
    out = []
    for c in bad:
        out += [
            f"**`{c['id']}`** ({PAPER_TITLES[c['paper']].split(',')[0]}, {c['source']}) {badge(c['verdict'])}",
            "",
            f"- claim: {_cell(c['statement'], 600)}",
            f"- paper: {_cell(c['paper_value'], 600)}",
            f"- measured ({c['profile']} profile): {_cell(c['measured'], 600)}",
            f"- note: {_cell(c['note'], 1200)}",
            f"- computed in: {_chapter_link(c)}",
            "",
        ]
    return "\n".join(out)


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


def status(timings: dict, chapters: Iterable[Any], root: Path | None = None) -> str:
    rows = [
        "| chapter | execution time (s) | CPU time (s) | peak memory (MB) | device | this build |",
        "|---|---|---|---|---|---|",
    ]
    for ch in chapters:
        t = timings["chapters"].get(ch.name, {})
        secs = t.get("seconds")
        how = (
            f"reused from the build of {t['reused']}"
            if t.get("reused")
            else f"ran: {t['reason']}"
            if t.get("reason")
            else "ran"
        )
        mb = f"{t['peak_mb']:.0f}" if t.get("peak_mb") else "—"
        cpu = f"{t['cpu_seconds']:.1f}" if t.get("cpu_seconds") else "—"
        dev = _device_cell(root, ch.name)
        rows.append(
            f"| {{doc}}`/{ch.name}` | {secs:.1f} | {cpu} | {mb} | {dev} | {_cell(how, 160)} |"
            if secs is not None
            else f"| {ch.name} | — | — | — | — | — |"
        )
    total = sum(v["seconds"] for v in timings["chapters"].values())
    import torch

    out = [
        f"Built at profile **{timings['profile']}** on {datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC, "
        f"commit `{_git_commit(root or Path.cwd())}`.",
        "",
        "## Chapter execution times",
        "",
        *rows,
        "",
        "A chapter runs again only when its code cells, its claim declarations, the modules it "
        "imports (followed through the package), its parameters, `requirements.txt` or its data "
        "changed; otherwise its cached run is reused and only its prose is re-rendered "
        "(`python -m rnnbook build --force` runs every chapter). The execution time of a reused "
        "chapter is that of its cached run.",
        "",
        f"Sum of chapter times {total:.1f} s; wall time of the parallel execution "
        f"{timings['wall_seconds']:.1f} s with {timings['jobs']} worker(s).",
        "",
        "## Machine and packages",
        "",
        "| | |",
        "|---|---|",
        f"| Python | {platform.python_version()} |",
        f"| platform | {platform.platform()} |",
        f"| CPU cores | {os.cpu_count()} |",
        f"| threads per chapter (OMP_NUM_THREADS) | {timings.get('threads_per_chapter', '—')} |",
        f"| CUDA available | {torch.cuda.is_available()} |",
        *[f"| {p} | {_version(p)} |" for p in PACKAGES],
        "",
    ]
    return "\n".join(out)


ROOMS = ("lsc", "implicit_bias", "mean_field", "infinite_width", "synthesis")
COMMON = ("datasets", "plotting", "stats", "cache")


def _room_modules(room: str) -> list[str]:
    import importlib
    import pkgutil

    try:
        pkg = importlib.import_module(f"rnnbook.{room}")
    except ModuleNotFoundError:
        return []
    return [f"rnnbook.{room}.{m.name}" for m in pkgutil.iter_modules(pkg.__path__)]


def chapter_modules(source: Path) -> list[str]:
    """The ``rnnbook`` modules a chapter source imports (``from rnnbook.lsc import bounds`` gives
    ``rnnbook.lsc.bounds``), build room excluded."""
    import ast
    import importlib.util

    out: list[str] = []
    for node in ast.walk(ast.parse(Path(source).read_text())):
        if not isinstance(node, ast.ImportFrom) or not (node.module or "").startswith(
            "rnnbook"
        ):
            continue
        for alias in node.names:
            full = f"{node.module}.{alias.name}"
            name = (
                full
                if importlib.util.find_spec(node.module) and _is_module(full)
                else node.module
            )
            if not name.startswith("rnnbook.book") and name not in out:
                out.append(name)
    return out


def _is_module(name: str) -> bool:
    import importlib.util

    try:
        return importlib.util.find_spec(name) is not None
    except ModuleNotFoundError:
        return False


def where(chapters: Iterable[Any]) -> str:
    """Which modules each chapter calls, and where its claims are declared."""
    rows = ["| chapter | claims declared in | modules it calls |", "|---|---|---|"]
    for ch in chapters:
        mods = ", ".join(f"{{mod}}`{m}`" for m in chapter_modules(ch.source))
        rows.append(
            f"| {{doc}}`/{ch.name}` | `{ch.name}.claims.yaml` | {mods or '—'} |"
        )
    return "\n".join(rows) + "\n"


def api() -> str:
    """autodoc directives: each room's docstring, then every module of it with its members."""
    out = []
    for room in ROOMS:
        mods = _room_modules(room)
        if not mods:
            continue
        out += [
            f"### `rnnbook.{room}`",
            "",
            "```{eval-rst}",
            f".. automodule:: rnnbook.{room}",
            "",
        ]
        for m in mods:
            out += [f".. automodule:: {m}", "   :members:", ""]
        out += ["```", ""]
    out += ["### The common layer", "", "```{eval-rst}"]
    for m in COMMON:
        out += [f".. automodule:: rnnbook.{m}", "   :members:", ""]
    return "\n".join(out + ["```", ""])


def write_generated(
    folder: Path, claims: list[dict], timings: dict, chapters: list[Any]
) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    root = folder.parents[3] if len(folder.parents) > 3 else None
    (folder / "scorecard.md").write_text(scorecard(claims))
    (folder / "errata_evidence.md").write_text(errata_evidence(claims))
    (folder / "status.md").write_text(status(timings, chapters, root))
    (folder / "where.md").write_text(where(chapters))
    (folder / "api.md").write_text(api())
