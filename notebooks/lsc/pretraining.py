# ---
# jupyter:
#   jupytext:
#     formats: py:percent
#     text_representation:
#       extension: .py
#       format_name: percent
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Pre-training to local stability (Sec. II-D)
#
# **What the paper claims.** Instead of deriving an initialization for every new architecture,
# {cite:t}`herranzcelotti2024lsc` (Sec. II-D) *pre-train* the network until it satisfies the Local Stability
# Condition: the spectral radius $\rho(M_k)$ of every transition derivative
# $M_k\in\{\partial\boldsymbol h_{t,l}/\partial\boldsymbol h_{t-1,l},\ \partial\boldsymbol h_{t,l}/\partial\boldsymbol h_{t-1,l-1}\}$
# should be on average a target $\rho_t$ (1 for feed-forward nets, 1 or $\tfrac12$ for deep RNNs). The states of
# an LSTM or ALIF layer are concatenated into one $\boldsymbol h_{t,l}$.
#
# :::{prf:algorithm} LSC pre-training (Sec. II-D, II-G)
# :label: alg-lsc-pretraining
# Repeat on batches of task inputs:
# 1. compute the radii of the transition derivatives and take a gradient step (AdaBelief, learning rate
#    $3.14\cdot10^{-3}$, weight decay $10^{-4}$) on $\mathcal L_{preparation}=\sum_{M_k}\big(\rho(M_k)-\rho_t\big)^2$ (Eq. 2);
# 2. multiply the input matrices of layer $l$ by $\kappa=\mathrm{clip}(\rho_t/\rho,\,0.85,\,1.15)$ of its depth
#    transition and the recurrent matrices by the $\kappa$ of its time transition;
# 3. shuffle each learnable tensor;
#
# until (i) $|\rho(M_k)-\rho_t|\le 0.02$, (ii) the standard deviation of $\rho(M_k)$ across $k$ is below 0.2 and
# (iii) its 10-step exponential moving average is below 0.2.
# :::
#
# The paper motivates the multiplier by a claim we test: *gradient descent alone satisfies the LSC on average,
# but with a wide variance*. It also reports that the default LRU {cite:p}`lru2023` already has
# $\mathbb E\rho = 0.525$ (Sec. III-D, Table I caption), and that the spiking ALIF networks could not be brought to
# $\rho_t=0.5$ (Fig. 3 caption).
#
# **What this chapter does.** It introduces the package's reusable implementation, `rnnbook.lsc`: the transition
# derivatives of any stack of cells computed batched with `torch.func` (`vmap` of `jacrev`), checked against a
# per-sample autograd loop; the pre-training loop with the multiplier, shuffling, the three stopping criteria and a
# step budget; then it pre-trains the six RNNs of App. H on spike-latency MNIST inputs and measures the default LRU.
#
# ```{admonition} Two choices the paper leaves open
# :class: note
# * **Which time step feeds the next layer.** The paper's Eq. (1) has layer $l$ read layer $l-1$ at $t-1$; the
#   networks of App. H (and this book's models) read it at the same step, $\boldsymbol h_{t,l}=g(\boldsymbol h_{t-1,l},\boldsymbol h_{t,l-1})$.
#   The transition derivatives are the same partial derivatives of the cell either way.
# * **The radius of a non-square matrix.** The first layer's depth transition maps the data (another width) to
#   the state. We pad it with zeros to a square matrix, whose radius is that of its leading square block
#   (`nonsquare="pad"`; `"norm"` would use the spectral norm).
# ```

# %% tags=["parameters"]
profile = "book"
seed = None
width = None
n_steps = None
side = None
batch = None
n_times = None
max_steps = None
kinds = None
lru_width = None
lru_depths = None
lru_T = None

# %% tags=["hide-input"]
import time

import numpy as np
import matplotlib.pyplot as plt
import torch
from IPython.display import Markdown, display
from myst_nb import glue

from rnnbook.lsc import pretrain as lsc
from rnnbook.lsc import tasks as lsc_data
from rnnbook.lsc import models as lm
from rnnbook import plotting
from rnnbook.book.ledger import Ledger
from rnnbook.book.params import describe, Param, at_least, resolve

