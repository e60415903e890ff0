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
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from scipy import integrate, special

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


# ------------------------------------------------------------------------------ continuous time (Sec. 5)
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


# ------------------------------------------------------------------------- law of the weights (Thm 2.2)
def weight_moments(state: LimitState) -> dict[str, np.ndarray | float]:
    """Second moments of the entries of the limit weights (2.13): the rows of U~^∞ have covariance A^T A,
    the entries of V~^∞ have variance ‖B‖², those of W~^∞ have second moment ‖G‖_F²."""
    return {
        "UtU": state.A.T @ state.A,
        "v_sq": float(state.B @ state.B),
        "w_sq": float(np.sum(state.G**2)),
    }


def v_entry_law(B: np.ndarray, dist: str = "gaussian"):
    """The law of an entry of V~^∞(k) = Σ_i Γ~_i B_i(k) when Γ~_1 = V~(0) has unit-variance law ``dist`` and
    Γ~_2, Γ~_3, ... are Gaussian (Remark (v) after Theorem 2.2): B_1 V~(0) + N(0, Σ_{i>=2} B_i²).
    Returns a frozen distribution with ``cdf`` and ``pdf`` (scipy)."""
    from scipy import stats

    b1 = float(B[0])
    sigma = float(np.sqrt(np.sum(B[1:] ** 2)))
    if dist == "gaussian":
        return stats.norm(scale=float(np.hypot(b1, sigma)))
    return _ConvolvedLaw(b1, sigma, dist)


def _Phi(u):
    return special.ndtr(u)


def _phi(u):
    return np.exp(-0.5 * np.asarray(u) ** 2) / np.sqrt(2 * np.pi)


class _ConvolvedLaw:
    """b1 X + σ N with X uniform on [−√3, √3] or ±1 and N standard normal, independent."""

    def __init__(self, b1: float, sigma: float, dist: str) -> None:
        if dist not in ("uniform", "rademacher"):
            raise ValueError(
                f"distribution {dist!r}: must be gaussian, uniform or rademacher"
            )
        self.b1, self.sigma, self.dist = abs(b1), max(sigma, 1e-300), dist

    def _F(self, x):  # ∫ Φ((x - t)/σ) dt, an antiderivative used for the uniform case
        u = np.asarray(x) / self.sigma
        return self.sigma * (u * _Phi(u) + _phi(u))

    def cdf(self, x):
        x = np.asarray(x, dtype=float)
        if self.dist == "rademacher":
            return 0.5 * (
                _Phi((x - self.b1) / self.sigma) + _Phi((x + self.b1) / self.sigma)
            )
        a = self.b1 * 3.0**0.5
        if a == 0:
            return _Phi(x / self.sigma)
        return (self._F(x + a) - self._F(x - a)) / (2 * a)

    def pdf(self, x):
        x = np.asarray(x, dtype=float)
        if self.dist == "rademacher":
            return (
                0.5
                * (_phi((x - self.b1) / self.sigma) + _phi((x + self.b1) / self.sigma))
                / self.sigma
            )
        a = self.b1 * 3.0**0.5
        if a == 0:
            return _phi(x / self.sigma) / self.sigma
        return (_Phi((x + a) / self.sigma) - _Phi((x - a) / self.sigma)) / (2 * a)

    def var(self) -> float:
        return self.b1**2 + self.sigma**2


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


def _resample(path: np.ndarray, spacing: float) -> np.ndarray:
    seg = np.linalg.norm(np.diff(path, axis=0), axis=1)
    s = np.concatenate([[0.0], np.cumsum(seg)])
    if s[-1] == 0:
        return path[:1]
    grid = np.linspace(0.0, s[-1], int(np.ceil(s[-1] / spacing)) + 1)
    return np.stack(
        [np.interp(grid, s, path[:, j]) for j in range(path.shape[1])], axis=1
    )


def path_distance(P: np.ndarray, Q: np.ndarray, spacing: float) -> float:
    """Hausdorff distance between two polygonal paths in R^d (time parametrisation ignored), after resampling both
    by arc length with the given spacing (so the result is within ``spacing`` of the exact polyline distance)."""
    from scipy.spatial import cKDTree

    A, B = (
        _resample(np.asarray(P, float), spacing),
        _resample(np.asarray(Q, float), spacing),
    )
    return float(max(cKDTree(B).query(A)[0].max(), cKDTree(A).query(B)[0].max()))


def plateau_fraction(
    t: np.ndarray, risk: np.ndarray, first: float = 0.9, last: float = 1e-4
) -> float:
    """Time for the risk to fall below ``first`` × its initial value, over the time to fall below ``last`` × it."""
    r0 = risk[0]
    if not np.any(risk < last * r0):
        raise ValueError("the risk never falls below last * risk[0]: extend the run")
    return float(t[np.argmax(risk < first * r0)] / t[np.argmax(risk < last * r0)])


def deviation_profile(
    P: np.ndarray, Q: np.ndarray, spacing: float
) -> tuple[np.ndarray, np.ndarray]:
    """For the path P resampled by arc length: (fraction of P's length travelled, distance to the path Q)."""
    from scipy.spatial import cKDTree

    A, B = (
        _resample(np.asarray(P, float), spacing),
        _resample(np.asarray(Q, float), spacing),
    )
    dist, _ = cKDTree(B).query(A)
    return np.linspace(0.0, 1.0, len(A)), dist
