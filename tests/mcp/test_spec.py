"""What the spec fixes (``_spec``): revisions and negotiation."""

from __future__ import annotations

from mockhttp.mcp._spec import REVISIONS, STATEFUL, negotiate


def test_initialize_negotiates_among_the_stateful_revisions() -> None:
    assert negotiate("2025-06-18", REVISIONS) == "2025-06-18"
    assert negotiate("2026-07-28", REVISIONS) == "2025-11-25"  # (no initialize in it)
    assert negotiate("1999-01-01", ["2025-03-26", "2025-06-18"]) == "2025-06-18"
    assert negotiate(None, ["2026-07-28"]) == STATEFUL[-1]
    assert STATEFUL == ("2025-03-26", "2025-06-18", "2025-11-25")
