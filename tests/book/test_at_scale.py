"""The scorecard's *at scale* cell takes a claim's largest current record (issue 49): the
most seeds at its scale, whatever the dates; the bottom line names the same record."""

from __future__ import annotations

import json

from rnnbook.book import pages, records

from .test_ledger_sphinx import CLAIMS
from .test_records import _root


def _plant(root, name, seeds, verdict, date, gate=True):
    claim = {
        **CLAIMS[0],
        "verdict": verdict,
        "seeds": seeds,
        "trained": {"passed": gate},
    }
    params = {"seed": 100 + seeds, "seeds": seeds}
    folder = records.write(root, "cpu", "lsc/x", name, [claim], params, 9.0)
    prov = json.loads((folder / "provenance.json").read_text())
    (folder / "provenance.json").write_text(json.dumps({**prov, "date": date}))


def test_the_at_scale_cell_takes_the_largest_record_not_the_first_by_date(tmp_path):
    root = _root(tmp_path)
    # the small record is the older one (as Fig. 1c's 12 seeds before its 160)
    _plant(root, "fig1c-12", 12, "inconclusive", "2026-11-26")
    _plant(root, "fig1c-160", 160, "not-reproduced", "2026-11-29")
    (row,) = pages.attach_records([CLAIMS[0]], root)
    assert row["at_scale"]["seeds"] == 160
    assert row["at_scale"]["verdict"] == "not-reproduced"
    recs = records.at_scale(root)["lsc.a"]
    assert [r["seeds"] for r in recs] == [160, 12]  # the box lists the largest first


def test_the_largest_record_wins_when_it_is_the_older_one(tmp_path):
    root = _root(tmp_path)
    _plant(root, "big", 160, "reproduced", "2026-11-20")
    _plant(root, "small", 12, "inconclusive", "2026-11-30")
    (row,) = pages.attach_records([CLAIMS[0]], root)
    assert (row["at_scale"]["seeds"], row["at_scale"]["verdict"]) == (160, "reproduced")


def test_a_record_whose_gate_failed_is_not_the_one_shown_at_scale(tmp_path):
    """A record whose gate failed decided nothing: the cell shows a record whose gate held,
    even a smaller or older one (the LRU's first record and its successor)."""
    root = _root(tmp_path)
    _plant(root, "first", 16, "inconclusive", "2026-12-02", gate=False)
    _plant(root, "second", 12, "not-reproduced", "2026-12-01")
    (row,) = pages.attach_records([CLAIMS[0]], root)
    assert row["at_scale"]["verdict"] == "not-reproduced"
    recs = records.at_scale(root)["lsc.a"]
    assert [r["trained"]["passed"] for r in recs] == [True, False]
    # alone, a record whose gate failed is still shown (as what was run)
    root = _root(tmp_path / "alone")
    _plant(root, "first", 16, "inconclusive", "2026-12-02", gate=False)
    (row,) = pages.attach_records([CLAIMS[0]], root)
    assert row["at_scale"]["verdict"] == "inconclusive"
