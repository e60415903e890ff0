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
# ```{findings}
# ```
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
# :nonumber:
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
# step therefore costs the same for 50 or 50,000 sequences, and all seeds train at once as one batch of
# stacked weights. Every seed draws its own teacher task and student, derived from the chapter's `seed`
# (`ensembles.child_seeds`), and every claim is decided from intervals over the seeds ({doc}`/book/verdicts`).
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
seeds = None
fig4_teacher_hidden = None
fig4_widths = None
fig4_seeds = None
seed = None
seed_start = None
device = None

# %% tags=["hide-input"]
from IPython.display import Markdown, display
from myst_nb import glue

from rnnbook.book.chapter import start
from rnnbook.book.params import Param, at_least, in_open_unit, positive, Steps
from rnnbook.implicit_bias import ensembles, figures, kernel_regime

FIG4_N = [10, 40], [10, 40, 200], [10, 40, 200]  # presets (smoke, book, paper)
SPEC = {
    "nu_W": Param(float, 0.3, 0.3, 0.3, in_open_unit, "0 < nu_W < 1"),
    "nu_F": Param(float, 1.0, 1.0, 1.0, positive, "> 0"),
    "nu_C": Param(float, 1.0, 1.0, 1.0, positive, "> 0"),
    "T": Param(int, 10, 10, 10, at_least(2), ">= 2 time steps"),
    "n_train": Param(int, 50, 50, 50, at_least(1), ">= 1 sequences"),
    "n_test": Param(int, 50, 50, 50, at_least(1), ">= 1 sequences"),
    "snr_db": Param(float, 20.0, 20.0, 20.0, None, "output SNR in dB"),
    "teacher_hidden": Param(int, 4, 4, 4, at_least(1), ">= 1"),
    "n_student": Param(int, 64, 1000, 1000, at_least(2), ">= 2 hidden units"),
    "lr": Param(float, 0.02, 0.02, 0.02, positive, "> 0 (below B_1 for Theorem 4.1)"),
    "steps": Steps(60, 1000, 5000, "gradient steps", 10),
    "seeds": Param(int, 3, 10, 10, at_least(3), ">= 3 pairs (Fig. 1)", gpu=30),
    "fig4_teacher_hidden": Param(int, 20, 20, 20, at_least(1), ">= 1"),
    "fig4_widths": Param(list, *FIG4_N, at_least(2), ">= 2, increasing", item=int),
    "fig4_seeds": Param(int, 3, 16, 20, at_least(3), ">= 3 (an interval)", gpu=20),
    "seed": Param(int, 0, 0, 0, at_least(0), ">= 0"),
}
P, ledger = start("implicit_bias/training_dynamics", SPEC, globals())
setup = dict(T=P.T, n_train=P.n_train, n_test=P.n_test, snr_db=P.snr_db, seed=P.seed)
setup |= dict(seed_start=P.seed_start)
setup |= dict(nu_W=P.nu_W, nu_F=P.nu_F, nu_C=P.nu_C, lr=P.lr, steps=P.steps)

# %% [markdown]
# ## Figs. 1 and 2: a student RNN and its scaled convolution

# %%
ts = kernel_regime.teacher_student(
    n_teacher=P.teacher_hidden, n=P.n_student, seeds=P.seeds, device=P.device, **setup
)

# %% tags=["hide-input"]
display(Markdown(ts.constants_markdown()))

# %% tags=["hide-input"]
for k, v in ts.summary().items():
    glue(k, v, display=False)

# %% tags=["hide-input"]
fig = figures.loss_curves(ts)

# %% [markdown]
# **Figure 1.** The training and test losses of the RNN (thick solid lines) and of the scaled convolution
# (thin dashed lines) close together from the first step to the last, both falling to the noise level
# (the first of the {glue:text}`n_seeds` seeds). The largest relative distance between the two curves over all
# steps, the larger of train and test, is {glue:text}`gap:.3f` at $n=$ {glue:text}`n` (mean over seeds; 95%
# interval {glue:text}`gap_lo:.3f` to {glue:text}`gap_hi:.3f`).

# %% tags=["hide-input"]
fig = figures.first_steps(ts)

# %% [markdown]
# **Figure 2.** The first ten steps on a linear scale: the crosses of the convolution sit on the dots of the
# RNN. The paper notes that exact agreement needs $\eta\to0$ and $n\to\infty$; the residual difference is the
# finite-width one, which Fig. 4 below follows as $n$ grows.
#
# What the two models learned, lag by lag, against the teacher:

# %% tags=["hide-input"]
fig = figures.impulse_responses(ts)

