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
# # From width $m$ to the exact infinite-width limit
#
# ```{findings}
# ```
#
# **What the paper claims.** {cite:t}`chizat2022infinite` (Sec. 2) train the three-layer linear network
# $h^m(x) = V^\top W U x$ with $U\in\mathbb R^{m\times d}$, $W\in\mathbb R^{m\times m}$, $V\in\mathbb R^m$ in the
# maximal-update parametrization (μP): the initialization (2.1)
#
# $$U_{ij}(0)\sim\mathcal N(0,1),\qquad W_{ij}(0)\sim\mathcal N(0,\tfrac1m),\qquad V_i(0)\sim\mathcal N(0,\tfrac1{m^2}),$$
#
# and gradient descent with step $\tau$ and the layer-wise learning-rate factors $m$, $1$, $1/m$ (printed in red
# in the paper). When $m\to\infty$ the dynamics become those of an infinitely wide *deterministic* network
# $\chi(x) = B^\top(\mathcal A+G)Ax$ (2.6), with $A(0)=[I_d;0;\dots]$, $B(0)=[1;0;\dots]$, $G(0)=0$ (2.7)-(2.8) and a
# fixed shift matrix $\mathcal A$ (2.9) that stands for the random middle layer, trained by the GD (2.10).
#
# :::{prf:theorem} Theorem 2.2 of Chizat et al. (infinite-width limit)
# :nonumber:
# :label: thm-chizat-2-2
# For a fixed step $\tau$ and any number of steps, the scale-free weights
# $(\tilde U^m(k), \tilde W^m(k), \tilde V^m(k))$ of (2.3) converge in distribution to
# $\tilde U^\infty = \sum_i \Gamma_i A_i$, $\tilde W^\infty=\sum_{i,j}\tilde\Gamma_i\Gamma_j^\top G_{ij}$,
# $\tilde V^\infty = \sum_i\tilde\Gamma_i B_i$ (2.13), with $\Gamma_i,\tilde\Gamma_i$ independent standard Gaussian
# vectors, and the linear predictor $\lambda^m(k) = U^\top W^\top V$ (2.14) converges to
# $\lambda^\infty(k) = A^\top(\mathcal A+G)^\top B$ (2.15), quantitatively:
#
# $$\mathbb E\,\|\lambda^m(k)-\lambda^\infty(k)\|_2 \le C_{\varepsilon,k}\, m^{-1/2+\varepsilon}. \qquad (2.16)$$
# :::
#
# Fig. 2.1 illustrates this with $d=10$, $x\sim\mathcal N(0,I_d)$, $y=x^\top\lambda^*$, $\lambda^*\sim\mathcal N(0,I_d)$,
# $\tau=0.2$: (A) the trajectories $\lambda^m(k)$ approach $\lambda^\infty(k)$, which converges to the
# minimal-$\ell_2$-norm predictor; (B) the error (2.16) at $k=0$ and at large $k$ falls like $m^{-1/2}$;
# (C) the mean square of the entries of $\tilde V^m(k)$ follows $\|B(k)\|^2$. Sec. 2.5 adds that after $k$ steps only
# the first $d\cdot k$ rows of $A(k)$ and $B(k)$ are non-zero, so the limit can be trained exactly.
#
# **What this chapter does.** It derives the scale-free dynamics (2.5) from the red factors with sympy, builds the
# limit model and checks its truncation, fixes and states the loss normalisation, and then measures
# Fig. 2.1 and the law of the weights of Theorem 2.2 over widths and repetitions.

# %% tags=["parameters"]
profile = "book"
device = None
d = None
n = None
tau = None
inputs = None
steps = None
widths = None
reps = None
path_widths = None
path_reps = None
check_draws = None
trunc = None
sym_m = None
ng_init = None
ng_width = None
ng_step = None
ng_reps = None
data_seed = None
seed = None

# %% tags=["hide-input"]
import numpy as np
from IPython.display import Markdown, Math, display
from myst_nb import glue

