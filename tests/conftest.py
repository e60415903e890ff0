import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(autouse=True)
def _claims_in_tmp(tmp_path, monkeypatch):
    """Unit tests write claim records into a temporary folder, never into the book's build folder."""
    monkeypatch.setenv("RNNBOOK_CLAIMS_DIR", str(tmp_path / "claims"))
    monkeypatch.setenv("RNNBOOK_QUIET", "1")
    os.environ.setdefault("MPLBACKEND", "Agg")


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    """Under pytest-xdist (``make test``: ``-n 2 --dist loadgroup``), every test of the smoke
    build goes to one worker, which builds the book once; the other runs the unit tests."""
    for item in items:
        if "smoke_book" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.xdist_group("smoke-book"))
