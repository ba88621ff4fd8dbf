"""Safe by default: Host and Origin checked on the MCP endpoint (DNS rebinding), a cap on
sessions (the oldest evicted) and on batches, each refused with a clear JSON-RPC error;
and cancellation of a call that waits for the client."""

from __future__ import annotations

import json
from typing import Any

import httpx

import mockhttp
from mockhttp import mcp
from mockhttp._core._kept import Memory
from tests.helpers.cli_process import Serving

from .test_wire import ACCEPT, rpc, start


def post(client: httpx.Client, body: Any, headers: dict[str, str]) -> httpx.Response:
    return client.post("/mcp", content=json.dumps(body), headers={**ACCEPT, **headers})


def test_rebinding_is_refused_on_the_wire() -> None:
    """A page on another site, its name resolved to 127.0.0.1, gets 403 and a JSON-RPC
    error with its request's id; the same request by the server's own name passes."""
    with mockhttp.Server() as server, httpx.Client(base_url=server.url) as client:
        server.mock(mcp.server([mcp.tool("t")]))
        hit = rpc("initialize", 5, protocolVersion="2025-11-25")
        evil = post(client, hit, {"Host": "evil.example", "Origin": "http://evil.example"})
        assert evil.status_code == 403
        assert evil.json()["id"] == 5
        assert evil.json()["error"]["code"] == -32600
        assert "DNS rebinding" in evil.json()["error"]["message"]
        page = post(client, hit, {"Origin": "https://evil.example"})
        assert (page.status_code, page.json()["id"]) == (403, 5)
        own = post(
            client,
            hit,
            {"Host": f"localhost:{server.port}", "Origin": f"http://localhost:{server.port}"},
        )
        assert own.status_code == 200
        widened = mcp.McpServer(allow_hosts=["evil.example"], allow_origins=["http://evil.example"])
        server.mock(widened.mock("/wide"))
        ok = client.post(
            "/wide",
            json=hit,
            headers={**ACCEPT, "Host": "evil.example", "Origin": "http://evil.example"},
        )
        assert ok.status_code == 200


def test_the_oldest_session_is_evicted_beyond_the_cap() -> None:
    kind = mcp.McpServer(max_sessions=2)
    with mockhttp.Server() as server, httpx.Client(base_url=server.url) as client:
        server.mock(kind.mock())
        first, second, third = (start(client) for _ in range(3))
        assert len(kind.session_ids) == 2
        gone = post(client, rpc("ping", 9), first)
        assert gone.status_code == 404
        assert gone.json()["id"] == 9
        assert (
            "ended as the oldest when a session beyond max_sessions=2 began"
            in (gone.json()["error"]["message"])
        )
        assert post(client, rpc("ping", 10), second).status_code == 200
        assert post(client, rpc("ping", 11), third).status_code == 200


def test_a_batch_beyond_the_cap_is_refused() -> None:
    kind = mcp.McpServer(max_batch=3)
    with mockhttp.Server() as server, httpx.Client(base_url=server.url) as client:
        server.mock(kind.mock())
        headers = start(client, "2025-03-26")
        assert len(post(client, [rpc("ping", i) for i in range(3)], headers).json()) == 3
        refused = post(client, [rpc("ping", i) for i in range(4)], headers)
        assert refused.status_code == 400
        assert refused.json()["error"] == {
            "code": -32600,
            "message": "Invalid Request: a batch of 4 messages is more than this server "
            "takes (max_batch=3)",
        }


def test_ended_sessions_are_forgotten() -> None:
    """A session ended by DELETE or expiry leaves nothing behind (no leak)."""
    kind = mcp.McpServer()
    with mockhttp.Server() as server, httpx.Client(base_url=server.url) as client:
        server.mock(kind.mock())
        for _ in range(20):
            client.delete("/mcp", headers=start(client))
        assert kind.session_ids == ()
        scope = kind.state_key + "\x1f"
        memory = server._router.kept
        assert isinstance(memory, Memory)
        kept = [k[len(scope) :] for k in memory.values if k.startswith(scope)]
        assert kept == ["sessions"]  # the index alone: no session's record or streams
        assert kind.state._gets == {}


