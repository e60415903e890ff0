"""The repository documents itself: every page the package and the tests cite is in the
repository, and every section of ARCHITECTURE.md they cite exists."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def cited() -> list[tuple[Path, str, str]]:
    out = []
    for folder in ("src", "tests"):
        for path in (ROOT / folder).rglob("*.py"):
            if path == Path(__file__).resolve():
                continue
            text = path.read_text()
            for m in re.finditer(r"\b([A-Z][A-Z_]+\.md)\b(?:,? \(?\*([^*]+)\*)?", text):
                out.append((path, m.group(1), m.group(2) or ""))
    return out


def test_cited_pages_and_sections_exist():
    refs = cited()
    assert any(page == "ARCHITECTURE.md" for _, page, _ in refs)
    headings = {
        m.group(1)
        for m in re.finditer(r"^#+ (.+)$", (ROOT / "ARCHITECTURE.md").read_text(), re.M)
    }
    for path, page, section in refs:
        assert (ROOT / page).exists(), f"{path} cites {page}, not in the repository"
        if page == "ARCHITECTURE.md" and section:
            assert section in headings, f"{path} cites ARCHITECTURE.md, *{section}*"
