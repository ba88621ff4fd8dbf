"""_core/_genai: what a GenAI exchange served, read from its bytes (pure), and its span
attributes.  The bodies are mockhttp.llm's own replies, built without a server."""

from __future__ import annotations

import json
from typing import Any

import pytest

from mockhttp import llm
from mockhttp._core._genai import (
    GenAI,
    ToolUse,
    api_of,
    attributes,
    genai_of,
    http_attributes,
    names,
    span_name,
)
from mockhttp._core._request import Headers, Request

TOOLS: list[dict[str, Any]] = [
    {"name": "get_weather", "arguments": {"city": "Paris"}, "id": "call_1"}
]
CHAT = {"model": "gpt-4o", "messages": [{"role": "user", "content": "Say hello"}]}


def served(kind: Any, path: str, body: dict[str, Any]) -> tuple[bytes, bytes]:
    """The request body and the reply body ``kind`` gives for it."""
    raw = json.dumps(body).encode()
    request = Request("POST", path, Headers((("content-type", "application/json"),)), raw)
    reply = kind.build(request)
    return raw, reply.content if reply.stream is None else b"".join(reply.stream.encoded)


def facts(kind: Any, path: str, body: dict[str, Any]) -> GenAI:
    raw, sent = served(kind, path, body)
    found = genai_of("POST", path.split("?")[0], raw, sent)
    assert found is not None
    return found


@pytest.mark.parametrize("stream", [False, True])
def test_openai_chat_text(stream: bool) -> None:
    body = {**CHAT, "stream": stream, "stream_options": {"include_usage": True}}
    got = facts(llm.openai_chat("Hello, world"), "/v1/chat/completions", body)
    assert (got.api, got.provider, got.operation) == ("chat_completions", "openai", "chat")
    assert (got.request_model, got.response_model) == ("gpt-4o", "gpt-4o")
    assert got.response_id is not None
    assert got.response_id.startswith("chatcmpl-")
    assert (got.input_tokens, got.output_tokens) == (2, 3)  # "Say hello", "Hello, world"
    assert got.finish_reasons == ["stop"]
    assert got.streamed is stream
    assert got.tool_calls == []
    assert got.error is None
    assert (got.chunks > 3) is stream


def test_a_stream_without_include_usage_carries_no_usage() -> None:
    got = facts(llm.openai_chat("Hi"), "/v1/chat/completions", {**CHAT, "stream": True})
    assert (got.input_tokens, got.output_tokens) == (None, None)
    assert got.finish_reasons == ["stop"]


@pytest.mark.parametrize("stream", [False, True])
def test_openai_chat_tool_calls(stream: bool) -> None:
    two: list[dict[str, Any]] = [*TOOLS, {"name": "get_time", "arguments": "{}"}]
    got = facts(
        llm.openai_chat("", tool_calls=two), "/v1/chat/completions", {**CHAT, "stream": stream}
    )
    assert got.finish_reasons == ["tool_calls"]
    assert names(got.tool_calls) == ["get_weather", "get_time"]
    assert got.tool_calls[0] == ToolUse("get_weather", "call_1")
    assert got.tool_calls[1].id is not None  # (made up by the reply)


def test_a_model_given_to_the_reply_is_the_response_model() -> None:
    got = facts(llm.openai_chat("Hi", model="gpt-4o-2024-08-06"), "/v1/chat/completions", CHAT)
    assert (got.request_model, got.response_model) == ("gpt-4o", "gpt-4o-2024-08-06")


@pytest.mark.parametrize("stream", [False, True])
def test_openai_responses(stream: bool) -> None:
    body = {"model": "gpt-4o", "input": "Say hello", "stream": stream}
    got = facts(llm.openai_responses("Hello", tool_calls=TOOLS), "/v1/responses", body)
    assert (got.api, got.provider, got.operation) == ("responses", "openai", "chat")
    assert got.response_id is not None
    assert got.response_id.startswith("resp_")
    assert (got.input_tokens, got.output_tokens) == (2, 11)  # text, the call's name and args
    assert got.finish_reasons == ["completed"]
    assert names(got.tool_calls) == ["get_weather"]


@pytest.mark.parametrize("stream", [False, True])
def test_anthropic_messages(stream: bool) -> None:
    body = {**CHAT, "model": "claude-sonnet-4", "max_tokens": 50, "stream": stream}
    got = facts(llm.anthropic_messages("Hello", tool_calls=TOOLS), "/v1/messages", body)
    assert (got.api, got.provider, got.operation) == ("anthropic_messages", "anthropic", "chat")
    assert got.response_model == "claude-sonnet-4"
    assert got.response_id is not None
    assert got.response_id.startswith("msg_")
    assert got.finish_reasons == ["tool_use"]
    assert got.tool_calls == [ToolUse("get_weather", "call_1")]
    assert got.input_tokens == 2
    assert got.output_tokens is not None
    assert got.output_tokens > 1


@pytest.mark.parametrize("method", ["generateContent", "streamGenerateContent?alt=sse"])
def test_gemini(method: str) -> None:
    path = f"/v1beta/models/gemini-2.0-flash:{method}"
    body = {"contents": [{"role": "user", "parts": [{"text": "Say hello"}]}]}
    got = facts(llm.gemini("Hello", tool_calls=TOOLS), path, body)
    assert (got.api, got.provider, got.operation) == ("gemini", "gcp.gemini", "generate_content")
    assert (got.request_model, got.response_model) == ("gemini-2.0-flash", "gemini-2.0-flash")
    assert got.finish_reasons == ["STOP"]
    assert names(got.tool_calls) == ["get_weather"]
    assert got.streamed is ("stream" in method)
    assert got.input_tokens == 2


