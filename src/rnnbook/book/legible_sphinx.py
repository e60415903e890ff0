"""Plain words where a reader expects words (loaded by :mod:`rnnbook.book.sphinx_ext`).

* A chapter title with math keeps its math on the page, but browser tabs, the search results, the
  sidebar and every cross-reference to the chapter get a plain-text form of it
  (``$\\rho_t=\\tfrac12$`` reads "ρₜ = 1/2"): :func:`tex_plain`.
* A figure of a chapter gets as alt text what its caption says it shows (the paragraph
  "**Figure N.** ..." that follows it) instead of its file name.
* A cell's one-line report of many items ("LSC pre-training of the FFNs: relu seed 0:
  converged ...; relu seed 1: ...") is shown folded, as a list: :func:`fold_long_reports`.
* In a claim box, the ASCII math that measured values carry from the chapter's code
  (``rho_t = 0.5``, ``||X^+ y||``, ``sqrt(nu_W)``, ``R^2``) is typeset as math:
  :func:`ascii_tex` and :func:`typeset_box_math`.
"""

from __future__ import annotations

import json
import re
from html import escape as html_escape
from html import unescape as html_unescape
from pathlib import Path
from typing import Any

from docutils import nodes

GREEK = {
    "alpha": "α",
    "beta": "β",
    "gamma": "γ",
    "delta": "δ",
    "epsilon": "ε",
    "varepsilon": "ε",
    "zeta": "ζ",
    "eta": "η",
    "theta": "θ",
    "kappa": "κ",
    "lambda": "λ",
    "mu": "μ",
    "nu": "ν",
    "xi": "ξ",
    "pi": "π",
    "rho": "ρ",
    "sigma": "σ",
    "tau": "τ",
    "phi": "φ",
    "varphi": "φ",
    "chi": "χ",
    "psi": "ψ",
    "omega": "ω",
    "Gamma": "Γ",
    "Delta": "Δ",
    "Theta": "Θ",
    "Lambda": "Λ",
    "Sigma": "Σ",
    "Phi": "Φ",
    "Psi": "Ψ",
    "Omega": "Ω",
    "infty": "∞",
    "leq": "≤",
    "le": "≤",
    "geq": "≥",
    "ge": "≥",
    "neq": "≠",
    "approx": "≈",
    "times": "×",
    "cdot": "·",
    "to": "→",
    "sim": "~",
    "pm": "±",
    "ell": "ℓ",
    "sqrt": "√",
}
WORDS = {
    "max",
    "min",
    "log",
    "exp",
    "sin",
    "cos",
    "tanh",
    "det",
    "tr",
    "Var",
    "arg",
    "lim",
}
SUB = dict(zip("0123456789aehijklmnoprstuvx+-=()", "₀₁₂₃₄₅₆₇₈₉ₐₑₕᵢⱼₖₗₘₙₒₚᵣₛₜᵤᵥₓ₊₋₌₍₎"))
SUP = dict(zip("0123456789+-=()n", "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁼⁽⁾ⁿ"))


def _script(text: str, table: dict, mark: str) -> str:
    text = text.strip()
    if not text:
        return ""
    if all(c in table for c in text):
        return "".join(table[c] for c in text)
    return f"{mark}{text}" if len(text) == 1 else f"{mark}({text})"


def _group(m: re.Match) -> str:
    return m[1] if m[1] is not None else m[2]


def tex_plain(tex: str) -> str:
    """A TeX formula as plain Unicode text: ``\\rho_t=\\tfrac12`` -> ``ρₜ = 1/2``."""
    s = tex.strip().strip("$")
    s = re.sub(r"\\[dt]?frac\s*\{([^{}]*)\}\s*\{([^{}]*)\}", r"\1/\2", s)
    s = re.sub(r"\\[dt]?frac\s*(\w)\s*(\w)", r"\1/\2", s)
    s = re.sub(
        r"\\([A-Za-z]+)(?![A-Za-z])",
        lambda m: GREEK.get(m[1], m[1] if m[1] in WORDS else ""),
        s,
    )
    s = re.sub(r"_\{([^{}]*)\}|_(\S)", lambda m: _script(_group(m), SUB, "_"), s)
    s = re.sub(r"\^\{([^{}]*)\}|\^(\S)", lambda m: _script(_group(m), SUP, "^"), s)
    s = re.sub(r"[{}]|\\[,;:! ]", "", s)
    s = re.sub(r"\s*(=|≤|≥|<|>)\s*", r" \1 ", s)
    return re.sub(r"\s+", " ", s).strip()


