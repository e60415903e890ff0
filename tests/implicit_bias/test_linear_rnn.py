"""The linear RNN (1) with the initialization (4): argument checks and the recursion against its
impulse response (9)."""

import pytest
import torch

from rnnbook.implicit_bias import linear_rnn


def test_bad_arguments_are_named():
    with pytest.raises(ValueError, match="nu_W"):
        linear_rnn.init_params(4, 1, 1, -0.3, 1, 1, seed=0)
    with pytest.raises(ValueError, match="n ="):
        linear_rnn.init_params(0, 1, 1, 0.3, 1, 1, seed=0)


def test_forward_is_the_convolution_with_the_impulse_response():
    p = linear_rnn.init_params(7, 3, 2, 0.5, 1.0, 1.0, seed=3)
    x = torch.randn(6, 3, dtype=torch.float64)
    L = linear_rnn.impulse_response(p, 6)
    y = torch.stack([sum(L[j] @ x[t - j] for j in range(t + 1)) for t in range(6)])
    torch.testing.assert_close(linear_rnn.forward(p, x), y)