from rnnbook.book.chapter import start
from rnnbook.book.params import Repeats, Param, at_least, positive, Steps
from rnnbook.infinite_width import convergence, figures, limit
from rnnbook.infinite_width import mup_symbolic, regression, step_size
from rnnbook.infinite_width import truncation, weight_law
from rnnbook.stats import power_law_fit

# %% tags=["hide-input"]
inputs_ok = {"scaled", "unit"}.__contains__
ng_ok = {"uniform", "rademacher"}.__contains__
W, PW = [16, 32, 64, 128, 256, 512, 1024, 2048], [10, 100, 1000]
SPEC = {
    "d": Param(int, 10, 10, 10, at_least(1), ">= 1; input dimension (the paper: 10)"),
    "n": Param(int, 5, 5, 5, at_least(1), ">= 1; training samples (n < d)"),
    "tau": Param(float, 0.2, 0.2, 0.2, positive, "> 0; GD step (the paper: 0.2)"),
    "inputs": Param(str, "scaled", "scaled", "scaled", inputs_ok, "'scaled' or 'unit'"),
    "steps": Steps(100, 1000, 1000, "the large k of Fig. 2.1B"),
    "widths": Param(list, [16, 64], W[:5], W, at_least(2), ">= 2", item=int),
    "reps": Repeats(3, 20, 50, "repetitions per width", 2),
    "path_widths": Param(list, [10, 50], PW, PW, at_least(1), ">= 1", item=int),
    "path_reps": Repeats(2, 3, 10, "repetitions in Fig. 2.1A"),
    "check_draws": Repeats(3, 10, 50, "draws of the step check"),
    "trunc": Param(int, 60, 80, 120, at_least(12), ">= 12; truncation of the limit"),
    "sym_m": Param(int, 2, 3, 3, at_least(1), ">= 1; width of the check of (2.5)"),
    "ng_init": Param(str, "uniform", "uniform", "uniform", ng_ok, "uniform|rademacher"),
    "ng_width": Param(int, 400, 3000, 10000, at_least(2), ">= 2; width in Fig. 2.3A"),
    "ng_step": Param(int, 20, 20, 20, at_least(0), ">= 0; the step k of Fig. 2.3A"),
    "ng_reps": Repeats(3, 10, 50, "repetitions in Fig. 2.3B", 2),
    "data_seed": Param(int, 0, 0, 0, at_least(0), ">= 0; seed of the data set"),
    "seed": Param(int, 0, 0, 0, at_least(0), ">= 0; seed of the networks"),
}
P, ledger = start("infinite_width/mup_limit", SPEC, globals())
device = P.device  # auto: CUDA when available (the draws are made on the CPU)

# %% [markdown]
# ## Why the red factors: the scale-free dynamics (2.5)
#
# The chain rule gives $\partial F/\partial U = W^\top V\xi^\top$, $\partial F/\partial W = V\xi^\top U^\top$,
# $\partial F/\partial V = WU\xi$ with $\xi = \int x\,L'(h(x),y)\,dp$. The paper runs GD with learning rates
# $\tau m$, $\tau$, $\tau/m$ and rewrites it in the scale-free variables (2.3),
# $\tilde U = U$, $\tilde W = m(W - W(0))$, $\tilde V = mV$, $Z=\sqrt m\,W(0)$, where it reads (2.5):
#
# $$\tilde U^+ = \tilde U - \tau\big(\tfrac{Z}{\sqrt m}+\tfrac{\tilde W}{m}\big)^{\!\top}\tilde V\xi^\top,\quad
# \tilde W^+ = \tilde W - \tau\tilde V\xi^\top\tilde U^\top,\quad
# \tilde V^+ = \tilde V - \tau\big(\tfrac{Z}{\sqrt m}+\tfrac{\tilde W}{m}\big)\tilde U\xi .$$
#
# Sympy differentiates $h = V^\top W U x$ entry by entry for an explicit width, applies the learning rates, changes
# variables, and subtracts the printed (2.5):

