"""How much test code there is for the source, and which modules with logic have no test
module of their own.

    python scripts/test_ratio.py            # the ratio, and the modules lacking a test module
    python scripts/test_ratio.py --by-package

The convention (docs/contributing.md): a module ``src/mockhttp/<pkg>/_x.py`` is tested in
``tests/<dir>/test_x.py`` (or ``tests/<dir>/test_x_<more>.py``: ``test_fault_wire.py``
tests ``_core/_fault.py`` too), where ``<dir>`` is the package's name without its leading
underscore (``_core`` → ``core``, ``_mockfile`` → ``mockfile``, ``llm`` → ``llm``); a
package's ``__init__.py`` and ``__main__.py`` (its public face) by any test module in
``tests/<dir>/``; a top-level module ``src/mockhttp/x.py`` (public: ``fault``, ``match``,
``sse``) by ``tests/test_x.py`` or a ``test_x.py``/``test_x_<more>.py`` in any test folder,
and ``pytest_plugin.py`` by ``tests/plugin/``.  A module "has logic" when it defines a
function or a class; an ``__init__.py`` that only re-exports names does not.

Lines are physical lines of ``*.py`` files (``wc -l``), ``tests/`` over ``src/``.  The
exit status is 0; this is a report, not a gate.
"""

from __future__ import annotations

import argparse
import ast
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "src" / "mockhttp"
TESTS = ROOT / "tests"
# top-level modules whose tests live in a folder of their own
FOLDERS = {"pytest_plugin": "plugin"}

__all__ = ["Module", "has_logic", "lines", "modules", "test_dir", "tested_by"]


@dataclass(frozen=True)
class Module:
    """One source module: its path under ``src/mockhttp``, its lines, and its test modules."""

    path: Path
    lines: int
    logic: bool
    tests: tuple[Path, ...]

    @property
    def name(self) -> str:
        return self.path.relative_to(PACKAGE).as_posix()


def lines(path: Path) -> int:
    """Physical lines, as ``wc -l`` counts them."""
    return path.read_bytes().count(b"\n")


def has_logic(source: str) -> bool:
    """Whether a module defines a function or a class (anywhere in it)."""
    tree = ast.parse(source)
    kinds = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
    return any(isinstance(node, kinds) for node in ast.walk(tree))


def test_dir(relative: Path) -> Path:
    """The test folder, under ``tests/``, of a module given relative to ``src/mockhttp``."""
    if len(relative.parts) == 1:
        folder = FOLDERS.get(relative.stem)
        return Path(folder) if folder is not None else Path()
    return Path(*(part.lstrip("_") for part in relative.parts[:-1]))


def tested_by(relative: Path, tests: Iterable[Path]) -> tuple[Path, ...]:
    """The test modules (relative to ``tests/``) that the convention gives ``relative``."""
    folder = test_dir(relative)
    if relative.name in ("__init__.py", "__main__.py") or relative.stem in FOLDERS:
        return tuple(t for t in tests if t.parent == folder and t != Path("__init__.py"))
    stem = relative.stem.lstrip("_")
    top = len(relative.parts) == 1
    return tuple(
        t for t in tests
        if (top or t.parent == folder)
        and (t.name == f"test_{stem}.py" or t.name.startswith(f"test_{stem}_"))
    )  # fmt: skip


def modules(package: Path = PACKAGE, tests_root: Path = TESTS) -> list[Module]:
    """Every source module, with what the convention finds for it."""
    tests = sorted(p.relative_to(tests_root) for p in tests_root.rglob("test_*.py"))
    found = []
    for path in sorted(package.rglob("*.py")):
        relative = path.relative_to(package)
        text = path.read_text(encoding="utf-8")
        found.append(Module(path, lines(path), has_logic(text), tested_by(relative, tests)))
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--by-package", action="store_true", help="a line per package too")
    args = parser.parse_args(argv)
    found = modules()
    source = sum(m.lines for m in found)
    test = sum(lines(p) for p in TESTS.rglob("*.py"))
    logic = [m for m in found if m.logic]
    lacking = [m for m in logic if not m.tests]
    print(f"tests/src: {test:,} / {source:,} lines = {test / source:.2f}x")
    print(f"modules with logic: {len(logic)}; with a test module: {len(logic) - len(lacking)}")
    if args.by_package:
        packages: dict[str, list[Module]] = {}
        for m in logic:
            packages.setdefault(
                m.path.relative_to(PACKAGE).parts[0]
                if len(m.path.relative_to(PACKAGE).parts) > 1
                else "(top)",
                [],
            ).append(m)
        for name, group in sorted(packages.items()):
            tested = sum(1 for m in group if m.tests)
            print(f"  {name:<12} {tested:>3} of {len(group):>3} modules tested")
    if lacking:
        print(f"lacking a test module ({len(lacking)}), largest first:")
        for m in sorted(lacking, key=lambda m: -m.lines):
            want = TESTS / test_dir(m.path.relative_to(PACKAGE))
            stem = m.path.stem.lstrip("_")
            print(f"  {m.name:<36} {m.lines:>5} lines  -> {want.relative_to(ROOT)}/test_{stem}.py")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except BrokenPipeError:  # | head
        sys.exit(0)
