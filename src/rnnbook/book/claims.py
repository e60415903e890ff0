r"""Claims declared before they are measured (ARCHITECTURE.md, *The claim ledger*).

Each chapter ``notebooks/<part>/<name>.py`` has a data file beside it, ``<name>.claims.yaml``, that
declares every claim the chapter checks: id, source, statement, the paper's value, the tolerance and
the *rule* that turns the measured values into a verdict, written down before anything runs::

    paper: lsc
    claims:
      - id: lsc.lemma2.identity
        source: Lemma 2
        statement: The mean path count is $\frac{1}{T}\binom{T + \Delta l + 2}{T}$.
        paper_value: $\frac{1}{T}\binom{T + \Delta l + 2}{T}$   # $...$: typeset
        tolerance: exact (symbolic and integer)
        constants: {}                       # numbers the rule may use, e.g. {tol: 0.05}
        rule:                               # first condition that holds gives the verdict
          - reproduced: proven and mismatches == 0
          - otherwise: not-reproduced
        measured: "{mismatches} mismatches in {pairs} pairs"   # how the values are shown
        note: ""                                               # may use {values} too
        trained:                            # training claims: the trained-or-not gate
          rule: best_acc >= 2 * chance      # ... that the networks trained at all
          value: best_acc                   # what the ledger shows of it (default: the
                                            # measured names the rule reads)

A training claim declares its ``rule`` as *effects* instead (the design of book/verdicts.md)::

    rule:
      effects:
        - name: "{key}"                       # one effect per key of 'over'
          over: "['vanilla', 'minimal']"      # optional; binds 'key' in the expressions
          effect: d_seeds[key]                # per-seed samples, or [successes, trials]
          interval: mean                      # mean | bootstrap | wilson | exact | sign
          direction: above                    # above | below | within
          smallest: band                      # the smallest effect that counts as the paper's
          no_effect: 0                        # the value of no effect (default 0)
          range: "[0, 1]"                     # the statistic's range: a t interval is cut
                                              # to it (required with bootstrap)
          paper: 0.08                         # the paper's own effect (a true effect of
                                              # this size must be reproducible)
          spread: 0.05                        # per-seed sd of the statistic (mean,
                                              # bootstrap), from the book ledger; or
          trials_per_seed: 12                 # ... the trials a seed adds (wilson, exact)
          setting: best_acc[key] >= 2 * chance  # optional: the setting can train at all,
                                              # whatever the arm; else it is left out
      combine: all                            # all | {at_least: k}
      not_attempted: not attempted            # optional
    trained: ref_acc >= 2 * chance            # the experiment works: the reference arm
                                              # trained (never a compared arm's outcome)
    power: {seeds: 24, spread_from: "..."}    # the seeds at which the paper's own effect is
                                              # reproduced with probability >= 0.8
    history:                                  # a rule changed after its claim ran
      - {date: 2026-11-26, old_rule: "...", why: "..."}

Each effect is decided from two intervals (:func:`rnnbook.stats.decide_effect`): reproduced
when its 95% interval lies beyond the smallest effect (every effect reproduced is an
intersection-union test, Berger 1982, which needs no adjustment); decided short of the paper,
or against it, from its interval at 1 - 0.05/k (Bonferroni over the claim's k effects, for the
union decisions). The claim's verdict follows (:func:`rnnbook.stats.combine_effects`); a
significant contrary effect is never reproduced or partly-reproduced. The gate ``trained`` asks
that the experiment works at all: when it fails the claim is inconclusive; it never reads a
statistic an effect decides on (a compared arm that did not train counts as a loss inside
the statistic). An effect's ``setting`` rule leaves out a setting in which no arm can train
at this scale, declared before the run and named in the box.

The chapter passes only the measured values (``ledger.check("lsc.lemma2.identity", proven=True,
mismatches=0, pairs=40)``); :func:`decide` applies the declared rule. A rule is a Python expression
over the measured values, the ``constants`` and ``profile``, limited to arithmetic, comparisons,
``and``/``or``/``not``, literals, comprehensions and a few pure functions (:data:`FUNCTIONS`).
A claim whose declared ``trained`` gate fails is ``inconclusive``, whatever its rule says; a claim
with a gate is a training claim and must say how many ``seeds`` stand behind it.
"""

from __future__ import annotations

import ast
import json
import math
import os
import string
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

import yaml

PAPERS = ("lsc", "implicit-bias", "mean-field", "infinite-width", "synthesis")
VERDICTS = (
    "reproduced",
    "partly-reproduced",
    "not-reproduced",
    "inconclusive",
    "not-attempted",
)
FUNCTIONS = {
    "abs": abs,
    "min": min,
    "max": max,
    "all": all,
    "any": any,
    "len": len,
    "sum": sum,
    "round": round,
    "float": float,
    "int": int,
    "bool": bool,
    "isfinite": math.isfinite,
    "sorted": sorted,
    "set": set,
}
_NODES = (
    ast.Expression,
    ast.BoolOp,
    ast.And,
    ast.Or,
    ast.UnaryOp,
    ast.Not,
    ast.USub,
    ast.UAdd,
    ast.BinOp,
    ast.Add,
    ast.Sub,
    ast.Mult,
    ast.Div,
    ast.Pow,
    ast.Mod,
    ast.FloorDiv,
    ast.Compare,
    ast.Eq,
    ast.NotEq,
    ast.Lt,
    ast.LtE,
    ast.Gt,
    ast.GtE,
    ast.In,
    ast.NotIn,
    ast.Is,
    ast.IsNot,
    ast.Name,
    ast.Load,
    ast.Store,
    ast.Constant,
    ast.Call,
    ast.List,
    ast.Tuple,
    ast.Subscript,
    ast.Slice,
    ast.IfExp,
    ast.GeneratorExp,
    ast.ListComp,
    ast.comprehension,
    ast.Dict,
)


