"""Re-runs on another processor (rnnbook.book.processors): the toy record of test_shards,
decided, is run again whole into a folder of its own; it starts only where it would re-run
the record, is shown beside the record (the same verdict, another verdict, other code) and
never changes what the record decides; ``rerun`` runs it pinned, committed shard by shard."""

from __future__ import annotations

import json
import subprocess

import pytest

from rnnbook.book import (
    cli,
    ledger_sphinx,
    processors,
    records,
    shard_tree,
    shards,
    standing,
)

from . import test_shards
from .test_shards import TARGET, _commit, _git, _quiet

toy = test_shards.toy  # the toy record's fixture


def _decided(root, monkeypatch=None) -> None:
    """The toy record, decided; with ``monkeypatch``, on another machine than this one
    (as a re-run is made on a machine the record does not list)."""
    if monkeypatch is None:
        for _ in range(2):
            shards.run_shard(root, TARGET, "cpu", log=_quiet)
        shards.decide(root, TARGET, "cpu", log=_quiet)
        return
    elsewhere = {**shards.machine(), "host": "elsewhere", "id": "aaaaaaaaaaaa"}
    with monkeypatch.context() as m:
        m.setattr(shards, "machine", lambda: elsewhere)
        _decided(root)


def _rerun(root, machine_id: str = "0123456789ab") -> None:
    at = root / processors.results_of(machine_id)
    for _ in range(2):
        shards.run_shard(root, TARGET, "cpu", log=_quiet, results=at)
    shards.decide(root, TARGET, "cpu", log=_quiet, results=at)


def _verdict(root) -> str:
    (loaded,) = records.load(root)  # the re-run is no record of its own
    (claim,) = loaded["claims"]
    return claim["verdict"]


def _shard_elsewhere(root, monkeypatch) -> None:
    """The toy record's next shard, run on another machine than this one."""
    elsewhere = {**shards.machine(), "host": "elsewhere", "id": "aaaaaaaaaaaa"}
    with monkeypatch.context() as m:
        m.setattr(shards, "machine", lambda: elsewhere)
        shards.run_shard(root, TARGET, "cpu", log=_quiet)


def _refuse_here(root) -> None:
    """This machine listed as refused by the toy record (other bits than shard 0)."""
    listed = root / "results/shards/cpu/toy/toy/conf/machines.json"
    was = json.loads(listed.read_text()) if listed.exists() else []
    here = {**shards.machine(), "check": "refused: other bits", "refused": True}
    listed.write_text(json.dumps([*was, here]))


def test_a_rerun_starts_only_where_it_would_re_run_the_record(toy, monkeypatch):
    with pytest.raises(shards.ShardError, match="has no shard in"):
        processors.can_start(toy, TARGET)
    _decided(toy, monkeypatch)
    processors.can_start(toy, TARGET)  # the checkout measures as shard 0 did
    path = toy / "notebooks/toy/toy.py"
    path.write_text(path.read_text().replace("normal(1.0, 0.5)", "normal(1.0, 0.25)"))
    _commit(toy, "other measuring code")
    with pytest.raises(shards.ShardError, match="other its measuring code than"):
        processors.can_start(toy, TARGET)
    _git(toy, "checkout", "-q", "HEAD~1", "--", "notebooks")
    _commit(toy, "the measuring code back")
    processors.can_start(toy, TARGET)
    here = shards.machine()
    listed = toy / "results/shards/cpu/toy/toy/conf/machines.json"
    listed.write_text(json.dumps([{**here, "check": "same bits"}]))
    with pytest.raises(shards.ShardError, match="would repeat the record bit for bit"):
        processors.can_start(toy, TARGET)
    for bad in ("", "a/b", ".hidden"):
        with pytest.raises(shards.ShardError, match="machine id"):
            processors.results_of(bad)


