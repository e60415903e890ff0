"""Records: runs of a chapter (or a declared slice of it) kept with their provenance, beside
the ``book`` build that re-runs everything on every push (ARCHITECTURE.md, *Records*).

A record is one run of a training chapter at declared parameters, committed under
``results/<kind>/<chapter>/<name>/``: ``claims.json`` (the claims it decided, each with its
effects and intervals) and ``provenance.json`` (commit, the chapter's input hash as the
execution cache keys it, the hash of its measuring code, device, versions, date, wall time,
master seed, every parameter). Kinds:

- ``seeds``: the ``book`` sizes at a master seed the build never runs, to confirm that a rule
  decides alike at seeds no rule has seen (``python -m rnnbook seeds 4 5``); ``seed-0`` is
  the book's own ledger, kept beside them.

A record whose measuring code (the chapter's code cells, the paper rooms and the common layer
it imports; not the build room, which only renders) changed since it ran is **stale**.
"""

from __future__ import annotations

import datetime as _dt
import json
import os
import platform
import re
import threading
from pathlib import Path
from typing import Any

from . import arithmetic
from . import claims as _claims
from . import execution_cache as xc
from .shard_plan import check_slice

RESULTS = "results"
#: ``ast.parse`` from two threads at once can fail in CPython 3.11 ("AST constructor
#: recursion depth mismatch"): the seed check's threads hash their chapters one at a time
_PARSE = threading.Lock()


def _commit(root: Path) -> str:
    """The checkout's commit, marked where tracked files differ from it."""
    import subprocess

    def git(*args: str) -> str:
        try:
            out = subprocess.run(
                ["git", *args], cwd=root, capture_output=True, text=True
            )
        except OSError:
            return ""
        return out.stdout.strip()

    dirty = git("status", "--porcelain", "--untracked-files=no")
    return (git("rev-parse", "--short", "HEAD") or "unknown") + (
        " (with uncommitted changes)" if dirty else ""
    )


def training_chapters(root: Path) -> list[str]:
    """The chapters that declare a training claim (a claim with a ``trained`` gate)."""
    out = []
    for path in sorted((Path(root) / "notebooks").rglob("*.claims.yaml")):
        chapter = str(path.relative_to(Path(root) / "notebooks")).removesuffix(
            ".claims.yaml"
        )
        if any(d.trained for d in _claims.load(path, chapter).values()):
            out.append(chapter)
    return out


# Version 1 hashed the modules that only draw as well (their leaving it, meant since
# 2026-11-28, was not applied until version 2); a record says which version it holds.
MEASURING_VERSION = 2


def measuring_hash(root: Path, chapter: str, version: int = MEASURING_VERSION) -> str:
    """The hash of what measures: the chapter's code cells and the modules of the paper
    rooms and the common layer it imports; the build room, which renders, and (from
    ``version`` 2) the modules that only draw (:func:`~.execution_cache.draws`) are left
    out."""
    with _PARSE:
        return _measuring_hash(Path(root), chapter, version)


def _measuring_hash(root: Path, chapter: str, version: int) -> str:
    source = root / "notebooks" / f"{chapter}.py"
    index = xc.ModuleIndex(root / "src")
    mods = sorted(
        m
        for m in xc.chapter_modules(source, index)
        if not m.startswith("rnnbook.book") and (version < 2 or not xc.draws(m))
    )
    parts = {
        "code": xc._sha("\n# cell\n".join(xc.code_cells(source))),
        "modules": {m: xc._sha(index.path(m).read_bytes()) for m in mods},
    }
    return xc._sha(json.dumps(parts, sort_keys=True))


def _summary(c: dict, rules: dict[str, str]) -> dict:
    keep = ("id", "paper", "source", "verdict", "seeds", "profile", "measured")
    out = {k: c.get(k) for k in keep}
    out["trained"] = c.get("trained")
    out["effects"] = c.get("effects")
    out["rule"] = rules.get(c.get("id"))
    return out


def _rules(root: Path) -> dict[str, str]:
    """Per declared claim, its rule's fingerprint (:func:`rnnbook.book.claims.fingerprint`)."""
    return {
        cid: _claims.fingerprint(d) for cid, d in _claims.all_declared(root).items()
    }


