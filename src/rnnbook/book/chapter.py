"""The first cell of every chapter: resolve its parameters, set the figure style, open its ledger.

    P, ledger = start("lsc/lemma2_paths", SPEC, globals())

reads ``profile`` and the parameters named in ``SPEC`` from the papermill parameters cell (``None``
means the profile's preset), stops with a :class:`~rnnbook.book.params.ParameterError` naming a bad
one, shows the resolved values as one line, and opens the ledger of the chapter's declared claims.

A training chapter whose parameters cell has ``seed_start`` gets it (:func:`~.params.SeedStart`:
the first member's index, for a shard of a record) without naming it in ``SPEC``.

A chapter with a ``device`` parameter gets it resolved (``auto`` becomes ``cpu`` or ``cuda``) and
records what it ran on in the metadata of that line's output (:data:`DEVICE_KEY`), which
:func:`recorded_device` reads back from the executed notebook (the *Build status* page shows it).
"""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any, Mapping

from rnnbook import plotting

from . import scale_box
from .ledger import Ledger
from .params import Device, Param, SeedStart, describe, resolve

#: the output metadata key under which a chapter records its device
DEVICE_KEY = "rnnbook_device"


def start(
    chapter: str,
    spec: Mapping[str, Param],
    namespace: Mapping[str, Any],
    show: bool = True,
) -> tuple[SimpleNamespace, Ledger]:
    """Resolve the chapter's parameters from ``namespace`` and open its ledger.

    A chapter whose parameters cell has ``device`` gets the :func:`~.params.Device` parameter
    without naming it in ``SPEC``."""
    if "device" in namespace and "device" not in spec:
        spec = {**spec, "device": Device()}
    if "seed_start" in namespace and "seed_start" not in spec:
        spec = {**spec, "seed_start": SeedStart()}
    given = {name: namespace.get(name) for name in spec}
    P = resolve(spec, namespace.get("profile", "book"), **given)
    plotting.setup()
    ledger = Ledger(chapter, P.profile)
    if show:
        from IPython.display import Markdown, display

        meta = {}
        if "device" in spec:
            from rnnbook import device

            meta = {DEVICE_KEY: device.describe(P.device)}
        display(Markdown(describe(P)), metadata=meta)
        display(scale_box.html(chapter, spec, P))  # the scale and re-run box
    return P, ledger


def recorded_device(notebook: Path) -> dict | None:
    """What an executed chapter recorded it ran on (see :func:`start`): ``{"device", "name",
    "torch", "cuda"}``, or None for a chapter without a ``device`` parameter (or not run)."""
    try:
        nb = json.loads(Path(notebook).read_text())
    except (OSError, ValueError):
        return None
    for cell in nb.get("cells", []):
        for out in cell.get("outputs", []):
            meta = out.get("metadata", {})
            if DEVICE_KEY in meta:
                return meta[DEVICE_KEY]
    return None
