"""Fig. 3: the delay sweep and its summary."""

import numpy as np
import pytest
from scipy import stats

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
    final = np.ones((4, 3, 3))
    final[0] = final[1] = [
        [0.1, 0.5, 0.9],
        [0.2, 0.4, 1.2],
        [0.1, 0.3, 0.8],
    ]  # RNN, scaled: rising
    final[2] = [
        [0.5, 0.55, 0.6],
        [0.5, 0.6, 0.7],
        [0.4, 0.5, 0.5],
    ]  # unscaled: almost flat, wins at the end
    final[3] = [[0.1, 0.2, 0.3]] * 3
    curve = np.stack(
        [2 * np.ones_like(final), final]
    )  # (steps+1, models, seeds, delays)
    power = np.ones((3, 3))
    sw = delay_sweep.DelaySweep([0, 2, 4], 3, curve, curve, power, None, {"steps": 1})
    s = sw.summary()
    assert s["spearman_scaled"] == s["spearman_rnn"] == 1.0 and s["delay_max"] == 4
    # geometric means over seeds and the t interval of the logs, by hand
    g = np.log([0.9 / 0.1, 1.2 / 0.2, 0.8 / 0.1])
    half = stats.t.ppf(0.975, 2) * g.std(ddof=1) / np.sqrt(3)
    assert s["growth_scaled"] == pytest.approx(np.exp(g.mean()))
    assert s["growth_scaled_lo"] == pytest.approx(np.exp(g.mean() - half))
    assert s["growth_rnn_hi"] == pytest.approx(np.exp(g.mean() + half))
    u = np.log([0.6 / 0.9, 0.7 / 1.2, 0.5 / 0.8])
    assert s["unscaled_ratio"] == pytest.approx(np.exp(u.mean()))
    assert s["unscaled_ratio_hi"] < 1 and s["rnn_vs_scaled"] == 0.0
    assert s["growth_unscaled"] == pytest.approx(
        np.exp(np.log([1.2, 1.4, 1.25]).mean())
    )
    # the gate: worst final / initial training error at delay 0 (models 0-2)
    assert s["train_ratio_0"] == pytest.approx(0.5 / 2)
    # the gate: the median over seeds of the unscaled convolution's ratio at delay 0 only
    assert s["ref_train_ratio_0"] == pytest.approx(np.median([0.5, 0.5, 0.4]) / 2)
    # the trend: the same effects at every requested step, as factors
    tr = sw.trend([0, 1])
    assert tr["growth_scaled"][0][0] == pytest.approx(1.0)
    assert tr["growth_scaled"][0][1] == pytest.approx(s["growth_scaled"])
    assert tr["unscaled_ratio"][2][1] == pytest.approx(s["unscaled_ratio_hi"])


def test_delay_sweep_is_seeded_by_its_master_seed():
    kw = dict(n=6, n_teacher=3, n_x=2, T=6, n_train=4, n_test=4, nu_W=0.3, nu_F=1.0)
    kw |= dict(nu_C=1.0, snr_db=20.0, lr=0.05, steps=5)
    r = delay_sweep.run_delay_sweep(delays=[0, 2], seeds=2, seed=3, **kw)
    again = delay_sweep.run_delay_sweep(delays=[0, 2], seeds=2, seed=3, **kw)
    other = delay_sweep.run_delay_sweep(delays=[0, 2], seeds=2, seed=4, **kw)
    np.testing.assert_array_equal(r.test_curve, again.test_curve)
    assert not np.allclose(r.test_curve, other.test_curve)
    assert r.test_curve.shape == (6, 4, 2, 2)
    # the zero-init control starts from L = 0: its initial test MSE is the test power
    np.testing.assert_allclose(r.test_curve[0, 3], r.test_power)
