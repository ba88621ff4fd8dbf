"""Live ``a2a``: POST a JSON-RPC ``message/stream`` request to an A2A agent and check the
stream it answers with."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ._check import Outcome
from ._posted import Exchanged, check_posted
from ._record import Limits

__all__ = ["a2a_request", "run_a2a_live"]


def a2a_request(request: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The request sent: A2A 0.3's ``message/stream`` with one user text part; ``request``
    (the user's own JSON, e.g. 1.0's ``SendStreamingMessage``) is laid over it."""
    message = {
        "kind": "message",
        "messageId": "m1",
        "role": "user",
        "parts": [{"kind": "text", "text": "Hello"}],
    }
    base: dict[str, Any] = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "message/stream",
        "params": {"message": message},
    }
    return {**base, **(request or {})}


def run_a2a_live(
    url: str,
    headers: Mapping[str, str],
    timeout: float,
    limits: Limits | None = None,
    on_exchange: Exchanged | None = None,
    *,
    request: Mapping[str, Any] | None = None,
) -> list[Outcome]:
    """Send one streaming message to ``url`` (as given: an agent card names its own URL)
    and check the answer with the ``a2a`` profile; Ctrl-C checks what arrived."""
    body = a2a_request(request)
    return check_posted(
        url,
        body,
        headers,
        timeout,
        limits,
        on_exchange,
        profile="a2a",
        exchange=str(body.get("method")),
    )
