"""The kernel-regime equivalence of Emami et al. in training (Sec. 5.1, Figs. 1, 2 and 4; Theorem 4.1):
a wide linear RNN and the scaled convolution (8) with the rho_j of Eq. (21), started from the same impulse
response (Eq. 58) and trained by full-batch GD with the same learning rate, follow the same trajectory.

:func:`teacher_student` is the experiment of Figs. 1 and 2 (one wide student and its twin on a teacher
task), :func:`finite_width` that of Fig. 4 (students of several widths, several seeds each), and
:func:`drift_summary` gathers the drift bound (25) of Theorem 4.1 over both.

The students are drawn on a CPU generator and trained on ``device``
(:mod:`~rnnbook.implicit_bias.gd_training`); the teacher tasks, the trajectories and every
statistic below stay on the CPU.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch
from torch import Tensor

from rnnbook.plotting import progress

from . import gd_training as gt
from . import linear_rnn, teacher_tasks
from .ensembles import child_seeds, curve_intervals, interval_fields
from .rates import LogLogFit, loglog_fit
from .scale_factors import rho as rho_factors
from .scale_factors import rho_max as rho_max_value


@dataclass
class PairRun:
    """An RNN and its scaled-convolution twin trained on the same data (leading batch axes = seeds)."""

    rnn: gt.Trajectory
    conv: gt.Trajectory
    rho: Tensor
    lr: float


def train_pair(
    train: gt.LagStats,
    evals: dict[str, gt.LagStats],
    *,
    n: int,
    nu_W: float,
    nu_F: float,
    nu_C: float,
    lr: float,
    steps: int,
    seed: int,
    batch: int | None = None,
    device: str = "cpu",
) -> PairRun:
    """Draw the student RNN from (4), start the scaled convolution from its impulse response (Eq. 58), and
    train both with the same learning rate, on ``device``."""
    rho = torch.tensor(rho_factors(train.lags, nu_W, nu_F, nu_C), device="cpu")
    params = linear_rnn.init_params(
        n, train.n_x, train.n_y, nu_W, nu_F, nu_C, seed=seed, batch=batch, device=device
    )
    rnn, _ = gt.train_rnn(params, train, lr, steps, evals)
    del params, _  # the n x n matrices, before the next arm
    conv = gt.train_conv(rnn.L[0], rho, train, lr, steps, evals, device=device)
    return PairRun(rnn, conv, rho, lr)


def relative_gap(a: Tensor, b: Tensor) -> Tensor:
    """max over steps (axis 0) of |a / b - 1|: how far a loss curve ``a`` strays from the curve ``b``."""
    return (a / b - 1).abs().max(0).values


def running_gap(a: Tensor, b: Tensor, steps: list[int]) -> np.ndarray:
    """:func:`relative_gap` over the steps 0..l, for each l in ``steps``: (len(steps), ...)."""
    run = torch.cummax((a / b - 1).abs(), 0).values
    return run[list(steps)].numpy()


def loss_ratio(traj: gt.Trajectory, name: str = "train") -> Tensor:
    """Final / initial loss of each network of a batch: how far training took it."""
    loss = traj.losses[name]
    return loss[-1] / loss[0]


@dataclass
class Theorem41:
    """The constants of the proof of Theorem 4.1 (App. B.4, Eq. 60) for the MSE of this book.

    With MSE(L) = (1/M)||y - A L||^2 the proof's least-squares cost (1/2)||y~ - A~ L||^2 has
    A~ = sqrt(2/M) A, so that B_1 = 1 / (rho_max ||A~||^2) and B_2 = ||A~^T b~|| = ||dMSE/dL at L^0||_F.
    """

    B1: float  # the smallest over a batch of data sets
    B2: Tensor  # one per network of a batch
    rho_max: float
    proof_matrix_norm: float  # ||I - lr A~^T A~ D||_2, which the proof asserts is <= 1


def theorem41_constants(
    train: gt.LagStats, L0: Tensor, rho: Tensor, nu_F: float, nu_C: float, lr: float
) -> Theorem41:
    rho_max = rho_max_value(train.lags, nu_F, nu_C)
    AtA = 2.0 * train.R / train.M[..., None, None]
    B1 = 1.0 / (rho_max * float(torch.linalg.eigvalsh(AtA).max()))
    B2 = gt.mse_grad(L0, train).flatten(-3).norm(dim=-1)
    D = torch.as_tensor(rho, dtype=AtA.dtype, device=AtA.device)
    D = torch.repeat_interleave(D, train.n_x)
    M = torch.eye(len(D), dtype=AtA.dtype, device=AtA.device) - lr * AtA * D[None, :]
    norm = float(torch.linalg.matrix_norm(M, ord=2).max())  # the largest over a batch
    return Theorem41(B1, B2, rho_max, norm)


def drift_ratio(
    traj: gt.Trajectory, rho: Tensor, lr: float, B2: float | Tensor
) -> Tensor:
    """||L_j^l - L_j^0||_F / (B_2 rho_j lr l) for l >= 1: Eq. (25) holds where this is <= 1.

    ``traj.L`` has shape (steps+1, ..., T, n_y, n_x); returns (steps, ..., T).
    """
    drift = (traj.L - traj.L[0]).flatten(-2).norm(dim=-1)[1:]
    steps = drift.shape[0]
    ell = torch.arange(1, steps + 1, dtype=drift.dtype, device=drift.device).reshape(
        steps, *([1] * (drift.dim() - 1))
    )
    B2 = torch.as_tensor(B2, dtype=drift.dtype, device=drift.device)
    return drift / (B2[..., None] * rho * lr * ell)


def _teacher_stats(
    n_teacher: int,
    T: int,
    n_train: int,
    n_test: int,
    init: dict,
    snr_db: float,
    seeds: list[int],
) -> tuple[teacher_tasks.Task, gt.LagStats, gt.LagStats]:
    """One teacher task per seed, as stacked statistics; returns the first task too (for figures)."""
    tasks = [
        teacher_tasks.teacher_task(
            n_teacher=n_teacher,
            n_x=1,
            n_y=1,
            T=T,
            n_train=n_train,
            n_test=n_test,
            snr_db=snr_db,
            seed=s,
            **init,
        )
        for s in seeds
    ]
    train = gt.stack_stats([gt.lag_stats(t.X_train, t.Y_train) for t in tasks])
    test = gt.stack_stats([gt.lag_stats(t.X_test, t.Y_test) for t in tasks])
    return tasks[0], train, test


@dataclass
class TeacherStudent:
    """Figs. 1 and 2: student RNNs and their scaled convolutions on teacher tasks, one teacher and
    one student per seed, trained as one batch (leading axis = seeds)."""

    task: teacher_tasks.Task  # the first seed's task (for the figures)
    run: PairRun
    c41: Theorem41
    setup: dict  # n, lr, steps, n_seeds

    def gap(self, name: str) -> np.ndarray:
        """Per seed, max over steps of |loss_RNN / loss_conv - 1| on the data set ``name``."""
        return relative_gap(
            self.run.rnn.losses[name], self.run.conv.losses[name]
        ).numpy()

    def gap_trend(self, steps: list[int]) -> tuple[np.ndarray, ...]:
        """The claim's gap (train and test) over the steps 0..l, for l in ``steps``: mean and 95%
        interval over seeds."""
        r, c = self.run.rnn.losses, self.run.conv.losses
        g = np.maximum(*(running_gap(r[k], c[k], steps) for k in ("train", "test")))
        return curve_intervals(g)

    def drift(self, model: str) -> Tensor:
        """||L_j^l - L_j^0|| / (B_2 rho_j lr l) of ``model`` ("rnn" or "conv"), (steps, seeds, T)."""
        traj = getattr(self.run, model)
        return drift_ratio(traj, self.run.rho, self.run.lr, self.c41.B2)

    def constants_markdown(self) -> str:
        """The learning rate and the constant B_1 of Theorem 4.1, as a Markdown sentence."""
        c = self.c41
        return (
            f"Learning rate $\\eta = {self.run.lr}$; the constant of Theorem 4.1 for these "
            "data is $B_1 = 1/(\\rho_{\\max}\\|\\tilde A\\|^2) = "
            f"{c.B1:.4f}$ ($\\rho_{{\\max}} = {c.rho_max:g}$; smallest over the "
            f"{self.setup['n_seeds']} teacher tasks)."
        )

    def train_ratio(self) -> float:
        """The largest final / initial training loss over both models and all seeds (reported:
        the worst run)."""
        return float(
            max(loss_ratio(self.run.rnn).max(), loss_ratio(self.run.conv).max())
        )

    def ref_train_ratio(self) -> float:
        """The gate (the experiment works): the median over seeds of the final / initial
        training loss of the scaled convolution, the reference the RNN is compared with (its
        n -> infinity dynamics). It reads neither the RNN nor the gap between the two."""
        return float(np.median(loss_ratio(self.run.conv).cpu().numpy()))

    def summary(self) -> dict:
        final = {
            f"final_{k}": [
                float(f"{self.run.rnn.losses[k][-1].mean():.4g}"),
                float(f"{self.run.conv.losses[k][-1].mean():.4g}"),
            ]
            for k in ("train", "test")
        }
        gap_train, gap_test = self.gap("train"), self.gap("test")
        return {
            **interval_fields("gap", np.maximum(gap_train, gap_test)),
            "gap_train": float(gap_train.mean()),
            "gap_test": float(gap_test.mean()),
            "gap_worst": float(np.maximum(gap_train, gap_test).max()),
            **final,
            "train_ratio": self.train_ratio(),
            "ref_train_ratio": self.ref_train_ratio(),
            # per seed, the reference's final / initial training loss (the gate reads its
            # median from these, so that a record's shards join them)
            "ref_ratio_seeds": [
                float(v) for v in loss_ratio(self.run.conv).cpu().numpy().ravel()
            ],
            "B1": self.c41.B1,
            "rho_max": self.c41.rho_max,
            **self.setup,
        }


def teacher_student(
    *,
    n_teacher: int,
    T: int,
    n_train: int,
    n_test: int,
    snr_db: float,
    n: int,
    nu_W: float,
    nu_F: float,
    nu_C: float,
    lr: float,
    steps: int,
    seeds: int,
    seed: int,
    device: str = "cpu",
    seed_start: int = 0,
) -> TeacherStudent:
    """``seeds`` teacher tasks (stream "teacher" of ``seed``, from its ``seed_start``-th seed)
    and student pairs (one batch from the ``seed_start``-th seed of the stream "student"),
    trained as one batch on ``device`` with train and test losses recorded, and the constants of
    Theorem 4.1."""
    init = dict(nu_W=nu_W, nu_F=nu_F, nu_C=nu_C)
    task, train, test = _teacher_stats(
        n_teacher,
        T,
        n_train,
        n_test,
        init,
        snr_db,
        child_seeds(seed, seeds, "teacher", seed_start),
    )
    (student,) = child_seeds(seed, 1, "student", seed_start)
    run = train_pair(
        train,
        {"test": test},
        n=n,
        lr=lr,
        steps=steps,
        seed=student,
        batch=seeds,
        device=device,
        **init,
    )
    c41 = theorem41_constants(train, run.rnn.L[0], run.rho, nu_F, nu_C, lr)
    return TeacherStudent(task, run, c41, dict(n=n, lr=lr, steps=steps, n_seeds=seeds))


def _slopes(widths: list[int], gaps: np.ndarray) -> np.ndarray:
    """Per seed (column of ``gaps``, shape (widths, seeds)), the least-squares slope of log gap on
    log n."""
    x = np.log(np.asarray(widths, float))
    x = x - x.mean()
    y = np.log(gaps)
    return (x @ (y - y.mean(0))) / (x @ x)


@dataclass
class FiniteWidth:
    """Fig. 4: students of several widths (``seeds`` each) against their scaled convolutions. Seed
    ``s`` has the same teacher at every width and its own student at each width."""

    widths: list[int]
    runs: dict[int, PairRun]
    gaps: np.ndarray  # (widths, seeds): max relative gap between the training curves
    ratios: (
        np.ndarray
    )  # (widths, seeds): max over steps and lags of the RNN's drift ratio
    fit: LogLogFit  # gap ~ n^slope, pooled over seeds (descriptive)
    setup: dict  # n_seeds, lr, steps, T, n_train, snr_db

    def slope_trend(self, steps: list[int]) -> tuple[np.ndarray, ...]:
        """The per-seed slope of log gap on log n, from the gaps over the steps 0..l, for l in
        ``steps``: mean and 95% interval over seeds."""
        g = np.stack(
            [
                running_gap(r.rnn.losses["train"], r.conv.losses["train"], steps)
                for r in self.runs.values()
            ],
            1,
        )  # (steps, widths, seeds)
        return curve_intervals([_slopes(self.widths, gs) for gs in g])

    def gap_trend(self, steps: list[int]) -> dict[int, tuple[np.ndarray, ...]]:
        """Per width, the gap over the steps 0..l: mean and 95% interval over seeds."""
        return {
            n: curve_intervals(
                running_gap(r.rnn.losses["train"], r.conv.losses["train"], steps)
            )
            for n, r in self.runs.items()
        }

    def train_ratio(self) -> float:
        """The largest final / initial training loss of the scaled convolutions (the n ->
        infinity dynamics) over widths and seeds (reported: the worst run)."""
        return float(max(loss_ratio(r.conv).max() for r in self.runs.values()))

    def rnn_train_ratio(self) -> float:
        """The largest final / initial training loss of the RNNs over widths and seeds
        (reported: a narrow RNN that fits the teacher poorly is the effect measured, not a
        failed experiment)."""
        return float(max(loss_ratio(r.rnn).max() for r in self.runs.values()))

    def ref_train_ratio(self) -> float:
        """The gate (the experiment works): the median over widths and seeds of the final /
        initial training loss of the scaled convolutions, the reference each RNN is compared
        with; it reads no RNN and no gap, and more seeds do not make it fail more often."""
        ratios = [loss_ratio(r.conv).cpu().numpy().ravel() for r in self.runs.values()]
        return float(np.median(np.concatenate(ratios)))

    def summary(self) -> dict:
        return {
            "widths": list(self.widths),
            "gap_mean": [round(float(v), 4) for v in self.gaps.mean(1)],
            "gap_sd": [round(float(v), 4) for v in self.gaps.std(1, ddof=1)],
            **interval_fields("slope", _slopes(self.widths, self.gaps)),
            **interval_fields("gap_last", self.gaps[-1]),
            "pooled_slope": self.fit.slope,
            "pooled_slope_ci": self.fit.ci95,
            "gap_first": float(self.gaps[0].mean()),
            "n_last": int(self.widths[-1]),
            "train_ratio": self.train_ratio(),
            "rnn_train_ratio": self.rnn_train_ratio(),
            "ref_train_ratio": self.ref_train_ratio(),
            **self.setup,
        }


def finite_width(
    *,
    n_teacher: int,
    widths: list[int],
    seeds: int,
    T: int,
    n_train: int,
    n_test: int,
    snr_db: float,
    nu_W: float,
    nu_F: float,
    nu_C: float,
    lr: float,
    steps: int,
    seed: int,
    device: str = "cpu",
    seed_start: int = 0,
) -> FiniteWidth:
    """``seeds`` teacher tasks (stream "fig4 teacher" of ``seed``, from its ``seed_start``-th
    seed) and, per width n, ``seeds`` student pairs (one seed of the stream "fig4 student" per
    width and shard) trained on them as one batch on ``device``."""
    init = dict(nu_W=nu_W, nu_F=nu_F, nu_C=nu_C)
    teachers = child_seeds(seed, seeds, "fig4 teacher", seed_start)
    _, train, _ = _teacher_stats(n_teacher, T, n_train, n_test, init, snr_db, teachers)
    students = child_seeds(seed, len(widths), "fig4 student", seed_start * len(widths))
    runs, gaps, ratios = {}, [], []
    for n, st in zip(progress(widths, desc="widths"), students):
        r = train_pair(
            train,
            {},
            n=n,
            lr=lr,
            steps=steps,
            seed=st,
            batch=seeds,
            device=device,
            **init,
        )
        runs[n] = r
        gaps.append(relative_gap(r.rnn.losses["train"], r.conv.losses["train"]).numpy())
        B2 = theorem41_constants(train, r.rnn.L[0], r.rho, nu_F, nu_C, lr).B2
        ratios.append(drift_ratio(r.rnn, r.rho, lr, B2).amax(dim=(0, 2)).numpy())
    gaps, ratios = np.array(gaps), np.array(ratios)
    setup = dict(n_seeds=seeds, lr=lr, steps=steps, T=T, n_train=n_train, snr_db=snr_db)
    return FiniteWidth(
        list(widths), runs, gaps, ratios, loglog_fit(np.array(widths), gaps), setup
    )


def drift_summary(ts: TeacherStudent, fw: FiniteWidth) -> dict:
    """Theorem 4.1's drift bound (25): the largest ratio of drift to bound for the scaled
    convolutions and for the wide students of Figs. 1-2 (over all seeds, lags and steps; a bound
    is shown by its worst case), the per-seed largest ratios of both models (the RNN's with its 95%
    interval), per width of Fig. 4 the mean over seeds and per seed the slope of the log ratio on
    the log width (the limit's trend), the gates, and the largest norm of the matrix that the
    proof asserts is at most 1."""
    per_seed_rnn = ts.drift("rnn").amax(dim=(0, 2)).numpy()
    per_seed_conv = ts.drift("conv").amax(dim=(0, 2)).numpy()
    return {
        "lr": ts.run.lr,
        "B1": ts.c41.B1,
        "ratio_conv": float(ts.drift("conv").max()),
        "ratio_conv_seeds": [float(v) for v in per_seed_conv],
        # per seed, the slope of log(largest RNN ratio) on log(width) over Fig. 4's widths
        **interval_fields("ratio_slope", _slopes(fw.widths, fw.ratios)),
        "fw_train_ratio": max(fw.train_ratio(), fw.rnn_train_ratio()),
        # the gate: the reference (the scaled convolutions) of both experiments trained, the
        # median run of each
        "ref_train_ratio": max(ts.ref_train_ratio(), fw.ref_train_ratio()),
        "ratio_rnn_max": float(per_seed_rnn.max()),
        **interval_fields("ratio_rnn", per_seed_rnn),
        "n": ts.setup["n"],
        "ratio_by_width": {
            str(n): round(float(fw.ratios[a].mean()), 3)
            for a, n in enumerate(fw.widths)
        },
        "proof_norm": ts.c41.proof_matrix_norm,
        "train_ratio": ts.train_ratio(),
        "n_seeds": ts.setup["n_seeds"],
    }


def drift_table(ts: TeacherStudent, fw: FiniteWidth) -> str:
    """Markdown table: the largest drift ratio of the RNN per width (mean over seeds)."""
    rows = [
        "| width $n$ | max drift / bound (mean over seeds) |",
        "| --- | --- |",
        *(f"| {n} | {fw.ratios[a].mean():.3f} |" for a, n in enumerate(fw.widths)),
        f"| {ts.setup['n']} (Fig. 1 students) | "
        f"{float(ts.drift('rnn').amax(dim=(0, 2)).mean()):.3f} |",
    ]
    return "\n".join(rows)
