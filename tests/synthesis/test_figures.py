import matplotlib

matplotlib.use("Agg")

from rnnbook.synthesis import figures, linear_diagnostics, nonlinear_diagnostics  # noqa: E402


import pytest  # noqa: E402
from tests.figure_checks import legible_figures  # noqa: E402, F401

pytestmark = pytest.mark.usefixtures("legible_figures")


def test_figures_draw():
    lin = linear_diagnostics.sweep([0.5, 1.0], [8, 16], 2, 4, 0)
    assert len(figures.four_curves(lin).axes) == 2
    nl = nonlinear_diagnostics.sweep("tanh", [0.5, 1.0], 8, 2, 4, 0)
    assert len(figures.nonlinear_panels([nl]).axes) == 1
