"""chi of Eqs. (4) and (9) against the slope of the cosine maps (rnnbook.mean_field.linearisation)."""

import numpy as np

from rnnbook.mean_field import linearisation, theory


def test_vanilla_chi_matches_the_slope_within_the_quadrature_error():
    err, tol = linearisation.vanilla_slope_error(theory.HP(np.array([0.8, 2.0]), 0.5))
    assert 0 <= err < tol < 1e-3


def test_printed_eq9_fails_only_with_bias_noise():
    check = linearisation.minimal_slope_check(mu_b=(0.0, 3.0), c=(0.5,))
    v = check.values()
    assert v["printed_err_sb0"] < v["fd_tol"] and v["derived_err"] < v["fd_tol"]
    assert v["printed_err_sb"] > 10 * v["fd_tol"]
    table = check.table(row=0)
    assert table.count("\n") == 1 + 4  # header, rule and the (sigma_b, Sigma) pairs
