"""llm/_openai_chat.py: the Chat Completions reference stream and answer, chunk by chunk.

Pure tests first: the stream of the module's docstring, step by step (kinds and payloads),
the buffered answer, the usage, the errors, each option's check; every payload is then
validated by the official openai SDK's own types (``ChatCompletionChunk``,
``ChatCompletion``) with no key the SDK does not name.  Then on a loopback socket: the
server sends exactly the bytes ``build`` renders, and the openai SDK reads them back.
"""

from __future__ import annotations

import json
from typing import Any

import openai
import pytest
from hypothesis import given
from hypothesis import strategies as st
from openai.types.chat import ChatCompletion, ChatCompletionChunk, ChatCompletionMessageParam
from pydantic import ValidationError

import mockhttp
from mockhttp import ConfigError, llm
from mockhttp.llm._openai_chat import CREATED, FINISH_REASONS, OpenAIChat, openai_usage
from mockhttp.llm._text import count_tokens
from tests.helpers.llm_build import (
    body_of,
    payloads,
    raw_exchange,
    request,
    sdk_extras,
    stream_bytes,
)

USER: list[ChatCompletionMessageParam] = [
    {"role": "user", "content": "What is the weather?"}
]  # 5 tokens
STREAM = {"model": "gpt-test", "messages": USER, "stream": True}
USAGE = {**STREAM, "stream_options": {"include_usage": True}}
CALLS: list[dict[str, Any]] = [
    {"name": "get_weather", "arguments": {"city": "Paris"}},
    {"name": "get_time", "arguments": '{"zone": "CET"}', "id": "call_given"},
]


def chunks_of(reply: OpenAIChat, body: dict[str, Any] = USAGE) -> list[Any]:
    return payloads(reply.build(request(body)))


def kinds(reply: OpenAIChat, body: dict[str, Any] = USAGE) -> list[str]:
    return [c.kind for c in reply.draft(_context(reply, body)).chunks]


def _context(reply: OpenAIChat, body: dict[str, Any]) -> Any:
    from tests.helpers.llm_build import context

    return context(body, model=reply.model_for(request(body), body))


def deltas(data: list[Any]) -> list[dict[str, Any]]:
    return [c["choices"][0]["delta"] for c in data if isinstance(c, dict) and c["choices"]]


def sdk_chunk(payload: dict[str, Any]) -> ChatCompletionChunk:
    chunk = ChatCompletionChunk.model_validate(payload)
    assert sdk_extras(chunk) == [], payload
    return chunk


# -- usage ---------------------------------------------------------------------------------


def test_openai_usage_counts_and_names_reasoning() -> None:
    usage = openai_usage(5, 7, None, reasoning=3)
    assert usage["prompt_tokens"] == 5
    assert usage["completion_tokens"] == 7
    assert usage["total_tokens"] == 12
    assert usage["completion_tokens_details"]["reasoning_tokens"] == 3
    assert usage["prompt_tokens_details"] == {"cached_tokens": 0, "audio_tokens": 0}


def test_openai_usage_given_keys_win_and_the_total_follows_unless_given() -> None:
    assert openai_usage(5, 7, {"prompt_tokens": 100})["total_tokens"] == 107
    given = openai_usage(5, 7, {"prompt_tokens": 1, "total_tokens": 99})
    assert (given["prompt_tokens"], given["total_tokens"]) == (1, 99)
    assert openai_usage(5, 7, {})["total_tokens"] == 12