class ClaimError(ValueError):
    """A claims file or a measurement does not match its declaration."""


def compile_rule(expr: str, where: str) -> Any:
    """Parse one rule expression, refusing anything but the small expression language."""
    try:
        tree = ast.parse(str(expr), mode="eval")
    except SyntaxError as e:
        raise ClaimError(
            f"{where}: rule {expr!r} is not an expression ({e.msg})"
        ) from None
    for node in ast.walk(tree):
        if not isinstance(node, _NODES):
            raise ClaimError(
                f"{where}: rule {expr!r} uses {type(node).__name__}, which rules may not"
            )
        if isinstance(node, ast.Call) and not (
            isinstance(node.func, ast.Name) and node.func.id in FUNCTIONS
        ):
            raise ClaimError(
                f"{where}: rule {expr!r} calls a function outside {sorted(FUNCTIONS)}"
            )
    return compile(tree, where, "eval")


def evaluate(expr: str, names: Mapping[str, Any], where: str = "rule") -> Any:
    """Evaluate a rule expression over ``names`` (measured values, constants, profile)."""
    code = compile_rule(expr, where)
    missing = sorted(n for n in code.co_names if n not in names and n not in FUNCTIONS)
    comp = {
        n.id
        for n in ast.walk(ast.parse(str(expr), mode="eval"))
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)
    }
    missing = [n for n in missing if n not in comp]
    if missing:
        raise ClaimError(
            f"{where}: rule {expr!r} needs {', '.join(missing)}, which was not measured"
        )
    # names go in the globals, so that comprehensions inside a rule see them too
    return eval(code, {"__builtins__": {}, **FUNCTIONS, **names})


@dataclass(frozen=True)
class Declaration:
    """One declared claim: what is checked, against what, and the rule that decides it."""

    id: str
    paper: str
    source: str
    statement: str
    rule: tuple[tuple[str, str], ...]
    paper_value: Any = None
    tolerance: Any = None
    constants: Mapping[str, Any] = field(default_factory=dict)
    measured: str | None = None
    note: str = ""
    trained: str | None = None
    trained_value: str | None = None
    chapter: str = ""
    effects: tuple[dict, ...] = ()
    # None: all effects; k: at least k of them; "most": more than half, Holm across them
    combine: int | str | None = None
    not_attempted: str | None = None
    history: tuple[dict, ...] = ()
    power: Mapping[str, Any] | None = None
    # measured name -> its role (ROLES); gate_why: why a gate that reads a compared arm
    # cannot hide the outcome (shown in the box)
    roles: Mapping[str, str] = field(default_factory=dict)
    gate_why: str | None = None

    def rule_text(self) -> str:
        """The rule as one line of text (shown in the claim box)."""
        if self.effects:
            return effects_text(self)
        parts = [
            f"{v} if {c}" if c != "otherwise" else f"otherwise {v}"
            for v, c in self.rule
        ]
        return "; ".join(parts)

    def gate_text(self) -> str | None:
        """The trained-or-not gate as the ledger records it: the claim's own gate (the
        experiment works at all)."""
        return self.trained


def _effects(raw: dict, where: str) -> tuple[tuple[dict, ...], int | None, Any]:
    """The effects form of a rule (see the module's docstring), validated."""
    from rnnbook.stats import DIRECTIONS, INTERVALS

    if set(raw) - {"effects", "combine", "not_attempted"} or not raw.get("effects"):
        raise ClaimError(
            f"{where}: a rule mapping takes 'effects' (a list), 'combine' and "
            "'not_attempted'"
        )
    out = []
    for e in raw["effects"]:
        if not isinstance(e, dict) or set(e) - _EFFECT_KEYS:
            raise ClaimError(f"{where}: effect {e!r} takes only {sorted(_EFFECT_KEYS)}")
        for key in ("name", "effect", "direction", "smallest"):
            if key not in e:
                raise ClaimError(f"{where}: effect {e.get('name')!r} needs {key!r}")
        e = {"interval": "mean", "no_effect": 0, **e}
        if e.get("line_source", "paper") not in ("paper", "book"):
            raise ClaimError(
                f"{where}: effect {e['name']!r}: 'line_source' is 'paper' or 'book' "
                "(whose number its smallest effect is)"
            )
        if e["interval"] not in INTERVALS:
            raise ClaimError(f"{where}: interval must be one of {INTERVALS}")
        if e["direction"] not in DIRECTIONS:
            raise ClaimError(f"{where}: direction must be one of {DIRECTIONS}")
        if e["interval"] == "bootstrap" and "range" not in e:
            raise ClaimError(
                f"{where}: effect {e['name']!r} declares a bootstrap interval, which below "
                "ten seeds is Student t: it needs the statistic's 'range' (e.g. [0, 1])"
            )
        if "gate" in e:
            raise ClaimError(
                f"{where}: effect {e['name']!r} has a 'gate': gates guard the experiment "
                "(the claim's 'trained'), never a compared arm; a setting no arm can train "
                "in is left out by a 'setting' rule (book/verdicts.md)"
            )
        for key in (
            "over",
            "effect",
            "setting",
            "smallest",
            "no_effect",
            "range",
            "threshold",
        ):
            if key in e:
                compile_rule(str(e[key]), where)
        for key in ("paper", "spread", "trials_per_seed", "keys"):
            if key in e and not isinstance(e[key], (int, float)):
                raise ClaimError(
                    f"{where}: effect {e['name']!r}: {key!r} must be a number"
                )
        out.append(
            {
                k: v
                if k in ("name", "paper", "spread", "trials_per_seed", "keys")
                else str(v)
                for k, v in e.items()
            }
        )
    combine = raw.get("combine", "all")
    if combine == "all":
        k = None
    elif combine == "most":
        k = "most"
    elif isinstance(combine, dict) and set(combine) == {"at_least"}:
        k = int(combine["at_least"])
    else:
        raise ClaimError(f"{where}: combine must be 'all', 'most' or {{at_least: k}}")
    na = raw.get("not_attempted")
    if na is not None:
        compile_rule(str(na), where)
    return tuple(out), k, None if na is None else str(na)


