"""Sec. 2 of Emami et al.: the linear RNN (1) is stable iff the spectral radius of W / sqrt(n) is below 1.

The paper states, citing Bai & Yin (1986), that for W_ij ~ N(0, nu_W) i.i.d.,
lim_{n -> oo} lambda_max(W) / sqrt(n) = nu_W almost surely. The circular law puts the eigenvalues of
W / sqrt(n) uniformly in the disc of radius sqrt(nu_W) (the entries' standard deviation), and the
spectral radius converges to that radius (Geman 1986; Bai & Yin 1986). This module measures it.
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
