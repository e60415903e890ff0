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
# # Dynamical isometry and the critical initialization (Eqs. 10-13, Algorithm 1)
#
# ```{findings}
# ```
#
# **Why this matters.** A gradient that reaches the first step of a long sequence has been multiplied by one
# Jacobian per step. Keeping its *mean* squared size at one ($\chi_1=1$, the edge between order and chaos of
# the forward pass) stops it from exploding or vanishing on average, but not in every direction: if the
# singular values of the product spread out, some directions of the gradient grow while others die, and the
# network learns slowly although its average gradient looks healthy. *Dynamical isometry* asks for more,
# that all singular values of the end-to-end Jacobian stay close to one; for very deep feed-forward networks
# it was found to speed up training dramatically {cite:p}`pennington2017resurrecting`.
# {cite:t}`chen2018dynamical` ask whether recurrent networks can have it, and answer that gating is what
# makes it easy: the vanilla RNN reaches it only "at the boundary between order-and-chaos, a one-dimensional
# line in parameter space", with orthogonal weights, while the minimalRNN reaches it in "a robust
# multi-dimensional subspace" (Sec. 1). In their MNIST experiments the critical initialization trains the
# vanilla RNN about two orders of magnitude faster than an off-critical one (Sec. 4.2). This chapter checks
# the formula behind that answer and the recipe that follows from it.
#
# **What the paper claims.** {cite:t}`chen2018dynamical` (Sec. 3.2.2) study the end-to-end Jacobian
# $\mathbf J=\prod_t\mathbf J_t$ of the minimalRNN with untied weights, where the one-step Jacobian is
# $\mathbf J_t=\mathbf D_{\mathbf u^t}+\mathbf D_{\sigma'(\mathbf e^t)\odot(\mathbf h^{t-1}-\tilde{\mathbf x}^t)}\mathbf W$ (Eq. 10). Its mean squared
# singular value is $\chi_1$, the same quantity that decides the order-to-chaos transition of the forward pass,
# and with free probability they obtain the variance of the spectrum of $\mathbf J\mathbf J^\top$:
#
# :::{prf:theorem} Eqs. (12)-(13) of Chen et al.
# :nonumber:
# :label: thm-chen-eq12
# $\sigma^2_{\mathbf J\mathbf J^\top}=\chi_1^{2T}\Big(1+T\,\frac{2(\mu_1-s_1)\mu_2+\sigma_1^2+\sigma_2^2}{\chi_1^2}\Big)$, with
# $\chi_1=\mu_1+\mu_2$, $\mu_1=\int\mathcal Dz\,\sigma^2(\sqrt{q^*}z+\mu_b)$, $\sigma_1^2=-\mu_1^2+\int\mathcal Dz\,\sigma^4$,
# $\mu_2=\sigma_w^2(Q^*+R)\int\mathcal Dz\,[\sigma']^2$, $\sigma_2^2=-\mu_2^2+\sigma_w^4((Q^*)^2+R^2)\int\mathcal Dz\,[\sigma']^4$, and
# $s_1=-1$ for Gaussian, $0$ for orthogonal $\mathbf W$.
# :::
#
# At $\chi_1=1$ the variance grows only linearly in $T$; for the minimalRNN its coefficient can be made
# arbitrarily small by a positive bias mean $\mu_b$, "independent of $\Sigma$", and "the value of $s_1$ has no
# effect on the capacity of the minimalRNN to achieve dynamical isometry"; for the vanilla RNN the
# coefficient is small only for small $q^*$ (and orthogonal $\mathbf W$). The critical initialization:
#
# :::{prf:algorithm} Algorithm 1 of Chen et al.
# :nonumber:
# :label: alg-chen-1
# **Require** $q^*,\mu_b,R$. 1: $\mathbb E[u^2]\leftarrow\int\mathcal Dz\,\sigma^2(\sqrt{q^*}z+\mu_b)$; 2: $\mathbb E[(1-u)^2]\leftarrow\int\mathcal Dz\,(1-\sigma)^2$;
# 3: $Q^*\leftarrow R\,\mathbb E[(1-u)^2]/(1-\mathbb E[u^2])$; 4: $\mathbb E[u'^2]\leftarrow\int\mathcal Dz\,[\sigma']^2$;
# 5: $\sigma_w^2\leftarrow(1-\mathbb E[u^2])/(Q^*+R)/\mathbb E[u'^2]$; 6: $\sigma_b^2\leftarrow0$; 7: $\sigma_v^2\leftarrow(q^*-Q^*\sigma_w^2-\sigma_b^2)/R$.
# $Q^*$ initialises $\mathbf h^0$ "to avoid transient phase".
# :::
#
# **The idea in words.** The spectrum of a product of many random matrices is hard to compute directly, but
# free probability turns products into sums: for factors that are "freely independent", as wide random
# matrices with untied weights are, the mean of the spectrum of $\mathbf J\mathbf J^\top$ multiplies over
# the steps and its relative variance (variance over squared mean) adds up. The mean of the product is
# $\chi_1^T$, so at criticality the only thing left to grow is the spread, by a fixed amount per step: the
# variance of the spectrum of one step's $\mathbf J_t\mathbf J_t^\top$. Eq. (12) has that form, with the
# one-step variance written out from the quantities of Eq. (13). For the minimalRNN the gate decides it.
# With a large positive gate bias $\mu_b$, every gate $u=\sigma(e)$ is close to one and its slope
# $\sigma'(e)$ close to zero, so
# $\mathbf J_t=\mathbf D_{\mathbf u}+\mathbf D_{\sigma'(\mathbf e)\odot(\mathbf h-\tilde{\mathbf x})}\mathbf W$
# is close to the identity: each unit copies its state forward, and the identity has all its singular values
# at one, whatever the weights. Algorithm 1 then supplies the variances that put $\chi_1$ exactly at one for
# a chosen $q^*$ (the pre-activation variance), $\mu_b$ and input variance $R$, where it is feasible. It
# first solves the fixed point of the hidden state's second moment $Q^*$ (line 3), then chooses $\sigma_w^2$
# to make $\chi_1=1$ (line 5) and $\sigma_v^2$ to make the pre-activation variance equal $q^*$ (line 7).
#
# **What this chapter does.** It samples untied minimalRNNs (and vanilla RNNs) at their fixed point, multiplies
# their exact Jacobians (`rnnbook.mean_field.jacobian_spectrum`) and measures the first two moments of the spectrum of
# $\mathbf J\mathbf J^\top$ over $T$, for Gaussian and orthogonal $\mathbf W$, against Eq. (12). It then checks Algorithm 1
# symbolically and numerically, and measures the gradient norms of real (tied) networks built with it.

