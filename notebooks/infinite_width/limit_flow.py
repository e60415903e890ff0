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
# # The limit model in continuous time: scale, plateaus and the min-norm predictor
#
# ```{findings}
# ```
#
# **What the paper claims.** Sec. 5 of {cite:t}`chizat2022infinite` studies the gradient flow of the limit energy
# $\mathcal E(A,G,B)=\int L(B^\top(\mathcal A+G)Ax,y)\,dp$ (2.11), i.e. the $\tau\to0$ limit of the GD (2.10), started from
# the deterministic initialization (2.7)-(2.8):
#
# :::{prf:theorem} Theorem 2.3 of Chizat et al.
# :nonumber:
# :label: thm-chizat-2-3
# For the square loss $L(\hat y,y)=\tfrac12|y-\hat y|^2$ and data with finite second moments, the predictor
# $\lambda^\infty(t)$ of the gradient flow converges at an exponential rate to the minimal-$\ell_2$-norm minimizer of
# the risk $\lambda\mapsto\tfrac12\int|\lambda^\top x-y|^2dp$.
# :::
#
# Proposition 5.3 explains the selection: $\lambda^\infty(t)$ never leaves the span of the data; Proposition 5.5 gives
# the rate, $\mathcal E_t-\mathcal E_\infty\le(\mathcal E_0-\mathcal E_\infty)e^{-c\,t}$. Fig. 2.2 approximates the flow by
# GD with $\tau=0.001$ and multiplies the predictor by a scale $s\in\{0.01,0.1,1,10\}$: (A) the paths of $\lambda^\infty$ are
# *non-linear* (unlike the linear dynamics $\dot\lambda=-\int x(x^\top\lambda-y)\,dp$, $\lambda(0)=0$, Eq. 2.17, reached as
# $s\to\infty$) but have the same endpoints; (B) for small scales $s<1$ the loss starts with a plateau.
#
# **What this chapter does.** It integrates the flow (5.1) of the truncated limit model with an adaptive
# high-order solver (and checks the paper's GD with $\tau=0.001$ against it), measures the distance of the paths to
# the linear path for a range of scales, the plateau, and the rate and the limit of the convergence against
# `numpy.linalg.pinv` and against the rate predicted by the kernel (5.17) at the end of training.

# %% tags=["parameters"]
profile = "book"
d = None
n = None
inputs = None
scales = None
t_end = None
trunc = None
gd_check_time = None
draws = None
data_seed = None

# %% tags=["hide-input"]
import numpy as np
from IPython.display import Markdown, display
from myst_nb import glue

from rnnbook.book.chapter import start
from rnnbook.book.params import Repeats, Param, ParameterError, at_least, positive
from rnnbook.infinite_width import figures, min_norm, predictor_scale, regression

inputs_ok = {"scaled", "unit"}.__contains__
S = [0.01, 0.1, 1.0, 10.0, 100.0, 1000.0, 10000.0]
SPEC = {
    "d": Param(int, 10, 10, 10, at_least(1), ">= 1; input dimension (the paper: 10)"),
    "n": Param(int, 5, 5, 5, at_least(1), ">= 1; training samples (n < d)"),
    "inputs": Param(str, "unit", "unit", "unit", inputs_ok, "'unit' or 'scaled'"),
    "scales": Param(list, [0.1, 1.0, 100.0], S[:6], S, positive, "> 0", item=float),
    "t_end": Param(float, 10.0, 10.0, 20.0, positive, "> 0; first horizon of the flow"),
    "trunc": Param(int, 40, 50, 80, at_least(12), ">= 12; truncation N of the limit"),
    "gd_check_time": Param(float, 0.5, 3.0, 10.0, positive, "> 0; GD vs flow time"),
    "draws": Repeats(1, 5, 20, "data sets for Theorem 2.3"),
    "data_seed": Param(int, 0, 0, 0, at_least(0), ">= 0; seed of the first data set"),
}
P, ledger = start("infinite_width/limit_flow", SPEC, globals())
if 1.0 not in P.scales:
    raise ParameterError(
        f"parameter 'scales' = {P.scales!r}: must contain 1.0 (Theorem 2.3)"
    )

