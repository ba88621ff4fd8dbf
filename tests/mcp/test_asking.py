"""Server-to-client requests (sampling, elicitation, roots) answered by the official
``mcp`` SDK's callbacks: the mock asks on the call's SSE stream, waits for the answer
POSTed back, then answers the call quoting it; the answers are kept on the kind."""

from __future__ import annotations

import json
from typing import Any

import anyio
import httpx
import pytest
from mcp import types
from mcp.client.session import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError

import mockhttp
from mockhttp import mcp

ASKING = mcp.tool(
    "plan",
    answers=[
        mcp.answer(
            "model: {reply[0]}; form: {reply[1]}; roots: {reply}",
            ask=[
                mcp.sampling("What is 2+2?", max_tokens=5),
                mcp.elicitation(
                    "Your name?", {"type": "object", "properties": {"name": {"type": "string"}}}
                ),
                mcp.roots(),
            ],
        )
    ],
)


async def sample(context: Any, params: types.CreateMessageRequestParams) -> Any:
    content = params.messages[0].content
    assert isinstance(content, types.TextContent)
    assert content.text == "What is 2+2?"
    return types.CreateMessageResult(
        role="assistant", content=types.TextContent(type="text", text="4"), model="m"
    )


async def elicit(context: Any, params: types.ElicitRequestParams) -> Any:
    return types.ElicitResult(action="accept", content={"name": "Ada"})


async def list_roots(context: Any) -> Any:
    root = types.Root(uri="file:///work")  # type: ignore[arg-type]
    return types.ListRootsResult(roots=[root])


def call(url: str, version: str | None = None, **callbacks: Any) -> Any:
    async def main() -> Any:
        with anyio.fail_after(10):
            async with (
                streamable_http_client(url) as (read, write),
                ClientSession(read, write, **callbacks) as session,
            ):
                await session.initialize()
                try:
                    return await session.call_tool("plan", {})
                except MCPError as exc:
                    return exc

    return anyio.run(main)


def test_the_sdk_answers_sampling_elicitation_and_roots() -> None:
    kind = mcp.McpServer(tools=[ASKING])
    with mockhttp.Server() as server:
        handle = server.mock(kind.mock())
        result = call(
            server.url + "/mcp",
            sampling_callback=sample,
            elicitation_callback=elicit,
            list_roots_callback=list_roots,
        )
    assert result.content[0].text == 'model: 4; form: {"name": "Ada"}; roots: file:///work'
    answers = kind.client_responses
    assert [(r.id, r.method) for r in answers] == [
        (1, "sampling/createMessage"),
        (2, "elicitation/create"),
        (3, "roots/list"),
    ]
    assert answers[0].result is not None
    assert answers[0].result["content"]["text"] == "4"
    assert answers[1].result == {"action": "accept", "content": {"name": "Ada"}}
    assert len({r.session_id for r in answers}) == 1
    posted = [json.loads(c.request.body) for c in handle.calls if c.request.method == "POST"]
    replies = [m for m in posted if "method" not in m]
    assert [m["id"] for m in replies] == [1, 2, 3]  # each POSTed back, in the journal


def test_a_client_without_the_capability_gets_an_error() -> None:
    """The SDK declares elicitation only with a callback: without it, the call fails with
    the mock's error saying which capability was missing."""
    with mockhttp.Server() as server:
        server.mock(mcp.server([ASKING]))
        missing = call(
            server.url + "/mcp", sampling_callback=sample, list_roots_callback=list_roots
        )
    assert isinstance(missing, MCPError)
    assert missing.error.message == (
        "the client did not declare the 'elicitation' capability elicitation/create needs"
    )


ACCEPT = {"Accept": "application/json, text/event-stream"}
SAMPLING = mcp.tool("think", answers=[mcp.answer("said {reply}", ask=[mcp.sampling("Hi?")])])
CAPABLE: dict[str, Any] = {"sampling": {}, "elicitation": {}, "roots": {}}


