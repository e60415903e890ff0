"""The package reference: a page for each room of ``rnnbook`` and for each of its modules.

The package page (``book/api.md``) includes :func:`where` (which modules each chapter calls)
and :func:`api` (an index of the rooms and their modules). :func:`write_pages` writes a page
per room (its paper, then one line per module: what it computes and which chapters call it)
and a page per module (autodoc of its members) into ``_build/stage/book/reference/``, and
lists them under the package page in the staged ``_toc.yml``: a reader opens one module's
page, not one reference of every module at once.
"""

from __future__ import annotations

import importlib
import inspect
import re
from pathlib import Path
from typing import Any, Iterable

import yaml

#: the package page, under which the reference pages are listed, and their folder
PAGE = "book/api"
FOLDER = "book/reference"
COMMON_PAGE = "common-layer"


def is_code_page(docname: str) -> bool:
    """The package page and the reference pages: their text is code by nature (docstrings
    name arguments), so the checks for literals in prose pass them over."""
    docname = docname.removesuffix(".html")
    return docname == PAGE or docname.startswith(FOLDER + "/")


ROOMS = ("lsc", "implicit_bias", "mean_field", "infinite_width", "synthesis")
COMMON = ("datasets", "plotting", "stats", "cache", "device", "seeds")
#: names a module re-exports from another (the docstrings cite them where they are used):
#: the page of the module that re-exports it gives each a short entry pointing to its home
ALIASES = {
    "rnnbook.lsc.lsc_pretrain_": ("function", "rnnbook.lsc.pretrain.lsc_pretrain_", ()),
    "rnnbook.lsc.pretrain.StackedRNN": (
        "class",
        "rnnbook.lsc.stack.StackedRNN",
        ("lsc_jacobians",),
    ),
    "rnnbook.lsc.pretrain.Cell": ("class", "rnnbook.lsc.stack.Cell", ()),
    "rnnbook.lsc.pretrain.Transition": ("class", "rnnbook.lsc.stack.Transition", ()),
}


def _room_modules(room: str) -> list[str]:
    import importlib
    import pkgutil

    try:
        pkg = importlib.import_module(f"rnnbook.{room}")
    except ModuleNotFoundError:
        return []
    return [f"rnnbook.{room}.{m.name}" for m in pkgutil.iter_modules(pkg.__path__)]


def chapter_modules(source: Path) -> list[str]:
    """The ``rnnbook`` modules a chapter source imports (``from rnnbook.lsc import bounds`` gives
    ``rnnbook.lsc.bounds``), build room excluded."""
    import ast
    import importlib.util

    out: list[str] = []
    for node in ast.walk(ast.parse(Path(source).read_text())):
        if not isinstance(node, ast.ImportFrom) or not (node.module or "").startswith(
            "rnnbook"
        ):
            continue
        for alias in node.names:
            full = f"{node.module}.{alias.name}"
            name = (
                full
                if importlib.util.find_spec(node.module) and _is_module(full)
                else node.module
            )
            if not name.startswith("rnnbook.book") and name not in out:
                out.append(name)
    return out


def _is_module(name: str) -> bool:
    import importlib.util

    try:
        return importlib.util.find_spec(name) is not None
    except ModuleNotFoundError:
        return False


def where(chapters: Iterable[Any]) -> str:
    """Which modules each chapter calls, each by its name inside the package
    (``lsc.bounds``, ``stats``) and linked to its page. (A chapter's claims are declared
    beside it, in ``<chapter>.claims.yaml``: the package page says so once.)"""
    rows = ["| chapter | modules it calls |", "|---|---|"]
    for ch in chapters:
        mods = ", ".join(
            f"{{mod}}`{m.removeprefix('rnnbook.')} <{m}>`"
            for m in chapter_modules(ch.source)
        )
        rows.append(f"| {{doc}}`/{ch.name}` | {mods or '—'} |")
    return "\n".join(rows) + "\n"


def modules(room: str | None) -> list[str]:
    """A room's modules (``None``: the common layer), in file order."""
    if room is None:
        return [f"rnnbook.{m}" for m in COMMON]
    return _room_modules(room)


