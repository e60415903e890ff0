"""Plain text for titles with math: browser tabs, search results and cross-references."""

from docutils import nodes

from rnnbook.book.legible_sphinx import plain, tex_plain


def test_tex_plain_reads_as_words():
    assert tex_plain(r"\rho_t=\tfrac12") == "ρₜ = 1/2"
    assert tex_plain(r"\rho_j") == "ρⱼ"
    assert tex_plain(r"\nu_W \le 1") == "ν_W ≤ 1"
    assert "\\" not in tex_plain(r"\frac{a}{b} + \mathcal{T}")


def test_plain_title_keeps_its_words_and_writes_its_math():
    title = nodes.title(
        "",
        "",
        nodes.Text("Deep RNNs pre-trained to "),
        nodes.math("", r"\rho_t=\tfrac12"),
    )
    assert plain(title) == "Deep RNNs pre-trained to ρₜ = 1/2"


def test_search_index_gets_the_plain_section_titles(tmp_path):
    from types import SimpleNamespace

    from rnnbook.book.legible_sphinx import plain_search_titles

    (tmp_path / "searchindex.js").write_text(
        'Search.setIndex({"alltitles": {"Deriving \\\\rho_j from": [[0, "x"]]}})'
    )
    env = SimpleNamespace(
        rnnbook_plain_titles={r"Deriving \rho_j from": "Deriving ρⱼ from"}
    )
    plain_search_titles(SimpleNamespace(outdir=str(tmp_path), env=env), None)
    assert '"Deriving ρⱼ from"' in (tmp_path / "searchindex.js").read_text()