# %% tags=["parameters"]
profile = "book"
device = None
N_jac = None
K_jac = None
T_jac = None
N_grad = None
K_grad = None
T_grad = None
N_mc = None
K_mc = None
seed = None

# %% tags=["hide-input"]
import matplotlib.pyplot as plt
import numpy as np
import sympy as sp
import torch
from IPython.display import Markdown, Math, display
from myst_nb import glue

from rnnbook.book.chapter import start
from rnnbook.book.params import Param, Repeats, at_least
from rnnbook.mean_field import critical_init, derivations, figures, jacobian_spectrum
from rnnbook.mean_field import theory
from rnnbook.mean_field.derivations import tex

SPEC = {
    "N_jac": Param(int, 96, 256, 1024, at_least(16), ">= 16; width, Jacobian products"),
    "K_jac": Repeats(3, 8, 32, "networks per setting", 2),
    "T_jac": Param(int, 6, 16, 40, at_least(3), ">= 3; number of Jacobian factors"),
    "N_grad": Param(int, 64, 256, 1024, at_least(16), ">= 16; width, gradient test"),
    "K_grad": Repeats(2, 4, 16, "tied networks per init", 2),
    "T_grad": Param(int, 30, 100, 784, at_least(10), ">= 10; steps, gradient test"),
    "N_mc": Param(
        int, 1024, 4096, 16384, at_least(64), ">= 64; units, term Monte Carlo"
    ),
    "K_mc": Repeats(4, 8, 32, "networks, term Monte Carlo", 2),
    "seed": Param(int, 0, 0, 0, at_least(0), ">= 0"),
}
P, ledger = start("mean_field/dynamical_isometry", SPEC, globals())
if P.profile != "paper":  # small batched networks: one thread is fastest
    torch.set_num_threads(1)

