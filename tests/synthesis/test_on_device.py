"""The synthesis diagnostics on a device (rnnbook.device): the linear and nonlinear sweeps and the
kernel-regime GD run with every tensor on the device they are given (on the CPU under a ``meta``
default device, see tests/test_device.py), from the same CPU draws as the default run."""

import numpy as np
import pytest
import torch

from rnnbook.synthesis import linear_diagnostics, nonlinear_diagnostics, two_biases
from tests.test_device import DEVICES, strict

torch.set_num_threads(1)


def same(a, b, dev, rtol=1e-9):
    """Equal on the CPU (the same operations); equal up to float error on CUDA."""
    if dev == "cpu":
        np.testing.assert_array_equal(a, b)
    else:
        np.testing.assert_allclose(a, b, rtol=rtol, atol=1e-12)


@pytest.mark.parametrize("dev", DEVICES)
def test_linear_sweep_on_the_device(dev):
    args = ([0.5, 0.9], [6, 10], 2, 4, 0)
    with strict(dev):
        s = linear_diagnostics.sweep(*args, probes=3, device=dev)
    ref = linear_diagnostics.sweep(*args, probes=3)
    for q in linear_diagnostics.QUANTITIES:
        same(s.values[q], ref.values[q], dev)


@pytest.mark.parametrize("dev", DEVICES)
@pytest.mark.parametrize("cell", nonlinear_diagnostics.CELLS)
def test_nonlinear_sweep_on_the_device(dev, cell):
    kw = dict(n=8, seeds=2, T=4, seed=1, burn=3, probes=3)
    with strict(dev):
        s = nonlinear_diagnostics.sweep(cell, [0.5, 1.2], device=dev, **kw)
    ref = nonlinear_diagnostics.sweep(cell, [0.5, 1.2], **kw)
    for q in nonlinear_diagnostics.QUANTITIES:
        same(s.values[q], ref.values[q], dev)


@pytest.mark.parametrize("dev", DEVICES)
def test_kernel_gd_on_the_device(dev):
    X, y, _ = two_biases.convolution_data(6, 3, 0)
    with strict(dev):
        gd, lim = two_biases.width_sweep(X, y, [4, 8], 0.8, 2, 0, 200, device=dev)
    ref_gd, ref_lim = two_biases.width_sweep(X, y, [4, 8], 0.8, 2, 0, 200)
    same(gd, ref_gd, dev, rtol=1e-6)
    same(lim, ref_lim, dev, rtol=1e-6)
