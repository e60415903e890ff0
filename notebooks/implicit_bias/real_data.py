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
seed = None

# %% tags=["hide-input"]
import numpy as np
import matplotlib.pyplot as plt
from IPython.display import Markdown, display
from myst_nb import glue

from rnnbook.implicit_bias import decoding
from rnnbook.implicit_bias import fmri_standin
from rnnbook import plotting
from rnnbook.book.ledger import Ledger
from rnnbook.book.params import (
    describe,
    Param,
    at_least,
    in_open_unit,
    positive,
    resolve,
)

SPEC = {
    "T": Param(int, 15, 15, 15, at_least(2), ">= 2 time steps per sequence"),
    "folds": Param(
        int, 3, 5, 5, at_least(2), ">= 2 contiguous blocks (cross-validation folds)"
    ),
    "limited_fraction": Param(
        float,
        4.5 / 51,
        4.5 / 51,
        4.5 / 51,
        in_open_unit,
        "0 < fraction < 1 of the recording (paper: 4.5 of 51 minutes)",
    ),
    "n_student": Param(int, 16, 200, 1000, at_least(2), ">= 2 hidden units"),
    "nu_W": Param(float, 0.3, 0.3, 0.3, in_open_unit, "0 < nu_W < 1"),
    "nu_F": Param(float, 1.0, 1.0, 1.0, positive, "> 0"),
    "nu_C": Param(float, 1.0, 1.0, 1.0, positive, "> 0"),
    "lr": Param(float, 0.05, 0.05, 0.05, positive, "> 0"),
    "steps": Param(int, 50, 2000, 5000, at_least(1), ">= 1 gradient steps"),
    "seed": Param(int, 0, 0, 0, at_least(0), ">= 0"),
}
P = resolve(
    SPEC,
    profile,
    T=T,
    folds=folds,
    limited_fraction=limited_fraction,
    n_student=n_student,
    nu_W=nu_W,
    nu_F=nu_F,
    nu_C=nu_C,
    lr=lr,
    steps=steps,
    seed=seed,
)
plotting.setup()
ledger = Ledger("implicit-bias", P.profile)
display(Markdown(describe(P)))

# %% [markdown]
# ## The stand-in recording

# %%
X, Y = fmri_standin.load_event_related_fmri()
t = np.arange(len(Y)) * fmri_standin.TR_SECONDS / 60
sl = slice(0, 300)
fig, ax = plt.subplots(figsize=(10, 3.6))
ax.plot(t[sl], Y[sl, 0], color=plotting.COLORS[0], lw=1.2, label="BOLD (output)")
for k in range(X.shape[1]):
    on = np.nonzero(X[sl, k])[0]
    ax.plot(
        t[sl][on],
        np.full(len(on), Y[sl].min() - 0.3 - 0.25 * k),
        "|",
        ms=8,
        mew=2,
        color=plotting.COLORS[(1, 2, 3, 4, 5, 7)[k % 6]],
        label=f"onsets, stimulus kind {k + 1}",
    )
ax.set(
    xlabel="time (minutes)",
    ylabel="BOLD (% signal change)",
    title="nitime's event-related fMRI recording: the first 10 minutes",
)
ax.legend(fontsize=7, ncol=4, loc="upper center", bbox_to_anchor=(0.5, -0.2))
plt.show()

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
    progress=plotting.progress,
)
glue("lr_stab", float(res.lr_stability), display=False)
glue("n_limited", int(res.train_sizes["limited"][0]), display=False)
glue("n_all", int(res.train_sizes["all"][0]), display=False)

fig, axes = plt.subplots(1, 2, figsize=(10.5, 4), sharey=True)
steps_ax = np.arange(P.steps + 1)
for r, reg in enumerate(res.regimes):
    for k, m in enumerate(res.models):
        curve = res.curves[r, :, k, :]
        axes[r].plot(
            steps_ax,
            curve.mean(0),
            ["-", "--", "-."][k],
            color=plotting.COLORS[k],
            lw=2 if k == 0 else 1.5,
            label=m + (f" ($n={P.n_student}$)" if m == "RNN" else ""),
        )
    axes[r].set_xscale("symlog", linthresh=10)
    axes[r].set_xlim(0, P.steps)
    axes[r].set(
        xlabel="full-batch GD step",
        title=f"{reg} data (mean over {P.folds} test folds)",
    )
    axes[r].legend(fontsize=8)
