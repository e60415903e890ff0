"""Statistics over seeds (rnnbook.stats)."""

import numpy as np
import pytest

from rnnbook.stats import power_law_fit


def test_power_law_fit_recovers_exponent():
    rng = np.random.default_rng(0)
    x = np.array([10, 20, 40, 80, 160])
    S = 3.0 * x[:, None] ** -0.5 * np.exp(0.05 * rng.standard_normal((5, 40)))
    f = power_law_fit(x, S, seed=1)
    assert abs(f.slope + 0.5) < 0.03 and f.ci95[0] < f.slope < f.ci95[1]
    with pytest.raises(ValueError):
        power_law_fit(x, -S)


def test_seed_interval_covers_the_mean_95_percent_of_the_time():
    """Monte Carlo: over many draws of 4 seeds the t interval holds the true mean ~95% of the time."""
    from rnnbook.stats import seed_interval

    rng = np.random.default_rng(0)
    draws = rng.normal(1.0, 2.0, size=(4000, 4))
    mean, lo, hi = seed_interval(draws, axis=1)
    cover = np.mean((lo <= 1.0) & (1.0 <= hi))
    assert abs(cover - 0.95) < 0.015
    np.testing.assert_allclose(mean, draws.mean(1))
    one = seed_interval([0.3, 0.5, 0.4])
    assert one.lo < one.mean < one.hi and one.n == 3
    assert one.mean == pytest.approx(0.4)
    assert np.isinf(seed_interval([0.2]).hi)
    with pytest.raises(ValueError, match="level"):
        seed_interval([1.0, 2.0], level=1.5)


def test_proportion_intervals_stay_in_the_unit_interval():
    from rnnbook.stats import clopper_pearson, wilson_interval

    for k, n in [(0, 5), (5, 5), (3, 7), (1, 12)]:
        for f in (wilson_interval, clopper_pearson):
            iv = f(k, n)
            assert 0 <= iv.lo < iv.hi <= 1 and iv.lo <= k / n <= iv.hi
    # known values: Wilson 95% of 9/12 and the exact interval of 0/8
    w = wilson_interval(9, 12)
    assert (w.lo, w.hi) == pytest.approx((0.4677, 0.9111), abs=1e-3)
    assert clopper_pearson(0, 8).hi == pytest.approx(1 - 0.025 ** (1 / 8))
    with pytest.raises(ValueError):
        wilson_interval(3, 2)


def test_proportion_intervals_cover_95_percent():
    """Monte Carlo: exact intervals cover at least 95%; Wilson close to 95% at n = 40."""
    from rnnbook.stats import clopper_pearson, wilson_interval

    rng = np.random.default_rng(1)
    ks = rng.binomial(40, 0.3, size=2000)
    cp = np.mean(
        [
            clopper_pearson(int(k), 40).lo <= 0.3 <= clopper_pearson(int(k), 40).hi
            for k in ks
        ]
    )
    wi = np.mean(
        [wilson_interval(k, 40).lo <= 0.3 <= wilson_interval(k, 40).hi for k in ks]
    )
    assert cp >= 0.95 and abs(wi - 0.95) < 0.03


def test_sign_share_drops_ties_and_never_gives_a_zero_width_interval():
    from rnnbook.stats import bootstrap_mean, clopper_pearson, sign_share, sign_ties

    x = [0.0] * 6 + [0.5, -0.5, 0.5, 0.5]  # six ties prefer neither side
    iv = sign_share(x)
    assert (iv.n, iv.mean) == (4, 0.75) and sign_ties(x) == 6
    assert iv == clopper_pearson(3, 4)
    iv = sign_share([-1.0] * 8)  # eight seeds never higher
    assert iv.mean == 0 and iv.lo == 0 and 0.3 < iv.hi < 0.4
    with pytest.raises(ValueError, match="every one of 8 seeds ties"):
        sign_share([0.0] * 8)  # all tied: nothing to compare
    b = bootstrap_mean([0.2, 0.4, 0.6, 0.3, 0.5])
    assert 0.2 <= b.lo < b.mean < b.hi <= 0.6
    assert bootstrap_mean([0.2, 0.4, 0.6]) == bootstrap_mean([0.2, 0.4, 0.6])  # seeded


def test_decide_effect_both_ways_and_against_the_paper():
    from rnnbook.stats import Interval, decide_effect

    def iv(lo, hi):
        return Interval((lo + hi) / 2, lo, hi, 5)

    assert decide_effect(iv(0.05, 0.1), "above", 0.03) == ("reproduced", False)
    assert decide_effect(iv(0.0, 0.02), "above", 0.03) == ("not-reproduced", False)
    assert decide_effect(iv(-0.2, -0.1), "above", 0.03) == ("not-reproduced", True)
    assert decide_effect(iv(0.0, 0.05), "above", 0.03) == ("inconclusive", False)
    assert decide_effect(iv(-0.05, -0.03), "below", -0.02) == ("reproduced", False)
    assert decide_effect(iv(0.01, 0.02), "below", -0.02) == ("not-reproduced", True)
    assert decide_effect(iv(-0.01, 0.02), "within", 0.03) == ("reproduced", False)
    assert decide_effect(iv(0.04, 0.06), "within", 0.03) == ("not-reproduced", True)
    assert decide_effect(iv(0.1, 0.1), "above", 0.03) == ("inconclusive", False)  # tied
    assert decide_effect(iv(-np.inf, np.inf), "above", 0.03) == ("inconclusive", False)


