"""LLM replies read by the official openai and anthropic SDKs, on the wire.

Each reply answers a streamed and a buffered request; the SDK's view of both must agree
(text, tool calls, usage, finish / stop reason), and match what the reply was given.
"""

from __future__ import annotations

import json
from typing import Any

import anthropic
import httpx
import openai
import pytest
from anthropic.types import MessageParam
from openai.types.chat import ChatCompletionMessageParam

import mockhttp
from mockhttp import llm

MESSAGES: list[ChatCompletionMessageParam] = [{"role": "user", "content": "What is the weather?"}]
ANTHROPIC_MESSAGES: list[MessageParam] = [{"role": "user", "content": "What is the weather?"}]
CALLS = [
    {"name": "get_weather", "arguments": {"city": "Paris", "unit": "celsius"}},
    {"name": "get_time", "arguments": {"zone": "Europe/Paris"}},
]


# -- OpenAI Chat Completions -----------------------------------------------------------------


def chat_stream(client: openai.OpenAI, **kwargs: Any) -> dict[str, Any]:
    """What a streaming client puts together: text, tool calls, finish reason, usage, ids."""
    text, finish, usage, ids, models = [], None, None, set(), set()
    calls: dict[int, dict[str, str]] = {}
    stream = client.chat.completions.create(
        model="gpt-4o", messages=MESSAGES, stream=True, **kwargs
    )
    for chunk in stream:
        ids.add(chunk.id)
        models.add(chunk.model)
        if chunk.usage is not None:
            usage = chunk.usage.model_dump(include={"prompt_tokens", "completion_tokens"})
        for choice in chunk.choices:
            text.append(choice.delta.content or "")
            finish = choice.finish_reason or finish
            for call in choice.delta.tool_calls or []:
                entry = calls.setdefault(call.index, {"id": "", "name": "", "arguments": ""})
                entry["id"] += call.id or ""
                if call.function is not None:
                    entry["name"] += call.function.name or ""
                    entry["arguments"] += call.function.arguments or ""
    return {
        "text": "".join(text),
        "finish": finish,
        "usage": usage,
        "ids": ids,
        "models": models,
        "calls": [calls[i] for i in sorted(calls)],
    }


def chat_buffered(client: openai.OpenAI) -> dict[str, Any]:
    answer = client.chat.completions.create(model="gpt-4o", messages=MESSAGES)
    choice = answer.choices[0]
    calls = [
        {"id": c.id, "name": c.function.name, "arguments": c.function.arguments}
        for c in choice.message.tool_calls or []
        if c.type == "function"
    ]
    assert answer.usage is not None
    return {
        "text": choice.message.content or "",
        "finish": choice.finish_reason,
        "usage": answer.usage.model_dump(include={"prompt_tokens", "completion_tokens"}),
        "ids": {answer.id},
        "models": {answer.model},
        "calls": calls,
    }


def test_openai_chat_text_streamed_equals_buffered(
    server: mockhttp.Server, openai_client: openai.OpenAI
) -> None:
    """Text, stop, usage and the echoed model agree between the stream and the answer."""
    server.mock(mockhttp.post("/v1/chat/completions").reply(llm.openai_chat("Sunny, 21 °C.")))
    client = openai_client
    streamed = chat_stream(client, stream_options={"include_usage": True})
    buffered = chat_buffered(client)
    assert streamed["text"] == buffered["text"] == "Sunny, 21 °C."
    assert streamed["finish"] == buffered["finish"] == "stop"
    # tokens are words and punctuation marks: "Sunny , 21 ° C ." is 6
    assert streamed["usage"] == buffered["usage"] == {"prompt_tokens": 5, "completion_tokens": 6}
    assert streamed["models"] == buffered["models"] == {"gpt-4o"}
    assert len(streamed["ids"]) == 1  # one id on every chunk
    assert streamed["ids"] != buffered["ids"]  # a new id per call


