"""AG-UI event streams: a scripted agent run, answered as the protocol's SSE events.

```python
import mockhttp
from mockhttp import agui

with mockhttp.Server() as server:
    server.mock(agui.run(agui.text("Hello"), agui.state({"count": 1})).mock("/agent"))
```

:func:`run` makes an :class:`AgUiRun`, a reply kind (``response: {agui: {events: [...]}}``
in mock files, ``ag-ui:`` as an alias) whose answer to a ``RunAgentInput`` is
``RUN_STARTED``, the script's events, and ``RUN_FINISHED`` (or ``RUN_ERROR``), with the
request's ``threadId`` and ``runId``, paced like the llm replies (``ttft``,
``chunks_per_second``, ``jitter``).  The existing faults break it at event K
(``fault.close_after_events``, ``fault.stall``); ``error(..., drop=True)`` and
``duplicate_terminal`` are the two broken endings the protocol's clients must survive.
``mockhttp check --profile ag-ui`` checks such a stream (:mod:`mockhttp.contract._agui`).

Modules: ``_script`` (the entries, as records and their file forms), ``_events`` (the
entries as events), ``_kind`` (the reply kind).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .._core._registry import register_reply_kind
from .._core._units import Duration
from ._kind import AgUiRun as AgUiRun
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

register_reply_kind(AgUiRun.file_key, AgUiRun)
register_reply_kind("ag-ui", AgUiRun)


def run(*events: Item | Mapping[str, Any], **options: Any) -> AgUiRun:
    """A run of ``events`` (see :class:`AgUiRun` for the options: ids, timing, faults).

    Raises:
        ConfigError: a bad entry or option (the message says which).
    """
    return AgUiRun(events, **options)


def text(
    content: str,
    *,
    role: str = "assistant",
    id: str | None = None,
    chunk_size: int | None = None,
    chunked: bool = False,
) -> Text:
    """A text message, streamed in pieces (words, or ``chunk_size`` characters);
    ``chunked``: as ``TEXT_MESSAGE_CHUNK`` events."""
    return Text(content, role, id, chunk_size, chunked)


def tool_call(
    name: str,
    arguments: Mapping[str, Any] | str | None = None,
    *,
    id: str | None = None,
    parent_message_id: str | None = None,
    result: str | None = None,
    chunked: bool = False,
) -> ToolCall:
    """A tool call whose ``arguments`` stream in pieces; ``result`` adds its result;
    ``chunked``: as ``TOOL_CALL_CHUNK`` events."""
    arguments = {} if arguments is None else arguments
    return ToolCall(name, arguments, id, parent_message_id, result, chunked)


def state(snapshot: Any) -> State:
    """A state snapshot."""
    return State(snapshot)


def delta(*operations: Mapping[str, Any]) -> Delta:
    """A state delta: JSON Patch operations, ``{"op": "replace", "path": "/a", ...}``."""
    return Delta(operations)


def messages(*messages: Mapping[str, Any]) -> Messages:
    """A messages snapshot: AG-UI messages (``{"id": ..., "role": ..., "content": ...}``)."""
    return Messages(messages)


def reasoning(
    content: str,
    *,
    id: str | None = None,
    chunk_size: int | None = None,
    chunked: bool = False,
    encrypted: str | None = None,
) -> Reasoning:
    """The agent's reasoning, streamed as a reasoning message (``chunked``: as
    ``REASONING_MESSAGE_CHUNK`` events); ``encrypted`` adds its opaque encrypted value."""
    return Reasoning(content, id, chunk_size, chunked, encrypted)


def step(name: str, *events: Item | Mapping[str, Any]) -> Step:
    """A step around ``events``."""
    return Step(name, events)


def custom(name: str, value: Any = None) -> Custom:
    """An application's own event."""
    return Custom(name, value)


def pause(duration: Duration) -> Pause:
    """A pause before the next event (``"2s"``, ``0.5``): a stall mid-run."""
    return Pause(duration)


def error(
    message: str,
    *,
    code: str | None = None,
    drop: bool = False,
    before_start: bool = False,
    after_finished: bool = False,
) -> Error:
    """The run fails: ``RUN_ERROR``; ``drop=True``: the connection closes there instead.
    ``before_start``: before ``RUN_STARTED`` (its run's only entry); ``after_finished``:
    after ``RUN_FINISHED``."""
    return Error(message, code, drop, before_start, after_finished)


def new_run(*, run_id: str | None = None, thread_id: str | None = None) -> NewRun:
    """The next run on the same stream: the run so far ends, ``RUN_STARTED`` again."""
    return NewRun(run_id, thread_id)


def activity(
    activity_type: str,
    content: Mapping[str, Any] | None = None,
    *,
    id: str | None = None,
    patch: Sequence[Mapping[str, Any]] | None = None,
    replace: bool | None = None,
) -> Activity:
    """An ``ACTIVITY_SNAPSHOT`` (then an ``ACTIVITY_DELTA`` with ``patch``, JSON Patch)."""
    return Activity(activity_type, {} if content is None else content, id, patch, replace)


def raw(event: Any, *, source: str | None = None) -> Raw:
    """A ``RAW`` event: a provider's own event, passed through."""
    return Raw(event, source)


def subagent(
    name: str, *events: Item | Mapping[str, Any], id: str | None = None, error: str | None = None
) -> Subagent:
    """A subagent's work: ``SUBAGENT_STARTED``, ``events`` attributed to it,
    ``SUBAGENT_FINISHED`` (``SUBAGENT_ERROR`` with ``error``)."""
    return Subagent(name, events, id, error)


__all__ = [
    "AgUiRun",
    "activity",
    "custom",
    "delta",
    "error",
    "messages",
    "new_run",
    "pause",
    "raw",
    "reasoning",
    "run",
    "state",
    "step",
    "subagent",
    "text",
    "tool_call",
]
