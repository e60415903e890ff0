"""Table I and Fig. 4 of Herranz-Celotti & Rouat (Sec. III-D): the LRU pre-trained to the LSC.

The LRU language model at two depths, from its default initialization or pre-trained to rho_t = 1,
rho_t = 0.5 or rho-bar_t = 0.5 (time target T/(T+L), depth target L/(T+L)), each trained with and
without gradient clipping on the word-level stand-in for PTB. :func:`run_grid` runs (or reads from the
run cache) every (depth, seed, initialization, clipping); :class:`Runs` gives the table of test
perplexities and the four comparisons of the text. :func:`default_radius` measures the mean radius of
the default LRU, which the paper gives as 0.525 (Table I caption).
"""

from __future__ import annotations

import sys
from dataclasses import asdict, dataclass, fields

import numpy as np
import torch

from rnnbook import plotting

from . import experiments, pretrain, tasks
from .models import make_lru

CONDS = {
    "default": None,
    "rho=1": (1.0, False),
    "rho=0.5": (0.5, False),
    "rhobar=0.5": (0.5, True),
}
LABEL = {
    "default": "default",
    "rho=1": r"$\rho=1$",
    "rho=0.5": r"$\rho=0.5$",
    "rhobar=0.5": r"$\bar\rho_t=0.5$",
}


@dataclass(frozen=True)
class Grid:
    """The scale of the runs: the chapter's parameters of the same names."""

    profile: str
    seeds: int
    depths: list
    width: int
    vocab: int
    T: int
    batch: int
    n_train: int
    n_val: int
    n_test: int
    steps: int
    eval_every: int
    lr: float
    clip: float
    pre_steps: int
    pre_batch: int

    @classmethod
    def of(cls, params) -> "Grid":
        """The grid from an object with these attributes (the chapter's resolved parameters)."""
        return cls(**{f.name: getattr(params, f.name) for f in fields(cls)})

    @property
    def patience(self) -> int:
        """Validations without improvement before stopping: 10 at paper, 2 below."""
        return 10 if self.profile == "paper" else 2

    def build_task(self) -> tasks.SeqTask:
        n = (self.n_train, self.n_val, self.n_test)
        return tasks.build_task("ptb-standin", *n, T=self.T, vocab=self.vocab)

    def key(self, d: int, s: int, c: str, clipped: bool) -> dict:
        """The cache key of one run (its parameters)."""
        return dict(
            depth=d,
            seed=s,
            cond=c,
            width=self.width,
            vocab=self.vocab,
            T=self.T,
            batch=self.batch,
            n=(self.n_train, self.n_val, self.n_test),
            steps=self.steps,
            eval_every=self.eval_every,
            lr=self.lr,
            patience=self.patience,
            pre_steps=self.pre_steps,
            pre_batch=self.pre_batch,
            clip=self.clip if clipped else None,
        )


def train_one(
    grid: Grid,
    task: tasks.SeqTask,
    d: int,
    s: int,
    clipped: bool,
    model0: pretrain.StackedRNN,
    pre_report: dict | None,
) -> dict:
    """One run of Table I: a copy of ``model0`` (default or pre-trained), its radii at the start,
    then training with or without clipping."""
    model = make_lru(d, task.n_out, grid.width, seed=s)
    model.load_state_dict(model0.state_dict())
    rad = pretrain.measure(
        model,
        task.batch("val", np.arange(grid.pre_batch))[0],
        n_times=4,
        generator=torch.Generator().manual_seed(0),
    )
    cfg = experiments.TrainConfig(
        lr=grid.lr,
        batch=grid.batch,
        max_steps=grid.steps,
        eval_every=grid.eval_every,
        patience=grid.patience,
        clip=grid.clip if clipped else None,
        seed=s,
    )
    res = experiments.train_seq(model, task, cfg)
    res["pretrain"] = pre_report
    res["radii"] = {f"l{l}/{k}": float(v.mean()) for (l, k), v in rad.items()}
    return res


