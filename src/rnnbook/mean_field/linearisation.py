"""chi_{c*} of Eq. (4) and Eq. (9) against the slope of the cosine maps (Chen et al. 2018, Sec. 3).

chi_{c*} is the derivative of the cosine-similarity map c^{t-1} -> c^t at its fixed point. We check the
quadrature formulas against a central finite difference of the quadrature maps at several c (the
slope at any c, of which chi_{c*} is the value at c*). Price's identity holds for the exact integrals,
not for their quadratures, so the tolerance is set by the quadrature itself: 10 x the change of the
integrals when the number of Gauss-Hermite nodes is doubled.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .theory import (
    HP,
    N2,
    dsigmoid,
    dtanh,
    gauss2,
    minimal_c_map,
    minimal_chi,
    minimal_fixed_point,
    sigmoid,
    vanilla_c_map,
    vanilla_chi,
    vanilla_qstar,
)


def _node_change(f, g, mean, var, c) -> float:
    """max |E f(u1) g(u2)| change when the quadrature nodes are doubled."""
    return np.abs(
        gauss2(f, g, mean, var, c) - gauss2(f, g, mean, var, c, n=2 * N2)
    ).max()


def vanilla_slope_error(
    hp: HP, c=(0.0, 0.3, 0.6, 0.9), h: float = 1e-5
) -> tuple[float, float]:
    """Eq. (4) against the slope of the vanilla cosine map (Sigma = 0).

    Returns (max |chi - finite difference| over ``c`` and the settings of ``hp``, tolerance)."""
    c = np.asarray(c, float)[:, None]
    qs = vanilla_qstar(hp)
    fd = (vanilla_c_map(c + h, 0.0, hp) - vanilla_c_map(c - h, 0.0, hp)) / (2 * h)
    err = float(np.abs(vanilla_chi(c, hp) - fd).max())
    quad = float(
        np.abs(
            hp.sw2
            * (
                gauss2(dtanh, dtanh, 0.0, qs, c)
                - gauss2(dtanh, dtanh, 0.0, qs, c, n=2 * N2)
            )
        ).max()
    )
    return err, max(10 * quad, 1e-8)


@dataclass(frozen=True)
class MinimalSlopeCheck:
    """Eq. (9), derived and printed, against the slope of the map (8), per (sigma_b, Sigma_12)."""

    mu_b: np.ndarray
    slope: (
        dict  # (sigma_b, Sigma) -> finite-difference slope, shape (len(c), len(mu_b))
    )
    derived: dict  # the same for the derived chi
    printed: dict  # and for the printed Eq. (9)
    tol: float

    def err(self, which: str, sigma_b: float | None = None) -> float:
        """max |chi - slope| of ``which`` ('derived' or 'printed'), at one sigma_b or all."""
        d = getattr(self, which)
        return max(
            float(np.abs(d[k] - self.slope[k]).max())
            for k in d
            if sigma_b is None or k[0] == sigma_b
        )

    def values(self) -> dict:
        """The measured values of the Eq. (9) claim (sigma_b = 0 and the largest sigma_b)."""
        sb = max(k[0] for k in self.slope)
        return {
            "printed_err_sb0": self.err("printed", 0.0),
            "printed_err_sb": self.err("printed", sb),
            "derived_err": self.err("derived"),
            "fd_tol": self.tol,
        }

    def table(self, row: int = 1) -> str:
        """The slopes at c[row] (c = 0.5) for every mu_b, and the largest errors."""
        head = (
            "| $\\sigma_b$ | $\\Sigma_{12}$ | slope of (8) at $c=0.5$, "
            "$\\mu_b=-2,0,2,4$ (finite difference) | derived $\\chi$ | Eq. (9) "
            "| max error derived | max error Eq. (9) |\n|---|---|---|---|---|---|---|\n"
        )
        rows = []
        for sb, S in self.slope:
            fd, d, p = (x[(sb, S)] for x in (self.slope, self.derived, self.printed))
            e_d = float(np.abs(d - fd).max())
            e_p = float(np.abs(p - fd).max())
            rows.append(
                f"| {sb} | {S} | {np.round(fd[row], 4).tolist()} | "
                f"{np.round(d[row], 4).tolist()} | {np.round(p[row], 4).tolist()} | "
                f"{e_d:.1e} | {e_p:.1e} |"
            )
        return head + "\n".join(rows)


def minimal_slope_check(
    sigma_w: float = 6.88,
    sigma_v: float = 1.39,
    R: float = 0.46,
    mu_b=(-2.0, 0.0, 2.0, 4.0),
    c=(0.2, 0.5, 0.8),
    sigma_b=(0.0, 0.5),
    Sigmas=(0.0, 0.99),
    h: float = 1e-4,
) -> MinimalSlopeCheck:
    """Eq. (9) (derived, and as printed) against a central difference of the map (8), with the
    tolerance from the quadrature at the largest sigma_b."""
    mu_b, c = np.asarray(mu_b, float), np.asarray(c, float)[:, None]
    slope, derived, printed = {}, {}, {}
    for sb in sigma_b:
        hp = HP(sigma_w, sigma_v, mu_b, R, sb)
        qs = minimal_fixed_point(hp)[1]
        for S in Sigmas:
            slope[(sb, S)] = (
                minimal_c_map(c + h, S, S, hp, qs) - minimal_c_map(c - h, S, S, hp, qs)
            ) / (2 * h)
            derived[(sb, S)] = minimal_chi(c, S, hp, qs)
            printed[(sb, S)] = minimal_chi(c, S, hp, qs, printed=True)
    qs = minimal_fixed_point(HP(sigma_w, sigma_v, mu_b, R, max(sigma_b)))[1]
    quad = float(
        np.abs(
            qs
            * (
                gauss2(dsigmoid, dsigmoid, mu_b, qs, c)
                - gauss2(dsigmoid, dsigmoid, mu_b, qs, c, n=2 * N2)
            )
        ).max()
        + _node_change(sigmoid, sigmoid, mu_b, qs, c)
    )
    return MinimalSlopeCheck(mu_b, slope, derived, printed, max(10 * quad, 1e-8))
