r"""Claim records written for people (issue 42): a claim's finding in one sentence, its
gate and rule in words, its values without code, and each paper's bottom line.

Text written for reading is a list of pieces ``(text, is_math)``: :func:`prose_parts`
turns a measured text, a note or a tolerance into them (Python booleans, ``nan`` and lists
of numbers into words, ASCII formulas such as ``|lambda_k| ~ chi_{2k}/sqrt(2)`` into TeX);
:func:`prose_md` and :func:`prose_html` write them, with a page named in the text
(``book/verdicts.md``) as a link to it.
"""

from __future__ import annotations

import ast
import html
import math
import re
from pathlib import Path
from typing import Any, Iterable

#: the ledger's text helpers (value_text, md_escape, _top_parts), which rnnbook.book.ledger
#: registers when it is imported: the ledger writes its boxes with this module's words, and
#: this module reads values the ledger's way, without an import each way
LEDGER: dict[str, Any] = {}

# --- pages named in text --------------------------------------------------------------

#: a page of the book named in text, ``book/verdicts.md`` (the ``.md`` optional)
PAGE = re.compile(r"\bbook/([a-z_]+)(?:\.md)?\b")
PAGE_TITLES = {
    "verdicts": "How verdicts are decided",
    "errata": "Errata and discrepancies",
    "scorecard": "Reproduction scorecard",
    "status": "Build status",
    "intro": "the introduction",
    "lsc": "the LSC part",
    "implicit_bias": "the implicit-bias part",
    "mean_field": "the mean-field part",
    "infinite_width": "the infinite-width part",
    "synthesis": "the synthesis",
}


def page_title(name: str, root: Path | None = None) -> str:
    """The title of ``book/<name>.md``: its first heading, else a known title, else the
    name."""
    if root is not None:
        try:
            for line in (Path(root) / "book" / f"{name}.md").read_text().splitlines():
                if line.startswith("# "):
                    return line[2:].strip()
        except OSError:
            pass
    return PAGE_TITLES.get(name, name.replace("_", " "))


def page_href(name: str, from_doc: str) -> str:
    """``book/<name>.html`` relative to the page ``from_doc`` (``notebooks/lsc/x``)."""
    depth = from_doc.strip("/").count("/")
    return "../" * depth + f"book/{name}.html"


# --- values into words ---------------------------------------------------------------

_NUM = r"[-+]?(?:\d+(?:\.\d+)?|\.\d+)(?:[eE][-+]?\d+)?"
#: a Python list of numbers (or of booleans) written into text
_LIST = re.compile(
    r"(?P<pre>"
    + _NUM
    + r"\s*)?\[(?P<items>(?:\s*(?:"
    + _NUM
    + r"|True|False|yes|no|nan|\.\.\.)"
    r"\s*,)+\s*(?:" + _NUM + r"|True|False|yes|no|nan|\.\.\.)\s*)\]"
)
_NAN_IV = re.compile(r"\bnan \[nan, nan\](?: \([^)]*\))?")
_BOOL = {"True": "yes", "False": "no", "nan": "no value"}


def _list_words(m: re.Match) -> str:
    items = [x.strip() for x in m["items"].split(",")]
    items = [_BOOL.get(x, x) for x in items]
    pre = m["pre"] or ""
    if pre.strip() and len(items) == 2 and "no value" not in items:
        return m[0]  # an estimate and its interval: 0.59 [0.41, 0.75]
    return pre + (", ".join(items[:-1]) + " and " + items[-1])


def code_words(text: str) -> str:
    """Code in a text (an earlier rule) in words: ``worst['hi']`` reads ``worst hi``,
    ``decays_each`` reads ``decays each``."""
    text = re.sub(r"\[\s*'([^'\]]+)'\s*\]", r" \1", text)
    return re.sub(
        r"\b[A-Za-z]+(?:_[A-Za-z0-9]+)+\b",
        lambda m: m[0] if _is_math_name(m[0]) else humanize(m[0]),
        text,
    )


def _is_math_name(name: str) -> bool:
    head, _, rest = name.partition("_")
    return (head in GREEK or len(head) == 1) and "_" not in rest and len(rest) <= 3


_INDEX = re.compile(r"\b([a-z]+) index (-?\d+)\b")
_ENDS = {"depth": {0: "the shallowest depth", -1: "the deepest depth"}}


def _index_words(m: re.Match) -> str:
    noun, i = m[1], int(m[2])
    return _ENDS.get(noun, {}).get(i) or (f"{_ORD[i]} {noun}" if i in _ORD else m[0])


def plain_values(text: str) -> str:
    """A text's Python literals in words: a list of numbers ``[16, 64, 256]`` as ``16, 64
    and 256``, booleans as yes/no, ``nan`` as no value; an estimate and its interval
    (``0.59 [0.41, 0.75]``) stays."""
    text = re.sub(r"(?<=[\w)])\*\*(?=[\w(])", "^", text)
    # an effect keyed by position: "depth index -1" reads "the deepest depth"
    text = _INDEX.sub(_index_words, text)
    text = _NAN_IV.sub("no value (nothing to compare)", text)
    text = _LIST.sub(_list_words, text)
    text = re.sub(r"(?<![\w'])(True|False)(?![\w'])", lambda m: _BOOL[m[1]], text)
    return re.sub(r"(?<![\w.])nan(?![\w.])", "no value", text)


