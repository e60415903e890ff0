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


def test_ginibre_monte_carlo_converges_to_kostlans_exact_mean():
    """Kostlan's exact E rho of a complex Ginibre matrix against Monte Carlo with growing
    samples: every estimate lies within 4 standard errors, and the error bound shrinks as
    1/sqrt(samples)."""
    exact = rm.ginibre_radius_moments(8)[0]
    g = torch.Generator().manual_seed(0)
    bounds = []
    for S in (100, 1000, 10_000):
        m = rm.summarize(rm.eigen_moduli(S, 8, "complex", g).amax(-1), 8, "complex")
        assert abs(m.mean - exact) <= 4 * m.se_mean
        bounds.append(4 * m.se_mean)
    assert bounds[0] > 2.5 * bounds[1] > 6 * bounds[2] and bounds[2] < 0.02


def test_samples_and_entries():
    assert rm.samples_for(32, 400, 20) == 400 and rm.samples_for(256, 400, 20) == 20
    assert rm.samples_for(1, 10**6, 5) == 20000
    assert rm.is_entries("complex") and not rm.is_entries("cauchy")


def test_radius_study_claim_inputs_and_tables():
    g = torch.Generator().manual_seed(0)
    study = rm.radius_study([2, 4, 8, 16], list(rm.ENTRIES), 20, 20, g)
    assert study.samples == {2: 1280, 4: 453, 8: 160, 16: 57}
    v = study.radius_mean()
    assert v["tests"] == 12 and v["rejected"] >= 10 and v["excess_min"] > 0
    assert v["kostlan_sizes"] == 4 and v["kostlan_rejected"] == 0
    assert v["zc"] == pytest.approx(rm.bonferroni_z(0.01, 12))
    k = study.kostlan_check()
    assert k["sizes"] == 4 and k["chi_rej"] >= 2 and k["kos_rej"] == 0
    var = study.variance_check()
    assert (var["chi_limit"], var["kostlan_limit"]) == ("1/2", "1/4")
    assert (
        var["trend"].startswith("gaussian") and "exact complex Ginibre" in var["trend"]
    )
    assert isinstance(var["decreasing"], bool)
    gl = study.glorot()
    assert set(gl) == {"gaussian", "uniform"}
    assert gl["gaussian"][16][0] == pytest.approx(study.mc["gaussian", 16].mean / 4)
    assert study.table().count("\n") == 1 + 4 and "Kostlan" in study.table()
    assert study.modulus_table().count("\n") == 1 + 4
    assert set(study.modulus_z()) == {
        (e, n, law)
        for e in rm.ENTRIES
        for n in (2, 4, 8, 16)
        for law in ("chi", "kostlan")
    }


def test_variance_limits_render():
    v_chi, _ = rm.variance_limits()
    assert (
        r"\log\Gamma" in v_chi.series_latex() and r"\lim_{k\to\infty}" in v_chi.latex()
    )
