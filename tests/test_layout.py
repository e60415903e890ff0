"""The package's layout: one room per paper, a build room, and a small common layer (ARCHITECTURE.md)."""

import ast
from pathlib import Path

import pytest

PKG = Path(__file__).resolve().parents[1] / "src" / "rnnbook"
PAPER_ROOMS = ("lsc", "implicit_bias", "mean_field", "infinite_width")
ROOMS = PAPER_ROOMS + ("book", "synthesis")


def imported_modules(path: Path) -> set[str]:
    """The rnnbook modules a file imports, as absolute dotted names."""
    tree = ast.parse(path.read_text())
    package = ".".join(("rnnbook", *path.relative_to(PKG).parent.parts))
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = package.split(".")
            base = base[: len(base) - node.level + 1] if node.level else []
            mod = ".".join([*base, *([node.module] if node.module else [])])
            out |= {mod} | {f"{mod}.{a.name}" for a in node.names}
    return {m for m in out if m == "rnnbook" or m.startswith("rnnbook.")}


def room_of(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[1] in ROOMS else "common"


@pytest.mark.parametrize("room", PAPER_ROOMS)
def test_paper_rooms_import_only_themselves_and_the_common_layer(room):
    bad = []
    for path in sorted((PKG / room).rglob("*.py")):
        for mod in imported_modules(path):
            other = room_of(mod)
            if other not in (room, "common"):
                bad.append(f"{path.relative_to(PKG)} imports {mod}")
    assert not bad, "\n".join(bad)


def test_common_layer_imports_no_room():
    for path in PKG.glob("*.py"):
        if path.name == "__main__.py":
            continue
        rooms = {room_of(m) for m in imported_modules(path)} - {"common"}
        assert not rooms, f"{path.name} imports the rooms {rooms}"


def test_top_level_is_small_and_every_room_documents_its_paper():
    # __init__, __main__ and the common layer: cache, datasets, device, plotting, seeds, stats
    assert len(list(PKG.glob("*.py"))) <= 8
    for room in PAPER_ROOMS + ("book",):
        doc = ast.get_docstring(ast.parse((PKG / room / "__init__.py").read_text()))
        assert doc and len(doc) > 200, (
            f"rnnbook.{room} needs a docstring naming its paper and sections"
        )


def test_tests_mirror_the_package():
    tests = Path(__file__).parent
    for room in PAPER_ROOMS + ("book",):
        assert list((tests / room).glob("test_*.py")), f"tests/{room}/ has no tests"
