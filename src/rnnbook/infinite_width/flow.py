"""The gradient flow of the limit model (Chizat et al., Sec. 5, Eq. 5.1) and the linear dynamics (2.17).

The flow is the τ → 0 limit of the GD (2.10) of :mod:`~rnnbook.infinite_width.limit`, integrated on
the truncation to N rows by an adaptive high-order solver (DOP853); the linear dynamics
dλ/dt = −(M λ − b), λ(0) = 0, is solved in closed form. :func:`flow_to_convergence` lengthens the
horizon until λ is within a tolerance of the min-norm predictor X⁺y of Theorem 2.3.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import integrate

from .limit import LimitState, energy_gradients, init_limit, predictor, shift_matrix
from .regression import Regression


def _pack(st: LimitState) -> np.ndarray:
    return np.concatenate([st.A.ravel(), st.G.ravel(), st.B])


def _unpack(z: np.ndarray, N: int, d: int) -> LimitState:
    return LimitState(
        z[: N * d].reshape(N, d),
        z[N * d : N * d + N * N].reshape(N, N),
        z[N * d + N * N :],
    )


@dataclass
class FlowSolution:
    t: np.ndarray
    lam: np.ndarray
    risk: np.ndarray
    final: LimitState
    N: int
    nfev: int


def gradient_flow(
    data: Regression,
    t_eval: np.ndarray,
    N: int,
    scale: float = 1.0,
    speed: float = 1.0,
    rtol: float = 1e-10,
    atol: float = 1e-12,
) -> FlowSolution:
    """The gradient flow (5.1) of ℰ (τ → 0 limit of (2.10)) from (5.5)-(5.6), truncated to N, by DOP853.

    With a predictor scale s the vector field is (2.10)'s with ξ at the scaled predictor (see the module
    docstring); ``speed`` multiplies it (a change of the time variable, which leaves the path unchanged)."""
    d = data.d
    S = shift_matrix(N, d)
    M, b = data.M, data.b

    def rhs(_t, z):
        st = _unpack(z, N, d)
        xi = M @ predictor(st, S, scale) - b
        gA, gG, gB = energy_gradients(st, S, xi)
        return -speed * np.concatenate([gA.ravel(), gG.ravel(), gB])

    t_eval = np.asarray(t_eval, dtype=float)
    sol = integrate.solve_ivp(
        rhs,
        (0.0, float(t_eval[-1])),
        _pack(init_limit(N, d)),
        method="DOP853",
        t_eval=t_eval,
        rtol=rtol,
        atol=atol,
    )
    if not sol.success:
        raise RuntimeError(f"gradient flow integration failed: {sol.message}")
    lams = np.array([predictor(_unpack(z, N, d), S, scale) for z in sol.y.T])
    return FlowSolution(
        t=sol.t,
        lam=lams,
        risk=data.risk(lams),
        final=_unpack(sol.y[:, -1], N, d),
        N=N,
        nfev=int(sol.nfev),
    )


def linear_flow(data: Regression, t: np.ndarray, rate: float = 1.0) -> np.ndarray:
    """The linear dynamics (2.17), dλ/dt = −rate (M λ − b), λ(0) = 0, in closed form (shape (len(t), d))."""
    z, Q = np.linalg.eigh(data.M)
    c = Q.T @ data.b
    out = np.zeros((len(t), data.d))
    for i, zi in enumerate(z):
        if zi > 1e-12 * max(z.max(), 1e-300):
            out += np.outer(-np.expm1(-rate * zi * np.asarray(t)) * c[i] / zi, Q[:, i])
    return out


def linear_gd(
    data: Regression, tau: float, steps: int, rate: float = 1.0
) -> np.ndarray:
    """GD on the linear model from λ = 0: λ ← λ − τ rate ξ(λ); shape (steps + 1, d)."""
    lam = np.zeros(data.d)
    out = [lam]
    for _ in range(steps):
        lam = lam - tau * rate * data.xi(lam)
        out.append(lam)
    return np.array(out)


def flow_to_convergence(
    data: Regression,
    N: int,
    t_end: float,
    scale: float = 1.0,
    speed: float = 1.0,
    points: int = 2000,
    tol: float = 1e-9,
    max_doublings: int = 4,
    rtol: float = 1e-11,
    atol: float = 1e-13,
) -> FlowSolution:
    """:func:`gradient_flow` on [0, T], T = t_end doubled until ‖λ(T) − X⁺y‖ <= tol ‖X⁺y‖ (at most max_doublings
    times); the time grid is uniform with ``points`` points plus a fine start (the plateau of small scales)."""
    lam_hat = data.min_norm()
    T = float(t_end)
    for _ in range(max_doublings + 1):
        t = np.unique(
            np.concatenate(
                [np.linspace(0.0, T, points), np.geomspace(T * 1e-5, T, points)]
            )
        )
        sol = gradient_flow(data, t, N, scale=scale, speed=speed, rtol=rtol, atol=atol)
        if np.linalg.norm(sol.lam[-1] - lam_hat) <= tol * np.linalg.norm(lam_hat):
            break
        T *= 2
    return sol
