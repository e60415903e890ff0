"""Fig. 3 of Herranz-Celotti & Rouat (Sec. III-C): six deep RNNs with and without LSC pre-training.

The sigma-RNN, ReLU-RNN, GRU and LSTM (differentiable) and the spiking ALIF+ and ALIF+- at two depths,
pre-trained to rho_t = 0.5 or 1 (ALIF: only 1, Sec. II-E) or not at all, trained on sl-MNIST, the SHD
stand-in and the PTB stand-in. :func:`run_grid` runs (or reads from the run cache) every
(task, network, depth, condition, seed); :class:`Runs` recomputes the paper's comparison rates: how
often rho_t = 0.5 beats rho_t = 1 and no pre-training, per depth, and how often rho_t = 1 beats no
pre-training for ALIF.
"""

from __future__ import annotations

import sys
from dataclasses import asdict, dataclass, fields

import numpy as np

from rnnbook import plotting

from . import experiments, tasks
from .models import DIFFERENTIABLE, RNN_LABELS, make_rnn

CONDITIONS = ("none", 0.5, 1.0)
TASKS = tasks.TASKS


@dataclass(frozen=True)
class Grid:
    """The scale of the runs: the chapter's parameters of the same names."""

    profile: str
    seeds: int
    tasks: list
    kinds: list
    depths: list
    width: int
    T_slmnist: int
    side: int
    T_shd: int
    shd_channels: int
    shd_rates: list
    shd_pitches: list
    T_ptb: int
    vocab: int
    n_train: int
    n_val: int
    n_test: int
    steps: int
    eval_every: int
    lr_diff: list
    lr_alif: list
    pre_steps: int
    pre_batch: int

    def __post_init__(self) -> None:
        if len(self.lr_diff) != 3 or len(self.lr_alif) != 3:
            raise ValueError(
                "parameters 'lr_diff' and 'lr_alif' need 3 values each "
                "(sl-MNIST, SHD, PTB)"
            )

    @classmethod
    def of(cls, params) -> "Grid":
        """The grid from an object with these attributes (the chapter's resolved parameters)."""
        return cls(**{f.name: getattr(params, f.name) for f in fields(cls)})

    @property
    def patience(self) -> int:
        """Validations without improvement before stopping: 10 at paper, 2 below."""
        return 10 if self.profile == "paper" else 2

    def task_args(self, task: str) -> dict:
        return {
            "sl-mnist": dict(T=self.T_slmnist, side=self.side),
            "shd-standin": dict(
                T=self.T_shd,
                n_channels=self.shd_channels,
                rates=self.shd_rates,
                pitches=self.shd_pitches,
            ),
            "ptb-standin": dict(T=self.T_ptb, vocab=self.vocab),
        }[task]

    def build_tasks(self) -> dict[str, tasks.SeqTask]:
        n = (self.n_train, self.n_val, self.n_test)
        return {t: tasks.build_task(t, *n, **self.task_args(t)) for t in self.tasks}

    def net_width(self, kind: str) -> int:
        """Tab. S1's ratios (comparable parameter counts): GRU 53/128, LSTM 42/128 of ``width``."""
        ratio = {"gru": 53 / 128, "lstm": 42 / 128}.get(kind, 1.0)
        return max(2, round(self.width * ratio))

    def lr(self, task: str, kind: str) -> float:
        lrs = self.lr_diff if kind in DIFFERENTIABLE else self.lr_alif
        return lrs[tasks.TASKS.index(task)]

    def runs(self) -> list[tuple]:
        """Every (task, kind, depth, condition, seed) of the grid, in the order they run."""
        return [
            (t, k, d, c, s)
            for t in self.tasks
            for k in self.kinds
            for d in self.depths
            for c in conditions(k)
            for s in range(self.seeds)
        ]

    def key(self, t: str, k: str, d: int, c, s: int) -> dict:
        """The cache key of one run (its parameters)."""
        return dict(
            task=t,
            task_args=self.task_args(t),
            n=(self.n_train, self.n_val, self.n_test),
            kind=k,
            depth=d,
            cond=c,
            seed=s,
            width=self.net_width(k),
            emb=self.width,
            lr=self.lr(t, k),
            steps=self.steps,
            eval_every=self.eval_every,
            patience=self.patience,
            pre_steps=self.pre_steps,
            pre_batch=self.pre_batch,
        )


