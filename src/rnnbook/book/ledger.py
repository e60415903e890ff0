"""The claim ledger (CONVENTIONS.md, *The claim ledger*).

A chapter opens the ledger of its declared claims (:mod:`rnnbook.book.claims`) with
``Ledger("lsc/lemma2_paths", P.profile)`` and passes what it measured with :meth:`Ledger.check`; the
declared rule gives the verdict. Each record is written as one JSON file into the build folder (``_build/claims/<id>.json``, or the folder named by ``RNNBOOK_CLAIMS_DIR``);
the pipeline collects them into ``_build/claims.json``.
"""

from __future__ import annotations

import json
import math
import os
import re
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from rnnbook.cache import build_dir

from . import claims as _claims
from .claims import PAPERS, VERDICTS, ClaimError

FIELDS = (
    "id",
    "paper",
    "source",
    "statement",
    "paper_value",
    "measured",
    "tolerance",
    "verdict",
    "profile",
    "note",
    "rule",
    "seeds",
    "trained",
)
_ID = re.compile(r"^[a-z0-9][a-z0-9_.\-]*$")


def claims_dir() -> Path:
    return Path(os.environ.get("RNNBOOK_CLAIMS_DIR", build_dir() / "claims"))


def _jsonable(x: Any) -> Any:
    """Numbers, lists and strings as JSON; numpy/torch scalars and arrays become Python values."""
    if hasattr(x, "tolist"):
        x = x.tolist()
    if isinstance(x, (list, tuple)):
        return [_jsonable(v) for v in x]
    if isinstance(x, dict):
        return {str(k): _jsonable(v) for k, v in x.items()}
    if isinstance(x, float) and not math.isfinite(x):
        return str(x)
    if x is None or isinstance(x, (bool, int, float, str)):
        return x
    return str(x)


@dataclass
class Claim:
    id: str
    paper: str
    source: str
    statement: str
    paper_value: Any
    measured: Any
    tolerance: Any
    verdict: str
    profile: str
    note: str = ""
    chapter: str = ""
    rule: str = ""
    seeds: int | None = None
    trained: dict | None = None
    history: list | None = None
    values: dict | None = None
    effects: list | None = None  # per effect: interval, smallest effect, decision
    extra: dict = field(default_factory=dict)

    def _repr_markdown_(self) -> str:
        """The claim box shown in the chapter where the claim is decided.

        It carries the claim id as its HTML anchor (``chapter.html#<id>``) and links back to the
        claim's row on the scorecard."""
        kind = {
            "reproduced": "tip",
            "partly-reproduced": "warning",
            "not-reproduced": "danger",
            "inconclusive": "note",
            "not-attempted": "note",
        }[self.verdict]
        anchor = f'<span id="{self.id}" class="claim-anchor"></span>'
        rows = [f"{anchor}**Claim.** {md_escape(self.statement)}", ""]
        if self.paper_value is not None:
            rows.append(f"- **paper**: {md_cell(self.paper_value, None)}")
        measured = self.measured
        if self.effects and isinstance(measured, str):
            measured = measured.partition("Decided: ")[0].rstrip(". ") or None
        rows.append(
            f"- **measured** ({self.profile} profile): {md_cell(measured, None)}"
        )
        if self.effects:
            rows.append("- **decided per effect** (each on its own interval):")
            rows += [f"  - {effect_text(e)}" for e in self.effects]
        if self.seeds is not None:
            rows.append(f"- **seeds**: {seeds_text(self.seeds)}")
        if self.trained is not None:
            rows.append(f"- **trained?** {trained_text(self.trained)}")
        if self.tolerance is not None:
            rows.append(f"- **tolerance**: {md_cell(self.tolerance, None)}")
        if self.rule:
            rows += rule_rows(self.rule, self.history)
        if self.note:
            rows.append(f"- **note**: {md_cell(self.note, None)}")
        back = scorecard_url(self.chapter, self.id) if self.chapter else ""
        if back:
            rows += [
                "",
                f'<a class="claim-back" href="{back}">this claim on the scorecard</a>',
            ]
        return "\n".join(
            [
                f":::{{admonition}} {md_escape(self.source)}: {self.verdict} "
                f"(`{self.id}`)",
                f":class: {kind} claim-box",
                "",
                *rows,
                ":::",
            ]
        )

    def _ipython_display_(self) -> None:
        """Show the box once: :meth:`Ledger.check` already shows it where the claim is decided,
        so a check that is also the last expression of its cell (or passed to ``display``) does
        not show it twice."""
        if not self._shown:
            show(self)

    def __post_init__(self) -> None:
        if not isinstance(self.id, str) or not _ID.match(self.id):
            raise ValueError(
                f"claim id {self.id!r}: must be lower-case letters, digits, '.', '-' or '_'"
            )
        if self.paper not in PAPERS:
            raise ValueError(
                f"claim {self.id}: paper {self.paper!r} must be one of {PAPERS}"
            )
        if not self.id.startswith(self.paper.split("-")[0]):
            raise ValueError(
                f"claim {self.id}: id must start with the paper's short name"
            )
        if self.verdict not in VERDICTS:
            raise ValueError(
                f"claim {self.id}: verdict {self.verdict!r} must be one of {VERDICTS}"
            )
        if self.verdict == "not-attempted" and not self.note:
            raise ValueError(
                f"claim {self.id}: a not-attempted claim needs the reason in 'note'"
            )
        for name in ("source", "statement"):
            if not getattr(self, name):
                raise ValueError(f"claim {self.id}: {name!r} must not be empty")
        self.paper_value = _jsonable(self.paper_value)
        self.measured = _jsonable(self.measured)
        self.tolerance = _jsonable(self.tolerance)
        self._shown = False


