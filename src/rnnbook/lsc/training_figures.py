"""The figures of the LSC training chapters (matplotlib only; each function returns the figure).

Pre-training curves (Sec. II-D), Fig. 2 (FFNs on MNIST), Fig. 3 (deep RNNs), Fig. 1c bottom (the
gradient through time of a deep GRU) and Fig. 4 (the LRU's validation perplexity).
"""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure

from rnnbook.plotting import COLORS, legend_below, panels

from .deep_rnns import CONDITIONS, conditions
from .ffn_mnist import DATASETS, INITS
from .lru_ptb import CONDS, LABEL
from .models import RNN_LABELS

PAPER_COLOR = "#8c2d04"  # the paper's numbers, marked on every figure that has one


def pretraining_curves(runs: dict, kinds: list) -> Figure:
    """The mean radius during pre-training, per network, for rho_t = 0.5 and 1."""
    fig, axes = panels(2, sharey=True)
    for ax, target in zip(axes, (0.5, 1.0)):
        for i, kind in enumerate(kinds):
            rep = runs[(kind, target)][0]
            ax.plot(
                np.arange(1, rep.steps + 1),
                rep.history["mean_radius"],
                color=COLORS[i % 8],
                label=RNN_LABELS[kind],
            )
        ax.axhline(target, color="k", ls="--", lw=1, label=r"target $\rho_t$")
        ax.set(xlabel="pre-training step", title=rf"$\rho_t={target}$", yscale="log")
    axes[0].set_ylabel(r"mean radius $\overline{\rho(M_k)}$")
    legend_below(fig)
    fig.suptitle("LSC pre-training of the six RNNs (2 layers, sl-MNIST inputs)")
    return fig


def variant_curves(var_runs: dict, width: int) -> Figure:
    """Mean radius and its spread across k during pre-training, per variant of the method."""
    fig, axes = panels(2)
    for i, (name, rep) in enumerate(var_runs.items()):
        s = np.arange(1, rep.steps + 1)
        mean = 0.5 + np.array(rep.history["mean_dev"])
        axes[0].plot(s, mean, color=COLORS[i], label=name)
        axes[1].plot(s, rep.history["std"], color=COLORS[i], label=name)
    axes[0].axhline(0.5, color="k", ls="--", lw=1, label=r"$\rho_t=0.5$")
    axes[1].axhline(0.2, color="k", ls=":", lw=1, label="criterion (ii): 0.2")
    axes[0].set(
        xlabel="pre-training step",
        ylabel=r"mean radius (dimensionless)",
        title="mean over $k$",
    )
    axes[1].set(
        xlabel="pre-training step",
        ylabel=r"std of $\rho(M_k)$ across $k$",
        title="spread over $k$",
    )
    legend_below(fig, ncol=2)  # one legend for both panels: the same three variants
    fig.suptitle(
        f"GRU (2 layers of width {width}), pre-training towards $\\rho_t=0.5$, "
        "three variants"
    )
    return fig


def ffn_accuracy(runs) -> Figure:
    """Fig. 2: test accuracy against the learning rate per activation and initialization
    (``runs``: :class:`rnnbook.lsc.ffn_mnist.Runs`)."""
    g, acc = runs.grid, runs.acc
    fig, axes = panels(len(g.acts), sharey=True)
    axes = np.atleast_1d(axes)
    for ax, a in zip(axes, g.acts):
        lrs = g.lrs_of(a)  # ReLU's grid is wider: every rate its claims are about
        for i, init in enumerate(INITS):
            m = [acc[(a, init, lr)].mean() for lr in lrs]
            sd = [acc[(a, init, lr)].std() for lr in lrs]
            ax.errorbar(
                lrs, m, yerr=sd, marker="o", capsize=3, color=COLORS[i], label=init
            )
        ax.set(xscale="log", xlabel="learning rate", title=f"activation: {a}")
        ax.set_xticks(lrs, [f"{lr:.2g}" for lr in lrs], minor=False)
        ax.minorticks_off()
    axes[0].set_ylabel("test accuracy (fraction)")
    legend_below(fig)
    seeds = f"{g.seeds} seed" + ("s" if g.seeds != 1 else "")
    fig.suptitle(
        f"{g.depth}-layer FFN of width {g.width} on {DATASETS[runs.dataset]}\n"
        f"mean ± sd over {seeds}, after {runs.steps[-1]} steps"
    )
    return fig


def cells_found_best(comparison: dict, alpha: float = 0.05) -> float:
    """The share of the compared cells (some arm trained: a seed-mean accuracy of at least
    twice chance) in which Glorot+LSC is found better than the better of Glorot and He, as
    the claim ``lsc.fig2.lsc-best`` decides a cell: one-sided t over seeds, Holm's procedure
    across the cells at family level ``alpha``; NaN without a compared cell."""
    from rnnbook.stats import holm_rejections, one_sided_p

    acc, best = comparison.get("cell_acc") or {}, comparison.get("cell_best") or {}
    twice = 2 * comparison.get("chance", 0.1)
    cells = [
        c
        for c in best
        if any(np.mean(v) >= twice for v in (acc.get(c) or {}).values() if len(v))
    ]
    if not cells:
        return float("nan")
    p = [one_sided_p("mean", best[c], 0.0, "above") for c in cells]
    return float(np.mean(holm_rejections(p, alpha)))


