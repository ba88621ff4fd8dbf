"""AG-UI runs on the wire, read with httpx: bytes, the protocol's types, ids, timing, faults."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from ag_ui.core import Event, EventType, RunAgentInput
from ag_ui.encoder import EventEncoder
from pydantic import TypeAdapter

import mockhttp
from mockhttp import agui, fault

EVENTS: TypeAdapter[Any] = TypeAdapter(Event)
INPUT = {
    "threadId": "thread-1",
    "runId": "run-1",
    "state": {},
    "messages": [{"id": "u1", "role": "user", "content": "Weather in Paris?"}],
    "tools": [],
    "context": [],
    "forwardedProps": {},
}
FULL = agui.run(
    agui.reasoning("The user wants the weather."),
    agui.text("Let me check.", id="m1"),
    agui.tool_call("get_weather", {"city": "Paris"}, id="c1", result="Sunny, 21 °C"),
    agui.step("answer", agui.text("It is sunny in Paris.")),
    agui.state({"count": 1, "cities": ["Paris"]}),
    agui.delta({"op": "replace", "path": "/count", "value": 2}),
    agui.messages({"id": "u1", "role": "user", "content": "Weather in Paris?"}),
    agui.custom("progress", {"done": 1}),
)


@pytest.fixture
def server() -> Iterator[mockhttp.Server]:
    with mockhttp.Server() as s:
        yield s


def post(server: mockhttp.Server, path: str, body: Any = INPUT) -> httpx.Response:
    return httpx.post(server.url + path, json=body, timeout=5)


def datas(text: str) -> list[dict[str, Any]]:
    """The events of an AG-UI stream (each a ``data:`` line and a blank line)."""
    blocks = text.split("\n\n")
    assert blocks[-1] == "", "the stream ends with a blank line"
    out = []
    for block in blocks[:-1]:
        assert block.startswith("data: "), block
        assert "\n" not in block, block
        out.append(json.loads(block[len("data: ") :]))
    return out


def test_the_bytes_of_a_small_run(server: mockhttp.Server) -> None:
    """``RUN_STARTED`` with the request's ids, the message in word pieces, ``RUN_FINISHED``:
    one compact ``data:`` line per event, the protocol's camelCase names."""
    server.mock(agui.run(agui.text("Hello there", id="m1")).mock("/agent"))
    answer = post(server, "/agent")
    assert answer.status_code == 200
    assert answer.headers["content-type"] == "text/event-stream; charset=utf-8"
    assert answer.text == (
        'data: {"type":"RUN_STARTED","threadId":"thread-1","runId":"run-1"}\n\n'
        'data: {"type":"TEXT_MESSAGE_START","messageId":"m1","role":"assistant"}\n\n'
        'data: {"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"Hello"}\n\n'
        'data: {"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":" there"}\n\n'
        'data: {"type":"TEXT_MESSAGE_END","messageId":"m1"}\n\n'
        'data: {"type":"RUN_FINISHED","threadId":"thread-1","runId":"run-1"}\n\n'
    )


def test_every_event_parses_and_encodes_as_the_sdk_does(server: mockhttp.Server) -> None:
    """Each event of a run using every entry validates as the ``ag_ui`` pydantic types, and
    AG-UI's own ``EventEncoder`` writes the parsed event to the very bytes we sent."""
    server.mock(FULL.mock("/agent"))
    text = post(server, "/agent").text
    RunAgentInput.model_validate(INPUT)
    encoder = EventEncoder()
    blocks = [b + "\n\n" for b in text.split("\n\n")[:-1]]
    parsed = [EVENTS.validate_json(b[len("data: ") :]) for b in blocks]
    assert [encoder.encode(e) for e in parsed] == blocks
    kinds = [e.type.value for e in parsed]
    assert kinds[0] == "RUN_STARTED"
    assert kinds[-1] == "RUN_FINISHED"
    for wanted in (
        "REASONING_START",
        "REASONING_MESSAGE_CONTENT",
        "REASONING_END",
        "TOOL_CALL_START",
        "TOOL_CALL_ARGS",
        "TOOL_CALL_END",
        "TOOL_CALL_RESULT",
        "STEP_STARTED",
        "STEP_FINISHED",
        "STATE_SNAPSHOT",
        "STATE_DELTA",
        "MESSAGES_SNAPSHOT",
        "CUSTOM",
    ):
        assert wanted in kinds, wanted