def current(c: dict, declared: dict, date: str | None = None) -> dict:
    """A recorded claim under the rule declared now: as recorded where the rule is the one
    it ran under; else decided again from the per-effect data it kept (``redecided``, with
    the verdict it was recorded with), or, where it kept none, marked ``rule_changed``
    (shown, not counted: it needs a re-run). A record that kept no rule fingerprint ran
    under the rule of its ``date``: where the claim's history has a change after that
    date, its rule changed too."""
    d = declared.get(c.get("id"))
    if d is None:
        return c
    if not c.get("rule"):
        later = [h for h in d.history if date and str(h.get("date", "")) > str(date)]
        if not later:
            return c
    elif c["rule"] == _claims.fingerprint(d):
        return c
    dec = _claims.redecide(d, c)
    if dec is None:
        return {**c, "rule_changed": True}
    new = {"verdict": dec.verdict, "effects": dec.effects, "measured": dec.measured}
    return {**c, **new, "trained": dec.trained, "redecided": {"verdict": c["verdict"]}}


_CAPTION = re.compile(r"^\*\*Figure (\d+)\.\*\*\s*(.*)", re.S)
_IMAGES = {"image/svg+xml": "svg", "image/png": "png"}


def figures_of(notebook: Path, numbers) -> list[dict]:
    """The figures ``numbers`` of an executed chapter, as its captions number them: each
    ``{number, caption, suffix, data}``: the last image drawn by the code cells right before
    its caption (a caption follows its figure's cell); a number the chapter lacks is an
    error."""
    import base64

    cells = json.loads(Path(notebook).read_text())["cells"]
    found, drawn = {}, []
    for cell in cells:
        text = "".join(cell.get("source") or [])
        if cell["cell_type"] == "code":
            for out in cell.get("outputs") or []:
                data = out.get("data") or {}
                kind = next((k for k in _IMAGES if k in data), None)
                if kind is not None:
                    raw = data[kind]
                    raw = "".join(raw) if isinstance(raw, list) else raw
                    drawn.append((_IMAGES[kind], raw))
            continue
        m = _CAPTION.match(text.strip())
        if m and int(m[1]) in numbers and drawn:
            suffix, raw = drawn[-1]
            blob = raw.encode() if suffix == "svg" else base64.b64decode(raw)
            found[int(m[1])] = {"number": int(m[1]), "caption": " ".join(m[2].split())}
            found[int(m[1])] |= {"suffix": suffix, "data": blob}
        if text.strip():
            drawn = []
    missing = sorted(set(numbers) - set(found))
    if missing:
        raise ValueError(f"{notebook}: no figure right before the caption of {missing}")
    return [found[n] for n in numbers]


def write(
    root: Path,
    kind: str,
    chapter: str,
    name: str,
    records: list[dict],
    params: dict[str, Any],
    seconds: float,
    device: str = "cpu",
    results: Path | None = None,
    figures: list[dict] = (),
    measured_with: str | None = None,
    extra: dict | None = None,
) -> Path:
    """Write one record (its claims, provenance and the chapter's ``figures`` that carry
    them, :func:`figures_of`; ``measured_with``: the measuring hash taken when the run
    started, else taken now; ``extra``: more provenance, e.g. a record decided from shards:
    its ``design``, confirmatory, and its shards) under ``results/<kind>/<chapter>/<name>`` (``results``:
    another folder than the checkout's ``results/``) atomically (a folder renamed into
    place: a killed run leaves no half record)."""
    import shutil

    import torch

    root = Path(root)
    folder = Path(results or root / RESULTS) / kind / chapter / name
    tmp = folder.with_name(f".{name}.tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    prov = {
        "kind": kind,
        "chapter": chapter,
        "name": name,
        "commit": _commit(root),
        "measuring_hash": measured_with or measuring_hash(root, chapter),
        "measuring_version": MEASURING_VERSION,
        "device": device,
        "cpu": arithmetic.cpu_model(),
        "arithmetic": arithmetic.stamp(),
        "torch": torch.__version__,
        "cuda": torch.version.cuda,
        "machine": platform.machine(),
        "cores": os.cpu_count(),
        "date": _dt.date.today().isoformat(),
        "wall_seconds": round(seconds, 1),
        "master_seed": params.get("seed"),
        "parameters": params,
        **(extra or {}),
    }
    rules = _rules(root)
    claims = [_summary(c, rules) for c in records]
    (tmp / "claims.json").write_text(json.dumps(claims, indent=1) + "\n")
    (tmp / "provenance.json").write_text(json.dumps(prov, indent=1) + "\n")
    if figures:
        keep_figures(tmp, figures)
    shutil.rmtree(folder, ignore_errors=True)
    tmp.rename(folder)
    return folder


