"""Fig. 1c (bottom): the measured gradient through time against the path count of Lemma 2 on
linear networks, where it is exact, and the fitted bounds and growth factors by hand."""

import math

import numpy as np
import pytest
import torch

from rnnbook.lsc import gru_gradient
from tests.test_device import DEVICES, strict

from .test_ensemble import spike_task
from .test_pretrain import scalar_net


def test_path_counts_are_binomial():
    assert gru_gradient.path_counts(4, 1).tolist() == [1, 1, 1, 1]
    assert gru_gradient.path_counts(4, 3).tolist() == [
        math.comb(t + 2, t) for t in range(4)
    ]


def test_gradient_of_a_linear_stack_counts_its_paths():
    """h_{t,l} = w h_{t-1,l} + v h_{t,l-1} (scalars): dh_{T,L}/dh_{T-Δt,1} = binom(Δt+L-1, Δt)
    v^(L-1) w^Δt, so with w = 1 the gradient reaching layer 1 is the number of paths times v^(L-1)."""
    x = torch.ones(2, 9, 1)
    for depth, v in ((2, 0.5), (3, 1.0)):
        G = gru_gradient.gradient_through_time(scalar_net(1.0, v, depth), x, n_probe=2)
        assert np.allclose(G, v ** (depth - 1) * gru_gradient.path_counts(9, depth))
    G = gru_gradient.gradient_through_time(scalar_net(0.5, 1.0, 1), x, n_probe=1)
    assert np.allclose(G, 0.5 ** np.arange(9))


def test_bounds_and_growth_by_hand():
    paths = gru_gradient.path_counts(8, 2)  # 1..8
    runs = {0.5: [2.0 ** -np.arange(8)] * 2, 1.0: [3 * paths, 12 * paths]}
    reports = {
        t: [
            type("R", (), {"converged": t == 0.5, "mean_dev": d})()
            for d in (0.01, -0.2)
        ]
        for t in runs
    }
    res = gru_gradient.GradientCurves(2, 4, 3, runs, reports, paths)
    assert np.allclose(res.curves[1.0], 6 * paths)  # geometric mean of 3 and 12
    assert res.c1 == pytest.approx(6.0) and res.c2 == pytest.approx(1.0)
    g = res.growth()  # quarters of 2 steps
    assert np.allclose(g[1.0], (7 + 8) / (1 + 2)) and np.allclose(g[0.5], 2.0**-6)
    v = res.values()
    assert v["T_grad"] == 8 and v["bin_ms"] == 125.0 and v["conv_half"] == 2
    assert v["growth_one"] == pytest.approx(5.0) and v["gru_width"] == 4
    assert v["growth_one_lo"] == pytest.approx(5.0)  # identical seeds: no spread
    assert v["max_dev"] == 0.2 and v["n_seeds"] == 2
    # per seed, whether each pre-training ended within tol (0.1) of its target
    assert v["reached_half"] == [1, 0] and v["reached_one"] == [1, 0]


@pytest.mark.parametrize("dev", DEVICES)
def test_gru_gradient_run_on_the_device(dev, monkeypatch):
    """Fig. 1c (bottom) end to end on a device, on a small spike task in place of the SHD
    stand-in: the same pre-training and curves as the CPU run (under a meta default device)."""
    data = spike_task(n=16, T=6, C=5).train
    monkeypatch.setattr(gru_gradient.tasks, "spoken_digits", lambda *a, **k: data)
    kw = dict(depth=2, width=4, n_channels=5, T=6, rates=[1], pitches=[1])
    kw |= dict(pre_steps=2, pre_batch=4, seeds=[0])
    with strict(dev):
        r = gru_gradient.run(device=dev, **kw)
    ref = gru_gradient.run(**kw)
    for t in (0.5, 1.0):
        if dev == "cpu":  # the same operations on the same draws
            np.testing.assert_array_equal(r.runs[t][0], ref.runs[t][0])
        else:
            np.testing.assert_allclose(r.runs[t][0], ref.runs[t][0], rtol=1e-4)
        assert r.reports[t][0].steps == ref.reports[t][0].steps
