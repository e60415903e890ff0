"""The gradient-descent trainers of Sec. 5 on a device (rnnbook.device): the teacher-student pairs
of Figs. 1, 2 and 4, the delay sweep of Fig. 3 and Table 1 run with every tensor on the device
they are given (on the CPU under a ``meta`` default device, see tests/test_device.py) and give
the numbers of the default (CPU) run: the students are drawn on a CPU generator."""

import numpy as np
import pytest
import torch

from rnnbook.implicit_bias import (
    decoding,
    delay_sweep,
    init_statistics,
    linear_rnn,
    ntk,
)
from rnnbook.implicit_bias import kernel_regime as kr
from tests.test_device import DEVICES, strict

torch.set_num_threads(1)

SETUP = dict(T=6, n_train=8, n_test=8, snr_db=20.0, nu_W=0.3, nu_F=1.0, nu_C=1.0)


def same(a, b, dev):
    """Equal on the CPU (the same operations); equal up to float error on CUDA."""
    a, b = np.asarray(a), np.asarray(b)
    if dev == "cpu":
        np.testing.assert_array_equal(a, b)
    else:
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-9)


@pytest.mark.parametrize("dev", DEVICES)
def test_students_are_drawn_on_the_cpu_and_moved(dev):
    kw = dict(n=5, n_x=2, n_y=1, nu_W=0.3, nu_F=1.0, nu_C=1.0, seed=4, batch=2)
    with strict(dev):
        p = linear_rnn.init_params(**kw, device=dev)
    ref = linear_rnn.init_params(**kw)
    assert all(
        v.device.type == dev and torch.equal(v.cpu(), ref[k]) for k, v in p.items()
    )


@pytest.mark.parametrize("dev", DEVICES)
def test_teacher_student_and_finite_width_on_the_device(dev):
    kw = dict(n_teacher=3, lr=0.02, steps=6, seeds=3, seed=0, **SETUP)
    with strict(dev):
        ts = kr.teacher_student(n=16, device=dev, **kw)
        fw = kr.finite_width(widths=[8, 16], device=dev, **kw)
    ref_ts = kr.teacher_student(n=16, **kw)
    ref_fw = kr.finite_width(widths=[8, 16], **kw)
    for arm in ("rnn", "conv"):
        a, b = getattr(ts.run, arm), getattr(ref_ts.run, arm)
        assert a.L.device.type == "cpu"
        same(a.losses["test"], b.losses["test"], dev)
        same(a.L, b.L, dev)
    same(fw.gaps, ref_fw.gaps, dev)
    same(fw.ratios, ref_fw.ratios, dev)


@pytest.mark.parametrize("dev", DEVICES)
def test_delay_sweep_on_the_device(dev):
    kw = dict(n=6, n_teacher=3, n_x=2, T=6, n_train=4, n_test=4, nu_W=0.3, nu_F=1.0)
    kw |= dict(nu_C=1.0, snr_db=20.0, lr=0.05, steps=5, delays=[0, 2], seeds=2, seed=3)
    with strict(dev):
        r = delay_sweep.run_delay_sweep(rnn_dtype=torch.float32, device=dev, **kw)
    ref = delay_sweep.run_delay_sweep(rnn_dtype=torch.float32, **kw)
    if dev == "cpu":
        same(r.test_curve, ref.test_curve, dev)
    else:  # the RNN arm in float32
        np.testing.assert_allclose(r.test_curve, ref.test_curve, rtol=1e-4)


@pytest.mark.parametrize("dev", DEVICES)
def test_table1_on_the_device(dev):
    rng = np.random.default_rng(0)
    X = rng.standard_normal((200, 2))
    Y = np.convolve(X[:, 0], [0.5, 1.0, 0.3], mode="full")[:200, None]
    kw = dict(T=5, folds=2, limited_fraction=0.3, n=8, nu_W=0.3, nu_F=1.0, nu_C=1.0)
    kw |= dict(lr=0.05, steps=6, seed=0, seeds=2)
    with strict(dev):
        res = decoding.run_table1(X, Y, device=dev, **kw)
    ref = decoding.run_table1(X, Y, **kw)
    same(res.curves, ref.curves, dev)
    same(res.final_L, ref.final_L, dev)


@pytest.mark.parametrize("dev", DEVICES)
def test_ntk_convergence_on_the_device(dev):
    kw = dict(T=4, n_x=2, n_y=2, n_inputs=2, nu_W=0.3, nu_F=1.0, nu_C=1.0, seed=0)
    with strict(dev):
        c = ntk.convergence([8, 16], 2, device=dev, **kw)
    ref = ntk.convergence([8, 16], 2, **kw)
    same(c.errors, ref.errors, dev)
    same(c.rho_hat, ref.rho_hat, dev)


@pytest.mark.parametrize("dev", DEVICES)
def test_impulse_response_monte_carlo_on_the_device(dev):
    kw = dict(n=8, n_x=2, n_y=1, T=4, nu_W=0.3, nu_F=1.0, nu_C=1.0, draws=10, seed=2)
    with strict(dev):
        L = init_statistics.sample_impulse_responses(chunk=4, device=dev, **kw)
    same(L, init_statistics.sample_impulse_responses(chunk=4, **kw), dev)
