"""The size of an exact truncation of the limit model (Sec. 2.5, footnote 5)."""

from rnnbook.infinite_width import limit, truncation
from rnnbook.infinite_width.regression import gaussian_regression


def test_measured_support_matches_the_formula(data):
    s = truncation.measured_support(data, 0.3, steps=8)
    assert s.formula_ok and len(s.rows) == 9
    assert s.paper_fail == [0, 1, 2]  # a_0 = d > 0, a_1 = d + 1 > d, a_2 = 2d + 1 > 2d
    assert "| paper $d\\cdot k$ ($d=4$) |" in s.table()


def test_exactness_beyond_the_support(data):
    e = truncation.exactness(data, 0.1, steps=(1, 2, 5))
    assert [k for k, _, _ in e.rows] == [1, 2, 5]
    for _, _, df in e.rows:  # beyond a_k: equal up to the summation order of the BLAS
        assert df[1] < 1e-15 and df[50] < 1e-15 and df[-1] > 1e-10
    assert e.below_differs and e.table().count("\n") == 4
    exact = truncation.Exactness([(1, 5, {-1: 0.1, 1: 0.0, 50: 0.0})])
    assert exact.beyond_exact
    assert not truncation.Exactness([(1, 5, {-1: 0.1, 1: 1e-19, 50: 0.0})]).beyond_exact


def test_truncation_errors_fall_to_rounding():
    """The set-up of the chapter at its smoke size: the error falls by many decades in N."""
    data = gaussian_regression(10, 5, 0, x_std=10**-0.5)
    tau, steps, used = 0.2, 100, 60
    lim = limit.train(data, tau, steps, N=used)
    te = truncation.truncation_errors(data, tau, steps, used, lim)
    assert te.N == list(range(12, 61, 4)) and te.N_ref == 120
    assert te.used_error == te.errors[-1] < 1e-14
    assert te.errors[0] > 1e-3 and te.errors[len(te.N) // 2] < 1e-9
