"""The μP bookkeeping in sympy: the scale-free updates (2.5) and the limit kernel at init."""

import sympy as sp

from rnnbook.infinite_width import mup_symbolic


def test_scale_free_updates_match_2_5_only_with_the_red_factors():
    r = mup_symbolic.scale_free_updates(m=2, d=2)
    assert r.matches_paper and all(v == 1 for v in r.ratio.values())
    plain = mup_symbolic.scale_free_updates(m=2, d=1, lr=(1, 1, 1))
    m = sp.Symbol("m", positive=True)
    assert not plain.matches_paper
    assert (plain.ratio["U"], plain.ratio["W"], plain.ratio["V"]) == (1 / m, 1, m)
    lines = r.latex_difference()
    assert len(lines) == 3 and all(r"\tilde" in s for s in lines)
    assert r"\frac{1}{m}" in plain.latex_ratio()


def test_limit_kernel_at_init_is_three_identities():
    k = mup_symbolic.limit_kernel_at_init(2)
    assert all(M == sp.eye(2) for M in k.per_layer.values())
    assert k.total == 3 * sp.eye(2)
    assert "R_0" in k.latex()


def test_latex_shift_shows_the_shift_matrix():
    text = mup_symbolic.latex_shift(4, 2)
    assert text.startswith(r"\mathcal A_{4\times 4}(d=2)") and "matrix" in text
