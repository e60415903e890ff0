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
import re
from pathlib import Path
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


def _template_regex(name: str) -> re.Pattern:
    return re.compile("^" + re.escape(name).replace(re.escape("{key}"), ".+?") + "$")


def ledger_spreads(d: _claims.Declaration, record: dict) -> list[dict[str, float]]:
    """Per declared effect (in order): its spread inputs from a ledger record, the largest
    over the settings an effect expands to (the cautious choice for the seeds needed)."""
    got = spreads(record)
    out = []
    for e in d.effects:
        pat = _template_regex(str(e["name"]))
        mine = [v for k, v in got.items() if pat.match(k) and "error" not in v]
        merged: dict[str, float] = {}
        for v in mine:
            for k, x in v.items():
                merged[k] = max(merged.get(k, 0.0), x)
        out.append(merged)
    return out


def apply(path: Path, d: _claims.Declaration, record: dict, source: str) -> list[str]:
    """Write into the claims file the spreads read off ``record`` and the seeds they need
    (``power: {seeds, spread_from}``); returns what changed. Only the claim's own lines are
    touched: its effects' ``spread:`` / ``trials_per_seed:`` lines and its ``power:`` line."""
    import dataclasses

    lines = Path(path).read_text().splitlines(keepends=True)
    start = next(
        i
        for i, x in enumerate(lines)
        if re.match(rf"\s*- id: {re.escape(d.id)}\s*$", x)
    )
    end = next(
        (i for i in range(start + 1, len(lines)) if re.match(r"\s*- id: ", lines[i])),
        len(lines),
    )
    new = ledger_spreads(d, record)
    changed = []
    effects = list(d.effects)
    idx = -1
    for i in range(start, end):
        m = re.match(r"(\s*)- name: ", lines[i])
        if m:
            idx += 1
            continue
        m = re.match(r"(\s*)(spread|trials_per_seed): (\S+)", lines[i])
        if m and 0 <= idx < len(new) and m.group(2) in new[idx]:
            value = new[idx][m.group(2)]
            lines[i] = f"{m.group(1)}{m.group(2)}: {value:g}\n"
            effects[idx] = {**effects[idx], m.group(2): value}
            changed.append(f"{d.id}: {effects[idx]['name']}: {m.group(2)} {value:g}")
    seeds = seeds_needed(dataclasses.replace(d, effects=tuple(effects)))
    for i in range(start, end):
        m = re.match(r"(\s*)power:(.*)$", lines[i])
        if not m or seeds is None:
            continue
        if m.group(2).strip():  # flow form: power: {seeds: N, ...}
            lines[i] = (
                f'{m.group(1)}power: {{seeds: {seeds}, spread_from: "{source}"}}\n'
            )
        else:  # block form: the seeds and spread_from lines below it
            for j in range(i + 1, end):
                if len(lines[j]) - len(lines[j].lstrip()) <= len(m.group(1)):
                    break
                pad = lines[j][: len(lines[j]) - len(lines[j].lstrip())]
                if lines[j].lstrip().startswith("seeds:"):
                    lines[j] = f"{pad}seeds: {seeds}\n"
                elif lines[j].lstrip().startswith("spread_from:"):
                    lines[j] = f'{pad}spread_from: "{source}"\n'
        changed.append(f"{d.id}: power: seeds {seeds}")
    Path(path).write_text("".join(lines))
    return changed