# --- ASCII formulas into TeX ------------------------------------------------------------

GREEK = (
    "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi pi rho "
    "sigma tau upsilon phi chi psi omega Gamma Delta Theta Lambda Xi Pi Sigma Phi Psi "
    "Omega"
).split()
_GREEK = "|".join(sorted(GREEK, key=len, reverse=True))
#: one token of an ASCII formula: a Greek name, a name with a subscript or power, a
#: norm or absolute value, sqrt(...), log10
_SUB = r"_(?:\{[^{}\s]+\}|[A-Za-z0-9]+)"
_POW = r"(?:\^(?:\{[^{}]+\}|\([^()]{1,12}\)|[-+]?\w+|\*))?"
_ARGS = r"(?:\([^()]{0,20}\))?"
_ATOM = (
    r"(?:\|\|[^|]{1,30}\|\|(?:_\w+)?|(?:log)?[A-Z]?\|[^|\s][^|]{0,30}\|"
    + _POW
    + r"|sqrt\([^()]{1,30}\)"
    r"|(?:"
    + _GREEK
    + r")(?:"
    + _SUB
    + r")?"
    + _POW
    + r"(?![A-Za-z])"
    + _ARGS
    + r"|[A-Za-z](?:"
    + _SUB
    + r")"
    + _POW
    + r"(?![A-Za-z(])"
    r"|[A-Za-z0-9)]+\^(?:\{[^{}]+\}|\([^()]{1,12}\)|[-+]?\w+|\*)|log10)"
)
_OPERAND = r"(?:" + _ATOM + r"|[A-Za-z]\b|" + _NUM + r")"
_FORMULA = re.compile(
    r"(?:(?<![\w\\$])|(?=\|))(?:"  # an absolute value may follow a word: max|lambda|
    + _OPERAND
    + r"(?:(?:\s?[*/+]\s?|\s[-~=<>]\s|\s[<>]=\s|\s?\*\*\s?)"
    + _OPERAND
    + r")*)"
)


def _tex_sub(s: str) -> str:
    inner = s[1:].strip("{}")
    if re.fullmatch(r"[A-Za-z]{2,}", inner) and inner not in GREEK:
        return "_{\\mathrm{" + inner + "}}"
    return "_{" + re.sub(r"\b(" + _GREEK + r")\b", r"\\\1", inner) + "}"


def tex(formula: str) -> str:
    """An ASCII formula as TeX: ``|lambda_k| ~ chi_{2k}/sqrt(2)`` reads
    ``\\lvert\\lambda_{k}\\rvert \\sim \\chi_{2k}/\\sqrt{2}``."""
    s = formula
    s = re.sub(r"\|\|([^|]+)\|\|", r"\\lVert \1 \\rVert ", s)
    s = re.sub(r"\|([^|]+)\|", r"\\lvert \1 \\rvert ", s)
    s = re.sub(r"sqrt\(([^()]+)\)", r"\\sqrt{\1}", s)
    s = s.replace("log10", "\\log_{10}")
    s = (
        s.replace("**", "^")
        .replace("^*", "^{\\ast}")
        .replace(" ~ ", " \\sim ")
        .replace("<=", "\\le ")
    )
    s = s.replace(">=", "\\ge ").replace("*", " \\cdot ")
    s = re.sub(r"(?<![\\A-Za-z])(" + _GREEK + r")(?![A-Za-z])", r"\\\1", s)
    s = re.sub(_SUB, lambda m: _tex_sub(m[0]), s)
    s = re.sub(r"\^\(([^()]+)\)", r"^{\1}", s)
    s = re.sub(r"\blog(?=\\lvert)", r"\\log", s)
    s = re.sub(r"\^(\w{2,})", r"^{\1}", s)
    s = re.sub(
        r"(?<![\\A-Za-z{])[A-Za-z]{2,}(?: [A-Za-z]{2,})*(?![A-Za-z])",
        lambda m: m[0] if m[0] in ("log", "exp") else "\\text{" + m[0] + "}",
        s,
    )
    return re.sub(r"\s+", " ", s).strip()


def _mathy(token: str) -> bool:
    if re.fullmatch(_NUM + r"|[A-Za-z]", token.strip()):
        return False
    return bool(re.search(_ATOM, token))


_TEX_WORD = re.compile(r"[^\s]*\\[A-Za-z]+[^\s]*")


def ascii_parts(text: str) -> list[tuple[str, bool]]:
    """Plain text as (text, is math) pieces, its ASCII formulas written as TeX (a word
    with a TeX command in it, ``\\mathbb{E}[...]``, is math as it stands)."""
    if _TEX_WORD.search(text):
        out, last = [], 0
        for m in _TEX_WORD.finditer(text):
            out += ascii_parts(text[last : m.start()])
            out.append((tex(m[0].rstrip(".,;:")), True))
            tail = m[0][len(m[0].rstrip(".,;:")) :]
            out += [(tail, False)] if tail else []
            last = m.end()
        return [p for p in out + ascii_parts(text[last:]) if p[0]]
    out, last = [], 0
    for m in _FORMULA.finditer(text):
        f = m[0].rstrip()
        if not f or not _mathy(f):
            continue
        out += [(text[last : m.start()], False), (tex(f), True)]
        last = m.start() + len(f)
    return [p for p in out + [(text[last:], False)] if p[0]]


