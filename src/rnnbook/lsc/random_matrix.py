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

from rnnbook import plotting

Entries = Literal["gaussian", "uniform", "complex"]
ENTRIES: tuple[Entries, ...] = ("gaussian", "uniform", "complex")
Z99 = 2.576  # the half-width of a 99% normal interval, in standard errors


def is_entries(name: str) -> bool:
    """Whether ``name`` is one of the ensembles, ``gaussian``, ``uniform`` or ``complex``."""
    return name in ENTRIES


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

    def series_latex(self) -> str:
        return (
            r"\log\Gamma(u+\tfrac12)-\log\Gamma(u) = "
            + sp.latex(self.log_ratio_series)
            + r" + O(u^{-3})"
        )

    def latex(self) -> str:
        return (
            r"\text{"
            + self.name
            + r"}:\quad (\mathbb E|\lambda_k|)^2 = "
            + sp.latex(self.mean_squared)
            + r",\qquad \lim_{k\to\infty}\mathrm{Var}|\lambda_k| = "
            r"\lim_{k\to\infty}\big(k - (\mathbb E|\lambda_k|)^2\big) = "
            + sp.latex(self.limit)
        )


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


# ---- the Monte Carlo of the chapter "Spectral radii of random matrices" ---------------------


def samples_for(n: int, samples_at_32: int, min_samples: int) -> int:
    """S(n) = max(S_min, S_32 (32/n)^1.5), at most 20,000: many small matrices, fewer large."""
    return int(min(20000, max(min_samples, round(samples_at_32 * (32 / n) ** 1.5))))


