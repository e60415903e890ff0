"""The claim ledger (ARCHITECTURE.md, *The claim ledger*).

A chapter opens the ledger of its declared claims (:mod:`rnnbook.book.claims`) with
``Ledger("lsc/lemma2_paths", P.profile)`` and passes what it measured with :meth:`Ledger.check`; the
declared rule gives the verdict. Each record is written as one JSON file into the build folder (``_build/claims/<id>.json``, or the folder named by ``RNNBOOK_CLAIMS_DIR``);
the pipeline collects them into ``_build/claims.json``.
"""

from __future__ import annotations

import ast
import html
import json
import math
import os
import re
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

from rnnbook.cache import build_dir

from . import claims as _claims
from .claims import PAPERS, VERDICTS, ClaimError
from . import reading as _reading
from .reading import code_words, finding, gate_words, prose_md, rule_prose

FIELDS = (
    "id",
    "paper",
    "source",
    "statement",
    "paper_value",
    "measured",
    "tolerance",
    "verdict",
    "profile",
    "note",
    "rule",
    "seeds",
    "trained",
)
_ID = re.compile(r"^[a-z0-9][a-z0-9_.\-]*$")


def claims_dir() -> Path:
    return Path(os.environ.get("RNNBOOK_CLAIMS_DIR", build_dir() / "claims"))


def _jsonable(x: Any) -> Any:
    """Numbers, lists and strings as JSON; numpy/torch scalars and arrays become Python values."""
    if hasattr(x, "tolist"):
        x = x.tolist()
    if isinstance(x, (list, tuple)):
        return [_jsonable(v) for v in x]
    if isinstance(x, dict):
        return {str(k): _jsonable(v) for k, v in x.items()}
    if isinstance(x, float) and not math.isfinite(x):
        return str(x)
    if x is None or isinstance(x, (bool, int, float, str)):
        return x
    return str(x)


@dataclass
class Claim:
    id: str
    paper: str
    source: str
    statement: str
    paper_value: Any
    measured: Any
    tolerance: Any
    verdict: str
    profile: str
    note: str = ""
    chapter: str = ""
    rule: str = ""
    seeds: int | None = None
    trained: dict | None = None
    history: list | None = None
    values: dict | None = None
    effects: list | None = None  # per effect: interval, smallest effect, decision
    extra: dict = field(default_factory=dict)

    def _repr_markdown_(self) -> str:
        """The claim box shown in the chapter where the claim is decided.

        It carries the claim id as its HTML anchor (``chapter.html#<id>``) and links back to the
        claim's row on the scorecard."""
        kind = {
            "reproduced": "tip",
            "partly-reproduced": "warning",
            "not-reproduced": "danger",
            "inconclusive": "note",
            "not-attempted": "note",
        }[self.verdict]
        doc = self.chapter or None
        anchor = f'<span id="{self.id}" class="claim-anchor"></span>'
        found, rest = short_finding(finding(asdict(self)))
        back = scorecard_url(self.chapter, self.id) if self.chapter else ""
        link = (
            f' <a class="claim-back" href="{back}">(on the scorecard)</a>'
            if back
            else ""
        )
        rows = [
            f"{anchor}**Found.** {prose_md(found, doc)}",
            "",
            f"**Claim.** {md_math(self.statement)}{link}",
            "",
        ]
        if self.paper_value is not None:
            rows.append(f"- **paper**:{value_md(self.paper_value, math=True)}")
        measured = self.measured
        if self.effects and isinstance(measured, str):
            measured = measured.partition("Decided: ")[0].rstrip(". ") or None
        measured, measured_rest = first_clause(measured)
        if measured is not None:
            rows.append(f"- **measured** ({self.profile} profile):{inline(measured)}")
        more = []  # folded: each effect, the rule, the gate, the seeds, how it was run
        if rest:
            more.append(f"- **the finding in full**: {prose_md(rest, doc)}")
        if measured_rest:
            more.append(f"- **measured, the rest**: {prose_md(measured_rest, doc)}")
        more.append(f'- **claim id**: <span class="claim-id">{self.id}</span>')
        if self.effects:
            more.append("- **each effect**, decided on its own interval:")
            more += [f"  - {effect_text(e, doc)}" for e in self.effects]
        if self.tolerance is not None:
            tol = self.tolerance
            tol = prose_md(tol, doc) if isinstance(tol, str) else md_cell(tol, None)
            more.append(f"- **tolerance**: {tol}")
        if self.rule:
            more += rule_rows(self.rule, self.history, self.effects, doc)
        if self.trained is not None:
            more.append(f"- **gate**: {trained_text(self.trained)}")
            if self.extra.get("gate_why"):
                more.append(f"  {prose_md(self.extra['gate_why'], doc)}")
        if self.seeds is not None:
            more.append(f"- **seeds**: {seeds_text(self.seeds)}")
        if self.note:
            more.append(f"- **how it was run**: {prose_md(self.note, doc)}")
        code = self.extra.get("rule_code") or ("" if self.effects else self.rule)
        if code:
            more += [
                "",
                '<details class="claim-code"><summary>the rule as code</summary>',
                "",
                "```text",
                *str(code).rstrip().splitlines(),
                "```",
                "",
                "</details>",
            ]
        if more:
            rows += [
                "",
                '<details class="claim-more"><summary>how it was decided: '
                + ("each effect, " if self.effects else "")
                + "the rule, gate, seeds and how it was run</summary>",
                "",
                *more,
                "",
                "</details>",
            ]
        return "\n".join(
            [
                f"::::{{admonition}} {prose_md(self.source)}: {self.verdict}",
                f":class: {kind} claim-box",
                "",
                *rows,
                "::::",
            ]
        )

    def _ipython_display_(self) -> None:
        """Show the box once: :meth:`Ledger.check` already shows it where the claim is decided,
        so a check that is also the last expression of its cell (or passed to ``display``) does
        not show it twice."""
        if not self._shown:
            show(self)

    def __post_init__(self) -> None:
        if not isinstance(self.id, str) or not _ID.match(self.id):
            raise ValueError(
                f"claim id {self.id!r}: must be lower-case letters, digits, '.', '-' or '_'"
            )
        if self.paper not in PAPERS:
            raise ValueError(
                f"claim {self.id}: paper {self.paper!r} must be one of {PAPERS}"
            )
        if not self.id.startswith(self.paper.split("-")[0]):
            raise ValueError(
                f"claim {self.id}: id must start with the paper's short name"
            )
        if self.verdict not in VERDICTS:
            raise ValueError(
                f"claim {self.id}: verdict {self.verdict!r} must be one of {VERDICTS}"
            )
        if self.verdict == "not-attempted" and not self.note:
            raise ValueError(
                f"claim {self.id}: a not-attempted claim needs the reason in 'note'"
            )
        for name in ("source", "statement"):
            if not getattr(self, name):
                raise ValueError(f"claim {self.id}: {name!r} must not be empty")
        self.paper_value = _jsonable(self.paper_value)
        self.measured = _jsonable(self.measured)
        self.tolerance = _jsonable(self.tolerance)
        self._shown = False


