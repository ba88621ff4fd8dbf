"""The chunk-shape rules of openai-chat (contract/_openai_shape.py) on hand-written
ChatCompletionChunk streams: the reference shape passes, each provider drift is found."""

from __future__ import annotations

import json
from typing import Any

import pytest

from mockhttp.contract._openai_shape import OPENAI_SHAPE
from mockhttp.contract._rule import Hit
from mockhttp.contract._stream import Stream
from mockhttp.contract._transcript import Transcript

RULES = {r.id: r for r in OPENAI_SHAPE}


def chunk(delta: dict[str, Any], finish: str | None = None, **extra: Any) -> dict[str, Any]:
    choice = {"index": 0, "delta": delta, "finish_reason": finish}
    return {"id": "c1", "object": "chat.completion.chunk", "created": 1, "model": "m",
            "choices": [choice], **extra}  # fmt: skip


def call(index: int | None, id_: str | None, name: str | None, args: str) -> dict[str, Any]:
    out: dict[str, Any] = {"function": {"arguments": args}}
    if index is not None:
        out["index"] = index
    if id_ is not None:
        out.update(id=id_, type="function")
        out["function"]["name"] = name
    return out


GOOD = [chunk({"role": "assistant", "content": ""}), chunk({"content": "Hi"}), chunk({}, "stop")]
TOOLS = [
    chunk({"role": "assistant", "tool_calls": [call(0, "call_1", "f", "")]}),
    chunk({"tool_calls": [call(0, None, None, '{"a":')]}),
    chunk({"tool_calls": [call(0, None, None, "1}")]}),
    chunk({}, "tool_calls"),
]


def body(events: list[Any], names: list[str | None] | None = None) -> bytes:
    out = b""
    for i, e in enumerate(events):
        name = names[i] if names else None
        line = f"event: {name}\n" if name else ""
        out += f"{line}data: {json.dumps(e)}\n\n".encode()
    return out + b"data: [DONE]\n\n"


def hits(rule: str, events: list[Any], **kw: Any) -> list[Hit]:
    stream = Stream(Transcript.from_body(body(events, **kw)))
    return list(RULES[f"openai.{rule}"].find(stream))


@pytest.mark.parametrize("events", [GOOD, TOOLS])
def test_the_reference_shape_passes(events: list[Any]) -> None:
    for rule in RULES:
        assert hits(rule.removeprefix("openai."), events) == [], rule


def test_named_events_are_counted() -> None:
    [found] = hits("event-name", GOOD, names=[None, "delta", "delta"])
    assert found.message.startswith("2 event(s) carry an event: name (delta)")
    assert found.event == 1


def test_a_choice_without_finish_reason() -> None:
    bad = {**GOOD[1], "choices": [{"index": 0, "delta": {"content": "x"}}]}
    [found] = hits("choice-keys", [GOOD[0], bad, GOOD[2]])
    assert found.message.startswith("a choice lacks finish_reason: ")


def test_content_that_is_not_a_string() -> None:
    [found] = hits("content-string", [chunk({"content": [{"type": "text", "text": "x"}]})])
    assert found.message.startswith('delta.content was [{"type": "text"')


@pytest.mark.parametrize(
    ("delta", "where"),
    [
        ({"reasoning_content": "hm"}, "delta.reasoning_content"),
        ({"reasoning": "hm"}, "delta.reasoning"),
        ({"content": "<think>hm"}, "content as <think>"),
    ],
)
def test_reasoning_outside_content_is_named(delta: dict[str, Any], where: str) -> None:
    [found] = hits("reasoning", [GOOD[0], chunk(delta), chunk(delta), GOOD[2]])
    assert found.message.startswith(f"reasoning arrives in {where} on 2 chunk(s)")


def test_extra_keys_are_listed_with_counts() -> None:
    events = [
        chunk({"content": "a"}, x_groq={"id": "q"}),
        chunk({"content": "b", "annotations": []}, x_groq={"id": "q"}),
        chunk({}, "stop"),
    ]
    [found] = hits("extra-fields", events)
    assert found.message.startswith(
        "keys outside the ChatCompletionChunk schema: x_groq (2x), delta.annotations (1x)"
    )
    assert found.event == 0


def test_reasoning_keys_are_not_extra_fields() -> None:
    assert hits("extra-fields", [chunk({"reasoning_content": "hm"}), GOOD[2]]) == []


def test_a_tool_call_sent_whole() -> None:
    whole = [chunk({"tool_calls": [call(0, "call_1", "f", '{"a":1}')]}), chunk({}, "tool_calls")]
    [found] = hits("tool-call-whole", whole)
    assert found.message.startswith(
        "tool call 0 of choice 0 arrives whole: its first fragment already carries the "
        'arguments "{\\"a\\":1}"'
    )


def test_index_less_fragments_are_grouped_by_id() -> None:
    events = [
        chunk({"tool_calls": [call(None, "call_1", "f", "")]}),
        chunk({"tool_calls": [call(None, None, None, "{}")]}),
        chunk({"tool_calls": [call(None, "call_2", "g", '{"b":2}')]}),
        chunk({}, "tool_calls"),
    ]
    [found] = hits("tool-call-whole", events)
    assert found.message.startswith("tool call 1 of choice 0 arrives whole")


def test_tool_calls_finished_with_stop() -> None:
    events = [*TOOLS[:-1], chunk({}, "stop")]
    [found] = hits("tool-call-finish", events)
    assert found.message.startswith(
        'choice 0 streamed tool calls but finished with "stop", expected "tool_calls"'
    )


def test_tool_calls_finish_without_a_call() -> None:
    [found] = hits("tool-call-finish", [GOOD[0], chunk({}, "tool_calls")])
    assert found.message == "choice 0 finished with 'tool_calls' but streamed no tool call"
