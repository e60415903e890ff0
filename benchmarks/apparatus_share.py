"""Each chapter's verdict apparatus as a share of its height (issue 51).

Opens every chapter of a rendered book in headless Chromium at 1280 px, every fold closed,
and prints the share of the page's height taken by its verdict line, claim boxes, seed
check and closing verdicts (:mod:`rnnbook.book.page_check`); the book asks for at most 25%.

    .venv/bin/python benchmarks/apparatus_share.py [_build/html] [--only lsc/deep_rnns]
"""

from __future__ import annotations

import argparse
from pathlib import Path

from rnnbook.book import page_check


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("html", nargs="?", default="_build/html")
    ap.add_argument("--only", action="append")
    args = ap.parse_args()
    shares = page_check.apparatus_shares(Path(args.html), args.only)
    for name, share in sorted(shares.items()):
        over = "  over 25%" if share > page_check.APPARATUS_LIMIT else ""
        print(f"{share:6.1%}  {name}{over}")
    if shares:
        worst = max(shares, key=shares.get)
        print(f"{len(shares)} chapters; largest {shares[worst]:.1%} ({worst})")


if __name__ == "__main__":
    main()