# %% [markdown]
# ## Algorithm 1, symbolically
#
# With the Gaussian integrals of lines 1, 2 and 4 as symbols, the algorithm's outputs give

# %%
a1 = derivations.check_algorithm1()
sw2, sv2 = sp.simplify(a1.sigma_w2), sp.simplify(a1.sigma_v2)

# %% tags=["hide-input"]
display(
    Math(
        tex(
            "Q^* = ",
            a1.Qstar,
            r",\quad \sigma_w^2 = ",
            sw2,
            r",\quad \sigma_v^2 = ",
            sv2,
        )
    )
)
display(
    Math(
        tex(
            r"\chi_1 = \mathbb E[u^2] + \sigma_w^2(Q^*+R)\,\mathbb E[u'^2] = ",
            a1.chi1,
            r",\qquad Q^* - \big(Q^*\mathbb E[u^2] + R\,\mathbb E[(1-u)^2]\big) = ",
            a1.Q_fixed_point_residual,
            r",\qquad q^* - (\sigma_w^2Q^* + \sigma_v^2R + \sigma_b^2) = ",
            a1.q_fixed_point_residual,
        )
    )
)

# %% [markdown]
# so $\chi_1=1$ identically and $(Q^*,q^*)$ solves the diagonal maps (6)-(7). Numerically, on a grid of
# $(q^*,\mu_b)$ with $R=0.46$, we run Algorithm 1, build the hyperparameters, solve the fixed-point equation (24)
# for them independently (bisection) and evaluate $\chi_1$ of Eq. (13) by quadrature. The algorithm needs
# $\sigma_v^2\ge0$ (feasibility); and for $Q^*$ to be where a network settles, the fixed point must be *stable*:
# the slope of the diagonal map $Q^{t-1}\mapsto Q^t$ at $Q^*$ must be below 1 (App. D).

# %%
R_alg = 0.46
qs_grid, mu_grid = np.geomspace(0.5, 32, 25), np.linspace(-2, 8, 41)
survey = critical_init.survey(qs_grid, mu_grid, R_alg)

# %% tags=["hide-input"]
glue("alg_feas", survey.n_feasible, display=False)
glue("alg_unstable", survey.n_unstable, display=False)
glue("alg_chi_dev", survey.max_chi1_deviation, display=False)

# %% tags=["hide-input"]
figures.algorithm1_survey(survey)
plt.show()

# %% [markdown]
# **Figure 1.** Left: where Algorithm 1 is feasible ($\sigma_v^2\ge0$ needs a large enough $q^*$, more so for small
# $\mu_b$) and whether the $Q^*$ it returns is a stable fixed point. Right: $\chi_1$ at the fixed point that
# bisection of Eq. (24) finds, i.e. where a network started near $Q^*$ would settle: white where that is the
# algorithm's $Q^*$ ($\chi_1=1$), coloured in the band where Eq. (24) has three roots and the algorithm picked
# the unstable middle one.
#
# **How to read Figure 1.** Both panels have the gate's bias mean $\mu_b$ across and the prescribed
# pre-activation variance $q^*$ up (log scale); each grid point is one call of Algorithm 1 at $R=0.46$. On the
# left, "$\sigma_v^2<0$" marks the settings where line 7 asks for a negative input variance: there the
# recurrent part $\sigma_w^2Q^*$ of the pre-activation variance already exceeds the $q^*$ asked for, and no
# input can make up the difference. Where the algorithm is feasible, the colour says whether its $Q^*$ is a
# point the hidden state's second moment comes back to after a small push (stable) or runs away from. The
# right panel asks what a network left to itself does: it settles at a stable root of Eq. (24), and the
# colour is $\chi_1$ there. A point worth initializing at is feasible on the left and white on the right.
#
# Over the {glue:text}`alg_feas` feasible grid points, $\chi_1$ at the algorithm's own $(Q^*,q^*)$ deviates from
# 1 by at most {glue:text}`alg_chi_dev:.1e`; at {glue:text}`alg_unstable` of them that $Q^*$ is an unstable fixed
# point of the diagonal map. Starting exactly at an unstable $Q^*$ and iterating the map with a 1% perturbation
# shows where such a network goes:

