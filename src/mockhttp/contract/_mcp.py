"""mcp: rules for an MCP Streamable HTTP exchange, read from the wire alone.

One exchange is one POST: its JSON-RPC body (the transcript's ``request``: a message or,
in revision 2025-03-26, a batch) and the answer, ``application/json`` (one message or a
batch's array) or ``text/event-stream`` (events of type ``message`` whose data is one
JSON-RPC message each; an event with an id and no data primes a stream for resumption).
A POST of notifications or responses only gets ``202 Accepted`` without a body.

Rule 1: this module knows MCP from its specification only; it imports nothing from
``mockhttp.mcp`` (the mock is checked like any other server).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from .._core._sse_decode import Message
from ._rule import Hit, Rule, hit, short
from ._stream import Stream

__all__ = ["MCP", "is_mcp"]

_SESSION = "mcp-session-id"
_Located = tuple[Message | None, Any]  # a JSON-RPC message and the event it came in


def is_mcp(value: Any) -> bool:
    """True for a JSON-RPC 2.0 message, or a batch of them (what MCP sends)."""
    items = value if isinstance(value, list) and value else [value]
    return all(isinstance(m, dict) and m.get("jsonrpc") == "2.0" for m in items)


def _is_sse(stream: Stream) -> bool:
    return stream.is_event_stream or (not stream.content_type and bool(stream.messages))


def _answered(stream: Stream) -> bool:
    """Whether there is an answer to read: status 200 (202 has no body to check)."""
    return stream.transcript.status == 200


def _located(stream: Stream) -> list[_Located]:
    """The answer's JSON-RPC messages with their events (None: a JSON body), once."""
    if "mcp" not in stream.memo:
        found: list[_Located] = []
        if _is_sse(stream):
            found = [(p.message, p.value) for p in stream.payloads if p.message.data]
        else:
            try:
                body = json.loads(stream.transcript.body)
            except (ValueError, RecursionError):
                body = None
            found = [(None, m) for m in (body if isinstance(body, list) else [body])]
        stream.memo["mcp"] = found
    located: list[_Located] = stream.memo["mcp"]
    return located


def _at(message: Message | None, text: str) -> Hit:
    return Hit(text) if message is None else hit(message, text)


def _requests(request: Any) -> list[dict[str, Any]]:
    items = request if isinstance(request, list) else [request]
    return [m for m in items if isinstance(m, dict) and "method" in m and "id" in m]


def _is_response(value: Any) -> bool:
    return isinstance(value, dict) and "method" not in value and "id" in value


# -- the rules ---------------------------------------------------------------------------


def _framing(stream: Stream) -> Iterator[Hit]:
    if not _answered(stream):
        return
    if not (_is_sse(stream) or stream.content_type == "application/json"):
        yield Hit(f"the answer is {stream.content_type or 'untyped'}: MCP answers a request "
                  "with application/json or text/event-stream")  # fmt: skip
        return
    for message in stream.messages if _is_sse(stream) else ():
        if message.event != "message":
            yield hit(message, f"event type {short(message.event)}, expected message")
        if not message.data and not message.id:
            yield hit(message, "an event without data and without id (a priming event has an id)")
    if stream.tail is not None and _is_sse(stream):
        yield Hit("the stream ends inside an event (no blank line after its last line)")
    for where, value in _located(stream):
        problem = _shape(value)
        if problem:
            yield _at(where, problem)


def _shape(value: Any) -> str | None:
    """What is wrong with one message's JSON-RPC 2.0 shape, or None."""
    if not isinstance(value, dict):
        return f"data is not a JSON-RPC message: {short(value)}"
    if value.get("jsonrpc") != "2.0":
        return f'jsonrpc was {short(value.get("jsonrpc"))}, expected "2.0"'
    if "method" in value:
        return None if isinstance(value["method"], str) else "method is not a string"
    if ("result" in value) == ("error" in value):
        return "a response has exactly one of result and error"
    if "error" in value:
        err = value["error"]
        if not (isinstance(err, dict) and isinstance(err.get("code"), int)):
            return f"error was {short(err)}, expected {{code: int, message: text}}"
    return None


def _answered_once(stream: Stream) -> Iterator[Hit]:
    if not _answered(stream):
        return
    asked = {_key(m["id"]): m["method"] for m in _requests(stream.transcript.request)}
    seen: set[str] = set()
    for where, value in _located(stream):
        if not _is_response(value):
            continue
        key = _key(value["id"])
        if key in seen:
            yield _at(where, f"a second response to id {key}: each request is answered once")
        elif stream.transcript.request is not None and key not in asked:
            known = ", ".join(asked) or "none"
            yield _at(where, f"a response with id {key}, which no request had (asked: {known})")
        seen.add(key)
    if (stream.tail is None or not _is_sse(stream)) and stream.transcript.error is None:
        for key, method in asked.items():
            if key not in seen:
                yield Hit(f"request id {key} ({method}) got no response")


