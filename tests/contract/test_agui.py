"""The ``ag-ui`` profile on hand-made streams: each rule passes the reference and names
what breaks it; its field table is the ``ag_ui`` package's event models."""

from __future__ import annotations

import json
from typing import Any

import pytest
from ag_ui.core import events as sdk
from pydantic import BaseModel
from pydantic.alias_generators import to_camel

from mockhttp.contract import check
from mockhttp.contract._agui import EVENT_FIELDS
from mockhttp.contract._recognise import recognise
from mockhttp.contract._transcript import Transcript

REQUEST = {"threadId": "t", "runId": "r", "messages": []}
START = {"type": "RUN_STARTED", "threadId": "t", "runId": "r"}
FINISH = {"type": "RUN_FINISHED", "threadId": "t", "runId": "r"}
TEXT = [
    {"type": "TEXT_MESSAGE_START", "messageId": "m", "role": "assistant"},
    {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": "Hi"},
    {"type": "TEXT_MESSAGE_END", "messageId": "m"},
]
TOOL = [
    {"type": "TOOL_CALL_START", "toolCallId": "c", "toolCallName": "f"},
    {"type": "TOOL_CALL_ARGS", "toolCallId": "c", "delta": '{"a":'},
    {"type": "TOOL_CALL_ARGS", "toolCallId": "c", "delta": " 1}"},
    {"type": "TOOL_CALL_END", "toolCallId": "c"},
    {"type": "TOOL_CALL_RESULT", "messageId": "t1", "toolCallId": "c", "content": "ok"},
]
STEP = [{"type": "STEP_STARTED", "stepName": "s"}, {"type": "STEP_FINISHED", "stepName": "s"}]
DELTA = {"type": "STATE_DELTA", "delta": [{"op": "add", "path": "/a", "value": 1}]}
GOOD = [START, *TEXT, *TOOL, *STEP, DELTA, FINISH]


def body(events: list[Any]) -> bytes:
    return b"".join(
        b"data: "
        + (e if isinstance(e, bytes) else json.dumps(e, separators=(",", ":")).encode())
        + b"\n\n"
        for e in events
    )


def found(events: list[Any], request: Any = REQUEST) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for f in check(Transcript.from_body(body(events), request=request), "ag-ui"):
        out.setdefault(f.rule, []).append(f.message)
    return out


def test_the_field_table_is_the_sdks() -> None:
    """Every event model of ``ag_ui.core`` has a row, with its required fields by their
    wire (camelCase) names, and the table has no other type."""
    names = [n for n in sdk.__all__ if n.endswith("Event") and n != "BaseEvent"]
    models = [
        m for m in map(sdk.__dict__.get, names) if isinstance(m, type) and issubclass(m, BaseModel)
    ]  # the models, not the unions
    table = {}
    for model in models:
        kind = model.model_fields["type"].default.value
        table[kind] = [to_camel(k) for k, f in model.model_fields.items() if f.is_required()]
    assert {k: [name for name, _ in v] for k, v in EVENT_FIELDS.items()} == table
    assert set(EVENT_FIELDS) == {e.value for e in sdk.EventType}


def test_the_reference_passes() -> None:
    assert found(GOOD) == {}
    assert found([START, *TEXT, {"type": "RUN_ERROR", "message": "x"}]) == {}
    # a message or a step left open when the run fails is no finding
    assert found([START, TEXT[0], {"type": "RUN_ERROR", "message": "x"}]) == {}


BROKEN: list[tuple[list[Any], str, str]] = [
    ([START, b"not json", FINISH], "ag-ui.event", "not a JSON object"),
    ([START, {"type": "THINKING_START"}, FINISH], "ag-ui.event", "not an AG-UI event"),
    (
        [{"type": "RUN_STARTED", "thread_id": "t", "run_id": "r"}, FINISH],
        "ag-ui.fields",
        "no threadId (it has thread_id",
    ),
    (
        [START, {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": 1}, FINISH],
        "ag-ui.fields",
        "delta is 1, expected text",
    ),
    ([*TEXT, START, FINISH], "ag-ui.run-started", "first event is TEXT_MESSAGE_START"),
    ([START, START, FINISH], "ag-ui.run-started", "second RUN_STARTED"),
    ([START, FINISH, FINISH], "ag-ui.terminal", "second terminal event"),
    (
        [START, {"type": "RUN_ERROR", "message": "x"}, FINISH],
        "ag-ui.terminal",
        "second terminal event (RUN_FINISHED) after RUN_ERROR",
    ),
    ([START, FINISH, *STEP], "ag-ui.terminal", "the run had ended"),
    ([START, *TEXT], "ag-ui.run-error", "without RUN_FINISHED or RUN_ERROR"),
    ([START, TEXT[1], FINISH], "ag-ui.text-pairing", "which is not open"),
    ([START, TEXT[0], TEXT[0], FINISH], "ag-ui.text-pairing", "already open"),
    ([START, TEXT[0], FINISH], "ag-ui.text-pairing", "never closed with TEXT_MESSAGE_END"),
    ([START, TOOL[1], FINISH], "ag-ui.tool-call-pairing", "which is not open"),
    ([START, TOOL[4], FINISH], "ag-ui.tool-call-pairing", "never started"),
    ([START, TOOL[0], FINISH], "ag-ui.tool-call-pairing", "never closed"),
    (
        [START, {"type": "REASONING_MESSAGE_END", "messageId": "x"}, FINISH],
        "ag-ui.reasoning-pairing",
        "not open",
    ),
    ([START, STEP[1], FINISH], "ag-ui.step-pairing", 'step "s", which is not open'),
    ([START, STEP[0], FINISH], "ag-ui.step-pairing", "never closed with STEP_FINISHED"),
    (
        [{**START, "runId": "other"}, {**FINISH, "runId": "other"}],
        "ag-ui.run-ids",
        'the request\'s RunAgentInput sent "r"',
    ),
    ([START, {**FINISH, "threadId": "u"}], "ag-ui.run-ids", 'RUN_STARTED\'s was "t"'),
    (
        [START, {"type": "STATE_DELTA", "delta": [{"op": "set", "path": "/a"}]}, FINISH],
        "ag-ui.state-delta",
        'has op "set"',
    ),
    (
        [START, {"type": "STATE_DELTA", "delta": [{"op": "add", "path": "a"}]}, FINISH],
        "ag-ui.state-delta",
        "not a JSON pointer",
    ),
    ([START, *TOOL[:2], TOOL[3], FINISH], "ag-ui.tool-args", "are not JSON"),
]
"""A stream breaking each ag-ui rule (``test_rules`` counts these as its breaking streams)."""


@pytest.mark.parametrize(("events", "rule", "words"), BROKEN)
def test_each_rule_names_what_breaks_it(events: list[Any], rule: str, words: str) -> None:
    hits = found(events)
    assert rule in hits, hits
    assert any(words in m for m in hits[rule]), hits[rule]


def test_a_cut_stream_says_the_connection_failed() -> None:
    t = Transcript(200, (("content-type", "text/event-stream"),), (), error="peer closed")
    t = Transcript(t.status, t.headers, Transcript.from_body(body([START])).chunks, error="reset")
    rules = {f.rule: f for f in check(t, "ag-ui")}
    assert "http.transport" in rules
    assert rules["ag-ui.run-error"].message.startswith("the connection failed (reset) after")


def test_recognised_offline() -> None:
    """A saved AG-UI stream (or its RunAgentInput) is checked as ``ag-ui`` by default."""
    assert recognise(Transcript.from_body(body(GOOD))) == "ag-ui"
    assert recognise(Transcript.from_body(b"", request=REQUEST)) == "ag-ui"
