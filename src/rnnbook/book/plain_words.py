"""Code literals turned into words on the rendered page (issue 51): the measured texts the
paper rooms write ("binom(t, l)", "True", "1 steps", "<=") reach the boxes, the scorecard,
the part pages and the errata. They are written by code that records pin (a change there
voids a running record), so the page, not the record, words them: :func:`plain` on every
piece of prose at render time (:func:`rnnbook.book.ledger_sphinx.plain_page`), never inside
code, literals or math."""

from __future__ import annotations

import re
import unicodedata

from .ledger import symbols
from .reading import _INDEX, GREEK, _index_words

_BOOL = re.compile(r"(?<![\w`'\"])(True|False)(?![\w`'\"])")
_ONE = re.compile(r"(?<![\d.])1 (cell|seed|run|trial|step)s\b")
_OPEN = re.compile(r"\bbinom\(")
_BINOM = re.compile(
    r"\bbinom\(\s*([^(),]+(?:\([^()]*\))?[^(),]*),\s*([^()]+(?:\([^()]*\))?[^()]*)\)"
)


_WILSON = re.compile(r"\b(\d+% )wilson\b")

#: the keys the paper rooms write into measured texts, as a reader reads them
KEYS = {
    "eq12_var": "Eq. (12)'s variance",
    "eq12": "Eq. (12)",
    "m2": "m₂",
    "var": "variance",
    "pred": "predicted",
    "vanilla_chi1": "the vanilla RNN's χ₁",
    "minimal_chi1": "the minimalRNN's χ₁",
    "c_MC": "c (Monte Carlo)",
    "c_theory": "c (theory)",
    "q_MC": "q (Monte Carlo)",
    "q_theory": "q (theory)",
}
_KEY_AT_T = re.compile(r"\b(eq12_var|eq12|m2|var|pred)_T(\d+)\b")
_KEY = re.compile(r"(?<![\w.#-])(" + "|".join(k for k in KEYS if "_" in k) + r")\b")

#: whole phrases of the rooms' texts that name code, as a reader reads them
PHRASES = {
    "h_tl = h_(t-1)l + h_t(l-1)": "hₜ,ₗ = hₜ₋₁,ₗ + hₜ,ₗ₋₁",
    "paths of max_len and max_len + 2 moves": (
        "paths of the chapter's longest length and of two moves more"
    ),
    "(parameter paper_width)": "(the chapter's parameter for the paper's width)",
}

#: a math name written in code (``h_tl``, ``a_k``, ``sigma_min``): its subscript in the
#: Unicode subscripts, where every character has one
_SUBSCRIPT = dict(zip("0123456789aehijklmnoprstuvx+-", "₀₁₂₃₄₅₆₇₈₉ₐₑₕᵢⱼₖₗₘₙₒₚᵣₛₜᵤᵥₓ₊₋"))


def _letter(name: str) -> str:
    """A Greek letter's name (``sigma``, ``Gamma``) as the letter (``σ``, ``Γ``)."""
    case = "CAPITAL" if name[0].isupper() else "SMALL"
    return unicodedata.lookup(f"GREEK {case} LETTER {name.upper().replace('MB', 'M')}")


_GREEK = {name: _letter(name) for name in GREEK}
_MATH_NAME = re.compile(
    r"(?<![\w./#-])("
    + "|".join(sorted(_GREEK, key=len, reverse=True))
    + r"|[A-Za-z]|min|max|var)_([a-z0-9]{1,3})(?![\w/(])"
)


def _math_name(m: re.Match) -> str:
    head, sub = _GREEK.get(m[1], m[1]), m[2]
    if not all(c in _SUBSCRIPT for c in sub):
        return m[0]
    return head + "".join(_SUBSCRIPT[c] for c in sub)


def plain(text: str) -> str:
    """``text`` with its code literals in words: ``True``/``False`` as yes/no, ``1 steps``
    as ``1 step``, ``<=`` as ``≤``, ``binom(a, b)`` as ``C(a, b)``, ``95% wilson`` as ``95%
    Wilson``, ``depth index -1`` as ``the deepest depth``, the rooms' keys (``m2_T1``) in
    words and math names (``h_tl``) with subscripts."""
    for code, words in PHRASES.items():
        text = text.replace(code, words)
    text = _WILSON.sub(lambda m: f"{m[1]}Wilson", text)
    text = _INDEX.sub(_index_words, text)  # as the boxes word it
    text = _KEY_AT_T.sub(lambda m: f"{KEYS[m[1]]} at T = {m[2]}", text)
    text = _KEY.sub(lambda m: KEYS[m[1]], text)
    text = _MATH_NAME.sub(_math_name, text)
    text = _BINOM.sub(lambda m: f"C({m[1].strip()}, {m[2].strip()})", text)
    text = _OPEN.sub("C(", text)  # its arguments in another node (math, emphasis)
    text = _BOOL.sub(lambda m: "yes" if m[1] == "True" else "no", text)
    text = _ONE.sub(lambda m: f"1 {m[1]}", text)
    return symbols(text)


_TAG = re.compile(
    r"(<(?:code|pre|script|style|math)\b.*?</(?:code|pre|script|style|math)>"
    r"|<[^>]+>|\\\(.*?\\\)|\$[^$]*\$)",
    re.S,
)


def plain_html(html: str) -> str:
    """:func:`plain` on the text of an HTML fragment: tags, code, scripts and math
    (``\\(...\\)``, ``$...$``) as they are."""
    parts = _TAG.split(html)
    return "".join(p if i % 2 else plain(p) for i, p in enumerate(parts))
