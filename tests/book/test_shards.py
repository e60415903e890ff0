"""Confirmatory records in shards (rnnbook.book.shards): a toy chapter in a repository of its
own runs shard by shard; the guards void or stop the record, a failed shard runs its own
members again, nothing is decided before the last shard is in, and a damaged record file is
reported in one line and left out."""

from __future__ import annotations

import json
import math
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from rnnbook.book import claims as C
from rnnbook.book import ledger_sphinx, pages, reading, records, shards, standing
from rnnbook.seeds import member_seeds

CHAPTER = """# %% [markdown]
# # A toy
#
# Each member draws a gain; the claim says it is above zero.

# %% tags=["parameters"]
profile = "book"
seed = seeds = seed_start = None

# %%
import os

import numpy as np

from rnnbook.book.chapter import start
from rnnbook.book.params import Param, Repeats, at_least
from rnnbook.seeds import member_seeds

SPEC = {"seed": Param(int, 0, 0, 0, at_least(0), ">= 0"), "seeds": Repeats(2, 4, 4, "")}
P, ledger = start("toy/toy", SPEC, globals(), show=False)
if os.environ.get("TOY_FAIL"):
    raise RuntimeError("a planted failure")
ms = member_seeds(P.seed, P.seed_start, P.seeds)
gains = [float(np.random.default_rng(s).normal(1.0, 0.5)) for s in ms]
gains = [g + float(os.environ.get("TOY_SHIFT", 0)) for g in gains]
if os.environ.get("TOY_NAN"):  # a diverged member: data, not a failure
    gains[0] = float("nan")
ledger.check(
    "lsc.toy.gain", seeds=P.seeds, gains=gains, ref=[1.0] * P.seeds,
    mean_gain=float(np.mean(gains)),
)
"""

CLAIMS = """paper: lsc
claims:
  - id: lsc.toy.gain
    source: Toy
    statement: The gain is above zero.
    rule:
      effects:
        - name: gain
          effect: gains
          direction: above
          smallest: "0.2"
          paper: 1.0
          spread: 0.5
    trained: "sum(ref) >= 0"
    measured: "mean gain {mean_gain:.3f}"
    power: {seeds: 4}
records:
  conf:
    kind: confirmatory
    claims: [lsc.toy.gain]
    scale: cpu
    seed: 77
    parameters: {seeds: 4}
    shard: 2
    merge: {gains: seeds, ref: seeds}
    minutes: 1
    why: a toy
"""

TOC = "format: jb-book\nroot: intro\nchapters:\n  - file: notebooks/toy/toy\n"
TARGET = "toy/toy:conf"
#: the toy claim as the book's own run (exploratory) recorded it
BOOK = {"id": "lsc.toy.gain", "verdict": "inconclusive", "trained": {"passed": True}}


def _git(root: Path, *args: str) -> None:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t"}
    env |= {"GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t"}
    subprocess.run(["git", *args], cwd=root, env=env, check=True, capture_output=True)


def _commit(root: Path, message: str = "toy") -> None:
    _git(root, "add", "-A", "notebooks", "_toc.yml")
    _git(root, "commit", "-q", "-m", message)


@pytest.fixture
def toy(tmp_path, monkeypatch):
    return make_toy(tmp_path, monkeypatch)


def make_toy(tmp_path: Path, monkeypatch) -> Path:
    """The toy chapter with its confirmatory slice, in a repository of its own."""
    root = tmp_path / "toy"
    (root / "notebooks" / "toy").mkdir(parents=True)
    (root / "notebooks" / "toy" / "toy.py").write_text(CHAPTER)
    (root / "notebooks" / "toy" / "toy.claims.yaml").write_text(CLAIMS)
    (root / "_toc.yml").write_text(TOC)
    _git(root, "init", "-q")
    _commit(root)
    for k in ("TOY_FAIL", "TOY_SHIFT", "TOY_NAN"):
        monkeypatch.delenv(k, raising=False)
    monkeypatch.setenv("RNNBOOK_ROOT", str(root))
    return root


def _quiet(*a):
    pass


def _values(root: Path, k: int) -> dict:
    path = root / "results/shards/cpu/toy/toy/conf" / str(k) / "values.json"
    return json.loads(path.read_text())["lsc.toy.gain"]


def _gains(seed: int, start: int, n: int) -> list[float]:
    import numpy as np

    return [
        float(np.random.default_rng(s).normal(1.0, 0.5))
        for s in member_seeds(seed, start, n)
    ]


