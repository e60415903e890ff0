"""Pre-training the six RNNs and the three variants of Sec. II-D at tiny size: one shared stream of
batches, the radii before and after, and the summaries the claims are decided on, by hand."""

from types import SimpleNamespace

import numpy as np
import torch

from rnnbook.lsc import convergence

torch.set_num_threads(1)  # tiny models: one thread is the fastest


def counted(x):
    """An endless stream of ``x`` that counts how many batches were taken."""
    n = [0]

    def gen():
        while True:
            n[0] += 1
            yield x

    return gen(), n


def spikes(B=3, T=5, C=3):
    return (
        torch.rand(B, T, C, generator=torch.Generator().manual_seed(0)) < 0.5
    ).float()


def test_pretrain_kinds_share_one_stream():
    x = spikes()
    batches, n = counted(x)
    runs = convergence.pretrain_kinds(
        ["relu_rnn", "alif_plus"], 3, 4, x, batches, max_steps=2, n_times=2, seed=0
    )
    assert list(runs) == [(k, t) for k in ("relu_rnn", "alif_plus") for t in (0.5, 1.0)]
    assert n[0] == sum(rep.steps for rep, _, _ in runs.values())
    rep, before, after = runs[("relu_rnn", 1.0)]
    assert (
        set(before)
        == set(after)
        == {(1, "time"), (1, "depth"), (2, "time"), (2, "depth")}
    )
    assert convergence.kinds_table(runs).count("\n") == 5


def fake(converged, steps=3, radius=0.7):
    return (
        SimpleNamespace(converged=converged, steps=steps, mean_radius=radius),
        {},
        {},
    )


def test_kinds_summary_by_hand():
    runs = {
        ("gru", 0.5): fake(True, 4),
        ("gru", 1.0): fake(False, 9),
        ("alif_plus", 0.5): fake(False, radius=0.91),
        ("alif_plus", 1.0): fake(True),
        ("alif_pm", 0.5): fake(False, radius=0.5),
        ("alif_pm", 1.0): fake(False),
    }
    s = convergence.kinds_summary(runs)
    assert (s["n_conv"], s["n_pairs"], s["steps"]) == (1, 2, "GRU@0.5: 4, GRU@1.0: 9")
    assert (s["n_alif"], s["alif_half"], s["alif_one"]) == (2, 0, 1)
    assert s["alif_radii"] == "ALIF+ 0.91, ALIF± 0.50"


def test_variants_run_the_whole_budget_and_summary_by_hand():
    batches, n = counted(spikes())
    var = convergence.pretrain_variants(3, 4, batches, max_steps=3, n_times=2, seed=0)
    assert list(var) == list(convergence.VARIANTS) and n[0] == 9
    assert all(rep.steps == 3 for rep in var.values())
    hist = {
        name: SimpleNamespace(
            history={"std": [9.0, 9.0, 0.1 * i, 0.3 * i], "mean_dev": [9.0, 9.0, i, i]}
        )
        for i, name in enumerate(convergence.VARIANTS)
    }
    s = convergence.variants_summary(hist, max_steps=8)  # the last 2 steps
    assert s["last"] == 2 and s["sd_gd"] == 0.0 and np.isclose(s["sd_full"], 0.4)
    assert s["md_mult"] == 1.0


