"""Gradient paths on the time-depth grid of a deep RNN: Herranz-Celotti & Rouat, Lemma 2 (App. C).

Lemma 2 counts the chains of transition derivatives from (t, L) down to (t', l) as the shortest paths
of a rectangular grid of sides Delta t = t - t' and Delta l = L - l, i.e. binom(Delta l + Delta t, Delta t),
and sums them into (1/T) binom(T + Delta l + 2, T) (Eqs. 27-29). This module

* redoes the two parallel-summation steps (28) and the total (29) with sympy;
* counts grid paths by brute force (enumeration and dynamic programming, no binomials);
* counts gradient paths on the computational graph itself by autograd, on the PascalRNN
  h_{t,l} = rho h_{t-1,l} + rho h_{t-1,l-1} of the paper (its Eq. (1): the depth edge also steps back
  in time) and on the usual stacked RNN h_{t,l} = g(h_{t-1,l}, h_{t,l-1}); with rho = 1 and scalar
  states, dh_{T,L}/dh_{t,l} is exactly the number of paths.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from functools import lru_cache
from math import comb
from typing import Literal

import numpy as np
import sympy as sp
import torch

Convention = Literal["eq1", "stacked"]
CONVENTIONS: tuple[Convention, ...] = ("eq1", "stacked")


def is_convention(name: str) -> bool:
    """Whether ``name`` is one of the two graphs, ``eq1`` or ``stacked``."""
    return name in CONVENTIONS


k, t, T, dl = sp.symbols("k t T Delta_l", integer=True, nonnegative=True)
dl_pos = sp.Symbol(
    "Delta_l", integer=True, positive=True
)  # Delta l >= 1: the Eq. (1) graph differs only there


@dataclass(frozen=True)
class SumStep:
    lhs: sp.Expr  # the unevaluated sum
    evaluated: sp.Expr  # what sympy's summation returns
    paper: sp.Expr  # the paper's closed form
    difference: sp.Expr  # simplify(evaluated - paper); 0 means proven

    @property
    def proven(self) -> bool:
        return self.difference == 0

    def latex(self, between: str = " = ", label: str = "") -> str:
        """``lhs = evaluated <between> paper   difference: ...`` for display."""
        return (
            f"{sp.latex(self.lhs)} = {sp.latex(self.evaluated)}{between}"
            f"{sp.latex(self.paper)}\\qquad\\text{{difference: }}"
            f"{sp.latex(self.difference)}" + (rf"\quad{label}" if label else "")
        )


def _step(summand: sp.Expr, var: sp.Symbol, upper: sp.Expr, paper: sp.Expr) -> SumStep:
    lhs = sp.Sum(summand, (var, 0, upper))
    evaluated = sp.summation(summand, (var, 0, upper))
    return SumStep(lhs, evaluated, paper, sp.simplify(sp.combsimp(evaluated - paper)))


@lru_cache(maxsize=None)
def lemma2_steps() -> tuple[SumStep, SumStep]:
    """Eq. (28): sum_{Dt=0}^{t} C(Dl+Dt, Dt) = C(Dl+t+1, t); Eq. (29): sum_{t=0}^{T} C(Dl+t+1, t) = C(Dl+T+2, T)."""
    s28 = _step(sp.binomial(dl + k, k), k, t, sp.binomial(dl + t + 1, t))
    s29 = _step(sp.binomial(dl + t + 1, t), t, T, sp.binomial(dl + T + 2, T))
    return s28, s29


@lru_cache(maxsize=None)
def eq1_sum_steps() -> tuple[SumStep, SumStep]:
    """The same two sums for the count binom(Dt, Dl) of the Eq. (1) graph, for Dl >= 1 (for Dl = 0 both
    counts are 1): sum_{Dt=0}^{t} C(Dt, Dl) = C(t+1, Dl+1) and sum_{t=0}^{T} C(t+1, Dl+1) = C(T+2, Dl+2)."""
    s1 = _step(sp.binomial(k, dl_pos), k, t, sp.binomial(t + 1, dl_pos + 1))
    s2 = _step(sp.binomial(t + 1, dl_pos + 1), t, T, sp.binomial(T + 2, dl_pos + 2))
    return s1, s2


def paper_total(T_: int, dl_: int) -> int:
    """T times Lemma 2's quantity: binom(T + Delta l + 2, T), exact."""
    return comb(T_ + dl_ + 2, T_)


