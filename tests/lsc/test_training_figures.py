"""The figures of the training chapters draw from made-up results: one panel per activation,
task, depth or target, with labelled axes."""

from types import SimpleNamespace

import matplotlib
import matplotlib.pyplot as plt
import numpy as np
import pytest

from rnnbook.lsc import deep_rnns, ffn_mnist, gru_gradient, lru_ptb, training_figures

from .test_deep_rnns import BASE as RNN_BASE
from .test_ffn_mnist import grid as ffn_grid
from .test_lru_ptb import BASE as LRU_BASE

matplotlib.use("Agg")


from tests.figure_checks import legible_figures  # noqa: E402, F401

pytestmark = pytest.mark.usefixtures("legible_figures")


@pytest.fixture(autouse=True)
def _close():
    yield
    plt.close("all")


def report(steps=3):
    return SimpleNamespace(
        steps=steps,
        converged=True,
        history={
            "mean_radius": [1.0] * steps,
            "mean_dev": [0.1] * steps,
            "std": [0.2] * steps,
        },
    )


def labelled(fig, n):
    axes = [
        ax for ax in fig.axes if ax.get_visible() and ax.axison
    ]  # not a legend slot
    return len(axes) == n and all(ax.get_xlabel() for ax in axes)


def test_pretraining_figures():
    runs = {(k, t): (report(), {}, {}) for k in ("gru", "lstm") for t in (0.5, 1.0)}
    assert labelled(training_figures.pretraining_curves(runs, ["gru", "lstm"]), 2)
    fig = training_figures.variant_curves({"a": report(), "b": report(5)}, 8)
    assert labelled(fig, 2)


def test_ffn_figures():
    g = ffn_grid(acts=["relu", "cos"], lrs=[1e-3, 1e-2], seeds=2, relu_lrs=[1e-4, 0.1])
    res = {
        a: {
            "checkpoints": [2, 4],
            "test_acc": [[0.3] * n, list(np.linspace(0.2, 0.8, n))],
            "pretrain": [{"converged": s == 0, "steps": 1 + s} for s in range(2)],
        }
        for a in g.acts
        for n in [3 * len(g.lrs_of(a)) * 2]
    }
    runs = ffn_mnist.Runs(g, res, "fashion-mnist")
    assert labelled(training_figures.ffn_accuracy(runs), 2)
    assert labelled(training_figures.ffn_trend({"A": runs, "B": runs}), 3)


def test_deep_rnn_figure():
    g = deep_rnns.Grid(**{**RNN_BASE, "tasks": ["sl-mnist", "ptb-standin"]})
    res = {k: {"test": {"acc": 0.5, "ppl": 100.0}} for k in g.runs()}
    kinds = {"sl-mnist": "classify", "ptb-standin": "lm"}
    runs = deep_rnns.Runs(g, kinds, res, {})
    fig = training_figures.deep_rnn_scores(runs)
    assert len(fig.axes) == 2 and fig.axes[1].get_yscale() == "log"


def test_gradient_figure():
    paths = gru_gradient.path_counts(6, 3)
    curves = {0.5: [0.5 ** np.arange(6)] * 2, 1.0: [paths.copy(), 2 * paths]}
    rep = {t: [SimpleNamespace(converged=True)] * 2 for t in curves}
    res = gru_gradient.GradientCurves(3, 4, 2, curves, rep, paths)
    assert labelled(training_figures.gradient_through_time(res), 2)


def test_lru_figure():
    g = lru_ptb.Grid(**LRU_BASE)  # fmt: skip
    res = {
        (d, 0, c, cl): {"history": [[1, 2.0, 3.0], [2, 1.0, 2.0]]}
        for d in g.depths
        for c in lru_ptb.CONDS
        for cl in (False, True)
    }
    assert labelled(training_figures.lru_validation(lru_ptb.Runs(g, res, 50.0)), 2)


def test_effect_figure():
    steps = [0, 10, 20]
    iv = (np.array([0.5, 0.6, 0.7]), np.array([0.2, 0.3, 0.4]), np.array([0.8, 0.9, 1]))
    fig = training_figures.effect_vs_steps(steps, {"a": iv, "b": iv}, 0.5, "rate", "t")
    assert labelled(fig, 1) and len(fig.axes[0].get_legend().texts) == 3
    lines = {"line of the claim (0.6)": 0.6, "no effect (0.5)": 0.5}
    fig = training_figures.effect_vs_steps(steps, {"a": iv}, lines, "rate", "t")
    texts = [t.get_text() for t in fig.axes[0].get_legend().texts]
    assert texts == ["a", *lines]
    assert sorted(ln.get_ydata()[0] for ln in fig.axes[0].lines[1:]) == [0.5, 0.6]


def test_cells_found_best_decides_each_cell_as_the_claim_does():
    from scipy import stats as st

    from rnnbook.lsc.training_figures import cells_found_best

    rng = np.random.default_rng(3)
    best = {
        "relu, 0.01": list(0.05 + 0.01 * rng.standard_normal(8)),  # clearly best
        "relu, 0.001": list(0.001 + 0.05 * rng.standard_normal(8)),  # undecided
        "cos, 0.001": list(0.04 + 0.01 * rng.standard_normal(8)),  # clearly best
        "sin, 0.001": list(0.1 + 0.01 * rng.standard_normal(8)),  # no arm trained
    }
    acc = {c: {"glorot": [0.5] * 8, "he": [0.5] * 8} for c in best}
    acc["sin, 0.001"] = {"glorot": [0.1] * 8, "he": [0.12] * 8}
    share = cells_found_best({"cell_best": best, "cell_acc": acc, "chance": 0.1})
    # brute force: one-sided t per compared cell, Holm at 5% over the three
    p = sorted(
        st.ttest_1samp(best[c], 0.0, alternative="greater").pvalue
        for c in ("relu, 0.01", "relu, 0.001", "cos, 0.001")
    )
    found = 0
    for i, q in enumerate(p):
        if q > 0.05 / (3 - i):
            break
        found += 1
    assert share == found / 3 == 2 / 3
    assert np.isnan(cells_found_best({"cell_best": {}, "cell_acc": {}}))
