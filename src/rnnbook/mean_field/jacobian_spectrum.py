"""The spectrum of J J^T for the end-to-end Jacobian of random RNNs (Chen et al. 2018, Sec. 3.2.2, Eqs. 10-13).

For the minimalRNN the one-step Jacobian is (Eq. 10)

    J_t = dh^t/dh^{t-1} = D_{u^t} + D_{sigma'(e^t) * (h^{t-1} - x~^t)} W_t,

and for the vanilla RNN J_t = D_{tanh'(e^t)} W_t. The end-to-end Jacobian of T steps is J = J_T ... J_1.
:func:`jacobian_moments` samples networks (untied: a fresh W_t, V_t, b_t per step; or tied), runs them at
their fixed point (a burn-in from h^0 with second moment Q*), multiplies the exact Jacobians and records the
first two moments of the spectrum of J J^T after every step,

    m_1(T) = tr(J J^T)/N,   m_2(T) = tr((J J^T)^2)/N,   variance = m_2 - m_1^2.

:func:`minimal_study` and :func:`vanilla_study` set these against Eq. (12) (and its vanilla counterpart)
at critical initializations; :func:`gradient_study` follows m_1(T), the squared norm of back-propagated
gradients, in real (tied) networks built with Algorithm 1. :func:`one_step_terms_mc` samples the
terms of the one-step variance (Eqs. 12-13) at the fixed point, :func:`one_step_values` sets them and
the sampled Jacobians against the derived terms and the printed ones.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import torch

from . import minimal_rnn
from .critical_init import diag_slope
from .theory import (
    HP,
    algorithm1,
    minimal_chi1,
    minimal_fixed_point,
    minimal_moments13,
    minimal_one_step_terms,
    minimal_spectrum_variance_free,
    minimal_spectrum_variance_printed,
    vanilla_qstar,
    vanilla_spectrum_variance,
)


@dataclass(frozen=True)
class SpectrumMoments:
    """Per-network moments after T = 1..T_max steps, arrays of shape (K, T_max)."""

    m1: np.ndarray
    m2: np.ndarray

    @property
    def variance(self) -> np.ndarray:
        return self.m2 - self.m1**2

    @property
    def T(self) -> np.ndarray:
        return np.arange(1, self.m1.shape[1] + 1)


def _scalar(x) -> float:
    x = np.asarray(x, float)
    if x.size != 1:
        raise ValueError("jacobian_moments takes scalar hyperparameters")
    return float(x)


def jacobian_moments(
    model: str,
    hp: HP,
    N: int,
    T: int,
    K: int,
    seed: int,
    orthogonal: bool = False,
    tied: bool = False,
    burn_in: int = 30,
    dtype=torch.float64,
    device: str = "cpu",
    second_moment: bool = True,
) -> SpectrumMoments:
    """Moments of the spectrum of J J^T over T steps for K sampled networks of width N.

    ``model`` is ``"minimal"`` (inputs x~ ~ N(0, R) per unit, h^0 with second moment Q*) or ``"vanilla"``
    (inputs x ~ N(0, R), e^0 ~ N(mu_b, q*)). W is Gaussian (s_1 = -1) or ``orthogonal`` (s_1 = 0). The network
    runs ``burn_in`` steps before the Jacobian is accumulated, so that the states are at their fixed point.
    The products run on ``device``; every draw is made on the CPU generator and moved there.
    ``second_moment=False`` records m_1 only (m_2 is nan), as the squared Frobenius norm of J:
    it skips the product J J^T, half the work of a step.
    """
    if model not in ("minimal", "vanilla"):
        raise ValueError(f"model = {model!r}: must be 'minimal' or 'vanilla'")
    gen = torch.Generator(device="cpu").manual_seed(int(seed))

    def rn(*shape: int) -> torch.Tensor:
        return torch.randn(*shape, generator=gen, dtype=dtype, device="cpu").to(device)

    sw, sv, mu, R, sb = (
        _scalar(getattr(hp, k)) for k in ("sigma_w", "sigma_v", "mu_b", "R", "sigma_b")
    )
    if model == "minimal":
        h = np.sqrt(float(minimal_fixed_point(hp)[0])) * rn(K, 1, N)
    else:
        h = torch.tanh(mu + np.sqrt(float(vanilla_qstar(hp))) * rn(K, 1, N))

    def draw() -> minimal_rnn.Weights:
        W = (
            minimal_rnn.orthogonal_matrix(K, N, sw, gen, dtype, device)
            if orthogonal
            else minimal_rnn.gaussian_matrix(K, N, N, sw, gen, dtype, device)
        )
        # untied: a fresh V acts on x like N(0, sigma_v^2 |x|^2/N) per unit, so V is only drawn when tied
        V = (
            minimal_rnn.gaussian_matrix(K, N, N, sv, gen, dtype, device)
            if tied
            else None
        )
        return minimal_rnn.Weights(W, V, mu + sb * rn(K, N))

    w = draw()
    # the (K, N, N) products live in three buffers reused at every step: fresh N x N tensors per step
    # fragment the allocator's heap until it holds many GB (T = 784 at N = 1024 reached 20 GB)
    J = torch.eye(N, dtype=dtype, device=device).expand(K, N, N).clone()
    Jt, J_next = torch.empty_like(J), torch.empty_like(J)
    M = torch.empty_like(J) if second_moment else None
    m1, m2 = [], []
    for t in range(burn_in + T):
        if not tied and t >= burn_in:
            w = draw()
        x = np.sqrt(R) * rn(K, 1, N)
        vx = (
            torch.bmm(x, w.V.transpose(1, 2))
            if tied
            else sv * torch.sqrt((x**2).mean(-1, keepdim=True)) * rn(K, 1, N)
        )
        if tied or t >= burn_in:
            e = torch.bmm(h, w.W.transpose(1, 2)) + vx + w.b.unsqueeze(1)
        else:  # untied burn-in: a fresh W acts on h like N(0, sigma_w^2 |h|^2/N) per unit, no matrix needed
            wh = sw * torch.sqrt((h**2).mean(-1, keepdim=True)) * rn(K, 1, N)
            e = wh + vx + mu + sb * rn(K, 1, N)
        if model == "minimal":  # Eq. (5)
            u = torch.sigmoid(e)
            h_new = u * h + (1 - u) * x
        else:  # Eq. (1)
            h_new = torch.tanh(e)
        if t >= burn_in:
            if model == "minimal":
                a = (u * (1 - u) * (h - x))[:, 0]  # sigma'(e) (h^{t-1} - x~^t)
                torch.mul(a.unsqueeze(-1), w.W, out=Jt)  # Eq. (10): D_u + D_a W
                torch.diagonal(Jt, dim1=1, dim2=2).add_(u[:, 0])
            else:
                torch.mul((1 - h_new[:, 0] ** 2).unsqueeze(-1), w.W, out=Jt)  # D W
            torch.bmm(Jt, J, out=J_next)
            J, J_next = J_next, J
            if second_moment:
                torch.bmm(J, J.transpose(1, 2), out=M)
                m1.append(torch.diagonal(M, dim1=1, dim2=2).sum(-1) / N)
                m2.append(torch.linalg.matrix_norm(M) ** 2 / N)
            else:  # tr(J J^T) = |J|_F^2
                m1.append(torch.linalg.matrix_norm(J) ** 2 / N)
                m2.append(torch.full_like(m1[-1], float("nan")))
        h = h_new
    m1, m2 = (torch.stack(m, 1).cpu().numpy() for m in (m1, m2))
    return SpectrumMoments(m1, m2)


def loglinear_slope(T: np.ndarray, y: np.ndarray) -> float:
    """Least-squares slope of log y against T (the per-step growth rate log chi of y ~ A chi^T)."""
    return float(np.polyfit(np.asarray(T, float), np.log(np.asarray(y, float)), 1)[0])


def within(meas: float, se: float, pred: float, rel: float = 0.2) -> bool:
    """|measured - predicted| <= 2 SE + ``rel`` |predicted|."""
    return abs(meas - pred) <= 2 * se + rel * abs(pred)


@dataclass(frozen=True)
class Ensemble:
    """One ensemble of sampled networks: its spectral variance over T and the predictions."""

    hp: HP
    s1: float  # -1 for Gaussian W, 0 for orthogonal W
    moments: SpectrumMoments
    predicted: dict  # name -> prediction over T = 1..T_max
    summary: dict = field(default_factory=dict)

    @property
    def mean(self) -> np.ndarray:
        return self.moments.variance.mean(0)

    @property
    def se(self) -> np.ndarray:
        v = self.moments.variance
        return v.std(0, ddof=1) / np.sqrt(v.shape[0])


def _ensemble(hp: HP, s1: float, r: SpectrumMoments, predicted: dict) -> Ensemble:
    v = r.variance.mean(0)
    se = r.variance.std(0, ddof=1) / np.sqrt(r.variance.shape[0])
    m2, se2 = r.m2.mean(0), r.m2.std(0, ddof=1) / np.sqrt(r.m2.shape[0])
    summary = {
        "var_T1": (float(v[0]), float(se[0])),
        "var_T": (float(v[-1]), float(se[-1])),
        "m2_T1": (float(m2[0]), float(se2[0])),
        "m2_T": (float(m2[-1]), float(se2[-1])),
    }
    for name, p in predicted.items():
        summary[f"{name}_T1"], summary[f"{name}_T"] = float(p[0]), float(p[-1])
    return Ensemble(hp, s1, r, predicted, summary)


def _ensemble_name(orthogonal: bool) -> str:
    return "orthogonal" if orthogonal else "Gaussian"


@dataclass(frozen=True)
class MinimalStudy:
    """Eq. (12) against untied minimalRNNs at critical initializations (q*, mu_b) of Algorithm 1."""

    settings: list  # [(q*, mu_b)]
    ensembles: dict  # (q*, mu_b, 'Gaussian' | 'orthogonal') -> Ensemble
    T: int

    def _pair(self, qs, mu) -> tuple[dict, dict]:
        e = self.ensembles
        return e[(qs, mu, "Gaussian")].summary, e[(qs, mu, "orthogonal")].summary

    def slopes(self, name: str) -> list[float]:
        return [
            self.ensembles[(q, m, name)].summary["slope"][0] for q, m in self.settings
        ]

    def gaussian_minus_orthogonal(self) -> dict:
        """Per mu_b: (measured slope difference, its SE, the difference Eq. (12) predicts)."""
        out = {}
        for qs, mu in self.settings:
            g, o = self._pair(qs, mu)
            out[f"mu_b={mu:g}"] = (
                round(g["slope"][0] - o["slope"][0], 3),
                round(float(np.hypot(g["slope"][1], o["slope"][1])), 3),
                round(g["printed_slope"] - o["printed_slope"], 3),
            )
        return out

    def rows(self, name: str, moment: str = "var") -> list[list[float]]:
        """[measured, SE, predicted] of the variance (``moment="var"``) or of the second moment
        (``"m2"``) at T = 1 and T = T_max for every ensemble; ``name`` picks the prediction."""
        return [
            [*d[f"{moment}_{T}"], d[f"{name}_{T}"]]
            for d in (e.summary for e in self.ensembles.values())
            for T in ("T1", "T")
        ]

    def variance_values(self) -> dict:
        """The measured values of the Eq. (12) claim: the second moment m_2 against Eq. (12), the
        variance against Eq. (12) - chi_1^(2T), and the variance against the free product of the
        derived one-step variance."""
        T = self.T
        shown = {
            f"mu_b={mu:g},q*={qs:g},{name}": {
                "m2_T1": round(d["m2_T1"][0], 3),
                "eq12_T1": round(d["printed_m2_T1"], 3),
                f"m2_T{T}": round(d["m2_T"][0], 3),
                f"eq12_T{T}": round(d["printed_m2_T"], 3),
                "var_T1": round(d["var_T1"][0], 3),
                "eq12_var_T1": round(d["printed_T1"], 3),
                f"var_T{T}": round(d["var_T"][0], 3),
                f"eq12_var_T{T}": round(d["printed_T"], 3),
            }
            for (qs, mu, name), d in ((k, e.summary) for k, e in self.ensembles.items())
        }
        free_ok = all(within(m, s, p) for m, s, p in self.rows("free"))
        return {
            "m2_rows": self.rows("printed_m2", "m2"),
            "var_rows": self.rows("printed"),
            "shown": shown,
            "gauss_minus_orth": self.gaussian_minus_orthogonal(),
            "free_ok": free_ok,
        }

    def isometry_values(self) -> dict:
        """The measured values of the dynamical-isometry claim (slopes over mu_b, s_1, m_1)."""
        G, O = self.slopes("Gaussian"), self.slopes("orthogonal")
        gmo = self.gaussian_minus_orthogonal().values()
        return {
            "mu_b": [m for _, m in self.settings],
            "slope_gaussian": np.round(G, 3).tolist(),
            "slope_orthogonal": np.round(O, 3).tolist(),
            "decreasing": bool(np.all(np.diff(G) < 0) and np.all(np.diff(O) < 0)),
            "s1_rows": [[d, s, g] for (d, s, _), g in zip(gmo, G)],
            "m1": [e.summary["m1_T"] for e in self.ensembles.values()],
            "m1_shown": {
                f"{k[1]:g},{k[2]}": round(e.summary["m1_T"], 3)
                for k, e in self.ensembles.items()
            },
        }

    def table(self) -> str:
        head = (
            "| $\\mu_b$ | $q^*$ | $W$ | var at $T=1$ (± SE) | Eq. (12) | free "
            "| slope per step (± SE) | Eq. (12) | free |\n|---|---|---|---|---|---|---|---|---|\n"
        )
        rows = []
        for (qs, mu, name), e in self.ensembles.items():
            d = e.summary
            rows.append(
                f"| {mu:g} | {qs:g} | {name} | {d['var_T1'][0]:.3f} ± {d['var_T1'][1]:.3f} "
                f"| {d['printed_T1']:.3f} | {d['free_T1']:.3f} "
                f"| {d['slope'][0]:.3f} ± {d['slope'][1]:.3f} | {d['printed_slope']:.3f} "
                f"| {d['free_slope']:.3f} |"
            )
        return head + "\n".join(rows)


def minimal_study(
    settings, R: float, N: int, T: int, K: int, seed: int, device: str = "cpu"
) -> MinimalStudy:
    """Sample K untied minimalRNNs of width N per critical initialization (q*, mu_b) of Algorithm 1
    and per ensemble of W (Gaussian, orthogonal; seed ``seed + int(10 mu_b) + orthogonal``), and set
    the spectral variance over T steps against Eq. (12) and the one-step free-product estimate."""
    Ts = np.arange(1, T + 1)
    ensembles = {}
    for qs, mu in settings:
        ci = algorithm1(qs, mu, R)
        if not (ci.feasible and diag_slope(ci.Qstar, ci.hp()) < 1):
            raise ValueError(
                f"(q*, mu_b) = {(qs, mu)}: no stable critical initialization"
            )
        hp = ci.hp()
        for orth in (False, True):
            r = jacobian_moments(
                "minimal",
                hp,
                N,
                T,
                K,
                seed=seed + int(10 * mu) + orth,
                orthogonal=orth,
                device=device,
            )
            s1 = 0.0 if orth else -1.0
            eq12 = minimal_spectrum_variance_printed(Ts, hp, s1)  # a second moment
            pred = {
                "printed_m2": eq12,
                "printed": eq12 - minimal_chi1(hp) ** (2 * Ts),  # its variance
                "free": minimal_spectrum_variance_free(Ts, hp, s1),
            }
            e = _ensemble(hp, s1, r, pred)
            slopes = np.array([np.polyfit(Ts, r.variance[k], 1)[0] for k in range(K)])
            m = minimal_moments13(hp)
            e.summary.update(
                slope=(float(slopes.mean()), float(slopes.std(ddof=1) / np.sqrt(K))),
                printed_slope=float(
                    2 * (m.mu1 - s1) * m.mu2 + m.sigma1_sq + m.sigma2_sq
                ),
                free_slope=float(pred["free"][-1] - pred["free"][-2]),
                m1_T=float(r.m1.mean(0)[-1]),
            )
            ensembles[(qs, mu, _ensemble_name(orth))] = e
    return MinimalStudy(list(settings), ensembles, T)


def vanilla_study(
    hp: HP, N: int, T: int, K: int, seed: int, device: str = "cpu"
) -> dict[str, Ensemble]:
    """The vanilla counterpart of Eq. (12) against untied vanilla RNNs, Gaussian (seed ``seed``) and
    orthogonal W (``seed + 1``): 'Gaussian'/'orthogonal' -> Ensemble with the prediction 'pred'."""
    Ts = np.arange(1, T + 1)
    out = {}
    for orth in (False, True):
        r = jacobian_moments(
            "vanilla", hp, N, T, K, seed=seed + orth, orthogonal=orth, device=device
        )
        s1 = 0.0 if orth else -1.0
        pred = {"pred": vanilla_spectrum_variance(Ts, hp, s1)}
        out[_ensemble_name(orth)] = _ensemble(hp, s1, r, pred)
    return out


def vanilla_values(study: dict[str, Ensemble], T: int) -> dict:
    """The measured values of the vanilla claim: [measured, SE, predicted] rows and a display."""
    rows = [
        [*e.summary[key], e.summary[f"pred_{key[4:]}"]]
        for e in study.values()
        for key in ("var_T", "var_T1")
    ]
    shown = {
        name: {
            "var_T1": round(e.summary["var_T1"][0], 3),
            "pred_T1": round(e.summary["pred_T1"], 3),
            f"var_T{T}": round(e.summary["var_T"][0], 3),
            f"pred_T{T}": round(e.summary["pred_T"], 3),
        }
        for name, e in study.items()
    }
    return {"rows": rows, "shown": shown}


@dataclass(frozen=True)
class GradientStudy:
    """m_1(T) = tr(J J^T)/N (the squared gradient norm through T steps), averaged over networks."""

    tied: dict  # label -> m_1 curve of tied networks at width N
    chi1: dict  # label -> chi_1 of Eq. (13)
    untied: np.ndarray  # the critical initialization, untied weights
    half: np.ndarray  # the critical initialization, tied, width N // 2
    N: int

    @staticmethod
    def rate(m1: np.ndarray) -> float:
        """The per-step factor of a geometric fit m_1(T) ~ A rate^T."""
        return float(np.exp(loglinear_slope(np.arange(1, len(m1) + 1), m1)))

    def values(self) -> dict:
        crit, off0, off4 = self.tied.values()
        return {
            "tied_range": [float(crit.min()), float(crit.max())],
            "untied_range": [float(self.untied.min()), float(self.untied.max())],
            "rate_tied": self.rate(crit),
            "rate_half": self.rate(self.half),
            "crit_end": float(crit[-1]),
            "untied_end": float(self.untied[-1]),
            "off0_end": float(off0[-1]),
            "off4_end": float(off4[-1]),
            "chi1": [round(x, 4) for x in self.chi1.values()],
            "N": self.N,
            "N_half": self.N // 2,
        }


def gradient_study(
    inits: dict,
    N: int,
    T: int,
    K: int,
    seed: int,
    burn_in: int = 50,
    device: str = "cpu",
) -> GradientStudy:
    """m_1(T) of tied minimalRNNs for every initialization in ``inits`` (label -> HP; the first is
    the critical one, seed ``seed``), and for the critical one untied (``seed + 1``) and tied at half
    the width (``seed + 2``); every network runs ``burn_in`` steps first."""
    tied, chi1 = {}, {}
    # only m_1 is used: no J J^T products (second_moment=False)
    kw = dict(T=T, K=K, burn_in=burn_in, device=device, second_moment=False)
    for label, hp in inits.items():
        r = jacobian_moments("minimal", hp, N, seed=seed, tied=True, **kw)
        tied[label], chi1[label] = r.m1.mean(0), float(minimal_chi1(hp))
    crit = next(iter(inits.values()))
    r_u = jacobian_moments("minimal", crit, N, seed=seed + 1, tied=False, **kw)
    r_h = jacobian_moments("minimal", crit, N // 2, seed=seed + 2, tied=True, **kw)
    return GradientStudy(tied, chi1, r_u.m1.mean(0), r_h.m1.mean(0), N)


def one_step_terms_mc(
    hp: HP,
    N: int,
    K: int,
    seed: int,
    burn_in: int = 40,
    n_mat: int = 256,
    dtype=torch.float64,
    device: str = "cpu",
) -> dict[str, tuple[float, float]]:
    """Monte Carlo of the four W-free terms of the one-step variance (see
    :func:`rnnbook.mean_field.theory.minimal_one_step_terms`) in K untied minimalRNNs of width N at
    their fixed point: u = sigma(e), a = sigma'(e) (h^{t-1} - x~^t) of the last of ``burn_in`` steps,

        Var(u^2) = <u^4> - <u^2>^2, cross = 2 sigma_w^2 <u^2 a^2>, quartic = sigma_w^4 <a^4>,
        -mu_2^2 = -(sigma_w^2 <a^2>)^2  (<.> the mean over the N units of one network).

    Untied weights act on h like N(0, sigma_w^2 |h|^2/N) per unit (no matrix is drawn). The s_1 term
    is measured paired: on the first ``n_mat`` units, the variance of the spectrum of J J^T for
    J = D_u + D_a W with W Gaussian minus that with W orthogonal (same diagonals; -s_1 mu_2^2 is
    mu_2^2 for s_1 = -1). Returns term -> (mean over networks, its standard error).
    Every draw is made on the CPU generator and moved to ``device``, where the sums run."""
    gen = torch.Generator(device="cpu").manual_seed(int(seed))

    def rn(*shape: int) -> torch.Tensor:
        return torch.randn(*shape, generator=gen, dtype=dtype, device="cpu").to(device)

    sw, sv, mu, R, sb = (
        _scalar(getattr(hp, k)) for k in ("sigma_w", "sigma_v", "mu_b", "R", "sigma_b")
    )
    Q = float(minimal_fixed_point(hp)[0])
    h = np.sqrt(Q) * rn(K, N)
    for _ in range(burn_in):
        x = np.sqrt(R) * rn(K, N)
        z = rn(3, K, N)
        rms = lambda v: torch.sqrt((v**2).mean(-1, keepdim=True))  # noqa: E731
        e = sw * rms(h) * z[0] + sv * rms(x) * z[1] + mu + sb * z[2]
        u = torch.sigmoid(e)
        a, h = u * (1 - u) * (h - x), u * h + (1 - u) * x
    u2, a2 = u**2, a**2
    n = min(n_mat, N)
    spec_var = []
    for orth in (False, True):
        W = (
            minimal_rnn.orthogonal_matrix(K, n, sw, gen, dtype)
            if orth
            else minimal_rnn.gaussian_matrix(K, n, n, sw, gen, dtype)
        ).to(device)
        J = torch.diag_embed(u[:, :n]) + a[:, :n].unsqueeze(-1) * W
        M = torch.bmm(J, J.transpose(1, 2))
        m1 = torch.diagonal(M, dim1=1, dim2=2).sum(-1) / n
        spec_var.append((M * M).sum((1, 2)) / n - m1**2)
    per_net = {
        "Var(u^2)": (u2**2).mean(-1) - u2.mean(-1) ** 2,
        "cross": 2 * sw**2 * (u2 * a2).mean(-1),
        "quartic": sw**4 * (a2**2).mean(-1),
        "-mu_2^2": -((sw**2 * a2.mean(-1)) ** 2),
        "s_1": spec_var[0] - spec_var[1],
    }
    return {
        k: (float(v.mean()), float(v.std(correction=1) / np.sqrt(K)))
        for k, v in per_net.items()
    }


def one_step_values(
    study: MinimalStudy, mc: dict, wrong: list[str], rel_mc: float = 0.05
) -> dict:
    """The measured values of the term-by-term claim on Eq. (13). Rows [measured, SE, derived,
    printed, relative tolerance]: per setting, the four W-free terms by Monte Carlo (``mc``:
    (q*, mu_b) -> :func:`one_step_terms_mc`, tolerance ``rel_mc``); the s_1 term there as the paired
    difference Gaussian - orthogonal (derived mu_2^2, printed 2 mu_2; tolerance 20%, finite matrix
    size), and the whole one-step variance of the sampled networks at T = 1 per ensemble (20%,
    finite width as in Eq. (12)).
    ``wrong`` lists the terms that the sympy derivation finds different from the printed ones."""
    rows, shown = [], {}
    for qs, mu in study.settings:
        g, o = (study.ensembles[(qs, mu, w)] for w in ("Gaussian", "orthogonal"))
        p_g, d_g = minimal_one_step_terms(g.hp, -1.0)
        _, d_o = minimal_one_step_terms(g.hp, 0.0)
        key = f"mu_b={mu:g},q*={qs:g}"
        shown[key] = {}
        for term, (m, s) in mc[(qs, mu)].items():
            rel = 0.2 if term == "s_1" else rel_mc
            rows.append([m, s, float(d_g[term]), float(p_g[term]), rel])
            shown[key][term] = [round(m, 4), round(float(d_g[term]), 4)]
            shown[key][term].append(round(float(p_g[term]), 4))
        for e, d in ((g, d_g), (o, d_o)):
            p = minimal_one_step_terms(e.hp, e.s1)[0]
            var_d, var_p = float(sum(d.values())), float(sum(p.values()))
            rows.append([*e.summary["var_T1"], var_d, var_p, 0.2])
            shown[key][f"var_1 ({e.s1:g})"] = [round(e.summary["var_T1"][0], 4)]
            shown[key][f"var_1 ({e.s1:g})"] += [round(var_d, 4), round(var_p, 4)]
    ok = lambda col: [abs(r[0] - r[col]) <= 2 * r[1] + r[4] * abs(r[col]) for r in rows]  # noqa: E731
    return {
        "rows": rows,
        "wrong": list(wrong),
        "shown": shown,
        "derived_within": f"{sum(ok(2))}/{len(rows)}",
        "printed_within": f"{sum(ok(3))}/{len(rows)}",
    }
