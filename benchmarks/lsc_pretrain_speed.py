"""Benchmark (not a timed test): steps per second of LSC pre-training (``rnnbook.lsc.lsc_pretrain_``)
on a user's ``nn.GRU`` and ``nn.LSTM``, with the spectral radius's rank-one gradient
(``rnnbook.lsc.spectral``: eigenvalues alone forward, two eigenvectors by inverse iteration backward)
against autograd through ``torch.linalg.eigvals`` (every eigenvector forward, a full solve backward),
the gradient it replaced. Both run the same steps from the same network, data and seed; the table
also gives the largest difference of the per-step mean radius and of the final parameters.

Sizes: two layers of width 64 (the LSTM's state [c, h] is 128 wide), 16 inputs, batches of 16
sequences of 50 steps, 4 sampled steps per sequence (64 matrices per layer and kind), one thread,
CPU, float32; ``--steps`` timed steps after one untimed warm-up step, the two gradients alternated
``--repeat`` times and the best time of each kept.

Run:  .venv/bin/python benchmarks/lsc_pretrain_speed.py [--steps 5] [--repeat 2] [--json out.json]

Measured on the 2-core build machine (shared with other jobs, load average about 8), one thread,
2026-12-01, ``--steps 4 --repeat 2``, two runs:

| network | steps/s, eigvals autograd | steps/s, rank-one gradient | speed-up |
|---|---|---|---|
| GRU 2x64 | 0.33 / 0.48 | 0.37 / 0.56 | 1.11x / 1.17x |
| LSTM 2x64 | 0.11 / 0.13 | 0.14 / 0.18 | 1.31x / 1.39x |

The eigenvalues themselves (LAPACK's ``geev`` without vectors, in the forward pass) remain most of
a step; what went is ``geev``'s eigenvectors and the full solve of the old backward. The mean
radii agree to 8e-5 (GRU) and 7e-6 (LSTM) over the four steps, the parameters to 1e-2 and 5e-3:
float32 rounding of a gradient entry near zero becomes a step of about lr in AdaBelief (see
``rnnbook.lsc.pretrain_ensemble``); in float64 the trajectories agree to 1e-8
(``tests/lsc/test_spectral.py``).
"""

from __future__ import annotations

import argparse
import json
import time

import torch
from torch import nn

from rnnbook.lsc import lsc_pretrain_, spectral

WIDTH, N_IN, BATCH, T, N_TIMES = 64, 16, 16, 50, 4


def eigvals_radius(M):
    """The old gradient: autograd through every eigenvalue."""
    return torch.linalg.eigvals(M).abs().amax(-1)


def make(kind: str) -> nn.Module:
    torch.manual_seed(0)
    cls = {"GRU": nn.GRU, "LSTM": nn.LSTM}[kind]
    return cls(N_IN, WIDTH, num_layers=2, batch_first=True)


def run(kind: str, steps: int, old: bool, x: torch.Tensor):
    """Seconds per step (after one warm-up step), the history and the final parameters."""
    net = make(kind)
    saved = spectral._Radius.apply
    if old:
        spectral._Radius.apply = eigvals_radius
    try:
        lsc_pretrain_(make(kind), x, max_steps=1, n_times=N_TIMES)  # warm-up
        t0 = time.perf_counter()
        rep = lsc_pretrain_(
            net, x, target=1.0, max_steps=steps, min_steps=steps, n_times=N_TIMES
        )
        seconds = (time.perf_counter() - t0) / rep.steps
    finally:
        spectral._Radius.apply = saved
    return seconds, rep, [p.detach().clone() for p in net.parameters()]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=5, help="timed steps per run")
    ap.add_argument(
        "--repeat", type=int, default=2, help="runs per gradient (best kept)"
    )
    ap.add_argument("--threads", type=int, default=1, help="torch threads")
    ap.add_argument("--json", help="write the results to this file")
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    x = torch.randn(BATCH, T, N_IN, generator=torch.Generator().manual_seed(1))
    rows, out = [], {}
    for kind in ("GRU", "LSTM"):
        best = {True: float("inf"), False: float("inf")}
        res = {}
        for _ in range(args.repeat):
            for old in (True, False):
                s, rep, ps = run(kind, args.steps, old, x)
                best[old] = min(best[old], s)
                res[old] = (rep, ps)
        (r0, p0), (r1, p1) = res[True], res[False]
        d_rad = max(
            abs(a - b)
            for a, b in zip(r0.history["mean_radius"], r1.history["mean_radius"])
        )
        d_par = max(float((a - b).abs().max()) for a, b in zip(p0, p1))
        out[kind] = dict(
            steps_per_s_eigvals=1 / best[True],
            steps_per_s_rank_one=1 / best[False],
            speedup=best[True] / best[False],
            max_radius_diff=d_rad,
            max_param_diff=d_par,
        )
        rows.append(
            f"| {kind} 2x{WIDTH} | {1 / best[True]:.2f} | {1 / best[False]:.2f} "
            f"| {best[True] / best[False]:.2f}x | {d_rad:.1e} | {d_par:.1e} |"
        )
    print(
        "| network | steps/s, eigvals autograd | steps/s, rank-one gradient | speed-up "
        "| max radius difference | max parameter difference |\n"
        "|---|---|---|---|---|---|\n" + "\n".join(rows)
    )
    if args.json:
        with open(args.json, "w") as f:
            json.dump(out, f, indent=1)


if __name__ == "__main__":
    main()
