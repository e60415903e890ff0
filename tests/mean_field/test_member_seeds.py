"""Member seeds of the training chapter (issue 50): every draw of seed s comes from member s of
the master seed (rnnbook.seeds.member_seed) through its own streams
(rnnbook.mean_field.trainability.stream_seed), so that two master seeds never share a draw and a
member trains the same networks on the same data alone (a shard of a record) as inside a longer
run. The equalities below are bit for bit; they hold where each network's block of a batched
tensor is a whole number of vector lanes (widths that are multiples of 16, as every profile's)."""

import itertools

import numpy as np
import pytest
import torch

from rnnbook.mean_field import language_model as lm
from rnnbook.mean_field import trainability as tr
from rnnbook.mean_field import training_speed as ts
from rnnbook.seeds import member_seed, member_seeds

torch.set_num_threads(1)


def test_stream_seeds_are_apart_for_every_seed_stream_and_key():
    seen = {}
    masters, members, streams = range(6), range(0, 1100, 50), ("a weights", "a batches")
    for master, s, stream, key in itertools.product(masters, members, streams, (3, 8)):
        x = tr.stream_seed(member_seed(master, s), stream, key)
        assert 0 <= x < 2**63
        assert seen.setdefault(x, (master, s, stream, key)) == (master, s, stream, key)
    assert tr.stream_seed(5, "a", 1) == tr.stream_seed(5, "a", 1)  # deterministic
    with pytest.raises(ValueError, match="stream_seed"):
        tr.stream_seed(-1, "a")


def test_two_master_seeds_never_share_a_member_draw():
    """The old offsets (seed + 100 s, seed + 7, ...) gave master 0's seed 1 the draws of master
    100's seed 0; member seeds do not."""
    pairs = [(0, 1), (100, 0), (1, 0), (0, 1000)]
    weights = [
        tr.member_streams([member_seed(m, s)], "grid vanilla", 3, 4)[0]
        for m, s in pairs
    ]
    flat = [w for ws in weights for w in ws]
    assert len(set(flat)) == len(flat)
    X = torch.rand(40, 784, generator=torch.Generator().manual_seed(0))
    maps = [ts.seed_setups(X, 49, 16, 0.5, m, 1, s)[0].Wx for m, s in pairs]
    for a, b in itertools.combinations(maps, 2):
        assert not torch.equal(a, b)


def test_a_grid_network_is_drawn_alike_in_any_grid_that_holds_it():
    specs = [tr.InitSpec(1.2, 0.5, 0.1, 0.2, tied=t, h0_var=0.3) for t in (True, False)]
    members = member_seeds(7, 0, 3)
    seeds, _ = tr.member_streams(members, "grid minimal", len(specs), 5)
    all_specs, groups = tr.replicate(specs, 3)
    big = tr.GridRNN("minimal", all_specs, 16, 6, 5, groups=groups, net_seeds=seeds)
    one = tr.GridRNN("minimal", specs, 16, 6, 5, net_seeds=seeds[4:6])  # member 2 alone
    assert seeds[4:6] == tr.member_streams(members[2:], "grid minimal", 2, 5)[0]
    for name in ("W_tied", "V_tied", "b_tied", "W_untied", "V_untied", "b_untied"):
        torch.testing.assert_close(
            big.params[name][2], one.params[name][0], rtol=0, atol=0
        )
    for name in ("Wx", "C"):
        torch.testing.assert_close(
            big.params[name][4:6], one.params[name], rtol=0, atol=0
        )
    torch.testing.assert_close(big.h0[4:6], one.h0, rtol=0, atol=0)


def _grid(start: int, n: int, budget=None) -> np.ndarray:
    g = torch.Generator().manual_seed(0)
    X, Y = torch.randn(128, 9, generator=g), torch.randint(0, 10, (128,), generator=g)
    specs = [
        tr.InitSpec(sw, 1.39, mu, tied=t)
        for t in (False, True)
        for sw, mu in ((0.8, 0), (6.9, 4))
    ]
    kw = dict(input_scale2=0.46, n_eval=32, n_seeds=n, n_checkpoints=2, budget=budget)
    return tr.trainability_grid(
        "minimal", specs, [2, 4], X, Y, 16, 16, 12, 3e-3, 5, seed_start=start, **kw
    )[1]


def test_a_member_trains_alike_alone_and_inside_a_longer_run():
    whole = _grid(0, 3)  # (checkpoints, depths, seeds, networks)
    np.testing.assert_array_equal(_grid(1, 2), whole[:, :, 1:])
    np.testing.assert_array_equal(_grid(2, 1, budget=1), whole[:, :, 2:])  # in chunks
    assert not np.array_equal(whole[:, :, 0], whole[:, :, 1])  # seeds differ


def test_a_fig3_member_is_drawn_and_trains_alike_alone():
    g = torch.Generator().manual_seed(1)
    X, Y = torch.rand(120, 784, generator=g), torch.randint(10, (120,), generator=g)
    whole = ts.seed_setups(X, 49, 16, 0.46, 3, 3)
    alone = ts.seed_setups(X, 49, 16, 0.46, 3, 1, seed_start=2)
    assert alone[0].member == whole[2].member == member_seed(3, 2)
    assert torch.equal(alone[0].Wx, whole[2].Wx) and alone[0].R == whole[2].R
    args = ((X, Y), (X[:32], Y[:32]), 16, 6, 3e-3, 16, 0.46)
    a, b = ts.run(whole, *args, n_evals=3), ts.run(alone, *args, n_evals=3)
    for kind in a:
        np.testing.assert_array_equal(a[kind].loss[:, 8:], b[kind].loss)
    jac = ts.vanilla_jacobian_check(alone[0], X, 16, n=4)  # the training's own weights
    assert jac == ts.vanilla_jacobian_check(whole[2], X, 16, n=4)


class _Corpus:
    vocab_size = 12
    train = (np.arange(2000) * 7) % 12
    valid = test = (np.arange(140) * 5) % 12


def test_a_language_model_member_trains_alike_alone():
    whole = lm.compare(_Corpus(), 6, 3, seed=4, n_seeds=2)
    alone = lm.compare(_Corpus(), 6, 3, seed=4, n_seeds=1, seed_start=1)
    for cell in lm.CELLS:
        assert alone[cell][0].test_ppl == whole[cell][1].test_ppl
        assert whole[cell][0].test_ppl != whole[cell][1].test_ppl
