"""A content-addressed execution cache: a chapter runs again only when something it depends on changed.

Jupyter Book's own cache keys on a notebook's code alone and misses changes in the modules it imports.
Here a chapter's key is the hash of everything its execution depends on:

* its **code cells** (not its markdown: a prose edit is re-rendered from the source, never executed);
* its **claim declarations** (``<chapter>.claims.yaml``: the rules decide the verdicts);
* the **local modules it imports**, followed transitively through the package's own imports (a module
  under the book's ``src/``; a package's ``__init__`` counts, since importing a submodule runs it);
* its **parameters and profile**, the pinned **``requirements.txt``**, and the **data** it reads (the
  fetched data folder, when :mod:`rnnbook.datasets` is among its imports).

The executed notebook and its claim records are kept under ``_build/cache/<chapter>/<key>/``.
"""

from __future__ import annotations

import ast
import hashlib
import json
import os
import shutil
import subprocess
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

DATA_MODULES = ("rnnbook.datasets",)


def _sha(data: bytes | str) -> str:
    if isinstance(data, str):
        data = data.encode()
    return hashlib.sha256(data).hexdigest()[:16]


def code_cells(source: Path) -> list[str]:
    import jupytext

    nb = jupytext.read(source)
    return [c.source for c in nb.cells if c.cell_type == "code"]


class ModuleIndex:
    """The local modules under ``src/`` and what each of them imports."""

    def __init__(self, src: Path) -> None:
        self.src = Path(src)
        self._imports: dict[str, set[str]] = {}

    def path(self, module: str) -> Path | None:
        base = self.src.joinpath(*module.split("."))
        for candidate in (base.with_suffix(".py"), base / "__init__.py"):
            if candidate.is_file():
                return candidate
        return None

    def is_package(self, module: str) -> bool:
        p = self.path(module)
        return p is not None and p.name == "__init__.py"

    def resolve(self, tree: ast.AST, module: str | None) -> set[str]:
        """Local modules named by the imports of a parsed file (``module``: its own dotted name)."""
        found: set[str] = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level and module is not None:
                    pkg = (
                        module if self.is_package(module) else module.rpartition(".")[0]
                    )
                    parts = pkg.split(".")
                    parts = parts[: len(parts) - node.level + 1]
                    base = ".".join(p for p in (*parts, base) if p)
                names = [base] + [f"{base}.{a.name}" for a in node.names]
            else:
                continue
            for name in names:
                while name and self.path(name) is None:
                    name = name.rpartition(".")[0]
                if name:
                    found.add(name)
        # importing a.b.c runs a/__init__ and a/b/__init__ too
        for name in list(found):
            parts = name.split(".")
            found |= {".".join(parts[:i]) for i in range(1, len(parts))}
        return {n for n in found if self.path(n) is not None}

    def imports(self, module: str) -> set[str]:
        if module not in self._imports:
            path = self.path(module)
            tree = ast.parse(path.read_text()) if path else ast.parse("")
            self._imports[module] = self.resolve(tree, module)
        return self._imports[module]

    def closure(self, roots: set[str]) -> set[str]:
        seen, todo = set(), list(roots)
        while todo:
            m = todo.pop()
            if m in seen:
                continue
            seen.add(m)
            todo += sorted(self.imports(m) - seen)
        return seen


def chapter_modules(source: Path, index: ModuleIndex) -> set[str]:
    """Every local module a chapter's code imports, directly or through other local modules."""
    roots: set[str] = set()
    for code in code_cells(source):
        try:
            tree = ast.parse(code)
        except SyntaxError:  # IPython magics: no imports to follow there
            continue
        roots |= index.resolve(tree, None)
    return index.closure(roots)


def data_fingerprint() -> str:
    """Names and sizes of the fetched data files (the corpus under the venv's share folder)."""
    from rnnbook import datasets

    try:
        folder = datasets.austen_data_dir()
    except Exception:  # not fetched: chapters that need it fail and say so
        return "missing"
    files = sorted(p for p in Path(folder).rglob("*") if p.is_file())
    return _sha("\n".join(f"{p.name}:{p.stat().st_size}" for p in files))


@dataclass(frozen=True)
class Key:
    """A chapter's cache key and the parts it is made of (kept to say why a chapter ran again)."""

    digest: str
    parts: dict[str, Any]


def chapter_key(root: Path, chapter, params: dict[str, Any], index: ModuleIndex) -> Key:
    root = Path(root)
    mods = chapter_modules(chapter.source, index)
    claims = root / f"{chapter.name}.claims.yaml"
    req = root / "requirements.txt"
    parts = {
        "code": _sha("\n# cell\n".join(code_cells(chapter.source))),
        "claims": _sha(claims.read_bytes()) if claims.exists() else "none",
        "modules": {m: _sha(index.path(m).read_bytes()) for m in sorted(mods)},
        "parameters": json.dumps(params, sort_keys=True, default=str),
        "requirements": _sha(req.read_bytes()) if req.exists() else "none",
        "data": data_fingerprint() if set(mods) & set(DATA_MODULES) else "none",
    }
    return Key(_sha(json.dumps(parts, sort_keys=True)), parts)


