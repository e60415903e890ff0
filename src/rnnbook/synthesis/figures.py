"""The figures of the synthesis chapter: matplotlib only, each function draws one figure and returns it."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.figure import Figure

from rnnbook.plotting import COLORS, LINESTYLES, legend_below, panels
from rnnbook.stats import seed_interval

from .linear_diagnostics import LinearSweep, rho_ratio_at
from .nonlinear_diagnostics import NonlinearSweep

NU = r"$\nu_W$ (variance of $W_{ij}$)"
LABELS = {
    "radius2": r"LSC: $r(J)^2$",
    "chi1": r"mean field: $\chi_1=\|J\|_F^2/n$",
    "rho_ratio": r"implicit bias: $\Theta_{j+1}/\Theta_j$",
    "grad_decay": r"gradients: per-step decay of $\|\partial h_T/\partial h_t\|_F^2$",
    "memory_decay": r"memory: per-step decay of $\|\partial h_T/\partial x_t\|_F^2$",
}


def _band(ax, x, v, color, label, marker="o", ls="-"):
    mean, lo, hi = seed_interval(v)
    ax.errorbar(
        x,
        mean,
        yerr=[mean - lo, hi - mean],
        fmt=marker,
        ls=ls,
        ms=4,
        capsize=2,
        color=color,
        label=label,
    )


def four_curves(sw: LinearSweep) -> Figure:
    """One panel per width: the four diagnostics against nu_W, with the prediction nu_W."""
    W = len(sw.widths)
    fig, axes = panels(W, sharey=True)
    axes = np.atleast_1d(axes)
    nu = np.asarray(sw.nu_Ws)
    for a, (ax, n) in enumerate(zip(axes, sw.widths)):
        ax.plot(nu, nu, "k-", lw=2, alpha=0.35, label=r"prediction $\nu_W$")
        ax.plot(
            nu,
            rho_ratio_at(sw.T - 2, nu),
            "k:",
            lw=1,
            label=rf"$\rho_{{j+1}}/\rho_j$ at $j={sw.T - 2}$",
        )
        for q, c, mk, ls in zip(LABELS, COLORS, "osD^", LINESTYLES[1:]):
            if q in sw.values:
                _band(
                    ax,
                    nu + 0.006 * (COLORS.index(c) - 1.5),
                    sw.values[q][:, a],
                    c,
                    LABELS[q],
                    mk,
                    ls,
                )
        ax.set_title(f"width $n={n}$")
        ax.set_xlabel(NU)
    axes[0].set_ylabel("per-step factor")
    legend_below(fig, ncol=2)
    return fig


def nonlinear_panels(sweeps: list[NonlinearSweep]) -> Figure:
    """Per cell: measured gradient and memory decay, LSC radius^2, against chi_1 (theory) and nu_W."""
    fig, axes = panels(len(sweeps), row_height=3.2)
    axes = np.atleast_1d(axes)
    for ax, sw in zip(axes, sweeps):
        nu = np.asarray(sw.nu_Ws)
        ax.plot(nu, nu, "k-", lw=2, alpha=0.35, label=r"linear theory: $\nu_W$")
        ax.plot(
            nu, sw.chi1_theory, "k--", lw=1.5, label=r"mean-field $\chi_1$ (theory)"
        )
        qs = ("radius2", "grad_decay", "memory_decay")
        for q, c, mk, ls in zip(qs, COLORS, "osD", LINESTYLES[1:]):
            _band(ax, nu, sw.values[q], c, LABELS[q], mk, ls)
        ax.axhline(1.0, color="grey", lw=0.8, ls=":")
        name = "tanh RNN" if sw.cell == "tanh" else "minimalRNN (gated)"
        ax.set_title(f"{name}, $n={sw.n}$")
        ax.set_xlabel(NU)
        ax.set_ylabel("per-step factor")
    legend_below(fig, ncol=2)
    return fig


def impulse_responses(h_true, h_l2, h_rho0, fit) -> Figure:
    """The teacher, the min-l2 interpolant (deep linear limit), the rho-weighted one around 0, and the
    kernel-regime RNN (around its random h_0), against the lag; rho_j on a second axis."""
    fig, (ax, ax2) = plt.subplots(
        2, 1, figsize=(6.4, 5.2), sharex=True, gridspec_kw={"height_ratios": [3, 1]}
    )
    j = np.arange(len(h_true))
    ax.plot(j, h_true, "k-", lw=2, alpha=0.4, label=r"teacher $h^*$")
    ax.plot(
        j,
        h_l2,
        "o-",
        ms=3,
        color=COLORS[0],
        label=r"deep linear limit: $X^+y$ (min $\ell_2$)",
    )
    ax.plot(j, h_rho0, "s--", ms=3, color=COLORS[1], label=r"min $\sum_j h_j^2/\rho_j$")
    ax.plot(
        j,
        fit.h_gd,
        "D-.",
        ms=3,
        color=COLORS[2],
        label="linear RNN, kernel GD from $h^0$",
    )
    ax.plot(j, fit.h0, ":", color=COLORS[2], label="its $h^0$ (initialization)")
    ax.set_ylabel(r"impulse response $h_j$")
    ax.legend()
    ax2.plot(j, fit.rho, "k.-")
    ax2.set_ylabel(r"$\rho_j$")
    ax2.set_xlabel("lag $j$ (time steps)")
    return fig


def kernel_convergence(widths, gd, lim) -> Figure:
    """Distance of the kernel-GD impulse response to the two closed forms against the width: the
    mean over seeds (line) and every seed (dots); arrays (widths, seeds)."""
    fig, ax = plt.subplots(figsize=(5.2, 3.6))
    widths = np.asarray(widths)
    for v, c, lab in (
        (lim, COLORS[1], r"to $K=\mathrm{diag}(\rho)$ (wide limit)"),
        (gd, COLORS[0], r"to $K=GG^\top$ (same width)"),
    ):
        v = np.maximum(np.asarray(v, float), 1e-17)
        ax.plot(widths, v.mean(-1), "o-", color=c, label=lab + ", mean")
        for s in range(v.shape[-1]):
            ax.plot(widths, v[:, s], ".", color=c, alpha=0.6)
    ref = lim.mean(-1)[0] * (widths / widths[0]) ** -0.5
    ax.plot(widths, ref, "k:", lw=1, label=r"$\propto n^{-1/2}$")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("width $n$")
    ax.set_ylabel(r"$\|h_{GD}-h_{closed}\|/\|h_{lim}-h^0\|$")
    ax.legend()
    return fig
