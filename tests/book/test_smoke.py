"""`make test`'s smoke build is reused only when it was built from the very same sources."""

import subprocess
import sys
import time

import pytest

from tests.book import smoke


@pytest.fixture
def repo(tmp_path, monkeypatch):
    for name in smoke.BOOK_SOURCES:
        path = tmp_path / name
        if "." in name:
            path.write_text(f"{name}\n")
        else:
            path.mkdir()
            (path / "a.txt").write_text("a\n")
    calls = []

    def fake_build(cmd, **kw):
        root = cmd[cmd.index("--root") + 1]
        calls.append(root)
        html = smoke.Path(root) / "_build" / "html"
        html.mkdir(parents=True, exist_ok=True)
        (html / "index.html").write_text("<html/>")
        return subprocess.CompletedProcess(cmd, 0, "out", "err")

    monkeypatch.setattr(smoke.subprocess, "run", fake_build)
    return tmp_path, calls


def test_the_smoke_build_is_reused_only_for_the_same_sources(repo):
    repo, calls = repo
    out = smoke.build(repo)
    assert out == repo / "_build" / "smoke-root" / "_build" and len(calls) == 1
    smoke.build(repo)
    assert len(calls) == 1  # nothing changed: reused
    (repo / "src" / "a.txt").write_text("b\n")  # a module changed: built again
    smoke.build(repo)
    assert len(calls) == 2
    (repo / "notebooks" / "new.py").write_text("x = 1\n")  # a file added
    smoke.build(repo)
    assert len(calls) == 3
    (repo / "notebooks" / "new.py").unlink()
    smoke.build(repo)
    assert len(calls) == 4


def test_a_failed_smoke_build_is_never_reused(repo, monkeypatch):
    """... and in the session it failed in, it is reported again, not built again (by each
    pytest-xdist worker); the next session builds it."""
    repo, calls = repo
    real = smoke.subprocess.run
    monkeypatch.setenv("RNNBOOK_TEST_SESSION", str(time.time() - 1))
    monkeypatch.setattr(
        smoke.subprocess,
        "run",
        lambda cmd, **kw: subprocess.CompletedProcess(cmd, 1, "boom", ""),
    )
    with pytest.raises(smoke.SmokeBuildFailed, match="boom"):
        smoke.build(repo)
    monkeypatch.setattr(smoke.subprocess, "run", real)
    with pytest.raises(smoke.SmokeBuildFailed, match="boom"):
        smoke.build(repo)
    assert calls == []
    monkeypatch.setenv("RNNBOOK_TEST_SESSION", str(time.time() + 10))
    smoke.build(repo)
    assert len(calls) == 1


def test_the_background_build_passes_on_its_lines_in_order(tmp_path):
    code = (
        "print('one', flush=True); import time; time.sleep(0.3); "
        "print('two'); print('3', end='')"
    )
    bg = smoke.Background(tmp_path, cmd=[sys.executable, "-c", code])
    seen = []
    while bg.proc.poll() is None:
        seen += bg.new_lines()
    assert seen + bg.wait() == ["one", "two", "3"]