def test_tool_call_arguments_in_pieces(server: mockhttp.Server) -> None:
    """The arguments stream as pieces that join into their JSON text; the call belongs to
    the text message before it; its result is a tool message."""
    server.mock(FULL.mock("/agent"))
    events = datas(post(server, "/agent").text)
    start = next(e for e in events if e["type"] == "TOOL_CALL_START")
    assert start == {
        "type": "TOOL_CALL_START",
        "toolCallId": "c1",
        "toolCallName": "get_weather",
        "parentMessageId": "m1",
    }
    args = [e["delta"] for e in events if e["type"] == "TOOL_CALL_ARGS"]
    assert len(args) > 3
    assert json.loads("".join(args)) == {"city": "Paris"}
    result = next(e for e in events if e["type"] == "TOOL_CALL_RESULT")
    assert result["toolCallId"] == "c1"
    assert result["content"] == "Sunny, 21 °C"
    assert result["role"] == "tool"
    assert result["messageId"] not in ("m1", "c1")


def test_steps_wrap_their_events(server: mockhttp.Server) -> None:
    server.mock(FULL.mock("/agent"))
    kinds = [e["type"] for e in datas(post(server, "/agent").text)]
    opened, closed = kinds.index("STEP_STARTED"), kinds.index("STEP_FINISHED")
    assert kinds[opened + 1 : closed] == [
        "TEXT_MESSAGE_START",
        *["TEXT_MESSAGE_CONTENT"] * 5,
        "TEXT_MESSAGE_END",
    ]


def test_ids_from_the_request_the_options_or_made(server: mockhttp.Server) -> None:
    """The request's threadId and runId win; then the run's own; else made per call
    (unique per call, stable within a stream, the same in the next test run)."""
    run = agui.run(agui.text("Hi"), thread_id="t-own", run_id="r-own")
    server.mock(run.mock("/own"))
    server.mock(agui.run(agui.text("Hi")).mock("/made"))
    first = datas(post(server, "/own").text)[0]
    assert (first["threadId"], first["runId"]) == ("thread-1", "run-1")
    first = datas(post(server, "/own", {"messages": []}).text)[0]
    assert (first["threadId"], first["runId"]) == ("t-own", "r-own")
    one = datas(post(server, "/made", {}).text)
    two = datas(post(server, "/made", "not a RunAgentInput").text)
    assert one[0]["threadId"].startswith("thread_")
    assert one[0]["runId"].startswith("run_")
    assert one[-1]["runId"] == one[0]["runId"]
    assert one[1]["messageId"] == one[2]["messageId"]
    assert one[0]["runId"] != two[0]["runId"]
    assert one[1]["messageId"] != two[1]["messageId"]
    again = agui.run(agui.text("Hi"))
    with mockhttp.Server() as other:
        other.mock(again.mock("/made"))
        assert datas(post(other, "/made", {}).text) == one


def test_chunk_size_and_result(server: mockhttp.Server) -> None:
    server.mock(agui.run(agui.text("abcdefg"), chunk_size=3, result={"ok": True}).mock("/a"))
    events = datas(post(server, "/a").text)
    assert [e["delta"] for e in events if "delta" in e] == ["abc", "def", "g"]
    assert events[-1] == {
        "type": "RUN_FINISHED",
        "threadId": "thread-1",
        "runId": "run-1",
        "result": {"ok": True},
    }


def arrivals(server: mockhttp.Server, path: str) -> list[float]:
    """When each event arrived, in seconds since the request was sent."""
    start = time.monotonic()
    times = []
    with httpx.stream("POST", server.url + path, json=INPUT, timeout=5) as answer:
        for line in answer.iter_lines():
            if line.startswith("data: "):
                times.append(time.monotonic() - start)
    return times


def test_timing_like_llm_replies(server: mockhttp.Server) -> None:
    """``ttft`` before the first event, ``1 / chunks_per_second`` between the others."""
    server.mock(agui.run(agui.text("one two three"), ttft=0.3, chunks_per_second=20).mock("/t"))
    times = arrivals(server, "/t")
    assert len(times) == 7
    # A loaded machine delays reads and merges them (two events in one read), never makes
    # them early: the schedule is a lower bound, measured from the request; the upper
    # bounds only say nothing hung.
    assert 0.28 <= times[0] < 5
    assert 0.3 * 0.95 + 6 * 0.05 * 0.9 <= times[-1] < 0.6 + 5, times


