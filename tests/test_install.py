"""The library installs alone: ``pip install .`` into a fresh environment without the ``book``
extra, then the README's quick-start runs there as printed (a user's ``nn.GRU``), and so do an
``nn.LSTM`` and a cell of one's own.

How the environment is made, and why it stays honest without the network:

* a fresh ``venv`` (no system site-packages, no pip of its own);
* the library's declared requirements (``[project].dependencies`` of ``pyproject.toml``) and,
  recursively, theirs (read from the installed distributions' metadata, markers evaluated) are
  made visible to it through one ``.pth`` file pointing at a folder of links to exactly those
  distributions of this environment (torch's wheel is 700 MB: linking it costs nothing, copying
  it half a minute). Nothing else of this environment is reachable: the test asserts that
  jupyter-book, papermill, jupytext, matplotlib, scipy and PyYAML cannot be imported there;
* the package is built into a wheel from a copy of ``src/`` and ``pyproject.toml`` and installed
  with ``pip install --no-index``: pip checks every declared requirement against what the
  environment holds and fails on one that is missing, so a requirement the library needs but
  does not declare, or one it declares but nothing provides, fails here.

It runs on CI (``CI=true``, where ``.ci/run`` calls ``make test``) or with
``RNNBOOK_INSTALL_TEST=1``; the warm local loop skips it (about 40 s of the two cores).
"""

import os
import re
import shutil
import subprocess
import sys
import tomllib
from importlib import metadata
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[1]
ABSENT = ("jupyter_book", "papermill", "jupytext", "matplotlib", "scipy", "yaml")

pytestmark = pytest.mark.skipif(
    os.environ.get("CI") != "true" and os.environ.get("RNNBOOK_INSTALL_TEST") != "1",
    reason="the fresh-environment install runs on CI (CI=true) or with RNNBOOK_INSTALL_TEST=1",
)


def closure(requirements: list[str]) -> list[metadata.Distribution]:
    """The installed distributions that ``requirements`` need, recursively (extras not taken)."""
    env = {"extra": ""}
    seen: dict[str, metadata.Distribution] = {}
    todo = [Requirement(r) for r in requirements]
    while todo:
        req = todo.pop()
        if req.marker is not None and not req.marker.evaluate(env):
            continue
        name = canonicalize_name(req.name)
        if name in seen:
            continue
        dist = metadata.distribution(req.name)
        assert dist.version in req.specifier or not req.specifier, (req, dist.version)
        seen[name] = dist
        todo += [Requirement(r) for r in dist.requires or []]
    return list(seen.values())


def link_distributions(dists: list[metadata.Distribution], folder: Path) -> None:
    """Links to each distribution's top-level files and folders (and its .dist-info)."""
    folder.mkdir()
    for dist in dists:
        site = Path(dist.locate_file(""))
        tops = {
            Path(f).parts[0] for f in dist.files or [] if not str(f).startswith("..")
        }
        for top in tops:
            target = folder / top
            if not target.exists() and (site / top).exists():
                target.symlink_to(site / top)


def test_pip_install_without_the_book_extra_and_quick_start(tmp_path):
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    src = tmp_path / "project"
    shutil.copytree(
        ROOT / "src",
        src / "src",
        ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"),
    )
    for name in ("pyproject.toml", "requirements.txt"):
        shutil.copy(ROOT / name, src / name)
    env = tmp_path / "env"
    subprocess.run(
        [sys.executable, "-m", "venv", "--without-pip", str(env)], check=True
    )
    py = env / "bin" / "python"
    site = Path(
        subprocess.run(
            [py, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
            check=True,
            capture_output=True,
            text=True,
        ).stdout.strip()
    )
    deps = tmp_path / "deps"
    link_distributions(closure(project["dependencies"]), deps)
    (site / "rnnbook_test_deps.pth").write_text(f"{deps}\n")
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check"]
    # no index, no find-links, no configuration: only what the environment holds
    quiet = {k: v for k, v in os.environ.items() if not k.startswith("PIP_")}
    quiet["PIP_CONFIG_FILE"] = os.devnull
    wheels = tmp_path / "wheels"
    subprocess.run(
        [*pip, "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", wheels, src],
        check=True,
    )
    (wheel,) = wheels.glob("rnnbook-*.whl")
    subprocess.run(
        [*pip, "--python", py, "install", "--no-index", "--no-compile", "-q", wheel],
        check=True,
        env=quiet,
    )
    readme = (ROOT / "README.md").read_text()
    quick = re.search(r"## The library.*?```python\n(.*?)```", readme, re.S).group(1)
    assert len(quick.strip().splitlines()) <= 6  # five lines and a blank
    check = f"""
import importlib.util, rnnbook
assert rnnbook.__file__.startswith({str(site)!r}), rnnbook.__file__
absent = [m for m in {ABSENT!r} if importlib.util.find_spec(m) is not None]
assert not absent, absent
{quick}
import torch
from torch import nn
from rnnbook.lsc import lsc_pretrain_

class Tanh(nn.Module):
    lsc_input_params, lsc_recurrent_params = ("W",), ("U",)
    def __init__(self):
        super().__init__()
        self.hidden_size = 8
        self.W, self.U = nn.Parameter(torch.randn(8, 3)), nn.Parameter(torch.randn(8, 8) / 3)
    def forward(self, x, h):
        return torch.tanh(x @ self.W.T + h @ self.U.T)

for m in (nn.LSTM(3, 8, batch_first=True), Tanh()):
    print(lsc_pretrain_(m, torch.randn(4, 10, 3), max_steps=2).steps, "steps")
"""
    clean = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    out = subprocess.run(
        [py, "-c", check], capture_output=True, text=True, env=clean, cwd=tmp_path
    )
    assert out.returncode == 0, out.stderr[-3000:]
    assert "before -> after" in out.stdout and out.stdout.count("steps\n") == 2
