"""Revision 2026-07-28, stateless: each request with its ``_meta``, answered with no
session; read on the wire (httpx) for each rule, and by the official ``mcp`` SDK's
``Client``, which probes ``server/discover`` and speaks the revision."""

from __future__ import annotations

import base64
import json
from typing import Any

import anyio
import httpx
import pytest
from mcp import types
from mcp.client.client import Client

import mockhttp
from mockhttp import mcp

V = "2026-07-28"
META = {
    "io.modelcontextprotocol/protocolVersion": V,
    "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}},
}
ASK_NAME = mcp.elicitation(
    "Your name?", {"type": "object", "properties": {"name": {"type": "string"}}}
)
KIND = mcp.McpServer(
    tools=[
        mcp.tool(
            "hello", answers=[mcp.answer("Hello, {reply}!", ask=[{**ASK_NAME, "key": "who"}])]
        ),
        mcp.tool("sample", answers=[mcp.answer("{reply}", ask=[mcp.sampling("hi")])]),
        mcp.tool("chatty", answers=[mcp.answer("done", log=["working"])]),
        mcp.tool(
            "two",
            answers=[
                mcp.answer(
                    "{reply[0]} {reply[1]}",
                    ask=[{**ASK_NAME, "key": "a"}, {**ASK_NAME, "key": "b", "round": 1}],
                )
            ],
        ),
    ],
    resources=[mcp.resource("test://r", "text")],
)


def post(
    client: httpx.Client,
    method: str,
    params: dict[str, Any] | None = None,
    *,
    meta: dict[str, Any] | None = None,
    headers: dict[str, str] | None = None,
    id_: int = 1,
) -> httpx.Response:
    """A stateless request: its _meta and the standard headers (SEP-2243)."""
    params = {**(params or {}), "_meta": META if meta is None else meta}
    sent = {
        "Accept": "application/json, text/event-stream",
        "MCP-Protocol-Version": V,
        "Mcp-Method": method,
    }
    name = params.get("name", params.get("uri"))
    if isinstance(name, str):
        sent["Mcp-Name"] = name
    body = {"jsonrpc": "2.0", "id": id_, "method": method, "params": params}
    return client.post("/mcp", json=body, headers={**sent, **(headers or {})})


@pytest.fixture
def client() -> Any:
    KIND.reset()
    with mockhttp.Server() as server, httpx.Client(base_url=server.url, timeout=10) as http:
        server.mock(KIND.mock())
        yield http


def test_discover_and_results_of_the_revision(client: httpx.Client) -> None:
    found = post(client, "server/discover").json()["result"]
    assert found["supportedVersions"] == list(mcp.REVISIONS)
    assert found["_meta"]["io.modelcontextprotocol/serverInfo"]["name"] == "mockhttp-mcp"
    assert (found["resultType"], found["ttlMs"], found["cacheScope"]) == ("complete", 0, "public")
    listed = post(client, "tools/list").json()["result"]
    assert (listed["resultType"], listed["cacheScope"]) == ("complete", "public")
    called = post(client, "tools/call", {"name": "chatty", "arguments": {}}).json()["result"]
    assert called["resultType"] == "complete"
    assert "ttlMs" not in called  # not a cacheable result
    missing = post(client, "resources/read", {"uri": "test://none"}).json()
    assert missing["error"]["code"] == -32602  # (-32002 before this revision)
    assert KIND.session_ids == ()  # no session was opened


