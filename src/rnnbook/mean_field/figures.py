"""The figures of the mean-field chapters (Chen et al. 2018, Figs. 1-3 and the checks around them).

Each function draws one figure with matplotlib from results computed elsewhere in the room and
returns it; the chapters show it with ``plt.show()``.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np

from rnnbook.plotting import COLORS, COLUMN_INCHES, legend_below, panels
from rnnbook.plotting import panels as _panels

from . import monte_carlo
from .timescale_fit import WindowFit


def _steps(x: np.ndarray) -> np.ndarray:
    return np.arange(1, x.shape[-1] + 1)


# ------------------------------------------------------------------------ signal propagation (Sec. 3)
def vanilla_covariance(theory: dict, untied: dict, tied: dict, sigma_w) -> plt.Figure:
    """c^t and q^t of Eq. (2) against untied (dots, 2 SE) and tied (crosses) vanilla RNNs."""
    c_u, se_u = monte_carlo.mean_se(untied["c"])
    c_t = tied["c"].mean(1)
    q_u = untied["q"].mean(1)
    ts = _steps(theory["c"])
    fig, axes = plt.subplots(1, 2, figsize=(11, 4))
    for k, sw in enumerate(sigma_w):
        col = COLORS[k]
        axes[0].plot(
            ts, theory["c"][k], "-", color=col, lw=2, label=rf"Eq. (2), $\sigma_w={sw}$"
        )
        axes[0].errorbar(
            ts,
            c_u[k],
            yerr=2 * se_u[k],
            fmt="o",
            ms=3,
            color=col,
            label="MC untied" if k == 0 else None,
        )
        axes[0].plot(
            ts, c_t[k], "x", ms=4, color=col, label="MC tied" if k == 0 else None
        )
        axes[1].plot(
            ts,
            theory["q"][k],
            "-",
            color=col,
            lw=2,
            label=rf"$q^t$ Eq. (2), $\sigma_w={sw}$",
        )
        axes[1].plot(ts, q_u[k], "o", ms=3, color=col)
    axes[0].set(
        xlabel="time step $t$",
        ylabel="pre-activation cosine similarity $c^t$",
        title=r"Vanilla RNN, $\Sigma_{12}=0$, $\sigma_v=0.5$, $R=1$",
    )
    axes[1].set(
        xlabel="time step $t$",
        ylabel="pre-activation variance $q^t$",
        title="Variance stays at $q^*$ (dots: MC untied)",
    )
    axes[0].legend()
    axes[1].legend()
    return fig


def _viridis(k: int, n: int):
    return plt.get_cmap("viridis")(k / max(n - 1, 1))


def fig1ab(theory_c: np.ndarray, untied: dict, tied: dict, mu_b) -> plt.Figure:
    """Fig. 1(a-b): untied MC against the theory, and untied against tied MC."""
    c_u, c_t = untied["c"].mean(1), tied["c"].mean(1)
    ts = _steps(theory_c)
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2), sharey=True)
    for k, mu in enumerate(mu_b):
        col = _viridis(k, len(mu_b))
        axes[0].plot(ts, c_u[k], "-", color=col, lw=1.8, label=rf"$\mu_b={mu:g}$")
        axes[0].plot(ts, theory_c[k], ":", color="black", lw=1.0)
        axes[1].plot(ts, c_u[k], "-", color=col, lw=1.8)
        axes[1].plot(ts, c_t[k], "--", color=col, lw=1.5)
    axes[0].set(
        xlabel="time step $t$",
        ylabel="pre-activation cosine similarity $c^t$",
        title="(a) untied MC (solid) vs theory (dotted)",
    )
    axes[1].set(xlabel="time step $t$", title="(b) untied (solid) vs tied (dashed) MC")
    for ax in axes:
        ax.axvline(9.5, color="gray", lw=0.8)
    axes[0].legend(ncol=2)
    return fig


def fig1ce(
    mu_fine, curves: dict, untied: dict, tied: dict, mu_b, converged
) -> plt.Figure:
    """Fig. 1(c): c* against the late-time MC; Fig. 1(e): tau for several Sigma_12.

    ``curves``: Sigma_12 -> (c*, tau) over ``mu_fine``."""
    c_u, c_t = monte_carlo.late_mean(untied["c"]), monte_carlo.late_mean(tied["c"])
    K = c_u.shape[1]
    fig, axes = _panels(2, row_height=3.6)
    axes[0].plot(
        mu_fine,
        curves[1.0][0],
        "-",
        color="black",
        lw=2,
        label=r"theory $c^*$ ($\Sigma_{12}=1$)",
    )
    axes[0].errorbar(
        mu_b,
        c_u.mean(1),
        yerr=2 * c_u.std(1, ddof=1) / np.sqrt(K),
        fmt="o",
        color=COLORS[0],
        label="MC untied (mean of $c^t$, last 5 steps)",
    )
    axes[0].plot(mu_b, c_t.mean(1), "s", mfc="none", color=COLORS[3], label="MC tied")
    late = np.nonzero(~np.asarray(converged, dtype=bool))[0]
    if len(late):  # a cross, not a label over the curve
        axes[0].plot(
            np.asarray(mu_b)[late],
            c_u.mean(1)[late],
            "x",
            ms=10,
            mew=2,
            color="grey",
            label=r"not converged ($\tau$ longer than the run)",
        )
    axes[0].set(
        xlabel=r"bias mean $\mu_b$",
        ylabel=r"fixed point $c^*$",
        title="(c) fixed point of the\ncosine similarity",
    )
    for (S, (_, tau)), col in zip(curves.items(), COLORS):
        axes[1].semilogy(
            mu_fine, tau, "-", color=col, lw=2, label=rf"$\tau$, $\Sigma_{{12}}={S}$"
        )
    axes[1].set(
        xlabel=r"bias mean $\mu_b$",
        ylabel=r"timescale $\tau=-1/\log\chi_{c^*}$ (steps)",
        title="(e) timescale of\nsignal propagation",
        ylim=(0.1, 5e4),
    )
    legend_below(fig, ncol=2)
    return fig


def fig1d(fits: list[WindowFit], untied: dict, cstar, mu_b) -> plt.Figure:
    """Fig. 1(d): |c^t - c*| of the untied MC (solid) against A exp(-t/tau) (dashed)."""
    c_u = untied["c"].mean(1)
    ts = _steps(c_u)
    late = ts >= 10
    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    for f in fits:
        k = f.index
        col = _viridis(k, len(mu_b))
        ax.semilogy(
            ts,
            np.abs(c_u[k] - cstar[k]),
            "-",
            color=col,
            lw=1.8,
            label=rf"MC untied, $\mu_b={mu_b[k]:g}$",
        )
        decay = f.amplitude * np.exp(-ts[late] / f.tau)
        ax.semilogy(ts[late], decay, "--", color=col, lw=1.2)
    ax.set(
        xlabel="time step $t$",
        ylabel=r"$|c^t-c^*|$",
        title=r"(d) linearised dynamics: MC (solid) vs $Ae^{-t/\tau}$ (dashed)",
        ylim=(1e-4, 1.5),
    )
    ax.legend()
    return fig


# ------------------------------------------------------------------ dynamical isometry (Sec. 3.2.2)
def algorithm1_survey(s) -> plt.Figure:
    """Where Algorithm 1 is feasible and stable, and chi_1 where a network would settle."""
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2))
    region = np.where(~s.feasible, 0, np.where(s.stable, 2, 1))
    im = axes[0].pcolormesh(
        s.mu_b,
        s.qstar,
        region,
        cmap=plt.get_cmap("viridis", 3),
        vmin=-0.5,
        vmax=2.5,
        shading="nearest",
    )
    cb = fig.colorbar(im, ax=axes[0], ticks=[0, 1, 2])
    cb.ax.set_yticklabels([r"$\sigma_v^2<0$", "unstable $Q^*$", "stable $Q^*$"])
    chi = np.where(s.feasible, s.chi1_settled, np.nan)
    im2 = axes[1].pcolormesh(
        s.mu_b, s.qstar, chi, cmap="coolwarm", vmin=0.8, vmax=1.2, shading="nearest"
    )
    fig.colorbar(
        im2, ax=axes[1], label=r"$\chi_1$ at the fixed point the map settles at"
    )
    titles = (
        f"Algorithm 1 over $(q^*,\\mu_b)$, $R={s.R}$",
        r"$\chi_1$ where a network would settle",
    )
    for ax, title in zip(axes, titles):
        ax.set(yscale="log", xlabel=r"bias mean $\mu_b$", ylabel=r"prescribed $q^*$")
        ax.set_title(title)
        ax.grid(False)
    return fig


def runaway(trajectories: dict, qstar: float, mu_b: float) -> plt.Figure:
    """q^t of the diagonal map started at f Q* (``trajectories``: f -> q^t)."""
    fig, ax = plt.subplots(figsize=(6.4, 3.8))
    colors = {1.01: COLORS[3], 0.99: COLORS[0], 1.0: "black"}
    for f, traj in trajectories.items():
        ax.plot(_steps(traj), traj, color=colors.get(f), label=f"$Q^0={f}\\,Q^*$")
    ax.axhline(qstar, color="gray", ls=":", label="prescribed $q^*$")
    ax.set(
        xlabel="time step $t$",
        ylabel="pre-activation variance $q^t$",
        yscale="log",
        title=f"Algorithm 1 at $q^*={qstar:.2f}$, $\\mu_b={mu_b:.2f}$: "
        "an unstable fixed point",
    )
    ax.legend()
    return fig


_ENSEMBLE_COLORS = {"Gaussian": COLORS[3], "orthogonal": COLORS[0]}


def minimal_spectrum(study) -> plt.Figure:
    """The spectral variance over T at each critical initialization, with the variance Eq. (12)
    implies (Eq. (12) - chi_1^(2T)) and the free product of the derived one-step variance."""
    n = len(study.settings)
    fig, axes = panels(n)
    for ax, (qs, mu) in zip(np.atleast_1d(axes), study.settings):
        for name, col in _ENSEMBLE_COLORS.items():
            e = study.ensembles[(qs, mu, name)]
            Ts, s1 = _steps(e.mean), e.s1
            ax.errorbar(
                Ts,
                e.mean,
                yerr=2 * e.se,
                fmt="o",
                ms=3,
                color=col,
                label=f"measured, {name} $W$",
            )
            ax.plot(
                Ts,
                e.predicted["printed"],
                "--",
                color=col,
                label=f"Eq. (12) $-\\chi_1^{{2T}}$, $s_1={s1:g}$",
            )
            ax.plot(
                Ts,
                e.predicted["free"],
                ":",
                color=col,
                lw=2,
                label=f"free product of the derived var$_1$, $s_1={s1:g}$",
            )
        ax.set(
            xlabel="number of steps $T$",
            ylabel=r"variance of the spectrum of $JJ^\top$",
            title=f"$\\mu_b={mu:g}$, $q^*={qs:g}$ ($\\chi_1=1$)",
        )
    np.atleast_1d(axes)[0].legend()
    return fig


def vanilla_spectrum(study: dict, sigma_w2: float) -> plt.Figure:
    """The vanilla RNN at chi_1 = 1 against T chi_1^(2T) (E phi'^4/E[phi'^2]^2 - 1 - s_1)."""
    fig, ax = plt.subplots(figsize=(6.4, 4))
    label = r"$T\chi_1^{{2T}}(\mathbb{{E}}\phi'^4/\mathbb{{E}}[\phi'^2]^2-1-s_1)$, $s_1={:g}$"
    for name, e in study.items():
        col, Ts = _ENSEMBLE_COLORS[name], _steps(e.mean)
        ax.errorbar(
            Ts,
            e.mean,
            yerr=2 * e.se,
            fmt="o",
            ms=3,
            color=col,
            label=f"measured, {name} $W$",
        )
        ax.plot(Ts, e.predicted["pred"], "--", color=col, label=label.format(e.s1))
    ax.set(
        xlabel="number of steps $T$",
        ylabel=r"variance of the spectrum of $JJ^\top$",
        title=f"Vanilla RNN at $\\chi_1=1$ ($q^*=0.5$, $\\sigma_w^2={sigma_w2:.3f}$)",
    )
    ax.legend()
    return fig


def gradient_norms(g) -> plt.Figure:
    """m_1(T) of tied networks for each initialization with chi_1^T, and the critical one untied
    and at half the width."""
    fig, ax = plt.subplots(figsize=(7, 4.2))
    for (label, m1), col in zip(g.tied.items(), COLORS):
        Tg, chi1 = _steps(m1), g.chi1[label]
        ax.semilogy(Tg, m1, "-", color=col, lw=2, label=f"{label}, tied")
        ax.semilogy(
            Tg,
            chi1**Tg,
            "--",
            color=col,
            lw=1,
            label=rf"$\chi_1^T$, $\chi_1={chi1:.3f}$",
        )
    ax.semilogy(Tg, g.untied, "-", color=COLORS[4], lw=2, label="critical, untied")
    ax.semilogy(
        Tg, g.half, ":", color=COLORS[0], lw=2, label=f"critical, tied, $N={g.N // 2}$"
    )
    ax.set(
        xlabel="number of steps $T$",
        ylabel=r"$\mathrm{tr}(JJ^\top)/N$ (squared gradient norm)",
        title=f"minimalRNNs, $N={g.N}$",
        ylim=(1e-12, 10),
    )
    ax.legend()
    return fig


# --------------------------------------------------------------------------- training (Secs. 4-5)
def fig2(acc: dict, tau: dict, sweeps: dict, Ts) -> plt.Figure:
    """Fig. 2: training accuracy over (hyperparameter, depth), untied (top) and tied (bottom),
    with tau on the same logarithmic depth axis (values outside the grid at its edge)."""
    Ts = np.asarray(Ts)
    fig, axes = plt.subplots(
        len(sweeps),
        2,
        figsize=(COLUMN_INCHES, 2.7 * len(sweeps) + 0.4),
        sharey=True,
        squeeze=False,
    )
    rows = np.arange(len(Ts))
    for j, (name, s) in enumerate(sweeps.items()):
        xi = np.arange(len(s.xs))
        y_tau = np.interp(
            np.log(np.clip(tau[name], 1e-3, 1e6)),
            np.log(Ts),
            rows,
            left=-0.5,
            right=len(Ts) - 0.5,
        )
        for i, wt in enumerate(("untied", "tied")):
            ax = axes[j, i]
            im = ax.pcolormesh(
                xi,
                rows,
                acc[(name, wt)],
                cmap="inferno",
                vmin=0.1,
                vmax=1.0,
                shading="nearest",
            )
            ax.grid(False)
            ax.plot(xi, y_tau, "w-o", ms=3, lw=2, label=r"$\tau$ (theory)")
            ax.set_xticks(xi, [f"{x:g}" for x in s.xs])
            ax.set_yticks(rows, [str(t) for t in Ts])
            ax.set_title(f"{name}, {wt}", fontsize=9)
            if i == 0:
                ax.set_ylabel("depth $T$ (noise steps)")
            ax.set_xlabel(s.xlabel)
    legend_below(fig)
    fig.colorbar(im, ax=axes, label="training accuracy", shrink=0.8)
    return fig


def fig3(curves: dict, labels, T: int) -> plt.Figure:
    """Fig. 3: test accuracy during training for the four initializations of each model."""
    styles = [("-", COLORS[0]), ("-", COLORS[3]), (":", COLORS[2]), (":", "black")]
    fig, axes = plt.subplots(1, 2, figsize=(11, 4), sharey=True)
    for ax, kind in zip(axes, ("vanilla", "minimal")):
        r = curves[kind]
        for k, (ls, col) in enumerate(styles):
            ax.plot(r.steps, r.accuracy[:, k], ls, color=col, lw=2, label=labels[k])
        model = "vanilla RNN" if kind == "vanilla" else "minimalRNN"
        ax.set(
            xlabel="training step",
            ylabel="test accuracy",
            title=f"{model}, sequential MNIST, $T={T}$",
        )
    axes[0].legend()
    return fig


def language_models(results: dict) -> plt.Figure:
    """Training perplexity of the language models (Table 1 in miniature), with the paper's
    Table 1 test perplexities (PTB, 5M parameters) as triangles inside the right edge."""
    from matplotlib.transforms import blended_transform_factory

    from .language_model import PAPER_PERPLEXITY

    fig, ax = plt.subplots(figsize=(6.4, 4))
    at = blended_transform_factory(ax.transAxes, ax.transData)
    ax.margins(x=0.14)  # room inside the axes for the paper's markers
    for k, ((c, r), col) in enumerate(zip(results.items(), COLORS)):
        st, pp = zip(*r.train_curve)
        ax.plot(st, pp, "-o", ms=3, color=col, label=f"{c} (test {r.test_ppl:.0f})")
        if c in PAPER_PERPLEXITY:  # side by side: the three are a few percent apart
            kw = dict(ms=8, color=col, transform=at)
            ax.plot([0.935 + 0.025 * k], [PAPER_PERPLEXITY[c]], "<", **kw)
    ax.plot([], [], "<", ms=8, color="grey", label="the paper (Table 1, PTB test)")
    n = results["LSTM"].parameters
    ax.set(
        xlabel="training step",
        ylabel="training perplexity (running)",
        yscale="log",
        title=f"Word-level LM, {n:,} parameters each",
    )
    legend_below(ax)
    return fig


def effect_trends(panels: list[dict]) -> plt.Figure:
    """Each training claim's effect against training steps: the seed mean with its 95% interval
    (shaded), the 'no effect' line at 0 and the declared band (dashed). A panel is a dict with
    'title', 'ylabel', 'band' (or None) and 'curves': label -> (steps, list of interval dicts)."""
    fig, axes = _panels(len(panels))
    for ax, p in zip(np.atleast_1d(axes), panels):
        for (label, (steps, ivs)), col in zip(p["curves"].items(), COLORS):
            m, lo, hi = (np.array([iv[k] for iv in ivs]) for k in ("mean", "lo", "hi"))
            ax.plot(steps, m, "-o", ms=3, color=col, label=label)
            ax.fill_between(steps, lo, hi, color=col, alpha=0.2, lw=0)
        ax.axhline(0, color="grey", lw=1)
        if p.get("band") is not None:
            for b in (p["band"], -p["band"]):
                ax.axhline(b, color="grey", lw=1, ls="--")
        ax.set(xlabel="training step", ylabel=p["ylabel"])
        ax.set_title(p["title"], fontsize=9)
        ax.legend()
    return fig
