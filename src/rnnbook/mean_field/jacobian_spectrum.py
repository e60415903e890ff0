"""The spectrum of J J^T for the end-to-end Jacobian of random RNNs (Chen et al. 2018, Sec. 3.2.2, Eqs. 10-13).

For the minimalRNN the one-step Jacobian is (Eq. 10)

    J_t = dh^t/dh^{t-1} = D_{u^t} + D_{sigma'(e^t) * (h^{t-1} - x~^t)} W_t,

and for the vanilla RNN J_t = D_{tanh'(e^t)} W_t. The end-to-end Jacobian of T steps is J = J_T ... J_1.
:func:`jacobian_moments` samples networks (untied: a fresh W_t, V_t, b_t per step; or tied), runs them at
their fixed point (a burn-in from h^0 with second moment Q*), multiplies the exact Jacobians and records the
first two moments of the spectrum of J J^T after every step,

    m_1(T) = tr(J J^T)/N,   m_2(T) = tr((J J^T)^2)/N,   variance = m_2 - m_1^2.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from . import minimal_rnn
from .theory import HP, minimal_fixed_point, vanilla_qstar


@dataclass(frozen=True)
class SpectrumMoments:
    """Per-network moments after T = 1..T_max steps, arrays of shape (K, T_max)."""

    m1: np.ndarray
    m2: np.ndarray

    @property
    def variance(self) -> np.ndarray:
        return self.m2 - self.m1**2

    @property
    def T(self) -> np.ndarray:
        return np.arange(1, self.m1.shape[1] + 1)


def _scalar(x) -> float:
    x = np.asarray(x, float)
    if x.size != 1:
        raise ValueError("jacobian_moments takes scalar hyperparameters")
    return float(x)


def jacobian_moments(
    model: str,
    hp: HP,
    N: int,
    T: int,
    K: int,
    seed: int,
    orthogonal: bool = False,
    tied: bool = False,
    burn_in: int = 30,
    dtype=torch.float64,
) -> SpectrumMoments:
    """Moments of the spectrum of J J^T over T steps for K sampled networks of width N.

    ``model`` is ``"minimal"`` (inputs x~ ~ N(0, R) per unit, h^0 with second moment Q*) or ``"vanilla"``
    (inputs x ~ N(0, R), e^0 ~ N(mu_b, q*)). W is Gaussian (s_1 = -1) or ``orthogonal`` (s_1 = 0). The network
    runs ``burn_in`` steps before the Jacobian is accumulated, so that the states are at their fixed point.
    """
    if model not in ("minimal", "vanilla"):
        raise ValueError(f"model = {model!r}: must be 'minimal' or 'vanilla'")
    gen = torch.Generator().manual_seed(int(seed))
    sw, sv, mu, R, sb = (
        _scalar(getattr(hp, k)) for k in ("sigma_w", "sigma_v", "mu_b", "R", "sigma_b")
    )
    if model == "minimal":
        h = np.sqrt(float(minimal_fixed_point(hp)[0])) * torch.randn(
            K, 1, N, generator=gen, dtype=dtype
        )
    else:
        h = torch.tanh(
            mu
            + np.sqrt(float(vanilla_qstar(hp)))
            * torch.randn(K, 1, N, generator=gen, dtype=dtype)
        )

    def draw() -> minimal_rnn.Weights:
        W = (
            minimal_rnn.orthogonal_matrix(K, N, sw, gen, dtype)
            if orthogonal
            else minimal_rnn.gaussian_matrix(K, N, N, sw, gen, dtype)
        )
        # untied: a fresh V acts on x like N(0, sigma_v^2 |x|^2/N) per unit, so V is only drawn when tied
        V = minimal_rnn.gaussian_matrix(K, N, N, sv, gen, dtype) if tied else None
        return minimal_rnn.Weights(
            W, V, mu + sb * torch.randn(K, N, generator=gen, dtype=dtype)
        )

    w = draw()
    J = torch.eye(N, dtype=dtype).expand(K, N, N).clone()
    m1, m2 = [], []
    for t in range(burn_in + T):
        if not tied and t >= burn_in:
            w = draw()
        x = np.sqrt(R) * torch.randn(K, 1, N, generator=gen, dtype=dtype)
        vx = (
            torch.bmm(x, w.V.transpose(1, 2))
            if tied
            else sv
            * torch.sqrt((x**2).mean(-1, keepdim=True))
            * torch.randn(K, 1, N, generator=gen, dtype=dtype)
        )
        if tied or t >= burn_in:
            e = torch.bmm(h, w.W.transpose(1, 2)) + vx + w.b.unsqueeze(1)
        else:  # untied burn-in: a fresh W acts on h like N(0, sigma_w^2 |h|^2/N) per unit, no matrix needed
            wh = (
                sw
                * torch.sqrt((h**2).mean(-1, keepdim=True))
                * torch.randn(K, 1, N, generator=gen, dtype=dtype)
            )
            e = wh + vx + mu + sb * torch.randn(K, 1, N, generator=gen, dtype=dtype)
        if model == "minimal":  # Eq. (5)
            u = torch.sigmoid(e)
            h_new = u * h + (1 - u) * x
        else:  # Eq. (1)
            h_new = torch.tanh(e)
        if t >= burn_in:
            if model == "minimal":
                a = (u * (1 - u) * (h - x))[:, 0]  # sigma'(e) (h^{t-1} - x~^t)
                Jt = torch.diag_embed(u[:, 0]) + a.unsqueeze(-1) * w.W  # Eq. (10)
            else:
                Jt = (1 - h_new[:, 0] ** 2).unsqueeze(-1) * w.W  # D_{phi'(e)} W
            J = torch.bmm(Jt, J)
            M = torch.bmm(J, J.transpose(1, 2))
            m1.append(torch.diagonal(M, dim1=1, dim2=2).sum(-1) / N)
            m2.append((M * M).sum((1, 2)) / N)
        h = h_new
    return SpectrumMoments(torch.stack(m1, 1).numpy(), torch.stack(m2, 1).numpy())


def loglinear_slope(T: np.ndarray, y: np.ndarray) -> float:
    """Least-squares slope of log y against T (the per-step growth rate log chi of y ~ A chi^T)."""
    return float(np.polyfit(np.asarray(T, float), np.log(np.asarray(y, float)), 1)[0])
