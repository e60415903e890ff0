"""rnnbook: the package behind the book *Why recurrent and deep linear networks forget*.

Chapters (Jupytext notebooks under ``notebooks/``) call this package; all experiment code lives here.
"""

__version__ = "0.1.0"
