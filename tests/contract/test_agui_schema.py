"""``_agui_schema``: AG-UI 1.0's event schemas, stripped and validated as ``@ag-ui/client``'s
``enforceEvents`` does (tests/agui/test_differential.py holds it to the client itself)."""

from __future__ import annotations

from typing import Any

import pytest

from mockhttp.contract._agui_schema import EVENT_SCHEMAS, Invalid, enforce


def problem(event: dict[str, Any]) -> str:
    with pytest.raises(Invalid) as caught:
        enforce(event)
    return str(caught.value)


def test_a_valid_event_comes_back_unchanged() -> None:
    event = {"type": "TEXT_MESSAGE_START", "messageId": "m", "role": "user", "name": "n",
             "timestamp": 3, "metadata": {"a": None}, "subagentRunId": "s"}  # fmt: skip
    assert enforce(event) == (event, [])


def test_unknown_keys_are_stripped_and_named() -> None:
    kept, stripped = enforce({"type": "TEXT_MESSAGE_END", "messageId": "m", "message_id": "m"})
    assert kept == {"type": "TEXT_MESSAGE_END", "messageId": "m"}
    assert stripped == ["/message_id"]


def test_required_fields_and_their_kinds() -> None:
    assert problem({"type": "TOOL_CALL_START", "toolCallId": "c"}) == "/toolCallName is missing"
    assert problem({"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": 1}) == (
        "/delta is 1, expected a string"
    )
    assert "expected one of developer, system" in problem(
        {"type": "TEXT_MESSAGE_START", "messageId": "m", "role": "tool"}
    )
    assert "expected an integer" in problem({"type": "RAW", "event": 1, "timestamp": 1.5})
    assert "expected an integer" in problem({"type": "RAW", "event": 1, "timestamp": True})
    assert enforce({"type": "RAW", "event": 1, "timestamp": 2.0})[1] == []  # JSON 2.0 is 2


def test_null_is_no_value() -> None:
    """A required field that is null is wrong; an optional one is no better (omit it)."""
    assert problem({"type": "STEP_STARTED", "stepName": None}) == (
        "/stepName is null, expected a string"
    )
    assert problem({"type": "RUN_ERROR", "message": "x", "code": None}) == (
        "/code is null, expected a string"
    )
    assert enforce({"type": "RAW", "event": None}) == ({"type": "RAW", "event": None}, [])
    assert problem({"type": "RAW"}) == "/event is missing"  # present, even as null


def test_legacy_nulls_the_client_removes() -> None:
    """rawEvent, parentMessageId, RUN_FINISHED's result and outcome, RUN_STARTED's
    input.forwardedProps: a pre-1.0 null, removed before the schema looks."""
    kept, _ = enforce({"type": "TOOL_CALL_START", "toolCallId": "c", "toolCallName": "f",
                       "parentMessageId": None, "rawEvent": None})  # fmt: skip
    assert kept == {"type": "TOOL_CALL_START", "toolCallId": "c", "toolCallName": "f"}
    kept, _ = enforce({"type": "RUN_FINISHED", "threadId": "t", "runId": "r", "result": None,
                       "outcome": None})  # fmt: skip
    assert kept == {"type": "RUN_FINISHED", "threadId": "t", "runId": "r"}
    given: dict[str, Any] = {"threadId": "t", "runId": "r", "messages": [], "forwardedProps": None}
    kept, _ = enforce({"type": "RUN_STARTED", "threadId": "t", "runId": "r", "input": given})
    assert "forwardedProps" not in kept["input"]


def test_json_patch_operations() -> None:
    """An op it does not know is stripped (dropped from the patch); a known op must have
    its members, pointers included; unknown members of an op are kept (RFC 6902)."""
    patch = [{"op": "set", "path": "/a"}, {"path": "/b"},
             {"op": "add", "path": "/c", "value": 1, "extra": True}]  # fmt: skip
    kept, stripped = enforce({"type": "STATE_DELTA", "delta": patch})
    assert kept["delta"] == [{"op": "add", "path": "/c", "value": 1, "extra": True}]
    assert stripped == ["/delta/0", "/delta/1"]
    assert problem({"type": "STATE_DELTA", "delta": [{"op": "add", "path": "/a"}]}) == (
        "/delta/0/value is missing"
    )
    assert "not a JSON pointer" in problem(
        {"type": "STATE_DELTA", "delta": [{"op": "move", "from": "a", "path": "/b"}]}
    )
    assert "expected an object with a op" in problem({"type": "STATE_DELTA", "delta": ["x"]})
    assert enforce({"type": "STATE_DELTA", "delta": [{"op": "add", "path": "", "value": None}]})


def test_messages_and_content_parts() -> None:
    """A message of a role it does not know, a part of a type it does not know: dropped; a
    known one is validated to its depth (a tool call's function, a media part's source)."""
    messages = [
        {"id": "1", "role": "wizard"},
        {"id": "2", "role": "user", "content": [{"type": "hologram"}, {"type": "text",
                                                                        "text": "hi"}]},
        {"id": "3", "role": "assistant", "toolCalls": [
            {"id": "c", "type": "function", "function": {"name": "f", "arguments": "{}"}}]},
    ]  # fmt: skip
    kept, stripped = enforce({"type": "MESSAGES_SNAPSHOT", "messages": messages})
    assert [m["id"] for m in kept["messages"]] == ["2", "3"]
    assert kept["messages"][0]["content"] == [{"type": "text", "text": "hi"}]
    assert stripped == ["/messages/0", "/messages/1/content/0"]
    bad_call = [
        {
            "id": "3",
            "role": "assistant",
            "toolCalls": [{"id": "c", "type": "function", "function": {"name": "f"}}],
        }
    ]
    assert problem({"type": "MESSAGES_SNAPSHOT", "messages": bad_call}) == (
        "/messages/0/toolCalls/0/function/arguments is missing"
    )  # fmt: skip
    image = {"id": "4", "role": "user", "content": [{"type": "image", "source": {"type": "x"}}]}
    kept, stripped = enforce({"type": "MESSAGES_SNAPSHOT", "messages": [image]})
    assert kept["messages"][0]["content"] == []  # a part whose required source is unknown


def test_run_finished_outcomes() -> None:
    finished = {"type": "RUN_FINISHED", "threadId": "t", "runId": "r"}
    kept, stripped = enforce({**finished, "outcome": {"type": "later"}})
    assert "outcome" not in kept
    assert stripped == ["/outcome"]
    assert "at least 1" in problem({**finished, "outcome": {"type": "interrupt",
                                                             "interrupts": []}})  # fmt: skip
    assert "/usage/0/inputTokens" in problem({**finished, "usage": [{"inputTokens": -1}]})


def test_every_event_type_has_an_object_schema() -> None:
    assert len(EVENT_SCHEMAS) == 31
    for kind in EVENT_SCHEMAS:
        with pytest.raises(Invalid):
            enforce({"type": kind, "metadata": [kind]})  # metadata is an object in each
