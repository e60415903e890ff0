"""Where every confirmatory record stands (issue 50): per declared confirmatory slice, its
declaration (master seed, members, shards), the shards in, the hours of one core they took,
what is left, and, once decided, each claim's verdict beside the book run's (exploratory).

One table for the verdicts page (``{confirmatory-records}``, :func:`html_table`) and for the
command line (``python -m rnnbook records``, :func:`text_table`), both from :func:`standing`,
which reads only the claims files and ``results/`` (no ledger needed: the book run's
verdicts are added where a ledger is at hand).
"""

from __future__ import annotations

import html
from pathlib import Path
from typing import Any, Callable

from . import pages, processors, records, shards


def _hours(done: dict[int, dict]) -> float:
    return sum(float(p.get("wall_seconds") or 0.0) for p in done.values()) / 3600


def _state(st: dict, rec: dict | None) -> str:
    if rec is not None:
        return ("stale, " if rec.get("stale") else "") + f"decided {rec.get('date')}"
    if st["void"]:
        return f"void: {st['void']}"
    if st["complete"]:
        return "every shard in, not yet decided"
    if not st["done"]:
        return "declared, not started"
    return f"started {st['started']}"


def _refused_words(m: dict) -> str:
    """A refused machine (:func:`.shards.refused_machines`), in words."""
    return (
        f"refused on {m.get('cpu')} (host {m.get('host')}), {m.get('date')}: "
        "other bits than shard 0"
    )


def _left_hours(row: dict, slice_: dict) -> tuple[float | None, str]:
    """The hours of one core still to run: the mean shard's hours times the shards left,
    or, before any shard is in, the slice's declared ``minutes``."""
    left = row["of"] - row["in"]
    if row["decided"] or left == 0 or row["void"]:
        return 0.0, "measured"
    if row["in"]:
        return row["hours"] / row["in"] * left, "measured"
    minutes = slice_.get("minutes")
    return (float(minutes) / 60, "declared") if minutes else (None, "declared")


def standing(root: Path, loaded: list[dict] | None = None) -> list[dict]:
    """One row per confirmatory slice, in the book's chapter order: ``chapter``, ``name``,
    ``master_seed``, ``members``, ``of`` (shards declared), ``in`` (shards in), ``hours``
    (one core, shards in), ``left_hours`` (and ``left_from``: measured or declared),
    ``state`` (in words), ``decided`` (its date or None), ``void``, ``stale``,
    ``refused`` (the machines that gave other bits than shard 0, as listed),
    ``claims`` (each ``{id, verdict, gate_failed}``: the record's verdict once decided,
    else None, and whether its gate failed, so that it decided nothing) and ``reruns``
    (each re-run of the record on another processor, in words: :mod:`.processors`)."""
    rows: dict[tuple[str, str], dict] = {}
    again = processors.reruns(root, report=records._report)
    for cid, entries in records.confirmatory(root, loaded).items():
        for e in entries:
            st, rec, claim = e["state"], e["record"], e["claim"]
            key = (e["chapter"], e["name"])
            if key not in rows:
                row = {
                    "chapter": e["chapter"],
                    "name": e["name"],
                    "master_seed": e["slice"].get("seed"),
                    "members": sum(n for _, n in st["plan"]),
                    "of": st["of"],
                    "in": len(st["done"]),
                    "hours": _hours(st["done"]),
                    "state": _state(st, rec),
                    "decided": rec.get("date") if rec else None,
                    "void": st["void"],
                    "stale": bool(rec and rec.get("stale")),
                    "damaged": list(st["damaged"]),
                    "refused": shards.refused_machines(st),
                    "claims": [],
                    "measured_with": st["done"].get(0, {}).get("measuring_hash"),
                }
                row["left_hours"], row["left_from"] = _left_hours(row, e["slice"])
                rows[key] = row
            rows[key]["claims"].append(
                {
                    "id": cid,
                    "verdict": claim.get("verdict") if claim else None,
                    "gate_failed": bool(claim) and records.gate_failed(e),
                }
            )
    for (chapter, name), row in rows.items():
        verdicts = {c["id"]: c["verdict"] for c in row["claims"]}
        mine = processors.of_record(again, f"{chapter}:{name}")
        made = row["measured_with"]
        row["reruns"] = [processors.words(rr, verdicts, made) for rr in mine]
        row["rerun_compared"] = [
            processors.compare(rr, verdicts, made)
            for rr in mine
            if rr["verdicts"] is not None
        ]
        row["reruns_running"] = sum(
            1 for rr in mine if rr["verdicts"] is None and not rr["void"]
        )
    return list(rows.values())


def totals(rows: list[dict]) -> dict[str, Any]:
    """Records decided (and counting: not stale), shards in of declared, hours spent and
    hours left (``None`` when some record declares no estimate)."""
    left = [r["left_hours"] for r in rows]
    return {
        "records": len(rows),
        "decided": sum(1 for r in rows if r["decided"] and not r["stale"]),
        "stale": sum(1 for r in rows if r["stale"]),
        "in": sum(r["in"] for r in rows),
        "of": sum(r["of"] for r in rows),
        "hours": sum(r["hours"] for r in rows),
        "left_hours": None if None in left else sum(left),
    }


def _h(x: float | None) -> str:
    """Hours of one core, in words: minutes below a tenth of an hour."""
    if x is None:
        return "? h"
    return f"{x * 60:.0f} min" if x < 0.1 else f"{x:.1f} h"


def _shards(n: int) -> str:
    return f"{n} shard" + ("" if n == 1 else "s")