@dataclass
class RadiusStudy:
    """Monte Carlo of the spectral radius (``mc``) and of the mean modulus (``mod``) per
    (entries, n), with the exact complex-Ginibre moments (``kostlan``, per n) and the paper's
    chi_n mean (``chi``, per n)."""

    ns: list[int]
    entries: list[str]
    samples: dict[int, int]
    mc: dict
    mod: dict
    kostlan: dict
    chi: dict

    @property
    def tests(self) -> list[tuple[str, int]]:
        return [(e, n) for e in self.entries for n in self.ns]

    def excess(self, e: str, n: int) -> float:
        """E rho / paper's formula - 1."""
        return self.mc[e, n].mean / self.chi[n] - 1

    def table(self) -> str:
        head = (
            ["$n$", "matrices"]
            + [f"$\\mathbb E\\rho$, {e}" for e in self.entries]
            + [
                "exact, complex (Kostlan)",
                "paper $\\sqrt2\\Gamma(\\frac{n+1}{2})/\\Gamma(\\frac n2)$",
            ]
        )
        rows = [
            f"| {n} | {self.samples[n]} | "
            + " | ".join(
                f"{self.mc[e, n].mean:.4f} ± {Z99 * self.mc[e, n].se_mean:.4f}"
                for e in self.entries
            )
            + f" | {self.kostlan[n][0]:.4f} | {self.chi[n]:.4f} |"
            for n in self.ns
        ]
        return _table(head, rows)

    def radius_mean(self) -> dict:
        """Lemma 1's E rho formula tested at every size and ensemble (two-sided Bonferroni at
        family-wise level 1%), and the exact complex-Ginibre mean tested the same way."""
        zc = bonferroni_z(0.01, len(self.tests))
        z_chi = {k: self.mc[k].z(self.chi[k[1]]) for k in self.tests}
        z_kost = (
            {n: self.mc["complex", n].z(self.kostlan[n][0]) for n in self.ns}
            if "complex" in self.entries
            else {}
        )
        excess = [self.excess(*k) for k in self.tests]
        return dict(
            ns=self.ns,
            entries=", ".join(self.entries),
            excess_min=min(excess),
            excess_max=max(excess),
            rejected=sum(abs(z_chi[k]) > zc for k in self.tests),
            tests=len(self.tests),
            max_z=max(abs(z) for z in z_chi.values()),
            kostlan_rejected=sum(abs(z) > zc for z in z_kost.values()),
            kostlan_sizes=len(z_kost),
            zc=zc,
        )

    def modulus_z(self) -> dict:
        """z of the mean modulus against the chi_k law and Kostlan's, per (entries, n, law)."""
        law = {
            "chi": {n: mean_modulus(n, "chi") for n in self.ns},
            "kostlan": {n: mean_modulus(n, "kostlan") for n in self.ns},
        }
        return {
            (e, n, name): self.mod[e, n].z(law[name][n])
            for e in self.entries
            for n in self.ns
            for name in law
        }

    def modulus_table(self) -> str:
        z = self.modulus_z()
        head = ["$n$"] + [
            f"{e}: mean modulus (z vs $\\chi_k$, z vs Kostlan)" for e in self.entries
        ]
        rows = [
            f"| {n} | "
            + " | ".join(
                f"{self.mod[e, n].mean:.4f} ({z[e, n, 'chi']:.0f}, {z[e, n, 'kostlan']:.1f})"
                for e in self.entries
            )
            + " |"
            for n in self.ns
        ]
        return _table(head, rows)

    def kostlan_check(self) -> dict:
        """The chi_k and Kostlan laws of the mean modulus of complex Gaussian matrices, tested
        at every size (two-sided Bonferroni at family-wise level 1% over sizes)."""
        z, zc = self.modulus_z(), bonferroni_z(0.01, len(self.ns))
        return dict(
            ns=self.ns,
            sizes=len(self.ns),
            chi_rej=sum(abs(z["complex", n, "chi"]) > zc for n in self.ns),
            kos_rej=sum(abs(z["complex", n, "kostlan"]) > zc for n in self.ns),
            zc=zc,
        )

    def variance_check(self) -> dict:
        """The sympy limits of Var|lambda_k| and the Monte Carlo trend of Var rho: does it
        decrease from the smallest to the largest n beyond the 99% intervals?"""
        v_chi, v_kos = variance_limits()
        first, last = self.ns[0], self.ns[-1]
        var = {e: (self.mc[e, first], self.mc[e, last]) for e in self.entries}
        trend = ", ".join(
            f"{e} {a.var:.3f} -> {b.var:.3f}" for e, (a, b) in var.items()
        )
        if "complex" in self.entries:
            k0, k1 = self.kostlan[first][1], self.kostlan[last][1]
            trend += f"; exact complex Ginibre {k0:.3f} -> {k1:.3f}"
        return dict(
            chi_limit=str(v_chi.limit),
            kostlan_limit=str(v_kos.limit),
            first=first,
            last=last,
            trend=trend,
            decreasing=all(
                b.var + Z99 * b.se_var < a.var - Z99 * a.se_var for a, b in var.values()
            ),
        )

    def glorot(self) -> dict:
        """Glorot's layer Jacobian is W = G / sqrt(n): E rho and its 99% half-width per n, for
        Gaussian (Glorot normal) and uniform (Glorot uniform) entries."""
        return {
            e: {
                n: (
                    self.mc[e, n].mean / np.sqrt(n),
                    Z99 * self.mc[e, n].se_mean / np.sqrt(n),
                )
                for n in self.ns
            }
            for e in ("gaussian", "uniform")
            if e in self.entries
        }


def _table(head: list[str], rows: list[str]) -> str:
    return (
        "| " + " | ".join(head) + " |\n|" + "---|" * len(head) + "\n" + "\n".join(rows)
    )


def radius_study(
    ns: list[int],
    entries: list[str],
    samples_at_32: int,
    min_samples: int,
    g: torch.Generator,
) -> RadiusStudy:
    """Spectral radius and mean modulus of :func:`samples_for` matrices per size and ensemble."""
    samples = {n: samples_for(n, samples_at_32, min_samples) for n in ns}
    mc, mod = {}, {}
    for e in entries:
        for n in plotting.progress(ns, desc=e):
            lam = eigen_moduli(samples[n], n, e, g)
            mc[e, n] = summarize(lam.amax(-1), n, e)
            mod[e, n] = summarize(lam.mean(-1), n, e)
    kostlan = {n: ginibre_radius_moments(n) for n in ns}
    chi = {n: chi_mean(n) for n in ns}
    return RadiusStudy(list(ns), list(entries), samples, mc, mod, kostlan, chi)
