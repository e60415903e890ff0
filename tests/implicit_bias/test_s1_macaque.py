"""The loader of the original macaque S1 recording, on a synthetic file."""

import numpy as np
import pytest

from rnnbook.implicit_bias import s1_macaque


def test_s1_loader_on_a_synthetic_file(tmp_path):
    from scipy import io

    rng = np.random.default_rng(0)
    spikes = np.empty((3, 1), dtype=object)
    for k in range(3):
        spikes[k, 0] = np.sort(rng.uniform(0, 10, 50 + 10 * k))[:, None]
    vel_times = np.arange(0, 10, 0.01)[:, None]
    vels = np.stack([np.sin(vel_times[:, 0]), np.cos(vel_times[:, 0])], 1)
    io.savemat(
        tmp_path / "s1.mat",
        {"spike_times": spikes, "vels": vels, "vel_times": vel_times},
    )
    counts, vel, dt = s1_macaque.load_s1(tmp_path / "s1.mat", dt=0.5)
    edges = np.arange(0, 10 + 0.5, 0.5)
    for k in range(3):
        np.testing.assert_array_equal(
            counts[:, k], np.histogram(spikes[k, 0].ravel(), edges)[0]
        )
    np.testing.assert_allclose(vel[0], vels[:50].mean(0))
    with pytest.raises(FileNotFoundError, match="not available offline"):
        s1_macaque.load_s1(tmp_path / "missing.mat")
