"""Plain text for titles with math: browser tabs, search results and cross-references."""

from docutils import nodes

from rnnbook.book import legible_sphinx
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


def test_ascii_math_of_measured_values_becomes_tex():
    from rnnbook.book.legible_sphinx import ascii_tex

    def math(text):
        return [p for p, is_math in ascii_tex(text) if is_math]

    assert math("rho_t = 0.5: 0.06, rho_t = 1: 3.4") == [r"\rho_{t}", r"\rho_{t}"]
    assert math("error / ||X^+ y||") == [r"\lVert X^{+} y \rVert"]
    assert math("sqrt(nu_W) = 0.5") == [r"\sqrt{\nu_{W}}"]
    assert math("test R^2; draws of lambda*; Sigma_12 = 1") == [
        "R^{2}",
        r"\lambda^*",
        r"\Sigma_{12}",
    ]
    # a difference of one letter written apart is one atom; "Delta to" is a word after it
    assert math("binom(Delta t, Delta l+2); T/Delta l=100; Delta to x") == [
        r"\Delta t",
        r"\Delta l",
        r"\Delta l",
        r"\Delta",
    ]
    # words, claim ids, parameter names and paths are left as they are
    for text in ("lsc.table1.rho1-worst", "alif_plus relu_rnn", "the alphabet", "a/b"):
        assert math(text) == [], text
    assert "".join(p for p, _ in ascii_tex("mean over seeds")) == "mean over seeds"


def test_a_claim_box_gets_its_ascii_math_typeset_and_its_code_kept():
    from types import SimpleNamespace

    from rnnbook.book.legible_sphinx import typeset_box_math

    para = nodes.paragraph("", "", nodes.Text("rho_t = 1: 3.4 and "))
    para += nodes.literal("", "nu_W")
    box = nodes.admonition("", para, classes=["claim-box"])
    outside = nodes.paragraph("", "", nodes.Text("rho_t elsewhere"))
    doc = nodes.document(None, None)
    doc += [box, outside]
    typeset_box_math(SimpleNamespace(), doc)
    (m,) = list(box.findall(nodes.math))
    assert m.astext() == r"\rho_{t}"
    assert next(iter(box.findall(nodes.literal))).astext() == "nu_W"  # code stays code
    assert not list(outside.findall(nodes.math))  # only claim boxes


def test_a_generated_table_gets_its_ascii_math_typeset_outside_code_and_math():
    from rnnbook.book.legible_sphinx import ascii_math_html

    out = ascii_math_html(
        '<td>rho_t = 1 <code>lsc.a.rho_t</code> <span class="math">\\(\\rho_t\\)</span>'
        " &lt;= sigma_w^2</td>"
    )
    assert out.count(r"\(\rho_{t}\)") == 1 and r"\(\sigma_{w}^{2}\)" in out
    assert "<code>lsc.a.rho_t</code>" in out and r"\(\rho_t\)" in out  # left alone


def test_a_tables_escaped_text_is_read_as_text_and_written_back_escaped():
    from rnnbook.book.legible_sphinx import ascii_math_html

    out = ascii_math_html(
        r"<td>Eq. (9) -\mathbb{E}[\sigma&#x27;(u_1)\sigma&#x27;(u_2)], a &lt; b</td>"
    )
    # the prime is part of the TeX (not a cut at the entity's ';'), the rest stays escaped
    assert r"\(-\mathbb{E}[\sigma&#x27;(u_1)\sigma&#x27;(u_2)]\)" in out
    assert out.endswith(", a &lt; b</td>")


def test_a_long_one_line_report_is_folded_as_a_list():
    report = "LSC pre-training of the FFNs: " + "; ".join(
        f"relu seed {s}: converged in {s + 1} steps, mean radius 0.98" for s in range(6)
    )
    html = legible_sphinx.folded_list(report)
    assert html.startswith('<details class="output-list"><summary>LSC pre-training')
    assert "(6 entries)</summary>" in html and html.count("<li>") == 6
    assert "<li>relu seed 5: converged in 6 steps, mean radius 0.98</li>" in html
    short = "LSC pre-training: " + "; ".join(["a", "b", "c", "d", "e"])
    assert legible_sphinx.folded_list(short) is None  # five items read as a line
    assert legible_sphinx.folded_list("no heading; " * 8) is None
    out = nodes.container(classes=["cell_output"])
    out += nodes.paragraph(report, report)
    math = nodes.paragraph("", "", nodes.Text(report), nodes.math("x", "x"))
    out += math
    bundle = nodes.container(mime_type="text/markdown")  # as MyST-NB reads an output
    bundle += nodes.paragraph(report, report)
    prose = nodes.paragraph(report, report)  # the same words in the chapter's own prose
    doc = nodes.document(None, None)
    doc += [out, nodes.container("", bundle, classes=["cell_output"]), prose]
    legible_sphinx.fold_long_reports(None, doc)
    assert isinstance(out.children[0], nodes.raw) and out.children[1] is math
    assert isinstance(bundle.children[0], nodes.raw)
    assert doc.children[-1] is prose
