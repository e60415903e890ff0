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
