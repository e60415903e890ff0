"""The ledger records declared claims; the declared rule, not the chapter, gives the verdict."""

import json

import numpy as np
import pytest

from rnnbook.book import ledger
from rnnbook.book.claims import ClaimError
from rnnbook.book.ledger import Ledger

CLAIMS = """
paper: lsc
claims:
  - id: lsc.b
    source: Lemma 2
    statement: second
    tolerance: 0.1
    constants: {tol: 0.1}
    rule:
      - reproduced: abs(x - 1) <= tol
      - partly-reproduced: abs(x - 1) <= 3 * tol
      - otherwise: not-reproduced
    measured: "x = {x:.2f}"
  - id: lsc.a
    source: Lemma 2
    statement: first
    rule:
      - reproduced: all(v == 0 for v in errors)
      - otherwise: not-reproduced
    note: "{n} errors checked"
  - id: lsc.gated
    source: Fig. 2
    statement: trained claim
    trained: acc >= 0.2
    rule:
      - reproduced: effect > 0
      - otherwise: not-reproduced
  - id: lsc.gated2
    source: Fig. 3
    statement: trained claim with a shown value
    trained: {rule: "max(accs) >= 2 * chance", value: "max(accs)"}
    constants: {chance: 0.1}
    rule:
      - reproduced: lo > 0
      - otherwise: not-reproduced
  - id: lsc.skip
    source: Fig. 9
    statement: not done
    rule: not-attempted
    note: needs CIFAR
"""


@pytest.fixture
def book(tmp_path, monkeypatch):
    (tmp_path / "notebooks" / "lsc").mkdir(parents=True)
    (tmp_path / "notebooks" / "lsc" / "x.claims.yaml").write_text(CLAIMS)
    monkeypatch.setenv("RNNBOOK_CLAIMS_DIR", str(tmp_path / "claims"))
    monkeypatch.setenv("RNNBOOK_ROOT", str(tmp_path))
    return tmp_path


def test_declared_rule_decides(book):
    led = Ledger("lsc/x", "smoke")
    assert led.check("lsc.b", x=np.float64(1.05)).verdict == "reproduced"
    assert led.check("lsc.b", x=1.2).verdict == "partly-reproduced"
    c = led.check("lsc.b", x=2.0)
    assert (
        c.verdict == "not-reproduced"
        and c.measured == "x = 2.00"
        and c.tolerance == 0.1
    )
    a = led.check("lsc.a", errors=np.zeros(3), n=3)
    assert a.verdict == "reproduced" and a.note == "3 errors checked"
    assert led.check("lsc.a", errors=[0, 1], n=2).verdict == "not-reproduced"
    records = ledger.collect(book / "claims")
    assert [r["id"] for r in records] == ["lsc.a", "lsc.b"]
    for r in records:
        assert set(ledger.FIELDS) <= set(r) and r["chapter"] == "notebooks/lsc/x"
        assert r["rule"] and r["profile"] == "smoke"
    json.dumps(records)
    assert led.table().startswith("<!--")  # the verdicts stand once, at the top
    assert records[0]["values"] == {"errors": [0, 1], "n": 2}


def test_gate_makes_untrained_inconclusive(book):
    led = Ledger("lsc/x", "book")
    c = led.check("lsc.gated", acc=0.1, effect=5.0, seeds=3)
    assert c.verdict == "inconclusive" and c.trained == {
        "rule": "acc >= 0.2",
        "value": 0.1,
        "passed": False,
    }
    assert c.seeds == 3
    bad = led.check("lsc.gated", acc=0.5, effect=-1.0, seeds=3)
    assert bad.verdict == "not-reproduced"
    assert led.check("lsc.gated", acc=0.5, effect=1.0, seeds=3).verdict == "reproduced"
    g = led.check("lsc.gated2", accs=[0.15, 0.3], lo=0.1, seeds=4)
    assert g.verdict == "reproduced" and g.trained["value"] == 0.3
    assert g.trained["passed"] and "value: 0.3" in g._repr_markdown_()
    g = led.check("lsc.gated2", accs=[0.15, 0.19], lo=0.1, seeds=4)
    assert g.verdict == "inconclusive"


def test_training_claim_needs_seeds(book):
    with pytest.raises(ClaimError, match="seeds="):
        Ledger("lsc/x", "book").check("lsc.gated", acc=0.5, effect=1.0)


def test_not_attempted_needs_no_values(book):
    c = Ledger("lsc/x", "book").check("lsc.skip")
    assert c.verdict == "not-attempted" and c.note == "needs CIFAR"


