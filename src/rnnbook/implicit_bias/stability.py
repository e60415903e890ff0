"""Sec. 2 of Emami et al.: the linear RNN (1) is stable iff the spectral radius of W / sqrt(n) is below 1.

The paper states, citing Bai & Yin (1986), that for W_ij ~ N(0, nu_W) i.i.d.,
lim_{n -> oo} lambda_max(W) / sqrt(n) = nu_W almost surely. The circular law puts the eigenvalues of
W / sqrt(n) uniformly in the disc of radius sqrt(nu_W) (the entries' standard deviation), and the
spectral radius converges to that radius (Geman 1986; Bai & Yin 1986). This module measures it.

No device path: numpy on the CPU, one matrix at a time; the general (non-symmetric) eigenvalue
problem gains little on a GPU (torch's CUDA ``eigvals`` synchronizes with the host).
"""

from __future__ import annotations

import numpy as np
import torch

from . import linear_rnn


def scaled_spectral_radius(W: np.ndarray | torch.Tensor) -> float:
    """max |eigenvalue of W / sqrt(n)|."""
    W = np.asarray(W, dtype=float)
    return float(np.abs(np.linalg.eigvals(W)).max() / np.sqrt(W.shape[0]))


def spectral_radii(
    widths: list[int], nu_Ws: list[float], seeds: int, seed: int
) -> np.ndarray:
    """Spectral radii of W / sqrt(n) for W drawn from (4): array (len(nu_Ws), len(widths), seeds).

    Each (nu_W, n, s) is an independent draw of init (4) from the seed ``seed + 100003 s + 1009 n + k``.
    """
    out = np.zeros((len(nu_Ws), len(widths), seeds))
    for k, nu in enumerate(nu_Ws):
        for a, n in enumerate(widths):
            for s in range(seeds):
                W = linear_rnn.init_params(
                    n, 1, 1, nu, 1.0, 1.0, seed=seed + 100003 * s + 1009 * n + k
                )["W"]
                out[k, a, s] = scaled_spectral_radius(W.numpy())
    return out


def limit_summary(
    radii: np.ndarray,
    nu_Ws: list[float],
    widths: list[int],
    close: float = 0.10,
    far: float = 0.30,
) -> dict:
    """Which limit does the mean radius at the largest width support: the paper's nu_W or sqrt(nu_W)?

    ``radii`` is the output of :func:`spectral_radii`. A candidate is *confirmed* when the radius is
    within ``close`` (relative) of it at every nu_W (for the paper's nu_W: at every nu_W away from 1,
    where the two candidates coincide); the paper's limit is *refuted* when the radius is more than
    ``far`` from nu_W at every variance where the candidates differ by more than ``far``, and closer
    to sqrt(nu_W) than to nu_W at every variance.
    """
    nus = np.array(nu_Ws)
    r_big = radii[:, -1, :].mean(1)
    rel_sqrt = np.abs(r_big / np.sqrt(nus) - 1)
    rel_paper = np.abs(r_big / nus - 1)
    not_one = np.abs(nus - 1) > 0.15
    disc = np.abs(1 / np.sqrt(nus) - 1) > far  # where the candidates differ by > far
    closer_to_sqrt = bool(np.all(np.abs(r_big - np.sqrt(nus)) < np.abs(r_big - nus)))
    refuted = bool(np.any(disc) and np.all(rel_paper[disc] > far) and closer_to_sqrt)
    return {
        "nu_W": list(nu_Ws),
        "n": int(widths[-1]),
        "mean_radius": [round(float(r), 4) for r in r_big],
        "sqrt_nu_W": [round(float(np.sqrt(v)), 4) for v in nus],
        "max_rel_dist_sqrt": round(float(rel_sqrt.max()), 4),
        "min_rel_dist_paper": round(float(rel_paper[not_one].min()), 4),
        "min_rel_dist_paper_where_distinct": (
            float(rel_paper[disc].min()) if disc.any() else float("nan")
        ),
        "limit_is_paper": bool(np.all(rel_paper[not_one] <= close)),
        "paper_refuted": refuted,
        "sqrt_limit": "confirmed" if np.all(rel_sqrt <= close) else "not confirmed",
    }


def stable_fractions(radii: np.ndarray, nu_Ws: list[float], widths: list[int]) -> dict:
    """The fraction of draws with spectral radius of W / sqrt(n) below 1, per nu_W, at the largest
    width (``radii`` from :func:`spectral_radii`)."""
    stable = radii[:, -1, :] < 1
    return {
        "n": int(widths[-1]),
        "fraction_stable": {
            str(v): float(stable[k].mean()) for k, v in enumerate(nu_Ws)
        },
        "stable_by_nu": [[v, float(stable[k].mean())] for k, v in enumerate(nu_Ws)],
        "draws": int(radii.shape[2]),
    }
