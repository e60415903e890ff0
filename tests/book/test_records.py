"""Records (rnnbook.book.records): written whole with their provenance, stale when the code
that measured them changed, and the per-seed verdicts they hold checked in the pages' prose
(a planted wrong per-seed verdict fails the build)."""

from __future__ import annotations

import json

from rnnbook.book import execution_cache as xc
from rnnbook.book import ledger_sphinx, records

from .test_ledger_sphinx import CLAIMS, build

CHAPTER = "# %%\nimport math\n\nx = math.sqrt(2)\n"


def _root(tmp_path):
    root = tmp_path / "repo"
    (root / "notebooks" / "lsc").mkdir(parents=True)
    (root / "src" / "rnnbook").mkdir(parents=True)
    (root / "notebooks" / "lsc" / "x.py").write_text(CHAPTER)
    return root


def _record(root, seed, verdict):
    claim = {**CLAIMS[0], "verdict": verdict, "trained": {"passed": True}}
    params = {"profile": "book", "seed": seed}
    return records.write(root, "seeds", "lsc/x", f"seed-{seed}", [claim], params, 1.0)


def test_a_record_keeps_its_provenance_and_goes_stale(tmp_path):
    root = _root(tmp_path)
    folder = _record(root, 4, "inconclusive")
    prov = json.loads((folder / "provenance.json").read_text())
    assert prov["master_seed"] == 4 and prov["parameters"]["profile"] == "book"
    assert {"commit", "measuring_hash", "torch", "date", "device"} <= set(prov)
    assert not list(folder.parent.glob(".*tmp"))  # written whole
    (got,) = records.load(root, "seeds")
    assert not got["stale"] and got["claims"][0]["verdict"] == "inconclusive"
    assert records.seed_verdicts(root) == {4: {"lsc.a": "inconclusive"}}
    # the chapter's measuring code changes: the record is stale, shown but not counted
    (root / "notebooks" / "lsc" / "x.py").write_text(CHAPTER + "y = x + 1\n")
    (got,) = records.load(root, "seeds")
    assert got["stale"] and records.seed_verdicts(root) == {}


def test_per_seed_verdicts_are_checked_against_the_records():
    by_seed = {0: {"lsc.a": "not-reproduced"}, 4: {"lsc.a": "inconclusive"}}
    known = {"lsc.a", "lsc.b"}
    ok = "`lsc.a`: not reproduced at seed 0, inconclusive at seed 4."
    assert ledger_sphinx.seed_contradictions(ok, by_seed, known) == []
    bad = "`lsc.a`: inconclusive at seed 0, inconclusive at seed 4."
    (problem,) = ledger_sphinx.seed_contradictions(bad, by_seed, known)
    assert "seed 0" in problem and "not-reproduced" in problem
    (missing,) = ledger_sphinx.seed_contradictions(
        "`lsc.a` was reproduced at seeds 2 and 4.", by_seed, known
    )[:1]
    assert "seed 2" in missing


def test_a_planted_wrong_per_seed_verdict_fails_the_build(tmp_path):
    root = tmp_path
    (root / "notebooks" / "lsc").mkdir(parents=True)
    (root / "notebooks" / "lsc" / "x.py").write_text(CHAPTER)
    _record(root, 4, "inconclusive")
    conf = f'rnnbook_root = "{root}"\n'
    page = "# Verdicts\n\n```{seed-check}\n```\n\n"
    proc, out = build(tmp_path, page, conf)
    assert proc.returncode == 0, proc.stderr
    text = (out / "book" / "page.html").read_text()
    assert "seed 4" in text and "inconclusive" in text
    proc, _ = build(tmp_path, page + "Claim `lsc.a` was reproduced at seed 4.\n", conf)
    assert proc.returncode != 0 and "seed 4" in proc.stderr


BOX = (
    ":::{admonition} Lemma 2: not-reproduced\n:class: danger claim-box\n\n"
    '<span id="lsc.a" class="claim-anchor"></span>**Claim.** Paths.\n:::\n'
)