def test_a_pause_mid_run(server: mockhttp.Server) -> None:
    """``pause`` holds the next event back (a stall that ends): here before the tool call."""
    server.mock(agui.run(agui.text("Hi"), agui.pause("1.5s"), agui.tool_call("f")).mock("/p"))
    times = arrivals(server, "/p")
    assert times[3] < 1.2  # TEXT_MESSAGE_END: no pause before it (generous: a loaded machine)
    assert times[4] >= 1.5  # TOOL_CALL_START: after the pause


def test_run_error(server: mockhttp.Server) -> None:
    """``error`` ends the run with ``RUN_ERROR`` (no ``RUN_FINISHED``); a step it fails in
    is left open."""
    run = agui.run(agui.text("Hi"), agui.step("search", agui.error("No weather", code="E42")))
    server.mock(run.mock("/e"))
    events = datas(post(server, "/e").text)
    assert [e["type"] for e in events][-2:] == ["STEP_STARTED", "RUN_ERROR"]
    assert events[-1] == {"type": "RUN_ERROR", "message": "No weather", "code": "E42"}
    assert EVENTS.validate_python(events[-1]).type is EventType.RUN_ERROR


def read(server: mockhttp.Server, path: str, timeout: float = 5) -> tuple[list[str], Exception]:
    """The data lines that arrived, and the error that ended the read."""
    lines: list[str] = []
    try:
        with httpx.stream("POST", server.url + path, json=INPUT, timeout=timeout) as answer:
            for line in answer.iter_lines():
                lines += [line] if line else []
    except httpx.HTTPError as exc:
        return lines, exc
    raise AssertionError(f"the read ended without an error after {lines}")


def test_a_dropped_connection_instead_of_run_error(server: mockhttp.Server) -> None:
    """``error(..., drop=True)``: the connection closes where RUN_ERROR would be; httpx
    reads the events before it, then fails the read (the chunked body never ends)."""
    server.mock(agui.run(agui.text("Hi"), agui.error("boom", drop=True)).mock("/d"))
    lines, error = read(server, "/d")
    assert [json.loads(x[6:])["type"] for x in lines] == [
        "RUN_STARTED",
        "TEXT_MESSAGE_START",
        "TEXT_MESSAGE_CONTENT",
        "TEXT_MESSAGE_END",
    ]
    assert isinstance(error, httpx.RemoteProtocolError)
    assert "incomplete chunked read" in str(error)


def test_a_duplicate_terminal_event(server: mockhttp.Server) -> None:
    server.mock(agui.run(agui.text("Hi"), duplicate_terminal=True).mock("/dup"))
    server.mock(agui.run(agui.error("x"), duplicate_terminal=True).mock("/dup-error"))
    kinds = [e["type"] for e in datas(post(server, "/dup").text)]
    assert kinds[-2:] == ["RUN_FINISHED", "RUN_FINISHED"]
    kinds = [e["type"] for e in datas(post(server, "/dup-error").text)]
    assert kinds == ["RUN_STARTED", "RUN_ERROR", "RUN_ERROR"]


def test_faults_cut_after_event_k(server: mockhttp.Server) -> None:
    """The existing faults break a run at event K: a clean close, a reset."""
    server.mock(FULL.mock("/close").pipe(fault.close_after_events(3)))
    server.mock(FULL.mock("/reset").pipe(fault.reset_after_events(2)))
    lines, error = read(server, "/close")
    assert len(lines) == 3
    assert isinstance(error, httpx.RemoteProtocolError)
    lines, error = read(server, "/reset")
    assert len(lines) == 2
    assert isinstance(error, httpx.ReadError | httpx.RemoteProtocolError)


def test_a_stall_trips_the_read_timeout(server: mockhttp.Server) -> None:
    server.mock(FULL.mock("/stall").pipe(fault.stall(after_events=2)))
    start = time.monotonic()
    lines, error = read(server, "/stall", timeout=0.3)
    assert len(lines) == 2
    assert isinstance(error, httpx.ReadTimeout)
    assert 0.28 <= time.monotonic() - start < 2


def test_journal_keeps_the_run_input(server: mockhttp.Server) -> None:
    mock = server.mock(agui.run(agui.text("Hi")).mock("/j"))
    post(server, "/j")
    (call,) = mock.calls
    assert call.request.json()["threadId"] == "thread-1"