def keep_figures(folder: Path, figures: list[dict]) -> None:
    """The figures that carry a record's claims (:func:`figures_of`) into its folder, with
    ``figures.json`` (number, caption, file); also for a record that ran before its slice
    named them, from the executed notebook of that same run."""
    index = []
    for f in figures:
        name = f"figure-{f['number']}.{f['suffix']}"
        (Path(folder) / name).write_bytes(f["data"])
        index.append({"number": f["number"], "caption": f["caption"], "file": name})
    (Path(folder) / "figures.json").write_text(json.dumps(index, indent=1) + "\n")


def _report(line: str) -> None:
    """One line on the standard error: a damaged record is left out, the build goes on."""
    import sys

    print(line, file=sys.stderr)


def _read_record(prov_path: Path) -> tuple[dict, list]:
    """A record's provenance and kept claims, checked; ``ValueError`` naming the file
    where one is damaged (cut short, edited into other than a record)."""
    from .shard_plan import read_json

    prov = read_json(prov_path)
    kept = read_json(prov_path.parent / "claims.json", list)
    if not isinstance(prov.get("chapter"), str) or not isinstance(
        prov.get("date"), str
    ):
        raise ValueError(f"damaged file {prov_path}: no chapter or date")
    bad = [c for c in kept if not isinstance(c, dict) or "id" not in c]
    if bad:
        raise ValueError(
            f"damaged file {prov_path.parent / 'claims.json'}: no claim id"
        )
    return prov, kept


def damaged(root: Path) -> list[str]:
    """One line per damaged record file under ``results/`` (records and shards)."""
    out = []
    for prov_path in sorted((Path(root) / RESULTS).glob("*/*/*/*/provenance.json")):
        try:
            _read_record(prov_path)
        except ValueError as e:
            out.append(str(e))
    return out


def load(root: Path, kind: str | None = None, report=_report) -> list[dict]:
    """Every committed record (``kind``: only that kind), each as its provenance with its
    ``claims`` (under the rule declared now: :func:`current`) and whether it is ``stale``.
    A damaged record file is reported in one line (``report``) and left out."""
    base = Path(root) / RESULTS
    out, declared, hashes = [], None, {}
    for prov_path in sorted(base.glob("*/*/*/*/provenance.json")):
        try:
            prov, kept = _read_record(prov_path)
        except ValueError as e:
            report(f"{e}; left out of every count")
            continue
        if kind is not None and prov.get("kind") != kind:
            continue
        if declared is None:
            declared = _claims.all_declared(root)
        prov["claims"] = [current(c, declared, prov.get("date")) for c in kept]
        chapter, version = prov["chapter"], prov.get("measuring_version", 1)
        if (chapter, version) not in hashes:  # once per chapter: many records share one
            try:
                hashes[chapter, version] = measuring_hash(root, chapter, version)
            except OSError:  # the chapter is gone
                hashes[chapter, version] = None
        now = hashes[chapter, version]
        prov["stale"] = now != prov.get("measuring_hash")
        figs = prov_path.parent / "figures.json"
        try:
            prov["figures"] = json.loads(figs.read_text()) if figs.exists() else []
        except ValueError:
            report(f"damaged file {figs}; its figures are left out")
            prov["figures"] = []
        prov["path"] = str(prov_path.parent.relative_to(root))
        out.append(prov)
    return out


def seed_verdicts(
    root: Path, loaded: list[dict] | None = None
) -> dict[int, dict[str, str]]:
    """Per master seed, the verdict of each training claim in the ``seeds`` records that
    are not stale (seed 0: the book ledger kept beside them); ``loaded``: :func:`load`'s
    answer, where the caller has it."""
    out: dict[int, dict[str, str]] = {}
    for r in load(root) if loaded is None else loaded:
        if r.get("kind") != "seeds" or r["stale"] or r.get("master_seed") is None:
            continue
        if r.get("superseded"):  # shown beside the draw that counts, never counted
            continue
        seed = int(r["master_seed"])
        kept = [c for c in r["claims"] if not c.get("rule_changed")]
        out.setdefault(seed, {}).update({c["id"]: c["verdict"] for c in kept})
    return out


