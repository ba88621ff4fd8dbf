"""The script's steps and their file forms (pure: no socket)."""

from __future__ import annotations

import pytest

from mockhttp import ConfigError, match, ws
from mockhttp._core._request import Request
from mockhttp.ws._script import (
    Close,
    Echo,
    Expect,
    Pause,
    Send,
    expectation,
    payload,
    steps_of,
    to_data,
)


def body(text: str) -> Request:
    return Request("WS", "/ws", body=text.encode())


def test_every_file_form_reads_and_writes_back() -> None:
    data = [
        {"send": "hi"},
        {"send": {"json": {"a": 1}}, "after": 0.5},
        {"send": {"binary": "AAE="}},
        {"expect": ["json_path", "$.a", ["equal", 1]]},
        {"echo": True},
        {"echo": 2},
        {"pause": 0.1},
        {"close": 1001},
        {"close": {"code": 4000, "reason": "bye"}},
    ]
    steps = steps_of(data)
    assert steps[0] == Send("hi")
    assert steps[1] == Send({"a": 1}, 0.5)
    assert steps[2] == Send(b"\x00\x01")
    assert isinstance(steps[3], Expect)
    assert steps[4:] == (Echo(None), Echo(2), Pause(0.1), Close(1001), Close(4000, "bye"))
    assert [to_data(s) for s in steps] == data
    assert steps_of([to_data(s) for s in steps]) == steps


def test_durations_read_as_text() -> None:
    assert steps_of([{"send": "x", "after": "20ms"}, {"pause": "1s"}]) == (
        Send("x", 0.02),
        Pause(1.0),
    )


def test_payload_sends_text_and_bytes_as_they_are_and_json_compact() -> None:
    assert payload("a") == "a"
    assert payload(b"a") == b"a"
    assert payload({"a": [1, "é"]}) == '{"a":[1,"é"]}'


def test_an_expectation_reads_messages_like_bodies() -> None:
    assert expectation("ping").explain(body("ping")) is None
    assert expectation("ping").explain(body("pong")) is not None
    assert expectation({"a": 1}).explain(body('{"a": 1}')) is None
    assert expectation({"a": 1}).explain(body('{"a": 2}')) is not None
    path = expectation(match.json_path("$.t", match.equal("x")))
    assert path.explain(body('{"t": "x"}')) is None
    assert "not JSON" in (path.explain(body("nope")) or "")


@pytest.mark.parametrize(
    ("items", "message"),
    [
        ("send", "must be a list of steps"),
        ([{"sned": "x"}], "did you mean 'send'"),
        ([{"send": "x", "echo": 1}], "exactly one of"),
        ([{"echo": 1, "after": 1}], "'echo' takes no 'after'"),
        ([{"echo": 0}], "a count >= 1"),
        ([{"send": 3}], "must be text, {json: value} or {binary: base64}"),
        ([{"send": {"binary": "!!"}}], "must be base64"),
        ([{"close": 1006}], "use fault drop"),
        ([{"close": 999}], "cannot be sent"),
        ([{"close": {"code": 1000, "reason": "x" * 124}}], "<= 123 bytes"),
        ([{"expect": None}], "must be text, a mapping or a matcher"),
        ([{"expect": ["json_pth", "$.a"]}], "did you mean 'json_path'"),
        (["send"], "script[0]='send' must be a step"),
    ],
)
def test_bad_steps_say_what_is_wrong(items: object, message: str) -> None:
    with pytest.raises(ConfigError, match=None) as raised:
        steps_of(items)  # type: ignore[arg-type]
    assert message in str(raised.value)


def test_the_kind_checks_its_options_and_writes_its_file_form() -> None:
    with pytest.raises(ConfigError, match="subprotocol"):
        ws.websocket(subprotocol="a b")
    with pytest.raises(ConfigError, match="max_message"):
        ws.websocket(max_message=0)
    endpoint = ws.websocket(ws.send("x"), ws.close(), subprotocol="chat", max_message=10)
    assert endpoint.to_args() == {
        "script": [{"send": "x"}, {"close": 1000}],
        "subprotocol": "chat",
        "max_message": 10,
    }
    assert ws.WebSocket(**endpoint.to_args()) == endpoint