@pytest.mark.parametrize(
    "call,msg",
    [
        (lambda led: led.check("lsc.zzz", x=1), "not declared"),
        (lambda led: led.check("lsc.b"), "needs x"),
        (lambda led: led.check("lsc.b", x=1, tol=2), "constants"),
    ],
)
def test_measurements_must_match_the_declaration(book, call, msg):
    with pytest.raises(ClaimError, match=msg):
        call(Ledger("lsc/x", "book"))


@pytest.mark.parametrize(
    "bad,msg",
    [
        ("rule: [{reproduced: x > 0}]", "last rule entry"),
        ("rule: [{great: x > 0}, {otherwise: not-reproduced}]", "verdict"),
        (
            "rule: [{reproduced: __import__('os')}, {otherwise: not-reproduced}]",
            "calls a function",
        ),
        ("rule: [{reproduced: x.real > 0}, {otherwise: not-reproduced}]", "Attribute"),
        ("rule: [{reproduced: x >}, {otherwise: not-reproduced}]", "not an expression"),
        (
            "rule: [{otherwise: reproduced}]\n    note: 'width {w, seeds {n}'",
            "not a display template",
        ),
        ("rule: [{otherwise: reproduced}]\n    measured: 'gap {}'", "positional"),
    ],
)
def test_bad_declarations_are_refused(tmp_path, monkeypatch, bad, msg):
    (tmp_path / "notebooks" / "lsc").mkdir(parents=True)
    text = f"paper: lsc\nclaims:\n  - id: lsc.q\n    source: s\n    statement: t\n    {bad}\n"
    (tmp_path / "notebooks" / "lsc" / "y.claims.yaml").write_text(text)
    monkeypatch.setenv("RNNBOOK_ROOT", str(tmp_path))
    with pytest.raises(ClaimError, match=msg):
        Ledger("lsc/y", "book")


def test_missing_claims_file(tmp_path, monkeypatch):
    monkeypatch.setenv("RNNBOOK_ROOT", str(tmp_path))
    with pytest.raises(ClaimError, match="no claims file"):
        Ledger("lsc/nothing", "book")


def test_claim_box_and_escaping(book):
    assert ledger.md_escape("nu_W**j | x") == "nu\\_W\\*\\*j \\| x"
    assert ledger.md_cell(None) == "—"
    assert ledger.md_cell("a" * 300, width=10).endswith("…")
    # a cut never falls inside a number, and floats are rounded for reading
    assert ledger.md_cell("gap 0.123456, 12345.678", width=20) == "gap 0.123456, …"
    assert ledger.md_cell([0.123456789, 2]) == "\\[0.123, 2\\]"
    box = Ledger("lsc/x", "book").check("lsc.b", x=1.0)._repr_markdown_()
    assert box.startswith("::::{admonition} Lemma 2: reproduced\n")
    assert '<span class="claim-id">lsc.b</span>' in box  # the id, not as code
    assert box.endswith("::::") and "declared before the run" in box
    assert '<span id="lsc.b" class="claim-anchor"></span>' in box
    assert 'href="../../book/scorecard.html#scorecard-lsc.b"' in box


def test_box_shows_a_rule_changed_after_a_run(book):
    led = Ledger("lsc/x", "book")
    c = led.check("lsc.b", x=1.0)
    c.history = [
        {"date": "2026-11-20", "old_rule": [{"reproduced": "x > 0"}], "why": "w"}
    ]
    box = c._repr_markdown_()
    assert "declared before the run" not in box and "changed after a run" in box
    assert "until 2026-11-20 the rule was**: reproduced if x is above 0" in box
    assert "Changed because: w" in box


def test_box_says_seeds_and_gate_plainly(book):
    g = Ledger("lsc/x", "book").check("lsc.gated", acc=0.1, effect=5.0, seeds=3)
    box = g._repr_markdown_()
    assert "**seeds**: 3 independent seeds" in box
    assert (
        "**gate**: failed: the experiment did not work at this scale (accuracy is at "
        "least 0.2 (value: 0.1))" in box
    )
    assert box.index("**seeds**") > box.index('<details class="claim-more">')


def test_check_shows_its_box_once_in_a_kernel(book, monkeypatch):
    """In a kernel a check shows its box at once (in a loop, not last in its cell); the box
    is not shown again when the check is also the cell's value."""
    import IPython
    import IPython.display

    shown = []
    monkeypatch.setattr(IPython, "get_ipython", lambda: object())
    monkeypatch.setattr(IPython.display, "display", lambda d, raw: shown.append(d))
    led = Ledger("lsc/x", "book")
    for x in (1.0, 5.0):
        c = led.check("lsc.b", x=x)
    assert len(shown) == 2 and "not-reproduced" in shown[1]["text/markdown"]
    c._ipython_display_()
    assert len(shown) == 2
    monkeypatch.setattr(IPython, "get_ipython", lambda: None)
    led.check("lsc.b", x=1.0)._ipython_display_()
    assert len(shown) == 2  # outside a kernel nothing is displayed


