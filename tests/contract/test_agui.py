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
from mockhttp.contract._agui_schema import EVENT_SCHEMAS
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


def found(
    events: list[Any], request: Any = REQUEST, profile: str = "ag-ui-strict"
) -> dict[str, list[str]]:
    """The violations ``profile`` finds, by rule (warnings: see ``warned``)."""
    out: dict[str, list[str]] = {}
    for f in check(Transcript.from_body(body(events), request=request), profile):
        if f.severity == "violation":
            out.setdefault(f.rule, []).append(f.message)
    return out


def warned(events: list[Any], profile: str = "ag-ui") -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for f in check(Transcript.from_body(body(events), request=REQUEST), profile):
        if f.severity == "warning":
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
    assert set(EVENT_SCHEMAS) == set(EVENT_FIELDS)  # the TypeScript schemas: the same types


def test_the_reference_passes() -> None:
    assert found(GOOD) == {}
    assert found([START, *TEXT, {"type": "RUN_ERROR", "message": "x"}]) == {}
    # a message or a step left open when the run fails is no finding
    assert found([START, TEXT[0], {"type": "RUN_ERROR", "message": "x"}]) == {}


ERROR = {"type": "RUN_ERROR", "message": "x"}
SECOND = {"type": "RUN_STARTED", "threadId": "t", "runId": "r2"}
SECOND_END = {"type": "RUN_FINISHED", "threadId": "t", "runId": "r2"}
ACCEPTED: dict[str, tuple[list[Any], str | None]] = {
    "several runs": ([START, *TEXT, FINISH, SECOND, *TEXT, *TOOL, SECOND_END], "ag-ui.one-run"),
    "RUN_ERROR first": ([ERROR], None),
    "a run after RUN_ERROR first": ([ERROR, SECOND, SECOND_END], None),
    "a new run after RUN_ERROR": (
        [START, TEXT[0], ERROR, SECOND, *TEXT, SECOND_END],
        "ag-ui.one-run",
    ),
    "RUN_ERROR after RUN_FINISHED": ([START, FINISH, ERROR], None),
    "ids reused by the next run": (
        [START, *TOOL, FINISH, SECOND, *TOOL, SECOND_END],
        "ag-ui.one-run",
    ),
    "an unknown event type": ([START, {"type": "FOO"}, FINISH], None),
    "a chunked message and call": (
        [
            START,
            {"type": "TEXT_MESSAGE_CHUNK", "messageId": "m", "delta": "Hi"},
            {"type": "TEXT_MESSAGE_CHUNK", "delta": " there"},
            {"type": "TOOL_CALL_CHUNK", "toolCallId": "c", "toolCallName": "f", "delta": "{}"},
            FINISH,
        ],
        None,
    ),
    "an unknown JSON Patch op": (
        [START, {"type": "STATE_DELTA", "delta": [{"op": "set", "path": "/a"}]}, FINISH],
        None,
    ),
}
"""Streams @ag-ui/client 1.0 accepts (tests/agui/test_differential.py runs it on them)
that the profile passed as violations before it followed the client; the rule of
``ag-ui-strict`` that still reports them, if any."""


@pytest.mark.parametrize("name", sorted(ACCEPTED))
def test_what_the_reference_accepts_is_no_violation(name: str) -> None:
    events, strict = ACCEPTED[name]
    assert found(events, profile="ag-ui") == {}
    assert set(found(events)) == ({strict} if strict else set())


def test_what_the_client_drops_is_a_warning() -> None:
    assert "ag-ui.event" in warned([START, {"type": "FOO"}, FINISH])
    assert "ag-ui.state-delta" in warned(ACCEPTED["an unknown JSON Patch op"][0])
    snake = warned([START, {**TEXT[0], "message_id": "m"}, *TEXT[1:], FINISH])
    assert snake["ag-ui.fields"] == [
        'TEXT_MESSAGE_START has the snake_case key "message_id"; AG-UI names are camelCase '
        "(the client drops it)"
    ]
    ended = warned([START, *TEXT])["ag-ui.run-error"]
    assert "the reference client accepts this" in ended[0]


