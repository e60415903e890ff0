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
# # Deep RNNs pre-trained to $\rho_t=\tfrac12$ or $1$ (Fig. 3, Fig. 1c bottom)
#
# **What the paper claims.** {cite:t}`herranzcelotti2024lsc` (Sec. III-C, Fig. 3) pre-train six recurrent
# networks, the σ-RNN, ReLU-RNN, GRU and LSTM (differentiable) and the spiking ALIF+ and ALIF± (with a surrogate
# gradient), at depths $L\in\{2,5\}$, to $\rho_t=0.5$ or $\rho_t=1$ (ALIF: only 1), or not at all, and train them on
# spike-latency MNIST, the Spiking Heidelberg Digits (SHD) and Penn Treebank (PTB), 4 seeds each:
#
# * "more than 63% of the times $\rho_t=0.5$ gave better performance than $\rho_t=1$ for both depths";
# * "no pre-training matched the rate of $\rho_t=0.5$ for depth 2, but $\rho_t=0.5$ outperformed no pre-training
#   70% of the times with deeper networks";
# * for the ALIF networks, "the deeper the network, the more favorable it was to pre-train to $\rho_t=1$".
#
# Fig. 1c (bottom) shows a GRU of depth 7 pre-trained on SHD: with $\rho=1$ its gradient grows backwards in time
# (an explosion of *additive* origin, bounded by the binomial count of gradient paths), with $\rho=0.5$ it stays
# bounded by a constant.
#
# **What this chapter does.** It runs the whole grid, scaled down to a CPU (see the parameters and the notes of
# each claim), recomputes the paper's comparison rates from its own runs, and measures the deep GRU's gradient
# through time. Every run's raw result is cached in the build folder.
#
# ```{admonition} The data
# :class: note
# * **sl-MNIST** is built from the real MNIST: each pixel $x\in[0,1]$ spikes once at $\tau_{eff}\log\frac{x}{x-\vartheta}$
#   ($x>\vartheta=0.2$, $\tau_{eff}=50$ ms) {cite:p}`slmnist2021`, here after average-pooling the image.
# * **SHD** {cite:p}`shd2020` (spoken digits 0-9 in English and German, 20 classes, turned into 700 spike trains by a
#   model of the inner ear) cannot be downloaded here. Its stand-in keeps what it is made of: the same 20 words
#   synthesised by eSpeak NG {cite:p}`espeakng` with 12 voices as speakers (9 for training, 1 for validation, 2
#   unseen for testing, as SHD's test speakers are unseen), several speaking rates and pitches, and a small ear
#   model (band-pass filters on the ERB scale, compression, one leaky integrate-and-fire neuron per channel).
#   Synthetic speech is cleaner and less varied than real speakers, so the stand-in is easier than SHD.
#   `rnnbook.lsc.tasks.shd` reads the real files for a reader who has them.
# * **PTB** is replaced by the word-level Jane Austen corpus of `rnnbook.datasets.word_corpus`, tokenised like PTB.
# ```

# %% tags=["parameters"]
profile = "book"
seeds = None
tasks = None
kinds = None
depths = None
width = None
T_slmnist = None
side = None
T_shd = None
shd_channels = None
shd_rates = None
shd_pitches = None
T_ptb = None
vocab = None
n_train = None
n_val = None
n_test = None
steps = None
eval_every = None
lr_diff = None
lr_alif = None
pre_steps = None
pre_batch = None
gru_depth = None
gru_width = None
T_grad = None

# %% tags=["hide-input"]
import math

import numpy as np
import matplotlib.pyplot as plt
import torch
from IPython.display import Markdown, display
from myst_nb import glue

from rnnbook.lsc import pretrain as lsc
from rnnbook.lsc import tasks as lsc_data
from rnnbook.lsc import experiments as E
from rnnbook.lsc import models as lm
from rnnbook import plotting
from rnnbook.book.ledger import Ledger
from rnnbook.book.params import describe, Param, at_least, positive, resolve

