"""The ``ag-ui`` profile: an AG-UI event stream, judged as ``@ag-ui/client`` 1.0 judges it.

Each ``data:`` is one event, a JSON object whose ``type`` names it (``RUN_STARTED``,
``TEXT_MESSAGE_CONTENT`` ...) and whose fields are camelCase. The referee is the protocol's
TypeScript client: its schema check (``_agui_schema``) and its ``verifyEvents``
(``_agui_verify``), which starts over at each ``RUN_STARTED`` after a run ended, so one
stream may carry several runs, ``RUN_ERROR`` may come first or after ``RUN_FINISHED``, and
ids are per run. What that client accepts, this profile does not report as a violation
(scripts/agui_differential.py holds it to that); what the client drops or repairs with a
warning (an unknown event type, a snake_case key, an unknown JSON Patch op) is a warning.

``AG_UI_STRICT`` (the ``ag-ui-strict`` profile) adds rules beyond the reference client:
one run per stream, ids echoed, a stream that ends inside a run, a tool result for a call
never made.

Rule 1: ``EVENT_FIELDS`` is the protocol's table of required fields (the ``ag-ui-protocol``
package's event models, 1.0); tests/contract/test_agui.py checks it against those models.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

from .._core._sse_decode import Message
from ._agui_schema import EVENT_SCHEMAS
from ._agui_verify import walk
from ._rule import Hit, Rule, hit, short
from ._stream import Stream

__all__ = ["AG_UI", "AG_UI_STRICT", "EVENT_FIELDS", "TERMINAL"]

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

Event = tuple[Message, str, dict[str, Any]]


def events(stream: Stream) -> list[Event]:
    """The events of a type the client knows, as sent (memoised)."""
    found = stream.memo.get("ag-ui")
    if found is None:
        found = [
            (p.message, p.obj["type"], p.obj)
            for p in stream.payloads
            if p.obj is not None and p.obj.get("type") in EVENT_SCHEMAS
        ]
        stream.memo["ag-ui"] = found
    return found


def _walked(rule: str) -> Callable[[Stream], Iterator[Hit]]:
    """The finder of ``rule``: what the reference client's stages found for it."""

    def find(stream: Stream) -> Iterator[Hit]:
        return (h for r, h in walk(stream) if r == rule)

    find.__name__ = f"_{rule.removeprefix('ag-ui.').replace('-', '_')}"
    return find


def _run_started(stream: Stream) -> Iterator[Hit]:
    if stream.messages and not events(stream):
        yield hit(stream.messages[0], "no AG-UI event in the stream", "warning")
    yield from _walked("ag-ui.run-started")(stream)


def _ended(stream: Stream) -> str | None:
    """How the stream stopped inside a run, or None when its last run ended."""
    found = events(stream)
    if found and found[-1][1] in TERMINAL:
        return None
    last = f"after {found[-1][1]} (event {found[-1][0].index})" if found else "before any event"
    cut = stream.transcript.error
    how = f"the connection failed ({cut})" if cut else "the stream ended"
    return f"{how} {last} without RUN_FINISHED or RUN_ERROR"


def _run_error(stream: Stream) -> Iterator[Hit]:
    ended = _ended(stream)
    if ended is None:
        return
    if stream.transcript.error:
        yield Hit(f"{ended}: a client cannot tell a failed run from a network fault; an "
                  "error must be sent as RUN_ERROR")  # fmt: skip
    elif events(stream):
        yield Hit(f"{ended}; the reference client accepts this (the strict profile "
                  "reports it as ag-ui.run-ended)", severity="warning")  # fmt: skip


def _run_ended(stream: Stream) -> Iterator[Hit]:
    ended = _ended(stream)
    if ended is not None and not stream.transcript.error:
        yield Hit(f"{ended}: a client cannot tell a failed run from a network fault")


def _runs(stream: Stream) -> list[list[Event]]:
    """The stream's events, one list a run (a run opens at RUN_STARTED)."""
    runs: list[list[Event]] = [[]]
    for event in events(stream):
        if event[1] == "RUN_STARTED" and runs[-1]:
            runs.append([])
        runs[-1].append(event)
    return [run for run in runs if run]


