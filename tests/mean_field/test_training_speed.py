"""The critical-initialization speed test of Fig. 3 (rnnbook.mean_field.training_speed)."""

import numpy as np
import pytest
import torch

from rnnbook.mean_field import theory, training_speed as ts
from rnnbook.mean_field.trainability import TrainResult, best_seed_mean


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
    curves = ts.run(setups, (X, Y), _data(20, 2), 8, 3, 1e-3, 4, 1.0, n_evals=2)
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
    assert v["d_crit_iv"]["vanilla"]["mean"] == pytest.approx(crit.mean(), abs=1e-4)
    half = 12.706204736 * crit.std(ddof=1) / np.sqrt(2)
    assert v["d_crit_iv"]["vanilla"]["hi"] == pytest.approx(
        crit.mean() + half, abs=1e-4
    )
    assert v["d_crit"]["vanilla"] == {"seeds": pytest.approx(crit.tolist())}
    orth0 = a[0, :, 0] - a[0, :, 1]  # after the first evaluation only
    assert v["trend_orth"]["minimal"][0]["mean"] == pytest.approx(orth0.mean())
    # the gate's values: each initialization's final accuracy per seed
    assert v["best_acc"]["vanilla"][ts.LABELS[0]] == [0.9, 0.8] and v["n_seeds"] == 2
    assert best_seed_mean(v["best_acc"]["vanilla"]) == pytest.approx(0.85)
    lv = ts.ledger_values(v, "orthogonal")
    assert lv["d"] is v["d_orth"] and lv["d_iv"] is v["d_orth_iv"]
    assert lv["trend"]["vanilla"][0].startswith("5: ")
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


def test_an_untrained_arm_counts_against_itself_and_the_gate_reads_the_set_up():
    """An initialization that stays at chance is a loss for that arm inside the difference
    (the critical Gaussian arm at chance gives a negative critical-minus-off-critical effect),
    while the gate and the setting rule read the best of a model's four arms, which does not
    move when the decided difference does."""
    a = np.full((2, 2, 4), 0.1)  # 2 evaluations x 2 seeds x 4 initializations
    a[..., 2] = a[..., 3] = 0.4  # the off-critical arms train
    a[..., 0] = (
        0.6  # the critical orthogonal arm trains; the critical Gaussian does not
    )
    r = TrainResult([5, 10], a.reshape(2, 8), a.reshape(2, 8))
    v = ts.seed_values({"vanilla": r, "minimal": r})
    assert v["d_pair"]["vanilla"]["gaussian"]["seeds"] == pytest.approx([-0.3] * 2)
    assert v["d_pair"]["vanilla"]["orthogonal"]["seeds"] == pytest.approx([0.2] * 2)
    assert v["d_orth_iv"]["vanilla"]["mean"] == pytest.approx(0.5)
    b = a.copy()
    b[..., 1] = 0.05  # the decided statistic moves; the set-up gate does not
    w = ts.seed_values(
        {"vanilla": TrainResult([5, 10], b.reshape(2, 8), b.reshape(2, 8))}
    )
    assert max(w["d_pair"]["vanilla"]["gaussian"]["seeds"]) < -0.3
    best = [best_seed_mean(x["best_acc"]["vanilla"]) for x in (v, w)]
    assert best == pytest.approx([0.6, 0.6])


def test_vanilla_jacobian_check_measures_the_drawn_critical_point():
    X, _ = _data(16, 3)
    setup = ts.initializations(X, T=49, width=16, input_scale2=1.0, seed=0)
    c = ts.vanilla_jacobian_check(setup, X, 16, n=8)
    assert set(c) == {"orthogonal", "Gaussian"}
    # the orthogonal critical network keeps q^t near q* = 0.5 (random pixels: R = 1)
    assert c["orthogonal"]["q"] == pytest.approx(0.5, abs=0.15)
    assert c["orthogonal"]["top"] >= c["orthogonal"]["median"]
