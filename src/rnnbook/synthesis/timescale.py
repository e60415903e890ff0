"""One timescale for the linear RNN h_t = W h_{t-1}/sqrt(n) + F x_t, W_ij ~ N(0, nu_W): four quantities
of the four papers derived with sympy, and where each identity is exact or only asymptotic.

1. LSC (Herranz-Celotti & Rouat): the squared spectral radius of the transition derivative
   dh_t/dh_{t-1} = J = W/sqrt(n). Asymptotic only: by the circular law the spectrum of J fills the disc of
   radius ||J||_{L^2(phi)} = sqrt(phi(J J^T)) (Haagerup-Larsen for R-diagonal limits; the trace norm,
   not the operator norm, which tends to 2 sqrt(nu_W)), and phi(J J^T) = nu_W. The circular law alone
   gives only liminf r(J) >= sqrt(nu_W); the convergence of r(J) is Geman's and Bai-Yin's theorem.
2. Mean field (Chen, Pennington & Schoenholz, Eq. 4 and chi_1): chi_1 = sigma_w^2 E[phi'(u)^2] with
   phi(u) = u and sigma_w^2 = nu_W (the paper's W ~ N(0, sigma_w^2/N) is our W/sqrt(n)). Exact at every n
   in expectation: E||J||_F^2/n = nu_W.
3. Implicit bias (Emami et al., Eq. 21): rho_{j+1}/rho_j of the derived scale factors
   (:func:`rnnbook.implicit_bias.scale_factors.derive_rho`), exactly nu_W (1 + a/(a j + b)): nu_W only as
   j -> oo (and rho_j itself is an n -> oo object).
4. Gradients: E||J^k||_F^2/n = nu_W^k P_k(n)/n^(k+1) (:mod:`.frobenius_moments`, exact by Wick), so the
   per-step decay is nu_W P_{k+1}(n)/(n P_k(n)): exactly nu_W at k = 0 -> 1, nu_W (1 + O(1/n^2)) after,
   at fixed k; P_k(n)/n^(k+1) = 1 + c_k/n^2 + ..., with c_k = 2, 10, 28, 62, 118 for k = 2..6 (at
   least the complex-entry binom(k+2, 4), about k^4/24): the correction grows faster than k^2.

The common value nu_W gives the one timescale tau = -1/log(nu_W) (the mean-field timescale,
:func:`rnnbook.mean_field.theory.timescale`).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import sympy as sp

from rnnbook.implicit_bias import scale_factors

from .frobenius_moments import n, normalised_factor

nu_W, nu_F, nu_C = scale_factors.nu_W, scale_factors.nu_F, scale_factors.nu_C
j = scale_factors.j
k = sp.Symbol("k", integer=True, nonnegative=True)
u, z = sp.symbols("u z", real=True)
sw2 = sp.Symbol("sigma_w^2", positive=True)


@dataclass(frozen=True)
class OneTimescale:
    chi1_general: sp.Expr  # sigma_w^2 E[phi'(u)^2] with phi left abstract
    chi1_linear: sp.Expr  # ... with phi(u) = u and sigma_w^2 = nu_W
    one_step_frobenius: sp.Expr  # E||J||_F^2/n at finite n
    rho_ratio: sp.Expr  # rho_{j+1}/rho_j, exact
    rho_ratio_limit: sp.Expr  # as j -> oo
    grad_ratio: dict[int, sp.Expr]  # E||J^{k+1}||^2 / E||J^k||^2, exact at finite n
    grad_ratio_limit: dict[int, sp.Expr]  # as n -> oo
    radius2_limit: sp.Expr  # outer radius^2 of the circular law = phi(J J^T)
    tau: sp.Expr

    @property
    def coincide(self) -> bool:
        vals = [self.chi1_linear, self.rho_ratio_limit, self.radius2_limit]
        vals += list(self.grad_ratio_limit.values())
        return all(sp.simplify(v - nu_W) == 0 for v in vals)

    def latex(self) -> dict[str, str]:
        L = sp.latex
        g = self.grad_ratio
        return {
            "chi1": r"\chi_1 = " + L(self.chi1_general) + r"\;\xrightarrow{\phi(u)=u,"
            r"\ \sigma_w^2=\nu_W}\; " + L(self.chi1_linear),
            "frobenius": r"\tfrac1n\mathbb E\|J\|_F^2 = \tfrac{1}{n^2}\sum_{i,l}"
            r"\mathbb E W_{il}^2 = " + L(self.one_step_frobenius),
            "rho": r"\frac{\rho_{j+1}}{\rho_j} = "
            + L(self.rho_ratio)
            + r"\;\xrightarrow{j\to\infty}\; "
            + L(self.rho_ratio_limit),
            "grad": r",\quad ".join(
                rf"\frac{{\mathbb E\|J^{{{q + 1}}}\|_F^2}}{{\mathbb E\|J^{{{q}}}\|_F^2}}"
                rf" = {L(g[q])}"
                for q in sorted(g)
            )
            + r"\;\xrightarrow{n\to\infty}\;\nu_W",
            "radius": r"r(J)^2 \xrightarrow{n\to\infty} \|J\|_{L^2(\varphi)}^2 = \varphi(JJ^\top) = "
            + L(self.radius2_limit),
            "tau": r"\tau = " + L(self.tau),
        }

    def summary(self) -> dict:
        return {
            "chi1": str(self.chi1_linear),
            "rho_ratio": str(self.rho_ratio),
            "rho_limit": str(self.rho_ratio_limit),
            "grad_limits": [str(v) for v in self.grad_ratio_limit.values()],
            "radius2": str(self.radius2_limit),
            "coincide": self.coincide,
            "one_step_exact": sp.simplify(self.one_step_frobenius - nu_W) == 0,
            "two_step_exact": sp.simplify(self.grad_ratio[1] - nu_W) == 0,
        }


def one_step_moment() -> sp.Expr:
    """E||J||_F^2 / n = (1/n^2) sum_{i,l} E W_il^2 for J = W/sqrt(n): nu_W, exact at every n."""
    i, l_ = sp.symbols("i l", integer=True, positive=True)
    return sp.simplify(sp.summation(sp.summation(nu_W, (i, 1, n)), (l_, 1, n)) / n**2)


def radius2_limit() -> sp.Expr:
    """The limit of the *squared* spectral radius r(J)^2 as n -> oo: the squared outer radius of
    the circular law, phi(J J^T) (Haagerup-Larsen), the one-step moment: nu_W. The radius itself
    tends to its square root."""
    return one_step_moment()


@lru_cache(maxsize=None)
def derive(k_max: int = 4) -> OneTimescale:
    """Derive the four quantities (gradient ratios for k = 0..k_max-1) and their common limit."""
    phi = sp.Function("phi")
    q = sp.Symbol("q^*", positive=True)
    gauss = sp.exp(-(z**2) / 2) / sp.sqrt(2 * sp.pi)

    def chi(f):  # sigma_w^2 int Dz phi'(sqrt(q*) z)^2
        dphi = sp.diff(f(u), u).subs(u, sp.sqrt(q) * z)
        return sw2 * sp.Integral(dphi**2 * gauss, (z, -sp.oo, sp.oo))

    chi_general = chi(phi)
    chi_lin = chi(sp.Lambda(u, u)).doit().subs(sw2, nu_W)
    one_step = one_step_moment()
    rho = scale_factors.derive_rho().rho
    ratio = sp.factor(sp.simplify(rho.subs(j, j + 1) / rho))
    ratio_lim = sp.limit(ratio, j, sp.oo)
    grad, grad_lim = {}, {}
    for q_ in range(k_max):
        r = sp.factor(nu_W * normalised_factor(q_ + 1) / normalised_factor(q_))
        grad[q_] = r
        grad_lim[q_] = sp.limit(r, n, sp.oo)
    radius2 = radius2_limit()  # Haagerup-Larsen: outer radius^2 = phi(J J^T)
    tau = -1 / sp.log(nu_W)
    return OneTimescale(
        chi_general,
        chi_lin,
        sp.simplify(one_step),
        ratio,
        ratio_lim,
        grad,
        grad_lim,
        sp.simplify(radius2),
        tau,
    )
