"""The critical-initialization speed test of Fig. 3 (rnnbook.mean_field.training_speed)."""

import numpy as np
import pytest
import torch

from rnnbook.mean_field import theory, training_speed as ts
from rnnbook.mean_field.trainability import TrainResult


def _data(n, seed):
    gen = torch.Generator().manual_seed(seed)
    return torch.randn(n, 784, generator=gen), torch.randint(0, 10, (n,), generator=gen)


def test_initializations_are_critical_and_off_critical():
    X, _ = _data(40, 0)
    setup = ts.initializations(X, T=49, width=8, input_scale2=1.0, seed=0)
    assert setup.M == 16 and 0 < setup.R < 1
    assert [len(s) for s in setup.specs.values()] == [4, 4]
    crit = setup.specs["minimal"][0]
    hp = theory.HP(crit.sigma_w, crit.sigma_v, crit.mu_b, setup.R)
    assert float(theory.minimal_chi1(hp)) == pytest.approx(1.0, abs=1e-9)
    assert [s.orthogonal for s in setup.specs["vanilla"]] == [True, False, True, False]
    assert setup.chi1_off["vanilla"] < 1 and "Algorithm 1" in setup.describe()


def test_run_trains_both_models():
    X, Y = _data(40, 1)
    setup = ts.initializations(X, T=8, width=8, input_scale2=1.0, seed=0)
    curves = ts.run(setup, (X, Y), _data(20, 2), 8, 2, 1e-3, 4, 0, 1.0)
    assert set(curves) == {"vanilla", "minimal"}
    assert curves["minimal"].accuracy.shape == (2, 4)


def test_speed_and_orthogonal_effect():
    acc = np.array([[0.5, 0.4, 0.1, 0.2], [0.9, 0.6, 0.2, 0.1]], dtype=np.float32)
    curves = {
        "vanilla": TrainResult([1, 2], acc, acc),
        "minimal": TrainResult([1, 2], acc, acc),
    }
    s = ts.speed(curves, 0.55)
    assert s["auc"]["vanilla"] == pytest.approx([0.7, 0.5, 0.15, 0.15], abs=1e-6)
    assert s["reach"]["minimal"] == [2, 2, None, None]
    assert s["threshold"] == 0.55 and "not reached" in ts.speed_table(s)
    e = ts.orthogonal_effect(s["auc"], n_test=300)
    se2 = 2 * np.sqrt((0.7 * 0.3 + 0.5 * 0.5) / 300)
    assert e["d"]["vanilla"] == pytest.approx(0.2) and e["se2"][
        "vanilla"
    ] == pytest.approx(se2)
    assert not e[
        "consistent"
    ]  # the minimalRNN difference is as large as the vanilla one
