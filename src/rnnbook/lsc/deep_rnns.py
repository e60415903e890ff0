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
from rnnbook.stats import bootstrap_mean

from . import ensemble, experiments, tasks
from .models import DIFFERENTIABLE, RNN_LABELS, make_rnn

CONDITIONS = ("none", 0.5, 1.0)
TASKS = tasks.TASKS


@dataclass(frozen=True)
class Grid:
    """The scale of the runs: the chapter's parameters of the same names."""

    profile: str
    seed: int
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
    n_train_ptb: int
    n_val: int
    n_test: int
    steps: int
    steps_ptb: int
    eval_every: int
    lr_diff: list
    lr_alif: list
    pre_steps: int
    pre_batch: int
    device: str = (
        "cpu"  # where the runs train; not in the cache key (same runs up to rounding)
    )

    def __post_init__(self) -> None:
        if len(self.lr_diff) != 3 or len(self.lr_alif) != 3:
            raise ValueError(
                "parameters 'lr_diff' and 'lr_alif' need 3 values each "
                "(sl-MNIST, SHD, PTB)"
            )

    @classmethod
    def of(cls, params) -> "Grid":
        """The grid from an object with these attributes (the chapter's resolved parameters)."""
        return cls(
            **{
                f.name: getattr(params, f.name)
                for f in fields(cls)
                if hasattr(params, f.name)
            }
        )

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

    def sizes(self, task: str) -> tuple[int, int, int]:
        """(train, validation, test) sequences of a task: the word task has its own training
        set size (``n_train_ptb`` windows), the others ``n_train``."""
        n = self.n_train_ptb if task == "ptb-standin" else self.n_train
        return n, self.n_val, self.n_test

    def task_steps(self, task: str) -> int:
        """The training budget of a task: ``steps_ptb`` on the word task, ``steps`` otherwise."""
        return self.steps_ptb if task == "ptb-standin" else self.steps

    def build_tasks(self) -> dict[str, tasks.SeqTask]:
        return {
            t: tasks.build_task(t, *self.sizes(t), seed=self.seed, **self.task_args(t))
            for t in self.tasks
        }

    def member_seed(self, s: int) -> int:
        """The seed of run ``s`` (0 .. seeds-1), derived from the chapter's ``seed``."""
        return 1000 * self.seed + s

    def groups(self) -> list[tuple]:
        """The (task, kind, depth) of the grid: each is trained as one ensemble."""
        return [(t, k, d) for t in self.tasks for k in self.kinds for d in self.depths]

    def checkpoints(self) -> list[int]:
        """The training steps at which every run's test score is recorded (a task whose budget
        ends earlier carries its last score forward)."""
        ends = [self.task_steps(t) for t in self.tasks]
        return sorted(set(range(0, max(ends), self.eval_every)) | set(ends))

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

    def key(self, t: str, k: str, d: int) -> dict:
        """The cache key of one ensemble (its parameters and the ensemble trainer's source)."""
        return dict(
            task=t,
            task_args=self.task_args(t),
            n=self.sizes(t),
            kind=k,
            depth=d,
            seeds=[self.member_seed(s) for s in range(self.seeds)],
            width=self.net_width(k),
            emb=self.width,
            lr=self.lr(t, k),
            steps=self.task_steps(t),
            eval_every=self.eval_every,
            patience=self.patience,
            pre_steps=self.pre_steps,
            pre_batch=self.pre_batch,
            trainer=ensemble.source_hash(),
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


def train_group(grid: Grid, task: tasks.SeqTask, k: str, d: int) -> list[dict]:
    """The runs of one (task, network, depth): every condition x seed is built from its seed,
    pre-trained to its condition (unless ``none``), and all are trained together as one
    ensemble (runs of one seed see the same batches, whatever their condition)."""
    members = [(c, s) for c in conditions(k) for s in range(grid.seeds)]
    models, pre = [], []
    for c, s in members:
        ms = grid.member_seed(s)
        model = build(grid, k, d, task, ms)
        rep = None
        if c != "none":
            rep = experiments.pretrain_seq(
                model,
                task,
                float(c),
                False,
                grid.pre_steps,
                grid.pre_batch,
                2,
                ms,
                device=grid.device,
            )
        models.append(model)
        pre.append(experiments.report_summary(rep))
    cfg = ensemble.EnsembleConfig(
        lr=grid.lr(task.name, k),
        batch=32,
        max_steps=grid.task_steps(task.name),
        eval_every=grid.eval_every,
        patience=grid.patience,
        data_seeds=tuple(grid.member_seed(s) for _, s in members),
        device=grid.device,
    )
    out = ensemble.train(models, task, cfg)
    return [
        dict(r, cond=c, seed=s, pretrain=p) for (c, s), r, p in zip(members, out, pre)
    ]


def run_grid(grid: Grid, task_data: dict[str, tasks.SeqTask]) -> "Runs":
    """Every run of the grid, one ensemble per (task, network, depth), from the run cache where
    it is there."""
    code, results = sys.modules[__name__], {}
    for t, k, d in plotting.progress(grid.groups(), desc="Fig. 3 ensembles"):
        runs = experiments.cached(
            "rnn-ensemble",
            grid.key(t, k, d),
            lambda: train_group(grid, task_data[t], k, d),
            code=code,
        )
        for r in runs:
            c = r["cond"] if r["cond"] == "none" else float(r["cond"])
            results[(t, k, d, c, r["seed"])] = r
    bars = {t: trained_bar(task_data[t]) for t in grid.tasks}
    return Runs(grid, {t: task_data[t].kind for t in grid.tasks}, results, bars)


def trained_bar(task: tasks.SeqTask) -> float:
    """The trained-or-not bar of a task, on the figure of merit (higher is better): twice
    chance accuracy, or minus the test perplexity of the unigram model (word frequencies)."""
    if task.kind == "classify":
        return 2.0 / task.n_out
    return -unigram_perplexity(task)


def unigram_perplexity(task: tasks.SeqTask) -> float:
    """Test perplexity of the unigram model fitted on the training targets (add-one counts)."""
    n = task.size("train")
    y_tr = task.batch("train", np.arange(n))[1].reshape(-1).numpy()
    y_te = task.batch("test", np.arange(task.size("test")))[1].reshape(-1).numpy()
    counts = np.bincount(y_tr, minlength=task.n_out) + 1.0
    logp = np.log(counts / counts.sum())
    return float(np.exp(-logp[y_te].mean()))


RATES = ("half>one", "half>none", "one>none-alif")


@dataclass
class Runs:
    """The raw results, keyed by (task, kind, depth, condition, seed index); ``task_kinds`` says
    which tasks are classification (``classify``) and which language modelling (``lm``);
    ``bars`` gives each task's trained-or-not bar on the figure of merit (:func:`trained_bar`)."""

    grid: Grid
    task_kinds: dict
    results: dict
    bars: dict

    def scores(self, t: str, k: str, d: int, c) -> list[float]:
        """The figure of merit per seed (higher is better): test mode accuracy or minus perplexity."""
        kind = self.task_kinds[t]
        return [
            experiments.score(self.results[(t, k, d, c, s)], kind)
            for s in range(self.grid.seeds)
        ]

    def scores_at(self, t: str, k: str, d: int, c) -> np.ndarray:
        """(seeds, checkpoints): the figure of merit of the best validation checkpoint had
        training stopped at each of :meth:`Grid.checkpoints` (carried forward after a stop)."""
        cps, sign = (
            self.grid.checkpoints(),
            1 if self.task_kinds[t] == "classify" else -1,
        )
        out = np.full((self.grid.seeds, len(cps)), np.nan)
        for s in range(self.grid.seeds):
            at = dict(self.results[(t, k, d, c, s)]["best_test_at"])
            last = np.nan
            for j, step in enumerate(cps):
                last = at.get(step, last)
                out[s, j] = sign * last
        return out

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

    def _pairs(self, alif: bool) -> list[tuple]:
        g = self.grid
        return [
            (t, k) for t in g.tasks for k in g.kinds if (k in DIFFERENTIABLE) != alif
        ]

    def rates(self) -> dict:
        """Per rate and depth, an array (seeds, checkpoints): for each seed, the fraction of
        (task, network) pairs where rho_t = 0.5 beats rho_t = 1 (``half>one``) and no
        pre-training (``half>none``), over the differentiable networks, and where rho_t = 1
        beats no pre-training over ALIF (``one>none-alif``). NaN where there is no pair."""
        g, out = self.grid, {}
        shape = (g.seeds, len(g.checkpoints()))
        for d in g.depths:
            for name, a, b, alif in (
                ("half>one", 0.5, 1.0, False),
                ("half>none", 0.5, "none", False),
                ("one>none-alif", 1.0, "none", True),
            ):
                pairs = self._pairs(alif)
                wins = [
                    self.scores_at(*x, d, a) > self.scores_at(*x, d, b) for x in pairs
                ]
                out[(name, d)] = np.mean(wins, 0) if wins else np.full(shape, np.nan)
        return out

    def _both_trained(self, t: str, k: str, d: int, a, b) -> bool:
        """Both compared arms passed their task's bar (mean final score over seeds)."""
        return min(self.perf(t, k, d, a), self.perf(t, k, d, b)) >= self.bars[t]

    def pooled(self) -> dict:
        """What the Fig. 3 rules decide on, over the pairs whose two compared arms trained.
        Per rate and depth ``[wins, trials]`` over the (task, network, seed) trials (final
        scores); per rate the per-seed deepest-minus-shallowest difference of the win fractions,
        over the pairs trained at both depths (``gap``: a list over seeds, empty if none)."""
        g, out = self.grid, {}
        d0, d1 = g.depths[0], g.depths[-1]
        for name, a, b, alif in (
            ("half>one", 0.5, 1.0, False),
            ("half>none", 0.5, "none", False),
            ("one>none-alif", 1.0, "none", True),
        ):

            def wins(x, d, a=a, b=b):
                return self.scores_at(*x, d, a)[:, -1] > self.scores_at(*x, d, b)[:, -1]

            for d in g.depths:
                pairs = [
                    x for x in self._pairs(alif) if self._both_trained(*x, d, a, b)
                ]
                w = [wins(x, d) for x in pairs]
                out[(name, d)] = [int(np.sum(w)), int(np.size(w))]
            both = [
                x
                for x in self._pairs(alif)
                if self._both_trained(*x, d0, a, b) and self._both_trained(*x, d1, a, b)
            ]
            if both and d1 != d0:
                deep = np.mean([wins(x, d1) for x in both], 0)
                shallow = np.mean([wins(x, d0) for x in both], 0)
                out[(name, "gap")] = [float(v) for v in deep - shallow]
            else:
                out[(name, "gap")] = []
        return out

    def intervals(self) -> dict:
        """Per rate and depth, and per rate the deepest-minus-shallowest gap: (mean, lo, hi)
        arrays over checkpoints, the 95% percentile bootstrap interval over seeds (a rate's
        interval stays inside [0, 1], a gap's inside [-1, 1])."""
        g, r, out = self.grid, self.rates(), {}
        for name in RATES:
            for d in g.depths:
                out[(name, d)] = _bootstrap_columns(r[(name, d)])
            gap = r[(name, g.depths[-1])] - r[(name, g.depths[0])]
            out[(name, "gap")] = _bootstrap_columns(gap)
        return out

    def rates_table(self) -> str:
        iv = self.intervals()

        def cell(key):
            m, lo, hi = (float(a[-1]) for a in iv[key])
            return f"{m:.0%} [{lo:.0%}, {hi:.0%}]"

        rows = [
            f"| {d} | " + " | ".join(cell((n, d)) for n in RATES) + " |"
            for d in self.grid.depths
        ]
        rows.append(
            "| deepest - shallowest | "
            + " | ".join(cell((n, "gap")) for n in RATES)
            + " |"
        )
        return (
            "| depth | $\\rho_t=0.5$ beats $\\rho_t=1$ | $\\rho_t=0.5$ beats none "
            "| ALIF: $\\rho_t=1$ beats none |\n|---|---|---|---|\n" + "\n".join(rows)
        )

    def trained(self, alif: bool) -> float:
        """The fraction of arms (task, network, depth, condition) whose mean final score over
        seeds passes the task's bar (:func:`trained_bar`)."""
        ok = [
            self.perf(t, k, d, c) >= self.bars[t]
            for t, k in self._pairs(alif)
            for d in self.grid.depths
            for c in conditions(k)
        ]
        return float(np.mean(ok)) if ok else float("nan")

    def pre_reports(self, alif: bool) -> list[dict]:
        return [
            r["pretrain"]
            for (t, k, d, c, s), r in self.results.items()
            if c != "none" and (k in DIFFERENTIABLE) != alif
        ]

    def comparisons(self, tol: float = 0.1) -> dict:
        """What the three claims of Fig. 3 measure, with the grid's scale: the rates' intervals
        over seeds at the end of training, the pooled counts and per-seed gaps the rules decide
        on (:meth:`pooled`), the trained fractions, and the fraction of pre-trainings whose
        mean radius ended within ``tol`` of the target."""
        g, iv = self.grid, self.intervals()
        n_pairs, n_alif_pairs = len(self._pairs(False)), len(self._pairs(True))
        out = {k: v for k, v in asdict(g).items() if k != "seeds"}
        out.update(n_seeds=g.seeds, patience=g.patience, tol=tol)
        out.update(width_gru=g.net_width("gru"), width_lstm=g.net_width("lstm"))
        out.update(n_pairs=n_pairs, n_alif_pairs=n_alif_pairs)
        for tag, alif in (("diff", False), ("alif", True)):
            reps = self.pre_reports(alif)
            near = [abs(p["mean_dev"]) <= tol for p in reps]
            out[f"conv_{tag}"] = sum(p["converged"] for p in reps)
            out[f"n_conv_{tag}"] = len(reps)
            out[f"pre_{tag}_ok"] = float(np.mean(near)) if near else float("nan")
            out[f"trained_{tag}"] = self.trained(alif)
        pooled = self.pooled()
        for short, name in (
            ("half_one", "half>one"),
            ("half_none", "half>none"),
            ("alif", "one>none-alif"),
        ):
            out[f"{short}_counts"] = [pooled[(name, d)] for d in g.depths]
            out[f"{short}_gap_seeds"] = pooled[(name, "gap")]
            out[f"{short}_pooled_text"] = _pooled_text(
                g.depths, out[f"{short}_counts"], out[f"{short}_gap_seeds"]
            )
            for d in g.depths:
                m, lo, hi = (float(a[-1]) for a in iv[(name, d)])
                for key, v in (("mean", m), ("lo", lo), ("hi", hi)):
                    out.setdefault(f"{short}_{key}", []).append(v)
            m, lo, hi = (float(a[-1]) for a in iv[(name, "gap")])
            out.update(
                {f"{short}_gap": m, f"{short}_gap_lo": lo, f"{short}_gap_hi": hi}
            )
            out[f"{short}_text"] = (
                "; ".join(
                    f"depth {d}: {m:.0%} [{lo:.0%}, {hi:.0%}]"
                    for d, m, lo, hi in zip(
                        g.depths,
                        out[f"{short}_mean"],
                        out[f"{short}_lo"],
                        out[f"{short}_hi"],
                    )
                )
                + f"; gap {out[f'{short}_gap']:+.0%} [{lo:+.0%}, {hi:+.0%}]"
            )
        return out


def _bootstrap_columns(x: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Mean and 95% bootstrap interval over seeds (rows) of each column of ``x``; NaN where a
    column has no value."""
    cols = []
    for c in np.asarray(x, float).T:
        if np.isnan(c).any():
            cols.append((np.nan, np.nan, np.nan))
        else:
            iv = bootstrap_mean(c)
            cols.append((iv.mean, iv.lo, iv.hi))
    m, lo, hi = (np.array(v) for v in zip(*cols))
    return m, lo, hi


def _pooled_text(depths, counts, gap) -> str:
    """The pooled rates with their Wilson 95% intervals and the per-seed gap, as text."""
    from rnnbook.stats import bootstrap_mean, wilson_interval

    parts = []
    for d, (k, n) in zip(depths, counts):
        if n:
            w = wilson_interval(k, n)
            parts.append(f"depth {d}: {k}/{n} = {w.mean:.0%} [{w.lo:.0%}, {w.hi:.0%}]")
        else:
            parts.append(f"depth {d}: no pair with both arms trained")
    if gap:
        b = bootstrap_mean(gap)
        parts.append(f"gap (per seed) {b.mean:+.0%} [{b.lo:+.0%}, {b.hi:+.0%}]")
    return "; ".join(parts)
