"""The pipeline end to end: a failing chapter fails the build, bad parameters stop a chapter with a
message naming the parameter, one chapter re-runs with new parameters, and the whole book builds at the
``smoke`` profile with its claims, scorecard, errata and status pages."""

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import papermill
import pytest

from rnnbook.book import claims as claim_declarations
from rnnbook.book import ledger
from rnnbook.book import execution, pipeline
from rnnbook.book.params import ParameterError

from tests.conftest import ROOT

HEADER = '# %% tags=["parameters"]\nprofile = "book"\nk = None\n\n'


def mini_book(tmp_path: Path, chapters: dict[str, str]) -> Path:
    (tmp_path / "book").mkdir()
    (tmp_path / "book" / "intro.md").write_text("# Intro\n")
    (tmp_path / "_config.yml").write_text(
        "title: t\nexecute:\n  execute_notebooks: 'off'\n"
    )
    toc = {"format": "jb-book", "root": "book/intro", "chapters": []}
    for name, body in chapters.items():
        path = tmp_path / "notebooks" / f"{name}.py"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(HEADER + textwrap.dedent(body))
        toc["chapters"].append({"file": f"notebooks/{name}"})
    (tmp_path / "_toc.yml").write_text(json.dumps(toc))
    return tmp_path


def test_failing_chapter_fails_the_build_with_name_and_traceback(tmp_path):
    root = mini_book(
        tmp_path,
        {
            "part/good": """
            # %%
            from rnnbook.book.ledger import Ledger
            Ledger("part/good", profile).check("lsc.mini", x=1)
            """,
            "part/bad": """
            # %%
            x = 1

            # %%
            def inner():
                raise ZeroDivisionError("deliberate failure in a chapter")
            inner()
            """,
        },
    )
    (root / "notebooks" / "part" / "good.claims.yaml").write_text(
        "paper: lsc\nclaims:\n  - {id: lsc.mini, source: Lemma 2, statement: s, "
        "rule: [{reproduced: x == 1}, {otherwise: not-reproduced}]}\n"
    )
    with pytest.raises(pipeline.BuildError) as err:
        pipeline.build(root, "smoke", jobs=2, html=False, log=lambda *_: None)
    msg = str(err.value)
    assert (
        "notebooks/part/bad" in msg
        and "ZeroDivisionError" in msg
        and "deliberate failure" in msg
    )
    assert "inner()" in msg  # the cell's traceback
    assert "notebooks/part/good" not in msg.split("chapter(s) failed:")[1]
    assert not (
        root / "notebooks" / "part" / "bad.ipynb"
    ).exists()  # nothing beside the sources
    # the good chapter still ran and recorded its claim into the build folder
    assert list((root / "_build" / "claims").rglob("lsc.mini.json"))


def test_cli_reports_failure_with_exit_code(tmp_path):
    root = mini_book(tmp_path, {"p/bad": "# %%\nraise RuntimeError('boom')\n"})
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "rnnbook",
            "build",
            "--profile",
            "smoke",
            "--no-html",
            "--root",
            str(root),
        ],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 1
    assert "notebooks/p/bad" in proc.stderr and "RuntimeError: boom" in proc.stderr


def test_unknown_parameter_and_profile_stop_before_running(tmp_path):
    root = mini_book(tmp_path, {"p/one": "# %%\nprint(k)\n"})
    with pytest.raises(
        ParameterError,
        match=r"unknown parameter 'nu' for chapter p/one; its parameters are: profile, k",
    ):
        pipeline.run_chapter(root, "p/one", {"nu": 1}, log=lambda *_: None)
    with pytest.raises(ParameterError, match=r"parameter 'profile' = 'fast'"):
        pipeline.run_chapter(root, "p/one", {"profile": "fast"}, log=lambda *_: None)
    with pytest.raises(ParameterError, match="not in _toc.yml"):
        pipeline.run_chapter(root, "p/two", {}, log=lambda *_: None)


def test_bad_value_stops_a_real_chapter_in_its_first_cell():
    with pytest.raises(pipeline.BuildError) as err:
        pipeline.run_chapter(
            ROOT,
            "implicit_bias/rho_j",
            {"profile": "smoke", "nu_W": 1.5},
            log=lambda *_: None,
        )
    msg = str(err.value)
    assert (
        "ParameterError" in msg
        and "parameter 'nu_W' = 1.5" in msg
        and "0 < nu_W < 1" in msg
    )


