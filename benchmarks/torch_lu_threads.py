"""A check of torch, not of the book: batched ``torch.linalg.lu_factor_ex`` on the CPU with more
than one thread returns invalid pivots (0) for some matrices, as the pinned torch 2.13 (MKL) does
on this repository's build machine, and MKL prints "Parameter 6 was incorrect on entry to
?LASWP". LSC pre-training meets it: its rank-one gradient (``rnnbook.lsc.spectral``) factors a
batch of shifted transition derivatives, and a stacked LSTM's depth derivative
``d[c, h]_l / d[c, h]_(l-1)`` has a block of zero columns (the layer above reads ``h`` alone),
the shape that fails.

Upstream: pytorch/pytorch#181570 (open) says why: for matrices larger than about 14 the batched
LU's grain size rounds to 0, so every thread calls LAPACK's ``getrf`` at once, which is not
thread-safe there. One thread, or one matrix at a time, gives valid pivots.

Run:  .venv/bin/python benchmarks/torch_lu_threads.py [--threads 1 2 4]

Measured 2026-12-04 (AMD EPYC, 2 cores, torch 2.13.0+cpu): a batch of 8 matrices of size 256
(half their columns zero, 0.3 on the diagonal) gave invalid pivots for 4 of 8 with 2 threads,
in every dtype, and 0 of 8 with 1 thread; sizes 16 and 64 gave none. ``lsc_pretrain_`` on an
``nn.LSTM(16, 128, num_layers=2)`` stopped with "Pivots given to lu_solve must all be greater
or equal to 1" with 2 threads and ran with 1. On the lent H200 machine's CPU (torch 2.11, 16
threads) ``benchmarks/lsc_pretrain_speed.py --width 128`` printed the same MKL error and did not
end within its 45 s.
"""

from __future__ import annotations

import argparse

import torch


def bad_pivots(n: int, batch: int, dtype: torch.dtype) -> int:
    """How many matrices of a batch get a pivot below 1 from ``lu_factor_ex``."""
    g = torch.Generator().manual_seed(0)
    R = torch.randn(n, n, generator=g, dtype=torch.float64) / n**0.5
    R[:, : n // 2] = 0
    A = R.to(dtype) + 0.3 * torch.eye(n, dtype=dtype)
    _, piv, _ = torch.linalg.lu_factor_ex(A.expand(batch, -1, -1).contiguous())
    return int((piv < 1).any(-1).sum())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--sizes", type=int, nargs="+", default=[16, 64, 256])
    ap.add_argument("--batch", type=int, default=8)
    args = ap.parse_args()
    print(
        f"torch {torch.__version__}; batches of {args.batch}; matrices with bad pivots"
    )
    print("| threads | size | float32 | float64 | complex64 | complex128 |")
    print("|---|---|---|---|---|---|")
    dtypes = (torch.float32, torch.float64, torch.complex64, torch.complex128)
    for t in args.threads:
        torch.set_num_threads(t)
        for n in args.sizes:
            cells = " | ".join(str(bad_pivots(n, args.batch, d)) for d in dtypes)
            print(f"| {t} | {n} | {cells} |")


if __name__ == "__main__":
    main()
