"""The ``list``, ``params`` and ``claims check`` subcommands of ``python -m rnnbook``
(:mod:`rnnbook.book.discover` does the work)."""

from __future__ import annotations

import sys
from pathlib import Path

COMMANDS = ("list", "params", "claims")
_ROOT = "the repository (default: found from the working folder up)"


def add_parsers(sub) -> None:
    """Register the subcommands on the ``add_subparsers`` object ``sub``."""
    a = sub.add_parser(
        "list", help="the chapters, their expected times per profile and their claims"
    )
    a.add_argument("--root", type=Path, default=Path("."), help=_ROOT)
    p = sub.add_parser(
        "params",
        help="a chapter's parameters: type, presets per profile, allowed values, description",
    )
    p.add_argument("chapter", help="e.g. lsc/pretraining (`python -m rnnbook list`)")
    p.add_argument("--root", type=Path, default=Path("."), help=_ROOT)
    c = sub.add_parser("claims", help="the claims files: `claims check [CHAPTER]`")
    c.add_argument("action", choices=("check",), help="check: validate, run nothing")
    c.add_argument(
        "chapter", nargs="?", default=None, help="one chapter (default: all)"
    )
    c.add_argument("--root", type=Path, default=Path("."), help=_ROOT)


def run(args) -> int:
    from . import discover
    from .claims import ClaimError
    from .params import ParameterError

    try:
        if args.cmd == "list":
            print(discover.list_chapters(args.root))
        elif args.cmd == "params":
            print(discover.describe_params(args.root, args.chapter))
        else:
            problems = discover.check_claims(args.root, args.chapter)
            errors = [p for p in problems if not p.startswith("warning:")]
            for line in problems:
                print(line, file=sys.stderr if line in errors else sys.stdout)
            what = args.chapter or "every chapter"
            print(
                f"claims of {what}: {len(errors)} error(s), "
                f"{len(problems) - len(errors)} warning(s)"
            )
            return 1 if errors else 0
    except (ParameterError, ClaimError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    return 0
