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

from rnnbook import plotting

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

    def latex(self) -> str:
        return (
            rf"k={self.k}:\quad \mathrm{{Var}}(w H^{self.k}) = "
            + sp.latex(self.variance)
            + r",\qquad "
            + sp.latex(self.condition)
            + r"\;\Rightarrow\;\sigma_w^2 = "
            + sp.latex(self.solution)
            + r"\quad(\text{paper: }"
            + sp.latex(self.paper)
            + ")"
        )


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


def he_derivation_check() -> dict:
    """The two cases of Eq. (24) as one line, and whether sympy proves both."""
    ds = he_derivation()
    steps = "; ".join(
        f"k={d.k}: Var(w H^k) = {d.variance}, solution {d.solution}" for d in ds
    )
    return dict(steps=steps, proven=all(d.proven for d in ds))


# ---- Corollary 1 measured: the chapter "Spectral radii of random matrices" -----------------


def networks_for(n: int, at_32: int) -> int:
    """Networks x inputs at width n: ``at_32`` at width 32, scaled as (32/n)^2, at least 1."""
    return max(1, round(at_32 * (32 / n) ** 2))


@dataclass
class Corollary1:
    """The He networks' layer-Jacobian radii per width (``he``: (networks, depth)), their mean
    and 99% half-width (``he_mean``), Glorot's from Lemma 1's Monte Carlo (``glorot``: per
    ensemble, per n) and the largest |rho - 1| of orthogonal layers (``orth_err``)."""

    widths: list[int]
    depth: int
    networks: dict[int, int]
    he: dict[int, torch.Tensor]
    he_mean: dict[int, tuple[float, float]]
    glorot: dict[str, dict[int, tuple[float, float]]]
    orth_err: float

    def check(self, width: int, eps: float) -> dict:
        """|E rho - 1| <= eps at ``width`` for every scheme measured there (``within``), and
        whether |E rho - 1| shrinks between the two largest widths of every scheme (``trend``)."""
        judged = {
            f"Glorot {e}": self.glorot[e][width]
            for e in self.glorot
            if width in self.glorot[e]
        }
        if width in self.he_mean:
            judged["He normal (ReLU)"] = self.he_mean[width]
        curves = {f"Glorot {e}": self.glorot[e] for e in self.glorot}
        curves["He normal (ReLU)"] = self.he_mean

        def deviations(curve):
            ws = sorted(curve)
            last = abs(curve[ws[-1]][0] - 1)
            return last, abs(curve[ws[-2]][0] - 1) if len(ws) > 1 else math.inf

        largest = {k: c[max(c)][0] for k, c in curves.items()}
        return dict(
            width=width,
            eps=eps,
            depth=self.depth,
            at_width=", ".join(
                f"{k}: {v[0]:.4f} ± {v[1]:.4f}" for k, v in judged.items()
            ),
            at_largest=", ".join(f"{k}: {v:.4f}" for k, v in largest.items()),
            within=all(abs(v[0] - 1) <= eps for v in judged.values()),
            trend=all(a < b for a, b in map(deviations, curves.values())),
            glorot_normal=float(judged.get("Glorot gaussian", (math.nan,))[0]),
        )


def corollary1_study(
    widths: list[int],
    depth: int,
    networks_at_32: int,
    glorot: dict,
    g: torch.Generator,
) -> Corollary1:
    """He-normal ReLU networks of every width on Gaussian inputs, and two orthogonal linear
    networks per width; ``glorot`` comes from Lemma 1's Monte Carlo
    (:meth:`~rnnbook.lsc.random_matrix.RadiusStudy.glorot`)."""
    networks = {n: networks_for(n, networks_at_32) for n in widths}
    he = {}
    for n in plotting.progress(widths, desc="He"):
        he[n] = jacobian_radii(networks[n], 1, depth, n, "he-normal", g)[:, 0]
    orth = {n: jacobian_radii(2, 1, 2, n, "orthogonal", g) for n in widths}
    orth_err = max(float((v - 1).abs().max()) for v in orth.values())
    he_mean = {
        n: (float(v.mean()), 2.576 * float(v.std()) / math.sqrt(v.numel()))
        for n, v in he.items()
    }
    return Corollary1(list(widths), depth, networks, he, he_mean, glorot, orth_err)
