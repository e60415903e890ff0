"""Finite widths against the limit (Chizat et al., Eq. 2.16, Fig. 2.1, Fig. 2.3B, Theorem 2.2).

Batches of μP networks (:mod:`~rnnbook.infinite_width.deep_linear`) trained next to the limit
model: the layers' tangent kernels at initialization (each tends to I_d), the predictor paths of
Fig. 2.1A and their largest distance to the limit path, and the sweep over widths of Fig. 2.1B
(the error ‖λ^m(k) − λ^∞(k)‖ at k = 0 and at the last step, whose rate in m is the m^(-1/2) of
(2.16), and the second moments of the weights of Theorem 2.2). A network of width m is drawn
with the seed ``seed + m``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from rnnbook.plotting import progress
from rnnbook.stats import PowerLaw

from . import deep_linear
from .regression import Regression
from .weight_law import moment_errors


def layer_kernel_distances(
    widths: list[int], d: int, reps: int, seed: int
) -> np.ndarray:
    """‖K_l − I_d‖_2 for l = U, W, V at initialization, averaged over ``reps`` draws; one row per
    width."""
    rows = []
    eye = torch.eye(d, dtype=torch.float64)
    for m in widths:
        net = deep_linear.init_mup(m, d, reps, seed=seed + m, keep_init=False)
        Ks = deep_linear.layer_kernels(net)
        rows.append(
            [float(torch.linalg.matrix_norm(K - eye, ord=2).mean()) for K in Ks]
        )
    return np.array(rows)


def kernel_table(widths: list[int], dist: np.ndarray) -> str:
    rows = [
        "| width $m$ | $\\|K_U - I_d\\|_2$ | $\\|K_W - I_d\\|_2$ | $\\|K_V - I_d\\|_2$ |",
        "|---|---|---|---|",
    ]
    rows += [
        f"| {m} | {r[0]:.3f} | {r[1]:.3f} | {r[2]:.3f} |" for m, r in zip(widths, dist)
    ]
    return "\n".join(rows)


def predictor_paths(
    data: Regression,
    tau: float,
    steps: int,
    widths: list[int],
    reps: int,
    seed: int,
    device: str = "cpu",
) -> dict[int, deep_linear.Trajectory]:
    """Fig. 2.1A: ``reps`` networks per width, recorded at every step."""
    runs = {}
    for m in progress(widths, desc="Fig. 2.1A widths"):
        net = deep_linear.init_mup(
            m, data.d, reps, seed=seed + m, keep_init=False, device=device
        )
        runs[m] = deep_linear.train(net, data, tau, steps, every=1)
    return runs


def sup_distance(
    runs: dict[int, deep_linear.Trajectory], lim_lam: np.ndarray
) -> dict[int, float]:
    """max_k ‖λ^m(k) − λ^∞(k)‖, averaged over the networks of each width."""
    return {
        m: float(np.linalg.norm(r.lam - lim_lam[:, None, :], axis=-1).max(0).mean())
        for m, r in runs.items()
    }


def path_values(
    sup: dict[int, float], lim_end: np.ndarray, lam_hat: np.ndarray
) -> dict:
    """The measured values of Fig. 2.1A: consecutive ``pairs`` of distances in the order of the
    widths, and the distance of the limit's end to X⁺y with ‖X⁺y‖."""
    d = list(sup.values())
    return {
        "pairs": [[a, b] for a, b in zip(d, d[1:])],
        "distances": {str(m): round(v, 4) for m, v in sup.items()},
        "final": float(np.linalg.norm(lim_end - lam_hat)),
        "norm": float(np.linalg.norm(lam_hat)),
    }


@dataclass
class Sweep:
    """Errors (len(widths), reps) at k = 0 and at the last step; with ``moments``, the relative
    errors of the weights' second moments (:func:`~.weight_law.moment_errors`) and the pooled
    entries of V~ at the largest width."""

    widths: list[int]
    err0: np.ndarray
    errK: np.ndarray
    law: dict[str, np.ndarray] | None = None
    v_pool: np.ndarray | None = None


def sweep(
    data: Regression,
    lim_lam: np.ndarray,
    tau: float,
    steps: int,
    widths: list[int],
    reps: int,
    seed: int,
    dist: str = "gaussian",
    moments: dict | None = None,
    device: str = "cpu",
    desc: str = "Fig. 2.1B widths",
) -> Sweep:
    """Train ``reps`` networks per width for ``steps`` steps against the limit path ``lim_lam``."""
    shape = (len(widths), reps)
    out = Sweep(list(widths), np.zeros(shape), np.zeros(shape))
    if moments is not None:
        out.law = {key: np.zeros(shape) for key in ("U", "W", "V", "Wchange")}
    for a, m in enumerate(progress(widths, desc=desc)):
        net = deep_linear.init_mup(
            m,
            data.d,
            reps,
            seed=seed + m,
            dist=dist,
            keep_init=moments is not None,
            device=device,
        )
        tr = deep_linear.train(net, data, tau, steps, every=steps)
        out.err0[a] = np.linalg.norm(tr.lam[0] - lim_lam[0], axis=-1)
        out.errK[a] = np.linalg.norm(tr.lam[-1] - lim_lam[-1], axis=-1)
        if moments is not None:
            for key, v in moment_errors(net, moments).items():
                out.law[key][a] = v
            if m == widths[-1]:
                out.v_pool = (m * net.V).cpu().numpy().ravel()
        del net
    return out


def fit_values(fit: PowerLaw, digits: int = 5) -> dict:
    """The measured values of a rate: the exponent ``slope``, its 95% interval and the means
    (rounded for display)."""
    return {
        "slope": fit.slope,
        "ci95": [round(v, 3) for v in fit.ci95],
        "means": [round(float(v), digits) for v in fit.means],
    }
