"""No import loop anywhere in the package: every module can be understood, and imported, after
the modules it imports (the build room once had pipeline and distributed import each other)."""

import ast
from pathlib import Path

PKG = Path(__file__).resolve().parents[1] / "src" / "rnnbook"


def modules() -> dict[str, Path]:
    out = {}
    for path in PKG.rglob("*.py"):
        parts = path.relative_to(PKG.parent).with_suffix("").parts
        out[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return out


def imports(name: str, path: Path, known: dict[str, Path]) -> set[str]:
    """The package's modules that ``name`` imports, anywhere in the file (inside functions too):
    ``from pkg import mod`` counts as importing ``pkg.mod`` where that is a module."""
    pkg = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = pkg.split(".")
                parts = parts[: len(parts) - node.level + 1]
                base = ".".join([*parts, *([node.module] if node.module else [])])
            names = [
                f"{base}.{a.name}" if f"{base}.{a.name}" in known else base
                for a in node.names
            ]
        else:
            continue
        for mod in names:
            while mod and mod not in known:
                mod = mod.rpartition(".")[0]
            if mod and mod != name:
                found.add(mod)
    return found


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]

    def visit(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def test_the_cycle_finder_finds_a_loop():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_relative_imports_resolve_to_modules():
    known = modules()
    found = imports("rnnbook.book.cli", known["rnnbook.book.cli"], known)
    assert {"rnnbook.book.pipeline", "rnnbook.book.distributed"} <= found


def test_no_import_loop_in_the_package():
    known = modules()
    graph = {name: imports(name, path, known) for name, path in known.items()}
    loops = cycles(graph)
    assert not loops, "import loops: " + "; ".join(" <-> ".join(c) for c in loops)
