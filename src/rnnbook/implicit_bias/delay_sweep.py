"""Fig. 3 of Emami et al.: test error against the delay of the true system, for the linear RNN, the
scaled convolution (8) and the unscaled convolution (5), all started from the same impulse response and
trained by full-batch GD with the same learning rate (Sec. 5.1), plus a control: the unscaled convolution
started from zero.

For each seed a teacher RNN and a data set are drawn once; the delay then shifts the teacher's impulse
response (``teacher_tasks.delayed``), so the runs at different delays of one seed share the teacher, the
inputs, the noise pattern and the student's initialization.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

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

    @property
    def relative_test_error(self) -> np.ndarray:
        """Test MSE / mean squared test output (1 = no better than predicting 0); comparable across delays,
        whose signal powers differ."""
        return self.test_mse / self.test_power[None]


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
    return DelaySweep(list(delays), seeds, test_mse, train_mse, power, rho.numpy())
