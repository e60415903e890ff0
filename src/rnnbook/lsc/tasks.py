"""The spiking and sequence tasks of the LSC experiments (Herranz-Celotti & Rouat, Sec. II-F, App. G).

* **sl-MNIST** (:func:`sl_mnist`): real MNIST (``datasets.mnist``), each pixel value x in [0, 1] turned into one
  spike at ``T(x) = tau_eff log(x / (x - theta))`` for x > theta (none otherwise), theta = 0.2, tau_eff = 50 ms,
  over a 50 ms window (the encoding of Zenke & Vogels 2021); each time bin repeated ``repeat`` times.
* **Spiking Heidelberg Digits** are not available offline. Their loader for a reader who has the files is
  :func:`shd`. The stand-in, :func:`spoken_digits`, keeps what SHD is made of: the spoken digits zero to nine in
  English and German (20 classes), several speakers, each utterance turned into spike trains by a model of the
  inner ear. The utterances are synthesised with eSpeak NG (PyPI ``espeakng-loader``: the library and its voice
  data) with different voices, speaking rates and pitches as "speakers"; the ear model is a bank of band-pass
  filters on an ERB-like scale, half-wave rectified, compressed, and fed to one leaky integrate-and-fire neuron
  per channel. Speakers are split between train, validation and test, as SHD's test speakers are unseen.
* **PTB**: the word-level stand-in of ``datasets.word_corpus`` (Jane Austen); :func:`lm_windows` cuts it into
  (B, T+1) windows for next-word prediction.

:func:`build_task` assembles the train/validation/test splits of one of the three tasks of Fig. 3 as a
:class:`SeqTask`; :func:`mnist_splits` the flattened MNIST images of Fig. 2.
"""

from __future__ import annotations

import ctypes
import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

import numpy as np
import torch

from rnnbook import datasets
from rnnbook.cache import build_dir, write_atomic


@dataclass
class SpikeDataset:
    """Spike trains stored as events: ``times[i]`` / ``chans[i]`` (int arrays) of sample i; dense on demand."""

    times: list[np.ndarray]
    chans: list[np.ndarray]
    labels: np.ndarray
    n_steps: int
    n_channels: int
    n_classes: int
    repeat: int = 1

    def __len__(self) -> int:
        return len(self.labels)

    def dense(self, idx) -> torch.Tensor:
        """(B, n_steps * repeat, n_channels) float tensor of 0/1 spikes for the samples ``idx``."""
        idx = np.asarray(idx)
        out = torch.zeros(len(idx), self.n_steps, self.n_channels, device="cpu")
        for k, i in enumerate(idx):
            out[k, torch.from_numpy(self.times[i]), torch.from_numpy(self.chans[i])] = (
                1.0
            )
        return out.repeat_interleave(self.repeat, 1) if self.repeat > 1 else out

    def subset(self, idx) -> "SpikeDataset":
        idx = np.asarray(idx)
        return SpikeDataset(
            [self.times[i] for i in idx],
            [self.chans[i] for i in idx],
            self.labels[idx],
            self.n_steps,
            self.n_channels,
            self.n_classes,
            self.repeat,
        )

    @property
    def T(self) -> int:
        return self.n_steps * self.repeat


def random_batches(data: SpikeDataset, batch: int, seed: int) -> Iterator[torch.Tensor]:
    """Endless dense batches of ``batch`` random samples (with replacement), drawn from one
    generator seeded with ``seed``: the inputs of a pre-training (its labels are not needed)."""
    gen = torch.Generator().manual_seed(seed)
    while True:
        idx = torch.randint(len(data), (batch,), generator=gen, device="cpu")
        yield data.dense(idx.numpy())


# ---- sl-MNIST ------------------------------------------------------------------------------------------------


def latency_ms(x: np.ndarray, theta: float = 0.2, tau_eff: float = 50.0) -> np.ndarray:
    """Spike time ``tau_eff log(x / (x - theta))`` for x > theta, +inf otherwise (Sec. II-F)."""
    x = np.asarray(x, dtype=np.float64)
    out = np.full(x.shape, np.inf)
    m = x > theta
    out[m] = tau_eff * np.log(x[m] / (x[m] - theta))
    return out