def _state(root: Path) -> dict:
    s = records.slices(root, "toy/toy")["conf"]
    return shards.state(root / "results", "cpu", "toy/toy", "conf", s)


def test_shards_run_their_own_members_and_are_decided_once_when_all_are_in(
    toy, monkeypatch
):
    (toy / "notebooks/toy/toy.py").write_text(CHAPTER + "\n")
    with pytest.raises(shards.ShardError, match="changes to notebooks/toy/toy.py$"):
        shards.run_shard(toy, TARGET, "cpu", log=_quiet)  # a dirty tree
    _git(toy, "checkout", "-q", "--", "notebooks")
    first = shards.run_shard(toy, TARGET, "cpu", log=_quiet)
    assert first == toy / "results/shards/cpu/toy/toy/conf/0"
    prov = json.loads((first / "provenance.json").read_text())
    assert prov["members"] == [0, 2] and prov["master_seed"] == 77
    assert prov["measuring_hash"] == records.measuring_hash(toy, "toy/toy")
    assert set(prov["rules"]) == {"lsc.toy.gain"} and prov["commit"]
    assert _values(toy, 0)["values"]["gains"] == _gains(77, 0, 2)
    assert "verdict" not in json.dumps(_values(toy, 0))  # no verdict from a part
    with pytest.raises(shards.ShardError, match="1 of 2 shards in, started"):
        shards.decide(toy, TARGET, "cpu", log=_quiet)
    assert shards.progress_text(_state(toy)).startswith("1 of 2 shards in, started")
    v = records.counting_verdict(toy, "lsc.toy.gain", BOOK)  # the book's counts
    assert (v["verdict"], v["kind"]) == ("inconclusive", "exploratory")
    assert "toy/toy:conf: 1 of 2 shards in, started" in v["why"]
    (entry,) = records.confirmatory(toy)["lsc.toy.gain"]
    box = ledger_sphinx.confirmatory_html(entry)
    assert "so far 1 of 2 shards in, started" in box and "no verdict until" in box
    assert box.count("toy/toy:conf") == 1  # named once, in the declaration
    assert "sd-badge" not in box  # no effect, no verdict from a partial record

    # a failed shard leaves nothing and runs again on the same members
    monkeypatch.setenv("TOY_FAIL", "1")
    with pytest.raises(Exception, match="planted failure"):
        shards.run_shard(toy, TARGET, "cpu", log=_quiet)
    assert not (toy / "results/shards/cpu/toy/toy/conf/1").exists()
    monkeypatch.delenv("TOY_FAIL")
    monkeypatch.setenv("TOY_NAN", "1")  # a diverged member is data
    second = shards.run_shard(toy, TARGET, "cpu", log=_quiet)
    assert json.loads((second / "provenance.json").read_text())["members"] == [2, 2]
    gains = _values(toy, 1)["values"]["gains"]
    assert math.isnan(gains[0]) and gains[1] == _gains(77, 2, 2)[1]
    with pytest.raises(shards.ShardError, match="all 2 shards .* are in"):
        shards.run_shard(toy, TARGET, "cpu", log=_quiet)

    folder = shards.decide(toy, TARGET, "cpu", log=_quiet)
    assert folder == toy / "results/cpu/toy/toy/conf"
    (claim,) = json.loads((folder / "claims.json").read_text())
    rec = json.loads((folder / "provenance.json").read_text())
    assert claim["seeds"] == 4 and claim["verdict"] in C.VERDICTS
    (effect,) = claim["effects"]
    assert effect["data"][:2] == _gains(77, 0, 2) and effect["data"][2] == "nan"
    assert rec["design"] == "confirmatory" and len(rec["shards"]) == 2
    assert rec["measuring_hash"] == prov["measuring_hash"]
    (loaded,) = records.load(toy)
    assert not loaded["stale"] and loaded["design"] == "confirmatory"
    # once decided, its verdict is the claim's, labelled confirmatory, everywhere
    v = records.counting_verdict(toy, "lsc.toy.gain", BOOK)
    assert (v["verdict"], v["kind"]) == (claim["verdict"], "confirmatory")
    (counted,) = records.counting(toy, [BOOK])
    assert counted["verdict"] == claim["verdict"]
    assert "confirmatory" in pages.kind_html(counted)
    assert reading.confirmatory_count([counted]).startswith(
        "1 of these verdicts comes from a confirmatory record"
    )
    (entry,) = records.confirmatory(toy)["lsc.toy.gain"]
    box = ledger_sphinx.confirmatory_html(entry)
    assert "this verdict counts" in box and "2 shards of 2 seeds" in box


