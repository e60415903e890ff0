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
# ```{findings}
# ```
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
# **Why depth should favour $\rho_t=\tfrac12$ (Sec. II-B, Theorem 1, Lemma 2).** In a deep RNN the gradient
# travels back on a grid of time and depth: each transition derivative moves it one step back in time within
# a layer, or one layer down. What reaches layer $l$ at time $t$ from the output at $(T,L)$ is the *sum*
# over every path through that grid, and the paper counts $\binom{\Delta l+\Delta t}{\Delta t}$ of them (the
# network the paper defines has fewer, which still grow exponentially when time and depth grow together:
# {doc}`lemma2_paths`). Each path is a product of transition derivatives, so with radius $\rho$ its size is
# about $\rho$ to the power of its length. With $\rho=1$, the classical choice that keeps a shallow network
# stable, every path keeps its size and the sum grows with the number of paths: slowly when only time or
# only depth grows, but exponentially when both grow together. This is an *additive* explosion, which no
# single transition derivative shows. With $\rho=\tfrac12$ the paths of one length have weights that add up
# to at most one, like the chances of a fair coin's runs of heads and tails (the walker of
# {doc}`fig1_growth`), and the bound on the variance of the update grows only linearly with time (Theorem
# 1). A shallow network has few paths (at depth 2 their number grows only polynomially with time), so the
# case for one half is weakest there. The deeper the network, the more paths there are, and the more
# $\rho_t=\tfrac12$ should help: Fig. 3 tests exactly this, expecting $\rho_t=0.5$ to beat $\rho_t=1$ at
# both depths and the gap over no pre-training to open at depth 5.
#
# Fig. 1c (bottom) shows a GRU of depth 7 pre-trained on SHD: with $\rho=1$ its gradient grows backwards in time
# (an explosion of *additive* origin, bounded by the binomial count of gradient paths), with $\rho=0.5$ it stays
# bounded by a constant.
#
# **What this chapter does.** It runs the whole grid, scaled down to a CPU (see the parameters and the notes of
# each claim), recomputes the paper's comparison rates from its own runs, and measures the deep GRU's gradient
# through time. The runs of one task, network and depth (every condition and seed) are trained together as one
# batched ensemble (`rnnbook.lsc.ensemble`), each with its own optimizer state, batches and early stopping.
# A comparison is a trial of two arms on one (task, network, seed): an arm that did not train (twice chance
# accuracy, or the unigram model's perplexity on the word task) loses it, and ties (neither arm trained, the same
# network, equal scores) are counted and left out. A claim is decided when at least half of the pre-trainings
# ended within 0.1 of their target radius and the networks without pre-training trained somewhere. The share of
# trials won at each depth is pooled over tasks, networks and seeds into a Wilson interval, the depth gap gets
# an interval over seeds (Student t below ten seeds, a bootstrap from ten on), and a verdict is taken only when
# an interval lies on one side of its line (otherwise
# `inconclusive`; the design is on {doc}`/book/verdicts`). Table 2 and Figures 2-4 show these very statistics.
# Every ensemble's raw result is cached in the build folder.
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
profile, device = "book", None
parts = None
seed = seeds = seed_start = None
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
n_train_ptb = None
n_val = None
n_test = None
steps = None
steps_ptb = None
eval_every = None
lr_diff = None
lr_alif = None
pre_steps = None
pre_batch = None
gru_depth = None
gru_width = None
T_grad = None
gru_pre_steps = None

# %% tags=["hide-input"]
import matplotlib.pyplot as plt
from IPython.display import Markdown, display
from myst_nb import glue

from rnnbook.book.chapter import start
from rnnbook.book.claims import evaluate
from rnnbook.book.params import Param, Repeats, Samples, Steps, at_least, positive
from rnnbook.lsc import deep_rnns, experiments, fig3_seeds, gru_gradient, models
from rnnbook.lsc import training_figures

