"""The LSC trainers on a device (rnnbook.device): the ensemble trainer, LSC pre-training and the
FFN ensemble run with every tensor on the device they are given (on the CPU under a ``meta``
default device, see tests/test_device.py), and give the same runs as on the CPU."""

import numpy as np
import pytest
import torch

from rnnbook.lsc import ensemble, experiments, ffn_mnist, models, tasks
from tests.lsc.test_ensemble import spike_task, word_task
from tests.test_device import DEVICES, strict

torch.set_num_threads(1)


def _runs(dev, kind, task, lm=False):
    vocab = {"vocab": task.n_out} if lm else {}
    n_in = 8 if lm else task.n_in
    ms = [models.make_rnn(kind, 2, n_in, 5, task.n_out, s, **vocab) for s in range(3)]
    cfg = ensemble.EnsembleConfig(
        lr=1e-2, max_steps=6, eval_every=3, clips=(None, 1.0, None), device=dev
    )
    with strict(dev):
        rep = experiments.pretrain_seq(ms[0], task, 1.0, False, 3, 4, 2, 0, dev)
        out = ensemble.train(ms, task, cfg)
    return rep, out


@pytest.mark.parametrize("dev", DEVICES)
@pytest.mark.parametrize("kind", ["gru", "lstm", "alif_plus", "lru"])
def test_ensemble_and_pretraining_on_the_device(dev, kind):
    lm = kind == "lru"
    task = word_task() if lm else spike_task()
    if lm:
        ms = [models.make_lru(2, task.n_out, 8, seed=s) for s in range(2)]
        cfg = ensemble.EnsembleConfig(lr=1e-2, max_steps=4, eval_every=2, device=dev)
        with strict(dev):
            ensemble.train(ms, task, cfg)
        return
    rep, out = _runs(dev, kind, task)
    assert all(np.isfinite(r["best_val"]) for r in out)
    assert rep.steps >= 1
    if dev != "cpu":  # the same runs as on the CPU, up to float rounding
        _, ref = _runs("cpu", kind, task)
        for a, b in zip(out, ref):
            assert a["best_val"] == pytest.approx(b["best_val"], rel=1e-3)


@pytest.mark.parametrize("dev", DEVICES)
def test_ffn_ensemble_on_the_device(dev):
    g = torch.Generator().manual_seed(0)
    x = torch.rand(60, 784, generator=g)
    y = torch.randint(10, (60,), generator=g)
    data = tasks.MnistSplits(x, y, x[:20], y[:20], x[:30], y[:30])
    nets = [models.FFN(784, 8, 3, act="relu", seed=s) for s in range(2)]
    with strict(dev):
        ffn_mnist.pretrain_ffn(nets[0], data, 2, 4, 0, dev)
        ens = ffn_mnist.FFNEnsemble.stack(nets, dev)
        res = ffn_mnist.train_ensemble(ens, [1e-3, 1e-2], [0, 1], data, 6, 3, 2, [3, 6])
    assert len(res["test_acc"]) == 2 and np.isfinite(res["best_val"]).all()


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