def sl_mnist(
    split: str,
    n: int | None = None,
    side: int = 28,
    n_steps: int = 50,
    window_ms: float = 50.0,
    repeat: int = 2,
    seed: int = 0,
) -> SpikeDataset:
    """Spike-latency MNIST from the real MNIST. ``split``: 'train' (the first 45k training images), 'val' (the
    last 5k) or 'test' (10k), as Tab. S1; ``n`` draws a random subset of that size. ``side`` < 28 average-pools
    the images first (a scale-down); ``n_steps`` bins cover ``window_ms``."""
    if split not in ("train", "val", "test"):
        raise ValueError(f"split = {split!r}: must be 'train', 'val' or 'test'")
    if 28 % side:
        raise ValueError(f"side = {side!r}: must divide 28")
    imgs, labels = datasets.mnist("test" if split == "test" else "train")
    if split == "train":
        imgs, labels = imgs[:45_000], labels[:45_000]
    elif split == "val":
        imgs, labels = imgs[45_000:], labels[45_000:]
    if n is not None and n < len(labels):
        idx = np.sort(np.random.default_rng(seed).choice(len(labels), n, replace=False))
        imgs, labels = imgs[idx], labels[idx]
    x = imgs.astype(np.float64) / 255.0
    k = 28 // side
    if k > 1:
        x = x.reshape(len(x), side, k, side, k).mean((2, 4))
    t = latency_ms(x.reshape(len(x), -1))
    b = np.floor(t / (window_ms / n_steps))
    times, chans = [], []
    for row in b:
        c = np.nonzero(np.isfinite(row) & (row < n_steps))[0]
        times.append(row[c].astype(np.int64))
        chans.append(c.astype(np.int64))
    return SpikeDataset(
        times, chans, labels.astype(np.int64), n_steps, side * side, 10, repeat
    )


# ---- the spoken-digits stand-in for SHD ----------------------------------------------------------------------

WORDS = {
    "en": (
        "zero",
        "one",
        "two",
        "three",
        "four",
        "five",
        "six",
        "seven",
        "eight",
        "nine",
    ),
    "de": (
        "null",
        "eins",
        "zwei",
        "drei",
        "vier",
        "fünf",
        "sechs",
        "sieben",
        "acht",
        "neun",
    ),
}
# eSpeak voice variants used as speakers; f2, f3, f5 and whisper add random noise (not reproducible), so they are left out
SPEAKERS = (
    "m1",
    "m2",
    "m3",
    "m4",
    "m5",
    "m6",
    "m7",
    "f1",
    "klatt",
    "klatt3",
    "f4",
    "croak",
)


class _ESpeak:
    """A minimal ctypes binding of libespeak-ng (from the PyPI package espeakng-loader)."""

    _inst = None

    def __init__(self) -> None:
        try:
            import espeakng_loader as el
        except ImportError as e:
            raise datasets.DataUnavailable(
                "the spoken-digits stand-in needs the PyPI package espeakng-loader "
                "(in requirements.txt): run `make venv`"
            ) from e
        self.lib = ctypes.CDLL(el.get_library_path())
        self.rate = self.lib.espeak_Initialize(
            2, 0, el.get_data_path().encode(), 0
        )  # synchronous output
        if self.rate <= 0:
            raise RuntimeError("espeak-ng failed to initialise")
        self.buf: list[np.ndarray] = []
        proto = ctypes.CFUNCTYPE(
            ctypes.c_int, ctypes.POINTER(ctypes.c_short), ctypes.c_int, ctypes.c_void_p
        )

        def callback(wav, n, events):
            if n > 0:
                self.buf.append(
                    np.ctypeslib.as_array(wav, shape=(n,)).astype(np.float32) / 32768.0
                )
            return 0

        self._cb = proto(callback)
        self.lib.espeak_SetSynthCallback(self._cb)

    @classmethod
    def get(cls) -> "_ESpeak":
        if cls._inst is None:
            cls._inst = _ESpeak()
        return cls._inst

    def say(self, text: str, voice: str, rate: int, pitch: int) -> np.ndarray:
        self.buf = []
        if self.lib.espeak_SetVoiceByName(voice.encode()) != 0:
            raise RuntimeError(f"espeak-ng has no voice {voice!r}")
        self.lib.espeak_SetParameter(1, int(rate), 0)  # espeakRATE
        self.lib.espeak_SetParameter(3, int(pitch), 0)  # espeakPITCH
        data = text.encode("utf-8") + b"\0"
        self.lib.espeak_Synth(
            data, len(data), 0, 0, 0, 0x1, None, None
        )  # espeakCHARS_UTF8
        self.lib.espeak_Synchronize()
        return np.concatenate(self.buf) if self.buf else np.zeros(1, np.float32)


