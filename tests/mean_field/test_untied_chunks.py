"""The untied Monte Carlo of Fig. 1 in chunks of networks (minimal_rnn.untied_chunks): a budget
that holds every network gives the same draws as before; a small one splits the networks into
chunks with their own generators, and gives the same statistics within Monte Carlo error."""

import numpy as np
import pytest
import torch

from rnnbook.mean_field import minimal_rnn, vanilla_rnn
from rnnbook.mean_field.theory import HP

S = np.linspace(0.2, 1.0, 8)


def test_chunks_and_their_generators():
    seen = []

    def run(s, g):
        seen.append((s, g.initial_seed()))
        return {"x": torch.arange(s.start, s.stop)[:, None]}

    per = minimal_rnn.UNTIED_COPIES * 2 * 4 * 8  # one network of width 4, float64
    out = minimal_rnn.untied_chunks(5, 4, torch.float64, 7, run, budget=2 * per)
    assert [s for s, _ in seen] == [slice(0, 2), slice(2, 4), slice(4, 5)]
    assert seen[0][1] == 7 and len({g for _, g in seen}) == 3
    assert out["x"].ravel().tolist() == [0, 1, 2, 3, 4]


@pytest.mark.parametrize("module", [minimal_rnn, vanilla_rnn])
def test_chunked_monte_carlo(module):
    hp = HP(1.2, 1.0, 0.3, 0.5, 0.1)
    args = (S, hp, 64, 48, False, 3, 0.7, 0.3)
    one = module.simulate_pair(*args)
    same = module.simulate_pair(*args, budget=10**9)
    assert all(np.array_equal(one[k], same[k]) for k in one)
    per = minimal_rnn.UNTIED_COPIES * 2 * 64 * 8
    split = module.simulate_pair(*args, budget=10 * per)  # 5 chunks of <= 10 networks
    assert split["q"].shape == one["q"].shape
    assert not np.array_equal(split["q"], one["q"])
    for k in ("q", "c"):
        a, b = one[k][0, :, -1], split[k][0, :, -1]
        se = np.sqrt(a.var(ddof=1) / len(a) + b.var(ddof=1) / len(b))
        assert abs(a.mean() - b.mean()) < 4 * se + 1e-12
