"""The device an experiment runs on (ARCHITECTURE.md, *Profiles*), shared by the rooms.

Every chapter that trains or draws at random has a ``device`` parameter: ``auto`` (CUDA when
available, else the CPU), ``cpu`` or ``cuda``; :func:`resolve` turns it into ``"cpu"`` or
``"cuda"``, once, when the chapter starts. A profile fixes what is computed; the device only
changes how fast:

- **Draws do not depend on the device.** Every random draw (initial weights, Monte Carlo
  samples, minibatch indices) is made on a CPU ``torch.Generator`` seeded from the chapter's
  parameters (:func:`generator`) and the result is moved to the device (:func:`randn`,
  :func:`to`), so a CPU and a GPU run see the same numbers and differ only by float rounding.
  The one exception is dropout inside a trainer, whose masks come from the device's own
  generator (seeded from the same seeds): on CUDA its stream differs from the CPU's.
- **CUDA graphs** (:func:`graphs_enabled`): the ensemble trainers can capture their training
  step as a CUDA graph, which removes the per-kernel launch cost that dominates small networks
  on a GPU. It is used only on CUDA and only with static shapes; it is on by default there
  (``RNNBOOK_CUDA_GRAPHS=0`` or the trainer's own flag turns it off).
"""

from __future__ import annotations

import os
from typing import Any

import torch

#: the values a chapter's ``device`` parameter accepts
DEVICES = ("auto", "cpu", "cuda")


def cuda_available() -> bool:
    """Whether torch sees a CUDA device."""
    return torch.cuda.is_available()


def resolve(name: str) -> str:
    """``"cpu"`` or ``"cuda"`` for a ``device`` parameter; ``auto`` picks CUDA when available.

    Raises ValueError naming the parameter on an unknown value, or on ``cuda`` where torch
    sees no CUDA device (this torch build's CUDA version is in the message)."""
    if name == "auto":
        return "cuda" if cuda_available() else "cpu"
    if name == "cpu":
        return "cpu"
    if name == "cuda":
        if not cuda_available():
            raise ValueError(
                "parameter 'device' = 'cuda': torch sees no CUDA device on this machine "
                f"(torch {torch.__version__}, built with CUDA {torch.version.cuda}); "
                "use 'auto' or 'cpu'"
            )
        return "cuda"
    raise ValueError(
        f"parameter 'device' = {name!r}: must be one of {', '.join(map(repr, DEVICES))}"
    )


def generator(seed: int) -> torch.Generator:
    """A CPU generator seeded ``seed``: every draw of the book is made on one of these."""
    return torch.Generator(device="cpu").manual_seed(int(seed))


def randn(*shape: int, generator: torch.Generator, device: Any = "cpu", **kw) -> Any:
    """Standard normal numbers drawn on the CPU ``generator`` and moved to ``device``: the
    same numbers on every device."""
    return torch.randn(*shape, generator=generator, device="cpu", **kw).to(device)


def to(x: Any, device: Any) -> Any:
    """``x`` (a tensor, or a list, tuple or dict of them) on ``device``; anything else as is."""
    if isinstance(x, torch.Tensor):
        return x.to(device)
    if isinstance(x, (list, tuple)):
        return type(x)(to(v, device) for v in x)
    if isinstance(x, dict):
        return {k: to(v, device) for k, v in x.items()}
    return x


def is_cuda(device: Any) -> bool:
    return torch.device(device).type == "cuda"


def graphs_enabled(device: Any, flag: bool | None = None) -> bool:
    """Whether a trainer captures its step as a CUDA graph: only on CUDA, and there when
    ``flag`` is True, or when it is ``None`` and ``RNNBOOK_CUDA_GRAPHS`` is not ``0`` (on by
    default: on an H200 it ran the smoke book with the CPU's verdicts, 7x faster at 9 networks)."""
    if flag is None:
        flag = os.environ.get("RNNBOOK_CUDA_GRAPHS", "1") != "0"
    return bool(flag) and is_cuda(device)


def describe(device: Any) -> dict:
    """What a chapter ran on, for its record: the resolved device, the accelerator's name,
    torch's and CUDA's versions."""
    dev = torch.device(device)
    name = "CPU"
    if dev.type == "cuda":
        name = torch.cuda.get_device_name(dev)
    return {
        "device": dev.type,
        "name": name,
        "torch": torch.__version__,
        "cuda": torch.version.cuda,
    }


def synchronize(device: Any) -> None:
    """Wait for the device's queued kernels (for timings); a no-op on the CPU."""
    if is_cuda(device):
        torch.cuda.synchronize(device)
