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
# # Training a wide linear RNN is training a scaled convolution
#
# **What the paper claims.** From Theorems 3.2 and 3.3 (the two models have the same NTK, see
# {doc}`equivalence` and {doc}`rho_j`) and the kernel-regime results of {cite:t}`lee2019wide` and
# {cite:t}`alemohammad2020recurrent`,
# {cite:t}`emami2021implicit` conclude that gradient descent on a wide linear RNN follows gradient descent on
# the scaled convolution (8) with the scale factors (21), started from the same impulse response (Eq. 58):
#
# * **Figs. 1 and 2** (Sec. 5.1): a teacher RNN with 4 hidden units ($n_x=n_y=1$, $\nu_W=0.3$, $\nu_F=\nu_C=1$)
#   generates 50 training and 50 test sequences of length $T=10$ with output SNR 20 dB; a student RNN with
#   $n=1000$ and the scaled convolution, trained by full-batch GD with the same learning rate, have
#   "identical dynamics" of the training and test loss;
# * **Fig. 4** (ICML version): with a teacher of 20 hidden units and students of $n=10, 40, 200$, "as we
#   increase $n_h$ the two curves become closer and for $n_h=200$ they almost perfectly match";
#
# :::{prf:theorem} Theorem 4.1, Eq. (25)
# :label: thm-emami-4-1
# There are constants $B_1, B_2$ (independent of $\nu_W$) such that, if the learning rate satisfies
# $\eta<B_1$, then for all iterations $\ell$,
# $\limsup_{n\to\infty}\|L^\ell_{\mathrm{RNN},j}-L^0_{\mathrm{RNN},j}\|_F \le B_2\,\rho_j\,\eta\,\ell$:
# the coefficient of lag $j$ moves at most in proportion to $\rho_j$, which decays like $\nu_W^{j-1}$ (Eq. 22).
# :::
#
# **How this book trains.** Every model here is a convolution with its impulse response $L$
# (Proposition 2.1(a)), so its mean-squared error is a quadratic function of $L$ whose coefficients are
# computed once from the data (`gd_training.lag_stats`); the RNN's gradient is that of the loss with respect
# to $L$ pulled back through Eq. (9) (`gd_training.rnn_impulse_and_grad`, tested against autograd). A
# step therefore costs the same for 50 or 50,000 sequences, and several seeds train at once as a batch.
# The loss is the MSE over all outputs; the paper's learning rate $10^{-4}$ refers to a loss normalisation it
# does not state, so we choose $\eta$ below the constant $B_1$ of Theorem 4.1 for this loss (printed below),
# which also keeps the dynamics close to the small-step limit of the theory.

# %% tags=["parameters"]
profile = "book"
nu_W = None
nu_F = None
nu_C = None
T = None
n_train = None
n_test = None
snr_db = None
teacher_hidden = None
n_student = None
lr = None
steps = None
fig4_teacher_hidden = None
fig4_widths = None
fig4_seeds = None
seed = None

# %% tags=["hide-input"]
import numpy as np
import torch
import matplotlib.pyplot as plt
from IPython.display import Markdown, display
from myst_nb import glue

