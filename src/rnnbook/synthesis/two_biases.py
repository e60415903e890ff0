"""Two implicit biases, two mechanisms that both end on a minimum-norm-type interpolant.

* Linear RNN in the kernel regime (Emami et al., Theorem 3.3): the impulse response h(theta) linearised at
  theta_0, h_0 + G (theta - theta_0), trained by GD on (1/2)||X h - y||^2. Every gradient
  G^T X^T (X h - y) lies in the row space of X G, so the iterates stay in theta_0 + range(G^T X^T) and
  converge to the min-norm parameter change; the impulse response converges to
  h_0 + K X^T (X K X^T)^{-1} (y - X h_0), K = G G^T, i.e. (:func:`derive_weighted_min_norm`) to the
  interpolant minimizing (h - h_0)^T K^{-1} (h - h_0). As n -> oo, K -> diag(rho_j) (Theorem 3.3(b)):
  the minimizer of sum_j |h_j - h_j^0|^2 / rho_j.
* The deep linear network of Chizat et al. in its infinite-width limit starts from the zero predictor and
  its gradient flow converges to the minimum l2-norm interpolant X^+ y (Theorem 2.3). This limit is not
  a kernel regime: its tangent kernel is 3 I only at initialization and then evolves (R_inf >= 3 I grows
  with the solution), so no fixed kernel norm is minimized. X^+ y is reached because the predictor
  starts at 0 and stays in the row space of X, whose only interpolant is X^+ y. That it stays there
  follows from the initialization of the limit (Chizat et al., Prop. 5.3), not from the zero start
  alone: the predictor moves as d lambda/dt = -R_t xi_t with xi_t in the row space, and the evolving
  kernel R_t (5.17) need not keep it there (Remark 5.4; :func:`two_layer_velocity` gives a two-layer
  network that leaves it from a zero predictor). The result coincides in form with the kernel
  formula at K = I, h_0 = 0; the mechanism differs.

Both are fitted here to the same under-determined system: m < J equations y_t = sum_j h_j u_{t-j} for an
impulse response h of length J.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import sympy as sp
import torch
from torch.func import jacrev

from rnnbook.implicit_bias import linear_rnn, scale_factors
from rnnbook.infinite_width import min_norm
from rnnbook.infinite_width.regression import Regression


@dataclass(frozen=True)
class WeightedMinNorm:
    lagrange: sp.Expr  # the Lagrangian
    solution: sp.Matrix  # h from solving the KKT system
    closed_form: sp.Matrix  # h_0 + D X^T (X D X^T)^{-1} (y - X h_0)
    difference: sp.Matrix  # simplified solution - closed_form

    @property
    def matches(self) -> bool:
        return all(sp.simplify(e) == 0 for e in self.difference)


@lru_cache(maxsize=None)
def derive_weighted_min_norm(J: int = 3, m: int = 2) -> WeightedMinNorm:
    """Minimize sum_j (h_j - h0_j)^2 / d_j subject to X h = y (m x J, symbolic) with a Lagrangian."""
    X = sp.Matrix(m, J, lambda i, j: sp.Symbol(f"x_{i}{j}", real=True))
    d = sp.symbols(f"d_0:{J}", positive=True)
    h = sp.Matrix(sp.symbols(f"h_0:{J}", real=True))
    h0 = sp.Matrix(sp.symbols(f"h^0_0:{J}", real=True))
    y = sp.Matrix(sp.symbols(f"y_0:{m}", real=True))
    mu = sp.Matrix(sp.symbols(f"mu_0:{m}", real=True))
    D = sp.diag(*d)
    L = sum((h[i] - h0[i]) ** 2 / d[i] for i in range(J)) - 2 * (mu.T * (X * h - y))[0]
    unknowns = list(h) + list(mu)
    eqs = [sp.diff(L, v) for v in h] + list(X * h - y)  # KKT: linear in (h, mu)
    M, rhs = sp.linear_eq_to_matrix(eqs, unknowns)
    h_sol = M.LUsolve(rhs)[:J, :]
    closed = h0 + D * X.T * (X * D * X.T).inv() * (y - X * h0)
    diff = (h_sol - closed).applyfunc(lambda e: sp.cancel(sp.together(e)))
    return WeightedMinNorm(L, h_sol, closed, diff)


def two_layer_velocity(A, z, x, y) -> sp.Matrix:
    """d lambda/dt of the gradient flow of the two-layer linear network lambda = A z on one
    sample (x, y), loss (lambda . x - y)^2 / 2, at the given A (d x d) and z (d), by sympy.

    The gradient flow moves A and z, and lambda as dA/dt z + A dz/dt. With
    A = [[1, 1], [1, 1]], z = (1, -1), x = e_1, y = 1 the predictor starts at 0 and its
    velocity has a component outside span(x): a zero start alone does not keep the
    predictor in the row space of the data (Chizat et al., Remark 5.4)."""
    A0, z0, x = sp.Matrix(A), sp.Matrix(z), sp.Matrix(x)
    d = A0.rows
    Asym = sp.Matrix(d, d, lambda i, j: sp.Symbol(f"a_{i}{j}"))
    zsym = sp.Matrix(sp.symbols(f"z_0:{d}"))
    loss = ((Asym * zsym).dot(x) - y) ** 2 / 2
    dA = -Asym.applyfunc(lambda a: sp.diff(loss, a))
    dz = -zsym.applyfunc(lambda v: sp.diff(loss, v))
    vel = dA * zsym + Asym * dz
    at = dict(zip(list(Asym) + list(zsym), list(A0) + list(z0)))
    return sp.simplify(vel.subs(at))


def weighted_min_norm(X, y, h0, K) -> np.ndarray:
    """h_0 + K X^T (X K X^T)^{-1} (y - X h_0): the interpolant closest to h_0 in the K^{-1} norm."""
    X, y, h0, K = (np.asarray(a, float) for a in (X, y, h0, K))
    K = np.diag(K) if K.ndim == 1 else K
    return h0 + K @ X.T @ np.linalg.solve(X @ K @ X.T, y - X @ h0)


def teacher(J: int) -> np.ndarray:
    """A long impulse response: h_j = 0.9^j sin(0.5 (j + 1)) (slow decay, sign changes)."""
    j = np.arange(J)
    return 0.9**j * np.sin(0.5 * (j + 1))


def convolution_data(
    J: int, m: int, seed: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(X, y, h*): m < J equations y_i = sum_j h*_j u_{i+J-1-j}, u ~ N(0, 1)."""
    if not 1 <= m < J:
        raise ValueError(f"m = {m}, J = {J}: need 1 <= m < J (under-determined)")
    u = np.random.default_rng(seed).standard_normal(m + J - 1)
    X = np.stack([u[i : i + J][::-1] for i in range(m)])
    h = teacher(J)
    return X, X @ h, h