axes[0].set_ylabel("test $R^2$ of the BOLD signal")
final = res.curves[..., -1].mean(1)
axes[0].set_ylim(min(-0.1, float(final.min()) - 0.15), float(final.max()) + 0.1)
plt.tight_layout()
plt.show()

# %% [markdown]
# **Figure 2.** Test $R^2$ along training (the analogue of the paper's Fig. 5), averaged over the test
# folds; left with {glue:text}`n_limited` training volumes, right with {glue:text}`n_all`. The vertical axis is
# cut: all models start far below 0, because the random initial filter predicts large outputs. The RNN and the
# scaled convolution follow each other in both regimes. The learning rate is stable for all three models
# ($\eta\,\lambda_{\max}$ of the Hessian = {glue:text}`lr_stab:.2f` < 2).

# %%
rows = [
    "| test $R^2$ (mean ± sd over folds) | " + " | ".join(res.models) + " |",
    "| --- |" + " --- |" * len(res.models),
]
for r, reg in enumerate(res.regimes):
    cells = []
    best = int(np.argmax(res.r2[r].mean(0)))
    for k in range(len(res.models)):
        s = f"{res.r2[r, :, k].mean():.4f} ± {res.r2[r, :, k].std(ddof=1):.4f}"
        cells.append(f"**{s}**" if k == best else s)
    rows.append(f"| BOLD, {reg} data | " + " | ".join(cells) + " |")
display(Markdown("\n".join(rows)))

i_rnn, i_sc, i_un = (
    res.models.index(m) for m in ("RNN", "scaled conv", "unscaled conv")
)
lim, full = res.regimes.index("limited"), res.regimes.index("all")
tests = {
    "limited: scaled > unscaled": decoding.paired_one_sided(
        res.r2[lim, :, i_sc], res.r2[lim, :, i_un]
    ),
    "limited: RNN > unscaled": decoding.paired_one_sided(
        res.r2[lim, :, i_rnn], res.r2[lim, :, i_un]
    ),
    "all: unscaled > scaled": decoding.paired_one_sided(
        res.r2[full, :, i_un], res.r2[full, :, i_sc]
    ),
    "all: unscaled > RNN": decoding.paired_one_sided(
        res.r2[full, :, i_un], res.r2[full, :, i_rnn]
    ),
}
display(
    Markdown(
        "| comparison | mean difference in $R^2$ | one-sided paired $t$-test $p$ | holds at 5% |\n"
        "| --- | --- | --- | --- |\n"
        + "\n".join(
            f"| {k} | {v[0]:+.4f} | {v[1]:.3f} | {'yes' if v[1] < 0.05 else 'no'} |"
            for k, v in tests.items()
        )
    )
)
holds = {k: bool(v[1] < 0.05) for k, v in tests.items()}
limited_ok = holds["limited: scaled > unscaled"] and holds["limited: RNN > unscaled"]
all_ok = holds["all: unscaled > scaled"] and holds["all: unscaled > RNN"]
for k, (diff, p) in zip(("lim_sc", "lim_rnn", "all_sc", "all_rnn"), tests.values()):
    glue(f"d_{k}", diff, display=False)
    glue(f"p_{k}", p, display=False)
glue(
    "wins_lim", int(np.sum(res.r2[lim, :, i_sc] > res.r2[lim, :, i_un])), display=False
)
glue(
    "wins_all",
    int(np.sum(res.r2[full, :, i_un] > res.r2[full, :, i_sc])),
    display=False,
)
glue("folds_int", int(P.folds), display=False)