_ABBREVIATIONS = {"al", "App", "Apps", "cf", "e.g", "Eq", "Eqs", "Fig", "Figs", "i.e"}
_ABBREVIATIONS |= {"i.i.d", "No", "resp", "Sec", "Secs", "vs"}
#: a first sentence longer than this is cut at its first colon or semicolon past ``_LEAD``
SUMMARY_CHARS, _LEAD = 200, 40


def _closed(text: str) -> bool:
    """No parenthesis, literal (````x````) or role (```x```) left open in ``text``."""
    ticks = text.count("``") % 2 == 0 and text.replace("``", "").count("`") % 2 == 0
    return text.count("(") == text.count(")") and ticks


def first_sentence(doc: str) -> str:
    """The first sentence of a docstring (reStructuredText, as autodoc reads it).

    A full stop ends the sentence when a capital follows it and the word before it is not an
    abbreviation ("Sec. II-A", "Eq. (1)"), outside parentheses and literals; where no sentence
    ends earlier, the first paragraph. One of over ``SUMMARY_CHARS`` characters ends at its
    first colon or semicolon (outside parentheses) past its lead: "what it is: the detail"."""
    para = " ".join(doc.split("\n\n")[0].split())
    head = para
    for m in re.finditer(r"[.?!]\)?(?= [A-Z])", para):
        word = re.search(r"([\w.]*)[.?!]\)?$", para[: m.end()]).group(1)
        if _closed(para[: m.end()]) and word not in _ABBREVIATIONS:
            head = para[: m.end()]
            break
    if len(head) > SUMMARY_CHARS:
        for m in re.finditer(r"[:;] ", head):
            if m.start() >= _LEAD and _closed(head[: m.start()]):
                return head[: m.start()] + "."
    head = head.rstrip().removesuffix(":")
    return head if not head or head.endswith((".", "?", ".)", "?)")) else head + "."


_ROLE = re.compile(r":(?:py:)?(\w+):`([^`]*)`")


def _resolves(module: str, name: str) -> bool:
    """Whether ``name`` (``f`` or ``Class.method``) is an attribute of ``module``."""
    try:
        obj = importlib.import_module(module)
        for part in name.split("."):
            obj = getattr(obj, part)
    except (ImportError, AttributeError):
        return False
    return True


def portable(text: str, module: str | None = None) -> str:
    """A sentence of ``module``'s docstring that reads the same on another page: a
    cross-reference relative to the module (``:func:`convergence```) is made absolute
    where the module has that name, else set as a literal; a full name
    (``:mod:`rnnbook.lsc.pretrain```) or a suffix (``:mod:`.linear_diagnostics```, which
    Sphinx looks up everywhere) is kept."""

    def fix(m: re.Match) -> str:
        role, shown = m.groups()
        title = re.sub(r" *<.*>$", "", shown)
        target = re.sub(r"^.*<(.*)>$", r"\1", shown).lstrip("~")
        if target.startswith(("rnnbook.", ".")):
            return m.group(0)
        if module and _resolves(module, target):
            tilde = "<" not in shown and title.startswith("~")
            short = target.rsplit(".", 1)[-1] if tilde else title
            return f":{role}:`{short} <{module}.{target}>`"
        return f"``{title.lstrip('~')}``"

    return _ROLE.sub(fix, text)


def summary(module: str) -> str:
    """A module's one line: :func:`first_sentence` of its docstring, :func:`portable`."""
    doc = inspect.getdoc(importlib.import_module(module)) or ""
    return portable(first_sentence(doc), module)


def _page(module: str | None) -> str:
    """A reference page's name (``None``: the common layer's page)."""
    return f"{FOLDER}/{module or COMMON_PAGE}"


def _callers(chapters: Iterable[Any]) -> dict[str, list[str]]:
    """For each module, the chapters that import it (in the table of contents' order)."""
    out: dict[str, list[str]] = {}
    for ch in chapters:
        for m in chapter_modules(ch.source):
            out.setdefault(m, []).append(ch.name)
    return out


def _called_by(module: str, callers: dict[str, list[str]]) -> str:
    names = callers.get(module, [])
    if not names:
        return ""
    return " Called by " + ", ".join(f":doc:`/{n}`" for n in names) + "."