def _history(raw: Any, where: str) -> tuple[dict, ...]:
    if raw is None:
        return ()
    if not isinstance(raw, list) or not all(
        isinstance(h, dict) and set(h) == {"date", "old_rule", "why"} for h in raw
    ):
        raise ClaimError(
            f"{where}: 'history' is a list of {{date, old_rule, why}} entries"
        )
    return tuple({k: str(v).strip() for k, v in h.items()} for h in raw)


def _rule(raw: Any, where: str) -> tuple[tuple[str, str], ...]:
    if isinstance(raw, str) and raw in VERDICTS:  # a fixed verdict, e.g. not-attempted
        return ((raw, "otherwise"),)
    if not isinstance(raw, list) or not raw:
        raise ClaimError(
            f"{where}: 'rule' must be a list of '<verdict>: <condition>' entries"
        )
    out = []
    for entry in raw:
        if not isinstance(entry, dict) or len(entry) != 1:
            raise ClaimError(
                f"{where}: rule entry {entry!r} must be one '<verdict>: <condition>'"
            )
        ((key, cond),) = entry.items()
        if key == "otherwise":
            key, cond = cond, "otherwise"
        if key not in VERDICTS:
            raise ClaimError(f"{where}: rule verdict {key!r} must be one of {VERDICTS}")
        if cond != "otherwise":
            compile_rule(cond, where)
        out.append((key, str(cond)))
    if out[-1][1] != "otherwise":
        raise ClaimError(f"{where}: the last rule entry must be 'otherwise: <verdict>'")
    return tuple(out)


def _gate(raw: Any, where: str) -> tuple[str | None, str | None]:
    """The trained-or-not gate: a rule, or ``{rule: ..., value: ...}``."""
    if raw is None:
        return None, None
    if isinstance(raw, dict):
        if set(raw) - {"rule", "value"} or "rule" not in raw:
            raise ClaimError(f"{where}: 'trained' takes 'rule' and optionally 'value'")
        rule, value = str(raw["rule"]), raw.get("value")
    else:
        rule, value = str(raw), None
    compile_rule(rule, where)
    if value is not None:
        compile_rule(str(value), where)
    return rule, None if value is None else str(value)


_KEYS = {
    "power",
    "id",
    "source",
    "statement",
    "paper_value",
    "tolerance",
    "constants",
    "rule",
    "measured",
    "note",
    "trained",
    "history",
    "roles",
    "gate_why",
}
#: the roles a training claim's measured names play (``roles:``): the arm the experiment's
#: working is judged by, the arms the claim compares, and properties of the task or set-up
ROLES = ("reference", "compared", "setup")
_EFFECT_KEYS = {
    "line_source",  # paper | book: whose number the smallest effect is (the box says)
    "name",
    "over",
    "effect",
    "interval",
    "direction",
    "smallest",
    "no_effect",
    "gate",  # refused with a reason (gates guard the experiment, not an arm)
    "range",
    "paper",
    "spread",
    "trials_per_seed",
    "keys",
    "setting",
    "threshold",  # a sign effect's per-seed threshold (its no_effect is the share's: 1/2)
}
#: "every effect reproduced": each effect's interval at this level (intersection-union)
LEVEL = 0.95
#: the union decisions (an effect short or against the paper, partly) at 1 - ALPHA/k
ALPHA = 0.05


def _power(raw: Any, where: str) -> dict | None:
    """A claim's declared power analysis: ``{seeds: N, spread_from: "..."}``, and for a
    claim whose data admit no independent replication, ``replication: "why not"`` (it gets
    no confirmatory record; its box says why)."""
    if raw is None:
        return None
    if (
        not isinstance(raw, dict)
        or set(raw) - {"seeds", "spread_from", "why", "replication"}
        or not isinstance(raw.get("seeds"), int)
        or raw["seeds"] < 2
    ):
        raise ClaimError(
            f"{where}: 'power' is {{seeds: N >= 2, spread_from: '...', why: '...', "
            "replication: 'why no run can replicate it' (optional)}}"
        )
    return dict(raw)


