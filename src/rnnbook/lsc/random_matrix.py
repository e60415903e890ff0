"""Eigenvalue moduli of random matrices: Herranz-Celotti & Rouat, Lemma 1 (App. B, Eqs. 25-26).

Lemma 1 states that an n x n real random matrix with i.i.d. mean-0, variance-1 entries has eigenvalues
whose moduli follow chi distributions, |lambda_k| ~ chi_k, so that E|lambda_k| = sqrt(2) Gamma((k+1)/2) /
Gamma(k/2) "for any k", with a variance that vanishes as k grows; Corollary 1 uses it with k = n for the
spectral radius. Kostlan's theorem, which the proof invokes, is about *complex* Gaussian (Ginibre)
matrices with E|m_ij|^2 = 1: the set {|lambda_k|^2} has the law of independent Gamma(k, 1) variables,
k = 1..n, so |lambda_k| ~ chi_{2k} / sqrt(2) and E|lambda_k| = Gamma(k + 1/2) / Gamma(k). This module

* samples the three ensembles (real Gaussian, real uniform, complex Gaussian) and their spectral radii and
  mean eigenvalue moduli in batches (``torch.linalg.eigvals`` on stacks), with Monte Carlo standard errors;
* evaluates the paper's chi formula and Kostlan's formulas, including the exact law of the spectral radius
  of a complex Ginibre matrix, P(rho <= r) = prod_k P(Gamma(k, 1) <= r^2), by quadrature;
* derives the large-k limits of both variances with sympy (Stirling series of log Gamma).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

import numpy as np
import sympy as sp
import torch
from scipy import integrate, special

Entries = Literal["gaussian", "uniform", "complex"]
ENTRIES: tuple[Entries, ...] = ("gaussian", "uniform", "complex")


def sample_matrices(
    S: int, n: int, entries: Entries, g: torch.Generator
) -> torch.Tensor:
    """S matrices n x n with i.i.d. mean-0 entries of E|m|^2 = 1: standard Gaussian, uniform on
    [-sqrt 3, sqrt 3], or complex Gaussian with independent N(0, 1/2) real and imaginary parts."""
    if entries == "gaussian":
        return torch.randn(S, n, n, dtype=torch.float64, generator=g)
    if entries == "uniform":
        return (
            2 * torch.rand(S, n, n, dtype=torch.float64, generator=g) - 1
        ) * math.sqrt(3.0)
    if entries == "complex":
        re = torch.randn(S, n, n, dtype=torch.float64, generator=g)
        im = torch.randn(S, n, n, dtype=torch.float64, generator=g)
        return torch.complex(re, im) / math.sqrt(2.0)
    raise ValueError(f"entries = {entries!r}: must be one of {ENTRIES}")


def eigen_moduli(
    S: int, n: int, entries: Entries, g: torch.Generator, chunk: int = 256
) -> torch.Tensor:
    """|eigenvalues| of S sampled matrices, shape (S, n), computed in stacks of ``chunk`` matrices."""
    out = []
    for start in range(0, S, chunk):
        M = sample_matrices(min(chunk, S - start), n, entries, g)
        out.append(torch.linalg.eigvals(M).abs())
    return torch.cat(out)


@dataclass(frozen=True)
class MonteCarlo:
    """Mean and variance of a sample with their standard errors (normal approximation)."""

    n: int
    entries: str
    samples: int
    mean: float
    se_mean: float
    var: float
    se_var: float

    def z(self, value: float) -> float:
        """(mean - value) / se: how many standard errors the sample mean lies from ``value``."""
        return (self.mean - value) / self.se_mean


def summarize(x: torch.Tensor, n: int, entries: str) -> MonteCarlo:
    """Mean, variance and their standard errors; se(var) = sqrt((m4 - var^2) / S) from the 4th central moment."""
    v = x.double().numpy()
    S = v.size
    c = v - v.mean()
    var = float(c.var(ddof=1))
    m4 = float(np.mean(c**4))
    return MonteCarlo(
        n,
        entries,
        S,
        float(v.mean()),
        float(v.std(ddof=1) / math.sqrt(S)),
        var,
        float(math.sqrt(max(m4 - var**2, 0.0) / S)),
    )


def chi_mean(k: float) -> float:
    """The paper's E|lambda_k| = sqrt(2) Gamma((k+1)/2) / Gamma(k/2) (Eq. 25), the mean of chi_k."""
    return math.sqrt(2.0) * math.exp(
        special.gammaln((k + 1) / 2) - special.gammaln(k / 2)
    )


