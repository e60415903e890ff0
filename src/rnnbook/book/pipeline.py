"""The build pipeline (ARCHITECTURE.md, *Pipeline*).

1. Jupytext turns each chapter source under ``notebooks/`` into a notebook with the ``python3`` kernel;
2. papermill executes it with the parameters of a profile, in parallel over the machine's cores, into the
   git-ignored build folder ``_build/`` (a failing cell fails the build with the chapter and traceback);
3. the claim records are collected into ``_build/claims.json`` and the generated pages (scorecard, errata
   evidence, status) are written;
4. ``jupyter-book build -W -n --keep-going`` renders ``_build/stage`` into ``_build/html``.

Nothing is written outside ``<root>/_build``.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from ..cache import clear_result_caches, write_atomic
from . import arithmetic
from . import execution_cache as xc
from . import ledger
from . import pages, reference
from .execution import Executor, LocalPool, execute_job
from .params import PROFILES, ParameterError
from .progress import Progress
from .spec import notebook_parameters  # noqa: F401 - read here, and by shards

SOURCE_SUFFIXES = (".py", ".md")
COSTS = Path(__file__).with_name("chapter_seconds.yaml")


class BuildError(RuntimeError):
    """A chapter failed or the book did not render."""


@dataclass(frozen=True)
class Chapter:
    name: str  # e.g. "notebooks/lsc/lemma2_paths", as in _toc.yml
    source: Path  # the Jupytext source

    @property
    def short(self) -> str:
        return self.name.removeprefix("notebooks/")


def _toc_files(node: Any) -> list[str]:
    out = []
    if isinstance(node, dict):
        if isinstance(node.get("file"), str):
            out.append(node["file"])
        for v in node.values():
            out += _toc_files(v)
    elif isinstance(node, list):
        for v in node:
            out += _toc_files(v)
    return out


def chapters(root: Path) -> list[Chapter]:
    """The chapters listed in ``_toc.yml`` (entries under ``notebooks/``), in the table's order."""
    toc = yaml.safe_load((root / "_toc.yml").read_text())
    found = []
    for name in _toc_files(toc):
        name = (
            str(Path(name).with_suffix(""))
            if Path(name).suffix in SOURCE_SUFFIXES + (".ipynb",)
            else name
        )
        if not name.startswith("notebooks/"):
            continue
        sources = [
            root / f"{name}{s}"
            for s in SOURCE_SUFFIXES
            if (root / f"{name}{s}").exists()
        ]
        if len(sources) != 1:
            raise BuildError(
                f"chapter {name} in _toc.yml needs exactly one source ({' or '.join(SOURCE_SUFFIXES)})"
            )
        found.append(Chapter(name, sources[0]))
    return found


def find_chapter(root: Path, name: str) -> Chapter:
    want = name.removeprefix("notebooks/").removesuffix(".py").removesuffix(".md")
    for ch in chapters(root):
        if ch.short == want:
            return ch
    from .spec import did_you_mean

    shorts = [c.short for c in chapters(root)]
    raise ParameterError(
        f"chapter {name!r} is not in _toc.yml{did_you_mean(want, shorts)}; the chapters "
        "are: " + ", ".join(shorts)
    )


def check_parameters(chapter: Chapter, given: dict[str, Any]) -> None:
    """Unknown names stop the run before any kernel starts (papermill would only warn). A name
    of the chapter's ``SPEC`` that its parameters cell leaves out is settable too (papermill
    injects it and ``start`` reads it)."""
    known = notebook_parameters(chapter.source)
    if any(name not in known for name in given):
        from .spec import chapter_spec

        try:
            known = {**known, **chapter_spec(chapter.source)}
        except ParameterError:  # a chapter without a SPEC
            pass
    for name in given:
        if name not in known:
            raise ParameterError(
                f"unknown parameter {name!r} for chapter {chapter.short}; "
                f"its parameters are: {', '.join(known)}"
            )
    if "profile" in given and given["profile"] not in PROFILES:
        raise ParameterError(
            f"parameter 'profile' = {given['profile']!r}: must be one of "
            + ", ".join(map(repr, PROFILES))
        )


