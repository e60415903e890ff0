"""The four-layer μP networks of Sec. 6 on a device (rnnbook.device): drawn on a CPU generator
and moved, trained with every tensor on the device they are given (on the CPU under a ``meta``
default device, see tests/test_device.py), with the predictors of the default (CPU) run."""

import numpy as np
import pytest

from rnnbook.infinite_width import multilayer
from tests.test_device import DEVICES, strict


@pytest.mark.parametrize("dev", DEVICES)
def test_multilayer_training_on_the_device(dev, data):
    with strict(dev):
        net = multilayer.init_multilayer(8, data.d, 2, 3, 5, device=dev)
        lam = multilayer.train(net, data, 0.2, 4)
    assert net.U.device.type == dev and isinstance(lam, np.ndarray)
    ref = multilayer.train(multilayer.init_multilayer(8, data.d, 2, 3, 5), data, 0.2, 4)
    if dev == "cpu":
        np.testing.assert_array_equal(lam, ref)
    else:
        np.testing.assert_allclose(lam, ref, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("dev", DEVICES)
def test_width_study_on_the_device(dev, data):
    kw = dict(L=2, tau=0.2, steps=3, widths=[4, 8], reps=2, seed=0, max_len=4)
    with strict(dev):
        s = multilayer.width_study(data, device=dev, **kw)
    ref = multilayer.width_study(data, **kw)
    np.testing.assert_allclose(s.errors, ref.errors, rtol=1e-9, atol=1e-12)
