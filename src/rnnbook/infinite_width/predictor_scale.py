"""The predictor scale s of Chizat et al. (Sec. 2.5, Fig. 2.2): the paths and the plateau of the flow.

The gradient flow (5.1) of the limit model with its predictor multiplied by s
(:mod:`~rnnbook.infinite_width.flow`) against the linear dynamics (2.17), its s → ∞ limit: the
Hausdorff distance between the paths of λ, resampled by arc length (:func:`path_distance`), the
distance of the endpoint to X⁺y, and the plateau of the risk at small s (:func:`plateau_fraction`).
For s > 10 the flow runs in the time u = s t (:func:`speed`), in which it tends to dλ/du = −3ξ;
a change of time leaves the path unchanged.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.spatial import cKDTree

from rnnbook.plotting import progress

from .flow import FlowSolution, flow_to_convergence, gradient_flow, linear_flow
from .limit import train
from .regression import Regression

RESOLUTION = 1e-4  # spacing of the resampled paths, relative to ‖X⁺y‖
GD_STEP = 1e-3  # the step of the paper's GD for the flow (Fig. 2.2)


def speed(s: float) -> float:
    """The time change of scale s: 1 up to s = 10, then u = s t."""
    return 1.0 if s <= 10 else 1.0 / s


def flows(
    data: Regression, scales: list[float], N: int, t_end: float
) -> dict[float, FlowSolution]:
    """The flow at every scale, to convergence (horizon ``t_end``, 4 ``t_end`` for s > 10)."""
    out = {}
    for s in progress(scales, desc="scales"):
        T = t_end if s <= 10 else 4 * t_end
        out[s] = flow_to_convergence(data, N, T, scale=s, speed=speed(s))
    return out


def linear_reference(data: Regression) -> tuple[np.ndarray, np.ndarray]:
    """(t, λ(t)) of the linear dynamics (2.17) on a grid long enough for its slowest mode."""
    z = np.linalg.eigvalsh(data.M)
    t = np.linspace(0, 60.0 / max(z[z > 1e-10].min(), 1e-3), 20001)
    return t, linear_flow(data, t)


def truncation_deviation(
    data: Regression, flows: dict[float, FlowSolution], N: int
) -> dict[float, float]:
    """max |λ_N − λ_{1.5 N}| along the flow, at the smallest scale and at s = 1 (needs s = 1)."""
    out = {}
    for s in sorted({min(flows), 1.0}):
        sol = flows[s]
        big = gradient_flow(
            data, sol.t, int(1.5 * N), scale=s, speed=speed(s), rtol=1e-11, atol=1e-13
        )
        out[s] = float(np.abs(big.lam - sol.lam).max())
    return out


def gd_deviation(
    data: Regression, T: float, N: int, tau: float = GD_STEP
) -> tuple[int, float]:
    """The paper's GD (2.10) with step τ against the flow over [0, T]: (steps, max |Δλ|)."""
    K = int(round(T / tau))
    gd = train(data, tau, K, N=N, every=10)
    ref = gradient_flow(data, gd.k * tau, N, rtol=1e-11, atol=1e-13)
    return K, float(np.abs(gd.lam - ref.lam).max())


def _resample(path: np.ndarray, spacing: float) -> np.ndarray:
    seg = np.linalg.norm(np.diff(path, axis=0), axis=1)
    s = np.concatenate([[0.0], np.cumsum(seg)])
    if s[-1] == 0:
        return path[:1]
    grid = np.linspace(0.0, s[-1], int(np.ceil(s[-1] / spacing)) + 1)
    return np.stack(
        [np.interp(grid, s, path[:, j]) for j in range(path.shape[1])], axis=1
    )


def path_distance(P: np.ndarray, Q: np.ndarray, spacing: float) -> float:
    """Hausdorff distance between two polygonal paths in R^d (time parametrisation ignored), after resampling both
    by arc length with the given spacing (so the result is within ``spacing`` of the exact polyline distance)."""
    A, B = (
        _resample(np.asarray(P, float), spacing),
        _resample(np.asarray(Q, float), spacing),
    )
    return float(max(cKDTree(B).query(A)[0].max(), cKDTree(A).query(B)[0].max()))


def plateau_fraction(
    t: np.ndarray, risk: np.ndarray, first: float = 0.9, last: float = 1e-4
) -> float:
    """Time for the risk to fall below ``first`` × its initial value, over the time to fall below ``last`` × it."""
    r0 = risk[0]
    if not np.any(risk < last * r0):
        raise ValueError("the risk never falls below last * risk[0]: extend the run")
    return float(t[np.argmax(risk < first * r0)] / t[np.argmax(risk < last * r0)])


