"""The admin API of pushed streams: push, close and list them over HTTP (any language).

=======  =====================================  ===========================================
method   path                                   what it does
=======  =====================================  ===========================================
POST     /__mockhttp/mocks/{ref}/push           send ``{"events": [{"data": ...}, ...]}``
                                                to every open stream (``"stream": N``: the
                                                N-th only); answers ``{"count": streams}``
POST     /__mockhttp/mocks/{ref}/close          end every open stream (``"stream": N``:
                                                one); answers ``{"count": streams}``
GET      /__mockhttp/mocks/{ref}/streams        the streams: ``{"calls": [{"stream": N,
                                                "open", "pushed", "delivered", ...}]}``
=======  =====================================  ===========================================

Each function takes the mock's handle and the request, and returns the status and the
JSON answer (``_admin.py`` wraps them).  Under ``--workers`` the supervisor sends every
admin request to every worker, so a push reaches the stream in whichever worker holds
it: ``count`` is summed, and ``calls`` joined, each tagged with its ``worker``.
"""

from __future__ import annotations

import json
from datetime import datetime, timezone
from typing import Any

from .._core._errors import ConfigError
from .._core._request import Request
from .._core._sse import Event
from ._push import PushedStream
from ._verify import ActiveMock

__all__ = ["close", "push", "streams"]

_EVENT_KEYS = ("comment", "data", "event", "id", "retry")
Answer = tuple[int, dict[str, Any]]


def push(active: ActiveMock, request: Request) -> Answer:
    """``POST .../push``: the events of the body to the mock's streams (or one)."""
    try:
        body = _body(request)
        events = _events(body.get("events"))
        one = _stream_of(active, body)
        if one is None:
            return 200, {"count": active.push(*events)}
        one.push(*events)
    except ConfigError as exc:
        return _bad(exc)
    return 200, {"count": 1}


def close(active: ActiveMock, request: Request) -> Answer:
    """``POST .../close``: end the mock's open streams (or one)."""
    try:
        body = _body(request)
        one = _stream_of(active, body)
        if one is None:
            return 200, {"count": active.close()}
    except ConfigError as exc:
        return _bad(exc)
    was_open = one.open
    one.close()
    return 200, {"count": int(was_open)}


def streams(active: ActiveMock, request: Request) -> Answer:
    """``GET .../streams``: every stream the mock opened, with what it was pushed and
    what its client was delivered."""
    try:
        active._pushed("streams")
    except ConfigError as exc:
        return _bad(exc)
    return 200, {"calls": [_stream_json(s) for s in active.streams]}


def _stream_json(stream: PushedStream) -> dict[str, Any]:
    call = stream.call
    return {
        "stream": stream.number,
        "open": stream.open,
        "outcome": call.outcome,
        "last_event_id": call.last_event_id,
        "pushed": [_event_json(e) for e in stream.pushed],
        "delivered": [{"data": m.data, "event": m.event, "id": m.id} for m in stream.delivered],
        "time": datetime.fromtimestamp(call.time, timezone.utc).isoformat(timespec="milliseconds"),
    }


def _event_json(event: Event) -> dict[str, Any]:
    values = {k: getattr(event, k) for k in _EVENT_KEYS}
    return {k: v for k, v in values.items() if v is not None}


def _body(request: Request) -> dict[str, Any]:
    if not request.body.strip():
        return {}
    try:
        value = json.loads(request.body)
    except ValueError as exc:
        raise ConfigError(f"the body is not JSON ({exc})") from None
    if not isinstance(value, dict):
        raise ConfigError(f'the body is {type(value).__name__}, expected {{"events": [...]}}')
    unknown = sorted(set(value) - {"events", "stream"})
    if unknown:
        raise ConfigError(f"unknown key {unknown[0]!r}; expected events, stream")
    return value


def _events(value: Any) -> list[Event]:
    if not isinstance(value, list) or not value:
        raise ConfigError('"events" must be a non-empty list such as [{"data": "hi"}]')
    events = []
    for i, item in enumerate(value):
        if not isinstance(item, dict):
            raise ConfigError(f'events[{i}]={item!r} must be an object such as {{"data": "hi"}}')
        unknown = sorted(set(item) - set(_EVENT_KEYS))
        if unknown:
            raise ConfigError(
                f"events[{i}]: unknown key {unknown[0]!r}; expected one of {', '.join(_EVENT_KEYS)}"
            )
        try:
            events.append(Event(**item))
        except (ConfigError, TypeError) as exc:
            raise ConfigError(f"events[{i}]: {exc}") from None
    return events


def _stream_of(active: ActiveMock, body: dict[str, Any]) -> PushedStream | None:
    active._pushed("push")
    number = body.get("stream")
    if number is None:
        return None
    found = active.streams
    if type(number) is not int or not 1 <= number <= len(found):
        raise ConfigError(
            f'"stream": {number!r} must be a stream number from 1 to {len(found)} '
            f"(GET .../streams lists them)"
        )
    return found[number - 1]


def _bad(exc: ConfigError) -> Answer:
    return 400, {"error": {"type": "push_error", "message": str(exc)}}