# %%
demo, ij = None, survey.unstable_example()
if ij is not None:
    i, j = ij
    demo = (float(qs_grid[i]), float(mu_grid[j]))
    hp_d, Q_alg = critical_init.example_hp(survey, i, j), survey.alg.Qstar[i, j]
    runs = {f: critical_init.runaway(Q_alg * f, hp_d) for f in (1.01, 0.99, 1.0)}

# %% tags=["hide-input"]
if demo is not None:
    figures.runaway(runs, *demo)
    plt.show()

# %% [markdown]
# **Figure 2.** For a setting in the band of unstable solutions, the diagonal map started 1% above or below the
# algorithm's $Q^*$ runs away to one of the two stable fixed points, where $\chi_1\ne1$: a network initialised with
# $\mathbf h^0$ at $Q^*$ does not stay critical.

# %%
residuals = [str(a1.Q_fixed_point_residual), str(a1.q_fixed_point_residual)]

# %% tags=["hide-input"]
ledger.check(
    "mean-field.alg1.chi1",
    **survey.values(),
    symbolic_chi1=str(a1.chi1),
    residuals=residuals,
)
ledger.check("mean-field.alg1.fixed-point", **survey.values(), example=demo)

# %% [markdown]
# ## The spectrum of $\mathbf J\mathbf J^\top$: Eq. (12) against sampled networks
#
# **What Eq. (12) is.** For products of freely independent factors the S-transforms multiply. With
# $S(z)=\frac1{m_1}\big(1-\frac{\mathrm{var}}{m_1^2}z+O(z^2)\big)$, $T$ factors of mean $\chi_1$ and variance
# $\mathrm{var}_1$ give $\mathrm{var}(T)/m_1(T)^2=T\,\mathrm{var}_1/\chi_1^2$ exactly, i.e. the *second moment*
# $m_2(T)=\chi_1^{2T}\big(1+T\,\mathrm{var}_1/\chi_1^2\big)$: the form of Eq. (12), which equals 1 at $T=0$. So Eq. (12)
# is a second moment; the variance it implies is Eq. (12) $-\chi_1^{2T}$, and its per-step coefficient
# $2(\mu_1-s_1)\mu_2+\sigma_1^2+\sigma_2^2$ plays the part of $\mathrm{var}_1$. We compare like with like.
#
# **The one-step variance, derived.** Expand $\mathrm{tr}(\mathbf J_t\mathbf J_t^\top)/N$ and
# $\mathrm{tr}((\mathbf J_t\mathbf J_t^\top)^2)/N$ for $\mathbf J_t=\mathbf D_u+\mathbf D_a\mathbf W$ into words
# and take each word's trace in the wide limit, $\mathbf W$ being R-diagonal and free from the diagonal matrices
# ($\mathrm{tr}\,\mathbf W\mathbf W^\top/N=\sigma_w^2$, $\mathrm{tr}(\mathbf W\mathbf W^\top)^2/N=\sigma_w^4(1-s_1)$;
# `rnnbook.mean_field.derivations.derive_one_step_variance`):

# %%
d1 = derivations.derive_one_step_variance()
display(Math(tex(r"m_1 = ", d1.m1, r",\qquad m_2 = ", d1.m2)))
display(Math(tex(r"\mathrm{var}_1 = m_2 - m_1^2 = ", d1.var1)))
names = {
    "Var(u^2)": r"$\operatorname{Var}(u^2)$",
    "-mu_2^2": r"$-\mu_2^2$",
    "s_1": "$s_1$",
}
rows = [
    f"| {names.get(k, k)} | ${tex(d1.paper[k])}$ | ${tex(d1.derived[k])}$ "
    f"| {'yes' if d1.equal[k] else 'no'} |"
    for k in derivations.TERMS
]
head = "| term | Eq. (12)-(13) | trace expansion | equal |\n|---|---|---|---|\n"

