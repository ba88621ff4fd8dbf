"""The ``ag-ui`` profile: an AG-UI run's event stream, as its clients read it.

Each ``data:`` is one event, a JSON object whose ``type`` names it (``RUN_STARTED``,
``TEXT_MESSAGE_CONTENT`` ...) and whose fields are camelCase.  The rules follow what the
protocol's clients verify as they apply events: the run starts first, messages, tool
calls, reasoning and steps open before their content and close before the run finishes,
and exactly one terminal event (``RUN_FINISHED`` or ``RUN_ERROR``) ends the stream.

Rule 1: ``EVENT_FIELDS`` is the protocol's table of required fields (the ``ag-ui-protocol``
package's event models, 1.0); tests/contract/test_agui.py checks it against those models.
Rule 2: a stream that stops without a terminal event is the failure a client cannot tell
from a network fault: it is reported as such (``ag-ui.run-error``), apart from a second
terminal event or events after it (``ag-ui.terminal``).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from .._core._sse_decode import Message
from ._rule import Hit, Rule, hit, short
from ._stream import Stream

__all__ = ["AG_UI", "EVENT_FIELDS", "TERMINAL"]

_TEXT, _ANY, _LIST, _OBJECT, _CONTENT = "text", "any", "list", "object", "text or list"
EVENT_FIELDS: dict[str, tuple[tuple[str, str], ...]] = {
    "RUN_STARTED": (("threadId", _TEXT), ("runId", _TEXT)),
    "RUN_FINISHED": (("threadId", _TEXT), ("runId", _TEXT)),
    "RUN_ERROR": (("message", _TEXT),),
    "STEP_STARTED": (("stepName", _TEXT),),
    "STEP_FINISHED": (("stepName", _TEXT),),
    "TEXT_MESSAGE_START": (("messageId", _TEXT),),
    "TEXT_MESSAGE_CONTENT": (("messageId", _TEXT), ("delta", _TEXT)),
    "TEXT_MESSAGE_END": (("messageId", _TEXT),),
    "TEXT_MESSAGE_CHUNK": (),
    "TOOL_CALL_START": (("toolCallId", _TEXT), ("toolCallName", _TEXT)),
    "TOOL_CALL_ARGS": (("toolCallId", _TEXT), ("delta", _TEXT)),
    "TOOL_CALL_END": (("toolCallId", _TEXT),),
    "TOOL_CALL_CHUNK": (),
    "TOOL_CALL_RESULT": (("messageId", _TEXT), ("toolCallId", _TEXT), ("content", _CONTENT)),
    "STATE_SNAPSHOT": (("snapshot", _ANY),),
    "STATE_DELTA": (("delta", _LIST),),
    "MESSAGES_SNAPSHOT": (("messages", _LIST),),
    "ACTIVITY_SNAPSHOT": (("messageId", _TEXT), ("activityType", _TEXT), ("content", _OBJECT)),
    "ACTIVITY_DELTA": (("messageId", _TEXT), ("activityType", _TEXT), ("patch", _LIST)),
    "RAW": (("event", _ANY),),
    "CUSTOM": (("name", _TEXT), ("value", _ANY)),
    "REASONING_START": (("messageId", _TEXT),),
    "REASONING_MESSAGE_START": (("messageId", _TEXT),),
    "REASONING_MESSAGE_CONTENT": (("messageId", _TEXT), ("delta", _TEXT)),
    "REASONING_MESSAGE_END": (("messageId", _TEXT),),
    "REASONING_MESSAGE_CHUNK": (),
    "REASONING_END": (("messageId", _TEXT),),
    "REASONING_ENCRYPTED_VALUE": (
        ("subtype", _TEXT),
        ("entityId", _TEXT),
        ("encryptedValue", _TEXT),
    ),
    "SUBAGENT_STARTED": (("subagentRunId", _TEXT), ("name", _TEXT)),
    "SUBAGENT_FINISHED": (("subagentRunId", _TEXT),),
    "SUBAGENT_ERROR": (("subagentRunId", _TEXT), ("message", _TEXT)),
}
"""Each event type's required fields and their JSON kind."""
TERMINAL = ("RUN_FINISHED", "RUN_ERROR")
_SNAKE = re.compile(r"^[a-z]+(_[a-z]+)+$")
_OPS = ("add", "remove", "replace", "move", "copy", "test")
_POINTER = re.compile(r"^(/([^/~]|~[01])*)*$")

