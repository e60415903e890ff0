"""Theorems 1-3 measured (bounds_experiment): the experiment's rows against the bounds, its
claim inputs, and the non-normal counterexample."""

import numpy as np
import pytest
import torch

from rnnbook.lsc import bounds as lb
from rnnbook.lsc import bounds_experiment as be
from tests.test_device import DEVICES, strict


@pytest.fixture(scope="module")
def ex():
    cases = be.target_cases(0.7)
    gen = torch.Generator().manual_seed(0)
    return be.update_experiment(
        cases, [4, 8, 16], [2, 3], ["eq1", "stacked"], 4, 4, gen
    )


def test_target_cases():
    cases = be.target_cases(0.7)
    assert list(cases) == ["rho = 1", "rho = 0.5", "split 0.7 / 0.3"]
    assert sum(cases["split 0.7 / 0.3"]) == pytest.approx(1.0)


def test_rows_cover_every_configuration(ex):
    # 2 graphs x 2 depths x 3 cases x (3 ensembles + PascalRNN) x 3 lengths
    assert len(ex.rows) == 2 * 2 * 3 * 4 * 3
    assert ex.check_err < 1e-10  # the recursion equals autograd on the network
    r = ex.sel(conv="stacked", L=3, case="rho = 1", ens="pascal", T=8)[0]
    # unit radii on the stacked graph: the radius path sum is the paper's count
    assert r["radius_sum"] == r["paper"] == pytest.approx(lb.paper_bound_rho1(8, 2))


def test_bounds_hold_and_claim_inputs(ex):
    t2 = ex.theorem2()
    assert t2["violations"] == 0 and t2["configurations"] == len(ex.rows)
    assert t2["norm_vs_count"] < 1e-12 and float(t2["stacked_dev"]) < 1e-12
    t3 = ex.theorem3()
    assert t3["max_J"] <= 1 + 1e-9 and t3["violations"] == 0
    assert (t3["L"], t3["T"]) == (3, 16) and t3["rho_time"] == 0.7
    t1 = ex.theorem1()
    assert t1["violations"] == 0 and t1["configurations"] == 2 * 2 * 3 * 3
    assert t1["slope_min"] <= t1["slope_max"] and t1["gauss_norm_ratio"] > 1
    assert all(ex.radius_violations(c) == 0 for c in ex.half_cases)
    assert ex.radius_summary().count("\n* ") == 3


def test_fewer_seeds_than_tracked_networks():
    gen = torch.Generator().manual_seed(1)
    ex1 = be.update_experiment(be.target_cases(0.6), [4, 8], [2], ["eq1"], 3, 2, gen)
    assert ex1.theorem2()["stacked_dev"] == "nan"


def test_nonnormal_pair_explodes_while_gaussian_decays():
    cases = be.target_cases(0.7)
    gen = torch.Generator().manual_seed(0)
    nn = be.nonnormal_experiment(cases, ["eq1"], 2.0, 6, 12, 4, 4, gen)
    assert set(nn.results) == {("rho = 0.5", "eq1"), ("split 0.7 / 0.3", "eq1")}
    for case in ("rho = 0.5", "split 0.7 / 0.3"):
        v = nn.check(case)
        ((rate, exceed),) = v["pair_growth"]
        assert rate > 0.1 and exceed > 1 and v["dl_max"] == 5
        res = nn.results[case, "eq1"]
        # rows run over l = 1..L, i.e. Delta l = L-1..0: the pair grows with Delta l, while
        # Gaussian matrices with the same radii decay
        assert np.all(np.diff(res["D"][::-1]) > 0) and res["Dg"][0] < res["Dg"][-1]
    assert nn.table().count("\n") == 1 + 2


@pytest.mark.parametrize("dev", DEVICES)
def test_experiments_on_the_device(dev):
    """The update and non-normal experiments on a device give the CPU run's numbers (the same
    draws from the CPU generator; under a meta default device on the CPU)."""
    cases = be.target_cases(0.7)

    def both(device=None):
        kw = {} if device is None else {"device": device}
        gen = torch.Generator().manual_seed(3)
        ex = be.update_experiment(
            cases, [4, 8], [2, 3], ["eq1", "stacked"], 3, 3, gen, **kw
        )
        nn = be.nonnormal_experiment(cases, ["eq1"], 2.0, 4, 6, 3, 3, gen, **kw)
        return ex, nn

    with strict(dev):
        ex, nn = both(dev)
    ref_ex, ref_nn = both()
    rows, ref_rows = ex.rows, ref_ex.rows
    assert [r["case"] for r in rows] == [r["case"] for r in ref_rows]
    for key in ("sigma", "norm_bound", "radius_sum"):
        a, b = [r[key] for r in rows], [r[key] for r in ref_rows]
        assert a == b if dev == "cpu" else np.allclose(a, b, rtol=1e-9)
    assert ex.max_J.keys() == ref_ex.max_J.keys()
    for k, v in nn.results.items():
        for q in ("D", "sigma", "Dg"):
            np.testing.assert_allclose(v[q], ref_nn.results[k][q], rtol=1e-9)
