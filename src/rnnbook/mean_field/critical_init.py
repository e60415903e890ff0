"""Algorithm 1 (the critical initialization of the minimalRNN) across a grid of (q*, mu_b)
(Chen et al. 2018, Sec. 3.2.2, Algorithm 1, App. C-D).

Algorithm 1 returns sigma_w^2, sigma_v^2, sigma_b^2 and the Q* that solves Eq. (24) for a prescribed q*,
mu_b and R. It is *feasible* where sigma_v^2 >= 0, and its Q* is where a network settles only if it is a
*stable* fixed point of the diagonal map Q^{t-1} -> Q^t (slope below 1, App. D). Where Eq. (24) has
three roots the algorithm can return the unstable middle one; a network started there runs away to a
stable fixed point where chi_1 != 1.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .theory import (
    HP,
    CriticalInit,
    algorithm1,
    minimal_chi1,
    minimal_diag_map,
    minimal_fixed_point,
)

Array = np.ndarray


def diag_slope(Q, hp: HP, eps: float = 1e-6) -> Array:
    """dQ^t/dQ^{t-1} of the diagonal map (Eqs. 21-22) at Q, by a central difference."""
    up = minimal_diag_map(Q * (1 + eps), hp)[0]
    return (up - minimal_diag_map(Q * (1 - eps), hp)[0]) / (2 * eps * Q)


@dataclass(frozen=True)
class Survey:
    """Algorithm 1 on the grid qstar x mu_b (arrays indexed [i_q, j_mu])."""

    qstar: Array
    mu_b: Array
    R: float
    alg: CriticalInit
    stable: Array  # the returned Q* is a stable fixed point
    chi1_formula: Array  # Eq. (13) at the algorithm's own (Q*, q*)
    chi1_settled: Array  # Eq. (13) at the fixed point bisection of Eq. (24) finds
    Q_settled: Array

    @property
    def feasible(self) -> Array:
        return self.alg.feasible

    @property
    def n_feasible(self) -> int:
        return int(self.feasible.sum())

    @property
    def n_unstable(self) -> int:
        return int((self.feasible & ~self.stable).sum())

    @property
    def max_chi1_deviation(self) -> float:
        return float(np.abs(self.chi1_formula[self.feasible] - 1).max())

    @property
    def n_other_fixed_point(self) -> int:
        """Feasible points where bisection finds another fixed point than the algorithm's Q*."""
        Q = self.alg.Qstar
        return int((self.feasible & (np.abs(self.Q_settled - Q) > 1e-6 * Q)).sum())

    def values(self) -> dict:
        """The measured values of the Algorithm 1 claims."""
        return {
            "feasible": self.n_feasible,
            "unstable": self.n_unstable,
            "other": self.n_other_fixed_point,
            "max_dev": self.max_chi1_deviation,
        }

    def unstable_example(self) -> tuple[int, int] | None:
        """The middle one of the feasible grid points with an unstable Q* (None if there is none)."""
        k = np.argwhere(self.feasible & ~self.stable)
        return tuple(int(x) for x in k[len(k) // 2]) if len(k) else None


def survey(qstar, mu_b, R: float) -> Survey:
    """Run Algorithm 1 on the grid ``qstar`` x ``mu_b`` and check chi_1 and the stability of Q*."""
    qstar, mu_b = np.asarray(qstar, float), np.asarray(mu_b, float)
    QQ, MM = np.meshgrid(qstar, mu_b, indexing="ij")
    alg = algorithm1(QQ, MM, R)
    hp = HP(np.sqrt(alg.sigma_w2), np.sqrt(np.maximum(alg.sigma_v2, 0)), MM, R)
    stable = diag_slope(alg.Qstar, hp) < 1
    chi1_formula = alg.Eu2 + alg.sigma_w2 * (alg.Qstar + R) * alg.Eup2
    Q_settled = minimal_fixed_point(hp)[0]
    return Survey(
        qstar, mu_b, R, alg, stable, chi1_formula, minimal_chi1(hp), Q_settled
    )


def runaway(Q0: float, hp: HP, steps: int = 600) -> Array:
    """q^t of the diagonal map iterated from Q^0 = ``Q0`` (t = 1..steps)."""
    Q, out = Q0, []
    for _ in range(steps):
        Q, q = minimal_diag_map(Q, hp)
        out.append(float(q))
    return np.array(out)


def example_hp(s: Survey, i: int, j: int) -> HP:
    """The hyperparameters Algorithm 1 returns at grid point (i, j)."""
    a = s.alg
    return HP(np.sqrt(a.sigma_w2[i, j]), np.sqrt(a.sigma_v2[i, j]), s.mu_b[j], s.R)