def load(path: Path, chapter: str = "") -> dict[str, Declaration]:
    """Read and validate one chapter's claims file; returns the declarations by id, in file order."""
    path = Path(path)
    try:
        data = yaml.safe_load(path.read_text())
    except OSError:
        raise ClaimError(
            f"no claims file {path}: every chapter declares its claims there"
        ) from None
    except yaml.YAMLError as e:  # the file and line, not a bare ParserError
        mark = getattr(e, "problem_mark", None)
        where = f"{path}:{mark.line + 1}:{mark.column + 1}" if mark else str(path)
        raise ClaimError(f"{where}: {getattr(e, 'problem', None) or e}") from None
    if not isinstance(data, dict) or data.get("paper") not in PAPERS:
        raise ClaimError(
            f"{path}: needs 'paper:' (one of {PAPERS}) and a 'claims:' list"
        )
    out: dict[str, Declaration] = {}
    for raw in data.get("claims") or []:
        where = (
            f"{path.name}: claim {raw.get('id')!r}"
            if isinstance(raw, dict)
            else str(path)
        )
        if not isinstance(raw, dict):
            raise ClaimError(f"{where}: each claim is a mapping")
        unknown = set(raw) - _KEYS
        if unknown:
            raise ClaimError(
                f"{where}: unknown key(s) {sorted(unknown)}; allowed: {sorted(_KEYS)}"
            )
        for key in ("id", "source", "statement", "rule"):
            if not raw.get(key):
                raise ClaimError(f"{where}: {key!r} must be given")
        if raw["id"] in out:
            raise ClaimError(f"{where}: declared twice")
        if not str(raw["id"]).startswith(data["paper"] + "."):
            raise ClaimError(f"{where}: the id must start with the paper's short name")
        gate, gate_value = _gate(raw.get("trained"), where)
        effects, combine, not_attempted = (), None, None
        if isinstance(raw["rule"], dict):
            if gate is None:
                raise ClaimError(f"{where}: a rule of effects needs a 'trained' gate")
            effects, combine, not_attempted = _effects(raw["rule"], where)
            raw = {**raw, "rule": [{"otherwise": "inconclusive"}]}
        out[raw["id"]] = Declaration(
            id=raw["id"],
            paper=data["paper"],
            source=str(raw["source"]),
            statement=str(raw["statement"]).strip(),
            rule=_rule(raw["rule"], where),
            paper_value=raw.get("paper_value"),
            tolerance=raw.get("tolerance"),
            constants=dict(raw.get("constants") or {}),
            measured=_template(raw.get("measured"), "measured", where),
            note=_template(str(raw.get("note") or "").strip(), "note", where),
            trained=gate,
            trained_value=gate_value,
            chapter=chapter,
            effects=effects,
            combine=combine,
            not_attempted=not_attempted,
            history=_history(raw.get("history"), where),
            power=_power(raw.get("power"), where),
            roles=_roles(raw.get("roles"), where),
            gate_why=" ".join(str(raw["gate_why"]).split())
            if raw.get("gate_why")
            else None,
        )
    return out


def _roles(raw: Any, where: str) -> dict[str, str]:
    """``roles: {reference: [names], compared: [names], setup: [names]}`` as name -> role."""
    if raw is None:
        return {}
    if not isinstance(raw, dict) or set(raw) - set(ROLES):
        raise ClaimError(f"{where}: 'roles' maps each of {ROLES} to a list of names")
    out: dict[str, str] = {}
    for role, names in raw.items():
        if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
            raise ClaimError(f"{where}: roles.{role} must be a list of measured names")
        for n in names:
            if n in out:
                raise ClaimError(f"{where}: {n!r} has two roles")
            out[n] = role
    return out


def rule_names(expr: str, d: "Declaration") -> list[str]:
    """The measured names an expression reads: its names less the constants, the rule
    functions, ``profile`` and the names a comprehension binds."""
    tree = ast.parse(expr, mode="eval")
    bound = {
        n.id
        for c in ast.walk(tree)
        if isinstance(c, ast.comprehension)
        for n in ast.walk(c.target)
        if isinstance(n, ast.Name)
    }
    skip = bound | set(FUNCTIONS) | set(d.constants) | {"profile"}
    names = [n.id for n in ast.walk(tree) if isinstance(n, ast.Name)]
    return list(dict.fromkeys(n for n in names if n not in skip))


def gate_roles(d: "Declaration") -> dict[str, str | None]:
    """Each measured name the claim's gate reads, with its declared role (None: none)."""
    if d.trained is None:
        return {}
    return {n: d.roles.get(n) for n in rule_names(d.trained, d)}


def repo_root() -> Path:
    """The repository: ``RNNBOOK_ROOT`` (the pipeline sets it), else the nearest folder above the
    working directory that holds ``_toc.yml``."""
    if os.environ.get("RNNBOOK_ROOT"):
        return Path(os.environ["RNNBOOK_ROOT"])
    here = Path.cwd().resolve()
    for folder in (here, *here.parents):
        if (folder / "_toc.yml").exists():
            return folder
    return here


def claims_file(chapter: str, root: Path | None = None) -> Path:
    """``notebooks/<chapter>.claims.yaml`` for a chapter named like ``lsc/lemma2_paths``."""
    chapter = chapter.removeprefix("notebooks/")
    return (root or repo_root()) / "notebooks" / f"{chapter}.claims.yaml"


