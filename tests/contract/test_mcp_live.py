"""Live mcp called directly (contract/_mcp_live.py): the session it sends, in order, the
headers of each request, and where it stops, against our own servers on loopback."""

from __future__ import annotations

import json

import mockhttp
from mockhttp import mcp
from mockhttp.contract._mcp_live import REVISION, run_mcp_live

LABELS = [
    "initialize",
    "notifications/initialized",
    "tools/list",
    "ping",
    "ping with MCP-Protocol-Version 1999-01-01",
    "ping without Mcp-Session-Id",
    "tools/list after DELETE",
]


def test_our_mcp_server_passes_the_whole_session(server: mockhttp.Server) -> None:
    server.mock(mcp.server([mcp.tool("echo", answers=[mcp.answer("hi")])]))
    outcomes = run_mcp_live(server.url + "/mcp", {"x-key": "k"}, 10.0)
    assert [o.exchange for o in outcomes[:-1]] == LABELS
    assert all(o.findings == () for o in outcomes), [o.findings for o in outcomes]
    calls = server.journal
    assert [c.request.method for c in calls] == ["POST"] * 6 + ["DELETE", "POST"]
    bodies = [json.loads(c.request.body) if c.request.body else None for c in calls]
    init = json.loads(calls[0].request.body)
    assert init["method"] == "initialize"
    assert init["params"]["protocolVersion"] == REVISION
    assert [b["method"] for b in bodies if b] == [
        "initialize", "notifications/initialized", "tools/list", "ping", "ping", "ping",
        "tools/list",
    ]  # fmt: skip
    assert "mcp-session-id" not in calls[0].request.headers
    issued = calls[1].request.headers["mcp-session-id"]
    assert all(c.request.headers["x-key"] == "k" for c in calls)
    assert calls[4].request.headers["mcp-protocol-version"] == "1999-01-01"
    assert "mcp-session-id" not in calls[5].request.headers
    assert calls[6].request.headers["mcp-session-id"] == issued
    sse_accept = "application/json, text/event-stream"
    assert calls[6].request.headers.get("accept") != sse_accept


def test_a_failed_initialize_stops_there(server: mockhttp.Server) -> None:
    server.mock(mockhttp.post("/mcp").reply(mockhttp.Reply(status_code=401)))
    [outcome] = run_mcp_live(server.url + "/mcp", {}, 10.0)
    assert outcome.exchange == "initialize"
    assert outcome.transcript is not None
    assert outcome.transcript.status == 401
    assert len(server.journal) == 1


def test_a_server_that_issues_no_session_is_not_sent_the_session_probes(
    server: mockhttp.Server,
) -> None:
    init = {"jsonrpc": "2.0", "id": 1, "result": {"protocolVersion": "2025-06-18"}}
    server.mock(mockhttp.post("/mcp").reply(mockhttp.ok().json(init)))
    outcomes = run_mcp_live(server.url + "/mcp", {}, 10.0)
    assert [o.exchange for o in outcomes[:-1]] == LABELS[:5]
    versions = [c.request.headers.get("mcp-protocol-version") for c in server.journal]
    assert versions == [None, "2025-06-18", "2025-06-18", "2025-06-18", "1999-01-01"]
