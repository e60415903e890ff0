"""The minimalRNN of Chen, Pennington & Schoenholz (2018), Eq. (5), batched over many networks at once.

    e^t = W h^{t-1} + V x~^t + b,   u^t = sigma(e^t),   h^t = u^t * h^{t-1} + (1 - u^t) * x~^t,

with x~^t = Phi(x^t) = tanh(W_x x^t) (footnote 2). Weights are drawn as in Sec. 3.2.1: W_ij ~ N(0, sigma_w^2/N)
(or sigma_w times a Haar orthogonal matrix), V_ij ~ N(0, sigma_v^2/N), b_i ~ N(mu_b, sigma_b^2). *Tied* weights
are one (W, V, b) for all steps (the real network); *untied* weights are drawn afresh at every step (the
approximation of the mean field theory). Every tensor has a leading axis over K independent networks.

:func:`simulate_pair` runs two input sequences through the same random networks (the Monte Carlo of Fig. 1).

Every Monte Carlo here takes a ``device``: the draws (weights, inputs, initial states, the untied
Gram samples) are made on a seeded CPU generator and moved there, so a CPU and a GPU run see the
same numbers and differ by float rounding only (a Haar matrix's QR runs on the device).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from .theory import HP


def cell(
    h: torch.Tensor, x: torch.Tensor, W: torch.Tensor, V: torch.Tensor, b: torch.Tensor
):
    """One step of Eq. (5) for K networks: h, x of shape (K, B, N); W, V (K, N, N); b (K, N).

    Returns (h^t, e^t, u^t)."""
    e = torch.baddbmm(b.unsqueeze(1), h, W.transpose(1, 2)) + torch.bmm(
        x, V.transpose(1, 2)
    )
    u = torch.sigmoid(e)
    return u * h + (1 - u) * x, e, u


def gaussian_matrix(
    K: int,
    N: int,
    M: int,
    scale,
    gen: torch.Generator,
    dtype=torch.float64,
    device="cpu",
) -> torch.Tensor:
    """K matrices N x M with entries N(0, scale^2 / M); ``scale`` a float or a (K,) tensor.
    Drawn and scaled in place on the CPU (no temporary copies), then moved to ``device``."""
    scale = (
        torch.as_tensor(scale, dtype=dtype, device="cpu").reshape(-1, 1, 1)
        if np.ndim(scale)
        else scale
    )
    Z = torch.randn(K, N, M, generator=gen, dtype=dtype, device="cpu")
    return Z.mul_(scale).div_(np.sqrt(M)).to(device)


def orthogonal_matrix(
    K: int, N: int, scale, gen: torch.Generator, dtype=torch.float64, device="cpu"
) -> torch.Tensor:
    """K matrices scale * O with O Haar-distributed on O(N) (QR of a Gaussian matrix with the
    sign fix); the Gaussian matrix is drawn on the CPU, the QR runs on ``device``."""
    A = torch.randn(K, N, N, generator=gen, dtype=dtype, device="cpu").to(device)
    Qm, Rm = torch.linalg.qr(A)
    Qm = Qm * torch.sign(torch.diagonal(Rm, dim1=-2, dim2=-1)).unsqueeze(-2)
    scale = (
        torch.as_tensor(scale, dtype=dtype, device=device).reshape(-1, 1, 1)
        if np.ndim(scale)
        else scale
    )
    return Qm * scale


def _per_network(x, K: int, dtype, device="cpu") -> torch.Tensor:
    """A hyperparameter (float or array of length K) as a (K, 1) tensor."""
    return torch.as_tensor(
        np.broadcast_to(np.asarray(x, float), (K,)).copy(), dtype=dtype, device=device
    ).reshape(K, 1)


@dataclass
class Weights:
    """(W, V, b) of K networks; ``W``, ``V`` of shape (K, N, N) and ``b`` (K, N)."""

    W: torch.Tensor
    V: torch.Tensor
    b: torch.Tensor


def draw_weights(
    N: int,
    sigma_w,
    sigma_v,
    mu_b,
    sigma_b,
    K: int,
    gen: torch.Generator,
    orthogonal: bool = False,
    dtype=torch.float64,
    M: int | None = None,
    device="cpu",
) -> Weights:
    """Draw K networks (hyperparameters floats or arrays of length K): W (K, N, N), V (K, N, M)
    with M = N unless given (the vanilla RNN's input width), b (K, N); Sec. 3.2.1. Drawn on
    the CPU generator ``gen``, returned on ``device``."""
    sw, sv = (_per_network(s, K, dtype).reshape(K) for s in (sigma_w, sigma_v))
    W = (
        orthogonal_matrix(K, N, sw, gen, dtype, device)
        if orthogonal
        else gaussian_matrix(K, N, N, sw, gen, dtype, device)
    )
    V = gaussian_matrix(K, N, N if M is None else M, sv, gen, dtype, device)
    b = _per_network(mu_b, K, dtype) + _per_network(sigma_b, K, dtype) * torch.randn(
        K, N, generator=gen, dtype=dtype, device="cpu"
    )
    return Weights(W, V, b.to(device))


CHUNK_BYTES = 2**31  # the most weight memory a tied Monte Carlo holds at once (2 GiB)


def network_chunks(K: int, N: int, dtype, budget: int | None = None) -> list[slice]:
    """Consecutive slices of K networks of width N whose (W, V) fit in ``budget`` bytes: a tied
    Monte Carlo draws and runs them one chunk after another (a single chunk, and so the same
    draws, whenever all fit; at the paper's width 8192 one network's weights take 0.5-1 GiB).
    ``budget`` defaults to ``CHUNK_BYTES``."""
    per_network = 2 * N * N * torch.empty((), dtype=dtype, device="cpu").element_size()
    size = max(1, (CHUNK_BYTES if budget is None else budget) // per_network)
    return [slice(i, min(i + size, K)) for i in range(0, K, size)]


def _pair_inputs(
    K: int, N: int, R, Sigma: float, gen: torch.Generator, dtype, device="cpu"
) -> torch.Tensor:
    """Two inputs per network with per-unit second moment R and cosine similarity Sigma: shape
    (K, 2, N), drawn on the CPU generator and moved to ``device``."""
    z1 = torch.randn(K, N, generator=gen, dtype=dtype, device="cpu")
    z2 = torch.randn(K, N, generator=gen, dtype=dtype, device="cpu")
    sR = torch.sqrt(_per_network(R, K, dtype))
    return torch.stack(
        [sR * z1, sR * (Sigma * z1 + np.sqrt(max(1.0 - Sigma**2, 0.0)) * z2)], dim=1
    ).to(device)


def _gram_sample(
    H: torch.Tensor, scale2: torch.Tensor, gen: torch.Generator
) -> torch.Tensor:
    """Rows of A H for a fresh A with iid N(0, scale2/N) entries, without drawing A.

    H: (K, 2, N) two vectors per network. Given H, the pairs ((A h1)_i, (A h2)_i) are iid over i with
    covariance scale2/N [h_a . h_b] (a 2x2 Gram matrix), sampled here by its Cholesky factor. Exactly the
    same law as drawing A, at O(N) instead of O(N^2) cost per step. The normals are drawn on
    the CPU generator ``gen`` and moved to H's device.
    """
    K, _, N = H.shape
    G = torch.einsum("kan,kbn->kab", H, H) * (scale2.reshape(K, 1, 1) / N)
    l11 = torch.sqrt(G[:, 0, 0].clamp_min(0))
    l21 = torch.where(
        l11 > 0, G[:, 1, 0] / l11.clamp_min(1e-300), torch.zeros_like(l11)
    )
    l22 = torch.sqrt((G[:, 1, 1] - l21**2).clamp_min(0))
    z = torch.randn(K, 2, N, generator=gen, dtype=H.dtype, device="cpu").to(H.device)
    a1 = l11[:, None] * z[:, 0]
    a2 = l21[:, None] * z[:, 0] + l22[:, None] * z[:, 1]
    return torch.stack([a1, a2], dim=1)


def _cosine(A: torch.Tensor) -> torch.Tensor:
    """Cosine similarity of the two vectors A[:, 0], A[:, 1] of each network."""
    return (A[:, 0] * A[:, 1]).sum(-1) / torch.sqrt(
        (A[:, 0] ** 2).sum(-1) * (A[:, 1] ** 2).sum(-1)
    )


def run_pair(H, Sigmas, R, mu, step, gen: torch.Generator) -> dict[str, torch.Tensor]:
    """Feed two input sequences (similarity ``Sigmas[t-1]`` at step t, per-unit second moment R)
    through ``step(H, X) -> (H_new, e)`` from the states H (K, 2, N). Returns, of shape (K, T),
    ``c`` (pre-activation cosine similarity centred at mu), ``q`` (pre-activation second moment
    per unit) and ``C`` (state cosine similarity)."""
    K, _, N = H.shape
    out = {"c": [], "q": [], "C": []}
    for S in Sigmas:
        X = _pair_inputs(K, N, R, float(S), gen, H.dtype, H.device)
        H, e = step(H, X)
        d = e - mu.unsqueeze(1)
        out["c"].append(_cosine(d))
        out["q"].append(0.5 * ((d[:, 0] ** 2).mean(-1) + (d[:, 1] ** 2).mean(-1)))
        out["C"].append(_cosine(H))
    return {k: torch.stack(v, -1).cpu() for k, v in out.items()}


def run_pair_tied(
    H, Sigmas, per: dict, draw, step, gen, budget: int | None = None
) -> dict[str, torch.Tensor]:
    """:func:`run_pair` through tied networks, chunk by chunk (:func:`network_chunks`, weights
    of at most ``budget`` bytes, default ``CHUNK_BYTES``): ``draw(per_chunk)`` draws one chunk's
    :class:`Weights` from the per-network hyperparameters ``per`` (name -> array of length K)
    and ``step(H, X, w)`` is the cell."""
    K, _, N = H.shape
    parts = []
    for s in network_chunks(K, N, H.dtype, budget):
        p = {k: v[s] for k, v in per.items()}
        w = draw(p)
        parts.append(
            run_pair(
                H[s],
                Sigmas,
                p["R"],
                w.b.new_tensor(p["mu_b"]).reshape(-1, 1),
                lambda h, x, w=w: step(h, x, w),
                gen,
            )
        )
        del w  # one chunk's weights at a time: freed before the next chunk is drawn
    return {k: torch.cat([p[k] for p in parts]) for k in parts[0]}


def _settings(hp: HP, K: int, start) -> tuple[int, dict, np.ndarray]:
    """The G settings of ``hp`` (fields of shape (G,) allowed), each repeated for K networks:
    (G, hyperparameter -> array of length G*K, the initial second moment per network)."""
    f = {
        k: np.atleast_1d(np.asarray(getattr(hp, k), float))
        for k in ("sigma_w", "sigma_v", "mu_b", "R", "sigma_b")
    }
    G = int(np.broadcast(*f.values()).size)
    per = {k: np.repeat(np.broadcast_to(v, (G,)), K) for k, v in f.items()}
    start = np.repeat(np.broadcast_to(np.atleast_1d(np.asarray(start, float)), (G,)), K)
    return G, per, start


def simulate_pair(
    Sigmas,
    hp: HP,
    N: int,
    K: int,
    tied: bool,
    seed: int,
    Q0,
    C0: float = 0.0,
    orthogonal: bool = False,
    exact_untied: bool = False,
    dtype=torch.float64,
    budget: int | None = None,
    device="cpu",
) -> dict[str, np.ndarray]:
    """Monte Carlo of Fig. 1: K random minimalRNNs of width N per hyperparameter setting, two input sequences
    with similarity ``Sigmas[t-1]`` at step t = 1..T; h^0 with second moment Q0 and cosine similarity C0.

    ``hp`` fields may be arrays of shape (G,): the G settings are simulated together (K networks each).
    ``tied=False`` redraws W, V, b at every step: by default through ``_gram_sample`` (the exact law of
    the pre-activations given the states); ``exact_untied=True`` draws the matrices explicitly (slow; tests).

    Returns arrays of shape (G, K, T): ``c`` (pre-activation cosine similarity, centred at mu_b), ``q``
    (pre-activation second moment, per unit) and ``C`` (hidden-state cosine similarity).
    Untied networks run in chunks of at most ``budget`` bytes (:func:`untied_chunks`, default
    ``UNTIED_BYTES``), tied ones in chunks of at most ``budget`` bytes of weights
    (:func:`network_chunks`, default ``CHUNK_BYTES``). The networks run on
    ``device``; every draw is made on the CPU generator and moved there.
    """
    G, per, Q0 = _settings(hp, K, Q0)
    KK = G * K
    hyper = ("sigma_w", "sigma_v", "mu_b", "sigma_b")

    def start(s: slice, gen) -> torch.Tensor:  # h^0: second moment Q0, cosine C0
        n = len(range(KK)[s])
        z1, z2 = (randn(gen, n, N) for _ in range(2))
        sq = torch.sqrt(torch.as_tensor(Q0[s], dtype=dtype, device="cpu")).reshape(n, 1)
        H = torch.stack([sq * z1, sq * (C0 * z1 + np.sqrt(1 - C0**2) * z2)], dim=1)
        return H.to(device)

    def randn(gen, *shape):  # on the CPU generator, whatever the device
        return torch.randn(*shape, generator=gen, dtype=dtype, device="cpu")

    def draw(p, gen):
        n = len(p["mu_b"])
        hps = (p[k] for k in hyper)
        return draw_weights(N, *hps, n, gen, orthogonal, dtype, device=device)

    if tied:
        gen = torch.Generator(device="cpu").manual_seed(int(seed))
        H = start(slice(0, KK), gen)
        step = lambda h, x, w: cell(h, x, w.W, w.V, w.b)[:2]  # noqa: E731
        out = run_pair_tied(H, Sigmas, per, lambda p: draw(p, gen), step, gen, budget)
        return {k: v.reshape(G, K, -1).numpy() for k, v in out.items()}

    def untied(s: slice, gen) -> dict[str, torch.Tensor]:
        p = {k: v[s] for k, v in per.items()}
        n = len(p["mu_b"])
        mu = _per_network(p["mu_b"], n, dtype, device)
        H = start(s, gen)
        sw2 = torch.as_tensor(p["sigma_w"] ** 2, dtype=dtype, device=device)
        sv2 = torch.as_tensor(p["sigma_v"] ** 2, dtype=dtype, device=device)
        sb = _per_network(p["sigma_b"], n, dtype)

        def step(h, x):
            if exact_untied:
                w = draw(p, gen)
                return cell(h, x, w.W, w.V, w.b)[:2]
            bias = mu + (sb * randn(gen, n, N)).to(device)
            e = _gram_sample(h, sw2, gen) + _gram_sample(x, sv2, gen)
            e = e + bias.unsqueeze(1)
            u = torch.sigmoid(e)
            return u * h + (1 - u) * x, e

        return run_pair(H, Sigmas, p["R"], mu, step, gen)

    out = untied_chunks(KK, N, dtype, seed, untied, budget)
    return {k: v.reshape(G, K, -1).numpy() for k, v in out.items()}


UNTIED_BYTES = 2**31  # the most memory an untied Monte Carlo holds at once (2 GiB)
#: (2, N) tensors alive per network during one untied step (states, inputs, Gram samples...)
UNTIED_COPIES = 16


def untied_chunks(KK: int, N: int, dtype, seed: int, run, budget=None) -> dict:
    """``run(networks, generator)`` over consecutive chunks of the KK untied networks whose
    working set (``UNTIED_COPIES`` tensors of shape (2, N) per network) fits in ``budget``
    bytes (default ``UNTIED_BYTES``); the results concatenated along the networks. The first
    chunk draws from the generator seeded ``seed``, so that a Monte Carlo that fits in one
    chunk (every one at the smoke and book profiles) keeps its draws; chunk c > 0 from its own
    generator seeded ``seed + 1000003 c``."""
    item = torch.empty((), dtype=dtype, device="cpu").element_size()
    size = max(1, (budget or UNTIED_BYTES) // (UNTIED_COPIES * 2 * N * item))
    parts = []
    for c, i in enumerate(range(0, KK, size)):
        g = torch.Generator(device="cpu").manual_seed(int(seed) + 1_000_003 * c)
        parts.append(run(slice(i, min(i + size, KK)), g))
    return {k: torch.cat([p[k] for p in parts]) for k in parts[0]}


def input_map_scale(R: float) -> float:
    """The pre-activation variance v with E tanh^2(sqrt(v) z) = R: with x ~ N(0, 1) per entry and
    W_x ~ N(0, v/M), the inputs x~ = tanh(W_x x) of footnote 2 have second moment R per unit."""
    from scipy.optimize import brentq

    from .theory import gauss1

    if not 0 < R < 1:
        raise ValueError(f"R = {R!r}: must be in (0, 1) (the range of E tanh^2)")
    return float(
        brentq(
            lambda v: float(gauss1(lambda u: np.tanh(u) ** 2, 0.0, v)) - R, 1e-8, 1e4
        )
    )