def test_rerun_one_chapter_with_new_parameters():
    out = pipeline.run_chapter(
        ROOT,
        "lsc/lemma2_paths",
        {"profile": "smoke", "T_graph": 5},
        log=lambda *_: None,
    )
    assert out.exists() and ROOT / "_build" / "runs" in out.parents
    claims = json.loads((out.parent / "claims.json").read_text())
    assert {c["id"] for c in claims} >= {"lsc.lemma2.identity", "lsc.lemma2.paths-eq1"}
    assert all(c["profile"] == "smoke" for c in claims)
    assert (
        "T=5"
        in next(c for c in claims if c["id"] == "lsc.lemma2.paths-eq1")["measured"]
    )


def test_whole_book_builds_at_smoke_profile(smoke_book):
    """The pipeline as `make test` runs it: every chapter at `smoke`, claims, generated pages, HTML (-W -n)."""
    build = smoke_book
    claims = json.loads((build / "claims.json").read_text())
    assert len(claims) >= 8
    for c in claims:
        assert (
            set(ledger.FIELDS) <= set(c)
            and c["profile"] == "smoke"
            and c["verdict"] in ledger.VERDICTS
        )
    papers = {c["paper"] for c in claims}
    assert {"lsc", "implicit-bias"} <= papers
    # the ledger's contract: what was recorded is exactly what the chapters declared beforehand
    declared = claim_declarations.all_declared(ROOT)
    recorded = {c["id"]: c for c in claims}
    assert not set(declared) - set(recorded), (
        f"declared, not recorded: {sorted(set(declared) - set(recorded))}"
    )
    assert not set(recorded) - set(declared), (
        f"recorded, not declared: {sorted(set(recorded) - set(declared))}"
    )
    for cid, d in declared.items():
        assert (
            recorded[cid]["chapter"] == d.chapter
            and recorded[cid]["rule"] == d.rule_text()
        )
        if d.trained is not None and recorded[cid]["verdict"] != "not-attempted":
            # a training claim: its gate and its seeds are on record (a claim not
            # attempted, with its reason, evaluates no gate)
            gate = recorded[cid]["trained"]
            assert (
                set(gate) == {"rule", "value", "passed"}
                and gate["rule"] == d.gate_text()
            )
            assert isinstance(recorded[cid]["seeds"], int), cid
            if not gate["passed"]:
                assert recorded[cid]["verdict"] == "inconclusive", cid
    html = build / "html"
    chapters = [c.name for c in pipeline.chapters(ROOT)]
    assert {"notebooks/implicit_bias/rho_j", "notebooks/lsc/lemma2_paths"} <= set(
        chapters
    )
    for page in (
        "book/scorecard",
        "book/errata",
        "book/status",
        "book/references",
        "book/api",
        *chapters,
    ):
        assert (html / f"{page}.html").exists(), page
    scorecard = (html / "book/scorecard.html").read_text()
    assert all(c["id"] in scorecard for c in claims)
    status = (html / "book/status.html").read_text()
    assert "torch" in status and "2.13.0" in status
    for chapter in chapters:
        page = (html / f"{chapter}.html").read_text()
        assert "injected-parameters" not in page and 'profile = "book"' not in page
        assert (
            page.count("<img") >= 1 and "math notranslate" in page
        )  # figures and sympy output
        assert "Traceback" not in page
    timings = json.loads((build / "timings.json").read_text())
    assert set(timings["chapters"]) == set(chapters)
    assert all(ch in status for ch in chapters)


def test_no_executed_notebook_is_tracked():
    proc = subprocess.run(
        ["git", "ls-files", "*.ipynb"], cwd=ROOT, capture_output=True, text=True
    )
    if proc.returncode != 0:
        pytest.skip("not a git checkout")
    assert proc.stdout.strip() == ""


def test_the_smoke_build_leaves_the_books_build_alone(smoke_book):
    """`make test` after `make book` keeps the book: the smoke build renders, records its
    claims and times its chapters in its own folder, not in ``_build``."""
    start, end = map(float, (smoke_book / "smoke-built").read_text().split())
    assert smoke_book.parent != ROOT and (smoke_book / "claims.json").exists()
    for name in ("claims.json", "timings.json", "html/index.html"):
        path = ROOT / "_build" / name
        assert not path.exists() or not start <= path.stat().st_mtime <= end, name


