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
# and the student's initialization.
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
lr = None
steps = None
seed = None

# %% tags=["hide-input"]
import numpy as np
import matplotlib.pyplot as plt
from IPython.display import Markdown, display
from myst_nb import glue
from scipy import stats

from rnnbook.implicit_bias import delay_sweep
from rnnbook import plotting
from rnnbook.book.ledger import Ledger
from rnnbook.book.params import (
    describe,
    Param,
    ParameterError,
    at_least,
    in_open_unit,
    positive,
    resolve,
)

SPEC = {
    "nu_W": Param(float, 0.3, 0.3, 0.3, in_open_unit, "0 < nu_W < 1"),
    "nu_F": Param(float, 1.0, 1.0, 1.0, positive, "> 0"),
    "nu_C": Param(float, 1.0, 1.0, 1.0, positive, "> 0"),
    "T": Param(int, 20, 20, 20, at_least(2), ">= 2 time steps"),
    "n_x": Param(int, 15, 15, 15, at_least(1), ">= 1 input channels"),
    "n_train": Param(int, 10, 10, 10, at_least(1), ">= 1 sequences"),
    "n_test": Param(int, 10, 10, 10, at_least(1), ">= 1 sequences"),
    "snr_db": Param(
        float, 20.0, 20.0, 20.0, None, "output signal-to-noise ratio in dB"
    ),
    "teacher_hidden": Param(int, 4, 4, 4, at_least(1), ">= 1"),
    "n_student": Param(int, 16, 100, 1000, at_least(2), ">= 2 hidden units"),
    "delays": Param(
        list,
        [0, 4, 8],
        [0, 2, 4, 6, 8, 10, 12, 14],
        [0, 2, 4, 6, 8, 10, 12, 14],
        at_least(0),
        "integers >= 0 and < T, increasing, starting at 0",
        item=int,
    ),
    "seeds": Param(int, 2, 3, 10, at_least(2), ">= 2 (an error bar needs two)"),
    "lr": Param(float, 0.05, 0.05, 0.05, positive, "> 0"),
    "steps": Param(int, 40, 500, 2000, at_least(1), ">= 1 gradient steps"),
    "seed": Param(int, 0, 0, 0, at_least(0), ">= 0"),
}
P = resolve(
    SPEC,
    profile,
    nu_W=nu_W,
    nu_F=nu_F,
    nu_C=nu_C,
    T=T,
    n_x=n_x,
    n_train=n_train,
    n_test=n_test,
    snr_db=snr_db,
    teacher_hidden=teacher_hidden,
    n_student=n_student,
    delays=delays,
    seeds=seeds,
    lr=lr,
    steps=steps,
    seed=seed,
)
if P.delays[0] != 0 or P.delays != sorted(P.delays) or P.delays[-1] >= P.T:
    raise ParameterError(
        f"parameter 'delays' = {P.delays!r}: must be increasing, start at 0 and stay below T = {P.T}"
    )
plotting.setup()
ledger = Ledger("implicit-bias", P.profile)
display(Markdown(describe(P)))

# %%
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
)
rel = sweep.relative_test_error  # (models, seeds, delays)
rel_train = (
    sweep.train_mse / sweep.test_power[None]
)  # on the same scale, for comparison
d = np.array(P.delays)
markers = {
    "RNN": "o-",
    "scaled conv": "x--",
    "unscaled conv": "s-",
    "unscaled conv, zero init": "d:",
}
fig, axes = plt.subplots(1, 2, figsize=(10.5, 4))
for k, m in enumerate(delay_sweep.MODELS):
    c = plotting.COLORS[k]
    mk = rel[k].mean(0)
    axes[0].errorbar(
        d + 0.1 * (k - 1.5),
        mk,
        yerr=[mk - rel[k].min(0), rel[k].max(0) - mk],
        fmt=markers[m],
        capsize=3,
        color=c,
        label=m + (f" ($n={P.n_student}$)" if m == "RNN" else ""),
    )
    axes[1].plot(d, rel_train[k].mean(0), markers[m], color=c, label=m)
noise = 1 / (1 + 10 ** (P.snr_db / 10))
for ax in axes:
    ax.axhline(noise, color="gray", ls=":", label="noise level")
    ax.set_yscale("log")
    ax.legend(fontsize=8)
axes[0].set(
    xlabel="delay (time steps)",
    ylabel="relative test error (test MSE / mean $y^2$)",
    title=f"Fig. 3: test error vs delay (mean, range over {P.seeds} seeds)",
)
axes[1].set(
    xlabel="delay (time steps)",
    ylabel="relative training error (same scale)",
    title="Training error after the same number of steps",
)
plt.tight_layout()
plt.show()

# %%
names = delay_sweep.MODELS
i_rnn, i_sc, i_un = (names.index(m) for m in ("RNN", "scaled conv", "unscaled conv"))
mean = rel.mean(1)  # (models, delays)
rho_sc = float(stats.spearmanr(d, mean[i_sc]).statistic) if len(d) > 2 else 1.0
rho_rnn = float(stats.spearmanr(d, mean[i_rnn]).statistic) if len(d) > 2 else 1.0
rises = {
    m: bool(np.all(rel[i, :, -1] > rel[i, :, 0]))
    for m, i in (("RNN", i_rnn), ("scaled conv", i_sc))
}
c1 = rho_sc >= 0.8 and rho_rnn >= 0.8 and all(rises.values())
c2 = bool(np.all(rel[i_un, :, -1] < rel[i_sc, :, -1]))
growth_un = float(mean[i_un, -1] / mean[i_un, 0])
growth_sc = float(mean[i_sc, -1] / mean[i_sc, 0])
c3 = growth_un <= 2.0
rnn_vs_sc = float(np.max(np.abs(mean[i_rnn] / mean[i_sc] - 1)))
glue("growth_un", growth_un, display=False)
glue("growth_sc", growth_sc, display=False)
glue("spear_sc", rho_sc, display=False)
glue("rnn_vs_sc", rnn_vs_sc, display=False)
glue("d_max", int(d[-1]), display=False)
glue("err_sc_0", float(mean[i_sc, 0]), display=False)
glue("err_un_0", float(mean[i_un, 0]), display=False)
glue("err_sc_max", float(mean[i_sc, -1]), display=False)
glue("err_un_max", float(mean[i_un, -1]), display=False)
i_z = names.index("unscaled conv, zero init")
glue("growth_zero", float(mean[i_z, -1] / mean[i_z, 0]), display=False)

