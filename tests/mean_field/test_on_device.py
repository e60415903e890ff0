"""The mean-field trainers and Monte Carlo on a device (rnnbook.device): the GridRNN trainer,
the language models and the Jacobian products run with every tensor on the device they are given
(on the CPU under a ``meta`` default device, see tests/test_device.py)."""

import numpy as np
import pytest
import torch

from rnnbook.mean_field import jacobian_spectrum, language_model, minimal_rnn, theory
from rnnbook.mean_field import training_speed, vanilla_rnn
from rnnbook.mean_field import trainability as tr
from tests.test_device import DEVICES, strict

torch.set_num_threads(1)


@pytest.mark.parametrize("dev", DEVICES)
def test_grid_training_on_the_device(dev):
    g = torch.Generator().manual_seed(0)
    X, Y = torch.randn(40, 5, generator=g), torch.randint(10, (40,), generator=g)
    specs = [tr.InitSpec(1.0, 1.0), tr.InitSpec(1.0, 1.0, tied=True)]
    with strict(dev):
        at, acc = tr.trainability_grid(
            "minimal", specs, [3], X, Y, 6, 4, 3, 1e-2, 0, n_eval=8, device=dev
        )
    assert acc.shape == (1, 1, 1, 2) and np.isfinite(acc).all()


class _Corpus:
    vocab_size = 12
    train = np.arange(400) % 12
    valid = test = np.arange(120) % 12


@pytest.mark.parametrize("dev", DEVICES)
@pytest.mark.parametrize("cell", ["minimalRNN", "GRU"])
def test_language_model_on_the_device(dev, cell):
    with strict(dev):
        r = language_model.train_language_model(
            cell, _Corpus(), 4, 6, 3, 4, 5, 1e-2, 0, device=dev
        )
    assert np.isfinite(r.test_ppl)


@pytest.mark.parametrize("dev", DEVICES)
def test_jacobian_products_on_the_device(dev):
    hp = theory.HP(1.0, 1.0, 0.0, 0.5)
    with strict(dev):
        r = jacobian_spectrum.jacobian_moments(
            "minimal", hp, 8, 3, 2, 0, burn_in=2, device=dev
        )
    ref = jacobian_spectrum.jacobian_moments("minimal", hp, 8, 3, 2, 0, burn_in=2)
    assert np.allclose(r.m1, ref.m1) and np.allclose(r.m2, ref.m2)


@pytest.mark.parametrize("dev", DEVICES)
def test_one_step_terms_on_the_device(dev):
    hp = theory.algorithm1(4.0, 4.0, 1.0).hp()
    with strict(dev):
        r = jacobian_spectrum.one_step_terms_mc(hp, 12, 3, 0, burn_in=3, device=dev)
    ref = jacobian_spectrum.one_step_terms_mc(hp, 12, 3, 0, burn_in=3)
    assert r.keys() == ref.keys()
    for k in r:
        assert np.allclose(r[k], ref[k]) and (dev != "cpu" or r[k] == ref[k])


@pytest.mark.parametrize("dev", DEVICES)
@pytest.mark.parametrize("tied", [False, True])
def test_vanilla_monte_carlo_on_the_device(dev, tied):
    hp, S = theory.HP(np.array([0.8, 1.5]), 0.5, 0.0, 1.0), np.zeros(4)
    kw = dict(q0=0.5, c0=0.9)
    with strict(dev):
        r = vanilla_rnn.simulate_pair(S, hp, 16, 3, tied, 1, device=dev, **kw)
    ref = vanilla_rnn.simulate_pair(S, hp, 16, 3, tied, 1, **kw)
    for k in ("c", "q"):  # the same draws: equal on the CPU, to rounding on CUDA
        assert np.allclose(r[k], ref[k]) and (dev != "cpu" or (r[k] == ref[k]).all())


@pytest.mark.parametrize("dev", DEVICES)
@pytest.mark.parametrize(
    "kw",
    [
        dict(tied=False),
        dict(tied=False, exact_untied=True),
        dict(tied=True),
        dict(tied=True, orthogonal=True),
        dict(tied=True, dtype=torch.float32),
    ],
)
def test_minimal_monte_carlo_on_the_device(dev, kw):
    hp, S = theory.HP(6.88, 1.39, np.array([0.0, 4.0]), 0.46), np.array([0, 0, 1.0])
    with strict(dev):
        r = minimal_rnn.simulate_pair(S, hp, 16, 2, seed=2, Q0=0.3, device=dev, **kw)
    ref = minimal_rnn.simulate_pair(S, hp, 16, 2, seed=2, Q0=0.3, **kw)
    for k in ("c", "q", "C"):
        assert np.allclose(r[k], ref[k], atol=1e-5)
        assert dev != "cpu" or (r[k] == ref[k]).all()


@pytest.mark.parametrize("dev", DEVICES)
@pytest.mark.parametrize("orthogonal", [False, True])
def test_weights_are_drawn_on_the_cpu_and_returned_on_the_device(dev, orthogonal):
    with strict(dev):
        g = torch.Generator(device="cpu").manual_seed(0)
        w = minimal_rnn.draw_weights(
            6, 1.0, [0.5, 1], 0.0, 0.1, 2, g, orthogonal, device=dev
        )
    ref = minimal_rnn.draw_weights(
        6, 1.0, [0.5, 1], 0.0, 0.1, 2, torch.Generator().manual_seed(0), orthogonal
    )
    for a, b in ((w.W, ref.W), (w.V, ref.V), (w.b, ref.b)):
        assert a.device.type == dev and torch.allclose(a.cpu(), b)


@pytest.mark.parametrize("dev", DEVICES)
def test_gradient_norm_without_second_moment_on_the_device(dev):
    hp = theory.HP(1.0, 1.0, 0.0, 0.5)
    kw = dict(tied=True, burn_in=2)
    with strict(dev):
        r = jacobian_spectrum.jacobian_moments(
            "minimal", hp, 8, 3, 2, 0, device=dev, second_moment=False, **kw
        )
    ref = jacobian_spectrum.jacobian_moments("minimal", hp, 8, 3, 2, 0, **kw)
    assert np.allclose(r.m1, ref.m1, rtol=1e-12) and np.isnan(r.m2).all()


@pytest.mark.parametrize("dev", DEVICES)
def test_fig3_training_on_the_device(dev):
    g = torch.Generator().manual_seed(1)
    X, Y = torch.rand(60, 784, generator=g), torch.randint(10, (60,), generator=g)
    with strict(dev):
        setups = training_speed.seed_setups(X, 49, 6, 0.7, 0, 2)
        r = training_speed.run(
            setups, (X, Y), (X[:20], Y[:20]), 6, 3, 1e-2, 4, 0.7, device=dev
        )
    ref = training_speed.run(setups, (X, Y), (X[:20], Y[:20]), 6, 3, 1e-2, 4, 0.7)
    for k in ref:
        assert r[k].accuracy.shape == ref[k].accuracy.shape == (3, 8)
        assert np.allclose(r[k].loss, ref[k].loss, atol=1e-4)