def why_changed(old: dict[str, Any] | None, new: dict[str, Any]) -> str:
    """Says in a few words why a chapter must run (compared with its last run)."""
    if old is None:
        return "no earlier run"
    reasons = []
    labels = {
        "code": "its code cells changed",
        "claims": "its claim declarations changed",
        "parameters": "its parameters changed",
        "requirements": "requirements.txt changed",
        "data": "its data changed",
    }
    for part, label in labels.items():
        if old.get(part) != new[part]:
            reasons.append(label)
    om, nm = old.get("modules", {}), new["modules"]
    changed = sorted(m for m in nm if m in om and om[m] != nm[m])
    added = sorted(set(nm) - set(om))
    if changed:
        reasons.append("module " + ", ".join(changed) + " changed")
    if added:
        reasons.append("it now imports " + ", ".join(added))
    return "; ".join(reasons) or "its inputs changed"


class Cache:
    """``_build/cache/<chapter>/<key>/``: the executed notebook, its claims and where they came from."""

    def __init__(self, build: Path) -> None:
        self.folder = Path(build) / "cache"

    def _dir(self, chapter: str, digest: str) -> Path:
        return self.folder / chapter.removeprefix("notebooks/") / digest

    def lookup(self, chapter: str, key: Key) -> dict | None:
        meta = self._dir(chapter, key.digest) / "meta.json"
        try:
            return json.loads(meta.read_text())
        except (OSError, ValueError):
            return None

    def last_parts(self, chapter: str) -> dict | None:
        try:
            return json.loads(
                (
                    self.folder / chapter.removeprefix("notebooks/") / "last.json"
                ).read_text()
            )
        except (OSError, ValueError):
            return None

    def store(
        self,
        chapter: str,
        key: Key,
        notebook: Path,
        claims: Path,
        seconds: float,
        build_id: str,
        peak_mb: float | None = None,
        cpu_seconds: float | None = None,
    ) -> None:
        d = self._dir(chapter, key.digest)
        shutil.rmtree(d, ignore_errors=True)
        (d / "claims").mkdir(parents=True)
        shutil.copy2(notebook, d / "notebook.ipynb")
        for f in Path(claims).glob("*.json"):
            shutil.copy2(f, d / "claims" / f.name)
        meta = {
            "key": key.digest,
            "seconds": seconds,
            "build": build_id,
            "peak_mb": peak_mb,
            "cpu_seconds": cpu_seconds,
        }
        (d / "meta.json").write_text(json.dumps(meta, indent=1))
        (d.parent / "last.json").write_text(json.dumps(key.parts, indent=1))

    def restore(
        self, chapter: str, key: Key, source: Path, notebook: Path, claims: Path
    ) -> bool:
        """Put the cached run in place, with the markdown of the current source; True when
        that markdown differs from the cached run's (the prose was edited)."""
        d = self._dir(chapter, key.digest)
        notebook.parent.mkdir(parents=True, exist_ok=True)
        edited = refresh_markdown(source, d / "notebook.ipynb", notebook)
        shutil.rmtree(claims, ignore_errors=True)
        shutil.copytree(d / "claims", claims)
        (d.parent / "last.json").write_text(json.dumps(key.parts, indent=1))
        return edited


def refresh_markdown(source: Path, executed: Path, out: Path) -> bool:
    """The executed notebook with its markdown cells replaced by those of the current source;
    returns True when the markdown differs from the executed notebook's.

    The code cells are the same (the key says so); their outputs, and papermill's injected
    parameters cell, are kept. The markdown cells may have changed, appeared or gone."""
    import jupytext
    import nbformat

    old = nbformat.read(executed, as_version=4)
    new = jupytext.read(source)
    injected = [
        c for c in old.cells if "injected-parameters" in c.metadata.get("tags", [])
    ]
    ran = [c for c in old.cells if c.cell_type == "code" and c not in injected]
    cells, i = [], 0
    for cell in new.cells:
        if cell.cell_type != "code":
            cells.append(
                nbformat.v4.new_markdown_cell(cell.source, metadata=cell.metadata)
            )
            continue
        done = ran[i]
        i += 1
        done.metadata["tags"] = sorted(
            set(cell.metadata.get("tags", []))
            | ({"remove-cell"} & set(done.metadata.get("tags", [])))
        )
        cells.append(done)
        if "parameters" in cell.metadata.get("tags", []):
            cells += injected

    def prose(cs):
        return [c.source for c in cs if c.cell_type == "markdown"]

    edited = prose(old.cells) != prose(cells)
    old.cells = cells
    nbformat.write(old, out)
    return edited


def build_id(root: Path) -> str:
    """When and from which commit a build ran: ``2026-11-23 09:40 UTC, commit abc1234``."""
    when = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    try:
        out = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"],
            cwd=root,
            capture_output=True,
            text=True,
            timeout=10,
        )
        commit = out.stdout.strip() or "unknown"
    except (OSError, subprocess.SubprocessError):
        commit = "unknown"
    return f"{when}, commit {commit}"


def local_src(root: Path) -> Path:
    return Path(os.environ.get("RNNBOOK_SRC", Path(root) / "src"))
