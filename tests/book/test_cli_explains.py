"""The command line explains itself (issue 53, items 3 and 4), on a small repository of one
chapter made here: values read by type and checked before a kernel, the repository found from a
subfolder, "did you mean", ``list``, ``params``, ``claims check`` (YAML errors with file and line,
rules that read what the chapter does not pass, ids checked but not declared), and a chapter run
that reuses, saves its figures, warns of an unchecked claim, and logs its traceback."""

import base64
import json
import re
from pathlib import Path

import pytest

from rnnbook.book import chapter_run, cli, discover, pipeline, spec
from rnnbook.book.params import Param, ParameterError, at_least
from rnnbook.book.pipeline import BuildError

CHAPTER = """# ---
# jupyter:
#   jupytext:
#     formats: py:percent
# ---

# %% tags=["parameters"]
profile = "book"
lr = None
kinds = None

# %%
from rnnbook.book.params import Param, at_least, positive

KINDS = list(("gru", "lstm"))
SPEC = {
    "lr": Param(float, 0.1, 0.01, 0.001, positive, "> 0", help="the learning rate"),
    "kinds": Param(list, ["gru"], KINDS, KINDS, KINDS.__contains__, "gru, lstm", str),
    "hidden": Param(int, 2, 3, 4, at_least(2), ">= 2; never in the parameters cell"),
}
P, ledger = start("demo/ch", SPEC, globals())

# %%
ledger.check("lsc.demo.one", a=1)
ledger.check("lsc.demo.undeclared", a=1)
"""

CLAIMS = """paper: lsc
claims:
- id: lsc.demo.one
  source: Eq. 1
  statement: one
  rule:
  - reproduced: a == 1 and b == 2
  - otherwise: not-reproduced
- id: lsc.demo.two
  source: Eq. 2
  statement: two
  rule:
  - reproduced: a == 1
  - otherwise: not-reproduced
"""


@pytest.fixture
def repo(tmp_path):
    (tmp_path / "notebooks" / "demo").mkdir(parents=True)
    (tmp_path / "_toc.yml").write_text(
        "format: jb-book\nroot: intro\nchapters:\n  - file: notebooks/demo/ch\n"
    )
    (tmp_path / "notebooks" / "demo" / "ch.py").write_text(CHAPTER)
    (tmp_path / "notebooks" / "demo" / "ch.claims.yaml").write_text(CLAIMS)
    return tmp_path


def test_values_are_read_by_type():
    f = Param(float, 0.1, 0.1, 0.1)
    assert spec.read_value("lr", "1e-3", f) == 1e-3
    assert spec.read_value("n", "3", Param(int, 1, 1, 1)) == 3
    kinds = Param(list, [], [], [], item=str)
    assert spec.read_value("kinds", "gru,lstm", kinds) == ["gru", "lstm"]
    assert spec.read_value("xs", "[1, 2]", Param(list, [], [], [], item=int)) == [1, 2]
    assert spec.read_value("b", "yes", Param(bool, True, True, True)) is True
    with pytest.raises(ParameterError, match=r"^parameter 'n' = '1.5': must be an int"):
        spec.read_value("n", "1.5", Param(int, 1, 1, 1, at_least(1), ">= 1"))


def test_checked_before_the_kernel_with_one_line(repo):
    ch = pipeline.find_chapter(repo, "demo/ch")
    s = spec.chapter_spec(ch.source)
    assert list(s) == ["lr", "kinds", "hidden"]
    assert spec.check_given("demo/ch", s, {"lr": "1e-3", "hidden": "5"}) == {
        "profile": "book",
        "lr": 1e-3,
        "hidden": 5,
    }
    for given, message in [
        ({"lr": "-1"}, "parameter 'lr' = -1.0: must be a float (> 0)"),
        ({"kinds": "gru,rnn"}, "parameter 'kinds' = ['gru', 'rnn']"),
        ({"hiden": "3"}, "unknown parameter 'hiden' for chapter demo/ch (did you mean"),
        ({"profile": "huge"}, "parameter 'profile' = 'huge': must be one of"),
    ]:
        with pytest.raises(ParameterError) as e:
            spec.check_given("demo/ch", s, given)
        assert message in str(e.value) and "\n" not in str(e.value)
    # a SPEC parameter the parameters cell leaves out is settable
    pipeline.check_parameters(ch, {"profile": "smoke", "hidden": 3})


def test_root_from_a_subfolder_and_did_you_mean(repo, monkeypatch, capsys):
    assert spec.find_root(repo / "notebooks" / "demo") == repo.resolve()
    with pytest.raises(ParameterError, match="not inside the book's repository"):
        spec.find_root(repo.parent)
    with pytest.raises(ParameterError, match=r"did you mean 'demo/ch'\?"):
        pipeline.find_chapter(repo, "demo/hc")
    monkeypatch.chdir(repo / "notebooks")
    assert cli.main(["list"]) == 0
    out = capsys.readouterr().out
    assert "demo/ch" in out and "2" in out.splitlines()[1]
    assert cli.main(["params", "demo/ch"]) == 0
    out = capsys.readouterr().out
    assert "lr (float): smoke 0.1, book 0.01, gpu 0.01, paper 0.001" in out
    assert "the learning rate" in out


def test_claims_check(repo, monkeypatch, capsys):
    problems = discover.check_claims(repo)
    assert any("claim lsc.demo.one: its rule reads ['b']" in p for p in problems)
    assert any(
        "ledger.check('lsc.demo.undeclared'): not declared" in p for p in problems
    )
    assert any(p.startswith("warning:") and "lsc.demo.two" in p for p in problems)
    path = repo / "notebooks" / "demo" / "ch.claims.yaml"
    path.write_text(CLAIMS.replace("  source: Eq. 2", "  source: [Eq. 2"))
    (problem,) = discover.check_claims(repo, "demo/ch")
    assert problem.startswith(f"{path}:11:") or f"{path}:1" in problem, problem
    monkeypatch.chdir(repo)
    assert cli.main(["claims", "check"]) == 1
    assert "1 error(s)" in capsys.readouterr().out


