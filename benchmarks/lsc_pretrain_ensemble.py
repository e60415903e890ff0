"""Benchmark (not a timed test): the LSC pre-training of many networks of one shape as one batched
run (``rnnbook.lsc.pretrain_ensemble``) against a loop of ``rnnbook.lsc.lsc_pretrain_``, one
network at a time, at the sizes of the ``book`` profile of ``notebooks/lsc/pretraining.py`` (two
layers of width 32, sl-MNIST at side 14 with 25 time bins, batches of 16, 4 sampled steps per
sequence), for 8 networks per architecture (4 seeds x targets 0.5 and 1), one thread, CPU time.

Both do the same work: the same networks, batches, draws and stopping rule; the table also
says in how many members the two agree on the steps and the convergence, and the largest
difference of the last mean radius. The chapter's budget is 60 steps; the default here is 12
(the whole run then takes about 2 minutes). A warm-up run of each path (tiny) comes first, so
that the one-off imports of ``torch.func`` are not timed.

Run:  .venv/bin/python benchmarks/lsc_pretrain_ensemble.py [--steps 12] [--json out.json]

Measured on the 2-core build machine (shared with other jobs), one thread, 12 steps:

| network | members | loop (s) | ensemble (s) | speed-up | same steps/stop | max abs. radius diff. |
|---|---|---|---|---|---|---|
| σ-RNN | 8 | 11.8 | 10.5 | 1.13x | 8/8 | 9.1e-07 |
| GRU | 8 | 13.9 | 11.9 | 1.17x | 8/8 | 1.1e-06 |
| ALIF+ | 8 | 30.8 | 29.9 | 1.03x | 8/8 | 6.1e-05 |

(2 min 57 s wall time in all. The radius differences are float32 rounding, amplified by
AdaBelief, which moves an entry with a tiny gradient by about lr whatever its size.)

Most of a step is the eigenvalues (``torch.linalg.eig`` with the eigenvectors that its backward
needs, and that backward: an LU solve per matrix), which LAPACK computes one matrix at a time
whether the matrices come from one network or eight: batching saves the Python and kernel
overhead of the forward pass, the Jacobians and the bookkeeping, not that. The speed-up is
therefore bounded well below the number of members at these sizes.
"""

from __future__ import annotations

import argparse
import json
import time

import torch

from rnnbook.lsc import models, pretrain, tasks
from rnnbook.lsc.pretrain_ensemble import pretrain_ensemble

KINDS = ("sigma_rnn", "gru", "alif_plus")
SEEDS, TARGETS = (0, 1, 2, 3), (0.5, 1.0)
WIDTH, SIDE, N_STEPS, BATCH, N_TIMES = 32, 14, 25, 16, 4


def members(kind: str, n_in: int, steps: int):
    """The 8 (network, config, seed) of one architecture."""
    out = []
    for s in SEEDS:
        for t in TARGETS:
            cfg = pretrain.LSCConfig(target=t, max_steps=steps, n_times=N_TIMES)
            out.append((models.make_rnn(kind, 2, n_in, WIDTH, 10, seed=s), cfg, s))
    return out


def warm_up(data) -> None:
    for run in range(2):
        ms = members("gru", data.n_channels, 1)[:2]
        if run == 0:
            pretrain.lsc_pretrain_(
                ms[0][0], tasks.random_batches(data, 2, 0), config=ms[0][1]
            )
        else:
            nets, cfgs, seeds = zip(*ms)
            streams = [tasks.random_batches(data, 2, s) for s in seeds]
            pretrain_ensemble(list(nets), streams, list(cfgs), list(seeds))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=12)
    ap.add_argument("--json")
    a = ap.parse_args()
    torch.set_num_threads(1)
    data = tasks.sl_mnist("train", 512, SIDE, N_STEPS, repeat=1, seed=0)
    warm_up(data)
    rows = []
    for kind in KINDS:
        ms = members(kind, data.n_channels, a.steps)
        t0 = time.process_time()
        loop = [
            pretrain.lsc_pretrain_(
                m, tasks.random_batches(data, BATCH, s), config=cfg, seed=s
            )
            for m, cfg, s in ms
        ]
        t_loop = time.process_time() - t0
        nets, cfgs, seeds = zip(*members(kind, data.n_channels, a.steps))
        streams = [tasks.random_batches(data, BATCH, s) for s in seeds]
        t0 = time.process_time()
        ens = pretrain_ensemble(list(nets), streams, list(cfgs), list(seeds))
        t_ens = time.process_time() - t0
        same = sum(
            (r.steps, r.converged) == (q.steps, q.converged) for r, q in zip(ens, loop)
        )
        diff = max(
            abs(r.history["mean_radius"][-1] - q.history["mean_radius"][-1])
            for r, q in zip(ens, loop)
        )
        rows.append(
            dict(
                network=models.RNN_LABELS[kind],
                members=len(ms),
                steps=a.steps,
                loop_s=t_loop,
                ensemble_s=t_ens,
                speedup=t_loop / t_ens,
                same_steps_and_stop=same,
                max_radius_diff=diff,
                member_steps=[r.steps for r in ens],
            )
        )
        print(
            f"| {models.RNN_LABELS[kind]} | {len(ms)} | {t_loop:.1f} | {t_ens:.1f} "
            f"| {t_loop / t_ens:.2f}x | {same}/{len(ms)} | {diff:.1e} |",
            flush=True,
        )
    if a.json:
        with open(a.json, "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
