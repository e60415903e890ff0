"""How fast the number of gradient paths grows: Herranz-Celotti & Rouat, Fig. 1b, Lemma 2's limits
(App. C, Eqs. 30-33) and Theorem 4.

Fig. 1b plots the number of shortest paths across a grid of sides T and Delta l, binom(T + Delta l, T),
in three regimes: (i) T grows with Delta l fixed, (ii) Delta l grows with T fixed, (iii) both grow with
T / Delta l fixed. Lemma 2's quantity (1/T) binom(T + Delta l + 2, T) has the same three regimes. This
module evaluates both exactly with Python's big integers (no float overflow), derives the growth with
sympy (ratio tests, polynomial degrees and the exponential rate), checks the inequalities of the proof
(Eqs. 30-33) with 50-digit arithmetic, and proves Theorem 4 (e^{x/e} >= x) symbolically.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from math import comb

import mpmath
import numpy as np
import sympy as sp

T, dl = sp.symbols("T Delta_l", positive=True, integer=True)
m = sp.Symbol("m", positive=True, integer=True)  # Delta l in regime (iii), T = k m
kk = sp.Symbol("k", positive=True)  # the fixed ratio T / Delta l
x = sp.Symbol("x", real=True)


def grid_paths(T_: int, dl_: int) -> int:
    """binom(T + Delta l, T): the paths of Fig. 1b, exact."""
    return comb(T_ + dl_, T_)


def lemma2_quantity(T_: int, dl_: int) -> float:
    """log of Lemma 2's (1/T) binom(T + Delta l + 2, T), from the exact integer (no overflow)."""
    return math.log(comb(T_ + dl_ + 2, T_)) - math.log(T_)


def log_grid_paths(T_: int, dl_: int) -> float:
    """Natural log of binom(T + Delta l, T), from the exact integer."""
    return math.log(grid_paths(T_, dl_))


@dataclass(frozen=True)
class Regime:
    """One panel of Fig. 1b: the abscissa, and the logs of both counts along it."""

    name: str
    xlabel: str
    x: np.ndarray  # T in (i) and (iii), Delta l in (ii)
    T: np.ndarray
    dl: np.ndarray
    log_paths: np.ndarray  # log binom(T + Delta l, T)
    log_lemma2: np.ndarray  # log (1/T) binom(T + Delta l + 2, T)


