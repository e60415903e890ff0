"""The regression data of Sec. 2.5 and its risk."""

import numpy as np
import pytest

from rnnbook.infinite_width import regression


def test_xi_is_the_gradient_of_the_risk(data):
    lam = np.random.default_rng(0).standard_normal(data.d)
    eps = 1e-6
    num = [
        (data.risk(lam + eps * e) - data.risk(lam - eps * e)) / (2 * eps)
        for e in np.eye(data.d)
    ]
    np.testing.assert_allclose(data.xi(lam), num, atol=1e-8)


def test_sum_normalisation_scales_the_risk_by_n():
    mean = regression.gaussian_regression(4, 3, seed=1)
    total = regression.gaussian_regression(4, 3, seed=1, normalisation="sum")
    lam = np.ones(4)
    assert total.risk(lam) == pytest.approx(3 * mean.risk(lam))
    np.testing.assert_allclose(total.M, 3 * mean.M)


def test_min_norm_is_pinv_and_interpolates(data):
    lam_hat = data.min_norm()
    assert data.risk(lam_hat) < 1e-25
    np.testing.assert_allclose(lam_hat, np.linalg.lstsq(data.X, data.y, rcond=None)[0])


def test_input_std_and_bad_arguments():
    assert regression.input_std(16, "scaled") == 0.25
    assert regression.input_std(16, "unit") == 1.0
    with pytest.raises(ValueError, match="inputs"):
        regression.input_std(4, "tiny")
    with pytest.raises(ValueError, match="normalisation"):
        regression.Regression(
            X=np.ones((2, 2)), y=np.ones(2), lam_star=np.ones(2), normalisation="median"
        )
    with pytest.raises(ValueError, match="positive"):
        regression.gaussian_regression(0, 3, seed=0)
