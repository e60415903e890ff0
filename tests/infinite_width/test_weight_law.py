"""The law of the weights (2.13): analytic moments and laws against Monte Carlo at growing width."""

import numpy as np
import pytest
import torch
from scipy import stats

from rnnbook.infinite_width import deep_linear, limit, weight_law


@pytest.fixture(scope="module")
def moments(data):
    K, tau = 6, 0.1
    return (
        K,
        tau,
        weight_law.weight_moments(limit.train(data, tau, K, keep=(K,)).states[K]),
    )


def test_weights_moments_match_limit(data, moments):
    K, tau, mom = moments
    m = 400
    net = deep_linear.init_mup(m, data.d, 3, seed=2)
    deep_linear.train(net, data, tau, K)
    Ut, Wt, Vt = deep_linear.scale_free(net)
    np.testing.assert_allclose(
        (Ut.transpose(1, 2) @ Ut / m).mean(0).numpy(), mom["UtU"], atol=0.2
    )
    np.testing.assert_allclose(float((Wt**2).mean()), mom["w_sq"], rtol=0.15)
    np.testing.assert_allclose(float((Vt**2).mean()), mom["v_sq"], rtol=0.15)


def test_moment_errors_shrink_like_the_clt(data, moments):
    """Theorem 2.2: the empirical second moments approach the limit's as m grows (16x the
    width, about 1/4 the error); remark (ii): W moves relatively by O(m^(-1/2))."""
    K, tau, mom = moments
    err = {}
    for m in (50, 800):
        net = deep_linear.init_mup(m, data.d, 4, seed=m)
        deep_linear.train(net, data, tau, K)
        err[m] = {k: v.mean() for k, v in weight_law.moment_errors(net, mom).items()}
    for key in ("U", "W", "V", "Wchange"):
        assert err[800][key] < 0.5 * err[50][key], key


@pytest.mark.parametrize("dist", ["uniform", "rademacher", "gaussian"])
def test_v_entry_law_by_sampling(dist):
    B = np.array([0.8, 0.5, -0.3, 0.1])
    law = weight_law.v_entry_law(B, dist)
    rng = np.random.default_rng(0)
    n = 20000
    g = torch.Generator().manual_seed(1)
    x0 = deep_linear.unit_variance((n,), dist, g).numpy()
    sample = B[0] * x0 + np.sqrt(np.sum(B[1:] ** 2)) * rng.standard_normal(n)
    assert stats.kstest(sample, law.cdf).pvalue > 1e-3
    xs = np.linspace(-4, 4, 2001)
    np.testing.assert_allclose(np.gradient(law.cdf(xs), xs), law.pdf(xs), atol=1e-4)


def test_non_gaussian_entries_follow_the_predicted_law(data):
    """Remark (v): uniform initialization, V~(k) non-Gaussian, V~(k) − B_1 V~(0) Gaussian."""
    e = weight_law.non_gaussian_entries(data, 0.1, 3000, 5, "uniform", seed=1)
    assert e.Vk.shape == e.V0.shape == (3000,)
    assert e.normal_V < 1e-6 and e.ks_V > 1e-3
    assert e.normal_resid > 0.01 and e.ks_resid > 0.01
    np.testing.assert_allclose(e.resid.var(), e.sigma_rest**2, rtol=0.1)


def test_excess_kurtosis_path_starts_at_that_of_the_initial_law(data):
    kurt = weight_law.excess_kurtosis_path(data, 0.1, 20, 40, "uniform", points=10)
    assert kurt[0] == pytest.approx(-1.2) and len(kurt) == 11
    assert np.all(kurt < 0)
    assert not np.any(weight_law.excess_kurtosis_path(data, 0.1, 4, 12, "gaussian"))


def test_gaussian_ks():
    x = np.sqrt(2.0) * np.random.default_rng(0).standard_normal(4000)
    assert weight_law.gaussian_ks(x, 2.0) > 0.01
    assert weight_law.gaussian_ks(x, 1.0) < 1e-6
