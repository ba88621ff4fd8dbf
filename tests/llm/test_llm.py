"""mockhttp.llm replies on the wire with httpx: shapes, ids, chunking, timing, errors, Gemini.

The SDK tests are in tests/llm/test_sdk.py; the contract and mock-file tests in
tests/llm/test_files.py.
"""

from __future__ import annotations

import dataclasses
import json
import re
import time
from typing import Any

import httpx
import pytest

import mockhttp
from mockhttp import Headers, Request, llm, match
from mockhttp.sse import Message, decode

GEMINI = match.regex(r"^/v1(beta)?/models/[^/]+:(stream)?[gG]enerateContent$")


def request(body: Any, path: str = "/v1/chat/completions", **headers: str) -> Request:
    """A request as the server parses it (for building replies without a socket)."""
    return Request("POST", path, Headers(tuple(headers.items())), json.dumps(body).encode())


def events(reply: mockhttp.Reply) -> list[Any]:
    """The data of each event of a built reply (JSON parsed, text as is)."""
    assert reply.stream is not None
    out = []
    for event in reply.stream.events:
        text = event.data_text
        out.append(text if text in (None, "[DONE]") else json.loads(text))
    return out


def stream_data(response: httpx.Response) -> list[Any]:
    """The data of every event of a streamed response, decoded by mockhttp's decoder."""
    messages = [m for m in decode(response.content) if isinstance(m, Message) and m.data]
    return [m.data if m.data == "[DONE]" else json.loads(m.data) for m in messages]


# -- OpenAI chat: the reference stream -------------------------------------------------------


def test_openai_chat_reference_stream_shape() -> None:
    """Role first, content, an empty-delta finish chunk, usage last when asked, [DONE]."""
    reply = llm.openai_chat(["Hel", "lo"]).build(
        request({"model": "m", "stream": True, "stream_options": {"include_usage": True}})
    )
    data = events(reply)
    assert data[-1] == "[DONE]"
    chunks = data[:-1]
    assert [c["choices"][0]["delta"] for c in chunks[:-1]] == [
        {"role": "assistant", "content": "", "refusal": None},
        {"content": "Hel"},
        {"content": "lo"},
        {},
    ]
    assert chunks[-2]["choices"][0]["finish_reason"] == "stop"
    assert chunks[-1]["choices"] == []
    assert chunks[-1]["usage"]["completion_tokens"] == 1  # "Hello": one word
    assert all(c["usage"] is None for c in chunks[:-1])
    assert {c["id"] for c in chunks} == {chunks[0]["id"]}
    assert {c["model"] for c in chunks} == {"m"}
    assert {c["system_fingerprint"] for c in chunks} == {"fp_mock"}


def test_openai_chat_without_include_usage_has_no_usage_key() -> None:
    reply = llm.openai_chat("Hi").build(request({"stream": True}))
    chunks = events(reply)[:-1]
    assert all("usage" not in c for c in chunks)
    assert chunks[0]["model"] == "gpt-mock"  # the request named no model


def test_given_usage_and_model_win() -> None:
    """usage keys given replace the counted ones (total follows); model replaces the echo."""
    kind = llm.openai_chat("Hi", usage={"prompt_tokens": 100}, model="fixed")
    body = json.loads(kind.build(request({"model": "asked"})).content)
    assert body["usage"]["prompt_tokens"] == 100
    assert body["usage"]["total_tokens"] == 101
    assert body["model"] == "fixed"


@pytest.mark.parametrize(
    ("kind", "expected"),
    [
        (llm.openai_chat("Hello, big world!"), ["Hello,", " big", " world!"]),
        (llm.openai_chat("Hello, world", chunk_size=5), ["Hello", ", wor", "ld"]),
        (llm.openai_chat(["He", "llo"]), ["He", "llo"]),
    ],
    ids=["words", "size", "pieces"],
)
def test_text_chunking(kind: llm.OpenAIChat, expected: list[str]) -> None:
    data = events(kind.build(request({"stream": True})))
    assert [c["choices"][0]["delta"]["content"] for c in data[1:-2]] == expected