def record_ledger(root: Path, ledger: Path, seed: int = 0) -> list[Path]:
    """Keep the book build's ledger (master seed ``seed``) as ``seeds`` records, one per
    training chapter, beside the other seeds."""
    root = Path(root)
    claims = json.loads(Path(ledger).read_text())
    out = []
    for chapter in training_chapters(root):
        mine = [
            c
            for c in claims
            if c.get("chapter") == f"notebooks/{chapter}" and c.get("trained")
        ]
        if mine:
            params = {"profile": mine[0].get("profile"), "seed": seed}
            out.append(write(root, "seeds", chapter, f"seed-{seed}", mine, params, 0.0))
    return out


SCALES = ("cpu", "gpu")
_SLICE_KEYS = {"claims", "parameters", "scale", "seed", "why", "minutes", "figures"}
_SLICE_KEYS |= {"kind", "shard", "merge", "check"}  # a record in shards (.shards)


def slices(root: Path, chapter: str) -> dict[str, dict]:
    """The record slices a chapter's claims file declares under ``records:``::

    records:
      fig2-mnist:                      # the slice's name
        claims: [lsc.fig2.lsc-best]    # the claims it decides
        scale: cpu                     # cpu | gpu
        seed: 104                      # its own master seed, never run before
        parameters: {seeds: 16}        # the sizes, declared before it runs
        minutes: 40                    # the expected wall time at that scale
        why: "..."                     # the power analysis behind the sizes

    A confirmatory slice runs in shards and says how its values join
    (:mod:`rnnbook.book.shards`: ``kind``, ``shard``, ``merge``, ``check``).
    """
    import yaml

    path = _claims.claims_file(chapter, Path(root))
    data = yaml.safe_load(path.read_text()) or {}
    raw = data.get("records") or {}
    declared = _claims.load(path, chapter)
    out = {}
    for name, s in raw.items():
        where = f"{path.name}: record slice {name!r}"
        if not isinstance(s, dict) or set(s) - _SLICE_KEYS:
            raise _claims.ClaimError(f"{where} takes only {sorted(_SLICE_KEYS)}")
        if s.get("scale") not in SCALES or not isinstance(s.get("seed"), int):
            raise _claims.ClaimError(f"{where} needs 'scale' in {SCALES} and a 'seed'")
        unknown = [c for c in s.get("claims") or [] if c not in declared]
        if unknown or not s.get("claims"):
            raise _claims.ClaimError(f"{where}: claims {unknown} are not declared here")
        out[name] = check_slice(where, {"parameters": {}, **s}, declared)
    return out


def declared(root: Path) -> dict[str, list[dict]]:
    """Per claim id, the record slices that declare it (:func:`slices`), each with its
    ``chapter`` and ``name``: what the box shows as pre-registered before a record runs."""
    out: dict[str, list[dict]] = {}
    for chapter in training_chapters(root):
        for name, s in slices(root, chapter).items():
            for cid in s["claims"]:
                out.setdefault(cid, []).append({**s, "chapter": chapter, "name": name})
    return out


def confirmatory(root: Path, loaded: list[dict] | None = None) -> dict[str, list[dict]]:
    """Per claim id, its confirmatory slices as they stand: each ``{chapter, name, slice,
    state}`` (:func:`rnnbook.book.shards.state`: shards in, started, void) and, once
    decided, its ``record`` (:func:`load`) and ``claim`` (the claim in it)."""
    from . import shard_plan as shards

    loaded = load(root) if loaded is None else loaded
    out: dict[str, list[dict]] = {}
    for cid, found in declared(root).items():
        for s in found:
            if s.get("kind") != "confirmatory":
                continue
            where = (s["scale"], s["chapter"], s["name"])
            st = shards.state(Path(root) / RESULTS, *where, s)
            rec = next(
                (
                    r
                    for r in loaded
                    if (r.get("kind"), r.get("chapter"), r.get("name")) == where
                    and r.get("design") == "confirmatory"
                ),
                None,
            )
            claim = next(
                (c for c in (rec or {}).get("claims", []) if c["id"] == cid), None
            )
            entry = {
                "chapter": s["chapter"],
                "name": s["name"],
                "slice": s,
                "state": st,
            }
            out.setdefault(cid, []).append(entry | {"record": rec, "claim": claim})
    return out