SPEC = {
    "seed": Param(int, 0, 0, 0, at_least(0), ">= 0"),
    "width": Param(int, 8, 32, 128, at_least(2), ">= 2; neurons per layer of the RNNs"),
    "n_steps": Param(int, 10, 25, 50, at_least(2), ">= 2; time bins of sl-MNIST"),
    "side": Param(
        int,
        7,
        14,
        28,
        lambda v: v in (7, 14, 28),
        "7, 14 or 28; sl-MNIST image side after pooling",
    ),
    "batch": Param(
        int, 4, 16, 32, at_least(1), ">= 1; sequences per pre-training batch"
    ),
    "n_times": Param(
        int, 2, 4, 8, at_least(1), ">= 1; time steps sampled per sequence for the radii"
    ),
    "max_steps": Param(
        int, 6, 60, 500, at_least(1), ">= 1; step budget of the pre-training"
    ),
    "kinds": Param(
        list,
        ["relu_rnn", "alif_plus"],
        list(lm.RNN_KINDS),
        list(lm.RNN_KINDS),
        lambda v: v in lm.RNN_KINDS,
        f"each one of {list(lm.RNN_KINDS)}",
        item=str,
    ),
    "lru_width": Param(
        int, 16, 128, 256, at_least(2), ">= 2; model width of the LRU (Fig. 4 uses 128)"
    ),
    "lru_depths": Param(
        list, [3], [3, 6], [3, 6], at_least(1), "depths >= 1", item=int
    ),
    "lru_T": Param(int, 8, 50, 100, at_least(2), ">= 2; words per LRU sequence"),
}
P = resolve(
    SPEC,
    profile,
    seed=seed,
    width=width,
    n_steps=n_steps,
    side=side,
    batch=batch,
    n_times=n_times,
    max_steps=max_steps,
    kinds=kinds,
    lru_width=lru_width,
    lru_depths=lru_depths,
    lru_T=lru_T,
)
torch.manual_seed(P.seed)
torch.set_num_threads(
    1
)  # the models are small: one thread is the fastest (and leaves the other core free)
plotting.setup()
ledger = Ledger("lsc", P.profile)
display(Markdown(describe(P)))

# %% [markdown]
# ## The transition derivatives, batched
#
# A recurrent layer is a `Cell` with a `step(h, u)` (its Eq. 1) and an `out(h, u)` (what it passes up). For the
# sampled points $(b,t)$ of a batch, `StackedRNN.lsc_jacobians` evaluates
# $\partial\,\mathrm{step}_l(\boldsymbol h,\boldsymbol u)/\partial\boldsymbol h$ (time) and
# $\partial\,\mathrm{step}_l(\boldsymbol h_{t-1,l},\mathrm{out}_{l-1}(\boldsymbol g,\cdot))/\partial\boldsymbol g$ (depth) as
# `vmap(jacrev(...))`, one call per layer and kind. We check the result against a per-sample loop of
# `torch.autograd.grad` calls (one per output row) on a GRU and an LSTM fed with spike-latency MNIST, and time both.

# %%
slm = lsc_data.sl_mnist(
    "train", n=512, side=P.side, n_steps=P.n_steps, repeat=1, seed=P.seed
)
gen = torch.Generator().manual_seed(P.seed)


def input_batches(B=P.batch):
    while True:
        yield slm.dense(torch.randint(len(slm), (B,), generator=gen).numpy())


