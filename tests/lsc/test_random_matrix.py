"""Lemma 1 (random_matrix) against scipy's distributions, exact special cases and Monte Carlo."""

import math

import numpy as np
import pytest
import torch
from scipy import integrate, stats

from rnnbook.lsc import random_matrix as rm


@pytest.mark.parametrize("k", [1, 2, 5, 30, 200])
def test_chi_and_kostlan_formulas(k):
    assert rm.chi_mean(k) == pytest.approx(stats.chi(k).mean(), rel=1e-10)
    assert rm.chi_var(k) == pytest.approx(stats.chi(k).var(), rel=1e-6)
    # E sqrt(Gamma(k, 1)) by quadrature
    m = integrate.quad(
        lambda x: math.sqrt(x) * stats.gamma(k).pdf(x),
        0,
        k + 30 * math.sqrt(k) + 30,
        points=[k],
        limit=200,
    )[0]
    assert rm.kostlan_mean(k) == pytest.approx(m, rel=1e-7)


def test_variance_limits_with_numbers():
    v_chi, v_kos = rm.variance_limits()
    assert v_chi.limit == pytest.approx(0.5) and v_kos.limit == pytest.approx(0.25)
    assert rm.chi_var(1e5) == pytest.approx(0.5, abs=1e-4)
    assert rm.kostlan_var(1e5) == pytest.approx(0.25, abs=1e-4)


def test_ginibre_radius_exact_cases_and_monte_carlo():
    # n = 1: |z| with E|z|^2 = 1 is Rayleigh(1/sqrt 2): mean sqrt(pi)/2, variance 1 - pi/4
    m1, v1 = rm.ginibre_radius_moments(1)
    assert m1 == pytest.approx(
        math.sqrt(math.pi) / 2, rel=1e-8
    ) and v1 == pytest.approx(1 - math.pi / 4, rel=1e-6)
    g = torch.Generator().manual_seed(0)
    lam = rm.eigen_moduli(20000, 3, "complex", g)
    s = rm.summarize(lam.amax(-1), 3, "complex")
    m3, v3 = rm.ginibre_radius_moments(3)
    assert abs(s.z(m3)) < 4
    assert abs(s.var - v3) < 4 * s.se_var
    # Kostlan's mean modulus, not the chi_k one
    s_mod = rm.summarize(lam.mean(-1), 3, "complex")
    assert abs(s_mod.z(rm.mean_modulus(3, "kostlan"))) < 4
    assert abs(s_mod.z(rm.mean_modulus(3, "chi"))) > 10


@pytest.mark.parametrize("entries", rm.ENTRIES)
def test_entries_have_mean_zero_unit_second_moment(entries):
    M = rm.sample_matrices(200, 10, entries, torch.Generator().manual_seed(1))
    assert abs(float(M.mean().abs())) < 0.02
    assert float((M.abs() ** 2).mean()) == pytest.approx(1.0, abs=0.02)
    with pytest.raises(ValueError, match="entries"):
        rm.sample_matrices(1, 2, "cauchy", torch.Generator())


def test_summarize_and_bonferroni():
    x = torch.tensor([1.0, 2.0, 3.0, 4.0], dtype=torch.float64)
    s = rm.summarize(x, 1, "t")
    assert s.mean == 2.5 and s.var == pytest.approx(np.var([1, 2, 3, 4], ddof=1))
    assert s.se_mean == pytest.approx(np.std([1, 2, 3, 4], ddof=1) / 2)
    assert rm.bonferroni_z(0.05, 1) == pytest.approx(1.959964, rel=1e-5)
    assert rm.bonferroni_z(0.01, 10) > rm.bonferroni_z(0.01, 1)