# %%
der = mup_symbolic.scale_free_updates(m=P.sym_m, d=2)
plain = mup_symbolic.scale_free_updates(m=P.sym_m, d=2, lr=(1, 1, 1))

# %% tags=["hide-input"]
display(*map(Math, der.latex_difference()), Math(plain.latex_ratio()))

# %% [markdown]
# The differences vanish: with the factors $m,1,1/m$ the scale-free weights move by $O(1)$ amounts per step,
# independently of $m$ (the $m$ in (2.5) only enters through $Z/\sqrt m$ and $\tilde W/m$, which stay of order one).
# With plain GD the first layer's update would shrink like $1/m$ and the last layer's grow like $m$.
#
# The paper's justification is that each layer then "contributes equally to the variations of the predictor".
# The change of $\lambda$ in one step is $-\tau\,(K_U+K_W+K_V)\,\xi$ with the layers' tangent kernels
# $K_U = m\|W^\top V\|^2 I_d$, $K_W = \|V\|^2U^\top U$, $K_V = \tfrac1m U^\top W^\top WU$ (learning rates included);
# at initialization each should tend to $I_d$:

# %%
kernel_reps = min(P.reps, 5)
kernels = convergence.layer_kernel_distances(
    P.widths, P.d, kernel_reps, P.seed + 10_000
)

# %% tags=["hide-input"]
display(Markdown(convergence.kernel_table(P.widths, kernels)))

# %% [markdown]
# (Spectral-norm distances, averaged over up to five draws.) All three kernels approach $I_d$ as $m$ grows,
# at the Monte Carlo rate $m^{-1/2}$.
#
# ## The limit model and its truncation
#
# The shift matrix (2.9), $\mathcal A_{ij}=1$ iff $i+d=j$ or $j+1=i$, shown here for $d=2$ and its first 8 rows:

# %% tags=["hide-input"]
display(Math(mup_symbolic.latex_shift(8, 2)))
display(Math(mup_symbolic.limit_kernel_at_init(2).latex()))

# %% [markdown]
# Sympy's Jacobian of $\lambda^\infty = A^\top(\mathcal A+G)^\top B$ at (2.7)-(2.8) confirms the finite-width picture in
# the limit: each of $A$, $G$, $B$ contributes $I_d$, so $R_0=3I_d$ (the three terms of (5.17) at $t=0$).
#
# **How many rows are non-zero?** $\mathcal A^\top$ moves a row index $i$ to $i+d$ and $\mathcal A$ moves it to $i+1$.
# From (2.10), the last non-zero rows $a_k$ of $A(k)$ and $b_k$ of $B(k)$ obey $a_{k+1}=\max(a_k,b_k+d)$,
# $b_{k+1}=\max(b_k,a_k+1)$ with $a_0=d$, $b_0=1$, hence
# $a_k = \tfrac{(d+1)k}{2}+d$ for even $k$ and $\tfrac{(d+1)(k+1)}{2}$ for odd $k$, and $b_k\le a_k$. We compare this with
# the rows actually non-zero in a run (generic data) and with the paper's $d\cdot k$:

# %%
x_std = regression.input_std(P.d, P.inputs)
data = regression.gaussian_regression(P.d, P.n, seed=P.data_seed, x_std=x_std)
support = truncation.measured_support(data, P.tau, steps=12)
display(Markdown(support.table()))
a1 = [limit.support_rows(1, k) for k in range(6)]

# %% tags=["hide-input"]
print(f"d = 1: a_k = {a1} for k = 0..5, versus d*k = {list(range(6))}")

# %% [markdown]
# So a truncation to $N = a_k$ rows is exact for $k$ steps, and any larger $N$ must give the *same* trajectory.
# We run $k$ steps with $N=a_k-1$, $a_k$, $a_k+1$ and $a_k+50$ and compare with $N=a_k$:

