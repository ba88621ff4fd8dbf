"""The mock MCP server read by a second client: FastMCP's ``Client`` (Streamable HTTP)."""

from __future__ import annotations

from typing import Any

import anyio
import pytest
from fastmcp import Client
from mcp.shared.exceptions import MCPError

import mockhttp
from mockhttp import fault, match, mcp

PLAN = mcp.tool(
    "plan",
    answers=[
        mcp.answer(
            "model: {reply[0]}; roots: {reply}",
            progress=[0.5, 1.0],
            ask=[mcp.sampling("What is 2+2?"), mcp.roots()],
        )
    ],
)


async def sample(messages: Any, params: Any, context: Any) -> str:
    return "4"


def run(url: str, body: Any) -> Any:
    async def main() -> Any:
        with anyio.fail_after(10):
            async with Client(url, sampling_handler=sample, roots=["file:///work"]) as client:
                return await body(client)

    return anyio.run(main)


def test_fastmcp_lists_calls_and_answers_the_mocks_requests() -> None:
    kind = mcp.McpServer(tools=[PLAN])
    with mockhttp.Server() as server:
        handle = server.mock(kind.mock())

        async def body(client: Client[Any]) -> Any:
            return await client.list_tools(), await client.call_tool("plan", {})

        listed, result = run(server.url + "/mcp", body)
    assert [t.name for t in listed] == ["plan"]
    assert result.content[0].text == "model: 4; roots: file:///work"
    assert [r.method for r in kind.client_responses] == ["sampling/createMessage", "roots/list"]
    posted = [c.request.json() for c in handle.calls if c.request.method == "POST"]
    # FastMCP speaks revision 2026-07-28 with the mock: no initialize, one call retried
    assert [m["method"] for m in posted] == [
        "server/discover",
        "tools/list",
        "tools/call",
        "tools/call",
    ]
    assert "inputResponses" in posted[-1]["params"]


def test_fastmcp_resumes_a_dropped_stream_and_reports_an_expired_session() -> None:
    """The call's stream is cut after the progress notification: FastMCP (the SDK's
    transport underneath) resumes with ``Last-Event-ID``; after ``expire()`` the next
    call raises.  Sessions are the stateful revisions': the mock speaks only those, so
    FastMCP's ``server/discover`` probe gets -32022 and it falls back to ``initialize``."""
    tool = mcp.tool("slow", answers=[mcp.answer("done", progress=[0.5, 1.0])])
    kind = mcp.McpServer(tools=[tool], retry=20, protocol_versions=mcp.STATEFUL)
    calls = match.json_path("$.method", match.equal("tools/call"))
    with mockhttp.Server() as server:
        handle = server.mock(kind.mock())
        server.mock(kind.mock().body(calls).pipe(fault.close_after_events(2)))

        async def body(client: Client[Any]) -> Any:
            done = await client.call_tool("slow", {}, progress_handler=_ignore)
            kind.expire()
            with pytest.raises(MCPError) as ended:
                await client.list_tools()
            return done, ended.value

        done, ended = run(server.url + "/mcp", body)
    assert done.content[0].text == "done"
    assert "1-1" in [c.request.headers.get("last-event-id") for c in handle.calls]
    assert isinstance(ended, MCPError)
    assert (ended.error.code, ended.error.message) == (-32001, "Session not found")


async def _ignore(progress: float, total: float | None, message: str | None) -> None:
    return None