from rnnbook.implicit_bias import gd_training as gt
from rnnbook.implicit_bias import kernel_regime as kr
from rnnbook import plotting
from rnnbook.implicit_bias import teacher_tasks
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
    "nu_W": Param(float, 0.3, 0.3, 0.3, in_open_unit, "0 < nu_W < 1"),
    "nu_F": Param(float, 1.0, 1.0, 1.0, positive, "> 0"),
    "nu_C": Param(float, 1.0, 1.0, 1.0, positive, "> 0"),
    "T": Param(int, 10, 10, 10, at_least(2), ">= 2 time steps"),
    "n_train": Param(int, 50, 50, 50, at_least(1), ">= 1 sequences"),
    "n_test": Param(int, 50, 50, 50, at_least(1), ">= 1 sequences"),
    "snr_db": Param(
        float, 20.0, 20.0, 20.0, None, "output signal-to-noise ratio in dB"
    ),
    "teacher_hidden": Param(int, 4, 4, 4, at_least(1), ">= 1"),
    "n_student": Param(int, 64, 1000, 1000, at_least(2), ">= 2 hidden units"),
    "lr": Param(
        float, 0.02, 0.02, 0.02, positive, "> 0 (must stay below B_1 for Theorem 4.1)"
    ),
    "steps": Param(int, 60, 1000, 5000, at_least(10), ">= 10 gradient steps"),
    "fig4_teacher_hidden": Param(int, 20, 20, 20, at_least(1), ">= 1"),
    "fig4_widths": Param(
        list,
        [10, 40],
        [10, 40, 200],
        [10, 40, 200],
        at_least(2),
        "integers >= 2, increasing",
        item=int,
    ),
    "fig4_seeds": Param(int, 2, 8, 20, at_least(2), ">= 2 (an error bar needs two)"),
    "seed": Param(int, 0, 0, 0, at_least(0), ">= 0"),
}
P = resolve(
    SPEC,
    profile,
    nu_W=nu_W,
    nu_F=nu_F,
    nu_C=nu_C,
    T=T,
    n_train=n_train,
    n_test=n_test,
    snr_db=snr_db,
    teacher_hidden=teacher_hidden,
    n_student=n_student,
    lr=lr,
    steps=steps,
    fig4_teacher_hidden=fig4_teacher_hidden,
    fig4_widths=fig4_widths,
    fig4_seeds=fig4_seeds,
    seed=seed,
)
plotting.setup()
torch.manual_seed(P.seed)
ledger = Ledger("implicit-bias", P.profile)
display(Markdown(describe(P)))

# %% [markdown]
# ## Figs. 1 and 2: a student RNN and its scaled convolution

# %%
task = teacher_tasks.teacher_task(
    n_teacher=P.teacher_hidden,
    n_x=1,
    n_y=1,
    T=P.T,
    n_train=P.n_train,
    n_test=P.n_test,
    nu_W=P.nu_W,
    nu_F=P.nu_F,
    nu_C=P.nu_C,
    snr_db=P.snr_db,
    seed=P.seed,
)
train = gt.lag_stats(task.X_train, task.Y_train)
test = gt.lag_stats(task.X_test, task.Y_test)
run = kr.train_pair(
    train,
    {"test": test},
    n=P.n_student,
    nu_W=P.nu_W,
    nu_F=P.nu_F,
    nu_C=P.nu_C,
    lr=P.lr,
    steps=P.steps,
    seed=P.seed + 1,
)
c41 = kr.theorem41_constants(train, run.rnn.L[0], run.rho, P.nu_F, P.nu_C, P.lr)
gap_train = float(kr.relative_gap(run.rnn.losses["train"], run.conv.losses["train"]))
gap_test = float(kr.relative_gap(run.rnn.losses["test"], run.conv.losses["test"]))
glue("lr", float(P.lr), display=False)
glue("B1", c41.B1, display=False)
glue("gap_train", gap_train, display=False)
glue("gap_test", gap_test, display=False)
glue("n_student", int(P.n_student), display=False)
display(
    Markdown(
        f"Learning rate $\\eta = {P.lr}$; the constant of Theorem 4.1 for these data is "
        f"$B_1 = 1/(\\rho_{{\\max}}\\|\\tilde A\\|^2) = {c41.B1:.4f}$ ($\\rho_{{\\max}} = {c41.rho_max:g}$)."
    )
)

# %%
steps_ax = np.arange(P.steps + 1)
fig, ax = plt.subplots()
for k, (name, c) in enumerate(
    (("train", plotting.COLORS[0]), ("test", plotting.COLORS[1]))
):
    ax.plot(
        steps_ax,
        run.rnn.losses[name].numpy(),
        "-",
        color=c,
        lw=2,
        label=f"{name}, RNN ($n={P.n_student}$)",
    )
    ax.plot(
        steps_ax,
        run.conv.losses[name].numpy(),
        "--",
        color="k" if k == 0 else plotting.COLORS[3],
        lw=1.2,
        label=f"{name}, scaled conv (8)",
    )
ax.axhline(task.noise_var, color="gray", ls=":", label="noise variance (SNR 20 dB)")
ax.set_yscale("log")
ax.set_xscale("symlog", linthresh=10)
ax.set_xlim(0, P.steps)
ax.set(
    xlabel="full-batch GD step $\\ell$",
    ylabel="mean-squared error (output units$^2$)",
    title="Fig. 1: RNN and scaled convolution trained with the same learning rate",
)
ax.legend(fontsize=8)
plt.show()

