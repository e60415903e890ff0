"""The shard queue in the background: below every other process of the machine.

``os.nice(19)`` alone does not put a shard below a build run beside it on Linux: where the
kernel groups processes by session (``/proc/sys/kernel/sched_autogroup_enabled``), it shares
the cores between sessions first, and a nice value only orders processes within one session.
A chapter's kernel starts a session of its own (jupyter's launcher), so a shard's kernel at nice
19 still took half of each core from a ``make book`` started in another terminal (measured on
3 December 2026: four processes on two cores at 50% each). :func:`lower` sets the nice value
of this process and, while the queue runs, the autogroup nice value of every process it
started (:func:`sweep`, on a daemon thread), so the shards take only what no other work takes.
"""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

#: the nice value of a queue and of what it starts
LEVEL = 19
PROC = Path("/proc")


def children(pid: int, proc: Path = PROC) -> list[int]:
    """Every process below ``pid`` (its children, theirs, ...), read from ``/proc``."""
    parent: dict[int, int] = {}
    for stat in proc.glob("[0-9]*/stat"):
        try:
            text = stat.read_text()
        except OSError:  # a process that ended meanwhile
            continue
        # "pid (name) state ppid ...": the name may hold spaces and parentheses
        fields = text[text.rfind(")") + 2 :].split()
        if len(fields) > 1 and fields[1].isdigit():
            parent[int(stat.parent.name)] = int(fields[1])
    below, todo = [], [pid]
    while todo:
        p = todo.pop()
        kids = [c for c, pp in parent.items() if pp == p]
        below += kids
        todo += kids
    return below


def sweep(pid: int | None = None, level: int = LEVEL, proc: Path = PROC) -> list[int]:
    """Set the autogroup nice value of ``pid`` (this process) and of every process below
    it to ``level``; returns the processes set. Where the kernel has no autogroups (another
    system, or the setting off) it sets nothing and says nothing."""
    pid = os.getpid() if pid is None else pid
    done = []
    for p in [pid, *children(pid, proc)]:
        try:
            (proc / str(p) / "autogroup").write_text(str(level))
        except OSError:  # no autogroup here, not ours, or gone
            continue
        done.append(p)
    return done


def lower(level: int = LEVEL, every: float = 10.0) -> threading.Thread | None:
    """Put this process and what it starts below every other work: ``os.nice`` to
    ``level``, then :func:`sweep` every ``every`` seconds on a daemon thread (``None`` where
    ``/proc`` has no autogroups)."""
    if not 0 <= level <= 19:
        raise ValueError(f"level: a nice value from 0 to 19, not {level!r}")
    if not every > 0:
        raise ValueError(f"every: seconds above 0, not {every!r}")
    os.nice(max(0, level - os.nice(0)))
    if not (PROC / "self" / "autogroup").exists():
        return None

    def loop() -> None:
        while True:
            sweep(level=level)
            time.sleep(every)

    t = threading.Thread(target=loop, name="rnnbook-background", daemon=True)
    t.start()
    return t
