"""Fig. 2's grid: the batched ensemble against single networks trained by the reference loop
(``experiments.fit`` with pytorch-optimizer's AdaBelief in Lookahead), per-member early stopping, the
comparisons by hand on made-up accuracies with intervals over seeds, and a tiny grid that runs,
stores every activation and reads it back from the run cache."""

from types import SimpleNamespace

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from scipy import stats

from rnnbook.lsc import experiments, ffn_mnist, tasks
from rnnbook.lsc.models import FFN
from rnnbook.stats import wilson_interval

torch.set_num_threads(1)

SCALE = dict(
    depth=2,
    width=4,
    n_train=16,
    n_val=8,
    n_test=8,
    steps=4,
    eval_every=2,
    patience=1,
    pre_steps=1,
    pre_batch=2,
    checkpoints=2,
)


def grid(**kw):
    base = dict(acts=["relu"], lrs=[1e-3, 1e-2], seeds=2)
    return ffn_mnist.Grid(**{**base, **SCALE, **kw})


def fake_data(n=(64, 32, 32), seed=0):
    g = torch.Generator().manual_seed(seed)
    x = [torch.rand(k, 784, generator=g) for k in n]
    y = [torch.randint(10, (k,), generator=g) for k in n]
    return tasks.MnistSplits(x[0], y[0], x[1], y[1], x[2], y[2])


def test_grid_of_the_chapter_parameters():
    P = SimpleNamespace(
        profile="book", acts=["cos"], lrs=[0.1], seeds=3, seed=2, **SCALE
    )
    g = ffn_mnist.Grid.of(P)
    assert g.seeds == 3 and g.acts == ["cos"] and g.run_seeds() == [2000, 2001, 2002]
    key = g.key("fashion-mnist", "cos")
    assert key["batch"] == 32 and key["act"] == "cos" and key["seed"] == 2
    assert key["dataset"] == "fashion-mnist" and "acts" not in key
    long = ffn_mnist.Grid(
        **{**vars(g), "steps": 300, "eval_every": 50, "checkpoints": 4}
    )
    assert long.checkpoint_steps() == [50, 100, 150, 300]


def test_stacked_members_are_the_networks():
    models = [FFN(784, 8, 3, act="cos", seed=s) for s in range(3)]
    ens = ffn_mnist.FFNEnsemble.stack(models)
    x = torch.rand(5, 784)
    out = ens.forward(x)
    for i, m in enumerate(models):
        assert torch.allclose(out[i], m(x), atol=1e-5)
        assert torch.allclose(ens.member(i)(x), m(x), atol=1e-5)
    assert torch.allclose(ens.forward(x.expand(3, -1, -1)), out, atol=1e-5)
    with pytest.raises(ValueError, match="one activation"):
        ffn_mnist.FFNEnsemble.stack([FFN(784, 8, 2, act="sin"), models[0]])


def test_ensemble_trains_like_single_networks():
    """Two members with one batch stream and two learning rates against two runs of
    ``experiments.fit`` (pytorch-optimizer's AdaBelief in Lookahead) on the same batches."""
    data = fake_data()
    models = [FFN(784, 16, 4, act="relu", seed=s) for s in (0, 1)]
    lrs = [1e-2, 3e-3]
    ens = ffn_mnist.FFNEnsemble.stack(models)
    res = ffn_mnist.train_ensemble(ens, lrs, [7, 7], data, 13, 5, 100, [5, 13], batch=8)
    hist = np.array(res["history"])
    for e, (m, lr) in enumerate(zip(models, lrs)):
        cfg = experiments.TrainConfig(
            lr=lr, batch=8, max_steps=13, eval_every=5, patience=100, seed=7
        )

        def batch(gen):
            idx = torch.randint(64, (8,), generator=gen)
            return data.xtr[idx], data.ytr[idx]

        ref = experiments.fit(
            m,
            batch,
            lambda m, x, y: F.cross_entropy(m(x), y),
            lambda m: F.cross_entropy(m(data.xva), data.yva),
            cfg,
        )
        assert hist[:, 0].tolist() == [h[0] for h in ref["history"]]
        assert np.allclose(hist[:, 1 + e], [h[2] for h in ref["history"]], atol=1e-5)
        acc = float((m(data.xte).argmax(-1) == data.yte).float().mean())
        assert res["test_acc"][-1][e] == pytest.approx(acc)


def test_members_stop_on_their_own():
    data = fake_data()
    for part in (
        "tr",
        "va",
        "te",
    ):  # learnable labels: the brightest of the first ten pixels
        x = getattr(data, "x" + part)
        setattr(data, "y" + part, x[:, :10].argmax(1))
    models = [FFN(784, 8, 2, seed=s) for s in (0, 1)]
    ens = ffn_mnist.FFNEnsemble.stack(models)
    res = ffn_mnist.train_ensemble(ens, [0.0, 1e-2], [0, 1], data, 40, 2, 1, [4, 40])
    # learning rate 0: no progress after the first validation, stopped at the second
    assert res["steps"][0] == 4 and res["steps"][1] > 4
    acc0 = float((models[0](data.xte).argmax(-1) == data.yte).float().mean())
    assert res["test_acc"][0][0] == res["test_acc"][1][0] == pytest.approx(acc0)


