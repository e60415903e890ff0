"""Where the book keeps what it computes: the git-ignored build folder (ARCHITECTURE.md, *Pipeline*).

Every room writes its caches below :func:`build_dir`, so nothing is written outside ``_build/``.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path


def build_dir() -> Path:
    """The build folder: ``RNNBOOK_BUILD_DIR`` if set (the pipeline sets it), else ``./_build``."""
    return Path(os.environ.get("RNNBOOK_BUILD_DIR", "_build")).resolve()


# the stored experiment runs (lsc.experiments.cached) and task data (lsc.tasks), keyed on
# their parameters and code
RESULT_CACHES = ("lsc_runs", "lsc_cache")


def clear_result_caches(build: Path) -> None:
    """Remove the stored experiment results and task data below ``build``, so that a forced build
    (``--force``) or a dry run that measures time and memory recomputes them."""
    for name in RESULT_CACHES:
        shutil.rmtree(build / name, ignore_errors=True)


def write_atomic(path: Path, data: str | bytes) -> None:
    """Write ``path`` whole or not at all: into a temporary file beside it, then renamed over it
    (a killed process or a full disk leaves the old file, never a truncated one)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with open(tmp, "wb") as f:
            f.write(data.encode() if isinstance(data, str) else data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)
