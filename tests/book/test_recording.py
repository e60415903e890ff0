"""Record slices (rnnbook.book.recording): declared before they run, sized by the power
analysis, each on a master seed of its own, and the record path end to end at smoke size."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rnnbook.book import claims as C
from rnnbook.book import pipeline, records, recording

ROOT = Path(__file__).resolve().parents[2]
#: the parameters that count a slice's seeds, by chapter
SEED_PARAMETERS = ("seeds", "n_seeds", "fig4_seeds")
#: master seeds the book and the seed check run
BOOK_SEEDS = {0, 4, 5}


def _declared():
    for chapter in records.training_chapters(ROOT):
        for name, s in records.slices(ROOT, chapter).items():
            yield chapter, name, s


def test_every_slice_is_declared_with_its_power_analysis_and_a_fresh_seed():
    found = list(_declared())
    assert found, "no record slice is declared"
    seeds = [s["seed"] for _, _, s in found]
    assert len(set(seeds)) == len(seeds) and not set(seeds) & BOOK_SEEDS
    for chapter, name, s in found:
        decl = C.load(C.claims_file(chapter, ROOT), chapter)
        ch = pipeline.find_chapter(ROOT, chapter)
        pipeline.check_parameters(ch, {"profile": "book", **s["parameters"]})
        counted = [s["parameters"][k] for k in SEED_PARAMETERS if k in s["parameters"]]
        if (
            s.get("count") in s["parameters"]
        ):  # a shard's own count (fig4_seeds, n_seeds)
            counted = [s["parameters"][s["count"]]]
        assert len(counted) == 1, f"{chapter}:{name} declares no seed count"
        # a slice that has run keeps the size its power analysis gave under the rule of
        # its day; one still to run (and every confirmatory one) is sized by today's
        ran = (ROOT / "results" / s["scale"] / chapter / name).exists()
        for cid in s["claims"]:
            need = C.load(C.claims_file(chapter, ROOT), chapter)[cid].power["seeds"]
            if s.get("kind") == "confirmatory":
                # sized on the spreads all the exploratory data measured, not the declared
                # ones (issue 50): its declaration says so, with the power it reaches
                why = " ".join(str(s.get("why", "")).split())
                sized = "probability" in why and "exploratory data" in why
                assert sized or "design" in why, (chapter, name)  # or another's design
            elif not ran:
                assert counted[0] >= need, f"{chapter}:{name}: {cid} needs {need} seeds"
            assert decl[cid].trained, f"{cid} is not a training claim"
        assert s.get("why") and s.get("minutes"), f"{chapter}:{name}: why, minutes"


def test_a_slice_refuses_another_scale_and_an_unknown_name(tmp_path):
    with pytest.raises(C.ClaimError, match="declares no slice 'nope'"):
        recording.run_record(ROOT, "mean_field/training:nope", "cpu")
    with pytest.raises(C.ClaimError, match="declared at scale 'cpu'"):
        recording.run_record(ROOT, "mean_field/training:fig2", "gpu")
    with pytest.raises(ValueError, match="its own 'results' folder"):
        recording.run_record(
            ROOT, "mean_field/training:fig2", "cpu", sizes={"profile": "smoke"}
        )


def test_a_smoke_size_record_runs_the_slice_end_to_end(tmp_path):
    """The record path at smoke sizes: the chapter runs at the slice's own master seed, the
    record keeps the slice's claims only, with the provenance that makes it checkable."""
    folder = recording.run_record(
        ROOT,
        "mean_field/training:fig2",
        "cpu",
        log=lambda *a: None,
        sizes={"profile": "smoke"},
        results=tmp_path,
    )
    assert folder == tmp_path / "cpu-smoke" / "mean_field/training" / "fig2"
    claims = json.loads((folder / "claims.json").read_text())
    prov = json.loads((folder / "provenance.json").read_text())
    assert {c["id"] for c in claims} == {
        "mean-field.fig2.trainable-depth",
        "mean-field.fig2.gating-wider",
    }
    assert all(c["verdict"] in C.VERDICTS and c["effects"] for c in claims)
    assert prov["master_seed"] == 101 and prov["parameters"]["profile"] == "smoke"
    assert prov["measuring_hash"] == records.measuring_hash(ROOT, "mean_field/training")
    assert prov["device"] == "CPU" and prov["wall_seconds"] > 0
    assert not (ROOT / records.RESULTS / "cpu-smoke").exists()
    # the figure the slice names, drawn by this run, kept beside it
    (fig,) = json.loads((folder / "figures.json").read_text())
    assert fig["number"] == 1 and (folder / fig["file"]).read_bytes().startswith(b"<")
    # each effect keeps its data and the record its rule: a changed rule decides it again
    assert all("data" in e for c in claims for e in c["effects"])
    assert all(c["rule"] for c in claims)


def test_a_box_shows_each_slice_declared_for_its_claim_before_it_runs():
    from rnnbook.book import ledger_sphinx

    (s,) = [
        x
        for x in records.declared(ROOT)["mean-field.fig2.gating-wider"]
        if x["name"] == "fig2"
    ]
    assert (s["chapter"], s["name"], s["seed"]) == ("mean_field/training", "fig2", 101)
    text = ledger_sphinx.declared_html(s)
    assert "declared, not yet run" in text and "master seed 101" in text
    assert "seeds 12" in text and "n_seeds" not in text  # sizes in words
    assert "[" not in text  # no lists
    assert "power analysis" in text  # the why, in words
