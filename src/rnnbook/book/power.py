"""Power analysis of the training claims (book/verdicts.md, *Lines a true effect can cross*).

A training claim declares, per effect, the paper's own effect (``paper``) and the statistic's
per-seed spread (``spread``, for a mean over seeds) or the trials one seed adds to a pooled
proportion (``trials_per_seed``), both read off a run of the ``book`` ledger; and, per claim,
``power: {seeds: N}``, the seeds at which a paper that is exactly right is reproduced with
probability at least :data:`rnnbook.stats.POWER` (:func:`rnnbook.book.claims.claim_power`).

:func:`spreads` reads those inputs off a ledger record; :func:`seeds_needed` gives N;
``python -m rnnbook power CLAIM_ID [--ledger _build/claims.json]`` prints both.
"""

from __future__ import annotations

import math
from typing import Any

from . import claims as _claims


def effect_spread(effect: dict, seeds: int | None) -> dict[str, float]:
    """The per-seed spread of one recorded effect, recovered from its interval: the Student-t
    half-width times sqrt(n) over the t quantile (the wider side, where a range cut it); for
    a pooled proportion, the trials per seed (``n`` over the seeds)."""
    from scipy import stats as _st

    kind, n = str(effect.get("interval", "mean")), int(effect.get("n") or 0)
    if kind.startswith(("wilson", "exact")):
        if not seeds:
            raise ValueError("a pooled proportion needs the claim's seed count")
        return {"trials_per_seed": round(n / seeds, 2)}
    if kind.startswith("sign"):
        return {}
    est, lo, hi = (float(effect[k]) for k in ("estimate", "lo", "hi"))
    level = float(effect.get("level", 0.95))
    if n < 2 or not all(map(math.isfinite, (est, lo, hi))):
        raise ValueError(f"effect {effect.get('name')!r}: no spread from n = {n}")
    half = max(hi - est, est - lo)
    sd = half * math.sqrt(n) / float(_st.t.ppf(0.5 + level / 2, n - 1))
    return {"spread": float(f"{sd:.3g}")}


def spreads(record: dict) -> dict[str, dict[str, float]]:
    """Per recorded effect name: its spread inputs (:func:`effect_spread`)."""
    out = {}
    for e in record.get("effects") or []:
        try:
            out[e["name"]] = effect_spread(e, record.get("seeds"))
        except ValueError as err:
            out[e["name"]] = {"error": str(err)}
    return out


def seeds_needed(d: _claims.Declaration, most: int = 100_000) -> int | None:
    """The fewest seeds at which the claim reproduces a paper that is exactly right with
    probability at least :data:`rnnbook.stats.POWER` (``None``: not within ``most``)."""
    from rnnbook.stats import seeds_for_power

    return seeds_for_power(lambda n: _claims.claim_power(d, n), most=most)


def report(d: _claims.Declaration, record: dict | None) -> dict[str, Any]:
    """What the power analysis of one claim says: the recorded spreads (if a ledger record is
    given), the declared seeds and the power there, and the seeds needed."""
    out: dict[str, Any] = {"id": d.id}
    if record is not None:
        out["book seeds"] = record.get("seeds")
        out["spreads from the ledger"] = spreads(record)
    try:
        out["seeds needed"] = seeds_needed(d)
        if d.power:
            out["declared seeds"] = d.power["seeds"]
            out["power at the declared seeds"] = round(
                _claims.claim_power(d, d.power["seeds"]), 3
            )
    except (_claims.ClaimError, ValueError) as err:
        out["cannot compute yet"] = str(err)
    return out
