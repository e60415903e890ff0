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
      [--device cuda] [--width 128] [--threads 16]   (the network and data on that device)
      [--rank-one-only]   (time the package's gradient alone)

A gradient that fails is reported as failing, with torch's message. At width 128 with 2 threads
both gradients stopped at "Pivots given to lu_solve must all be greater or equal to 1" here (the
eigvals one in its backward's solve, the rank-one one in its inverse iteration): torch's batched
LU with more than one thread (``benchmarks/torch_lu_threads.py``). With one thread the rank-one
gradient ran on both networks at width 128; the eigvals one was not tried there.

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

On one lent NVIDIA H200 machine (2026-12-04, torch 2.11 + CUDA 13.0, 16 CPU cores; ``--steps 3
--repeat 1``, one run each; width 128: ``--steps 2 --rank-one-only``), steps per second of the
rank-one gradient (of the eigvals one):

| network | CUDA | CPU, 16 threads |
|---|---|---|
| GRU 2x64 | 0.72 (0.58) | 2.74 (2.03) |
| LSTM 2x64 | 0.34 (0.23) | 0.87 (0.79) |
| GRU 2x128 | 0.21 | did not end in 45 s (MKL's LU, below) |
| LSTM 2x128 | 0.10 | not run |

A GPU does not speed LSC pre-training up: a step is the eigenvalues of small non-symmetric
matrices, which CUDA computes no faster than the CPU (torch's ``eigvals`` on CUDA goes through
MAGMA's hybrid ``geev``), so at width 64 the H200 ran 2.5-3.8x slower than its own CPU. On the
CPU with more than one thread, torch's batched LU can return invalid pivots
(``benchmarks/torch_lu_threads.py``): at width 128 LSC pre-training of an LSTM then stops with
"Pivots given to lu_solve must all be greater or equal to 1"; ``torch.set_num_threads(1)``
around the call avoids it.
"""

from __future__ import annotations

import argparse
import json
import time

import torch
from torch import nn

from rnnbook import device as devices
from rnnbook.lsc import lsc_pretrain_, spectral

N_IN, BATCH, T, N_TIMES = 16, 16, 50, 4


def eigvals_radius(M):
    """The old gradient: autograd through every eigenvalue."""
    return torch.linalg.eigvals(M).abs().amax(-1)


def make(kind: str, width: int, dev: str) -> nn.Module:
    torch.manual_seed(0)
    cls = {"GRU": nn.GRU, "LSTM": nn.LSTM}[kind]
    return cls(N_IN, width, num_layers=2, batch_first=True).to(dev)


def run(kind: str, steps: int, old: bool, x: torch.Tensor, width: int):
    """Seconds per step (after one warm-up step), the history and the final parameters."""
    dev = x.device.type
    net = make(kind, width, dev)
    saved = spectral._Radius.apply
    if old:
        spectral._Radius.apply = eigvals_radius
    try:
        lsc_pretrain_(make(kind, width, dev), x, max_steps=1, n_times=N_TIMES)
        devices.synchronize(dev)
        t0 = time.perf_counter()
        rep = lsc_pretrain_(
            net, x, target=1.0, max_steps=steps, min_steps=steps, n_times=N_TIMES
        )
        devices.synchronize(dev)
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
    ap.add_argument("--device", default="cpu", help="cpu or cuda (auto: CUDA if seen)")
    ap.add_argument("--width", type=int, default=64, help="each layer's width")
    ap.add_argument(
        "--rank-one-only", action="store_true", help="leave the eigvals gradient out"
    )
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    dev, width = devices.resolve(args.device), args.width
    x = torch.randn(BATCH, T, N_IN, generator=torch.Generator().manual_seed(1))
    x = x.to(dev)
    rows, out = [], {}
    grads = (False,) if args.rank_one_only else (True, False)
    for kind in ("GRU", "LSTM"):
        best, res, failed = {g: float("inf") for g in grads}, {}, {}
        for _ in range(args.repeat):
            for old in grads:
                try:
                    s, rep, ps = run(kind, args.steps, old, x, width)
                except RuntimeError as e:  # kept as a result: this gradient fails here
                    failed[old] = str(e).splitlines()[0]
                    continue
                best[old] = min(best[old], s)
                res[old] = (rep, ps)
        row = dict(device=dev, width=width, steps_per_s_rank_one=1 / best[False])
        if True in grads and True not in failed:
            (r0, p0), (r1, p1) = res[True], res[False]
            row.update(
                steps_per_s_eigvals=1 / best[True],
                speedup=best[True] / best[False],
                max_radius_diff=max(
                    abs(a - b)
                    for a, b in zip(
                        r0.history["mean_radius"], r1.history["mean_radius"]
                    )
                ),
                max_param_diff=max(float((a - b).abs().max()) for a, b in zip(p0, p1)),
            )
            cells = (
                f"{row['steps_per_s_eigvals']:.2f}",
                f"{row['speedup']:.2f}x",
                f"{row['max_radius_diff']:.1e}",
                f"{row['max_param_diff']:.1e}",
            )
        else:
            why = failed.get(True, "not run")
            row["eigvals"] = why
            cells = (f"fails: {why}" if True in failed else "not run", "", "", "")
        out[kind] = row
        rows.append(
            f"| {kind} 2x{width}, {dev} | {cells[0]} | {1 / best[False]:.2f} | "
            + " | ".join(cells[1:])
            + " |"
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
