"""The figures of the LSC theory chapters (Lemma 1-2, Fig. 1b-c, Theorems 1-3, Fig. S2).

Each function draws one figure from what the chapter computed and returns it; matplotlib only.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.figure import Figure

from rnnbook.plotting import COLORS


def lemma2_sums(s) -> Figure:
    """Lemma 2's quantity per time step against Delta l on both graphs
    (:class:`~rnnbook.lsc.gradient_paths.Lemma2Sums`)."""
    T = s.T
    fig, ax = plt.subplots()
    ax.semilogy(
        s.dl,
        [v / T for v in s.paper],
        "o-",
        label=r"paper: $\frac{1}{T}\binom{T+\Delta l+2}{T}$",
    )
    ax.semilogy(
        s.dl, [v / T for v in s.stacked], "x", ms=9, label="stacked RNN, autograd"
    )
    ax.semilogy(
        s.dl,
        [v / T for v in s.eq1_formula],
        "s-",
        label=r"Eq. (1): $\frac{1}{T}\binom{T+2}{\Delta l+2}$",
    )
    ax.semilogy(
        s.dl,
        [max(v, 1e-300) / T for v in s.eq1],
        "+",
        ms=10,
        label="Eq. (1) PascalRNN, autograd",
    )
    ax.xaxis.set_major_locator(plt.MaxNLocator(integer=True))
    ax.set(
        xlabel=r"layers below the output $\Delta l = L - l$",
        ylabel="gradient paths per time step (count)",
        title=f"Lemma 2's quantity on two graphs (T = {T})",
    )
    ax.legend(fontsize=8)
    return fig


def fig1b(regimes, dl_fixed: int, T_fixed: int, ratio: int) -> Figure:
    """Fig. 1b: the log10 of both counts along the three regimes
    (:func:`~rnnbook.lsc.path_growth.fig1b_regimes`)."""
    titles = {
        "i": rf"(i) $\Delta l={dl_fixed}$, $T$ grows",
        "ii": rf"(ii) $T={T_fixed}$, $\Delta l$ grows",
        "iii": rf"(iii) $T/\Delta l={ratio}$, both grow",
    }
    fig, axs = plt.subplots(1, 3, figsize=(11, 3.6))
    for ax, r in zip(axs, regimes):
        ax.plot(r.x, r.log_paths / np.log(10), label=r"paths $\binom{T+\Delta l}{T}$")
        ax.plot(
            r.x,
            r.log_lemma2 / np.log(10),
            "--",
            label=r"Lemma 2: $\frac{1}{T}\binom{T+\Delta l+2}{T}$",
        )
        ax.set(
            xlabel=f"${r.xlabel}$ (steps)"
            if r.name != "ii"
            else r"$\Delta l$ (layers)",
            ylabel=r"$\log_{10}$ of the count",
            title=titles[r.name],
        )
    axs[0].legend(fontsize=8)
    fig.suptitle(
        "Fig. 1b: number of gradient paths in a time-depth grid (semi-log axes)"
    )
    fig.tight_layout()
    return fig


def _fig1c_panel(ax, r, rho: float, paper_curve: np.ndarray) -> None:
    t = np.arange(len(paper_curve))
    for b, y in enumerate(r["y"]):
        label = "output $y_t$" if b == 0 else None
        ax.plot(t, y, color=COLORS[0], lw=0.8, alpha=0.7, label=label)
    ax.plot(
        t,
        np.abs(r["g_sum"][0]),
        color=COLORS[1],
        lw=2.5,
        label=r"$|\partial(\sum_{t'} y_{t'})/\partial x_t|$",
    )
    ax.plot(
        t,
        np.abs(r["g_last"][0]),
        ":",
        color=COLORS[3],
        lw=2,
        label=r"$|\partial y_{T-1}/\partial x_t|$",
    )
    if rho == 1.0:
        label = r"paper: $\binom{L+\Delta t-1}{L}$"
        ax.plot(t, paper_curve, "--", color=COLORS[2], lw=1.5, label=label)
    else:
        ax.axhline(1.0, ls="--", color=COLORS[2], lw=1.5, label="paper: constant 1")
        lim = max(1.5, 1.2 * float(np.abs(r["y"]).max()))
        ax.set_ylim(-lim, lim)


def fig1c(f) -> Figure:
    """Fig. 1c (top) on both graphs (:class:`~rnnbook.lsc.bounds.Fig1cRuns`): outputs, the
    derivative of the summed output and of the last output, and the paper's curve."""
    names = {
        "stacked": "stacked $h_{t,l}=\\rho h_{t-1,l}+\\rho h_{t,l-1}$ (code)",
        "eq1": "Eq. (1) $h_{t,l}=\\rho h_{t-1,l}+\\rho h_{t-1,l-1}$ (text)",
    }
    fig, axs = plt.subplots(2, 2, figsize=(10, 6.5))
    for j, conv in enumerate(("stacked", "eq1")):
        for i, rho in enumerate((0.5, 1.0)):
            ax = axs[i, j]
            _fig1c_panel(ax, f.runs[conv, rho], rho, f.paper_curve)
            ax.set(
                title=f"$\\rho={rho}$, {names[conv]}",
                xlabel="time step $t$ of the input",
                ylabel="amplitude",
            )
            ax.title.set_fontsize(9)
            ax.legend(fontsize=7, loc="upper right")
    fig.suptitle(
        f"Fig. 1c (top): PascalRNN, L = {f.L}, T = {f.T}, {f.batch} Gaussian inputs "
        f"of std {f.std}"
    )
    fig.tight_layout()
    return fig
