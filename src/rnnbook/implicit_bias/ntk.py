"""Neural tangent kernels: the empirical NTK by autodiff (``torch.func``) and the limit kernel of
Emami et al., Theorem 3.3(b): K(x, x') = T(x)^T D(rho) T(x') (x) I_{n_y}  (Eqs. 18-20); the
convergence of the RNN's NTK to it as the width grows (:func:`convergence`), and Theorem 3.2, the exact
NTK of the scaled convolution (:func:`scaled_conv_check`).

:func:`convergence` draws its inputs and networks on CPU generators and takes the empirical NTK
(the Jacobian of all outputs with respect to the n^2 + (n_x + n_y) n parameters) on ``device``; the
kernels are compared on the CPU. :func:`scaled_conv_check` (T^2 n_x n_y parameters) runs on the CPU."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np
import torch
from torch import Tensor
from torch.func import jacrev

from rnnbook.plotting import progress

from . import conv_models, linear_rnn
from .rates import LogLogFit, loglog_fit
from .scale_factors import rho as rho_factors


def toeplitz(x: Tensor) -> Tensor:
    """Eq. (18): the block Toeplitz matrix T(x) of shape (T n_x, T) of a sequence ``x`` of shape (T, n_x).

    Block row j, column t holds x_{t-j} (zero for t < j).
    """
    T_, n_x = x.shape
    out = torch.zeros(T_, n_x, T_, dtype=x.dtype, device=x.device)
    for lag in range(T_):
        out[lag, :, lag:] = x[: T_ - lag].T
    return out.reshape(T_ * n_x, T_)


def limit_kernel(X1: Tensor, X2: Tensor, rho: Tensor) -> Tensor:
    """K[a, t, b, s] = (T(x_a)^T D(rho) T(x_b))_{t,s} for batches of shape (N, T, n_x); Eq. (20) without
    the trivial factor I_{n_y}. ``rho`` has shape (T,)."""
    T_, n_x = X1.shape[1:]
    D = torch.as_tensor(rho, dtype=X1.dtype, device=X1.device)
    D = torch.repeat_interleave(D, n_x)
    T1 = torch.stack([toeplitz(x) for x in X1])  # (N1, T n_x, T)
    T2 = torch.stack([toeplitz(x) for x in X2])
    return torch.einsum("aqt,q,bqs->atbs", T1, D, T2)


def empirical_ntk(
    fn: Callable[[dict[str, Tensor], Tensor], Tensor],
    params: dict[str, Tensor],
    X1: Tensor,
    X2: Tensor | None = None,
) -> Tensor:
    """Theta(x, x') = sum over parameters p of (df(x)/dp)(df(x')/dp)^T, by reverse-mode autodiff.

    ``fn(params, X)`` maps a batch to outputs of shape (N, T, n_y); returns (N1, T, n_y, N2, T, n_y).
    All outputs of a batch are differentiated at once (``jacrev`` vectorises the vector-Jacobian
    products with ``vmap``).
    """
    J1 = jacrev(fn)(params, X1)
    J2 = J1 if X2 is None else jacrev(fn)(params, X2)
    out = None
    for name, p in params.items():
        a = J1[name].reshape(*J1[name].shape[:3], p.numel())
        b = J2[name].reshape(*J2[name].shape[:3], p.numel())
        term = torch.einsum("atip,bsjp->atibsj", a, b)
        out = term if out is None else out + term
    return out


def relative_error(K_emp: Tensor, K_lim: Tensor) -> float:
    """||K_emp - K_lim (x) I||_F / ||K_lim (x) I||_F, with K_emp of shape (N, T, n_y, N, T, n_y)."""
    n_y = K_emp.shape[2]
    eye = torch.eye(n_y, dtype=K_lim.dtype, device=K_lim.device)
    full = torch.einsum("atbs,ij->atibsj", K_lim, eye)
    return float(torch.linalg.norm(K_emp - full) / torch.linalg.norm(full))


@dataclass
class Convergence:
    """The empirical NTK of width-n RNNs (1) drawn from (4) against the limit kernel (Theorem 3.3(b))."""

    widths: list[int]
    errors: np.ndarray  # (widths, seeds): relative Frobenius error to the limit kernel
    rho_hat: (
        np.ndarray
    )  # (widths, seeds, T): the diagonal Theta_jj of the impulse input
    rho: np.ndarray  # (T,): the derived rho_j of Eq. (21)
    fit: LogLogFit  # error ~ n^slope
    setup: dict  # T, n_x, n_y, nu_W, nu_F, nu_C, n_seeds

    @property
    def readout_deviation(self) -> np.ndarray:
        """|mean Theta_jj - rho_j| / rho_j at the largest width, per lag j."""
        return np.abs(self.rho_hat[-1].mean(0) - self.rho) / self.rho

    def summary(self) -> dict:
        return {
            "slope": self.fit.slope,
            "slope_ci": self.fit.ci95,
            "widths": list(self.widths),
            "mean_rel_error": [round(float(e), 4) for e in self.errors.mean(1)],
            "rho_readout_dev": round(float(self.readout_deviation.max()), 4),
            "err_at_n_max": float(self.errors[-1].mean()),
            "n_max": int(self.widths[-1]),
            **self.setup,
        }


def convergence(
    widths: list[int],
    seeds: int,
    *,
    T: int,
    n_x: int,
    n_y: int,
    n_inputs: int,
    nu_W: float,
    nu_F: float,
    nu_C: float,
    seed: int,
    device: str = "cpu",
) -> Convergence:
    """For each width n and seed s, the NTK of an RNN drawn from (4) (seed ``seed + 1000 s + n``) on
    ``n_inputs`` Gaussian sequences, the first replaced by an impulse on channel 0 (for which the limit
    of Theta_jj is rho_j), against the limit kernel built from the derived rho_j. The empirical
    NTKs are taken on ``device``."""
    g = torch.Generator(device="cpu").manual_seed(seed)
    X = torch.randn(n_inputs, T, n_x, generator=g, dtype=torch.float64, device="cpu")
    X[0] = 0.0
    X[0, 0, 0] = 1.0  # impulse
    Xd = X.to(device)
    rho = torch.tensor(rho_factors(T, nu_W, nu_F, nu_C), device="cpu")
    K_lim = limit_kernel(X, X, rho)
    errors = np.zeros((len(widths), seeds))
    rho_hat = np.zeros((len(widths), seeds, T))
    for a, n in enumerate(progress(widths, desc="widths")):
        for s in range(seeds):
            params = linear_rnn.init_params(
                n, n_x, n_y, nu_W, nu_F, nu_C, seed=seed + 1000 * s + n, device=device
            )
            K = empirical_ntk(linear_rnn.forward, params, Xd).cpu()
            del params
            errors[a, s] = relative_error(K, K_lim)
            rho_hat[a, s] = torch.diagonal(K[0, :, 0, 0, :, 0]).numpy()
    setup = dict(T=T, n_x=n_x, n_y=n_y, nu_W=nu_W, nu_F=nu_F, nu_C=nu_C, n_seeds=seeds)
    fit = loglog_fit(np.array(widths), errors)
    return Convergence(list(widths), errors, rho_hat, rho.numpy(), fit, setup)


@dataclass
class ConvNTKCheck:
    """Theorem 3.2: relative error of the autodiff NTK of the scaled convolution (8) to
    T(x)^T D(rho) T(x') (x) I, per choice of rho."""

    errors: dict[str, float]
    setup: dict  # T, n_x, n_y, inputs

    def summary(self) -> dict:
        return {
            "errors": {k: float(f"{v:.3g}") for k, v in self.errors.items()},
            "max_error": max(self.errors.values()),
            **self.setup,
        }

    def table(self) -> str:
        """The errors as a Markdown table."""
        rows = [f"| {k} | {v:.1e} |" for k, v in self.errors.items()]
        head = "| scale factors | relative Frobenius error of the NTK |\n| --- | --- |"
        return "\n".join([head, *rows])


def scaled_conv_check(
    T: int,
    n_x: int,
    n_y: int,
    nu_W: float,
    nu_F: float,
    nu_C: float,
    g: torch.Generator,
    inputs: int = 3,
) -> ConvNTKCheck:
    """The NTK of the scaled convolution at random theta (drawn from ``g``) for the rho_j of Eq. (21),
    for random positive rho and for rho = 1 (the unscaled model (5)), against the kernel of Eq. (17)."""
    X = torch.randn(inputs, T, n_x, generator=g, dtype=torch.float64)
    cases = {
        "rho of Eq. (21)": torch.tensor(rho_factors(T, nu_W, nu_F, nu_C)),
        "random rho": torch.rand(T, generator=g, dtype=torch.float64) + 0.01,
        "rho = 1 (unscaled)": torch.ones(T, dtype=torch.float64),
    }
    errors = {}
    for name, rho_ in cases.items():
        theta = {"theta": torch.randn(T, n_y, n_x, generator=g, dtype=torch.float64)}

        def f(prm, xb, r=rho_):
            return conv_models.scaled_conv_forward(prm["theta"], xb, r)

        K = empirical_ntk(f, theta, X)
        errors[name] = relative_error(K, limit_kernel(X, X, rho_))
    return ConvNTKCheck(errors, dict(T=T, n_x=n_x, n_y=n_y, inputs=inputs))
