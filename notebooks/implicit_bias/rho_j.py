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
# # The scale factors $\rho_j$ of a wide linear RNN
#
# ```{findings}
# ```
#
# **What the paper claims.** {cite:t}`emami2021implicit` show that in the wide limit the neural tangent kernel
# of the linear RNN $h_t = W h_{t-1}/\sqrt n + F x_t$, $y_t = C h_t/\sqrt n$ (Eq. 1), initialized with
# $W_{ij}\sim\mathcal N(0,\nu_W)$, $F_{ij}\sim\mathcal N(0,\nu_F)$, $C_{ki}\sim\mathcal N(0,\nu_C)$ (Eq. 4), is
#
# :::{prf:theorem} Theorem 3.3(b) of Emami et al.
# :nonumber:
# :label: thm-emami-3-3b
# As $n\to\infty$, for any input sequences $\mathbf x, \mathbf x'$ the NTK converges almost surely to
# $K(\mathbf x,\mathbf x') = \mathcal T(\mathbf x)^\top D(\rho)\,\mathcal T(\mathbf x') \otimes I_{n_y}$ (Eq. 20), with the
# Toeplitz matrix $\mathcal T$ of Eq. (18), $D(\rho)=\mathrm{diag}(\rho_0 I_{n_x},\dots,\rho_{T-1}I_{n_x})$ and
#
# $$\rho_j = \nu_C\left(j\,\nu_F\,\nu_W^{j-1} + \nu_W^{j}\right) + \nu_F\,\nu_W^{j}. \qquad (21)$$
# :::
#
# and that for $\nu_W<1$, $j>1$ the factors decay geometrically,
# $\rho_j \le \rho_{\max}\nu_W^{j-1}$ with $\rho_{\max} = \nu_C(T\nu_F+1)+\nu_F$ (Eq. 22): the source of the
# implicit bias towards short memory.
#
# **What this chapter does.** It derives (21) with sympy from the variance recursions of the proof
# (Appendix B.3, Eqs. 46-49), finds where the bound (22) holds, and measures the empirical NTK of
# finite-width RNNs by autodiff against the limit kernel, over widths and seeds.

# %% tags=["parameters"]
profile = "book"
nu_W = None
nu_F = None
nu_C = None
T = None
n_x = None
n_y = None
n_inputs = None
widths = None
seeds = None
seed = None
device = None

# %% tags=["hide-input"]
from IPython.display import Markdown, Math, display
from myst_nb import glue

from rnnbook.book.chapter import start
from rnnbook.book.params import Repeats, Param, at_least, in_open_unit, positive
from rnnbook.implicit_bias import figures, ntk, scale_factors

# presets (smoke, book, paper) of the widths
WIDTHS = [32, 128, 512], [32, 64, 128, 256, 512, 1024], [64, 128, 256, 512, 1024, 2048]
SPEC = {
    "nu_W": Param(float, 0.3, 0.3, 0.3, in_open_unit, "0 < nu_W < 1, stable"),
    "nu_F": Param(float, 1.0, 1.0, 1.0, positive, "> 0"),
    "nu_C": Param(float, 1.0, 1.0, 1.0, positive, "> 0"),
    "T": Param(int, 5, 8, 10, at_least(2), ">= 2"),
    "n_x": Param(int, 2, 2, 2, at_least(1), ">= 1"),
    "n_y": Param(int, 2, 2, 2, at_least(1), ">= 1"),
    "n_inputs": Param(int, 2, 3, 4, at_least(1), ">= 1; the first is an impulse"),
    "widths": Param(list, *WIDTHS, at_least(2), ">= 2", item=int),
    "seeds": Repeats(2, 5, 20, "networks (an error bar needs two)", 2),
    "seed": Param(int, 0, 0, 0, at_least(0), ">= 0"),
}
P, ledger = start("implicit_bias/rho_j", SPEC, globals())

# %% [markdown]
# ## Deriving $\rho_j$ from the variance recursions
#
# In the proof of Theorem 3.3 the state $h_t$ and its first-order perturbation $\tilde h_t$ (from perturbing
# $W$ and $F$) are written as $\sum_j q_j x_{t-j}$, and the empirical distribution of the rows of
# $q_j = [q_{j,1}, q_{j,2}]$ converges to independent Gaussians with variances $\tau_{j,1}$, $\tau_{j,2}$. Eq. (48)
# gives their recursion, started from $q_0=[F,\Delta_F]$:

# %%
d = scale_factors.derive_rho()
steps = d.latex()

# %% tags=["hide-input"]
display(Math(steps["recursions"]), Math(steps["solutions"]))

# %% [markdown]
# The NTK is the sum of the contributions of $C$, which sees the state ($\mathbb E[H_tH'_s]$, built from
# $\tau_{j,1}$), and of $W, F$, which act through $C$ on the perturbation ($\nu_C\,\mathbb E[\tilde H_t\tilde H'_s]$,
# built from $\tau_{j,2}$), Eq. (55). Hence the weight of lag $j$ is $\rho_j = \nu_C\tau_{j,2} + \tau_{j,1}$:

# %% tags=["hide-input"]
display(Math(steps["rho"]), Math(steps["difference"]))
ledger.check("implicit-bias.eq21.rho", **d.summary())

# %% [markdown]
# ## Where does the bound (22) hold?
#
# Divide $\rho_{\max}\nu_W^{j-1} - \rho_j$ by $\nu_W^{j-1}>0$: the bound holds at lag $j$ exactly when this
# *slack* is non-negative.

# %%
b = scale_factors.derive_bound22().latex()

# %% tags=["hide-input"]
display(Math(b["slack"]), Math(b["threshold"]))

# %% [markdown]
# The slack decreases in $j$ (its derivative is $-\nu_C\nu_F$), so the worst lag is the last one, $j=T-1$.
# The bound therefore holds at **every** lag $0\le j\le T-1$ (not only $j>1$) whenever
# $\nu_W \le 1 + \nu_C\nu_F/(\nu_C+\nu_F)$, a condition wider than the paper's $\nu_W<1$. We confirm the
# derived region numerically on a grid of $(\nu_W,\nu_F,\nu_C,T)$, evaluating $\rho_j$ and the bound directly:

# %%
region = scale_factors.check_bound22_region(60 if P.profile == "smoke" else 400, P.seed)

# %% tags=["hide-input"]
glue("bound_agree", region["agree"], display=False)
glue("bound_total", region["total"], display=False)
ledger.check("implicit-bias.eq22.bound", **region)

# %% [markdown]
# The derived condition and the direct evaluation agree in {glue:text}`bound_agree` of
# {glue:text}`bound_total` random draws.

# %% tags=["hide-input"]
fig = figures.rho_decay(P.nu_F, P.nu_C, T=30)

# %% [markdown]
# **Figure 1.** The scale factors $\rho_j$ (dots) and the bound $\rho_{\max}\nu_W^{j-1}$ of Eq. (22) (dashed)
# on a log scale: the factors fall geometrically with the lag, so a wide linear RNN trained by gradient
# descent moves its long-lag impulse-response coefficients far less than its short-lag ones. The bound is
# loose by the factor $T$ inside $\rho_{\max}$.
#
# ## The empirical NTK converges to $\mathcal T(\mathbf x)^\top D(\rho)\mathcal T(\mathbf x')$
#
# For each width $n$ and seed we draw an RNN from (4), compute its NTK
# $\Theta(\mathbf x,\mathbf x') = \sum_{p\in\{W,F,C\}} \partial_p f(\mathbf x)\,\partial_p f(\mathbf x')^\top$ on a batch
# of input sequences by reverse-mode autodiff (`torch.func.jacrev`), and compare it with the limit kernel
# built from the *derived* $\rho_j$. The first input is an impulse on the first channel, for which the
# diagonal $\Theta_{tt}$ is exactly $\rho_t$ in the limit: a direct readout of the scale factors.

# %%
conv = ntk.convergence(
    P.widths,
    P.seeds,
    T=P.T,
    n_x=P.n_x,
    n_y=P.n_y,
    n_inputs=P.n_inputs,
    nu_W=P.nu_W,
    nu_F=P.nu_F,
    nu_C=P.nu_C,
    seed=P.seed,
    device=P.device,
)

# %% [markdown]
# The relative error $\|\Theta - K\otimes I\|_F/\|K\otimes I\|_F$ over all pairs of inputs, times and outputs,
# on log-log axes, with a least-squares fit of $\log(\text{error})$ on $\log n$ over every seed:

# %% tags=["hide-input"]
fig = figures.ntk_convergence(conv)
for k, v in conv.summary().items():
    glue(f"ntk_{k}", v, display=False)

# %% [markdown]
# **Figure 2.** The distance between the empirical NTK of a width-$n$ linear RNN and the limit kernel of
# Theorem 3.3(b) shrinks like $n^{-1/2}$, the Monte Carlo rate of an average over $n$ hidden units:
# the fitted exponent is {glue:text}`ntk_slope:.2f` $\pm$ {glue:text}`ntk_slope_ci:.2f` (95%), and at
# $n=$ {glue:text}`ntk_n_max` the mean error is {glue:text}`ntk_err_at_n_max:.3f`. Had the limit been a different
# kernel, the error would level off at the distance between the two instead.

# %% tags=["hide-input"]
fig = figures.rho_readout(conv)

# %% [markdown]
# **Figure 3.** For an impulse input, the diagonal of the empirical NTK, $\Theta_{jj}$, is an estimate of
# $\rho_j$. At the largest width the readout agrees with the derived factors to a largest relative
# deviation of {glue:text}`ntk_rho_readout_dev:.3f` over the lags; the spread across seeds shrinks with $n$.

# %% tags=["hide-input"]
ledger.check("implicit-bias.thm33b.ntk-limit", **conv.summary())

# %% tags=["hide-input"]
display(Markdown(ledger.table()))
