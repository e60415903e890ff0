"""The exact infinite-width limit of the three-layer μP linear network (Chizat et al., Eqs. 2.6-2.10, 2.13-2.15, 5.1).

The limit is an infinitely wide deterministic linear network χ(x) = B^T (A + G) A x (2.6) with
A ∈ R^{∞×d}, G ∈ R^{∞×∞}, B ∈ R^∞, initialized by (2.7)-(2.8),

    A(0) = [I_d; 0; 0; ...],   B(0) = [1; 0; 0; ...],   G(0) = 0,

and a fixed (untrained) shift matrix 𝒜 (2.9) with 𝒜_ij = 1 iff i + d = j or j + 1 = i (1-based), which stands
for the random middle layer Z/√m. GD (2.10) with step τ,

    A ← A − τ (𝒜 + G)^T B ξ^T,    G ← G − τ B ξ^T A^T,    B ← B − τ (𝒜 + G) A ξ,

ξ = M λ − b, with the predictor (2.15) λ = A^T (𝒜 + G)^T B. After k steps only finitely many rows of A, B and of
G are non-zero (:func:`support_rows`), so a truncation to the leading N×N block is exact for a bounded number
of steps; for long runs a truncation below that size has an error that falls off very fast in N (footnote 5).

A predictor scale ``scale = s`` (Sec. 2.5, Fig. 2.2) multiplies the predictor, λ_s = s λ, while the updates
keep the form (2.10) with ξ evaluated at λ_s (as in the authors' code); this is GD on the network whose
initialization is scaled by s^{1/3} in every layer, with the time rescaled. Numpy, float64.

The continuous time (Sec. 5) is in :mod:`~rnnbook.infinite_width.flow`, the law of the weights
(2.13) in :mod:`~rnnbook.infinite_width.weight_law`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .regression import Regression


def shift_matrix(N: int, d: int) -> np.ndarray:
    """The N×N leading block of 𝒜 (2.9): 𝒜_ij = 1 iff i + d = j or j + 1 = i."""
    if N < 1 or d < 1:
        raise ValueError(f"N = {N}, d = {d}: must be positive")
    S = np.zeros((N, N))
    i = np.arange(N)
    S[i[: N - d], i[: N - d] + d] = 1.0
    S[i[1:], i[:-1]] = 1.0
    return S


@dataclass
class LimitState:
    """Truncated coefficients: A (N, d), G (N, N), B (N,)."""

    A: np.ndarray
    G: np.ndarray
    B: np.ndarray

    @property
    def N(self) -> int:
        return self.B.shape[0]

    def copy(self) -> "LimitState":
        return LimitState(self.A.copy(), self.G.copy(), self.B.copy())


def init_limit(N: int, d: int) -> LimitState:
    """The deterministic initialization (2.7)-(2.8), truncated to N rows (N >= d)."""
    if N < d:
        raise ValueError(f"truncation N = {N} must be at least d = {d}")
    A = np.zeros((N, d))
    A[:d, :d] = np.eye(d)
    B = np.zeros(N)
    B[0] = 1.0
    return LimitState(A=A, G=np.zeros((N, N)), B=B)


def support_rows(d: int, k: int) -> int:
    """How many leading rows of A(k), B(k) can be non-zero after k GD steps (and G(k) lives in their block).

    From (2.10): a row-support a_k of A and b_k of B obey a_{k+1} = max(a_k, b_k + d), b_{k+1} = max(b_k, a_k + 1),
    a_0 = d, b_0 = 1, because 𝒜^T moves row i to row i + d and 𝒜 moves row i to row i + 1. In closed form
    a_k = (d+1) k/2 + d for even k and (d+1)(k+1)/2 for odd k; b_k <= a_k.
    """
    if k < 0:
        raise ValueError(f"k = {k}: must be >= 0")
    return (d + 1) * k // 2 + d if k % 2 == 0 else (d + 1) * (k + 1) // 2


def support_rows_recursion(d: int, k: int) -> tuple[int, int]:
    """(a_k, b_k) by iterating the support recursion of :func:`support_rows` (an independent check)."""
    a, b = d, 1
    for _ in range(k):
        a, b = max(a, b + d), max(b, a + 1)
    return a, b


def predictor(state: LimitState, S: np.ndarray, scale: float = 1.0) -> np.ndarray:
    """(2.15): λ = s A^T (𝒜 + G)^T B."""
    return scale * state.A.T @ ((S + state.G).T @ state.B)


def gd_step(state: LimitState, S: np.ndarray, xi: np.ndarray, tau: float) -> LimitState:
    """One step of (2.10) (all three updates use the old values)."""
    H = S + state.G
    A = state.A - tau * np.outer(H.T @ state.B, xi)
    G = state.G - tau * np.outer(state.B, state.A @ xi)
    B = state.B - tau * H @ (state.A @ xi)
    return LimitState(A, G, B)


def energy_gradients(
    state: LimitState, S: np.ndarray, xi: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """∇ of ℰ(A, G, B) (2.11) for the square loss: ((𝒜+G)^T B ξ^T, B ξ^T A^T, (𝒜+G) A ξ)."""
    H = S + state.G
    return (
        np.outer(H.T @ state.B, xi),
        np.outer(state.B, state.A @ xi),
        H @ (state.A @ xi),
    )


@dataclass
class LimitTrajectory:
    """λ^∞(k) (K, d), the risk, ‖B(k)‖², and the states at the steps asked for."""

    k: np.ndarray
    lam: np.ndarray
    risk: np.ndarray
    b_sq: np.ndarray
    N: int
    states: dict[int, LimitState] = field(default_factory=dict)


def train(
    data: Regression,
    tau: float,
    steps: int,
    N: int | None = None,
    scale: float = 1.0,
    every: int = 1,
    keep: tuple[int, ...] = (),
) -> LimitTrajectory:
    """GD (2.10) for ``steps`` steps on the truncation N (default: the exact size ``support_rows(d, steps)``)."""
    if tau <= 0 or steps < 0 or every < 1 or not scale > 0:
        raise ValueError(
            f"tau = {tau}, steps = {steps}, every = {every}, scale = {scale}: bad value"
        )
    d = data.d
    N = support_rows(d, steps) if N is None else N
    S = shift_matrix(N, d)
    st = init_limit(N, d)
    ks, lams, bsq, states = [], [], [], {}
    for k in range(steps + 1):
        lam = predictor(st, S, scale)
        if k in keep:
            states[k] = st.copy()
        if k % every == 0 or k == steps:
            ks.append(k)
            lams.append(lam)
            bsq.append(float(st.B @ st.B))
        if k == steps:
            break
        st = gd_step(st, S, data.xi(lam), tau)
    lams = np.array(lams)
    return LimitTrajectory(
        k=np.array(ks),
        lam=lams,
        risk=data.risk(lams),
        b_sq=np.array(bsq),
        N=N,
        states=states,
    )


def kernel(
    state: LimitState, S: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The three terms of R_t (5.17), the contributions of A, G, B to dλ/dt = −R_t ξ:
    ‖(𝒜+G)^T B‖² I_d (from A), ‖B‖² A^T A (from G), A^T (𝒜+G)^T (𝒜+G) A (from B)."""
    H = S + state.G
    HtB = H.T @ state.B
    HA = H @ state.A
    d = state.A.shape[1]
    return (
        float(HtB @ HtB) * np.eye(d),
        float(state.B @ state.B) * state.A.T @ state.A,
        HA.T @ HA,
    )
