"""Decaying covariance of the transition-derivative norms of an LSTM: Herranz-Celotti & Rouat, App. A
(Definition of Decaying Covariance) and App. I (Figs. S2-S3).

The proof of Theorem 2 assumes that the norms a_k = ||dh_{t,l}/dh_{t-1,l}||_2 of the transition derivatives
(h the concatenation of the LSTM's two states, h and c) have a covariance that decays to zero with the
distance between k and k'. Fig. S2 checks it on a randomly initialized 2-layer LSTM: across a batch of data
samples, the covariance, the Pearson correlation and its p-value of a_t with a_{t0}, as the lag t - t0 grows.

* The data: the paper's sl-MNIST encodes each pixel x in [0, 1] as one spike at time
  T(x) = tau log(x / (x - theta)) (none if x <= theta), theta = 0.2, tau = 50 ms, 50 steps of 1 ms
  (:func:`spike_latency`, which applies to any image set, MNIST included). The stand-in used here is
  scikit-learn's real 8x8 handwritten digits (1,797 images, 64 input channels), a light package.
* The LSTM of App. H (Eq. 47), with the paper's initialization: input matrices Glorot uniform, recurrent
  matrices orthogonal, zero biases; its transition Jacobians in closed form, batched over samples and time
  (checked against ``torch.func.jacrev`` in the tests: the closed form is some 50 times faster), and their
  spectral norms.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import torch
from scipy import special
from torch.func import jacrev, vmap

from ..stats import seed_interval


def spike_latency(
    x: np.ndarray,
    theta: float = 0.2,
    tau: float = 50.0,
    steps: int = 50,
    dt: float = 1.0,
) -> np.ndarray:
    """sl encoding: x (N, C) in [0, 1] -> spikes (N, steps, C), one spike per channel at
    floor(T(x) / dt) with T(x) = tau log(x / (x - theta)) for x > theta, and none otherwise or if T >= steps dt."""
    x = np.asarray(x, dtype=float)
    N, C = x.shape
    out = np.zeros((N, steps, C), dtype=np.float32)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.where(x > theta, tau * np.log(x / (x - theta)), np.inf)
    k = np.floor(t / dt)
    n_idx, c_idx = np.nonzero(k < steps)
    out[n_idx, k[n_idx, c_idx].astype(int), c_idx] = 1.0
    return out


def spike_times(levels: int, steps: int = 50) -> np.ndarray:
    """The distinct spike times (steps) the sl code gives to an image set with ``levels`` grey
    levels k / (levels - 1): 17 for scikit-learn's 8x8 digits (ten times, 11 to 38), 256 for MNIST
    (39 times, 11 to 49). Coarse levels leave silent stretches between the spike times."""
    x = np.arange(levels)[None] / (levels - 1)
    return np.nonzero(spike_latency(x, steps=steps)[0].sum(1))[0]


def load_sl_digits(
    n_samples: int, seed: int, steps: int = 50, time_repeat: int = 1
) -> np.ndarray:
    """The stand-in for sl-MNIST: scikit-learn's 8x8 digits (pixel values 0..16 rescaled to [0, 1]), a random
    subset of ``n_samples`` images, spike-latency encoded; each time step repeated ``time_repeat`` times
    (the paper repeats twice). Shape (n_samples, steps * time_repeat, 64)."""
    from sklearn.datasets import load_digits

    X = load_digits().data / 16.0
    rng = np.random.default_rng(seed)
    idx = rng.choice(len(X), size=min(n_samples, len(X)), replace=False)
    return np.repeat(spike_latency(X[idx], steps=steps), time_repeat, axis=1)


@dataclass
class LSTMLayer:
    """One LSTM layer (Eq. 47): gates i, f, o, candidate c~ stacked in that order in W (4n, n_in), U (4n, n), b (4n)."""

    W: torch.Tensor
    U: torch.Tensor
    b: torch.Tensor

    @property
    def width(self) -> int:
        return self.U.shape[1]


def init_lstm(n_in: int, widths: list[int], g: torch.Generator) -> list[LSTMLayer]:
    """The paper's LSTM initialization (App. H): each W_j Glorot uniform, each U_j orthogonal, zero biases
    (drawn on the CPU generator ``g``, on the CPU)."""
    layers = []
    for n in widths:
        lim = math.sqrt(6.0 / (n_in + n))
        W = (2 * torch.rand(4 * n, n_in, generator=g, device="cpu") - 1) * lim
        Q, R = torch.linalg.qr(torch.randn(4, n, n, generator=g, device="cpu"))
        U = (Q * torch.sign(torch.diagonal(R, dim1=-2, dim2=-1)).unsqueeze(-2)).reshape(
            4 * n, n
        )
        layers.append(LSTMLayer(W, U, torch.zeros(4 * n, device="cpu")))
        n_in = n
    return layers


def lstm_step(layer: LSTMLayer, x: torch.Tensor, s: torch.Tensor) -> torch.Tensor:
    """One step of Eq. (47) for one sample: state s = (h, c) of size 2n -> next state (h', c')."""
    n = layer.width
    h, c = s[:n], s[n:]
    z = layer.W @ x + layer.U @ h + layer.b
    i, f, o = (
        torch.sigmoid(z[:n]),
        torch.sigmoid(z[n : 2 * n]),
        torch.sigmoid(z[2 * n : 3 * n]),
    )
    c_new = f * c + i * torch.tanh(z[3 * n :])
    return torch.cat([o * torch.tanh(c_new), c_new])


def run_lstm(layers: list[LSTMLayer], x: torch.Tensor) -> list[torch.Tensor]:
    """States of every layer: x (B, T, n_in) -> [(B, T+1, 2 n_l)], entry t the state after t inputs (t = 0: zeros)."""
    states = []
    inp = x
    for layer in layers:
        B, T, _ = inp.shape
        s = torch.zeros(B, 2 * layer.width, dtype=inp.dtype, device=inp.device)
        seq = [s]
        step = vmap(lambda xx, ss: lstm_step(layer, xx, ss))
        for t in range(T):
            s = step(inp[:, t], s)
            seq.append(s)
        S = torch.stack(seq, 1)
        states.append(S)
        inp = S[:, 1:, : layer.width]
    return states


def transition_jacobians(
    layer: LSTMLayer, x: torch.Tensor, s: torch.Tensor
) -> torch.Tensor:
    """d s_t / d s_{t-1} of :func:`lstm_step` in closed form, batched: x (..., n_in), s (..., 2n) -> (..., 2n, 2n).

    With z = W x + U h + b, gates i, f, o = sigmoid, u = tanh(z_c), c' = f c + i u, h' = o tanh(c'):
    dc'/dh = diag(c f(1-f)) U_f + diag(u i(1-i)) U_i + diag(i(1-u^2)) U_c, dc'/dc = diag(f),
    dh'/dh = diag(tanh(c') o(1-o)) U_o + diag(o(1-tanh^2 c')) dc'/dh, dh'/dc = diag(o(1-tanh^2 c') f)."""
    n = layer.width
    h, c = s[..., :n], s[..., n:]
    z = x @ layer.W.T + h @ layer.U.T + layer.b
    i, f, o = (
        torch.sigmoid(z[..., :n]),
        torch.sigmoid(z[..., n : 2 * n]),
        torch.sigmoid(z[..., 2 * n : 3 * n]),
    )
    u = torch.tanh(z[..., 3 * n :])
    tc = torch.tanh(f * c + i * u)
    Ui, Uf, Uo, Uc = (layer.U[k * n : (k + 1) * n] for k in range(4))
    col = lambda v: v.unsqueeze(-1)  # noqa: E731  (row scaling: diag(v) @ M)
    dc_dh = (
        col(c * f * (1 - f)) * Uf
        + col(u * i * (1 - i)) * Ui
        + col(i * (1 - u * u)) * Uc
    )
    dc_dc = torch.diag_embed(f)
    g = o * (1 - tc * tc)
    dh_dh = col(tc * o * (1 - o)) * Uo + col(g) * dc_dh
    dh_dc = torch.diag_embed(g * f)
    return torch.cat([torch.cat([dh_dh, dh_dc], -1), torch.cat([dc_dh, dc_dc], -1)], -2)


def transition_jacobians_autograd(
    layer: LSTMLayer, x: torch.Tensor, s: torch.Tensor
) -> torch.Tensor:
    """The same Jacobians by ``torch.func.jacrev`` of :func:`lstm_step`, vmapped over the leading axis."""
    return vmap(jacrev(lambda xx, ss: lstm_step(layer, xx, ss), argnums=1))(x, s)


def transition_norms(
    layers: list[LSTMLayer], x: torch.Tensor, chunk: int = 64
) -> list[torch.Tensor]:
    """a_{t,l} = ||d s_{t,l} / d s_{t-1,l}||_2 for every sample, time step t = 1..T and layer: [(B, T)].
    Spectral norms from the top eigenvalue of J^T J (``eigvalsh``, batched), ``chunk`` samples at
    a time (the Jacobians of all samples at once would take B T (2n)^2 floats)."""
    states = run_lstm(layers, x)
    out = []
    inp = x
    for layer, S in zip(layers, states):
        norms = []
        for b in range(0, x.shape[0], chunk):
            jac = transition_jacobians(layer, inp[b : b + chunk], S[b : b + chunk, :-1])
            gram = jac.transpose(-1, -2) @ jac
            norms.append(torch.linalg.eigvalsh(gram)[..., -1].clamp_min(0).sqrt())
        out.append(torch.cat(norms))
        inp = S[:, 1:, : layer.width]
    return out


@dataclass(frozen=True)
class LagStatistics:
    """Covariance, Pearson correlation and two-sided p-value of a_t with a_{t0}, across samples, at t = t0 + lag."""

    t0: int
    lags: np.ndarray
    cov: np.ndarray
    corr: np.ndarray
    p: np.ndarray
    var_a: np.ndarray  # Var a_t across samples, per t >= t0
    mean_a: np.ndarray


def first_varying_step(a: np.ndarray, rel_tol: float = 1e-6) -> int:
    """The first time step at which a_t varies across samples (before it, no input has reached the network)."""
    sd = a.std(0)
    idx = np.nonzero(sd > rel_tol * max(float(np.abs(a).max()), 1e-30))[0]
    return int(idx[0]) if idx.size else 0


def lag_statistics(a: np.ndarray, t0: int | None = None) -> LagStatistics:
    """The statistics of Fig. S2 for norms a of shape (B, T): with respect to the step t0 (default: the
    first step at which a varies across samples), numpy covariance, Pearson r and its p-value (t-test, B - 2 dof)."""
    a = np.asarray(a, dtype=float)
    t0 = first_varying_step(a) if t0 is None else t0
    A = a[:, t0:]
    B = A.shape[0]
    C = A - A.mean(0)
    cov = (C * C[:, :1]).sum(0) / (B - 1)
    sd = C.std(0, ddof=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        r = np.where(sd > 0, cov / (sd * sd[0]), 0.0)
    r = np.clip(r, -1.0, 1.0)
    with np.errstate(divide="ignore"):
        tstat = r * np.sqrt((B - 2) / np.maximum(1 - r * r, 1e-300))
    p = 2 * special.stdtr(B - 2, -np.abs(tstat))
    return LagStatistics(t0, np.arange(A.shape[1]), cov, r, p, sd**2, A.mean(0))


def pairwise_significance(
    a: np.ndarray, t0: int, min_lag: int
) -> tuple[np.ndarray, float, float]:
    """Pearson correlations Corr(a_s, a_t) across samples for all s, t >= t0, and, over the pairs with
    |t - s| >= min_lag, the fraction significant at 5% (two-sided t-test) and the largest |r|.
    Returns (C, fraction, max_abs_r)."""
    A = np.asarray(a, dtype=float)[:, t0:]
    B = A.shape[0]
    C = np.corrcoef(A.T)
    C = np.nan_to_num(C)
    s, t = np.triu_indices(C.shape[0], k=min_lag)
    r = np.clip(C[s, t], -1 + 1e-15, 1 - 1e-15)
    p = 2 * special.stdtr(B - 2, -np.abs(r) * np.sqrt((B - 2) / (1 - r * r)))
    return (
        C,
        float(np.mean(p < 0.05)) if p.size else 0.0,
        float(np.max(np.abs(r))) if r.size else 0.0,
    )


# ---- Fig. S2: the study of the chapter "What the bounds rest on" ---------------------------


@dataclass
class FigS2Study:
    """The transition-derivative norms of both LSTM layers (``norms``: (B, T) each), their
    statistics against the reference step (``stats``), and the pairwise correlations with, over
    the pairs |t - s| >= lag0 steps, the fraction significant and the largest |r|
    (``pairwise``)."""

    X: torch.Tensor
    norms: list[np.ndarray]
    stats: list[LagStatistics]
    pairwise: list[tuple[np.ndarray, float, float]]
    lag0: int  # in time steps (the parameter lag0 times the time repeat)
    spikes: float  # mean number of input spikes per image

    def summary(self) -> dict:
        """Per layer: the fraction of lags >= lag0 with p < 0.05 and the mean |r| there, |r| at
        lag 1, max |cov| / Var a_t0 at those lags, and the pairwise fraction and max |r|."""
        out = {k: [] for k in ("frac_sig", "mean_abs", "lag1", "cov_rel")}
        for st in self.stats:
            far = st.lags >= self.lag0
            out["frac_sig"].append(float(np.mean(st.p[far] < 0.05)))
            out["mean_abs"].append(float(np.mean(np.abs(st.corr[far]))))
            out["lag1"].append(float(abs(st.corr[1])))
            out["cov_rel"].append(float(np.max(np.abs(st.cov[far])) / st.var_a[0]))
        out["pair_frac"] = [p[1] for p in self.pairwise]
        out["pair_max"] = [p[2] for p in self.pairwise]
        return out

    def table(self) -> str:
        s = self.summary()
        head = (
            # no bare '|' inside the math: it would split the table's cells
            "| layer | lags $\\ge$ lag0 with $p<0.05$ (vs $t_0$) | mean $\\lvert r\\rvert$ "
            "there | $\\lvert r\\rvert$ at lag 1 | max $\\lvert\\mathrm{cov}\\rvert$ / Var "
            "$a_{t_0}$ | all pairs $\\lvert t-s\\rvert\\ge$ lag0 with $p<0.05$ | max "
            "$\\lvert r\\rvert$ over them |\n|---|---|---|---|---|---|---|\n"
        )
        return head + "\n".join(
            f"| {j + 1} | {s['frac_sig'][j]:.0%} | {s['mean_abs'][j]:.3f} | "
            f"{s['lag1'][j]:.3f} | {s['cov_rel'][j]:.3f} | {s['pair_frac'][j]:.0%} | "
            f"{s['pair_max'][j]:.2f} |"
            for j in range(len(self.stats))
        )

    def check(self) -> dict:
        """The summary, with ``decays``: in every layer the mean |r| at lags >= lag0 is below
        half its lag-1 value."""
        s = self.summary()
        decays = all(m < 0.5 * l for m, l in zip(s["mean_abs"], s["lag1"]))
        return dict(**s, lag0=self.lag0, spikes=self.spikes, decays=decays)


def fig_s2_study(
    samples: int,
    seed: int,
    width: int,
    time_repeat: int,
    lag0: int,
    g: torch.Generator,
    device: str = "cpu",
) -> FigS2Study:
    """Fig. S2 on the spike-latency digits: a 2-layer LSTM of the given width at the paper's
    initialization, its transition norms and their statistics; ``lag0`` in the data's steps
    (before the time repeat). The weights are drawn on the CPU generator ``g``; the norms are
    computed on ``device``."""
    X = torch.tensor(
        load_sl_digits(samples, seed, time_repeat=time_repeat), device="cpu"
    )
    layers = init_lstm(X.shape[-1], [width, width], g)
    layers = [
        LSTMLayer(ly.W.to(device), ly.U.to(device), ly.b.to(device)) for ly in layers
    ]
    norms = [a.double().cpu().numpy() for a in transition_norms(layers, X.to(device))]
    stats = [lag_statistics(a) for a in norms]
    steps = lag0 * time_repeat
    pairwise = [pairwise_significance(a, st.t0, steps) for a, st in zip(norms, stats)]
    spikes = float(X.sum((1, 2)).mean()) / time_repeat
    return FigS2Study(X, norms, stats, pairwise, steps, spikes)


# ---- Calibration of the decision statistic on surrogates with known covariance -------------


def largest_fraction(check: dict) -> float:
    """The decision statistic of Figs. S2-S3: the largest of the per-layer fractions of
    correlations at lags >= lag0 significant at 5%, taken over both kinds (with respect to t0, and
    over all pairs of steps) and both layers, i.e. ``max(frac_sig + pair_frac)`` of
    :meth:`FigS2Study.check` (four fractions for two layers)."""
    return float(max(list(check["frac_sig"]) + list(check["pair_frac"])))


def surrogate_norms(
    samples: int, steps: int, phi: float, floor: float, rng: np.random.Generator
) -> np.ndarray:
    """(samples, steps) Gaussian sequences, independent across samples, with the known correlation
    Corr(a_s, a_t) = floor + (1 - floor) phi^|t - s| across samples: a stationary AR(1) process
    with coefficient phi (white noise at phi = 0) plus, if floor > 0, a per-sample constant that
    never decorrelates (a covariance that does not decay)."""
    if not (0.0 <= phi < 1.0 and 0.0 <= floor < 1.0):
        raise ValueError(f"phi = {phi}, floor = {floor}: both must lie in [0, 1)")
    e = rng.standard_normal((samples, steps))
    x = np.empty_like(e)
    x[:, 0] = e[:, 0]
    for t in range(1, steps):
        x[:, t] = phi * x[:, t - 1] + np.sqrt(1.0 - phi * phi) * e[:, t]
    z = rng.standard_normal((samples, 1))
    return np.sqrt(floor) * z + np.sqrt(1.0 - floor) * x


def surrogate_statistic(
    samples: int,
    steps: int,
    lag0: int,
    phi: float,
    floor: float,
    rng: np.random.Generator,
    layers: int = 2,
) -> float:
    """The decision statistic (:func:`largest_fraction`) of ``layers`` independent surrogate layers
    of shape (samples, steps), through the same code as the LSTM's norms (t0 = step 0)."""
    norms = [surrogate_norms(samples, steps, phi, floor, rng) for _ in range(layers)]
    stats = [lag_statistics(a, 0) for a in norms]
    pairwise = [pairwise_significance(a, 0, lag0) for a in norms]
    study = FigS2Study(None, norms, stats, pairwise, lag0, 0.0)
    return largest_fraction(study.check())


