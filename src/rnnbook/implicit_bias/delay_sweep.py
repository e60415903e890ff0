"""Fig. 3 of Emami et al.: test error against the delay of the true system, for the linear RNN, the
scaled convolution (8) and the unscaled convolution (5), all started from the same impulse response and
trained by full-batch GD with the same learning rate (Sec. 5.1), plus a control: the unscaled convolution
started from zero.

For each seed a teacher RNN and a data set are drawn once; the delay then shifts the teacher's impulse
response (``teacher_tasks.delayed``), so the runs at different delays of one seed share the teacher, the
inputs, the noise pattern and the student's initialization. The whole grid (seeds x delays) trains as one
batch of RNNs, and the three convolutional arms (seeds x delays x arms) as one batch of convolutions.
The losses are recorded at every step, so the statistics of the claim can be followed along training
(:meth:`DelaySweep.trend`). The student is drawn on a CPU generator and both batches train on
``device``; the tasks and the recorded curves stay on the CPU.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import torch
from scipy import stats

from . import gd_training as gt
from . import linear_rnn
from . import teacher_tasks
from .ensembles import child_seeds, curve_intervals, interval_fields
from .scale_factors import rho as rho_factors

MODELS = ("RNN", "scaled conv", "unscaled conv", "unscaled conv, zero init")
RNN, SCALED, UNSCALED, ZERO = range(len(MODELS))


@dataclass
class DelaySweep:
    delays: list[int]
    seeds: int
    test_curve: np.ndarray  # (steps+1, models, seeds, delays): test MSE along training
    train_curve: np.ndarray  # (steps+1, models, seeds, delays)
    test_power: (
        np.ndarray
    )  # (seeds, delays): mean squared test output, the error of predicting 0
    rho: np.ndarray | None
    setup: dict = field(default_factory=dict)  # n, lr, steps

    @property
    def test_mse(self) -> np.ndarray:
        """(models, seeds, delays): the test MSE after the last step."""
        return self.test_curve[-1]

    @property
    def train_mse(self) -> np.ndarray:
        return self.train_curve[-1]

    @property
    def relative_test_error(self) -> np.ndarray:
        """Test MSE / mean squared test output (1 = no better than predicting 0); comparable across delays,
        whose signal powers differ."""
        return self.test_mse / self.test_power[None]

    @property
    def relative_train_error(self) -> np.ndarray:
        """Training MSE on the scale of :attr:`relative_test_error` (divided by the test power)."""
        return self.train_mse / self.test_power[None]

    def effects(self, step: int = -1) -> dict[str, np.ndarray]:
        """Per seed, after ``step``: log growth factors log(error at the largest delay / error at
        delay 0) of each model, and ``unscaled_ratio``, log(unscaled error / scaled error) at the
        largest delay (negative: the unscaled model wins)."""
        rel = self.test_curve[step] / self.test_power[None]  # (models, seeds, delays)
        out = {
            name: np.log(rel[k, :, -1] / rel[k, :, 0])
            for name, k in (
                ("growth_rnn", RNN),
                ("growth_scaled", SCALED),
                ("growth_unscaled", UNSCALED),
                ("growth_zero_init", ZERO),
            )
        }
        out["unscaled_ratio"] = np.log(rel[UNSCALED, :, -1] / rel[SCALED, :, -1])
        return out

    def trend(self, steps: list[int]) -> dict[str, tuple[np.ndarray, ...]]:
        """Each effect of :meth:`effects` at the given steps, as factors: (mean, lo, hi) over seeds
        (95% interval of the log, exponentiated), arrays of len(steps)."""
        per = [self.effects(s) for s in steps]
        return {
            k: tuple(np.exp(a) for a in curve_intervals([p[k] for p in per]))
            for k in per[0]
        }

    def train_ratio_0(self) -> float:
        """The largest final / initial training MSE at delay 0 over the RNN, the scaled and the
        unscaled convolution and all seeds (reported: the worst run)."""
        tr = self.train_curve[..., 0]  # (steps+1, models, seeds)
        ks = [RNN, SCALED, UNSCALED]
        return float(np.max(tr[-1, ks] / tr[0, ks]))

    def ref_train_ratio_0(self) -> float:
        """The gate (the experiment works): the median over seeds of the final / initial
        training MSE at delay 0 of the unscaled convolution, the reference without the bias
        against delay. A compared model that did not train at delay 0 is not gated: its error
        there is high and its growth factor low, a loss for it inside the statistic."""
        tr = self.train_curve[..., 0]  # (steps+1, models, seeds)
        return float(np.median(tr[-1, UNSCALED] / tr[0, UNSCALED]))

    def summary(self) -> dict:
        """The numbers of the Fig. 3 claim, from the relative test error: per model the mean over
        seeds at each delay; growth factors error(largest delay) / error(delay 0) and the ratio
        unscaled / scaled error at the largest delay, each as the geometric mean over seeds with its
        95% interval (``<name>``, ``<name>_lo``, ``<name>_hi``); the Spearman correlation of the
        mean error with the delay (descriptive; 1 when there are only two delays); the gate."""
        rel, d = self.relative_test_error, np.array(self.delays)
        mean = rel.mean(1)  # (models, delays)

        def spearman(k: int) -> float:
            return float(stats.spearmanr(d, mean[k]).statistic) if len(d) > 2 else 1.0

        out = {
            "delays": list(self.delays),
            "mean_error": {
                m: [round(float(v), 4) for v in mean[k]] for k, m in enumerate(MODELS)
            },
            "spearman_scaled": spearman(SCALED),
            "spearman_rnn": spearman(RNN),
        }
        for name, v in self.effects().items():
            out |= interval_fields(name, v, np.exp)
        return out | {
            "train_ratio_0": self.train_ratio_0(),
            "ref_train_ratio_0": self.ref_train_ratio_0(),
            "rnn_vs_scaled": float(np.max(np.abs(mean[RNN] / mean[SCALED] - 1))),
            "err_scaled_0": float(mean[SCALED, 0]),
            "err_unscaled_0": float(mean[UNSCALED, 0]),
            "err_scaled_max": float(mean[SCALED, -1]),
            "err_unscaled_max": float(mean[UNSCALED, -1]),
            "delay_max": int(d[-1]),
            "n_seeds": self.seeds,
            **self.setup,
        }


def run_delay_sweep(
    *,
    delays: list[int],
    seeds: int,
    n: int,
    n_teacher: int,
    n_x: int,
    T: int,
    n_train: int,
    n_test: int,
    nu_W: float,
    nu_F: float,
    nu_C: float,
    snr_db: float,
    lr: float,
    steps: int,
    seed: int,
    rnn_dtype: torch.dtype = torch.float64,
    device: str = "cpu",
    seed_start: int = 0,
) -> DelaySweep:
    """Teachers from ``child_seeds(seed, seeds, "teacher", seed_start)``, one student per seed
    drawn as one batch from the ``seed_start``-th seed of the stream "student" (a shard of a
    record draws its students from its own); the RNNs of all seeds and delays train as one
    batch (in ``rnn_dtype``), the three convolutional arms as another (in float64)."""
    trains, tests = [], []
    for s in child_seeds(seed, seeds, "teacher", seed_start):
        for d in delays:
            task = teacher_tasks.teacher_task(
                n_teacher=n_teacher,
                n_x=n_x,
                n_y=1,
                T=T,
                n_train=n_train,
                n_test=n_test,
                nu_W=nu_W,
                nu_F=nu_F,
                nu_C=nu_C,
                snr_db=snr_db,
                seed=s,
                delay=d,
            )
            trains.append(gt.lag_stats(task.X_train, task.Y_train))
            tests.append(gt.lag_stats(task.X_test, task.Y_test))
    train, test = gt.stack_stats(trains), gt.stack_stats(tests)
    rho = torch.tensor(rho_factors(T, nu_W, nu_F, nu_C), device="cpu")
    (student,) = child_seeds(seed, 1, "student", seed_start)
    p = linear_rnn.init_params(
        n,
        n_x,
        1,
        nu_W,
        nu_F,
        nu_C,
        seed=student,
        batch=seeds,
        dtype=rnn_dtype,
        device=device,
    )
    p = {
        k: v.repeat_interleave(len(delays), dim=0) for k, v in p.items()
    }  # same student for every delay
    rnn, _ = gt.train_rnn(p, train, lr, steps, {"test": test}, keep_L=False)
    del p, _  # the n x n matrices, before the convolutions
    L0 = rnn.L[0].to(torch.float64)
    # the convolutional arms as one batch: scaled, unscaled, unscaled from L = 0
    arms_L0 = torch.stack([L0, L0, torch.zeros_like(L0)])
    arms_rho = torch.stack([rho, torch.ones_like(rho), torch.ones_like(rho)])[:, None]
    conv = gt.train_conv(
        arms_L0, arms_rho, train, lr, steps, {"test": test}, False, device=device
    )
    shape = (steps + 1, len(MODELS), seeds, len(delays))

    def curve(name: str) -> np.ndarray:
        r = rnn.losses[name].to(torch.float64)
        both = torch.cat([r[:, None], conv.losses[name]], 1)
        return both.reshape(shape).numpy()

    power = (test.yy / test.M).reshape(seeds, len(delays)).numpy()
    setup = dict(n=n, lr=lr, steps=steps)
    return DelaySweep(
        list(delays), seeds, curve("test"), curve("train"), power, rho.numpy(), setup
    )
