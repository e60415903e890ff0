"""Running chapters: kernels on the IPC transport (no port to draw, so none to collide on), many
started at once; the local pool reports each start and each result."""

import asyncio
import json
import logging
import os

import nbformat
import papermill
import papermill.translators

from rnnbook.book import execution

KERNELS = 8


async def start_and_ask(n: int) -> list[dict]:
    managers = [execution.ipc_kernel_manager()(kernel_name="python3") for _ in range(n)]
    await asyncio.gather(*(km.start_kernel() for km in managers))
    try:
        clients = [km.client() for km in managers]
        for kc in clients:
            kc.start_channels()
        await asyncio.gather(*(kc.wait_for_ready(timeout=120) for kc in clients))
        for kc in clients:
            kc.stop_channels()
        return [km.get_connection_info() for km in managers]
    finally:
        await asyncio.gather(*(km.shutdown_kernel(now=True) for km in managers))


def test_many_kernels_start_at_once_without_colliding(capfd):
    """Eight kernels started at the same moment all answer; each listens on sockets of its own
    (files named after its connection file), and none warns about TCP."""
    infos = asyncio.run(start_and_ask(KERNELS))
    assert {i["transport"] for i in infos} == {"ipc"}
    addresses = [(i["ip"], i[f"{c}_port"]) for i in infos for c in ("shell", "iopub")]
    assert len(set(addresses)) == len(addresses) == 2 * KERNELS
    assert "without encryption" not in capfd.readouterr().err


def test_chapters_run_their_kernels_over_ipc(tmp_path, monkeypatch, caplog):
    """... and papermill's warning of a parameter its parser missed (the pipeline checked
    every name already) does not reach the build's output."""
    seen = {}

    def fake(*args, **kwargs):
        seen.update(kwargs)
        logging.getLogger("papermill").warning("Passed unknown parameter: profile")
        logging.getLogger("papermill").warning("another warning")
        # papermill's own parser, on a line of the Fig. 3 chapter's parameters cell
        cell = nbformat.v4.new_code_cell("seed = seeds = seed_start = None")
        papermill.translators.PythonTranslator.inspect(cell)

    monkeypatch.setattr(papermill, "execute_notebook", fake)
    src = tmp_path / "ch.py"
    src.write_text("# %%\nx = 1\n")
    job = dict(
        source=src,
        output=tmp_path / "out" / "ch.ipynb",
        cwd=tmp_path / "work",
        env={},
        parameters={},
        chapter="ch",
    )
    assert execution.execute_job(job)["error"] is None
    assert seen["kernel_manager_class"]().transport == "ipc"
    said = [r.getMessage() for r in caplog.records]
    assert "another warning" in said
    assert not any("unknown param" in m or "Unable to parse" in m for m in said)


def test_the_local_pool_reports_starts_and_results(tmp_path):
    """Two jobs at a time: each start is reported before its result, and a chapter that fails
    comes back as a result with its error (the pool goes on)."""
    jobs = []
    for name, code in (
        ("good", "x = 1"),
        ("bad", "raise ValueError('no')"),
        ("ok", ""),
    ):
        src = tmp_path / f"{name}.py"
        src.write_text(f"# %%\n{code}\n")
        jobs.append(
            dict(
                source=str(src),
                output=str(tmp_path / "out" / f"{name}.ipynb"),
                cwd=str(tmp_path / "work"),
                env={},
                parameters={},
                chapter=name,
            )
        )
    events = []
    execution.LocalPool(2).run(
        jobs,
        lambda j: events.append(("start", j["chapter"])),
        lambda r: events.append(("done", r["chapter"], r["error"] is None)),
    )
    assert [e for e in events if e[0] == "start"][:2] == [
        ("start", "good"),
        ("start", "bad"),
    ]
    for name, ok in (("good", True), ("bad", False), ("ok", True)):
        assert events.index(("start", name)) < events.index(("done", name, ok))
    nb = json.loads((tmp_path / "out" / "good.ipynb").read_text())
    assert nb["metadata"]["kernelspec"]["name"] == "python3"


def test_a_kernel_that_does_not_exit_when_asked_is_ended(tmp_path, monkeypatch):
    """A chapter whose kernel hangs on its way out (here an exit handler that sleeps a minute)
    has run: it is ended after KERNEL_SHUTDOWN_WAIT, not after jupyter_client's 5 s, and is
    gone when the job returns."""
    from jupyter_client import AsyncKernelManager

    waits, pids = [], []
    finish = AsyncKernelManager._async_finish_shutdown

    async def spy(self, *args, **kwargs):
        waits.append(self.shutdown_wait_time)
        pids.append(self.provisioner.process.pid)
        return await finish(self, *args, **kwargs)

    monkeypatch.setattr(AsyncKernelManager, "_async_finish_shutdown", spy)
    src = tmp_path / "hangs.py"
    src.write_text("# %%\nimport atexit, time\natexit.register(time.sleep, 60)\n")
    job = dict(
        source=str(src),
        output=str(tmp_path / "out" / "hangs.ipynb"),
        cwd=str(tmp_path / "work"),
        env={},
        parameters={},
        chapter="hangs",
    )
    assert execution.execute_job(job)["error"] is None
    assert (
        waits == [execution.KERNEL_SHUTDOWN_WAIT] and execution.KERNEL_SHUTDOWN_WAIT < 5
    )
    assert not os.path.exists(f"/proc/{pids[0]}")
