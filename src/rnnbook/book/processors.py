"""Re-runs on another processor: a confirmatory record run again whole, the same members
with the same measuring code, rules and slice, on a machine that gives other bits than its
shard 0 (another vendor's arithmetic: :mod:`.shards` refuses such a machine).
Training turns the last bits into other runs (on 3 December 2026 an Intel Xeon moved 265 of
480 MNIST accuracies of the Glorot record's shard 0 by more than a point), so the question a
re-run answers is whether the *verdicts* carry across processors where single runs do not.

A re-run decides nothing: the record's verdict stands, and the re-run is shown beside it
(the records table, the claim's box). It is kept under ``results/processors/<machine id>/``
in a record's own layout (``shards/<scale>/<chapter>/<slice>/<k>/`` and, once every shard
is in, ``<scale>/<chapter>/<slice>/``), one shard at a time in a pinned tree, committed as
each lands, across days (``python -m rnnbook rerun CHAPTER:SLICE:N``,
:func:`rnnbook.book.shard_tree.queue`): the shard runner's guards hold within it as within a
record. It starts only where the checkout measures as the record's shard 0 did
(:func:`can_start`), and a re-run whose shard 0 measured with other code than the record's
is shown as such, never as agreeing or not.

A record still running may be re-run too, on a machine it refused (from 4 December 2026:
the records left then all refused the Intel Xeon, whose days had nothing else to run). Its
shards run as they would for a decided record, but the re-run is **decided only after the
record** (:func:`may_decide`): no verdict on the record's seeds is computed, on any
processor, before the record's own.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Callable

from . import claims as _claims
from .shard_plan import SHARDS, ShardError, differences, machine, read_json, state

#: where the re-runs live, under the repository: one folder per machine id
FOLDER = Path("results") / "processors"


def results_of(machine_id: str) -> Path:
    """The results folder of this machine's re-runs, relative to the repository."""
    if not machine_id or "/" in machine_id or machine_id.startswith("."):
        raise ShardError(f"rerun: machine id {machine_id!r} is not a folder name")
    return FOLDER / machine_id


def can_start(root: Path, target: str, scale: str = "cpu") -> None:
    """Refuse (:class:`ShardError`) a re-run that would not re-run the record (a checkout
    whose measuring code, rules, slice, arithmetic settings or versions differ from the
    record's shard 0, or a record with no shard in) or would only repeat it (a machine the
    record lists as giving its bits) or stand in for it (a record still running that has
    not refused this machine: its own shards may run here)."""
    from .records import RESULTS
    from .shards import checked, provenance, refused, sharded_slice

    root = Path(root).resolve()
    chapter, name, s = sharded_slice(root, target, scale)
    st = state(root / RESULTS, scale, chapter, name, s)
    me = machine()
    if me["id"] in checked(st):
        raise ShardError(
            f"rerun: this machine ({me['cpu']}) gives {target}'s bits (it is listed in "
            "its machines.json): a re-run here would repeat the record bit for bit"
        )
    if 0 not in st["done"]:
        raise ShardError(f"rerun: {target} has no shard in: there is nothing to re-run")
    if not decided(root, target, scale) and not refused(st, me):
        raise ShardError(
            f"rerun: {target} is not decided and has not refused this machine: run its "
            "own shards here (make day), not a re-run"
        )
    first = st["done"][0]
    diff = differences(first, provenance(root, chapter, s, first.get("device", "cpu")))
    if diff:
        raise ShardError(
            f"rerun: this checkout has other {', '.join(diff)} than {target}'s shard 0: "
            "a re-run here would not re-run the record"
        )


def decided(root: Path, target: str, scale: str = "cpu") -> bool:
    """Whether the record ``target`` (``CHAPTER:SLICE``) itself is decided."""
    from .records import RESULTS

    chapter, _, name = target.rpartition(":")
    return (Path(root) / RESULTS / scale / chapter / name / "claims.json").is_file()


