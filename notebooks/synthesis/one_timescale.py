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
# # One timescale, four theories
#
# ```{findings}
# ```
#
# **Why this matters.** Every theory of recurrent networks has to answer one practical question: how many
# steps can a freshly initialized network carry a signal forward, or a gradient backward, before it fades or
# blows up? The answer bounds how long a dependence the network can learn from data. Three of the papers in
# this book answer it, each in its own language: the eigenvalues of a transition derivative (the LSC), the
# slope of a variance map (mean field), the weights of a tangent kernel (implicit bias). The fourth, on deep
# linear networks, says which solution training ends on, the other half of the story that the implicit-bias
# paper tells. Met one at a time, they look like four different effects. For the simplest recurrent network,
# the linear one, they are one effect, and this chapter shows it by derivation and by measurement; then it
# shows where the agreement ends, once a nonlinearity or a gate enters, which is where the choice of theory
# starts to matter.
#
# **What the four papers say, each in its own language.** For a recurrent network
# $h_t = W h_{t-1}/\sqrt n + F x_t$ with $W_{ij}\sim\mathcal N(0,\nu_W)$, the linear RNN of
# {cite:t}`emami2021implicit` and a special case of the models of the three RNN papers (unrolled in
# time it is a deep linear network with one matrix shared by all layers, which the independent layers
# of the fourth paper do not cover):
#
# * {cite:t}`herranzcelotti2024lsc` (LSC) ask that the *radius* of each transition derivative
#   $\partial h_t/\partial h_{t-1} = J = W/\sqrt n$ be one (Theorem 1), so that their *upper* bound
#   on the gradient grows at most polynomially through time (an upper bound: it rules out an
#   exponential explosion of the bound, it says nothing against vanishing);
# * {cite:t}`chen2018dynamical` (mean field) measure signal propagation by the slope $\chi_1$, the
#   mean squared singular value of one Jacobian step, criticality being $\chi_1 = 1$, and the
#   depth scale $\tau = -1/\log\chi$;
# * {cite:t}`emami2021implicit` find that the NTK weighs lag $j$ of the impulse response by
#   $\rho_j$ (Eq. 21), which decays geometrically: the implicit bias towards short memory;
# * {cite:t}`chizat2022infinite` show that a deep linear network trained from its infinite-width
#   limit converges to the minimum-$\ell_2$-norm interpolant (Theorem 2.3).
#
# **What this chapter shows.** The first three numbers are one number: in the wide limit the squared
# spectral radius of $J$, $\chi_1$, the ratio $\rho_{j+1}/\rho_j$ at large $j$ and the per-step decay of
# $\mathbb E\|\partial h_T/\partial h_t\|_F^2/n$ all equal $\nu_W$, so one timescale
# $\tau = -1/\log\nu_W$ governs signal propagation, gradient stability and memory bias (Secs. 1-2).
# Once the network is nonlinear they part, and the chapter measures which one still predicts the
# gradient decay (Sec. 3). Finally the two implicit biases, the $\rho$-weighted one of the linear RNN and
# the $\ell_2$ one of the deep linear network, are compared on the same data (Sec. 4). They are two
# different mechanisms that both end on a minimum-norm-type interpolant: the linear RNN in the kernel
# regime minimizes the change of its impulse response in the norm of a *fixed* tangent kernel; the deep
# linear network is not in the kernel regime (its kernel evolves), and lands on $X^+y$ because its
# predictor starts at zero and, from the initialization of its infinite-width limit, never leaves the row
# space of $X$.
#
# **The idea in one calculation.** Write $J=W/\sqrt n$, whose entries are independent, of mean zero and
# variance $\nu_W/n$. For any fixed vector $v$,
#
# $$\mathbb E\,\|Jv\|^2=\sum_i\mathbb E\Big(\sum_k J_{ik}v_k\Big)^2=n\cdot\frac{\nu_W}{n}\,\|v\|^2=\nu_W\|v\|^2 :$$
#
# one step of the recurrence multiplies the mean square of whatever it carries by $\nu_W$. Unrolled, the
# recurrence reads $h_T=\sum_k J^kFx_{T-k}$: an input $k$ steps old reaches the state through $J^k$, the
# gradient from step $T$ back to step $T-k$ passes through $(J^\top)^k$, and the impulse response of Emami
# et al., $L_k=CJ^kF/\sqrt n$, is the same power again. If the $k$ factors acted independently, each would
# contribute its $\nu_W$:
#
# $$\mathbb E\,\|J^kv\|^2\approx\nu_W^k\,\|v\|^2=e^{-k/\tau}\,\|v\|^2,\qquad \tau=-\frac1{\log\nu_W}.$$
#
# With $\nu_W=0.9$, $\tau\approx9.5$: after about ten steps the mean square of a signal, a gradient or a
# memory has fallen by a factor $e$. With $\nu_W=0.5$ that takes a step and a half. At $\nu_W=1$ nothing
# decays and the timescale is infinite: the critical point of all four diagnostics, beyond which everything
# grows. (The factors are not quite independent, the same $J$ acting at every step; Section 1 computes the
# exact correction, which vanishes as $n$ grows.) Each paper reads $\nu_W$ off a different object. The LSC
# looks at the eigenvalues of $J$, which the circular law spreads uniformly over a disc whose edge lies at
# $\sqrt{\nu_W}$, so that the square of the largest modulus tends to $\nu_W$. Mean field looks at $\chi_1$,
# the mean squared singular value of one step, which is the calculation above. The implicit-bias paper looks
# at how fast the kernel weights $\rho_j$ fall from one lag to the next, and the gradient itself at how fast
# it decays.

