"""Every draw is kept (issue 49): a run drawn twice keeps both draws; the superseded one is
shown beside the draw that counts, labelled with why, and left out of every count."""

from __future__ import annotations

import html
import json
from pathlib import Path

from rnnbook.book import ledger_sphinx, records

from .test_ledger_sphinx import CLAIMS
from .test_records import _root

ROOT = Path(__file__).resolve().parents[2]


def _seed(root, name, verdict, superseded=None):
    claim = {**CLAIMS[0], "verdict": verdict, "trained": {"passed": True}}
    folder = records.write(root, "seeds", "lsc/x", name, [claim], {"seed": 0}, 1.0)
    if superseded:
        prov = json.loads((folder / "provenance.json").read_text())
        prov = {**prov, "date": "2026-11-28", "superseded": superseded}
        (folder / "provenance.json").write_text(json.dumps(prov))
    return folder


WHY = {"by": "seed-0", "on": "2026-11-29", "why": "drawn again on the fixed code paths"}


def test_a_superseded_draw_is_shown_and_left_out_of_every_count(tmp_path):
    root = _root(tmp_path)
    _seed(root, "seed-0", "inconclusive")
    # sorted after seed-0: it would overwrite the draw that counts if it were counted
    _seed(root, "seed-0-superseded-2026-11-28", "not-reproduced", WHY)
    assert records.seed_verdicts(root) == {0: {"lsc.a": "inconclusive"}}
    (old,) = records.superseded(root)["lsc.a"]
    assert old["verdict"] == "not-reproduced"
    assert old["record"]["superseded"]["why"] == WHY["why"]
    by_seed = records.seed_verdicts(root)
    table = ledger_sphinx.seed_check_html(
        by_seed, "book/verdicts", None, records.superseded(root)
    )
    assert "superseded draw of 2026-11-28" in table
    assert html.escape(records.DRAW_RULE) in table
    assert table.count("not reproduced") + table.count("not-reproduced") >= 1
    box = ledger_sphinx.superseded_html([old])
    assert "superseded" in box and WHY["why"] in box and "master seed 0" in box


def test_a_superseded_record_at_scale_is_not_the_cell_at_scale(tmp_path):
    root = _root(tmp_path)
    claim = {**CLAIMS[0], "verdict": "reproduced", "seeds": 99, "trained": {}}
    folder = records.write(root, "cpu", "lsc/x", "big", [claim], {"seed": 9}, 1.0)
    prov = json.loads((folder / "provenance.json").read_text())
    (folder / "provenance.json").write_text(json.dumps({**prov, "superseded": WHY}))
    assert records.at_scale(root) == {}
    assert list(records.superseded(root)) == ["lsc.a"]


def test_the_books_superseded_draws_are_kept_and_labelled():
    """The seed-0 draw of lsc/deep_rnns of 2026-11-28 (another processor's code paths),
    kept beside the draw of 2026-11-29 that counts."""
    folder = ROOT / "results/seeds/lsc/deep_rnns/seed-0-superseded-2026-11-28"
    prov = json.loads((folder / "provenance.json").read_text())
    assert prov["superseded"]["by"] == "seed-0" and prov["master_seed"] == 0
    kept = {
        c["id"]: c["verdict"] for c in json.loads((folder / "claims.json").read_text())
    }
    assert kept["lsc.fig3.alif-deeper"] == "not-reproduced"