SPEC = {
    "seeds": Param(int, 1, 2, 4, at_least(1), ">= 1"),
    "tasks": Param(
        list,
        list(E.TASKS),
        list(E.TASKS),
        list(E.TASKS),
        lambda v: v in E.TASKS,
        f"each one of {list(E.TASKS)}",
        item=str,
    ),
    "kinds": Param(
        list,
        ["gru", "alif_plus"],
        list(lm.RNN_KINDS),
        list(lm.RNN_KINDS),
        lambda v: v in lm.RNN_KINDS,
        f"each one of {list(lm.RNN_KINDS)}",
        item=str,
    ),
    "depths": Param(list, [2, 3], [2, 5], [2, 5], at_least(1), "depths >= 1", item=int),
    "width": Param(
        int,
        8,
        32,
        128,
        at_least(4),
        ">= 4; width of the simple RNNs and ALIF (GRU x 53/128, LSTM x 42/128, as Tab. S1)",
    ),
    "T_slmnist": Param(int, 5, 10, 50, at_least(2), ">= 2; time bins of sl-MNIST"),
    "side": Param(int, 7, 14, 28, lambda v: v in (7, 14, 28), "7, 14 or 28"),
    "T_shd": Param(
        int, 8, 16, 100, at_least(2), ">= 2; time bins of the SHD stand-in (over 1 s)"
    ),
    "shd_channels": Param(
        int, 16, 32, 128, at_least(2), ">= 2; channels of the ear model"
    ),
    "shd_rates": Param(
        list,
        [160],
        [130, 170, 210],
        [130, 160, 190, 220],
        at_least(80),
        "eSpeak speaking rates (words/min, >= 80)",
        item=int,
    ),
    "shd_pitches": Param(
        list,
        [50],
        [40, 60],
        [35, 50, 65],
        lambda v: 0 <= v <= 99,
        "eSpeak pitches, 0..99",
        item=int,
    ),
    "T_ptb": Param(int, 5, 10, 100, at_least(2), ">= 2; words per sequence"),
    "vocab": Param(
        int,
        500,
        2000,
        10000,
        at_least(10),
        ">= 10; vocabulary of the word-level stand-in",
    ),
    "n_train": Param(
        int, 100, 1000, 45000, at_least(10), ">= 10 training sequences per task"
    ),
    "n_val": Param(int, 32, 128, 5000, at_least(10), ">= 10"),
    "n_test": Param(int, 50, 256, 10000, at_least(10), ">= 10"),
    "steps": Param(
        int, 6, 60, 20000, at_least(1), ">= 1; maximal training steps (batch 32)"
    ),
    "eval_every": Param(
        int,
        3,
        20,
        500,
        at_least(1),
        ">= 1; steps between validations (patience: 2 at smoke/book, 10 at paper)",
    ),
    "lr_diff": Param(
        list,
        [1e-2, 3.16e-3, 3.16e-3],
        [1e-2, 3.16e-3, 3.16e-3],
        [1e-2, 1e-3, 3.16e-4],
        positive,
        "3 positive learning rates (sl-MNIST, SHD, PTB) for the differentiable networks",
        item=float,
    ),
    "lr_alif": Param(
        list,
        [3.16e-3] * 3,
        [3.16e-3] * 3,
        [1e-3] * 3,
        positive,
        "3 positive learning rates for ALIF",
        item=float,
    ),
    "pre_steps": Param(
        int, 3, 15, 1000, at_least(1), ">= 1; step budget of the LSC pre-training"
    ),
    "pre_batch": Param(int, 4, 8, 32, at_least(1), ">= 1"),
    "gru_depth": Param(int, 3, 7, 7, at_least(2), ">= 2; depth of the GRU of Fig. 1c"),
    "gru_width": Param(int, 8, 32, 117, at_least(2), ">= 2"),
    "T_grad": Param(
        int,
        12,
        100,
        250,
        at_least(5),
        ">= 5; time bins of the SHD stand-in for Fig. 1c",
    ),
}
P = resolve(
    SPEC,
    profile,
    seeds=seeds,
    tasks=tasks,
    kinds=kinds,
    depths=depths,
    width=width,
    T_slmnist=T_slmnist,
    side=side,
    T_shd=T_shd,
    shd_channels=shd_channels,
    shd_rates=shd_rates,
    shd_pitches=shd_pitches,
    T_ptb=T_ptb,
    vocab=vocab,
    n_train=n_train,
    n_val=n_val,
    n_test=n_test,
    steps=steps,
    eval_every=eval_every,
    lr_diff=lr_diff,
    lr_alif=lr_alif,
    pre_steps=pre_steps,
    pre_batch=pre_batch,
    gru_depth=gru_depth,
    gru_width=gru_width,
    T_grad=T_grad,
)
if len(P.lr_diff) != 3 or len(P.lr_alif) != 3:
    raise ValueError(
        "parameters 'lr_diff' and 'lr_alif' need 3 values each (sl-MNIST, SHD, PTB)"
    )
