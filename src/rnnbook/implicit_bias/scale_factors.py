"""The scale factors rho_j of Emami et al., Theorem 3.3(b), Eq. (21), derived rather than transcribed.

Appendix B.3 tracks the covariances tau_{t,1}, tau_{t,2} of the limits of the state and of its
perturbation (Eqs. 46-48):

    tau_{t+1,1} = nu_W tau_{t,1},           tau_{0,1} = nu_F,
    tau_{t+1,2} = nu_W tau_{t,2} + tau_{t,1}, tau_{0,2} = 1,

and the NTK (Eq. 55) weighs lag j by rho_j = nu_C tau_{j,2} + tau_{j,1}. :func:`derive_rho` solves the
recursions with sympy's ``rsolve`` and compares the result with the printed Eq. (21).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import sympy as sp

j, T = sp.symbols("j T", integer=True, nonnegative=True)
nu_W, nu_F, nu_C = sp.symbols("nu_W nu_F nu_C", positive=True)

#: Eq. (21) as printed in the paper (the thing to check, not an input of the book's numbers).
PAPER_RHO = nu_C * (j * nu_F * nu_W ** (j - 1) + nu_W**j) + nu_F * nu_W**j
#: Eq. (22): rho_max as printed.
PAPER_RHO_MAX = nu_C * (T * nu_F + 1) + nu_F


@dataclass(frozen=True)
class RhoDerivation:
    recursion_1: sp.Eq
    recursion_2: sp.Eq
    tau_1: sp.Expr
    tau_2: sp.Expr
    rho: sp.Expr
    difference_to_paper: sp.Expr

    @property
    def matches_paper(self) -> bool:
        return self.difference_to_paper == 0

    def latex(self) -> dict[str, str]:
        """The steps of the derivation in LaTeX: the recursions, their solutions, rho_j, and its
        difference to the printed Eq. (21)."""
        return {
            "recursions": r"\tau_{j+1,1} = \nu_W\,\tau_{j,1},\quad \tau_{0,1}=\nu_F \qquad "
            r"\tau_{j+1,2} = \nu_W\,\tau_{j,2} + \tau_{j,1},\quad \tau_{0,2}=1",
            "solutions": r"\text{rsolve:}\quad \tau_{j,1} = "
            + sp.latex(self.tau_1)
            + r",\qquad \tau_{j,2} = "
            + sp.latex(self.tau_2),
            "rho": r"\rho_j = \nu_C\,\tau_{j,2} + \tau_{j,1} = " + sp.latex(self.rho),
            "difference": r"\rho_j^{\text{derived}} - \rho_j^{\text{Eq. (21)}} "
            r"\;\xrightarrow{\text{simplify}}\; " + sp.latex(self.difference_to_paper),
        }

    def summary(self) -> dict:
        """The derived rho_j and its difference to the printed Eq. (21), as text."""
        return {
            "derived": str(self.rho),
            "difference": str(self.difference_to_paper),
            "matches": self.matches_paper,
        }


@lru_cache(maxsize=None)
def derive_rho() -> RhoDerivation:
    """Solve the variance recursions (48) with ``rsolve`` and assemble rho_j = nu_C tau_{j,2} + tau_{j,1}."""
    t1, t2 = sp.Function("tau_1"), sp.Function("tau_2")
    rec1 = sp.Eq(t1(j + 1), nu_W * t1(j))
    tau_1 = sp.rsolve(rec1.lhs - rec1.rhs, t1(j), {t1(0): nu_F})
    rec2 = sp.Eq(t2(j + 1), nu_W * t2(j) + t1(j))
    tau_2 = sp.rsolve(t2(j + 1) - nu_W * t2(j) - tau_1, t2(j), {t2(0): 1})
    # check the solutions satisfy the recursions and the initial values
    assert (
        sp.simplify(tau_1.subs(j, j + 1) - nu_W * tau_1) == 0
        and tau_1.subs(j, 0) == nu_F
    )
    assert (
        sp.simplify(tau_2.subs(j, j + 1) - nu_W * tau_2 - tau_1) == 0
        and tau_2.subs(j, 0) == 1
    )
    rho = sp.expand(nu_C * tau_2 + tau_1)
    return RhoDerivation(rec1, rec2, tau_1, tau_2, rho, sp.simplify(rho - PAPER_RHO))


def rho(T_: int, nu_W_: float, nu_F_: float, nu_C_: float) -> np.ndarray:
    """rho_0..rho_{T-1} evaluated from the *derived* expression (not from the printed one)."""
    if T_ < 1:
        raise ValueError(f"T = {T_!r}: must be a positive integer")
    f = sp.lambdify((j, nu_W, nu_F, nu_C), derive_rho().rho, "numpy")
    js = np.arange(T_, dtype=float)
    return np.asarray(
        f(js, float(nu_W_), float(nu_F_), float(nu_C_)), dtype=float
    ) * np.ones(T_)


@dataclass(frozen=True)
class Bound22:
    slack: (
        sp.Expr
    )  # (rho_max nu_W^{j-1} - rho_j) / nu_W^{j-1}; the bound holds at j iff slack >= 0
    worst_case: sp.Expr  # slack at j = T-1 (slack decreases in j)
    nu_W_threshold: (
        sp.Expr
    )  # the bound holds for every 0 <= j <= T-1 iff nu_W <= threshold

    def latex(self) -> dict[str, str]:
        """The slack and the threshold on nu_W in LaTeX."""
        thr = self.nu_W_threshold
        return {
            "slack": r"\frac{\rho_{\max}\nu_W^{j-1}-\rho_j}{\nu_W^{j-1}} = "
            + sp.latex(self.slack),
            "threshold": r"\text{slack at } j=T-1:\ "
            + sp.latex(self.worst_case)
            + r"\ \ge 0 \iff \nu_W \le "
            + sp.latex(thr)
            + " = 1 + "
            + sp.latex(sp.simplify(thr - 1)),
        }


@lru_cache(maxsize=None)
def derive_bound22() -> Bound22:
    """Where does rho_j <= rho_max nu_W^{j-1} (Eq. 22) hold? Divide by nu_W^{j-1} > 0 and study the slack."""
    slack = sp.expand(
        sp.simplify(
            (PAPER_RHO_MAX * nu_W ** (j - 1) - derive_rho().rho) / nu_W ** (j - 1)
        )
    )
    assert (
        sp.diff(slack, j) == -nu_C * nu_F
    )  # strictly decreasing in j: the worst lag is the last one
    worst = sp.expand(slack.subs(j, T - 1))
    threshold = sp.solve(sp.Eq(worst, 0), nu_W)[0]
    return Bound22(slack, worst, sp.simplify(threshold))


def rho_max(T_: int, nu_F_: float, nu_C_: float) -> float:
    """rho_max = nu_C (T nu_F + 1) + nu_F of Eq. (22), evaluated."""
    return float(PAPER_RHO_MAX.subs({T: T_, nu_F: nu_F_, nu_C: nu_C_}))


def bound22_holds(T_: int, nu_W_: float, nu_F_: float, nu_C_: float) -> bool:
    """Numerical check of Eq. (22) at every lag 0..T-1 (relative rounding slack 1e-12)."""
    r = rho(T_, nu_W_, nu_F_, nu_C_)
    rmax = rho_max(T_, nu_F_, nu_C_)
    bound = rmax * nu_W_ ** (np.arange(T_) - 1.0)
    return bool(np.all(r <= bound * (1 + 1e-12)))


def check_bound22_region(draws: int, seed: int) -> dict:
    """Evaluate Eq. (22) directly at ``draws`` random (nu_W, nu_F, nu_C, T) and compare with the
    derived region nu_W <= threshold(nu_F, nu_C) of :func:`derive_bound22`.

    Returns the threshold (as text), how many draws agree with the region, the number of draws, and
    whether the bound held at every draw with nu_W < 1 (the paper's condition).
    """
    threshold = derive_bound22().nu_W_threshold
    thr = sp.lambdify((nu_F, nu_C), threshold)
    rng = np.random.default_rng(seed)
    agree, holds_below_1 = 0, True
    for _ in range(draws):
        nF_, nC_ = rng.uniform(0.1, 3.0, 2)
        T_ = int(rng.integers(2, 40))
        nW_ = rng.uniform(0.05, 2.5)
        holds = bound22_holds(T_, nW_, nF_, nC_)
        agree += holds == (nW_ <= thr(nF_, nC_))
        if nW_ < 1:
            holds_below_1 &= holds
    return {
        "threshold": str(threshold),
        "agree": int(agree),
        "total": draws,
        "holds_below_1": bool(holds_below_1),
    }
