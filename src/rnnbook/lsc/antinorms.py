"""Anti-norms and lower bounds: Herranz-Celotti & Rouat, App. D (Eqs. 36-39, Theorem 6 and the determinant).

A lower bound on the parameter update would need a scalar function of matrices that is super-additive,
f(A + B) >= f(A) + f(B), and super-multiplicative, f(AB) >= f(A) f(B). Theorem 6 says that only the zero
function is both, for real or complex matrices; the paper then notes that on positive semi-definite (PSD)
matrices the determinant is super-additive and multiplicative. This module tests candidate functions on
random and special matrices (batched), searches random combinations of them for a counterexample, builds the
matrix J with J J = -I used by the proof, and tests the determinant on PSD and on general matrices.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

import torch

Fn = Callable[[torch.Tensor], torch.Tensor]


def _sym(A: torch.Tensor) -> torch.Tensor:
    return (A + A.transpose(-1, -2)) / 2


def candidate_functions() -> dict[str, Fn]:
    """Scalar functions of square real matrices (batched over leading axes) to try as anti-norms."""
    n_of = lambda A: A.shape[-1]  # noqa: E731
    return {
        "det": torch.linalg.det,
        "sign(det)|det|^(1/n)": lambda A: (
            torch.sign(torch.linalg.det(A)) * torch.linalg.det(A).abs() ** (1 / n_of(A))
        ),
        "trace": lambda A: torch.diagonal(A, dim1=-2, dim2=-1).sum(-1),
        "trace / n": lambda A: torch.diagonal(A, dim1=-2, dim2=-1).mean(-1),
        "lambda_min((A+A^T)/2)": lambda A: torch.linalg.eigvalsh(_sym(A))[..., 0],
        "sigma_min": lambda A: torch.linalg.svdvals(A)[..., -1],
        "-sigma_max": lambda A: -torch.linalg.svdvals(A)[..., 0],
        "min Re lambda": lambda A: torch.linalg.eigvals(A).real.amin(-1),
        "max Re lambda": lambda A: torch.linalg.eigvals(A).real.amax(-1),
        "sum of entries": lambda A: A.sum((-1, -2)),
        "a_11": lambda A: A[..., 0, 0],
        "min_i a_ii": lambda A: torch.diagonal(A, dim1=-2, dim2=-1).amin(-1),
    }


def test_matrices(
    n: int, pairs: int, g: torch.Generator
) -> tuple[torch.Tensor, torch.Tensor]:
    """Pairs (A, B) of n x n real matrices: the special matrices 0, I, -I, J (J J = -I, n even), 2I, and a
    diagonal with mixed signs, all combined with each other, then ``pairs`` random Gaussian pairs."""
    eye = torch.eye(n, dtype=torch.float64)
    special = [
        torch.zeros(n, n, dtype=torch.float64),
        eye,
        -eye,
        2 * eye,
        torch.diag(torch.tensor([(-1.0) ** i for i in range(n)], dtype=torch.float64)),
    ]
    if n % 2 == 0:
        special.append(square_root_of_minus_identity(n))
    sp = torch.stack(special)
    A = torch.cat(
        [
            sp.repeat_interleave(len(special), 0),
            torch.randn(pairs, n, n, dtype=torch.float64, generator=g),
        ]
    )
    B = torch.cat(
        [
            sp.repeat(len(special), 1, 1),
            torch.randn(pairs, n, n, dtype=torch.float64, generator=g),
        ]
    )
    return A, B


@dataclass(frozen=True)
class PropertyTest:
    name: str
    n: int
    pairs: int
    super_additive_violations: int
    super_multiplicative_violations: int
    nonzero: bool

    @property
    def counterexample(self) -> bool:
        """Both properties hold on every pair and the function is not identically zero: Theorem 6 fails."""
        return (
            self.super_additive_violations == 0
            and self.super_multiplicative_violations == 0
            and self.nonzero
        )


def check_properties(
    name: str, f: Fn, A: torch.Tensor, B: torch.Tensor, rtol: float = 1e-9
) -> PropertyTest:
    """Count the pairs that violate f(A+B) >= f(A) + f(B) and f(AB) >= f(A) f(B) (tolerance rtol * scale)."""
    fA, fB, fS, fP = f(A), f(B), f(A + B), f(A @ B)
    scale = 1 + fA.abs() + fB.abs() + fS.abs() + fP.abs() + (fA * fB).abs()
    add = int((fS < fA + fB - rtol * scale).sum())
    mul = int((fP < fA * fB - rtol * scale).sum())
    nonzero = bool((torch.cat([fA, fB, fS, fP]).abs() > 1e-12).any())
    return PropertyTest(name, A.shape[-1], A.shape[0], add, mul, nonzero)


def random_combination_search(
    n: int,
    draws: int,
    A: torch.Tensor,
    B: torch.Tensor,
    g: torch.Generator,
    chunk: int = 1000,
) -> tuple[int, int]:
    """f_c(A) = sum_i c_i phi_i(A) over the candidates phi_i, with c uniform on the unit sphere: how many of
    ``draws`` combinations pass both properties on every pair? Returns (passed, draws)."""
    feats = list(candidate_functions().values())
    phi = {
        k: torch.stack([f(M) for f in feats], -1)
        for k, M in (("A", A), ("B", B), ("S", A + B), ("P", A @ B))
    }
    c = torch.randn(draws, len(feats), dtype=torch.float64, generator=g)
    c = c / c.norm(dim=-1, keepdim=True)
    passed = 0
    for cc in c.split(chunk):  # (pairs, chunk) at a time: pairs x draws would not fit
        fA, fB, fS, fP = (phi[k] @ cc.T for k in "ABSP")
        scale = 1 + fA.abs() + fB.abs() + fS.abs() + fP.abs()
        ok = (fS >= fA + fB - 1e-9 * scale) & (fP >= fA * fB - 1e-9 * scale)
        passed += int(ok.all(0).sum())
    return passed, draws


def square_root_of_minus_identity(n: int) -> torch.Tensor:
    """The proof's J for even n: +1 on the upper half of the anti-diagonal, -1 on the lower half; J J = -I."""
    if n % 2:
        raise ValueError(
            f"n = {n}: a real J with J J = -I exists only for even n (det(J)^2 = (-1)^n)"
        )
    J = torch.zeros(n, n, dtype=torch.float64)
    for i in range(n):
        J[i, n - 1 - i] = 1.0 if i < n // 2 else -1.0
    return J


