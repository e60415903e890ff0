"""The order-to-chaos critical point of the minimalRNN and the timescale around it (Chen et al. 2018,
Sec. 3.2.1, Fig. 1c and 1e).

chi_1 = mu_1 + mu_2 (Eq. 13) decides the phase: c* = 1 is stable (ordered) where chi_1 < 1 and the
network is chaotic where chi_1 > 1. Here: the roots of chi_1(mu_b) = 1 along a line of bias means
(a vectorised bisection on every sign change of a grid), the fixed point c* and the timescale
tau = -1/log chi_{c*} (Eq. 9) over that line for several input similarities Sigma_12, a summary of how
tau behaves near the critical point and at large mu_b, and Algorithm 1 solved for the q* that gives a
prescribed sigma_w.
"""

from __future__ import annotations

import numpy as np
from scipy.optimize import brentq

from .theory import (
    HP,
    algorithm1,
    minimal_chi,
    minimal_chi1,
    minimal_cstar,
    minimal_fixed_point,
    timescale,
)

Array = np.ndarray


def chi1_roots(
    sigma_w: float, sigma_v: float, R: float, mu_grid: Array, iters: int = 40
) -> Array:
    """Every root of chi_1(mu_b) = 1 between the points of ``mu_grid``: one per sign change of
    chi_1 - 1 on the grid, refined by a bisection run on all of them at once.

    A sign change need not be a smooth crossing: where the fixed point Q* of Eq. (24) (found by
    bisection) changes branch, chi_1 jumps, and the bisection converges to the jump."""
    mu_grid = np.asarray(mu_grid, float)

    def g(mu):
        return minimal_chi1(HP(sigma_w, sigma_v, mu, R)) - 1.0

    sgn = np.sign(g(mu_grid))
    idx = np.nonzero(np.diff(sgn) != 0)[0]
    lo, hi, s_lo = mu_grid[idx], mu_grid[idx + 1], sgn[idx]
    for _ in range(iters):
        mid = 0.5 * (lo + hi)
        same = np.sign(g(mid)) == s_lo
        lo, hi = np.where(same, mid, lo), np.where(same, hi, mid)
    return 0.5 * (lo + hi)


def root_values(roots: Array) -> dict:
    """The roots, the one nearest 0 and the one farthest from 0 (nan where there is none)."""
    roots = np.asarray(roots, float)
    a = np.abs(roots)
    return {
        "roots": roots.tolist(),
        "roots_shown": np.round(roots, 4).tolist(),
        "nearest": float(roots[np.argmin(a)]) if roots.size else float("nan"),
        "farthest": float(roots[np.argmax(a)]) if roots.size > 1 else float("nan"),
    }


def describe(roots: Array, Sigmas, peak) -> str:
    """The roots of chi_1 = 1 and the largest tau near mu_b = 0 per Sigma_12, as one Markdown line."""
    peaks = ", ".join(f"$\\Sigma_{{12}}={S}$: {p:.3g}" for S, p in zip(Sigmas, peak))
    return (
        f"Roots of $\\chi_1(\\mu_b)=1$ in $[-4,8]$: {', '.join(f'{r:.3f}' for r in roots)}. "
        f"Largest $\\tau$ on $|\\mu_b|\\le1$: {peaks}."
    )


def timescales(hp: HP, Sigmas=(1.0, 0.99, 0.0)) -> dict[float, tuple[Array, Array]]:
    """Sigma_12 -> (c*, tau) of the minimalRNN at the settings of ``hp`` (Fig. 1c, 1e)."""
    q = minimal_fixed_point(hp)[1]
    out = {}
    for S in Sigmas:
        cstar = minimal_cstar(S, hp, q)
        out[S] = (cstar, timescale(minimal_chi(cstar, S, hp, q)))
    return out


def timescale_summary(
    mu_grid: Array, curves: dict, near: float = 1.0, large: float = 6.0
) -> dict:
    """Per Sigma_12 (in the order of ``curves``, Sigma_12 -> (c*, tau)): the largest tau on
    |mu_b| <= ``near`` (an infinite tau counts as 1e9), tau at the end of the grid, and whether tau
    increases on mu_b >= ``large`` and exceeds 100 at the end."""
    mu_grid = np.asarray(mu_grid)
    near0, big = np.abs(mu_grid) <= near, mu_grid >= large
    peak, end, grows = [], [], []
    for _, tau in curves.values():
        t = tau[near0]
        peak.append(float(np.nanmax(np.where(np.isfinite(t), t, 1e9))))
        end.append(float(tau[-1]))
        grows.append(bool(np.all(np.diff(tau[big]) > 0) and tau[-1] > 100))
    return {"peak": peak, "end": end, "grows": grows}


def algorithm1_for_sigma_w(
    sigma_w: float, mu_b: float, R: float, bracket=(1.0, 100.0)
) -> tuple[float, float]:
    """The q* for which Algorithm 1 returns ``sigma_w`` at (mu_b, R), and its sigma_v."""
    qs = brentq(
        lambda q: float(np.sqrt(algorithm1(q, mu_b, R).sigma_w2)) - sigma_w, *bracket
    )
    return qs, float(np.sqrt(algorithm1(qs, mu_b, R).sigma_v2))
