"""Claim records written for people (issue 42): findings, gates, values and bottom lines."""

from rnnbook.book import reading as R
from rnnbook.book.ledger import Claim


def effect(**kw):
    e = {
        "name": "gap",
        "estimate": 0.59,
        "lo": 0.41,
        "hi": 0.75,
        "lo_k": 0.38,
        "hi_k": 0.78,
        "level_k": 0.975,
        "n": 24,
        "interval": "wilson",
        "direction": "above",
        "smallest": 0.54,
        "null": 0.5,
        "paper": 0.7,
        "in_setting": True,
        "decision": "inconclusive",
        "strong": False,
        "contrary": False,
    }
    return {**e, **kw}


def record(**kw):
    c = {
        "id": "lsc.x",
        "paper": "lsc",
        "source": "Fig. 3",
        "statement": "rho = 0.5 beats rho = 1",
        "paper_value": "70%",
        "measured": "share 0.59. Decided: gap 0.59 [0.41, 0.75] ...",
        "tolerance": None,
        "verdict": "inconclusive",
        "profile": "book",
        "note": "Scaled down: depths [2, 4, 8]; MNIST",
        "chapter": "notebooks/lsc/deep_rnns",
        "rule": "Each effect ... (book/verdicts.md). gap: ...",
        "seeds": 4,
        "trained": {"rule": "ref_acc >= 2 * chance", "value": 0.31, "passed": True},
        "effects": [effect()],
    }
    return {**c, **kw}


def test_undecided_finding_says_which_line_it_straddles_and_the_lean():
    f = R.finding(record())
    assert f.startswith("Undecided:")
    assert "0.590 [0.410, 0.750]" in f and "line of 0.54" in f
    assert "leans towards the paper" in f


def test_lean_short_of_and_against_the_paper():
    assert R.lean(effect(estimate=0.52)) == "short of the paper"
    assert R.lean(effect(estimate=0.45)) == "against the paper"
    assert R.lean(effect(estimate=0.6, direction="below", smallest=0.4)).startswith(
        "against"
    )


def test_failed_gate_is_the_reason_and_the_data_still_lean():
    c = record(trained={"rule": "ref_acc >= 2 * chance", "value": 0.1, "passed": False})
    f = R.finding(c)
    assert "gate failed" in f and "reference accuracy is at least 2 × chance" in f
    assert "ref_acc" not in f and "leaning towards the paper" in f


def test_decided_findings_name_what_fails_or_goes_against_the_paper():
    short = effect(decision="not-reproduced", estimate=0.3, lo=0.2, hi=0.4)
    f = R.finding(record(verdict="not-reproduced", effects=[short]))
    assert f.startswith("Fails: gap falls short of the paper: 0.300 [0.200, 0.400]")
    against = effect(decision="not-reproduced", contrary=True, estimate=0.3)
    f = R.finding(record(verdict="not-reproduced", effects=[against]))
    assert "goes against the paper" in f
    ok = effect(decision="reproduced", lo=0.56)
    assert R.finding(record(verdict="reproduced", effects=[ok])).startswith(
        "Holds: gap"
    )


def test_an_effect_without_data_says_why_not_nan():
    e = effect(estimate="nan", lo="nan", hi="nan", n=0, in_setting=False)
    f = R.finding(record(effects=[e]))
    assert "nan" not in f and "left out" in f


def test_python_values_become_words():
    assert R.plain_values("depths [2, 4, 8]") == "depths 2, 4 and 8"
    assert R.plain_values("decays [False, True]") == "decays no and yes"
    assert R.plain_values("passed: True") == "passed: yes"
    assert R.plain_values("0.59 [0.41, 0.75]") == "0.59 [0.41, 0.75]"
    assert "nan" not in R.plain_values("gap nan [nan, nan] (95% t, n=0)")