def deviation_profile(
    P: np.ndarray, Q: np.ndarray, spacing: float
) -> tuple[np.ndarray, np.ndarray]:
    """For the path P resampled by arc length: (fraction of P's length travelled, distance to the path Q)."""
    A, B = (
        _resample(np.asarray(P, float), spacing),
        _resample(np.asarray(Q, float), spacing),
    )
    dist, _ = cKDTree(B).query(A)
    return np.linspace(0.0, 1.0, len(A)), dist


@dataclass
class PathComparison:
    """Per scale: the Hausdorff distance of the path of λ to that of (2.17), the distance of the
    endpoint to X⁺y (both over ‖X⁺y‖), and the horizon of the run."""

    dist: dict[float, float]
    ends: dict[float, float]
    horizon: dict[float, float]

    def values(self) -> dict:
        """The measured values of the claim: the distances at s <= 1 (``small``), consecutive pairs
        over s >= 10 in increasing s (``lazy_steps``), the distance at the largest s (``last``)."""
        small = [v for s, v in self.dist.items() if s <= 1]
        large = [self.dist[s] for s in sorted(s for s in self.dist if s >= 10)]
        return {
            "small": small,
            "has_large": bool(large),
            "lazy_steps": [[a, b] for a, b in zip(large, large[1:])],
            "last": self.dist[max(self.dist)],
            "ends": list(self.ends.values()),
            "distances": {f"{s:g}": float(f"{v:.3e}") for s, v in self.dist.items()},
            "endpoints": {f"{s:g}": float(f"{v:.1e}") for s, v in self.ends.items()},
            "missing": ""
            if (small and large)
            else " Needs scales s <= 1 and s >= 10: set 'scales'.",
        }

    def table(self) -> str:
        rows = [
            "| scale $s$ | path distance to (2.17) / $\\|X^+y\\|$ "
            "| endpoint $\\|\\lambda(T)-X^+y\\|/\\|X^+y\\|$ | horizon $T$ |",
            "|---|---|---|---|",
        ]
        for s, v in self.dist.items():
            when = " (time $st$)" if s > 10 else ""
            rows.append(
                f"| {s:g} | {v:.2e} | {self.ends[s]:.1e} | {self.horizon[s]:g}{when} |"
            )
        return "\n".join(rows)


def compare_paths(
    flows: dict[float, FlowSolution], lin: np.ndarray, lam_hat: np.ndarray
) -> PathComparison:
    """Each flow's path against the linear path ``lin``, resampled every RESOLUTION ‖X⁺y‖."""
    nrm = float(np.linalg.norm(lam_hat))
    spacing = RESOLUTION * nrm
    return PathComparison(
        dist={s: path_distance(f.lam, lin, spacing) / nrm for s, f in flows.items()},
        ends={
            s: float(np.linalg.norm(f.lam[-1] - lam_hat) / nrm)
            for s, f in flows.items()
        },
        horizon={s: float(f.t[-1]) for s, f in flows.items()},
    )


@dataclass
class Plateaus:
    """The plateau fraction of the risk per scale s <= 10, and that of the linear dynamics."""

    frac: dict[float, float]
    linear: float

    def values(self) -> dict:
        """The fractions at s < 1 (``small``) and consecutive pairs in increasing s (``steps``)."""
        keys = sorted(self.frac)
        small = [f for s, f in self.frac.items() if s < 1]
        return {
            "small": small,
            "linear": self.linear,
            "steps": [[self.frac[a], self.frac[b]] for a, b in zip(keys, keys[1:])],
            "fractions": {f"{s:g}": round(v, 4) for s, v in self.frac.items()},
            "missing": "" if small else "No scale s < 1 was run. ",
        }

    def table(self) -> str:
        rows = [
            "| scale $s$ | plateau fraction $t_{90\\%}/t_{10^{-4}}$ | relative to (2.17) |",
            "|---|---|---|",
        ]
        rows += [
            f"| {s:g} | {f:.4f} | {f / self.linear:.1f} |" for s, f in self.frac.items()
        ]
        return "\n".join(rows + [f"| linear (2.17) | {self.linear:.4f} | 1 |"])


def plateaus(
    flows: dict[float, FlowSolution], lin_t: np.ndarray, lin_risk: np.ndarray
) -> Plateaus:
    """:func:`plateau_fraction` of every flow with s <= 10 and of the linear dynamics."""
    frac = {s: plateau_fraction(f.t, f.risk) for s, f in flows.items() if s <= 10}
    return Plateaus(frac=frac, linear=plateau_fraction(lin_t, lin_risk))
