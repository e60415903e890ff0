"""Where the four theories part: the diagnostics of :mod:`.linear_diagnostics` for a tanh RNN and a gated
cell (the minimalRNN of Chen et al., Eq. 5), driven by i.i.d. Gaussian inputs, measured.

Both cells use the mean-field parametrisation (Chen et al., Sec. 3): W ~ N(0, sigma_w^2/N) with
sigma_w^2 = nu_W (the linear RNN's W/sqrt(n)), V ~ N(0, sigma_v^2/N), b ~ N(mu_b, 0), inputs with
per-unit second moment R. After ``burn`` steps (the state reaches the mean-field fixed point q*) we keep
T + 1 steps of the transition derivatives J_t = dh_t/dh_{t-1} and input derivatives B_t = dh_t/dx_t:

* tanh RNN h_t = tanh(e_t), e_t = W h_{t-1} + V x_t + b: J_t = diag(tanh'(e_t)) W, B_t = diag(tanh'(e_t)) V;
* minimalRNN h_t = u_t h_{t-1} + (1 - u_t) x_t, u_t = sigmoid(e_t):
  J_t = diag(u_t) + diag(sigmoid'(e_t)(h_{t-1} - x_t)) W, B_t = diag(1 - u_t) + diag(sigmoid'(e_t)(h_{t-1} - x_t)) V.

Measured per network: ``radius2`` (mean over three steps of r(J_t)^2, LSC), ``chi1`` (mean over steps of
||J_t||_F^2/N, mean field), ``grad_decay`` (per-step decay of ||dh_T/dh_{T-k}||_F^2/N over k = 1..T) and
``memory_decay`` (per-step decay of ||dh_T/dx_{T-k}||_F^2/N, the squared impulse response of the
linearised network, whose linear counterpart is the C-part tau_{k,1} = nu_F nu_W^k of rho_k).
Theory: chi_1 from :mod:`rnnbook.mean_field.theory` (``vanilla_chi1``, ``minimal_chi1``).
The weights, inputs and probes are drawn on a CPU generator and moved to the sweep's ``device``,
where the networks run and the Jacobians are multiplied.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from rnnbook.mean_field import minimal_rnn, theory

CELLS = ("tanh", "minimal")
QUANTITIES = ("radius2", "chi1", "grad_decay", "memory_decay")


@dataclass
class NonlinearSweep:
    cell: str
    nu_Ws: list[float]
    n: int
    T: int
    values: dict[str, np.ndarray]  # each (len(nu_Ws), seeds)
    chi1_theory: np.ndarray  # (len(nu_Ws),)


def hyper(cell: str, nu_Ws, sigma_v2: float, mu_b: float, R: float) -> theory.HP:
    """The mean-field hyperparameters of the sweep (sigma_w^2 = nu_W)."""
    if cell not in CELLS:
        raise ValueError(f"cell {cell!r}: must be one of {CELLS}")
    nu = np.asarray(nu_Ws, float)
    return theory.HP(sigma_w=np.sqrt(nu), sigma_v=sigma_v2**0.5, mu_b=mu_b, R=R)


def chi1_theory(cell: str, nu_Ws, sigma_v2: float, mu_b: float, R: float) -> np.ndarray:
    """Mean-field chi_1 at the fixed point: Eq. (4)'s slope for tanh, mu_1 + mu_2 (Eq. 13) for minimal."""
    hp = hyper(cell, nu_Ws, sigma_v2, mu_b, R)
    return np.asarray(
        theory.vanilla_chi1(hp) if cell == "tanh" else theory.minimal_chi1(hp), float
    )


def jacobians(cell: str, w: minimal_rnn.Weights, x: torch.Tensor, burn: int, T: int):
    """Run K networks on inputs x (K, burn + T + 1, N); return J_t (K, T+1, N, N) and B_t alike."""
    K, steps, N = x.shape
    h = torch.zeros(K, 1, N, dtype=x.dtype, device=x.device)
    Js, Bs = [], []
    for t in range(steps):
        xt = x[:, t : t + 1]
        if cell == "tanh":
            e = torch.baddbmm(w.b.unsqueeze(1), h, w.W.transpose(1, 2)) + xt @ w.V.mT
            h_new = torch.tanh(e)
            d = (1 - h_new**2)[:, 0]
            J, B = d[..., None] * w.W, d[..., None] * w.V
        else:
            h_new, e, u = minimal_rnn.cell(h, xt, w.W, w.V, w.b)
            a = (u * (1 - u) * (h - xt))[:, 0]
            J = torch.diag_embed(u[:, 0]) + a[..., None] * w.W
            B = torch.diag_embed(1 - u[:, 0]) + a[..., None] * w.V
        if t >= steps - (T + 1):
            Js.append(J)
            Bs.append(B)
        h = h_new
    return torch.stack(Js, 1), torch.stack(Bs, 1)


