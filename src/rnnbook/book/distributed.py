"""Chapters as tasks of a Dask cluster: the ``paper`` profile where one machine is not enough.

The unit of work is the chapter. :class:`DaskExecutor`, the pipeline's executor for a cluster (the
other is :class:`~rnnbook.book.execution.LocalPool`), ships each chapter's source and claim
declarations to a Dask worker, which executes it with papermill in a scratch folder of its own and
sends back the executed notebook and the claim records; the pipeline then writes them into
``_build/`` exactly as a local run does. The workers need the same environment (``make venv``, or
``pip install -r requirements.txt -e .``) and, for the chapters that read it, the data
(``RNNBOOK_DATA_DIR``); they need no shared file system.

A cluster is a scheduler address (``tcp://host:8786``), a ``dask.distributed.Client``, or any cluster
object, e.g. a ``dask_jobqueue.SLURMCluster`` (see the README, *The paper profile on a cluster*).
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

from .execution import OnResult, OnStart, execute_job


def remote_execute(job: dict) -> dict:
    """On a worker: run one chapter in a scratch book of its own; return notebook and claims."""
    with tempfile.TemporaryDirectory(prefix="rnnbook-") as tmp:
        root = Path(tmp)
        source = root / job["source_name"]
        source.parent.mkdir(parents=True, exist_ok=True)
        source.write_text(job["source_text"])
        if job.get("claims_text") is not None:
            source.with_suffix("").with_suffix(".claims.yaml").write_text(
                job["claims_text"]
            )
        build = root / "_build"
        claims = build / "claims"
        env = {
            **job["env"],
            "RNNBOOK_ROOT": str(root),
            "RNNBOOK_BUILD_DIR": str(build),
            "RNNBOOK_CLAIMS_DIR": str(claims),
            "MPLCONFIGDIR": str(build / ".cache" / "matplotlib"),
        }
        out = build / "stage" / "chapter.ipynb"
        result = execute_job(
            {
                **job,
                "source": str(source),
                "output": str(out),
                "cwd": str(build / "work"),
                "env": env,
            }
        )
        result["notebook"] = out.read_bytes() if out.exists() else None
        result["claims"] = [
            json.loads(p.read_text()) for p in sorted(claims.glob("*.json"))
        ]
        result["worker"] = os.uname().nodename
        return result


def _client(cluster: Any):
    from dask.distributed import Client

    if isinstance(cluster, Client):
        return cluster, False
    return Client(cluster), True


class DaskExecutor:
    """The pipeline's executor for a Dask cluster: ``cluster`` is a scheduler address, a
    ``dask.distributed.Client`` or a cluster object (``LocalCluster``, ``SLURMCluster``)."""

    def __init__(self, cluster: Any) -> None:
        self.cluster = cluster

    def describe(self) -> str:
        return f"the Dask cluster {describe(self.cluster)}"

    def run(self, jobs: list[dict], on_start: OnStart, on_result: OnResult) -> None:
        run_on_cluster(jobs, self.cluster, on_result, on_start)


def run_on_cluster(
    jobs: list[dict],
    cluster: Any,
    on_result: OnResult,
    on_start: OnStart | None = None,
) -> None:
    """Submit every job to the cluster; call ``on_result`` in this process as each one returns
    (with the executed notebook and the claim records written where the local run writes them).
    ``on_start`` is called as each job is submitted (the scheduler, not this process, knows
    when a worker takes it up)."""
    from dask.distributed import as_completed

    client, own = _client(cluster)
    try:
        futures = []
        for job in jobs:
            source = Path(job["source"])
            claims = source.with_suffix("").with_suffix(".claims.yaml")
            payload = {
                **job,
                "source_text": source.read_text(),
                "claims_text": claims.read_text() if claims.exists() else None,
            }
            futures.append(
                client.submit(
                    remote_execute, payload, pure=False, key=f"chapter-{job['chapter']}"
                )
            )
            if on_start is not None:
                on_start(job)
        for fut in as_completed(futures):
            r = fut.result()
            job = next(j for j in jobs if j["chapter"] == r["chapter"])
            r["_notebook"] = r.pop("notebook")
            write_back(job, r)
            on_result(r)
    finally:
        if own:
            client.close()


def write_back(job: dict, result: dict) -> None:
    """Put a worker's executed notebook and claim records where a local run leaves them."""
    notebook = result.pop("_notebook", None)
    claims = Path(job["env"]["RNNBOOK_CLAIMS_DIR"])
    claims.mkdir(parents=True, exist_ok=True)
    for record in result.pop("claims", []):
        (claims / f"{record['id']}.json").write_text(json.dumps(record, indent=1))
    if notebook is not None:
        out = Path(job["output"])
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_bytes(notebook)


def describe(cluster: Any) -> str:
    return cluster if isinstance(cluster, str) else type(cluster).__name__


def from_scheduler(text: str | None) -> DaskExecutor | None:
    """The executor for ``--scheduler`` (``None``: the local process pool)."""
    return None if text is None else DaskExecutor(parse_scheduler(text))


def parse_scheduler(text: str | None) -> Any:
    """``--scheduler``: ``tcp://host:8786`` (a running scheduler) or ``local:N`` (a LocalCluster of
    N single-threaded worker processes on this machine)."""
    if text is None:
        return None
    if text.startswith("local:"):
        from dask.distributed import LocalCluster

        n = int(text.split(":", 1)[1])
        return LocalCluster(n_workers=n, threads_per_worker=1, processes=True)
    return text
