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
# # Trainability, critical initialization and language modelling (Sec. 4-5)
#
# ```{findings}
# ```
#
# **What the paper claims.** {cite:t}`chen2018dynamical` connect the theory to training in three experiments:
#
# :::{prf:observation} Fig. 2 of Chen et al.
# :nonumber:
# :label: obs-chen-fig2
# On a task where the MNIST image is the first input and $T$ Gaussian noise inputs follow ($\Sigma^t=0$ for
# $t>0$), the largest depth $T$ at which a network is still trainable follows the theoretical timescale $\tau$
# (quantitatively with untied weights, qualitatively with tied ones), for the vanilla RNN over $\sigma_w\in[0.5,1.5]$
# ($\sigma_v=0.025$, $10^3$ steps) and the minimalRNN over $\mu_b\in[-4,8]$ ($\sigma_w=6.88$) and over
# $\sigma_w\in[0.5,10]$ at $\mu_b=4$ and $6$ ($\sigma_v=1.39$, $10^2$ steps); the minimalRNN is trainable at large $T$
# over a much wider range of hyperparameters, with ten times fewer steps.
# :::
#
# :::{prf:observation} Fig. 3 of Chen et al.
# :nonumber:
# :label: obs-chen-fig3
# On sequential MNIST ($T=196$ or $784$ steps of $784/T$ pixels), critical initialization ($\chi_1=1$; Algorithm 1
# for the minimalRNN) trains much faster than the common $\sigma_w^2=\sigma_v^2=1$, for both models; orthogonal
# versus Gaussian $\mathbf W$ matters for the vanilla RNN but not for the minimalRNN.
# :::
#
# :::{prf:observation} Table 1 of Chen et al.
# :nonumber:
# :label: obs-chen-table1
# On Penn Treebank at 5M parameters (one layer) the test perplexities are LSTM 95.4, GRU 99.5, minimalRNN 101.4:
# the minimalRNN is comparable to GRU and LSTM.
# :::
#
# **What this chapter does.** It runs the three experiments scaled down to a 2-core CPU, training whole
# grids (seeds $\times$ hyperparameters $\times$ tied/untied or initializations) at once as one batched
# ensemble (`rnnbook.mean_field.trainability.GridRNN`, each seed with its own weights and minibatches),
# with Adam throughout, on the real MNIST and on the Jane Austen word corpus standing in for Penn Treebank
# (`rnnbook.datasets.word_corpus`). Seed $s$ is member $s$ of the master `seed` (`rnnbook.seeds.member_seed`):
# its weights, input maps, minibatches and the language models' starting points are drawn from its member
# seed alone, so a seed trains the same networks on the same data whether it runs with the others or alone
# (a shard of a record). The verdicts are about the *shape* of each result, and every one of them
# is taken from intervals over `n_seeds` independent seeds, per model, by the rule on its box (the design is on
# {doc}`/book/verdicts`, each box gives its history). A claim's *gate* asks only that the experiment works (the
# set-up, or the reference models, trained); an arm that did not train counts against itself inside the
# statistic, and a model that cannot train at this scale whatever its initialization is left out by a rule
# declared before the run.

# %% tags=["parameters"]
profile = "book"
device = None
pool = None
n_images = None
Ts_fig2 = None
steps_vanilla = None
steps_minimal = None
width = None
batch = None
lr = None
steps_fig3 = None
width_fig3 = None
T_fig3 = None
vocab = None
lm_steps = None
lm_hidden_lstm = None
lm_novels = None
n_seeds = None
n_test = None
seed = None
seed_start = None

# %% tags=["hide-input"]
import matplotlib.pyplot as plt
import torch
from IPython.display import Markdown, display
from myst_nb import glue

from rnnbook import datasets, plotting
from rnnbook.book.chapter import start
from rnnbook.book.params import Param, Repeats, Samples, Steps, at_least, positive
from rnnbook.mean_field import figures, language_model, minimal_rnn, trainability
from rnnbook.mean_field import trainable_depth, training_speed

