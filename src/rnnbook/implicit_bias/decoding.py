"""The real-data experiment of Emami et al., Sec. 5.2 / Table 1 / Fig. 5, on any multichannel recording:
predict the output channels at each time from the recent past of the input channels with the linear RNN
(1), the scaled convolution (8) and the unscaled convolution (5), each trained by full-batch gradient
descent with the same learning rate, once on a short stretch of the recording ("limited data") and once
on all of it, and score the test R^2.

The protocol (fixed before any result was seen): the recording is cut into ``folds`` contiguous blocks;
each block serves once as the test set. "All data" trains on the other blocks; "limited data" trains on a
contiguous stretch of ``limited_fraction`` of the recording (the paper's 4.5 of 51 minutes) taken from
the training blocks, right after the test block (cyclically). Training sequences are all windows of T
steps (stride 1) inside one block; test sequences are the consecutive non-overlapping windows of the test
block. Inputs and outputs are z-scored with the statistics of the training stretch.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import torch
from torch import Tensor

from . import gd_training as gt
from . import linear_rnn
from .scale_factors import rho as rho_factors


def windows(
    X: np.ndarray, Y: np.ndarray, T: int, stride: int
) -> tuple[np.ndarray, np.ndarray]:
    """All windows of length ``T`` starting every ``stride`` steps: shapes (N, T, n_x), (N, T, n_y)."""
    if len(X) < T:
        return np.zeros((0, T, X.shape[1])), np.zeros((0, T, Y.shape[1]))
    starts = np.arange(0, len(X) - T + 1, stride)
    idx = starts[:, None] + np.arange(T)[None, :]
    return X[idx], Y[idx]


def fold_bounds(n_time: int, folds: int) -> list[tuple[int, int]]:
    """``folds`` contiguous blocks covering 0..n_time."""
    edges = np.linspace(0, n_time, folds + 1).round().astype(int)
    return [(int(a), int(b)) for a, b in zip(edges[:-1], edges[1:])]


def split(
    n_time: int, folds: int, fold: int, limited_fraction: float
) -> dict[str, list[tuple[int, int]]]:
    """Time segments of the test block and of the two training regimes for one fold (see module doc)."""
    blocks = fold_bounds(n_time, folds)
    test = blocks[fold]
    train_all = [b for k, b in enumerate(blocks) if k != fold]
    length = int(round(limited_fraction * n_time))
    limited, need = [], length
    for k in range(1, folds):  # walk forward from the test block, cyclically
        a, b = blocks[(fold + k) % folds]
        take = min(need, b - a)
        limited.append((a, a + take))
        need -= take
        if need == 0:
            break
    return {"test": [test], "all": train_all, "limited": limited}


@dataclass
class Prepared:
    """One regime of one fold, ready for training: windowed, z-scored, as sufficient statistics."""

    train: gt.LagStats
    test: gt.LagStats
    test_sst: float  # sum of squared deviations of the test outputs from their mean
    n_train_steps: int  # time points in the training stretch


def prepare(
    X: np.ndarray,
    Y: np.ndarray,
    segments: list[tuple[int, int]],
    test: tuple[int, int],
    T: int,
) -> Prepared:
    Xtr = np.concatenate([X[a:b] for a, b in segments])
    Ytr = np.concatenate([Y[a:b] for a, b in segments])
    mx, sx = Xtr.mean(0), Xtr.std(0) + 1e-12
    my, sy = Ytr.mean(0), Ytr.std(0) + 1e-12
    wins = [windows((X[a:b] - mx) / sx, (Y[a:b] - my) / sy, T, 1) for a, b in segments]
    Wx = np.concatenate([w[0] for w in wins])
    Wy = np.concatenate([w[1] for w in wins])
    a, b = test
    Tx, Ty = windows((X[a:b] - mx) / sx, (Y[a:b] - my) / sy, T, T)
    as_t = lambda v: torch.tensor(v, dtype=torch.float64)
    sst = float(((Ty - Ty.reshape(-1, Ty.shape[-1]).mean(0)) ** 2).sum())
    return Prepared(
        gt.lag_stats(as_t(Wx), as_t(Wy)),
        gt.lag_stats(as_t(Tx), as_t(Ty)),
        sst,
        len(Xtr),
    )


def r2_curve(losses: Tensor, prep_test: gt.LagStats, sst: Tensor) -> Tensor:
    """Test R^2 = 1 - SSE / SST along a training run, from the recorded test MSE."""
    return 1.0 - losses * prep_test.M / sst


@dataclass
class Table1Result:
    models: tuple[str, ...]
    regimes: tuple[str, ...]
    r2: np.ndarray  # (regimes, folds, models): final test R^2
    curves: np.ndarray  # (regimes, folds, models, steps+1): test R^2 along training
    final_L: np.ndarray | None = (
        None  # (regimes, folds, models, T, n_y, n_x): the trained impulse responses
    )
    train_sizes: dict[str, list[int]] = field(default_factory=dict)
    rho: np.ndarray | None = None
    lr_stability: float = (
        0.0  # lr * largest Hessian eigenvalue over models and data sets (< 2: stable)
    )
    setup: dict = field(default_factory=dict)  # folds, limited_fraction, n, lr, steps

    def _r2(self, regime: str, model: str) -> np.ndarray:
        return self.r2[self.regimes.index(regime), :, self.models.index(model)]

    def comparisons(self) -> dict[str, tuple[float, float]]:
        """The four paired one-sided comparisons of the finding (mean difference, p-value)."""
        pairs = {
            "limited: scaled > unscaled": ("limited", "scaled conv", "unscaled conv"),
            "limited: RNN > unscaled": ("limited", "RNN", "unscaled conv"),
            "all: unscaled > scaled": ("all", "unscaled conv", "scaled conv"),
            "all: unscaled > RNN": ("all", "unscaled conv", "RNN"),
        }
        return {
            k: paired_one_sided(self._r2(reg, a), self._r2(reg, b))
            for k, (reg, a, b) in pairs.items()
        }

    def summary(self, alpha: float = 0.05) -> dict:
        """The numbers of the Table 1 claim. A regime's half of the finding holds when both of its
        comparisons are significant at ``alpha``."""
        tests = self.comparisons()
        p = [v[1] for v in tests.values()]
        short = ("lim_sc", "lim_rnn", "all_sc", "all_rnn")
        flat = {
            f"{x}_{k}": v
            for k, t in zip(short, tests.values())
            for x, v in zip("dp", t)
        }

        lim = {m: self._r2("limited", m) for m in self.models}
        full = {m: self._r2("all", m) for m in self.models}

        def per_model(f) -> dict:
            return {
                reg: {m: round(float(f(self._r2(reg, m))), 4) for m in self.models}
                for reg in self.regimes
            }

        return {
            "R2_mean": per_model(np.mean),
            "R2_sd": per_model(lambda v: np.std(v, ddof=1)),
            "tests": {
                k: {"mean_diff": round(d, 4), "p": round(pv, 4)}
                for k, (d, pv) in tests.items()
            },
            "limited_half_holds": bool(p[0] < alpha) and bool(p[1] < alpha),
            "all_half_holds": bool(p[2] < alpha) and bool(p[3] < alpha),
            **flat,
            "wins_lim": int(np.sum(lim["scaled conv"] > lim["unscaled conv"])),
            "wins_all": int(np.sum(full["unscaled conv"] > full["scaled conv"])),
            "n_limited": int(self.train_sizes["limited"][0]),
            "n_all": int(self.train_sizes["all"][0]),
            "lr_stab": float(self.lr_stability),
            **self.setup,
        }

    def r2_table(self) -> str:
        """Markdown: test R^2 (mean ± sd over folds) per regime and model, the best in bold."""
        rows = [
            "| test $R^2$ (mean ± sd over folds) | " + " | ".join(self.models) + " |",
            "| --- |" + " --- |" * len(self.models),
        ]
        for r, reg in enumerate(self.regimes):
            best = int(np.argmax(self.r2[r].mean(0)))
            cells = [
                f"{self.r2[r, :, k].mean():.4f} ± {self.r2[r, :, k].std(ddof=1):.4f}"
                for k in range(len(self.models))
            ]
            cells[best] = f"**{cells[best]}**"
            rows.append(f"| BOLD, {reg} data | " + " | ".join(cells) + " |")
        return "\n".join(rows)

    def comparison_table(self) -> str:
        """Markdown: the paired comparisons, their mean differences and p-values."""
        rows = [
            "| comparison | mean difference in $R^2$ | one-sided paired $t$-test $p$ "
            "| holds at 5% |",
            "| --- | --- | --- | --- |",
        ]
        for k, (d, p) in self.comparisons().items():
            rows.append(f"| {k} | {d:+.4f} | {p:.3f} | {'yes' if p < 0.05 else 'no'} |")
        return "\n".join(rows)


#: Table 1 of the ICML version (macaque S1, predicting hand velocity): R^2 per direction and model.
PAPER_TABLE1 = {
    "all": {
        "R2_x": {"RNN": 0.6462, "scaled conv": 0.6442, "unscaled conv": 0.6565},
        "R2_y": {"RNN": 0.5911, "scaled conv": 0.5860, "unscaled conv": 0.6027},
    },
    "limited": {
        "R2_x": {"RNN": 0.6043, "scaled conv": 0.6046, "unscaled conv": 0.5856},
        "R2_y": {"RNN": 0.4257, "scaled conv": 0.4234, "unscaled conv": 0.3918},
    },
}


def run_table1(
    X: np.ndarray,
    Y: np.ndarray,
    *,
    T: int,
    folds: int,
    limited_fraction: float,
    n: int,
    nu_W: float,
    nu_F: float,
    nu_C: float,
    lr: float,
    steps: int,
    seed: int,
    progress=lambda it, **kw: it,
) -> Table1Result:
    """Train the three models on every fold and regime; one batched RNN training for all of them."""
    regimes = ("limited", "all")
    preps = []
    for fold in progress(range(folds), desc="folds"):
        seg = split(len(X), folds, fold, limited_fraction)
        for reg in regimes:
            preps.append(prepare(X, Y, seg[reg], seg["test"][0], T))
    train = gt.stack_stats([p.train for p in preps])
    test = gt.stack_stats([p.test for p in preps])
    sst = torch.tensor([p.test_sst for p in preps], dtype=torch.float64)
    B = len(preps)
    n_x, n_y = X.shape[1], Y.shape[1]
    rho = torch.tensor(rho_factors(T, nu_W, nu_F, nu_C))
    params = linear_rnn.init_params(n, n_x, n_y, nu_W, nu_F, nu_C, seed=seed, batch=B)
    L0 = gt.rnn_impulse(params, T)
    # stability of GD: lr times the largest eigenvalue of the Hessian in each model's own parameters
    H = 2.0 * train.R / train.M[:, None, None]
    d_s = torch.repeat_interleave(rho, n_x).sqrt()
    lam = max(
        float(torch.linalg.eigvalsh(H).max()),
        float(torch.linalg.eigvalsh(d_s[:, None] * H * d_s[None, :]).max()),
    )
    runs = {
        "RNN": gt.train_rnn(params, train, lr, steps, {"test": test})[0],
        "scaled conv": gt.train_conv(L0, rho, train, lr, steps, {"test": test}),
        "unscaled conv": gt.train_conv(L0, None, train, lr, steps, {"test": test}),
    }
    models = tuple(runs)
    curves = torch.stack(
        [r2_curve(runs[m].losses["test"], test, sst) for m in models], -1
    )  # (steps+1, B, models)
    curves = (
        curves.reshape(steps + 1, folds, len(regimes), len(models))
        .permute(2, 1, 3, 0)
        .numpy()
    )
    final_L = torch.stack(
        [runs[m].L[-1] for m in models], 1
    )  # (B, models, T, n_y, n_x)
    final_L = (
        final_L.reshape(folds, len(regimes), *final_L.shape[1:]).transpose(0, 1).numpy()
    )
    return Table1Result(
        models,
        regimes,
        curves[..., -1],
        curves,
        final_L,
        {
            reg: [p.n_train_steps for p in preps[i :: len(regimes)]]
            for i, reg in enumerate(regimes)
        },
        rho.numpy(),
        lr * lam,
        dict(folds=folds, limited_fraction=limited_fraction, n=n, lr=lr, steps=steps),
    )


def paired_one_sided(a: np.ndarray, b: np.ndarray) -> tuple[float, float]:
    """Mean of a - b over folds and the one-sided p-value of the paired t-test of mean(a - b) > 0."""
    from scipy import stats

    diff = np.asarray(a) - np.asarray(b)
    if len(diff) < 2 or np.allclose(diff, diff[0]):
        return float(diff.mean()), float("nan")
    return float(diff.mean()), float(
        stats.ttest_1samp(diff, 0.0, alternative="greater").pvalue
    )