def may_decide(root: Path, target: str, scale: str = "cpu") -> None:
    """Refuse (:class:`ShardError`) to decide a re-run of a record not decided yet: a
    re-run's verdict is computed only after the record's own."""
    if not decided(root, target, scale):
        raise ShardError(
            f"rerun: {target} is not decided yet: its re-run is decided after it"
        )


def _claims_of(
    path: Path, date: str | None, declared: dict, report: Callable
) -> dict | None:
    """A decided re-run's claims (id -> claim) under the rules declared now (as a
    record's are, :func:`rnnbook.book.records.current`); ``None`` where it is damaged."""
    from .records import current

    try:
        kept = read_json(path, list)
        return {c["id"]: current(c, declared, date) for c in kept}
    except (ValueError, KeyError, TypeError) as e:
        report(f"damaged re-run {path}: {e}; left out")
        return None


def reruns(root: Path, report: Callable = print) -> list[dict]:
    """Every re-run kept under ``results/processors/``: ``target``, ``machine`` (shard 0's:
    cpu, host, id), ``in`` and ``of`` (shards), ``hours`` (one core), ``void``, ``date``
    (decided), ``verdicts`` (claim id -> verdict, once decided, else ``None``) and
    ``claims`` (claim id -> the claim with its effects), and ``measured_with`` (its shard 0's measuring hash, to set beside the record's)."""
    from .records import slices

    root = Path(root)
    out, declared = [], None
    for mdir in sorted(p for p in (root / FOLDER).glob("*") if p.is_dir()):
        for sdir in sorted(p for p in (mdir / SHARDS).glob("*/*/*/*") if p.is_dir()):
            scale, chapter, name = (
                sdir.parts[-4],
                "/".join(sdir.parts[-3:-1]),
                sdir.name,
            )
            s = slices(root, chapter).get(name)
            if s is None or "shard" not in s:
                continue
            st = state(mdir, scale, chapter, name, s)
            for line in st["damaged"]:
                report(f"{line}; left out of the re-run")
            first = st["done"].get(0, {})
            decided = mdir / scale / chapter / name
            date, got = None, None
            if (decided / "provenance.json").is_file():
                try:
                    date = read_json(decided / "provenance.json").get("date")
                except ValueError as e:
                    report(f"damaged re-run {decided}: {e}; left out")
            if date:
                declared = declared or _claims.all_declared(root)
                got = _claims_of(decided / "claims.json", date, declared, report)
            hours = sum(float(p.get("wall_seconds") or 0) for p in st["done"].values())
            out.append(
                {
                    "target": f"{chapter}:{name}",
                    "scale": scale,
                    "machine": first.get("machine") or {"id": mdir.name},
                    "in": len(st["done"]),
                    "of": st["of"],
                    "hours": hours / 3600,
                    "void": st["void"],
                    "date": date,
                    "verdicts": None
                    if got is None
                    else {cid: c["verdict"] for cid, c in got.items()},
                    "claims": got,
                    "measured_with": first.get("measuring_hash"),
                }
            )
    return out


def compare(
    rerun: dict, verdicts: dict[str, str | None], measured_with: str | None
) -> dict | None:
    """A decided re-run against its record (``verdicts``: the record's, claim id ->
    verdict; ``measured_with``: the record's measuring hash): ``claims`` (set beside)
    and ``moved`` (those with another verdict); ``None`` while it runs, when it is void
    or when it measured with other code than the record."""
    if (
        rerun["void"]
        or rerun["verdicts"] is None
        or not _same_code(rerun, measured_with)
    ):
        return None
    shared = [cid for cid in verdicts if cid in rerun["verdicts"]]
    return {
        "claims": shared,
        "moved": [cid for cid in shared if rerun["verdicts"][cid] != verdicts[cid]],
    }


def _same_code(rerun: dict, measured_with: str | None) -> bool:
    return not measured_with or rerun["measured_with"] in (None, measured_with)