def test_openai_chat_usage_only_when_asked(
    server: mockhttp.Server, openai_client: openai.OpenAI
) -> None:
    """Without stream_options.include_usage no chunk carries usage."""
    server.mock(mockhttp.post("/v1/chat/completions").reply(llm.openai_chat("Hi")))
    assert chat_stream(openai_client)["usage"] is None


def test_openai_chat_parallel_tool_calls(
    server: mockhttp.Server, openai_client: openai.OpenAI
) -> None:
    """Two tool calls: ids, names and arguments agree, finish reason tool_calls."""
    server.mock(mockhttp.post("/v1/chat/completions").reply(llm.openai_chat(tool_calls=CALLS)))
    client = openai_client
    streamed = chat_stream(client)
    buffered = chat_buffered(client)
    assert streamed["finish"] == buffered["finish"] == "tool_calls"
    for calls in (streamed["calls"], buffered["calls"]):
        assert [c["name"] for c in calls] == ["get_weather", "get_time"]
        assert [json.loads(c["arguments"]) for c in calls] == [c["arguments"] for c in CALLS]
        assert all(c["id"].startswith("call_") for c in calls)
    assert streamed["text"] == buffered["text"] == ""


def test_openai_chat_length_and_refusal(
    server: mockhttp.Server, openai_client: openai.OpenAI
) -> None:
    """finish_reason is the one given; a refusal reaches message.refusal both ways."""
    server.mock(
        mockhttp.post("/v1/chat/completions").reply(
            llm.openai_chat(refusal="I can't help with that.", finish_reason="length")
        )
    )
    client = openai_client
    refusal: list[str] = []
    for chunk in client.chat.completions.create(model="m", messages=MESSAGES, stream=True):
        refusal.extend(c.delta.refusal or "" for c in chunk.choices)
        finish = chunk.choices[0].finish_reason if chunk.choices else None
    assert "".join(refusal) == "I can't help with that."
    assert finish == "length"
    answer = client.chat.completions.create(model="m", messages=MESSAGES)
    assert answer.choices[0].message.refusal == "I can't help with that."
    assert answer.choices[0].message.content is None


def test_openai_chat_rate_limit_before_stream(
    server: mockhttp.Server, openai_client: openai.OpenAI
) -> None:
    """error: rate_limit is a 429 with OpenAI's error body and rate-limit headers."""
    server.mock(mockhttp.post("/v1/chat/completions").reply(llm.openai_chat(error="rate_limit")))
    with pytest.raises(openai.RateLimitError) as caught:
        chat_stream(openai_client)
    assert caught.value.code == "rate_limit_exceeded"
    assert caught.value.response.headers["retry-after"] == "1"
    assert caught.value.response.headers["x-ratelimit-remaining-requests"] == "0"


LIMITED = llm.conversation(
    llm.turn(error="rate_limit", retry_after=0.1, times=1),
    llm.turn("Hello after a wait"),
    name="limited",
)


def test_a_429_then_the_answer_within_one_turn_passes_the_sdks_retry(
    server: mockhttp.Server,
) -> None:
    """``turn(error="rate_limit", retry_after=..., times=1)`` then the answer: each SDK gets
    the 429 (with its retry-after), retries on its own, and gets the answer."""
    server.mock(LIMITED)
    with openai.OpenAI(base_url=server.url + "/v1", api_key="sk-test", max_retries=2) as chat:
        answer = chat.chat.completions.create(model="m", messages=MESSAGES)
    assert answer.choices[0].message.content == "Hello after a wait"
    with anthropic.Anthropic(base_url=server.url, api_key="sk-test", max_retries=2) as messages:
        reply = messages.messages.create(
            model="claude", max_tokens=10, messages=[{"role": "user", "content": "Hi"}]
        )
    assert reply.content[0].text == "Hello after a wait"  # type: ignore[union-attr]
    assert [c.status for c in server.journal] == [429, 200, 429, 200]
    assert server.journal[0].request.json() == server.journal[1].request.json()
    server.check()
    server.clear_journal()  # counts start over: the first request is refused again
    with (
        openai.OpenAI(base_url=server.url + "/v1", api_key="sk-test", max_retries=0) as no_retry,
        pytest.raises(openai.RateLimitError) as caught,
    ):
        no_retry.chat.completions.create(model="m", messages=MESSAGES)
    assert caught.value.response.headers["retry-after"] == "0.1"


