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
from rnnbook.seeds import member_seed
from rnnbook.stats import Interval, effect_interval

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
    seed_start: int = 0  # the first member's index (a shard of a record)
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
        """The seed of run ``s`` (0 .. seeds-1): member ``seed_start + s`` of the chapter's
        ``seed`` (:func:`rnnbook.seeds.member_seed`)."""
        return member_seed(self.seed, self.seed_start + s)

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


#: Fig. 3's comparisons: name -> (first arm, second arm, over the ALIF networks?). A trial is one
#: (task, network, seed) at one depth, won by the first arm, by the second, or tied
#: (:func:`pair_outcomes`).
COMPARISONS = {
    "half>one": (0.5, 1.0, False),
    "half>none": (0.5, "none", False),
    "one>none-alif": (1.0, "none", True),
}
RATES = tuple(COMPARISONS)
#: the intervals the Fig. 3 claims declare (``deep_rnns.claims.yaml``): the share of the pooled
#: untied trials (Wilson) and the per-seed depth gap (bootstrap: Student t below ten seeds, cut
#: to [-1, 1]), at the level of the claims' "reproduced" (``rnnbook.book.claims.LEVEL``). The
#: chapter's table and figures compute theirs with the same function from the same trials.
RATE_INTERVAL, GAP_INTERVAL, GAP_RANGE, LEVEL = "wilson", "bootstrap", (-1.0, 1.0), 0.95
#: the entry of :meth:`Runs.summary` each claim's effect decides on:
#: (claim, effect name) -> (comparison, index into the depths, or "gap")
QUOTES = {
    ("lsc.fig3.half-beats-one", "depth index 0"): ("half>one", 0),
    ("lsc.fig3.half-beats-one", "depth index -1"): ("half>one", -1),
    ("lsc.fig3.half-beats-none-deeper", "deepest rate"): ("half>none", -1),
    ("lsc.fig3.half-beats-none-deeper", "deepest minus shallowest"): (
        "half>none",
        "gap",
    ),
    ("lsc.fig3.alif-deeper", "ALIF deepest minus shallowest"): ("one>none-alif", "gap"),
}
CLAIMS = tuple(dict.fromkeys(c for c, _ in QUOTES))


def _trained(x: np.ndarray, bar) -> np.ndarray:
    with np.errstate(invalid="ignore"):
        return np.isfinite(x) & (x >= bar)


def pair_outcomes(a, b, bar, identical=False) -> np.ndarray:
    """Paired trials of two arms from their figures of merit ``a`` and ``b`` (higher is
    better; arrays that broadcast together) and the task's trained bar: +1 where the first arm
    wins, -1 where the second does, 0 for a tie. An arm that did not train (its score below
    the bar, or not finite) loses to an arm that trained, whatever their scores; two arms that
    both did not train tie, as do equal scores and ``identical`` networks (a pre-training that
    stopped at its first check returns the network it started from). Ties leave the
    statistic (:func:`pooled`, :func:`seed_gaps`)."""
    a, b = np.asarray(a, float), np.asarray(b, float)
    a_ok, b_ok = _trained(a, bar), _trained(b, bar)
    with np.errstate(invalid="ignore"):
        both = np.sign(np.where(a_ok & b_ok, a - b, 0.0)).astype(int)
    out = np.where(a_ok & ~b_ok, 1, np.where(b_ok & ~a_ok, -1, both))
    return np.where(np.asarray(identical, bool), 0, out)


def tie_reasons(a, b, bar, identical=False) -> dict[str, int]:
    """The ties of :func:`pair_outcomes`, counted by reason (each once, in this order)."""
    a, b = np.asarray(a, float), np.asarray(b, float)
    same = np.broadcast_to(np.asarray(identical, bool), np.broadcast(a, b).shape)
    a_ok, b_ok = _trained(a, bar), _trained(b, bar)
    return {
        "same network": int(same.sum()),
        "neither arm trained": int((~same & ~a_ok & ~b_ok).sum()),
        "equal scores": int((~same & a_ok & b_ok & (a == b)).sum()),
    }


def pooled(outcomes: np.ndarray) -> list[int]:
    """``[wins, trials]`` of the first arm over the untied trials of ``outcomes``."""
    o = np.asarray(outcomes)
    return [int((o > 0).sum()), int((o != 0).sum())]


def seed_gaps(deep: np.ndarray, shallow: np.ndarray) -> list[float]:
    """Per seed, the share of its untied trials won at the deepest depth minus the share at the
    shallowest (``deep``, ``shallow``: outcomes of shape (pairs, seeds)); a seed with no untied
    trial at one of the depths gives no gap."""

    def share(o):
        o = np.asarray(o).reshape(-1, np.shape(o)[-1])
        won, n = (o > 0).sum(0), (o != 0).sum(0)
        return np.where(n > 0, won / np.maximum(n, 1), np.nan)

    return [float(v) for v in share(deep) - share(shallow) if np.isfinite(v)]


