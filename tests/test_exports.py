"""The public surface: sorted __all__, every name importable, nothing private exported."""

from __future__ import annotations

import mockhttp
from mockhttp import a2a, llm, match, mcp


def _isort_style(name: str) -> tuple[int, str]:
    """ruff's order for a mixed ``__all__`` (RUF022): CONSTANTS, Classes, the rest."""
    return (0 if name.isupper() else 1 if name[:1].isupper() else 2, name)


def test_all_is_sorted_and_complete() -> None:
    """__all__ is sorted (as ruff sorts it), and every listed name exists."""
    for module in (mockhttp, match, llm, mcp, a2a):
        names = list(module.__all__)
        assert names in (sorted(names), sorted(names, key=_isort_style)), module.__name__
        for name in module.__all__:
            assert hasattr(module, name), name
            assert not name.startswith("_")


def test_public_names_are_all_listed() -> None:
    """Every public attribute of the package is in __all__ (submodules aside)."""
    import types

    public = {
        n
        for n, v in vars(mockhttp).items()
        if not n.startswith("_") and not isinstance(v, types.ModuleType)
    }
    assert public <= set(mockhttp.__all__)
