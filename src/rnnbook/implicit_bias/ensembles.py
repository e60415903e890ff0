"""Seeds, checkpoints and intervals of the batched training ensembles of Sec. 5 of Emami et al.

Every training experiment of this room trains a whole ensemble (seeds x arms x data sets) as one batch
of stacked weights (:mod:`~rnnbook.implicit_bias.gd_training`). This module holds what the experiments
share around that batch:

- :func:`child_seeds`: the seeds of one random stream (teachers, students, ...) derived from the
  chapter's master ``seed``, so that ``seed = 1`` gives draws that share nothing with ``seed = 0``;
- :func:`checkpoints`: the training steps at which a statistic is followed (log-spaced);
- :func:`interval_fields`: the mean over seeds and its 95% Student-t interval
  (:func:`rnnbook.stats.seed_interval`) under the names a declared verdict rule reads;
- :func:`side`: where an interval lies with respect to a decision threshold.
"""

from __future__ import annotations

import zlib

import numpy as np

from rnnbook.stats import seed_interval


def child_seeds(seed: int, k: int, stream: str, start: int = 0) -> list[int]:
    """``k`` seeds (32-bit integers) of the random stream named ``stream``, derived from the master
    ``seed`` by :class:`numpy.random.SeedSequence`; different streams or masters do not overlap.
    ``start``: the stream's seeds ``start .. start + k - 1`` (a shard of a record's members)."""
    if not isinstance(seed, int) or seed < 0:
        raise ValueError(f"seed = {seed!r}: must be a non-negative integer")
    if not isinstance(k, int) or k < 1:
        raise ValueError(f"k = {k!r}: must be a positive integer")
    if not isinstance(start, int) or start < 0:
        raise ValueError(f"start = {start!r}: must be a non-negative integer")
    ss = np.random.SeedSequence([seed, zlib.crc32(stream.encode())])
    return [int(x) for x in ss.generate_state(start + k, dtype=np.uint32)[start:]]


def checkpoints(steps: int, k: int = 8) -> list[int]:
    """About ``k`` distinct steps, log-spaced from 1 to ``steps`` (both included)."""
    if steps < 1 or k < 2:
        raise ValueError(f"checkpoints: need steps >= 1 and k >= 2, got {steps}, {k}")
    pts = np.unique(np.round(np.geomspace(1, steps, k)).astype(int))
    return [int(p) for p in pts]


def interval_fields(name: str, samples, scale=None) -> dict:
    """``{name: mean, name_lo: lower, name_hi: upper}`` of the 95% interval over the seeds in
    ``samples`` (1-D). ``scale`` (e.g. ``np.exp``) maps the three numbers, e.g. from a log ratio
    to a factor. ``name_seeds`` holds the samples themselves (before ``scale``), from which the
    claim engine computes the interval that decides."""
    x = np.asarray(samples, dtype=float)
    iv = seed_interval(x)
    f = (lambda v: v) if scale is None else scale
    return {
        name: float(f(iv.mean)),
        f"{name}_lo": float(f(iv.lo)),
        f"{name}_hi": float(f(iv.hi)),
        f"{name}_seeds": [float(v) for v in x.ravel()],
    }


def side(lo: float, hi: float, threshold: float) -> str:
    """``"above"`` when the interval [lo, hi] lies above ``threshold``, ``"below"`` when below it,
    ``"straddles"`` otherwise (the run cannot decide)."""
    if lo > threshold:
        return "above"
    if hi < threshold:
        return "below"
    return "straddles"


def curve_intervals(samples) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Mean and 95% interval over seeds (last axis) of a statistic followed along training:
    ``samples`` has shape (checkpoints, ..., seeds); returns three arrays without the seed axis."""
    return seed_interval(np.asarray(samples, dtype=float), axis=-1)
