"""Theorem 6 and the determinant (antinorms) on hand-made and random matrices."""

import pytest
import torch

from rnnbook.lsc import antinorms as an


@pytest.mark.parametrize("n", [2, 4, 6, 10])
def test_square_root_of_minus_identity(n):
    J = an.square_root_of_minus_identity(n)
    torch.testing.assert_close(J @ J, -torch.eye(n, dtype=torch.float64))


def test_no_real_J_for_odd_n():
    with pytest.raises(ValueError, match="even"):
        an.square_root_of_minus_identity(3)


def test_property_counts_on_hand_made_pairs():
    A = torch.eye(2, dtype=torch.float64).expand(1, 2, 2)
    B = torch.diag(torch.tensor([-3.0, 1.0], dtype=torch.float64)).expand(1, 2, 2)
    det = an.check_properties("det", torch.linalg.det, A, B)
    # det(A+B) = -4 < det A + det B = 1 - 3 = -2: super-additivity fails; det is multiplicative
    assert (
        det.super_additive_violations == 1 and det.super_multiplicative_violations == 0
    )
    tr = an.check_properties(
        "trace", lambda M: torch.diagonal(M, dim1=-2, dim2=-1).sum(-1), A, A
    )
    # trace(I I) = 2 < trace(I)^2 = 4
    assert tr.super_additive_violations == 0 and tr.super_multiplicative_violations == 1


def test_no_candidate_survives_for_n2_but_identity_does_for_n1():
    g = torch.Generator().manual_seed(0)
    A, B = an.test_matrices(2, 300, g)
    for name, f in an.candidate_functions().items():
        assert not an.check_properties(name, f, A, B).counterexample, name
    assert an.random_combination_search(2, 200, A, B, g)[0] == 0
    assert an.identity_1x1_counterexample(300, g).counterexample


def test_determinant_on_psd_and_general():
    g = torch.Generator().manual_seed(1)
    X, Y = an.random_psd(500, 4, g, rank=8), an.random_psd(500, 4, g, rank=8)
    psd = an.determinant_test("PSD", X, Y)
    assert (
        psd.super_additive_violations == 0 and psd.multiplicative_max_log_error < 1e-9
    )
    assert float(an.minkowski_margin(X, Y).min()) >= -1e-12
    G1 = torch.randn(500, 4, 4, dtype=torch.float64, generator=g)
    G2 = torch.randn(500, 4, 4, dtype=torch.float64, generator=g)
    gen = an.determinant_test("general", G1, G2)
    assert (
        gen.super_additive_violations > 100 and gen.multiplicative_max_log_error < 1e-8
    )


def test_theorem6_search_finds_only_the_1x1_identity():
    g = torch.Generator().manual_seed(0)
    s = an.theorem6_search([1, 2, 3], 50, 40, g)
    v = s.check()
    assert v["found"] == 0 and v["combos_passed"] == 0 and v["identity_counterexample"]
    assert (v["candidates"], v["combo_draws"], v["id_pairs"]) == (12, 40, 50)
    assert v["J_err"] == 0.0 and set(s.J_err) == {2, 4, 6, 8}
    # for n = 1 the candidates that reduce to the identity pass both properties (bold)
    assert s.results[1, "trace"].counterexample and "**0 / 0**" in s.table()
    assert s.table().count("\n") == 2 + 1 + 12 + 1 and "max|JJ+I|" in s.j_text()


def test_determinant_study():
    g = torch.Generator().manual_seed(0)
    d = an.determinant_study([2, 3], 100, g)
    assert [(r.family, r.n) for r, _ in d.rows] == [
        ("PSD", 2),
        ("general", 2),
        ("PSD", 3),
        ("general", 3),
    ]
    v = d.check()
    assert v["psd_viol"] == 0 and v["gen_viol"] > 0 and v["gen_pairs"] == 200
    assert v["mult_err"] < 1e-8 and d.table().count("\n") == 1 + 4
    # every row as many cells as the header: no bare '|' inside the header's math
    assert len({row.count("|") for row in d.table().splitlines()}) == 1
    assert all(m >= -1e-12 for r, m in d.rows if r.family == "PSD")  # Minkowski


@pytest.mark.parametrize("n", [2, 3, 5])
def test_rank2_quarter_turn_squares_to_minus_projector(n):
    for i in range(n):
        for j in range(n):
            if i == j:
                continue
            P, K = an.rank2_projector(n, i, j), an.rank2_rotation(n, i, j)
            torch.testing.assert_close(P @ P, P)
            torch.testing.assert_close(K @ K, -P)
            assert int(torch.linalg.matrix_rank(P)) == 2
    with pytest.raises(ValueError):
        an.rank2_projector(n, 1, 1)


def test_rank2_identities_sympy():
    d = an.rank2_identities_sympy(4)
    assert d == dict(n=4, pairs=6, holds=True)


def test_proof_margins_zero_function_and_a_refuted_candidate():
    g = torch.Generator().manual_seed(0)
    A = torch.randn(20, 3, 3, dtype=torch.float64, generator=g)
    labels, m = an.proof_margins(lambda M: torch.zeros(M.shape[:-2], dtype=M.dtype), A)
    # 2 (zero) + 3 rows x 5 + 2 x 2 partial sums + 1 (A, -A)
    assert m.shape == (20, len(labels)) == (20, 2 + 15 + 4 + 1)
    assert float(m.abs().max()) == 0.0
    # f = a_11: step 2 fails, f(-P) = -1 < f(K)^2 = 0
    labels, m = an.proof_margins(lambda M: M[..., 0, 0], A)
    k = labels.index("mul (K01, K01)")
    torch.testing.assert_close(m[:, k], torch.full((20,), -1.0, dtype=torch.float64))
    with pytest.raises(ValueError, match="n >= 2"):
        an.proof_margins(lambda M: M[..., 0, 0], A[:, :1, :1])


def test_proof_margins_vanish_where_the_properties_hold():
    # on diagonal matrices with nonnegative entries, f = min_i a_ii is super-additive and
    # super-multiplicative, so the margins of the pairs that stay in that cone are >= 0
    f = an.candidate_functions()["min_i a_ii"]
    D = torch.diag_embed(torch.rand(10, 3, dtype=torch.float64))
    labels, m = an.proof_margins(f, D)
    keep = [
        i for i, s in enumerate(labels) if "P" in s and "K" not in s and "-" not in s
    ]
    assert float(m[:, keep].min()) >= -1e-12


def test_proof_certificate_refutes_every_nonzero_candidate():
    g = torch.Generator().manual_seed(2)
    c = an.proof_certificate([1, 2, 3], 10, g)
    v = c.check()
    assert v["cases"] > 0 and v["certified"] == v["cases"]
    assert {n for _, n, _, _, _ in c.rows} == {2, 3}  # n = 1 has no K
    assert c.table().count("\n") == 1 + 12 and "\\|det\\|" in c.table()


def test_combination_search_in_chunks_counts_the_same():
    A, B = an.test_matrices(1, 50, torch.Generator().manual_seed(1))
    Z = torch.zeros(
        5, 1, 1, dtype=torch.float64
    )  # f(0) = 0 for every candidate: all pass
    for X, Y, expect in ((A, B, None), (Z, Z, 300)):
        counts = [
            an.random_combination_search(
                1, 300, X, Y, torch.Generator().manual_seed(2), chunk=k
            )
            for k in (7, 300)
        ]
        assert counts[0] == counts[1]
        assert expect is None or counts[0][0] == expect
