"""Lemma 2 and the path counts against brute force: explicit graph search, enumeration, exact integers."""

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
