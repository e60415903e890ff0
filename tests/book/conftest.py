import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import ROOT

#: when this test session started (the smoke build must not touch the book's build folder since)
SESSION_START = time.time()

#: what the pipeline reads from the repository (the package itself is imported from the venv)
BOOK_SOURCES = (
    "notebooks",
    "book",
    "src",
    "_config.yml",
    "_toc.yml",
    "requirements.txt",
)


def smoke_root(repo: Path = ROOT) -> Path:
    """A copy of the book's sources in ``_build/smoke-root``, refreshed at every call; its own
    ``_build`` (chapter cache, claims, HTML) is kept, so a warm ``make test`` reuses chapters."""
    root = repo / "_build" / "smoke-root"
    root.mkdir(parents=True, exist_ok=True)
    skip = shutil.ignore_patterns("__pycache__", "*.pyc", ".ipynb_checkpoints")
    for name in BOOK_SOURCES:
        src, dst = repo / name, root / name
        if dst.is_dir():
            shutil.rmtree(dst)
        elif dst.exists():
            dst.unlink()
        if src.is_dir():
            shutil.copytree(src, dst, ignore=skip)
        else:
            shutil.copy2(src, dst)
    return root


@pytest.fixture(scope="session")
def smoke_book():
    """The whole book built once per test session at the smoke profile, as `make test` builds it:
    from a copy of the sources (:func:`smoke_root`), so that the tests never replace the book
    that `make book` rendered into ``_build`` (its HTML, ``claims.json`` and timings)."""
    root = smoke_root()
    cmd = [
        sys.executable,
        "-m",
        "rnnbook",
        "build",
        "--profile",
        "smoke",
        "--root",
        str(root),
    ]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout[-5000:] + proc.stderr[-5000:]
    return root / "_build"


#: a chapter that records one declared claim (and sleeps RNNBOOK_TEST_SLEEP_<n> seconds first)
CLAIMED = (
    '# %% tags=["parameters"]\nprofile = "book"\n\n'
    "# %%\nimport os, time\nfrom rnnbook.book.ledger import Ledger\n"
    "time.sleep(float(os.environ.get('RNNBOOK_TEST_SLEEP_{n}', '0')))\n"
    'Ledger("d/c{n}", profile).check("lsc.c{n}", x={n})\n'
)


def claimed_book(root: Path, n: int = 4) -> Path:
    """A book of ``n`` tiny chapters (``d/c1``...), each recording one declared claim."""
    (root / "book").mkdir(parents=True)
    (root / "book" / "intro.md").write_text("# Intro\n")
    (root / "_config.yml").write_text(
        "title: t\nexecute:\n  execute_notebooks: 'off'\n"
    )
    toc = {"format": "jb-book", "root": "book/intro", "chapters": []}
    for i in range(1, n + 1):
        src = root / "notebooks" / "d" / f"c{i}.py"
        src.parent.mkdir(parents=True, exist_ok=True)
        src.write_text(CLAIMED.format(n=i))
        src.with_suffix(".claims.yaml").write_text(
            f"paper: lsc\nclaims:\n  - {{id: lsc.c{i}, source: Lemma 2, statement: s, "
            f"rule: [{{reproduced: x == {i}}}, {{otherwise: not-reproduced}}]}}\n"
        )
        toc["chapters"].append({"file": f"notebooks/d/c{i}"})
    (root / "_toc.yml").write_text(json.dumps(toc))
    return root