# %% tags=["parameters"]
profile = "book"
nu_Ws = None
widths = None
seeds = None
T = None
k_max = None
mc_samples = None
nl_width = None
nl_T = None
sigma_v2 = None
minimal_mu_b = None
lags = None
equations = None
kernel_widths = None
kernel_seeds = None
gd_steps = None
kernel_nu_W = None
seed = None
device = None

# %% tags=["hide-input"]
import numpy as np
from IPython.display import Markdown, Math, display
from myst_nb import glue

from rnnbook.book.chapter import start
from rnnbook.book.params import Repeats, Param, at_least, positive, Steps
from rnnbook.synthesis import figures, frobenius_moments, linear_diagnostics
from rnnbook.synthesis import nonlinear_diagnostics, summaries, timescale, two_biases

# %% tags=["hide-input"]
NU = [0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.1, 1.2, 1.3]
WIDTHS = [16, 64], [32, 64, 128, 256], [64, 256, 1024]  # smoke, book, paper
SPEC = {
    "nu_Ws": Param(list, [0.5, 0.9, 1.3], NU, NU, positive, "> 0", item=float),
    "widths": Param(list, *WIDTHS, at_least(2), ">= 2", item=int),
    "seeds": Repeats(2, 6, 20, "networks (an interval needs two)", 2),
    "T": Param(int, 6, 10, 12, at_least(3), ">= 3 steps"),
    "k_max": Param(int, 3, 4, 5, at_least(2), ">= 2 Wick orders (at most 7)"),
    "mc_samples": Repeats(20000, 200000, 1000000, "Monte Carlo draws", 100),
    "nl_width": Param(int, 32, 128, 256, at_least(4), ">= 4"),
    "nl_T": Param(int, 6, 16, 24, at_least(4), ">= 4 steps"),
    "sigma_v2": Param(float, 0.1, 0.1, 0.1, positive, "> 0 input weight variance"),
    "minimal_mu_b": Param(float, 2.0, 2.0, 2.0, None, "gate bias of the minimalRNN"),
    "lags": Param(int, 12, 16, 24, at_least(3), ">= 3 lags J"),
    "equations": Param(int, 6, 8, 12, at_least(1), ">= 1, fewer than lags"),
    "kernel_widths": Param(
        list, [16, 64], [32, 128, 512], [64, 256, 1024], at_least(2), ">= 2", item=int
    ),
    "kernel_seeds": Repeats(2, 3, 10, "initializations", 2),
    "gd_steps": Steps(5000, 20000, 50000, "gd_steps (a cap: GD stops once converged)"),
    "kernel_nu_W": Param(float, 0.8, 0.8, 0.8, positive, "> 0"),
    "seed": Param(int, 0, 0, 0, at_least(0), ">= 0"),
}
P, ledger = start("synthesis/one_timescale", SPEC, globals())