def test_a_stream_cut_short_has_what_was_sent_before_the_cut() -> None:
    """Rule 1: no finish reason and no usage when the cut came before them."""
    body = {**CHAT, "stream": True, "stream_options": {"include_usage": True}}
    raw, sent = served(llm.openai_chat("one two three four"), "/v1/chat/completions", body)
    cut = sent[: sent.index(b"three")]
    got = genai_of("POST", "/v1/chat/completions", raw, cut)
    assert got is not None
    assert got.response_id is not None
    assert (got.finish_reasons, got.input_tokens, got.output_tokens) == ([], None, None)


def test_a_provider_error_is_noted() -> None:
    raw, sent = served(llm.openai_chat(error="rate_limit"), "/v1/chat/completions", CHAT)
    got = genai_of("POST", "/v1/chat/completions", raw, sent)
    assert got is not None
    assert got.error == "rate_limit_exceeded"
    assert got.response_id is None
    assert got.finish_reasons == []


def test_anthropic_error_in_a_stream() -> None:
    sent = (
        b'event: error\ndata: {"type":"error","error":{"type":"overloaded_error",'
        b'"message":"Overloaded"}}\n\n'
    )
    got = genai_of("POST", "/v1/messages", b'{"model":"claude"}', sent)
    assert got is not None
    assert got.error == "overloaded_error"
    assert got.streamed
    gemini = b'{"error": {"code": 429, "status": "RESOURCE_EXHAUSTED"}}'
    got = genai_of("POST", "/v1beta/models/g:generateContent", b"{}", gemini)
    assert got is not None
    assert got.error == "RESOURCE_EXHAUSTED"
    got = genai_of("POST", "/v1/messages", b"{}", b'{"error": {"code": 500}}')
    assert got is not None
    assert got.error == "500"


@pytest.mark.parametrize(
    ("method", "path"),
    [("GET", "/v1/models"), ("POST", "/v1/embeddings"), ("GET", "/v1/chat/completions")],
)
def test_no_genai_exchange_is_none(method: str, path: str) -> None:
    """Rule 2: by path (and POST)."""
    assert genai_of(method, path, b"{}", b"{}") is None


def test_api_of() -> None:
    assert api_of("/openai/v1/chat/completions") == ("chat_completions", "openai", "chat")
    assert api_of("/v1/models/x:streamGenerateContent") == (
        "gemini",
        "gcp.gemini",
        "generate_content",
    )
    assert api_of("/health") is None


def test_bodies_that_are_no_json_read_as_empty() -> None:
    got = genai_of("POST", "/v1/chat/completions", b"not json", b"<html>oops</html>")
    assert got is not None
    assert (got.request_model, got.response_id, got.streamed) == (None, None, False)
    got = genai_of("POST", "/v1/chat/completions", b"[]", b"data: nope\n\ndata: [DONE]\n\n")
    assert got is not None
    assert got.streamed
    assert got.chunks == 0


def test_attributes_follow_the_genai_conventions() -> None:
    found = GenAI(
        "chat_completions", "openai", "chat", "gpt-4o", "gpt-4o-x", "id-1", 2, 3, ["stop"], [],
        True,
    )  # fmt: skip
    assert attributes(found, 0.25) == {
        "gen_ai.operation.name": "chat",
        "gen_ai.provider.name": "openai",
        "gen_ai.system": "openai",
        "gen_ai.request.model": "gpt-4o",
        "gen_ai.response.model": "gpt-4o-x",
        "gen_ai.response.id": "id-1",
        "gen_ai.usage.input_tokens": 2,
        "gen_ai.usage.output_tokens": 3,
        "gen_ai.response.finish_reasons": ("stop",),
        "gen_ai.request.stream": True,
        "gen_ai.response.time_to_first_chunk": 0.25,
    }
    bare = attributes(GenAI("gemini", "gcp.gemini", "generate_content", error="x"), None)
    assert bare == {
        "gen_ai.operation.name": "generate_content",
        "gen_ai.provider.name": "gcp.gemini",
        "gen_ai.system": "gcp.gemini",
        "gen_ai.request.stream": False,
        "error.type": "x",
    }


def test_http_attributes() -> None:
    got = http_attributes("GET", "/things/3", 503, "1.1", "/things/{id}", ("127.0.0.1", 80, "http"))
    assert got == {
        "http.request.method": "GET",
        "url.path": "/things/3",
        "url.scheme": "http",
        "http.route": "/things/{id}",
        "http.response.status_code": 503,
        "network.protocol.version": "1.1",
        "server.address": "127.0.0.1",
        "server.port": 80,
        "error.type": "503",
    }
    cut = http_attributes("GET", "/x", None, "2", None, ("h", 1, "https"))
    assert "http.response.status_code" not in cut
    assert "http.route" not in cut


def test_span_name() -> None:
    assert span_name("POST", "/v1/chat/completions", GenAI("a", "openai", "chat", "gpt-4o")) == (
        "chat gpt-4o"
    )
    assert span_name("POST", None, GenAI("a", "openai", "chat")) == "chat"
    assert span_name("GET", "/things/{id}", None) == "GET /things/{id}"
    assert span_name("GET", None, None) == "GET"