def _synthesize_here(
    items: list[tuple[str, str, int, int]],
) -> tuple[int, list[np.ndarray]]:
    es = _ESpeak.get()
    return es.rate, [es.say(*item) for item in items]


def synthesize(items: list[tuple[str, str, int, int]]) -> tuple[int, list[np.ndarray]]:
    """Synthesise (word, voice, rate, pitch) items in a fresh Python process: eSpeak's output depends on what the
    same process synthesised before, so a fresh process makes the result depend on ``items`` alone."""
    import subprocess
    import sys
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        src, dst = Path(tmp) / "items.json", Path(tmp) / "waves.npz"
        src.write_text(json.dumps(items))
        subprocess.run(
            [sys.executable, "-m", "rnnbook.lsc.tasks", str(src), str(dst)], check=True
        )
        z = np.load(dst)
        return int(z["rate"]), [z[f"w{i}"] for i in range(len(items))]


def erb_space(lo: float, hi: float, n: int) -> np.ndarray:
    """n centre frequencies equally spaced on the ERB-rate scale (Glasberg & Moore) between lo and hi Hz."""
    erb = lambda f: 21.4 * np.log10(1 + 0.00437 * f)  # noqa: E731
    inv = lambda e: (10 ** (e / 21.4) - 1) / 0.00437  # noqa: E731
    return inv(np.linspace(erb(lo), erb(hi), n))


def cochlea_drive(
    wave: np.ndarray, sr: int, n_channels: int, gain: float = 2.0
) -> np.ndarray:
    """The drive of the auditory nerve, (ms, channels): STFT (10 ms Hann windows, 1 ms hop) -> triangular band-pass
    filters centred on the ERB scale (100 Hz - 8 kHz) -> cube-root compression of the normalised band power."""
    hop, win = sr // 1000, sr // 100
    nfft = 1 << int(np.ceil(np.log2(win)))
    pad = np.pad(wave.astype(np.float64), (win, win))
    frames = np.lib.stride_tricks.sliding_window_view(pad, win)[::hop] * np.hanning(win)
    power = np.abs(np.fft.rfft(frames, nfft)) ** 2
    freqs = np.fft.rfftfreq(nfft, 1 / sr)
    cf = erb_space(100, min(8000, sr / 2 - 1), n_channels + 2)
    fb = np.zeros((n_channels, len(freqs)))
    for k in range(n_channels):
        lo, c, hi = cf[k], cf[k + 1], cf[k + 2]
        fb[k] = np.clip(
            np.minimum((freqs - lo) / (c - lo), (hi - freqs) / (hi - c)), 0, None
        )
    # einsum without BLAS: the same bits whatever the number of threads (the spikes below are threshold crossings,
    # so a last-bit difference from a threaded matrix product could move a spike)
    band = np.einsum("tf,cf->tc", power, fb, optimize=False)
    return np.round(gain * np.cbrt(band / max(power.max(), 1e-12)), 9)


