"""Live mode for the ``mcp`` profile: a short MCP session sent to a server and checked.

``initialize`` (the newest revision asked), ``notifications/initialized``, ``tools/list``
and ``ping`` with the session header the server issued, a ``ping`` with an
``MCP-Protocol-Version`` no revision has; each answer is checked with the ``mcp`` rules.
Then, when a session was issued, a ``ping`` without it, the session's ``DELETE`` and a
``tools/list`` after it.  Last, the transport's rules (``_mcp_capture.py``) over them all,
as over a capture: ``mcp.session-required`` (400 without the session),
``mcp.protocol-version`` (400 for an unknown revision), ``mcp.session-ended`` (404 after
the DELETE) ...
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ._check import Outcome, evaluate
from ._mcp_capture import SESSION_REQUIRED, Exchange, transport
from ._record import Limits, record
from ._stream import Stream
from ._transcript import Transcript

__all__ = ["SESSION_REQUIRED", "run_mcp_live"]

REVISION = "2025-11-25"
_ACCEPT = {"accept": "application/json, text/event-stream"}


def _rpc(method: str, id_: int | None = None, **params: Any) -> dict[str, Any]:
    message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
    if id_ is not None:
        message["id"] = id_
    if params:
        message["params"] = params
    return message


def _negotiated(transcript: Transcript) -> str | None:
    """The revision the initialize answer names (JSON or the last SSE event)."""
    stream = Stream(transcript)
    values = [p.obj for p in stream.payloads if p.obj] if stream.messages else []
    if not values:
        try:
            values = [transcript.json()]
        except ValueError:
            return None
    result = values[-1].get("result") if isinstance(values[-1], dict) else None
    version = result.get("protocolVersion") if isinstance(result, dict) else None
    return version if isinstance(version, str) else None


def run_mcp_live(
    url: str, headers: Mapping[str, str], timeout: float, limits: Limits | None = None
) -> list[Outcome]:
    """Send the session's requests to ``url`` and check each answer, then the transport's
    rules over them all (see the module)."""
    base = {**_ACCEPT, **headers}
    sent: list[Exchange] = []

    def send(label: str, body: Any, given: Mapping[str, str], method: str = "POST") -> Transcript:
        transcript = record(url, body, headers=given, timeout=timeout, limits=limits,
                            method=method)  # fmt: skip
        sent.append(Exchange(method, transcript))
        if method != "DELETE":
            outcomes.append(evaluate(transcript, "mcp", label))
        return transcript

    outcomes: list[Outcome] = []
    init = _rpc("initialize", 1, protocolVersion=REVISION, capabilities={},
                clientInfo={"name": "mockhttp-check", "version": "1"})  # fmt: skip
    first = send("initialize", init, base)
    if first.status != 200:
        return outcomes
    session = first.header("mcp-session-id")
    inside = dict(base)
    if session is not None:
        inside["mcp-session-id"] = session
    inside["mcp-protocol-version"] = _negotiated(first) or REVISION
    send("notifications/initialized", _rpc("notifications/initialized"), inside)
    send("tools/list", _rpc("tools/list", 2), inside)
    send("ping", _rpc("ping", 3), inside)
    send("ping with MCP-Protocol-Version 1999-01-01", _rpc("ping", 4),
         {**inside, "mcp-protocol-version": "1999-01-01"})  # fmt: skip
    if session is not None:
        alone = {k: v for k, v in inside.items() if k != "mcp-session-id"}
        send("ping without Mcp-Session-Id", _rpc("ping", 5), alone)
        send("DELETE", None, {k: v for k, v in inside.items() if k != "accept"}, "DELETE")
        send("tools/list after DELETE", _rpc("tools/list", 6), inside)
    outcomes.append(transport(sent))
    return outcomes
