"""The impulse response of the linear RNN at initialization (4): Theorem 3.3(a) and Eq. (24) of Theorem
4.1 of Emami et al. As n -> oo the coefficients L_j = C W^j F / n^{(j+1)/2} converge in distribution to
independent Gaussians with i.i.d. N(0, nu_C nu_F nu_W^j) components, and E ||L_j||_F^2 -> n_x n_y nu_C nu_F nu_W^j.

The networks are drawn on CPU generators; their impulse responses are computed on ``device``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import stats

from rnnbook.plotting import progress

from . import linear_rnn


def sample_impulse_responses(
    n: int,
    n_x: int,
    n_y: int,
    T: int,
    nu_W: float,
    nu_F: float,
    nu_C: float,
    draws: int,
    seed: int,
    chunk: int = 64,
    device: str = "cpu",
) -> np.ndarray:
    """``draws`` independent networks from (4), their L_0..L_{T-1} (9): array (draws, T, n_y, n_x).

    Networks are drawn ``chunk`` at a time (one batched generator per chunk, seeded ``seed + chunk index``).
    """
    out = []
    for k, start in enumerate(range(0, draws, chunk)):
        b = min(chunk, draws - start)
        p = linear_rnn.init_params(
            n, n_x, n_y, nu_W, nu_F, nu_C, seed=seed + k, batch=b, device=device
        )
        out.append(linear_rnn.impulse_response(p, T).cpu().numpy())
    return np.concatenate(out)


@dataclass
class LagSummary:
    """Per lag j: the ratio E||L_j||_F^2 / (n_x n_y nu_C nu_F nu_W^j) with its standard error, and, on one
    component per network (independent samples), the excess kurtosis with its standard error and the
    Kolmogorov-Smirnov p-value of the standardized coefficient against N(0, 1)."""

    var_ratio: np.ndarray
    var_ratio_se: np.ndarray
    excess_kurtosis: np.ndarray
    kurtosis_se: np.ndarray
    ks_pvalue: np.ndarray
    max_abs_corr: float  # largest |correlation| between lags j != k (same component)
    corr_se: float  # its null standard error, 1 / sqrt(draws)


def summarize(L: np.ndarray, nu_W: float, nu_F: float, nu_C: float) -> LagSummary:
    """Compare samples ``L`` (draws, T, n_y, n_x) with the limit law of Theorem 3.3(a).

    The n_x n_y components of one network share W, so the standard error of the norm ratio is that of
    the mean over networks of each network's ||L_j||_F^2; the distribution tests use the component
    (0, 0) only, one independent sample per network.
    """
    draws, T = L.shape[:2]
    var = nu_C * nu_F * nu_W ** np.arange(T)
    Z = L / np.sqrt(var)[None, :, None, None]
    per_draw = (
        (Z**2).reshape(draws, T, -1).mean(-1)
    )  # (draws, T): ||L_j||^2 / (n_x n_y var_j)
    ratio = per_draw.mean(0)
    ratio_se = per_draw.std(0, ddof=1) / np.sqrt(draws)
    comp = Z[:, :, 0, 0]  # (draws, T), independent across draws
    kurt = stats.kurtosis(comp, axis=0, fisher=True)
    ks = np.array([stats.kstest(comp[:, j], "norm").pvalue for j in range(T)])
    m = draws
    corr = np.corrcoef(comp.T)
    off = np.abs(corr[~np.eye(T, dtype=bool)])
    return LagSummary(
        ratio,
        ratio_se,
        kurt,
        np.full(T, np.sqrt(24.0 / m)),
        ks,
        float(off.max()),
        float(1 / np.sqrt(draws)),
    )


@dataclass
class MonteCarlo:
    """:class:`LagSummary` per width, from ``draws`` networks each (Theorem 3.3(a), Eq. (24))."""

    widths: list[int]
    summaries: dict[int, LagSummary]
    setup: dict  # n_x, n_y, lags, draws, nu_W, nu_F, nu_C

    def summary(
        self, z_max: float = 3.0, alpha: float = 0.05, corr_k: float = 4.0
    ) -> dict:
        """The numbers of the two claims at the largest width. ``parts`` says which of the three
        properties pass their tolerances: the variance ratio within ``z_max`` standard errors of 1
        at every lag, no KS test rejecting at ``alpha`` / lags (Bonferroni), the largest correlation
        between lags below ``corr_k`` null standard errors."""
        big = self.summaries[self.widths[-1]]
        z = np.abs(big.var_ratio - 1) / big.var_ratio_se
        ks_min = float(big.ks_pvalue.min())
        lags = len(big.var_ratio)
        kurt = {
            n: float(np.abs(s.excess_kurtosis).mean())
            for n, s in self.summaries.items()
        }
        return {
            "n": int(self.widths[-1]),
            "widths": list(self.widths),
            "variance_ratio": [round(float(v), 4) for v in big.var_ratio],
            "standard_error": [round(float(v), 4) for v in big.var_ratio_se],
            "max_var_z": float(z.max()),
            "min_ks_p": ks_min,
            "excess_kurtosis": [round(float(v), 3) for v in big.excess_kurtosis],
            "kurtosis_by_width": {str(n): round(k, 3) for n, k in kurt.items()},
            "kurtosis_smallest": kurt[self.widths[0]],
            "kurtosis_largest": kurt[self.widths[-1]],
            "max_abs_corr": big.max_abs_corr,
            "corr_se": big.corr_se,
            "parts": {
                "variance": bool(np.all(z <= z_max)),
                "gaussian (KS)": bool(ks_min > alpha / lags),
                "independent": bool(big.max_abs_corr <= corr_k * big.corr_se),
            },
            "last_lag": lags - 1,
            **self.setup,
        }


def monte_carlo(
    widths: list[int],
    *,
    n_x: int,
    n_y: int,
    lags: int,
    nu_W: float,
    nu_F: float,
    nu_C: float,
    draws: int,
    seed: int,
    device: str = "cpu",
) -> MonteCarlo:
    """:func:`sample_impulse_responses` (seed ``seed + 7 n``, on ``device``) and
    :func:`summarize` per width."""
    summaries = {}
    for n in progress(widths, desc="widths"):
        L = sample_impulse_responses(
            n,
            n_x,
            n_y,
            lags,
            nu_W,
            nu_F,
            nu_C,
            draws=draws,
            seed=seed + 7 * n,
            device=device,
        )
        summaries[n] = summarize(L, nu_W, nu_F, nu_C)
    setup = dict(
        n_x=n_x, n_y=n_y, lags=lags, draws=draws, nu_W=nu_W, nu_F=nu_F, nu_C=nu_C
    )
    return MonteCarlo(list(widths), summaries, setup)
