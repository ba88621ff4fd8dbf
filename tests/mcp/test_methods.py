"""The JSON-RPC methods of a mock MCP server, called directly (no socket): pages and
cursors, completion, templates, subscriptions, log levels, prompts that ask, and the
state they keep (sessions capped, cancellations)."""

from __future__ import annotations

from typing import Any

import pytest

from mockhttp import mcp
from mockhttp.mcp._asking import Exchange
from mockhttp.mcp._methods import answer
from mockhttp.mcp._sessions import Session
from mockhttp.mcp._stateless import shape

SERVER = mcp.McpServer(
    tools=[mcp.tool(f"t{i}") for i in range(5)],
    resources=[mcp.resource("test://a", "A")],
    templates=[mcp.template("test://u/{id}", "u{id}", complete={"id": ["10", "11", "20"]})],
    prompts=[
        mcp.prompt("p", "P {x}", arguments=[{"name": "x", "complete": ["ab", "ac", "b"]}]),
        mcp.prompt("asks", "ctx: {reply}", ask=[mcp.elicitation("Context?")]),
    ],
    page_size=2,
)


def call(method: str, session: Session | None = None, **params: Any) -> Any:
    out = answer(
        SERVER, session or Session("s", "2025-11-25"), {"id": 1, "method": method, "params": params}
    )
    return out[-1]


def test_pages_follow_their_cursor_to_the_end() -> None:
    names, cursor = [], None
    while True:
        page = call("tools/list", **({} if cursor is None else {"cursor": cursor}))["result"]
        names += [t["name"] for t in page["tools"]]
        cursor = page.get("nextCursor")
        if cursor is None:
            break
    assert names == ["t0", "t1", "t2", "t3", "t4"]


@pytest.mark.parametrize(
    "cursor", ["bogus", "dG9vbHM6OTk=", "cHJvbXB0czoy"]
)  # ., tools:99, prompts:2
def test_a_cursor_not_of_this_list_is_invalid_params(cursor: str) -> None:
    assert call("tools/list", cursor=cursor)["error"]["code"] == -32602


def test_completion_of_prompt_arguments_and_template_variables() -> None:
    prompt = call(
        "completion/complete",
        ref={"type": "ref/prompt", "name": "p"},
        argument={"name": "x", "value": "a"},
    )
    assert prompt["result"]["completion"] == {"values": ["ab", "ac"], "total": 2, "hasMore": False}
    template = call(
        "completion/complete",
        ref={"type": "ref/resource", "uri": "test://u/{id}"},
        argument={"name": "id", "value": "1"},
    )
    assert template["result"]["completion"]["values"] == ["10", "11"]
    unknown = call(
        "completion/complete", ref={"type": "ref/prompt", "name": "nope"}, argument={"name": "x"}
    )
    assert unknown["error"]["code"] == -32602
    assert call("completion/complete", ref="x", argument={})["error"]["code"] == -32602


def test_templates_read_and_list() -> None:
    assert call("resources/read", uri="test://u/7")["result"]["contents"] == [
        {"uri": "test://u/7", "mimeType": "text/plain", "text": "u7"}
    ]
    assert (
        call("resources/templates/list")["result"]["resourceTemplates"][0]["uriTemplate"]
        == "test://u/{id}"
    )
    assert call("resources/read", uri="test://v/7")["error"]["code"] == -32002


def test_subscriptions_are_kept_per_session_and_updates_reach_them() -> None:
    kind = mcp.McpServer(resources=[mcp.resource("test://a")])
    one, two = kind.state.open("2025-11-25"), kind.state.open("2025-11-25")
    message = {"id": 1, "method": "resources/subscribe", "params": {"uri": "test://a"}}
    assert answer(kind, one, message)[-1]["result"] == {}
    assert kind.update("test://a") == 1
    assert kind.state.held(one)[-1] == {
        "jsonrpc": "2.0",
        "method": "notifications/resources/updated",
        "params": {"uri": "test://a"},
    }
    assert kind.state.held(two) == ()
    answer(kind, one, {**message, "method": "resources/unsubscribe"})
    assert kind.update("test://a") == 0


def test_the_log_level_filters_and_is_checked() -> None:
    kind = mcp.McpServer(
        tools=[mcp.tool("l", answers=[mcp.answer(log=["i", {"level": "error", "data": "e"}])])]
    )
    session = Session("s", "2025-11-25")
    assert (
        answer(kind, session, {"id": 1, "method": "logging/setLevel", "params": {"level": "loud"}})[
            0
        ]["error"]["code"]
        == -32602
    )
    answer(kind, session, {"id": 2, "method": "logging/setLevel", "params": {"level": "warning"}})
    out = answer(kind, session, {"id": 3, "method": "tools/call", "params": {"name": "l"}})
    assert [m["params"]["data"] for m in out[:-1]] == ["e"]
    quiet = Session("", "2026-07-28")
    quiet.logs = False
    assert len(answer(kind, quiet, {"id": 4, "method": "tools/call", "params": {"name": "l"}})) == 1


def test_a_prompt_that_asks_is_an_exchange_then_quotes_the_reply() -> None:
    out = call("prompts/get", name="asks")
    assert isinstance(out, Exchange)
    finished = out.finish(
        [{"jsonrpc": "2.0", "id": 1, "result": {"action": "accept", "content": {"c": 1}}}]
    )
    assert finished["result"]["messages"][0]["content"]["text"] == 'ctx: {"c": 1}'
    assert call("prompts/get", name="p")["error"]["code"] == -32602  # x is required


def test_results_shaped_for_2026_07_28() -> None:
    listed = shape("tools/list", {"jsonrpc": "2.0", "id": 1, "result": {"tools": []}})
    assert listed["result"] == {
        "resultType": "complete",
        "tools": [],
        "ttlMs": 0,
        "cacheScope": "public",
    }
    called = shape("tools/call", {"jsonrpc": "2.0", "id": 1, "result": {"content": []}})
    assert called["result"] == {"resultType": "complete", "content": []}
    missing = shape(
        "resources/read", {"jsonrpc": "2.0", "id": 1, "error": {"code": -32002, "message": "m"}}
    )
    assert missing["error"]["code"] == -32602
