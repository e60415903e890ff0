"""Where every confirmatory record stands (rnnbook.book.standing): the toy record of the
shard tests, before its first shard, part-way, decided and void, as the verdicts page's
table and the ``records`` command show it."""

from __future__ import annotations

import json

import pytest

from rnnbook.book import cli, pages, records, shards, standing

from .test_shards import BOOK, TARGET, _commit, _quiet, make_toy


@pytest.fixture
def toy(tmp_path, monkeypatch):
    return make_toy(tmp_path, monkeypatch)


def _row(root) -> dict:
    (row,) = standing.standing(root)
    assert (row["chapter"], row["name"]) == ("toy/toy", "conf")
    return row


def test_a_record_is_followed_from_its_declaration_to_its_verdict(toy):
    row = _row(toy)
    assert (row["in"], row["of"], row["members"], row["master_seed"]) == (0, 2, 4, 77)
    assert row["state"] == "declared, not started" and row["hours"] == 0
    assert (row["left_hours"], row["left_from"]) == (pytest.approx(1 / 60), "declared")
    assert row["claims"] == [
        {"id": "lsc.toy.gain", "verdict": None, "gate_failed": False}
    ]

    first = shards.run_shard(toy, TARGET, "cpu", log=_quiet)
    took = json.loads((first / "provenance.json").read_text())["wall_seconds"]
    row = _row(toy)
    assert row["in"] == 1 and row["state"].startswith("started ")
    assert row["hours"] == pytest.approx(took / 3600)
    assert (row["left_hours"], row["left_from"]) == (
        pytest.approx(took / 3600),
        "measured",
    )  # one shard left, as long as the mean shard so far
    assert row["claims"][0]["verdict"] is None  # nothing from a partial record

    shards.run_shard(toy, TARGET, "cpu", log=_quiet)
    row = _row(toy)
    assert row["state"] == "every shard in, not yet decided"
    shards.decide(toy, TARGET, "cpu", log=_quiet)
    row = _row(toy)
    (rec,) = records.load(toy)
    (claim,) = rec["claims"]
    assert row["decided"] == rec["date"] and row["state"] == f"decided {rec['date']}"
    assert row["claims"] == [
        {"id": "lsc.toy.gain", "verdict": claim["verdict"], "gate_failed": False}
    ]
    assert row["left_hours"] == 0
    t = standing.totals([row])
    assert (t["decided"], t["in"], t["of"], t["left_hours"]) == (1, 2, 2, 0)


def test_the_table_shows_each_verdict_beside_the_book_run(toy):
    for _ in range(2):
        shards.run_shard(toy, TARGET, "cpu", log=_quiet)
    shards.decide(toy, TARGET, "cpu", log=_quiet)
    rows = standing.standing(toy)
    verdict = rows[0]["claims"][0]["verdict"]
    book = {**BOOK, "chapter": "notebooks/toy/toy"}
    page = standing.html_table(
        rows, {"lsc.toy.gain": book}, lambda c: pages.box_href(c, "book/verdicts")
    )
    assert pages.badge_html(verdict) in page
    assert "(book run: inconclusive)" in page
    assert 'href="../notebooks/toy/toy.html#lsc.toy.gain"' in page
    assert "1 of 1 confirmatory records decided; 2 of 2 shards in" in page
    text = standing.text_table(rows, {"lsc.toy.gain": "inconclusive"})
    assert f"lsc.toy.gain: {verdict} (book run: inconclusive)" in text
    assert "toy/toy:conf  master seed 77, 4 members in 2 shards; 2 of 2 in" in text


def test_a_void_record_says_why_and_has_nothing_left_to_run(toy):
    shards.run_shard(toy, TARGET, "cpu", log=_quiet)
    path = toy / "notebooks/toy/toy.py"
    path.write_text(path.read_text().replace("normal(1.0, 0.5)", "normal(1.0, 0.25)"))
    _commit(toy, "a speed-up")
    with pytest.raises(shards.VoidRecord):
        shards.run_shard(toy, TARGET, "cpu", log=_quiet)
    row = _row(toy)
    assert row["state"].startswith("void: shard 1") and row["left_hours"] == 0
    assert row["claims"][0]["verdict"] is None


def test_no_record_declared_says_so_and_the_command_prints_the_table(
    toy, tmp_path, capsys
):
    assert "No confirmatory record" in standing.html_table([], None)
    assert cli.main(["records", "--root", str(toy)]) == 0  # no ledger: no book verdicts
    out = capsys.readouterr().out
    assert "toy/toy:conf  master seed 77" in out and "lsc.toy.gain: -" in out
    assert "running here now" not in out
    # a queue of this machine runs shard 1 now (its claim): the command says so
    import os

    from rnnbook.book import shard_tree

    claim = toy / shard_tree.CLAIMS / shard_tree.record_id("toy/toy", "conf") / "1"
    assert shard_tree.take(claim)
    assert cli.main(["records", "--root", str(toy)]) == 0
    out = capsys.readouterr().out
    assert f"    running here now: shard 1 (process {os.getpid()})" in out
    assert "book run" not in out
    assert out.startswith("This machine (") and "may take shards of every" in out
    assert out.rstrip().endswith("about 1 min to go.")
    ledger = tmp_path / "claims.json"
    ledger.write_text(json.dumps([BOOK]))
    assert cli.main(["records", "--root", str(toy), "--ledger", str(ledger)]) == 0
    assert "lsc.toy.gain: - (book run: inconclusive)" in capsys.readouterr().out
