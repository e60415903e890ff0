"""Benchmark (not a timed test): training a grid of small RNNs as one batched ensemble
(``rnnbook.mean_field.trainability.GridRNN``: stacked weights, one forward/backward pass, one Adam)
against a loop of single networks trained one after the other with the same code, at the book's
sizes of the Fig. 3 experiment of the mean-field chapter (sequential MNIST, T = 196, width 32,
batch 32, 4 initializations x seeds, vanilla RNN and minimalRNN). CPU time, one thread.

Run:  PYTHONPATH=src .venv/bin/python benchmarks/ensemble_training.py [--steps 3] [--seeds 1 2 3 5]
Writes benchmarks/ensemble_training.png and prints the speed-up of the ensemble at each size.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import torch  # noqa: E402

from rnnbook.mean_field import trainability as tr  # noqa: E402
from rnnbook.mean_field import training_speed as ts  # noqa: E402


def make_batches(X, Y, T, G, batch, seed):
    gen = torch.Generator().manual_seed(seed)

    def make_batch(step):
        idx = torch.randint(0, len(X), (G, batch), generator=gen)
        x = tr.sequential_mnist(X[idx].reshape(G * batch, -1), T)
        return x.reshape(T, G, batch, -1), Y[idx]

    return make_batch


def cpu_seconds(f) -> float:
    t = time.process_time()
    f()
    return time.process_time() - t


def ensemble(kind, specs, groups, X, Y, args):
    net = tr.GridRNN(kind, specs, args.width, 784 // args.T, args.T, groups=groups)
    G = max(groups) + 1
    batches = make_batches(X, Y, args.T, G, args.batch, 0)
    return cpu_seconds(lambda: tr.train(net, batches, args.steps, 3e-3))


def loop(kind, specs, X, Y, args):
    def run():
        for k, s in enumerate(specs):
            net = tr.GridRNN(kind, [s], args.width, 784 // args.T, args.T, seed=k)
            tr.train(
                net, make_batches(X, Y, args.T, 1, args.batch, k), args.steps, 3e-3
            )

    return cpu_seconds(run)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--steps", type=int, default=3, help="Adam steps per measurement")
    ap.add_argument("--seeds", type=int, nargs="+", default=[1, 3, 5])
    ap.add_argument("--T", type=int, default=196)
    ap.add_argument("--width", type=int, default=32)
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--out", default=str(Path(__file__).with_suffix(".png")))
    args = ap.parse_args()
    torch.set_num_threads(1)
    torch.manual_seed(0)
    X = torch.randn(2000, 784)
    Y = torch.randint(0, 10, (2000,))
    setup = ts.initializations(X, args.T, args.width, 1.0, 0)
    rows = []
    for kind in ("vanilla", "minimal"):
        for n in args.seeds:
            specs, groups = tr.replicate(setup.specs[kind], n)
            with tr.flush_denormals():
                t_ens = ensemble(kind, specs, groups, X, Y, args)
                t_loop = loop(kind, specs, X, Y, args)
            rows.append((kind, len(specs), t_loop, t_ens))
            print(
                f"{kind:8s} {len(specs):3d} networks: loop {t_loop:7.2f} s, "
                f"ensemble {t_ens:6.2f} s, speed-up {t_loop / t_ens:5.1f}x"
            )
    fig, ax = plt.subplots(figsize=(6, 4))
    for kind, col in (("vanilla", "C0"), ("minimal", "C3")):
        K = [r[1] for r in rows if r[0] == kind]
        ax.plot(
            K,
            [r[2] / r[3] for r in rows if r[0] == kind],
            "-o",
            color=col,
            label=f"{kind} RNN",
        )
    ax.axhline(5, color="grey", ls="--", lw=1, label="target 5x")
    ax.set(
        xlabel="networks trained together (4 initializations x seeds)",
        ylabel="speed-up over a loop of single networks",
        title=f"Ensemble training, T={args.T}, width {args.width}, batch {args.batch}",
    )
    ax.legend()
    fig.patch.set_facecolor("white")
    fig.tight_layout()
    fig.savefig(args.out, dpi=120)
    book = [r for r in rows if r[1] == 12]
    for kind, K, t_loop, t_ens in book:
        print(f"book size ({kind}, {K} networks): ratio {t_loop / t_ens:.1f}x")


if __name__ == "__main__":
    main()
