"""The convolutional models of Emami et al., *Implicit Bias of Linear RNNs*, Sec. 2, and the two
directions of their Proposition 2.1.

* Eq. (5), the (unscaled) linear 1D convolution   y_t = sum_{j<=t} L_j x_{t-j};
* Eqs. (6)-(8), the *scaled* convolution           y_t = sum_{j<=t} sqrt(rho_j) theta_j x_{t-j};
* Eq. (58), the scaled model that starts from the same impulse response as a given RNN;
* Proposition 2.1(b) / App. B.1: an RNN with n = T n_x n_y states realising any filters L_0..L_{T-1}
  (diagonal W with distinct eigenvalues, so the output weights solve a Vandermonde system), and, for
  comparison, the delay-line (shift-register) realisation with n = T n_x states.

Sequences have shape ``(..., T, n_x)``; filters ``L`` have shape ``(T, n_y, n_x)``. Every function
runs on the device of its inputs; the realisation checks (:func:`impulse_response_check`,
:func:`realization_errors`, a few small networks) draw and run on the CPU.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch
from torch import Tensor

from . import linear_rnn
from .linear_rnn import Params


def lagged(x: Tensor, lags: int | None = None) -> Tensor:
    """The lag tensor Z[..., t, j, :] = x_{t-j} (zero for j > t), shape ``(..., T, lags, n_x)``.

    It is the block Toeplitz matrix of Eq. (18), transposed and laid out per time step, so that every
    convolutional model below is one ``einsum`` over all times at once.
    """
    T = x.shape[-2]
    lags = T if lags is None else lags
    Z = x.new_zeros(*x.shape[:-2], T, lags, x.shape[-1])
    for j in range(min(lags, T)):
        Z[..., j:, j, :] = x[..., : T - j, :]
    return Z


def conv_forward(L: Tensor, x: Tensor) -> Tensor:
    """Eq. (5): y_t = sum_{j=0}^{t} L_j x_{t-j}; ``L`` of shape (..., T, n_y, n_x), ``x`` of shape (N, T, n_x).

    Returns ``(..., N, T, n_y)``; leading axes of ``L`` (several filters at once) broadcast.
    """
    Z = lagged(x, L.shape[-3])
    return torch.einsum("...jab,ntjb->...nta", L, Z)


def scaled_impulse(theta: Tensor, rho: Tensor) -> Tensor:
    """Eq. (7): L_j = sqrt(rho_j) theta_j; ``rho`` (..., T) may carry batch axes (one per arm)."""
    rho = torch.as_tensor(rho, dtype=theta.dtype, device=theta.device)
    return theta * rho.sqrt()[..., None, None]


def scaled_conv_forward(theta: Tensor, x: Tensor, rho: Tensor) -> Tensor:
    """Eq. (8): f_conv(x, theta) = { sum_{j<=t} sqrt(rho_j) theta_j x_{t-j} }_t."""
    return conv_forward(scaled_impulse(theta, rho), x)


def theta_from_impulse(L: Tensor, rho: Tensor) -> Tensor:
    """Eq. (58): theta_j = L_j / sqrt(rho_j), the scaled model with the same impulse response as ``L``."""
    rho = torch.as_tensor(rho, dtype=L.dtype, device=L.device)
    return L / rho.sqrt()[..., None, None]


# --- Proposition 2.1(a) ---


def impulse_response_check(
    widths: list[int],
    n_x: int,
    n_y: int,
    T: int,
    nu_W: float,
    nu_F: float,
    nu_C: float,
    seed: int,
    g: torch.Generator,
    inputs: int = 5,
) -> dict:
    """Proposition 2.1(a): the largest relative difference between the output of the RNN (1) and of
    the convolution (5) with its impulse response (9), over RNNs of the given widths drawn from (4)
    (seed ``seed + n``) and ``inputs`` Gaussian sequences each (drawn from ``g``). Returns it as
    ``max_diff`` with the set-up."""
    errs = []
    for n in widths:
        p = linear_rnn.init_params(n, n_x, n_y, nu_W, nu_F, nu_C, seed=seed + n)
        x = torch.randn(inputs, T, n_x, generator=g, dtype=torch.float64)
        y_rnn = linear_rnn.forward(p, x)
        y_conv = conv_forward(linear_rnn.impulse_response(p, T), x)
        errs.append(float(torch.linalg.norm(y_rnn - y_conv) / torch.linalg.norm(y_rnn)))
    setup = dict(widths=list(widths), T=T, n_x=n_x, n_y=n_y, inputs=inputs)
    return {"max_diff": max(errs), **setup}


# --- Proposition 2.1(b) -------------------------------------------------------------------------


def vandermonde_nodes(T: int, radius: float = 0.9) -> np.ndarray:
    """T distinct non-zero real eigenvalues for App. B.1: Chebyshev points of [-radius, radius] (none is 0
    when T is even; for odd T the middle node is moved to radius / (2T))."""
    if T < 1:
        raise ValueError(f"T = {T!r}: must be a positive integer")
    k = np.arange(T)
    lam = radius * np.cos((2 * k + 1) * np.pi / (2 * T))
    lam[np.abs(lam) < 1e-12] = radius / (2 * T)
    return lam


def vandermonde_realization(L: Tensor, lambdas: np.ndarray | None = None) -> Params:
    """App. B.1: RNN parameters (W, F, C) of Eq. (1) whose impulse response (9) is ``L`` at lags 0..T-1.

    One SISO system per input-output pair (a, b): W = diag(lambda_0..lambda_{T-1}), F = 1_T, and output
    weights c solving the Vandermonde system c V = [L_0[a,b], ..., L_{T-1}[a,b]] with V_kt = lambda_k^t
    (Eq. 35). The n_x n_y systems are stacked block-diagonally: n = T n_x n_y states. The 1/sqrt(n)
    factors of Eq. (1) are undone by scaling W and C by sqrt(n).
    """
    T, n_y, n_x = L.shape
    lam = vandermonde_nodes(T) if lambdas is None else np.asarray(lambdas, dtype=float)
    if lam.shape != (T,) or len(np.unique(lam)) != T or np.any(lam == 0):
        raise ValueError("lambdas: need T distinct non-zero real numbers")
    n = T * n_x * n_y
    V = np.vander(lam, T, increasing=True)  # V[k, t] = lam_k^t
    Lnp = L.detach().cpu().numpy().astype(float)
    W = np.zeros((n, n))
    F = np.zeros((n, n_x))
    C = np.zeros((n_y, n))
    for a in range(n_y):
        for b in range(n_x):
            blk = slice((a * n_x + b) * T, (a * n_x + b + 1) * T)
            W[blk, blk] = np.diag(lam)
            F[blk, b] = 1.0
            C[a, blk] = np.linalg.solve(V.T, Lnp[:, a, b])  # c V = L  <=>  V^T c = L
    s = np.sqrt(n)
    return {
        k: torch.tensor(v, dtype=L.dtype)
        for k, v in (("W", s * W), ("F", F), ("C", s * C))
    }


def vandermonde_condition(T: int, lambdas: np.ndarray | None = None) -> float:
    """The 2-norm condition number of the Vandermonde matrix of App. B.1 (it sets the round-off error)."""
    lam = vandermonde_nodes(T) if lambdas is None else lambdas
    return float(np.linalg.cond(np.vander(lam, T, increasing=True)))


def delay_line_realization(L: Tensor) -> Params:
    """A well-conditioned alternative with n = T n_x states: h_t = (x_t, x_{t-1}, ..., x_{t-T+1}).

    W shifts the stored inputs down by one slot (nilpotent), F writes x_t into the first slot, and
    C = [L_0, ..., L_{T-1}] reads the filter off directly; no linear system is solved.
    """
    T, n_y, n_x = L.shape
    n = T * n_x
    W = torch.zeros(n, n, dtype=L.dtype)
    W[n_x:, :-n_x] = torch.eye(n - n_x, dtype=L.dtype)
    F = torch.zeros(n, n_x, dtype=L.dtype)
    F[:n_x] = torch.eye(n_x, dtype=L.dtype)
    C = L.permute(1, 0, 2).reshape(n_y, n)
    s = n**0.5
    return {"W": s * W, "F": F, "C": s * C}


@dataclass
class Realizations:
    """Relative output errors (float64) of the two realisations of random filters, per length T."""

    Ts: list[int]
    vandermonde: np.ndarray
    delay_line: np.ndarray
    cond: np.ndarray  # condition number of the Vandermonde matrix

    def summary(self, short: int = 10, accurate: float = 1e-8) -> dict:
        Ts = np.array(self.Ts)
        ok = self.vandermonde < accurate
        return {
            "T": list(self.Ts),
            "vandermonde_rel_error": [float(f"{e:.3g}") for e in self.vandermonde],
            "vandermonde_cond": [float(f"{c:.3g}") for c in self.cond],
            "vandermonde_max_short": float(self.vandermonde[Ts <= short].max()),
            "delay_line_max": float(self.delay_line.max()),
            "T_ok": int(Ts[np.max(np.nonzero(ok)[0])]) if ok.any() else 0,
            "err_T_max": float(self.vandermonde[-1]),
            "T_max": int(Ts[-1]),
        }


def realization_errors(
    Ts: list[int], n_x: int, n_y: int, g: torch.Generator
) -> Realizations:
    """Proposition 2.1(b): realise random filters L (drawn from ``g``) of each length T by
    :func:`vandermonde_realization` (n = T n_x n_y) and :func:`delay_line_realization` (n = T n_x),
    and compare the RNNs' outputs on 4 random sequences with the convolution (5)."""
    err_v, err_d, cond = [], [], []
    for T_ in Ts:
        L = torch.randn(T_, n_y, n_x, generator=g, dtype=torch.float64)
        x = torch.randn(4, T_, n_x, generator=g, dtype=torch.float64)
        y = conv_forward(L, x)
        for realize, errs in (
            (vandermonde_realization, err_v),
            (delay_line_realization, err_d),
        ):
            y_rnn = linear_rnn.forward(realize(L), x)
            errs.append(float(torch.linalg.norm(y_rnn - y) / torch.linalg.norm(y)))
        cond.append(vandermonde_condition(T_))
    return Realizations(list(Ts), np.array(err_v), np.array(err_d), np.array(cond))
