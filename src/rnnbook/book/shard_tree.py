"""Shards run apart from the working tree (``record ... --shard next --pinned`` and
``queue``): each record's shards run in a git worktree of their own under
``_build/shard-trees/``, checked out at the commit of the record's shard 0 (at the
checkout's own commit for a first shard). A shard runs for up to an hour; edits made in the
meantime can then neither reach its code nor make its tree dirty. The shards so far are
copied into the tree before a shard runs, and the new one (or a void mark) is copied back
after it, and, with ``commit``, committed alone (``git commit -- <its folder>``).

The tree keeps a link to the checkout's ``.venv`` (the data live there) and imports the
package from its own ``src/``."""

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
    chapter, name, _ = _slice(root, target, scale)
    at = pin(root, chapter, name, scale, results)
    label = name if results == RESULTS else f"{name}--rerun-{results.name}"
    path = tree(root, chapter, label, at)
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
    _copy(path / rel, root / rel)
    if done.returncode != 0:
        raise ShardError(
            f"{target}: {' '.join(what)} failed in {path} (exit {done.returncode})"
        )
    if commit:
        _commit(root, rel, _message(root, target, scale, shard is None, results))
    return root / rel


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
    voided the record). A machine already refused is refused at once."""
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


def _commit(root: Path, rel: Path, message: str) -> None:
    _git(root, "add", "--", str(rel))
    _git(root, "commit", "-q", "-m", message, "--", str(rel))


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
    re-runs of :mod:`.processors`)."""
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
        st = state(root / results, scale, chapter, name, s)
        decided = root / results / scale / chapter / name / "claims.json"
        if st["complete"] and not decided.exists():
            run(root, target, scale, None, device, commit, runner, log, results)
