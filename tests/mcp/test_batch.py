"""JSON-RPC batches on the wire (raw httpx): answered in revision 2025-03-26, which had
them; refused with a JSON-RPC Invalid Request error from 2025-06-18, which removed them."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

import mockhttp
from mockhttp import mcp

from .test_wire import rpc, start

TOOLS = [mcp.tool("echo", answers=["hi"]), mcp.tool("loud", answers=[mcp.answer("HI", log=["x"])])]


@pytest.fixture
def client() -> Any:
    with mockhttp.Server() as server, httpx.Client(base_url=server.url, timeout=5) as client:
        server.mock(mcp.server(TOOLS))
        yield client


def test_a_batch_of_requests_gets_an_array_of_responses(client: httpx.Client) -> None:
    headers = start(client, "2025-03-26")
    batch = [rpc("ping", 1), rpc("notifications/progress", None), rpc("tools/list", 2)]
    answer = client.post("/mcp", json=batch, headers=headers)
    assert answer.status_code == 200
    assert answer.headers["content-type"] == "application/json"
    assert [m["id"] for m in answer.json()] == [1, 2]
    assert answer.json()[0] == {"jsonrpc": "2.0", "id": 1, "result": {}}
    assert [t["name"] for t in answer.json()[1]["result"]["tools"]] == ["echo", "loud"]


def test_a_batch_with_notifications_to_send_is_one_sse_stream(client: httpx.Client) -> None:
    headers = start(client, "2025-03-26")
    batch = [rpc("tools/call", 1, name="loud"), rpc("tools/call", 2, name="echo")]
    text = client.post("/mcp", json=batch, headers=headers).text
    messages = [json.loads(line[6:]) for line in text.splitlines() if line.startswith("data: ")]
    assert [m.get("id", m.get("method")) for m in messages] == ["notifications/message", 1, 2]
    assert "id: 1-2\n" in text


def test_notifications_only_and_bad_members(client: httpx.Client) -> None:
    headers = start(client, "2025-03-26")
    notes = [rpc("notifications/initialized", None), rpc("notifications/cancelled", None)]
    assert client.post("/mcp", json=notes, headers=headers).status_code == 202
    bad_method = {"jsonrpc": "2.0", "id": 6, "method": 6}
    answer = client.post("/mcp", json=[1, rpc("ping", 5), bad_method], headers=headers)
    invalid = {"code": -32600, "message": "Invalid Request: a message is a JSON object"}
    assert answer.json() == [
        {"jsonrpc": "2.0", "id": None, "error": invalid},
        {"jsonrpc": "2.0", "id": 5, "result": {}},
        {  # the id could be read: the error carries it
            "jsonrpc": "2.0",
            "id": 6,
            "error": {"code": -32600, "message": "Invalid Request: method must be a string"},
        },
    ]
    for bad in ([], [rpc("initialize", 9, protocolVersion="2025-03-26")]):
        refused = client.post("/mcp", json=bad, headers=headers)
        assert refused.status_code == 400
        assert refused.json()["error"]["code"] == -32600


@pytest.mark.parametrize("version", ["2025-06-18", "2025-11-25"])
def test_later_revisions_refuse_batches(client: httpx.Client, version: str) -> None:
    headers = start(client, version)
    refused = client.post("/mcp", json=[rpc("ping", 1)], headers=headers)
    assert refused.status_code == 400
    assert refused.json() == {
        "jsonrpc": "2.0",
        "id": None,
        "error": {
            "code": -32600,
            "message": f"Invalid Request: revision {version} has no JSON-RPC batches "
            "(only 2025-03-26 had them)",
        },
    }