def test_a_claims_box_shows_its_records_and_a_stale_one_is_marked(tmp_path):
    root = tmp_path
    (root / "notebooks" / "lsc").mkdir(parents=True)
    (root / "notebooks" / "lsc" / "x.py").write_text(CHAPTER)
    claim = {**CLAIMS[0], "verdict": "reproduced", "trained": {"passed": True}}
    claim["effects"] = [
        {
            "name": "gain",
            "estimate": 0.2,
            "lo": 0.1,
            "hi": 0.3,
            "decision": "reproduced",
        }
    ]
    params = {"profile": "book", "seed": 104, "seeds": 16}
    records.write(root, "cpu", "lsc/x", "fig", [claim], params, 600.0)
    conf = f'rnnbook_root = "{root}"\nmyst_enable_extensions = ["colon_fence"]\n'
    proc, out = build(tmp_path, "# Page\n\n" + BOX, conf)
    assert proc.returncode == 0, proc.stderr
    text = (out / "book" / "page.html").read_text()
    assert "cpu record of" in text and "seeds 16" in text and "stale" not in text
    assert "results/cpu/lsc/x/fig/provenance.json" in text
    assert '<svg class="scale-chart"' in text and "cpu record" in text  # book -> record
    assert (out / "results" / "cpu" / "lsc" / "x" / "fig" / "provenance.json").exists()
    # the measuring code changes: the record is still shown, marked stale
    (root / "notebooks" / "lsc" / "x.py").write_text(CHAPTER + "y = 1\n")
    proc, out = build(tmp_path, "# Page\n\n" + BOX + "\n", conf)
    text = (out / "book" / "page.html").read_text()
    assert "stale: its code changed" in text
    assert '<svg class="scale-chart"' not in text  # a stale record is not drawn
    assert records.at_scale(root)["lsc.a"][0]["record"]["stale"]


def test_the_scorecard_shows_the_verdict_at_scale_and_counts_no_stale_record(tmp_path):
    from rnnbook.book import pages

    root = _root(tmp_path)
    claim = {**CLAIMS[0], "verdict": "reproduced", "trained": {"passed": True}}
    records.write(root, "cpu", "lsc/x", "fig", [claim], {"seed": 104, "seeds": 16}, 9.0)
    rows = pages.attach_records([CLAIMS[0], CLAIMS[1]], root)
    assert rows[0]["at_scale"]["verdict"] == "reproduced" and "at_scale" not in rows[1]
    text = pages.scorecard(rows)
    assert "1 claim has a current record" in text and "at scale (cpu" in text
    (root / "notebooks" / "lsc" / "x.py").write_text(CHAPTER + "z = 2\n")  # stale now
    rows = pages.attach_records([CLAIMS[0]], root)
    assert "at_scale" not in rows[0]
    assert "no claim has a current record" in pages.scorecard(rows)


def test_only_drawing_modules_leave_the_measuring_hash(tmp_path):
    """A record stays current when a module that only draws changes, and goes stale when
    a measuring one does; a record of version 1 (drawing modules hashed) goes stale on
    either, as it was written."""
    root = _root(tmp_path)
    pkg = root / "src" / "rnnbook" / "lsc"
    pkg.mkdir(parents=True)
    for name in ("__init__", "runs", "training_figures"):
        (pkg / f"{name}.py").write_text("X = 1\n")
    (root / "notebooks" / "lsc" / "x.py").write_text(
        CHAPTER + "from rnnbook.lsc import runs, training_figures\n"
    )
    _record(root, 4, "inconclusive")
    old = _record(root, 5, "inconclusive") / "provenance.json"
    prov = json.loads(old.read_text())
    prov.update(
        measuring_version=1, measuring_hash=records.measuring_hash(root, "lsc/x", 1)
    )
    old.write_text(json.dumps(prov))
    assert [r["stale"] for r in records.load(root)] == [False, False]
    (pkg / "training_figures.py").write_text("X = 2\n")  # a colour
    assert [r["stale"] for r in records.load(root)] == [False, True]
    (pkg / "runs.py").write_text("X = 2\n")  # what measures
    assert [r["stale"] for r in records.load(root)] == [True, True]
    assert xc.draws("rnnbook.plotting") and xc.draws("rnnbook.mean_field.figures")
    assert not xc.draws("rnnbook.lsc.deep_rnns") and not xc.draws("rnnbook.stats")