def all_declared(root: Path) -> dict[str, Declaration]:
    """Every claim declared beside any chapter under ``root/notebooks``."""
    out: dict[str, Declaration] = {}
    for path in sorted((Path(root) / "notebooks").rglob("*.claims.yaml")):
        chapter = str(path.relative_to(root)).removesuffix(".claims.yaml")
        for cid, d in load(path, chapter).items():
            if cid in out:
                raise ClaimError(
                    f"claim {cid} is declared in {out[cid].chapter} and in {chapter}"
                )
            out[cid] = d
    return out


@dataclass(frozen=True)
class Decision:
    verdict: str
    measured: Any
    note: str
    trained: dict | None
    effects: list | None = None


class _Fmt(dict):
    def __missing__(self, key: str) -> str:
        raise ClaimError(
            f"the display template needs {{{key}}}, which was not measured"
        )


def _template(text: Any, key: str, where: str) -> Any:
    """A display template (``measured``, ``note``), checked when it is declared: a stray
    brace would otherwise fail only once the claim has been measured."""
    if text is None:
        return None
    try:
        fields = [
            f for _, f, _, _ in string.Formatter().parse(str(text)) if f is not None
        ]
    except ValueError as e:
        raise ClaimError(
            f"{where}: {key!r} is not a display template ({e}); write a literal brace "
            "as {{ or }}"
        ) from None
    if any(not f or f[0].isdigit() for f in fields):
        raise ClaimError(
            f"{where}: {key!r} has a positional field {{}}; name the measured value"
        )
    return text


def _show(template: str, names: Mapping[str, Any], where: str) -> str:
    try:
        return template.format_map(_Fmt(names))
    except ClaimError as e:
        raise ClaimError(f"{where}: {e}") from None


def plain(x: Any) -> Any:
    """numpy/torch scalars and arrays as Python values (NaN stays a float, so comparisons work)."""
    if hasattr(x, "tolist"):
        x = x.tolist()
    if isinstance(x, (list, tuple)):
        return [plain(v) for v in x]
    if isinstance(x, dict):
        return {k: plain(v) for k, v in x.items()}
    return x


def decide(d: Declaration, values: Mapping[str, Any], profile: str) -> Decision:
    """Apply the declared gate and rule to the measured ``values``."""
    values = {k: plain(v) for k, v in values.items()}
    clash = set(values) & set(d.constants)
    if clash:
        raise ClaimError(
            f"claim {d.id}: {sorted(clash)} are declared constants, not measurements"
        )
    names = {**d.constants, **values, "profile": profile}
    if d.effects:
        return _decide_effects(d, names)
    trained = None
    if d.trained is not None:
        where = f"claim {d.id} (trained)"
        ok = bool(evaluate(d.trained, names, where))
        if d.trained_value is not None:
            value = evaluate(d.trained_value, names, where)
        else:
            used = [n for n in compile_rule(d.trained, where).co_names if n in values]
            value = values[used[0]] if len(used) == 1 else {n: values[n] for n in used}
        trained = {"rule": d.trained, "value": plain(value), "passed": ok}
    verdict = None
    unmeasured = not_a_number(d, values)
    if trained is not None and not trained["passed"]:
        verdict = "inconclusive"
    elif unmeasured:
        verdict = "inconclusive"  # a NaN decides nothing, whatever the rule would say
    else:
        for v, cond in d.rule:
            if cond == "otherwise" or evaluate(cond, names, f"claim {d.id}"):
                verdict = v
                break
    if d.measured is not None:
        measured = _show(d.measured, names, f"claim {d.id}")
    elif "measured" in values:
        measured = values["measured"]
    else:
        measured = dict(values) or None
    note = _show(d.note, names, f"claim {d.id}") if d.note else ""
    if unmeasured and not (trained is not None and not trained["passed"]):
        note = (note + " " if note else "") + UNMEASURED
    return Decision(verdict=verdict, measured=measured, note=note, trained=trained)


#: the note of a claim whose rule reads a value that is not a number
UNMEASURED = (
    "A value the rule reads came out as not a number in this run, so the rule cannot "
    "decide it: the claim is inconclusive."
)


def _nan(x: Any) -> bool:
    if isinstance(x, float):
        return math.isnan(x)
    if isinstance(x, (list, tuple)):
        return any(_nan(v) for v in x)
    if isinstance(x, dict):
        return any(_nan(v) for v in x.values())
    return False


def not_a_number(d: Declaration, values: Mapping[str, Any]) -> list[str]:
    """The measured values that a rule of ``d`` reads and that are, or hold, a NaN: a
    measured NaN makes the claim inconclusive, never a verdict."""
    read: set[str] = set()
    for _, cond in d.rule:
        if cond != "otherwise":
            read |= set(compile_rule(cond, f"claim {d.id}").co_names)
    return sorted(n for n in read if n in values and _nan(plain(values[n])))


def _fmt(x: float) -> str:
    return f"{x:.3g}" if math.isfinite(x) else str(x)


_SIDE = {"above": "above", "below": "below", "within": "within ±"}
_INTERVAL_WORDS = {
    "mean": "the mean over seeds, with its Student-t interval",
    "bootstrap": "the mean over seeds, with a bootstrap interval (Student t below ten seeds)",
    "wilson": "the share of the pooled trials, with its Wilson interval",
    "exact": "the share of the pooled trials, with its exact binomial interval",
    "sign": (
        "the share of seeds on the paper's side among the seeds that prefer a side (ties "
        "leave it and are counted), with its exact binomial interval"
    ),
}


