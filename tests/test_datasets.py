"""The offline data sets: real MNIST and the word-level corpus, and the loaders' behaviour on small files."""

import numpy as np
import pytest

from rnnbook import datasets


def test_mnist_is_the_real_mnist():
    x, y = datasets.mnist("train")
    xt, yt = datasets.mnist("test")
    assert (
        x.shape == (60000, 28, 28)
        and xt.shape == (10000, 28, 28)
        and x.dtype == np.uint8
    )
    assert set(np.unique(y)) == set(range(10))
    # the well-known class counts of MNIST's training set
    assert np.bincount(y).tolist() == [
        5923,
        6742,
        5958,
        6131,
        5842,
        5421,
        5918,
        6265,
        5851,
        5949,
    ]
    with pytest.raises(ValueError, match="split"):
        datasets.mnist("valid")


def test_austen_corpus_has_penn_treebank_size():
    novels = datasets.austen_novels()
    assert list(novels) == list(datasets.AUSTEN_NOVELS)
    assert novels["prideprejudice"][0] == "PRIDE AND PREJUDICE"
    c = datasets.word_corpus(10_000)
    total = len(c.train) + len(c.valid) + len(c.test)
    assert 650_000 < total < 800_000 and c.vocab_size == 10_000
    assert c.vocab[:2] == ("<unk>", "<eos>") and "elizabeth" in c.vocab
    assert 0.75 < len(c.train) / total < 0.85


def test_tokenize_and_build_corpus():
    assert datasets.tokenize_line("It is 1,000 pounds, Mr. Darcy's!") == [
        "it",
        "is",
        "N",
        "pounds",
        "mr",
        "darcy's",
    ]
    docs = {"a": ["x y z"] * 8 + ["v w"] * 2, "b": ["x x"] * 10}
    c = datasets.build_corpus(docs, vocab_size=4)
    assert c.vocab == ("<unk>", "<eos>", "x", "y")
    assert c.train.tolist()[:4] == [2, 3, 0, 1]  # z is out of vocabulary
    with pytest.raises(ValueError, match="vocab_size"):
        datasets.build_corpus(docs, vocab_size=2)


def test_ptb_loader_on_small_files(tmp_path):
    for k in ("train", "valid", "test"):
        (tmp_path / f"ptb.{k}.txt").write_text(" the cat <unk> sat \n the N dogs \n")
    c = datasets.ptb(tmp_path)
    assert c.vocab[:2] == ("<unk>", "<eos>") and len(c.train) == 9
    with pytest.raises(datasets.DataUnavailable, match="ptb.train.txt"):
        datasets.ptb(tmp_path / "missing")


def test_fashion_mnist_is_the_real_fashion_mnist():
    x, y = datasets.fashion_mnist("train")
    xt, yt = datasets.fashion_mnist("test")
    assert x.shape == (60000, 28, 28) and xt.shape == (10000, 28, 28)
    assert x.dtype == np.uint8 and int(x.max()) == 255
    # Fashion-MNIST is balanced: 6,000 training and 1,000 test images per class
    assert np.bincount(y).tolist() == [6000] * 10
    assert np.bincount(yt).tolist() == [1000] * 10
    assert y[:5].tolist() == [
        9,
        0,
        0,
        3,
        0,
    ]  # ankle boot, T-shirt, T-shirt, dress, T-shirt
    with pytest.raises(ValueError, match="split"):
        datasets.fashion_mnist("valid")


def test_read_idx_on_small_files(tmp_path):
    import gzip
    import struct

    a = np.arange(24, dtype=np.uint8).reshape(2, 3, 4)
    raw = b"\0\0\x08\x03" + struct.pack(">3I", 2, 3, 4) + a.tobytes()
    (tmp_path / "a-idx3-ubyte.gz").write_bytes(gzip.compress(raw))
    assert np.array_equal(datasets.read_idx(tmp_path / "a-idx3-ubyte.gz"), a)
    b = np.array([1, -2, 300], dtype=">i4")
    (tmp_path / "b").write_bytes(b"\0\0\x0c\x01" + struct.pack(">I", 3) + b.tobytes())
    assert datasets.read_idx(tmp_path / "b").tolist() == [1, -2, 300]
    (tmp_path / "c").write_bytes(b"\0\0\x08\x01" + struct.pack(">I", 5) + b"\0")
    with pytest.raises(ValueError, match="shape"):
        datasets.read_idx(tmp_path / "c")
    (tmp_path / "d").write_bytes(b"PK\x03\x04")
    with pytest.raises(ValueError, match="not an IDX"):
        datasets.read_idx(tmp_path / "d")


def test_export_offline_serves_the_same_data(tmp_path, monkeypatch):
    """The offline data folder (for a GPU node without network) gives back the same arrays."""
    x, y = datasets.mnist("test")
    datasets.export_offline(tmp_path)
    monkeypatch.setenv("RNNBOOK_DATA_DIR", str(tmp_path))
    datasets.mnist.cache_clear()
    try:
        xt, yt = datasets.mnist("test")
        assert datasets._mnist_idx_dir() == tmp_path / "mnist"
        assert np.array_equal(x, xt) and np.array_equal(y, yt)
        assert (
            datasets.fashion_mnist_dir()
            == tmp_path / "fashion-mnist" / datasets._FASHION
        )
        assert datasets.austen_data_dir().is_relative_to(tmp_path)
    finally:
        datasets.mnist.cache_clear()