def test_a_rerun_is_shown_beside_its_record_and_decides_nothing(toy, monkeypatch):
    _decided(toy)
    before = _verdict(toy)
    _rerun(toy)
    assert _verdict(toy) == before and len(records.load(toy)) == 1
    (rr,) = processors.reruns(toy)
    assert (rr["target"], rr["in"], rr["of"]) == (TARGET, 2, 2)
    assert rr["verdicts"] == {"lsc.toy.gain": before}
    said = standing.text_table(standing.standing(toy))
    assert "re-run whole on" in said and "the same verdict as the record" in said
    assert said.endswith(
        "1 decided record re-run whole on another processor (1 claim): every claim got "
        "its record's verdict."
    )
    table = standing.html_table(standing.standing(toy), None)
    assert "<p>1 decided record re-run whole" in table
    (entry,) = records.confirmatory(toy)["lsc.toy.gain"]
    box = ledger_sphinx.confirmatory_html(entry, reruns=[rr])
    assert "Re-run whole on" in box and "the same seeds and code" in box
    assert "its effects moved by" in box  # the same seeds: here by nothing
    # a re-run on a processor whose training went elsewhere: another verdict, in words
    monkeypatch.setenv("TOY_SHIFT", "-3")
    _rerun(toy, "ba9876543210")
    moved = processors.of_record(processors.reruns(toy), TARGET)[1]
    line = processors.words(moved, {"lsc.toy.gain": before}, rr["measured_with"])
    there = moved["verdicts"]["lsc.toy.gain"]
    assert f"on 1 of 1 claims (lsc.toy.gain: {there}, the record {before})" in line
    compared = [
        processors.compare(x, {"lsc.toy.gain": before}, None) for x in (rr, moved)
    ]
    assert processors.summary(compared, 1) == (
        "2 decided records re-run whole on another processor (2 claims): 1 of 2 claims "
        "got another verdict than their record's; 1 more re-run running."
    )
    assert processors.summary([], 0) == ""
    assert moved["verdicts"]["lsc.toy.gain"] != before and _verdict(toy) == before
    # a re-run that measured with other code is not set beside the record
    other = processors.words(rr, {"lsc.toy.gain": before}, "another hash")
    assert "not set beside it" in other and "verdict" not in other


def test_a_rerun_in_progress_says_how_far_it_has_come(toy):
    _decided(toy)
    at = toy / processors.results_of("0123456789ab")
    shards.run_shard(toy, TARGET, "cpu", log=_quiet, results=at)
    (rr,) = processors.reruns(toy)
    assert rr["verdicts"] is None and rr["in"] == 1
    assert "1 of 2 shards in" in processors.words(rr, {}, rr["measured_with"])
    (at / "cpu/toy/toy/conf").mkdir(parents=True)
    (at / "cpu/toy/toy/conf/provenance.json").write_text('{"date": "2026')
    lines = []
    (rr,) = processors.reruns(toy, report=lines.append)  # damaged: one line, goes on
    assert len(lines) == 1 and "damaged re-run" in lines[0] and rr["verdicts"] is None
    (at / "shards/cpu/toy/toy/conf/0/values.json").write_text("[1, 2")
    lines = []
    (rr,) = processors.reruns(toy, report=lines.append)
    assert rr["in"] == 0 and any("left out of the re-run" in x for x in lines)


def test_rerun_runs_pinned_and_commits_each_shard(toy, monkeypatch, capsys):
    for who in ("AUTHOR", "COMMITTER"):
        monkeypatch.setenv(f"GIT_{who}_NAME", "t")
        monkeypatch.setenv(f"GIT_{who}_EMAIL", "t@t")
    args = ["rerun", f"{TARGET}:5", "--root", str(toy), "--foreground"]
    assert cli.main(args) == 1 and "has no shard in" in capsys.readouterr().err
    _decided(toy, monkeypatch)
    subprocess.run(["git", "add", "results"], cwd=toy, check=True)
    _commit(toy, "the record")
    assert cli.main(args) == 0
    log = subprocess.run(
        ["git", "log", "--format=%s"], cwd=toy, capture_output=True, text=True
    ).stdout.splitlines()
    me = shards.machine()["id"]
    assert (
        log[0]
        == f"Decide the re-run on processor {me} of {TARGET} once, on all its shards"
    )
    assert log[1].startswith(
        f"Shard of the re-run on processor {me} of {TARGET} (2 of 2"
    )
    at = toy / processors.results_of(me)
    assert json.loads((at / "cpu/toy/toy/conf/provenance.json").read_text())["design"]
    assert (
        cli.main(["record", TARGET, "--root", str(toy), "--results", "elsewhere"]) == 1
    )
    assert "re-runs on other processors under" in capsys.readouterr().err


