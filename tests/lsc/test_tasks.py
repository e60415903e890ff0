"""The LSC tasks: the spike-latency code against its formula, the ear model on pure tones, the
random input batches of a pre-training, the MNIST splits and the sequence-task batches."""

import math

import numpy as np
import pytest
import torch

from rnnbook.lsc import tasks


def test_latency_formula():
    x = np.array([0.0, 0.2, 0.25, 0.5, 1.0])
    t = tasks.latency_ms(x)
    assert np.isinf(t[0]) and np.isinf(t[1])
    assert math.isclose(t[2], 50 * math.log(0.25 / 0.05))
    assert math.isclose(t[4], 50 * math.log(1 / 0.8))
    assert np.all(np.diff(t[2:]) < 0)  # brighter pixels fire earlier


def test_sl_mnist_one_spike_per_bright_pixel():
    d = tasks.sl_mnist("test", n=20, side=28, n_steps=50, repeat=2, seed=1)
    x = d.dense(np.arange(20))
    assert x.shape == (20, 100, 784) and set(np.unique(x.numpy())) <= {0.0, 1.0}
    from rnnbook import datasets

    imgs, labels = datasets.mnist("test")
    idx = np.sort(np.random.default_rng(1).choice(len(labels), 20, replace=False))
    px = imgs[idx].reshape(20, -1) / 255.0
    t = tasks.latency_ms(px)
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
    cf = tasks.erb_space(100, 8000, 34)[1:-1]
    peaks = []
    for f in (300.0, 1000.0, 4000.0):
        drive = tasks.cochlea_drive(np.sin(2 * np.pi * f * t), sr, 32)
        peaks.append(int(np.argmax(drive.mean(0))))
    assert peaks[0] < peaks[1] < peaks[2]
    for p, f in zip(peaks, (300.0, 1000.0, 4000.0)):
        assert abs(np.log(cf[p] / f)) < 0.25
    spikes = tasks.lif_spikes(
        [tasks.cochlea_drive(np.sin(2 * np.pi * 1000 * t), sr, 32)],
        bin_ms=10,
        n_steps=30,
    )
    tt, ch = spikes[0]
    assert len(tt) > 0 and abs(np.median(ch) - peaks[1]) <= 2 and tt.max() < 30


def test_lif_rate_increases_with_drive():
    drives = [np.full((200, 1), v) for v in (0.5, 1.5, 3.0)]
    counts = [len(t) for t, _ in tasks.lif_spikes(drives, bin_ms=1, n_steps=200)]
    assert counts[0] == 0 and 0 < counts[1] < counts[2]
    # closed form: from reset, v(n) = d (1 - a^n) crosses 1 at n* = ceil(log(1 - 1/d) / log a) steps
    a = math.exp(-1 / 5)
    n_star = math.ceil(math.log(1 - 1 / 3.0) / math.log(a))
    assert abs(counts[2] - 200 // n_star) <= 1


def test_build_task_errors():
    with pytest.raises(ValueError, match="task"):
        tasks.build_task("cifar", 10, 10, 10, T=5)
    with pytest.raises(ValueError, match="split"):
        tasks.sl_mnist("dev")


def toy_spikes(n=6, T=4, C=3):
    """Sample i fires channel i % C at every step; its label is i % 2."""
    times = [np.arange(T) for _ in range(n)]
    chans = [np.full(T, i % C) for i in range(n)]
    return tasks.SpikeDataset(times, chans, np.arange(n) % 2, T, C, 2)


def test_random_batches_are_seeded_and_shared():
    data = toy_spikes()
    a, b = tasks.random_batches(data, 4, seed=3), tasks.random_batches(data, 4, seed=3)
    first = [next(a) for _ in range(3)]
    assert all(torch.equal(x, next(b)) for x in first)
    assert first[0].shape == (4, 4, 3)
    # the samples are those of one generator, drawn lazily: same as torch.randint in a row
    gen = torch.Generator().manual_seed(3)
    idx = [torch.randint(6, (4,), generator=gen).numpy() for _ in range(3)]
    assert all(torch.equal(x, data.dense(i)) for x, i in zip(first, idx))


def test_seq_task_batches():
    data = toy_spikes()
    task = tasks.SeqTask("toy", "classify", 3, 2, data, data, data, 4)
    x, y = task.batch("train", [1, 2])
    assert x.shape == (2, 4, 3) and y.tolist() == [1, 0] and task.size("val") == 6
    words = torch.arange(12).reshape(3, 4)
    lm = tasks.SeqTask("w", "lm", 12, 12, words, words, words, 3)
    x, y = lm.batch("test", [0, 2])
    assert torch.equal(x, words[[0, 2], :-1]) and torch.equal(y, words[[0, 2], 1:])
    assert lm.size("train") == 3


def test_lm_windows_do_not_overlap():
    w = tasks.lm_windows(np.arange(20), T=4)
    assert w.shape == (4, 5) and w[1, 0] == 4 and w[-1, -1] == 16
    assert tasks.lm_windows(np.arange(20), T=4, n=2, seed=0).shape == (2, 5)


def test_cached_task_data_damaged_or_whole(tmp_path):
    """Task data are written whole (temporary file, then renamed); a damaged file reads as
    missing, so that it is made again."""
    path = tmp_path / "x.npz"
    tasks._save_cached(path, compressed=True, a=np.arange(5), b=np.ones(3))
    z = tasks._load_cached(path)
    assert z["a"].tolist() == [0, 1, 2, 3, 4] and z["b"].sum() == 3
    assert [p.name for p in tmp_path.iterdir()] == ["x.npz"]
    path.write_bytes(path.read_bytes()[:20])
    assert tasks._load_cached(path) is None
    assert tasks._load_cached(tmp_path / "missing.npz") is None
