"""The mean-field maps against Monte Carlo over random networks (Chen et al. 2018, Sec. 3, Fig. 1).

The simulations of :mod:`~rnnbook.mean_field.vanilla_rnn` and :mod:`~rnnbook.mean_field.minimal_rnn`
return arrays of shape (G settings, K networks, T steps). Here: the mean over the K networks and its
standard error, the elementwise distance of that mean to the theory (Eq. 2 and Eqs. 6-7, Fig. 1a), the
tied-against-untied gap in the ordered and chaotic phases (Fig. 1b) and the late-time cosine similarity
against the fixed point c* (Fig. 1c). The functions return the measured values a chapter passes to its
declared claims; the rules that turn them into verdicts live in the claims files.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

Array = np.ndarray


def mean_se(samples: Array) -> tuple[Array, Array]:
    """Mean over the networks (axis 1 of a (G, K, T) array) and its standard error."""
    se = samples.std(1, ddof=1) / np.sqrt(samples.shape[1])
    return samples.mean(1), se


@dataclass(frozen=True)
class Agreement:
    """Elementwise |Monte Carlo mean - theory| and the standard error of the mean."""

    diff: Array
    se: Array

    @property
    def max_diff(self) -> float:
        return float(self.diff.max())

    def max_z(self, se_floor: float = 0.0) -> float:
        """The largest deviation in standard errors (the SE floored at ``se_floor``)."""
        return float((self.diff / np.maximum(self.se, se_floor)).max())

    @property
    def rows(self) -> list[list[float]]:
        """[diff, se] for every (setting, step): what a declared rule checks one by one."""
        return np.stack([self.diff.ravel(), self.se.ravel()], 1).tolist()


def agreement(samples: Array, theory: Array, relative: bool = False) -> Agreement:
    """The Monte Carlo mean of ``samples`` (G, K, T) against ``theory`` (G, T).

    ``relative=True`` compares mean/theory with 1 (and scales the SE by the theory)."""
    mean, se = mean_se(samples)
    if relative:
        return Agreement(np.abs(mean / theory - 1), se / theory)
    return Agreement(np.abs(mean - theory), se)


def eq2_values(theory: dict, untied: dict, tied: dict) -> dict:
    """Eq. (2) against vanilla RNNs: c^t and q^t of the untied networks, c^t of the tied ones."""
    c = agreement(untied["c"], theory["c"])
    q = agreement(untied["q"], theory["q"], relative=True)
    return {
        "c_rows": c.rows,
        "q_rows": q.rows,
        "max_c_diff": c.max_diff,
        "max_z": c.max_z(),
        "max_q_rel": q.max_diff,
        "max_c_diff_tied": agreement(tied["c"], theory["c"]).max_diff,
    }


def untied_values(theory: dict, untied: dict) -> dict:
    """Fig. 1a: c^t of untied minimalRNNs against the maps (6)-(7); SE floored at 1e-3 for z."""
    a = agreement(untied["c"], theory["c"])
    return {
        "rows": a.rows,
        "max_diff": a.max_diff,
        "max_diff_per_setting": np.round(a.diff.max(1), 4).tolist(),
        "max_z": a.max_z(se_floor=1e-3),
    }


def phase(chi1: Array, margin: float = 0.01) -> Array:
    """'ordered' (chi_1 < 1 - margin), 'chaotic' (chi_1 > 1 + margin) or 'near-critical'."""
    chi1 = np.asarray(chi1)
    return np.where(
        chi1 < 1 - margin,
        "ordered",
        np.where(chi1 > 1 + margin, "chaotic", "near-critical"),
    )


@dataclass(frozen=True)
class TiedGap:
    """Fig. 1b: |c_tied - c_untied| per (setting, step) and the SE of that difference."""

    mu_b: Array
    chi1: Array
    gap: Array
    se: Array
    k_se: float = 4.0
    slack: float = 0.01

    @property
    def beyond_noise(self) -> Array:
        """Per setting: the largest excess of the gap over k_se SE + slack (<= 0: within)."""
        return (self.gap - (self.k_se * self.se + self.slack)).max(1)

    def values(self) -> dict:
        keys = [f"{m:g}" for m in self.mu_b]
        beyond = np.round(np.maximum(self.beyond_noise, 0), 4).tolist()
        return {
            "settings": [
                [float(x), np.stack([g, s], 1).tolist()]
                for x, g, s in zip(self.chi1, self.gap, self.se)
            ],
            "gap": dict(zip(keys, np.round(self.gap.max(1), 4).tolist())),
            "beyond": dict(zip(keys, beyond)),
            "chi_1": np.round(self.chi1, 4).tolist(),
        }

    def table(self) -> str:
        head = (
            "| $\\mu_b$ | $\\chi_1$ | phase | max tied-untied gap in $c^t$ "
            "| max gap beyond 4 SE + 0.01 |\n|---|---|---|---|---|\n"
        )
        rows = zip(self.mu_b, self.chi1, phase(self.chi1), self.gap.max(1))
        return head + "\n".join(
            f"| {m:g} | {x:.4f} | {p} | {g:.3f} | {max(w, 0):.3f} |"
            for (m, x, p, g), w in zip(rows, self.beyond_noise)
        )


def tied_gap(tied: dict, untied: dict, mu_b, chi1) -> TiedGap:
    """Compare the mean c^t of tied and untied networks step by step (Fig. 1b)."""
    c_t, se_t = mean_se(tied["c"])
    c_u, se_u = mean_se(untied["c"])
    se = np.sqrt(se_t**2 + se_u**2)
    return TiedGap(np.asarray(mu_b), np.asarray(chi1), np.abs(c_t - c_u), se)


def late_mean(samples: Array, window: int = 5) -> Array:
    """Per network: the mean of c^t over the last ``window`` steps, shape (G, K)."""
    return samples[:, :, -window:].mean(2)


def converged(tau: Array, T: int, switch: int = 10) -> Array:
    """Settings whose timescale is short against the steps after the inputs switch:
    tau <= (T - switch)/4."""
    return np.asarray(tau) <= (T - switch) / 4


def fixed_point_values(theory_c, untied, tied, cstar, tau, mu_b, switch=10) -> dict:
    """Fig. 1c: the late-time c^t of untied networks against c* where the run has converged.

    ``rows``: [|c_MC - c*|, SE, the theory trajectory's own remaining distance to c*]."""
    T = theory_c.shape[-1]
    conv = converged(tau, T, switch)
    c_u, c_t = late_mean(untied["c"]), late_mean(tied["c"])
    dist = np.abs(c_u.mean(1) - cstar)
    se = c_u.std(1, ddof=1) / np.sqrt(c_u.shape[1])
    resid = np.abs(theory_c[:, -5:].mean(1) - cstar)
    rows = np.stack([dist[conv], se[conv], resid[conv]], 1).tolist()
    return {
        "rows": rows,
        "mu_b": np.asarray(mu_b)[conv].tolist(),
        "cstar": np.round(cstar[conv], 4).tolist(),
        "c_untied": np.round(c_u.mean(1)[conv], 4).tolist(),
        "c_tied": np.round(c_t.mean(1)[conv].astype(float), 4).tolist(),
    }