# %%
exact = truncation.exactness(data, P.tau, steps=(1, 2, 3, 5, 12))

# %% tags=["hide-input"]
display(Markdown(exact.table()))

# %% [markdown]
# (Largest $|\Delta\lambda|$ over the trajectory.) Beyond $a_k$ the trajectories agree to the last bit; one row less and
# they differ, at first clearly and then by less and less: the last rows carry tiny coefficients, and after about
# ten steps dropping one of them changes $\lambda$ by less than the float64 rounding. For long runs ($k=1000$ needs $a_k\approx 5500$ rows, a $5500\times5500$ matrix $G$) the paper notes
# (footnote 5) that truncating below this size costs an error that "decays exponentially in the width".
# We measure it against a truncation twice as large as the one used below:

# %%
lim = limit.train(data, P.tau, P.steps, N=P.trunc, every=1, keep=(P.steps,))
errs = truncation.truncation_errors(data, P.tau, P.steps, P.trunc, lim)

# %% tags=["hide-input"]
fig = figures.truncation(errs, lim.lam, P.steps, P.tau, P.d)
glue("trunc_used", P.trunc, display=False)
glue("trunc_used_err", errs.used_error, display=False)
glue("support_K", limit.support_rows(P.d, P.steps), display=False)
glue("n_samples", P.n, display=False)
glue("check_steps", P.steps, display=False)
glue("check_draws", P.check_draws, display=False)
glue("reps_n", P.reps, display=False)

# %% [markdown]
# **Figure 1.** The error of a truncated limit model falls off at least exponentially in the truncation $N$ (in
# steps, by many decades over a few dozen rows) until it hits rounding. Below we use $N=$ {glue:text}`trunc_used` instead of the
# exact {glue:text}`support_K`; its largest deviation from the twice-larger truncation over the whole run is
# {glue:text}`trunc_used_err:.1e`.

# %% tags=["hide-input"]
ledger.check(
    "infinite-width.fig22.truncation",
    **vars(P),
    formula_ok=support.formula_ok,
    paper_fail=support.paper_fail,
    beyond_exact=exact.beyond_exact,
    below_differs=exact.below_differs,
    errors=dict(zip(errs.N, errs.errors)),
)

# %% [markdown]
# ## The loss normalisation, and the step size of Fig. 2.1
#
# The paper writes the risk as $F=\int L(h(x),y)\,dp(x,y)$ with $p$ a probability measure and, for Theorem 2.3,
# $L(\hat y,y)=\tfrac12|y-\hat y|^2$. For a training set $p$ is the empirical measure, so **we use the mean over the
# $n$ samples**, $F(\lambda)=\tfrac1{2n}\sum_i(\lambda^\top x_i-y_i)^2$, $\xi = M\lambda-b$ with $M=\tfrac1n\sum_i x_ix_i^\top$.
# The paper does not give $n$; a pseudo-inverse is only needed when $n<d$, and we take $n=$ {glue:text}`n_samples`.
# The printed set-up ($x\sim\mathcal N(0,I_{10})$, $\tau=0.2$) is however not stable: we run the limit model for
# {glue:text}`check_steps` steps of size $0.2$ on {glue:text}`check_draws` draws of $\lambda^*$, with the mean, with the
# sum over samples, and with the population risk ($M=I$, $b=\lambda^*$, the case $n\to\infty$):


# %%
counts = step_size.outcomes(
    P.d, P.n, P.tau, P.steps, P.trunc, draws=P.check_draws, seed=P.data_seed
)
display(Markdown(step_size.table(counts, P.d, P.n, P.tau)))
first = step_size.setups(P.d, P.n)[step_size.PRINTED](P.data_seed + 1)
m = min(P.widths[-1], 128)
peak = step_size.finite_width_peak(first, m, P.tau, P.steps, seed=P.seed + 99)

# %% tags=["hide-input"]
print(
    f"finite width m = {m}, first draw, x ~ N(0, I), mean: "
    f"largest |lambda| over the run = {peak:.3g}"
)