# %% [markdown]
# ## 1. Four quantities, one number: the derivation
#
# **Mean field.** The slope of the variance map of a vanilla RNN with nonlinearity $\phi$ is
# $\chi_1 = \sigma_w^2\,\mathbb E[\phi'(u)^2]$ with $W\sim\mathcal N(0,\sigma_w^2/N)$ (the paper's
# Eq. 4 at $c=1$). Our $W/\sqrt n$ is their $W$ with $\sigma_w^2 = \nu_W$, and the linear network has
# $\phi(u)=u$. Exact at every width, the one-step mean squared singular value has mean $\nu_W$:

# %%
d = timescale.derive(P.k_max)
steps = d.latex()

# %% tags=["hide-input"]
display(Math(steps["chi1"]), Math(steps["frobenius"]))

# %% [markdown]
# **Implicit bias.** From the scale factors $\rho_j$ that the implicit-bias part derives from the
# variance recursions of the proof (`rnnbook.implicit_bias.scale_factors`), the ratio of consecutive
# factors is, exactly, $\nu_W$ times a factor $1 + a/(aj+b)$ that tends to one only as $j\to\infty$:

# %% tags=["hide-input"]
display(Math(steps["rho"]))

# %% [markdown]
# **Why one matrix reused makes a difference.** With an independent matrix at every step, the untied network
# of mean field, $\mathbb E\|J_k\cdots J_1v\|^2=\nu_W^k\|v\|^2$ exactly: each step averages out on its own.
# A recurrent network reuses one $J$, and $\mathbb E\|J^kv\|^2$ is then an average of products of $2k$
# entries of the same matrix. Wick's theorem evaluates such an average as a sum over the ways of pairing the
# $2k$ factors. The pairings that match every factor with its own partner in the transposed product give
# back $\nu_W^k$; the others exist only because the same entries recur, and they add corrections that are
# smaller by powers of $1/n$. A one-step quantity such as $\chi_1$ has no room for them and is exact at
# every width; a $k$-step quantity such as the gradient decay reaches $\nu_W$ only as the width grows.
#
# **Gradients.** The gradient from step $T$ back to $t = T-k$ is $\partial h_T/\partial h_t = J^k$.
# Wick's theorem (`rnnbook.synthesis.frobenius_moments`, an enumeration of the $(2k-1)!!$ pairings of the
# $2k$ Gaussian factors of $\operatorname{tr} W^k (W^\top)^k$) gives
# $\mathbb E\|W^k\|_F^2 = \nu_W^k P_k(n)$ **exactly** at every width, with the polynomials

# %% tags=["hide-input"]
for q in range(1, P.k_max + 1):
    display(
        Math(
            rf"P_{q}(n) = {frobenius_moments.sp.latex(frobenius_moments.wick_polynomial(q))}"
        )
    )
display(Math(steps["grad"]))

# %% [markdown]
# The per-step decay is therefore $\nu_W$ exactly only for the first step. After that the non-planar
# pairings put a factor $P_k(n)/n^{k+1} = 1 + c_k/n^2 + O(n^{-3})$ (at fixed $k$) on the $k$-step
# moment, with $c_k$ the coefficient of $n^{k-1}$ above, so the decay equals $\nu_W$ only as
# $n\to\infty$. The coefficient grows faster than $k^2$ ($c_2, \dots, c_6 = 2, 10, 28, 62, 118$). For the
# complex entries below the same coefficient is $c^{\mathbb C}_k = \binom{k+2}{4}$ for $k\le 6$ ($1, 5, 15, 35, 70$),
# about $k^4/24$, and the real $c_k$ is at least $c^{\mathbb C}_k$, since every complex pairing is a real one of the
# same weight.
# Not all of the correction comes from the pairings that tie a $W$ to a $W$ (not to a $W^\top$): a
# complex Ginibre matrix, whose entries have $\mathbb E W_{ij}^2 = 0$ and so no such pairings, still has
# the crossing pairings of a $W$ with a $W^*$, and about half of the leading correction:

# %%
for q in range(2, P.k_max + 1):
    pc = frobenius_moments.wick_polynomial(q, complex_entries=True)
    display(Math(rf"P^{{\mathbb C}}_{q}(n) = {frobenius_moments.sp.latex(pc)}"))