# %% [markdown]
# **Table 1 (stand-in).** Test $R^2$ of the three models in the two regimes, and the paired comparisons over
# the test folds. With all the data the unscaled convolution is ahead of the scaled one by
# {glue:text}`d_all_sc:+.4f` in $R^2$ (one-sided $p=$ {glue:text}`p_all_sc:.3f`; better in
# {glue:text}`wins_all` of {glue:text}`folds_int` folds). With limited data the scaled convolution is ahead of
# the unscaled one by {glue:text}`d_lim_sc:+.4f` ($p=$ {glue:text}`p_lim_sc:.3f`; better in {glue:text}`wins_lim`
# of {glue:text}`folds_int` folds), and the RNN by {glue:text}`d_lim_rnn:+.4f` ($p=$ {glue:text}`p_lim_rnn:.3f`).
#
# The verdict rule, fixed in advance: a regime's half of the finding holds when both of its comparisons are
# significant at 5% (one-sided paired $t$-test over the folds). Both halves: `reproduced`; one: `partly-reproduced`;
# none: `not-reproduced`.
#
# What the models learned from all the data (first test fold), for the stimulus kind with the largest
# response:

# %%
L_all = res.final_L[full, 0]  # (models, T, n_y, n_x)
kind = int(np.argmax(np.abs(L_all[i_un, :, 0, :]).sum(0)))
lags_s = np.arange(P.T) * fmri_standin.TR_SECONDS
fig, ax = plt.subplots()
for k, m in enumerate(res.models):
    ax.plot(
        lags_s,
        L_all[k, :, 0, kind],
        ["o-", "x--", "s-."][k],
        color=plotting.COLORS[k],
        label=m,
    )
ax.axhline(0, color="k", lw=0.8)
ax.set(
    xlabel="lag (seconds)",
    ylabel="filter coefficient $L_j$ (z-scored BOLD per z-scored input)",
    title=f"Learned responses to stimulus kind {kind + 1} (all data, fold 1)",
)
ax.legend(fontsize=8)
plt.show()

# %% [markdown]
# **Figure 3.** The three models agree on the first lags, the rise and peak of the haemodynamic response.
# Only the unscaled convolution learns the late part of the response, the undershoot below baseline 12-28 s
# after the stimulus; the scaled convolution and the RNN stay near their small initial values at the lags
# beyond 7 (14 s), where $\rho_j<10^{-2}$. That is the bias that costs them $R^2$ when data are plentiful.

# %%
verdict = (
    "reproduced"
    if (limited_ok and all_ok)
    else ("partly-reproduced" if (limited_ok or all_ok) else "not-reproduced")
)
ledger.record(
    "implicit-bias.table1.real-data",
    "Table 1",
    "On real neural data (macaque S1, T = 15): with limited data (4.5 of 51 min) the RNN and the scaled "
    "convolution beat the unscaled convolution in test R^2; with all the data the unscaled convolution wins.",
    paper_value=decoding.PAPER_TABLE1,
    measured={
        "R2_mean": {
            reg: {
                m: round(float(res.r2[r, :, k].mean()), 4)
                for k, m in enumerate(res.models)
            }
            for r, reg in enumerate(res.regimes)
        },
        "R2_sd_over_folds": {
            reg: {
                m: round(float(res.r2[r, :, k].std(ddof=1)), 4)
                for k, m in enumerate(res.models)
            }
            for r, reg in enumerate(res.regimes)
        },
        "paired_tests": {
            k: {"mean_diff": round(v[0], 4), "p": round(v[1], 4)}
            for k, v in tests.items()
        },
        "limited_half_holds": limited_ok,
        "all_data_half_holds": all_ok,
    },
    tolerance="each half holds if both of its comparisons are significant at 5% (one-sided paired t-test over folds)",
    verdict=verdict,
    note="STAND-IN DATA: nitime's event-related fMRI recording (BOLD of area MT from 6 stimulus channels, TR 2 s, "
    "3,360 volumes) replaces the macaque S1 recording, which is not available offline (loader kept in "
    f"rnnbook.implicit_bias.s1_macaque). {P.folds} contiguous test folds; limited = {P.limited_fraction:.4f} of the recording; "
    f"RNN n = {P.n_student} (paper 1000); full-batch GD, lr = {P.lr}, {P.steps} steps (paper: mini-batch 128, "
    "lr 1e-4). The finding is checked, not the paper's R^2 values.",
)

# %% [markdown]
# ## Verdicts
#
# The claims this chapter checked, as recorded in the ledger (see the {doc}`/book/scorecard`):

# %%
display(Markdown(ledger.table()))
