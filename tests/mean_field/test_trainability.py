"""Batched training of many small RNNs (rnnbook.mean_field.trainability)."""

import numpy as np
import torch

from rnnbook.mean_field import trainability as tr


def test_grid_rnn_matches_a_hand_written_recurrence():
    specs = [
        tr.InitSpec(2.0, 1.0, 1.0, 0.0, tied=True, h0_var=0.3),
        tr.InitSpec(1.0, 0.5, -1.0, 0.0, tied=False),
    ]
    net = tr.GridRNN("minimal", specs, N=6, M=5, steps=4, seed=0)
    x = torch.randn(4, 3, 5)
    logits = net.forward(x)
    P = net.params
    h = net.h0[0].expand(3, 6).clone()
    for t in range(4):
        xt = torch.tanh(x[t] @ P["Wx"][0].T)
        u = torch.sigmoid(h @ P["W_tied"][0].T + xt @ P["V_tied"][0].T + P["b_tied"][0])
        h = u * h + (1 - u) * xt
    torch.testing.assert_close(logits[0], h @ P["C"][0] + P["d"][0])
    h = net.h0[1].expand(3, 6).clone()
    for t in range(4):  # untied: the step-t weights
        xt = torch.tanh(x[t] @ P["Wx"][1].T)
        e = h @ P["W_untied"][0, t].T + xt @ P["V_untied"][0, t].T
        u = torch.sigmoid(e + P["b_untied"][0, t])
        h = u * h + (1 - u) * xt
    torch.testing.assert_close(logits[1], h @ P["C"][1] + P["d"][1])
    van = tr.GridRNN("vanilla", [tr.InitSpec(1.0, 1.0)], N=4, M=5, steps=4, seed=1)
    V = van.params
    hv = torch.zeros(3, 4)
    for t in range(4):
        hv = torch.tanh(
            hv @ V["W_tied"][0].T + x[t] @ V["V_tied"][0].T + V["b_tied"][0]
        )
    torch.testing.assert_close(van.forward(x)[0], hv @ V["C"][0] + V["d"][0])


def test_boundary_and_rules():
    acc = np.array([[0.9, 0.9, 0.1], [0.8, 0.2, 0.1], [0.3, 0.1, 0.1]])
    np.testing.assert_array_equal(tr.depth_boundary(acc, [2, 4, 8], 0.5), [4, 2, 0])
    ag, k = tr.tau_rule_agreement(
        acc, [2, 4, 8], np.array([4.0, 2.0, 0.5]), 0.5, multiples=[1.0]
    )
    assert ag == 1.0 and k == 1.0
    ag0, _ = tr.constant_rule_agreement(acc, [2, 4, 8], 0.5)
    assert ag0 < 1.0


def test_spearman_against_scipy():
    from scipy.stats import spearmanr

    rng = np.random.default_rng(0)
    a, b = rng.integers(0, 4, 12), rng.normal(size=12)
    assert abs(tr.spearman(a, b) - spearmanr(a, b).statistic) < 1e-12
    assert np.isnan(tr.spearman(np.ones(3), [1, 2, 3]))


def test_steps_to_reach():
    acc = np.array([[0.1, 0.6], [0.7, 0.8]])
    np.testing.assert_array_equal(tr.steps_to_reach([5, 10], acc, 0.65), [10, 10])
    assert np.isinf(tr.steps_to_reach([5, 10], acc, 0.9)).all()


def _by_hand(kind, P, k, x, h):
    """Network k of a grid with tied weights, written out step by step (Eqs. 1 and 5)."""
    W, V, b = P["W_tied"][k], P["V_tied"][k], P["b_tied"][k]
    for t in range(x.shape[0]):
        if kind == "vanilla":
            h = torch.tanh(h @ W.T + x[t] @ V.T + b)
        else:
            xt = torch.tanh(x[t] @ P["Wx"][k].T)
            u = torch.sigmoid(h @ W.T + xt @ V.T + b)
            h = u * h + (1 - u) * xt
    return h @ P["C"][k] + P["d"][k]


def test_tied_ensemble_with_one_data_stream_per_seed():
    gen = torch.Generator().manual_seed(3)
    specs, groups = tr.replicate(
        [tr.InitSpec(1.5, 1.0, 0.5, 0.0, h0_var=0.2), tr.InitSpec(0.8, 0.7)], 3
    )
    assert groups == [0, 0, 1, 1, 2, 2] and specs[2] is specs[0]
    x = torch.randn(5, 3, 4, 6, generator=gen)  # (steps, seeds, batch, inputs)
    y = torch.randint(0, 10, (3, 4), generator=gen)
    for kind in ("vanilla", "minimal"):
        net = tr.GridRNN(kind, specs, N=7, M=6, steps=5, seed=1, groups=groups)
        logits = net.forward(x)
        for k, g in enumerate(groups):  # network k reads the stream of its seed g
            h = net.h0[k].expand(4, 7)
            torch.testing.assert_close(
                logits[k], _by_hand(kind, net.params, k, x[:, g], h)
            )
        shared = net.forward(
            x[:, 0]
        )  # one stream for all: every network reads seed 0's
        h = net.h0[3].expand(4, 7)
        torch.testing.assert_close(shared[3], _by_hand(kind, net.params, 3, x[:, 0], h))
        loss, acc = tr.losses_and_accuracy(logits, net.labels(y))
        ref = torch.nn.functional.cross_entropy(logits[5], y[2])
        torch.testing.assert_close(loss[5], ref)
        assert acc.shape == (6,)