class Ledger:
    """Records the claims of one chapter at one profile, against the chapter's declarations.

    ``Ledger("lsc/lemma2_paths", profile)`` reads ``notebooks/lsc/lemma2_paths.claims.yaml``;
    :meth:`check` applies a declared rule to the measured values and records the claim.
    """

    def __init__(self, chapter: str, profile: str, root: Path | None = None) -> None:
        self.chapter = "notebooks/" + chapter.removeprefix("notebooks/")
        self.declared = _claims.load(_claims.claims_file(chapter, root), self.chapter)
        papers = {d.paper for d in self.declared.values()}
        self.paper = papers.pop() if papers else ""
        self.profile = profile
        self.claims: list[Claim] = []

    def check(
        self, id: str, *, seeds: int | None = None, note: str = "", **values: Any
    ) -> Claim:
        """Record declared claim ``id`` from its measured ``values``; the declared rule decides.

        ``note`` is appended to the declared note (for what only the run can say)."""
        if id not in self.declared:
            raise ClaimError(
                f"claim {id!r} is not declared in {self.chapter}.claims.yaml; "
                f"declared: {', '.join(self.declared)}"
            )
        d = self.declared[id]
        if d.trained is not None and (not isinstance(seeds, int) or seeds < 1):
            raise ClaimError(
                f"claim {id!r} is a training claim (it declares a trained gate): "
                "pass seeds=<number of independent seeds behind it>"
            )
        dec = _claims.decide(d, values, self.profile)
        full_note = " ".join(x for x in (dec.note, note) if x)
        if dec.verdict == "not-attempted" and not full_note:
            full_note = "not attempted"
        claim = Claim(
            id=id,
            paper=d.paper,
            source=d.source,
            statement=d.statement,
            paper_value=d.paper_value,
            measured=dec.measured,
            tolerance=d.tolerance,
            verdict=dec.verdict,
            profile=self.profile,
            note=full_note,
            chapter=self.chapter,
            rule=d.rule_text(),
            seeds=seeds,
            trained=dec.trained,
            history=_jsonable(list(getattr(d, "history", None) or [])) or None,
            values=quotable(values),
            effects=_jsonable(dec.effects) if dec.effects else None,
            extra={"rule_code": rule_code(d), "gate_why": d.gate_why},
        )
        if not dec.effects and dec.verdict in ("not-reproduced", "partly-reproduced"):
            failed = failed_conditions(d, values, self.profile)
            claim.extra["failed"] = failed or None
        if os.environ.get("RNNBOOK_KEEP_INPUTS"):  # a shard of a record keeps them
            from .shard_plan import raw, rule_names

            claim.extra["inputs"] = {
                n: raw(values[n]) for n in rule_names(d) if n in values
            }
        self._write(claim)
        show(claim)
        return claim

    def _write(self, claim: Claim) -> Claim:
        folder = claims_dir()
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{claim.id}.json").write_text(json.dumps(asdict(claim), indent=1))
        self.claims = [c for c in self.claims if c.id != claim.id] + [claim]
        return claim

    def table(self) -> str:
        """Nothing a reader sees (issue 51): a chapter's verdicts stand once, in one line at
        its top (the ``findings`` directive, :func:`rnnbook.book.pages.verdict_line`), each
        linked to its box; a list at its end only repeated them. An HTML comment, not an
        empty string: ``Markdown("")`` has no markdown to show, and the page would print
        the object's ``repr`` in its place."""
        return "<!-- the verdicts stand in one line at the top of the chapter -->"


