"""``python -m rnnbook``: the book's command line (see :mod:`rnnbook.book.cli`)."""

import sys

from rnnbook.book.cli import main

if __name__ == "__main__":
    sys.exit(main())
