"""What the MCP specification fixes: revisions, headers, JSON-RPC shapes and error codes.

The Streamable HTTP transport of revisions 2025-03-26, 2025-06-18 and 2025-11-25
(``basic/transports``): one endpoint answers ``POST`` (one JSON-RPC message; a request
gets ``application/json`` or a ``text/event-stream`` that ends with its response, a
notification or response gets ``202 Accepted``), ``GET`` (a stream of server-to-client
messages) and ``DELETE`` (ends the session).  Sessions ride on ``Mcp-Session-Id``; from
2025-06-18 every request after ``initialize`` carries ``MCP-Protocol-Version``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

__all__ = [
    "INTERNAL_ERROR",
    "INVALID_PARAMS",
    "INVALID_REQUEST",
    "METHOD_NOT_FOUND",
    "PARSE_ERROR",
    "RESOURCE_NOT_FOUND",
    "REVISIONS",
    "error",
    "negotiate",
    "notification",
    "result",
]

REVISIONS = ("2025-03-26", "2025-06-18", "2025-11-25")
"""The revisions a mock speaks, oldest first (all of them by default)."""

SESSION_HEADER = "Mcp-Session-Id"
VERSION_HEADER = "MCP-Protocol-Version"
BATCHES_UNTIL = "2025-03-26"  # the last with JSON-RPC batches (2025-06-18 removed them)
PRIMING_FROM = "2025-11-25"  # SEP-1699: an SSE stream opens with an event id and no data

# JSON-RPC 2.0 §5.1, and MCP's own (server/resources: -32002 resource not found)
PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603
RESOURCE_NOT_FOUND = -32002

LIST_CHANGED = ("tools", "resources", "prompts")
LOG_LEVELS = ("debug", "info", "notice", "warning", "error", "critical", "alert", "emergency")


def negotiate(requested: object, supported: Sequence[str]) -> str:
    """The revision to answer ``initialize`` with (lifecycle, "Version Negotiation"): the
    client's when the mock speaks it, else the newest the mock speaks."""
    return requested if isinstance(requested, str) and requested in supported else supported[-1]


def result(id_: Any, value: Any) -> dict[str, Any]:
    """A JSON-RPC response."""
    return {"jsonrpc": "2.0", "id": id_, "result": value}


def error(id_: Any, code: int, message: str, data: Any = None) -> dict[str, Any]:
    """A JSON-RPC error response (``data`` left out when None)."""
    body: dict[str, Any] = {"code": code, "message": message}
    if data is not None:
        body["data"] = data
    return {"jsonrpc": "2.0", "id": id_, "error": body}


def notification(method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
    """A JSON-RPC notification (no id)."""
    message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
    if params is not None:
        message["params"] = params
    return message
