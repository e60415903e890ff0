"""Fig. 2's grid: the comparisons by hand on made-up accuracies, and a tiny grid that runs, stores
every run and reads it back from the run cache without pre-training again."""

import json
from types import SimpleNamespace

import numpy as np
import pytest
import torch

from rnnbook.lsc import ffn_mnist, tasks

SCALE = dict(
    depth=2,
    width=4,
    n_train=16,
    n_val=8,
    n_test=8,
    steps=2,
    eval_every=1,
    patience=1,
    pre_steps=1,
    pre_batch=2,
)


def grid(**kw):
    return ffn_mnist.Grid(**{**dict(acts=["relu"], lrs=[1e-3], seeds=1), **SCALE, **kw})


def made_up(g, acc):
    """Results whose test accuracy is acc[(act, init, lr)] + 0.01 * seed."""
    return {
        (a, i, lr, s): {"test_acc": acc[(a, i, lr)] + 0.01 * s}
        for a in g.acts
        for i in ffn_mnist.INITS
        for lr in g.lrs
        for s in range(g.seeds)
    }


def test_grid_of_the_chapter_parameters():
    P = SimpleNamespace(profile="book", acts=["cos"], lrs=[0.1], seeds=3, **SCALE)
    g = ffn_mnist.Grid.of(P)
    assert g.seeds == 3 and g.acts == ["cos"]
    key = g.key("cos", "he", 0.1, 2)
    assert key["batch"] == 32 and key["init"] == "he" and key["seed"] == 2
    assert "acts" not in key and key["depth"] == 2


def test_comparisons_by_hand():
    g = grid(acts=["relu", "cos"], lrs=[1e-3, 1e-2], seeds=2)
    acc = {}
    for a in g.acts:
        for lr, (gl, he, lsc) in zip(g.lrs, [(0.5, 0.6, 0.7), (0.5, 0.8, 0.4)]):
            acc.update(
                {(a, "glorot", lr): gl, (a, "he", lr): he, (a, "glorot+lsc", lr): lsc}
            )
    v = ffn_mnist.Runs(g, made_up(g, acc)).comparisons()
    assert (v["n_cells"], v["n_best"], v["n_glorot"]) == (4, 2, 2)
    assert v["frac_best"] == 0.5 and v["n_seeds"] == 2 and v["lrs"] == g.lrs
    # ReLU: He best 0.805 at 1e-2, LSC best 0.705 at 1e-3: no match, not higher
    assert v["attempted"] and not v["match"] and not v["higher"]
    assert v["relu_he"] == pytest.approx(0.805) and v["tol"] == pytest.approx(0.02)
    assert "He 0.805 at lr 0.01" in v["best"]


def test_relu_claim_needs_two_learning_rates():
    g = grid()
    acc = {("relu", i, 1e-3): 0.5 for i in ffn_mnist.INITS}
    v = ffn_mnist.Runs(g, made_up(g, acc)).comparisons()
    assert v["attempted"] is False and v["best"] == "not run at this profile"
    assert np.isnan(v["relu_he"])


def test_tiny_grid_runs_and_is_cached(tmp_path, monkeypatch):
    monkeypatch.setenv("RNNBOOK_BUILD_DIR", str(tmp_path))
    g = torch.Generator().manual_seed(0)
    x = [torch.rand(n, 784, generator=g) for n in (16, 8, 8)]
    y = [torch.randint(10, (n,), generator=g) for n in (16, 8, 8)]
    data = tasks.MnistSplits(x[0], y[0], x[1], y[1], x[2], y[2])
    runs = ffn_mnist.run_grid(grid(), data)
    assert set(runs.results) == {("relu", i, 1e-3, 0) for i in ffn_mnist.INITS}
    lsc = runs.results[("relu", "glorot+lsc", 1e-3, 0)]
    assert lsc["pretrain"]["steps"] == 1 and 0 <= lsc["test_acc"] <= 1
    assert "relu seed 0" in runs.pretrain_summary()
    assert runs.table().count("\n") == 2

    def fail(*a, **k):
        raise AssertionError("should have been read from the cache")

    monkeypatch.setattr(ffn_mnist, "train_one", fail)
    monkeypatch.setattr(ffn_mnist, "pretrain_ffn", fail)
    again = ffn_mnist.run_grid(grid(), data)
    assert same(again.results, runs.results)


def same(a: dict, b: dict) -> bool:
    """The same runs, up to the JSON round trip of the cache (tuples become lists)."""
    return a.keys() == b.keys() and all(
        json.dumps(a[k], default=float) == json.dumps(b[k], default=float) for k in a
    )
