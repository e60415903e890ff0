"""The execution cache: a chapter runs again exactly when something it depends on changed."""

import json
import os
import shutil
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from rnnbook.book import execution_cache as xc
from rnnbook.book import pipeline

from tests.book.conftest import claimed_book

HEADER = '# %% tags=["parameters"]\nprofile = "book"\n\n'
CHAPTERS = {
    "p/one": "# %% [markdown]\n# Prose of one.\n\n# %%\nfrom minipkg import a\nprint(a.value())\n",
    "p/two": "# %% [markdown]\n# Prose of two.\n\n# %%\nimport minipkg.c\nprint(minipkg.c.C)\n",
    "p/three": "# %% [markdown]\n# Prose of three.\n\n# %%\nprint(3)\n",
}
MODULES = {
    "__init__.py": "",
    "a.py": "from .b import B\n\n\ndef value():\n    return B + 1\n",
    "b.py": "B = 1\n",
    "c.py": "C = 3\n",
}


@pytest.fixture
def book(tmp_path: Path) -> Path:
    (tmp_path / "book").mkdir()
    (tmp_path / "book" / "intro.md").write_text("# Intro\n")
    (tmp_path / "_config.yml").write_text(
        "title: t\nexecute:\n  execute_notebooks: 'off'\n"
    )
    (tmp_path / "requirements.txt").write_text("numpy==2.4.6\n")
    toc = {"format": "jb-book", "root": "book/intro", "chapters": []}
    for name, body in CHAPTERS.items():
        path = tmp_path / "notebooks" / f"{name}.py"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(HEADER + body)
        toc["chapters"].append({"file": f"notebooks/{name}"})
    (tmp_path / "_toc.yml").write_text(json.dumps(toc))
    pkg = tmp_path / "src" / "minipkg"
    pkg.mkdir(parents=True)
    for name, text in MODULES.items():
        (pkg / name).write_text(text)
    return tmp_path


def ran(root: Path) -> set[str]:
    pipeline.build(root, "smoke", jobs=2, html=False, log=lambda *_: None)
    timings = json.loads((root / "_build" / "timings.json").read_text())["chapters"]
    return {c.removeprefix("notebooks/") for c, t in timings.items() if not t["reused"]}


def test_module_closure_follows_the_package_imports(book):
    index = xc.ModuleIndex(book / "src")
    one, two, three = pipeline.chapters(book)
    assert xc.chapter_modules(one.source, index) == {
        "minipkg",
        "minipkg.a",
        "minipkg.b",
    }
    assert xc.chapter_modules(two.source, index) == {"minipkg", "minipkg.c"}
    assert xc.chapter_modules(three.source, index) == set()


def test_only_what_changed_runs_again(book):
    assert ran(book) == {"p/one", "p/two", "p/three"}
    assert ran(book) == set()
    timings = json.loads((book / "_build" / "timings.json").read_text())["chapters"]
    assert all(
        t["cpu_seconds"] > 0 for t in timings.values()
    )  # a reused run keeps its CPU time
    # a prose edit re-renders from the source, executes nothing
    one = book / "notebooks" / "p" / "one.py"
    one.write_text(one.read_text().replace("Prose of one.", "New prose of one."))
    assert ran(book) == set()
    staged = (book / "_build" / "stage" / "notebooks" / "p" / "one.ipynb").read_text()
    assert (
        "New prose of one." in staged and '"2\\n"' in staged
    )  # new prose, old outputs
    # a module edit re-runs exactly its importers, here through another module
    (book / "src" / "minipkg" / "b.py").write_text("B = 10\n")
    assert ran(book) == {"p/one"}
    staged = (book / "_build" / "stage" / "notebooks" / "p" / "one.ipynb").read_text()
    assert '"11\\n"' in staged
    # a code edit re-runs its chapter
    three = book / "notebooks" / "p" / "three.py"
    three.write_text(three.read_text().replace("print(3)", "print(4)"))
    assert ran(book) == {"p/three"}
    # the pins re-run everything, and so does --force
    (book / "requirements.txt").write_text("numpy==2.4.7\n")
    assert ran(book) == {"p/one", "p/two", "p/three"}
    stored = book / "_build" / "lsc_runs" / "run-abc.json"  # a stored experiment run
    stored.parent.mkdir()
    stored.write_text("{}")
    assert ran(book) == set() and stored.exists()  # an ordinary build keeps it
    pipeline.build(book, "smoke", html=False, log=lambda *_: None, force=True)
    timings = json.loads((book / "_build" / "timings.json").read_text())["chapters"]
    assert all(t["reason"] == "--force" for t in timings.values())
    assert not stored.exists()  # --force recomputes the stored runs as well


