"""A content-addressed execution cache: a chapter runs again only when something it depends on changed.

Jupyter Book's own cache keys on a notebook's code alone and misses changes in the modules it imports.
Here a chapter's key is the hash of everything its execution depends on:

* its **code cells** (not its markdown: a prose edit is re-rendered from the source, never executed);
* its **claim declarations** (``<chapter>.claims.yaml``: the rules decide the verdicts);
* the **local modules it imports**, followed transitively through the package's own imports (a module
  under the book's ``src/``; a package's ``__init__`` counts, since importing a submodule runs it);
* its **parameters and profile**, the pinned **``requirements.txt``**, and the **data** it reads (the
  fetched data folder, when :mod:`rnnbook.datasets` is among its imports).

The executed notebook and its claim records are kept under ``_build/cache/<chapter>/<key>/``,
written whole or not at all and checked against their checksums when read (:class:`Cache`); a
build holds its folder's lock (:func:`build_lock`), so two builds never write one folder at once.
"""

from __future__ import annotations

import ast
import hashlib
import json
import os
import shutil
import subprocess
import tempfile
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from ..cache import RESULT_CACHES, clear_result_caches, write_atomic
from . import arithmetic

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

    def modules(self) -> list[str]:
        """Every module under ``src/`` (a package as its own name)."""
        out = []
        for p in sorted(self.src.rglob("*.py")):
            parts = p.relative_to(self.src).with_suffix("").parts
            out.append(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
        return out

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


def draws(module: str) -> bool:
    """A module that only draws (``rnnbook.plotting``, a room's ``figures`` or
    ``*_figures`` module): a colour or a legend changes no measurement."""
    last = module.rsplit(".", 1)[-1]
    return (
        module == "rnnbook.plotting" or last == "figures" or last.endswith("_figures")
    )


RESULT_ROOMS = ("rnnbook.lsc",)  # the rooms whose runs and task data are stored


def result_caches_stamp(index: ModuleIndex) -> str:
    """What the stored runs and task data (``RESULT_CACHES``) were made with: the sources
    of every module of the rooms that store them and of what those import (drawing and
    the build room left out), and the arithmetic. Their own keys hash only a few of those
    modules: an edit elsewhere (the ensemble trainer) kept runs of the old code."""
    roots = {
        m for m in index.modules() if any(m.startswith(r + ".") for r in RESULT_ROOMS)
    }
    mods = sorted(
        m
        for m in index.closure(roots)
        if index.path(m) and not m.startswith("rnnbook.book") and not draws(m)
    )
    parts = {m: _sha(index.path(m).read_bytes()) for m in mods}
    return _sha(json.dumps({"modules": parts, "arithmetic": arithmetic.stamp()}))


def guard_result_caches(build: Path, index: ModuleIndex, log=print) -> None:
    """Remove the stored runs and task data below ``build`` when the code or arithmetic
    they were made with (:func:`result_caches_stamp`, kept beside them) is not today's;
    stored results of unknown making go too."""
    path, now = Path(build) / "result-caches.stamp", result_caches_stamp(index)
    try:
        then = path.read_text().strip()
    except OSError:
        then = None
    if then == now:
        return
    if then is not None or any((Path(build) / n).exists() for n in RESULT_CACHES):
        log("  stored runs and task data were made with other code: removed")
    clear_result_caches(Path(build))
    write_atomic(path, now + "\n")


@dataclass(frozen=True)
class Key:
    """A chapter's cache key and the parts it is made of (kept to say why a chapter ran again)."""

    digest: str
    parts: dict[str, Any]


#: what a claims file declares for the power analysis and the records (the seeds a record
#: needs, the spreads behind them, the record slices): it changes no verdict of a run
PLANNING_KEYS = {"power", "spread", "trials_per_seed", "records"}


def claims_digest(path: Path) -> str:
    """The hash of a chapter's claim declarations, without what only plans its records
    (:data:`PLANNING_KEYS`): re-sizing a record does not re-run the book's chapters."""
    import yaml

    def strip(x: Any) -> Any:
        if isinstance(x, dict):
            return {k: strip(v) for k, v in x.items() if k not in PLANNING_KEYS}
        if isinstance(x, list):
            return [strip(v) for v in x]
        return x

    try:
        data = yaml.safe_load(Path(path).read_text())
    except yaml.YAMLError:
        return _sha(Path(path).read_bytes())
    return _sha(json.dumps(strip(data), sort_keys=True, default=str))


def chapter_key(root: Path, chapter, params: dict[str, Any], index: ModuleIndex) -> Key:
    root = Path(root)
    mods = chapter_modules(chapter.source, index)
    claims = root / f"{chapter.name}.claims.yaml"
    req = root / "requirements.txt"
    parts = {
        "code": _sha("\n# cell\n".join(code_cells(chapter.source))),
        "claims": claims_digest(claims) if claims.exists() else "none",
        "modules": {m: _sha(index.path(m).read_bytes()) for m in sorted(mods)},
        "parameters": json.dumps(params, sort_keys=True, default=str),
        "requirements": _sha(req.read_bytes()) if req.exists() else "none",
        "data": data_fingerprint() if set(mods) & set(DATA_MODULES) else "none",
        "arithmetic": arithmetic.stamp(),
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
        "arithmetic": "its arithmetic changed",
    }
    for part, label in labels.items():
        if old.get(part) != new.get(part):
            reasons.append(label)
    om, nm = old.get("modules", {}), new["modules"]
    changed = sorted(m for m in nm if m in om and om[m] != nm[m])
    added = sorted(set(nm) - set(om))
    if changed:
        reasons.append(f"module {_few(changed)} changed")
    if added:
        reasons.append(f"it now imports {_few(added)}")
    return "; ".join(reasons) or "its inputs changed"


ENTRY_FILES = "notebook.ipynb", "claims/*.json"


def file_sums(folder: Path) -> dict[str, str]:
    """The SHA-256 of every file of an entry (its notebook and claim records), by relative path."""
    return {
        str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
        for pattern in ENTRY_FILES
        for p in sorted(Path(folder).glob(pattern))
    }


def _few(names: list[str], n: int = 3) -> str:
    """``a, b, c`` or ``a, b, c and 4 more``: a line per chapter stays a line."""
    more = f" and {len(names) - n} more" if len(names) > n else ""
    return ", ".join(names[:n]) + more


class Cache:
    """``_build/cache/<chapter>/<key>/``: the executed notebook, its claims and where they came from.

    An entry is written whole or not at all (into a temporary folder beside it, then renamed into
    place) and checked when read: its ``meta.json`` holds the SHA-256 of each of its files. An entry
    that fails the check is counted a miss, its reason left in :attr:`damaged`, and removed."""

    def __init__(self, build: Path) -> None:
        self.folder = Path(build) / "cache"
        self.damaged: dict[str, str] = {}  # chapter -> what was wrong with its entry

    def _dir(self, chapter: str, digest: str) -> Path:
        return self.folder / chapter.removeprefix("notebooks/") / digest

    def lookup(self, chapter: str, key: Key) -> dict | None:
        """The entry's metadata when it is there and whole; ``None`` otherwise."""
        d = self._dir(chapter, key.digest)
        if not d.is_dir():
            return None
        problem = check_entry(d, key.digest)
        if problem is None:
            return json.loads((d / "meta.json").read_text())
        self.damaged[chapter] = problem
        self.discard(chapter, key)
        return None

    def discard(self, chapter: str, key: Key) -> None:
        _remove(self._dir(chapter, key.digest))

    def sweep(self) -> None:
        """Remove the temporary folders a killed build left (under the build lock)."""
        for tmp in list(self.folder.rglob(".tmp-*")):
            shutil.rmtree(tmp, ignore_errors=True)

    def last_parts(self, chapter: str) -> dict | None:
        try:
            return json.loads(
                (
                    self.folder / chapter.removeprefix("notebooks/") / "last.json"
                ).read_text()
            )
        except (OSError, ValueError):
            return None

    def _remember(self, chapter: str, key: Key) -> None:
        last = self.folder / chapter.removeprefix("notebooks/") / "last.json"
        write_atomic(last, json.dumps(key.parts, indent=1))

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
        d.parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=".tmp-", dir=d.parent))
        try:
            (tmp / "claims").mkdir()
            shutil.copyfile(notebook, tmp / "notebook.ipynb")
            for f in sorted(Path(claims).glob("*.json")):
                shutil.copyfile(f, tmp / "claims" / f.name)
            meta = {
                "key": key.digest,
                "seconds": seconds,
                "build": build_id,
                "peak_mb": peak_mb,
                "cpu_seconds": cpu_seconds,
                "files": file_sums(tmp),
            }
            (tmp / "meta.json").write_text(json.dumps(meta, indent=1))
            _sync(tmp)
            _remove(d)
            os.rename(tmp, d)
        except BaseException:
            shutil.rmtree(tmp, ignore_errors=True)
            raise
        self._remember(chapter, key)

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
        self._remember(chapter, key)
        return edited


