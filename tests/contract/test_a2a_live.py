"""Live a2a's parts (contract/_a2a_live.py): the request of each version, the card's
JSON-RPC interfaces (Rule 1), and where the card is looked for, on loopback."""

from __future__ import annotations

from typing import Any

import pytest

import mockhttp
from mockhttp.contract._a2a_live import a2a_request, interfaces, read_card


def test_the_0_3_request_is_message_stream_with_kinds() -> None:
    body = a2a_request()
    assert body["method"] == "message/stream"
    message = body["params"]["message"]
    assert message["role"] == "user"
    assert message["parts"] == [{"kind": "text", "text": "Hello"}]
    assert body["jsonrpc"] == "2.0"


def test_the_1_0_request_is_send_streaming_message_with_enum_role() -> None:
    body = a2a_request(version="1.0")
    assert body["method"] == "SendStreamingMessage"
    assert body["params"]["message"]["role"] == "ROLE_USER"
    assert body["params"]["message"]["parts"] == [{"text": "Hello"}]


def test_the_users_json_is_laid_over_the_request() -> None:
    body = a2a_request({"id": "x", "params": {"message": {"parts": []}}})
    assert body["id"] == "x"
    assert body["params"] == {"message": {"parts": []}}
    assert body["method"] == "message/stream"


URL = "http://agent.test/a2a"


@pytest.mark.parametrize(
    ("card", "expected"),
    [
        ({}, {}),
        (
            {"supportedInterfaces": [
                {"protocolBinding": "JSONRPC", "protocolVersion": "1.0", "url": "/v1"},
                {"protocolBinding": "GRPC", "protocolVersion": "1.0", "url": "/grpc"},
                {"protocolBinding": "JSONRPC", "protocolVersion": "1.0", "url": "/second"},
            ]},
            {"1.0": "http://agent.test/v1"},
        ),
        (
            {"protocolVersion": "0.3.0", "url": "http://other.test/rpc",
             "preferredTransport": "JSONRPC"},
            {"0.3": "http://other.test/rpc"},
        ),
        (
            {"protocolVersion": "0.3.0", "url": "http://agent.test/grpc",
             "preferredTransport": "GRPC",
             "additionalInterfaces": [{"url": "/jsonrpc", "transport": "JSONRPC"}]},
            {"0.3": "http://agent.test/jsonrpc"},
        ),
        (
            {"protocolVersion": "0.3.0", "url": "/old",
             "supportedInterfaces": [
                 {"protocolBinding": "JSONRPC", "protocolVersion": "1.0", "url": "/new"}]},
            {"1.0": "http://agent.test/new", "0.3": "http://agent.test/old"},
        ),
        ({"protocolVersion": "0.2.5", "url": "/older"}, {}),
    ],
)  # fmt: skip
def test_interfaces_name_each_json_rpc_version_newest_first(
    card: dict[str, Any], expected: dict[str, str]
) -> None:
    found = interfaces(card, URL)
    assert found == expected
    assert list(found) == sorted(found, reverse=True)


CARD = {"name": "agent", "protocolVersion": "0.3.0", "url": "/a2a"}


def test_the_card_is_read_under_the_url_first(server: mockhttp.Server) -> None:
    server.mock(mockhttp.get("/a2a/.well-known/agent-card.json").reply(mockhttp.ok().json(CARD)))
    server.mock(mockhttp.get("/.well-known/agent-card.json").reply(mockhttp.ok().json({"x": 1})))
    assert read_card(server.url + "/a2a/", {"authorization": "Bearer t"}, 5.0) == CARD
    [call] = server.journal
    assert call.request.headers["authorization"] == "Bearer t"


def test_the_older_path_then_the_hosts_root(server: mockhttp.Server) -> None:
    server.mock(mockhttp.get("/.well-known/agent.json").reply(mockhttp.ok().json(CARD)))
    assert read_card(server.url + "/a2a", {}, 5.0) == CARD
    paths = [c.request.path for c in server.journal]
    assert paths == [
        "/a2a/.well-known/agent-card.json",
        "/a2a/.well-known/agent.json",
        "/.well-known/agent-card.json",
        "/.well-known/agent.json",
    ]


def test_no_card_when_none_answers_a_json_object(server: mockhttp.Server) -> None:
    server.mock(mockhttp.get("/.well-known/agent-card.json").reply(mockhttp.ok().json([1])))
    server.mock(mockhttp.get("/.well-known/agent.json").reply(mockhttp.ok().body("not json")))
    assert read_card(server.url, {}, 5.0) is None
    assert len(server.journal) == 2  # the URL is the root: each path is tried once
