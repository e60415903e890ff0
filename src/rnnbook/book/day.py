"""The day's work of the confirmatory round (issue 50), for this machine, in one command.

A working day starts a shard in the background on each spare core and keeps it running.
Which shards depends on the machine: a record still running takes its next shards on any
machine it has not refused (:func:`rnnbook.book.shards.refused`); a machine it refused
(other bits than its shard 0) may instead re-run it whole, as it may re-run decided records
(:mod:`.processors`): a re-run decides nothing, and is decided only after its record.
:func:`jobs` lists both from the records as they stand
(:func:`rnnbook.book.standing.standing`), the records' own shards first; :func:`assign`
shares them out over the cores, cheapest first, to the least loaded core;
:func:`commands` writes each core's command lines (``python -m rnnbook queue`` or
``rerun``) and :func:`start` runs them in the background, one process per core pinned to
it, with its log under ``_build/day/``. ``python -m rnnbook day`` prints the plan;
``--start`` (``make day``) starts it.
"""

from __future__ import annotations

import datetime as _dt
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Callable

from .shard_plan import ShardError

#: where the day's logs are written, under the repository
LOGS = Path("_build") / "day"


def _target(row: dict) -> str:
    return f"{row['chapter']}:{row['name']}"


ITEM = re.compile(r"^[\w./-]+:[\w.-]+:\d+$")


def _queues(proc: Path) -> list[tuple[int, list[str]]]:
    """This machine's ``queue``, ``rerun`` and day's-script processes: (id, words)."""
    out = []
    me = os.getpid()
    for path in proc.glob("[0-9]*/cmdline"):
        try:
            args = path.read_bytes().decode(errors="replace").split("\0")
            pid = int(path.parent.name)
        except (OSError, ValueError):  # a process that ended meanwhile
            continue
        if pid == me:
            continue
        words = []
        for a in args:
            try:
                words += shlex.split(a) if " " in a else [a]
            except ValueError:
                words.append(a)
        if "rnnbook" in words and {"queue", "rerun"} & set(words):
            out.append((pid, words))
    return out


def busy(proc: Path = Path("/proc")) -> dict[str, int]:
    """The records (``CHAPTER:SLICE``) a ``queue``, ``rerun`` or day's script of this
    machine is running now or will run next, each with its process id (a second queue on
    one of them runs in a lane of its own: :mod:`.shard_tree`)."""
    out: dict[str, int] = {}
    for pid, words in _queues(proc):
        for w in (w.rstrip(";&|") for w in words):  # "a:b:1;" ends a command
            if ITEM.match(w):
                out.setdefault(w.rpartition(":")[0], pid)
    return out


def busy_cores(proc: Path = Path("/proc")) -> dict[int, int]:
    """The cores that a queue, re-run or day's script of this machine is pinned to (one
    core each, as :func:`start` pins them), each with its process id: the day leaves them
    to it."""
    out: dict[int, int] = {}
    for pid, _ in _queues(proc):
        try:
            status = (proc / str(pid) / "status").read_text()
        except OSError:
            continue
        found = re.search(r"^Cpus_allowed_list:\s*(\d+)\s*$", status, re.M)
        if found:
            out.setdefault(int(found.group(1)), pid)
    return out


def jobs(
    rows: list[dict],
    again: list[dict],
    me: dict,
    refuse: Callable[[str], str | None] = lambda target: None,
    running: dict[str, int] | None = None,
) -> tuple[list[dict], list[str]]:
    """The day's candidate jobs and, one line each, what is passed over and why.

    ``rows``: :func:`.standing.standing`; ``again``: :func:`.processors.reruns`; ``me``:
    :func:`.shard_plan.machine`; ``refuse(target)``: why a re-run of ``target`` may not
    start here (:func:`.processors.can_start`'s message), else ``None``; ``running``:
    :func:`busy`. A job is ``{kind: "queue" | "rerun", target, shards, hours, running}``
    (shards left, hours of one core left: measured on the record's own shards where none of
    this machine's are in; the process of this machine that runs it now, or ``None``: such
    a job is not started again, but may get a second lane, :func:`assign`)."""
    out, passed = [], []
    running = running or {}
    for row in rows:
        target, left = _target(row), row["of"] - row["in"]
        if row["void"] or row["stale"]:
            continue
        if not row["decided"]:
            if left <= 0:
                continue
            if me["id"] not in {m.get("id") for m in row["refused"]}:
                out.append(
                    {
                        "kind": "queue",
                        "target": target,
                        "shards": left,
                        "hours": row["left_hours"],
                        "running": running.get(target),
                    }
                )
                continue
            refused = "refused this machine (other bits than shard 0)"
        elif row["claims"] and all(c["gate_failed"] for c in row["claims"]):
            continue  # its gate failed: it decided nothing, and a re-run would not
        else:
            refused = ""
        job, why = _rerun(row, target, again, me, running, refuse)
        if job is not None:
            out.append(job)
        elif why or refused:
            passed.append(f"{target}: {'; '.join(w for w in (refused, why) if w)}")
    return out, passed


