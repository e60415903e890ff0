"""Pre-training to the LSC with the p = 2 induced norm, and Fig. S3: Herranz-Celotti & Rouat, App. I.

Fig. S3 repeats the decaying-covariance test of Fig. S2 on networks "pre-trained to satisfy the LSC with
the matrix norm induced by the vector p-norm with p = 2, such that E a_k = 1", a_k = ||M_k||_2 the
largest singular value of a transition derivative. The pre-training of :mod:`rnnbook.lsc.pretrain`
(Sec. II-D) targets the spectral radius; here the same loop (its Eq. (2) loss, weight multiplier and
shuffling, called unchanged) is given transitions whose ``radii`` are their spectral norms:

* :class:`NormTransition` is a :class:`~rnnbook.lsc.pretrain.Transition` measured by ||M||_2;
* :class:`InducedNormLSC` wraps a :class:`~rnnbook.lsc.pretrain.StackedRNN` so that
  :func:`~rnnbook.lsc.pretrain.lsc_pretrain_` sees only such transitions;
* :func:`fig_s3_networks` repeats the study on independent networks and :func:`fig_s3_summary`
  gives the largest of the four fractions of significant correlations (two layers, with respect to
  t0 and over all pairs) with its 95% interval over them; :func:`calibration_surrogates` names the
  surrogates of known covariance on which that statistic's 10% line is calibrated
  (:func:`~rnnbook.lsc.decaying_covariance.calibrate`).

:func:`fig_s3_study` pre-trains the 2-layer LSTM of App. H (:func:`rnnbook.lsc.models.make_rnn`) on
the spike-latency digits of :mod:`rnnbook.lsc.decaying_covariance` and measures the statistics of
Fig. S2 on its time-transition norms before and after. The network is drawn on the CPU generator
(:func:`~rnnbook.lsc.models.make_rnn`) and moved to ``device``, where the pre-training and the
Jacobians run; the images, their shuffling and the statistics stay on the CPU.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator

import numpy as np
import torch
from torch import Tensor, nn

from ..stats import seed_interval
from . import decaying_covariance as dc
from .models import make_rnn
from .pretrain import LSCConfig, LSCReport, StackedRNN, Transition, lsc_pretrain_


class NormTransition(Transition):
    """A family of transition derivatives whose "radius" is the p = 2 induced norm ||M||_2."""

    def radii(self, nonsquare: str = "pad") -> Tensor:
        return torch.linalg.matrix_norm(self.M, ord=2)


class InducedNormLSC(nn.Module):
    """A ``StackedRNN`` seen through its spectral norms: ``lsc_pretrain_`` on this wrapper
    pre-trains the network to E ||M_k||_2 = target (the LSC of Theorem 2 with q = 1, p = 2)."""

    def __init__(self, net: StackedRNN) -> None:
        super().__init__()
        self.net = net

    @property
    def depth(self) -> int:
        return self.net.depth

    def forward(self, x: Tensor, trace: bool = False):
        return self.net(x, trace=trace)

    def lsc_jacobians(self, x: Tensor, **kw) -> list[NormTransition]:
        return [
            NormTransition(t.layer, t.kind, t.M)
            for t in self.net.lsc_jacobians(x, **kw)
        ]

    def lsc_scale(self, layer: int, kind: str, kappa: float) -> None:
        self.net.lsc_scale(layer, kind, kappa)


@torch.no_grad()
def time_transition_norms(
    net: StackedRNN, x: Tensor, chunk: int = 64
) -> list[np.ndarray]:
    """a_{t,l} = ||dh_{t,l}/dh_{t-1,l}||_2 at every sample and step: [(B, T)] per layer, for the
    LSTM of ``make_rnn`` (h the concatenation of its two states): its weights run through the
    independent closed-form LSTM of :func:`~rnnbook.lsc.decaying_covariance.transition_norms`
    (batched Jacobians, the top eigenvalue of J^T J; the tests check it against the network's own
    autograd Jacobians), ``chunk`` samples at a time."""
    layers = [dc.LSTMLayer(c.W.detach(), c.U.detach(), c.b.detach()) for c in net.cells]
    norms = dc.transition_norms(layers, x, chunk)
    return [a.double().cpu().numpy() for a in norms]


def digit_batches(
    batch: int, seed: int, time_repeat: int, device: str = "cpu"
) -> Iterator[Tensor]:
    """Endless random batches of spike-latency digits (all 1,797 images, reshuffled each pass on
    the CPU generator), each moved to ``device``."""
    X = torch.tensor(
        dc.load_sl_digits(1797, seed, time_repeat=time_repeat), device="cpu"
    )
    g = torch.Generator(device="cpu").manual_seed(seed)
    while True:
        perm = torch.randperm(len(X), generator=g, device="cpu")
        for i in range(0, len(X) - batch + 1, batch):
            yield X[perm[i : i + batch]].to(device)


def decay_study(
    norms: list[np.ndarray], X: Tensor, lag0: int, time_repeat: int = 1
) -> dc.FigS2Study:
    """The statistics of Fig. S2 (:class:`~rnnbook.lsc.decaying_covariance.FigS2Study`) of given
    norms; ``lag0`` in time steps; X the inputs, each step repeated ``time_repeat`` times."""
    stats = [dc.lag_statistics(a) for a in norms]
    pairwise = [dc.pairwise_significance(a, st.t0, lag0) for a, st in zip(norms, stats)]
    spikes = float(X.sum((1, 2)).mean()) / time_repeat
    return dc.FigS2Study(X, norms, stats, pairwise, lag0, spikes)


@dataclass
class FigS3Study:
    """Fig. S2's statistics of the same LSTM at initialization (``before``) and after pre-training
    to E ||M_k||_2 = 1 (``after``), the pre-training report and the mean time-transition norm of
    each layer after it, on the evaluation images."""

    before: dc.FigS2Study
    after: dc.FigS2Study
    report: LSCReport
    mean_norm: list[float]

    def check(self) -> dict:
        """Fig. S2's summary after pre-training, whether the pre-training converged, and the mean
        norms after and before."""
        s = self.after.check()
        return dict(
            **s,
            converged=bool(self.report.converged),
            pretrain_steps=self.report.steps,
            mean_norm=self.mean_norm,
            init_mean_norm=[float(a.mean()) for a in self.before.norms],
        )


def fig_s3_study(
    samples: int,
    seed: int,
    width: int,
    time_repeat: int,
    lag0: int,
    steps: int,
    batch: int,
    device: str = "cpu",
) -> FigS3Study:
    """Fig. S3: the 2-layer LSTM of App. H (width ``width``) on the spike-latency digits, pre-trained
    for at most ``steps`` steps (batches of ``batch`` images) to E ||M_k||_2 = 1 over all its time and
    depth transitions, with Fig. S2's statistics of its time-transition norms before and after on
    ``samples`` images; ``lag0`` in the data's steps (before the time repeat). The network runs
    on ``device``."""
    X = torch.tensor(
        dc.load_sl_digits(samples, seed, time_repeat=time_repeat), device="cpu"
    )
    net = make_rnn("lstm", 2, X.shape[-1], width, 10, seed).to(device)
    Xd = X.to(device)
    lag = lag0 * time_repeat
    before = decay_study(time_transition_norms(net, Xd), X, lag, time_repeat)
    cfg = LSCConfig(target=1.0, max_steps=steps, shuffle="all")
    batches = digit_batches(batch, seed + 1, time_repeat, device)
    report = lsc_pretrain_(InducedNormLSC(net), batches, config=cfg, seed=seed)
    norms = time_transition_norms(net, Xd)
    after = decay_study(norms, X, lag, time_repeat)
    return FigS3Study(before, after, report, [float(a.mean()) for a in norms])


def fig_s3_networks(networks: int, seed: int, **study) -> list[FigS3Study]:
    """:func:`fig_s3_study` (its other arguments by keyword) on ``networks`` independent networks:
    network k has seed ``seed + 1000 k`` for its weights, pre-training batches and evaluation images."""
    if networks < 1:
        raise ValueError(f"networks must be >= 1, got {networks}")
    return [fig_s3_study(seed=seed + 1000 * k, **study) for k in range(networks)]


def fig_s3_summary(studies: list[FigS3Study]) -> dict:
    """Fig. S3 over networks: per network the decision statistic, the largest of the four fractions
    of significant correlations at lags >= lag0 (per layer, with respect to t0 and over all pairs;
    :func:`~rnnbook.lsc.decaying_covariance.largest_fraction`), whether its correlations decay and
    whether its pre-training converged; the statistic's mean and 95% t interval over networks; the
    mean over networks and layers of |r| at lag 1 and at lags >= lag0, and the number of steps
    after t0 (the shape of the calibration's surrogates)."""
    checks = [s.check() for s in studies]
    worst = [dc.largest_fraction(c) for c in checks]
    iv = seed_interval(worst)
    first = checks[0]
    return dict(
        worst=dict(mean=iv.mean, lo=iv.lo, hi=iv.hi, n=iv.n),
        worst_each=[round(w, 3) for w in worst],
        worst_seeds=[float(w) for w in worst],
        # per network, the largest over layers of mean |r| at lags >= lag0 over |r| at lag 1
        # (below 1/2: decays)
        decay_ratio_each=[
            float(max(m / max(v, 1e-12) for m, v in zip(c["mean_abs"], c["lag1"])))
            for c in checks
        ],
        decays_each=[bool(c["decays"]) for c in checks],
        converged_each=[bool(c["converged"]) for c in checks],
        networks=len(checks),
        **{k: first[k] for k in ("frac_sig", "pair_frac", "lag0", "spikes")},
        mean_norm=[float(np.mean([c["mean_norm"][j] for c in checks])) for j in (0, 1)],
        init_mean_norm=[
            float(np.mean([c["init_mean_norm"][j] for c in checks])) for j in (0, 1)
        ],
        pretrain_steps=max(c["pretrain_steps"] for c in checks),
        lag1_mean=float(np.mean([c["lag1"] for c in checks])),
        far_mean=float(np.mean([c["mean_abs"] for c in checks])),
        steps=int(studies[0].after.norms[0].shape[1] - studies[0].after.stats[0].t0),
    )


def calibration_surrogates(summary: dict) -> dict:
    """The surrogates that calibrate the 10% line of Fig. S3 (name -> (phi, floor), see
    :func:`rnnbook.lsc.decaying_covariance.surrogate_norms`): white noise; a fast AR(1) (phi = 0.5);
    ``decaying``, an AR(1) with the norms' own mean lag-1 correlation (a decaying covariance by
    definition); ``slow``, an AR(1) whose correlation falls to 1/e at lag0; ``non-decaying``, the
    norms' lag-1 AR(1) plus a correlation floor at the norms' mean |r| at lags >= lag0, which never
    decays."""
    phi = min(max(summary["lag1_mean"], 0.0), 0.999)
    floor = min(max(summary["far_mean"], 0.0), 0.999)
    return {
        "white noise": (0.0, 0.0),
        "fast AR(1)": (0.5, 0.0),
        "decaying": (phi, 0.0),
        "slow": (float(np.exp(-1.0 / summary["lag0"])), 0.0),
        "non-decaying": (phi, floor),
    }


def calibration_values(cal: dc.Calibration) -> dict:
    """The crossing rates of the calibration as measured values of the Fig. S3 claim."""
    return dict(
        rate_white=cal.rate["white noise"],
        rate_fast=cal.rate["fast AR(1)"],
        rate_decaying=cal.rate["decaying"],
        rate_slow=cal.rate["slow"],
        rate_nondecaying=cal.rate["non-decaying"],
        above_white=cal.above["white noise"],
        above_decaying=cal.above["decaying"],
        above_slow=cal.above["slow"],
        above_nondecaying=cal.above["non-decaying"],
        cal_draws=cal.draws,
        cal_steps=cal.steps,
        phi_data=cal.surrogates["decaying"][0],
        floor_data=cal.surrogates["non-decaying"][1],
    )