# %% [markdown]
# **Figure 1.** Left: the relative test error of each model (mean over seeds; the bars span the seeds). Without
# delay the scaled convolution and the RNN predict the test outputs far better
# than the unscaled convolution (relative error {glue:text}`err_sc_0:.3f` against {glue:text}`err_un_0:.3f`):
# with 10 sequences, 300 filter coefficients and only 200 observations, the implicit bias towards short lags
# is the right prior. As the delay grows their error rises by a factor {glue:text}`growth_sc:.0f` (Spearman
# correlation with the delay {glue:text}`spear_sc:.2f`) and above 1, while the unscaled convolution degrades
# by a factor {glue:text}`growth_un:.1f` only and wins from moderate delays on (at delay {glue:text}`d_max`:
# {glue:text}`err_un_max:.2f` against {glue:text}`err_sc_max:.2f`). Right: the training error tells why. The
# unscaled model fits the training data at every delay; the scaled model and the RNN cannot, because the
# coefficients they would need sit at lags where $\rho_j$ is tiny. This is bias, not variance.
#
# The dotted control, the unscaled convolution started from $L=0$ instead of from the RNN's initial impulse
# response, has a lower error but grows by a comparable factor ({glue:text}`growth_zero:.1f`) with the delay: the
# growth of the unscaled model's error does not come from the shared initialization but from the data, since the
# coefficient of lag $j$ is constrained by only $T-j$ outputs of each sequence.
#
# The RNN and the scaled convolution agree closely at small delays; at intermediate delays, where the
# teacher's response sits at lags with $\rho_j$ below $10^{-2}$, the RNN of width {glue:text}`n_student_int`
# learns those lags somewhat faster than its $n\to\infty$ limit (largest relative difference of the mean
# errors {glue:text}`rnn_vs_sc:.2f`): the finite-width part of its tangent kernel is not scaled down by
# $\rho_j$. {doc}`training_dynamics` follows that gap as $n$ grows.
#
# **Tolerances, fixed in advance.** *Error rises with the delay* for the scaled model and the RNN: Spearman
# correlation of the mean error with the delay at least 0.8, and a larger error at the largest delay than at
# delay 0 for every seed. *The unscaled model wins at long delays*: smaller error than the scaled model at the
# largest delay for every seed. *"Stays almost the same"*: the unscaled model's mean error at the largest
# delay within a factor 2 of that at delay 0 (the zero-initialized control is not part of the verdict). All three
# give `reproduced`; the first two without the third, `partly-reproduced`.

# %%
glue("n_student_int", int(P.n_student), display=False)
verdict = (
    "reproduced"
    if (c1 and c2 and c3)
    else ("partly-reproduced" if (c1 and c2) else "not-reproduced")
)
ledger.record(
    "implicit-bias.fig3.delay-bias",
    "Fig. 3",
    "With a delayed true linear system (n_x = 15, n_y = 1, T = 20, 10 train / 10 test sequences, SNR 20 dB), the "
    "test error of the RNN and of the scaled convolution increases with the delay, while that of the unscaled "
    "convolution stays almost the same.",
    paper_value="RNN = scaled conv, rising with delay; unscaled conv almost flat",
    measured={
        "delays": P.delays,
        "relative_test_error_mean": {
            m: [round(float(v), 4) for v in mean[i]] for i, m in enumerate(names)
        },
        "spearman_scaled": round(rho_sc, 3),
        "spearman_rnn": round(rho_rnn, 3),
        "growth_factor_scaled": round(growth_sc, 2),
        "growth_factor_unscaled": round(growth_un, 2),
        "growth_factor_unscaled_zero_init": round(
            float(mean[i_z, -1] / mean[i_z, 0]), 2
        ),
        "unscaled_beats_scaled_at_max_delay_all_seeds": c2,
        "max_rel_diff_rnn_vs_scaled": round(rnn_vs_sc, 3),
    },
    tolerance="rise: Spearman >= 0.8 and error(max delay) > error(0) for every seed; unscaled wins at the largest "
    "delay for every seed; 'almost the same': unscaled growth factor <= 2",
    verdict=verdict,
    note=f"Student RNN n = {P.n_student} (paper 1000), {P.seeds} seeds, lr = {P.lr}, {P.steps} full-batch steps, "
    "all models started from the same impulse response; teacher as in Fig. 1 (4 hidden units, not given for "
    "Fig. 3). Relative test error = test MSE / mean squared test output. The RNN-vs-scaled agreement is "
    "reported but not part of the verdict (the book's RNN is 10x narrower than the paper's; the equivalence "
    "itself is checked at n = 1000 for Fig. 1).",
)

# %% [markdown]
# ## Verdicts
#
# The claims this chapter checked, as recorded in the ledger (see the {doc}`/book/scorecard`):

# %%
display(Markdown(ledger.table()))
