"""Fig. S2 (decaying_covariance): the sl encoding by hand, the LSTM against torch.nn.LSTMCell, closed-form
Jacobians against torch.func.jacrev, statistics against scipy."""

import math

import numpy as np
import pytest
import torch
from scipy import stats

from rnnbook.lsc import decaying_covariance as dc


def test_spike_latency_by_hand():
    x = np.array([[1.0, 0.5, 0.2, 0.0, 0.3]])
    s = dc.spike_latency(x)
    assert (
        s.shape == (1, 50, 5) and s.sum() == 2
    )  # x = 0.3 spikes at 55 ms > 50 ms: none
    assert s[0, math.floor(50 * math.log(1.25)), 0] == 1  # 11 ms
    assert s[0, math.floor(50 * math.log(0.5 / 0.3)), 1] == 1  # 25 ms
    X1, X2 = (
        dc.load_sl_digits(20, 3, time_repeat=2),
        dc.load_sl_digits(20, 3, time_repeat=2),
    )
    assert X1.shape == (20, 100, 64) and np.array_equal(X1, X2)


def test_lstm_step_matches_torch_lstmcell():
    g = torch.Generator().manual_seed(0)
    layer = dc.init_lstm(3, [4], g)[0]
    cell = torch.nn.LSTMCell(3, 4)
    n = 4
    perm = torch.cat(
        [torch.arange(0, 2 * n), torch.arange(3 * n, 4 * n), torch.arange(2 * n, 3 * n)]
    )  # i f g o
    with torch.no_grad():
        cell.weight_ih.copy_(layer.W[perm])
        cell.weight_hh.copy_(layer.U[perm])
        cell.bias_ih.copy_(torch.randn(4 * n, generator=g))
        cell.bias_hh.zero_()
    layer.b = cell.bias_ih.detach()[torch.argsort(perm)].clone()
    x = torch.randn(3, generator=g)
    h, c = torch.randn(n, generator=g), torch.randn(n, generator=g)
    h2, c2 = cell(x[None], (h[None], c[None]))
    torch.testing.assert_close(
        dc.lstm_step(layer, x, torch.cat([h, c])), torch.cat([h2[0], c2[0]])
    )


def test_closed_form_jacobians_equal_jacrev():
    g = torch.Generator().manual_seed(1)
    layers = dc.init_lstm(5, [6, 6], g)
    for layer in layers:
        layer.b = torch.randn(4 * 6, generator=g)
    x = torch.randn(7, 5, generator=g)
    s = torch.randn(7, 12, generator=g)
    torch.testing.assert_close(
        dc.transition_jacobians(layers[0], x, s),
        dc.transition_jacobians_autograd(layers[0], x, s),
        atol=1e-6,
        rtol=1e-5,
    )


def test_transition_norms_shapes_and_values():
    g = torch.Generator().manual_seed(2)
    X = torch.tensor(dc.load_sl_digits(6, 0))
    layers = dc.init_lstm(64, [5, 5], g)
    a = dc.transition_norms(layers, X)
    states = dc.run_lstm(layers, X)
    J = dc.transition_jacobians_autograd(
        layers[1],
        states[0][:, 1:, :5].reshape(-1, 5),
        states[1][:, :-1].reshape(-1, 10),
    )
    assert a[1].shape == (6, 50)
    torch.testing.assert_close(
        a[1].reshape(-1), torch.linalg.matrix_norm(J, ord=2), atol=1e-5, rtol=1e-5
    )
    # chunking over samples (memory) gives the same norms
    for x, y in zip(dc.transition_norms(layers, X, chunk=4), a):
        torch.testing.assert_close(x, y, atol=0, rtol=0)


def test_lag_statistics_against_scipy():
    rng = np.random.default_rng(0)
    a = rng.normal(size=(300, 12)).cumsum(1)
    st = dc.lag_statistics(a, t0=2)
    for lag in (0, 3, 9):
        r, p = stats.pearsonr(a[:, 2], a[:, 2 + lag])
        assert st.corr[lag] == pytest.approx(r, abs=1e-10)
        assert st.p[lag] == pytest.approx(p, rel=1e-6, abs=1e-12)
        assert st.cov[lag] == pytest.approx(np.cov(a[:, 2], a[:, 2 + lag])[0, 1])
    C, frac, mx = dc.pairwise_significance(a, 0, 5)
    assert (
        C.shape == (12, 12)
        and 0 <= frac <= 1
        and mx == pytest.approx(np.max(np.abs(np.triu(np.corrcoef(a.T), 5))))
    )
    const = np.ones((10, 8))
    const[:, 3:] += rng.normal(size=(10, 5))
    assert dc.first_varying_step(const) == 3


def test_fig_s2_study_summary_and_check():
    g = torch.Generator().manual_seed(0)
    s = dc.fig_s2_study(40, 0, 4, 1, 10, g)
    assert s.X.shape == (40, 50, 64) and len(s.norms) == len(s.stats) == 2
    assert s.lag0 == 10 and s.spikes == pytest.approx(float(s.X.sum()) / 40)
    v = s.check()
    for key in ("frac_sig", "mean_abs", "lag1", "cov_rel", "pair_frac", "pair_max"):
        assert len(v[key]) == 2
    assert all(0 <= f <= 1 for f in v["frac_sig"] + v["pair_frac"])
    st = s.stats[0]
    far = st.lags >= 10
    assert v["mean_abs"][0] == pytest.approx(np.mean(np.abs(st.corr[far])))
    assert v["decays"] == all(m < 0.5 * l for m, l in zip(v["mean_abs"], v["lag1"]))
    assert s.table().count("\n") == 1 + 2
    # a well-formed Markdown table: every row has as many cells as the header (a '|' inside
    # the math, as in $|r|$, would split a cell and the page would show the raw text)
    rows = s.table().splitlines()
    assert len({row.count("|") for row in rows}) == 1
    # the lag is counted in steps of the repeated sequence
    assert dc.fig_s2_study(8, 0, 2, 2, 10, torch.Generator()).lag0 == 20


