"""What a mock MCP server keeps in the server's kept state (``_core/_kept.py``), pure.

The keys (under the server's ``state_key``) and their JSON values:

- ``sessions``: ``{"live": [ids, oldest first], "evicted": [ids]}``, the ids of the live
  sessions and of the newest ones ended by the session cap (a 404 then says why);
- ``s:<id>``: one session's record (:func:`record`): revision, the client's
  capabilities, ``initialized``, ``subscriptions``, ``level``/``logs``, ``asked`` (the
  mock's last request id), ``streams`` (how many streams it has: 0 is its GET stream,
  1, 2, ... its POST answers) and ``resume`` (stream -> the method fault cutting its
  resumption);
- ``st:<id>:<n>``: the messages of POST stream ``n`` (None: a priming event), for
  ``Last-Event-ID``;
- ``n:<key>``: how many times a script place was counted (a tool's answers, a method
  fault's calls); ``counted`` lists those keys (so that a reset finds them).

Rule 1: every function here is a change for ``Kept.update`` (``old -> (new, result)``):
pure, no clock, no random (a new session's id is drawn before, and passed in).
Rule 2: a change of a session that is gone (record None) keeps it gone and returns None.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

__all__ = [
    "COUNTED",
    "INDEX",
    "appended",
    "asked",
    "count_key",
    "counted",
    "ended",
    "initialized",
    "leveled",
    "listed",
    "opened",
    "record",
    "record_key",
    "stream_key",
    "streamed",
    "subscribed",
]

INDEX = "sessions"
COUNTED = "counted"

Record = dict[str, Any]
Change = Callable[[Any], tuple[Any, Any]]


def record_key(session_id: str) -> str:
    return "s:" + session_id


def stream_key(session_id: str, number: int) -> str:
    return f"st:{session_id}:{number}"


def count_key(key: Sequence[Any]) -> str:
    """The key of a script place (a tuple of JSON values)."""
    return "n:" + json.dumps(list(key), separators=(",", ":"))


def record(revision: str, capabilities: dict[str, Any] | None = None) -> Record:
    """A new session's record at ``revision`` (the client declared ``capabilities``)."""
    return {
        "revision": revision,
        "capabilities": dict(capabilities or {}),
        "initialized": False,
        "subscriptions": [],
        "level": None,
        "logs": True,
        "asked": 0,
        "streams": 1,
        "resume": {},
    }


def opened(session_id: str, cap: int) -> Change:
    """The index with ``session_id`` the newest live session; with ``cap`` sessions live
    already (0: no cap), the oldest end: result, the ids that ended (the newest ``cap``
    such ids are kept as ``evicted``)."""

    def change(index: Any) -> tuple[Any, list[str]]:
        live = list(index["live"]) if index else []
        evicted = list(index["evicted"]) if index else []
        gone = live[: max(0, len(live) - cap + 1)] if cap else []
        evicted = [*evicted, *gone][-max(cap, 1) :]
        return {"live": [*live[len(gone) :], session_id], "evicted": evicted}, gone

    return change


def ended(session_id: str | None) -> Change:
    """The index without ``session_id`` (None: without any live session): result, the
    ids that ended."""

    def change(index: Any) -> tuple[Any, list[str]]:
        if not index:
            return index, []
        live = index["live"]
        gone = [s for s in live if session_id is None or s == session_id]
        return {"live": [s for s in live if s not in gone], "evicted": index["evicted"]}, gone

    return change


def _of_record(edit: Callable[[Record], Any]) -> Change:
    """A change of a session's record by ``edit`` (on a copy; its return is the result);
    a gone record stays gone (Rule 2)."""

    def change(old: Any) -> tuple[Any, Any]:
        if old is None:
            return None, None
        new = dict(old)
        return new, edit(new)

    return change


def initialized(session_record: Any) -> tuple[Any, None]:
    """``notifications/initialized`` came."""
    return _of_record(lambda r: r.__setitem__("initialized", True))(session_record)


def subscribed(uri: str, on: bool) -> Change:
    """``resources/subscribe`` (``on``) or ``resources/unsubscribe`` of ``uri``."""

    def edit(r: Record) -> None:
        rest = [u for u in r["subscriptions"] if u != uri]
        r["subscriptions"] = [*rest, uri] if on else rest

    return _of_record(edit)


def leveled(level: str) -> Change:
    """``logging/setLevel``: log messages from ``level`` on."""
    return _of_record(lambda r: r.update(level=level, logs=True))


def asked(session_record: Any) -> tuple[Any, int | None]:
    """The mock asks the client: result, its request's id (1, 2, ... in a session)."""

    def edit(r: Record) -> int:
        r["asked"] += 1
        return int(r["asked"])

    return _of_record(edit)(session_record)


def streamed(fault: int | None) -> Change:
    """A new POST stream (its resumption cut by method fault ``fault``, if any): result,
    its number."""

    def edit(r: Record) -> int:
        number = int(r["streams"])
        r["streams"] = number + 1
        if fault is not None:
            r["resume"] = {**r["resume"], str(number): fault}
        return number

    return _of_record(edit)


def appended(message: Any) -> Change:
    """A stream's messages with ``message`` last: result, its index (None: no such
    stream, and none made)."""

    def change(messages: Any) -> tuple[Any, int | None]:
        if messages is None:
            return None, None
        return [*messages, message], len(messages)

    return change


def counted(n: Any) -> tuple[int, int]:
    """One more count: result, how many were counted before."""
    before = n or 0
    return before + 1, before


def listed(key: str) -> Change:
    """The list of count keys with ``key`` in it."""

    def change(keys: Any) -> tuple[list[str], None]:
        keys = list(keys or ())
        return (keys if key in keys else [*keys, key]), None

    return change
