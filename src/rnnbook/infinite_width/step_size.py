"""The printed set-up of Fig. 2.1 of Chizat et al. and the loss normalisation: is τ = 0.2 stable?

With d = 10, x ~ N(0, I_d) and τ = 0.2, GD (2.10) on the limit model should converge to X⁺y. The
risk ∫ L dp with p the empirical measure is the *mean* over the n samples; :func:`outcomes` runs
the limit model on several draws of λ* for the printed inputs with the mean, with the sum over
samples and with the population risk (M = I, b = λ*), and for the inputs scaled by 1/√d of the
authors' code, and counts how often it converges, stalls or diverges.
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from . import deep_linear
from .limit import train
from .regression import Regression, gaussian_regression

PRINTED = "x ~ N(0, I), mean over n samples"
SCALED = "x ~ N(0, I/d), mean over n samples (used below)"
OUTCOMES = ("converges", "does not converge", "diverges")


def population(d: int, seed: int) -> Regression:
    """The population risk of x ~ N(0, I_d) as a data set: M = I, b = λ* (n = d samples √d e_i)."""
    lam_star = np.random.default_rng(seed).standard_normal(d)
    return Regression(np.sqrt(d) * np.eye(d), np.sqrt(d) * lam_star, lam_star)


def setups(d: int, n: int) -> dict[str, Callable[[int], Regression]]:
    """The data sets compared, by name, as functions of the seed."""
    return {
        PRINTED: lambda s: gaussian_regression(d, n, s, 1.0, "mean"),
        "x ~ N(0, I), sum over n samples": lambda s: gaussian_regression(
            d, n, s, 1.0, "sum"
        ),
        "x ~ N(0, I), population risk": lambda s: population(d, s),
        SCALED: lambda s: gaussian_regression(d, n, s, d**-0.5, "mean"),
    }


def outcome(data: Regression, tau: float, steps: int, N: int) -> str:
    """'converges' (within 1e-6 ‖X⁺y‖ of X⁺y after ``steps``), 'diverges' (beyond 1e3 or not
    finite) or 'does not converge'."""
    with np.errstate(all="ignore"):
        tr = train(data, tau, steps, N=N, every=max(1, steps // 20))
    lam_hat = data.min_norm()
    e = np.linalg.norm(tr.lam[-1] - lam_hat) / np.linalg.norm(lam_hat)
    if not np.isfinite(e) or e > 1e3:
        return "diverges"
    return "converges" if e < 1e-6 else "does not converge"


def outcomes(
    d: int, n: int, tau: float, steps: int, N: int, draws: int, seed: int
) -> dict[str, dict[str, int]]:
    """Counts of each outcome per set-up over ``draws`` data sets (seeds seed+1, seed+2, ...)."""
    counts = {}
    for name, make in setups(d, n).items():
        res = [outcome(make(seed + 1 + i), tau, steps, N) for i in range(draws)]
        counts[name] = {o: res.count(o) for o in OUTCOMES}
    return counts


def table(counts: dict[str, dict[str, int]], d: int, n: int, tau: float) -> str:
    rows = [
        f"| set-up ($d={d}$, $n={n}$, $\\tau={tau:g}$) | converges to $X^+y$ "
        "| does not converge | diverges |",
        "|---|---|---|---|",
    ]
    rows += [
        "| " + " | ".join([k, *map(str, v.values())]) + " |" for k, v in counts.items()
    ]
    return "\n".join(rows)


def finite_width_peak(
    data: Regression, m: int, tau: float, steps: int, seed: int
) -> float:
    """The largest |λ| over a run of one width-``m`` network (inf if it overflowed)."""
    net = deep_linear.init_mup(m, data.d, 1, seed=seed, keep_init=False)
    with np.errstate(all="ignore"):
        tr = deep_linear.train(net, data, tau, steps, every=max(1, steps // 20))
    if not np.all(np.isfinite(tr.lam)):
        return float("inf")
    return float(np.nanmax(np.abs(tr.lam)))
