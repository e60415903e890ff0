"""The numbering of the L = 2 path bases by natural numbers (Chizat et al., Sec. 6.2), and the
matrices A_1, A_2 of (6.5) in that numbering, rebuilt from the paper's own definitions.

For L = 2 a path s = (s_0, ..., s_M) of Sec. 6.1 has s_j = 1 at every odd j and s_j in {0, 2} at
every even j, so its even entries are binary digits. The paper numbers the paths that end at layer
l (with sigma = floor(M/2))::

    N_0(s) = 2^sigma     + sum_{i=1..sigma} 2^(i-2) s_{2(sigma-i)}
    N_1(s) = 2^(sigma+1) + sum_{i=0..sigma} 2^(i-1) s_{2(sigma-i)}
    N_2(s) = 2^sigma     + sum_{i=1..sigma} 2^(i-2) s_{2(sigma-i)}

and writes Psi^l_j for the basis vector of the path numbered j. The shifts (6.8) are those of
:func:`rnnbook.infinite_width.multilayer_limit.shift` (a path ending at l-1 gains the move to l;
one that came to l-1 from l also loses that move); (6.4) reads Z_l Psi^{l-1} / sqrt(m) =
Psi^l A_l, so the entry (i, j) of A_l is the coefficient of Psi^l_i in the image of Psi^{l-1}_j.
"""

from __future__ import annotations

import numpy as np

from .multilayer_limit import path_basis, shift


def path_number(s: tuple[int, ...], l: int) -> int:
    """N_l(s) of Sec. 6.2 for a path ``s`` = (s_0, ..., s_M) of the L = 2 bases ending at
    layer ``l``."""
    if l not in (0, 1, 2) or s[-1] != l:
        raise ValueError(f"path {s} does not end at layer {l} of L = 2")
    sigma = (len(s) - 1) // 2
    if l == 1:
        return 2 ** (sigma + 1) + sum(
            2.0 ** (i - 1) * s[2 * (sigma - i)] for i in range(0, sigma + 1)
        )
    return 2**sigma + sum(
        2.0 ** (i - 2) * s[2 * (sigma - i)] for i in range(1, sigma + 1)
    )


def numbered_paths(l: int, max_len: int) -> dict[int, tuple]:
    """The L = 2, d = 1 paths of at most ``max_len`` moves ending at layer ``l``, by their
    number N_l."""
    basis = path_basis(1, 2, max_len)
    out = {}
    for p in basis.paths[l]:
        n = path_number(p[1:], l)
        if n in out or n != int(n):
            raise AssertionError(f"N_{l} is not a numbering: {p[1:]} and {out.get(n)}")
        out[int(n)] = p[1:]
    return out


def numbered_shift(l: int, size: int, max_len: int = 12) -> np.ndarray:
    """A_l of (6.4) in the paper's numbering, its rows and columns 1..``size`` (row and column
    ``k - 1`` of the array hold the number ``k``; a number that names no path, such as 1 for
    layer 1, has a zero row or column)."""
    basis = path_basis(1, 2, max_len)
    S = shift(basis, l)
    out = np.zeros((size, size))
    for j, p in enumerate(basis.paths[l - 1]):
        nj = int(path_number(p[1:], l - 1))
        if nj > size:
            continue
        for i, q in enumerate(basis.paths[l]):
            ni = int(path_number(q[1:], l))
            if ni <= size and S[i, j]:
                out[ni - 1, nj - 1] = S[i, j]
    return out
