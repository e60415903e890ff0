"""Classical initializations as Local Stability Conditions: Herranz-Celotti & Rouat, Corollary 1 (App. B, Eq. 24).

For the feed-forward network y_l = W_l sigma_k(y_{l-1}) (k = 0 linear, k = 1 ReLU, zero biases) the layer
Jacobian is M_l = dy_l/dy_{l-1} = W_l diag(H(y_{l-1}))^k. Corollary 1 says that Glorot (Var w = 1/n) and
Orthogonal initializations of linear networks, and He (Var w = 2/n) of ReLU networks, give E rho(M_l) = 1.
This module draws the initializations, runs the network on Gaussian inputs, returns the spectral radii of
all layer Jacobians (batched eigenvalues), and redoes the derivation of Eq. (24) with sympy.stats.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

import sympy as sp
import sympy.stats as ss
import torch

Scheme = Literal[
    "glorot-normal", "glorot-uniform", "orthogonal", "he-normal", "he-uniform"
]
SCHEMES: tuple[Scheme, ...] = (
    "glorot-normal",
    "glorot-uniform",
    "orthogonal",
    "he-normal",
    "he-uniform",
)
ACTIVATION = {
    "glorot-normal": "linear",
    "glorot-uniform": "linear",
    "orthogonal": "linear",
    "he-normal": "relu",
    "he-uniform": "relu",
}


def init_weights(
    shape: tuple[int, ...], n: int, scheme: Scheme, g: torch.Generator
) -> torch.Tensor:
    """Square n x n weights of the given batch shape: Glorot Var = 2/(n_in + n_out) = 1/n, He Var = 2/n_in =
    2/n (normal, or uniform on [-sqrt(3 Var), sqrt(3 Var)]), or Haar orthogonal."""
    if scheme == "orthogonal":
        Q, R = torch.linalg.qr(
            torch.randn(*shape, n, n, dtype=torch.float64, generator=g)
        )
        return Q * torch.sign(torch.diagonal(R, dim1=-2, dim2=-1)).unsqueeze(-2)
    if scheme not in SCHEMES:
        raise ValueError(f"scheme = {scheme!r}: must be one of {SCHEMES}")
    var = (1.0 if scheme.startswith("glorot") else 2.0) / n
    if scheme.endswith("normal"):
        return math.sqrt(var) * torch.randn(
            *shape, n, n, dtype=torch.float64, generator=g
        )
    return math.sqrt(3 * var) * (
        2 * torch.rand(*shape, n, n, dtype=torch.float64, generator=g) - 1
    )


def layer_jacobians(
    W: torch.Tensor, y0: torch.Tensor, activation: Literal["linear", "relu"]
) -> torch.Tensor:
    """M_l = W_l diag(sigma'(y_{l-1})) for y_l = W_l sigma(y_{l-1}), l = 1..D, for every input.

    W: (S, D, n, n) weights of S networks; y0: (S, P, n) P inputs per network. Returns (S, P, D, n, n)."""
    S, D, n, _ = W.shape
    y = y0
    out = []
    for l in range(D):
        if activation == "relu":
            d = (y > 0).to(W.dtype)
            out.append(
                W[:, None, l] * d.unsqueeze(-2)
            )  # W_l diag(H(y_{l-1})), per input
            y = torch.einsum("sij,spj->spi", W[:, l], torch.relu(y))
        else:
            out.append(W[:, None, l].expand(S, y.shape[1], n, n))
            y = torch.einsum("sij,spj->spi", W[:, l], y)
    return torch.stack(out, 2)


def jacobian_radii(
    S: int, P: int, D: int, n: int, scheme: Scheme, g: torch.Generator
) -> torch.Tensor:
    """Spectral radii of the D layer Jacobians of S random networks on P standard Gaussian inputs: (S, P, D)."""
    W = init_weights((S, D), n, scheme, g)
    y0 = torch.randn(S, P, n, dtype=torch.float64, generator=g)
    M = layer_jacobians(W, y0, ACTIVATION[scheme])
    return torch.linalg.eigvals(M).abs().amax(-1)


@dataclass(frozen=True)
class HeDerivation:
    k: int
    variance: sp.Expr  # Var(w H^k) with Var w = s2, H ~ Bernoulli(1/2)
    condition: sp.Eq  # n Var(w H^k) = 1, i.e. (E rho)^2 = 1
    solution: sp.Expr  # the Var w that satisfies it
    paper: sp.Expr  # 2^k / n (Eq. 24)

    @property
    def proven(self) -> bool:
        return sp.simplify(self.solution - self.paper) == 0


@lru_cache(maxsize=None)
def he_derivation() -> tuple[HeDerivation, HeDerivation]:
    """Eq. (24): (E rho(M))^2 = n Var(w H(y)^k) with w ~ N(0, s2) independent of H ~ Bernoulli(1/2) (y
    symmetric about 0); setting it to 1 gives Var w = 2^k / n: Glorot for k = 0, He for k = 1."""
    n, s2 = sp.symbols("n sigma_w^2", positive=True)
    out = []
    for k in (0, 1):
        w = ss.Normal(f"w{k}", 0, sp.sqrt(s2))
        H = ss.Bernoulli(f"H{k}", sp.Rational(1, 2))
        var = sp.simplify(ss.variance(w * H**k))
        cond = sp.Eq(n * var, 1)
        sol = sp.solve(cond, s2)[0]
        out.append(HeDerivation(k, var, cond, sol, 2**k / n))
    return out[0], out[1]
