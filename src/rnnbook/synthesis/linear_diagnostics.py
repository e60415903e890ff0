"""The four diagnostics of the linear RNN h_t = W h_{t-1}/sqrt(n) + F x_t, measured on finite networks.

For each width n, nu_W of a sweep and seed, one draw W ~ N(0, nu_W) (and F, C of Eq. 4 of Emami et al.,
n_x = n_y = 1) gives, with J = W/sqrt(n):

* ``radius2``: r(J)^2, the squared spectral radius of the transition derivative (LSC);
* ``chi1``: ||J||_F^2/n, the mean squared singular value of one Jacobian step (mean field's chi_1);
* ``rho_ratio``: Theta_{j+1}/Theta_j at the last two lags, Theta_j the diagonal of the empirical NTK for an
  impulse input (whose limit is rho_j, Theorem 3.3(b)), from :func:`ntk_impulse_diagonal`;
* ``grad_decay``: (g_T/g_1)^(1/(T-1)) with g_k = ||J^k||_F^2/n = ||dh_T/dh_{T-k}||_F^2/n, the per-step
  decay of the gradient norm (g_k estimated with Gaussian probes, :func:`frobenius_powers`).

Everything is batched over (nu_W, seed): one tensor of shape (len(nu_Ws) * seeds, n, n) per width,
drawn on a CPU generator and moved to the sweep's ``device``, where the products run.
"""

from __future__ import annotations

from dataclasses import dataclass

from functools import lru_cache

import numpy as np
import sympy as sp
import torch

from rnnbook.implicit_bias import linear_rnn

QUANTITIES = ("radius2", "chi1", "rho_ratio", "grad_decay")


def ntk_impulse_diagonal(W: torch.Tensor, F: torch.Tensor, C: torch.Tensor, T: int):
    """Theta_jj, j = 0..T-1, of y_j = C J^j F / sqrt(n) (impulse at t = 0, n_x = n_y = 1), in closed form.

    W (B, n, n), F (B, n, 1), C (B, 1, n). With a_k = (J^T)^k c, b_k = J^k f:
    Theta_jj = (|b_j|^2 + |a_j|^2)/n + (1/n^2) sum_{k,l<j} (a_k.a_l)(b_{j-1-k}.b_{j-1-l}),
    the three terms being the contributions of C, F and W.
    """
    n = W.shape[-1]
    J = W / n**0.5
    a, b = [C.transpose(-1, -2)], [F]
    for _ in range(T - 1):
        a.append(J.transpose(-1, -2) @ a[-1])
        b.append(J @ b[-1])
    A = torch.cat(a, -1)  # (B, n, T)
    Bm = torch.cat(b, -1)
    GA = A.transpose(-1, -2) @ A  # (B, T, T)
    GB = Bm.transpose(-1, -2) @ Bm
    out = [(torch.diagonal(GA, 0, -2, -1) + torch.diagonal(GB, 0, -2, -1)) / n]
    w = torch.zeros_like(out[0])
    for j in range(1, T):
        idx = torch.arange(j - 1, -1, -1, device=W.device)  # b_{j-1-k}
        GBr = GB[:, idx][:, :, idx]
        w[:, j] = (GA[:, :j, :j] * GBr).sum((-1, -2)) / n**2
    return out[0] + w


def frobenius_powers(J: torch.Tensor, T: int, probes: torch.Tensor | None = None):
    """g_k = ||J^k||_F^2 / n for k = 1..T, batched: shape (B, T).

    With ``probes`` V (B, n, p) of i.i.d. N(0, 1) entries, the unbiased estimate ||J^k V||_F^2/(n p)
    (Hutchinson) replaces the exact norm: T matrix-vector products instead of T matrix products.
    """
    n = J.shape[-1]
    P = J if probes is None else J @ probes
    norm = n if probes is None else n * probes.shape[-1]
    out = []
    for _ in range(T):
        out.append((P * P).sum((-1, -2)) / norm)
        P = J @ P
    return torch.stack(out, -1)


def measure(W, F, C, T: int, probes: torch.Tensor | None = None) -> dict:
    """The four diagnostics of B networks (W (B, n, n), F (B, n, 1), C (B, 1, n)), J = W/sqrt(n):
    r(J)^2, ||J||_F^2/n, Theta_{T-1}/Theta_{T-2} and (g_T/g_1)^(1/(T-1)) (g_T and g_1 are T - 1
    factors of J apart). For J = s Q with Q orthogonal the first two and the last equal s^2."""
    n = W.shape[-1]
    J = W / n**0.5
    th = ntk_impulse_diagonal(W, F, C, T)
    g = frobenius_powers(J, T, probes)
    return {
        "radius2": torch.linalg.eigvals(J).abs().amax(-1) ** 2,
        "chi1": (J * J).sum((-1, -2)) / n,
        "rho_ratio": th[:, -1] / th[:, -2],
        "grad_decay": (g[:, -1] / g[:, 0]) ** (1.0 / (T - 1)),
    }


@dataclass
class LinearSweep:
    nu_Ws: list[float]
    widths: list[int]
    T: int
    values: dict[str, np.ndarray]  # each (len(nu_Ws), len(widths), seeds)


def sweep(
    nu_Ws: list[float],
    widths: list[int],
    seeds: int,
    T: int,
    seed: int,
    nu_F: float = 1.0,
    nu_C: float = 1.0,
    probes: int = 16,
    device: str = "cpu",
) -> LinearSweep:
    """The four diagnostics over nu_W x width x seed (independent draws of Eq. 4 per cell), drawn
    on the CPU and measured on ``device``."""
    if T < 3:
        raise ValueError(f"T = {T}: must be >= 3 (two lags and a decay)")
    K, S = len(nu_Ws), seeds
    out = {q: np.zeros((K, len(widths), S)) for q in QUANTITIES}
    scale = torch.tensor(nu_Ws, dtype=torch.float64, device="cpu")
    scale = (scale.repeat_interleave(S) ** 0.5).to(device)
    for a, n in enumerate(widths):
        p = linear_rnn.init_params(
            n, 1, 1, 1.0, nu_F, nu_C, seed + 7919 * n, batch=K * S, device=device
        )
        gen = torch.Generator(device="cpu").manual_seed(seed + 7919 * n + 1)
        W = p["W"] * scale[:, None, None]
        V = torch.randn(K * S, n, probes, generator=gen, dtype=W.dtype, device="cpu")
        vals = measure(W, p["F"], p["C"], T, V.to(device))
        for q in QUANTITIES:
            out[q][:, a, :] = vals[q].reshape(K, S).cpu().numpy()
    return LinearSweep(list(nu_Ws), list(widths), T, out)


@lru_cache(maxsize=None)
def _rho_fn():
    from rnnbook.implicit_bias import scale_factors as sf

    return sp.lambdify((sf.j, sf.nu_W, sf.nu_F, sf.nu_C), sf.derive_rho().rho, "numpy")


def rho_ratio_at(j: int, nu_W, nu_F: float = 1.0, nu_C: float = 1.0) -> np.ndarray:
    """The derived rho_{j+1}/rho_j (infinite width) at lag j, from the implicit-bias room's rho_j."""
    nu = np.atleast_1d(np.asarray(nu_W, float))
    f = _rho_fn()
    return f(j + 1.0, nu, nu_F, nu_C) / f(float(j), nu, nu_F, nu_C)