def test_a_finished_run_is_kept_with_only_its_own_chapters_claims(tmp_path):
    root = _root(tmp_path)
    run, other = tmp_path / "run", tmp_path / "other"
    for folder, claim in ((run, CLAIMS[1]), (other, CLAIMS[0])):
        (folder / "claims").mkdir(parents=True)
        c = {**claim, "chapter": "notebooks/lsc/x", "trained": {"passed": True}}
        (folder / "claims" / f"{c['id']}.json").write_text(json.dumps(c))
    stray = {**CLAIMS[0], "id": "lsc.c", "chapter": "notebooks/lsc/y", "trained": {}}
    (other / "claims" / "lsc.c.json").write_text(json.dumps(stray))
    folder = records.record_run(root, "lsc/x", run, 7, 3.0, extra=[other])
    got = json.loads((folder / "claims.json").read_text())
    assert sorted(c["id"] for c in got) == ["lsc.a", "lsc.b"]
    assert records.seed_verdicts(root)[7] == {
        "lsc.a": "not-reproduced",
        "lsc.b": "reproduced",
    }


RULE = """paper: lsc
claims:
  - id: lsc.a
    source: Fig. 1
    statement: The gap is small.
    tolerance: one effect, below its line
    constants: {tol: TOL}
    rule:
      effects:
        - name: gap
          effect: gap_seeds
          direction: below
          smallest: tol
          no_effect: tol
          paper: 0.03
          spread: 0.02
    trained: {rule: ok, value: ok}
"""


def test_a_changed_rule_decides_a_record_again_from_its_kept_data(tmp_path):
    """A record keeps its rule's fingerprint and each effect's per-seed data: a line moved
    after it ran decides it again without a re-run (the verdict it ran under kept); a
    record that kept no data is marked and not counted; the box says which."""
    from rnnbook.book import claims, pages

    root = _root(tmp_path)
    path = root / "notebooks" / "lsc" / "x.claims.yaml"
    path.write_text(RULE.replace("TOL", "0.10"))
    d = claims.load(path, "notebooks/lsc/x")["lsc.a"]
    gaps = [0.05, 0.06, 0.07, 0.055]  # mean 0.059, 95% t interval [0.045, 0.072]
    dec = claims.decide(d, {"gap_seeds": gaps, "ok": True}, "book")
    claim = {**CLAIMS[0], "verdict": dec.verdict, "trained": dec.trained}
    claim |= {"effects": dec.effects, "measured": dec.measured}
    folder = records.write(root, "cpu", "lsc/x", "fig", [claim], {"seed": 7}, 9.0)
    (kept,) = json.loads((folder / "claims.json").read_text())
    assert kept["rule"] == claims.fingerprint(d) and kept["effects"][0]["data"] == gaps
    (got,) = records.at_scale(root)["lsc.a"]
    assert got["verdict"] == "reproduced" and "redecided" not in got
    # the line moves below the data after the run: decided again, now not reproduced
    path.write_text(RULE.replace("TOL", "0.04"))
    (got,) = records.at_scale(root)["lsc.a"]
    assert (
        got["verdict"] == "not-reproduced"
        and got["redecided"]["verdict"] == "reproduced"
    )
    assert got["effects"][0]["smallest"] == 0.04 and "< 0.04" in got["measured"]
    assert "decided again under the rule declared now" in ledger_sphinx.record_html(
        got, "book/page"
    )
    assert pages.attach_records([CLAIMS[0]], root)[0]["at_scale"]["verdict"] == (
        "not-reproduced"
    )
    # a record that kept no data cannot be decided again: shown, not counted
    kept["effects"][0].pop("data")
    (folder / "claims.json").write_text(json.dumps([kept]))
    (got,) = records.at_scale(root)["lsc.a"]
    assert got["rule_changed"] and got["verdict"] == "reproduced"
    assert "not counted" in ledger_sphinx.record_html(got, "book/page")
    assert "at_scale" not in pages.attach_records([CLAIMS[0]], root)[0]