def test_a_cancelled_call_ends_without_a_response() -> None:
    """``notifications/cancelled`` for a call waiting on the client: its stream ends
    with no response (the spec's SHOULD NOT answer), and the test sees the cancellation."""
    tool = mcp.tool("ask", answers=[mcp.answer("{reply}", ask=[mcp.sampling("hi")])])
    kind = mcp.McpServer(tools=[tool])
    with mockhttp.Server() as server, httpx.Client(base_url=server.url, timeout=10) as client:
        server.mock(kind.mock())
        init = rpc("initialize", 0, protocolVersion="2025-06-18", capabilities={"sampling": {}})
        answer = client.post("/mcp", json=init, headers=ACCEPT)
        headers = {**ACCEPT, "Mcp-Session-Id": answer.headers["mcp-session-id"]}
        with client.stream(
            "POST", "/mcp", json=rpc("tools/call", 7, name="ask"), headers=headers
        ) as call:
            lines = call.iter_lines()
            asked = next(line for line in lines if line.startswith("data: {"))
            assert json.loads(asked[6:])["method"] == "sampling/createMessage"
            cancel = rpc("notifications/cancelled", None, requestId=7, reason="user hit stop")
            assert client.post("/mcp", json=cancel, headers=headers).status_code == 202
            rest = list(lines)
        assert not any('"id":7' in line for line in rest)
    (cancelled,) = kind.cancelled
    assert (cancelled.request_id, cancelled.reason) == (7, "user hit stop")


def test_serve_widens_the_mcp_endpoints_with_allow_host_and_allow_origin() -> None:
    """``mockhttp serve``: the built-in ``/mcp`` refuses another site's Host and Origin;
    ``--allow-host`` and ``--allow-origin`` admit them."""
    hit = rpc("initialize", 1, protocolVersion="2025-11-25")
    evil = {**ACCEPT, "Host": "mcp.example", "Origin": "http://app.example"}
    with Serving("--quiet") as served:
        assert httpx.post(served.url + "/mcp", json=hit, headers=evil).status_code == 403
    widened = ("--quiet", "--allow-host", "mcp.example", "--allow-origin", "http://app.example")
    with Serving(*widened) as served:
        assert httpx.post(served.url + "/mcp", json=hit, headers=evil).status_code == 200
        other = {**evil, "Origin": "http://other.example"}
        assert httpx.post(served.url + "/mcp", json=hit, headers=other).status_code == 403


def test_allowing_widens_only_mcp_mocks() -> None:
    plain = mockhttp.request("GET", "/x")
    widened = mcp.allowing([mcp.server(), plain], ["a.example"], ["http://b.example"])
    kind = widened[0].kind
    assert isinstance(kind, mcp.McpServer)
    assert (kind.allow_hosts, kind.allow_origins) == (("a.example",), ("http://b.example",))
    assert widened[1] is plain


def test_expire_ends_an_open_get_stream_at_once_and_the_session_at_the_next_request() -> None:
    """The test's ``expire()`` (its own thread) ends the session's GET stream now; the
    session itself, kept by the server, ends when the server's thread takes the command:
    the next request gets 404."""
    kind = mcp.McpServer()
    with mockhttp.Server() as server, httpx.Client(base_url=server.url, timeout=10) as client:
        server.mock(kind.mock())
        headers = start(client)
        stream_headers = {**headers, "Accept": "text/event-stream"}
        with client.stream("GET", "/mcp", headers=stream_headers) as get:
            assert get.status_code == 200
            assert kind.expire() == 1
            assert kind.session_ids == ()
            assert list(get.iter_bytes()) == []  # ended, and nothing was sent
        gone = client.post("/mcp", json=rpc("tools/list", 2), headers=headers)
        assert gone.status_code == 404
        assert kind.expire() == 0