@dataclass
class Calibration:
    """How the decision statistic behaves on surrogates of known covariance, at the data's sample
    count, number of steps and lag0: per surrogate (name -> (phi, floor)), over ``draws`` draws,
    the crossing rate of ``line`` by one draw (one network), the mean statistic, and the rate at
    which the claim's decision fires, the 95% t interval over ``networks`` draws lying entirely
    above the line (``draws // networks`` independent groups)."""

    samples: int
    steps: int
    lag0: int
    line: float
    draws: int
    networks: int
    surrogates: dict  # name -> (phi, floor)
    rate: dict  # name -> fraction of draws with statistic > line
    mean: dict  # name -> mean statistic
    above: dict  # name -> fraction of groups of `networks` draws whose interval lies above line

    def correlation_at(self, name: str, lag: int) -> float:
        phi, floor = self.surrogates[name]
        return floor + (1.0 - floor) * phi**lag

    def table(self) -> str:
        head = (
            "| surrogate | $\\phi$ | floor | correlation at lag0 | at 2 lag0 | mean "
            "statistic | one draw above the line | interval over "
            f"{self.networks} draws above the line |\n|---|---|---|---|---|---|---|---|\n"
        )
        return head + "\n".join(
            f"| {k} | {p:.3f} | {f:.3f} | {self.correlation_at(k, self.lag0):.3f} | "
            f"{self.correlation_at(k, 2 * self.lag0):.3f} | {self.mean[k]:.3f} | "
            f"{self.rate[k]:.0%} | {self.above[k]:.0%} |"
            for k, (p, f) in self.surrogates.items()
        )


