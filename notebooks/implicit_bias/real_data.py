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
# # Real data: limited data favours the short memory, all data the unscaled convolution
#
# ```{findings}
# ```
#
# **What the paper claims.** In Sec. 5.2 (Table 1, Fig. 5) {cite:t}`emami2021implicit` predict the hand
# velocity of a macaque from the spike rates of 52 neurons in its primary somatosensory cortex (S1), 51
# minutes of recording, with sequences of $T=15$ bins, a linear RNN ($n=1000$, $\nu_W=0.3$, $\nu_F=\nu_C=1$),
# the scaled convolution (8) and an unscaled convolution (5), on data of {cite:t}`benjamin2018modern`. Their finding: trained on only 4.5 minutes,
# the RNN and the scaled convolution beat the unscaled convolution in test $R^2$ (their short-memory bias
# lowers the variance); trained on all the data, the unscaled convolution wins (the bias now costs more than
# the variance saves). Their Table 1:
#
# | test $R^2$ | RNN | scaled conv | unscaled conv |
# | --- | --- | --- | --- |
# | $x$, all data | 0.6462 | 0.6442 | **0.6565** |
# | $y$, all data | 0.5911 | 0.5860 | **0.6027** |
# | $x$, limited data | 0.6043 | **0.6046** | 0.5856 |
# | $y$, limited data | **0.4257** | 0.4234 | 0.3918 |
#
# **The stand-in.** The S1 recording is not available offline (the loader for it, for a reader who has the
# file, is `rnnbook.implicit_bias.s1_macaque.load_s1`, kept apart from the stand-in). This chapter uses a real neural
# recording that ships with the PyPI package `nitime`: an event-related fMRI experiment
# (`rnnbook.implicit_bias.fmri_standin`), BOLD signal of motion-sensitive voxels near area MT sampled every 2 s for 3,360
# volumes while 6 kinds of motion stimuli were shown, 96 times each. It is framed as the paper frames S1: one
# signal (BOLD) predicted from the recent past of others (the 6 stimulus channels), $T=15$ (30 s, long enough
# for the haemodynamic response, and the window nitime's own example uses), "limited data" being the
# paper's fraction 4.5/51 of the recording. What carries over is the *finding*, not the numbers: the two
# tasks differ (decoding behaviour from spikes there, an encoding model of BOLD here), and the R² of a
# linear model of BOLD from stimulus onsets alone is modest.
#
# **Protocol** (`decoding.run_table1`, fixed before any result was seen). The recording is cut into 5
# contiguous blocks; each serves once as the test set. "All data" trains on the other four blocks, "limited
# data" on the first 4.5/51 of the recording that follows the test block. Training sequences are all
# windows of $T$ volumes inside a block; test sequences are consecutive windows of the test block. Inputs and
# outputs are z-scored with the training statistics. The three models start from the impulse response of
# the same random RNN (Eq. 58) and are trained by full-batch GD with the same learning rate and number of
# steps, long enough for the unscaled model's training loss to settle; the paper used mini-batches of 128.
# Every fold and regime is trained from `seeds` random initializations (derived from the chapter's `seed`),
# all at once: the RNNs as one batch of stacked weights (in float32), the two convolutions as another.
# The claim's interval comes from blocks of the recording, not from the folds (five folds of one recording are
# not five data sets, and more folds would add none): each test block is cut into consecutive blocks of 11 test
# windows (165 volumes, 5.5 min, far longer than the tens of seconds over which BOLD is autocorrelated), every
# model is scored on each, and the interval is over those blocks.

# %% tags=["parameters"]
profile = "book"
T = None
folds = None
limited_fraction = None
n_student = None
nu_W = None
nu_F = None
nu_C = None
lr = None
steps = None
seeds = None
seed = None
device = None

# %% tags=["hide-input"]
from IPython.display import Markdown, display
from myst_nb import glue