def eq1_total(T_: int, dl_: int) -> int:
    """T times the Lemma 2 sum on the Eq. (1) graph: binom(T + 2, Delta l + 2), exact."""
    return comb(T_ + 2, dl_ + 2)


def enumerate_grid_paths(dt: int, dl_: int) -> int:
    """Shortest paths between opposite corners of a dt x dl grid, by listing every move sequence."""
    n = 0
    for moves in itertools.product("td", repeat=dt + dl_):
        n += moves.count("t") == dt
    return n


def grid_paths_dp(dt_max: int, dl_max: int) -> np.ndarray:
    """P[dt, dl] = number of monotone lattice paths, by dynamic programming (object ints: exact)."""
    P = np.zeros((dt_max + 1, dl_max + 1), dtype=object)
    P[0, :] = 1
    P[:, 0] = 1
    for a in range(1, dt_max + 1):
        for b in range(1, dl_max + 1):
            P[a, b] = P[a - 1, b] + P[a, b - 1]
    return P


def lemma2_sum_bruteforce(T_: int, dl_: int) -> int:
    """sum_{t=0}^{T} sum_{t'<=t} #paths(t - t', Delta l), with the path counts from dynamic programming."""
    P = grid_paths_dp(T_, dl_)
    return int(sum(P[t_ - tp, dl_] for t_ in range(T_ + 1) for tp in range(t_ + 1)))


def pascal_rnn(
    x: torch.Tensor,
    L: int,
    rho: float,
    convention: Convention = "eq1",
    probe: torch.Tensor | None = None,
) -> torch.Tensor:
    """The PascalRNN with scalar states on the grid t = 0..T, l = 0..L; returns h of shape (T+1, L+1).

    ``eq1``: h_{t,l} = rho h_{t-1,l} + rho h_{t-1,l-1} (the paper's Eq. (1) and Fig. 1c);
    ``stacked``: h_{t,l} = rho h_{t-1,l} + rho h_{t,l-1} (a stacked RNN whose layer l reads layer l-1 at
    the same time step). h_{t,0} = x_t is the input and h_{-1,l} = 0. ``probe`` (same shape as h, zeros)
    is added to every state so that d(out)/d(probe) = d(out)/dh at every node.
    """
    if convention not in CONVENTIONS:
        raise ValueError(f"convention = {convention!r}: must be one of {CONVENTIONS}")
    if L < 1:
        raise ValueError(f"L = {L!r}: must be a positive integer")
    T1 = x.shape[0]
    probe = torch.zeros(T1, L + 1, dtype=x.dtype) if probe is None else probe
    rows = []
    prev = torch.zeros(L + 1, dtype=x.dtype)
    for t_ in range(T1):
        if convention == "eq1":
            below = torch.cat(
                [x[t_ : t_ + 1], prev[:-1]]
            )  # h_{t-1,l-1}; layer 0 is the input
            row = (
                torch.cat([x[t_ : t_ + 1], rho * prev[1:] + rho * below[1:]])
                + probe[t_]
            )
        else:
            cells = [x[t_] + probe[t_, 0]]
            for l_ in range(1, L + 1):
                cells.append(rho * prev[l_] + rho * cells[-1] + probe[t_, l_])
            row = torch.stack(cells)
        rows.append(row)
        prev = row
    return torch.stack(rows)


def autograd_path_counts(T_: int, L: int, convention: Convention) -> np.ndarray:
    """A[t, l] = dh_{T,L}/dh_{t,l} of the PascalRNN with rho = 1, by autograd: the number of gradient paths.

    Column l = 0 is the input, which has no time edge; the layers with parameters are l = 1..L."""
    probe = torch.zeros(T_ + 1, L + 1, dtype=torch.float64, requires_grad=True)
    x = torch.zeros(T_ + 1, dtype=torch.float64)
    h = pascal_rnn(x, L, 1.0, convention, probe)
    (grad,) = torch.autograd.grad(h[-1, -1], probe)
    return grad.numpy()


