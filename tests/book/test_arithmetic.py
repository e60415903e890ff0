"""The arithmetic of a chapter's kernel: the same numbers on another processor, stored runs
that follow the code they were made with, and records that say where they ran."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from rnnbook.book import arithmetic, pipeline, records
from rnnbook.book import execution_cache as xc

# a recurrence whose matrix products MKL computes: its last bits follow MKL's code path
TOY = """
import torch
g = torch.Generator().manual_seed(0)
W = torch.randn(64, 64, generator=g) / 8
h = torch.randn(32, 64, generator=g)
for _ in range(200):
    h = torch.tanh(h @ W * 1.5 + 0.1)
print(h.double().sum().item().hex())
"""


def _toys(*envs: dict[str, str]) -> list[str]:
    """The toy's last bits under each of ``envs``, in processes run side by side."""
    base = {k: v for k, v in os.environ.items() if k not in arithmetic.PINNED}
    runs = [
        subprocess.Popen(
            [sys.executable, "-c", TOY],
            env={**base, "OMP_NUM_THREADS": "1", **env},
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        for env in envs
    ]
    out = []
    for p in runs:
        stdout, stderr = p.communicate(timeout=120)
        assert p.returncode == 0, stderr.decode()[-2000:]
        out.append(stdout.decode().strip())
    return out


def _mkl_dispatches_avx512() -> bool:
    """Whether MKL, left to itself, runs its AVX-512 code here: its verbose banner names
    the instruction set it chose. Not every processor with AVX-512 gets it: on an AMD EPYC
    with AVX-512 (2026-12-02), MKL's banner names its generic code and the bits stayed."""
    env = {k: v for k, v in os.environ.items() if k not in arithmetic.PINNED}
    code = "import torch; torch.ones(64, 64) @ torch.ones(64, 64)"
    out = subprocess.run(
        [sys.executable, "-c", code],
        env={**env, "MKL_VERBOSE": "1", "OMP_NUM_THREADS": "1"},
        capture_output=True,
        text=True,
        timeout=120,
    )
    return "AVX-512" in out.stdout


def test_a_chapter_gets_the_same_numbers_on_a_processor_without_avx512():
    """MKL_ENABLE_INSTRUCTIONS=AVX2 makes MKL dispatch as on a machine without AVX-512:
    under the kernel's arithmetic the numbers do not move (the control: under MKL's own
    dispatch they do, where MKL runs its AVX-512 code)."""
    as_avx2, pinned = {"MKL_ENABLE_INSTRUCTIONS": "AVX2"}, arithmetic.env()
    a, b, native, native_avx2 = _toys(pinned, {**pinned, **as_avx2}, {}, as_avx2)
    assert a == b
    if _mkl_dispatches_avx512():
        assert native != native_avx2, "MKL's own dispatch no longer moves the bits"


def test_the_kernel_pins_the_arithmetic_and_keeps_what_the_environment_sets(
    tmp_path, monkeypatch
):
    ch = pipeline.Chapter(name="notebooks/p/one", source=tmp_path / "one.py")
    for k in arithmetic.PINNED:
        monkeypatch.delenv(k, raising=False)
    env = pipeline._kernel_env(tmp_path / "_build", ch, 1)
    assert {k: env[k] for k in arithmetic.PINNED} == arithmetic.PINNED
    monkeypatch.setenv("MKL_CBWR", "AUTO")
    assert pipeline._kernel_env(tmp_path / "_build", ch, 1)["MKL_CBWR"] == "AUTO"
    assert "MKL_CBWR=AUTO" in arithmetic.stamp()


def test_another_arithmetic_runs_a_chapter_again(monkeypatch):
    old = {"code": "1", "modules": {}, "arithmetic": arithmetic.stamp()}
    monkeypatch.setenv("MKL_CBWR", "AUTO")
    new = {**old, "arithmetic": arithmetic.stamp()}
    assert xc.why_changed(old, new) == "its arithmetic changed"


def _src(tmp_path: Path, files: dict[str, str]) -> xc.ModuleIndex:
    for name, text in files.items():
        path = tmp_path / "src" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return xc.ModuleIndex(tmp_path / "src")


def test_stored_runs_follow_the_code_they_were_made_with(tmp_path):
    """A stored run is kept while its code is today's: an edit to a module the runs'
    own keys leave out (here ``ensemble``) or one of unknown making removes it; an edit
    to a module that only draws does not."""
    files = {
        "rnnbook/__init__.py": "",
        "rnnbook/stats.py": "X = 1\n",
        "rnnbook/lsc/__init__.py": "",
        "rnnbook/lsc/ensemble.py": "from rnnbook import stats\n",
        "rnnbook/lsc/training_figures.py": "COLOUR = 'k'\n",
    }
    build, log = tmp_path / "_build", []
    run = build / "lsc_runs" / "rnn-ensemble-abc.json"

    def stored_after(edit: dict[str, str]) -> bool:
        if not run.exists():
            run.parent.mkdir(parents=True, exist_ok=True)
            run.write_text("{}")
        xc.guard_result_caches(build, _src(tmp_path, edit), log.append)
        return run.exists()

    assert not stored_after(files)  # made before the stamp: unknown code
    assert stored_after({})
    assert stored_after({"rnnbook/lsc/training_figures.py": "COLOUR = 'r'\n"})
    assert not stored_after(
        {"rnnbook/lsc/ensemble.py": "from rnnbook import stats\n#\n"}
    )
    assert not stored_after({"rnnbook/stats.py": "X = 2\n"})  # the common layer too
    assert stored_after({}) and "other code" in log[0]


def test_a_record_says_where_it_ran_and_hashes_the_code_it_started_with(tmp_path):
    root = Path(__file__).resolve().parents[2]
    claim = {"id": "x", "chapter": "notebooks/lsc/deep_rnns", "verdict": "reproduced"}
    folder = records.write(
        root, "cpu", "lsc/deep_rnns", "t", [claim], {"seed": 1}, 1.0,
        results=tmp_path, measured_with="abc",
    )  # fmt: skip
    prov = json.loads((folder / "provenance.json").read_text())
    assert prov["measuring_hash"] == "abc"
    assert prov["cpu"] == arithmetic.cpu_model() and prov["cpu"]
    assert prov["arithmetic"] == arithmetic.stamp()


@pytest.mark.parametrize("module", ["rnnbook.plotting", "rnnbook.lsc.training_figures"])
def test_drawing_modules_are_named_as_such(module):
    assert xc.draws(module) and not xc.draws("rnnbook.lsc.ensemble")


def test_a_box_says_where_each_record_ran_in_words():
    from rnnbook.book.ledger_sphinx import where_html

    import html

    now = html.unescape(
        where_html({"cpu": "Xeon", "arithmetic": arithmetic.stamp(), "device": "cpu"})
    )
    assert "on Xeon" in now and "MKL's AVX2 branch" in now and "on 1 thread" in now
    assert "MKL_CBWR" not in now and "GPU" not in now  # words, not variables
    gpu = where_html({"arithmetic": arithmetic.stamp(), "device": "NVIDIA H200"})
    assert "ran on NVIDIA H200" in gpu and "not fixed" in gpu
    own = arithmetic.in_words(arithmetic.stamp().replace("AVX2,", "AUTO,", 1))
    assert own.startswith("its own settings") and "MKL_CBWR=AUTO" in own
    # a record from before oneDNN was pinned (2026-12-01) says it ran with it free
    old = arithmetic.stamp().replace("ONEDNN_MAX_CPU_ISA=AVX2, ", "")
    assert "oneDNN's left free" in arithmetic.in_words(old)
    assert "oneDNN's and OpenBLAS's AVX2" in arithmetic.in_words(arithmetic.stamp())
    before = where_html({})  # a record from before processors were kept
    assert "did not name" in before and "verdict may differ" in before


def test_onednn_is_pinned_to_avx2_and_torch_honours_it():
    """An LSTM on the CPU goes through oneDNN, which picks its instructions by the
    processor unless ONEDNN_MAX_CPU_ISA caps them; its verbose log says which it took."""
    assert arithmetic.PINNED["ONEDNN_MAX_CPU_ISA"] == "AVX2"
    code = (
        "import torch\n"
        "m = torch.nn.LSTM(8, 8)\n"
        "with torch.no_grad():\n"
        "    m(torch.randn(4, 2, 8))\n"
    )
    base = {k: v for k, v in os.environ.items() if k not in arithmetic.PINNED}
    env = {**base, **arithmetic.env(), "ONEDNN_VERBOSE": "1"}
    env["ONEDNN_MAX_CPU_ISA"] = "SSE41"  # below AVX2: shows that the cap is read
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True
    )
    assert "isa:Intel SSE4.1" in out.stdout + out.stderr
