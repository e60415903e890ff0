"""A chapter's parameters read without running it (ARCHITECTURE.md, *Profiles*): its ``SPEC``
(one :class:`~rnnbook.book.params.Param` per parameter), values given on the command line read by
the parameter's type (``1e-3`` is a float, ``3`` an int, ``[1, 2]`` or ``1,2`` a list), checked
before any kernel starts, with one line naming the parameter and what it accepts; and the
repository root, found from any folder inside it.

The ``SPEC`` is read by executing the statements of the chapter's code cell that defines it, up
to that assignment (its imports and the names it uses), never the rest of the chapter.
"""

from __future__ import annotations

import ast
import difflib
from pathlib import Path
from typing import Any

import yaml

from .params import PROFILES, Device, Param, ParameterError, SeedStart, validate


def find_root(start: Path | None = None) -> Path:
    """The repository root: the first folder from ``start`` (default: the working folder) up
    that holds ``_toc.yml`` and ``notebooks/``."""
    here = Path(start or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        if (folder / "_toc.yml").is_file() and (folder / "notebooks").is_dir():
            return folder
    raise ParameterError(
        f"{here} is not inside the book's repository (no _toc.yml and notebooks/ in it or "
        "above it): run from the repository, or pass --root"
    )


def did_you_mean(word: str, choices: list[str]) -> str:
    """`` (did you mean 'x'?)`` for the closest of ``choices``, or ``""``."""
    close = difflib.get_close_matches(word, choices, n=1, cutoff=0.6)
    if not close:  # a chapter named by its last part: rho_j -> implicit_bias/rho_j
        close = [c for c in choices if c.rsplit("/", 1)[-1] == word.rsplit("/", 1)[-1]]
    return f" (did you mean {close[0]!r}?)" if close else ""


def notebook_parameters(source: Path) -> dict[str, Any]:
    """The names and defaults of a chapter's ``parameters`` cell (as papermill infers them)."""
    import jupytext

    for cell in jupytext.read(source).cells:
        if "parameters" in cell.metadata.get("tags", []):
            ns: dict[str, Any] = {}
            exec(compile(cell.source, str(source), "exec"), ns)  # only assigns literals
            return {k: v for k, v in ns.items() if not k.startswith("__")}
    raise ParameterError(f"{source}: no cell tagged 'parameters'")


_BUILTINS = {"list", "tuple", "dict", "set", "range", "sorted"}


def _cheap(stmt: ast.stmt, allowed: set[str]) -> bool:
    """An import, or an assignment whose only calls are to containers or to the parameter
    helpers (``K = list(models.RNN_KINDS)``, ``FIG1C = {"w": Param(...)}``): what a ``SPEC``
    may read from earlier cells."""
    if isinstance(stmt, (ast.Import, ast.ImportFrom)):
        if isinstance(stmt, ast.ImportFrom) and stmt.module == "rnnbook.book.params":
            allowed |= {a.asname or a.name for a in stmt.names}
        return True
    if not isinstance(stmt, ast.Assign):
        return False
    calls = [n for n in ast.walk(stmt.value) if isinstance(n, ast.Call)]
    return all(isinstance(c.func, ast.Name) and c.func.id in allowed for c in calls)


def _spec_statements(source: Path) -> list[ast.stmt]:
    """The imports of the code cells before the one that defines ``SPEC``, then that cell's
    statements up to the assignment."""
    import jupytext

    body: list[ast.stmt] = []
    allowed = set(_BUILTINS)
    for cell in jupytext.read(source).cells:
        if cell.cell_type != "code":
            continue
        try:
            tree = ast.parse(cell.source)
        except SyntaxError:  # a magic
            continue
        if "SPEC = " not in cell.source:
            body += [s for s in tree.body if _cheap(s, allowed)]
            continue
        for stmt in tree.body:
            body.append(stmt)
            if isinstance(stmt, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == "SPEC" for t in stmt.targets
            ):
                return body
    raise ParameterError(f"{source}: no code cell defines SPEC")


def chapter_spec(source: Path) -> dict[str, Param]:
    """The chapter's ``SPEC``, with ``device`` and ``seed_start`` added where its parameters
    cell has them (as :func:`rnnbook.book.chapter.start` adds them)."""
    ns: dict[str, Any] = {}
    code = ast.Module(_spec_statements(source), [])
    exec(compile(code, str(source), "exec"), ns)
    spec = dict(ns["SPEC"])
    cell = notebook_parameters(source)
    if "device" in cell and "device" not in spec:
        spec["device"] = Device()
    if "seed_start" in cell and "seed_start" not in spec:
        spec["seed_start"] = SeedStart()
    return spec


_BOOLS = {"true": True, "yes": True, "1": True, "false": False, "no": False, "0": False}


def _one(text: str, kind: type | None) -> Any:
    if kind is float:
        return float(text)
    if kind is int:
        return int(text)
    if kind is bool:
        return _BOOLS[text.strip().lower()]
    if kind is str:
        return text
    return yaml.safe_load(text)


def read_value(name: str, text: str, p: Param | None) -> Any:
    """``text`` read as parameter ``name`` of kind ``p.kind``; a ``ParameterError`` naming
    the parameter and what it accepts when it cannot be."""
    if p is None:
        return yaml.safe_load(text)
    try:
        if p.kind is list:
            items = yaml.safe_load(text) if text.strip().startswith("[") else None
            if items is None:
                items = [t.strip() for t in text.split(",") if t.strip()]
            if not isinstance(items, list):
                items = [items]
            return [_one(str(v), p.item) if p.item else v for v in items]
        return _one(text, p.kind)
    except (ValueError, KeyError, yaml.YAMLError):
        what = f"a list of {p.item.__name__}" if p.kind is list and p.item else None
        what = what or {int: "an int", float: "a float", bool: "true or false"}.get(
            p.kind, f"a {p.kind.__name__}"
        )
        raise ParameterError(
            f"parameter {name!r} = {text!r}: must be {what}"
            + (f" ({p.allowed})" if p.allowed else "")
        ) from None


def check_given(
    chapter: str, spec: dict[str, Param], given: dict[str, str]
) -> dict[str, Any]:
    """The command line's ``given`` values (text) read and checked against ``spec`` at the
    profile they name (default ``book``): unknown names, bad types and values out of range stop
    here, before a kernel starts. Returns the values as the kernel gets them."""
    profile = given.get("profile", "book")
    if profile not in PROFILES:
        raise ParameterError(
            f"parameter 'profile' = {profile!r}: must be one of {', '.join(PROFILES)}"
        )
    out: dict[str, Any] = {"profile": profile}
    for name, text in given.items():
        if name == "profile":
            continue
        if name not in spec:
            raise ParameterError(
                f"unknown parameter {name!r} for chapter {chapter}"
                f"{did_you_mean(name, list(spec))}; its parameters are: profile, "
                + ", ".join(spec)
            )
        value = read_value(name, text, spec[name])
        validate(name, value, spec[name])  # the value itself, as the kernel will see it
        out[name] = value
    return out


def presets(p: Param) -> dict[str, Any]:
    """The parameter's preset at every profile."""
    return {profile: p.preset(profile) for profile in PROFILES}


def describe_kind(p: Param) -> str:
    if p.kind is list and p.item is not None:
        return f"list of {p.item.__name__}"
    return p.kind.__name__
