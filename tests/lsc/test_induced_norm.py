"""Pre-training with the induced 2-norm and Fig. S3 (induced_norm)."""

import math

import numpy as np
import pytest
import torch

from rnnbook.lsc import decaying_covariance as dc
from rnnbook.lsc import induced_norm as inn
from rnnbook.lsc.models import make_rnn
from rnnbook.lsc.pretrain import LSCConfig, lsc_pretrain_
from tests.test_device import DEVICES, strict


def test_norm_transition_reports_the_largest_singular_value():
    g = torch.Generator().manual_seed(0)
    M = torch.randn(5, 4, 6, generator=g)
    t = inn.NormTransition(1, "time", M)
    torch.testing.assert_close(t.radii(), torch.linalg.svdvals(M)[:, 0])


def test_time_transition_norms_match_the_networks_own_jacobians():
    """The closed-form norms against the spectral norms of the autograd Jacobians of the
    network itself (its state is [c, h], a permutation that leaves ||.||_2 unchanged)."""
    x = torch.tensor(dc.load_sl_digits(6, 0, steps=20))
    net = make_rnn("lstm", 2, x.shape[-1], 5, 10, seed=1)
    ours = inn.time_transition_norms(net, x, chunk=4)
    trs = net.lsc_jacobians(x, n_times=None, include_input=False)
    ref = [
        torch.linalg.matrix_norm(t.M, ord=2).reshape(6, 20)
        for t in trs
        if t.kind == "time"
    ]
    assert [a.shape for a in ours] == [(6, 20), (6, 20)] and len(ref) == 2
    for a, r in zip(ours, ref):
        torch.testing.assert_close(
            torch.tensor(a), r.detach().double(), rtol=1e-4, atol=1e-5
        )


def test_pretraining_through_the_wrapper_reaches_unit_norms():
    batches = inn.digit_batches(16, 0, 1)
    x = next(batches)
    net = make_rnn("lstm", 2, x.shape[-1], 6, 10, seed=2)
    wrapped = inn.InducedNormLSC(net)
    assert wrapped.depth == 2 and wrapped(x).shape == (16, 50, 10)
    cfg = LSCConfig(target=1.0, max_steps=40, shuffle="all")
    rep = lsc_pretrain_(wrapped, batches, config=cfg, seed=0)
    assert rep.converged
    trs = wrapped.lsc_jacobians(x, n_times=5)
    assert all(isinstance(t, inn.NormTransition) for t in trs)
    norms = torch.cat([t.radii() for t in trs])
    assert abs(float(norms.detach().mean()) - 1.0) < 0.1


def test_fig_s3_study_small():
    s = inn.fig_s3_study(24, 0, 4, 1, 5, 3, 16)
    v = s.check()
    assert len(s.before.norms) == len(s.after.norms) == 2
    assert s.after.norms[0].shape == (24, 50)
    assert v["pretrain_steps"] <= 3 and len(v["mean_norm"]) == 2
    assert {"frac_sig", "pair_frac", "decays", "converged", "init_mean_norm"} <= set(v)
    assert 0 < v["spikes"] < 64


def test_fig_s3_summary_over_networks():
    studies = inn.fig_s3_networks(
        2, 0, samples=24, width=4, time_repeat=1, lag0=5, steps=3, batch=16
    )
    s = inn.fig_s3_summary(studies)
    checks = [st.check() for st in studies]
    worst = [max(c["frac_sig"] + c["pair_frac"]) for c in checks]
    lag1 = [x for c in checks for x in c["lag1"]]
    assert s["lag1_mean"] == pytest.approx(sum(lag1) / 4)
    assert s["steps"] == 50 - studies[0].after.stats[0].t0
    assert s["networks"] == 2 and s["worst_each"] == [round(w, 3) for w in worst]
    assert abs(s["worst"]["mean"] - sum(worst) / 2) < 1e-12
    assert s["worst"]["lo"] <= s["worst"]["mean"] <= s["worst"]["hi"]
    # independent networks: different weights, batches and evaluation images
    assert not torch.equal(studies[0].after.X, studies[1].after.X)
    assert len(s["converged_each"]) == len(s["decays_each"]) == 2


def test_fig_s3_networks_rejects_zero():
    with pytest.raises(ValueError, match="networks"):
        inn.fig_s3_networks(
            0, 0, samples=24, width=4, time_repeat=1, lag0=5, steps=3, batch=16
        )


def test_calibration_surrogates_follow_the_measured_norms():
    summary = {"lag1_mean": 0.9, "far_mean": 0.12, "lag0": 20}
    sur = inn.calibration_surrogates(summary)
    assert sur["decaying"] == (0.9, 0.0) and sur["non-decaying"] == (0.9, 0.12)
    assert sur["white noise"] == (0.0, 0.0)
    phi = sur["slow"][0]
    assert phi**20 == pytest.approx(math.exp(-1.0))
    cal = dc.calibrate(sur, 60, 30, 5, 4, seed=0, networks=2)
    v = inn.calibration_values(cal)
    assert v["phi_data"] == 0.9 and v["floor_data"] == 0.12 and v["cal_draws"] == 4
    assert set(v) >= {"rate_white", "rate_decaying", "rate_slow", "rate_nondecaying"}


@pytest.mark.parametrize("dev", DEVICES)
def test_fig_s3_study_on_the_device(dev):
    """Fig. S3 on a device: the same network, pre-training and norms as the CPU run (under a
    meta default device on the CPU). On CUDA the norms before pre-training are the CPU's up to
    float rounding; after it, up to AdaBelief's amplification of rounding: it moves an entry by
    about lr whatever its gradient's size, so an entry whose tiny gradient rounds to another
    sign lands up to 2 lr away each step (rnnbook.lsc.pretrain_ensemble). The tolerance,
    steps x lr, is still 10 times smaller than what the 3 steps of pre-training change."""
    steps, lr = 3, LSCConfig().lr
    with strict(dev):
        s = inn.fig_s3_study(24, 0, 4, 1, 5, steps, 16, device=dev)
    ref = inn.fig_s3_study(24, 0, 4, 1, 5, steps, 16)
    assert s.report.steps == ref.report.steps
    for a, b, b0 in zip(s.after.norms, ref.after.norms, ref.before.norms):
        # pre-training moved them 10 times further than the tolerance below
        assert np.median(np.abs(b / b0 - 1)) > 10 * steps * lr
        if dev == "cpu":  # the same operations on the same draws
            np.testing.assert_array_equal(a, b)
        else:
            np.testing.assert_allclose(a, b, rtol=steps * lr)
    for a, b in zip(s.before.norms, ref.before.norms):
        if dev == "cpu":
            np.testing.assert_array_equal(a, b)
        else:
            np.testing.assert_allclose(a, b, rtol=1e-4)
