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
from rnnbook.seeds import member_seed
from rnnbook.stats import seed_interval

from . import ensemble, experiments, pretrain, tasks
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
    seed: int
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
    seed_start: int = 0  # the first member's index (a shard of a record)
    device: str = (
        "cpu"  # where the runs train; not in the cache key (same runs up to rounding)
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

    def build_task(self) -> tasks.SeqTask:
        n = (self.n_train, self.n_val, self.n_test)
        return tasks.build_task("ptb-standin", *n, T=self.T, vocab=self.vocab)

    def member_seed(self, s: int) -> int:
        """The seed of run ``s`` (0 .. seeds-1): member ``seed_start + s`` of the chapter's
        ``seed`` (:func:`rnnbook.seeds.member_seed`)."""
        return member_seed(self.seed, self.seed_start + s)

    def checkpoints(self) -> list[int]:
        """The training steps at which every run's test perplexity is recorded."""
        return sorted(set(list(range(0, self.steps, self.eval_every)) + [self.steps]))

    def members(self) -> list[tuple]:
        """The runs of one depth, trained as one ensemble: (seed index, condition, clipped)."""
        return [
            (s, c, cl) for s in range(self.seeds) for c in CONDS for cl in (False, True)
        ]

    def key(self, d: int) -> dict:
        """The cache key of the ensemble of depth ``d`` (its parameters and the trainer's source)."""
        return dict(
            depth=d,
            seeds=[self.member_seed(s) for s in range(self.seeds)],
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
            clip=self.clip,
            trainer=ensemble.source_hash(),
        )


def train_depth(grid: Grid, task: tasks.SeqTask, d: int) -> list[dict]:
    """Every run of one depth: per (seed, condition) the LRU is built from its seed and
    pre-trained (unless ``default``), its radii measured, and it is trained with and without
    clipping; all the runs of the depth train together as one ensemble (runs of one seed see
    the same batches)."""
    start, pre, radii = {}, {}, {}
    for s in range(grid.seeds):
        ms = grid.member_seed(s)
        for c, goal in CONDS.items():
            model = make_lru(d, task.n_out, grid.width, seed=ms)
            rep = None
            if goal is not None:
                rep = experiments.pretrain_seq(
                    model,
                    task,
                    goal[0],
                    goal[1],
                    grid.pre_steps,
                    grid.pre_batch,
                    2,
                    ms,
                    device=grid.device,
                )
            rad = pretrain.measure(
                model.to(grid.device),
                task.batch("val", np.arange(grid.pre_batch))[0].to(grid.device),
                n_times=4,
                generator=torch.Generator(device="cpu").manual_seed(0),
            )
            start[(s, c)], pre[(s, c)] = model, experiments.report_summary(rep)
            radii[(s, c)] = {f"l{l}/{k}": float(v.mean()) for (l, k), v in rad.items()}
    members = grid.members()
    models = []
    for s, c, _ in members:
        m = make_lru(d, task.n_out, grid.width, seed=grid.member_seed(s))
        m.load_state_dict(start[(s, c)].state_dict())
        models.append(m)
    cfg = ensemble.EnsembleConfig(
        lr=grid.lr,
        batch=grid.batch,
        max_steps=grid.steps,
        eval_every=grid.eval_every,
        patience=grid.patience,
        clips=tuple(grid.clip if cl else None for _, _, cl in members),
        data_seeds=tuple(grid.member_seed(s) for s, _, _ in members),
        device=grid.device,
    )
    out = ensemble.train(models, task, cfg)
    return [
        dict(r, seed=s, cond=c, clipped=cl, pretrain=pre[(s, c)], radii=radii[(s, c)])
        for (s, c, cl), r in zip(members, out)
    ]


def run_grid(grid: Grid, task: tasks.SeqTask) -> "Runs":
    """Every run of the grid, one ensemble per depth, from the run cache where it is there."""
    code, results = sys.modules[__name__], {}
    for d in plotting.progress(grid.depths, desc="Table I ensembles"):
        runs = experiments.cached(
            "lru-ensemble", grid.key(d), lambda: train_depth(grid, task, d), code=code
        )
        for r in runs:
            results[(d, r["seed"], r["cond"], r["clipped"])] = r
    return Runs(grid, results, unigram_perplexity(task))


def unigram_perplexity(task: tasks.SeqTask) -> float:
    """Test perplexity of the unigram model fitted on the training targets (add-one counts):
    the bar a language model must beat to have learned more than word frequencies."""
    y_tr = task.batch("train", np.arange(task.size("train")))[1].reshape(-1).numpy()
    y_te = task.batch("test", np.arange(task.size("test")))[1].reshape(-1).numpy()
    counts = np.bincount(y_tr, minlength=task.n_out) + 1.0
    logp = np.log(counts / counts.sum())
    return float(np.exp(-logp[y_te].mean()))


def counted(ppl: dict, vocab: int) -> dict:
    """Perplexities as the comparisons count them (``ppl``: arm -> array of perplexities, of one
    shape): a run without a finite perplexity (its every validation diverged) did not train and
    counts as the worst: the largest finite perplexity of any arm at that point (seed and
    checkpoint), or the uniform guess over the vocabulary (``vocab``) if that is larger."""
    stack = np.stack(list(ppl.values()))
    finite = np.where(np.isfinite(stack), stack, -np.inf)
    worst = np.maximum(finite.max(0), float(vocab))
    return {k: np.where(np.isfinite(v), v, worst) for k, v in ppl.items()}


@dataclass
class Runs:
    """The raw results keyed by (depth, seed index, condition, clipped), and the unigram model's
    test perplexity (the trained-or-not bar)."""

    grid: Grid
    results: dict
    unigram: float

    def ppl(self, d: int, c: str, cl: bool, split: str = "test") -> np.ndarray:
        """Perplexity per seed (NaN for a run that never had a finite validation loss)."""
        return np.array(
            [
                (self.results[(d, s, c, cl)][split] or {}).get("ppl", np.nan)
                for s in range(self.grid.seeds)
            ],
            float,
        )

    def ppl_at(self, d: int, c: str, cl: bool) -> np.ndarray:
        """(seeds, checkpoints): the test perplexity of the best validation checkpoint had
        training stopped at each of :meth:`Grid.checkpoints` (carried forward after a stop)."""
        cps = self.grid.checkpoints()
        out = np.full((self.grid.seeds, len(cps)), np.nan)
        for s in range(self.grid.seeds):
            at, last = dict(self.results[(d, s, c, cl)]["best_test_at"]), np.nan
            for j, step in enumerate(cps):
                last = at.get(step, last)
                out[s, j] = last
        return out

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
        conv = [
            r["pretrain"]["converged"] for r in self.results.values() if r["pretrain"]
        ]
        return (
            f"LSC pre-trainings (each counted once per clipping setting): {sum(conv)} of "
            f"{len(conv)} met all three criteria within {self.grid.pre_steps} steps."
        )

    def effects(self) -> dict:
        """Per comparison, the per-seed effects (seeds, checkpoints) in log perplexity, every arm
        counted with its perplexity, trained or not (a run without a finite one as
        :func:`counted` says): ``one-worst`` per (depth, clip): log ppl(rho=1) minus the
        largest of the others;
        ``best-half``: the better of rho=0.5, rhobar=0.5 minus the better of default, rho=1;
        ``half-one``: log ppl(rho=0.5) - log ppl(rho=1); ``clip`` per (depth, condition):
        log ppl(clip) - log ppl(no clip)."""
        g, out = self.grid, {}
        P = {
            (d, c, cl): self.ppl_at(d, c, cl)
            for d in g.depths
            for c in CONDS
            for cl in (False, True)
        }
        L = {k: np.log(v) for k, v in counted(P, g.vocab).items()}
        for d in g.depths:
            for cl in (False, True):
                others = np.max([L[(d, c, cl)] for c in CONDS if c != "rho=1"], 0)
                half = np.minimum(L[(d, "rho=0.5", cl)], L[(d, "rhobar=0.5", cl)])
                rest = np.minimum(L[(d, "default", cl)], L[(d, "rho=1", cl)])
                out[("one-worst", d, cl)] = L[(d, "rho=1", cl)] - others
                out[("best-half", d, cl)] = half - rest
                out[("half-one", d, cl)] = L[(d, "rho=0.5", cl)] - L[(d, "rho=1", cl)]
            for c in ("default", "rho=0.5"):
                out[("clip", d, c)] = L[(d, c, True)] - L[(d, c, False)]
        return out

    def intervals(self) -> dict:
        """The 95% t interval over seeds of each effect: (mean, lo, hi) over checkpoints."""
        return {k: seed_interval(v, axis=0) for k, v in self.effects().items()}

    def seed_effects(self) -> dict:
        """What the rules decide on: per setting ('L=3', 'L=3 clip', ...) the per-seed final
        effects in log perplexity (``one_worst_seeds``, ``half_one_seeds``), per (depth,
        initialization) the clipping effect (``clip_seeds``), the best-half effect per seed
        averaged over the settings (``best_half_seeds``), and whether each arm trained, its
        seed-mean test perplexity below the unigram model's (``arm_ok``, ``all_arms_ok``,
        and as text the arms that did not, ``untrained_arms``: reported; they count in the
        effects with their own perplexities), and per seed how many of its runs (every
        condition, with and without clipping: ``runs_per_seed``) hit the step cap before
        early stopping ended them (``capped_runs``; a diverged run ended, and is data), and
        per setting the default LRU's test perplexity per seed (``default_ppl``, infinite
        for a run without a finite one: the gate's baseline)."""
        g, eff = self.grid, self.effects()
        settings = [(d, cl) for d in g.depths for cl in (False, True)]

        def lab(d, cl):
            return f"L={d}{' clip' if cl else ''}"

        def final(k):
            return [float(v) for v in eff[k][:, -1]]

        ok = {  # the arm trained: its seed-mean test perplexity below the unigram model's
            (d, c, cl): bool(self.ppl(d, c, cl).mean() < self.unigram)
            for d, cl in settings
            for c in CONDS
        }
        untrained = [f"{lab(d, cl)} {c}" for (d, c, cl), v in ok.items() if not v]
        best = np.mean([eff[("best-half", d, cl)][:, -1] for d, cl in settings], 0)
        capped = [
            sum(
                self.results[(d, s, c, cl)]["steps"] >= g.steps
                and not self.results[(d, s, c, cl)]["diverged"]
                for d, cl in settings
                for c in CONDS
            )
            for s in range(g.seeds)
        ]
        return dict(
            default_ppl={
                lab(d, cl): [
                    float(v) if np.isfinite(v) else float("inf")
                    for v in self.ppl(d, "default", cl)
                ]
                for d, cl in settings
            },
            capped_runs=[int(v) for v in capped],
            runs_per_seed=len(settings) * len(CONDS),
            settings=[lab(d, cl) for d, cl in settings],
            clip_settings=[
                f"L={d} {c}" for d in g.depths for c in ("default", "rho=0.5")
            ],
            one_worst_seeds={
                lab(d, cl): final(("one-worst", d, cl)) for d, cl in settings
            },
            half_one_seeds={
                lab(d, cl): final(("half-one", d, cl)) for d, cl in settings
            },
            best_half_seeds=[float(v) for v in best],
            clip_seeds={
                f"L={d} {c}": final(("clip", d, c))
                for d in g.depths
                for c in ("default", "rho=0.5")
            },
            arm_ok={
                lab(d, cl): {c: ok[(d, c, cl)] for c in CONDS} for d, cl in settings
            },
            all_arms_ok=all(ok.values()),
            untrained_arms=", ".join(untrained) or "none",
        )

    def comparisons(self, clip_tol: float = 0.1) -> dict:
        """What the four claims of Table I and Fig. 4 measure: per (depth, clip) setting whether
        each effect's interval at the end of training lies above or below 0 (for clipping:
        within or outside a change of ``clip_tol``)."""
        g, iv = self.grid, self.intervals()
        settings = [(d, cl) for d in g.depths for cl in (False, True)]
        end = {k: tuple(float(a[-1]) for a in v) for k, v in iv.items()}

        def count(name, side):
            return sum(
                (end[(name, d, cl)][1] > 0) if side > 0 else (end[(name, d, cl)][2] < 0)
                for d, cl in settings
            )

        up, down = np.log(1 + clip_tol), np.log(1 - clip_tol)
        clip = [end[("clip", d, c)] for d in g.depths for c in ("default", "rho=0.5")]

        def text(name):
            return "; ".join(
                f"L={d}{' clip' if cl else ''}: {end[(name, d, cl)][0]:+.3f} "
                f"[{end[(name, d, cl)][1]:+.3f}, {end[(name, d, cl)][2]:+.3f}]"
                for d, cl in settings
            )

        mean = {
            (d, c, cl): self.ppl(d, c, cl).mean() for d, cl in settings for c in CONDS
        }
        out = {k: v for k, v in asdict(g).items() if k != "seeds"}
        out.update(self.seed_effects())
        out.update(
            n_seeds=g.seeds,
            patience=g.patience,
            n_settings=len(settings),
            unigram=self.unigram,
            ppl_default_max=float(max(mean[(d, "default", cl)] for d, cl in settings)),
            ppl_default_min=min(  # the experiment's gate: the baseline trained somewhere
                (float(m) for (d, c, cl), m in mean.items() if c == "default"),
                key=lambda m: m if np.isfinite(m) else np.inf,
            ),
            n_one_worst=count("one-worst", +1),
            n_one_not_worst=count("one-worst", -1),
            n_best_half=count("best-half", -1),
            n_best_other=count("best-half", +1),
            n_half_beats_one=count("half-one", -1),
            n_one_beats_half=count("half-one", +1),
            n_clip=len(clip),
            n_clip_within=sum(lo > down and hi < up for _, lo, hi in clip),
            n_clip_outside=sum(lo > up or hi < down for _, lo, hi in clip),
            clip_tol=clip_tol,
            one_worst_text=text("one-worst"),
            best_half_text=text("best-half"),
            half_one_text=text("half-one"),
            mean_ppl="; ".join(
                f"L={d}{' clip' if cl else ''}: "
                + ", ".join(f"{c} {mean[(d, c, cl)]:.0f}" for c in CONDS)
                for d, cl in settings
            ),
            clip_text=", ".join(
                f"L={d} {c}: {(np.exp(end[('clip', d, c)][0]) - 1):+.1%} "
                f"[{np.exp(end[('clip', d, c)][1]) - 1:+.1%}, "
                f"{np.exp(end[('clip', d, c)][2]) - 1:+.1%}]"
                for d in g.depths
                for c in ("default", "rho=0.5")
            ),
        )
        return out


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
    depths: list[int],
    width: int,
    T: int,
    batch: int,
    n_times: int,
    seed: int,
    device: str = "cpu",
) -> DefaultRadius:
    """The radii of the default LRU language model (two seeds per depth) on ``batch`` windows of
    ``T`` words of the word-level corpus (10k words). The time transition is Lambda, so its radius
    is max |lambda_j|; the depth transition goes through the lower block, the residual stream, the
    layer norm and B. Runs on ``device``; the weights and windows are drawn on the CPU."""
    corpus = tasks.word_corpus(10_000)
    windows = tasks.lm_windows(corpus.train, T, n=batch, seed=seed).to(device)
    rows = {}
    for depth in depths:
        layers = range(1, depth + 1)
        for s in range(2):
            model = make_lru(depth, corpus.vocab_size, width, seed=seed + s).to(device)
            rad = pretrain.measure(
                model,
                windows[:, :-1],
                n_times=n_times,
                generator=torch.Generator(device="cpu").manual_seed(s),
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
