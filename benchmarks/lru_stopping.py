"""At which step does each LRU run of the Table I grid stop? (issue 50: sizing a step cap)

The LRU's confirmatory record ``lsc/lru_ptb:fig4-confirmatory`` trained for at most 1000
steps, and 79 of its 256 runs hit that cap, where its gate allows one in twenty: the record
decided nothing. A new record needs a cap that the runs' early stopping (patience 2
validations, one every 40 steps, the ``book`` grid) ends well before. This pilot trains the
book's grid (width 32, depths 3 and 6, the four initializations, with and without clipping)
at an exploratory master seed with a high cap, and prints the step at which each run stopped
and, for each smaller cap, the share of the runs that would have hit it: a run's path does
not depend on the cap until the cap ends it, so one run at a high cap answers for every
smaller one (a run still going at the high cap is counted as hitting every cap).

    python benchmarks/lru_stopping.py --steps 4000 --seeds 2 --seed 9

Exploratory: it draws no verdict and writes nothing but its report (``--out``).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np

from rnnbook.book.record_line import presets
from rnnbook.lsc import experiments, lru_ptb

#: the chapter whose ``book`` presets the pilot trains (read from its source, not copied)
CHAPTER = Path(__file__).resolve().parents[1] / "notebooks" / "lsc" / "lru_ptb.py"


def book_grid(steps: int, seeds: int, seed: int) -> lru_ptb.Grid:
    """The chapter's grid at its ``book`` presets, with the cap, seeds and master seed given."""
    given = presets(CHAPTER, "book") | {"steps": steps, "seeds": seeds, "seed": seed}
    if not given.get("depths"):
        raise SystemExit(f"no book presets found in {CHAPTER}")
    return lru_ptb.Grid(profile="book", **given)


def stopping(steps: int, seeds: int, seed: int) -> list[dict]:
    """Every run of the book grid at cap ``steps``: depth, condition, clipped, the step it
    stopped at and whether it diverged."""
    grid = book_grid(steps, seeds, seed)
    task = grid.build_task()
    out = []
    for d in grid.depths:
        for r in lru_ptb.train_depth(grid, task, d):
            out.append(
                dict(
                    depth=d,
                    cond=r["cond"],
                    clipped=bool(r["clipped"]),
                    seed=int(r["seed"]),
                    steps=int(r["steps"]),
                    diverged=bool(r["diverged"]),
                )
            )
    return out


def capped_share(runs: list[dict], cap: int) -> float:
    """The share of the runs that a cap of ``cap`` steps would have cut (diverged runs
    ended, as the gate counts them)."""
    return float(np.mean([r["steps"] >= cap and not r["diverged"] for r in runs]))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--steps", type=int, default=4000, help="the high cap")
    ap.add_argument("--seeds", type=int, default=2, help="members of the master seed")
    ap.add_argument("--seed", type=int, default=9, help="an exploratory master seed")
    ap.add_argument("--out", type=Path, default=None, help="write the report as JSON")
    a = ap.parse_args(argv)
    for name in ("steps", "seeds"):
        if getattr(a, name) < 1:
            ap.error(f"--{name} must be at least 1, not {getattr(a, name)}")
    experiments.use_one_thread()
    t0 = time.perf_counter()
    runs = stopping(a.steps, a.seeds, a.seed)
    seconds = time.perf_counter() - t0
    for r in runs:
        clip = " clip" if r["clipped"] else ""
        end = " (diverged)" if r["diverged"] else ""
        print(
            f"L={r['depth']}{clip} {r['cond']:8s} seed {r['seed']}: {r['steps']}{end}"
        )
    caps = sorted({1000, 1500, 2000, 3000, a.steps})
    shares = {c: capped_share(runs, c) for c in caps if c <= a.steps}
    for c, s in shares.items():
        print(f"cap {c}: {s:.1%} of {len(runs)} runs cut")
    print(f"{seconds:.0f} s on one core")
    if a.out:
        a.out.write_text(
            json.dumps(
                {
                    "args": vars(a) | {"out": str(a.out)},
                    "seconds": seconds,
                    "runs": runs,
                    "capped_share": shares,
                },
                indent=1,
            )
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
