"""Spectra of products of sampled Jacobians (rnnbook.mean_field.jacobian_spectrum) against free
probability, and the studies of Eq. (12) and of gradient norms built on them."""

import numpy as np
import pytest

from rnnbook.mean_field import jacobian_spectrum as js
from rnnbook.mean_field import theory


def test_products_of_gaussian_matrices_have_the_fuss_catalan_variance():
    """Near-linear vanilla RNN (q* -> 0, sigma_w = 1): J = W_T ... W_1, whose JJ^T has m1 = 1,
    variance T."""
    hp = theory.HP(1.0, 0.0, 0.0, 1.0)
    r = js.jacobian_moments("vanilla", hp, N=200, T=4, K=3, seed=5, burn_in=2)
    np.testing.assert_allclose(r.m1.mean(0), 1.0, atol=0.08)
    np.testing.assert_allclose(r.variance.mean(0), np.arange(1, 5), rtol=0.15)
    ro = js.jacobian_moments(
        "vanilla", hp, N=100, T=3, K=2, seed=6, orthogonal=True, burn_in=2
    )
    assert np.all(ro.variance < 1e-6)  # orthogonal products: every singular value is 1


def test_one_step_spectrum_of_the_minimal_jacobian():
    ci = theory.algorithm1(4.0, 4.0, 0.46)
    r = js.jacobian_moments("minimal", ci.hp(), N=400, T=1, K=6, seed=7)
    chi1, var1 = theory.minimal_one_step_moments(ci.hp(), s1=-1.0)
    assert abs(r.m1.mean() - chi1) < 0.05
    se = r.variance.std(ddof=1) / np.sqrt(6)
    assert abs(r.variance.mean() - var1) < 3 * se + 0.2 * var1


def test_within():
    assert js.within(1.1, 0.0, 1.0) and not js.within(1.3, 0.0, 1.0)
    assert js.within(1.3, 0.06, 1.0)  # 2 SE + 20%


def test_minimal_study_summaries_and_claim_values():
    study = js.minimal_study([(4.0, 4.0), (4.0, 6.0)], 0.46, N=48, T=3, K=2, seed=0)
    assert set(study.ensembles) == {
        (4.0, m, w) for m in (4.0, 6.0) for w in ("Gaussian", "orthogonal")
    }
    e = study.ensembles[(4.0, 4.0, "Gaussian")]
    np.testing.assert_allclose(e.summary["var_T"][0], e.mean[-1])
    eq12 = theory.minimal_spectrum_variance_printed(1, e.hp, -1.0)
    np.testing.assert_allclose(e.summary["printed_m2_T1"], eq12)
    chi1 = theory.minimal_chi1(e.hp)
    np.testing.assert_allclose(e.summary["printed_T1"], eq12 - chi1**2)
    np.testing.assert_allclose(e.summary["m2_T1"][0], e.moments.m2.mean(0)[0])
    v = study.variance_values()
    assert len(v["m2_rows"]) == len(v["var_rows"]) == 2 * len(study.ensembles)
    assert v["m2_rows"][0][0] - v["var_rows"][0][0] > 0  # m2 = var + m1^2
    assert set(v["gauss_minus_orth"]) == {"mu_b=4", "mu_b=6"}
    iso = study.isometry_values()
    assert iso["mu_b"] == [4.0, 6.0] and len(iso["s1_rows"]) == 2
    assert "| 6 | 4 | orthogonal |" in study.table()


def test_minimal_study_refuses_an_infeasible_setting():
    with pytest.raises(ValueError, match="critical"):
        js.minimal_study([(0.5, 0.0)], 0.46, N=16, T=2, K=2, seed=0)


def test_vanilla_study_and_values():
    sw2, sv2 = theory.vanilla_critical(0.5, 1.0)
    hp = theory.HP(np.sqrt(sw2), np.sqrt(sv2), 0.0, 1.0)
    study = js.vanilla_study(hp, N=32, T=3, K=2, seed=1)
    values = js.vanilla_values(study, 3)
    assert len(values["rows"]) == 4
    assert set(values["shown"]["Gaussian"]) == {
        "var_T1",
        "pred_T1",
        "var_T3",
        "pred_T3",
    }
    assert study["orthogonal"].s1 == 0.0 and study["Gaussian"].s1 == -1.0


def test_gradient_study():
    inits = {
        "critical": theory.algorithm1(4.0, 4.0, 0.46).hp(),
        "off, 0": theory.HP(1.0, 1.0, 0.0, 0.46),
        "off, 4": theory.HP(1.0, 1.0, 4.0, 0.46),
    }
    g = js.gradient_study(inits, N=32, T=12, K=2, seed=3, burn_in=5)
    v = g.values()
    assert v["N"] == 32 and v["N_half"] == 16 and v["chi1"][0] == pytest.approx(1.0)
    assert v["off0_end"] < 1e-3 < v["untied_range"][0]  # chi_1 = 0.31 vs chi_1 = 1
    m1 = 0.9 ** np.arange(1, 8)
    assert g.rate(m1) == pytest.approx(0.9)


def test_one_step_terms_monte_carlo_match_the_derived_terms():
    """The W-free terms sampled at the fixed point agree with the derived ones, and the printed
    cross and quartic terms are far off (mu_b = 2, q* = 8: 0.47 and 0.20 against 0.26 and 1.07)."""
    hp = theory.algorithm1(8.0, 2.0, 0.46).hp()
    mc = js.one_step_terms_mc(hp, N=4096, K=6, seed=11)
    paper, derived = theory.minimal_one_step_terms(hp, -1.0)
    for k, (m, se) in mc.items():
        assert abs(m - derived[k]) <= 3 * se + 0.05 * abs(derived[k]), k
    for k in ("cross", "quartic"):
        assert abs(mc[k][0] - paper[k]) > 10 * mc[k][1] + 0.3 * abs(paper[k]), k


def test_gaussian_minus_orthogonal_one_step_variance_is_mu2_squared():
    """Same diagonals, W Gaussian or orthogonal: the one-step variances differ by mu_2^2 (0.14 at
    mu_b = 2, q* = 8), not by the 2 mu_2 (0.75) of Eq. (12)."""
    hp = theory.algorithm1(8.0, 2.0, 0.46).hp()
    diff, se = js.one_step_terms_mc(hp, N=2048, K=6, seed=3, n_mat=400)["s_1"]
    paper, derived = theory.minimal_one_step_terms(hp, -1.0)
    assert abs(diff - derived["s_1"]) < 3 * se + 0.2 * derived["s_1"]
    assert abs(diff - paper["s_1"]) > 3 * se + 0.3


def test_one_step_values_rows():
    study = js.minimal_study([(4.0, 4.0)], 0.46, N=48, T=2, K=2, seed=0)
    mc = {
        (4.0, 4.0): js.one_step_terms_mc(
            study.ensembles[(4.0, 4.0, "Gaussian")].hp, 256, 3, 1
        )
    }
    v = js.one_step_values(study, mc, ["cross"])
    assert len(v["rows"]) == 5 + 2 and all(len(r) == 5 for r in v["rows"])
    assert v["wrong"] == ["cross"] and v["derived_within"].endswith("/7")
    _, derived = theory.minimal_one_step_terms(
        study.ensembles[(4.0, 4.0, "Gaussian")].hp, -1.0
    )
    assert v["rows"][4][2] == derived["s_1"]
