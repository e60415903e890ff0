"""Figure style and progress bars shared by the chapters.

Figures are drawn for the book's text column: ``COLUMN_INCHES`` wide (672 px on the page at
1280 px; a figure never needs shrinking to fit), with text at least :data:`MIN_FONT_PT` points
(>= 10 px as displayed), at most two panels per row (:func:`panels`), the Okabe-Ito colour-blind-safe
colours each paired with its own line style, legends outside the data (:func:`legend_below`,
:func:`legend_right`) and an opaque white background (readable in the light and the dark theme).
In a notebook, :func:`setup` makes every figure an SVG (sharp at any zoom; a click enlarges it in
the book) that records its smallest type size, which the browser test of the book checks
(:func:`legibility`). Progress bars show in interactive runs and stay quiet under the pipeline.
"""

from __future__ import annotations

import io
import math
import os
import re
import warnings
from dataclasses import dataclass
from typing import Iterable, Sequence, TypeVar

import matplotlib as mpl
import numpy as np

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
#: one line style per colour: curves differ by more than their hue (grey print, colour blindness)
LINESTYLES = (
    "-",
    "--",
    "-.",
    ":",
    (0, (5, 1.5, 1, 1.5, 1, 1.5)),
    (0, (8, 2)),
    (0, (1, 1)),
    (0, (3, 1, 1, 1)),
)
MARKERS = ("o", "s", "D", "^", "v", "P", "X", "*")
#: the width of the book's text column (676 px at a 1280 px window; 96 px per inch)
COLUMN_PX = 676
COLUMN_INCHES = 6.95
#: the height of one row of panels
ROW_INCHES = 2.9
#: the smallest type on a figure: 7.5 pt is 10 px when the figure is shown at its drawn size
MIN_FONT_PT = 7.5
MIN_TEXT_PX = 10.0
MAX_PANELS_PER_ROW = 2
#: above this size an SVG (a cloud of many points) is sent as a PNG at twice the resolution
SVG_MAX_BYTES = 1_500_000
PNG_DPI = 192
_LEGIBILITY = re.compile(
    r"rnnbook-legibility: min-font-pt=([0-9.]+) px-per-pt=([0-9.]+)"
)


def style() -> dict:
    """The book's matplotlib settings (rcParams)."""
    return {
        "figure.facecolor": "white",
        "axes.facecolor": "white",
        "savefig.facecolor": "white",
        "savefig.transparent": False,
        "figure.dpi": 96,
        "figure.figsize": (COLUMN_INCHES, 3.4),
        "figure.constrained_layout.use": True,
        "axes.grid": True,
        "grid.alpha": 0.3,
        "axes.spines.top": False,
        "axes.spines.right": False,
        "axes.prop_cycle": mpl.cycler(color=COLORS) + mpl.cycler(linestyle=LINESTYLES),
        "legend.frameon": True,
        "legend.framealpha": 1.0,
        "legend.edgecolor": "0.8",
        "font.size": 9.5,
        "axes.titlesize": 10,
        "axes.labelsize": 9.5,
        "xtick.labelsize": 8.5,
        "ytick.labelsize": 8.5,
        "legend.fontsize": 8.5,
        "legend.title_fontsize": 8.5,
        "figure.titlesize": 10.5,
        "lines.linewidth": 1.7,
        "lines.markersize": 5,
        "svg.fonttype": "path",
    }


def setup() -> None:
    """Apply the book's figure style; in a notebook, show figures as SVG drawn for the column."""
    import matplotlib.pyplot as plt

    # the backend is chosen at the first figure; the notebook's inline backend then resets the
    # style and the figure formats, so choose it now, before setting them
    plt.close(plt.figure())
    mpl.rcParams.update(style())
    try:
        from IPython import get_ipython
    except ImportError:  # pragma: no cover
        return
    ip = get_ipython()
    if ip is None:
        return
    from matplotlib.figure import Figure

    formatters = ip.display_formatter.formatters
    formatters["image/svg+xml"].for_type(Figure, _svg)
    formatters["image/png"].for_type(Figure, _png)
    for mime in ("image/jpeg", "application/pdf"):
        formatters[mime].pop(Figure, None)