def no_replication(root: Path, claim_id: str, chapter: str | None) -> str | None:
    """Why claim ``claim_id`` gets no confirmatory record (its ``power: {replication:
    ...}``: its data admit no independent replication), or ``None``."""
    if not chapter:
        return None
    try:
        found = _claims.load(
            _claims.claims_file(chapter.removeprefix("notebooks/"), Path(root)), chapter
        )
    except (_claims.ClaimError, OSError):
        return None
    d = found.get(claim_id)
    why = ((d.power or {}).get("replication") if d else None) or None
    return " ".join(str(why).split()) if why else None


def confirmatory_words(c: dict) -> str:
    """Where one confirmatory record of a claim stands, in words."""
    from . import shard_plan as shards

    st, rec, claim = c["state"], c["record"], c["claim"]
    name = f"{c['chapter']}:{c['name']}"
    if claim is not None and rec.get("stale"):
        return f"its confirmatory record {name} is stale: its code changed since it ran"
    if claim is not None and claim.get("rule_changed"):
        return f"its confirmatory record {name} ran under an earlier rule"
    if claim is not None:
        return f"its confirmatory record {name}, decided {rec['date']}"
    if st["void"]:
        return f"its confirmatory record {name} is {shards.progress_text(st)}"
    if not st["done"]:
        return f"its confirmatory record {name} is declared, not yet started"
    if st["complete"]:
        return f"every shard of its confirmatory record {name} is in, not yet decided"
    return f"its confirmatory record {name}: {shards.progress_text(st)}"


def gate_failed(c: dict) -> bool:
    """Whether a decided confirmatory record's gate did not hold for the claim: the
    experiment did not run as its declaration requires (e.g. its runs did not finish), so
    the record decided nothing."""
    return (c["claim"].get("trained") or {}).get("passed") is False


def counting_records(mine: list[dict]) -> list[dict]:
    """A claim's decided confirmatory records that can count (not stale, not under an
    earlier rule), the one that counts first: the first declared whose gate held, else the
    first declared. A record whose gate held is never replaced by a later one (no record is
    re-drawn for its outcome); one whose gate failed decided nothing, and a later record,
    declared on a new master seed with a configuration that lets the gate hold, counts in
    its place once decided."""
    ok = [
        c
        for c in mine
        if c["claim"] is not None
        and not c["record"].get("stale")
        and not c["claim"].get("rule_changed")
    ]
    return sorted(ok, key=gate_failed)  # stable: declared order within each group


def counting_verdict(
    root: Path,
    claim_id: str,
    ledger_claim: dict,
    loaded: list[dict] | None = None,
    conf: dict | None = None,
) -> dict:
    """The verdict that counts for a claim, the one the scorecard, the bottom lines and
    the box show: its confirmatory record's once that is decided (and not stale; of
    several, :func:`counting_records` says which), else the book's own run's (``ledger_claim``), which is exploratory. Returns ``{verdict,
    kind, why, book_verdict}`` (``kind``: ``confirmatory`` or ``exploratory``), and for a
    confirmatory verdict the record's ``seeds``, ``effects``, ``trained`` (its gate) and
    ``path``."""
    conf = confirmatory(root, loaded) if conf is None else conf
    book = ledger_claim.get("verdict")
    mine = conf.get(claim_id, [])
    counts = counting_records(mine)
    if counts:
        c = counts[0]
        claim, rec = c["claim"], c["record"]
        why = (
            f"{confirmatory_words(c)}: {claim.get('seeds')} seeds at master seed "
            f"{rec.get('master_seed')}, declared before its first shard"
        )
        if gate_failed(c):
            why += "; its gate did not hold, so it decided nothing"
        return {
            "verdict": claim["verdict"],
            "kind": "confirmatory",
            "why": why,
            "book_verdict": book,
            "seeds": claim.get("seeds"),
            "effects": claim.get("effects") or [],
            "trained": claim.get("trained"),
            "path": rec.get("path"),
        }
    seed = ledger_claim.get("profile") or "book"
    why = f"exploratory: the {seed} run at master seed 0, whose rules were set after a look"
    alone = no_replication(root, claim_id, ledger_claim.get("chapter"))
    notes = [confirmatory_words(c) for c in mine] or [
        f"no confirmatory record: {alone}" if alone else "no confirmatory record yet"
    ]
    why += "; " + "; ".join(notes)
    return {"verdict": book, "kind": "exploratory", "why": why, "book_verdict": book}