def failed_conditions(d: Any, values: dict, profile: str) -> list[str]:
    """The parts of a claim's ``reproduced`` condition (its top-level ``and`` terms) that
    the measured ``values`` do not meet, in words; for ``all(... for ...)``, how many of
    its items fail. What a "Fails" finding quotes (issue 52, item 11)."""
    cond = next((c for v, c in d.rule if v == "reproduced"), None)
    if not cond or cond == "otherwise":
        return []
    names = {**d.constants, **{k: _claims.plain(v) for k, v in values.items()}}
    names["profile"] = profile
    tree = ast.parse(cond, mode="eval").body
    terms = (
        tree.values
        if isinstance(tree, ast.BoolOp) and isinstance(tree.op, ast.And)
        else [tree]
    )
    out = []
    for term in terms:
        src = ast.unparse(term)
        try:
            if _claims.evaluate(src, names):
                continue
        except Exception:  # a term that cannot be judged alone is left out
            continue
        words = rule_prose(src)
        shown = [
            f"{rule_prose(n)} {_reading.num(names[n])}"
            for n in dict.fromkeys(
                x.id for x in ast.walk(term) if isinstance(x, ast.Name)
            )
            if isinstance(names.get(n), (int, float))
            and not isinstance(names.get(n), bool)
        ]
        words += f" ({', '.join(shown)})" if shown else ""
        gen = term.args[0] if isinstance(term, ast.Call) and term.args else None
        if (
            isinstance(term.func if isinstance(term, ast.Call) else None, ast.Name)
            and term.func.id == "all"
            and isinstance(gen, ast.GeneratorExp)
        ):
            items = ast.unparse(ast.ListComp(elt=gen.elt, generators=gen.generators))
            try:
                flags = list(_claims.evaluate(items, names))
                bad = sum(not f for f in flags)
                words += f" (it fails in {bad} of {len(flags)})"
            except Exception:
                pass
        out.append(words)
    return out


def rule_code(d: Any) -> str:
    """A declaration's rule as the claims file writes it (shown folded in the box)."""
    import yaml

    if getattr(d, "effects", None):
        raw = {"effects": [dict(e) for e in d.effects]}
        if d.combine is not None:
            most = d.combine == "most"
            raw["combine"] = "most" if most else {"at_least": d.combine}
        rule = yaml.safe_dump(raw, sort_keys=False, width=88, allow_unicode=True)
        gate = f"trained: {d.trained}\n" if d.trained else ""
        return rule + gate
    code = d.rule_text()
    return code + (f"\ntrained: {d.trained}" if d.trained else "")


def quotable(values: dict) -> dict | None:
    """The measured values that prose may quote (``{claim}`id:values.steps```): numbers,
    strings, booleans and short lists of them; arrays and curves are left out."""
    out = {}
    for k, v in values.items():
        v = _jsonable(v)
        scalar = (bool, int, float, str)
        if isinstance(v, scalar) and len(str(v)) <= 200:
            out[k] = v
        elif (
            isinstance(v, list)
            and len(v) <= 12
            and all(isinstance(x, scalar) for x in v)
        ):
            out[k] = v
    return out or None


_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]<>|#~$])")


def md_escape(text: str) -> str:
    """Escape Markdown/MyST specials so that measured values (``nu_W**j``, ``a|b``) print literally."""
    return _MD_SPECIAL.sub(r"\\\1", text.replace("\n", " "))


