"""Neural tangent kernels: the empirical NTK by autodiff (``torch.func``) and the limit kernel of
Emami et al., Theorem 3.3(b): K(x, x') = T(x)^T D(rho) T(x') (x) I_{n_y}  (Eqs. 18-20)."""

from __future__ import annotations

from typing import Callable

import torch
from torch import Tensor
from torch.func import jacrev


def toeplitz(x: Tensor) -> Tensor:
    """Eq. (18): the block Toeplitz matrix T(x) of shape (T n_x, T) of a sequence ``x`` of shape (T, n_x).

    Block row j, column t holds x_{t-j} (zero for t < j).
    """
    T_, n_x = x.shape
    out = torch.zeros(T_, n_x, T_, dtype=x.dtype)
    for lag in range(T_):
        out[lag, :, lag:] = x[: T_ - lag].T
    return out.reshape(T_ * n_x, T_)


def limit_kernel(X1: Tensor, X2: Tensor, rho: Tensor) -> Tensor:
    """K[a, t, b, s] = (T(x_a)^T D(rho) T(x_b))_{t,s} for batches of shape (N, T, n_x); Eq. (20) without
    the trivial factor I_{n_y}. ``rho`` has shape (T,)."""
    T_, n_x = X1.shape[1:]
    D = torch.repeat_interleave(torch.as_tensor(rho, dtype=X1.dtype), n_x)
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
    eye = torch.eye(n_y, dtype=K_lim.dtype)
    full = torch.einsum("atbs,ij->atibsj", K_lim, eye)
    return float(torch.linalg.norm(K_emp - full) / torch.linalg.norm(full))