# %% [markdown]
# The leading coefficient of every $P_k$ is one, the free-probability statement
# $\varphi(c^k c^{*k}) = 1$ for a circular element $c$.
#
# **LSC.** The circular law puts the eigenvalues of $J$ uniformly in a disc; for such (R-diagonal)
# limits the outer radius of the disc is $\|J\|_{L^2(\varphi)} = \varphi(JJ^\top)^{1/2}$ (Haagerup and
# Larsen), and $\varphi(JJ^\top)=\nu_W$ is the exact one-step moment above. Here
# $\|J\|_{L^2(\varphi)}$ is the trace (normalised Frobenius) norm, not the operator norm written
# $\|J\|_2$ elsewhere in the book, which tends to $2\sqrt{\nu_W}$. The circular law is a statement about
# the bulk of the eigenvalues: by itself it gives only $\liminf_n r(J)\ge\sqrt{\nu_W}$ (a few outlying
# eigenvalues would not change the limit distribution). That the spectral radius converges to the edge
# needs a separate theorem ({cite:t}`geman1986spectral`, and {cite:t}`bai1986limiting` under a finite
# fourth moment). This step is quoted, not derived, and it is **asymptotic only**: the spectral radius of a
# finite matrix fluctuates around and above it.

# %% tags=["hide-input"]
display(Math(steps["radius"]), Math(steps["tau"]))
ledger.check("synthesis.timescale.derivation", **d.summary())

# %% [markdown]
# A Monte Carlo check of the exact finite-width moments at a tiny width, where the Wick correction is
# large (at $n=4$, $P_3(4)/4^4 = 1.69$): the sample means must agree with $\nu_W^kP_k(n)/n^{k+1}$ and
# disagree with the naive $\nu_W^k$.

# %%
wick = frobenius_moments.wick_check(4, P.k_max, 0.9, P.mc_samples, P.seed)

# %% tags=["hide-input"]
ledger.check("synthesis.timescale.wick", **wick)

# %% [markdown]
# ## 2. Four curves against one prediction
#
# For every width $n$, $\nu_W$ of the sweep and seed we draw one network from Eq. (4) of Emami et al.
# ($n_x=n_y=1$, $\nu_F=\nu_C=1$) and measure, batched over $(\nu_W,\text{seed})$:
# $r(J)^2$ (LSC), $\|J\|_F^2/n$ ($\chi_1$), the ratio $\Theta_{j+1}/\Theta_j$ of the diagonal of the
# empirical NTK for an impulse input at the last two lags $j = T-2, T-1$ (its limit is $\rho_j$;
# computed in closed form and checked against `torch.func` autodiff in the tests), and the per-step
# decay $(g_T/g_1)^{1/(T-1)}$ of $g_k = \|J^k\|_F^2/n$ (a Hutchinson estimate with 16 probes).

# %%
lin = linear_diagnostics.sweep(P.nu_Ws, P.widths, P.seeds, P.T, P.seed, device=P.device)
lin_summary = summaries.linear(lin)

# %% tags=["hide-input"]
fig = figures.four_curves(lin)

# %% [markdown]
# **Figure 1.** The four diagnostics (95% intervals over seeds) against $\nu_W$, one panel per width,
# with the common wide-limit prediction $\nu_W$ (grey line) and the exact finite-lag ratio
# $\rho_{j+1}/\rho_j$ (dotted). $\chi_1$ lies on the line at every width (it is exact); the gradient
# decay approaches it as $n$ grows (the largest relative deviation over the sweep is
# {claim}`synthesis.timescale.gradient-decay:values.grad_decay_dev_small` at the smallest width,
# {claim}`synthesis.timescale.gradient-decay:values.grad_decay_dev_large` at the largest). The squared
# spectral radius lies above the line and approaches it slowly as $n$ grows, the asymptotic member of the
# four. The NTK ratio follows the dotted curve, which
# reaches $\nu_W$ only at long lags. Criticality ($\nu_W=1$) is the same point for all four.
#
# **How to read Figure 1.** Each panel is one width, and the panels run from narrow to wide networks. Along
# the horizontal axis is the variance $\nu_W$ of the recurrent weights; on the vertical axis, the factor by
# which each diagnostic says a squared signal changes in one step: below 1 it fades, above 1 it grows. A
# diagnostic that sits on the grey line in every panel measures the one number of the calculation above
# exactly; one that closes in on the line from panel to panel measures it only in the wide limit; one that
# keeps its distance measures something else. The dotted curve is what the kernel ratio should be at the
# finite lag the experiment can reach.