def md_cell(x: Any, width: int | None = 160) -> str:
    """A value for Markdown: text as it is (a rule, a note), any other value written for
    reading (:func:`value_text`), escaped; shortened to ``width`` characters only where a
    ``width`` is given (never inside a number)."""
    s = x if isinstance(x, str) else value_text(x)
    if width is not None and len(s) > width:
        cut = s[: width - 1]
        s = (cut[: m.start()] if (m := re.search(r"[\d.eE+-]+$", cut)) else cut) + "…"
    return md_escape(s)


def readable(x: Any, digits: int = 4) -> Any:
    """Floats rounded to ``digits`` significant digits, inside lists and dicts too."""
    if isinstance(x, float) and math.isfinite(x) and x != 0:
        return float(f"{x:.{digits}g}")
    if isinstance(x, list):
        return [readable(v, digits) for v in x]
    if isinstance(x, dict):
        return {k: readable(v, digits) for k, v in x.items()}
    return x


# --- Values written for reading: only the display; the record keeps the full values. -------

#: a float in running text with more than six decimals (``0.8935000002384186``)
_LONG_FLOAT = re.compile(r"(?<![\w.])-?\d+\.\d{7,}(?:[eE][-+]?\d+)?(?![\w.])")
#: a math span of a statement: ``$...$`` (not ``$$``)
_MATH = re.compile(r"(?<![\\$])\$(?!\$)((?:[^$\\]|\\.)+?)\$")


def num_text(x: Any, digits: int = 3) -> str:
    """A number for reading: about ``digits`` significant digits (``0.8935000002384186`` reads
    ``0.894``, ``1125.42`` reads ``1125``, ``7.19e-16`` stays in powers of ten); integers
    whole; ``True``/``False`` as yes/no."""
    if isinstance(x, bool):
        return "yes" if x else "no"
    if isinstance(x, int) or not isinstance(x, float):
        return str(x)
    if not math.isfinite(x) or x == 0:
        return "0" if x == 0 else str(x)
    a = abs(x)
    if a >= 1e6 or a < 1e-3:
        return f"{x:.{digits}g}"
    if a >= 10**digits:
        return f"{x:.0f}"
    return f"{x:.{digits}g}"


def _literal_end(s: str, i: int) -> int:
    """The end of the bracketed Python literal starting at ``s[i]`` (``{`` or ``[``), or -1."""
    depth, quote, j = 0, "", i
    while j < len(s):
        c = s[j]
        if quote:
            if c == "\\":
                j += 1
            elif c == quote:
                quote = ""
        elif c in "'\"":
            quote = c
        elif c in "{[(":
            depth += 1
        elif c in "}])":
            depth -= 1
            if depth == 0:
                return j + 1
        j += 1
    return -1


class Literal(NamedTuple):
    """A dict or list written into a measured text: its value and its source text."""

    value: Any
    source: str


def split_literals(s: str) -> list:
    """A measured text cut into its words (``str``) and the Python dicts and lists written
    into it (``{'tanh': [0.1, ...]}``) as :class:`Literal`; a bracket that is not a literal
    stays text."""
    out: list = []
    text, i = "", 0
    while i < len(s):
        subscript = i > 0 and (s[i - 1].isalnum() or s[i - 1] in "_])")
        if s[i] in "{[" and not subscript:
            j = _literal_end(s, i)
            if j > 0:
                try:
                    v = ast.literal_eval(s[i:j])
                except (ValueError, SyntaxError, MemoryError, RecursionError):
                    v = None
                if isinstance(v, (dict, list)) and v:
                    out += [text, Literal(v, s[i:j])] if text else [Literal(v, s[i:j])]
                    text, i = "", j
                    continue
        text += s[i]
        i += 1
    return out + [text] if text else out


def _digits(number: str) -> int:
    """Significant digits of a number as written (``0.0215`` has 3, ``1.0149`` has 5)."""
    mantissa = re.split(r"[eE]", number.lstrip("-+"))[0].replace(".", "")
    return len(mantissa.lstrip("0")) or 1


def _piece(p: Any) -> str:
    """One piece of :func:`split_literals` for reading: a list of short numbers (an interval
    ``[0.364, 0.530]``) as written, other literals rewritten by :func:`_inline`."""
    if isinstance(p, str):
        return p
    v = p.value
    if isinstance(v, list) and all(
        isinstance(x, (int, float)) and not isinstance(x, bool) for x in v
    ):
        if all(
            _digits(n) <= 4
            for n in re.findall(r"[-+]?[\d.]+(?:[eE][-+]?\d+)?", p.source)
        ):
            return p.source
    return _inline(v, False)