LRS4 = [1e-2, 3.16e-3, 1e-3, 3.16e-4]


def made_up(S=3, L=4):
    """Accuracies (act, init, lr, seed): ReLU and cos at ``L`` learning rates, LSC best in every
    cell but one (cos, second lr: LSC below He, above Glorot); ReLU's best lr is the first for
    LSC and the second for He."""
    rng = np.random.default_rng(0)
    acc = np.zeros((2, 3, L, S))
    base = {"glorot": 0.5, "he": 0.6, "glorot+lsc": 0.7}
    for i, init in enumerate(ffn_mnist.INITS):
        acc[:, i] = base[init]
    acc[0, 2, 0] += 0.02  # relu, LSC best at the largest lr
    acc[0, 1, 1] += 0.02  # relu, He best at the second
    acc[1, 2, 1] = 0.55  # cos, lr 2: LSC below He (above Glorot)
    return acc + 0.01 * rng.standard_normal(acc.shape) * 0.1


def test_comparisons_on_cell_means():
    acc = made_up()
    v = ffn_mnist.compare(acc, ["relu", "cos"], LRS4)
    assert v["n_cells"] == 8 and (v["best_k"], v["best_n"]) == (
        7,
        8,
    )  # cells, not trials
    assert v["best_lo"] == pytest.approx(wilson_interval(7, 8).lo)
    assert 0 <= v["best_lo"] < v["best_hi"] <= 1
    assert v["best_acc"] == pytest.approx(acc.mean(-1).max())
    d = (acc[:, 2] - acc[:, 0]).reshape(-1, 3).mean(0)
    half = stats.t.ppf(0.975, 2) * d.std(ddof=1) / np.sqrt(3)
    assert v["gl_lo"] == pytest.approx(d.mean() - half) and v["frac_glorot"] == 1.0
    # ReLU: LSC 0.72 vs He 0.62 at their best -> 0.1; LSC's best lr half a decade higher
    assert v["attempted"] and v["he_diff_mean"] == pytest.approx(0.1, abs=0.01)
    assert v["lr_seeds"] == pytest.approx([0.5] * 3, abs=0.01) and v["he_best"] > 0.6
    assert "LSC - He" in v["relu"]


def test_cell_means_not_seed_wins():
    """A cell is won on its mean over seeds: LSC far ahead in one seed and just behind in two
    wins the cell (a count of per-seed wins would say 1 in 3)."""
    acc = made_up()
    acc[1, 2, 0] = [0.9, 0.59, 0.59]  # cos, lr 1: mean 0.693 above He's 0.6
    v = ffn_mnist.compare(acc, ["relu", "cos"], LRS4)
    assert (v["best_k"], v["best_n"]) == (7, 8)


def test_untrained_arms_lose_and_ties_leave():
    """A Glorot arm at chance stays in (LSC's improvement there is the paper's effect); an LSC
    arm at chance loses; a cell where no arm trains is left out; a seed whose LSC net is the
    Glorot net (pre-training stopped at its first check) is a tie and leaves every comparison."""
    acc = made_up()
    acc[1, 0] = 0.1  # cos: Glorot untrained at every lr: still compared
    acc[0, 2, 2] = 0.1  # relu, lr 3: LSC untrained: it loses that cell
    acc[1, :, 3] = 0.1  # cos, lr 4: no arm trains: left out
    same = np.array([[True, False, False], [False, False, False]])  # relu, seed 0
    v = ffn_mnist.compare(acc, ["relu", "cos"], LRS4, same)
    assert v["cells_left_out"] == 1 and v["best_n"] == 7 and v["best_k"] == 5
    assert v["gl_n"] == 7 and v["gl_k"] == 6 and v["n_identical"] == 1
    assert len(v["gl_seeds"]) == 3
    # seed 0 compares only the cos cells (its relu LSC net is the Glorot net)
    cos = acc[1, 2, :3, 0] - acc[1, 0, :3, 0]
    assert v["gl_seeds"][0] == pytest.approx(cos.mean())
    # the discrete learning-rate shift: a share of seeds with an exact interval, never zero-width
    assert "exact 95% interval" in v["relu"]
    k = sum(x > 0 for x in v["lr_seeds"])
    n = sum(x != 0 for x in v["lr_seeds"])
    assert f"higher in {k / n:.0%} of the {n} seeds that prefer a side" in v["relu"]