_MATH = re.compile(r"(?<![\\$])\$(?!\$)((?:[^$\\]|\\.)+?)\$")


def prose_parts(text: Any) -> list[tuple[str, bool]]:
    """A text written for reading as (text, is math) pieces: its ``$...$`` spans stay
    math; elsewhere Python values become words (:func:`plain_values`) and ASCII formulas
    TeX (:func:`ascii_parts`)."""
    value_text = LEDGER["value_text"]
    text = text if isinstance(text, str) else value_text(text)
    out, last = [], 0
    for m in _MATH.finditer(text):
        out += ascii_parts(plain_values(value_text(text[last : m.start()])))
        out.append((m[1], True))
        last = m.end()
    out += ascii_parts(plain_values(value_text(text[last:])))
    return [p for p in out if p[0]]


def prose_md(text: Any, from_doc: str | None = None, root=None) -> str:
    """A text for a Markdown claim box: :func:`prose_parts`, the text escaped, math as
    ``$...$``, a named page linked (relative to ``from_doc``)."""
    md_escape = LEDGER["md_escape"]
    out = []
    for t, is_math in prose_parts(text):
        if is_math:
            out.append(f"${t}$")
            continue
        pieces, last = [], 0
        for m in PAGE.finditer(t):
            pieces.append(md_escape(t[last : m.start()]))
            pieces.append(_page_link(m[1], from_doc, root) if from_doc else m[0])
            last = m.end()
        out.append("".join(pieces) + md_escape(t[last:]))
    return "".join(out)


def _page_link(name: str, from_doc: str, root=None) -> str:
    return (
        f'<a class="book-page" href="{page_href(name, from_doc)}">'
        f"{html.escape(page_title(name, root))}</a>"
    )


def prose_html(text: Any, from_doc: str | None = None, root=None) -> str:
    """A text for an HTML cell: as :func:`prose_md`, math as MathJax's inline markup."""
    out = []
    for t, is_math in prose_parts(text):
        if is_math:
            out.append(
                f'<span class="math notranslate nohighlight">\\({html.escape(t)}\\)'
                "</span>"
            )
            continue
        pieces, last = [], 0
        for m in PAGE.finditer(t):
            pieces.append(html.escape(t[last : m.start()]))
            pieces.append(
                _page_link(m[1], from_doc, root) if from_doc else html.escape(m[0])
            )
            last = m.end()
        out.append("".join(pieces) + html.escape(t[last:]))
    return "".join(out)


# --- numbers, intervals and effects -------------------------------------------------------


def num(x: Any, zeros: bool = False) -> str | None:
    """A number for reading (three significant digits), ``None`` when there is none.
    With ``zeros`` the trailing zeros stay (``1.00``, not ``1``), as for a measured
    estimate set beside its interval."""
    try:
        x = float(x)
    except (TypeError, ValueError):
        return None
    if not math.isfinite(x):
        return None
    if x == 0:
        return "0"
    a = abs(x)
    if a >= 1e5 or a < 1e-3:
        return f"{x:.2e}".replace("e-0", "e-").replace("e+0", "e")
    return f"{x:#.3g}".rstrip(".") if zeros else f"{x:.3g}"


def measured(x: Any) -> str:
    """A measured estimate or bound as the book shows it: :func:`num` with its trailing
    zeros kept, the value as written when it is not a finite number."""
    return num(x, zeros=True) or str(x)


def interval(e: dict, adjusted: bool = False) -> str | None:
    """``0.59 [0.41, 0.75]``: an effect's estimate and its 95% interval (its adjusted
    interval with ``adjusted``), ``None`` when it has no data."""
    lo, hi = ("lo_k", "hi_k") if adjusted else ("lo", "hi")
    est, a, b = (num(e.get(k), zeros=True) for k in ("estimate", lo, hi))
    if est is None or a is None or b is None or not e.get("n"):
        return None
    return f"{est} [{a}, {b}]"


def _name(e: dict) -> str:
    return _INDEX.sub(_index_words, str(e.get("name", "the effect")))


def _line(e: dict) -> float:
    return float(e.get("smallest"))


def lean(e: dict) -> str:
    """Which way an undecided effect's data lean: towards the paper (beyond its line),
    short of it (between no effect and the line), or against it (beyond no effect)."""
    try:
        est, line, null = float(e["estimate"]), _line(e), float(e.get("null", 0))
    except (KeyError, TypeError, ValueError):
        return "no way (no data)"
    if not math.isfinite(est):
        return "no way (no data)"
    d = e.get("direction")
    if est == null and d != "within":
        return "neither way (its estimate is at no effect)"
    if d == "within":
        return "towards the paper" if abs(est - null) <= abs(line) else "away from it"
    sign = 1 if d == "above" else -1
    if sign * (est - line) >= 0:
        return "towards the paper"
    if sign * (est - null) > 0:
        return "short of the paper"
    return "against the paper"