# %% tags=["hide-input"]
TS = ([1, 3], [2, 4, 8, 16, 32], [10, 20, 50, 100, 200, 500, 1000])  # Fig. 2 depths
SPEC = {
    "pool": Param(int, 4, 2, 1, lambda v: v in (1, 2, 4, 7), "1, 2, 4 or 7 (pooling)"),
    "n_images": Param(int, 5000, 60000, 60000, lambda n: 100 <= n <= 6e4, "100-60000"),
    "Ts_fig2": Param(list, *TS, at_least(1), "depths T >= 1, increasing", item=int),
    "fig2_points": Repeats(7, 7, 7, "values per sweep of Fig. 2, at most", 2),
    "n_eval": Samples(512, 512, 512, "images of Fig. 2's accuracy", 1),
    "steps_vanilla": Steps(10, 150, 1000, "vanilla, Fig. 2"),
    "steps_minimal": Steps(10, 100, 100, "minimalRNN, Fig. 2"),
    "width": Param(int, 16, 32, 256, at_least(2), ">= 2; hidden units (Fig. 2)"),
    "batch": Param(int, 16, 32, 128, at_least(1), ">= 1"),
    "lr": Param(float, 3e-3, 3e-3, 1e-3, positive, "> 0; Adam's learning rate"),
    "steps_fig3": Steps(6, 600, 20000, "Adam steps (Fig. 3)", gpu=2000),
    "width_fig3": Param(int, 16, 32, 256, at_least(2), ">= 2; hidden units (Fig. 3)"),
    "T_fig3": Param(int, 49, 196, 784, lambda v: 784 % v == 0, "divides 784", gpu=784),
    "vocab": Param(int, 500, 1000, 10000, at_least(3), ">= 3; with <unk>, <eos>"),
    "lm_steps": Steps(5, 300, 13000, "LM steps per model", gpu=1500),
    "lm_hidden_lstm": Param(int, 32, 96, 650, at_least(2), ">= 2; LSTM hidden size"),
    "lm_novels": Param(int, 1, 6, 6, lambda v: 1 <= v <= 6, "1 to 6 Austen novels"),
    "eval_tokens": Samples(20_000, 20_000, 10**7, "held-out tokens (paper: all)", 100),
    "n_seeds": Repeats(2, 5, 3, "seeds per arm", 2),
    "n_test": Param(
        int, 200, 500, 10000, lambda n: 10 <= n <= 1e4, "10-10000", samples=True
    ),
    "seed": Param(int, 0, 0, 0, at_least(0), ">= 0"),
}
P, ledger = start("mean_field/training", SPEC, globals())
if P.profile != "paper":  # small batched networks: one thread is fastest
    torch.set_num_threads(1)

# %% [markdown]
# ## Fig. 2: the trainable depth follows $\tau$
#
# The images are average-pooled by `pool` (the paper feeds all 784 pixels), standardised to zero mean and unit
# variance, and followed by $T$ inputs $x^t\sim\mathcal N(0,1)$, so $\Sigma^t=0$ for $t>0$; a linear readout of the
# last state classifies the digit. The vanilla RNN reads $x^t$ through $V$ with $\sigma_v=0.025$ ($R=1$); the
# minimalRNN through $\Phi(x)=\tanh(W_xx)$ with $W_x$ scaled so that $\tilde x$ has second moment $R=0.46$, the value
# of Fig. 1. Every network of a grid (the hyperparameter values, tied and untied, `n_seeds` seeds) trains at once
# for each $T$. The accuracy is the training accuracy on `n_eval` training images with fresh noise, after the last step
# and at three earlier checkpoints. The theory curve is $\tau$ for $\Sigma_{12}=0$.

# %%
if sorted(set(P.Ts_fig2)) != P.Ts_fig2:
    raise ValueError(f"parameter 'Ts_fig2' = {P.Ts_fig2}: must be increasing")
torch.manual_seed(P.seed)
X, Y = trainability.mnist_arrays("train", pool=P.pool, n=P.n_images)
X = trainability.standardise(X, float(X.mean()), float(X.std()))
R_min = 0.46
v_in = minimal_rnn.input_map_scale(R_min)
sweeps = trainable_depth.fig2_sweeps(P.fig2_points)
tau = trainable_depth.timescales(sweeps, R_min)
run2 = trainable_depth.run(
    sweeps,
    P.Ts_fig2,
    X,
    Y,
    P.width,
    P.batch,
    {"vanilla": P.steps_vanilla, "minimal": P.steps_minimal},
    P.lr,
    seed=P.seed,
    seed_start=P.seed_start,
    input_scale2=v_in,
    n_seeds=P.n_seeds,
    n_checkpoints=4,
    progress=plotting.progress,
    n_eval=P.n_eval,
    device=P.device,
)