def _scalar(x: Any) -> bool:
    return x is None or isinstance(x, (bool, int, float, str))


def _inline(x: Any, top: bool = True) -> str:
    """A parsed value as one line of text: lists of numbers rounded (``[0.235, 0.115]``), a
    list of texts joined, a dict as ``key: value`` pairs."""
    if isinstance(x, str):
        return x if top else _round_text(x)
    if _scalar(x):
        return "—" if x is None else num_text(x)
    if isinstance(x, (list, tuple)):
        items = [_inline(v, False) for v in x]
        if x and all(isinstance(v, str) for v in x):
            sep = "; " if any(("," in v or "[" in v) for v in items) else ", "
            return sep.join(items)
        return "[" + ", ".join(items) + "]"
    if isinstance(x, dict):
        pairs = []
        for k, v in x.items():
            inner = _inline(v, False)
            pairs.append(f"{k}: ({inner})" if isinstance(v, dict) else f"{k}: {inner}")
        flat = all(_scalar(v) for v in x.values())
        return (", " if flat else "; ").join(pairs)
    return str(x)


def _round_text(s: str) -> str:
    """Running text with its long floats rounded and its dicts and lists written for reading."""
    s = _LONG_FLOAT.sub(lambda m: num_text(float(m.group()), 4), s)
    return symbols("".join(_piece(p) for p in split_literals(s)))


_SYMBOLS = {"<=": "≤", ">=": "≥", "!=": "≠", "==": "="}


def symbols(text: str) -> str:
    """ASCII comparisons as the signs a reader reads (``x <= 2`` is ``x ≤ 2``; issue 51)."""
    return re.sub(r"<=|>=|!=|==", lambda m: _SYMBOLS[m[0]], text)


def value_text(x: Any) -> str:
    """Any measured value (number, list, dict, or text with dicts and lists in it) as plain text
    written for reading; ``—`` for none."""
    if x is None:
        return "—"
    return _round_text(x) if isinstance(x, str) else _inline(x, False)


def _tabular(x: Any) -> bool:
    """A dict of dicts (rows of named values): shown as a small table in a claim box."""
    return (
        isinstance(x, dict)
        and len(x) >= 2
        and all(isinstance(v, dict) and v for v in x.values())
    )


def _rows(x: dict) -> dict:
    """The rows of a dict of dicts; a third level (``{'all': {'R2_x': {...}}}``) becomes rows
    named by both keys (``all, R2_x``)."""
    rows = {}
    for k, v in x.items():
        if v and all(isinstance(w, dict) and w for w in v.values()):
            rows.update({f"{k}, {k2}": w for k2, w in v.items()})
        else:
            rows[str(k)] = v
    return rows


def table_html(x: dict) -> str:
    """A dict of dicts as an HTML table: a row per outer key, a column per inner key."""
    x = _rows(x)
    cols = list(dict.fromkeys(k for v in x.values() for k in v))
    from .reading import prose_html as esc

    head = "".join(f"<th>{esc(str(c))}</th>" for c in cols)
    rows = [
        f"<tr><th>{esc(str(k))}</th>"
        + "".join(
            f"<td>{esc(_inline(v[c], False)) if c in v else '—'}</td>" for c in cols
        )
        + "</tr>"
        for k, v in x.items()
    ]
    return (
        f'<table class="claim-values"><thead><tr><th></th>{head}</tr></thead>'
        f"<tbody>{''.join(rows)}</tbody></table>"
    )


def _top_parts(s: str) -> list[str]:
    """A text cut at its top-level "; " (not inside brackets or quotes)."""
    parts, depth, start, quote = [], 0, 0, ""
    for i, c in enumerate(s):
        if quote:
            quote = "" if c == quote else quote
        elif c in "'\"" and (i == 0 or not s[i - 1].isalnum()):
            quote = c
        elif c in "{[(":
            depth += 1
        elif c in "}])":
            depth = max(depth - 1, 0)
        elif c == ";" and depth == 0 and s[i + 1 : i + 2] == " ":
            parts.append(s[start:i])
            start = i + 2
    return [p.strip() for p in parts + [s[start:]] if p.strip()]


