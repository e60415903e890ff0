"""The measured values the synthesis chapter passes to its ledger: seed intervals of the diagnostics
against their predictions (:func:`rnnbook.stats.seed_interval`), reduced to a few numbers per claim."""

from __future__ import annotations

import numpy as np

from rnnbook.stats import seed_interval

from .linear_diagnostics import LinearSweep, rho_ratio_at
from .nonlinear_diagnostics import NonlinearSweep


def max_rel(values: np.ndarray, prediction) -> float:
    """max over the sweep of |mean over seeds - prediction| / prediction (values: (..., seeds))."""
    mean = np.asarray(values, float).mean(-1)
    pred = np.asarray(prediction, float)
    return float(np.max(np.abs(mean - pred) / pred))


def coverage(values: np.ndarray, prediction) -> float:
    """Fraction of sweep cells whose 95% seed interval contains the prediction."""
    _, lo, hi = seed_interval(values)
    pred = np.broadcast_to(np.asarray(prediction, float), lo.shape)
    return float(np.mean((lo <= pred) & (pred <= hi)))


def linear(sw: LinearSweep, nu_F: float = 1.0, nu_C: float = 1.0) -> dict:
    """Per diagnostic: the largest relative deviation of the seed mean from its wide-limit prediction
    at the smallest and the largest width, and the 95% coverage of nu_W by chi_1 at every width."""
    nu = np.asarray(sw.nu_Ws)[:, None]
    rho_pred = rho_ratio_at(sw.T - 2, sw.nu_Ws, nu_F, nu_C)[:, None]
    preds = {"radius2": nu, "chi1": nu, "rho_ratio": rho_pred, "grad_decay": nu}
    out = {
        "n_small": sw.widths[0],
        "n_large": sw.widths[-1],
        "n_seeds": sw.values["chi1"].shape[-1],
        "T": sw.T,
    }
    for q, p in preds.items():
        v = sw.values[q]
        out[f"{q}_dev_small"] = max_rel(v[:, 0], p[:, 0])
        out[f"{q}_dev_large"] = max_rel(v[:, -1], p[:, 0])
    out["chi1_coverage"] = coverage(sw.values["chi1"], nu)
    out["rho_limit_gap"] = float(np.max(np.abs(rho_pred[:, 0] / nu[:, 0] - 1)))
    return out


def nonlinear(sw: NonlinearSweep) -> dict:
    """Largest relative deviation of the measured gradient and memory decay from mean-field chi_1, from
    the linear prediction nu_W, and from the measured LSC radius^2."""
    g, m = sw.values["grad_decay"], sw.values["memory_decay"]
    r2 = sw.values["radius2"].mean(-1)
    return {
        "n": sw.n,
        "n_seeds": g.shape[-1],
        "grad_vs_chi1": max_rel(g, sw.chi1_theory),
        "memory_vs_chi1": max_rel(m, sw.chi1_theory),
        "grad_vs_nuW": max_rel(g, sw.nu_Ws),
        "grad_vs_radius2": max_rel(g, r2),
        "chi1_measured_vs_theory": max_rel(sw.values["chi1"], sw.chi1_theory),
    }
