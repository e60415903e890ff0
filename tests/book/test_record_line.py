"""A record's line in a claim box (issue 52, item 12): the sizes of the part of the chapter
the claim reads, and a failed gate that reads as failed."""

import json
from pathlib import Path

from rnnbook.book import ledger_sphinx
from rnnbook.book.record_line import claim_reads, gate_failed_words, presets, sizes

ROOT = Path(__file__).resolve().parents[2]


def test_the_fig1c_record_line_gives_the_gru_it_measures_not_the_fig3_sizes():
    reads = claim_reads(ROOT / "notebooks/lsc/deep_rnns.claims.yaml")["lsc.fig1c.gru"]
    book = presets(ROOT / "notebooks/lsc/deep_rnns.py", "book")
    assert book["gru_depth"] == 7 and book["gru_width"] == 32
    params = json.loads(
        (ROOT / "results/cpu/lsc/deep_rnns/fig1c-gru-160/provenance.json").read_text()
    )["parameters"]
    text, whole = sizes(params, reads, book)
    assert "GRU depth 7" in text and "GRU width 32" in text
    assert "seeds 160" in text and "master seed 303" in text
    assert "depths" not in text and "networks" not in text and not whole


def test_a_record_line_without_the_claims_texts_keeps_its_first_sizes():
    params = {"profile": "book", "seeds": 8, "steps": 1000, "seed": 201}
    assert sizes(params, None, None)[0] == "seeds 8; steps 1000; master seed 201"


def test_a_failed_gate_reads_as_failed_and_its_effects_as_not_judged():
    gate = {"rule": "max_dev <= tol", "value": 0.121, "passed": False}
    words = gate_failed_words(gate)
    assert "did not hold" in words and "0.121" in words
    effect = {"name": "growth", "estimate": 0.27, "lo": 0.2, "hi": 0.33}
    prov = {"kind": "cpu", "date": "2026-11-29", "device": "CPU", "path": "results/x"}
    rec = {
        "record": {**prov, "parameters": {"seeds": 160}},
        "verdict": "inconclusive",
        "trained": gate,
        "effects": [{**effect, "decision": "reproduced"}],
    }
    text = ledger_sphinx.record_html(rec, "notebooks/lsc/page")
    assert "not judged" in text and "reproduced" not in text.split("provenance")[0]
    assert "did not hold" in text
