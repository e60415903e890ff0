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
    "gradient descent only": dict(multiplier=False, shuffle="none"),
    "+ multiplier": dict(multiplier=True, shuffle="none"),
    "+ multiplier + shuffling (the method)": dict(multiplier=True, shuffle="all"),
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
    device: str = "cpu",
) -> dict:
    """{(kind, target): (report, radii before, radii after)} for two-layer networks of ``width``
    pre-trained on ``batches`` (one iterator shared by all runs, in order); the radii are measured
    on ``x0`` at the same sampled time steps before and after. On ``device`` (the networks are
    drawn on the CPU and moved; the batches are moved). Every target starts from the same
    network, so its radii before are measured once per kind."""
    runs, x0, batches = {}, x0.to(device), _on(batches, device)
    for kind in plotting.progress(kinds, desc="pre-training"):
        start = None
        for target in TARGETS:
            model = make_rnn(kind, 2, n_in, width, 10, seed=seed).to(device)
            if start is None:
                gen = torch.Generator(device="cpu").manual_seed(2)
                start = pretrain.measure(model, x0, n_times=n_times, generator=gen)
            before = {k: v.copy() for k, v in start.items()}
            cfg = pretrain.LSCConfig(
                target=target, max_steps=max_steps, n_times=n_times, shuffle="all"
            )
            rep = pretrain.lsc_pretrain_(model, batches, config=cfg, seed=seed)
            gen = torch.Generator(device="cpu").manual_seed(2)
            after = pretrain.measure(model, x0, n_times=n_times, generator=gen)
            runs[(kind, target)] = (rep, before, after)
    return runs


def _on(batches: Iterator[Tensor], device: str) -> Iterator[Tensor]:
    """The batches moved to ``device``."""
    return (x.to(device) for x in batches)


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
    device: str = "cpu",
) -> dict[str, pretrain.LSCReport]:
    """A two-layer GRU pre-trained towards rho_t = 0.5 with each of ``VARIANTS``, for the whole
    budget (no early stop), on ``device``."""
    out, batches = {}, _on(batches, device)
    for name, kw in plotting.progress(VARIANTS.items(), desc="variants"):
        model = make_rnn("gru", 2, n_in, width, 10, seed=seed).to(device)
        cfg = pretrain.LSCConfig(
            target=0.5,
            max_steps=max_steps,
            min_steps=max_steps,
            n_times=n_times,
            **kw,
        )
        out[name] = pretrain.lsc_pretrain_(model, batches, config=cfg, seed=seed)
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


# ---- over seeds (the claims of the chapter are decided on these) ------------------------------------------------


def pretrain_kinds_seeds(
    kinds: list[str],
    data,
    width: int,
    x0: Tensor,
    batch: int,
    max_steps: int,
    n_times: int,
    seeds: list[int],
    device: str = "cpu",
) -> dict[int, dict]:
    """:func:`pretrain_kinds` once per seed of ``seeds``: the networks are initialized with that
    seed and pre-trained on their own stream of ``batch`` inputs of ``data`` (seeded with it)."""
    from .tasks import random_batches

    return {
        s: pretrain_kinds(
            kinds,
            data.n_channels,
            width,
            x0,
            random_batches(data, batch, s),
            max_steps,
            n_times,
            s,
            device,
        )
        for s in seeds
    }


def _closer(rep, target: float) -> bool:
    """Whether a pre-training ended closer to its target than it started (or converged)."""
    h = rep.history["mean_radius"] if hasattr(rep, "history") else []
    if rep.converged or not h:
        return bool(rep.converged)
    return abs(h[-1] - target) < abs(h[0] - target)


