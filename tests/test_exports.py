"""The public surface: sorted __all__, every name importable, nothing private exported."""

from __future__ import annotations

import mockhttp
from mockhttp import llm, match, mcp


def test_all_is_sorted_and_complete() -> None:
    """__all__ is sorted, and every listed name exists."""
    for module in (mockhttp, match, llm, mcp):
        assert list(module.__all__) == sorted(module.__all__)
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