# %% tags=["hide-input"]
for name in ("radius", "chi1", "rho-ratio", "gradient-decay"):
    ledger.check(f"synthesis.timescale.{name}", seeds=P.seeds, **lin_summary)

# %% [markdown]
# ## 3. Where they part: a tanh RNN and a gated cell
#
# The same diagnostics, now for the vanilla tanh RNN and the minimalRNN of Chen et al. (Eq. 5, a gated
# cell with update gate $u_t = \sigma(e_t)$), both in the mean-field parametrisation with
# $\sigma_w^2 = \nu_W$, driven by Gaussian inputs (`rnnbook.synthesis.nonlinear_diagnostics`). The
# theories now make different predictions: the linear theory (and with it the implicit-bias ratio
# $\rho_{j+1}/\rho_j\to\nu_W$) predicts $\nu_W$; mean field predicts $\chi_1$ at its fixed point
# (`rnnbook.mean_field.theory`); the LSC looks at the radius of each transition derivative. The
# measured targets are the per-step decay of the gradient $\|\partial h_T/\partial h_{T-k}\|_F^2$ and of
# the memory $\|\partial h_T/\partial x_{T-k}\|_F^2$ (the squared impulse response of the linearised
# network).
#
# **Why they part.** A nonlinearity puts a diagonal factor into every step. For the tanh RNN the one-step
# Jacobian is $J_t=\mathrm{diag}\big(\phi'(e_t)\big)\,W/\sqrt n$, and the calculation of the introduction,
# with the derivatives taken independent of the weights as mean field does, gives
#
# $$\mathbb E\,\|J_tv\|^2\approx\nu_W\,\mathbb E\big[\phi'(e)^2\big]\,\|v\|^2=\chi_1\|v\|^2 .$$
#
# The factor $\mathbb E[\tanh'^2]$, below one as soon as the units saturate, is exactly what the linear
# prediction leaves out; it depends on how strongly the inputs and the recurrence drive the units, which is
# why mean field evaluates it at the fixed point of the pre-activation variance. For the gated minimalRNN,
# $J_t=\mathrm{diag}(u_t)+\mathrm{diag}(a_t)W$ (Chen et al., Eq. 10): a unit whose gate $u$ is near one
# copies its own state forward whatever $W$ does, and in $\chi_1=\mathbb E[u^2]+\sigma_w^2\,\mathbb E[a^2]$
# (their Eq. 11) the gate's term does not involve $\nu_W$ at all. One number still gives the average decay
# per step, but it is no longer $\nu_W$, and the eigenvalues of a Jacobian whose diagonal is not random no
# longer tell that average.

# %%
kw = dict(seeds=P.seeds, T=P.nl_T, seed=P.seed, sigma_v2=P.sigma_v2, device=P.device)
tanh = nonlinear_diagnostics.sweep("tanh", P.nu_Ws, P.nl_width, **kw)
gated = nonlinear_diagnostics.sweep(
    "minimal", P.nu_Ws, P.nl_width, mu_b=P.minimal_mu_b, **kw
)
nl = {c: summaries.nonlinear(s) for c, s in (("tanh", tanh), ("minimal", gated))}

# %% tags=["hide-input"]
fig = figures.nonlinear_panels([tanh, gated])

# %% [markdown]
# **Figure 2.** Measured per-step decays (95% intervals over seeds) against the predictions of the three
# theories. For the tanh RNN, saturation makes $\chi_1 = \nu_W\mathbb E[\tanh'^2] < \nu_W$: the linear
# line overestimates, while the mean-field $\chi_1$ tracks the decay and the measured squared local
# radius follows it a little above (as the finite-width radius does in the linear case). With this input drive
# $\chi_1<1$ over the whole sweep: the critical point of the tanh network has moved beyond
# $\nu_W = 1.3$. For the gated cell the decay hardly depends on $\nu_W$; it is set by the gates. Its
# Jacobian $\mathrm{diag}(u_t) + \mathrm{diag}(a_t)W$ is dominated by its non-random diagonal, its spectral
# radius is set by the largest gate values $u$ (the units that keep most of their state, $u$ near 1), and
# it no longer tells the average decay: only $\chi_1$ does.
#
# **How to read Figure 2.** The axes are those of Figure 1, one panel per cell. There are now two lines to
# compare the markers with: the grey diagonal, the linear prediction $\nu_W$, and the dashed curve, the
# mean-field $\chi_1$ computed from the cell's own equations. Where the two lines part, the markers choose
# between them. The dotted horizontal line at 1 separates fading from growth: a cell whose markers stay
# below it over the whole sweep never reaches its critical point in the range of $\nu_W$ shown.

