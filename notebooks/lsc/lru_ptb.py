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
# # The LRU pre-trained to local stability (Table I, Fig. 4)
#
# ```{findings}
# ```
#
# **Why this matters.** State-space models such as the S4 family and the Linear Recurrent Unit (LRU) of
# {cite:t}`lru2023` are recurrent networks built to carry information across thousands of steps, and part of
# their success is a hand-made initialization: the recurrence starts close to, but below, the point where it
# would stop forgetting. The LSC paper asks whether its own recipe, pre-training every transition derivative
# to a target radius, agrees with that craft, and above all which target is right. Its theory (Theorem 1)
# says that in a network that is deep in time *and* in layers the classical target $\rho_t=1$ gives a bound
# on the parameter update that grows with the number of gradient paths, exponentially when time and depth
# grow together, while $\rho_t=\tfrac12$ gives one that grows only linearly in time. A language model is a
# demanding test of that claim: every word is predicted from the words before it, so gradients travel a long
# way back in time, through every layer. The paper also answers a natural objection, that gradient clipping
# would do as well.
#
# **What the paper claims.** {cite:t}`herranzcelotti2024lsc` (Sec. III-D) train the Linear Recurrent Unit
# {cite:p}`lru2023`, a state-space model, as a word-level language model on PTB at depths 3 and 6, from its default
# initialization or pre-trained to $\rho_t=1$, $\rho_t=0.5$ or $\bar\rho_t=0.5$ (the time component's target
# $T/(T+L)$, the depth component's $L/(T+L)$), each with and without gradient clipping. Their Table I:
#
# | depth 3, test perplexity | no clip | clip | depth 6, test perplexity | no clip | clip |
# |---|---|---|---|---|---|
# | default | 110.95 ± 26.61 | 110.69 ± 26.80 | default | 97.59 ± 0.78 | 119.04 ± 37.88 |
# | $\rho=1$ | 186.60 ± 27.56 | 295.01 ± 250.27 | $\rho=1$ | 535.67 ± 465.11 | 602.50 ± 515.43 |
# | $\rho=0.5$ | 103.18 ± 2.14 | 102.69 ± 0.60 | $\rho=0.5$ | 103.17 ± 1.36 | 101.40 ± 0.48 |
# | $\bar\rho_t=0.5$ | 97.94 ± 1.02 | 104.89 ± 12.46 | $\bar\rho_t=0.5$ | 106.45 ± 17.02 | 105.48 ± 17.96 |
#
# and the text: "initializing to $\rho_t=1$ gives the worst performance on PTB, for both 3 and 6 depth"; "gradient
# clipping does not contribute significantly to performance, if the network is reasonably initialized"; "best test
# perplexity is usually achieved by $\rho_t=0.5$"; Fig. 4: "$\rho_t=1$ is outperformed by $\rho_t=0.5$".
#
# **Reading the table.** Perplexity is the exponential of the mean cross-entropy per word: the number of
# words among which the model hesitates, as if it chose uniformly. Lower is better; a model that only knows
# how often each word occurs (the unigram model) sets the bar any trained network should clear. In the
# paper's table the $\rho=1$ rows are far worse than the others at both depths, with standard deviations
# nearly as large as the means in three of the four settings, while the $\rho=0.5$ rows are close to the
# default on average and, in three settings of four, much less spread.
#
# **The LRU in a few lines (App. H, Eqs. 50-51).** Each layer holds a complex state $x_k$ that evolves
# *linearly* and *diagonally*:
#
# $$x_k=\Lambda x_{k-1}+\gamma\odot(Bu_k),\qquad y_k=\Re(Cx_k)+Du_k,\qquad
# \Lambda=\mathrm{diag}(\lambda_j),\quad \lambda_j=e^{-e^{\nu_j}+i\theta_j}.$$
#
# Every mode $j$ forgets at its own rate: its modulus $|\lambda_j|=e^{-e^{\nu_j}}$, kept below one by
# construction, is the fraction of the mode's state that survives one step. The default initialization draws
# $|\lambda_j|$ uniformly in $[0.5,1]$ and the phases $\theta_j$ in $[0,\pi/10]$, and normalizes the input
# by $\gamma_j=\sqrt{1-|\lambda_j|^2}$, so that for uncorrelated inputs the state keeps the scale of the
# input however slowly a mode forgets. All the nonlinearity sits between the layers: layer norm before the
# LRU, a GeLU and a gated linear unit after it, and a skip connection. This makes the two kinds of
# transition derivative of the LSC easy to name. In time, $\partial x_k/\partial x_{k-1}=\Lambda$, whose
# radius is the largest $|\lambda_j|$: close to one by default. In depth, the derivative runs through the
# block into the next layer's $B$, and by default it is well below one. Pre-training rescales the two
# separately: the time multiplier scales the moduli $|\lambda_j|$ (through $\nu_j$, never above one), the
# depth multiplier scales $B$.
#
# **What the targets mean for the LRU.** $\rho_t=1$ pushes the slowest mode of every layer to forget
# (almost) nothing and raises the depth derivatives to one. The time multiplier leaves the normalization
# $\gamma_j$ as it was drawn, so the slow modes accumulate their inputs and their states grow; and the bound
# of Theorem 1 grows with the number of paths back through the grid of time steps and layers. $\rho_t=0.5$
# scales every modulus down until the slowest is one half, so that at the start of training no mode keeps
# more than half of its state from one word to the next, and it moves the depth derivatives to one half: a
# time factor and a depth factor then add up to one, the condition under which the bound of Theorem 1 stops
# growing with depth. $\bar\rho_t=0.5$ keeps the same mean but gives the time component the larger share,
# $T/(T+L)$, which resembles the default LRU: the paper measures a mean radius of 0.525 for the default
# initialization and remarks that practice has been "gravitating" towards one half. Training can move the
# radii again afterwards; what is compared is where it starts. Clipping, finally, rescales a gradient that
# is too large, but "the parameter update still gives an exponential preference to times far in the past,
# if it did so before clipping" (Sec. III-D): it treats the symptom, not the initialization.
#
# **What this chapter does.** The same eight conditions at both depths on the word-level stand-in for PTB (the six
# Jane Austen novels, tokenised like PTB's language-modelling version), with a small model, short sequences and
# a short training (see the parameters). Block as App. H: layer norm, LRU, GeLU, dropout 0.1, GLU, dropout, skip;
# tied embedding; AdaBelief in Lookahead, learning rate $10^{-2}$ (the paper's grid optimum at width 128), early
# stopping on the validation perplexity. All the runs of one depth (seeds x initializations x clipping) are trained
# together as one batched ensemble (`rnnbook.lsc.ensemble`), each with its own optimizer state, clipping and early
# stopping; runs of one seed share their initial draw and their batches, so every comparison is paired by seed.
# Each comparison is an effect in log perplexity computed seed by seed, decided from its t interval over seeds
# (straddling its line: `inconclusive`; the design is on {doc}`/book/verdicts`), every arm counted with its own
# perplexity, whether it trained or not. The claims are decided when the experiment works: the default LRU, the
# paper's baseline, beats the unigram model (word frequencies) on test perplexity in at least one setting, and
# the runs finished, at most one in twenty stopped by the step cap rather than by early stopping (runs cut
# off by the cap compare budgets, not trained networks). Raw per-seed results are cached in the build folder.