# -- the option checks ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"reasoning_field": "thoughts"}, "reasoning_field='thoughts' must be one of"),
        ({"finish_reason": "done"}, "finish_reason='done' must be one of stop, length"),
        ({"refusal": 3}, "refusal=3 must be text"),
        ({"error_style": "anthropic"}, "error_style='anthropic' must be openai or openrouter"),
        ({"created": True}, "created=True must be an int"),
        ({"created": "2026"}, "created='2026' must be an int"),
    ],
)
def test_each_bad_option_is_refused(options: dict[str, Any], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        OpenAIChat(**options)


def test_every_finish_reason_is_accepted_and_sent() -> None:
    for reason in FINISH_REASONS:
        answer = body_of(OpenAIChat("x", finish_reason=reason).build(request({})))
        assert answer["choices"][0]["finish_reason"] == reason


def test_the_finish_reason_follows_the_content() -> None:
    assert OpenAIChat("x").finish == "stop"
    assert OpenAIChat(tool_calls=CALLS).finish == "tool_calls"
    assert OpenAIChat(tool_calls=CALLS, finish_reason="length").finish == "length"


def test_the_reasoning_field_given_else_the_presets_else_reasoning_content() -> None:
    assert OpenAIChat().reasoning_key == "reasoning_content"
    assert OpenAIChat(as_="openrouter").reasoning_key == "reasoning"
    assert OpenAIChat(as_="deepseek").reasoning_key == "reasoning_content"
    assert OpenAIChat(as_="groq", reasoning_field="reasoning_content").reasoning_key == (
        "reasoning_content"
    )


# -- the reference stream, step by step ----------------------------------------------------


def test_the_text_stream_chunk_by_chunk() -> None:
    reply = OpenAIChat("Sunny and warm")
    assert kinds(reply) == ["start", "text", "text", "text", "finish", "usage", "done"]
    data = chunks_of(reply)
    assert data[-1] == "[DONE]"
    assert deltas(data) == [
        {"role": "assistant", "content": "", "refusal": None},
        {"content": "Sunny"},
        {"content": " and"},
        {"content": " warm"},
        {},
    ]
    finish = data[4]["choices"][0]
    assert finish == {"index": 0, "delta": {}, "logprobs": None, "finish_reason": "stop"}
    usage = data[5]
    assert usage["choices"] == []
    assert usage["usage"]["prompt_tokens"] == 5
    assert usage["usage"]["completion_tokens"] == 3
    assert [c["usage"] for c in data[:5]] == [None] * 5  # null, not absent, when usage comes


def test_every_chunk_shares_the_head_fields() -> None:
    data = chunks_of(OpenAIChat("a b", tool_calls=CALLS[:1]))[:-1]
    heads = {
        (c["id"], c["object"], c["created"], c["model"], c["system_fingerprint"]) for c in data
    }
    assert len(heads) == 1
    cid, obj, created, model, fingerprint = heads.pop()
    assert cid.startswith("chatcmpl-")
    assert len(cid) == len("chatcmpl-") + 29
    assert (obj, created, model, fingerprint) == (
        "chat.completion.chunk",
        CREATED,
        "gpt-test",
        "fp_mock",
    )


def test_without_include_usage_no_chunk_has_a_usage_key() -> None:
    data = chunks_of(OpenAIChat("Hi"), STREAM)
    assert all("usage" not in c for c in data[:-1])
    assert kinds(OpenAIChat("Hi"), STREAM) == ["start", "text", "finish", "done"]
    for odd in ({"include_usage": "true"}, {"include_usage": 1}, "yes"):
        assert "usage" not in chunks_of(OpenAIChat("Hi"), {**STREAM, "stream_options": odd})[0]


def test_the_role_chunk_by_content() -> None:
    assert deltas(chunks_of(OpenAIChat(tool_calls=CALLS)))[0] == {
        "role": "assistant",
        "content": None,
        "refusal": None,
    }
    assert deltas(chunks_of(OpenAIChat("x", tool_calls=CALLS)))[0]["content"] == ""
    assert deltas(chunks_of(OpenAIChat(refusal="No.")))[0] == {
        "role": "assistant",
        "content": None,
        "refusal": "",
    }


def test_reasoning_streams_first_in_its_field_and_is_counted() -> None:
    reply = OpenAIChat("Yes", reasoning="Let me see")
    assert kinds(reply) == [
        "start",
        "thinking",
        "thinking",
        "thinking",
        "text",
        "finish",
        "usage",
        "done",
    ]
    data = chunks_of(reply)
    assert deltas(data)[1:4] == [
        {"reasoning_content": "Let"},
        {"reasoning_content": " me"},
        {"reasoning_content": " see"},
    ]
    usage = data[-2]["usage"]
    assert usage["completion_tokens"] == 1 + 3
    assert usage["completion_tokens_details"]["reasoning_tokens"] == 3
    openrouter = deltas(chunks_of(OpenAIChat("Yes", reasoning="Hm", reasoning_field="reasoning")))
    assert openrouter[1] == {"reasoning": "Hm"}


def test_tool_calls_stream_their_start_then_argument_fragments() -> None:
    reply = OpenAIChat(tool_calls=CALLS)
    data = chunks_of(reply)
    calls = [d["tool_calls"][0] for d in deltas(data) if "tool_calls" in d]
    starts = [c for c in calls if "id" in c]
    assert [(s["index"], s["type"], s["function"]) for s in starts] == [
        (0, "function", {"name": "get_weather", "arguments": ""}),
        (1, "function", {"name": "get_time", "arguments": ""}),
    ]
    assert starts[0]["id"].startswith("call_")
    assert starts[1]["id"] == "call_given"
    for index, expected in ((0, '{"city": "Paris"}'), (1, '{"zone": "CET"}')):
        fragments = [
            c["function"]["arguments"] for c in calls if c["index"] == index and "id" not in c
        ]
        assert len(fragments) > 1  # cut as a model streams them
        assert "".join(fragments) == expected
        assert all(set(c) == {"index", "function"} for c in calls if "id" not in c)
    assert data[-3]["choices"][0]["finish_reason"] == "tool_calls"


def test_a_refusal_streams_in_the_refusal_field() -> None:
    reply = OpenAIChat(refusal="I cannot help.", chunk_size=6)
    assert kinds(reply, STREAM) == ["start", "refusal", "refusal", "refusal", "finish", "done"]
    pieces = [d["refusal"] for d in deltas(chunks_of(reply, STREAM))[1:4]]
    assert pieces == ["I cann", "ot hel", "p."]


def test_logprobs_when_asked_ride_on_each_content_chunk() -> None:
    body = {**STREAM, "logprobs": True, "top_logprobs": 2}
    data = chunks_of(OpenAIChat("Hello world"), body)
    text_chunks = [c for c in data[:-1] if c["choices"][0]["delta"].get("content")]
    tokens = [e["token"] for c in text_chunks for e in c["choices"][0]["logprobs"]["content"]]
    assert "".join(tokens) == "Hello world"
    for c in text_chunks:
        logprobs = c["choices"][0]["logprobs"]
        assert logprobs["refusal"] is None
        assert all(len(e["top_logprobs"]) == 2 for e in logprobs["content"])
        sdk_chunk(c)
    assert data[0]["choices"][0]["logprobs"] is None  # the role chunk carries none
    refused = chunks_of(OpenAIChat(refusal="No way"), body)
    logprobs = [
        c["choices"][0]["logprobs"] for c in refused[:-1] if c["choices"][0]["delta"].get("refusal")
    ]
    assert all(lp["content"] is None and lp["refusal"] for lp in logprobs)


# -- the buffered answer -------------------------------------------------------------------


def test_the_buffered_answer_is_one_chat_completion() -> None:
    answer = OpenAIChat("Sunny", reasoning="Hm", tool_calls=CALLS[:1]).build(
        request({"model": "gpt-x", "messages": USER})
    )
    body = body_of(answer)
    assert body["object"] == "chat.completion"
    assert body["model"] == "gpt-x"
    assert body["created"] == CREATED
    message = body["choices"][0]["message"]
    assert message["role"] == "assistant"
    assert message["content"] == "Sunny"
    assert message["refusal"] is None
    assert message["annotations"] == []
    assert message["reasoning_content"] == "Hm"
    assert message["tool_calls"][0]["function"] == {
        "name": "get_weather",
        "arguments": '{"city": "Paris"}',
    }
    assert body["choices"][0]["logprobs"] is None
    assert body["choices"][0]["finish_reason"] == "tool_calls"
    assert body["usage"]["completion_tokens"] == 1 + 1 + 1 + 9  # text, reasoning, name, arguments
    completion = ChatCompletion.model_validate(body)
    assert sdk_extras(completion) == [".choices[0].message.reasoning_content"]  # (a vendor field)


def test_buffered_content_is_null_for_calls_or_a_refusal_alone() -> None:
    assert (
        body_of(OpenAIChat(tool_calls=CALLS).build(request({})))["choices"][0]["message"]["content"]
        is None
    )
    refused = body_of(OpenAIChat(refusal="No").build(request({})))["choices"][0]["message"]
    assert (refused["content"], refused["refusal"]) == (None, "No")
    assert body_of(OpenAIChat().build(request({})))["choices"][0]["message"]["content"] == ""


def test_buffered_logprobs_when_asked() -> None:
    body = body_of(OpenAIChat("a b").build(request({"logprobs": True})))
    logprobs = body["choices"][0]["logprobs"]
    assert [e["token"] for e in logprobs["content"]] == ["a", " b"]
    assert logprobs["refusal"] is None
    assert all(e["top_logprobs"] == [] for e in logprobs["content"])


def test_no_system_fingerprint_key_when_none() -> None:
    reply = OpenAIChat("x", system_fingerprint=None)
    assert "system_fingerprint" not in body_of(reply.build(request({})))
    assert all("system_fingerprint" not in c for c in chunks_of(reply)[:-1])


def test_the_id_given_is_the_completion_id_everywhere() -> None:
    reply = OpenAIChat("x", id="chatcmpl-mine")
    assert {c["id"] for c in chunks_of(reply)[:-1]} == {"chatcmpl-mine"}
    assert body_of(reply.build(request({})))["id"] == "chatcmpl-mine"


def test_an_x_request_id_header_unique_per_call() -> None:
    reply = OpenAIChat("x")
    ids = [dict(reply.build(request({})).headers)["x-request-id"] for _ in range(3)]
    assert len(set(ids)) == 3
    assert all(i.startswith("req_") and len(i) == 4 + 32 for i in ids)


# -- errors --------------------------------------------------------------------------------


def test_an_error_answer_has_the_openai_error_body_and_headers() -> None:
    answer = OpenAIChat(error="rate_limit", retry_after=3).build(request(STREAM))
    assert answer.status_code == 429
    error = body_of(answer)["error"]
    assert set(error) == {"message", "type", "param", "code"}
    assert error["code"] == "rate_limit_exceeded"
    headers = {k.lower(): v for k, v in answer.headers}
    assert headers["retry-after"] == "3"
    assert headers["x-request-id"].startswith("req_")
    assert headers["content-type"] == "application/json"


def test_a_mid_stream_error_in_openai_style_is_bare_with_no_done() -> None:
    data = chunks_of(OpenAIChat("one two three", error="server_error", error_after=2), STREAM)
    assert [d.get("content") for d in deltas(data[:-1])] == ["", "one", " two"]
    assert set(data[-1]) == {"error"}
    assert data[-1]["error"]["type"] == "server_error"
    assert "[DONE]" not in data


def test_a_mid_stream_error_in_openrouter_style_is_a_chunk_then_done() -> None:
    reply = OpenAIChat("one two", error="overloaded", error_after=1, error_style="openrouter")
    data = chunks_of(reply, STREAM)
    assert data[-1] == "[DONE]"
    failed = data[-2]
    assert failed["choices"][0]["finish_reason"] == "error"
    assert failed["choices"][0]["delta"] == {"content": ""}
    assert set(failed["error"]) == {"code", "message"}
    assert failed["id"] == data[0]["id"]
    with pytest.raises(ValidationError, match="finish_reason"):  # OpenRouter's, not OpenAI's
        ChatCompletionChunk.model_validate(failed)


def test_error_options_reach_the_error_body() -> None:
    reply = OpenAIChat(error="server_error", error_message="boom", error_code="E1", error_type="t")
    assert body_of(reply.build(request({})))["error"] == {
        "message": "boom",
        "type": "t",
        "param": None,
        "code": "E1",
    }


# -- the official SDK's types --------------------------------------------------------------


@pytest.mark.parametrize(
    "options",
    [
        {"text": "Sunny and warm"},
        {"text": "", "tool_calls": CALLS},
        {"refusal": "No."},
        {"text": "ok", "finish_reason": "length", "system_fingerprint": None},
        {"text": "x", "error": "overloaded", "error_after": 1},
    ],
)
def test_every_chunk_is_a_chat_completion_chunk_to_the_sdk(options: dict[str, Any]) -> None:
    for payload in chunks_of(OpenAIChat(**options)):
        if payload != "[DONE]" and set(payload) != {"error"}:  # (the SDK raises on an error)
            sdk_chunk(payload)


def test_every_buffered_answer_is_a_chat_completion_to_the_sdk() -> None:
    for options in ({"text": "Hi"}, {"tool_calls": CALLS}, {"refusal": "No"}):
        body = body_of(OpenAIChat(**options).build(request({"logprobs": True})))
        assert sdk_extras(ChatCompletion.model_validate(body)) == []


@given(
    text=st.text(st.characters(codec="utf-8"), max_size=30),
    size=st.none() | st.integers(1, 7),
    usage=st.booleans(),
)
def test_the_content_deltas_join_to_the_text_and_the_usage_counts_it(
    text: str, size: int | None, usage: bool
) -> None:
    data = chunks_of(OpenAIChat(text, chunk_size=size), USAGE if usage else STREAM)
    assert data[-1] == "[DONE]"
    assert "".join(d.get("content") or "" for d in deltas(data)) == text
    if usage:
        assert data[-2]["usage"]["completion_tokens"] == count_tokens(text)
    assert data[-2 if not usage else -3]["choices"][0]["finish_reason"] == "stop"


# -- on a loopback socket ------------------------------------------------------------------


def test_the_server_sends_exactly_the_rendered_bytes(server: mockhttp.Server) -> None:
    options: dict[str, Any] = {"text": "Sunny, 21 °C.", "tool_calls": CALLS[:1], "reasoning": "Hm"}
    server.mock(mockhttp.post("/v1/chat/completions").reply(llm.openai_chat(**options)))
    head, body = raw_exchange(server.url, "/v1/chat/completions", USAGE)
    expected = stream_bytes(OpenAIChat(**options).build(request(USAGE)))  # call 1 of a twin
    assert body == expected
    assert head.startswith(b"HTTP/1.1 200 ")
    assert b"\r\ncontent-type: text/event-stream; charset=utf-8\r\n" in head.lower()


def test_the_openai_sdk_reads_the_stream_and_the_answer(
    server: mockhttp.Server, openai_client: openai.OpenAI
) -> None:
    server.mock(
        mockhttp.post("/v1/chat/completions").reply(llm.openai_chat("Hi there", tool_calls=CALLS))
    )
    client = openai_client
    text, finish, usage = "", None, None
    calls: dict[int, list[str]] = {}
    for chunk in client.chat.completions.create(
        model="gpt-4o",
        messages=USER,
        stream=True,
        stream_options={"include_usage": True},
    ):
        usage = chunk.usage or usage
        for choice in chunk.choices:
            text += choice.delta.content or ""
            finish = choice.finish_reason or finish
            for call in choice.delta.tool_calls or []:
                entry = calls.setdefault(call.index, ["", ""])
                entry[0] += (call.function and call.function.name) or ""
                entry[1] += (call.function and call.function.arguments) or ""
    assert text == "Hi there"
    assert finish == "tool_calls"
    assert {i: (n, json.loads(a)) for i, (n, a) in calls.items()} == {
        0: ("get_weather", {"city": "Paris"}),
        1: ("get_time", {"zone": "CET"}),
    }
    assert usage is not None
    assert usage.prompt_tokens == 5
    answer = client.chat.completions.create(model="gpt-4o", messages=USER)
    assert answer.choices[0].message.content == "Hi there"
    assert [c.id for c in answer.choices[0].message.tool_calls or []][1] == "call_given"


@pytest.mark.parametrize("style", ["openai", "openrouter"])
def test_the_openai_sdk_raises_on_a_mid_stream_error(
    server: mockhttp.Server, openai_client: openai.OpenAI, style: Any
) -> None:
    reply = llm.openai_chat("one two", error="server_error", error_after=1, error_style=style)
    server.mock(mockhttp.post("/v1/chat/completions").reply(reply))
    client = openai_client
    seen: list[str | None] = []

    def read() -> None:
        for chunk in client.chat.completions.create(model="m", messages=USER, stream=True):
            seen.extend(c.delta.content for c in chunk.choices)

    with pytest.raises(openai.APIError):
        read()
    assert seen == ["", "one"]
