"""What the Fig. 3 claims read, per seed (Sec. III-C), so that a record run in shards of
seeds joins them and decides once on the union (issue 50).

Kept apart from :mod:`~rnnbook.lsc.deep_rnns`, which the other LSC chapters import, so that
only the Fig. 3 chapter measures with it.
"""

from __future__ import annotations

from .deep_rnns import Runs
from .models import DIFFERENTIABLE


def per_seed(runs: Runs, tol: float) -> dict:
    """Per seed: its pre-trainings within ``tol`` of their target and all of them, for the
    differentiable networks and for ALIF; the no-pre-training arm's score per (task,
    network, depth) and seed, with each task's bar; [won, untied] at the deepest depth and
    at the shallowest, for rho_t = 0.5 against none and for ALIF at rho_t = 1 against none
    (empty with one depth)."""
    g, seeds, out = runs.grid, range(runs.grid.seeds), {"bars": dict(runs.bars)}
    for tag, alif in (("diff", False), ("alif", True)):
        ks = [k for k in g.kinds if (k in DIFFERENTIABLE) != alif]
        near, n = [0 for s in seeds], [0 for s in seeds]
        for (t, k, d, c, s), r in runs.results.items():  # as runs.pre_reports
            if c != "none" and k in ks:
                near[s] += int(abs(r["pretrain"]["mean_dev"]) <= tol)
                n[s] += 1
        out[f"pre_{tag}_near"], out[f"pre_{tag}_n"] = near, n
        out[f"none_scores_{tag}"] = {
            t: {f"{k} L{d}": runs.scores(t, k, d, "none") for k in ks for d in g.depths}
            for t in g.tasks
        }
    o, (d0, d1) = runs.outcomes(), (g.depths[0], g.depths[-1])
    for short, name in (("half_none", "half>none"), ("alif", "one>none-alif")):
        deep, shallow = o[(name, d1)][..., -1], o[(name, d0)][..., -1]  # (pairs, seeds)
        won = [((x > 0).sum(0), (x != 0).sum(0)) for x in (deep, shallow)]
        trials = [[int(v[s]) for w in won for v in w] for s in seeds]
        out[f"{short}_seed_trials"] = trials if d1 != d0 else []
    return out
