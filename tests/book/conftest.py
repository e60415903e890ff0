import subprocess
import sys

import pytest

from tests.conftest import ROOT


@pytest.fixture(scope="session")
def smoke_book():
    """The whole book built once per test session at the smoke profile, as `make test` builds it."""
    cmd = [
        sys.executable,
        "-m",
        "rnnbook",
        "build",
        "--profile",
        "smoke",
        "--root",
        str(ROOT),
    ]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout[-5000:] + proc.stderr[-5000:]
    return ROOT / "_build"