def _num(x: Any) -> str:
    """A declared number for reading: ``0.6``, ``-0.02``; an expression stays as given."""
    try:
        return f"{float(x):.3g}"
    except (TypeError, ValueError):
        return str(x)


def effect_sentence(e: dict, constants: Mapping[str, Any] | None = None) -> str:
    """One declared effect's rule as a sentence, in words (the claim box shows it)."""
    names = dict(constants or {})

    def val(key: str, default: Any = None) -> str:
        raw = e.get(key, default)
        try:
            return _num(evaluate(str(raw), names, "effect"))
        except ClaimError:
            return _num(raw)

    name = str(e["name"]).replace("{key}", "each setting")
    side = e["direction"]
    small, null = val("smallest"), val("no_effect", 0)
    how = _INTERVAL_WORDS.get(e.get("interval", "mean"), e.get("interval", "mean"))
    if side == "within":
        core = (
            f"reproduced if its 95% interval lies within ±{small.lstrip('-')} of {null}; "
            "not reproduced if the adjusted interval lies outside that band"
        )
    else:
        beyond, short = ("above", "below") if side == "above" else ("below", "above")
        core = (
            f"reproduced if its 95% interval lies {beyond} {small}; not reproduced if "
            f"the adjusted interval lies {short} {small}, against the paper if it lies "
            f"{short} {null}"
        )
    paper = f" (the paper's own effect: {_num(e['paper'])})" if "paper" in e else ""
    left = (
        " A setting in which no arm can train at this scale is left out, by a rule "
        "declared before the run."
        if "setting" in e
        else ""
    )
    return f"{name}: {how}; {core}{paper}.{left}"


def effects_text(d: Declaration) -> str:
    """The effects rule in words (shown in the claim box)."""
    k = "the claim's k effects"
    if d.combine is None:
        how = "every effect reproduced"
    elif d.combine == "most":
        return (
            "Each effect is tested one-sided against its line, and Holm's step-down "
            "procedure keeps the family's error at 5% across the effects. The claim is "
            "reproduced when more than half of the effects are found beyond their line, "
            "not reproduced when so many are found short of it that no majority is left. "
            + " ".join(effect_sentence(e, d.constants) for e in d.effects)
        )
    else:
        how = f"at least {d.combine} effects reproduced (at the adjusted level)"
    return (
        f"Each effect is reproduced when its 95% interval lies beyond the smallest effect "
        f"that counts as the paper's; it is decided short of it, or against the paper, from "
        f"its interval at level 1 - 0.05/k over {k} (book/verdicts.md). The claim is "
        f"reproduced with {how}. "
        + " ".join(effect_sentence(e, d.constants) for e in d.effects)
    )


def _decide_effects(
    d: Declaration, names: dict, measure=None, keys=None, gate_passed=None
) -> Decision:
    """Apply an effects rule (book/verdicts.md). ``measure(effect, key)`` may stand in for the
    measurements: it returns ``(data, setting trains)``, ``keys(effect)`` the keys of its
    ``over`` and ``gate_passed`` the experiment's gate (the rule-engine tests feed synthetic
    data through them)."""
    from rnnbook.stats import (
        Interval,
        combine_effects,
        decide_effect,
        effect_interval,
        sign_ties,
    )

    where = f"claim {d.id}"
    measured, note = None, ""
    if measure is None:
        if d.measured is not None:
            measured = _show(d.measured, names, where)
        note = _show(d.note, names, where) if d.note else ""
        if d.not_attempted and evaluate(d.not_attempted, names, where):
            return Decision("not-attempted", measured, note, None, [])
        passed = bool(evaluate(d.trained, names, f"{where} (trained)"))
        if d.trained_value is not None:
            value = plain(evaluate(d.trained_value, names, f"{where} (trained)"))
        else:
            used = [n for n in compile_rule(d.trained, where).co_names if n in names]
            value = {n: plain(names[n]) for n in used if n not in d.constants}
            value = next(iter(value.values())) if len(value) == 1 else value
    else:
        passed, value = (True if gate_passed is None else bool(gate_passed)), None
    runs = []
    for e in d.effects:
        if keys is not None:
            over = keys(e)
        else:
            over = evaluate(e["over"], names, where) if "over" in e else [None]
        runs += [(e, key) for key in over]
    if not runs:
        raise ClaimError(f"{where}: no effect to decide (an empty 'over')")
    rows = []
    for e, key in runs:
        nk = {**names, "key": key}
        name = str(e["name"]).format(key=key)
        if measure is not None:
            data, in_setting = measure(e, key)
        else:
            in_setting = "setting" not in e or bool(
                evaluate(e["setting"], nk, f"{where} ({name}, setting)")
            )
            data = evaluate(e["effect"], nk, f"{where} ({name})")
        rows.append((e, key, nk, name, plain(data), bool(in_setting)))
    k = max(1, sum(1 for r in rows if r[5]))
    level_k = 1 - ALPHA / k
    effects = []
    for e, key, nk, name, data, in_setting in rows:
        smallest = float(evaluate(e["smallest"], nk, where))
        null = float(evaluate(e["no_effect"], nk, where))
        bounds = evaluate(e["range"], nk, where) if "range" in e else None
        if (
            bounds is not None
            and not bounds[0] <= min(smallest, null) <= max(smallest, null) <= bounds[1]
        ):
            raise ClaimError(
                f"{where} ({name}): 'range' {bounds} must hold its smallest effect "
                f"{smallest} and its value of no effect {null}"
            )
        threshold = float(evaluate(e.get("threshold", "0"), nk, where))
        ivs = []
        for lvl in (LEVEL, level_k):
            try:
                ivs.append(
                    effect_interval(e["interval"], data, lvl, null, bounds, threshold)
                )
            except ValueError:  # nothing to compare (no seed, no trial)
                ivs.append(Interval(math.nan, math.nan, math.nan, 0, lvl))
        iv, ivk = ivs
        at95, _ = decide_effect(iv, e["direction"], smallest, null)
        atk, contrary = decide_effect(ivk, e["direction"], smallest, null)
        if at95 == "reproduced":
            decision = "reproduced"
        elif atk == "not-reproduced":
            decision = "not-reproduced"
        else:
            decision = "inconclusive"
        if not in_setting:
            decision, contrary, atk = "left out", False, "left out"
        effects.append(
            {
                "name": name,
                "estimate": iv.mean,
                "lo": iv.lo,
                "hi": iv.hi,
                "level": LEVEL,
                "lo_k": ivk.lo,
                "hi_k": ivk.hi,
                "level_k": round(level_k, 5),
                "n": iv.n,
                "interval": _interval_name(e["interval"], data),
                "kind": e["interval"],
                "direction": e["direction"],
                "smallest": smallest,
                "null": null,
                "paper": e.get("paper"),
                "clears": clears(e["direction"], iv.lo, iv.hi, null),
                "line_source": e.get("line_source"),
                "in_setting": in_setting,
                "decision": decision,
                "strong": atk == "reproduced",
                "contrary": contrary,
                # what a changed rule needs to decide again without a re-run (redecide)
                "statistic": e.get("effect"),
                "key": plain(key),
                "data": data,
            }
        )
        if e["interval"] == "sign":
            effects[-1]["ties"] = sign_ties(data, threshold) if in_setting else 0
            effects[-1]["threshold"] = threshold
    decided = [x for x in effects if x["in_setting"]]
    if not passed or not decided:
        verdict = "inconclusive"
    elif d.combine == "most":
        verdict = _most(decided)
    else:
        verdict = combine_effects(
            [x["decision"] for x in decided],
            [x["contrary"] for x in decided],
            d.combine,
            [x["strong"] for x in decided],
        )
    trained = {"rule": d.gate_text(), "value": value, "passed": passed}
    lines = "; ".join(_effect_line(x) for x in effects)
    measured = f"{measured}. Decided: {lines}" if measured else f"Decided: {lines}"
    return Decision(verdict, measured, note, trained, effects)