def effect_finding(e: dict) -> str:
    """One effect in a clause: its estimate and interval and what they say against its
    line (the smallest effect that counts as the paper's)."""
    name = _name(e)
    iv = interval(e)
    line = num(e.get("smallest"))
    null = num(e.get("null")) or "0"
    d = e.get("direction")
    if not e.get("in_setting", True):
        return f"{name} was left out (no arm could train in its setting at this scale)"
    if iv is None:
        return f"{name} has no data (nothing to compare at this scale)"
    where = {"above": "above", "below": "below"}.get(d, "within ±")
    dec = e.get("decision")
    if d == "within" and dec == "reproduced":
        return f"{name} is {iv}, within ±{line.lstrip('-')} of no effect ({null})"
    if d == "within" and dec == "not-reproduced":
        return (
            f"{name} is {iv}, outside the comparable band of ±{line.lstrip('-')} "
            f"around {null}"
        )
    if dec == "reproduced":
        return f"{name} is {iv}, {where} its line of {line}"
    if dec == "not-reproduced" and e.get("contrary"):
        return f"{name} goes against the paper: {iv}, past no effect ({null})"
    if dec == "not-reproduced":
        return f"{name} falls short of the paper: {iv} against a line of {line}"
    lines = [f"a line of {line}"]
    try:
        lo, hi, nul = float(e["lo"]), float(e["hi"]), float(e.get("null", 0))
        if lo <= nul <= hi and num(nul) != line:
            lines.append(f"no effect ({null})")
    except (KeyError, TypeError, ValueError):
        pass
    way = lean(e)
    if way.startswith("neither way"):
        return f"{name} straddles {' and '.join(lines)}: {iv}; its estimate is at no effect"
    return (
        f"{name} straddles {' and '.join(lines)}: {iv}; it leans {way}"
        if way != "no way (no data)"
        else f"{name} straddles {' and '.join(lines)}: {iv}"
    )


def _join(items: list[str], most: int = 3) -> str:
    if len(items) > most:
        items = items[:most] + [f"{len(items) - most} more"]
    if len(items) <= 1:
        return "".join(items)
    return "; ".join(items[:-1]) + "; and " + items[-1]


def _first_part(text: Any, width: int = 170) -> str:
    """The first part of a measured text (to its first top-level "; " or ". "), cut at
    a word."""
    _top_parts, value_text = LEDGER["_top_parts"], LEDGER["value_text"]
    s = value_text(text) if text is not None else ""
    s = s.partition("Decided: ")[0].strip().rstrip(".")
    parts = _top_parts(s) or [""]
    return _cap(parts[0], width)


def gate_words(trained: dict | None) -> str:
    """The claim's gate (that the experiment works at all) in words: what it asks, its
    value and whether it passed."""
    if not trained:
        return ""
    test = rule_prose(str(trained.get("rule", "")))
    value = trained.get("value")
    shown = f" (value: {_value_words(value)})" if value not in (None, {}, []) else ""
    return f"{test}{shown}"


def _value_words(v: Any) -> str:
    if isinstance(v, dict):
        return ", ".join(
            f"{k.replace('_', ' ')} {_value_words(x)}" for k, x in v.items()
        )
    if isinstance(v, (list, tuple)):
        return ", ".join(_value_words(x) for x in v)
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, (int, float)):
        return num(v) or "no value"
    return plain_values(str(v))


def finding(c: dict) -> str:
    """What was found, in one sentence (plain text; may hold an estimate and interval)."""
    v = c.get("verdict")
    effects = [e for e in (c.get("effects") or [])]
    trained = c.get("trained")
    gate_failed = trained is not None and not trained.get("passed", True)
    if v == "not-attempted":
        return "Not attempted: " + _why_not(c.get("note") or "no reason given")
    if effects:
        inside = [e for e in effects if e.get("in_setting", True)]
        if gate_failed:
            leaning = [
                f"{_name(e)} {interval(e)}, leaning {lean(e)}"
                for e in inside
                if interval(e)
            ]
            tail = f"; the data: {_join(leaning, 2)}" if leaning else ""
            return (
                "Undecided: the experiment's gate failed (it asks that "
                f"{gate_words(trained)}), so no effect is judged{tail}."
            )
        if not inside:
            return (
                "Undecided: no arm could train in any of its settings at this scale, "
                "so every effect was left out."
            )
        by = {
            k: [e for e in inside if e.get("decision") == k]
            for k in ("reproduced", "not-reproduced", "inconclusive")
        }
        if v == "reproduced":
            return (
                "Holds: " + _join([effect_finding(e) for e in by["reproduced"]]) + "."
            )
        if v == "not-reproduced":
            bad = sorted(by["not-reproduced"], key=lambda e: not e.get("contrary"))
            return "Fails: " + _join([effect_finding(e) for e in bad]) + "."
        if v == "partly-reproduced":
            good = [effect_finding(e) for e in by["reproduced"]]
            rest = [
                effect_finding(e) for e in by["not-reproduced"] + by["inconclusive"]
            ]
            return f"Partly: {_join(good, 2)}; but {_join(rest, 2)}."
        und = by["inconclusive"] or inside
        return "Undecided: " + _join([effect_finding(e) for e in und]) + "."
    said = _first_part(c.get("measured"))
    if v in ("not-reproduced", "partly-reproduced") and not gate_failed:
        said = what_failed(c) or said
    if gate_failed:
        return (
            "Undecided: the networks did not pass the training gate (it asks that "
            f"{gate_words(trained)}); measured: {said}."
        )
    word = {
        "reproduced": "Holds",
        "partly-reproduced": "Partly holds",
        "not-reproduced": "Fails",
        "inconclusive": "Undecided",
    }.get(v, "Found")
    return f"{word}: {said}." if said else f"{word}."