def test_ids_unique_per_call_and_the_same_next_run() -> None:
    """Each call a new id; two equal replies (as in a rerun) give the same ids in order."""
    first, again = llm.openai_chat("Hi"), llm.openai_chat("Hi")
    ids = [json.loads(first.build(request({})).content)["id"] for _ in range(3)]
    assert len(set(ids)) == 3
    assert [json.loads(again.build(request({})).content)["id"] for _ in range(3)] == ids
    other = json.loads(llm.openai_chat("Bye").build(request({})).content)["id"]
    assert other not in ids


def test_transforms_run_on_the_draft_before_rendering() -> None:
    """A transform sees the chunks as data (with kinds) and changes the framing."""

    def keep_alive(draft: llm.Draft, context: llm.Context) -> llm.Draft:
        comment = llm.Chunk(comment="keep-alive", kind="comment")
        framing = dataclasses.replace(draft.framing, line_ending="\r\n")
        return dataclasses.replace(draft.with_chunks((comment, *draft.chunks)), framing=framing)

    reply = llm.openai_chat("Hi", transforms=[keep_alive]).build(request({"stream": True}))
    assert reply.stream is not None
    assert reply.stream.encoded[0] == b": keep-alive\r\n\r\n"
    assert reply.stream.encoded[-1] == b"data: [DONE]\r\n\r\n"


def test_framing_bom_and_no_final_blank_line() -> None:
    """Framing options a transform can set: a BOM first, the last blank line left out."""

    def edges(draft: llm.Draft, context: llm.Context) -> llm.Draft:
        framing = dataclasses.replace(draft.framing, bom=True, final_blank_line=False)
        return dataclasses.replace(draft, framing=framing)

    reply = llm.gemini("Hi", transforms=[edges]).build(
        request({}, "/v1/models/g:streamGenerateContent?alt=sse")
    )
    assert reply.stream is not None
    assert reply.stream.encoded[0].startswith(b'\xef\xbb\xbfdata: {"candidates"')
    assert reply.stream.encoded[-1].endswith(b"}\r\n")
    assert not reply.stream.encoded[-1].endswith(b"\r\n\r\n")


def test_timing_ttft_rate_and_seeded_jitter() -> None:
    """ttft before the first chunk, 1/rate between, jitter within bounds and seeded."""
    kind = llm.anthropic_messages("a b c d e f", ttft="300ms", chunks_per_second=40, jitter=0.2)
    stream = kind.build(request({"stream": True}, "/v1/messages")).stream
    assert stream is not None
    assert stream.delays[0] == 0.3
    assert all(0.025 * 0.8 <= d <= 0.025 * 1.2 for d in stream.delays[1:])
    assert len(set(stream.delays[1:])) > 1
    same = dataclasses.replace(kind)  # a fresh copy: its first call, drawn again
    again = same.build(request({"stream": True}, "/v1/messages")).stream
    assert again is not None
    assert again.delays == stream.delays


def test_buffered_answers_wait_the_ttft() -> None:
    reply = llm.gemini("Hi", ttft="250ms").build(request({}, "/v1/models/g:generateContent"))
    assert reply.head_delay == 0.25


def test_timing_on_the_wire(server: mockhttp.Server) -> None:
    """The first chunk arrives after ttft; the rest follow at the given rate."""
    server.mock(
        mockhttp.post("/v1/chat/completions").reply(
            llm.openai_chat("a b c d e", ttft=0.3, chunks_per_second=20)
        )
    )
    start = time.monotonic()
    arrivals = []
    with httpx.stream("POST", server.url + "/v1/chat/completions", json={"stream": True}) as r:
        for _ in r.iter_raw():
            arrivals.append(time.monotonic() - start)
    assert arrivals[0] >= 0.29
    assert arrivals[-1] >= 0.3 + 7 * 0.05 - 0.02  # 8 more chunks, 50 ms apart
    assert arrivals[-1] < 5


# -- errors ----------------------------------------------------------------------------------

PROVIDERS = {
    "openai_chat": (llm.openai_chat, "/v1/chat/completions"),
    "openai_responses": (llm.openai_responses, "/v1/responses"),
    "anthropic_messages": (llm.anthropic_messages, "/v1/messages"),
    "gemini": (llm.gemini, "/v1beta/models/gemini-x:generateContent"),
}
STATUS = {
    ("rate_limit", "*"): 429,
    ("overloaded", "anthropic_messages"): 529,
    ("overloaded", "*"): 503,
    ("context_length", "*"): 400,
    ("invalid_key", "gemini"): 400,
    ("invalid_key", "*"): 401,
    ("server_error", "*"): 500,
}