def test_why_a_chapter_runs():
    old = {
        "code": "1",
        "claims": "x",
        "modules": {"m.a": "1", "m.b": "1"},
        "parameters": "p",
        "requirements": "r",
        "data": "none",
    }
    new = {**old, "modules": {"m.a": "1", "m.b": "2", "m.c": "1"}}
    assert xc.why_changed(old, new) == "module m.b changed; it now imports m.c"
    assert xc.why_changed(None, new) == "no earlier run"
    assert "parameters" in xc.why_changed(old, {**old, "parameters": "q"})


def test_markdown_is_refreshed_around_kept_outputs(tmp_path):
    import nbformat

    src = tmp_path / "c.py"
    src.write_text(
        textwrap.dedent("""\
        # %% tags=["parameters"]
        k = 1

        # %% [markdown]
        # Old words.

        # %%
        print(k)
        """)
    )
    import jupytext

    nb = jupytext.read(src)
    injected = nbformat.v4.new_code_cell(
        "k = 2", metadata={"tags": ["injected-parameters"]}
    )
    nb.cells.insert(1, injected)
    nb.cells[-1].outputs = [nbformat.v4.new_output("stream", text="2\n")]
    nbformat.write(nb, tmp_path / "done.ipynb")
    src.write_text(src.read_text().replace("Old words.", "New words.\n#\n# More."))
    edited = xc.refresh_markdown(src, tmp_path / "done.ipynb", tmp_path / "out.ipynb")
    assert edited  # the prose changed
    assert not xc.refresh_markdown(
        src, tmp_path / "out.ipynb", tmp_path / "again.ipynb"
    )
    out = nbformat.read(tmp_path / "out.ipynb", as_version=4)
    assert [c.cell_type for c in out.cells] == ["code", "code", "markdown", "code"]
    assert "New words." in out.cells[2].source and out.cells[1].source == "k = 2"
    assert out.cells[3].outputs[0]["text"] == "2\n"


def test_dry_run_caps_training_lengths(book, monkeypatch):
    from rnnbook.book.params import Param, resolve

    spec = {
        "steps": Param(int, 5, 100, 10_000, training=True),
        "width": Param(int, 4, 8, 512),
    }
    assert resolve(spec, "paper").steps == 10_000
    monkeypatch.setenv("RNNBOOK_DRY_RUN", "3")
    P = resolve(spec, "paper")
    assert (P.steps, P.width) == (3, 512)
    assert resolve(spec, "paper", steps=50).steps == 50  # an explicit value stays
    stored = book / "_build" / "dry-run" / "lsc_runs" / "run-abc.json"
    stored.parent.mkdir(parents=True)
    stored.write_text("{}")
    report = pipeline.dry_run(book, "paper", steps=2, log=lambda *_: None)
    assert not stored.exists()  # it measures: no stored run is reused
    assert set(report) == {f"notebooks/p/{n}" for n in ("one", "two", "three")}
    assert all(r["peak_mb"] > 10 for r in report.values())
    assert not (
        book / "_build" / "claims.json"
    ).exists()  # the book itself is untouched
    # a few chapters at a time: the report keeps the others' last entries
    whole = json.loads((book / "_build" / "dry-run" / "report.json").read_text())
    assert whole["build"]["profile"] == "paper" and whole["build"]["wall_seconds"] > 0
    again = pipeline.dry_run(
        book, "paper", steps=2, log=lambda *_: None, only=["p/two"]
    )
    assert set(again) == {"notebooks/p/two"}
    kept = json.loads((book / "_build" / "dry-run" / "report.json").read_text())
    assert set(kept["chapters"]) == set(report) and kept["build"] == whole["build"]
    one = "notebooks/p/one"
    assert kept["chapters"][one] == whole["chapters"][one]
    assert kept["chapters"]["notebooks/p/two"]["steps"] == 2


# ---- a cache that survives damage ---------------------------------------------------------------