class Ledger:
    """Records the claims of one chapter at one profile, against the chapter's declarations.

    ``Ledger("lsc/lemma2_paths", profile)`` reads ``notebooks/lsc/lemma2_paths.claims.yaml``;
    :meth:`check` applies a declared rule to the measured values and records the claim.
    """

    def __init__(self, chapter: str, profile: str, root: Path | None = None) -> None:
        self.chapter = "notebooks/" + chapter.removeprefix("notebooks/")
        self.declared = _claims.load(_claims.claims_file(chapter, root), self.chapter)
        papers = {d.paper for d in self.declared.values()}
        self.paper = papers.pop() if papers else ""
        self.profile = profile
        self.claims: list[Claim] = []

    def check(
        self, id: str, *, seeds: int | None = None, note: str = "", **values: Any
    ) -> Claim:
        """Record declared claim ``id`` from its measured ``values``; the declared rule decides.

        ``note`` is appended to the declared note (for what only the run can say)."""
        if id not in self.declared:
            raise ClaimError(
                f"claim {id!r} is not declared in {self.chapter}.claims.yaml; "
                f"declared: {', '.join(self.declared)}"
            )
        d = self.declared[id]
        if d.trained is not None and (not isinstance(seeds, int) or seeds < 1):
            raise ClaimError(
                f"claim {id!r} is a training claim (it declares a trained gate): "
                "pass seeds=<number of independent seeds behind it>"
            )
        dec = _claims.decide(d, values, self.profile)
        full_note = " ".join(x for x in (dec.note, note) if x)
        if dec.verdict == "not-attempted" and not full_note:
            full_note = "not attempted"
        claim = Claim(
            id=id,
            paper=d.paper,
            source=d.source,
            statement=d.statement,
            paper_value=d.paper_value,
            measured=dec.measured,
            tolerance=d.tolerance,
            verdict=dec.verdict,
            profile=self.profile,
            note=full_note,
            chapter=self.chapter,
            rule=d.rule_text(),
            seeds=seeds,
            trained=dec.trained,
            history=_jsonable(list(getattr(d, "history", None) or [])) or None,
            values=quotable(values),
            effects=_jsonable(dec.effects) if dec.effects else None,
        )
        self._write(claim)
        show(claim)
        return claim

    def _write(self, claim: Claim) -> Claim:
        folder = claims_dir()
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{claim.id}.json").write_text(json.dumps(asdict(claim), indent=1))
        self.claims = [c for c in self.claims if c.id != claim.id] + [claim]
        return claim

    def table(self) -> str:
        """The chapter's verdicts as a Markdown table, each claim linked to its box (display it
        with ``IPython.display.Markdown``)."""
        rows = ["| claim | source | verdict |", "| --- | --- | --- |"]
        for c in self.claims:
            link = f'<a href="#{c.id}">{md_escape(c.statement)}</a>'
            rows.append(f"| {link} | {md_escape(c.source)} | **{c.verdict}** |")
        return "\n".join(rows)


def quotable(values: dict) -> dict | None:
    """The measured values that prose may quote (``{claim}`id:values.steps```): numbers,
    strings, booleans and short lists of them; arrays and curves are left out."""
    out = {}
    for k, v in values.items():
        v = _jsonable(v)
        scalar = (bool, int, float, str)
        if isinstance(v, scalar) and len(str(v)) <= 200:
            out[k] = v
        elif (
            isinstance(v, list)
            and len(v) <= 12
            and all(isinstance(x, scalar) for x in v)
        ):
            out[k] = v
    return out or None


_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]<>|#~$])")


def md_escape(text: str) -> str:
    """Escape Markdown/MyST specials so that measured values (``nu_W**j``, ``a|b``) print literally."""
    return _MD_SPECIAL.sub(r"\\\1", text.replace("\n", " "))


def md_cell(x: Any, width: int | None = 160) -> str:
    """A value for Markdown: JSON for non-strings (floats rounded for reading), escaped; shortened
    to ``width`` characters only where a ``width`` is given (never inside a number)."""
    s = "—" if x is None else x if isinstance(x, str) else json.dumps(readable(x))
    if width is not None and len(s) > width:
        cut = s[: width - 1]
        s = (cut[: m.start()] if (m := re.search(r"[\d.eE+-]+$", cut)) else cut) + "…"
    return md_escape(s)


