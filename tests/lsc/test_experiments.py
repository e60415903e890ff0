"""The experiment runner: mode accuracy by hand, the run cache (reuse and invalidation, keyed by
the code of the run modules), the optimizer wrapper and a sequence task that trains."""

import json

import numpy as np
import torch

from rnnbook.lsc import experiments, models, pretrain, tasks


def test_mode_accuracy_by_hand():
    logits = torch.zeros(2, 5, 3)
    logits[0, :3, 1] = 1  # sample 0: predicts 1 three times, 0 twice
    logits[1, :, 2] = 1  # sample 1: predicts 2 always
    assert experiments.mode_accuracy(logits, torch.tensor([1, 0])) == 0.5
    assert experiments.mode_accuracy(logits, torch.tensor([1, 2])) == 1.0


def test_cache_reuses_and_invalidates(tmp_path):
    calls = []

    def f():
        calls.append(1)
        return {"x": 1.5}

    assert experiments.cached("t", {"a": 1}, f, folder=tmp_path) == {"x": 1.5}
    assert (
        experiments.cached("t", {"a": 1}, f, folder=tmp_path) == {"x": 1.5}
        and len(calls) == 1
    )
    assert experiments.is_cached("t", {"a": 1}, code=f, folder=tmp_path)
    experiments.cached("t", {"a": 2}, f, folder=tmp_path)
    assert len(calls) == 2  # other parameters: recomputed

    def g():  # other code, same parameters: recomputed
        calls.append(2)
        return {"x": 0.0}

    assert (
        experiments.cached("t", {"a": 1}, g, folder=tmp_path) == {"x": 0.0}
        and calls[-1] == 2
    )
    stored = [json.loads(p.read_text()) for p in tmp_path.glob("t-*.json")]
    assert len(stored) == 3 and all("params" in s and "result" in s for s in stored)


def test_lookahead_adabelief_syncs_every_six_steps():
    """Lookahead(k=6, alpha=0.5): after 6 fast steps the weights are slow + 0.5 (fast - slow)."""
    w = torch.nn.Parameter(torch.tensor([1.0]))
    opt = pretrain.make_optimizer([w], lr=0.1)
    w_ref = torch.nn.Parameter(torch.tensor([1.0]))
    ref = pretrain.make_optimizer([w_ref], lr=0.1, lookahead=False)
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
    data = tasks.SpikeDataset(times, chans, labels, T, C, 2)
    task = tasks.SeqTask("toy", "classify", C, 2, data, data, data, T)
    model = models.make_rnn("gru", 1, C, 8, 2, seed=0)
    res = experiments.train_seq(
        model,
        task,
        experiments.TrainConfig(
            lr=1e-2, batch=16, max_steps=60, eval_every=20, patience=3
        ),
    )
    assert res["test"]["acc"] == 1.0


def test_code_hash_covers_the_run_modules(tmp_path, monkeypatch):
    folder = tmp_path / "lsc"
    folder.mkdir()
    for name in experiments.RUN_MODULES:
        (folder / f"{name}.py").write_text(f"# {name}\n")
    monkeypatch.setattr(experiments, "__file__", str(folder / "experiments.py"))
    h = experiments.code_hash()
    (folder / "models.py").write_text("# changed\n")
    assert experiments.code_hash() != h


def test_a_module_as_code_keys_the_cache(tmp_path):
    calls = []

    def run():
        calls.append(1)
        return {"v": 1}

    experiments.cached("m", {"a": 1}, run, code=pretrain, folder=tmp_path)
    assert experiments.is_cached("m", {"a": 1}, code=pretrain, folder=tmp_path)
    assert not experiments.is_cached("m", {"a": 1}, code=models, folder=tmp_path)
    experiments.cached("m", {"a": 1}, run, code=pretrain, folder=tmp_path)
    assert len(calls) == 1


def test_report_summary_is_json():
    assert experiments.report_summary(None) is None
    net = models.make_rnn("relu_rnn", 1, 2, 3, 2, seed=0)
    x = torch.ones(2, 3, 2)
    rep = pretrain.lsc_pretrain_(
        net, iter([x] * 2), config=pretrain.LSCConfig(max_steps=2, n_times=None)
    )
    s = experiments.report_summary(rep)
    json.dumps(s)
    assert s["steps"] == rep.steps and s["converged"] == rep.converged


def test_a_damaged_stored_run_is_run_again(tmp_path):
    """A stored run cut short (a killed write, a full disk) is run again, not a traceback."""
    calls = []

    def fn():
        calls.append(1)
        return {"acc": [0.5, 0.25]}

    first = experiments.cached("demo", {"a": 1}, fn, folder=tmp_path)
    (stored,) = tmp_path.glob("demo-*.json")
    stored.write_text(stored.read_text()[:10])
    again = experiments.cached("demo", {"a": 1}, fn, folder=tmp_path)
    assert first == again == {"acc": [0.5, 0.25]} and len(calls) == 2
    assert experiments.cached("demo", {"a": 1}, fn, folder=tmp_path) == first
    assert len(calls) == 2 and not list(tmp_path.glob(".*tmp"))