def fig1b_regimes(
    T_max: int = 10_000,
    dl_max: int = 100,
    dl_fixed: int = 5,
    T_fixed: int = 5,
    ratio: int = 100,
    points: int = 200,
) -> tuple[Regime, Regime, Regime]:
    """The three panels of Fig. 1b with exact integers: (i) T = 1..T_max at Delta l = dl_fixed;
    (ii) Delta l = 1..dl_max at T = T_fixed; (iii) T = ratio * Delta l up to T_max."""

    def make(name, xlabel, xs, Ts, dls):
        return Regime(
            name,
            xlabel,
            np.asarray(xs, float),
            np.asarray(Ts),
            np.asarray(dls),
            np.array([log_grid_paths(int(a), int(b)) for a, b in zip(Ts, dls)]),
            np.array([lemma2_quantity(int(a), int(b)) for a, b in zip(Ts, dls)]),
        )

    Ti = np.unique(np.geomspace(1, T_max, points).astype(int))
    dli = np.unique(np.linspace(1, dl_max, min(points, dl_max)).astype(int))
    dliii = np.unique(
        np.linspace(1, T_max // ratio, min(points, T_max // ratio)).astype(int)
    )
    return (
        make("i", "T", Ti, Ti, np.full_like(Ti, dl_fixed)),
        make("ii", r"\Delta l", dli, np.full_like(dli, T_fixed), dli),
        make("iii", "T", ratio * dliii, ratio * dliii, dliii),
    )


@dataclass(frozen=True)
class GrowthLaw:
    """A ratio test f(n+1)/f(n), its limit, and the growth it implies."""

    f: sp.Expr
    variable: sp.Symbol
    ratio: sp.Expr
    ratio_limit: sp.Expr
    degree: sp.Expr  # lim n (ratio - 1): the polynomial degree when ratio_limit == 1

    def latex(self, name: str) -> str:
        v = sp.latex(self.variable)
        return (
            rf"\text{{{name}:}}\quad \frac{{f({v}+1)}}{{f({v})}} = "
            + sp.latex(self.ratio)
            + r"\;\to\;"
            + sp.latex(self.ratio_limit)
            + r",\qquad \text{degree } \lim n\Big(\frac{f(n+1)}{f(n)}-1\Big) = "
            + sp.latex(self.degree)
        )


def _growth(f: sp.Expr, var: sp.Symbol) -> GrowthLaw:
    r = sp.simplify(sp.combsimp(f.subs(var, var + 1) / f))
    return GrowthLaw(
        f,
        var,
        r,
        sp.limit(r, var, sp.oo),
        sp.limit(sp.simplify(var * (r - 1)), var, sp.oo),
    )


@lru_cache(maxsize=None)
def sub_exponential_laws() -> dict[str, GrowthLaw]:
    """Regimes (i) and (ii) for the grid count binom(T + Delta l, T) and Lemma 2's quantity.

    A ratio f(n+1)/f(n) tending to 1 means a zero exponential rate (sub-exponential growth); the limit of
    n (ratio - 1) is then the polynomial degree."""
    paths = sp.binomial(T + dl, T)
    lemma2 = sp.binomial(T + dl + 2, T) / T
    return {
        "paths, (i) T grows": _growth(paths, T),
        "paths, (ii) Delta l grows": _growth(paths, dl),
        "Lemma 2, (i) T grows": _growth(lemma2, T),
        "Lemma 2, (ii) Delta l grows": _growth(lemma2, dl),
    }


@lru_cache(maxsize=None)
def exponential_rate() -> tuple[sp.Expr, sp.Expr]:
    """Regime (iii): with T = k m and Delta l = m, lim_{m->oo} (1/m) log binom(T + Delta l + 2, T), from
    sympy's asymptotic (Stirling) series of log Gamma at infinity. The 1/T factor of Lemma 2 and the +2 do
    not change it. Returns (the rate per unit Delta l, the rate per time step = that / k)."""
    z = sp.Symbol("z", positive=True)
    stirling = sp.series(sp.loggamma(z), z, sp.oo, 2).removeO()
    expr = (
        stirling.subs(z, (kk + 1) * m + 3)
        - stirling.subs(z, kk * m + 1)
        - stirling.subs(z, m + 3)
    ) / m
    rate = sp.simplify(sp.limit(expr, m, sp.oo))
    return rate, sp.simplify(rate / kk)


def exponential_rate_latex() -> str:
    rate, rate_T = exponential_rate()
    return (
        r"\text{(iii)}\; T=k\,\Delta l:\quad \lim_{\Delta l\to\infty}\frac{1}{\Delta l}"
        r"\log\binom{T+\Delta l+2}{T} = "
        + sp.latex(rate)
        + r",\qquad \text{per time step: } "
        + sp.latex(rate_T)
    )


def local_slopes(x: np.ndarray, logf: np.ndarray, log_x: bool) -> np.ndarray:
    """d log f / d log x (log_x) or d log f / d x between consecutive points: the local growth law."""
    xx = np.log(x) if log_x else x
    return np.diff(logf) / np.diff(xx)


def far_slopes(
    dl_fixed: int, T_fixed: int, ratio: int, x_far: int = 100_000
) -> dict[str, float]:
    """The exact counts' growth far out, between x and 2x (exact integers): d log f / d log T in (i) at
    T = x_far, d log f / d log Delta l in (ii) at Delta l = x_far / 10, and d log f / dT in (iii) at T = x_far,
    for the grid paths ("paths") and Lemma 2's quantity ("lemma2")."""

    def pair(f, a, b, log_x):
        return (f(*b) - f(*a)) / (
            math.log(b[2]) - math.log(a[2]) if log_x else b[2] - a[2]
        )

    P = lambda T_, d_, _x: log_grid_paths(T_, d_)  # noqa: E731
    Q = lambda T_, d_, _x: lemma2_quantity(T_, d_)  # noqa: E731
    xi, xii, xiii = x_far, x_far // 10, (x_far // ratio) * ratio
    out = {}
    for name, f in (("paths", P), ("lemma2", Q)):
        out[f"(i) {name}"] = pair(
            f, (xi, dl_fixed, xi), (2 * xi, dl_fixed, 2 * xi), True
        )
        out[f"(ii) {name}"] = pair(
            f, (T_fixed, xii, xii), (T_fixed, 2 * xii, 2 * xii), True
        )
        out[f"(iii) {name}"] = pair(
            f,
            (xiii, xiii // ratio, xiii),
            (2 * xiii, 2 * xiii // ratio, 2 * xiii),
            False,
        )
    return out


# ---- the inequalities of the proof, Eqs. (30)-(33), in 50-digit arithmetic ---------------------------


def _mp(n: int) -> mpmath.mpf:
    return mpmath.mpf(n)


def eq30_holds(T_: int, dl_: int) -> bool:
    """(1/T) binom(T + Dl + 2, T) <= (e^T / T) ((T + Dl + 2) / T)^T   (Eq. 30, from binom(n,k) <= (en/k)^k)."""
    with mpmath.workdps(50):
        lhs = mpmath.mpf(comb(T_ + dl_ + 2, T_)) / T_
        return lhs <= mpmath.e**T_ / T_ * (_mp(T_ + dl_ + 2) / T_) ** T_


def eq31_holds(T_: int, dl_: int) -> bool:
    """(1/T) binom(T + Dl + 2, T) < (1/T) (T + Dl + 2)^(Dl + 3) / (Dl + 2)!   (Eq. 31, last line)."""
    with mpmath.workdps(50):
        lhs = mpmath.mpf(comb(T_ + dl_ + 2, T_)) / T_
        return lhs < _mp(T_ + dl_ + 2) ** (dl_ + 3) / (T_ * mpmath.factorial(dl_ + 2))


def eq33_terms(k: int, dl_: int) -> dict[str, bool]:
    """Regime (iii) with T = k Delta l and a = 1 + 1/k. Returns whether, at this Delta l,

    * ``eq32``: (1/T) binom(...) > e^{2/a}/(k Dl) a^{k Dl} (1 + 2/(a k Dl))^{-2/a}  (end of Eq. 32);
    * ``step``: a^{k Dl}/(k Dl) > a^{k Dl / 2}, the step of Eq. 33 that invokes Theorem 4;
    * ``step_corrected``: a^{k Dl}/(k Dl) > ln(a) a^{k Dl / 2}, what Theorem 4 gives with x = k Dl ln a;
    * ``eq33``: (1/T) binom(...) > e^{2/a} a^{k Dl/2} (1 + 2/(a k))^{-2/a}  (Eq. 33, final line).
    """
    with mpmath.workdps(50):
        a = 1 + mpmath.mpf(1) / k
        n = k * dl_
        lhs = mpmath.mpf(comb(n + dl_ + 2, n)) / n
        e2a = mpmath.e ** (2 / a)
        return {
            "eq32": bool(lhs > e2a / n * a**n * (1 + 2 / (a * n)) ** (-2 / a)),
            "step": bool(a**n / n > a ** (mpmath.mpf(n) / 2)),
            "step_corrected": bool(a**n / n > mpmath.log(a) * a ** (mpmath.mpf(n) / 2)),
            "eq33": bool(
                lhs > e2a * a ** (mpmath.mpf(n) / 2) * (1 + 2 / (a * k)) ** (-2 / a)
            ),
        }


# ---- Theorem 4 -----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Theorem4Proof:
    f: sp.Expr
    critical_points: list
    f_at_critical: sp.Expr
    second_derivative_at_critical: sp.Expr
    limit_plus: sp.Expr
    limit_minus: sp.Expr
    sympy_minimum: sp.Expr

    def latex(self) -> tuple[str, str]:
        """The two display lines of the proof: the critical point, then the minimum."""
        return (
            r"f(x) = "
            + sp.latex(self.f)
            + r",\quad f'(x)="
            + sp.latex(sp.diff(self.f, x))
            + r"=0 \iff x\in"
            + sp.latex(set(self.critical_points)),
            r"f(e) = "
            + sp.latex(self.f_at_critical)
            + r",\quad f''(e) = "
            + sp.latex(self.second_derivative_at_critical)
            + r",\quad \lim_{x\to\pm\infty} f = "
            + sp.latex(self.limit_plus)
            + ",\\ "
            + sp.latex(self.limit_minus)
            + r",\quad \min_{x\in\mathbb R} f \;(\text{sympy}) = "
            + sp.latex(self.sympy_minimum),
        )

    def check(self) -> dict:
        """The proof's facts, and the minimum of f on a fine grid of [-50, 50]."""
        xs = np.linspace(-50, 50, 200001)
        return dict(
            critical=str(self.critical_points),
            f_at_e=str(self.f_at_critical),
            minimum=str(self.sympy_minimum),
            proven=self.proven,
            fmin=float(np.min(np.exp(xs / np.e) - xs)),
        )

    @property
    def proven(self) -> bool:
        return (
            self.critical_points == [sp.E]
            and sp.simplify(self.f_at_critical) == 0
            and bool(self.second_derivative_at_critical > 0)
            and self.limit_plus == sp.oo
            and self.limit_minus == sp.oo
            and sp.simplify(self.sympy_minimum) == 0
        )


@lru_cache(maxsize=None)
def theorem4() -> Theorem4Proof:
    """e^{x/e} >= x for all real x (App. C, Eqs. 34-35): f(x) = e^{x/e} - x has one critical point,
    x = e, a minimum with f(e) = 0, and f -> +oo at both ends; sympy's minimum over the reals agrees."""
    f = sp.exp(x / sp.E) - x
    crit = sp.solve(sp.Eq(sp.diff(f, x), 0), x)
    c = crit[0]
    return Theorem4Proof(
        f,
        crit,
        sp.simplify(f.subs(x, c)),
        sp.simplify(sp.diff(f, x, 2).subs(x, c)),
        sp.limit(f, x, sp.oo),
        sp.limit(f, x, -sp.oo),
        sp.calculus.util.minimum(f, x, sp.S.Reals),
    )


# ---- the checks of the chapter "How fast gradient paths multiply" ---------------------------


@dataclass(frozen=True)
class SlopeCheck:
    """The exact counts' local growth against the sympy asymptotes, per regime and count:
    at the right end of each panel of Fig. 1b (``at_end``) and far beyond it (``far``)."""

    expected: dict[str, float]
    at_end: dict[str, float]
    far: dict[str, float]
    limits: list[str]
    degrees: list[str]
    limits_one: bool
    rate: float
    ratio: int

    @property
    def gap(self) -> dict[str, float]:
        return {
            k: abs(self.far[k] - self.expected[k]) / abs(self.expected[k])
            for k in self.expected
        }

    def table(self) -> str:
        rows = [
            f"| {k} | {self.at_end[k]:.4f} | {self.far[k]:.4f} | {self.expected[k]:.4f} "
            f"| {self.gap[k]:.2%} |"
            for k in self.expected
        ]
        return (
            "| regime, count | slope at the panel's end | slope far out | sympy asymptote "
            "| gap far out |\n|---|---|---|---|---|\n" + "\n".join(rows)
        )

    def check(self) -> dict:
        return dict(
            limits=self.limits,
            degrees=self.degrees,
            limits_one=self.limits_one,
            rate=self.rate,
            ratio=self.ratio,
            far={k: round(float(v), 4) for k, v in self.far.items()},
            max_gap=max(self.gap.values()),
        )


def regime_slopes(
    regimes: tuple[Regime, Regime, Regime], dl_fixed: int, T_fixed: int, ratio: int
) -> SlopeCheck:
    """Compare the panels of :func:`fig1b_regimes` and :func:`far_slopes` with the degrees of
    :func:`sub_exponential_laws` and the rate of :func:`exponential_rate` (at k = ratio)."""
    laws = sub_exponential_laws()
    rate_T = float(exponential_rate()[1].subs(kk, ratio))
    deg = {k: v.degree for k, v in laws.items()}
    expected = {
        "(i) paths": float(deg["paths, (i) T grows"].subs(dl, dl_fixed)),
        "(i) lemma2": float(deg["Lemma 2, (i) T grows"].subs(dl, dl_fixed)),
        "(ii) paths": float(deg["paths, (ii) Delta l grows"].subs(T, T_fixed)),
        "(ii) lemma2": float(deg["Lemma 2, (ii) Delta l grows"].subs(T, T_fixed)),
        "(iii) paths": rate_T,
        "(iii) lemma2": rate_T,
    }
    at_end = {}
    for r, log_x in zip(regimes, (True, True, False)):
        at_end[f"({r.name}) paths"] = local_slopes(r.x, r.log_paths, log_x)[-1]
        at_end[f"({r.name}) lemma2"] = local_slopes(r.x, r.log_lemma2, log_x)[-1]
    return SlopeCheck(
        expected,
        at_end,
        far_slopes(dl_fixed, T_fixed, ratio),
        [str(law.ratio_limit) for law in laws.values()],
        [str(law.degree) for law in laws.values()],
        all(law.ratio_limit == 1 for law in laws.values()),
        rate_T,
        ratio,
    )


@dataclass(frozen=True)
class ProofCheck:
    """Violations of Eqs. (30)-(33) on a grid, and where the step of Eq. (33) fails."""

    grid: list[int]
    ks: list[int]
    eq_grid: int
    viol30: int
    viol31: int
    viol32: int
    viol33: int
    step_fail: dict[int, list[int]]  # per k, the Delta l where the step fails
    corrected_fail: dict[int, int]  # per k, failures of the corrected step

    def summary(self) -> str:
        n = len(self.grid)
        fails = "; ".join(
            f"$k={k}$: $\\Delta l\\in$ {{{', '.join(map(str, v))}}}"
            for k, v in self.step_fail.items()
            if v
        )
        return (
            f"On {n}x{n} grid points: Eq. (30) fails {self.viol30} times, Eq. (31) "
            f"{self.viol31} times. For $\\Delta l=1..{self.eq_grid}$ and $k\\in{self.ks}$: "
            f"the end of Eq. (32) fails {self.viol32} times and the final line of Eq. (33) "
            f"{self.viol33} times. But the middle step of Eq. (33) fails at: " + fails
        )

    def step_table(self) -> str:
        rows = [
            f"| {k} | {v if v else 'never'} | {self.corrected_fail[k]} times |"
            for k, v in self.step_fail.items()
        ]
        return (
            "| $k$ | $\\Delta l$ where $a^{k\\Delta l}/(k\\Delta l) > a^{k\\Delta l/2}$ "
            "fails | corrected step (with $\\ln a$) fails |\n|---|---|---|\n"
            + "\n".join(rows)
        )

    def check(self) -> dict:
        return dict(
            viol30=self.viol30,
            viol31=self.viol31,
            viol32=self.viol32,
            viol33=self.viol33,
            pairs=len(self.grid) ** 2,
            eq_grid=self.eq_grid,
            ks=self.ks,
            fail_k100=self.step_fail.get(100, []),
            n_step_fail=sum(len(v) for v in self.step_fail.values()),
            step_corr_fail=sum(self.corrected_fail.values()),
        )


def proof_inequalities(
    eq_grid: int, ks: tuple[int, ...] = (1, 2, 10, 100)
) -> ProofCheck:
    """Eqs. (30)-(31) on a Fibonacci grid of T and Delta l up to ``eq_grid``, and Eqs. (32)-(33)
    with the step that invokes Theorem 4 for Delta l = 1..eq_grid and T = k Delta l."""
    fib = {1, 2, 3, 5, 8, 13, 21, 34, 55, 89, 144, 233, eq_grid}
    grid = sorted(fib & set(range(1, eq_grid + 1)))
    terms = {k: [eq33_terms(k, d) for d in range(1, eq_grid + 1)] for k in ks}
    return ProofCheck(
        grid,
        list(ks),
        eq_grid,
        sum(not eq30_holds(a, b) for a in grid for b in grid),
        sum(not eq31_holds(a, b) for a in grid for b in grid),
        sum(not t["eq32"] for k in ks for t in terms[k]),
        sum(not t["eq33"] for k in ks for t in terms[k]),
        {k: [d + 1 for d, t in enumerate(terms[k]) if not t["step"]] for k in ks},
        {k: sum(not t["step_corrected"] for t in terms[k]) for k in ks},
    )
