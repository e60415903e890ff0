"""The figures of the LSC theory chapters (Lemma 1-2, Fig. 1b-c, Theorems 1-3 and 5, Figs. S2-S3).

Each function draws one figure from what the chapter computed and returns it; matplotlib only.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.figure import Figure

from rnnbook.plotting import COLORS, legend_below, legend_right, panels


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
    ax.legend()
    return fig


def fig1b(regimes, dl_fixed: int, T_fixed: int, ratio: int) -> Figure:
    """Fig. 1b: the log10 of both counts along the three regimes
    (:func:`~rnnbook.lsc.path_growth.fig1b_regimes`)."""
    titles = {
        "i": rf"(i) $\Delta l={dl_fixed}$, $T$ grows",
        "ii": rf"(ii) $T={T_fixed}$, $\Delta l$ grows",
        "iii": rf"(iii) $T/\Delta l={ratio}$, both grow",
    }
    fig, axs = panels(3)
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
    legend_below(fig, ncol=1)
    fig.suptitle("Fig. 1b: gradient paths in a time-depth grid (semi-log axes)")
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
            ax.legend(loc="upper right")
    fig.suptitle(
        f"Fig. 1c (top): PascalRNN, L = {f.L}, T = {f.T}, {f.batch} Gaussian inputs "
        f"of std {f.std}"
    )
    return fig


_MARKERS = {"pascal": "*", "orthogonal": "o", "gaussian": "s", "gaussian-norm": "^"}
_LABEL = {
    "pascal": "PascalRNN",
    "orthogonal": "orthogonal",
    "gaussian": "Gaussian (radius)",
    "gaussian-norm": "Gaussian (norm)",
}


def case_tex(case: str) -> str:
    """A target case of :func:`~rnnbook.lsc.bounds_experiment.target_cases` as a figure
    writes it: ``rho = 1`` as $\\rho = 1$, ``split 0.7 / 0.3`` as the two targets."""
    if case.startswith("rho = "):
        return rf"$\rho = {case.removeprefix('rho = ')}$"
    if case.startswith("split ") and " / " in case:
        t, d = case.removeprefix("split ").split(" / ")
        return rf"$\rho_{{\mathrm{{time}}}} = {t}$, $\rho_{{\mathrm{{depth}}}} = {d}$"
    return case


def _update_panel(ax, ex, case: str, conv: str, lcolors: dict) -> None:
    Tx = np.array(ex.Ts)
    for L in ex.Ls:
        sel = ex.sel(conv=conv, L=L, case=case)
        orth = [r for r in sel if r["ens"] == "orthogonal"]
        if case == "rho = 1" or L == ex.Ls[0]:
            ax.loglog(
                Tx,
                [r["paper"] for r in orth],
                "-",
                color=lcolors[L] if case == "rho = 1" else "k",
                lw=1.2,
                label=("paper bound" + (f", $L={L}$" if case == "rho = 1" else "")),
            )
        rad = [r["radius_sum"] for r in orth]
        ax.loglog(
            Tx, rad, ":", color=lcolors[L], lw=1.2, label=f"radius path sum, $L={L}$"
        )
        for ens in ("pascal", "orthogonal", "gaussian", "gaussian-norm"):
            ax.loglog(
                Tx,
                [r["sigma"] for r in sel if r["ens"] == ens],
                _MARKERS[ens],
                color=lcolors[L],
                ms=6,
                mfc="none" if ens != "pascal" else lcolors[L],
                label=_LABEL[ens] if L == ex.Ls[0] else None,
            )


def update_bounds(ex) -> Figure:
    """Theorems 1-3: the measured update of the deepest layer against the bounds, one row per
    target case and one column per graph (:class:`~rnnbook.lsc.bounds_experiment.UpdateExperiment`),
    two panels side by side at most and one legend below them (legends inside each panel
    squeezed the panels to hairlines at the column's width)."""
    lcolors = {L: COLORS[i % len(COLORS)] for i, L in enumerate(ex.Ls)}
    nc = len(ex.conventions)
    pairs = [(case, conv) for case in ex.cases for conv in ex.conventions]
    fig, axs = panels(len(pairs), row_height=3.3)
    axs = np.atleast_1d(axs)
    for i, (ax, (case, conv)) in enumerate(zip(axs, pairs)):
        _update_panel(ax, ex, case, conv, lcolors)
        ax.set_xticks(ex.Ts, [str(t) for t in ex.Ts])
        ax.xaxis.set_minor_locator(plt.NullLocator())
        graph = "Eq. (1)" if conv == "eq1" else "stacked"
        ax.set_title(f"targets {case_tex(case)}\n{graph} graph")
        ax.set_xlabel("sequence length $T$ (steps)")
        if nc == 1 or i % 2 == 0:
            ax.set_ylabel(r"update $\sigma=\sqrt{n\,\mathrm{Var}\,\Delta b_1}$")
    legend_below(fig, ncol=2)
    fig.suptitle(
        "Theorems 1-3: measured update of the deepest layer\n"
        r"($\Delta l = L-1$, $\eta=1$) vs the bounds"
    )
    return fig


def nonnormal(nn, conventions: list[str]) -> Figure:
    """Derivative sums and updates of the non-normal pair against Gaussian matrices with the
    same radii, per Delta l (:class:`~rnnbook.lsc.bounds_experiment.NonNormal`)."""
    cases = list(dict.fromkeys(k[0] for k in nn.results))
    fig, axs = panels(len(cases), row_height=3.4)
    for ax, case in zip(np.atleast_1d(axs), cases):
        for j, conv in enumerate(conventions):
            res = nn.results[case, conv]
            g = "Eq. (1)" if conv == "eq1" else "stacked"
            c1, c2 = COLORS[2 * j], COLORS[2 * j + 1]
            label = f"non-normal pair, {g}: derivative sum"
            ax.semilogy(res["dl"], res["D"], "o-", color=c1, label=label)
            sigma = np.maximum(res["sigma"], 1e-300)
            label = f"non-normal pair, {g}: update $\\sigma$"
            ax.semilogy(res["dl"], sigma, "x--", color=c1, label=label)
            label = f"Gaussian (radius), {g}: derivative sum"
            ax.semilogy(res["dl"], res["Dg"], "s:", color=c2, mfc="none", label=label)
        label = r"paper bound $\frac{(T+1)(T+2)}{2T}$"
        ax.axhline(nn.paper_half, color="k", lw=1.2, label=label)
        ax.set(
            xlabel=r"layers below the output $\Delta l$",
            ylabel=r"$\frac{1}{T}\sum_t\sum_{t'\leq t}\|J^{t,L}_{t',l}\|_2$ or $\sigma$",
            title=rf"radii {case_tex(case)}, $c = {nn.c:g}$, $T = {nn.T}$",
        )
    legend_below(fig, ncol=2)
    fig.suptitle(
        "Every transition derivative has the LSC radius,\n"
        "yet the gradient explodes with depth"
    )
    return fig


def _sci_tex(x: float) -> str:
    """A small number in TeX, one significant digit: ``3\\cdot 10^{-15}``."""
    if x == 0 or not np.isfinite(x):
        return f"{x:g}"
    m, e = f"{x:.0e}".split("e")
    return (f"{m}\\cdot " if m != "1" else "") + f"10^{{{int(e)}}}"


def _log_ticks(ax, ticks) -> None:
    """Log-scaled x axis labelled with the plain values in ``ticks``."""
    ax.set_xscale("log")
    ax.set_xticks(ticks, [str(t) for t in ticks])
    ax.xaxis.set_minor_locator(plt.NullLocator())


def lemma1(st) -> Figure:
    """Lemma 1: the mean spectral radius against the paper's formula, and its variance
    (:class:`~rnnbook.lsc.random_matrix.RadiusStudy`; 99% intervals)."""
    from .random_matrix import Z99, chi_var, kostlan_var

    ns, complex_ = st.ns, "complex" in st.entries
    # one panel a row, each with its legend to its right: the legends name long formulas
    fig, axs = panels(2, per_row=1, row_height=2.6)
    for i, e in enumerate(st.entries):
        y = np.array([st.excess(e, n) for n in ns])
        err = np.array([Z99 * st.mc[e, n].se_mean / st.chi[n] for n in ns])
        kw = dict(fmt="o-", ms=4, capsize=2, color=COLORS[i])
        axs[0].errorbar(ns, 100 * y, 100 * err, label=f"Monte Carlo, {e} entries", **kw)
        var = [st.mc[e, n].var for n in ns]
        err = [Z99 * st.mc[e, n].se_var for n in ns]
        axs[1].errorbar(ns, var, err, label=rf"Var $\rho$, {e} entries", **kw)
    if complex_:
        exact = [100 * (st.kostlan[n][0] / st.chi[n] - 1) for n in ns]
        label = "exact complex Ginibre (Kostlan)"
        axs[0].plot(ns, exact, "k--", lw=1, label=label)
    axs[0].axhline(0, color="gray", lw=1)
    axs[0].set(
        xlabel="matrix size $n$",
        ylabel=r"$\mathbb{E}\rho$ / paper's formula $- 1$ (%)",
        title="Lemma 1: mean spectral radius vs the paper's formula",
    )
    kk = np.array(ns, float)
    label = r"paper: Var $\chi_n$ (Eq. 26) $\to 1/2$"
    axs[1].plot(kk, [chi_var(k) for k in kk], ":", color="k", label=label)
    label = r"Kostlan: Var $|\lambda_n| \to 1/4$"
    axs[1].plot(kk, [kostlan_var(k) for k in kk], "-.", color="gray", label=label)
    if complex_:
        label = r"exact Var $\rho$, complex Ginibre"
        axs[1].plot(kk, [st.kostlan[n][1] for n in ns], "k--", lw=1, label=label)
    axs[1].set(
        xlabel="matrix size $n$",
        ylabel="variance",
        title="Lemma 1: variance of the spectral radius",
    )
    for ax in axs:
        _log_ticks(ax, ns[::2])
        legend_right(ax)
    return fig


def corollary1(c, ns: list[int], eps: float, paper_width: int) -> Figure:
    """Corollary 1: the expected radius of the layer Jacobians per width, and per layer for He
    (:class:`~rnnbook.lsc.initializations.Corollary1`; 99% intervals)."""
    fig, axs = panels(2, per_row=1, row_height=2.6)
    kw = dict(ms=4, capsize=2)
    for i, (e, g) in enumerate(c.glorot.items()):
        label = f"Glorot {'normal' if e == 'gaussian' else 'uniform'}, linear"
        mean, ci = [v[0] for v in g.values()], [v[1] for v in g.values()]
        axs[0].errorbar(list(g), mean, ci, fmt="o-", color=COLORS[i], label=label, **kw)
    label = f"He normal, ReLU (all {c.depth} layers)"
    mean, ci = [v[0] for v in c.he_mean.values()], [v[1] for v in c.he_mean.values()]
    axs[0].errorbar(
        list(c.he_mean), mean, ci, fmt="s-", color=COLORS[3], label=label, **kw
    )
    label = rf"Orthogonal, linear ($\max|\rho-1| = {_sci_tex(c.orth_err)}$)"
    ones = [1.0] * len(c.widths)
    axs[0].plot(c.widths, ones, "*", ms=9, color=COLORS[2], label=label)
    label = rf"$1\pm\epsilon$, $\epsilon={eps}$ (Sec. II-D)"
    axs[0].axhspan(1 - eps, 1 + eps, color="gray", alpha=0.25, label=label)
    axs[0].axvline(paper_width, color="gray", ls=":", lw=1)
    _log_ticks(axs[0], sorted(set(ns[::2]) | set(c.widths)))
    axs[0].set(
        xlabel="width $n$",
        ylabel=r"$\mathbb{E}\,\rho(M_l)$",
        title="Corollary 1: expected radius",
    )
    layers = np.arange(1, c.depth + 1)
    for n in c.widths:
        label = f"width {n} ({c.networks[n]} network(s))"
        axs[1].plot(layers, c.he[n].mean(0).numpy(), "o-", ms=3, label=label)
    axs[1].axhspan(1 - eps, 1 + eps, color="gray", alpha=0.25)
    axs[1].set_xticks(layers)
    axs[1].set(
        xlabel="layer $l$",
        ylabel=r"mean $\rho(M_l)$",
        title="He initialization: radius by layer",
    )
    for ax in axs:
        legend_right(ax)
    return fig


def fig_s2(
    study, samples: int, width: int, time_repeat: int, title: str | None = None
) -> Figure:
    """Fig. S2: covariance, correlation and p-value of a_t with a_t0, per layer
    (:class:`~rnnbook.lsc.decaying_covariance.FigS2Study`); ``title`` replaces the default
    suptitle (Fig. S3 draws the same panels after pre-training)."""
    fig, axs = plt.subplots(3, 2, figsize=(10, 7), sharex=True)
    band = 2 / np.sqrt(samples)
    for j, st in enumerate(study.stats):
        t = st.t0 + st.lags
        axs[0, j].plot(t, st.cov, color=COLORS[1])
        axs[1, j].plot(t, st.corr, color=COLORS[3])
        label = r"$\pm 2/\sqrt{B}$"
        axs[1, j].axhspan(-band, band, color="gray", alpha=0.25, label=label)
        axs[2, j].semilogy(t, np.maximum(st.p, 1e-12), color=COLORS[0])
        axs[2, j].set_ylim(5e-13, 2)
        axs[2, j].axhline(0.05, ls="--", color=COLORS[0], label="$p=0.05$")
        axs[0, j].set_title(f"layer {j + 1}: $a_t$ vs $a_{{t_0}}$, $t_0={st.t0}$")
        axs[2, j].set_xlabel(
            "time step $t$ (0.5 ms steps)" if time_repeat == 2 else "time step $t$"
        )
        axs[1, j].legend()
        axs[2, j].legend()
    for ax, name in zip(axs[:, 0], ("covariance", "correlation", "$p$-value")):
        ax.set_ylabel(name)
    fig.suptitle(
        title
        or f"Fig. S2: LSTM at initialization on spike-latency digits ({samples} samples, "
        f"width {width})"
    )
    return fig


def correlation_matrices(study) -> Figure:
    """Corr(a_s, a_t) across samples for every pair of steps, per layer."""
    fig, axs = plt.subplots(1, 2, figsize=(10, 4.2))
    for j, (a, st) in enumerate(zip(study.norms, study.stats)):
        lo, hi = st.t0 - 0.5, a.shape[1] - 0.5
        im = axs[j].imshow(
            study.pairwise[j][0],
            vmin=-1,
            vmax=1,
            cmap="RdBu_r",
            origin="lower",
            extent=(lo, hi, lo, hi),
        )
        axs[j].set(
            title=f"layer {j + 1}: Corr$(a_s, a_t)$ across samples",
            xlabel="time step $t$",
            ylabel="time step $s$",
        )
    fig.colorbar(im, ax=axs, shrink=0.85, label="Pearson correlation")
    return fig


def lower_lsc(growth, lyap, newman) -> Figure:
    """Theorem 5: the spread of (1/n) log|det J_n| over sequences against n
    (:class:`~rnnbook.lsc.lower_bound.Growth`), and the Lyapunov exponents (mean over sequences)
    against Newman's formula."""
    fig, axs = plt.subplots(1, 2, figsize=(10, 3.8))
    ns = np.array(growth.ns)
    axs[0].plot(ns, growth.median, "o-", color=COLORS[0], label="median")
    axs[0].fill_between(
        ns,
        growth.median - growth.iqr / 2,
        growth.median + growth.iqr / 2,
        color=COLORS[0],
        alpha=0.25,
        label="median ± IQR / 2",
    )
    axs[0].axhline(0, color="gray", lw=1)
    axs[0].set_xscale("log", base=2)
    axs[0].set_xticks(ns, [str(v) for v in ns])
    axs[0].minorticks_off()
    axs[0].set(
        xlabel="number of transition derivatives $n$",
        ylabel=r"$\frac{1}{n}\log|\det J_n|$",
        title="the l-LSC stabilizes the typical product",
    )
    axs[0].legend()
    i = np.arange(1, len(newman) + 1)
    axs[1].plot(i, lyap, "o", color=COLORS[1], label="measured (QR)")
    axs[1].plot(i, newman, "x", ms=9, color=COLORS[3], label="Newman's formula")
    axs[1].axhline(0, color="gray", lw=1)
    axs[1].set(
        xlabel="index $i$",
        ylabel=r"Lyapunov exponent $\lambda_i$ (per step)",
        title=r"what it leaves free: $\sum_i\lambda_i=0$",
    )
    axs[1].legend()
    return fig


def gain_scan(scan) -> Figure:
    """Mean log|det M_t| of driven tanh RNNs against the gain, per input scale and weight family
    (:class:`~rnnbook.lsc.lower_bound.GainScan`)."""
    fig, ax = plt.subplots(figsize=(6.4, 4))
    styles = {"orthogonal": "-", "Gaussian": "--"}
    for f, rows in scan.means.items():
        for j, (s, m) in enumerate(rows.items()):
            ax.plot(
                scan.gains,
                m,
                styles.get(f, ":"),
                marker="o",
                ms=3,
                color=COLORS[j],
                label=f"{f} W, input s = {s:g}",
            )
    ax.axhline(0, color="black", lw=1, label="l-LSC")
    ax.set_xscale("log")
    ax.set_xticks(scan.gains, [f"{v:g}" for v in scan.gains])
    ax.minorticks_off()
    ax.set(
        xlabel="gain $g$",
        ylabel=r"mean $\log|\det M_t|$",
        title="driven tanh RNN: the l-LSC out of reach",
        ylim=(max(-20, ax.get_ylim()[0]), 1),
    )
    ax.legend(ncol=2)
    return fig