def run_grid(grid: Grid, task: tasks.SeqTask) -> "Runs":
    """Every run of the grid, from the run cache where it is there. Per (depth, seed, condition)
    the LRU is built and pre-trained once (only when one of its two runs is not cached)."""
    code, results, pre = sys.modules[__name__], {}, {}
    jobs = [(d, s, c) for d in grid.depths for s in range(grid.seeds) for c in CONDS]
    for d, s, c in plotting.progress(jobs, desc="Table I runs"):
        keys = {cl: grid.key(d, s, c, cl) for cl in (False, True)}
        model0 = None
        if not all(experiments.is_cached("lru", k, code=code) for k in keys.values()):
            model0 = make_lru(d, task.n_out, grid.width, seed=s)
            if CONDS[c] is not None:
                target, unbalanced = CONDS[c]
                rep = experiments.pretrain_seq(
                    model0,
                    task,
                    target,
                    unbalanced,
                    grid.pre_steps,
                    grid.pre_batch,
                    2,
                    s,
                )
                pre[(d, s, c)] = experiments.report_summary(rep)
        for cl, key in keys.items():
            results[(d, s, c, cl)] = experiments.cached(
                "lru",
                key,
                lambda: train_one(grid, task, d, s, cl, model0, pre.get((d, s, c))),
                code=code,
            )
    return Runs(grid, results, pre)


@dataclass
class Runs:
    """The raw results keyed by (depth, seed, condition, clipped), and the pre-training reports of
    the runs made in this session (``pre``)."""

    grid: Grid
    results: dict
    pre: dict

    def ppl(self, d: int, c: str, cl: bool, split: str = "test") -> np.ndarray:
        """Perplexity per seed."""
        return np.array(
            [self.results[(d, s, c, cl)][split]["ppl"] for s in range(self.grid.seeds)]
        )

    def table(self) -> str:
        """Table I recomputed: validation and test perplexity (mean ± sd over seeds) and the mean
        radii (time / depth, layers >= 2) of seed 0 at the start of training."""
        rows = []
        for d in self.grid.depths:
            rows.append(
                f"| **depth {d}** | validation perplexity | test perplexity "
                "| $\\mathbb E\\rho$ at the start (time / depth) |"
            )
            for cl in (False, True):
                for c in CONDS:
                    v, t = self.ppl(d, c, cl, "val"), self.ppl(d, c, cl)
                    rr = self.results[(d, 0, c, cl)]["radii"]
                    tm = np.mean([x for k, x in rr.items() if k.endswith("time")])
                    inner = [
                        x
                        for k, x in rr.items()
                        if k.endswith("depth") and not k.startswith("l1/")
                    ]
                    dm = np.mean(inner) if d > 1 else float("nan")
                    rows.append(
                        f"| {LABEL[c]}{' + clip' if cl else ''} "
                        f"| {v.mean():.1f} ± {v.std():.1f} "
                        f"| {t.mean():.1f} ± {t.std():.1f} | {tm:.2f} / {dm:.2f} |"
                    )
        return "| LRU | | | |\n|---|---|---|---|\n" + "\n".join(rows)

    def pretrain_summary(self) -> str:
        conv = [p["converged"] for p in self.pre.values() if p]
        if not conv:
            return "All runs were read from the cache of the build folder."
        return (
            f"LSC pre-trainings run in this session: {sum(conv)} of {len(conv)} "
            f"converged within {self.grid.pre_steps} steps."
        )

    def comparisons(self) -> dict:
        """What the four claims of Table I and Fig. 4 measure, per (depth, clipping) setting."""
        g = self.grid
        settings = [(d, cl) for d in g.depths for cl in (False, True)]
        mean = {
            (d, c, cl): self.ppl(d, c, cl).mean()
            for d in g.depths
            for c in CONDS
            for cl in (False, True)
        }
        one_worst = [
            mean[(d, "rho=1", cl)] >= max(mean[(d, c, cl)] for c in CONDS)
            for d, cl in settings
        ]
        half_beats_one = [
            mean[(d, "rho=0.5", cl)] < mean[(d, "rho=1", cl)] for d, cl in settings
        ]
        best_half = [
            min(CONDS, key=lambda c: mean[(d, c, cl)]) in ("rho=0.5", "rhobar=0.5")
            for d, cl in settings
        ]
        clip_rel = {
            (d, c): abs(mean[(d, c, True)] - mean[(d, c, False)]) / mean[(d, c, False)]
            for d in g.depths
            for c in ("default", "rho=0.5")
        }
        ppl_text = "; ".join(
            f"L={d}{' clip' if cl else ''}: "
            + ", ".join(f"{c} {mean[(d, c, cl)]:.0f}" for c in CONDS)
            for d, cl in settings
        )
        return dict(
            asdict(g),
            n_seeds=g.seeds,
            patience=g.patience,
            n_settings=len(settings),
            n_one_worst=int(sum(one_worst)),
            n_half_beats_one=int(sum(half_beats_one)),
            n_best_half=int(sum(best_half)),
            mean_ppl=ppl_text,
            clip_changes=[float(v) for v in clip_rel.values()],
            clip_text=", ".join(
                f"L={d} {c}: {v:.1%}" for (d, c), v in clip_rel.items()
            ),
        )


