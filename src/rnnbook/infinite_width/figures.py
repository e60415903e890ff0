"""The figures of the chapters on Chizat et al. (Figs. 2.1-2.3, Theorems 2.2-2.3); matplotlib only.

Each function draws one figure from results computed elsewhere in the room and returns it.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np

from rnnbook.plotting import COLORS
from rnnbook.stats import PowerLaw

from .flow import FlowSolution
from .min_norm import MinNormRun
from .predictor_scale import RESOLUTION, deviation_profile
from .truncation import TruncationErrors
from .weight_law import EntryLaw


def _color(i: int) -> str:
    return COLORS[i % len(COLORS)]


def width_axis(ax, widths) -> None:
    """Label a logarithmic width axis with the widths themselves."""
    ax.set_xticks(widths, [str(w) for w in widths])
    ax.xaxis.set_minor_formatter(plt.NullFormatter())


def truncation(te: TruncationErrors, lim_lam: np.ndarray, steps, tau, d):
    """The error of truncated limit models against the truncation (footnote 5)."""
    fig, ax = plt.subplots()
    ax.semilogy(
        te.N,
        np.maximum(te.errors, 1e-17),
        "o-",
        label=rf"$\max_k|\lambda_N(k)-\lambda_{{{te.N_ref}}}(k)|$, $k\leq{steps}$",
    )
    ax.axhline(
        2.2e-16 * np.abs(lim_lam).max(),
        color="gray",
        ls=":",
        label="float64 rounding of $\\lambda$",
    )
    ax.set(
        xlabel="truncation $N$ (rows of $A$, $B$)",
        ylabel=r"largest trajectory error (dimensionless)",
        title=f"Truncating the limit model ({steps} steps of size {tau}, $d={d}$)",
    )
    ax.legend()
    return fig


def predictor_paths(runs: dict, lim_lam: np.ndarray, lam_hat: np.ndarray, steps, tau):
    """Fig. 2.1A: the paths λ^m(k) of every network (first two coordinates) and the limit."""
    fig, ax = plt.subplots(figsize=(6.4, 4.6))
    for c, (m, run) in enumerate(runs.items()):
        for r in range(run.lam.shape[1]):
            lam_r = run.lam[:, r]
            label = f"$m={m}$" if r == 0 else None
            ax.plot(*lam_r[:, :2].T, "-", color=_color(c), lw=1, alpha=0.7, label=label)
            ax.plot(lam_r[0, 0], lam_r[0, 1], "o", color=_color(c), ms=4)
    ax.plot(
        *lim_lam[:, :2].T,
        "--",
        color="black",
        lw=2.5,
        label=r"$m=\infty$ (limit model)",
    )
    ax.plot(0, 0, "ko", ms=5, label=r"$\lambda^\infty(0)=0$")
    ax.plot(
        lam_hat[0], lam_hat[1], "D", color="#D55E00", ms=9, label=r"min-norm $X^+y$"
    )
    ax.set(
        xlabel=r"$\lambda_1$ (first coordinate of the predictor)",
        ylabel=r"$\lambda_2$ (second coordinate)",
        title=rf"Fig. 2.1A: predictor paths, $k\leq{steps}$, $\tau={tau}$",
    )
    ax.legend()
    return fig


def rate(widths, curves, title: str, d: int | None = None, reference=None):
    """Fig. 2.1B / 2.3B: mean distance to the limit over the widths, with its power-law fit.

    ``curves`` is a list of (label, errors (len(widths), reps), fit); ``d`` adds the exact RMS
    √(d/m) at k = 0 and a band of one standard deviation; ``reference`` = (label, values) a
    dotted comparison curve."""
    fig, ax = plt.subplots()
    ws = np.array(widths, dtype=float)
    for c, (lab, errs, fit) in enumerate(curves):
        mean, col = errs.mean(1), _color(c)
        if d is not None:
            sd = errs.std(1, ddof=1)
            ax.fill_between(
                ws, np.maximum(mean - sd, 1e-6), mean + sd, color=col, alpha=0.2
            )
            lab = f"{lab}: mean $\\pm$ sd over {errs.shape[1]} draws"
        else:
            lab = f"{lab}: mean over {errs.shape[1]}"
        ax.loglog(ws, mean, "o-", color=col, label=lab)
        lo, hi = fit.ci95
        fit_label = rf"fit $m^{{{fit.slope:.2f}}}$, 95% [{lo:.2f}, {hi:.2f}]"
        ax.loglog(ws, fit(ws), "--", color=col, lw=1, label=fit_label)
    if d is not None:
        label = r"$\sqrt{d/m}$ (exact RMS at $k=0$)"
        ax.loglog(ws, np.sqrt(d / ws), ":", color="gray", label=label)
    if reference is not None:
        ax.loglog(ws, reference[1], ":", color="gray", label=reference[0])
    ax.set(
        xlabel="width $m$ (neurons per hidden layer)",
        ylabel=r"$\|\lambda^m(k)-\lambda^\infty(k)\|_2$",
        title=title,
    )
    width_axis(ax, widths)
    ax.legend()
    return fig


def v_mean_square(runs: dict, lim_k: np.ndarray, lim_b_sq: np.ndarray):
    """Fig. 2.1C: the mean square of the entries of V~(k) against ‖B(k)‖² of the limit."""
    fig, ax = plt.subplots()
    for c, (m, run) in enumerate(runs.items()):
        n = run.v_msq.shape[1]
        ax.plot(
            run.k,
            run.v_msq.mean(1),
            "-",
            color=_color(c),
            label=f"$m={m}$ (mean of {n})",
        )
    ax.plot(lim_k, lim_b_sq, "--", color="black", lw=2, label=r"limit $\|B(k)\|^2$")
    ax.set(
        xscale="symlog",
        xlabel="GD step $k$",
        ylabel=r"mean square of the entries of $\tilde V(k)$",
        title="Fig. 2.1C: the output layer's scale, finite width vs limit",
    )
    ax.legend()
    return fig


LAW_LABELS = {
    "U": r"rows of $\tilde U$: $\|\tilde U^\top\tilde U/m-A^\top A\|_F/\|A^\top A\|_F$",
    "W": r"$\tilde W$: mean square vs $\|G\|_F^2$",
    "V": r"$\tilde V$: mean square vs $\|B\|^2$",
    "Wchange": r"remark (ii): $\|W(k)-W(0)\|_F/\|W(0)\|_F$",
}


def weight_moments(widths, fits: dict[str, PowerLaw], steps: int):
    """Theorem 2.2: relative errors of the weights' second moments over the widths."""
    fig, ax = plt.subplots()
    ws = np.array(widths, dtype=float)
    for c, (key, fit) in enumerate(fits.items()):
        label = LAW_LABELS[key] + f"  ($m^{{{fit.slope:.2f}}}$)"
        ax.loglog(ws, fit.means, "o-", color=COLORS[c], label=label)
    first = next(iter(fits.values())).means[0]
    ax.loglog(ws, first * (ws / ws[0]) ** -0.5, ":", color="gray", label=r"$m^{-1/2}$")
    ax.set(
        xlabel="width $m$",
        ylabel="relative error (dimensionless)",
        title=f"Theorem 2.2: moments of the weights at $k={steps}$",
    )
    width_axis(ax, widths)
    ax.legend()
    return fig


