"""Recordings as a saved journal the dashboard opens (``mockhttp ui``; docs/dashboard.md,
"A recording"): each recorded exchange one call, its writes the stream's timeline.

Rule 1: pure: mock files' mocks in, the journal's JSON out (the keys
``GET /__mockhttp/journal`` gives and the page reads).
Rule 2: a recording keeps the request's matcher, not the request: the call's request is
the mock's method and path, with no headers and no body; the matcher is under
``recording.matcher``, as the mock file says it.
Rule 3: times: a call arrives at ``start`` plus the previous calls' durations (the
recording keeps no clock time); its head came after the recorded ``delay``, each event
when the write holding its first byte came, and the reply ended at the last write.
Rule 4: an exchange the upstream cut is ``closed`` or ``reset``, as the page says of a
cut; a failure before the head (a ``reset`` or ``empty_response`` fault) has no status.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import datetime, timezone
from typing import Any

from .._core._mock import Mock
from .._core._sse_decode import Message, Unterminated, decode
from .._core._timeline import timeline
from .._mockfile._dump import to_dict
from ._pieces import Write
from ._recording import Recording

__all__ = ["event_times", "journal_of"]

_OUTCOMES = {"complete": "complete", "close": "closed", "reset": "reset"}
_BEFORE_HEAD = {"reset()": "reset", "empty_response()": "closed"}  # (the faults' reprs)


def event_times(writes: Sequence[Write]) -> list[float]:
    """When each event of the body began to arrive (seconds after the head): the ``at`` of
    the write that holds its first byte (Rule 3)."""
    ends, total = [], 0
    for write in writes:
        total += len(write.data)
        ends.append(total)
    body = b"".join(w.data for w in writes)
    found = []
    for item in decode(body):
        if isinstance(item, Message | Unterminated):
            offset = item.lines[0].offset if item.lines else 0
            place = next((i for i, end in enumerate(ends) if offset < end), len(writes) - 1)
            found.append(writes[place].at)
    return found


def journal_of(mocks: Sequence[Mock], start: float, files: Sequence[str] = ()) -> dict[str, Any]:
    """The saved journal of ``mocks`` (recordings; other mocks are left out): calls one
    after another from ``start`` (``time.time()``), and the mocks; ``files``: each mock's
    file, shown with it."""
    calls: list[dict[str, Any]] = []
    listed: list[dict[str, Any]] = []
    at = start
    for number, mock in enumerate(mocks, 1):
        reply = mock.response
        if not isinstance(reply, Recording):
            continue
        where = files[number - 1] if number <= len(files) else None
        call = _call(len(calls) + 1, number, mock, reply, at, where)
        calls.append(call)
        listed.append(_mock(number, mock))
        at += (call["duration_ms"] or 0) / 1000 + 0.001
    return {"calls": calls, "mocks": listed}


def _call(
    seq: int, number: int, mock: Mock, reply: Recording, at: float, where: str | None
) -> dict[str, Any]:
    faults = [repr(f) for f in (*reply.faults, *mock.faults)]
    fault = next((f for f in faults if f in _BEFORE_HEAD), None)
    head = reply.head_delay or 0.0
    body = reply.body_bytes
    times = [at + head + t for t in event_times(reply.writes)]
    last = reply.writes[-1].at if reply.writes else 0.0
    end = at + head + last
    outcome = _BEFORE_HEAD[fault] if fault is not None else _OUTCOMES[reply.end]
    stream = reply.is_event_stream
    line = timeline(
        arrived=at,
        event_times=times if stream else ([at + head] if body else None),
        end_time=end,
        outcome=outcome,
        body=body,
        body_bytes=len(body),
    ).to_json()
    return {
        "id": seq,
        "request": _request(mock),
        "mock": number,
        "mock_describe": mock.describe(),
        "status": None if fault is not None else reply.status_code,
        "outcome": outcome,
        "events": len(times) if stream else 0,
        "body_bytes": len(body),
        "time": _iso(at),
        "end_time": _iso(end),
        "duration_ms": round((end - at) * 1000, 1),
        "last_event_id": None,
        "after_cut_ms": None,
        "resumes": None,
        "timeline": line if stream or body else None,
        "recording": {
            "file": where,
            "matcher": _matcher(mock),
            "headers": [list(h) for h in reply.headers],
            "truncated": reply.truncated,
        },
    }


def _request(mock: Mock) -> dict[str, Any]:
    """The request as far as a recording knows it (Rule 2)."""
    return {
        "method": mock.method or "*",
        "path": str(mock.path or "*"),
        "query": {},
        "query_pairs": [],
        "headers": {},
        "header_pairs": [],
        "body": "",
        "body_encoding": "utf-8",
    }


def _matcher(mock: Mock) -> str:
    """The request's matcher, as the mock file says it (one line of JSON)."""
    return json.dumps(to_dict(mock).get("request", {}), ensure_ascii=False)


def _mock(number: int, mock: Mock) -> dict[str, Any]:
    return {
        "id": number,
        "name": mock.name,
        "describe": mock.describe(),
        "call_count": 1,
        "remaining": None,
    }


def _iso(when: float) -> str:
    return datetime.fromtimestamp(when, timezone.utc).isoformat(timespec="milliseconds")
