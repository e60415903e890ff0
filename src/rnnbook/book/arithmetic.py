"""The arithmetic a chapter runs under: the same CPU code paths on every machine.

MKL (torch's matrix products), OpenBLAS (numpy's and scipy's) and the libraries' own
vector kernels pick their instructions by the processor they find (AVX-512 on one machine,
AVX2 on another), and each path rounds its sums in another order. Training turns such
last-bit differences into other accuracies: the same chapter at the same master seed gave
other numbers on two machines of this project, and ``lsc.fig3.alif-deeper`` another verdict.
Each chapter's kernel therefore runs on fixed paths (:data:`PINNED`): MKL's conditional
numerical reproducibility on its AVX2 branch, torch's AVX2 kernels, oneDNN's AVX2 kernels
(torch's LSTM and convolutions on the CPU; from 2026-12-01, free before), OpenBLAS's Haswell
(AVX2) kernels and numpy without its AVX-512 loops, on one thread
(:func:`rnnbook.book.pipeline.chapter_threads`): the numbers should be those of every
Intel processor with AVX2, under MKL's documented conditions (a fixed thread count;
aligned arrays are recommended); this was checked on one machine, run as one without
AVX-512. MKL's SSE2 branch, ``COMPATIBLE``, would hold on AMD as well, at three to four
times the time of a matrix product; on AMD, MKL takes its own path. A variable the
environment already sets is kept (``MKL_CBWR=AUTO`` gives MKL's fastest paths back), and
:func:`stamp` says which ran: it is part of each chapter's cache key and of every record's
provenance.
"""

from __future__ import annotations

import os
import platform
from pathlib import Path

PINNED = {
    "MKL_CBWR": "AVX2",
    "ATEN_CPU_CAPABILITY": "avx2",
    "ONEDNN_MAX_CPU_ISA": "AVX2",  # torch 2.13's oneDNN honours it (and DNNL_MAX_CPU_ISA)
    "OPENBLAS_CORETYPE": "Haswell",
    "NPY_DISABLE_CPU_FEATURES": "X86_V4 AVX512_ICL AVX512_SPR",
}


#: pinned since 2026-12-01: a record's stamp without them ran with them free
SINCE_2026_12_01 = ("ONEDNN_MAX_CPU_ISA",)


def env() -> dict[str, str]:
    """The variables a chapter's kernel gets: :data:`PINNED`, or what the environment
    already sets for each."""
    return {k: os.environ.get(k, v) for k, v in PINNED.items()}


def stamp() -> str:
    """The arithmetic in one line (``MKL_CBWR=AVX2, ..., threads 1``): the code
    paths and the threads of a chapter (another thread count sums in another order)."""
    threads = os.environ.get("RNNBOOK_THREADS", "1")
    return (
        ", ".join(f"{k}={v}" for k, v in sorted(env().items())) + f", threads {threads}"
    )


def cpu_model() -> str:
    """The processor's name (``/proc/cpuinfo``), else what ``platform`` knows."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def in_words(kept: str) -> str:
    """A stamp (:func:`stamp`) as a reader's phrase: the fixed paths named, or the
    settings as they were where a run set its own."""
    fixed = ", ".join(f"{k}={v}" for k, v in sorted(PINNED.items()))
    before = {k: v for k, v in PINNED.items() if k not in SINCE_2026_12_01}
    older = ", ".join(f"{k}={v}" for k, v in sorted(before.items()))
    threads = kept.rsplit(" ", 1)[-1]
    if kept.startswith(fixed + ", threads "):
        kernels = "torch's, oneDNN's and OpenBLAS's AVX2 kernels"
    elif kept.startswith(older + ", threads "):
        kernels = "torch's and OpenBLAS's AVX2 kernels, oneDNN's left free"
    else:
        return f"its own settings ({kept})"
    return (
        f"the book's fixed code paths (MKL's AVX2 branch, {kernels}, numpy without "
        f"AVX-512) on {threads} thread" + ("" if threads == "1" else "s")
    )
