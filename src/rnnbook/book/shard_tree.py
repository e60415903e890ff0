"""Shards run apart from the working tree (``record ... --shard next --pinned`` and
``queue``): each record's shards run in a git worktree of their own under
``_build/shard-trees/``, checked out at the commit of the record's shard 0 (at the
checkout's own commit for a first shard). A shard runs for up to an hour; edits made in the
meantime can then neither reach its code nor make its tree dirty. The shards so far are
copied into the tree before a shard runs, and the new one (or a void mark) is copied back
after it, and, with ``commit``, committed alone (``git commit -- <its folder>``).

The tree keeps a link to the checkout's ``.venv`` (the data live there) and imports the
package from its own ``src/``.

Two queues may work on one record at once (two cores of one machine): each shard is
*claimed* before it runs (``_build/shard-claims/<record>/<k>``, created exclusively, holding
the process id), so that the second queue takes the next shard nobody runs; a claim whose
process has ended is stale and taken over. Each queue runs in a tree of its own (a *lane*:
the record's tree, then ``<record>--lane1``...), and the decision is claimed too, so that
a record is decided once. Commits wait for each other (git's index lock)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Callable

from .shard_plan import SHARDS, ShardError, _git, clean_commit, folder, read_json
from .shard_plan import write_json
from .shard_plan import state

#: where the pinned trees live, under the repository
TREES = Path("_build") / "shard-trees"
#: where records live, under the repository (a re-run on another processor keeps its own
#: folder of the same layout: :mod:`.processors`)
RESULTS = Path("results")
#: where running shards, lanes and decisions are claimed, under the repository
CLAIMS = Path("_build") / "shard-claims"


class ShardBusy(ShardError):
    """Every shard left of a record (or its decision) is claimed by another process."""


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process: alive
        return True
    return True


def _started(pid: int) -> str:
    """When process ``pid`` started (clock ticks since boot, from ``/proc``; "" where the
    system does not say): a claim names it, so that a later process given the same id
    does not hold it."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
        return stat.rsplit(")", 1)[1].split()[19]
    except (OSError, IndexError):
        return ""


def _holder(path: Path) -> int | None:
    """The live process that holds a claim file, or ``None`` (none, unreadable, ended,
    or its id now another process's)."""
    try:
        words = path.read_text().split()
        pid = int(words[0])
    except (OSError, ValueError, IndexError):
        return None
    if not _alive(pid):
        return None
    started = _started(pid)
    if len(words) > 1 and started and words[1] != started:
        return None
    return pid