# %% [markdown]
# **Figure 1.** The training and test losses of the RNN (thick solid lines) and of the scaled convolution
# (thin dashed lines) on top of each other from the first step to the last, both falling to the noise level.
# The largest relative distance between the two curves over all steps is {glue:text}`gap_train:.3f` for the
# training loss and {glue:text}`gap_test:.3f` for the test loss at $n=$ {glue:text}`n_student`.

# %%
k10 = min(10, P.steps)
fig, ax = plt.subplots()
for name, c in (("train", plotting.COLORS[0]), ("test", plotting.COLORS[1])):
    ax.plot(
        steps_ax[: k10 + 1],
        run.rnn.losses[name][: k10 + 1].numpy(),
        "o-",
        color=c,
        label=f"{name}, RNN",
    )
    ax.plot(
        steps_ax[: k10 + 1],
        run.conv.losses[name][: k10 + 1].numpy(),
        "x--",
        color="k",
        ms=7,
        label=f"{name}, scaled conv",
    )
ax.set(
    xlabel="full-batch GD step $\\ell$",
    ylabel="mean-squared error (output units$^2$)",
    title="Fig. 2: the first 10 steps of Fig. 1",
)
ax.legend(fontsize=8)
plt.show()

# %% [markdown]
# **Figure 2.** The first ten steps on a linear scale: the crosses of the convolution sit on the dots of the
# RNN. The paper notes that exact agreement needs $\eta\to0$ and $n\to\infty$; the residual difference is the
# finite-width one, which Fig. 4 below follows as $n$ grows.
#
# What the two models learned, lag by lag, against the teacher:

# %%
js = np.arange(P.T)
fig, ax = plt.subplots()
ax.semilogy(js, task.L_true[:, 0, 0].abs().numpy(), "k-", lw=2, label="teacher $|L_j|$")
ax.semilogy(
    js,
    run.rnn.L[0][:, 0, 0].abs().numpy(),
    ":",
    color="gray",
    label="initial $|L^0_j|$ (both models)",
)
ax.semilogy(
    js,
    run.rnn.L[-1][:, 0, 0].abs().numpy(),
    "o-",
    color=plotting.COLORS[0],
    label="RNN after training",
)
ax.semilogy(
    js,
    run.conv.L[-1][:, 0, 0].abs().numpy(),
    "x--",
    color=plotting.COLORS[3],
    ms=7,
    label="scaled conv after training",
)
ax.set(
    xlabel="lag $j$ (time steps)",
    ylabel="$|L_j|$ (output units per input unit)",
    title=f"Impulse responses after {P.steps} steps",
)
ax.legend(fontsize=8)
plt.show()

# %% [markdown]
# **Figure 3.** Both trained models recover the teacher's impulse response at the short lags, where
# $\rho_j$ is large; at the long lags they keep their random initial values, because the gradient steps there
# are scaled by $\rho_j\approx j\,\nu_W^{j-1}$. The two trained models agree lag by lag.

# %%
ok_fig1 = max(gap_train, gap_test) <= 0.10
ledger.record(
    "implicit-bias.fig1.rnn-equals-scaled-conv",
    "Fig. 1",
    "A student linear RNN (n = 1000) and the scaled convolution with rho of Eq. (21), trained by full-batch GD "
    "with the same learning rate on the teacher task, have identical training and test loss dynamics "
    "(Figs. 1 and 2).",
    paper_value="identical dynamics (curves overlap)",
    measured={
        "n": P.n_student,
        "max_rel_gap_train": round(gap_train, 4),
        "max_rel_gap_test": round(gap_test, 4),
        "final_train": [
            float(f"{run.rnn.losses['train'][-1]:.4g}"),
            float(f"{run.conv.losses['train'][-1]:.4g}"),
        ],
        "final_test": [
            float(f"{run.rnn.losses['test'][-1]:.4g}"),
            float(f"{run.conv.losses['test'][-1]:.4g}"),
        ],
    },
    tolerance="max over steps of |loss_RNN / loss_conv - 1| <= 0.10 for train and test (0.04 decades on the "
    "log-scale plot; finite-width deviations are O(n^-1/2))",
    verdict="reproduced" if ok_fig1 else "not-reproduced",
    note=f"MSE loss, lr = {P.lr} (below B_1 = {c41.B1:.3g}; the paper's lr 1e-4 is for an unstated loss "
    f"normalisation), {P.steps} full-batch steps, float64. Fig. 2 (the first 10 steps) is part of this claim.",
)

