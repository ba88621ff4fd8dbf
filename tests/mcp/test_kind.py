"""The reply kind (``_kind``): its options checked, its test-side methods, and its HTTP
answers built directly (no socket): sessions, Accept, versions, GET and DELETE, the
Host/Origin guard, max_sessions."""

from __future__ import annotations

import json
from typing import Any

import pytest

from mockhttp import ConfigError, mcp
from mockhttp._core._reply import Reply
from mockhttp._core._request import Headers, Request


@pytest.mark.parametrize(
    ("option", "value"),
    [("page_size", 0), ("max_sessions", -1), ("max_batch", True), ("allow_hosts", "x")],
)
def test_bad_server_options(option: str, value: object) -> None:
    with pytest.raises(ConfigError, match=option):
        mcp.McpServer(**{option: value})  # type: ignore[arg-type]


def test_test_side_methods_refuse_bad_arguments() -> None:
    kind = mcp.McpServer()
    with pytest.raises(ConfigError, match="must be a notification"):
        kind.notify("tools/list")
    with pytest.raises(ConfigError, match="what='files' must be one of tools, resources, prompts"):
        kind.list_changed("files")
    with pytest.raises(ConfigError, match="must be a resource's URI"):
        kind.update("")


def test_a_stateful_only_mock_refuses_the_stateless_revision() -> None:
    kind = mcp.McpServer(protocol_versions=mcp.STATEFUL)
    assert kind.protocol_versions == mcp.STATEFUL
    assert (*mcp.STATEFUL, "2026-07-28") == mcp.REVISIONS


# -- answering without a server (``build``: the kind's own state) -----------------------------

JSON_AND_SSE = "application/json, text/event-stream"


def http(method: str, body: Any = None, *, accept: str = JSON_AND_SSE, **headers: str) -> Request:
    raw = body if isinstance(body, bytes) else b"" if body is None else json.dumps(body).encode()
    pairs = {"host": "127.0.0.1:8080", "accept": accept, **headers}
    return Request(
        method, "/mcp", Headers(tuple((k.replace("_", "-"), v) for k, v in pairs.items())), raw
    )


def rpc(method: str, id_: Any = 1, **params: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"jsonrpc": "2.0", "method": method, "params": params}
    if id_ is not None:
        out["id"] = id_
    return out


def answer(reply: Reply) -> tuple[int, Any]:
    assert reply.stream is None, reply.describe()
    return reply.status_code, json.loads(reply.content) if reply.content else None


def opened(kind: mcp.McpServer, version: str = "2025-06-18") -> str:
    """A session begun with ``initialize`` (and ``initialized``); its id."""
    reply = kind.build(http("POST", rpc("initialize", protocolVersion=version, capabilities={})))
    session = dict(reply.headers)["Mcp-Session-Id"]
    note = rpc("notifications/initialized", None)
    assert kind.build(http("POST", note, mcp_session_id=session)).status_code == 202
    return session


def test_initialize_opens_a_session_and_answers_the_revision_asked() -> None:
    kind = mcp.McpServer(name="weather", version="2.0", instructions="Ask about weather.")
    reply = kind.build(
        http("POST", rpc("initialize", protocolVersion="2025-06-18", capabilities={}))
    )
    status, body = answer(reply)
    assert status == 200
    session = dict(reply.headers)["Mcp-Session-Id"]
    assert session in kind.session_ids
    assert body["result"]["protocolVersion"] == "2025-06-18"
    assert body["result"]["serverInfo"] == {"name": "weather", "version": "2.0"}
    assert body["result"]["instructions"] == "Ask about weather."
    assert body["result"]["capabilities"]["tools"] == {"listChanged": True}


def test_initialize_with_a_revision_not_spoken_gets_the_newest_stateful_one() -> None:
    kind = mcp.McpServer()
    reply = kind.build(
        http("POST", rpc("initialize", protocolVersion="1999-01-01", capabilities={}))
    )
    assert answer(reply)[1]["result"]["protocolVersion"] in mcp.STATEFUL


def test_a_session_is_required_and_an_unknown_one_is_not_found() -> None:
    kind = mcp.McpServer()
    status, body = answer(kind.build(http("POST", rpc("tools/list", 7))))
    assert status == 400
    assert body["id"] == 7
    assert body["error"]["message"] == "Bad Request: no Mcp-Session-Id header (initialize first)"
    status, body = answer(kind.build(http("POST", rpc("tools/list", 8), mcp_session_id="nope")))
    assert status == 404
    assert (body["id"], body["error"]["code"], body["error"]["message"]) == (
        8,
        -32001,
        "Session not found",
    )


def test_an_unsupported_version_header_is_a_400() -> None:
    kind = mcp.McpServer(protocol_versions=("2025-06-18",))
    session = opened(kind)
    request = http(
        "POST", rpc("tools/list"), mcp_session_id=session, mcp_protocol_version="2025-03-26"
    )
    status, body = answer(kind.build(request))
    assert status == 400
    assert body["error"]["message"] == "Bad Request: unsupported MCP-Protocol-Version: 2025-03-26"


def test_a_request_in_a_session_is_answered_as_json_when_there_is_nothing_before_it() -> None:
    kind = mcp.McpServer(tools=[mcp.tool("echo", answers=["ok"])])
    session = opened(kind)
    status, body = answer(kind.build(http("POST", rpc("tools/list", 3), mcp_session_id=session)))
    assert status == 200
    assert body["id"] == 3
    assert [t["name"] for t in body["result"]["tools"]] == ["echo"]