def entry_law(e: EntryLaw, dist: str, m: int, k: int):
    """Fig. 2.3A: histograms of V~(k) and of V~(k) − B_1(k) V~(0) against the predicted laws."""
    from scipy import stats

    fig, ax = plt.subplots()
    xs = np.linspace(-4.5, 4.5, 400)
    for c, (x, lab) in enumerate(
        ((e.Vk, r"$\tilde V_j(k)$"), (e.resid, r"$\tilde V_j(k)-B_1(k)\tilde V_j(0)$"))
    ):
        ax.hist(
            x,
            bins=60,
            density=True,
            color=COLORS[c],
            alpha=0.45,
            label="histogram of " + lab,
        )
    ax.plot(
        xs,
        e.law.pdf(xs),
        "-",
        color=COLORS[0],
        lw=2,
        label="predicted law (non-Gaussian)",
    )
    gauss = stats.norm(scale=e.sigma_rest).pdf(xs)
    label = r"predicted $\mathcal{N}(0,\sum_{i\geq 2}B_i(k)^2)$"
    ax.plot(xs, gauss, "-", color=COLORS[3], lw=2, label=label)
    ax.set(
        xlabel="entry value (scale-free units)",
        ylabel="probability density",
        title=f"Fig. 2.3A: {dist} initialization, $m={m}$, $k={k}$",
    )
    ax.legend()
    return fig


def flow_paths(flows: dict[float, FlowSolution], lin: np.ndarray, lam_hat: np.ndarray):
    """Fig. 2.2A: the paths of the flow per scale (projection), and their distance to (2.17)."""
    nrm = float(np.linalg.norm(lam_hat))
    fig, (ax, ax2) = plt.subplots(1, 2, figsize=(11, 4.4))
    for c, (s, sol) in enumerate(flows.items()):
        ax.plot(*sol.lam[:, :2].T, "-", color=_color(c), lw=1.5, label=f"$s={s:g}$")
        frac, dev = deviation_profile(sol.lam, lin, RESOLUTION * nrm)
        ax2.semilogy(
            frac,
            np.maximum(dev / nrm, 1e-6),
            "-",
            color=_color(c),
            lw=1.5,
            label=f"$s={s:g}$",
        )
    lin_label = r"linear dynamics (2.17), $s\to\infty$"
    ax.plot(*lin[:, :2].T, "--", color="black", lw=1.5, label=lin_label)
    ax.plot(0, 0, "ko", label="0 (init)")
    ax.plot(
        lam_hat[0], lam_hat[1], "D", color="#D55E00", ms=8, label=r"min-norm $X^+y$"
    )
    ax.set(
        xlabel=r"$\lambda_1$ (first coordinate of the predictor)",
        ylabel=r"$\lambda_2$ (second coordinate)",
        title="Fig. 2.2A: gradient-flow paths (projection)",
    )
    ax.legend()
    ax2.axhline(RESOLUTION, color="gray", ls=":", label="resampling resolution")
    ax2.set(
        xlabel="fraction of the path travelled (by length)",
        ylabel=r"distance to the linear path / $\|X^+y\|$",
        ylim=(1e-6, 1),
        title="Distance to the linear path, all d coordinates",
    )
    ax2.legend()
    return fig


