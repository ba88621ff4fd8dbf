"""llm/_anthropic.py: the Messages reference stream and answer, event by event.

Pure tests first: the stream of the module's docstring (event names, blocks and their
indices, the one ping, the usage in message_start and message_delta), the buffered
message, the errors, each option's check; each payload then validated by the official
anthropic SDK's types (``RawMessageStreamEvent``, ``Message``) with no key they do not
name.  Then on a loopback socket: the exact bytes, and the SDK's stream helper.
"""

from __future__ import annotations

from typing import Any

import anthropic
import pytest
from anthropic.types import Message, MessageParam, RawMessageStreamEvent
from hypothesis import given
from hypothesis import strategies as st
from pydantic import TypeAdapter

import mockhttp
from mockhttp import ConfigError, llm
from mockhttp.llm._anthropic import STOP_REASONS, AnthropicMessages
from mockhttp.llm._text import count_tokens
from tests.helpers.llm_build import (
    body_of,
    payloads,
    raw_exchange,
    request,
    sdk_extras,
    stream_bytes,
)

USER: list[MessageParam] = [{"role": "user", "content": "What is the weather?"}]  # 5 tokens
BODY: dict[str, Any] = {"model": "claude-test", "max_tokens": 64, "messages": USER}
STREAM = {**BODY, "stream": True}
CALLS: list[dict[str, Any]] = [
    {"name": "get_weather", "arguments": {"city": "Paris"}},
    {"name": "get_time", "arguments": '{"zone": "CET"}', "id": "toolu_given"},
]
EVENT = TypeAdapter(RawMessageStreamEvent)


def events(reply: AnthropicMessages, body: dict[str, Any] = STREAM) -> list[dict[str, Any]]:
    return payloads(reply.build(request(body, "/v1/messages")))


def names(reply: AnthropicMessages) -> list[str]:
    return [e["type"] for e in events(reply)]


def buffered(reply: AnthropicMessages) -> dict[str, Any]:
    return body_of(reply.build(request(BODY, "/v1/messages")))  # type: ignore[no-any-return]


