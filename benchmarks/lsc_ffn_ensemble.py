"""Benchmark (not a timed test): Fig. 2's grid of one activation trained as one batched ensemble
(:func:`rnnbook.lsc.ffn_mnist.train_ensemble`, stacked weights) vs a loop of single networks
(:func:`rnnbook.lsc.experiments.fit`, pytorch-optimizer's AdaBelief in Lookahead), at the book's
sizes: 30 layers x 128, batch 32, E = 3 initializations x 2 learning rates x 3 seeds = 18 networks.
Both do the same updates (``tests/lsc/test_ffn_mnist.py`` checks it); CPU seconds per step.

Run:  .venv/bin/python benchmarks/lsc_ffn_ensemble.py [--steps 20] [--members 18] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import time

import torch
import torch.nn.functional as F

from rnnbook.lsc import experiments, ffn_mnist
from rnnbook.lsc.models import FFN
from rnnbook.lsc.tasks import MnistSplits


def data(n=2000, seed=0) -> MnistSplits:
    g = torch.Generator().manual_seed(seed)
    x = torch.rand(n, 784, generator=g)
    y = torch.randint(10, (n,), generator=g)
    return MnistSplits(x, y, x[:200], y[:200], x[:200], y[:200])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--members", type=int, default=18)
    ap.add_argument("--json", default=None)
    a = ap.parse_args()
    torch.set_num_threads(1)
    d, E, steps = data(), a.members, a.steps
    models = [FFN(784, 128, 30, seed=s) for s in range(E)]
    t0 = time.process_time()
    ens = ffn_mnist.FFNEnsemble.stack(models)
    ffn_mnist.train_ensemble(
        ens, [1e-3] * E, list(range(E)), d, steps, steps, 10**6, [steps]
    )
    t_ens = (time.process_time() - t0) / steps
    t0 = time.process_time()
    for s, m in enumerate(models):
        cfg = experiments.TrainConfig(
            lr=1e-3, max_steps=steps, eval_every=steps, seed=s
        )

        def batch(gen):
            idx = torch.randint(len(d.ytr), (32,), generator=gen)
            return d.xtr[idx], d.ytr[idx]

        experiments.fit(
            m,
            batch,
            lambda m, x, y: F.cross_entropy(m(x), y),
            lambda m: F.cross_entropy(m(d.xva), d.yva),
            cfg,
        )
    t_loop = (time.process_time() - t0) / steps
    out = dict(members=E, ensemble_s_per_step=t_ens, loop_s_per_step=t_loop)
    out["speedup"] = t_loop / t_ens
    print(json.dumps(out, indent=1))
    if a.json:
        with open(a.json, "w") as f:
            json.dump(out, f)


if __name__ == "__main__":
    main()
