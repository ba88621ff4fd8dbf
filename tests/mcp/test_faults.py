"""Faults aimed at one JSON-RPC method: ``tools/call`` cut, everything else whole; the
N-th call only; the client's resume kept whole or cut on its own.  Read by the official
``mcp`` SDK, which resumes with ``GET`` and ``Last-Event-ID``."""

from __future__ import annotations

from functools import partial
from typing import Any

import anyio
import pytest
from mcp.client.session import ClientSession
from mcp.client.streamable_http import streamable_http_client

import mockhttp
from mockhttp import ConfigError, fault, mcp

SLOW = mcp.tool("slow", answers=[mcp.answer("done", progress=[0.25, 0.5, 1.0])])


async def _note(
    seen: list[float], progress: float, total: float | None, message: str | None
) -> None:
    seen.append(progress)


def call_twice(kind: mcp.McpServer) -> tuple[list[Any], list[str | None]]:
    """Two calls of ``slow`` by the SDK: each one's text and progress; the journal's
    ``Last-Event-ID``s (the resumes)."""

    async def main(url: str) -> list[Any]:
        out = []
        with anyio.fail_after(15):
            async with (
                streamable_http_client(url) as (read, write),
                ClientSession(read, write) as session,
            ):
                await session.initialize()
                await session.list_tools()
                for _ in range(2):
                    seen: list[float] = []
                    result: Any = await session.call_tool(
                        "slow", {}, progress_callback=partial(_note, seen)
                    )
                    out.append((result.content[0].text, seen))
        return out

    with mockhttp.Server() as server:
        handle = server.mock(kind.mock())
        results = anyio.run(main, server.url + "/mcp")
        resumes = [
            c.request.headers.get("last-event-id")
            for c in handle.calls
            if c.request.method == "GET"
        ]
    return results, [r for r in resumes if r is not None]


def test_a_cut_at_event_2_of_tools_call_is_resumed_whole() -> None:
    """Cut after the priming event and the first progress notification, on the first
    call only: the SDK resumes after ``1-1`` and gets the rest; ``tools/list`` and the
    second call go out whole."""
    cut = mcp.method_fault("tools/call", fault.close_after_events(2), call=1)
    kind = mcp.McpServer(tools=[SLOW], faults=[cut], retry=20)
    results, resumes = call_twice(kind)
    assert results == [("done", [0.25, 0.5, 1.0])] * 2
    assert resumes == ["1-1"]  # (tools/list was answered as JSON: no stream)


def test_the_resume_can_be_cut_on_its_own() -> None:
    """``resume`` faults end each resume after one event: the SDK comes back once per
    event (a stream that ends cleanly resets its count of attempts) and still gets every
    message once."""
    cut = mcp.method_fault(
        "tools/call",
        fault.close_after_events(2),
        tool="slow",
        call=2,
        resume=[fault.end_after_events(1)],
    )
    kind = mcp.McpServer(tools=[SLOW], faults=[cut], retry=20)
    results, resumes = call_twice(kind)
    assert results == [("done", [0.25, 0.5, 1.0])] * 2
    assert resumes == ["2-1", "2-2", "2-3"]  # the second call is stream 2


def test_a_resume_broken_every_time_exhausts_the_sdk() -> None:
    """The contrast: each resume closed mid-stream counts as a failed attempt, and the
    SDK gives up after two (what a mock-wide fault, which cuts the resumes too, does)."""
    cut = mcp.method_fault(
        "tools/call", fault.close_after_events(2), resume=[fault.close_after_events(0)]
    )
    kind = mcp.McpServer(tools=[SLOW], faults=[cut], retry=20)
    with pytest.raises(Exception) as caught:  # noqa: PT011 (the SDK's error, in a group)
        call_twice(kind)
    assert "MCPError: SSE stream ended and reconnection attempts were exhausted" in (
        _inside(caught.value)
    )


def _inside(exc: BaseException) -> str:
    """An exception and those of its groups, one per line (type: message)."""
    inner = getattr(exc, "exceptions", ())
    return "\n".join([f"{type(exc).__name__}: {exc}", *(_inside(e) for e in inner)])


def test_method_faults_in_a_mock_file() -> None:
    text = """
name: mcp
request: {path: /mcp}
response:
  mcp:
    retry: 20
    tools:
      - name: slow
        answers: [{text: done, progress: [0.25, 0.5, 1.0]}]
    faults:
      - {method: tools/call, tool: slow, call: 1, pipe: [[close_after_events, 2]]}
"""
    (mock,) = mockhttp.loads(text)
    kind = mock.kind
    assert isinstance(kind, mcp.McpServer)
    assert kind.method_faults == (
        mcp.method_fault("tools/call", fault.close_after_events(2), tool="slow", call=1),
    )
    results, resumes = call_twice(kind)
    assert results == [("done", [0.25, 0.5, 1.0])] * 2
    assert resumes == ["1-1"]
    assert kind.to_args()["faults"] == [
        {"method": "tools/call", "tool": "slow", "call": 1, "pipe": [["close_after_events", 2]]}
    ]


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"method": "tools/call", "call": 0}, "faults[0].call: 0 must be a number from 1"),
        (
            {"method": "ping", "tool": "x"},
            "faults[0].tool: 'x' names a tool: the method is tools/call",
        ),
        ({"method": "tools/call", "pipe": [["no_such_fault"]]}, "faults[0].pipe[0]: "),
        ({"method": "tools/call", "pipe": ["x"]}, "faults[0].pipe[0]: 'x' must be a fault"),
        ({"method": "tools/call", "when": 1}, "faults[0]: unknown key 'when'"),
    ],
)
def test_bad_method_faults_say_where(data: dict[str, Any], message: str) -> None:
    with pytest.raises(ConfigError) as caught:
        mcp.McpServer(faults=[data])
    assert str(caught.value).startswith(message)


def test_a_mock_file_error_points_at_the_node() -> None:
    text = (
        "name: m\nrequest: {path: /mcp}\nresponse:\n  mcp:\n"
        "    faults:\n      - {method: tools/call, call: -1}\n"
    )
    with pytest.raises(ConfigError, match=r"<string>:6:\d+ .*call: -1 must be a number from 1"):
        mockhttp.loads(text)