def autograd_lemma2_sums(T_: int, L: int, convention: Convention) -> np.ndarray:
    """S[l] = sum_t sum_{t'<=t} dh_{t,L}/dh_{t',l} (rho = 1), by autograd of sum_t h_{t,L}: the
    un-normalised left side of Lemma 2 for Delta l = L - l, on the network's own graph."""
    probe = torch.zeros(T_ + 1, L + 1, dtype=torch.float64, requires_grad=True)
    x = torch.zeros(T_ + 1, dtype=torch.float64)
    h = pascal_rnn(x, L, 1.0, convention, probe)
    (grad,) = torch.autograd.grad(h[:, -1].sum(), probe)
    return grad.sum(0).numpy()


# ---- the checks of the chapter "Counting gradient paths" ------------------------------------


def identity_check(T_max: int, dl_max: int) -> dict:
    """Lemma 2's identity, proven by sympy (Eqs. 28-29) and checked by brute force (dynamic
    programming, no binomials) against binom(T + Delta l + 2, T) for T = 1..T_max and
    Delta l = 0..dl_max."""
    s28, s29 = lemma2_steps()
    mismatches, pairs = 0, 0
    for T_ in range(1, T_max + 1):
        for dl_ in range(dl_max + 1):
            pairs += 1
            mismatches += lemma2_sum_bruteforce(T_, dl_) != paper_total(T_, dl_)
    return dict(
        d28=str(s28.difference),
        d29=str(s29.difference),
        proven=s28.proven and s29.proven,
        mismatches=int(mismatches),
        pairs=pairs,
        T_max=T_max,
        dl_max=dl_max,
    )


def enumeration_check(total_max: int) -> dict:
    """Every grid with Delta t + Delta l <= total_max: explicit enumeration of the move sequences
    against binom(Delta l + Delta t, Delta t)."""
    bad, pairs = 0, 0
    for dt in range(total_max + 1):
        for dl_ in range(total_max + 1 - dt):
            pairs += 1
            bad += enumerate_grid_paths(dt, dl_) != comb(dt + dl_, dt)
    return dict(mismatches=int(bad), grids=pairs, enum_max=total_max)


@dataclass(frozen=True)
class GraphCounts:
    """Gradient paths from (T, L) to every (t, l) on both graphs (autograd, rho = 1), with the
    paper's binom(Delta l + Delta t, Delta t) and Eq. (1)'s binom(Delta t, Delta l); rows t = 0..T,
    columns l = 0..L."""

    T: int
    L: int
    eq1: np.ndarray
    stacked: np.ndarray
    paper: np.ndarray
    eq1_formula: np.ndarray

    def check(self) -> dict:
        """Cell mismatches over the layers with parameters, l = 1..L (l = 0 is the input)."""
        eq1, stk = self.eq1[:, 1:], self.stacked[:, 1:]
        paper, formula = self.paper[:, 1:], self.eq1_formula[:, 1:]
        return dict(
            T=self.T,
            L=self.L,
            cells=int(eq1.size),
            eq1_vs_paper=int(np.sum(eq1 != paper)),
            eq1_as_formula=int(np.sum(eq1 == formula)),
            stacked_vs_paper=int(np.sum(stk != paper)),
        )

    def table(self, rows: int = 6, cols: int = 5) -> str:
        """Markdown: the counts for Delta t = 0..rows (lines) and Delta l = 0..cols-1 (lists)."""

        def cell(A, d):
            return A[self.T - d, ::-1][: self.L][:cols].astype(int).tolist()

        head = (
            "| $\\Delta t$ | Eq. (1) graph, autograd | $\\binom{\\Delta t}{\\Delta l}$ "
            "| stacked graph, autograd | paper $\\binom{\\Delta l+\\Delta t}{\\Delta t}$ |\n"
            "|---|---|---|---|---|\n"
        )
        arrays = (self.eq1, self.eq1_formula, self.stacked, self.paper)
        return head + "\n".join(
            f"| {d} | " + " | ".join(str(cell(A, d)) for A in arrays) + " |"
            for d in range(min(self.T, rows) + 1)
        )


