"""Prose from the ledger: the {claim} role, the {findings} table, and the build failing when
hand-written text contradicts the ledger (a planted contradiction)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from rnnbook.book import ledger_sphinx

CLAIMS = [
    {
        "id": "lsc.a",
        "paper": "lsc",
        "source": "Lemma 2",
        "statement": "Paths are counted right.",
        "paper_value": "binom(T, l)",
        "measured": "3 mismatches in 40 pairs, max 0.123456789",
        "tolerance": None,
        "verdict": "not-reproduced",
        "profile": "smoke",
        "note": "The count is for another graph. More detail here.",
        "chapter": "notebooks/lsc/x",
        "seeds": 5,
        "values": {"steps": 600},
    },
    {
        "id": "lsc.b",
        "paper": "lsc",
        "source": "Fig. 1",
        "statement": r"It grows as $e^{x/e} \ge x$.",
        "paper_value": r"equality at $x = e$ only",
        "measured": "slope 1.01",
        "tolerance": 0.1,
        "verdict": "reproduced",
        "profile": "smoke",
        "note": "",
        "chapter": "notebooks/lsc/x",
        "seeds": None,
    },
]

CONF = """
extensions = ["myst_parser", "sphinx_design", "rnnbook.book.ledger_sphinx"]
myst_enable_extensions = ["colon_fence"]
"""


def build(tmp_path, page: str, conf: str = ""):
    src = tmp_path / "src"
    (src / "book").mkdir(parents=True, exist_ok=True)
    (src / "notebooks" / "lsc").mkdir(parents=True, exist_ok=True)
    (src / "conf.py").write_text(CONF + conf)
    (tmp_path / "claims.json").write_text(json.dumps(CLAIMS))
    (src / "index.md").write_text(
        "# Book\n\n```{toctree}\nbook/page\nnotebooks/lsc/x\n```\n"
    )
    (src / "notebooks" / "lsc" / "x.md").write_text(
        '# X\n\n<span id="lsc.a"></span><span id="lsc.b"></span>Boxes.\n'
    )
    (src / "book" / "page.md").write_text(page)
    out = tmp_path / "html"
    cmd = [sys.executable, "-m", "sphinx", "-W", "-n", "-q", str(src), str(out)]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    return proc, out


def test_role_and_findings_quote_the_ledger(tmp_path):
    page = (
        "# Errata\n\n```{findings} lsc\n```\n\n"
        "Lemma 2 is {claim}`lsc.a` ({claim}`lsc.a:link`): {claim}`lsc.a:measured`, "
        "over {claim}`lsc.a:seeds` seeds and {claim}`lsc.a:values.steps` steps. "
        "Fig. 1: {claim}`lsc.b:statement` The paper: {claim}`lsc.b:paper_value`.\n"
    )
    proc, out = build(tmp_path, page)
    assert proc.returncode == 0, proc.stderr
    text = (out / "book" / "page.html").read_text()
    # measured values written for reading: the long float rounded, in the table and the quote
    assert text.count("3 mismatches in 40 pairs, max 0.1235") >= 2
    assert "0.123456789" not in text
    # the statement's math typeset by MathJax, in the findings table, the quoted statement
    # and the bottom line, which names a failing claim by what it claims
    math = r'<span class="math notranslate nohighlight">\(e^{x/e} \ge x\)</span>'
    assert text.count(math) == 3 and "$e^" not in text
    assert "mathjax" in text.lower()  # the page loads MathJax
    # the paper value's math too, in the table and the quote
    value = r'<span class="math notranslate nohighlight">\(x = e\)</span>'
    assert text.count(f"equality at {value} only") == 2
    assert 'href="../notebooks/lsc/x.html#lsc.a"' in text
    assert "sd-bg-danger" in text and ">5<" in text and ">600<" in text
    # the one-line reason says what failed (the finding), and the paper's bottom line
    assert "Fails: 3 mismatches in 40 pairs" in text
    assert '<p class="bottom-line">At the smoke scale the book checked' in text
    assert "More detail here" not in text
    table = text[text.index("<table") :]  # the findings table, after the bottom line
    assert table.index("It grows as") > table.index("Paths are counted")  # paper order
    assert json.loads((out / "claims.json").read_text())[0]["id"] == "lsc.a"
    assert (out / "_static" / "rnnbook.css").exists()


@pytest.mark.parametrize(
    "planted",
    [
        "The path count `lsc.a` is `reproduced`.",
        "Over 3 seeds, lsc.a is not reproduced.",
        "In lsc.a the largest value is 0.16.",
        "The ledger's {claim}`lsc.zzz` does not exist.",
        "{claim}`lsc.a:values.width`",
    ],
)
def test_a_planted_contradiction_fails_the_build(tmp_path, planted):
    proc, _ = build(tmp_path, f"# Errata\n\n{planted}\n")
    assert proc.returncode != 0
    assert "lsc." in proc.stderr


def test_contradictions_read_sentences():
    claims = {c["id"]: c for c in CLAIMS}
    ok = "Claim `lsc.a` is not-reproduced. Claim lsc.b is reproduced, on 1 figure."
    assert ledger_sphinx.contradictions(ok, claims) == []
    bad = "Fine. Then `lsc.b` came out partly reproduced at two seeds."
    (problem,) = ledger_sphinx.contradictions(bad, claims)
    assert "lsc.b" in problem and "partly-reproduced" in problem
    assert ledger_sphinx.contradictions("lsc.a held on 4 seeds.", claims)
    assert (
        ledger_sphinx.contradictions("lsc.a: max 0.1235, over 40 pairs.", claims) == []
    )
    (number,) = ledger_sphinx.contradictions("lsc.a: max 0.16 and 2.5%.", claims)[:1]
    assert "0.16" in number


def test_a_fold_line_gives_each_part_its_own_verdicts():
    """The line over a box's folded records names each part with its own verdicts: a
    pending confirmatory record says how many shards are in (the superseded draw's verdict
    beside it once read as the record's), a decided one its verdict, one that does not count
    (stale, or decided while another counts) nothing."""
    from rnnbook.book.pages import badge_html

    def confirmatory(done=19, claim=None, stale=False, counts=True, void=None, **p):
        st = {"done": list(range(done)), "of": 27, "void": void}
        st |= {"complete": done == 27, "started": "2026-12-02"}
        entry = {
            "slice": {"seed": 5002, "parameters": {"seeds": 540, **p}, "shard": 20},
            "state": st,
            "claim": claim,
            "record": {"stale": stale, "date": "2026-12-04"},
            "chapter": "lsc/ffn_mnist",
            "name": "fig2-glorot-confirmatory",
        }
        return ledger_sphinx.confirmatory_html(entry, counts)

    def records(kind, *verdicts):
        badges = " ".join(badge_html(v) for v in verdicts)
        return (
            f'<div class="claim-records"><p><strong>{kind}</strong>: {badges}</p></div>'
        )

    superseded = records("Superseded draws", "inconclusive")
    line = ledger_sphinx.fold_line([confirmatory(), superseded])
    assert line == (
        "Confirmatory record: 19 of 27 shards in; superseded draws: inconclusive"
    )
    decided = confirmatory(27, claim={"verdict": "not-reproduced"})
    scale = records("At scale", "not-reproduced", "inconclusive", "not-reproduced")
    assert ledger_sphinx.fold_line([decided, superseded, scale]) == (
        "Confirmatory record: not-reproduced; superseded draws: inconclusive; "
        "records at scale: not-reproduced, inconclusive"
    )
    stale = confirmatory(27, claim={"verdict": "inconclusive"}, stale=True)
    assert ledger_sphinx.fold_line([stale, decided]) == (
        "Confirmatory record: not-reproduced"
    )
    gate_failed = confirmatory(27, claim={"verdict": "inconclusive"}, counts=False)
    assert ledger_sphinx.fold_line([gate_failed, decided]) == (
        "Confirmatory record: not-reproduced"
    )
    assert ledger_sphinx.fold_line([confirmatory(0)]) == (
        "Confirmatory record: not yet started"
    )
    assert ledger_sphinx.fold_line([confirmatory(27)]) == (
        "Confirmatory record: not yet decided"
    )
    void = confirmatory(3, void="its code changed after shard 0")
    assert ledger_sphinx.fold_line([void]) == "Confirmatory record: void"
    # the line reads what the record is, not its prose: a declaration whose words are
    # those of a record that does not count (or of a verdict) changes nothing
    odd = {"note": "the void is stale under an earlier rule, 3 of 4 shards in"}
    worded = confirmatory(27, claim={"verdict": "reproduced"}, **odd)
    assert "earlier rule" in worded
    assert ledger_sphinx.fold_line([worded]) == "Confirmatory record: reproduced"
    assert ledger_sphinx.fold_line([confirmatory(5, **odd)]) == (
        "Confirmatory record: 5 of 27 shards in"
    )
