"""Monte Carlo of random minimalRNNs (rnnbook.mean_field.minimal_rnn)."""

import numpy as np
import pytest
import torch

from rnnbook.mean_field import minimal_rnn, theory, vanilla_rnn


def test_gram_sampler_matches_explicit_untied_weights():
    """The O(N) sampler of untied pre-activations has the law of explicit fresh weight matrices."""
    hp = theory.HP(3.0, 1.0, 1.0, 0.46)
    Q = float(theory.minimal_fixed_point(hp)[0])
    Sig = [0.0, 0.0, 1.0, 1.0]
    kw = dict(N=48, K=300, tied=False, Q0=Q)
    a = minimal_rnn.simulate_pair(Sig, hp, seed=1, **kw)
    b = minimal_rnn.simulate_pair(Sig, hp, seed=2, exact_untied=True, **kw)
    for key in ("c", "q"):
        ma, mb = a[key].mean(1), b[key].mean(1)
        se = np.sqrt(a[key].var(1) / 300 + b[key].var(1) / 300)
        assert np.all(np.abs(ma - mb) <= 4.5 * se + 1e-12)
        np.testing.assert_allclose(a[key].std(1), b[key].std(1), rtol=0.25)


def test_untied_minimal_mc_follows_the_maps():
    hp = theory.HP(6.88, 1.39, np.array([-2.0, 3.0]), 0.46)
    Q = theory.minimal_fixed_point(hp)[0]
    Sig = np.where(np.arange(1, 21) < 10, 0.0, 1.0)
    th = theory.minimal_trajectory(Sig, hp)
    mc = minimal_rnn.simulate_pair(Sig, hp, N=512, K=24, tied=False, seed=3, Q0=Q)
    se = mc["c"].std(1, ddof=1) / np.sqrt(24)
    assert np.all(np.abs(mc["c"].mean(1) - th["c"]) <= 4 * se + 0.01)


def test_input_map_scale_gives_the_second_moment():
    v = minimal_rnn.input_map_scale(0.46)
    assert abs(float(theory.gauss1(lambda u: np.tanh(u) ** 2, 0.0, v)) - 0.46) < 1e-10
    with pytest.raises(ValueError, match="R"):
        minimal_rnn.input_map_scale(1.5)


def test_network_chunks_cover_the_networks_within_the_budget():
    one = 2 * 64 * 64 * 8  # W and V of one float64 network of width 64
    for budget, size in [(10 * one, 10), (3 * one + 5, 3), (one - 1, 1)]:
        parts = minimal_rnn.network_chunks(25, 64, torch.float64, budget)
        assert [i for s in parts for i in range(s.start, s.stop)] == list(range(25))
        assert max(s.stop - s.start for s in parts) == size
    assert minimal_rnn.network_chunks(7, 64, torch.float64, 10 * one) == [slice(0, 7)]


def test_tied_mc_run_in_chunks_has_the_law_of_one_batch(monkeypatch):
    """The paper's widths hold the tied weights chunk by chunk: same law as one batch."""
    hp = theory.HP(3.0, 1.0, np.array([0.0, 2.0]), 0.46)
    Sig = np.where(np.arange(1, 9) < 5, 0.0, 1.0)
    kw = dict(N=32, K=150, tied=True, Q0=0.3)
    whole = minimal_rnn.simulate_pair(Sig, hp, seed=1, **kw)
    monkeypatch.setattr(minimal_rnn, "CHUNK_BYTES", 7 * 2 * 32 * 32 * 8)
    assert len(minimal_rnn.network_chunks(300, 32, torch.float64)) == 43
    parts = minimal_rnn.simulate_pair(Sig, hp, seed=2, **kw)
    for key in ("c", "q", "C"):
        assert parts[key].shape == whole[key].shape == (2, 150, 8)
        ma, mb = whole[key].mean(1), parts[key].mean(1)
        se = np.sqrt(whole[key].var(1) / 150 + parts[key].var(1) / 150)
        assert np.all(np.abs(ma - mb) <= 4.5 * se + 1e-12)


def test_tied_mc_budget_is_a_parameter():
    """``budget`` chunks the tied weights as CHUNK_BYTES does: the same networks as a
    monkeypatched CHUNK_BYTES of that size, and one batch (the default draws) when all fit."""
    hp = theory.HP(3.0, 1.0, np.array([0.0, 2.0]), 0.46)
    Sig, kw = np.zeros(4), dict(N=16, K=5, tied=True, seed=3, Q0=0.3)
    one = 2 * 16 * 16 * 8
    whole = minimal_rnn.simulate_pair(Sig, hp, **kw)
    fits = minimal_rnn.simulate_pair(Sig, hp, budget=10 * one, **kw)
    split = minimal_rnn.simulate_pair(Sig, hp, budget=3 * one, **kw)
    van = vanilla_rnn.simulate_pair(Sig, hp, 16, 5, True, 3, 0.3, budget=3 * one)
    np.testing.assert_array_equal(fits["c"], whole["c"])
    assert not np.array_equal(split["c"], whole["c"]) and van["c"].shape == (2, 5, 4)
    with pytest.MonkeyPatch.context() as m:
        m.setattr(minimal_rnn, "CHUNK_BYTES", 3 * one)
        np.testing.assert_array_equal(
            minimal_rnn.simulate_pair(Sig, hp, **kw)["c"], split["c"]
        )