# %% tags=["hide-input"]
ledger.check(
    "synthesis.nonlinear.chi1-predicts",
    **{
        f"{c}_{k}": v[f"{m}"]
        for c, v in nl.items()
        for k, m in (
            ("grad", "grad_vs_chi1"),
            ("mem", "memory_vs_chi1"),
            ("chi1", "chi1_measured_vs_theory"),
        )
    },
    n=P.nl_width,
    n_seeds=P.seeds,
    seeds=P.seeds,
)

# %% tags=["hide-input"]
ledger.check(
    "synthesis.nonlinear.linear-fails",
    seeds=P.seeds,
    **{f"{c}_nu": v["grad_vs_nuW"] for c, v in nl.items()},
)
ledger.check(
    "synthesis.nonlinear.lsc-radius",
    seeds=P.seeds,
    **{f"{c}_r": v["grad_vs_radius2"] for c, v in nl.items()},
)

# %% [markdown]
# ## 4. Two implicit biases, two mechanisms
#
# **In words.** Both models of this section fit more lags than there are equations, so infinitely many
# impulse responses fit the data exactly, and the question is which one training picks. Gradient descent
# answers it through where it starts and through the geometry of its steps. A model trained in its kernel
# regime moves as little as it can from its start, distance being measured by its tangent kernel. For the
# wide linear RNN that kernel is diagonal in the lags, with weights $\rho_j$ that eventually fall by a
# factor $\nu_W$ per lag (Eqs. 21-22 of Emami et al.), so a change at a long lag costs much more than the
# same change at a short one: this is their implicit bias towards short memory (Sec. 4). The deep linear
# network of Chizat et al. ends on the interpolant of smallest plain Euclidean norm, by a different route
# that the second half of this section makes precise. Both results fit one formula; what fixes the answer
# differs.
#
# **The derivation.** Linearise the RNN's impulse response at its initialization,
# $h(\theta) = h^0 + G(\theta-\theta_0)$ with $G = \partial h/\partial\theta$, and run GD on
# $\tfrac12\|Xh-y\|^2$. Every gradient $G^\top X^\top(Xh-y)$ lies in the range of $G^\top X^\top$, so the
# parameter change stays there, and GD converges to the smallest parameter change that interpolates;
# its impulse response is $h^0 + KX^\top(XKX^\top)^{-1}(y-Xh^0)$ with the tangent kernel $K = GG^\top$.
# Which interpolant is that? Minimize $\sum_j (h_j-h^0_j)^2/d_j$ subject to $Xh=y$ with a Lagrangian
# (here $J=3$ lags, $m=2$ equations, all symbolic) and solve the KKT system with sympy:

# %%
kkt = two_biases.derive_weighted_min_norm(3, 2)

# %% tags=["hide-input"]
display(Math(r"\mathcal L = " + two_biases.sp.latex(kkt.lagrange)))
display(
    Math(
        r"h^{\rm KKT} - \left(h^0 + DX^\top(XDX^\top)^{-1}(y - Xh^0)\right) = "
        + two_biases.sp.latex(kkt.difference.T)
    )
)

