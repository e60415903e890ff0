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
    assert "0.59 [0.41, 0.75]" in f and "line of 0.54" in f
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
    assert f.startswith("Fails: gap falls short of the paper: 0.3 [0.2, 0.4]")
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
    assert "checked 3 claims" in text and "1 hold (Fig. 3)" in text
    assert "1 does not hold: Fig. 3, where gap falls short of the paper" in text
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
    assert "Records at scale" in text and "reproduced: Fig. 3 (gpu)" in text
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

    two = [record(), {**record(), "id": "lsc.y"}]
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
    assert "not reproduced: Fig. 3 (x) (160 seeds, cpu)" in text
    assert "still undecided: Fig. 3 (y) (8 seeds, cpu)" in text
    assert "12 seeds" not in text and "35 seeds" not in text