patience = 10 if P.profile == "paper" else 2
torch.set_num_threads(
    1
)  # the models are small: one thread is the fastest (and leaves the other core free)
plotting.setup()
ledger = Ledger("lsc", P.profile)
display(Markdown(describe(P)))

# %% [markdown]
# ## The grid
#
# Widths follow Tab. S1's ratios (comparable parameter counts): the simple RNNs and ALIF get `width`, the GRU
# 53/128 of it and the LSTM 42/128; the width stays that of depth 2 when the depth grows. On the word-level task the
# input is an embedding of dimension `width` and the output is tied to it (App. G). Conditions: no pre-training
# (`none`), $\rho_t=0.5$ and $\rho_t=1$ for the differentiable networks; `none` and $\rho_t=1$ for ALIF (the paper
# only sets 1 for the spiking networks; their convergence at 0.5 is checked in the pre-training chapter).

# %%
TASK_ARGS = {
    "sl-mnist": dict(T=P.T_slmnist, side=P.side),
    "shd-standin": dict(
        T=P.T_shd, n_channels=P.shd_channels, rates=P.shd_rates, pitches=P.shd_pitches
    ),
    "ptb-standin": dict(T=P.T_ptb, vocab=P.vocab),
}
task_data = {
    t: E.build_task(t, P.n_train, P.n_val, P.n_test, **TASK_ARGS[t]) for t in P.tasks
}


def net_width(kind):
    return max(2, round(P.width * {"gru": 53 / 128, "lstm": 42 / 128}.get(kind, 1.0)))


def conditions(kind):
    """Fig. 3: none, 0.5 and 1 for the differentiable networks; none and 1 for ALIF (Sec. II-E)."""
    return ["none", 0.5, 1.0] if kind in lm.DIFFERENTIABLE else ["none", 1.0]


def build(kind, depth, task, seed):
    if task.kind == "lm":
        return lm.make_rnn(
            kind, depth, P.width, net_width(kind), task.n_out, seed, vocab=task.n_out
        )
    return lm.make_rnn(kind, depth, task.n_in, net_width(kind), task.n_out, seed)


def train_one(t, k, d, c, s, lr):
    """One run of Fig. 3 (its source is part of the cache key)."""
    task = task_data[t]
    model = build(k, d, task, s)
    rep = None
    if c != "none":
        rep = E.pretrain_seq(
            model, task, float(c), False, P.pre_steps, P.pre_batch, 2, s
        )
    res = E.train_seq(
        model,
        task,
        E.TrainConfig(
            lr=lr,
            batch=32,
            max_steps=P.steps,
            eval_every=P.eval_every,
            patience=patience,
            seed=s,
        ),
    )
    res["pretrain"] = E.report_summary(rep)
    return res


runs = {}
grid = [
    (t, k, d, c, s)
    for t in P.tasks
    for k in P.kinds
    for d in P.depths
    for c in conditions(k)
    for s in range(P.seeds)
]
for t, k, d, c, s in plotting.progress(grid, desc="Fig. 3 runs"):
    lr = (P.lr_diff if k in lm.DIFFERENTIABLE else P.lr_alif)[E.TASKS.index(t)]
    params = dict(
        task=t,
        task_args=TASK_ARGS[t],
        n=(P.n_train, P.n_val, P.n_test),
        kind=k,
        depth=d,
        cond=c,
        seed=s,
        width=net_width(k),
        emb=P.width,
        lr=lr,
        steps=P.steps,
        eval_every=P.eval_every,
        patience=patience,
        pre_steps=P.pre_steps,
        pre_batch=P.pre_batch,
    )
    runs[(t, k, d, c, s)] = E.cached(
        "rnn", params, lambda: train_one(t, k, d, c, s, lr), code=train_one
    )


