"""The gates of Fig. 4, Theorem 4.1 and Fig. 3 read every seed's reference ratio and take
the median in the rule (issue 50): on the data the chapters pass they give the median the
package computes (an odd number of runs: the same number), and a record in shards, its
per-seed lists joined, gives the median of all its runs."""

from pathlib import Path

import pytest
import torch

from rnnbook.book import claims
from rnnbook.book import shard_plan as sp
from rnnbook.implicit_bias import delay_sweep as ds
from rnnbook.implicit_bias import kernel_regime as kr

ROOT = Path(__file__).resolve().parents[2]
DECLARED = claims.all_declared(ROOT)
SETUP = dict(T=5, n_train=10, n_test=10, snr_db=20.0, nu_W=0.3, nu_F=1.0, nu_C=1.0)
FIG4, THM41 = "implicit-bias.fig4.finite-width", "implicit-bias.thm41.drift-bound"
FIG3 = "implicit-bias.fig3.delay-bias"


def _gate(cid: str, values: dict) -> float:
    d = DECLARED[cid]
    return claims.evaluate(d.trained_value, {**d.constants, **values}, cid)


def _shards(cid: str, values: dict, cut: int) -> dict:
    """``values`` as two shards (members before ``cut`` and the rest), each checked as a
    shard keeps it and joined as a record joins them."""
    parts = [{k: v[:cut] for k, v in values.items()}]
    parts += [{k: v[cut:] for k, v in values.items()}]
    for p in parts:
        for k, v in p.items():
            sp.check_value(cid, k, "seeds", v, len(v))
    return {k: sp.merge(cid, k, "seeds", [p[k] for p in parts]) for k in values}


def test_fig4_and_theorem41_gates_read_every_seed():
    ts = kr.teacher_student(
        n_teacher=3, n=16, lr=0.02, steps=10, seeds=3, seed=0, **SETUP
    )
    fw = kr.finite_width(
        n_teacher=3, widths=[8, 16, 32], seeds=3, lr=0.02, steps=10, seed=0, **SETUP
    )
    # as the chapter passes them: per seed, the reference's ratio at each width
    ratios = [kr.loss_ratio(r.conv).tolist() for r in fw.runs.values()]
    ref4 = {"fig4_ref_ratio_seeds": [list(s) for s in zip(*ratios)]}
    ref = dict(ref_ratio_seeds=ts.summary()["ref_ratio_seeds"], **ref4)
    assert len(ref4["fig4_ref_ratio_seeds"]) == 3  # one entry per seed
    # nine runs and three seeds: the rule's median is the package's
    assert _gate(FIG4, ref4) == pytest.approx(fw.ref_train_ratio(), rel=1e-12)
    drift = kr.drift_summary(ts, fw)
    assert _gate(THM41, ref) == pytest.approx(drift["ref_train_ratio"], rel=1e-12)
    # joined over shards of 2 and 1 seeds: the median of all runs
    assert _gate(FIG4, _shards(FIG4, ref4, 2)) == _gate(FIG4, ref4)
    assert _gate(THM41, _shards(THM41, ref, 2)) == _gate(THM41, ref)
    # an even number of runs: the upper median
    two = {"fig4_ref_ratio_seeds": [[0.1, 0.4], [0.3, 0.2]]}
    assert _gate(FIG4, two) == 0.3


def test_fig3_gate_reads_every_seed():
    sweep = ds.run_delay_sweep(
        delays=[0, 2],
        seeds=3,
        n=8,
        n_teacher=2,
        n_x=2,
        T=5,
        n_train=4,
        n_test=4,
        nu_W=0.3,
        nu_F=1.0,
        nu_C=1.0,
        snr_db=20.0,
        lr=0.05,
        steps=10,
        seed=0,
        rnn_dtype=torch.float64,
    )
    # as the chapter passes them: per seed, the unscaled convolution's ratio at delay 0
    tr = sweep.train_curve[:, ds.UNSCALED, :, 0]
    ref = {"ref_ratio_0_seeds": (tr[-1] / tr[0]).tolist()}
    assert len(ref["ref_ratio_0_seeds"]) == 3
    assert _gate(FIG3, ref) == pytest.approx(sweep.ref_train_ratio_0(), rel=1e-12)
    assert _gate(FIG3, _shards(FIG3, ref, 1)) == _gate(FIG3, ref)