x0 = slm.dense(np.arange(P.batch))
bench = []
for kind in ("gru", "lstm"):
    model = lm.make_rnn(kind, 2, slm.n_channels, P.width, 10, seed=P.seed)
    t_batched = float("inf")
    with torch.no_grad():
        for _ in range(3):  # best of 3 (the first call also traces the vmap)
            t0 = time.perf_counter()
            trs = model.lsc_jacobians(
                x0, n_times=P.n_times, generator=torch.Generator().manual_seed(1)
            )
            rad_b = lsc.radii_by_group(trs)
            t_batched = min(t_batched, time.perf_counter() - t0)
    # the per-sample loop, on the same points
    with torch.no_grad():
        _, tr = model(x0, trace=True)
    g1 = torch.Generator().manual_seed(1)
    T_ = tr.H[0].shape[1]
    ti = torch.stack(
        [torch.randperm(T_, generator=g1)[: P.n_times] for _ in range(P.batch)]
    ).reshape(-1)
    bi = torch.arange(P.batch).repeat_interleave(P.n_times)
    t0 = time.perf_counter()
    c1, c2 = model.cells
    hp1 = torch.cat([tr.H0[0][:, None], tr.H[0][:, :-1]], 1)[bi, ti]
    hp2 = torch.cat([tr.H0[1][:, None], tr.H[1][:, :-1]], 1)[bi, ti]
    ref = {
        (1, "time"): lsc.per_sample_jacobian(c1.step, hp1, tr.U[0][bi, ti]),
        (1, "depth"): lsc.per_sample_jacobian(c1.step, hp1, tr.U[0][bi, ti], argnum=1),
        (2, "time"): lsc.per_sample_jacobian(c2.step, hp2, tr.U[1][bi, ti]),
        (2, "depth"): lsc.per_sample_jacobian(
            lambda g, hp, ub: c2.step(hp, c1.out(g, ub)),
            tr.H[0][bi, ti],
            hp2,
            tr.U[0][bi, ti],
        ),
    }
    rad_s = {k: lsc.spectral_radius(v) for k, v in ref.items()}
    t_loop = time.perf_counter() - t0
    err = max(float((rad_b[k] - rad_s[k]).abs().max()) for k in rad_b)
    jerr = max(float((tr_.M - ref[(tr_.layer, tr_.kind)]).abs().max()) for tr_ in trs)
    bench.append(
        (
            kind,
            t_batched,
            t_loop,
            err,
            jerr,
            sum(int(v.numel()) for v in rad_b.values()),
        )
    )
display(
    Markdown(
        "| network | matrices | batched (ms) | per-sample loop (ms) | speed-up | max abs. Jacobian difference | max abs. radius difference |\n"
        "|---|---|---|---|---|---|---|\n"
        + "\n".join(
            f"| {lm.RNN_LABELS[k]} (2 layers x {P.width}) | {n} | {tb * 1e3:.0f} | {tl * 1e3:.0f} | {tl / tb:.0f}x | {je:.1e} | {e:.1e} |"
            for k, tb, tl, e, je, n in bench
        )
    )
)
glue("bench_speedup", float(min(tl / tb for _, tb, tl, *_ in bench)), display=False)

# %% [markdown]
# The two computations agree to float precision, and the batched one is at least
# {glue:text}`bench_speedup:.0f` times faster here (the per-sample loop includes its own eigenvalue calls). The
# script `benchmarks/lsc_radius.py` times the same comparison at the sizes the book's experiments use; on the
# build machine (2 cores shared with other jobs, one thread) it measured speed-ups of 29x (GRU, 2x32), 32x (LSTM, 5x24) and 12x
# (LRU, 3x64).
#
# ## Pre-training the six RNNs of App. H
#
# Each network has two layers of the chapter's width, its default initialization (App. H: Glorot-uniform input
# matrices, orthogonal recurrent ones; ALIF as Tab. S1), and is pre-trained on batches of sl-MNIST inputs towards
# $\rho_t=0.5$ and $\rho_t=1$, with a budget of `max_steps` steps.

# %%
runs = {}
for kind in plotting.progress(P.kinds, desc="pre-training"):
    for target in (0.5, 1.0):
        model = lm.make_rnn(kind, 2, slm.n_channels, P.width, 10, seed=P.seed)
        before = lsc.measure(
            model, x0, n_times=P.n_times, generator=torch.Generator().manual_seed(2)
        )
        rep = lsc.pretrain(
            model,
            input_batches(),
            lsc.LSCConfig(target=target, max_steps=P.max_steps, n_times=P.n_times),
            seed=P.seed,
        )
        after = lsc.measure(
            model, x0, n_times=P.n_times, generator=torch.Generator().manual_seed(2)
        )
        runs[(kind, target)] = (rep, before, after)
rows = []
for (kind, target), (rep, before, after) in runs.items():
    b, a = np.concatenate(list(before.values())), np.concatenate(list(after.values()))
    rows.append(
        f"| {lm.RNN_LABELS[kind]} | {target} | {b.mean():.3f} ± {b.std():.3f} | {a.mean():.3f} ± {a.std():.3f} | "
        f"{'yes' if rep.converged else '**no**'} | {rep.steps} | {rep.seconds:.1f} |"
    )
display(
    Markdown(
        "| network | $\\rho_t$ | radius before (mean ± sd over $k$) | after | converged | steps | seconds |\n"
        "|---|---|---|---|---|---|---|\n" + "\n".join(rows)
    )
)
print(runs[(P.kinds[0], 0.5)][0])

