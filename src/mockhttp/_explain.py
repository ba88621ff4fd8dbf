"""Explaining an unmatched request: the closest mocks, field by field."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from ._mock import Mismatch, Mock
from ._request import Request

__all__ = ["closest", "no_match_json", "no_match_text"]

SHOWN = 3


def closest(request: Request, mocks: Sequence[Mock]) -> list[tuple[Mock, list[Mismatch]]]:
    """Mocks with their differences, closest first (fewest, lightest mismatches)."""
    scored = [(m, m.differences(request)) for m in mocks]
    scored.sort(key=lambda pair: (sum(d.weight for d in pair[1]), len(pair[1])))
    return scored


def no_match_text(request: Request, mocks: Sequence[Mock]) -> str:
    """The readable report, e.g. ``no mock matched POST /v1/chat … closest: …``."""
    lines = [f"no mock matched {request.method} {request.target}"]
    ranked = closest(request, mocks)
    if not ranked:
        lines.append("  no mocks are registered")
    for i, (mock, diffs) in enumerate(ranked[:SHOWN]):
        head = "closest" if i == 0 else "also tried"
        lines.append(f"  {head}: mock {mock.describe()}")
        lines.extend(f"    {d}" for d in diffs)
        if not diffs:
            lines.append("    (matches, but has answered all its `times`)")
    if len(ranked) > SHOWN:
        lines.append(f"  and {len(ranked) - SHOWN} more mocks")
    return "\n".join(lines)


def no_match_json(request: Request, mocks: Sequence[Mock]) -> dict[str, Any]:
    """The same report as JSON, in the shape of an OpenAI-style error body."""
    return {
        "error": {
            "type": "mockhttp_no_match",
            "message": no_match_text(request, mocks),
            "request": request.to_dict(),
            "closest": [
                {
                    "mock": mock.describe(),
                    "name": mock.name,
                    "differences": [_difference(d) for d in diffs],
                }
                for mock, diffs in closest(request, mocks)[:SHOWN]
            ],
        }
    }


def _difference(mismatch: Mismatch) -> dict[str, Any]:
    found: dict[str, Any] = {
        "field": mismatch.field,
        "reason": mismatch.reason,
        "expected": mismatch.expected,
        "actual": _jsonable(mismatch.actual),
    }
    if mismatch.path is not None:
        found["path"] = mismatch.path
    return found


def _jsonable(value: Any) -> Any:
    try:
        json.dumps(value)
    except (TypeError, ValueError):
        return repr(value)
    return value
