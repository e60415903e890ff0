"""The linearisations Eq. (4) and Eq. (9) of Chen, Pennington & Schoenholz (2018), derived with sympy from the
covariance maps (Eq. 2 for the vanilla RNN, Eqs. 6-7 for the minimalRNN) rather than transcribed.

The one analytic step is Price's theorem, d/dc E[f(u1) g(u2)] = q E[f'(u1) g'(u2)] for the Gaussian pair of
Eq. (39). :func:`price_derivative` obtains it by differentiating the integrand in c and removing every
polynomial factor z_i with Gaussian integration by parts (Stein's lemma E[z h(z)] = E[h'(z)]).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import sympy as sp

z1, z2 = sp.symbols("z_1 z_2", real=True)
c = sp.Symbol("c", positive=True)
q = sp.Symbol("q^*", positive=True)
mu_b = sp.Symbol("mu_b", real=True)
sw2, sv2, sb2, R = sp.symbols("sigma_w^2 sigma_v^2 sigma_b^2 R", positive=True)
Sigma, Sigma_prev = sp.symbols("Sigma_12^t Sigma_12^{t-1}", nonnegative=True)
c_prev, c_t = sp.symbols("c^{t-1} c^t", positive=True)
QC_prev, QC_prev2 = sp.symbols("Q^{t-1}C^{t-1} Q^{t-2}C^{t-2}", real=True)
Qs = sp.Symbol("Q^*", positive=True)
m = sp.Symbol(r"\mathbb{E}[\sigma(u_1)]", positive=True)  # c-independent (a marginal)
phi = sp.Function("phi")
sig = sp.Function("sigma")
E = sp.Function(r"\mathbb{E}")  # display wrapper for an expectation

u1 = sp.sqrt(q) * z1 + mu_b
u2 = sp.sqrt(q) * (c * z1 + sp.sqrt(1 - c**2) * z2) + mu_b


def stein(expr: sp.Expr, variables=(z1, z2), max_rounds: int = 8) -> sp.Expr:
    """Rewrite the integrand ``expr`` of a standard-Gaussian expectation so that no term carries a polynomial
    factor z_i: E[z_i^k h] = E[d/dz_i (z_i^{k-1} h)] (Stein's lemma), applied until none is left."""
    for _ in range(max_rounds):
        changed, out = False, []
        for term in sp.Add.make_args(sp.expand(expr)):
            powers = term.as_powers_dict()
            for z in variables:
                k = powers.get(z, 0)
                if k:
                    out.append(sp.diff(z ** (k - 1) * (term / z**k), z))
                    changed = True
                    break
            else:
                out.append(term)
        expr = sp.Add(*out)
        if not changed:
            return sp.simplify(expr)
    raise RuntimeError("stein: polynomial factors remain")


def price_derivative(f=phi, g=phi) -> tuple[sp.Expr, sp.Expr]:
    """(d/dc of the integrand f(u1) g(u2), the same after Stein's lemma). The second is q f'(u1) g'(u2)."""
    raw = sp.diff(f(u1) * g(u2), c)
    return raw, stein(raw)


#: the printed formulas (the things to check)
PAPER_EQ4 = sw2 * E(sp.Derivative(phi(z1), z1) * sp.Derivative(phi(z2), z2))
A = sp.Function("A")  # A(c) = E[f(u1) f(u2)] at (q*, c)
Ap = sp.Symbol(r"\mathbb{E}[\sigma'(u_1)\sigma'(u_2)]", positive=True)
Ap_phi = sp.Symbol(r"\mathbb{E}[\phi'(u_1)\phi'(u_2)]", positive=True)


@dataclass(frozen=True)
class VanillaDerivation:
    c_map: sp.Expr  # c^t as a function of c^{t-1} = c, with A(c) = E[phi(u1) phi(u2)]
    dmap: sp.Expr  # d c^t / d c^{t-1} in terms of A'(c)
    price_raw: sp.Expr  # d/dc of the integrand
    price: sp.Expr  # after Stein's lemma
    chi: sp.Expr  # the derived chi_{c*}
    printed: sp.Expr  # Eq. (4)
    difference: sp.Expr

    @property
    def matches_paper(self) -> bool:
        return self.difference == 0


@lru_cache(maxsize=None)
def derive_vanilla_chi() -> VanillaDerivation:
    """Eq. (4) from the off-diagonal of Eq. (2) at q^t = q*: c^t = (sigma_w^2 A(c^{t-1}) + sigma_v^2 R Sigma
    + sigma_b^2)/q*, differentiated, with A' from Price's theorem."""
    c_map = (sw2 * A(c) + sv2 * R * Sigma + sb2) / q
    dmap = sp.diff(c_map, c)
    raw, price = price_derivative(phi, phi)
    # price = q phi'(u1) phi'(u2): read off the coefficient of the product of first derivatives
    coeff = sp.simplify(
        price
        / (
            sp.diff(phi(u1), z1)
            / sp.sqrt(q)
            * sp.diff(phi(u2), z2)
            / (sp.sqrt(q) * sp.sqrt(1 - c**2))
        )
    )
    chi = sp.simplify(dmap.subs(sp.Derivative(A(c), c), coeff * Ap_phi))
    printed = sw2 * Ap_phi
    return VanillaDerivation(
        c_map, dmap, raw, price, chi, printed, sp.simplify(chi - printed)
    )


@dataclass(frozen=True)
class MinimalDerivation:
    eq6_t: sp.Eq
    eq7_prev: sp.Eq
    eq6_prev: sp.Eq
    c_map: sp.Expr  # derived Eq. (8)
    printed_eq8: sp.Expr
    eq8_difference: sp.Expr  # derived - printed
    chi: sp.Expr  # derived Eq. (9) (at a fixed point with constant Sigma)
    printed_eq9: sp.Expr
    eq9_difference: sp.Expr
    chi1_from_derived: (
        sp.Expr
    )  # derived chi at c* = 1, Sigma = 1, q* = sigma_w^2 Q* + sigma_v^2 R + sigma_b^2
    chi1_from_printed: sp.Expr
    eq13: sp.Expr


@lru_cache(maxsize=None)
def derive_minimal_chi(shared_bias: bool = True) -> MinimalDerivation:
    """Eq. (8) and Eq. (9) from the off-diagonal entries of Eqs. (6)-(7) at q^t = q*.

    With A(c) = E[sigma(u1) sigma(u2)] and m = E[sigma(u1)] = E[sigma(u2)] (equal marginals):
    E[(1 - sigma(u1))(1 - sigma(u2))] = 1 - 2m + A(c).

    ``shared_bias``: the two copies of the network share the bias b, so sigma_b^2 enters the
    off-diagonal of q^t too (as in the paper's SI, Eqs. 17 and 38); with ``False``, Eq. (6) as
    printed, sigma_b^2 I, on the diagonal only, from which Eqs. (8) and (9) follow exactly.
    """
    off = sb2 if shared_bias else 0
    B = sp.expand(
        E(1) - 2 * m + A(c_prev)
    )  # E[(1-s1)(1-s2)] = 1 - E s1 - E s2 + E s1 s2
    B = B.subs(E(1), 1)
    eq6_t = sp.Eq(q * c_t, sw2 * QC_prev + sv2 * R * Sigma + off)
    eq7_prev = sp.Eq(QC_prev, QC_prev2 * A(c_prev) + R * Sigma_prev * B)
    eq6_prev = sp.Eq(q * c_prev, sw2 * QC_prev2 + sv2 * R * Sigma_prev + off)
    QCpp = sp.solve(eq6_prev, QC_prev2)[0]
    QCp = eq7_prev.rhs.subs(QC_prev2, QCpp)
    c_map = sp.expand(sp.solve(eq6_t.subs(QC_prev, QCp), c_t)[0])
    rho_p, rho = R * Sigma_prev / q, R * Sigma / q
    printed8 = (
        (c_prev + (sw2 - sv2) * rho_p) * A(c_prev)
        - 2 * sw2 * rho_p * m
        + sw2 * rho_p
        + sv2 * rho
    )
    diff8 = sp.factor(sp.simplify(c_map - printed8))
    # linearise at a fixed point with constant inputs (Sigma^{t-1} = Sigma^t)
    _, price = price_derivative(sig, sig)
    coeff = sp.simplify(
        price
        / (
            sp.diff(sig(u1), z1)
            / sp.sqrt(q)
            * sp.diff(sig(u2), z2)
            / (sp.sqrt(q) * sp.sqrt(1 - c**2))
        )
    )
    dmap = sp.diff(c_map.subs(Sigma_prev, Sigma), c_prev)
    Aval = sp.Symbol(r"\mathbb{E}[\sigma(u_1)\sigma(u_2)]", positive=True)
    chi = sp.expand(
        dmap.subs(sp.Derivative(A(c_prev), c_prev), coeff * Ap)
        .subs(A(c_prev), Aval)
        .subs(c_prev, c)
    )
    printed9 = Aval + (q * c + (sw2 - sv2) * R * Sigma) * Ap
    diff9 = sp.factor(sp.simplify(chi - printed9))
    # chi_1: c* = 1, Sigma = 1, A(1) = E[sigma^2] = mu_1, E[sigma'^2]; q* from Eq. (6) at the fixed point
    mu1, Esp2 = sp.symbols(r"\mu_1 \mathbb{E}[\sigma'^2]", positive=True)
    at1 = {c: 1, Sigma: 1, Aval: mu1, Ap: Esp2}
    qstar = sw2 * Qs + sv2 * R + sb2
    chi1_d = sp.expand(chi.subs(at1).subs(q, qstar))
    chi1_p = sp.expand(printed9.subs(at1).subs(q, qstar))
    eq13 = mu1 + sw2 * (Qs + R) * Esp2
    return MinimalDerivation(
        eq6_t,
        eq7_prev,
        eq6_prev,
        c_map,
        printed8,
        diff8,
        chi,
        printed9,
        diff9,
        chi1_d,
        chi1_p,
        eq13,
    )


@dataclass(frozen=True)
class Algorithm1Check:
    Qstar: sp.Expr
    sigma_w2: sp.Expr
    sigma_v2: sp.Expr
    chi1: sp.Expr  # Eq. (13) with the algorithm's outputs: simplifies to 1
    Q_fixed_point_residual: (
        sp.Expr
    )  # Eq. (7) diagonal at the algorithm's Q*: simplifies to 0
    q_fixed_point_residual: sp.Expr  # Eq. (6) diagonal: simplifies to 0


@lru_cache(maxsize=None)
def check_algorithm1() -> Algorithm1Check:
    """Algorithm 1 line by line with the Gaussian integrals as symbols; checks chi_1 = mu_1 + mu_2 = 1 and that
    (Q*, q*) is a fixed point of Eqs. (6)-(7)."""
    Eu2, E1mu2, Eup2, qs = sp.symbols(
        r"\mathbb{E}[u^2] \mathbb{E}[(1-u)^2] \mathbb{E}[u'^2] q^*", positive=True
    )
    Q = R * E1mu2 / (1 - Eu2)
    w2 = (1 - Eu2) / (Q + R) / Eup2
    b2 = 0
    v2 = (qs - Q * w2 - b2) / R
    chi1 = sp.simplify(Eu2 + w2 * (Q + R) * Eup2)
    resQ = sp.simplify(Q - (Q * Eu2 + R * E1mu2))
    resq = sp.simplify(qs - (w2 * Q + v2 * R + b2))
    return Algorithm1Check(Q, w2, v2, chi1, resQ, resq)


def eq3_normalisation() -> sp.Expr:
    """The total mass of the measure of Eq. (3) as printed, 1/(2 pi sqrt|q|) int exp(-(z - mu)^T q^{-1} (z - mu)) dz.

    In the eigenbasis of q (eigenvalues l1, l2 > 0) the exponent is -(y1^2/l1 + y2^2/l2) and |q| = l1 l2.
    A probability measure has mass 1; the printed exponent lacks the factor 1/2 and the mass is 1/2."""
    l1, l2 = sp.symbols("lambda_1 lambda_2", positive=True)
    y1, y2 = sp.symbols("y_1 y_2", real=True)
    mass = sp.integrate(
        sp.exp(-(y1**2 / l1 + y2**2 / l2)), (y1, -sp.oo, sp.oo), (y2, -sp.oo, sp.oo)
    )
    return sp.simplify(mass / (2 * sp.pi * sp.sqrt(l1 * l2)))


def tex(*parts) -> str:
    """LaTeX of ``parts`` joined: strings as they are, sympy objects through ``sympy.latex``."""
    return "".join(p if isinstance(p, str) else sp.latex(p) for p in parts)


# ------------------------------------------------- Eqs. (12)-(13): the one-step variance, term by term
Du, Da, Wm, Wt = sp.symbols("D_u D_a W W^T", commutative=False)
u_, a_ = sp.symbols("u a", real=True)  # one diagonal entry of D_u, D_a
s1 = sp.Symbol("s_1", real=True)
_DIAG = {Du: u_, Da: a_}


def _letters(term: sp.Expr) -> tuple[sp.Expr, list]:
    """A product of the expansion as (commutative coefficient, list of non-commutative letters)."""
    coeff, word = sp.S.One, []
    for f in sp.Mul.make_args(term):
        base, exp = f.as_base_exp()
        if base in (Du, Da, Wm, Wt):
            word += [base] * int(exp)
        else:
            coeff *= f
    return coeff, word


def free_trace(word: list) -> sp.Expr:
    """tr/N of a word in D_u, D_a (diagonal, entries u, a) and W, W^T, in the wide limit where W is
    R-diagonal and free from the diagonal matrices, with tr(WW^T)/N = sigma_w^2 and
    tr((WW^T)^2)/N = sigma_w^4 (1 - s_1) (s_1 = -1 Gaussian, 0 orthogonal; Pennington et al. 2018).

    The diagonal letters between consecutive W-letters (cyclically) form the gaps g_1, g_2, ...; the
    trace is a sum over the non-crossing pairings of the W-letters (free cumulants kappa_2 = sigma_w^2
    for a (W, W^T) pair, kappa_4 = -sigma_w^4 (1 + s_1) for an alternating block of four), the gaps
    grouped by the Kreweras complement. Words with up to two W and two W^T (all that one step needs).
    """
    ws = [i for i, x in enumerate(word) if x in (Wm, Wt)]
    if not ws:
        return E(sp.Mul(*(_DIAG[x] for x in word)))
    kinds = [word[i] for i in ws]
    if kinds.count(Wm) != kinds.count(Wt):
        return sp.S.Zero  # R-diagonal: unbalanced words vanish
    rot = word[ws[0] :] + word[: ws[0]]  # start at the first W-letter
    gaps, cur = [], []
    for x in rot[1:] + [None]:
        if x in (Wm, Wt, None):
            gaps.append(sp.Mul(*(_DIAG[y] for y in cur)))
            cur = []
        else:
            cur.append(x)
    kinds = [x for x in rot if x in (Wm, Wt)]
    if len(kinds) == 2:
        return sw2 * E(gaps[0]) * E(gaps[1])
    if len(kinds) == 4 and all(kinds[i] != kinds[i + 1] for i in range(3)):
        g1, g2, g3, g4 = gaps
        k4 = -(sw2**2) * (1 + s1)
        return sw2**2 * (
            E(g1) * E(g3) * E(g2 * g4) + E(g2) * E(g4) * E(g1 * g3)
        ) + k4 * E(g1) * E(g2) * E(g3) * E(g4)
    raise NotImplementedError(f"word {word}: beyond one step")


def trace_expansion(expr: sp.Expr) -> tuple[list, sp.Expr]:
    """Expand ``expr`` into words and take tr/N of each: ([(coefficient, word, trace)], total)."""
    rows, total = [], sp.S.Zero
    for term in sp.Add.make_args(sp.expand(expr)):
        coeff, word = _letters(term)
        tr = free_trace(word)
        rows.append((coeff, word, tr))
        total += coeff * tr
    return rows, sp.expand(total.subs(E(1), 1))


@dataclass(frozen=True)
class OneStepDerivation:
    """The one-step moments of J_t J_t^T, J_t = D_u + D_a W (Eq. 10), from the trace expansion, and
    the per-step coefficient of Eq. (12) with the moments of Eq. (13), term by term."""

    words: list  # (coefficient, word, tr/N) of tr((J J^T)^2)/N
    m1: sp.Expr
    m2: sp.Expr
    var1: sp.Expr  # m2 - m1^2, in the moments E[u^i a^j]
    derived: dict  # term -> expression (factorised: a = sigma'(e) (h - x), e independent of h, x)
    paper: dict  # term -> Eq. (12)-(13) expression
    equal: dict  # term -> bool (sympy: derived - paper simplifies to 0)

    @property
    def wrong(self) -> list[str]:
        return [k for k, ok in self.equal.items() if not ok]


TERMS = ("Var(u^2)", "cross", "quartic", "-mu_2^2", "s_1")
Es2, Es4, Esp2, Esp4, Es2sp2 = sp.symbols(
    r"\mathbb{E}[\sigma^2] \mathbb{E}[\sigma^4] \mathbb{E}[\sigma'^2] \mathbb{E}[\sigma'^4] "
    r"\mathbb{E}[\sigma^2\sigma'^2]",
    positive=True,
)
Ed4 = sp.Symbol(r"\mathbb{E}[(h-\tilde x)^4]", positive=True)


def _split(expr: sp.Expr) -> dict:
    """The five terms of a one-step variance: by powers of s_1 and sigma_w^2 (and sign of the
    sigma_w^4 terms: the fourth moment against -mu_2^2)."""
    p = sp.Poly(sp.expand(expr), s1, sw2)
    out = dict.fromkeys(TERMS, sp.S.Zero)
    for (i, j), c in p.terms():
        mono = c * sw2**j
        if i == 1:
            out["s_1"] += mono * s1
        elif j == 0:
            out["Var(u^2)"] += mono
        elif j == 1:
            out["cross"] += mono
        else:
            for t in sp.Add.make_args(sp.expand(mono)):
                out["-mu_2^2" if t.could_extract_minus_sign() else "quartic"] += t
    return out


@lru_cache(maxsize=None)
def derive_one_step_variance() -> OneStepDerivation:
    """Expand tr(J J^T)/N and tr((J J^T)^2)/N for one step J = D_u + D_a W, take the wide-limit trace
    of every word (:func:`free_trace`), and compare var_1 = m_2 - m_1^2 term by term with the per-step
    coefficient 2 (mu_1 - s_1) mu_2 + sigma_1^2 + sigma_2^2 of Eq. (12), Eq. (13) as printed.

    Mean field: u = sigma(e), a = sigma'(e) (h - x~) with e independent of (h, x~), E[(h - x~)^2] = Q* + R.
    """
    J = Du + Da * Wm
    JJ = J * (Du + Wt * Da)
    _, m1 = trace_expansion(JJ)
    words, m2 = trace_expansion(JJ * JJ)
    var1 = sp.expand(m2 - m1**2)
    fact = {
        E(u_**2): Es2,
        E(u_**4): Es4,
        E(a_**2): Esp2 * (Qs + R),
        E(a_**4): Esp4 * Ed4,
        E(u_**2 * a_**2): Es2sp2 * (Qs + R),
    }
    derived = _split(var1.subs(fact))
    mu1, mu2 = Es2, sw2 * (Qs + R) * Esp2
    paper_coeff = (
        2 * (mu1 - s1) * mu2
        + (Es4 - mu1**2)
        + (-(mu2**2) + sw2**2 * (Qs**2 + R**2) * Esp4)
    )
    paper = _split(paper_coeff)
    equal = {k: sp.simplify(derived[k] - paper[k]) == 0 for k in TERMS}
    return OneStepDerivation(words, m1, m2, var1, derived, paper, equal)