# %%
fig, axes = plt.subplots(1, 2, figsize=(10, 3.6), sharey=True)
for ax, target in zip(axes, (0.5, 1.0)):
    for i, kind in enumerate(P.kinds):
        rep = runs[(kind, target)][0]
        ax.plot(
            np.arange(1, rep.steps + 1),
            rep.history["mean_radius"],
            color=plotting.COLORS[i % 8],
            label=lm.RNN_LABELS[kind],
        )
    ax.axhline(target, color="k", ls="--", lw=1, label=r"target $\rho_t$")
    ax.set(xlabel="pre-training step", title=rf"$\rho_t={target}$", yscale="log")
axes[0].set_ylabel(r"mean radius $\overline{\rho(M_k)}$ (dimensionless)")
axes[1].legend(fontsize=7, ncol=2)
fig.suptitle("LSC pre-training of the six RNNs (2 layers, sl-MNIST inputs)")
plt.show()

# %% [markdown]
# **Figure 1.** The mean radius of the transition derivatives during pre-training, for each network and target.
# The differentiable networks reach the dashed target within a few tens of steps (the multiplier moves the
# radius by at most 15% per step); the curves of the spiking ALIF networks show whether they get there within the
# budget.

# %%
diff_kinds = [k for k in P.kinds if k in lm.DIFFERENTIABLE]
alif_kinds = [k for k in P.kinds if k not in lm.DIFFERENTIABLE]
conv = {k: runs[k][0].converged for k in runs}
n_diff = sum(conv[(k, t)] for k in diff_kinds for t in (0.5, 1.0))
ledger.record(
    "lsc.pretrain.converges",
    "Sec. II-D",
    "Pre-training with the Eq. (2) loss, the clipped weight multiplier and shuffling brings differentiable d-RNNs "
    "to the LSC targets rho_t in {0.5, 1} (all three stopping criteria met).",
    paper_value="converged (criteria: |mean - rho_t| <= 0.02, std < 0.2, EMA10(std) < 0.2)",
    measured=f"{n_diff} of {2 * len(diff_kinds)} (network, target) pairs converged within {P.max_steps} steps "
    f"({', '.join(f'{lm.RNN_LABELS[k]}@{t}: {runs[(k, t)][0].steps}' for k in diff_kinds for t in (0.5, 1.0))} steps)",
    tolerance="all pairs converge within the step budget",
    verdict="reproduced"
    if n_diff == 2 * len(diff_kinds)
    else ("partly-reproduced" if n_diff else "not-reproduced"),
    note=f"2 layers of width {P.width} (the paper: 2 and 5 layers, widths of Tab. S1), spike-latency MNIST pooled to "
    f"{P.side}x{P.side} with {P.n_steps} time bins; radii at {P.n_times} random time steps of {P.batch} sequences per step.",
)
if alif_kinds:
    alif_half = [conv[(k, 0.5)] for k in alif_kinds]
    alif_one = [conv[(k, 1.0)] for k in alif_kinds]
    fail_half, fail_one = len(alif_half) - sum(alif_half), len(alif_one) - sum(alif_one)
    ledger.record(
        "lsc.pretrain.alif-half",
        "Fig. 3",
        "With the non-differentiable ALIF+ and ALIF+- networks it was often impossible to converge to rho_t = 0.5.",
        paper_value="often not converged at rho_t = 0.5",
        measured=f"rho_t = 0.5: {sum(alif_half)} of {len(alif_half)} ALIF networks converged within {P.max_steps} steps; "
        f"rho_t = 1: {sum(alif_one)} of {len(alif_one)}; final mean radii at 0.5: "
        + ", ".join(
            f"{lm.RNN_LABELS[k]} {runs[(k, 0.5)][0].mean_radius:.2f}"
            for k in alif_kinds
        ),
        tolerance="reproduced if at least half of the ALIF networks fail at 0.5 and more fail at 0.5 than at 1; "
        "partly if some fail at 0.5",
        verdict="reproduced"
        if (fail_half >= len(alif_half) / 2 and fail_half > fail_one)
        else ("partly-reproduced" if fail_half else "not-reproduced"),
        note="2 layers, surrogate gradient = fast-sigmoid derivative (gamma = 0.5, omega = 1), Tab. S1 time constants "
        "(tau_y = 0.1 as printed, tau_theta = 100). Failing within our budget is weaker evidence than the paper's "
        "'impossible': a larger budget might converge.",
    )

