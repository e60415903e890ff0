"""The figures of the implicit-bias chapters (Emami et al., Secs. 2-5): matplotlib only, each function
draws one figure from the results of the room's experiments and returns it."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.figure import Figure

from rnnbook.plotting import COLORS, legend_below, panels

from .conv_models import Realizations
from .decoding import Table1Result
from .delay_sweep import MODELS, DelaySweep
from .ensembles import curve_intervals
from .fmri_standin import TR_SECONDS
from .init_statistics import MonteCarlo
from .kernel_regime import FiniteWidth, TeacherStudent
from .ntk import Convergence
from .scale_factors import rho, rho_max

STEP = "full-batch GD step $\\ell$"
MSE = "mean-squared error (output units$^2$)"
LAG = "lag $j$ (time steps)"


def rho_decay(nu_F: float, nu_C: float, T: int = 30, nu_Ws=(0.3, 0.6, 0.9)) -> Figure:
    """rho_j of Eq. (21) and the bound rho_max nu_W^(j-1) of Eq. (22), log scale."""
    fig, ax = plt.subplots()
    js = np.arange(T)
    for k, nW in enumerate(nu_Ws):
        c = COLORS[k]
        ax.semilogy(
            js,
            rho(T, nW, nu_F, nu_C),
            "o-",
            ms=3,
            color=c,
            label=rf"$\rho_j$, $\nu_W={nW}$",
        )
        bound = rho_max(T, nu_F, nu_C) * nW ** (js[1:] - 1.0)
        ax.semilogy(js[1:], bound, "--", color=c, label=rf"bound (22), $\nu_W={nW}$")
    ax.set(
        xlabel=LAG,
        ylabel=r"scale factor $\rho_j$ (dimensionless)",
        title=rf"Scale factors decay geometrically ($\nu_F={nu_F}$, $\nu_C={nu_C}$, $T={T}$)",
    )
    ax.legend(ncol=2, fontsize=8)
    return fig


def ntk_convergence(res: Convergence) -> Figure:
    """Relative error of the empirical NTK against the width, per seed, mean, fit and n^(-1/2)."""
    fig, ax = plt.subplots()
    ns, errors, f, S = np.array(res.widths, float), res.errors, res.fit, res.setup
    for s in range(errors.shape[1]):
        label = "one seed" if s == 0 else None
        ax.loglog(ns, errors[:, s], "o", ms=3, color=COLORS[0], alpha=0.5, label=label)
    mean = errors.mean(1)
    ax.loglog(
        ns, mean, "s-", color=COLORS[1], label=f"mean over {errors.shape[1]} seeds"
    )
    fit = rf"fit: error $\propto n^{{{f.slope:.2f}\pm{f.ci95:.2f}}}$"
    ax.loglog(ns, f(ns), "--", color=COLORS[3], label=fit)
    ax.loglog(
        ns,
        mean[0] * (ns / ns[0]) ** -0.5,
        ":",
        color="gray",
        label=r"reference $n^{-1/2}$",
    )
    ax.set(
        xlabel="width $n$ (hidden units)",
        ylabel="relative Frobenius error of the NTK",
        title=rf"Empirical NTK vs limit kernel ($\nu_W={S['nu_W']}$, $T={S['T']}$, "
        rf"$n_x={S['n_x']}$, $n_y={S['n_y']}$)",
    )
    ax.legend()
    return fig


def rho_readout(res: Convergence) -> Figure:
    """The diagonal Theta_jj of an impulse input at three widths against the derived rho_j."""
    fig, ax = plt.subplots()
    js, W = np.arange(len(res.rho)), len(res.widths)
    ax.semilogy(js, res.rho, "k-", lw=2, label=r"derived $\rho_j$ (= Eq. 21)")
    for a in sorted({0, W // 2, W - 1}):
        m, sd = res.rho_hat[a].mean(0), res.rho_hat[a].std(0, ddof=1)
        label = rf"$\Theta_{{jj}}$ of impulse, $n={res.widths[a]}$ (mean $\pm$ sd)"
        ax.errorbar(
            js + 0.08 * (a - W / 2), m, yerr=sd, fmt="o", ms=4, capsize=3, label=label
        )
    ax.set(
        xlabel=LAG,
        ylabel=r"$\rho_j$ (dimensionless)",
        title="Scale factors read off the empirical NTK of an impulse",
    )
    ax.legend()
    return fig


def spectral_radius(radii: np.ndarray, nu_Ws: list[float], widths: list[int]) -> Figure:
    """Spectral radius of W / sqrt(n) against n, with the candidate limits sqrt(nu_W) and nu_W."""
    fig, ax = plt.subplots(figsize=(8, 4))
    ns = np.array(widths, dtype=float)
    for k, nu in enumerate(nu_Ws):
        c = COLORS[k % len(COLORS)]
        m, sd = radii[k].mean(1), radii[k].std(1, ddof=1)
        label = rf"$\nu_W={nu}$: measured"
        ax.errorbar(ns, m, yerr=sd, fmt="o-", ms=4, capsize=3, color=c, label=label)
        ax.axhline(np.sqrt(nu), color=c, ls="--", lw=1)
        ax.axhline(nu, color=c, ls=":", lw=1)
    ax.plot([], [], "k--", lw=1, label=r"$\sqrt{\nu_W}$ (circular law)")
    ax.plot([], [], "k:", lw=1, label=r"$\nu_W$ (paper, Sec. 2)")
    ax.set_xscale("log")
    ax.set(
        xlabel="width $n$ (hidden units)",
        ylabel=r"spectral radius of $W/\sqrt{n}$ (dimensionless)",
        title="Spectral radius at initialization (4), "
        f"mean ± sd over {radii.shape[2]} draws",
    )
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0))
    return fig


def realizations(res: Realizations, n_x: int, n_y: int) -> Figure:
    """Output error of the Vandermonde and delay-line realisations against the filter length."""
    fig, ax = plt.subplots()
    Ts = res.Ts
    ax.semilogy(
        Ts,
        res.vandermonde,
        "o-",
        label=r"Vandermonde realisation (App. B.1), $n=Tn_xn_y$",
    )
    ax.semilogy(Ts, res.delay_line, "s-", label=r"delay-line realisation, $n=Tn_x$")
    eps = res.cond * np.finfo(float).eps
    ax.semilogy(Ts, eps, "k--", lw=1, label=r"cond$(V)\times$ machine epsilon")
    ax.set(
        xlabel="filter length $T$ (time steps)",
        ylabel="relative output error (float64)",
        title=rf"Realising random filters by an RNN ($n_x={n_x}$, $n_y={n_y}$)",
    )
    ax.legend()
    return fig


def init_moments(mc: MonteCarlo) -> Figure:
    """Variance ratio (Eq. 24) and excess kurtosis (Theorem 3.3(a)) of L_j per lag and width."""
    fig, axes = plt.subplots(1, 2, figsize=(10, 3.8))
    W = len(mc.widths)
    for a, n in enumerate(mc.widths):
        s = mc.summaries[n]
        js = np.arange(len(s.var_ratio)) + 0.08 * (a - (W - 1) / 2)
        style = dict(fmt="o", ms=4, capsize=3, color=COLORS[a], label=f"$n={n}$")
        axes[0].errorbar(js, s.var_ratio, yerr=1.96 * s.var_ratio_se, **style)
        axes[1].errorbar(js, s.excess_kurtosis, yerr=1.96 * s.kurtosis_se, **style)
    axes[0].axhline(1, color="k", lw=1)
    axes[0].set(
        xlabel=LAG,
        ylabel=r"$\overline{\|L_j\|_F^2}\,/\,(n_xn_y\nu_C\nu_F\nu_W^j)$",
        title="Eq. (24): variance ratio (95% CI)",
    )
    axes[1].axhline(0, color="k", lw=1)
    axes[1].set(
        xlabel=LAG,
        ylabel="excess kurtosis of $L_j$ (0 for a Gaussian)",
        title="Theorem 3.3(a): Gaussianity (95% CI)",
    )
    for ax in axes:
        ax.legend()
    return fig


def loss_curves(ts: TeacherStudent) -> Figure:
    """Fig. 1: train and test loss of the RNN and of its scaled convolution (the first seed)."""
    fig, ax = plt.subplots()
    run, steps = ts.run, ts.setup["steps"]
    ell = np.arange(steps + 1)
    for k, name in enumerate(("train", "test")):
        c = COLORS[k]
        label = f"{name}, RNN ($n={ts.setup['n']}$)"
        ax.plot(
            ell, run.rnn.losses[name][:, 0].numpy(), "-", color=c, lw=2, label=label
        )
        c = "k" if k == 0 else COLORS[3]
        label = f"{name}, scaled conv (8)"
        y = run.conv.losses[name][:, 0].numpy()
        ax.plot(ell, y, "--", color=c, lw=1.2, label=label)
    ax.axhline(
        ts.task.noise_var, color="gray", ls=":", label="noise variance (SNR 20 dB)"
    )
    ax.set_yscale("log")
    ax.set_xscale("symlog", linthresh=10)
    ax.set_xlim(0, steps)
    ax.set(
        xlabel=STEP,
        ylabel=MSE,
        title="Fig. 1: RNN and scaled convolution, same learning rate (first seed)",
    )
    ax.legend()
    return fig


def first_steps(ts: TeacherStudent, k: int = 10) -> Figure:
    """Fig. 2: the first ``k`` steps of Fig. 1 on a linear scale."""
    fig, ax = plt.subplots()
    k = min(k, ts.setup["steps"])
    ell = np.arange(k + 1)
    for name, c in (("train", COLORS[0]), ("test", COLORS[1])):
        rnn, conv = ts.run.rnn.losses[name][:, 0], ts.run.conv.losses[name][:, 0]
        ax.plot(ell, rnn[: k + 1].numpy(), "o-", color=c, label=f"{name}, RNN")
        ax.plot(
            ell,
            conv[: k + 1].numpy(),
            "x--",
            color="k",
            ms=7,
            label=f"{name}, scaled conv",
        )
    ax.set(xlabel=STEP, ylabel=MSE, title="Fig. 2: the first 10 steps of Fig. 1")
    ax.legend()
    return fig


def impulse_responses(ts: TeacherStudent) -> Figure:
    """|L_j| of the teacher, at initialization, and of both trained models."""
    fig, ax = plt.subplots()
    L_rnn, L_conv = ts.run.rnn.L[:, 0], ts.run.conv.L[:, 0]  # the first seed
    js = np.arange(L_rnn.shape[-3])
    ax.semilogy(
        js, ts.task.L_true[:, 0, 0].abs().numpy(), "k-", lw=2, label="teacher $|L_j|$"
    )
    label = "initial $|L^0_j|$ (both models)"
    ax.semilogy(js, L_rnn[0][:, 0, 0].abs().numpy(), ":", color="gray", label=label)
    label = "RNN after training"
    ax.semilogy(
        js, L_rnn[-1][:, 0, 0].abs().numpy(), "o-", color=COLORS[0], label=label
    )
    label = "scaled conv after training"
    ax.semilogy(
        js, L_conv[-1][:, 0, 0].abs().numpy(), "x--", color=COLORS[3], ms=7, label=label
    )
    ax.set(
        xlabel=LAG,
        ylabel="$|L_j|$ (output units per input unit)",
        title=f"Impulse responses after {ts.setup['steps']} steps (first seed)",
    )
    ax.legend()
    return fig


def drift(ts: TeacherStudent) -> Figure:
    """||L_j^l - L_j^0|| after the last step against the bound B_2 rho_j lr l of Eq. (25)."""
    fig, ax = plt.subplots()
    run, ell = ts.run, ts.setup["steps"]
    js = np.arange(len(run.rho))
    bound = (ts.c41.B2[0] * run.rho * run.lr * ell).numpy()  # the first seed
    ax.semilogy(js, bound, "k-", lw=2, label=r"bound $B_2\rho_j\eta\ell$ (Eq. 25)")
    for traj, fmt, c, label in (
        (run.rnn, "o-", COLORS[0], f"RNN ($n={ts.setup['n']}$)"),
        (run.conv, "x--", COLORS[3], "scaled conv ($n\\to\\infty$ dynamics)"),
    ):
        d = (traj.L[-1, 0] - traj.L[0, 0]).flatten(-2).norm(dim=-1).numpy()
        ax.semilogy(
            js, d, fmt, color=c, label=label, **({"ms": 7} if fmt == "x--" else {})
        )
    ax.set(
        xlabel=LAG,
        ylabel=r"$\|L^\ell_j - L^0_j\|_F$ (output units per input unit)",
        title=f"Drift of the impulse response after $\\ell={ell}$ steps (first seed)",
    )
    ax.legend()
    return fig


def finite_width(fw: FiniteWidth, tol: float = 0.10) -> Figure:
    """Fig. 4: training curves of RNNs of several widths and their twins (seed 0), and the gap
    between them against the width."""
    fig, axes = panels(2, per_row=1, row_height=2.8)  # stacked: long titles
    steps, seeds = fw.setup["steps"], fw.setup["n_seeds"]
    ell = np.arange(steps + 1)
    for a, n in enumerate(fw.widths):
        c, r = COLORS[a], fw.runs[n]
        y = r.rnn.losses["train"][:, 0].numpy()
        axes[0].plot(ell, y, "-", color=c, lw=2, label=f"RNN, $n_h={n}$")
        y = r.conv.losses["train"][:, 0].numpy()
        axes[0].plot(ell, y, "--", color=c, lw=1.2, label=f"scaled conv, $n_h={n}$")
    axes[0].set_yscale("log")
    axes[0].set_xscale("symlog", linthresh=10)
    axes[0].set_xlim(0, steps)
    axes[0].set(
        xlabel=STEP,
        ylabel="training MSE (output units$^2$)",
        title="Fig. 4: RNN (solid) vs scaled conv (dashed), seed 0",
    )
    axes[0].legend()
    ns, g, f = np.array(fw.widths, float), fw.gaps, fw.fit
    label = f"mean, 95% interval over {seeds} seeds"
    m, lo, hi = curve_intervals(g)
    axes[1].errorbar(ns, m, yerr=[m - lo, hi - m], fmt="o-", capsize=3, label=label)
    ref = g.mean(1)[0] * (ns / ns[0]) ** -0.5
    axes[1].loglog(ns, ref, ":", color="gray", label=r"reference $n^{-1/2}$")
    axes[1].axhline(tol, color=COLORS[3], ls="--", lw=1, label=f"tolerance {tol:.2f}")
    axes[1].set_xscale("log")
    axes[1].set_yscale("log")
    axes[1].set(
        xlabel="student width $n_h$ (hidden units)",
        ylabel=r"max$_\ell$ |loss$_{RNN}$/loss$_{conv}$ - 1|",
        title="Gap between the training curves "
        f"(pooled fit: $n^{{{f.slope:.2f}\\pm{f.ci95:.2f}}}$)",
    )
    axes[1].legend()
    return fig


def delay(sweep: DelaySweep, snr_db: float) -> Figure:
    """Fig. 3: relative test error (left) and training error (right) against the delay."""
    markers = dict(zip(MODELS, ("o-", "x--", "s-", "d:")))
    rel, rel_train = sweep.relative_test_error, sweep.relative_train_error
    d, n = np.array(sweep.delays), sweep.setup.get("n")
    fig, axes = panels(2, per_row=1, row_height=2.8)  # stacked: long titles
    for k, m in enumerate(MODELS):
        c, mk = COLORS[k], rel[k].mean(0)
        yerr = [mk - rel[k].min(0), rel[k].max(0) - mk]
        label = m + (f" ($n={n}$)" if m == "RNN" else "")
        axes[0].errorbar(
            d + 0.1 * (k - 1.5),
            mk,
            yerr=yerr,
            fmt=markers[m],
            capsize=3,
            color=c,
            label=label,
        )
        axes[1].plot(d, rel_train[k].mean(0), markers[m], color=c, label=m)
    noise = 1 / (1 + 10 ** (snr_db / 10))
    for ax in axes:
        ax.axhline(noise, color="gray", ls=":", label="noise level")
        ax.set_yscale("log")
        ax.legend()
    axes[0].set(
        xlabel="delay (time steps)",
        ylabel="relative test error (test MSE / mean $y^2$)",
        title=f"Fig. 3: test error vs delay (mean, range over {sweep.seeds} seeds)",
    )
    axes[1].set(
        xlabel="delay (time steps)",
        ylabel="relative training error (same scale)",
        title="Training error after the same number of steps",
    )
    return fig


def fmri_recording(X: np.ndarray, Y: np.ndarray, volumes: int = 300) -> Figure:
    """The first ``volumes`` of the stand-in recording: BOLD and the stimulus onsets per kind."""
    t = np.arange(len(Y)) * TR_SECONDS / 60
    sl = slice(0, volumes)
    fig, ax = plt.subplots(figsize=(10, 3.6))
    ax.plot(t[sl], Y[sl, 0], color=COLORS[0], lw=1.2, label="BOLD (output)")
    for k in range(X.shape[1]):
        on = np.nonzero(X[sl, k])[0]
        y = np.full(len(on), Y[sl].min() - 0.3 - 0.25 * k)
        c = COLORS[(1, 2, 3, 4, 5, 7)[k % 6]]
        label = f"onsets, stimulus kind {k + 1}"
        ax.plot(t[sl][on], y, "|", ms=8, mew=2, color=c, label=label)
    ax.set(
        xlabel="time (minutes)",
        ylabel="BOLD (% signal change)",
        title="nitime's event-related fMRI recording: the first 10 minutes",
    )
    legend_below(fig, ncol=3)  # below the whole figure: the panel keeps the width
    return fig


def r2_curves(res: Table1Result) -> Figure:
    """Fig. 5 analogue: test R^2 along training per model, limited and all data."""
    fig, axes = plt.subplots(1, 2, figsize=(10.5, 4), sharey=True)
    steps, n = res.setup["steps"], res.setup["n"]
    ell = np.arange(steps + 1)
    for r, reg in enumerate(res.regimes):
        for k, m in enumerate(res.models):
            label = m + (f" ($n={n}$)" if m == "RNN" else "")
            lw = 2 if k == 0 else 1.5
            curve = res.curves[:, r, :, k, :].mean((0, 1))
            axes[r].plot(
                ell, curve, ["-", "--", "-."][k], color=COLORS[k], lw=lw, label=label
            )
        axes[r].set_xscale("symlog", linthresh=10)
        axes[r].set_xlim(0, steps)
        title = (
            f"{reg} data (mean over {res.setup['folds']} folds, {len(res.r2)} seeds)"
        )
        axes[r].set(xlabel="full-batch GD step", title=title)
        axes[r].legend()
    axes[0].set_ylabel("test $R^2$ of the BOLD signal")
    final = res.r2.mean((0, 2))
    axes[0].set_ylim(min(-0.1, float(final.min()) - 0.15), float(final.max()) + 0.1)
    return fig


def learned_filters(res: Table1Result) -> Figure:
    """The filters learned from all the data (first test fold) for the stimulus kind with the largest
    response of the unscaled model."""
    L_all = res.final_L[res.regimes.index("all"), 0]  # (models, T, n_y, n_x)
    i_un = res.models.index("unscaled conv")
    kind = int(np.argmax(np.abs(L_all[i_un, :, 0, :]).sum(0)))
    lags_s = np.arange(L_all.shape[1]) * TR_SECONDS
    fig, ax = plt.subplots()
    for k, m in enumerate(res.models):
        fmt = ["o-", "x--", "s-."][k]
        ax.plot(lags_s, L_all[k, :, 0, kind], fmt, color=COLORS[k], label=m)
    ax.axhline(0, color="k", lw=0.8)
    ax.set(
        xlabel="lag (seconds)",
        ylabel="filter coefficient $L_j$ (z-scored BOLD per z-scored input)",
        title=f"Learned responses to stimulus kind {kind + 1} (all data, fold 1)",
    )
    ax.legend()
    return fig


def effect_vs_steps(
    steps: list[int],
    curves: dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]],
    refs: dict[str, float],
    ylabel: str,
    title: str,
    ax=None,
    log_y: bool = True,
) -> Figure:
    """A claim's statistic along training: per curve the mean over seeds (line) and its 95% interval
    (band) at the recorded ``steps``; ``refs`` are the decision thresholds of the declared rule."""
    fig, ax = (ax.figure, ax) if ax is not None else plt.subplots()
    for k, (label, (m, lo, hi)) in enumerate(curves.items()):
        c = COLORS[k % len(COLORS)]
        ax.plot(steps, m, "o-", ms=3, color=c, label=label)
        ax.fill_between(steps, lo, hi, color=c, alpha=0.2, lw=0)
    for k, (label, y) in enumerate(refs.items()):
        ax.axhline(y, color="gray", ls=(":", "--", "-.")[k % 3], lw=1, label=label)
    ax.set_xscale("log")
    if log_y:
        ax.set_yscale("log")
    ax.set(xlabel=STEP, ylabel=ylabel, title=title)
    ax.legend()
    return fig


def delay_trend(sweep: DelaySweep, steps: list[int], flat: float) -> Figure:
    """The effects of the Fig. 3 claim along training, with their 95% intervals over seeds."""
    tr = sweep.trend(steps)
    fig, axes = panels(2, per_row=1, row_height=2.8)  # stacked: long legends
    d = sweep.delays[-1]
    growth = {
        f"{m}: error(delay {d}) / error(0)": tr[k]
        for m, k in (
            ("RNN", "growth_rnn"),
            ("scaled conv", "growth_scaled"),
            ("unscaled conv", "growth_unscaled"),
        )
    }
    refs = {"no growth (1)": 1.0, f"'almost the same' ({flat:g})": flat}
    effect_vs_steps(
        steps, growth, refs, "growth factor of the test error", "Growth", axes[0]
    )
    ratio = {f"unscaled / scaled error at delay {d}": tr["unscaled_ratio"]}
    effect_vs_steps(
        steps, ratio, {"equal (1)": 1.0}, "ratio of test errors", "Who wins", axes[1]
    )
    fig.suptitle(
        f"Fig. 3 effects vs training (mean, 95% interval over {sweep.seeds} seeds)"
    )
    return fig


def kernel_trend(
    ts: TeacherStudent, fw: FiniteWidth, steps: list[int], tol: float
) -> Figure:
    """The statistics of the Fig. 1 and Fig. 4 claims along training, 95% intervals over seeds."""
    fig, axes = panels(2, per_row=1, row_height=2.8)  # stacked: long legends
    gaps = {f"Fig. 4, $n_h={n}$": iv for n, iv in fw.gap_trend(steps).items()} | {
        f"Fig. 1, $n={ts.setup['n']}$": ts.gap_trend(steps)
    }
    effect_vs_steps(
        steps,
        gaps,
        {f"tolerance {tol:g}": tol},
        r"max$_{\ell'\leq\ell}$ |loss$_{RNN}$/loss$_{conv}$ - 1|",
        "Gap between RNN and scaled conv so far",
        axes[0],
    )
    effect_vs_steps(
        steps,
        {"slope of log gap on log $n_h$ (per seed)": fw.slope_trend(steps)},
        {"no trend with width (0)": 0.0, r"NTK rate $n^{-1/2}$": -0.5},
        "exponent $p$ in gap $\\propto n_h^p$",
        "Fig. 4: does the gap shrink with the width?",
        axes[1],
        log_y=False,
    )
    fig.suptitle(
        f"Effects vs training (mean, 95% interval over seeds: Fig. 1 "
        f"{ts.setup['n_seeds']}, Fig. 4 {fw.setup['n_seeds']})"
    )
    return fig


def table1_trend(res: Table1Result, steps: list[int]) -> Figure:
    """The four comparisons of the Table 1 claim along training, with the two-way 95% interval."""
    fig, axes = panels(2, per_row=1, row_height=2.8, sharey=True)
    tr = res.trend(steps)
    for ax, reg in zip(axes, ("limited", "all")):
        curves = {k: v for k, v in tr.items() if k.startswith(reg)}
        effect_vs_steps(
            steps,
            curves,
            {"no difference": 0.0},
            "difference in test $R^2$ (paper's side > 0)",
            f"{reg} data",
            ax,
            log_y=False,
        )
    lo = min(float(np.min(v[1][len(steps) // 2 :])) for v in tr.values())
    hi = max(float(np.max(v[2][len(steps) // 2 :])) for v in tr.values())
    pad = 0.5 * (hi - lo) + 0.01
    axes[0].set_ylim(lo - pad, hi + pad)  # the late steps; early ones are far off
    fig.suptitle(
        f"Table 1 comparisons vs training (mean, 95% interval over {len(res.r2)} seeds "
        f"and over {res.setup['folds']} folds)"
    )
    return fig