# %%
def perf(t, k, d, c):
    """Mean over seeds of the figure of merit (higher is better): test mode accuracy, or minus test perplexity."""
    return float(
        np.mean(
            [E.score(runs[(t, k, d, c, s)], task_data[t].kind) for s in range(P.seeds)]
        )
    )


fig, axes = plt.subplots(
    1, len(P.tasks), figsize=(4.2 * len(P.tasks), 3.8), squeeze=False
)
cond_names = {"none": "none", 0.5: r"$\rho_t=0.5$", 1.0: r"$\rho_t=1$"}
for ax, t in zip(axes[0], P.tasks):
    xs = np.arange(len(P.kinds))
    for j, (d, c) in enumerate([(d, c) for d in P.depths for c in ("none", 0.5, 1.0)]):
        vals, errs = [], []
        for k in P.kinds:
            v = (
                [
                    E.score(runs[(t, k, d, c, s)], task_data[t].kind)
                    for s in range(P.seeds)
                ]
                if c in conditions(k)
                else [np.nan]
            )
            vals.append(abs(np.mean(v)))
            errs.append(np.std(v))
        off = (j - 2.5) * 0.13
        ax.errorbar(
            xs + off,
            vals,
            yerr=errs,
            fmt="o" if d == P.depths[0] else "s",
            ms=4,
            capsize=2,
            color=plotting.COLORS[["none", 0.5, 1.0].index(c)],
            label=f"L={d}, {cond_names[c]}",
            mfc="white" if d != P.depths[0] else None,
        )
    ax.set_xticks(xs, [lm.RNN_LABELS[k] for k in P.kinds], rotation=30, fontsize=8)
    kind_t = task_data[t].kind
    ax.set(
        title=t,
        ylabel="test mode accuracy (fraction)"
        if kind_t == "classify"
        else "test perplexity (lower is better)",
    )
    if kind_t == "lm":
        ax.set_yscale("log")
axes[0][-1].legend(fontsize=7, ncol=2)
fig.suptitle(
    f"Six RNNs, depths {P.depths}, with and without LSC pre-training ({P.seeds} seed(s))"
)
plt.tight_layout()
plt.show()

# %% [markdown]
# **Figure 1.** The paper's Fig. 3 recomputed: for each task and network, the test figure of merit of each depth
# (filled: shallower, open: deeper) and condition (colour). Error bars: standard deviation over seeds.

# %%
rows = []
for t in P.tasks:
    for k in P.kinds:
        for d in P.depths:
            cells = []
            for c in ("none", 0.5, 1.0):
                if c not in conditions(k):
                    cells.append("-")
                    continue
                v = [
                    E.score(runs[(t, k, d, c, s)], task_data[t].kind)
                    for s in range(P.seeds)
                ]
                cells.append(
                    f"{abs(np.mean(v)):.3f} ± {np.std(v):.3f}"
                    if task_data[t].kind == "classify"
                    else f"{abs(np.mean(v)):.0f} ± {np.std(v):.0f}"
                )
            conv = [
                runs[(t, k, d, c, s)]["pretrain"]["converged"]
                for c in (0.5, 1.0)
                if c in conditions(k)
                for s in range(P.seeds)
            ]
            rows.append(
                f"| {t} | {lm.RNN_LABELS[k]} | {d} | "
                + " | ".join(cells)
                + f" | {sum(conv)}/{len(conv)} |"
            )
display(
    Markdown(
        "| task | network | L | none | $\\rho_t=0.5$ | $\\rho_t=1$ | pre-trainings converged |\n|---|---|---|---|---|---|---|\n"
        + "\n".join(rows)
    )
)