def test_per_cell_differences_pair_the_seeds_and_leave_ties():
    """The per-cell statistics of Fig. 2: per compared cell, over its non-tied seeds,
    Glorot+LSC - Glorot and Glorot+LSC minus the better of Glorot and He, seed by seed."""
    acc = made_up()
    acc[1, :, 3] = 0.1  # cos, lr 4: no arm trains: no cell
    same = np.array([[True, False, False], [False, False, False]])  # relu, seed 0
    v = ffn_mnist.compare(acc, ["relu", "cos"], LRS4, same)
    assert len(v["cells"]) == 8 and len(v["relu_cells"]) == 4  # every cell that exists
    cos4 = (
        f"cos, lr {LRS4[3]:g}"  # no arm trains there: the claims' setting rule sees it
    )
    assert max(np.mean(x) for x in v["cell_acc"][cos4].values()) < 2 * ffn_mnist.CHANCE
    relu0 = f"relu, lr {LRS4[0]:g}"
    assert v["cell_acc"][relu0]["he"] == pytest.approx(acc[0, 1, 0])  # ties included
    assert v["cells"][0] == relu0
    gl, he, lsc = acc[0, 0, 0], acc[0, 1, 0], acc[0, 2, 0]
    assert v["cell_gl"][relu0] == pytest.approx((lsc - gl)[1:])  # seed 0 a tie
    assert v["cell_best"][relu0] == pytest.approx((lsc - np.maximum(gl, he))[1:])
    cos1 = f"cos, lr {LRS4[1]:g}"
    assert len(v["cell_best"][cos1]) == 3 and max(v["cell_best"][cos1]) < 0


def test_untrained_lsc_seed_is_not_higher():
    acc = made_up()
    acc[0, 2, :, 1] = 0.1  # relu, seed 1: LSC at chance at every lr
    v = ffn_mnist.compare(acc, ["relu", "cos"], LRS4)
    assert v["lsc_untrained"] == 1 and v["lr_seeds"][1] < 0 and v["lr_seeds"][0] > 0
    assert v["he_best"] > 0.6  # the gate reads He only


def test_identical_networks_never_count():
    """Every seed of an activation tied: its cells leave the statistic."""
    acc = made_up()
    acc[0, 2] = acc[0, 0]  # relu: LSC net is the Glorot net in every seed
    same = np.array([[True] * 3, [False] * 3])
    v = ffn_mnist.compare(acc, ["relu", "cos"], LRS4, same)
    assert (v["best_k"], v["best_n"]) == (3, 4) and v["n_identical"] == 3


def test_relu_claim_needs_four_learning_rates():
    v = ffn_mnist.compare(made_up(L=2), ["relu", "cos"], LRS4[:2])
    assert v["attempted"] is False and "needs 4" in v["relu"]
    nan = made_up()
    nan[:, :, 3] = np.nan  # no cell at the smallest lr
    v = ffn_mnist.compare(nan, ["relu", "cos"], LRS4)
    assert v["attempted"] is False and v["n_cells"] == 6


def test_relu_runs_its_own_learning_rates():
    g = grid(acts=["relu", "cos"], lrs=[1e-3], relu_lrs=[1e-2, 3e-3, 3e-4])
    assert g.all_lrs == [1e-2, 3e-3, 1e-3, 3e-4] and g.lrs_of("cos") == [1e-3]
    assert len(ffn_mnist.members(g, "relu")) == 3 * 4 * 2
    assert g.key("mnist", "relu")["lrs"] == g.all_lrs and "relu_lrs" not in g.key(
        "x", "cos"
    )


def test_tiny_grid_runs_and_is_cached(tmp_path, monkeypatch):
    monkeypatch.setenv("RNNBOOK_BUILD_DIR", str(tmp_path))
    data = fake_data((16, 8, 8))
    g = grid()
    runs = ffn_mnist.run_grid(g, data, "fashion-mnist")
    res = runs.results["relu"]
    assert len(res["test_acc"]) == len(g.checkpoint_steps()) == 2
    assert len(res["test_acc"][0]) == 3 * 2 * 2 and len(res["pretrain"]) == 2
    assert runs.accuracy().shape == (1, 3, 2, 2) and runs.steps == [2, 4]
    assert "relu seed 1" in runs.pretrain_summary()
    assert runs.table().count("\n") == 3
    c = runs.comparisons()
    assert c["dataset"] == "Fashion-MNIST" and c["budget"] == 4 and "seeds" not in c
    assert runs.trend()["best_mean"].shape == (2,)

    def fail(*a, **k):
        raise AssertionError("should have been read from the cache")

    monkeypatch.setattr(ffn_mnist, "run_act", fail)
    again = ffn_mnist.run_grid(g, data, "fashion-mnist")
    assert again.results == runs.results
    with pytest.raises(AssertionError, match="cache"):  # another data set: another key
        ffn_mnist.run_grid(g, data, "mnist")


def test_image_splits_are_disjoint_and_scaled():
    s = ffn_mnist.image_splits("fashion-mnist", 50, 20, 30, seed=1)
    assert s.xtr.shape == (50, 784) and s.xte.shape == (30, 784)
    assert 0 <= float(s.xtr.min()) and float(s.xtr.max()) <= 1
    with pytest.raises(ValueError, match="dataset"):
        ffn_mnist.image_splits("cifar10", 1, 1, 1)
