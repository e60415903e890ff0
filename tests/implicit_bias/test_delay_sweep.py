"""Fig. 3: the delay sweep and its summary."""

import numpy as np
import pytest

from rnnbook.implicit_bias import delay_sweep


def test_delay_sweep_shapes_and_relative_error():
    r = delay_sweep.run_delay_sweep(
        delays=[0, 3],
        seeds=2,
        n=6,
        n_teacher=3,
        n_x=2,
        T=6,
        n_train=4,
        n_test=4,
        nu_W=0.3,
        nu_F=1.0,
        nu_C=1.0,
        snr_db=20.0,
        lr=0.05,
        steps=3,
        seed=0,
    )
    assert r.test_mse.shape == (4, 2, 2) and np.all(r.test_power > 0)
    np.testing.assert_allclose(r.relative_test_error, r.test_mse / r.test_power[None])


def test_delay_sweep_summary_from_known_errors():
    test_mse = np.ones((4, 2, 3))
    test_mse[0] = test_mse[1] = [
        [0.1, 0.5, 0.9],
        [0.2, 0.4, 1.2],
    ]  # RNN, scaled: rising
    test_mse[2] = [
        [0.5, 0.55, 0.6],
        [0.5, 0.6, 0.7],
    ]  # unscaled: almost flat, wins at the end
    test_mse[3] = [[0.1, 0.2, 0.3], [0.1, 0.2, 0.3]]
    power = np.ones((2, 3))
    s = delay_sweep.DelaySweep([0, 2, 4], 2, test_mse, test_mse, power, None).summary()
    assert s["spearman_scaled"] == s["spearman_rnn"] == 1.0 and s["rises_all_seeds"]
    assert (
        s["unscaled_wins"]
        and s["growth_unscaled"] == pytest.approx(1.3)
        and s["delay_max"] == 4
    )
    assert (
        s["growth_scaled"] == pytest.approx(1.05 / 0.15) and s["rnn_vs_scaled"] == 0.0
    )