def test_ascii_math_becomes_tex():
    parts = R.prose_parts("|lambda_k| ~ chi_{2k}/sqrt(2) at nu_W = 0.5")
    assert parts == [
        (r"\lvert \lambda_{k} \rvert \sim \chi_{2k}/\sqrt{2}", True),
        (" at ", False),
        (r"\nu_{W} = 0.5", True),
    ]
    assert R.prose_parts("sigma_b^2") == [(r"\sigma_{b}^2", True)]
    assert R.prose_parts("n^2 steps")[0] == ("n^2", True)
    # $...$ spans stay math, words stay words
    assert R.prose_parts("a $x_1$ b") == [("a ", False), ("x_1", True), (" b", False)]
    assert R.prose_parts("the mean over seeds") == [("the mean over seeds", False)]
    # an absolute value right after a word is one formula, bars and all
    assert R.prose_parts("radius max|lambda| here") == [
        ("radius max", False),
        (r"\lvert \lambda \rvert", True),
        (" here", False),
    ]


def test_raw_tex_in_text_becomes_math():
    parts = R.prose_parts(r"Eq. (9) -\mathbb{E}[\sigma'(u_1)] more")
    assert any(m and r"\mathbb{E}" in t for t, m in parts)
    assert not any(not m and "\\" in t for t, m in parts)


def test_a_named_page_becomes_a_link():
    md = R.prose_md("see book/verdicts.md", "notebooks/lsc/deep_rnns")
    assert '<a class="book-page" href="../../book/verdicts.html">' in md
    assert "book/verdicts.md" not in md
    assert 'href="verdicts.html"' not in R.prose_html("book/errata.md", "book/intro")
    assert 'href="../book/errata.html"' in R.prose_html("book/errata.md", "book/intro")


def test_rule_in_words_has_no_code_names():
    assert R.rule_prose("ref_acc >= 2 * chance") == (
        "reference accuracy is at least 2 × chance"
    )
    assert R.rule_prose("max(ppl[c] for c in ppl) < unigram_ppl") == (
        "the largest perplexity is below unigram perplexity"
    )
    assert "[" not in R.rule_prose("arm_acc['vanilla'][-1] > 0.2")


def test_box_leads_with_the_finding_and_folds_the_rule_and_its_code():
    c = record()
    c.pop("effects")
    box = Claim(**c, effects=[effect()], extra={"rule_code": "effects: []"})
    md = box._repr_markdown_()
    lines = [x for x in md.splitlines() if x.strip()]
    assert "**Found.** Undecided:" in lines[2]
    fold = md.index('<details class="claim-more">')
    assert md.index("**rule**") > fold and md.index("**seeds**") > fold
    assert md.index("**gate**") > fold and md.index("the rule as code") > fold
    assert "as code:" not in md and "nan" not in md
    assert "book/verdicts.md" not in md and "verdicts.html" in md
    assert "ref_acc" not in md.split("the rule as code")[0]


def test_bottom_line_counts_and_leans_in_words():
    bad = record(
        id="lsc.y",
        verdict="not-reproduced",
        effects=[effect(decision="not-reproduced", estimate=0.3, lo=0.2, hi=0.4)],
    )
    text = R.bottom_line([record(), bad, record(id="lsc.z", verdict="reproduced")])
    assert (
        "checked 3 claims" in text
        and "1 hold (rho = 0.5 beats rho = 1 (Fig. 3))" in text
    )
    assert (
        "1 does not hold: rho = 0.5 beats rho = 1 (Fig. 3), where gap falls short of the "
        "paper" in text
    )
    assert "1 is undecided" in text and "leans towards the paper" in text
    assert "Scaled down" not in text and "MNIST" not in text


def test_why_on_the_landing_page_says_what_failed_not_the_settings():
    from rnnbook.book.pages import why_text

    bad = record(
        verdict="not-reproduced",
        effects=[effect(decision="not-reproduced", estimate=0.3, lo=0.2, hi=0.4)],
    )
    assert why_text(bad).startswith("Fails: gap falls short")