# %%
diff = [k for k in P.kinds if k in lm.DIFFERENTIABLE]
alif = [k for k in P.kinds if k not in lm.DIFFERENTIABLE]
rate = {}
for d in P.depths:
    pairs = [(t, k) for t in P.tasks for k in diff]
    rate[("half>one", d)] = (
        np.mean([perf(t, k, d, 0.5) > perf(t, k, d, 1.0) for t, k in pairs])
        if pairs
        else float("nan")
    )
    rate[("half>none", d)] = (
        np.mean([perf(t, k, d, 0.5) > perf(t, k, d, "none") for t, k in pairs])
        if pairs
        else float("nan")
    )
    pa = [(t, k) for t in P.tasks for k in alif]
    rate[("one>none-alif", d)] = (
        np.mean([perf(t, k, d, 1.0) > perf(t, k, d, "none") for t, k in pa])
        if pa
        else float("nan")
    )
display(
    Markdown(
        "| depth | $\\rho_t=0.5$ beats $\\rho_t=1$ | $\\rho_t=0.5$ beats none | ALIF: $\\rho_t=1$ beats none |\n|---|---|---|---|\n"
        + "\n".join(
            f"| {d} | {rate[('half>one', d)]:.0%} | {rate[('half>none', d)]:.0%} | {rate[('one>none-alif', d)]:.0%} |"
            for d in P.depths
        )
    )
)
n_pairs = len(P.tasks) * len(diff)
conv_all = [
    runs[key]["pretrain"]["converged"]
    for key in runs
    if key[3] != "none" and key[1] in lm.DIFFERENTIABLE
]
conv_alif = [
    runs[key]["pretrain"]["converged"]
    for key in runs
    if key[3] == 1.0 and key[1] not in lm.DIFFERENTIABLE
]
scale = (
    f"Scaled down: widths {P.width} (simple RNNs, ALIF), {net_width('gru')} (GRU), {net_width('lstm')} (LSTM) instead of "
    f"Tab. S1's; {P.n_train} training sequences per task; at most {P.steps} steps of batch 32 with early stopping "
    f"(patience {patience} validations); {P.seeds} seed(s) (paper: 4); sl-MNIST pooled to {P.side}x{P.side} with "
    f"{P.T_slmnist} bins; SHD replaced by the eSpeak spoken-digits stand-in ({P.shd_channels} channels, {P.T_shd} bins); "
    f"PTB replaced by the Jane Austen word corpus ({P.vocab} words, windows of {P.T_ptb}); learning rates {P.lr_diff} "
    f"(differentiable) and {P.lr_alif} (ALIF) per task; pre-training budget {P.pre_steps} steps "
    f"({sum(conv_all)} of {len(conv_all)} differentiable pre-trainings converged). Comparisons use the mean over seeds."
)
glue("half_one_first", float(rate[("half>one", P.depths[0])]), display=False)
glue("half_one_last", float(rate[("half>one", P.depths[-1])]), display=False)
if diff:
    both = all(rate[("half>one", d)] > 0.63 for d in P.depths)
    pooled = float(np.mean([rate[("half>one", d)] for d in P.depths]))
    ledger.record(
        "lsc.fig3.half-beats-one",
        "Fig. 3",
        "More than 63% of the times rho_t = 0.5 gave better performance than rho_t = 1, for both depths "
        "(differentiable networks over the three tasks).",
        paper_value="> 63% at both depths",
        measured="; ".join(
            f"depth {d}: {rate[('half>one', d)]:.0%} of {n_pairs}" for d in P.depths
        ),
        tolerance="reproduced if above 63% at every depth; partly if above 50% pooled over depths",
        verdict="reproduced"
        if both
        else ("partly-reproduced" if pooled > 0.5 else "not-reproduced"),
        note=scale,
    )
    deep, shallow = P.depths[-1], P.depths[0]
    ok = (
        rate[("half>none", deep)] >= 0.7
        and rate[("half>none", deep)] > rate[("half>none", shallow)]
    )
    ledger.record(
        "lsc.fig3.half-beats-none-deeper",
        "Fig. 3",
        "rho_t = 0.5 outperformed no pre-training 70% of the times in deeper networks, more than in shallower ones.",
        paper_value="70% at depth 5; less at depth 2",
        measured="; ".join(
            f"depth {d}: {rate[('half>none', d)]:.0%} of {n_pairs}" for d in P.depths
        ),
        tolerance="reproduced if >= 70% at the largest depth and higher than at the smallest",
        verdict="reproduced"
        if ok
        else (
            "partly-reproduced"
            if rate[("half>none", deep)] > rate[("half>none", shallow)]
            else "not-reproduced"
        ),
        note=scale,
    )
