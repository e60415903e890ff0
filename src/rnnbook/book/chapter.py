"""The first cell of every chapter: resolve its parameters, set the figure style, open its ledger.

    P, ledger = start("lsc/lemma2_paths", SPEC, globals())

reads ``profile`` and the parameters named in ``SPEC`` from the papermill parameters cell (``None``
means the profile's preset), stops with a :class:`~rnnbook.book.params.ParameterError` naming a bad
one, shows the resolved values as one line, and opens the ledger of the chapter's declared claims.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any, Mapping

from rnnbook import plotting

from .ledger import Ledger
from .params import Param, describe, resolve


def start(
    chapter: str,
    spec: Mapping[str, Param],
    namespace: Mapping[str, Any],
    show: bool = True,
) -> tuple[SimpleNamespace, Ledger]:
    """Resolve the chapter's parameters from ``namespace`` and open its ledger."""
    given = {name: namespace.get(name) for name in spec}
    P = resolve(spec, namespace.get("profile", "book"), **given)
    plotting.setup()
    ledger = Ledger(chapter, P.profile)
    if show:
        from IPython.display import Markdown, display

        display(Markdown(describe(P)))
    return P, ledger
