"""Figure style and progress bars shared by the chapters.

Figures get an opaque white background (readable in the light and the dark theme of the book) and
colour-blind-safe colours; progress bars show in interactive runs and stay quiet under the pipeline.
"""

from __future__ import annotations

import os
from typing import Iterable, TypeVar

import matplotlib as mpl

X = TypeVar("X")
COLORS = (
    "#0072B2",
    "#E69F00",
    "#009E73",
    "#D55E00",
    "#CC79A7",
    "#56B4E9",
    "#F0E442",
    "#000000",
)


def setup() -> None:
    """Apply the book's matplotlib style (opaque backgrounds, readable sizes, Okabe-Ito colours)."""
    mpl.rcParams.update(
        {
            "figure.facecolor": "white",
            "axes.facecolor": "white",
            "savefig.facecolor": "white",
            "savefig.transparent": False,
            "figure.dpi": 110,
            "figure.figsize": (6.4, 4.0),
            "axes.grid": True,
            "grid.alpha": 0.3,
            "axes.spines.top": False,
            "axes.spines.right": False,
            "axes.prop_cycle": mpl.cycler(color=COLORS),
            "legend.frameon": True,
            "legend.framealpha": 0.9,
            "font.size": 10,
        }
    )


def progress(items: Iterable[X], **kw) -> Iterable[X]:
    """tqdm progress in interactive runs; the plain iterable when ``RNNBOOK_QUIET`` is set (pipeline)."""
    if os.environ.get("RNNBOOK_QUIET"):
        return items
    from tqdm.auto import tqdm

    return tqdm(items, **kw)