def words(
    rerun: dict, verdicts: dict[str, str | None], measured_with: str | None
) -> str:
    """A re-run beside its record, in one sentence: how far it has come, or, once decided,
    whether each claim got the record's verdict (:func:`compare`)."""
    cpu = rerun["machine"].get("cpu", rerun["machine"].get("id"))
    where = f"re-run on {cpu}"
    if rerun["void"]:
        return f"{where}: void ({rerun['void']})"
    if not _same_code(rerun, measured_with):
        return (
            f"{where}: it measured with other code than the record, so it is not set "
            "beside it"
        )
    if rerun["verdicts"] is None:
        done = f"{rerun['in']} of {rerun['of']} shards in"
        waits = rerun["in"] >= rerun["of"] and not any(verdicts.values())
        after = "; decided after the record" if waits else ""
        return (
            f"{where} (the same seeds and code, another processor's arithmetic; it "
            f"decides nothing): {done}, {rerun['hours']:.1f} h so far{after}"
        )
    head = (
        f"re-run whole on {cpu} on {rerun['date']} (the same seeds and code, another "
        "processor's arithmetic)"
    )
    got = compare(rerun, verdicts, measured_with)
    if not got["moved"]:
        same = "the same verdict" if len(got["claims"]) == 1 else "the same verdicts"
        return f"{head}: {same} as the record"
    moved = "; ".join(
        f"{cid}: {rerun['verdicts'][cid]}, the record {verdicts[cid]}"
        for cid in got["moved"]
    )
    n, of = len(got["moved"]), len(got["claims"])
    return f"{head}: another verdict on {n} of {of} claims ({moved})"


def moved_most(record: dict, rerun: dict) -> str:
    """Of one claim's effects, the one whose estimate the re-run moved most, in words
    ("its effects moved by at most 0.079: RNN rises, 4.47 against the record's 4.55"),
    or ``""`` where no estimate can be set beside another."""

    def estimates(c: dict) -> dict:
        return {
            e.get("name"): e["estimate"]
            for e in c.get("effects") or ()
            if isinstance(e.get("estimate"), (int, float))
        }

    mine, theirs = estimates(rerun), estimates(record)
    pairs = [(abs(mine[n] - theirs[n]), n) for n in mine if n in theirs]
    pairs = [p for p in pairs if math.isfinite(p[0])]  # NaN sets nothing beside
    if not pairs:
        return ""
    d, name = max(pairs, key=lambda p: p[0])
    if d == 0:
        return "its effects moved by nothing"
    return (
        f"its effects moved by at most {d:.2g}: {name}, {mine[name]:.3g} against the "
        f"record's {theirs[name]:.3g}"
    )


def summary(compared: list[dict | None], running: int) -> str:
    """One sentence over every record's re-runs (``compared``: :func:`compare` of each
    decided one; ``running``: re-runs with shards still to run); ``""`` when none."""
    done = [c for c in compared if c is not None]
    claims = sum(len(c["claims"]) for c in done)
    moved = sum(len(c["moved"]) for c in done)
    said = []
    if done:
        got = (
            f"{moved} of {claims} claims got another verdict than their record's"
            if moved
            else "every claim got its record's verdict"
        )
        n = len(done)
        said.append(
            f"{n} decided record{'' if n == 1 else 's'} re-run whole on another "
            f"processor ({claims} claim{'' if claims == 1 else 's'}): {got}"
        )
    if running:
        said.append(f"{running} more re-run{'' if running == 1 else 's'} running")
    return "; ".join(said) + "." if said else ""


def of_record(rows: list[dict], target: str) -> list[dict]:
    """The re-runs of one record (``CHAPTER:SLICE``), in machine order."""
    return [r for r in rows if r["target"] == target]


__all__ = [
    "FOLDER",
    "results_of",
    "can_start",
    "decided",
    "may_decide",
    "reruns",
    "compare",
    "words",
    "moved_most",
    "summary",
    "of_record",
]