def value_md(x: Any, indent: str = "  ", math: bool = False) -> str:
    """A measured value for a claim box (Markdown): a long text becomes a list of its parts,
    and a dict of dicts (alone or ending a part) a small table; the rest as :func:`value_text`.
    With ``math`` (a paper value), a text with ``$...$`` spans is written by :func:`math_md`."""
    if math and isinstance(x, str) and _MATH.search(x):
        return " " + prose_md(x)
    if _tabular(x):
        return "\n\n" + indent + table_html(x) + "\n"
    if not isinstance(x, str):
        return " " + prose_md(value_text(x))
    parts = _top_parts(x) if len(x) > 160 else [x]
    out = []
    for part in parts:
        pieces = split_literals(
            _LONG_FLOAT.sub(lambda m: num_text(float(m[0]), 4), part)
        )
        last = pieces[-1].value if pieces and isinstance(pieces[-1], Literal) else ""
        if _tabular(last):
            head = prose_md("".join(_piece(p) for p in pieces[:-1]).rstrip())
            out.append((head or "values") + "\n\n" + indent + "  " + table_html(last))
        else:
            out.append(prose_md(value_text(part)))
    if len(out) == 1 and "<table" not in out[0]:
        return " " + out[0]
    return "\n" + "\n".join(f"{indent}- {p}" for p in out)


def value_html(x: Any, math: bool = False) -> str:
    """A measured value for an HTML table cell: :func:`value_text`, escaped; a long text one
    line per part (its top-level "; "). With ``math`` (a paper value), a text with ``$...$``
    spans is written by :func:`math_html`."""
    if math and isinstance(x, str) and _MATH.search(x):
        return math_html(x)
    if not isinstance(x, str) or len(x) <= 160:
        return html.escape(value_text(x))
    parts = [html.escape(_round_text(p)) for p in _top_parts(x)]
    return "".join(f'<span class="value-part">{p}</span>' for p in parts)


def md_math(text: str) -> str:
    """A statement for Markdown: its ``$...$`` spans stay math, the rest is escaped."""
    out, last = [], 0
    for m in _MATH.finditer(text):
        out += [md_escape(text[last : m.start()]), f"${m.group(1)}$"]
        last = m.end()
    return "".join(out + [md_escape(text[last:])])


def html_math(text: str) -> str:
    """A statement for HTML: its ``$...$`` spans as inline math that MathJax typesets (the
    markup Sphinx gives ``{math}``), the rest escaped."""
    out, last = [], 0
    for m in _MATH.finditer(text):
        tex = html.escape(m.group(1))
        out += [
            html.escape(text[last : m.start()]),
            f'<span class="math notranslate nohighlight">\\({tex}\\)</span>',
        ]
        last = m.end()
    return "".join(out + [html.escape(text[last:])])


def math_parts(text: str) -> list[tuple[str, bool]]:
    """A statement as (text, is math) pieces."""
    out, last = [], 0
    for m in _MATH.finditer(text):
        out += [(text[last : m.start()], False), (m.group(1), True)]
        last = m.end()
    return [p for p in out + [(text[last:], False)] if p[0]]


def text_parts(x: Any) -> list[tuple[str, bool]]:
    """A declared value (a paper value, a tolerance) as (text, is math) pieces: the ``$...$``
    spans of a text math, the rest written for reading (:func:`value_text`); any other value
    (a number, a list, a dict) one piece of text."""
    if not isinstance(x, str):
        return [(value_text(x), False)]
    return [(t if m else value_text(t), m) for t, m in math_parts(x)]


def math_md(x: Any) -> str:
    """A declared value for Markdown: its ``$...$`` spans stay math, the rest is written for
    reading and escaped (:func:`text_parts`)."""
    return "".join(f"${t}$" if m else md_escape(t) for t, m in text_parts(x))


def math_html(x: Any) -> str:
    """A declared value for HTML: its ``$...$`` spans as inline math that MathJax typesets
    (as :func:`html_math`), the rest written for reading and escaped (:func:`text_parts`)."""
    return "".join(
        html_math(f"${t}$") if m else html.escape(t) for t, m in text_parts(x)
    )


_OPS = {
    ast.Gt: ">",
    ast.GtE: "≥",
    ast.Lt: "<",
    ast.LtE: "≤",
    ast.Eq: "=",
    ast.NotEq: "≠",
    ast.In: "in",
    ast.NotIn: "not in",
    ast.Is: "is",
    ast.IsNot: "is not",
}
_ARITH = {ast.Add: "+", ast.Sub: "−", ast.Mult: "×", ast.Div: "/"}


