"""Monte Carlo statistics against the theory (rnnbook.mean_field.monte_carlo)."""

import numpy as np

from rnnbook.mean_field import monte_carlo as mc


def _samples(rng, G=2, K=5, T=4):
    return rng.normal(size=(G, K, T))


def test_mean_se_and_agreement():
    x = _samples(np.random.default_rng(0))
    mean, se = mc.mean_se(x)
    np.testing.assert_allclose(se[1, 2], np.std(x[1, :, 2], ddof=1) / np.sqrt(5))
    th = np.zeros((2, 4))
    a = mc.agreement(x, th)
    np.testing.assert_allclose(a.diff, np.abs(mean))
    assert a.max_z() == np.max(np.abs(mean) / se)
    assert a.max_z(se_floor=10.0) == a.max_diff / 10.0
    assert len(a.rows) == 8 and a.rows[5] == [a.diff[1, 1], a.se[1, 1]]
    r = mc.agreement(x + 2.0, np.full((2, 4), 2.0), relative=True)
    np.testing.assert_allclose(r.diff, np.abs((mean + 2.0) / 2.0 - 1))
    np.testing.assert_allclose(r.se, se / 2.0)


def test_eq2_and_untied_values():
    rng = np.random.default_rng(1)
    th = {"c": np.zeros((2, 4)), "q": np.ones((2, 4))}
    run = {"c": _samples(rng), "q": 1 + 0.1 * _samples(rng)}
    v = mc.eq2_values(th, run, run)
    assert v["max_c_diff"] == v["max_c_diff_tied"]
    assert len(v["c_rows"]) == len(v["q_rows"]) == 8
    u = mc.untied_values(th, run)
    assert len(u["max_diff_per_setting"]) == 2 and u["max_z"] <= v["max_z"]


def test_phase():
    assert list(mc.phase([0.5, 0.995, 1.2])) == ["ordered", "near-critical", "chaotic"]


def test_tied_gap_flags_deviations_beyond_the_noise():
    K, T = 4, 6
    untied = {"c": np.zeros((2, K, T)) + np.linspace(0, 1e-3, K)[None, :, None]}
    tied = {"c": untied["c"].copy()}
    tied["c"][1, :, -1] += 0.5  # the chaotic setting deviates at the last step
    gap = mc.tied_gap(tied, untied, mu_b=[-2.0, 2.0], chi1=[0.8, 1.1])
    assert gap.beyond_noise[0] < 0 < gap.beyond_noise[1]
    v = gap.values()
    assert v["beyond"] == {"-2": 0.0, "2": round(float(gap.beyond_noise[1]), 4)}
    assert v["settings"][1][0] == 1.1 and len(v["settings"][1][1]) == T
    assert "| 2 | 1.1000 | chaotic |" in gap.table()


def test_fixed_point_values_only_test_converged_settings():
    K, T = 3, 30
    theory_c = np.ones((2, T))
    run = {"c": np.ones((2, K, T))}
    v = mc.fixed_point_values(
        theory_c, run, run, cstar=np.ones(2), tau=np.array([1.0, 50.0]), mu_b=[0, 1]
    )
    assert v["mu_b"] == [0] and v["rows"] == [[0.0, 0.0, 0.0]]
    assert list(mc.converged([5.0, 5.1], T=30)) == [True, False]
