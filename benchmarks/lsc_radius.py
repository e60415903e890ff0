"""Benchmark (not a timed test): the radii of the transition derivatives, batched (``vmap`` of ``jacrev``) vs a
per-sample autograd loop (one ``autograd.grad`` per output row, per sample), at the sizes the book uses.

Its helpers (:func:`per_sample_jacobian`, :func:`compare_with_loop`, :func:`comparison_table`) are the
references of ``tests/lsc/test_pretrain.py`` and ``tests/lsc/test_on_device.py``; they are not part of
the library.

Run:  .venv/bin/python benchmarks/lsc_radius.py [--threads 1] [--repeat 3] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import math
import time
from typing import Callable

import torch
from torch import Tensor

from rnnbook.lsc import pretrain as lsc
from rnnbook.lsc.pretrain import StackedRNN, radii_by_group, spectral_radius
from rnnbook.lsc import models as lm


def per_sample_jacobian(
    f: Callable[..., Tensor], *args: Tensor, argnum: int = 0
) -> Tensor:
    """The same Jacobians by a plain loop: for each sample, one ``autograd.grad`` call per output row.

    The reference for the tests and the baseline of ``benchmarks/lsc_radius.py``."""
    out = []
    for b in range(args[0].shape[0]):
        sample = [a[b].detach().clone() for a in args]
        sample[argnum].requires_grad_(True)
        y = f(*sample)
        rows = [
            torch.autograd.grad(y[i], sample[argnum], retain_graph=True)[0]
            for i in range(y.shape[0])
        ]
        out.append(torch.stack(rows))
    return torch.stack(out)


def compare_with_loop(
    model: StackedRNN, x: Tensor, n_times: int, seed: int = 1, repeat: int = 3
) -> dict:
    """The batched transition derivatives of ``model`` against a per-sample autograd loop at the
    same sampled points (``n_times`` < T per sequence, drawn from a generator seeded ``seed``).

    Returns the best of ``repeat`` times of the batched computation (``t_batched``, with the radii),
    the time of the loop (``t_loop``, with its radii), the largest absolute difference of the
    Jacobians (``jac_err``) and of the radii (``radius_err``), and the number of matrices (``n``).
    Runs where ``model`` and ``x`` are (the points are drawn on the CPU generator either way;
    on CUDA the times wait for the device)."""
    t_batched = math.inf
    with torch.no_grad():
        for _ in range(repeat):  # the first call also traces the vmap
            t0 = _clock(x)
            gen = torch.Generator(device="cpu").manual_seed(seed)
            trs = model.lsc_jacobians(x, n_times=n_times, generator=gen)
            rad_b = radii_by_group(trs)
            t_batched = min(t_batched, _clock(x) - t0)
        _, tr = model(x, trace=True)
    gen = torch.Generator(device="cpu").manual_seed(seed)
    B, T = tr.H[0].shape[:2]
    ti = torch.stack(
        [torch.randperm(T, generator=gen, device="cpu")[:n_times] for _ in range(B)]
    )
    ti = ti.reshape(-1).to(x.device)
    bi = torch.arange(B, device=x.device).repeat_interleave(n_times)
    t0 = _clock(x)
    ref = {}
    for l, cell in enumerate(model.cells):
        hp = torch.cat([tr.H0[l][:, None], tr.H[l][:, :-1]], 1)[bi, ti]
        u = tr.U[l][bi, ti]
        ref[(l + 1, "time")] = per_sample_jacobian(cell.step, hp, u)
        if l == 0:
            ref[(1, "depth")] = per_sample_jacobian(cell.step, hp, u, argnum=1)
            continue

        def f_depth(g, hp, ub, cell=cell, below=model.cells[l - 1]):
            return cell.step(hp, below.out(g, ub))

        below_h, below_u = tr.H[l - 1][bi, ti], tr.U[l - 1][bi, ti]
        ref[(l + 1, "depth")] = per_sample_jacobian(f_depth, below_h, hp, below_u)
    rad_s = {k: spectral_radius(v) for k, v in ref.items()}
    t_loop = _clock(x) - t0
    return dict(
        t_batched=t_batched,
        t_loop=t_loop,
        radius_err=max(float((rad_b[k] - rad_s[k]).abs().max()) for k in rad_b),
        jac_err=max(float((t.M - ref[(t.layer, t.kind)]).abs().max()) for t in trs),
        n=sum(int(v.numel()) for v in rad_b.values()),
    )


def _clock(x: Tensor) -> float:
    """``time.perf_counter()``, after the work queued on ``x``'s device is done."""
    if x.device.type == "cuda":
        torch.cuda.synchronize(x.device)
    return time.perf_counter()


def comparison_table(bench: dict[str, dict]) -> str:
    """:func:`compare_with_loop` results, one row per network (the keys name them)."""
    rows = [
        f"| {name} | {b['n']} | {b['t_batched'] * 1e3:.0f} | {b['t_loop'] * 1e3:.0f} "
        f"| {b['t_loop'] / b['t_batched']:.0f}x | {b['jac_err']:.1e} "
        f"| {b['radius_err']:.1e} |"
        for name, b in bench.items()
    ]
    return (
        "| network | matrices | batched (ms) | per-sample loop (ms) | speed-up "
        "| max abs. Jacobian difference | max abs. radius difference |\n"
        "|---|---|---|---|---|---|---|\n" + "\n".join(rows)
    )


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
            per_sample_jacobian(cell.step, hp, u, argnum=0)
        )
        if l == 0:
            out[(1, "depth")] = lsc.spectral_radius(
                per_sample_jacobian(cell.step, hp, u, argnum=1)
            )
        else:
            below = model.cells[l - 1]
            f = lambda g, hp_, ub, c=cell, b=below: c.step(hp_, b.out(g, ub))  # noqa: E731
            out[(l + 1, "depth")] = lsc.spectral_radius(
                per_sample_jacobian(
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
