"""Time the book's own LSC ensemble trainer per network-step on the CPU and, where CUDA is
present, on the GPU, eager and with the training step captured as a CUDA graph.

    .venv/bin/python benchmarks/gpu_ensemble.py                       # 9, 144, 576 networks
    .venv/bin/python benchmarks/gpu_ensemble.py --counts 2 4 --steps 3  # a quick CPU check

The case is the issue's: GRU networks of depth 5 and width 128, T = 50, batch 32, forward +
backward + AdaBelief in Lookahead (``rnnbook.lsc.ensemble.train`` without validation). Writes
``benchmarks/gpu_ensemble.json`` and ``benchmarks/gpu_ensemble.png``. A case that does not fit
(or a device that is absent) is reported as skipped, with the reason.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np
import torch

from rnnbook import device as devices
from rnnbook.lsc import ensemble, models, tasks

HERE = Path(__file__).parent


def spike_task(n: int, T: int, C: int) -> tasks.SeqTask:
    rng = np.random.default_rng(0)
    labels = rng.integers(0, 10, n)
    times = [rng.integers(0, T, 20) for _ in labels]
    chans = [rng.integers(0, C, 20) for _ in labels]
    data = tasks.SpikeDataset(times, chans, labels, T, C, 10)
    return tasks.SeqTask("sl-mnist", "classify", C, 10, data, data, data, T)


def time_case(E, dev, graphs, steps, depth, width, T) -> float:
    """Seconds per training step of an ensemble of E GRUs: the difference between a run of
    ``steps + 1`` steps and a run of 1 step, so that building the ensemble, capturing the graph
    and the two validations (at the start and at the end) cancel."""
    task = spike_task(64, T, 28)
    ms = [models.make_rnn("gru", depth, 28, width, 10, s) for s in range(E)]

    def run(n: int) -> float:
        cfg = ensemble.EnsembleConfig(
            lr=1e-3, max_steps=n, eval_every=10**9, device=dev, graphs=graphs
        )
        devices.synchronize(dev)
        t0 = time.perf_counter()
        ensemble.train(ms, task, cfg)
        devices.synchronize(dev)
        return time.perf_counter() - t0

    run(1)  # warm-up
    return (run(steps + 1) - run(1)) / steps


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--counts", type=int, nargs="+", default=[9, 144, 576])
    ap.add_argument("--steps", type=int, default=10)
    ap.add_argument("--depth", type=int, default=5)
    ap.add_argument("--width", type=int, default=128)
    ap.add_argument("--T", type=int, default=50)
    ap.add_argument("--cpu-max", type=int, default=36, help="largest CPU ensemble")
    ap.add_argument(
        "--devices",
        nargs="+",
        default=["cpu", "cuda"],
        choices=["cpu", "cuda"],
        help="where to time (cuda: eager and captured, where present)",
    )
    ap.add_argument("--out", type=Path, default=HERE, help="folder of the JSON and PNG")
    args = ap.parse_args()
    torch.set_num_threads(max(1, torch.get_num_threads()))
    cases = [("cpu", False)] if "cpu" in args.devices else []
    if "cuda" in args.devices and torch.cuda.is_available():
        cases += [("cuda", False), ("cuda", True)]
    rows = []
    for dev, graphs in cases:
        for E in args.counts:
            row = dict(device=dev, graphs=graphs, networks=E, depth=args.depth)
            row.update(width=args.width, T=args.T, batch=32)
            if dev == "cpu" and E > args.cpu_max:
                row["skipped"] = (
                    f"more than --cpu-max={args.cpu_max} networks on the CPU"
                )
            else:
                try:
                    s = time_case(
                        E, dev, graphs, args.steps, args.depth, args.width, args.T
                    )
                    row.update(s_per_step=s, ms_per_network_step=1e3 * s / E)
                except (RuntimeError, torch.cuda.OutOfMemoryError) as e:
                    row["skipped"] = f"{type(e).__name__}: {str(e)[:200]}"
            print(row, flush=True)
            rows.append(row)
    record(args.out / "gpu_ensemble.json", rows)
    plot(json.loads((args.out / "gpu_ensemble.json").read_text()), args.out)


def record(path: Path, rows: list[dict]) -> None:
    """Add a run to the JSON record at ``path``: its CPU rows replace the CPU rows there (with
    this machine's description), its GPU rows are appended as one more GPU run (machine, date),
    so that a CPU re-run keeps the GPU runs made on a lent machine, and the other way round."""
    old = json.loads(path.read_text()) if path.exists() else {}
    cpu = [r for r in rows if r["device"] == "cpu"]
    gpu = [r for r in rows if r["device"] == "cuda"]
    if cpu:
        old["machine"] = devices.describe("cpu") | {
            "cpu_threads": torch.get_num_threads()
        }
        old["rows"] = cpu
    if gpu:
        run = dict(machine=devices.describe("cuda"), date=time.strftime("%Y-%m-%d"))
        old.setdefault("gpu_runs", []).append(run | {"rows": gpu})
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(old, indent=1))


def plot(record: dict, folder: Path) -> None:
    """Time per network-step against the ensemble's size: the CPU rows and every GPU run."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    series = [
        (
            "CPU, " + f"{record['machine']['cpu_threads']} threads",
            record.get("rows", []),
        )
    ]
    for i, run in enumerate(record.get("gpu_runs", [])):
        series.append((f"{run['machine']['name']} (run {i + 1})", run["rows"]))
    fig, ax = plt.subplots(figsize=(6.4, 4.2), facecolor="white")
    styles = iter(["-", "--", ":", "-."] * 4)
    for name, rows in series:
        for graphs in (False, True):
            pts = [
                r for r in rows if r["graphs"] == graphs and "ms_per_network_step" in r
            ]
            if pts:
                label = name + (", CUDA graph" if graphs else ", eager")
                x = [r["networks"] for r in pts]
                y = [r["ms_per_network_step"] for r in pts]
                ax.loglog(x, y, "o" if graphs else "s", ls=next(styles), label=label)
    ax.set_xlabel("networks in the ensemble")
    ax.set_ylabel("time per network-step (ms)")
    ax.set_title("LSC GRU ensemble trainer (depth 5, width 128, T = 50, batch 32)")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(folder / "gpu_ensemble.png", dpi=120)


if __name__ == "__main__":
    main()