def test_a_pooled_share_decided_against_the_paper_is_written(toy, monkeypatch):
    """A Wilson interval's bounds are numpy's, so is the ``contrary`` flag of an effect
    decided below its line (json refuses a numpy bool: fig3-half-one's first decide)."""
    chapter = toy / "notebooks/toy/toy.py"
    chapter.write_text(
        CHAPTER.replace(
            "mean_gain=", "wins=[sum(g > 0 for g in gains), len(gains)], mean_gain="
        )
    )
    spec = toy / "notebooks/toy/toy.claims.yaml"
    spec.write_text(
        CLAIMS.replace("effect: gains\n", "effect: wins\n          interval: wilson\n")
        .replace('smallest: "0.2"', 'smallest: "0.6"\n          no_effect: "0.5"')
        .replace(
            "{gains: seeds, ref: seeds}", "{gains: seeds, ref: seeds, wins: counts}"
        )
    )
    _commit(toy, "a share")
    monkeypatch.setenv("TOY_SHIFT", "-9")  # every gain below zero: no wins
    shards.run_shard(toy, TARGET, "cpu", log=_quiet)
    shards.run_shard(toy, TARGET, "cpu", log=_quiet)
    folder = shards.decide(toy, TARGET, "cpu", log=_quiet)
    (claim,) = json.loads((folder / "claims.json").read_text())
    (effect,) = claim["effects"]
    assert claim["verdict"] == "not-reproduced" and effect["contrary"] is True
    assert effect["data"] == [0, 4] and effect["hi"] < 0.5


def test_a_code_change_between_shards_voids_the_record(toy):
    shards.run_shard(toy, TARGET, "cpu", log=_quiet)
    path = toy / "notebooks/toy/toy.py"
    path.write_text(path.read_text().replace("normal(1.0, 0.5)", "normal(1.0, 0.25)"))
    _commit(toy, "a speed-up")
    with pytest.raises(shards.VoidRecord, match="other its measuring code"):
        shards.run_shard(toy, TARGET, "cpu", log=_quiet)
    st = _state(toy)
    assert st["void"] and "measuring code" in shards.progress_text(st)
    assert "new master seed" in shards.progress_text(st)
    (entry,) = records.confirmatory(toy)["lsc.toy.gain"]
    assert "the record is void: shard 1 would run" in ledger_sphinx.confirmatory_html(
        entry
    )
    assert records.counting_verdict(toy, "lsc.toy.gain", BOOK)["kind"] == "exploratory"
    with pytest.raises(shards.VoidRecord):  # void stays void
        shards.decide(toy, TARGET, "cpu", log=_quiet)


def test_a_new_machine_re_runs_a_finished_member_and_is_refused_on_other_bits(
    toy, monkeypatch
):
    shards.run_shard(toy, TARGET, "cpu", log=_quiet)
    here = shards.machine()
    (listed,) = _state(toy)["machines"]
    assert listed["id"] == here["id"]
    other = {**here, "host": "elsewhere", "id": "0123456789ab"}
    monkeypatch.setattr(shards, "machine", lambda: other)
    monkeypatch.setenv("TOY_SHIFT", "1e-12")  # the other machine rounds differently
    bad = shards.trial_check(toy, TARGET, "cpu", log=_quiet)  # on demand: lists nothing
    assert "other bits" in bad and len(_state(toy)["machines"]) == 1
    with pytest.raises(shards.MachineRefused, match="refused: .*other bits.*'gains'"):
        shards.run_shard(toy, TARGET, "cpu", log=_quiet)
    st = _state(toy)  # the machine is refused, the record is not void
    assert not st["void"] and sorted(st["done"]) == [0]
    assert st["machines"][-1]["refused"] and st["machines"][-1]["host"] == "elsewhere"
    line = standing.here_line(standing.standing(toy), other)
    assert "is refused by 1 of the 1 records still running" in line
    assert line.endswith(
        "it may re-run them whole, as it may decided records (make day)."
    )
    assert "may take shards of every" in standing.here_line(
        standing.standing(toy), here
    )
    (gone,) = standing.standing(toy)[0]["refused"]
    said = standing.text_table(standing.standing(toy))
    assert gone["host"] == "elsewhere" and "(host elsewhere)" in said
    assert "other bits than shard 0" in said
    (entry,) = records.confirmatory(toy)["lsc.toy.gain"]
    box = ledger_sphinx.confirmatory_html(entry)
    assert "gave other bits than shard 0" in box and "1 of 2 shards in" in box

    def no_second_check(*a, **k):
        raise AssertionError("a refused machine is not checked again")

    monkeypatch.setattr(shards, "check_machine", no_second_check)
    with pytest.raises(shards.MachineRefused, match="other bits"):
        shards.run_shard(toy, TARGET, "cpu", log=_quiet)
    monkeypatch.setattr(shards, "machine", lambda: here)  # the first machine goes on
    monkeypatch.delenv("TOY_SHIFT")
    shards.run_shard(toy, TARGET, "cpu", log=_quiet)
    assert _state(toy)["complete"]
    assert shards.decide(toy, TARGET, "cpu", log=_quiet).exists()