@pytest.mark.parametrize("phi, floor", [(0.0, 0.0), (0.8, 0.0), (0.6, 0.3)])
def test_surrogates_have_their_known_correlation(phi, floor):
    a = dc.surrogate_norms(40000, 12, phi, floor, np.random.default_rng(1))
    C = np.corrcoef(a.T)
    for lag in (1, 4, 10):
        exact = floor + (1 - floor) * phi**lag
        assert np.mean(np.diagonal(C, lag)) == pytest.approx(exact, abs=0.01)
    with pytest.raises(ValueError, match="phi"):
        dc.surrogate_norms(10, 5, 1.0, 0.0, np.random.default_rng(0))


def test_largest_fraction_is_the_largest_of_the_four():
    check = {"frac_sig": [0.1, 0.3], "pair_frac": [0.2, 0.05], "decays": True}
    assert dc.largest_fraction(check) == 0.3


def test_surrogate_statistic_runs_the_studys_code():
    """The statistic of a surrogate equals the one computed by hand from the same draws."""
    draw = dc.surrogate_statistic(200, 40, 8, 0.7, 0.0, np.random.default_rng(3))
    rng = np.random.default_rng(3)
    fr = []
    for a in [dc.surrogate_norms(200, 40, 0.7, 0.0, rng) for _ in range(2)]:
        st = dc.lag_statistics(a, 0)
        fr.append(float(np.mean(st.p[st.lags >= 8] < 0.05)))
        fr.append(dc.pairwise_significance(a, 0, 8)[1])
    assert draw == max(fr)


def test_calibration_separates_white_noise_from_non_decaying_covariance():
    sur = {
        "white noise": (0.0, 0.0),
        "slow": (0.98, 0.0),
        "non-decaying": (0.5, 0.4),
    }
    cal = dc.calibrate(sur, 300, 50, 10, 20, seed=0, networks=4)
    # under the null each correlation is significant with probability 5%
    assert cal.mean["white noise"] == pytest.approx(0.05, abs=0.03)
    assert cal.rate["white noise"] <= 0.3
    # correlation 0.98^10 = 0.82 at lag0 and 0.4 forever: both always cross the 10% line
    assert cal.rate["slow"] == cal.rate["non-decaying"] == 1.0
    assert cal.above["slow"] == cal.above["non-decaying"] == 1.0
    assert cal.above["white noise"] == 0.0  # intervals of 4 draws around 0.05
    assert cal.correlation_at("non-decaying", 10) == pytest.approx(0.4 + 0.6 * 0.5**10)
    rows = cal.table().splitlines()
    assert len(rows) == 2 + 3 and len({r.count("|") for r in rows}) == 1
    again = dc.calibrate(sur, 300, 50, 10, 20, seed=0, networks=4)
    assert again.mean == cal.mean
    with pytest.raises(ValueError, match="draws"):
        dc.calibrate(sur, 300, 10, 10, 5, seed=0)
    with pytest.raises(ValueError, match="networks"):
        dc.calibrate(sur, 300, 50, 10, 3, seed=0, networks=4)


def test_spike_times_of_the_stand_in_and_of_mnist():
    # T(x) = 50 log(x / (x - 0.2)) ms, floored: x = 1 and 15/16 both spike at 11 ms, x = 6/16 at
    # 38 ms, x = 5/16 only at 61 ms (after the 50 ms window)
    digits = dc.spike_times(17)
    assert digits.tolist() == [11, 12, 14, 15, 17, 19, 21, 25, 30, 38]
    mnist = dc.spike_times(256)
    assert mnist.tolist() == list(range(11, 50))
    X = dc.load_sl_digits(300, 0)
    assert set(np.nonzero(X.sum((0, 2)))[0]) <= set(digits.tolist())


def test_fig_s2_is_calibrated_as_fig_s3_on_its_own_shape():
    """Fig. S2's line is calibrated on surrogates of the study's own lag-1 |r|, long-lag |r|,
    samples and steps: the same draws as :func:`calibrate` with those two surrogates."""
    g = torch.Generator().manual_seed(0)
    s = dc.fig_s2_study(40, 0, 4, 1, 10, g)
    got = dc.single_network_calibration(s, draws=6, seed=2)
    v = s.check()
    phi = float(np.mean(v["lag1"]))
    floor = float(np.mean(v["mean_abs"]))
    assert got["phi_data"] == pytest.approx(phi)
    assert got["floor_data"] == pytest.approx(floor)
    steps = s.norms[0].shape[1] - s.stats[0].t0
    assert got["cal_steps"] == steps and got["cal_draws"] == 6
    sur = {"decaying": (phi, 0.0), "non-decaying": (phi, floor)}
    cal = dc.calibrate(sur, 40, steps, 10, 6, seed=2, networks=2)
    assert got["rate_decaying"] == cal.rate["decaying"]
    assert got["rate_nondecaying"] == cal.rate["non-decaying"]
    assert 0 <= got["rate_decaying"] <= 1 and 0 <= got["rate_nondecaying"] <= 1