# %% [markdown]
# ("Converges" means $\|\lambda^\infty(k)-X^+y\|\le10^{-6}\|X^+y\|$ at the last step; "diverges" means it blew up.)
# With $x\sim\mathcal N(0,I_{10})$ the step $0.2$ exceeds the stability limit of the deep model for most draws, with
# either normalisation and even for the population risk: near a minimizer the sharpness is about
# $\lambda_{\max}(R_\infty M)$ with $R_\infty\succeq 3I$ growing with $\|\lambda^*\|$, against the limit $2/\tau=10$. The
# authors' public code scales the inputs by $1/\sqrt d$ (and sums over samples); with $x\sim\mathcal N(0,I_d/d)$ and the
# mean, the same step is stable. Rescaling the inputs by $1/\sqrt d$ is the same as keeping $x\sim\mathcal N(0,I)$ and
# dividing $\tau$ by $d$: the trajectory of $\lambda$ is identical. **Below: $x\sim\mathcal N(0,I_d/d)$, mean over $n$
# samples, $\tau=0.2$.**

# %% tags=["hide-input"]
ledger.check(
    "infinite-width.fig21.setting",
    **vars(P),
    counts=counts,
    printed=counts[step_size.PRINTED]["converges"],
    scaled=counts[step_size.SCALED]["converges"],
)

# %% [markdown]
# ## Fig. 2.1: finite widths against the limit
#
# The data set of the rest of the chapter: $d$, $n$ as above, $x\sim\mathcal N(0,I_d/d)$, the mean square loss.
# For each width we train independent networks (independent $U(0)$, $Z$, $V(0)$) with the layer-wise learning rates,
# batched, and the limit model with the truncation checked above.

# %%
lam_hat = data.min_norm()
if not np.all(np.isfinite(lim.lam)) or np.linalg.norm(
    lim.lam[-1] - lam_hat
) > np.linalg.norm(lam_hat):
    raise RuntimeError(
        f"GD on the limit model does not converge with inputs={P.inputs!r}, "
        f"tau={P.tau}, n={P.n}: see the step-size table; "
        "use inputs='scaled' or a smaller tau"
    )
print(
    f"eigenvalues of M: {np.round(np.linalg.eigvalsh(data.M), 4)}; "
    f"||X^+ y|| = {np.linalg.norm(lam_hat):.3f}, "
    f"||lambda*|| = {np.linalg.norm(data.lam_star):.3f}"
)
print(
    f"limit model after {P.steps} steps: "
    f"||lambda_inf - X^+ y|| = {np.linalg.norm(lim.lam[-1] - lam_hat):.2e}, "
    f"risk = {lim.risk[-1]:.2e}"
)
runs = convergence.predictor_paths(
    data, P.tau, P.steps, P.path_widths, P.path_reps, seed=P.seed + 7, device=device
)
sup = convergence.sup_distance(runs, lim.lam)

# %% tags=["hide-input"]
fig = figures.predictor_paths(runs, lim.lam, lam_hat, P.steps, P.tau)
shown = ", ".join(f"{v:.3f} at m = {m}" for m, v in sup.items())
glue("sup_dist_table", shown, display=False)
glue("lim_final_err", float(np.linalg.norm(lim.lam[-1] - lam_hat)), display=False)

# %% [markdown]
# **Figure 2.** The predictor paths $\lambda^m(k)$ projected on the first two coordinates, each starting at a random
# $\lambda^m(0)$ (dots) of size about $\sqrt{d/m}$: as $m$ grows they hug the limit path (dashed), which starts at 0
# and ends at the minimal-norm interpolator $X^+y$ (diamond). The largest distance along the path, averaged over the
# draws, is {glue:text}`sup_dist_table`; the limit ends {glue:text}`lim_final_err:.1e` from $X^+y$.

