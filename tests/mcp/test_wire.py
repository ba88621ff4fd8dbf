"""The mock MCP server on the wire, read with httpx: the transport's rules, byte for byte."""

from __future__ import annotations

import json
import threading
from typing import Any

import httpx
import pytest

import mockhttp
from mockhttp import mcp

ACCEPT = {"Accept": "application/json, text/event-stream"}
TOOL = mcp.tool("echo", answers=[mcp.answer("hi", progress=[1], log=["working"])])


def rpc(method: str, id_: int | None = 1, **params: Any) -> dict[str, Any]:
    message: dict[str, Any] = {"jsonrpc": "2.0", "method": method, "params": params}
    if id_ is not None:
        message["id"] = id_
    return message


def start(client: httpx.Client, version: str = "2025-06-18") -> dict[str, str]:
    """Initialize; returns the headers of a request in that session."""
    answer = client.post("/mcp", json=rpc("initialize", protocolVersion=version), headers=ACCEPT)
    assert answer.status_code == 200
    headers = {**ACCEPT, "Mcp-Session-Id": answer.headers["mcp-session-id"]}
    headers["MCP-Protocol-Version"] = answer.json()["result"]["protocolVersion"]
    assert (
        client.post(
            "/mcp", json=rpc("notifications/initialized", None), headers=headers
        ).status_code
        == 202
    )
    return headers


@pytest.fixture
def served() -> Any:
    kind = mcp.McpServer(tools=[TOOL])
    with mockhttp.Server() as server, httpx.Client(base_url=server.url, timeout=5) as client:
        server.mock(kind.mock())
        yield kind, client


def test_sse_answer_bytes(served: Any) -> None:
    """A call with notifications is answered as SSE: progress, log, then the response,
    event ids ``<stream>-<n>``; 2025-11-25 opens the stream with a priming event."""
    _, client = served
    for version, first in (
        ("2025-06-18", ""),
        ("2025-11-25", "event: message\nid: 1-0\ndata: \n\n"),
    ):
        headers = start(client, version)
        call = rpc("tools/call", 7, name="echo", arguments={}, _meta={"progressToken": "t"})
        body = client.post("/mcp", json=call, headers=headers).text
        n = 1 if first else 0
        assert body == first + (
            f'event: message\nid: 1-{n}\ndata: {{"jsonrpc":"2.0","method":"notifications/progress",'
            '"params":{"progressToken":"t","progress":1}}\n\n'
            f'event: message\nid: 1-{n + 1}\ndata: {{"jsonrpc":"2.0",'
            '"method":"notifications/message",'
            '"params":{"level":"info","logger":"mockhttp-mcp","data":"working"}}\n\n'
            f'event: message\nid: 1-{n + 2}\ndata: {{"jsonrpc":"2.0","id":7,"result":{{"content":'
            '[{"type":"text","text":"hi"}],"isError":false}}\n\n'
        )


def test_session_rules(served: Any) -> None:
    """No session id: 400; an unknown one: 404; DELETE ends it (then 404); a revision the
    mock does not speak: 400; an unknown method: a JSON-RPC error."""
    _, client = served
    headers = start(client)
    assert client.post("/mcp", json=rpc("ping"), headers=ACCEPT).status_code == 400
    assert (
        client.post(
            "/mcp", json=rpc("ping"), headers={**headers, "Mcp-Session-Id": "x"}
        ).status_code
        == 404
    )
    bad = client.post(
        "/mcp", json=rpc("ping"), headers={**headers, "MCP-Protocol-Version": "1999-01-01"}
    )
    assert bad.status_code == 400
    assert "unsupported MCP-Protocol-Version" in bad.json()["error"]["message"]
    assert client.post("/mcp", json=rpc("nope"), headers=headers).json()["error"]["code"] == -32601
    assert client.post("/mcp", json=rpc("ping"), headers=headers).json() == {
        "jsonrpc": "2.0",
        "id": 1,
        "result": {},
    }
    assert client.delete("/mcp", headers=headers).status_code == 200
    assert client.post("/mcp", json=rpc("ping"), headers=headers).status_code == 404


def test_errors_carry_the_request_id_when_it_could_be_read(served: Any) -> None:
    """Each refusal of one message answers with its id (the shared JSON-RPC envelope);
    null only for a body that is not JSON or an id that is no id."""
    _, client = served
    headers = start(client)
    cases = [
        (rpc("ping", 41), ACCEPT, 400, -32600),  # no session
        (rpc("ping", 42), {**headers, "Mcp-Session-Id": "x"}, 404, -32001),
        (rpc("ping", 43), {**headers, "MCP-Protocol-Version": "1999-01-01"}, 400, -32600),
        (rpc("ping", 44), {"Accept": "text/html"}, 406, -32600),
        ({"jsonrpc": "2.0", "id": 45, "method": 1}, headers, 400, -32600),
        ({"jsonrpc": "1.0", "id": "s", "method": "ping"}, headers, 400, -32600),
    ]
    for message, sent, http, code in cases:
        answer = client.post("/mcp", json=message, headers=sent)
        assert (answer.status_code, answer.json()["error"]["code"]) == (http, code)
        assert answer.json()["id"] == message["id"]
    for body in ('{"jsonrpc": "2.0", "id": {"a": 1}, "method": "ping"}', "{not json"):
        answer = client.post("/mcp", content=body, headers=headers)
        assert (answer.status_code, answer.json()["id"]) == (400, None)


def test_negotiation_and_accept() -> None:
    """``initialize`` answers the client's revision when the mock speaks it, else its
    newest; a client that accepts neither JSON nor SSE gets 406."""
    kind = mcp.McpServer(protocol_versions=["2025-03-26", "2025-06-18"])
    with mockhttp.Server() as server, httpx.Client(base_url=server.url) as client:
        server.mock(kind.mock())
        for asked, answered in (("2025-03-26", "2025-03-26"), ("2025-11-25", "2025-06-18")):
            got = client.post("/mcp", json=rpc("initialize", protocolVersion=asked), headers=ACCEPT)
            assert got.json()["result"]["protocolVersion"] == answered
        refused = client.post("/mcp", json=rpc("initialize"), headers={"Accept": "text/html"})
        assert refused.status_code == 406
    assert len(kind.session_ids) == 2


def test_get_stream_delivers_and_resumes(served: Any) -> None:
    """``notify()`` puts a message on the open GET stream (id ``0-<n>``); a new GET with
    ``Last-Event-ID: 0-0`` gets the messages after it."""
    kind, client = served
    headers = start(client)
    stream = {**headers, "Accept": "text/event-stream"}
    lines: list[str] = []
    with client.stream("GET", "/mcp", headers=stream) as answer:
        assert answer.headers["content-type"] == "text/event-stream"
        opened = threading.Timer(0.1, kind.notify, ["notifications/tools/list_changed"])
        opened.start()
        for line in answer.iter_lines():
            lines.append(line)
            if line == "":
                break
    assert lines == [
        "event: message",
        "id: 0-0",
        'data: {"jsonrpc":"2.0","method":"notifications/tools/list_changed"}',
        "",
    ]
    kind.notify("notifications/message", {"level": "info", "data": "later"})
    with client.stream("GET", "/mcp", headers={**stream, "Last-Event-ID": "0-0"}) as answer:
        read = answer.iter_lines()
        first = next(read, ""), next(read, "")
    assert first == ("event: message", "id: 0-1")
    unknown = client.get("/mcp", headers={**stream, "Last-Event-ID": "9-9"})
    assert unknown.status_code == 400
    message = json.loads(unknown.text)["error"]["message"]
    assert message == "Bad Request: no event '9-9' in this session"
