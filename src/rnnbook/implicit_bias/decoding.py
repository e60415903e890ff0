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

The interval of a comparison comes from blocks of the recording, not from the folds: each test block
is cut into consecutive sub-blocks of ``block_windows`` test windows (165 volumes, 5.5 min, at the
book's T = 15 and 11 windows), far longer than the autocorrelation of the BOLD signal (tens of
seconds), and the test R^2 of every model is scored on each of them (against the fold's test
mean, so that a fold's R^2 is the SST-weighted mean of its blocks'). The per-block difference, as a
fraction of the stand-in's own R^2 in that regime (the best model's mean test R^2), is what a
claim decides on, with a Student-t interval over the blocks (batch means): more folds do not add
data, more blocks of the same recording are the data's own units.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import torch
from torch import Tensor

from rnnbook.stats import seed_interval

from . import gd_training as gt
from . import linear_rnn
from .ensembles import child_seeds
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
    blocks: list = field(default_factory=list)  # (LagStats, SST about the fold's mean)


def prepare(
    X: np.ndarray,
    Y: np.ndarray,
    segments: list[tuple[int, int]],
    test: tuple[int, int],
    T: int,
    block_windows: int = 11,
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
    as_t = lambda v: torch.tensor(v, dtype=torch.float64, device="cpu")  # noqa: E731
    mean = Ty.reshape(-1, Ty.shape[-1]).mean(0)
    sst = float(((Ty - mean) ** 2).sum())
    blocks = []
    for w in sub_blocks(len(Tx), block_windows):
        blocks.append(
            (gt.lag_stats(as_t(Tx[w]), as_t(Ty[w])), float(((Ty[w] - mean) ** 2).sum()))
        )
    return Prepared(
        gt.lag_stats(as_t(Wx), as_t(Wy)),
        gt.lag_stats(as_t(Tx), as_t(Ty)),
        sst,
        len(Xtr),
        blocks,
    )


def sub_blocks(n_windows: int, block_windows: int) -> list[slice]:
    """Consecutive groups of ``block_windows`` test windows covering 0..n_windows; a last group
    shorter than half a block joins the one before it."""
    edges = list(range(0, n_windows, block_windows)) + [n_windows]
    if len(edges) > 2 and edges[-1] - edges[-2] < block_windows / 2:
        del edges[-2]
    return [slice(a, b) for a, b in zip(edges[:-1], edges[1:])]


def r2_curve(losses: Tensor, prep_test: gt.LagStats, sst: Tensor) -> Tensor:
    """Test R^2 = 1 - SSE / SST along a training run, from the recorded test MSE."""
    return 1.0 - losses * prep_test.M / sst


COMPARISONS = {  # short name -> (regime, model expected better, model expected worse)
    "lim_sc": ("limited", "scaled conv", "unscaled conv"),
    "lim_rnn": ("limited", "RNN", "unscaled conv"),
    "all_sc": ("all", "unscaled conv", "scaled conv"),
    "all_rnn": ("all", "unscaled conv", "RNN"),
}
LABELS = {
    "lim_sc": "limited: scaled > unscaled",
    "lim_rnn": "limited: RNN > unscaled",
    "all_sc": "all: unscaled > scaled",
    "all_rnn": "all: unscaled > RNN",
}


def two_way_interval(D: np.ndarray) -> tuple[float, float, float]:
    """Mean of the differences ``D`` (seeds, folds) and the union of two 95% Student-t intervals:
    over seeds of the fold means (the initialization) and over folds of the seed means (the data).
    A comparison is decided only when both intervals lie on the same side of 0."""
    over_seeds = seed_interval(D.mean(1))
    over_folds = seed_interval(D.mean(0))
    lo = min(over_seeds.lo, over_folds.lo)
    hi = max(over_seeds.hi, over_folds.hi)
    return float(D.mean()), float(lo), float(hi)


@dataclass
class Table1Result:
    models: tuple[str, ...]
    regimes: tuple[str, ...]
    r2: np.ndarray  # (seeds, regimes, folds, models): final test R^2
    curves: np.ndarray | None  # (seeds, regimes, folds, models, steps+1): test R^2
    final_L: np.ndarray | None = (
        None  # (regimes, folds, models, T, n_y, n_x): the first seed's trained responses
    )
    train_sizes: dict[str, list[int]] = field(default_factory=dict)
    rho: np.ndarray | None = None
    lr_stability: float = (
        0.0  # lr * largest Hessian eigenvalue over models and data sets (< 2: stable)
    )
    setup: dict = field(default_factory=dict)  # folds, limited_fraction, n, lr, steps
    block_r2: np.ndarray | None = (
        None  # (seeds, regimes, folds, blocks, models): test R^2
    )

    def r2_scale(self) -> dict[str, float]:
        """The stand-in's own R^2 per regime: the best model's mean test R^2 (over seeds and
        folds), the scale of the claim's relative differences."""
        r2m = self.r2.mean((0, 2))  # (regimes, models)
        return {reg: float(r2m[i].max()) for i, reg in enumerate(self.regimes)}

    def block_differences(self) -> dict[str, np.ndarray]:
        """Per comparison, the test R^2 difference on each block of the recording (folds x
        blocks, mean over seeds), positive when the paper's side wins, divided by the stand-in's
        R^2 in that regime (:meth:`r2_scale`): what the claim decides on. A model that did not
        learn scores a low R^2 on every block: a loss for it inside the difference."""
        scale = self.r2_scale()
        out = {}
        for k, (reg, a, b) in COMPARISONS.items():
            i = self.regimes.index(reg)
            ia, ib = self.models.index(a), self.models.index(b)
            d = (self.block_r2[:, i, ..., ia] - self.block_r2[:, i, ..., ib]).mean(0)
            out[k] = d.ravel() / max(scale[reg], 1e-12)
        return out

    def _r2(self, regime: str, model: str, r2: np.ndarray | None = None) -> np.ndarray:
        """(seeds, folds) test R^2 of one model in one regime."""
        r2 = self.r2 if r2 is None else r2
        return r2[:, self.regimes.index(regime), :, self.models.index(model)]

    def differences(self, step: int | None = None) -> dict[str, np.ndarray]:
        """The four comparisons of the finding as R^2 differences (seeds, folds), positive when
        the paper's side wins; after training, or after ``step`` steps."""
        r2 = self.r2 if step is None else self.curves[..., step]
        return {
            k: self._r2(reg, a, r2) - self._r2(reg, b, r2)
            for k, (reg, a, b) in COMPARISONS.items()
        }

    def comparisons(self) -> dict[str, tuple[float, float, float, float]]:
        """Per comparison: mean difference, the two-way 95% interval (:func:`two_way_interval`)
        and the one-sided paired t-test p-value over folds of the seed means (descriptive)."""
        out = {}
        for k, D in self.differences().items():
            m, lo, hi = two_way_interval(D)
            a, b = D.mean(0), np.zeros(D.shape[1])
            out[LABELS[k]] = (m, lo, hi, paired_one_sided(a, b)[1])
        return out

    def trend(self, steps: list[int]) -> dict[str, tuple[np.ndarray, ...]]:
        """Each comparison after each of ``steps``: mean and two-way 95% interval, arrays."""
        per = [self.differences(s) for s in steps]
        return {
            LABELS[k]: tuple(
                np.array(v) for v in zip(*(two_way_interval(p[k]) for p in per))
            )
            for k in COMPARISONS
        }

    def summary(self) -> dict:
        """The numbers of the Table 1 claim: per comparison ``d_<c>`` (mean difference),
        ``<c>_lo``/``<c>_hi`` (two-way 95% interval) and ``p_<c>``; test R^2 per regime and model;
        the gate ``r2_best``, the smaller over the regimes of the best model's mean test R^2."""
        flat = {}
        for k, (m, lo, hi, p) in zip(COMPARISONS, self.comparisons().values()):
            flat |= {f"d_{k}": m, f"{k}_lo": lo, f"{k}_hi": hi, f"p_{k}": p}
        r2m = self.r2.mean((0, 2))  # (regimes, models)

        def per_model(f) -> dict:
            return {
                reg: {m: round(float(f(self._r2(reg, m))), 4) for m in self.models}
                for reg in self.regimes
            }

        fold_means = lambda v: v.mean(0)  # noqa: E731
        return {
            "R2_mean": per_model(np.mean),
            "R2_sd": per_model(lambda v: np.std(fold_means(v), ddof=1)),
            "tests": {
                LABELS[k]: [round(flat[f"{x}{k}{y}"], 4) for x, y in _SHOWN]
                for k in COMPARISONS
            },
            **flat,
            # per comparison, the difference per fold (mean over seeds): what the rule decides on
            "fold_diffs": {
                k: [float(v) for v in D.mean(0)] for k, D in self.differences().items()
            },
            # per comparison, the worse of its two models' mean test R^2 (each arm's gate)
            "r2_arms": {
                k: float(min(self._r2(reg, a).mean(), self._r2(reg, b).mean()))
                for k, (reg, a, b) in COMPARISONS.items()
            },
            "r2_best": float(r2m.max(1).min()),
            "r2_scale": {k: round(v, 4) for k, v in self.r2_scale().items()},
            **self._block_fields(),
            "wins_lim": int(
                np.sum(
                    fold_means(self._r2("limited", "scaled conv"))
                    > fold_means(self._r2("limited", "unscaled conv"))
                )
            ),
            "wins_all": int(
                np.sum(
                    fold_means(self._r2("all", "unscaled conv"))
                    > fold_means(self._r2("all", "scaled conv"))
                )
            ),
            "n_limited": int(self.train_sizes["limited"][0]),
            "n_all": int(self.train_sizes["all"][0]),
            "lr_stab": float(self.lr_stability),
            "n_seeds": int(self.r2.shape[0]),
            **self.setup,
        }

    def _block_fields(self) -> dict:
        """The claim's per-block relative differences ('block_rel') with their mean and 95%
        Student-t interval over the blocks ('block_iv'), and the number of blocks."""
        if self.block_r2 is None:
            return {}
        rel = self.block_differences()
        iv = {k: seed_interval(v) for k, v in rel.items()}
        return {
            "block_rel": {k: [float(x) for x in v] for k, v in rel.items()},
            "block_iv": {
                LABELS[k]: [round(v.mean, 4), round(v.lo, 4), round(v.hi, 4)]
                for k, v in iv.items()
            },
            "n_blocks": int(len(next(iter(rel.values())))),
        }

    def r2_table(self) -> str:
        """Markdown: test R^2 (mean ± sd over folds of the seed means) per regime and model, the
        best in bold."""
        rows = [
            "| test $R^2$ (mean ± sd over folds) | " + " | ".join(self.models) + " |",
            "| --- |" + " --- |" * len(self.models),
        ]
        for reg in self.regimes:
            v = [self._r2(reg, m).mean(0) for m in self.models]  # fold values
            best = int(np.argmax([x.mean() for x in v]))
            cells = [f"{x.mean():.4f} ± {x.std(ddof=1):.4f}" for x in v]
            cells[best] = f"**{cells[best]}**"
            rows.append(f"| BOLD, {reg} data | " + " | ".join(cells) + " |")
        return "\n".join(rows)

    def comparison_table(self) -> str:
        """Markdown: the comparisons, their mean differences, intervals and p-values."""
        rows = [
            "| comparison | mean difference in $R^2$ | 95% interval (seeds ∪ folds) "
            "| one-sided paired $t$ over folds, $p$ | decided |",
            "| --- | --- | --- | --- | --- |",
        ]
        for k, (d, lo, hi, p) in self.comparisons().items():
            dec = "yes" if lo > 0 else ("against" if hi < 0 else "no")
            rows.append(
                f"| {k} | {d:+.4f} | [{lo:+.4f}, {hi:+.4f}] | {p:.3f} | {dec} |"
            )
        return "\n".join(rows)


_SHOWN = (("d_", ""), ("", "_lo"), ("", "_hi"))


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
    seeds: int = 1,
    rnn_dtype: torch.dtype = torch.float64,
    block_windows: int = 11,
    progress=lambda it, **kw: it,
    device: str = "cpu",
) -> Table1Result:
    """Train the three models on every fold and regime, ``seeds`` random initializations each
    (stream "student" of ``seed``): one batched RNN training and one batched training of the two
    convolutional arms for all of them. The RNN runs in ``rnn_dtype``, the convolutions in
    float64. The networks are drawn on a CPU generator and both batches train on ``device``; the
    data statistics and the results stay on the CPU."""
    regimes = ("limited", "all")
    preps = []
    for fold in progress(range(folds), desc="folds"):
        seg = split(len(X), folds, fold, limited_fraction)
        for reg in regimes:
            preps.append(prepare(X, Y, seg[reg], seg["test"][0], T, block_windows))
    train = gt.stack_stats([p.train for p in preps] * seeds)
    test = gt.stack_stats([p.test for p in preps] * seeds)
    sst = torch.tensor(
        [p.test_sst for p in preps] * seeds, dtype=torch.float64, device="cpu"
    )
    B = len(preps) * seeds
    n_x, n_y = X.shape[1], Y.shape[1]
    rho = torch.tensor(rho_factors(T, nu_W, nu_F, nu_C), device="cpu")
    (student,) = child_seeds(seed, 1, "student")
    params = linear_rnn.init_params(
        n,
        n_x,
        n_y,
        nu_W,
        nu_F,
        nu_C,
        seed=student,
        batch=B,
        dtype=rnn_dtype,
        device=device,
    )
    L0 = gt.rnn_impulse(params, T).to(torch.float64).cpu()
    # stability of GD: lr times the largest eigenvalue of the Hessian in each model's own parameters
    H = 2.0 * train.R / train.M[:, None, None]
    d_s = torch.repeat_interleave(rho, n_x).sqrt()
    lam = max(
        float(torch.linalg.eigvalsh(H).max()),
        float(torch.linalg.eigvalsh(d_s[:, None] * H * d_s[None, :]).max()),
    )
    rnn = gt.train_rnn(params, train, lr, steps, {"test": test}, keep_L=False)[0]
    del params  # the n x n matrices, before the convolutions
    arms = torch.stack([rho, torch.ones_like(rho)])[:, None]  # scaled, unscaled
    conv = gt.train_conv(
        torch.stack([L0, L0]), arms, train, lr, steps, {"test": test}, device=device
    )
    models = ("RNN", "scaled conv", "unscaled conv")
    losses = torch.cat(
        [rnn.losses["test"].to(torch.float64)[:, None], conv.losses["test"]], 1
    )  # (steps+1, models, B)
    curves = r2_curve(losses, test, sst)
    curves = (
        curves.reshape(steps + 1, len(models), seeds, folds, len(regimes))
        .permute(2, 4, 3, 1, 0)
        .numpy()
    )  # (seeds, regimes, folds, models, steps+1)
    final_L = torch.cat([rnn.L[-1, None].to(torch.float64).cpu(), conv.L[-1].cpu()])
    block_r2 = _block_r2(final_L, preps, seeds, len(models), folds, len(regimes))
    final_L = final_L[:, : len(preps)]  # the first seed: (models, folds * regimes, ...)
    final_L = final_L.reshape(len(models), folds, len(regimes), *final_L.shape[2:])
    return Table1Result(
        models,
        regimes,
        curves[..., -1],
        curves,
        final_L.permute(2, 1, 0, 3, 4, 5).numpy(),
        {
            reg: [p.n_train_steps for p in preps[i :: len(regimes)]]
            for i, reg in enumerate(regimes)
        },
        rho.numpy(),
        lr * lam,
        dict(
            folds=folds,
            limited_fraction=limited_fraction,
            n=n,
            lr=lr,
            steps=steps,
            block_windows=block_windows,
        ),
        block_r2,
    )