# %% tags=["hide-input"]
values = convergence.path_values(sup, lim.lam[-1], lam_hat)
ledger.check("infinite-width.fig21.paths", **vars(P), **values, seeds=P.path_reps)

# %% [markdown]
# ### Fig. 2.1B: the rate $m^{-1/2}$ of (2.16)
#
# For every width of the sweep we train {glue:text}`reps_n` networks and measure $\|\lambda^m(k)-\lambda^\infty(k)\|$ at
# $k=0$ and $k=$ {glue:text}`check_steps`. The exponent is the slope of $\log\mathbb E\|\cdot\|$ on $\log m$, with a
# bootstrap interval over the repetitions. At $k=0$ the answer is known in closed form: $\lambda^m(0) =
# U^\top Z^\top\tilde V/m^{3/2}$ has $\mathbb E\|\lambda^m(0)\|^2 = d/m$ exactly.

# %%
mom = weight_law.weight_moments(lim.states[P.steps])
sw = convergence.sweep(
    data,
    lim.lam,
    P.tau,
    P.steps,
    P.widths,
    P.reps,
    seed=P.seed + 1000,
    moments=mom,
    device=device,
)
fit0 = power_law_fit(P.widths, sw.err0, seed=P.seed)
fitK = power_law_fit(P.widths, sw.errK, seed=P.seed)
law_fits = {
    key: power_law_fit(P.widths, sw.law[key], seed=P.seed + i)
    for key, i in (("U", 2), ("W", 3), ("V", 1), ("Wchange", 4))
}

# %% tags=["hide-input"]
curves = [("$k=0$", sw.err0, fit0), (f"$k={P.steps}$", sw.errK, fitK)]
title = "Fig. 2.1B: distance of the predictor to the limit"
fig = figures.rate(P.widths, curves, title, d=P.d)
glue("slope0", fit0.slope, display=False)
glue("slopeK", fitK.slope, display=False)
glue("slopeK_lo", fitK.ci95[0], display=False)
glue("slopeK_hi", fitK.ci95[1], display=False)
glue("ms_ratio", float((sw.err0**2).mean(1)[-1] * P.widths[-1] / P.d), display=False)

# %% [markdown]
# **Figure 3.** The distance to the limit falls like $m^{-1/2}$ both at initialization (fitted exponent
# {glue:text}`slope0:.3f`) and after the run (fitted exponent {glue:text}`slopeK:.3f`, 95% interval
# [{glue:text}`slopeK_lo:.2f`, {glue:text}`slopeK_hi:.2f`]): the bound (2.16) holds with $\varepsilon=0$, the Monte Carlo
# rate. At $k=0$ the measured $m\,\mathbb E\|\lambda^m(0)\|^2/d$ at the largest width is {glue:text}`ms_ratio:.3f` (exactly 1 in
# expectation). The shaded bands are one standard deviation over the draws.

# %% tags=["hide-input"]
common = dict(vars(P), trunc_err=errs.used_error, seeds=P.reps)
init = ledger.check(
    "infinite-width.eq216.init", **common, **convergence.fit_values(fit0), k=0
)
late = ledger.check(
    "infinite-width.eq216.late", **common, **convergence.fit_values(fitK), k=P.steps
)
display(init, late)

# %% [markdown]
# ### Fig. 2.1C: the mean square of the entries of $\tilde V^m(k)$
#
# By (2.13) the entries of $\tilde V^\infty(k) = \sum_i\tilde\Gamma_iB_i(k)$ are $\mathcal N(0,\|B(k)\|^2)$, so the empirical mean
# square $v_k=\frac1m\sum_j\tilde V_j(k)^2 = m\sum_jV_j(k)^2$ should follow $\|B(k)\|^2$:

# %% tags=["hide-input"]
fig = figures.v_mean_square(runs, lim.k, lim.b_sq)
glue("bsq_end", float(lim.b_sq[-1]), display=False)
glue("slopeV", law_fits["V"].slope, display=False)

