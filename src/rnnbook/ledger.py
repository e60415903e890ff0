"""The claim ledger (CONVENTIONS.md, *The claim ledger*).

A chapter records each claim it checks with :meth:`Ledger.record`. Each record is written as one JSON
file into the build folder (``_build/claims/<id>.json``, or the folder named by ``RNNBOOK_CLAIMS_DIR``);
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

PAPERS = ("lsc", "implicit-bias", "mean-field", "infinite-width")
VERDICTS = ("reproduced", "partly-reproduced", "not-reproduced", "not-attempted")
FIELDS = ("id", "paper", "source", "statement", "paper_value", "measured", "tolerance", "verdict", "profile", "note")
_ID = re.compile(r"^[a-z0-9][a-z0-9_.\-]*$")


def build_dir() -> Path:
    """The build folder: ``RNNBOOK_BUILD_DIR`` if set (the pipeline sets it), else ``./_build``."""
    return Path(os.environ.get("RNNBOOK_BUILD_DIR", "_build")).resolve()


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
    extra: dict = field(default_factory=dict)

    def _repr_markdown_(self) -> str:
        return (f"Recorded claim `{self.id}` ({md_escape(self.source)}): **{self.verdict}**; measured: "
                f"{md_cell(self.measured, 300)}")

    def __post_init__(self) -> None:
        if not isinstance(self.id, str) or not _ID.match(self.id):
            raise ValueError(f"claim id {self.id!r}: must be lower-case letters, digits, '.', '-' or '_'")
        if self.paper not in PAPERS:
            raise ValueError(f"claim {self.id}: paper {self.paper!r} must be one of {PAPERS}")
        if not self.id.startswith(self.paper.split("-")[0]):
            raise ValueError(f"claim {self.id}: id must start with the paper's short name")
        if self.verdict not in VERDICTS:
            raise ValueError(f"claim {self.id}: verdict {self.verdict!r} must be one of {VERDICTS}")
        if self.verdict == "not-attempted" and not self.note:
            raise ValueError(f"claim {self.id}: a not-attempted claim needs the reason in 'note'")
        for name in ("source", "statement"):
            if not getattr(self, name):
                raise ValueError(f"claim {self.id}: {name!r} must not be empty")
        self.paper_value = _jsonable(self.paper_value)
        self.measured = _jsonable(self.measured)
        self.tolerance = _jsonable(self.tolerance)


class Ledger:
    """Records the claims of one chapter for one paper at one profile."""

    def __init__(self, paper: str, profile: str, chapter: str | None = None) -> None:
        if paper not in PAPERS:
            raise ValueError(f"paper {paper!r} must be one of {PAPERS}")
        self.paper, self.profile = paper, profile
        self.chapter = chapter or os.environ.get("RNNBOOK_CHAPTER", "")
        self.claims: list[Claim] = []

    def record(self, id: str, source: str, statement: str, *, measured: Any, verdict: str,
               paper_value: Any = None, tolerance: Any = None, note: str = "", **extra: Any) -> Claim:
        """Record one claim (writes ``<claims dir>/<id>.json``) and return it."""
        claim = Claim(id=id, paper=self.paper, source=source, statement=statement, paper_value=paper_value,
                      measured=measured, tolerance=tolerance, verdict=verdict, profile=self.profile,
                      note=note, chapter=self.chapter, extra=_jsonable(extra))
        folder = claims_dir()
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{id}.json").write_text(json.dumps(asdict(claim), indent=1))
        self.claims = [c for c in self.claims if c.id != id] + [claim]
        return claim

    def table(self) -> str:
        """The chapter's verdicts as a Markdown table (display it with ``IPython.display.Markdown``)."""
        rows = ["| claim | source | measured | verdict |", "| --- | --- | --- | --- |"]
        for c in self.claims:
            rows.append(f"| `{c.id}` | {md_escape(c.source)} | {md_cell(c.measured)} | **{c.verdict}** |")
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
    for path in sorted(Path(folder).glob("*.json")):
        data = json.loads(path.read_text())
        Claim(**data)  # validates
        records.append(data)
    order = {p: i for i, p in enumerate(PAPERS)}
    return sorted(records, key=lambda r: (order[r["paper"]], r["id"]))


def verdict_within(measured: float, expected: float, rel_tol: float) -> str:
    """``reproduced`` if ``|measured - expected| <= rel_tol * |expected|``, else ``not-reproduced``."""
    return "reproduced" if abs(measured - expected) <= rel_tol * abs(expected) else "not-reproduced"
