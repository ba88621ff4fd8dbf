"""The ``a2a`` profile held to the official ``a2a-sdk`` server: its streams in both versions
(recorded by scripts/a2a_sdk_streams.py, tests/data/a2a_sdk/) break no rule, each
deliberate break of them is flagged by its rule, and live mode reads the agent card and
checks each version it names (against the SDK server and against the mock)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import mockhttp
from mockhttp import a2a
from mockhttp.contract import Transcript, check
from mockhttp.contract.__main__ import main
from mockhttp.contract._a2a_live import a2a_request, interfaces
from tests.helpers.a2a_sdk_server import serving

DATA = Path(__file__).resolve().parent.parent / "data" / "a2a_sdk"
NAMES = ("send_streaming_message_1_0", "message_stream_0_3")


def saved(name: str) -> tuple[bytes, dict[str, Any]]:
    request = json.loads((DATA / f"{name}.request.json").read_text())
    return (DATA / f"{name}.sse").read_bytes(), request


def findings(body: bytes, request: dict[str, Any]) -> list[tuple[str, str]]:
    transcript = Transcript.from_body(body, request=request)
    return [(f.rule, f.severity) for f in check(transcript, "a2a")]


@pytest.mark.parametrize("name", NAMES)
def test_the_sdk_servers_streams_break_no_rule(name: str) -> None:
    """0 findings (no violation, warning or note) on the SDK's own bytes, CRLF framing
    and spaced JSON included: those are the reference's, not quirks."""
    body, request = saved(name)
    assert b"\r\n" in body
    assert findings(body, request) == []


def events(body: bytes) -> list[dict[str, Any]]:
    return [json.loads(e.removeprefix(b"data: ")) for e in body.split(b"\r\n\r\n") if e]


def framed(items: list[dict[str, Any]]) -> bytes:
    return b"".join(b"data: " + json.dumps(e).encode() + b"\r\n\r\n" for e in items)


def _result_of(event: dict[str, Any]) -> dict[str, Any]:
    """The object a result carries (1.0 wraps it, 0.3 does not)."""
    result: dict[str, Any] = event["result"]
    return result if "kind" in result else next(iter(result.values()))


def duplicate_last(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [*items, items[-1]]


def other_id(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    items[1]["id"] = "someone-else"
    return items


def back_to_submitted(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    state = _result_of(items[-1])["status"]
    state["state"] = "submitted" if "kind" in items[-1]["result"] else "TASK_STATE_SUBMITTED"
    return items


def unknown_kind(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    result = items[2]["result"]
    if "kind" in result:
        result["kind"] = "progress"
    else:
        items[2]["result"] = {"progressUpdate": result["artifactUpdate"]}
    return items


def another_task(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    _result_of(items[1])["taskId"] = "task-of-another"
    return items


def no_jsonrpc(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    del items[3]["jsonrpc"]
    return items


BREAKS = {
    "a2a.final": duplicate_last,
    "a2a.id": other_id,
    "a2a.transitions": back_to_submitted,
    "a2a.kind": unknown_kind,
    "a2a.one-task": another_task,
    "a2a.jsonrpc": no_jsonrpc,
}


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("rule", sorted(BREAKS))
def test_each_deliberate_break_of_the_sdk_stream_is_flagged(name: str, rule: str) -> None:
    body, request = saved(name)
    broken = framed(BREAKS[rule](events(body)))
    assert findings(framed(events(body)), request) == []  # re-framing alone breaks nothing
    assert (rule, "violation") in findings(broken, request)


def test_live_against_the_sdk_server_checks_both_versions(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Live: the SDK server's card lists 1.0 and 0.3 on JSON-RPC; both are checked, clean."""
    with serving() as url:
        code = main([url, "--profile", "a2a"])
    out = capsys.readouterr().out
    assert code == 0
    assert "== SendStreamingMessage (A2A 1.0)" in out
    assert "== message/stream (A2A 0.3)" in out
    assert out.rstrip().endswith("0 violations, 0 warnings, 0 notes in 2 exchange(s)")


@pytest.mark.parametrize(
    ("versions", "methods"),
    [
        (["1.0"], ["SendStreamingMessage"]),
        (["0.3"], ["message/stream"]),
        (["0.3", "1.0"], ["SendStreamingMessage", "message/stream"]),
    ],
)
def test_live_against_the_mock_speaks_what_its_card_names(
    versions: list[str], methods: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    """An agent that speaks only 1.0 is sent 1.0 (it once got 0.3's message/stream and
    answered "method not found"); the A2A-Version header goes with 1.0."""
    script = a2a.task(a2a.status("working"), a2a.artifact("Hi"), a2a.status("completed"))
    with mockhttp.Server() as server:
        server.mock(a2a.agent([script], versions=versions, path="/rpc"))
        code = main([server.url + "/rpc", "--profile", "a2a"])
        posted = [c.request for c in server.journal if c.request.method == "POST"]
    assert code == 0, capsys.readouterr().out
    assert [r.json()["method"] for r in posted] == methods
    assert [r.headers.get("a2a-version") for r in posted] == [
        "1.0" if m[0].isupper() else None for m in methods
    ]


def test_live_without_a_card_sends_0_3_to_the_url() -> None:
    """No card: the URL is the endpoint, 0.3's message/stream is sent (as before cards)."""
    script = a2a.task(a2a.status("completed"))
    kind = a2a.A2aAgent([script])
    with mockhttp.Server() as server:
        server.mock(mockhttp.request("POST", "/").reply(kind))
        assert main([server.url + "/", "--profile", "a2a"]) == 0
        posted = [c.request.json()["method"] for c in server.journal if c.request.body]
    assert posted == ["message/stream"]


def test_the_interfaces_of_a_1_0_card_and_a_0_3_card() -> None:
    new = {
        "supportedInterfaces": [
            {"url": "http://a/grpc", "protocolBinding": "GRPC", "protocolVersion": "1.0"},
            {"url": "http://a/v03", "protocolBinding": "JSONRPC", "protocolVersion": "0.3"},
            {"url": "/rpc", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"},
        ]
    }
    assert list(interfaces(new, "http://a/x").items()) == [
        ("1.0", "http://a/rpc"),
        ("0.3", "http://a/v03"),
    ]
    old = {
        "protocolVersion": "0.3.0",
        "url": "http://b/grpc",
        "preferredTransport": "GRPC",
        "additionalInterfaces": [{"url": "http://b/jsonrpc", "transport": "JSONRPC"}],
    }
    assert interfaces(old, "http://b/") == {"0.3": "http://b/jsonrpc"}
    assert interfaces({"name": "no interfaces"}, "http://c/") == {}


def test_the_request_of_each_version() -> None:
    assert a2a_request(None, "1.0")["params"]["message"] == {
        "messageId": "m1",
        "role": "ROLE_USER",
        "parts": [{"text": "Hello"}],
    }
    assert a2a_request({"id": "x"}, "0.3")["method"] == "message/stream"
    assert a2a_request({"id": "x"}, "0.3")["id"] == "x"
