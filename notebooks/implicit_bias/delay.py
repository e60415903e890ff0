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
# # The bias against long memory: test error against delay
#
# ```{findings}
# ```
#
# **What the paper claims.** Theorem 4.1 ({doc}`training_dynamics`) says that a wide linear RNN trained by
# gradient descent moves its lag-$j$ coefficient at most in proportion to $\rho_j\approx j\nu_W^{j-1}$: unless
# the number of steps grows exponentially with the lag, the RNN cannot learn long memories.
# {cite:t}`emami2021implicit` test this in Sec. 5.1 (Fig. 3): the output of a true linear system with
# $n_x=15$ inputs and $n_y=1$ output is delayed, $y_t = \tilde y_{t-\mathrm{delay}}$, with $T=20$, 10 training
# and 10 test sequences and output SNR 20 dB, and a linear RNN, the scaled convolution (8) and an unscaled
# convolution (5) are trained on it:
#
# > "the performance of the scaled convolutional and the linear RNN models match [...]. Due to the bias of
# > these models against the delay, the test error increases as we increase the delay steps in our system.
# > On the other hand, the performance of the unscaled convolutional model stays almost the same with
# > increasing delay, slightly changing at larger delays as there is less data to track."
#
# **Set-up of this book.** The true system is a teacher RNN drawn from (4) with 4 hidden units and
# $\nu_W=0.3$, $\nu_F=\nu_C=1$ (the paper does not give the teacher of Fig. 3; we take that of Fig. 1), inputs
# $x_t\sim\mathcal N(0,I_{15})$. The delay shifts its impulse response by `delay` lags. All three models start
# from the impulse response of the same random student RNN (Eq. 58; for the unscaled model $\theta=L$), and
# are trained by full-batch GD on the mean-squared error with the same learning rate and number of steps
# (`delay_sweep.run_delay_sweep`). The delays of one seed share the teacher, the inputs, the noise pattern
# and the student's initialization; every seed draws its own, all derived from the chapter's `seed`
# (`ensembles.child_seeds`). The whole grid trains at once: the RNNs of all seeds and delays as one
# batch of stacked weights (in float32), the three convolutional arms of all seeds and delays as another.
#
# Because a delay of $d$ leaves only $T-d$ informative outputs per sequence, the signal power falls with the
# delay; we therefore report the **relative test error**, the test MSE divided by the mean squared test
# output (1 is the error of predicting 0; the noise alone gives $1/(1+10^{2})\approx0.0099$).

# %% tags=["parameters"]
profile = "book"
nu_W = None
nu_F = None
nu_C = None
T = None
n_x = None
n_train = None
n_test = None
snr_db = None
teacher_hidden = None
n_student = None
delays = None
seeds = None
seed_start = None
lr = None
steps = None
seed = None
device = None

# %% tags=["hide-input"]
from IPython.display import Markdown, display
from myst_nb import glue

from rnnbook.book.chapter import start
from rnnbook.book.params import Param, ParameterError, Steps, at_least, in_open_unit
from rnnbook.book.params import positive

from rnnbook.implicit_bias import delay_sweep, ensembles, figures