@pytest.mark.parametrize("provider", PROVIDERS)
@pytest.mark.parametrize("name", llm.ERRORS)
def test_errors_before_the_stream(provider: str, name: str) -> None:
    """Each error in each provider's status and JSON shape."""
    make, path = PROVIDERS[provider]
    reply = make("Hi", error=name).build(request({"stream": True}, path))
    body = json.loads(reply.content)
    assert reply.status_code == STATUS.get((name, provider), STATUS.get((name, "*")))
    if provider == "anthropic_messages":
        assert body["type"] == "error"
        assert body["request_id"].startswith("req_")
    error = body["error"]
    assert error["message"]
    if provider == "gemini":
        assert error["code"] == reply.status_code
    headers = dict(reply.headers)
    if name == "rate_limit" and provider != "gemini":
        assert headers["retry-after"] == "1"


def test_mid_stream_errors_each_providers_way() -> None:
    """OpenAI: a bare error chunk, no [DONE]; OpenRouter: finish_reason error, then [DONE];
    Responses: an error event then response.failed; Anthropic: event: error, no stop."""
    body = {"stream": True}
    openai_data = events(
        llm.openai_chat("a b c", error="server_error", error_after=1).build(request(body))
    )
    assert [d["choices"][0]["delta"] for d in openai_data[:-1]] == [
        {"role": "assistant", "content": "", "refusal": None},
        {"content": "a"},
    ]
    assert openai_data[-1] == {
        "error": {
            "message": openai_data[-1]["error"]["message"],
            "type": "server_error",
            "param": None,
            "code": None,
        }
    }
    router = events(
        llm.openai_chat("a b", error="server_error", error_after=1, error_style="openrouter").build(
            request(body)
        )
    )
    assert router[-2]["choices"][0]["finish_reason"] == "error"
    assert router[-2]["error"]["code"] == "server_error"
    assert router[-1] == "[DONE]"
    responses = llm.openai_responses("a b", error="rate_limit", error_after=1).build(
        request(body, "/v1/responses")
    )
    assert responses.stream is not None
    names = [e.event for e in responses.stream.events]
    assert names[-3:] == ["response.output_text.delta", "error", "response.failed"]
    numbers = [d["sequence_number"] for d in events(responses)]
    assert numbers == list(range(len(numbers)))
    anthropic = llm.anthropic_messages("a b", error="overloaded", error_after=0).build(
        request(body, "/v1/messages")
    )
    assert anthropic.stream is not None
    assert [e.event for e in anthropic.stream.events] == [
        "message_start", "content_block_start", "ping", "error"
    ]  # fmt: skip
    assert events(anthropic)[-1]["error"]["type"] == "overloaded_error"


# -- Gemini ----------------------------------------------------------------------------------


@pytest.mark.parametrize("version", ["v1beta", "v1"])
def test_gemini_sse_crlf_and_buffered(server: mockhttp.Server, version: str) -> None:
    """alt=sse: CRLF-framed chunks with growing usage; the joined text is the buffered one."""
    server.mock(mockhttp.post(GEMINI).reply(llm.gemini("Hello, world", tool_calls=[
        {"name": "get_weather", "arguments": {"city": "Paris"}}])))  # fmt: skip
    base = f"{server.url}/{version}/models/gemini-2.5-flash"
    body = {"contents": [{"role": "user", "parts": [{"text": "Hi there"}]}]}
    streamed = httpx.post(base + ":streamGenerateContent?alt=sse", json=body)
    assert streamed.headers["content-type"] == "text/event-stream"
    assert streamed.content.endswith(b"}\r\n\r\n")
    assert b"\n" not in streamed.content.replace(b"\r\n", b"")
    chunks = stream_data(streamed)
    parts = [p for c in chunks for p in c["candidates"][0]["content"]["parts"]]
    text = "".join(p.get("text", "") for p in parts)
    counts = [c["usageMetadata"]["candidatesTokenCount"] for c in chunks]
    assert counts == sorted(counts)
    assert chunks[-1]["candidates"][0]["finishReason"] == "STOP"
    assert {c["modelVersion"] for c in chunks} == {"gemini-2.5-flash"}
    assert len({c["responseId"] for c in chunks}) == 1
    buffered = httpx.post(base + ":generateContent", json=body).json()
    candidate = buffered["candidates"][0]
    assert candidate["content"]["parts"][0]["text"] == text == "Hello, world"
    assert candidate["content"]["parts"][1] == next(p for p in parts if "functionCall" in p)
    assert buffered["usageMetadata"] == chunks[-1]["usageMetadata"]
    assert buffered["usageMetadata"]["promptTokenCount"] == 2
    array = httpx.post(base + ":streamGenerateContent", json=body)
    assert array.headers["content-type"].startswith("application/json")
    assert [c["candidates"] for c in array.json()] == [c["candidates"] for c in chunks]