def readable(x: Any, digits: int = 4) -> Any:
    """Floats rounded to ``digits`` significant digits, inside lists and dicts too."""
    if isinstance(x, float) and math.isfinite(x) and x != 0:
        return float(f"{x:.{digits}g}")
    if isinstance(x, list):
        return [readable(v, digits) for v in x]
    if isinstance(x, dict):
        return {k: readable(v, digits) for k, v in x.items()}
    return x


def seeds_text(seeds: int) -> str:
    return f"{seeds} independent seed{'s' if seeds != 1 else ''}"


def trained_text(trained: dict) -> str:
    """The trained-or-not gate in words: passed or not, its declared test and its value."""
    test = md_cell(trained["rule"], None)
    value = md_cell(trained.get("value"), None)
    if trained["passed"]:
        return f"yes: the declared test ({test}) holds, value {value}"
    return (
        f"no: the declared test ({test}) fails, value {value}; so the verdict is "
        "inconclusive, whatever the rule says"
    )


def _rule_text(rule: Any) -> str:
    """A rule as one line, whether given as text or as the claims file's list of entries."""
    if not isinstance(rule, list):
        return "" if rule is None else str(rule)
    parts = []
    for entry in rule:
        ((verdict, cond),) = entry.items() if isinstance(entry, dict) else [(entry, "")]
        parts.append(
            f"otherwise {cond}" if verdict == "otherwise" else f"{verdict} if {cond}"
        )
    return "; ".join(parts)


def rule_rows(rule: str, history: list | None) -> list[str]:
    """The rule, and either that it was declared before the run or how it changed after one."""
    if not history:
        return [f"- **rule** (declared before the run): {md_cell(rule, None)}"]
    rows = [f"- **rule** (changed after a run): {md_cell(rule, None)}"]
    for h in history:
        rows.append(
            f"- **until {md_escape(str(h.get('date', 'an earlier run')))} the rule was**: "
            f"{md_cell(_rule_text(h.get('old_rule')), None)}. Changed because: "
            f"{md_cell(h.get('why'), None)}"
        )
    return rows


def effect_text(e: dict) -> str:
    """One effect of a claim decided per effect: its interval against the smallest effect."""
    side = {"above": "above", "below": "below", "within": "within ±"}.get(
        e.get("direction"), str(e.get("direction"))
    )
    verdict = e.get("decision", "")
    if not e.get("trained", True):
        verdict += " (its networks did not train)"
    elif e.get("contrary"):
        verdict += " (a significant effect against the paper)"
    level = e.get("level")
    how = f"{level:.1%} {e.get('interval', '')} interval" if level else "interval"
    est, lo, hi, small = (
        md_cell(readable(e.get(k), 3), None)
        for k in ("estimate", "lo", "hi", "smallest")
    )
    return (
        f"**{md_escape(str(e.get('name', '')))}**: {est} \\[{lo}, {hi}\\] "
        f"({how}, n = {e.get('n')}); the paper's effect needs {side} {small}: "
        f"**{verdict}**"
    )


def scorecard_url(chapter: str, claim_id: str) -> str:
    """The claim's row on the scorecard, relative to the chapter's page."""
    depth = chapter.strip("/").count("/")
    return "../" * depth + f"book/scorecard.html#{row_id(claim_id)}"


def row_id(claim_id: str) -> str:
    """The HTML id of a claim's row on the scorecard."""
    return f"scorecard-{claim_id}"


def show(claim: Claim) -> None:
    """Display the claim box now, when running inside a kernel (IPython); else do nothing."""
    try:
        from IPython import get_ipython
        from IPython.display import display
    except ImportError:  # pragma: no cover - IPython ships with the book's environment
        return
    if get_ipython() is None:
        return
    display(
        {
            "text/markdown": claim._repr_markdown_(),
            "text/plain": f"{claim.id}: {claim.verdict}",
        },
        raw=True,
    )
    claim._shown = True


def collect(folder: Path) -> list[dict]:
    """Read every claim record in ``folder``, validate it, and return them sorted by paper and id."""
    records = []
    for path in sorted(Path(folder).rglob("*.json")):
        data = json.loads(path.read_text())
        Claim(**data)  # validates
        records.append(data)
    order = {p: i for i, p in enumerate(PAPERS)}
    return sorted(records, key=lambda r: (order[r["paper"]], r["id"]))


def verdict_within(measured: float, expected: float, rel_tol: float) -> str:
    """``reproduced`` if ``|measured - expected| <= rel_tol * |expected|``, else ``not-reproduced``."""
    return (
        "reproduced"
        if abs(measured - expected) <= rel_tol * abs(expected)
        else "not-reproduced"
    )
