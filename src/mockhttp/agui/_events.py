"""A script as AG-UI events: each record becomes one or more events, as draft chunks.

The events are the protocol's JSON objects with its field names (camelCase: ``threadId``,
``runId``, ``messageId``, ``toolCallId``, ``delta`` ...), ``type`` first, each sent as one
``data:`` line (no ``event:`` line: the type is in the data), as AG-UI's own encoder
frames them.  They are :class:`~mockhttp.llm._draft.Chunk` objects, so the llm replies'
renderer gives them their timing (``ttft``, ``chunks_per_second``, ``jitter``).

Rule 1: ``RUN_STARTED`` opens each run and one terminal event ends it: ``RUN_FINISHED``,
or ``RUN_ERROR`` for an ``error`` entry (none for a dropped one, and the stream ends
there); ``new_run`` starts the next run on the same stream.  An error ``before_start`` is
a ``RUN_ERROR`` with no ``RUN_STARTED``; one ``after_finished`` comes after
``RUN_FINISHED``.
Rule 2: ids not given are made from the run's salt, the call number and the entry's
place: unique per call, the same from one test run to the next.
Rule 3: a tool call without ``parent_message_id`` belongs to the text message before it
in the run, if any (an assistant message that holds the call), its subagent's own inside
a subagent.
Rule 4: every event a subagent's entries make carries its ``subagentRunId`` (a nested
subagent's, its own); the chunk shorthands (``chunked``) leave the message open for the
client to close at the next event, as the protocol allows.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from .._core._units import seconds
from ..llm._draft import Chunk
from ..llm._text import argument_pieces, arguments_text, make_id, pieces
from ._script import (
    Activity,
    Custom,
    Delta,
    Error,
    Item,
    Messages,
    NewRun,
    Pause,
    Raw,
    Reasoning,
    State,
    Step,
    Subagent,
    Text,
    ToolCall,
)

__all__ = ["Ids", "run_events", "runs"]


@dataclass
class Ids:
    """How ids are made for one call of a run: ``make(prefix, part)``."""

    salt: str
    call: int
    chunk_size: int | None = None
    last_message: str | None = None  # the last text message's id (tool calls' parent)
    pending: float | None = None  # a pause's delay, for the next event
    places: Iterator[int] = field(default_factory=lambda: iter(range(1 << 62)))

    def make(self, prefix: str, given: str | None) -> str:
        return given or make_id(prefix, f"{self.salt}:{next(self.places)}", self.call, 16)


def runs(script: tuple[Item, ...]) -> list[tuple[NewRun, tuple[Item, ...]]]:
    """The script's runs: each ``new_run`` (the first run's a default one) and its entries."""
    out: list[tuple[NewRun, list[Item]]] = [(NewRun(), [])]
    for entry in script:
        if isinstance(entry, NewRun):
            out.append((entry, []))
        else:
            out[-1][1].append(entry)
    return [(head, tuple(entries)) for head, entries in out]


def run_events(
    script: tuple[Item, ...],
    ids: Ids,
    thread_id: str,
    run_id: str,
    result: Any = None,
) -> tuple[list[Chunk], Error | None]:
    """The runs' events, and the ``error`` entry that ended the last (None: it finished)."""
    out: list[Chunk] = []
    ended: Error | None = None
    for number, (head, entries) in enumerate(runs(script), start=1):
        thread = head.thread_id or thread_id
        run = head.run_id or (run_id if number == 1 else f"{run_id}-{number}")
        ids.last_message = None
        first = entries[0] if entries else None
        if isinstance(first, Error) and first.before_start:
            ended = first
        else:
            out.append(_event(ids, "RUN_STARTED", threadId=thread, runId=run))
            ended = _entries(entries, ids, out, None)
            if ended is None or ended.after_finished:
                finished: dict[str, Any] = {"threadId": thread, "runId": run}
                if result is not None:
                    finished["result"] = result
                out.append(_event(ids, "RUN_FINISHED", **finished))
        if ended is not None and ended.drop:
            break
        if ended is not None:
            error = {"message": ended.message, **({"code": ended.code} if ended.code else {})}
            out.append(_event(ids, "RUN_ERROR", **error))
    return out, ended


