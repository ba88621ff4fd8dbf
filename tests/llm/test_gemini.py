"""llm/_gemini.py: Gemini's generateContent answers, streamed (SSE, CRLF) and buffered.

Pure tests first: the path decides the model and the streaming, the reference stream's
chunks (whole responses with a growing usage, a last chunk with the finish reason), the
JSON array without ``alt=sse``, the errors; each chunk validated by google-genai's own
``GenerateContentResponse`` (which forbids unknown keys).  Then on a loopback socket: the
exact bytes (CRLF framing) and the google-genai SDK reading them.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from google.genai import types
from hypothesis import given
from hypothesis import strategies as st

import mockhttp
from mockhttp import ConfigError, llm
from mockhttp.llm._gemini import FINISH_REASONS, Gemini
from mockhttp.llm._text import count_tokens
from tests.helpers.llm_build import body_of, payloads, raw_exchange, request, stream_bytes

BODY: dict[str, Any] = {"contents": [{"role": "user", "parts": [{"text": "What is the weather?"}]}]}
SSE = "/v1beta/models/gemini-test:streamGenerateContent?alt=sse"
ARRAY = "/v1beta/models/gemini-test:streamGenerateContent"
ONCE = "/v1beta/models/gemini-test:generateContent"
CALLS: list[dict[str, Any]] = [{"name": "get_weather", "arguments": {"city": "Paris"}}]


def chunks(reply: Gemini, path: str = SSE) -> list[dict[str, Any]]:
    return payloads(reply.build(request(BODY, path)))


def buffered(reply: Gemini, path: str = ONCE) -> Any:
    return body_of(reply.build(request(BODY, path)))


def sdk(payload: dict[str, Any]) -> types.GenerateContentResponse:
    return types.GenerateContentResponse.model_validate(payload)  # (extra keys: an error)


# -- options and the path ------------------------------------------------------------------


def test_finish_reasons_are_checked_and_sent() -> None:
    with pytest.raises(ConfigError, match="finish_reason='stop' must be one of STOP"):
        Gemini(finish_reason="stop")
    for reason in FINISH_REASONS:
        assert (
            buffered(Gemini("x", finish_reason=reason))["candidates"][0]["finishReason"] == reason
        )


@pytest.mark.parametrize(
    ("path", "model"),
    [
        ("/v1beta/models/gemini-2.5-flash:generateContent", "gemini-2.5-flash"),
        ("/v1/models/gemini-pro:streamGenerateContent?alt=sse", "gemini-pro"),
        ("/v1beta/tunedModels/x:generateContent", "gemini-mock"),  # no models/{m}: the default
        ("/generate", "gemini-mock"),
    ],
)
def test_the_model_is_the_paths(path: str, model: str) -> None:
    for reply, expected in ((Gemini("x"), model), (Gemini("x", model="given"), "given")):
        answer = reply.build(request(BODY, path))
        data = payloads(answer)[-1] if answer.stream else body_of(answer)
        assert data["modelVersion"] == expected


def test_the_method_decides_streaming_and_alt_sse_the_framing() -> None:
    sse = Gemini("x").build(request(BODY, SSE))
    assert sse.stream is not None
    assert dict(sse.headers)["Content-Type"] == "text/event-stream"
    array = Gemini("x").build(request(BODY, ARRAY))
    assert array.stream is None
    assert dict(array.headers)["Content-Type"] == "application/json; charset=UTF-8"
    once = Gemini("x").build(request({**BODY, "stream": True}, ONCE))  # the body says nothing
    assert once.stream is None


def test_the_stream_is_framed_with_crlf_and_has_no_terminator() -> None:
    data = stream_bytes(Gemini("Hi there").build(request(BODY, SSE)))
    assert b"\r\n\r\n" in data
    assert b"\n" not in data.replace(b"\r\n", b"")
    assert data.endswith(b"\r\n\r\n")
    assert b"[DONE]" not in data


# -- the stream, chunk by chunk ------------------------------------------------------------


def test_a_stream_chunk_by_chunk() -> None:
    data = chunks(Gemini("Sunny and warm", tool_calls=CALLS))
    parts = [c["candidates"][0]["content"]["parts"] for c in data]
    assert parts == [
        [{"text": "Sunny"}],
        [{"text": " and"}],
        [{"text": " warm"}],
        [{"functionCall": {"name": "get_weather", "args": {"city": "Paris"}}}],
        [{"text": ""}],
    ]
    assert all(c["candidates"][0]["content"]["role"] == "model" for c in data)
    assert all(c["candidates"][0]["index"] == 0 for c in data)
    assert ["finishReason" in c["candidates"][0] for c in data] == [False] * 4 + [True]
    assert data[-1]["candidates"][0]["finishReason"] == "STOP"
    counts = [c["usageMetadata"]["candidatesTokenCount"] for c in data]
    assert counts == [
        1,
        2,
        3,
        3 + 1 + 9,
        3 + 1 + 9,
    ]  # growing: a function call counts its name and args
    assert {c["usageMetadata"]["promptTokenCount"] for c in data} == {5}
    assert {c["responseId"] for c in data} == {data[0]["responseId"]}
    assert len(data[0]["responseId"]) == 22
    assert {c["modelVersion"] for c in data} == {"gemini-test"}


def test_reasoning_streams_thought_parts_first_counted_apart() -> None:
    data = chunks(Gemini("Yes", reasoning="Let me see"))
    assert [c["candidates"][0]["content"]["parts"] for c in data[:3]] == [
        [{"text": "Let", "thought": True}],
        [{"text": " me", "thought": True}],
        [{"text": " see", "thought": True}],
    ]
    assert [c["usageMetadata"]["thoughtsTokenCount"] for c in data] == [1, 2, 3, 3, 3]
    final = data[-1]["usageMetadata"]
    assert (final["candidatesTokenCount"], final["totalTokenCount"]) == (1, 5 + 1 + 3)
    assert "thoughtsTokenCount" not in chunks(Gemini("Yes"))[-1]["usageMetadata"]


def test_usage_given_wins_and_the_total_follows_unless_given() -> None:
    usage = buffered(Gemini("x", usage={"promptTokenCount": 100}))["usageMetadata"]
    assert (usage["promptTokenCount"], usage["totalTokenCount"]) == (100, 101)
    fixed = buffered(Gemini("x", usage={"totalTokenCount": 7}))["usageMetadata"]
    assert fixed["totalTokenCount"] == 7


def test_without_alt_sse_the_chunks_come_as_one_json_array() -> None:
    reply = Gemini("Sunny and warm")
    array = body_of(Gemini("Sunny and warm").build(request(BODY, ARRAY)))
    assert isinstance(array, list)
    assert array == chunks(reply)  # the same chunks as the SSE stream's (a twin, call 1)


# -- the buffered answer -------------------------------------------------------------------


def test_the_buffered_answer() -> None:
    body = buffered(Gemini("Sunny", reasoning="Hm", tool_calls=CALLS, id="resp-1"))
    candidate = body["candidates"][0]
    assert candidate["content"]["parts"] == [
        {"text": "Hm", "thought": True},
        {"text": "Sunny"},
        {"functionCall": {"name": "get_weather", "args": {"city": "Paris"}}},
    ]
    assert candidate["finishReason"] == "STOP"
    assert body["responseId"] == "resp-1"
    assert body["usageMetadata"] == {
        "promptTokenCount": 5,
        "candidatesTokenCount": 1 + 1 + 9,
        "totalTokenCount": 5 + 11 + 1,
        "thoughtsTokenCount": 1,
    }
    assert buffered(Gemini())["candidates"][0]["content"]["parts"] == []


# -- errors --------------------------------------------------------------------------------


def test_an_error_answer_in_googles_shape() -> None:
    answer = Gemini(error="rate_limit", retry_after=2, headers={"x-own": "1"}).build(
        request(BODY, SSE)
    )
    assert answer.status_code == 429
    error = body_of(answer)["error"]
    assert (error["code"], error["status"]) == (429, "RESOURCE_EXHAUSTED")
    assert error["details"][0]["retryDelay"] == "2s"
    assert ("x-own", "1") in answer.headers


def test_a_mid_stream_error_is_a_last_chunk_with_the_error() -> None:
    data = chunks(Gemini("one two three", error="overloaded", error_after=2))
    assert [c["candidates"][0]["content"]["parts"][0]["text"] for c in data[:2]] == ["one", " two"]
    assert data[-1] == {
        "error": {"code": 503, "message": data[-1]["error"]["message"], "status": "UNAVAILABLE"}
    }
    assert len(data) == 3


# -- google-genai's types ------------------------------------------------------------------


@pytest.mark.parametrize(
    "options",
    [
        {"text": "Sunny"},
        {"text": "", "tool_calls": CALLS},
        {"text": "x", "reasoning": "Hm", "finish_reason": "MAX_TOKENS"},
        {"text": "x", "usage": {"promptTokenCount": 3}},
    ],
)
def test_every_chunk_and_answer_is_a_generate_content_response(options: dict[str, Any]) -> None:
    for payload in chunks(Gemini(**options)):
        sdk(payload)
    answer = sdk(buffered(Gemini(**options)))
    assert answer.model_version == "gemini-test"
    assert answer.usage_metadata is not None


def test_the_sdk_types_refuse_a_key_they_do_not_name() -> None:
    """(so the check above can fail)"""
    with pytest.raises(ValueError, match="usageMetadataa"):
        sdk({**buffered(Gemini("x")), "usageMetadataa": {}})


@given(st.text(st.characters(codec="utf-8"), max_size=30), st.none() | st.integers(1, 5))
def test_the_text_parts_join_to_the_text(text: str, size: int | None) -> None:
    data = chunks(Gemini(text, chunk_size=size))
    assert (
        "".join(p.get("text", "") for c in data for p in c["candidates"][0]["content"]["parts"])
        == text
    )
    assert data[-1]["usageMetadata"]["candidatesTokenCount"] == count_tokens(text)


# -- on a loopback socket ------------------------------------------------------------------

PATH = mockhttp.match.regex(r"^/v1(beta)?/models/[^/]+:(stream)?[gG]enerateContent$")


def test_the_server_sends_exactly_the_rendered_bytes(server: mockhttp.Server) -> None:
    server.mock(mockhttp.post(PATH).reply(llm.gemini("Sunny, 21 °C.", reasoning="Hm")))
    head, body = raw_exchange(server.url, SSE, BODY)
    assert body == stream_bytes(Gemini("Sunny, 21 °C.", reasoning="Hm").build(request(BODY, SSE)))
    assert b"\r\ncontent-type: text/event-stream\r\n" in head.lower()
    _, array = raw_exchange(server.url, ARRAY, BODY)
    assert json.loads(array)[0]["candidates"][0]["content"]["parts"][0]["text"] == "Hm"


def test_google_genai_reads_the_stream_and_the_answer(server: mockhttp.Server) -> None:
    from google import genai

    server.mock(mockhttp.post(PATH).reply(llm.gemini("Hi there", reasoning="Hm", tool_calls=CALLS)))
    options = types.HttpOptions(base_url=server.url, api_version="v1beta")
    with genai.Client(api_key="k", http_options=options) as client:
        stream = client.models.generate_content_stream(model="gemini-test", contents="Weather?")
        streamed = list(stream)
        answer = client.models.generate_content(model="gemini-test", contents="Weather?")
    thoughts = [p.text for c in streamed for p in c.candidates[0].content.parts if p.thought]  # type: ignore[index, union-attr]
    assert thoughts == ["Hm"]
    assert "".join(c.text or "" for c in streamed) == answer.text == "Hi there"
    assert [(f.name, f.args) for c in streamed for f in c.function_calls or []] == [
        ("get_weather", {"city": "Paris"})
    ]
    assert streamed[-1].usage_metadata is not None
    assert answer.usage_metadata is not None
    assert (
        streamed[-1].usage_metadata.thoughts_token_count
        == answer.usage_metadata.thoughts_token_count
        == 1
    )
