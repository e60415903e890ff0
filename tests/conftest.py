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