# %% [markdown]
# **Figure 4.** The mean square of the entries of $\tilde V^m(k)$ grows from 1 to $\|B(k)\|^2\approx$
# {glue:text}`bsq_end:.3f` along the limit curve (dashed); the small widths scatter around it. Over the sweep of
# Fig. 2.1B the relative error at the last step falls like $m^{p}$ with $p=$ {glue:text}`slopeV:.2f`.

# %% tags=["hide-input"]
ledger.check(
    "infinite-width.fig21.v-mean-square",
    **vars(P),
    **convergence.fit_values(law_fits["V"], digits=4),
    b_sq=float(lim.b_sq[-1]),
    seeds=P.reps,
)

# %% [markdown]
# ## Theorem 2.2: the law of the weights
#
# The theorem is about the joint law of all the weights, not only the predictor. By (2.13), in the limit the rows of
# $\tilde U(k)$ are $\mathcal N(0, A(k)^\top A(k))$, the entries of $\tilde V(k)$ are $\mathcal N(0,\|B(k)\|^2)$ and those of
# $\tilde W(k)$ have second moment $\|G(k)\|_F^2$. At the last step of the sweep we compare the empirical second
# moments with these predictions (relative errors), test the Gaussianity of the pooled entries of $\tilde V$ at the
# largest width (Kolmogorov-Smirnov against $\mathcal N(0,\|B(k)\|^2)$), and measure remark (ii): the middle layer moves
# by $\|W(k)-W(0)\|_F/\|W(0)\|_F = O(m^{-1/2})$ although the predictor moves by $O(1)$.

# %% tags=["hide-input"]
ks_p = weight_law.gaussian_ks(sw.v_pool, mom["v_sq"])
fig = figures.weight_moments(P.widths, law_fits, P.steps)
glue("ks_p", ks_p, display=False)
glue("ks_n", int(sw.v_pool.size), display=False)

# %% [markdown]
# **Figure 5.** Every second moment of the scale-free weights approaches its limit prediction at the rate
# $m^{-1/2}$, and the relative motion of the middle layer vanishes at the same rate (remark (ii): its entries move
# by $O(1/m)$ against an initial size $O(1/\sqrt m)$, yet they move the predictor by $O(1)$). The
# {glue:text}`ks_n` pooled entries of $\tilde V$ at the largest width are compatible with
# $\mathcal N(0,\|B(k)\|^2)$ (KS $p=$ {glue:text}`ks_p:.3f`).

# %% tags=["hide-input"]
ledger.check(
    "infinite-width.thm22.law",
    **vars(P),
    **{f"slope_{k}": f.slope for k, f in law_fits.items()},
    **{f"ci_{k}": [round(v, 3) for v in f.ci95] for k, f in law_fits.items()},
    **{f"err_{k}": f.means[-1] for k, f in law_fits.items()},
    ks_p=ks_p,
    ks_n=sw.v_pool.size,
    seeds=P.reps,
)

# %% [markdown]
# ## Fig. 2.3: a non-Gaussian initialization
#
# Remark (iv) after Theorem 2.2 says the result only needs i.i.d. sub-Gaussian entries of unit variance, and remark (v)
# that for a non-Gaussian $\tilde U(0)$, $\tilde V(0)$ the same limit holds with $\Gamma_1$, $\tilde\Gamma_1$ replaced by
# $\tilde U(0)$, $\tilde V(0)$ themselves. The limit coefficients $A$, $G$, $B$ do not change, but an entry of $\tilde V(k)$ is now
# $B_1(k)\tilde V_j(0) + \mathcal N\big(0,\sum_{i\ge2}B_i(k)^2\big)$: non-Gaussian whenever $B_1(k)\ne0$, and Gaussian again once
# $B_1(k)\tilde V(0)$ is subtracted. Fig. 2.3 shows this with a centred uniform initialization at $k=20$, and (B) that the
# predictor still converges at the rate $m^{-1/2}$. We draw all three layers ($\tilde U(0)$, $Z$, $\tilde V(0)$) from the
# chosen law with unit variance.

