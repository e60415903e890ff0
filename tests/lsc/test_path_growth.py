"""Fig. 1b, Lemma 2's limits and Theorem 4 (path_growth) against exact integers and plain arithmetic."""

import math
from fractions import Fraction
from math import comb

import numpy as np
import pytest
import sympy as sp

from rnnbook.lsc import gradient_paths as gp
from rnnbook.lsc import path_growth as pg


def test_counts_are_exact_integers():
    P = gp.grid_paths_dp(12, 9)
    for a in range(13):
        for b in range(10):
            assert pg.grid_paths(a, b) == P[a, b]
    # no float overflow far beyond 1e308
    assert pg.log_grid_paths(100_000, 1000) / math.log(10) > 1000
    assert pg.lemma2_quantity(7, 3) == pytest.approx(math.log(Fraction(comb(12, 7), 7)))


def test_ratio_laws_match_numbers():
    laws = pg.sub_exponential_laws()
    paths_T = laws["paths, (i) T grows"]
    for T_, d in [(3, 2), (10, 5), (40, 7)]:
        num = Fraction(comb(T_ + 1 + d, T_ + 1), comb(T_ + d, T_))
        assert paths_T.ratio.subs({pg.T: T_, pg.dl: d}) == sp.Rational(
            num.numerator, num.denominator
        )
    # the degree: n (f(n+1)/f(n) - 1) -> degree, checked with exact integers at large n
    T_, d = 10**6, 5
    r = comb(T_ + 1 + d, T_ + 1) / comb(T_ + d, T_)
    assert T_ * (r - 1) == pytest.approx(float(paths_T.degree.subs(pg.dl, d)), rel=1e-4)
    lem = laws["Lemma 2, (ii) Delta l grows"]
    assert lem.ratio_limit == 1 and lem.degree == pg.T


def test_exponential_rate_matches_exact_counts():
    rate, rate_T = pg.exponential_rate()
    for k in (1, 3, 100):
        m = 20_000 // k
        exact = (
            math.log(comb((k + 1) * (2 * m) + 2, k * 2 * m))
            - math.log(comb((k + 1) * m + 2, k * m))
        ) / m
        assert exact == pytest.approx(float(rate.subs(pg.kk, k)), rel=1e-3)
        assert float(rate_T.subs(pg.kk, k)) == pytest.approx(
            float(rate.subs(pg.kk, k)) / k
        )


def test_far_slopes_are_close_to_asymptotes():
    far = pg.far_slopes(5, 5, 100)
    assert far["(i) paths"] == pytest.approx(5, rel=1e-3)
    assert far["(i) lemma2"] == pytest.approx(6, rel=1e-3)
    assert far["(ii) paths"] == pytest.approx(5, rel=1e-2)
    assert far["(iii) paths"] == pytest.approx(
        (101 * math.log(101) - 100 * math.log(100)) / 100, rel=1e-2
    )


def test_regimes_panels():
    r1, r2, r3 = pg.fig1b_regimes(T_max=500, dl_max=20, points=30)
    assert (r1.dl == 5).all() and (r2.T == 5).all() and (r3.T == 100 * r3.dl).all()
    assert r3.log_paths[-1] == pytest.approx(math.log(comb(500 + 5, 500)))


def test_proof_inequalities():
    for T_ in (1, 2, 5, 20, 60):
        for d in (1, 3, 10, 40):
            assert pg.eq30_holds(T_, d) and pg.eq31_holds(T_, d)
    bad = pg.eq33_terms(100, 1)
    assert bad["eq32"] and bad["eq33"] and bad["step_corrected"] and not bad["step"]
    # direct arithmetic for the failing step: a^100 / 100 < a^50 with a = 1.01
    assert 1.01**100 / 100 < 1.01**50
    good = pg.eq33_terms(100, 20)
    assert all(good.values())


def test_theorem4():
    t4 = pg.theorem4()
    assert t4.proven
    xs = np.linspace(-30, 30, 60001)
    assert np.min(np.exp(xs / np.e) - xs) >= -1e-12


def test_exact_slopes_approach_the_sympy_rate():
    """Regime (iii): the slope of log Lemma 2's quantity per time step, from exact integers
    between T and 2T, tends to sympy's limit ((k+1)log(k+1) - k log k)/k; the gap shrinks
    about tenfold per decade of T."""
    k = 100
    rate = float(pg.exponential_rate()[1].subs(pg.kk, k))
    gaps = []
    for T_ in (1000, 10_000, 100_000):
        slope = (
            pg.lemma2_quantity(2 * T_, 2 * T_ // k) - pg.lemma2_quantity(T_, T_ // k)
        ) / T_
        gaps.append(abs(slope - rate))
    assert gaps[0] > 5 * gaps[1] > 25 * gaps[2]


def test_regime_slopes_table_and_check():
    regimes = pg.fig1b_regimes(T_max=1000, dl_max=40, points=60)
    s = pg.regime_slopes(regimes, 5, 5, 100)
    assert s.expected["(i) paths"] == 5 and s.expected["(i) lemma2"] == 6
    assert s.expected["(iii) paths"] == pytest.approx(0.0561, abs=1e-4)
    v = s.check()
    assert v["limits_one"] and v["limits"] == ["1"] * 4 and v["max_gap"] < 0.01
    assert v["degrees"] == ["Delta_l", "T", "Delta_l + 1", "T"]
    assert list(v["far"]) == list(s.far) and s.table().count("\n") == 1 + 6


def test_proof_inequalities_check():
    p = pg.proof_inequalities(20, ks=(1, 100))
    assert p.grid == [1, 2, 3, 5, 8, 13, 20]
    v = p.check()
    assert (v["viol30"], v["viol31"], v["viol32"], v["viol33"]) == (0, 0, 0, 0)
    assert v["pairs"] == 49 and v["step_corr_fail"] == 0 and v["ks"] == [1, 100]
    # the step of Eq. (33) fails at k = 100 for small Delta l: a^(100 d)/(100 d) < a^(50 d)
    a = 1.01
    fails = [d for d in range(1, 21) if a ** (100 * d) / (100 * d) <= a ** (50 * d)]
    assert v["fail_k100"] == fails and v["n_step_fail"] == len(fails) + len(
        p.step_fail[1]
    )
    assert "$k=100$" in p.summary() and "| 1 | [2, 3, 4] | 0 times |" in p.step_table()
    none = pg.ProofCheck([1], [7], 1, 0, 0, 0, 0, {7: []}, {7: 0})
    assert "| 7 | never | 0 times |" in none.step_table()


def test_theorem4_check_and_display():
    t4 = pg.theorem4()
    v = t4.check()
    assert v["proven"] and v["critical"] == "[E]" and v["minimum"] == "0"
    assert 0 <= v["fmin"] < 1e-6
    first, second = t4.latex()
    assert r"\iff x\in" in first and "sympy" in second


def test_growth_laws_render():
    law = pg.sub_exponential_laws()["paths, (i) T grows"]
    assert law.latex("paths").startswith(r"\text{paths:}")
    assert r"\text{(iii)}" in pg.exponential_rate_latex()
