import os
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(autouse=True)
def _claims_in_tmp(tmp_path, monkeypatch):
    """Unit tests write claim records into a temporary folder, never into the book's build folder."""
    monkeypatch.setenv("RNNBOOK_CLAIMS_DIR", str(tmp_path / "claims"))
    monkeypatch.setenv("RNNBOOK_QUIET", "1")
    os.environ.setdefault("MPLBACKEND", "Agg")


def pytest_collection_modifyitems(config, items):
    """The tests of the smoke book last: the unit tests run while it builds (``make test``)."""
    items.sort(key=lambda item: "smoke_book" in getattr(item, "fixturenames", ()))


_smoke, _config = None, None


def pytest_configure(config):
    global _config
    _config = config
    if getattr(config.option, "numprocesses", None):
        # pytest-xdist: one worker per core, so one BLAS/OpenMP thread per worker (the workers
        # inherit it): OpenBLAS's threads spinning against the other worker's and the smoke
        # build's made a 1 s QR of a 1500 x 1500 matrix take 30 s
        for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
            os.environ.setdefault(var, "1")
    # when this test session began (pytest-xdist's workers inherit it): a smoke build that
    # failed since is reported again, not retried by every worker (tests/book/smoke.py)
    os.environ.setdefault("RNNBOOK_TEST_SESSION", str(time.time()))


def pytest_sessionstart(session):
    """``make test`` (``RNNBOOK_SMOKE_BACKGROUND=1``): the smoke book builds beside the tests,
    started once by the controlling process (not by each pytest-xdist worker); its progress
    lines are shown among the tests' as they come."""
    global _smoke
    if os.environ.get("RNNBOOK_SMOKE_BACKGROUND") == "1" and not hasattr(
        session.config, "workerinput"
    ):
        from tests.book.smoke import Background

        _smoke = Background()


def _pass_on(lines: list[str]) -> None:
    reporter = _config.pluginmanager.get_plugin("terminalreporter")
    for line in lines:
        if reporter is not None:
            reporter.write_line(f"smoke build: {line}")


def pytest_runtest_logreport(report):
    if _smoke is not None:
        _pass_on(_smoke.new_lines())


def pytest_sessionfinish(session):
    if _smoke is not None:
        _pass_on(_smoke.wait())


def pytest_terminal_summary(terminalreporter):
    """``make test`` lists the committed records whose measuring code changed since they ran
    (stale: the book shows them, marked, and counts none of their verdicts)."""
    if hasattr(terminalreporter.config, "workerinput"):
        return
    from rnnbook.book import records

    stale = [r["path"] for r in records.load(ROOT) if r["stale"]]
    if stale:
        terminalreporter.write_sep("-", f"{len(stale)} stale record(s)")
        for path in stale:
            terminalreporter.write_line(
                f"stale: {path} (re-run it, or keep it as history)"
            )
