"""A small Sphinx extension of the book's own.

The package's docstrings are plain text with maths in it (``|lambda_k|``, ``|a / b - 1|``); in
reStructuredText a pair of pipes is a substitution reference, an error under ``-W``. The API page
shows them literally.
"""

from __future__ import annotations

import re
from typing import Any

_PIPE = re.compile(r"(?<!\\)\|")


def _literal_pipes(app, what, name, obj, options, lines: list[str]) -> None:
    for i, line in enumerate(lines):
        lines[i] = _PIPE.sub(r"\\|", line)


def setup(app) -> dict[str, Any]:
    app.connect("autodoc-process-docstring", _literal_pipes)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
