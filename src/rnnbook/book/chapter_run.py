"""``python -m rnnbook chapter NAME -p NAME VALUE``: one chapter re-run with its own parameters
(ARCHITECTURE.md, *Pipeline*), explaining itself.

* The values are read by each parameter's type and checked against the chapter's ``SPEC`` before
  a kernel starts (:mod:`rnnbook.book.spec`): one line names a bad parameter and what it accepts.
* A run whose parameters and code are those of the run already in its folder is reused (the
  notebook, figures and claims are there) unless ``force``.
* While the kernel runs, a line every ``every`` seconds gives the time spent and the time left
  from the chapter's expected time (``chapter_seconds.yaml``, or the last build's timings).
* A failure prints one line; the traceback goes to ``error.log`` in the run's folder.
* The run's figures are written beside its notebook (``figures/figure-01.png``, ...), and a claim
  that the chapter declares but did not check is named.
"""

from __future__ import annotations

import base64
import json
import threading
import time
from pathlib import Path
from typing import Any

from . import claims as _claims
from .execution_cache import _sha
from .pipeline import (
    BuildError,
    expected_seconds,
    find_chapter,
    run_chapter,
    run_folder,
)
from .records import measuring_hash
from .spec import chapter_spec, check_given

STAMP = "run.json"
ERROR_LOG = "error.log"


def _key(root: Path, chapter: str, params: dict[str, Any]) -> str:
    """What a run depends on: its parameters, the chapter's code cells and the package modules
    it imports (:func:`~rnnbook.book.records.measuring_hash`) and its claims file."""
    claims = _claims.claims_file(chapter, root)
    text = claims.read_text() if claims.exists() else ""
    parts = [json.dumps(params, sort_keys=True), measuring_hash(root, chapter), text]
    return _sha("\n".join(parts))


def save_figures(notebook: Path) -> list[Path]:
    """Every PNG and SVG output of an executed notebook, written to ``figures/`` beside it."""
    nb = json.loads(notebook.read_text())
    folder = notebook.parent / "figures"
    out: list[Path] = []
    for cell in nb.get("cells", []):
        for o in cell.get("outputs", []):
            data = o.get("data", {})
            if "image/png" in data:
                path = folder / f"figure-{len(out) + 1:02d}.png"
                folder.mkdir(exist_ok=True)
                path.write_bytes(base64.b64decode("".join(data["image/png"])))
                out.append(path)
            elif "image/svg+xml" in data:
                path = folder / f"figure-{len(out) + 1:02d}.svg"
                folder.mkdir(exist_ok=True)
                path.write_text("".join(data["image/svg+xml"]))
                out.append(path)
    return out


def unchecked(root: Path, chapter: str, folder: Path) -> list[str]:
    """The claims the chapter declares that its run in ``folder`` did not check."""
    path = _claims.claims_file(chapter, root)
    if not path.exists():
        return []
    declared = _claims.load(path, chapter)
    ran = folder / "claims.json"
    seen = {c["id"] for c in json.loads(ran.read_text())} if ran.exists() else set()
    return [cid for cid in declared if cid not in seen]


class _Ticker:
    """A progress line every ``every`` seconds while a chapter runs."""

    def __init__(self, name: str, expected: float | None, log, every: float) -> None:
        self.name, self.expected, self.log, self.every = name, expected, log, every
        self.stop = threading.Event()
        self.t0 = time.monotonic()
        self.thread = threading.Thread(target=self._run, daemon=True)

    def line(self, elapsed: float) -> str:
        if not self.expected:
            return f"  {self.name}: {elapsed:.0f} s (no expected time)"
        left = self.expected - elapsed
        tail = (
            f"about {left:.0f} s left"
            if left > 0
            else f"{-left:.0f} s past the {self.expected:.0f} s expected"
        )
        return f"  {self.name}: {elapsed:.0f} s of about {self.expected:.0f} s, {tail}"

    def _run(self) -> None:
        while not self.stop.wait(self.every):
            self.log(self.line(time.monotonic() - self.t0))

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop.set()


def run(
    root: Path,
    name: str,
    given: dict[str, str],
    force: bool = False,
    log=print,
    every: float = 30.0,
) -> Path:
    """Run chapter ``name`` with the command line's ``given`` values (text); returns the
    executed notebook. Raises :class:`~rnnbook.book.params.ParameterError` on a bad name or
    value and :class:`~rnnbook.book.pipeline.BuildError` (one line) on a failure."""
    root = Path(root).resolve()
    ch = find_chapter(root, name)
    params = check_given(ch.short, chapter_spec(ch.source), given)
    folder = run_folder(root, ch, params)
    notebook = folder / f"{Path(ch.short).name}.ipynb"
    key = _key(root, ch.short, params)
    stamp = folder / STAMP
    if not force and notebook.exists() and stamp.exists():
        if json.loads(stamp.read_text()).get("key") == key:
            log(f"reused {notebook} (same parameters and code; --force runs it again)")
            return notebook
    expected = expected_seconds(root / "_build", params["profile"]).get(ch.name)
    if expected:
        log(f"{ch.short} at {params['profile']}: expected about {expected:.0f} s")
    try:
        with _Ticker(ch.short, expected, log, every):
            notebook = run_chapter(root, ch.short, params, log=log)
    except BuildError as e:
        folder.mkdir(parents=True, exist_ok=True)
        (folder / ERROR_LOG).write_text(str(e).strip() + "\n")
        first = next((ln for ln in str(e).splitlines() if ln.strip()), "failed")
        raise BuildError(
            f"{first.removeprefix('FAILED: ')}; the traceback is in {folder / ERROR_LOG}"
        ) from None
    figures = save_figures(notebook)
    if figures:
        log(f"{len(figures)} figure(s) in {figures[0].parent}")
    for cid in unchecked(root, ch.short, folder):
        log(
            f"warning: claim {cid} is declared in "
            f"{_claims.claims_file(ch.short, root).relative_to(root)} but this run never "
            "checked it"
        )
    stamp.write_text(json.dumps({"key": key, "parameters": params}, indent=1))
    return notebook
