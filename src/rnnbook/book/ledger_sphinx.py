"""Prose from the ledger: the book's pages quote the build's ``claims.json``, never retype it.

* ``{claim}`lsc.lemma2.paths-eq1``` renders the claim's verdict as a badge linked to its box;
  ``{claim}`<id>:<field>``` quotes one field of its record: ``measured``, ``paper_value``,
  ``seeds``, ``statement``, ``source``, ``tolerance``, ``note``, ``profile``, ``trained``
  (passed or not), ``link`` (the source, linked to the box) or ``values.<name>`` (a measured
  value the chapter passed, e.g. a step count). ``{claim}`<id>=<verdict>``` renders the badge
  of a verdict that hand-written text is built around: a ``book`` ledger that gives another
  verdict fails the build, so the sentence is rewritten when its verdict changes.
* ````{findings}```` renders a findings table from the ledger: of the chapter it stands in (no
  argument), of a chapter (``notebooks/lsc/lemma2_paths``), of a paper (``lsc``), or the headline
  findings of every paper (``headline``).
* Hand-written text that quotes a verdict, a seed count or a number in the same sentence as a
  claim id, which the ledger does not hold, is a warning, so ``-W`` fails the build.
* ````{seed-check}```` renders, from the committed ``seeds`` records (:mod:`.records`), the
  verdict of every training claim at each master seed and the claims that moved.
* Hand-written text that gives a claim's verdict *at a seed* ("inconclusive at seed 4") is
  checked against those records: a verdict they do not hold, or a seed without a record, is a
  warning.
* ``claims.json`` is copied into the HTML output, so a reader can download the ledger.

The ledger is ``claims.json`` next to the Sphinx source (``_build/claims.json`` beside
``_build/stage``), or the file named by the ``rnnbook_claims_json`` setting.
"""

from __future__ import annotations

import html
import json
import re
import shutil
from pathlib import Path
from typing import Any

from docutils import nodes
from docutils.parsers.rst import directives
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective, SphinxRole

from . import arithmetic, pages, reading
from .claims import PAPERS
from .ledger import text_parts, value_text

