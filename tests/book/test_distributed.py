"""Chapters run as tasks of a Dask cluster give the same ledger as the local process pool; the
pipeline is handed either executor and does not know which one it runs on."""

import json

import pytest

from rnnbook.book import pipeline
from rnnbook.book.execution import LocalPool

from tests.book.conftest import claimed_book


def test_dask_cluster_gives_the_local_ledger(tmp_path):
    distributed = pytest.importorskip("dask.distributed")
    from rnnbook.book.distributed import DaskExecutor

    local = claimed_book(tmp_path / "local", n=2)
    pipeline.build(
        local,
        "smoke",
        html=False,
        log=lambda *_: None,
        force=True,
        executor=LocalPool(2),
    )
    remote = claimed_book(tmp_path / "remote", n=2)
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
    assert len(a) == 2 and a == b
    for name in ("notebooks/d/c1", "notebooks/d/c2"):
        assert (remote / "_build" / "stage" / f"{name}.ipynb").exists()


def test_the_pipeline_refuses_what_is_not_an_executor(tmp_path):
    """A bare cluster object is not an executor: the message says how to wrap it."""
    book = claimed_book(tmp_path, n=1)
    with pytest.raises(TypeError, match="DaskExecutor"):
        pipeline.build(
            book, "smoke", html=False, log=lambda *_: None, executor=object()
        )