# %% [markdown]
# ## Theorem 4.1: the coefficient of lag $j$ moves at most $B_2\rho_j\eta\ell$
#
# The proof (App. B.4) works with the scaled convolution, which is the $n\to\infty$ dynamics of the RNN,
# and sets $B_1 = 1/(\rho_{\max}\|A\|^2)$, $B_2 = \|A^\top b\|$ for the least-squares cost
# $\tfrac12\|y - A L\|^2$; for our MSE, $B_2$ is the norm of the gradient $\partial\,\mathrm{MSE}/\partial L$ at
# initialization. We divide the measured drift $\|L^\ell_j - L^0_j\|_F$ of both models by $B_2\rho_j\eta\ell$
# at every lag and step: the bound holds where the ratio is at most 1.

# %%
ratio_conv = kr.drift_ratio(run.conv, run.rho, P.lr, c41.B2)
ratio_rnn = kr.drift_ratio(run.rnn, run.rho, P.lr, c41.B2)
ell = P.steps
drift_rnn = (run.rnn.L[-1] - run.rnn.L[0]).flatten(-2).norm(dim=-1).numpy()
drift_conv = (run.conv.L[-1] - run.conv.L[0]).flatten(-2).norm(dim=-1).numpy()
bound = (c41.B2 * run.rho * P.lr * ell).numpy()
fig, ax = plt.subplots()
ax.semilogy(js, bound, "k-", lw=2, label=r"bound $B_2\rho_j\eta\ell$ (Eq. 25)")
ax.semilogy(
    js, drift_rnn, "o-", color=plotting.COLORS[0], label=f"RNN ($n={P.n_student}$)"
)
ax.semilogy(
    js,
    drift_conv,
    "x--",
    color=plotting.COLORS[3],
    ms=7,
    label="scaled conv ($n\\to\\infty$ dynamics)",
)
ax.set(
    xlabel="lag $j$ (time steps)",
    ylabel=r"$\|L^\ell_j - L^0_j\|_F$ (output units per input unit)",
    title=f"Drift of the impulse response after $\\ell={ell}$ steps",
)
ax.legend(fontsize=8)
plt.show()
glue("ratio_conv", float(ratio_conv.max()), display=False)
glue("ratio_rnn", float(ratio_rnn.max()), display=False)
glue("proof_norm", c41.proof_matrix_norm, display=False)

# %% [markdown]
# **Figure 4.** After the last step the drift of both models lies under the bound at every lag and falls
# geometrically with the lag, as $\rho_j$ does. Over all lags and steps the largest ratio of drift to bound is
# {glue:text}`ratio_conv:.3f` for the scaled convolution and {glue:text}`ratio_rnn:.3f` for the RNN; the RNN's
# ratio may exceed 1 by a finite-width amount, since the theorem bounds the $\limsup_{n\to\infty}$.
#
# A remark on the proof: it bounds $\|\mathbf u^{\ell+1}\|\le\|\mathbf u^\ell\|+\eta B_2$ using
# $\|I-\eta A^\top A\mathbf D\|\le1$, which it derives from $\eta\mathbf D^{1/2}A^\top A\mathbf D^{1/2}\le I$. The two
# matrices are similar, but only the second is symmetric; the spectral norm of the first is
# {glue:text}`proof_norm:.6f` here, and it can exceed 1, if only slightly (on small random problems the tests find up
# to about 1.004). The bound still holds in every run of this book, and in a Monte Carlo search over random problems in
# the tests, but that step of the proof needs another argument (e.g. that the residual does not grow under
# gradient descent with $\eta<B_1$, which gives the bound with $B_2=\|A\|\,\|\mathbf b\|$).
#
# ## Fig. 4: how wide is wide enough?

