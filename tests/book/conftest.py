import json
from pathlib import Path

import pytest

from tests.book import smoke
from tests.book.smoke import BOOK_SOURCES, smoke_root  # noqa: F401 (for the tests)


@pytest.fixture(scope="session")
def smoke_book():
    """The whole book built once at the smoke profile, as `make test` builds it (:mod:`.smoke`):
    from a copy of the sources, so that the tests never replace the book that `make book`
    rendered into ``_build`` (its HTML, ``claims.json`` and timings)."""
    try:
        return smoke.build()
    except smoke.SmokeBuildFailed as e:
        pytest.fail(str(e))


#: a chapter that records one declared claim (and sleeps RNNBOOK_TEST_SLEEP_<n> seconds first)
CLAIMED = (
    '# %% tags=["parameters"]\nprofile = "book"\n\n'
    "# %%\nimport os, time\nfrom rnnbook.book.ledger import Ledger\n"
    "time.sleep(float(os.environ.get('RNNBOOK_TEST_SLEEP_{n}', '0')))\n"
    'Ledger("d/c{n}", profile).check("lsc.c{n}", x={n})\n'
)


def claimed_book(root: Path, n: int = 4) -> Path:
    """A book of ``n`` tiny chapters (``d/c1``...), each recording one declared claim."""
    (root / "book").mkdir(parents=True)
    (root / "book" / "intro.md").write_text("# Intro\n")
    (root / "_config.yml").write_text(
        "title: t\nexecute:\n  execute_notebooks: 'off'\n"
    )
    toc = {"format": "jb-book", "root": "book/intro", "chapters": []}
    for i in range(1, n + 1):
        src = root / "notebooks" / "d" / f"c{i}.py"
        src.parent.mkdir(parents=True, exist_ok=True)
        src.write_text(CLAIMED.format(n=i))
        src.with_suffix(".claims.yaml").write_text(
            f"paper: lsc\nclaims:\n  - {{id: lsc.c{i}, source: Lemma 2, statement: s, "
            f"rule: [{{reproduced: x == {i}}}, {{otherwise: not-reproduced}}]}}\n"
        )
        toc["chapters"].append({"file": f"notebooks/d/c{i}"})
    (root / "_toc.yml").write_text(json.dumps(toc))
    return root
