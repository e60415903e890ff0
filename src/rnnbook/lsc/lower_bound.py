"""The lower Local Stability Condition: Herranz-Celotti & Rouat, App. D, Theorem 5 (Eqs. 40-44).

With a super-additive, super-multiplicative "anti-norm" ||.||_! the chain rule of the update gives
||Delta theta_l||_! >= c (eta/T) sum_t sum_t' sum_c exp(sum_k log|b_k|) (Eq. 43), b_k = ||M_k||_! the
anti-norm of a transition derivative; the lower LSC (l-LSC) E log|b_k| = 0 with decaying covariance
makes (1/n) sum_k log|b_k| -> 0 in probability (Bernstein's weak law), so the product does not
grow or vanish exponentially (Eq. 44). On PSD matrices the paper proposes the determinant.

This module measures both halves of the argument:

* the product: a tanh RNN h_t = tanh(g W h_{t-1} + x_t), whose transition derivatives
  M_t = diag(1 - h_t^2) g W have b_t = det M_t: :func:`gain_scan` asks whether any gain puts it at
  the l-LSC (it cannot: a bounded injective map contracts volume on average); i.i.d. Gaussian
  transition derivatives scaled to the l-LSC (:func:`l_lsc_gaussian`) then show what the condition
  gives: :func:`log_det_growth` the distribution of (1/n) log|det J_n| = (1/n) sum_k log|b_k| over
  sequences, and :func:`lyapunov_exponents` what it leaves free (the spread of the exponents, whose
  sum it fixes);
* the path sum: :func:`word_sums` builds J = sum over the paths of the products of the time
  matrix A and the depth matrix B (the Grid Derivative Pascal Triangle with weights shared across
  layers) and :func:`determinant_path_test` checks the super-additivity step of Eq. (41),
  det J >= sum_c prod_k det M_k, for PSD A and B.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import torch


def tanh_rnn_transitions(W: torch.Tensor, gain: float, x: torch.Tensor) -> torch.Tensor:
    """M_t = dh_t/dh_{t-1} = diag(1 - h_t^2) gain W along h_t = tanh(gain W h_{t-1} + x_t),
    h_0 = 0: x (S, T, n) -> M (S, T, n, n)."""
    S, T, n = x.shape
    h = torch.zeros(S, n, dtype=x.dtype)
    gW = gain * W
    Ms = []
    for t in range(T):
        h = torch.tanh(h @ gW.T + x[:, t])
        Ms.append((1 - h * h).unsqueeze(-1) * gW)
    return torch.stack(Ms, 1)


def log_abs_dets(W: torch.Tensor, gain: float, x: torch.Tensor) -> torch.Tensor:
    """log|b_t| = log|det M_t| = n log gain + log|det W| + sum_i log(1 - h_{t,i}^2): (S, T)."""
    return torch.linalg.slogdet(tanh_rnn_transitions(W, gain, x))[1]


@dataclass(frozen=True)
class GainScan:
    """Mean log|det M_t| (after ``burn`` steps) of driven tanh RNNs over a grid of gains, per weight
    family and input scale (``means[family][scale]``, one value per gain), and how closely the sum
    of the Lyapunov exponents matches it at the best gain (``lyap_err``)."""

    gains: list[float]
    scales: list[float]
    means: dict
    lyap_err: float

    def best(self) -> dict:
        """Per scale, the largest mean over gains and families; overall, with its gain."""
        by_scale = {
            s: max(max(self.means[f][s]) for f in self.means) for s in self.scales
        }
        top = max(
            (m, self.gains[i])
            for f in self.means
            for s in self.scales
            for i, m in enumerate(self.means[f][s])
        )
        return dict(by_scale=by_scale, max_mean=top[0], best_gain=top[1])


def gain_scan(
    n: int,
    gains: list[float],
    scales: list[float],
    S: int,
    T: int,
    burn: int,
    g: torch.Generator,
) -> GainScan:
    """Can a gain put a driven tanh RNN at the l-LSC E log|det M_t| = 0? W orthogonal or
    Gaussian / sqrt(n), inputs x_t ~ N(0, s^2 I) for each s in ``scales``, every gain."""
    Q = torch.linalg.qr(torch.randn(n, n, dtype=torch.float64, generator=g))[0]
    Ws = {
        "orthogonal": Q,
        "Gaussian": torch.randn(n, n, dtype=torch.float64, generator=g) / math.sqrt(n),
    }
    means: dict = {f: {} for f in Ws}
    best, lyap_err = (-math.inf, None), 0.0
    for s in scales:
        x = s * torch.randn(S, T, n, dtype=torch.float64, generator=g)
        for f, W in Ws.items():
            row = []
            for gain in gains:
                row.append(float(log_abs_dets(W, gain, x)[:, burn:].mean()))
                if row[-1] > best[0]:
                    best = (row[-1], (W, gain, x))
            means[f][s] = row
    W, gain, x = best[1]
    M = tanh_rnn_transitions(W, gain, x)[:, burn:]
    lyap = lyapunov_exponents(M).sum(-1)
    direct = torch.linalg.slogdet(M)[1].mean(-1)
    lyap_err = float((lyap - direct).abs().max())
    return GainScan(list(gains), list(scales), means, lyap_err)


def lyapunov_exponents(M: torch.Tensor) -> torch.Tensor:
    """Lyapunov exponents of the products M_T ... M_1 per sequence, by repeated QR:
    M (S, T, n, n) -> (S, n), in decreasing order; their sum is (1/T) sum_t log|det M_t|."""
    S, T, n, _ = M.shape
    Q = torch.eye(n, dtype=M.dtype).expand(S, n, n)
    acc = torch.zeros(S, n, dtype=M.dtype)
    for t in range(T):
        Q, R = torch.linalg.qr(M[:, t] @ Q)
        acc = acc + torch.log(torch.diagonal(R, dim1=-2, dim2=-1).abs())
    return (acc / T).sort(-1, descending=True).values


@dataclass(frozen=True)
class Growth:
    """For each length n: the median and interquartile range over sequences of (1/n) log|det J_n|,
    the fraction with |(1/n) log|det J_n|| > eps, and (1/n) log of the sample mean of |det J_n|."""

    ns: list[int]
    median: np.ndarray
    iqr: np.ndarray
    frac_out: np.ndarray
    log_mean: np.ndarray
    eps: float


def log_det_growth(logb: np.ndarray, ns: list[int], eps: float) -> Growth:
    """From log|b_k| (S, T): S_n = sum_{k <= n} log|b_k| = log|det J_n| (multiplicativity), and its
    statistics over the S sequences at each n in ``ns``."""
    cs = np.cumsum(np.asarray(logb, dtype=float), axis=1)
    med, iqr, out, lm = [], [], [], []
    for n in ns:
        r = cs[:, n - 1] / n
        q1, q2, q3 = np.quantile(r, [0.25, 0.5, 0.75])
        med.append(q2)
        iqr.append(q3 - q1)
        out.append(np.mean(np.abs(r) > eps))
        s = cs[:, n - 1]
        lm.append((s.max() + np.log(np.mean(np.exp(s - s.max())))) / n)
    return Growth(list(ns), *map(np.array, (med, iqr, out, lm)), eps)


def autocorrelation(logb: np.ndarray, lags: list[int]) -> np.ndarray:
    """Correlation of log|b_t| with log|b_{t+lag}| across sequences and steps (the decaying
    covariance the theorem assumes)."""
    z = np.asarray(logb, dtype=float)
    z = z - z.mean()
    v = np.mean(z * z)
    return np.array([np.mean(z[:, : z.shape[1] - k] * z[:, k:]) / v for k in lags])


def word_sums(
    A: torch.Tensor, B: torch.Tensor, a_max: int, b_max: int
) -> dict[tuple[int, int], torch.Tensor]:
    """J(a, b) = sum over all words with a letters A and b letters B of their products (the paths
    of a steps in time and b in depth, weights shared): J(a, b) = J(a-1, b) A + J(a, b-1) B,
    J(0, 0) = I. Batched over the leading axis of A and B."""
    n = A.shape[-1]
    J = {(0, 0): torch.eye(n, dtype=A.dtype).expand_as(A)}
    for a in range(a_max + 1):
        for b in range(b_max + 1):
            if a or b:
                J[a, b] = (J[a - 1, b] @ A if a else 0) + (J[a, b - 1] @ B if b else 0)
    return J


@dataclass(frozen=True)
class PathTest:
    """Super-additivity of det over the path sum, det J(a, b) >= binom(a+b, a) det(A)^a det(B)^b
    (= sum_c prod_k det M_k), for every (a, b) with a, b >= 1: violations, pairs tested and how
    many J had a negative determinant."""

    family: str
    n: int
    violations: int
    tested: int
    negative: int


def determinant_path_test(
    family: str, A: torch.Tensor, B: torch.Tensor, a_max: int, b_max: int
) -> PathTest:
    """:class:`PathTest` of PSD (or any) A, B (S, n, n), compared in log|det| (slogdet)."""
    J = word_sums(A, B, a_max, b_max)
    la, lb = torch.linalg.slogdet(A)[1], torch.linalg.slogdet(B)[1]
    viol = tested = neg = 0
    for a in range(1, a_max + 1):
        for b in range(1, b_max + 1):
            sign, logabs = torch.linalg.slogdet(J[a, b])
            rhs = math.log(math.comb(a + b, a)) + a * la + b * lb
            bad = (sign <= 0) | (logabs < rhs - 1e-9 * (1 + rhs.abs()))
            viol += int(bad.sum())
            neg += int((sign < 0).sum())
            tested += A.shape[0]
    return PathTest(family, A.shape[-1], viol, tested, neg)


def commuting_psd(
    S: int, n: int, g: torch.Generator
) -> tuple[torch.Tensor, torch.Tensor]:
    """S pairs of PSD matrices with one common random eigenbasis and eigenvalues in [0.5, 1.5] (they
    commute): the control case, where every product along a path is PSD again."""
    Q = torch.linalg.qr(torch.randn(S, n, n, dtype=torch.float64, generator=g))[0]
    d1, d2 = (
        0.5 + torch.rand(S, n, dtype=torch.float64, generator=g) for _ in range(2)
    )
    Qt = Q.transpose(-1, -2)
    return Q @ torch.diag_embed(d1) @ Qt, Q @ torch.diag_embed(d2) @ Qt


# ---- i.i.d. Gaussian transition derivatives at the l-LSC --------------------------------------


def gaussian_log_det_mean(n: int) -> float:
    """E log|det G| for G with i.i.d. N(0, 1) entries: |det G|^2 = prod_{k=1}^n chi^2_k
    (Bartlett), so E log|det G| = (1/2) sum_k (psi(k/2) + log 2)."""
    from scipy.special import digamma

    k = np.arange(1, n + 1)
    return float(0.5 * np.sum(digamma(k / 2) + math.log(2)))


def gaussian_abs_det_log_mean(n: int) -> float:
    """log E|det G| = sum_k log E chi_k = sum_k [log(2)/2 + lgamma((k+1)/2) - lgamma(k/2)]."""
    return float(
        sum(
            0.5 * math.log(2) + math.lgamma((k + 1) / 2) - math.lgamma(k / 2)
            for k in range(1, n + 1)
        )
    )


def newman_exponents(n: int, scale: float = 1.0) -> np.ndarray:
    """Lyapunov exponents of products of i.i.d. matrices G / scale, G with N(0, 1) entries
    (Newman 1986): lambda_i = (1/2)(log 2 + psi((n - i + 1)/2)) - log scale, i = 1..n."""
    from scipy.special import digamma

    i = np.arange(1, n + 1)
    return 0.5 * (math.log(2) + digamma((n - i + 1) / 2)) - math.log(scale)


def l_lsc_gaussian(S: int, T: int, n: int, g: torch.Generator) -> torch.Tensor:
    """S sequences of T i.i.d. transition derivatives M_k = G_k / c with c = exp(E log|det G| / n),
    so that E log|det M_k| = 0 exactly (the l-LSC with the determinant): (S, T, n, n)."""
    c = math.exp(gaussian_log_det_mean(n) / n)
    return torch.randn(S, T, n, n, dtype=torch.float64, generator=g) / c