@dataclass
class KernelFit:
    h0: np.ndarray  # impulse response at initialization
    h_gd: np.ndarray  # after GD on the linearised model
    h_kernel: np.ndarray  # closed form with the empirical kernel K = G G^T
    h_limit: np.ndarray  # closed form with K = diag(rho) (the wide limit)
    rho: np.ndarray
    loss: float  # final (1/2)||X h_gd - y||^2


def kernel_gd(
    X,
    y,
    width: int,
    nu_W: float,
    seed: int,
    steps: int,
    nu_F: float = 1.0,
    nu_C: float = 1.0,
    tol: float = 1e-13,
    device: str = "cpu",
) -> KernelFit:
    """GD on the linear RNN linearised at its initialization (Eq. 4), in parameter space, with the step
    1/lambda_max of the Hessian, for at most ``steps`` steps (it stops once ||X h - y|| <= tol ||y||).
    The network is drawn on a CPU generator; the Jacobian and GD run on ``device``."""
    J = X.shape[1]
    p0 = linear_rnn.init_params(width, 1, 1, nu_W, nu_F, nu_C, seed, device=device)
    f = lambda p: linear_rnn.impulse_response(p, J).reshape(J)  # noqa: E731
    h0 = f(p0)
    jac = jacrev(f)(p0)
    G = torch.cat([jac[k].reshape(J, -1) for k in p0], 1)  # (J, P)
    Xt = torch.as_tensor(X, dtype=G.dtype, device=G.device)
    yt = torch.as_tensor(y, dtype=G.dtype, device=G.device)
    A = Xt @ G  # (m, P)
    lr = 1.0 / torch.linalg.eigvalsh(A @ A.T)[-1]
    dtheta = torch.zeros(G.shape[1], dtype=G.dtype, device=G.device)
    r0 = Xt @ h0 - yt
    for step in range(steps):
        r = r0 + A @ dtheta
        if step % 50 == 0 and torch.linalg.norm(r) <= tol * torch.linalg.norm(yt):
            break
        dtheta -= lr * (A.T @ r)
    h_gd = (h0 + G @ dtheta).cpu().numpy()
    K = (G @ G.T).cpu().numpy()
    rho = scale_factors.rho(J, nu_W, nu_F, nu_C)
    h0n = h0.cpu().numpy()
    return KernelFit(
        h0n,
        h_gd,
        weighted_min_norm(X, y, h0n, K),
        weighted_min_norm(X, y, h0n, rho),
        rho,
        float(0.5 * np.sum((X @ h_gd - y) ** 2)),
    )


def relative(a, b, ref) -> float:
    """||a - b|| / ||ref||."""
    return float(np.linalg.norm(np.asarray(a) - b) / np.linalg.norm(ref))


def width_sweep(
    X,
    y,
    widths: list[int],
    nu_W: float,
    seeds: int,
    seed: int,
    steps: int,
    device: str = "cpu",
):
    """For each width and seed: GD vs the empirical-kernel closed form, and vs the wide-limit closed
    form, both relative to the size of the learned change ||h_limit - h_0||. Arrays (widths, seeds).
    GD runs on ``device``."""
    gd = np.zeros((len(widths), seeds))
    lim = np.zeros((len(widths), seeds))
    for a, n in enumerate(widths):
        for s in range(seeds):
            fit = kernel_gd(X, y, n, nu_W, seed + 1000 * s + n, steps, device=device)
            ref = fit.h_limit - fit.h0
            gd[a, s] = relative(fit.h_gd, fit.h_kernel, ref)
            lim[a, s] = relative(fit.h_gd, fit.h_limit, ref)
    return gd, lim


def deep_linear(X, y, h_true, trunc: int, t_end: float) -> min_norm.MinNormRun:
    """The infinite-width deep linear network's gradient flow on the same data (mean square loss)."""
    return min_norm.converge(Regression(X=X, y=y, lam_star=h_true), trunc, t_end)


def tail_mass(h, J_tail: int) -> float:
    """Fraction of sum_j h_j^2 carried by the last ``J_tail`` lags."""
    h = np.asarray(h, float)
    return float(np.sum(h[-J_tail:] ** 2) / np.sum(h**2))
