"""The law of the weights (Chizat et al., Theorem 2.2, Eq. 2.13; Remarks (iv)-(v), Fig. 2.3A).

In the limit the scale-free weights are U~ = Σ_i Γ_i A_i, W~ = Σ_ij Γ~_i Γ_j^T G_ij, V~ = Σ_i Γ~_i B_i
(2.13): the rows of U~ have covariance A^T A, the entries of V~ variance ‖B‖², those of W~ second
moment ‖G‖_F² (:func:`weight_moments`), against which :func:`moment_errors` measures a batch of
finite networks. With a non-Gaussian initialization (Remark (v)) Γ~_1 is V~(0) itself, so an entry
of V~(k) is B_1(k) V~(0) + N(0, Σ_{i>=2} B_i(k)²) (:func:`v_entry_law`, :func:`non_gaussian_entries`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch
from scipy import special, stats

from . import deep_linear, limit
from .limit import LimitState
from .regression import Regression

EXCESS_KURTOSIS = {"gaussian": 0.0, "uniform": -1.2, "rademacher": -2.0}


def weight_moments(state: LimitState) -> dict[str, np.ndarray | float]:
    """Second moments of the entries of the limit weights (2.13): the rows of U~^∞ have covariance A^T A,
    the entries of V~^∞ have variance ‖B‖², those of W~^∞ have second moment ‖G‖_F²."""
    return {
        "UtU": state.A.T @ state.A,
        "v_sq": float(state.B @ state.B),
        "w_sq": float(np.sum(state.G**2)),
    }


def v_entry_law(B: np.ndarray, dist: str = "gaussian"):
    """The law of an entry of V~^∞(k) = Σ_i Γ~_i B_i(k) when Γ~_1 = V~(0) has unit-variance law ``dist`` and
    Γ~_2, Γ~_3, ... are Gaussian (Remark (v) after Theorem 2.2): B_1 V~(0) + N(0, Σ_{i>=2} B_i²).
    Returns a frozen distribution with ``cdf`` and ``pdf`` (scipy)."""
    b1 = float(B[0])
    sigma = float(np.sqrt(np.sum(B[1:] ** 2)))
    if dist == "gaussian":
        return stats.norm(scale=float(np.hypot(b1, sigma)))
    return _ConvolvedLaw(b1, sigma, dist)


def _Phi(u):
    return special.ndtr(u)


def _phi(u):
    return np.exp(-0.5 * np.asarray(u) ** 2) / np.sqrt(2 * np.pi)


class _ConvolvedLaw:
    """b1 X + σ N with X uniform on [−√3, √3] or ±1 and N standard normal, independent."""

    def __init__(self, b1: float, sigma: float, dist: str) -> None:
        if dist not in ("uniform", "rademacher"):
            raise ValueError(
                f"distribution {dist!r}: must be gaussian, uniform or rademacher"
            )
        self.b1, self.sigma, self.dist = abs(b1), max(sigma, 1e-300), dist

    def _F(self, x):  # ∫ Φ((x - t)/σ) dt, an antiderivative used for the uniform case
        u = np.asarray(x) / self.sigma
        return self.sigma * (u * _Phi(u) + _phi(u))

    def cdf(self, x):
        x = np.asarray(x, dtype=float)
        if self.dist == "rademacher":
            return 0.5 * (
                _Phi((x - self.b1) / self.sigma) + _Phi((x + self.b1) / self.sigma)
            )
        a = self.b1 * 3.0**0.5
        if a == 0:
            return _Phi(x / self.sigma)
        return (self._F(x + a) - self._F(x - a)) / (2 * a)

    def pdf(self, x):
        x = np.asarray(x, dtype=float)
        if self.dist == "rademacher":
            return (
                0.5
                * (_phi((x - self.b1) / self.sigma) + _phi((x + self.b1) / self.sigma))
                / self.sigma
            )
        a = self.b1 * 3.0**0.5
        if a == 0:
            return _phi(x / self.sigma) / self.sigma
        return (_Phi((x + a) / self.sigma) - _Phi((x - a) / self.sigma)) / (2 * a)

    def var(self) -> float:
        return self.b1**2 + self.sigma**2


def moment_errors(
    net: deep_linear.MuPNet, mom: dict[str, np.ndarray | float]
) -> dict[str, np.ndarray]:
    """Relative errors of each network's second moments against the limit ``mom`` (one per network):
    ``U`` the Gram matrix U~^T U~/m against A^T A (Frobenius), ``W`` and ``V`` the mean squares of the
    entries of W~ and V~ against ‖G‖_F² and ‖B‖², and ``Wchange`` Remark (ii), ‖W − W(0)‖_F/‖W(0)‖_F.
    Needs Z (``keep_init=True``)."""
    m = net.m
    Ut, Wt, Vt = deep_linear.scale_free(net)
    gram = (torch.bmm(Ut.transpose(1, 2), Ut) / m).cpu().numpy()
    UtU, w_sq, v_sq = mom["UtU"], mom["w_sq"], mom["v_sq"]
    W0 = net.Z / m**0.5
    change = torch.linalg.matrix_norm(net.W - W0) / torch.linalg.matrix_norm(W0)
    return {
        "U": np.linalg.norm(gram - UtU, axis=(1, 2)) / np.linalg.norm(UtU),
        "W": np.abs((Wt**2).mean((1, 2)).cpu().numpy() - w_sq) / w_sq,
        "V": np.abs((Vt**2).mean(1).cpu().numpy() - v_sq) / v_sq,
        "Wchange": change.cpu().numpy(),
    }


def gaussian_ks(entries: np.ndarray, v_sq: float) -> float:
    """Kolmogorov-Smirnov p-value of ``entries`` against N(0, v_sq) (the entries of V~^∞)."""
    return float(stats.kstest(entries, stats.norm(scale=np.sqrt(v_sq)).cdf).pvalue)


@dataclass
class EntryLaw:
    """The entries of V~ = mV of one network at step ``k`` (Fig. 2.3A) against the predicted law.

    ``resid`` = V~(k) − B_1(k) V~(0) should be N(0, σ²) with σ² = Σ_{i>=2} B_i(k)²; the p-values are
    D'Agostino's normality test (``normal_*``) and Kolmogorov-Smirnov against the prediction (``ks_*``).
    """

    V0: np.ndarray
    Vk: np.ndarray
    B: np.ndarray
    law: object
    sigma_rest: float
    resid: np.ndarray
    normal_V: float
    ks_V: float
    normal_resid: float
    ks_resid: float


def non_gaussian_entries(
    data: Regression,
    tau: float,
    m: int,
    k: int,
    dist: str,
    seed: int,
    device: str = "cpu",
) -> EntryLaw:
    """Train one width-``m`` network initialized from ``dist`` for ``k`` steps; test its V~(k)."""
    net = deep_linear.init_mup(
        m, data.d, 1, seed=seed, dist=dist, keep_init=False, device=device
    )
    V0 = (m * net.V[0]).cpu().numpy()
    deep_linear.train(net, data, tau, k, every=max(1, k))
    Vk = (m * net.V[0]).cpu().numpy()
    B = limit.train(data, tau, k, keep=(k,)).states[k].B  # exact truncation
    law = v_entry_law(B, dist)
    sigma = float(np.sqrt(np.sum(B[1:] ** 2)))
    resid = Vk - B[0] * V0
    return EntryLaw(
        V0=V0,
        Vk=Vk,
        B=B,
        law=law,
        sigma_rest=sigma,
        resid=resid,
        normal_V=float(stats.normaltest(Vk).pvalue),
        ks_V=float(stats.kstest(Vk, law.cdf).pvalue),
        normal_resid=float(stats.normaltest(resid).pvalue),
        ks_resid=float(stats.kstest(resid, stats.norm(scale=sigma).cdf).pvalue),
    )


def excess_kurtosis_path(
    data: Regression, tau: float, steps: int, N: int, dist: str, points: int = 50
) -> np.ndarray:
    """Excess kurtosis of the predicted law of an entry of V~(k), κ B_1(k)⁴/‖B(k)‖⁴ (κ that of
    ``dist``), at about ``points`` steps k of the limit trajectory, 0 to ``steps``."""
    keep = tuple(range(0, steps + 1, max(1, steps // points)))
    states = limit.train(data, tau, steps, N=N, every=steps, keep=keep).states
    kappa = EXCESS_KURTOSIS[dist]
    return np.array([kappa * s.B[0] ** 4 / (s.B @ s.B) ** 2 for s in states.values()])