K, TASKS = list(models.RNN_KINDS), list(deep_rnns.TASKS)
LR, LR_PAPER, LR_ALIF = [1e-2, 3.16e-3, 1e-2], [1e-2, 1e-3, 3.16e-4], [3.16e-3] * 3
RATES, PITCH = [130, 160, 190, 220], range(100).__contains__  # eSpeak words/min, pitch
PARTS = ["fig3", "fig1c"]  # the paper's Fig. 3 (Figures 1-4 here), Fig. 1c (Figure 5)
TAIL = {  # which parts run (a record of one part skips the other); the GRU of Fig. 1c
    "parts": Param(list, PARTS, PARTS, PARTS, PARTS.__contains__, "fig3, fig1c", str),
    "gru_depth": Param(int, 3, 7, 7, at_least(2), ">= 2; depth of the GRU of Fig. 1c"),
    "gru_width": Param(int, 8, 32, 117, at_least(2), ">= 2"),
    "T_grad": Param(int, 12, 100, 250, at_least(5), ">= 5; time bins for Fig. 1c"),
    "gru_pre_steps": Steps(40, 40, 1000, "Fig. 1c pre-training budget"),
}

# %% tags=["hide-input"]
SPEC = {
    "seed": Param(int, 0, 0, 0, at_least(0), ">= 0; every seed derives from it"),
    "seeds": Repeats(2, 4, 4, "seeds per arm", gpu=8),
    "tasks": Param(list, TASKS, TASKS, TASKS, TASKS.__contains__, "TASKS", str),
    "kinds": Param(list, ["gru", "alif_plus"], K, K, K.__contains__, "RNN_KINDS", str),
    "depths": Param(list, [2, 3], [2, 5], [2, 5], at_least(1), "depths >= 1", int),
    "width": Param(int, 8, 32, 128, at_least(4), ">= 4; (Tab. S1)", gpu=128),
    "T_slmnist": Param(int, 5, 10, 50, at_least(2), ">= 2; time bins of sl-MNIST"),
    "side": Param(int, 7, 14, 28, lambda v: v in (7, 14, 28), "7, 14 or 28"),
    "T_shd": Param(int, 8, 16, 100, at_least(2), ">= 2; time bins of the SHD stand-in"),
    "shd_channels": Param(int, 16, 32, 128, at_least(2), ">= 2; ear-model channels"),
    "shd_rates": Param(list, [160], [130, 170, 210], RATES, at_least(80), ">= 80", int),
    "shd_pitches": Param(list, [50], [40, 60], [35, 50, 65], PITCH, "0..99", int),
    "T_ptb": Param(int, 5, 10, 100, at_least(2), ">= 2; words per sequence"),
    "vocab": Param(int, 500, 1000, 10000, at_least(10), ">= 10; words of the stand-in"),
    "n_train": Param(int, 100, 1000, 45000, at_least(10), ">= 10 sequences per task"),
    "n_train_ptb": Param(int, 100, 20000, 45000, at_least(10), ">= 10; word windows"),
    "n_val": Samples(32, 128, 5000, "validation sequences per task", 10),
    "n_test": Samples(50, 256, 10000, "test sequences per task", 10),
    "steps": Steps(6, 300, 20000, "training steps (batch 32)", gpu=1000),
    "steps_ptb": Steps(6, 1000, 20000, "steps on the word task", gpu=2000),
    "eval_every": Steps(3, 25, 500, "steps per validation"),
    "lr_diff": Param(list, LR, LR, LR_PAPER, positive, "3 > 0 (per task)", float),
    "lr_alif": Param(list, LR_ALIF, LR_ALIF, [1e-3] * 3, positive, "3 > 0", float),
    "pre_steps": Steps(3, 15, 1000, "LSC pre-training budget"),
    "pre_batch": Param(int, 4, 8, 32, at_least(1), ">= 1"),
    **TAIL,  # the parts that run; the GRU of Fig. 1c (bottom)
}
P, ledger = start("lsc/deep_rnns", SPEC, globals())
grid = deep_rnns.Grid.of(P)  # also checks that lr_diff and lr_alif have 3 values

