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

The request's method name says which version it speaks.  The task states and their
transitions are the ``a2a`` contract profile's table (:mod:`mockhttp.contract._a2a`), so
the mock and the check read one lifecycle.
"""

from __future__ import annotations

from typing import Any, Literal, cast

from ..contract._a2a import INTERRUPTED, STATES, TERMINAL, TRANSITIONS, state_of
from ..contract._a2a import METHODS as _METHODS

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
    "state_named",
    "state_of",
]

Version = Literal["0.3", "1.0"]
VERSIONS: tuple[Version, ...] = ("0.3", "1.0")
VERSION_HEADER = "A2A-Version"

CARD_PATHS = ("/.well-known/agent-card.json", "/.well-known/agent.json")
"""The agent card's well-known paths: the current one, and 0.2's ``agent.json``."""

Operation = Literal[
    "send",
    "stream",
    "get",
    "list_tasks",
    "cancel",
    "resubscribe",
    "push_set",
    "push_get",
    "push_list",
    "push_delete",
    "extended_card",
]
METHODS = cast("dict[str, tuple[Version, Operation]]", _METHODS)

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
    "extended_card_not_configured": -32007,
    "version_not_supported": -32009,
}


def state_name(state: str, version: Version) -> str:
    """``state`` as ``version`` writes it: ``input-required`` or ``TASK_STATE_INPUT_REQUIRED``."""
    return state if version == "0.3" else "TASK_STATE_" + state.upper().replace("-", "_")


def state_named(name: Any) -> str | None:
    """The state a client names in either version's form (None: not a state)."""
    if not isinstance(name, str):
        return None
    plain = name.removeprefix("TASK_STATE_").lower().replace("_", "-")
    return plain if plain in STATES else None


def result(id_: Any, value: Any) -> dict[str, Any]:
    """A JSON-RPC response."""
    return {"jsonrpc": "2.0", "id": id_, "result": value}


def error(id_: Any, code: int, message: str) -> dict[str, Any]:
    """A JSON-RPC error response."""
    return {"jsonrpc": "2.0", "id": id_, "error": {"code": code, "message": message}}
