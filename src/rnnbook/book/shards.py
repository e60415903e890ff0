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
          gd_toward: share             # a fraction of the shard's seeds, weighted by them
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
not yet checked re-runs members of shard 0 and compares their values bit for bit: a mismatch
refuses the machine, not the record (:class:`MachineRefused`: it is listed as refused in
``machines.json`` and takes none of the record's shards, which run on machines that give
shard 0's bits; its shards so far, all of one arithmetic, stay valid). A failed shard leaves
nothing and runs again with the same members; a diverged network is data (NaN is kept). The run cache is not read: each shard runs in a build
folder of its own. :func:`decide` joins the shards once all are in and writes the record like
any other (:func:`rnnbook.book.records.write`).
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
import json
import math
import os
import shutil
import time
from pathlib import Path
from typing import Any, Callable

from . import arithmetic
from . import claims as _claims

from .shard_plan import (  # noqa: F401 - the plan, re-exported
    KINDS,
    MERGES,
    SHARDS,
    GUARDED,
    GUARD_WORDS,
    KEEP_INPUTS,
    ShardError,
    VoidRecord,
    rule_names,
    check_slice,
    shard_size,
    plan,
    slice_hash,
    raw,
    check_value,
    _leaves,
    _numbers,
    _shape,
    merge,
    _concat,
    _sum,
    write_json,
    read_json,
    folder,
    machine,
    versions,
    _git,
    clean_commit,
    differences,
    state,
    progress_text,
)


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


class MachineRefused(ShardError):
    """This machine gave other bits than shard 0 for members of the record: it runs none
    of the record's shards (the record stays valid and goes on where the bits agree)."""


#: the exit status of ``record --shard`` on a refused machine (the queue moves on)
REFUSED_EXIT = 3


def refused_machines(st: dict) -> list[dict]:
    """The machines a record refused (other bits than its shard 0), as listed."""
    return [m for m in st.get("machines", []) if m.get("refused")]


def refused(st: dict, me: dict) -> dict | None:
    """This machine's entry in the record's list where it was refused, else ``None``."""
    return next((m for m in refused_machines(st) if m.get("id") == me["id"]), None)


def checked(st: dict) -> set:
    """The ids of the machines that may run the record's shards (listed, not refused)."""
    return {m.get("id") for m in st.get("machines", []) if not m.get("refused")}


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
    root: Path,
    target: str,
    scale: str,
    log: Callable = print,
    device=None,
    results: Path | None = None,
) -> str | None:
    """The machine check (:func:`check_machine`) on demand, on any machine, voiding
    nothing and listing no machine: whether re-running the declared ``check`` members of
    shard 0 gives its bits (a chapter whose members are drawn as one batch per shard
    needs ``check: shard``). ``None`` where they agree, else what differs."""
    root = Path(root).resolve()
    chapter, name, s = sharded_slice(root, target, scale)
    results = Path(results or root / "results")
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
    was = refused(st, me)
    if was:
        raise MachineRefused(f"{target}: {was['check']} ({was['date']})")
    if 0 in st["done"] and me["id"] not in checked(st):
        bad = check_machine(root, chapter, s, st, base, device, log)
        if bad:
            how = f"refused: {bad}; its shards run where the bits agree"
            _add_machine(base, st["machines"], me, how, refused=True)
            raise MachineRefused(f"{target}: {how}")
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


def _add_machine(
    base: Path, machines: list, me: dict, how: str, refused: bool = False
) -> None:
    entry = {**me, "date": _dt.date.today().isoformat(), "check": how}
    entry |= {"refused": True} if refused else {}
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
            values[n] = merge(
                cid,
                n,
                how,
                [p["values"][n] for p in parts],
                [p["seeds"] for p in parts],
            )
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
    """Effects as a record keeps them: numpy's numbers as Python's (a Wilson interval's
    bounds, and the ``contrary`` flag compared from them, are numpy's, and ``json``
    refuses a numpy bool), non-finite numbers as text, as the ledger does."""
    if isinstance(x, dict):
        return {k: _finite(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_finite(v) for v in x]
    if type(x).__module__ == "numpy" and hasattr(x, "tolist"):
        return _finite(x.tolist())  # a scalar or an array, as Python's
    if isinstance(x, float) and not math.isfinite(x):
        return str(x)
    return x
