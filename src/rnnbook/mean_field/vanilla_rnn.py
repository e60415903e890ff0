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
from . import minimal_rnn
from .minimal_rnn import Weights, _gram_sample, _per_network, _settings


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
    device="cpu",
) -> Weights:
    """Draw K vanilla RNNs with M inputs (hyperparameters floats or arrays of length K): the law
    of the minimalRNN's weights (:func:`rnnbook.mean_field.minimal_rnn.draw_weights`), drawn on
    the CPU generator ``gen`` and returned on ``device``."""
    return minimal_rnn.draw_weights(
        N,
        sigma_w,
        sigma_v,
        mu_b,
        sigma_b,
        K,
        gen,
        orthogonal,
        dtype,
        M=M,
        device=device,
    )


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
    budget: int | None = None,
    device="cpu",
) -> dict[str, np.ndarray]:
    """Two input sequences (M = N, second moment R, similarity ``Sigmas[t-1]`` at step t) through K random
    vanilla RNNs per setting of ``hp`` (fields of shape (G,) allowed). e^0 is drawn with variance q0 and
    correlation c0, h^0 = tanh(e^0). Returns ``c`` and ``q`` of the pre-activations, shape (G, K, T).
    Untied networks run in chunks of at most ``budget`` bytes (:func:`rnnbook.mean_field.minimal_rnn.untied_chunks`),
    tied ones in chunks of at most ``budget`` bytes of weights (default ``CHUNK_BYTES``).
    The networks run on ``device``; every draw is made on the CPU generator and moved there."""
    G, per, q0 = _settings(hp, K, q0)
    KK = G * K

    def start(s: slice, gen) -> torch.Tensor:  # h^0 = tanh(e^0)
        n = len(range(KK)[s])
        mu = _per_network(per["mu_b"][s], n, dtype)
        z1, z2 = (randn(gen, n, N) for _ in range(2))
        sq = torch.sqrt(torch.as_tensor(q0[s], dtype=dtype, device="cpu")).reshape(n, 1)
        E0 = torch.stack(
            [sq * z1, sq * (c0 * z1 + np.sqrt(1 - c0**2) * z2)], 1
        ) + mu.unsqueeze(1)
        return torch.tanh(E0).to(device)

    def randn(gen, *shape):  # on the CPU generator, whatever the device
        return torch.randn(*shape, generator=gen, dtype=dtype, device="cpu")

    if tied:
        gen = torch.Generator(device="cpu").manual_seed(int(seed))
        H = start(slice(0, KK), gen)
        hyper = ("sigma_w", "sigma_v", "mu_b", "sigma_b")

        def draw(p):
            n = len(p["mu_b"])
            hps = (p[k] for k in hyper)
            return draw_weights(N, N, *hps, n, gen, False, dtype, device=device)

        out = minimal_rnn.run_pair_tied(
            H, Sigmas, per, draw, lambda h, x, w: cell(h, x, w.W, w.V, w.b), gen, budget
        )
    else:

        def untied(s: slice, gen) -> dict[str, torch.Tensor]:
            p = {k: v[s] for k, v in per.items()}
            n = len(p["mu_b"])
            mu = _per_network(p["mu_b"], n, dtype, device)
            H = start(s, gen)
            sw2 = torch.as_tensor(p["sigma_w"] ** 2, dtype=dtype, device=device)
            sv2 = torch.as_tensor(p["sigma_v"] ** 2, dtype=dtype, device=device)
            sb = _per_network(p["sigma_b"], n, dtype)

            def step(h, x):
                bias = mu + (sb * randn(gen, n, N)).to(device)
                e = (
                    _gram_sample(h, sw2, gen)
                    + _gram_sample(x, sv2, gen)
                    + bias.unsqueeze(1)
                )
                return torch.tanh(e), e

            return minimal_rnn.run_pair(H, Sigmas, p["R"], mu, step, gen)

        out = minimal_rnn.untied_chunks(KK, N, dtype, seed, untied, budget)
    return {k: out[k].reshape(G, K, -1).numpy() for k in ("c", "q")}
