"""The smoke build of `make test`: the whole book at the ``smoke`` profile, from a copy of the
sources in ``_build/smoke-root/`` (with its own ``_build`` inside, kept between runs: its chapter
cache makes a warm run re-execute nothing that did not change), so that the tests never replace
the book that `make book` rendered into ``_build``.

`make test` starts it beside the unit tests (:class:`Background`, from ``tests/conftest.py``), its
progress lines shown among the tests'; the tests that need the book run last and wait for it. A
build is reused without building again when it was built from the very same sources (a stamp:
the SHA-256 of every source file, the data and the Python version). ``python -m tests.book.smoke``
builds it on the terminal; a plain ``pytest`` run builds it in the ``smoke_book`` fixture.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

#: what the pipeline reads from the repository (the package itself is imported from the venv)
BOOK_SOURCES = (
    "results",
    "notebooks",
    "book",
    "src",
    "_config.yml",
    "_toc.yml",
    "requirements.txt",
)
SKIP = ("__pycache__", "*.pyc", ".ipynb_checkpoints")


class SmokeBuildFailed(RuntimeError):
    pass


def smoke_root(repo: Path = ROOT) -> Path:
    """A copy of the book's sources in ``_build/smoke-root``, refreshed at every call; its own
    ``_build`` (chapter cache, claims, HTML) is kept, so a warm ``make test`` reuses chapters."""
    root = repo / "_build" / "smoke-root"
    root.mkdir(parents=True, exist_ok=True)
    for name in BOOK_SOURCES:
        src, dst = repo / name, root / name
        if dst.is_dir():
            shutil.rmtree(dst)
        elif dst.exists():
            dst.unlink()
        if src.is_dir():
            shutil.copytree(src, dst, ignore=shutil.ignore_patterns(*SKIP))
        elif src.exists():  # results/ exists once a record is committed
            shutil.copy2(src, dst)
    return root


def stamp_of(root: Path) -> str:
    """What the smoke build is a function of: every source file, the data, the Python."""
    from rnnbook.book.execution_cache import data_fingerprint

    h = hashlib.sha256(f"{sys.version}\n{data_fingerprint()}\n".encode())
    for name in BOOK_SOURCES:
        path = root / name
        if not path.exists():
            continue
        files = (
            sorted(p for p in path.rglob("*") if p.is_file())
            if path.is_dir()
            else [path]
        )
        for f in files:
            h.update(f"{f.relative_to(root)}\n".encode())
            h.update(hashlib.sha256(f.read_bytes()).digest())
    return h.hexdigest()


def build(repo: Path = ROOT, show: bool = False) -> Path:
    """The smoke book's build folder, built unless it was built from these very sources.
    ``show``: the build prints its progress here (else its output is kept for the error)."""
    lock = repo / "_build" / "smoke-root.lock"
    lock.parent.mkdir(parents=True, exist_ok=True)
    with open(lock, "a") as held:  # one at a time (pytest-xdist workers, two test runs)
        fcntl.flock(held, fcntl.LOCK_EX)
        root = smoke_root(repo)
        out = root / "_build"
        stamp, failed = out / "smoke-stamp", out / "smoke-failed"
        digest = stamp_of(root)
        fresh = stamp.exists() and stamp.read_text() == digest
        if fresh and (out / "html" / "index.html").exists():
            if show:
                print(f"the smoke book in {out} is built from these sources: reused")
            return out
        # a build of these sources that failed in this test session is not tried again
        session = float(os.environ.get("RNNBOOK_TEST_SESSION", "inf"))
        if failed.exists() and failed.stat().st_mtime >= session:
            was, _, why = failed.read_text().partition("\n")
            if was == digest:
                raise SmokeBuildFailed(why)
        stamp.unlink(missing_ok=True)
        cmd = [sys.executable, "-m", "rnnbook", "build", "--profile", "smoke"]
        start = time.time()
        proc = subprocess.run(
            [*cmd, "--root", str(root)], capture_output=not show, text=True
        )
        # when the last build ran (the tests check that it left the book's _build alone)
        out.mkdir(parents=True, exist_ok=True)
        (out / "smoke-built").write_text(f"{start} {time.time()}")
        if proc.returncode != 0:
            why = "the smoke build failed" + (
                f" (its output: {repo / '_build' / 'smoke-root.log'})"
                if show
                else ":\n" + proc.stdout[-5000:] + proc.stderr[-5000:]
            )
            failed.write_text(f"{digest}\n{why}")
            raise SmokeBuildFailed(why)
        stamp.write_text(digest)
        if show:
            print(f"the smoke book was built in {time.time() - start:.0f} s")
        return out


class Background:
    """The smoke build started beside the tests (``make test``: ``RNNBOOK_SMOKE_BACKGROUND=1``),
    so that it and the unit tests share the two cores; its log lines are passed on as they come,
    and the tests that need the book wait for it (the lock of :func:`build`)."""

    def __init__(self, repo: Path = ROOT, cmd: list[str] | None = None) -> None:
        self.log = repo / "_build" / "smoke-root.log"
        self.log.parent.mkdir(parents=True, exist_ok=True)
        with open(self.log, "w") as out:
            self.proc = subprocess.Popen(
                cmd or [sys.executable, "-m", "tests.book.smoke"],
                cwd=repo,
                stdout=out,
                stderr=subprocess.STDOUT,
            )
        self.seen = 0

    def new_lines(self) -> list[str]:
        try:
            text = self.log.read_text(errors="replace")
        except OSError:
            return []
        done, _, _ = text.rpartition("\n")
        lines = done.split("\n")[self.seen :] if done else []
        self.seen += len(lines)
        return lines

    def wait(self) -> list[str]:
        self.proc.wait()
        rest = self.new_lines()
        tail = self.log.read_text(errors="replace").rpartition("\n")[2]
        return rest + ([tail] if tail else [])


if __name__ == "__main__":
    try:
        build(show=True)
    except SmokeBuildFailed as e:
        sys.exit(f"error: {e} (the tests that need it will say why)")
