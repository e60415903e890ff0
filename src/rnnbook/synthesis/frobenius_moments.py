"""Exact finite-width moments E||W^k||_F^2 of a real Gaussian matrix, by Wick's theorem.

For W with i.i.d. N(0, nu_W) entries, ||W^k||_F^2 = tr(W^k (W^T)^k) is a sum over cyclic index
strings i_0 .. i_{2k-1} of a product of 2k entries. Wick's theorem writes its expectation as a sum over
the (2k-1)!! pairings of the 2k factors: a pair W_{ab} W_{cd} contributes nu_W delta_ac delta_bd, so a
pairing contributes nu_W^k n^(number of free index classes). :func:`wick_polynomial` enumerates the
pairings and returns the polynomial P_k(n) with E||W^k||_F^2 = nu_W^k P_k(n), exactly, at every n.

The per-step decay of the normalised gradient norm, E||dh_T/dh_t||_F^2 / n with dh_T/dh_t = (W/sqrt n)^k,
is therefore nu_W^k P_k(n) / n^(k+1): the nu_W^k is exact, the factor P_k(n)/n^(k+1) -> 1 is the finite-n
correction (``P_1 = n^2``, ``P_2 = n^3 + 2n``).
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
import sympy as sp

n = sp.Symbol("n", positive=True, integer=True)


def _factors(k: int) -> list[tuple[int, int]]:
    """(row, column) index-variable pairs of the 2k factors of tr(W^k (W^T)^k), indices mod 2k."""
    m = 2 * k
    rows = [(a, (a + 1) % m) for a in range(k)]  # W_{i_a i_{a+1}}
    rows += [
        ((b + 1) % m, b) for b in range(k, m)
    ]  # (W^T)_{i_b i_{b+1}} = W_{i_{b+1} i_b}
    return rows


def _pairings(items: list[int]):
    if not items:
        yield []
        return
    first, rest = items[0], items[1:]
    for i, other in enumerate(rest):
        for tail in _pairings(rest[:i] + rest[i + 1 :]):
            yield [(first, other), *tail]


def _classes(m: int, ties: list[tuple[int, int]]) -> int:
    parent = list(range(m))

    def find(a: int) -> int:
        while parent[a] != a:
            parent[a] = parent[parent[a]]
            a = parent[a]
        return a

    for a, b in ties:
        parent[find(a)] = find(b)
    return len({find(a) for a in range(m)})


@lru_cache(maxsize=None)
def wick_polynomial(k: int, complex_entries: bool = False) -> sp.Expr:
    """P_k(n) with E||W^k||_F^2 = nu_W^k P_k(n) for W (n x n) with i.i.d. N(0, nu_W) entries.

    With ``complex_entries`` W is complex Ginibre (E|W_ij|^2 = nu_W, E W_ij^2 = 0): only the
    pairings of a W with a conjugate factor W^* survive, and P_2 = n^3 + n instead of n^3 + 2n.
    The difference between the two is the contribution of the pairings of a W with a W."""
    if not isinstance(k, int) or k < 0 or k > 7:
        raise ValueError(f"k = {k!r}: must be an integer in 0..7 ((2k-1)!! pairings)")
    if k == 0:
        return n
    f = _factors(k)
    counts: dict[int, int] = {}
    for pairing in _pairings(list(range(2 * k))):
        if complex_entries and any((a < k) == (b < k) for a, b in pairing):
            continue  # E W W = E W* W* = 0 for complex Ginibre entries
        ties = [t for a, b in pairing for t in ((f[a][0], f[b][0]), (f[a][1], f[b][1]))]
        c = _classes(2 * k, ties)
        counts[c] = counts.get(c, 0) + 1
    return sp.expand(sum(v * n**c for c, v in counts.items()))


def normalised_factor(k: int) -> sp.Expr:
    """P_k(n) / n^(k+1): E||(W/sqrt n)^k||_F^2 / n = nu_W^k times this factor (-> 1 as n -> oo)."""
    return sp.expand(wick_polynomial(k) / n ** (k + 1))


def exact_gradient_moment(k: int, width: int, nu_W: float) -> float:
    """E||(W/sqrt n)^k||_F^2 / n at width ``width``, exactly (Wick)."""
    return float(nu_W**k * normalised_factor(k).subs(n, width))


def monte_carlo_gradient_moment(
    k: int, width: int, nu_W: float, samples: int, seed: int
) -> tuple[float, float]:
    """Sample mean and standard error of ||(W/sqrt n)^k||_F^2 / n over ``samples`` batched draws."""
    rng = np.random.default_rng(seed)
    J = rng.standard_normal((samples, width, width)) * np.sqrt(nu_W / width)
    Jk = np.linalg.matrix_power(J, k)
    x = np.einsum("sij,sij->s", Jk, Jk) / width
    return float(x.mean()), float(x.std(ddof=1) / np.sqrt(samples))


def wick_check(width: int, k_max: int, nu_W: float, samples: int, seed: int) -> dict:
    """Monte Carlo of ||J^k||_F^2/n, k = 1..k_max (one batch of draws, successive powers), as z-scores
    against the exact Wick value and against the naive nu_W^k. numpy on the CPU: the matrices are
    tiny (the chapter's width 4), a second at the paper profile, so there is no device path."""
    rng = np.random.default_rng(seed)
    J = rng.standard_normal((samples, width, width)) * np.sqrt(nu_W / width)
    P, z_w, z_n, factors = J, [], [], []
    for k in range(1, k_max + 1):
        x = np.einsum("sij,sij->s", P, P) / width
        se = x.std(ddof=1) / np.sqrt(samples)
        exact = exact_gradient_moment(k, width, nu_W)
        z_w.append(abs(x.mean() - exact) / se)
        z_n.append(abs(x.mean() - nu_W**k) / se)
        factors.append(round(exact / nu_W**k, 4))
        P = P @ J
    return {
        "width": width,
        "samples": samples,
        "k_max": k_max,
        "z_wick_max": float(max(z_w)),
        "z_naive_max": float(max(z_n)),
        "factors": factors,
    }