_OF = re.compile(r"\b(\d+) of (\d+)\b")
_NO = re.compile(r"(?::|\bis|\bare)\s+(?:no|False)\b(?![-\w])")


def what_failed(c: dict, width: int = 170) -> str:
    """What failed in a claim without effects (issue 52, item 11): the part of its measured
    text that says so (a yes-or-no answered no, a count short of its total: "in 3 of 8
    rows"), else the parts of its rule that the run did not meet (``extra.failed``, kept
    by the ledger when it decided), else nothing."""
    _top_parts, value_text = LEDGER["_top_parts"], LEDGER["value_text"]
    s = value_text(c.get("measured")) if c.get("measured") is not None else ""
    s = s.partition("Decided: ")[0].strip().rstrip(".")
    for part in _top_parts(s):
        for sentence in re.split(r"(?<=[\w)])\. (?=[A-Z])", part):
            short = any(int(a) < int(b) for a, b in _OF.findall(sentence))
            no = _NO.search(sentence) or re.search(r"(?:^|\s)(?:no|False)$", sentence)
            if short or no:
                return _cap(sentence.rstrip("."), width)
    failed = ((c.get("extra") or {}).get("failed")) or []
    if failed:
        return "the run did not meet " + _join([_cap(str(f), width) for f in failed], 2)
    return ""


def _why_not(note: str) -> str:
    """Why a claim was not attempted: the note's sentence that says so, else its first."""
    sentences = re.split(r"(?<=[.;])\s+(?=[A-Z])", " ".join(note.split()))
    for s in sentences:
        if re.search(r"not (?:be )?attempted|not available|unavailable|offline", s):
            return _cap(s.rstrip(".;"), 220) + "."
    return _sentence(note)


_ABBREVIATIONS = (
    "eq",
    "eqs",
    "fig",
    "figs",
    "sec",
    "thm",
    "app",
    "tab",
    "e.g",
    "i.e",
    "cf",
)
_ABBREVIATIONS += ("vs", "al", "approx", "resp", "no", "ref")


def _sentence(text: str) -> str:
    return reason(text).rstrip(".") + "."


def reason(note: str, width: int = 220) -> str:
    """The note's first sentence, for a one-line reason (cut at a word, never in a number or
    after an abbreviation such as "Eq.")."""
    note = " ".join((note or "").split())
    first = note
    for m in re.finditer(r"[.;](?=\s|$)", note):
        word = re.findall(r"[\w.]+$", note[: m.start()])
        if m.group() == "." and word and word[0].lower().rstrip(".") in _ABBREVIATIONS:
            continue
        if m.group() == "." and word and re.fullmatch(r"\d+|[A-Z]", word[0]):
            continue  # "Eq. 12. next", initials
        first = note[: m.start() + 1]
        break
    if len(first) > width:
        first = first[: first.rfind(" ", 0, width)].rstrip(",;:") + " …"
    return first.rstrip(";,:").strip()


# --- a rule's expression in words ----------------------------------------------------------

_WORDS = {
    "acc": "accuracy",
    "ref": "reference",
    "tol": "tolerance",
    "dev": "deviation",
    "max": "largest",
    "min": "smallest",
    "n": "number of",
    "ok": "within tolerance",
    "frac": "share",
    "pre": "pre-training",
    "err": "error",
    "rel": "relative",
    "ppl": "perplexity",
    "std": "spread",
    "avg": "mean",
    "init": "initial",
    "val": "validation",
    "lr": "learning rate",
    "fd": "finite-difference",
}
_CMP = {
    ast.Gt: "is above",
    ast.GtE: "is at least",
    ast.Lt: "is below",
    ast.LtE: "is at most",
    ast.Eq: "is",
    ast.NotEq: "is not",
    ast.In: "is in",
    ast.NotIn: "is not in",
}
_ORD = {0: "the first", 1: "the second", -1: "the last", -2: "the last but one"}


_NAMES = {
    "sigma": "σ",
    "relu": "ReLU",
    "rnn": "RNN",
    "gru": "GRU",
    "lstm": "LSTM",
    "lru": "LRU",
    "alif": "ALIF",
    "plus": "+",
    "pm": "±",
    "ptb": "PTB",
    "shd": "SHD",
    "slmnist": "sl-MNIST",
    "T": "sequence length",
    "Ts": "sequence lengths",
    "lm": "language model",
    "fig2": "(Fig. 2)",
    "fig3": "(Fig. 3)",
}
_PARAMETERS = {
    "seed": "master seed",
    "seeds": "seeds",
    "n_seeds": "seeds",
    "n_student": "student width",
    "kinds": "networks",
    "T_grad": "gradient time bins",
    "acts": "activations",
}