def kinds_summary_seeds(by_seed: dict[int, dict]) -> dict:
    """:func:`kinds_summary` summed over seeds (``n_conv`` of ``n_pairs``, ``alif_half`` and
    ``alif_one`` of ``n_alif`` runs), the fraction of the differentiable pairs converged per seed
    with its 95% interval (``conv_mean``, ``conv_lo``, ``conv_hi``), and the gates: ``moved``, the
    fraction of differentiable runs that ended closer to their target than they started, and
    ``diff_conv``, the fraction of differentiable runs that converged; per ALIF network
    (``alif_kinds``) the runs that failed at rho_t = 0.5 over the seeds, ``[failed, runs]``
    (``alif_fail_half``). Per seed, for the claims and for a record's shards: per
    differentiable (network, target) condition (``conditions``) whether it converged
    (``cond_conv``, 1 or 0 by seed), and per ALIF network whether it failed at 0.5
    (``alif_failed``)."""
    from rnnbook.stats import seed_interval

    per = [kinds_summary(runs) for runs in by_seed.values()]
    tot = {k: sum(p[k] for p in per) for k in ("n_conv", "n_pairs", "n_alif")}
    tot.update({k: sum(p[k] for p in per) for k in ("alif_half", "alif_one")})
    frac = [p["n_conv"] / max(1, p["n_pairs"]) for p in per]
    ci = seed_interval(frac)
    diff = [
        (rep, t)
        for runs in by_seed.values()
        for (k, t), (rep, _, _) in runs.items()
        if k in DIFFERENTIABLE
    ]
    moved = np.mean([_closer(rep, t) for rep, t in diff]) if diff else float("nan")
    alif = list(
        dict.fromkeys(
            k for runs in by_seed.values() for k, _ in runs if k not in DIFFERENTIABLE
        )
    )
    fails = {
        k: [
            sum(not runs[(k, 0.5)][0].converged for runs in by_seed.values()),
            len(by_seed),
        ]
        for k in alif
    }
    kinds = list(dict.fromkeys(k for runs in by_seed.values() for k, _ in runs))
    cond = {
        f"{RNN_LABELS[k]} at target {t:g}": [
            int(runs[(k, t)][0].converged) for runs in by_seed.values()
        ]
        for k in kinds
        if k in DIFFERENTIABLE
        for t in TARGETS
    }
    return dict(
        tot,
        conditions=list(cond),
        cond_conv=cond,
        alif_failed={
            RNN_LABELS[k]: [int(not r[(k, 0.5)][0].converged) for r in by_seed.values()]
            for k in alif
        },
        alif_kinds=[RNN_LABELS[k] for k in alif],
        alif_fail_half={RNN_LABELS[k]: v for k, v in fails.items()},
        conv_mean=ci.mean,
        conv_lo=ci.lo,
        conv_hi=ci.hi,
        moved=float(moved),
        diff_conv=tot["n_conv"] / max(1, tot["n_pairs"]),
        steps="; ".join(f"seed {s}: {p['steps']}" for s, p in zip(by_seed, per)),
        alif_radii="; ".join(
            f"seed {s}: {p['alif_radii']}" for s, p in zip(by_seed, per)
        ),
        n_seeds=len(per),
    )


def pretrain_variants_seeds(
    data,
    width: int,
    batch: int,
    max_steps: int,
    n_times: int,
    seeds: list[int],
    device: str = "cpu",
) -> dict[int, dict[str, pretrain.LSCReport]]:
    """:func:`pretrain_variants` once per seed (network and input stream seeded with it)."""
    from .tasks import random_batches

    return {
        s: pretrain_variants(
            data.n_channels,
            width,
            random_batches(data, batch, s + 1),
            max_steps,
            n_times,
            s,
            device,
        )
        for s in seeds
    }


def variants_summary_seeds(by_seed: dict[int, dict], max_steps: int) -> dict:
    """:func:`variants_summary` per seed, averaged over seeds, with 95% intervals over seeds of
    the spread difference ``dsd`` = sd_full - sd_gd (negative: the method narrows the spread) and
    of gradient descent's mean deviation ``md_gd``, with the per-seed samples the rule decides on
    (``log_sd_ratio_seeds`` = log(sd_full / sd_gd), ``md_gd_seeds``); ``gd_toward`` and
    ``full_toward``: the fraction of seeds in which gradient descent alone (the reference arm:
    the gate) and the full method (the compared arm) ended closer to the target than they
    started. A seed whose full method did not move towards the target counts as a loss for it:
    its log ratio is taken as at least 0 (no narrowing credited to a method that did not train;
    ``full_untrained`` counts them)."""
    from rnnbook.stats import seed_interval

    per = [variants_summary(v, max_steps) for v in by_seed.values()]
    out = {k: float(np.mean([p[k] for p in per])) for k in per[0]}
    dsd = seed_interval([p["sd_full"] - p["sd_gd"] for p in per])
    md = seed_interval([p["md_gd"] for p in per])
    gd, full = list(VARIANTS)[0], list(VARIANTS)[-1]

    def toward(name):
        return [
            abs(v[name].history["mean_dev"][-1]) < abs(v[name].history["mean_dev"][0])
            for v in by_seed.values()
        ]

    full_ok = toward(full)
    ratio = [float(np.log(p["sd_full"] / p["sd_gd"])) for p in per]
    return dict(
        out,
        last=per[0]["last"],
        dsd_mean=dsd.mean,
        dsd_lo=dsd.lo,
        dsd_hi=dsd.hi,
        md_gd_lo=md.lo,
        md_gd_hi=md.hi,
        gd_toward=float(np.mean(toward(gd))),
        full_toward=float(np.mean(full_ok)),
        full_untrained=int(sum(not ok for ok in full_ok)),
        log_sd_ratio_seeds=[r if ok else max(r, 0.0) for r, ok in zip(ratio, full_ok)],
        md_gd_seeds=[p["md_gd"] for p in per],
        n_seeds=len(per),
    )
