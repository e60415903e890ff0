"""The batched LSC pre-training of many networks against ``pretrain`` run on each alone: the same
steps, stops, radii and parameters (float64: to rounding; float32: the radii to ~1e-6, the
parameters to AdaBelief's amplification of rounding), frozen members, bad arguments."""

import pytest
import torch

from rnnbook.lsc import models, pretrain
from rnnbook.lsc import pretrain_ensemble as pe

N_IN, WIDTH, B, T = 5, 6, 3, 6


def stream(seed, dtype=torch.float64):
    g = torch.Generator().manual_seed(seed)
    while True:
        yield (torch.rand(B, T, N_IN, generator=g) < 0.3).to(dtype)


def nets(kind, seeds, dtype=torch.float64, width=WIDTH):
    return [models.make_rnn(kind, 2, N_IN, width, 3, seed=s).to(dtype) for s in seeds]


def compare(kind, cfgs, seeds, streams, dtype, rtol):
    """Ensemble vs one ``pretrain`` per network; returns both report lists."""
    ens = nets(kind, seeds, dtype)
    reps = pe.pretrain_ensemble(ens, streams(), cfgs, seeds)
    ones = nets(kind, seeds, dtype)
    for e, (m, cfg, seed) in enumerate(zip(ones, cfgs, seeds)):
        s = streams(True)  # a fresh copy of the member's stream
        data = s[e] if isinstance(s, list) else s
        r1 = pretrain.lsc_pretrain_(m, data, config=cfg, seed=seed)
        r = reps[e]
        assert (r.steps, r.converged, r.criteria) == (
            r1.steps,
            r1.converged,
            r1.criteria,
        )
        for key in ("mean_radius", "std", "mean_dev", "loss"):
            assert torch.allclose(
                torch.tensor(r.history[key]),
                torch.tensor(r1.history[key]),
                rtol=1e-5,
                atol=1e-7,
            ), key
        for g, g1 in zip(r.history["groups"], r1.history["groups"]):
            assert g.keys() == g1.keys()
            assert all(abs(g[k] - g1[k]) <= 1e-5 * abs(g1[k]) + 1e-7 for k in g)
        with torch.no_grad():
            for (name, p), q in zip(ens[e].named_parameters(), ones[e].parameters()):
                scale = float(q.abs().max())
                assert float((p - q).abs().max()) <= rtol * scale, (kind, e, name)
    return reps


def shared(single=False):
    return stream(0)


@pytest.mark.parametrize("kind", ["sigma_rnn", "relu_rnn", "gru", "lstm", "alif_plus"])
def test_each_member_equals_its_own_pretrain_float64(kind):
    """Targets 0.5 and 1 for two seeds each, one shared input stream, 3 steps."""
    cfgs = [
        pretrain.LSCConfig(target=t, max_steps=3, n_times=2) for t in (0.5, 1.0)
    ] * 2
    compare(kind, cfgs, [3, 3, 4, 4], shared, torch.float64, rtol=1e-9)


@pytest.mark.parametrize("kind", ["sigma_rnn", "gru", "alif_plus"])
def test_float32_radii_exact_parameters_to_adabelief_rounding(kind):
    """In float32 the batched kernels round differently (~1e-7). AdaBelief divides each
    gradient entry by its own running deviation, so an entry whose gradient is tiny moves by
    ~lr whatever its size, and a rounding difference of such a gradient moves the parameter
    by lr times its relative error: the parameters agree to ~1e-4 of their scale, the radii to
    ~1e-6."""
    cfgs = [pretrain.LSCConfig(target=t, max_steps=3, n_times=2) for t in (0.5, 1.0)]

    def streams(single=False):
        return [stream(7, torch.float32), stream(8, torch.float32)]

    compare(kind, cfgs, [1, 2], streams, torch.float32, rtol=1e-3)


def test_lru_members_equal_their_own_pretrain():
    """A cell with its own multiplier rule (the LRU's radii) and a tied embedding."""

    def lrus():
        return [models.make_lru(2, 20, 6, seed=s).double() for s in (0, 1)]

    def words(seed):
        g = torch.Generator().manual_seed(seed)
        while True:
            yield torch.randint(20, (B, T), generator=g)

    cfgs = [pretrain.LSCConfig(target=t, max_steps=2, n_times=2) for t in (0.5, 1.0)]
    ens = lrus()
    reps = pe.pretrain_ensemble(ens, words(0), cfgs, [4, 5])
    for m, one, cfg, seed, r in zip(ens, lrus(), cfgs, [4, 5], reps):
        r1 = pretrain.lsc_pretrain_(one, words(0), config=cfg, seed=seed)
        assert (r.steps, r.converged) == (r1.steps, r1.converged)
        assert abs(r.mean_radius - r1.mean_radius) < 1e-9
        for p, q in zip(m.parameters(), one.parameters()):
            assert torch.allclose(p, q, rtol=1e-9, atol=1e-12)


def test_per_member_streams_budgets_and_a_member_that_stops_at_once():
    """Own streams, own budgets, one member whose criteria hold at the first step: it stops
    there (converged, its parameters untouched), the others go on to their own budgets."""
    loose = dict(eps=10.0, std_max=10.0)
    cfgs = [
        pretrain.LSCConfig(target=0.5, max_steps=4, n_times=2),
        pretrain.LSCConfig(target=1.0, max_steps=4, n_times=2, **loose),
        pretrain.LSCConfig(target=1.0, max_steps=2, n_times=2),
    ]

    def streams(single=False):
        return [stream(1), stream(2), stream(3)]

    reps = compare("gru", cfgs, [5, 6, 7], streams, torch.float64, rtol=1e-9)
    assert reps[0].steps > 2 and [r.steps for r in reps[1:]] == [1, 2]
    assert reps[1].converged and not reps[2].converged
    assert len(reps[1].history["loss"]) == 1 and len(reps[2].history["loss"]) == 2