def take(path: Path) -> bool:
    """Claim ``path`` for this process: created exclusively with its process id; a claim
    whose process has ended (or that cannot be read) is taken over. ``False``: a live
    process holds it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    for _ in range(2):
        try:
            fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
        except FileExistsError:
            if _holder(path) is not None:
                return False
            path.unlink(missing_ok=True)  # stale: its process ended
            continue
        with os.fdopen(fd, "w") as f:
            f.write(f"{os.getpid()} {_started(os.getpid())}\n")
        return True
    return False


def release(path: Path) -> None:
    """Give a claim back (only this process's own)."""
    try:
        if int(path.read_text().split()[0]) == os.getpid():
            path.unlink()
    except (OSError, ValueError, IndexError):
        pass


def claimed(root: Path, label: str) -> dict[int, int]:
    """The shards of a record (by its tree's label) that live processes run now: shard ->
    process id."""
    out = {}
    for f in (Path(root) / CLAIMS / label).glob("[0-9]*"):
        pid = _holder(f)
        if f.name.isdigit() and pid is not None:
            out[int(f.name)] = pid
    return out


def _pick(
    root: Path, label: str, st: dict, shard: str | int, now: Callable = lambda: ()
) -> tuple[int, Path]:
    """The shard this process runs, claimed: ``shard`` as a number, or for ``next`` the
    first shard not in and not claimed (shard 0 alone while it is not in: the reference
    runs first). ``now()``: the shards in now, read again once a claim is taken (another
    process may have brought the shard in and let its claim go since ``st`` was read)."""
    base = Path(root) / CLAIMS / label
    if shard != "next":
        k = int(shard)
        if not take(base / str(k)):
            raise ShardBusy(f"shard {k} runs in process {_holder(base / str(k))}")
        return k, base / str(k)
    todo = [k for k in range(st["of"]) if k not in st["done"]]
    for k in todo[:1] if 0 in todo else todo:
        if take(base / str(k)):
            if k not in now():
                return k, base / str(k)
            release(base / str(k))
    held = claimed(root, label)
    raise ShardBusy(
        "every shard left runs in another process ("
        + ", ".join(f"shard {k}: process {pid}" for k, pid in sorted(held.items()))
        + ")"
    )


def _label(name: str, results: Path = RESULTS) -> str:
    """A slice's name in its tree's and claims' names (a re-run's says its processor)."""
    return name if Path(results) == RESULTS else f"{name}--rerun-{Path(results).name}"


def record_id(chapter: str, name: str, results: Path = RESULTS) -> str:
    """A record's name under ``_build/shard-trees/`` and ``_build/shard-claims/``."""
    return f"{chapter.replace('/', '-')}--{_label(name, results)}"


def _lane(root: Path, record: str) -> tuple[int, Path]:
    """This process's lane of a record, claimed: 0, the record's own tree, or where other
    processes run in it, the first free one (its tree ``<record>--lane<n>``)."""
    base = Path(root) / CLAIMS / record
    n = 0
    while not take(base / f"lane-{n}"):
        n += 1
    return n, base / f"lane-{n}"


def _slice(root: Path, target: str, scale: str) -> tuple[str, str, dict]:
    from .shards import sharded_slice

    return sharded_slice(root, target, scale)


def pin(
    root: Path, chapter: str, name: str, scale: str, results: Path = RESULTS
) -> str:
    """The commit a record's shards run at: its shard 0's, or for a record with no shard
    yet the checkout's own (refused when a tracked file differs from it)."""
    first = folder(Path(root) / results, scale, chapter, name) / "0" / "provenance.json"
    if first.exists():
        try:
            return str(read_json(first)["commit"])
        except (ValueError, KeyError) as e:
            raise ShardError(
                f"shard 0 of {chapter}:{name} names no commit: {e}"
            ) from None
    return clean_commit(root)


def tree(root: Path, chapter: str, name: str, commit: str) -> Path:
    """The worktree of one record at ``commit``: reused when it is there, made (again)
    when it is missing or at another commit."""
    root = Path(root).resolve()
    path = root / TREES / f"{chapter.replace('/', '-')}--{name}"
    if (path / ".git").is_file():  # a worktree (a plain folder would answer for root)
        try:
            if _git(path, "rev-parse", "HEAD") == commit:
                return _linked(root, path)
        except ShardError:
            pass
    if path.exists():  # at another commit, or left half-made: made again
        try:
            _git(root, "worktree", "remove", "--force", str(path))
        except ShardError:
            shutil.rmtree(path)
    _git(root, "worktree", "prune")
    path.parent.mkdir(parents=True, exist_ok=True)
    _git(root, "worktree", "add", "--detach", str(path), commit)
    return _linked(root, path)


def _linked(root: Path, path: Path) -> Path:
    venv = root / ".venv"
    if venv.exists() and not (path / ".venv").exists():
        (path / ".venv").symlink_to(venv, target_is_directory=True)
    return path


def _copy(src: Path, dst: Path) -> None:
    if src.is_dir():
        shutil.copytree(src, dst, dirs_exist_ok=True)


def _env(path: Path) -> dict:
    env = {**os.environ, "RNNBOOK_ROOT": str(path)}
    if (path / "src").is_dir():  # the tree's own package, not the checkout's
        env["PYTHONPATH"] = os.pathsep.join(
            p for p in (str(path / "src"), env.get("PYTHONPATH")) if p
        )
    return env


def run(
    root: Path,
    target: str,
    scale: str = "cpu",
    shard: str | None = "next",
    device: str | None = None,
    commit: bool = False,
    runner: Callable = subprocess.run,
    log: Callable = print,
    results: Path = RESULTS,
) -> Path:
    """Run one shard of ``target`` (``shard``: ``next`` or a number), or with ``shard``
    ``None`` decide it, in its pinned tree; copy what it wrote back into ``root``
    (also a void mark when the guards voided the record) and, with ``commit``, commit
    that alone. ``results``: the folder of records under the repository (another for a
    re-run on another processor, :mod:`.processors`, run in a tree of its own). Returns
    the folder copied back; a failed run raises after the copy."""
    root, results = Path(root).resolve(), Path(results)
    chapter, name, s = _slice(root, target, scale)
    if shard is None and results != RESULTS:
        from .processors import may_decide

        may_decide(root, target, scale)  # a re-run is decided after its record
    at = pin(root, chapter, name, scale, results)
    label = _label(name, results)
    record = record_id(chapter, name, results)
    n, lane_claim = _lane(root, record)
    claims = [lane_claim]
    try:
        if shard is None:
            if not take(root / CLAIMS / record / "decide"):
                raise ShardBusy(f"{target} is being decided by another process")
            claims.append(root / CLAIMS / record / "decide")
        else:
            st = state(root / results, scale, chapter, name, s)
            now = lambda: state(root / results, scale, chapter, name, s)["done"]  # noqa: E731
            shard, mine = _pick(root, record, st, shard, now)
            claims.append(mine)
        path = tree(root, chapter, label if n == 0 else f"{label}--lane{n}", at)
        return _run_in(
            root, target, scale, shard, device, commit, runner, log, results, path, at
        )
    finally:
        for c in claims:
            release(c)


def _run_in(
    root, target, scale, shard, device, commit, runner, log, results, path, at
) -> Path:
    """:func:`run`'s work once its shard and lane are claimed."""
    chapter, name, _ = _slice(root, target, scale)
    shards_rel = results / SHARDS / scale / chapter / name
    _copy(root / shards_rel, path / shards_rel)
    if shard is not None:  # the checkout's guard, whatever the pinned code's would do
        _check_here(root, target, scale, path, results, commit, runner, log)
        _copy(root / shards_rel, path / shards_rel)
    what = ["--decide"] if shard is None else ["--shard", str(shard)]
    what += [] if results == RESULTS else ["--results", str(results)]
    cmd = [sys.executable, "-m", "rnnbook", "record", target, "--scale", scale]
    cmd += ["--root", str(path), *what] + (["--device", device] if device else [])
    log(f"{target}: {' '.join(what)} in {path} at {at[:7]}")
    done = runner(cmd, cwd=path, env=_env(path))
    rel = shards_rel if shard is not None else results / scale / chapter / name
    # a shard brings back its own folder and the record's marks, never another shard's
    # (another lane's tree may hold one that is half-made, or not committed yet)
    mine = _own(path / rel, shard) if shard is not None else [path / rel]
    mine = [m for m in mine if m.exists()]  # a failed decide wrote no record
    for src in mine:
        dst = root / src.relative_to(path)
        if src.is_dir():
            _copy(src, dst)
        else:
            dst.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dst)
    if done.returncode != 0:
        raise ShardError(
            f"{target}: {' '.join(what)} failed in {path} (exit {done.returncode})"
        )
    if commit:
        message = _message(root, target, scale, shard is None, results)
        _commit(root, [m.relative_to(path) for m in mine], message)
    return root / rel