DAMAGE = {  # chapter -> (file of its entry, what is done to it, the reason the build gives)
    "c1": ("notebook.ipynb", "truncate", "notebook.ipynb fails its checksum"),
    "c2": ("claims/lsc.c2.json", "truncate", "claims/lsc.c2.json fails its checksum"),
    "c3": ("meta.json", "truncate", "meta.json unreadable"),
    "c4": ("claims/lsc.c4.json", "delete", "claims/lsc.c4.json missing"),
}


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    """The four-chapter book, built once: the tests copy it and damage the copy."""
    root = claimed_book(tmp_path_factory.mktemp("pristine"))
    pipeline.build(root, "smoke", jobs=2, html=False, log=lambda *_: None)
    return root


def copy_of(built: Path, tmp_path: Path) -> Path:
    return Path(shutil.copytree(built, tmp_path / "book", symlinks=True))


def entry(root: Path, chapter: str) -> Path:
    (d,) = [
        p for p in (root / "_build" / "cache" / "d" / chapter).iterdir() if p.is_dir()
    ]
    return d


def claims_json(root: Path) -> list:
    return json.loads((root / "_build" / "claims.json").read_text())


def build_cli(root: Path, *extra: str, env=None, **kw) -> subprocess.Popen:
    cmd = [sys.executable, "-m", "rnnbook", "build", "--profile", "smoke"]
    cmd += ["--no-html", "--jobs", "2", "--root", str(root), *extra]
    return subprocess.Popen(
        cmd,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env={**os.environ, **(env or {})},
        **kw,
    )


def test_a_damaged_entry_is_reported_and_run_again(built, tmp_path):
    """Each file of an entry damaged (cut short, as by a full disk, or gone): one line names
    the chapter and the file, that chapter runs again, and the ledger is the same."""
    root = copy_of(built, tmp_path)
    for chapter, (name, how, _) in DAMAGE.items():
        path = entry(root, chapter) / name
        if how == "truncate":
            path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])
        else:
            path.unlink()
    lines = []
    pipeline.build(root, "smoke", jobs=2, html=False, log=lines.append)
    timings = json.loads((root / "_build" / "timings.json").read_text())["chapters"]
    for chapter, (name, how, reason) in DAMAGE.items():
        said = [s for s in lines if "damaged cache entry" in s and f"d/{chapter}" in s]
        assert len(said) == 1 and reason in said[0], (chapter, lines)
        t = timings[f"notebooks/d/{chapter}"]
        assert not t["reused"] and reason in t["reason"]
    assert claims_json(root) == claims_json(built)
    # the entries were written anew, whole: the next build reuses every chapter
    pipeline.build(root, "smoke", jobs=2, html=False, log=lines.append)
    timings = json.loads((root / "_build" / "timings.json").read_text())["chapters"]
    assert all(t["reused"] for t in timings.values())


def test_an_entry_is_written_whole_or_not_at_all(built, tmp_path, monkeypatch):
    """A write that fails half way (a full disk) leaves no entry, only a temporary folder that
    the next build removes; the book still gets the run."""
    root = copy_of(built, tmp_path)
    cache = xc.Cache(root / "_build")
    key = xc.Key("feedbeef", {})
    real = shutil.copyfile

    def full_disk(src, dst, *a, **k):
        if str(dst).endswith(".json"):
            raise OSError(28, "No space left on device")
        return real(src, dst, *a, **k)

    monkeypatch.setattr(shutil, "copyfile", full_disk)
    with pytest.raises(OSError, match="No space"):
        cache.store(
            "notebooks/d/c1",
            key,
            entry(root, "c1") / "notebook.ipynb",
            entry(root, "c1") / "claims",
            1.0,
            "b",
        )
    monkeypatch.setattr(shutil, "copyfile", real)
    assert cache.lookup("notebooks/d/c1", key) is None
    assert "notebooks/d/c1" not in cache.damaged  # absent, not damaged
    # what a killed write leaves behind: a temporary folder, swept by the next build
    left = entry(root, "c1").parent / ".tmp-killed"
    left.mkdir()
    (left / "notebook.ipynb").write_text("{")
    lines = []
    pipeline.build(root, "smoke", jobs=2, html=False, log=lines.append)
    assert not left.exists() and "executing 0 of 4" in "\n".join(lines)


