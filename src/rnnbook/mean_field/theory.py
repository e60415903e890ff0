"""Mean field theory of random vanilla RNNs and minimalRNNs (Chen, Pennington & Schoenholz 2018, Sec. 3).

Two input sequences with equal norms R and cosine similarity Sigma^t are fed to two copies of a random
network; in the wide limit with *untied* weights the pre-activations are jointly Gaussian with a 2x2
covariance q^t = q^t [[1, c^t], [c^t, 1]] (mean mu_b). This module evaluates

* the vanilla RNN covariance map, Eq. (2), its fixed points q*, c* and chi_{c*}, Eq. (4);
* the minimalRNN maps, Eqs. (6)-(7), the fixed point Q* (App. C, Eq. 24), the cosine map, Eq. (8)
  (in the form derived in :mod:`rnnbook.mean_field.derivations`, which adds the sigma_b term the printed
  equation drops), chi_{c*}, Eq. (9), and chi_1 with the moments of Eq. (13);
* the timescale tau = -1/log chi_{c*} and Algorithm 1 (critical initialization of the minimalRNN).

Gaussian integrals use Gauss-Hermite quadrature (probabilists' nodes); every function broadcasts over
numpy arrays of hyperparameters, the quadrature nodes living on an extra trailing axis.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from functools import lru_cache
from typing import Callable

import numpy as np
from scipy.special import expit

Array = np.ndarray
N1 = 200  # quadrature nodes for 1-d integrals
N2 = 96  # nodes per dimension for 2-d integrals


# ---------------------------------------------------------------------------------------------- quadrature
@lru_cache(maxsize=None)
def hermite(n: int) -> tuple[Array, Array]:
    """Nodes z and weights w (summing to 1) with sum_k w_k f(z_k) ~ E f(Z), Z ~ N(0, 1)."""
    z, w = np.polynomial.hermite_e.hermegauss(n)
    return z, w / w.sum()


def gauss1(f: Callable[[Array], Array], mean, var, n: int = N1) -> Array:
    """E f(mean + sqrt(var) Z) for Z ~ N(0, 1), broadcast over ``mean`` and ``var``."""
    z, w = hermite(n)
    mean, var = np.broadcast_arrays(np.asarray(mean, float), np.asarray(var, float))
    u = mean[..., None] + np.sqrt(var)[..., None] * z
    return f(u) @ w


def gauss2(
    f: Callable[[Array], Array], g: Callable[[Array], Array], mean, var, c, n: int = N2
) -> Array:
    """E f(u1) g(u2) for (u1, u2) Gaussian with mean ``mean``, variance ``var`` and correlation ``c``.

    u1 = mean + sqrt(var) z1,  u2 = mean + sqrt(var) (c z1 + sqrt(1 - c^2) z2), the parametrisation of the
    paper's Eq. (39).
    """
    z, w = hermite(n)
    mean, var, c = np.broadcast_arrays(*(np.asarray(x, float) for x in (mean, var, c)))
    s = np.sqrt(var)[..., None, None]
    cc = np.clip(c, -1.0, 1.0)[..., None, None]
    z1, z2 = z[:, None], z[None, :]
    u1 = mean[..., None, None] + s * z1
    u2 = mean[..., None, None] + s * (cc * z1 + np.sqrt(1.0 - cc**2) * z2)
    vals = f(u1) * g(u2)
    return np.einsum("...ij,i,j->...", vals, w, w)


# ------------------------------------------------------------------------------------ the nonlinearities
def sigmoid(x: Array) -> Array:
    return expit(x)


def dsigmoid(x: Array) -> Array:
    s = expit(x)
    return s * (1.0 - s)


def dtanh(x: Array) -> Array:
    return 1.0 - np.tanh(x) ** 2


def _bisect(
    g: Callable[[Array], Array], lo: Array, hi: Array, iters: int = 60
) -> Array:
    """Vectorised bisection for a root of g with g(lo) > 0 >= g(hi) (keeps the sign convention)."""
    lo, hi = np.array(lo, float), np.array(hi, float)
    for _ in range(iters):
        mid = 0.5 * (lo + hi)
        pos = g(mid) > 0
        lo, hi = np.where(pos, mid, lo), np.where(pos, hi, mid)
    return 0.5 * (lo + hi)


def timescale(chi) -> Array:
    """tau = -1 / log chi_{c*} (Sec. 3.1): the number of steps over which c^t - c* shrinks by e; inf at chi >= 1."""
    chi = np.asarray(chi, float)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(chi < 1.0, -1.0 / np.log(np.where(chi < 1.0, chi, 0.5)), np.inf)


# ------------------------------------------------------------------------------------------ hyperparameters
@dataclass(frozen=True)
class HP:
    """Hyperparameters of a random RNN: W ~ N(0, sigma_w^2/N), V ~ N(0, sigma_v^2/M), b ~ N(mu_b, sigma_b^2),
    inputs of squared norm per unit R. Each field may be an array; they broadcast together."""

    sigma_w: Array | float
    sigma_v: Array | float
    mu_b: Array | float = 0.0
    R: Array | float = 1.0
    sigma_b: Array | float = 0.0

    def __post_init__(self) -> None:
        for f in fields(self):
            v = np.asarray(getattr(self, f.name), float)
            if np.any(~np.isfinite(v)):
                raise ValueError(f"{f.name} = {v!r}: must be finite")
            if f.name in ("sigma_w", "sigma_v", "sigma_b", "R") and np.any(v < 0):
                raise ValueError(f"{f.name} = {v!r}: must be >= 0")
            object.__setattr__(self, f.name, v)

    @property
    def sw2(self) -> Array:
        return self.sigma_w**2

    @property
    def sv2(self) -> Array:
        return self.sigma_v**2

    @property
    def sb2(self) -> Array:
        return self.sigma_b**2


# ========================================================================================= vanilla RNN
def vanilla_covariance_map(
    q11, q12, q22, Sigma12, hp: HP, phi=np.tanh
) -> tuple[Array, Array, Array]:
    """One step of Eq. (2): q^t = sigma_w^2 int D_{q^{t-1}} phi(z) phi(z)^T + sigma_v^2 R Sigma^t + sigma_b^2 I.

    The two pre-activations share the mean mu_b; returns (q11, q12, q22) at time t.
    """
    q11, q12, q22 = (np.asarray(x, float) for x in (q11, q12, q22))
    c = q12 / np.sqrt(q11 * q22)
    # E phi(u1) phi(u2) with different variances: rescale the second Gaussian
    z, w = hermite(N2)
    mean = np.asarray(hp.mu_b, float)
    shape = np.broadcast_shapes(q11.shape, q22.shape, c.shape, mean.shape)
    s1 = np.broadcast_to(np.sqrt(q11), shape)[..., None, None]
    s2 = np.broadcast_to(np.sqrt(q22), shape)[..., None, None]
    cc = np.clip(np.broadcast_to(c, shape), -1, 1)[..., None, None]
    m = np.broadcast_to(mean, shape)[..., None, None]
    u1 = m + s1 * z[:, None]
    u2 = m + s2 * (cc * z[:, None] + np.sqrt(1 - cc**2) * z[None, :])
    e12 = np.einsum("...ij,i,j->...", phi(u1) * phi(u2), w, w)
    e11 = gauss1(lambda u: phi(u) ** 2, hp.mu_b, q11)
    e22 = gauss1(lambda u: phi(u) ** 2, hp.mu_b, q22)
    base = hp.sv2 * hp.R + hp.sb2
    return (
        hp.sw2 * e11 + base,
        hp.sw2 * e12 + hp.sv2 * hp.R * np.asarray(Sigma12, float) + hp.sb2,
        hp.sw2 * e22 + base,
    )


def vanilla_trajectory(Sigmas, hp: HP, q0=None, c0: float = 0.0) -> dict[str, Array]:
    """Iterate Eq. (2) from pre-activations e^0 with variance q0 (default q*) and correlation c0 along the input
    similarities ``Sigmas`` (one per step t = 1..T). Returns c^t and q^t (time axis last)."""
    q0 = vanilla_qstar(hp) if q0 is None else np.asarray(q0, float)
    q11, q12, q22 = q0, c0 * q0, q0
    cs, qs = [], []
    for S in Sigmas:
        q11, q12, q22 = vanilla_covariance_map(q11, q12, q22, S, hp)
        cs.append(q12 / np.sqrt(q11 * q22))
        qs.append(0.5 * (q11 + q22))
    return {"c": np.stack(cs, -1), "q": np.stack(qs, -1)}


def vanilla_q_map(q, hp: HP) -> Array:
    """Diagonal of Eq. (2): q^t = sigma_w^2 E tanh^2(sqrt(q^{t-1}) z + mu_b) + sigma_v^2 R + sigma_b^2."""
    return (
        hp.sw2 * gauss1(lambda u: np.tanh(u) ** 2, hp.mu_b, q) + hp.sv2 * hp.R + hp.sb2
    )


def vanilla_qstar(hp: HP) -> Array:
    """The fixed point q* of the diagonal map (concave in q, so unique), by bisection on [0, q_max]."""
    hi = hp.sw2 + hp.sv2 * hp.R + hp.sb2 + 1e-12  # tanh^2 <= 1
    return _bisect(lambda q: vanilla_q_map(q, hp) - q, np.zeros_like(hi) + 1e-300, hi)


def vanilla_c_map(c, Sigma12, hp: HP, qstar=None) -> Array:
    """Off-diagonal of Eq. (2) at q^t = q*: c^t = (sigma_w^2 E[phi(u1) phi(u2)] + sigma_v^2 R Sigma + sigma_b^2)/q*."""
    qs = vanilla_qstar(hp) if qstar is None else qstar
    e12 = gauss2(np.tanh, np.tanh, hp.mu_b, qs, c)
    return (hp.sw2 * e12 + hp.sv2 * hp.R * np.asarray(Sigma12, float) + hp.sb2) / qs


def vanilla_cstar(Sigma12, hp: HP, qstar=None) -> Array:
    """The stable fixed point c* in [0, 1] of :func:`vanilla_c_map` (bisection; c* = 1 when it is stable)."""
    qs = vanilla_qstar(hp) if qstar is None else qstar
    shape = np.broadcast_shapes(
        np.shape(Sigma12),
        np.shape(qs),
        *(np.shape(getattr(hp, f.name)) for f in fields(hp)),
    )
    return _bisect(
        lambda c: vanilla_c_map(c, Sigma12, hp, qs) - c,
        np.zeros(shape),
        np.ones(shape),
        iters=36,
    )


def vanilla_chi(c, hp: HP, qstar=None) -> Array:
    """Eq. (4): chi_{c*} = sigma_w^2 int D_{q*} z phi'(z1) phi'(z2) (at correlation c)."""
    qs = vanilla_qstar(hp) if qstar is None else qstar
    return hp.sw2 * gauss2(dtanh, dtanh, hp.mu_b, qs, c)


def vanilla_chi1(hp: HP, qstar=None) -> Array:
    """chi_1 = sigma_w^2 E[phi'(sqrt(q*) z + mu_b)^2]: the mean squared singular value of one Jacobian step."""
    qs = vanilla_qstar(hp) if qstar is None else qstar
    return hp.sw2 * gauss1(lambda u: dtanh(u) ** 2, hp.mu_b, qs)


def vanilla_timescale(Sigma12, hp: HP) -> Array:
    """tau = -1/log chi_{c*} for the vanilla RNN at input similarity Sigma12."""
    qs = vanilla_qstar(hp)
    return timescale(vanilla_chi(vanilla_cstar(Sigma12, hp, qs), hp, qs))


def vanilla_critical(qstar, R, sigma_b=0.0, mu_b=0.0) -> tuple[Array, Array]:
    """(sigma_w^2, sigma_v^2) with chi_1 = 1 at the prescribed q* (the vanilla analogue of Algorithm 1):
    sigma_w^2 = 1/E[phi'^2], sigma_v^2 = (q* - sigma_w^2 E[phi^2] - sigma_b^2)/R."""
    qstar, R = np.asarray(qstar, float), np.asarray(R, float)
    sw2 = 1.0 / gauss1(lambda u: dtanh(u) ** 2, mu_b, qstar)
    sv2 = (
        qstar - sw2 * gauss1(lambda u: np.tanh(u) ** 2, mu_b, qstar) - sigma_b**2
    ) / R
    return sw2, sv2


def vanilla_spectrum_variance(T, hp: HP, s1: float, qstar=None) -> Array:
    """Variance of the spectrum of J J^T, J = prod_t D_{phi'(e^t)} W_t (untied), for T steps:
    sigma^2 = T chi_1^(2T) (E[phi'^4]/E[phi'^2]^2 - 1 - s1) (Pennington et al. 2017, the vanilla counterpart
    of Eq. 12)."""
    qs = vanilla_qstar(hp) if qstar is None else qstar
    d2 = gauss1(lambda u: dtanh(u) ** 2, hp.mu_b, qs)
    d4 = gauss1(lambda u: dtanh(u) ** 4, hp.mu_b, qs)
    chi1 = hp.sw2 * d2
    T = np.asarray(T, float)
    return T * chi1 ** (2 * T) * (d4 / d2**2 - 1.0 - s1)


# ========================================================================================= minimalRNN
def minimal_diag_map(Q, hp: HP) -> tuple[Array, Array]:
    """Diagonal of Eqs. (6)-(7) (App. B, Eqs. 21-22): q^t = sigma_w^2 Q^{t-1} + sigma_v^2 R + sigma_b^2 and
    Q^t = Q^{t-1} E[sigma^2(sqrt(q^t) z + mu_b)] + R E[(1 - sigma)^2]. Returns (Q^t, q^t)."""
    q = hp.sw2 * Q + hp.sv2 * hp.R + hp.sb2
    return (
        Q * gauss1(lambda u: sigmoid(u) ** 2, hp.mu_b, q)
        + hp.R * gauss1(lambda u: (1 - sigmoid(u)) ** 2, hp.mu_b, q)
    ), q


def minimal_fixed_point(hp: HP) -> tuple[Array, Array]:
    """(Q*, q*) solving the transcendental Eq. (24), F(Q*) = E[(1-sigma)^2]/E[1-sigma^2] - Q*/R = 0.

    F(0) > 0 and, since (1-s)^2 <= 1-s^2 for s in [0, 1], F(R) <= 0: bisection on (0, R].
    """

    def F(Q):
        q = hp.sw2 * Q + hp.sv2 * hp.R + hp.sb2
        num = gauss1(lambda u: (1 - sigmoid(u)) ** 2, hp.mu_b, q)
        den = 1.0 - gauss1(lambda u: sigmoid(u) ** 2, hp.mu_b, q)
        return num / den - Q / hp.R

    R = np.broadcast_to(
        hp.R, np.broadcast_shapes(*(np.shape(getattr(hp, f.name)) for f in fields(hp)))
    )
    Q = _bisect(F, np.zeros_like(R), R.copy(), iters=52)
    return Q, hp.sw2 * Q + hp.sv2 * hp.R + hp.sb2


def minimal_step(Q, QC, Sigma12, hp: HP) -> tuple[Array, Array, Array, Array]:
    """One step of the full 2x2 maps (6)-(7) for two inputs of equal norm R and similarity Sigma12.

    State at t-1: Q (= Q_11 = Q_22) and QC (= Q_12). Returns (Q^t, QC^t, q^t, c^t) where c^t is the
    pre-activation cosine similarity at step t.
    """
    q = hp.sw2 * Q + hp.sv2 * hp.R + hp.sb2
    c = (hp.sw2 * QC + hp.sv2 * hp.R * Sigma12 + hp.sb2) / q
    m = gauss1(sigmoid, hp.mu_b, q)
    s2 = gauss1(lambda u: sigmoid(u) ** 2, hp.mu_b, q)
    A = gauss2(sigmoid, sigmoid, hp.mu_b, q, c)
    Q_new = Q * s2 + hp.R * (1 - 2 * m + s2)
    QC_new = QC * A + hp.R * Sigma12 * (1 - 2 * m + A)
    return Q_new, QC_new, q, c


def minimal_trajectory(Sigmas, hp: HP, Q0=None, C0=0.0) -> dict[str, Array]:
    """Iterate (6)-(7) along the input similarities ``Sigmas`` (one per step t = 1..T) from Q^0 (default Q*)
    and hidden-state cosine similarity C0. Returns arrays with the time axis last: c, q, Q, C."""
    Q = minimal_fixed_point(hp)[0] if Q0 is None else np.asarray(Q0, float)
    QC = Q * C0
    out = {k: [] for k in ("c", "q", "Q", "C")}
    for S in Sigmas:
        Q, QC, q, c = minimal_step(Q, QC, S, hp)
        for k, v in (("c", c), ("q", q), ("Q", Q), ("C", QC / Q)):
            out[k].append(np.asarray(v))
    return {k: np.stack(v, axis=-1) for k, v in out.items()}


def minimal_c_map(
    c_prev, Sigma_prev, Sigma, hp: HP, qstar=None, printed: bool = False
) -> Array:
    """The cosine-similarity map at q^t = q* (Eq. 8):

    c^t = [c^{t-1} + (sigma_w^2 - sigma_v^2) rho^{t-1} - sigma_b^2/q*] E[sigma(u1) sigma(u2)]
          - 2 sigma_w^2 rho^{t-1} E[sigma(u1)] + sigma_w^2 rho^{t-1} + sigma_v^2 rho^t + sigma_b^2/q*,

    rho^t = R Sigma^t / q*, the integrals at (q*, c^{t-1}). This is the map derived in
    :mod:`rnnbook.mean_field.derivations`; ``printed=True`` drops the two sigma_b^2 terms, as the paper's
    Eq. (8) does (the two agree when sigma_b = 0).
    """
    qs = minimal_fixed_point(hp)[1] if qstar is None else qstar
    rho_prev, rho = (
        hp.R * np.asarray(Sigma_prev, float) / qs,
        hp.R * np.asarray(Sigma, float) / qs,
    )
    b = 0.0 if printed else hp.sb2 / qs
    A = gauss2(sigmoid, sigmoid, hp.mu_b, qs, c_prev)
    m = gauss1(sigmoid, hp.mu_b, qs)
    return (
        (c_prev + (hp.sw2 - hp.sv2) * rho_prev - b) * A
        - 2 * hp.sw2 * rho_prev * m
        + hp.sw2 * rho_prev
        + hp.sv2 * rho
        + b
    )


def minimal_cstar(Sigma12, hp: HP, qstar=None) -> Array:
    """The stable fixed point c* in [0, 1] of the cosine map at constant Sigma12 (c* = 1 when it is stable)."""
    qs = minimal_fixed_point(hp)[1] if qstar is None else qstar
    shape = np.broadcast_shapes(
        np.shape(Sigma12),
        np.shape(qs),
        *(np.shape(getattr(hp, f.name)) for f in fields(hp)),
    )
    return _bisect(
        lambda c: minimal_c_map(c, Sigma12, Sigma12, hp, qs) - c,
        np.zeros(shape),
        np.ones(shape),
        iters=36,
    )


def minimal_chi(c, Sigma12, hp: HP, qstar=None, printed: bool = False) -> Array:
    """Eq. (9): chi_{c*} = E[sigma(u1) sigma(u2)] + (q* c* + (sigma_w^2 - sigma_v^2) R Sigma12 - sigma_b^2)
    E[sigma'(u1) sigma'(u2)], integrals at (q*, c*). ``printed=True``: without the -sigma_b^2 (the paper's form)."""
    qs = minimal_fixed_point(hp)[1] if qstar is None else qstar
    b = 0.0 if printed else hp.sb2
    A = gauss2(sigmoid, sigmoid, hp.mu_b, qs, c)
    Ap = gauss2(dsigmoid, dsigmoid, hp.mu_b, qs, c)
    return A + (qs * c + (hp.sw2 - hp.sv2) * hp.R * np.asarray(Sigma12, float) - b) * Ap


def minimal_timescale(Sigma12, hp: HP) -> Array:
    """tau = -1/log chi_{c*} of the minimalRNN at input similarity Sigma12 (Fig. 1e, Fig. 2)."""
    qs = minimal_fixed_point(hp)[1]
    return timescale(minimal_chi(minimal_cstar(Sigma12, hp, qs), Sigma12, hp, qs))


@dataclass(frozen=True)
class Moments13:
    """The quantities of Eq. (13) at the fixed point."""

    Qstar: Array
    qstar: Array
    mu1: Array
    sigma1_sq: Array
    mu2: Array
    sigma2_sq: Array

    @property
    def chi1(self) -> Array:
        return self.mu1 + self.mu2


def minimal_moments13(hp: HP) -> Moments13:
    """mu_1, sigma_1^2, mu_2, sigma_2^2 of Eq. (13), as printed, at the fixed point (Q*, q*)."""
    Q, q = minimal_fixed_point(hp)
    mu1 = gauss1(lambda u: sigmoid(u) ** 2, hp.mu_b, q)
    s1 = gauss1(lambda u: sigmoid(u) ** 4, hp.mu_b, q) - mu1**2
    mu2 = hp.sw2 * (Q + hp.R) * gauss1(lambda u: dsigmoid(u) ** 2, hp.mu_b, q)
    s2 = (
        hp.sw2**2 * (Q**2 + hp.R**2) * gauss1(lambda u: dsigmoid(u) ** 4, hp.mu_b, q)
        - mu2**2
    )
    return Moments13(Q, q, mu1, s1, mu2, s2)


def minimal_spectrum_variance_printed(T, hp: HP, s1: float) -> Array:
    """Eq. (12) as printed: sigma^2_{JJ^T} = chi_1^{2T} (1 + T (2 (mu_1 - s_1) mu_2 + sigma_1^2 + sigma_2^2)/chi_1^2)."""
    m = minimal_moments13(hp)
    T = np.asarray(T, float)
    return m.chi1 ** (2 * T) * (
        1 + T * (2 * (m.mu1 - s1) * m.mu2 + m.sigma1_sq + m.sigma2_sq) / m.chi1**2
    )


def minimal_hidden_fourth_moment(hp: HP, x4_over_R2: float = 3.0) -> Array:
    """E[h^4] at the fixed point, from h^t = u h^{t-1} + (1-u) x with u, h, x independent (the factorisation of
    Eq. 7): E h^4 = (6 E[u^2 (1-u)^2] Q* R + E[(1-u)^4] E[x^4]) / (1 - E[u^4]); E[x^4] = 3 R^2 for Gaussian x."""
    Q, q = minimal_fixed_point(hp)
    u4 = gauss1(lambda u: sigmoid(u) ** 4, hp.mu_b, q)
    u2v2 = gauss1(lambda u: sigmoid(u) ** 2 * (1 - sigmoid(u)) ** 2, hp.mu_b, q)
    v4 = gauss1(lambda u: (1 - sigmoid(u)) ** 4, hp.mu_b, q)
    return (6 * u2v2 * Q * hp.R + v4 * x4_over_R2 * hp.R**2) / (1 - u4)


def minimal_one_step_moments(
    hp: HP, s1: float, x4_over_R2: float = 3.0
) -> tuple[Array, Array]:
    """First moment and variance of the spectrum of J_t J_t^T for ONE step J_t = D_u + D_a W (Eq. 10),
    a = sigma'(e)(h - x), in the wide limit, computed term by term from the trace expansion:

    m_1 = E[u^2] + sigma_w^2 E[a^2] = chi_1,
    var = Var(u^2) + 2 sigma_w^2 E[u^2 a^2] + sigma_w^4 E[a^4] - mu_2^2 - s_1 mu_2^2

    with E[u^2 a^2] = E[sigma^2 sigma'^2] (Q* + R) (u and sigma' share e), E[a^4] = E[sigma'^4] E[(h - x)^4].
    """
    Q, q = minimal_fixed_point(hp)
    E = lambda f: gauss1(f, hp.mu_b, q)  # noqa: E731
    mu1 = E(lambda u: sigmoid(u) ** 2)
    var_u2 = E(lambda u: sigmoid(u) ** 4) - mu1**2
    mu2 = hp.sw2 * (Q + hp.R) * E(lambda u: dsigmoid(u) ** 2)
    cross = 2 * hp.sw2 * (Q + hp.R) * E(lambda u: sigmoid(u) ** 2 * dsigmoid(u) ** 2)
    h4 = minimal_hidden_fourth_moment(hp, x4_over_R2)
    a4 = E(lambda u: dsigmoid(u) ** 4) * (h4 + 6 * Q * hp.R + x4_over_R2 * hp.R**2)
    var = var_u2 + cross + hp.sw2**2 * a4 - mu2**2 - s1 * mu2**2
    return mu1 + mu2, var


def minimal_one_step_terms(
    hp: HP, s1: float, x4_over_R2: float = 3.0
) -> tuple[dict, dict]:
    """The five terms of the one-step variance of the spectrum of J_t J_t^T (Eq. 10) at the fixed
    point, (paper, derived): Eq. (12)-(13) as printed, and the trace expansion of
    :func:`rnnbook.mean_field.derivations.derive_one_step_variance` (same keys, its ``TERMS``):

    ============  =====================================  =============================================
    term          Eq. (12)-(13)                          derived
    ============  =====================================  =============================================
    Var(u^2)      sigma_1^2                              sigma_1^2
    cross         2 mu_1 mu_2                            2 sigma_w^2 (Q* + R) E[sigma^2 sigma'^2]
    quartic       sigma_w^4 ((Q*)^2 + R^2) E[sigma'^4]   sigma_w^4 E[sigma'^4] E[(h - x~)^4]
    -mu_2^2       -mu_2^2                                -mu_2^2
    s_1           -2 s_1 mu_2                            -s_1 mu_2^2
    ============  =====================================  =============================================

    with E[(h - x~)^4] = E[h^4] + 6 Q* R + E[x~^4] (:func:`minimal_hidden_fourth_moment`)."""
    Q, q = minimal_fixed_point(hp)
    m = minimal_moments13(hp)
    Esp4 = gauss1(lambda u: dsigmoid(u) ** 4, hp.mu_b, q)
    Es2sp2 = gauss1(lambda u: sigmoid(u) ** 2 * dsigmoid(u) ** 2, hp.mu_b, q)
    d4 = minimal_hidden_fourth_moment(hp, x4_over_R2) + 6 * Q * hp.R
    d4 = d4 + x4_over_R2 * hp.R**2
    paper = {
        "Var(u^2)": m.sigma1_sq,
        "cross": 2 * m.mu1 * m.mu2,
        "quartic": hp.sw2**2 * (Q**2 + hp.R**2) * Esp4,
        "-mu_2^2": -(m.mu2**2),
        "s_1": -2 * s1 * m.mu2,
    }
    derived = {
        "Var(u^2)": m.sigma1_sq,
        "cross": 2 * hp.sw2 * (Q + hp.R) * Es2sp2,
        "quartic": hp.sw2**2 * d4 * Esp4,
        "-mu_2^2": -(m.mu2**2),
        "s_1": -s1 * m.mu2**2,
    }
    return paper, derived


def minimal_spectrum_variance_free(
    T, hp: HP, s1: float, x4_over_R2: float = 3.0
) -> Array:
    """Variance of the spectrum of JJ^T after T untied steps if the one-step factors J_t J_t^T multiply freely
    (S-transforms multiply): sigma^2(T) = T chi_1^(2T - 2) var_1, with var_1 from :func:`minimal_one_step_moments`."""
    chi1, v = minimal_one_step_moments(hp, s1, x4_over_R2)
    T = np.asarray(T, float)
    return T * chi1 ** (2 * T - 2) * v


@dataclass(frozen=True)
class CriticalInit:
    """Output of Algorithm 1 (with its intermediate quantities)."""

    sigma_w2: Array
    sigma_v2: Array
    sigma_b2: Array
    Qstar: Array
    qstar: Array
    mu_b: Array
    R: Array
    Eu2: Array
    E1mu2: Array
    Eup2: Array

    def hp(self) -> HP:
        return HP(
            np.sqrt(self.sigma_w2),
            np.sqrt(np.maximum(self.sigma_v2, 0.0)),
            self.mu_b,
            self.R,
            np.sqrt(self.sigma_b2),
        )

    @property
    def feasible(self) -> Array:
        """sigma_v^2 >= 0 (q* large enough for the chosen mu_b and R)."""
        return self.sigma_v2 >= 0


def algorithm1(qstar, mu_b, R) -> CriticalInit:
    """Algorithm 1: critical initialization of the minimalRNN for given q*, mu_b, R (chi_1 = 1)."""
    qstar, mu_b, R = np.broadcast_arrays(
        *(np.asarray(x, float) for x in (qstar, mu_b, R))
    )
    Eu2 = gauss1(lambda u: sigmoid(u) ** 2, mu_b, qstar)  # line 1
    E1mu2 = gauss1(lambda u: (1 - sigmoid(u)) ** 2, mu_b, qstar)  # line 2
    Q = R * E1mu2 / (1 - Eu2)  # line 3
    Eup2 = gauss1(lambda u: dsigmoid(u) ** 2, mu_b, qstar)  # line 4
    sw2 = (1 - Eu2) / (Q + R) / Eup2  # line 5
    sb2 = np.zeros_like(qstar)  # line 6
    sv2 = (qstar - Q * sw2 - sb2) / R  # line 7
    return CriticalInit(sw2, sv2, sb2, Q, qstar, mu_b, R, Eu2, E1mu2, Eup2)


def minimal_chi1(hp: HP) -> Array:
    """chi_1 = mu_1 + mu_2 (Eq. 13): the mean squared singular value of one step of the Jacobian (10)."""
    return minimal_moments13(hp).chi1