DELAYS = [0, 4, 8], [0, 2, 4, 6, 8, 10, 12, 14], [0, 2, 4, 6, 8, 10, 12, 14]  # presets
SPEC = {
    "nu_W": Param(float, 0.3, 0.3, 0.3, in_open_unit, "0 < nu_W < 1"),
    "nu_F": Param(float, 1.0, 1.0, 1.0, positive, "> 0"),
    "nu_C": Param(float, 1.0, 1.0, 1.0, positive, "> 0"),
    "T": Param(int, 20, 20, 20, at_least(2), ">= 2 time steps"),
    "n_x": Param(int, 15, 15, 15, at_least(1), ">= 1 input channels"),
    "n_train": Param(int, 10, 10, 10, at_least(1), ">= 1 sequences"),
    "n_test": Param(int, 10, 10, 10, at_least(1), ">= 1 sequences"),
    "snr_db": Param(float, 20.0, 20.0, 20.0, None, "output SNR in dB"),
    "teacher_hidden": Param(int, 4, 4, 4, at_least(1), ">= 1"),
    "n_student": Param(int, 16, 100, 1000, at_least(2), ">= 2 hidden units"),
    "delays": Param(list, *DELAYS, at_least(0), "increasing from 0, < T", item=int),
    "seeds": Param(int, 3, 8, 10, at_least(3), ">= 3 (an interval over seeds)"),
    "lr": Param(float, 0.05, 0.05, 0.05, positive, "> 0"),
    "steps": Steps(40, 500, 2000, "gradient steps"),
    "seed": Param(int, 0, 0, 0, at_least(0), ">= 0"),
}
P, ledger = start("implicit_bias/delay", SPEC, globals())
if P.delays[0] != 0 or P.delays != sorted(P.delays) or P.delays[-1] >= P.T:
    raise ParameterError(
        f"parameter 'delays' = {P.delays!r}: must be increasing, start at 0 "
        f"and stay below T = {P.T}"
    )

# %%
import torch  # the RNN arm trains in float32 (checked against float64 in the tests)

sweep = delay_sweep.run_delay_sweep(
    delays=P.delays,
    seeds=P.seeds,
    n=P.n_student,
    n_teacher=P.teacher_hidden,
    n_x=P.n_x,
    T=P.T,
    n_train=P.n_train,
    n_test=P.n_test,
    nu_W=P.nu_W,
    nu_F=P.nu_F,
    nu_C=P.nu_C,
    snr_db=P.snr_db,
    lr=P.lr,
    steps=P.steps,
    seed=P.seed,
    seed_start=P.seed_start,
    rnn_dtype=torch.float32,
    device=P.device,
)

# %% tags=["hide-input"]
fig = figures.delay(sweep, P.snr_db)
summary = sweep.summary()

# %% tags=["hide-input"]
for k, v in summary.items():
    glue(k, v, display=False)

# %% [markdown]
# **Figure 1.** Top: the relative test error of each model (mean over seeds; the bars span the seeds). Without
# delay the scaled convolution and the RNN predict the test outputs far better
# than the unscaled convolution (relative error {glue:text}`err_scaled_0:.3f` against {glue:text}`err_unscaled_0:.3f`):
# with 10 sequences, 300 filter coefficients and only 200 observations, the implicit bias towards short lags
# is the right prior. As the delay grows their error rises by a factor {glue:text}`growth_scaled:.0f`
# (geometric mean over seeds; 95% interval {glue:text}`growth_scaled_lo:.0f` to {glue:text}`growth_scaled_hi:.0f`)
# and above 1, while the unscaled convolution degrades by a factor {glue:text}`growth_unscaled:.1f`
# ({glue:text}`growth_unscaled_lo:.1f` to {glue:text}`growth_unscaled_hi:.1f`) and wins at delay
# {glue:text}`delay_max` (mean error {glue:text}`err_unscaled_max:.2f` against {glue:text}`err_scaled_max:.2f`).
# Bottom: the training error tells why. The unscaled model fits the training data at every delay; the scaled
# model and the RNN cannot, because the coefficients they would need sit at lags where $\rho_j$ is tiny. This
# is bias, not variance.
#
# The dotted control, the unscaled convolution started from $L=0$ instead of from the RNN's initial impulse
# response, has a lower error but grows by a comparable factor ({glue:text}`growth_zero_init:.1f`) with the delay: the
# growth of the unscaled model's error does not come from the shared initialization but from the data, since the
# coefficient of lag $j$ is constrained by only $T-j$ outputs of each sequence.
#
# The RNN and the scaled convolution agree closely at small delays; at intermediate delays, where the
# teacher's response sits at lags with $\rho_j$ below $10^{-2}$, the RNN of width {glue:text}`n`
# learns those lags somewhat faster than its $n\to\infty$ limit (largest relative difference of the mean
# errors {glue:text}`rnn_vs_scaled:.2f`): the finite-width part of its tangent kernel is not scaled down by
# $\rho_j$. {doc}`training_dynamics` follows that gap as $n$ grows.
#
# **Did the experiment work?** The gate, declared with the claim: at delay 0 the reference, the unscaled
# convolution (the model without the bias against delay), cut its training error to at most a quarter of its
# initial value in the median seed (ratio here: {glue:text}`ref_train_ratio_0:.4f`); otherwise the verdict is
# `inconclusive`. The compared models are not gated: one that did not learn the undelayed task has a high
# error at delay 0 and a low growth factor, which counts against it (worst final/initial ratio over all models
# and seeds, reported: {glue:text}`train_ratio_0:.4f`).
#
# **Effects along training.** The three statistics of the claim, followed from the first step to the last:

# %% tags=["hide-input"]
fig = figures.delay_trend(sweep, ensembles.checkpoints(P.steps, 8), flat=2.0)

# %% [markdown]
# **Figure 2.** The growth factors (top) and the ratio of the unscaled to the scaled model's error at the
# largest delay (bottom), mean over seeds with the 95% interval (band), after each number of steps. The
# scaled model and the RNN fit the short-lag teacher quickly at delay 0 but not the delayed one, so their
# growth factor keeps rising with training and has not settled at the last step; the unscaled model's
# growth rises too, but much more slowly. Its ratio to the scaled model's error first rises (the unscaled
# model moves its long lags as fast as its short ones and starts worse) and falls below 1 only after about a
# hundred steps, once it has fitted the long lags. Whether an effect grows or shrinks with training is what a
# reader needs to
# judge a verdict taken after {glue:text}`steps` steps, far fewer than the paper's (unstated) budget.
#
# **Rule** (its history is on the claim's box; the design is on {doc}`/book/verdicts`). Each statistic is a log
# growth factor per seed, with a Student-t interval over the {glue:text}`n_seeds` seeds: at 95% for
# `reproduced` (every effect must be, which needs no adjustment), adjusted for the three effects for the
# decisions short of the line or against the paper. *Error rises with the delay*: the growth factor of the
# scaled model and of the RNN above 2, half the declared paper's factor 4 on the log scale (not rising below 2,
# against the paper below 1). *"Stays almost the same"*: the unscaled model's growth factor
# below 2 (against the paper above 2). All three: `reproduced`; some, with the others short of their line but
# none against the paper: `partly-reproduced`; any against the paper, or some short of their line and none
# reproduced: `not-reproduced`; otherwise `inconclusive`. The ratio of the unscaled to the scaled model's error
# is reported, not decided: the
# statement does not make it.

# %% tags=["hide-input"]
# per seed, the reference's (the unscaled convolution's) final / initial training MSE at
# delay 0 (the gate takes their median, so that a record's shards join them)
tr = sweep.train_curve[:, delay_sweep.UNSCALED, :, 0]  # (steps + 1, seeds)
ref = {"ref_ratio_0_seeds": (tr[-1] / tr[0]).tolist()}
ledger.check("implicit-bias.fig3.delay-bias", seeds=P.seeds, **summary, **ref)

# %% [markdown]
# ```{dropdown} How the rules of these claims changed
# :class-container: rules-history
#
# The Fig. 3 rule was re-declared after its first runs under the book's single design ({doc}`/book/verdicts`):
# a rise must reach a factor of 2 for the scaled convolution and the RNN, and the unscaled-to-scaled ratio is
# reported but no longer decided. It was re-declared again on 2026-11-28: the gate reads the reference (the
# unscaled convolution, median seed) instead of the worst run of every model, every effect is reproduced at 95%
# without adjustment, and each effect declares the paper's size and the seeds that would reproduce it (the
# claim box gives the old rules). On 2026-12-02 the gate was restated in form only: the rule takes the median
# itself, from every seed's ratio, so that a record run in shards of seeds decides it on all of them.
# ```

# %% tags=["hide-input"]
display(Markdown(ledger.table()))
