"""The order-to-chaos critical point and the timescale around it (rnnbook.mean_field.critical_point)."""

import numpy as np
import pytest

from rnnbook.mean_field import critical_point as cp
from rnnbook.mean_field import theory


def chi1(mu):
    return theory.minimal_chi1(theory.HP(6.88, 1.39, np.asarray(mu, float), 0.46))


def test_roots_of_chi1_are_where_it_crosses_one():
    roots = cp.chi1_roots(6.88, 1.39, 0.46, np.linspace(-4, 8, 13))
    assert len(roots) == 2
    assert abs(chi1(roots[0]) - 1) < 1e-9  # a root near mu_b = 0
    # near mu_b = 4.6 chi_1 jumps across 1: the fixed point of Eq. (24) changes branch
    below, above = chi1(roots[1] - 1e-6), chi1(roots[1] + 1e-6)
    assert below > 1 > above and below - above > 0.01
    v = cp.root_values(roots)
    assert abs(v["nearest"]) < 0.1 and v["farthest"] == pytest.approx(roots[1])
    none = cp.root_values(np.array([]))
    assert (
        none["roots"] == [] and np.isnan(none["nearest"]) and np.isnan(none["farthest"])
    )


def test_timescales_and_summary():
    mu = np.linspace(-4, 8, 13)
    curves = cp.timescales(theory.HP(6.88, 1.39, mu, 0.46))
    assert list(curves) == [1.0, 0.99, 0.0]
    cstar, tau = curves[1.0]
    assert np.all(cstar[mu < -1] > 0.9999)  # ordered: c* = 1
    s = cp.timescale_summary(mu, curves)
    assert s["grows"] == [True, True, True] and s["peak"][0] > 100 > 20 > s["peak"][2]
    assert "Roots of" in cp.describe([0.0136], curves, s["peak"])


def test_algorithm1_for_sigma_w_inverts_algorithm1():
    qs, sv = cp.algorithm1_for_sigma_w(6.88, 0.0, 0.46)
    a = theory.algorithm1(qs, 0.0, 0.46)
    assert float(np.sqrt(a.sigma_w2)) == pytest.approx(6.88)
    assert float(np.sqrt(a.sigma_v2)) == pytest.approx(sv)