def test_a_killed_build_is_followed_by_a_good_one(built, tmp_path):
    """Killing a build while chapters run leaves no chapter running on and nothing half
    written: the next build reuses what had finished, runs the rest, gives the same ledger."""
    root = copy_of(built, tmp_path)
    for chapter in ("c3", "c4"):  # these two must run
        shutil.rmtree(entry(root, chapter))
    proc = build_cli(root, env={"RNNBOOK_TEST_SLEEP_4": "120"})
    for line in proc.stdout:
        if "ran    d/c3" in line:
            break  # c3 is in the cache, c4 still runs
    deadline = time.time() + 60
    while time.time() < deadline and not processes_of(root):
        time.sleep(0.2)  # until c4's kernel runs
    assert processes_of(root)
    started = descendants(proc.pid)  # its fork server, workers (one idle) and kernels
    assert len(started) >= 4
    proc.kill()
    proc.wait()
    proc.stdout.close()
    # its workers and kernels end with it (each worker watches the build)
    deadline = time.time() + 30
    while time.time() < deadline and (processes_of(root) or alive(started)):
        time.sleep(0.5)
    assert not processes_of(root) and not alive(started)
    again = build_cli(root)
    out = again.communicate()[0]
    assert again.returncode == 0, out
    assert "reused notebooks/d/c3" in out and "ran    d/c4" in out
    assert claims_json(root) == claims_json(built)


def descendants(pid: int) -> set[int]:
    """The processes started by ``pid``, and by them, and so on."""
    parent = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
            parent[int(stat.parent.name)] = int(fields[1])
        except (OSError, IndexError, ValueError):
            pass
    found, todo = set(), [pid]
    while todo:
        p = todo.pop()
        kids = {c for c, pp in parent.items() if pp == p} - found
        found |= kids
        todo += kids
    return found


def alive(pids: set[int]) -> set[int]:
    return {p for p in pids if Path(f"/proc/{p}").exists()}


def processes_of(root: Path) -> list[int]:
    """Processes whose environment says they work for the book in ``root``."""
    mark = f"RNNBOOK_ROOT={root}".encode()
    found = []
    for env in Path("/proc").glob("[0-9]*/environ"):
        try:
            if mark in env.read_bytes().split(b"\0"):
                found.append(int(env.parent.name))
        except OSError:
            pass
    return found


def test_two_builds_in_one_folder_take_turns(built, tmp_path):
    """A second build started while the first runs says it waits, then reuses its runs."""
    root = copy_of(built, tmp_path)
    shutil.rmtree(entry(root, "c1"))
    first = build_cli(root, env={"RNNBOOK_TEST_SLEEP_1": "3"})
    for line in first.stdout:
        if line.startswith("executing"):
            break  # the first holds the lock
    second = build_cli(root)
    out = second.communicate()[0]
    first.communicate()
    assert (first.returncode, second.returncode) == (0, 0), out
    assert "another build is using" in out and "executing 0 of 4" in out
    assert claims_json(root) == claims_json(built)


def test_what_the_check_of_an_entry_says(built, tmp_path):
    key = entry(built, "c1").name
    d = Path(shutil.copytree(entry(built, "c1"), tmp_path / key))
    assert xc.check_entry(d, key) is None
    assert xc.check_entry(d, "another") == "meta.json names another key"
    (d / "claims" / "extra.json").write_text("{}")
    assert xc.check_entry(d, key) == "claims/extra.json not in its checksums"
    meta = json.loads((d / "meta.json").read_text())
    del meta["files"]
    (d / "meta.json").write_text(json.dumps(meta))
    assert xc.check_entry(d, key) == xc.NO_CHECKSUMS
    (d / "meta.json").unlink()
    assert xc.check_entry(d, key) == "meta.json missing"


def test_planning_a_record_does_not_change_a_chapters_key(tmp_path):
    """The seeds and spreads of a claim's power analysis, and its record slices, change no
    verdict of a book run: they leave the cache key as it was; a rule's line changes it."""
    from rnnbook.book.execution_cache import claims_digest

    base = "paper: lsc\nclaims:\n- id: lsc.a\n  rule:\n    effects:\n    - {smallest: 0.1%s}\n"
    path = tmp_path / "c.claims.yaml"
    path.write_text(base % "")
    before = claims_digest(path)
    path.write_text(base % ", spread: 0.3" + "  power: {seeds: 9}\nrecords: {a: {}}\n")
    assert claims_digest(path) == before
    path.write_text((base % "").replace("0.1", "0.2"))
    assert claims_digest(path) != before
