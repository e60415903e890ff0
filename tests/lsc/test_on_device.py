"""The LSC trainers on a device (rnnbook.device): the ensemble trainer, LSC pre-training and the
FFN ensemble run with every tensor on the device they are given (on the CPU under a ``meta``
default device, see tests/test_device.py), and give the same runs as on the CPU."""

import numpy as np
import pytest
import torch

from benchmarks.lsc_radius import compare_with_loop
from rnnbook.lsc import ensemble, experiments, ffn_mnist, models, tasks
from tests.lsc.test_ensemble import spike_task, word_task
from tests.test_device import DEVICES, strict

torch.set_num_threads(1)


def _runs(dev, kind, task):
    ms = [models.make_rnn(kind, 2, task.n_in, 5, task.n_out, s) for s in range(3)]
    cfg = ensemble.EnsembleConfig(
        lr=1e-2, max_steps=6, eval_every=3, clips=(None, 1.0, None), device=dev
    )
    with strict(dev):
        rep = experiments.pretrain_seq(ms[0], task, 1.0, False, 3, 4, 2, 0, dev)
        out = ensemble.train(ms, task, cfg)
    return rep, out


def _lru_runs(dev, task, dropout=0.1):
    ms = [models.make_lru(2, task.n_out, 8, seed=s, dropout=dropout) for s in range(2)]
    cfg = ensemble.EnsembleConfig(lr=1e-2, max_steps=4, eval_every=2, device=dev)
    with strict(dev):
        return None, ensemble.train(ms, task, cfg)


@pytest.mark.parametrize("dev", DEVICES)
@pytest.mark.parametrize("kind", ["gru", "lstm", "alif_plus", "lru"])
def test_ensemble_and_pretraining_on_the_device(dev, kind):
    """Every tensor on the device (``strict``); on a GPU, the runs are the CPU's up to
    float rounding (on the CPU the device path is the reference itself). The LRU's dropout
    masks come from the device's own generator (rnnbook.device), a stream CUDA does not share
    with the CPU: its runs are compared without dropout (on an H200, 2026-12-04, with dropout
    the best validation loss differed by 0.7%)."""
    task = word_task() if kind == "lru" else spike_task()

    def run(d, dropout=0.1):
        return _lru_runs(d, task, dropout) if kind == "lru" else _runs(d, kind, task)

    rep, out = run(dev)
    assert all(np.isfinite(r["best_val"]) for r in out)
    assert rep is None or rep.steps >= 1
    if dev != "cpu":  # the same runs as on the CPU, up to float rounding
        if kind == "lru":
            _, out = run(dev, dropout=0.0)
        _, ref = run("cpu", dropout=0.0)
        for a, b in zip(out, ref):
            assert a["best_val"] == pytest.approx(b["best_val"], rel=1e-3)


def _ffn_run(dev):
    g = torch.Generator().manual_seed(0)
    x = torch.rand(60, 784, generator=g)
    y = torch.randint(10, (60,), generator=g)
    data = tasks.MnistSplits(x, y, x[:20], y[:20], x[:30], y[:30])
    nets = [models.FFN(784, 8, 3, act="relu", seed=s) for s in range(2)]
    with strict(dev):
        ffn_mnist.pretrain_ffn(nets[0], data, 2, 4, 0, dev)
        ens = ffn_mnist.FFNEnsemble.stack(nets, dev)
        return ffn_mnist.train_ensemble(
            ens, [1e-3, 1e-2], [0, 1], data, 6, 3, 2, [3, 6]
        )


@pytest.mark.parametrize("dev", DEVICES)
def test_ffn_ensemble_on_the_device(dev):
    res = _ffn_run(dev)
    assert len(res["test_acc"]) == 2 and np.isfinite(res["best_val"]).all()
    if dev != "cpu":  # the same runs as on the CPU, up to float rounding
        ref = _ffn_run("cpu")
        np.testing.assert_allclose(res["best_val"], ref["best_val"], rtol=1e-3)


