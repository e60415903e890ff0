"""The sympy derivations of Eqs. (4), (8), (9), Algorithm 1 and Eq. (3)."""

import sympy as sp

from rnnbook.mean_field import derivations


def test_sympy_derivations():
    v = derivations.derive_vanilla_chi()
    assert v.matches_paper
    m = derivations.derive_minimal_chi()
    sb2, A, q = derivations.sb2, derivations.A, derivations.q
    assert sp.simplify(m.eq9_difference + sb2 * derivations.Ap) == 0
    assert sp.simplify(m.eq8_difference - sb2 * (1 - A(derivations.c_prev)) / q) == 0
    assert sp.simplify(m.chi1_from_derived - m.eq13) == 0
    a = derivations.check_algorithm1()
    assert a.chi1 == 1
    assert a.Q_fixed_point_residual == 0 and a.q_fixed_point_residual == 0
    assert derivations.eq3_normalisation() == sp.Rational(1, 2)


def test_stein_lemma_on_polynomials():
    # E[z^2] = 1, E[z1^2 z2^2] = 1, E[z^4] = 3: integrands with no function left
    z1, z2 = derivations.z1, derivations.z2
    assert derivations.stein(z1**2) == 1
    assert derivations.stein(z1**2 * z2**2) == 1
    assert derivations.stein(z1**4) == 3


def test_tex_joins_strings_and_expressions():
    x = sp.Symbol("x")
    assert derivations.tex(r"\chi = ", x**2, r"\quad") == r"\chi = x^{2}\quad"