def test_verdict_within():
    assert ledger.verdict_within(1.04, 1.0, 0.05) == "reproduced"
    assert ledger.verdict_within(1.06, 1.0, 0.05) == "not-reproduced"


def test_rules_see_values_inside_comprehensions_and_nan_compares(tmp_path, monkeypatch):
    (tmp_path / "notebooks" / "mean_field").mkdir(parents=True)
    text = (
        "paper: mean-field\nclaims:\n  - id: mean-field.q\n    source: s\n    statement: t\n"
        "    constants: {k: 2}\n    rule:\n      - reproduced: all(d <= k * s for d, s in rows)"
        "\n      - partly-reproduced: p < 0.05\n      - otherwise: not-reproduced\n"
    )
    (tmp_path / "notebooks" / "mean_field" / "z.claims.yaml").write_text(text)
    monkeypatch.setenv("RNNBOOK_ROOT", str(tmp_path))
    monkeypatch.setenv("RNNBOOK_CLAIMS_DIR", str(tmp_path / "claims"))
    led = Ledger("mean_field/z", "book")
    assert led.check("mean-field.q", rows=[[1, 1]], p=0.5).verdict == "reproduced"
    c = led.check("mean-field.q", rows=np.array([[3.0, 1.0]]), p=0.5)
    assert c.verdict == "not-reproduced"
    # a NaN that a rule reads decides nothing (issue 49): inconclusive, never a verdict
    c = led.check("mean-field.q", rows=np.array([[3.0, 1.0]]), p=float("nan"))
    assert c.verdict == "inconclusive"
    c = led.check("mean-field.q", rows=np.array([[float("nan"), 1.0]]), p=0.5)
    assert c.verdict == "inconclusive"


def test_box_shows_each_effect_of_a_claim_decided_per_effect(book):
    c = Ledger("lsc/x", "book").check("lsc.b", x=1.0)
    c.measured = "gap 0.1. Decided: vanilla ...; minimal ..."
    c.effects = [
        dict(name="vanilla", estimate=-0.105, lo=-0.179, hi=-0.032, level=0.95, n=5)
        | dict(interval="mean", direction="above", smallest=0.02, trained=True)
        | dict(decision="not-reproduced", contrary=True),
    ]
    box = c._repr_markdown_()
    assert "(book profile): gap 0.1\n" in box and "Decided" not in box
    assert (
        "**vanilla**: -0.105 \\[-0.179, -0.0320\\] (95% Student-t interval, n = 5)"
        in box
    )
    assert "a significant effect against the paper" in box


def test_measured_values_are_written_for_reading():
    """Dicts read as key: value pairs, lists of numbers and long floats rounded; the record
    keeps the full values (only the display changes)."""
    text = (
        "areas {'tanh': [0.12345678, 0.5], 'gru': [0.3, 0.25]}; steps ['25: 0.000 "
        "[0.000, 0.000]', '50: 0.024 [-0.017, 0.064]']; gap 0.8935000002384186, "
        "interval 0.13 [0.01, 0.25], d[key]['seeds']"
    )
    out = ledger.value_text(text)
    assert "{'" not in out and "'" not in out.replace("d[key]['seeds']", "")
    assert "tanh: [0.123, 0.5]; gru: [0.3, 0.25]" in out
    assert "steps 25: 0.000 [0.000, 0.000]; 50: 0.024 [-0.017, 0.064]" in out
    assert "gap 0.8935," in out and "0.13 [0.01, 0.25]" in out
    assert "d[key]['seeds']" in out  # code (a subscript) is left as written
    assert ledger.value_text({"a": 1.23456, "b": True}) == "a: 1.23, b: yes"
    assert ledger.value_text(7.186585736217854e-16) == "7.19e-16"
    assert ledger.value_text(1125.424) == "1125"
    assert ledger.value_text(None) == "—"