def random_psd(
    S: int, n: int, g: torch.Generator, rank: int | None = None
) -> torch.Tensor:
    """S random PSD matrices X X^T / n with X of shape n x rank (rank n by default)."""
    X = torch.randn(S, n, rank or n, dtype=torch.float64, generator=g)
    return X @ X.transpose(-1, -2) / n


@dataclass(frozen=True)
class DeterminantTest:
    family: str
    n: int
    pairs: int
    super_additive_violations: int
    multiplicative_max_log_error: (
        float  # max | log|det AB| - log|det A| - log|det B| | (signs checked too)
    )


def determinant_test(family: str, A: torch.Tensor, B: torch.Tensor) -> DeterminantTest:
    """det(A + B) >= det A + det B (super-additivity) and det(AB) = det A det B (multiplicativity, compared in
    log|det| with ``slogdet``, robust to the tiny determinants of nearly singular products)."""
    dA, dB, dS = torch.linalg.det(A), torch.linalg.det(B), torch.linalg.det(A + B)
    scale = 1 + dA.abs() + dB.abs() + dS.abs()
    viol = int((dS < dA + dB - 1e-10 * scale).sum())
    (sA, lA), (sB, lB), (sP, lP) = (torch.linalg.slogdet(M) for M in (A, B, A @ B))
    err = (lP - lA - lB).abs()
    err = torch.where(sP == sA * sB, err, torch.full_like(err, float("inf")))
    return DeterminantTest(family, A.shape[-1], A.shape[0], viol, float(err.max()))


def identity_1x1_counterexample(samples: int, g: torch.Generator) -> PropertyTest:
    """f(A) = a_11 on 1 x 1 real matrices (the identity on the reals) is additive and multiplicative."""
    A = torch.randn(samples, 1, 1, dtype=torch.float64, generator=g)
    B = torch.randn(samples, 1, 1, dtype=torch.float64, generator=g)
    return check_properties("identity on 1x1", lambda M: M[..., 0, 0], A, B)