def _rerun(row, target, again, me, running, refuse) -> tuple[dict | None, str]:
    """:func:`jobs`' re-run of one record here (decided, or refusing this machine), or
    ``None`` and why not (``""`` where its re-run here is decided)."""
    mine = [
        rr
        for rr in again
        if rr["target"] == target and rr["machine"].get("id") == me["id"]
    ]
    if any(rr["void"] for rr in mine):
        return None, "its re-run here is void"
    done = max((rr["in"] for rr in mine), default=0)
    if any(rr["verdicts"] is not None for rr in mine):
        return None, ""
    if done >= row["of"]:
        if not row["decided"]:
            return None, "its re-run here is in, and is decided after the record"
        return _rerun_job(row, target, done, running.get(target)), ""  # decide it
    if target in running:  # its re-run runs here: it may take a second lane
        return _rerun_job(row, target, done, running[target]), ""
    why = refuse(target)
    if why:
        return None, why
    return _rerun_job(row, target, done, None), ""


def _rerun_job(row: dict, target: str, done: int, running: int | None) -> dict:
    per = row["hours"] / row["in"] if row["in"] else 0.0
    return {
        "kind": "rerun",
        "target": target,
        "shards": row["of"] - done,
        "hours": per * (row["of"] - done),
        "running": running,
    }


def _load(jobs: list[dict]) -> float:
    return sum(1.0 if j["hours"] is None else j["hours"] for j in jobs)


def _check_cores(cores: list[int]) -> None:
    if not cores or len(set(cores)) != len(cores) or min(cores) < 0:
        raise ShardError(f"day: cores {cores} are not distinct core numbers")


def assign(todo: list[dict], cores: list[int]) -> dict[int, list[dict]]:
    """Each core's jobs: the records' own shards before any re-run, and within each kind
    the cheapest first, each to the core with the fewest hours so far (ties: the lower
    core), so that a day finishes as many as it can; a job running here already is not
    placed again. Then, while the least loaded core would be done before one more lane of
    a long job would (a job with more shards left than lanes, placed or running here),
    that job gets a lane on that core: two queues on one record run different shards
    (:mod:`.shard_tree`). A placed job's ``lanes`` says how many run it; its ``hours`` are
    then one lane's."""
    _check_cores(cores)
    out: dict[int, list[dict]] = {c: [] for c in cores}
    order = sorted(
        todo,
        key=lambda j: (j["kind"] != "queue", j["hours"] is None, j["hours"] or 0.0),
    )
    for j in order:
        if not j.get("running"):
            out[min(cores, key=lambda c: (_load(out[c]), c))].append(dict(j, lanes=1))
    total = {j["target"]: j["hours"] for j in order}
    lanes = {j["target"]: 1 for j in order}
    while True:
        core = min(cores, key=lambda c: (_load(out[c]), c))
        here = {j["target"] for j in out[core]}
        fits = [
            j
            for j in order
            if total[j["target"]]
            and j["shards"] > lanes[j["target"]]
            and j["target"] not in here
            and total[j["target"]] / (lanes[j["target"]] + 1) > _load(out[core])
        ]
        if not fits:
            return out
        best = max(fits, key=lambda j: total[j["target"]] / (lanes[j["target"]] + 1))
        t = best["target"]
        lanes[t] += 1
        for c in cores:
            for j in out[c]:
                if j["target"] == t:
                    j.update(lanes=lanes[t], hours=total[t] / lanes[t])
        out[core].append(dict(best, lanes=lanes[t], hours=total[t] / lanes[t]))


def left_running(todo: list[dict], plan: dict[int, list[dict]]) -> list[str]:
    """One line for each job that runs here already and got no other lane."""
    laned = {j["target"] for mine in plan.values() for j in mine}
    return [
        f"{j['target']}: running here already (process {j['running']})"
        for j in todo
        if j.get("running") and j["target"] not in laned
    ]


def commands(mine: list[dict], scale: str = "cpu") -> list[list[str]]:
    """One core's command lines: one ``queue`` over its records' shards, then one
    ``rerun`` over its re-runs (either left out when it has none)."""
    out = []
    for kind in ("queue", "rerun"):
        items = [f"{j['target']}:{j['shards']}" for j in mine if j["kind"] == kind]
        if items:
            out.append(
                [sys.executable, "-m", "rnnbook", kind, *items, "--scale", scale]
            )
    return out