def test_bottom_line_names_what_records_at_scale_decide():
    rec = {
        "kind": "gpu",
        "device": "cuda",
        "stale": False,
        "claims": [
            {
                "id": "lsc.x",
                "verdict": "reproduced",
                "effects": [effect(decision="reproduced", lo=0.56)],
            }
        ],
    }
    text = R.bottom_line([record()], None, [rec])
    assert "Records at scale" in text
    assert "reproduced: rho = 0.5 beats rho = 1 (Fig. 3; gpu)" in text
    assert "gpu scale" not in R.bottom_line([record()], None, [{**rec, "stale": True}])


def test_a_records_parameters_read_as_words_not_code_names():
    text = R.parameters_text(
        {
            "profile": "book",
            "seeds": 26,
            "kinds": ["sigma_rnn", "alif_plus", "alif_pm"],
            "n_student": 4000,
            "lru_T": 8,
            "seed": 402,
        }
    )
    assert text == (
        "seeds 26; networks σ RNN and ALIF+ and ALIF±; student width 4000; "
        "LRU sequence length 8; master seed 402; other sizes as at the book profile"
    )
    assert "_" not in R.parameters_text({"steps_fig3": 6, "lm_hidden_lstm": 32})


def test_an_effect_keyed_by_position_is_named_in_words():
    assert R.plain_values("depth index 0 and depth index -1") == (
        "the shallowest depth and the deepest depth"
    )
    assert R.plain_values("width index 1") == "the second width"
    assert "index" not in R.effect_finding(effect(name="depth index -1"))


def test_records_at_scale_name_each_claims_largest_record_by_verdict():
    def rec(kind, seeds, verdict, cid="lsc.x"):
        claim = {"id": cid, "verdict": verdict, "seeds": seeds}
        return {"kind": kind, "stale": False, "claims": [claim]}

    two = [record(), {**record(), "id": "lsc.y", "statement": "ALIF fails at 0.5"}]
    text = R.bottom_line(
        two,
        None,
        [
            rec("cpu", 12, "inconclusive"),
            rec("cpu", 160, "not-reproduced"),
            rec("cpu", 35, "inconclusive"),
            rec("cpu", 8, "inconclusive", "lsc.y"),
        ],
    )
    assert "not reproduced: rho = 0.5 beats rho = 1 (Fig. 3; 160 seeds, cpu)" in text
    assert "still undecided: ALIF fails at 0.5 (Fig. 3; 8 seeds, cpu)" in text
    assert "12 seeds" not in text and "35 seeds" not in text


def test_seed_agreement_leaves_out_the_books_own_seed():
    """Issue 52, item 1: seed 0 is the book's own run, kept as a record: it never counts
    as a re-run that agrees with the book."""
    claims = [record(), record(id="lsc.y", verdict="reproduced")]
    seeds = {
        0: {"lsc.x": "inconclusive", "lsc.y": "reproduced"},
        4: {"lsc.x": "inconclusive", "lsc.y": "not-reproduced"},
        5: {"lsc.x": "inconclusive", "lsc.y": "reproduced"},
    }
    text = R.bottom_line(claims, seeds)
    assert (
        "Re-run at master seeds 4 and 5, 3 of 4 training verdicts came out as in the "
        "book's own run." in text
    )
    assert R.seed_agreement(claims, {0: seeds[0]}) == ""


def test_bottom_line_cites_the_effect_that_fails_before_an_undecided_one():
    """Issue 52, item 2: the mean-field Fig. 3 bottom line cited an undecided effect."""
    und = effect(name="vanilla orthogonal", estimate=-0.096, lo=-0.27, hi=0.079)
    und.update(direction="above", smallest=0.03, null=0.0)
    bad = effect(
        name="vanilla Gaussian",
        estimate=-0.139,
        lo=-0.184,
        hi=-0.093,
        direction="above",
        smallest=0.03,
        null=0.0,
        decision="not-reproduced",
        contrary=True,
    )
    c = record(verdict="not-reproduced", effects=[und, bad])
    assert R.failing_effects(c)[0]["name"] == "vanilla Gaussian"
    text = R.bottom_line([c])
    assert "where vanilla Gaussian goes against the paper: -0.139" in text
    assert "vanilla orthogonal" not in text