def _own(base: Path, k: int) -> list[Path]:
    """What a run of shard ``k`` wrote under a record's folder ``base`` that is its to
    bring back: its shard's folder and the record's own files (the machines checked, a
    void mark, a refused machine's values), no other shard's folder."""
    if not base.is_dir():
        return []
    return [
        p for p in sorted(base.iterdir()) if not p.name.isdigit() or p.name == str(k)
    ]


def _check_here(
    root: Path,
    target: str,
    scale: str,
    path: Path,
    results: Path,
    commit: bool,
    runner: Callable,
    log: Callable,
) -> None:
    """The machine check of :mod:`.shards`, made by the checkout before a pinned shard: the
    pinned tree re-runs members of shard 0 (its own ``record --check``, with the record's
    own code); same bits list this machine, so that the pinned shard runs without checking
    again; other bits list it as refused and raise :class:`~.shards.MachineRefused`,
    whatever the guard of the record's commit would have done (until 3 December 2026 it
    voided the record). A machine already refused is refused at once. The check is claimed:
    a second lane of this machine waits for the first's check and reads its outcome."""
    chapter, name, _ = _slice(root, target, scale)
    lock = root / CLAIMS / record_id(chapter, name, results) / "check"
    _wait_for(
        lock, log, f"{target}: waiting for process {{pid}}'s check of this machine"
    )
    try:
        _check_once(root, target, scale, path, results, commit, runner, log)
    finally:
        release(lock)


