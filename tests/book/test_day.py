"""The day's work (rnnbook.book.day): which shards a machine runs today, shared over its
cores; a record's own shards before re-runs, a refused machine re-running records,
a record already running here left to its queue; the toy record of test_shards end to end."""

from __future__ import annotations

import subprocess

import pytest

from rnnbook.book import cli, day, shards, standing

from . import test_processors, test_shards
from .test_shards import TARGET

toy = test_shards.toy  # the toy record's fixture
ME = {"id": "0123456789ab", "cpu": "a processor"}


def _row(name, decided=None, n_in=0, of=4, hours=0.0, left=None, **kw):
    return {
        "chapter": "lsc/x",
        "name": name,
        "decided": decided,
        "in": n_in,
        "of": of,
        "hours": hours,
        "left_hours": left,
        "void": kw.get("void"),
        "stale": kw.get("stale", False),
        "refused": kw.get("refused", []),
        "claims": kw.get("claims", [{"id": "c", "gate_failed": False}]),
    }


def _rerun(name, n_in, of=4, verdicts=None, machine_id=ME["id"], void=None):
    return {
        "target": f"lsc/x:{name}",
        "machine": {"id": machine_id},
        "in": n_in,
        "of": of,
        "verdicts": verdicts,
        "void": void,
    }


def test_a_machine_runs_the_records_it_may_and_re_runs_where_it_is_refused():
    rows = [
        _row("running", n_in=1, hours=1.0, left=3.0),
        _row("refuses", n_in=2, hours=1.0, refused=[{"id": ME["id"], "refused": True}]),
        _row("refuses-in", n_in=2, refused=[{"id": ME["id"], "refused": True}]),
        _row("refuses-code", n_in=2, refused=[{"id": ME["id"], "refused": True}]),
        _row("decide", decided="2026-12-01", n_in=4, hours=2.0),
        _row("void", n_in=2, void="other code"),
        _row("stale", decided="2026-12-01", n_in=4, stale=True),
        _row("gate", decided="2026-12-01", n_in=4, claims=[{"gate_failed": True}]),
        _row("fresh", decided="2026-12-01", n_in=4, hours=2.0),
        _row("half", decided="2026-12-01", n_in=4, hours=2.0),
        _row("rerun", decided="2026-12-01", n_in=4, hours=2.0),
        _row("elsewhere", decided="2026-12-01", n_in=4, hours=8.0),
        _row("code", decided="2026-12-01", n_in=4, hours=2.0),
        _row("busy", n_in=1, hours=1.0, left=3.0),
        _row("busy-done", decided="2026-12-01", n_in=4, hours=2.0),
    ]
    again = [
        _rerun("half", 3),
        _rerun("refuses-in", 4),  # in before its record: decided after it
        _rerun("decide", 4),  # in, and its record decided since: decided now
        _rerun("rerun", 4, verdicts={"c": "reproduced"}),
        _rerun("elsewhere", 4, verdicts={"c": "reproduced"}, machine_id="ffffffffffff"),
        _rerun("busy-done", 4, verdicts={"c": "reproduced"}),
    ]
    todo, passed = day.jobs(
        rows,
        again,
        ME,
        refuse=lambda t: "other code than shard 0" if t.endswith("code") else None,
        running={
            "lsc/x:busy": 42,
            "lsc/x:busy-done": 43,
        },  # busy-done: re-run whole here already
    )
    got = [
        (j["kind"], j["target"], j["shards"], j["hours"], j["running"]) for j in todo
    ]
    assert got == [
        ("queue", "lsc/x:running", 3, 3.0, None),
        ("rerun", "lsc/x:refuses", 4, 2.0, None),  # a running record that refused it
        ("rerun", "lsc/x:decide", 0, 0.0, None),
        ("rerun", "lsc/x:fresh", 4, 2.0, None),
        (
            "rerun",
            "lsc/x:half",
            1,
            0.5,
            None,
        ),  # one shard left of this machine's re-run
        ("rerun", "lsc/x:elsewhere", 4, 8.0, None),  # re-run on another machine: here
        ("queue", "lsc/x:busy", 3, 3.0, 42),  # a queue here runs it: a lane at most
    ]
    refused = "refused this machine (other bits than shard 0)"
    assert passed == [
        f"lsc/x:refuses-in: {refused}; its re-run here is in, and is decided after the "
        "record",
        f"lsc/x:refuses-code: {refused}; other code than shard 0",
        "lsc/x:code: other code than shard 0",
    ]
    (todo, passed) = day.jobs(
        [_row("half", decided="d", n_in=4)], [_rerun("half", 1, void="x")], ME
    )
    assert todo == [] and passed == ["lsc/x:half: its re-run here is void"]