def panels(
    n: int,
    *,
    row_height: float = ROW_INCHES,
    per_row: int = MAX_PANELS_PER_ROW,
    **kw,
):
    """A figure of ``n`` panels for the column: at most ``per_row`` (2) side by side, the others
    stacked below. Returns ``(fig, axes)`` with ``axes`` a flat array of the ``n`` panels
    (one Axes for ``n == 1``); ``kw`` goes to ``matplotlib.pyplot.subplots``."""
    import matplotlib.pyplot as plt

    ncols = max(1, min(n, per_row))
    nrows = math.ceil(n / ncols)
    kw.setdefault("figsize", (COLUMN_INCHES, row_height * nrows + 0.3))
    fig, axes = plt.subplots(nrows, ncols, squeeze=False, **kw)
    flat = axes.ravel()
    for ax in flat[n:]:
        ax.axis("off")  # an empty slot: where legend_below puts the figure's legend
        fig._rnnbook_spare = ax
    return (fig, flat[0]) if n == 1 else (fig, flat[:n])


def legend_below(fig_or_ax, ncol: int | None = None, **kw):
    """One legend for the whole figure (or for one panel), below the panels: never over the data."""
    from matplotlib.figure import Figure

    if isinstance(fig_or_ax, Figure):
        handles, labels = _unique_handles(fig_or_ax.axes)
        spare = getattr(fig_or_ax, "_rnnbook_spare", None)
        if spare is not None:  # the empty slot of an odd number of panels
            return spare.legend(handles, labels, loc="center", **kw)
        kw.setdefault("loc", "outside lower center")
        return fig_or_ax.legend(handles, labels, ncol=ncol or min(3, len(labels)), **kw)
    handles, labels = fig_or_ax.get_legend_handles_labels()
    kw.setdefault("loc", "upper center")
    kw.setdefault("bbox_to_anchor", (0.5, -0.22))
    return fig_or_ax.legend(
        handles, labels, ncol=ncol or min(2, max(1, len(labels))), **kw
    )


def legend_right(ax, **kw):
    """The legend of one panel to the right of it, outside the data."""
    kw.setdefault("loc", "upper left")
    kw.setdefault("bbox_to_anchor", (1.02, 1.0))
    kw.setdefault("borderaxespad", 0.0)
    return ax.legend(**kw)


def _unique_handles(axes) -> tuple[list, list[str]]:
    handles, labels = [], []
    for ax in axes:
        for h, lab in zip(*ax.get_legend_handles_labels()):
            if lab not in labels and not lab.startswith("_"):
                handles.append(h)
                labels.append(lab)
    return handles, labels


def fit_column(fig) -> None:
    """Redraw a figure drawn wider than the column at the column's width, type size unchanged
    (so its type is shown at its size instead of being shrunk with the picture); legends that
    cover data go below their panel, and the figure grows until its panels have room."""
    w, h = fig.get_size_inches()
    if w > COLUMN_INCHES * 1.01:
        fig.set_size_inches(COLUMN_INCHES, h * max(COLUMN_INCHES / w, 0.72))
    legends_outside(fig)
    make_room(fig)


#: what matplotlib says when the constrained layout cannot give the panels any room
COLLAPSED = "constrained_layout not applied"
#: a panel narrower or lower than this (inches) is squashed: its data cannot be read
MIN_PANEL_INCHES = 0.75


