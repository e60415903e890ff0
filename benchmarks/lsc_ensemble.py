"""Benchmark (not a timed test): the ensemble trainer of Figs. 3-4 (``rnnbook.lsc.ensemble``: the
runs of one architecture stacked and trained as one batched model) against a loop of single models
trained by ``rnnbook.lsc.experiments.train_seq``, at the sizes of the book profile (one thread).

Both do the same work per run: the same steps, batches and validations (the ensemble also scores
the test set at each validation). The ratio is loop CPU time over ensemble CPU time.

Run:  .venv/bin/python benchmarks/lsc_ensemble.py [--steps 50] [--json out.json] [--png fig.png]
"""

from __future__ import annotations

import argparse
import json
import time

import torch

from rnnbook.lsc import ensemble, experiments, models, tasks

CASES = [  # (name, kind, depth, width, members): Fig. 3 (9 = 3 conditions x 3 seeds), Table I
    ("GRU L=2, sl-MNIST", "gru", 2, 13, 9),
    ("LSTM L=5, sl-MNIST", "lstm", 5, 10, 9),
    ("ReLU-RNN L=5, sl-MNIST", "relu_rnn", 5, 32, 9),
    ("ALIF+ L=5, sl-MNIST", "alif_plus", 5, 32, 6),
    ("LRU L=3, words", "lru", 3, 32, 24),
]


def build(kind, depth, width, task, seed):
    if kind == "lru":
        return models.make_lru(depth, task.n_out, width, seed)
    return models.make_rnn(kind, depth, task.n_in, width, task.n_out, seed)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=50)
    ap.add_argument("--json")
    ap.add_argument("--png")
    a = ap.parse_args()
    torch.set_num_threads(1)
    spikes = tasks.build_task("sl-mnist", 1000, 128, 256, T=10, side=14)
    words = tasks.build_task("ptb-standin", 4000, 300, 400, T=16, vocab=2000)
    rows = []
    for name, kind, depth, width, E in CASES:
        task = words if kind == "lru" else spikes
        batch = 16 if kind == "lru" else 32
        ms = [build(kind, depth, width, task, s) for s in range(E)]
        cfg = ensemble.EnsembleConfig(
            lr=1e-2, batch=batch, max_steps=a.steps, eval_every=25, patience=100
        )
        t0 = time.process_time()
        ensemble.train(ms, task, cfg)
        t_ens = time.process_time() - t0
        t0 = time.process_time()
        for s in range(E):
            one = experiments.TrainConfig(
                lr=1e-2, batch=batch, max_steps=a.steps, eval_every=25, patience=100
            )
            experiments.train_seq(build(kind, depth, width, task, s), task, one)
        t_loop = time.process_time() - t0
        rows.append(dict(case=name, members=E, loop_s=t_loop, ensemble_s=t_ens))
        print(
            f"{name:26s} E={E:2d} loop {t_loop:6.2f} s  ensemble {t_ens:6.2f} s  "
            f"ratio {t_loop / t_ens:4.1f}x",
            flush=True,
        )
    if a.json:
        with open(a.json, "w") as f:
            json.dump(rows, f, indent=1)
    if a.png:
        import matplotlib.pyplot as plt

        fig, ax = plt.subplots(figsize=(6.4, 3.2))
        names = [r["case"] for r in rows]
        ax.barh(names, [r["loop_s"] / r["ensemble_s"] for r in rows], color="#4477aa")
        ax.axvline(1, color="grey", lw=1)
        ax.set(
            xlabel="speed-up of the ensemble over a loop of single models (CPU time)"
        )
        fig.tight_layout()
        fig.savefig(a.png, facecolor="white")


if __name__ == "__main__":
    main()