def test_a_record_without_a_fingerprint_runs_under_the_rule_of_its_date():
    """An old record kept no rule fingerprint: it ran under the rule of its date. Where the
    claim's history has a change after that date, it is decided again from its kept data
    (or, without data, marked and not counted); where not, it stands as recorded."""
    from rnnbook.book import claims

    d = claims.Declaration(
        id="lsc.a",
        paper="lsc",
        source="s",
        statement="t",
        rule=(("reproduced", "x > 0"),),
        history=({"date": "2026-12-01", "old_rule": "x > 1", "why": "w"},),
    )
    c = {"id": "lsc.a", "verdict": "reproduced", "effects": []}
    assert records.current(c, {"lsc.a": d}, "2026-12-02") is c  # after the change
    got = records.current(c, {"lsc.a": d}, "2026-11-28")  # before it: no data kept
    assert got["rule_changed"] and got["verdict"] == "reproduced"
    assert records.current(c, {"lsc.a": d}, None) is c  # no date: as recorded


SVG = b'<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"></svg>'


def test_a_record_keeps_the_figures_that_carry_its_claims(tmp_path):
    """The figures a slice names are taken from its executed chapter (the image drawn
    right before each caption), kept beside the record and linked from its box."""
    import nbformat

    nb = nbformat.v4.new_notebook()
    out = nbformat.v4.new_output("display_data", data={"image/svg+xml": SVG.decode()})
    first = nbformat.v4.new_code_cell("fig_a()", outputs=[out])
    second = nbformat.v4.new_code_cell("fig_b()", outputs=[out])
    nb.cells = [
        first,
        nbformat.v4.new_markdown_cell("**Figure 1.** The gap of $x^2$ against steps."),
        nbformat.v4.new_markdown_cell("Some text between."),
        second,
        nbformat.v4.new_markdown_cell("**Figure 2.** Another one."),
    ]
    path = tmp_path / "x.ipynb"
    path.write_text(nbformat.writes(nb))
    (fig,) = records.figures_of(path, [2])
    assert (fig["number"], fig["suffix"], fig["data"]) == (2, "svg", SVG)
    try:
        records.figures_of(path, [3])
        raise AssertionError("a missing figure must be an error")
    except ValueError as err:
        assert "[3]" in str(err)
    root = tmp_path
    (root / "notebooks" / "lsc").mkdir(parents=True)
    (root / "notebooks" / "lsc" / "x.py").write_text(CHAPTER)
    claim = {**CLAIMS[0], "verdict": "reproduced", "trained": {"passed": True}}
    figs = records.figures_of(path, [1])
    records.write(root, "cpu", "lsc/x", "fig", [claim], {"seed": 9}, 60.0, figures=figs)
    (got,) = records.load(root)
    assert got["figures"] == [
        {
            "number": 1,
            "caption": "The gap of $x^2$ against steps.",
            "file": "figure-1.svg",
        }
    ]
    conf = f'rnnbook_root = "{root}"\nmyst_enable_extensions = ["colon_fence"]\n'
    proc, html = build(tmp_path, "# Page\n\n" + BOX, conf)
    assert proc.returncode == 0, proc.stderr
    text = (html / "book" / "page.html").read_text()
    link = '<a class="record-figure" href="../results/cpu/lsc/x/fig/figure-1.svg">'
    assert link + "Figure 1 of the chapter, drawn by this record's run</a>" in text
    assert (html / "results" / "cpu" / "lsc" / "x" / "fig" / "figure-1.svg").exists()


def test_a_records_line_names_its_main_sizes_and_folds_every_parameter():
    prov = {"kind": "cpu", "date": "2026-11-29", "device": "CPU", "path": "results/x"}
    many = {"profile": "book", "seeds": 35, "kinds": ["gru"], "depths": [2, 3]}
    many |= {"width": 8, "T_ptb": 5, "n_test": 50, "seed": 302}
    rec = {"record": {**prov, "parameters": many}, "verdict": "inconclusive"}
    text = ledger_sphinx.record_html(rec, "notebooks/lsc/page")
    line, _, folded = text.partition("<details")
    assert "(seeds 35; networks GRU; depths 2 and 3; master seed 302;" in line
    assert "width 8" not in line and "width 8" in folded and "n_test" not in text
    few = {"profile": "book", "seeds": 8, "steps": 1000, "seed": 201}
    rec["record"]["parameters"] = few
    text = ledger_sphinx.record_html(rec, "notebooks/lsc/page")
    assert "every parameter" not in text  # its line gives them all
    assert "steps 1000; master seed 201; other sizes" in text