# %% [markdown]
# So with $D = K$ the kernel-regime RNN lands on the interpolant closest to $h^0$ in the $K^{-1}$
# norm. In the wide limit $K\to\mathrm{diag}(\rho_j)$ (Theorem 3.3(b) of Emami et al.): the RNN minimizes
# $\sum_j |h_j-h^0_j|^2/\rho_j$, and long lags, with small $\rho_j$, are expensive to move.
#
# The deep linear network of Chizat et al. gets to its minimum-norm solution by another route. Its
# infinite-width limit is *not* a kernel regime: its tangent kernel is $3I$ at initialization only and then
# evolves, growing with the solution ({doc}`/notebooks/infinite_width/limit_flow`: $R_\infty\succeq 3I$), so
# it minimizes no fixed kernel norm. What it keeps is a subspace. The predictor starts at $0$ and moves as
# $\dot\lambda \propto -R_t\,\xi_t$, with $\xi_t$ the loss gradient (a combination of the data rows) and
# $R_t$ the evolving kernel of their Eq. (5.17), which need not keep the row space of $X$. Chizat et al.
# prove that from the initialization of the infinite-width limit the predictor does stay in it
# (Proposition 5.3), where the only interpolant is $X^+y$ (Theorem 2.3), whatever the kernel did on the
# way. A zero start alone is not enough (the point of their Remark 5.4, made there from a nonzero
# start): a two-layer linear network $\lambda = Az$ on
# the one sample $x = e_1$, $y = 1$, started at $A = \begin{pmatrix}1&1\\1&1\end{pmatrix}$,
# $z = (1,-1)$, has $\lambda(0) = 0$ and leaves $\mathrm{span}(e_1)$ at once:

# %%
v = two_biases.two_layer_velocity([[1, 1], [1, 1]], [1, -1], x=[1, 0], y=1)
display(Math(r"\dot\lambda(0) = " + two_biases.sp.latex(v.T)))

# %% [markdown]
# The two results **coincide** in form: $X^+y$ is the formula above with $D = I$, $h^0 = 0$. They
# **differ** in what fixes the answer: for the kernel-regime RNN the kernel at initialization (the
# weights $\rho_j$) and the random start $h^0$; for the deep linear network the initialization of its
# limit, which keeps the predictor in the row space, not the (changing) kernel.
#
# **The data.** An impulse response of $J$ lags fitted from $m<J$ equations
# $y_i = \sum_j h^*_j u_{i+J-1-j}$, $u\sim\mathcal N(0,1)$, with a slowly decaying teacher $h^*$.

# %%
X, y, h_true = two_biases.convolution_data(P.lags, P.equations, P.seed)
fit = two_biases.kernel_gd(
    X, y, P.kernel_widths[-1], P.kernel_nu_W, P.seed, P.gd_steps, device=P.device
)
deep = two_biases.deep_linear(X, y, h_true, trunc=max(50, 3 * P.lags), t_end=10.0)
h_l2 = np.linalg.pinv(X) @ y
h_rho0 = two_biases.weighted_min_norm(X, y, np.zeros(P.lags), fit.rho)

# %% tags=["hide-input"]
print(
    f"kernel GD: final loss {fit.loss:.2e}; deep linear limit: distance to X+y {deep.final:.1e}"
)

# %% tags=["hide-input"]
fig = figures.impulse_responses(h_true, deep.sol.lam[-1], h_rho0, fit)
glue("kw_n", P.kernel_widths[-1], display=False)

# %% [markdown]
# **Figure 3.** Both models interpolate the same $m$ equations. The deep linear limit (blue) ends on the
# minimum-$\ell_2$ interpolant $X^+y$; the $\rho$-weighted interpolant around zero (orange) spends more of
# its norm on the lags where $\rho_j$ is large and less on the long lags, where $\rho_j$ is small. The
# kernel-regime RNN (green, width {glue:text}`kw_n`) starts from its random initial response $h^0$
# (dotted, Gaussian with lag-dependent variance by Theorem 3.3(a) of Emami et al.) and adds the
# $\rho$-weighted correction: the kernel-regime bias fixes the *change* $h-h^0$, so the randomness of the
# initialization stays in the learned response wherever the data do not constrain it. Lower panel: the
# weights $\rho_j$ at the chosen $\nu_W$ (not monotone: the $j\nu_F\nu_W^{j-1}$ term of Eq. 21 first rises).
#
# **How to read Figure 3.** Read it from left, the short lags, to right, the long ones. All three learned
# responses satisfy the same equations, so they differ only in directions the data do not see; where they
# part is where each model's bias shows. The blue and orange curves are both the smallest response that
# fits, measured from zero, and differ only in the norm: plain, or weighted by $1/\rho_j$, which makes norm
# cheap where $\rho_j$ is large, at the short lags. The green curve also carries its random start, so it
# wanders where neither the data nor the correction reach. The teacher is there to show what the equations
# were made from, not what either bias is expected to recover: with fewer equations than lags, no method can
# be sure to recover it.