def test_a_dict_of_dicts_is_a_table_and_a_long_measurement_a_list(book):
    c = Ledger("lsc/x", "book").check("lsc.b", x=1.0)
    c.measured = (
        "test R^2: {'limited': {'RNN': 0.0549, 'conv': 0.058}, 'all': {'RNN': 0.149, "
        "'conv': 0.1482}}; p-values " + ", ".join(f"{i / 7:.9f}" for i in range(12))
    )
    box = c._repr_markdown_()
    assert '<table class="claim-values">' in box and "<th>limited</th>" in box
    assert "<td>0.148</td>" in box and "0.1482" not in box
    assert "  - p-values 0, 0.1429," in box  # one part per line, floats rounded
    assert c.measured.endswith("1.571428571")  # the record keeps every digit
    rows = ledger.table_html({"all": {"R2_x": {"RNN": 0.6462}}, "lim": {"R2_x": {}}})
    assert "<th>all, R2_x</th><td>0.646</td>" in rows


def test_a_rule_is_shown_in_words_beside_its_code(book):
    assert ledger.rule_words(
        "reproduced if gl_lo > 0 and frac_glorot >= 0.8; partly-reproduced if not "
        "(a or b != 2 * c); otherwise not-reproduced"
    ) == (
        "**reproduced** if `gl_lo` > 0 and `frac_glorot` ≥ 0.8; **partly-reproduced** "
        "if not (`a` or `b` ≠ 2 × `c`); otherwise **not-reproduced**"
    )
    assert ledger.rule_words("anything else") is None
    box = Ledger("lsc/x", "book").check("lsc.b", x=1.0)._repr_markdown_()
    (line,) = [r for r in box.splitlines() if r.startswith("- **rule**")]
    assert "reproduced if" in line and "`" not in line and "as code:" not in box
    code = box.index("the rule as code")
    assert box.index("```text\nreproduced if", code) > code > box.index(line)


def test_statements_keep_their_math():
    s = r"For $\nu_W < 1$ and j > 1, $\rho_j \le 2^{j}$ (a_b)."
    assert (
        ledger.md_math(s) == r"For $\nu_W < 1$ and j \> 1, $\rho_j \le 2^{j}$ (a\_b)."
    )
    out = ledger.html_math(s)
    assert r'<span class="math notranslate nohighlight">\(\nu_W &lt; 1\)</span>' in out
    assert "j &gt; 1" in out and "$" not in out
    assert ledger.math_parts("a $x$") == [("a ", False), ("x", True)]


def test_paper_values_and_tolerances_keep_their_math():
    """A paper value and a tolerance typeset their $...$ spans like a statement (Markdown math
    in the box, MathJax markup in HTML); the rest stays escaped, plain values as before."""
    c = ledger.Claim(
        id="lsc.m",
        paper="lsc",
        source="Eq. (21)",
        statement="s",
        paper_value=r"$\rho_j \le \nu_W^{j-1}$ for j > 1 (a_b)",
        measured=1.0,
        tolerance=r"within 0.05 of $\nu_W$ (a|b)",
        verdict="reproduced",
        profile="smoke",
    )
    box = c._repr_markdown_()
    assert r"- **paper**: $\rho_j \le \nu_W^{j-1}$ for j \> 1 ($a_{b}$)" in box
    assert r"- **tolerance**: within 0.05 of $\nu_W$ (a\|b)" in box
    out = ledger.value_html(c.paper_value, math=True)
    assert out == (
        r'<span class="math notranslate nohighlight">\(\rho_j \le \nu_W^{j-1}\)</span>'
        " for j &gt; 1 (a_b)"
    )
    assert ledger.value_html("a < b", math=True) == "a &lt; b"  # no math: as before
    assert ledger.value_md("x_1 = 0.123456789", math=True) == r" $x_{1} = 0.1235$"
    assert ledger.value_md(0.25, math=True) == " 0.25"
    assert ledger.math_md([1, 2]) == r"\[1, 2\]"
    assert ledger.text_parts("n = 0.123456789 $x$") == [
        ("n = 0.1235 ", False),
        ("x", True),
    ]


def test_every_declared_statement_is_balanced_math():
    """Statements in the claims files write their formulas as $...$ (typeset by MathJax), with
    no '|' inside (it would split a Markdown table row): \\lvert, \\lVert instead."""
    from rnnbook.book.claims import all_declared, repo_root

    for cid, d in all_declared(repo_root()).items():
        spans = [t for t, m in ledger.math_parts(d.statement) if m]
        assert d.statement.count("$") == 2 * len(spans), cid
        assert not any("|" in t for t in spans), cid
        for text in (d.paper_value, d.tolerance):  # declared values write math too
            if isinstance(text, str):
                spans = [t for t, m in ledger.math_parts(text) if m]
                assert text.count("$") == 2 * len(spans), (cid, text)
                assert not any("|" in t for t in spans), (cid, text)