def plain(node: nodes.Node) -> str:
    """The text of a node with its math written in plain Unicode."""
    out = []
    for n in node.findall(lambda n: isinstance(n, (nodes.Text, nodes.math))):
        if isinstance(n, nodes.math):
            out.append(tex_plain(n.astext()))
        elif not any(isinstance(p, nodes.math) for p in _parents(n)):
            out.append(n.astext())
    return re.sub(r"\s+", " ", "".join(out)).strip()


def _parents(n: nodes.Node):
    while n.parent is not None:
        n = n.parent
        yield n


def plain_titles(app, doctree) -> None:
    """Titles with math: their plain form for tabs, search, sidebar and cross-references."""
    env, docname = app.env, app.env.docname
    for store in (env.titles, env.longtitles):
        title = store.get(docname)
        if title is not None and any(title.findall(nodes.math)):
            store[docname] = nodes.title("", plain(title))
    found = getattr(env, "rnnbook_plain_titles", {})
    for title in doctree.findall(nodes.title):
        if any(title.findall(nodes.math)):
            found[title.astext()] = plain(title)
    env.rnnbook_plain_titles = found


def _merge(app, env, docnames, other) -> None:
    env.rnnbook_plain_titles = {
        **getattr(env, "rnnbook_plain_titles", {}),
        **getattr(other, "rnnbook_plain_titles", {}),
    }


def plain_search_titles(app, exception) -> None:
    """Section titles in the search index in their plain form (not raw TeX)."""
    index = Path(app.outdir) / "searchindex.js"
    titles = getattr(app.env, "rnnbook_plain_titles", {})
    if exception is not None or not index.exists() or not titles:
        return
    text = index.read_text(encoding="utf-8")
    for tex, words in titles.items():
        new = json.dumps(words, ensure_ascii=False)[1:-1]
        text = text.replace(json.dumps(tex)[1:-1], new)
    index.write_text(text, encoding="utf-8")


def _caption_after(image: nodes.image) -> nodes.paragraph | None:
    """The paragraph "Figure N. ..." after the notebook cell that holds ``image``."""
    cell = image
    while cell is not None and "cell" not in cell.get("classes", []):
        cell = cell.parent
    if cell is None or cell.parent is None:
        return None
    siblings = cell.parent.children
    for node in siblings[siblings.index(cell) + 1 :]:
        if "cell" in node.get("classes", []):
            if any(node.findall(nodes.image)):
                return None  # the next figure: this one has no caption of its own
            continue  # a cell that only records or formats
        para = next(iter(node.findall(nodes.paragraph)), None)
        if para is not None:
            return para if plain(para).startswith("Figure") else None
    return None


_ALT = re.compile(r"rnnbook-alt: ([^<\n]*)")


def _described(app, image: nodes.image) -> str | None:
    """The description the book's figure style records in the figure file (titles, axes)."""
    try:
        path = Path(app.env.relfn2path(image["uri"], app.env.docname)[1])
        m = _ALT.search(path.read_text(encoding="utf-8", errors="replace")[:4000])
    except (OSError, KeyError, ValueError):
        return None
    return m.group(1).strip() if m else None


def figure_alt(app, doctree) -> None:
    """Alt text of a chapter's figures: what its caption says the figure shows."""
    for image in doctree.findall(nodes.image):
        if image.get("alt"):
            continue
        para = _caption_after(image)
        if para is None:
            text = _described(app, image)
            if text:
                image["alt"] = text
            continue
        text = plain(para)
        if len(text) > 400:  # the caption's first sentences
            cut = text.rfind(". ", 0, 400)
            text = text[: cut + 1] if cut > 40 else text[:400] + "…"
        image["alt"] = text


