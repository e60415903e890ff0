"""The timescale tau measured from trajectories (Chen et al. 2018, Eq. 4 and Fig. 1d).

Near a fixed point |c^t - c*| ~ A exp(-t/tau) with tau = -1/log chi_{c*}. We fit tau as minus the
inverse slope of log|c^t - c*| against t (least squares) on a window of steps, for the Monte Carlo mean
over networks, with a bootstrap standard error from resampling the networks.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from .theory import HP, timescale, vanilla_chi, vanilla_qstar

Array = np.ndarray


def decay_time(t: Array, y: Array) -> float:
    """-1/slope of log y against t: the e-folding time of y ~ A exp(-t/tau)."""
    return -1.0 / np.polyfit(t, np.log(y), 1)[0]


def bootstrap_se(
    fit: Callable[[Array], float],
    samples: Array,
    rng: np.random.Generator,
    n_boot: int = 200,
) -> float:
    """Standard error of ``fit`` (of the mean over networks, axis 0 of ``samples``) by resampling
    the networks with replacement."""
    K = samples.shape[0]
    boots = [fit(samples[rng.integers(0, K, K)].mean(0)) for _ in range(n_boot)]
    return float(np.std(boots))


def decay_to_zero(
    c_theory: Array,
    samples: Array,
    rng: np.random.Generator,
    above: float = 0.05,
    n_boot: int = 200,
) -> tuple[Array, Array]:
    """tau fitted to the Monte Carlo mean of c^t -> c* = 0 (vanilla RNN, independent inputs).

    Per setting g: steps where the theory has c^t > ``above``; c^t clipped at 1e-6 before the log.
    ``c_theory`` (G, T), ``samples`` (G, K, T). Returns (tau, bootstrap SE), each of shape (G,)."""
    ts = np.arange(1, c_theory.shape[-1] + 1)
    mean = samples.mean(1)
    taus, ses = [], []
    for g in range(len(c_theory)):
        mask = c_theory[g] > above

        def fit(cc, mask=mask):
            return decay_time(ts[mask], np.clip(cc[mask], 1e-6, None))

        taus.append(fit(mean[g]))
        ses.append(bootstrap_se(fit, samples[g], rng, n_boot))
    return np.array(taus), np.array(ses)


def vanilla_decay(
    hp: HP, c_theory: Array, samples: Array, rng: np.random.Generator
) -> tuple[dict, str]:
    """tau of Eq. (4) at c* = 0 against tau fitted to untied vanilla RNNs with independent inputs
    (:func:`decay_to_zero`). Returns the measured values of the claim and a Markdown table."""
    q, chi = vanilla_qstar(hp), vanilla_chi(0.0, hp)
    tau = timescale(chi)
    fit, se = decay_to_zero(c_theory, samples, rng)
    table = (
        "| $\\sigma_w$ | $q^*$ | $\\chi_{c^*}$ (4) | $\\tau$ | $\\tau$ fitted to MC "
        "(± bootstrap SE) |\n|---|---|---|---|---|\n"
    ) + "\n".join(
        f"| {sw} | {q[k]:.3f} | {chi[k]:.4f} | {tau[k]:.3f} | {fit[k]:.3f} ± {se[k]:.3f} |"
        for k, sw in enumerate(np.atleast_1d(hp.sigma_w))
    )
    values = {
        "tau_rows": np.stack([fit, tau, se], 1).tolist(),
        "tau_eq4": np.round(tau, 3).tolist(),
        "tau_fit": np.round(fit, 3).tolist(),
        "tau_se": np.round(se, 3).tolist(),
    }
    return values, table


@dataclass(frozen=True)
class WindowFit:
    """tau fitted on a window of steps where |c^t - c*| decays exponentially (Fig. 1d)."""

    index: int  # the setting
    window: Array  # boolean mask over the steps t = 1..T
    tau: float  # tau of Eq. (9)
    tau_map: float  # fitted to the iterated map on the window
    tau_mc: float  # fitted to the Monte Carlo mean
    se: float  # bootstrap SE of tau_mc
    amplitude: float  # A of A exp(-t/tau), from the theory on the window


def linear_window_fits(
    c_theory: Array,
    samples: Array,
    cstar: Array,
    tau: Array,
    rng: np.random.Generator,
    start: int = 10,
    band: tuple[float, float] = (0.005, 0.15),
    min_steps: int = 6,
    linear_rel: float = 0.15,
    n_boot: int = 200,
) -> list[WindowFit]:
    """Fit tau where the linearisation applies: steps t >= ``start`` with |c^t - c*| in ``band`` on the
    theory trajectory (at least ``min_steps``), and only where the iterated map's own decay on those
    steps is within ``linear_rel`` of tau (near-critical settings approach c* algebraically)."""
    ts = np.arange(1, c_theory.shape[-1] + 1)
    mean = samples.mean(1)
    out = []
    for g in range(len(c_theory)):
        dist = np.abs(c_theory[g] - cstar[g])
        win = (ts >= start) & (dist > band[0]) & (dist < band[1])
        if win.sum() < min_steps or not np.isfinite(tau[g]):
            continue

        def fit(cc, win=win, g=g):
            return decay_time(ts[win], np.abs(cc[win] - cstar[g]) + 1e-12)

        tau_map = fit(c_theory[g])
        if abs(tau_map - tau[g]) > linear_rel * tau[g]:
            continue
        tau_mc = fit(mean[g])
        se = bootstrap_se(fit, samples[g], rng, n_boot)
        A = np.exp(np.mean(np.log(dist[win]) + ts[win] / tau[g]))
        out.append(
            WindowFit(g, win, float(tau[g]), float(tau_map), float(tau_mc), se, A)
        )
    return out


def window_values(fits: list[WindowFit], mu_b) -> dict:
    """The measured values of the Fig. 1d claim: per fit [tau, tau_MC, SE] and a rounded display."""
    return {
        "fits": [[f.tau, f.tau_mc, f.se] for f in fits],
        "shown": {
            f"{mu_b[f.index]:g}": [
                round(x, 3) for x in (f.tau, f.tau_mc, f.se, f.tau_map)
            ]
            for f in fits
        },
        "n_fit": len(fits),
    }


def window_table(fits: list[WindowFit], mu_b, cstar) -> str:
    head = (
        "| $\\mu_b$ | $c^*$ | $\\tau$ of Eq. (9) | $\\tau$ fitted to the iterated map "
        "| $\\tau$ fitted to untied MC (± bootstrap SE) |\n|---|---|---|---|---|\n"
    )
    return head + "\n".join(
        f"| {mu_b[f.index]:g} | {cstar[f.index]:.3f} | {f.tau:.2f} | {f.tau_map:.2f} "
        f"| {f.tau_mc:.2f} ± {f.se:.2f} |"
        for f in fits
    )
