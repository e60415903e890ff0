"""The ensemble trainer against independent computations: each member's forward equals its own
network's, a trained member equals the same network trained alone by ``experiments.fit``, the
per-member clip equals torch's ``clip_grad_norm_``, and the evaluation equals
``experiments.evaluate_seq``."""

import numpy as np
import pytest
import torch
from torch import nn

from rnnbook.lsc import ensemble, experiments, models, tasks

torch.set_num_threads(1)


def spike_task(n=24, T=5, C=6, seed=0):
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, 3, n)
    times = [rng.integers(0, T, 6) for _ in labels]
    chans = [np.concatenate([[2 * y], rng.integers(0, C, 5)]) for y in labels]
    data = tasks.SpikeDataset(times, chans, labels, T, C, 3)
    return tasks.SeqTask("sl-mnist", "classify", C, 3, data, data, data, T)


def word_task(n=16, T=5, vocab=25):
    w = torch.randint(vocab, (n, T + 1), generator=torch.Generator().manual_seed(1))
    return tasks.SeqTask("ptb-standin", "lm", vocab, vocab, w, w[:6], w[:8], T)


@pytest.mark.parametrize("kind", models.RNN_KINDS)
def test_stacked_forward_equals_each_member(kind):
    x = (
        torch.rand(3, 4, 6, 7, generator=torch.Generator().manual_seed(0)) < 0.3
    ).float()
    ms = [models.make_rnn(kind, 3, 7, 5, 4, seed=s) for s in range(3)]
    y = ensemble.Ensemble(ms).forward(x)
    ref = torch.stack([m(x[e]) for e, m in enumerate(ms)])
    assert torch.allclose(y, ref, atol=1e-5)
    shared = ensemble.Ensemble(ms).forward(x[0], shared=True)
    assert torch.allclose(shared, torch.stack([m(x[0]) for m in ms]), atol=1e-5)


def test_stacked_forward_of_alif_as_printed():
    """The ensemble follows the cell's threshold form (here Eq. (49) as printed)."""
    x = (
        torch.rand(2, 4, 9, 7, generator=torch.Generator().manual_seed(0)) < 0.5
    ).float()
    printed = {"threshold": "printed"}
    ms = [models.make_rnn("alif_plus", 2, 7, 5, 4, s, alif=printed) for s in range(2)]
    ref = torch.stack([m(x[e]) for e, m in enumerate(ms)])
    assert torch.allclose(ensemble.Ensemble(ms).forward(x), ref, atol=1e-5)


def test_stacked_forward_of_word_models():
    x = torch.randint(30, (2, 3, 6), generator=torch.Generator().manual_seed(0))
    for ms in (
        [models.make_rnn("gru", 2, 8, 5, 30, s, vocab=30) for s in range(2)],
        [models.make_lru(2, 30, 8, s).eval() for s in range(2)],
    ):
        ens = ensemble.Ensemble(ms)
        ens.train(False)
        ref = torch.stack([m(x[e]) for e, m in enumerate(ms)])
        assert torch.allclose(ens.forward(x), ref, atol=1e-5)


@pytest.mark.parametrize("kind", ["gru", "alif_plus"])
def test_member_trains_like_a_single_network(kind):
    task = spike_task()
    cfg = ensemble.EnsembleConfig(
        lr=1e-2, batch=4, max_steps=6, eval_every=3, patience=100, data_seeds=(5, 6)
    )
    ms = [models.make_rnn(kind, 2, 6, 5, 3, seed=s) for s in (0, 1)]
    out = ensemble.train(ms, task, cfg)
    single = models.make_rnn(kind, 2, 6, 5, 3, seed=1)
    one = experiments.TrainConfig(
        lr=1e-2, batch=4, max_steps=6, eval_every=3, patience=100, seed=6
    )
    res = experiments.train_seq(single, task, one)
    # the ensemble also considers the initial network; here training improved on it
    assert out[1]["test"]["acc"] == pytest.approx(res["test"]["acc"])
    assert out[1]["best_val"] == pytest.approx(res["best_val"], rel=1e-5)
    assert [h[0] for h in out[1]["history"]] == [0, 3, 6]
    assert [s for s, _ in out[1]["best_test_at"]] == [0, 3, 6]


def test_dropout_runs_do_not_depend_on_the_global_generator():
    """The LRU's dropout draws from torch's global generator, which a fresh process seeds at
    random: a run must come out the same whatever its state, and leave it as it was."""
    cfg = ensemble.EnsembleConfig(
        lr=1e-2, batch=4, max_steps=4, eval_every=2, patience=100, data_seeds=(0, 1)
    )
    outs = []
    for state in (1, 2):
        torch.manual_seed(state)
        ms = [models.make_lru(2, 25, 8, s) for s in range(2)]
        before = torch.random.get_rng_state()
        outs.append(ensemble.train(ms, word_task(), cfg))
        assert torch.equal(torch.random.get_rng_state(), before)
    assert repr(outs[0]) == repr(outs[1])  # repr: the first loss is nan


