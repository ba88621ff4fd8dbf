"""Explaining an unmatched request: the closest mocks, field by field.

An explanation is bounded: at most ``SHOWN`` mocks with at most ``DIFFS_SHOWN`` differences
each, long values cut with their length shown (a 200 KB prompt does not make a 600 KB 404).
It is built once per unmatched request and serves the 404 body (text or JSON), the journal
(``call.explanation``), ``server.check()`` and the log line of ``mockhttp serve``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ._match import SHOWN_CHARS
from ._mock import Mismatch, Mock
from ._request import Request

__all__ = ["Explanation", "closest", "explain", "no_match_json", "no_match_text"]

SHOWN = 3  # mocks an explanation lists
DIFFS_SHOWN = 10  # differences listed per mock
BODY_SHOWN = 1000  # characters of the request body an explanation's JSON repeats


def closest(
    request: Request, mocks: Sequence[Mock], states: Mapping[str, str] | None = None
) -> list[tuple[Mock, list[Mismatch]]]:
    """Mocks with their differences, closest first, compared field by field: the path
    first (the same path, then a nearly equal one such as a trailing slash, then one with
    less in common), then the method, then how many other fields differed."""
    scored = [(m, m.differences(request, states)) for m in mocks]
    scored.sort(key=lambda pair: _distance(pair[1]))
    return scored


def _distance(diffs: list[Mismatch]) -> tuple[float, float, float, int]:
    path = sum(d.weight for d in diffs if d.field == "path")
    method = sum(d.weight for d in diffs if d.field == "method")
    rest = sum(d.weight for d in diffs if d.field not in ("path", "method"))
    return (path, method, rest, len(diffs))


@dataclass(frozen=True)
class Explanation:
    """Why a request matched no mock, as text (``text``), JSON (``to_json()``) and one
    line (``line``: the closest mock and its first differing field)."""

    request: Request
    text: str
    line: str
    closest: tuple[dict[str, Any], ...]

    def to_json(self) -> dict[str, Any]:
        """The report in the shape of an OpenAI-style error body."""
        return {
            "error": {
                "type": "mockhttp_no_match",
                "message": self.text,
                "request": _request_json(self.request),
                "closest": list(self.closest),
            }
        }

    def __str__(self) -> str:
        return self.text


def explain(
    request: Request, mocks: Sequence[Mock], states: Mapping[str, str] | None = None
) -> Explanation:
    """The explanation of why ``request`` matched none of ``mocks``."""
    ranked = closest(request, mocks, states)[:SHOWN]
    return Explanation(
        request,
        _text(request, ranked, len(mocks)),
        _line(ranked),
        tuple(
            {
                "mock": mock.describe(),
                "name": mock.name,
                "differences": [_difference(d) for d in diffs[:DIFFS_SHOWN]],
            }
            for mock, diffs in ranked
        ),
    )


def no_match_text(request: Request, mocks: Sequence[Mock]) -> str:
    """The readable report, e.g. ``no mock matched POST /v1/chat … closest: …``."""
    return explain(request, mocks).text


def no_match_json(request: Request, mocks: Sequence[Mock]) -> dict[str, Any]:
    """The same report as JSON, in the shape of an OpenAI-style error body."""
    return explain(request, mocks).to_json()


def _text(request: Request, ranked: list[tuple[Mock, list[Mismatch]]], total: int) -> str:
    target = request.target
    if len(target) > SHOWN_CHARS:
        target = f"{target[:SHOWN_CHARS]}… ({len(target):,} chars)"
    lines = [f"no mock matched {request.method} {target}"]
    if not ranked:
        lines.append("  no mocks are registered")
    for i, (mock, diffs) in enumerate(ranked):
        head = "closest" if i == 0 else "also tried"
        lines.append(f"  {head}: mock {mock.describe()}")
        lines.extend(f"    {d}" for d in diffs[:DIFFS_SHOWN])
        if len(diffs) > DIFFS_SHOWN:
            lines.append(f"    and {len(diffs) - DIFFS_SHOWN} more differences")
        if not diffs:
            lines.append("    (matches, but has answered all its `times` or `replies`)")
    if total > SHOWN:
        lines.append(f"  and {total - SHOWN} more mocks")
    return "\n".join(lines)


def _line(ranked: list[tuple[Mock, list[Mismatch]]]) -> str:
    if not ranked:
        return "no mocks"
    mock, diffs = ranked[0]
    why = str(diffs[0]) if diffs else "it has answered all its `times` or `replies`"
    return f"closest: {mock.describe()}, {why}"


def _request_json(request: Request) -> dict[str, Any]:
    found = request.to_dict()
    body = found["body"]
    if len(body) > BODY_SHOWN:
        found["body"] = body[:BODY_SHOWN] + "…"
        found["body_cut"] = f"the first {BODY_SHOWN} of {len(body):,} characters"
    return found


def _difference(mismatch: Mismatch) -> dict[str, Any]:
    found: dict[str, Any] = {
        "field": mismatch.field,
        "reason": mismatch.reason,
        "expected": _bounded(mismatch.expected),
        "actual": _bounded(_jsonable(mismatch.actual)),
    }
    if mismatch.path is not None:
        found["path"] = mismatch.path
    return found


def _bounded(value: Any) -> Any:
    """A JSON value as it is when short; else its text, cut, with its length."""
    if isinstance(value, str):
        text = value
    elif value is None or isinstance(value, bool | int | float):
        return value
    else:
        text = json.dumps(value, ensure_ascii=False)
    if len(text) <= SHOWN_CHARS:
        return value
    return f"{text[:SHOWN_CHARS]}… ({len(text):,} chars)"


def _jsonable(value: Any) -> Any:
    try:
        json.dumps(value)
    except (TypeError, ValueError):
        return repr(value)
    return value
