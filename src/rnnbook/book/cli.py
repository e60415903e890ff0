"""Command line: ``python -m rnnbook build --profile book``, ``python -m rnnbook chapter NB -p NAME VALUE``,
``list``, ``params CHAPTER``, ``claims check [CHAPTER]`` (:mod:`~rnnbook.book.discover`), ``power``,
``seeds``, ``record``, ``queue``, ``records``. Every command finds the repository root from the folder it runs in (or ``--root``)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import yaml

from .params import PROFILES, ParameterError
from . import distributed
from .pipeline import BuildError, build, dry_run


_ROOT_HELP = "the repository (default: found from the working folder up)"


def _value(text: str):
    """Parameter values are read as YAML: 0.5 -> float, 3 -> int, [1, 2] -> list, abc -> str."""
    return yaml.safe_load(text)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m rnnbook", description=__doc__)
    sub = ap.add_subparsers(dest="cmd", required=True)
    b = sub.add_parser(
        "build", help="execute every chapter at a profile and render the book"
    )
    b.add_argument(
        "--profile",
        default="book",
        choices=PROFILES,
        help="the presets every chapter runs at (default: book)",
    )
    b.add_argument(
        "--jobs",
        type=int,
        default=None,
        help="chapters run in parallel (default: one per core)",
    )
    b.add_argument(
        "--no-html",
        action="store_true",
        help="execute and collect claims, but do not render",
    )
    b.add_argument(
        "--scheduler",
        default=None,
        help="run the chapters on a Dask cluster: tcp://host:8786, or local:N for N local workers",
    )
    b.add_argument(
        "--dry-run",
        action="store_true",
        help="execute every chapter at the profile's sizes with training capped at a few steps; "
        "report time and peak memory (into _build/dry-run, not the book)",
    )
    b.add_argument(
        "--only",
        action="append",
        default=None,
        metavar="CHAPTER",
        help="with --dry-run: only this chapter (e.g. lsc/deep_rnns; repeat for more); "
        "the report keeps the other chapters' last entries",
    )
    b.add_argument(
        "--force",
        action="store_true",
        help="execute every chapter, even those whose cached run is still valid",
    )
    b.add_argument("--root", type=Path, default=Path("."), help=_ROOT_HELP)
    c = sub.add_parser(
        "chapter", help="re-run one chapter with new parameters into _build/runs/"
    )
    c.add_argument(
        "name", help="chapter, e.g. implicit_bias/rho_j (`python -m rnnbook list`)"
    )
    c.add_argument(
        "-p",
        "--parameter",
        nargs=2,
        action="append",
        default=[],
        metavar=("NAME", "VALUE"),
        help="set a parameter, read by its type (`python -m rnnbook params CHAPTER` "
        "lists them): -p lr 1e-3 -p kinds gru,lstm; repeatable",
    )
    c.add_argument(
        "--profile",
        default=None,
        choices=PROFILES,
        help="the presets the other parameters start from (default: book)",
    )
    c.add_argument(
        "--force",
        action="store_true",
        help="run again even when the last run with these parameters and code is there",
    )
    c.add_argument("--root", type=Path, default=Path("."), help=_ROOT_HELP)
    from . import discover_cli

    discover_cli.add_parsers(sub)
    w = sub.add_parser(
        "power",
        help="a training claim's power analysis: spreads read off a ledger, seeds needed",
    )
    w.add_argument("claim", nargs="+", help="claim id(s), e.g. lsc.fig3.half-beats-one")
    w.add_argument(
        "--ledger",
        type=Path,
        default=Path("_build/claims.json"),
        help="the ledger whose spreads are read (default: the book build's)",
    )
    w.add_argument("--root", type=Path, default=Path("."), help=_ROOT_HELP)
    w.add_argument(
        "--apply",
        default=None,
        metavar="SOURCE",
        help="write the ledger's spreads and the seeds they need into the claims file, "
        "with SOURCE (e.g. 'book ledger, master seed 0, 2026-11-28') as spread_from",
    )
    s = sub.add_parser(
        "seeds",
        help="run every training chapter at the book profile at other master seeds and "
        "record it under results/seeds/ (or keep a book ledger as seed 0's record)",
    )
    s.add_argument("seed", nargs="*", type=int, help="master seeds, e.g. 4 5")
    s.add_argument("--jobs", type=int, default=2, help="chapters at once (default: 2)")
    s.add_argument(
        "--only", action="append", default=None, help="only this chapter (repeatable)"
    )
    s.add_argument(
        "--from-ledger",
        type=Path,
        default=None,
        help="keep this book ledger (e.g. _build/claims.json) as master seed 0's record",
    )
    s.add_argument("--root", type=Path, default=Path("."), help=_ROOT_HELP)
    r = sub.add_parser(
        "record",
        help="run one declared slice (CHAPTER:SLICE) at its record scale into results/",
    )
    r.add_argument("target", help="e.g. mean_field/training:fig2")
    r.add_argument(
        "--scale",
        choices=("cpu", "gpu"),
        default="cpu",
        help="the record scale declared for the slice (default: cpu)",
    )
    r.add_argument("--device", default=None, help="auto | cpu | cuda (default: auto)")
    r.add_argument("--root", type=Path, default=Path("."), help=_ROOT_HELP)
    once = r.add_mutually_exclusive_group()
    once.add_argument(
        "--shard",
        default=None,
        metavar="next|K",
        help="a sharded slice: run its next shard (or shard K) into results/shards/",
    )
    once.add_argument(
        "--decide",
        action="store_true",
        help="a sharded slice: decide it once every declared shard is in",
    )
    once.add_argument(
        "--check",
        action="store_true",
        help="a sharded slice: re-run its declared check members of shard 0 here and "
        "compare bits, voiding nothing (whether 'check' can stop the record wrongly)",
    )
    once.add_argument(
        "--status", action="store_true", help="a sharded slice: its shards so far"
    )
    r.add_argument(
        "--results",
        type=Path,
        default=Path("results"),
        help="the folder of records, under the root (default: results; a re-run on "
        "another processor keeps its own: rnnbook.book.processors)",
    )
    r.add_argument(
        "--pinned",
        action="store_true",
        help="with --shard or --decide: run in the record's own worktree under "
        "_build/shard-trees/, at its shard 0's commit, and copy what it wrote back",
    )
    r.add_argument(
        "--commit",
        action="store_true",
        help="with --pinned: commit the shard (or the decided record) alone",
    )
    q = sub.add_parser(
        "queue",
        help="run the next shards of confirmatory records one after another, each "
        "pinned and committed as it lands; decide a record when its last shard is in",
    )
    rr = sub.add_parser(
        "rerun",
        help="re-run confirmatory records whole on this machine, shard by shard, "
        "pinned and committed as each lands, into results/processors/<machine id>/: "
        "whether their verdicts carry to another processor (decides nothing; decided "
        "after the record)",
    )
    for p in (q, rr):  # the same queue: a record's shards, or its re-run's
        p.add_argument(
            "items", nargs="+", metavar="CHAPTER:SLICE:N", help="at most N more shards"
        )
        p.add_argument(
            "--scale",
            choices=("cpu", "gpu"),
            default="cpu",
            help="the record scale declared for the slices (default: cpu)",
        )
        p.add_argument(
            "--device", default=None, help="auto | cpu | cuda (default: auto)"
        )
        p.add_argument(
            "--foreground",
            action="store_true",
            help="keep the queue's priority (by default it and every process it starts, "
            "chapter kernels included, run below all other work: "
            "rnnbook.book.background)",
        )
        p.add_argument("--root", type=Path, default=Path("."), help=_ROOT_HELP)
    q.add_argument(
        "--no-commit", action="store_true", help="copy the shards back, commit nothing"
    )
    d = sub.add_parser(
        "day",
        help="the day's work for this machine: the next shards of the records it may "
        "run, else re-runs of records, shared over cores, cheapest first; "
        "printed, or started in the background with --start",
    )
    d.add_argument(
        "--cores",
        type=_cores,
        default=None,
        help="the cores to use, e.g. 0,1 (default: this machine's last core)",
    )
    d.add_argument(
        "--start",
        action="store_true",
        help="start each core's share in the background (logs under _build/day/)",
    )
    d.add_argument(
        "--scale",
        choices=("cpu", "gpu"),
        default="cpu",
        help="the record scale (default: cpu)",
    )
    d.add_argument("--root", type=Path, default=Path("."), help=_ROOT_HELP)
    st = sub.add_parser(
        "records",
        help="where every confirmatory record stands: shards in, hours of one core, "
        "each claim's verdict beside the book run's",
    )
    st.add_argument(
        "--ledger",
        type=Path,
        default=Path("_build/claims.json"),
        help="the ledger whose book-run verdicts are shown beside (default: the book "
        "build's; left out when there is none)",
    )
    st.add_argument("--root", type=Path, default=Path("."), help=_ROOT_HELP)
    args = ap.parse_args(argv)
    if getattr(args, "root", None) == Path("."):  # the default: found from here
        from .spec import find_root

        try:
            args.root = find_root()
        except ParameterError as e:
            print(f"error: {e}", file=sys.stderr)
            return 1
    if args.cmd in discover_cli.COMMANDS:
        return discover_cli.run(args)
    if args.cmd == "record":
        return _record(args)
    if args.cmd == "queue":
        return _queue(args)
    if args.cmd == "rerun":
        return _rerun(args)
    if args.cmd == "day":
        return _day(args)
    if args.cmd == "power":
        return _power(args)
    if args.cmd == "records":
        return _records(args)
    if args.cmd == "seeds":
        from . import recording, records

        if args.from_ledger:
            for path in records.record_ledger(args.root, args.from_ledger):
                print(f"recorded {path}")
        if args.seed:
            for path in recording.run_seeds(
                args.root, args.seed, args.jobs, only=args.only
            ):
                print(f"recorded {path}")
        return 0
    try:
        if args.cmd == "build" and args.only and not args.dry_run:
            raise ParameterError(
                "--only selects chapters of a --dry-run; a book has them all"
            )
        if args.cmd == "build" and args.dry_run:
            dry_run(args.root, args.profile, jobs=args.jobs, only=args.only)
        elif args.cmd == "build":
            build(
                args.root,
                args.profile,
                args.jobs,
                html=not args.no_html,
                force=args.force,
                executor=distributed.from_scheduler(args.scheduler),
            )
        else:
            from . import chapter_run

            given = dict(args.parameter)
            if args.profile:
                given["profile"] = args.profile
            chapter_run.run(args.root, args.name, given, force=args.force)
    except (BuildError, ParameterError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    return 0


def _record(args) -> int:
    """``record``: a whole slice, one shard of a sharded one, its decision or its state."""
    from . import recording, shards
    from .claims import ClaimError

    from .processors import FOLDER

    if args.results != Path("results") and FOLDER not in args.results.parents:
        print(
            f"error: --results {args.results}: records live in results/ and re-runs "
            f"on other processors under {FOLDER}/<machine id>/",
            file=sys.stderr,
        )
        return 1
    if args.pinned and args.results != Path("results"):
        print("error: --results: a pinned re-run goes through 'rerun'", file=sys.stderr)
        return 1
    results = args.root / args.results
    try:
        if args.status:
            chapter, name, s = shards.sharded_slice(args.root, args.target, args.scale)
            st = shards.state(results, args.scale, chapter, name, s)
            print(f"{args.target}: {shards.progress_text(st)}")
            for line in st["damaged"]:
                print(f"{line}; left out")
            return 0
        if args.check:
            bad = shards.trial_check(
                args.root, args.target, args.scale, results=results
            )
            print(f"{args.target}: {bad or 'the same bits as shard 0'}")
            return 1 if bad else 0
        if args.commit and not args.pinned:
            raise ClaimError("--commit goes with --pinned")
        if args.pinned:
            from . import shard_tree

            if args.shard is None and not args.decide:
                raise ClaimError("--pinned goes with --shard or --decide")
            if args.shard is not None and not _shard_arg(args.shard):
                raise ClaimError(f"--shard {args.shard!r}: 'next' or a shard number")
            path = shard_tree.run(
                args.root,
                args.target,
                args.scale,
                None if args.decide else args.shard,
                device=args.device,
                commit=args.commit,
            )
        elif args.decide:
            path = shards.decide(args.root, args.target, args.scale, results=results)
        elif args.shard is not None:
            if not _shard_arg(args.shard):
                raise ClaimError(f"--shard {args.shard!r}: 'next' or a shard number")
            path = shards.run_shard(
                args.root,
                args.target,
                args.scale,
                args.shard,
                device=args.device,
                results=results,
            )
        else:
            path = recording.run_record(
                args.root, args.target, args.scale, device=args.device
            )
    except shards.MachineRefused as e:
        print(f"refused: {e}", file=sys.stderr)
        return shards.REFUSED_EXIT
    except (ClaimError, BuildError, ParameterError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    print(f"recorded {path}")
    return 0


def _shard_arg(text: str) -> bool:
    return text == "next" or text.isdigit()


def _queue(args) -> int:
    """``queue``: the next shards of records, pinned, committed, decided when complete."""
    from . import shard_tree
    from .claims import ClaimError

    try:
        shard_tree.parse_items(args.items)
        if not args.foreground:
            from . import background

            background.lower()
        shard_tree.queue(
            args.root,
            args.items,
            args.scale,
            device=args.device,
            commit=not args.no_commit,
        )
    except (ClaimError, BuildError, ParameterError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    return 0


def _rerun(args) -> int:
    """``rerun``: records re-run whole on this machine (:mod:`.processors`)."""
    from . import processors, shard_tree
    from .claims import ClaimError
    from .shard_plan import machine, state

    try:
        items = shard_tree.parse_items(args.items)
        results = processors.results_of(machine()["id"])
        for target, _ in items:
            chapter, name, s = shard_tree._slice(args.root, target, args.scale)
            st = state(args.root / results, args.scale, chapter, name, s)
            if not st["done"]:  # a re-run starts only where it would re-run the record
                processors.can_start(args.root, target, args.scale)
        if not args.foreground:
            from . import background

            background.lower()
        shard_tree.queue(
            args.root, args.items, args.scale, device=args.device, results=results
        )
    except (ClaimError, BuildError, ParameterError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    return 0


def _cores(text: str) -> list[int]:
    """``--cores 0,1``: distinct core numbers this process may use."""
    try:
        cores = [int(x) for x in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not core numbers like 0,1")
    from .day import usable_cores

    mine = usable_cores()
    if len(set(cores)) != len(cores) or not set(cores) <= mine:
        raise argparse.ArgumentTypeError(
            f"{text!r}: distinct cores of this machine, of {sorted(mine)}"
        )
    return cores


def _day(args) -> int:
    """``day``: :mod:`.day`'s plan for this machine, printed, or started."""
    from . import day
    from .claims import ClaimError

    try:
        plan, passed = day.plan_here(
            args.root, args.cores or day.default_cores(), args.scale
        )
    except (ClaimError, BuildError, ParameterError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    print(day.plan_text(plan, passed))
    if args.start:
        for log in day.start(args.root, plan, args.scale):
            print(f"started: its log is {log}")
    elif any(plan.values()):
        print("(python -m rnnbook day --start, or make day, starts it)")
    return 0


def _records(args) -> int:
    """``records``: :func:`rnnbook.book.standing.text_table`, with the book run's verdicts
    from ``--ledger`` when it can be read."""
    import json

    from . import standing

    ledger = args.ledger if args.ledger.is_absolute() else args.root / args.ledger
    try:
        book = {c["id"]: c.get("verdict") for c in json.loads(ledger.read_text())}
    except (OSError, ValueError, TypeError, KeyError):
        book = None
    from .shard_plan import machine
    from .shard_tree import claimed, record_id

    rows = standing.standing(args.root)
    print(standing.here_line(rows, machine()))
    now = {  # the shards that processes of this machine run now (make day's lanes)
        f"{r['chapter']}:{r['name']}": claimed(
            args.root, record_id(r["chapter"], r["name"])
        )
        for r in rows
    }
    print(standing.text_table(rows, book, now))
    return 0


def _power(args) -> int:
    import json

    from . import claims, power

    declared = claims.all_declared(args.root)
    ledger = {}
    if args.ledger.exists():
        ledger = {r["id"]: r for r in json.loads(args.ledger.read_text())}
    for cid in args.claim:
        if cid not in declared:
            print(f"error: no claim {cid!r} is declared", file=sys.stderr)
            return 1
        d = declared[cid]
        if args.apply and cid in ledger:
            path = claims.claims_file(d.chapter, args.root)
            for line in power.apply(path, d, ledger[cid], args.apply):
                print(line)
            continue
        print(yaml.safe_dump(power.report(d, ledger.get(cid)), sort_keys=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
