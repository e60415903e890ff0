"""The trainable depth follows the timescale tau (Chen et al. 2018, Sec. 4.1, Fig. 2).

Four sweeps of initialization hyperparameters (the panels of Fig. 2): the vanilla RNN over sigma_w and
the minimalRNN over mu_b (sigma_w = 6.88) and over sigma_w at mu_b = 4 and 6. Every network of a sweep,
with tied and with untied weights, is trained on MNIST-then-noise at every depth T of a grid
(:func:`rnnbook.mean_field.trainability.trainability_grid`); the theory curve is tau at Sigma_12 = 0.
The summary asks how well one rule "trainable iff T <= k tau" (a single multiple k for the grid)
classifies the (depth, network) cells, against the best rule that ignores tau ("T <= T0").
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from .theory import HP, minimal_timescale, vanilla_timescale
from .trainability import (
    InitSpec,
    constant_rule_agreement,
    depth_boundary,
    interval,
    per_seed,
    spearman,
    trend_text,
    tau_rule_agreement,
    trainability_grid,
)

MODELS = ("vanilla", "minimal")
WEIGHTS = ("untied", "tied")


@dataclass(frozen=True)
class Sweep:
    """One panel of Fig. 2: the model, its (sigma_w, sigma_v, mu_b) and the swept values."""

    kind: str
    hps: list[tuple[float, float, float]]
    xs: list[float]
    xlabel: str


def fig2_sweeps(points: int | None = None) -> dict[str, Sweep]:
    """The four sweeps of Fig. 2 (vanilla: sigma_v = 0.025; minimalRNN: sigma_v = 1.39).

    ``points`` keeps at most that many evenly spaced values of each sweep, ends included
    (the paper profile's dry run trains two per sweep); None keeps them all."""
    if points is not None and points < 2:
        raise ValueError(f"parameter 'points' = {points}: must be >= 2 (both ends)")
    sw_van = [0.5, 0.75, 1.0, 1.25, 1.5]
    mu_sweep = [-4.0, -2.0, 0.0, 2.0, 4.0, 6.0, 8.0]
    sw_sweep = [0.5, 2.5, 5.0, 7.5, 10.0]
    sw = r"$\sigma_w$"
    sweeps = {
        "vanilla, $\\sigma_w$": Sweep(
            "vanilla", [(s, 0.025, 0.0) for s in sw_van], sw_van, sw
        ),
        "minimalRNN, $\\mu_b$ ($\\sigma_w=6.88$)": Sweep(
            "minimal", [(6.88, 1.39, m) for m in mu_sweep], mu_sweep, r"$\mu_b$"
        ),
        "minimalRNN, $\\sigma_w$ ($\\mu_b=4$)": Sweep(
            "minimal", [(s, 1.39, 4.0) for s in sw_sweep], sw_sweep, sw
        ),
        "minimalRNN, $\\sigma_w$ ($\\mu_b=6$)": Sweep(
            "minimal", [(s, 1.39, 6.0) for s in sw_sweep], sw_sweep, sw
        ),
    }
    if points is None:
        return sweeps
    return {name: _thin(s, points) for name, s in sweeps.items()}


def _thin(s: Sweep, points: int) -> Sweep:
    """At most ``points`` evenly spaced values of a sweep, its two ends included."""
    keep = sorted(set(np.linspace(0, len(s.xs) - 1, min(points, len(s.xs))).round()))
    keep = [int(i) for i in keep]
    return Sweep(s.kind, [s.hps[i] for i in keep], [s.xs[i] for i in keep], s.xlabel)


def timescales(sweeps: dict[str, Sweep], R_minimal: float) -> dict[str, np.ndarray]:
    """tau at Sigma_12 = 0 along every sweep (the vanilla inputs have R = 1)."""
    out = {}
    for name, s in sweeps.items():
        sw, sv, mu = (np.array(z) for z in zip(*s.hps))
        out[name] = (
            vanilla_timescale(0.0, HP(sw, sv, mu, 1.0))
            if s.kind == "vanilla"
            else minimal_timescale(0.0, HP(sw, sv, mu, R_minimal))
        )
    return out


@dataclass
class Fig2Run:
    """The trainability grids of every sweep: ``acc[(sweep, 'untied' | 'tied')]`` has shape
    (checkpoints, len(Ts), seeds, len(xs)), the training accuracy at the evaluation ``steps[kind]``."""

    acc: dict
    steps: dict

    def final_mean(self) -> dict:
        """Seed-mean accuracy after the last step: (sweep, weights) -> (len(Ts), len(xs))."""
        return {k: a[-1].mean(1) for k, a in self.acc.items()}

    def at(self, c: int, s: int) -> dict:
        """Checkpoint ``c`` of seed ``s``: (sweep, weights) -> (len(Ts), len(xs))."""
        return {k: a[c, :, s] for k, a in self.acc.items()}


def run(
    sweeps: dict[str, Sweep],
    Ts: list[int],
    X: torch.Tensor,
    Y: torch.Tensor,
    width: int,
    batch: int,
    steps: dict[str, int],
    lr: float,
    seed: int,
    input_scale2: float,
    n_seeds: int = 1,
    n_checkpoints: int = 1,
    progress=lambda it, **kw: it,
    n_eval: int = 512,
    device: str = "cpu",
    budget: int | None = None,
    seed_start: int = 0,
) -> Fig2Run:
    """Train every network of every sweep, untied and tied, at every depth, ``n_seeds`` times: one
    batched grid (seeds x networks) per model and depth (``steps[kind]`` Adam steps); the accuracy
    on ``n_eval`` training images with fresh noise; each grid within ``budget`` bytes
    (:func:`rnnbook.mean_field.trainability.grid_chunks`). The seeds are members ``seed_start``
    on of the master ``seed``, each drawn as it is in any run that holds it
    (:func:`rnnbook.mean_field.trainability.trainability_grid`)."""
    acc, eval_steps = {}, {}
    for kind in MODELS:
        names = [n for n, s in sweeps.items() if s.kind == kind]
        specs = [
            InitSpec(sw, sv, mu, 0.0, tied=tied)
            for tied in (False, True)
            for n in names
            for sw, sv, mu in sweeps[n].hps
        ]
        eval_steps[kind], A = trainability_grid(
            kind,
            specs,
            Ts,
            X,
            Y,
            width,
            batch,
            steps[kind],
            lr,
            seed=seed,
            input_scale2=input_scale2,
            n_seeds=n_seeds,
            n_checkpoints=n_checkpoints,
            progress=progress,
            n_eval=n_eval,
            device=device,
            budget=budget,
            seed_start=seed_start,
        )
        half, pos = len(specs) // 2, 0
        for n in names:
            k = len(sweeps[n].hps)
            acc[(n, "untied")] = A[..., pos : pos + k]
            acc[(n, "tied")] = A[..., half + pos : half + pos + k]
            pos += k
    return Fig2Run(acc, eval_steps)


def summary(
    acc: dict, tau: dict, sweeps: dict[str, Sweep], Ts: list[int], threshold: float
) -> dict[tuple[str, str], dict]:
    """Per (model, weights), over all its (depth, network) cells: the agreement of the best
    'T <= k tau' rule and of the best tau-free rule, the Spearman correlation of tau with the trainable
    depth, and the fraction of networks trainable at the largest depth."""
    out = {}
    for model in MODELS:
        names = [n for n, s in sweeps.items() if s.kind == model]
        for wt in WEIGHTS:
            a = np.concatenate([acc[(n, wt)] for n in names], axis=1)
            t = np.concatenate([tau[n] for n in names])
            ag, k = tau_rule_agreement(a, Ts, t, threshold)
            ag0, T0 = constant_rule_agreement(a, Ts, threshold)
            rho = spearman(t, depth_boundary(a, Ts, threshold))
            out[(model, wt)] = {
                "agreement_tau_rule": round(ag, 3),
                "k": round(k, 2),
                "agreement_constant_rule": round(ag0, 3),
                "T0": T0,
                "spearman_tau_vs_depth": round(rho, 3),
                "fraction_trainable_at_T_max": round(
                    float(np.mean(a[-1] >= threshold)), 3
                ),
            }
    return out


def table(res: dict, T_max: int) -> str:
    head = (
        "| model | weights | agreement of $T\\le k\\tau$ | best $\\tau$-free rule "
        f"| Spearman($\\tau$, trainable depth) | trainable at $T={T_max}$ |\n"
        "|---|---|---|---|---|---|\n"
    )
    return head + "\n".join(
        f"| {m} | {w} | {d['agreement_tau_rule']:.2f} (k = {d['k']:.2g}) "
        f"| {d['agreement_constant_rule']:.2f} (T0 = {d['T0']:g}) "
        f"| {d['spearman_tau_vs_depth']:.2f} | {d['fraction_trainable_at_T_max']:.2f} |"
        for (m, w), d in res.items()
    )


def values(res: dict) -> dict:
    """The measured values of the two Fig. 2 claims."""
    out = {
        "results": {f"{m},{w}": d for (m, w), d in res.items()},
        "fractions": {
            f"{m},{w}": d["fraction_trainable_at_T_max"] for (m, w), d in res.items()
        },
    }
    for m in MODELS:
        d = res[(m, "untied")]
        out[f"{m}_tau"] = d["agreement_tau_rule"]
        out[f"{m}_const"] = d["agreement_constant_rule"]
        for w in WEIGHTS:
            out[f"{m}_{w}"] = res[(m, w)]["fraction_trainable_at_T_max"]
    return out


def seed_values(
    r: Fig2Run, tau: dict, sweeps: dict[str, Sweep], Ts: list[int], threshold: float
) -> dict:
    """The measured values of the two Fig. 2 claims over seeds: per model (untied) the tau-rule
    agreement ('agree') and its margin over the tau-free rule ('margin'), per weights the
    minimalRNN-minus-vanilla fraction trainable at the largest depth ('diff'), each per seed
    (``{'seeds': [...]}``) with its 95% interval over seeds for the text ('agree_iv',
    'margin_iv', 'diff_iv'), the margin and the untied difference at every checkpoint
    ('trend'), and the gate's values ('best_acc': per model, per network of its grid, the
    accuracy at the smallest depth after the last step, per seed; the gate reads the best
    network's seed mean, :func:`rnnbook.mean_field.trainability.best_seed_mean`). Every value
    a rule reads is a list over seeds, so that the seeds of a record's shards join."""
    n_ck = len(next(iter(r.steps.values())))
    n_seeds = next(iter(r.acc.values())).shape[2]
    per = [
        [summary(r.at(c, s), tau, sweeps, Ts, threshold) for s in range(n_seeds)]
        for c in range(n_ck)
    ]

    def stat(c, f):
        return interval([f(per[c][s]) for s in range(n_seeds)])

    def margin(m):
        return lambda d: (
            d[(m, "untied")]["agreement_tau_rule"]
            - d[(m, "untied")]["agreement_constant_rule"]
        )

    def diff(w):
        return lambda d: (
            d[("minimal", w)]["fraction_trainable_at_T_max"]
            - d[("vanilla", w)]["fraction_trainable_at_T_max"]
        )

    def agree(m):
        return lambda d: d[(m, "untied")]["agreement_tau_rule"]

    last = n_ck - 1
    frac = {
        (m, w): [
            per[last][s][(m, w)]["fraction_trainable_at_T_max"] for s in range(n_seeds)
        ]
        for m in MODELS
        for w in WEIGHTS
    }
    ivs = {
        "agree": {m: stat(last, agree(m)) for m in MODELS},
        "margin": {m: stat(last, margin(m)) for m in MODELS},
        "diff": {w: stat(last, diff(w)) for w in WEIGHTS},
    }
    out = {"n_seeds": n_seeds}
    for name, by in ivs.items():
        out[name] = {k: per_seed(iv) for k, iv in by.items()}
        out[f"{name}_iv"] = by
    return out | {
        "fractions": {
            f"{m},{w}": round(float(np.mean(f)), 3) for (m, w), f in frac.items()
        },
        "best_acc": {m: _first_depth(r, sweeps, m) for m in MODELS},
        "trend_margin": {m: [stat(c, margin(m)) for c in range(n_ck)] for m in MODELS},
        "trend_diff": {w: [stat(c, diff(w)) for c in range(n_ck)] for w in WEIGHTS},
        "trend_steps": dict(r.steps),
    }


def _first_depth(r: Fig2Run, sweeps: dict[str, Sweep], model: str) -> dict:
    """Per network of ``model``'s grid ('sweep, value, weights'), its accuracy at the smallest
    depth after the last step, one entry per seed."""
    return {
        f"{n}, {x:g}, {w}": [round(float(a), 6) for a in r.acc[(n, w)][-1, 0, :, i]]
        for n, s in sweeps.items()
        if s.kind == model
        for w in WEIGHTS
        for i, x in enumerate(s.xs)
    }


def ledger_values(v: dict) -> dict:
    """What the two Fig. 2 claims pass to the ledger: ``v`` of :func:`seed_values` with the
    trends as text ('step: mean [lo, hi]')."""
    out = {k: x for k, x in v.items() if not k.startswith("trend") and k != "n_seeds"}
    st = v["trend_steps"]
    out["trend"] = {m: trend_text(st[m], v["trend_margin"][m]) for m in MODELS}
    out["trend_diff"] = trend_text(st["minimal"], v["trend_diff"]["untied"])
    return out


def trend_panels(v: dict) -> list[dict]:
    """The two Fig. 2 effects over training, for :func:`rnnbook.mean_field.figures.effect_trends`
    (the difference pairs the c-th checkpoint of each model; drawn at the minimalRNN's steps)."""
    st = v["trend_steps"]
    return [
        {
            "title": r"Fig. 2: $\tau$ rule over $\tau$-free rule (untied)",
            "ylabel": "margin in cells classified",
            "band": 0.02,
            "curves": {m: (st[m], v["trend_margin"][m]) for m in MODELS},
        },
        {
            "title": r"Fig. 2: minimalRNN $-$ vanilla, trainable at $T_{\max}$",
            "ylabel": "difference in fraction of grid",
            "band": 0.05,
            "curves": {w: (st["minimal"], v["trend_diff"][w]) for w in WEIGHTS},
        },
    ]