def conditions(kind: str) -> list:
    """Fig. 3: none, 0.5 and 1 for the differentiable networks; none and 1 for ALIF (Sec. II-E)."""
    return ["none", 0.5, 1.0] if kind in DIFFERENTIABLE else ["none", 1.0]


def build(grid: Grid, kind: str, depth: int, task: tasks.SeqTask, seed: int):
    """The network of one run; on the word-level task an embedding of dimension ``width`` with a
    tied output (App. G)."""
    if task.kind == "lm":
        return make_rnn(
            kind,
            depth,
            grid.width,
            grid.net_width(kind),
            task.n_out,
            seed,
            vocab=task.n_out,
        )
    return make_rnn(kind, depth, task.n_in, grid.net_width(kind), task.n_out, seed)


def train_one(grid: Grid, task: tasks.SeqTask, k: str, d: int, c, s: int) -> dict:
    """One run of Fig. 3: build, pre-train to ``c`` (unless ``none``), train."""
    model = build(grid, k, d, task, s)
    rep = None
    if c != "none":
        rep = experiments.pretrain_seq(
            model, task, float(c), False, grid.pre_steps, grid.pre_batch, 2, s
        )
    cfg = experiments.TrainConfig(
        lr=grid.lr(task.name, k),
        batch=32,
        max_steps=grid.steps,
        eval_every=grid.eval_every,
        patience=grid.patience,
        seed=s,
    )
    res = experiments.train_seq(model, task, cfg)
    res["pretrain"] = experiments.report_summary(rep)
    return res


def run_grid(grid: Grid, task_data: dict[str, tasks.SeqTask]) -> "Runs":
    """Every run of the grid, from the run cache where it is there."""
    code, results = sys.modules[__name__], {}
    for t, k, d, c, s in plotting.progress(grid.runs(), desc="Fig. 3 runs"):
        results[(t, k, d, c, s)] = experiments.cached(
            "rnn",
            grid.key(t, k, d, c, s),
            lambda: train_one(grid, task_data[t], k, d, c, s),
            code=code,
        )
    return Runs(grid, {t: task_data[t].kind for t in grid.tasks}, results)


def _rate(flags: list) -> float:
    return np.mean(flags) if flags else float("nan")


