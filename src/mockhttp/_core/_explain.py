"""Explaining an unmatched request: the closest mocks, field by field.

An explanation is bounded: at most ``SHOWN`` mocks with at most ``DIFFS_SHOWN`` differences
each, long values cut with their length shown (a 200 KB prompt does not make a 600 KB 404).
It is built once per unmatched request and serves the 404 body (text or JSON), the journal
(``call.explanation``), ``server.check()`` and the log line of ``mockhttp serve``.
``redacted()`` renders it again with the request's secrets hidden (``_core._redact``, the
one rule: the unmatched reply, the admin journal, ``server.check()`` and the logs of
``mockhttp serve``); the explanation itself keeps what the client sent.
"""

from __future__ import annotations

import ast
import heapq
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

from ._match import SHOWN_CHARS, cut
from ._mock import Mismatch, Mock
from ._redact import Redactor
from ._request import Request

__all__ = [
    "Explanation",
    "Hide",
    "Unmatched",
    "closest",
    "explain",
    "no_match_json",
    "no_match_text",
    "unmatched_report",
]

#: ``hide(header_name, value)``: what to show for a header's value (the value itself when
#: it is no secret), e.g. ``Bearer [redacted]``.
Hide = Callable[[str, str], str]

SHOWN = 3  # mocks an explanation lists
DIFFS_SHOWN = 10  # differences listed per mock
BODY_SHOWN = 1000  # characters of the request body an explanation's JSON repeats


COMPARED = 64  # mocks compared field by field; past that many, the nearest by a rough key


def closest(
    request: Request, mocks: Sequence[Mock], states: Mapping[str, str] | None = None
) -> list[tuple[Mock, list[Mismatch]]]:
    """Mocks with their differences, closest first, compared field by field: the path
    first (the same path, then a nearly equal one such as a trailing slash, then one with
    less in common), then the method, then how many other fields differed.

    Bounded: with more than ``COMPARED`` mocks, only the ``COMPARED`` nearest by a rough
    key (the path matches, else how long a start it shares; then the method) are compared
    field by field (~20-50 us a mock); the rough key costs ~5 us a mock (100 ms or more
    for 20,000: the server builds explanations among many mocks off its loop)."""
    if len(mocks) > COMPARED:
        mocks = heapq.nsmallest(COMPARED, mocks, key=lambda m: _rough(m, request))
    scored = [(m, m.differences(request, states)) for m in mocks]
    scored.sort(key=lambda pair: _distance(pair[1]))
    return scored


def _rough(mock: Mock, request: Request) -> tuple[float, int]:
    """A cheap stand-in for :func:`_distance`'s first two terms (path, then method)."""
    method = 0 if mock.method in (None, request.method) else 1
    if mock.path_params(request) is not None:
        return (0.0, method)
    wanted = mock.path if isinstance(mock.path, str) else ""
    given = request.path
    return (1.0 - _shared(given, wanted) / max(len(given), len(wanted), 1), method)


def _shared(a: str, b: str) -> int:
    """How many characters ``a`` and ``b`` start with in common (a binary search of
    slices: a few comparisons in C, not one Python step per character)."""
    low, high = 0, min(len(a), len(b), 300)
    while low < high:
        mid = (low + high + 1) // 2
        if a[:mid] == b[:mid]:
            low = mid
        else:
            high = mid - 1
    return low


def _distance(diffs: list[Mismatch]) -> tuple[float, float, float, int]:
    path = sum(d.weight for d in diffs if d.field == "path")
    method = sum(d.weight for d in diffs if d.field == "method")
    rest = sum(d.weight for d in diffs if d.field not in ("path", "method"))
    return (path, method, rest, len(diffs))


@dataclass(frozen=True)
class Explanation:
    """Why a request matched no mock, as text (``text``), JSON (``to_json()``) and one
    line (``line``: the closest mock and its first differing field).

    ``more`` counts, per mock of ``closest``, the differences not listed; ``total`` is the
    number of mocks registered; ``redactor`` is set on a ``redacted()`` copy.
    """

    request: Request
    text: str
    line: str
    closest: tuple[dict[str, Any], ...]
    more: tuple[int, ...]
    total: int
    redactor: Redactor | None = field(default=None, repr=False, compare=False)

    def to_json(self) -> dict[str, Any]:
        """The report in the shape of an OpenAI-style error body."""
        return {
            "error": {
                "type": "mockhttp_no_match",
                "message": self.text,
                "request": _request_json(self.request, self.redactor),
                "closest": list(self.closest),
            }
        }

    def redacted(self, redactor: Redactor | None = None) -> Explanation:
        """This explanation with the request's secrets hidden (``redactor``: by default
        the one rule for this request): in ``closest``, ``text``, ``line`` and the request
        of ``to_json()``.  The explanation itself is unchanged."""
        if redactor is None:
            redactor = Redactor.of_request(self.request)
        redactor = redactor.adding(_expected_secrets(self.closest))
        hide = redactor.header
        closest = tuple(
            redactor.value(
                {
                    **entry,
                    "differences": [_hidden(d, self.request, hide) for d in entry["differences"]],
                }
            )
            for entry in self.closest
        )
        text = redactor.text(_text(self.request, closest, self.more, self.total))
        return replace(
            self, text=text, line=redactor.text(_line(closest)), closest=closest, redactor=redactor
        )

    def __str__(self) -> str:
        return self.text