# %% [markdown]
# ## The grid
#
# Widths follow Tab. S1's ratios (comparable parameter counts): the simple RNNs and ALIF get `width`, the GRU
# 53/128 of it and the LSTM 42/128; the width stays that of depth 2 when the depth grows. On the word-level task the
# input is an embedding of dimension `width` and the output is tied to it (App. G). Conditions: no pre-training
# (`none`), $\rho_t=0.5$ and $\rho_t=1$ for the differentiable networks; `none` and $\rho_t=1$ for ALIF (the paper
# only sets 1 for the spiking networks; their convergence at 0.5 is checked in the pre-training chapter). The word
# task gets its own training set (`n_train_ptb` windows) and budget (`steps_ptb`): with the other tasks' 1000
# sequences and 300 steps almost no network beats the unigram model, and nearly every word-task trial would tie
# (neither arm trained). The ALIF
# threshold is updated as in the authors' code, with the factor $1-\alpha_\vartheta$ that Eq. (49) omits: as printed,
# the equation silences ALIF+ ({doc}`errata </book/errata>`).

# %%
experiments.use_one_thread()
fig3_on, fig1c_on = "fig3" in P.parts, "fig1c" in P.parts  # a record runs one part
if fig3_on:
    runs = deep_rnns.run_grid(grid, grid.build_tasks())  # patience: 2, 10 at paper

# %% tags=["hide-input"]
if fig3_on:
    training_figures.deep_rnn_scores(runs)
    plt.show()

# %% [markdown]
# **Figure 1.** The paper's Fig. 3 recomputed: for each task and network, the test figure of merit of each depth
# (filled: shallower, open: deeper) and condition (colour). Error bars: standard deviation over seeds.

# %% tags=["hide-input"]
if fig3_on:
    display(Markdown(runs.table()))


# %%
if fig3_on:
    summary, fig3 = runs.summary(), runs.comparisons()
    fig3 |= fig3_seeds.per_seed(runs, fig3["tol"])  # what a record in shards joins
    display(Markdown(runs.rates_table(summary)))

# %% [markdown]
# **Table 2.** What the Fig. 3 claims decide on. Per depth, over the (task, network, seed) trials, the share in
# which the first condition scored better (an arm that did not train loses its trial; ties are left out and
# counted), pooled into a Wilson 95% interval; last row: per seed, the share at the deepest depth minus the share
# at the shallowest, mean over seeds with its 95% interval (Student t below ten seeds, a bootstrap from ten
# on; cut to [-1, 1]). The claim boxes below
# quote the same numbers (the chapter checks it).

# %% tags=["hide-input"]
if fig3_on:
    glue("half_one_text", fig3["half_one_pooled_text"], display=False)
    for cid in deep_rnns.CLAIMS:  # each box quotes the numbers of Table 2, checked here
        runs.check_quotes(ledger.check(cid, seeds=P.seeds, **fig3), summary)