def lif_spikes(
    drives: list[np.ndarray],
    bin_ms: float,
    n_steps: int,
    tau_ms: float = 5.0,
    threshold: float = 1.0,
) -> list[tuple[np.ndarray, np.ndarray]]:
    """One leaky integrate-and-fire neuron per channel (1 ms steps, reset to zero) for each drive (ms, channels),
    all utterances at once; spikes binned into ``n_steps`` bins of ``bin_ms`` (at most one per bin and channel)."""
    n_ms = max(len(d) for d in drives)
    D = np.zeros((len(drives), n_ms, drives[0].shape[1]))
    for i, d in enumerate(drives):
        D[i, : len(d)] = d
    alpha = np.exp(-1.0 / tau_ms)
    v = np.zeros((len(drives), D.shape[2]))
    S = np.zeros(D.shape, dtype=bool)
    for t in range(min(n_ms, int(n_steps * bin_ms))):
        v = alpha * v + (1 - alpha) * D[:, t]
        S[:, t] = v > threshold
        v[S[:, t]] = 0.0
    out = []
    for i in range(len(drives)):
        t_ms, ch = np.nonzero(S[i])
        b = (t_ms / bin_ms).astype(np.int64)
        pairs = (
            np.unique(np.stack([b, ch]), axis=1)
            if len(b)
            else np.zeros((2, 0), np.int64)
        )
        out.append((pairs[0].astype(np.int64), pairs[1].astype(np.int64)))
    return out


def _cache_file(name: str, params: dict) -> Path:
    key = hashlib.sha256(json.dumps(params, sort_keys=True).encode()).hexdigest()[:16]
    return build_dir() / "lsc_cache" / f"{name}-{key}.npz"


def _load_cached(path: Path) -> dict | None:
    """The arrays of a cached ``.npz``, or None when it is missing or damaged (then it is
    made again: a killed write or a full disk never breaks the next build)."""
    if not path.exists():
        return None
    try:
        with np.load(path, allow_pickle=False) as z:
            return {k: z[k] for k in z.files}
    except Exception:  # truncated zip, bad CRC, bad header: all mean "make it again"
        print(f"damaged task data {path.name}: making it again")
        return None


def _save_cached(path: Path, compressed: bool = False, **arrays: np.ndarray) -> None:
    """Write a cached ``.npz`` whole or not at all."""
    import io

    buf = io.BytesIO()
    (np.savez_compressed if compressed else np.savez)(buf, **arrays)
    write_atomic(path, buf.getvalue())


