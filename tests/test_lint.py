"""``make lint``: the package, the tests and the chapters are formatted to 88 columns and lint-clean."""

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PATHS = ["src", "tests", "notebooks", "benchmarks"]


def _ruff() -> str:
    exe = Path(sys.executable).parent / "ruff"
    return str(exe) if exe.exists() else (shutil.which("ruff") or "ruff")


def test_ruff_format():
    proc = subprocess.run(
        [_ruff(), "format", "--check", *PATHS], cwd=ROOT, capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_ruff_check():
    proc = subprocess.run(
        [_ruff(), "check", *PATHS], cwd=ROOT, capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