def _draw(fig) -> bool:
    """Draw ``fig``; whether its constrained layout collapsed (its decorations, such as
    legends below the panels, leave the panels no room). Other warnings pass on."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fig.canvas.draw()
    collapsed = False
    for w in caught:
        if COLLAPSED in str(w.message):
            collapsed = True
        else:
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    return collapsed


def squashed(fig) -> list[str]:
    """The titles (or numbers) of the panels drawn too small to read: narrower or lower than
    :data:`MIN_PANEL_INCHES`, or narrower than their own legend, which the layout then makes
    room for beside them (colour bars and empty slots not counted)."""
    out = []
    w, h = fig.get_size_inches()
    renderer = fig.canvas.get_renderer()
    for i, ax in enumerate(fig.axes):
        if not ax.get_visible() or not ax.axison or ax.get_label() == "<colorbar>":
            continue
        p, leg = ax.get_position(), ax.get_legend()
        wide = leg is not None and leg.get_visible()
        if wide:
            wide = (
                leg.get_window_extent(renderer).width
                > 1.05 * ax.get_window_extent(renderer).width + 2
            )
        if wide or min(p.width * w, p.height * h) < MIN_PANEL_INCHES:
            out.append(ax.get_title() or f"panel {i + 1}")
    return out


def _too_low(fig) -> bool:
    h = fig.get_size_inches()[1]
    return any(
        ax.get_position().height * h < MIN_PANEL_INCHES
        for ax in fig.axes
        if ax.get_visible() and ax.axison and ax.get_label() != "<colorbar>"
    )


def make_room(fig, tries: int = 8) -> None:
    """Grow a figure's height until its constrained layout gives every panel room (legends
    moved below the panels take height); warn when it cannot."""
    if not fig.get_constrained_layout():
        return
    for _ in range(tries):
        if not _draw(fig) and not _too_low(fig):
            break
        w, h = fig.get_size_inches()
        fig.set_size_inches(w, h * 1.2)
    if _draw(fig) or squashed(fig):
        warnings.warn(
            f"the figure's panels {squashed(fig)} have no room: give it fewer or "
            "shorter legends, or stack its panels",
            stacklevel=2,
        )


def _data_points(ax) -> np.ndarray:
    """The drawn data of a panel in display coordinates (lines densified to every ~4 px)."""
    out = [np.empty((0, 2))]
    for line in ax.get_lines():
        if not line.get_visible() or len(line.get_xydata()) == 0:
            continue
        xy = line.get_transform().transform(np.asarray(line.get_xydata(), float))
        xy = xy[np.all(np.isfinite(xy), axis=1)][:4000]
        if line.get_linestyle() not in ("None", "", " ") and len(xy) > 1:
            seg = np.linalg.norm(np.diff(xy, axis=0), axis=1)
            n = np.clip((seg / 4).astype(int), 1, 200)
            t = np.concatenate([np.linspace(0, 1, k, endpoint=False) for k in n])
            i = np.repeat(np.arange(len(seg)), n)
            xy = np.vstack([xy[i] + t[:, None] * (xy[i + 1] - xy[i]), xy[-1:]])
        out.append(xy)
    for coll in ax.collections:
        if not coll.get_visible():
            continue
        offsets = np.asarray(coll.get_offsets(), float)
        if len(offsets) and np.isfinite(offsets).all() and len(offsets) > 1:
            out.append(coll.get_offset_transform().transform(offsets))
        for path in coll.get_paths()[:2000]:
            v = coll.get_transform().transform(path.vertices)
            out.append(v[np.all(np.isfinite(v), axis=1)])
    return np.vstack(out)


def legend_over_data(ax) -> bool:
    """Whether the legend drawn inside a panel covers any of its data."""
    leg = ax.get_legend()
    if leg is None or not leg.get_visible():
        return False
    renderer = ax.figure.canvas.get_renderer()
    box = leg.get_window_extent(renderer).padded(-2)
    inside = ax.get_window_extent(renderer)
    if not box.overlaps(inside):
        return False
    xy = _data_points(ax)
    if not len(xy):
        return False
    x, y = xy[:, 0], xy[:, 1]
    hit = (x > box.x0) & (x < box.x1) & (y > box.y0) & (y < box.y1)
    return bool(np.any(hit))


def legends_outside(fig) -> None:
    """Move every legend that covers data to below its panel (outside the data); moving one
    reshapes the others' panels, so until none is left."""
    for _ in range(len(fig.axes) + 1):
        _draw(fig)  # the layout is made to fit once the legends are placed (make_room)
        over = [ax for ax in fig.axes if legend_over_data(ax)]
        if not over:
            return
        _move_below(over[0])


