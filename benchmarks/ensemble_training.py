"""Benchmark (not a timed test): training a grid of small RNNs as one batched ensemble
(``rnnbook.mean_field.trainability.GridRNN``: stacked weights, one forward/backward pass, one Adam)
against a loop of single networks trained one after the other with the same code, at the book's
sizes of the mean-field training chapter: Fig. 3 (sequential MNIST, T = 196, width 32, batch 32,
4 tied initializations x seeds, vanilla RNN and minimalRNN) and Fig. 2 (MNIST then 16 noise steps,
pooled 4x4, width 32, batch 32, the 17 minimalRNN hyperparameters x tied/untied x seeds). CPU time,
one thread.

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
        x = X[idx].reshape(G * batch, T, -1).transpose(0, 1)  # (T, G x batch, M)
        return x.reshape(T, G, batch, -1), Y[idx]

    return make_batch


def cpu_seconds(f) -> float:
    t = time.process_time()
    f()
    return time.process_time() - t


def ensemble(kind, specs, groups, X, Y, args):
    M = X.shape[1] // args.T
    net = tr.GridRNN(kind, specs, args.width, M, args.T, groups=groups)
    G = max(groups) + 1
    batches = make_batches(X, Y, args.T, G, args.batch, 0)
    return cpu_seconds(lambda: tr.train(net, batches, args.steps, 3e-3))


def loop(kind, specs, X, Y, args):
    def run():
        for k, s in enumerate(specs):
            net = tr.GridRNN(
                kind, [s], args.width, X.shape[1] // args.T, args.T, seed=k
            )
            tr.train(
                net, make_batches(X, Y, args.T, 1, args.batch, k), args.steps, 3e-3
            )

    return cpu_seconds(run)


def fig2_specs():
    from rnnbook.mean_field import trainable_depth as td

    hps = [hp for s in td.fig2_sweeps().values() if s.kind == "minimal" for hp in s.hps]
    return [tr.InitSpec(*hp, 0.0, tied=t) for t in (False, True) for hp in hps]


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
    pooled = argparse.Namespace(
        **{**vars(args), "T": 17}
    )  # Fig. 2: image + 16 noise steps
    X2 = torch.randn(
        2000, 17 * 49
    )  # stands in for (image, noise) sequences of 49 inputs
    cases = {
        "Fig. 3 vanilla": ("vanilla", setup.specs["vanilla"], X, args),
        "Fig. 3 minimalRNN": ("minimal", setup.specs["minimal"], X, args),
        "Fig. 2 minimalRNN": ("minimal", fig2_specs(), X2, pooled),
    }
    rows = []
    tr.train(
        tr.GridRNN("vanilla", setup.specs["vanilla"], 8, 4, 4),
        lambda s: (torch.randn(4, 2, 4), torch.zeros(2, dtype=torch.long)),
        2,
        1e-3,
    )  # warm-up
    for name, (kind, base, data, a) in cases.items():
        for n in args.seeds:
            specs, groups = tr.replicate(base, n)
            with tr.flush_denormals():
                t_ens = ensemble(kind, specs, groups, data, Y, a)
                t_loop = loop(kind, specs, data, Y, a)
            rows.append((name, len(specs), t_loop, t_ens))
            print(
                f"{name:18s} {len(specs):3d} networks: loop {t_loop:7.2f} s, "
                f"ensemble {t_ens:6.2f} s, speed-up {t_loop / t_ens:5.1f}x"
            )
    fig, ax = plt.subplots(figsize=(6.4, 4))
    for name, col in zip(cases, ("C0", "C3", "C2")):
        K = [r[1] for r in rows if r[0] == name]
        ax.plot(
            K,
            [r[2] / r[3] for r in rows if r[0] == name],
            "-o",
            color=col,
            label=name,
        )
    ax.axhline(5, color="grey", ls="--", lw=1, label="target 5x")
    ax.set(
        xscale="log",
        xlabel="networks trained together (initializations x seeds)",
        ylabel="speed-up over a loop of single networks",
        title=f"Ensemble training (CPU, 1 thread), width {args.width}, batch {args.batch}",
    )
    ax.legend()
    fig.patch.set_facecolor("white")
    fig.tight_layout()
    fig.savefig(args.out, dpi=120)
    for name, K, t_loop, t_ens in rows:  # the book trains 3 seeds
        if K in (12, 102):
            print(f"book size ({name}, {K} networks): ratio {t_loop / t_ens:.1f}x")


if __name__ == "__main__":
    main()