# %%
task4 = teacher_tasks.teacher_task(
    n_teacher=P.fig4_teacher_hidden,
    n_x=1,
    n_y=1,
    T=P.T,
    n_train=P.n_train,
    n_test=P.n_test,
    nu_W=P.nu_W,
    nu_F=P.nu_F,
    nu_C=P.nu_C,
    snr_db=P.snr_db,
    seed=P.seed + 1,
)
train4 = gt.lag_stats(task4.X_train, task4.Y_train)
runs4, gaps4, ratios4 = {}, [], []
for n in plotting.progress(P.fig4_widths, desc="widths"):
    r = kr.train_pair(
        train4,
        {},
        n=n,
        nu_W=P.nu_W,
        nu_F=P.nu_F,
        nu_C=P.nu_C,
        lr=P.lr,
        steps=P.steps,
        seed=P.seed + 100 + n,
        batch=P.fig4_seeds,
    )
    runs4[n] = r
    gaps4.append(kr.relative_gap(r.rnn.losses["train"], r.conv.losses["train"]).numpy())
    B2 = kr.theorem41_constants(train4, r.rnn.L[0], r.rho, P.nu_F, P.nu_C, P.lr).B2
    ratios4.append(kr.drift_ratio(r.rnn, r.rho, P.lr, B2).amax(dim=(0, 2)).numpy())
gaps4, ratios4 = np.array(gaps4), np.array(ratios4)  # (widths, seeds)

fig, axes = plt.subplots(1, 2, figsize=(10.5, 4))
for a, n in enumerate(P.fig4_widths):
    c = plotting.COLORS[a]
    axes[0].plot(
        steps_ax,
        runs4[n].rnn.losses["train"][:, 0].numpy(),
        "-",
        color=c,
        lw=2,
        label=f"RNN, $n_h={n}$",
    )
    axes[0].plot(
        steps_ax,
        runs4[n].conv.losses["train"][:, 0].numpy(),
        "--",
        color=c,
        lw=1.2,
        label=f"scaled conv, $n_h={n}$",
    )
axes[0].set_yscale("log")
axes[0].set_xscale("symlog", linthresh=10)
axes[0].set_xlim(0, P.steps)
axes[0].set(
    xlabel="full-batch GD step $\\ell$",
    ylabel="training MSE (output units$^2$)",
    title="Fig. 4: RNN (solid) vs scaled conv (dashed), seed 0",
)
axes[0].legend(fontsize=7)
slope, slope_se = kr.loglog_slope(np.array(P.fig4_widths), gaps4)
ns4 = np.array(P.fig4_widths, float)
axes[1].errorbar(
    ns4,
    gaps4.mean(1),
    yerr=gaps4.std(1, ddof=1),
    fmt="o-",
    capsize=3,
    label=f"mean ± sd over {P.fig4_seeds} seeds",
)
axes[1].loglog(
    ns4,
    gaps4.mean(1)[0] * (ns4 / ns4[0]) ** -0.5,
    ":",
    color="gray",
    label=r"reference $n^{-1/2}$",
)
axes[1].axhline(0.10, color=plotting.COLORS[3], ls="--", lw=1, label="tolerance 0.10")
axes[1].set_xscale("log")
axes[1].set_yscale("log")
axes[1].set(
    xlabel="student width $n_h$ (hidden units)",
    ylabel=r"max$_\ell$ |loss$_{RNN}$/loss$_{conv}$ - 1|",
    title=f"Gap between the training curves (fit: $n^{{{slope:.2f}\\pm{1.96 * slope_se:.2f}}}$)",
)
axes[1].legend(fontsize=8)
plt.tight_layout()
plt.show()
glue("fig4_slope", slope, display=False)
glue("fig4_slope_ci", 1.96 * slope_se, display=False)
glue("fig4_gap_last", float(gaps4[-1].mean()), display=False)
glue("fig4_n_last", int(P.fig4_widths[-1]), display=False)
glue("fig4_gap_first", float(gaps4[0].mean()), display=False)
glue("fig4_seeds_int", int(P.fig4_seeds), display=False)

# %% [markdown]
# **Figure 5.** Left: the training curves of RNNs of three widths (solid) and of their scaled convolutions
# (dashed), for one seed; the narrow RNN wanders off its convolution, the wide one follows it. Right: the
# largest relative gap between the curves, over {glue:text}`fig4_seeds_int` seeds, falls with the width as
# $n^{p}$ with $p=$ {glue:text}`fig4_slope:.2f` $\pm$ {glue:text}`fig4_slope_ci:.2f` (95%), close to the
# $n^{-1/2}$ of the NTK's fluctuations. At $n_h=$ {glue:text}`fig4_n_last` the mean gap is
# {glue:text}`fig4_gap_last:.3f` (it is {glue:text}`fig4_gap_first:.3f` at the smallest width). The tolerance for
# "almost perfectly match", fixed in advance, is the same 10% as for Fig. 1.