def test_frozen_member_does_not_move():
    loose = dict(eps=10.0, std_max=10.0, shuffle="all")  # the paper's shuffle
    cfgs = [
        pretrain.LSCConfig(target=0.5, max_steps=3, n_times=2, shuffle="all"),
        pretrain.LSCConfig(target=0.5, max_steps=3, n_times=2, **loose),
        pretrain.LSCConfig(target=0.5, max_steps=1, n_times=2, shuffle="all"),
    ]
    ms = nets("lstm", [0, 1, 2])
    start = [[p.detach().clone() for p in m.parameters()] for m in ms]
    seen = []
    reps = pe.pretrain_ensemble(
        ms, stream(0), cfgs, 0, callback=lambda e, s, info: seen.append((e, s))
    )
    assert all(torch.equal(p, q) for p, q in zip(ms[1].parameters(), start[1]))
    assert not all(torch.equal(p, q) for p, q in zip(ms[0].parameters(), start[0]))
    assert [r.steps for r in reps] == [3, 1, 1]
    assert seen == [(0, 1), (1, 1), (2, 1), (0, 2), (0, 3)]
    # the member stopped by its budget after one step equals a one-step pretrain, and kept it
    one = nets("lstm", [2])[0]
    pretrain.lsc_pretrain_(one, stream(0), config=cfgs[2], seed=0)
    assert all(
        torch.allclose(p, q, rtol=0, atol=1e-12)
        for p, q in zip(ms[2].parameters(), one.parameters())
    )


def test_lsc_chunks_are_read_from_the_models():
    """GRU gates are shuffled within their blocks (``lsc_chunks``), as ``lsc_pretrain_`` does,
    and only the tensors the ``shuffle`` setting names."""
    for which in pretrain.SHUFFLE:
        ms = nets("gru", [0])
        start = {k: p.detach().clone() for k, p in ms[0].named_parameters()}
        params = {k: p.detach()[None].clone() for k, p in ms[0].named_parameters()}
        pe.shuffle_member(ms[0], params, 0, torch.Generator().manual_seed(3), which)
        shuffled = pretrain.shuffled_tensors(ms[0], which)
        pretrain.shuffle_(shuffled, torch.Generator().manual_seed(3))
        names = {n for n, _, _ in shuffled}
        for k, p in ms[0].named_parameters():
            assert torch.equal(params[k][0], p.detach())
            if k not in names:
                assert torch.equal(p.detach(), start[k]), (which, k)
        expected = {
            "all": {n for n, _ in ms[0].named_parameters()},
            "weights": {"cells.0.W", "cells.0.U", "cells.1.W", "cells.1.U"},
            "none": set(),
        }
        assert names == expected[which]


def test_stacked_transitions_equal_lsc_jacobians():
    ms = nets("alif_plus", [0, 1])
    x = next(stream(4))
    state = {
        k: torch.stack([dict(m.named_parameters())[k] for m in ms])
        for k, _ in ms[0].named_parameters()
    }
    state.update(
        {
            k: torch.stack([dict(m.named_buffers())[k] for m in ms])
            for k, _ in ms[0].named_buffers()
        }
    )
    times, bi = [], None
    for e in range(2):
        bi, ti = pe.sample_times(B, T, 3, torch.Generator().manual_seed(e), "cpu")
        times.append(ti)
    Ms = pe.stacked_transitions(ms[0], state, x, times, bi, shared_x=True)
    for e, m in enumerate(ms):
        trs = m.lsc_jacobians(x, 3, torch.Generator().manual_seed(e))
        assert [(t.layer, t.kind) for t in trs] == list(Ms)
        for t in trs:
            assert torch.allclose(Ms[(t.layer, t.kind)][e], t.M, atol=1e-12)


def test_bad_arguments_name_the_parameter():
    cfg = pretrain.LSCConfig(max_steps=2, n_times=2)
    two = nets("gru", [0, 1])
    with pytest.raises(ValueError, match="models"):
        pe.pretrain_ensemble([], stream(0), cfg, [])
    with pytest.raises(ValueError, match=r"models\[1\]"):
        pe.pretrain_ensemble([two[0], nets("lstm", [1])[0]], stream(0), cfg, [0, 1])
    with pytest.raises(ValueError, match=r"models\[1\]"):
        pe.pretrain_ensemble([two[0], nets("gru", [1], width=7)[0]], stream(0), cfg, 0)
    with pytest.raises(ValueError, match="models"):
        pe.pretrain_ensemble([two[0], two[0]], stream(0), cfg, [0, 1])
    with pytest.raises(ValueError, match=r"models\[0\]"):
        pe.pretrain_ensemble([models.FFN(4, 4, 2, 2)], stream(0), cfg, 0)
    with pytest.raises(ValueError, match="cfgs"):
        pe.pretrain_ensemble(two, stream(0), [cfg], [0, 1])
    with pytest.raises(ValueError, match="seeds"):
        pe.pretrain_ensemble(two, stream(0), cfg, [0, 1, 2])
    with pytest.raises(ValueError, match="batches"):
        pe.pretrain_ensemble(two, [stream(0)], cfg, [0, 1])
    other = pretrain.LSCConfig(max_steps=2, n_times=2, lr=1e-2)
    with pytest.raises(ValueError, match=r"cfgs\[1\]\.lr"):
        pe.pretrain_ensemble(two, stream(0), [cfg, other], [0, 1])
    # nothing was changed by a refused call
    fresh = nets("gru", [0, 1])
    for m, f in zip(two, fresh):
        assert all(torch.equal(p, q) for p, q in zip(m.parameters(), f.parameters()))