def _key(id_: Any) -> str:
    return short(id_)


def _notification_ids(stream: Stream) -> Iterator[Hit]:
    if not _answered(stream):
        return
    for where, value in _located(stream):
        method = str(value.get("method", "")) if isinstance(value, dict) else ""
        if method.startswith("notifications/") and "id" in value:
            yield _at(where, f"notification {value['method']} carries id {short(value['id'])}")


def _response_last(stream: Stream) -> Iterator[Hit]:
    if not (_answered(stream) and _is_sse(stream)):
        return
    asked = {_key(m["id"]) for m in _requests(stream.transcript.request)}
    answered: set[str] = set()
    for where, value in _located(stream):
        if asked and answered >= asked:
            yield _at(where, "a message after the last response: the stream should end there")
            return
        if _is_response(value):
            answered.add(_key(value["id"]))


def _session_header(stream: Stream) -> Iterator[Hit]:
    transcript = stream.transcript
    request = transcript.request
    session = transcript.header(_SESSION)
    initialize = isinstance(request, dict) and request.get("method") == "initialize"
    if isinstance(request, list) and any(
        isinstance(m, dict) and m.get("method") == "initialize" for m in request
    ):
        yield Hit("initialize inside a batch: it must be sent on its own")
    if session is None:
        return
    if not session or any(not 0x21 <= ord(c) <= 0x7E for c in session):
        yield Hit(f"Mcp-Session-Id {short(session)} has characters outside visible ASCII "
                  "[server-session-id-visible-ascii]")  # fmt: skip
    status = transcript.status or 0
    if initialize or request is None or not 200 <= status < 300 or not transcript.request_headers:
        return  # issued on initialize; an error answer issues nothing; the request unknown
    sent = transcript.request_header(_SESSION)
    if sent != session:
        carried = "none" if sent is None else short(sent)
        yield Hit(f"Mcp-Session-Id {short(session)} on an answer to {short(_method(request))}, "
                  f"whose request carried {carried}: a session is issued on initialize, and "
                  "later answers may only repeat it")  # fmt: skip


def _method(request: Any) -> Any:
    return request.get("method") if isinstance(request, dict) else "a batch"


def _event_ids(stream: Stream) -> Iterator[Hit]:
    if not (_answered(stream) and _is_sse(stream)):
        return
    seen: set[str] = set()
    for message in stream.messages:
        if any(line.raw.split(b":", 1)[0] == b"id" for line in message.lines):
            if message.id in seen:
                yield hit(message, f"event id {short(message.id)} again: a resumed stream "
                          "would replay from the wrong place")  # fmt: skip
            seen.add(message.id)


_RESUME = "resumption after Last-Event-ID"

MCP: tuple[Rule, ...] = (
    Rule("mcp.framing", "violation",
         "A request's answer is application/json or text/event-stream; each SSE event is "
         "of type message with one JSON-RPC 2.0 message as data (or an id and no data: a "
         "priming event); each message has jsonrpc 2.0 and a method, or exactly one of "
         "result and error.",
         "SDK clients parse each event's data as one JSON-RPC message and drop or fail on "
         "anything else.", "none known", _framing, always=True),
    Rule("mcp.answered-once", "violation",
         "Every request of the POST is answered exactly once, with its own id; no response "
         "carries an id no request had.",
         "Clients match responses to requests by id: a wrong id leaves the call waiting, a "
         "second answer is dropped or raises.", "none known", _answered_once, always=True),
    Rule("mcp.notification-id", "violation",
         "A notification (a notifications/* method) carries no id.",
         "A message with an id is a request the client must answer; a notification with "
         "one is answered, or refused, as if it were.", "none known", _notification_ids,
         always=True),
    Rule("mcp.response-last", "warning",
         "An SSE answer ends after the response to the last request it answers.",
         "The spec says the server should close the stream then; clients wait for its end.",
         "none known", _response_last, always=True),
    Rule("mcp.session", "violation",
         "Mcp-Session-Id is issued on the answer to initialize, as visible ASCII "
         "(suite: server-session-id-visible-ascii); a later answer may repeat the id its "
         "request carried (FastMCP does, on every answer) but not issue another; initialize "
         "is never inside a batch.",
         "Clients keep the id from initialize and send it on every later request; a new one "
         "later is ignored or splits the session.", "none known", _session_header,
         always=True),
    Rule("mcp.event-ids", "violation",
         "The event ids of an SSE answer are unique in it (they are the cursors of "
         f"{_RESUME}).",
         "A client that reconnects sends the last id it saw; a repeated id makes the server "
         "replay from the wrong place.", "none known", _event_ids, always=True),
)  # fmt: skip
"""The ``mcp`` profile's rules (docs/contract.md is generated from them)."""