# %% [markdown]
# ## Data, loss and the scale
#
# As in the previous chapter, $p$ is the empirical measure of $n<d$ samples, so the risk is the **mean**
# $\tfrac1{2n}\sum_i(\lambda^\top x_i-y_i)^2$ and its minimizers form an affine subspace; the minimal-norm one is $X^+y$.
# In continuous time there is no step-size constraint, so we can keep the printed inputs $x\sim\mathcal N(0,I_d)$.
#
# The scale: the predictor becomes $\lambda_s = s\,A^\top(\mathcal A+G)^\top B$ and the parameters follow (2.10) with
# $\xi$ evaluated at $\lambda_s$ (as in the authors' code). This is plain GD on the network whose initialization
# (the shift $\mathcal A$ included) is multiplied by $s^{1/3}$, with the step multiplied by $s^{-1/3}$ (a test of the
# package checks this identity). Then $\dot\lambda_s = -s\,R(\theta)\,\xi$ with the kernel $R$ of (5.17), $R(\theta_0)=3I_d$:
# as $s\to\infty$ the parameters barely move and the path becomes that of the linear dynamics (2.17); for
# $s<1$ the motion starts slowly. Time changes do not change paths, so for $s>10$ we integrate in the time
# $u=st$ (where the flow tends to $\dot\lambda=-3\xi$).

# %%
x_std = regression.input_std(P.d, P.inputs)
data = regression.gaussian_regression(P.d, P.n, seed=P.data_seed, x_std=x_std)
lam_hat = data.min_norm()
nrm = float(np.linalg.norm(lam_hat))
z = np.linalg.eigvalsh(data.M)
print(
    f"non-zero eigenvalues of M: {np.round(z[z > 1e-10], 4)}; ||X^+ y|| = {nrm:.3f}; "
    f"||lambda*|| = {np.linalg.norm(data.lam_star):.3f}"
)
flows = predictor_scale.flows(data, P.scales, P.trunc, P.t_end)
lin_t, lin = predictor_scale.linear_reference(data)
# truncation check at the smallest scale and at s = 1, against 1.5 times the rows
trunc_dev = predictor_scale.truncation_deviation(data, flows, P.trunc)
shown = {s: f"{v:.1e}" for s, v in trunc_dev.items()}

# %% tags=["hide-input"]
print("truncation and integration check (max |lambda_N - lambda_1.5N|):", shown)

# %% [markdown]
# The paper approximates the flow by GD with $\tau=0.001$. Against the adaptive solver, over the first
# {glue:text}`gd_T` time units at $s=1$:

# %%
K_gd, gd_dev = predictor_scale.gd_deviation(data, P.gd_check_time, P.trunc)

# %% tags=["hide-input"]
glue("gd_T", P.gd_check_time, display=False)
glue("gd_dev", gd_dev, display=False)
print(f"max |lambda_GD(k tau) - lambda_flow(k tau)| over k <= {K_gd}: {gd_dev:.2e}")

# %% [markdown]
# The GD of the paper is within {glue:text}`gd_dev:.1e` of the flow, a first-order discretisation error: the two
# describe the same curves.
#
# ## Fig. 2.2A: the paths

# %% tags=["hide-input"]
fig = figures.flow_paths(flows, lin, lam_hat)

# %%
paths = predictor_scale.compare_paths(flows, lin, lam_hat)

# %% tags=["hide-input"]
display(Markdown(paths.table()))

# %% [markdown]
# **Figure 1.** Left: every path starts at $\lambda=0$ and ends at the minimal-norm interpolator, like the linear
# dynamics (dashed), but in between the non-linear dynamics bend away from it. Right: the distance of each point of
# a path (in all $d$ coordinates) to the linear path; it shrinks as $s$ grows and vanishes at both ends. The table
# gives the Hausdorff distance between each path and the linear path (polylines resampled every
# $10^{-4}\|X^+y\|$ along their length, so distances below about $10^{-4}$ are not resolved) and the distance of the
# endpoint to $X^+y$.