_GREEK_NAMES = "|".join(
    sorted((k for k, v in GREEK.items() if v.isalpha() and k.isalpha()), key=len)[::-1]
)
#: a Greek letter spelt out, with an optional subscript, star or power: ``rho_t``,
#: ``nu_W^2``, ``lambda*``, ``chi_{2k}`` (not inside a word, an id or a path)
_GREEK_RE = (
    rf"(?<![\w\\./])(?:{_GREEK_NAMES})"
    r"(?:_(?:\{[^{}]*\}|[A-Za-z0-9]+))?(?:\*|\^(?:\{[^{}]*\}|[0-9]+|[A-Za-z+*]))?"
    r"(?![A-Za-z0-9])"
)
#: a letter with a power, a superscript sign or a braced subscript: ``R^2``, ``X^+``,
#: ``A^T``, ``x_{t,l}``
_POWER_RE = (
    r"(?<![\w\\])[A-Za-z](?:_\{[^{}]*\}(?:\^(?:[0-9]+|[A-Za-z+*]))?"
    r"|(?:_[A-Za-z0-9]+)?\^(?:\{[^{}]*\}|[0-9]+|[A-Za-z+*]))(?![A-Za-z0-9])"
)
#: a difference of one letter, written apart: ``Delta l`` (typeset as one atom, Δl)
_DIFF_RE = r"(?<![\w\\.])Delta [A-Za-z](?![\w(])"  # T/Delta l: a ratio, no path
_ATOM_RE = rf"{_DIFF_RE}|{_GREEK_RE}|{_POWER_RE}"
#: TeX written without its dollars (``-\mathbb{E}[\sigma'(u_1)]``), up to a space or ``,;``
_TEX_RE = r"(?<!\S)-?\\[A-Za-z]+[^\s$,;]*"
#: an absolute value of one atom, with an optional power: ``|lambda_k|^2``
_ABS_RE = rf"(?<!\|)\|(?:{_ATOM_RE})\|(?!\|)(?:\^(?:\{{[^{{}}]*\}}|[0-9]+))?"
ASCII_MATH = re.compile(
    rf"{_TEX_RE}|\|\|(?:[^|]{{1,30}})\|\||{_ABS_RE}|sqrt\((?:[^()]{{1,20}})\)|{_ATOM_RE}"
)


def _atom_tex(text: str) -> str:
    """One ASCII atom as TeX: ``rho_t`` -> ``\\rho_{t}``, ``lambda*`` -> ``\\lambda^*``."""

    def letter(m: re.Match) -> str:
        return "\\" + m[0] if m[0] in GREEK else m[0]

    tex = re.sub(r"[A-Za-z]+", letter, text, count=1)
    tex = re.sub(r"_([A-Za-z0-9]+)", r"_{\1}", tex)
    tex = re.sub(r"\^([0-9]+|[A-Za-z+*])", r"^{\1}", tex)
    return re.sub(r"(?<=[A-Za-z}])\*$", "^*", tex)


def _tex(text: str) -> str:
    if "\\" in text:
        return text
    if text.startswith("||"):
        inner = re.sub(_ATOM_RE, lambda m: _atom_tex(m[0]), text[2:-2])
        return rf"\lVert {inner} \rVert"
    if text.startswith("|"):
        inner, _, power = text[1:].partition("|")
        return rf"\lvert {_atom_tex(inner)} \rvert" + _atom_tex("x" + power)[1:]
    if text.startswith("sqrt("):
        inner = text[5:-1]
        return rf"\sqrt{{{_tex(inner) if ASCII_MATH.fullmatch(inner) else inner}}}"
    return _atom_tex(text)


def ascii_tex(text: str) -> list[tuple[str, bool]]:
    """``text`` cut into pieces ``(piece, is_math)``: the ASCII math in it (:data:`ASCII_MATH`)
    as TeX, the rest as it was."""
    out, last = [], 0
    for m in ASCII_MATH.finditer(text):
        if m.start() > last:
            out.append((text[last : m.start()], False))
        out.append((_tex(m[0]), True))
        last = m.end()
    if last < len(text):
        out.append((text[last:], False))
    return out


_TAG = re.compile(r"<(/?)([a-zA-Z]+)([^>]*)>")