def hours_words(x: float | None) -> str:
    return "? h" if x is None else f"{x:.1f} h"


def plan_text(plan: dict[int, list[dict]], passed: list[str]) -> str:
    """The plan in words, core by core, then what is passed over."""
    lines = [p for p in passed if p.startswith("core ")]  # cores left to their queue
    for core, mine in plan.items():
        if not mine:
            lines.append(f"core {core}: nothing to run")
            continue
        total = sum(j["hours"] or 0.0 for j in mine)
        lines.append(f"core {core}: about {hours_words(total)} of one core")
        for j in mine:
            what = "shards" if j["kind"] == "queue" else "re-run shards"
            what = f"{j['shards']} {what}" if j["shards"] else "its re-run's decision"
            line = f"  {j['target']}: {what}, about {hours_words(j['hours'])}"
            if j.get("lanes", 1) > 1:
                beside = (
                    f"; process {j['running']} runs another" if j.get("running") else ""
                )
                line += f" (one of {j['lanes']} lanes{beside})"
            lines.append(line)
    if not any(plan.values()):
        lines.append("Nothing more for this machine to start.")
    why: dict[str, list[str]] = {}  # one line per reason, its records after it
    for p in passed:
        if p.startswith("core "):
            continue
        target, _, reason = p.partition(": ")
        why.setdefault(reason, []).append(target)
    lines += [f"passed over, {r}: {', '.join(ts)}" for r, ts in why.items()]
    return "\n".join(lines)


def usable_cores() -> set[int]:
    """The cores this process may use (all of them where the system cannot say)."""
    if hasattr(os, "sched_getaffinity"):
        return set(os.sched_getaffinity(0))
    return set(range(os.cpu_count() or 1))


def default_cores() -> list[int]:
    """The last core this process may use: the one the other work needs least."""
    return [max(usable_cores())]


def _pin(core: int) -> Callable[[], None] | None:
    """A child's start-up that pins it to ``core`` (``None`` where it cannot be pinned)."""
    if not hasattr(os, "sched_setaffinity"):
        return None
    return lambda: os.sched_setaffinity(0, {core})


def start(
    root: Path,
    plan: dict[int, list[dict]],
    scale: str = "cpu",
    popen: Callable = subprocess.Popen,
) -> list[Path]:
    """Start each core's commands in the background, one after another in a process of
    its own session pinned to that core (the queue lowers its own priority), its output
    in ``_build/day/<date>-core<k>.log``; the logs' paths."""
    root = Path(root).resolve()
    logs = []
    (root / LOGS).mkdir(parents=True, exist_ok=True)
    today = _dt.date.today().isoformat()
    for core, mine in plan.items():
        lines = commands(mine, scale)
        if not lines:
            continue
        log = root / LOGS / f"{today}-core{core}.log"
        script = "; ".join(shlex.join(c) for c in lines)
        with open(log, "a") as out:
            popen(
                ["bash", "-c", script],
                cwd=root,
                stdout=out,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                start_new_session=True,
                preexec_fn=_pin(core),
                env={**os.environ, "RNNBOOK_THREADS": "1"},
            )
        logs.append(log)
    return logs


def plan_here(
    root: Path, cores: list[int], scale: str = "cpu"
) -> tuple[dict[int, list[dict]], list[str]]:
    """The day's plan for this machine and checkout: :func:`jobs` on the records as they
    stand, :func:`assign`-ed over ``cores``."""
    from . import processors, records, standing
    from .shard_plan import machine

    root = Path(root).resolve()

    def refuse(target: str) -> str | None:
        try:
            processors.can_start(root, target, scale)
        except ShardError as e:
            said = str(e).removeprefix("rerun: ")
            return said.replace(f"{target}'s", "the record's").replace(target, "it")
        return None

    rows = standing.standing(root)
    again = processors.reruns(root, report=records._report)
    todo, passed = jobs(rows, again, machine(), refuse, busy())
    return share(todo, passed, cores, busy_cores())


def share(
    todo: list[dict], passed: list[str], cores: list[int], held: dict[int, int]
) -> tuple[dict[int, list[dict]], list[str]]:
    """:func:`assign` over the given cores but those a queue of this machine holds
    (``held``: :func:`busy_cores`), each said in a line; the lines of what is passed over
    then, those running here already without another lane among them."""
    _check_cores(cores)
    said = [
        f"core {c}: left to process {held[c]}, which runs there"
        for c in cores
        if c in held
    ]
    free = [c for c in cores if c not in held]
    plan = assign(todo, free) if free else {}
    return plan, said + passed + left_running(todo, plan)
