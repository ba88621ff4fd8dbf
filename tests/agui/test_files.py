"""AG-UI runs in mock files: ``agui:`` (and ``ag-ui:``), the round trip, errors at their place."""

from __future__ import annotations

import json
import textwrap
from typing import Any

import httpx
import pytest

import mockhttp
from mockhttp import agui

FILE = textwrap.dedent(
    """\
    request: {method: POST, path: /agent}
    response:
      agui:
        events:
          - text: Hello
          - tool_call: {name: get_weather, arguments: {city: Paris}, result: Sunny}
          - step: {name: plan, events: [{reasoning: Thinking}, {pause: 50ms}]}
          - state: {count: 1}
          - delta: [{op: replace, path: /count, value: 2}]
          - messages: [{id: u1, role: user, content: Hi}]
          - custom: {name: progress, value: 1}
          - error: {message: boom, code: E1}
        chunk_size: 4
        chunks_per_second: 50
        duplicate_terminal: true
    """
)


def test_a_file_loads_and_answers() -> None:
    (mock,) = mockhttp.loads(FILE)
    assert isinstance(mock.kind, agui.AgUiRun)
    assert mock.kind.events[0] == agui.text("Hello")
    assert mock.kind.events[2] == agui.step("plan", agui.reasoning("Thinking"), agui.pause(0.05))
    with mockhttp.Server() as server:
        server.mock(mock)
        text = httpx.post(server.url + "/agent", json={"threadId": "t", "runId": "r"}).text
    kinds = [json.loads(line[6:])["type"] for line in text.split("\n\n") if line]
    assert kinds[-2:] == ["RUN_ERROR", "RUN_ERROR"]
    assert "CUSTOM" in kinds
    assert "MESSAGES_SNAPSHOT" in kinds


def test_the_alias_and_the_short_form() -> None:
    """``ag-ui:`` is the same kind; a bare list is the events."""
    (long,) = mockhttp.loads(FILE.replace("  agui:", "  ag-ui:"))
    (short,) = mockhttp.loads("request: {path: /a}\nresponse:\n  agui: [{text: Hi}]\n")
    assert long.kind == mockhttp.loads(FILE)[0].kind
    assert short.kind == agui.run(agui.text("Hi"))


def test_round_trip() -> None:
    """``to_yaml`` writes the run back under ``agui:``; it loads to an equal run."""
    (mock,) = mockhttp.loads(FILE)
    text = mock.to_yaml()
    assert "  agui:\n" in text
    (again,) = mockhttp.loads(text)
    assert again.kind == mock.kind
    built = agui.run(agui.text("Hi", role="user", id="m"), agui.pause("1s"), ttft="20ms")
    (back,) = mockhttp.loads(built.mock("/x").to_yaml())
    assert back.kind == built


@pytest.mark.parametrize(
    ("entry", "place", "words"),
    [
        ("- txt: Hello", "4:7 at response.agui[0]", "did you mean 'text'?"),
        ("- delta: [{op: set, path: /a}]", "4:20 at response.agui[0].delta[0].op", "add, remove"),
        ("- tool_call: {name: f, args: {}}", "4:18 at response.agui[0].tool_call", "'args'"),
        ("- text: {role: bot}", "4:13 at response.agui[0].text", "content is missing"),
        ("- error: x\n    - text: y", "4:5 at response.agui", "must be the run's last entry"),
        ("- pause: soon", "4:14 at response.agui[0].pause", "not a duration"),
        ("- new_run: {runid: r2}", "4:16 at response.agui[0].new_run", "'runid'"),
        ("- subagnt: {name: s}", "4:7 at response.agui[0]", "did you mean 'subagent'?"),
        ("- activity: {content: {}}", "4:17 at response.agui[0].activity", "activity_type is"),
        (
            "- text: y\n    - error: {message: x, before_start: yes}",
            "4:5 at response.agui",
            "before_start is its run's only entry",
        ),
    ],
)
def test_errors_at_their_place(entry: str, place: str, words: str) -> None:
    """A bad entry is reported at its line and column, with what was expected."""
    text = "request: {path: /a}\nresponse:\n  agui:\n    " + entry + "\n"
    with pytest.raises(mockhttp.MockfileError) as caught:
        mockhttp.loads(text, "m.yaml")
    message = str(caught.value)
    assert f"m.yaml:{place}" in message, message
    assert words in message, message


@pytest.mark.parametrize(
    ("build", "words"),
    [
        (lambda: agui.text(1), "text: 1 must be text"),  # type: ignore[arg-type]
        (lambda: agui.text("x", role="bot"), "text.role='bot' must be one of"),
        (lambda: agui.tool_call(""), "tool_call.name: '' must be non-empty text"),
        (lambda: agui.tool_call("f", [1]), "tool_call.arguments=[1] must be a mapping"),  # type: ignore[arg-type]
        (
            lambda: agui.delta({"op": "add", "path": "/a"}),
            "delta[0]: a add operation needs a value",
        ),
        (
            lambda: agui.delta({"op": "move", "path": "/a"}),
            "delta[0].from=None must be a JSON pointer",
        ),
        (lambda: agui.messages({"role": "user"}), "messages[0]="),
        (lambda: agui.pause(-1), "pause"),
        (lambda: agui.run(agui.error("x"), agui.text("y")), "must be the run's last entry"),
        (lambda: agui.run({"text": "a", "state": 1}), "events[0]="),
        (lambda: agui.run(chunk_size=0), "chunk_size=0 must be a positive int"),
        (lambda: agui.run(jitter=2), "jitter=2 must be a number from 0 to 1"),
        (lambda: agui.run(thread_id=""), "thread_id='' must be non-empty text"),
        (lambda: agui.run(duplicate_terminal="yes"), "duplicate_terminal='yes' must be true"),
    ],
)
def test_bad_python_arguments(build: Any, words: str) -> None:
    with pytest.raises(mockhttp.ConfigError) as caught:
        build()
    assert words in str(caught.value)
