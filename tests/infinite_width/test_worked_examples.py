"""Every worked example Chizat et al. print, rebuilt from the paper's own definitions and compared
entry by entry with the printed values (issue 52, item 15). Sec. 2.3 (the matrix (2.9), L = 1) and
Sec. 6 (the path bases of Sec. 6.1 and their numbering for L = 2 in Sec. 6.2, with the matrices
A_1 and A_2). The paper's text is an OCR of the PDF: the printed values below were typed from the
rows it renders legibly and from the printed formula each matrix comes with."""

import numpy as np

from rnnbook.infinite_width.limit import shift_matrix
from rnnbook.infinite_width.multilayer_limit import (
    MultiLimitState,
    path_basis,
    predictor,
)
from rnnbook.infinite_width.path_numbers import (
    numbered_paths,
    numbered_shift,
    path_number,
)

# Sec. 6.2, as printed: (A_1)_ij = 1 if i = j or 2i = j; (A_2)_ij = 1 if i = j or 2i + 1 = j,
# with their leading 4 x 9 blocks
A1_PRINTED = np.array(
    [
        [1, 1, 0, 0, 0, 0, 0, 0, 0],
        [0, 1, 0, 1, 0, 0, 0, 0, 0],
        [0, 0, 1, 0, 0, 1, 0, 0, 0],
        [0, 0, 0, 1, 0, 0, 0, 1, 0],
    ]
)
A2_PRINTED = np.array(
    [
        [1, 0, 1, 0, 0, 0, 0, 0, 0],
        [0, 1, 0, 0, 1, 0, 0, 0, 0],
        [0, 0, 1, 0, 0, 0, 1, 0, 0],
        [0, 0, 0, 1, 0, 0, 0, 0, 1],
    ]
)


def test_the_printed_a1_a2_blocks_are_their_printed_formulas():
    i, j = np.meshgrid(np.arange(1, 5), np.arange(1, 10), indexing="ij")
    assert (A1_PRINTED == ((i == j) | (2 * i == j))).all()
    assert (A2_PRINTED == ((i == j) | (2 * i + 1 == j))).all()


def test_sec23_matrix_29_for_d_1_and_d_2():
    """(2.9): A_ij = 1 iff i + d = j or j + 1 = i; printed for d general as a band with the
    d-th superdiagonal and the first subdiagonal."""
    for d in (1, 2):
        S = shift_matrix(6, d)
        for i in range(6):
            for j in range(6):
                assert S[i, j] == float(i + d == j or j + 1 == i)


def test_sec61_for_l_1_the_paths_alternate_and_are_named_by_their_length():
    """Sec. 6.1: "when L = 1, the sequences in S^1(0) (and analogously in S^1(1)) are just of
    the form 0101...0 or 1010...0, and can be identified with their length"."""
    basis = path_basis(1, 1, 9)
    for layer in (0, 1):
        lengths = [len(p) - 1 for p in basis.paths[layer]]
        assert len(set(lengths)) == len(lengths)  # one path per length
        for p in basis.paths[layer]:
            s = p[1:]
            assert all(a != b for a, b in zip(s, s[1:])) and s[-1] == layer


def test_sec62_the_numbering_is_one_to_one_as_printed():
    """Sec. 6.2: N_0, N_1, N_2 number S^2(0), S^2(1), S^2(2) by the natural numbers (the
    even entries read as binary digits); N_1 starts at 2, N_0 and N_2 at 1."""
    for layer, first in ((0, 1), (1, 2), (2, 1)):
        numbers = sorted(numbered_paths(layer, 9))
        assert numbers[: 2**4 - first] == list(range(first, 2**4))
    assert path_number((0,), 0) == 1 and path_number((2,), 2) == 1
    assert path_number((0, 1), 1) == 2 and path_number((2, 1), 1) == 3
    assert path_number((2, 1, 0, 1, 0), 0) == 6 and path_number((0, 1, 2, 1), 1) == 5


def test_sec62_the_shifts_in_the_numbering_are_the_relations_610_to_613():
    """(6.10)-(6.13) as the paper's numbering gives them: Z_1 Psi^0_j = Psi^1_j + Psi^1_2j,
    Z_1^T Psi^1_j = Psi^0_j (+ Psi^0_j/2 for even j), Z_2 Psi^1_j = Psi^2_j (+ Psi^2_(j-1)/2
    for odd j), Z_2^T Psi^2_j = Psi^1_j + Psi^1_2j+1 (no Psi^1_1 exists)."""
    R1, R2 = numbered_shift(1, 40), numbered_shift(2, 40)
    for j in range(1, 20):
        assert set(np.flatnonzero(R1[:, j - 1]) + 1) == {j, 2 * j} - {1}
        assert set(np.flatnonzero(R2[j - 1, :]) + 1) == {j, 2 * j + 1} - {1}
    for j in range(2, 20):
        want = {j} | ({j // 2} if j % 2 == 0 else set())
        assert set(np.flatnonzero(R1[j - 1, :]) + 1) == want
        want = {j} | ({(j - 1) // 2} if j % 2 == 1 else set())
        assert set(np.flatnonzero(R2[:, j - 1]) + 1) == want


def test_sec62_printed_a2_is_the_definitions_but_a1_is_printed_transposed():
    """Rebuilt from (6.4), (6.8) and the numbering N_l: entry (i, j) of A_l is the coefficient
    of Psi^l_i in Z_l Psi^(l-1)_j / sqrt(m). A_2 as printed agrees entry by entry except (1, 1);
    A_1 as printed agrees with the *transpose* of the rebuilt A_1, again except (1, 1). The two
    printed matrices thus use opposite orientations (an erratum), and both print a 1 at (1, 1),
    where number 1 of layer 1 names no path (N_1 >= 2)."""
    A1, A2 = numbered_shift(1, 9), numbered_shift(2, 9)
    off2 = np.argwhere(A2[:4] != A2_PRINTED) + 1
    assert off2.tolist() == [[1, 1]]
    assert np.argwhere(A1[:4] != A1_PRINTED).size > 2  # not as (6.4) orients it
    off1 = np.argwhere(A1.T[:4] != A1_PRINTED) + 1
    assert off1.tolist() == [[1, 1]]


def test_sec62_the_printed_matrices_taken_literally_start_the_predictor_at_1():
    """The consequence: in (6.5) the predictor is A^T H_1^T H_2^T B with H_l = A_l + G_l and
    starts, from A(0) and B(0) the two vacua (number 1 of layers 0 and 2) and G_l(0) = 0, at 0
    (no path joins the vacua before training). With the printed matrices, in either
    orientation, it starts at 1: their (1, 1) entries join the two vacua directly."""
    e1 = np.eye(9)[:, :1]

    def start(H1, H2):
        st = MultiLimitState(e1.copy(), [np.zeros((9, 9))] * 2, e1[:, 0].copy())
        return float(predictor(st, [H1, H2])[0])

    A1, A2 = numbered_shift(1, 9), numbered_shift(2, 9)
    assert start(A1, A2) == 0.0
    P1, P2 = np.zeros((9, 9)), np.zeros((9, 9))
    P1[:4], P2[:4] = A1_PRINTED, A2_PRINTED
    assert start(P1.T, P2) == 1.0  # A_1 turned to the orientation of (6.4)
    assert start(P1, P2) == 1.0  # both as printed
