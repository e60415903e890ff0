"""Confirmatory records in shards (ARCHITECTURE.md, *Shards*): one declared slice run a few
member seeds at a time, on whatever core is free, across days, and decided once.

A slice declares its partition with its sizes, before its first shard::

    records:
      fig4-confirmatory:
        kind: confirmatory             # exploratory (default) | confirmatory
        claims: [lsc.fig4.half-beats-one]
        scale: cpu
        seed: 2001                     # a master seed never run
        parameters: {seeds: 96, steps: 1000}
        shard: 8                       # members per shard ({size: 8, count: n_seeds}
                                       # where the chapter counts its seeds otherwise)
        merge:                         # how each value the rule reads joins over shards
          half_one_seeds: seeds        # per-seed data (a list, or a dict of lists), joined
          arm_ok: same                 # the same in every shard (a setting), else refused
          wins: counts                 # [successes, trials] and other counts, summed
          cells: union                 # a list of keys, joined without repeats
        check: 1                       # members a new machine re-runs ('shard': all of
                                       # shard 0, where a member's draw depends on its shard)
        minutes: 600
        why: "..."

Shard ``k`` runs members ``k * size`` on (the chapter's ``seed_start``) and keeps, per claim,
the values its rule and gate read (:func:`rule_names`), never a verdict, under
``results/shards/<scale>/<chapter>/<slice>/<k>/`` with a provenance taken when it starts
(:func:`provenance`). The guards (:func:`run_shard`): a dirty tracked tree is refused; a shard
whose measuring hash, rules, slice, arithmetic, versions or device differ from shard 0's voids
the record (``void.json``: a new master seed starts a new one); the first shard on a machine
not yet checked re-runs members of shard 0 and compares their values bit for bit (a mismatch
stops the record). A failed shard leaves nothing and runs again with the same members; a
diverged network is data (NaN is kept). The run cache is not read: each shard runs in a build
folder of its own. :func:`decide` joins the shards once all are in and writes the record like
any other (:func:`rnnbook.book.records.write`).
"""

from __future__ import annotations

import ast
import dataclasses
import datetime as _dt
import hashlib
import json
import math
import os
import platform
import shutil
import socket
import subprocess
import time
from pathlib import Path
from typing import Any, Callable

from . import arithmetic
from . import claims as _claims

KINDS = ("exploratory", "confirmatory")
#: how a value joins over shards (:func:`merge`)
MERGES = ("seeds", "counts", "same", "union")
SHARDS = "shards"
#: the provenance fields a shard must share with shard 0
GUARDED = ("measuring_hash", "rules", "slice_hash", "arithmetic", "versions", "device")
GUARD_WORDS = {
    "measuring_hash": "its measuring code",
    "rules": "a claim's rule",
    "slice_hash": "the slice's declaration",
    "arithmetic": "the arithmetic",
    "versions": "the library versions",
    "device": "the device",
}
#: set in a shard's kernel: the ledger keeps the values each rule reads
KEEP_INPUTS = "RNNBOOK_KEEP_INPUTS"


class ShardError(_claims.ClaimError):
    """A shard cannot run or a record cannot be decided (the message says why)."""


class VoidRecord(ShardError):
    """The record is void or stopped: a new master seed starts a new one."""


# ---- the declaration ------------------------------------------------------------------


def rule_names(d: _claims.Declaration) -> list[str]:
    """The measured names a claim's rule and gate read (its effects' ``over``, ``effect``,
    ``setting``, ``smallest``, ``no_effect`` and ``range``, its gate, its ``not_attempted``
    or its rule's conditions), without its constants, ``profile`` and ``key``."""
    exprs = [d.trained, d.trained_value, d.not_attempted]
    exprs += [c for _, c in d.rule if c != "otherwise"]
    keys = ("over", "effect", "setting", "smallest", "no_effect", "range")
    exprs += [e[k] for e in d.effects for k in keys if k in e]
    skip = set(d.constants) | set(_claims.FUNCTIONS) | {"profile", "key"}
    found: list[str] = []
    for expr in filter(None, exprs):
        tree = ast.parse(str(expr), mode="eval")
        bound = {
            n.id
            for n in ast.walk(tree)
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)
        }
        for n in ast.walk(tree):
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load):
                if n.id not in skip | bound and n.id not in found:
                    found.append(n.id)
    return found


