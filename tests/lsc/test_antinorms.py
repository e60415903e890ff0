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
