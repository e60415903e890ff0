"""Every figure draws from small inputs and returns a matplotlib figure."""

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

from rnnbook.infinite_width import (  # noqa: E402
    convergence,
    figures,
    limit,
    min_norm,
    predictor_scale,
    truncation,
    weight_law,
)
from rnnbook.infinite_width.regression import gaussian_regression  # noqa: E402
from rnnbook.stats import power_law_fit  # noqa: E402


from tests.figure_checks import legible_figures  # noqa: E402, F401

pytestmark = pytest.mark.usefixtures("legible_figures")


@pytest.fixture(autouse=True)
def _close():
    yield
    plt.close("all")


def test_finite_width_figures(data):
    K, tau, ws = 6, 0.1, [8, 16]
    lim = limit.train(data, tau, K, keep=(K,))
    runs = convergence.predictor_paths(data, tau, K, ws, 2, seed=0)
    figures.predictor_paths(runs, lim.lam, data.min_norm(), K, tau)
    figures.v_mean_square(runs, lim.k, lim.b_sq)
    mom = weight_law.weight_moments(lim.states[K])
    sw = convergence.sweep(data, lim.lam, tau, K, ws, 3, seed=0, moments=mom)
    fit = power_law_fit(ws, sw.errK)
    figures.rate(ws, [("k", sw.errK, fit)], "t", d=data.d)
    figures.rate(ws, [("k", sw.errK, fit)], "t", reference=("g", fit.means))
    fits = {k: power_law_fit(ws, v) for k, v in sw.law.items()}
    figures.weight_moments(ws, fits, K)
    e = weight_law.non_gaussian_entries(data, tau, 64, 3, "uniform", seed=0)
    figures.entry_law(e, "uniform", 64, 3)
    te = truncation.truncation_errors(
        data, tau, 20, 16, limit.train(data, tau, 20, N=16)
    )
    fig = figures.truncation(te, lim.lam, 20, tau, data.d)
    assert isinstance(fig, plt.Figure)


def test_flow_figures():
    data = gaussian_regression(d=4, n=2, seed=5)
    flows = predictor_scale.flows(data, [1.0, 30.0], 16, 5.0)
    lin_t, lin = predictor_scale.linear_reference(data)
    figures.flow_paths(flows, lin, data.min_norm())
    figures.flow_risk(flows, lin_t, data.risk(lin), 5.0, 1e-3)
    run = min_norm.converge(data, 16, 5.0)
    fig = figures.min_norm_convergence(run, float(np.linalg.norm(data.min_norm())))
    assert isinstance(fig, plt.Figure)
