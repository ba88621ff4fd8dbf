"""Live ``a2a``: POST a JSON-RPC ``message/stream`` request to an A2A agent and check the
stream it answers with."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from ._check import Outcome, evaluate
from ._record import Interrupted, Limits, record
from ._transcript import Transcript

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
    on_exchange: Callable[[str, dict[str, Any], Transcript], None] | None = None,
    *,
    request: Mapping[str, Any] | None = None,
) -> list[Outcome]:
    """Send one streaming message to ``url`` (as given: an agent card names its own URL)
    and check the answer with the ``a2a`` profile; Ctrl-C checks what arrived."""
    body = a2a_request(request)
    sent = {"accept": "text/event-stream", **headers}
    try:
        transcript = record(url, body, headers=sent, timeout=timeout, limits=limits)
    except Interrupted as stop:
        transcript = stop.transcript
    if on_exchange is not None:
        on_exchange(url, body, transcript)
    return [evaluate(transcript, ["a2a"], str(body.get("method")))]
