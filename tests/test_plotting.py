"""The book's figure style: drawn for the column, text >= 10 px as shown, <= 2 panels a row."""

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

from rnnbook import plotting  # noqa: E402


@pytest.fixture(autouse=True)
def style():
    with matplotlib.rc_context(plotting.style()):
        yield
    plt.close("all")


def test_panels_stack_beyond_two_and_fit_the_column():
    fig, axes = plotting.panels(3)
    assert len(axes) == 3 and plotting.panels_per_row(fig) == 2
    for ax in axes:
        ax.plot([1, 2], [1, 2], label="a")
        ax.set(xlabel="x", ylabel="y", title="t")
    leg = plotting.check_legible(fig)
    assert leg.width_px <= plotting.COLUMN_PX + 2 and leg.min_text_px >= 10


def test_a_wide_figure_with_small_type_is_refused():
    fig, axes = plt.subplots(1, 4, figsize=(16, 4))
    for ax in axes:
        ax.plot([1, 2], [1, 2])
        ax.set_title("small", fontsize=5)
    problems = plotting.legibility(fig).problems()
    assert any("smallest text" in p for p in problems)
    assert any("4 panels side by side" in p for p in problems)


def test_a_legend_over_the_data_is_moved_below_it():
    fig, ax = plotting.panels(1)
    x = np.linspace(0, 1, 50)
    for k in range(4):
        ax.plot(x, np.full_like(x, 0.9 + 0.01 * k), label=f"curve {k}")
    ax.legend(loc="upper right")
    ax.set_xlabel("x")
    fig.canvas.draw()
    assert plotting.legend_over_data(ax)
    leg = plotting.legibility(fig)
    assert leg.legends_over_data == 0


def test_the_svg_records_its_smallest_type():
    fig, ax = plotting.panels(1)
    ax.plot([0, 1], [0, 1])
    svg = plotting.render_svg(fig)
    pt, px_per_pt = plotting.recorded_legibility(svg)
    assert pt == pytest.approx(plotting.min_font_pt(fig), abs=0.01)
    assert px_per_pt == pytest.approx(4 / 3, abs=1e-3)


def test_an_odd_number_of_panels_puts_the_legend_in_the_empty_slot():
    fig, axes = plotting.panels(3)
    for ax in axes:
        ax.plot([0, 1], [0, 1], label="a line")
    leg = plotting.legend_below(fig)
    assert leg.axes is fig._rnnbook_spare and not fig._rnnbook_spare.axison
    assert plotting.panels_per_row(fig) == 2
    plotting.check_legible(fig)


def _two_panels_with_long_legends():
    fig, axes = plt.subplots(1, 2, figsize=(11, 4))  # drawn wide: fitted to the column
    x = np.linspace(1, 32, 40)
    for ax in axes:
        for k in range(4):
            ax.plot(x, 1 + 0.02 * k + 0 * x, label=f"Monte Carlo estimate, curve {k}")
        ax.set(xlabel="matrix size $n$", ylabel="excess (%)", title="a panel")
        ax.legend()  # over the data: moved below the panel
    return fig


def test_legends_moved_below_side_by_side_panels_leave_them_room():
    """The layout of lsc/random_matrices' Fig. 1 before it was stacked: two panels whose
    legends cover the data. Moved below, each legend fits its panel's width, sits under the
    x-axis label, and the figure grows until the panels have room: no warning, no sliver."""
    import warnings

    fig = _two_panels_with_long_legends()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        leg = plotting.legibility(fig)
    assert not leg.problems() and not leg.squashed
    fig.canvas.draw()  # laid out again at the screen's resolution (the SVG drew at 72 dpi)
    r = fig.canvas.get_renderer()
    for ax in fig.axes:
        box = ax.get_legend().get_window_extent(r)
        assert box.width <= ax.get_window_extent(r).width + 2
        assert box.y1 <= ax.xaxis.label.get_window_extent(r).y0 + 1  # under the label
        assert ax.get_position().height * fig.get_size_inches()[1] > 1.2


@pytest.mark.filterwarnings("ignore:constrained_layout not applied")  # a planted one
def test_a_panel_narrower_than_its_legend_is_reported():
    fig, ax = plotting.panels(1)
    for k in range(6):
        ax.plot([0, 1], [k, k], label=f"a rather long legend entry number {k}")
    ax.legend(ncol=6, loc="upper center", bbox_to_anchor=(0.5, -0.2))
    with pytest.warns(UserWarning, match="have no room"):  # said, not silenced
        problems = plotting.legibility(fig).problems()
    assert plotting.squashed(fig) == ["panel 1"]
    assert any("squashed" in p for p in problems)