def test_summaries_over_seeds_by_hand():
    def rep(conv, hist):
        return SimpleNamespace(
            converged=conv,
            steps=len(hist),
            mean_radius=hist[-1],
            history={"mean_radius": hist},
        )

    by_seed = {
        0: {
            ("gru", 0.5): (rep(True, [0.6, 0.5]), {}, {}),
            ("gru", 1.0): (rep(False, [0.6, 0.7]), {}, {}),
            ("alif_plus", 0.5): (rep(False, [0.9, 0.9]), {}, {}),
            ("alif_plus", 1.0): (rep(True, [0.9, 1.0]), {}, {}),
        },
        1: {
            ("gru", 0.5): (rep(True, [0.6, 0.5]), {}, {}),
            ("gru", 1.0): (rep(True, [0.6, 1.0]), {}, {}),
            ("alif_plus", 0.5): (rep(False, [0.9, 0.8]), {}, {}),
            ("alif_plus", 1.0): (rep(False, [0.9, 0.5]), {}, {}),
        },
    }
    s = convergence.kinds_summary_seeds(by_seed)
    assert (s["n_conv"], s["n_pairs"], s["n_alif"]) == (3, 4, 2)
    assert (s["alif_half"], s["alif_one"], s["n_seeds"]) == (0, 1, 2)
    assert s["conv_mean"] == 0.75 and s["diff_conv"] == 0.75
    assert s["moved"] == 1.0  # the unconverged GRU@1 of seed 0 moved from 0.6 to 0.7
    # per condition and per seed, for the per-condition rule and a record's shards
    assert s["conditions"] == ["GRU at target 0.5", "GRU at target 1"]
    assert s["cond_conv"] == {"GRU at target 0.5": [1, 1], "GRU at target 1": [0, 1]}
    assert s["alif_failed"] == {"ALIF+": [1, 1]}
    var = {
        seed: {
            name: SimpleNamespace(
                history={"std": [1.0, 0.1 * (i + 1)], "mean_dev": [0.5, 0.1 * seed]}
            )
            for i, name in enumerate(convergence.VARIANTS)
        }
        for seed in (0, 1, 2)
    }
    v = convergence.variants_summary_seeds(var, max_steps=4)  # the last step
    assert v["n_seeds"] == 3 and v["gd_toward"] == 1.0
    assert np.isclose(v["dsd_mean"], 0.2) and np.isclose(v["dsd_lo"], 0.2)
    assert np.isclose(v["md_gd"], 0.1) and v["md_gd_lo"] < 0.1 < v["md_gd_hi"]
    assert (
        np.allclose(v["log_sd_ratio_seeds"], np.log(3.0)) and v["full_untrained"] == 0
    )


def test_full_method_that_did_not_move_is_a_loss():
    """A seed whose full method ended farther from the target than it started gets no credit
    for a narrow spread: its log ratio is at least 0 (the gate reads gradient descent only)."""

    def seed(full_dev):
        std = {"gd": [1.0, 0.4], "mult": [1.0, 0.3], "full": [1.0, 0.1]}
        dev = {"gd": [0.5, 0.1], "mult": [0.5, 0.1], "full": [0.5, full_dev]}
        return {
            name: SimpleNamespace(history={"std": std[k], "mean_dev": dev[k]})
            for k, name in zip(("gd", "mult", "full"), convergence.VARIANTS)
        }

    v = convergence.variants_summary_seeds({0: seed(0.1), 1: seed(0.9)}, max_steps=4)
    assert np.isclose(v["log_sd_ratio_seeds"][0], np.log(0.1 / 0.4))
    assert v["log_sd_ratio_seeds"][1] == 0.0 and v["full_untrained"] == 1
    assert v["gd_toward"] == 1.0 and v["full_toward"] == 0.5


def test_pretrain_kinds_over_seeds_draw_their_own_networks(monkeypatch):
    import rnnbook.lsc.tasks as tasks_mod

    x = spikes()
    monkeypatch.setattr(tasks_mod, "random_batches", lambda d, b, s: counted(x)[0])
    by_seed = convergence.pretrain_kinds_seeds(
        ["relu_rnn"], SimpleNamespace(n_channels=3), 4, x, 2, 2, 2, seeds=[0, 1]
    )
    assert list(by_seed) == [0, 1]
    b0 = by_seed[0][("relu_rnn", 1.0)][1]
    b1 = by_seed[1][("relu_rnn", 1.0)][1]
    assert not np.allclose(b0[(1, "time")], b1[(1, "time")])
