"""Every figure of the room draws from toy-size results and labels its axes."""

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
import torch  # noqa: E402

from rnnbook.implicit_bias import (  # noqa: E402
    conv_models,
    decoding,
    delay_sweep,
    figures,
    init_statistics,
    kernel_regime,
    ntk,
    rates,
    scale_factors,
    stability,
)

from tests.figure_checks import legible_figures  # noqa: E402, F401

pytestmark = pytest.mark.usefixtures("legible_figures")


INIT = dict(nu_W=0.3, nu_F=1.0, nu_C=1.0)
TASK = dict(T=5, n_train=6, n_test=6, snr_db=20.0, lr=0.02, steps=4, seed=0, **INIT)


def _figures():
    errors = np.array([[0.4, 0.5], [0.2, 0.3]])
    fit = rates.loglog_fit(np.array([8, 32]), errors)
    rho = scale_factors.rho(3, 0.3, 1.0, 1.0)
    setup = dict(T=3, n_x=1, n_y=1, n_seeds=2, **INIT)
    conv = ntk.Convergence([8, 32], errors, rho * np.ones((2, 2, 3)), rho, fit, setup)
    yield figures.rho_decay(1.0, 1.0)
    yield figures.ntk_convergence(conv)
    yield figures.rho_readout(conv)
    nus = [0.3, 1.25]
    yield figures.spectral_radius(
        stability.spectral_radii([8, 16], nus, 2, 0), nus, [8, 16]
    )
    g = torch.Generator().manual_seed(0)
    yield figures.realizations(conv_models.realization_errors([2, 4], 1, 1, g), 1, 1)
    mc = init_statistics.monte_carlo(
        [4, 8], n_x=1, n_y=1, lags=2, draws=60, seed=0, **INIT
    )
    yield figures.init_moments(mc)
    ts = kernel_regime.teacher_student(n_teacher=2, n=8, seeds=3, **TASK)
    for f in (figures.loss_curves, figures.first_steps, figures.impulse_responses):
        yield f(ts)
    yield figures.drift(ts)
    fw = kernel_regime.finite_width(n_teacher=2, widths=[4, 8], seeds=3, **TASK)
    yield figures.finite_width(fw)
    yield figures.kernel_trend(ts, fw, [1, 2, 4], tol=0.1)
    mse = np.random.default_rng(0).random((5, 4, 3, 2))
    sweep = delay_sweep.DelaySweep([0, 2], 3, mse, mse, np.ones((3, 2)), None, {"n": 4})
    yield figures.delay(sweep, 20.0)
    yield figures.delay_trend(sweep, [1, 2, 4], flat=2.0)
    rng = np.random.default_rng(0)
    X = (rng.random((240, 3)) < 0.1).astype(float)
    Y = rng.standard_normal((240, 1))
    yield figures.fmri_recording(X, Y)
    res = decoding.run_table1(
        X,
        Y,
        T=4,
        folds=3,
        limited_fraction=0.3,
        n=4,
        lr=0.05,
        steps=3,
        seed=0,
        seeds=2,
        **INIT,
    )
    yield figures.r2_curves(res)
    yield figures.learned_filters(res)
    yield figures.table1_trend(res, [1, 2, 3])


@pytest.mark.filterwarnings("ignore")
def test_every_figure_is_drawn_with_labelled_axes():
    count = 0
    for fig in _figures():
        assert isinstance(fig, matplotlib.figure.Figure)
        for ax in fig.axes:
            assert ax.get_xlabel() and ax.get_title()
        plt.close(fig)
        count += 1
    assert count == 18