if alif:
    ok = rate[("one>none-alif", P.depths[-1])] > rate[("one>none-alif", P.depths[0])]
    ledger.record(
        "lsc.fig3.alif-deeper",
        "Fig. 3",
        "For the ALIF networks, the deeper the network, the more favorable it was to pre-train to rho_t = 1.",
        measured="rho_t = 1 beats no pre-training: "
        + "; ".join(
            f"depth {d}: {rate[('one>none-alif', d)]:.0%} of {len(P.tasks) * len(alif)}"
            for d in P.depths
        )
        + f"; ALIF pre-trainings to rho_t = 1 converged: {sum(conv_alif)}/{len(conv_alif)}",
        tolerance="reproduced if the rate is higher at the largest depth than at the smallest",
        verdict="reproduced" if ok else "not-reproduced",
        note=scale,
    )

# %% [markdown]
# Over the differentiable networks and the three tasks, $\rho_t=0.5$ beat $\rho_t=1$ in
# {glue:text}`half_one_first:.0%` of the cases at the smaller depth and {glue:text}`half_one_last:.0%` at the larger (the paper: more
# than 63% at both). With one or two seeds and a few hundred training steps, each comparison is close to a coin
# flip where two conditions train equally well, so these rates carry a sampling error of roughly
# $\pm\sqrt{0.25/n}$ with $n$ comparisons per depth.
#
# ## The gradient through time of a deep GRU (Fig. 1c, bottom)
#
# A GRU of depth `gru_depth` is pre-trained on inputs of the SHD stand-in (here with `T_grad` time bins) to
# $\rho_t=0.5$ and to $\rho_t=1$. We then measure how much gradient reaches the first layer's state $\Delta t$ steps
# before the end, $G(\Delta t)=\mathbb E_v\|v^\top\partial\boldsymbol h_{T,L}/\partial\boldsymbol h_{T-\Delta t,1}\|$ for
# random unit vectors $v$, averaged over test utterances. The proof of Theorem 1 bounds the matrix norm of this
# derivative by $c_1\binom{\Delta t+\Delta l}{\Delta t}$ when $\mathbb E\rho=1$ (the number of gradient paths, with
# $\Delta l=L-1$) and by a constant $c_2$ when $\mathbb E\rho=0.5$; $c_1, c_2$ are network and task constants, which
# we set to the smallest values that bound the measured curves.

# %%
shd_g = lsc_data.spoken_digits(
    "test",
    n_channels=P.shd_channels,
    n_steps=P.T_grad,
    bin_ms=1000.0 / P.T_grad,
    rates=tuple(P.shd_rates),
    pitches=tuple(P.shd_pitches),
)
x_g = shd_g.dense(np.arange(min(len(shd_g), 32)))
gen_g = torch.Generator().manual_seed(0)


def g_batches():
    while True:
        yield shd_g.dense(
            torch.randint(len(shd_g), (P.pre_batch,), generator=gen_g).numpy()
        )


curves, g_reports = {}, {}
for target in (0.5, 1.0):
    gru = lm.make_rnn("gru", P.gru_depth, P.shd_channels, P.gru_width, 20, seed=0)
    g_reports[target] = lsc.pretrain(
        gru,
        g_batches(),
        lsc.LSCConfig(target=target, max_steps=max(P.pre_steps, 40), n_times=2),
        seed=0,
    )
    curves[target] = E.gradient_through_time(gru, x_g, layer=1, n_probe=4)