# %% tags=["hide-input"]
ledger.check("infinite-width.fig22.paths", **vars(P), **paths.values(), gd_dev=gd_dev)

# %% [markdown]
# ## Fig. 2.2B: the loss, and the plateau of small scales

# %% tags=["hide-input"]
lin_r = data.risk(lin)
fig = figures.flow_risk(flows, lin_t, lin_r, P.t_end, predictor_scale.GD_STEP)

# %%
plateau = predictor_scale.plateaus(flows, lin_t, lin_r)

# %% tags=["hide-input"]
display(Markdown(plateau.table()))

# %% [markdown]
# **Figure 2.** The risk along the flow (the time axis in units of the paper's GD iterations; left, the first 1500
# as in the paper). For $s<1$ the curves start flat: the *plateau fraction*, the time to lose the first 10% of the risk over the time to lose four decades,
# is far larger than for the linear dynamics, which has no plateau. The speeds of different $s$ are not comparable
# (the scale also changes the speed, as in the paper).

# %% tags=["hide-input"]
ledger.check("infinite-width.fig22.plateau", **plateau.values())

# %% [markdown]
# ## Theorem 2.3: exponential convergence to the minimal-norm predictor
#
# At $s=1$ the flow converges to $X^+y$. We measure (i) the final distance to `numpy.linalg.pinv(X) @ y`;
# (ii) the component of $\lambda(t)$ outside the row space of $X$ (Proposition 5.3 says it is zero for all $t$);
# (iii) the best global exponential constant $c^*=\inf_t -\log\big(\mathcal E_t/\mathcal E_0\big)/t$ ($\mathcal E_\infty=0$ since
# $n<d$ lets the risk interpolate), positive if the convergence is exponential from the start, as
# Proposition 5.5 states; (iv) the asymptotic rate, the slope of $\log\|\lambda(t)-X^+y\|$ at late times, against
# its prediction: near the end $\dot\lambda\approx-R_\infty M(\lambda-X^+y)$ with $R_\infty$ the kernel (5.17) at the final
# parameters, so the rate is the smallest non-zero eigenvalue of $R_\infty M$.


# %%
seeds = [P.data_seed] + [P.data_seed + 100 + i for i in range(P.draws - 1)]
sets = [regression.gaussian_regression(P.d, P.n, s, x_std=x_std) for s in seeds]
runs = [min_norm.converge(dat, P.trunc, P.t_end) for dat in sets]

# %% tags=["hide-input"]
fig = figures.min_norm_convergence(runs[0], nrm)
glue("c_star", runs[0].c_star, display=False)
glue("rate_fit", runs[0].rate_fit, display=False)
glue("rate_pred", runs[0].rate_pred, display=False)
glue("final_err", runs[0].final, display=False)
glue("d_minus_1", P.d - 1, display=False)

# %% tags=["hide-input"]
display(Markdown(min_norm.table(runs)))

# %% [markdown]
# **Figure 3.** On the first data set the distance to $X^+y$ falls from 1 to {glue:text}`final_err:.0e` of $\|X^+y\|$; the risk
# stays below $e^{-c^*t}$ with $c^*=$ {glue:text}`c_star:.3f` for all $t$, and the late slope
# ({glue:text}`rate_fit:.4f`) matches the smallest non-zero eigenvalue of $R_\infty M$ ({glue:text}`rate_pred:.4f`).
# The rows of the table are independent data sets; the last column is Proposition 5.1's conservation law,
# $\|A(t)\|^2-\|B(t)\|^2 = \|A(0)\|^2-\|B(0)\|^2=d-1=$ {glue:text}`d_minus_1`, at the final time.

# %% tags=["hide-input"]
ledger.check(
    "infinite-width.thm23.min-norm",
    **vars(P),
    **min_norm.values(runs),
    trunc_dev=max(trunc_dev.values()),
)

# %% tags=["hide-input"]
display(Markdown(ledger.table()))
