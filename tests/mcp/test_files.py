"""MCP servers in mock files: loading, errors at their place, the round trip, the defaults."""

from __future__ import annotations

import textwrap
from pathlib import Path

import httpx
import pytest

import mockhttp
from mockhttp import mcp

DEFAULTS = Path(mockhttp.__file__).parent / "defaults" / "mcp.yaml"

FILE = textwrap.dedent(
    """\
    request: {path: /mcp}
    response:
      mcp:
        tools:
          - name: get_weather
            answers: [Sunny, {text: Rain, when: {city: Brest}}]
        answer_as: sse
    """
)


def test_a_file_loads_and_answers() -> None:
    """``response: {mcp: ...}`` builds an McpServer with its tools declared as data."""
    (mock,) = mockhttp.loads(FILE)
    assert isinstance(mock.kind, mcp.McpServer)
    assert mock.kind.offered_tools[0].answers[1] == mcp.answer("Rain", when={"city": "Brest"})
    assert mock.kind.answer_as == "sse"


def test_round_trip() -> None:
    """``to_yaml`` writes the server back as data that loads to an equal server."""
    (mock,) = mockhttp.loads(FILE)
    (again,) = mockhttp.loads(mock.to_yaml())
    assert again.kind == mock.kind


def test_errors_point_at_the_node() -> None:
    """A bad answer is reported at its line and column, with what was expected."""
    bad = FILE.replace("{text: Rain, when: {city: Brest}}", "{text: Rain, progress: 3}")
    with pytest.raises(mockhttp.MockfileError) as caught:
        mockhttp.loads(bad)
    assert "6:" in str(caught.value)
    assert "must be a list" in str(caught.value)


def test_the_defaults_serve_an_mcp_server() -> None:
    """The built-in defaults' ``mcp.yaml`` answers initialize and tools/call at /mcp."""
    mocks = mockhttp.load(DEFAULTS)
    accept = {"Accept": "application/json, text/event-stream"}
    with mockhttp.Server() as server, httpx.Client(base_url=server.url) as client:
        server.mock(mocks)
        init = client.post(
            "/mcp", json={"jsonrpc": "2.0", "id": 1, "method": "initialize"}, headers=accept
        )
        headers = {**accept, "Mcp-Session-Id": init.headers["mcp-session-id"]}
        call = {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "tools/call",
            "params": {"name": "get_weather"},
        }
        answer = client.post("/mcp", json=call, headers=headers).json()
    assert answer["result"]["content"] == [{"type": "text", "text": "Sunny, 21 °C"}]