def test_claims_are_named_by_what_they_claim_not_by_their_source_alone():
    """Issue 52, item 13: two claims of one source in opposite lists."""
    a = record(
        id="lsc.a", statement="ALIF networks often fail at 0.5.", verdict="reproduced"
    )
    b = record(
        id="lsc.b",
        statement="More than 63% of the times $\\rho_t = 0.5$ beats $\\rho_t = 1$.",
        verdict="not-reproduced",
        effects=[effect(decision="not-reproduced", estimate=0.3, lo=0.2, hi=0.4)],
    )
    text = R.bottom_line([a, b])
    assert "1 hold (ALIF networks often fail at 0.5 (Fig. 3))" in text
    assert (
        "More than 63% of the times $\\rho_t = 0.5$ beats $\\rho_t = 1$ (Fig. 3)"
        in text
    )


def test_fails_against_an_equivalence_band_says_the_band_not_no_effect():
    """Issue 52, item 10: an effect decided outside its equivalence band."""
    e = effect(
        name="minimalRNN / LSTM - 1",
        estimate=-0.168,
        lo=-0.198,
        hi=-0.138,
        direction="within",
        smallest=0.1,
        null=0.0,
        decision="not-reproduced",
        contrary=True,
    )
    f = R.effect_finding(e)
    assert "-0.168 [-0.198, -0.138], outside the comparable band of ±0.1 around 0" in f
    assert "past no effect" not in f


def test_an_estimate_at_no_effect_leans_neither_way():
    """Issue 52, item 10: a share at 0 with no effect at 0 cannot lean against the paper."""
    e = effect(
        name="share of seeds with a higher best lr",
        estimate=0.0,
        lo=0.0,
        hi=0.6,
        smallest=0.5,
        null=0.0,
    )
    assert R.lean(e).startswith("neither way")
    f = R.effect_finding(e)
    assert "against" not in f and "its estimate is at no effect" in f
    text = R.bottom_line([record(effects=[e])])
    assert "1 sits at no effect" in text and "against" not in text


def test_a_failed_claim_without_effects_quotes_what_failed():
    """Issue 52, item 11: not the first clause of the measured text, which often holds."""
    measured = (
        "autograd (T=12, layers l=1..4, i.e. Delta l=0..3): equals (1/T) binom(T+2, "
        "Delta l+2) (sympy-derived) in all rows: True; equals the paper's value in 0 of "
        "4 rows. Regimes of the corrected count: log-log slope 7.00"
    )
    c = record(verdict="not-reproduced", effects=None, trained=None, measured=measured)
    f = R.finding(c)
    assert f == "Fails: equals the paper's value in 0 of 4 rows."
    table = "{'a': {'m2': 1.0}}; variance of the free product within the tolerance: yes"
    c = record(
        verdict="not-reproduced",
        effects=None,
        trained=None,
        measured=table,
        extra={"failed": ["for every m, s, p in m2 rows: ... (it fails in 3 of 8)"]},
    )
    assert R.finding(c) == (
        "Fails: the run did not meet for every m, s, p in m2 rows: ... (it fails in 3 "
        "of 8)."
    )


