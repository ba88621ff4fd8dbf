"""A script as AG-UI events: each record becomes one or more events, as draft chunks.

The events are the protocol's JSON objects with its field names (camelCase: ``threadId``,
``runId``, ``messageId``, ``toolCallId``, ``delta`` ...), ``type`` first, each sent as one
``data:`` line (no ``event:`` line: the type is in the data), as AG-UI's own encoder
frames them.  They are :class:`~mockhttp.llm._draft.Chunk` objects, so the llm replies'
renderer gives them their timing (``ttft``, ``chunks_per_second``, ``jitter``).

Rule 1: ``RUN_STARTED`` opens the run and one terminal event ends it: ``RUN_FINISHED``,
or ``RUN_ERROR`` for an ``error`` entry (none for a dropped one).
Rule 2: ids not given are made from the run's salt, the call number and the entry's
place: unique per call, the same from one test run to the next.
Rule 3: a tool call without ``parent_message_id`` belongs to the text message before it
in the run, if any (an assistant message that holds the call).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from .._core._units import seconds
from ..llm._draft import Chunk
from ..llm._text import argument_pieces, arguments_text, make_id, pieces
from ._script import (
    Custom,
    Delta,
    Error,
    Item,
    Messages,
    Pause,
    Reasoning,
    State,
    Step,
    Text,
    ToolCall,
)

__all__ = ["Ids", "run_events"]


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


def run_events(
    script: tuple[Item, ...],
    ids: Ids,
    thread_id: str,
    run_id: str,
    result: Any = None,
) -> tuple[list[Chunk], Error | None]:
    """The run's events, and the ``error`` entry that ended it (None: it finished)."""
    out = [_event(ids, "RUN_STARTED", threadId=thread_id, runId=run_id)]
    ended = _entries(script, ids, out)
    if ended is None:
        finished: dict[str, Any] = {"threadId": thread_id, "runId": run_id}
        if result is not None:
            finished["result"] = result
        out.append(_event(ids, "RUN_FINISHED", **finished))
    elif not ended.drop:
        error = {"message": ended.message, **({"code": ended.code} if ended.code else {})}
        out.append(_event(ids, "RUN_ERROR", **error))
    return out, ended


def _entries(script: tuple[Item, ...], ids: Ids, out: list[Chunk]) -> Error | None:
    for entry in script:
        if isinstance(entry, Error):
            return entry
        if isinstance(entry, Pause):
            ids.pending = seconds(entry.duration, "pause")
        elif isinstance(entry, Step):
            out.append(_event(ids, "STEP_STARTED", stepName=entry.name))
            ended = _entries(tuple(entry.events), ids, out)
            if ended is not None:
                return ended
            out.append(_event(ids, "STEP_FINISHED", stepName=entry.name))
        else:
            out += _RENDER[type(entry)](entry, ids)
    return None


def _event(ids: Ids, kind: str, **fields: Any) -> Chunk:
    delay, ids.pending = ids.pending, None
    return Chunk({"type": kind, **fields}, kind=_KINDS.get(kind, "block"), delay=delay)


def _text(entry: Text, ids: Ids) -> list[Chunk]:
    message = ids.make("msg_", entry.id)
    ids.last_message = message
    size = entry.chunk_size or ids.chunk_size
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
    out = [
        _event(ids, "TOOL_CALL_START", **start),
        *(
            _event(ids, "TOOL_CALL_ARGS", toolCallId=call, delta=piece)
            for piece in argument_pieces(arguments_text(entry.arguments))
        ),
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
    return [
        _event(ids, "REASONING_START", messageId=message),
        _event(ids, "REASONING_MESSAGE_START", messageId=message, role="reasoning"),
        *(
            _event(ids, "REASONING_MESSAGE_CONTENT", messageId=message, delta=piece)
            for piece in pieces(entry.content, size)
        ),
        _event(ids, "REASONING_MESSAGE_END", messageId=message),
        _event(ids, "REASONING_END", messageId=message),
    ]


def _state(entry: State, ids: Ids) -> list[Chunk]:
    return [_event(ids, "STATE_SNAPSHOT", snapshot=entry.snapshot)]


def _delta(entry: Delta, ids: Ids) -> list[Chunk]:
    return [_event(ids, "STATE_DELTA", delta=list(entry.operations))]


def _messages(entry: Messages, ids: Ids) -> list[Chunk]:
    return [_event(ids, "MESSAGES_SNAPSHOT", messages=list(entry.messages))]


def _custom(entry: Custom, ids: Ids) -> list[Chunk]:
    return [_event(ids, "CUSTOM", name=entry.name, value=entry.value)]


_RENDER: dict[type[Any], Callable[[Any, Ids], list[Chunk]]] = {
    Text: _text,
    ToolCall: _tool_call,
    Reasoning: _reasoning,
    State: _state,
    Delta: _delta,
    Messages: _messages,
    Custom: _custom,
}
_KINDS = {
    # the draft's kind tags (see llm._draft.KINDS): what carries content, what ends
    "RUN_STARTED": "start",
    "TEXT_MESSAGE_CONTENT": "text",
    "TOOL_CALL_ARGS": "tool",
    "REASONING_MESSAGE_CONTENT": "thinking",
    "RUN_FINISHED": "end",
    "RUN_ERROR": "error",
}