# %% tags=["hide-input"]
display(Markdown(head + "\n".join(rows)))

# %% [markdown]
# Here $u=\sigma(e)$ and $a=\sigma'(e)(h-\tilde x)$ with $e$ independent of $(h,\tilde x)$, so
# $\mathbb E[a^2]=(Q^*+R)\,\mathbb E[\sigma'^2]$. Two of the five terms agree ($\sigma_1^2$ and $-\mu_2^2$); three do
# not. The cross term $2\mu_1\mu_2$ factorises $\mathbb E[u^2a^2]$ although $u$ and $\sigma'$ share $e$; the quartic
# term has $(Q^*)^2+R^2$ where the fourth moment $\mathbb E[(h-\tilde x)^4]=\mathbb E[h^4]+6Q^*R+3R^2$ belongs
# ($\mathbb E[h^4]$ from $h^t=u\,h^{t-1}+(1-u)\tilde x$, both for a Gaussian input $\tilde x\sim\mathcal N(0,R)$
# independent of $h$, the input used here; for the paper's $\tilde x=\tanh(W_x x)$, $3R^2$ becomes
# $\mathbb E[\tilde x^4]$); and the $s_1$ term is $-s_1\mu_2^2$, not $-2s_1\mu_2$.
# A Monte Carlo of the terms on untied networks at their fixed point (the $s_1$ term as the difference of the
# one-step variances with Gaussian and with orthogonal $\mathbf W$ on the same diagonals):

# %%
settings = [(8.0, 2.0), (4.0, 4.0), (4.0, 6.0)]
mc = {
    (qs, mu): jacobian_spectrum.one_step_terms_mc(
        theory.algorithm1(qs, mu, R_alg).hp(),
        P.N_mc,
        P.K_mc,
        P.seed + 900 + int(mu),
        device=P.device,
    )
    for qs, mu in settings
}

# %% [markdown]
# Then we sample untied minimalRNNs of width $N$ at the same three critical initializations, run them to their
# fixed point, and multiply the exact Jacobians (10) step by step, recording $m_1(T)=\mathrm{tr}(\mathbf J\mathbf J^\top)/N$,
# $m_2=\mathrm{tr}((\mathbf J\mathbf J^\top)^2)/N$ and the variance $m_2-m_1^2$, for Gaussian and for orthogonal
# $\mathbf W$. (The $s_1$ term is measured above on the same diagonals with Gaussian and with orthogonal
# $\mathbf W$: the paired difference of the one-step variances.)

# %%
study = jacobian_spectrum.minimal_study(
    settings, R_alg, P.N_jac, P.T_jac, P.K_jac, P.seed, P.device
)
terms = jacobian_spectrum.one_step_values(study, mc, d1.wrong)

# %% tags=["hide-input"]
figures.minimal_spectrum(study)
plt.show()

# %% [markdown]
# **Figure 3.** Variance of the spectrum of $\mathbf J\mathbf J^\top$ over the number of steps, at three critical
# initializations (error bars: 2 standard errors over networks). It grows about linearly in $T$ and its slope
# falls as $\mu_b$ grows, as the paper says. The variance Eq. (12) implies (dashed, Eq. (12) $-\chi_1^{2T}$)
# separates Gaussian from orthogonal $\mathbf W$ by $2\mu_2$ per step; the derived one-step variance separates them
# by $\mu_2^2$ only (the paired Monte Carlo above), and its free product (dotted) follows the measurements.
#
# **How to read Figure 3.** Each panel is one critical initialization, so the mean of the spectrum is one at
# every $T$ and only its spread can change. A straight rising line is the linear growth Eq. (12) predicts;
# its slope is the one-step variance, the number that decides how close the network stays to isometry after
# many steps. Compare the slopes across panels (the effect of the gate bias $\mu_b$) and, within a panel,
# the Gaussian and the orthogonal markers (the effect of $s_1$, which the paper says does not matter for the
# minimalRNN).