def test_checkpoints_and_interval():
    assert tr.checkpoints(150, 4) == [38, 75, 112, 150]
    assert tr.checkpoints(3, 8) == [1, 2, 3]
    iv = tr.interval([0.1, 0.2, 0.3])
    half = 4.302652729911275 * 0.1 / np.sqrt(3)  # t_{0.975, 2} x s / sqrt(n)
    assert iv["n"] == 3 and abs(iv["mean"] - 0.2) < 1e-12
    assert abs(iv["hi"] - (0.2 + half)) < 1e-4 and abs(iv["lo"] - (0.2 - half)) < 1e-4
    assert tr.trend_text([5], [iv])[0].startswith("5: 0.200 [")


def test_grid_chunks_keep_each_chunk_within_the_memory_budget(monkeypatch):
    specs = [tr.InitSpec(1.0, 1.0, tied=t) for t in (True, False, False, True)] * 3
    one = {
        t: tr.network_bytes(tr.InitSpec(1.0, 1.0, tied=t), 8, 5, 20, 4) for t in (0, 1)
    }
    assert one[0] > one[1]  # an untied network holds one cell per step
    assert tr.grid_chunks(specs, 8, 5, 20, 4) == [slice(0, 12)]  # it fits: one grid
    monkeypatch.setattr(tr, "GRID_BYTES", one[0] + one[1])
    parts = tr.grid_chunks(specs, 8, 5, 20, 4)
    assert [i for p in parts for i in range(p.start, p.stop)] == list(range(12))
    for p in parts:
        used = sum(tr.network_bytes(s, 8, 5, 20, 4) for s in specs[p])
        assert used <= tr.GRID_BYTES or p.stop - p.start == 1


def test_a_grid_trained_in_chunks_is_deterministic_and_keeps_its_shape(monkeypatch):
    gen = torch.Generator().manual_seed(0)
    X, Y = torch.randn(64, 6, generator=gen), torch.randint(0, 10, (64,), generator=gen)
    specs = [tr.InitSpec(1.2, 0.5, tied=t) for t in (True, False)]
    kw = dict(N=5, batch=4, steps=3, lr=1e-2, seed=4, n_eval=16, n_seeds=2)
    at, whole = tr.trainability_grid("vanilla", specs, [2, 3], X, Y, **kw)
    monkeypatch.setattr(tr, "GRID_BYTES", 1)  # one network per chunk
    at2, parts = tr.trainability_grid("vanilla", specs, [2, 3], X, Y, **kw)
    assert at == at2 and parts.shape == whole.shape == (1, 2, 2, 2)
    again = tr.trainability_grid("vanilla", specs, [2, 3], X, Y, **kw)[1]
    np.testing.assert_array_equal(parts, again)


def test_a_mixed_grid_runs_each_network_on_its_own_weights_and_stream():
    """Tied and untied networks of one grid, each seed with its own data stream: every
    network's logits are those of its own recurrence, written out by hand (the two groups run
    side by side; the untied ones on their step-t weights)."""
    gen = torch.Generator().manual_seed(5)
    specs, groups = tr.replicate(
        [tr.InitSpec(1.1, 0.9, 0.2, 0.1, tied=t) for t in (False, True, False)], 2
    )
    x = torch.randn(4, 2, 3, 6, generator=gen)  # (steps, seeds, batch, inputs)
    for kind in ("vanilla", "minimal"):
        net = tr.GridRNN(kind, specs, N=5, M=6, steps=4, seed=2, groups=groups)
        P, logits = net.params, net.forward(x)
        for k, g in enumerate(groups):
            tied = specs[k].tied
            j = (net.tied_idx if tied else net.untied_idx).index(k)
            h = net.h0[k].expand(3, 5)
            for t in range(4):
                W, V, b = (
                    P[f"{n}_tied"][j] if tied else P[f"{n}_untied"][j, t] for n in "WVb"
                )
                if kind == "vanilla":
                    h = torch.tanh(h @ W.T + x[t, g] @ V.T + b)
                else:
                    xt = torch.tanh(x[t, g] @ P["Wx"][k].T)
                    u = torch.sigmoid(h @ W.T + xt @ V.T + b)
                    h = u * h + (1 - u) * xt
            torch.testing.assert_close(logits[k], h @ P["C"][k] + P["d"][k])