# %% [markdown]
# ## Does the multiplier reduce the spread of the radii?
#
# Sec. II-D argues that gradient descent on Eq. (2) alone "results in $M_k$ satisfying the LSC on average, with a
# wide variance", which the multiplier and the shuffling are there to reduce. We pre-train the same GRU towards
# $\rho_t=0.5$ three ways, with the same step budget and no early stop: gradient descent alone, gradient descent
# with the multiplier, and the full method (multiplier and shuffling), and follow the mean and the spread of the
# radii across $k$.

# %%
variants = {
    "gradient descent only": dict(multiplier=False, shuffle=False),
    "+ multiplier": dict(multiplier=True, shuffle=False),
    "+ multiplier + shuffling (the method)": dict(multiplier=True, shuffle=True),
}
var_runs = {}
for name, kw in plotting.progress(variants.items(), desc="variants"):
    model = lm.make_rnn("gru", 2, slm.n_channels, P.width, 10, seed=P.seed)
    cfg = lsc.LSCConfig(
        target=0.5,
        max_steps=P.max_steps,
        min_steps=P.max_steps,
        n_times=P.n_times,
        **kw,
    )
    var_runs[name] = lsc.pretrain(model, input_batches(), cfg, seed=P.seed)
fig, axes = plt.subplots(1, 2, figsize=(10, 3.6))
for i, (name, rep) in enumerate(var_runs.items()):
    s = np.arange(1, rep.steps + 1)
    axes[0].plot(
        s, 0.5 + np.array(rep.history["mean_dev"]), color=plotting.COLORS[i], label=name
    )
    axes[1].plot(s, rep.history["std"], color=plotting.COLORS[i], label=name)
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
axes[0].legend(fontsize=7)
axes[1].legend(fontsize=7)
fig.suptitle(f"GRU (2 x {P.width}), pre-training towards $\\rho_t=0.5$, three variants")
plt.show()
last = max(1, P.max_steps // 4)
sd = {n: float(np.mean(r.history["std"][-last:])) for n, r in var_runs.items()}
md = {n: float(np.mean(r.history["mean_dev"][-last:])) for n, r in var_runs.items()}
gd, full = "gradient descent only", "+ multiplier + shuffling (the method)"
glue("sd_gd", sd[gd], display=False)
glue("sd_full", sd[full], display=False)
glue("md_gd", md[gd], display=False)
glue("md_full", md[full], display=False)

# %% [markdown]
# **Figure 2.** Left: the mean radius; right: its standard deviation across the transition derivatives. Over the
# last quarter of the budget, gradient descent alone ends with a mean deviation from the target of
# {glue:text}`md_gd:+.3f` and a spread of {glue:text}`sd_gd:.3f`; the full method with {glue:text}`md_full:+.3f` and
# {glue:text}`sd_full:.3f`.

# %%
ledger.record(
    "lsc.pretrain.multiplier-variance",
    "Sec. II-D",
    "Gradient-descent pre-training alone satisfies the LSC on average but with a wide variance; the weight multiplier "
    "(with shuffling) reduces that variance.",
    measured=f"GRU 2x{P.width}, rho_t = 0.5, {P.max_steps} steps, mean over the last {last} steps: gradient descent only: "
    f"mean deviation {md[gd]:+.3f}, std across k {sd[gd]:.3f}; + multiplier: {md['+ multiplier']:+.3f}, "
    f"{sd['+ multiplier']:.3f}; full method: {md[full]:+.3f}, {sd[full]:.3f}",
    tolerance="reproduced if the full method's std is lower than gradient descent's and gradient descent's mean is within 0.1 of the target",
    verdict="reproduced"
    if (sd[full] < sd[gd] and abs(md[gd]) <= 0.1)
    else (
        "partly-reproduced"
        if sd[full] < sd[gd] or abs(md[gd]) <= 0.1
        else "not-reproduced"
    ),
    note="One network and seed; the paper gives no number for this statement.",
)

# %% [markdown]
# ## The default LRU's radius
#
# The LRU {cite:p}`lru2023` is a deep stack of blocks whose recurrent state is $x_k$ (Eq. 50). Its time transition
# is $\Lambda$ itself, so $\rho_{time}=\max_j|\lambda_j|$, close to 1 with $|\lambda_j|$ uniform in $[0.5, 1]$. Its
# depth transition $\partial x_{t,l}/\partial x_{t,l-1}$ goes through the lower block's output map, the residual
# stream, the layer norm and $B$. The paper reports that by default $\mathbb E\rho=0.525$, "with higher weight to the
# time component than to the depth component". We measure the default LRU language model (embedding, blocks of
# width `lru_width`, tied output) on windows of the word-level corpus.

# %%
corpus = lsc_data.word_corpus(10_000)
windows = lsc_data.lm_windows(corpus.train, P.lru_T, n=P.batch, seed=P.seed)
lru_rows, lru_meas = [], {}
for depth in P.lru_depths:
    for s in range(2):
        model = lm.make_lru(depth, corpus.vocab_size, P.lru_width, seed=P.seed + s)
        rad = lsc.measure(
            model,
            windows[:, :-1],
            n_times=P.n_times,
            generator=torch.Generator().manual_seed(s),
        )
        tm = float(np.mean([rad[(l, "time")].mean() for l in range(1, depth + 1)]))
        dm_all = float(np.mean([rad[(l, "depth")].mean() for l in range(1, depth + 1)]))
        dm_in = (
            float(np.mean([rad[(l, "depth")].mean() for l in range(2, depth + 1)]))
            if depth > 1
            else float("nan")
        )
        every = float(np.mean(np.concatenate(list(rad.values()))))
        inner = float(
            np.mean(
                np.concatenate(
                    [v for (l, k), v in rad.items() if not (l == 1 and k == "depth")]
                )
            )
        )
        lru_meas[(depth, s)] = (tm, dm_all, dm_in, every, inner)
        lru_rows.append(
            f"| {depth} | {s} | {tm:.3f} | {float(rad[(1, 'depth')].mean()):.3f} | {dm_in:.3f} | {every:.3f} | {inner:.3f} |"
        )
display(
    Markdown(
        "| depth | seed | $\\rho_{time}$ | $\\rho_{depth}$ from the embedding (layer 1) | $\\rho_{depth}$, layers $\\ge2$ | "
        "$\\mathbb E\\rho$, all $M_k$ | $\\mathbb E\\rho$ without the embedding's |\n|---|---|---|---|---|---|---|\n"
        + "\n".join(lru_rows)
    )
)
inner_mean = float(np.mean([v[4] for v in lru_meas.values()]))
every_mean = float(np.mean([v[3] for v in lru_meas.values()]))
time_gt_depth = all(v[0] > v[2] for v in lru_meas.values() if np.isfinite(v[2]))
glue("lru_inner", inner_mean, display=False)
glue("lru_every", every_mean, display=False)
ledger.record(
    "lsc.lru.default-radius",
    "Table I",
    "The default LRU initialization already has E rho = 0.525, with a higher weight on the time component than on "
    "the depth component.",
    paper_value=0.525,
    measured=f"E rho over all M_k = {every_mean:.3f}; without the embedding -> layer 1 transition = {inner_mean:.3f}; "
    f"time component > depth component in every model: {time_gt_depth} (depths {P.lru_depths}, width {P.lru_width}, 2 seeds)",
    tolerance="|E rho - 0.525| <= 0.05 (the spread over seeds and samples is about 0.03)",
    verdict="reproduced"
    if abs(inner_mean - 0.525) <= 0.05 and time_gt_depth
    else ("partly-reproduced" if time_gt_depth else "not-reproduced"),
    note="The LRU state is taken to be x (Re and Im stacked), the time radius is max|lambda| and the depth transition "
    "d x_{t,l} / d x_{t,l-1} holds the residual stream below fixed; the value depends on these choices, on the "
    "embedding's scale (N(0, 1/width) here; layer norm amplifies a small embedding) and on how the non-square "
    "first transition is measured, none of which the paper states. Word-level Jane Austen stand-in for PTB.",
)

# %% [markdown]
# The time component is close to 1 in every model, as expected from $|\lambda_j|\le1$, and the depth component is
# smaller: the qualitative half of the claim. The value of $\mathbb E\rho$ depends on what is counted: over all
# transitions {glue:text}`lru_every:.3f`; without the transition from the embedding into the first block
# {glue:text}`lru_inner:.3f`, against the paper's 0.525.
#
# ## Verdicts

# %%
display(Markdown(ledger.table()))