def chapter_threads() -> int:
    """Threads per chapter kernel: 1, whatever the machine (``RNNBOOK_THREADS`` overrides).

    Parallel reductions round differently with another thread count, so a chapter's numbers, and
    with them a verdict near its threshold, would depend on the machine and on ``--jobs``; one
    thread per chapter, and one chapter per core, keeps ``claims.json`` the same everywhere."""
    raw = os.environ.get("RNNBOOK_THREADS", "1")
    if not raw.isdigit() or int(raw) < 1:
        raise BuildError(f"RNNBOOK_THREADS must be a positive integer, got {raw!r}")
    return int(raw)


def _kernel_env(
    build: Path,
    chapter: Chapter,
    threads: int,
    claims_dir: Path | None = None,
    root: Path | None = None,
) -> dict[str, str]:
    root = root or build.parent
    env = {
        "RNNBOOK_BUILD_DIR": str(build),
        "RNNBOOK_ROOT": str(root),
        # the book's own sources first (the package is also installed from there, editable)
        "PYTHONPATH": os.pathsep.join(
            p for p in (str(root / "src"), os.environ.get("PYTHONPATH")) if p
        ),
        "RNNBOOK_CHAPTER": chapter.name,
        "RNNBOOK_QUIET": "1",
        "MPLCONFIGDIR": str(build / ".cache" / "matplotlib"),
        "MPLBACKEND": "module://matplotlib_inline.backend_inline",
        "OMP_NUM_THREADS": str(threads),
        "MKL_NUM_THREADS": str(threads),
        **arithmetic.env(),  # the same code paths on every machine
        "PYDEVD_DISABLE_FILE_VALIDATION": "1",
        "JUPYTER_PLATFORM_DIRS": "1",
    }
    env["RNNBOOK_CLAIMS_DIR"] = str(
        claims_dir if claims_dir is not None else build / "claims"
    )
    return env


def _report_failure(result: dict, profile: str) -> str:
    e = result["error"]
    where = f"cell [{e['cell']}]" if e["cell"] is not None else "the kernel"
    return (
        f"\nFAILED: chapter {result['chapter']} (profile {profile}) in {where}: {e['ename']}: {e['evalue']}\n"
        f"{e['traceback']}\n"
    )


def expected_seconds(build: Path, profile: str) -> dict[str, float]:
    """Each chapter's expected run time at ``profile``: the last build's own timings where this
    build folder has them, else the committed measurements of ``chapter_seconds.yaml`` (a build on
    a 2-core machine), so that a fresh clone also starts its longest chapters first. A profile
    without committed measurements (the paper profile, its dry run) uses the book's: the
    chapters' relative costs carry over."""
    shipped = yaml.safe_load(COSTS.read_text()) or {}
    expected = dict(shipped.get(profile) or shipped.get("book") or {})
    timings = _read_json(build / "timings.json", {})
    if timings.get("profile") in (None, profile):
        for name, t in timings.get("chapters", {}).items():
            if t.get("seconds"):
                expected[name] = t["seconds"]
    return expected


def longest_first(chs: list[Chapter], build: Path, profile: str) -> list[Chapter]:
    """The chapters ordered by expected run time, longest first (ties keep the table's order):
    the parallel run then ends about when its longest chapter does, not later."""
    expected = expected_seconds(build, profile)
    return sorted(chs, key=lambda c: -expected.get(c.name, 0.0))