def test_a_record_whose_gate_failed_says_so_in_its_line():
    prov = {"kind": "cpu", "date": "2026-11-29", "device": "CPU", "path": "results/x"}
    gate = {"rule": "max_dev <= tol", "value": 0.121, "passed": False}
    rec = {"record": {**prov, "parameters": {"seeds": 160}}, "verdict": "inconclusive"}
    text = ledger_sphinx.record_html({**rec, "trained": gate}, "notebooks/lsc/page")
    assert "its gate failed" in text and "0.121" in text
    passed = {**gate, "passed": True, "value": 0.04}
    assert "gate" not in ledger_sphinx.record_html({**rec, "trained": passed}, "a/b")


def _decided(name, verdict, gate, stale=False):
    """A decided confirmatory record of claim lsc.a, as records.confirmatory gives it."""
    claim = {
        "id": "lsc.a",
        "verdict": verdict,
        "seeds": 16,
        "trained": {"passed": gate},
    }
    rec = {"stale": stale, "date": "2026-12-02", "master_seed": 1, "claims": [claim]}
    state = {"void": None, "done": {0: {}}, "of": 1, "complete": True, "started": "d"}
    state |= {"plan": [(0, 16)], "damaged": [], "machines": []}
    slice_ = {"seed": 1, "parameters": {"seeds": 16}, "shard": 16}
    return {"chapter": "lsc/x", "name": name, "slice": slice_, "state": state} | {
        "record": rec,
        "claim": claim,
    }


def test_a_record_whose_gate_failed_gives_way_to_a_later_one_and_no_other_does():
    book = {"id": "lsc.a", "verdict": "inconclusive"}
    failed = _decided("conf", "inconclusive", gate=False)
    held = _decided("conf-2", "not-reproduced", gate=True)
    # the failed record counts until the later one is decided, then the later one does
    v = records.counting_verdict(None, "lsc.a", book, conf={"lsc.a": [failed]})
    assert v["kind"] == "confirmatory" and "its gate did not hold" in v["why"]
    v = records.counting_verdict(None, "lsc.a", book, conf={"lsc.a": [failed, held]})
    assert v["verdict"] == "not-reproduced" and "conf-2" in v["why"]
    assert records.counting_records([failed, held]) == [held, failed]
    # a record whose gate held keeps counting: a later one does not re-draw it
    later = _decided("conf-3", "reproduced", gate=True)
    assert records.counting_records([held, later])[0] is held
    # a stale record does not count at all
    assert (
        records.counting_records([_decided("s", "reproduced", True, stale=True)]) == []
    )
    # each box says which of its records counts, and why one decided nothing
    box = ledger_sphinx.confirmatory_html(failed, counts=False)
    assert "another confirmatory record of the claim counts" in box
    assert "Its gate did not hold" in box
    assert "(this verdict counts)" in ledger_sphinx.confirmatory_html(held)


def test_a_confirmatory_verdict_names_its_record_once_under_the_verdict():
    """Where the confirmatory record that decides a claim is also its largest record at
    scale, the verdict cell names it once ("confirmatory record (cpu, 16 seeds)"), not a
    second time as the record at scale; another record at scale is still shown."""
    from rnnbook.book import pages

    book = {"id": "lsc.a", "verdict": "inconclusive"}
    held = _decided("conf", "not-reproduced", gate=True)
    held["record"]["path"] = "results/cpu/lsc/x/conf"
    counting = records.counting_verdict(None, "lsc.a", book, conf={"lsc.a": [held]})
    assert counting["path"] == "results/cpu/lsc/x/conf"
    scale = {"verdict": "not-reproduced", "kind": "cpu", "seeds": 16, "date": "d"}
    same = {
        **book,
        "counting": counting,
        "at_scale": {**scale, "path": counting["path"]},
    }
    cell = pages.kind_html(same) + pages.at_scale_html(same)
    assert cell.count("16 seeds") == 1 and "confirmatory record (cpu, 16 seeds)" in cell
    assert "at scale" not in cell
    other = {
        **same,
        "at_scale": {**scale, "seeds": 64, "path": "results/cpu/lsc/x/big"},
    }
    cell = pages.kind_html(other) + pages.at_scale_html(other)
    assert ">confirmatory<" in cell and "at scale (cpu, 64 seeds)" in cell
    alone = {**book, "at_scale": {**scale, "path": "results/cpu/lsc/x/big"}}
    assert "at scale (cpu, 16 seeds)" in pages.at_scale_html(alone)