def _entries(script: tuple[Item, ...], ids: Ids, out: list[Chunk], tag: str | None) -> Error | None:
    for entry in script:
        if isinstance(entry, Error):
            return entry
        if isinstance(entry, Pause):
            ids.pending = seconds(entry.duration, "pause")
        elif isinstance(entry, Step):
            out.append(_tagged(_event(ids, "STEP_STARTED", stepName=entry.name), tag))
            ended = _entries(tuple(entry.events), ids, out, tag)
            if ended is not None:
                return ended
            out.append(_tagged(_event(ids, "STEP_FINISHED", stepName=entry.name), tag))
        elif isinstance(entry, Subagent):
            out += _subagent(entry, ids, tag)
        else:
            out += (_tagged(c, tag) for c in _RENDER[type(entry)](entry, ids))
    return None


def _tagged(chunk: Chunk, tag: str | None) -> Chunk:
    """``chunk`` attributed to subagent ``tag`` (unchanged for the parent agent)."""
    if tag is None:
        return chunk
    return dataclasses.replace(chunk, data={**chunk.data, "subagentRunId": tag})


def _subagent(entry: Subagent, ids: Ids, parent: str | None) -> list[Chunk]:
    sub = ids.make("sub_", entry.id)
    started: dict[str, Any] = {"subagentRunId": sub, "name": entry.name}
    if parent is not None:
        started["parentSubagentRunId"] = parent
    out = [_event(ids, "SUBAGENT_STARTED", **started)]
    outside, ids.last_message = ids.last_message, None
    _entries(tuple(entry.events), ids, out, sub)
    ids.last_message = outside
    if entry.error is None:
        out.append(_event(ids, "SUBAGENT_FINISHED", subagentRunId=sub))
    else:
        out.append(_event(ids, "SUBAGENT_ERROR", subagentRunId=sub, message=entry.error))
    return out


def _event(ids: Ids, kind: str, **fields: Any) -> Chunk:
    delay, ids.pending = ids.pending, None
    return Chunk({"type": kind, **fields}, kind=_KINDS.get(kind, "block"), delay=delay)


def _text(entry: Text, ids: Ids) -> list[Chunk]:
    message = ids.make("msg_", entry.id)
    ids.last_message = message
    size = entry.chunk_size or ids.chunk_size
    if entry.chunked:
        return _chunks(ids, "TEXT_MESSAGE_CHUNK", {"messageId": message, "role": entry.role},
                       pieces(entry.content, size))  # fmt: skip
    return [
        _event(ids, "TEXT_MESSAGE_START", messageId=message, role=entry.role),
        *(
            _event(ids, "TEXT_MESSAGE_CONTENT", messageId=message, delta=piece)
            for piece in pieces(entry.content, size)
        ),
        _event(ids, "TEXT_MESSAGE_END", messageId=message),
    ]


def _tool_call(entry: ToolCall, ids: Ids) -> list[Chunk]:
    call = ids.make("call_", entry.id)
    start: dict[str, Any] = {"toolCallId": call, "toolCallName": entry.name}
    parent = entry.parent_message_id or ids.last_message
    if parent is not None:
        start["parentMessageId"] = parent
    args = argument_pieces(arguments_text(entry.arguments))
    if entry.chunked:
        out = _chunks(ids, "TOOL_CALL_CHUNK", start, args)
    else:
        out = [
            _event(ids, "TOOL_CALL_START", **start),
            *(_event(ids, "TOOL_CALL_ARGS", toolCallId=call, delta=piece) for piece in args),
            _event(ids, "TOOL_CALL_END", toolCallId=call),
        ]
    if entry.result is not None:
        message = ids.make("msg_", None)
        out.append(
            _event(
                ids,
                "TOOL_CALL_RESULT",
                messageId=message,
                toolCallId=call,
                content=entry.result,
                role="tool",
            )
        )
    return out


