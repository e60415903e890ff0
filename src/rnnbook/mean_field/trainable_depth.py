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
    spearman,
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


def fig2_sweeps() -> dict[str, Sweep]:
    """The four sweeps of Fig. 2 (vanilla: sigma_v = 0.025; minimalRNN: sigma_v = 1.39)."""
    sw_van = [0.5, 0.75, 1.0, 1.25, 1.5]
    mu_sweep = [-4.0, -2.0, 0.0, 2.0, 4.0, 6.0, 8.0]
    sw_sweep = [0.5, 2.5, 5.0, 7.5, 10.0]
    sw = r"$\sigma_w$"
    return {
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
    progress=lambda it, **kw: it,
) -> dict[tuple[str, str], np.ndarray]:
    """Train every network of every sweep, untied and tied, at every depth: one batched grid per model
    (``steps[kind]`` Adam steps). Returns (sweep, 'untied' | 'tied') -> accuracy (len(Ts), len(xs))."""
    acc = {}
    for kind in MODELS:
        names = [n for n, s in sweeps.items() if s.kind == kind]
        specs = [
            InitSpec(sw, sv, mu, 0.0, tied=tied)
            for tied in (False, True)
            for n in names
            for sw, sv, mu in sweeps[n].hps
        ]
        A = trainability_grid(
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
            progress=progress,
        )
        half, pos = len(specs) // 2, 0
        for n in names:
            k = len(sweeps[n].hps)
            acc[(n, "untied")] = A[:, pos : pos + k]
            acc[(n, "tied")] = A[:, half + pos : half + pos + k]
            pos += k
    return acc


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