def _move_below(ax) -> None:
    """The panel's legend below its x-axis label (an offset in points: the same gap whatever
    the panel's height), in as many columns as fit the panel's width (at most 3)."""
    from matplotlib.transforms import ScaledTranslation

    fig, leg = ax.figure, ax.get_legend()
    renderer = fig.canvas.get_renderer()
    handles, labels = leg.legend_handles, [t.get_text() for t in leg.texts]
    # an entry: its widest text, its handle and the gaps (3.5 font sizes)
    widest = max(t.get_window_extent(renderer).width for t in leg.texts)
    entry = widest + 3.5 * leg.prop.get_size_in_points() * fig.dpi / 72
    fits = ax.get_window_extent(renderer).width // entry
    ncol = int(max(1, min(len(labels), 3, fits)))
    leg.set_visible(False)  # measure the decorations below the axis without it
    below = ax.bbox.y0 - ax.get_tightbbox(renderer).y0
    drop = ScaledTranslation(0, -(below * 72 / fig.dpi + 4) / 72, fig.dpi_scale_trans)
    while True:
        new = ax.legend(
            handles,
            labels,
            loc="upper center",
            bbox_to_anchor=(0.5, 0),
            bbox_transform=ax.transAxes + drop,
            ncol=ncol,
        )
        width = new.get_window_extent(renderer).width
        if ncol == 1 or width <= 0.95 * ax.get_window_extent(renderer).width:
            return
        ncol -= 1  # one column fewer, until it is no wider than its panel


def min_font_pt(fig) -> float:
    """The smallest type size (points) among the figure's visible, non-empty texts."""
    from matplotlib.text import Text

    sizes = [
        t.get_fontsize()
        for t in fig.findobj(Text)
        if t.get_visible() and t.get_text().strip() and _drawn(t)
    ]
    return min(sizes) if sizes else 99.0


def _drawn(t) -> bool:
    ax = t.axes
    return ax is None or ax.get_visible()


def panels_per_row(fig) -> int:
    """The largest number of panels side by side (colour bars and twin axes not counted)."""
    boxes = []
    for ax in fig.axes:
        if not ax.get_visible() or ax.get_label() == "<colorbar>":
            continue
        p = ax.get_position()
        if p.width < 0.08:  # a colour bar or a narrow marginal axis
            continue
        if any(abs(p.x0 - q.x0) < 1e-3 and abs(p.y0 - q.y0) < 1e-3 for q in boxes):
            continue  # a twin of an Axes already counted
        boxes.append(p)
    rows: list[list] = []
    for p in boxes:
        for row in rows:
            q = row[0]
            if min(p.y1, q.y1) - max(p.y0, q.y0) > 0.5 * min(p.height, q.height):
                row.append(p)
                break
        else:
            rows.append([p])
    return max((len(r) for r in rows), default=0)


@dataclass(frozen=True)
class Legibility:
    """How a figure is shown in the column: drawn width, displayed width, smallest type."""

    width_px: float  # drawn width (CSS px)
    displayed_px: (
        float  # shown width: the drawn width, or the column's where it is wider
    )
    min_font_pt: float
    min_text_px: float  # the smallest type as displayed
    panels_per_row: int
    legends_over_data: int = 0
    squashed: tuple[str, ...] = ()

    def problems(self) -> list[str]:
        out = []
        if self.min_text_px < MIN_TEXT_PX - 1e-6:
            out.append(
                f"smallest text {self.min_text_px:.1f} px as displayed "
                f"(< {MIN_TEXT_PX:g} px): type {self.min_font_pt:g} pt drawn "
                f"{self.width_px:.0f} px wide, shown {self.displayed_px:.0f} px wide"
            )
        if self.panels_per_row > MAX_PANELS_PER_ROW:
            out.append(
                f"{self.panels_per_row} panels side by side (at most "
                f"{MAX_PANELS_PER_ROW}: stack the others)"
            )
        if self.legends_over_data:
            out.append(f"{self.legends_over_data} legend(s) over the data")
        if self.squashed:
            out.append(
                f"panel(s) squashed (under {MIN_PANEL_INCHES} in, or narrower than "
                f"their legend): {list(self.squashed)}"
            )
        return out


def legibility(fig, fit: bool = True) -> Legibility:
    """Render ``fig`` as the book shows it (fitted to the column with ``fit``) and measure it."""
    if fit:
        fit_column(fig)
    svg = render_svg(fig)
    width = svg_width_px(svg)
    shown = min(width, COLUMN_PX)
    pt = min_font_pt(fig)
    over = sum(legend_over_data(ax) for ax in fig.axes)
    px = pt * 4 / 3 * shown / width
    small = tuple(squashed(fig))
    return Legibility(width, shown, pt, px, panels_per_row(fig), over, small)


def check_legible(fig) -> Legibility:
    """:func:`legibility`, raising AssertionError naming what reads badly."""
    leg = legibility(fig)
    problems = leg.problems()
    assert not problems, "; ".join(problems)
    return leg


