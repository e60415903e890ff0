"""Fig. 1c (bottom) of Herranz-Celotti & Rouat: the gradient through time of a deep GRU (Sec. III-B).

A GRU of depth L pre-trained to rho_t = 1 has a gradient that grows backwards in time, bounded by
c_1 binom(Δt + Δl, Δt), the number of gradient paths (proof of Theorem 1, Δl = L - 1); pre-trained
to rho_t = 0.5 it stays below a constant c_2. :func:`gradient_through_time` measures
G(Δt) = E_v ||v^T dh_{T,L} / dh_{T-Δt,1}||; :func:`run` pre-trains the GRU to both targets on the
SHD stand-in and returns the curves, the fitted bounds and the growth factors. The GRU is drawn
on the CPU generator and moved to ``device``, where it is pre-trained and differentiated; the
inputs and the probes are drawn on the CPU and moved there.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import torch
from torch import Tensor

from rnnbook.stats import seed_interval

from . import pretrain, tasks
from .models import make_rnn


def gradient_through_time(
    model: pretrain.StackedRNN,
    x: Tensor,
    layer: int = 1,
    n_probe: int = 8,
    seed: int = 0,
) -> np.ndarray:
    """G[Δt] = E ||v^T dh_{T,L} / dh_{T-Δt, layer}|| over random unit probes v (Frobenius-norm
    estimate of the Jacobian / sqrt(n)), averaged over the batch: the gradient that reaches the
    state of ``layer`` Δt steps back. Runs on the device of ``x`` (the model's); the probes are
    drawn on a CPU generator."""
    model.eval()
    g = torch.Generator(device="cpu").manual_seed(seed)
    u_seq = model.encode(x)
    B, T = u_seq.shape[:2]
    hs = [c.initial_state(B, device=u_seq.device) for c in model.cells]
    probes = []
    for t in range(T):
        u = u_seq[:, t]
        for l, cell in enumerate(model.cells):
            hs[l] = cell.step(hs[l], u)
            if l == layer - 1:
                p = torch.zeros_like(hs[l], requires_grad=True)
                hs[l] = hs[l] + p
                probes.append(p)
            u = cell.out(hs[l], u)
    top = hs[-1]
    acc = torch.zeros(T, device=top.device)
    for _ in range(n_probe):
        v = torch.randn(top.shape[1], generator=g, device="cpu")
        v = (v / v.norm()).to(top.device)
        grads = torch.autograd.grad((top * v).sum(), probes, retain_graph=True)
        acc += torch.stack([gr.norm(dim=1).mean() for gr in grads]).detach()
    return (acc / n_probe).flip(0).cpu().numpy()  # index = Δt = T - 1 - t


def path_counts(T: int, depth: int) -> np.ndarray:
    """binom(Δt + Δl, Δt) for Δt = 0..T-1 and Δl = depth - 1: the gradient paths of Lemma 2."""
    dl = depth - 1
    return np.array([math.comb(t + dl, t) for t in range(T)], dtype=float)


@dataclass
class GradientCurves:
    """G(Δt) per target and seed (``runs[target]``: one curve per seed), the pre-training
    reports, the path counts; the fitted constants are those of the geometric mean over seeds."""

    depth: int
    width: int
    n_channels: int
    runs: dict[float, list[np.ndarray]]
    reports: dict[float, list[pretrain.LSCReport]]
    paths: np.ndarray

    @property
    def curves(self) -> dict[float, np.ndarray]:
        """The geometric mean over seeds of G(Δt), per target."""
        return {t: np.exp(np.mean(np.log(c), 0)) for t, c in self.runs.items()}

    @property
    def c1(self) -> float:
        """The smallest c_1 with G(Δt) <= c_1 binom(Δt + Δl, Δt) for rho_t = 1."""
        return float(np.max(self.curves[1.0] / self.paths))

    @property
    def c2(self) -> float:
        """The smallest constant bound of G(Δt) for rho_t = 0.5."""
        return float(np.max(self.curves[0.5]))

    def growth(self) -> dict[float, np.ndarray]:
        """Per seed: mean of G over the last quarter of Δt over the mean over the first quarter."""
        q = max(1, len(self.paths) // 4)
        return {
            t: np.array([np.mean(c[-q:]) / np.mean(c[:q]) for c in cs])
            for t, cs in self.runs.items()
        }

    def values(self, tol: float = 0.1) -> dict:
        """What the claim of Fig. 1c measures, with the run's scale: the growth factors'
        geometric means and 95% intervals over seeds (a t interval of log10 growth), and how
        far the pre-trainings' mean radius ended from the target (``max_dev``), and per seed
        whether each target's pre-training ended within ``tol`` of it (``reached_half``,
        ``reached_one``: 1 or 0; the gate reads their share)."""
        g, T = self.growth(), len(self.paths)
        out = dict(
            gru_depth=self.depth,
            gru_width=self.width,
            shd_channels=self.n_channels,
            T_grad=T,
            bin_ms=1000.0 / T,
            tol=tol,
            n_seeds=len(g[0.5]),
        )
        for t, name in ((0.5, "half"), (1.0, "one")):
            iv = seed_interval(np.log10(g[t]))
            out[f"growth_{name}"] = 10**iv.mean
            out[f"growth_{name}_lo"] = 10**iv.lo
            out[f"growth_{name}_hi"] = 10**iv.hi
            out[f"log_growth_{name}_seeds"] = [float(v) for v in np.log10(g[t])]
            out[f"conv_{name}"] = sum(r.converged for r in self.reports[t])
            out[f"reached_{name}"] = [int(abs(r.mean_dev) <= tol) for r in self.reports[t]]
        devs = [abs(r.mean_dev) for rs in self.reports.values() for r in rs]
        out["max_dev"] = float(max(devs))
        return out


def run(
    depth: int,
    width: int,
    n_channels: int,
    T: int,
    rates: list[int],
    pitches: list[int],
    pre_steps: int,
    pre_batch: int,
    seeds: list[int] = (0,),
    device: str = "cpu",
) -> GradientCurves:
    """Pre-train a GRU of ``depth`` x ``width`` on inputs of the SHD stand-in (``T`` bins over 1 s)
    to rho_t = 0.5 and to 1 (at most ``pre_steps`` steps), once per seed (the network's
    initialization and its pre-training batches), and measure G(Δt) on 32 test utterances, on
    ``device``."""
    shd = tasks.spoken_digits(
        "test",
        n_channels=n_channels,
        n_steps=T,
        bin_ms=1000.0 / T,
        rates=tuple(rates),
        pitches=tuple(pitches),
    )
    x = shd.dense(np.arange(min(len(shd), 32))).to(device)
    runs, reports = {0.5: [], 1.0: []}, {0.5: [], 1.0: []}
    for seed in seeds:
        for target in (0.5, 1.0):
            batches = tasks.random_batches(shd, pre_batch, seed=seed)
            batches = (b.to(device) for b in batches)
            gru = make_rnn("gru", depth, n_channels, width, 20, seed=seed).to(device)
            cfg = pretrain.LSCConfig(
                target=target, max_steps=pre_steps, n_times=2, shuffle="all"
            )
            reports[target].append(
                pretrain.lsc_pretrain_(gru, batches, config=cfg, seed=seed)
            )
            runs[target].append(
                gradient_through_time(gru, x, layer=1, n_probe=4, seed=seed)
            )
    return GradientCurves(
        depth, width, n_channels, runs, reports, path_counts(T, depth)
    )
