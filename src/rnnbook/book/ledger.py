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
    extra: dict = field(default_factory=dict)

    def _repr_markdown_(self) -> str:
        """The claim box shown in the chapter, under the cell that measured it."""
        kind = {
            "reproduced": "tip",
            "partly-reproduced": "warning",
            "not-reproduced": "danger",
            "inconclusive": "note",
            "not-attempted": "note",
        }[self.verdict]
        rows = [f"**{md_escape(self.source)}.** {md_escape(self.statement)}", ""]
        if self.paper_value is not None:
            rows.append(f"- **paper**: {md_cell(self.paper_value, 600)}")
        rows.append(f"- **measured** ({self.profile}): {md_cell(self.measured, 900)}")
        if self.tolerance is not None:
            rows.append(f"- **tolerance**: {md_cell(self.tolerance, 400)}")
        if self.seeds is not None:
            rows.append(f"- **seeds**: {self.seeds}")
        if self.trained is not None:
            gate = "passed" if self.trained["passed"] else "failed"
            rows.append(
                f"- **trained** ({md_cell(self.trained['rule'], 200)}): {gate}, "
                f"value {md_cell(self.trained.get('value'), 200)}"
            )
        if self.rule:
            rows.append(
                f"- **rule** (declared before the run): {md_cell(self.rule, 600)}"
            )
        if self.note:
            rows.append(f"- **note**: {md_cell(self.note, 1500)}")
        return "\n".join(
            [
                f":::{{admonition}} `{self.id}`: {self.verdict}",
                f":class: {kind}",
                "",
                *rows,
                ":::",
            ]
        )

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
        )
        return self._write(claim)

    def _write(self, claim: Claim) -> Claim:
        folder = claims_dir()
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{claim.id}.json").write_text(json.dumps(asdict(claim), indent=1))
        self.claims = [c for c in self.claims if c.id != claim.id] + [claim]
        return claim

    def table(self) -> str:
        """The chapter's verdicts as a Markdown table (display it with ``IPython.display.Markdown``)."""
        rows = ["| claim | source | measured | verdict |", "| --- | --- | --- | --- |"]
        for c in self.claims:
            rows.append(
                f"| `{c.id}` | {md_escape(c.source)} | {md_cell(c.measured)} | **{c.verdict}** |"
            )
        return "\n".join(rows)


_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]<>|#~$])")


def md_escape(text: str) -> str:
    """Escape Markdown/MyST specials so that measured values (``nu_W**j``, ``a|b``) print literally."""
    return _MD_SPECIAL.sub(r"\\\1", text.replace("\n", " "))


def md_cell(x: Any, width: int = 160) -> str:
    """A value for a Markdown table cell: JSON for non-strings, shortened to ``width``, escaped."""
    s = "—" if x is None else x if isinstance(x, str) else json.dumps(x)
    s = s if len(s) <= width else s[: width - 1] + "…"
    return md_escape(s)


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
