"""The package page's example runs as printed, and the generated reference gives every room
and every module a page of its own (:mod:`rnnbook.book.reference`)."""

import re
from pathlib import Path

import yaml

from rnnbook.book import pipeline, reference

ROOT = Path(__file__).resolve().parents[2]
ROOMS = ("lsc", "implicit_bias", "mean_field", "infinite_width", "synthesis")


def test_pretraining_example_runs_as_printed(capsys):
    text = (ROOT / "book" / "api.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    assert len(blocks) == 1
    exec(compile(blocks[0], "book/api.md", "exec"), {"__name__": "api_example"})
    out = capsys.readouterr().out
    assert "LSC pre-training converged" in out


def test_where_covers_every_chapter():
    chapters = pipeline.chapters(ROOT)
    table = reference.where(chapters)
    for ch in chapters:
        assert f"`/{ch.name}`" in table
    assert "{mod}`lsc.gradient_paths <rnnbook.lsc.gradient_paths>`" in table


def package_modules() -> list[str]:
    """Every module of the paper rooms and the common layer, from the files themselves."""
    src = ROOT / "src" / "rnnbook"
    out = [
        f"rnnbook.{room}.{p.stem}"
        for room in ROOMS
        for p in (src / room).glob("[!_]*.py")
    ]
    common = [p.stem for p in src.glob("[!_]*.py") if p.stem not in ("__main__",)]
    return out + [f"rnnbook.{m}" for m in common]


def test_every_module_has_its_page_listed_in_the_table_of_contents(tmp_path):
    (tmp_path / "_toc.yml").write_text((ROOT / "_toc.yml").read_text())
    chapters = pipeline.chapters(ROOT)
    written = reference.write_pages(tmp_path, chapters)
    folder = tmp_path / "book" / "reference"
    assert sorted(written) == sorted(folder.glob("*.md"))
    toc = yaml.safe_load((tmp_path / "_toc.yml").read_text())
    listed = pipeline._toc_files(toc)
    index = reference.api()
    for module in package_modules():
        page = (folder / f"{module}.md").read_text()
        assert page.startswith(f"# {module}\n")
        assert f".. automodule:: {module}\n   :members:" in page
        assert f"book/reference/{module}" in listed
        assert f"<{module}>`" in index
    for room in ROOMS:
        page = (folder / f"rnnbook.{room}.md").read_text()
        assert f".. automodule:: rnnbook.{room}\n" in page
        assert f"book/reference/rnnbook.{room}" in listed
    # a room's page says which chapters call a module, and the module's page too
    lsc = (folder / "rnnbook.lsc.md").read_text()
    line = next(x for x in lsc.splitlines() if x.startswith("- :mod:`gradient_paths "))
    assert "Gradient paths on the time-depth grid" in line
    assert ":doc:`/notebooks/lsc/lemma2_paths`" in line
    assert (
        ":doc:`/notebooks/lsc/lemma2_paths`"
        in (folder / "rnnbook.lsc.gradient_paths.md").read_text()
    )
    # a re-exported name is documented where it is imported, pointing to its home
    assert ".. py:function:: lsc_pretrain_" in lsc
    pretrain = (folder / "rnnbook.lsc.pretrain.md").read_text()
    assert ":class:`StackedRNN <rnnbook.lsc.stack.StackedRNN>`" in pretrain
    # the hand-written entries stay where they were, in their order
    assert [f for f in listed if not f.startswith("book/reference/")] == [
        f for f in pipeline._toc_files(yaml.safe_load((ROOT / "_toc.yml").read_text()))
    ]


def test_a_table_of_contents_without_the_package_page_gets_no_reference(tmp_path):
    (tmp_path / "_toc.yml").write_text("format: jb-book\nroot: book/intro\n")
    assert reference.write_pages(tmp_path, []) == []
    assert not (tmp_path / "book").exists()
    assert (tmp_path / "_toc.yml").read_text() == "format: jb-book\nroot: book/intro\n"


def test_the_first_sentence_of_a_docstring():
    first = reference.first_sentence
    assert first("Eq. (1) of the paper (Sec. II-A). More here.") == (
        "Eq. (1) of the paper (Sec. II-A)."
    )
    assert first("Fig. 3 of Chen et al. 2018, Sec. 3. Then.") == (
        "Fig. 3 of Chen et al. 2018, Sec. 3."
    )
    assert (
        first("A line without a stop:\n\nA second paragraph.")
        == "A line without a stop."
    )
    assert (
        first("Does it converge? (Sec. II-D.) Yes.") == "Does it converge? (Sec. II-D.)"
    )
    assert first("Two literals ``a. B`` in one sentence. Next.") == (
        "Two literals ``a. B`` in one sentence."
    )
    long = (
        "The experiment of the paper, "
        + ("word " * 40).rstrip()
        + ": the detail. Next."
    )
    assert (
        first(long) == "The experiment of the paper, " + ("word " * 40).rstrip() + "."
    )
    assert first("") == ""


def test_a_summary_reads_the_same_on_the_room_s_page():
    """A cross-reference relative to its module would not resolve on the room's page (a
    warning, and the book's build fails): it is made absolute where the module has the
    name, else set as a literal; a full name or a suffix is kept."""
    said = reference.portable(
        "The :func:`convergence` of :mod:`.linear_diagnostics`, via "
        ":func:`rnnbook.stats.seed_interval`, :class:`~rnnbook.lsc.stack.Cell`, "
        ":meth:`the radius <StackedRNN.lsc_jacobians>` and :func:`nowhere`.",
        "rnnbook.lsc.stack",
    )
    assert said == (
        "The ``convergence`` of :mod:`.linear_diagnostics`, via "
        ":func:`rnnbook.stats.seed_interval`, :class:`~rnnbook.lsc.stack.Cell`, "
        ":meth:`the radius <rnnbook.lsc.stack.StackedRNN.lsc_jacobians>` and "
        "``nowhere``."
    )
    assert reference.portable(":func:`batched_jacobian`", "rnnbook.lsc.stack") == (
        ":func:`batched_jacobian <rnnbook.lsc.stack.batched_jacobian>`"
    )
