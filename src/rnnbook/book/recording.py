"""Running records (:mod:`.records` keeps and reads them): one declared slice of a chapter at
its record scale, and the seed check (every training chapter at other master seeds), each
chapter in a process of its own."""

from __future__ import annotations

import json
import time
from pathlib import Path

from . import claims as _claims
from .records import (
    SCALES,
    figures_of,
    measuring_hash,
    record_run,
    slices,
    training_chapters,
    write,
)

__all__ = ["run_record", "run_seeds", "SCALES"]


def _seed_run(item) -> Path:
    """One chapter at one master seed, in a process of its own: running a chapter sets the
    process's environment (its claims folder among it), so two at once in one process
    would write each other's claims."""
    root, chapter, seed = item
    from .pipeline import run_chapter

    t0, measured_with = time.time(), measuring_hash(Path(root), chapter)
    nb = run_chapter(Path(root), chapter, {"seed": seed}, log=print)
    secs = time.time() - t0
    return record_run(root, chapter, nb.parent, seed, secs, measured_with=measured_with)


def run_seeds(
    root: Path,
    seeds: list[int],
    jobs: int = 2,
    log=print,
    only: list[str] | None = None,
) -> list[Path]:
    """Run every training chapter (``only``: those named) at the ``book`` profile at each
    master seed in ``seeds`` and record it (kind ``seeds``); ``jobs`` chapters at a time,
    each in its own process, the longest first."""
    import multiprocessing as mp
    from concurrent.futures import ProcessPoolExecutor

    from .scale_box import committed_seconds

    root = Path(root).resolve()
    chapters = [c for c in training_chapters(root) if not only or c in only]
    secs = committed_seconds().get("book", {})
    chapters.sort(key=lambda c: -secs.get(f"notebooks/{c}", 0))
    work = [(str(root), ch, s) for ch in chapters for s in seeds]
    ctx = mp.get_context("spawn")
    with ProcessPoolExecutor(max_workers=max(1, jobs), mp_context=ctx) as pool:
        return list(pool.map(_seed_run, work))


def run_record(
    root: Path,
    target: str,
    scale: str,
    log=print,
    device: str | None = None,
    sizes: dict | None = None,
    results: Path | None = None,
) -> Path:
    """Run one declared slice (``CHAPTER:SLICE``) at its record scale and write it,
    ready to commit, under ``results/<scale>/<chapter>/<slice>/``.

    ``sizes`` replaces the declared sizes (the tests' smoke-size record: ``{"profile":
    "smoke"}`` runs the slice's path end to end at smoke sizes, with the slice's own master
    seed); such a record is of kind ``<scale>-smoke`` and goes under ``results`` (a folder
    of the caller's, e.g. the tests' temporary one), never among the committed records."""
    from .chapter import recorded_device
    from .pipeline import run_chapter

    root = Path(root).resolve()
    chapter, _, name = target.partition(":")
    declared = slices(root, chapter)
    if name not in declared:
        raise _claims.ClaimError(
            f"record: {chapter} declares no slice {name!r}; declared: "
            f"{', '.join(declared) or 'none'}"
        )
    s = declared[name]
    if s["scale"] != scale:
        raise _claims.ClaimError(
            f"record: slice {name!r} is declared at scale {s['scale']!r}, not {scale!r}"
        )
    if sizes is not None and results is None:
        raise ValueError(
            "record: a record at other sizes needs its own 'results' folder"
        )
    params = {"profile": "book", **(s["parameters"] if sizes is None else sizes)}
    params["seed"] = s["seed"]
    if device:
        params["device"] = device
    t0, measured_with = time.time(), measuring_hash(root, chapter)
    nb = run_chapter(root, chapter, params, log=log)
    claims = json.loads((nb.parent / "claims.json").read_text())
    mine = [c for c in claims if c["id"] in s["claims"]]
    kind = scale if sizes is None else f"{scale}-smoke"
    ran_on = recorded_device(nb) or {}
    figures = figures_of(nb, s.get("figures") or [])
    return write(
        root,
        kind,
        chapter,
        name,
        mine,
        params,
        time.time() - t0,
        ran_on.get("name") or device or "cpu",
        results=results,
        figures=figures,
        measured_with=measured_with,
    )