def flow_risk(flows, lin_t, lin_risk, t_end: float, tau: float):
    """Fig. 2.2B: the risk along the flow per scale s <= 10, time in GD iterations t/τ."""
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2))
    for ax, xmax, ttl in (
        (axes[0], 1500, "first 1500 iterations (as in the paper)"),
        (axes[1], 3 * t_end / tau, "whole run"),
    ):
        for c, (s, sol) in enumerate(flows.items()):
            if s <= 10:
                ax.semilogy(
                    sol.t / tau, sol.risk, "-", color=_color(c), label=f"$s={s:g}$"
                )
        ax.semilogy(
            lin_t / tau, lin_risk, "--", color="black", label="linear dynamics (2.17)"
        )
        ax.set(
            xlim=(0, xmax),
            ylim=(max(1e-12, lin_risk.min()), 2 * lin_risk[0]),
            xlabel=rf"iteration count $k=t/\tau$ with $\tau={tau:g}$",
            ylabel="risk (mean square loss / 2)",
            title=f"Fig. 2.2B: the objective, {ttl}",
        )
        ax.legend()
    return fig


def min_norm_convergence(run: MinNormRun, nrm: float):
    """Theorem 2.3: distance to X⁺y and risk along the flow, with e^{-c* t} and the predicted
    asymptotic rate."""
    fig, ax = plt.subplots()
    t = run.sol.t
    ax.semilogy(
        t,
        run.err / nrm,
        "-",
        color=COLORS[0],
        label=r"$\|\lambda^\infty(t)-X^+y\|/\|X^+y\|$",
    )
    ax.semilogy(
        t,
        run.sol.risk / run.sol.risk[0],
        "-",
        color=COLORS[1],
        label=r"$\mathcal{E}_t/\mathcal{E}_0$",
    )
    label = rf"$e^{{-c^*t}}$, $c^*={run.c_star:.2f}$"
    ax.semilogy(t, np.exp(-run.c_star * t), ":", color=COLORS[1], label=label)
    t_w = t[run.window]
    if len(t_w):
        start = run.err[run.window][0] / nrm
        label = rf"predicted asymptotic rate {run.rate_pred:.2f}"
        ax.semilogy(
            t_w,
            start * np.exp(-run.rate_pred * (t_w - t_w[0])),
            "--",
            color="black",
            label=label,
        )
    ax.set(
        ylim=(1e-14, 3),
        xlabel="time $t$ of the gradient flow",
        ylabel="relative error (dimensionless)",
        title="Theorem 2.3: convergence of the limit predictor",
    )
    ax.legend()
    return fig


def multilayer_paths(study, lam_hat: np.ndarray, tau: float, L: int = 2):
    """Sec. 6: predictor paths λ^m(k) (one network per width, first two coordinates) against the
    limit (6.5), and the limit's distance to the min-norm predictor over k."""
    fig, (ax, bx) = plt.subplots(1, 2, figsize=(11, 4.3))
    for c, (m, lam) in enumerate(study.finite_lam.items()):
        ax.plot(*lam[:, :2].T, "-", color=_color(c), lw=1, label=f"$m={m}$")
    ax.plot(*study.limit_lam[:, :2].T, "--", color="black", lw=2.5, label=r"$m=\infty$")
    ax.plot(lam_hat[0], lam_hat[1], "D", color="#D55E00", ms=9, label=r"$X^+y$")
    ax.set(
        xlabel=r"$\lambda_1$",
        ylabel=r"$\lambda_2$",
        title=f"predictor paths, $L={L}$ ({L + 2} layers), $\\tau={tau}$",
    )
    ax.legend()
    dist = np.linalg.norm(study.limit_lam - lam_hat, axis=1) / np.linalg.norm(lam_hat)
    bx.semilogy(np.arange(len(dist)), np.maximum(dist, 1e-17), color="black")
    bx.set(
        xlabel="GD step $k$",
        ylabel=r"$\|\lambda^\infty(k)-X^+y\|/\|X^+y\|$",
        title="the limit converges to the min-norm predictor",
    )
    return fig