from rnnbook.book.chapter import start
from rnnbook.book.params import Param, at_least, in_open_unit, positive, Steps
import torch

from rnnbook.implicit_bias import decoding, ensembles, figures, fmri_standin

LIM = 4.5 / 51  # "limited data": the paper's 4.5 of 51 minutes
SPEC = {
    "T": Param(int, 15, 15, 15, at_least(2), ">= 2 time steps per sequence"),
    "folds": Param(int, 3, 5, 5, at_least(2), ">= 2 blocks (test folds)", gpu=8),
    "limited_fraction": Param(float, LIM, LIM, LIM, in_open_unit, "0 < fraction < 1"),
    "n_student": Param(int, 16, 200, 1000, at_least(2), ">= 2 hidden units"),
    "nu_W": Param(float, 0.3, 0.3, 0.3, in_open_unit, "0 < nu_W < 1"),
    "nu_F": Param(float, 1.0, 1.0, 1.0, positive, "> 0"),
    "nu_C": Param(float, 1.0, 1.0, 1.0, positive, "> 0"),
    "lr": Param(float, 0.05, 0.05, 0.05, positive, "> 0"),
    "steps": Steps(50, 2000, 5000, "gradient steps"),
    "seeds": Param(int, 3, 4, 10, at_least(3), ">= 3 inits per fold", gpu=10),
    "seed": Param(int, 0, 0, 0, at_least(0), ">= 0"),
}
P, ledger = start("implicit_bias/real_data", SPEC, globals())

# %% [markdown]
# ## The stand-in recording

# %%
X, Y = fmri_standin.load_event_related_fmri()

# %% tags=["hide-input"]
fig = figures.fmri_recording(X, Y)

# %% [markdown]
# **Figure 1.** The output, the BOLD signal of area MT (line), responds to the onsets of the six kinds of
# motion stimulus (ticks, one row per kind) with the slow haemodynamic response: a rise over 4-6 s and a
# return over 10-20 s, i.e. over 5-10 volumes. A filter of $T=15$ lags covers it, but its late part lies at
# lags where the scaled model's $\rho_j\approx j\,0.3^{j-1}$ is tiny.

# %%
res = decoding.run_table1(
    X,
    Y,
    T=P.T,
    folds=P.folds,
    limited_fraction=P.limited_fraction,
    n=P.n_student,
    nu_W=P.nu_W,
    nu_F=P.nu_F,
    nu_C=P.nu_C,
    lr=P.lr,
    steps=P.steps,
    seed=P.seed,
    seeds=P.seeds,
    rnn_dtype=torch.float32,
    device=P.device,
)

# %% tags=["hide-input"]
for k, v in res.summary().items():
    glue(k, v, display=False)
fig = figures.r2_curves(res)

# %% [markdown]
# **Figure 2.** Test $R^2$ along training (the analogue of the paper's Fig. 5), averaged over the test
# folds and seeds; left with {glue:text}`n_limited` training volumes, right with {glue:text}`n_all`. The vertical axis is
# cut: all models start far below 0, because the random initial filter predicts large outputs. The RNN and the
# scaled convolution follow each other in both regimes. The learning rate is stable for all three models
# ($\eta\,\lambda_{\max}$ of the Hessian = {glue:text}`lr_stab:.2f` < 2).

# %% tags=["hide-input"]
display(Markdown(res.r2_table()), Markdown(res.comparison_table()))

