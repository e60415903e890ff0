"""The scale factors rho_j (Eq. 21) and the bound (22) against independent computations: the
recursion (48) iterated numerically, and Eq. (22) evaluated directly."""

import numpy as np
import pytest
import sympy as sp

from rnnbook.implicit_bias import scale_factors as sf


def test_derived_rho_equals_eq21_symbolically():
    d = sf.derive_rho()
    assert d.matches_paper
    assert (
        sp.simplify(d.tau_2 - (sf.j * sf.nu_F * sf.nu_W ** (sf.j - 1) + sf.nu_W**sf.j))
        == 0
    )


@pytest.mark.parametrize(
    "nW,nF,nC", [(0.3, 1.0, 1.0), (0.8, 0.5, 2.0), (1.4, 2.0, 0.3)]
)
def test_rho_against_iterated_recursion(nW, nF, nC):
    T = 12
    t1, t2, it = nF, 1.0, []
    for _ in range(T):  # iterate Eq. (48) numerically, independent of rsolve
        it.append(nC * t2 + t1)
        t1, t2 = nW * t1, nW * t2 + t1
    np.testing.assert_allclose(sf.rho(T, nW, nF, nC), it, rtol=1e-12)


def test_bound22_region_matches_direct_evaluation():
    thr = sp.lambdify((sf.nu_F, sf.nu_C), sf.derive_bound22().nu_W_threshold)
    rng = np.random.default_rng(1)
    for _ in range(300):
        nF, nC = rng.uniform(0.1, 3, 2)
        T = int(rng.integers(2, 30))
        nW = rng.uniform(0.05, 2.5)
        assert sf.bound22_holds(T, nW, nF, nC) == (nW <= thr(nF, nC))
    assert sf.bound22_holds(20, 0.99, 1, 1)


def test_rho_needs_a_positive_length():
    with pytest.raises(ValueError, match="T ="):
        sf.rho(0, 0.3, 1, 1)


def test_rho_max_is_eq22():
    assert sf.rho_max(10, 0.5, 2.0) == pytest.approx(2.0 * (10 * 0.5 + 1) + 0.5)


def test_random_check_of_the_region_and_its_summary():
    r = sf.check_bound22_region(40, seed=3)
    assert r["agree"] == r["total"] == 40 and r["holds_below_1"]
    assert r["threshold"] == str(sf.derive_bound22().nu_W_threshold)
    s = sf.derive_rho().summary()
    assert s["matches"] and s["difference"] == "0"
    assert s["derived"] == str(sf.derive_rho().rho)


def test_latex_of_the_derivation_steps():
    steps = sf.derive_rho().latex()
    assert set(steps) == {"recursions", "solutions", "rho", "difference"}
    assert steps["difference"].endswith(" 0") and r"\rho_j" in steps["rho"]
    b = sf.derive_bound22().latex()
    assert r"\iff \nu_W \le" in b["threshold"] and sp.latex(sf.nu_C) in b["slack"]
