"""The execution cache: a chapter runs again exactly when something it depends on changed."""

import json
import textwrap
from pathlib import Path

import pytest

from rnnbook.book import execution_cache as xc
from rnnbook.book import pipeline

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
