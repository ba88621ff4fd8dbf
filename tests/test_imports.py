"""The modules of mockhttp import each other without a circle.

Every import counts: at module level, under ``TYPE_CHECKING`` and inside functions, since
each is a dependency a reader has to follow.  The core never needs the shell back.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "src" / "mockhttp"


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imports_of(path: Path, modules: set[str]) -> set[str]:
    """The mockhttp modules ``path`` imports (package ``__init__`` re-exports excluded)."""
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                stem = ".".join(base + ([node.module] if node.module else []))
            else:
                stem = node.module or ""
            targets = [f"{stem}.{alias.name}" for alias in node.names] + [stem]
        else:
            continue
        for target in targets:
            if target in modules and target != name:
                found.add(target)
    return found


def graph() -> dict[str, set[str]]:
    paths = sorted(PACKAGE.rglob("*.py"))
    modules = {module_name(p) for p in paths}
    # `mockhttp` itself (the public __init__) imports everything: it is the entry, not a
    # dependency, so imports of the bare package name are not edges.
    edges = {module_name(p): imports_of(p, modules) - {"mockhttp"} for p in paths}
    return edges


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return found


def test_the_graph_is_read() -> None:
    """The reader sees the imports (so an empty graph cannot pass the test below)."""
    edges = graph()
    assert "mockhttp._reply" in edges["mockhttp._server"]
    assert "mockhttp._request" in edges["mockhttp._mock"]


def test_no_import_cycles_among_mockhttp_modules() -> None:
    assert cycles(graph()) == []


def test_the_mock_does_not_import_the_mock_file_writer() -> None:
    assert "mockhttp._mockfile_dump" not in graph()["mockhttp._mock"]
