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
# **What the paper claims.** {cite:t}`chen2018dynamical` connect the theory to training in three experiments:
#
# :::{prf:observation} Fig. 2 of Chen et al.
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
# :label: obs-chen-fig3
# On sequential MNIST ($T=196$ or $784$ steps of $784/T$ pixels), critical initialization ($\chi_1=1$; Algorithm 1
# for the minimalRNN) trains much faster than the common $\sigma_w^2=\sigma_v^2=1$, for both models; orthogonal
# versus Gaussian $\mathbf W$ matters for the vanilla RNN but not for the minimalRNN.
# :::
#
# :::{prf:observation} Table 1 of Chen et al.
# :label: obs-chen-table1
# On Penn Treebank at 5M parameters (one layer) the test perplexities are LSTM 95.4, GRU 99.5, minimalRNN 101.4:
# the minimalRNN is comparable to GRU and LSTM.
# :::
#
# **What this chapter does.** It runs the three experiments scaled down to a 2-core CPU, training whole
# hyperparameter grids at once as batched networks (`rnnbook.mean_field.trainability.GridRNN`), with Adam throughout,
# on the real MNIST and on the Jane Austen word corpus standing in for Penn Treebank
# (`rnnbook.datasets.word_corpus`). The verdicts are about the *shape* of each result.

# %% tags=["parameters"]
profile = "book"
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
seed = None

# %% tags=["hide-input"]
import matplotlib.pyplot as plt
import torch
from IPython.display import Markdown, display
from myst_nb import glue

from rnnbook import datasets, plotting
from rnnbook.book.chapter import start
from rnnbook.book.params import Param, at_least, positive
from rnnbook.mean_field import figures, language_model, minimal_rnn, trainability
from rnnbook.mean_field import trainable_depth, training_speed

# %% tags=["hide-input"]
TS = ([1, 3], [2, 4, 8, 16, 32], [10, 20, 50, 100, 200, 500, 1000])  # Fig. 2 depths
SPEC = {
    "pool": Param(int, 4, 2, 1, lambda v: v in (1, 2, 4, 7), "1, 2, 4 or 7 (pooling)"),
    "n_images": Param(int, 5000, 60000, 60000, lambda n: 100 <= n <= 6e4, "100-60000"),
    "Ts_fig2": Param(list, *TS, at_least(1), "depths T >= 1, increasing", item=int),
    "steps_vanilla": Param(int, 10, 150, 1000, at_least(1), ">= 1; vanilla, Fig. 2"),
    "steps_minimal": Param(int, 10, 100, 100, at_least(1), ">= 1; minimalRNN, Fig. 2"),
    "width": Param(int, 16, 32, 256, at_least(2), ">= 2; hidden units (Fig. 2)"),
    "batch": Param(int, 16, 32, 128, at_least(1), ">= 1"),
    "lr": Param(float, 3e-3, 3e-3, 1e-3, positive, "> 0; Adam's learning rate"),
    "steps_fig3": Param(int, 6, 200, 20000, at_least(1), ">= 1; Adam steps (Fig. 3)"),
    "width_fig3": Param(int, 16, 32, 256, at_least(2), ">= 2; hidden units (Fig. 3)"),
    "T_fig3": Param(int, 49, 196, 784, lambda v: 784 % v == 0, "a divisor of 784"),
    "vocab": Param(int, 500, 1000, 10000, at_least(3), ">= 3; with <unk>, <eos>"),
    "lm_steps": Param(int, 5, 200, 13000, at_least(1), ">= 1; LM steps per model"),
    "lm_hidden_lstm": Param(int, 32, 96, 650, at_least(2), ">= 2; LSTM hidden size"),
    "lm_novels": Param(int, 1, 6, 6, lambda v: 1 <= v <= 6, "1 to 6 Austen novels"),
    "seed": Param(int, 0, 0, 0, at_least(0), ">= 0"),
}
P, ledger = start("mean_field/training", SPEC, globals())
if sorted(set(P.Ts_fig2)) != P.Ts_fig2:
    raise ValueError(f"parameter 'Ts_fig2' = {P.Ts_fig2}: must be increasing")
if P.profile != "paper":  # small batched networks: one thread is fastest
    torch.set_num_threads(1)

# %% [markdown]
# ## Fig. 2: the trainable depth follows $\tau$
#
# The images are average-pooled by `pool` (the paper feeds all 784 pixels), standardised to zero mean and unit
# variance, and followed by $T$ inputs $x^t\sim\mathcal N(0,1)$, so $\Sigma^t=0$ for $t>0$; a linear readout of the
# last state classifies the digit. The vanilla RNN reads $x^t$ through $V$ with $\sigma_v=0.025$ ($R=1$); the
# minimalRNN through $\Phi(x)=\tanh(W_xx)$ with $W_x$ scaled so that $\tilde x$ has second moment $R=0.46$, the value
# of Fig. 1. Every network of a grid (the hyperparameter values, tied and untied) trains at once for each $T$.
# The accuracy is the training accuracy after the last step, on 512 training images with fresh noise. The
# theory curve is $\tau$ for $\Sigma_{12}=0$.

