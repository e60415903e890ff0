"""The kernel-regime equivalence of Emami et al. in training (Sec. 5.1, Figs. 1, 2 and 4; Theorem 4.1):
a wide linear RNN and the scaled convolution (8) with the rho_j of Eq. (21), started from the same impulse
response (Eq. 58) and trained by full-batch GD with the same learning rate, follow the same trajectory.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch
from torch import Tensor

from . import gd_training as gt
from . import linear_rnn
from .scale_factors import (
    PAPER_RHO_MAX,
    T as T_sym,
    nu_C as nu_C_sym,
    nu_F as nu_F_sym,
    rho as rho_factors,
)


@dataclass
class PairRun:
    """An RNN and its scaled-convolution twin trained on the same data (leading batch axes = seeds)."""

    rnn: gt.Trajectory
    conv: gt.Trajectory
    rho: Tensor
    lr: float


def train_pair(
    train: gt.LagStats,
    evals: dict[str, gt.LagStats],
    *,
    n: int,
    nu_W: float,
    nu_F: float,
    nu_C: float,
    lr: float,
    steps: int,
    seed: int,
    batch: int | None = None,
) -> PairRun:
    """Draw the student RNN from (4), start the scaled convolution from its impulse response (Eq. 58), and
    train both with the same learning rate."""
    rho = torch.tensor(rho_factors(train.lags, nu_W, nu_F, nu_C))
    params = linear_rnn.init_params(
        n, train.n_x, train.n_y, nu_W, nu_F, nu_C, seed=seed, batch=batch
    )
    rnn, _ = gt.train_rnn(params, train, lr, steps, evals)
    conv = gt.train_conv(rnn.L[0], rho, train, lr, steps, evals)
    return PairRun(rnn, conv, rho, lr)


def relative_gap(a: Tensor, b: Tensor) -> Tensor:
    """max over steps (axis 0) of |a / b - 1|: how far a loss curve ``a`` strays from the curve ``b``."""
    return (a / b - 1).abs().max(0).values


def loglog_slope(ns: np.ndarray, values: np.ndarray) -> tuple[float, float]:
    """Least-squares slope of log(values) on log(n) over every sample; ``values`` has shape (len(ns), seeds).
    Returns (slope, standard error)."""
    x = np.repeat(np.log(np.asarray(ns, float)), values.shape[1])
    y = np.log(values).ravel()
    A = np.vstack([x, np.ones_like(x)]).T
    coef, *_ = np.linalg.lstsq(A, y, rcond=None)
    dof = max(len(y) - 2, 1)
    s2 = float(np.sum((y - A @ coef) ** 2) / dof)
    return float(coef[0]), float(np.sqrt(s2 * np.linalg.inv(A.T @ A)[0, 0]))


@dataclass
class Theorem41:
    """The constants of the proof of Theorem 4.1 (App. B.4, Eq. 60) for the MSE of this book.

    With MSE(L) = (1/M)||y - A L||^2 the proof's least-squares cost (1/2)||y~ - A~ L||^2 has
    A~ = sqrt(2/M) A, so that B_1 = 1 / (rho_max ||A~||^2) and B_2 = ||A~^T b~|| = ||dMSE/dL at L^0||_F.
    """

    B1: float
    B2: Tensor  # one per network of a batch
    rho_max: float
    proof_matrix_norm: float  # ||I - lr A~^T A~ D||_2, which the proof asserts is <= 1


def theorem41_constants(
    train: gt.LagStats, L0: Tensor, rho: Tensor, nu_F: float, nu_C: float, lr: float
) -> Theorem41:
    rho_max = float(
        PAPER_RHO_MAX.subs({T_sym: train.lags, nu_F_sym: nu_F, nu_C_sym: nu_C})
    )
    AtA = 2.0 * train.R / train.M[..., None, None]
    B1 = 1.0 / (rho_max * float(torch.linalg.eigvalsh(AtA).max()))
    B2 = gt.mse_grad(L0, train).flatten(-3).norm(dim=-1)
    D = torch.repeat_interleave(torch.as_tensor(rho, dtype=AtA.dtype), train.n_x)
    M = torch.eye(len(D), dtype=AtA.dtype) - lr * AtA * D[None, :]
    return Theorem41(B1, B2, rho_max, float(torch.linalg.matrix_norm(M, ord=2)))


def drift_ratio(
    traj: gt.Trajectory, rho: Tensor, lr: float, B2: float | Tensor
) -> Tensor:
    """||L_j^l - L_j^0||_F / (B_2 rho_j lr l) for l >= 1: Eq. (25) holds where this is <= 1.

    ``traj.L`` has shape (steps+1, ..., T, n_y, n_x); returns (steps, ..., T).
    """
    drift = (traj.L - traj.L[0]).flatten(-2).norm(dim=-1)[1:]
    steps = drift.shape[0]
    ell = torch.arange(1, steps + 1, dtype=drift.dtype).reshape(
        steps, *([1] * (drift.dim() - 1))
    )
    B2 = torch.as_tensor(B2, dtype=drift.dtype)
    return drift / (B2[..., None] * rho * lr * ell)
