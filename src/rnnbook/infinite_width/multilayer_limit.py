"""The infinite-width limit of the multi-layer μP linear network (Chizat et al., Sec. 6, Eqs. 6.3-6.9).

Each layer l = 0..L has an orthonormal basis indexed by *paths of layers* (Sec. 6.1): a path starts at a
vacuum, one of the d columns of U~(0) at layer 0 (the d-output version of Sec. 3.5) or V~(0) at layer L, and
moves by ±1 per step; it belongs to the basis of the layer where it ends. The random middle layer Z_l/√m acts
on these bases as the shift 𝒜_l (6.8): on a path s ending at l−1 it appends l, and if s arrived at l−1 from l
it also gives s with that last move removed (a creation plus an annihilation: Z_l/√m is a circular element
in the limit). 𝒜_l^T acts as (6.9). The limit (6.5) is GD on the coefficients A (layer 0, one column per
input), G_l (layer l−1 to layer l) and B (layer L):

    A ← A − τ H_1^T ⋯ H_L^T B ξ^T,  G_l ← G_l − τ (H_{l+1}^T ⋯ H_L^T B)(H_{l−1} ⋯ H_1 A ξ)^T,
    B ← B − τ H_L ⋯ H_1 A ξ,       H_l = 𝒜_l + G_l,

from A(0) = the d vacua, B(0) = the vacuum at L, G_l(0) = 0; the predictor is λ = A^T H_1^T ⋯ H_L^T B.
For L = 1 the paths are linear and this is (2.6)-(2.10) of :mod:`~rnnbook.infinite_width.limit`, in another
numbering. For L = 2 (Sec. 6.2) the paths of length M number about d 2^{M/2}, so the bases are truncated to
paths of at most ``max_len`` moves (creations beyond it are dropped); the truncation error is measured by
comparing two lengths. Numpy, float64, on the CPU: a deterministic recursion without random draws
(the finite networks it is compared with run on a device, :mod:`~rnnbook.infinite_width.multilayer`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .regression import Regression


@dataclass(frozen=True)
class PathBasis:
    """The truncated bases: ``paths[l]`` lists the paths ending at layer l, a path being
    (start, l_0, l_1, ..., l_M) with start = c < d (vacuum c at layer 0) or d (the vacuum at layer L)."""

    d: int
    L: int
    max_len: int
    paths: list[list[tuple]]

    def index(self, l: int) -> dict[tuple, int]:
        return {p: i for i, p in enumerate(self.paths[l])}

    def sizes(self) -> list[int]:
        return [len(p) for p in self.paths]


def path_basis(d: int, L: int, max_len: int) -> PathBasis:
    """All paths of at most ``max_len`` moves from the d vacua at layer 0 and the vacuum at layer L."""
    if min(d, L) < 1 or max_len < 0:
        raise ValueError(f"d = {d}, L = {L}, max_len = {max_len}: bad value")
    frontier = [(c, 0) for c in range(d)] + [(d, L)]
    paths = [[] for _ in range(L + 1)]
    for _ in range(max_len + 1):
        nxt = []
        for p in frontier:
            paths[p[-1]].append(p)
            nxt += [p + (p[-1] + s,) for s in (-1, 1) if 0 <= p[-1] + s <= L]
        frontier = nxt
    return PathBasis(d, L, max_len, paths)


def shift(basis: PathBasis, l: int) -> np.ndarray:
    """𝒜_l (6.8), from the basis of layer l−1 to that of layer l (shape n_l × n_{l−1})."""
    if not 1 <= l <= basis.L:
        raise ValueError(f"l = {l}: must be in 1..{basis.L}")
    to = basis.index(l)
    S = np.zeros((len(basis.paths[l]), len(basis.paths[l - 1])))
    for j, p in enumerate(basis.paths[l - 1]):
        if p + (l,) in to:  # creation
            S[to[p + (l,)], j] += 1.0
        if len(p) > 2 and p[-2] == l:  # annihilation of the last move l -> l-1
            S[to[p[:-1]], j] += 1.0
    return S


@dataclass
class MultiLimitState:
    A: np.ndarray  # (n_0, d)
    Gs: list[np.ndarray]  # G_l: (n_l, n_{l-1}), l = 1..L
    B: np.ndarray  # (n_L,)


def init_state(basis: PathBasis) -> MultiLimitState:
    d, L = basis.d, basis.L
    i0, iL = basis.index(0), basis.index(L)
    A = np.zeros((len(basis.paths[0]), d))
    for c in range(d):
        A[i0[(c, 0)], c] = 1.0
    B = np.zeros(len(basis.paths[L]))
    B[iL[(d, L)]] = 1.0
    Gs = [
        np.zeros((len(basis.paths[l]), len(basis.paths[l - 1])))
        for l in range(1, L + 1)
    ]
    return MultiLimitState(A, Gs, B)


def _backward(H: list[np.ndarray], B: np.ndarray) -> list[np.ndarray]:
    """b[l] = H_{l+1}^T ⋯ H_L^T B for l = 0..L."""
    b = [B]
    for Hl in reversed(H):
        b.append(Hl.T @ b[-1])
    return b[::-1]


def predictor(st: MultiLimitState, shifts: list[np.ndarray]) -> np.ndarray:
    H = [S + G for S, G in zip(shifts, st.Gs)]
    return st.A.T @ _backward(H, st.B)[0]


def gd_step(
    st: MultiLimitState, shifts: list[np.ndarray], xi: np.ndarray, tau: float
) -> MultiLimitState:
    """One step of (6.5) (every update at the old values)."""
    H = [S + G for S, G in zip(shifts, st.Gs)]
    back = _backward(H, st.B)
    fwd = [st.A @ xi]
    for Hl in H:
        fwd.append(Hl @ fwd[-1])
    A = st.A - tau * np.outer(back[0], xi)
    Gs = [G - tau * np.outer(back[l + 1], fwd[l]) for l, G in enumerate(st.Gs)]
    return MultiLimitState(A, Gs, st.B - tau * fwd[-1])


@dataclass
class MultiLimitRun:
    lam: np.ndarray  # (steps + 1, d)
    risk: np.ndarray
    sizes: list[int]
    state: MultiLimitState


def train(
    data: Regression, L: int, tau: float, steps: int, max_len: int
) -> MultiLimitRun:
    """GD (6.5) for ``steps`` steps on the bases truncated at paths of ``max_len`` moves."""
    if tau <= 0 or steps < 0:
        raise ValueError(f"tau = {tau}, steps = {steps}: need tau > 0, steps >= 0")
    basis = path_basis(data.d, L, max_len)
    shifts = [shift(basis, l) for l in range(1, L + 1)]
    st = init_state(basis)
    lams = []
    for _ in range(steps):
        lam = predictor(st, shifts)
        lams.append(lam)
        st = gd_step(st, shifts, data.xi(lam), tau)
    lams = np.array(lams + [predictor(st, shifts)])
    return MultiLimitRun(lams, data.risk(lams), basis.sizes(), st)


def l1_check(data: Regression, tau: float, steps: int, max_len: int) -> float:
    """Largest |Δλ| over ``steps`` steps between the path construction at L = 1 and the three-layer
    limit (2.10) of :mod:`~rnnbook.infinite_width.limit` (exact truncation)."""
    from .limit import train as train_l1

    ref = train_l1(data, tau, steps).lam
    return float(np.abs(train(data, 1, tau, steps, max_len).lam - ref).max())


def truncation_check(
    data: Regression, L: int, tau: float, steps: int, max_len: int, extra: int = 2
) -> tuple[float, list[int], list[int]]:
    """Largest |Δλ| over the run between paths of ``max_len`` and ``max_len + extra`` moves, and the
    basis sizes of both."""
    a = train(data, L, tau, steps, max_len)
    b = train(data, L, tau, steps, max_len + extra)
    return float(np.abs(a.lam - b.lam).max()), a.sizes, b.sizes


def min_norm_check(data: Regression, run: MultiLimitRun) -> tuple[float, float]:
    """(‖λ(K) − X⁺y‖, norm of the part of λ(K) outside the row space of X), both over ‖X⁺y‖."""
    target = data.min_norm()
    lam = run.lam[-1]
    P_row = np.linalg.pinv(data.X) @ data.X
    scale = float(np.linalg.norm(target))
    return (
        float(np.linalg.norm(lam - target)) / scale,
        float(np.linalg.norm(lam - P_row @ lam)) / scale,
    )
