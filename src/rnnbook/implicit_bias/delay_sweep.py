"""Fig. 3 of Emami et al.: test error against the delay of the true system, for the linear RNN, the
scaled convolution (8) and the unscaled convolution (5), all started from the same impulse response and
trained by full-batch GD with the same learning rate (Sec. 5.1), plus a control: the unscaled convolution
started from zero.

For each seed a teacher RNN and a data set are drawn once; the delay then shifts the teacher's impulse
response (``teacher_tasks.delayed``), so the runs at different delays of one seed share the teacher, the
inputs, the noise pattern and the student's initialization.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import torch
from scipy import stats

from . import gd_training as gt
from . import linear_rnn
from . import teacher_tasks
from .scale_factors import rho as rho_factors

MODELS = ("RNN", "scaled conv", "unscaled conv", "unscaled conv, zero init")


@dataclass
class DelaySweep:
    delays: list[int]
    seeds: int
    test_mse: np.ndarray  # (models, seeds, delays), after the last step
    train_mse: np.ndarray  # (models, seeds, delays)
    test_power: (
        np.ndarray
    )  # (seeds, delays): mean squared test output, the error of predicting 0
    rho: np.ndarray
    setup: dict = field(default_factory=dict)  # n, lr, steps

    @property
    def relative_test_error(self) -> np.ndarray:
        """Test MSE / mean squared test output (1 = no better than predicting 0); comparable across delays,
        whose signal powers differ."""
        return self.test_mse / self.test_power[None]

    @property
    def relative_train_error(self) -> np.ndarray:
        """Training MSE on the scale of :attr:`relative_test_error` (divided by the test power)."""
        return self.train_mse / self.test_power[None]

    def summary(self) -> dict:
        """The numbers of the Fig. 3 claim, from the relative test error: per model the mean over
        seeds at each delay; the Spearman correlation of the mean error with the delay (1 when there
        are only two delays); whether the error at the largest delay exceeds that at delay 0 for every
        seed (RNN and scaled conv); whether the unscaled model beats the scaled one at the largest
        delay for every seed; growth factors mean(error at max delay) / mean(error at delay 0)."""
        rel, d = self.relative_test_error, np.array(self.delays)
        rnn, sc, un, zero = range(len(MODELS))  # in the order of MODELS
        mean = rel.mean(1)  # (models, delays)

        def spearman(k: int) -> float:
            return float(stats.spearmanr(d, mean[k]).statistic) if len(d) > 2 else 1.0

        def growth(k: int) -> float:
            return float(mean[k, -1] / mean[k, 0])

        return {
            "delays": list(self.delays),
            "mean_error": {
                m: [round(float(v), 4) for v in mean[k]] for k, m in enumerate(MODELS)
            },
            "spearman_scaled": spearman(sc),
            "spearman_rnn": spearman(rnn),
            "rises_all_seeds": all(
                bool(np.all(rel[k, :, -1] > rel[k, :, 0])) for k in (rnn, sc)
            ),
            "unscaled_wins": bool(np.all(rel[un, :, -1] < rel[sc, :, -1])),
            "growth_scaled": growth(sc),
            "growth_unscaled": growth(un),
            "growth_zero_init": growth(zero),
            "rnn_vs_scaled": float(np.max(np.abs(mean[rnn] / mean[sc] - 1))),
            "err_scaled_0": float(mean[sc, 0]),
            "err_unscaled_0": float(mean[un, 0]),
            "err_scaled_max": float(mean[sc, -1]),
            "err_unscaled_max": float(mean[un, -1]),
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
) -> DelaySweep:
    trains, tests = [], []
    for s in range(seeds):
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
                seed=seed + s,
                delay=d,
            )
            trains.append(gt.lag_stats(task.X_train, task.Y_train))
            tests.append(gt.lag_stats(task.X_test, task.Y_test))
    train, test = gt.stack_stats(trains), gt.stack_stats(tests)
    rho = torch.tensor(rho_factors(T, nu_W, nu_F, nu_C))
    p = linear_rnn.init_params(
        n, n_x, 1, nu_W, nu_F, nu_C, seed=seed + 999, batch=seeds
    )
    p = {
        k: v.repeat_interleave(len(delays), dim=0) for k, v in p.items()
    }  # same student for every delay
    rnn, _ = gt.train_rnn(p, train, lr, steps, {"test": test})
    L0 = rnn.L[0]
    runs = {
        "RNN": rnn,
        "scaled conv": gt.train_conv(L0, rho, train, lr, steps, {"test": test}),
        "unscaled conv": gt.train_conv(L0, None, train, lr, steps, {"test": test}),
        # a control: the unscaled model started from L = 0 rather than from the RNN's initial filter
        "unscaled conv, zero init": gt.train_conv(
            torch.zeros_like(L0), None, train, lr, steps, {"test": test}
        ),
    }
    shape = (seeds, len(delays))
    test_mse = np.stack(
        [runs[m].losses["test"][-1].reshape(shape).numpy() for m in MODELS]
    )
    train_mse = np.stack(
        [runs[m].losses["train"][-1].reshape(shape).numpy() for m in MODELS]
    )
    power = (test.yy / test.M).reshape(shape).numpy()
    setup = dict(n=n, lr=lr, steps=steps)
    return DelaySweep(
        list(delays), seeds, test_mse, train_mse, power, rho.numpy(), setup
    )