def _wait_for(path: Path, log: Callable, words: str, poll: float = 2.0) -> None:
    """Take the claim ``path``, waiting while a live process holds it (said once)."""
    said = False
    while not take(path):
        if not said:
            log(words.format(pid=_holder(path)))
            said = True
        time.sleep(poll)


def _check_once(root, target, scale, path, results, commit, runner, log) -> None:
    """:func:`_check_here` once its claim is taken (another lane of this machine may
    have checked it meanwhile: the state is read now)."""
    from .shard_plan import machine
    from .shards import MachineRefused, _add_machine, checked, refused

    chapter, name, s = _slice(root, target, scale)
    rel = results / SHARDS / scale / chapter / name
    st = state(root / results, scale, chapter, name, s)
    me = machine()
    was = refused(st, me)
    if was:
        raise MachineRefused(f"{target}: {was['check']} ({was['date']})")
    if 0 not in st["done"] or me["id"] in checked(st):
        return
    cmd = [sys.executable, "-m", "rnnbook", "record", target, "--scale", scale]
    cmd += ["--root", str(path), "--check"]
    cmd += [] if results == RESULTS else ["--results", str(results)]
    log(f"{target}: checking this machine (members of shard 0 again) in {path}")
    began = time.time()
    done = runner(cmd, cwd=path, env=_env(path), capture_output=True, text=True)
    last = ((done.stdout or "").strip().splitlines() or [""])[-1]
    if done.returncode == 0:
        how = "members of shard 0 re-run in the pinned tree: same bits"
    elif "other bits" in last:
        bad = last.removeprefix(f"{target}: ")
        how = f"refused: {bad}; its shards run where the bits agree"
    else:
        raise ShardError(
            f"{target}: the machine check failed in {path} (exit {done.returncode})"
        )
    _add_machine(root / rel, st["machines"], me, how, refused=done.returncode != 0)
    if done.returncode != 0:  # the evidence: this machine's values of those members
        keep_check_values(path, chapter, s["claims"], root / rel, me["id"], began)
    log(f"{target}: {how}")
    if commit:
        words = "other bits than" if done.returncode else "the bits of"
        _commit(root, rel, f"This machine gives {words} {target}'s shard 0")
    if done.returncode != 0:
        raise MachineRefused(f"{target}: {how}")