def check_slice(where: str, s: dict, declared: dict) -> dict:
    """A slice's ``kind``, ``shard``, ``merge`` and ``check`` (:func:`plan`), validated when
    it is declared: a sharded slice names how every value its claims' rules read joins over
    shards (:data:`MERGES`); a value it does not name is refused here, with the claim."""
    kind = s.get("kind", "exploratory")
    if kind not in KINDS:
        raise _claims.ClaimError(f"{where}: 'kind' must be one of {KINDS}")
    if "shard" not in s:
        if any(k in s for k in ("merge", "check")):
            raise _claims.ClaimError(f"{where}: 'merge' and 'check' need a 'shard'")
        if kind == "confirmatory":
            raise _claims.ClaimError(
                f"{where}: a confirmatory slice runs in shards: declare 'shard'"
            )
        return {**s, "kind": kind}
    size, count = shard_size(where, s)
    merge = s.get("merge") or {}
    if not isinstance(merge, dict) or set(merge.values()) - set(MERGES):
        raise _claims.ClaimError(f"{where}: 'merge' maps values to one of {MERGES}")
    for cid in s["claims"]:
        missing = [n for n in rule_names(declared[cid]) if n not in merge]
        if missing:
            raise _claims.ClaimError(
                f"{where}: claim {cid} reads {', '.join(map(repr, missing))}, which "
                f"the slice does not say how to join over shards: declare each under "
                f"'merge' as one of {', '.join(MERGES)} (a value computed over the seeds, "
                "a mean or a share, cannot be joined: the chapter must pass it per seed)"
            )
    check = s.get("check", 1)
    if check != "shard" and (not isinstance(check, int) or not 1 <= check <= size):
        raise _claims.ClaimError(
            f"{where}: 'check' is a number of members (1 to {size}) or 'shard'"
        )
    return {**s, "kind": kind, "merge": merge, "check": check, "count": count}


def shard_size(where: str, s: dict) -> tuple[int, str]:
    """The members per shard and the parameter that counts the slice's seeds."""
    raw = s["shard"]
    size, count = (raw, "seeds") if not isinstance(raw, dict) else (None, None)
    if isinstance(raw, dict) and set(raw) <= {"size", "count"}:
        size, count = raw.get("size"), raw.get("count", "seeds")
    total = (s.get("parameters") or {}).get(count) if count else None
    if not isinstance(size, int) or size < 1 or not isinstance(total, int):
        raise _claims.ClaimError(
            f"{where}: 'shard' is a number of members >= 1 (or {{size, count}}), with "
            f"the slice's seed count among its parameters ('{count or 'seeds'}')"
        )
    return size, count


def plan(s: dict) -> list[tuple[int, int]]:
    """The declared partition: per shard ``(first member, members)``; the last may be
    smaller. It follows from the slice alone and never changes."""
    size, count = shard_size("slice", s)
    total = s["parameters"][count]
    return [(a, min(size, total - a)) for a in range(0, total, size)]


