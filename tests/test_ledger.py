import json

import numpy as np
import pytest

from rnnbook import ledger
from rnnbook.ledger import Ledger


def test_record_and_collect(tmp_path, monkeypatch):
    monkeypatch.setenv("RNNBOOK_CLAIMS_DIR", str(tmp_path))
    led = Ledger("lsc", "smoke", chapter="notebooks/lsc/x")
    led.record("lsc.b", "Lemma 2", "second", measured=np.float64(1.5), verdict="reproduced", tolerance=0.1)
    led.record("lsc.a", "Lemma 2", "first", measured=np.arange(3), verdict="not-reproduced", note="why")
    Ledger("implicit-bias", "smoke").record("implicit-bias.z", "Eq. (21)", "s", measured="x",
                                            verdict="partly-reproduced")
    records = ledger.collect(tmp_path)
    assert [r["id"] for r in records] == ["lsc.a", "lsc.b", "implicit-bias.z"]
    for r in records:
        assert set(ledger.FIELDS) <= set(r)
    assert records[0]["measured"] == [0, 1, 2] and records[1]["measured"] == 1.5
    assert records[1]["profile"] == "smoke" and records[1]["chapter"] == "notebooks/lsc/x"
    json.dumps(records)
    assert "| `lsc.a` |" in led.table()


@pytest.mark.parametrize("kw,msg", [
    (dict(verdict="great"), "verdict"),
    (dict(verdict="not-attempted"), "reason"),
    (dict(id="LSC bad id"), "claim id"),
    (dict(id="mean.x"), "start with the paper"),
    (dict(source=""), "source"),
])
def test_bad_records_are_refused(kw, msg):
    args = dict(id="lsc.x", source="Lemma 2", statement="s", measured=1, verdict="reproduced")
    args.update(kw)
    with pytest.raises(ValueError, match=msg):
        Ledger("lsc", "book").record(**args)


def test_unknown_paper():
    with pytest.raises(ValueError, match="paper"):
        Ledger("lcs", "book")


def test_verdict_within():
    assert ledger.verdict_within(1.04, 1.0, 0.05) == "reproduced"
    assert ledger.verdict_within(1.06, 1.0, 0.05) == "not-reproduced"


def test_markdown_escaping_keeps_values_literal():
    assert ledger.md_escape("nu_W**j | x") == "nu\\_W\\*\\*j \\| x"
    assert ledger.md_cell(None) == "—"
    assert ledger.md_cell("a" * 300, width=10).endswith("…")
    claim = Ledger("lsc", "book").record("lsc.md", "Lemma 2", "s", measured="a_b", verdict="reproduced")
    assert "`lsc.md`" in claim._repr_markdown_() and "a\\_b" in claim._repr_markdown_()