def test_the_ledger_keeps_the_terms_of_a_rule_that_failed():
    from types import SimpleNamespace

    from rnnbook.book.ledger import failed_conditions

    d = SimpleNamespace(
        rule=(
            ("reproduced", "all(abs(m - p) <= 2 * s for m, s, p in rows) and ok"),
            ("not-reproduced", "otherwise"),
        ),
        constants={},
    )
    rows = [(1.0, 0.1, 1.0), (2.0, 0.1, 1.0), (3.0, 0.1, 1.0)]
    got = failed_conditions(d, {"rows": rows, "ok": True}, "book")
    assert len(got) == 1 and got[0].endswith("(it fails in 2 of 3)")
    assert "rows" in got[0] and "abs" not in got[0]
    assert failed_conditions(d, {"rows": rows[:1], "ok": True}, "book") == []
    d = SimpleNamespace(rule=(("reproduced", "err < fd_tol"),), constants={})
    got = failed_conditions(d, {"err": 0.0028, "fd_tol": 9.5e-05}, "book")
    assert got == [
        "error is below finite-difference tolerance (error 0.0028, "
        "finite-difference tolerance 9.50e-5)"
    ]


def test_box_shows_the_first_clause_of_a_long_measurement_and_folds_the_rest():
    from rnnbook.book.ledger import first_clause

    long = (
        "MNIST: Glorot+LSC - Glorot = +0.043 [-0.073, +0.160] (mean over the compared "
        "cells; 95% interval over seeds); 5 of 6 cells improve on their means; 0 cells "
        "left out"
    )
    head, rest = first_clause(long)
    assert head.endswith("interval over seeds)")  # the ';' in brackets does not cut
    assert rest.startswith("5 of 6 cells") and rest.endswith("left out")
    assert first_clause("short; text") == ("short; text", "")
    assert first_clause({"a": 1}) == ({"a": 1}, "")
    c = record()
    c.pop("effects")
    box = Claim(**{**c, "measured": long}, effects=[effect()])._repr_markdown_()
    fold = box.index('<details class="claim-more">')
    assert box.index("5 of 6 cells") > fold and box.index("interval over seeds)") < fold
    assert box.index("(on the scorecard)") < fold < box.index("claim id")


def test_the_closing_table_of_a_chapter_shows_nothing_but_is_not_empty():
    from IPython.display import Markdown

    from rnnbook.book.ledger import Ledger

    md = Markdown(Ledger.table(None))._repr_markdown_()
    assert md and md.startswith("<!--") and md.endswith("-->")


def test_a_rules_median_reads_as_a_median():
    assert (
        R.rule_prose("sorted(ref_ratio_seeds)[len(ref_ratio_seeds) // 2] <= gate")
        == "the median of reference ratio seeds is at most gate"
    )
    joined = "sorted(sum(r_seeds, []))[len(sum(r_seeds, [])) // 2]"
    assert R.rule_prose(joined).startswith("the median of all r")
    # not a median: another list's length, or another divisor
    assert "median" not in R.rule_prose("sorted(a)[len(b) // 2]")
    assert "median" not in R.rule_prose("sorted(a)[len(a) // 3]")


def test_a_rules_mean_reads_as_a_mean():
    assert R.rule_prose("sum(gains) / len(gains) > 0") == "the mean of gains is above 0"
    assert "mean" not in R.rule_prose("sum(a) / len(b) > 0")
    words = R.rule_prose("max(sum(acc[c]) / len(acc[c]) for c in acc) >= 2 * chance")
    assert words.startswith("the largest mean of acc")


def test_an_estimate_beside_its_interval_keeps_its_trailing_zeros():
    # thm41's RNN effect: a mean of 1.0 read "1 [0.886, 1.12]" beside its interval
    e = {"estimate": 1.0, "lo": 0.886, "hi": 1.12, "n": 4800}
    assert R.interval(e) == "1.00 [0.886, 1.12]"
    assert R.interval({**e, "estimate": 0.5, "lo": 0.25}) == "0.500 [0.250, 1.12]"
    assert R.num(100.0, zeros=True) == "100"  # no bare decimal point
    assert R.num(1e-4, zeros=True) == "1.00e-4"
    assert R.num(1.1) == "1.1"  # a declared line keeps its own digits