def _reasoning(entry: Reasoning, ids: Ids) -> list[Chunk]:
    message = ids.make("rsn_", entry.id)
    size = entry.chunk_size or ids.chunk_size
    parts = pieces(entry.content, size)
    out = [_event(ids, "REASONING_START", messageId=message)]
    if entry.chunked:
        out += _chunks(ids, "REASONING_MESSAGE_CHUNK", {"messageId": message}, parts)
    else:
        out += [
            _event(ids, "REASONING_MESSAGE_START", messageId=message, role="reasoning"),
            *(
                _event(ids, "REASONING_MESSAGE_CONTENT", messageId=message, delta=piece)
                for piece in parts
            ),
            _event(ids, "REASONING_MESSAGE_END", messageId=message),
        ]
    if entry.encrypted is not None:
        value = {"subtype": "message", "entityId": message, "encryptedValue": entry.encrypted}
        out.append(_event(ids, "REASONING_ENCRYPTED_VALUE", **value))
    out.append(_event(ids, "REASONING_END", messageId=message))
    return out


def _chunks(ids: Ids, kind: str, opener: dict[str, Any], parts: list[str]) -> list[Chunk]:
    """A chunk shorthand: the first names what it opens, the others only add a piece."""
    first, *rest = parts or [""]
    return [
        _event(ids, kind, **opener, delta=first),
        *(_event(ids, kind, delta=piece) for piece in rest),
    ]


def _state(entry: State, ids: Ids) -> list[Chunk]:
    return [_event(ids, "STATE_SNAPSHOT", snapshot=entry.snapshot)]


def _delta(entry: Delta, ids: Ids) -> list[Chunk]:
    return [_event(ids, "STATE_DELTA", delta=list(entry.operations))]


def _messages(entry: Messages, ids: Ids) -> list[Chunk]:
    return [_event(ids, "MESSAGES_SNAPSHOT", messages=list(entry.messages))]


def _custom(entry: Custom, ids: Ids) -> list[Chunk]:
    return [_event(ids, "CUSTOM", name=entry.name, value=entry.value)]


def _activity(entry: Activity, ids: Ids) -> list[Chunk]:
    message = ids.make("act_", entry.id)
    snapshot: dict[str, Any] = {
        "messageId": message,
        "activityType": entry.activity_type,
        "content": entry.content,
    }
    if entry.replace is not None:
        snapshot["replace"] = entry.replace
    out = [_event(ids, "ACTIVITY_SNAPSHOT", **snapshot)]
    if entry.patch is not None:
        patch = list(entry.patch)
        out.append(_event(ids, "ACTIVITY_DELTA", messageId=message,
                          activityType=entry.activity_type, patch=patch))  # fmt: skip
    return out


def _raw(entry: Raw, ids: Ids) -> list[Chunk]:
    extra = {"source": entry.source} if entry.source is not None else {}
    return [_event(ids, "RAW", event=entry.event, **extra)]


_RENDER: dict[type[Any], Callable[[Any, Ids], list[Chunk]]] = {
    Text: _text,
    ToolCall: _tool_call,
    Reasoning: _reasoning,
    State: _state,
    Delta: _delta,
    Messages: _messages,
    Custom: _custom,
    Activity: _activity,
    Raw: _raw,
}
_KINDS = {
    # the draft's kind tags (see llm._draft.KINDS): what carries content, what ends
    "RUN_STARTED": "start",
    "TEXT_MESSAGE_CONTENT": "text",
    "TEXT_MESSAGE_CHUNK": "text",
    "TOOL_CALL_ARGS": "tool",
    "TOOL_CALL_CHUNK": "tool",
    "REASONING_MESSAGE_CONTENT": "thinking",
    "REASONING_MESSAGE_CHUNK": "thinking",
    "RUN_FINISHED": "end",
    "RUN_ERROR": "error",
}