# %% [markdown]
# Over the differentiable networks and the three tasks, $\rho_t=0.5$ beat $\rho_t=1$ in
# {glue:text}`half_one_text` (the paper: more than 63% at both depths).
#
# A confirmatory record of 376 seeds, declared before its first shard, decides this claim. At
# depth 2, $\rho_t=0.5$ beat $\rho_t=1$ in a share
# {claim}`lsc.fig3.half-beats-one=partly-reproduced (confirmatory):effect.1` of the untied
# trials, above the claim's line of 0.604 (the small-telescope line: the share that the
# paper's own 48 trials per depth had a one-in-three chance to tell from a coin toss). At
# depth 5 the share is
# {claim}`lsc.fig3.half-beats-one=partly-reproduced (confirmatory):effect.2`: still above one
# half, but below that line. The paper's advantage of $\rho_t=0.5$ over $\rho_t=1$ holds at
# depth 2 and falls short of the line at depth 5
# {claim}`lsc.fig3.half-beats-one=partly-reproduced (confirmatory)`.
#
# A confirmatory record of 48 seeds, declared before its first shard, decides whether depth favours
# pre-training. At depth 5, the share of trials in which $\rho_t=0.5$ beat no pre-training is
# {claim}`lsc.fig3.half-beats-none-deeper=not-reproduced (confirmatory):effect.1`, against the
# paper's 0.70; the interval still reaches the claim's line of 0.604. From depth 2 to depth 5 the
# share moved by {claim}`lsc.fig3.half-beats-none-deeper=not-reproduced (confirmatory):effect.2`
# per seed, which rules out the gain of at least 0.1 (ten points) that the claim asks for. Depth
# does not favour pre-training here as much as the paper finds
# {claim}`lsc.fig3.half-beats-none-deeper=not-reproduced (confirmatory)`.
#
# The spiking networks were given a record of their own: 100 seeds of ALIF+ and ALIF±, declared
# before their first shard. The paper says that for them, the deeper the network, the more it
# pays to pre-train to $\rho_t=1$. Per seed, the share of trials in which $\rho_t=1$ beat no
# pre-training at depth 5 minus that share at depth 2 is
# {claim}`lsc.fig3.alif-deeper=not-reproduced (confirmatory):effect`, as a fraction of the
# trials. The claim asks for a gain of at least 0.1 (ten points; the paper's differentiable
# networks gain 0.2). The interval lies below zero: here depth makes pre-training to $\rho_t=1$
# *less* favourable for ALIF, the opposite of the paper
# {claim}`lsc.fig3.alif-deeper=not-reproduced (confirmatory)`.


# %% tags=["hide-input"]
def lines(cid, i=0):
    """The lines effect ``i`` of claim ``cid`` is decided against, and the paper's."""
    d = ledger.declared[cid]
    e, names = d.effects[i], {**d.constants, "profile": P.profile}
    line, null = (float(evaluate(e[k], names)) for k in ("smallest", "no_effect"))
    out = {f"the claim's line ({line:g})": line, f"no effect ({null:g})": null}
    if e.get("paper") is not None:  # the paper's own number, beside ours
        paper = float(evaluate(e["paper"], names))
        out[f"the paper ({paper:g})"] = paper
    return out


# %% tags=["hide-input"]
def figures_2_4():
    trend, steps, depth = runs.trend(), grid.checkpoints(), "depth {}".format
    shares = {  # Figure 3: its claim's line is the deepest depth's
        "half>one": ("lsc.fig3.half-beats-one", "ρ=0.5 beats ρ=1"),
        "half>none": ("lsc.fig3.half-beats-none-deeper", "ρ=0.5 beats none"),
    }
    for name, (cid, title) in shares.items():
        curves = {depth(d): trend[(name, d)] for d in grid.depths}
        training_figures.effect_vs_steps(steps, curves, lines(cid), "share won", title)
    gaps = {"ρ=0.5 vs none": trend[("half>none", "gap")]}
    gaps["ALIF: ρ=1 vs none"] = trend[("one>none-alif", "gap")]
    refs = {
        **lines("lsc.fig3.half-beats-none-deeper", 1),
        **lines("lsc.fig3.alif-deeper"),
    }
    training_figures.effect_vs_steps(
        steps, gaps, refs, "deepest - shallowest", "depth gap"
    )
    plt.show()


if fig3_on:
    figures_2_4()

# %% [markdown]
# **Figures 2-4.** The claims' statistics along training, had training stopped at that step (the best validation
# checkpoint so far): the shares of Table 2 with their Wilson 95% intervals (shaded), and the per-seed depth gaps
# with their Student t intervals, each with the lines its claim is decided against, read from the claim's
# declaration (in Figure 3, the deepest depth's line). A statistic that drifts towards or away from its line as the
# steps grow tells which way more training would push the verdict.
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
if fig1c_on:  # the parameter `parts`: a record of Fig. 3 alone skips Fig. 1c
    gru = gru_gradient.run(
        depth=P.gru_depth,
        width=P.gru_width,
        n_channels=P.shd_channels,
        T=P.T_grad,
        rates=P.shd_rates,
        pitches=P.shd_pitches,
        pre_steps=P.gru_pre_steps,
        pre_batch=P.pre_batch,
        seeds=[grid.member_seed(s) for s in range(P.seeds)],
        device=P.device,
    )
    fig1c = gru.values()