def calibrate(
    surrogates: dict,
    samples: int,
    steps: int,
    lag0: int,
    draws: int,
    seed: int,
    networks: int = 5,
    line: float = 0.1,
    layers: int = 2,
) -> Calibration:
    """The decision statistic on each surrogate (name -> (phi, floor), see
    :func:`surrogate_norms`), ``draws`` independent draws each, seeded from ``seed``: crossing rate
    per draw, mean, and the rate of intervals over ``networks`` draws lying above ``line``."""
    if draws < networks or networks < 2 or steps <= lag0:
        raise ValueError(
            f"draws = {draws}, networks = {networks}, steps = {steps}: need "
            "draws >= networks >= 2 and steps > lag0"
        )
    rate, mean, above = {}, {}, {}
    groups = draws // networks
    for i, (name, (phi, floor)) in enumerate(surrogates.items()):
        rng = np.random.default_rng([seed, i])
        s = np.array(
            [
                surrogate_statistic(samples, steps, lag0, phi, floor, rng, layers)
                for _ in range(draws)
            ]
        )
        rate[name], mean[name] = float(np.mean(s > line)), float(s.mean())
        los = [seed_interval(g).lo for g in s[: groups * networks].reshape(groups, -1)]
        above[name] = float(np.mean(np.asarray(los) > line))
    return Calibration(
        samples, steps, lag0, line, draws, networks, dict(surrogates), rate, mean, above
    )


