"""Lemma 2 and the path counts against brute force: explicit graph search, enumeration, exact integers."""

import math
from functools import lru_cache
from math import comb

import numpy as np
import pytest
import torch

from rnnbook.lsc import gradient_paths as gp


def graph_paths(T, L, convention):
    """Count paths (T, L) -> (t, l) by depth-first recursion over the graph's edges (no binomials)."""

    def parents(t, l):
        if l == 0:
            return []  # the input has no incoming edge
        out = [(t - 1, l)] if t >= 1 else []
        if convention == "eq1":
            out += [(t - 1, l - 1)] if t >= 1 else []
        else:
            out += [(t, l - 1)]
        return out

    @lru_cache(maxsize=None)
    def count(t, l, target):
        if (t, l) == target:
            return 1
        return sum(count(a, b, target) for a, b in parents(t, l))

    return np.array(
        [[count(T, L, (t, l)) for l in range(L + 1)] for t in range(T + 1)], dtype=float
    )


def test_sympy_steps_are_proven():
    assert all(s.proven for s in gp.lemma2_steps())
    assert all(s.proven for s in gp.eq1_sum_steps())


def test_identity_by_brute_force():
    for T in range(1, 15):
        for dl in range(0, 8):
            assert (
                gp.lemma2_sum_bruteforce(T, dl)
                == gp.paper_total(T, dl)
                == comb(T + dl + 2, T)
            )


def test_grid_counts():
    P = gp.grid_paths_dp(8, 6)
    for a in range(9):
        for b in range(7):
            assert P[a, b] == comb(a + b, a)
            if a + b <= 10:
                assert gp.enumerate_grid_paths(a, b) == P[a, b]


@pytest.mark.parametrize("convention", gp.CONVENTIONS)
def test_autograd_counts_equal_graph_search(convention):
    T, L = 7, 4
    np.testing.assert_array_equal(
        gp.autograd_path_counts(T, L, convention), graph_paths(T, L, convention)
    )


def test_eq1_count_is_binom_dt_dl_and_stacked_is_paper():
    T, L = 9, 5
    A1, A2 = (
        gp.autograd_path_counts(T, L, "eq1"),
        gp.autograd_path_counts(T, L, "stacked"),
    )
    for t in range(T + 1):
        for l in range(1, L + 1):
            assert A1[t, l] == comb(T - t, L - l)
            assert A2[t, l] == comb((T - t) + (L - l), T - t)


def test_lemma2_sums_on_both_graphs():
    T, L = 10, 5
    S1, S2 = (
        gp.autograd_lemma2_sums(T, L, "eq1"),
        gp.autograd_lemma2_sums(T, L, "stacked"),
    )
    for l in range(1, L + 1):
        assert S1[l] == gp.eq1_total(T, L - l)
        assert S2[l] == gp.paper_total(T, L - l)


def test_pascal_rnn_forward_and_errors():
    x = torch.tensor([1.0, 0.0, 0.0, 0.0], dtype=torch.float64)
    h = gp.pascal_rnn(x, 3, 0.5, "eq1")
    # an impulse at t=0 reaches layer l at time l with weight 0.5^l, and stays in the layer with weight 0.5
    assert float(h[3, 3]) == pytest.approx(0.5**3)
    with pytest.raises(ValueError, match="convention"):
        gp.pascal_rnn(x, 3, 0.5, "diagonal")
    with pytest.raises(ValueError, match="L ="):
        gp.pascal_rnn(x, 0, 0.5)


def test_is_convention():
    assert gp.is_convention("eq1") and gp.is_convention("stacked")
    assert not gp.is_convention("diagonal")


def test_sum_steps_render_with_their_difference():
    s28, _ = gp.lemma2_steps()
    text = s28.latex(r"\quad\text{vs paper}\quad ", "(28)")
    assert text.endswith(r"\text{difference: }0\quad(28)") and r"\sum" in text
    assert r"\quad(" not in gp.eq1_sum_steps()[0].latex()


def test_identity_and_enumeration_checks():
    v = gp.identity_check(6, 3)
    assert v["proven"] and v["mismatches"] == 0 and v["pairs"] == 6 * 4
    assert (v["d28"], v["d29"]) == ("0", "0")
    e = gp.enumeration_check(4)
    assert e == dict(mismatches=0, grids=15, enum_max=4)


def test_graph_counts_check_and_table():
    c = gp.graph_counts(6, 3)
    v = c.check()
    assert v["cells"] == 7 * 3 and v["stacked_vs_paper"] == 0
    assert v["eq1_as_formula"] == v["cells"]
    # only Delta l = 0 (and Delta t = 0 at Delta l = 0) agree with the paper on Eq. (1)
    expected = sum(
        comb(dt, L - l) != comb(dt + L - l, dt)
        for dt in range(7)
        for l, L in [(1, 3), (2, 3), (3, 3)]
    )
    assert v["eq1_vs_paper"] == expected
    rows = c.table(rows=2).split("\n")
    assert len(rows) == 2 + 3 and rows[2].startswith("| 0 | [1, 0, 0]")


def test_lemma2_sums_check_and_table():
    s = gp.lemma2_sums(8, 4)
    v = s.check()
    assert v["eq1_ok"] and v["stacked_ok"] and v["rows"] == 4 and v["dl_top"] == 3
    assert v["eq1_paper"] == 1  # only Delta l = 0
    assert s.dl == [0, 1, 2, 3] and s.paper[0] == comb(8 + 2, 8)
    assert s.table().count("\n") == 2 + 3 + 2


def test_corrected_regimes_reach_the_entropy_limit():
    """Regime (iii) of the Eq. (1) count: log binom(T + 2, T/k + 2) grows by H(1/k) per time
    step as T -> oo; the gap of the exact counts to the limit shrinks tenfold per decade."""
    r = gp.corrected_regimes(ratio=100, dl_fixed=5)
    assert abs(r["poly_deg"] - 7) < 0.05 and abs(r["rate"] - r["entropy"]) < 1e-3
    k, gaps = 100, []
    for T in (1000, 10_000, 100_000):
        slope = (log_count(2 * T, k) - log_count(T, k)) / T
        gaps.append(abs(slope - r["entropy"]))
    assert gaps[0] > 3 * gaps[1] > 9 * gaps[2]


def log_count(T, k):
    """log binom(T + 2, T/k + 2) from the exact integer (math.log takes big integers)."""
    return math.log(comb(T + 2, T // k + 2))