def execute_chapters(
    root: Path,
    profile: str,
    jobs: int | None = None,
    overrides: dict[str, Any] | None = None,
    log=print,
    force: bool = False,
    executor: Executor | None = None,
    build_dir: Path | None = None,
    env: dict[str, str] | None = None,
    keep_going: bool = False,
    only: list[str] | None = None,
) -> list[dict]:
    """Run the chapters of ``_toc.yml`` at ``profile`` whose inputs changed since their cached run
    (all of them with ``force``); reuse the others. Raises BuildError naming each failed chapter
    (``keep_going``: returns the failures among the results instead). The caller holds the build
    folder's lock (:func:`~rnnbook.book.execution_cache.build_lock`).

    ``executor``: where the chapters run, an :class:`~rnnbook.book.execution.Executor`; ``None``
    is a :class:`~rnnbook.book.execution.LocalPool` of ``jobs`` processes (default: one per core).
    A Dask cluster is :class:`rnnbook.book.distributed.DaskExecutor`. Each job writes into a
    folder of this build's own (``_build/running/``); a chapter's notebook and claims reach the
    cache and the stage only from a run that ended, so a killed build leaves nothing half
    written for the next one. ``only``: run just these chapters (names as ``lsc/deep_rnns``)."""
    build = build_dir or root / "_build"
    if executor is not None and not callable(getattr(executor, "run", None)):
        raise TypeError(
            f"executor {executor!r} is not an Executor: pass LocalPool(jobs), or wrap a Dask "
            "cluster or scheduler address in rnnbook.book.distributed.DaskExecutor"
        )
    chs = chapters(root) if only is None else [find_chapter(root, n) for n in only]
    index, cache = xc.ModuleIndex(xc.local_src(root)), xc.Cache(build)
    cache.sweep()  # what a killed build left half written
    xc.guard_result_caches(build, index, log)
    running_dir = build / "running"
    shutil.rmtree(running_dir, ignore_errors=True)
    bid = xc.build_id(root)
    if force:  # everything is recomputed: the stored experiment runs too
        clear_result_caches(build)
    chs = longest_first(chs, build, profile)
    plan, results = [], []
    for ch in chs:
        params = {"profile": profile, **(overrides or {})}
        check_parameters(ch, params)
        key = xc.chapter_key(root, ch, params, index)
        out = build / "stage" / f"{ch.name}.ipynb"
        claims = build / "claims" / ch.short
        hit = None if force else cache.lookup(ch.name, key)
        damage = cache.damaged.pop(ch.name, None)
        if hit is not None:
            try:
                edited = cache.restore(ch.name, key, ch.source, out, claims)
            except Exception as e:  # read whole, yet not a notebook of this chapter
                hit, damage = None, f"not readable: {type(e).__name__}: {e}"[:200]
                cache.discard(ch.name, key)
        if hit is not None:
            why = (
                "code unchanged, prose edited and re-rendered"
                if edited
                else "unchanged"
            )
            log(f"  reused {ch.name}: {why} since the build of {hit['build']}")
            results.append(
                {
                    "chapter": ch.name,
                    "seconds": hit["seconds"],
                    "error": None,
                    "reused": hit["build"],
                    "peak_mb": hit.get("peak_mb"),
                    "cpu_seconds": hit.get("cpu_seconds"),
                }
            )
            continue
        if damage == xc.NO_CHECKSUMS:
            why = f"its cached run has {damage}"
        elif damage is not None:
            log(f"  damaged cache entry of {ch.name} ({damage}): running it again")
            why = f"its cached run was damaged ({damage})"
        elif force:
            why = "--force"
        else:
            why = xc.why_changed(cache.last_parts(ch.name), key.parts)
        plan.append((ch, params, key, out, claims, why))
    threads = chapter_threads()
    if executor is None:
        executor = LocalPool(min(jobs or os.cpu_count() or 1, len(plan) or 1))
    job_list = []
    for ch, params, key, out, claims, why in plan:
        shutil.rmtree(claims, ignore_errors=True)
        private = running_dir / f"{os.getpid()}"
        job_list.append(
            {
                "chapter": ch.name,
                "source": str(ch.source),
                "source_name": str(ch.source.relative_to(root)),
                "parameters": params,
                "output": str(private / "stage" / f"{ch.name}.ipynb"),
                "cwd": str(build / "work" / ch.short),
                "env": {
                    **_kernel_env(
                        build,
                        ch,
                        threads,
                        claims_dir=private / "claims" / ch.short,
                        root=root,
                    ),
                    **(env or {}),
                },
            }
        )
    log(
        f"executing {len(job_list)} of {len(chs)} chapter(s) at profile '{profile}' "
        f"on {executor.describe()}"
    )
    by_name = {p[0].name: p for p in plan}
    jobs_by_name = {j["chapter"]: j for j in job_list}

    def done(r: dict) -> None:
        ch, params, key, out, claims, why = by_name[r["chapter"]]
        job = jobs_by_name[r["chapter"]]
        where = f" on {r['worker']}" if r.get("worker") else ""
        ok = r["error"] is None
        if ok:
            ran_nb = Path(job["output"])
            ran_claims = Path(job["env"]["RNNBOOK_CLAIMS_DIR"])
            ran_claims.mkdir(parents=True, exist_ok=True)
            meta = dict(peak_mb=r.get("peak_mb"), cpu_seconds=r.get("cpu_seconds"))
            try:
                cache.store(ch.name, key, ran_nb, ran_claims, r["seconds"], bid, **meta)
            except OSError as e:  # a full disk: the book still gets this run
                log(f"  could not keep {ch.name} in the cache: {e}")
            out.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ran_nb, out)
            shutil.rmtree(claims, ignore_errors=True)
            shutil.copytree(ran_claims, claims)
        progress.finish(r["chapter"], r["seconds"], ok, f"{where}: {why}")
        results.append({**r, "reason": why})

    if job_list:
        progress = Progress.for_terminal(
            log,
            total=len(job_list),
            expected=expected_seconds(build, profile),
            workers=getattr(executor, "jobs", len(job_list)),
        )
        progress.queue([j["chapter"] for j in job_list])
        try:
            executor.run(job_list, lambda j: progress.start(j["chapter"]), done)
        finally:
            progress.close()
        shutil.rmtree(running_dir, ignore_errors=True)
    failed = [r for r in results if r["error"] is not None]
    if failed and not keep_going:
        raise BuildError(
            "".join(_report_failure(r, profile) for r in failed)
            + f"\n{len(failed)} chapter(s) failed: "
            + ", ".join(r["chapter"] for r in failed)
        )
    return results


