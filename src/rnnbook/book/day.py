"""The day's work of the confirmatory round (issue 50), for this machine, in one command.

A working day starts a shard in the background on each spare core and keeps it running.
Which shards depends on the machine: a record still running takes its next shards on any
machine it has not refused (:func:`rnnbook.book.shards.refused`); a machine it refused
(other bits than its shard 0) may instead re-run decided records whole
(:mod:`.processors`), which decides nothing. :func:`jobs` lists both from the records as
they stand (:func:`rnnbook.book.standing.standing`), the records' own shards first;
:func:`assign` shares them out over the cores, cheapest first, to the least loaded core;
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


def busy(proc: Path = Path("/proc")) -> dict[str, int]:
    """The records (``CHAPTER:SLICE``) a ``queue``, ``rerun`` or day's script of this
    machine is running now or will run next, each with its process id: a second queue on
    the same record would run the same shard twice."""
    out: dict[str, int] = {}
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
        if "rnnbook" not in words or not {"queue", "rerun"} & set(words):
            continue
        for w in (w.rstrip(";&|") for w in words):  # "a:b:1;" ends a command
            if ITEM.match(w):
                out.setdefault(w.rpartition(":")[0], pid)
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
    :func:`busy`. A job is ``{kind: "queue" | "rerun", target, shards, hours}`` (shards
    left, hours of one core left: measured on the record's own shards where none of this
    machine's are in)."""
    out, passed = [], []
    running = running or {}
    for row in rows:
        target, left = _target(row), row["of"] - row["in"]
        if row["void"] or row["stale"]:
            continue
        busy_here = f"{target}: running here already (process {running.get(target)})"
        if not row["decided"]:
            if left <= 0:
                continue
            if me["id"] in {m.get("id") for m in row["refused"]}:
                passed.append(
                    f"{target}: refused this machine (other bits than shard 0)"
                )
                continue
            if target in running:
                passed.append(busy_here)
                continue
            out.append(
                {
                    "kind": "queue",
                    "target": target,
                    "shards": left,
                    "hours": row["left_hours"],
                }
            )
            continue
        if row["claims"] and all(c["gate_failed"] for c in row["claims"]):
            continue  # its gate failed: it decided nothing, and a re-run would not
        mine = [
            rr
            for rr in again
            if rr["target"] == target and rr["machine"].get("id") == me["id"]
        ]
        if any(rr["void"] for rr in mine):
            passed.append(f"{target}: its re-run here is void")
            continue
        done = max((rr["in"] for rr in mine), default=0)
        if any(rr["verdicts"] is not None for rr in mine) or done >= row["of"]:
            continue
        if target in running:
            passed.append(busy_here)
            continue
        why = refuse(target)
        if why:
            passed.append(f"{target}: {why}")
            continue
        per = row["hours"] / row["of"] if row["of"] else 0.0
        out.append(
            {
                "kind": "rerun",
                "target": target,
                "shards": row["of"] - done,
                "hours": per * (row["of"] - done),
            }
        )
    return out, passed


def assign(todo: list[dict], cores: list[int]) -> dict[int, list[dict]]:
    """Each core's jobs: the records' own shards before any re-run, and within each kind
    the cheapest first, each to the core with the fewest hours so far (ties: the lower
    core), so that a day finishes as many as it can."""
    if not cores or len(set(cores)) != len(cores) or min(cores) < 0:
        raise ShardError(f"day: cores {cores} are not distinct core numbers")
    load = {c: 0.0 for c in cores}
    out: dict[int, list[dict]] = {c: [] for c in cores}
    order = sorted(
        todo,
        key=lambda j: (j["kind"] != "queue", j["hours"] is None, j["hours"] or 0.0),
    )
    for j in order:
        core = min(cores, key=lambda c: (load[c], c))
        out[core].append(j)
        load[core] += j["hours"] if j["hours"] is not None else 1.0
    return out


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
    lines = []
    for core, mine in plan.items():
        if not mine:
            lines.append(f"core {core}: nothing to run")
            continue
        total = sum(j["hours"] or 0.0 for j in mine)
        lines.append(f"core {core}: about {hours_words(total)} of one core")
        for j in mine:
            what = "shards" if j["kind"] == "queue" else "re-run shards"
            lines.append(
                f"  {j['target']}: {j['shards']} {what}, about {hours_words(j['hours'])}"
            )
    if not any(plan.values()):
        lines.append("Nothing more for this machine to start.")
    why: dict[str, list[str]] = {}  # one line per reason, its records after it
    for p in passed:
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
    return assign(todo, cores), passed
