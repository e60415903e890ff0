"""Benchmark (not a timed test): the radii of the transition derivatives, batched (``vmap`` of ``jacrev``) vs a
per-sample autograd loop (one ``autograd.grad`` per output row, per sample), at the sizes the book uses.

Run:  .venv/bin/python benchmarks/lsc_radius.py [--threads 1] [--repeat 3] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import time

import torch

from rnnbook.lsc import pretrain as lsc
from rnnbook.lsc import models as lm


def per_sample_radii(model, x, n_times, seed):
    """The same radii as ``model.lsc_jacobians`` + ``radii_by_group``, but sample by sample with plain autograd."""
    gen = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        _, tr = model(x, trace=True)
    B, T = tr.H[0].shape[:2]
    ti = torch.stack(
        [torch.randperm(T, generator=gen)[:n_times] for _ in range(B)]
    ).reshape(-1)
    bi = torch.arange(B).repeat_interleave(n_times)
    out = {}
    for l, cell in enumerate(model.cells):
        prev = torch.cat([tr.H0[l][:, None], tr.H[l][:, :-1]], 1)
        hp, u = prev[bi, ti], tr.U[l][bi, ti]
        out[(l + 1, "time")] = lsc.spectral_radius(
            lsc.per_sample_jacobian(cell.step, hp, u, argnum=0)
        )
        if l == 0:
            out[(1, "depth")] = lsc.spectral_radius(
                lsc.per_sample_jacobian(cell.step, hp, u, argnum=1)
            )
        else:
            below = model.cells[l - 1]
            f = lambda g, hp_, ub, c=cell, b=below: c.step(hp_, b.out(g, ub))  # noqa: E731
            out[(l + 1, "depth")] = lsc.spectral_radius(
                lsc.per_sample_jacobian(
                    f, tr.H[l - 1][bi, ti], hp, tr.U[l - 1][bi, ti], argnum=0
                )
            )
    return out


def batched_radii(model, x, n_times, seed):
    with torch.no_grad():
        return lsc.radii_by_group(
            model.lsc_jacobians(x, n_times, torch.Generator().manual_seed(seed))
        )


def best_of(f, repeat):
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        res = f()
        best = min(best, time.perf_counter() - t0)
    return best, res


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--json", default="")
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    cases = [  # (label, model, input, n_times): the pre-training batches of the book profile
        (
            "GRU, 2 layers x 32, sl-MNIST-like input (196 ch), 16 seq x 4 steps",
            lm.make_rnn("gru", 2, 196, 32, 10, seed=0),
            (torch.rand(16, 25, 196) < 0.05).float(),
            4,
        ),
        (
            "LSTM, 5 layers x 24, 16 seq x 4 steps",
            lm.make_rnn("lstm", 5, 64, 24, 20, seed=0),
            (torch.rand(16, 25, 64) < 0.1).float(),
            4,
        ),
        (
            "LRU, 3 layers x 64, 8 seq x 4 steps",
            lm.make_lru(3, 2000, 64, seed=0),
            torch.randint(0, 2000, (8, 32)),
            4,
        ),
    ]
    rows = []
    for label, model, x, nt in cases:
        model.eval()
        tb, rb = best_of(lambda: batched_radii(model, x, nt, 0), args.repeat)
        ts, rs = best_of(lambda: per_sample_radii(model, x, nt, 0), 1)
        err = max(float((rb[k] - rs[k]).abs().max()) for k in rb)
        rows.append(
            {
                "case": label,
                "batched_s": tb,
                "per_sample_s": ts,
                "speedup": ts / tb,
                "max_abs_diff": err,
                "matrices": int(sum(v.numel() for v in rb.values())),
            }
        )
        print(
            f"{label}: batched {tb * 1e3:.1f} ms, per-sample loop {ts * 1e3:.1f} ms, speed-up x{ts / tb:.1f}, "
            f"{rows[-1]['matrices']} matrices, max |radius difference| {err:.1e}"
        )
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(
                {"threads": args.threads, "torch": torch.__version__, "rows": rows},
                fh,
                indent=1,
            )


if __name__ == "__main__":
    main()