def _one_run(stream: Stream) -> Iterator[Hit]:
    starts = [m for m, kind, _ in events(stream) if kind == "RUN_STARTED"]
    if len(starts) > 1:
        yield hit(starts[1], f"a second RUN_STARTED: {len(starts)} runs in one stream")


def _run_ids(stream: Stream) -> Iterator[Hit]:
    sent = stream.transcript.request
    for number, run in enumerate(_runs(stream)):
        message, kind, data = run[0]
        if kind != "RUN_STARTED":
            continue
        if number == 0 and isinstance(sent, dict):
            for key in ("threadId", "runId"):
                if isinstance(sent.get(key), str) and data.get(key) != sent[key]:
                    yield hit(message, f"RUN_STARTED.{key} is {short(data.get(key))}, but "
                              f"the request's RunAgentInput sent {short(sent[key])}")  # fmt: skip
        for m, other, d in run:
            if other == "RUN_FINISHED":
                for key in ("threadId", "runId"):
                    if d.get(key) != data.get(key):
                        yield hit(m, f"RUN_FINISHED.{key} is {short(d.get(key))}, "
                                  f"RUN_STARTED's was {short(data.get(key))}")  # fmt: skip


_CALLS = ("TOOL_CALL_START", "TOOL_CALL_CHUNK")


def _tool_result(stream: Stream) -> Iterator[Hit]:
    for run in _runs(stream):
        started = [d.get("toolCallId") for _, k, d in run if k in _CALLS]
        for message, kind, data in run:
            if kind == "TOOL_CALL_RESULT" and data.get("toolCallId") not in started:
                yield hit(message, f"TOOL_CALL_RESULT for tool call "
                          f"{short(data.get('toolCallId'))}, which never started in this "
                          "run")  # fmt: skip


def _tool_args_json(stream: Stream) -> Iterator[Hit]:
    args: dict[Any, list[str]] = {}
    for message, kind, data in events(stream):
        ident = data.get("toolCallId")
        if not isinstance(ident, str):
            continue
        if kind == "TOOL_CALL_ARGS" and isinstance(data.get("delta"), str):
            args.setdefault(ident, []).append(data["delta"])
        elif kind == "TOOL_CALL_END" and ident in args:
            text = "".join(args.pop(data.get("toolCallId")))
            try:
                json.loads(text)
            except ValueError:
                yield hit(message, f"tool call {short(data.get('toolCallId'))}'s arguments "
                          f"are not JSON: {short(text)}")  # fmt: skip


_VERIFY = "The protocol's client (verifyEvents) fails the run on it"
_BEYOND = "Beyond the reference client, which accepts it"


def _rule(rule: str, checks: str, why: str, differs: str = "None known.") -> Rule:
    return Rule(rule, "violation", checks, why, differs, _walked(rule))


