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

from .._core._jsonrpc import (
    INTERNAL_ERROR,
    INVALID_PARAMS,
    INVALID_REQUEST,
    METHOD_NOT_FOUND,
    PARSE_ERROR,
    error,
    notification,
    result,
)

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

REVISIONS = ("2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28")
"""The revisions a mock speaks, oldest first (all of them by default)."""
STATEFUL = REVISIONS[:3]  # with initialize and sessions; 2026-07-28 is stateless

SESSION_HEADER = "Mcp-Session-Id"
VERSION_HEADER = "MCP-Protocol-Version"
BATCHES_UNTIL = "2025-03-26"  # the last with JSON-RPC batches (2025-06-18 removed them)
PRIMING_FROM = "2025-11-25"  # SEP-1699: an SSE stream opens with an event id and no data

# JSON-RPC 2.0 §5.1 (the shared envelope, ``_core._jsonrpc``), and MCP's own
# (server/resources: -32002 resource not found)
RESOURCE_NOT_FOUND = -32002

LIST_CHANGED = ("tools", "resources", "prompts")
LOG_LEVELS = ("debug", "info", "notice", "warning", "error", "critical", "alert", "emergency")


def negotiate(requested: object, supported: Sequence[str]) -> str:
    """The revision to answer ``initialize`` with (lifecycle, "Version Negotiation"): the
    client's when the mock speaks it, else the newest the mock speaks."""
    stateful = [v for v in supported if v in STATEFUL] or list(STATEFUL)
    return requested if isinstance(requested, str) and requested in stateful else stateful[-1]