def test_a_running_record_is_re_run_only_where_it_refused_and_decided_after_it(
    toy, monkeypatch
):
    _shard_elsewhere(toy, monkeypatch)
    with pytest.raises(shards.ShardError, match="run its own shards here"):
        processors.can_start(toy, TARGET)  # this machine may run the record itself
    _refuse_here(toy)
    processors.can_start(toy, TARGET)
    at = toy / processors.results_of("0123456789ab")
    for _ in range(2):
        shards.run_shard(toy, TARGET, "cpu", log=_quiet, results=at)
    (rr,) = processors.reruns(toy)
    assert (rr["in"], rr["of"], rr["verdicts"]) == (2, 2, None)
    with pytest.raises(shards.ShardError, match="decided after it"):
        processors.may_decide(toy, TARGET)
    with pytest.raises(shards.ShardError, match="decided after it"):
        shard_tree.run(toy, TARGET, "cpu", None, results=processors.results_of("x"))
    lines = []

    def runner(*a, **k):
        raise AssertionError(f"nothing is run: {a}")

    rel = processors.results_of("0123456789ab")
    shard_tree.queue(toy, [f"{TARGET}:3"], runner=runner, log=lines.append, results=rel)
    assert lines == [
        f"{TARGET}: every shard of its re-run is in; decided after the record"
    ]
    said = processors.words(rr, {"lsc.toy.gain": None}, rr["measured_with"])
    assert "2 of 2 shards in" in said and "decided after the record" in said
    (entry,) = records.confirmatory(toy)["lsc.toy.gain"]
    box = ledger_sphinx.confirmatory_html(entry, reruns=[rr])
    assert (
        "refused on" in box
        and "2 of 2 shards in" in box
        and "verdict" not in (box.split("refused on", 1)[1])
    )
    _shard_elsewhere(toy, monkeypatch)
    shards.decide(toy, TARGET, "cpu", log=_quiet)
    processors.may_decide(toy, TARGET)  # the record decided: its re-run may be


def test_a_rerun_in_a_box_typesets_the_math_of_its_effect_names():
    entry = {"claim": {"id": "c", "verdict": "reproduced"}, "state": {"done": {}}}
    entry["claim"]["effects"] = [{"name": "tau-free margin", "estimate": 1.0}]
    again = {"effects": [{"name": "tau-free margin", "estimate": 1.5}]}
    rr = {"machine": {"cpu": "X"}, "void": None, "date": "2026-12-03", "in": 1}
    rr |= {"of": 1, "hours": 0.1, "measured_with": None}
    rr |= {"verdicts": {"c": "reproduced"}, "claims": {"c": again}}
    said = ledger_sphinx.rerun_html(entry, [rr])
    assert "\\(\\tau\\)</span>-free margin, 1.5 against the record" in said
    assert "tau-free" not in said


def test_the_effect_a_rerun_moved_most_is_named():
    rec = {"effects": [{"name": "a", "estimate": 1.0}, {"name": "b", "estimate": 2.0}]}
    again = {
        "effects": [{"name": "a", "estimate": 1.5}, {"name": "b", "estimate": 2.1}]
    }
    again["effects"].append({"name": "c", "estimate": 9.0})  # not in the record
    assert processors.moved_most(rec, again) == (
        "its effects moved by at most 0.5: a, 1.5 against the record's 1"
    )
    assert processors.moved_most(rec, rec) == "its effects moved by nothing"
    for odd in ("nan", float("nan"), None):
        assert (
            processors.moved_most(rec, {"effects": [{"name": "a", "estimate": odd}]})
            == ""
        )
