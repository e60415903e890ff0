"""What the book holds, from the command line (ARCHITECTURE.md, *Pipeline*, *The claim ledger*):

* ``python -m rnnbook list``: every chapter with its expected time per profile and its claims;
* ``python -m rnnbook params CHAPTER``: each parameter's type, presets per profile, allowed values
  and description;
* ``python -m rnnbook claims check [CHAPTER]``: the claims files validated without running a
  chapter: YAML errors with the file and line, the declarations (:func:`rnnbook.book.claims.load`),
  every rule expression compiled, the measured names each rule reads (none may be a constant's
  name), and the claim ids the chapter's code checks against those it declares.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import yaml

from . import claims as _claims
from .params import PROFILES
from .pipeline import chapters, expected_seconds, find_chapter
from .spec import chapter_spec, describe_kind, presets


def _claim_count(root: Path, short: str) -> str:
    path = _claims.claims_file(short, root)
    if not path.exists():
        return "-"
    try:
        return str(len(_claims.load(path, short)))
    except (_claims.ClaimError, yaml.YAMLError):
        return "invalid (claims check)"


def list_chapters(root: Path) -> str:
    """A table of the chapters: expected seconds at the smoke and book profiles, claims."""
    times = {p: expected_seconds(root / "_build", p) for p in ("smoke", "book")}
    rows = [f"{'chapter':34s} {'smoke s':>8s} {'book s':>8s}  claims"]
    for ch in chapters(root):
        t = [times[p].get(ch.name) for p in ("smoke", "book")]
        cells = [f"{v:8.0f}" if v else f"{'?':>8s}" for v in t]
        rows.append(
            f"{ch.short:34s} {cells[0]} {cells[1]}  {_claim_count(root, ch.short)}"
        )
    rows.append(
        "expected times: the last build's own timings, else src/rnnbook/book/"
        "chapter_seconds.yaml (2 CPU cores, one thread per chapter)"
    )
    return "\n".join(rows)


def describe_params(root: Path, name: str) -> str:
    """Each parameter of chapter ``name``: type, presets per profile, allowed, description."""
    ch = find_chapter(root, name)
    lines = [f"{ch.short}: parameters (-p NAME VALUE; profile: {', '.join(PROFILES)})"]
    for pname, p in chapter_spec(ch.source).items():
        pre = ", ".join(f"{k} {v!r}" for k, v in presets(p).items())
        lines.append(f"  {pname} ({describe_kind(p)}): {pre}")
        if p.allowed:
            lines.append(f"      allowed: {p.allowed}")
        if p.help:
            lines.append(f"      {p.help}")
    return "\n".join(lines)


def _yaml_error(path: Path, e: yaml.YAMLError) -> str:
    mark = getattr(e, "problem_mark", None)
    where = f"{path}:{mark.line + 1}:{mark.column + 1}" if mark else str(path)
    problem = getattr(e, "problem", None) or str(e)
    context = getattr(e, "context", None)
    return f"{where}: {problem}" + (f" ({context})" if context else "")


def load_checked(path: Path, chapter: str) -> dict:
    """:func:`rnnbook.book.claims.load`, with a YAML error given as file:line:column."""
    try:
        yaml.safe_load(path.read_text())
    except yaml.YAMLError as e:
        raise _claims.ClaimError(_yaml_error(path, e)) from None
    return _claims.load(path, chapter)


def _checks(source: Path) -> dict[str, set[str] | None]:
    """The claim ids a chapter's code checks (``ledger.check("id", name=...)``), each with the
    measured names it passes, or None where it passes a ``**`` mapping (names unknown here);
    the key ``""`` where it also checks ids it computes (``f"lsc.fig1c.{claim}"``)."""
    try:
        tree = ast.parse(source.read_text())
    except SyntaxError:
        ids = re.findall(r"""\.check\(\s*["']([\w.\-]+)["']""", source.read_text())
        return dict.fromkeys(ids)
    out: dict[str, set[str] | None] = {}
    for node in ast.walk(tree):
        if not (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "check"
            and node.args
        ):
            continue
        if not (
            isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
        ):
            out[""] = None
            continue
        names = {k.arg for k in node.keywords}
        cid = node.args[0].value
        known = None if None in names else names
        out[cid] = None if cid in out and out[cid] is None else known
    return out


def check_claims(root: Path, name: str | None = None) -> list[str]:
    """Problems of the claims files (all, or chapter ``name``'s), one line each; empty: fine."""
    chs = chapters(root) if name is None else [find_chapter(root, name)]
    problems: list[str] = []
    for ch in chs:
        path = _claims.claims_file(ch.short, root)
        if not path.exists():
            continue
        rel = path.relative_to(root)
        try:
            declared = load_checked(path, ch.short)
        except _claims.ClaimError as e:
            problems.append(
                f"{rel}: {e}" if not str(e).startswith(str(path)) else str(e)
            )
            continue
        checks = _checks(ch.source)
        for cid, d in declared.items():
            for _, expr in d.rule:
                if expr == "otherwise":
                    continue
                try:
                    ast.parse(expr, mode="eval")
                except SyntaxError as e:
                    problems.append(f"{rel}: claim {cid}: rule {expr!r}: {e.msg}")
                    continue
                passed = checks.get(cid)
                if passed is not None:
                    missing = sorted(set(_claims.rule_names(expr, d)) - passed)
                    if missing:
                        problems.append(
                            f"{rel}: claim {cid}: its rule reads {missing}, which neither "
                            "its constants nor the chapter's ledger.check call give"
                        )
            if cid not in checks and "" not in checks:
                problems.append(
                    f"warning: {rel}: claim {cid} is declared, but "
                    f"{ch.source.relative_to(root)} never checks it"
                )
        for cid in sorted(set(checks) - set(declared) - {""}):
            problems.append(
                f"{ch.source.relative_to(root)}: ledger.check({cid!r}): not declared in {rel}"
            )
    return problems