# %%
torch.manual_seed(P.seed)
X, Y = trainability.mnist_arrays("train", pool=P.pool, n=P.n_images)
X = trainability.standardise(X, float(X.mean()), float(X.std()))
R_min = 0.46
v_in = minimal_rnn.input_map_scale(R_min)
sweeps = trainable_depth.fig2_sweeps()
tau = trainable_depth.timescales(sweeps, R_min)
acc = trainable_depth.run(
    sweeps,
    P.Ts_fig2,
    X,
    Y,
    P.width,
    P.batch,
    {"vanilla": P.steps_vanilla, "minimal": P.steps_minimal},
    P.lr,
    seed=P.seed + 7,
    input_scale2=v_in,
    progress=plotting.progress,
)

# %% tags=["hide-input"]
figures.fig2(acc, tau, sweeps, P.Ts_fig2)
plt.show()

# %% [markdown]
# **Figure 1.** Fig. 2 of the paper at CPU scale: the training accuracy (bright = trained, dark = chance) over
# the hyperparameter and the depth $T$, top row untied weights, bottom row tied, with the theoretical timescale
# $\tau$ for $\Sigma_{12}=0$ in white (on the same logarithmic depth axis; values outside the grid are drawn at its
# edge). Where $\tau$ is long, networks stay trainable to large $T$.
#
# We call a network *trainable at $T$* when its accuracy reaches {glue:text}`f2_thr:.1f` (chance is 0.1) and ask,
# over all (depth, network) cells of a model, how well one rule "trainable iff $T\le k\tau$" (one multiple $k$
# for the whole grid, as the paper overlays one curve) classifies them, against the best rule that ignores $\tau$
# ("trainable iff $T\le T_0$"), and how $\tau$ ranks the trainable depths (Spearman correlation):

# %%
threshold = 0.5
glue("f2_thr", threshold, display=False)
res2 = trainable_depth.summary(acc, tau, sweeps, P.Ts_fig2, threshold)
display(Markdown(trainable_depth.table(res2, P.Ts_fig2[-1])))

# %%
fig2 = trainable_depth.values(res2)
ledger.check("mean-field.fig2.trainable-depth", **fig2, **vars(P))
ledger.check("mean-field.fig2.gating-wider", **fig2, **vars(P), T_max=P.Ts_fig2[-1])

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
# off-critical minimalRNN uses $\mu_b=0$. Test accuracy on 300 test images.

# %%
Xtr, Ytr = trainability.mnist_arrays("train", n=P.n_images)
Xte, Yte = trainability.mnist_arrays("test", n=300)
m_, s_ = float(Xtr.mean()), float(Xtr.std())
Xtr, Xte = trainability.standardise(Xtr, m_, s_), trainability.standardise(Xte, m_, s_)
setup = training_speed.initializations(Xtr, P.T_fig3, P.width_fig3, v_in, P.seed)
display(Markdown(setup.describe()))
curves = training_speed.run(
    setup,
    (Xtr, Ytr),
    (Xte, Yte),
    P.width_fig3,
    P.steps_fig3,
    P.lr,
    P.batch,
    seed=P.seed,
    input_scale2=v_in,
)

# %% tags=["hide-input"]
figures.fig3(curves, training_speed.LABELS, P.T_fig3)
plt.show()

# %% [markdown]
# **Figure 2.** Fig. 3 of the paper at CPU scale: test accuracy during training for the four initializations
# (solid: critical; dotted: $\sigma_w^2=\sigma_v^2=1$; blue/green orthogonal, red/black Gaussian).

# %%
speed = training_speed.speed(curves, 0.5 if P.profile != "paper" else 0.9)
display(Markdown(training_speed.speed_table(speed)))
orth = training_speed.orthogonal_effect(speed["auc"], n_test=len(Yte))
ledger.check("mean-field.fig3.critical-faster", **speed, **vars(P))
ledger.check("mean-field.fig3.orthogonal", **orth)

# %% [markdown]
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
lm_res = language_model.compare(
    corpus,
    P.lm_hidden_lstm,
    P.lm_steps,
    seed=P.seed + 11,
    eval_tokens=20_000 if P.profile != "paper" else None,
    progress=plotting.progress,
)
display(
    Markdown(
        f"Corpus: {corpus.name}, {len(corpus.train):,} training tokens, vocabulary "
        f"{corpus.vocab_size}.\n\n" + language_model.table(lm_res)
    )
)

# %% tags=["hide-input"]
figures.language_models(lm_res)
plt.show()

# %% [markdown]
# **Figure 3.** Training perplexity of the three equally sized language models on the Austen corpus.

# %%
ledger.check(
    "mean-field.table1.perplexity",
    **language_model.perplexity_values(lm_res),
    **vars(P),
    corpus=corpus.name,
    vocab_size=corpus.vocab_size,
    n_params=lm_res["LSTM"].parameters,
    epochs=P.lm_steps * 700 / max(len(corpus.train), 1),
)

# %% [markdown]
# ## Verdicts
#
# The claims this chapter checked, as recorded in the ledger (see the {doc}`/book/scorecard`):

# %%
display(Markdown(ledger.table()))