def ffn_trend(runs_by_data: dict) -> Figure:
    """Each Fig. 2 statistic against the training budget, per data set (``runs_by_data``:
    {name: :class:`rnnbook.lsc.ffn_mnist.Runs`}): the share of cells found best
    (:func:`cells_found_best`), and the two mean differences with their 95% intervals over
    seeds."""
    stats = (  # the claims files' lines and the paper's effects (lsc/ffn_mnist)
        ("best", "share of cells where Glorot+LSC\nis found best (Holm)", 0.5, 0.75),
        ("gl", "Glorot+LSC - Glorot\n(test accuracy)", 0.0, 0.02),
        ("he_diff", "ReLU: best Glorot+LSC - best He\n(test accuracy)", 0.0, 0.0),
    )
    fig, axes = panels(3)
    for ax, (_, _, _, paper) in zip(axes, stats):
        ax.axhline(paper, color=PAPER_COLOR, ls=(0, (6, 2)), lw=1.8, label="the paper")
    for i, (name, runs) in enumerate(runs_by_data.items()):
        t = runs.trend()
        found = [cells_found_best(runs.comparisons(k)) for k in range(len(t["steps"]))]
        for ax, (key, label, ref, _) in zip(axes, stats):
            m, lo, hi = t[f"{key}_mean"], t[f"{key}_lo"], t[f"{key}_hi"]
            if key == "best":  # a count of decisions, not an estimate: no band
                m = lo = hi = np.array(found, dtype=float)
            if np.all(np.isnan(m)):
                continue
            ax.plot(t["steps"], m, "o-", color=COLORS[i], label=name)
            ax.fill_between(t["steps"], lo, hi, color=COLORS[i], alpha=0.2)
            ax.axhline(ref, color="k", ls="--", lw=1)
            ax.set(xscale="log", xlabel="training steps (batch 32)", ylabel=label)
    legend_below(fig)
    fig.suptitle("Fig. 2 effects vs. training budget (95% intervals over seeds)")
    return fig


def deep_rnn_scores(runs) -> Figure:
    """Fig. 3: per task and network, the test figure of merit of each depth and condition
    (``runs``: :class:`rnnbook.lsc.deep_rnns.Runs`)."""
    g = runs.grid
    fig, axes = panels(len(g.tasks), row_height=3.2)
    axes = np.atleast_1d(axes)
    names = {"none": "none", 0.5: r"$\rho_t=0.5$", 1.0: r"$\rho_t=1$"}
    for ax, t in zip(axes, g.tasks):
        xs = np.arange(len(g.kinds))
        for j, (d, c) in enumerate([(d, c) for d in g.depths for c in CONDITIONS]):
            vals, errs = [], []
            for k in g.kinds:
                v = runs.scores(t, k, d, c) if c in conditions(k) else [np.nan]
                vals.append(abs(np.mean(v)))
                errs.append(np.std(v))
            ax.errorbar(
                xs + (j - 2.5) * 0.13,
                vals,
                yerr=errs,
                fmt="o" if d == g.depths[0] else "s",
                ms=4,
                capsize=2,
                color=COLORS[CONDITIONS.index(c)],
                label=f"L={d}, {names[c]}",
                mfc="white" if d != g.depths[0] else None,
            )
        ax.set_xticks(xs, [RNN_LABELS[k] for k in g.kinds], rotation=30)
        lm = runs.task_kinds[t] == "lm"
        ylabel = "test perplexity (lower is better)" if lm else None
        ax.set(title=t, ylabel=ylabel or "test mode accuracy (fraction)")
        if lm:
            ax.set_yscale("log")
    legend_below(fig, ncol=3)
    depths = " and ".join(map(str, g.depths))
    seeds = f"{g.seeds} seed" + ("s" if g.seeds != 1 else "")
    fig.suptitle(
        f"Six RNNs of depths {depths}, with and without LSC pre-training ({seeds})"
    )
    return fig