def summary(rows: list[dict]) -> str:
    """One sentence: how far the confirmatory round has come."""
    t = totals(rows)
    stale = f" ({t['stale']} more decided, now stale)" if t["stale"] else ""
    return (
        f"{t['decided']} of {t['records']} confirmatory records decided{stale}; "
        f"{t['in']} of {t['of']} shards in; {_h(t['hours'])} of one core spent, "
        f"about {_h(t['left_hours'])} to go."
    )


def rerun_summary(rows: list[dict]) -> str:
    """One sentence over the records' re-runs on other processors (``""`` when none)."""
    return processors.summary(
        [c for r in rows for c in r.get("rerun_compared", ())],
        sum(r.get("reruns_running", 0) for r in rows),
    )


def here_line(rows: list[dict], me: dict) -> str:
    """Which records still running this machine (``me``: :func:`.shard_plan.machine`) can
    take shards of: a record that refused it runs none here."""
    running = [
        r for r in rows if not r["decided"] and not r["void"] and r["in"] < r["of"]
    ]
    if not running:
        return (
            f"This machine ({me['cpu']}): no record is running; it may re-run decided "
            "records (make day)."
        )
    no = [r for r in running if me["id"] in {m.get("id") for m in r["refused"]}]
    if not no:
        return (
            f"This machine ({me['cpu']}) may take shards of every record still running "
            f"({len(running)}); one that it has not run yet checks it first (make day)."
        )
    names = ", ".join(f"{r['chapter']}:{r['name']}" for r in no)
    return (
        f"This machine ({me['cpu']}) is refused by {len(no)} of the {len(running)} "
        f"records still running ({names}): the queue runs none of their shards here; "
        "it may re-run them whole, as it may decided records (make day)."
    )


def text_table(
    rows: list[dict],
    book: dict[str, str] | None = None,
    running: dict[str, dict[int, int]] | None = None,
) -> str:
    """The table as plain text, one record per paragraph (``book``: claim id -> the book
    run's verdict, when a ledger is at hand; ``running``: ``CHAPTER:SLICE`` -> the shards
    that processes of this machine run now, each with its process id)."""
    out = []
    for r in rows:
        head = (
            f"{r['chapter']}:{r['name']}  master seed {r['master_seed']}, "
            f"{r['members']} members in {_shards(r['of'])}; {r['in']} of {r['of']} in, "
            f"{_h(r['hours'])}; {r['state']}"
        )
        if not r["decided"] and r["left_hours"]:
            head += f"; about {_h(r['left_hours'])} to go ({r['left_from']})"
        lines = [head]
        now = (running or {}).get(f"{r['chapter']}:{r['name']}")
        if now:
            lines.append(
                "    running here now: "
                + ", ".join(f"shard {k} (process {p})" for k, p in sorted(now.items()))
            )
        for c in r["claims"]:
            was = (book or {}).get(c["id"])
            lines.append(
                f"    {c['id']}: {c['verdict'] or '-'}"
                + (", its gate did not hold" if c["gate_failed"] else "")
                + (f" (book run: {was})" if was else "")
            )
        lines += [f"    damaged: {d}" for d in r["damaged"]]
        lines += [f"    {_refused_words(m)}" for m in r["refused"]]
        lines += [f"    {w}" for w in r.get("reruns", ())]
        out.append("\n".join(lines))
    again = rerun_summary(rows)
    return "\n".join(out + [summary(rows)] + ([again] if again else []))


def html_table(
    rows: list[dict],
    claims: dict[str, dict] | None,
    href: Callable[[dict], str] | None = None,
) -> str:
    """The table in HTML: record, shards in (hours), state, and per claim its verdict
    (badge, linked to its box when ``claims`` holds it) beside the book run's."""
    if not rows:
        return "<p>No confirmatory record is declared yet.</p>"
    body = []
    for r in rows:
        cells = []
        for c in r["claims"]:
            known = (claims or {}).get(c["id"])
            name = html.escape(c["id"])
            if known and known.get("chapter") and href:
                name = f'<a href="{href(known)}">{name}</a>'
            got = pages.badge_html(c["verdict"]) if c["verdict"] else "&ndash;"
            if c["gate_failed"]:
                got += "<small>, its gate did not hold</small>"
            was = known.get("verdict") if known else None
            book = f" <small>(book run: {html.escape(was)})</small>" if was else ""
            cells.append(f"{name}: {got}{book}")
        shards_in = f"{r['in']} of {r['of']}<br><small>{_h(r['hours'])}</small>"
        refused = "".join(
            f"<br><small>{html.escape(_refused_words(m))}</small>" for m in r["refused"]
        )
        # the re-runs set beside the verdicts, where the widest column has room for them
        cells += [f"<small>{html.escape(w)}</small>" for w in r.get("reruns", ())]
        name = html.escape(f"{r['chapter']}:{r['name']}")
        name = name.replace("/", "/<wbr>").replace(":", ":<wbr>")  # break there first
        body.append(
            f'<tr><td class="col-claim"><code>{name}</code>'
            f"<br><small>master seed {html.escape(str(r['master_seed']))}, "
            f"{r['members']} members</small></td>"
            f'<td class="col-shards" data-label="shards in">{shards_in}</td>'
            f'<td data-label="state">{html.escape(r["state"])}{refused}</td>'
            f'<td class="col-finding">{"<br>".join(cells)}</td></tr>'
        )
    again = rerun_summary(rows)
    again = f"<p>{html.escape(again[:1].upper() + again[1:])}</p>" if again else ""
    return (
        f"<p>{html.escape(summary(rows))}</p>{again}"
        '<table class="claims-table confirmatory-records"><thead><tr>'
        "<th>record</th><th>shards</th><th>state</th><th>claims: verdict</th>"
        f"</tr></thead><tbody>{''.join(body)}</tbody></table>"
    )


__all__ = [
    "standing",
    "totals",
    "summary",
    "rerun_summary",
    "text_table",
    "html_table",
]