# %%
ng = weight_law.non_gaussian_entries(
    data, P.tau, P.ng_width, P.ng_step, P.ng_init, seed=P.seed + 31, device=device
)
kurt = weight_law.excess_kurtosis_path(data, P.tau, P.steps, P.trunc, P.ng_init)

# %% tags=["hide-input"]
fig = figures.entry_law(ng, P.ng_init, P.ng_width, P.ng_step)
glue("ng_B1", float(ng.B[0]), display=False)
glue("ng_rest", ng.sigma_rest**2, display=False)
glue("ng_pV", ng.normal_V, display=False)
glue("ng_pres", ng.normal_resid, display=False)
glue("ng_ksV", ng.ks_V, display=False)
glue("ng_ksres", ng.ks_resid, display=False)
glue("ng_kurt_min", float(np.min(np.abs(kurt))), display=False)

# %% [markdown]
# **Figure 6.** The entries of $\tilde V(k)$ (blue) follow the predicted non-Gaussian law, the uniform law of
# $\tilde V(0)$ scaled by $B_1(k)=$ {glue:text}`ng_B1:.3f` and blurred by a Gaussian of variance $\sum_{i\ge2}B_i(k)^2=$
# {glue:text}`ng_rest:.3f`; D'Agostino's normality test rejects Gaussianity ($p=$ {glue:text}`ng_pV:.1e`) while a
# Kolmogorov-Smirnov test against the predicted law does not ($p=$ {glue:text}`ng_ksV:.2f`). After subtracting
# $B_1(k)\tilde V(0)$ (orange) the entries are Gaussian (normality $p=$ {glue:text}`ng_pres:.2f`, KS against the predicted
# Gaussian $p=$ {glue:text}`ng_ksres:.2f`). Along the whole limit trajectory $k\le$ {glue:text}`check_steps` the predicted law
# keeps an excess kurtosis of at least {glue:text}`ng_kurt_min:.2f` in absolute value: the weights never become Gaussian.

# %% tags=["hide-input"]
ledger.check(
    "infinite-width.fig23.law",
    **vars(P),
    normal_V=ng.normal_V,
    ks_V=ng.ks_V,
    normal_resid=ng.normal_resid,
    ks_resid=ng.ks_resid,
    B1=ng.B[0],
    kurtosis=np.min(np.abs(kurt)),
)

# %%
ng_sw = convergence.sweep(
    data,
    lim.lam,
    P.tau,
    P.steps,
    P.widths,
    P.ng_reps,
    seed=P.seed + 5000,
    dist=P.ng_init,
    device=device,
    desc="Fig. 2.3B widths",
)
ng_fit0 = power_law_fit(P.widths, ng_sw.err0, seed=P.seed + 5)
ng_fitK = power_law_fit(P.widths, ng_sw.errK, seed=P.seed + 6)

# %% tags=["hide-input"]
curves = [
    (f"{P.ng_init}, $k=0$", ng_sw.err0, ng_fit0),
    (f"{P.ng_init}, $k={P.steps}$", ng_sw.errK, ng_fitK),
]
title = f"Fig. 2.3B: rate with a {P.ng_init} initialization"
reference = (f"Gaussian, $k={P.steps}$ (Fig. 2.1B)", fitK.means)
fig = figures.rate(P.widths, curves, title, reference=reference)

# %% [markdown]
# **Figure 7.** With the non-Gaussian initialization the predictor converges to the *same* deterministic limit at
# the same rate $m^{-1/2}$ as with the Gaussian one (dotted).

# %% tags=["hide-input"]
ledger.check(
    "infinite-width.fig23.rate",
    **vars(P),
    **convergence.fit_values(ng_fitK),
    slope0=ng_fit0.slope,
    seeds=P.ng_reps,
)

# %% tags=["hide-input"]
display(Markdown(ledger.table()))
