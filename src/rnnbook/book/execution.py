"""Running chapters: one job format, one interface, and the local process pool.

A *job* is a dict naming one chapter's source, parameters, output notebook, working folder and
environment; :func:`execute_job` runs it (Jupytext, then papermill) and returns what happened.
An :class:`Executor` runs a list of jobs and reports each start and each result; the pipeline is
handed one and does not know where the chapters run. Two implementations:

* :class:`LocalPool` (here): one fresh process per chapter, ``jobs`` at a time on this machine;
* :class:`rnnbook.book.distributed.DaskExecutor`: each chapter a task of a Dask cluster.

The kernels talk to papermill over the IPC transport (Unix sockets named after the kernel's own
connection file), so two kernels started at once can never draw the same TCP port.
"""

from __future__ import annotations

import logging
import os
import re
import resource
import select
import signal
import sys
import tempfile
import threading
import time
import uuid
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from multiprocessing import get_context
from pathlib import Path
from typing import Callable, Protocol

_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")

#: a kernel that dies before it answers has run no cell, so the chapter is started again; over
#: IPC no two kernels share an address, so this is left for rarer deaths (a full /tmp, an OOM kill)
KERNEL_START_TRIES = 3

#: seconds a kernel whose chapter has run gets to exit after it was asked to (then SIGTERM at half
#: of it, SIGKILL at the end): its outputs and claim records are in by then, and three kernels
#: in ten here did not exit on request, each waiting out jupyter_client's default of 5 s
#: (SIGTERM at 2.5 s: 0.7 s per chapter became 4.0 s)
KERNEL_SHUTDOWN_WAIT = 1.0

#: a Unix socket's path has at most 107 bytes; a kernel's are "<runtime dir>/kernel-<uuid>-ipc-N",
#: 50 bytes after the folder
_MAX_RUNTIME_DIR = 56


def kernel_did_not_start(e: BaseException) -> bool:
    """Whether ``e`` says the kernel died before it replied to its first request."""
    return "before replying to kernel_info" in str(e)


def ipc_kernel_manager():
    """A papermill-ready kernel manager class whose kernels listen on IPC sockets, not TCP ports.

    Each kernel's sockets are files named after its own connection file (a fresh name under
    Jupyter's runtime folder, as an absolute path): left to itself, jupyter_client would name
    them ``kernel-ipc-N`` in the working folder, which kernels started at once would share.
    A kernel that does not exit when asked is ended after :data:`KERNEL_SHUTDOWN_WAIT`."""
    from jupyter_client import AsyncKernelManager
    from traitlets import default

    class IPCKernelManager(AsyncKernelManager):
        @default("transport")
        def _transport_default(self) -> str:
            return "ipc"

        @default("connection_file")
        def _connection_file_default(self) -> str:
            return str(runtime_dir() / f"kernel-{uuid.uuid4()}.json")

        @default("shutdown_wait_time")
        def _shutdown_wait_time_default(self) -> float:
            return KERNEL_SHUTDOWN_WAIT

    return IPCKernelManager


def runtime_dir() -> Path:
    """Jupyter's runtime folder, where the IPC sockets live; a short temporary folder when that
    one's path is too long for a Unix socket's name."""
    from jupyter_core.paths import jupyter_runtime_dir

    folder = Path(jupyter_runtime_dir())
    if len(str(folder)) > _MAX_RUNTIME_DIR:
        folder = Path(tempfile.gettempdir()) / f"rnnbook-kernels-{os.getuid()}"
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    return folder


class _CheckedParameters(logging.Filter):
    """papermill warns of a parameter its own parsing of the parameters cell misses (an
    annotated or computed default, or a line it cannot parse, such as ``seed = seeds =
    None``); the pipeline has checked every name against the cell already
    (``check_parameters``), so the warning would tell the reader nothing."""

    SAID = ("Passed unknown parameter", "Unable to parse line")

    def filter(self, record: logging.LogRecord) -> bool:
        return not record.getMessage().startswith(self.SAID)


def execute_job(job: dict) -> dict:
    """Convert one chapter with Jupytext and run it with papermill; returns the chapter's wall and
    CPU time, peak memory and error (``None`` when every cell ran)."""
    os.environ.update(job["env"])
    import jupytext
    import papermill as pm

    # a logger's filters see only its own records, not those of its children
    for name in ("papermill", "papermill.translators"):
        log = logging.getLogger(name)
        if not any(isinstance(f, _CheckedParameters) for f in log.filters):
            log.addFilter(_CheckedParameters())

    src, out, cwd = Path(job["source"]), Path(job["output"]), Path(job["cwd"])
    out.parent.mkdir(parents=True, exist_ok=True)
    cwd.mkdir(parents=True, exist_ok=True)
    nb = jupytext.read(src)
    nb.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3",
        "language": "python",
    }
    unexecuted = cwd / (out.stem + ".in.ipynb")
    jupytext.write(nb, unexecuted)
    t0 = time.perf_counter()
    error = None
    try:
        for attempt in range(1, KERNEL_START_TRIES + 1):
            try:
                pm.execute_notebook(
                    str(unexecuted),
                    str(out),
                    parameters=job["parameters"],
                    kernel_name="python3",
                    cwd=str(cwd),
                    progress_bar=False,
                    log_output=False,
                    kernel_manager_class=ipc_kernel_manager(),
                )
                break
            except RuntimeError as e:  # a kernel that never started ran nothing
                if not kernel_did_not_start(e) or attempt == KERNEL_START_TRIES:
                    raise
    except pm.PapermillExecutionError as e:
        error = {
            "cell": e.exec_count,
            "ename": e.ename,
            "evalue": e.evalue,
            "traceback": _ANSI.sub("", "\n".join(e.traceback)),
        }
    except Exception as e:  # kernel died, bad notebook, ...
        error = {
            "cell": None,
            "ename": type(e).__name__,
            "evalue": str(e),
            "traceback": "",
        }
    if out.exists():
        hide_parameter_cells(out)
    # the kernel is this worker's only child (one chapter per worker process): its peak memory
    # and CPU time (which, unlike the wall time, does not grow with the load of the machine)
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return {
        "chapter": job["chapter"],
        "seconds": time.perf_counter() - t0,
        "cpu_seconds": usage.ru_utime + usage.ru_stime,
        "peak_mb": usage.ru_maxrss / 1024,
        "error": error,
    }