def test_times_in_method_style_answers_once_then_the_next_mock(server: mockhttp.Server) -> None:
    """``.times(1)`` as a method (it was a field, so calling it raised TypeError): a 429
    once, then the mock beneath answers the SDK's retry."""
    path = "/v1/chat/completions"
    server.mock(mockhttp.post(path).reply(llm.openai_chat("Hello")))
    limited = server.mock(
        mockhttp.post(path).reply(llm.openai_chat(error="rate_limit", retry_after=0.1)).times(1)
    )
    with openai.OpenAI(base_url=server.url + "/v1", api_key="sk-test", max_retries=1) as chat:
        answer = chat.chat.completions.create(model="m", messages=MESSAGES)
    assert answer.choices[0].message.content == "Hello"
    assert [c.status for c in server.journal] == [429, 200]
    assert limited.exhausted
    assert mockhttp.get("/x").times(2).to_yaml() == mockhttp.get("/x", times=2).to_yaml()
    with pytest.raises(mockhttp.ConfigError, match="times=0 must be a positive int"):
        mockhttp.get("/x").times(0)


def test_openai_chat_error_mid_stream(
    server: mockhttp.Server, openai_client: openai.OpenAI
) -> None:
    """error_after: the SDK reads the first pieces, then raises on the error chunk."""
    server.mock(
        mockhttp.post("/v1/chat/completions").reply(
            llm.openai_chat("one two three four", error="server_error", error_after=2)
        )
    )
    seen: list[str] = []

    def read() -> None:
        stream = openai_client.chat.completions.create(model="m", messages=MESSAGES, stream=True)
        for chunk in stream:
            seen.extend(c.delta.content or "" for c in chunk.choices)

    with pytest.raises(openai.APIError, match="The server had an error"):
        read()
    assert "".join(seen) == "one two"


# -- OpenAI Responses ------------------------------------------------------------------------


def test_openai_responses_streamed_equals_buffered(
    server: mockhttp.Server, openai_client: openai.OpenAI
) -> None:
    """The completed response of the stream equals the buffered one (text, calls, usage)."""
    reply = llm.openai_responses("It is sunny.", tool_calls=CALLS[:1])
    server.mock(mockhttp.post("/v1/responses").reply(reply))
    client = openai_client
    deltas, arguments, numbers, completed = [], [], [], None
    for event in client.responses.create(model="gpt-4.1", input="weather?", stream=True):
        numbers.append(event.sequence_number)
        if event.type == "response.output_text.delta":
            deltas.append(event.delta)
        elif event.type == "response.function_call_arguments.delta":
            arguments.append(event.delta)
        elif event.type == "response.completed":
            completed = event.response
    assert numbers == list(range(len(numbers)))
    assert completed is not None
    buffered = client.responses.create(model="gpt-4.1", input="weather?")
    assert "".join(deltas) == completed.output_text == buffered.output_text == "It is sunny."
    for response in (completed, buffered):
        call = response.output[1]
        assert call.type == "function_call"
        assert call.name == "get_weather"
        assert json.loads(call.arguments) == CALLS[0]["arguments"]
        assert response.model == "gpt-4.1"
        assert response.usage is not None
        assert response.usage.output_tokens == 22  # text 4, name 1, arguments 17
    assert json.loads("".join(arguments)) == CALLS[0]["arguments"]


# -- Anthropic Messages ----------------------------------------------------------------------


