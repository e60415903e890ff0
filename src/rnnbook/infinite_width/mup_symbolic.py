"""Symbolic checks (sympy) of the μP bookkeeping of Chizat et al., Sec. 2.1-2.3.

* :func:`scale_free_updates`: from the GD of Sec. 2.1 with layer-wise learning rates (η_U, η_W, η_V) and the change of
  variables (2.3) to the scale-free GD (2.5). With the paper's red factors (m, 1, 1/m) the difference to the printed
  (2.5) simplifies to zero; with plain GD (1, 1, 1) each layer's update is off by the factor (1/m, 1, m).
* :func:`limit_kernel_at_init`: the tangent kernel of the limit predictor (2.15) at the initialization (2.7)-(2.8),
  R_0 = J J^T, split by layer: each of A, G, B contributes I_d, so R_0 = 3 I_d (the three terms of (5.17)).

Both work on explicit small sizes (the identities hold entry by entry, for every m and d).
"""

from __future__ import annotations

from dataclasses import dataclass

import sympy as sp


def _mat(name: str, rows: int, cols: int) -> sp.Matrix:
    return sp.Matrix(rows, cols, lambda i, j: sp.Symbol(f"{name}_{i + 1}{j + 1}"))


@dataclass
class ScaleFreeDerivation:
    m: int
    d: int
    lr: tuple
    difference: dict[
        str, sp.Matrix
    ]  # (GD + change of variables) − printed (2.5), simplified
    ratio: dict[
        str, sp.Expr
    ]  # derived increment / printed increment, per layer (a scalar when it is one)

    @property
    def matches_paper(self) -> bool:
        return all(D.is_zero_matrix for D in self.difference.values())

    def latex_difference(self) -> list[str]:
        """(GD + change of variables) − (2.5), one LaTeX line per layer."""
        return [
            r"\text{(GD with } \tau m,\tau,\tau/m\text{, then (2.3))} - \text{(2.5)}"
            rf"\ \text{{for }} \tilde {k}:\quad " + sp.latex(self.difference[k])
            for k in ("U", "W", "V")
        ]

    def latex_ratio(self) -> str:
        """The derived increment over the printed one, per layer, in one LaTeX line."""
        return (
            r"\text{plain GD (all rates } \tau\text{): increment} / \text{(2.5) increment}"
            r" = \quad "
            + r",\quad ".join(
                rf"\tilde {k}:\ {sp.latex(self.ratio[k])}" for k in ("U", "W", "V")
            )
        )


def scale_free_updates(
    m: int = 3, d: int = 2, lr: tuple = ("m", 1, "1/m")
) -> ScaleFreeDerivation:
    """Derive the scale-free updates from GD with learning rates τη on F(U, W, V) = ∫ L(V^T W U x, y) dp.

    The gradient of F is ∫ L'(h, y) ∇h dp; ∇h is linear in x, so ∫ L' ∇h(x) dp = ∇h evaluated at ξ = ∫ L' x dp.
    """
    msym = sp.Symbol("m", positive=True)
    tau = sp.Symbol("tau", positive=True)
    Ut, Wt, Vt, Z = (
        _mat("Ut", m, d),
        _mat("Wt", m, m),
        _mat("Vt", m, 1),
        _mat("Z", m, m),
    )
    xi = _mat("xi", d, 1)
    factors = {"m": msym, "1/m": 1 / msym, 1: sp.Integer(1)}
    eta = [factors[f] if not isinstance(f, sp.Expr) else f for f in lr]
    # the original variables in terms of the scale-free ones, (2.3)
    U, W, V = Ut, Z / sp.sqrt(msym) + Wt / msym, Vt / msym
    u, w, v = _mat("u", m, d), _mat("w", m, m), _mat("v", m, 1)
    x = _mat("x", d, 1)
    h = (v.T * w * u * x)[0, 0]
    at = {**dict(zip(u, U)), **dict(zip(w, W)), **dict(zip(v, V)), **dict(zip(x, xi))}
    grad = {
        name: sp.Matrix(
            M.shape[0],
            M.shape[1],
            lambda i, j, M=M: sp.diff(h, M[i, j]).subs(at, simultaneous=True),
        )
        for name, M in (("U", u), ("W", w), ("V", v))
    }
    U1 = U - tau * eta[0] * grad["U"]
    W1 = W - tau * eta[1] * grad["W"]
    V1 = V - tau * eta[2] * grad["V"]
    derived = {"U": U1, "W": msym * (W1 - Z / sp.sqrt(msym)), "V": msym * V1}
    H = Z / sp.sqrt(msym) + Wt / msym
    printed = {
        "U": Ut - tau * H.T * Vt * xi.T,
        "W": Wt - tau * Vt * xi.T * Ut.T,
        "V": Vt - tau * H * Ut * xi,
    }
    old = {"U": Ut, "W": Wt, "V": Vt}
    difference, ratio = {}, {}
    for k in ("U", "W", "V"):
        difference[k] = (derived[k] - printed[k]).applyfunc(sp.expand)
        num, den = (derived[k] - old[k]), (printed[k] - old[k])
        nz = [i for i in range(len(num)) if sp.expand(den[i]) != 0]
        r = sp.simplify(num[nz[0]] / den[nz[0]])
        ratio[k] = (
            r
            if all(sp.expand(num[i] - r * den[i]) == 0 for i in range(len(num)))
            else sp.Symbol("varies")
        )
    return ScaleFreeDerivation(
        m=m, d=d, lr=tuple(lr), difference=difference, ratio=ratio
    )


@dataclass
class KernelDerivation:
    d: int
    N: int
    per_layer: dict[str, sp.Matrix]  # J_l J_l^T at initialization, l = A, G, B
    total: sp.Matrix

    def latex(self) -> str:
        """J_l J_l^T per layer and their sum R_0, in one LaTeX line."""
        parts = [
            rf"J_{k}J_{k}^\top = " + sp.latex(M) for k, M in self.per_layer.items()
        ]
        return r",\quad ".join(parts + [r"R_0 = " + sp.latex(self.total)])


def latex_shift(N: int = 8, d: int = 2) -> str:
    """The N×N leading block of the shift matrix 𝒜 (2.9), as LaTeX."""
    from .limit import shift_matrix

    S = sp.Matrix(shift_matrix(N, d).astype(int))
    return rf"\mathcal A_{{{N}\times {N}}}(d={d}) = " + sp.latex(S)


def limit_kernel_at_init(d: int = 2, N: int | None = None) -> KernelDerivation:
    """R_0 = Σ_l J_l J_l^T with J_l = ∂λ/∂(layer l) of λ = A^T (𝒜 + G)^T B, at (2.7)-(2.8), truncated to N >= d + 2."""
    N = N or d + 2
    S = sp.zeros(N, N)
    for i in range(N):
        for j in range(N):
            if i + 1 + d == j + 1 or j + 1 + 1 == i + 1:
                S[i, j] = 1
    A, G, B = _mat("a", N, d), _mat("g", N, N), _mat("b", N, 1)
    lam = A.T * (S + G).T * B
    init = {
        **{A[i, j]: int(i == j) for i in range(N) for j in range(d)},
        **{G[i, j]: 0 for i in range(N) for j in range(N)},
        **{B[i]: int(i == 0) for i in range(N)},
    }
    per_layer = {}
    for name, P in (("A", A), ("G", G), ("B", B)):
        J = lam.jacobian(list(P)).subs(init)
        per_layer[name] = sp.simplify(J * J.T)
    return KernelDerivation(
        d=d, N=N, per_layer=per_layer, total=sum(per_layer.values(), sp.zeros(d, d))
    )