# %% [markdown]
# **Table 1 (stand-in).** Test $R^2$ of the three models in the two regimes, and the comparisons. Each
# difference has two 95% intervals: over the {glue:text}`n_seeds` initializations (of the fold means) and over
# the {glue:text}`folds` folds (of the seed means); the table shows their union. With all the data the unscaled
# convolution is ahead of the scaled one by {glue:text}`d_all_sc:+.4f` in $R^2$ (interval
# {glue:text}`all_sc_lo:+.4f` to {glue:text}`all_sc_hi:+.4f`; better in {glue:text}`wins_all` of
# {glue:text}`folds` folds). With limited data the scaled convolution is ahead of the unscaled one by
# {glue:text}`d_lim_sc:+.4f` ({glue:text}`lim_sc_lo:+.4f` to {glue:text}`lim_sc_hi:+.4f`; better in
# {glue:text}`wins_lim` of {glue:text}`folds` folds), and the RNN by {glue:text}`d_lim_rnn:+.4f`
# ({glue:text}`lim_rnn_lo:+.4f` to {glue:text}`lim_rnn_hi:+.4f`).
#
# These two-way intervals over seeds and folds are descriptive; the claim decides on blocks of the recording
# (below).
#
# **Did the experiment work?** The gate, declared with the claim: in each regime the best model's test $R^2$
# is above 0, i.e. it predicts held-out BOLD better than its mean (here the smaller of the two is
# {glue:text}`r2_best:.4f`); otherwise the verdict is `inconclusive`. The compared models are not gated: one
# that did not learn scores a low $R^2$ on every block, which counts against it.
#
# **The comparisons along training:**

# %% tags=["hide-input"]
fig = figures.table1_trend(res, ensembles.checkpoints(P.steps, 8))

# %% [markdown]
# **Figure 3.** Each difference after each number of steps, with the union of its two intervals (band).
# Early in training every model is still far from its fit and the differences reflect how fast each model
# moves; the verdict is taken after the last step.
#
# The verdict rule (its history is on the claim's box; the design is on {doc}`/book/verdicts`): each of the four
# comparisons is an effect, the $R^2$ difference on each block of the recording (mean over the initializations)
# as a fraction of the stand-in's own $R^2$ in that regime (the best model's, {glue:text}`r2_scale`), with a
# Student-t interval over the {glue:text}`n_blocks` blocks. Its line is half the paper's own relative effect
# (its Table 1 differences over its best $R^2$), declared before the run: the macaque $R^2$ is about 0.6, the
# stand-in's far lower, so an absolute line taken from the paper would ask the stand-in for a far larger effect
# than the paper found. It is for the paper when the 95% interval lies above the line and against it when the
# interval adjusted for the four effects lies below 0. All four for the paper: `reproduced`; some, with the
# others short of their line but none against the paper: `partly-reproduced`; any against the paper, or
# some short of their line and none reproduced: `not-reproduced`; otherwise `inconclusive`. The relative
# differences, mean [95% interval over blocks]:
# {glue:text}`block_iv`.
#
# What the models learned from all the data (first test fold), for the stimulus kind with the largest
# response:

# %% tags=["hide-input"]
fig = figures.learned_filters(res)

# %% [markdown]
# **Figure 4.** The three models agree on the first lags, the rise and peak of the haemodynamic response.
# Only the unscaled convolution learns the late part of the response, the undershoot below baseline 12-28 s
# after the stimulus; the scaled convolution and the RNN stay near their small initial values at the lags
# beyond 7 (14 s), where $\rho_j<10^{-2}$. That is the bias that costs them $R^2$ when data are plentiful.

# %% tags=["hide-input"]
ledger.check("implicit-bias.table1.real-data", seeds=P.seeds, **res.summary())

# %% [markdown]
# ```{dropdown} How the rules of these claims changed
# :class-container: rules-history
#
# The Table 1 rule was re-declared after its first runs under the book's single design
# ({doc}`/book/verdicts`): each of the four comparisons is its own effect. It was re-declared again on
# 2026-11-28: its interval came from five folds of one recording and its line, 0.01 in $R^2$, from the macaque
# data; now blocks of the recording give the interval and the line is half the paper's relative effect on the
# stand-in's own $R^2$, and the compared models are no longer gated (the claim box gives the old rules).
# ```

# %% tags=["hide-input"]
display(Markdown(ledger.table()))