@pytest.mark.parametrize("dev", DEVICES)
def test_pretraining_sweeps_on_the_device(dev):
    from rnnbook.lsc import convergence

    data = spike_task().train
    x0 = data.dense(np.arange(3))
    with strict(dev):
        runs = convergence.pretrain_kinds_seeds(["gru"], data, 4, x0, 3, 2, 2, [0], dev)
        var = convergence.pretrain_variants_seeds(data, 4, 3, 2, 2, [0], dev)
    rep, before, after = runs[0][("gru", 0.5)]
    assert rep.steps >= 1 and all(np.isfinite(v).all() for v in after.values())
    assert set(var[0]) == set(convergence.VARIANTS)
    if dev != "cpu":  # the same radii as on the CPU, up to float rounding
        ref = convergence.pretrain_kinds_seeds(
            ["gru"], data, 4, x0, 3, 2, 2, [0], "cpu"
        )
        for k, v in after.items():
            np.testing.assert_allclose(v, ref[0][("gru", 0.5)][2][k], rtol=1e-3)


@pytest.mark.parametrize("dev", DEVICES)
def test_decaying_covariance_on_the_device(dev):
    """Fig. S2's LSTM norms on the device: the weights drawn on the CPU generator, the same
    norms as on the CPU (bit for bit there)."""
    from rnnbook.lsc import decaying_covariance as dc

    ref = dc.fig_s2_study(12, 0, 3, 1, 10, torch.Generator().manual_seed(0))
    with strict(dev):
        s = dc.fig_s2_study(12, 0, 3, 1, 10, torch.Generator().manual_seed(0), dev)
        layers = dc.init_lstm(64, [3], torch.Generator().manual_seed(1))
        layers = [dc.LSTMLayer(*(v.to(dev) for v in (a.W, a.U, a.b))) for a in layers]
        states = dc.run_lstm(layers, s.X.to(dev))
    assert states[0].device.type == dev and states[0].shape == (12, 51, 6)
    for a, b in zip(s.norms, ref.norms):
        if dev == "cpu":
            assert np.array_equal(a, b)
        else:
            np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-6)


@pytest.mark.parametrize("dev", DEVICES)
def test_compare_with_loop_on_the_device(dev):
    """The batched-vs-loop check of the transition derivatives with the model and batch on the
    device (its sampled points drawn on the CPU generator)."""
    net = models.make_rnn("gru", 2, 5, 4, 2, seed=0).to(dev)
    x = (torch.rand(3, 6, 5, generator=torch.Generator().manual_seed(0)) < 0.4).float()
    with strict(dev):
        b = compare_with_loop(net, x.to(dev), n_times=2, repeat=1)
    assert b["jac_err"] < 1e-5 and b["radius_err"] < 1e-5 and b["n"] == 2 * 2 * 3 * 2


def _toy_run(dev=None):
    task = spike_task()
    model = models.make_rnn("gru", 1, task.n_in, 6, task.n_out, seed=0)
    cfg = experiments.TrainConfig(lr=1e-2, batch=8, max_steps=6, eval_every=3, clip=1.0)
    if dev is None:  # the call as it was before it took a device
        return experiments.train_seq(model, task, cfg)
    with strict(dev):
        return experiments.train_seq(model, task, cfg, device=dev)


@pytest.mark.parametrize("dev", DEVICES)
def test_train_seq_on_the_device(dev):
    """``fit`` and ``train_seq`` train on the device they are given; on the CPU the run is the
    same, bit for bit, as the call without a device; on CUDA the same up to rounding."""
    out, ref = _toy_run(dev), _toy_run()
    assert out["steps"] == ref["steps"] == 6 and len(out["history"]) == 2
    if dev == "cpu":
        assert out == ref
    else:
        assert out["best_val"] == pytest.approx(ref["best_val"], rel=1e-3)
        assert out["test"]["loss"] == pytest.approx(ref["test"]["loss"], rel=1e-3)


@pytest.mark.parametrize("dev", DEVICES)
def test_default_lru_radius_on_the_device(dev):
    """The default LRU radius of the pre-training chapter runs where it is told, with the
    same radii as on the CPU (weights and windows drawn on the CPU)."""
    from rnnbook.lsc import lru_ptb

    args = ([1, 2], 8, 6, 3, 2, 0)
    with strict(dev):
        got = lru_ptb.default_radius(*args, device=dev).values()
    ref = lru_ptb.default_radius(*args).values()
    for k, v in ref.items():
        assert np.allclose(got[k], v, rtol=1e-4, equal_nan=True), k