# %% tags=["hide-input"]
gd, lim = two_biases.width_sweep(
    X, y, P.kernel_widths, P.kernel_nu_W, P.kernel_seeds, P.seed, P.gd_steps, P.device
)
fig = figures.kernel_convergence(P.kernel_widths, gd, lim)

# %% [markdown]
# **Figure 4.** Relative distance of the kernel-GD impulse response to the closed form with the
# empirical kernel of the same network (blue: GD reaches it to rounding) and to the wide-limit closed
# form with $K=\mathrm{diag}(\rho)$ (orange: the gap is the finite-width fluctuation of the NTK and
# shrinks as the width grows, roughly like $n^{-1/2}$, dotted), mean over seeds and every seed (dots).
#
# **How to read Figure 4.** The two curves separate two questions. The blue one asks whether gradient
# descent found what the kernel argument says it finds for *this* network, the interpolant closest to its
# start in the metric of its own tangent kernel; it should sit at rounding error at every width. The orange
# one asks how far this network's kernel is from the wide limit $\mathrm{diag}(\rho_j)$ that Theorem 3.3(b)
# describes; it should shrink as the width grows, at the rate of the kernel's random fluctuations. Together
# they say that the gap between a finite network and the $\rho$-weighted interpolant is a matter of width,
# not of optimization.

# %% tags=["hide-input"]
ledger.check(
    "synthesis.bias.kernel-gd",
    derived=kkt.matches,
    gd_max=float(gd.max()),
    widths=P.kernel_widths,
    n_seeds=P.kernel_seeds,
    seeds=P.kernel_seeds,
    steps=P.gd_steps,
)
ledger.check(
    "synthesis.bias.rho-weighted",
    lim_small=float(lim[0].mean()),
    lim_large=float(lim[-1].mean()),
    n_small=P.kernel_widths[0],
    n_large=P.kernel_widths[-1],
    seeds=P.kernel_seeds,
)

# %%
gap = two_biases.relative(h_l2, h_rho0, h_l2)
ledger.check(
    "synthesis.bias.min-l2",
    final=deep.final,
    gap=gap,
    start=float(np.linalg.norm(deep.sol.lam[0])),
)
half = P.lags // 2

# %% tags=["hide-input"]
ledger.check(
    "synthesis.bias.weighting",
    **{
        f"tail_{k}": two_biases.tail_mass(h, half)
        for k, h in (("rho", h_rho0), ("l2", h_l2), ("true", h_true))
    },
)

# %% [markdown]
# ## What was found
#
# For the linear RNN the derivation of Section 1 holds: the four diagnostics are one number, $\nu_W$, in the
# wide limit, and they differ only in how they approach it, as the boxes of Section 2 record ($\chi_1$ exact
# at every width {claim}`synthesis.timescale.chi1`, the gradient decay as the width grows
# {claim}`synthesis.timescale.gradient-decay`, the kernel ratio at long lags
# {claim}`synthesis.timescale.rho-ratio`). Once the network is nonlinear the one number is the mean-field
# $\chi_1$ at the network's own fixed point, not $\nu_W$: the claim that $\chi_1$ still predicts the decay
# of gradients and memories is {claim}`synthesis.nonlinear.chi1-predicts`, the claim that $\nu_W$ no longer
# does is {claim}`synthesis.nonlinear.linear-fails`. The two implicit biases end on interpolants of the same
# form for different reasons, and on the same data they are different impulse responses: the kernel-regime
# RNN keeps its random start and leans towards short lags, the deep linear network lands on $X^+y$
# ({claim}`synthesis.bias.min-l2`, {claim}`synthesis.bias.weighting`).
#
# The practical reading, which is mean field's: to predict how fast gradients and memories fade in a network
# at initialization, compute the mean squared singular value of its one-step Jacobian at the states the
# network actually visits, its $\chi_1$. The weight variance $\nu_W$, the decay of the kernel weights and
# the eigenvalues of the transition derivative all coincide with that number for the linear network in the
# wide limit, and part from it once the network is not linear. How well $\chi_1$ itself does here is the box
# of Section 3; over many steps of a network whose weights are shared by all steps it is an approximation
# too ({doc}`/notebooks/mean_field/dynamical_isometry`, Figure 5).

# %% tags=["hide-input"]
display(Markdown(ledger.table()))
