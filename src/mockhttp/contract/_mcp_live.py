"""Live mode for the ``mcp`` profile: a short MCP session sent to a server and checked.

``initialize`` (the newest revision asked), ``notifications/initialized``, ``tools/list``
and ``ping`` with the session header the server issued; each answer is checked with the
``mcp`` rules.  Then, when a session was issued, a ``ping`` without it: the spec says
such a request should get ``400`` (``mcp.session-required``, a rule of live mode only:
a saved exchange does not show which headers were sent).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ._check import Outcome, evaluate
from ._finding import Finding
from ._mcp_capture import SESSION_REQUIRED
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
    """Send the session's requests to ``url`` and check each answer (see the module)."""
    base = {**_ACCEPT, **headers}

    def send(label: str, body: Any, sent: Mapping[str, str]) -> tuple[Transcript, Outcome]:
        transcript = record(url, body, headers=sent, timeout=timeout, limits=limits)
        return transcript, evaluate(transcript, "mcp", label)

    init = _rpc("initialize", 1, protocolVersion=REVISION, capabilities={},
                clientInfo={"name": "mockhttp-check", "version": "1"})  # fmt: skip
    first, outcome = send("initialize", init, base)
    outcomes = [outcome]
    if first.status != 200:
        return outcomes
    session = first.header("mcp-session-id")
    inside = dict(base)
    if session is not None:
        inside["mcp-session-id"] = session
    inside["mcp-protocol-version"] = _negotiated(first) or REVISION
    for label, body in (
        ("notifications/initialized", _rpc("notifications/initialized")),
        ("tools/list", _rpc("tools/list", 2)),
        ("ping", _rpc("ping", 3)),
    ):
        outcomes.append(send(label, body, inside)[1])
    if session is not None:
        outcomes.append(_probe(url, {k: v for k, v in inside.items() if k != "mcp-session-id"},
                               timeout, limits))  # fmt: skip
    return outcomes


def _probe(url: str, headers: Mapping[str, str], timeout: float, limits: Limits | None) -> Outcome:
    label = "ping without Mcp-Session-Id"
    transcript = record(url, _rpc("ping", 4), headers=headers, timeout=timeout, limits=limits)
    findings: tuple[Finding, ...] = ()
    if transcript.status is not None and transcript.status < 300:
        text = f"a request without the session's Mcp-Session-Id got {transcript.status}, not 400"
        findings = (Finding(SESSION_REQUIRED.id, "warning", text, None, None, label),)
    return Outcome(label, (SESSION_REQUIRED,), findings, (), ("mcp",))