def _read_json(path: Path, default: Any) -> Any:
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return default


def stage_sources(root: Path) -> Path:
    """Copy the configuration and the hand-written pages into ``_build/stage`` (the Sphinx source)."""
    stage = root / "_build" / "stage"
    stage.mkdir(parents=True, exist_ok=True)
    for name in ("_config.yml", "_toc.yml"):
        shutil.copy2(root / name, stage / name)
    if (stage / "book").exists():
        shutil.rmtree(stage / "book")
    shutil.copytree(root / "book", stage / "book")
    return stage


def render(root: Path, log=print) -> Path:
    """``jupyter-book build -W -n --keep-going`` of the stage; returns the HTML folder."""
    jb = Path(sys.executable).parent / "jupyter-book"
    cmd = [
        str(jb) if jb.exists() else "jupyter-book",
        "build",
        str(root / "_build" / "stage"),
        "--path-output",
        str(root),
        "-W",
        "-n",
        "--keep-going",
    ]
    log("rendering: " + " ".join(cmd[1:]))
    env = {**os.environ, "MPLCONFIGDIR": str(root / "_build" / ".cache" / "matplotlib")}
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if proc.returncode != 0:
        raise BuildError(
            "jupyter-book failed:\n" + proc.stdout[-6000:] + proc.stderr[-6000:]
        )
    return root / "_build" / "html"