def begin(client: httpx.Client, version: str, capabilities: Any = CAPABLE) -> dict[str, str]:
    init = {
        "jsonrpc": "2.0",
        "id": 0,
        "method": "initialize",
        "params": {"protocolVersion": version, "capabilities": capabilities},
    }
    answer = client.post("/mcp", json=init, headers=ACCEPT)
    return {
        **ACCEPT,
        "Mcp-Session-Id": answer.headers["mcp-session-id"],
        "MCP-Protocol-Version": version,
    }


def test_the_stream_waits_for_the_clients_answer_on_the_wire() -> None:
    """Byte for byte: the call's stream sends the request (id 1) and waits; a response
    with another id is refused (400); the right one (202) lets the result out."""
    call = {"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "think"}}
    with mockhttp.Server() as server, httpx.Client(base_url=server.url, timeout=5) as client:
        server.mock(mcp.server([SAMPLING]))
        headers = begin(client, "2025-06-18")
        with client.stream("POST", "/mcp", json=call, headers=headers) as stream:
            chunks = stream.iter_bytes()
            asked = next(chunks)
            assert asked == (
                b'event: message\nid: 1-0\ndata: {"jsonrpc":"2.0","id":1,'
                b'"method":"sampling/createMessage","params":{"messages":[{"role":"user",'
                b'"content":{"type":"text","text":"Hi?"}}],"maxTokens":100}}\n\n'
            )
            reply = {
                "jsonrpc": "2.0",
                "result": {
                    "role": "assistant",
                    "model": "m",
                    "content": {"type": "text", "text": "hello"},
                },
            }
            wrong = client.post("/mcp", json={**reply, "id": 2}, headers=headers)
            assert (wrong.status_code, wrong.json()["error"]["message"]) == (
                400,
                "Bad Request: no request of the mock has id 2",
            )
            assert client.post("/mcp", json={**reply, "id": 1}, headers=headers).status_code == 202
            rest = b"".join(chunks)
    assert rest == (
        b'event: message\nid: 1-1\ndata: {"jsonrpc":"2.0","id":7,"result":{"content":'
        b'[{"type":"text","text":"said hello"}],"isError":false}}\n\n'
    )


@pytest.mark.parametrize(
    ("version", "capabilities", "accept", "why"),
    [
        (
            "2025-03-26",
            CAPABLE,
            ACCEPT["Accept"],
            "elicitation/create needs revision 2025-06-18 or later (this session: 2025-03-26)",
        ),
        (
            "2025-06-18",
            {},
            ACCEPT["Accept"],
            "the client did not declare the 'elicitation' capability elicitation/create needs",
        ),
        (
            "2025-06-18",
            CAPABLE,
            "application/json",
            "asking the client needs an SSE answer (Accept: text/event-stream)",
        ),
    ],
)
def test_a_call_that_cannot_ask_is_a_json_rpc_error(
    version: str, capabilities: Any, accept: str, why: str
) -> None:
    tool = mcp.tool("form", answers=[mcp.answer("ok", ask=[mcp.elicitation("Name?")])])
    call = {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "form"}}
    with mockhttp.Server() as server, httpx.Client(base_url=server.url, timeout=5) as client:
        server.mock(mcp.server([tool]))
        headers = {**begin(client, version, capabilities), "Accept": accept}
        answer = client.post("/mcp", json=call, headers=headers)
    assert answer.json() == {"jsonrpc": "2.0", "id": 3, "error": {"code": -32603, "message": why}}


def test_ask_in_files_and_its_errors() -> None:
    """``ask`` is data in a mock file; a wrong method is reported at its node."""
    kind = mcp.McpServer(
        tools=[{"name": "t", "answers": [{"text": "x", "ask": [{"method": "roots/list"}]}]}]
    )
    assert kind.offered_tools[0].answers[0].ask == ({"method": "roots/list", "params": {}},)
    assert kind.to_args()["tools"][0]["answers"][0]["ask"] == [
        {"method": "roots/list", "params": {}}
    ]
    with pytest.raises(mockhttp.ConfigError) as bad:
        mcp.McpServer(tools=[{"name": "t", "answers": [{"ask": [{"method": "roots/get"}]}]}])
    assert str(bad.value) == (
        "tools[0].answers[0].ask[0].method: 'roots/get' must be one of "
        "sampling/createMessage, roots/list, elicitation/create"
    )