def slice_hash(s: dict) -> str:
    """The hash of a slice's declaration as its claims file writes it."""
    keep = {k: v for k, v in s.items() if k not in ("count",)}
    text = json.dumps(keep, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


# ---- per-seed values and how they join --------------------------------------------------


def raw(x: Any) -> Any:
    """A measured value as JSON keeps it, NaN and infinities kept as numbers."""
    x = _claims.plain(x)
    if isinstance(x, dict):
        return {str(k): raw(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [raw(v) for v in x]
    if x is None or isinstance(x, (bool, int, float, str)):
        return x
    return str(x)


def check_value(cid: str, name: str, how: str, value: Any, members: int) -> None:
    """Refuse a value a shard cannot keep as declared: per-seed data (``seeds``) must be a
    list of at most one entry per member (or a dict of such lists), never a number."""
    where = f"claim {cid}: value {name!r}"
    if how == "seeds":
        leaves = list(_leaves(value))
        bad = [v for v in leaves if not isinstance(v, list) or len(v) > members]
        if not leaves or bad:
            raise ShardError(
                f"{where} is declared per seed but is {_shape(bad[0] if bad else value)} "
                f"at {members} seeds: a value over the seeds (a mean, a share, a count) "
                "cannot be joined over shards; the chapter must pass one entry per seed"
            )
    elif how == "counts" and not _numbers(value):
        raise ShardError(f"{where} is declared as counts but holds other than numbers")
    elif how == "union" and not isinstance(value, list):
        raise ShardError(f"{where} is declared a union of keys but is not a list")


def _leaves(x: Any):
    if isinstance(x, dict):
        for v in x.values():
            yield from _leaves(v)
    else:
        yield x


def _numbers(x: Any) -> bool:
    if isinstance(x, dict):
        return all(_numbers(v) for v in x.values())
    if isinstance(x, list):
        return all(_numbers(v) for v in x)
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def _shape(x: Any) -> str:
    if isinstance(x, list):
        return f"a list of {len(x)}"
    return f"a {type(x).__name__} ({str(x)[:40]})"


def merge(cid: str, name: str, how: str, parts: list[Any]) -> Any:
    """Join one value over the shards, in shard order (:data:`MERGES`): ``seeds``
    concatenates per-seed lists (a dict's keys must agree); ``counts`` sums elementwise;
    ``same`` must be equal in every shard; ``union`` joins lists of keys."""
    where = f"claim {cid}: value {name!r}"
    if how == "same":
        first = json.dumps(parts[0], sort_keys=True)
        if any(json.dumps(p, sort_keys=True) != first for p in parts[1:]):
            raise ShardError(f"{where} is declared the same in every shard but differs")
        return parts[0]
    if how == "union":
        return list({json.dumps(v): v for p in parts for v in p}.values())
    if how == "seeds":
        return _concat(where, parts)
    return _sum(where, parts)


def _concat(where: str, parts: list[Any]) -> Any:
    if all(isinstance(p, dict) for p in parts):
        keys = list(parts[0])
        if any(list(p) != keys for p in parts[1:]):
            raise ShardError(f"{where}: its keys differ between shards")
        return {k: _concat(f"{where}[{k!r}]", [p[k] for p in parts]) for k in keys}
    if all(isinstance(p, list) for p in parts):
        return [v for p in parts for v in p]
    raise ShardError(f"{where}: per-seed data must be lists in every shard")


def _sum(where: str, parts: list[Any]) -> Any:
    first = parts[0]
    if isinstance(first, dict):
        if any(not isinstance(p, dict) or list(p) != list(first) for p in parts):
            raise ShardError(f"{where}: its keys differ between shards")
        return {k: _sum(f"{where}[{k!r}]", [p[k] for p in parts]) for k in first}
    if isinstance(first, list):
        if any(not isinstance(p, list) or len(p) != len(first) for p in parts):
            raise ShardError(f"{where}: its counts have other shapes in other shards")
        return [_sum(where, list(col)) for col in zip(*parts)]
    return sum(parts)


# ---- files written whole, read with care ------------------------------------------------


def write_json(path: Path, data: Any) -> None:
    """``data`` as JSON into ``path``, whole or not at all (a temporary file, renamed)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(json.dumps(data, indent=1) + "\n")
    os.replace(tmp, path)


def read_json(path: Path, kind: type = dict) -> Any:
    """A JSON file of the results, or ``ValueError`` naming it where it is damaged."""
    try:
        data = json.loads(Path(path).read_text())
    except (OSError, UnicodeDecodeError, ValueError) as e:
        raise ValueError(f"damaged file {path}: {type(e).__name__}: {e}") from None
    if not isinstance(data, kind):
        raise ValueError(f"damaged file {path}: not a JSON {kind.__name__}")
    return data


def folder(results: Path, scale: str, chapter: str, name: str) -> Path:
    return Path(results) / SHARDS / scale / chapter / name


# ---- where a shard runs, and what it starts with -----------------------------------------


def machine() -> dict:
    """This machine: its processor, host name and arithmetic, with a short ``id``."""
    m = {
        "cpu": arithmetic.cpu_model(),
        "host": socket.gethostname(),
        "arithmetic": arithmetic.stamp(),
    }
    m["id"] = hashlib.sha256(json.dumps(m, sort_keys=True).encode()).hexdigest()[:12]
    return m


def versions() -> dict:
    """The versions of what measures: Python, torch, numpy, scipy."""
    import numpy
    import scipy
    import torch

    return {
        "python": platform.python_version(),
        "torch": torch.__version__,
        "numpy": numpy.__version__,
        "scipy": scipy.__version__,
    }


def _git(root: Path, *args: str) -> str:
    out = subprocess.run(["git", *args], cwd=root, capture_output=True, text=True)
    if out.returncode != 0:
        raise ShardError(f"git {' '.join(args)} failed in {root}: {out.stderr.strip()}")
    return out.stdout.strip()


def clean_commit(root: Path) -> str:
    """The checkout's commit; a tracked file that differs from it (other than a shard's
    own results) is refused: a shard's code must be a commit's."""
    dirty = [
        line[3:]
        for line in _git(root, "status", "--porcelain", "--untracked-files=no").split(
            "\n"
        )
        if line.strip() and not line[3:].startswith(f"results/{SHARDS}/")
    ]
    if dirty:
        raise ShardError(
            "a shard runs from a commit: commit or set aside the changes to "
            + ", ".join(dirty[:8])
            + (f" and {len(dirty) - 8} more" if len(dirty) > 8 else "")
        )
    return _git(root, "rev-parse", "HEAD")


def provenance(root: Path, chapter: str, s: dict, device: str) -> dict:
    """What a shard starts with: the fields it must share with shard 0
    (:data:`GUARDED`), the machine, and the date and time."""
    from .records import MEASURING_VERSION, measuring_hash

    declared = _claims.all_declared(root)
    now = _dt.datetime.now(_dt.timezone.utc)
    return {
        "measuring_hash": measuring_hash(root, chapter),
        "measuring_version": MEASURING_VERSION,
        "rules": {cid: _claims.fingerprint(declared[cid]) for cid in s["claims"]},
        "slice_hash": slice_hash(s),
        "arithmetic": arithmetic.stamp(),
        "versions": versions(),
        "device": device,
        "machine": machine(),
        "date": now.date().isoformat(),
        "started": now.isoformat(timespec="seconds"),
    }


def differences(a: dict, b: dict) -> list[str]:
    """The guarded fields in which two provenances differ, in words."""
    return [GUARD_WORDS[k] for k in GUARDED if a.get(k) != b.get(k)]


# ---- the state of a record in shards ---------------------------------------------------


def state(results: Path, scale: str, chapter: str, name: str, s: dict) -> dict:
    """A sharded slice as it stands: ``done`` (shard -> its provenance), ``of`` (shards
    declared), ``started`` (shard 0's date), ``void`` (the reason, or None), ``damaged``
    (one line per damaged file, left out of every count), ``machines`` (checked)."""
    base = folder(results, scale, chapter, name)
    parts, done, damaged = plan(s), {}, []
    void = None
    if (base / "void.json").exists():
        try:
            void = read_json(base / "void.json")["reason"]
        except (ValueError, KeyError) as e:
            void, _ = f"void (its reason is unreadable: {e})", damaged.append(str(e))
    for k, (start, count) in enumerate(parts):
        f = base / str(k)
        if not f.is_dir():
            continue
        try:
            prov = read_json(f / "provenance.json")
            read_json(f / "values.json")
            if prov.get("members") != [start, count]:
                raise ValueError(
                    f"damaged file {f / 'provenance.json'}: members "
                    f"{prov.get('members')} are not shard {k}'s {[start, count]}"
                )
        except ValueError as e:
            damaged.append(str(e))
            continue
        done[k] = prov
    if void is None and 0 in done:
        for k, prov in done.items():
            diff = differences(done[0], prov)
            if diff:
                void = f"shard {k} ran with other {', '.join(diff)} than shard 0"
                break
    machines = []
    if (base / "machines.json").exists():
        try:
            machines = read_json(base / "machines.json", list)
        except ValueError as e:
            damaged.append(str(e))
    return {
        "done": done,
        "of": len(parts),
        "plan": parts,
        "started": done[0]["date"] if 0 in done else None,
        "void": void,
        "damaged": damaged,
        "machines": machines,
        "complete": void is None and len(done) == len(parts),
    }


def progress_text(st: dict) -> str:
    """``k of K shards in, started DATE`` (or void, with its reason)."""
    if st["void"]:
        return f"void: {st['void']}; a new master seed starts a new record"
    text = f"{len(st['done'])} of {st['of']} shards in"
    return text + (f", started {st['started']}" if st["started"] else ", none started")


# ---- running a shard -------------------------------------------------------------------


def sharded_slice(root: Path, target: str, scale: str) -> tuple[str, str, dict]:
    from .records import slices

    chapter, _, name = target.partition(":")
    declared = slices(root, chapter)
    if name not in declared:
        raise ShardError(
            f"record: {chapter} declares no slice {name!r}; declared: "
            f"{', '.join(declared) or 'none'}"
        )
    s = declared[name]
    if s["scale"] != scale:
        raise ShardError(f"record: slice {name!r} is declared at scale {s['scale']!r}")
    if "shard" not in s:
        raise ShardError(f"record: slice {name!r} declares no 'shard': run it whole")
    return chapter, name, s


def _run_members(
    root: Path, chapter: str, s: dict, start: int, count: int, device, log
) -> tuple[dict, float, str]:
    """Run the chapter on members ``start .. start + count - 1`` in a build folder of its
    own (no stored run is read) and return, per claim of the slice, the values its rule
    reads, with the wall time and the device it ran on."""
    from .chapter import recorded_device
    from .pipeline import notebook_parameters, run_chapter

    params = {"profile": "book", **s["parameters"], "seed": s["seed"]}
    params |= {s["count"]: count, "seed_start": start}
    if device:
        params["device"] = device
    from .pipeline import find_chapter

    if "seed_start" not in notebook_parameters(find_chapter(root, chapter).source):
        raise ShardError(
            f"record: {chapter} has no 'seed_start' parameter: it cannot run a shard "
            "of its members (rnnbook.seeds)"
        )
    build = Path(root) / "_build" / "shard-runs" / f"{os.getpid()}-{time.time_ns()}"
    build.mkdir(parents=True)
    env = {"RNNBOOK_BUILD_DIR": str(build), KEEP_INPUTS: "1"}
    t0, before = time.time(), {k: os.environ.get(k) for k in env}
    try:
        nb = run_chapter(root, chapter, params, log=log, env=env)
    finally:  # running a chapter sets this process's environment: set it back
        for k, v in before.items():
            os.environ.pop(k, None) if v is None else os.environ.__setitem__(k, v)
        shutil.rmtree(build, ignore_errors=True)
    seconds = time.time() - t0
    ran = read_json(nb.parent / "claims.json", list)
    found = {c["id"]: c for c in ran}
    values = {}
    for cid in s["claims"]:
        kept = (found.get(cid) or {}).get("extra", {}).get("inputs")
        if kept is None:
            raise ShardError(f"record: the chapter did not check claim {cid}")
        for n, how in s["merge"].items():
            if n in kept:
                check_value(cid, n, how, kept[n], count)
        values[cid] = {"seeds": count, "profile": params["profile"], "values": kept}
    where = (recorded_device(nb) or {}).get("name") or device or "cpu"
    return values, seconds, where


def _write_shard(base: Path, k: int, prov: dict, values: dict) -> Path:
    out = base / str(k)
    tmp = base / f".{k}.{os.getpid()}.tmp"
    shutil.rmtree(tmp, ignore_errors=True)
    write_json(tmp / "values.json", values)
    write_json(tmp / "provenance.json", prov)
    shutil.rmtree(out, ignore_errors=True)
    os.replace(tmp, out)
    return out


def _void(base: Path, reason: str) -> VoidRecord:
    write_json(
        base / "void.json", {"reason": reason, "date": _dt.date.today().isoformat()}
    )
    return VoidRecord(f"record void: {reason}; a new master seed starts a new record")


def _same_bits(a: Any, b: Any) -> bool:
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


def check_machine(
    root: Path, chapter: str, s: dict, st: dict, base: Path, device, log
) -> str | None:
    """On a machine not yet checked for this record, re-run members of shard 0 (``check``)
    and compare their values bit for bit with the kept ones; ``None`` where they agree
    (the machine joins the list), else what differs."""
    start, count = st["plan"][0]
    n = count if s["check"] == "shard" else s["check"]
    kept = read_json(base / "0" / "values.json")
    log(f"checking this machine: members {start}..{start + n - 1} of shard 0 again")
    again, _, _ = _run_members(root, chapter, s, start, n, device, log)
    for cid, v in kept.items():
        for name, how in s["merge"].items():
            if name not in v["values"]:
                continue
            old, new = v["values"][name], again[cid]["values"].get(name)
            if how == "seeds" and n < count:
                old = _head(old, n)
            elif n < count:
                continue  # a joined value of the whole shard: not comparable
            if not _same_bits(old, new):
                return (
                    f"this machine ({st_machine_words()}) gave other bits than shard 0 "
                    f"for claim {cid}, value {name!r}, members {start}..{start + n - 1}"
                )
    return None


def trial_check(
    root: Path, target: str, scale: str, log: Callable = print, device=None
) -> str | None:
    """The machine check (:func:`check_machine`) on demand, on any machine, voiding
    nothing and listing no machine: whether re-running the declared ``check`` members of
    shard 0 gives its bits (a chapter whose members are drawn as one batch per shard
    needs ``check: shard``). ``None`` where they agree, else what differs."""
    root = Path(root).resolve()
    chapter, name, s = sharded_slice(root, target, scale)
    results = root / "results"
    st = state(results, scale, chapter, name, s)
    if 0 not in st["done"]:
        raise ShardError(f"{target}: shard 0 is not in yet: nothing to compare")
    base = folder(results, scale, chapter, name)
    return check_machine(root, chapter, s, st, base, device, log)


def st_machine_words() -> str:
    m = machine()
    return f"{m['cpu']} on {m['host']}"


def _head(x: Any, n: int) -> Any:
    if isinstance(x, dict):
        return {k: _head(v, n) for k, v in x.items()}
    return x[:n]


def run_shard(
    root: Path,
    target: str,
    scale: str,
    which: str | int = "next",
    log: Callable = print,
    device: str | None = None,
    results: Path | None = None,
) -> Path:
    """Run one shard of a declared sharded slice (``CHAPTER:SLICE``; ``which``: ``next``
    or its number) and keep its per-seed values under ``results/shards/...``, guarded as
    the module says; returns its folder."""
    from .records import RESULTS

    root = Path(root).resolve()
    chapter, name, s = sharded_slice(root, target, scale)
    results = Path(results or root / RESULTS)
    base = folder(results, scale, chapter, name)
    st = state(results, scale, chapter, name, s)
    for line in st["damaged"]:
        log(f"{line}; left out (its shard runs again)")
    if st["void"]:
        raise VoidRecord(
            f"record void: {st['void']}; a new master seed starts a new record"
        )
    todo = [k for k in range(st["of"]) if k not in st["done"]]
    if which == "next":
        if not todo:
            raise ShardError(
                f"all {st['of']} shards of {target} are in: decide it with --decide"
            )
        k = todo[0]
    else:
        k = int(which)
        if not 0 <= k < st["of"]:
            raise ShardError(f"{target} has shards 0 to {st['of'] - 1}, not {k}")
    if k != 0 and 0 not in st["done"]:
        raise ShardError(f"{target}: shard 0 runs first (it is the reference)")
    commit = clean_commit(root)
    prov = provenance(root, chapter, s, device or "cpu")
    prov |= {"commit": commit, "chapter": chapter, "slice": name, "scale": scale}
    start, count = st["plan"][k]
    prov |= {"shard": k, "of": st["of"], "members": [start, count]}
    prov |= {"master_seed": s["seed"], "kind": s["kind"]}
    if 0 in st["done"] and k != 0:
        diff = differences(st["done"][0], prov)
        if diff:
            raise _void(
                base, f"shard {k} would run with other {', '.join(diff)} than shard 0"
            )
    me = prov["machine"]
    checked = {m.get("id") for m in st["machines"]}
    if 0 in st["done"] and me["id"] not in checked:
        bad = check_machine(root, chapter, s, st, base, device, log)
        if bad:
            raise _void(base, f"stopped: {bad}")
        _add_machine(base, st["machines"], me, "members of shard 0 re-run: same bits")
        st["machines"].append(me)
    log(
        f"running shard {k} of {st['of']} of {target}: members {start}..{start + count - 1}"
    )
    values, seconds, where = _run_members(root, chapter, s, start, count, device, log)
    prov |= {"ran_on": where, "wall_seconds": round(seconds, 1)}
    out = _write_shard(base, k, prov, values)
    if me["id"] not in {m.get("id") for m in st["machines"]}:
        _add_machine(base, st["machines"], me, f"ran shard {k} first")
    return out


def _add_machine(base: Path, machines: list, me: dict, how: str) -> None:
    entry = {**me, "date": _dt.date.today().isoformat(), "check": how}
    write_json(base / "machines.json", [*machines, entry])


# ---- deciding once --------------------------------------------------------------------


def merged_values(s: dict, done: dict, kept: dict) -> dict[str, dict]:
    """Per claim of the slice, its values joined over every shard (in shard order)."""
    out = {}
    for cid in s["claims"]:
        parts = [kept[k][cid] for k in sorted(done)]
        names = dict.fromkeys(n for p in parts for n in p["values"])
        values = {}
        for n in names:
            how = s["merge"].get(n)
            if how is None:
                continue  # shown by the chapter's own run only
            if any(n not in p["values"] for p in parts):
                raise ShardError(f"claim {cid}: value {n!r} is missing from a shard")
            values[n] = merge(cid, n, how, [p["values"][n] for p in parts])
        out[cid] = {
            "values": values,
            "seeds": sum(p["seeds"] for p in parts),
            "profile": parts[0]["profile"],
        }
    return out


def decide_claim(
    d: _claims.Declaration, values: dict, profile: str
) -> _claims.Decision:
    """The declared rule, once, on the joined values; a display template that needs a
    value the shards did not keep is left out (the rule never is)."""
    try:
        return _claims.decide(d, values, profile)
    except _claims.ClaimError as e:
        if "display template" not in str(e):
            raise
    return _claims.decide(
        dataclasses.replace(d, measured=None, note=""), values, profile
    )


def decide(
    root: Path,
    target: str,
    scale: str,
    log: Callable = print,
    results: Path | None = None,
) -> Path:
    """Decide a sharded slice once every declared shard is in: join the shards' values and
    run each claim's rule once, and write the record under ``results/<scale>/...``
    (:func:`rnnbook.book.records.write`); refused while a shard is missing or the record
    is void."""
    from .records import RESULTS, write

    root = Path(root).resolve()
    chapter, name, s = sharded_slice(root, target, scale)
    results = Path(results or root / RESULTS)
    base = folder(results, scale, chapter, name)
    st = state(results, scale, chapter, name, s)
    for line in st["damaged"]:
        log(f"{line}; left out")
    if st["void"]:
        raise VoidRecord(f"record void: {st['void']}")
    if not st["complete"]:
        raise ShardError(
            f"{target}: {progress_text(st)}; nothing is decided from a partial record"
        )
    first = st["done"][0]
    declared = _claims.all_declared(root)
    now = {cid: _claims.fingerprint(declared[cid]) for cid in s["claims"]}
    if now != first["rules"] or slice_hash(s) != first["slice_hash"]:
        raise _void(base, "a rule or the slice changed after its shards ran")
    kept = {k: read_json(base / str(k) / "values.json") for k in st["done"]}
    joined = merged_values(s, st["done"], kept)
    claims = []
    for cid in s["claims"]:
        d, j = declared[cid], joined[cid]
        dec = decide_claim(d, j["values"], j["profile"])
        claims.append(
            {
                "id": cid,
                "paper": d.paper,
                "source": d.source,
                "verdict": dec.verdict,
                "seeds": j["seeds"],
                "profile": j["profile"],
                "measured": dec.measured,
                "trained": dec.trained,
                "effects": _finite(dec.effects),
            }
        )
    shards = [
        {k: p.get(k) for k in ("commit", "date", "started", "wall_seconds", "ran_on")}
        for _, p in sorted(st["done"].items())
    ]
    params = {"profile": "book", **s["parameters"], "seed": s["seed"]}
    seconds = sum(p.get("wall_seconds") or 0 for p in st["done"].values())
    extra = {
        "design": s["kind"],
        "shards": shards,
        "machines": st["machines"],
        "started": st["started"],
        "arithmetic": first["arithmetic"],
        "versions": first["versions"],
    }
    return write(
        root,
        scale,
        chapter,
        name,
        claims,
        params,
        seconds,
        first.get("ran_on") or first.get("device") or "cpu",
        results=results,
        measured_with=first["measuring_hash"],
        extra=extra,
    )


def _finite(x: Any) -> Any:
    """Effects as a record keeps them (non-finite numbers as text, as the ledger does)."""
    if isinstance(x, dict):
        return {k: _finite(v) for k, v in x.items()}
    if isinstance(x, list):
        return [_finite(v) for v in x]
    if isinstance(x, float) and not math.isfinite(x):
        return str(x)
    return x
