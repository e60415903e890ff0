"""Shards run apart from the working tree (rnnbook.book.shard_tree): the toy record of
test_shards runs in a worktree pinned at its shard 0's commit, edits made in the checkout
meanwhile do not reach it, each shard is copied back and committed alone, a failed one
copies nothing and says so, and the queue decides the record once its last shard is in."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from rnnbook.book import shard_tree, shards

from . import test_shards
from .test_shards import CHAPTER, TARGET, _quiet

toy = test_shards.toy  # the toy record's fixture

SLICE = "results/shards/cpu/toy/toy/conf"


def _out(root, *args) -> str:
    proc = subprocess.run(["git", *args], cwd=root, capture_output=True, text=True)
    return proc.stdout.strip()


def _prov(root, k: int) -> dict:
    return json.loads((root / SLICE / str(k) / "provenance.json").read_text())


def test_a_pinned_shard_runs_at_its_records_commit_and_lands_alone(toy, monkeypatch):
    for who in ("AUTHOR", "COMMITTER"):  # a fresh machine has no git identity
        monkeypatch.setenv(f"GIT_{who}_NAME", "t")
        monkeypatch.setenv(f"GIT_{who}_EMAIL", "t@t")
    head = _out(toy, "rev-parse", "HEAD")
    got = shard_tree.run(toy, TARGET, "cpu", commit=True, log=_quiet)
    assert got == toy / SLICE and _prov(toy, 0)["commit"] == head
    subject = _out(toy, "log", "-1", "--format=%s")
    assert subject == f"Shard of the confirmatory record {TARGET} (1 of 2 in)"
    assert _out(toy, "show", "--name-only", "--format=", "HEAD").startswith(SLICE)
    # an edit in the checkout while the record runs: the pinned tree does not see it
    (toy / "notebooks/toy/toy.py").write_text(CHAPTER + "\n# an edit in progress\n")
    with pytest.raises(shards.ShardError, match="runs from a commit"):
        shards.run_shard(toy, TARGET, "cpu", log=_quiet)  # the checkout itself refuses
    monkeypatch.setenv("TOY_FAIL", "1")  # a failed shard: nothing lands, it says so
    with pytest.raises(shards.ShardError, match="failed in .*shard-trees"):
        shard_tree.run(toy, TARGET, "cpu", commit=True, log=_quiet)
    assert not (toy / SLICE / "1").exists()
    monkeypatch.delenv("TOY_FAIL")
    shard_tree.run(toy, TARGET, "cpu", commit=True, log=_quiet)
    assert _prov(toy, 1)["commit"] == head
    assert _prov(toy, 1)["measuring_hash"] == _prov(toy, 0)["measuring_hash"]
    assert "an edit in progress" in (toy / "notebooks/toy/toy.py").read_text()
    assert _out(toy, "status", "--porcelain", "--", "results") == ""
    # a tree left half-made (no worktree in it) is made again, not run in
    trees = list((toy / shard_tree.TREES).iterdir())
    shutil.rmtree(trees[0])
    trees[0].mkdir()
    again = shard_tree.tree(toy, "toy/toy", "conf", head)
    assert (again / ".git").is_file() and _out(again, "rev-parse", "HEAD") == head
    # complete: the queue runs no shard and decides it once, committed
    shard_tree.queue(toy, [f"{TARGET}:3"], "cpu", log=_quiet)
    assert (toy / "results/cpu/toy/toy/conf/claims.json").exists()
    assert _out(toy, "log", "-1", "--format=%s").startswith("Decide the confirmatory")
    with pytest.raises(shards.ShardError, match="not CHAPTER:SLICE:N"):
        shard_tree.queue(toy, [TARGET], "cpu", log=_quiet)


def test_a_failed_decide_says_so_and_lands_nothing(toy, monkeypatch):
    """A decide that fails in the pinned tree wrote no record: the queue says the decide
    failed (not that a record folder is missing) and copies and commits nothing."""
    for who in ("AUTHOR", "COMMITTER"):
        monkeypatch.setenv(f"GIT_{who}_NAME", "t")
        monkeypatch.setenv(f"GIT_{who}_EMAIL", "t@t")
    for _ in range(2):
        shard_tree.run(toy, TARGET, "cpu", commit=True, log=_quiet)
    head = _out(toy, "rev-parse", "HEAD")
    failing = lambda cmd, **kw: subprocess.CompletedProcess(cmd, 1, stdout="")  # noqa: E731
    with pytest.raises(shards.ShardError, match="--decide failed in .*shard-trees"):
        shard_tree.run(
            toy, TARGET, "cpu", None, commit=True, runner=failing, log=_quiet
        )
    assert not (toy / "results/cpu/toy/toy/conf").exists()
    assert _out(toy, "rev-parse", "HEAD") == head
    shard_tree.run(toy, TARGET, "cpu", None, commit=True, log=_quiet)  # decided after
    assert (toy / "results/cpu/toy/toy/conf/claims.json").exists()


def test_the_command_line_says_what_goes_with_what(toy, capsys):
    from rnnbook.book import cli

    base = ["record", TARGET, "--root", str(toy)]
    assert cli.main([*base, "--commit", "--shard", "next"]) == 1
    assert "--commit goes with --pinned" in capsys.readouterr().err
    assert cli.main([*base, "--pinned"]) == 1
    assert "--pinned goes with --shard or --decide" in capsys.readouterr().err
    assert cli.main([*base, "--pinned", "--shard", "x"]) == 1
    assert "'next' or a shard number" in capsys.readouterr().err
    assert cli.main(["queue", TARGET, "--root", str(toy)]) == 1
    assert "not CHAPTER:SLICE:N" in capsys.readouterr().err


def test_a_refused_machine_has_an_exit_status_of_its_own(toy, capsys, monkeypatch):
    from rnnbook.book import cli

    def refused(*a, **k):
        raise shards.MachineRefused(f"{TARGET}: refused: other bits")

    monkeypatch.setattr(shards, "run_shard", refused)
    got = cli.main(["record", TARGET, "--root", str(toy), "--shard", "next"])
    assert got == shards.REFUSED_EXIT != 1
    assert "refused:" in capsys.readouterr().err


def test_the_checkout_checks_a_new_machine_before_a_pinned_shard(toy, monkeypatch):
    """The pinned tree's own guard may be older (it voided a record on other bits): the
    checkout runs the check first and refuses the machine itself."""
    for who in ("AUTHOR", "COMMITTER"):
        monkeypatch.setenv(f"GIT_{who}_NAME", "t")
        monkeypatch.setenv(f"GIT_{who}_EMAIL", "t@t")
    shard_tree.run(toy, TARGET, "cpu", commit=True, log=_quiet)  # shard 0, here
    from rnnbook.book import shard_plan

    other = {**shard_plan.machine(), "host": "elsewhere", "id": "0123456789ab"}
    monkeypatch.setattr(shard_plan, "machine", lambda: other)
    calls = []

    def other_bits(cmd, **kw):
        calls.append(cmd)
        tree = Path(
            cmd[cmd.index("--root") + 1]
        )  # the check's run, as a chapter keeps it
        ran = [{"id": "lsc.toy.gain", "extra": {"inputs": {"gains": [9.0]}}}]
        run = tree / "_build/runs/toy/toy/check/claims.json"
        run.parent.mkdir(parents=True, exist_ok=True)
        run.write_text(json.dumps(ran))
        said = f"{TARGET}: this machine (x on elsewhere) gave other bits than shard 0"
        return subprocess.CompletedProcess(cmd, 1, stdout=f"running\n{said}\n")

    lines = []
    shard_tree.queue(toy, [f"{TARGET}:1"], "cpu", runner=other_bits, log=lines.append)
    assert len(calls) == 1 and "--check" in calls[0]  # no shard ran after the check
    st = test_shards._state(toy)
    assert not st["void"] and st["machines"][-1]["refused"]
    assert "gave other bits" in st["machines"][-1]["check"]
    assert _out(toy, "log", "-1", "--format=%s").startswith("This machine gives other")
    kept = json.loads((toy / SLICE / "refused/0123456789ab/values.json").read_text())
    assert kept == {"lsc.toy.gain": {"values": {"gains": [9.0]}}}  # the evidence, kept
    assert _out(toy, "status", "--porcelain", "--", "results") == ""  # and committed
    shard_tree.queue(toy, [f"{TARGET}:1"], "cpu", runner=other_bits, log=lines.append)
    assert len(calls) == 1  # refused at once: not checked again
    assert sum("passed over" in line for line in lines) == 2
    monkeypatch.setattr(shard_plan, "machine", lambda: {**other, "id": "ba9876543210"})
    failing = lambda cmd, **kw: subprocess.CompletedProcess(cmd, 1, stdout="")  # noqa: E731
    with pytest.raises(shards.ShardError, match="machine check failed"):  # still stops
        shard_tree.queue(toy, [f"{TARGET}:1"], "cpu", runner=failing, log=_quiet)


def test_a_new_machine_with_shard_0s_bits_is_listed_before_its_shard(toy, monkeypatch):
    shard_tree.run(toy, TARGET, "cpu", log=_quiet)  # shard 0, here
    from rnnbook.book import shard_plan

    other = {**shard_plan.machine(), "host": "elsewhere", "id": "0123456789ab"}
    monkeypatch.setattr(shard_plan, "machine", lambda: other)
    calls = []

    def same_bits(cmd, **kw):
        calls.append(cmd)
        return subprocess.CompletedProcess(cmd, 0, stdout="the same bits as shard 0\n")

    # another lane of this machine is checking it: this one waits, then checks itself
    # (the other ended without a word), and gives the claim back
    import os
    import threading

    lock = toy / shard_tree.CLAIMS / "toy-toy--conf" / "check"
    lock.parent.mkdir(parents=True, exist_ok=True)
    lock.write_text(f"{os.getpid()}\n")
    threading.Timer(1.0, lock.unlink).start()
    lines = []
    shard_tree.run(toy, TARGET, "cpu", runner=same_bits, log=lines.append)
    assert f"waiting for process {os.getpid()}'s check of this machine" in lines[0]
    assert "--check" in calls[0] and "--shard" in calls[1] and not lock.exists()
    listed = test_shards._state(toy)["machines"][-1]
    assert listed["host"] == "elsewhere" and not listed.get("refused")
    assert "same bits" in listed["check"]
    # a second lane that waited for that check reads its outcome: no check again
    shard_tree._check_here(
        toy, TARGET, "cpu", toy, shard_tree.RESULTS, False, same_bits, _quiet
    )
    assert len(calls) == 2


def _ended_pid() -> int:
    """The process id of a process that has ended."""
    proc = subprocess.Popen(["true"])
    proc.wait()
    return proc.pid


def test_two_queues_on_one_record_run_different_shards(toy, monkeypatch):
    """Each shard is claimed before it runs: a shard a live process runs is left to it, a
    claim whose process ended is taken over, a second queue runs in a lane of its own and
    brings back only its own shard, and the decision is claimed too."""
    import os
    import threading

    for who in ("AUTHOR", "COMMITTER"):
        monkeypatch.setenv(f"GIT_{who}_NAME", "t")
        monkeypatch.setenv(f"GIT_{who}_EMAIL", "t@t")
    claims = toy / shard_tree.CLAIMS / "toy-toy--conf"
    claims.mkdir(parents=True)
    (claims / "0").write_text(
        f"{os.getpid()}\n"
    )  # shard 0 runs elsewhere: the reference
    with pytest.raises(shard_tree.ShardBusy, match=f"process {os.getpid()}"):
        shard_tree.run(toy, TARGET, "cpu", commit=True, log=_quiet)
    (claims / "0").write_text(f"{_ended_pid()}\n")  # its process ended: taken over
    shard_tree.run(toy, TARGET, "cpu", commit=True, log=_quiet)
    assert _prov(toy, 0) and not (claims / "0").exists()  # given back
    # shard 1 runs in another process: this queue leaves it, and decides nothing
    (claims / "1").write_text(f"{os.getpid()}\n")
    lines = []
    shard_tree.queue(toy, [f"{TARGET}:2"], "cpu", log=lines.append)
    assert any("shard 1: process" in line and "left to it" in line for line in lines)
    assert not (toy / SLICE / "1").exists()
    (claims / "1").unlink()
    # lane 0's tree is in use: this run takes lane 1, a tree of its own; a half-made
    # shard left in that tree (another one's, killed) is not brought back
    (claims / "lane-0").write_text(f"{os.getpid()}\n")
    lane1 = shard_tree.tree(toy, "toy/toy", "conf--lane1", _prov(toy, 0)["commit"])
    (lane1 / SLICE / "7").mkdir(parents=True)
    (lane1 / SLICE / "7" / "provenance.json").write_text("{")
    # another queue's commit holds git's index lock for a moment: this one waits
    lock = toy / ".git" / "index.lock"
    lock.write_text("")
    threading.Timer(1.5, lock.unlink).start()
    shard_tree.run(toy, TARGET, "cpu", commit=True, log=_quiet)
    assert _prov(toy, 1) and not (toy / SLICE / "7").exists()
    assert (claims / "lane-0").exists() and not (claims / "lane-1").exists()
    assert _out(toy, "status", "--porcelain", "--", "results") == ""
    # the decision is claimed: while another process decides, the queue leaves it
    (claims / "decide").write_text(f"{os.getpid()}\n")
    lines = []
    shard_tree.queue(toy, [f"{TARGET}:1"], "cpu", log=lines.append)
    assert any("being decided by another process" in line for line in lines)
    assert not (toy / "results/cpu/toy/toy/conf/claims.json").exists()
    (claims / "decide").unlink()
    shard_tree.queue(toy, [f"{TARGET}:1"], "cpu", log=_quiet)
    assert (toy / "results/cpu/toy/toy/conf/claims.json").exists()


def test_a_claim_is_taken_once_and_given_back_only_by_its_process(tmp_path):
    import os

    path = tmp_path / shard_tree.CLAIMS / "c" / "3"
    assert shard_tree.take(path) and not shard_tree.take(path)
    assert shard_tree.claimed(tmp_path, "c") == {3: os.getpid()}
    path.write_text(f"{_ended_pid()}\n")
    assert shard_tree.claimed(tmp_path, "c") == {}
    shard_tree.release(path)  # not this process's: left
    assert path.exists()
    path.write_text(f"{os.getpid()} 1\n")  # this id, but a process started at tick 1
    reused = (
        {} if shard_tree._started(os.getpid()) else {3: os.getpid()}
    )  # no /proc: kept
    assert shard_tree.claimed(tmp_path, "c") == reused
    path.write_text("garbage")  # unreadable: taken over
    assert shard_tree.take(path)
    shard_tree.release(path)
    assert not path.exists()


def test_a_shard_brought_in_since_the_state_was_read_is_not_picked_again(tmp_path):
    st = {"of": 4, "done": {0: {}}}  # read while another process ran shard 1
    k, claim = shard_tree._pick(tmp_path, "c", st, "next", now=lambda: {0: {}, 1: {}})
    assert k == 2 and claim.name == "2"  # shard 1 came in and its claim went
    assert not (claim.parent / "1").exists()  # the claim on 1 taken in passing: let go


def test_two_queues_started_together_run_each_shard_once(tmp_path, monkeypatch):
    """Two ``rnnbook queue`` processes on one record of four shards, as two cores run
    them: every shard runs once, in one process or the other, each is committed, and
    the record is decided once."""
    import os
    import re
    import sys

    root = test_shards.make_toy(tmp_path, monkeypatch)
    chapter = root / "notebooks/toy/toy.py"
    chapter.write_text(CHAPTER.replace('Repeats(2, 4, 4, "")', 'Repeats(2, 8, 8, "")'))
    declared = root / "notebooks/toy/toy.claims.yaml"
    declared.write_text(test_shards.CLAIMS.replace("seeds: 4}", "seeds: 8}"))
    test_shards._commit(root, "eight members")
    env = {**os.environ, "RNNBOOK_ROOT": str(root)}
    for who in ("AUTHOR", "COMMITTER"):
        env |= {f"GIT_{who}_NAME": "t", f"GIT_{who}_EMAIL": "t@t"}
    cmd = [sys.executable, "-m", "rnnbook", "queue", f"{TARGET}:4"]
    cmd += ["--root", str(root), "--foreground"]
    first = subprocess.run(cmd[:4] + [f"{TARGET}:1"] + cmd[5:], env=env, cwd=root)
    assert first.returncode == 0  # shard 0, the reference, runs first and alone
    both = [
        subprocess.Popen(cmd, env=env, cwd=root, stdout=subprocess.PIPE, text=True)
        for _ in range(2)
    ]
    said = "".join(p.communicate(timeout=600)[0] for p in both)
    assert [p.returncode for p in both] == [0, 0]
    ran = sorted(int(k) for k in re.findall(r"running shard (\d+) of 4", said))
    assert ran == [1, 2, 3]
    subjects = _out(root, "log", "--format=%s").splitlines()
    assert sum(s.startswith("Shard of the confirmatory") for s in subjects) == 4
    assert sum(s.startswith("Decide the confirmatory") for s in subjects) == 1
    for k in range(4):
        assert _prov(root, k)["members"] == [2 * k, 2]
    assert _out(root, "status", "--porcelain", "--", "results") == ""
    assert not list((root / shard_tree.CLAIMS).glob("*/*"))  # every claim given back