def _job(tmp_path: Path) -> dict:
    src = tmp_path / "ch.py"
    src.write_text("# %%\nx = 1\n")
    out, cwd = tmp_path / "out" / "ch.ipynb", tmp_path / "work"
    return dict(source=src, output=out, cwd=cwd, env={}, parameters={}, chapter="ch")


DIED = "Kernel died before replying to kernel_info"


@pytest.mark.parametrize(
    "failures,calls,ok",
    [
        ([RuntimeError(DIED)], 2, True),
        ([RuntimeError(DIED)] * 3, 3, False),
        ([RuntimeError("a cell raised")], 1, False),
        (
            [papermill.PapermillExecutionError(0, 1, "x", "RuntimeError", DIED, [])],
            1,
            False,
        ),
    ],
)
def test_a_kernel_that_did_not_start_is_started_again(
    tmp_path, monkeypatch, failures, calls, ok
):
    """A kernel that died before it answered (over IPC no longer from a port drawn twice, but
    from a full /tmp or the out-of-memory killer) ran nothing, so the chapter runs again (up to
    3 tries). Any other failure, a failing cell above all, is reported at once."""
    seen = []

    def fake(*args, **kwargs):
        seen.append(1)
        if len(seen) <= len(failures):
            raise failures[len(seen) - 1]

    monkeypatch.setattr(papermill, "execute_notebook", fake)
    r = execution.execute_job(_job(tmp_path))
    assert len(seen) == calls and (r["error"] is None) == ok


def test_a_rerun_gives_the_build_identical_claims(smoke_book):
    """Same parameters, same numbers: re-running a chapter that trains networks (`make
    chapter`) reproduces byte for byte the claims the whole-book build recorded for it: every
    draw seeded from the parameters, nothing depends on the chapters running beside it (one
    thread per kernel)."""
    chapter = "implicit_bias/delay"
    built = [
        c
        for c in json.loads((smoke_book / "claims.json").read_text())
        if c["chapter"] == f"notebooks/{chapter}"
    ]
    assert built and any(c.get("trained") for c in built)
    out = pipeline.run_chapter(ROOT, chapter, {"profile": "smoke"}, log=lambda *_: None)
    again = json.loads((out.parent / "claims.json").read_text())
    assert again == built


def test_a_fresh_build_starts_its_longest_chapters_first(tmp_path, monkeypatch):
    root = mini_book(tmp_path, {"a/short": "x = 1\n", "a/long": "x = 2\n"})
    chs = pipeline.chapters(root)
    costs = tmp_path / "costs.yaml"
    costs.write_text("book:\n  notebooks/a/long: 100\n  notebooks/a/short: 1\n")
    monkeypatch.setattr(pipeline, "COSTS", costs)
    build = tmp_path / "_build"
    # no build yet: the committed measurements order the chapters
    order = [c.name for c in pipeline.longest_first(chs, build, "book")]
    assert order == ["notebooks/a/long", "notebooks/a/short"]
    # a profile without measurements of its own orders by the book's
    order = [c.name for c in pipeline.longest_first(chs, build, "paper")]
    assert order == ["notebooks/a/long", "notebooks/a/short"]
    costs.write_text("smoke:\n  notebooks/a/short: 2\n")
    order = [c.name for c in pipeline.longest_first(chs, build, "smoke")]
    assert order == ["notebooks/a/short", "notebooks/a/long"]
    costs.write_text("book:\n  notebooks/a/long: 100\n  notebooks/a/short: 1\n")
    # the last build's own timings win over the committed ones, for its own profile only
    build.mkdir()
    timings = {"notebooks/a/short": {"seconds": 500.0}}
    (build / "timings.json").write_text(
        json.dumps({"profile": "book", "chapters": timings})
    )
    order = [c.name for c in pipeline.longest_first(chs, build, "book")]
    assert order == ["notebooks/a/short", "notebooks/a/long"]
    (build / "timings.json").write_text(
        json.dumps({"profile": "smoke", "chapters": timings})
    )
    order = [c.name for c in pipeline.longest_first(chs, build, "book")]
    assert order == ["notebooks/a/long", "notebooks/a/short"]


def test_the_committed_chapter_times_name_real_chapters():
    import yaml

    names = {c.name for c in pipeline.chapters(ROOT)}
    shipped = yaml.safe_load(pipeline.COSTS.read_text())
    assert set(shipped) <= {"smoke", "book", "paper"}
    for profile, table in shipped.items():
        assert set(table) <= names, f"{profile}: {set(table) - names}"
        assert all(v >= 0 for v in table.values())