# %%
decreasing = slope + 1.96 * slope_se < 0
close_at_last = float(gaps4[-1].mean()) <= 0.10
ledger.record(
    "implicit-bias.fig4.finite-width",
    "Fig. 4",
    "With a teacher of 20 hidden units and students of n = 10, 40, 200 hidden units, the RNN's training curve "
    "approaches the scaled convolution's as n grows, and for n = 200 they almost perfectly match.",
    paper_value="gap shrinks with n; almost perfect match at n = 200",
    measured={
        "widths": P.fig4_widths,
        "mean_max_rel_gap": [round(float(v), 4) for v in gaps4.mean(1)],
        "sd": [round(float(v), 4) for v in gaps4.std(1, ddof=1)],
        "loglog_slope": round(slope, 3),
        "slope_95ci": round(1.96 * slope_se, 3),
    },
    tolerance="decreasing: fitted log-log slope with its 95% CI below 0; match: mean max relative gap <= 0.10 at "
    "the largest width",
    verdict="reproduced"
    if (decreasing and close_at_last)
    else ("partly-reproduced" if decreasing else "not-reproduced"),
    note=f"{P.fig4_seeds} student seeds per width, lr = {P.lr}, {P.steps} full-batch steps, T = {P.T}, "
    f"{P.n_train} training sequences, SNR {P.snr_db} dB. The gap is measured on the whole training curve "
    "(largest relative difference over steps).",
)

# %% [markdown]
# The same runs give the finite-width behaviour of the drift bound: the largest ratio of the RNN's drift to
# $B_2\rho_j\eta\ell$ over lags and steps, per width (mean over seeds), next to the Fig. 1 student:

# %%
tbl = "| width $n$ | max drift / bound (mean over seeds) |\n| --- | --- |\n"
tbl += "\n".join(
    f"| {n} | {ratios4[a].mean():.3f} |" for a, n in enumerate(P.fig4_widths)
)
tbl += f"\n| {P.n_student} (Fig. 1 student) | {float(ratio_rnn.max()):.3f} |"
display(Markdown(tbl))
ok_lr = P.lr < c41.B1
ok_conv = float(ratio_conv.max()) <= 1 + 1e-9
ok_rnn = float(ratio_rnn.max()) <= 1.10
ledger.record(
    "implicit-bias.thm41.drift-bound",
    "Theorem 4.1",
    "Eq. (25): for lr < B_1, limsup_n ||L_j^l - L_j^0||_F <= B_2 rho_j lr l, with B_1 = 1/(rho_max ||A||^2) "
    "and B_2 = ||A^T b|| (App. B.4).",
    paper_value="||L_j^l - L_j^0|| <= B_2 rho_j lr l",
    measured={
        "lr": P.lr,
        "B1": round(c41.B1, 5),
        "max_ratio_scaled_conv": round(float(ratio_conv.max()), 4),
        f"max_ratio_rnn_n{P.n_student}": round(float(ratio_rnn.max()), 4),
        "max_ratio_rnn_by_width": {
            str(n): round(float(ratios4[a].mean()), 3)
            for a, n in enumerate(P.fig4_widths)
        },
        "proof_matrix_norm": round(c41.proof_matrix_norm, 7),
    },
    tolerance="lr < B_1; ratio <= 1 for the scaled convolution (the n -> infinity dynamics) at every lag and step; "
    "<= 1.10 for the widest RNN (finite-width allowance, as for Fig. 1)",
    verdict="reproduced"
    if (ok_lr and ok_conv and ok_rnn)
    else ("partly-reproduced" if ok_conv else "not-reproduced"),
    note="The bound holds, but one step of the proof does not follow as written: ||I - lr A^T A D|| <= 1 is "
    f"claimed from lr D^1/2 A^T A D^1/2 <= I, and the non-symmetric matrix has norm {c41.proof_matrix_norm:.6f} "
    "here. Narrow RNNs exceed the bound at long lags by finite-width amounts that shrink "
    "with n (table above).",
)

# %% [markdown]
# ## Verdicts
#
# The claims this chapter checked, as recorded in the ledger (see the {doc}`/book/scorecard`):

# %%
display(Markdown(ledger.table()))
