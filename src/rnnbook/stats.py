"""Statistics over seeds and repetitions, shared by the rooms.

- :func:`seed_interval`: the mean of a statistic over independent seeds with its 95% Student-t
  interval; training claims are decided from it (ARCHITECTURE.md, *The claim ledger*).
- :func:`wilson_interval`, :func:`clopper_pearson`: a proportion k/n with an interval that stays
  inside [0, 1] (the Wilson score interval; the exact binomial interval);
- :func:`sign_share`: the share of seeds in which a discrete statistic lies above a value, with its
  exact interval (a sign test: ties leave the share, and never give a zero-width interval);
- :func:`one_sided_p`, :func:`holm_rejections`: one-sided tests of effects against their lines
  and Holm's step-down count across them ("in most cells");
- :func:`bootstrap_mean`: a percentile bootstrap interval of the mean over seeds;
- :func:`decide_effect`, :func:`combine_effects`: the book's verdict design (book/verdicts.md),
  which the claim engine applies to every training claim;
- :func:`power_law_fit`: the exponent p of E[X_m] ≈ C m^p with a bootstrap interval (the m^(-1/2)
  rate of Eq. (2.16) of Chizat et al., the convergence of the weights' moments).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Interval:
    """Mean of ``n`` seeds and its two-sided interval at ``level``."""

    mean: float
    lo: float
    hi: float
    n: int
    level: float = 0.95

    def as_list(self) -> list[float]:
        return [self.mean, self.lo, self.hi]

    def __str__(self) -> str:
        return f"{self.mean:.3g} [{self.lo:.3g}, {self.hi:.3g}] (n={self.n})"


def seed_interval(samples, level: float = 0.95, axis: int = -1):
    """Mean over seeds with its Student-t interval, along ``axis`` of ``samples``.

    Returns an :class:`Interval` for a 1-D input, else arrays ``(mean, lo, hi)`` of the other axes.
    One seed gives an infinite interval: one run decides nothing."""
    from scipy import stats as _st

    S = np.moveaxis(np.asarray(samples, dtype=float), axis, -1)
    n = S.shape[-1]
    if n < 1:
        raise ValueError("seed_interval needs at least one sample")
    if not 0 < level < 1:
        raise ValueError(f"level must be in (0, 1), got {level}")
    mean = S.mean(-1)
    if n == 1:
        half = np.full_like(mean, np.inf)
    else:
        sem = S.std(-1, ddof=1) / np.sqrt(n)
        half = _st.t.ppf(0.5 + level / 2, n - 1) * sem
    lo, hi = mean - half, mean + half
    if S.ndim == 1:
        return Interval(float(mean), float(lo), float(hi), n, level)
    return mean, lo, hi


@dataclass(frozen=True)
class PowerLaw:
    slope: float
    intercept: float
    ci95: tuple[float, float]
    means: np.ndarray

    def __call__(self, x: np.ndarray) -> np.ndarray:
        return np.exp(self.intercept) * np.asarray(x, dtype=float) ** self.slope


def _fit(logx: np.ndarray, logy: np.ndarray) -> tuple[float, float]:
    slope, intercept = np.polyfit(logx, logy, 1)
    return float(slope), float(intercept)


def power_law_fit(x, samples, n_boot: int = 400, seed: int = 0) -> PowerLaw:
    """Least-squares fit of log(mean over repetitions) on log x. ``samples`` has shape (len(x), reps);
    the 95% interval resamples the repetitions of every x independently (percentile bootstrap)."""
    x = np.asarray(x, dtype=float)
    S = np.asarray(samples, dtype=float)
    if S.ndim != 2 or S.shape[0] != len(x) or len(x) < 2:
        raise ValueError("samples must have shape (len(x), reps) with at least two x")
    if not np.all(np.isfinite(S)) or np.any(S <= 0):
        raise ValueError("samples must be finite and positive")
    means = S.mean(1)
    slope, intercept = _fit(np.log(x), np.log(means))
    rng = np.random.default_rng(seed)
    R = S.shape[1]
    idx = rng.integers(0, R, size=(n_boot,) + S.shape)  # (boot, len(x), reps)
    logy = np.log(np.take_along_axis(S[None], idx, 2).mean(2))  # (boot, len(x))
    lx = np.log(x) - np.log(x).mean()
    boots = (
        (logy - logy.mean(1, keepdims=True)) @ lx / (lx @ lx)
    )  # least-squares slopes
    lo, hi = np.percentile(boots, [2.5, 97.5])
    return PowerLaw(
        slope=slope, intercept=intercept, ci95=(float(lo), float(hi)), means=means
    )


def wilson_interval(k: float, n: float, level: float = 0.95) -> Interval:
    """Proportion ``k/n`` with its Wilson score interval (inside [0, 1] for any k, n >= 1)."""
    from scipy import stats as _st

    if n <= 0 or not 0 <= k <= n:
        raise ValueError(f"a proportion needs 0 <= k <= n and n > 0, got k={k}, n={n}")
    z = float(_st.norm.ppf(0.5 + level / 2))
    p = k / n
    den = 1 + z * z / n
    mid = (p + z * z / (2 * n)) / den
    half = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / den
    return Interval(float(p), max(0.0, mid - half), min(1.0, mid + half), int(n), level)


def clopper_pearson(k: int, n: int, level: float = 0.95) -> Interval:
    """Proportion ``k/n`` with its exact (Clopper-Pearson) binomial interval."""
    from scipy import stats as _st

    if n <= 0 or not 0 <= k <= n:
        raise ValueError(f"a proportion needs 0 <= k <= n and n > 0, got k={k}, n={n}")
    a = 1 - level
    lo = 0.0 if k == 0 else float(_st.beta.ppf(a / 2, k, n - k + 1))
    hi = 1.0 if k == n else float(_st.beta.ppf(1 - a / 2, k + 1, n - k))
    return Interval(k / n, lo, hi, int(n), level)


def sign_share(samples, above: float = 0.0, level: float = 0.95) -> Interval:
    """Share of seeds whose (discrete) statistic lies strictly above ``above``, among the
    seeds that do not tie with it, with its exact interval (:func:`clopper_pearson`): a sign
    test. Ties (a statistic exactly at ``above``) prefer neither side and leave the share
    (:func:`sign_ties` counts them); with every seed tied there is nothing to compare (a
    ``ValueError``)."""
    x = np.asarray(samples, dtype=float).ravel()
    x = x[np.isfinite(x)]
    n = int((x != above).sum())
    if n == 0:
        raise ValueError(f"sign_share: every one of {len(x)} seeds ties at {above}")
    return clopper_pearson(int((x > above).sum()), n, level)


def sign_ties(samples, above: float = 0.0) -> int:
    """How many seeds tie at ``above`` (left out of :func:`sign_share`)."""
    x = np.asarray(samples, dtype=float).ravel()
    return int((x == above).sum())


def one_sided_p(kind: str, data, line: float, side: str, threshold: float = 0.0):
    """The one-sided p-value of ``H0: the effect is not beyond line`` on ``side`` (``above``:
    H1 mean > line; ``below``: H1 mean < line): Student t over seeds for ``mean`` and
    ``bootstrap``; the exact binomial test for ``exact``, ``wilson`` (``data`` = [k, n]) and
    ``sign`` (the share of non-tied seeds above ``threshold``). NaN where nothing can be
    compared (fewer than two seeds, or no trial)."""
    from scipy import stats as _st

    if side not in ("above", "below"):
        raise ValueError(f"side {side!r} must be 'above' or 'below'")
    if kind in ("mean", "bootstrap"):
        x = np.asarray(data, dtype=float).ravel()
        if len(x) < 2 or not np.isfinite(x).all():
            return float("nan")
        sd = x.std(ddof=1)
        if sd == 0:
            return float("nan")  # tied seeds decide nothing
        t = (x.mean() - line) / (sd / np.sqrt(len(x)))
        t = t if side == "above" else -t
        return float(_st.t.sf(t, len(x) - 1))
    if kind in ("exact", "wilson", "sign"):
        if kind == "sign":
            x = np.asarray(data, dtype=float).ravel()
            k, n = int((x > threshold).sum()), int((x != threshold).sum())
        else:
            k, n = (int(round(float(v))) for v in data)
        if n <= 0:
            return float("nan")
        alt = "greater" if side == "above" else "less"
        return float(_st.binomtest(k, n, float(line), alternative=alt).pvalue)
    raise ValueError(f"interval {kind!r} must be one of {INTERVALS}")


def holm_rejections(pvalues, alpha: float) -> list[bool]:
    """Holm's step-down procedure (Holm 1979) at family level ``alpha``: which hypotheses
    are rejected, in the order given. NaN p-values are never rejected (and count in the
    family)."""
    p = np.asarray(pvalues, dtype=float)
    m = len(p)
    order = np.argsort(np.where(np.isnan(p), np.inf, p), kind="stable")
    out = [False] * m
    for i, j in enumerate(order):
        if not p[j] <= alpha / (m - i):
            break
        out[j] = True
    return out


def bootstrap_mean(
    samples, level: float = 0.95, n_boot: int = 4000, seed: int = 0
) -> Interval:
    """Mean over seeds with a percentile bootstrap interval (stays inside the samples' range,
    e.g. inside [0, 1] for per-seed fractions). Seeded: the same samples give the same interval."""
    x = np.asarray(samples, dtype=float).ravel()
    if len(x) < 1:
        raise ValueError("bootstrap_mean needs at least one sample")
    rng = np.random.default_rng(seed)
    means = x[rng.integers(0, len(x), size=(n_boot, len(x)))].mean(1)
    lo, hi = np.quantile(means, [0.5 - level / 2, 0.5 + level / 2])
    return Interval(float(x.mean()), float(lo), float(hi), len(x), level)


INTERVALS = ("mean", "bootstrap", "wilson", "exact", "sign")
#: fewer seeds than this and a declared ``bootstrap`` takes the Student-t interval instead: a
#: percentile bootstrap of a mean over a handful of seeds has no small-sample correction and
#: is narrower than its level (over 4 seeds about 1.6 times narrower than the t interval)
BOOTSTRAP_MIN_SEEDS = 10


def interval_used(kind: str, data) -> str:
    """The interval an effect declared ``kind`` is computed with for ``data``: ``bootstrap``
    over fewer than :data:`BOOTSTRAP_MIN_SEEDS` seeds becomes ``mean`` (Student t)."""
    if kind == "bootstrap" and np.asarray(data, dtype=float).size < BOOTSTRAP_MIN_SEEDS:
        return "mean"
    return kind


def effect_interval(
    kind: str,
    data,
    level: float,
    null: float = 0.0,
    bounds=None,
    threshold: float = 0.0,
) -> Interval:
    """The interval of one effect: ``mean`` (Student t over seeds), ``bootstrap`` (of the mean),
    ``wilson`` / ``exact`` (``data`` = [successes, trials], pooled), ``sign`` (share of the
    seeds above ``threshold``, ties left out, exact; ``null``, its value of no effect, is
    one half for a two-way preference). A ``bootstrap`` over fewer than
    :data:`BOOTSTRAP_MIN_SEEDS` seeds is the ``mean`` interval (:func:`interval_used`). ``bounds``: the statistic's range (``[0, 1]``
    for a per-seed fraction); a Student-t interval is cut to it, never past it."""
    if kind in INTERVALS:
        kind = interval_used(kind, data)
    if kind == "mean":
        iv = seed_interval(np.asarray(data, dtype=float).ravel(), level)
        if bounds is None:
            return iv
        lo, hi = (float(b) for b in bounds)
        if not lo < hi:
            raise ValueError(
                f"bounds {bounds!r}: the lower bound must be below the upper"
            )
        return Interval(iv.mean, max(iv.lo, lo), min(iv.hi, hi), iv.n, iv.level)
    if kind == "bootstrap":
        return bootstrap_mean(data, level)
    if kind == "wilson":
        k, n = (float(v) for v in data)
        return wilson_interval(k, n, level)
    if kind == "exact":
        k, n = (int(round(float(v))) for v in data)
        return clopper_pearson(k, n, level)
    if kind == "sign":
        return sign_share(data, threshold, level)
    raise ValueError(f"interval {kind!r} must be one of {INTERVALS}")


DIRECTIONS = ("above", "below", "within")


def decide_effect(iv: Interval, direction: str, smallest: float, null: float = 0.0):
    """One effect's decision under the book's design (book/verdicts.md).

    ``above``: the paper's effect is at least ``smallest`` (> ``null``): ``reproduced`` when the
    interval lies above ``smallest``, ``not-reproduced`` when it lies below, ``contrary`` (a
    significant effect against the paper) when it lies below ``null``. ``below``: the mirror image.
    ``within``: the paper claims no effect beyond +-``smallest`` around ``null``: reproduced when
    the interval lies inside, not-reproduced (and contrary) when it lies outside. A zero-width or
    infinite interval decides nothing. Returns ``(decision, contrary)``."""
    lo, hi = iv.lo, iv.hi
    if not (np.isfinite(lo) and np.isfinite(hi)) or hi - lo <= 1e-12 * max(
        1.0, abs(iv.mean)
    ):  # tied seeds (up to round-off)
        return "inconclusive", False
    if direction == "above":
        if lo > smallest:
            return "reproduced", False
        return (
            ("not-reproduced", hi < null) if hi < smallest else ("inconclusive", False)
        )
    if direction == "below":
        if hi < smallest:
            return "reproduced", False
        return (
            ("not-reproduced", lo > null) if lo > smallest else ("inconclusive", False)
        )
    if direction == "within":
        a, b = null - abs(smallest), null + abs(smallest)
        if a < lo and hi < b:
            return "reproduced", False
        if lo >= b or hi <= a:
            return "not-reproduced", True
        return "inconclusive", False
    raise ValueError(f"direction {direction!r} must be one of {DIRECTIONS}")


def combine_effects(
    decisions, contrary, at_least: int | None = None, strong=None
) -> str:
    """The claim's verdict from its effects' decisions (book/verdicts.md).

    ``decisions``: each effect's decision (``reproduced`` from its interval at the 95% level,
    ``not-reproduced`` from its interval at 1 - 0.05/k); ``strong``: whether each effect is
    reproduced at 1 - 0.05/k too (default: as ``decisions`` says); ``contrary``: a significant
    effect against the paper at 1 - 0.05/k. "Every effect reproduced" is an intersection-union
    test (Berger 1982): each effect at 95% with no adjustment. The union decisions are adjusted:
    a contrary effect anywhere gives ``not-reproduced``; ``partly-reproduced`` needs one effect
    reproduced and one decided short, both at 1 - 0.05/k; ``not-reproduced`` needs one decided
    short and none reproduced at 1 - 0.05/k; otherwise inconclusive. ``at_least=k`` (a union
    decision): reproduced when k effects are reproduced at 1 - 0.05/k, not-reproduced when more
    than n - k are decided short."""
    decisions, contrary = list(decisions), list(contrary)
    strong = [d == "reproduced" for d in decisions] if strong is None else list(strong)
    n = len(decisions)
    if n == 0:
        raise ValueError("a claim needs at least one effect")
    n_nr = decisions.count("not-reproduced")
    if any(contrary):
        return "not-reproduced"
    if at_least is not None:
        if sum(strong) >= at_least:
            return "reproduced"
        return "not-reproduced" if n_nr > n - at_least else "inconclusive"
    if decisions.count("reproduced") == n:
        return "reproduced"
    if n_nr and any(strong):
        return "partly-reproduced"
    return "not-reproduced" if n_nr else "inconclusive"


#: the probability a rule must have of reproducing a paper that is exactly right, at the
#: seed count its claim declares (book/verdicts.md: lines a true effect can cross)
POWER = 0.8


def _t_power(direction, paper, smallest, null, n, sd, level):
    """P(the Student-t interval at ``level`` over ``n`` normal seeds of spread ``sd`` around
    ``paper`` lies beyond ``smallest``) (a non-central t); ``within``: a lower bound, one minus
    the chances of crossing either end of the band (two one-sided tests)."""
    from scipy import stats as _st

    if n < 2 or sd <= 0:
        return 0.0 if n < 2 else 1.0
    df, root = n - 1, np.sqrt(n)
    tc = float(_st.t.ppf(0.5 + level / 2, df))

    def beyond(gap):  # P(mean - tc * se > edge), gap = true mean - edge
        return float(_st.nct.sf(tc, df, gap * root / sd))

    if direction == "above":
        return beyond(paper - smallest)
    if direction == "below":
        return beyond(smallest - paper)
    a, b = null - abs(smallest), null + abs(smallest)
    return max(0.0, 1 - (1 - beyond(paper - a)) - (1 - beyond(b - paper)))


def _binomial_power(kind, direction, paper, smallest, null, trials, level):
    """P(the proportion's interval lies beyond ``smallest``) when each of ``trials``
    independent trials succeeds with probability ``paper`` (exact sum over the outcomes)."""
    from scipy import stats as _st

    k = np.arange(trials + 1)
    if kind == "wilson":
        z = float(_st.norm.ppf(0.5 + level / 2))
        p = k / trials
        den = 1 + z * z / trials
        mid = (p + z * z / (2 * trials)) / den
        half = z * np.sqrt(p * (1 - p) / trials + z * z / (4 * trials**2)) / den
        lo, hi = mid - half, mid + half
    else:  # exact (Clopper-Pearson), also the sign test's interval
        a = 1 - level
        with np.errstate(all="ignore"):
            lo = np.where(k == 0, 0.0, _st.beta.ppf(a / 2, k, trials - k + 1))
            hi = np.where(k == trials, 1.0, _st.beta.ppf(1 - a / 2, k + 1, trials - k))
    if direction == "above":
        ok = lo > smallest
    elif direction == "below":
        ok = hi < smallest
    else:
        ok = (lo > null - abs(smallest)) & (hi < null + abs(smallest))
    return float(_st.binom.pmf(k, trials, paper)[ok].sum())


def power_to_reproduce(
    kind: str,
    direction: str,
    paper: float,
    smallest: float,
    null: float,
    seeds: int,
    spread: float | None = None,
    trials_per_seed: float | None = None,
    level: float = 0.95,
) -> float:
    """The chance that one effect is decided ``reproduced`` at ``level`` when the paper is
    exactly right (its true effect is ``paper``), over ``seeds`` seeds: ``spread`` is the
    per-seed standard deviation of a mean-like statistic (``mean``, ``bootstrap``: Student t),
    ``trials_per_seed`` the trials one seed adds to a pooled proportion (``wilson``,
    ``exact``); a ``sign`` share counts seeds. A bootstrap from ten seeds on is taken as the t
    interval it approximates."""
    seeds = int(seeds)
    if kind in ("mean", "bootstrap"):
        if spread is None:
            raise ValueError(f"a {kind} effect's power needs its per-seed 'spread'")
        return _t_power(direction, paper, smallest, null, seeds, float(spread), level)
    if kind in ("wilson", "exact"):
        if trials_per_seed is None:
            raise ValueError(f"a {kind} effect's power needs its 'trials_per_seed'")
        trials = max(1, int(round(seeds * float(trials_per_seed))))
        return _binomial_power(kind, direction, paper, smallest, null, trials, level)
    if kind == "sign":
        return _binomial_power("exact", direction, paper, smallest, null, seeds, level)
    raise ValueError(f"interval {kind!r} must be one of {INTERVALS}")


def seeds_for_power(power_at, target: float = POWER, most: int = 100_000) -> int | None:
    """The fewest seeds ``n`` (2 up to ``most``) with ``power_at(n) >= target`` (doubling, then
    bisection: power grows with the seeds up to the binomial's small wiggles); ``None`` if even
    ``most`` seeds fall short."""
    hi = 2
    while power_at(hi) < target:
        if hi >= most:
            return None
        hi = min(2 * hi, most)
    lo = hi // 2 if hi > 2 else 1
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if mid >= 2 and power_at(mid) >= target:
            hi = mid
        else:
            lo = mid
    return hi