def _words(node: ast.AST, src: str, top: bool = False) -> str:
    """A rule's condition in plain words (Markdown): ``and``/``or``/``not`` as words,
    comparisons as ≥ ≤ ≠, numbers plain, every name and call kept as code."""
    if isinstance(node, ast.BoolOp):
        word = " and " if isinstance(node.op, ast.And) else " or "
        inner = word.join(_words(v, src) for v in node.values)
        return inner if top else f"({inner})"
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        return "not " + _words(node.operand, src)
    if isinstance(node, ast.Compare):
        out = [_words(node.left, src)]
        for op, right in zip(node.ops, node.comparators):
            out += [_OPS.get(type(op), "?"), _words(right, src)]
        return " ".join(out)
    if isinstance(node, ast.BinOp) and type(node.op) in _ARITH:
        return f"{_words(node.left, src)} {_ARITH[type(node.op)]} {_words(node.right, src)}"
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return "−" + _words(node.operand, src)
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "abs"
        and len(node.args) == 1
        and not node.keywords
    ):
        return f"\\|{_words(node.args[0], src, top=True)}\\|"
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)):
        return md_escape(
            repr(node.value) if isinstance(node.value, float) else str(node.value)
        )
    code = ast.get_source_segment(src, node) or ast.unparse(node)
    return md_code(" ".join(code.split()))


def rule_words(rule: str) -> str | None:
    """A declared rule (``reproduced if a >= 0.8 and b; otherwise not-reproduced``) rendered
    in words beside its code; ``None`` where it cannot be read back."""
    parts = []
    for entry in rule.split("; "):
        if entry.startswith("otherwise "):
            parts.append(f"otherwise **{entry.removeprefix('otherwise ')}**")
            continue
        verdict, sep, cond = entry.partition(" if ")
        if not sep or verdict not in VERDICTS:
            return None
        try:
            tree = ast.parse(cond, mode="eval").body
        except SyntaxError:
            return None
        parts.append(f"**{verdict}** if {_words(tree, cond, top=True)}")
    return "; ".join(parts) or None


def seeds_text(seeds: int) -> str:
    return f"{seeds} independent seed{'s' if seeds != 1 else ''}"


def trained_text(trained: dict) -> str:
    """The gate (that the experiment works at all) in words: passed or not, what it asks
    and its value (its code is in the rule's fold)."""
    words = md_escape(gate_words(trained))
    if trained["passed"]:
        return f"passed: the experiment works ({words})"
    return (
        f"failed: the experiment did not work at this scale ({words}); so the verdict is "
        "inconclusive, whatever the effects say"
    )


def _rule_text(rule: Any) -> str:
    """A rule as one line, whether given as text or as the claims file's list of entries."""
    if not isinstance(rule, list):
        return "" if rule is None else str(rule)
    parts = []
    for entry in rule:
        ((verdict, cond),) = entry.items() if isinstance(entry, dict) else [(entry, "")]
        parts.append(
            f"otherwise {cond}" if verdict == "otherwise" else f"{verdict} if {cond}"
        )
    return "; ".join(parts)


def rule_sentence(rule: str) -> str:
    """A declared rule (``reproduced if a >= 0.8; otherwise not-reproduced``) in words, no
    code names (:func:`rnnbook.book.reading.rule_prose`)."""
    parts = []
    for entry in str(rule).split("; "):
        if entry.startswith("otherwise "):
            parts.append(f"otherwise {entry.removeprefix('otherwise ')}")
            continue
        verdict, sep, cond = entry.partition(" if ")
        if not sep or verdict not in VERDICTS:
            return rule_prose(str(rule))
        parts.append(f"{verdict} if {rule_prose(cond)}")
    return "; ".join(parts)


def rule_rows(
    rule: str,
    history: list | None,
    effects: list | None = None,
    doc: str | None = None,
) -> list[str]:
    """The rule in words (an effects rule as its own sentences), and either that it was
    declared before the run or how it changed after one."""
    when = "changed after a run" if history else "declared before the run"
    words = rule if effects else rule_sentence(rule)
    rows = [f"- **rule** ({when}): {prose_md(symbols(words), doc)}"]
    for h in history or []:
        old = _rule_text(h.get("old_rule"))
        old = (
            code_words(old)
            if " if " not in old and "otherwise" not in old
            else rule_sentence(old)
        )
        rows.append(
            f"- **until {md_escape(str(h.get('date', 'an earlier run')))} the rule was**: "
            f"{prose_md(symbols(old), doc)}. Changed because: "
            f"{prose_md(symbols(h.get('why') or ''), doc)}"
        )
    return rows