@dataclass
class Runs:
    """The raw results, keyed by (task, kind, depth, condition, seed); ``task_kinds`` says which
    tasks are classification (``classify``) and which language modelling (``lm``)."""

    grid: Grid
    task_kinds: dict
    results: dict

    def scores(self, t: str, k: str, d: int, c) -> list[float]:
        """The figure of merit per seed (higher is better): test mode accuracy or minus perplexity."""
        kind = self.task_kinds[t]
        return [
            experiments.score(self.results[(t, k, d, c, s)], kind)
            for s in range(self.grid.seeds)
        ]

    def perf(self, t: str, k: str, d: int, c) -> float:
        """Mean over seeds of the figure of merit."""
        return float(np.mean(self.scores(t, k, d, c)))

    def table(self) -> str:
        """Mean ± sd per (task, network, depth) and condition, and the converged pre-trainings."""
        g, rows = self.grid, []
        for t in g.tasks:
            for k in g.kinds:
                for d in g.depths:
                    cells = []
                    for c in CONDITIONS:
                        if c not in conditions(k):
                            cells.append("-")
                            continue
                        v = self.scores(t, k, d, c)
                        fmt = ".3f" if self.task_kinds[t] == "classify" else ".0f"
                        cells.append(f"{abs(np.mean(v)):{fmt}} ± {np.std(v):{fmt}}")
                    conv = [
                        self.results[(t, k, d, c, s)]["pretrain"]["converged"]
                        for c in (0.5, 1.0)
                        if c in conditions(k)
                        for s in range(g.seeds)
                    ]
                    rows.append(
                        f"| {t} | {RNN_LABELS[k]} | {d} | "
                        + " | ".join(cells)
                        + f" | {sum(conv)}/{len(conv)} |"
                    )
        return (
            "| task | network | L | none | $\\rho_t=0.5$ | $\\rho_t=1$ "
            "| pre-trainings converged |\n|---|---|---|---|---|---|---|\n"
            + "\n".join(rows)
        )

    def rates(self) -> dict:
        """Per depth: the fraction of (task, network) pairs where rho_t = 0.5 beats rho_t = 1
        (``half>one``) and no pre-training (``half>none``), over the differentiable networks, and
        where rho_t = 1 beats no pre-training over ALIF (``one>none-alif``)."""
        g = self.grid
        diff = [(t, k) for t in g.tasks for k in g.kinds if k in DIFFERENTIABLE]
        alif = [(t, k) for t in g.tasks for k in g.kinds if k not in DIFFERENTIABLE]
        rate = {}
        for d in g.depths:
            p = self.perf
            rate[("half>one", d)] = _rate([p(*x, d, 0.5) > p(*x, d, 1.0) for x in diff])
            rate[("half>none", d)] = _rate(
                [p(*x, d, 0.5) > p(*x, d, "none") for x in diff]
            )
            rate[("one>none-alif", d)] = _rate(
                [p(*x, d, 1.0) > p(*x, d, "none") for x in alif]
            )
        return rate

    def rates_table(self) -> str:
        r = self.rates()
        rows = [
            f"| {d} | {r[('half>one', d)]:.0%} | {r[('half>none', d)]:.0%} "
            f"| {r[('one>none-alif', d)]:.0%} |"
            for d in self.grid.depths
        ]
        return (
            "| depth | $\\rho_t=0.5$ beats $\\rho_t=1$ | $\\rho_t=0.5$ beats none "
            "| ALIF: $\\rho_t=1$ beats none |\n|---|---|---|---|\n" + "\n".join(rows)
        )

    def comparisons(self) -> dict:
        """What the three claims of Fig. 3 measure, with the grid's scale."""
        g, rate, res = self.grid, self.rates(), self.results
        n_diff = len([k for k in g.kinds if k in DIFFERENTIABLE])
        n_alif = len(g.kinds) - n_diff
        n_pairs, n_alif_pairs = len(g.tasks) * n_diff, len(g.tasks) * n_alif
        conv_diff = [
            res[k]["pretrain"]["converged"]
            for k in res
            if k[3] != "none" and k[1] in DIFFERENTIABLE
        ]
        conv_alif = [
            res[k]["pretrain"]["converged"]
            for k in res
            if k[3] == 1.0 and k[1] not in DIFFERENTIABLE
        ]
        deep, shallow = g.depths[-1], g.depths[0]

        def by_depth(name: str, n: int) -> str:
            return "; ".join(
                f"depth {d}: {rate[(name, d)]:.0%} of {n}" for d in g.depths
            )

        half_one = [rate[("half>one", d)] for d in g.depths]
        return dict(
            asdict(g),
            n_seeds=g.seeds,
            patience=g.patience,
            width_gru=g.net_width("gru"),
            width_lstm=g.net_width("lstm"),
            n_pairs=n_pairs,
            n_alif_pairs=n_alif_pairs,
            conv_diff=sum(conv_diff),
            n_conv_diff=len(conv_diff),
            conv_alif=sum(conv_alif),
            n_conv_alif=len(conv_alif),
            half_one=half_one,
            half_one_pooled=float(np.mean(half_one)),
            half_one_by_depth=by_depth("half>one", n_pairs),
            half_none_deep=rate[("half>none", deep)],
            half_none_shallow=rate[("half>none", shallow)],
            half_none_by_depth=by_depth("half>none", n_pairs),
            alif_deep=rate[("one>none-alif", deep)],
            alif_shallow=rate[("one>none-alif", shallow)],
            alif_by_depth=by_depth("one>none-alif", n_alif_pairs),
        )