# %% tags=["hide-input"]
display(Markdown(study.table()))
ledger.check("mean-field.eq12.minimal-variance", **study.variance_values(), **vars(P))
ledger.check("mean-field.eq13.one-step-terms", **terms, **vars(P))
ledger.check("mean-field.eq12.minimal-isometry", **study.isometry_values())

# %% [markdown]
# ## The vanilla counterpart
#
# For the vanilla RNN with untied weights $\mathbf J_t=\mathbf D_{\phi'(\mathbf e^t)}\mathbf W_t$, and the same free-probability
# argument gives {cite:p}`pennington2017resurrecting` $\sigma^2_{\mathbf J\mathbf J^\top}=T\chi_1^{2T}\big(\mathbb E[\phi'^4]/\mathbb E[\phi'^2]^2-1-s_1\big)$:
# at $\chi_1=1$ the coefficient is small only for orthogonal $\mathbf W$ and small $q^*$ (where $\phi'$ is nearly
# constant); Gaussian $\mathbf W$ adds 1 per step whatever $q^*$. At $q^*=0.5$ and $R=1$ we use the vanilla
# critical initialization $\sigma_w^2=1/\mathbb E[\phi'^2]$, $\sigma_v^2=(q^*-\sigma_w^2\mathbb E[\phi^2])/R$ (from
# `theory.vanilla_critical` below).
#
# **Where the one per step comes from.** One step $\mathbf D_{\phi'}\mathbf W$ spreads the spectrum in two
# ways, and for free factors their relative variances (variance over squared mean) add. The diagonal gives
# the spread of $\phi'^2$ over units, $\mathbb E[\phi'^4]/\mathbb E[\phi'^2]^2-1$: zero when every unit sits in
# the linear part of $\tanh$ (small $q^*$), larger as pre-activations reach its flat tails. The weights give
# the relative variance of the spectrum of $\mathbf W\mathbf W^\top$, which is $-s_1$: zero for an orthogonal
# matrix, whose singular values are all equal, and one for a square Gaussian matrix, whose squared singular
# values follow the Marchenko-Pastur law with variance equal to its squared mean. No choice of $q^*$ removes
# the second term, which is why the vanilla RNN needs orthogonal weights as well as criticality:

# %%
sw2_v, sv2_v = theory.vanilla_critical(0.5, 1.0)
hp_v = theory.HP(np.sqrt(sw2_v), np.sqrt(sv2_v), 0.0, 1.0)
van = jacobian_spectrum.vanilla_study(
    hp_v, P.N_jac, P.T_jac, P.K_jac, P.seed + 77, P.device
)
van_values = jacobian_spectrum.vanilla_values(van, P.T_jac)

# %% tags=["hide-input"]
ledger.check("mean-field.eq12.vanilla", **van_values, **vars(P))

# %% tags=["hide-input"]
figures.vanilla_spectrum(van, sw2_v)
plt.show()

# %% [markdown]
# **Figure 4.** The vanilla RNN at criticality: orthogonal weights keep the spectrum narrow (its variance grows
# with the small $\mathrm{Var}(\phi'^2)$ at $q^*=0.5$), Gaussian weights add one unit of variance per step. The
# formula describes both.
#
# **How to read Figure 4.** Both sets of networks are critical, so the mean of the spectrum stays at one and
# only its spread grows. The slope of each dashed line is the one-step relative variance above: the
# diagonal's term alone for orthogonal $\mathbf W$, that term plus one for Gaussian $\mathbf W$. Markers that
# sit on their dashed line mean the free-probability argument holds at this width for the vanilla RNN, the
# baseline against which the minimalRNN's Figure 3 is to be read.
#
# ## Gradient norms of real networks built with Algorithm 1
#
# Finally the claim that matters for training: a minimalRNN initialised with Algorithm 1 (here $q^*=4$,
# $\mu_b=4$) keeps the mean squared singular value of $\partial\mathbf h^T/\partial\mathbf h^0$, the squared norm of
# back-propagated gradients, flat over $T$, while the common initialization $\sigma_w^2=\sigma_v^2=1$ does not. We
# measure it on real networks with *tied* weights (the same $\mathbf W$ at every step), at two widths, and on
# untied ones; the off-critical initialization at $\mu_b=0$ and at the same $\mu_b=4$ (inputs
# $\tilde x\sim\mathcal N(0,R)$, $R=0.46$; $\mathbf h^0$ at the fixed point after a burn-in of 50 steps).