HIDDEN_TAGS = ("parameters", "injected-parameters")


def hide_parameter_cells(path: Path) -> None:
    """Tag papermill's parameters cells ``remove-cell``: they stay in the notebook (papermill
    needs them) but not on the page, where the resolved-parameter line tells the reader more."""
    import nbformat

    nb = nbformat.read(path, as_version=4)
    for cell in nb.cells:
        tags = cell.metadata.get("tags", [])
        if any(t in tags for t in HIDDEN_TAGS) and "remove-cell" not in tags:
            cell.metadata["tags"] = [*tags, "remove-cell"]
    nbformat.write(nb, path)


OnStart = Callable[[dict], None]
OnResult = Callable[[dict], None]


class Executor(Protocol):
    """Where chapters run. ``run`` calls ``on_start(job)`` when a job starts (or is queued on a
    cluster) and ``on_result(result)`` in this process as each job ends, the executed notebook
    and the claim records then in place (``job["output"]``, ``job["env"]["RNNBOOK_CLAIMS_DIR"]``)."""

    def describe(self) -> str: ...

    def run(self, jobs: list[dict], on_start: OnStart, on_result: OnResult) -> None: ...


def _end_with_build(build: int) -> None:
    """A pool worker's start: it ends when the build ``build`` (a process id) ends, killed or
    not, idle or running a chapter, and shuts its kernel down on the way out (a killed build
    leaves nothing running on). Its parent is the fork server, not the build, so it watches
    the build itself."""
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))

    def watch() -> None:
        try:
            fd = os.pidfd_open(build)
            select.select([fd], [], [])
        except (OSError, AttributeError):
            # no pidfd (not Linux >= 5.3): ask each second
            while _alive(build):
                time.sleep(1.0)
        os.kill(os.getpid(), signal.SIGTERM)

    threading.Thread(target=watch, name="end-with-build", daemon=True).start()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass
    return True


def _pooled(job: dict, environ: dict, cwd: str) -> dict:
    """One chapter in a pool worker, which starts as a fresh process would: the build's
    environment and working folder as they are now (a worker forked from the server keeps
    those of when the server started)."""
    os.environ.clear()
    os.environ.update(environ)
    os.chdir(cwd)
    return execute_job(job)


#: what every pool worker imports: loaded once, by the fork server, not by each worker
WORKER_PRELOAD = ["rnnbook.book.execution", "papermill", "jupytext"]


def worker_context():
    """Workers forked from a server that has imported papermill and Jupytext (0.6 s of CPU
    per chapter otherwise); spawned where there is no fork server (not POSIX)."""
    import multiprocessing

    if "forkserver" not in multiprocessing.get_all_start_methods():
        return get_context("spawn")
    ctx = get_context("forkserver")
    ctx.set_forkserver_preload(WORKER_PRELOAD)
    return ctx


class LocalPool:
    """The chapters in fresh processes on this machine (one per chapter, forked from a server
    that has imported what they need), ``jobs`` at a time, in the order given (the pipeline
    gives them longest first)."""

    def __init__(self, jobs: int | None = None) -> None:
        self.jobs = max(1, jobs or os.cpu_count() or 1)

    def describe(self) -> str:
        return f"{self.jobs} local worker(s)"

    def run(self, jobs: list[dict], on_start: OnStart, on_result: OnResult) -> None:
        todo, running = list(jobs), {}
        with ProcessPoolExecutor(
            max_workers=self.jobs,
            mp_context=worker_context(),
            max_tasks_per_child=1,
            initializer=_end_with_build,
            initargs=(os.getpid(),),
        ) as pool:
            while todo or running:
                while todo and len(running) < self.jobs:
                    job = todo.pop(0)
                    fut = pool.submit(_pooled, job, dict(os.environ), os.getcwd())
                    running[fut] = job
                    on_start(job)
                finished, _ = wait(running, return_when=FIRST_COMPLETED)
                for fut in finished:
                    job = running.pop(fut)
                    try:
                        result = fut.result()
                    except (
                        Exception
                    ) as e:  # the worker itself died (killed, out of memory)
                        result = failed(job, e)
                    on_result(result)


def failed(job: dict, e: BaseException) -> dict:
    """The result of a job whose worker died before it could report."""
    return {
        "chapter": job["chapter"],
        "seconds": 0.0,
        "error": {
            "cell": None,
            "ename": type(e).__name__,
            "evalue": str(e) or "the worker process died",
            "traceback": "",
        },
    }