AG_UI = (
    _rule(
        "ag-ui.event",
        "Each data: is a JSON object with a type; a type AG-UI does not define is a warning.",
        "The client fails the run on data that is not an event; an unknown type it drops "
        "with a warning.",
    ),
    _rule(
        "ag-ui.fields",
        "Each event matches its type's schema (@ag-ui/core 1.0): required fields present, "
        "camelCase, of the right JSON kind; a snake_case key is a warning.",
        "The client validates each event against the protocol's schema; a missing "
        "messageId or a delta that is no string fails the run, an unknown key is dropped.",
        "Hand-written servers that serialise Python models without aliases (snake_case).",
    ),
    Rule(
        "ag-ui.run-started",
        "violation",
        "The first event is RUN_STARTED (or RUN_ERROR), and a RUN_STARTED comes only when "
        "no run is active.",
        f"{_VERIFY}: an event before RUN_STARTED, or a run started inside another.",
        "None known.",
        _run_started,
    ),
    _rule(
        "ag-ui.terminal",
        "After RUN_FINISHED only RUN_ERROR or a new RUN_STARTED; after RUN_ERROR only a new "
        "RUN_STARTED.",
        f"{_VERIFY}: an event after the run ended (a second RUN_FINISHED too).",
        "Servers that send RUN_ERROR and then RUN_FINISHED from a finally block.",
    ),
    Rule(
        "ag-ui.run-error",
        "violation",
        "A stream whose connection fails ends its run first (RUN_FINISHED or RUN_ERROR); one "
        "that ends cleanly inside a run is a warning.",
        "A stream that stops without RUN_FINISHED or RUN_ERROR looks like a network fault: "
        "the client cannot show the run's error, and may retry a run that did fail.",
        "Servers whose exception escapes the stream generator.",
        _run_error,
    ),
    _rule(
        "ag-ui.text-pairing",
        "TEXT_MESSAGE_CONTENT and TEXT_MESSAGE_END follow a TEXT_MESSAGE_START of their "
        "messageId in the run, a message is not opened twice at once, and every message "
        "started is ended before RUN_FINISHED (TEXT_MESSAGE_CHUNK expanded as the client "
        "expands it).",
        f"{_VERIFY}: content for a message that is not open.",
    ),
    _rule(
        "ag-ui.tool-call-pairing",
        "TOOL_CALL_ARGS and TOOL_CALL_END follow a TOOL_CALL_START of their toolCallId in "
        "the run, and every call started is ended before RUN_FINISHED (TOOL_CALL_CHUNK "
        "expanded).",
        f"{_VERIFY}: arguments for a call that is not open.",
    ),
    _rule(
        "ag-ui.reasoning-pairing",
        "Reasoning spans (REASONING_START/END) and reasoning messages open, stream and close "
        "in order, like text messages.",
        f"{_VERIFY}.",
    ),
    _rule(
        "ag-ui.step-pairing",
        "STEP_FINISHED follows a STEP_STARTED of its stepName (and subagent), and every step "
        "started finishes before RUN_FINISHED.",
        f"{_VERIFY}: finishing a step that never started.",
    ),
    _rule(
        "ag-ui.subagents",
        "SUBAGENT_STARTED once per subagentRunId in a run (its parent started before it), "
        "SUBAGENT_FINISHED or SUBAGENT_ERROR only for an active one, all finished before "
        "RUN_FINISHED.",
        f"{_VERIFY}.",
    ),
    _rule(
        "ag-ui.attribution",
        "An event's subagentRunId agrees with the owner of the message, tool call, "
        "reasoning or activity it continues.",
        f"{_VERIFY}: the client would put one subagent's content into another's message.",
    ),
    _rule(
        "ag-ui.state-delta",
        "STATE_DELTA's delta and ACTIVITY_DELTA's patch are JSON Patch (RFC 6902): each "
        "operation an object with JSON pointer paths and the members its op needs; an op "
        "the client does not know is a warning.",
        "Clients apply the patch to their copy of the state; a malformed operation fails "
        "the run, an unknown one is dropped.",
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

AG_UI_STRICT = (
    Rule(
        "ag-ui.one-run",
        "violation",
        "One run per stream: no second RUN_STARTED.",
        f"{_BEYOND} (it starts over at each RUN_STARTED): for servers that answer one "
        "RunAgentInput with exactly one run.",
        "None known.",
        _one_run,
    ),
    Rule(
        "ag-ui.run-ids",
        "violation",
        "The first RUN_STARTED echoes the RunAgentInput's threadId and runId (when the "
        "request is known), and each RUN_FINISHED repeats its run's RUN_STARTED ids.",
        f"{_BEYOND}: clients key threads and runs by these ids; a run that renames itself "
        "is a new run.",
        "None known.",
        _run_ids,
    ),
    Rule(
        "ag-ui.run-ended",
        "violation",
        "The stream ends with RUN_FINISHED or RUN_ERROR, even when the connection closes cleanly.",
        f"{_BEYOND} (its run resolves): a stream that stops inside a run looks like a "
        "finished one.",
        "Servers whose exception escapes the stream generator after the body was closed.",
        _run_ended,
    ),
    Rule(
        "ag-ui.tool-result",
        "violation",
        "A TOOL_CALL_RESULT names a tool call that started in its run.",
        f"{_BEYOND}: a result for a call the stream never made has nothing to attach to "
        "in front ends that render calls.",
        "None known.",
        _tool_result,
    ),
)