Event = tuple[Message, str, dict[str, Any]]


def events(stream: Stream) -> list[Event]:
    """The events whose data is a JSON object with a text ``type`` (memoised)."""
    found = stream.memo.get("ag-ui")
    if found is None:
        found = [
            (p.message, p.obj["type"], p.obj)
            for p in stream.payloads
            if p.obj is not None and isinstance(p.obj.get("type"), str)
        ]
        stream.memo["ag-ui"] = found
    return found


def _json(stream: Stream) -> Iterator[Hit]:
    for p in stream.payloads:
        kind = p.obj.get("type") if p.obj is not None else None
        if not isinstance(kind, str):
            yield hit(p.message, f"data is not a JSON object with a type: {short(p.message.data)}")
        elif kind not in EVENT_FIELDS:
            yield hit(p.message, f"type {short(kind)} is not an AG-UI event type")


def _kind_ok(value: Any, kind: str) -> bool:
    if kind == _TEXT:
        return isinstance(value, str)
    if kind == _LIST:
        return isinstance(value, list)
    if kind == _OBJECT:
        return isinstance(value, dict)
    if kind == _CONTENT:
        return isinstance(value, str | list)
    return True


def _fields(stream: Stream) -> Iterator[Hit]:
    for message, kind, data in events(stream):
        for name, want in EVENT_FIELDS.get(kind, ()):
            if name not in data:
                snake = re.sub(r"([A-Z])", lambda m: "_" + m.group(1).lower(), name)
                also = f" (it has {snake}: AG-UI names are camelCase)" if snake in data else ""
                yield hit(message, f"{kind} has no {name}{also}")
            elif not _kind_ok(data[name], want):
                yield hit(message, f"{kind}.{name} is {short(data[name])}, expected {want}")
        snake_keys = [k for k in data if _SNAKE.match(k)]
        if snake_keys and kind in EVENT_FIELDS:
            yield hit(message, f"{kind} has the snake_case key {short(snake_keys[0])}; AG-UI "
                      "names are camelCase")  # fmt: skip


def _run_started(stream: Stream) -> Iterator[Hit]:
    found = events(stream)
    if not found:
        if stream.messages:
            yield hit(stream.messages[0], "no AG-UI event in the stream")
        return
    message, kind, _ = found[0]
    if kind != "RUN_STARTED":
        yield hit(message, f"the first event is {kind}, expected RUN_STARTED")
    for message, kind, _ in found[1:]:
        if kind == "RUN_STARTED":
            yield hit(message, "a second RUN_STARTED in one run's stream")
            return


def _terminal(stream: Stream) -> Iterator[Hit]:
    found = events(stream)
    ends = [i for i, (_, kind, _) in enumerate(found) if kind in TERMINAL]
    if len(ends) > 1:
        message, kind, _ = found[ends[1]]
        yield hit(message, f"a second terminal event ({kind}) after {found[ends[0]][1]}")
    elif ends and ends[0] != len(found) - 1:
        message, kind, _ = found[ends[0] + 1]
        yield hit(message, f"{kind} after {found[ends[0]][1]}: the run had ended")


def _run_error(stream: Stream) -> Iterator[Hit]:
    found = events(stream)
    if any(kind in TERMINAL for _, kind, _ in found):
        return
    last = f"after {found[-1][1]} (event {found[-1][0].index})" if found else "before any event"
    cut = stream.transcript.error
    how = f"the connection failed ({cut})" if cut else "the stream ended"
    yield Hit(
        f"{how} {last} without RUN_FINISHED or RUN_ERROR: a client cannot tell a failed run "
        "from a network fault; an error must be sent as RUN_ERROR"
    )


def _pairs(
    stream: Stream, opens: str, inside: tuple[str, ...], closes: str, key: str, noun: str
) -> Iterator[Hit]:
    """Hits for events of one kind of span (message, tool call, step) out of order; a
    span still open at RUN_FINISHED (open at RUN_ERROR or a cut is no finding here)."""
    open_: dict[Any, Message] = {}
    for message, kind, data in events(stream):
        ident = data.get(key)
        if kind == opens:
            if ident in open_:
                yield hit(message, f"{opens} for {noun} {short(ident)}, already open")
            open_[ident] = message
        elif kind in (*inside, closes) and ident not in open_:
            yield hit(message, f"{kind} for {noun} {short(ident)}, which is not open")
        elif kind == closes:
            del open_[ident]
        elif kind == "RUN_FINISHED":
            for ident, at in open_.items():
                yield hit(at, f"{noun} {short(ident)} is never closed with {closes}")
            open_.clear()


