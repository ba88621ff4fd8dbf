"""The A2A agent reply kind built directly (a2a/_kind.py): its card, authorization, and the
JSON-RPC envelope's errors, answered without a socket; its options' errors."""

from __future__ import annotations

import json
from typing import Any

import pytest

from mockhttp._core._errors import ConfigError
from mockhttp._core._request import Headers, Request
from mockhttp.a2a._kind import A2aAgent


def post(body: Any, path: str = "/", **headers: str) -> Request:
    raw = body if isinstance(body, bytes) else json.dumps(body).encode()
    return Request("POST", path, Headers(tuple(headers.items())), raw)


def answer(agent: A2aAgent, req: Request) -> tuple[int, Any]:
    reply = agent.build(req)
    return reply.status_code, json.loads(reply.content) if reply.content else None


def rpc(method: str, params: Any = None, id_: Any = 1) -> dict[str, Any]:
    out: dict[str, Any] = {"jsonrpc": "2.0", "id": id_, "method": method}
    if params is not None:
        out["params"] = params
    return out


def test_the_card_lists_an_interface_per_version_newest_first() -> None:
    agent = A2aAgent(path="/a2a", name="weather")
    status, card = answer(
        agent, Request("GET", "/.well-known/agent-card.json", Headers((("host", "h:1"),)))
    )
    assert status == 200
    assert card["name"] == "weather"
    assert card["url"] == "http://h:1/a2a"
    assert [(i["protocolBinding"], i["protocolVersion"]) for i in card["supportedInterfaces"]] == [
        ("JSONRPC", "1.0"),
        ("JSONRPC", "0.3"),
    ]
    assert card["protocolVersion"] == "0.3.0"
    assert "securitySchemes" not in card


def test_the_card_is_served_under_the_path_too_and_card_fields_win() -> None:
    agent = A2aAgent(path="/a2a", card={"name": "over", "x": 1}, http_json=True)
    status, card = answer(agent, Request("GET", "/a2a/.well-known/agent-card.json"))
    assert status == 200
    assert (card["name"], card["x"]) == ("over", 1)
    assert ("HTTP+JSON", "1.0") in [
        (i["protocolBinding"], i["protocolVersion"]) for i in card["supportedInterfaces"]
    ]


def test_a_bearer_token_is_required_and_declared() -> None:
    agent = A2aAgent(bearer_token="s3cret")
    status, body = answer(agent, post(rpc("tasks/get", {"id": "t"})))
    assert status == 401
    reply = agent.build(post(rpc("tasks/get", {"id": "t"})))
    assert dict(reply.headers)["WWW-Authenticate"].startswith("Bearer")
    assert "s3cret" not in reply.content.decode()
    assert body == {"error": "unauthorized: this agent needs a bearer token"}
    status, _ = answer(agent, post(rpc("tasks/get", {"id": "t"}), authorization="Bearer s3cret"))
    assert status == 200
    card = agent.agent_card()
    assert "bearer" in card["securitySchemes"]


def test_other_methods_get_405_with_allow() -> None:
    reply = A2aAgent(path="/a2a").build(Request("GET", "/a2a"))
    assert reply.status_code == 405
    assert dict(reply.headers)["Allow"] == "POST"


def test_an_unknown_method_names_the_versions_spoken() -> None:
    _, body = answer(A2aAgent(versions="0.3"), post(rpc("SendMessage", {})))
    assert body["error"]["code"] == -32601
    assert body["error"]["message"] == "Method not found: SendMessage (this agent speaks A2A 0.3)"
    _, body = answer(A2aAgent(), post(rpc("message/teleport")))
    assert body["error"]["code"] == -32601


def test_an_unsupported_a2a_version_header() -> None:
    req = post(rpc("message/send", {}), **{"A2A-Version": "2.0"})
    _, body = answer(A2aAgent(), req)
    assert body["error"] == {"code": -32009, "message": "Version not supported: A2A-Version: 2.0"}


def test_params_must_be_an_object() -> None:
    _, body = answer(A2aAgent(), post(rpc("tasks/get", [1])))
    assert body == {
        "jsonrpc": "2.0",
        "id": 1,
        "error": {"code": -32602, "message": "Invalid params: params must be an object"},
    }


def test_bad_json_and_batches_are_json_rpc_errors() -> None:
    _, body = answer(A2aAgent(), post(b"{nope"))
    assert body["error"]["code"] == -32700
    _, body = answer(A2aAgent(), post([rpc("tasks/get", {"id": "t"})]))
    assert body["error"]["code"] == -32600


def test_an_unknown_task_is_task_not_found() -> None:
    _, body = answer(A2aAgent(), post(rpc("tasks/get", {"id": "nope"})))
    assert body["error"]["code"] == -32001


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"tasks": []}, "tasks: the agent needs at least one answer"),
        ({"card": [1]}, "card: [1] must be a mapping of card fields"),
        ({"versions": ["0.2"]}, "versions: ['0.2'] must be among 0.3, 1.0"),
        ({"versions": []}, "versions: [] must be among"),
        ({"path": "a2a"}, "path: 'a2a' must start with /"),
        ({"name": 3}, "name: 3 must be text"),
        ({"event_delay": -1}, "event_delay: -1 must be a number of seconds"),
        ({"blocking_timeout": True}, "blocking_timeout: True must be a number"),
    ],
)
def test_a_bad_option_is_named(options: dict[str, Any], message: str) -> None:
    with pytest.raises(ConfigError) as caught:
        A2aAgent(**options)
    assert str(caught.value).startswith(message), str(caught.value)


def test_no_extended_card_unless_configured() -> None:
    assert A2aAgent().extended_agent_card() is None
    extended = A2aAgent(extended_card={"skills": []}, bearer_token="t").extended_agent_card()
    assert extended is not None
    assert extended["skills"] == []