# %% tags=["hide-input"]
figures.fig2(run2.final_mean(), tau, sweeps, P.Ts_fig2)
plt.show()

# %% [markdown]
# **Figure 1.** Fig. 2 of the paper at CPU scale: the training accuracy, mean over seeds (bright = trained,
# dark = chance) over the hyperparameter and the depth $T$, top row untied weights, bottom row tied, with the
# theoretical timescale $\tau$ for $\Sigma_{12}=0$ in white (on the same logarithmic depth axis; values outside
# the grid are drawn at its edge). Where $\tau$ is long, networks stay trainable to large $T$.
#
# We call a network *trainable at $T$* when its accuracy reaches {glue:text}`f2_thr:.1f` (chance is 0.1) and ask,
# for each seed, over all (depth, network) cells of a model, how well one rule "trainable iff $T\le k\tau$" (one
# multiple $k$ for the whole grid, as the paper overlays one curve) classifies them, against the best rule that
# ignores $\tau$ ("trainable iff $T\le T_0$"), and how $\tau$ ranks the trainable depths (Spearman correlation).
# The table shows these for the seed-mean accuracies:

# %%
threshold = 0.5
glue("f2_thr", threshold, display=False)
res2 = trainable_depth.summary(run2.final_mean(), tau, sweeps, P.Ts_fig2, threshold)
display(Markdown(trainable_depth.table(res2, P.Ts_fig2[-1])))
fig2 = trainable_depth.seed_values(run2, tau, sweeps, P.Ts_fig2, threshold)

# %% [markdown]
# *The gate* of both Fig. 2 claims asks that the set-up trained: the best network of either model reaches twice
# chance training accuracy at the smallest depth (mean over seeds). For the depth claim a model whose best
# network does not is left out (a grid in which nothing trains says nothing about depth); for the gating claim
# such a model is trainable nowhere, a loss for it inside the difference.

# %%
v2 = trainable_depth.ledger_values(fig2)

# %% tags=["hide-input"]
ledger.check("mean-field.fig2.trainable-depth", seeds=P.n_seeds, **v2, **vars(P))
ledger.check(
    "mean-field.fig2.gating-wider",
    seeds=P.n_seeds,
    **v2,
    **vars(P),
    T_max=P.Ts_fig2[-1],
)

# %% [markdown]
# ## Fig. 3: critical initialization trains faster
#
# Sequential MNIST: the 784 standardised pixels in $T$ steps of $784/T$. Four initializations per model, all
# with $\sigma_b=0$ and tied weights: critical with orthogonal and with Gaussian $\mathbf W$, and the common
# $\sigma_w^2=\sigma_v^2=1$ with orthogonal and Gaussian $\mathbf W$. The vanilla critical point is
# $\sigma_w^2=1/\mathbb E[\phi'^2]$, $\sigma_v^2=(q^*-\sigma_w^2\mathbb E\phi^2)/R$ at $q^*=0.5$ with $R=1$; the minimalRNN's is
# Algorithm 1 at $q^*=4$, $\mu_b=4$ with $R$ measured on the data through the initial $\Phi$. As Algorithm 1 says,
# critical networks start from a fixed random $\mathbf h^0$ with the fixed point's second moment ("to avoid
# transient phase"); the off-critical ones from $\mathbf h^0=0$. The paper gives neither $q^*$ nor $\mu_b$; the
# off-critical minimalRNN uses $\mu_b=0$. Each seed draws its own input map $W_x$ (so its own $R$ and critical
# point), its own weights and its own minibatches; the test accuracy is measured on the first `n_test` test
# images at 8 evenly spaced steps. All $4\times$`n_seeds` networks of a model train as one ensemble.

# %%
Xtr, Ytr = trainability.mnist_arrays("train", n=P.n_images)
Xte, Yte = trainability.mnist_arrays("test", n=P.n_test)
m_, s_ = float(Xtr.mean()), float(Xtr.std())
Xtr, Xte = trainability.standardise(Xtr, m_, s_), trainability.standardise(Xte, m_, s_)
setups = training_speed.seed_setups(
    Xtr, P.T_fig3, P.width_fig3, v_in, P.seed, P.n_seeds, P.seed_start
)
display(Markdown("First seed: " + setups[0].describe()))
curves = training_speed.run(
    setups,
    (Xtr, Ytr),
    (Xte, Yte),
    P.width_fig3,
    P.steps_fig3,
    P.lr,
    P.batch,
    input_scale2=v_in,
    device=P.device,
)

