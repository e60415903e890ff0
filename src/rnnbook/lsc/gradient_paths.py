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
