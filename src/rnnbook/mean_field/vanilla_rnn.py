"""The vanilla RNN of Chen, Pennington & Schoenholz (2018), Eq. (1), batched over K networks:

    e^t = W h^{t-1} + V x^t + b,   h^t = tanh(e^t),

W_ij ~ N(0, sigma_w^2/N) (or sigma_w times a Haar orthogonal matrix), V_ij ~ N(0, sigma_v^2/M),
b_i ~ N(mu_b, sigma_b^2). :func:`simulate_pair` is the Monte Carlo check of the covariance map, Eq. (2),
with tied weights (the real network) or untied weights (redrawn at every step, the theory's approximation).
"""

from __future__ import annotations

import numpy as np
import torch

from .theory import HP
from .minimal_rnn import (
    Weights,
    _gram_sample,
    _pair_inputs,
    _per_network,
    gaussian_matrix,
    orthogonal_matrix,
)


def cell(
    h: torch.Tensor, x: torch.Tensor, W: torch.Tensor, V: torch.Tensor, b: torch.Tensor
):
    """One step of Eq. (1) for K networks: h (K, B, N), x (K, B, M), W (K, N, N), V (K, N, M), b (K, N).
    Returns (h^t, e^t)."""
    e = torch.baddbmm(b.unsqueeze(1), h, W.transpose(1, 2)) + torch.bmm(
        x, V.transpose(1, 2)
    )
    return torch.tanh(e), e


def draw_weights(
    N: int,
    M: int,
    sigma_w,
    sigma_v,
    mu_b,
    sigma_b,
    K: int,
    gen: torch.Generator,
    orthogonal: bool = False,
    dtype=torch.float64,
) -> Weights:
    """Draw K vanilla RNNs (hyperparameters floats or arrays of length K)."""
    sw = torch.as_tensor(
        np.broadcast_to(np.asarray(sigma_w, float), (K,)).copy(), dtype=dtype
    )
    sv = torch.as_tensor(
        np.broadcast_to(np.asarray(sigma_v, float), (K,)).copy(), dtype=dtype
    )
    W = (
        orthogonal_matrix(K, N, sw, gen, dtype)
        if orthogonal
        else gaussian_matrix(K, N, N, sw, gen, dtype)
    )
    V = gaussian_matrix(K, N, M, sv, gen, dtype)
    b = _per_network(mu_b, K, dtype) + _per_network(sigma_b, K, dtype) * torch.randn(
        K, N, generator=gen, dtype=dtype
    )
    return Weights(W, V, b)


def simulate_pair(
    Sigmas,
    hp: HP,
    N: int,
    K: int,
    tied: bool,
    seed: int,
    q0,
    c0: float = 0.0,
    dtype=torch.float64,
) -> dict[str, np.ndarray]:
    """Two input sequences (M = N, second moment R, similarity ``Sigmas[t-1]`` at step t) through K random
    vanilla RNNs per setting of ``hp`` (fields of shape (G,) allowed). e^0 is drawn with variance q0 and
    correlation c0, h^0 = tanh(e^0). Returns ``c`` and ``q`` of the pre-activations, shape (G, K, T)."""
    gen = torch.Generator().manual_seed(int(seed))
    f = {
        k: np.atleast_1d(np.asarray(getattr(hp, k), float))
        for k in ("sigma_w", "sigma_v", "mu_b", "R", "sigma_b")
    }
    G = int(np.broadcast(*f.values()).size)
    per = {k: np.repeat(np.broadcast_to(v, (G,)), K) for k, v in f.items()}
    KK = G * K
    q0 = np.repeat(np.broadcast_to(np.atleast_1d(np.asarray(q0, float)), (G,)), K)
    mu = _per_network(per["mu_b"], KK, dtype)
    z1, z2 = (torch.randn(KK, N, generator=gen, dtype=dtype) for _ in range(2))
    sq = torch.sqrt(torch.as_tensor(q0, dtype=dtype)).reshape(KK, 1)
    E0 = torch.stack(
        [sq * z1, sq * (c0 * z1 + np.sqrt(1 - c0**2) * z2)], 1
    ) + mu.unsqueeze(1)
    H = torch.tanh(E0)
    if tied:
        w = draw_weights(
            N,
            N,
            per["sigma_w"],
            per["sigma_v"],
            per["mu_b"],
            per["sigma_b"],
            KK,
            gen,
            False,
            dtype,
        )
    sw2 = torch.as_tensor(per["sigma_w"] ** 2, dtype=dtype)
    sv2 = torch.as_tensor(per["sigma_v"] ** 2, dtype=dtype)
    cs, qs = [], []
    for S in Sigmas:
        X = _pair_inputs(KK, N, per["R"], float(S), gen, dtype)
        if tied:
            H, e = cell(H, X, w.W, w.V, w.b)
        else:
            bias = mu + _per_network(per["sigma_b"], KK, dtype) * torch.randn(
                KK, N, generator=gen, dtype=dtype
            )
            e = (
                _gram_sample(H, sw2, gen)
                + _gram_sample(X, sv2, gen)
                + bias.unsqueeze(1)
            )
            H = torch.tanh(e)
        d = e - mu.unsqueeze(1)
        q11, q22, q12 = (
            (d[:, 0] ** 2).mean(-1),
            (d[:, 1] ** 2).mean(-1),
            (d[:, 0] * d[:, 1]).mean(-1),
        )
        cs.append(q12 / torch.sqrt(q11 * q22))
        qs.append(0.5 * (q11 + q22))
    return {
        k: torch.stack(v, -1).reshape(G, K, -1).numpy()
        for k, v in (("c", cs), ("q", qs))
    }
