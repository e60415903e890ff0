"""Statistics over seeds and repetitions, shared by the rooms.

- :func:`seed_interval`: the mean of a statistic over independent seeds with its 95% Student-t
  interval; training claims are decided from it (CONVENTIONS.md, *The claim ledger*).
- :func:`power_law_fit`: the exponent p of E[X_m] ≈ C m^p with a bootstrap interval (the m^(-1/2)
  rate of Eq. (2.16) of Chizat et al., the convergence of the weights' moments).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Interval:
    """Mean of ``n`` seeds and its two-sided interval at ``level``."""

    mean: float
    lo: float
    hi: float
    n: int
    level: float = 0.95

    def as_list(self) -> list[float]:
        return [self.mean, self.lo, self.hi]

    def __str__(self) -> str:
        return f"{self.mean:.3g} [{self.lo:.3g}, {self.hi:.3g}] (n={self.n})"


def seed_interval(samples, level: float = 0.95, axis: int = -1):
    """Mean over seeds with its Student-t interval, along ``axis`` of ``samples``.

    Returns an :class:`Interval` for a 1-D input, else arrays ``(mean, lo, hi)`` of the other axes.
    One seed gives an infinite interval: one run decides nothing."""
    from scipy import stats as _st

    S = np.moveaxis(np.asarray(samples, dtype=float), axis, -1)
    n = S.shape[-1]
    if n < 1:
        raise ValueError("seed_interval needs at least one sample")
    if not 0 < level < 1:
        raise ValueError(f"level must be in (0, 1), got {level}")
    mean = S.mean(-1)
    if n == 1:
        half = np.full_like(mean, np.inf)
    else:
        sem = S.std(-1, ddof=1) / np.sqrt(n)
        half = _st.t.ppf(0.5 + level / 2, n - 1) * sem
    lo, hi = mean - half, mean + half
    if S.ndim == 1:
        return Interval(float(mean), float(lo), float(hi), n, level)
    return mean, lo, hi


@dataclass(frozen=True)
class PowerLaw:
    slope: float
    intercept: float
    ci95: tuple[float, float]
    means: np.ndarray

    def __call__(self, x: np.ndarray) -> np.ndarray:
        return np.exp(self.intercept) * np.asarray(x, dtype=float) ** self.slope


def _fit(logx: np.ndarray, logy: np.ndarray) -> tuple[float, float]:
    slope, intercept = np.polyfit(logx, logy, 1)
    return float(slope), float(intercept)


def power_law_fit(x, samples, n_boot: int = 400, seed: int = 0) -> PowerLaw:
    """Least-squares fit of log(mean over repetitions) on log x. ``samples`` has shape (len(x), reps);
    the 95% interval resamples the repetitions of every x independently (percentile bootstrap)."""
    x = np.asarray(x, dtype=float)
    S = np.asarray(samples, dtype=float)
    if S.ndim != 2 or S.shape[0] != len(x) or len(x) < 2:
        raise ValueError("samples must have shape (len(x), reps) with at least two x")
    if not np.all(np.isfinite(S)) or np.any(S <= 0):
        raise ValueError("samples must be finite and positive")
    means = S.mean(1)
    slope, intercept = _fit(np.log(x), np.log(means))
    rng = np.random.default_rng(seed)
    R = S.shape[1]
    idx = rng.integers(0, R, size=(n_boot,) + S.shape)  # (boot, len(x), reps)
    logy = np.log(np.take_along_axis(S[None], idx, 2).mean(2))  # (boot, len(x))
    lx = np.log(x) - np.log(x).mean()
    boots = (
        (logy - logy.mean(1, keepdims=True)) @ lx / (lx @ lx)
    )  # least-squares slopes
    lo, hi = np.percentile(boots, [2.5, 97.5])
    return PowerLaw(
        slope=slope, intercept=intercept, ci95=(float(lo), float(hi)), means=means
    )