def single_network_calibration(
    study: FigS2Study, draws: int, seed: int, line: float = 0.1
) -> dict:
    """Fig. S2's 10% line on surrogates of the study's own shape (its samples, its steps after
    t0 and lag0), as Fig. S3's is calibrated, for the one network Fig. S2 shows: how often one
    draw crosses the line for ``decaying``, an AR(1) with the norms' own lag-1 |r| (mean over
    layers; a decaying covariance), and for ``non-decaying``, that AR(1) plus a floor at the
    norms' mean |r| at lags >= lag0 that never decays. The line separates the two where the
    first crosses it rarely and the second nearly always. Returned as the claim's measured
    values."""
    c = study.check()
    phi = min(max(float(np.mean(c["lag1"])), 0.0), 0.999)
    floor = min(max(float(np.mean(c["mean_abs"])), 0.0), 0.999)
    samples = int(study.norms[0].shape[0])
    steps = int(study.norms[0].shape[1] - study.stats[0].t0)
    surrogates = {"decaying": (phi, 0.0), "non-decaying": (phi, floor)}
    cal = calibrate(
        surrogates, samples, steps, study.lag0, draws, seed, networks=2, line=line
    )
    return dict(
        rate_decaying=cal.rate["decaying"],
        rate_nondecaying=cal.rate["non-decaying"],
        phi_data=phi,
        floor_data=floor,
        cal_draws=draws,
        cal_steps=steps,
    )