@pytest.mark.parametrize(
    ("meta", "headers", "method", "status", "code"),
    [
        ({}, {}, "tools/list", 400, -32602),
        ({"io.modelcontextprotocol/protocolVersion": V}, {}, "tools/list", 400, -32602),
        ({**META, "io.modelcontextprotocol/protocolVersion": "v9"}, {}, "tools/list", 400, -32020),
        (
            {**META, "io.modelcontextprotocol/protocolVersion": "v9"},
            {"MCP-Protocol-Version": "v9"},
            "tools/list",
            400,
            -32022,
        ),
        (META, {"Mcp-Method": "prompts/list"}, "tools/list", 400, -32020),
        (META, {"Mcp-Name": "other"}, "resources/read", 400, -32020),
        (META, {}, "initialize", 404, -32601),
        (META, {}, "ping", 404, -32601),
        (META, {}, "resources/subscribe", 404, -32601),
        (META, {}, "no/such", 404, -32601),
    ],
)
def test_refusals(
    client: httpx.Client,
    meta: dict[str, Any],
    headers: dict[str, str],
    method: str,
    status: int,
    code: int,
) -> None:
    params = {"uri": "test://r"} if method == "resources/read" else {}
    answer = post(client, method, params, meta=meta, headers=headers, id_=77)
    assert (answer.status_code, answer.json()["error"]["code"]) == (status, code)
    assert answer.json()["id"] == 77


def test_unsupported_version_names_the_supported_ones(client: httpx.Client) -> None:
    meta = {**META, "io.modelcontextprotocol/protocolVersion": "v9"}
    data = post(client, "tools/list", meta=meta, headers={"MCP-Protocol-Version": "v9"}).json()
    assert data["error"]["data"] == {"supported": list(mcp.REVISIONS), "requested": "v9"}


def test_input_required_rounds(client: httpx.Client) -> None:
    """Round 1 asks; a retry without the answer is asked again; a tampered state is
    -32602; the answered retry completes, quoting the answer."""
    call = {"name": "hello", "arguments": {}}
    first = post(client, "tools/call", call).json()["result"]
    assert first["resultType"] == "input_required"
    assert first["inputRequests"] == {"who": ASK_NAME}
    state = first["requestState"]
    again = post(client, "tools/call", {**call, "requestState": state, "inputResponses": {}})
    assert again.json()["result"]["inputRequests"] == {"who": ASK_NAME}
    answer = {"action": "accept", "content": {"name": "Ann"}}
    tampered = {**call, "requestState": state + "x", "inputResponses": {"who": answer}}
    assert post(client, "tools/call", tampered).json()["error"]["code"] == -32602
    done = post(
        client, "tools/call", {**call, "requestState": state, "inputResponses": {"who": answer}}
    )
    assert done.json()["result"]["content"][0]["text"] == 'Hello, {"name": "Ann"}!'
    assert [r.method for r in KIND.client_responses] == ["elicitation/create"]


def test_two_rounds_and_a_missing_capability(client: httpx.Client) -> None:
    call = {"name": "two", "arguments": {}}
    one = post(client, "tools/call", call).json()["result"]
    answer = {"action": "accept", "content": {"name": "x"}}
    two = post(
        client,
        "tools/call",
        {**call, "requestState": one["requestState"], "inputResponses": {"a": answer}},
    )
    assert list(two.json()["result"]["inputRequests"]) == ["b"]
    state = two.json()["result"]["requestState"]
    three = post(
        client, "tools/call", {**call, "requestState": state, "inputResponses": {"b": answer}}
    )
    assert three.json()["result"]["resultType"] == "complete"
    refused = post(client, "tools/call", {"name": "sample", "arguments": {}})
    assert refused.status_code == 400
    assert refused.json()["error"]["code"] == -32021
    assert refused.json()["error"]["data"] == {"requiredCapabilities": {"sampling": {}}}


def test_logs_only_with_a_log_level(client: httpx.Client) -> None:
    quiet = post(client, "tools/call", {"name": "chatty", "arguments": {}})
    assert "notifications/message" not in quiet.text
    meta = {**META, "io.modelcontextprotocol/logLevel": "info"}
    loud = post(client, "tools/call", {"name": "chatty", "arguments": {}}, meta=meta)
    assert "notifications/message" in loud.text


