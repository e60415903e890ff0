"""Seeds, checkpoints and intervals of the training ensembles."""

import numpy as np
import pytest
from scipy import stats

from rnnbook.implicit_bias import ensembles as en


def test_child_seeds_are_reproducible_and_disjoint_across_masters_and_streams():
    a = en.child_seeds(0, 5, "teacher")
    assert a == en.child_seeds(0, 5, "teacher") and len(set(a)) == 5
    assert not set(a) & set(en.child_seeds(1, 5, "teacher"))
    assert not set(a) & set(en.child_seeds(0, 5, "student"))
    assert en.child_seeds(0, 3, "teacher") == a[:3]
    # a shard's members (start 2): the seeds they have in one long run
    assert en.child_seeds(0, 3, "teacher", 2) == a[2:]
    with pytest.raises(ValueError):
        en.child_seeds(-1, 2, "x")
    with pytest.raises(ValueError, match="start"):
        en.child_seeds(0, 2, "x", -1)


def test_checkpoints_log_spaced_with_both_ends():
    c = en.checkpoints(1000, 7)
    assert c[0] == 1 and c[-1] == 1000 and c == sorted(set(c))
    assert c == [1, 3, 10, 32, 100, 316, 1000]
    assert en.checkpoints(3, 8) == [1, 2, 3]


def test_interval_fields_against_the_t_interval_by_hand():
    x = np.array([0.1, 0.4, 0.3, 0.2])
    half = stats.t.ppf(0.975, 3) * x.std(ddof=1) / 2
    f = en.interval_fields("d", x)
    assert f["d"] == pytest.approx(0.25)
    assert (f["d_lo"], f["d_hi"]) == pytest.approx((0.25 - half, 0.25 + half))
    g = en.interval_fields("r", np.log(x), np.exp)
    assert g["r_lo"] == pytest.approx(
        np.exp(
            np.log(x).mean()
            - half * 0
            - (stats.t.ppf(0.975, 3) * np.log(x).std(ddof=1) / 2)
        )
    )
    assert en.side(0.1, 0.3, 0.0) == "above" and en.side(-1, -0.5, 0) == "below"
    assert en.side(-0.1, 0.1, 0.0) == "straddles"
    m, lo, hi = en.curve_intervals(np.stack([x, 2 * x]))
    assert m.tolist() == pytest.approx([0.25, 0.5]) and hi[1] - lo[1] == pytest.approx(
        4 * half
    )
