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

from collections.abc import Mapping
from typing import Any

from .._core._registry import register_reply_kind
from .._core._units import Duration
from ._kind import AgUiRun as AgUiRun
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

register_reply_kind(AgUiRun.file_key, AgUiRun)
register_reply_kind("ag-ui", AgUiRun)


def run(*events: Item | Mapping[str, Any], **options: Any) -> AgUiRun:
    """A run of ``events`` (see :class:`AgUiRun` for the options: ids, timing, faults).

    Raises:
        ConfigError: a bad entry or option (the message says which).
    """
    return AgUiRun(events, **options)


def text(
    content: str, *, role: str = "assistant", id: str | None = None, chunk_size: int | None = None
) -> Text:
    """A text message, streamed in pieces (words, or ``chunk_size`` characters)."""
    return Text(content, role, id, chunk_size)


def tool_call(
    name: str,
    arguments: Mapping[str, Any] | str | None = None,
    *,
    id: str | None = None,
    parent_message_id: str | None = None,
    result: str | None = None,
) -> ToolCall:
    """A tool call whose ``arguments`` stream in pieces; ``result`` adds its result."""
    return ToolCall(name, {} if arguments is None else arguments, id, parent_message_id, result)


def state(snapshot: Any) -> State:
    """A state snapshot."""
    return State(snapshot)


def delta(*operations: Mapping[str, Any]) -> Delta:
    """A state delta: JSON Patch operations, ``{"op": "replace", "path": "/a", ...}``."""
    return Delta(operations)


def messages(*messages: Mapping[str, Any]) -> Messages:
    """A messages snapshot: AG-UI messages (``{"id": ..., "role": ..., "content": ...}``)."""
    return Messages(messages)


def reasoning(content: str, *, id: str | None = None, chunk_size: int | None = None) -> Reasoning:
    """The agent's reasoning, streamed as a reasoning message."""
    return Reasoning(content, id, chunk_size)


def step(name: str, *events: Item | Mapping[str, Any]) -> Step:
    """A step around ``events``."""
    return Step(name, events)


def custom(name: str, value: Any = None) -> Custom:
    """An application's own event."""
    return Custom(name, value)


def pause(duration: Duration) -> Pause:
    """A pause before the next event (``"2s"``, ``0.5``): a stall mid-run."""
    return Pause(duration)


def error(message: str, *, code: str | None = None, drop: bool = False) -> Error:
    """The run fails: ``RUN_ERROR``; ``drop=True``: the connection closes there instead."""
    return Error(message, code, drop)


__all__ = [
    "AgUiRun",
    "custom",
    "delta",
    "error",
    "messages",
    "pause",
    "reasoning",
    "run",
    "state",
    "step",
    "text",
    "tool_call",
]
