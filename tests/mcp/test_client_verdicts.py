"""Client verdicts on real clients: the official MCP SDKs (Python, TypeScript), a
reconnect storm, and the OpenAI SDK's retries, judged from mockhttp's journal.

What the conformance suite's client scenarios score (``client-sse-graceful-reconnect``,
``client-sse-retry-timing``, ``client-sse-last-event-id``, the version header), asked of
the calls the server received.
"""

from __future__ import annotations

import contextlib
import json
import shutil
import subprocess
from pathlib import Path

import anyio
import httpx
import pytest
from mcp.client.session import ClientSession
from mcp.client.streamable_http import streamable_http_client

import mockhttp
from mockhttp import fault, match, mcp, verdicts

NODE = Path(__file__).resolve().parents[2] / "scripts" / "mcp_node"
RETRY_MS = 1000  # the bound is 2 x retry: wide enough for a loaded machine
CALLS = match.json_path("$.method", match.equal("tools/call"))
MCP_CLIENT = (
    verdicts.reconnected(on="GET"),
    verdicts.waited_retry(on="GET"),
    verdicts.resumed(on="GET"),
    verdicts.mcp_protocol_version(),
    verdicts.deleted_session(),
)


def serve(server: mockhttp.Server) -> None:
    """``slow``'s answer cut after the priming event and its first progress notification."""
    kind = mcp.McpServer(
        tools=[mcp.tool("slow", answers=[mcp.answer("done", progress=[0.5, 1.0])])],
        retry=RETRY_MS,
    )
    server.mock(kind.mock())
    server.mock(kind.mock(name="cut").body(CALLS).pipe(fault.close_after_events(2)))


def wait_for_delete(server: mockhttp.Server) -> None:
    deleted = [c for c in server.journal if c.request.method == "DELETE"]
    for c in deleted:
        c.wait()
    for c in server.journal:
        if c.request.method != "GET":  # the GET stream ends when the client leaves
            c.wait()


async def python_client(url: str) -> str:
    async def progress(progress: float, total: float | None, message: str | None) -> None:
        pass  # asking for progress makes the answer a stream (notifications first)

    async with streamable_http_client(url) as (read, write), ClientSession(read, write) as s:
        await s.initialize()
        result = await s.call_tool("slow", {}, progress_callback=progress)
    text: str = result.content[0].text  # type: ignore[union-attr]
    return text


def test_the_python_sdk_client_passes() -> None:
    with mockhttp.Server() as server:
        serve(server)
        assert anyio.run(python_client, server.url + "/mcp") == "done"
        wait_for_delete(server)
        found = verdicts.assert_client(server.journal, *MCP_CLIENT)
    assert [v.check for v in found] == [c.name for c in MCP_CLIENT]
    resumed = [c for c in server.journal if c.request.headers.get("last-event-id")]
    assert [(c.request.method, c.last_event_id) for c in resumed] == [("GET", "1-1")]


def storm(url: str) -> None:
    """A bad client: it comes back at once, without Last-Event-ID, and never says
    MCP-Protocol-Version nor DELETE."""
    accept = {"accept": "application/json, text/event-stream"}
    with httpx.Client(timeout=5) as client:
        init = client.post(url, headers=accept, json={
            "jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"protocolVersion": "2025-11-25", "capabilities": {}}})  # fmt: skip
        session = {**accept, "mcp-session-id": init.headers["mcp-session-id"]}
        params = {"name": "slow", "arguments": {}, "_meta": {"progressToken": 1}}
        call = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": params}
        with contextlib.suppress(httpx.RemoteProtocolError):  # the cut
            client.post(url, headers=session, json=call)
        with client.stream("GET", url, headers={**session, "accept": "text/event-stream"}) as r:
            for _ in r.iter_lines():
                pass


def test_a_reconnect_storm_fails_with_reasons() -> None:
    with mockhttp.Server() as server:
        serve(server)
        server.mock(mockhttp.get("/mcp").reply(mockhttp.ok()))  # the GET: ends at once
        storm(server.url + "/mcp")
        wait_for_delete(server)
        with pytest.raises(mockhttp.VerificationError) as failed:
            verdicts.assert_client(server.journal, *MCP_CLIENT)
    lines = str(failed.value).splitlines()
    assert lines[0] == "the client failed 4 of 5 check(s):"
    assert lines[1].startswith("  FAIL waited_retry [client-sse-retry-timing]: call 3 came ")
    assert lines[1].endswith(f"ms after the cut, sooner than retry: {RETRY_MS} ms")
    assert lines[2:5] == [
        "  FAIL resumed [client-sse-last-event-id]: call 3 came with Last-Event-ID None, "
        "expected '1-1' (the last event delivered whole before it)",
        "  FAIL mcp_protocol_version [sep-2575-http-client-sends-version-header]: call 2 "
        "(POST tools/call) carried MCP-Protocol-Version None, expected '2025-11-25' (initialize "
        "negotiated it); call 3 (GET /mcp) carried MCP-Protocol-Version None, expected "
        "'2025-11-25' (initialize negotiated it)",
        "  FAIL deleted_session: session "
        f"{server.journal[1].request.headers['mcp-session-id']!r} was not deleted: its last "
        "request was call 3 (GET /mcp)",
    ]


def test_the_openai_sdk_honours_retry_after_and_gives_up() -> None:
    """An LLM client with the same API: the OpenAI SDK (max_retries=2) against 429s with
    Retry-After: three tries, each after the wait it was told."""
    import openai

    busy = mockhttp.status(429).json({"error": {"message": "slow down"}}).header("Retry-After", "1")
    with mockhttp.Server() as server:
        chat = server.mock(mockhttp.post("/v1/chat/completions").reply(busy))
        with (
            openai.OpenAI(base_url=server.url + "/v1", api_key="k", max_retries=2) as client,
            pytest.raises(openai.RateLimitError),
        ):
            client.chat.completions.create(model="m", messages=[])
        found = verdicts.assert_client(
            chat.calls, verdicts.honoured_retry_after(), verdicts.gave_up_after(3)
        )
    assert found[1].explanation == "3 tries, then it stopped"
    with pytest.raises(mockhttp.VerificationError, match="kept trying: 3 tries, expected it"):
        verdicts.assert_client(chat.calls, verdicts.gave_up_after(1))


def _node_ready() -> str | None:
    if shutil.which("node") is None:
        return "needs node (.ci/install-mcp-node installs the TypeScript SDK)"
    if not (NODE / "node_modules" / "@modelcontextprotocol" / "sdk").is_dir():
        return "needs scripts/mcp_node/node_modules (.ci/install-mcp-node)"
    return None


@pytest.mark.skipif(_node_ready() is not None, reason=str(_node_ready()))
def test_the_typescript_sdk_client_passes() -> None:
    with mockhttp.Server() as server:
        serve(server)
        done = subprocess.run(
            ["node", str(NODE / "resume.mjs"), server.url + "/mcp"],
            capture_output=True, text=True, timeout=60, check=False,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        assert json.loads(done.stdout) == {"text": "done", "progress": [0.5, 1]}
        wait_for_delete(server)
        verdicts.assert_client(server.journal, *MCP_CLIENT)
    resumed = [c for c in server.journal if c.request.headers.get("last-event-id")]
    assert [(c.request.method, c.last_event_id) for c in resumed] == [("GET", "1-1")]


def test_the_module_docstring_example_runs() -> None:
    import re

    (code,) = re.findall(r"```python\n(.*?)```", verdicts.__doc__ or "", re.S)
    exec(compile(code, "mockhttp/verdicts.py", "exec"), {})
