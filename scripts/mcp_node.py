"""The official MCP TypeScript SDK (``@modelcontextprotocol/sdk``, pinned in
scripts/mcp_node/package.json) against a mockhttp.mcp server: ``Client`` on
``StreamableHTTPClientTransport`` initializes, lists the tools, calls one, meets an SSE
answer cut after its progress notification (which it resumes), one cut before any event
(which it cannot), a dropped GET stream and an expired session.

Installs the package into scripts/mcp_node/node_modules (git-ignored) on first run, serves
the mock on loopback, runs ``client.mjs`` (acting on the mock when it asks: ``notify``,
``expire``) and prints what the client saw, one line per case, then PASS or FAIL against
what this script expects.
Usage: PYTHONPATH=src python scripts/mcp_node.py
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import mockhttp
from mockhttp import fault, match, mcp

HERE = Path(__file__).resolve().parent / "mcp_node"
TERMINATED = "SSE stream disconnected: TypeError: terminated"
# the 404's body, with the request's id
EXPIRED = '{"jsonrpc":"2.0","id":5,"error":{"code":-32001,"message":"Session not found"}}'
EXPECTED: dict[str, Any] = {  # what @modelcontextprotocol/sdk 1.32.2 does (docs show it)
    "initialize": ["2025-11-25", "mockhttp-mcp"],
    "list_tools": ["get_weather", "slow", "flaky"],
    "call_tool": "Sunny, 21 °C",
    "cut_resumed": ["done", [0.5, 1]],  # after the priming event: GET with Last-Event-ID 1-1
    "cut_unresumable": "raised McpError: MCP error -32001: Request timed out",
    "cut_unresumable_onerror": [TERMINATED, TERMINATED],
    "get_stream_dropped": [2, [TERMINATED]],  # the second notification on the new GET
    "session_expired": "raised StreamableHTTPError: Streamable HTTP error: "
    f"Error POSTing to endpoint: {EXPIRED}",
    "last_event_ids": ["1-1", "0-0"],
}


def _tool_named(name: str) -> match.Matcher:
    return match.json_path("$.params.name", match.equal(name))


def _serve(kind: mcp.McpServer, server: mockhttp.Server) -> None:
    """The mock, plus three that break it: ``slow``'s answer closed after the priming
    event and the first progress, ``flaky``'s reset before its first event, the first
    GET stream closed after its first message."""
    server.mock(kind.mock())
    server.mock(kind.mock(name="slow").body(_tool_named("slow")).pipe(fault.close_after_events(2)))
    server.mock(
        kind.mock(name="flaky").body(_tool_named("flaky")).pipe(fault.reset_after_events(0))
    )
    server.mock(
        mockhttp.request("GET", "/mcp", name="get")
        .reply(kind)
        .pipe(fault.first(1, fault.close_after_events(1)))
    )


def _run(kind: mcp.McpServer, url: str) -> tuple[dict[str, Any], int, str]:
    actions: dict[str, Callable[[], object]] = {
        "notify": lambda: kind.notify("notifications/tools/list_changed"),
        "expire": kind.expire,
    }
    node = subprocess.Popen(
        ["node", str(HERE / "client.mjs"), url],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert node.stdin is not None
    assert node.stdout is not None
    seen: dict[str, Any] = {}
    for line in node.stdout:
        message = json.loads(line)
        if "ask" in message:
            actions[message["ask"]]()
            node.stdin.write("done\n")
            node.stdin.flush()
        else:
            print(line, end="")
            seen[message["name"]] = message["value"]
    _, stderr = node.communicate(timeout=60)
    return seen, node.returncode, stderr


def main() -> int:
    if not (HERE / "node_modules" / "@modelcontextprotocol" / "sdk").exists():
        subprocess.run(
            ["npm", "install", "--no-audit", "--no-fund", "--no-package-lock", "--silent"],
            cwd=HERE,
            check=True,
        )
    slow = mcp.tool("slow", answers=[mcp.answer("done", progress=[0.5, 1.0])])
    tools = [
        mcp.tool("get_weather", answers=["Sunny, 21 °C"]),
        slow,
        mcp.tool("flaky", answers=[mcp.answer("never", log=["working"])]),
    ]
    kind = mcp.McpServer(tools=tools, retry=20)
    with mockhttp.Server() as server:
        _serve(kind, server)
        seen, code, stderr = _run(kind, server.url + "/mcp")
        ids = [c.request.headers.get("last-event-id") for c in server.journal]
    seen["last_event_ids"] = [i for i in ids if i]
    print(json.dumps({"name": "last_event_ids", "value": seen["last_event_ids"]}))
    if code != 0:
        print(stderr, file=sys.stderr)
        print("FAIL: the client exited with", code)
        return 1
    wrong = {k: v for k, v in EXPECTED.items() if seen.get(k) != v}
    print("PASS" if not wrong else f"FAIL: {sorted(wrong)} differ from {wrong}")
    return 0 if not wrong else 1


if __name__ == "__main__":
    sys.exit(main())
