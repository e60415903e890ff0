"""The line a claim box gives each record of the claim (issue 52, item 12): the sizes of the
part of the chapter the claim reads, not the first parameters of the run; and a record whose
gate failed says that the gate did not hold and shows its effects undecided.

A record keeps only the parameters its slice set; the claim may read others, which the run
took from its profile's presets. Which parameters a claim reads: the ``{names}`` its declared
texts (``note``, ``measured``, ``statement``) fill in. The presets: the ``Param`` calls of the
chapter's parameter tables (``Param(type, smoke, book, paper, ...)``, ``Steps``/``Repeats``/
``Samples(smoke, book, paper, ...)``), read from its source without running it.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Any

import yaml

from . import reading

_FIELD = re.compile(r"\{([A-Za-z_]\w*)")
#: the position of each profile's preset among a parameter maker's arguments
_PRESET_AT = {
    "Param": {"smoke": 1, "book": 2, "paper": 3},
    "Steps": {"smoke": 0, "book": 1, "paper": 2},
    "Repeats": {"smoke": 0, "book": 1, "paper": 2},
    "Samples": {"smoke": 0, "book": 1, "paper": 2},
}
#: parameters that say how many runs, not how large each is: the line always gives them
_COUNTS = ("seeds", "n_seeds", "seed")


def claim_reads(claims_file: Path) -> dict[str, list[str]]:
    """Per claim id of a claims file, the names its declared texts fill in, in order."""
    data = yaml.safe_load(Path(claims_file).read_text()) or {}
    out = {}
    for c in data.get("claims") or []:
        text = " ".join(str(c.get(k) or "") for k in ("note", "measured", "statement"))
        out[c["id"]] = list(dict.fromkeys(_FIELD.findall(text)))
    return out


def presets(source: Path, profile: str) -> dict[str, Any]:
    """A chapter's parameter presets at ``profile``, read from its source: every
    ``"name": Param(...)`` (or ``Steps``, ``Repeats``, ``Samples``) entry of a dict literal
    whose preset is a literal."""
    try:
        tree = ast.parse(Path(source).read_text())
    except (OSError, SyntaxError):
        return {}
    out = {}
    for node in ast.walk(tree):
        if not isinstance(node, ast.Dict):
            continue
        for k, v in zip(node.keys, node.values):
            if not (isinstance(k, ast.Constant) and isinstance(k.value, str)):
                continue
            if not (isinstance(v, ast.Call) and isinstance(v.func, ast.Name)):
                continue
            at = _PRESET_AT.get(v.func.id, {}).get(profile)
            if at is None or at >= len(v.args):
                continue
            try:
                out[k.value] = ast.literal_eval(v.args[at])
            except ValueError:
                continue
    return out


def sizes(
    params: dict, reads: list[str] | None, preset: dict | None
) -> tuple[str, bool]:
    """The sizes a record's line gives, in words, and whether they are all of its
    parameters: those of its parameters the claim reads (and its seed counts), then the
    ones the claim reads that the run took from its profile (``preset``)."""
    params = {k: v for k, v in params.items() if k != "device"}
    if reads is None:  # the claim's texts are unknown: its first sizes, as before
        short = {k: v for k, v in params.items() if k != "profile"}
        short = {k: short[k] for k in [*list(short)[:3], "seed"] if k in short}
        return reading.parameters_text(short), len(short) == len(params)
    mine = {k: v for k, v in params.items() if k in reads or k in _COUNTS}
    taken = {
        k: (preset or {})[k]
        for k in reads
        if k not in params and k in (preset or {}) and k not in _COUNTS
    }
    text = reading.parameters_text(mine)
    if taken:
        profile = params.get("profile", "book")
        text += f"; at the {profile} profile's " + reading.parameters_text(
            taken
        ).replace("; ", ", ")
    return text, set(mine) | {"profile"} >= set(params)


def gate_failed_words(gate: dict) -> str:
    """A record whose gate failed, in words: what the gate asks, that it did not hold,
    and the value it read."""
    ask = reading.rule_prose(str(gate.get("rule", "")))
    value = gate.get("value")
    got = (
        f" (its value: {reading._value_words(value)})"
        if value not in (None, {})
        else ""
    )
    return (
        f"its gate failed, so its effects decide nothing: the gate asks that {ask}, "
        f"which did not hold{got}"
    )
