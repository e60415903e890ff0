"""The predictor scale of Fig. 2.2: path geometry, plateaus, and the flow at several scales."""

import numpy as np
import pytest

from rnnbook.infinite_width import predictor_scale as ps
from rnnbook.infinite_width.regression import gaussian_regression


def test_path_distance_and_profile_closed_form():
    """Two parallel segments at distance 0.3, and a path against itself."""
    t = np.linspace(0, 1, 50)[:, None]
    P = np.hstack([t, 0 * t])
    Q = np.hstack([t, 0 * t + 0.3])
    assert abs(ps.path_distance(P, Q, 1e-3) - 0.3) < 1e-9
    assert ps.path_distance(P, P[::7], 1e-3) < 1e-3
    frac, dev = ps.deviation_profile(P, Q, 1e-3)
    assert frac[0] == 0 and frac[-1] == 1 and np.allclose(dev, 0.3)


def test_plateau_fraction_of_exponential_decay():
    t = np.linspace(0, 20, 200001)
    r = np.exp(-t)
    assert abs(ps.plateau_fraction(t, r) - np.log(1 / 0.9) / np.log(1e4)) < 1e-4
    with pytest.raises(ValueError, match="never falls"):
        ps.plateau_fraction(t[:10], r[:10])


@pytest.fixture(scope="module")
def scaled():
    data = gaussian_regression(d=4, n=2, seed=5)
    return data, ps.flows(data, [0.1, 1.0, 30.0], 20, 5.0)


def test_paths_end_at_pinv_and_approach_the_linear_path(scaled):
    data, flows = scaled
    assert ps.speed(1.0) == 1.0 and ps.speed(30.0) == pytest.approx(1 / 30)
    lin_t, lin = ps.linear_reference(data)
    cmp = ps.compare_paths(flows, lin, data.min_norm())
    assert max(cmp.ends.values()) < 1e-6
    assert cmp.dist[30.0] < cmp.dist[1.0] < cmp.dist[0.1]
    v = cmp.values()
    assert v["small"] == [cmp.dist[0.1], cmp.dist[1.0]] and v["has_large"]
    assert v["lazy_steps"] == [] and v["last"] == cmp.dist[30.0] and v["missing"] == ""
    assert cmp.table().count("\n") == 4
    plat = ps.plateaus(flows, lin_t, data.risk(lin))
    assert (
        set(plat.frac) == {0.1, 1.0} and plat.frac[0.1] > plat.frac[1.0] > plat.linear
    )
    pv = plat.values()
    assert pv["small"] == [plat.frac[0.1]] and pv["steps"] == [
        [plat.frac[0.1], plat.frac[1.0]]
    ]


def test_gd_and_truncation_checks_are_small(scaled):
    data, flows = scaled
    K, dev = ps.gd_deviation(data, 0.2, 20)
    assert K == 200 and dev < 1e-2
    trunc = ps.truncation_deviation(data, flows, 20)
    assert set(trunc) == {0.1, 1.0} and max(trunc.values()) < 1e-4