# -- models lists ----------------------------------------------------------------------------


def test_models_list_answers_in_the_asking_clients_shape(server: mockhttp.Server) -> None:
    server.mock(mockhttp.get(match.regex(r"^/v1(beta)?/models")).reply(llm.models(["a", "b"])))
    openai_list = httpx.get(server.url + "/v1/models").json()
    assert openai_list == {"object": "list", "data": [
        {"id": "a", "object": "model", "created": 1767225600, "owned_by": "mockhttp"},
        {"id": "b", "object": "model", "created": 1767225600, "owned_by": "mockhttp"}]}  # fmt: skip
    anthropic_list = httpx.get(
        server.url + "/v1/models", headers={"anthropic-version": "2023-06-01"}
    ).json()
    assert [m["id"] for m in anthropic_list["data"]] == ["a", "b"]
    assert anthropic_list["has_more"] is False
    for url, headers in (
        ("/v1/models", {"x-goog-api-key": "k"}),
        ("/v1beta/models", {}),
        ("/v1/models?key=k", {}),
    ):
        gemini = httpx.get(server.url + url, headers=headers).json()
        assert [m["name"] for m in gemini["models"]] == ["models/a", "models/b"]
    one = httpx.get(server.url + "/v1beta/models/gemini-x").json()
    assert one["name"] == "models/gemini-x"


# -- bad arguments ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"finish_reason": "done"}, "finish_reason='done' must be one of stop"),
        ({"error": "teapot"}, "error='teapot': unknown error 'teapot'"),
        ({"error_after": 2}, "error_after needs error"),
        ({"tool_calls": [{"arguments": {}}]}, "tool_calls[0].name=None must be"),
        ({"tool_calls": [{"name": "f", "arguments": "{"}]}, "is not JSON text"),
        ({"tool_calls": [{"name": "f", "args": {}}]}, "unknown key 'args'"),
        ({"jitter": 2}, "jitter=2 must be a number from 0 to 1"),
        ({"ttft": "soon"}, "ttft='soon' is not a duration"),
        ({"chunks_per_second": 0}, "chunks_per_second=0 must be a positive number"),
        ({"transforms": ["nope"]}, "unknown transform 'nope'"),
        ({"headers": {"x-a": "1\n2"}}, r"header 'x-a' value='1\n2' must not contain CR"),
        ({"text": ["a", 1]}, "text=['a', 1] must be text or a list of text pieces"),
    ],
)
def test_bad_arguments_are_config_errors(kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(mockhttp.ConfigError, match=re.escape(message)):
        llm.openai_chat(**{"text": "Hi", **kwargs})


def test_tokens_are_counted_as_docs_llm_md_says() -> None:
    """docs/llm.md "How tokens are counted" (linked from load-testing's ``tpm``): words and
    punctuation marks; the prompt's texts, not its roles, types, ids or names."""
    from mockhttp.llm._text import count_tokens, prompt_tokens

    assert count_tokens("Hello, world") == 3
    body = {
        "system": "Be brief.",
        "messages": [
            {"role": "user", "content": "Hi there"},
            {"role": "tool", "tool_call_id": "call_abc", "name": "get", "content": "18"},
        ],
    }
    assert prompt_tokens(body) == 3 + 2 + 1
