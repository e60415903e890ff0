"""How far the limit model must be truncated (Chizat et al., Sec. 2.5 and footnote 5).

After k GD steps (2.10) only the leading rows of A(k) and B(k) are non-zero: a_k rows by
:func:`~rnnbook.infinite_width.limit.support_rows` (about (d+1)k/2; the paper says d·k).
:func:`measured_support` counts them in a run, :func:`exactness` checks that any truncation
beyond a_k gives the same trajectory to the last bit and one row less does not, and
:func:`truncation_errors` measures the error of smaller truncations on a long run (footnote 5:
it decays exponentially in the truncation).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .limit import LimitTrajectory, support_rows, train
from .regression import Regression


@dataclass
class Support:
    """Per step k: (k, non-zero rows of A(k), of B(k), formula a_k, the paper's d·k)."""

    d: int
    rows: list[tuple[int, int, int, int, int]]

    @property
    def formula_ok(self) -> bool:
        """The rows of A(k) are a_k and those of B(k) at most as many, at every step."""
        return all(ra == ak and rb <= ra for _, ra, rb, ak, _ in self.rows)

    @property
    def paper_fail(self) -> list[int]:
        """The steps k with more than d·k non-zero rows (k = 0 included: d rows against 0)."""
        return [k for k, ra, rb, _, dk in self.rows if max(ra, rb) > dk]

    def table(self) -> str:
        d = self.d
        head = [
            "| $k$ | non-zero rows of $A(k)$ | of $B(k)$ | formula $a_k$ "
            f"| paper $d\\cdot k$ ($d={d}$) |",
            "|---|---|---|---|---|",
        ]
        return "\n".join(
            head + ["| " + " | ".join(map(str, r)) + " |" for r in self.rows]
        )


def measured_support(data: Regression, tau: float, steps: int = 12) -> Support:
    """Run ``steps`` steps on a truncation larger than the support and count the rows."""
    d = data.d
    run = train(
        data, tau, steps, N=(d + 1) * steps + d + 5, keep=tuple(range(steps + 1))
    )
    rows = []
    for k in range(steps + 1):
        st = run.states[k]
        rows_A = int(np.nonzero(np.abs(st.A).sum(1))[0].max() + 1)
        rows_B = int(np.nonzero(st.B)[0].max() + 1)
        rows.append((k, rows_A, rows_B, support_rows(d, k), d * k))
    return Support(d, rows)


@dataclass
class Exactness:
    """Per number of steps k: a_k and the largest |Δλ| over the run of N = a_k + δ against N = a_k."""

    rows: list[tuple[int, int, dict[int, float]]]

    @property
    def beyond_exact(self) -> bool:
        return all(df[1] == 0.0 and df[50] == 0.0 for _, _, df in self.rows)

    @property
    def below_differs(self) -> bool:
        """One row less changes the trajectory (for k <= 5; later the change underflows)."""
        return all(df[-1] > 0 for k, _, df in self.rows if k <= 5)

    def table(self) -> str:
        head = [
            "| steps $k$ | $a_k$ | $N=a_k-1$ | $N=a_k+1$ | $N=a_k+50$ |",
            "|---|---|---|---|---|",
        ]
        body = [
            f"| {k} | {Nk} | {df[-1]:.1e} | {df[1]:.1e} | {df[50]:.1e} |"
            for k, Nk, df in self.rows
        ]
        return "\n".join(head + body)


def exactness(
    data: Regression, tau: float, steps: tuple[int, ...] = (1, 2, 3, 5, 12)
) -> Exactness:
    """Truncations a_k − 1, a_k + 1 and a_k + 50 against a_k, for k steps."""
    rows = []
    for k in steps:
        Nk = support_rows(data.d, k)
        ref = train(data, tau, k, N=Nk)
        diffs = {
            dN: float(np.abs(train(data, tau, k, N=Nk + dN).lam - ref.lam).max())
            for dN in (-1, 1, 50)
        }
        rows.append((k, Nk, diffs))
    return Exactness(rows)


@dataclass
class TruncationErrors:
    """Largest |λ_N(k) − λ_{N_ref}(k)| over the run, for the truncations N; and that of ``used``."""

    N: list[int]
    errors: list[float]
    N_ref: int
    used: int
    used_error: float


def truncation_errors(
    data: Regression, tau: float, steps: int, used: int, lim: LimitTrajectory
) -> TruncationErrors:
    """Truncations from max(d + 2, 12) to ``used`` (step 4) against one twice ``used``;
    ``lim`` is the run on the truncation ``used`` (recorded at every step)."""
    N_ref = 2 * used
    ref = train(data, tau, steps, N=N_ref, every=10)
    Ns = list(range(max(data.d + 2, 12), used + 1, 4))
    errors = [
        float(np.abs(train(data, tau, steps, N=N, every=10).lam - ref.lam).max())
        for N in Ns
    ]
    used_error = float(np.abs(lim.lam[ref.k] - ref.lam).max())
    return TruncationErrors(Ns, errors, N_ref, used, used_error)