def test_anthropic_text_streamed_equals_buffered(
    server: mockhttp.Server, anthropic_client: anthropic.Anthropic
) -> None:
    """The stream helper's final message equals the buffered message."""
    server.mock(mockhttp.post("/v1/messages").reply(llm.anthropic_messages("Sunny, 21 °C.")))
    client = anthropic_client
    with client.messages.stream(
        model="claude-x", max_tokens=100, messages=ANTHROPIC_MESSAGES
    ) as stream:
        text = "".join(stream.text_stream)
        final = stream.get_final_message()
    buffered = client.messages.create(model="claude-x", max_tokens=100, messages=ANTHROPIC_MESSAGES)
    assert text == "Sunny, 21 °C."
    assert [b.model_dump(include={"type", "text"}) for b in final.content] == [
        b.model_dump(include={"type", "text"}) for b in buffered.content
    ]
    assert final.stop_reason == buffered.stop_reason == "end_turn"
    assert final.usage == buffered.usage
    assert (final.usage.input_tokens, final.usage.output_tokens) == (5, 6)
    assert final.model == buffered.model == "claude-x"
    assert final.id != buffered.id


def test_anthropic_tool_use_and_thinking(
    server: mockhttp.Server, anthropic_client: anthropic.Anthropic
) -> None:
    """Thinking (with its signature) and two tool_use blocks, streamed as buffered."""
    reply = llm.anthropic_messages(thinking="The user wants weather.", tool_calls=CALLS)
    server.mock(mockhttp.post("/v1/messages").reply(reply))
    client = anthropic_client
    with client.messages.stream(model="c", max_tokens=100, messages=ANTHROPIC_MESSAGES) as stream:
        final = stream.get_final_message()
    buffered = client.messages.create(model="c", max_tokens=100, messages=ANTHROPIC_MESSAGES)
    assert final.stop_reason == buffered.stop_reason == "tool_use"
    assert [b.type for b in final.content] == ["thinking", "tool_use", "tool_use"]
    for message in (final, buffered):
        thinking, *uses = message.content
        assert thinking.type == "thinking"
        assert thinking.thinking == "The user wants weather."
        assert thinking.signature
        assert [(u.name, u.input) for u in uses if u.type == "tool_use"] == [
            (c["name"], c["arguments"]) for c in CALLS
        ]
    assert final.content[0] == buffered.content[0]  # the signature is the same every call


def test_anthropic_overloaded_and_mid_stream_error(
    server: mockhttp.Server, anthropic_client: anthropic.Anthropic
) -> None:
    """overloaded is a 529 overloaded_error; error_after sends event: error mid-stream."""
    server.mock(
        mockhttp.post("/v1/messages")
        .header("x-case", "before")
        .reply(llm.anthropic_messages("Hi", error="overloaded"))
    )
    server.mock(
        mockhttp.post("/v1/messages")
        .header("x-case", "during")
        .reply(llm.anthropic_messages("one two three", error="overloaded", error_after=1))
    )
    client = anthropic_client
    before = client.with_options(default_headers={"x-case": "before"})
    with pytest.raises(anthropic.APIStatusError) as caught:
        before.messages.create(model="c", max_tokens=9, messages=ANTHROPIC_MESSAGES)
    assert caught.value.status_code == 529
    assert caught.value.body["error"]["type"] == "overloaded_error"  # type: ignore[index]
    during = client.with_options(default_headers={"x-case": "during"})
    seen: list[str] = []
    with (
        pytest.raises(anthropic.APIStatusError, match="Overloaded"),
        during.messages.stream(model="c", max_tokens=9, messages=ANTHROPIC_MESSAGES) as stream,
    ):
        seen.extend(stream.text_stream)
    assert seen == ["one"]


# -- models lists ----------------------------------------------------------------------------


def test_models_list_in_each_clients_shape(
    server: mockhttp.Server, openai_client: openai.OpenAI, anthropic_client: anthropic.Anthropic
) -> None:
    """One GET /v1/models mock answers the openai and the anthropic SDK in their shapes."""
    server.mock(mockhttp.get("/v1/models").reply(llm.models(["gpt-4o", "claude-x"])))
    server.mock(mockhttp.get("/v1/models/{id}").reply(llm.models(["gpt-4o", "claude-x"])))
    assert [m.id for m in openai_client.models.list()] == ["gpt-4o", "claude-x"]
    listed = anthropic_client.models.list()
    assert [(m.id, m.type) for m in listed] == [("gpt-4o", "model"), ("claude-x", "model")]
    assert anthropic_client.models.retrieve("claude-x").display_name == "claude-x"
    assert openai_client.models.retrieve("gpt-4o").owned_by == "mockhttp"