def gradient_through_time(res) -> Figure:
    """Fig. 1c (bottom): the gradient reaching layer 1 Δt steps back, with the fitted bounds of the
    proof of Theorem 1 (``res``: :class:`rnnbook.lsc.gru_gradient.GradientCurves`)."""
    fig, axes = panels(2)
    dts = np.arange(len(res.paths))
    for ax, target in zip(axes, (0.5, 1.0)):
        for c in res.runs[target]:
            ax.semilogy(dts, c, color=COLORS[1], lw=0.6, alpha=0.5)
        ax.semilogy(
            dts,
            res.curves[target],
            color=COLORS[1],
            label=r"$G(\Delta t)$, geometric mean (thin: each seed)",
        )
        if target == 0.5:
            bound, label = np.full_like(dts, res.c2, dtype=float), r"bound $c_2$"
            style = {"color": COLORS[2], "ls": "--"}
        else:
            bound = res.c1 * res.paths
            label = r"bound $c_1\binom{\Delta t+\Delta l}{\Delta t}$"
            style = {"color": COLORS[0], "ls": ":"}  # told apart in the shared legend
        ax.semilogy(dts, bound, label=label, **style)
        reps = res.reports[target]
        conv = f"({sum(r.converged for r in reps)}/{len(reps)} converged)"
        ax.set(
            xlabel=r"steps back in time $\Delta t$",
            title=rf"$\rho_t={target}$ " + conv,
        )
    axes[0].set_ylabel(r"gradient norm at layer 1 (a.u.)")
    legend_below(fig)  # one legend under both panels (each bound is drawn in one panel)
    fig.suptitle(f"GRU of depth $L={res.depth}$")
    return fig


def lru_validation(runs) -> Figure:
    """Fig. 4: validation perplexity during training, seed 0, per initialization, with (dashed)
    and without clipping (``runs``: :class:`rnnbook.lsc.lru_ptb.Runs`)."""
    depths = runs.grid.depths
    fig, axes = panels(len(depths), sharey=True)
    axes = np.atleast_1d(axes)
    for ax, d in zip(axes, depths):
        for i, c in enumerate(CONDS):
            for cl in (False, True):
                h = np.array(runs.results[(d, 0, c, cl)]["history"])
                if len(h):
                    ax.plot(
                        h[:, 0],
                        np.exp(np.minimum(h[:, 2], 20)),
                        color=COLORS[i],
                        ls="--" if cl else "-",
                        label=f"{LABEL[c]}{' + clip' if cl else ''}",
                    )
        ax.set(yscale="log", xlabel="training step", title=f"LRU depth {d} (seed 0)")
        paper_marks(ax, PAPER_TABLE1.get(d, {}))
    axes[0].set_ylabel("validation perplexity")
    legend_below(fig, ncol=2)
    return fig


#: the paper's Table I, validation perplexity on PTB (mean over 4 seeds), per depth:
#: condition -> (without clipping, with clipping)
PAPER_TABLE1 = {
    3: {
        "default": (139.34, 139.35),
        "rho=1": (229.67, 329.42),
        "rho=0.5": (131.84, 132.06),
        "rhobar=0.5": (126.57, 133.79),
    },
    6: {
        "default": (125.29, 147.62),
        "rho=1": (545.41, 596.69),
        "rho=0.5": (132.12, 129.94),
        "rhobar=0.5": (133.23, 132.74),
    },
}


def paper_marks(ax, table: dict) -> None:
    """The paper's Table I values of one depth as triangles at the right edge of ``ax``
    (filled: without clipping, open: with), coloured as the curves."""
    from matplotlib.transforms import blended_transform_factory

    at = blended_transform_factory(ax.transAxes, ax.transData)
    for i, c in enumerate(CONDS):
        for k, v in enumerate(table.get(c, ())):
            face = COLORS[i] if k == 0 else "none"
            ax.plot(
                [1.02],
                [v],
                "<",
                ms=7,
                color=COLORS[i],
                mfc=face,
                transform=at,
                clip_on=False,
                label="the paper's Table I (PTB)" if i == k == 0 else None,
            )


def effect_vs_steps(
    steps, curves: dict, ref: float | dict | None, ylabel: str, title: str
) -> Figure:
    """An effect along training: per label, its mean and 95% interval over seeds (``curves``:
    label -> (mean, lo, hi) arrays over ``steps``), with horizontal lines ``ref``: one
    "decision threshold", or label -> value (a claim's own lines, read from its declaration)."""
    fig, ax = panels(1, row_height=3.4)
    for i, (label, (m, lo, hi)) in enumerate(curves.items()):
        color = COLORS[i % len(COLORS)]
        ax.plot(steps, m, "o-", color=color, ms=3, label=label)
        ax.fill_between(
            steps, np.clip(lo, -1, 2), np.clip(hi, -1, 2), color=color, alpha=0.15
        )
    lines = {"decision threshold": ref} if isinstance(ref, (int, float)) else ref or {}
    styles = iter(("--", ":", "-.", (0, (1, 3)), (0, (3, 1, 1, 1))))
    for label, y in lines.items():
        if label.startswith("the paper"):  # the paper's number, beside the measurement
            ax.axhline(float(y), color=PAPER_COLOR, ls=(0, (6, 2)), lw=1.8, label=label)
        else:
            ax.axhline(float(y), color="grey", ls=next(styles, "--"), lw=1, label=label)
    ax.set(xlabel="training steps", ylabel=ylabel, title=title)
    ax.legend()
    return fig