# %% tags=["hide-input"]
figures.fig3(training_speed.mean_curves(curves), training_speed.LABELS, P.T_fig3)
plt.show()

# %% [markdown]
# **Figure 2.** Fig. 3 of the paper at CPU scale: test accuracy during training, mean over seeds, for the four
# initializations (solid: critical; dotted: $\sigma_w^2=\sigma_v^2=1$; blue/green orthogonal, red/black
# Gaussian).
#
# *The gate* of the Fig. 3 claims asks that the set-up trained (the best of the eight initializations ends at
# twice chance test accuracy, mean over seeds); a model none of whose four initializations does is left out. An
# initialization that does not learn is the slow arm of a speed claim: it counts against itself in the
# difference, which is no longer hidden by a gate on the compared arms.

# %%
speed = training_speed.speed(
    training_speed.mean_curves(curves), 0.5 if P.profile != "paper" else 0.9
)
display(Markdown(training_speed.speed_table(speed)))
fig3 = training_speed.seed_values(curves)
jac = training_speed.vanilla_jacobian_check(setups[0], Xtr, P.width_fig3)
glue("f3_width", P.width_fig3, display=False)
for arm, c in jac.items():
    for k, x in c.items():
        glue(f"f3_{arm}_{k}", x, display=False)

# %% tags=["hide-input"]
ledger.check(
    "mean-field.fig3.critical-faster",
    seeds=P.n_seeds,
    **training_speed.ledger_values(fig3, "critical"),
    **vars(P),
)
ledger.check(
    "mean-field.fig3.orthogonal",
    seeds=P.n_seeds,
    **training_speed.ledger_values(fig3, "orthogonal"),
    **vars(P),
)

# %% [markdown]
# **Is the critical Gaussian vanilla RNN a bug?** In the `book` run it stays near chance while the paper's
# critical network reaches 90% after 750 steps. The initialization is as declared. With the first seed's own
# weights, the critical orthogonal network keeps its pre-activation second moment at
# $q^t=$ {glue:text}`f3_orthogonal_q` over the second half of the sequence (the critical point prescribes
# $q^*=0.5$, so the input scaling $R=1$ holds), and the largest singular value of its end-to-start Jacobian
# $\partial\mathbf h^T/\partial\mathbf h^0$ has $\log_{10}=$ {glue:text}`f3_orthogonal_top`. The Gaussian one
# has $q^t=$ {glue:text}`f3_Gaussian_q`, with $\log_{10}$ of its largest singular value
# {glue:text}`f3_Gaussian_top` (median {glue:text}`f3_Gaussian_median`). At width {glue:text}`f3_width` with
# tied weights the Gaussian network is not at the mean-field critical point, and its Jacobian spectrum is as
# broad as the theory predicts for a non-orthogonal $\mathbf W$. Small runs outside the book (one or two seeds,
# 300 steps, not recorded) found no bug. The critical Gaussian arm stayed at chance at width 128 as at 32, and
# learned
# a little at learning rate $10^{-3}$ (0.26 after 250 steps, one seed of two). At $q^*=0.1$ instead of 0.5 both
# critical arms trained faster than the off-critical ones; the paper gives neither $q^*$ nor the optimizer. The
# off-critical networks ($\chi_1\approx0.4$) learn from the last rows of the image within a few hundred
# steps; the critical ones must learn to carry 196 steps. All this points to the scale (600 Adam steps, an
# unstated $q^*$ and learning rate), but runs this small, outside the book, do not rule out a bug in the
# Gaussian arm's training ({doc}`the errata </book/errata>` say the same); the contrary vanilla Gaussian
# effect of the speed claim stands as measured.
#
# ## Table 1: language modelling at equal parameter count
#
# Following {cite:t}`zaremba2014recurrent` in miniature: an embedding of size `d` = the LSTM's hidden size, one
# recurrent layer, a softmax over the vocabulary, truncated back-propagation through 35 steps, batches of 20,
# the state carried across batches. The LSTM's hidden size is set, and the GRU's and minimalRNN's are chosen to
# give the same total number of parameters. Penn Treebank is not available offline; the stand-in is the six
# Jane Austen novels tokenised the PTB way (lower case, no punctuation, numbers as `N`, `<unk>` beyond the
# vocabulary), ~0.63M training tokens. Adam (lr $2\cdot10^{-3}$, gradient-norm clipping 5) for a fixed number of steps
# instead of the paper's SGD schedule and hyperparameter search (App. F); every model gets the same budget.

