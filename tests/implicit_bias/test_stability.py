"""Sec. 2: the spectral radius of W / sqrt(n) converges to sqrt(nu_W) (circular law), not nu_W."""

import numpy as np
import pytest

from rnnbook.implicit_bias import stability


def test_spectral_radius_of_a_known_matrix_and_the_circular_law():
    assert stability.scaled_spectral_radius(
        np.diag([3.0, -4.0, 1.0, 0.0])
    ) == pytest.approx(2.0)
    r = stability.spectral_radii([200], [0.3], seeds=2, seed=0)
    assert abs(r.mean() / np.sqrt(0.3) - 1) < 0.1 and r.mean() / 0.3 > 1.5


def test_spectral_radius_approaches_sqrt_nu_W_as_n_grows():
    """The analytic limit sqrt(nu_W) against the radius of random matrices: the mean distance over
    draws shrinks as n grows, and the paper's nu_W stays far away."""
    radii = stability.spectral_radii([16, 256], [0.3], seeds=8, seed=0)[0]
    dist = np.abs(radii - np.sqrt(0.3)).mean(1)
    assert dist[1] < dist[0] / 1.5 and dist[1] < 0.05
    assert np.all(np.abs(radii[1] - 0.3) > 0.2)


def test_limit_and_stability_summaries():
    nus = [0.1, 0.3, 1.25]
    radii = np.sqrt(np.array(nus))[:, None, None] * np.ones(
        (3, 2, 2)
    )  # the circular law
    s = stability.limit_summary(radii, nus, [10, 20])
    assert (
        s["n"] == 20 and s["max_rel_dist_sqrt"] == 0 and s["sqrt_limit"] == "confirmed"
    )
    assert s["paper_refuted"] and not s["limit_is_paper"]
    paper = np.array(nus)[:, None, None] * np.ones((3, 2, 2))  # the paper's limit
    s = stability.limit_summary(paper, nus, [10, 20])
    assert s["limit_is_paper"] and not s["paper_refuted"]
    f = stability.stable_fractions(radii, nus, [10, 20])
    assert f["fraction_stable"] == {"0.1": 1.0, "0.3": 1.0, "1.25": 0.0}
    assert (
        f["stable_by_nu"] == [[0.1, 1.0], [0.3, 1.0], [1.25, 0.0]] and f["draws"] == 2
    )