BROKEN: list[tuple[list[Any], str, str]] = [
    ([START, b"not json", FINISH], "ag-ui.event", "not a JSON object"),
    ([START, b"[1]", FINISH], "ag-ui.event", "not a JSON object"),
    (
        [{"type": "RUN_STARTED", "thread_id": "t", "run_id": "r"}, FINISH],
        "ag-ui.fields",
        "no threadId (it has thread_id",
    ),
    (
        [START, {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": 1}, FINISH],
        "ag-ui.fields",
        "delta is 1, expected a string",
    ),
    (
        [START, {**TEXT[0], "role": "tool"}, *TEXT[1:], FINISH],
        "ag-ui.fields",
        'role is "tool", expected one of developer, system, assistant, user',
    ),
    ([*TEXT, START, FINISH], "ag-ui.run-started", "first event is TEXT_MESSAGE_START"),
    ([START, SECOND, FINISH], "ag-ui.run-started", "RUN_STARTED while a run is still active"),
    ([START, FINISH, FINISH], "ag-ui.terminal", "RUN_FINISHED after RUN_FINISHED"),
    ([START, ERROR, FINISH], "ag-ui.terminal", "RUN_FINISHED after RUN_ERROR"),
    ([START, FINISH, *STEP], "ag-ui.terminal", "the run had ended"),
    ([START, *TEXT], "ag-ui.run-ended", "without RUN_FINISHED or RUN_ERROR"),
    ([START, *TEXT], "ag-ui.run-error", "the reference client accepts this"),  # a warning
    ([START, TEXT[1], FINISH], "ag-ui.text-pairing", "which is not open"),
    ([START, TEXT[0], TEXT[0], FINISH], "ag-ui.text-pairing", "already open"),
    ([START, TEXT[0], FINISH], "ag-ui.text-pairing", "never closed with TEXT_MESSAGE_END"),
    (
        [START, {"type": "TEXT_MESSAGE_CHUNK", "delta": "x"}, FINISH],
        "ag-ui.text-pairing",
        "the first TEXT_MESSAGE_CHUNK of a text message has no messageId",
    ),
    ([START, TOOL[1], FINISH], "ag-ui.tool-call-pairing", "which is not open"),
    ([START, TOOL[0], FINISH], "ag-ui.tool-call-pairing", "never closed"),
    ([START, TOOL[4], FINISH], "ag-ui.tool-result", "never started in this run"),
    (
        [START, {"type": "REASONING_MESSAGE_END", "messageId": "x"}, FINISH],
        "ag-ui.reasoning-pairing",
        "not open",
    ),
    (
        [START, {"type": "REASONING_START", "messageId": "x"}, FINISH],
        "ag-ui.reasoning-pairing",
        "reasoning span",
    ),
    ([START, STEP[1], FINISH], "ag-ui.step-pairing", 'step "s", which is not open'),
    ([START, STEP[0], FINISH], "ag-ui.step-pairing", "never closed with STEP_FINISHED"),
    (
        [START, {"type": "SUBAGENT_FINISHED", "subagentRunId": "s1"}, FINISH],
        "ag-ui.subagents",
        "which is not active",
    ),
    (
        [START, TEXT[0], {**TEXT[1], "subagentRunId": "s1"}, TEXT[2], FINISH],
        "ag-ui.attribution",
        "owned by the parent agent",
    ),
    (
        [{**START, "runId": "other"}, {**FINISH, "runId": "other"}],
        "ag-ui.run-ids",
        'the request\'s RunAgentInput sent "r"',
    ),
    ([START, {**FINISH, "threadId": "u"}], "ag-ui.run-ids", 'RUN_STARTED\'s was "t"'),
    ([START, FINISH, SECOND, SECOND_END], "ag-ui.one-run", "2 runs in one stream"),
    (
        [START, {"type": "STATE_DELTA", "delta": [{"op": "add", "path": "/a"}]}, FINISH],
        "ag-ui.state-delta",
        "STATE_DELTA has no delta.0.value",
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
    hits = {**warned(events, "ag-ui-strict"), **found(events)}
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