def test_the_jobs_are_shared_cheapest_first_and_records_before_re_runs():
    todo = [
        {"kind": "rerun", "target": "a", "shards": 1, "hours": 0.5},
        {"kind": "rerun", "target": "b", "shards": 9, "hours": 5.0},
        {"kind": "queue", "target": "c", "shards": 3, "hours": 3.0},
        {"kind": "rerun", "target": "d", "shards": 2, "hours": 1.0},
        {"kind": "queue", "target": "e", "shards": 1, "hours": None},
    ]
    plan = day.assign(todo, [0, 1])
    assert {c: [j["target"] for j in js] for c, js in plan.items()} == {
        0: ["c"],  # 3 h
        1: ["e", "a", "d", "b"],  # an unknown hour, then 0.5, 1 and 5 (each at < 3 h)
    }
    assert [c[3:] for c in day.commands(plan[1])] == [
        ["queue", "e:1", "--scale", "cpu"],
        ["rerun", "a:1", "d:2", "b:9", "--scale", "cpu"],
    ]
    text = day.plan_text(plan, ["x: refused"])
    assert (
        "core 0: about 3.0 h of one core" in text and "e: 1 shards, about ? h" in text
    )
    assert text.endswith("passed over, refused: x")
    two = day.plan_text({0: []}, ["a:b: refused", "c:d: void", "e:f: refused"])
    assert two.endswith("passed over, refused: a:b, e:f\npassed over, void: c:d")
    assert day.plan_text(day.assign([], [3]), []).endswith(
        "Nothing more for this machine to start."
    )
    for bad in ([], [0, 0], [-1]):
        with pytest.raises(shards.ShardError, match="cores"):
            day.assign(todo, bad)


def test_a_long_job_gets_a_lane_on_a_core_that_would_be_done_first():
    """The confirmatory round on the EPYC on 4 December 2026: Glorot's 3 shards and
    `thm41`'s 10 end within hours, `fig3-half-one`'s 93 take 28 h: it runs on both cores,
    two queues taking different shards, and the day ends in 19 h rather than 30."""
    todo = [
        {"kind": "queue", "target": "glorot", "shards": 3, "hours": 2.2},
        {"kind": "queue", "target": "half-one", "shards": 93, "hours": 28.2},
        {"kind": "queue", "target": "thm41", "shards": 10, "hours": 4.7},
    ]
    plan = day.assign(todo, [0, 1])
    got = {
        c: [(j["target"], j["lanes"], j["hours"]) for j in js] for c, js in plan.items()
    }
    assert got == {
        0: [("glorot", 1, 2.2), ("half-one", 2, 14.1)],
        1: [("thm41", 1, 4.7), ("half-one", 2, 14.1)],
    }
    assert [c[3:] for c in day.commands(plan[1])] == [
        ["queue", "thm41:10", "half-one:93", "--scale", "cpu"]
    ]
    assert "half-one: 93 shards, about 14.1 h (one of 2 lanes)" in day.plan_text(
        plan, []
    )
    # one shard left: nothing to share; a job that fits beside the others: not shared
    one = [{"kind": "queue", "target": "x", "shards": 1, "hours": 9.0}]
    assert [len(js) for js in day.assign(one, [0, 1]).values()] == [1, 0]
    even = [dict(one[0], shards=4, hours=2.0), dict(one[0], target="y", hours=2.0)]
    assert [len(js) for js in day.assign(even, [0, 1]).values()] == [1, 1]
    # three cores, one long record: three lanes
    three = day.assign([dict(one[0], shards=90, hours=30.0)], [0, 1, 2])
    assert [[j["hours"] for j in js] for js in three.values()] == [[10.0]] * 3


def test_a_record_running_here_gets_a_lane_on_a_free_core_and_a_held_core_is_left():
    running = {
        "kind": "queue",
        "target": "t",
        "shards": 40,
        "hours": 20.0,
        "running": 7,
    }
    plan, passed = day.share([running], [], [0, 1], held={0: 7})
    assert list(plan) == [1] and plan[1][0]["lanes"] == 2 and plan[1][0]["hours"] == 10
    text = day.plan_text(plan, passed)
    assert text.startswith("core 0: left to process 7, which runs there\ncore 1:")
    assert "t: 40 shards, about 10.0 h (one of 2 lanes; process 7 runs another)" in text
    last = dict(running, shards=1, hours=0.5)  # its last shard: left to it
    plan, passed = day.share([last], [], [0, 1], held={0: 7})
    assert plan == {1: []} and passed[-1] == "t: running here already (process 7)"
    assert day.plan_text(plan, passed).endswith(
        "passed over, running here already (process 7): t"
    )
    plan, passed = day.share([last], [], [0], held={0: 7})  # every core held
    assert plan == {} and "Nothing more for this machine to start." in day.plan_text(
        plan, passed
    )
    with pytest.raises(shards.ShardError, match="cores"):
        day.share([], [], [0, 0], held={})


