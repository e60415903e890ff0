"""The book-to-record interval chart (rnnbook.book.scale_chart)."""

from __future__ import annotations

import re

from rnnbook.book.scale_chart import COLOURS, Row, svg


def _xs(chart: str, tag: str, attr: str) -> list[float]:
    return [float(v) for v in re.findall(rf'<{tag} {attr}="([-\d.]+)"', chart)]


def test_each_run_is_a_bar_over_its_interval_in_its_decisions_colour():
    rows = [
        Row("book (4 seeds)", 0.1, -0.05, 0.25, "inconclusive"),
        Row("cpu record (40 seeds)", 0.12, 0.08, 0.16, "reproduced"),
    ]
    chart = svg("gain", rows, null=0.0, line=0.05, paper=0.2)
    bars = re.findall(
        r'<line x1="([\d.]+)" x2="([\d.]+)" y1="[\d.]+" y2="[\d.]+" '
        r'stroke="(#\w+)"',
        chart,
    )
    assert [c for *_, c in bars] == [COLOURS["inconclusive"], COLOURS["reproduced"]]
    (b0, b1), (r0, r1) = [(float(a), float(b)) for a, b, _ in bars]
    # the record's narrower interval lies inside the book's, on one linear axis
    assert b0 < r0 < r1 < b1
    scale = (b1 - b0) / 0.30
    assert abs((r1 - r0) - 0.08 * scale) < 0.2
    # the three marks, labelled, and the text in the page's own colour (both themes)
    for name in ("no effect 0", "line 0.05", "paper 0.2"):
        assert name in chart
    assert 'fill="currentColor"' in chart and "viewBox" in chart


def test_nothing_is_drawn_without_a_finite_interval():
    assert svg("gain", [Row("book", float("nan"), 0.0, 1.0, "inconclusive")]) == ""
    assert svg("gain", []) == ""


def test_the_charts_title_writes_its_ascii_math_as_plain_unicode():
    from rnnbook.book.scale_chart import Row, svg

    out = svg("rho_t = 1 grows", [Row("book", 0.1, -0.1, 0.3, "inconclusive")], 0, 0.3)
    assert "<title>ρₜ = 1 grows</title>" in out and 'aria-label="ρₜ = 1 grows"' in out
    assert "rho_t" not in out


def test_a_long_row_label_and_the_marks_stay_inside_the_chart():
    import re

    from rnnbook.book import scale_chart as S

    rows = [S.Row("cpu record (160 seeds)", 0.27, 0.2, 0.34, "inconclusive")]
    out = S.svg("growth", rows, 0.0, 0.301, 0.602)
    (x,) = re.findall(r'<text x="([\d.]+)"[^>]*text-anchor="end"[^>]*>cpu record', out)
    assert float(x) - S.LABEL_CHAR * len(rows[0].label) >= 0
    for left, text in re.findall(
        r'<text x="([\d.]+)" y="\d+" font-size="11"[^>]*>([^<]+)', out
    ):
        assert 0 <= float(left) and float(left) + S.CHAR * len(text) <= S.WIDTH