def chi_var(k: float) -> float:
    """Var chi_k = k - (E chi_k)^2 (Eq. 26)."""
    return k - chi_mean(k) ** 2


def kostlan_mean(k: float) -> float:
    """E sqrt(Gamma(k, 1)) = Gamma(k + 1/2) / Gamma(k): the modulus of Kostlan's k-th complex Ginibre eigenvalue."""
    return math.exp(special.gammaln(k + 0.5) - special.gammaln(k))


def kostlan_var(k: float) -> float:
    """Var sqrt(Gamma(k, 1)) = k - (Gamma(k + 1/2) / Gamma(k))^2."""
    return k - kostlan_mean(k) ** 2


def mean_modulus(n: int, law: Literal["chi", "kostlan"]) -> float:
    """E of the average eigenvalue modulus (1/n) sum_k E|lambda_k| under the paper's chi_k law or Kostlan's."""
    f = chi_mean if law == "chi" else kostlan_mean
    return float(np.mean([f(k) for k in range(1, n + 1)]))


def ginibre_radius_moments(n: int) -> tuple[float, float]:
    """Exact E rho and Var rho of a complex Ginibre matrix (Kostlan): P(rho <= r) = prod_{k=1}^{n} P(k, r^2),
    P the regularized lower incomplete gamma function; E rho = int (1 - F), E rho^2 = int 2 r (1 - F)."""
    ks = np.arange(1, n + 1)

    def tail(r: float) -> float:
        return 1.0 - float(
            np.exp(np.sum(np.log(np.maximum(special.gammainc(ks, r * r), 1e-300))))
        )

    hi = math.sqrt(n) + 12.0
    pts = [math.sqrt(n) - 2, math.sqrt(n), math.sqrt(n) + 2] if n > 4 else None
    m1 = integrate.quad(tail, 0, hi, points=pts, limit=200)[0]
    m2 = integrate.quad(lambda r: 2 * r * tail(r), 0, hi, points=pts, limit=200)[0]
    return m1, m2 - m1 * m1


def bonferroni_z(level: float, tests: int) -> float:
    """Two-sided critical |z| for a family of ``tests`` tests at family-wise level ``level``."""
    return float(special.ndtri(1 - level / (2 * tests)))


@dataclass(frozen=True)
class VarianceLimit:
    name: str
    log_ratio_series: sp.Expr  # log Gamma(u + 1/2) - log Gamma(u), u -> oo
    mean_squared: sp.Expr  # (E|lambda_k|)^2 to O(1/k)
    limit: sp.Expr  # lim_{k -> oo} (k - mean_squared)


@lru_cache(maxsize=None)
def variance_limits() -> tuple[VarianceLimit, VarianceLimit]:
    """lim_{k->oo} Var|lambda_k| for the paper's chi_k (Eq. 26) and for Kostlan's chi_{2k}/sqrt 2.

    Sympy's asymptotic series log Gamma(u + 1/2) - log Gamma(u) = log(u)/2 - 1/(8u) + O(u^-3) gives
    (E chi_k)^2 = 2 exp(2 series(u = k/2)) and (E sqrt Gamma(k))^2 = exp(2 series(u = k))."""
    u, k = sp.symbols("u k", positive=True)
    s = sp.series(
        sp.loggamma(u + sp.Rational(1, 2)) - sp.loggamma(u), u, sp.oo, 3
    ).removeO()
    s = sp.expand_log(sp.simplify(s), force=True)
    out = []
    for name, sq in (
        ("chi_k (paper, Eq. 26)", 2 * sp.exp(2 * s.subs(u, k / 2))),
        ("Kostlan, chi_2k / sqrt(2)", sp.exp(2 * s.subs(u, k))),
    ):
        sq = sp.simplify(sq)
        out.append(VarianceLimit(name, s, sq, sp.limit(k - sq, k, sp.oo)))
    return out[0], out[1]
