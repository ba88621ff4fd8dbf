"""What the A2A specification fixes: versions, methods, task states, error codes, shapes.

Two versions are on the wire today, and a mock speaks both unless told otherwise:

- **0.3** (JSON-RPC methods ``message/send``, ``message/stream``, ``tasks/get``,
  ``tasks/cancel``, ``tasks/resubscribe``): objects carry ``kind`` (``task``, ``message``,
  ``status-update``, ``artifact-update``), states are ``working``, ``input-required``...,
  parts are ``{"kind": "text", "text": ...}`` and the last status update of a stream says
  ``final: true``.
- **1.0** (the protobuf-JSON binding: ``SendMessage``, ``SendStreamingMessage``,
  ``GetTask``, ``CancelTask``, ``SubscribeToTask``): a stream's results are wrapped
  (``{"task"|"message"|"statusUpdate"|"artifactUpdate": ...}``), states are enum names
  (``TASK_STATE_WORKING``), roles ``ROLE_AGENT``, parts ``{"text": ...}``; no ``kind`` and
  no ``final`` (a stream ends after its terminal or interrupted status).  Clients send
  ``A2A-Version: 1.0``.

The request's method name says which version it speaks.
"""

from __future__ import annotations

from typing import Any, Literal

__all__ = [
    "CARD_PATHS",
    "ERRORS",
    "INTERRUPTED",
    "METHODS",
    "STATES",
    "TERMINAL",
    "TRANSITIONS",
    "VERSIONS",
    "VERSION_HEADER",
    "Version",
    "error",
    "result",
    "state_name",
]

Version = Literal["0.3", "1.0"]
VERSIONS: tuple[Version, ...] = ("0.3", "1.0")
VERSION_HEADER = "A2A-Version"

CARD_PATHS = ("/.well-known/agent-card.json", "/.well-known/agent.json")
"""The agent card's well-known paths: the current one, and 0.2's ``agent.json``."""

Operation = Literal["send", "stream", "get", "cancel", "resubscribe"]
METHODS: dict[str, tuple[Version, Operation]] = {
    "message/send": ("0.3", "send"),
    "message/stream": ("0.3", "stream"),
    "tasks/get": ("0.3", "get"),
    "tasks/cancel": ("0.3", "cancel"),
    "tasks/resubscribe": ("0.3", "resubscribe"),
    "SendMessage": ("1.0", "send"),
    "SendStreamingMessage": ("1.0", "stream"),
    "GetTask": ("1.0", "get"),
    "CancelTask": ("1.0", "cancel"),
    "SubscribeToTask": ("1.0", "resubscribe"),
}

STATES = (
    "submitted",
    "working",
    "input-required",
    "auth-required",
    "completed",
    "canceled",
    "failed",
    "rejected",
)
TERMINAL = frozenset({"completed", "canceled", "failed", "rejected"})
INTERRUPTED = frozenset({"input-required", "auth-required"})
"""A stream ends after a terminal or an interrupted status (the client answers, then the
task goes on)."""

TRANSITIONS: dict[str, frozenset[str]] = {
    "submitted": frozenset(STATES) - {"submitted"},
    "working": frozenset(STATES) - {"submitted"},
    "input-required": frozenset({"working", "completed", "canceled", "failed"}),
    "auth-required": frozenset({"working", "canceled", "failed", "rejected"}),
    **{state: frozenset() for state in TERMINAL},
}
"""The task lifecycle: state -> the states it may go to (a terminal state goes nowhere;
``working`` may restate itself, each update a progress message)."""

# JSON-RPC 2.0 and A2A's own codes (the specification's error table)
ERRORS = {
    "parse": -32700,
    "invalid_request": -32600,
    "method_not_found": -32601,
    "invalid_params": -32602,
    "internal": -32603,
    "task_not_found": -32001,
    "task_not_cancelable": -32002,
    "push_not_supported": -32003,
    "unsupported_operation": -32004,
    "content_type_not_supported": -32005,
    "invalid_agent_response": -32006,
    "version_not_supported": -32009,
}


def state_name(state: str, version: Version) -> str:
    """``state`` as ``version`` writes it: ``input-required`` or ``TASK_STATE_INPUT_REQUIRED``."""
    return state if version == "0.3" else "TASK_STATE_" + state.upper().replace("-", "_")


def state_of(name: Any) -> str | None:
    """The state a wire value names, in either version (None: not a state)."""
    if not isinstance(name, str):
        return None
    if name.startswith("TASK_STATE_"):
        name = name.removeprefix("TASK_STATE_").lower().replace("_", "-")
    return name if name in STATES else None


def result(id_: Any, value: Any) -> dict[str, Any]:
    """A JSON-RPC response."""
    return {"jsonrpc": "2.0", "id": id_, "result": value}


def error(id_: Any, code: int, message: str) -> dict[str, Any]:
    """A JSON-RPC error response."""
    return {"jsonrpc": "2.0", "id": id_, "error": {"code": code, "message": message}}