def _text_pairs(stream: Stream) -> Iterator[Hit]:
    return _pairs(
        stream,
        "TEXT_MESSAGE_START",
        ("TEXT_MESSAGE_CONTENT",),
        "TEXT_MESSAGE_END",
        "messageId",
        "message",
    )


def _tool_pairs(stream: Stream) -> Iterator[Hit]:
    yield from _pairs(
        stream, "TOOL_CALL_START", ("TOOL_CALL_ARGS",), "TOOL_CALL_END", "toolCallId", "tool call"
    )
    started = {d.get("toolCallId") for _, k, d in events(stream) if k == "TOOL_CALL_START"}
    for message, kind, data in events(stream):
        if kind == "TOOL_CALL_RESULT" and data.get("toolCallId") not in started:
            yield hit(message, f"TOOL_CALL_RESULT for tool call {short(data.get('toolCallId'))}, "
                      "which never started")  # fmt: skip


def _reasoning_pairs(stream: Stream) -> Iterator[Hit]:
    yield from _pairs(
        stream,
        "REASONING_MESSAGE_START",
        ("REASONING_MESSAGE_CONTENT",),
        "REASONING_MESSAGE_END",
        "messageId",
        "reasoning message",
    )
    yield from _pairs(stream, "REASONING_START", (), "REASONING_END", "messageId", "reasoning")


def _step_pairs(stream: Stream) -> Iterator[Hit]:
    return _pairs(stream, "STEP_STARTED", (), "STEP_FINISHED", "stepName", "step")


def _run_ids(stream: Stream) -> Iterator[Hit]:
    found = events(stream)
    started = next(((m, d) for m, k, d in found if k == "RUN_STARTED"), None)
    if started is None:
        return
    message, data = started
    sent = stream.transcript.request
    if isinstance(sent, dict):
        for key in ("threadId", "runId"):
            if isinstance(sent.get(key), str) and data.get(key) != sent[key]:
                yield hit(message, f"RUN_STARTED.{key} is {short(data.get(key))}, but the "
                          f"request's RunAgentInput sent {short(sent[key])}")  # fmt: skip
    for m, kind, d in found:
        if kind == "RUN_FINISHED":
            for key in ("threadId", "runId"):
                if d.get(key) != data.get(key):
                    yield hit(m, f"RUN_FINISHED.{key} is {short(d.get(key))}, RUN_STARTED's "
                              f"was {short(data.get(key))}")  # fmt: skip


def _state_delta(stream: Stream) -> Iterator[Hit]:
    for message, kind, data in events(stream):
        if kind != "STATE_DELTA" or not isinstance(data.get("delta"), list):
            continue
        for i, op in enumerate(data["delta"]):
            problem = _patch_problem(op)
            if problem:
                yield hit(message, f"STATE_DELTA.delta[{i}] {problem}: {short(op)}")
                break


def _patch_problem(op: Any) -> str | None:
    if not isinstance(op, dict):
        return "is not a JSON Patch operation (an object)"
    if op.get("op") not in _OPS:
        return f"has op {short(op.get('op'))}, not one of {', '.join(_OPS)}"
    keys = ("path", "from") if op["op"] in ("move", "copy") else ("path",)
    for key in keys:
        if not isinstance(op.get(key), str) or not _POINTER.match(op[key]):
            return f"has {key} {short(op.get(key))}, not a JSON pointer"
    if op["op"] in ("add", "replace", "test") and "value" not in op:
        return f"is a {op['op']} without a value"
    return None


def _tool_args_json(stream: Stream) -> Iterator[Hit]:
    import json

    args: dict[Any, list[str]] = {}
    for message, kind, data in events(stream):
        if kind == "TOOL_CALL_ARGS" and isinstance(data.get("delta"), str):
            args.setdefault(data.get("toolCallId"), []).append(data["delta"])
        elif kind == "TOOL_CALL_END" and data.get("toolCallId") in args:
            text = "".join(args.pop(data.get("toolCallId")))
            try:
                json.loads(text)
            except ValueError:
                yield hit(message, f"tool call {short(data.get('toolCallId'))}'s arguments "
                          f"are not JSON: {short(text)}")  # fmt: skip