def _block_r2(
    final_L: Tensor, preps: list, seeds: int, n_models: int, folds: int, n_reg: int
) -> np.ndarray:
    """The final test R^2 of every model and network on each block of its fold's test block
    (against the fold's test mean): (seeds, regimes, folds, blocks, models)."""
    nb = min(len(p.blocks) for p in preps)
    out = np.empty((nb, n_models, len(preps) * seeds))
    for j in range(nb):
        st = gt.stack_stats([p.blocks[j][0] for p in preps] * seeds)
        sst = torch.tensor(
            [p.blocks[j][1] for p in preps] * seeds,
            dtype=torch.float64,
            device=final_L.device,
        )
        out[j] = (1.0 - gt.mse(final_L, st) * st.M / sst).cpu().numpy()
    out = out.reshape(nb, n_models, seeds, folds, n_reg)
    return out.transpose(2, 4, 3, 0, 1)  # (seeds, regimes, folds, blocks, models)


def paired_one_sided(a: np.ndarray, b: np.ndarray) -> tuple[float, float]:
    """Mean of a - b over folds and the one-sided p-value of the paired t-test of mean(a - b) > 0."""
    from scipy import stats

    diff = np.asarray(a) - np.asarray(b)
    if len(diff) < 2 or np.allclose(diff, diff[0]):
        return float(diff.mean()), float("nan")
    return float(diff.mean()), float(
        stats.ttest_1samp(diff, 0.0, alternative="greater").pvalue
    )