def render_svg(fig) -> str:
    """The figure as the SVG the book shows, its smallest type size recorded in its description."""
    buf = io.BytesIO()
    if fig.stale:  # tick labels get their text when drawn (fit_column drew it)
        fig.canvas.draw()
    note = (
        f"rnnbook-legibility: min-font-pt={min_font_pt(fig):.2f} px-per-pt={4 / 3:.4f}"
        f"\nrnnbook-alt: {describe(fig)}"
    )
    fig.savefig(
        buf,
        format="svg",
        bbox_inches="tight",
        pad_inches=0.03,
        facecolor="white",
        metadata={"Description": note, "Date": None},  # the same figure, the same file
    )
    return buf.getvalue().decode("utf-8")


def _words(text: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"[$\\{}]|mathrm|mathbb", "", text)).strip()


def describe(fig) -> str:
    """What a figure shows, from its titles and axis labels (a fallback alt text)."""
    parts = []
    sup = getattr(fig, "_suptitle", None)
    if sup is not None and sup.get_text():
        parts.append(_words(sup.get_text()))
    for ax in fig.axes:
        if ax.get_label() == "<colorbar>" or not ax.get_visible():
            continue
        x, y = _words(ax.get_xlabel()), _words(ax.get_ylabel())
        axes = ", ".join(f"{k} {v}" for k, v in (("x:", x), ("y:", y)) if v)
        panel = _words(ax.get_title()) + (f" ({axes})" if axes else "")
        if panel.strip():
            parts.append(panel.strip())
    text = "Figure: " + "; ".join(parts) if parts else "Figure"
    return text.replace("<", "").replace(">", "").replace("&", "and")[:400]


def svg_width_px(svg: str) -> float:
    m = re.search(r'<svg[^>]*\swidth="([0-9.]+)pt"', svg)
    return float(m.group(1)) * 4 / 3 if m else float("nan")


def recorded_legibility(data: bytes | str) -> tuple[float, float] | None:
    """``(min_font_pt, px_per_pt)`` recorded in a figure file of the book (SVG or PNG), or None."""
    text = data.decode("latin-1") if isinstance(data, bytes) else data
    m = _LEGIBILITY.search(text)
    return (float(m.group(1)), float(m.group(2))) if m else None


def _svg(fig):
    fit_column(fig)
    svg = render_svg(fig)
    fig._rnnbook_svg = len(svg) <= SVG_MAX_BYTES
    return svg if fig._rnnbook_svg else None


def _png(fig):
    if getattr(fig, "_rnnbook_svg", None) is None:
        _svg(fig)
    if fig._rnnbook_svg:
        return None
    buf = io.BytesIO()
    note = f"rnnbook-legibility: min-font-pt={min_font_pt(fig):.2f} px-per-pt={PNG_DPI / 72:.4f}"
    fig.savefig(
        buf,
        format="png",
        dpi=PNG_DPI,
        bbox_inches="tight",
        pad_inches=0.03,
        facecolor="white",
        metadata={"Description": note},
    )
    from PIL import Image

    width = Image.open(io.BytesIO(buf.getvalue())).size[0]
    return buf.getvalue(), {"width": int(round(width * 96 / PNG_DPI))}


def styles(n: int) -> list[dict]:
    """``n`` distinct (colour, line style, marker) keyword sets, in the book's order."""
    return [
        {
            "color": COLORS[i % len(COLORS)],
            "ls": LINESTYLES[i % len(LINESTYLES)],
            "marker": MARKERS[i % len(MARKERS)],
        }
        for i in range(n)
    ]


def sequential(n: int, cmap: str = "viridis") -> Sequence[tuple]:
    """``n`` colours along a perceptually uniform, colour-blind-safe map (for ordered values)."""
    return [mpl.colormaps[cmap](x) for x in np.linspace(0.05, 0.85, max(n, 1))][:n]


def progress(items: Iterable[X], **kw) -> Iterable[X]:
    """tqdm progress in interactive runs; the plain iterable when ``RNNBOOK_QUIET`` is set (pipeline)."""
    if os.environ.get("RNNBOOK_QUIET"):
        return items
    from tqdm.auto import tqdm

    return tqdm(items, **kw)
