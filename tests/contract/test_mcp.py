"""The ``mcp`` profile: our MCP mock passes on the wire, broken servers fail, each with
its named rule."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

import mockhttp
from mockhttp import mcp
from mockhttp.contract import Transcript, check, record

ACCEPT = {"Accept": "application/json, text/event-stream"}
TOOL = mcp.tool("echo", answers=[mcp.answer("hi", progress=[1], log=["working"])])


def rpc(method: str, id_: int | str | None = 1, **params: Any) -> dict[str, Any]:
    message: dict[str, Any] = {"jsonrpc": "2.0", "method": method, "params": params}
    if id_ is not None:
        message["id"] = id_
    return message


def rules(transcript: Transcript) -> list[str]:
    return [f.rule for f in check(transcript, "mcp")]


@pytest.mark.parametrize("version", ["2025-03-26", "2025-06-18", "2025-11-25"])
def test_our_mock_passes(version: str) -> None:
    """initialize, tools/list, a call answered as SSE (priming, progress, log, result),
    a ping, a notification (202), and a batch in 2025-03-26: no finding at all."""
    with mockhttp.Server() as server, httpx.Client(timeout=5) as client:
        server.mock(mcp.server([TOOL]))
        url = server.url + "/mcp"
        init = rpc("initialize", 0, protocolVersion=version, capabilities={})
        first = record(url, init, headers=ACCEPT, client=client)
        headers = {**ACCEPT, "Mcp-Session-Id": first.header("mcp-session-id") or ""}
        call = rpc("tools/call", 3, name="echo", arguments={}, _meta={"progressToken": 1})
        exchanges = [first] + [
            record(url, body, headers=headers, client=client)
            for body in (
                rpc("notifications/initialized", None),
                rpc("tools/list", 2),
                call,
                rpc("ping", "p"),
            )
        ]
        if version == "2025-03-26":
            batch = [rpc("ping", 4), rpc("tools/call", 5, name="echo", arguments={})]
            exchanges.append(record(url, batch, headers=headers, client=client))
    assert [t.status for t in exchanges][:4] == [200, 202, 200, 200]
    assert exchanges[3].header("content-type") == "text/event-stream"
    assert [rules(t) for t in exchanges] == [[] for _ in exchanges]


def sse(*data: str, ids: bool = True) -> bytes:
    return b"".join(
        (f"event: message\nid: {i}\n" if ids else "event: message\n").encode()
        + f"data: {d}\n\n".encode()
        for i, d in enumerate(data)
    )


CALL = rpc("tools/call", 7, name="echo")
NOTE = '{"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":1}}'
ANSWER = '{"jsonrpc":"2.0","id":7,"result":{"content":[]}}'


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        (sse(NOTE, ANSWER), []),
        (sse(NOTE, ANSWER.replace('"id":7', '"id":8')), ["mcp.answered-once"] * 2),
        (sse(ANSWER, ANSWER), ["mcp.answered-once", "mcp.response-last"]),
        (sse(NOTE.replace('"method"', '"id":1,"method"'), ANSWER), ["mcp.notification-id"]),
        (sse(NOTE), ["mcp.answered-once"]),
        (sse("not json", ANSWER), ["mcp.framing"]),
        (sse(ANSWER.replace('"2.0"', '"1.0"')), ["mcp.framing"]),
        (sse(NOTE, ANSWER).replace(b"id: 1", b"id: 0"), ["mcp.event-ids"]),
        (sse(ANSWER, NOTE), ["mcp.response-last"]),
    ],
)
def test_broken_streams_fail_with_named_rules(body: bytes, expected: list[str]) -> None:
    assert rules(Transcript.from_body(body, request=CALL)) == expected


def test_wrong_id_on_the_wire_and_json_answers() -> None:
    """A broken server (a plain mock answering with the wrong id) fails on the wire; a
    JSON answer is read as one message; a session issued after initialize is caught."""
    wrong = {"jsonrpc": "2.0", "id": 99, "result": {}}
    with mockhttp.Server() as server:
        server.mock(
            mockhttp.request("POST", "/mcp").reply(
                mockhttp.ok().json(wrong).header("Mcp-Session-Id", "late")
            )
        )
        got = record(server.url + "/mcp", rpc("ping", 1), headers=ACCEPT)
    found = check(got, "mcp")
    assert [f.rule for f in found] == ["mcp.answered-once", "mcp.answered-once", "mcp.session"]
    assert found[0].message == "a response with id 99, which no request had (asked: 1)"
    assert found[1].message == "request id 1 (ping) got no response"
    assert found[2].message == (
        'Mcp-Session-Id "late" on an answer to "ping", whose request carried none: a session '
        "is issued on initialize, and later answers may only repeat it"
    )


def test_recognised_offline() -> None:
    from mockhttp.contract._recognise import recognise

    assert recognise(Transcript.from_body(sse(ANSWER), request=CALL)) == "mcp"


def test_live_check_passes_our_mock_and_fails_a_broken_server(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """``mockhttp check --profile mcp URL``: initialize, initialized, tools/list, ping with
    the session, then a ping without it.  Our mock passes (exit 0); a server answering
    every POST with id 1 and a session header fails with the rules named (exit 1)."""
    from mockhttp.contract.__main__ import main

    with mockhttp.Server() as server:
        server.mock(mcp.server([TOOL]))
        assert main(["--profile", "mcp", server.url + "/mcp"]) == 0
    out = capsys.readouterr().out
    assert "0 violations, 0 warnings, 0 notes in 8 exchange(s)" in out
    assert "pass       mcp transport: 10 rules checked" in out
    fixed = {"jsonrpc": "2.0", "id": 1, "result": {"protocolVersion": "2025-11-25"}}
    with mockhttp.Server() as server:
        server.mock(
            mockhttp.request("POST", "/mcp").reply(
                mockhttp.ok().json(fixed).header("Mcp-Session-Id", "s1")
            )
        )
        assert main(["--profile", "mcp", "--json", server.url + "/mcp"]) == 1
    report = capsys.readouterr().out
    found = {
        (f["exchange"], f["rule"]) for o in json.loads(report)["exchanges"] for f in o["findings"]
    }
    assert found >= {
        ("tools/list", "mcp.answered-once"),
        ("#6 POST ping", "mcp.session-required"),
        ("#5 POST ping", "mcp.protocol-version"),
    }
    # it repeats the session id it issued on every answer: allowed (FastMCP does so)
    assert ("tools/list", "mcp.session") not in found
