"""The language models of Table 1 (rnnbook.mean_field.language_model) and the Austen corpus."""

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