def ascii_math_html(fragment: str) -> str:
    """An HTML fragment (a generated table) with the ASCII math of its text typeset as the
    inline math MathJax reads (as :func:`ascii_tex`); text inside ``code``, ``pre`` and
    math spans is left as it is."""
    out, last, inside = [], 0, []  # inside: the open elements that are code or math

    def text(t: str) -> str:
        if inside or not ASCII_MATH.search(html_unescape(t)):
            return t
        return "".join(  # read as text (``&#x27;`` is a prime), written back escaped
            '<span class="math notranslate nohighlight">\\('
            + html_escape(piece)
            + "\\)</span>"
            if is_math
            else html_escape(piece, quote=False)
            for piece, is_math in ascii_tex(html_unescape(t))
        )

    for m in _TAG.finditer(fragment):
        out.append(text(fragment[last : m.start()]))
        out.append(m[0])
        last = m.end()
        closing, tag, attrs = m[1], m[2].lower(), m[3]
        if closing and inside and inside[-1][0] == tag:
            inside[-1][1] -= 1
            if not inside[-1][1]:
                inside.pop()
        elif not closing and not attrs.rstrip().endswith("/"):
            if inside and inside[-1][0] == tag:
                inside[-1][1] += 1
            elif tag in ("code", "pre") or (tag == "span" and "math" in attrs):
                inside.append([tag, 1])
    out.append(text(fragment[last:]))
    return "".join(out)


_SKIP = (nodes.literal, nodes.literal_block, nodes.math, nodes.math_block, nodes.raw)


def typeset_box_math(app, doctree) -> None:
    """The ASCII math of every claim box's text, typeset as inline math."""
    for box in doctree.findall(nodes.admonition):
        if "claim-box" not in box.get("classes", []):
            continue
        texts = [
            t
            for t in box.findall(nodes.Text)
            if not any(isinstance(p, _SKIP) for p in _parents(t))
        ]
        for t in texts:
            pieces = ascii_tex(str(t))
            if not any(is_math for _, is_math in pieces):
                continue
            new = [
                nodes.math(piece, piece) if is_math else nodes.Text(piece)
                for piece, is_math in pieces
            ]
            t.parent.replace(t, new)


#: a cell's one-line report of at least this many items is shown as a folded list
LIST_ITEMS = 6


def folded_list(text: str) -> str | None:
    """A report written as one line, ``Heading: item; item; ...`` of at least
    :data:`LIST_ITEMS` items (LSC pre-training's line per network), as a folded list:
    the heading and the count, then the items one per line; else ``None``."""
    head, sep, rest = text.partition(": ")
    items = [i.strip() for i in rest.split("; ") if i.strip()]
    if not sep or ";" in head or len(head) > 80 or len(items) < LIST_ITEMS:
        return None
    lis = "".join(f"<li>{html_escape(i)}</li>" for i in items)
    return (
        f'<details class="output-list"><summary>{html_escape(head)} '
        f"({len(items)} entries)</summary><ul>{lis}</ul></details>"
    )


def _cell_output(node: nodes.Node) -> bool:
    """A cell's output: its Markdown part of a MIME bundle (as MyST-NB reads it) or the
    output container itself (once the bundle is resolved)."""
    if not isinstance(node, nodes.container):
        return False
    return node.get("mime_type") == "text/markdown" or "cell_output" in node["classes"]


def fold_long_reports(app, doctree) -> None:
    """Every cell output paragraph that :func:`folded_list` reads as a long report,
    folded; a paragraph with anything but plain text (math, links) is left as it is."""
    for para in list(doctree.findall(nodes.paragraph)):
        if not _cell_output(para.parent):
            continue
        if not all(isinstance(c, nodes.Text) for c in para.children):
            continue
        folded = folded_list(para.astext())
        if folded is not None:
            para.replace_self(nodes.raw("", folded, format="html"))


def setup(app) -> dict[str, Any]:
    app.connect("doctree-read", plain_titles, priority=900)
    app.connect("doctree-read", figure_alt, priority=900)
    app.connect("doctree-read", typeset_box_math, priority=900)
    app.connect("doctree-read", fold_long_reports, priority=900)
    app.connect("env-merge-info", _merge)
    app.connect("build-finished", plain_search_titles)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