def spoken_digits(
    split: str,
    n_channels: int = 64,
    n_steps: int = 50,
    bin_ms: float = 20.0,
    rates: tuple[int, ...] = (130, 160, 190, 220),
    pitches: tuple[int, ...] = (35, 50, 65),
    repeat: int = 1,
    seed: int = 0,
) -> SpikeDataset:
    """The stand-in for SHD: 20 classes (digits in English, then German), 12 eSpeak voices as speakers
    (train: 9, validation: 1, test: 2), each word at every rate and pitch, with a random onset delay of up to
    100 ms. Cached in the build folder (the synthesis takes a few seconds)."""
    if split not in ("train", "val", "test"):
        raise ValueError(f"split = {split!r}: must be 'train', 'val' or 'test'")
    spk = {"train": SPEAKERS[:9], "val": SPEAKERS[9:10], "test": SPEAKERS[10:]}[split]
    params = dict(
        split=split,
        n_channels=n_channels,
        n_steps=n_steps,
        bin_ms=bin_ms,
        rates=list(rates),
        pitches=list(pitches),
        seed=seed,
        version=3,
    )
    path = _cache_file("spoken-digits", params)
    z = _load_cached(path)
    if z is not None:
        offs = z["offsets"]
        times = [z["times"][offs[i] : offs[i + 1]] for i in range(len(offs) - 1)]
        chans = [z["chans"][offs[i] : offs[i + 1]] for i in range(len(offs) - 1)]
        return SpikeDataset(times, chans, z["labels"], n_steps, n_channels, 20, repeat)
    rng = np.random.default_rng([seed, len(split)])
    items, labels = [], []
    for lang_i, lang in enumerate(("en", "de")):
        for digit, word in enumerate(WORDS[lang]):
            for s in spk:
                for r in rates:
                    for p in pitches:
                        items.append((word, f"{lang}+{s}", r, p))
                        labels.append(10 * lang_i + digit)
    sr, waves = synthesize(items)
    drives = []
    for wave in waves:
        delay = np.zeros(int(rng.integers(0, sr // 10)), np.float32)
        drives.append(cochlea_drive(np.concatenate([delay, wave]), sr, n_channels))
    spikes = lif_spikes(drives, bin_ms, n_steps)
    times, chans = [t for t, _ in spikes], [c for _, c in spikes]
    offs = np.cumsum([0] + [len(t) for t in times])
    _save_cached(
        path,
        compressed=True,
        times=np.concatenate(times),
        chans=np.concatenate(chans),
        offsets=offs,
        labels=np.array(labels, np.int64),
    )
    return SpikeDataset(
        times, chans, np.array(labels, np.int64), n_steps, n_channels, 20, repeat
    )


def shd(
    path: str | Path, n_steps: int = 100, window_s: float = 1.0, repeat: int = 1
) -> SpikeDataset:
    """The real Spiking Heidelberg Digits (``shd_train.h5`` / ``shd_test.h5``, 700 channels, 20 classes), for a
    reader who has the files (needs ``h5py``); not available offline here."""
    path = Path(path)
    if not path.exists():
        raise datasets.DataUnavailable(
            f"{path} not found (SHD is not shipped offline; use spoken_digits())"
        )
    import h5py  # noqa: PLC0415

    with h5py.File(path, "r") as f:
        t_all, u_all, labels = (
            f["spikes"]["times"][:],
            f["spikes"]["units"][:],
            f["labels"][:],
        )
    times, chans = [], []
    for t, u in zip(t_all, u_all):
        b = (np.asarray(t) / (window_s / n_steps)).astype(np.int64)
        keep = b < n_steps
        pairs = np.unique(np.stack([b[keep], np.asarray(u, np.int64)[keep]]), axis=1)
        times.append(pairs[0])
        chans.append(pairs[1])
    return SpikeDataset(
        times, chans, np.asarray(labels, np.int64), n_steps, 700, 20, repeat
    )


# ---- word-level language modelling -----------------------------------------------------------------------------


def lm_windows(
    tokens: np.ndarray, T: int, n: int | None = None, seed: int = 0
) -> torch.Tensor:
    """Non-overlapping windows of T+1 tokens (input = first T, target = last T); ``n`` random ones if given."""
    m = (len(tokens) - 1) // T
    w = np.stack([tokens[i * T : i * T + T + 1] for i in range(m)])
    if n is not None and n < m:
        w = w[np.sort(np.random.default_rng(seed).choice(m, n, replace=False))]
    return torch.from_numpy(w)


def word_corpus(vocab_size: int = 10_000) -> "datasets.WordCorpus":
    """``datasets.word_corpus`` (the Jane Austen stand-in for PTB), cached as arrays in the build folder: building
    it tokenises 0.7M words, which several chapters would otherwise repeat."""
    path = _cache_file("word-corpus", {"vocab": vocab_size, "version": 1})
    z = _load_cached(path)
    if z is not None:
        return datasets.WordCorpus(
            z["train"],
            z["valid"],
            z["test"],
            tuple(str(w) for w in z["vocab"]),
            str(z["name"]),
        )
    c = datasets.word_corpus(vocab_size)
    _save_cached(
        path,
        train=c.train,
        valid=c.valid,
        test=c.test,
        vocab=np.array(c.vocab),
        name=np.array(c.name),
    )
    return c


# ---- the flattened MNIST of Fig. 2 ------------------------------------------------------------------------------


@dataclass
class MnistSplits:
    xtr: torch.Tensor
    ytr: torch.Tensor
    xva: torch.Tensor
    yva: torch.Tensor
    xte: torch.Tensor
    yte: torch.Tensor


def mnist_splits(n_train: int, n_val: int, n_test: int, seed: int = 0) -> MnistSplits:
    """Real MNIST, pixels scaled to [0, 1] and flattened; train/val from the 60k training images, test
    from the 10k test images (random subsets of the given sizes)."""
    xi, yi = datasets.mnist("train")
    xt, yt = datasets.mnist("test")
    rng = np.random.default_rng(seed)
    perm = rng.permutation(len(yi))
    tr, va = perm[:n_train], perm[n_train : n_train + n_val]
    te = np.sort(rng.permutation(len(yt))[:n_test])

    def f(a):
        return torch.from_numpy(a.reshape(len(a), -1).astype(np.float32) / 255.0)

    def g(a):
        return torch.from_numpy(a.astype(np.int64))

    return MnistSplits(f(xi[tr]), g(yi[tr]), f(xi[va]), g(yi[va]), f(xt[te]), g(yt[te]))


# ---- the three sequence tasks of Fig. 3 -------------------------------------------------------------------------

TASKS = ("sl-mnist", "shd-standin", "ptb-standin")


@dataclass
class SeqTask:
    """A sequence task: classification with a label per sequence (spikes), or next-word prediction."""

    name: str
    kind: str  # "classify" or "lm"
    n_in: int
    n_out: int
    train: object
    val: object
    test: object
    T: int

    def batch(self, split: str, idx) -> tuple[torch.Tensor, torch.Tensor]:
        data = getattr(self, split)
        if self.kind == "classify":
            return data.dense(idx), torch.from_numpy(data.labels[np.asarray(idx)])
        w = data[torch.as_tensor(idx, device=data.device)]
        return w[:, :-1], w[:, 1:]

    def size(self, split: str) -> int:
        data = getattr(self, split)
        return len(data.labels) if self.kind == "classify" else len(data)


def build_task(
    name: str,
    n_train: int,
    n_val: int,
    n_test: int,
    T: int,
    seed: int = 0,
    side: int = 28,
    n_channels: int = 64,
    vocab: int = 10_000,
    repeat: int = 1,
    rates: tuple[int, ...] = (130, 160, 190, 220),
    pitches: tuple[int, ...] = (35, 50, 65),
) -> SeqTask:
    """One of the three tasks of Fig. 3 at the given scale: sl-MNIST (``side`` x ``side`` channels, T
    bins over 50 ms), the spoken-digits stand-in for SHD (``n_channels`` channels, T bins over 1 s), or
    the word-level stand-in for PTB (windows of T words, ``vocab`` words)."""
    splits = (("train", n_train), ("val", n_val), ("test", n_test))
    if name == "sl-mnist":
        sp = {
            s: sl_mnist(s, n=n, side=side, n_steps=T, repeat=repeat, seed=seed)
            for s, n in splits
        }
        return SeqTask(name, "classify", side * side, 10, *sp.values(), T * repeat)
    if name == "shd-standin":
        sp = {}
        for s, n in splits:
            d = spoken_digits(
                s,
                n_channels=n_channels,
                n_steps=T,
                bin_ms=1000.0 / T,
                repeat=repeat,
                rates=tuple(rates),
                pitches=tuple(pitches),
            )
            if n < len(d):
                rng = np.random.default_rng(seed)
                d = d.subset(np.sort(rng.choice(len(d), n, replace=False)))
            sp[s] = d
        return SeqTask(name, "classify", n_channels, 20, *sp.values(), T * repeat)
    if name == "ptb-standin":
        c = word_corpus(vocab)
        w = {
            s: lm_windows(getattr(c, part), T, n=n, seed=seed)
            for (s, n), part in zip(splits, ("train", "valid", "test"))
        }
        return SeqTask(name, "lm", vocab, c.vocab_size, *w.values(), T)
    raise ValueError(f"task = {name!r}: must be one of {TASKS}")


if (
    __name__ == "__main__"
):  # python -m rnnbook.lsc.tasks ITEMS.json OUT.npz: the fresh process of synthesize()
    import sys

    _items = [tuple(x) for x in json.loads(Path(sys.argv[1]).read_text())]
    _rate, _waves = _synthesize_here(_items)
    np.savez(sys.argv[2], rate=_rate, **{f"w{i}": w for i, w in enumerate(_waves)})