def md_code(text: str) -> str:
    """Inline code for Markdown, fenced with enough backticks for the text."""
    ticks = "`" * (max((len(m) for m in re.findall(r"`+", text)), default=0) + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{ticks}{pad}{text}{pad}{ticks}"


def effect_text(e: dict, doc: str | None = None) -> str:
    """One effect of a claim decided per effect: its estimate and 95% interval against its
    line (the smallest effect that counts as the paper's) and its decision."""
    from .lines import line_words
    from .reading import interval, num

    side = {"above": "above", "below": "below", "within": "within ±"}.get(
        e.get("direction"), str(e.get("direction"))
    )
    verdict = e.get("decision", "")
    if not e.get("in_setting", True):
        verdict = "left out (no arm can train in this setting at this scale)"
    elif e.get("contrary"):
        verdict += " (a significant effect against the paper)"
    iv = interval(e)
    kind = str(e.get("interval", ""))
    kind = {"mean": "Student-t", "wilson": "Wilson", "exact": "exact binomial"}.get(
        kind, kind
    )
    shown = (
        f"{iv} (95% {kind} interval, n = {e.get('n')})"
        if iv
        else "no value (nothing to compare at this scale)"
    )
    paper = num(e.get("paper"))
    paper = f"; the paper's effect: {paper}" if paper else ""
    rides = line_words(e)  # how much rides on the line (issue 49)
    rides = f" How much rides on the line: {md_escape(rides)}." if rides else ""
    return (
        f"**{prose_md(str(e.get('name', '')), doc)}**: {md_escape(shown)}; the line: "
        f"{side} {md_escape(num(e.get('smallest')) or '—')}{paper}: **{verdict}**"
        + rides
    )


def short_finding(text: str, most: int = 240) -> tuple[str, str]:
    """A box's finding cut for the box (issue 51): its sentences up to about ``most``
    characters, the rest (the other effects) for the fold; ``(text, "")`` when short."""
    if len(text) <= most:
        return text, ""
    parts = re.split(r"(?<=[.;])\s+", text)
    kept = parts[0]
    for p in parts[1:]:
        if len(kept) + len(p) + 1 > most:
            break
        kept += " " + p
    rest = text[len(kept) :].strip()
    if not rest:
        return text, ""
    return kept.rstrip(";") + " (the rest in the fold below)", text


def first_clause(measured: Any, most: int = 110) -> tuple[Any, str]:
    """A long measured sentence cut for the box (issue 51): its first clause (up to the
    first ``;`` outside brackets) shown, the rest for the fold; anything else (a value
    with a table in it too), or a sentence of at most ``most`` characters, whole and
    ``""``."""
    if not isinstance(measured, str) or len(measured) <= most or "{" in measured:
        return measured, ""
    depth = 0
    for i, ch in enumerate(measured):
        depth += ch in "([{"
        depth -= ch in ")]}"
        if ch == ";" and depth == 0 and measured[i + 1 : i + 2] == " ":
            return measured[:i], measured[i + 1 :].strip()
    return measured, ""


def inline(measured: Any) -> str:
    """A measured value for a box, its parts on one line (:func:`value_md` lists them one
    per line: a box a quarter of a page tall); a table stays a table."""
    md = value_md(measured)
    if "<table" in md or not md.startswith("\n"):
        return md
    items = [ln.strip()[2:] for ln in md.splitlines() if ln.strip().startswith("- ")]
    return " " + "; ".join(items) if items else md


def scorecard_url(chapter: str, claim_id: str) -> str:
    """The claim's row on the scorecard, relative to the chapter's page."""
    depth = chapter.strip("/").count("/")
    return "../" * depth + f"book/scorecard.html#{row_id(claim_id)}"


def row_id(claim_id: str) -> str:
    """The HTML id of a claim's row on the scorecard."""
    return f"scorecard-{claim_id}"


def show(claim: Claim) -> None:
    """Display the claim box now, when running inside a kernel (IPython); else do nothing."""
    try:
        from IPython import get_ipython
        from IPython.display import display
    except ImportError:  # pragma: no cover - IPython ships with the book's environment
        return
    if get_ipython() is None:
        return
    display(
        {
            "text/markdown": claim._repr_markdown_(),
            "text/plain": f"{claim.id}: {claim.verdict}",
        },
        raw=True,
    )
    claim._shown = True


def collect(folder: Path) -> list[dict]:
    """Read every claim record in ``folder``, validate it, and return them sorted by paper and id."""
    records = []
    for path in sorted(Path(folder).rglob("*.json")):
        data = json.loads(path.read_text())
        Claim(**data)  # validates
        records.append(data)
    order = {p: i for i, p in enumerate(PAPERS)}
    return sorted(records, key=lambda r: (order[r["paper"]], r["id"]))


def verdict_within(measured: float, expected: float, rel_tol: float) -> str:
    """``reproduced`` if ``|measured - expected| <= rel_tol * |expected|``, else ``not-reproduced``."""
    return (
        "reproduced"
        if abs(measured - expected) <= rel_tol * abs(expected)
        else "not-reproduced"
    )


# the text helpers that rnnbook.book.reading uses (it cannot import this module back)
_reading.LEDGER.update(
    value_text=value_text, md_escape=md_escape, _top_parts=_top_parts
)
