"""The plan and files of a record in shards (:mod:`.shards` runs them): a sliced
declaration checked, its partition, how values join over shards, the files a shard
writes and reads, and a record's state. Nothing here runs a chapter, so the ledger and
the records read it without importing the runner."""

from __future__ import annotations
import ast
import hashlib
import json
import os
import platform
import socket
import subprocess
from pathlib import Path
from typing import Any
from . import arithmetic
from . import claims as _claims


KINDS = ("exploratory", "confirmatory")
#: how a value joins over shards (:func:`merge`)
MERGES = ("seeds", "counts", "same", "union", "share", "min")
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
    elif how == "share" and not (
        _numbers(value) and not isinstance(value, (list, dict)) and 0 <= value <= 1
    ):
        raise ShardError(f"{where} is declared a share but is not a number in [0, 1]")
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


def merge(
    cid: str, name: str, how: str, parts: list[Any], seeds: list[int] | None = None
) -> Any:
    """Join one value over the shards, in shard order (:data:`MERGES`): ``seeds``
    concatenates per-seed lists (a dict's keys must agree); ``counts`` sums elementwise;
    ``same`` must be equal in every shard; ``union`` joins lists of keys; ``share``, a
    fraction of a shard's seeds, is weighted by the shard's ``seeds``: the fraction of
    all the seeds, exactly; ``min``, the smallest over a shard's seeds, is the smallest of
    the shards' (the smallest over all the seeds, exactly)."""
    where = f"claim {cid}: value {name!r}"
    if how == "min":
        if not all(_numbers(p) and not isinstance(p, (list, dict)) for p in parts):
            raise ShardError(f"{where} is declared a smallest but is not one number")
        return min(parts)
    if how == "share":
        if seeds is None or len(seeds) != len(parts) or not sum(seeds):
            raise ShardError(f"{where}: a share is joined by its shards' seeds")
        if not all(_numbers(p) and not isinstance(p, (list, dict)) for p in parts):
            raise ShardError(f"{where} is declared a share but is not one number")
        return sum(float(p) * n for p, n in zip(parts, seeds)) / sum(seeds)
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


def _git(root: Path, *args: str, strip: bool = True) -> str:
    out = subprocess.run(["git", *args], cwd=root, capture_output=True, text=True)
    if out.returncode != 0:
        raise ShardError(f"git {' '.join(args)} failed in {root}: {out.stderr.strip()}")
    return out.stdout.strip() if strip else out.stdout


def clean_commit(root: Path) -> str:
    """The checkout's commit; a tracked file that differs from it (other than a shard's
    own results) is refused: a shard's code must be a commit's."""
    # porcelain lines are "XY path": the status's leading blank is part of the first one
    status = _git(root, "status", "--porcelain", "--untracked-files=no", strip=False)
    dirty = [
        line[3:]
        for line in status.splitlines()
        if line.strip() and not line[3:].startswith(f"results/{SHARDS}/")
    ]
    if dirty:
        raise ShardError(
            "a shard runs from a commit: commit or set aside the changes to "
            + ", ".join(dirty[:8])
            + (f" and {len(dirty) - 8} more" if len(dirty) > 8 else "")
        )
    return _git(root, "rev-parse", "HEAD")


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