def test_the_cores_a_queue_of_this_machine_is_pinned_to_are_found(tmp_path):
    def process(pid, cores, *args):
        (tmp_path / str(pid)).mkdir()
        (tmp_path / str(pid) / "cmdline").write_bytes("\0".join(args).encode() + b"\0")
        (tmp_path / str(pid) / "status").write_text(
            f"Name:\tpython\nCpus_allowed:\t1\nCpus_allowed_list:\t{cores}\n"
        )

    process(11, "1", "python", "-m", "rnnbook", "queue", "a/b:c:3")
    process(12, "0-1", "python", "-m", "rnnbook", "rerun", "a/b:d:3")  # not pinned
    process(13, "0", "bash", "-c", "python -m rnnbook queue x/y:z:1")
    process(14, "0", "python", "-m", "rnnbook", "records")  # not a queue
    assert day.busy_cores(tmp_path) == {1: 11, 0: 13}


def test_a_record_a_queue_of_this_machine_runs_is_found(tmp_path):
    def process(pid, *args):
        (tmp_path / str(pid)).mkdir()
        (tmp_path / str(pid) / "cmdline").write_bytes("\0".join(args).encode() + b"\0")

    process(
        11, "python", "-m", "rnnbook", "queue", "lsc/a_b:fig2-c:3", "--scale", "cpu"
    )
    script = "python -m rnnbook queue x/y:z:1; python -m rnnbook rerun p/q:r-2:2"
    process(12, "bash", "-c", script)
    process(13, "grep", "lsc/other:s:1")  # not a queue
    process(14, "python", "-m", "rnnbook", "records")
    (tmp_path / "15").mkdir()  # a process that ended meanwhile: no cmdline
    assert day.busy(tmp_path) == {"lsc/a_b:fig2-c": 11, "x/y:z": 12, "p/q:r-2": 12}


def test_start_runs_each_core_s_commands_in_the_background_logged_under_build(tmp_path):
    plan = {
        0: [{"kind": "queue", "target": "a:b", "shards": 2, "hours": 1.0}],
        1: [],
    }
    calls = []
    logs = day.start(tmp_path, plan, popen=lambda *a, **k: calls.append((a, k)))
    (log,) = logs
    assert log.parent == tmp_path / "_build" / "day" and log.name.endswith("core0.log")
    ((args,), kw) = calls[0]
    assert (
        args[:2] == ["bash", "-c"] and "-m rnnbook queue a:b:2 --scale cpu" in args[2]
    )
    assert kw["start_new_session"] and kw["cwd"] == tmp_path.resolve()
    assert kw["env"]["RNNBOOK_THREADS"] == "1" and callable(kw["preexec_fn"])
    assert len(calls) == 1 and sorted(p.name for p in tmp_path.iterdir()) == ["_build"]


def test_the_toy_record_is_run_here_then_re_run_by_a_refused_machine(
    toy, monkeypatch, capsys
):
    # a queue of this machine may hold core 0
    monkeypatch.setattr(day, "busy_cores", lambda *a: {})
    plan, passed = day.plan_here(toy, [0])
    assert [(j["kind"], j["target"], j["shards"]) for j in plan[0]] == [
        ("queue", TARGET, 2)
    ]
    test_processors._decided(toy, monkeypatch)  # decided on another machine
    subprocess.run(["git", "add", "results"], cwd=toy, check=True)
    test_shards._commit(toy, "the record")
    plan, passed = day.plan_here(toy, [0])
    assert [(j["kind"], j["target"], j["shards"]) for j in plan[0]] == [
        ("rerun", TARGET, 2)
    ]
    assert cli.main(["day", "--root", str(toy), "--cores", "0"]) == 0
    out = capsys.readouterr().out
    assert f"{TARGET}: 2 re-run shards" in out and "make day" in out
    test_processors._rerun(toy, shards.machine()["id"])
    plan, passed = day.plan_here(toy, [0])
    assert plan == {0: []}  # re-run whole here: nothing more to start


def test_bad_cores_are_refused_by_name(capsys):
    mine = sorted(day.usable_cores())
    for bad in ("a", f"{mine[0]},{mine[0]}", str(max(mine) + 1000)):
        with pytest.raises(SystemExit):
            cli.main(["day", "--cores", bad])
        assert "--cores" in capsys.readouterr().err


def test_the_records_first_line_points_to_the_day_s_command():
    me = {**ME, "cpu": "cpu A"}
    running = _row("running", n_in=1)
    refused = _row("refuses", n_in=1, refused=[{"id": ME["id"], "refused": True}])
    assert standing.here_line([_row("done", decided="d", n_in=4)], me).endswith(
        "no record is running; it may re-run decided records (make day)."
    )
    assert standing.here_line([running], me).endswith("checks it first (make day).")
    assert standing.here_line([running, refused], me).endswith(
        "it may re-run them whole, as it may decided records (make day)."
    )