def build(
    root: Path,
    profile: str,
    jobs: int | None = None,
    html: bool = True,
    log=print,
    force: bool = False,
    executor: Executor | None = None,
) -> Path:
    """The whole pipeline; returns the HTML folder (or the build folder with ``html=False``).

    Chapters whose inputs did not change since their cached run are reused (``force``: run all).
    One build at a time per folder: a second one waits for the first (then reuses its runs)."""
    root = root.resolve()
    if profile not in PROFILES:
        raise ParameterError(
            f"parameter 'profile' = {profile!r}: must be one of {', '.join(map(repr, PROFILES))}"
        )
    build_dir = root / "_build"
    with xc.build_lock(build_dir, log=log):
        return _build(root, build_dir, profile, jobs, html, log, force, executor)


def _build(root, build_dir, profile, jobs, html, log, force, executor) -> Path:
    for stale in ("claims", "stage/notebooks"):
        shutil.rmtree(build_dir / stale, ignore_errors=True)
    (build_dir / "claims").mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    results = execute_chapters(
        root, profile, jobs, log=log, force=force, executor=executor
    )
    wall = time.perf_counter() - t0
    claims = ledger.collect(build_dir / "claims")
    write_atomic(build_dir / "claims.json", json.dumps(claims, indent=1))
    ran = [r for r in results if not r.get("reused")]
    workers = max(1, min(jobs or os.cpu_count() or 1, len(ran) or 1))
    timings = {
        "profile": profile,
        "wall_seconds": wall,
        "jobs": workers,
        "threads_per_chapter": chapter_threads(),
        "chapters": {
            r["chapter"]: {
                "seconds": r["seconds"],
                "reused": r.get("reused"),
                "reason": r.get("reason"),
                "cpu_seconds": r.get("cpu_seconds"),
                "peak_mb": r.get("peak_mb"),
            }
            for r in results
        },
    }
    write_atomic(build_dir / "timings.json", json.dumps(timings, indent=1))
    log(f"{len(claims)} claim(s) -> {build_dir / 'claims.json'}")
    stage = stage_sources(root)
    pages.write_generated(
        stage / "book" / "_generated", claims, timings, chapters(root)
    )
    reference.write_pages(stage, chapters(root))
    if not html:
        return build_dir
    out = render(root, log=log)
    log(f"\nThe book is built: open {out / 'index.html'}")
    return out


def dry_run(
    root: Path,
    profile: str = "paper",
    steps: int = 2,
    jobs: int | None = None,
    log=print,
    repeats: int = 2,
    samples: int = 256,
    only: list[str] | None = None,
) -> dict[str, dict]:
    """Every chapter at ``profile`` (the papers' sizes) with its training lengths capped at
    ``steps``, its repetition counts (:func:`~rnnbook.book.params.Repeats`) at ``repeats`` and its
    evaluation-set sizes (:func:`~rnnbook.book.params.Samples`) at ``samples``:
    shapes, memory and code paths exercised in minutes. Writes into ``_build/dry-run/``
    (its verdicts mean nothing and never reach the book); returns time and peak memory per chapter.
    ``only``: these chapters alone; the report keeps the other chapters' last entries (each says
    when it ran and at which caps), so a dry run can be done a few chapters at a time."""
    root = root.resolve()
    build = root / "_build" / "dry-run"
    caps = {"profile": profile, "steps": steps, "repeats": repeats, "samples": samples}
    started = time.time()
    with xc.build_lock(build, log=log):
        if only is None:
            shutil.rmtree(build / "claims", ignore_errors=True)
        results = execute_chapters(
            root,
            profile,
            jobs,
            log=log,
            force=True,
            build_dir=build,
            env={
                "RNNBOOK_DRY_RUN": str(steps),
                "RNNBOOK_DRY_RUN_REPEATS": str(repeats),
                "RNNBOOK_DRY_RUN_SAMPLES": str(samples),
            },
            keep_going=True,
            only=only,
        )
    wall = time.time() - started
    when = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    report = {
        r["chapter"]: {
            "seconds": round(r["seconds"], 1),
            "cpu_seconds": round(r.get("cpu_seconds") or 0.0, 1),
            "peak_mb": round(r.get("peak_mb") or 0.0),
            "error": None
            if r["error"] is None
            else f"{r['error']['ename']}: {r['error']['evalue']}"[:300],
            "when": when,
            **caps,
        }
        for r in results
    }
    old = _read_json(build / "report.json", {}) if only is not None else {}
    chapters_ = {k: v for k, v in old.get("chapters", {}).items() if "when" in v}
    chapters_.update(report)
    whole = (
        {"wall_seconds": round(wall, 1), "jobs": jobs, **caps} if only is None else {}
    )
    whole = whole or old.get("build", {})
    write_atomic(
        build / "report.json",
        json.dumps({"build": whole, "chapters": chapters_}, indent=1),
    )
    log(
        f"dry run of profile '{profile}' (training capped at {steps} steps, repetitions"
        f" at {repeats}, evaluation sets at {samples} examples), {wall / 60:.1f} min wall:"
    )
    for name, r in sorted(chapters_.items()):
        log(
            f"  {name:45s} {r['seconds']:8.1f} s wall {r['cpu_seconds']:8.1f} s CPU"
            f" {r['peak_mb']:7.0f} MB peak"
            + (f"  FAILED {r['error']}" if r["error"] else "")
            + ("" if name in report else f"  (from {r['when']})")
        )
    failed = [r for r in results if r["error"] is not None]
    if failed:
        raise BuildError(
            "".join(_report_failure(r, profile) for r in failed)
            + f"\n{len(failed)} chapter(s) failed the dry run (report: {build / 'report.json'})"
        )
    return report