# -- the option checks ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"thinking": "a", "reasoning": "b"}, "thinking and reasoning name the same block"),
        ({"stop_reason": "stop"}, "stop_reason='stop' must be one of end_turn"),
        ({"thinking": 1}, "thinking=1 must be text"),
        ({"signature": 1}, "signature=1 must be text"),
        ({"stop_sequence": ["x"]}, "stop_sequence=.* must be text"),
    ],
)
def test_each_bad_option_is_refused(options: dict[str, Any], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        AnthropicMessages(**options)


def test_reasoning_is_another_name_for_thinking() -> None:
    reply = AnthropicMessages("x", reasoning="Hm")
    assert (reply.thinking, reply.reasoning) == ("Hm", None)
    same = AnthropicMessages("x", thinking="Hm", reasoning="Hm")
    assert same.thinking == "Hm"


def test_the_stop_reason_follows_the_content_unless_given() -> None:
    assert AnthropicMessages("x").stop == "end_turn"
    assert AnthropicMessages(tool_calls=CALLS).stop == "tool_use"
    for reason in STOP_REASONS:
        assert buffered(AnthropicMessages("x", stop_reason=reason))["stop_reason"] == reason


# -- the stream, event by event ------------------------------------------------------------


def test_a_text_stream_event_by_event() -> None:
    data = events(AnthropicMessages("Sunny and warm"))
    assert [e["type"] for e in data] == [
        "message_start",
        "content_block_start",
        "ping",
        "content_block_delta",
        "content_block_delta",
        "content_block_delta",
        "content_block_stop",
        "message_delta",
        "message_stop",
    ]
    start = data[0]["message"]
    assert start["content"] == []
    assert (start["stop_reason"], start["stop_sequence"]) == (None, None)
    assert start["usage"]["input_tokens"] == 5
    assert start["usage"]["output_tokens"] == 1  # the placeholder Anthropic sends
    assert data[1] == {
        "type": "content_block_start",
        "index": 0,
        "content_block": {"type": "text", "text": ""},
    }
    assert [e["delta"] for e in data[3:6]] == [
        {"type": "text_delta", "text": "Sunny"},
        {"type": "text_delta", "text": " and"},
        {"type": "text_delta", "text": " warm"},
    ]
    assert data[6] == {"type": "content_block_stop", "index": 0}
    delta = data[7]
    assert delta["delta"] == {"stop_reason": "end_turn", "stop_sequence": None}
    assert delta["usage"]["input_tokens"] == 5  # repeated there, as current streams do
    assert delta["usage"]["output_tokens"] == 3
    assert data[8] == {"type": "message_stop"}


def test_the_event_line_names_each_events_type_and_there_is_no_done() -> None:
    answer = AnthropicMessages("Hi", thinking="Hm", tool_calls=CALLS).build(
        request(STREAM, "/v1/messages")
    )
    assert answer.stream is not None
    for event in answer.stream.events:
        assert event.event is not None
        assert f'"type":"{event.event}"' in (event.data_text or "")
    assert b"[DONE]" not in stream_bytes(answer)


def test_blocks_come_thinking_text_tools_with_their_indices() -> None:
    data = events(AnthropicMessages("Yes", thinking="Let me see", tool_calls=CALLS))
    starts = [
        (e["index"], e["content_block"]["type"]) for e in data if e["type"] == "content_block_start"
    ]
    assert starts == [(0, "thinking"), (1, "text"), (2, "tool_use"), (3, "tool_use")]
    stops = [e["index"] for e in data if e["type"] == "content_block_stop"]
    assert stops == [0, 1, 2, 3]
    assert [e["type"] for e in data].count("ping") == 1
    assert data[2]["type"] == "ping"  # right after the first block starts
    for e in data:  # every delta sits inside its open block
        if e["type"] == "content_block_delta":
            opened = max(
                i
                for i, s in enumerate(data)
                if s["type"] == "content_block_start" and s["index"] == e["index"]
            )
            closed = next(
                i
                for i, s in enumerate(data)
                if s["type"] == "content_block_stop" and s["index"] == e["index"]
            )
            assert opened < data.index(e) < closed


def test_thinking_streams_its_pieces_then_one_signature() -> None:
    reply = AnthropicMessages("x", thinking="Let me see")
    deltas = [
        e["delta"] for e in events(reply) if e["type"] == "content_block_delta" and e["index"] == 0
    ]
    assert deltas[:-1] == [
        {"type": "thinking_delta", "thinking": "Let"},
        {"type": "thinking_delta", "thinking": " me"},
        {"type": "thinking_delta", "thinking": " see"},
    ]
    assert deltas[-1] == {"type": "signature_delta", "signature": reply.signature_for()}
    assert events(reply)[1]["content_block"] == {
        "type": "thinking",
        "thinking": "",
        "signature": "",
    }


def test_the_signature_is_given_or_derived_the_same_on_every_call() -> None:
    made = AnthropicMessages("x", thinking="Hm").signature_for()
    assert made.startswith("Sig")
    assert len(made) == 3 + 64
    assert AnthropicMessages("x", thinking="Hm").signature_for() == made
    assert AnthropicMessages("y", thinking="Hm").signature_for() != made
    assert AnthropicMessages("x", thinking="Hm", signature="s1").signature_for() == "s1"


def test_a_tool_use_streams_its_input_as_json_fragments() -> None:
    data = events(AnthropicMessages(tool_calls=CALLS))
    starts = [e["content_block"] for e in data if e["type"] == "content_block_start"]
    assert [(s["type"], s["name"], s["input"]) for s in starts] == [
        ("tool_use", "get_weather", {}),
        ("tool_use", "get_time", {}),
    ]
    assert starts[0]["id"].startswith("toolu_")
    assert starts[1]["id"] == "toolu_given"
    for index, expected in ((0, '{"city": "Paris"}'), (1, '{"zone": "CET"}')):
        fragments = [
            e["delta"]["partial_json"]
            for e in data
            if e["type"] == "content_block_delta" and e["index"] == index
        ]
        assert len(fragments) > 1
        assert "".join(fragments) == expected
    assert data[-2]["delta"]["stop_reason"] == "tool_use"


def test_a_text_block_is_sent_even_empty_unless_there_are_tool_calls() -> None:
    assert buffered(AnthropicMessages())["content"] == [{"type": "text", "text": ""}]
    assert [b["type"] for b in buffered(AnthropicMessages(tool_calls=CALLS))["content"]] == [
        "tool_use"
    ] * 2


def test_usage_given_wins_and_message_start_keeps_its_placeholder() -> None:
    reply = AnthropicMessages(
        "x", usage={"input_tokens": 100, "output_tokens": 50, "cache_read_input_tokens": 7}
    )
    data = events(reply)
    start = data[0]["message"]["usage"]
    assert (start["input_tokens"], start["output_tokens"], start["cache_read_input_tokens"]) == (
        100,
        1,
        7,
    )
    final = data[-2]["usage"]
    assert (final["input_tokens"], final["output_tokens"]) == (100, 50)
    assert buffered(reply)["usage"]["output_tokens"] == 50


def test_thinking_is_counted_in_the_output() -> None:
    usage = buffered(AnthropicMessages("One two", thinking="a b c"))["usage"]
    assert usage["output_tokens"] == 5


def test_the_stop_sequence_is_sent_when_the_message_stops() -> None:
    reply = AnthropicMessages("x", stop_reason="stop_sequence", stop_sequence="END")
    data = events(reply)
    assert data[0]["message"]["stop_sequence"] is None
    assert data[-2]["delta"] == {"stop_reason": "stop_sequence", "stop_sequence": "END"}
    assert buffered(reply)["stop_sequence"] == "END"


# -- the buffered message ------------------------------------------------------------------


def test_the_buffered_message() -> None:
    reply = AnthropicMessages("Sunny", thinking="Hm", tool_calls=CALLS[:1])
    message = buffered(reply)
    assert message["id"].startswith("msg_")
    assert (message["type"], message["role"], message["model"]) == (
        "message",
        "assistant",
        "claude-test",
    )
    assert message["content"][0] == {
        "type": "thinking",
        "thinking": "Hm",
        "signature": reply.signature_for(),
    }
    assert message["content"][1] == {"type": "text", "text": "Sunny"}
    assert message["content"][2]["input"] == {"city": "Paris"}
    assert message["stop_reason"] == "tool_use"
    assert sdk_extras(Message.model_validate(message)) == []


def test_ids_and_the_request_id_header() -> None:
    reply = AnthropicMessages("x", id="msg_mine")
    assert buffered(reply)["id"] == "msg_mine"
    assert events(reply)[0]["message"]["id"] == "msg_mine"
    answer = AnthropicMessages("x").build(request(BODY, "/v1/messages"))
    assert dict(answer.headers)["request-id"].startswith("req_")


# -- errors --------------------------------------------------------------------------------


def test_an_error_answer_in_anthropics_shape() -> None:
    answer = AnthropicMessages(error="overloaded").build(request(STREAM, "/v1/messages"))
    assert answer.status_code == 529
    body = body_of(answer)
    assert body["type"] == "error"
    assert body["error"] == {"type": "overloaded_error", "message": "Overloaded"}
    assert body["request_id"] == dict(answer.headers)["request-id"]


def test_a_mid_stream_error_is_an_error_event_and_the_stream_ends() -> None:
    data = events(AnthropicMessages("one two three", error="overloaded", error_after=2))
    assert [e["type"] for e in data] == [
        "message_start",
        "content_block_start",
        "ping",
        "content_block_delta",
        "content_block_delta",
        "error",
    ]
    assert data[-1]["error"] == {
        "details": None,
        "type": "overloaded_error",
        "message": "Overloaded",
    }


# -- the official SDK's types --------------------------------------------------------------


@pytest.mark.parametrize(
    "options",
    [
        {"text": "Sunny"},
        {"text": "", "tool_calls": CALLS},
        {"text": "x", "thinking": "Hm", "stop_reason": "max_tokens"},
        {"text": "x", "stop_reason": "stop_sequence", "stop_sequence": "END"},
    ],
)
def test_every_event_is_a_raw_message_stream_event_to_the_sdk(options: dict[str, Any]) -> None:
    for payload in events(AnthropicMessages(**options)):
        if payload["type"] == "ping":
            continue  # (the SDK skips pings before its types)
        assert sdk_extras(EVENT.validate_python(payload)) == [], payload


@given(st.text(st.characters(codec="utf-8"), max_size=30), st.none() | st.integers(1, 5))
def test_the_text_deltas_join_to_the_text_and_the_output_is_counted(
    text: str, size: int | None
) -> None:
    data = events(AnthropicMessages(text, chunk_size=size))
    joined = "".join(e["delta"]["text"] for e in data if e["type"] == "content_block_delta")
    assert joined == text
    assert data[-2]["usage"]["output_tokens"] == count_tokens(text)
    assert data[-1] == {"type": "message_stop"}


# -- on a loopback socket ------------------------------------------------------------------


def test_the_server_sends_exactly_the_rendered_bytes(server: mockhttp.Server) -> None:
    options: dict[str, Any] = {"text": "Sunny, 21 °C.", "thinking": "Hm", "tool_calls": CALLS[:1]}
    server.mock(mockhttp.post("/v1/messages").reply(llm.anthropic_messages(**options)))
    head, body = raw_exchange(server.url, "/v1/messages", STREAM)
    assert body == stream_bytes(AnthropicMessages(**options).build(request(STREAM, "/v1/messages")))
    assert head.startswith(b"HTTP/1.1 200 ")


def test_the_anthropic_sdk_reads_the_stream_as_the_message(
    server: mockhttp.Server, anthropic_client: anthropic.Anthropic
) -> None:
    server.mock(
        mockhttp.post("/v1/messages").reply(
            llm.anthropic_messages("Hi there", thinking="Hm", tool_calls=CALLS)
        )
    )
    client = anthropic_client
    with client.messages.stream(model="claude-test", max_tokens=64, messages=USER) as stream:
        text = "".join(stream.text_stream)
        final = stream.get_final_message()
    assert text == "Hi there"
    answer = client.messages.create(model="claude-test", max_tokens=64, messages=USER)
    assert [b.type for b in final.content] == [b.type for b in answer.content]
    assert [b.type for b in final.content] == ["thinking", "text", "tool_use", "tool_use"]
    tools = [(b.name, b.input) for b in final.content if b.type == "tool_use"]
    assert tools == [("get_weather", {"city": "Paris"}), ("get_time", {"zone": "CET"})]
    assert final.stop_reason == answer.stop_reason == "tool_use"
    assert final.usage.output_tokens == answer.usage.output_tokens


def test_the_anthropic_sdk_raises_the_mid_stream_error(
    server: mockhttp.Server, anthropic_client: anthropic.Anthropic
) -> None:
    reply = llm.anthropic_messages("one two", error="overloaded", error_after=1)
    server.mock(mockhttp.post("/v1/messages").reply(reply))
    client = anthropic_client
    seen: list[str] = []

    def read() -> None:
        with client.messages.stream(model="m", max_tokens=8, messages=USER) as stream:
            seen.extend(stream.text_stream)

    with pytest.raises(anthropic.APIStatusError, match="Overloaded"):
        read()
    assert seen == ["one"]