def parameters_text(params: dict) -> str:
    """A run's parameters for reading: ``n_student 4000`` reads ``student width 4000``,
    ``kinds ['sigma_rnn', 'gru']`` reads ``networks σ RNN and GRU``."""

    def words(x: Any) -> str:
        if isinstance(x, (list, tuple)):
            return " and ".join(map(words, x))
        if not isinstance(x, str):
            return str(x)
        out = " ".join(_NAMES.get(w, _WORDS.get(w, w)) for w in x.split("_") if w)
        return re.sub(r" ([+±])", r"\1", out)

    parts = [
        f"{_PARAMETERS.get(k) or words(k)} {words(v)}"
        for k, v in params.items()
        if k != "profile"
    ]
    if "profile" in params:
        parts.append(f"other sizes as at the {words(params['profile'])} profile")
    return "; ".join(parts)


def humanize(name: str) -> str:
    """A code name in words: ``ref_acc`` reads ``reference accuracy``."""
    words = [w for w in re.split(r"_+", name) if w]
    return " ".join(_WORDS.get(w.lower(), w) for w in words) or name


def _prose(node: ast.AST) -> str:
    if isinstance(node, ast.BoolOp):
        word = " and " if isinstance(node.op, ast.And) else " or "
        return word.join(_prose(v) for v in node.values)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        return "not " + _prose(node.operand)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return "−" + _prose(node.operand)
    if isinstance(node, ast.Compare):
        out = [_prose(node.left)]
        for op, right in zip(node.ops, node.comparators):
            out += [_CMP.get(type(op), "compared with"), _prose(right)]
        return " ".join(out)
    if isinstance(node, ast.BinOp) and _is_mean(node):
        return f"the mean of {_prose(node.left.args[0])}"
    if isinstance(node, ast.BinOp):
        op = {ast.Add: "+", ast.Sub: "−", ast.Mult: "×", ast.Div: "/"}.get(
            type(node.op), "?"
        )
        return f"{_prose(node.left)} {op} {_prose(node.right)}"
    if isinstance(node, ast.Name):
        return humanize(node.id)
    if isinstance(node, ast.Constant):
        if isinstance(node.value, bool):
            return "yes" if node.value else "no"
        if isinstance(node.value, (int, float)):
            return num(node.value) or str(node.value)
        return str(node.value)
    if isinstance(node, ast.Subscript):
        key = node.slice
        median = _median_of(node)
        if median is not None:
            return f"the median of {median}"
        if isinstance(key, ast.Slice) and key.lower is None and key.upper is not None:
            return f"the first {_prose(key.upper)} of {_prose(node.value)}"
        if isinstance(key, ast.Constant) and isinstance(key.value, int):
            where = _ORD.get(key.value, f"number {key.value}")
            return f"{where} {_prose(node.value)}"
        if isinstance(key, ast.UnaryOp) and isinstance(key.operand, ast.Constant):
            return f"{_ORD.get(-key.operand.value, 'one')} {_prose(node.value)}"
        return f"{_prose(node.value)} of {_prose(key)}"
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
        f, args = node.func.id, node.args
        if f in ("all", "any") and args and isinstance(args[0], ast.GeneratorExp):
            g = args[0]
            each = "every" if f == "all" else "some"
            return f"for {each} {_targets(g)}: {_prose(g.elt)}"
        if f == "len" and args:
            return f"the number of {_prose(args[0])}"
        if f == "abs" and args:
            return f"the size of {_prose(args[0])}"
        if f in ("min", "max") and args:
            word = "the smallest" if f == "min" else "the largest"
            if isinstance(args[0], ast.GeneratorExp):
                inner = _prose(_over(args[0]))
                if inner.startswith(word):
                    return inner
                return f"{word} {inner.removeprefix('the ')}"
            return f"{word} of {', '.join(_prose(a) for a in args)}"
        return f"{humanize(f)} of {', '.join(_prose(a) for a in args)}"
    if isinstance(node, (ast.List, ast.Tuple)):
        return ", ".join(_prose(x) for x in node.elts)
    return humanize(ast.unparse(node))


def _is_mean(node: ast.BinOp) -> bool:
    """``sum(X) / len(X)``, a rule's mean of a per-seed list."""

    def call(n: ast.AST, name: str) -> bool:
        return (
            isinstance(n, ast.Call)
            and isinstance(n.func, ast.Name)
            and n.func.id == name
            and len(n.args) == 1
        )

    return (
        isinstance(node.op, ast.Div)
        and call(node.left, "sum")
        and call(node.right, "len")
        and ast.dump(node.left.args[0]) == ast.dump(node.right.args[0])
    )


