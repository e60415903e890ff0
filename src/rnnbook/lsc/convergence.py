"""Does LSC pre-training reach its target? (Herranz-Celotti & Rouat, Sec. II-D, Fig. 3 caption.)

:func:`pretrain_kinds` pre-trains the six RNNs of App. H (two layers) towards rho_t = 0.5 and 1 and
records the radii before and after; :func:`pretrain_variants` pre-trains one GRU three ways (gradient
descent on Eq. 2 alone, with the weight multiplier, with the multiplier and shuffling) for the
claim that gradient descent "satisfies the LSC on average, with a wide variance". The summaries
return the numbers the chapter's claims are decided on.
"""

from __future__ import annotations

from typing import Iterator

import numpy as np
import torch
from torch import Tensor

from rnnbook import plotting

from . import pretrain
from .models import DIFFERENTIABLE, RNN_LABELS, make_rnn

TARGETS = (0.5, 1.0)
VARIANTS = {
    "gradient descent only": dict(multiplier=False, shuffle=False),
    "+ multiplier": dict(multiplier=True, shuffle=False),
    "+ multiplier + shuffling (the method)": dict(multiplier=True, shuffle=True),
}


def pretrain_kinds(
    kinds: list[str],
    n_in: int,
    width: int,
    x0: Tensor,
    batches: Iterator[Tensor],
    max_steps: int,
    n_times: int,
    seed: int,
) -> dict:
    """{(kind, target): (report, radii before, radii after)} for two-layer networks of ``width``
    pre-trained on ``batches`` (one iterator shared by all runs, in order); the radii are measured
    on ``x0`` at the same sampled time steps before and after."""
    runs = {}
    for kind in plotting.progress(kinds, desc="pre-training"):
        for target in TARGETS:
            model = make_rnn(kind, 2, n_in, width, 10, seed=seed)
            gen = torch.Generator().manual_seed(2)
            before = pretrain.measure(model, x0, n_times=n_times, generator=gen)
            cfg = pretrain.LSCConfig(
                target=target, max_steps=max_steps, n_times=n_times
            )
            rep = pretrain.pretrain(model, batches, cfg, seed=seed)
            gen = torch.Generator().manual_seed(2)
            after = pretrain.measure(model, x0, n_times=n_times, generator=gen)
            runs[(kind, target)] = (rep, before, after)
    return runs


def kinds_table(runs: dict) -> str:
    """Radius before and after (mean ± sd over the M_k), convergence, steps and time per run."""
    rows = []
    for (kind, target), (rep, before, after) in runs.items():
        b = np.concatenate(list(before.values()))
        a = np.concatenate(list(after.values()))
        rows.append(
            f"| {RNN_LABELS[kind]} | {target} | {b.mean():.3f} ± {b.std():.3f} "
            f"| {a.mean():.3f} ± {a.std():.3f} | "
            f"{'yes' if rep.converged else '**no**'} | {rep.steps} | {rep.seconds:.1f} |"
        )
    return (
        "| network | $\\rho_t$ | radius before (mean ± sd over $k$) | after | converged "
        "| steps | seconds |\n|---|---|---|---|---|---|---|\n" + "\n".join(rows)
    )


def kinds_summary(runs: dict) -> dict:
    """How many (network, target) pairs converged: the differentiable networks (``n_conv`` of
    ``n_pairs``, with the steps each took) and the ALIF ones at 0.5 and at 1 (of ``n_alif``),
    with their final mean radius at 0.5."""
    kinds = list(dict.fromkeys(k for k, _ in runs))
    diff = [k for k in kinds if k in DIFFERENTIABLE]
    alif = [k for k in kinds if k not in DIFFERENTIABLE]
    conv = {key: r[0].converged for key, r in runs.items()}
    return dict(
        n_conv=sum(conv[(k, t)] for k in diff for t in TARGETS),
        n_pairs=2 * len(diff),
        steps=", ".join(
            f"{RNN_LABELS[k]}@{t}: {runs[(k, t)][0].steps}"
            for k in diff
            for t in TARGETS
        ),
        n_alif=len(alif),
        alif_half=sum(conv[(k, 0.5)] for k in alif),
        alif_one=sum(conv[(k, 1.0)] for k in alif),
        alif_radii=", ".join(
            f"{RNN_LABELS[k]} {runs[(k, 0.5)][0].mean_radius:.2f}" for k in alif
        ),
    )


def pretrain_variants(
    n_in: int,
    width: int,
    batches: Iterator[Tensor],
    max_steps: int,
    n_times: int,
    seed: int,
) -> dict[str, pretrain.LSCReport]:
    """A two-layer GRU pre-trained towards rho_t = 0.5 with each of ``VARIANTS``, for the whole
    budget (no early stop)."""
    out = {}
    for name, kw in plotting.progress(VARIANTS.items(), desc="variants"):
        model = make_rnn("gru", 2, n_in, width, 10, seed=seed)
        cfg = pretrain.LSCConfig(
            target=0.5,
            max_steps=max_steps,
            min_steps=max_steps,
            n_times=n_times,
            **kw,
        )
        out[name] = pretrain.pretrain(model, batches, cfg, seed=seed)
    return out


def variants_summary(var_runs: dict[str, pretrain.LSCReport], max_steps: int) -> dict:
    """Mean deviation from the target (``md_*``) and spread across k (``sd_*``) over the last
    quarter of the budget (``last`` steps), for gradient descent only (``gd``), + multiplier
    (``mult``) and the full method (``full``)."""
    last = max(1, max_steps // 4)
    out = {"last": last}
    for short, name in zip(("gd", "mult", "full"), VARIANTS):
        h = var_runs[name].history
        out[f"sd_{short}"] = float(np.mean(h["std"][-last:]))
        out[f"md_{short}"] = float(np.mean(h["mean_dev"][-last:]))
    return out
