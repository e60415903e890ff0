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