# %% tags=["hide-input"]
if fig1c_on:
    glue("growth_half", fig1c["growth_half"], display=False)
    glue("growth_one", fig1c["growth_one"], display=False)

# %% tags=["hide-input"]
if fig1c_on:
    training_figures.gradient_through_time(gru)
    plt.show()

# %% [markdown]
# **Figure 5.** The paper's Fig. 1c (bottom panels) recomputed: the gradient that reaches the first layer $\Delta t$
# steps back, for the GRU pre-trained to $\rho_t=0.5$ (left) and $\rho_t=1$ (right), with the bounds of the proof of
# Theorem 1 (constants fitted to touch the geometric mean over seeds). Mean over the last quarter of $\Delta t$
# divided by the mean over the first quarter (geometric mean over seeds): {glue:text}`growth_half:.3g` for
# $\rho_t=0.5$ and {glue:text}`growth_one:.3g` for $\rho_t=1$. The claim's gate asks that at least 80% of the
# pre-trainings ended with their mean radius within 0.1 of their target; its verdict is taken from the 95%
# intervals over seeds of the two
# growth factors (see the claim).
#
# A confirmatory record of 32 seeds decides the claim. Three earlier records of the same size went stale when the
# chapter's code changed after them (the claim's box keeps them, and says why); the fourth, on a master seed never
# run before, counts. On the $\log_{10}$ scale, the growth factor is
# {claim}`lsc.fig1c.gru=reproduced (confirmatory):effect.1` for $\rho_t=0.5$ and
# {claim}`lsc.fig1c.gru=reproduced (confirmatory):effect.2` for $\rho_t=1$. Pre-trained to one half, the GRU
# lets almost no gradient through from the start of the sequence; pre-trained to one, the gradient grows
# backwards in time, if less than the fourfold the claim's power analysis assumed
# {claim}`lsc.fig1c.gru=reproduced (confirmatory)`.

# %% tags=["hide-input"]
if fig1c_on:
    ledger.check("lsc.fig1c.gru", seeds=P.seeds, **fig1c)

# %% [markdown]
# ```{dropdown} How the rules of these claims changed
# :class-container: rules-history
#
# The Fig. 3 and Fig. 1c rules were re-declared after their first runs under the book's single design
# ({doc}`/book/verdicts`): the rates are pooled over the trials, with Wilson intervals, and an effect against the
# paper is checked before any partial verdict (each claim box gives its old rule). The depth gap's interval was
# changed once more, after master seeds 2 and 3: over fewer than ten seeds it is a Student t interval, not a
# bootstrap. They were re-declared again for issue 38: a trial with an untrained arm counts (that arm loses it)
# instead of being dropped, ties leave the statistic, the gate asks only that the experiment works, and the lines
# lie short of the paper's own effect (for the rates, the small-telescope line 0.604 of the paper's 48 trials per
# depth), with the seeds at which a paper that is exactly right would be reproduced declared in each box.
# For issue 50 the Fig. 3 rules read the same statistics from per-seed data: each seed's pre-trainings near their
# target, the score per seed of each arm without pre-training (the gate takes its mean over the seeds) and each
# seed's won and untied trials at the two depths (the rule takes each seed's gap), so that a record run in shards
# of seeds joins them and is decided once, on the union; the thresholds and lines did not change. The parameter
# `parts` lets a record run Fig. 3 or Fig. 1c alone.
# ```

# %% tags=["hide-input"]
display(Markdown(ledger.table()))