def counting(
    root: Path | None, claims: list[dict], loaded: list[dict] | None = None
) -> list[dict]:
    """The claims with the verdict that counts (:func:`counting_verdict`) in ``verdict``
    and ``counting`` beside it (kind, why, the book's verdict); a claim that is not a
    training claim keeps its verdict."""
    if root is None or not any(c.get("trained") for c in claims):
        return list(claims)
    conf = confirmatory(root, loaded)
    out = []
    for c in claims:
        if c.get("trained"):
            v = counting_verdict(root, c["id"], c, loaded, conf)
            c = {**c, "verdict": v["verdict"], "counting": v}
        out.append(c)
    return out


def at_scale(root: Path, loaded: list[dict] | None = None) -> dict[str, list[dict]]:
    """Per claim id, its records at the ``cpu`` and ``gpu`` scales, those whose gate held
    first (a record whose gate failed decided nothing), then the largest (``gpu`` before
    ``cpu``, then the most seeds, then the newest), each ``{verdict, effects, seeds, stale,
    provenance}``."""
    out: dict[str, list[dict]] = {}
    for r in load(root) if loaded is None else loaded:
        if r.get("kind") not in SCALES or r.get("superseded"):
            continue
        prov = {k: v for k, v in r.items() if k != "claims"}
        for c in r["claims"]:
            out.setdefault(c["id"], []).append({**c, "record": prov})
    order = {s: i for i, s in enumerate(reversed(SCALES))}
    for recs in out.values():
        recs.sort(key=lambda x: x["record"]["date"], reverse=True)  # newest first ...
        # ... within the largest first: gpu before cpu, then the most seeds
        recs.sort(key=lambda x: (order[x["record"]["kind"]], -(x.get("seeds") or 0)))
        # ... after every record whose gate held
        recs.sort(key=lambda x: (x.get("trained") or {}).get("passed") is False)
    return out


def record_run(
    root: Path,
    chapter: str,
    run: Path,
    seed: int,
    seconds: float,
    extra=(),
    measured_with: str | None = None,
) -> Path:
    """Keep a finished ``book`` run of a chapter at master seed ``seed`` (its folder under
    ``_build/runs/``) as that seed's record without running it again; ``extra``: other run
    folders whose claims folders may hold some of this chapter's claims (each claim names
    its chapter)."""
    found: dict[str, dict] = {}
    for folder in (Path(run), *map(Path, extra)):
        for path in sorted((folder / "claims").glob("*.json")):
            c = json.loads(path.read_text())
            found.setdefault(c["id"], c)
    mine = [
        c
        for c in found.values()
        if c.get("chapter") == f"notebooks/{chapter}" and c.get("trained") is not None
    ]
    params = {"profile": "book", "seed": seed}
    name = f"seed-{seed}"
    return write(
        root, "seeds", chapter, name, mine, params, seconds, measured_with=measured_with
    )


#: Which draw counts where one run was drawn twice (issue 49: every draw is kept)
DRAW_RULE = (
    "Where the same run (chapter, master seed and sizes) was drawn twice, the draw on the "
    "book's fixed code paths counts; a draw made before them, on a processor's own code "
    "paths, is superseded: it is kept, shown beside the draw that counts, labelled with "
    "why, and left out of every count."
)


def superseded(root: Path, loaded: list[dict] | None = None) -> dict[str, list[dict]]:
    """Per claim id, the superseded draws that hold it (a record whose provenance has
    ``superseded: {by, on, why}``, kept under a name that says so, e.g.
    ``results/seeds/<chapter>/seed-0-superseded-<date>/``): each the claim as that draw
    decided it, with its ``record`` (provenance). :func:`seed_verdicts` and
    :func:`at_scale` leave them out (:data:`DRAW_RULE`)."""
    out: dict[str, list[dict]] = {}
    for r in load(root) if loaded is None else loaded:
        if not r.get("superseded"):
            continue
        prov = {k: v for k, v in r.items() if k != "claims"}
        for c in r["claims"]:
            out.setdefault(c["id"], []).append({**c, "record": prov})
    return out