dl = P.gru_depth - 1
dts = np.arange(P.T_grad)
paths = np.array([math.comb(int(t) + dl, int(t)) for t in dts], dtype=float)
c1 = float(np.max(curves[1.0] / paths))
c2 = float(np.max(curves[0.5]))
fig, axes = plt.subplots(1, 2, figsize=(10, 3.6))
for ax, target in zip(axes, (0.5, 1.0)):
    ax.semilogy(
        dts, curves[target], color=plotting.COLORS[1], label=r"$G(\Delta t)$, measured"
    )
    bound = np.full_like(dts, c2, dtype=float) if target == 0.5 else c1 * paths
    ax.semilogy(
        dts,
        bound,
        color=plotting.COLORS[2],
        ls="--",
        label=r"bound $c_2$"
        if target == 0.5
        else r"bound $c_1\binom{\Delta t+\Delta l}{\Delta t}$",
    )
    rep = g_reports[target]
    ax.set(
        xlabel=r"steps back in time $\Delta t$",
        title=rf"GRU L={P.gru_depth}, $\rho_t={target}$ "
        + ("(converged)" if rep.converged else "(NOT converged)"),
    )
    ax.legend(fontsize=8)
axes[0].set_ylabel(r"gradient norm reaching layer 1 (a.u.)")
plt.tight_layout()
plt.show()
q = max(1, P.T_grad // 4)
growth = {t: float(np.mean(curves[t][-q:]) / np.mean(curves[t][:q])) for t in curves}
glue("growth_half", growth[0.5], display=False)
glue("growth_one", growth[1.0], display=False)

# %% [markdown]
# **Figure 2.** The paper's Fig. 1c (bottom panels) recomputed: the gradient that reaches the first layer $\Delta t$
# steps back, for the GRU pre-trained to $\rho_t=0.5$ (left) and $\rho_t=1$ (right), with the bounds of the proof of
# Theorem 1 (constants fitted to touch the curves). Mean over the last quarter of $\Delta t$ divided by the mean over
# the first quarter: {glue:text}`growth_half:.3g` for $\rho_t=0.5$ and {glue:text}`growth_one:.3g` for $\rho_t=1$.
# In the book-profile run the $\rho_t=0.5$ gradient decays far inside its constant bound, while the $\rho_t=1$
# gradient rises by more than an order of magnitude over the first steps back and then stays roughly flat: the
# binomial bound, which grows by many orders of magnitude, is far from tight, and there is no sustained explosion
# over 100 steps at this width and depth.

# %%
ok_half = growth[0.5] <= 1.0
# Growth must be sustained: the last quarter's mean at least twice the first quarter's. (A bare "> 1" cannot tell
# growth from a flat curve with noise; this rule was tightened at review, after the first book run gave 1.18.)
ok_one = growth[1.0] >= 2.0
ledger.record(
    "lsc.fig1c.gru",
    "Fig. 1c",
    "A deep GRU pre-trained to rho = 1 shows a gradient that grows backwards in time (additive explosion, within the "
    "binomial bound), while rho = 0.5 keeps it bounded by a constant.",
    paper_value="growth for rho = 1, constant bound for rho = 0.5",
    measured=f"growth factor G(last quarter)/G(first quarter) over {P.T_grad} steps: rho_t = 0.5: {growth[0.5]:.3g}, "
    f"rho_t = 1: {growth[1.0]:.3g}; pre-training converged: 0.5: {g_reports[0.5].converged}, 1: {g_reports[1.0].converged}",
    tolerance="reproduced if the factor is <= 1 for rho = 0.5 and >= 2 (sustained growth) for rho = 1; partly if one of the two holds",
    verdict="reproduced"
    if ok_half and ok_one
    else ("partly-reproduced" if ok_half or ok_one else "not-reproduced"),
    note=f"GRU of depth {P.gru_depth} (paper: 7) and width {P.gru_width}; SHD replaced by the eSpeak spoken-digits stand-in "
    f"({P.shd_channels} channels, {P.T_grad} bins of {1000 / P.T_grad:.0f} ms); gradient norms estimated with 4 random "
    "projections of the last layer's state; the bound constants are fitted, as in the paper. The rho = 1 curve rises "
    "over the first steps back and then flattens; the growth factor is close to 1. The rho = 1 threshold was tightened from > 1 to >= 2 at review (the first book run measured 1.18), since > 1 cannot separate growth from a flat curve.",
)

# %% [markdown]
# ## Verdicts

# %%
display(Markdown(ledger.table()))