# %%
corpus = datasets.word_corpus(P.vocab, datasets.AUSTEN_NOVELS[-P.lm_novels :])
lm_runs = language_model.compare(
    corpus,
    P.lm_hidden_lstm,
    P.lm_steps,
    seed=P.seed,
    seed_start=P.seed_start,
    eval_tokens=P.eval_tokens,
    n_seeds=P.n_seeds,
    n_checkpoints=4,
    progress=plotting.progress,
    device=P.device,
)
lm_res = language_model.seed_mean(lm_runs)

# %% tags=["hide-input"]
display(
    Markdown(
        f"Corpus: {corpus.name}, {len(corpus.train):,} training tokens, vocabulary "
        f"{corpus.vocab_size}; mean of {P.n_seeds} seeds.\n\n"
        + language_model.table(lm_res)
    )
)

# %% tags=["hide-input"]
figures.language_models(lm_res)
plt.show()

# %% [markdown]
# **Figure 3.** Training perplexity of the three equally sized language models on the Austen corpus (first
# seed; the legend gives the seed-mean test perplexity).
#
# *The gate* of the Table 1 claim asks that the reference models, GRU and LSTM, trained: their test perplexities
# (mean over seeds) are below that of the unigram model fitted to the training words, the perplexity of a network
# that has learnt only word frequencies. The claim is the paper's Sec. 5: the minimalRNN's perplexity within 10% of
# the GRU's ("comparable"), and at most 10% worse than the LSTM's (the paper names a small gap; a
# better minimalRNN is no contradiction); the ranking of the three models is reported in the box, not decided.

# %%
unigram = language_model.unigram_perplexity(corpus, P.eval_tokens)
lm_vals = language_model.seed_values(lm_runs, unigram)

# %% tags=["hide-input"]
ledger.check(
    "mean-field.table1.perplexity",
    seeds=P.n_seeds,
    **language_model.ledger_values(lm_vals),
    **vars(P),
    corpus=corpus.name,
    vocab_size=corpus.vocab_size,
    n_params=lm_res["LSTM"].parameters,
    epochs=P.lm_steps * 700 / max(len(corpus.train), 1),
)

# %% [markdown]
# ## Each effect over training
#
# Every claim's effect was recorded at four or eight points of training. If it grows with training, the
# scaled-down run understates the paper's effect; if it shrinks, the reverse.

# %% tags=["hide-input"]
figures.effect_trends(
    trainable_depth.trend_panels(fig2)
    + training_speed.trend_panels(fig3)
    + language_model.trend_panels(lm_vals)
)
plt.show()

# %% [markdown]
# **Figure 4.** The effect behind each claim against training steps: mean over seeds (line) and 95% interval
# over seeds (shaded); grey: no effect (solid) and the declared no-effect band (dashed). From left: the margin
# of the $\tau$ rule over the $\tau$-free rule (Fig. 2), minimalRNN minus vanilla fraction trainable at the
# largest depth (Fig. 2), critical minus off-critical and orthogonal minus Gaussian mean test accuracy so far
# (Fig. 3), and the minimalRNN's relative perplexity gap to the better gated model (Table 1).

# %% [markdown]
# ```{dropdown} How the rules of these claims changed
# :class-container: rules-history
#
# The five rules of this chapter were re-declared after their first runs under the book's single design
# ({doc}`/book/verdicts`): each model (and, for the speed claim, each weight distribution) is decided on its
# own, and a significant effect against the paper in any model can no longer sit inside a partial verdict.
# They were re-declared again on 2026-11-28: the gates had required every compared initialization to train,
# which hid the outcome of the speed claims (an arm that does not learn is the slow arm); now a gate asks only
# that the set-up trained, every effect is reproduced at 95% without adjustment, each effect declares the
# paper's own size and the seeds that would reproduce it, and Table 1 decides the paper's "comparable" instead
# of a ranking it does not claim (each claim box gives its old rules). The Fig. 2 agreement takes a Student t
# interval over its five seeds since the seed check of Fig. 3 (not a bootstrap).
# ```

# %% tags=["hide-input"]
display(Markdown(ledger.table()))
