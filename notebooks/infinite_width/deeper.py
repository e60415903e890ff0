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
# # More hidden layers: the four-layer network and its limit (Sec. 6)
#
# ```{findings}
# ```
#
# **What the paper claims.** {cite:t}`chizat2022infinite` (Sec. 6) extend the three-layer analysis to $L$ middle
# layers, $h(x)=V^\top W_L\cdots W_1Ux$, trained in μP (learning rates $\tau m$ for $U$, $\tau$ for every $W_l$,
# $\tau/m$ for $V$). With scale-free variables, $W_l=Z_l/\sqrt m+\tilde W_l/m$, they argue (formally) that as
# $m\to\infty$ the network is described, up to errors $O(m^{-1/2+\delta})$, by a deterministic limit on
# coefficients $A$, $G_1,\dots,G_L$, $B$ in one orthonormal basis per layer (6.3), GD on
# $\mathcal E(A,(G_l),B)$ (6.5)-(6.6):
#
# $$A^+=A-\tau\,H_1^\top\cdots H_L^\top B\,\xi^\top,\quad
# G_l^+=G_l-\tau\,(H_{l+1}^\top\cdots H_L^\top B)(H_{l-1}\cdots H_1A\xi)^\top,\quad
# B^+=B-\tau\,H_L\cdots H_1A\xi,$$
#
# with $H_l=\mathcal A_l+G_l$ and the predictor $\lambda=A^\top H_1^\top\cdots H_L^\top B$. The basis vectors are indexed by
# *paths of layers* (Sec. 6.1): a path starts at layer 0 (a column of $U(0)$) or at layer $L$ ($V(0)$) and moves by
# $\pm1$; it belongs to the layer where it ends. $Z_l/\sqrt m$ acts on them as the shift $\mathcal A_l$ (6.8): it
# appends $l$ to a path ending at $l-1$, and if that path arrived at $l-1$ from $l$ it also removes the last move.
# Sec. 6.2 works this out for $L=2$, a four-layer network.
#
# **What this chapter does.** It builds the path bases and the shifts from (6.8)-(6.9) for $d$ inputs, checks
# that for $L=1$ they give exactly the three-layer limit of {doc}`mup_limit`, trains the $L=2$ limit on truncated
# bases and the finite-width four-layer network, and repeats the three-layer chapter's checks: the rate in the
# width, and convergence to the minimal-norm predictor (Theorem 2.3, which the paper states for $L=1$ only).

# %% tags=["parameters"]
profile = "book"
d = None
n = None
tau = None
steps = None
widths = None
reps = None
max_len = None
flow_steps = None
draws = None
data_seed = None
seed = None
device = None

# %% tags=["hide-input"]
import matplotlib.pyplot as plt
import sympy as sp
from IPython.display import Markdown, Math, display

from rnnbook.book.chapter import start
from rnnbook.book.params import Repeats, Param, at_least, positive, Steps
from rnnbook.infinite_width import figures, multilayer, multilayer_limit, regression

W = [16, 32, 64, 128, 256, 512]
SPEC = {
    "d": Param(int, 10, 10, 10, at_least(2), ">= 2; input dimension (Fig. 2.1: 10)"),
    "n": Param(int, 5, 5, 5, at_least(1), ">= 1; training samples (n < d)"),
    "tau": Param(float, 0.2, 0.2, 0.2, positive, "> 0; GD step (Fig. 2.1: 0.2)"),
    "steps": Steps(100, 1000, 1000, "GD steps K"),
    "widths": Param(list, [16, 64], W, W + [1024], at_least(2), ">= 2", item=int),
    "reps": Repeats(3, 10, 50, "networks per width", 2),
    "max_len": Param(int, 8, 8, 10, at_least(2), ">= 2; longest path of the bases"),
    "flow_steps": Steps(400, 1000, 3000, "steps, min-norm"),
    "draws": Repeats(2, 5, 20, "data sets, min-norm"),
    "data_seed": Param(int, 0, 0, 0, at_least(0), ">= 0; seed of the data set"),
    "seed": Param(int, 0, 0, 0, at_least(0), ">= 0; seed of the networks"),
}
P, ledger = start("infinite_width/deeper", SPEC, globals())

# %% [markdown]
# ## The path bases and the shifts
#
# For $L=2$ and one input ($d=1$), the paths ending at layer 0 are $0$, $2\to1\to0$, $0\to1\to0$, ... and those ending
# at layer 1 are $0\to1$, $2\to1$, $0\to1\to2\to1$, ...; here is $\mathcal A_1$ (layer 0 to layer 1) on paths of at most
# three moves, rows and columns labelled by the paths:

# %%
small = multilayer_limit.path_basis(1, 2, 3)
A1 = sp.Matrix(multilayer_limit.shift(small, 1).astype(int))
label = lambda p: "".join(map(str, p[1:]))  # noqa: E731  (the layers visited)

# %% tags=["hide-input"]
print("columns (layer 0):", [label(p) for p in small.paths[0]])
print("rows    (layer 1):", [label(p) for p in small.paths[1]])
display(Math(r"\mathcal A_1 = " + sp.latex(A1)))

# %% [markdown]
# Each column has a 1 at the path extended by one move to layer 1, and a second 1 where the path came down from
# layer 1 (the annihilation in (6.8)). For $L=1$ the paths are linear and the same construction must be the
# three-layer limit (2.6)-(2.10), only numbered differently; and for $L=2$ the number of paths grows like
# $d\,2^{M/2}$ with the length $M$, so we truncate and compare two truncations:

# %%
data = regression.gaussian_regression(P.d, P.n, P.data_seed, x_std=P.d**-0.5)
l1_err = multilayer_limit.l1_check(data, P.tau, min(P.steps, 200), P.max_len)
trunc = multilayer_limit.truncation_check(data, 2, P.tau, P.steps, P.max_len)

# %% tags=["hide-input"]
print(f"L = 1 against (2.10): largest |dlambda| = {l1_err:.1e}")
print(f"L = 2, paths <= {P.max_len} vs {P.max_len + 2} moves: {trunc[0]:.1e}")
print(f"basis sizes per layer: {trunc[1]} and {trunc[2]}")
ledger.check(
    "infinite-width.sec6.limit-l2",
    **vars(P),
    l1_err=l1_err,
    trunc_err=trunc[0],
    max_len_check=P.max_len + 2,
    sizes=trunc[1],
    sizes_check=trunc[2],
)

# %% [markdown]
# ## Finite width against the limit
#
# Data as in the three-layer chapter: $d=10$, $n=5$, $x\sim\mathcal N(0,I_d/d)$, $y=x^\top\lambda^*$, mean loss. For each
# width we train several four-layer networks in μP and measure $\|\lambda^m(k)-\lambda^\infty(k)\|_2$.

# %%
study = multilayer.width_study(
    data, 2, P.tau, P.steps, P.widths, P.reps, P.seed, P.max_len, device=P.device
)
rate = multilayer.rate_values(study)

# %% tags=["hide-input"]
ledger.check("infinite-width.sec6.rate-l2", **vars(P), **rate)

# %% tags=["hide-input"]
K = P.steps
curves = [
    ("$k=0$", study.errors[:, 0, :], study.fit(0)),
    (f"$k={K}$", study.errors[:, K, :], study.fit(K)),
]
figures.rate(P.widths, curves, "Four layers ($L=2$): distance to the limit")
plt.show()

# %% [markdown]
# **Figure 1.** The mean distance between the predictor of a width-$m$ four-layer network and that of the
# limit (6.5), at initialization and after the last step, with power-law fits: it falls like $m^{-1/2}$, the rate
# of the three-layer case (Eq. 2.16).

# %% tags=["hide-input"]
figures.multilayer_paths(study, data.min_norm(), P.tau)
plt.show()

# %% [markdown]
# **Figure 2.** Left: predictor paths of one network per width approach the limit's path (first two coordinates).
# Right: the limit's distance to the minimal-norm predictor $X^+y$ falls exponentially.
#
# ## The minimal-norm predictor
#
# Theorem 2.3 says the three-layer limit converges to $X^+y$. We run the $L=2$ limit on several data sets and
# measure the final error and the part of $\lambda$ outside the row space of $X$ (where $X^+y$ has none):

# %%
final, outside = [], []
for j in range(P.draws):
    dj = regression.gaussian_regression(P.d, P.n, P.data_seed + j, x_std=P.d**-0.5)
    run = multilayer_limit.train(dj, 2, P.tau, P.flow_steps, P.max_len)
    f, o = multilayer_limit.min_norm_check(dj, run)
    final.append(f)
    outside.append(o)

# %% tags=["hide-input"]
ledger.check(
    "infinite-width.sec6.min-norm-l2",
    **vars(P),
    final=final,
    outside=outside,
    final_shown=[float(f"{x:.1e}") for x in final],
    outside_shown=[float(f"{x:.1e}") for x in outside],
)

# %% tags=["hide-input"]
display(Markdown(ledger.table()))
