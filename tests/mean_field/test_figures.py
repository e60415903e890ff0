"""Every figure of the mean-field chapters draws from small inputs."""

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

from rnnbook.mean_field import critical_init, figures, jacobian_spectrum as js  # noqa: E402
from rnnbook.mean_field import language_model as lm, theory  # noqa: E402
from rnnbook.mean_field import timescale_fit, trainable_depth  # noqa: E402
from rnnbook.mean_field.trainability import TrainResult  # noqa: E402

from tests.figure_checks import legible_figures  # noqa: E402, F401

pytestmark = pytest.mark.usefixtures("legible_figures")


rng = np.random.default_rng(0)
G, K, T = 3, 4, 12
run = {"c": rng.uniform(0, 1, (G, K, T)), "q": rng.uniform(1, 2, (G, K, T))}
theory_run = {"c": run["c"].mean(1), "q": run["q"].mean(1)}
mu_b = np.array([-2.0, 0.0, 2.0])


@pytest.fixture(autouse=True)
def _close():
    yield
    plt.close("all")


def n_axes(fig):
    return len([a for a in fig.axes if a.get_label() != "<colorbar>"])


def test_signal_propagation_figures():
    assert (
        n_axes(figures.vanilla_covariance(theory_run, run, run, [0.8, 1.2, 2.0])) == 2
    )
    assert n_axes(figures.fig1ab(theory_run["c"], run, run, mu_b)) == 2
    curves = {S: (np.ones(5), np.linspace(1, 10, 5)) for S in (1.0, 0.99, 0.0)}
    fig = figures.fig1ce(
        np.linspace(-4, 8, 5), curves, run, run, mu_b, [True, False, True]
    )
    assert n_axes(fig) == 2
    win = np.arange(1, T + 1) >= 10
    fit = timescale_fit.WindowFit(1, win, 3.0, 3.1, 2.9, 0.2, 0.5)
    assert n_axes(figures.fig1d([fit], run, np.ones(G), mu_b)) == 1


def test_dynamical_isometry_figures():
    s = critical_init.survey(np.geomspace(0.5, 32, 4), np.linspace(-2, 8, 5), 0.46)
    assert len(figures.algorithm1_survey(s).axes) == 4  # two panels, two colour bars
    runs = {f: np.linspace(1, 2, 10) * f for f in (1.01, 0.99, 1.0)}
    assert n_axes(figures.runaway(runs, 2.0, 5.5)) == 1
    study = js.minimal_study([(4.0, 4.0)], 0.46, N=16, T=2, K=2, seed=0)
    assert n_axes(figures.minimal_spectrum(study)) == 1
    hp = theory.HP(1.0, 0.5, 0.0, 1.0)
    assert n_axes(figures.vanilla_spectrum(js.vanilla_study(hp, 16, 2, 2, 0), 1.0)) == 1
    m1 = np.linspace(1, 0.5, 8)
    g = js.GradientStudy(
        {"a": m1, "b": m1, "c": m1}, {"a": 1, "b": 0.5, "c": 0.9}, m1, m1, 8
    )
    assert n_axes(figures.gradient_norms(g)) == 1


def test_training_figures():
    sweeps = {"v": trainable_depth.Sweep("vanilla", [(1, 0, 0)] * 2, [1, 2], "x")}
    acc = {
        ("v", "untied"): rng.uniform(size=(3, 2)),
        ("v", "tied"): rng.uniform(size=(3, 2)),
    }
    fig = figures.fig2(acc, {"v": np.array([2.0, 5.0])}, sweeps, [1, 2, 4])
    assert n_axes(fig) == 2
    r = TrainResult([1, 2], rng.uniform(size=(2, 4)), rng.uniform(size=(2, 4)))
    labels = ["a", "b", "c", "d"]
    assert n_axes(figures.fig3({"vanilla": r, "minimal": r}, labels, 49)) == 2
    res = {
        c: lm.LMResult(c, 4, 100, [(1, 50.0), (2, 40.0)], 40, 41, 0) for c in lm.CELLS
    }
    assert n_axes(figures.language_models(res)) == 1
    ivs = [{"mean": 0.1, "lo": 0.0, "hi": 0.2, "n": 3}] * 2
    panels = [
        {"title": "a", "ylabel": "y", "band": 0.03, "curves": {"x": ([1, 2], ivs)}},
        {"title": "b", "ylabel": "y", "band": None, "curves": {"x": ([1, 2], ivs)}},
    ]
    assert n_axes(figures.effect_trends(panels)) == 2
