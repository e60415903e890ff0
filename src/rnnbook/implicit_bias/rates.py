"""Power-law rates of finite-width deviations in Emami et al.: the empirical NTK approaches the limit
kernel of Theorem 3.3(b) at the Monte Carlo rate n^(-1/2), and so does the gap between a finite RNN and
its scaled convolution in training (Sec. 5.1, Fig. 4). A rate is the least-squares slope of log(value) on
log(n) over every seed.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class LogLogFit:
    """log(value) = intercept + slope log(n), with the standard error of the slope."""

    slope: float
    se: float
    intercept: float

    @property
    def ci95(self) -> float:
        """Half-width of the normal 95% interval of the slope, 1.96 se."""
        return 1.96 * self.se

    def __call__(self, ns: np.ndarray) -> np.ndarray:
        return np.exp(self.intercept) * np.asarray(ns, float) ** self.slope


def loglog_fit(ns: np.ndarray, values: np.ndarray) -> LogLogFit:
    """Least-squares fit of log(values) on log(n) over every sample; ``values`` has shape
    (len(ns), seeds)."""
    x = np.repeat(np.log(np.asarray(ns, float)), values.shape[1])
    y = np.log(values).ravel()
    A = np.vstack([x, np.ones_like(x)]).T
    coef, *_ = np.linalg.lstsq(A, y, rcond=None)
    dof = max(len(y) - 2, 1)
    s2 = float(np.sum((y - A @ coef) ** 2) / dof)
    se = float(np.sqrt(s2 * np.linalg.inv(A.T @ A)[0, 0]))
    return LogLogFit(float(coef[0]), se, float(coef[1]))