def test_subscriptions_listen_acknowledges_then_tags_each_notification(
    client: httpx.Client,
) -> None:
    params = {"notifications": {"toolsListChanged": True, "promptsListChanged": False}}
    body = {
        "jsonrpc": "2.0",
        "id": 9,
        "method": "subscriptions/listen",
        "params": {**params, "_meta": META},
    }
    headers = {
        "Accept": "text/event-stream",
        "MCP-Protocol-Version": V,
        "Mcp-Method": "subscriptions/listen",
    }
    with client.stream("POST", "/mcp", json=body, headers=headers) as stream:
        lines = (line for line in stream.iter_lines() if line.startswith("data: "))
        ack = json.loads(next(lines)[6:])
        assert ack["method"] == "notifications/subscriptions/acknowledged"
        assert ack["params"]["notifications"] == {"toolsListChanged": True}
        KIND.list_changed("prompts")  # not asked for: not sent
        KIND.list_changed("tools")
        change = json.loads(next(lines)[6:])
    assert change["method"] == "notifications/tools/list_changed"
    assert change["params"]["_meta"] == {"io.modelcontextprotocol/subscriptionId": 9}


def test_the_official_client_speaks_the_revision() -> None:
    """``mcp``'s ``Client`` probes ``server/discover``, speaks 2026-07-28, answers an
    ``InputRequiredResult`` from its elicitation callback and retries."""

    async def elicit(context: Any, params: Any) -> types.ElicitResult:
        return types.ElicitResult(action="accept", content={"name": "Ann"})

    async def main(url: str) -> tuple[str | None, str]:
        async with Client(url, elicitation_callback=elicit) as client:
            result: Any = await client.call_tool("hello", {})
            return client.protocol_version, result.content[0].text

    KIND.reset()
    with mockhttp.Server() as server:
        handle = server.mock(KIND.mock())
        version, text = anyio.run(main, server.url + "/mcp")
        methods = [c.request.json()["method"] for c in handle.calls if c.request.method == "POST"]
    assert (version, text) == (V, 'Hello, {"name": "Ann"}!')
    assert methods[0] == "server/discover"
    assert methods.count("tools/call") == 2  # asked, then retried with the answer
    assert "initialize" not in methods


def test_request_state_is_opaque_but_ours() -> None:
    from mockhttp.mcp._stateless import _round_of, _state

    state = _state(1, "d" * 32)
    assert _round_of(state, "d" * 32) == 1
    assert _round_of(state, "e" * 32) is None
    assert _round_of(state + "-TAMPERED", "d" * 32) is None
    assert _round_of(base64.urlsafe_b64encode(b"other:1:x").decode(), "x") is None


@pytest.mark.parametrize(
    ("header", "status"),
    [
        ("Brest", 200),
        ("=?base64?QnJlc3Q=?=", 200),  # base64 of Brest
        ("=?base64?QnJlc3Q?=", 400),  # bad padding
        ("=?base64?QnJl!!c3Q=?=", 400),  # not the alphabet
        ("Paris", 400),
        (None, 400),  # the argument is in the body, its header is not
    ],
)
def test_mcp_param_headers_mirror_the_arguments(header: str | None, status: int) -> None:
    """A property with ``x-mcp-header`` has its argument mirrored in ``Mcp-Param-*``
    (SEP-2243), literal or ``=?base64?...?=``; a mismatch is 400 and -32020."""
    schema = {"type": "object", "properties": {"city": {"type": "string", "x-mcp-header": "City"}}}
    kind = mcp.McpServer(tools=[mcp.tool("w", input_schema=schema, answers=["ok"])])
    with mockhttp.Server() as server, httpx.Client(base_url=server.url) as http:
        server.mock(kind.mock())
        extra = {} if header is None else {"Mcp-Param-City": header}
        answer = post(
            http, "tools/call", {"name": "w", "arguments": {"city": "Brest"}}, headers=extra
        )
    assert answer.status_code == status
    if status == 400:
        assert answer.json()["error"]["code"] == -32020