def interval(kind: str, data, bounds=None) -> Interval:
    """The 95% interval of a Fig. 3 statistic, computed as the claims' engine computes it
    (:func:`rnnbook.stats.effect_interval`); NaN where there is nothing to compare."""
    try:
        return effect_interval(kind, data, LEVEL, 0.0, bounds)
    except ValueError:
        return Interval(np.nan, np.nan, np.nan, 0, LEVEL)


def stopped_at_once(pre: dict | None) -> bool:
    """A pre-training that met its criteria at its first check: the network is unchanged."""
    return bool(pre and pre.get("converged") and pre.get("steps", 2) <= 1)


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

    def unchanged(self, t: str, k: str, d: int, c) -> np.ndarray:
        """(seeds,): whether arm ``c`` trains the network it was built as (no pre-training, or
        a pre-training that stopped at its first check)."""
        return np.array(
            [
                c == "none"
                or stopped_at_once(self.results[(t, k, d, c, s)]["pretrain"])
                for s in range(self.grid.seeds)
            ],
            bool,
        )

    def arms(self, name: str, d: int) -> tuple[np.ndarray, ...]:
        """Comparison ``name`` at depth ``d`` over its (task, network) pairs: the two arms'
        scores (pairs, seeds, checkpoints), the bars (pairs, 1, 1) and whether the two
        networks are the same network (pairs, seeds, 1)."""
        a, b, alif = COMPARISONS[name]
        pairs, g = self._pairs(alif), self.grid
        if not pairs:
            empty = np.zeros((0, g.seeds, len(g.checkpoints())))
            return empty, empty, np.zeros((0, 1, 1)), np.zeros((0, g.seeds, 1), bool)
        first = np.array([self.scores_at(*x, d, a) for x in pairs])
        second = np.array([self.scores_at(*x, d, b) for x in pairs])
        bars = np.array([self.bars[t] for t, _ in pairs], float)[:, None, None]
        same = np.array(
            [self.unchanged(*x, d, a) & self.unchanged(*x, d, b) for x in pairs]
        )[:, :, None]
        return first, second, bars, same

    def outcomes(self) -> dict:
        """Per comparison and depth, the outcomes (pairs, seeds, checkpoints) of its trials
        (:func:`pair_outcomes`), had training stopped at each checkpoint."""
        return {
            (name, d): pair_outcomes(*self.arms(name, d))
            for name in RATES
            for d in self.grid.depths
        }

    def ties(self, name: str, d: int) -> dict[str, int]:
        """The tied trials of comparison ``name`` at depth ``d`` (final scores), by reason."""
        first, second, bars, same = self.arms(name, d)
        return tie_reasons(first[..., -1], second[..., -1], bars[..., 0], same[..., 0])

    def summary(self, checkpoint: int = -1, outcomes: dict | None = None) -> dict:
        """What the Fig. 3 claims decide on, and the chapter's table and figures show, had
        training stopped at ``checkpoint``: per comparison and depth ``(wins, trials)`` over
        the untied (task, network, seed) trials with its interval, and per comparison
        ``("gap")`` the per-seed deepest-minus-shallowest shares with theirs (:func:`pooled`,
        :func:`seed_gaps`, :func:`interval`): values ``(data, Interval)``."""
        o = self.outcomes() if outcomes is None else outcomes
        d0, d1, out = self.grid.depths[0], self.grid.depths[-1], {}
        for name in RATES:
            for d in self.grid.depths:
                counts = pooled(o[(name, d)][..., checkpoint])
                out[(name, d)] = (counts, interval(RATE_INTERVAL, counts))
            gaps = (
                seed_gaps(
                    o[(name, d1)][..., checkpoint], o[(name, d0)][..., checkpoint]
                )
                if d1 != d0
                else []
            )
            out[(name, "gap")] = (gaps, interval(GAP_INTERVAL, gaps, GAP_RANGE))
        return out

    def trend(self) -> dict:
        """Each entry of :meth:`summary` along training: (mean, lo, hi) arrays over
        :meth:`Grid.checkpoints`."""
        o, cps = self.outcomes(), self.grid.checkpoints()
        rows = [self.summary(j, o) for j in range(len(cps))]
        return {
            key: tuple(
                np.array([r[key][1].as_list()[i] for r in rows]) for i in range(3)
            )
            for key in rows[-1]
        }

    def rates_table(self, summary: dict | None = None) -> str:
        """Table 2: the shares and gaps of :meth:`summary` (final scores), as the claims
        decide on them."""
        s, g = self.summary() if summary is None else summary, self.grid

        def cell(key):
            (data, iv), ties = s[key], ""
            if key[1] == "gap":
                if not iv.n:
                    return "no seed"
                return f"{iv.mean:+.0%} [{iv.lo:+.0%}, {iv.hi:+.0%}] ({iv.n} seeds)"
            n_tied = sum(self.ties(*key).values())
            ties = f"; {n_tied} tied" if n_tied else ""
            if not data[1]:
                return f"no untied trial{ties}"
            return (
                f"{data[0]}/{data[1]} = {iv.mean:.0%} [{iv.lo:.0%}, {iv.hi:.0%}]{ties}"
            )

        rows = [
            f"| {d} | " + " | ".join(cell((n, d)) for n in RATES) + " |"
            for d in g.depths
        ]
        rows.append(
            "| deepest - shallowest (per seed) | "
            + " | ".join(cell((n, "gap")) for n in RATES)
            + " |"
        )
        return (
            "| depth | $\\rho_t=0.5$ beats $\\rho_t=1$ | $\\rho_t=0.5$ beats none "
            "| ALIF: $\\rho_t=1$ beats none |\n|---|---|---|---|\n" + "\n".join(rows)
        )

    def check_quotes(self, claim, summary: dict | None = None) -> None:
        """Raise if a recorded Fig. 3 claim (its ``id`` and decided ``effects``) quotes other
        numbers than :meth:`summary`, which the chapter's table and figures show."""
        s, depths = self.summary() if summary is None else summary, self.grid.depths
        for e in claim.effects or []:
            name, at = QUOTES[(claim.id, e["name"])]
            iv = s[(name, at if at == "gap" else depths[at])][1]
            # a record writes a number that is not finite as text ("nan", "inf")
            box = tuple(float(e[k]) for k in ("estimate", "lo", "hi", "n"))
            if not np.allclose(box, (iv.mean, iv.lo, iv.hi, iv.n), equal_nan=True):
                raise ValueError(
                    f"{claim.id} ({e['name']}): the box says {box}, the table {iv}"
                )

    def trained(self, alif: bool, cond=None) -> float:
        """The fraction of arms (task, network, depth, condition; only ``cond`` if given)
        whose mean final score over seeds passes the task's bar (:func:`trained_bar`)."""
        ok = [
            self.perf(t, k, d, c) >= self.bars[t]
            for t, k in self._pairs(alif)
            for d in self.grid.depths
            for c in conditions(k)
            if cond is None or c == cond
        ]
        return float(np.mean(ok)) if ok else float("nan")

    def pre_reports(self, alif: bool) -> list[dict]:
        return [
            r["pretrain"]
            for (t, k, d, c, s), r in self.results.items()
            if c != "none" and (k in DIFFERENTIABLE) != alif
        ]

    def comparisons(self, tol: float = 0.1) -> dict:
        """What the three claims of Fig. 3 measure, with the grid's scale: per comparison the
        pooled ``[wins, trials]`` per depth and the per-seed gaps the rules decide on
        (:meth:`summary`), the ties by reason, what the experiment's gate reads (the fraction
        of pre-trainings whose mean radius ended within ``tol`` of the target, the fraction of
        no-pre-training arms that trained) and the trained fraction of all arms."""
        g, s = self.grid, self.summary()
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
            out[f"none_trained_{tag}"] = self.trained(alif, "none")
        for short, name in (
            ("half_one", "half>one"),
            ("half_none", "half>none"),
            ("alif", "one>none-alif"),
        ):
            ties = [self.ties(name, d) for d in g.depths]
            out[f"{short}_counts"] = [s[(name, d)][0] for d in g.depths]
            out[f"{short}_gap_seeds"] = s[(name, "gap")][0]
            out[f"{short}_ties"] = [sum(t.values()) for t in ties]
            out[f"{short}_pooled_text"] = _pooled_text(g.depths, s, name, ties)
        return out


def _pooled_text(depths, summary: dict, name: str, ties: list[dict]) -> str:
    """The pooled shares with their Wilson 95% intervals and the ties left out, per depth, and
    the per-seed gap with its interval, as text (the numbers of :meth:`Runs.summary`)."""
    parts = []
    for d, t in zip(depths, ties):
        (k, n), w = summary[(name, d)]
        why = ", ".join(f"{v} {reason}" for reason, v in t.items() if v)
        tied = f" ({sum(t.values())} tied: {why})" if why else ""
        shown = (
            f"{k}/{n} = {w.mean:.0%} [{w.lo:.0%}, {w.hi:.0%}]"
            if n
            else "no untied trial"
        )
        parts.append(f"depth {d}: {shown}{tied}")
    gaps, b = summary[(name, "gap")]
    if gaps:
        parts.append(
            f"gap (per seed, {b.n} seeds) {b.mean:+.0%} [{b.lo:+.0%}, {b.hi:+.0%}]"
        )
    return "; ".join(parts)
