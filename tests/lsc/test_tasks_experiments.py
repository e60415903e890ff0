"""The LSC tasks and the experiment runner: the spike-latency code against its formula, the ear model on pure
tones, mode accuracy by hand, the run cache (reuse and invalidation), and the optimizer wrapper."""

import json
import math

import numpy as np
import pytest
import torch

from rnnbook.lsc import tasks as ld
from rnnbook.lsc import experiments as E
from rnnbook.lsc import models as lm


def test_latency_formula():
    x = np.array([0.0, 0.2, 0.25, 0.5, 1.0])
    t = ld.latency_ms(x)
    assert np.isinf(t[0]) and np.isinf(t[1])
    assert math.isclose(t[2], 50 * math.log(0.25 / 0.05))
    assert math.isclose(t[4], 50 * math.log(1 / 0.8))
    assert np.all(np.diff(t[2:]) < 0)  # brighter pixels fire earlier


def test_sl_mnist_one_spike_per_bright_pixel():
    d = ld.sl_mnist("test", n=20, side=28, n_steps=50, repeat=2, seed=1)
    x = d.dense(np.arange(20))
    assert x.shape == (20, 100, 784) and set(np.unique(x.numpy())) <= {0.0, 1.0}
    from rnnbook import datasets

    imgs, labels = datasets.mnist("test")
    idx = np.sort(np.random.default_rng(1).choice(len(labels), 20, replace=False))
    px = imgs[idx].reshape(20, -1) / 255.0
    t = ld.latency_ms(px)
    expected = (np.isfinite(t) & (t < 50)).sum(1)
    assert np.array_equal(
        x.sum(1).numpy().sum(1) / 2, expected
    )  # one spike per pixel (repeated twice)
    b, c = d.times[0], d.chans[0]
    assert np.array_equal(b, np.floor(t[0, c]).astype(int))  # 1 ms bins
    assert np.array_equal(d.labels, labels[idx])


def test_cochlea_maps_a_tone_to_its_place():
    sr = 22050
    t = np.arange(int(0.3 * sr)) / sr
    cf = ld.erb_space(100, 8000, 34)[1:-1]
    peaks = []
    for f in (300.0, 1000.0, 4000.0):
        drive = ld.cochlea_drive(np.sin(2 * np.pi * f * t), sr, 32)
        peaks.append(int(np.argmax(drive.mean(0))))
    assert peaks[0] < peaks[1] < peaks[2]
    for p, f in zip(peaks, (300.0, 1000.0, 4000.0)):
        assert abs(np.log(cf[p] / f)) < 0.25
    spikes = ld.lif_spikes(
        [ld.cochlea_drive(np.sin(2 * np.pi * 1000 * t), sr, 32)], bin_ms=10, n_steps=30
    )
    tt, ch = spikes[0]
    assert len(tt) > 0 and abs(np.median(ch) - peaks[1]) <= 2 and tt.max() < 30


def test_lif_rate_increases_with_drive():
    drives = [np.full((200, 1), v) for v in (0.5, 1.5, 3.0)]
    counts = [len(t) for t, _ in ld.lif_spikes(drives, bin_ms=1, n_steps=200)]
    assert counts[0] == 0 and 0 < counts[1] < counts[2]
    # closed form: from reset, v(n) = d (1 - a^n) crosses 1 at n* = ceil(log(1 - 1/d) / log a) steps
    a = math.exp(-1 / 5)
    n_star = math.ceil(math.log(1 - 1 / 3.0) / math.log(a))
    assert abs(counts[2] - 200 // n_star) <= 1


def test_mode_accuracy_by_hand():
    logits = torch.zeros(2, 5, 3)
    logits[0, :3, 1] = 1  # sample 0: predicts 1 three times, 0 twice
    logits[1, :, 2] = 1  # sample 1: predicts 2 always
    assert E.mode_accuracy(logits, torch.tensor([1, 0])) == 0.5
    assert E.mode_accuracy(logits, torch.tensor([1, 2])) == 1.0


def test_cache_reuses_and_invalidates(tmp_path):
    calls = []

    def f():
        calls.append(1)
        return {"x": 1.5}

    assert E.cached("t", {"a": 1}, f, folder=tmp_path) == {"x": 1.5}
    assert E.cached("t", {"a": 1}, f, folder=tmp_path) == {"x": 1.5} and len(calls) == 1
    assert E.is_cached("t", {"a": 1}, code=f, folder=tmp_path)
    E.cached("t", {"a": 2}, f, folder=tmp_path)
    assert len(calls) == 2  # other parameters: recomputed

    def g():  # other code, same parameters: recomputed
        calls.append(2)
        return {"x": 0.0}

    assert E.cached("t", {"a": 1}, g, folder=tmp_path) == {"x": 0.0} and calls[-1] == 2
    stored = [json.loads(p.read_text()) for p in tmp_path.glob("t-*.json")]
    assert len(stored) == 3 and all("params" in s and "result" in s for s in stored)


def test_lookahead_adabelief_syncs_every_six_steps():
    """Lookahead(k=6, alpha=0.5): after 6 fast steps the weights are slow + 0.5 (fast - slow)."""
    w = torch.nn.Parameter(torch.tensor([1.0]))
    opt = E.lsc.make_optimizer([w], lr=0.1)
    w_ref = torch.nn.Parameter(torch.tensor([1.0]))
    ref = E.lsc.make_optimizer([w_ref], lr=0.1, lookahead=False)
    for _ in range(6):
        for p, o in ((w, opt), (w_ref, ref)):
            o.zero_grad()
            (p**2).sum().backward()
            o.step()
    assert torch.allclose(w.detach(), 1.0 + 0.5 * (w_ref.detach() - 1.0), atol=1e-6)


def test_train_seq_on_a_tiny_task_learns():
    g = np.random.default_rng(0)
    n, T, C = 64, 6, 4
    labels = g.integers(0, 2, n)
    times = [np.arange(T) for _ in range(n)]
    chans = [
        np.full(T, 2 * y) for y in labels
    ]  # class 0 fires channel 0, class 1 channel 2
    data = ld.SpikeDataset(times, chans, labels, T, C, 2)
    task = E.SeqTask("toy", "classify", C, 2, data, data, data, T)
    model = lm.make_rnn("gru", 1, C, 8, 2, seed=0)
    res = E.train_seq(
        model,
        task,
        E.TrainConfig(lr=1e-2, batch=16, max_steps=60, eval_every=20, patience=3),
    )
    assert res["test"]["acc"] == 1.0


def test_build_task_errors():
    with pytest.raises(ValueError, match="task"):
        E.build_task("cifar", 10, 10, 10, T=5)
    with pytest.raises(ValueError, match="split"):
        ld.sl_mnist("dev")