def test_answer_as_sse_streams_even_a_lone_response_with_a_priming_event() -> None:
    kind = mcp.McpServer(answer_as="sse")
    session = opened(kind, "2025-11-25")
    reply = kind.build(http("POST", rpc("ping", 4), mcp_session_id=session))
    assert reply.stream is not None
    first, last = reply.stream.events[0], reply.stream.events[-1]
    assert first.data in (None, "")  # the priming event: an id, no data (SEP-1699)
    assert first.id is not None
    data = last.data if isinstance(last.data, dict) else json.loads(str(last.data))
    assert data["id"] == 4


def test_a_client_accepting_only_json_gets_json_even_from_an_sse_server() -> None:
    kind = mcp.McpServer(answer_as="sse")
    session = opened(kind)
    reply = kind.build(
        http("POST", rpc("ping", 5), accept="application/json", mcp_session_id=session)
    )
    assert answer(reply) == (200, {"jsonrpc": "2.0", "id": 5, "result": {}})


def test_a_client_accepting_neither_is_a_406_with_its_id() -> None:
    status, body = answer(mcp.McpServer().build(http("POST", rpc("ping", 6), accept="image/png")))
    assert status == 406
    assert body["id"] == 6
    assert (
        body["error"]["message"] == "Not Acceptable: accept application/json or text/event-stream"
    )


def test_a_body_that_is_not_json_is_a_parse_error() -> None:
    status, body = answer(mcp.McpServer().build(http("POST", b"{nope")))
    assert status == 400
    assert body["error"]["code"] == -32700
    assert body["id"] is None


def test_a_notification_or_an_unknown_response_in_a_session() -> None:
    kind = mcp.McpServer()
    session = opened(kind)
    note = rpc("notifications/progress", None, progressToken=1, progress=1)
    assert kind.build(http("POST", note, mcp_session_id=session)).status_code == 202
    stray = {"jsonrpc": "2.0", "id": "s-1", "result": {}}
    status, body = answer(kind.build(http("POST", stray, mcp_session_id=session)))
    assert status == 400
    assert body["error"]["message"] == "Bad Request: no request of the mock has id 's-1'"


def test_delete_ends_the_session() -> None:
    kind = mcp.McpServer()
    session = opened(kind)
    assert kind.build(http("DELETE", mcp_session_id=session)).status_code == 200
    assert session not in kind.session_ids
    assert kind.build(http("POST", rpc("ping"), mcp_session_id=session)).status_code == 404
    assert kind.build(http("DELETE", mcp_session_id=session)).status_code == 404


def test_without_sessions_no_id_is_given_and_delete_is_refused() -> None:
    kind = mcp.McpServer(sessions=False)
    reply = kind.build(
        http("POST", rpc("initialize", protocolVersion="2025-06-18", capabilities={}))
    )
    assert "Mcp-Session-Id" not in dict(reply.headers)
    assert answer(kind.build(http("POST", rpc("ping", 2))))[1]["result"] == {}
    status, body = answer(kind.build(http("DELETE")))
    assert status == 405
    assert body["error"]["message"] == "Method Not Allowed: this server keeps no sessions"


def test_the_get_stream_refusals() -> None:
    off = mcp.McpServer(get_stream=False).build(http("GET"))
    assert off.status_code == 405
    assert dict(off.headers)["Allow"] == "POST, DELETE"
    kind = mcp.McpServer()
    session = opened(kind)
    status, body = answer(
        kind.build(http("GET", accept="application/json", mcp_session_id=session))
    )
    assert (status, body["error"]["message"]) == (
        406,
        "Not Acceptable: a GET stream is text/event-stream",
    )
    status, body = answer(
        kind.build(
            http("GET", accept="text/event-stream", mcp_session_id=session, last_event_id="9-9")
        )
    )
    assert (status, body["error"]["message"]) == (
        400,
        "Bad Request: no event '9-9' in this session",
    )


def test_other_methods_are_405_with_allow() -> None:
    reply = mcp.McpServer().build(http("PUT", rpc("ping")))
    assert reply.status_code == 405
    assert dict(reply.headers)["Allow"] == "GET, POST, DELETE"


def test_a_foreign_host_or_origin_is_refused_403_with_the_id() -> None:
    kind = mcp.McpServer()
    status, body = answer(kind.build(http("POST", rpc("ping", 11), host="evil.example")))
    assert status == 403
    assert body["id"] == 11
    status, _ = answer(kind.build(http("POST", rpc("ping", 12), origin="http://evil.example")))
    assert status == 403
    wider = mcp.McpServer(allow_hosts=("dev.example",))
    request = http(
        "POST", rpc("initialize", protocolVersion="2025-06-18", capabilities={}), host="dev.example"
    )
    assert wider.build(request).status_code == 200


def test_the_oldest_session_ends_past_max_sessions_and_says_why() -> None:
    kind = mcp.McpServer(max_sessions=2)
    first = opened(kind)
    opened(kind)
    opened(kind)
    assert first not in kind.session_ids
    status, body = answer(kind.build(http("POST", rpc("ping"), mcp_session_id=first)))
    assert status == 404
    assert body["error"]["message"] == (
        "Session not found: ended as the oldest when a session beyond max_sessions=2 began"
    )
