"""Chapters read like the paper: short code cells, formatted to 88 columns, claims declared beside them."""

from pathlib import Path

import jupytext
import pytest

from rnnbook.book import claims, pipeline

ROOT = Path(__file__).resolve().parents[2]
CHAPTERS = pipeline.chapters(ROOT)
MAX_CELL, MAX_TOTAL, MAX_LONG = 30, 2500, 20


def code_cells(source: Path) -> list[list[str]]:
    nb = jupytext.read(source)
    return [
        [line for line in c.source.split("\n") if line.strip()]
        for c in nb.cells
        if c.cell_type == "code"
    ]


@pytest.mark.parametrize("chapter", CHAPTERS, ids=lambda c: c.short)
def test_code_cells_are_short(chapter):
    long = [len(cell) for cell in code_cells(chapter.source) if len(cell) > MAX_CELL]
    assert not long, (
        f"{chapter.short}: code cells of {long} non-blank lines (max {MAX_CELL})"
    )


@pytest.mark.parametrize("chapter", CHAPTERS, ids=lambda c: c.short)
def test_claims_are_declared_beside_the_chapter(chapter):
    declared = claims.load(claims.claims_file(chapter.short, ROOT), chapter.name)
    text = chapter.source.read_text()
    assert ".record(" not in text, "chapters pass measured values to ledger.check"
    assert declared, f"{chapter.short} declares no claim"
    assert "ledger.check(" in text


def test_chapter_code_budget():
    cells = [cell for ch in CHAPTERS for cell in code_cells(ch.source)]
    total = sum(len(cell) for cell in cells)
    long = sum(len(line) > 88 for cell in cells for line in cell)
    assert total <= MAX_TOTAL, f"{total} code lines in the chapters (max {MAX_TOTAL})"
    assert long <= MAX_LONG, (
        f"{long} code lines longer than 88 characters (max {MAX_LONG})"
    )


def test_every_claims_file_belongs_to_a_chapter():
    names = {ch.name for ch in CHAPTERS}
    for path in (ROOT / "notebooks").rglob("*.claims.yaml"):
        assert str(path.relative_to(ROOT)).removesuffix(".claims.yaml") in names, path
    claims.all_declared(ROOT)  # ids are unique across the book