# %% tags=["parameters"]
profile = "book"
device = None
seed = None
seeds = None
seed_start = None
depths = None
width = None
vocab = None
T = None
batch = None
n_train = None
n_val = None
n_test = None
steps = None
eval_every = None
lr = None
clip = None
pre_steps = None
pre_batch = None

# %% tags=["hide-input"]
import matplotlib.pyplot as plt
from IPython.display import Markdown, display
from myst_nb import glue

from rnnbook.book.chapter import start
from rnnbook.book.claims import evaluate
from rnnbook.book.params import Param, Repeats, Samples, Steps, at_least, positive
from rnnbook.lsc import experiments, lru_ptb, training_figures

SPEC = {
    "seed": Param(int, 0, 0, 0, at_least(0), ">= 0; every seed derives from it"),
    "seeds": Repeats(2, 8, 4, "seeds per arm (book: 8, see the notes)"),
    "depths": Param(list, [2, 3], [3, 6], [3, 6], at_least(1), "depths >= 1", int),
    "width": Param(int, 16, 32, 128, at_least(2), ">= 2; width = state", gpu=128),
    "vocab": Param(int, 300, 2000, 10000, at_least(10), ">= 10 words"),
    "T": Param(int, 8, 16, 100, at_least(2), ">= 2; words per training sequence"),
    "batch": Param(int, 8, 16, 32, at_least(1), ">= 1"),
    "n_train": Param(int, 200, 4000, 9000, at_least(10), ">= 10 training windows"),
    "n_val": Samples(32, 300, 700, "validation windows", 10),
    "n_test": Samples(32, 400, 800, "test windows", 10),
    "steps": Steps(6, 200, 20000, "maximal training steps", gpu=2000),
    "eval_every": Steps(3, 40, 500, "steps per validation"),
    "lr": Param(float, 1e-2, 1e-2, 1e-2, positive, "> 0"),
    "clip": Param(float, 1.0, 1.0, 1.0, positive, "> 0; gradient-norm clip ('+ clip')"),
    "pre_steps": Steps(3, 25, 1000, "LSC pre-training budget"),
    "pre_batch": Param(int, 4, 4, 32, at_least(1), ">= 1"),
}
P, ledger = start("lsc/lru_ptb", SPEC, globals())
experiments.use_one_thread()

