"""The language models of Table 1 (rnnbook.mean_field.language_model) and the Austen corpus."""

import numpy as np
import pytest
import torch

from rnnbook import datasets
from rnnbook.mean_field import language_model as lm


def test_language_model_parameter_counts_and_minimal_layer():
    for cell in lm.CELLS:
        model = lm.LanguageModel(cell, 50, 8, 12)
        n = sum(p.numel() for p in model.parameters())
        assert n == lm.total_parameters(cell, 50, 8, 12)
    target = lm.total_parameters("LSTM", 1000, 64, 96)
    for cell in lm.CELLS:
        n = lm.matched_hidden_size(cell, 1000, 64, target)
        assert abs(lm.total_parameters(cell, 1000, 64, n) - target) / target < 0.01
    layer = lm.MinimalRNNLayer(3, 4)
    x, h0 = torch.randn(5, 2, 3), torch.randn(1, 2, 4)
    y, hT = layer(x, h0)
    h = h0[0]
    for t in range(5):
        xt = torch.tanh(x[t] @ layer.Wx.weight.T)
        u = torch.sigmoid(h @ layer.W.weight.T + xt @ layer.V.weight.T + layer.V.bias)
        h = u * h + (1 - u) * xt
    torch.testing.assert_close(hT[0], h)
    torch.testing.assert_close(y[-1], h)


def _result(cell, ppl):
    return lm.LMResult(cell, 10, 1000, [(1, ppl * 2)], ppl + 1, ppl, 0.0)


def test_perplexity_values_and_table():
    res = {
        c: _result(c, p) for c, p in (("minimalRNN", 110), ("GRU", 100), ("LSTM", 105))
    }
    v = lm.perplexity_values(res)
    assert v["ranking"] == ["GRU", "LSTM", "minimalRNN"]
    assert v["gap_gru"] == pytest.approx(0.1) and v["gap_best"] == pytest.approx(0.1)
    assert "| GRU | 10 | 1,000 | 101.0 | 100.0 | 99.5 |" in lm.table(res)


def test_corpus_subset_and_bad_novel():
    with pytest.raises(ValueError, match="names"):
        datasets.austen_novels(("ulysses",))


def _corpus():
    rng = np.random.default_rng(0)
    ids = rng.integers(0, 12, 3000)
    ids[ids > 8] = 0  # a skewed unigram distribution
    return datasets.WordCorpus(
        ids[:2000], ids[2000:2500], ids[2500:], tuple(f"w{i}" for i in range(12)), "toy"
    )


def test_compare_over_seeds_with_checkpoints_and_the_unigram_baseline():
    corpus = _corpus()
    runs = lm.compare(corpus, 6, 4, seed=0, n_seeds=2, n_checkpoints=2)
    assert [len(r) for r in runs.values()] == [2, 2, 2]
    assert [s for s, _ in runs["GRU"][0].test_curve] == [2, 4]
    assert runs["GRU"][0].test_ppl != runs["GRU"][1].test_ppl  # seeds differ
    # the unigram perplexity, counted by hand with add-one smoothing
    counts = np.bincount(corpus.train, minlength=12) + 1.0
    p = counts / counts.sum()
    ref = np.exp(-np.mean(np.log(p[corpus.test])))
    assert lm.unigram_perplexity(corpus) == pytest.approx(ref)
    assert lm.unigram_perplexity(corpus, 100) == pytest.approx(
        np.exp(-np.mean(np.log(p[corpus.test[:100]])))
    )
    v = lm.seed_values(runs, 50.0)
    gaps = [
        runs["minimalRNN"][s].test_ppl
        / min(runs["GRU"][s].test_ppl, runs["LSTM"][s].test_ppl)
        - 1
        for s in range(2)
    ]
    assert v["gap"]["mean"] == pytest.approx(np.mean(gaps), abs=1e-4)
    assert v["trend_steps"] == [2, 4] and len(v["trend_gap"]) == 2
    assert v["trend_gap"][-1] == v["gap"]
    lv = lm.ledger_values(v)
    assert "n_seeds" not in lv and lv["trend"][0].startswith("2: ")
    assert lm.seed_mean(runs)["LSTM"].test_ppl == pytest.approx(
        np.mean([r.test_ppl for r in runs["LSTM"]])
    )


def _lm_result(ppl: float) -> lm.LMResult:
    return lm.LMResult("cell", 4, 10, [(1, ppl)], ppl, ppl, 0.0, [(1, ppl)])


def test_comparable_ratios_and_an_untrained_minimal_rnn_counts_against_it():
    """The claim's statistics: the minimalRNN's perplexity relative to each reference model,
    per seed; a minimalRNN that did not train (perplexity at the unigram's) lies far outside
    any band of 'comparable', while the gate reads only the reference models."""
    runs = {
        "LSTM": [_lm_result(95.0), _lm_result(96.0)],
        "GRU": [_lm_result(100.0), _lm_result(98.0)],
        "minimalRNN": [_lm_result(101.0), _lm_result(99.0)],
    }
    v = lm.seed_values(runs, 300.0)
    assert v["min_gru_rel"]["seeds"] == pytest.approx([0.01, 99 / 98 - 1], abs=1e-6)
    assert v["min_lstm_rel"]["seeds"] == pytest.approx(
        [101 / 95 - 1, 99 / 96 - 1], abs=1e-6
    )
    assert v["ref_ppl"] == {"GRU": [100.0, 98.0], "LSTM": [95.0, 96.0]}  # per seed
    assert v["min_gru_rel"] == {"seeds": v["min_gru_rel_iv"]["seeds"]}
    assert v["ranking"] == ["LSTM", "GRU", "minimalRNN"]
    runs["minimalRNN"] = [
        _lm_result(300.0),
        _lm_result(290.0),
    ]  # at the unigram's: untrained
    bad = lm.seed_values(runs, 300.0)
    assert min(bad["min_gru_rel"]["seeds"]) > 1.0  # far outside a band of 0.1
    assert bad["ref_ppl"] == v["ref_ppl"]  # the gate does not read the compared arm