def test_a_new_machine_with_the_same_bits_joins_the_list(toy, monkeypatch):
    shards.run_shard(toy, TARGET, "cpu", log=_quiet)
    other = {**shards.machine(), "host": "elsewhere", "id": "0123456789ab"}
    monkeypatch.setattr(shards, "machine", lambda: other)
    shards.run_shard(toy, TARGET, "cpu", log=_quiet)
    st = _state(toy)
    assert st["complete"] and [m["host"] for m in st["machines"]][-1] == "elsewhere"
    assert "same bits" in st["machines"][-1]["check"]


def test_a_damaged_record_file_is_reported_in_one_line_and_left_out(toy):
    claim = {"id": "lsc.toy.gain", "verdict": "reproduced", "seeds": 4}
    for name in ("a", "b"):
        records.write(toy, "cpu", "toy/toy", name, [claim], {"seed": 1}, 1.0)
    cut = toy / "results/cpu/toy/toy/a/claims.json"
    cut.write_text(cut.read_text()[:20])
    lines = []
    kept = records.load(toy, report=lines.append)
    assert [r["name"] for r in kept] == ["b"]
    (line,) = lines
    assert str(cut) in line and "left out" in line and "\n" not in line
    assert records.damaged(toy) == [line.removesuffix("; left out of every count")]
    assert list(records.at_scale(toy)) == ["lsc.toy.gain"]  # the build goes on


def test_a_damaged_shard_is_left_out_and_runs_again(toy):
    shards.run_shard(toy, TARGET, "cpu", log=_quiet)
    values = toy / "results/shards/cpu/toy/toy/conf/0/values.json"
    values.write_text(values.read_text()[:30])
    st = _state(toy)
    assert not st["done"] and "damaged file" in st["damaged"][0]
    lines = []
    shards.run_shard(toy, TARGET, "cpu", log=lines.append)
    assert any(str(values) in x and "left out" in x for x in lines)
    assert _values(toy, 0)["values"]["gains"] == _gains(77, 0, 2)


# ---- the declaration and the joins, without a run -------------------------------------


def test_a_sharded_slice_names_how_every_value_its_rule_reads_joins(tmp_path):
    root = tmp_path
    (root / "notebooks/toy").mkdir(parents=True)
    (root / "notebooks/toy/toy.claims.yaml").write_text(
        CLAIMS.replace("merge: {gains: seeds, ref: seeds}", "merge: {gains: seeds}")
    )
    with pytest.raises(C.ClaimError, match="lsc.toy.gain reads 'ref'.*per seed"):
        records.slices(root, "toy/toy")
    (root / "notebooks/toy/toy.claims.yaml").write_text(
        CLAIMS.replace("    shard: 2\n", "").replace(
            "    merge: {gains: seeds, ref: seeds}\n", ""
        )
    )
    with pytest.raises(C.ClaimError, match="confirmatory slice runs in shards"):
        records.slices(root, "toy/toy")
    (root / "notebooks/toy/toy.claims.yaml").write_text(CLAIMS)
    s = records.slices(root, "toy/toy")["conf"]
    assert shards.plan(s) == [(0, 2), (2, 2)]
    assert shards.plan({**s, "parameters": {"seeds": 5}}) == [(0, 2), (2, 2), (4, 1)]
    d = C.load(root / "notebooks/toy/toy.claims.yaml", "toy/toy")["lsc.toy.gain"]
    assert shards.rule_names(d) == ["ref", "gains"]


