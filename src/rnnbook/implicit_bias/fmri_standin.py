"""The book's stand-in for the macaque S1 recording of Emami et al., Sec. 5.2 (see :mod:`rnnbook.implicit_bias.s1_macaque`
for the loader of the original): a real event-related fMRI recording shipped with the PyPI package
``nitime`` (``nitime/data/event_related_fmri.csv``).

The BOLD signal of motion-sensitive voxels near area MT was recorded every TR = 2 s for 3,360 volumes
(112 minutes) while a subject viewed motion stimuli of 6 kinds (directions and locations), each shown 96
times; the second column codes which kind of trial started at each volume (0 = none). The book predicts the
BOLD signal from the recent past of the 6 stimulus channels, as the paper predicts hand velocity from
the recent past of 52 neurons: a multichannel linear system with long memory (the haemodynamic response
lasts 15-20 s, 8-10 volumes), read through windows of T = 15 volumes, the length nitime's own example
uses for this file.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np

TR_SECONDS = 2.0


def data_file() -> Path:
    """Path of the csv inside the installed nitime package (nitime itself is not imported)."""
    spec = importlib.util.find_spec("nitime")
    if spec is None or not spec.submodule_search_locations:
        raise ModuleNotFoundError(
            "the stand-in data set needs the package nitime (see requirements.txt)"
        )
    return (
        Path(list(spec.submodule_search_locations)[0])
        / "data"
        / "event_related_fmri.csv"
    )


def load_event_related_fmri() -> tuple[np.ndarray, np.ndarray]:
    """(X, y): the stimulus onsets as one 0/1 channel per kind of trial, shape (3360, 6), and the BOLD
    signal, shape (3360, 1)."""
    data = np.genfromtxt(data_file(), delimiter=",", names=True)
    events = data["events"].astype(int)
    kinds = np.unique(events[events > 0])
    X = (events[:, None] == kinds[None, :]).astype(float)
    return X, data["bold"][:, None].astype(float)