def _most(effects: list[dict]) -> str:
    """'In most settings' (``combine: most``): each effect tested one-sided against its line,
    beyond it and short of it, each family by Holm's step-down procedure at the one-sided
    level of a 95% interval; reproduced when more than half of the effects are beyond
    their line, not reproduced when more than the rest are short of it (no majority left),
    and against the paper when that many lie past the value of no effect. Each effect's
    ``decision`` is rewritten to its Holm outcome (``holm`` marks it)."""
    from rnnbook.stats import holm_rejections, one_sided_p

    n = len(effects)
    need = n // 2 + 1
    alpha = (1 - LEVEL) / 2

    def ps(line_key: str, side_of) -> list[float]:
        return [
            one_sided_p(
                x["kind"],
                x["data"],
                x[line_key],
                side_of(x["direction"]),
                x.get("threshold", 0.0),
            )
            for x in effects
        ]

    def same(side):
        return side

    def flip(side):
        return "below" if side == "above" else "above"

    for x in effects:
        if x["direction"] == "within":
            raise ClaimError("combine 'most' takes effects above or below their line")
    beyond = holm_rejections(ps("smallest", same), alpha)
    short = holm_rejections(ps("smallest", flip), alpha)
    against = holm_rejections(ps("null", flip), alpha)
    for x, b, s_, a in zip(effects, beyond, short, against):
        x["decision"] = (
            "reproduced" if b else "not-reproduced" if s_ else "inconclusive"
        )
        x["strong"], x["contrary"], x["holm"] = b, a, True
    if sum(beyond) >= need:
        return "reproduced"
    if sum(short) > n - need:
        return "not-reproduced"
    return "inconclusive"