logger = logging.getLogger(__name__)
STATIC = Path(__file__).parent / "static"
TEXT_FIELDS = (
    "measured",
    "paper_value",
    "statement",
    "source",
    "tolerance",
    "note",
    "profile",
    "rule",
    "seeds",
)
#: the fields whose texts write their formulas as ``$...$`` (typeset by MathJax)
MATH_FIELDS = ("statement", "paper_value", "tolerance")
_VERDICT_WORD = re.compile(
    r"(?<![\w-])(not[- ]reproduced|partly[- ]reproduced|not[- ]attempted|reproduced"
    r"|inconclusive)(?![\w-])",
    re.I,
)
_SEEDS = re.compile(
    r"\b(\d+|one|two|three|four|five|six|eight|ten) (?:independent )?seeds?\b"
)
_WORDS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6}
_WORDS.update({"eight": 8, "ten": 10})
_NUMBER = re.compile(r"(?<![\w.])-?\d+\.\d+%?|(?<![\w.])\d+%")
_ID = re.compile(r"[a-z][a-z0-9_-]*(?:\.[a-z0-9][a-z0-9_-]*)+")
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z(`$*\\])")


_AT_SEEDS = re.compile(
    r"(not[- ]reproduced|partly[- ]reproduced|reproduced|inconclusive|not[- ]attempted)"
    r" at (?:master )?seeds? (\d+(?:(?:, | and |, and )\d+)*)",
    re.I,
)


def book_root(app) -> Path:
    """The repository the book is built from (the stage is ``<root>/_build/stage``)."""
    if app.config.rnnbook_root:
        return Path(app.config.rnnbook_root)
    return Path(app.srcdir).parent.parent


def seed_contradictions(
    text: str, by_seed: dict[int, dict[str, str]], known: set[str]
) -> list[str]:
    """Sentences that give a claim's verdict at a master seed which the seed records
    (``by_seed``: seed -> claim id -> verdict) do not hold, or for a seed without a record."""
    problems = []
    for sentence in _SENTENCE.split(" ".join(text.split())):
        ids = [i for i in dict.fromkeys(_ID.findall(sentence)) if i in known]
        if len(ids) != 1:
            continue
        for verdict, seeds in _AT_SEEDS.findall(sentence):
            verdict = verdict.lower().replace(" ", "-")
            for seed in map(int, re.findall(r"\d+", seeds)):
                have = by_seed.get(seed, {}).get(ids[0])
                if have is None:
                    problems.append(
                        f"the text gives {ids[0]} at seed {seed}, which no seed record "
                        f"holds: {sentence!r}"
                    )
                elif have != verdict:
                    problems.append(
                        f"the text gives {ids[0]} as {verdict} at seed {seed}, its seed "
                        f"record as {have}: {sentence!r}"
                    )
    return problems


def seed_check_html(
    by_seed: dict[int, dict[str, str]],
    docname: str,
    claims,
    superseded: dict[str, list[dict]] | None = None,
) -> str:
    """The verdict of each training claim at each recorded master seed, and what moved;
    beside a verdict, the superseded draws of that seed (``superseded``:
    :func:`rnnbook.book.records.superseded`), labelled and not counted."""
    seeds = sorted(by_seed)
    if not seeds:
        return "<p>No seed records are committed yet.</p>"
    ids = sorted({i for v in by_seed.values() for i in v})
    head = "".join(f"<th>seed {s}</th>" for s in seeds)
    rows, moved, flipped = [], [], []
    for cid in ids:
        got = [by_seed[s].get(cid) for s in seeds]
        cells = "".join(
            f"<td>{pages.badge_html(v) if v else '&ndash;'}"
            f"{superseded_cell((superseded or {}).get(cid, []), s)}</td>"
            for s, v in zip(seeds, got)
        )
        name = html.escape(cid)
        if claims and cid in claims:
            name = f'<a href="{pages.box_href(claims[cid], docname)}">{name}</a>'
        rows.append(f"<tr><td>{name}</td>{cells}</tr>")
        decided = {v for v in got if v in ("reproduced", "not-reproduced")}
        if len(set(v for v in got if v)) > 1:
            moved.append(cid)
        if len(decided) > 1:
            flipped.append(cid)
    table = (
        '<table class="seed-check"><thead><tr><th>claim</th>'
        f"{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>"
    )
    words = ", ".join(f"{s}" for s in seeds)
    if superseded:
        from .records import DRAW_RULE

        table += f'<p class="draw-rule">{html.escape(DRAW_RULE)}</p>'
    summary = (
        f"<p>Master seeds {words}: {len(ids)} training claims; {len(moved)} moved between "
        f"seeds; {len(flipped)} turned from one decided verdict into the opposite one"
        + (": " + ", ".join(html.escape(i) for i in flipped) if flipped else "")
        + ".</p>"
    )
    return summary + table


class ConfirmatoryRecordsDirective(SphinxDirective):
    """```{confirmatory-records}```: where every confirmatory record stands
    (:mod:`rnnbook.book.standing`), each claim's verdict beside the book run's."""

    def run(self):
        from . import standing

        app = self.env.app
        self.env.note_dependency(str(claims_path(app)))  # rewritten at every build
        rows = standing.standing(book_root(app), _loaded(app))
        doc = self.env.docname
        text = standing.html_table(
            rows, load_claims(app), lambda c: pages.box_href(c, doc)
        )
        return [nodes.raw("", text, format="html")]


def superseded_cell(draws: list[dict], seed: int) -> str:
    """A seed-check cell's superseded draws of that master seed, each labelled."""
    return "".join(
        '<br><span class="superseded-draw"><em>superseded draw of '
        f"{html.escape(str(d['record'].get('date')))}:</em> "
        f"{pages.badge_html(d['verdict'])}</span>"
        for d in draws
        if d["record"].get("master_seed") == seed
    )


def superseded_html(draws: list[dict]) -> str:
    """A claim box's superseded draws (every draw is kept): each with its seed, date,
    verdict and why another draw counts (:data:`rnnbook.book.records.DRAW_RULE`)."""
    from .records import DRAW_RULE

    items = "".join(
        f"<li>master seed {html.escape(str(d['record'].get('master_seed')))}, drawn "
        f"{html.escape(str(d['record'].get('date')))}: {pages.badge_html(d['verdict'])} "
        '<strong class="record-stale">superseded</strong> by the draw '
        f"{html.escape(str(d['record']['superseded'].get('by')))} of "
        f"{html.escape(str(d['record']['superseded'].get('on')))}: "
        f"{html.escape(str(d['record']['superseded'].get('why')))}</li>"
        for d in draws
    )
    return (
        '<div class="claim-records"><p><strong>Superseded draws</strong>: shown, not '
        f"counted. {html.escape(DRAW_RULE)}</p><ul>{items}</ul></div>"
    )


class SeedCheckDirective(SphinxDirective):
    """```{seed-check}```: the training claims' verdicts at each recorded master seed."""

    def run(self):

        by_seed = _seed_records(self.env.app)
        claims = load_claims(self.env.app)
        text = seed_check_html(
            by_seed, self.env.docname, claims, _superseded(self.env.app)
        )
        return [
            nodes.raw("", f'<div class="seed-check">\n{text}\n</div>', format="html")
        ]


def claims_path(app) -> Path:
    if app.config.rnnbook_claims_json:
        return Path(app.config.rnnbook_claims_json)
    return Path(app.srcdir).parent / "claims.json"


def load_claims(app) -> dict[str, dict] | None:
    """The build's ledger by claim id (``None`` when the build has none)."""
    path = claims_path(app)
    try:
        stamp = path.stat().st_mtime_ns
    except OSError:
        return None
    cached = getattr(app, "_rnnbook_claims", None)
    if cached is None or cached[0] != (path, stamp):
        records = json.loads(path.read_text())
        app._rnnbook_claims = ((path, stamp), {c["id"]: c for c in records})
    return app._rnnbook_claims[1]


def _text(x: Any) -> str:
    """A quoted value written for reading (dicts as ``key: value``, numbers rounded)."""
    return value_text(x)


def quote(c: dict, field: str) -> str:
    """One field of a claim record as text (``values.<name>`` reads a measured value)."""
    if field.startswith("values."):
        values = c.get("values") or {}
        name = field.removeprefix("values.")
        if name not in values:
            raise KeyError(
                f"claim {c['id']} recorded no value {name!r}; it has: {sorted(values)}"
            )
        return _text(values[name])
    if field == "trained":
        t = c.get("trained")
        if not t:
            raise KeyError(f"claim {c['id']} has no trained-or-not gate")
        return ("passed" if t["passed"] else "failed") + f" (value {_text(t['value'])})"
    if field not in TEXT_FIELDS:
        raise KeyError(
            f"unknown field {field!r}; use one of {', '.join(TEXT_FIELDS)}, "
            "trained, link, verdict, effect, effect.<k> or values.<name>"
        )
    return _text(c.get(field))


CONFIRMATORY_QUOTE = " (confirmatory)"
INTERVAL_NAMES = {"mean": "Student t", "wilson": "Wilson", "exact": "exact binomial"}


def effect_quote(cid: str, effects: list[dict], field: str) -> str:
    """``effect`` (a claim's only effect) or ``effect.<k>`` (its k-th, from 1) as prose
    quotes it: ``-0.128 [-0.185, -0.074] (95% bootstrap interval, n = 100)``, so that a
    sentence about a record quotes the record instead of copying its numbers."""
    _, _, k = field.partition(".")
    if not effects:
        raise KeyError(f"claim {cid} has no effects to quote")
    if not k and len(effects) > 1:
        raise KeyError(
            f"claim {cid} has {len(effects)} effects: quote one as effect.1 to "
            f"effect.{len(effects)}"
        )
    if k and not (k.isdigit() and 1 <= int(k) <= len(effects)):
        raise KeyError(
            f"{field!r}: claim {cid} has effects effect.1 to effect.{len(effects)}"
        )
    e = effects[int(k) - 1 if k else 0]
    shown = reading.interval(e)
    if shown is None:
        return f"no value ({e.get('name', 'the effect')} has no data)"
    kind = str(e.get("interval", ""))
    return f"{shown} (95% {INTERVAL_NAMES.get(kind, kind)} interval, n = {e.get('n')})"


def expected_confirmatory_problem(c: dict, expect: str, counting: dict) -> str | None:
    """``{claim}`<id>=<verdict> (confirmatory)```: a sentence written around what a
    claim's confirmatory record found names that record's verdict; the build fails when the
    verdict that counts (:func:`rnnbook.book.records.counting_verdict`) is another one, or
    is not a confirmatory record's (not decided yet, stale, or under an earlier rule). A
    record does not depend on the profile: it is held at every profile."""
    from .claims import VERDICTS

    if expect not in VERDICTS:
        return (
            f"{{claim}}: {expect!r} is not a verdict; use one of {', '.join(VERDICTS)}"
        )
    if counting.get("kind") != "confirmatory":
        return (
            f"{{claim}}: the text around {c['id']} was written for its confirmatory "
            f"record's {expect}, but no decided confirmatory record counts for it "
            f"({counting.get('why')}): rewrite the sentence"
        )
    if counting.get("verdict") != expect:
        return (
            f"{{claim}}: the text around {c['id']} was written for its confirmatory "
            f"record's {expect}, but the record gives {counting.get('verdict')}: "
            "rewrite the sentence"
        )
    return None


def bare_badge_problem(c: dict, counting: dict) -> str | None:
    """``{claim}`<id>```, a bare badge, shows the book run's verdict. Once a decided
    confirmatory record counts another verdict for the claim, that badge would show a
    verdict the scorecard and the box do not: at the ``book`` profile the build fails and
    asks the text to say which of the two it means."""
    if c.get("profile") != "book" or counting.get("kind") != "confirmatory":
        return None
    if counting.get("verdict") == c.get("verdict"):
        return None
    cid, book, record = c["id"], c.get("verdict"), counting.get("verdict")
    return (
        f"{{claim}}: a bare badge of {cid} shows the book run's {book}, but its "
        f"confirmatory record counts {record}: write {cid}={book} for the book run's "
        f"verdict or {cid}={record}{CONFIRMATORY_QUOTE} for the record's"
    )


def expected_verdict_problem(c: dict, expect: str) -> str | None:
    """``{claim}`<id>=<verdict>```: a sentence written around a verdict names the verdict it
    was written for; at the ``book`` profile a ledger that gives another one fails the build
    (a smaller profile decides fewer claims and is not held to it)."""
    from .claims import VERDICTS

    if expect not in VERDICTS:
        return (
            f"{{claim}}: {expect!r} is not a verdict; use one of {', '.join(VERDICTS)}"
        )
    if c.get("profile") == "book" and c.get("verdict") != expect:
        return (
            f"{{claim}}: the text around {c['id']} was written for {expect}, but the "
            f"ledger (book profile) gives {c.get('verdict')}: rewrite the sentence"
        )
    return None


class ClaimRole(SphinxRole):
    """``{claim}`<id>``` (verdict badge linked to the box), ``{claim}`<id>=<verdict>```
    (the same, held to the book run's verdict), ``{claim}`<id>=<verdict> (confirmatory)```
    (the badge of the claim's decided confirmatory record, held to its verdict) or
    ``{claim}`<id>:<field>```; ``{claim}`<id>=<verdict> (confirmatory):effect``` quotes
    the record's effect (:func:`effect_quote`), held to the record's verdict."""

    def run(self):
        cid, _, field = self.text.strip().partition(":")
        cid, _, expect = cid.partition("=")
        claims = load_claims(self.env.app)
        self.env.note_dependency(str(claims_path(self.env.app)))
        if claims is None or cid not in claims:
            why = (
                f"no ledger at {claims_path(self.env.app)}"
                if claims is None
                else f"the ledger has no claim {cid!r}"
            )
            return [], [
                self.inliner.reporter.error(f"{{claim}}: {why}", line=self.lineno)
            ]
        c = claims[cid]
        confirmed = expect.endswith(CONFIRMATORY_QUOTE)
        if confirmed:
            from . import records

            expect = expect.removesuffix(CONFIRMATORY_QUOTE)
            counting = records.counting_verdict(
                book_root(self.env.app), cid, c, conf=_confirmatory(self.env.app)
            )
            problem = expected_confirmatory_problem(c, expect, counting)
            c = {**c, "verdict": counting["verdict"]}
        elif expect:
            problem = expected_verdict_problem(c, expect)
        elif field in ("", "verdict") and c.get("trained"):
            from . import records

            counting = records.counting_verdict(
                book_root(self.env.app), cid, c, conf=_confirmatory(self.env.app)
            )
            problem = bare_badge_problem(c, counting)
        else:
            problem = None
        if problem:
            return [], [self.inliner.reporter.error(problem, line=self.lineno)]
        href = pages.box_href(c, self.env.docname) if c.get("chapter") else None
        if field in ("", "verdict", "link"):
            if field == "link":
                inner = nodes.inline(c["source"], c["source"])
            else:
                color = pages.BADGE[c["verdict"]]
                text = c["verdict"] + (CONFIRMATORY_QUOTE if confirmed else "")
                inner = nodes.inline(
                    text,
                    text,
                    classes=["sd-sphinx-override", "sd-badge", f"sd-bg-{color}"]
                    + [f"sd-bg-text-{color}"],
                )
            node = nodes.reference("", "", inner, refuri=href) if href else inner
            return [nodes.inline("", "", node, classes=["claim-quote"])], []
        effect = field == "effect" or field.startswith("effect.")
        try:
            if confirmed and not effect:
                raise KeyError(  # the other fields are the book run's, not the record's
                    f"{cid}: a confirmatory record's badge quotes effect or "
                    f"effect.<k>, not {field!r} (the book run's)"
                )
            if effect:
                # a confirmatory badge quotes its record's effects, else the book run's
                found = counting.get("effects") if confirmed else c.get("effects")
                text = effect_quote(cid, found or [], field)
            else:
                text = quote(c, field)
        except KeyError as e:
            return [], [self.inliner.reporter.error(f"{{claim}}: {e.args[0]}")]
        if field in MATH_FIELDS:  # their $...$ spans typeset as math
            parts = [
                nodes.math(t, t) if is_math else nodes.Text(t)
                for t, is_math in text_parts(c.get(field))
            ]
            return [nodes.inline("", "", *parts, classes=["claim-quote"])], []
        return [nodes.inline(text, text, classes=["claim-quote"])], []


def _paper_title_html(paper: str) -> str:
    return re.sub(r"\*(.+?)\*", r"<em>\1</em>", html.escape(pages.PAPER_TITLES[paper]))


def bottom_line_html(
    claims: list[dict], docname: str, seeds=None, scale_records=None
) -> str:
    """A paper's bottom line (:func:`rnnbook.book.reading.bottom_line`) as a paragraph."""
    text = reading.bottom_line(claims, seeds, scale_records)
    return f'<p class="bottom-line">{reading.prose_html(text, docname)}</p>'


def findings_html(
    claims: list[dict],
    what: str,
    docname: str,
    seeds: dict | None = None,
    scale_records: list | None = None,
) -> str:
    """The findings table of a chapter, a paper (after its bottom line) or, for
    ``headline``, of every paper (each paper's bottom line and its claims that do not
    hold). ``seeds``: the verdicts of the seed records, per master seed."""
    cols = ("finding", "versus", "verdict")
    if what == docname and all(c.get("chapter") == docname for c in claims):
        return pages.verdict_line(claims, docname)  # a chapter's: one line (issue 51)
    if what.split()[0] == claims[0]["id"]:  # the claims named, in the order named
        return pages.claims_table(claims, docname, cols)
    if what in PAPERS:
        return bottom_line_html(
            claims, docname, seeds, scale_records
        ) + pages.claims_table(pages.in_paper_order(claims), docname, cols)
    if what != "headline":
        return pages.claims_table(pages.in_paper_order(claims), docname, cols)
    out = []
    for p in PAPERS:
        mine = [c for c in claims if c["paper"] == p]
        if not mine:
            continue
        bad = [c for c in mine if c["verdict"] == "not-reproduced"]
        out.append(
            f'<p class="findings-paper"><strong>{_paper_title_html(p)}</strong>: '
            f"{len(mine)} claims checked: {pages.counts_line(mine)}.</p>"
            + bottom_line_html(mine, docname, seeds, scale_records)
            + ("<p>Not reproduced:</p>" if bad else "")
        )
        if bad:
            out.append(
                pages.claims_table(
                    pages.in_paper_order(bad),
                    docname,
                    ("finding", "verdict"),
                    kind="headline",
                )
            )
    return "\n".join(out)


class FindingsDirective(SphinxDirective):
    """```{findings}``` (this chapter), ```{findings} lsc``` (a paper), ```{findings} headline```
    (every paper's), or ```{findings} <id> <id> ...``` (the claims named)."""

    optional_arguments = 1
    final_argument_whitespace = True
    option_spec = {"class": directives.class_option}

    def run(self):
        claims = load_claims(self.env.app)
        self.env.note_dependency(str(claims_path(self.env.app)))
        what = self.arguments[0] if self.arguments else self.env.docname
        if claims is None:
            raise self.error(f"findings: no ledger at {claims_path(self.env.app)}")
        if what == "headline":
            mine = list(claims.values())
        elif what in PAPERS:
            mine = [c for c in claims.values() if c["paper"] == what]
        elif what in claims or what.split()[0] in claims:
            unknown = [i for i in what.split() if i not in claims]
            if unknown:
                raise self.error(f"findings: the ledger has no claim {unknown}")
            mine = [claims[i] for i in what.split()]
        else:
            mine = [c for c in claims.values() if c.get("chapter") == what]
        if not mine:
            raise self.error(f"findings: the ledger records no claim of {what!r}")
        try:  # the verdict that counts, exploratory or confirmatory
            mine = records_counting(self.env.app, mine)
        except (OSError, ValueError) as e:
            raise self.error(f"findings: {e}") from None

        try:
            seeds = _seed_records(self.env.app)
            scale = [r for r in _loaded(self.env.app) if not r["stale"]]
        except (OSError, ValueError, KeyError):
            seeds, scale = None, None
        text = findings_html(mine, what, self.env.docname, seeds, scale)
        return [nodes.raw("", f'<div class="findings">\n{text}\n</div>', format="html")]


def _prose(node: nodes.Node) -> str:
    """The hand-written text of a paragraph: quotes from the ledger and raw HTML left out."""
    out = []
    for child in node.children:
        if isinstance(child, nodes.Text):
            out.append(child.astext())
        elif isinstance(child, nodes.raw) or "claim-quote" in child.get("classes", []):
            out.append(" ")
        else:
            out.append(_prose(child))
    return "".join(out)


def _generated(node: nodes.Node) -> bool:
    """Inside a notebook's output, a claim box or the API's docstrings: not hand-written
    prose about this build."""
    while node is not None:
        if isinstance(node, nodes.Element):
            classes = node.get("classes", [])
            if "claim-box" in classes or any("output" in c for c in classes):
                return True
            if "output" in str(node.get("nb_element", "")):
                return True
            if node.tagname in ("desc", "literal_block"):  # API docstrings, code
                return True
        node = node.parent
    return False


def _holds(number: str, record: str) -> bool:
    """Whether a number of the record, rounded as the text rounds it, is ``number`` (a
    percentage may also stand for a fraction of the record: 25% for 0.25)."""
    text = number.rstrip("%")
    decimals = len(text.partition(".")[2])
    value = float(text)
    for raw in re.findall(r"-?\d+(?:\.\d+)?(?:e[-+]?\d+)?", record, re.I):
        v = float(raw)
        candidates = (v, 100 * v) if number.endswith("%") else (v,)
        if any(round(c, decimals) == value for c in candidates):
            return True
    return False


def contradictions(text: str, claims: dict[str, dict]) -> list[str]:
    """Sentences of ``text`` that quote a verdict, a seed count or a number (with a decimal
    point or a percent sign) for a claim id named in the same sentence, which the ledger does
    not hold."""
    problems = []
    for sentence in _SENTENCE.split(" ".join(text.split())):
        ids = [i for i in dict.fromkeys(_ID.findall(sentence)) if i in claims]
        if not ids:
            continue
        words = {w.lower().replace(" ", "-") for w in _VERDICT_WORD.findall(sentence)}
        seeds = {int(n) if n.isdigit() else _WORDS[n] for n in _SEEDS.findall(sentence)}
        for cid in ids:
            c = claims[cid]
            if words and c["verdict"] not in words:
                problems.append(
                    f"the text gives {cid} as {' / '.join(sorted(words))}, the ledger "
                    f"({c['profile']} profile) as {c['verdict']}: {sentence!r}"
                )
            record = json.dumps(c, ensure_ascii=False)
            for number in _NUMBER.findall(sentence) if len(ids) == 1 else []:
                if not _holds(number, record):
                    problems.append(
                        f"the text quotes {number} for {cid}, which its ledger record "
                        f"({c['profile']} profile) does not hold: {sentence!r}"
                    )
            if seeds and c.get("seeds") and c["seeds"] not in seeds:
                problems.append(
                    f"the text gives {cid} {' / '.join(map(str, sorted(seeds)))} seed(s), "
                    f"the ledger {c['seeds']}: {sentence!r}"
                )
    return problems


_ANCHOR = re.compile(r'<span id="([^"]+)" class="claim-anchor">')


def _loaded(app) -> list[dict]:
    """Every committed record, read once per build (:func:`rnnbook.book.records.load`)."""
    cached = getattr(app, "_rnnbook_records", None)
    if cached is None:
        from . import records

        cached = app._rnnbook_records = records.load(book_root(app))
    return cached


def _at_scale(app) -> dict[str, list[dict]]:
    cached = getattr(app, "_rnnbook_at_scale", None)
    if cached is None:
        from . import records

        cached = app._rnnbook_at_scale = records.at_scale(book_root(app), _loaded(app))
    return cached


def record_html(
    rec: dict, docname: str, reads: list[str] | None = None, preset: dict | None = None
) -> str:
    """One record of a claim, in words: scale, sizes, device, date, verdict, effects, and a
    link to its provenance (marked stale, and not counted, when its code changed).
    ``reads``: the parameters the claim reads; ``preset``: the chapter's presets at the
    record's profile (:mod:`.record_line`)."""
    from .record_line import gate_failed_words, sizes as line_sizes

    prov = rec["record"]
    up = "../" * docname.count("/")
    href = html.escape(f"{up}{prov['path']}/provenance.json")
    params = {k: v for k, v in prov.get("parameters", {}).items() if k != "device"}
    full = reading.parameters_text(params)
    # the sizes of the part of the chapter the claim reads in the line; every parameter,
    # for a slice that sets the chapter's other parts small, folded below it
    sizes, whole = line_sizes(params, reads, preset)
    sizes = sizes if len(params) > 5 or reads is not None else full
    more = (
        '<details class="record-sizes"><summary>every parameter of its run</summary>'
        f"{html.escape(full)}</details>"
        if sizes != full and not whole
        else ""
    )
    gate = rec.get("trained") or {}
    effects = "; ".join(
        f"{reading.prose_html(str(e['name']))}: {reading.measured(e['estimate'])} "
        f"[{reading.measured(e['lo'])}, {reading.measured(e['hi'])}]"
        + (
            ", not judged"
            if gate.get("passed") is False
            else f", {html.escape(str(e['decision']))}"
        )
        + _clears_html(e)
        for e in rec.get("effects") or []
        if all(isinstance(e.get(k), (int, float)) for k in ("estimate", "lo", "hi"))
    )
    stale = (
        ' <strong class="record-stale">stale: its code changed since it ran; shown, '
        "not counted</strong>"
        if prov.get("stale")
        else ""
    )
    if gate.get("passed") is False:
        stale += f" ({html.escape(gate_failed_words(gate))})"
    if rec.get("rule_changed"):
        stale += (
            ' <strong class="record-stale">its rule changed since it ran and it kept no '
            "data to decide again: shown, not counted until it is run again</strong>"
        )
    elif rec.get("redecided"):
        stale += (
            " (decided again under the rule declared now, from the per-seed data it kept; "
            f"it ran under an earlier rule, which gave {rec['redecided']['verdict']})"
        )
    design = prov.get("design") or "exploratory"  # the records before shards were
    return (
        f"<li>{design} {html.escape(prov['kind'])} record of {html.escape(prov['date'])} on "
        f"{html.escape(prov.get('device') or 'cpu')} ({html.escape(sizes)}; "
        f"{prov.get('wall_seconds', 0) / 60:.0f} min): "
        f"{pages.badge_html(rec['verdict'])}{stale}"
        + (f"; {effects}" if effects else "")
        + f' (<a href="{href}">provenance</a>)'
        + "".join(figure_html(f, prov, up) for f in prov.get("figures") or [])
        + more
        + where_html(prov)
        + "</li>"
    )


def _clears_html(e: dict) -> str:
    """A record's effect: the largest line its interval clears against the claim's line
    (how much rides on the line, issue 49)."""
    from .lines import cleared

    x = reading.num(cleared(e))
    if x is None or not e.get("in_setting", True) or "smallest" not in e:
        return ""
    d = e.get("direction")
    line = reading.num(e.get("smallest")) or "—"
    if d == "within":
        got, line = f"±{x.lstrip('-')}", f"±{line.lstrip('-')}"
    else:
        got = f"{'at least' if d == 'above' else 'at most'} {x}"
    whose = "the book's line" if e.get("line_source") == "book" else "the line"
    return html.escape(f" (clears {got}; {whose}: {line})")


def where_html(prov: dict) -> str:
    """Where a record ran, folded: the processor and the arithmetic
    (:mod:`~rnnbook.book.arithmetic`), or, for a record from before they were kept, that
    another processor may give other numbers."""
    gpu = (prov.get("device") or "cpu").lower() not in ("cpu", "")
    if prov.get("arithmetic"):
        text = (
            f"on {prov.get('cpu') or 'an unnamed processor'}, with "
            f"{arithmetic.in_words(prov['arithmetic'])}: on any Intel processor with AVX2 "
            "and the same thread count its CPU work should give the same numbers, as MKL "
            "documents; this was checked on one machine only, run as a processor "
            "without AVX-512"
        )
        if gpu:
            text += (
                f"; its GPU work ran on {prov['device']}, whose own kernels are not "
                "fixed: another GPU may round differently"
            )
    else:
        text = (
            "on a processor it did not name, with that processor's own code paths: "
            "another processor may round differently, and then its trained networks, its "
            "numbers and even its verdict may differ"
        )
    return (
        '<details class="record-where"><summary>where it ran</summary>'
        f"{html.escape(text)}</details>"
    )


def figure_html(f: dict, prov: dict, up: str) -> str:
    """A link to one figure of a record, drawn by the record's own run (SVG, opened whole:
    a box keeps its height)."""
    src = html.escape(f"{up}{prov['path']}/{f['file']}")
    return (
        f'; <a class="record-figure" href="{src}">Figure {int(f["number"])} of the '
        f"chapter, drawn by this record's run</a>"
    )


def _declared(app) -> dict[str, list[dict]]:
    cached = getattr(app, "_rnnbook_declared", None)
    if cached is None:
        from . import records

        cached = app._rnnbook_declared = records.declared(book_root(app))
    return cached


def declared_html(s: dict) -> str:
    """A record slice declared before it runs (its sizes and the power analysis behind
    them), for a box whose claim has no record of that slice yet."""
    sizes = reading.parameters_text(s.get("parameters", {}))
    return (
        f"<li>declared, not yet run: the {html.escape(s['scale'])} record "
        f"<code>{html.escape(s['chapter'])}:{html.escape(s['name'])}</code> (master seed "
        f"{s['seed']}; {html.escape(sizes)}; about {s.get('minutes', '?')} min on 2 "
        f"cores). {reading.prose_html(str(s.get('why', '')))}</li>"
    )


def add_records_to_boxes(app, doctree) -> None:
    """Each claim box shows, below the ``book`` verdict, every record of its claim, and
    the record slices declared for it that have not run yet."""
    from . import records

    by_claim, planned = _at_scale(app), _declared(app)
    older = _superseded(app)
    if not by_claim and not planned and not older and not _confirmatory(app):
        return
    docname = app.env.docname
    for box in doctree.findall(nodes.admonition):
        if "claim-box" not in box.get("classes", []):
            continue
        raw = "".join(n.astext() for n in box.findall(nodes.raw))
        m = _ANCHOR.search(raw)
        recs = by_claim.get(m.group(1), []) if m else []
        entries = _confirmatory(app).get(m.group(1), []) if m else []
        counted = records.counting_records(entries)[:1]
        for entry in entries:
            again = rerun_rows(app, f"{entry['chapter']}:{entry['name']}")
            html_ = confirmatory_html(entry, counts=entry in counted, reruns=again)
            box += nodes.raw("", html_, format="html")
        alone = no_replication_html(app, m.group(1), docname) if m else ""
        if alone:
            box += nodes.raw("", alone, format="html")
        if m and older.get(m.group(1)):
            box += nodes.raw("", superseded_html(older[m.group(1)]), format="html")
        done = {(r["record"]["chapter"], r["record"]["name"]) for r in recs}
        todo = [
            s
            for s in (planned.get(m.group(1), []) if m else [])
            if (s["chapter"], s["name"]) not in done
            and s.get("kind") != "confirmatory"  # shown above, with its shards
        ]
        if todo:
            items = "".join(declared_html(s) for s in todo)
            box += nodes.raw(
                "",
                '<div class="claim-records"><p><strong>Records declared</strong>: '
                f"sized by the power analysis before they run</p><ul>{items}</ul></div>",
                format="html",
            )
        if recs:
            reads, preset = _claim_sizes(app, m.group(1), recs)
            items = "".join(record_html(r, docname, reads, preset) for r in recs)
            text = (
                '<div class="claim-records"><p><strong>At scale</strong>: the claim\'s '
            )
            text += f"records (decided on their own data)</p><ul>{items}</ul>"
            text += scale_charts(load_claims(app).get(m.group(1)), recs) + "</div>"
            box += nodes.raw("", text, format="html")


#: a claim box's admonition class per verdict, as :meth:`rnnbook.book.ledger.Claim._repr_markdown_`
BOX_KINDS = {
    "reproduced": "tip",
    "partly-reproduced": "warning",
    "not-reproduced": "danger",
    "inconclusive": "note",
    "not-attempted": "note",
}


def lead_with_counting(app, doctree) -> None:
    """A claim box whose verdict its confirmatory record decides leads with that record:
    its title and colour give the verdict that counts (the scorecard's), and its *Found*
    line says what the record found, then the verdict of the book's own run, which the
    rest of the box (written when the chapter ran) describes. While its record has not
    decided, the box's verdict is the book's run, and says so (:func:`mark_pending`)."""
    from . import records

    claims, conf = load_claims(app) or {}, _confirmatory(app)
    for box in doctree.findall(nodes.admonition):
        if "claim-box" not in box.get("classes", []):
            continue
        raw = "".join(n.astext() for n in box.findall(nodes.raw))
        m = _ANCHOR.search(raw)
        if not m or m.group(1) not in claims or not conf.get(m.group(1)):
            continue
        c = claims[m.group(1)]
        counting = records.counting_verdict(book_root(app), c["id"], c, conf=conf)
        if counting["kind"] == "confirmatory":
            lead_box(box, c, counting)
        elif words := pending_words(conf[c["id"]]):
            mark_pending(box, words)


#: the fold rows of a box (:meth:`rnnbook.book.ledger.Claim._repr_markdown_`) that give
#: the book's own run, renamed in a box that leads with its confirmatory record
BOOK_RUN_ROWS = {
    "the finding in full": "the book run\u2019s finding in full",
    "each effect": "each effect in the book\u2019s run",
}


def lead_box(box: nodes.admonition, c: dict, counting: dict) -> None:
    """:func:`lead_with_counting` on one box (``counting``: the claim's
    :func:`rnnbook.book.records.counting_verdict`, a confirmatory one)."""
    from .ledger import short_finding

    verdict = counting["verdict"]
    title = next(iter(box.findall(nodes.title)), None)
    if title is not None:
        source = title.astext().rpartition(": ")[0] or c.get("source", "")
        title.children = []
        title += nodes.Text(f"{source}: {verdict}{CONFIRMATORY_QUOTE}")
    box["classes"] = [k for k in box["classes"] if k not in BOX_KINDS.values()]
    box["classes"].insert(0, BOX_KINDS[verdict])
    found = short_finding(pages.record_finding(c, counting))[0]
    found = found.replace(
        " (the rest in the fold below)", " (each effect on the scorecard)"
    )
    found += "" if found.endswith(".") else "."
    text = (
        f"<strong>Found by its confirmatory record</strong> ({counting.get('seeds')} "
        f"seeds). {reading.prose_html(found)} <em>The book\u2019s own run (exploratory, "
        f"described below): {html.escape(str(c.get('verdict')))}.</em>"
    )
    for strong in list(box.findall(nodes.strong)):  # the fold's rows are the book run's
        if strong.astext() in BOOK_RUN_ROWS:
            strong.children = [nodes.Text(BOOK_RUN_ROWS[strong.astext()])]
    for strong in box.findall(nodes.strong):
        if strong.astext() == "Found." and isinstance(strong.parent, nodes.paragraph):
            para = strong.parent
            keep = para.children[: para.index(strong)]  # the claim's anchor
            para.children = []
            para += [*keep, nodes.raw("", text, format="html")]
            return


#: the parts a box folds, by the words that open each, and what the fold's line calls them
FOLD_PARTS = (
    ("<strong>Confirmatory record</strong>", "confirmatory record"),
    ("<strong>No confirmatory record</strong>", "no confirmatory record"),
    ("<strong>At scale</strong>", "records at scale"),
    ("<strong>Records declared</strong>", "records declared"),
    ("<strong>Superseded draws</strong>", "superseded draws"),
)


def fold_part(text: str) -> tuple[str, list[str]]:
    """What one folded part of a box is and what it says: a confirmatory record what
    :func:`fold_says` put in its ``data-fold`` (its verdict, where it stands, or nothing
    when it does not count), any other part the verdicts of its badges."""
    kind = next((words for key, words in FOLD_PARTS if key in text), "records")
    said = re.search(r'^<div class="claim-confirmatory" data-fold="([^"]*)"', text)
    if said is not None:
        return kind, [html.unescape(said.group(1))] if said.group(1) else []
    return kind, re.findall(r'sd-badge[^"]*">([a-z-]+)<', text)


def fold_says(entry: dict, counts: bool) -> str:
    """What a confirmatory record adds to its box's fold line: its verdict when it counts,
    nothing when it does not (stale, under an earlier rule, or decided while another
    counts), else where it stands ("19 of 27 shards in", "void", "not yet started")."""
    st, claim, rec = entry["state"], entry["claim"], entry["record"] or {}
    if claim is not None:
        usable = counts and not rec.get("stale") and not claim.get("rule_changed")
        return str(claim["verdict"]) if usable else ""
    if st["void"]:
        return "void"
    if not st["done"]:
        return "not yet started"
    if st["complete"]:
        return "not yet decided"
    return f"{len(st['done'])} of {st['of']} shards in"


def fold_line(parts: list[str]) -> str:
    """The line of a box's fold: each kind of part with its own verdicts, in the box's
    order ("Confirmatory record: 19 of 27 shards in; superseded draws: inconclusive"), so
    that no verdict reads as another part's."""
    said: dict[str, list[str]] = {}
    for text in parts:
        kind, verdicts = fold_part(text)
        said.setdefault(kind, []).extend(verdicts)
    line = "; ".join(
        kind + (": " + ", ".join(dict.fromkeys(v)) if v else "")
        for kind, v in said.items()
    )
    return line[0].upper() + line[1:] if line else "Records"


def fold_records(app, doctree) -> None:
    """A box's records at scale, declared records and superseded draws fold under one
    line (issue 51: the box shows the claim, the paper against the measurement and the
    finding; what ran at scale is one click away), with each part's verdicts in it."""
    for box in doctree.findall(nodes.admonition):
        if "claim-box" not in box.get("classes", []):
            continue
        parts = [
            n
            for n in box.children
            if isinstance(n, nodes.raw)
            and n.astext().startswith(
                ('<div class="claim-records"', '<div class="claim-confirmatory"')
            )
        ]
        if not parts:
            continue
        line = fold_line([n.astext() for n in parts])
        head = f'<details class="claim-scale"><summary>{line}</summary>'
        box.insert(box.index(parts[0]), nodes.raw("", head, format="html"))
        tail = nodes.raw("", "</details>", format="html")
        box.insert(box.index(parts[-1]) + 1, tail)


def _claim_sizes(app, cid: str, recs: list[dict]) -> tuple[list | None, dict | None]:
    """The parameters claim ``cid`` reads and its chapter's presets at its records'
    profile (:mod:`.record_line`), or ``(None, None)`` where they cannot be read."""
    from .record_line import claim_reads, presets

    chapter = recs[0]["record"].get("chapter")
    root = book_root(app)
    source = root / "notebooks" / f"{chapter}.py"
    profile = recs[0]["record"].get("parameters", {}).get("profile", "book")
    try:
        reads = claim_reads(root / "notebooks" / f"{chapter}.claims.yaml").get(cid)
    except (OSError, ValueError, KeyError, TypeError):
        return None, None
    return reads, presets(source, profile)


def _row(label: str, claim: dict, e: dict):
    from .scale_chart import Row

    seeds = claim.get("seeds")
    label += f" ({seeds} seeds)" if isinstance(seeds, int) else ""
    return Row(label, e["estimate"], e["lo"], e["hi"], str(e.get("decision")))


def scale_charts(book: dict | None, recs: list[dict]) -> str:
    """Per effect of the claim's records, its interval at ``book`` and in each record,
    smallest scale first (:mod:`.scale_chart`); stale records are left out."""
    from .scale_chart import svg

    current = sorted(
        (r for r in recs if not r["record"].get("stale") and not r.get("rule_changed")),
        key=lambda r: (r["record"]["kind"] != "cpu", r.get("seeds") or 0),
    )
    names = [e["name"] for r in current for e in r.get("effects") or []]
    out = []
    for name in dict.fromkeys(names):
        runs = [(str((book or {}).get("profile") or "book"), book)] + [
            (r["record"]["kind"] + " record", r) for r in current
        ]
        rows, marks = [], {}
        for label, c in runs:
            e = next(
                (e for e in (c or {}).get("effects") or [] if e["name"] == name), None
            )
            if e is not None:
                rows.append(_row(label, c, e))
                marks = {k: e.get(k) for k in ("null", "smallest", "paper")}
        chart = svg(
            f"{reading.plain_values(str(name))}: from book to the records",
            rows,
            marks.get("null"),
            marks.get("smallest"),
            marks.get("paper"),
        )
        if chart:
            out.append(
                f'<figure class="scale-chart">{chart}<figcaption>'
                f"{reading.prose_html(str(name))}: its 95% interval (bar) and estimate "
                "(dot) at each scale, coloured by the effect's decision; no effect (solid),"
                " the claim's line (dashed), the paper (dotted)</figcaption></figure>"
            )
    return "".join(out)


def _confirmatory(app) -> dict[str, list[dict]]:
    cached = getattr(app, "_rnnbook_confirmatory", None)
    if cached is None:
        from . import records

        cached = app._rnnbook_confirmatory = records.confirmatory(
            book_root(app), _loaded(app)
        )
    return cached


def records_counting(app, claims: list[dict]) -> list[dict]:
    """The claims with the verdict that counts (:func:`rnnbook.book.records.counting`)."""
    from . import records

    if not any(c.get("trained") for c in claims):
        return claims
    conf = _confirmatory(app)
    out = []
    for c in claims:
        if c.get("trained"):
            v = records.counting_verdict(book_root(app), c["id"], c, conf=conf)
            c = {**c, "verdict": v["verdict"], "counting": v}
        out.append(c)
    return out


def rerun_rows(app, target: str) -> list[dict]:
    """The re-runs of one record on other processors (:func:`.processors.reruns`), read
    once per build."""
    cached = getattr(app, "_rnnbook_reruns", None)
    if cached is None:
        from . import processors, records

        cached = app._rnnbook_reruns = processors.reruns(
            book_root(app), report=records._report
        )
    from .processors import of_record

    return of_record(cached, target)


def confirmatory_html(entry: dict, counts: bool = True, reruns: list = ()) -> str:
    """A claim's confirmatory record (:func:`rnnbook.book.records.confirmatory`), above
    its exploratory ones: its declaration, its shards so far, then its verdict, and
    whether that verdict counts (``counts``: :func:`rnnbook.book.records.counting_records`
    put it first) or another record's does; then its ``reruns`` on other processors
    (:mod:`.processors`), which decide nothing."""
    from . import records
    from . import shard_plan as shards

    s, st = entry["slice"], entry["state"]
    sizes = reading.parameters_text(s.get("parameters", {}))
    size = shards.shard_size("slice", s)[0]
    head = (
        f"<p><strong>Confirmatory record</strong> <code>{html.escape(entry['chapter'])}:"
        f"{html.escape(entry['name'])}</code>: declared before its first shard, at master "
        f"seed {s['seed']} ({html.escape(sizes)}), in {st['of']} shards of {size} seeds; "
    )
    claim, rec = entry["claim"], entry["record"] or {}
    if claim is not None and not rec.get("stale") and not claim.get("rule_changed"):
        failed = (
            " Its gate did not hold: the experiment did not run as declared, so it"
            " decided nothing."
            if records.gate_failed(entry)
            else ""
        )
        which = (
            "this verdict counts"
            if counts
            else "another confirmatory record of the claim counts, declared after this "
            "one's gate failed"
        )
        head += (
            f"decided once on all its shards: {pages.badge_html(entry['claim']['verdict'])}"
            f" ({which}).{failed}{rerun_html(entry, reruns)}</p>"
        )
    else:
        words = records_words(entry)
        until = "" if claim is not None else "; no verdict until its last shard is in"
        head += f"{html.escape(words)}{until}{html.escape(refused_words(st))}."
        head += f"{rerun_html(entry, reruns)}</p>"
    says = html.escape(fold_says(entry, counts), quote=True)
    return f'<div class="claim-confirmatory" data-fold="{says}">{head}</div>'


def pending_words(mine: list[dict]) -> str | None:
    """Where a claim's confirmatory record stands while it has not decided (declared,
    running, or every shard in), as :func:`records_words` says it; ``None`` when none is
    pending (decided, or void)."""
    pending = (e for e in mine if e["claim"] is None and not e["state"]["void"])
    return next((records_words(e) for e in pending), None)


def mark_pending(box: nodes.admonition, words: str) -> None:
    """A box whose verdict is still the book's own run while its confirmatory record runs
    says so: ``(exploratory)`` in its title, and where the record stands after *Found*."""
    title = next(iter(box.findall(nodes.title)), None)
    if title is not None:
        title += nodes.Text(" (exploratory)")
    text = (
        " <em>This is the book\u2019s own run (exploratory); its confirmatory record has"
        f" not decided yet ({html.escape(words)}).</em>"
    )
    for strong in box.findall(nodes.strong):
        if strong.astext() == "Found." and isinstance(strong.parent, nodes.paragraph):
            ended = strong.parent.astext().rstrip().endswith(".")
            strong.parent += nodes.raw("", text if ended else "." + text, format="html")
            return


def no_replication_html(app, claim_id: str, docname: str) -> str:
    """For a claim whose data admit no independent replication, why it has no
    confirmatory record (:func:`rnnbook.book.records.no_replication`); else ``""``."""
    from . import records

    if _confirmatory(app).get(claim_id):
        return ""
    why = records.no_replication(book_root(app), claim_id, docname)
    if not why:
        return ""
    return (
        '<div class="claim-confirmatory"><p><strong>No confirmatory record</strong>: '
        f"{reading.prose_html(why)}</p></div>"
    )


def rerun_html(entry: dict, reruns: list) -> str:
    """A record's re-runs on other processors, one sentence each, for its box: how far
    each has come, or once decided (after the record) whether it got the same verdict."""
    from .legible_sphinx import ascii_math_html
    from .processors import compare, moved_most, words

    if not reruns:
        return ""
    claim = entry["claim"] or {"id": None, "verdict": None}
    made = entry["state"]["done"].get(0, {}).get("measuring_hash")
    out = []
    for rr in reruns:
        w = words(rr, {claim["id"]: claim["verdict"]}, made)
        mine = (rr.get("claims") or {}).get(claim["id"])
        beside = mine is not None and compare(rr, {claim["id"]: claim["verdict"]}, made)
        how = moved_most(claim, mine) if beside else ""
        w += f"; {how}" if how else ""
        out.append(f" {ascii_math_html(html.escape(w[:1].upper() + w[1:]))}.")
    return "".join(out)


def refused_words(st: dict) -> str:
    """The machines a record refused (other bits than its shard 0), after a semicolon."""
    from .shards import refused_machines

    return "".join(
        f"; refused on {m.get('cpu')} ({m.get('date')}), which gave other bits than"
        " shard 0: it runs none of the record's shards"
        for m in refused_machines(st)
    )


def records_words(entry: dict) -> str:
    """:func:`rnnbook.book.records.confirmatory_words` after the record's own name, which
    :func:`confirmatory_html` has just given: "so far k of K shards in", "the record is
    void: ..."."""
    from . import records

    name = f"confirmatory record {entry['chapter']}:{entry['name']}"
    words = records.confirmatory_words(entry)
    return words.replace(f"its {name}: ", "so far ").replace(
        f"its {name}", "the record"
    )


def _superseded(app) -> dict[str, list[dict]]:
    cached = getattr(app, "_rnnbook_superseded", None)
    if cached is None:
        from . import records

        cached = app._rnnbook_superseded = records.superseded(
            book_root(app), _loaded(app)
        )
    return cached


def _seed_records(app) -> dict[int, dict[str, str]]:
    cached = getattr(app, "_rnnbook_seeds", None)
    if cached is None:
        from . import records

        cached = app._rnnbook_seeds = records.seed_verdicts(
            book_root(app), _loaded(app)
        )
    return cached


def check_prose(app, doctree) -> None:
    claims = load_claims(app)
    if not claims:
        return
    by_seed = None
    for para in doctree.findall(nodes.paragraph):
        if _generated(para):
            continue
        text = _prose(para)
        problems = []
        if _AT_SEEDS.search(text):
            by_seed = _seed_records(app) if by_seed is None else by_seed
            problems = seed_contradictions(text, by_seed, set(claims))
            for m in _AT_SEEDS.finditer(text):  # judged against the seed records only
                text = text.replace(m.group(0), " ")
        for problem in problems + contradictions(text, claims):
            logger.warning(
                f"hand-written text contradicts the ledger: {problem} "
                "(quote the ledger with the {claim} role instead)",
                location=para,
                type="rnnbook",
                subtype="ledger",
            )


#: nodes whose text is code or math, never reworded
_VERBATIM = (
    nodes.literal,
    nodes.literal_block,
    nodes.math,
    nodes.math_block,
    nodes.raw,
    nodes.comment,
    nodes.target,
)


def plain_page(app, doctree, docname: str) -> None:
    """Code literals in words on every page but the API reference (issue 51;
    :func:`rnnbook.book.plain_words.plain`): its prose and the HTML that directives write
    (boxes, scorecard, part pages, errata), never code or math."""
    from .plain_words import plain, plain_html

    from .reference import is_code_page

    if is_code_page(docname):
        return
    for node in list(doctree.findall(nodes.Text)):
        parent = node.parent
        if parent is None or any(isinstance(a, _VERBATIM) for a in _ancestors(parent)):
            continue
        new = plain(str(node))
        if new != str(node):
            parent.replace(node, nodes.Text(new))
    for node in list(doctree.findall(nodes.raw)):
        if node.get("format") == "html":
            new = plain_html(node.astext())
            if new != node.astext():
                node.parent.replace(node, nodes.raw("", new, format="html"))


def _ancestors(node):
    while node is not None:
        yield node
        node = node.parent


def mark_math(app, doctree) -> None:
    """A page whose findings or scorecard tables carry a statement's math (raw HTML) loads
    MathJax too: Sphinx adds it only to pages with math nodes."""
    if any('class="math' in n.astext() for n in doctree.findall(nodes.raw)):
        app.env.get_domain("math").data["has_equations"][app.env.docname] = True


def add_static(app, config) -> None:
    config.html_static_path = [*config.html_static_path, str(STATIC)]


def copy_ledger(app, exception) -> None:
    """``claims.json`` into the HTML output, next to ``index.html``; the records' claims and
    provenance under ``results/`` beside it (the boxes link to them)."""
    path = claims_path(app)
    if exception is None and app.builder.format == "html" and path.exists():
        shutil.copy2(path, Path(app.outdir) / "claims.json")
    results = book_root(app) / "results"
    if exception is None and app.builder.format == "html" and results.is_dir():
        shutil.copytree(results, Path(app.outdir) / "results", dirs_exist_ok=True)


def setup(app) -> dict[str, Any]:
    app.add_config_value("rnnbook_claims_json", "", "env")
    app.add_config_value("rnnbook_root", "", "env")
    app.add_directive("seed-check", SeedCheckDirective)
    app.add_directive("confirmatory-records", ConfirmatoryRecordsDirective)
    app.connect("doctree-read", add_records_to_boxes)
    app.connect("doctree-read", fold_records, priority=600)  # after the records
    app.connect("doctree-read", lead_with_counting, priority=650)
    app.add_role("claim", ClaimRole())
    app.add_directive("findings", FindingsDirective)
    app.connect("doctree-read", check_prose)
    app.connect("doctree-read", mark_math)
    app.connect("doctree-resolved", plain_page, priority=900)
    app.connect("config-inited", add_static)
    app.connect("build-finished", copy_ledger)
    app.add_css_file("rnnbook.css")
    app.add_js_file("scorecard.js")  # the scorecard's filter; nothing on other pages
    return {"parallel_read_safe": True, "parallel_write_safe": True}