# %%
grid = lru_ptb.Grid.of(P)  # patience: 2 validations at smoke/book, 10 at paper
runs = lru_ptb.run_grid(grid, grid.build_task())

# %% tags=["hide-input"]
display(Markdown(runs.table()))
glue("unigram", runs.unigram, display=False)
display(Markdown(runs.pretrain_summary()))

# %% [markdown]
# **Table 1.** The paper's Table I recomputed (mean ± standard deviation over seeds; the unigram model's test
# perplexity, the gate's bar, is {glue:text}`unigram:.0f`). The last column gives the
# mean radius of the time and depth transitions (depth: layers $\ge2$) of seed 0 after pre-training, before training.

# %% tags=["hide-input"]
training_figures.lru_validation(runs)
plt.show()

# %% [markdown]
# **Figure 1.** Validation perplexity during training, the counterpart of the paper's Fig. 4: solid without,
# dashed with gradient clipping; colours are the initializations.
#
# **How to read Figure 1.** Each panel is one depth and shows the runs of the first seed, on a logarithmic
# scale. The triangles at the right edge are the paper's Table I validation perplexities on PTB (filled:
# without clipping, open: with), in the colours of the curves. They mark the order the paper found, not a
# level to reach: the stand-in corpus is not PTB, and at the book's scale the vocabulary is smaller, the
# model narrower and the training far shorter; perplexity depends on all of them. What can carry over is the
# ordering of the curves, and whether a dashed curve parts from the solid one of its colour: if clipping
# mattered, it would.

# %%
table1 = runs.comparisons()

# %% tags=["hide-input"]
glue("n_one_worst", table1["n_one_worst"], display=False)
glue("n_settings", table1["n_settings"], display=False)
for claim in ("table1.rho1-worst", "table1.clip-minor", "table1.best-half"):
    display(ledger.check(f"lsc.{claim}", seeds=P.seeds, **table1))
ledger.check("lsc.fig4.half-beats-one", seeds=P.seeds, **table1)


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


iv, steps = runs.intervals(), grid.checkpoints()
for name, cid, what in [
    ("half-one", "lsc.fig4.half-beats-one", "ρ=0.5 minus ρ=1"),
    ("one-worst", "lsc.table1.rho1-worst", "ρ=1 minus worst other"),
]:
    curves = {
        f"L={d}{' clip' if cl else ''}": iv[(name, d, cl)]
        for d in grid.depths
        for cl in (False, True)
    }
    ylabel = "Δ log test perplexity"
    training_figures.effect_vs_steps(steps, curves, lines(cid), ylabel, what)
plt.show()

