"""The build room: how the book is made, not what it computes.

:mod:`~rnnbook.book.params` (profiles and chapter parameters), :mod:`~rnnbook.book.claims` (the claims
each chapter declares, and their verdict rules), :mod:`~rnnbook.book.ledger` (the records of what was
measured), :mod:`~rnnbook.book.pipeline` (Jupytext, papermill, jupyter-book),
:mod:`~rnnbook.book.pages` (the generated scorecard, errata evidence and status pages) and
:mod:`~rnnbook.book.cli` (``python -m rnnbook``). The paper rooms never import this room.
"""
