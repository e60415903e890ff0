"""The GitHub Actions workflow that tests and publishes the book is valid under actionlint."""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_workflow_passes_actionlint():
    exe = Path(sys.executable).parent / "actionlint"
    exe = str(exe) if exe.exists() else shutil.which("actionlint")
    if exe is None:
        pytest.skip("actionlint is not installed (requirements.txt pins a build of it)")
    workflows = sorted(str(p) for p in (ROOT / ".github" / "workflows").glob("*.yml"))
    assert workflows, "no workflow under .github/workflows"
    proc = subprocess.run([exe, *workflows], cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