def fingerprint(d: Declaration) -> str:
    """The decision rule of a claim (effects, lines, gate, constants) as a short hash: a
    record keeps it, so that a rule changed after the record ran is seen."""
    import hashlib

    # whose number a line is (line_source) is shown, not decided on
    effects = [{k: v for k, v in e.items() if k != "line_source"} for e in d.effects]
    raw = [effects, dict(d.constants), d.trained, d.combine, d.not_attempted]
    raw += [list(d.rule)]
    text = json.dumps(raw, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def redecide(d: Declaration, claim: Mapping[str, Any]) -> Decision | None:
    """Decide a recorded claim again under ``d``'s rule from the per-effect data it kept
    (ARCHITECTURE.md, *Records*); ``None`` where it cannot: no data kept, a statistic the
    record did not measure, or a gate other than the one it ran under."""
    kept = [e for e in claim.get("effects") or [] if "data" in e]
    gate = claim.get("trained") or {}
    if not d.effects or not kept or gate.get("rule") != d.gate_text():
        return None
    found: dict[tuple[str, str], dict] = {}
    for e in d.effects:
        for r in kept:
            if r.get("statistic") == e["effect"]:
                if str(e["name"]).format(key=r.get("key")) == r["name"]:
                    found[(str(e["name"]), json.dumps(r.get("key")))] = r
    if any(not any(k[0] == str(e["name"]) for k in found) for e in d.effects):
        return None

    def keys(e):
        return [json.loads(k[1]) for k in found if k[0] == str(e["name"])]

    def measure(e, key):
        r = found[(str(e["name"]), json.dumps(key))]
        return r["data"], r["in_setting"]

    names = {**d.constants, "profile": claim.get("profile")}
    dec = _decide_effects(d, names, measure, keys, bool(gate.get("passed")))
    trained = {**dec.trained, "value": gate.get("value")}
    before = str(claim.get("measured") or "").split("Decided: ")[0]
    return Decision(dec.verdict, before + dec.measured, "", trained, dec.effects)


def effect_keys(d: Declaration, e: dict) -> int:
    """How many effects one declared effect makes: the length of a literal ``over``, else
    its declared ``keys`` (an ``over`` that reads a measured list)."""
    if "over" not in e:
        return 1
    try:
        return len(ast.literal_eval(e["over"]))
    except (ValueError, SyntaxError):
        pass
    try:
        return len(evaluate(e["over"], {**d.constants, "profile": "book"}))
    except ClaimError:
        if "keys" not in e:
            raise ClaimError(
                f"claim {d.id}: effect {e['name']!r} reads its settings from the run; "
                "declare how many with 'keys' (for its power analysis)"
            ) from None
        return int(e["keys"])


def claim_power(d: Declaration, seeds: int) -> float:
    """The chance that the claim is ``reproduced`` at ``seeds`` seeds when every effect is
    exactly the paper's (``paper``), each with its declared per-seed ``spread`` or
    ``trials_per_seed``: the product of its effects' chances (taken as independent)."""
    names = {**d.constants, "profile": "book"}
    if d.combine == "most":
        return _most_power(d, seeds, names)
    total = 1.0
    for e in d.effects:
        total *= _effect_power(d, e, seeds, names, LEVEL) ** effect_keys(d, e)
    return total


def _effect_power(d: Declaration, e: dict, seeds: int, names: dict, level: float):
    """One declared effect's chance of being found beyond its line at ``level`` when it is
    exactly the paper's (:func:`rnnbook.stats.power_to_reproduce`)."""
    from rnnbook.stats import power_to_reproduce

    if "paper" not in e:
        raise ClaimError(f"claim {d.id}: effect {e['name']!r} needs 'paper'")
    return power_to_reproduce(
        e.get("interval", "mean"),
        e["direction"],
        float(e["paper"]),
        float(evaluate(e["smallest"], names, d.id)),
        float(evaluate(e["no_effect"], names, d.id)),
        seeds,
        e.get("spread"),
        e.get("trials_per_seed"),
        level,
    )


def _most_power(d: Declaration, seeds: int, names: dict) -> float:
    """The chance of 'most effects' (``combine: most``) at ``seeds`` seeds when every
    effect is the paper's: each effect's power at the Bonferroni level (a lower bound for
    Holm's), taken as independent, and the chance that more than half of them pass."""
    from scipy import stats as _st

    n = sum(effect_keys(d, e) for e in d.effects)
    p = []
    for e in d.effects:
        p += [_effect_power(d, e, seeds, names, 1 - ALPHA / n)] * effect_keys(d, e)
    return float(_st.binom.sf(n // 2, n, sum(p) / n))


def _interval_name(kind: str, data) -> str:
    """The interval as used: a declared bootstrap over too few seeds says it took Student t."""
    from rnnbook.stats import BOOTSTRAP_MIN_SEEDS, interval_used

    try:
        used = interval_used(kind, data)
    except (TypeError, ValueError):
        return kind
    if used != kind:
        return f"t (a bootstrap needs >= {BOOTSTRAP_MIN_SEEDS} seeds)"
    return kind


def clears(direction: str, lo: float, hi: float, null: float) -> float | None:
    """The largest line an effect's 95% interval ``[lo, hi]`` clears, so that a reader sees
    how much rides on the declared line: for an effect above its line, the interval's lower
    end (the data support an effect of at least that); below, its upper end (at most that);
    within a band around no effect, the narrowest band around ``null`` that holds the
    interval. ``None`` where the interval is not finite."""
    if not (math.isfinite(lo) and math.isfinite(hi)):
        return None
    if direction == "above":
        return float(lo)
    if direction == "below":
        return float(hi)
    return float(max(abs(lo - null), abs(hi - null)))


def _effect_line(x: dict) -> str:
    sign = {"above": ">", "below": "<", "within": "within ±"}[x["direction"]]
    why = x["decision"]
    if not x["in_setting"]:
        why = "left out (no arm can train in this setting at this scale)"
    elif x["contrary"]:
        why += " (significant effect against the paper)"
    elif x["hi"] - x["lo"] <= 1e-12 * max(1.0, abs(x["estimate"])) or not math.isfinite(
        x["hi"] - x["lo"]
    ):
        why += " (the interval has no width: it decides nothing)"
    return (
        f"{x['name']} {_fmt(x['estimate'])} [{_fmt(x['lo'])}, {_fmt(x['hi'])}] "
        f"(95% {x['interval']}, n={x['n']}; at {x['level_k']:.2%}: "
        f"[{_fmt(x['lo_k'])}, {_fmt(x['hi_k'])}]) vs {sign} {_fmt(x['smallest'])}: {why}"
    )
