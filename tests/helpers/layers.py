"""The package's layers and the imports between its modules, read from the source.

One source of truth for ``tests/test_layers.py`` and ``scripts/import_graph.py``: every
module's imports (module level, under ``TYPE_CHECKING`` and inside functions: each is a
dependency a reader follows), resolved to absolute names, and the rank of the layer each
module belongs to.  An import may only go to the same rank or a lower one.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "src" / "mockhttp"

LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    # (layer, the packages and modules in it), lowest first
    (
        "core",
        ("mockhttp._core", "mockhttp.fault", "mockhttp.match", "mockhttp.sse", "mockhttp.verdicts"),
    ),
    ("mockfile", ("mockhttp._mockfile",)),
    ("server", ("mockhttp._server", "mockhttp.pytest_plugin")),
    ("contract", ("mockhttp.contract",)),
    ("ws", ("mockhttp.ws",)),
    ("llm", ("mockhttp.llm",)),
    ("record", ("mockhttp.record",)),
    ("mcp", ("mockhttp.mcp",)),
    ("a2a", ("mockhttp.a2a",)),
    ("agui", ("mockhttp.agui",)),
    ("otel", ("mockhttp.otel",)),
    ("face", ("mockhttp",)),
    ("cli", ("mockhttp._cli", "mockhttp.__main__", "mockhttp.contract.__main__")),
)
"""The package's face (``mockhttp/__init__``) re-exports the layers and features; the
command line sits on top and nothing imports it but ``python -m`` entry points."""

PURE = "mockhttp._core"
IMPURE = frozenset(
    {
        "socket",
        "threading",
        "asyncio",
        "time",
        "selectors",
        "select",
        "signal",
        "subprocess",
        "multiprocessing",
        "concurrent",
        "os",
        "pathlib",
        "io",
        "shutil",
        "tempfile",
    }
)
"""Modules the core may not import: it does no I/O, starts no thread and reads no clock."""
FILE_CALLS = frozenset({"open", "read_text", "read_bytes", "write_text", "write_bytes"})


@dataclass(frozen=True)
class Import:
    source: str  # the importing module
    target: str  # the imported module (or package), absolute
    line: int


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def modules() -> dict[str, Path]:
    return {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def imports(name: str, path: Path, known: dict[str, Path]) -> list[Import]:
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found += [Import(name, a.name, node.lineno) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                parts = parts[: len(parts) - node.level + 1]
                base = ".".join([*parts, base] if base else parts)
            for alias in node.names:  # `from . import fault` imports a module
                sub = f"{base}.{alias.name}"
                found.append(Import(name, sub if sub in known else base, node.lineno))
    return found


def layer_of(module: str) -> str | None:
    best: tuple[int, str] | None = None
    for layer, members in LAYERS:
        for member in members:
            inside = module == member or module.startswith(member + ".")
            if inside and (best is None or len(member) > best[0]):
                best = (len(member), layer)
    return best[1] if best else None


def rank(layer: str) -> int:
    return [name for name, _ in LAYERS].index(layer)


def internal_imports() -> list[Import]:
    known = modules()
    return [
        i
        for name, path in known.items()
        for i in imports(name, path, known)
        if i.target == "mockhttp" or i.target.startswith("mockhttp.")
    ]


def climbs(i: Import) -> str | None:
    """How ``i`` climbs the layers, or None when it does not."""
    source, target = layer_of(i.source), layer_of(i.target)
    assert source, i
    assert target, i
    if rank(target) <= rank(source):
        return None
    return f"{i.source}:{i.line} imports {i.target} ({source} -> {target})"


def against_layers() -> list[str]:
    """Every import that climbs: from a module to a layer above its own."""
    return [c for i in internal_imports() if (c := climbs(i))]


def module_graph() -> dict[str, set[str]]:
    """Module to the modules it imports (the bare package ``mockhttp`` is the entry, not a
    dependency: it is left out)."""
    graph: dict[str, set[str]] = {m: set() for m in modules()}
    for i in internal_imports():
        if i.target != "mockhttp" and i.target != i.source and i.target in graph:
            graph[i.source].add(i.target)
    return graph


def impure_core() -> list[str]:
    """Every import of I/O, threads or clocks in the core, and every file call."""
    wrong = []
    for name, path in modules().items():
        if layer_of(name) != "core":
            continue
        tree = ast.parse(path.read_text(), str(path))
        for node in ast.walk(tree):
            line = getattr(node, "lineno", 0)
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and not node.level:
                names = [node.module or ""]
            else:
                names = []
            wrong += [f"{name}:{line} imports {n}" for n in names if n.split(".")[0] in IMPURE]
            if isinstance(node, ast.Call):
                func = node.func
                called = func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")
                if called in FILE_CALLS:
                    wrong.append(f"{name}:{line} calls {called}()")
    return wrong


def package_of(module: str) -> str:
    """The package a module belongs to: ``mockhttp._core._mock`` → ``mockhttp._core``."""
    parts = module.split(".")
    if parts[-1] == "__main__":  # an entry point (python -m), not part of its package
        return module
    if len(parts) > 1 and (PACKAGE / parts[1]).is_dir():
        return ".".join(parts[:2])
    return module


def package_graph() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {}
    for i in internal_imports():
        a, b = package_of(i.source), package_of(i.target)
        graph.setdefault(a, set())
        if a != b and b != "mockhttp":
            graph[a].add(b)
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The circles of ``graph`` (one path per strongly connected part of two or more)."""
    found: list[list[str]] = []
    stack: list[str] = []
    seen: set[str] = set()

    def visit(node: str) -> None:
        if node in stack:
            found.append([*stack[stack.index(node) :], node])
            return
        if node in seen:
            return
        seen.add(node)
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            visit(nxt)
        stack.pop()

    for node in sorted(graph):
        visit(node)
    return found
