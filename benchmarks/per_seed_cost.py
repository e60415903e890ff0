"""Benchmark (not a timed test): the per-seed cost of the training claims' records, before and
after a confirmatory slice runs only the cells its claims read (issue 50, item 5).

"Before": the seed checks (``results/seeds/<chapter>/seed-4`` and ``seed-5``), which run the whole
chapter at the ``book`` profile, every part and every network, for the seeds its claims report.
"After": the confirmatory records' shards (``results/shards/cpu/...``), each running its slice's
members and only the parts and networks its claims read. Both are read from the committed
provenance (``wall_seconds``, one core, this project's 2-core build machine, often sharing it
with a second job), nothing is run here.

Run:  .venv/bin/python benchmarks/per_seed_cost.py [--root .]

Read on 2 December 2026 (seconds per seed, one core, a second job on the other core):

| record | its shards | the whole chapter |
|---|---|---|
| Fig. 1c alone (``fig1c-gru-confirmatory-3``, ``-4``) | 6-9 | 928-1027 |
| Fig. 1c with Fig. 3 at smoke sizes (``fig1c-gru-confirmatory``) | 60-63 | 928-1027 |
| Fig. 3, the four differentiable RNNs (``fig3-none-deeper``, ``fig3-half-one``) | 245-273 | 928-1027 |
| Fig. 3, the two ALIF networks (``fig3-alif-confirmatory``) | 191 | 928-1027 |

A Fig. 3 seed of the networks a claim reads costs about a quarter of the whole chapter's seed (issue
50 estimated 500-760 s a seed for Fig. 3).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path


def _json(path: Path) -> dict | list | None:
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return None


def before(root: Path) -> dict[str, list[float]]:
    """Per chapter: seconds per seed of each seed check (its wall time over the most seeds
    any of its claims reports)."""
    out: dict[str, list[float]] = {}
    for prov in sorted((root / "results/seeds").glob("*/*/seed-[0-9]/provenance.json")):
        p, claims = _json(prov), _json(prov.with_name("claims.json"))
        if not isinstance(p, dict) or not isinstance(claims, list):
            continue
        seeds = max([c.get("seeds") or 0 for c in claims], default=0)
        if p.get("wall_seconds") and seeds:
            out.setdefault(p["chapter"], []).append(p["wall_seconds"] / seeds)
    return out


def after(root: Path) -> dict[str, list[float]]:
    """Per (chapter, slice): seconds per member of each shard that landed."""
    out: dict[str, list[float]] = {}
    for prov in sorted(
        (root / "results/shards/cpu").glob("*/*/*/[0-9]*/provenance.json")
    ):
        p = _json(prov)
        if not isinstance(p, dict) or not p.get("wall_seconds"):
            continue
        count = p["members"][1]  # [first member, how many]
        out.setdefault(f"{p['chapter']}:{p['slice']}", []).append(
            p["wall_seconds"] / count
        )
    return out


def _span(xs: list[float]) -> str:
    lo, hi = f"{min(xs):.0f}", f"{max(xs):.0f}"
    return lo if lo == hi else f"{lo}-{hi}"


def table(root: Path) -> str:
    b, a = before(root), after(root)
    rows = ["| record | seconds per seed | shards | whole chapter, seconds per seed |"]
    rows.append("|---|---|---|---|")
    for key in sorted(a):
        chapter = key.split(":")[0]
        whole = _span(b[chapter]) if chapter in b else "—"
        rows.append(f"| `{key}` | {_span(a[key])} | {len(a[key])} | {whole} |")
    return "\n".join(rows)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--root", type=Path, default=Path(__file__).resolve().parents[1])
    print(table(ap.parse_args().root))


if __name__ == "__main__":
    main()