def test_values_join_over_shards_as_declared():
    m = shards.merge
    assert m("c", "x", "seeds", [[1, 2], [3]]) == [1, 2, 3]
    assert m("c", "x", "seeds", [{"a": [1], "b": [2]}, {"a": [3], "b": [4]}]) == {
        "a": [1, 3],
        "b": [2, 4],
    }
    assert m("c", "x", "counts", [[3, 4], [1, 4]]) == [4, 8]
    assert m("c", "x", "counts", [{"d2": [1, 2]}, {"d2": [2, 2]}]) == {"d2": [3, 4]}
    assert m("c", "x", "same", [0.1, 0.1]) == 0.1
    assert m("c", "x", "union", [["a", "b"], ["b", "c"]]) == ["a", "b", "c"]
    with pytest.raises(shards.ShardError, match="claim c: value 'x' .* differs"):
        m("c", "x", "same", [0.1, 0.2])
    with pytest.raises(shards.ShardError, match="keys differ"):
        m("c", "x", "seeds", [{"a": [1]}, {"b": [2]}])


def test_a_value_over_the_seeds_is_refused_naming_the_claim_and_the_value():
    shards.check_value("c", "g", "seeds", [0.1, float("nan")], 2)
    shards.check_value("c", "g", "seeds", {"cell": [0.1]}, 2)  # ties left out: fewer
    with pytest.raises(
        shards.ShardError, match="claim c: value 'mean_gain' .* per seed"
    ):
        shards.check_value("c", "mean_gain", "seeds", 0.93, 2)
    with pytest.raises(shards.ShardError, match="a list of 3 at 2 seeds"):
        shards.check_value("c", "curve", "seeds", [1, 2, 3], 2)


def test_files_are_written_whole_and_read_with_care(tmp_path):
    path = tmp_path / "a" / "x.json"
    shards.write_json(path, {"a": float("nan")})
    assert math.isnan(shards.read_json(path)["a"])
    assert [p.name for p in path.parent.iterdir()] == ["x.json"]
    path.write_text('{"a": ')
    with pytest.raises(ValueError, match=f"damaged file {path}"):
        shards.read_json(path)
    shutil.rmtree(path.parent)


def test_a_claim_that_admits_no_replication_says_why_it_has_no_record(tmp_path):
    (tmp_path / "notebooks" / "toy").mkdir(parents=True)
    alone = CLAIMS.split("records:")[0].replace(
        "power: {seeds: 4}",
        "power: {seeds: 4, replication: 'one recording: seeds re-draw only the nets'}",
    )
    (tmp_path / "notebooks" / "toy" / "toy.claims.yaml").write_text(alone)
    book = {**BOOK, "chapter": "notebooks/toy/toy"}
    v = records.counting_verdict(tmp_path, "lsc.toy.gain", book)
    assert v["kind"] == "exploratory" and v["verdict"] == "inconclusive"
    assert "no confirmatory record: one recording: seeds re-draw" in v["why"]
    assert records.no_replication(tmp_path, "lsc.toy.gain", "toy/toy")
    (tmp_path / "notebooks" / "toy" / "toy.claims.yaml").write_text(
        CLAIMS.split("records:")[0]
    )
    v = records.counting_verdict(tmp_path, "lsc.toy.gain", book)
    assert v["why"].endswith("no confirmatory record yet")
    with pytest.raises(C.ClaimError, match="replication"):
        C._power({"seeds": 4, "replicate": "x"}, "here")


def test_a_share_of_seeds_joins_weighted_by_its_shards_seeds():
    """A fraction of a shard's seeds joined over shards is the fraction of all the seeds:
    brute force over per-seed flags split unevenly."""
    flags = [1, 0, 1, 1, 0, 1, 1, 0, 0, 1, 1]
    cuts = [(0, 4), (4, 9), (9, 11)]
    shares = [sum(flags[a:b]) / (b - a) for a, b in cuts]
    got = shards.merge("c", "x", "share", shares, [b - a for a, b in cuts])
    assert math.isclose(got, sum(flags) / len(flags), rel_tol=1e-12)
    with pytest.raises(shards.ShardError, match="joined by its shards' seeds"):
        shards.merge("c", "x", "share", shares)
    with pytest.raises(shards.ShardError, match="not a number in"):
        shards.check_value("c", "x", "share", 1.5, 4)
    with pytest.raises(shards.ShardError, match="not a number in"):
        shards.check_value("c", "x", "share", [0.5], 4)


def test_a_smallest_over_seeds_joins_as_the_smallest_of_the_shards():
    per_seed = [0.7, 0.2, 0.9, 0.4, 0.3]
    parts = [min(per_seed[:2]), min(per_seed[2:])]
    assert shards.merge("c", "B1", "min", parts) == min(per_seed)
    with pytest.raises(shards.ShardError, match="not one number"):
        shards.merge("c", "B1", "min", [[0.1], [0.2]])
