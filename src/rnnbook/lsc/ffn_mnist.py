"""Fig. 2 of Herranz-Celotti & Rouat (Sec. II-E, III-A): deep feed-forward nets on MNIST.

30-layer FFNs of width 128 with ReLU, sin or cos, initialized as Glorot, as He, or as Glorot followed
by LSC pre-training to rho_t = 1, trained over a grid of learning rates and seeds with AdaBelief in
Lookahead and early stopping (Sec. II-G). :func:`run_grid` runs (or reads from the run cache) every
(activation, initialization, learning rate, seed); :class:`Runs` turns the test accuracies into the
paper's three comparisons: LSC best "in most scenarios", LSC above its Glorot start, and LSC matching
He on ReLU at a higher learning rate.
"""

from __future__ import annotations

import sys
from dataclasses import asdict, dataclass, fields
from typing import Iterator

import numpy as np
import torch
import torch.nn.functional as F
from torch import Tensor

from rnnbook import plotting

from . import experiments, pretrain
from .models import FFN
from .tasks import MnistSplits

INITS = ("glorot", "he", "glorot+lsc")
PAPER_LRS = [1e-2, 3.16e-3, 1e-3, 3.16e-4, 1e-4, 3.16e-5, 1e-5]
ACTS = ("relu", "sin", "cos")


@dataclass(frozen=True)
class Grid:
    """The scale of the runs: the chapter's parameters of the same names."""

    acts: tuple[str, ...]
    lrs: tuple[float, ...]
    seeds: int
    depth: int
    width: int
    n_train: int
    n_val: int
    n_test: int
    steps: int
    eval_every: int
    patience: int
    pre_steps: int
    pre_batch: int

    @classmethod
    def of(cls, params) -> "Grid":
        """The grid from an object with these attributes (the chapter's resolved parameters)."""
        return cls(**{f.name: getattr(params, f.name) for f in fields(cls)})

    def key(self, act: str, init: str, lr: float, seed: int) -> dict:
        """The cache key of one run (its parameters)."""
        base = {f: getattr(self, f) for f in _KEY_FIELDS}
        return dict(base, batch=32, act=act, init=init, lr=lr, seed=seed)


_KEY_FIELDS = (
    "depth",
    "width",
    "n_train",
    "n_val",
    "n_test",
    "steps",
    "eval_every",
    "patience",
    "pre_steps",
    "pre_batch",
)


def pretrain_ffn(
    model: FFN, data: MnistSplits, max_steps: int, batch: int, seed: int
) -> pretrain.LSCReport:
    """LSC pre-training of an FFN to rho_t = 1 on the training images (Sec. II-E)."""
    g = torch.Generator().manual_seed(seed + 999)

    def batches() -> Iterator[Tensor]:
        while True:
            yield data.xtr[torch.randint(len(data.ytr), (batch,), generator=g)]

    return pretrain.pretrain(
        model,
        batches(),
        pretrain.LSCConfig(target=1.0, max_steps=max_steps, n_times=None),
        seed=seed,
    )


def train_ffn(model: FFN, data: MnistSplits, cfg: experiments.TrainConfig) -> dict:
    """Train on the training images, early-stop on the validation loss; adds the test accuracy."""
    n = len(data.ytr)

    def batch(gen):
        idx = torch.randint(n, (cfg.batch,), generator=gen)
        return data.xtr[idx], data.ytr[idx]

    def loss_fn(m, x, y):
        return F.cross_entropy(m(x), y)

    res = experiments.fit(
        model, batch, loss_fn, lambda m: F.cross_entropy(m(data.xva), data.yva), cfg
    )
    with torch.no_grad():
        logits = model(data.xte)
        res["test_acc"] = float((logits.argmax(-1) == data.yte).float().mean())
    return res


def train_one(
    grid: Grid,
    data: MnistSplits,
    act: str,
    init: str,
    lr: float,
    seed: int,
    pre_model: FFN | None = None,
    pre_report: dict | None = None,
) -> dict:
    """One run of Fig. 2; ``glorot+lsc`` starts from ``pre_model`` (Glorot, pre-trained)."""
    model = FFN(
        784, grid.width, grid.depth, act=act, init=init.split("+")[0], seed=seed
    )
    if init == "glorot+lsc":
        model.load_state_dict(pre_model.state_dict())
    cfg = experiments.TrainConfig(
        lr=lr,
        max_steps=grid.steps,
        eval_every=grid.eval_every,
        patience=grid.patience,
        seed=seed,
    )
    res = train_ffn(model, data, cfg)
    if init == "glorot+lsc":
        res["pretrain"] = pre_report
    return res