def backward_norms(J: torch.Tensor, B: torch.Tensor, probes: torch.Tensor):
    """g_k = ||dh_T/dh_{T-k}||_F^2/N and m_k = ||dh_T/dx_{T-k}||_F^2/N, k = 1..T, estimated with
    row probes U (K, p, N) of N(0, 1) entries: ||U A||_F^2 / p is unbiased for ||A||_F^2."""
    K, T1, N, _ = J.shape
    G = probes
    g, m = [], []
    for k in range(1, T1):
        G = G @ J[:, T1 - k]  # U J_T ... J_{T-k+1}
        g.append((G * G).sum((-1, -2)))
        m.append(((G @ B[:, T1 - 1 - k]) ** 2).sum((-1, -2)))
    p = probes.shape[1]
    return torch.stack(g, -1) / (N * p), torch.stack(m, -1) / (N * p)


def measure(J: torch.Tensor, B: torch.Tensor, probes: torch.Tensor) -> dict:
    """The four diagnostics of K networks from their Jacobians J_t, B_t (K, T+1, N, N), t = 0..T.

    ``radius2``: mean of r(J_t)^2 over t = 1, T//2, T; ``chi1``: mean of ||J_t||_F^2/N over
    t = 1..T; ``grad_decay`` (g_T/g_1)^(1/(T-1)) and ``memory_decay`` (m_T/m_1)^(1/(T-1)), with g_k,
    m_k of :func:`backward_norms`: g_T and g_1 are T - 1 Jacobian factors apart, and so are m_T
    (dh_T/dx_0) and m_1 (dh_T/dx_{T-1}). For J_t = s Q_t, Q_t orthogonal, all four equal s^2."""
    K, T1, N, _ = J.shape
    T = T1 - 1
    if T < 2:
        raise ValueError(f"T = {T}: need at least two steps of Jacobians")
    g, m = backward_norms(J, B, probes)
    picks = J[:, [1, T // 2, T]]
    return {
        "radius2": (torch.linalg.eigvals(picks).abs().amax(-1) ** 2).mean(-1),
        "chi1": (J[:, 1:] ** 2).sum((-1, -2)).mean(-1) / N,
        "grad_decay": (g[:, -1] / g[:, 0]) ** (1.0 / (T - 1)),
        "memory_decay": (m[:, -1] / m[:, 0]) ** (1.0 / (T - 1)),
    }


def sweep(
    cell: str,
    nu_Ws: list[float],
    n: int,
    seeds: int,
    T: int,
    seed: int,
    sigma_v2: float = 0.5,
    mu_b: float = 0.0,
    R: float = 1.0,
    burn: int = 40,
    probes: int = 16,
    device: str = "cpu",
) -> NonlinearSweep:
    """The four diagnostics of ``cell`` over nu_W x seed at width n, drawn on the CPU and
    measured on ``device``."""
    if T < 3:
        raise ValueError(f"T = {T}: must be >= 3")
    Kn, S = len(nu_Ws), seeds
    gen = torch.Generator(device="cpu").manual_seed(seed + 104729 * CELLS.index(cell))
    sw = np.repeat(np.sqrt(np.asarray(nu_Ws, float)), S)
    with torch.device("cpu"):  # every draw on the CPU, whatever the default device
        w = minimal_rnn.draw_weights(n, sw, sigma_v2**0.5, mu_b, 0.0, Kn * S, gen)
        x = (
            torch.randn(Kn * S, burn + T + 1, n, generator=gen, dtype=torch.float64)
            * R**0.5
        )
    w = minimal_rnn.Weights(w.W.to(device), w.V.to(device), w.b.to(device))
    J, B = jacobians(cell, w, x.to(device), burn, T)
    U = torch.randn(Kn * S, probes, n, generator=gen, dtype=torch.float64, device="cpu")
    vals = measure(J, B, U.to(device))
    values = {q: v.reshape(Kn, S).cpu().numpy() for q, v in vals.items()}
    return NonlinearSweep(
        cell, list(nu_Ws), n, T, values, chi1_theory(cell, nu_Ws, sigma_v2, mu_b, R)
    )
