"""Chapters run as tasks of a Dask cluster give the same ledger as the local process pool; the
pipeline is handed either executor and does not know which one it runs on."""

import json
import shutil
from pathlib import Path

import pytest

from rnnbook.book import pipeline
from rnnbook.book.execution import LocalPool

from tests.conftest import ROOT

CHAPTERS = ("notebooks/lsc/lemma2_paths", "notebooks/implicit_bias/rho_j")


def two_chapter_book(tmp_path: Path) -> Path:
    (tmp_path / "book").mkdir(parents=True)
    (tmp_path / "book" / "intro.md").write_text("# Intro\n")
    shutil.copy(ROOT / "_config.yml", tmp_path / "_config.yml")
    shutil.copy(ROOT / "requirements.txt", tmp_path / "requirements.txt")
    toc = {"format": "jb-book", "root": "book/intro", "chapters": []}
    for name in CHAPTERS:
        for suffix in (".py", ".claims.yaml"):
            src = ROOT / f"{name}{suffix}"
            if src.exists():
                (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy(src, tmp_path / f"{name}{suffix}")
        toc["chapters"].append({"file": name})
    (tmp_path / "_toc.yml").write_text(json.dumps(toc))
    return tmp_path


def test_dask_cluster_gives_the_local_ledger(tmp_path):
    distributed = pytest.importorskip("dask.distributed")
    from rnnbook.book.distributed import DaskExecutor

    local = two_chapter_book(tmp_path / "local")
    pipeline.build(
        local,
        "smoke",
        html=False,
        log=lambda *_: None,
        force=True,
        executor=LocalPool(2),
    )
    remote = two_chapter_book(tmp_path / "remote")
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    ) as cluster:
        pipeline.build(
            remote,
            "smoke",
            html=False,
            log=lambda *_: None,
            force=True,
            executor=DaskExecutor(cluster),
        )
    a = json.loads((local / "_build" / "claims.json").read_text())
    b = json.loads((remote / "_build" / "claims.json").read_text())
    assert len(a) >= 4 and a == b
    for name in CHAPTERS:
        assert (remote / "_build" / "stage" / f"{name}.ipynb").exists()


def test_the_pipeline_refuses_what_is_not_an_executor(tmp_path):
    """A bare cluster object is not an executor: the message says how to wrap it."""
    book = two_chapter_book(tmp_path)
    with pytest.raises(TypeError, match="DaskExecutor"):
        pipeline.build(
            book, "smoke", html=False, log=lambda *_: None, executor=object()
        )