def graph_counts(T_: int, L: int) -> GraphCounts:
    """:func:`autograd_path_counts` on both graphs, with the two closed forms."""
    dts = np.arange(T_, -1, -1)[:, None]  # Delta t = T - t, per row t
    dls = (L - np.arange(L + 1))[None, :]  # Delta l = L - l, per column l
    return GraphCounts(
        T_,
        L,
        autograd_path_counts(T_, L, "eq1"),
        autograd_path_counts(T_, L, "stacked"),
        np.vectorize(lambda a, b: comb(a + b, a))(dts, dls).astype(float),
        np.vectorize(lambda a, b: comb(a, b))(dts, dls).astype(float),
    )


@dataclass(frozen=True)
class Lemma2Sums:
    """Lemma 2's (un-normalised) sum per layer l = L..1, i.e. Delta l = 0..L-1: autograd on the
    Eq. (1) graph, its closed form binom(T+2, Delta l+2), autograd on the stacked graph and the
    paper's binom(T + Delta l + 2, T)."""

    T: int
    L: int
    dl: list[int]
    eq1: list[int]
    eq1_formula: list[int]
    stacked: list[int]
    paper: list[int]

    def check(self) -> dict:
        return dict(
            T=self.T,
            L=self.L,
            dl_top=self.L - 1,
            eq1_ok=all(a == b for a, b in zip(self.eq1, self.eq1_formula)),
            eq1_paper=sum(a == b for a, b in zip(self.eq1, self.paper)),
            rows=len(self.dl),
            stacked_ok=all(a == b for a, b in zip(self.stacked, self.paper)),
        )

    def table(self) -> str:
        head = (
            f"$T={self.T}$: \n\n| $\\Delta l$ | Eq. (1), autograd | "
            "$\\binom{T+2}{\\Delta l+2}$ | stacked, autograd | "
            "paper $\\binom{T+\\Delta l+2}{T}$ |\n|---|---|---|---|---|\n"
        )
        cols = (self.dl, self.eq1, self.eq1_formula, self.stacked, self.paper)
        return head + "\n".join(
            "| " + " | ".join(str(c[i]) for c in cols) + " |"
            for i in range(len(self.dl))
        )


def lemma2_sums(T_: int, L: int) -> Lemma2Sums:
    """:func:`autograd_lemma2_sums` on both graphs against the two closed forms."""
    S_eq1 = autograd_lemma2_sums(T_, L, "eq1")
    S_stk = autograd_lemma2_sums(T_, L, "stacked")
    ls = np.arange(1, L + 1)[::-1]
    return Lemma2Sums(
        T_,
        L,
        [int(L - l) for l in ls],
        [int(S_eq1[l]) for l in ls],
        [eq1_total(T_, L - l) for l in ls],
        [int(S_stk[l]) for l in ls],
        [paper_total(T_, L - l) for l in ls],
    )


def corrected_regimes(ratio: int = 100, dl_fixed: int = 5) -> dict:
    """Lemma 2's regimes for the Eq. (1) count binom(T + 2, Delta l + 2), with big integers:
    the log-log slope in T at Delta l = dl_fixed (T = 1000..8000; a polynomial of degree
    Delta l + 2) and the growth rate of its log per time step at T = ratio Delta l (fitted on
    the upper half of T = ratio..40 ratio), against the entropy limit H(1/ratio)."""
    Ts = np.array([ratio * d for d in range(1, 41)])
    logc = np.array(
        [np.log(float(comb(int(t_) + 2, int(t_) // ratio + 2))) for t_ in Ts]
    )
    rate = np.polyfit(Ts[len(Ts) // 2 :], logc[len(Ts) // 2 :], 1)[0]
    p = 1 / ratio
    entropy = -(p * np.log(p) + (1 - p) * np.log(1 - p))
    T_big = np.array([1000, 2000, 4000, 8000])
    logs = [np.log(float(comb(int(t_) + 2, dl_fixed + 2))) for t_ in T_big]
    poly_deg = np.polyfit(np.log(T_big), logs, 1)[0]
    return dict(rate=float(rate), entropy=float(entropy), poly_deg=float(poly_deg))