def _aliases(module: str) -> list[str]:
    """reST entries for the names :data:`ALIASES` says ``module`` re-exports."""
    out = []
    for name, (kind, home, methods) in ALIASES.items():
        where_, short = name.rsplit(".", 1)
        if where_ != module:
            continue
        ref = "func" if kind == "function" else "class"
        out += [f".. py:currentmodule:: {where_}", "", f".. py:{kind}:: {short}", ""]
        out += [f"   Imported here: :{ref}:`{short} <{home}>`.", ""]
        for meth in methods:
            out += [
                f"   .. py:method:: {meth}",
                "",
                f"      See :meth:`{home}.{meth}`.",
                "",
            ]
    return out


def room_page(room: str | None, callers: dict[str, list[str]]) -> str:
    """A room's page: its docstring (the paper), then a line per module of it."""
    title = f"rnnbook.{room}" if room else "The common layer"
    lines = [f"# {title}", "", "```{eval-rst}"]
    if room:
        lines += [f".. automodule:: rnnbook.{room}", ""]
    else:
        lines += [
            "Data loaders, figure style, statistics, the build folder, the device and the",
            "member seeds: what the rooms share (a room never imports another room).",
            "",
        ]
    for m in modules(room):
        short = m.rsplit(".", 1)[1]
        lines.append(f"- :mod:`{short} <{m}>`: {summary(m)}{_called_by(m, callers)}")
    lines += [""] + (_aliases(f"rnnbook.{room}") if room else []) + ["```", ""]
    return "\n".join(lines)


def module_page(module: str, callers: dict[str, list[str]]) -> str:
    """A module's page: autodoc of the module and its members, and who calls it."""
    room = module.split(".")[1] if module.count(".") > 1 else None
    home = (
        f":doc:`rnnbook.{room} <{'/' + _page('rnnbook.' + room)}>`"
        if room
        else (f":doc:`the common layer </{_page(None)}>`")
    )
    lines = [f"# {module}", "", "```{eval-rst}"]
    lines += [f"In {home}.{_called_by(module, callers)}", ""]
    lines += [f".. automodule:: {module}", "   :members:", ""]
    lines += _aliases(module) + ["```", ""]
    return "\n".join(lines)


def api() -> str:
    """The package page's index: each room, then links to its modules' pages."""
    out = []
    for room in (*ROOMS, None):
        mods = modules(room)
        if not mods:
            continue
        name = f"rnnbook.{room}" if room else "The common layer"
        links = " · ".join(f"{{mod}}`{m.rsplit('.', 1)[1]} <{m}>`" for m in mods)
        out += [
            f"**{{doc}}`{name} </{_page(f'rnnbook.{room}' if room else None)}>`**: {links}",
            "",
        ]
    return "\n".join(out)


def toc_sections() -> list[dict]:
    """The reference pages as ``_toc.yml`` sections: a room's page, its modules below it,
    each by its short name in the menu (the page's title is its full name)."""
    out = []
    for room in (*ROOMS, None):
        mods = modules(room)
        if mods:
            page = _page(f"rnnbook.{room}" if room else None)
            listed = [{"file": _page(m), "title": m.rsplit(".", 1)[1]} for m in mods]
            out.append({"file": page, "sections": listed})
    return out


def _with_sections(node: Any, sections: list[dict]) -> bool:
    """Put ``sections`` under the package page's entry of a ``_toc.yml`` tree (in place)."""
    if isinstance(node, dict):
        if node.get("file") == PAGE:
            node["sections"] = sections
            return True
        return any(_with_sections(v, sections) for v in node.values())
    if isinstance(node, list):
        return any(_with_sections(v, sections) for v in node)
    return False


def write_pages(stage: Path, chapters: Iterable[Any]) -> list[Path]:
    """Write the reference pages into ``stage`` and list them in its ``_toc.yml``.

    Nothing is listed (and no page written) when the table of contents has no package page."""
    toc_path = stage / "_toc.yml"
    toc = yaml.safe_load(toc_path.read_text())
    sections = toc_sections()
    if not _with_sections(toc, sections):
        return []
    callers = _callers(chapters)
    written = []
    for room in (*ROOMS, None):
        mods = modules(room)
        if not mods:
            continue
        texts = {f"rnnbook.{room}" if room else None: room_page(room, callers)}
        texts.update({m: module_page(m, callers) for m in mods})
        for name, text in texts.items():
            path = stage / f"{_page(name)}.md"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
            written.append(path)
    toc_path.write_text(yaml.safe_dump(toc, sort_keys=False))
    return written