@dataclass
class DefaultRadius:
    """Per (depth, seed): the mean radius of the time transitions, of the depth transition from
    the embedding (layer 1), of the depth transitions of layers >= 2, of all M_k, and of all M_k but
    the embedding's."""

    rows: dict

    def table(self) -> str:
        head = (
            "| depth | seed | $\\rho_{time}$ | $\\rho_{depth}$ from the embedding (layer 1) "
            "| $\\rho_{depth}$, layers $\\ge2$ | $\\mathbb E\\rho$, all $M_k$ "
            "| $\\mathbb E\\rho$ without the embedding's |\n|---|---|---|---|---|---|---|\n"
        )
        return head + "\n".join(
            f"| {d} | {s} | {r['time']:.3f} | {r['depth_1']:.3f} | {r['depth_in']:.3f} "
            f"| {r['every']:.3f} | {r['inner']:.3f} |"
            for (d, s), r in self.rows.items()
        )

    def values(self) -> dict:
        """The claim's inputs: E rho over all M_k (``every``), without the embedding's transition
        (``inner``), and whether the time component exceeds the depth one in every model."""
        rows = self.rows.values()
        return dict(
            every=float(np.mean([r["every"] for r in rows])),
            inner=float(np.mean([r["inner"] for r in rows])),
            time_gt_depth=all(
                r["time"] > r["depth_in"] for r in rows if np.isfinite(r["depth_in"])
            ),
        )


def default_radius(
    depths: list[int], width: int, T: int, batch: int, n_times: int, seed: int
) -> DefaultRadius:
    """The radii of the default LRU language model (two seeds per depth) on ``batch`` windows of
    ``T`` words of the word-level corpus (10k words). The time transition is Lambda, so its radius
    is max |lambda_j|; the depth transition goes through the lower block, the residual stream, the
    layer norm and B."""
    corpus = tasks.word_corpus(10_000)
    windows = tasks.lm_windows(corpus.train, T, n=batch, seed=seed)
    rows = {}
    for depth in depths:
        layers = range(1, depth + 1)
        for s in range(2):
            model = make_lru(depth, corpus.vocab_size, width, seed=seed + s)
            rad = pretrain.measure(
                model,
                windows[:, :-1],
                n_times=n_times,
                generator=torch.Generator().manual_seed(s),
            )
            inner = [v for (l, k), v in rad.items() if not (l == 1 and k == "depth")]
            rows[(depth, s)] = dict(
                time=float(np.mean([rad[(l, "time")].mean() for l in layers])),
                depth_1=float(rad[(1, "depth")].mean()),
                depth_in=float(np.mean([rad[(l, "depth")].mean() for l in layers[1:]]))
                if depth > 1
                else float("nan"),
                every=float(np.mean(np.concatenate(list(rad.values())))),
                inner=float(np.mean(np.concatenate(inner))),
            )
    return DefaultRadius(rows)
