"""A fixture for the figure tests: every figure a test draws is checked as the book shows it.

Each figure is drawn in the book's style, fitted to the text column, and must have its smallest text
at least 10 px as displayed and at most two panels side by side (:func:`rnnbook.plotting.legibility`).
"""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402

from rnnbook import plotting  # noqa: E402


@pytest.fixture
def legible_figures(monkeypatch):
    """Check every figure drawn in the test (when it is closed, or at the end)."""
    problems: dict[str, list[str]] = {}
    close = plt.close

    def check(fig) -> None:
        name = next((ax.get_title() for ax in fig.axes if ax.get_title()), "")
        found = plotting.legibility(fig).problems()
        if found:
            problems[f"figure {fig.number} {name!r}"] = found

    def checked_close(fig=None):
        figs = (
            [plt.figure(n) for n in plt.get_fignums()]
            if fig == "all"
            else [fig if fig is not None else plt.gcf()]
        )
        for f in figs:
            if isinstance(f, matplotlib.figure.Figure):
                check(f)
        close(fig)

    with matplotlib.rc_context(plotting.style()):
        monkeypatch.setattr(plt, "close", checked_close)
        yield
        for n in plt.get_fignums():
            check(plt.figure(n))
        close("all")
    assert not problems, "\n".join(f"{k}: {v}" for k, v in problems.items())