# %% [markdown]
# **Figures 2-3.** Two effects along training, had training stopped at that step (best validation checkpoint so
# far), with 95% t intervals over seeds (shaded), the claims' own statistics: the log-perplexity gap of
# $\rho_t=0.5$ over $\rho_t=1$ (below 0: $\rho_t=0.5$ better) and of $\rho_t=1$ over the worst other
# initialization (above 0: $\rho_t=1$ is the worst), each with the lines its claim is decided against, read from
# the claim's declaration.
#
# %% [markdown]
# The LRU pre-trained to $\rho_t=1$ is, by an interval over seeds that excludes 0, the worst of the four
# initializations in {glue:text}`n_one_worst` of the {glue:text}`n_settings` (depth, clipping) settings. A
# radius of 1 here pushes the largest $|\lambda_j|$ of every layer up to 1 and the depth transitions up to 1
# through $B$; a radius of 0.5 pulls the slowest mode of each layer down to $|\lambda|=0.5$ (the others in
# proportion) and moves the depth transitions to one half. The last column of Table 1 shows where the
# pre-training left them.
#
# ## What was found
#
# The four statements of the paper's Sec. III-D, as the book's own run decides them in the boxes above:
# $\rho_t=1$ the worst of the four initializations in every setting {claim}`lsc.table1.rho1-worst=inconclusive`;
# clipping of little consequence for a reasonably initialized LRU {claim}`lsc.table1.clip-minor=inconclusive`;
# a radius of one half usually the best {claim}`lsc.table1.best-half=inconclusive`; and $\rho_t=0.5$ ahead of
# $\rho_t=1$ {claim}`lsc.fig4.half-beats-one=inconclusive`. Each box gives the paper's value beside the
# measurement. The experiment is smaller than the paper's in nearly every direction (its scale box lists
# them), and the paper's effects grow with depth ("the deeper the network, the stronger the effect of a good
# initialization"), so Figures 2-3 are the place to see whether an effect that is still undecided is growing
# with training or fading.
#
# A first confirmatory record of 16 seeds, declared before its first shard, trained the same grid for at
# most 1000 steps. Its gate asks that the runs finish: at most one run in twenty may still be improving when
# the step cap stops it. In that record 79 of its 256 runs were, so it decided none of the four statements.
# A second record on a new master seed, the same in all but its cap of 3000 steps (in an exploratory pilot,
# every run had stopped by step 2240), counts in its place
# ({ref}`where each record stands <where-the-records-stand>`). None of its 256 runs hit the cap, and it
# decides three of the four statements:
#
# - clipping moves the mean test perplexity by at most 1.4%, at either depth and for either initialization
#   measured, well inside the 10% the claim allows {claim}`lsc.table1.clip-minor=reproduced (confirmatory)`;
# - $\rho_t=1$ is not the worst initialization: in three of the four settings the interval rules out its
#   trailing the worst other by 2% {claim}`lsc.table1.rho1-worst=not-reproduced (confirmatory)`;
# - a radius of one half is the best, but by 0.8% on average over the settings (95% interval 0.05% to
#   1.5%), not by the 2% of the claim's line (the paper's gap: 0.076 in log perplexity, about 7%)
#   {claim}`lsc.table1.best-half=not-reproduced (confirmatory)`.
#
# Whether $\rho_t=0.5$ beats $\rho_t=1$ by the claim's 2% stays open
# {claim}`lsc.fig4.half-beats-one=inconclusive (confirmatory)`. At depth 6 without clipping it leads by
# 0.041 in log perplexity (about 4%; 95% interval 0.012 to 0.069), an interval that still reaches the 2%
# line once corrected for the four settings; elsewhere the gaps are within about 1%. At that setting the
# first record measured 0.354 (95% interval 0.304 to 0.404). Besides the master seed, the cap is all that
# changed between the records, so most of that gap most likely came from stopping runs at 1000 steps (the
# book has not measured which runs the cap cut). The paper's Table I gap at that setting is 1.65 in log
# perplexity (test perplexities 535.67 and 103.17); its smallest, at depth 3 without clipping, is 0.59.
#
# ```{dropdown} How the rules of these claims changed
# :class-container: rules-history
#
# The Table I and Fig. 4 rules were re-declared after their first runs under the book's single design
# ({doc}`/book/verdicts`): each (depth, clipping) setting is its own effect against a 2% perplexity
# difference, and 'usually best' is read as best on average over the settings (each claim box gives its old
# rule). They were re-declared again for issue 38: every compared arm had to beat the unigram model, so
# $\rho_t=1$ at depth 6, the worst arm by far, blocked every claim; now every arm counts with its own
# perplexity, the gate asks only that the default LRU trains somewhere, and each box declares the paper's
# own effect and the seeds at which a paper that is exactly right would be reproduced. A third time, for
# issue 49: a run stopped by its step cap has not finished training, so the gate now also asks that at most
# one run in twenty hit the cap.
# ```

# %% tags=["hide-input"]
display(Markdown(ledger.table()))