def test_per_member_clip_equals_clip_grad_norm():
    torch.manual_seed(0)
    grads = [torch.randn(3, 4, 5), torch.randn(3, 7)]
    clips = torch.tensor([0.5, float("inf"), 100.0])
    mine = [g.clone() for g in grads]
    ensemble._clip_(mine, clips)
    for e, c in enumerate(clips):
        ps = [nn.Parameter(torch.zeros_like(g[e])) for g in grads]
        for p, g in zip(ps, grads):
            p.grad = g[e].clone()
        if torch.isfinite(c):
            nn.utils.clip_grad_norm_(ps, float(c))
        for p, m in zip(ps, mine):
            assert torch.allclose(p.grad, m[e], atol=1e-6)


def test_evaluate_equals_evaluate_seq():
    for task, ms in (
        (spike_task(), [models.make_rnn("lstm", 2, 6, 4, 3, seed=s) for s in (0, 1)]),
        (word_task(), [models.make_lru(1, 25, 6, s).eval() for s in (0, 1)]),
    ):
        ens = ensemble.Ensemble(ms)
        got = ensemble.evaluate(ens, ensemble._Split(task, "test"), task.kind, batch=3)
        for e, m in enumerate(ms):
            ref = experiments.evaluate_seq(m, task, "test")
            for k, v in ref.items():
                assert got[k][e] == pytest.approx(v, rel=1e-5)


@pytest.mark.parametrize("budget", [1.0, 2 * 6 * 5 * 25.0, 4e6])
def test_evaluate_in_pieces_of_the_logits_budget(monkeypatch, budget):
    """When the logits of few sequences fit the budget (one or two here, as at the paper's
    vocabulary), the recurrent layers still run on ``MIN_BODY`` sequences at once and the
    logits are made piece by piece: the same metrics as the per-network evaluation."""
    task = word_task(n=40)
    ms = [models.make_rnn("gru", 2, 8, 5, 25, seed=s, vocab=25) for s in range(6)]
    monkeypatch.setattr(ensemble, "LOGITS_BUDGET", budget)
    monkeypatch.setattr(ensemble, "MIN_BODY", 7)
    calls = []
    ens = ensemble.Ensemble(ms)
    features = ens.features
    monkeypatch.setattr(
        ens, "features", lambda x, **k: calls.append(len(x)) or features(x, **k)
    )
    got = ensemble.evaluate(ens, ensemble._Split(task, "train"), task.kind)
    head = max(1, min(256, int(budget // (6 * 5 * 25))))  # 6 networks, T = 5, 25 words
    assert calls[0] == min(40, max(head, -(-7 // head) * head))  # 7, 8 or all 40
    for e, m in enumerate(ms):
        ref = experiments.evaluate_seq(m, task, "train")
        assert got["ppl"][e] == pytest.approx(ref["ppl"], rel=1e-5)


def test_twins_are_evaluated_once_with_the_same_numbers(monkeypatch):
    """Members equal to an earlier one (a clipped run and its unclipped twin before training)
    are evaluated once; every member gets the numbers of evaluating the whole ensemble."""
    task = word_task()
    ms = [models.make_lru(1, 25, 6, s).eval() for s in (0, 1, 0, 2, 1)]
    ens = ensemble.Ensemble(ms)
    assert list(ens.twins()) == [0, 1, 0, 3, 1]
    full = ensemble.evaluate(ens, ensemble._Split(task, "test"), task.kind)
    sizes, evaluate = [], ensemble.evaluate
    monkeypatch.setattr(
        ensemble,
        "evaluate",
        lambda e, *a, **k: sizes.append(e.n) or evaluate(e, *a, **k),
    )
    cfg = ensemble.EnsembleConfig(lr=1e-2, batch=4, max_steps=0)
    out = ensemble.train(ms, task, cfg)
    assert sizes == [
        3,
        3,
    ]  # validation and test, at step 0, of the three distinct members
    for e, r in enumerate(out):
        assert (
            r["test"]["ppl"] == full["ppl"][e] and r["test"]["loss"] == full["loss"][e]
        )


def test_clipped_members_train_apart():
    task = word_task()
    ms = [models.make_lru(1, 25, 6, 0) for _ in range(2)]
    cfg = ensemble.EnsembleConfig(
        lr=1e-2, batch=4, max_steps=4, eval_every=2, patience=1, clips=(None, 1e-3)
    )
    out = ensemble.train(ms, task, cfg)
    assert out[0]["history"] != out[1]["history"]  # same start, different clipping
    assert all(np.isfinite(o["best_val"]) for o in out)
    assert len(ensemble.source_hash()) == 16