def keep_check_values(
    tree: Path, chapter: str, claims: list[str], base: Path, machine_id: str, since=0.0
) -> Path | None:
    """Keep what a refused machine measured when it re-ran members of shard 0, beside the
    record (``refused/<machine id>/values.json``, per claim the values its rule reads, as a
    shard keeps them), so that how far its bits were from shard 0's can be read again.
    The check's run is the newest ledger of the chapter in the pinned tree written since
    ``since``; ``None`` where there is none."""
    runs = [
        p
        for p in (tree / "_build" / "runs" / chapter).glob("*/claims.json")
        if p.stat().st_mtime >= since
    ]
    if not runs:
        return None
    newest = max(runs, key=lambda p: p.stat().st_mtime)
    ran = {c.get("id"): c for c in read_json(newest, list)}
    values = {
        cid: {"values": ((ran.get(cid) or {}).get("extra") or {}).get("inputs")}
        for cid in claims
    }
    out = base / "refused" / machine_id / "values.json"
    write_json(out, values)
    return out


def _message(
    root: Path, target: str, scale: str, decided: bool, results: Path = RESULTS
) -> str:
    rerun = "" if results == RESULTS else f" re-run on processor {results.name}"
    if decided:
        if rerun:
            return f"Decide the{rerun} of {target} once, on all its shards"
        return f"Decide the confirmatory record {target} once, on all its shards"
    chapter, name, s = _slice(root, target, scale)
    st = state(root / results, scale, chapter, name, s)
    what = f"the{rerun} of" if rerun else "the confirmatory record"
    return f"Shard of {what} {target} ({len(st['done'])} of {st['of']} in)"


def _commit(root: Path, rel: Path | list[Path], message: str, tries: int = 30) -> None:
    """Commit ``rel`` (a path or several) alone; while another queue's commit holds git's
    index lock, wait for it (a second at a time, up to ``tries``)."""
    paths = [str(p) for p in (rel if isinstance(rel, list) else [rel])]
    for attempt in range(tries):
        try:
            _git(root, "add", "--", *paths)
            _git(root, "commit", "-q", "-m", message, "--", *paths)
            return
        except ShardError as e:
            if "index.lock" not in str(e) or attempt == tries - 1:
                raise
            time.sleep(1.0)


def parse_items(items: list[str]) -> list[tuple[str, int]]:
    """A queue's items, ``CHAPTER:SLICE:N``, as (target, N); a malformed one is refused."""
    out = []
    for item in items:
        target, _, n = item.rpartition(":")
        if not target or not n.isdigit():
            raise ShardError(f"queue: {item!r} is not CHAPTER:SLICE:N")
        out.append((target, int(n)))
    return out


def queue(
    root: Path,
    items: list[str],
    scale: str = "cpu",
    device: str | None = None,
    commit: bool = True,
    runner: Callable = subprocess.run,
    log: Callable = print,
    results: Path = RESULTS,
) -> None:
    """Work through ``items`` (``CHAPTER:SLICE:N``: at most N more shards of that record)
    one shard after another, each in its pinned tree and committed as it lands; a record
    whose last shard is in is decided at once. A failed or voided shard stops the
    queue; a record that refuses this machine (other bits than its shard 0) is passed
    over, and the queue goes on with the next. ``results``: as for :func:`run` (the
    re-runs of :mod:`.processors`; a re-run whose shards are all in waits, undecided,
    until its record is decided)."""
    from . import processors
    from .shards import MachineRefused

    root = Path(root).resolve()
    for target, n in parse_items(items):
        chapter, name, s = _slice(root, target, scale)
        for _ in range(n):
            if state(root / results, scale, chapter, name, s)["complete"]:
                break
            try:
                run(root, target, scale, "next", device, commit, runner, log, results)
            except MachineRefused as e:
                log(f"{e}: passed over on this machine")
                break
            except ShardBusy as e:
                log(f"{target}: {e}: left to it")
                break
        st = state(root / results, scale, chapter, name, s)
        decided = root / results / scale / chapter / name / "claims.json"
        if st["complete"] and not decided.exists():
            if results != RESULTS and not processors.decided(root, target, scale):
                log(
                    f"{target}: every shard of its re-run is in; decided after the record"
                )
                continue
            try:
                run(root, target, scale, None, device, commit, runner, log, results)
            except ShardBusy as e:
                log(f"{e}: left to it")