def _median_of(node: ast.Subscript) -> str | None:
    """``sorted(X)[len(X) // 2]`` (a rule's median, the upper one of an even number) as
    the words for ``X``; ``sum(X, [])`` (a list of lists joined) reads "all X"; else
    ``None``."""
    v, k = node.value, node.slice
    if not (
        isinstance(v, ast.Call)
        and isinstance(v.func, ast.Name)
        and v.func.id == "sorted"
        and len(v.args) == 1
        and isinstance(k, ast.BinOp)
        and isinstance(k.op, ast.FloorDiv)
        and isinstance(k.right, ast.Constant)
        and k.right.value == 2
        and isinstance(k.left, ast.Call)
        and isinstance(k.left.func, ast.Name)
        and k.left.func.id == "len"
        and len(k.left.args) == 1
        and ast.dump(k.left.args[0]) == ast.dump(v.args[0])
    ):
        return None
    inner = v.args[0]
    if (
        isinstance(inner, ast.Call)
        and isinstance(inner.func, ast.Name)
        and inner.func.id == "sum"
        and len(inner.args) == 2
        and isinstance(inner.args[1], ast.List)
        and not inner.args[1].elts
    ):
        return "all " + _prose(inner.args[0])
    return _prose(inner)


def _over(g: ast.GeneratorExp) -> ast.AST:
    """A generator's element with ``X[t]`` (``t`` running over ``X``) read as ``X``:
    ``max(ppl[c] for c in ppl)`` is the largest ``ppl``."""
    gen = g.generators[0]
    if not (isinstance(gen.target, ast.Name) and isinstance(gen.iter, ast.Name)):
        return g.elt
    t, xs = gen.target.id, gen.iter.id

    class Fold(ast.NodeTransformer):
        def visit_Subscript(self, node):
            self.generic_visit(node)
            v, k = node.value, node.slice
            if (
                isinstance(v, ast.Name)
                and v.id == xs
                and isinstance(k, ast.Name)
                and k.id == t
            ):
                return ast.Name(id=xs, ctx=ast.Load())
            return node

    return Fold().visit(ast.parse(ast.unparse(g.elt), mode="eval").body)


def _targets(g: ast.GeneratorExp) -> str:
    gen = g.generators[0]
    return f"{_prose(gen.target)} in {_prose(gen.iter)}"


def rule_prose(expr: str) -> str:
    """A rule expression in words (no code names): ``ref_acc >= 2 * chance`` reads
    ``reference accuracy at least 2 × chance``; an expression that does not parse stays
    as it is, its names in words."""
    try:
        tree = ast.parse(expr, mode="eval").body
    except SyntaxError:
        return humanize(expr)
    return _prose(tree)


# --- each paper's bottom line -------------------------------------------------------------


def _short(c: dict, width: int = 80, also: str = "") -> str:
    """A claim named for a bottom line by what it claims (issue 52): its statement's first
    sentence (cut at a word, never inside math), then its source in brackets, with
    ``also`` after the source."""
    statement = " ".join(str(c.get("statement") or "").split())
    source = str(c.get("source", c["id"])) + (f"; {also}" if also else "")
    if not statement:
        return source
    first = re.split(r"(?<=[a-z)$])\. (?=[A-Z])", statement)[0].rstrip(".")
    return f"{_cap(first, width)} ({source})"


def _sources(claims: list[dict], most: int = 6) -> str:
    names = list(dict.fromkeys(_short(c, 60) for c in claims))
    more = "; …" if len(names) > most else ""
    return "; ".join(names[:most]) + more


def _cap(text: str, width: int = 110) -> str:
    """A text cut at a space outside brackets and math, before ``width``."""
    if len(text) <= width:
        return text
    depth, math_on, cut = 0, False, -1
    for i, ch in enumerate(text[:width]):
        if ch == "$":
            math_on = not math_on
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth = max(depth - 1, 0)
        elif ch == " " and not depth and not math_on:
            cut = i
    if cut <= 0:
        return text
    return text[:cut].rstrip(",;:") + " …"


def bottom_line(
    claims: Iterable[dict],
    seed_verdicts: dict | None = None,
    scale_records: list[dict] | None = None,
) -> str:
    """A paper's bottom line in plain words, from its claims: what holds, what does not
    and what failed, what is undecided and which way it leans, at what scale."""
    claims = list(claims)
    if not claims:
        return ""
    by: dict[str, list[dict]] = {}
    for c in claims:
        by.setdefault(c["verdict"], []).append(c)
    profile = claims[0].get("profile", "book")
    held = by.get("reproduced", [])
    out = [
        f"At the {profile} scale the book checked {len(claims)} claims; "
        + (f"{len(held)} hold ({_sources(held)})." if held else "none holds in full.")
    ]
    for verdict, words in (
        ("partly-reproduced", "hold in part"),
        ("not-reproduced", "do not hold"),
    ):
        mine = by.get(verdict, [])
        if mine:
            if len(mine) == 1:
                words = words.replace("hold in", "holds in").replace(
                    "do not", "does not"
                )
            out.append(f"{len(mine)} {words}: {_failures(mine)}.")
    und = by.get("inconclusive", [])
    if und:
        gate = [c for c in und if c.get("trained") and not c["trained"].get("passed")]
        leans: dict[str, int] = {}
        for c in und:
            for e in c.get("effects") or []:
                if e.get("in_setting", True) and e.get("decision") == "inconclusive":
                    leans[lean(e)] = leans.get(lean(e), 0) + 1
        words = [
            f"{v} {'sits' if v == 1 else 'sit'} at no effect"
            if k.startswith("neither way")
            else f"{v} {'leans' if v == 1 else 'lean'} {k}"
            for k, v in sorted(leans.items(), key=lambda kv: -kv[1])
            if not k.startswith("no way")
        ]
        out.append(
            f"{len(und)} {'is' if len(und) == 1 else 'are'} undecided at this scale"
            + (
                f", {len(gate)} of them because the experiment did not work"
                if gate
                else ""
            )
            + (f"; of their undecided effects, {', '.join(words)}" if words else "")
            + "."
        )
    na = by.get("not-attempted", [])
    if na:
        out.append(f"{len(na)} not attempted ({_sources(na)}).")
    at_scale = _at_scale(claims, scale_records or [])
    if at_scale:
        out.append(at_scale)
    seeds = seed_agreement(claims, seed_verdicts)
    if seeds:
        out.append(seeds)
    kinds = confirmatory_count(claims)
    if kinds:
        out.append(kinds)
    return " ".join(out)