def explain(
    request: Request, mocks: Sequence[Mock], states: Mapping[str, str] | None = None
) -> Explanation:
    """The explanation of why ``request`` matched none of ``mocks``."""
    ranked = closest(request, mocks, states)[:SHOWN]
    shown = tuple(
        {
            "mock": mock.describe(),
            "name": mock.name,
            "differences": [_difference(d) for d in diffs[:DIFFS_SHOWN]],
        }
        for mock, diffs in ranked
    )
    more = tuple(max(0, len(diffs) - DIFFS_SHOWN) for _, diffs in ranked)
    text = _text(request, shown, more, len(mocks))
    return Explanation(request, text, _line(shown), shown, more, len(mocks))


class Unmatched(Protocol):
    """A request no mock matched, as a journal keeps it (``Call`` is one)."""

    @property
    def request(self) -> Request: ...

    @property
    def explanation(self) -> Explanation | None: ...


def unmatched_report(calls: Sequence[Unmatched], mocks: Sequence[Mock]) -> str:
    """The report of requests that matched no mock, for ``server.check()`` and the pytest
    plugin: each call's explanation (one built against ``mocks`` when it has none), its
    secrets hidden."""
    reports = [
        (c.explanation if c.explanation is not None else explain(c.request, mocks)).redacted().text
        for c in calls
    ]
    return f"{len(calls)} request(s) matched no mock:\n" + "\n".join(reports)


def no_match_text(request: Request, mocks: Sequence[Mock]) -> str:
    """The readable report, e.g. ``no mock matched POST /v1/chat … closest: …``."""
    return explain(request, mocks).text


def no_match_json(request: Request, mocks: Sequence[Mock]) -> dict[str, Any]:
    """The same report as JSON, in the shape of an OpenAI-style error body."""
    return explain(request, mocks).to_json()


def _text(
    request: Request, shown: Sequence[dict[str, Any]], more: Sequence[int], total: int
) -> str:
    target = request.target
    if len(target) > SHOWN_CHARS:
        target = f"{target[:SHOWN_CHARS]}… ({len(target):,} chars)"
    lines = [f"no mock matched {request.method} {target}"]
    if not shown:
        lines.append("  no mocks are registered")
    for i, (entry, hidden) in enumerate(zip(shown, more, strict=True)):
        head = "closest" if i == 0 else "also tried"
        lines.append(f"  {head}: mock {entry['mock']}")
        lines.extend(f"    {_said(d)}" for d in entry["differences"])
        if hidden:
            lines.append(f"    and {hidden} more differences")
        if not entry["differences"]:
            lines.append("    (matches, but has answered all its `times` or `replies`)")
    if total > SHOWN:
        lines.append(f"  and {total - SHOWN} more mocks")
    return "\n".join(lines)


def _line(shown: Sequence[dict[str, Any]]) -> str:
    if not shown:
        return "no mocks"
    entry = shown[0]
    diffs = entry["differences"]
    why = _said(diffs[0]) if diffs else "it has answered all its `times` or `replies`"
    return f"closest: {entry['mock']}, {why}"


def _said(difference: dict[str, Any]) -> str:
    """A difference as the text says it: ``header 'x': got 'a', expected 'b'``."""
    return f"{difference['field']}: {difference['reason']}"


def _request_json(request: Request, redactor: Redactor | None) -> dict[str, Any]:
    found = request.to_dict()
    if redactor is not None:
        found = redactor.request_json(found)
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


def _hidden(difference: dict[str, Any], request: Request, hide: Hide) -> dict[str, Any]:
    """A header's difference with the request's value shown as ``hide`` says."""
    name = _header_name(difference["field"])
    value = None if name is None else request.headers.get(name)
    if name is None or value is None:
        return difference  # not a header, or the header was absent: nothing of it is said
    shown = hide(name, value)
    if shown == value:
        return difference
    reason = str(difference["reason"]).replace(cut(value), cut(shown))
    if _says(reason, value):  # a matcher that words the value its own way
        reason = f"got {cut(shown)}, expected {difference['expected']}"
    return {**difference, "reason": reason, "actual": _bounded(shown)}


def _header_name(label: str, kind: str = "header ") -> str | None:
    """``header 'x-api-key'`` (a ``Mismatch.field``) → ``x-api-key``; None for another field
    (``kind``: ``"query "`` reads a query parameter's label)."""
    if not label.startswith(kind):
        return None
    try:
        name = ast.literal_eval(label[len(kind) :])
    except (ValueError, SyntaxError):
        return None
    return name if isinstance(name, str) else None


def _expected_secrets(shown: Sequence[dict[str, Any]]) -> list[tuple[str, str]]:
    """What the closest mocks expect of a header or query parameter, as ``(name, text)``:
    every text in each matcher (``equal('Bearer sk-…')``), for the redactor to hide the
    secret ones (a mock's own ``Authorization`` is as secret as the request's)."""
    found: list[tuple[str, str]] = []
    for entry in shown:
        for difference in entry["differences"]:
            label = str(difference["field"])
            name = _header_name(label) or _header_name(label, "query ")
            if name is not None:
                found.extend((name, text) for text in _texts(str(difference["expected"])))
    return found


def _texts(expected: str) -> list[str]:
    """The string constants in a matcher's ``repr`` (none when it is not an expression)."""
    try:
        tree = ast.parse(expected, mode="eval")
    except (SyntaxError, ValueError):
        return []
    return [
        n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)
    ]


def _says(text: str, value: str) -> bool:
    """True when ``text`` still holds ``value`` or its part after a scheme (``Bearer …``)."""
    secret = value.partition(" ")[2] or value
    return value[:SHOWN_CHARS] in text or secret[:SHOWN_CHARS] in text