#: an entry of a build from before the checksums: not damaged, but it cannot be checked
NO_CHECKSUMS = "no checksums (an older build's entry)"


def check_entry(d: Path, digest: str) -> str | None:
    """What is wrong with the cache entry in ``d`` (in a few words), or ``None`` if it is whole."""
    try:
        meta = json.loads((d / "meta.json").read_text())
    except FileNotFoundError:
        return "meta.json missing"
    except (OSError, ValueError) as e:
        return f"meta.json unreadable: {type(e).__name__}"
    if not isinstance(meta, dict) or not isinstance(meta.get("files"), dict):
        return NO_CHECKSUMS
    if meta.get("key") != digest:
        return "meta.json names another key"
    try:
        found = file_sums(d)
    except OSError as e:
        return f"unreadable: {e}"
    want = meta["files"]
    for name in sorted(set(want) | set(found)):
        if name not in found:
            return f"{name} missing"
        if name not in want:
            return f"{name} not in its checksums"
        if found[name] != want[name]:
            return f"{name} fails its checksum"
    if "notebook.ipynb" not in found:
        return "notebook.ipynb missing"
    return None


def _sync(folder: Path) -> None:
    """Flush an entry's files to the disk before it is renamed into place."""
    for p in [*folder.rglob("*"), folder]:
        fd = os.open(p, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def _remove(d: Path) -> None:
    """Remove an entry: first renamed aside (no reader sees half of it), then deleted."""
    if not d.exists():
        return
    aside = d.with_name(f".tmp-old-{d.name}-{os.getpid()}")
    shutil.rmtree(aside, ignore_errors=True)
    os.rename(d, aside)
    shutil.rmtree(aside, ignore_errors=True)


@contextmanager
def build_lock(folder: Path, log=print):
    """Hold ``<folder>/.lock`` for the length of a build: a second build in the same folder
    says so and waits for the first (the operating system drops the lock of a killed build)."""
    import fcntl

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / ".lock", "a+") as f:
        try:
            fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            f.seek(0)
            holder = f.read().strip() or "another process"
            log(f"another build is using {folder} ({holder}); waiting for it to finish")
            fcntl.flock(f, fcntl.LOCK_EX)
        f.seek(0)
        f.truncate()
        f.write(f"pid {os.getpid()}, since {datetime.now():%H:%M:%S}")
        f.flush()
        try:
            yield
        finally:
            f.seek(0)
            f.truncate()
            f.flush()
            fcntl.flock(f, fcntl.LOCK_UN)


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