def minkowski_margin(A: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
    """det(A+B)^(1/n) - det(A)^(1/n) - det(B)^(1/n) >= 0 on PSD matrices (Minkowski's determinant inequality,
    which implies super-additivity of det there)."""
    n = A.shape[-1]
    r = lambda M: torch.linalg.det(M).clamp_min(0) ** (1 / n)  # noqa: E731
    return r(A + B) - r(A) - r(B)


# ---- the searches of the chapter "What the bounds rest on" ---------------------------------


@dataclass(frozen=True)
class Theorem6Search:
    """Per size n: every candidate's :class:`PropertyTest` (``results[n, name]``) and the
    random combinations that pass (``search[n]`` = (passed, draws)); the identity on 1 x 1
    matrices; and max |J J + I| of the proof's J for n = 2, 4, 6, 8."""

    sizes: list[int]
    pairs: int
    names: list[str]
    results: dict
    search: dict
    one_by_one: PropertyTest
    J_err: dict[int, float]

    def table(self) -> str:
        """Markdown: violations (super-additivity / super-multiplicativity) per candidate and
        size, bold where both hold."""

        def cell(r):
            v = f"{r.super_additive_violations} / {r.super_multiplicative_violations}"
            return f"**{v}**" if r.counterexample else v

        head = ["candidate $f$"] + [f"$n={n}$" for n in self.sizes]
        rows = [
            f"| {name} | "
            + " | ".join(cell(self.results[n, name]) for n in self.sizes)
            + " |"
            for name in self.names
        ]
        rows.append(
            "| random combinations passing | "
            + " | ".join(
                f"{self.search[n][0]} of {self.search[n][1]}" for n in self.sizes
            )
            + " |"
        )
        return (
            "Violations (super-additivity / super-multiplicativity), **bold** where both "
            "hold:\n\n| "
            + " | ".join(head)
            + " |\n|"
            + "---|" * len(head)
            + "\n"
            + "\n".join(rows)
        )

    def j_text(self) -> str:
        return (
            "The proof's $J$ (anti-diagonal, $+1$ above, $-1$ below): $\\max|JJ+I|$ = "
            + ", ".join(f"{v:.0e} ($n={n}$)" for n, v in self.J_err.items())
            + "."
        )

    def check(self) -> dict:
        """Counterexamples for n >= 2 (candidates and combinations) and the 1 x 1 identity."""
        big = [n for n in self.sizes if n >= 2]
        found = sum(
            self.results[n, name].counterexample for n in big for name in self.names
        )
        o = self.one_by_one
        return dict(
            sizes=self.sizes,
            pairs=self.pairs,
            candidates=len(self.names),
            found=int(found),
            combo_draws=self.search[self.sizes[0]][1],
            combos_passed=sum(self.search[n][0] for n in big),
            id_add=o.super_additive_violations,
            id_mul=o.super_multiplicative_violations,
            id_pairs=o.pairs,
            identity_counterexample=o.counterexample,
            J_err=max(self.J_err.values()),
        )


def theorem6_search(
    sizes: list[int], pairs: int, combo_draws: int, g: torch.Generator
) -> Theorem6Search:
    """Every candidate and ``combo_draws`` random combinations on :func:`test_matrices` of each
    size; then the 1 x 1 identity on ``pairs`` pairs, and the proof's J."""
    cands = candidate_functions()
    results, search = {}, {}
    for n in sizes:
        A, B = test_matrices(n, pairs, g)
        for name, f in cands.items():
            results[n, name] = check_properties(name, f, A, B)
        search[n] = random_combination_search(n, combo_draws, A, B, g)
    one_by_one = identity_1x1_counterexample(pairs, g)
    J_err = {}
    for n in (2, 4, 6, 8):
        J = square_root_of_minus_identity(n)
        J_err[n] = float((J @ J + torch.eye(n, dtype=torch.float64)).abs().max())
    return Theorem6Search(
        list(sizes), pairs, list(cands), results, search, one_by_one, J_err
    )


@dataclass(frozen=True)
class DeterminantStudy:
    """:class:`DeterminantTest` of PSD and of general Gaussian pairs per size, with the smallest
    Minkowski margin of the PSD pairs (NaN for the general ones)."""

    rows: list[tuple[DeterminantTest, float]]
    sizes: list[int]

    def table(self) -> str:
        head = (
            # no bare '|' inside the math: it would split the table's cells
            "| family | $n$ | pairs | super-additivity violations | max $\\lvert\\log\\lvert\\det "
            "AB\\rvert-\\log\\lvert\\det A\\rvert-\\log\\lvert\\det B\\rvert\\rvert$ | min "
            "Minkowski margin |\n"
            "|---|---|---|---|---|---|\n"
        )
        return head + "\n".join(
            f"| {d.family} | {d.n} | {d.pairs} | {d.super_additive_violations} | "
            f"{d.multiplicative_max_log_error:.1e} | "
            + ("" if math.isnan(m) else f"{m:.2e}")
            + " |"
            for d, m in self.rows
        )

    def check(self) -> dict:
        fam = {
            f: [d for d, _ in self.rows if d.family == f] for f in ("PSD", "general")
        }
        return dict(
            psd_sizes=self.sizes,
            psd_viol=sum(d.super_additive_violations for d in fam["PSD"]),
            gen_viol=sum(d.super_additive_violations for d in fam["general"]),
            gen_pairs=sum(d.pairs for d in fam["general"]),
            mult_err=max(d.multiplicative_max_log_error for d, _ in self.rows),
        )


def determinant_study(
    sizes: list[int], pairs: int, g: torch.Generator
) -> DeterminantStudy:
    """For each n: ``pairs`` PSD pairs X X^T / n (X of size n x 2n) and ``pairs`` Gaussian pairs."""
    rows = []
    for n in sizes:
        X, Y = random_psd(pairs, n, g, rank=2 * n), random_psd(pairs, n, g, rank=2 * n)
        rows.append(
            (determinant_test("PSD", X, Y), float(minkowski_margin(X, Y).min()))
        )
        G1 = torch.randn(pairs, n, n, dtype=torch.float64, generator=g)
        G2 = torch.randn(pairs, n, n, dtype=torch.float64, generator=g)
        rows.append((determinant_test("general", G1, G2), float("nan")))
    return DeterminantStudy(rows, list(sizes))


# ---- Theorem 6 proved for every fixed size n >= 2: the rank-2 projector argument -----------


def rank2_projector(n: int, i: int, j: int) -> torch.Tensor:
    """P = e_i e_i^T + e_j e_j^T (i != j): the orthogonal projector on two coordinates, P P = P."""
    if i == j or not (0 <= i < n and 0 <= j < n):
        raise ValueError(f"need 0 <= i != j < n, got i = {i}, j = {j}, n = {n}")
    P = torch.zeros(n, n, dtype=torch.float64)
    P[i, i] = P[j, j] = 1.0
    return P


def rank2_rotation(n: int, i: int, j: int) -> torch.Tensor:
    """K = e_i e_j^T - e_j e_i^T, a quarter turn in the (i, j) plane: K K = -P (:func:`rank2_projector`).

    Unlike the proof's J (J J = -I), K exists for every n >= 2, odd sizes included."""
    P = rank2_projector(n, i, j)  # validates i, j
    K = torch.zeros_like(P)
    K[i, j], K[j, i] = 1.0, -1.0
    return K


def rank2_identities_sympy(n: int) -> dict:
    """Exact (sympy) check, for every pair i < j of an n x n size, of the identities the proof uses:
    P^2 = P, K^2 = -P, P E_i = E_i (E_i = e_i e_i^T, so P E_i A = E_i A for every A), and
    sum_i E_i = I. Returns the number of pairs and whether every identity holds."""
    import sympy as sp

    E = [sp.zeros(n, n) for _ in range(n)]
    for i in range(n):
        E[i][i, i] = 1
    ok, pairs = sum(E, sp.zeros(n, n)) == sp.eye(n), 0
    for i in range(n):
        for j in range(i + 1, n):
            P = E[i] + E[j]
            K = sp.zeros(n, n)
            K[i, j], K[j, i] = 1, -1
            ok &= P * P == P and K * K == -P and P * E[i] == E[i] and P * E[j] == E[j]
            pairs += 1
    return dict(n=n, pairs=pairs, holds=bool(ok))


def proof_margins(f: Fn, A: torch.Tensor) -> tuple[list[str], torch.Tensor]:
    """The inequalities of the rank-2 proof of Theorem 6 for f at each A (S, n, n), n >= 2, as margins
    lhs - rhs (each must be >= 0 if f is super-additive and super-multiplicative), with their labels.

    With E_i = e_i e_i^T, P = E_i + E_j, K K = -P (j = i + 1 mod n):
    f(0) >= 2 f(0) and f(0) >= f(0)^2 give f(0) = 0; f(P) >= f(P)^2 >= 0, f(-P) = f(KK) >= f(K)^2 >= 0
    and 0 = f(0) >= f(P) + f(-P) give f(P) = f(-P) = 0; f(E_i A) = f(P E_i A) >= f(P) f(E_i A) = 0;
    f(A) >= sum_i f(E_i A) >= 0 (super-additivity over the rows), likewise f(-A) >= 0; and
    0 >= f(A) + f(-A). So if no margin is negative, f(A) = 0."""
    S, n = A.shape[0], A.shape[-1]
    if n < 2:
        raise ValueError("the rank-2 argument needs n >= 2")
    Z = torch.zeros_like(A)
    labels, margins = [], []

    def add(label, X, Y):
        labels.append(f"add {label}")
        margins.append(f(X + Y) - f(X) - f(Y))

    def mul(label, X, Y):
        labels.append(f"mul {label}")
        margins.append(f(X @ Y) - f(X) * f(Y))

    add("(0, 0)", Z, Z)
    mul("(0, 0)", Z, Z)
    rows = [torch.zeros_like(A) for _ in range(n)]
    for i in range(n):
        j = (i + 1) % n
        P = rank2_projector(n, i, j).to(A.dtype).expand(S, n, n)
        K = rank2_rotation(n, i, j).to(A.dtype).expand(S, n, n)
        rows[i][:, i] = A[:, i]
        mul(f"(P{i}{j}, P{i}{j})", P, P)
        mul(f"(K{i}{j}, K{i}{j})", K, K)
        add(f"(P{i}{j}, -P{i}{j})", P, -P)
        for s in (1, -1):
            mul(f"(P{i}{j}, {'+' if s > 0 else '-'}E{i} A)", P, s * rows[i])
    for s in (1, -1):
        partial = s * rows[0]
        for k in range(1, n):
            add(
                f"(rows < {k}, row {k}) of {'+' if s > 0 else '-'}A",
                partial,
                s * rows[k],
            )
            partial = partial + s * rows[k]
    add("(A, -A)", A, -A)
    return labels, torch.stack(margins, -1)


@dataclass(frozen=True)
class ProofCertificate:
    """Per candidate and size: how many test matrices have f(A) != 0 (``nonzero``) and, of those, how
    many the proof refutes, i.e. one of its inequalities fails at A (``refuted``), with the
    inequality that fails most often (``first``)."""

    rows: list[
        tuple[str, int, int, int, str]
    ]  # (candidate, n, nonzero, refuted, most often)

    def table(self) -> str:
        """Markdown, one row per candidate: refuted / nonzero per size, and the inequality that
        fails most often at the largest size."""
        sizes = sorted({n for _, n, _, _, _ in self.rows})
        cell = {(c, n): (z, r, w) for c, n, z, r, w in self.rows}
        names = list(dict.fromkeys(c for c, _, _, _, _ in self.rows))
        head = (
            "| candidate $f$ | "
            + " | ".join(f"$n={n}$" for n in sizes)
            + f" | failing most often ($n={sizes[-1]}$) |\n|"
            + "---|" * (len(sizes) + 2)
            + "\n"
        )
        return head + "\n".join(
            f"| {c.replace('|', chr(92) + '|')} | "
            + " | ".join(f"{cell[c, n][1]} / {cell[c, n][0]}" for n in sizes)
            + f" | {cell[c, sizes[-1]][2]} |"
            for c in names
        )

    def check(self) -> dict:
        return dict(
            cases=sum(z for _, _, z, _, _ in self.rows),
            certified=sum(r for _, _, _, r, _ in self.rows),
        )


def proof_certificate(
    sizes: list[int], samples: int, g: torch.Generator, rtol: float = 1e-9
) -> ProofCertificate:
    """Every candidate of :func:`candidate_functions` on ``samples`` Gaussian matrices plus I, -I, 2I
    of each size n >= 2: the proof says f(A) != 0 forces a negative margin in :func:`proof_margins`."""
    rows = []
    for n in [m for m in sizes if m >= 2]:
        eye = torch.eye(n, dtype=torch.float64)
        A = torch.cat(
            [
                torch.stack([eye, -eye, 2 * eye]),
                torch.randn(samples, n, n, dtype=torch.float64, generator=g),
            ]
        )
        for name, f in candidate_functions().items():
            fA = f(A)
            nz = fA.abs() > 1e-9
            labels, m = proof_margins(f, A)
            bad = m < -rtol * (1 + fA.abs()[:, None])
            refuted = bad.any(-1) & nz
            counts = bad[nz].sum(0)
            most = labels[int(counts.argmax())] if int(nz.sum()) else "-"
            rows.append((name, n, int(nz.sum()), int(refuted.sum()), most))
    return ProofCertificate(rows)