# -- the built-in mocks of ``mockhttp serve`` ------------------------------------------------


def test_default_mocks_answer_every_api_with_the_model_asked(
    server: mockhttp.Server, openai_client: openai.OpenAI, anthropic_client: anthropic.Anthropic
) -> None:
    """The defaults: chat, responses, messages and Gemini, streamed and not, model echoed."""
    from mockhttp._cli._serve import DEFAULTS

    for mock in mockhttp.load(DEFAULTS):
        server.mock(mock)
    chat = openai_client.chat.completions
    stream = chat.create(model="gpt-4o-mini", messages=MESSAGES, stream=True)
    chunks = list(stream)
    assert "".join(c.choices[0].delta.content or "" for c in chunks) == "Hello, world"
    assert {c.model for c in chunks} == {"gpt-4o-mini"}
    assert chat.create(model="o3", messages=MESSAGES).model == "o3"
    responses = openai_client.responses
    assert responses.create(model="gpt-4.1", input="hi").output_text == "Hello, world"
    messages = anthropic_client.messages
    with messages.stream(model="claude-x", max_tokens=9, messages=ANTHROPIC_MESSAGES) as s:
        assert "".join(s.text_stream) == "Hello, world"
        assert s.get_final_message().model == "claude-x"
    gemini = httpx.post(
        server.url + "/v1beta/models/gemini-2.5-pro:generateContent",
        json={"contents": [{"parts": [{"text": "hi"}]}]},
        headers={"x-goog-api-key": "k"},
    ).json()
    assert gemini["modelVersion"] == "gemini-2.5-pro"
    assert gemini["candidates"][0]["content"]["parts"] == [{"text": "Hello, world"}]
    listed = [m.id for m in anthropic_client.models.list()]
    assert listed == ["gpt-mock", "claude-mock", "gemini-mock"]


# -- Gemini, with the google-genai SDK -------------------------------------------------------


@pytest.mark.parametrize("version", ["v1", "v1beta"])
def test_gemini_sdk_streamed_equals_buffered(server: mockhttp.Server, version: str) -> None:
    """google-genai (which calls /v1/ by default) reads text, calls, usage and the models."""
    from google import genai
    from google.genai import types

    path = mockhttp.match.regex(r"^/v1(beta)?/models/[^/]+:(stream)?[gG]enerateContent$")
    server.mock(mockhttp.post(path).reply(llm.gemini("Sunny, 21 °C.", tool_calls=CALLS[:1])))
    server.mock(mockhttp.get(f"/{version}/models").reply(llm.models(["gemini-a", "gemini-b"])))
    options = types.HttpOptions(base_url=server.url, api_version=version)
    with genai.Client(api_key="k", http_options=options) as client:
        buffered = client.models.generate_content(model="gemini-2.5-flash", contents="Weather?")
        stream = client.models.generate_content_stream(model="gemini-2.5-flash", contents="x")
        chunks = list(stream)
        listed = [m.name for m in client.models.list()]
    assert "".join(c.text or "" for c in chunks) == buffered.text == "Sunny, 21 °C."
    streamed_calls = [(f.name, f.args) for c in chunks for f in c.function_calls or []]
    buffered_calls = [(f.name, f.args) for f in buffered.function_calls or []]
    assert streamed_calls == buffered_calls == [("get_weather", CALLS[0]["arguments"])]
    assert buffered.usage_metadata is not None
    assert chunks[-1].usage_metadata is not None
    total = chunks[-1].usage_metadata.candidates_token_count
    assert total == buffered.usage_metadata.candidates_token_count == 24  # 6 + 1 + 17
    assert chunks[-1].model_version == buffered.model_version == "gemini-2.5-flash"
    assert str(chunks[-1].candidates[0].finish_reason) == "FinishReason.STOP"  # type: ignore[index]
    assert listed == ["models/gemini-a", "models/gemini-b"]
    assert {c.request.path.split("/")[1] for c in server.journal} == {version}
