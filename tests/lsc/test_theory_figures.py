"""The figures of the theory chapters draw from small results: axes, titles and legends."""

import matplotlib.pyplot as plt
import pytest
import torch

from rnnbook.lsc import (
    bounds,
    bounds_experiment,
    decaying_covariance,
    gradient_paths,
    initializations,
    path_growth,
    random_matrix,
    theory_figures,
)


from tests.figure_checks import legible_figures  # noqa: E402, F401

pytestmark = pytest.mark.usefixtures("legible_figures")


@pytest.fixture(autouse=True)
def _close():
    yield
    plt.close("all")


def titles(fig):
    return [ax.get_title() for ax in fig.axes]


def test_lemma2_and_fig1_figures():
    fig = theory_figures.lemma2_sums(gradient_paths.lemma2_sums(6, 3))
    assert len(fig.axes[0].get_legend().get_texts()) == 4
    regimes = path_growth.fig1b_regimes(300, 20, points=20)
    fig = theory_figures.fig1b(regimes, 5, 5, 100)
    assert titles(fig)[2].startswith("(iii)")
    fig = theory_figures.fig1c(bounds.fig1c_runs(20, 3, 2, 2.0, 0))
    assert len(fig.axes) == 4 and titles(fig)[0].startswith(r"$\rho=0.5$, stacked")


def test_bounds_figures():
    gen = torch.Generator().manual_seed(0)
    cases = bounds_experiment.target_cases(0.7)
    ex = bounds_experiment.update_experiment(cases, [4, 8], [2], ["eq1"], 4, 2, gen)
    fig = theory_figures.update_bounds(ex)
    shown = [ax for ax in fig.axes if ax.axison]  # the spare slot holds the legend
    assert len(shown) == 3 and r"targets $\rho = 1$" in titles(fig)[0]
    nn = bounds_experiment.nonnormal_experiment(cases, ["eq1"], 2.0, 3, 6, 3, 2, gen)
    assert len(theory_figures.nonnormal(nn, ["eq1"]).axes) == 2


def test_random_matrix_figures():
    gen = torch.Generator().manual_seed(0)
    st = random_matrix.radius_study([2, 4], list(random_matrix.ENTRIES), 10, 10, gen)
    assert len(theory_figures.lemma1(st).axes) == 2
    c = initializations.corollary1_study([4, 8], 2, 1, st.glorot(), gen)
    fig = theory_figures.corollary1(c, [2, 4], 0.02, 4)
    assert titles(fig)[1].startswith("He initialization")


def test_fig_s2_figures():
    s = decaying_covariance.fig_s2_study(16, 0, 2, 1, 5, torch.Generator())
    assert len(theory_figures.fig_s2(s, 16, 2, 1).axes) == 6
    assert (
        len(theory_figures.correlation_matrices(s).axes) == 3
    )  # two panels, a colorbar


def test_lower_bound_figures():
    import numpy as np

    from rnnbook.lsc import lower_bound

    g = torch.Generator().manual_seed(0)
    M = lower_bound.l_lsc_gaussian(20, 16, 3, g)
    logb = torch.linalg.slogdet(M)[1].numpy()
    gr = lower_bound.log_det_growth(logb, [4, 16], 0.05)
    lyap = lower_bound.lyapunov_exponents(M).mean(0).numpy()
    fig = theory_figures.lower_lsc(gr, lyap, np.zeros(3))
    assert "typical product" in titles(fig)[0] and len(fig.axes) == 2
    scan = lower_bound.gain_scan(3, [0.5, 1.0], [0.1], 4, 40, 10, g)
    fig = theory_figures.gain_scan(scan)
    assert "l-LSC" in titles(fig)[0] and len(fig.axes[0].lines) == 3


def test_fig_s2_title():
    s = decaying_covariance.fig_s2_study(16, 0, 2, 1, 5, torch.Generator())
    fig = theory_figures.fig_s2(s, 16, 2, 1, title="Fig. S3: after")
    assert fig._suptitle.get_text() == "Fig. S3: after"
