"""Theorem 2.3 of Chizat et al.: the flow of the limit model converges to the min-norm predictor.

For the square loss the predictor λ^∞(t) of the gradient flow converges at an exponential rate to
X⁺y, the minimal-ℓ2-norm minimizer of the risk. :func:`converge` measures on one data set the
final distance to X⁺y (``numpy.linalg.pinv``), the component of λ(t) outside the row space of X
(zero by Proposition 5.3), the best global exponential constant c* = inf_t −log(ℰ_t/ℰ_0)/t
(Proposition 5.5; ℰ_∞ = 0 when n < d), the late slope of log‖λ(t) − X⁺y‖ against its prediction,
the smallest non-zero eigenvalue of R_∞ M with R_∞ the kernel (5.17) at the final parameters, and
the conservation law ‖A‖² − ‖B‖² = d − 1 of Proposition 5.1.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .flow import FlowSolution, flow_to_convergence
from .limit import kernel, shift_matrix
from .regression import Regression


@dataclass
class MinNormRun:
    sol: FlowSolution
    err: np.ndarray  # ‖λ(t) − X⁺y‖
    final: float  # ‖λ(T) − X⁺y‖ / ‖X⁺y‖
    outside: float  # largest component of λ(t) outside the row space of X
    c_star: float
    rate_fit: float  # late slope of −log‖λ(t) − X⁺y‖ (nan if too few points)
    rate_pred: float  # smallest non-zero eigenvalue of R_∞ M
    balance: float  # ‖A(T)‖² − ‖B(T)‖²
    window: np.ndarray  # the late times of the fit


def converge(data: Regression, N: int, t_end: float) -> MinNormRun:
    """Run the flow at s = 1 on the truncation N until λ is within 1e-10 ‖X⁺y‖ of X⁺y."""
    sol = flow_to_convergence(data, N, t_end, scale=1.0, tol=1e-10)
    lh = np.linalg.pinv(data.X) @ data.y
    err = np.linalg.norm(sol.lam - lh, axis=1)
    rowspace_out = np.linalg.svd(data.X)[2][np.linalg.matrix_rank(data.X) :]
    outside = (
        float(np.abs(sol.lam @ rowspace_out.T).max()) if len(rowspace_out) else 0.0
    )
    E = sol.risk
    ok = (sol.t > 0) & (E > 1e-22)
    c_star = float(np.min(-np.log(E[ok] / E[0]) / sol.t[ok]))
    win = (err < 1e-3 * err[0]) & (err > 1e-8 * err[0])
    rate_fit = (
        float(-np.polyfit(sol.t[win], np.log(err[win]), 1)[0])
        if win.sum() > 5
        else float("nan")
    )
    R = sum(kernel(sol.final, shift_matrix(sol.N, data.d)))
    ev = np.sort(np.linalg.eigvals(R @ data.M).real)
    return MinNormRun(
        sol=sol,
        err=err,
        final=float(err[-1] / np.linalg.norm(lh)),
        outside=outside,
        c_star=c_star,
        rate_fit=rate_fit,
        rate_pred=float(ev[ev > 1e-8 * ev.max()].min()),
        balance=float(np.sum(sol.final.A**2) - sol.final.B @ sol.final.B),
        window=win,
    )


def values(runs: list[MinNormRun]) -> dict:
    """The measured values of Theorem 2.3 over data sets: ``final``, ``outside``, ``c_star`` and
    the (fitted, predicted) late rates ``rates``, with rounded copies for display."""
    return {
        "final": [r.final for r in runs],
        "outside": [r.outside for r in runs],
        "c_star": [r.c_star for r in runs],
        "rates": [[r.rate_fit, r.rate_pred] for r in runs],
        "final_shown": [float(f"{r.final:.1e}") for r in runs],
        "outside_max": float(f"{max(r.outside for r in runs):.1e}"),
        "c_star_shown": [round(r.c_star, 4) for r in runs],
        "fitted": [round(r.rate_fit, 4) for r in runs],
        "predicted": [round(r.rate_pred, 4) for r in runs],
    }


def table(runs: list[MinNormRun]) -> str:
    """One row per data set (Markdown)."""
    rows = [
        "| data set | $\\|\\lambda(T)-X^+y\\|/\\|X^+y\\|$ "
        "| largest component outside row space | $c^*$ | fitted rate "
        "| predicted rate | $\\|A\\|^2-\\|B\\|^2$ at $T$ |",
        "|---|---|---|---|---|---|---|",
    ]
    rows += [
        f"| {i} | {r.final:.1e} | {r.outside:.1e} | {r.c_star:.3f} "
        f"| {r.rate_fit:.4f} | {r.rate_pred:.4f} | {r.balance:.6f} |"
        for i, r in enumerate(runs)
    ]
    return "\n".join(rows)