def _fake_run(folder_of, fail=False):
    png = base64.b64encode(b"\x89PNG fake").decode()

    def run_chapter(root, name, params, log=print):
        if fail:
            raise BuildError(
                "\nFAILED: chapter demo/ch in cell [3]: ValueError: bad\nTraceback..."
            )
        folder = folder_of(params)
        folder.mkdir(parents=True, exist_ok=True)
        nb = {
            "cells": [{"cell_type": "code", "outputs": [{"data": {"image/png": png}}]}]
        }
        (folder / "ch.ipynb").write_text(json.dumps(nb))
        (folder / "claims.json").write_text(json.dumps([{"id": "lsc.demo.one"}]))
        return folder / "ch.ipynb"

    return run_chapter


def test_chapter_run_reuses_saves_figures_warns_and_logs(repo, monkeypatch):
    ch = pipeline.find_chapter(repo, "demo/ch")

    def folder_of(params):
        return pipeline.run_folder(repo.resolve(), ch, params)

    monkeypatch.setattr(chapter_run, "run_chapter", _fake_run(folder_of))
    monkeypatch.setattr(chapter_run, "measuring_hash", lambda root, chapter: "h")
    lines = []
    nb = chapter_run.run(repo, "demo/ch", {"lr": "1e-3"}, log=lines.append)
    assert (nb.parent / "figures" / "figure-01.png").read_bytes() == b"\x89PNG fake"
    assert any("claim lsc.demo.two is declared" in ln for ln in lines)
    lines.clear()
    chapter_run.run(repo, "demo/ch", {"lr": "0.001"}, log=lines.append)
    assert lines[0].startswith("reused ")
    monkeypatch.setattr(chapter_run, "run_chapter", _fake_run(folder_of, fail=True))
    with pytest.raises(BuildError) as e:
        chapter_run.run(repo, "demo/ch", {"lr": "0.001"}, force=True, log=lines.append)
    message = str(e.value)
    assert "\n" not in message and message.startswith("chapter demo/ch in cell [3]")
    assert "Traceback..." in (nb.parent / chapter_run.ERROR_LOG).read_text()


def test_progress_line_gives_the_time_left():
    t = chapter_run._Ticker("lsc/deep_rnns", 760.0, print, 30)
    assert t.line(100) == "  lsc/deep_rnns: 100 s of about 760 s, about 660 s left"
    assert "40 s past" in t.line(800)
    assert "no expected time" in chapter_run._Ticker("x", None, print, 30).line(5)


def test_make_help_names_the_targets_and_commands():
    import shutil
    import subprocess

    root = Path(__file__).resolve().parents[2]
    if shutil.which("make") is None:
        pytest.skip("no make on this machine")
    out = subprocess.run(
        ["make", "-s", "help"], cwd=root, capture_output=True, text=True, check=True
    ).stdout
    phony = next(
        ln
        for ln in (root / "Makefile").read_text().splitlines()
        if ln.startswith(".PHONY")
    )
    for target in phony.split(":")[1].split():
        assert f"make {target}" in out or target == "help", target
    for command in ("list", "params CHAPTER", "claims check", "chapter CHAPTER"):
        assert command in out
    readme = (root / "README.md").read_text()
    for text in ("make help", "rnnbook list", "rnnbook params", "claims check"):
        assert text in readme


def test_a_yaml_error_names_the_file_and_line(repo):
    from rnnbook.book import claims

    path = repo / "notebooks" / "demo" / "ch.claims.yaml"
    path.write_text(CLAIMS.replace("  source: Eq. 2", "  source: [Eq. 2"))
    with pytest.raises(claims.ClaimError, match=rf"^{path}:\d+:\d+: "):
        claims.load(path, "demo/ch")


def test_every_option_has_help(monkeypatch):
    import argparse

    seen = {}

    def grab(self, argv=None, namespace=None):
        seen["parser"] = self
        raise SystemExit(0)

    monkeypatch.setattr(argparse.ArgumentParser, "parse_args", grab)
    with pytest.raises(SystemExit):
        cli.main(["list"])
    sub = next(
        a for a in seen["parser"]._actions if isinstance(a, argparse._SubParsersAction)
    )
    for name, parser in sub.choices.items():
        for a in parser._actions:
            if not isinstance(a, argparse._HelpAction):
                assert a.help, (name, a.option_strings or a.dest)


#: a chapter command as the docs print it: a chapter, then its profile and parameters
CHAPTER_COMMAND = r"rnnbook chapter (\w+/\w+)((?: (?:-p \S+ \S+|--profile \S+))+)"


def test_the_docs_chapter_commands_take_their_parameters():
    """Every ``rnnbook chapter CHAPTER ... -p NAME VALUE`` printed in README.md and
    ARCHITECTURE.md names parameters its chapter has, with values they accept (the
    README's first example once passed ``-p lr``, which no chapter reads)."""
    root = Path(__file__).resolve().parents[2]
    found = 0
    for doc in ("README.md", "ARCHITECTURE.md"):
        for m in re.finditer(CHAPTER_COMMAND, (root / doc).read_text()):
            given = {"profile": "smoke", **dict(re.findall(r"-p (\S+) (\S+)", m[2]))}
            given.update(re.findall(r"--(profile) (\S+)", m[2]))
            ch = pipeline.find_chapter(root, m[1])
            spec.check_given(ch.short, spec.chapter_spec(ch.source), given)
            found += 1
    assert found >= 2, found