def run_chapter(
    root: Path,
    name: str,
    overrides: dict[str, Any],
    log=print,
    env: dict[str, str] | None = None,
) -> Path:
    """Re-run one chapter with new parameters into ``_build/runs/<chapter>/<slug>/`` (notebook + claims);
    ``env``: variables the kernel gets besides its own (a shard's build folder)."""
    root = root.resolve()
    ch = find_chapter(root, name)
    params = {"profile": "book", **overrides}
    check_parameters(ch, params)
    out_dir = run_folder(root, ch, params)
    slug = out_dir.name
    out_dir.parent.mkdir(parents=True, exist_ok=True)
    # two runs of one chapter with the same parameters share a folder: one at a time
    with xc.build_lock(out_dir.parent / f".{slug}", log=log):
        return _run_chapter(root, ch, params, out_dir, log, env)


def run_folder(root: Path, ch: Chapter, params: dict[str, Any]) -> Path:
    """``_build/runs/<chapter>/<slug>/``: the folder of a run of ``ch`` with ``params``."""
    slug = "__".join(f"{k}={v}" for k, v in sorted(params.items()))
    slug = re.sub(r"[^A-Za-z0-9_.=+-]+", "_", slug)[:120]
    return root / "_build" / "runs" / ch.short / slug


def _run_chapter(
    root: Path, ch: Chapter, params: dict[str, Any], out_dir: Path, log, env=None
) -> Path:
    shutil.rmtree(out_dir, ignore_errors=True)
    out_dir.mkdir(parents=True)
    xc.guard_result_caches(root / "_build", xc.ModuleIndex(xc.local_src(root)), log)
    job = {
        "chapter": ch.name,
        "source": str(ch.source),
        "parameters": params,
        "output": str(out_dir / f"{Path(ch.short).name}.ipynb"),
        "cwd": str(out_dir / "work"),
        "env": _kernel_env(
            root / "_build", ch, chapter_threads(), claims_dir=out_dir / "claims"
        )
        | (env or {}),
    }
    log(f"running {ch.short} with {params}")
    r = execute_job(job)
    if r["error"] is not None:
        raise BuildError(_report_failure(r, params["profile"]))
    claims = ledger.collect(out_dir / "claims") if (out_dir / "claims").exists() else []
    write_atomic(out_dir / "claims.json", json.dumps(claims, indent=1))
    for c in claims:
        log(f"  {c['verdict']:18s} {c['id']}: {json.dumps(c['measured'])[:100]}")
    log(f"done in {r['seconds']:.1f} s: {job['output']}")
    return Path(job["output"])