# %%
inits = {
    "critical (Algorithm 1), $\\mu_b=4$": theory.algorithm1(4.0, 4.0, R_alg).hp(),
    "$\\sigma_w^2=\\sigma_v^2=1$, $\\mu_b=0$": theory.HP(1.0, 1.0, 0.0, R_alg),
    "$\\sigma_w^2=\\sigma_v^2=1$, $\\mu_b=4$": theory.HP(1.0, 1.0, 4.0, R_alg),
}
grad = jacobian_spectrum.gradient_study(
    inits, P.N_grad, P.T_grad, P.K_grad, P.seed + 500, device=P.device
)
g = grad.values()

# %% tags=["hide-input"]
glue("grad_crit_end", g["crit_end"], display=False)
glue("grad_untied_end", g["untied_end"], display=False)
glue("grad_off_end", g["off0_end"], display=False)
glue("grad_off4_end", g["off4_end"], display=False)
glue("grad_rate", g["rate_tied"], display=False)
glue("grad_rate_half", g["rate_half"], display=False)
ledger.check("mean-field.alg1.flat-gradients", **g, **vars(P))

# %% tags=["hide-input"]
figures.gradient_norms(grad)
plt.show()

# %% [markdown]
# **Figure 5.** The squared gradient norm through $T$ steps. With untied weights (the mean-field setting) the
# critical initialization keeps it flat ({glue:text}`grad_untied_end:.2f` after the last step), and
# $\sigma_w^2=\sigma_v^2=1$ at $\mu_b=0$ makes it vanish like $\chi_1^T$ ({glue:text}`grad_off_end:.1e`). But the real,
# *tied* network with the critical initialization loses a factor {glue:text}`grad_rate:.3f` per step
# ({glue:text}`grad_crit_end:.3f` after the last step), the same at half the width
# ({glue:text}`grad_rate_half:.3f` per step): one step has $\chi_1=1$, but with the same $\mathbf W$ at every step the
# gates become correlated with $\mathbf W$ and the product of Jacobians is no longer the free product of the
# theory. At $\mu_b=4$ the off-critical variances decay about as slowly ({glue:text}`grad_off4_end:.3f`): a large
# gate bias already brings $\chi_1$ near 1, the "robust" region of the paper.
#
# **How to read Figure 5.** The vertical axis is logarithmic, so a constant loss per step is a straight line
# and a flat line is a gradient that keeps its size however far back it travels. The thick lines are
# measured networks (dotted: the critical one at half the width); each thin dashed line is mean field's
# prediction $\chi_1^T$ for the initialization of its colour. Where a measured line follows its dashed one,
# the theory of one step, multiplied $T$ times, describes the network; where it parts from it, something
# that theory leaves out matters, such as the same weights acting at every step. Comparing the critical
# network with tied and with untied weights isolates that one difference.
#
# ## What was found
#
# Algorithm 1 does what it promises on paper: its outputs put $\chi_1$ at one identically, and where the
# $Q^*$ it returns is a stable fixed point of the variance map a network started there stays critical; where
# it picks the unstable root, a network drifts away from criticality ({claim}`mean-field.alg1.chi1`,
# {claim}`mean-field.alg1.fixed-point`). The picture of Eq. (12), a spread that grows linearly at
# criticality and more slowly for a larger gate bias, is tested against sampled networks
# ({claim}`mean-field.eq12.minimal-isometry`), while the one-step terms of Eq. (13) are checked one by one
# and three of the five do not follow from the trace expansion ({claim}`mean-field.eq13.one-step-terms`).
# The practical promise, flat gradients through time, holds in the setting of the theory, with untied
# weights; for the real network, whose weight matrix is shared by all steps, the free-product argument no
# longer applies, and Figure 5 shows what that costs ({claim}`mean-field.alg1.flat-gradients`).

# %% tags=["hide-input"]
display(Markdown(ledger.table()))
