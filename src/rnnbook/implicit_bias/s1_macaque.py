"""Loader of the *original* data set of Emami et al., Sec. 5.2 / Table 1: spike trains of 52 neurons in the
macaque primary somatosensory cortex (S1) during a two-dimensional reaching task, 51 minutes
(Benjamin et al., 2018; the Miller lab recording redistributed with Glaser et al.'s *Neural_Decoding* code
as ``s1_data_raw.mat``, with the variables ``spike_times``, ``vels`` and ``vel_times``).

The file is not shipped by any package, and the book never downloads anything, so the book's chapter uses
the stand-in of :mod:`rnnbook.implicit_bias.fmri_standin`. A reader who has the file can run the same experiment on it:

    rates, vel, dt = load_s1("s1_data_raw.mat")        # (bins, 52) spike counts, (bins, 2) velocity
    X, Y = rates, vel                                  # predict velocity from recent neural activity

and hand ``X, Y`` to :func:`rnnbook.implicit_bias.decoding.run_table1` instead of the stand-in's arrays.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np


def bin_spikes(spike_times: list[np.ndarray], edges: np.ndarray) -> np.ndarray:
    """Spike counts of each neuron in the bins ``[edges[k], edges[k+1])``; shape (bins, neurons)."""
    return np.stack(
        [np.histogram(np.asarray(st, float).ravel(), edges)[0] for st in spike_times], 1
    ).astype(float)


def load_s1(path: str | Path, dt: float = 0.05) -> tuple[np.ndarray, np.ndarray, float]:
    """Read ``s1_data_raw.mat`` and bin it at ``dt`` seconds (50 ms, as the decoding literature does).

    Returns (spike counts per bin and neuron, mean hand velocity per bin (x, y), dt). Raises
    ``FileNotFoundError`` with a pointer to this module's documentation when the file is absent.
    """
    from scipy import io

    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(
            f"{path}: the macaque S1 recording is not available offline; "
            "see rnnbook.implicit_bias.s1_macaque's documentation for where it comes from"
        )
    data = io.loadmat(str(path))
    spike_times = [np.asarray(s).ravel() for s in np.squeeze(data["spike_times"])]
    vels = np.asarray(data["vels"], float)
    vel_times = np.asarray(data["vel_times"], float).ravel()
    edges = np.arange(vel_times[0], vel_times[-1] + dt, dt)
    counts = bin_spikes(spike_times, edges)
    which = np.clip(np.digitize(vel_times, edges) - 1, 0, len(edges) - 2)
    vel = np.zeros((len(edges) - 1, vels.shape[1]))
    np.add.at(vel, which, vels)
    hits = np.bincount(which, minlength=len(edges) - 1)[:, None]
    vel = np.divide(vel, hits, out=np.full_like(vel, np.nan), where=hits > 0)
    keep = ~np.isnan(vel).any(1)
    return counts[keep], vel[keep], dt