# %% [markdown]
# **Figure 3.** Both trained models recover the teacher's impulse response at the short lags, where
# $\rho_j$ is large; at the long lags they keep their random initial values, because the gradient steps there
# are scaled by $\rho_j\approx j\,\nu_W^{j-1}$. The two trained models agree lag by lag.

# %% tags=["hide-input"]
ledger.check("implicit-bias.fig1.rnn-equals-scaled-conv", seeds=P.seeds, **ts.summary())

# %% [markdown]
# ## Theorem 4.1: the coefficient of lag $j$ moves at most $B_2\rho_j\eta\ell$
#
# The proof (App. B.4) works with the scaled convolution, which is the $n\to\infty$ dynamics of the RNN,
# and sets $B_1 = 1/(\rho_{\max}\|A\|^2)$, $B_2 = \|A^\top b\|$ for the least-squares cost
# $\tfrac12\|y - A L\|^2$; for our MSE, $B_2$ is the norm of the gradient $\partial\,\mathrm{MSE}/\partial L$ at
# initialization. We divide the measured drift $\|L^\ell_j - L^0_j\|_F$ of both models by $B_2\rho_j\eta\ell$
# at every lag and step: the bound holds where the ratio is at most 1.

# %% tags=["hide-input"]
fig = figures.drift(ts)

# %% [markdown]
# **Figure 4.** After the last step the drift of both models lies under the bound at every lag and falls
# geometrically with the lag, as $\rho_j$ does. Over all lags and steps the largest ratio of drift to bound is
# {glue:text}`drift_ratio_conv:.3f` for the scaled convolutions and {glue:text}`drift_ratio_rnn_max:.3f` for the RNNs (all seeds); the RNN's
# ratio may exceed 1 by a finite-width amount, since the theorem bounds the $\limsup_{n\to\infty}$.
#
# A remark on the proof: it bounds $\|\mathbf u^{\ell+1}\|\le\|\mathbf u^\ell\|+\eta B_2$ using
# $\|I-\eta A^\top A\mathbf D\|\le1$, which it derives from $\eta\mathbf D^{1/2}A^\top A\mathbf D^{1/2}\le I$. The two
# matrices are similar, but only the second is symmetric; the spectral norm of the first is
# {glue:text}`drift_proof_norm:.6f` here, and it can exceed 1, if only slightly (on small random problems the tests find up
# to about 1.004). The bound still holds for the scaled convolution in every run of this book, and in a Monte Carlo search over random problems in
# the tests, but that step of the proof needs another argument (e.g. that the residual does not grow under
# gradient descent with $\eta<B_1$, which gives the bound with $B_2=\|A\|\,\|\mathbf b\|$).
#
# ## Fig. 4: how wide is wide enough?

# %%
fw = kernel_regime.finite_width(
    n_teacher=P.fig4_teacher_hidden,
    widths=P.fig4_widths,
    seeds=P.fig4_seeds,
    device=P.device,
    **setup,
)

# %% tags=["hide-input"]
fig = figures.finite_width(fw)
for k, v in fw.summary().items():
    glue(f"fig4_{k}", v, display=False)

# %% [markdown]
# **Figure 5.** Top: the training curves of RNNs of three widths (solid) and of their scaled convolutions
# (dashed), for one seed; the narrow RNN wanders off its convolution, the wide one follows it. Bottom: the
# largest relative gap between the curves, over {glue:text}`fig4_n_seeds` seeds, falls with the width as
# $n^{p}$ with $p=$ {glue:text}`fig4_slope:.2f` (mean of the per-seed slopes; 95% interval
# {glue:text}`fig4_slope_lo:.2f` to {glue:text}`fig4_slope_hi:.2f`), to be compared with the
# $n^{-1/2}$ of the NTK's fluctuations. At $n_h=$ {glue:text}`fig4_n_last` the mean gap is
# {glue:text}`fig4_gap_last:.3f` ({glue:text}`fig4_gap_last_lo:.3f` to {glue:text}`fig4_gap_last_hi:.3f`; it is
# {glue:text}`fig4_gap_first:.3f` at the smallest width). The tolerance for "almost perfectly match", fixed in
# advance, is the same 10% as for Fig. 1.
#
# **Did the experiment work, and how do the effects move with training?** Each claim of this chapter has a
# gate, declared with it, that asks only that the experiment works: the reference, the scaled convolution (the
# $n\to\infty$ dynamics), cut its training loss to at most a quarter of its initial value in the median run
# (ratio {glue:text}`ref_train_ratio:.4f` for Fig. 1, {glue:text}`fig4_ref_train_ratio:.4f` for Fig. 4); a
# failed gate makes a verdict `inconclusive`. The RNNs are not gated: a narrow RNN that fits the teacher poorly
# is the effect Fig. 4 measures. The worst runs are reported: final/initial ratio
# {glue:text}`train_ratio:.4f` over both models of Fig. 1, {glue:text}`fig4_train_ratio:.4f` over the scaled
# convolutions and {glue:text}`fig4_rnn_train_ratio:.4f` over the RNNs of Fig. 4. The statistics of the
# claims, computed on the first $\ell$ steps only, after each $\ell$:

# %% tags=["hide-input"]
fig = figures.kernel_trend(ts, fw, ensembles.checkpoints(P.steps, 8), tol=0.10)

# %% [markdown]
# **Figure 6.** Top: the gap between each RNN and its scaled convolution over the steps so far (mean over
# seeds, band: 95% interval), per width; bottom: the slope of the gap against the width. The gap builds up
# over the first hundred steps, while the loss falls fastest, and stays put afterwards; the ordering by width
# holds from the first step, and the slope settles near the $n^{-1/2}$ of the NTK's fluctuations. The gap of
# the Fig. 1 students ($n=$ {glue:text}`n`) crosses the 0.10 tolerance at about the same time, with a wide
# interval: how far the curves stray in the fast-falling phase depends on the teacher. The verdicts below
# are taken after the last step.
#
# **Rules** (the design is on {doc}`/book/verdicts`; each box gives its history). Fig. 1: the interval of the gap
# below 0.10 reproduces, above it does not, across it decides nothing. Fig. 4, two effects, each reproduced
# when its 95% interval lies beyond its line (no adjustment: both must be), decided short or against the paper
# at the level adjusted for the two: the slope of log gap on log width below $-0.25$ (half the $n^{-1/2}$
# rate; above 0 is against the paper) and the gap at $n_h=$ {glue:text}`fig4_n_last` below 0.10. Both: `reproduced`; one, with the other
# short of its line but not against the paper: `partly-reproduced`; either against the paper, or some short of
# their line and none reproduced: `not-reproduced`; otherwise `inconclusive`.

# %% tags=["hide-input"]
# per seed, the reference's final / initial training loss at each width (the gates take
# the median of all of them, so that a record's shards join them)
ratios = [kernel_regime.loss_ratio(r.conv).tolist() for r in fw.runs.values()]
ref4 = {"fig4_ref_ratio_seeds": [list(s) for s in zip(*ratios)]}
ledger.check(
    "implicit-bias.fig4.finite-width", seeds=P.fig4_seeds, **fw.summary(), **ref4
)

# %% [markdown]
# The same runs give the finite-width behaviour of the drift bound: the largest ratio of the RNN's drift to
# $B_2\rho_j\eta\ell$ over lags and steps, per width (mean over seeds), next to the Fig. 1 student:

# %%
drift = kernel_regime.drift_summary(ts, fw)

# %% tags=["hide-input"]
for k, v in drift.items():
    glue(f"drift_{k}", v, display=False)
display(Markdown(kernel_regime.drift_table(ts, fw)))
ref = dict(ref_ratio_seeds=ts.summary()["ref_ratio_seeds"], **ref4)
ledger.check("implicit-bias.thm41.drift-bound", seeds=P.seeds, **drift, **ref)

# %% [markdown]
# ```{dropdown} How the rules of these claims changed
# :class-container: rules-history
#
# The rules of Fig. 4 and Theorem 4.1 were re-declared after their first runs under the book's single design
# ({doc}`/book/verdicts`): the Fig. 4 slope must reach half the $n^{-1/2}$ rate, and the drift bound is
# decided from the interval of the mean ratio at the Fig. 1 width and its trend across widths instead of the
# worst seed. They were re-declared again on 2026-11-28: their gates had been the worst of all runs, which
# failed on the width-10 student whose poor fit is the effect measured (and more seeds would fail it more
# often); the gates now read the reference (the scaled convolutions, median run), every effect is reproduced
# at 95% without adjustment, and each effect declares the paper's size and the seeds that would reproduce it
# (each claim box gives its old rules). On 2026-12-01 (Fig. 1) and 2026-12-02 (Fig. 4, Theorem 4.1) the gates
# were restated in form only: the rule takes the median itself, from every seed's ratios, so that a record
# run in shards of seeds decides it on all of them.
# ```

# %% tags=["hide-input"]
display(Markdown(ledger.table()))
