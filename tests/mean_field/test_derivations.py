"""The sympy derivations of Eqs. (4), (8), (9), Algorithm 1 and Eq. (3)."""

import numpy as np
import pytest
import sympy as sp

from rnnbook.mean_field import derivations, theory


def test_sympy_derivations():
    v = derivations.derive_vanilla_chi()
    assert v.matches_paper
    m = derivations.derive_minimal_chi()
    sb2, A, q = derivations.sb2, derivations.A, derivations.q
    assert sp.simplify(m.eq9_difference + sb2 * derivations.Ap) == 0
    assert sp.simplify(m.eq8_difference - sb2 * (1 - A(derivations.c_prev)) / q) == 0
    assert sp.simplify(m.chi1_from_derived - m.eq13) == 0
    # Eq. (6) as printed (sigma_b^2 on the diagonal only) gives Eqs. (8) and (9) exactly
    printed = derivations.derive_minimal_chi(shared_bias=False)
    assert printed.eq8_difference == 0 and printed.eq9_difference == 0
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


def _free_trace_numeric(word, Du, Da, W, WT):
    """(1/n) tr of the word's product; the diagonals ``Du``, ``Da`` are given as vectors
    (a product with diag(u) scales rows or columns: n^2 work instead of n^3), and the last
    matrix product is traced without being formed (tr XY = sum of X * Y^T)."""
    n = len(Du)
    factors = [{"Du": Du, "Da": Da, "W": W, "WT": WT}[x] for x in word]
    last = max((i for i, f in enumerate(factors) if f.ndim == 2), default=None)
    if last is None:
        return float(np.sum(np.prod(factors, axis=0) if factors else np.ones(n))) / n
    right = factors[last]
    for d in factors[last + 1 :]:
        right = right * d[None, :]
    M = np.ones(
        n
    )  # the product of the factors before the last matrix (a diagonal first)
    for f in factors[:last]:
        if f.ndim == 1:
            M = M * f if M.ndim == 1 else M * f[None, :]
        else:
            M = M[:, None] * f if M.ndim == 1 else M @ f
    tr = np.sum(M * np.diag(right)) if M.ndim == 1 else np.sum(M * right.T)
    return float(tr) / n


@pytest.mark.parametrize("orthogonal", [False, True])
def test_free_trace_against_random_matrices(orthogonal):
    """Every word of the one-step expansion, traced by free_trace, against one large random draw:
    correlated diagonals u, a and W Gaussian (s_1 = -1) or orthogonal (s_1 = 0), sigma_w = 1.3."""
    rng = np.random.default_rng(0)
    n, sw = 1500, 1.3
    e = rng.normal(size=n)
    u, a = 1 / (1 + np.exp(-e)), np.cos(e) + 0.3 * rng.normal(size=n)
    if orthogonal:
        Qm, Rm = np.linalg.qr(rng.normal(size=(n, n)))
        W = sw * Qm * np.sign(np.diag(Rm))
    else:
        W = sw * rng.normal(size=(n, n)) / np.sqrt(n)
    num = {"Du": u, "Da": a, "W": W, "WT": W.T}
    d = derivations.derive_one_step_variance()
    names = {
        derivations.Du: "Du",
        derivations.Da: "Da",
        derivations.Wm: "W",
        derivations.Wt: "WT",
    }
    moments = {
        derivations.E(derivations.u_**i * derivations.a_**j): np.mean(u**i * a**j)
        for i in range(5)
        for j in range(5)
        if i + j
    }
    subs = {derivations.sw2: sw**2, derivations.s1: 0.0 if orthogonal else -1.0}
    for coeff, word, tr in d.words:
        exact = _free_trace_numeric([names[x] for x in word], **num)
        pred = float(tr.subs(moments).subs(subs).subs(derivations.E(1), 1))
        assert abs(exact - pred) < 0.03 * (1 + abs(pred)), (word, exact, pred)


def test_one_step_derivation_names_the_wrong_terms():
    d = derivations.derive_one_step_variance()
    assert d.wrong == ["cross", "quartic", "s_1"]
    assert d.equal["Var(u^2)"] and d.equal["-mu_2^2"]
    assert (
        sp.simplify(
            d.derived["s_1"]
            + derivations.s1
            * (derivations.sw2 * (derivations.Qs + derivations.R) * derivations.Esp2)
            ** 2
        )
        == 0
    )


def test_one_step_terms_sum_to_the_one_step_variance():
    hp = theory.algorithm1(4.0, 4.0, 0.46).hp()
    for s1 in (-1.0, 0.0):
        _, derived = theory.minimal_one_step_terms(hp, s1)
        assert np.isclose(
            sum(derived.values()), theory.minimal_one_step_moments(hp, s1)[1]
        )
        paper, _ = theory.minimal_one_step_terms(hp, s1)
        m = theory.minimal_moments13(hp)
        assert np.isclose(
            sum(paper.values()), 2 * (m.mu1 - s1) * m.mu2 + m.sigma1_sq + m.sigma2_sq
        )