def test_combine_effects_never_hides_a_contrary_effect():
    from rnnbook.stats import combine_effects

    R, N, I = "reproduced", "not-reproduced", "inconclusive"
    assert combine_effects([R, R], [False, False]) == "reproduced"
    assert combine_effects([R, N], [False, False]) == "partly-reproduced"
    assert combine_effects([R, N], [False, True]) == "not-reproduced"
    assert combine_effects([R, I], [False, False]) == "inconclusive"
    assert combine_effects([N, I], [False, False]) == "not-reproduced"
    assert combine_effects([R, R, N], [False, False, False], at_least=2) == "reproduced"
    assert (
        combine_effects([R, R, N], [False, False, True], at_least=2) == "not-reproduced"
    )
    assert combine_effects([R, N, N], [False] * 3, at_least=2) == "not-reproduced"
    assert combine_effects([R, I, N], [False] * 3, at_least=2) == "inconclusive"


def test_bootstrap_over_few_seeds_takes_the_t_interval():
    """A percentile bootstrap over 4 seeds is narrower than its level; below
    BOOTSTRAP_MIN_SEEDS seeds a declared bootstrap is the Student-t interval."""
    from rnnbook import stats

    few = [1.0, 0.0, 0.5, 0.5]
    t, boot = stats.seed_interval(few, 0.95), stats.bootstrap_mean(few, 0.95)
    assert boot.hi - boot.lo < 0.7 * (t.hi - t.lo)  # the lean the fallback removes
    used = stats.effect_interval("bootstrap", few, 0.95)
    assert (used.lo, used.hi) == (t.lo, t.hi)
    assert stats.interval_used("bootstrap", few) == "mean"
    many = np.linspace(0, 1, stats.BOOTSTRAP_MIN_SEEDS)
    got = stats.effect_interval("bootstrap", many, 0.95)
    ref = stats.bootstrap_mean(many, 0.95)
    assert (got.lo, got.hi) == (ref.lo, ref.hi)
    assert stats.interval_used("wilson", [3, 10]) == "wilson"


def test_t_interval_is_cut_to_the_statistics_range():
    """Below ten seeds a declared bootstrap is Student t, which can pass 1 for shares near 1:
    with ``bounds`` it stops at the range, and only there."""
    from rnnbook import stats

    near_one = [1.0, 1.0, 0.8, 1.0]
    t = stats.seed_interval(near_one, 0.95)
    assert t.hi > 1  # what the cut is for
    cut = stats.effect_interval("bootstrap", near_one, 0.95, bounds=[0, 1])
    assert (cut.mean, cut.lo, cut.hi) == (t.mean, t.lo, 1.0)
    inside = [0.4, 0.5, 0.6, 0.5]
    a = stats.effect_interval("bootstrap", inside, 0.95, bounds=[0, 1])
    b = stats.seed_interval(inside, 0.95)
    assert (a.lo, a.hi) == (b.lo, b.hi)
    with pytest.raises(ValueError, match="bounds"):
        stats.effect_interval("mean", inside, 0.95, bounds=[1, 0])


def test_a_bootstrap_over_four_seeds_is_about_twice_too_narrow():
    """book/verdicts.md: over 4 normal seeds a 95% percentile bootstrap of the mean is about
    1.9 times narrower than the Student-t interval (why a bootstrap needs ten seeds)."""
    from scipy import stats as st

    rng = np.random.default_rng(1)
    x = rng.standard_normal((300, 4))
    idx = rng.integers(0, 4, (300, 1000, 4))
    boot = np.take_along_axis(x[:, None, :], idx, 2).mean(2)
    lo, hi = np.quantile(boot, [0.025, 0.975], axis=1)
    t = 2 * st.t.ppf(0.975, 3) * x.std(1, ddof=1) / 2
    ratio = float(np.median(t / (hi - lo)))
    assert 1.75 < ratio < 2.1, ratio


def test_one_sided_p_matches_scipy_tests():
    from scipy import stats as st

    from rnnbook.stats import one_sided_p

    x = np.array([0.3, 0.1, 0.25, 0.4, 0.05, 0.2])
    ref = st.ttest_1samp(x, 0.1, alternative="greater").pvalue
    assert one_sided_p("mean", x, 0.1, "above") == pytest.approx(ref)
    ref = st.ttest_1samp(x, 0.1, alternative="less").pvalue
    assert one_sided_p("mean", x, 0.1, "below") == pytest.approx(ref)
    ref = st.binomtest(7, 9, 0.5, alternative="greater").pvalue
    assert one_sided_p("exact", [7, 9], 0.5, "above") == pytest.approx(ref)
    signs = [1.0] * 7 + [-1.0] * 2 + [0.0] * 3  # three ties leave
    assert one_sided_p("sign", signs, 0.5, "above") == pytest.approx(ref)
    assert np.isnan(one_sided_p("mean", [0.2], 0.0, "above"))
    assert np.isnan(one_sided_p("mean", [0.2, 0.2], 0.0, "above"))  # tied: no test


def test_holm_rejections_step_down_against_brute_force():
    from itertools import permutations

    from rnnbook.stats import holm_rejections

    rng = np.random.default_rng(3)
    for _ in range(200):
        p = rng.uniform(0, 0.06, size=5)
        got = holm_rejections(p, 0.05)
        # brute force: reject H_i iff every intersection containing it is rejected by
        # Bonferroni (Holm's closed-testing form)
        want = []
        for i in range(5):
            ok = True
            for r in range(1, 6):
                for sub in set(permutations(range(5), r)):
                    if i in sub and min(p[list(sub)]) > 0.05 / len(sub):
                        ok = False
            want.append(ok)
        assert got == want
    assert holm_rejections([0.01, float("nan")], 0.05) == [True, False]