_VERIFY = "The protocol's clients verify the order of events as they apply them"
AG_UI = (
    Rule(
        "ag-ui.event",
        "violation",
        "Each data: is a JSON object whose type is an AG-UI event type.",
        "Clients parse each event by its type; an unknown or missing type fails the run.",
        "None known.",
        _json,
    ),
    Rule(
        "ag-ui.fields",
        "violation",
        "Each event has its type's required fields, camelCase, of the right JSON kind "
        "(threadId, runId, messageId, toolCallId, delta ...).",
        "The clients validate each event against the protocol's schema; a snake_case "
        "message_id or a missing delta is a validation error, not a field left empty.",
        "Hand-written servers that serialise Python models without aliases (snake_case).",
        _fields,
    ),
    Rule(
        "ag-ui.run-started",
        "violation",
        "The first event is RUN_STARTED, and it comes once.",
        f"{_VERIFY}: an event before RUN_STARTED is an error.",
        "None known.",
        _run_started,
    ),
    Rule(
        "ag-ui.terminal",
        "violation",
        "At most one terminal event (RUN_FINISHED or RUN_ERROR), and nothing after it.",
        f"{_VERIFY}: an event after the run ended (a second RUN_FINISHED too) is an error.",
        "Servers that send RUN_ERROR and then RUN_FINISHED from a finally block.",
        _terminal,
    ),
    Rule(
        "ag-ui.run-error",
        "violation",
        "The stream ends with a terminal event: a failed run sends RUN_ERROR, it does not "
        "drop the connection.",
        "A stream that stops without RUN_FINISHED or RUN_ERROR looks like a network fault: "
        "the client cannot show the run's error, and may retry a run that did fail.",
        "Servers whose exception escapes the stream generator.",
        _run_error,
    ),
    Rule(
        "ag-ui.text-pairing",
        "violation",
        "TEXT_MESSAGE_CONTENT and TEXT_MESSAGE_END follow a TEXT_MESSAGE_START of their "
        "messageId, and every message started is ended before RUN_FINISHED.",
        f"{_VERIFY}: content for a message that is not open is an error.",
        "None known.",
        _text_pairs,
    ),
    Rule(
        "ag-ui.tool-call-pairing",
        "violation",
        "TOOL_CALL_ARGS and TOOL_CALL_END follow a TOOL_CALL_START of their toolCallId, every "
        "call started is ended before RUN_FINISHED, and a TOOL_CALL_RESULT names a call "
        "that started.",
        f"{_VERIFY}: arguments for a call that is not open are an error.",
        "None known.",
        _tool_pairs,
    ),
    Rule(
        "ag-ui.reasoning-pairing",
        "violation",
        "Reasoning messages open, stream and close in order, like text messages.",
        f"{_VERIFY}.",
        "None known.",
        _reasoning_pairs,
    ),
    Rule(
        "ag-ui.step-pairing",
        "violation",
        "STEP_FINISHED follows a STEP_STARTED of its stepName, and every step started "
        "finishes before RUN_FINISHED.",
        f"{_VERIFY}: finishing a step that never started is an error.",
        "None known.",
        _step_pairs,
    ),
    Rule(
        "ag-ui.run-ids",
        "violation",
        "RUN_STARTED echoes the RunAgentInput's threadId and runId (when the request is "
        "known), and RUN_FINISHED repeats RUN_STARTED's.",
        "Clients key threads and runs by these ids; a run that renames itself is a new run.",
        "None known.",
        _run_ids,
    ),
    Rule(
        "ag-ui.state-delta",
        "violation",
        "STATE_DELTA's delta is a list of JSON Patch operations (RFC 6902): a known op and "
        "JSON pointer paths.",
        "Clients apply the patch to their copy of the state; a bad operation fails the run.",
        "None known.",
        _state_delta,
    ),
    Rule(
        "ag-ui.tool-args",
        "warning",
        "A tool call's TOOL_CALL_ARGS deltas join into JSON text.",
        "The protocol carries arguments as text, but front ends parse them to show or run "
        "the call.",
        "None known.",
        _tool_args_json,
    ),
)