def run_grid(grid: Grid, data: MnistSplits) -> "Runs":
    """Every run of the grid, from the run cache where it is there. Per (activation, seed) the Glorot
    net is copied and pre-trained once (only when one of its runs is not cached)."""
    code = sys.modules[__name__]
    results = {}
    jobs = [(a, s) for a in grid.acts for s in range(grid.seeds)]
    for act, seed in plotting.progress(jobs, desc="Fig. 2 runs"):
        pre_model = pre_report = None
        keys = [grid.key(act, "glorot+lsc", lr, seed) for lr in grid.lrs]
        if not all(experiments.is_cached("ffn", k, code=code) for k in keys):
            pre_model = FFN(784, grid.width, grid.depth, act=act, seed=seed)
            pre_report = experiments.report_summary(
                pretrain_ffn(pre_model, data, grid.pre_steps, grid.pre_batch, seed)
            )
        for init in INITS:
            for lr in grid.lrs:
                results[(act, init, lr, seed)] = experiments.cached(
                    "ffn",
                    grid.key(act, init, lr, seed),
                    lambda: train_one(
                        grid, data, act, init, lr, seed, pre_model, pre_report
                    ),
                    code=code,
                )
    return Runs(grid, results)


@dataclass
class Runs:
    """The raw results of the grid, keyed by (activation, initialization, learning rate, seed)."""

    grid: Grid
    results: dict

    @property
    def acc(self) -> dict[tuple, np.ndarray]:
        """Test accuracies over seeds, keyed by (activation, initialization, learning rate)."""
        g = self.grid
        return {
            (a, i, lr): np.array(
                [self.results[(a, i, lr, s)]["test_acc"] for s in range(g.seeds)]
            )
            for a in g.acts
            for i in INITS
            for lr in g.lrs
        }

    def pretrain_summary(self) -> str:
        """One line on the LSC pre-trainings (those run in this session)."""
        g, out = self.grid, []
        for a in g.acts:
            for s in range(g.seeds):
                p = self.results[(a, "glorot+lsc", g.lrs[0], s)].get("pretrain")
                if p:
                    conv = "converged" if p["converged"] else "NOT converged"
                    out.append(
                        f"{a} seed {s}: {conv} in {p['steps']} steps, "
                        f"mean radius {p['mean_radius']:.3f}"
                    )
        return "LSC pre-training of the FFNs: " + "; ".join(out)

    def table(self) -> str:
        """Mean ± sd of the test accuracy per (activation, learning rate) and initialization."""
        acc, rows = self.acc, []
        for a in self.grid.acts:
            for lr in self.grid.lrs:
                cells = [
                    f"{acc[(a, i, lr)].mean():.3f} ± {acc[(a, i, lr)].std():.3f}"
                    for i in INITS
                ]
                rows.append(f"| {a} | {lr:g} | " + " | ".join(cells) + " |")
        head = (
            "| activation | lr | Glorot | He | Glorot + LSC |\n|---|---|---|---|---|\n"
        )
        return head + "\n".join(rows)

    def comparisons(self) -> dict:
        """What the three claims of Fig. 2 measure (means over seeds), with the grid's scale."""
        g, acc = self.grid, self.acc
        mean = {k: v.mean() for k, v in acc.items()}
        cells = [(a, lr) for a in g.acts for lr in g.lrs]
        best = [
            c
            for c in cells
            if mean[(c[0], "glorot+lsc", c[1])]
            >= max(mean[(c[0], "glorot", c[1])], mean[(c[0], "he", c[1])])
        ]
        above = [
            c
            for c in cells
            if mean[(c[0], "glorot+lsc", c[1])] > mean[(c[0], "glorot", c[1])]
        ]
        out = dict(
            asdict(g),
            n_seeds=g.seeds,
            n_cells=len(cells),
            n_best=len(best),
            n_glorot=len(above),
            frac_best=len(best) / len(cells),
            frac_glorot=len(above) / len(cells),
        )
        return {**out, **relu_vs_he(acc, mean, g.acts, g.lrs)}


def relu_vs_he(acc: dict, mean: dict, acts, lrs) -> dict:
    """On ReLU: the best mean accuracy of He and of Glorot + LSC over the learning rates, whether
    they match within max(0.02, 2 sd over seeds) and whether LSC's best learning rate is higher.
    Needs ReLU and at least two learning rates (``attempted``)."""
    if "relu" not in acts or len(lrs) < 2:
        nan = float("nan")
        return dict(
            attempted=False, best="not run at this profile", relu_he=nan, relu_lsc=nan
        )
    inits = ("he", "glorot+lsc")
    best_lr = {
        i: lrs[int(np.argmax([mean[("relu", i, lr)] for lr in lrs]))] for i in inits
    }
    best_acc = {i: max(mean[("relu", i, lr)] for lr in lrs) for i in inits}
    sd_best = max(acc[("relu", i, best_lr[i])].std() for i in best_lr)
    tol = max(0.02, 2 * sd_best)
    he, lsc = best_acc["he"], best_acc["glorot+lsc"]
    return dict(
        attempted=True,
        relu_he=float(he),
        relu_lsc=float(lsc),
        tol=float(tol),
        match=bool(abs(he - lsc) <= tol),
        higher=bool(best_lr["glorot+lsc"] > best_lr["he"]),
        best=f"best mean test accuracy: He {he:.3f} at lr {best_lr['he']:g}, "
        f"Glorot+LSC {lsc:.3f} at lr {best_lr['glorot+lsc']:g} "
        f"(match tolerance max(0.02, 2 sd) = {tol:.3f})",
    )
