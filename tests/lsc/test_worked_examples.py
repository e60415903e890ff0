"""Every worked example Herranz-Celotti & Rouat print, rebuilt from the paper's own words and
compared entry by entry (issue 52, item 15): the matrices J with J J = -I of the proof of
Theorem 6 (App. D), against the package's. (The proof's complex J = iI is a fact of
arithmetic the package does not build, so no test repeats it.) The paper's other numbers (Fig. 1b's regimes, Lemma 1, the PascalRNN of
Fig. 1c) are claims the chapters check, not printed examples."""

import numpy as np
import pytest

from rnnbook.lsc import antinorms


def test_theorem6_real_j_for_even_m_squares_to_minus_identity():
    """ "When m is even we can construct a matrix that satisfies -I = JJ by having all the
    elements in the upper anti-diagonal equal to 1 and all the elements in the lower
    anti-diagonal equal to -1"; typed for m = 2 and m = 4, built for m up to 10, and the
    package's J (``antinorms.square_root_of_minus_identity``) is that matrix."""
    printed = {
        2: np.array([[0, 1], [-1, 0]]),
        4: np.array([[0, 0, 0, 1], [0, 0, 1, 0], [0, -1, 0, 0], [-1, 0, 0, 0]]),
    }
    for m in (2, 4, 6, 8, 10):
        J = np.zeros((m, m), dtype=int)
        for i in range(m):
            J[i, m - 1 - i] = 1 if i < m // 2 else -1
        if m in printed:
            assert np.array_equal(J, printed[m])
        built = antinorms.square_root_of_minus_identity(m).numpy()  # the package's J
        assert np.array_equal(built, J), m
        assert np.array_equal(built @ built, -np.eye(m)), m
    # and none exists for odd m: det(J)^2 = det(-I) = -1 has no real solution
    for m in (1, 3, 5):
        with pytest.raises(ValueError, match="only for even n"):
            antinorms.square_root_of_minus_identity(m)
