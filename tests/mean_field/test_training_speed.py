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


def test_run_trains_seeds_as_one_ensemble():
    X, Y = _data(40, 1)
    setups = ts.seed_setups(X, T=8, width=8, input_scale2=1.0, seed=0, n_seeds=3)
    assert len({round(s.R, 6) for s in setups}) == 3  # each seed its own input map
    curves = ts.run(setups, (X, Y), _data(20, 2), 8, 3, 1e-3, 4, 0, 1.0, n_evals=2)
    assert set(curves) == {"vanilla", "minimal"}
    assert curves["minimal"].accuracy.shape == (2, 12) and curves["minimal"].steps == [
        2,
        3,
    ]
    assert ts.by_seed(curves)["vanilla"].shape == (2, 3, 4)
    assert ts.mean_curves(curves)["vanilla"].accuracy.shape == (2, 4)


def test_seed_values_of_the_two_fig3_claims():
    # 2 evaluations x 2 seeds x 4 initializations
    a = np.array(
        [
            [[0.5, 0.4, 0.1, 0.2], [0.6, 0.4, 0.2, 0.1]],
            [[0.9, 0.6, 0.2, 0.1], [0.8, 0.7, 0.1, 0.2]],
        ]
    )
    r = TrainResult([5, 10], a.reshape(2, 8), a.reshape(2, 8))
    v = ts.seed_values({"vanilla": r, "minimal": r})
    auc = (a[0] + a[1]) / 2  # (seeds, 4): mean accuracy over the two evaluations
    crit = auc[:, :2].mean(1) - auc[:, 2:].mean(1)
    assert v["d_crit"]["vanilla"]["mean"] == pytest.approx(crit.mean(), abs=1e-4)
    half = 12.706204736 * crit.std(ddof=1) / np.sqrt(2)
    assert v["d_crit"]["vanilla"]["hi"] == pytest.approx(crit.mean() + half, abs=1e-4)
    orth0 = a[0, :, 0] - a[0, :, 1]  # after the first evaluation only
    assert v["trend_orth"]["minimal"][0]["mean"] == pytest.approx(orth0.mean())
    assert v["best_acc"]["vanilla"] == 0.85 and v["n_seeds"] == 2
    lv = ts.ledger_values(v, "orthogonal")
    assert lv["d"] is v["d_orth"] and lv["trend"]["vanilla"][0].startswith("5: ")
    assert len(ts.trend_panels(v)) == 2


def test_speed_table():
    acc = np.array([[0.5, 0.4, 0.1, 0.2], [0.9, 0.6, 0.2, 0.1]], dtype=np.float32)
    curves = {
        "vanilla": TrainResult([1, 2], acc, acc),
        "minimal": TrainResult([1, 2], acc, acc),
    }
    s = ts.speed(curves, 0.55)
    assert s["auc"]["vanilla"] == pytest.approx([0.7, 0.5, 0.15, 0.15], abs=1e-6)
    assert s["reach"]["minimal"] == [2, 2, None, None]
    assert s["threshold"] == 0.55 and "not reached" in ts.speed_table(s)