def confirmatory_count(claims: list[dict]) -> str:
    """How many of the verdicts above come from a complete confirmatory record (the
    verdict that counts, :func:`rnnbook.book.records.counting`); nothing while none
    does (every verdict is then the book's, exploratory)."""
    kinds = [(c.get("counting") or {}).get("kind") for c in claims]
    n, m = kinds.count("confirmatory"), kinds.count("exploratory")
    if not n:
        return ""
    return (
        f"{n} of these verdicts {'comes' if n == 1 else 'come'} from "
        f"{'a confirmatory record' if n == 1 else 'confirmatory records'}, declared "
        f"before they ran; {m} {'is' if m == 1 else 'are'} still exploratory."
    )


#: the master seed of the book's own run: its seed record is the book ledger kept, not
#: a re-run, so it never counts as agreeing with itself
BOOK_SEED = 0


def seed_agreement(
    claims: Iterable[dict], seed_verdicts: dict | None, book_seed: int = BOOK_SEED
) -> str:
    """How many training verdicts came out the same at the other master seeds, each seed's
    verdict against the book's; the book's own seed (``book_seed``) is left out."""
    ids = {c["id"]: c["verdict"] for c in claims}
    same = total = 0
    used = []
    for seed, verdicts in sorted((seed_verdicts or {}).items()):
        if int(seed) == book_seed:
            continue
        mine = [cid for cid in verdicts if cid in ids]
        if mine:
            used.append(str(seed))
        for cid in mine:
            total += 1
            same += verdicts[cid] == ids[cid]
    if not total:
        return ""
    where = "master seed" + ("s " if len(used) > 1 else " ")
    where += " and ".join([", ".join(used[:-1]), used[-1]] if len(used) > 1 else used)
    return (
        f"Re-run at {where}, {same} of {total} training verdicts came out as in the "
        "book's own run."
    )


def failing_effects(c: dict) -> list[dict]:
    """A claim's effects that are not reproduced, those that fail first (against the
    paper before short of it), then the undecided ones."""
    bad = [
        e
        for e in c.get("effects") or []
        if e.get("in_setting", True) and e.get("decision") != "reproduced"
    ]
    return sorted(
        bad,
        key=lambda e: (e.get("decision") != "not-reproduced", not e.get("contrary")),
    )


def _failures(claims: list[dict], most: int = 4) -> str:
    """Claims that do not fully hold, for a bottom line: a training claim with the effect
    that failed and its numbers, any other claim by its source (its box says what)."""
    items, plain = [], []
    for c in claims:
        bad = failing_effects(c)
        if bad and len(items) < most:
            items.append(f"{_short(c)}, where {_cap(effect_finding(bad[0]), 100)}")
        else:
            plain.append(c)
    if plain:
        items.append(_sources(plain))
    return "; ".join(items)


_VERDICT_WORDS = {
    "reproduced": "reproduced",
    "partly-reproduced": "partly reproduced",
    "not-reproduced": "not reproduced",
    "inconclusive": "still undecided",
    "not-attempted": "not attempted",
}


def _at_scale(claims: list[dict], scale_records: list[dict]) -> str:
    """What the records at scale (``results/<scale>/``, not stale) decide of these claims,
    each on its own data: per claim its largest record (a GPU's before the CPU's, then the
    most seeds), the claims grouped by that record's verdict."""
    mine = {c["id"]: c for c in claims}
    best: dict[str, tuple] = {}
    for r in scale_records:
        if r.get("stale") or r.get("kind") == "seeds":
            continue
        for rc in r.get("claims") or []:
            if rc.get("id") in mine and not rc.get("rule_changed"):
                size = (r.get("kind") == "gpu", rc.get("seeds") or 0)
                if rc["id"] not in best or size > best[rc["id"]][0]:
                    best[rc["id"]] = (size, r, rc)
    if not best:
        return ""
    groups: dict[str, list[str]] = {}
    for i, (_, r, rc) in best.items():
        seeds = f"{rc['seeds']} seeds, " if rc.get("seeds") else ""
        groups.setdefault(str(rc.get("verdict")), []).append(
            _short(mine[i], 60, f"{seeds}{r.get('kind')}")
        )
    said = [
        f"{_VERDICT_WORDS.get(v, v)}: {'; '.join(groups[v])}"
        for v in _VERDICT_WORDS
        if v in groups
    ]
    return (
        "Records at scale (runs sized to decide, each decided on its own data; per "
        "claim the largest): " + "; ".join(said) + "."
    )
