"""The mock MCP server read by the official ``mcp`` Python SDK's Streamable HTTP client.

Each test runs the SDK's ``ClientSession`` over ``streamable_http_client`` against a real
loopback server, and checks what the SDK saw and what went over the wire (the journal).
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import Any

import anyio
import pytest
from mcp.client.session import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError

import mockhttp
from mockhttp import fault, match, mcp

WEATHER = mcp.tool(
    "get_weather",
    description="The weather in a city",
    input_schema={"type": "object", "properties": {"city": {"type": "string"}}},
    answers=[
        mcp.answer("Sunny, 21 °C", progress=[0.5, 1.0]),
        mcp.answer("Rain", when={"city": "Brest"}),
        mcp.answer("no such city", when={"city": "Atlantis"}, is_error=True),
        mcp.error("weather service down", code=-32603, when={"city": "Nowhere"}),
    ],
)

Body = Callable[[ClientSession], Awaitable[Any]]


def run(server: mockhttp.Server, body: Body, path: str = "/mcp") -> Any:
    """Run ``body`` with an initialized SDK session to ``server``; returns its value."""

    async def main() -> Any:
        with anyio.fail_after(10):
            return await session_body()

    async def session_body() -> Any:
        async with (
            streamable_http_client(server.url + path) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            return await body(session)

    return anyio.run(main)


def methods(handle: mockhttp.ActiveMock) -> list[str]:
    """The HTTP method and JSON-RPC method of each call, as the journal has them."""
    out = []
    for call in handle.calls:
        body = json.loads(call.request.body) if call.request.body else {}
        out.append(f"{call.request.method} {body.get('method', '')}".strip())
    return out


@pytest.mark.parametrize("answer_as", ["json", "sse"])
def test_initialize_list_and_call(answer_as: str) -> None:
    """The SDK initializes (revision 2025-11-25 negotiated, a session issued), lists the
    tools and calls one, with JSON answers and with SSE answers alike."""
    kind = mcp.McpServer(tools=[WEATHER], answer_as=answer_as)  # type: ignore[arg-type]
    with mockhttp.Server() as server:
        handle = server.mock(kind.mock())
        seen: list[float] = []

        async def body(session: ClientSession) -> Any:
            async def progress(progress: float, total: float | None, message: str | None) -> None:
                seen.append(progress)

            listed = await session.list_tools()
            sunny = await session.call_tool(
                "get_weather", {"city": "Paris"}, progress_callback=progress
            )
            rain = await session.call_tool("get_weather", {"city": "Brest"})
            return session.initialize_result, listed, sunny, rain

        init, listed, sunny, rain = run(server, body)
    assert init is not None
    assert init.protocol_version == "2025-11-25"
    assert init.server_info.name == "mockhttp-mcp"
    assert [t.name for t in listed.tools] == ["get_weather"]
    assert listed.tools[0].input_schema["properties"] == {"city": {"type": "string"}}
    assert sunny.content[0].text == "Sunny, 21 °C"
    assert not sunny.is_error
    assert rain.content[0].text == "Rain"
    assert seen == ([0.5, 1.0] if answer_as == "sse" else [])  # JSON has no room for them
    calls = methods(handle)
    assert calls[:2] == ["POST initialize", "POST notifications/initialized"]
    assert calls.count("POST tools/call") == 2
    assert calls[-1] == "DELETE"
    starts = {bytes(c.body_sent[:7]) for c in handle.calls if b"tools/call" in c.request.body}
    assert starts == {b'{"jsonr' if answer_as == "json" else b"event: "}


def test_errors_reach_the_client() -> None:
    """An ``isError`` result is a result; a JSON-RPC error raises the SDK's MCPError."""
    with mockhttp.Server() as server:
        server.mock(mcp.server([WEATHER]))

        async def body(session: ClientSession) -> Any:
            missing = await session.call_tool("get_weather", {"city": "Atlantis"})
            with pytest.raises(MCPError) as down:
                await session.call_tool("get_weather", {"city": "Nowhere"})
            return missing, down.value

        missing, down = run(server, body)
    assert missing.is_error
    assert missing.content[0].text == "no such city"
    assert down.error.code == -32603
    assert down.error.message == "weather service down"


def test_expired_session_is_the_clients_error() -> None:
    """After ``expire()`` the next request gets 404, which the SDK reports as an error
    (the JSON-RPC error of its body) instead of a result."""
    kind = mcp.McpServer(tools=[WEATHER])
    with mockhttp.Server() as server:
        handle = server.mock(kind.mock())

        async def body(session: ClientSession) -> Any:
            await session.list_tools()
            assert kind.expire() == 1
            with pytest.raises(MCPError) as ended:
                await session.list_tools()
            return ended.value

        ended = run(server, body)
    assert (ended.error.code, ended.error.message) == (-32001, "Session not found")
    statuses = [c.status for c in handle.calls if b"tools/list" in c.request.body]
    assert statuses == [200, 404]


def test_a_dropped_stream_resumes_after_last_event_id() -> None:
    """The SSE answer to ``tools/call`` is cut after its first progress notification (event
    1, after the priming event 0); the SDK reconnects with GET and ``Last-Event-ID: 1-1``,
    and the mock replays the rest of that stream: the second progress, then the result."""
    kind = mcp.McpServer(tools=[WEATHER], retry=20)
    calls = match.json_path("$.method", match.equal("tools/call"))
    with mockhttp.Server() as server:
        handle = server.mock(kind.mock())
        server.mock(kind.mock().body(calls).pipe(fault.close_after_events(2)))
        seen: list[float] = []

        async def body(session: ClientSession) -> Any:
            async def progress(progress: float, total: float | None, message: str | None) -> None:
                seen.append(progress)

            return await session.call_tool(
                "get_weather", {"city": "Paris"}, progress_callback=progress
            )

        result = run(server, body)
    assert result.content[0].text == "Sunny, 21 °C"
    assert seen == [0.5, 1.0]
    resumed = [c for c in handle.calls if c.request.headers.get("last-event-id")]
    assert [c.request.headers["last-event-id"] for c in resumed] == ["1-1"]
    assert resumed[0].body_sent.count(b'"result"') == 1


def test_a_wrong_response_id_is_a_timeout_for_the_sdk() -> None:
    """A server answering ``tools/list`` with another id: the SDK drops that response and
    the call ends at its read timeout (here 0.5 s) with ``MCPError``."""
    kind = mcp.McpServer()
    lists = match.json_path("$.method", match.equal("tools/list"))
    wrong = {"jsonrpc": "2.0", "id": 99, "result": {"tools": []}}

    async def main(url: str) -> tuple[str, float]:
        async with (
            streamable_http_client(url) as (read, write),
            ClientSession(read, write, read_timeout_seconds=0.5) as session,
        ):
            await session.initialize()
            started = anyio.current_time()
            with pytest.raises(MCPError) as late:
                await session.list_tools()
            return late.value.error.message, anyio.current_time() - started

    with mockhttp.Server() as server:
        server.mock(kind.mock())
        server.mock(mockhttp.request("POST", "/mcp").body(lists).reply(mockhttp.ok().json(wrong)))
        message, waited = anyio.run(main, server.url + "/mcp")
    assert message == "Request 'tools/list' timed out"
    assert 0.45 < waited < 3
